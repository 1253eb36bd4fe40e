package shapematching

import (
	"math"

	"github.com/sofago/sofago/geom"
)

// Rotation of a region. Shape matching needs, at every step and for every
// region, the rotation R of the least-squares rigid fit of the rest shape to
// the current one: the orthogonal factor of the polar decomposition of
// Apq = Σ m̃ pᵢqᵢᵀ (Müller et al. 2005, Sec. 3.3). It is the rotation that
// maximises tr(RᵀApq) over proper rotations; with it the goals
// R·qᵢ + c exert no net torque on a region (Σ m̃ pᵢ × Rqᵢ = 0 is the
// stationarity condition), so the shape-matching term conserves angular
// momentum as well as linear momentum.
//
// (Koyama et al. 2012 decompose A = Apq·Aqq⁻¹ instead. A's rotation is not
// the best fit when Aqq is anisotropic — every boundary region, and the
// interior 1-rings of a Kuhn-split grid, whose Aqq has eigenvalues in ratio
// 1:1:4 — and its goals then exert a torque: a free cuboid released from a
// stretched shape spins itself up. The example stretches are therefore
// measured in the frame of the best-fit rotation; see ShapeMatching.)

// wellConditioned is the threshold on det A / (‖A‖_F²/3)^{3/2}, A the
// region's deformation Apq·Aqq⁻¹, below which a region counts as squashed
// flat (or collapsed, or, when negative, inverted). The ratio is 1 for a
// uniform scaling and the product of the singular values over the cube of
// their root-mean-square in general, so 1e-3 is reached only by regions
// squashed to a small fraction of their thickness.
const wellConditioned = 1e-3

// newtonTolerance stops the Newton iteration: the last correction |ω| is
// below it (radians), so the rotation error after applying it is of order
// |ω|² ≈ 1e-14, far below what the dynamics notice, and the goals of a
// rigidly moved region equal its positions to about 1e-14 of its size.
const newtonTolerance = 1e-7

// regionRotation returns the rotation of the best rigid fit of a region (the
// polar rotation of apq), as a unit quaternion and as a matrix, starting from
// q0 (the region's rotation at the previous step, extrapolated). aqqInv is
// the region's (Σ m̃ q qᵀ)⁻¹, which gives its deformation A = Apq·Aqq⁻¹ when
// the fast path fails, and scale = 3/tr(Aqq), which makes apq·scale
// dimensionless and of order one. It never fails and never returns NaN for
// finite input:
//
//   - Newton's method on the stationarity condition skew(RᵀApq) = 0,
//     warm-started at q0 (newtonRotation): one or two iterations between
//     steps. It converges to the maximum of tr(RᵀApq) near q0: the polar
//     rotation for a non-inverted region, and for an inverted or flat one
//     the proper rotation nearest to q0 that maximises the fit, continuous
//     in time.
//   - when Newton cannot (the start is too far, or the region has
//     collapsed so that no strict maximum exists): for a well-conditioned
//     A (det A > 1e-3·(‖A‖²/3)^{3/2}, not inverted) geom.PolarRotation
//     (Newton–Schulz or Higham's scaled Newton iteration); otherwise the
//     iteration of Müller, Bender, Chentanez & Macklin 2016 ("A robust method
//     to extract the rotational part of deformations", MIG '16) from q0,
//     which climbs tr(RᵀApq) over proper rotations, so it always returns one,
//     stays continuous in time where the polar factor jumps or is a
//     reflection, and leaves R unchanged when Apq = 0, followed by Newton
//     where it reached a strict maximum. The goal R·qᵢ + c then un-inverts
//     the region.
func regionRotation(apq, aqqInv *geom.Mat3, scale float64, q0 geom.Quat) (geom.Quat, geom.Mat3) {
	q, ok := newtonRotation(apq, q0)
	if !ok {
		var A geom.Mat3
		mul3(&A, apq, aqqInv)
		if wellConditionedMatrix(&A) {
			q = geom.QuatFromMat(geom.PolarRotation(*apq))
		} else {
			q = extractRotationMuller(apq.Scale(scale), q0, 20)
			if qn, ok := newtonRotation(apq, q); ok {
				q = qn
			}
		}
	}
	var R geom.Mat3
	quatToMat(&q, &R)
	return q, R
}

// wellConditionedMatrix reports det A > wellConditioned·(‖A‖_F²/3)^{3/2}.
func wellConditionedMatrix(A *geom.Mat3) bool {
	n2 := (A[0]*A[0] + A[1]*A[1] + A[2]*A[2] + A[3]*A[3] + A[4]*A[4] + A[5]*A[5] + A[6]*A[6] + A[7]*A[7] + A[8]*A[8]) / 3
	det := A[0]*(A[4]*A[8]-A[5]*A[7]) - A[1]*(A[3]*A[8]-A[5]*A[6]) + A[2]*(A[3]*A[7]-A[4]*A[6])
	return n2 > 0 && det > wellConditioned*n2*math.Sqrt(n2)
}

// quatToMat writes the rotation matrix of the unit quaternion q (geom.Quat.Mat
// without the copies).
func quatToMat(q *geom.Quat, R *geom.Mat3) {
	x, y, z, w := q[0], q[1], q[2], q[3]
	xx, yy, zz := 2*x*x, 2*y*y, 2*z*z
	xy, xz, yz := 2*x*y, 2*x*z, 2*y*z
	wx, wy, wz := 2*w*x, 2*w*y, 2*w*z
	R[0], R[1], R[2] = 1-yy-zz, xy-wz, xz+wy
	R[3], R[4], R[5] = xy+wz, 1-xx-zz, yz-wx
	R[6], R[7], R[8] = xz-wy, yz+wx, 1-xx-yy
}

// newtonRotation maximises tr(RᵀApq) near q0 by Newton's method on the
// stationarity condition skew(RᵀApq) = 0. With B = RᵀApq and P = sym(B),
// the correction R ← R·rot(ω) solves
//
//	(tr P·I − P) ω = (B₂₁ − B₁₂, B₀₂ − B₂₀, B₁₀ − B₀₁),
//
// the linearisation of the condition (the matrix of the derivative of the
// polar rotation in the FEM's exact tangent); tr P·I − P positive definite
// is the condition for a strict maximum. rot is Cayley's map, exactly a
// rotation and equal to exp to second order, so the convergence stays
// quadratic (measured: cubic in practice, |ω₂| ≤ 1.3·|ω₁|³ over the
// regions of a jiggling cuboid). Once a correction is below 1e-3 rad the
// matrix is kept (the chord method: it changes by O(|ω|), so each step
// still gains three digits) and only the residual is recomputed. It stops
// after a correction |ω| < newtonTolerance whose error estimate, |ω|² for a
// Newton step and |ω| times the rotation since the matrix was computed for
// a chord step, is below newtonTolerance²: between steps, one iteration for
// a region whose rotation the warm start predicted to 1e-7, two otherwise.
// ok is false when the matrix is not positive definite, a correction
// exceeds 1 rad, or 8 iterations do not converge.
func newtonRotation(apq *geom.Mat3, q0 geom.Quat) (q geom.Quat, ok bool) {
	var R geom.Mat3
	quatToMat(&q0, &R)
	// B = Rᵀ apq.
	b00 := R[0]*apq[0] + R[3]*apq[3] + R[6]*apq[6]
	b01 := R[0]*apq[1] + R[3]*apq[4] + R[6]*apq[7]
	b02 := R[0]*apq[2] + R[3]*apq[5] + R[6]*apq[8]
	b10 := R[1]*apq[0] + R[4]*apq[3] + R[7]*apq[6]
	b11 := R[1]*apq[1] + R[4]*apq[4] + R[7]*apq[7]
	b12 := R[1]*apq[2] + R[4]*apq[5] + R[7]*apq[8]
	b20 := R[2]*apq[0] + R[5]*apq[3] + R[8]*apq[6]
	b21 := R[2]*apq[1] + R[5]*apq[4] + R[8]*apq[7]
	b22 := R[2]*apq[2] + R[5]*apq[5] + R[8]*apq[8]
	// The body-frame correction, accumulated as an (unnormalised)
	// quaternion.
	ax, ay, az, aw := 0.0, 0.0, 0.0, 1.0
	var c00, c01, c02, c11, c12, c22, id float64
	refresh := true
	// Chord steps: (Σ|v|)² ≤ count·Σ|v|² bounds the squared rotation since
	// the matrix was computed (v = ω/2), without square roots.
	sumVV, count := 0.0, 0.0
	const tol2 = 0.25 * newtonTolerance * newtonTolerance // (|ω| tolerance / 2)²
	for it := 0; it < 8; it++ {
		if refresh {
			sumVV, count = 0, 0
			// M = tr P·I − P (symmetric) and its cofactors; M positive
			// definite by Sylvester's criterion.
			tr := b00 + b11 + b22
			m00, m11, m22 := tr-b00, tr-b11, tr-b22
			m01, m02, m12 := -0.5*(b01+b10), -0.5*(b02+b20), -0.5*(b12+b21)
			c00 = m11*m22 - m12*m12
			c01 = m02*m12 - m01*m22
			c02 = m01*m12 - m02*m11
			det := m00*c00 + m01*c01 + m02*c02
			if !(m00 > 0) || !(m00*m11-m01*m01 > 0) || !(det > 0) {
				return q0, false
			}
			c11 = m00*m22 - m02*m02
			c12 = m01*m02 - m00*m12
			c22 = m00*m11 - m01*m01
			id = 0.5 / det
		}
		// v = ω/2 = ½ M⁻¹ rhs.
		r0, r1, r2 := b21-b12, b02-b20, b10-b01
		v0 := (c00*r0 + c01*r1 + c02*r2) * id
		v1 := (c01*r0 + c11*r1 + c12*r2) * id
		v2 := (c02*r0 + c12*r1 + c22*r2) * id
		vv := v0*v0 + v1*v1 + v2*v2
		if !(vv < 0.25) { // |ω| ≥ 1 rad (or NaN): too far for Newton
			return q0, false
		}
		// Accumulate the correction: a ← a ⊗ (v, 1).
		if it == 0 {
			ax, ay, az, aw = v0, v1, v2, 1
		} else {
			ax, ay, az, aw = aw*v0+ax+ay*v2-az*v1, aw*v1-ax*v2+ay+az*v0, aw*v2+ax*v1-ay*v0+az, aw-ax*v0-ay*v1-az*v2
		}
		// The error left after this step is about |ω|² for a Newton step and
		// |ω|·(rotation since the matrix was computed) for a chord step.
		if vv < tol2 && vv*count*sumVV < tol2*tol2 {
			// q = q0 ⊗ a, normalised.
			q = geom.Quat{
				q0[3]*ax + q0[0]*aw + q0[1]*az - q0[2]*ay,
				q0[3]*ay - q0[0]*az + q0[1]*aw + q0[2]*ax,
				q0[3]*az + q0[0]*ay - q0[1]*ax + q0[2]*aw,
				q0[3]*aw - q0[0]*ax - q0[1]*ay - q0[2]*az,
			}
			inv := 1 / math.Sqrt(q[0]*q[0]+q[1]*q[1]+q[2]*q[2]+q[3]*q[3])
			return geom.Quat{q[0] * inv, q[1] * inv, q[2] * inv, q[3] * inv}, true
		}
		sumVV += vv
		count++
		refresh = vv > 0.25e-6 // |ω| > 1e-3 rad: recompute the matrix next time
		// B ← Cᵀ B with C = I + k([v]× + [v]×²), k = 2/(1 + |v|²), the
		// rotation of the quaternion (v, 1)/√(1 + |v|²).
		k := 2 / (1 + vv)
		e00, e11, e22 := 1-k*(v1*v1+v2*v2), 1-k*(v0*v0+v2*v2), 1-k*(v0*v0+v1*v1)
		xy, xz, yz := k*v0*v1, k*v0*v2, k*v1*v2
		e01, e10 := xy-k*v2, xy+k*v2
		e02, e20 := xz+k*v1, xz-k*v1
		e12, e21 := yz-k*v0, yz+k*v0
		b00, b10, b20 = e00*b00+e10*b10+e20*b20, e01*b00+e11*b10+e21*b20, e02*b00+e12*b10+e22*b20
		b01, b11, b21 = e00*b01+e10*b11+e20*b21, e01*b01+e11*b11+e21*b21, e02*b01+e12*b11+e22*b21
		b02, b12, b22 = e00*b02+e10*b12+e20*b22, e01*b02+e11*b12+e21*b22, e02*b02+e12*b12+e22*b22
	}
	return q0, false
}

// extractRotationMuller runs at most maxIter steps of Müller et al. 2016's
// iteration from q: ω = Σᵢ rᵢ × aᵢ / (|Σᵢ rᵢ·aᵢ| + 1e-9), q ← exp(ω)·q, until
// |ω| < 1e-13 (rᵢ, aᵢ the columns of R and A). The 1e-9 guards the division
// for A ≈ 0; A must be scaled to order one.
func extractRotationMuller(A geom.Mat3, q geom.Quat, maxIter int) geom.Quat {
	a0, a1, a2 := A.Col(0), A.Col(1), A.Col(2)
	for it := 0; it < maxIter; it++ {
		R := q.Mat()
		r0, r1, r2 := R.Col(0), R.Col(1), R.Col(2)
		num := r0.Cross(a0).Add(r1.Cross(a1)).Add(r2.Cross(a2))
		den := math.Abs(r0.Dot(a0)+r1.Dot(a1)+r2.Dot(a2)) + 1e-9
		w := num.Scale(1 / den)
		if !(w.Norm() >= 1e-13) { // also stops on NaN input
			break
		}
		q = geom.QuatFromRotVec(w).Mul(q).Normalized()
	}
	return q
}
