package geom

import "math"

// SymEigen returns the eigen-decomposition A = V diag(lambda) Vᵀ of the
// symmetric part of A, by cyclic Jacobi rotations (Golub & Van Loan,
// Matrix Computations, Sec. 8.5; the update formulas of Numerical Recipes
// §11.1, which keep the rotation stable for tiny off-diagonal entries).
//
// The eigenvalues come in descending order, V's columns are the matching
// unit eigenvectors, and V is a proper rotation (det V = +1): the sign of
// the last column is chosen for that. Jacobi is accurate to rounding
// relative to the largest |eigenvalue| even when eigenvalues are close or
// equal, which the closed-form (trigonometric) cubic solution is not.
func SymEigen(A Mat3) (lambda Vec3, V Mat3) {
	// Work on the symmetric part in six scalars.
	a00, a11, a22 := A[0], A[4], A[8]
	a01 := 0.5 * (A[1] + A[3])
	a02 := 0.5 * (A[2] + A[6])
	a12 := 0.5 * (A[5] + A[7])
	V = Identity3()
	for sweep := 0; sweep < 50; sweep++ {
		if a01 == 0 && a02 == 0 && a12 == 0 {
			break
		}
		// Rotation in the (0,1) plane; index 2 is the third.
		jacobiRotate(&a00, &a11, &a01, &a02, &a12, &V, 0, 1)
		// (0,2) plane; the third index is 1: the off-diagonal pairs are
		// (r,p) = a01 (row 1, col 0) and (r,q) = a12.
		jacobiRotate(&a00, &a22, &a02, &a01, &a12, &V, 0, 2)
		// (1,2) plane; the third index is 0: (r,p) = a01, (r,q) = a02.
		jacobiRotate(&a11, &a22, &a12, &a01, &a02, &V, 1, 2)
	}
	lambda = Vec3{a00, a11, a22}
	// Sort descending (three elements: a fixed network of swaps).
	swap := func(i, j int) {
		lambda[i], lambda[j] = lambda[j], lambda[i]
		for r := 0; r < 3; r++ {
			V[3*r+i], V[3*r+j] = V[3*r+j], V[3*r+i]
		}
	}
	if lambda[0] < lambda[1] {
		swap(0, 1)
	}
	if lambda[1] < lambda[2] {
		swap(1, 2)
	}
	if lambda[0] < lambda[1] {
		swap(0, 1)
	}
	if V.Det() < 0 {
		V[2], V[5], V[8] = -V[2], -V[5], -V[8]
	}
	return lambda, V
}

// jacobiRotate annihilates the off-diagonal entry apq of a symmetric 3×3
// matrix with a Jacobi rotation in the (p, q) plane. app and aqq are the
// diagonal entries p and q; arp and arq are the entries coupling the third
// index r to p and q; V accumulates the rotation on the right.
func jacobiRotate(app, aqq, apq, arp, arq *float64, V *Mat3, p, q int) {
	g := *apq
	if g == 0 {
		return
	}
	// Once the entry is negligible against both diagonal entries it is set
	// to zero (Numerical Recipes' test: 100|apq| does not change them).
	if math.Abs(*app)+100*math.Abs(g) == math.Abs(*app) && math.Abs(*aqq)+100*math.Abs(g) == math.Abs(*aqq) {
		*apq = 0
		return
	}
	theta := (*aqq - *app) / (2 * g)
	var t float64
	if math.IsInf(theta*theta, 0) {
		t = 1 / (2 * theta)
	} else {
		t = 1 / (math.Abs(theta) + math.Sqrt(theta*theta+1))
		if theta < 0 {
			t = -t
		}
	}
	c := 1 / math.Sqrt(t*t+1)
	s := t * c
	tau := s / (1 + c)
	*app -= t * g
	*aqq += t * g
	*apq = 0
	rp, rq := *arp, *arq
	*arp = rp - s*(rq+tau*rp)
	*arq = rq + s*(rp-tau*rq)
	for r := 0; r < 3; r++ {
		vp, vq := V[3*r+p], V[3*r+q]
		V[3*r+p] = vp - s*(vq+tau*vp)
		V[3*r+q] = vq + s*(vp-tau*vq)
	}
}

// SVD returns the singular value decomposition F = U diag(sigma) Vᵀ with U
// and V proper rotations (det = +1). The singular values are ordered by
// decreasing magnitude (up to rounding); when det F < 0 the last
// (smallest) one is negative, the convention of invertible FEM (Irving,
// Teran & Fedkiw 2004, Sec. 5), which keeps U and V rotations so that U Vᵀ
// is the rotation closest to F.
//
// Method: one-sided Jacobi (Hestenes 1958; Demmel & Veselić 1992): plane
// rotations V applied to the columns of B = F V until every pair of
// columns is orthogonal to rounding relative to their norms; then
// |σᵢ| = |bᵢ|, u₁ = b₁/|b₁|, u₂ = b₂ made orthogonal to u₁ and normalised,
// u₃ = u₁ × u₂ and σ₃ = u₃·b₃ with its sign. Unlike an eigen-decomposition
// of FᵀF, it never squares the condition number: every singular value is
// accurate to rounding relative to σ₁ even when they span 16 decades.
// Rank-deficient F get arbitrary orthonormal completions.
func SVD(F Mat3) (U Mat3, sigma Vec3, V Mat3) {
	B := F
	V = Identity3()
	for sweep := 0; sweep < 60; sweep++ {
		rotated := false
		rotated = hestenes(&B, &V, 0, 1) || rotated
		rotated = hestenes(&B, &V, 0, 2) || rotated
		rotated = hestenes(&B, &V, 1, 2) || rotated
		if !rotated {
			break
		}
	}
	n := Vec3{B.Col(0).Norm2(), B.Col(1).Norm2(), B.Col(2).Norm2()}
	// Sort the columns by decreasing norm; each swap also negates one
	// column so that V stays a rotation and B = F V still holds.
	swap := func(i, j int) {
		n[i], n[j] = n[j], n[i]
		for r := 0; r < 3; r++ {
			B[3*r+i], B[3*r+j] = B[3*r+j], -B[3*r+i]
			V[3*r+i], V[3*r+j] = V[3*r+j], -V[3*r+i]
		}
	}
	if n[0] < n[1] {
		swap(0, 1)
	}
	if n[1] < n[2] {
		swap(1, 2)
	}
	if n[0] < n[1] {
		swap(0, 1)
	}
	b1, b2, b3 := B.Col(0), B.Col(1), B.Col(2)
	n1 := math.Sqrt(n[0])
	if !(n1 > 0) {
		// F = 0: any rotation will do.
		return Identity3(), Vec3{}, V
	}
	u1 := b1.Scale(1 / n1)
	// b₂ is orthogonal to b₁ to rounding already; one more projection
	// makes u₂ orthogonal to u₁ to rounding even when |b₂| ≪ |b₁|.
	w := b2.Sub(u1.Scale(u1.Dot(b2)))
	n2 := w.Norm()
	var u2 Vec3
	if n2 > 1e-300 {
		u2 = w.Scale(1 / n2)
	} else {
		u2 = anyOrthogonal(u1)
	}
	u3 := u1.Cross(u2)
	U = Cols(u1, u2, u3)
	sigma = Vec3{n1, u2.Dot(b2), u3.Dot(b3)}
	return U, sigma, V
}

// hestenes applies one one-sided Jacobi rotation to columns p and q of B
// (and of V) that makes them orthogonal; it reports whether it rotated
// (false once they are orthogonal to rounding).
func hestenes(B, V *Mat3, p, q int) bool {
	bp := Vec3{B[p], B[3+p], B[6+p]}
	bq := Vec3{B[q], B[3+q], B[6+q]}
	alpha, beta, gamma := bp.Norm2(), bq.Norm2(), bp.Dot(bq)
	if !(math.Abs(gamma) > 4e-16*math.Sqrt(alpha*beta)) {
		return false
	}
	// Rotation [c s; −s c] on the pair with tan θ the smaller root of
	// t² + 2ζt − 1 = 0: the new columns c·bp − s·bq and s·bp + c·bq are
	// orthogonal.
	zeta := (beta - alpha) / (2 * gamma)
	var t float64
	if math.IsInf(zeta*zeta, 0) {
		t = 1 / (2 * zeta)
	} else {
		t = 1 / (math.Abs(zeta) + math.Sqrt(1+zeta*zeta))
		if zeta < 0 {
			t = -t
		}
	}
	c := 1 / math.Sqrt(1+t*t)
	s := c * t
	for r := 0; r < 3; r++ {
		x, y := B[3*r+p], B[3*r+q]
		B[3*r+p], B[3*r+q] = c*x-s*y, s*x+c*y
		x, y = V[3*r+p], V[3*r+q]
		V[3*r+p], V[3*r+q] = c*x-s*y, s*x+c*y
	}
	return true
}

// anyOrthogonal returns a unit vector orthogonal to the unit vector u.
func anyOrthogonal(u Vec3) Vec3 {
	// Cross with the axis u is least aligned with.
	ax := Vec3{1, 0, 0}
	if math.Abs(u[1]) < math.Abs(u[0]) && math.Abs(u[1]) <= math.Abs(u[2]) {
		ax = Vec3{0, 1, 0}
	} else if math.Abs(u[2]) < math.Abs(u[0]) {
		ax = Vec3{0, 0, 1}
	}
	return u.Cross(ax).Normalized()
}
