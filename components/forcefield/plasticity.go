package forcefield

import (
	"fmt"
	"math"

	"github.com/sofago/sofago/geom"
)

// Plasticity holds the fields of SOFA's TetrahedronFEMForceField
// plasticity, shared by TetrahedronFEMForceField and
// TetrahedronHyperelasticityFEMForceField (embedded in both), the two
// hexahedral force fields (cell_plasticity.go: the same rule per
// hexahedron) and DeformationGradientForceField (elastons: plastic
// membrane and bending strains; deformation_gradient_plasticity.go).
// Plasticity is on when plasticMaxThreshold > 0 (SOFA's switch; the
// default 0 keeps it off). What follows is the tetrahedra's.
//
// State: a symmetric plastic strain εₚ per element, in the element's rest
// frame, which deforms the element's rest shape: the law is evaluated at
// the elastic deformation gradient Fₑ = F (I + εₚ)⁻¹, i.e. with the rest
// edge matrix Dm replaced by (I + εₚ) Dm, and the element energy is
// Vₑ Ψ(Fₑ) with Vₑ the original rest volume. For small strains the
// elastic (corotated) strain is then ε − εₚ, the additive split of SOFA
// and of the lecture notes (αₑ = α_g − αₚ); the multiplicative form keeps
// every law, its exact tangent and its element matrices unchanged (they
// see Fₑ) and makes a homogeneous plastic strain an exactly stress-free
// shape.
//
// Flow rule, once per time step after the solve (graph.StepEnder), for
// every element: with εₑ the elastic strain at the end of the step,
//
//	if ‖εₑ‖ > plasticYieldThreshold:  εₚ ← εₚ + plasticCreep · εₑ
//	if ‖εₚ‖ > plasticMaxThreshold:    εₚ ← εₚ · plasticMaxThreshold/‖εₚ‖
//
// with ‖·‖ the Frobenius norm √(ε:ε) (SOFA uses the 2-norm of its
// 6-vector with engineering shears; the two agree for normal strains).
// Like SOFA's the rule is per step, not per second: halving dt doubles
// the creep per unit time. εₑ is the strain of the force field's law:
// TetrahedronFEMForceField uses its corotated strain sym(RᵀFₑ) − I with R
// the rotation of its method (I for "small"); the hyperelastic force
// field uses the Biot strain S − I of the polar decomposition Fₑ = R S.
// Within a step the plastic strains are constant: forces, tangents and
// energies are those of a fixed conservative potential.
type Plasticity struct {
	PlasticYieldThreshold float64 `toml:"plasticYieldThreshold" doc:"elastic strain norm (Frobenius) above which an element flows plastically (elastons: the membrane strain and the bending strains each on its own, the bending ones by their extreme-fibre norm)" range:"[0,inf)"`
	PlasticMaxThreshold   float64 `toml:"plasticMaxThreshold" doc:"largest plastic strain norm (Frobenius; elastons: of each part, measured as for the yield); 0 turns plasticity off (SOFA's default)" range:"[0,1)"`
	PlasticCreep          float64 `toml:"plasticCreep" doc:"fraction of the elastic strain turned plastic per time step while above the yield threshold" range:"[0,1]"`
}

// defaultPlasticity returns SOFA's defaults: yield 1e-4, creep 0.9, max 0
// (off).
func defaultPlasticity() Plasticity {
	return Plasticity{PlasticYieldThreshold: 1e-4, PlasticCreep: 0.9}
}

// check validates the fields (for objects built in code; the loader
// checks the ranges too). plasticMaxThreshold < 1 keeps the eigenvalues
// of I + εₚ at least 1 − max > 0, so the plastic rest shape never inverts.
func (p *Plasticity) check() error {
	if !(p.PlasticYieldThreshold >= 0) || math.IsInf(p.PlasticYieldThreshold, 0) {
		return fmt.Errorf("plasticYieldThreshold = %g must be non-negative and finite", p.PlasticYieldThreshold)
	}
	if !(p.PlasticMaxThreshold >= 0 && p.PlasticMaxThreshold < 1) {
		return fmt.Errorf("plasticMaxThreshold = %g is out of range [0, 1)", p.PlasticMaxThreshold)
	}
	if !(p.PlasticCreep >= 0 && p.PlasticCreep <= 1) {
		return fmt.Errorf("plasticCreep = %g is out of range [0, 1]", p.PlasticCreep)
	}
	return nil
}

// flow applies the flow rule to one plastic strain ep (6 numbers, VTK
// order, updated in place) given the elastic strain ee (its symmetric
// part is used), both measured by the Frobenius norm. It reports whether
// ep changed, and fails when the result is not finite.
func (p *Plasticity) flow(ep []float64, ee *geom.Mat3) (bool, error) {
	es := symOf(ee)
	return p.flowVec(ep, es[:], normSym6)
}

// flowVec is the flow rule on a plastic state ep of any length (updated
// in place) given the elastic state ee of the same length, both measured
// by norm:
//
//	if norm(ee) > plasticYieldThreshold:  ep ← ep + plasticCreep · ee
//	if norm(ep) > plasticMaxThreshold:    ep ← ep · plasticMaxThreshold/norm(ep)
//
// The tetrahedra, hexahedra and F331 samples use it on one strain
// (normSym6); elastons on their membrane strain and, with a norm weighted
// by the region's second moments, on their three bending strains at once.
func (p *Plasticity) flowVec(ep, ee []float64, norm func([]float64) float64) (bool, error) {
	if !(norm(ee) > p.PlasticYieldThreshold) {
		return false, nil
	}
	for i := range ep {
		ep[i] += p.PlasticCreep * ee[i]
	}
	if n := norm(ep); n > p.PlasticMaxThreshold {
		s := p.PlasticMaxThreshold / n
		for i := range ep {
			ep[i] *= s
		}
	}
	for _, x := range ep {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false, fmt.Errorf("plastic strain is not finite")
		}
	}
	return true, nil
}

// normSym6 is the Frobenius norm √(ε:ε) of a symmetric matrix stored as
// 6 numbers (VTK order).
func normSym6(v []float64) float64 {
	e := (*sym6)(v[:6])
	return math.Sqrt(ddot6(e, e))
}

// symFrom6 returns the symmetric matrix of a 6-vector in VTK's order.
func symFrom6(v []float64) geom.Mat3 {
	return geom.Mat3{v[0], v[3], v[5], v[3], v[1], v[4], v[5], v[4], v[2]}
}

func frobenius(m *geom.Mat3) float64 {
	s := 0.0
	for _, x := range m {
		s += x * x
	}
	return math.Sqrt(s)
}
