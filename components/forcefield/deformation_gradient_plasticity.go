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
// F332 samples integrated over their voxels (NeoHookean,
// StableNeoHookean, or quadrature = voxels) carry the same αₚ, βₚᵏ,
// applied multiplicatively at each voxel as for F331 samples: the law
// sees Fₑ = F(d) A(d)⁻¹ with A(d) = I + αₚ + d_k βₚᵏ, and the force and
// tangent follow by the chain rule (exact). The rule's elastic strains
// are the least-squares affine fit, with the voxel weights, of the Biot
// strains of the Fₑ at the voxels (flowVoxels); I + εₚ(d) must stay
// positive definite at every voxel (an error names plasticMaxThreshold
// otherwise).
//
// Not supported (refused at Init): plasticity with bulkModulus > 0.

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
	// F332 with the voxel quadrature: A(d)⁻¹ = (I + αₚ + d_k βₚᵏ)⁻¹ per
	// voxel, and per sample the region's mass m₀ and the pseudo-inverse
	// of its central second moments (the least-squares fit of the
	// elastic strain's gradients).
	qainv []geom.Mat3
	m0    []float64
	ipinv []geom.Mat3
	// F332: each sample's region's centroid offset c̄ and bending-norm
	// weights 3 I_kl/m₀.
	cbar []geom.Vec3
	bw   []geom.Mat3
	// Flat copies for PlasticStrain, PlasticBendingStrain and the dump.
	membrane, bending []float64
}

// initPlasticity turns plasticity on when the fields ask for it (end of
// initialise): Init and Reinit start from zero plastic strains.
func (c *DeformationGradientForceField) initPlasticity(n int) error {
	c.plastic = nil
	if c.PlasticMaxThreshold <= 0 {
		return nil
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
		if c.mode == f332Voxels {
			c.initVoxelPlasticity(p, n)
		} else {
			// Centroid and bending-norm weights from the region moments.
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
		if err := c.unflatten(s); err != nil {
			return err
		}
	}
	return nil
}

// unflatten copies sample s's flat strains into eps (and its F331
// (I + εₚ)⁻¹, or its voxels' A(d)⁻¹).
func (c *DeformationGradientForceField) unflatten(s int) error {
	p := c.plastic
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
	if p.qainv != nil {
		return c.voxelRest(s)
	}
	return nil
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
		switch {
		case p.ainv != nil:
			err = c.flow331(s, x)
		case p.qainv != nil:
			err = c.flowVoxels(s, x)
		default:
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
		err = c.unflatten(s)
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
	// Membrane part at the centroid.
	eb := e[0]
	for k := 0; k < 3; k++ {
		if cb := p.cbar[s][k]; cb != 0 {
			axpy6(&eb, cb, &e[k+1])
		}
	}
	return c.flowParts(s, &eb, (*[3]sym6)(e[1:]))
}

// flowParts is the flow rule of F332 sample s given its elastic strain
// at the region's centroid eb and its elastic bending strains eB.
func (c *DeformationGradientForceField) flowParts(s int, eb *sym6, eB3 *[3]sym6) error {
	p := c.plastic
	ep := &p.eps[s]
	cb := p.cbar[s]
	pb := ep[0]
	for k := 0; k < 3; k++ {
		if cb[k] != 0 {
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
		copy(eB[6*k:6*k+6], eB3[k][:])
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
	if p.qainv != nil {
		return c.voxelRest(s)
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

// initVoxelPlasticity sets up the plastic state of F332 samples
// integrated over their voxels: A(d)⁻¹ = I per voxel; per sample the
// centroid, the bending-norm weights and the pseudo-inverse of the
// central second moments, all from the voxel weights w = ΔV·E/E_s (the
// quadrature's own: what the moments would be for this integration).
func (c *DeformationGradientForceField) initVoxelPlasticity(p *samplePlastic, n int) {
	q := &c.quad
	p.qainv = make([]geom.Mat3, len(q.volumes))
	for i := range p.qainv {
		p.qainv[i] = geom.Identity3()
	}
	p.m0 = make([]float64, n)
	p.ipinv = make([]geom.Mat3, n)
	for s := 0; s < n; s++ {
		m0 := 0.0
		var m1 geom.Vec3
		var m2 geom.Mat3
		for v := q.first[s]; v < q.first[s+1]; v++ {
			w := q.volumes[v] * q.stiffness[v]
			d := q.offsets[3*v : 3*v+3]
			m0 += w
			for k := 0; k < 3; k++ {
				m1[k] += w * d[k]
				for l := 0; l < 3; l++ {
					m2[3*k+l] += w * d[k] * d[l]
				}
			}
		}
		p.m0[s] = m0
		if !(m0 > 0) {
			continue
		}
		p.cbar[s] = m1.Scale(1 / m0)
		var I geom.Mat3
		for k := 0; k < 3; k++ {
			for l := 0; l < 3; l++ {
				I[3*k+l] = m2[3*k+l] - m0*p.cbar[s][k]*p.cbar[s][l]
				p.bw[s][3*k+l] = 3 * I[3*k+l] / m0
			}
		}
		// Pseudo-inverse: a region one voxel thick in some direction has no
		// second moment there (and no bending stiffness either).
		lam, V := geom.SymEigen(I)
		tol := 1e-12 * math.Max(lam[0], 0)
		for j := 0; j < 3; j++ {
			if lam[j] > tol {
				for k := 0; k < 3; k++ {
					for l := 0; l < 3; l++ {
						p.ipinv[s][3*k+l] += V[3*k+j] * V[3*l+j] / lam[j]
					}
				}
			}
		}
	}
}

// voxelRest sets A(d)⁻¹ = (I + αₚ + d_k βₚᵏ)⁻¹ at the voxels of sample
// s, failing when the plastic strain at a voxel leaves I + εₚ(d) without
// a clearly positive eigenvalue (above 0.05): the plastic strain's
// variation over the region is then too large for the multiplicative
// split.
func (c *DeformationGradientForceField) voxelRest(s int) error {
	p, q := c.plastic, &c.quad
	ep := &p.eps[s]
	for v := q.first[s]; v < q.first[s+1]; v++ {
		d := q.offsets[3*v : 3*v+3]
		e := ep[0]
		for k := 0; k < 3; k++ {
			axpy6(&e, d[k], &ep[k+1])
		}
		A := geom.Identity3().Add(e.full())
		if lam, _ := geom.SymEigen(A); !(lam[2] > 0.05) {
			return fmt.Errorf("the plastic strain at voxel %d leaves I + εₚ with eigenvalue %.3g: lower plasticMaxThreshold", v-q.first[s], lam[2])
		}
		p.qainv[v], _ = A.Inverse()
	}
	return nil
}

// flowVoxels is the flow rule of F332 sample s integrated over its
// voxels: the elastic strain at each voxel (Biot strain of Fₑ = F(d)
// A(d)⁻¹; sym(Fₑ) − I for Linear) is fitted by an affine field in the
// least-squares sense with the voxel weights — its centroid value ᾱₑ (the
// weighted mean) and gradients βₑ = I⁺ Σ_v w_v (d_v − c̄) ⊗ εₑ(d_v) —
// and the rule acts on those two parts as for the closed forms.
func (c *DeformationGradientForceField) flowVoxels(s int, x []float64) error {
	p, q := c.plastic, &c.quad
	if !(p.m0[s] > 0) {
		return nil
	}
	var F [4]geom.Mat3
	sampleF(&F, x, s)
	var s0 sym6
	var s1 [3]sym6
	cb := p.cbar[s]
	for v := q.first[s]; v < q.first[s+1]; v++ {
		d := q.offsets[3*v : 3*v+3]
		var Fq, Fe geom.Mat3
		for i := 0; i < 9; i++ {
			Fq[i] = F[0][i] + d[0]*F[1][i] + d[1]*F[2][i] + d[2]*F[3][i]
		}
		mulNN(&Fe, &Fq, &p.qainv[v])
		var ee geom.Mat3
		if c.MaterialName == material.NameLinear {
			ee = Fe.Sym().Sub(geom.Identity3())
		} else {
			ee = biotStrain(&Fe)
		}
		e := symOf(&ee)
		w := q.volumes[v] * q.stiffness[v]
		axpy6(&s0, w, &e)
		for l := 0; l < 3; l++ {
			axpy6(&s1[l], w*(d[l]-cb[l]), &e)
		}
	}
	var eb sym6
	axpy6(&eb, 1/p.m0[s], &s0)
	var eB [3]sym6
	P := &p.ipinv[s]
	for k := 0; k < 3; k++ {
		for l := 0; l < 3; l++ {
			if a := P[3*k+l]; a != 0 {
				axpy6(&eB[k], a, &s1[l])
			}
		}
	}
	return c.flowParts(s, &eb, &eB)
}
