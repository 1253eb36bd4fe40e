package forcefield

import (
	"fmt"
	"math"

	"github.com/sofago/sofago/example"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/parallel"
)

// ExampleBasedForceField is the example-based elastic potential of Martin,
// Thomaszewski, Grinspun & Gross 2011 ("Example-based elastic materials";
// the lecture notes' "Art-Directable Elastic Potentials", Sec. VI) on a
// tetrahedral mesh or on the F331 or F332 samples of a frame-based model.
// It adds to whatever material law the node has (a
// TetrahedronFEMForceField, a TetrahedronHyperelasticityFEMForceField) a
// term that pulls the object toward the space of deformations an artist
// showed by example poses, so that any force-based solver (implicit Euler,
// Newton, Newmark) and every mapping and collision of the framework work
// with it — where Koyama et al.'s ShapeMatching does the same in a
// position-based solver of its own.
//
// Descriptors. The descriptor of a configuration x is the Green strain
// Eₑ(x) = ½(FₑᵀFₑ − I) of every element e (F = Ds Dm⁻¹), stored as 6
// numbers whose Euclidean norm is the Frobenius norm (package example).
// The example poses x¹ … xⁿ (mesh files such as cmd/posegen writes, inline
// positions) give the example descriptors Eₑ¹ … Eₑⁿ; includeRest adds the
// rest pose (Eₑ = 0) as one more example.
//
// Example manifold (lecture notes, "Example Manifold"). The interpolated
// descriptors E(w) = Σⱼ wⱼ Eʲ with Σⱼ wⱼ = 1, one weight vector per group
// of elements: the whole mesh (manifold = "global"), groups of elements by
// groupIndices or groupBoxes on the rest centroids ("groups": local
// examples; elements in no group get no example term), or each element
// alone ("elements"). With groups, groupExamples gives each group its own
// examples, and groupFalloff weights each element's term (in the
// projection and the energy alike) by a smoothstep of its distance from
// its group box's faces, so that the term ends smoothly at a region's edge
// rather than with a jump of its stress, which the material outside feels
// (scenes/example_fem_sneaker.toml).
//
// Projection. Per group g, every evaluation solves
//
//	w*(x) = argmin_w  Σ_{e∈g} Vₑ ‖Eₑ(x) − Eₑ(w)‖²_F   subject to Σw = 1
//	                                                (and w ≥ 0: nonNegativeWeights)
//
// in closed form: the least-squares weights from the example matrix's
// pseudo-inverse, precomputed once (example.Manifold, by SVD; the normal
// matrix and its pseudo-inverse for the constrained case), so the
// projection costs (N − 1) dot products per element of the group plus
// O(N²) per group; with w ≥ 0 an exact active-set solve on the normal
// equations when the unconstrained weights leave the simplex
// (example.Manifold.ProjectSimplex; Koyama's negative-weight elimination is
// not used because it does not minimise the distance).
//
// Potential, force and tangent. With Sₑ = Eₑ(x) − Eₑ(w*(x)),
//
//	W_ex(x) = k/2 Σₑ Vₑ ‖Sₑ‖²_F.
//
// Because w* minimises the same weighted norm, ∂W/∂w = 0 at w* (on the
// active face, with w ≥ 0), and the envelope theorem gives the force with
// w held fixed: per element the first Piola–Kirchhoff stress Pₑ = k Fₑ Sₑ
// (that of an StVK-like energy whose rest strain is Eₑ(w*)), vertex forces
// fᵢ = −Vₑ Pₑ ∇Nᵢ. The tangent is exact: w* moves with x, and
//
//	dPₑ = k (dFₑ Sₑ + Fₑ (dEₑ − dEₑ(w*))),   dEₑ = sym(Fₑᵀ dFₑ),
//	dEₑ(w*) = Σⱼ dwⱼ* Eₑʲ,   dw* = ∂w*/∂E · dE   (a reduction over the group),
//
// so K couples all elements of a group through a rank-(N − 1) term
// (dropping it — the Gauss–Newton-like tangent with w frozen — fails the
// finite-difference fixture: 3.5 % off on the test bar,
// TestExampleTangentNeedsWeightTerm).
// It is applied matrix-free (CG, PCG with matrix-free products), so no
// StiffnessAssembler: the sparse direct solvers cannot take it.
//
// Frame-based models. On an F331 state (the deformation gradients of the
// integration samples of a frame model, mapped from Rigid3 or Affine3
// frames by a skinning mapping; Gilles et al. 2011, Faure et al. 2011) the
// elements are the samples, F is the state itself, Vₑ the sample volumes
// (volumes, or the sampler's, as DeformationGradientForceField reads them),
// and the force on a sample is the conjugate of F, −Vₑ Pₑ, which the
// mapping carries to the frames. The examples are poses of the frames
// (exampleFrames), turned into the samples' example gradients by the
// node's mapping at Init; groupBoxes select samples by the sampler's rest
// positions.
//
// On F332 samples (F and ∇F at each sample's centre) the term is
// integrated over each sample's region instead, W_s = k/2 ∫ ‖E(d) −
// E(w; d)‖² dV with the Green strain E(d) quadratic in the offset d, in
// closed form from the region's moments up to order 4 (the sampler's
// order = 4): the descriptor of a sample is its 10 Green-strain terms
// transformed by the Cholesky factor of the moment matrix, so bending and
// twisting inside a region count (example_based_elastons.go).
//
// Every example pose is an equilibrium of the term (Sₑ = 0 there); with a
// material law on, the rest pose and the examples compete and k sets the
// balance. AddDForce linearises at the x of the most recent AddForce.
// Element loops run in parallel, group sums in a fixed order, so results
// are bitwise identical for any number of workers.
type ExampleBasedForceField struct {
	graph.ObjectBase
	Stiffness          float64       `toml:"stiffness" doc:"k of W = k/2 Σ V‖E(x) − E(w*(x))‖²_F: the example term's stiffness, comparable with the material's Young's modulus (k ≈ E pulls about as hard toward the example manifold as the material pulls toward rest)" unit:"Pa" range:"[0,inf)" required:"true"`
	Examples           []string      `toml:"examples" doc:"example poses as mesh files (relative to the scene file, any format MeshLoader reads, e.g. written by cmd/posegen) holding the rest mesh's vertices in the same order"`
	ExamplePositions   [][][]float64 `toml:"examplePositions" doc:"example poses given inline, after the files: for each example, one [x, y, z] per point" unit:"m"`
	IncludeRest        bool          `toml:"includeRest" doc:"add the rest pose (zero strain) to the examples, as its first point; false: the manifold is the examples' affine hull only, so a single example is an attractor the material competes with"`
	Manifold           string        `toml:"manifold" doc:"global: one example manifold for the whole mesh; groups: one per group of elements (groupIndices or groupBoxes; local examples: elements in no group get no example term); elements: one per element" enum:"global,groups,elements"`
	GroupIndices       []int         `toml:"groupIndices" doc:"manifold = groups: group of each tetrahedron (0-based; −1: none)" range:"[-1,inf)"`
	GroupBoxes         [][]float64   `toml:"groupBoxes" doc:"manifold = groups: boxes [xmin, ymin, zmin, xmax, ymax, zmax]; a tetrahedron whose rest centroid lies in box k is in group k (the last such box wins), one in no box has no example term" unit:"m"`
	GroupExamples      [][]int       `toml:"groupExamples" doc:"manifold = groups: for each group the examples of its own manifold (0-based indices into the examples, files first, then examplePositions), the same number for every group; the rest pose comes first in every group with includeRest. Default: every example in every group. Local examples made from one simulated state need it: another group's example equals that state in this group, and a manifold holding the unbulged state exerts no force on it" range:"[0,inf)"`
	GroupFalloff       float64       `toml:"groupFalloff" doc:"manifold = groups with groupBoxes: the example stiffness of a tetrahedron ramps (smoothstep) from 0 on a face of its group's box to k at this distance inside (rest centroids), so the term ends smoothly at the region's edge instead of as a jump of its stress, which the material outside would feel; the weight multiplies the element's volume in both the projection and the energy, so the force and tangent stay exact. Let boxes reach beyond the mesh where a group ends at its surface. 0: k throughout" unit:"m" range:"[0,inf)"`
	NonNegativeWeights bool          `toml:"nonNegativeWeights" doc:"constrain the weights to w ≥ 0 (the projection is then onto the examples' convex hull, solved exactly); false: affine combinations, extrapolating beyond the examples"`
	ExampleFrames      [][][]float64 `toml:"exampleFrames" doc:"on F331 or F332 samples: example poses of the frames the samples are mapped from, for each example one coordinate row per frame of the mapping's parent state (Rigid3 [tx ty tz qx qy qz qw], Affine3 [t A]); the node's mapping gives the samples' example deformation gradients"`
	Volumes            []float64     `toml:"volumes" doc:"on F331 samples: volume of each sample (default: from the sampler, as DeformationGradientForceField; F332 samples take their region moments from the sampler)" unit:"m^3" range:"[0,inf)"`
	Samples            graph.Link    `toml:"samples" doc:"on F331 or F332 samples: the sampler giving the sample volumes (and the rest positions groupBoxes select by); default: one in this node or the nearest ancestor"`

	mesh *tetElements    // tetrahedra (nil on F331 samples)
	f332 *exampleRegions // F332 samples: the region integrals (nil otherwise)
	// F331 samples: their volumes and rest positions (nil without a
	// sample-point provider).
	sampleVol, samplePos []float64
	runner               parallel.Runner
	argF                 []float64 // F331: the force vector of the current pass
	asm                  *tetAssembler
	st                   graph.State
	nEx                  int // examples (N = points of each manifold, includeRest included)
	terms                exampleTerms

	linearised bool
	argX       []float64
	argK       float64
	forceBody  func(lo, hi int)
	dforceBody func(lo, hi int)
	energyBody func(lo, hi int)
}

func init() {
	graph.Register(graph.TypeInfo{
		Name: "ExampleBasedForceField",
		Kind: graph.KindForceField,
		Summary: "Example-based elastic potential on a tetrahedral mesh or a frame model's F331 samples (F332: integrated over each sample's region from its order-4 moments) (Martin et al. 2011; lecture notes Sec. VI), added to any material law: " +
			"W = k/2 Σ V‖E(x) − E(w*(x))‖²_F with E the elements' Green strains, E(w) = Σ wⱼ Eʲ the examples' (pose files, inline, frame poses), " +
			"w* the closest point of the global, per-group or per-element example manifold (Σw = 1, optional w ≥ 0); force by the envelope theorem, exact tangent (dw*/dx included).",
		New: func() graph.Object { return NewExampleBasedForceField() },
	})
}

// NewExampleBasedForceField returns the force field with its defaults: a
// global manifold of the examples alone, weights unconstrained in sign.
func NewExampleBasedForceField() *ExampleBasedForceField {
	return &ExampleBasedForceField{
		ObjectBase: graph.ObjectBase{Name: "ExampleBasedForceField", TypeName: "ExampleBasedForceField"},
		Manifold:   "global",
	}
}

// Validate checks the fields that depend on each other.
func (c *ExampleBasedForceField) Validate() error {
	if !(c.Stiffness >= 0) || math.IsInf(c.Stiffness, 0) {
		return fmt.Errorf("stiffness = %g must be non-negative and finite", c.Stiffness)
	}
	switch c.Manifold {
	case "global", "groups", "elements":
	default:
		return fmt.Errorf("manifold = %q is not one of global, groups, elements", c.Manifold)
	}
	if c.Manifold == "groups" {
		switch {
		case len(c.GroupIndices) == 0 && len(c.GroupBoxes) == 0:
			return fmt.Errorf("manifold = \"groups\" needs groupIndices or groupBoxes")
		case len(c.GroupIndices) > 0 && len(c.GroupBoxes) > 0:
			return fmt.Errorf("give groupIndices or groupBoxes, not both")
		}
	} else if len(c.GroupIndices) > 0 || len(c.GroupBoxes) > 0 {
		return fmt.Errorf("groupIndices and groupBoxes need manifold = \"groups\" (manifold is %q)", c.Manifold)
	}
	if (len(c.GroupExamples) > 0 || c.GroupFalloff != 0) && c.Manifold != "groups" {
		return fmt.Errorf("groupExamples and groupFalloff need manifold = \"groups\" (manifold is %q)", c.Manifold)
	}
	if !(c.GroupFalloff >= 0) || math.IsInf(c.GroupFalloff, 0) {
		return fmt.Errorf("groupFalloff = %g must be non-negative and finite", c.GroupFalloff)
	}
	if c.GroupFalloff > 0 && len(c.GroupBoxes) == 0 {
		return fmt.Errorf("groupFalloff measures from the faces of groupBoxes; give groupBoxes")
	}
	for g, l := range c.GroupExamples {
		if len(l) != len(c.GroupExamples[0]) {
			return fmt.Errorf("groupExamples[%d] has %d examples, groupExamples[0] %d: every group's manifold needs the same number", g, len(l), len(c.GroupExamples[0]))
		}
		if len(l) == 0 && !c.IncludeRest {
			return fmt.Errorf("groupExamples[%d] is empty and includeRest is false: the group has no example", g)
		}
	}
	for k, b := range c.GroupBoxes {
		if len(b) != 6 {
			return fmt.Errorf("groupBoxes[%d] has %d numbers, want 6: [xmin, ymin, zmin, xmax, ymax, zmax]", k, len(b))
		}
		for a := 0; a < 3; a++ {
			if b[a] > b[a+3] {
				return fmt.Errorf("groupBoxes[%d]: min[%d] = %g is greater than max[%d] = %g", k, a, b[a], a, b[a+3])
			}
		}
	}
	if len(c.Examples)+len(c.ExamplePositions)+len(c.ExampleFrames) == 0 {
		return fmt.Errorf("no example poses: give examples (mesh files) or examplePositions (tetrahedra), or exampleFrames (F331 samples)")
	}
	return nil
}

// Init reads the mesh (or the samples), the examples and builds the
// manifolds.
func (c *ExampleBasedForceField) Init() error {
	if err := c.Validate(); err != nil {
		return c.Wrap(err)
	}
	if st := c.Node.State(); st != nil && (st.Template().Name() == graph.F331.Name() || st.Template().Name() == graph.F332.Name()) {
		return c.Wrap(c.initSamples(st))
	}
	if len(c.ExampleFrames) > 0 || len(c.Volumes) > 0 || c.Samples.IsSet() {
		return c.Wrap(fmt.Errorf("exampleFrames, volumes and samples are for F331 samples; on a tetrahedral mesh give examples or examplePositions"))
	}
	if len(c.Examples)+len(c.ExamplePositions) == 0 {
		return c.Wrap(fmt.Errorf("no example poses for the tetrahedral mesh: give examples (mesh files) or examplePositions"))
	}
	mesh, st, tets, err := tetMesh(&c.ObjectBase)
	if err != nil {
		return c.Wrap(err)
	}
	src := example.PoseSource{Files: c.Examples, Inline: c.ExamplePositions, Points: st.Size(),
		Tetrahedra: tets, Owner: fmt.Sprintf("state %q", st.Base().Name), Unit: "points"}
	if sc := c.Node.Scene(); sc != nil {
		src.Resolve = sc.ResolvePath
	}
	poses, err := example.ReadPoses(src)
	if err != nil {
		return c.Wrap(err)
	}
	c.mesh, c.st, c.sampleVol, c.samplePos = mesh, st, nil, nil
	return c.Wrap(c.build(c.gradientsOf(poses)))
}

// SetExamples replaces the example poses (flat [x y z] per point each) and
// rebuilds the manifolds, for code that builds scenes directly; call it
// after Init.
func (c *ExampleBasedForceField) SetExamples(poses [][]float64) error {
	if c.mesh == nil {
		return fmt.Errorf("SetExamples on tetrahedra after Init (F331 samples: SetExampleGradients)")
	}
	for k, x := range poses {
		if len(x) != 3*c.mesh.numPoints {
			return fmt.Errorf("example %d has %d coordinates, want %d", k, len(x), 3*c.mesh.numPoints)
		}
	}
	return c.build(c.gradientsOf(poses))
}

// gradientsOf returns the deformation gradients of the tetrahedra (9 per
// element) in each pose.
func (c *ExampleBasedForceField) gradientsOf(poses [][]float64) [][]float64 {
	mesh := c.mesh
	grads := make([][]float64, len(poses))
	for k, x := range poses {
		grads[k] = make([]float64, 9*mesh.numElements())
		for e := range mesh.numElements() {
			mesh.gradientTo(e, x, grads[k][9*e:])
		}
	}
	return grads
}

// SetExampleGradients replaces the examples of F331 samples by their
// deformation gradients (9 numbers per sample, row-major, each) and
// rebuilds the manifolds, for code that builds scenes directly; call it
// after Init.
func (c *ExampleBasedForceField) SetExampleGradients(grads [][]float64) error {
	if c.sampleVol == nil {
		return fmt.Errorf("SetExampleGradients on F331 samples after Init (tetrahedra: SetExamples)")
	}
	fs := 9
	if c.f332 != nil {
		fs = f332Size
	}
	for k, g := range grads {
		if len(g) != fs*len(c.sampleVol) {
			return fmt.Errorf("example %d has %d numbers, want %d (%d per sample)", k, len(g), fs*len(c.sampleVol), fs)
		}
	}
	return c.build(grads)
}

// initSamples sets the force field up on the F331 state st: volumes and
// rest positions from the sampler (or the volumes field), example
// gradients through the node's mapping from exampleFrames.
func (c *ExampleBasedForceField) initSamples(st graph.State) error {
	tmpl := st.Template().Name()
	if len(c.Examples)+len(c.ExamplePositions) > 0 {
		return fmt.Errorf("state %q holds %s samples: give their examples as exampleFrames (poses of the frames), not examples or examplePositions", st.Base().Name, tmpl)
	}
	if len(c.ExampleFrames) == 0 {
		return fmt.Errorf("no example poses for the %s samples of state %q: give exampleFrames", tmpl, st.Base().Name)
	}
	n := st.Size()
	prov := sampleVolumeProvider(c.Node, c.Samples)
	switch {
	case len(c.Volumes) > 0:
		c.sampleVol = append([]float64(nil), c.Volumes...)
	case prov != nil:
		v, err := prov.SampleVolumes()
		if err != nil {
			return fmt.Errorf("sample volumes from %q: %w", prov.Base().Path(), err)
		}
		c.sampleVol = v
	case c.Samples.IsSet():
		return fmt.Errorf("samples %q is not a sampler (it does not implement SampleVolumeProvider)", c.Samples.Path)
	default:
		return fmt.Errorf("no sample volumes: give volumes, a samples link to a sampler, or put a sampler in this node or an ancestor")
	}
	if len(c.sampleVol) != n {
		return fmt.Errorf("%d sample volumes for %d samples", len(c.sampleVol), n)
	}
	for i, v := range c.sampleVol {
		if !(v > 0) || math.IsInf(v, 0) {
			return fmt.Errorf("volume of sample %d is %g; it must be positive and finite", i, v)
		}
	}
	c.samplePos = nil
	if pp, ok := prov.(interface{ SamplePoints() ([]float64, error) }); ok && prov != nil {
		p, err := pp.SamplePoints()
		if err != nil {
			return fmt.Errorf("sample points from %q: %w", prov.Base().Path(), err)
		}
		if len(p) == 3*n {
			c.samplePos = p
		}
	}
	if c.Manifold == "groups" && len(c.GroupBoxes) > 0 && c.samplePos == nil {
		return fmt.Errorf("groupBoxes select samples by their rest positions, which no sampler gives here: use groupIndices")
	}
	c.f332 = nil
	fs := 9
	if tmpl == graph.F332.Name() {
		mp, ok := prov.(SampleMomentProvider)
		if !ok || prov == nil || len(c.Volumes) > 0 {
			return fmt.Errorf("F332 samples: the example term integrates the squared Green strain over each sample's region, from the region moments a sampler gives (DenseSampler or SparseSampler with order = 4), not from volumes")
		}
		order, mom, err := mp.SampleMoments()
		if err != nil {
			return fmt.Errorf("sample moments from %q: %w", prov.Base().Path(), err)
		}
		r, err := newExampleRegions(order, mom, n)
		if err != nil {
			return fmt.Errorf("moments of %q: %w", prov.Base().Path(), err)
		}
		c.f332, fs = r, f332Size
	}
	// The examples' gradients through the node's mapping.
	m := c.Node.Mapping()
	if m == nil || m.To() != st {
		return fmt.Errorf("exampleFrames need the mapping that computes state %q from the frames (a skinning mapping in this node)", st.Base().Name)
	}
	parent := m.From()
	cs := parent.Template().CoordSize()
	grads := make([][]float64, len(c.ExampleFrames))
	buf := make([]float64, fs*n)
	for k, pose := range c.ExampleFrames {
		if len(pose) != parent.Size() {
			return fmt.Errorf("exampleFrames[%d] has %d frames but state %q has %d", k, len(pose), parent.Base().Name, parent.Size())
		}
		flat := make([]float64, 0, cs*len(pose))
		for i, row := range pose {
			if len(row) != cs {
				return fmt.Errorf("exampleFrames[%d][%d] has %d numbers, want %d (%s coordinates)", k, i, len(row), cs, parent.Template().Name())
			}
			for _, v := range row {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return fmt.Errorf("exampleFrames[%d][%d] is not finite", k, i)
				}
			}
			flat = append(flat, row...)
		}
		if parent.Template().Name() == "Rigid3" {
			for i := range pose {
				q := geom.Quat{flat[cs*i+3], flat[cs*i+4], flat[cs*i+5], flat[cs*i+6]}
				if !(q.Norm() > 0) {
					return fmt.Errorf("exampleFrames[%d][%d] has a zero quaternion", k, i)
				}
				q = q.Normalized()
				copy(flat[cs*i+3:cs*i+7], q[:])
			}
		}
		m.Apply(buf, flat)
		grads[k] = append([]float64(nil), buf...)
	}
	m.Apply(buf, parent.Vec(graph.Position)) // the mapping linearises at the last Apply: back to the state
	c.mesh, c.st = nil, st
	return c.build(grads)
}

// sampleVolumeProvider returns the sampler of the samples link, else the
// first SampleVolumeProvider in node or its ancestors (nil: none).
func sampleVolumeProvider(node *graph.Node, link graph.Link) SampleVolumeProvider {
	if link.IsSet() {
		p, _ := link.Object.(SampleVolumeProvider)
		return p
	}
	for nd := node; nd != nil; nd = nd.Parent {
		for _, o := range nd.Objects {
			if p, ok := o.(SampleVolumeProvider); ok {
				return p
			}
		}
	}
	return nil
}

// numElements returns the number of tetrahedra or samples.
func (c *ExampleBasedForceField) numElements() int {
	if c.mesh != nil {
		return c.mesh.numElements()
	}
	return len(c.sampleVol)
}

// build computes the examples' strains from their deformation gradients
// grads (9 per element each), groups the elements and builds the
// manifolds.
func (c *ExampleBasedForceField) build(grads [][]float64) error {
	mesh := c.mesh
	ne := c.numElements()
	vol := c.sampleVol
	var centre func(e int) geom.Vec3
	if mesh != nil {
		vol = mesh.vol
		rest := c.st.Vec(graph.RestPosition)
		centre = func(e int) geom.Vec3 {
			var p geom.Vec3
			for _, v := range mesh.vertices(e) {
				p = p.Add(geom.At(rest, v))
			}
			return p.Scale(0.25)
		}
	} else {
		centre = func(e int) geom.Vec3 { return geom.At(c.samplePos, e) }
	}
	groupOf := make([]int, ne)
	ng := 1
	switch c.Manifold {
	case "elements":
		for e := range groupOf {
			groupOf[e] = e
		}
		ng = ne
	case "groups":
		item := "tetrahedron"
		if mesh == nil {
			item = "sample"
		}
		spec := example.GroupSpec{Indices: c.GroupIndices, Boxes: c.GroupBoxes, AllowNone: true, Item: item}
		of, n, err := spec.Assign(ne, centre)
		if err != nil {
			return err
		}
		groupOf, ng = of, n
	}
	var sel [][]int
	if len(c.GroupExamples) > 0 {
		if len(c.GroupExamples) != ng {
			return fmt.Errorf("groupExamples has %d lists for %d groups", len(c.GroupExamples), ng)
		}
		off := 0
		if c.IncludeRest {
			off = 1
		}
		sel = make([][]int, ng)
		for g, l := range c.GroupExamples {
			if off == 1 {
				sel[g] = append(sel[g], 0)
			}
			for _, j := range l {
				if j < 0 || j >= len(grads) {
					return fmt.Errorf("groupExamples[%d] names example %d of %d (0-based)", g, j, len(grads))
				}
				sel[g] = append(sel[g], j+off)
			}
		}
	}
	c.nEx = len(grads)
	t := &c.terms
	if c.f332 != nil {
		t.fsz, t.dsz = f332Size, exampleRegionDesc
		t.descOf, t.ddescOf = c.f332.desc, c.f332.ddesc
		vol = c.f332.ones
	} else {
		t.fsz, t.dsz = 9, example.DescSize
		t.descOf = func(_ int, F, d []float64) { example.PutGreenStrain(d, (*geom.Mat3)(F)) }
		t.ddescOf = func(_ int, F, dF, d []float64) {
			example.PutGreenStrainDifferential(d, (*geom.Mat3)(F), (*geom.Mat3)(dF))
		}
	}
	// Example strains per element: exStrain[k][dsz e : dsz (e+1)].
	var exStrain [][]float64
	if c.IncludeRest {
		exStrain = append(exStrain, make([]float64, t.dsz*ne))
	}
	for _, g := range grads {
		s := make([]float64, t.dsz*ne)
		for e := 0; e < ne; e++ {
			t.descOf(e, g[t.fsz*e:t.fsz*e+t.fsz], s[t.dsz*e:t.dsz*e+t.dsz])
		}
		exStrain = append(exStrain, s)
	}
	if c.GroupFalloff > 0 {
		// Per-element weights: smoothstep of the distance of the rest
		// centroid from the nearest face of its group's box. An element
		// of weight 0 (its centroid on a face) leaves its group: it has no
		// term, and the manifold's row weights must be positive.
		wv := make([]float64, len(vol))
		left := make([]int, ng)
		for e := range vol {
			wv[e] = vol[e]
			if g := groupOf[e]; g >= 0 {
				wv[e] *= falloffWeight(c.GroupBoxes[g], centre(e), c.GroupFalloff)
				if wv[e] == 0 {
					groupOf[e] = -1
				} else {
					left[g]++
				}
			}
		}
		for g, n := range left {
			if n == 0 {
				return fmt.Errorf("groupFalloff = %g leaves no %s of groupBoxes[%d] a positive weight (every centroid on a face of the box)", c.GroupFalloff, map[bool]string{true: "tetrahedron", false: "sample"}[mesh != nil], g)
			}
		}
		vol = wv
	}
	if err := c.terms.build(groupOf, ng, vol, exStrain, sel, c.Stiffness, c.NonNegativeWeights); err != nil {
		return err
	}
	c.forceBody = c.forceRange
	c.dforceBody = c.dforceRange
	c.energyBody = c.energyRange
	c.terms.runner = &c.runner
	if mesh != nil {
		if c.asm == nil || c.asm.mesh != mesh {
			c.asm = newTetAssembler(mesh)
		}
		c.asm.runner.Workers = c.runner.Workers
		c.terms.getF = func(s int, F []float64) { mesh.gradientTo(int(c.terms.elem[s]), c.argX, F) }
	} else {
		c.asm = nil
		fs := t.fsz
		c.terms.getF = func(s int, F []float64) {
			e := int(c.terms.elem[s])
			copy(F, c.argX[fs*e:fs*e+fs])
		}
	}
	c.terms.getDF = c.terms.getF
	c.linearised = false
	return nil
}

// falloffWeight is the example stiffness factor of an element with rest
// centroid p in group box b: smoothstep(d/w), d the distance of p from
// the box's nearest face, 1 beyond w.
func falloffWeight(b []float64, p geom.Vec3, w float64) float64 {
	d := math.Inf(1)
	for a := 0; a < 3; a++ {
		d = math.Min(d, math.Min(p[a]-b[a], b[a+3]-p[a]))
	}
	r := math.Max(0, math.Min(1, d/w))
	return r * r * (3 - 2*r)
}

// SetWorkers fixes the number of workers of the element loops (0:
// GOMAXPROCS).
func (c *ExampleBasedForceField) SetWorkers(n int) {
	c.runner.Workers = n
	if c.asm != nil {
		c.asm.setWorkers(n)
	}
}

// NumGroups returns the number of example manifolds.
func (c *ExampleBasedForceField) NumGroups() int { return len(c.terms.groups) }

// NumPoints returns N, the number of points of every manifold (the
// examples, or a group's groupExamples, and the rest pose first when
// includeRest).
func (c *ExampleBasedForceField) NumPoints() int { return c.terms.n }

// Weights returns the weights w* of group g (the rest pose's first when
// includeRest, then the examples', or those of groupExamples[g] in its
// order) at the most recent AddForce (do not modify).
func (c *ExampleBasedForceField) Weights(g int) []float64 {
	n := c.terms.n
	return c.terms.lin.w[n*g : n*(g+1)]
}

// Group returns the group of element e, −1 when it has no example term.
func (c *ExampleBasedForceField) Group(e int) int { return c.terms.groupOfElem[e] }

// AddForce implements graph.ForceField: f += −∂W/∂x at x, projecting
// onto the manifolds there; it caches what AddDForce needs.
func (c *ExampleBasedForceField) AddForce(f, x, v []float64) {
	if c.forceBody == nil {
		return
	}
	c.argF = f
	c.evaluate(&c.terms.lin, x, true)
	c.argF = nil
	c.linearised = true
	if c.mesh != nil {
		c.asm.accumulate(f)
	}
}

// evaluate projects x onto the manifolds into ev and, with forces, writes
// the element forces into the assembler's element buffer.
func (c *ExampleBasedForceField) evaluate(ev *exampleEval, x []float64, forces bool) {
	t := &c.terms
	c.argX = x
	t.cur = ev
	t.runner.Run(t.numSlots(), elementGrain, t.descBody)
	t.solveGroups(ev)
	if forces {
		t.runner.Run(t.numSlots(), elementGrain, c.forceBody)
	} else {
		t.runner.Run(t.numSlots(), elementGrain, c.energyBody)
	}
	c.argX = nil
	t.cur = nil
}

// AddDForce implements graph.ForceField: df += kFactor·K·dx with the exact
// tangent at the x of the most recent AddForce (at the state's position if
// there was none).
func (c *ExampleBasedForceField) AddDForce(df, dx []float64, kFactor, bFactor float64) {
	if c.forceBody == nil || kFactor == 0 {
		return
	}
	t := &c.terms
	if !c.linearised {
		if c.mesh == nil {
			c.argF = make([]float64, len(df)) // forces discarded
		}
		c.evaluate(&t.lin, c.st.Vec(graph.Position), true)
		c.argF = nil
		c.linearised = true
	}
	c.argX, c.argK, c.argF = dx, kFactor, df
	t.runner.Run(t.numSlots(), elementGrain, t.ddescBody)
	t.solveGroupDifferentials()
	t.runner.Run(t.numSlots(), elementGrain, c.dforceBody)
	c.argX, c.argF = nil, nil
	if c.mesh != nil {
		c.asm.accumulate(df)
	}
}

// PotentialEnergy implements graph.ForceField: W_ex(x), projecting x onto
// the manifolds (the AddDForce linearisation is left untouched).
func (c *ExampleBasedForceField) PotentialEnergy(x []float64) float64 {
	if c.forceBody == nil {
		return 0
	}
	t := &c.terms
	c.evaluate(&t.tmp, x, false)
	w := 0.0
	for _, e := range t.tmp.energy {
		w += e
	}
	return w
}

// forceRange: per slot, F and the descriptor are in lin; the residual,
// the stress P = k F S and the vertex forces −V P ∇Nᵢ.
func (c *ExampleBasedForceField) forceRange(lo, hi int) {
	t := &c.terms
	ev := t.cur
	for s := lo; s < hi; s++ {
		e := int(t.elem[s])
		if c.f332 != nil {
			c.f332.force(e, ev.F[36*s:36*s+36], t.residual(s, ev), t.k, c.argF[36*e:36*e+36])
			continue
		}
		F := (*geom.Mat3)(ev.F[9*s : 9*s+9])
		S := example.Tensor(t.residual(s, ev))
		P := F.Mul(S).Scale(t.k)
		if c.mesh != nil {
			c.mesh.nodalForces(e, &P, -t.vol[s], c.asm.elem[12*e:])
			continue
		}
		// A sample's force is the conjugate of F: −V P.
		out := c.argF[9*e : 9*e+9 : 9*e+9]
		for i := range out {
			out[i] -= t.vol[s] * P[i]
		}
	}
}

// energyRange: per slot, the energy k/2 V ‖S‖².
func (c *ExampleBasedForceField) energyRange(lo, hi int) {
	t := &c.terms
	ev := t.cur
	for s := lo; s < hi; s++ {
		S := t.residual(s, ev)
		ev.energy[s] = 0.5 * t.k * t.vol[s] * dotDesc(S, S)
	}
}

// dforceRange: per slot, dP = k (dF S + F (dE − dE(w*))) and the force
// differentials −kFactor V dP ∇Nᵢ.
func (c *ExampleBasedForceField) dforceRange(lo, hi int) {
	t := &c.terms
	ev := &t.lin
	for s := lo; s < hi; s++ {
		e := int(t.elem[s])
		if c.f332 != nil {
			c.f332.dforce(e, ev.F[36*s:36*s+36], c.argX[36*e:36*e+36], ev.res[60*s:60*s+60], t.strainChange(s), t.k*c.argK, c.argF[36*e:36*e+36])
			continue
		}
		F := (*geom.Mat3)(ev.F[9*s : 9*s+9])
		var dF geom.Mat3
		if c.mesh != nil {
			dF = c.mesh.gradient(e, c.argX)
		} else {
			copy(dF[:], c.argX[9*e:9*e+9])
		}
		S := example.Tensor(ev.res[6*s:])
		dS := example.Tensor(t.strainChange(s))
		dP := dF.Mul(S).Add(F.Mul(dS)).Scale(t.k)
		if c.mesh != nil {
			c.mesh.nodalForces(e, &dP, -t.vol[s]*c.argK, c.asm.elem[12*e:])
			continue
		}
		out := c.argF[9*e : 9*e+9 : 9*e+9]
		for i := range out {
			out[i] -= t.vol[s] * c.argK * dP[i]
		}
	}
}

// exampleTerms is the element-level machinery of the example potential,
// independent of how an element's deformation gradient is obtained: slots
// are the elements that have an example term, ordered group by group (so
// a group's descriptors are contiguous, as its manifold's rows).
type exampleTerms struct {
	k      float64
	n      int // points per manifold
	nonNeg bool
	// fsz numbers of an element's deformation (9: F; 36: F and ∇F of an
	// F332 sample), dsz of its descriptor (6: E in descriptor form; 60:
	// the region-integrated Green strain of an F332 sample).
	fsz, dsz int
	// frozenWeights drops dw*/dx from the tangent (w held at w*): the
	// Gauss–Newton-like approximation, only for the test that shows the
	// term is needed.
	frozenWeights bool
	// Per slot.
	elem []int32   // element of the slot
	vol  []float64 // rest volume (times the groupFalloff weight)
	// Per element: its group (−1: none).
	groupOfElem []int
	groups      []exampleGroup
	// Per slot: group and slices of the manifold rows of the slot.
	slotGroup []int32
	// Evaluations: lin (the last AddForce: AddDForce linearises there) and
	// tmp (PotentialEnergy).
	lin, tmp exampleEval
	cur      *exampleEval
	// AddDForce scratch: dF per chunk of the slot loop, descriptor
	// change, per-slot contributions, per-group weight changes.
	dFScratch, dd, dcontrib, dw []float64
	// Simplex scratch and group sums (N − 1), one per chunk of the group
	// loop.
	work []*example.SimplexWork
	sums [][]float64
	// The force field's element loops (its tetAssembler's runner).
	runner *parallel.Runner
	// Loop bodies bound to the current evaluation (method values built
	// once).
	descBody, ddescBody, groupBody, dgroupBody func(lo, hi int)
	getF                                       func(s int, F []float64) // writes the slot's F (front end)
	getDF                                      func(s int, dF []float64)
	// descOf writes the descriptor of element e at F (dsz numbers);
	// ddescOf its differential along dF.
	descOf  func(e int, F, d []float64)
	ddescOf func(e int, F, dF, d []float64)
}

// exampleGroup is one manifold and its slots [first, first+count).
type exampleGroup struct {
	m            *example.Manifold
	first, count int
}

// exampleEval is one evaluation: per slot F (9), the strain descriptor
// (6), the residual descriptor E − E(w*) (6), contributions to the group
// sums (N − 1), the energy; per group the weights and the free set.
type exampleEval struct {
	F, desc, res, contrib, energy []float64
	w                             []float64
	free                          []bool
}

func (ev *exampleEval) size(slots, groups, n, fsz, dsz int) {
	*ev = exampleEval{
		F: make([]float64, fsz*slots), desc: make([]float64, dsz*slots), res: make([]float64, dsz*slots),
		contrib: make([]float64, max(n-1, 0)*slots), energy: make([]float64, slots),
		w: make([]float64, n*groups), free: make([]bool, n*groups),
	}
}

// groupGrain is the grain of the parallel loop over groups (per-element
// manifolds: one small solve each).
const groupGrain = 64

// build sets up the slots and manifolds: groupOf gives each element's
// group (−1: none) among ng; exStrain the manifold points' strain
// descriptors over all elements (t.dsz per element each); sel, when not
// nil, the points of each group's manifold (indices into exStrain, the
// same number N for every group; nil: all of them); vol the weight of
// each element's descriptor rows in the projection and the energy.
func (t *exampleTerms) build(groupOf []int, ng int, vol []float64, exStrain [][]float64, sel [][]int, k float64, nonNeg bool) error {
	t.k, t.n, t.nonNeg = k, len(exStrain), nonNeg
	if sel != nil {
		t.n = len(sel[0])
	}
	ds := t.dsz
	t.groupOfElem = groupOf
	// Slots group by group, elements in increasing order within a group.
	count := make([]int, ng)
	for _, g := range groupOf {
		if g >= 0 {
			count[g]++
		}
	}
	first := make([]int, ng+1)
	for g := 0; g < ng; g++ {
		first[g+1] = first[g] + count[g]
	}
	slots := first[ng]
	t.elem = make([]int32, slots)
	t.vol = make([]float64, slots)
	t.slotGroup = make([]int32, slots)
	next := append([]int(nil), first[:ng]...)
	for e, g := range groupOf {
		if g < 0 {
			continue
		}
		s := next[g]
		next[g]++
		t.elem[s], t.vol[s], t.slotGroup[s] = int32(e), vol[e], int32(g)
	}
	t.groups = make([]exampleGroup, ng)
	for g := 0; g < ng; g++ {
		rows := ds * count[g]
		pts := make([][]float64, t.n)
		for j := range pts {
			src := exStrain[j]
			if sel != nil {
				src = exStrain[sel[g][j]]
			}
			pts[j] = make([]float64, rows)
			for i := 0; i < count[g]; i++ {
				e := int(t.elem[first[g]+i])
				copy(pts[j][ds*i:ds*i+ds], src[ds*e:ds*e+ds])
			}
		}
		rho := make([]float64, rows)
		for i := 0; i < count[g]; i++ {
			for r := 0; r < ds; r++ {
				rho[ds*i+r] = t.vol[first[g]+i]
			}
		}
		m, err := example.NewManifold(pts, rho)
		if err != nil {
			return fmt.Errorf("example manifold of group %d: %w", g, err)
		}
		t.groups[g] = exampleGroup{m: m, first: first[g], count: count[g]}
	}
	t.lin.size(slots, ng, t.n, t.fsz, ds)
	t.tmp.size(slots, ng, t.n, t.fsz, ds)
	m1 := max(t.n-1, 0)
	t.dFScratch = make([]float64, t.fsz*(slots/elementGrain+1))
	t.dd = make([]float64, ds*slots)
	t.dcontrib = make([]float64, m1*slots)
	t.dw = make([]float64, t.n*ng)
	t.work = make([]*example.SimplexWork, ng/groupGrain+1)
	t.sums = make([][]float64, len(t.work))
	for i := range t.work {
		t.work[i] = example.NewSimplexWork(t.n)
		t.sums[i] = make([]float64, m1)
	}
	t.descBody = t.descRange
	t.ddescBody = t.ddescRange
	t.groupBody = t.groupRange
	t.dgroupBody = t.dgroupRange
	return nil
}

func (t *exampleTerms) numSlots() int { return len(t.elem) }

// rowOf returns the group of slot s and the slot's row offset in its
// manifold.
func (t *exampleTerms) rowOf(s int) (*exampleGroup, int) {
	g := &t.groups[t.slotGroup[s]]
	return g, t.dsz * (s - g.first)
}

// proj returns the vector whose dot products with a group's descriptors
// give the projection's sums: the pseudo-inverse rows (unconstrained) or
// the weighted directions (normal equations, for w ≥ 0).
func (t *exampleTerms) proj(m *example.Manifold, j int) []float64 {
	if t.nonNeg {
		return m.WeightedDir(j)
	}
	return m.Pinv(j)
}

// descRange: per slot, F (from the front end), E and the contributions
// proj_j · E to the group sums.
func (t *exampleTerms) descRange(lo, hi int) {
	ev, m1, fs, ds := t.cur, t.n-1, t.fsz, t.dsz
	for s := lo; s < hi; s++ {
		F := ev.F[fs*s : fs*s+fs : fs*s+fs]
		t.getF(s, F)
		d := ev.desc[ds*s : ds*s+ds : ds*s+ds]
		if ds == example.DescSize { // the Green strain of F, inline (the function value costs 10% of the projection)
			example.PutGreenStrain(d, (*geom.Mat3)(F))
		} else {
			t.descOf(int(t.elem[s]), F, d)
		}
		g, r := t.rowOf(s)
		for j := 1; j <= m1; j++ {
			ev.contrib[m1*s+j-1] = dotDesc(t.proj(g.m, j)[r:r+ds:r+ds], d)
		}
	}
}

// dotDesc returns p·d for descriptors (6 numbers unrolled).
func dotDesc(p, d []float64) float64 {
	if len(d) == example.DescSize {
		p = p[:example.DescSize:example.DescSize]
		return p[0]*d[0] + p[1]*d[1] + p[2]*d[2] + p[3]*d[3] + p[4]*d[4] + p[5]*d[5]
	}
	x := 0.0
	for i, v := range d {
		x += p[i] * v
	}
	return x
}

// solveGroups sums every group's contributions in slot order and solves
// for its weights (in parallel over groups when there are many).
func (t *exampleTerms) solveGroups(ev *exampleEval) {
	t.cur = ev
	t.runner.Run(len(t.groups), groupGrain, t.groupBody)
}

func (t *exampleTerms) groupRange(lo, hi int) {
	ev, n, m1 := t.cur, t.n, t.n-1
	ws, b := t.work[lo/groupGrain], t.sums[lo/groupGrain]
	for gi := lo; gi < hi; gi++ {
		g := &t.groups[gi]
		clear(b)
		for s := g.first; s < g.first+g.count; s++ {
			c := ev.contrib[m1*s : m1*s+m1]
			for j := range b {
				b[j] += c[j]
			}
		}
		w := ev.w[n*gi : n*gi+n]
		free := ev.free[n*gi : n*gi+n]
		if t.nonNeg {
			for j := 1; j < n; j++ {
				b[j-1] -= g.m.WeightedDirBase(j)
			}
			g.m.ProjectSimplex(b, w, free, ws)
		} else {
			g.m.WeightsFromPinv(b, w)
		}
	}
}

// residual writes the slot's residual E − E(w*) into ev.res and returns
// it (dsz numbers; example.Tensor makes a 6-number one a tensor).
func (t *exampleTerms) residual(s int, ev *exampleEval) []float64 {
	g, r := t.rowOf(s)
	ds := t.dsz
	w := ev.w[t.n*int(t.slotGroup[s]):]
	base := g.m.Base()[r : r+ds : r+ds]
	res := ev.res[ds*s : ds*s+ds : ds*s+ds]
	d := ev.desc[ds*s : ds*s+ds : ds*s+ds]
	for i := range res {
		res[i] = d[i] - base[i]
	}
	for j := 1; j < t.n; j++ {
		wj := w[j]
		if wj == 0 {
			continue
		}
		dir := g.m.Dir(j)[r : r+ds : r+ds]
		for i := range res {
			res[i] -= wj * dir[i]
		}
	}
	return res
}

// ddescRange: per slot, dE = sym(Fᵀ dF) at the linearisation and its
// contributions to the group sums.
func (t *exampleTerms) ddescRange(lo, hi int) {
	ev, m1, fs, ds := &t.lin, t.n-1, t.fsz, t.dsz
	k := fs * (lo / elementGrain)
	dF := t.dFScratch[k : k+fs : k+fs] // the chunk's slot (see tetSolid.scratch)
	for s := lo; s < hi; s++ {
		t.getDF(s, dF)
		d := t.dd[ds*s : ds*s+ds : ds*s+ds]
		if ds == example.DescSize {
			example.PutGreenStrainDifferential(d, (*geom.Mat3)(ev.F[9*s:9*s+9]), (*geom.Mat3)(dF))
		} else {
			t.ddescOf(int(t.elem[s]), ev.F[fs*s:fs*s+fs:fs*s+fs], dF, d)
		}
		g, r := t.rowOf(s)
		for j := 1; j <= m1; j++ {
			t.dcontrib[m1*s+j-1] = dotDesc(t.proj(g.m, j)[r:r+ds:r+ds], d)
		}
	}
}

// solveGroupDifferentials computes every group's weight change dw*.
func (t *exampleTerms) solveGroupDifferentials() {
	t.runner.Run(len(t.groups), groupGrain, t.dgroupBody)
}

func (t *exampleTerms) dgroupRange(lo, hi int) {
	ev, n, m1 := &t.lin, t.n, t.n-1
	ws, b := t.work[lo/groupGrain], t.sums[lo/groupGrain]
	for gi := lo; gi < hi; gi++ {
		g := &t.groups[gi]
		clear(b)
		for s := g.first; s < g.first+g.count; s++ {
			c := t.dcontrib[m1*s : m1*s+m1]
			for j := range b {
				b[j] += c[j]
			}
		}
		dw := t.dw[n*gi : n*gi+n]
		if t.frozenWeights {
			clear(dw)
			continue
		}
		if t.nonNeg {
			g.m.SimplexDifferential(b, dw, ev.free[n*gi:n*gi+n], ws)
		} else {
			sum := 0.0
			for j := 1; j < n; j++ {
				dw[j] = b[j-1]
				sum += b[j-1]
			}
			dw[0] = -sum
		}
	}
}

// strainChange turns the descriptor change of slot s into dE − dE(w*)
// in place and returns it (dsz numbers; after ddesc and the group
// differentials; once per slot and AddDForce).
func (t *exampleTerms) strainChange(s int) []float64 {
	g, r := t.rowOf(s)
	ds := t.dsz
	dw := t.dw[t.n*int(t.slotGroup[s]):]
	d := t.dd[ds*s : ds*s+ds : ds*s+ds]
	for j := 1; j < t.n; j++ {
		wj := dw[j]
		if wj == 0 {
			continue
		}
		dir := g.m.Dir(j)[r : r+ds : r+ds]
		for i := range d {
			d[i] -= wj * dir[i]
		}
	}
	return d
}
