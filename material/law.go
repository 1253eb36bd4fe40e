package material

import (
	"fmt"
	"math"
	"strings"

	"github.com/sofago/sofago/geom"
)

// Law is a hyperelastic constitutive law: an energy density Ψ(F) per unit
// rest volume of the deformation gradient F (geom.Mat3, row-major), its
// first Piola–Kirchhoff stress P = ∂Ψ/∂F and the differential
// dP = ∂P/∂F[dF], which is the tangent an implicit solver needs. A
// tetrahedral element of rest volume V stores V·Ψ(F) and applies the
// vertex forces −V·P·∇Nᵢ; frame-based samples use the same three
// quantities.
//
// Every method is defined for every finite F, including singular and
// inverted ones (det F ≤ 0): no NaN or infinity ever leaves a law. What
// each law does there is part of its documentation.
//
// The cached pair is the fast path of element loops: StressCached computes
// P and stores in cache (CacheSize numbers, owned by the caller, one slot
// per element) what StressDifferentialCached needs to return dP at that F
// for any dF, so a conjugate-gradient solve that asks for many products
// K·dx at one configuration does the expensive part (rotations,
// logarithms, cofactors) once. Its matrices are flat row-major slices of 9
// numbers in the caller's (heap) memory, which must not alias: passing
// 3×3 arrays by value costs about 12 ns per call (they travel through the
// stack), and pointers to the caller's local arrays would make the
// compiler move them to the heap at every call through the interface.
//
// Every law of this package is proportional to Young's modulus at a fixed
// Poisson's ratio (Ψ is linear in (λ, μ), and the shape parameters of the
// stable neo-Hookean law depend on μ/λ only), so a body whose modulus
// varies per element can use one law and scale each element's energy,
// stress and tangent by E_e/E.
type Law interface {
	// Energy returns Ψ(F).
	Energy(F geom.Mat3) float64
	// Stress returns P(F) = ∂Ψ/∂F.
	Stress(F geom.Mat3) geom.Mat3
	// StressDifferential returns dP = ∂P/∂F[dF] at F.
	StressDifferential(F, dF geom.Mat3) geom.Mat3
	// CacheSize is the number of values StressCached stores per call.
	CacheSize() int
	// StressCached writes P(F) into P and fills cache[:CacheSize()].
	StressCached(F, P, cache []float64)
	// StressDifferentialCached writes into dP the differential
	// ∂P/∂F[dF] at the F of the StressCached call that filled cache.
	StressDifferentialCached(dF, dP, cache []float64)
}

// Names of the laws New builds.
const (
	NameLinear             = "Linear"
	NameCorotationalLinear = "CorotationalLinear"
	NameStVenantKirchhoff  = "StVenantKirchhoff"
	NameNeoHookean         = "NeoHookean"
	NameStableNeoHookean   = "StableNeoHookean"
)

// Names lists the laws New knows, in the order of the documentation.
func Names() []string {
	return []string{NameLinear, NameCorotationalLinear, NameStVenantKirchhoff, NameNeoHookean, NameStableNeoHookean}
}

// New returns the law of that name for Young's modulus E and Poisson's
// ratio ν (Lamé parameters from Lame). It fails on an unknown name or
// parameters out of range (E ≤ 0 or not finite, ν outside (−1, 0.5)).
func New(name string, E, nu float64) (Law, error) {
	if !(E > 0) || math.IsInf(E, 0) {
		return nil, fmt.Errorf("youngModulus = %g must be positive and finite", E)
	}
	if !(nu > -1 && nu < 0.5) {
		return nil, fmt.Errorf("poissonRatio = %g is out of range (-1, 0.5)", nu)
	}
	lambda, mu := Lame(E, nu)
	switch name {
	case NameLinear:
		return &Linear{Lambda: lambda, Mu: mu}, nil
	case NameCorotationalLinear:
		return &CorotationalLinear{Lambda: lambda, Mu: mu}, nil
	case NameStVenantKirchhoff:
		return &StVenantKirchhoff{Lambda: lambda, Mu: mu}, nil
	case NameNeoHookean:
		return NewNeoHookean(lambda, mu), nil
	case NameStableNeoHookean:
		return NewStableNeoHookean(lambda, mu), nil
	}
	return nil, fmt.Errorf("unknown material %q: want one of %s", name, strings.Join(Names(), ", "))
}

// TangentLaw is a Law that can also write its whole tangent at a cached
// linearisation as a 9×9 matrix, in closed form: A[9(3i+j) + 3k+l] =
// ∂P_ij/∂F_kl, so that dP_ij = Σ_kl A[9(3i+j)+3k+l]·dF_kl. Element
// stiffness matrices are contractions of A with the shape gradients
// (K_ab = −V Σ_jl ∇N_a[j] A_(·j)(·l) ∇N_b[l]), cheaper than nine
// StressDifferentialCached calls. Every law of this package implements
// it; for hyperelastic laws A has the major symmetry A[ij][kl] = A[kl][ij].
type TangentLaw interface {
	Law
	// TangentCached writes A (81 numbers) at the F of the StressCached
	// call that filled cache.
	TangentCached(cache, A []float64)
}

// Tangent writes the 9×9 tangent of law at the linearisation in cache:
// TangentCached when the law has it, else the nine differentials of the
// unit matrices (exact, since dP is linear in dF).
func Tangent(law Law, cache, A []float64) {
	if tl, ok := law.(TangentLaw); ok {
		tl.TangentCached(cache, A)
		return
	}
	var dF, dP [9]float64
	for q := 0; q < 9; q++ {
		dF = [9]float64{}
		dF[q] = 1
		law.StressDifferentialCached(dF[:], dP[:], cache)
		for p := 0; p < 9; p++ {
			A[9*p+q] = dP[p]
		}
	}
}

// levi returns the Levi-Civita symbol ε_ijk for indices in {0, 1, 2}.
func levi(i, j, k int) float64 {
	switch {
	case i == j || j == k || i == k:
		return 0
	case (i+1)%3 == j:
		return 1
	}
	return -1
}

// addCofactorTangent adds s·∂(cof F)_ij/∂F_kl = s·ε_ikm ε_jln F_mn to A:
// nonzero only for i ≠ k and j ≠ l, where m and n are the remaining
// indices.
func addCofactorTangent(A []float64, F *geom.Mat3, s float64) {
	for i := 0; i < 3; i++ {
		for k := 0; k < 3; k++ {
			if k == i {
				continue
			}
			m := 3 - i - k
			sik := s * levi(i, k, m)
			for j := 0; j < 3; j++ {
				for l := 0; l < 3; l++ {
					if l == j {
						continue
					}
					n := 3 - j - l
					A[9*(3*i+j)+3*k+l] += sik * levi(j, l, n) * F[3*m+n]
				}
			}
		}
	}
}
