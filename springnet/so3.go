package springnet

import (
	"math"

	"github.com/sofago/sofago/geom"
)

// Matrix functions of a rotation vector x (θ = |x|) of the form
//
//	M(x) = I + b(θ) [x]× + c(θ) [x]×²,
//
// which is the shape of the exponential map and of the left Jacobian of
// SO(3) and of its inverse. The joint kernel needs M(x)·v and the
// directional derivative (dM[dx])·v:
//
//	dM[dx] v = (x·dx)(β x×v + γ x×(x×v)) + b dx×v + c (dx×(x×v) + x×(dx×v)),
//
// with β = b'(θ)/θ, γ = c'(θ)/θ. Every coefficient is even in
// θ; below seriesBelow they come from their Taylor series (to θ⁸, error
// under 1e-16 relative there), above it from the closed forms, whose
// cancellation costs at most ~1e-16/θ⁴ ≈ 6e-14 absolute at the switch.
type so3Coeffs struct{ b, c, beta, gamma float64 }

const seriesBelow = 0.2

// expCoeffs: exp([x]×) = I + (sin θ/θ)[x]× + ((1 − cos θ)/θ²)[x]×².
func expCoeffs(t float64) so3Coeffs {
	t2 := t * t
	if t < seriesBelow {
		return so3Coeffs{
			b:     1 - t2/6 + t2*t2/120 - t2*t2*t2/5040 + t2*t2*t2*t2/362880,
			c:     0.5 - t2/24 + t2*t2/720 - t2*t2*t2/40320 + t2*t2*t2*t2/3628800,
			beta:  -1.0/3 + t2/30 - t2*t2/840 + t2*t2*t2/45360 - t2*t2*t2*t2/3991680,
			gamma: -1.0/12 + t2/180 - t2*t2/6720 + t2*t2*t2/453600 - t2*t2*t2*t2/47900160,
		}
	}
	s, co := math.Sin(t), math.Cos(t)
	omc := 2 * math.Sin(t/2) * math.Sin(t/2) // 1 − cos θ without cancellation
	return so3Coeffs{
		b:     s / t,
		c:     omc / t2,
		beta:  (t*co - s) / (t2 * t),
		gamma: (t*s - 2*omc) / (t2 * t2),
	}
}

// leftJacobianCoeffs: J_l(x) = I + ((1 − cos θ)/θ²)[x]× + ((θ − sin θ)/θ³)[x]×²,
// with exp(x + dx) ≈ exp(J_l(x) dx) exp(x).
func leftJacobianCoeffs(t float64) so3Coeffs {
	t2 := t * t
	if t < seriesBelow {
		return so3Coeffs{
			b:     0.5 - t2/24 + t2*t2/720 - t2*t2*t2/40320 + t2*t2*t2*t2/3628800,
			c:     1.0/6 - t2/120 + t2*t2/5040 - t2*t2*t2/362880 + t2*t2*t2*t2/39916800,
			beta:  -1.0/12 + t2/180 - t2*t2/6720 + t2*t2*t2/453600 - t2*t2*t2*t2/47900160,
			gamma: -1.0/60 + t2/1260 - t2*t2/60480 + t2*t2*t2/4989600 - t2*t2*t2*t2/622702080,
		}
	}
	s := math.Sin(t)
	omc := 2 * math.Sin(t/2) * math.Sin(t/2)
	return so3Coeffs{
		b:     omc / t2,
		c:     (t - s) / (t2 * t),
		beta:  (t*s - 2*omc) / (t2 * t2),
		gamma: (omc*t - 3*(t-s)) / (t2 * t2 * t),
	}
}

// invLeftJacobianCoeffs: J_l(x)⁻¹ = I − ½[x]× + (1/θ² − cot(θ/2)/(2θ))[x]×²
// (defined for θ < 2π; rotation vectors from a logarithm have θ ≤ π).
// J_r(x)⁻¹ = J_l(−x)⁻¹ flips the sign of b.
func invLeftJacobianCoeffs(t float64) so3Coeffs {
	t2 := t * t
	if t < seriesBelow {
		return so3Coeffs{
			b:     -0.5,
			c:     1.0/12 + t2/720 + t2*t2/30240 + t2*t2*t2/1209600 + t2*t2*t2*t2/47900160,
			gamma: 1.0/360 + t2/7560 + t2*t2/201600 + t2*t2*t2/5987520 + 691*t2*t2*t2*t2/130767436800,
		}
	}
	h := t / 2
	cot := math.Cos(h) / math.Sin(h)
	sh := math.Sin(h)
	return so3Coeffs{
		b:     -0.5,
		c:     1/t2 - cot/(2*t),
		gamma: -2/(t2*t2) + cot/(2*t2*t) + 1/(4*t2*sh*sh),
	}
}

// apply returns M(x)·v.
func (k *so3Coeffs) apply(x, v geom.Vec3) geom.Vec3 {
	xv := x.Cross(v)
	xxv := x.Cross(xv)
	return geom.Vec3{
		v[0] + k.b*xv[0] + k.c*xxv[0],
		v[1] + k.b*xv[1] + k.c*xxv[1],
		v[2] + k.b*xv[2] + k.c*xxv[2],
	}
}

// dapply returns (dM[dx])·v, the change of M(x)·v when x moves by dx.
func (k *so3Coeffs) dapply(x, dx, v geom.Vec3) geom.Vec3 {
	xv := x.Cross(v)
	xxv := x.Cross(xv)
	s := x.Dot(dx)
	dxv := dx.Cross(v)
	t := dx.Cross(xv).Add(x.Cross(dxv))
	var out geom.Vec3
	for i := 0; i < 3; i++ {
		out[i] = s*(k.beta*xv[i]+k.gamma*xxv[i]) + k.b*dxv[i] + k.c*t[i]
	}
	return out
}
