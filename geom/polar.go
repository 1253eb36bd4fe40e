package geom

import "math"

// Polar returns the polar decomposition F = R S: R orthogonal, S symmetric
// positive semi-definite. det R has the sign of det F (a reflection when F
// is inverted, as the polar decomposition must: use SVD's rotation for
// inversion-aware elasticity); when F is singular R is one proper rotation
// among the valid ones.
//
// Method: when F is close to orthogonal (‖FᵀF − I‖_F < 0.5, stretches
// within about ±20 %, the common case in simulation) the inverse-free
// Newton–Schulz iteration, 4 to 6 steps of two 3×3 products each; otherwise
// Newton's iteration X ← ½(γX + γ⁻¹X⁻ᵀ) with Higham's Frobenius-norm
// scaling γ = (‖X⁻¹‖/‖X‖)^½ (Higham 1986, "Computing the polar
// decomposition — with applications", SIAM J. Sci. Stat. Comput. 7), which
// converges for any non-singular F. Both converge quadratically and stop
// at rounding (|RᵀR − I| ≈ 1e-16, |RS − F| ≈ 1e-16 |F|). When F is
// numerically singular (|det F| ≤ 1e-10 ‖F‖³) the factors come from SVD.
func Polar(F Mat3) (R, S Mat3) {
	R = F
	if !newtonSchulz(&R) {
		var ok bool
		if R, ok = higham(F); !ok {
			return polarFromSVD(F)
		}
	}
	symTMul(&S, &R, &F)
	return R, S
}

// PolarRotation returns the orthogonal factor R of F = R S (see Polar)
// without forming S.
func PolarRotation(F Mat3) Mat3 {
	R := F
	if newtonSchulz(&R) {
		return R
	}
	R, ok := higham(F)
	if !ok {
		R, _ = polarFromSVD(F)
	}
	return R
}

// newtonSchulz runs, in place, the inverse-free Newton–Schulz iteration
// X ← X (3I − XᵀX)/2 (Higham, Functions of Matrices, 2008, Sec. 8.3) when X
// is close enough to orthogonal for it to converge fast, and reports
// whether it ran: with E = XᵀX − I, each step maps the eigenvalues ε of E
// to −¾ε² + ¼ε³, so ‖E‖ < 0.5 reaches rounding in at most 6 steps, each
// two 3×3 products and no division. E is formed anyway, so the stopping
// test is free: once ‖E‖ < 1e-8 the last step leaves an error below 1e-16.
// The nine entries live in scalars, which the compiler keeps in registers.
func newtonSchulz(X *Mat3) bool {
	x0, x1, x2, x3, x4, x5, x6, x7, x8 := X[0], X[1], X[2], X[3], X[4], X[5], X[6], X[7], X[8]
	for it := 0; it < 12; it++ {
		// E = XᵀX − I (symmetric: six entries).
		e00 := x0*x0 + x3*x3 + x6*x6 - 1
		e11 := x1*x1 + x4*x4 + x7*x7 - 1
		e22 := x2*x2 + x5*x5 + x8*x8 - 1
		e01 := x0*x1 + x3*x4 + x6*x7
		e02 := x0*x2 + x3*x5 + x6*x8
		e12 := x1*x2 + x4*x5 + x7*x8
		n2 := e00*e00 + e11*e11 + e22*e22 + 2*(e01*e01+e02*e02+e12*e12)
		if it == 0 && !(n2 < 0.25) {
			return false
		}
		// X ← X − X E/2 = X H, H = I − E/2.
		h00, h11, h22 := 1-0.5*e00, 1-0.5*e11, 1-0.5*e22
		h01, h02, h12 := -0.5*e01, -0.5*e02, -0.5*e12
		x0, x1, x2 = x0*h00+x1*h01+x2*h02, x0*h01+x1*h11+x2*h12, x0*h02+x1*h12+x2*h22
		x3, x4, x5 = x3*h00+x4*h01+x5*h02, x3*h01+x4*h11+x5*h12, x3*h02+x4*h12+x5*h22
		x6, x7, x8 = x6*h00+x7*h01+x8*h02, x6*h01+x7*h11+x8*h12, x6*h02+x7*h12+x8*h22
		if n2 < 1e-16 {
			break
		}
	}
	*X = Mat3{x0, x1, x2, x3, x4, x5, x6, x7, x8}
	return true
}

// higham runs the scaled Newton iteration; ok is false when F is too close
// to singular for it.
func higham(F Mat3) (Mat3, bool) {
	X := F
	nX2 := frob2(X)
	if !(nX2 > 0) || math.IsInf(nX2, 0) {
		return X, false
	}
	scaled := true
	for it := 0; it < 40; it++ {
		// X⁻ᵀ = cof(X)/det X.
		c := X.Cofactor()
		det := X[0]*c[0] + X[1]*c[1] + X[2]*c[2]
		if it == 0 && !(math.Abs(det) > 1e-10*nX2*math.Sqrt(nX2)) {
			return X, false
		}
		a, b := 0.5, 0.5/det
		if scaled {
			// γ² = ‖X⁻¹‖/‖X‖ = ‖cof X‖/(|det X| ‖X‖).
			g := math.Sqrt(math.Sqrt(frob2(c)/nX2) / math.Abs(det))
			a, b = 0.5*g, 0.5/(g*det)
		}
		var Y Mat3
		diff := 0.0
		for i := range Y {
			Y[i] = a*X[i] + b*c[i]
			d := Y[i] - X[i]
			diff += d * d
		}
		X = Y
		// Scaling only speeds up the first, far-from-orthogonal steps;
		// unscaled steps keep the local quadratic convergence.
		if diff < 1e-4 {
			scaled = false
		}
		// The error after a step is about (step)²/2: a step below 1e-8
		// leaves an error at rounding level.
		if diff < 1e-16 {
			return X, true
		}
		nX2 = frob2(X)
	}
	return X, true
}

// polarFromSVD builds the polar factors from F = U Σ Vᵀ (SVD keeps U and V
// rotations and puts the sign of det F on σ₃): R = U D Vᵀ, S = V |Σ| Vᵀ with
// D = diag(1, 1, sign σ₃).
func polarFromSVD(F Mat3) (R, S Mat3) {
	U, s, V := SVD(F)
	if s[2] < 0 {
		U[2], U[5], U[8] = -U[2], -U[5], -U[8]
		s[2] = -s[2]
	}
	I, VSV := Identity3(), V.Mul(Diag(s)).MulT(V)
	symTMul(&S, &I, &VSV)
	return U.MulT(V), S
}

// symTMul sets S = sym(Rᵀ F), computing its six distinct entries.
func symTMul(S, R, F *Mat3) {
	s00 := R[0]*F[0] + R[3]*F[3] + R[6]*F[6]
	s11 := R[1]*F[1] + R[4]*F[4] + R[7]*F[7]
	s22 := R[2]*F[2] + R[5]*F[5] + R[8]*F[8]
	s01 := 0.5 * (R[0]*F[1] + R[3]*F[4] + R[6]*F[7] + R[1]*F[0] + R[4]*F[3] + R[7]*F[6])
	s02 := 0.5 * (R[0]*F[2] + R[3]*F[5] + R[6]*F[8] + R[2]*F[0] + R[5]*F[3] + R[8]*F[6])
	s12 := 0.5 * (R[1]*F[2] + R[4]*F[5] + R[7]*F[8] + R[2]*F[1] + R[5]*F[4] + R[8]*F[7])
	*S = Mat3{s00, s01, s02, s01, s11, s12, s02, s12, s22}
}

func frob2(m Mat3) float64 {
	s := 0.0
	for _, x := range m {
		s += x * x
	}
	return s
}
