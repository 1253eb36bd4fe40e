package mapping_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sofago/sofago/components/mapping"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
)

// skinningMapping is what both skinning mappings offer beyond graph.Mapping.
type skinningMapping interface {
	graph.Mapping
	SetStates(from, to graph.State)
	SetRestPoints(points []float64)
	SetWeights(w mapping.SkinningWeights)
	Init() error
	Reinit() error
	Deform(X geom.Vec3, frames []int, weights []float64, grads []geom.Vec3) (geom.Vec3, geom.Mat3)
}

// gaussianWeights returns normalised Gaussian kernel weights of frames
// centred at centres, with their exact gradients: φᵢ = exp(−|X − cᵢ|²/σ²),
// wᵢ = φᵢ / Σφ, ∇wᵢ = (∇φᵢ − wᵢ Σ∇φ)/Σφ. Every frame influences every
// point, so the weights are a smooth partition of unity (Σ w = 1 and
// Σ ∇w = 0 up to rounding).
//
// The weights also carry their exact Hessians (the quotient rule twice:
// H_w = (H_φ − w H_S − ∇w ⊗ ∇S − ∇S ⊗ ∇w)/S, H_φ = φ (4 d dᵀ/σ⁴ − 2 I/σ²)),
// which sum to zero over a point up to rounding.
func gaussianWeights(points []float64, centres []geom.Vec3, sigma float64) mapping.SkinningWeights {
	n := len(points) / 3
	frames := make([][]int, n)
	weights := make([][]float64, n)
	grads := make([][]geom.Vec3, n)
	var hess []geom.Mat3
	s2 := sigma * sigma
	for p := 0; p < n; p++ {
		X := geom.At(points, p)
		phi := make([]float64, len(centres))
		dphi := make([]geom.Vec3, len(centres))
		hphi := make([]geom.Mat3, len(centres))
		S, dS, HS := 0.0, geom.Vec3{}, geom.Mat3{}
		for i, c := range centres {
			d := X.Sub(c)
			phi[i] = math.Exp(-d.Norm2() / s2)
			dphi[i] = d.Scale(-2 / s2 * phi[i])
			hphi[i] = d.Outer(d).Scale(4 / (s2 * s2)).Sub(geom.Identity3().Scale(2 / s2)).Scale(phi[i])
			S += phi[i]
			dS = dS.Add(dphi[i])
			HS = HS.Add(hphi[i])
		}
		for i := range centres {
			w := phi[i] / S
			gw := dphi[i].Sub(dS.Scale(w)).Scale(1 / S)
			frames[p] = append(frames[p], i)
			weights[p] = append(weights[p], w)
			grads[p] = append(grads[p], gw)
			hess = append(hess, hphi[i].Sub(HS.Scale(w)).Sub(gw.Outer(dS)).Sub(dS.Outer(gw)).Scale(1/S))
		}
	}
	w, err := mapping.NewSkinningWeights(frames, weights, grads)
	if err != nil {
		panic(err)
	}
	w.Hessians = hess
	return w
}

// randomRotation returns a uniformly random unit quaternion.
func randomRotation(rng *rand.Rand) geom.Quat {
	return geom.Quat{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}.Normalized()
}

// rigidCoords packs frames (t, q) into Rigid3 coordinates.
func rigidCoords(ts []geom.Vec3, qs []geom.Quat) []float64 {
	x := make([]float64, 0, 7*len(ts))
	for i := range ts {
		x = append(x, ts[i][0], ts[i][1], ts[i][2], qs[i][0], qs[i][1], qs[i][2], qs[i][3])
	}
	return x
}

// affineCoords packs frames (t, A) into Affine3 coordinates.
func affineCoords(ts []geom.Vec3, As []geom.Mat3) []float64 {
	x := make([]float64, 0, 12*len(ts))
	for i := range ts {
		x = append(x, ts[i][0], ts[i][1], ts[i][2])
		x = append(x, As[i][:]...)
	}
	return x
}

// buildSkinning sets up mapping m from a parent state of template pt with
// the given rest and current coordinates to a child state of template ct
// at the rest points with weights w, and initialises it.
func buildSkinning(t testing.TB, m skinningMapping, pt graph.Template, rest, pos []float64, ct graph.Template, restPoints []float64, w mapping.SkinningWeights) (parent, child *graph.MechanicalObject) {
	t.Helper()
	parent = graph.NewMechanicalObject("frames", pt, len(rest)/pt.CoordSize())
	copy(parent.Vec(graph.RestPosition), rest)
	copy(parent.Vec(graph.Position), pos)
	child = graph.NewMechanicalObject("samples", ct, 0)
	m.SetStates(parent, child)
	m.SetRestPoints(restPoints)
	m.SetWeights(w)
	if err := m.Init(); err != nil {
		t.Fatalf("init: %v", err)
	}
	return parent, child
}

func maxAbsDiff(a, b []float64) float64 {
	m := 0.0
	for i := range a {
		m = math.Max(m, math.Abs(a[i]-b[i]))
	}
	return m
}
