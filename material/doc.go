// Package material is the constitutive layer every elastic component shares
// (tetrahedral FEM now, frame-based samples later): energy densities Ψ(F),
// first Piola–Kirchhoff stresses P(F) and their differentials dP(F)[dF],
// with Lamé parameters from Young's modulus and Poisson's ratio; and the
// per-element heterogeneity (regions of other stiffness or density) that
// force fields and masses read from the scene.
//
// The laws (Law, built by name with New):
//
//	Linear              ε = sym(F) − I, Ψ = μ ε:ε + λ/2 (tr ε)²       not rotation invariant
//	CorotationalLinear  the same on ε = S − I, F = R S (polar)         VegaFEM's corotational energy;
//	                                                                   Invertible: rotation from the sign-corrected SVD
//	StVenantKirchhoff   Ψ = μ tr(E²) + λ/2 tr(E)², E = ½(FᵀF − I)      polynomial; no resistance to inversion
//	NeoHookean          Ψ = μ/2 (tr C − 3) − μ ln J + λ/2 (ln J)²      Bonet–Wood (VegaFEM's); ln J replaced by its
//	                                                                   Taylor expansion below J₀ = 0.2: C², restoring
//	StableNeoHookean    Smith, de Goes & Kim 2018                      defined and restoring for every F
//
// What each law does at det F ≤ 0 is documented on its type; none ever
// returns NaN or infinity for a finite F. The tests check P = ∂Ψ/∂F and
// dP = ∂P/∂F[dF] by central differences (including inverted F for the laws
// meant for it), frame indifference, the linear-elastic limit at F = I and
// the closed forms of uniaxial stress.
//
// It is its own package because it is not a component: force fields and
// masses of several component packages use it, and tests check it alone
// against closed forms.
package material
