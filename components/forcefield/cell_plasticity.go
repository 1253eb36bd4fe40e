package forcefield

import (
	"fmt"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
)

// Plasticity of the force fields on cellElements (HexahedronFEMForceField,
// HexahedronHyperelasticityFEMForceField): the fields, the plastic strain
// per element and the flow rule of the tetrahedra (Plasticity). The
// plastic strain εₚ of element e deforms its rest shape at every
// quadrature point: the law sees Fₑ = F_q (I + εₚ)⁻¹, i.e. the rest-space
// shape gradients ∇Nₐ(q) are replaced by (I + εₚ)⁻¹ ∇Nₐ(q) (εₚ is
// symmetric), with the quadrature weights (the original rest volumes)
// unchanged; forces, the exact tangent, the element matrices and the
// energy then follow unchanged, and a homogeneous εₚ is exactly
// stress-free. The flow rule's elastic strain of an element is the
// volume average Σ_q w_q εₑ(F_q)/Vₑ of the force field's strain at its
// quadrature points (the corotated strain of the method, or the Biot
// strain of the hyperelastic laws), so the rule sees the element as a
// tetrahedron's is seen.

// cellPlastic is the per-element plastic state of a cellSolid.
type cellPlastic struct {
	cfg Plasticity
	// grad0 holds the original shape gradients; the mesh's grad holds
	// (I + εₚ)⁻¹ ∇Nₐ.
	grad0 []float64
	// strain is 6 per element (VTK order).
	strain []float64
	// elastic returns the strain of the law at Fₑ (not concurrent).
	elastic func(Fe *geom.Mat3) geom.Mat3
}

// enablePlasticity turns plasticity on when cfg asks for it (at the end of
// Init, after setup).
func (s *cellSolid) enablePlasticity(cfg Plasticity, elastic func(Fe *geom.Mat3) geom.Mat3) {
	s.plastic = nil
	if cfg.PlasticMaxThreshold <= 0 {
		return
	}
	s.plastic = &cellPlastic{
		cfg:     cfg,
		grad0:   append([]float64(nil), s.mesh.grad...),
		strain:  make([]float64, 6*s.mesh.numElements()),
		elastic: elastic,
	}
}

// PlasticStrain returns the plastic strains, 6 per element (εxx, εyy,
// εzz, εxy, εyz, εxz), or nil when plasticity is off. The slice is the
// force field's: it changes at every EndStep.
func (s *cellSolid) PlasticStrain() []float64 {
	if s.plastic == nil {
		return nil
	}
	return s.plastic.strain
}

// SetPlasticStrain sets the plastic strains (6 per element) and the
// plastic rest shapes that follow; it fails when plasticity is off or an
// element's strain norm exceeds plasticMaxThreshold.
func (s *cellSolid) SetPlasticStrain(eps []float64) error {
	p := s.plastic
	if p == nil {
		return fmt.Errorf("plasticity is off (plasticMaxThreshold = 0)")
	}
	if len(eps) != len(p.strain) {
		return fmt.Errorf("%d plastic strain values for %d elements (6 each)", len(eps), len(p.strain)/6)
	}
	for e := 0; e < len(eps)/6; e++ {
		ep := symFrom6(eps[6*e : 6*e+6])
		if n := frobenius(&ep); n > p.cfg.PlasticMaxThreshold*(1+1e-12) {
			return fmt.Errorf("element %d: plastic strain norm %g exceeds plasticMaxThreshold %g", e, n, p.cfg.PlasticMaxThreshold)
		}
	}
	copy(p.strain, eps)
	for e := 0; e < len(eps)/6; e++ {
		s.plasticRest(e)
	}
	s.linearised = false
	return nil
}

// plasticRest sets the shape gradients of element e to (I + εₚ)⁻¹ ∇Nₐ.
func (s *cellSolid) plasticRest(e int) {
	m, p := s.mesh, s.plastic
	ep := symFrom6(p.strain[6*e : 6*e+6])
	inv, _ := geom.Identity3().Add(ep).Inverse() // eigenvalues ≥ 1 − max > 0
	n := int(m.nodeStart[e+1] - m.nodeStart[e])
	for g := int(m.qpStart[e]); g < int(m.qpStart[e+1]); g++ {
		for a := 0; a < n; a++ {
			i := m.gradStart[g] + 3*a
			v := inv.MulVec(geom.Vec3(p.grad0[i : i+3]))
			copy(m.grad[i:i+3], v[:])
		}
	}
}

// EndStep implements graph.StepEnder: the flow rule (Plasticity) on every
// element, with its volume-averaged elastic strain at the state's
// position at the end of the step.
func (s *cellSolid) EndStep(t, dt float64) error {
	p := s.plastic
	if p == nil {
		return nil
	}
	m := s.mesh
	x := s.state.Vec(graph.Position)
	var F [9]float64
	changed := false
	for e := 0; e < m.numElements(); e++ {
		var mean geom.Mat3
		for g := int(m.qpStart[e]); g < int(m.qpStart[e+1]); g++ {
			m.gradientTo(e, g, x, F[:])
			Fe := geom.Mat3(F)
			ee := p.elastic(&Fe)
			for i := range mean {
				mean[i] += m.w[g] * ee[i]
			}
		}
		mean = mean.Scale(1 / m.vol[e])
		flowed, err := p.cfg.flow(p.strain[6*e:6*e+6], &mean)
		if err != nil {
			return fmt.Errorf("element %d at t = %g: %w", e, t, err)
		}
		if flowed {
			s.plasticRest(e)
			changed = true
		}
	}
	if changed {
		s.linearised = false
	}
	return nil
}

// DumpData implements graph.DumpDataProvider: the plastic strains (6 per
// element), nil when plasticity is off.
func (s *cellSolid) DumpData() []graph.DumpArray {
	if s.plastic == nil {
		return nil
	}
	return []graph.DumpArray{{Name: cellPlasticStrain, Width: 6, Data: s.plastic.strain}}
}

var (
	_ graph.StepEnder        = (*HexahedronFEMForceField)(nil)
	_ graph.StepEnder        = (*HexahedronHyperelasticityFEMForceField)(nil)
	_ graph.DumpDataProvider = (*HexahedronFEMForceField)(nil)
	_ graph.DumpDataProvider = (*HexahedronHyperelasticityFEMForceField)(nil)
)
