// Package material is the constitutive layer every elastic component shares
// (tetrahedral FEM now, frame-based samples later): energy densities Ψ(F),
// first Piola–Kirchhoff stresses P(F) and their differentials dP(F)[dF],
// with Lamé parameters from Young's modulus and Poisson's ratio; and the
// per-element heterogeneity (regions of other stiffness or density) that
// force fields and masses read from the scene.
//
// It is its own package because it is not a component: force fields and
// masses of several component packages use it, and tests check it alone
// against closed forms.
package material
