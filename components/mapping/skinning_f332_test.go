package mapping_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sofago/sofago/components/mapping"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

// TestLinearBlendSkinningF332Fixtures: linear blend skinning of rigid and
// affine frames (random rest and current poses, arbitrary rotations) onto
// F332 samples passes the mapping fixture: J against central differences
// of Apply, Jᵀ the transpose of J, and the geometric stiffness against
// differences of Jᵀf.
func TestLinearBlendSkinningF332Fixtures(t *testing.T) {
	for _, affine := range []bool{false, true} {
		t.Run(fmt.Sprintf("affine=%v", affine), func(t *testing.T) {
			m, _, pos := lbsFixture(t, 9, affine, graph.F332, 4, 150)
			graphtest.CheckMapping(t, m, pos, graphtest.Options{Trials: 4, Tolerance: fdTolerance})
		})
	}
}

// TestLinearBlendSkinningF332IsGradientOfF: the gradient blocks of the
// F332 samples are the derivative of the deformation gradient in X: at
// every sample, ∂F/∂X_k equals the central difference of the F331
// mapping's F at X ± h e_k (same frames, same smooth Gaussian weights
// evaluated at the shifted points). Central differences of F (smooth, of
// scale 1 over σ) with h = 1e-5 are accurate to ~h² ≈ 1e-10 relative; the
// bound 1e-7 leaves room for rounding (1e-16/h ≈ 1e-11) and for the
// curvature of the exponential weights.
func TestLinearBlendSkinningF332IsGradientOfF(t *testing.T) {
	for _, affine := range []bool{false, true} {
		rng := rand.New(rand.NewPCG(31, 3))
		const nf, np = 4, 60
		centres := make([]geom.Vec3, nf)
		restT, curT := make([]geom.Vec3, nf), make([]geom.Vec3, nf)
		var pt graph.Template
		var rest, pos []float64
		for i := range centres {
			centres[i] = geom.Vec3{2*rng.Float64() - 1, 2*rng.Float64() - 1, 2*rng.Float64() - 1}
			restT[i] = centres[i]
			curT[i] = centres[i].Add(geom.Vec3{0.5 * rng.NormFloat64(), 0.5 * rng.NormFloat64(), 0.5 * rng.NormFloat64()})
		}
		if affine {
			pt = graph.Affine3
			rA, cA := make([]geom.Mat3, nf), make([]geom.Mat3, nf)
			for i := range rA {
				rA[i], cA[i] = randomAffine(rng), randomAffine(rng).Mul(randomRotation(rng).Mat())
			}
			rest, pos = affineCoords(restT, rA), affineCoords(curT, cA)
		} else {
			pt = graph.Rigid3
			rQ, cQ := make([]geom.Quat, nf), make([]geom.Quat, nf)
			for i := range rQ {
				rQ[i], cQ[i] = randomRotation(rng), randomRotation(rng)
			}
			rest, pos = rigidCoords(restT, rQ), rigidCoords(curT, cQ)
		}
		pts := randomPoints(rng, np)
		const sigma, h = 1.2, 1e-5
		m2 := mapping.NewLinearBlendSkinningMapping()
		_, c2 := buildSkinning(t, m2, pt, rest, pos, graph.F332, pts, gaussianWeights(pts, centres, sigma))
		worst := 0.0
		for k := 0; k < 3; k++ {
			shifted := func(s float64) []float64 {
				q := append([]float64(nil), pts...)
				for p := 0; p < np; p++ {
					q[3*p+k] += s
				}
				m := mapping.NewLinearBlendSkinningMapping()
				_, c := buildSkinning(t, m, pt, rest, pos, graph.F331, q, gaussianWeights(q, centres, sigma))
				return c.Vec(graph.Position)
			}
			fp, fm := shifted(h), shifted(-h)
			for p := 0; p < np; p++ {
				got := c2.Vec(graph.Position)[36*p+9*(k+1) : 36*p+9*(k+2)]
				F := c2.Vec(graph.Position)[36*p : 36*p+9]
				scale := 0.0
				for i := range 9 {
					scale = math.Max(scale, math.Abs(F[i]))
				}
				for i := range 9 {
					fd := (fp[9*p+i] - fm[9*p+i]) / (2 * h)
					worst = math.Max(worst, math.Abs(got[i]-fd)/scale)
				}
			}
		}
		t.Logf("affine=%v: ∂F/∂X against central differences of F, largest error relative to |F|: %.2g", affine, worst)
		if worst > 1e-7 {
			t.Errorf("affine=%v: the F332 gradient differs from the derivative of F by %.3g (relative)", affine, worst)
		}
	}
}

// TestLinearBlendSkinningF332AffinePatch: affine frames moved by one affine
// map y = M X + c reproduce it exactly: F = M and ∇F = 0 at every sample
// (Σ w = 1, Σ ∇w = 0 and Σ H_w = 0 to rounding), to 1e-12 (sums of a few
// products of O(1) numbers).
func TestLinearBlendSkinningF332AffinePatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 5))
	const nf, np = 5, 200
	centres := make([]geom.Vec3, nf)
	restT, curT := make([]geom.Vec3, nf), make([]geom.Vec3, nf)
	restA, curA := make([]geom.Mat3, nf), make([]geom.Mat3, nf)
	M := randomAffine(rng).Mul(randomRotation(rng).Mat())
	c := geom.Vec3{0.3, -1.2, 0.7}
	for i := range centres {
		centres[i] = geom.Vec3{2*rng.Float64() - 1, 2*rng.Float64() - 1, 2*rng.Float64() - 1}
		restT[i], restA[i] = centres[i], randomAffine(rng)
		curT[i], curA[i] = M.MulVec(restT[i]).Add(c), M.Mul(restA[i])
	}
	pts := randomPoints(rng, np)
	m := mapping.NewLinearBlendSkinningMapping()
	_, child := buildSkinning(t, m, graph.Affine3, affineCoords(restT, restA), affineCoords(curT, curA), graph.F332, pts, gaussianWeights(pts, centres, 0.8))
	x := child.Vec(graph.Position)
	var want [36]float64
	copy(want[:9], M[:])
	worst := 0.0
	for p := 0; p < np; p++ {
		worst = max(worst, maxAbsDiff(x[36*p:36*p+36], want[:]))
	}
	t.Logf("largest error of (F, ∇F) against (M, 0): %.3g", worst)
	if worst > 1e-12 {
		t.Errorf("affine patch test on F332: error %.3g > 1e-12", worst)
	}
}

// TestF332Refusals: dual-quaternion skinning refuses F332 samples, and a
// shape function without second derivatives is refused for them, each
// with a message saying what to do.
func TestF332Refusals(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	centres := []geom.Vec3{{0, 0, 0}, {1, 0, 0}}
	pts := randomPoints(rng, 4)
	rest := rigidCoords(centres, []geom.Quat{geom.QuatIdentity(), geom.QuatIdentity()})
	parent := graph.NewMechanicalObject("frames", graph.Rigid3, 2)
	copy(parent.Vec(graph.RestPosition), rest)
	copy(parent.Vec(graph.Position), rest)
	child := graph.NewMechanicalObject("samples", graph.F332, 0)
	dqs := mapping.NewDualQuaternionSkinningMapping()
	dqs.SetStates(parent, child)
	dqs.SetRestPoints(pts)
	dqs.SetWeights(gaussianWeights(pts, centres, 1))
	if err := dqs.Init(); err == nil || !strings.Contains(err.Error(), "use LinearBlendSkinningMapping for F332") {
		t.Errorf("DQS onto F332: %v", err)
	}
	w := gaussianWeights(pts, centres, 1)
	w.Hessians = nil
	lbs := mapping.NewLinearBlendSkinningMapping()
	lbs.SetStates(parent, child)
	lbs.SetRestPoints(pts)
	lbs.SetWeights(w)
	if err := lbs.Init(); err == nil || !strings.Contains(err.Error(), "second derivatives") {
		t.Errorf("LBS onto F332 without Hessians: %v", err)
	}
}
