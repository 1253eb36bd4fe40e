package material

import (
	"math"

	"github.com/sofago/sofago/geom"
)

// Linear is small-strain linear elasticity: ε = sym(F) − I,
// Ψ = μ ε:ε + λ/2 (tr ε)², P = 2μ ε + λ tr(ε) I, dP = 2μ sym(dF) +
// λ tr(dF) I (constant). It is not rotation invariant: a rigid rotation
// strains it. At det F ≤ 0 nothing special happens (Ψ is a quadratic
// polynomial of F): an inverted element is just a large strain.
type Linear struct {
	Lambda, Mu float64
}

// Energy implements Law.
func (l *Linear) Energy(F geom.Mat3) float64 {
	e00, e11, e22 := F[0]-1, F[4]-1, F[8]-1
	e01, e02, e12 := 0.5*(F[1]+F[3]), 0.5*(F[2]+F[6]), 0.5*(F[5]+F[7])
	tr := e00 + e11 + e22
	return l.Mu*(e00*e00+e11*e11+e22*e22+2*(e01*e01+e02*e02+e12*e12)) + 0.5*l.Lambda*tr*tr
}

// Stress implements Law.
func (l *Linear) Stress(F geom.Mat3) geom.Mat3 {
	var P geom.Mat3
	l.StressCached(F[:], P[:], nil)
	return P
}

// StressDifferential implements Law.
func (l *Linear) StressDifferential(_, dF geom.Mat3) geom.Mat3 {
	var dP geom.Mat3
	linearStress((*geom.Mat3)(dP[:]), &dF, 0, 2*l.Mu, l.Lambda)
	return dP
}

// CacheSize implements Law: the tangent is constant.
func (l *Linear) CacheSize() int { return 0 }

// StressCached implements Law.
func (l *Linear) StressCached(F, P, _ []float64) {
	linearStress((*geom.Mat3)(P[:9]), (*geom.Mat3)(F[:9]), 1, 2*l.Mu, l.Lambda)
}

// StressDifferentialCached implements Law.
func (l *Linear) StressDifferentialCached(dF, dP, _ []float64) {
	linearStress((*geom.Mat3)(dP[:9]), (*geom.Mat3)(dF[:9]), 0, 2*l.Mu, l.Lambda)
}

// linearStress sets P = 2μ sym(G − sI) + λ tr(G − sI) I for mu2 = 2μ
// (s = 1: the stress of a deformation gradient G; s = 0: of a
// displacement gradient, or the stress differential). P must not alias G.
func linearStress(P, G *geom.Mat3, s, mu2, lam float64) {
	g0, g4, g8 := G[0]-s, G[4]-s, G[8]-s
	t := lam * (g0 + g4 + g8)
	mu := 0.5 * mu2
	s01, s02, s12 := mu*(G[1]+G[3]), mu*(G[2]+G[6]), mu*(G[5]+G[7])
	P[0], P[1], P[2] = mu2*g0+t, s01, s02
	P[3], P[4], P[5] = s01, mu2*g4+t, s12
	P[6], P[7], P[8] = s02, s12, mu2*g8+t
}

// CorotationalLinear is linear elasticity in the rotated frame of the
// element: with the polar decomposition F = R S (R orthogonal, S
// symmetric), ε = sym(RᵀF) − I = S − I and
//
//	Ψ = μ |S − I|² + λ/2 (tr S − 3)²,   P = 2μ (F − R) + λ (tr S − 3) R,
//
// VegaFEM's CorotationalLinearFEM energy (its force R K₀ (Rᵀx − x₀) is
// exactly −V P ∇N: with the polar R the dR term of the gradient vanishes).
// The tangent is exact:
//
//	dP = 2μ dF + λ tr(RᵀdF) R + (λ (tr S − 3) − 2μ) dR,
//	dR = R [ω]×,  (tr S·I − S) ω = axial(RᵀdF − dFᵀR).
//
// At det F ≤ 0: with Invertible false, R is the polar factor, a
// reflection for inverted F, so an inverted element is pushed towards the
// mirror image of its rest shape (Ψ is even under reflection). With
// Invertible true, R and S come from the sign-corrected SVD F = U Σ̂ Vᵀ
// (U, V rotations, the smallest singular value negated when det F < 0;
// Irving, Teran & Fedkiw 2004): R = U Vᵀ stays a rotation, tr S − 3 is
// strongly negative for an inverted element and the volumetric term pushes
// it back; for det F > 0 both variants coincide. Where two signed singular
// values cancel (σ̂ᵢ + σ̂ⱼ = 0, only possible for inverted F) the rotation
// is not differentiable; each σ̂ᵢ + σ̂ⱼ is then kept at least 1e-6·Σ|σ̂| in
// magnitude, so the tangent stays bounded and is approximate there. A
// singular F gets one of its valid rotations (geom.Polar, geom.SVD).
//
// Cache layout (CorotationalCacheSize numbers): R (9, row-major), the
// upper triangle of (tr S·I − S)⁻¹ (6), λ(tr S − 3) − 2μ (1). R comes
// first so that force fields may read it for stiffness warping
// (CachedRotation).
type CorotationalLinear struct {
	Lambda, Mu float64
	Invertible bool
}

// CorotationalCacheSize is CorotationalLinear's CacheSize.
const CorotationalCacheSize = 16

// CachedRotation returns the rotation R stored by StressCached.
func CachedRotation(cache []float64) geom.Mat3 { return geom.Mat3(cache[:9]) }

// Decompose returns the rotation R and the stretch S = RᵀF the law uses
// at F (the polar decomposition, or the sign-corrected SVD for inverted F
// when Invertible), and the upper triangle (00, 01, 02, 11, 12, 22) of
// (tr S·I − S)⁻¹, which turns axial(RᵀdF − dFᵀR) into the rotation rate
// ω of dR = R [ω]× (clamped where two signed singular values cancel).
// Force fields that rotate other quantities with the rotation of F
// (elastons on F332 samples) use it.
func (c *CorotationalLinear) Decompose(F geom.Mat3) (R, S geom.Mat3, minv [6]float64) {
	return c.decompose(&F)
}

// decompose returns R, S and (tr S·I − S)⁻¹ (upper triangle).
func (c *CorotationalLinear) decompose(F *geom.Mat3) (R, S geom.Mat3, minv [6]float64) {
	if c.Invertible && !clearlyPositive(F) {
		return svdRotation(F)
	}
	R, S = geom.Polar(*F)
	return R, S, rotationRateInverse(&S)
}

// Energy implements Law.
func (c *CorotationalLinear) Energy(F geom.Mat3) float64 {
	var S geom.Mat3
	if c.Invertible && !clearlyPositive(&F) {
		_, S, _ = svdRotation(&F)
	} else {
		_, S = geom.Polar(F)
	}
	d0, d1, d2 := S[0]-1, S[4]-1, S[8]-1
	tr := d0 + d1 + d2
	return c.Mu*(d0*d0+d1*d1+d2*d2+2*(S[1]*S[1]+S[2]*S[2]+S[5]*S[5])) + 0.5*c.Lambda*tr*tr
}

// Stress implements Law.
func (c *CorotationalLinear) Stress(F geom.Mat3) geom.Mat3 {
	var P geom.Mat3
	var cache [CorotationalCacheSize]float64
	c.StressCached(F[:], P[:], cache[:])
	return P
}

// StressDifferential implements Law.
func (c *CorotationalLinear) StressDifferential(F, dF geom.Mat3) geom.Mat3 {
	var P, dP geom.Mat3
	var cache [CorotationalCacheSize]float64
	c.StressCached(F[:], P[:], cache[:])
	c.StressDifferentialCached(dF[:], dP[:], cache[:])
	return dP
}

// CacheSize implements Law.
func (c *CorotationalLinear) CacheSize() int { return CorotationalCacheSize }

// StressCached implements Law.
func (c *CorotationalLinear) StressCached(Fs, Ps, cache []float64) {
	F := (*geom.Mat3)(Fs[:9])
	R, S, minv := c.decompose(F)
	mu2 := 2 * c.Mu
	a := c.Lambda * (S[0] + S[4] + S[8] - 3)
	P := (*geom.Mat3)(Ps[:9])
	for i := range P {
		P[i] = mu2*(F[i]-R[i]) + a*R[i]
	}
	cc := cache[:CorotationalCacheSize:CorotationalCacheSize]
	copy(cc[:9], R[:])
	copy(cc[9:15], minv[:])
	cc[15] = a - mu2
}

// StressDifferentialCached implements Law.
func (c *CorotationalLinear) StressDifferentialCached(dFs, dPs, cache []float64) {
	cc := cache[:CorotationalCacheSize:CorotationalCacheSize]
	R := (*[9]float64)(cc[:9])
	mi := cc[9:15:15]
	dF := (*geom.Mat3)(dFs[:9])
	mu2, lam := 2*c.Mu, c.Lambda
	// X = RᵀdF: its trace and the axial vector of X − Xᵀ.
	trX := 0.0
	for i := 0; i < 9; i++ {
		trX += R[i] * dF[i]
	}
	x01 := R[0]*dF[1] + R[3]*dF[4] + R[6]*dF[7]
	x10 := R[1]*dF[0] + R[4]*dF[3] + R[7]*dF[6]
	x02 := R[0]*dF[2] + R[3]*dF[5] + R[6]*dF[8]
	x20 := R[2]*dF[0] + R[5]*dF[3] + R[8]*dF[6]
	x12 := R[1]*dF[2] + R[4]*dF[5] + R[7]*dF[8]
	x21 := R[2]*dF[1] + R[5]*dF[4] + R[8]*dF[7]
	a0, a1, a2 := x21-x12, x02-x20, x10-x01
	w0 := mi[0]*a0 + mi[1]*a1 + mi[2]*a2
	w1 := mi[1]*a0 + mi[3]*a1 + mi[4]*a2
	w2 := mi[2]*a0 + mi[4]*a1 + mi[5]*a2
	// dR = R [ω]×: columns ω₂r₁ − ω₁r₂, ω₀r₂ − ω₂r₀, ω₁r₀ − ω₀r₁.
	cr, lt := cc[15], lam*trX
	dP := (*geom.Mat3)(dPs[:9])
	for r := 0; r < 9; r += 3 {
		r0, r1, r2 := R[r], R[r+1], R[r+2]
		dP[r] = mu2*dF[r] + lt*r0 + cr*(w2*r1-w1*r2)
		dP[r+1] = mu2*dF[r+1] + lt*r1 + cr*(w0*r2-w2*r0)
		dP[r+2] = mu2*dF[r+2] + lt*r2 + cr*(w1*r0-w0*r1)
	}
}

// rotationRateInverse returns the upper triangle (00, 01, 02, 11, 12, 22)
// of (tr(S)·I − S)⁻¹ for a symmetric S, the matrix that turns
// axial(RᵀdF − dFᵀR) into the rotation rate ω. Its eigenvalues are the
// sums σᵢ + σⱼ of pairs of eigenvalues of S; when their product is tiny
// against the scale of S (S of rank ≤ 1 for the polar S) it goes through
// the eigen-decomposition with the sums clamped (see clampedRateInverse).
func rotationRateInverse(S *geom.Mat3) [6]float64 {
	m00, m11, m22 := S[4]+S[8], S[0]+S[8], S[0]+S[4]
	m01, m02, m12 := -S[1], -S[2], -S[5]
	c00 := m11*m22 - m12*m12
	c11 := m00*m22 - m02*m02
	c22 := m00*m11 - m01*m01
	c01 := m02*m12 - m01*m22
	c02 := m01*m12 - m02*m11
	c12 := m01*m02 - m00*m12
	det := m00*c00 + m01*c01 + m02*c02
	scale := math.Abs(m00) + math.Abs(m11) + math.Abs(m22)
	if math.Abs(det) > 1e-12*scale*scale*scale {
		inv := 1 / det
		return [6]float64{c00 * inv, c01 * inv, c02 * inv, c11 * inv, c12 * inv, c22 * inv}
	}
	lam, V := geom.SymEigen(*S)
	return clampedRateInverse(lam, &V)
}

// clampedRateInverse returns V diag(1/dᵢ) Vᵀ (upper triangle) with
// d = (s₁+s₂, s₀+s₂, s₀+s₁), each sum kept at least 1e-6·Σ|sᵢ| in
// magnitude with its sign (+ for 0). The sums vanish exactly where the
// rotation of F stops being differentiable; there the clamp keeps the
// tangent bounded (and approximate).
func clampedRateInverse(s geom.Vec3, V *geom.Mat3) [6]float64 {
	floor := 1e-6 * (math.Abs(s[0]) + math.Abs(s[1]) + math.Abs(s[2]))
	if floor == 0 {
		floor = 1e-300
	}
	d := geom.Vec3{s[1] + s[2], s[0] + s[2], s[0] + s[1]}
	for i := range d {
		if math.Abs(d[i]) < floor {
			if d[i] < 0 {
				d[i] = -floor
			} else {
				d[i] = floor
			}
		}
		d[i] = 1 / d[i]
	}
	var out [6]float64
	k := 0
	for i := 0; i < 3; i++ {
		for j := i; j < 3; j++ {
			out[k] = V[3*i]*d[0]*V[3*j] + V[3*i+1]*d[1]*V[3*j+1] + V[3*i+2]*d[2]*V[3*j+2]
			k++
		}
	}
	return out
}

// clearlyPositive reports whether det F > 1e-10·‖F‖³: F is then neither
// inverted nor numerically singular, its polar rotation is a rotation and
// equals the invertible-FEM rotation, and geom.Polar computes it by
// iteration (its SVD fallback uses the same threshold).
func clearlyPositive(F *geom.Mat3) bool {
	det := F[0]*(F[4]*F[8]-F[5]*F[7]) - F[1]*(F[3]*F[8]-F[5]*F[6]) + F[2]*(F[3]*F[7]-F[4]*F[6])
	n2 := 0.0
	for _, v := range F {
		n2 += v * v
	}
	return det > 1e-10*n2*math.Sqrt(n2)
}

// svdRotation returns the rotation R, the stretch S = RᵀF and the rate
// inverse (tr S·I − S)⁻¹ of the invertible-FEM decomposition of F from the
// sign-corrected SVD F = U Σ̂ Vᵀ: R = U Vᵀ, S = V Σ̂ Vᵀ. For clearly
// positive F this is the polar decomposition, which the callers use
// instead (faster).
func svdRotation(F *geom.Mat3) (R, S geom.Mat3, minv [6]float64) {
	U, s, V := geom.SVD(*F)
	R = U.MulT(V)
	S = V.Mul(geom.Diag(s)).MulT(V)
	S[1] = 0.5 * (S[1] + S[3])
	S[3] = S[1]
	S[2] = 0.5 * (S[2] + S[6])
	S[6] = S[2]
	S[5] = 0.5 * (S[5] + S[7])
	S[7] = S[5]
	return R, S, clampedRateInverse(s, &V)
}

// TangentCached implements TangentLaw: A = μ(δik δjl + δil δjk) + λ δij δkl.
func (l *Linear) TangentCached(_, A []float64) {
	LinearTangent(A, l.Lambda, l.Mu)
}

// LinearTangent writes the (constant) tangent of linear elasticity,
// μ(δik δjl + δil δjk) + λ δij δkl, into A (81 numbers).
func LinearTangent(A []float64, lambda, mu float64) {
	A = A[:81:81]
	clear(A)
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			A[9*(3*i+j)+3*i+j] += mu
			A[9*(3*i+j)+3*j+i] += mu
		}
		for k := 0; k < 3; k++ {
			A[9*(4*i)+4*k] += lambda
		}
	}
}

// TangentCached implements TangentLaw:
//
//	A[ij][kl] = 2μ δik δjl + λ R_ij R_kl + c (R [ωᵏˡ]×)_ij,
//	ωᵏˡ = (tr S·I − S)⁻¹ (e_l × ρ_k),
//
// c = λ(tr S − 3) − 2μ and ρ_k the k-th row of R: the derivative of
// StressDifferentialCached's dP along the unit matrix E_kl, whose
// axial(RᵀE_kl − E_klᵀR) is e_l × ρ_k.
func (c *CorotationalLinear) TangentCached(cache, A []float64) {
	cc := cache[:CorotationalCacheSize:CorotationalCacheSize]
	R := (*geom.Mat3)(cc[:9])
	mi := cc[9:15:15]
	cr := cc[15]
	mu2, lam := 2*c.Mu, c.Lambda
	A = A[:81:81]
	for k := 0; k < 3; k++ {
		rk := geom.Vec3{R[3*k], R[3*k+1], R[3*k+2]}
		for l := 0; l < 3; l++ {
			var el geom.Vec3
			el[l] = 1
			a := el.Cross(rk)
			w0 := mi[0]*a[0] + mi[1]*a[1] + mi[2]*a[2]
			w1 := mi[1]*a[0] + mi[3]*a[1] + mi[4]*a[2]
			w2 := mi[2]*a[0] + mi[4]*a[1] + mi[5]*a[2]
			lr := lam * R[3*k+l]
			col := 3*k + l
			for i := 0; i < 3; i++ {
				r0, r1, r2 := R[3*i], R[3*i+1], R[3*i+2]
				// Row i of R[ω]×: (ω₂r₁ − ω₁r₂, ω₀r₂ − ω₂r₀, ω₁r₀ − ω₀r₁).
				A[9*(3*i)+col] = lr*r0 + cr*(w2*r1-w1*r2)
				A[9*(3*i+1)+col] = lr*r1 + cr*(w0*r2-w2*r0)
				A[9*(3*i+2)+col] = lr*r2 + cr*(w1*r0-w0*r1)
			}
			A[9*col+col] += mu2
		}
	}
}
