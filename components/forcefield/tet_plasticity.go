package forcefield

import (
	"fmt"
	"math"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
)

// Plasticity holds the fields of SOFA's TetrahedronFEMForceField
// plasticity, shared by TetrahedronFEMForceField and
// TetrahedronHyperelasticityFEMForceField (embedded in both). Plasticity
// is on when plasticMaxThreshold > 0 (SOFA's switch; the default 0 keeps
// it off).
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
	PlasticYieldThreshold float64 `toml:"plasticYieldThreshold" doc:"elastic strain norm (Frobenius) above which an element flows plastically" range:"[0,inf)"`
	PlasticMaxThreshold   float64 `toml:"plasticMaxThreshold" doc:"largest plastic strain norm (Frobenius); 0 turns plasticity off (SOFA's default)" range:"[0,1)"`
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

// plasticState is the per-element plastic state of a tetSolid.
type plasticState struct {
	cfg Plasticity
	// dm0 holds the original Dm⁻¹ (9 per element); the mesh's dmInv
	// holds Dm⁻¹ (I + εₚ)⁻¹.
	dm0 []float64
	// strain is 6 per element: εxx, εyy, εzz, εxy, εyz, εxz (VTK's
	// symmetric tensor order).
	strain []float64
	// elastic returns the elastic strain of the law at Fₑ.
	elastic func(Fe *geom.Mat3) geom.Mat3
}

// Cell data and dump name of the plastic strain.
const cellPlasticStrain = "plasticStrain"

// enablePlasticity turns plasticity on when cfg asks for it (called at
// the end of Init, after setup); elastic gives the law's elastic strain.
func (s *tetSolid) enablePlasticity(cfg Plasticity, elastic func(Fe *geom.Mat3) geom.Mat3) {
	s.plastic = nil
	if cfg.PlasticMaxThreshold <= 0 {
		return
	}
	ne := s.mesh.numElements()
	s.plastic = &plasticState{
		cfg:     cfg,
		dm0:     append([]float64(nil), s.mesh.dmInv...),
		strain:  make([]float64, 6*ne),
		elastic: elastic,
	}
}

// PlasticStrain returns the plastic strains, 6 per element (εxx, εyy,
// εzz, εxy, εyz, εxz), or nil when plasticity is off. The slice is the
// force field's: it changes at every EndStep.
func (s *tetSolid) PlasticStrain() []float64 {
	if s.plastic == nil {
		return nil
	}
	return s.plastic.strain
}

// SetPlasticStrain sets the plastic strains (6 per element, as
// PlasticStrain returns them) and the plastic rest shapes that follow;
// it fails when plasticity is off or an element's strain is beyond the
// maximum (which would break the invariant that I + εₚ is positive
// definite).
func (s *tetSolid) SetPlasticStrain(eps []float64) error {
	if s.plastic == nil {
		return fmt.Errorf("plasticity is off (plasticMaxThreshold = 0)")
	}
	if len(eps) != len(s.plastic.strain) {
		return fmt.Errorf("%d plastic strain values for %d elements (6 each)", len(eps), len(s.plastic.strain)/6)
	}
	for e := 0; e < len(eps)/6; e++ {
		ep := symFrom6(eps[6*e : 6*e+6])
		if n := frobenius(&ep); n > s.plastic.cfg.PlasticMaxThreshold*(1+1e-12) {
			return fmt.Errorf("element %d: plastic strain norm %g exceeds plasticMaxThreshold %g", e, n, s.plastic.cfg.PlasticMaxThreshold)
		}
	}
	copy(s.plastic.strain, eps)
	for e := 0; e < len(eps)/6; e++ {
		s.plasticRest(e)
	}
	s.linearised = false
	return nil
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

// plasticRest sets the mesh's Dm⁻¹ of element e to Dm₀⁻¹ (I + εₚ)⁻¹.
func (s *tetSolid) plasticRest(e int) {
	p := s.plastic
	ep := symFrom6(p.strain[6*e : 6*e+6])
	A := geom.Identity3().Add(ep)
	inv, _ := A.Inverse() // eigenvalues ≥ 1 − max > 0
	B := geom.Mat3(p.dm0[9*e : 9*e+9])
	out := B.Mul(inv)
	copy(s.mesh.dmInv[9*e:9*e+9], out[:])
}

// EndStep implements graph.StepEnder: the flow rule (Plasticity) on
// every element at the state's position at the end of the step.
func (s *tetSolid) EndStep(t, dt float64) error {
	p := s.plastic
	if p == nil {
		return nil
	}
	x := s.state.Vec(graph.Position)
	yield, maxp, creep := p.cfg.PlasticYieldThreshold, p.cfg.PlasticMaxThreshold, p.cfg.PlasticCreep
	changed := false
	for e := 0; e < s.mesh.numElements(); e++ {
		Fe := s.mesh.gradient(e, x)
		ee := p.elastic(&Fe)
		if !(frobenius(&ee) > yield) {
			continue
		}
		ep := symFrom6(p.strain[6*e : 6*e+6]).Add(ee.Sym().Scale(creep))
		if n := frobenius(&ep); n > maxp {
			ep = ep.Scale(maxp / n)
		}
		if math.IsNaN(ep[0] + ep[4] + ep[8] + ep[1] + ep[5] + ep[2]) {
			return fmt.Errorf("element %d: plastic strain is not finite at t = %g", e, t)
		}
		copy(p.strain[6*e:6*e+6], []float64{ep[0], ep[4], ep[8], ep[1], ep[5], ep[2]})
		s.plasticRest(e)
		changed = true
	}
	if changed {
		// The cached linearisation belongs to the old rest shapes.
		s.linearised = false
	}
	return nil
}

// DumpData implements graph.DumpDataProvider: the plastic strains (6 per
// element), nil when plasticity is off.
func (s *tetSolid) DumpData() []graph.DumpArray {
	if s.plastic == nil {
		return nil
	}
	return []graph.DumpArray{{Name: cellPlasticStrain, Width: 6, Data: s.plastic.strain}}
}

// biotStrain is S − I for the polar decomposition Fₑ = R S: the elastic
// strain of the hyperelastic force field's flow rule.
func biotStrain(Fe *geom.Mat3) geom.Mat3 {
	_, S := geom.Polar(*Fe)
	return S.Sub(geom.Identity3())
}

var (
	_ graph.StepEnder        = (*TetrahedronFEMForceField)(nil)
	_ graph.StepEnder        = (*TetrahedronHyperelasticityFEMForceField)(nil)
	_ graph.DumpDataProvider = (*TetrahedronFEMForceField)(nil)
)
