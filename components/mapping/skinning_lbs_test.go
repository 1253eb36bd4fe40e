package mapping_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/sofago/sofago/components/mapping"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

// randomAffine returns a random well-conditioned matrix I + 0.4·N(0,1).
func randomAffine(rng *rand.Rand) geom.Mat3 {
	A := geom.Identity3()
	for i := range A {
		A[i] += 0.4 * rng.NormFloat64()
	}
	return A
}

// lbsFixture builds a LinearBlendSkinningMapping with nf frames (rigid or
// affine, random rest and current poses with large rotations) and np
// points with Gaussian weights, onto Vec3 or F331.
func lbsFixture(t testing.TB, seed uint64, affine bool, ct graph.Template, nf, np int) (*mapping.LinearBlendSkinningMapping, *graph.MechanicalObject, []float64) {
	rng := rand.New(rand.NewPCG(seed, 11))
	centres := make([]geom.Vec3, nf)
	restT, curT := make([]geom.Vec3, nf), make([]geom.Vec3, nf)
	for i := range centres {
		centres[i] = geom.Vec3{2*rng.Float64() - 1, 2*rng.Float64() - 1, 2*rng.Float64() - 1}
		restT[i] = centres[i]
		curT[i] = centres[i].Add(geom.Vec3{0.5 * rng.NormFloat64(), 0.5 * rng.NormFloat64(), 0.5 * rng.NormFloat64()})
	}
	var pt graph.Template
	var rest, pos []float64
	if affine {
		pt = graph.Affine3
		restA, curA := make([]geom.Mat3, nf), make([]geom.Mat3, nf)
		for i := range restA {
			restA[i], curA[i] = randomAffine(rng), randomAffine(rng).Mul(randomRotation(rng).Mat())
		}
		rest, pos = affineCoords(restT, restA), affineCoords(curT, curA)
	} else {
		pt = graph.Rigid3
		restQ, curQ := make([]geom.Quat, nf), make([]geom.Quat, nf)
		for i := range restQ {
			restQ[i], curQ[i] = randomRotation(rng), randomRotation(rng)
		}
		rest, pos = rigidCoords(restT, restQ), rigidCoords(curT, curQ)
	}
	pts := randomPoints(rng, np)
	m := mapping.NewLinearBlendSkinningMapping()
	buildSkinning(t, m, pt, rest, pos, ct, pts, gaussianWeights(pts, centres, 1.2))
	return m, nil, pos
}

func TestLinearBlendSkinningFixtures(t *testing.T) {
	for _, affine := range []bool{false, true} {
		for _, ct := range []graph.Template{graph.Vec3, graph.F331} {
			name := fmt.Sprintf("affine=%v/%s", affine, ct.Name())
			t.Run(name, func(t *testing.T) {
				m, _, pos := lbsFixture(t, 5, affine, ct, 4, 150)
				graphtest.CheckMapping(t, m, pos, graphtest.Options{Trials: 4, Tolerance: fdTolerance})
			})
		}
	}
}

// TestLinearBlendSkinningAffinePatch: affine frames moved by one affine
// map y = M X + c (each frame's transform composed with it) reproduce it
// exactly at every point, and F = M at every sample. Rounding bound: x
// and F are sums of a few products of O(1) numbers, so errors are a few
// ulps of O(1); 1e-12 is the requirement.
func TestLinearBlendSkinningAffinePatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 1))
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
	w := gaussianWeights(pts, centres, 0.8)
	for _, ct := range []graph.Template{graph.Vec3, graph.F331} {
		m := mapping.NewLinearBlendSkinningMapping()
		_, child := buildSkinning(t, m, graph.Affine3, affineCoords(restT, restA), affineCoords(curT, curA), ct, pts, w)
		x := child.Vec(graph.Position)
		worst := 0.0
		for p := 0; p < np; p++ {
			var want []float64
			var got []float64
			if ct == graph.Vec3 {
				y := M.MulVec(geom.At(pts, p)).Add(c)
				want, got = y[:], x[3*p:3*p+3]
			} else {
				want, got = M[:], x[9*p:9*p+9]
			}
			worst = max(worst, maxAbsDiff(got, want))
		}
		t.Logf("%s: largest error %.3g", ct.Name(), worst)
		if worst > 1e-12 {
			t.Errorf("%s: affine patch test error %.3g > 1e-12", ct.Name(), worst)
		}
	}
}
