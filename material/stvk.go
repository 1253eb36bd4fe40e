package material

import "github.com/sofago/sofago/geom"

// StVenantKirchhoff is the Saint Venant–Kirchhoff law: linear elasticity
// on the Green strain E = ½(FᵀF − I),
//
//	Ψ = μ tr(E²) + λ/2 tr(E)²,   S = 2μE + λ tr(E) I,   P = F S,
//	dP = dF S + F dS,  dS = 2μ dE + λ tr(dE) I,  dE = sym(FᵀdF).
//
// It is exactly rotation invariant and, under uniaxial stress, gives the
// nominal stress P₁₁ = E(ε + 3ε²/2 + ε³/2) at the stretch 1 + ε whatever
// ν (validation/hyperelastic_bar_test.go). Ψ is a polynomial of F, defined
// for every F; at det F ≤ 0 it offers no resistance to inversion of its
// own: a reflected rest shape (FᵀF = I, det F = −1) has zero energy and
// stress, and under strong compression the stress softens (P₁₁ of a bar
// peaks at ε = −1 + 1/√3 and falls to 0 at total collapse), so an
// element pushed past that point may stay inverted. Use NeoHookean or
// StableNeoHookean where elements can invert.
//
// Cache layout (15 numbers): F (9), S upper triangle (6).
type StVenantKirchhoff struct {
	Lambda, Mu float64
}

const stvkCacheSize = 15

// greenStrain returns the upper triangle (00, 01, 02, 11, 12, 22) of
// E = ½(FᵀF − I), computed as ½(H + Hᵀ + HᵀH) with H = F − I: forming
// FᵀF first would round E to 1e-16 absolute, a relative error of
// 1e-16/|E| that shows in energies at small strain.
func greenStrain(F *geom.Mat3) [6]float64 {
	h0, h1, h2, h3, h4, h5, h6, h7, h8 := F[0]-1, F[1], F[2], F[3], F[4]-1, F[5], F[6], F[7], F[8]-1
	c00 := h0*h0 + h3*h3 + h6*h6
	c11 := h1*h1 + h4*h4 + h7*h7
	c22 := h2*h2 + h5*h5 + h8*h8
	c01 := h0*h1 + h3*h4 + h6*h7
	c02 := h0*h2 + h3*h5 + h6*h8
	c12 := h1*h2 + h4*h5 + h7*h8
	return [6]float64{h0 + 0.5*c00, 0.5 * (h1 + h3 + c01), 0.5 * (h2 + h6 + c02), h4 + 0.5*c11, 0.5 * (h5 + h7 + c12), h8 + 0.5*c22}
}

// Energy implements Law.
func (l *StVenantKirchhoff) Energy(F geom.Mat3) float64 {
	e := greenStrain(&F)
	tr := e[0] + e[3] + e[5]
	ee := e[0]*e[0] + e[3]*e[3] + e[5]*e[5] + 2*(e[1]*e[1]+e[2]*e[2]+e[4]*e[4])
	return l.Mu*ee + 0.5*l.Lambda*tr*tr
}

// Stress implements Law.
func (l *StVenantKirchhoff) Stress(F geom.Mat3) geom.Mat3 {
	var P geom.Mat3
	var cache [stvkCacheSize]float64
	l.StressCached(F[:], P[:], cache[:])
	return P
}

// StressDifferential implements Law.
func (l *StVenantKirchhoff) StressDifferential(F, dF geom.Mat3) geom.Mat3 {
	var P, dP geom.Mat3
	var cache [stvkCacheSize]float64
	l.StressCached(F[:], P[:], cache[:])
	l.StressDifferentialCached(dF[:], dP[:], cache[:])
	return dP
}

// CacheSize implements Law.
func (l *StVenantKirchhoff) CacheSize() int { return stvkCacheSize }

// StressCached implements Law.
func (l *StVenantKirchhoff) StressCached(Fs, Ps, cache []float64) {
	F := (*geom.Mat3)(Fs[:9])
	e := greenStrain(F)
	mu2 := 2 * l.Mu
	t := l.Lambda * (e[0] + e[3] + e[5])
	s00, s01, s02 := mu2*e[0]+t, mu2*e[1], mu2*e[2]
	s11, s12, s22 := mu2*e[3]+t, mu2*e[4], mu2*e[5]+t
	P := (*geom.Mat3)(Ps[:9])
	for r := 0; r < 9; r += 3 {
		f0, f1, f2 := F[r], F[r+1], F[r+2]
		P[r] = f0*s00 + f1*s01 + f2*s02
		P[r+1] = f0*s01 + f1*s11 + f2*s12
		P[r+2] = f0*s02 + f1*s12 + f2*s22
	}
	cc := cache[:stvkCacheSize:stvkCacheSize]
	copy(cc[:9], F[:])
	cc[9], cc[10], cc[11], cc[12], cc[13], cc[14] = s00, s01, s02, s11, s12, s22
}

// StressDifferentialCached implements Law.
func (l *StVenantKirchhoff) StressDifferentialCached(dFs, dPs, cache []float64) {
	cc := cache[:stvkCacheSize:stvkCacheSize]
	F := (*[9]float64)(cc[:9])
	s00, s01, s02, s11, s12, s22 := cc[9], cc[10], cc[11], cc[12], cc[13], cc[14]
	dF := (*geom.Mat3)(dFs[:9])
	// dE = sym(FᵀdF), upper triangle.
	a00 := F[0]*dF[0] + F[3]*dF[3] + F[6]*dF[6]
	a11 := F[1]*dF[1] + F[4]*dF[4] + F[7]*dF[7]
	a22 := F[2]*dF[2] + F[5]*dF[5] + F[8]*dF[8]
	a01 := F[0]*dF[1] + F[3]*dF[4] + F[6]*dF[7]
	a10 := F[1]*dF[0] + F[4]*dF[3] + F[7]*dF[6]
	a02 := F[0]*dF[2] + F[3]*dF[5] + F[6]*dF[8]
	a20 := F[2]*dF[0] + F[5]*dF[3] + F[8]*dF[6]
	a12 := F[1]*dF[2] + F[4]*dF[5] + F[7]*dF[8]
	a21 := F[2]*dF[1] + F[5]*dF[4] + F[8]*dF[7]
	mu, mu2 := l.Mu, 2*l.Mu
	t := l.Lambda * (a00 + a11 + a22)
	d00, d11, d22 := mu2*a00+t, mu2*a11+t, mu2*a22+t
	d01, d02, d12 := mu*(a01+a10), mu*(a02+a20), mu*(a12+a21)
	dP := (*geom.Mat3)(dPs[:9])
	for r := 0; r < 9; r += 3 {
		g0, g1, g2 := dF[r], dF[r+1], dF[r+2]
		f0, f1, f2 := F[r], F[r+1], F[r+2]
		dP[r] = g0*s00 + g1*s01 + g2*s02 + f0*d00 + f1*d01 + f2*d02
		dP[r+1] = g0*s01 + g1*s11 + g2*s12 + f0*d01 + f1*d11 + f2*d12
		dP[r+2] = g0*s02 + g1*s12 + g2*s22 + f0*d02 + f1*d12 + f2*d22
	}
}

// TangentCached implements TangentLaw: from dP = dF S + F dS,
//
//	A[ij][kl] = δik S_lj + μ δjl (FFᵀ)_ik + μ F_il F_kj + λ F_ij F_kl.
func (l *StVenantKirchhoff) TangentCached(cache, A []float64) {
	cc := cache[:stvkCacheSize:stvkCacheSize]
	F := (*geom.Mat3)(cc[:9])
	S := [9]float64{cc[9], cc[10], cc[11], cc[10], cc[12], cc[13], cc[11], cc[13], cc[14]}
	var FFt geom.Mat3
	for i := 0; i < 3; i++ {
		for k := 0; k < 3; k++ {
			FFt[3*i+k] = F[3*i]*F[3*k] + F[3*i+1]*F[3*k+1] + F[3*i+2]*F[3*k+2]
		}
	}
	mu, lam := l.Mu, l.Lambda
	A = A[:81:81]
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			row := A[9*(3*i+j) : 9*(3*i+j)+9 : 9*(3*i+j)+9]
			fij := lam * F[3*i+j]
			for k := 0; k < 3; k++ {
				fkj := mu * F[3*k+j]
				for q := 0; q < 3; q++ { // q = l
					v := F[3*i+q]*fkj + fij*F[3*k+q]
					if q == j {
						v += mu * FFt[3*i+k]
					}
					if k == i {
						v += S[3*q+j]
					}
					row[3*k+q] = v
				}
			}
		}
	}
}
