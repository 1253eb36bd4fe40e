package forcefield

import (
	"fmt"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
)

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
	changed := false
	for e := 0; e < s.mesh.numElements(); e++ {
		Fe := s.mesh.gradient(e, x)
		ee := p.elastic(&Fe)
		flowed, err := p.cfg.flow(p.strain[6*e:6*e+6], &ee)
		if err != nil {
			return fmt.Errorf("element %d at t = %g: %w", e, t, err)
		}
		if flowed {
			s.plasticRest(e)
			changed = true
		}
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
