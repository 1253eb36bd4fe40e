package mapping_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sofago/sofago/components/mapping"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

// dqsFixture builds a DualQuaternionSkinningMapping with nf rigid frames at
// random rest poses, turned by large random rotations (up to ±maxAngle
// about random axes, continuous from the rest quaternion), with np points
// and Gaussian weights.
func dqsFixture(t testing.TB, seed uint64, ct graph.Template, nf, np int, maxAngle float64) (*mapping.DualQuaternionSkinningMapping, []float64, []float64, mapping.SkinningWeights) {
	rng := rand.New(rand.NewPCG(seed, 12))
	centres := make([]geom.Vec3, nf)
	restT, curT := make([]geom.Vec3, nf), make([]geom.Vec3, nf)
	restQ, curQ := make([]geom.Quat, nf), make([]geom.Quat, nf)
	for i := range centres {
		centres[i] = geom.Vec3{2*rng.Float64() - 1, 2*rng.Float64() - 1, 2*rng.Float64() - 1}
		restT[i] = centres[i]
		curT[i] = centres[i].Add(geom.Vec3{0.5 * rng.NormFloat64(), 0.5 * rng.NormFloat64(), 0.5 * rng.NormFloat64()})
		restQ[i] = randomRotation(rng)
		axis := geom.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		curQ[i] = geom.QuatFromAxisAngle(axis, maxAngle*(2*rng.Float64()-1)).Mul(restQ[i])
	}
	pts := randomPoints(rng, np)
	w := gaussianWeights(pts, centres, 1.2)
	m := mapping.NewDualQuaternionSkinningMapping()
	pos := rigidCoords(curT, curQ)
	buildSkinning(t, m, graph.Rigid3, rigidCoords(restT, restQ), pos, ct, pts, w)
	return m, pos, pts, w
}

// TestDualQuaternionSkinningFixtures: J, Jᵀ and the geometric stiffness
// against finite differences, with 3 and 5 frames whose relative rotations
// reach ±150° (an unnormalised blend far from any frame's own transform).
func TestDualQuaternionSkinningFixtures(t *testing.T) {
	for _, ct := range []graph.Template{graph.Vec3, graph.F331} {
		for _, nf := range []int{3, 5} {
			t.Run(fmt.Sprintf("%s/%dframes", ct.Name(), nf), func(t *testing.T) {
				m, pos, _, _ := dqsFixture(t, uint64(7+nf), ct, nf, 120, 150*math.Pi/180)
				graphtest.CheckMapping(t, m, pos, graphtest.Options{Trials: 4, Tolerance: fdTolerance})
			})
		}
	}
}

// TestDualQuaternionSkinningTextbook compares Apply with a direct
// implementation of Kavan et al.'s blend on geom.DualQuat: b = Σ wᵢ qᵢ q̄ᵢ⁻¹,
// x = normalised(b) applied to X; and F with central differences of x in X
// (Deform with the weights and gradients of the Gaussian kernels at X ± hδ).
func TestDualQuaternionSkinningTextbook(t *testing.T) {
	const nf, np = 4, 60
	m, pos, pts, w := dqsFixture(t, 3, graph.Vec3, nf, np, 170*math.Pi/180)
	rest := m.From().Vec(graph.RestPosition)
	x := m.To().Vec(graph.Position)
	frame := func(c []float64, k int) geom.DualQuat {
		return geom.DualQuatFromRigid(geom.Quat{c[7*k+3], c[7*k+4], c[7*k+5], c[7*k+6]}, geom.Vec3{c[7*k], c[7*k+1], c[7*k+2]})
	}
	worst := 0.0
	for p := 0; p < np; p++ {
		frames, weights, _ := w.Influences(p)
		var b geom.DualQuat
		for i, k := range frames {
			b = b.Add(frame(pos, k).Mul(frame(rest, k).Conj()).Scale(weights[i]))
		}
		want := b.Normalized().TransformPoint(geom.At(pts, p))
		worst = max(worst, want.Sub(geom.At(x, p)).Norm())
	}
	t.Logf("largest difference to the textbook blend: %.3g", worst)
	// Both compute the same products in a different order on O(1) numbers.
	if worst > 1e-13 {
		t.Errorf("Apply differs from the textbook dual quaternion blend by %.3g", worst)
	}

	// F against central differences of x(X); the weights move with X.
	rng := rand.New(rand.NewPCG(9, 9))
	centres := make([]geom.Vec3, nf)
	for k := 0; k < nf; k++ {
		centres[k] = geom.Vec3{rest[7*k], rest[7*k+1], rest[7*k+2]}
	}
	at := func(X geom.Vec3) (geom.Vec3, geom.Mat3) {
		wx := gaussianWeights(X[:], centres, 1.2)
		f, ws, gs := wx.Influences(0)
		return m.Deform(X, f, ws, gs)
	}
	worstF := 0.0
	for trial := 0; trial < 10; trial++ {
		X := geom.Vec3{2*rng.Float64() - 1, 2*rng.Float64() - 1, 2*rng.Float64() - 1}
		_, F := at(X)
		const h = 1e-6
		for c := 0; c < 3; c++ {
			d := geom.Vec3{}
			d[c] = h
			xp, _ := at(X.Add(d))
			xm, _ := at(X.Sub(d))
			col := xp.Sub(xm).Scale(1 / (2 * h))
			for r := 0; r < 3; r++ {
				worstF = max(worstF, math.Abs(col[r]-F[3*r+c]))
			}
		}
	}
	t.Logf("largest difference of F to central differences of x: %.3g", worstF)
	// Truncation O(h²) ≈ 1e-12, rounding ε/h ≈ 1e-10.
	if worstF > 1e-8 {
		t.Errorf("F differs from ∂x/∂X by %.3g", worstF)
	}
}

// TestSkinningRigidMotion: any rigid motion of rigid frames gives F = R at
// every sample and x = R X + c, for both mappings (patch test).
func TestSkinningRigidMotion(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 2))
	const nf, np = 4, 100
	Q := randomRotation(rng)
	if Q[3] < 0 {
		// The same rotation, in the hemisphere of the identity, so that
		// every frame's quaternion Q q̄ stays in the hemisphere of q̄
		// (q·q̄ = Q_w), as Init requires.
		Q = geom.Quat{-Q[0], -Q[1], -Q[2], -Q[3]}
	}
	R := Q.Mat()
	c := geom.Vec3{1.5, -0.3, 2}
	restT, curT := make([]geom.Vec3, nf), make([]geom.Vec3, nf)
	restQ, curQ := make([]geom.Quat, nf), make([]geom.Quat, nf)
	for i := range restT {
		restT[i] = geom.Vec3{2*rng.Float64() - 1, 2*rng.Float64() - 1, 2*rng.Float64() - 1}
		restQ[i] = randomRotation(rng)
		curT[i] = R.MulVec(restT[i]).Add(c)
		curQ[i] = Q.Mul(restQ[i])
	}
	pts := randomPoints(rng, np)
	w := gaussianWeights(pts, restT, 0.9)
	for _, name := range []string{"LBS", "DQS"} {
		for _, ct := range []graph.Template{graph.Vec3, graph.F331} {
			var m skinningMapping = mapping.NewLinearBlendSkinningMapping()
			if name == "DQS" {
				m = mapping.NewDualQuaternionSkinningMapping()
			}
			_, child := buildSkinning(t, m, graph.Rigid3, rigidCoords(restT, restQ), rigidCoords(curT, curQ), ct, pts, w)
			x := child.Vec(graph.Position)
			worst := 0.0
			for p := 0; p < np; p++ {
				if ct == graph.Vec3 {
					y := R.MulVec(geom.At(pts, p)).Add(c)
					worst = max(worst, maxAbsDiff(x[3*p:3*p+3], y[:]))
				} else {
					worst = max(worst, maxAbsDiff(x[9*p:9*p+9], R[:]))
				}
			}
			t.Logf("%s → %s: largest error %.3g", name, ct.Name(), worst)
			if worst > 1e-12 {
				t.Errorf("%s → %s: rigid motion error %.3g > 1e-12", name, ct.Name(), worst)
			}
		}
	}
}

// TestDualQuaternionSkinningStiffnessCache: repeated ApplyDJT calls with one
// child force (a CG solve) switch to the assembled matrix Kg; its products
// must equal the direct ones (the same sums in another order: agreement to
// 1e-12 of the largest entry), and Apply or a new force must drop it.
func TestDualQuaternionSkinningStiffnessCache(t *testing.T) {
	for _, ct := range []graph.Template{graph.Vec3, graph.F331} {
		direct, pos, _, _ := dqsFixture(t, 17, ct, 4, 80, 2)
		cached, _, _, _ := dqsFixture(t, 17, ct, 4, 80, 2)
		rng := rand.New(rand.NewPCG(4, 4))
		child := make([]float64, direct.To().Size()*ct.CoordSize())
		f := graphtest.RandomDeriv(rng, direct.To().Size()*ct.DerivSize(), 1)
		cached.Apply(child, pos)
		worst, scale := 0.0, 0.0
		for call := 0; call < 20; call++ {
			dx := graphtest.RandomDeriv(rng, len(pos)/7*6, 1)
			want := make([]float64, len(dx))
			direct.Apply(child, pos) // drops any cache: always the direct products
			direct.ApplyDJT(want, dx, f, 0.7)
			got := make([]float64, len(dx))
			cached.ApplyDJT(got, dx, f, 0.7)
			for i := range got {
				worst = max(worst, math.Abs(got[i]-want[i]))
				scale = max(scale, math.Abs(want[i]))
			}
		}
		t.Logf("%s: cached vs direct geometric stiffness: %.3g (scale %.3g)", ct.Name(), worst, scale)
		if worst > 1e-12*scale {
			t.Errorf("%s: cached geometric stiffness differs from the direct products by %.3g (scale %.3g)", ct.Name(), worst, scale)
		}
		// A new force and a new configuration must not reuse the matrix.
		f2 := graphtest.RandomDeriv(rng, len(f), 1)
		graphtest.CheckMapping(t, cached, pos, graphtest.Options{Tolerance: fdTolerance})
		dx := graphtest.RandomDeriv(rng, len(pos)/7*6, 1)
		want, got := make([]float64, len(dx)), make([]float64, len(dx))
		direct.Apply(child, pos)
		direct.ApplyDJT(want, dx, f2, 1)
		cached.Apply(child, pos)
		for call := 0; call < 20; call++ {
			clear(got)
			cached.ApplyDJT(got, dx, f2, 1)
		}
		if d := maxAbsDiff(got, want); d > 1e-12*scale {
			t.Errorf("%s: after a new force, cached products differ by %.3g", ct.Name(), d)
		}
	}
}
