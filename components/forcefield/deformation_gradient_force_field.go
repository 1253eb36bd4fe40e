package forcefield

import (
	"errors"
	"fmt"
	"math"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/material"
	"github.com/sofago/sofago/parallel"
)

// DeformationGradientForceField is the elastic energy of a solid sampled at
// integration points, each carrying its deformation gradient F (an F331
// state, written by a skinning mapping from frames: Gilles et al. 2011,
// Sec. 3.3–3.5; Faure et al. 2011, eq. 9–10) and its volume V_s (Gilles
// eq. 14, Faure Sec. 5.3):
//
//	W = Σ_s V_s [ (E_s/E) Ψ(F_s) + k/2 (det F_s − 1)² ],
//
// with Ψ a law of package material (StVenantKirchhoff, NeoHookean,
// StableNeoHookean, CorotationalLinear, Linear) for youngModulus E and
// poissonRatio ν, E_s an optional per-sample Young's modulus (every law is
// proportional to E at fixed ν), and k the bulkModulus of the optional
// volume-preservation term of Gilles appendix B. The "force" on a sample
// is the conjugate of F,
//
//	f_s = −∂W/∂F_s = −V_s [ (E_s/E) P(F_s) + k (J − 1) cof F_s ],  J = det F_s,
//
// and the mapping carries it to the frames (Jᵀ). The tangent is exact:
//
//	df_s = −V_s [ (E_s/E) dP(F_s)[dF] + k ((cof F : dF) cof F + (J − 1) d cof F[dF]) ]
//
// (the appendix's K ≈ −k ∇Jᵀ∇J drops the second, (J−1) term; keeping it
// makes the tangent the true derivative, so Newton converges
// quadratically). AddDForce linearises at the F of the most recent
// AddForce, whose stresses and law caches it reuses.
//
// Sample volumes (required), in order of precedence: SetVolumes from Go;
// the volumes field; the SampleVolumeProvider the samples link points to;
// the first SampleVolumeProvider in this node or an ancestor (an
// integration sampler of package shapefunction). Per-sample moduli likewise
// from SetYoungModuli, youngModulusPerSample, or that provider when it
// also implements SampleYoungModulusProvider; otherwise E is uniform.
// After the sample state is resized (samples recomputed at run time), call
// Reinit: it asks the providers again for what came from them.
//
// Second-order samples (an F332 state: F and ∂F/∂X at each sample's
// centre) integrate the energy over each sample's region instead of
// evaluating it at the centre (Faure et al. 2011 Sec. 5.3 and Table 1;
// Martin et al. 2010's elastons): from the region's polynomial moments
// m_α = ∫ (E/E_s) (X − X_s)^α dV given by the sampler (its order field),
// in closed form for CorotationalLinear (corotational strain, rotation of
// the centre's F, exact with order 2), Linear (order 2) and
// StVenantKirchhoff (Green–Lagrange strain, exact with order 4; order 2
// truncates the quartic terms), and by a quadrature over the region's
// voxels for NeoHookean and StableNeoHookean (or any law with quadrature =
// voxels). The forces and the tangent are exact in every case; see
// deformation_gradient_elastons.go. A sampler of order 0 (the midpoint
// rule) is refused for F332 samples: it ignores ∇F, so the bending and
// twisting of a region would have no stiffness. With shearIntegration =
// reduced the closed forms integrate the shear strains selectively
// (ε̃_ij(d) = ε_ij(d with d_i = d_j = 0), i ≠ j, in the rest axes): rigid
// frames with linear weights then bend along a bar like linear
// Timoshenko elements with one-point shear integration instead of
// shear-locking (see deformation_gradient_elastons.go).
//
// Plasticity (plasticYieldThreshold, plasticMaxThreshold, plasticCreep;
// off by default): the lecture notes' plastic elastons — per F332 sample a
// plastic membrane strain and three plastic bending strains subtracted
// from the strain of its region, updated once per step by the flow rule
// of the tetrahedral FEM — and per F331 sample a multiplicative plastic
// strain; see deformation_gradient_plasticity.go. The plastic strains
// are written to the JSON dump's objects section ("plasticStrain",
// "plasticBendingStrain").
//
// Sample loops run in parallel; each sample writes only its own slots, so
// results are bitwise identical for any number of workers.
type DeformationGradientForceField struct {
	graph.ObjectBase
	MaterialName           string     `toml:"materialName" doc:"material law: StVenantKirchhoff, NeoHookean, StableNeoHookean, CorotationalLinear, Linear (see package material)" enum:"StVenantKirchhoff,NeoHookean,StableNeoHookean,CorotationalLinear,Linear"`
	YoungModulus           float64    `toml:"youngModulus" doc:"Young's modulus E (of samples without their own)" unit:"Pa" range:"(0,inf)"`
	PoissonRatio           float64    `toml:"poissonRatio" doc:"Poisson's ratio ν" range:"(-1,0.5)"`
	BulkModulus            float64    `toml:"bulkModulus" doc:"k of the volume-preservation energy k/2 (det F − 1)² per unit volume (Gilles et al. 2011, appendix B); 0 disables it" unit:"Pa" range:"[0,inf)"`
	VolumesIn              []float64  `toml:"volumes" doc:"volume of each sample, in the order of the F331 state (default: from the sampler)" unit:"m^3" range:"[0,inf)"`
	YoungPerSampleIn       []float64  `toml:"youngModulusPerSample" doc:"Young's modulus of each sample (default: the sampler's, if it has them, else youngModulus)" unit:"Pa" range:"(0,inf)"`
	Samples                graph.Link `toml:"samples" doc:"sampler giving the sample volumes (a SampleVolumeProvider; for F332 samples also the region moments and voxels); default: volumes, else a sampler in this node or the nearest ancestor"`
	Quadrature             string     `toml:"quadrature" doc:"F332 samples: auto (moments where the energy is a polynomial over the region: CorotationalLinear, Linear, StVenantKirchhoff; voxels otherwise), moments (closed form from the sampler's region moments), or voxels (the law at the centre of every voxel of the region)" enum:"auto,moments,voxels"`
	ThinLaw                string     `toml:"thinLaw" doc:"F332 samples of thin regions (CorotationalLinear, Linear): full (the lecture's one isotropic C for every elaston) or reduced (on the strain-gradient terms of a sample its sampler reports thin, the law condensed across the thin directions: plane stress for a shell, uniaxial stress for a rod; with linear GMLS or affine nodes, which cannot relax the strain's change across the thickness, a thin region with ν ≠ 0 is otherwise too stiff in bending); needs a sampler giving the thin axes (MeshfreeSampler)" enum:"full,reduced"`
	ShearIntegration       string     `toml:"shearIntegration" doc:"F332 samples, closed forms (CorotationalLinear, Linear, StVenantKirchhoff): full (the energy of the whole strain field over the region) or reduced (selective reduced integration of shear in the rest axes: ε̃_ij(d) = ε_ij(d with d_i = d_j = 0) for i ≠ j, so ε_xy keeps only its z-variation, ε_xz its y-, ε_yz its x-variation; cures the shear locking of rigid frames along bars lying on an axis; refused for Affine3 and Quadratic3 frames, which do not lock and whose own bend it would leave without stiffness)" enum:"full,reduced"`
	ThinShearStabilization float64    `toml:"thinShearStabilization" doc:"F332 samples of thin regions (CorotationalLinear, Linear): α > 0 scales the transverse shear modulus of the membrane term of every sample its sampler reports thin (a shell's two shears with its normal, a rod's two with its axis) by h²/(h² + α ℓ²), h the sample's extent across, ℓ the node spacing at the sample (the stabilised Reissner–Mindlin shear of Lyly, Stenberg and Vihinen 1993): removes the transverse-shear locking of thin rods and shells whose nodes are several thicknesses apart, adding a shear compliance of order α (ℓ/L)²; 0 (default) is the lecture's law; needs a sampler giving thin axes and node spacings (MeshfreeSampler)" range:"[0,inf)"`
	// Plasticity: per sample, plastic membrane and bending strains (F332)
	// or a plastic strain (F331); see deformation_gradient_plasticity.go.
	Plasticity

	law       material.Law
	cacheSize int
	goVolumes []float64
	goYoung   []float64
	volFrom   int // 0 unset, 1 go, 2 field, 3 provider
	youngFrom int
	volProv   SampleVolumeProvider
	youngProv SampleYoungModulusProvider

	volume []float64 // V_s
	scale  []float64 // V_s E_s / E
	stress []float64 // P per sample at the last AddForce (9 per sample)
	dP     []float64 // dP per sample, AddDForce scratch (9 per sample)
	cache  []float64 // law cache per sample
	vcache []float64 // per sample [F (9), cof F (9), J] at the last AddForce (bulk term)

	// F332 samples (deformation_gradient_elastons.go).
	mode      f332Mode
	kernel    elastonKernel
	goOrder   int
	goMoments []float64
	goQuad    *sampleQuadrature
	order     int
	moments   []float64 // geom.NumMoments per sample
	quad      sampleQuadrature
	ecache    []elastonCache
	qF, qP    []float64 // voxels: F and P per quadrature point at the last AddForce
	qcache    []float64 // voxels: law cache per quadrature point
	qvcache   []float64 // voxels: bulk-term cache per quadrature point

	// plastic is the plastic state, nil when plasticity is off.
	plastic *samplePlastic

	runner parallel.Runner
	// Arguments of the current parallel pass (set before runner.run, so the
	// bodies are method values built once and nothing is allocated).
	passF, passX, passDF, passDX []float64
	passK                        float64
	forceBody, dforceBody        func(lo, hi int)
}

// SampleVolumeProvider is implemented by integration samplers (package
// shapefunction): the volume of each sample, in the order of the DOFs of
// the F331 state the samples live in. It is asked at Init and Reinit.
type SampleVolumeProvider interface {
	graph.Object
	SampleVolumes() ([]float64, error)
}

// SampleYoungModulusProvider is optionally implemented by samplers of
// heterogeneous materials: the Young's modulus of each sample (e.g. the
// mean over the voxels it integrates), or nil for a uniform material.
type SampleYoungModulusProvider interface {
	SampleYoungModuli() ([]float64, error)
}

// SampleMomentProvider is implemented by samplers that give the
// polynomial moments of each sample's region (F332 samples):
// geom.NumMoments numbers per sample, m_α = ∫ (E/E_s) (X − X_s)^α dV in
// geom's monomial numbering, zero above order.
type SampleMomentProvider interface {
	SampleMoments() (order int, moments []float64, err error)
}

// SampleQuadratureProvider is implemented by samplers that give the
// voxels of each sample's region (F332 samples with quadrature = voxels):
// the voxel centres relative to the sample (flat xyz), their volumes and
// their Young's moduli relative to the sample's E_s; sample s owns the
// entries [first[s], first[s+1]).
type SampleQuadratureProvider interface {
	SampleQuadrature() (offsets, volumes, stiffness []float64, first []int, err error)
}

// SampleThinAxesProvider is implemented by samplers that know which
// samples integrate thin regions (shapefunction.MeshfreeSampler), for
// thinLaw = reduced: per sample 0 (solid), 1 (a shell, normal = column 2
// of its axes) or 2 (a rod, axis = column 0), and its principal axes in
// the rest frame (orthonormal columns).
type SampleThinAxesProvider interface {
	SampleThinAxes() (kinds []int8, axes []geom.Mat3, err error)
}

// SampleNodeSpacingProvider is implemented by samplers that place the
// nodes too (shapefunction.MeshfreeSampler), for thinShearStabilization:
// per sample the node spacing ℓ there.
type SampleNodeSpacingProvider interface {
	SampleNodeSpacings() ([]float64, error)
}

// sampleQuadrature is the voxel quadrature of F332 samples.
type sampleQuadrature struct {
	offsets, volumes, stiffness []float64
	first                       []int
}

func init() {
	graph.Register(graph.TypeInfo{
		Name:    "DeformationGradientForceField",
		Kind:    graph.KindForceField,
		Summary: "Hyperelastic energy of integration samples carrying a deformation gradient (F331 state from a skinning mapping): Σ V_s Ψ(F_s) with any law of package material, per-sample volumes and moduli, optional volume-preservation term k/2 (J−1)² (Gilles et al. 2011, app. B); on F332 samples (F and ∇F) the energy integrated over each sample's region from its moments (elastons, Faure et al. 2011 Sec. 5.3: corotational and Linear exact at order 2, Green–Lagrange StVK at order 4) or over its voxels (other laws); exact forces and tangent. Plasticity with SOFA's fields (plasticYieldThreshold, plasticMaxThreshold, plasticCreep; off by default): per elaston plastic membrane and bending strains (additive in the closed forms, multiplicative per voxel with the voxel quadrature), per F331 sample a plastic strain; dumped in the objects section.",
		New:     func() graph.Object { return NewDeformationGradientForceField() },
	})
}

// NewDeformationGradientForceField returns a force field with the defaults
// of the other hyperelastic components: StVenantKirchhoff, E = 5000 Pa,
// ν = 0.45, no volume term.
func NewDeformationGradientForceField() *DeformationGradientForceField {
	return &DeformationGradientForceField{
		ObjectBase:       graph.ObjectBase{Name: "DeformationGradientForceField", TypeName: "DeformationGradientForceField"},
		MaterialName:     material.NameStVenantKirchhoff,
		YoungModulus:     5000,
		PoissonRatio:     0.45,
		Quadrature:       "auto",
		ShearIntegration: "full",
		Plasticity:       defaultPlasticity(),
	}
}

// Validate checks the fields that do not need the state.
func (c *DeformationGradientForceField) Validate() error {
	if _, err := material.New(c.MaterialName, c.YoungModulus, c.PoissonRatio); err != nil {
		return err
	}
	if !(c.BulkModulus >= 0) || math.IsInf(c.BulkModulus, 0) {
		return fmt.Errorf("bulkModulus = %g must be non-negative and finite", c.BulkModulus)
	}
	if len(c.VolumesIn) > 0 && c.Samples.IsSet() {
		return errors.New("give volumes or samples, not both")
	}
	switch c.ThinLaw {
	case "", "full":
	case "reduced":
		if c.Quadrature == "voxels" || (c.MaterialName != "CorotationalLinear" && c.MaterialName != "Linear") {
			return fmt.Errorf("thinLaw = reduced is defined on the closed forms of CorotationalLinear and Linear (a quadratic energy over the region), not for %s with quadrature = %s", c.MaterialName, c.Quadrature)
		}
	default:
		return fmt.Errorf("thinLaw = %q: want full or reduced", c.ThinLaw)
	}
	if !(c.ThinShearStabilization >= 0) || math.IsInf(c.ThinShearStabilization, 0) {
		return fmt.Errorf("thinShearStabilization = %g must be non-negative and finite", c.ThinShearStabilization)
	}
	if c.ThinShearStabilization > 0 && (c.Quadrature == "voxels" || (c.MaterialName != "CorotationalLinear" && c.MaterialName != "Linear")) {
		return fmt.Errorf("thinShearStabilization is defined on the closed forms of CorotationalLinear and Linear (a quadratic energy over the region), not for %s with quadrature = %s", c.MaterialName, c.Quadrature)
	}
	switch c.ShearIntegration {
	case "", "full":
	case "reduced":
		if c.Quadrature == "voxels" || !hasClosedForm(c.MaterialName) {
			return fmt.Errorf("shearIntegration = reduced is defined on the closed forms of CorotationalLinear, Linear and StVenantKirchhoff (strain measures polynomial over a region), not for %s with quadrature = %s", c.MaterialName, c.Quadrature)
		}
	default:
		return fmt.Errorf("shearIntegration = %q: want full or reduced", c.ShearIntegration)
	}
	if err := c.Plasticity.check(); err != nil {
		return err
	}
	if c.Quadrature == "moments" && !hasClosedForm(c.MaterialName) {
		return fmt.Errorf("quadrature = moments: %s has no closed-form integral over a region (CorotationalLinear, Linear and StVenantKirchhoff have): use quadrature = voxels or auto", c.MaterialName)
	}
	return nil
}

// hasClosedForm reports whether the energy of the law is a polynomial in
// the offset over a region of an F332 sample.
func hasClosedForm(law string) bool {
	switch law {
	case material.NameCorotationalLinear, material.NameLinear, material.NameStVenantKirchhoff:
		return true
	}
	return false
}

// SetMoments sets the region moments of F332 samples from Go (copied;
// geom.NumMoments per sample, zero above order), taking precedence over
// the sampler. Call Reinit (or Init) to apply them.
func (c *DeformationGradientForceField) SetMoments(order int, moments []float64) {
	c.goOrder, c.goMoments = order, append([]float64(nil), moments...)
}

// SetQuadrature sets the voxel quadrature of F332 samples from Go (see
// SampleQuadratureProvider; copied), taking precedence over the sampler.
// Call Reinit (or Init) to apply it.
func (c *DeformationGradientForceField) SetQuadrature(offsets, volumes, stiffness []float64, first []int) {
	c.goQuad = &sampleQuadrature{
		offsets:   append([]float64(nil), offsets...),
		volumes:   append([]float64(nil), volumes...),
		stiffness: append([]float64(nil), stiffness...),
		first:     append([]int(nil), first...),
	}
}

// Mode reports how F332 samples are integrated: "" for F331 samples,
// else "corotational", "linear", "green" (closed forms) or "voxels".
func (c *DeformationGradientForceField) Mode() string {
	return [...]string{"", "corotational", "linear", "green", "voxels"}[c.mode]
}

// SetVolumes sets the sample volumes from Go (copied; they take precedence
// over the field and the providers). Call Reinit (or Init) to apply them.
func (c *DeformationGradientForceField) SetVolumes(v []float64) {
	c.goVolumes = append([]float64(nil), v...)
}

// SetYoungModuli sets per-sample Young's moduli from Go (copied; nil
// returns to the field/provider/uniform default). Call Reinit (or Init).
func (c *DeformationGradientForceField) SetYoungModuli(E []float64) {
	c.goYoung = append([]float64(nil), E...)
	if E == nil {
		c.goYoung = nil
	}
}

// Volumes returns the sample volumes in use (after Init), as a view.
func (c *DeformationGradientForceField) Volumes() []float64 { return c.volume }

// Law returns the material law in use (nil before Init).
func (c *DeformationGradientForceField) Law() material.Law { return c.law }

// SetWorkers fixes the number of goroutines of the sample loops (0: all
// cores), for benchmarks and determinism tests.
func (c *DeformationGradientForceField) SetWorkers(n int) { c.runner.Workers = n }

// Init builds the law and reads the volumes and moduli of the samples of
// the node's F331 state.
func (c *DeformationGradientForceField) Init() error { return c.Wrap(c.initialise(false)) }

// Reinit re-reads volumes and moduli after the sample state was resized or
// after SetVolumes/SetYoungModuli.
func (c *DeformationGradientForceField) Reinit() error { return c.Wrap(c.initialise(true)) }

func (c *DeformationGradientForceField) initialise(reinit bool) error {
	if err := c.Validate(); err != nil {
		return err
	}
	law, err := material.New(c.MaterialName, c.YoungModulus, c.PoissonRatio)
	if err != nil {
		return err
	}
	c.law, c.cacheSize = law, law.CacheSize()
	n := -1
	c.mode = f332Off
	if c.Node != nil {
		st := c.Node.State()
		if st == nil {
			return errors.New("no mechanical state in this node: add an F331 MechanicalObject (mapped from the frames by a skinning mapping)")
		}
		switch name := st.Template().Name(); name {
		case graph.F331.Name():
			if c.ShearIntegration == "reduced" {
				return errors.New("shearIntegration = reduced needs F332 samples (it reduces the strain gradient ∂ε/∂X, which F331 samples do not carry)")
			}
		case graph.F332.Name():
			if err := c.checkReducedParents(); err != nil {
				return err
			}
			c.mode = f332Voxels
			if c.Quadrature != "voxels" && hasClosedForm(c.MaterialName) {
				c.mode = map[string]f332Mode{material.NameCorotationalLinear: f332Corotational, material.NameLinear: f332Linear, material.NameStVenantKirchhoff: f332Green}[c.MaterialName]
			}
		default:
			return fmt.Errorf("state %q has template %s; DeformationGradientForceField acts on F331 or F332 deformation-gradient samples", st.Base().Path(), name)
		}
		n = st.Size()
	}
	vol, err := c.resolveVolumes()
	if err != nil {
		return err
	}
	if n < 0 {
		n = len(vol)
	}
	if len(vol) != n {
		return fmt.Errorf("%d sample volumes for %d samples", len(vol), n)
	}
	for i, v := range vol {
		if !(v >= 0) || math.IsInf(v, 0) {
			return fmt.Errorf("volume of sample %d is %g; it must be non-negative and finite", i, v)
		}
	}
	young, err := c.resolveYoung()
	if err != nil {
		return err
	}
	if young != nil && len(young) != n {
		return fmt.Errorf("%d per-sample Young's moduli for %d samples", len(young), n)
	}
	c.volume = append(c.volume[:0], vol...)
	c.scale = make([]float64, n)
	for i := range c.scale {
		c.scale[i] = vol[i]
		if young != nil {
			E := young[i]
			if !(E > 0) || math.IsInf(E, 0) {
				return fmt.Errorf("Young's modulus of sample %d is %g; it must be positive and finite", i, E)
			}
			c.scale[i] *= E / c.YoungModulus
		}
		if c.mode != f332Off {
			// F332: the moments carry the volume; scale is E_s/E.
			c.scale[i] /= vol[i]
			if vol[i] == 0 {
				c.scale[i] = 0
			}
		}
	}
	if c.mode != f332Off {
		if err := c.initF332(n); err != nil {
			return err
		}
	}
	c.stress = make([]float64, 9*n)
	c.dP = make([]float64, 9*n)
	c.cache = make([]float64, c.cacheSize*n)
	c.vcache = nil
	if c.BulkModulus > 0 {
		c.vcache = make([]float64, volumeCacheSize*n)
	}
	c.forceBody, c.dforceBody = c.forceRange, c.dforceRange
	if c.mode != f332Off {
		c.forceBody, c.dforceBody = c.forceRange332, c.dforceRange332
	}
	return c.initPlasticity(n)
}

// checkReducedParents refuses shearIntegration = reduced when the
// samples are mapped from affine or quadratic frames. Those frames do not
// shear-lock (the exact bending field is in their span), and the shear
// gradients reduced integration drops are the only stiffness of some of
// their modes: with weights varying along x, the transverse part of a
// frame's first column (A_yx, A_zx: the frame's own bend of the centre
// line) enters the samples' F only through ∂F_yx/∂x and ∂F_zx/∂x, i.e.
// through ∂ε_xy/∂x and ∂ε_xz/∂x, so it would have no stiffness and the
// system would be singular (validation TestReducedShearAffineNullMode).
func (c *DeformationGradientForceField) checkReducedParents() error {
	if c.ShearIntegration != "reduced" {
		return nil
	}
	m := c.Node.Mapping()
	if m == nil || m.From() == nil {
		return nil
	}
	switch name := m.From().Template().Name(); name {
	case graph.Affine3.Name(), graph.Quadratic3.Name():
		return fmt.Errorf("shearIntegration = reduced with %s frames (state %q): it is meant for rigid frames, which shear-lock; %s frames do not, and the dropped shear gradients are the only stiffness of their frames' own bend (A_yx, A_zx along a bar), so the system would be singular: keep shearIntegration = full", name, m.From().Base().Path(), name)
	}
	return nil
}

// initShearStabilization sets the transverse-shear factors of the thin
// samples (thinShearStabilization = α): for each thin direction q_k of a
// sample (a shell's normal, a rod's two section axes) the shear of q_k
// with the in-plane directions (shell) or the axis (rod) is scaled by
// f_k = h_k²/(h_k² + α ℓ²), h_k² = 12 q_kᵀ S q_k / V the sample's extent
// along q_k from its second moments S, ℓ the sampler's node spacing there.
func (c *DeformationGradientForceField) initShearStabilization(n int) error {
	tp, ok1 := c.volProv.(SampleThinAxesProvider)
	sp, ok2 := c.volProv.(SampleNodeSpacingProvider)
	if c.volProv == nil || !ok1 || !ok2 {
		return errors.New("thinShearStabilization needs the thin directions and node spacings of every sample: take the samples from a MeshfreeSampler")
	}
	kinds, axes, err := tp.SampleThinAxes()
	if err != nil {
		return fmt.Errorf("thin axes from %q: %w", c.volProv.Base().Path(), err)
	}
	ell, err := sp.SampleNodeSpacings()
	if err != nil {
		return fmt.Errorf("node spacings from %q: %w", c.volProv.Base().Path(), err)
	}
	if len(kinds) != n || len(axes) != n || len(ell) != n {
		return fmt.Errorf("thin axes and node spacings of %d, %d, %d samples for %d F332 samples", len(kinds), len(axes), len(ell), n)
	}
	a := c.ThinShearStabilization
	for s := range c.ecache {
		ec := &c.ecache[s]
		ec.shearF = [3]float64{1, 1, 1}
		if kinds[s] == 0 {
			continue
		}
		M := momentMatrix(c.moments[geom.NumMoments*s : geom.NumMoments*(s+1)])
		V := M[0][0]
		Q := axes[s]
		f := func(k int) float64 {
			q := Q.Col(k)
			h2 := 0.0
			for i := 0; i < 3; i++ {
				for j := 0; j < 3; j++ {
					h2 += q[i] * M[1+i][1+j] * q[j]
				}
			}
			h2 *= 12 / V
			return h2 / (h2 + a*ell[s]*ell[s])
		}
		// Pairs 01, 12, 20 in the sample's axes.
		if kinds[s] == 1 { // shell, normal = column 2: shears 12 and 20
			fn := f(2)
			ec.shearF = [3]float64{1, fn, fn}
		} else { // rod, axis = column 0: shears 01 and 20
			ec.shearF = [3]float64{f(1), 1, f(2)}
		}
		ec.thin, ec.thinQ, ec.stab = kinds[s], Q, true
	}
	return nil
}

// initF332 reads the moments (and the voxel quadrature) of n F332
// samples and sets up their integration.
func (c *DeformationGradientForceField) initF332(n int) error {
	switch {
	case c.goMoments != nil:
		c.order, c.moments = c.goOrder, c.goMoments
	case c.volProv != nil && c.goVolumes == nil && len(c.VolumesIn) == 0:
		mp, ok := c.volProv.(SampleMomentProvider)
		if !ok {
			return fmt.Errorf("F332 samples need the moments of their regions, which %q does not give (use DenseSampler or SparseSampler)", c.volProv.Base().Path())
		}
		order, m, err := mp.SampleMoments()
		if err != nil {
			return fmt.Errorf("sample moments from %q: %w", c.volProv.Base().Path(), err)
		}
		c.order, c.moments = order, m
	default:
		return errors.New("F332 samples need the moments of their regions: take the volumes from a sampler (DenseSampler or SparseSampler with order = 2 or 4), not from the volumes field")
	}
	if len(c.moments) != geom.NumMoments*n {
		return fmt.Errorf("%d region moments for %d F332 samples, want %d per sample", len(c.moments), n, geom.NumMoments)
	}
	if c.order < 2 {
		return fmt.Errorf("the sampler's order = %d integrates F332 samples by the midpoint rule, which ignores ∇F: the bending and twisting of a region would have no stiffness (the system would be singular); set order = 2 on the sampler (exact for CorotationalLinear and Linear) or 4 (exact for StVenantKirchhoff), or use F331 samples", c.order)
	}
	lambda, mu := material.Lame(c.YoungModulus, c.PoissonRatio)
	c.kernel = elastonKernel{mode: c.mode, lambda: lambda, mu: mu, reduced: c.ShearIntegration == "reduced"}
	if c.mode == f332Corotational {
		c.kernel.coro = c.law.(*material.CorotationalLinear)
	}
	if c.mode != f332Voxels {
		if c.BulkModulus > 0 {
			return errors.New("bulkModulus on F332 samples needs quadrature = voxels (det F is cubic over a region: no closed form of order ≤ 4)")
		}
		c.ecache = make([]elastonCache, n)
		if c.ThinLaw == "reduced" {
			tp, ok := c.volProv.(SampleThinAxesProvider)
			if c.volProv == nil || !ok {
				return errors.New("thinLaw = reduced needs the thin directions of every sample: take the samples from a MeshfreeSampler")
			}
			kinds, axes, err := tp.SampleThinAxes()
			if err != nil {
				return fmt.Errorf("thin axes from %q: %w", c.volProv.Base().Path(), err)
			}
			if len(kinds) != n || len(axes) != n {
				return fmt.Errorf("thin axes of %d samples for %d F332 samples", len(kinds), n)
			}
			for s := range c.ecache {
				c.ecache[s].thin, c.ecache[s].thinQ, c.ecache[s].thinLaw = kinds[s], axes[s], kinds[s] != 0
			}
		}
		if c.ThinShearStabilization > 0 {
			if err := c.initShearStabilization(n); err != nil {
				return err
			}
		}
		return nil
	}
	switch {
	case c.goQuad != nil:
		c.quad = *c.goQuad
	case c.volProv != nil:
		qp, ok := c.volProv.(SampleQuadratureProvider)
		if !ok {
			return fmt.Errorf("quadrature = voxels needs the voxels of each sample's region, which %q does not give", c.volProv.Base().Path())
		}
		off, vol, stiff, first, err := qp.SampleQuadrature()
		if err != nil {
			return fmt.Errorf("sample quadrature from %q: %w", c.volProv.Base().Path(), err)
		}
		c.quad = sampleQuadrature{offsets: off, volumes: vol, stiffness: stiff, first: first}
	default:
		return errors.New("quadrature = voxels needs the voxels of each sample's region: take the samples from a DenseSampler or SparseSampler")
	}
	q := &c.quad
	if len(q.first) != n+1 || q.first[0] != 0 || len(q.volumes) != q.first[n] || len(q.stiffness) != q.first[n] || len(q.offsets) != 3*q.first[n] {
		return fmt.Errorf("voxel quadrature: inconsistent lengths for %d samples", n)
	}
	np := q.first[n]
	c.qF = make([]float64, 9*np)
	c.qP = make([]float64, 9*np)
	c.qcache = make([]float64, c.cacheSize*np)
	c.qvcache = nil
	if c.BulkModulus > 0 {
		c.qvcache = make([]float64, volumeCacheSize*np)
	}
	return nil
}

func (c *DeformationGradientForceField) resolveVolumes() ([]float64, error) {
	switch {
	case c.goVolumes != nil:
		return c.goVolumes, nil
	case len(c.VolumesIn) > 0:
		return c.VolumesIn, nil
	case c.Samples.IsSet():
		p, ok := c.Samples.Object.(SampleVolumeProvider)
		if !ok {
			return nil, fmt.Errorf("samples %q is not a sampler (it does not implement SampleVolumeProvider)", c.Samples.Path)
		}
		c.volProv = p
	default:
		if c.volProv == nil {
			c.volProv = sampleVolumeProvider(c.Node, graph.Link{})
		}
		if c.volProv == nil {
			return nil, errors.New("no sample volumes: give volumes, a samples link to a sampler, or put a sampler in this node or an ancestor")
		}
	}
	v, err := c.volProv.SampleVolumes()
	if err != nil {
		return nil, fmt.Errorf("sample volumes from %q: %w", c.volProv.Base().Path(), err)
	}
	return v, nil
}

func (c *DeformationGradientForceField) resolveYoung() ([]float64, error) {
	switch {
	case c.goYoung != nil:
		return c.goYoung, nil
	case len(c.YoungPerSampleIn) > 0:
		return c.YoungPerSampleIn, nil
	}
	if c.volProv != nil && c.goVolumes == nil && len(c.VolumesIn) == 0 {
		if yp, ok := c.volProv.(SampleYoungModulusProvider); ok {
			E, err := yp.SampleYoungModuli()
			if err != nil {
				return nil, fmt.Errorf("sample Young's moduli from %q: %w", c.volProv.Base().Path(), err)
			}
			return E, nil
		}
	}
	return nil, nil
}

// sampleGrain is the least number of samples per parallel chunk.
const sampleGrain = 64

// AddForce implements graph.ForceField: f_s −= V_s [(E_s/E) P(F_s) + k (J−1) cof F_s].
func (c *DeformationGradientForceField) AddForce(f, x, v []float64) {
	c.passF, c.passX = f, x
	c.runner.Run(len(c.scale), sampleGrain, c.forceBody)
	c.passF, c.passX = nil, nil
}

func (c *DeformationGradientForceField) forceRange(lo, hi int) {
	f, x, cs := c.passF, c.passX, c.cacheSize
	k := c.BulkModulus
	var Fe, Pe geom.Mat3
	for s := lo; s < hi; s++ {
		F := x[9*s : 9*s+9]
		P := c.stress[9*s : 9*s+9]
		if c.plastic != nil {
			// Fₑ = F (I + εₚ)⁻¹, P = P(Fₑ) (I + εₚ)⁻ᵀ.
			A := &c.plastic.ainv[s]
			mulNN(&Fe, (*geom.Mat3)(F), A)
			c.law.StressCached(Fe[:], Pe[:], c.cache[cs*s:cs*s+cs])
			mulNT(P, &Pe, A)
		} else {
			c.law.StressCached(F, P, c.cache[cs*s:cs*s+cs])
		}
		a := c.scale[s]
		fs := f[9*s : 9*s+9]
		for i := range 9 {
			fs[i] -= a * P[i]
		}
		if k > 0 {
			vc := c.vcache[volumeCacheSize*s : volumeCacheSize*s+volumeCacheSize : volumeCacheSize*s+volumeCacheSize]
			copy(vc[0:9], F)
			cofactorTo(vc[9:18], F)
			J := F[0]*vc[9] + F[1]*vc[10] + F[2]*vc[11]
			vc[18] = J
			b := c.volume[s] * k * (J - 1)
			for i := range 9 {
				fs[i] -= b * vc[9+i]
			}
		}
	}
}

// cofactorTo writes cof F = det(F) F⁻ᵀ (rows: F₁×F₂, F₂×F₀, F₀×F₁).
func cofactorTo(C, F []float64) {
	C, F = C[:9:9], F[:9:9]
	C[0] = F[4]*F[8] - F[5]*F[7]
	C[1] = F[5]*F[6] - F[3]*F[8]
	C[2] = F[3]*F[7] - F[4]*F[6]
	C[3] = F[7]*F[2] - F[8]*F[1]
	C[4] = F[8]*F[0] - F[6]*F[2]
	C[5] = F[6]*F[1] - F[7]*F[0]
	C[6] = F[1]*F[5] - F[2]*F[4]
	C[7] = F[2]*F[3] - F[0]*F[5]
	C[8] = F[0]*F[4] - F[1]*F[3]
}

// AddDForce implements graph.ForceField: df_s −= kFactor V_s [(E_s/E) dP[dF] +
// k ((cof F : dF) cof F + (J−1) d cof F[dF])] at the F of the last AddForce.
// There is no damping (bFactor is ignored).
func (c *DeformationGradientForceField) AddDForce(df, dx []float64, kFactor, bFactor float64) {
	if kFactor == 0 {
		return
	}
	c.passDF, c.passDX, c.passK = df, dx, kFactor
	c.runner.Run(len(c.scale), sampleGrain, c.dforceBody)
	c.passDF, c.passDX = nil, nil
}

func (c *DeformationGradientForceField) dforceRange(lo, hi int) {
	df, dx, kf, cs := c.passDF, c.passDX, c.passK, c.cacheSize
	k := c.BulkModulus
	var dFe, dPe geom.Mat3
	for s := lo; s < hi; s++ {
		dF := dx[9*s : 9*s+9 : 9*s+9]
		dP := c.dP[9*s : 9*s+9 : 9*s+9]
		if c.plastic != nil {
			A := &c.plastic.ainv[s]
			mulNN(&dFe, (*geom.Mat3)(dF), A)
			c.law.StressDifferentialCached(dFe[:], dPe[:], c.cache[cs*s:cs*s+cs])
			mulNT(dP, &dPe, A)
		} else {
			c.law.StressDifferentialCached(dF, dP, c.cache[cs*s:cs*s+cs])
		}
		a := kf * c.scale[s]
		out := df[9*s : 9*s+9 : 9*s+9]
		for i := range 9 {
			out[i] -= a * dP[i]
		}
		if k > 0 {
			vc := c.vcache[volumeCacheSize*s : volumeCacheSize*s+volumeCacheSize : volumeCacheSize*s+volumeCacheSize]
			cof, J := vc[9:18], vc[18]
			dot := 0.0
			for i := range 9 {
				dot += cof[i] * dF[i]
			}
			b := kf * c.volume[s] * k
			// dP now holds d cof F[dF].
			cofactorDifferentialTo(dP, vc[0:9], dF)
			for i := range 9 {
				out[i] -= b * (dot*cof[i] + (J-1)*dP[i])
			}
		}
	}
}

// volumeCacheSize is the per-sample cache of the volume term: F, cof F
// and J at the last AddForce (d cof F[dF] is bilinear in F and dF).
const volumeCacheSize = 19

// cofactorDifferentialTo writes d cof F[dF]: with F's rows a, b, c, cof F
// has rows b×c, c×a, a×b, so its differential has rows
// db×c + b×dc, dc×a + c×da, da×b + a×db.
func cofactorDifferentialTo(D, F, dF []float64) {
	D, F, dF = D[:9:9], F[:9:9], dF[:9:9]
	for r := 0; r < 3; r++ {
		i, j := 3*((r+1)%3), 3*((r+2)%3) // rows r+1 and r+2
		D[3*r] = dF[i+1]*F[j+2] - dF[i+2]*F[j+1] + F[i+1]*dF[j+2] - F[i+2]*dF[j+1]
		D[3*r+1] = dF[i+2]*F[j] - dF[i]*F[j+2] + F[i+2]*dF[j] - F[i]*dF[j+2]
		D[3*r+2] = dF[i]*F[j+1] - dF[i+1]*F[j] + F[i]*dF[j+1] - F[i+1]*dF[j]
	}
}

// PotentialEnergy implements graph.ForceField: Σ V_s [(E_s/E) Ψ(F_s) + k/2 (J−1)²]
// (F332 samples: the integrals over the regions).
func (c *DeformationGradientForceField) PotentialEnergy(x []float64) float64 {
	if c.mode != f332Off {
		return c.energy332(x)
	}
	W := 0.0
	for s := range c.scale {
		F := geom.Mat3(x[9*s : 9*s+9])
		if c.plastic != nil {
			var Fe geom.Mat3
			mulNN(&Fe, &F, &c.plastic.ainv[s])
			F = Fe
		}
		W += c.scale[s] * c.law.Energy(F)
		if c.BulkModulus > 0 {
			J := F.Det()
			W += c.volume[s] * c.BulkModulus / 2 * (J - 1) * (J - 1)
		}
	}
	return W
}

// BlockDiagonalStiffness implements graph.BlockDiagonalStiffness: the
// stress of a sample depends on its own F (and ∇F) only.
func (c *DeformationGradientForceField) BlockDiagonalStiffness() bool { return true }
