package material

import (
	"math"

	"github.com/sofago/sofago/geom"
)

// DefaultNeoHookeanThreshold is the volume ratio J₀ below which NeoHookean
// replaces ln J by its Taylor expansion. 0.2 keeps the Bonet–Wood law
// untouched down to an 80 % loss of volume, far beyond what a
// nearly-incompressible soft tissue reaches under load (at ν = 0.45 a bar
// compressed to half its length keeps J ≈ 0.91), while bounding the stiffness of the
// extension: d²Ψ/dJ² at J₀ is λ(1 − ln J₀)/J₀² + μ/J₀² ≈ 65λ, against
// λ + μ at rest (at J₀ = 0.01 it would be 56,000λ, and an implicit step
// would see an almost rigid element).
const DefaultNeoHookeanThreshold = 0.2

// NeoHookean is the compressible neo-Hookean law of Bonet & Wood
// ("Nonlinear continuum mechanics for finite element analysis", 1997,
// eq. 5.28), VegaFEM's NeoHookeanIsotropicMaterial:
//
//	Ψ = μ/2 (tr C − 3) − μ ln J + λ/2 (ln J)²,  C = FᵀF, J = det F,
//	P = μ (F − F⁻ᵀ) + λ ln J F⁻ᵀ,
//
// for J ≥ J₀ (the threshold, DefaultNeoHookeanThreshold unless set).
// ln J has no value at J ≤ 0, so for J < J₀ this law replaces ln J by its
// second-order Taylor expansion at J₀,
//
//	g(J) = ln J₀ + (J − J₀)/J₀ − (J − J₀)²/(2J₀²),
//
// which matches ln J in value, first and second derivative at J₀: Ψ
// stays C² (P and dP continuous) across the threshold, and is defined for
// every F, including flat (J = 0) and inverted (J < 0) elements. There
// g' = (2J₀ − J)/J₀² > 0 and g < ln J₀ < 0, so ∂Ψ/∂J = (λg − μ)g' < 0:
// the energy keeps decreasing as J increases, the force always pushes an
// inverted element back towards positive volume, and the energy grows like
// J⁴ as the element is pushed deeper (no NaN, no infinity). Written with
// the cofactor cof F = J F⁻ᵀ (a polynomial of F, defined for every F):
//
//	Ψ = μ/2 (tr C − 3) − μ g(J) + λ/2 g(J)²
//	P = μF + h(J) cof F,                    h = (λg − μ) g'
//	dP = μ dF + h'(J) (cof F : dF) cof F + h(J) d(cof F)[dF],
//	h' = λ g'² + (λg − μ) g''.
//
// (VegaFEM instead computes this law on the principal stretches of a
// sign-corrected SVD and, without its inversionThreshold clamp, returns
// NaN at J ≤ 0; with the clamp its tangent ignores the clamping.)
//
// Cache layout (20 numbers): F (9), cof F (9), h, h'.
type NeoHookean struct {
	Lambda, Mu float64
	// Threshold is J₀ > 0; 0 means DefaultNeoHookeanThreshold.
	Threshold float64
}

const neoHookeanCacheSize = 20

// NewNeoHookean returns the law with the default threshold.
func NewNeoHookean(lambda, mu float64) *NeoHookean {
	return &NeoHookean{Lambda: lambda, Mu: mu, Threshold: DefaultNeoHookeanThreshold}
}

// logJ returns g(J) (ln J above the threshold, its quadratic Taylor
// expansion below) and its first two derivatives.
func (l *NeoHookean) logJ(J float64) (g, g1, g2 float64) {
	j0 := l.Threshold
	if j0 <= 0 {
		j0 = DefaultNeoHookeanThreshold
	}
	if J >= j0 {
		inv := 1 / J
		return math.Log(J), inv, -inv * inv
	}
	inv := 1 / j0
	d := (J - j0) * inv
	return math.Log(j0) + d - 0.5*d*d, inv * (1 - d), -inv * inv
}

// Energy implements Law. Above the threshold it is evaluated on
// H = F − I without cancellation (see smallStrainInvariants): the direct
// formula loses the leading digits of Ψ ∝ |H|² to terms of size |H|, a
// relative error of 1e-16/|H|² that finite-difference checks of the force
// at small strain would see.
func (l *NeoHookean) Energy(F geom.Mat3) float64 {
	J := F.Det()
	j0 := l.Threshold
	if j0 <= 0 {
		j0 = DefaultNeoHookeanThreshold
	}
	if J >= j0 {
		// Ψ = μ/2 (I_C − 3 − 2 ln J) + λ/2 (ln J)², with
		// I_C − 3 − 2 ln J = |H|² + 2(tr H − d) + 2(d − ln(1 + d)),
		// d = J − 1 = tr H + i₂ + det H.
		hh, trH, d := smallStrainInvariants(&F)
		lj := math.Log1p(d)
		q := hh + 2*(trH-d) + 2*(d-lj)
		return 0.5*l.Mu*q + 0.5*l.Lambda*lj*lj
	}
	g, _, _ := l.logJ(J)
	ic := F.DDot(F)
	return 0.5*l.Mu*(ic-3) - l.Mu*g + 0.5*l.Lambda*g*g
}

// smallStrainInvariants returns, for H = F − I, |H|², tr H and
// d = det F − 1 = tr H + i₂(H) + det H with i₂ = ½((tr H)² − tr(H²)),
// each without the cancellation of forming FᵀF or det F first.
func smallStrainInvariants(F *geom.Mat3) (hh, trH, d float64) {
	H := *F
	H[0]--
	H[4]--
	H[8]--
	hh = H.DDot(H)
	trH = H[0] + H[4] + H[8]
	i2 := H[0]*H[4] + H[0]*H[8] + H[4]*H[8] - H[1]*H[3] - H[2]*H[6] - H[5]*H[7]
	return hh, trH, trH + i2 + H.Det()
}

// Stress implements Law.
func (l *NeoHookean) Stress(F geom.Mat3) geom.Mat3 {
	var P geom.Mat3
	var cache [neoHookeanCacheSize]float64
	l.StressCached(F[:], P[:], cache[:])
	return P
}

// StressDifferential implements Law.
func (l *NeoHookean) StressDifferential(F, dF geom.Mat3) geom.Mat3 {
	var P, dP geom.Mat3
	var cache [neoHookeanCacheSize]float64
	l.StressCached(F[:], P[:], cache[:])
	l.StressDifferentialCached(dF[:], dP[:], cache[:])
	return dP
}

// CacheSize implements Law.
func (l *NeoHookean) CacheSize() int { return neoHookeanCacheSize }

// StressCached implements Law.
func (l *NeoHookean) StressCached(Fs, Ps, cache []float64) {
	F := (*geom.Mat3)(Fs[:9])
	cc := cache[:neoHookeanCacheSize:neoHookeanCacheSize]
	C := (*geom.Mat3)(cc[9:18])
	cofactorTo(C, F)
	J := F[0]*C[0] + F[1]*C[1] + F[2]*C[2]
	g, g1, g2 := l.logJ(J)
	lam, mu := l.Lambda, l.Mu
	a := lam*g - mu
	h := a * g1
	P := (*geom.Mat3)(Ps[:9])
	for i := range P {
		P[i] = mu*F[i] + h*C[i]
	}
	copy(cc[:9], F[:])
	cc[18], cc[19] = h, lam*g1*g1+a*g2
}

// StressDifferentialCached implements Law.
func (l *NeoHookean) StressDifferentialCached(dFs, dPs, cache []float64) {
	cc := cache[:neoHookeanCacheSize:neoHookeanCacheSize]
	F := (*geom.Mat3)(cc[:9])
	C := (*geom.Mat3)(cc[9:18])
	h, h1 := cc[18], cc[19]
	dF := (*geom.Mat3)(dFs[:9])
	dP := (*geom.Mat3)(dPs[:9])
	// dP = μ dF + h d(cof F), then + h' (cof F : dF) cof F.
	dJ := 0.0
	for i := 0; i < 9; i++ {
		dJ += C[i] * dF[i]
	}
	dCofactorTo(dP, F, dF, h)
	s := h1 * dJ
	mu := l.Mu
	for i := range dP {
		dP[i] += mu*dF[i] + s*C[i]
	}
}

// StableNeoHookean is the stable neo-Hookean law of Smith, de Goes & Kim
// ("Stable Neo-Hookean Flesh Simulation", ACM TOG 37(2), 2018, eq. 14 and
// Sec. 3.4–3.5):
//
//	Ψ = μ̃/2 (I_C − 3) + λ̃/2 (J − α)² − μ̃/2 ln(I_C + 1) − Ψ₀,
//	μ̃ = 4μ/3,  λ̃ = λ + 5μ/6,  α = 1 + 3μ̃/(4λ̃),  I_C = tr FᵀF,
//
// with (λ, μ) the Lamé parameters of youngModulus and poissonRatio: the
// reparametrisation makes the law agree with linear elasticity of (λ, μ)
// at small strain, α makes the rest shape stress-free, and the constant
// Ψ₀ = λ̃/2 (1 − α)² − μ̃/2 ln 4 makes Ψ(I) = 0. It is a smooth function of
// F everywhere (I_C + 1 ≥ 1): no logarithm of J, so flat and inverted
// elements (J ≤ 0) have finite energy and stress, and the volumetric term
// λ̃(J − α) cof F keeps pushing them back towards J = α > 1; it is
// rest-stable and, unlike Bonet–Wood's ln J, meaningful under inversion
// rather than patched there. Stress and tangent:
//
//	P = μ̃ (1 − 1/(I_C + 1)) F + λ̃ (J − α) cof F
//	dP = μ̃ (1 − 1/(I_C + 1)) dF + 2μ̃/(I_C + 1)² (F : dF) F
//	     + λ̃ (cof F : dF) cof F + λ̃ (J − α) d(cof F)[dF].
//
// Cache layout (21 numbers): F (9), cof F (9), μ̃(1 − 1/(I_C+1)),
// 2μ̃/(I_C+1)², λ̃(J − α).
type StableNeoHookean struct {
	// MuS, LambdaS and Alpha are μ̃, λ̃ and α (set by NewStableNeoHookean).
	MuS, LambdaS, Alpha float64
	psi0                float64
}

const stableNeoHookeanCacheSize = 21

// NewStableNeoHookean returns the law matching the Lamé parameters
// (λ, μ) at small strain.
func NewStableNeoHookean(lambda, mu float64) *StableNeoHookean {
	ms := 4 * mu / 3
	ls := lambda + 5*mu/6
	alpha := 1 + 0.75*ms/ls
	return &StableNeoHookean{MuS: ms, LambdaS: ls, Alpha: alpha,
		psi0: 0.5*ls*(1-alpha)*(1-alpha) - 0.5*ms*math.Log(4)}
}

// Energy implements Law, evaluated on H = F − I without cancellation
// (see NeoHookean.Energy): with q = I_C − 3 = |H|² + 2 tr H and
// d = J − 1, Ψ = μ̃/2 (q − ln(1 + q/4)) + λ̃/2 d (d + 2(1 − α)).
func (l *StableNeoHookean) Energy(F geom.Mat3) float64 {
	hh, trH, d := smallStrainInvariants(&F)
	q := hh + 2*trH
	return 0.5*l.MuS*(q-math.Log1p(0.25*q)) + 0.5*l.LambdaS*d*(d+2*(1-l.Alpha))
}

// Stress implements Law.
func (l *StableNeoHookean) Stress(F geom.Mat3) geom.Mat3 {
	var P geom.Mat3
	var cache [stableNeoHookeanCacheSize]float64
	l.StressCached(F[:], P[:], cache[:])
	return P
}

// StressDifferential implements Law.
func (l *StableNeoHookean) StressDifferential(F, dF geom.Mat3) geom.Mat3 {
	var P, dP geom.Mat3
	var cache [stableNeoHookeanCacheSize]float64
	l.StressCached(F[:], P[:], cache[:])
	l.StressDifferentialCached(dF[:], dP[:], cache[:])
	return dP
}

// CacheSize implements Law.
func (l *StableNeoHookean) CacheSize() int { return stableNeoHookeanCacheSize }

// StressCached implements Law.
func (l *StableNeoHookean) StressCached(Fs, Ps, cache []float64) {
	F := (*geom.Mat3)(Fs[:9])
	cc := cache[:stableNeoHookeanCacheSize:stableNeoHookeanCacheSize]
	C := (*geom.Mat3)(cc[9:18])
	cofactorTo(C, F)
	J := F[0]*C[0] + F[1]*C[1] + F[2]*C[2]
	ic := 0.0
	for i := 0; i < 9; i++ {
		ic += F[i] * F[i]
	}
	inv := 1 / (ic + 1)
	a := l.MuS * (1 - inv)
	c := l.LambdaS * (J - l.Alpha)
	P := (*geom.Mat3)(Ps[:9])
	for i := range P {
		P[i] = a*F[i] + c*C[i]
	}
	copy(cc[:9], F[:])
	cc[18], cc[19], cc[20] = a, 2*l.MuS*inv*inv, c
}

// StressDifferentialCached implements Law.
func (l *StableNeoHookean) StressDifferentialCached(dFs, dPs, cache []float64) {
	cc := cache[:stableNeoHookeanCacheSize:stableNeoHookeanCacheSize]
	F := (*geom.Mat3)(cc[:9])
	C := (*geom.Mat3)(cc[9:18])
	a, b, c := cc[18], cc[19], cc[20]
	dF := (*geom.Mat3)(dFs[:9])
	dP := (*geom.Mat3)(dPs[:9])
	fd, cd := 0.0, 0.0
	for i := 0; i < 9; i++ {
		fd += F[i] * dF[i]
		cd += C[i] * dF[i]
	}
	dCofactorTo(dP, F, dF, c)
	sf, sc := b*fd, l.LambdaS*cd
	for i := range dP {
		dP[i] += a*dF[i] + sf*F[i] + sc*C[i]
	}
}

// cofactorTo sets C = cof F = det(F) F⁻ᵀ = ∂ det F/∂F (defined for every
// F). C must not alias F.
func cofactorTo(C, F *geom.Mat3) {
	C[0], C[1], C[2] = F[4]*F[8]-F[5]*F[7], F[5]*F[6]-F[3]*F[8], F[3]*F[7]-F[4]*F[6]
	C[3], C[4], C[5] = F[2]*F[7]-F[1]*F[8], F[0]*F[8]-F[2]*F[6], F[1]*F[6]-F[0]*F[7]
	C[6], C[7], C[8] = F[1]*F[5]-F[2]*F[4], F[2]*F[3]-F[0]*F[5], F[0]*F[4]-F[1]*F[3]
}

// dCofactorTo sets D = s·d(cof F)[dF], the scaled differential of the
// cofactor along dF (the product rule on each 2×2 minor). D must not alias
// F or dF.
func dCofactorTo(D, F, dF *geom.Mat3, s float64) {
	D[0] = s * (dF[4]*F[8] + F[4]*dF[8] - dF[5]*F[7] - F[5]*dF[7])
	D[1] = s * (dF[5]*F[6] + F[5]*dF[6] - dF[3]*F[8] - F[3]*dF[8])
	D[2] = s * (dF[3]*F[7] + F[3]*dF[7] - dF[4]*F[6] - F[4]*dF[6])
	D[3] = s * (dF[2]*F[7] + F[2]*dF[7] - dF[1]*F[8] - F[1]*dF[8])
	D[4] = s * (dF[0]*F[8] + F[0]*dF[8] - dF[2]*F[6] - F[2]*dF[6])
	D[5] = s * (dF[1]*F[6] + F[1]*dF[6] - dF[0]*F[7] - F[0]*dF[7])
	D[6] = s * (dF[1]*F[5] + F[1]*dF[5] - dF[2]*F[4] - F[2]*dF[4])
	D[7] = s * (dF[2]*F[3] + F[2]*dF[3] - dF[0]*F[5] - F[0]*dF[5])
	D[8] = s * (dF[0]*F[4] + F[0]*dF[4] - dF[1]*F[3] - F[1]*dF[3])
}

// TangentCached implements TangentLaw:
//
//	A[ij][kl] = μ δik δjl + h' C_ij C_kl + h ε_ikm ε_jln F_mn
//
// (C = cof F; the last term is ∂(cof F)_ij/∂F_kl).
func (l *NeoHookean) TangentCached(cache, A []float64) {
	cc := cache[:neoHookeanCacheSize:neoHookeanCacheSize]
	F := (*geom.Mat3)(cc[:9])
	C := (*geom.Mat3)(cc[9:18])
	h, h1 := cc[18], cc[19]
	A = A[:81:81]
	for p := 0; p < 9; p++ {
		s := h1 * C[p]
		for q := 0; q < 9; q++ {
			A[9*p+q] = s * C[q]
		}
		A[10*p] += l.Mu
	}
	addCofactorTangent(A, F, h)
}

// TangentCached implements TangentLaw:
//
//	A[ij][kl] = a δik δjl + b F_ij F_kl + λ̃ C_ij C_kl + c ε_ikm ε_jln F_mn
//
// with a = μ̃(1 − 1/(I_C+1)), b = 2μ̃/(I_C+1)², c = λ̃(J − α).
func (l *StableNeoHookean) TangentCached(cache, A []float64) {
	cc := cache[:stableNeoHookeanCacheSize:stableNeoHookeanCacheSize]
	F := (*geom.Mat3)(cc[:9])
	C := (*geom.Mat3)(cc[9:18])
	a, b, c := cc[18], cc[19], cc[20]
	ls := l.LambdaS
	A = A[:81:81]
	for p := 0; p < 9; p++ {
		sf, sc := b*F[p], ls*C[p]
		for q := 0; q < 9; q++ {
			A[9*p+q] = sf*F[q] + sc*C[q]
		}
		A[10*p] += a
	}
	addCofactorTangent(A, F, c)
}
