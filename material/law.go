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
