package shapefunction

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
)

// TestKernelShapeFunction: the MLS-kernel weights are a partition of
// unity with Σ∇w = 0 and Σ∇∇w = 0; their gradients and Hessians are the
// central differences of the weights and of the gradients; each support
// radius is supportFactor × the nearest-node distance (a point beyond it
// gets no weight from that node).
func TestKernelShapeFunction(t *testing.T) {
	nodes := []geom.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0.3, 0.2, 1}, {1, 1, 0.5}, {0.6, 0.5, 0.4}}
	s := &KernelShapeFunction{ObjectBase: graph.ObjectBase{Name: "w"}, SupportFactor: 2.5, ShapeFunctionBase: ShapeFunctionBase{NbRef: 6}}
	s.SetFrames(rigidFrames(nodes...))
	rng := rand.New(rand.NewPCG(3, 17))
	const h = 1e-6
	worstG, worstH := 0.0, 0.0
	for trial := 0; trial < 30; trial++ {
		p := geom.Vec3{rng.Float64(), rng.Float64(), rng.Float64()}
		sw, err := s.WeightHessiansAt(p[:])
		if err != nil {
			t.Fatal(err)
		}
		checkPartition(t, sw, 6)
		checkHessianSums(t, sw)
		for a := 0; a < 3; a++ {
			pp, pm := p, p
			pp[a] += h
			pm[a] -= h
			wp, _ := s.WeightsAt(pp[:])
			wm, _ := s.WeightsAt(pm[:])
			if !equalInts(wp.Frames, sw.Frames) || !equalInts(wm.Frames, sw.Frames) {
				continue // a support's edge within ±h
			}
			for e := range sw.Frames {
				fd := (wp.Weights[e] - wm.Weights[e]) / (2 * h)
				worstG = math.Max(worstG, math.Abs(fd-sw.Gradients[e][a])/(1+math.Abs(fd)))
				for b := 0; b < 3; b++ {
					fd := (wp.Gradients[e][b] - wm.Gradients[e][b]) / (2 * h)
					an := sw.Hessians[e][3*b+a]
					worstH = math.Max(worstH, math.Abs(fd-an)/(1+math.Abs(an)))
				}
			}
		}
	}
	t.Logf("largest error vs central differences: gradients %.2g, Hessians %.2g", worstG, worstH)
	// Central differences, h = 1e-6, of O(1)–O(10) functions: ~h² plus
	// rounding ε/h ≈ 1e-10.
	if worstG > 1e-7 || worstH > 1e-7 {
		t.Errorf("derivatives differ from finite differences by %.3g (gradients), %.3g (Hessians)", worstG, worstH)
	}
	// Node 0's nearest node is node 5 at distance √0.77 = 0.877, so its
	// support radius is 2.19: a point at distance 2.6 from it, within the
	// supports of others, gets no weight from it.
	p := geom.Vec3{2.6, 0, 0}
	sw, err := s.WeightsAt(p[:])
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range sw.Frames {
		if f == 0 {
			t.Errorf("node 0 weighs a point beyond its support radius")
		}
	}
}
