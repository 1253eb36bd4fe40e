package springnet

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
)

func randomQuat(rng *rand.Rand, maxAngle float64) geom.Quat {
	axis := geom.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
	return geom.QuatFromAxisAngle(axis, maxAngle*rng.Float64())
}

func randomVec(rng *rand.Rand, a float64) geom.Vec3 {
	return geom.Vec3{a * (2*rng.Float64() - 1), a * (2*rng.Float64() - 1), a * (2*rng.Float64() - 1)}
}

// randomSymmetric returns a symmetric positive definite 6×6 matrix with
// couplings between every pair of components.
func randomSymmetric(rng *rand.Rand) [6][6]float64 {
	var A, S [6][6]float64
	for i := range A {
		for j := range A[i] {
			A[i][j] = 2*rng.Float64() - 1
		}
	}
	for i := 0; i < 6; i++ {
		for j := 0; j < 6; j++ {
			for k := 0; k < 6; k++ {
				S[i][j] += A[k][i] * A[k][j]
			}
		}
		S[i][i] += 0.5
	}
	return S
}

type jointCase struct {
	name   string
	b1, b2 Body
	a1, a2 Attachment
	law    GapLaw
}

// jointCases are random joints, with relative rotations from nearly zero
// (series branches of so3.go) to 2.8 rad, and an articulation law beyond
// its limits.
func jointCases() []jointCase {
	rng := rand.New(rand.NewPCG(5, 6))
	var cs []jointCase
	for k, rel := range []float64{1e-9, 1e-3, 0.15, 0.7, 1.5, 2.8} {
		b1 := Body{T: randomVec(rng, 1), Q: randomQuat(rng, math.Pi)}
		// Body 2's joint frame turned by about rel from body 1's.
		a1 := Attachment{Offset: randomVec(rng, 0.5), Rot: randomQuat(rng, math.Pi)}
		a2 := Attachment{Offset: randomVec(rng, 0.5), Rot: randomQuat(rng, math.Pi)}
		turn := geom.QuatFromAxisAngle(randomVec(rng, 1), rel)
		// A₂ = turn·A₁ → R₂ = turn R₁ B₁ B₂ᵀ.
		q2 := turn.Mul(b1.Q).Mul(a1.Rot).Mul(a2.Rot.Conj())
		b2 := Body{T: b1.T.Add(randomVec(rng, 0.3)), Q: q2}
		var law GapLaw
		if k%2 == 0 {
			law = &QuadraticLaw{S: randomSymmetric(rng)}
		} else {
			// Limits inside the gap so the blocking terms are active.
			law = &AxisLaw{KT: [3]float64{3, 5, 7}, KR: [3]float64{1, 2, 0.5}, Limited: true,
				Min: [3]float64{-0.1, -0.2, -0.05}, Max: [3]float64{0.05, 0.1, 0.2}, Blocking: 11}
		}
		cs = append(cs, jointCase{name: []string{"1e-9", "1e-3", "0.15", "0.7", "1.5", "2.8"}[k], b1: b1, b2: b2, a1: a1, a2: a2, law: law})
	}
	return cs
}

func coords(b1, b2 Body) []float64 {
	return []float64{b1.T[0], b1.T[1], b1.T[2], b1.Q[0], b1.Q[1], b1.Q[2], b1.Q[3],
		b2.T[0], b2.T[1], b2.T[2], b2.Q[0], b2.Q[1], b2.Q[2], b2.Q[3]}
}

func perturbed(x []float64, d []float64, h float64) (Body, Body) {
	y := append([]float64(nil), x...)
	graph.Rigid3.Integrate(y, d, h)
	return BodyAt(y, 0), BodyAt(y, 1)
}

// TestJointForceIsMinusEnergyGradient: F·d = −dW/dε along random Rigid3
// perturbations, by central differences (h = 1e-6: truncation ~1e-12,
// rounding ~1e-16·W/h; tolerance 1e-7 relative).
func TestJointForceIsMinusEnergyGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range jointCases() {
		var r Result
		Evaluate(c.b1, c.b2, c.a1, c.a2, c.law, false, &r)
		x := coords(c.b1, c.b2)
		for trial := 0; trial < 4; trial++ {
			d := make([]float64, 12)
			for i := range d {
				d[i] = 2*rng.Float64() - 1
			}
			h := 1e-6
			p1, p2 := perturbed(x, d, h)
			m1, m2 := perturbed(x, d, -h)
			var g Geometry
			fd := -(Energy(p1, p2, c.a1, c.a2, c.law, &g) - Energy(m1, m2, c.a1, c.a2, c.law, &g)) / (2 * h)
			an := 0.0
			for i := range d {
				an += r.F[i] * d[i]
			}
			if math.Abs(fd-an) > 1e-7*math.Max(math.Abs(an), 1e-3*norm12(r.F)) {
				t.Errorf("%s: F·d = %.12g, −dW/dε = %.12g", c.name, an, fd)
			}
		}
	}
}

func norm12(v [12]float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x * x
	}
	return math.Sqrt(s)
}

// TestJointTangentIsForceDerivative: K·d against central differences of
// F (h = 1e-6, tolerance 1e-7 of the largest entry of the difference).
func TestJointTangentIsForceDerivative(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range jointCases() {
		var r Result
		Evaluate(c.b1, c.b2, c.a1, c.a2, c.law, true, &r)
		x := coords(c.b1, c.b2)
		for trial := 0; trial < 4; trial++ {
			d := make([]float64, 12)
			for i := range d {
				d[i] = 2*rng.Float64() - 1
			}
			h := 1e-6
			var rp, rm Result
			p1, p2 := perturbed(x, d, h)
			Evaluate(p1, p2, c.a1, c.a2, c.law, false, &rp)
			m1, m2 := perturbed(x, d, -h)
			Evaluate(m1, m2, c.a1, c.a2, c.law, false, &rm)
			var fd, kd [12]float64
			scale := 0.0
			for i := 0; i < 12; i++ {
				fd[i] = (rp.F[i] - rm.F[i]) / (2 * h)
				for j := 0; j < 12; j++ {
					kd[i] += r.K[i][j] * d[j]
				}
				scale = math.Max(scale, math.Abs(fd[i]))
			}
			for i := 0; i < 12; i++ {
				if math.Abs(kd[i]-fd[i]) > 1e-7*scale {
					t.Errorf("%s: (K d)[%d] = %.12g, finite difference %.12g (scale %.3g)", c.name, i, kd[i], fd[i], scale)
				}
			}
		}
	}
}

// TestJointForcesBalance: the forces of a joint sum to zero and so do
// their torques about any point (issue 5, item 1: 1e-12 relative to
// |f|·(size of the configuration) + |τ|).
func TestJointForcesBalance(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, c := range jointCases() {
		var r Result
		Evaluate(c.b1, c.b2, c.a1, c.a2, c.law, false, &r)
		f1 := geom.Vec3{r.F[0], r.F[1], r.F[2]}
		t1 := geom.Vec3{r.F[3], r.F[4], r.F[5]}
		f2 := geom.Vec3{r.F[6], r.F[7], r.F[8]}
		t2 := geom.Vec3{r.F[9], r.F[10], r.F[11]}
		for k := 0; k < 3; k++ {
			o := randomVec(rng, 10)
			sumF := f1.Add(f2)
			sumT := t1.Add(t2).Add(c.b1.T.Sub(o).Cross(f1)).Add(c.b2.T.Sub(o).Cross(f2))
			L := math.Max(c.b1.T.Sub(o).Norm(), c.b2.T.Sub(o).Norm())
			scale := f1.Norm()*L + t1.Norm() + t2.Norm()
			if sumF.Norm() > 1e-12*f1.Norm() || sumT.Norm() > 1e-12*scale {
				t.Errorf("%s: Σf = %.3g (|f| %.3g), Σ torque about %v = %.3g (scale %.3g)", c.name, sumF.Norm(), f1.Norm(), o, sumT.Norm(), scale)
			}
		}
	}
}

// TestJointRigidInvariance: moving both bodies rigidly leaves the gap, the
// energy and the force magnitudes unchanged, and rotates the forces.
func TestJointRigidInvariance(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, c := range jointCases() {
		var r0, r1 Result
		Evaluate(c.b1, c.b2, c.a1, c.a2, c.law, true, &r0)
		q := randomQuat(rng, math.Pi)
		R := q.Mat()
		sh := randomVec(rng, 2)
		move := func(b Body) Body { return Body{T: R.MulVec(b.T).Add(sh), Q: q.Mul(b.Q)} }
		Evaluate(move(c.b1), move(c.b2), c.a1, c.a2, c.law, true, &r1)
		if math.Abs(r1.W-r0.W) > 1e-12*math.Abs(r0.W) {
			t.Errorf("%s: energy %.15g after a rigid motion, %.15g before", c.name, r1.W, r0.W)
		}
		for b := 0; b < 4; b++ {
			v := R.MulVec(geom.Vec3{r0.F[3*b], r0.F[3*b+1], r0.F[3*b+2]})
			w := geom.Vec3{r1.F[3*b], r1.F[3*b+1], r1.F[3*b+2]}
			if v.Sub(w).Norm() > 1e-12*norm12(r0.F) {
				t.Errorf("%s: force part %d is not rotated with the bodies: %v vs %v", c.name, b, w, v)
			}
		}
		// K rotates as ℛ K ℛᵀ.
		for bi := 0; bi < 4; bi++ {
			for bj := 0; bj < 4; bj++ {
				var blk, rot geom.Mat3
				for i := 0; i < 3; i++ {
					for j := 0; j < 3; j++ {
						blk[3*i+j] = r0.K[3*bi+i][3*bj+j]
						rot[3*i+j] = r1.K[3*bi+i][3*bj+j]
					}
				}
				want := R.Mul(blk).MulT(R)
				for k := range want {
					if math.Abs(want[k]-rot[k]) > 1e-10*maxAbsK(&r0.K) {
						t.Fatalf("%s: tangent block (%d,%d) is not rotated with the bodies", c.name, bi, bj)
					}
				}
			}
		}
	}
}

func maxAbsK(K *[12][12]float64) float64 {
	m := 0.0
	for i := range K {
		for j := range K[i] {
			m = math.Max(m, math.Abs(K[i][j]))
		}
	}
	return m
}

// TestSO3Coefficients checks the series and closed forms of so3.go
// against central differences of M(x)·v, on both sides of the switch.
func TestSO3Coefficients(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	fns := []struct {
		name string
		f    func(float64) so3Coeffs
	}{{"exp", expCoeffs}, {"J_l", leftJacobianCoeffs}, {"J_l⁻¹", invLeftJacobianCoeffs}}
	for _, fn := range fns {
		for _, th := range []float64{1e-8, 0.05, 0.199999, 0.2000001, 0.9, 2.5} {
			x := randomVec(rng, 1).Normalized().Scale(th)
			dx := randomVec(rng, 1)
			v := randomVec(rng, 1)
			h := 1e-6
			eval := func(y geom.Vec3) geom.Vec3 { k := fn.f(y.Norm()); return k.apply(y, v) }
			fd := eval(x.Add(dx.Scale(h))).Sub(eval(x.Sub(dx.Scale(h)))).Scale(1 / (2 * h))
			k := fn.f(th)
			an := k.dapply(x, dx, v)
			if an.Sub(fd).Norm() > 1e-7*math.Max(fd.Norm(), 1e-3) {
				t.Errorf("%s at θ = %g: dM v = %v, finite difference %v", fn.name, th, an, fd)
			}
		}
	}
	// Identities: exp(x) J_r(x) = J_l(x) and J_l(x) J_l(x)⁻¹ = I.
	for _, th := range []float64{1e-6, 0.1, 0.3, 1.2, 3.0} {
		x := randomVec(rng, 1).Normalized().Scale(th)
		v := randomVec(rng, 1)
		e, jl, ji := expCoeffs(th), leftJacobianCoeffs(th), invLeftJacobianCoeffs(th)
		if d := e.apply(x, jl.apply(x.Scale(-1), v)).Sub(jl.apply(x, v)).Norm(); d > 1e-14 {
			t.Errorf("θ = %g: exp(x) J_r(x) v − J_l(x) v = %.3g", th, d)
		}
		if d := jl.apply(x, ji.apply(x, v)).Sub(v).Norm(); d > 1e-14 {
			t.Errorf("θ = %g: J_l J_l⁻¹ v − v = %.3g", th, d)
		}
		R := geom.QuatFromRotVec(x).Mat()
		if d := R.MulVec(v).Sub(e.apply(x, v)).Norm(); d > 1e-14 {
			t.Errorf("θ = %g: exp coefficients disagree with the quaternion rotation by %.3g", th, d)
		}
	}
}
