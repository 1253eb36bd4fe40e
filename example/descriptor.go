package example

import (
	"math"

	"github.com/sofago/sofago/geom"
)

// DescSize is the size of a descriptor: a symmetric 3×3 tensor stored as
//
//	(S₀₀, S₁₁, S₂₂, √2·S₀₁, √2·S₀₂, √2·S₁₂)
//
// so that the Euclidean norm of a descriptor difference is the Frobenius
// norm of the tensor difference: a projection onto example descriptors then
// does not depend on the orientation of the rest mesh's axes.
const DescSize = 6

// IdentityDescriptor is the identity tensor in descriptor form (the rest
// pose's stretch); the rest pose's Green strain is the zero descriptor.
var IdentityDescriptor = [DescSize]float64{1, 1, 1, 0, 0, 0}

// PutDescriptor writes the symmetric part of S in descriptor form at d[0:6].
func PutDescriptor(d []float64, S *geom.Mat3) {
	d = d[:DescSize:DescSize]
	d[0], d[1], d[2] = S[0], S[4], S[8]
	d[3] = math.Sqrt2 * 0.5 * (S[1] + S[3])
	d[4] = math.Sqrt2 * 0.5 * (S[2] + S[6])
	d[5] = math.Sqrt2 * 0.5 * (S[5] + S[7])
}

// Tensor returns the symmetric tensor of the descriptor d[0:6] (the inverse
// of PutDescriptor on symmetric tensors).
func Tensor(d []float64) geom.Mat3 {
	d = d[:DescSize:DescSize]
	const h = 1 / math.Sqrt2
	a, b, c := h*d[3], h*d[4], h*d[5]
	return geom.Mat3{d[0], a, b, a, d[1], c, b, c, d[2]}
}

// PutGreenStrain writes the Green strain E = ½(FᵀF − I) of the deformation
// gradient F in descriptor form at d[0:6].
func PutGreenStrain(d []float64, F *geom.Mat3) {
	d = d[:DescSize:DescSize]
	// Columns of F: c_j = (F₀ⱼ, F₁ⱼ, F₂ⱼ); (FᵀF)ᵢⱼ = cᵢ·cⱼ.
	c00 := F[0]*F[0] + F[3]*F[3] + F[6]*F[6]
	c11 := F[1]*F[1] + F[4]*F[4] + F[7]*F[7]
	c22 := F[2]*F[2] + F[5]*F[5] + F[8]*F[8]
	c01 := F[0]*F[1] + F[3]*F[4] + F[6]*F[7]
	c02 := F[0]*F[2] + F[3]*F[5] + F[6]*F[8]
	c12 := F[1]*F[2] + F[4]*F[5] + F[7]*F[8]
	const h = math.Sqrt2 / 2
	d[0], d[1], d[2] = 0.5*(c00-1), 0.5*(c11-1), 0.5*(c22-1)
	d[3], d[4], d[5] = h*c01, h*c02, h*c12
}

// PutGreenStrainDifferential writes dE = sym(Fᵀ dF), the differential of
// the Green strain at F along dF, in descriptor form at d[0:6].
func PutGreenStrainDifferential(d []float64, F, dF *geom.Mat3) {
	d = d[:DescSize:DescSize]
	// (Fᵀ dF)ᵢⱼ = Σ_r F_ri dF_rj.
	m := func(i, j int) float64 { return F[i]*dF[j] + F[3+i]*dF[3+j] + F[6+i]*dF[6+j] }
	const h = math.Sqrt2 / 2
	d[0], d[1], d[2] = m(0, 0), m(1, 1), m(2, 2)
	d[3] = h * (m(0, 1) + m(1, 0))
	d[4] = h * (m(0, 2) + m(2, 0))
	d[5] = h * (m(1, 2) + m(2, 1))
}
