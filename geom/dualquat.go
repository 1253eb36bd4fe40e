package geom

import "math"

// DualQuat is a dual quaternion Real + ε Dual (ε² = 0). A unit dual
// quaternion (|Real| = 1, Real·Dual = 0) is the rigid transform
// x ↦ R(Real) x + t with Dual = ½ t Real (Kavan et al. 2008). gonum's
// num/dualquat has the algebra but neither normalisation nor the action
// on points, which skinning needs.
type DualQuat struct {
	Real, Dual Quat
}

// DualQuatFromRigid returns the unit dual quaternion of the rigid transform
// x ↦ R(q) x + t (q a unit quaternion).
func DualQuatFromRigid(q Quat, t Vec3) DualQuat {
	return DualQuat{Real: q, Dual: Quat{t[0], t[1], t[2], 0}.Mul(q).scale(0.5)}
}

func (q Quat) scale(s float64) Quat { return Quat{s * q[0], s * q[1], s * q[2], s * q[3]} }

// Mul returns the product a b (apply b first, then a, for unit dual
// quaternions): (a₀ b₀, a₀ b_ε + a_ε b₀).
func (a DualQuat) Mul(b DualQuat) DualQuat {
	d1, d2 := a.Real.Mul(b.Dual), a.Dual.Mul(b.Real)
	return DualQuat{Real: a.Real.Mul(b.Real), Dual: Quat{d1[0] + d2[0], d1[1] + d2[1], d1[2] + d2[2], d1[3] + d2[3]}}
}

// Conj returns the quaternion conjugate of both parts, (a₀*, a_ε*): the
// inverse of a unit dual quaternion.
func (a DualQuat) Conj() DualQuat { return DualQuat{Real: a.Real.Conj(), Dual: a.Dual.Conj()} }

// Add returns a + b.
func (a DualQuat) Add(b DualQuat) DualQuat {
	var c DualQuat
	for i := 0; i < 4; i++ {
		c.Real[i] = a.Real[i] + b.Real[i]
		c.Dual[i] = a.Dual[i] + b.Dual[i]
	}
	return c
}

// Scale returns s a.
func (a DualQuat) Scale(s float64) DualQuat {
	return DualQuat{Real: a.Real.scale(s), Dual: a.Dual.scale(s)}
}

// Normalized returns the unit dual quaternion a/‖a‖:
// (a₀/|a₀|, a_ε/|a₀| − a₀ (a₀·a_ε)/|a₀|³). A zero real part maps to the
// identity.
func (a DualQuat) Normalized() DualQuat {
	n2 := a.Real[0]*a.Real[0] + a.Real[1]*a.Real[1] + a.Real[2]*a.Real[2] + a.Real[3]*a.Real[3]
	if n2 == 0 {
		return DualQuat{Real: QuatIdentity()}
	}
	n := math.Sqrt(n2)
	d := a.Real[0]*a.Dual[0] + a.Real[1]*a.Dual[1] + a.Real[2]*a.Dual[2] + a.Real[3]*a.Dual[3]
	var c DualQuat
	for i := 0; i < 4; i++ {
		c.Real[i] = a.Real[i] / n
		c.Dual[i] = a.Dual[i]/n - a.Real[i]*d/(n2*n)
	}
	return c
}

// Translation returns t = 2 vec(a_ε a₀*) of a unit dual quaternion.
func (a DualQuat) Translation() Vec3 {
	t := a.Dual.Mul(a.Real.Conj())
	return Vec3{2 * t[0], 2 * t[1], 2 * t[2]}
}

// TransformPoint applies the rigid transform of the unit dual quaternion a
// to p: R(a₀) p + t.
func (a DualQuat) TransformPoint(p Vec3) Vec3 {
	return a.Real.Rotate(p).Add(a.Translation())
}
