package forcefield

import (
	"errors"
	"fmt"
	"math"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/material"
)

// Plasticity of DeformationGradientForceField (the lecture notes'
// "Extensions: Plasticity" for elastons; Martin et al. 2010), with the
// fields and the flow rule of the tetrahedral FEM (Plasticity.flow).
//
// F332 samples (elastons) carry a plastic membrane strain αₚ (the strain
// at the sample's centre) and three plastic bending strains βₚᵏ (its
// gradients ∂ε/∂X_k, 1/m), 24 numbers per sample. The energy is the
// elastic one with the strain of the region replaced by the elastic
// strain, additively as in the notes (αₑ = α_g − αₚ, βₑᵏ = β_gᵏ − βₚᵏ):
//
//   - CorotationalLinear, Linear: ε(d) = sym(RᵀF(d)) − I − αₚ − d_k βₚᵏ,
//     W = ½ Σ_ab M_ab εₑ_a:C:εₑ_b (the closed form of the elastic kernel
//     with εₑ_a = ε_a − εₚ_a); for a box region centred on the sample this
//     is the notes' W = V/2 (αₑ:C:αₑ + Σ_k h_k²/12 βₑᵏ:C:βₑᵏ);
//   - StVenantKirchhoff: the Green strain's constant and linear terms
//     lose αₚ and βₚᵏ, E(d) = Ê₀₀ − αₚ + d_k (Ê₀ₖ − βₚᵏ) + d_k d_l Ê_kl.
//
// The plastic strains are constant within a step, so the forces and the
// exact tangent are those of the elastic kernel at the shifted strains.
//
// Flow rule (graph.StepEnder, once per step, Plasticity.flowVec): the
// region's elastic strain field is split into its two uncoupled parts,
// the membrane strain at the region's centroid c̄ = m(e_k)/m₀,
// ᾱₑ = αₑ + c̄_k βₑᵏ, and the bending strains βₑᵏ, in which the quadratic
// energy is m₀/2 ᾱₑ:C:ᾱₑ + ½ Σ_kl I_kl βₑᵏ:C:βₑˡ (I the central second
// moments; V/2 (αₑ:C:αₑ + Σ_k h_k²/12 βₑᵏ:C:βₑᵏ) for a box centred on its
// sample). The rule of the tetrahedra (yield threshold, creep, maximum)
// acts on each part as a whole: on ᾱ with the strain norm ‖ᾱ‖, on the
// three βᵏ together with the bending norm
//
//	‖β‖_b = √(Σ_kl (3 I_kl/m₀) βᵏ:βˡ)
//
// which for a box is √(Σ_k (h_k/2)² ‖βᵏ‖²): the strain at the extreme
// fibre of a region bent about one axis, so the thresholds mean the same
// as for the membrane strain. The norm does not depend on the axes. A
// flowing part's elastic strains all shrink by 1 − c, so its energy drops
// by (1 − c)², and the other part is untouched: without the clamp at the
// maximum the rule never raises the energy. The membrane plastic strain
// is stored at the sample (αₚ = ᾱₚ − c̄_k βₚᵏ).
//
// F331 samples carry a plastic strain εₚ (membrane only), applied
// multiplicatively as for tetrahedra: the law sees Fₑ = F (I + εₚ)⁻¹, the
// force is V P(Fₑ)(I + εₚ)⁻ᵀ; the rule's elastic strain is the Biot
// strain S − I of Fₑ = R S (sym(Fₑ) − I for Linear).
//
// With shearIntegration = reduced the elastic strains lose the dropped
// shear terms, in the energy and in the rule alike (the plastic strains
// are subtracted first, then reduced).
//
// Not supported (refused at Init): plasticity with the voxel quadrature
// of F332 samples, and with bulkModulus > 0.

// Dump names of the plastic strains of samples.
const dumpPlasticBending = "plasticBendingStrain"

// samplePlastic is the plastic state of a DeformationGradientForceField.
type samplePlastic struct {
	cfg Plasticity
	// eps[s] holds αₚ and βₚ¹..³ (F332) or εₚ in eps[s][0] (F331), as
	// sym6 in VTK order.
	eps [][4]sym6
	// F331: (I + εₚ)⁻¹ per sample.
	ainv []geom.Mat3
	// F332: each sample's region's centroid offset c̄ and bending-norm
	// weights 3 I_kl/m₀.
	cbar []geom.Vec3
	bw   []geom.Mat3
	// Flat copies for PlasticStrain, PlasticBendingStrain and the dump.
	membrane, bending []float64
}

// initPlasticity turns plasticity on when the fields ask for it (end of
// initialise).
func (c *DeformationGradientForceField) initPlasticity(n int) error {
	c.plastic = nil
	if c.PlasticMaxThreshold <= 0 {
		return nil
	}
	if c.mode == f332Voxels {
		return fmt.Errorf("plasticity on F332 samples needs the closed-form integration (materialName = CorotationalLinear, Linear or StVenantKirchhoff, quadrature = auto or moments); %s with voxels is not supported", c.MaterialName)
	}
	if c.BulkModulus > 0 {
		return errors.New("plasticity with bulkModulus > 0 is not supported (the volume term would hold the plastic shape back): set bulkModulus = 0")
	}
	p := &samplePlastic{cfg: c.Plasticity, eps: make([][4]sym6, n), membrane: make([]float64, 6*n)}
	if c.mode == f332Off {
		p.ainv = make([]geom.Mat3, n)
		for s := range p.ainv {
			p.ainv[s] = geom.Identity3()
		}
	} else {
		p.bending = make([]float64, 18*n)
		p.cbar = make([]geom.Vec3, n)
		p.bw = make([]geom.Mat3, n)
		for s := 0; s < n; s++ {
			M := momentMatrix(c.moments[geom.NumMoments*s : geom.NumMoments*(s+1)])
			m0 := M[0][0]
			if !(m0 > 0) {
				continue // no material: no energy, no flow
			}
			for k := 0; k < 3; k++ {
				p.cbar[s][k] = M[0][k+1] / m0
			}
			for k := 0; k < 3; k++ {
				for l := 0; l < 3; l++ {
					p.bw[s][3*k+l] = 3 * (M[k+1][l+1]/m0 - p.cbar[s][k]*p.cbar[s][l])
				}
			}
		}
	}
	c.plastic = p
	return nil
}

// samplePlasticOf returns the plastic strains of F332 sample s for the
// kernel, nil when plasticity is off.
func (c *DeformationGradientForceField) samplePlasticOf(s int) *[4]sym6 {
	if c.plastic == nil {
		return nil
	}
	return &c.plastic.eps[s]
}

// PlasticStrain returns the plastic strains, 6 per sample (εxx, εyy, εzz,
// εxy, εyz, εxz): the membrane strain αₚ of F332 samples, εₚ of F331
// samples; nil when plasticity is off. The slice is the force field's: it
// changes at every EndStep.
func (c *DeformationGradientForceField) PlasticStrain() []float64 {
	if c.plastic == nil {
		return nil
	}
	return c.plastic.membrane
}

// PlasticBendingStrain returns the plastic bending strains βₚ¹, βₚ², βₚ³
// of F332 samples (the plastic strain's gradients along x, y, z), 18 per
// sample (three times the 6 of PlasticStrain), in 1/m; nil for F331
// samples or with plasticity off.
func (c *DeformationGradientForceField) PlasticBendingStrain() []float64 {
	if c.plastic == nil {
		return nil
	}
	return c.plastic.bending
}

// SetPlasticStrain sets the plastic strains: membrane 6 per sample (as
// PlasticStrain returns them), bending 18 per F332 sample (nil: zero; must
// be nil for F331 samples). For F331 samples every ‖εₚ‖ must be at most
// plasticMaxThreshold (< 1, so I + εₚ stays invertible).
func (c *DeformationGradientForceField) SetPlasticStrain(membrane, bending []float64) error {
	p := c.plastic
	if p == nil {
		return errors.New("plasticity is off (plasticMaxThreshold = 0)")
	}
	n := len(p.eps)
	if len(membrane) != 6*n {
		return fmt.Errorf("%d plastic strain values for %d samples (6 each)", len(membrane), n)
	}
	if bending != nil && (p.bending == nil || len(bending) != 18*n) {
		if p.bending == nil {
			return errors.New("plastic bending strains need F332 samples")
		}
		return fmt.Errorf("%d plastic bending strain values for %d samples (18 each)", len(bending), n)
	}
	for i, x := range membrane {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("plastic strain %d is %g", i, x)
		}
	}
	for i, x := range bending {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("plastic bending strain %d is %g", i, x)
		}
	}
	if p.ainv != nil {
		for s := 0; s < n; s++ {
			ep := symFrom6(membrane[6*s : 6*s+6])
			if nrm := frobenius(&ep); nrm > p.cfg.PlasticMaxThreshold*(1+1e-12) {
				return fmt.Errorf("sample %d: plastic strain norm %g exceeds plasticMaxThreshold %g", s, nrm, p.cfg.PlasticMaxThreshold)
			}
		}
	}
	copy(p.membrane, membrane)
	if p.bending != nil {
		clear(p.bending)
		copy(p.bending, bending)
	}
	for s := 0; s < n; s++ {
		p.unflatten(s)
	}
	return nil
}

// unflatten copies sample s's flat strains into eps (and its F331
// (I + εₚ)⁻¹).
func (p *samplePlastic) unflatten(s int) {
	copy(p.eps[s][0][:], p.membrane[6*s:6*s+6])
	if p.bending != nil {
		for k := 0; k < 3; k++ {
			copy(p.eps[s][k+1][:], p.bending[18*s+6*k:18*s+6*k+6])
		}
	}
	if p.ainv != nil {
		A := geom.Identity3().Add(p.eps[s][0].full())
		p.ainv[s], _ = A.Inverse() // eigenvalues ≥ 1 − max > 0
	}
}

// EndStep implements graph.StepEnder: the flow rule on every sample at
// the state's position at the end of the step.
func (c *DeformationGradientForceField) EndStep(t, dt float64) error {
	p := c.plastic
	if p == nil || c.Node == nil {
		return nil
	}
	x := c.Node.State().Vec(graph.Position)
	for s := range p.eps {
		var err error
		if p.ainv != nil {
			err = c.flow331(s, x)
		} else {
			err = c.flow332(s, x)
		}
		if err != nil {
			return c.Errorf("sample %d at t = %g: %v", s, t, err)
		}
	}
	return nil
}

// flow331 is the flow rule of F331 sample s.
func (c *DeformationGradientForceField) flow331(s int, x []float64) error {
	p := c.plastic
	F := geom.Mat3(x[9*s : 9*s+9])
	var Fe geom.Mat3
	mulNN(&Fe, &F, &p.ainv[s])
	var ee geom.Mat3
	if c.MaterialName == material.NameLinear {
		ee = Fe.Sym().Sub(geom.Identity3())
	} else {
		ee = biotStrain(&Fe)
	}
	flowed, err := p.cfg.flow(p.membrane[6*s:6*s+6], &ee)
	if flowed {
		p.unflatten(s)
	}
	return err
}

// elasticStrains332 returns the elastic strains εₑ_a (a = 0..3: centre,
// then the gradients along x, y, z) of F332 sample s at x, as the kernel
// measures them (corotated with the centre's rotation, linear, or the
// Green strain's constant and linear terms).
func (c *DeformationGradientForceField) elasticStrains332(s int, x []float64) (e [4]sym6) {
	var F [4]geom.Mat3
	sampleF(&F, x, s)
	ep := &c.plastic.eps[s]
	if c.mode == f332Green {
		for a := 0; a < 4; a++ {
			e[a] = greenStrainTerm(&F, nil, 0, a)
		}
	} else {
		R := geom.Identity3()
		if c.mode == f332Corotational {
			R, _, _ = c.kernel.coro.Decompose(F[0])
		}
		for a := 0; a < 4; a++ {
			var Y geom.Mat3
			mulTN(&Y, &R, &F[a])
			e[a] = symOf(&Y)
			if a == 0 {
				e[0][0]--
				e[0][1]--
				e[0][2]--
			}
		}
	}
	for a := 0; a < 4; a++ {
		axpy6(&e[a], -1, &ep[a])
		if c.kernel.reduced {
			// As the kernel: the elastic strain with the shear terms
			// reduced integration drops removed (pair (0, a) for Green).
			reduce(&e[a], shearDrop[a])
		}
	}
	return e
}

// flow332 is the flow rule of F332 sample s, on the membrane and the
// bending parts of its region's strain field (see the top of this file).
func (c *DeformationGradientForceField) flow332(s int, x []float64) error {
	p := c.plastic
	e := c.elasticStrains332(s, x)
	ep := &p.eps[s]
	cb := p.cbar[s]
	// Membrane part at the centroid.
	eb, pb := e[0], ep[0]
	for k := 0; k < 3; k++ {
		if cb[k] != 0 {
			axpy6(&eb, cb[k], &e[k+1])
			axpy6(&pb, cb[k], &ep[k+1])
		}
	}
	flowedM, err := p.cfg.flowVec(pb[:], eb[:], normSym6)
	if err != nil {
		return err
	}
	// Bending part: the three gradients at once.
	var eB, pB [18]float64
	for k := 0; k < 3; k++ {
		copy(eB[6*k:6*k+6], e[k+1][:])
		copy(pB[6*k:6*k+6], ep[k+1][:])
	}
	W := &p.bw[s]
	bnorm := func(v []float64) float64 {
		q := 0.0
		for k := 0; k < 3; k++ {
			for l := 0; l < 3; l++ {
				if w := W[3*k+l]; w != 0 {
					q += w * ddot6((*sym6)(v[6*k:6*k+6]), (*sym6)(v[6*l:6*l+6]))
				}
			}
		}
		return math.Sqrt(math.Max(q, 0))
	}
	flowedB, err := p.cfg.flowVec(pB[:], eB[:], bnorm)
	if err != nil {
		return err
	}
	if !flowedM && !flowedB {
		return nil
	}
	if flowedB {
		for k := 0; k < 3; k++ {
			copy(ep[k+1][:], pB[6*k:6*k+6])
		}
	}
	// αₚ = ᾱₚ − c̄_k βₚᵏ.
	for k := 0; k < 3; k++ {
		if cb[k] != 0 {
			axpy6(&pb, -cb[k], &ep[k+1])
		}
	}
	ep[0] = pb
	copy(p.membrane[6*s:6*s+6], ep[0][:])
	for k := 0; k < 3; k++ {
		copy(p.bending[18*s+6*k:18*s+6*k+6], ep[k+1][:])
	}
	return nil
}

// DumpData implements graph.DumpDataProvider: the plastic strains (6 per
// sample) and, for F332 samples, the plastic bending strains (18 per
// sample); nil when plasticity is off.
func (c *DeformationGradientForceField) DumpData() []graph.DumpArray {
	p := c.plastic
	if p == nil {
		return nil
	}
	out := []graph.DumpArray{{Name: cellPlasticStrain, Width: 6, Data: p.membrane}}
	if p.bending != nil {
		out = append(out, graph.DumpArray{Name: dumpPlasticBending, Width: 18, Data: p.bending})
	}
	return out
}

var (
	_ graph.StepEnder        = (*DeformationGradientForceField)(nil)
	_ graph.DumpDataProvider = (*DeformationGradientForceField)(nil)
)

// mulNT sets o = a bᵀ (9 numbers; o must not alias a or b).
func mulNT(o []float64, a, b *geom.Mat3) {
	o = o[:9:9]
	for i := 0; i < 3; i++ {
		a0, a1, a2 := a[3*i], a[3*i+1], a[3*i+2]
		o[3*i] = a0*b[0] + a1*b[1] + a2*b[2]
		o[3*i+1] = a0*b[3] + a1*b[4] + a2*b[5]
		o[3*i+2] = a0*b[6] + a1*b[7] + a2*b[8]
	}
}
