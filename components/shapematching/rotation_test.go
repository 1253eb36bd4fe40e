package shapematching

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sofago/sofago/geom"
)

var ident = geom.Identity3()

func randomRotation(rng *rand.Rand, maxAngle float64) geom.Quat {
	axis := geom.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}.Normalized()
	return geom.QuatFromRotVec(axis.Scale(maxAngle * rng.Float64()))
}

func randomSPD(rng *rand.Rand, lo, hi float64) geom.Mat3 {
	V := randomRotation(rng, math.Pi).Mat()
	d := geom.Vec3{lo + (hi-lo)*rng.Float64(), lo + (hi-lo)*rng.Float64(), lo + (hi-lo)*rng.Float64()}
	return V.Mul(geom.Diag(d)).MulT(V)
}

func rotationError(R, Q geom.Mat3) float64 {
	e := 0.0
	for i := range R {
		e = math.Max(e, math.Abs(R[i]-Q[i]))
	}
	return e
}

// TestRegionRotationIsPolarRotation: for well-conditioned Apq = R·P (P
// symmetric positive definite with eigenvalues in [0.3, 3], as an
// anisotropic region deformed by stretches up to ±50 % gives), warm-started
// near the answer (as between steps), far from it (a start 2 rad away falls
// back to geom.PolarRotation) or at the identity, regionRotation returns the
// polar rotation R to rounding. The reference is R itself (exact by
// construction). The returned matrix is the quaternion's.
func TestRegionRotationIsPolarRotation(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	worst := 0.0
	for trial := 0; trial < 2000; trial++ {
		q := randomRotation(rng, math.Pi)
		R := q.Mat()
		P := randomSPD(rng, 0.3, 3)
		apq := R.Mul(P)
		var start geom.Quat
		switch trial % 3 {
		case 0:
			start = q.Mul(randomRotation(rng, 0.05)) // a step's worth of rotation
		case 1:
			start = q.Mul(randomRotation(rng, 2))
		default:
			start = geom.QuatIdentity()
		}
		gq, gR := regionRotation(&apq, &ident, 1, start)
		if e := rotationError(gR, R); e > worst {
			worst = e
		}
		// The same rotation, up to the rounding of two formulas.
		if e := rotationError(gR, gq.Mat()); e > 1e-15 {
			t.Fatalf("trial %d: the matrix is not the quaternion's (%.3g)", trial, e)
		}
		if n := gq.Norm(); math.Abs(n-1) > 1e-15 {
			t.Fatalf("trial %d: |q| = %.17g", trial, n)
		}
	}
	// Newton stops once |ω| < 1e-7; the error left is of order |ω|², and
	// the fallback is exact to rounding: 1e-13 is a wide margin over both.
	if worst > 1e-13 {
		t.Errorf("largest rotation error %.3g > 1e-13", worst)
	}
	t.Logf("largest entry error of R over 2000 random Apq: %.3g", worst)
}

// TestRegionRotationDegenerate: inverted, flat and collapsed regions give a
// proper rotation (det = +1), finite, never NaN. A mirror image of a rotated
// region gives the rotation that maximises tr(RᵀApq) over proper rotations
// (Müller et al. 2016's objective), here R·diag(1, 1, −1)'s best proper
// neighbour R; a region collapsed to a point keeps the start rotation.
func TestRegionRotationDegenerate(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 500; trial++ {
		q := randomRotation(rng, math.Pi)
		R := q.Mat()
		P := randomSPD(rng, 0.5, 2)
		var apq geom.Mat3
		switch trial % 4 {
		case 0: // inverted: a reflection of one axis
			apq = R.Mul(geom.Diag(geom.Vec3{1, 1, -0.5})).Mul(P)
		case 1: // squashed flat
			apq = R.Mul(geom.Diag(geom.Vec3{1, 1, 1e-9})).Mul(P)
		case 2: // collapsed onto a line
			apq = R.Mul(geom.Diag(geom.Vec3{1, 0, 0})).Mul(P)
		default: // collapsed to a point
			apq = geom.Mat3{}
		}
		start := q.Mul(randomRotation(rng, 0.3))
		gq, gR := regionRotation(&apq, &ident, 1, start)
		for _, v := range gR {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("trial %d: non-finite rotation %v", trial, gR)
			}
		}
		if d := gR.Det(); math.Abs(d-1) > 1e-12 {
			t.Fatalf("trial %d: det R = %.17g, want 1", trial, d)
		}
		if trial%4 == 3 && rotationError(gR, start.Mat()) > 1e-15 {
			t.Fatalf("trial %d: a collapsed region moved the rotation", trial)
		}
		// Müller's iteration ascends tr(RᵀApq): the result is at least as
		// good as the start.
		if f0, f1 := start.Mat().DDot(apq), gR.DDot(apq); f1 < f0-1e-12 {
			t.Fatalf("trial %d: tr(RᵀApq) fell from %g to %g", trial, f0, f1)
		}
		_ = gq
	}
}
