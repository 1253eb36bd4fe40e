package geom

import "math"

// Quat is a quaternion stored [x y z w] (vector part first, as in SOFA's
// Rigid3 coordinates).
type Quat [4]float64

// QuatIdentity is the identity rotation.
func QuatIdentity() Quat { return Quat{0, 0, 0, 1} }

// Mul returns the Hamilton product q p (apply p first, then q).
func (q Quat) Mul(p Quat) Quat {
	return Quat{
		q[3]*p[0] + q[0]*p[3] + q[1]*p[2] - q[2]*p[1],
		q[3]*p[1] - q[0]*p[2] + q[1]*p[3] + q[2]*p[0],
		q[3]*p[2] + q[0]*p[1] - q[1]*p[0] + q[2]*p[3],
		q[3]*p[3] - q[0]*p[0] - q[1]*p[1] - q[2]*p[2],
	}
}

// Conj returns the conjugate (the inverse of a unit quaternion).
func (q Quat) Conj() Quat { return Quat{-q[0], -q[1], -q[2], q[3]} }

// Norm returns |q|.
func (q Quat) Norm() float64 { return math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3]) }

// Normalized returns q/|q|; the zero quaternion maps to the identity.
func (q Quat) Normalized() Quat {
	n := q.Norm()
	if n == 0 {
		return QuatIdentity()
	}
	return Quat{q[0] / n, q[1] / n, q[2] / n, q[3] / n}
}

// Rotate returns the rotation of v by the unit quaternion q.
func (q Quat) Rotate(v Vec3) Vec3 {
	u := Vec3{q[0], q[1], q[2]}
	t := u.Cross(v).Scale(2)
	return v.Add(t.Scale(q[3])).Add(u.Cross(t))
}

// Mat returns the rotation matrix of the unit quaternion q.
func (q Quat) Mat() Mat3 {
	x, y, z, w := q[0], q[1], q[2], q[3]
	return Mat3{
		1 - 2*(y*y+z*z), 2 * (x*y - z*w), 2 * (x*z + y*w),
		2 * (x*y + z*w), 1 - 2*(x*x+z*z), 2 * (y*z - x*w),
		2 * (x*z - y*w), 2 * (y*z + x*w), 1 - 2*(x*x+y*y),
	}
}

// QuatFromRotVec returns exp(θ/2) for the rotation vector θ (axis · angle).
func QuatFromRotVec(r Vec3) Quat {
	a := r.Norm()
	if a < 1e-8 {
		// Taylor series: sin(a/2)/a ≈ 1/2 − a²/48, cos(a/2) ≈ 1 − a²/8.
		s := 0.5 - a*a/48
		return Quat{r[0] * s, r[1] * s, r[2] * s, 1 - a*a/8}
	}
	s := math.Sin(a/2) / a
	return Quat{r[0] * s, r[1] * s, r[2] * s, math.Cos(a / 2)}
}

// QuatFromAxisAngle returns the rotation of angle about axis (normalised here).
func QuatFromAxisAngle(axis Vec3, angle float64) Quat {
	return QuatFromRotVec(axis.Normalized().Scale(angle))
}

// RotVec returns the rotation vector θ with exp(θ/2) = ±q, |θ| ≤ π.
func (q Quat) RotVec() Vec3 {
	if q[3] < 0 {
		q = Quat{-q[0], -q[1], -q[2], -q[3]}
	}
	v := Vec3{q[0], q[1], q[2]}
	s := v.Norm()
	if s < 1e-12 {
		return v.Scale(2)
	}
	angle := 2 * math.Atan2(s, q[3])
	return v.Scale(angle / s)
}

// QuatFromMat returns the unit quaternion of the rotation matrix m
// (Shepperd's method, stable for every rotation).
func QuatFromMat(m Mat3) Quat {
	tr := m.Trace()
	var q Quat
	switch {
	case tr > 0:
		s := 0.5 / math.Sqrt(tr+1)
		q = Quat{(m[7] - m[5]) * s, (m[2] - m[6]) * s, (m[3] - m[1]) * s, 0.25 / s}
	case m[0] > m[4] && m[0] > m[8]:
		s := 2 * math.Sqrt(1+m[0]-m[4]-m[8])
		q = Quat{0.25 * s, (m[1] + m[3]) / s, (m[2] + m[6]) / s, (m[7] - m[5]) / s}
	case m[4] > m[8]:
		s := 2 * math.Sqrt(1+m[4]-m[0]-m[8])
		q = Quat{(m[1] + m[3]) / s, 0.25 * s, (m[5] + m[7]) / s, (m[2] - m[6]) / s}
	default:
		s := 2 * math.Sqrt(1+m[8]-m[0]-m[4])
		q = Quat{(m[2] + m[6]) / s, (m[5] + m[7]) / s, 0.25 * s, (m[3] - m[1]) / s}
	}
	return q.Normalized()
}
