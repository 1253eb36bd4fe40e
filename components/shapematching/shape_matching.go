package shapematching

import (
	"fmt"
	"math"

	"github.com/sofago/sofago/example"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
)

// ShapeMatching is region-based shape matching (Müller, Heidelberger,
// Teschner & Gross 2005, convolved over overlapping regions as in Rivers &
// James 2007 and Koyama, Takayama, Umetani & Igarashi 2012, Sec. 3) with
// Koyama et al.'s example-based goals (Sec. 4) when example poses are given.
// It acts on the Vec3 state of its node and is integrated by a
// ShapeMatchingSolver in its node or above.
//
// Regions. Region r is centred at particle r: the particle and the particles
// within regionSize edges of it in the tetrahedral mesh of the node's
// topology (regions = "ring"; regionSize = 1 is the paper's 1-ring), or the
// particles within w lattice
// steps on every axis for particles on a grid (regions = "lattice",
// regionSize = w, FastLSM). Each particle i takes the effective mass
// m̃ᵢ = mᵢ/|Nᵢ|, |Nᵢ| the number of regions holding it, mᵢ from the node's
// mass (its row sums, the lumped mass for a consistent one).
//
// Shape matching (Sec. 3). For each region, with rest and current centres
// of mass c⁰ = Σ m̃ᵢxᵢ⁰/Σ m̃ᵢ and c = Σ m̃ᵢxᵢ/Σ m̃ᵢ (eq. 1 prints x⁰ in c, a
// typo: c is the current centre), qᵢ = xᵢ⁰ − c⁰ and pᵢ = xᵢ − c,
//
//	Apq = Σ m̃ᵢ pᵢqᵢᵀ,  A = Apq (Σ m̃ᵢ qᵢqᵢᵀ)⁻¹         (eq. 1)
//
// R is the rotation of the best rigid fit, the polar rotation of Apq
// (Müller et al. 2005, Sec. 3.3; regionRotation: warm-started Newton, robust
// on flat and inverted regions). The goal of particle i from region r is
// g_{r,i} = R·S̃·qᵢ + c (eq. 3; S̃ = I without examples, eq. 2), and its goal
// gᵢ the average over the regions holding it. Because the centres use the
// same effective masses, Σᵢ mᵢ(gᵢ − xᵢ) = Σ_r Σ_{i∈r} m̃ᵢ(g_{r,i} − xᵢ) = 0,
// and without examples each region's goals exert no torque about c: the
// shape-matching term conserves linear and angular momentum.
//
// Examples (Sec. 4). A region's deformation in the frame of its best-fit
// rotation is Ŝ = RᵀA; its symmetric part is the region's stretch, the
// descriptor of Sec. 4.1 (6 numbers per region; it is Koyama et al.'s right
// stretch tensor √(AᵀA) whenever R is also A's polar rotation — rigid
// motions, isotropic regions — and a rotation-invariant stretch measure in
// general). At every step the current descriptor is projected onto the
// example manifold of each group of regions — the whole object, each group,
// or each region (manifold) — by the least-squares weights of eq. 6–7
// (example.Manifold, L factorised once), negative weights are eliminated,
// and the β bias moves weight back to the rest pose. With includeRest =
// false the manifold holds the examples only (their affine hull, the rest
// weight w₀ is 0 before β): with one example every goal is that example's
// shape, and the object converges to it from any pose. The goals then blend
// the rest and example poses with those weights, in one of two ways
// (goalShape):
//
//   - "stretch", Koyama et al.'s eq. 3: g_{r,i} = R·S̃·qᵢ + c with
//     S̃ = Σₖ wₖ Ŝᵏ (Ŝ⁰ = I). At an example pose R·Ŝᵏ = Aᵏ, the region's best
//     affine fit, as with the paper's R_A·S_A = A. (Using A's own rotation,
//     as the paper does, makes even example-free goals exert a torque on
//     anisotropic regions, and a free object spins itself up.) A twisted or
//     bent example is not affine on a region: its averaged fits smooth it
//     by the fit residual (2 % of the size on a 13 × 3 × 3 bar twisted 90°
//     over a third of its length), the smoothed pose projects onto the
//     example with a weight below one, and the example leaks back to the
//     rest pose even with β = 1: its weight falls below ½ within 7 steps on
//     that bar, 19 on one refined 2 ×, 84 refined 4 ×
//     (TestShapeMatchingStretchGoalsLeak).
//   - "regionShape" (default): g_{r,i} = R·Σₖ wₖ Rₖᵀ(xᵢᵏ − cᵏ) + c, the blend
//     of the regions' example shapes themselves, each seen in its region's
//     best-fit frame (the rest shape qᵢ for k = 0). It keeps what no affine
//     map captures, so every example pose is an exact equilibrium, and
//     Koyama et al.'s β is what brings the object back to rest. The cost is
//     3n numbers per region member instead of 9n per region.
//
// Damping (optional): a fraction of each region's velocity that is not a
// rigid motion of the region is removed per step, averaged over regions
// (velocity v_cm + ω × (x − c) of the region's momentum and angular
// momentum, as Müller et al. 2007 do for whole bodies). Rigid motions and
// linear momentum are untouched.
type ShapeMatching struct {
	graph.ObjectBase
	Alpha      float64 `toml:"alpha" doc:"stiffness α (Koyama et al. eq. 4): fraction of the way to the goal positions covered in one step; 1 is stiffest" range:"[0,1]"`
	Regions    string  `toml:"regions" doc:"ring: each particle with the particles within regionSize edges of the node's tetrahedral mesh (regionSize = 1: the 1-ring of Koyama et al.); lattice: each particle with the particles within regionSize lattice steps on every axis (FastLSM), for particles on a grid" enum:"ring,lattice"`
	RegionSize int     `toml:"regionSize" doc:"ring: number of edge rings; lattice: half-width w in lattice steps, regions of up to (2w+1)³ particles" range:"[1,8]"`
	Damping    float64 `toml:"damping" doc:"fraction of each region's non-rigid velocity removed per step (0: none); rigid motions and momentum are untouched" range:"[0,1]"`

	Examples                 []string      `toml:"examples" doc:"example poses as mesh files (relative to the scene file, any format MeshLoader reads) holding the rest mesh's vertices in the same order; they may be rigidly moved but must be at the rest mesh's scale"`
	ExamplePositions         [][][]float64 `toml:"examplePositions" doc:"example poses given inline, after the files: for each example, one [x, y, z] per particle" unit:"m"`
	Beta                     float64       `toml:"beta" doc:"bias toward the rest pose (Koyama et al. Sec. 4.2): example weights are multiplied by β and the rest pose takes the remainder; 1: none (blended poses stay), smaller: the object returns to rest faster" range:"[0,1]"`
	EliminateNegativeWeights bool          `toml:"eliminateNegativeWeights" doc:"remove negative blending weights (Sec. 4.2) so goal shapes stay in the convex hull of the rest and example poses; false extrapolates beyond the examples"`
	Manifold                 string        `toml:"manifold" doc:"example manifold: global = one for the whole object; groups = one per group of regions (groupIndices or groupBoxes; Sec. 4.3, local examples); regions = one per region (Sec. 4.3, Fig. 7)" enum:"global,groups,regions"`
	GroupIndices             []int         `toml:"groupIndices" doc:"manifold = groups: group of the region of each particle, one 0-based index per particle" range:"[0,inf)"`
	GroupBoxes               [][]float64   `toml:"groupBoxes" doc:"manifold = groups: boxes [xmin, ymin, zmin, xmax, ymax, zmax]; the region of a particle whose rest position lies in box k is in group k (the last such box wins); every particle must lie in a box" unit:"m"`
	IncludeRest              bool          `toml:"includeRest" doc:"the rest pose is a point of the example manifold (Koyama et al.: weight w₀ = 1 − Σ wₖ); false: the manifold is the examples' own affine hull (w₀ = 0 before β), so with one example the goals are that example's shapes"`
	GoalShape                string        `toml:"goalShape" doc:"regionShape: goals R·Σₖ wₖ Rₖᵀ(xᵏ − cᵏ) + c, blending the examples' region shapes: every example pose is an exact equilibrium; stretch: goals R·S̃·(x⁰ − c⁰) + c with S̃ the blended stretch (Koyama et al. eq. 3): each region gets only its best affine fit, which smooths non-affine examples (a twist), so with β = 1 the object still slides back to rest, faster on coarse meshes" enum:"regionShape,stretch"`

	st graph.State
	n  int // particles
	rs *regionSet

	// Per particle.
	mass     []float64 // mᵢ
	invCount []float64 // 1/|Nᵢ|
	mtilde   []float64 // m̃ᵢ = mᵢ/|Nᵢ|
	restM    []float64 // 3 per particle: m̃ᵢ(xᵢ⁰ − o⁰), o⁰ the rest centroid
	pm       []float64 // 12 per particle, per step: m̃ᵢ(xᵢ − o)(xᵢ⁰ − o⁰)ᵀ and m̃ᵢ(xᵢ − o)
	o0       geom.Vec3 // centroid of the rest positions
	// Per region member (rs.members order).
	memM []float64 // m̃ of the member
	q    []float64 // 3 per member: x⁰ − c⁰_r
	wq   []float64 // 4 per member: m̃, m̃ q (interleaved for the moment sums)
	// Per region.
	invM   []float64   // 1/Σ m̃
	c0     []float64   // 3 per region: c⁰ − o⁰
	aqqInv []geom.Mat3 // (Σ m̃ q qᵀ)⁻¹
	scale  []float64   // 3/tr(Σ m̃ q qᵀ): makes Apq dimensionless
	rot    []geom.Quat // R_r at the last goal computation
	drot   []geom.Quat // R_r's change over the last goal computation, body frame: rot⁻¹·rot_new
	rmat   []geom.Mat3 // R_r as a matrix
	tr     []geom.Mat3 // R_r S̃_r
	com    []float64   // 3 per region: c_r
	desc   []float64   // 6 per slot (regions group by group): current descriptor

	// Examples.
	nEx       int
	exDelta   []float64 // 9·nEx per region: Rₖᵀ Aₖ − I (row-major)
	exShape   []float64 // regionShape: 3·nEx per member: Rₖᵀ(xᵏ − cᵏ) − q
	manifolds []*example.Manifold
	first     []int     // first slot of each group
	groupOf   []int     // group of each region
	slot      []int     // position of each region's descriptor, group by group
	weights   []float64 // (nEx+1) per group, after elimination and β
	active    []bool    // scratch of the elimination

	goals, gsum []float64
	dv          []float64 // damping scratch
}

func init() {
	graph.Register(graph.TypeInfo{
		Name:    "ShapeMatching",
		Kind:    graph.KindForceField,
		Summary: "Shape matching on overlapping regions of a Vec3 particle state (Müller et al. 2005; 1-ring or lattice regions) with optional example-based goals (Koyama et al. 2012: example poses, descriptor projection, global/group/region manifolds, β bias); position-based: needs a ShapeMatchingSolver in its node or above.",
		New: func() graph.Object {
			return &ShapeMatching{Alpha: 0.5, Regions: "ring", RegionSize: 1, Beta: 0.995,
				EliminateNegativeWeights: true, Manifold: "global", GoalShape: "regionShape", IncludeRest: true}
		},
	})
}

// Validate checks the fields that depend on each other.
func (sm *ShapeMatching) Validate() error {
	if sm.Manifold == "groups" {
		switch {
		case len(sm.GroupIndices) == 0 && len(sm.GroupBoxes) == 0:
			return fmt.Errorf("manifold = \"groups\" needs groupIndices or groupBoxes")
		case len(sm.GroupIndices) > 0 && len(sm.GroupBoxes) > 0:
			return fmt.Errorf("give groupIndices or groupBoxes, not both")
		}
	} else if len(sm.GroupIndices) > 0 || len(sm.GroupBoxes) > 0 {
		return fmt.Errorf("groupIndices and groupBoxes need manifold = \"groups\" (manifold is %q)", sm.Manifold)
	}
	for k, b := range sm.GroupBoxes {
		if len(b) != 6 {
			return fmt.Errorf("groupBoxes[%d] has %d numbers, want 6: [xmin, ymin, zmin, xmax, ymax, zmax]", k, len(b))
		}
		for a := 0; a < 3; a++ {
			if b[a] > b[a+3] {
				return fmt.Errorf("groupBoxes[%d]: min[%d] = %g is greater than max[%d] = %g", k, a, b[a], a, b[a+3])
			}
		}
	}
	return nil
}

// Init builds the regions and their rest data from the node's state, mass
// and topology, reads the examples and builds their manifolds.
func (sm *ShapeMatching) Init() error {
	if err := sm.Validate(); err != nil {
		return err
	}
	if err := sm.checkSolver(); err != nil {
		return err
	}
	st := sm.Node.State()
	if st == nil {
		return fmt.Errorf("needs a mechanical state in the same node")
	}
	if st.Template().Name() != "Vec3" {
		return fmt.Errorf("acts on Vec3 particles; state %q is %s", st.Base().Name, st.Template().Name())
	}
	if m := sm.Node.Mapping(); m != nil && m.IsMechanical() {
		return fmt.Errorf("state %q is mapped by %q: shape matching moves independent states only; put it on the parent state", st.Base().Name, m.Base().Name)
	}
	sm.st, sm.n = st, st.Size()
	if sm.n == 0 {
		return fmt.Errorf("state %q has no particles", st.Base().Name)
	}
	if err := sm.readMasses(); err != nil {
		return err
	}
	rest := st.Vec(graph.RestPosition)
	var err error
	switch sm.Regions {
	case "lattice":
		sm.rs, err = latticeRegions(rest, sm.RegionSize)
	default:
		topo := sm.Node.Topology()
		if topo == nil || len(topo.Tetrahedra()) == 0 {
			return fmt.Errorf("regions = \"ring\" needs a tetrahedral topology (RegularGridTopology, MeshLoader, SparseGridTopology) in this node or above; for particles on a grid use regions = \"lattice\"")
		}
		if np := len(topo.Points()) / 3; np != sm.n {
			return fmt.Errorf("topology %q has %d points but state %q has %d particles", topo.Base().Name, np, st.Base().Name, sm.n)
		}
		sm.rs, err = ringRegions(sm.n, topo.Tetrahedra(), sm.RegionSize)
	}
	if err != nil {
		return err
	}
	if err := sm.buildRegions(rest); err != nil {
		return err
	}
	examples, err := sm.readExamples()
	if err != nil {
		return err
	}
	if sm.Manifold == "groups" {
		// Check the assignment now, even before examples arrive (SetExamples).
		if _, err := sm.groupRegions(); err != nil {
			return err
		}
	}
	return sm.buildExamples(examples)
}

// checkSolver makes sure a ShapeMatchingSolver integrates this component:
// any other solver would silently ignore it.
func (sm *ShapeMatching) checkSolver() error {
	for p := sm.Node; p != nil; p = p.Parent {
		if s := p.ODESolver(); s != nil {
			if _, ok := s.(*ShapeMatchingSolver); ok {
				return nil
			}
			return fmt.Errorf("is position-based and moves only under a ShapeMatchingSolver, but node %q is integrated by %s %q, which would ignore it: use ShapeMatchingSolver there",
				displayPath(p), s.Base().TypeName, s.Base().Name)
		}
	}
	return fmt.Errorf("needs a ShapeMatchingSolver in its node or an ancestor node")
}

func displayPath(n *graph.Node) string {
	if p := n.Path(); p != "" {
		return p
	}
	return "/"
}

// readMasses reads mᵢ from the node's mass as the row sums of M (M·1 per
// coordinate): the vertex masses of a diagonal mass, the lumped masses of a
// consistent one.
func (sm *ShapeMatching) readMasses() error {
	m := sm.Node.Mass()
	if m == nil {
		return fmt.Errorf("needs a mass in node %q (UniformMass, DiagonalMass) for the effective masses of eq. 1 and the force term of eq. 4", displayPath(sm.Node))
	}
	ones := make([]float64, 3*sm.n)
	for i := 0; i < sm.n; i++ {
		ones[3*i] = 1
	}
	md := make([]float64, 3*sm.n)
	m.AddMDx(md, ones, 1)
	sm.mass = make([]float64, sm.n)
	for i := range sm.mass {
		sm.mass[i] = md[3*i]
		if !(sm.mass[i] > 0) || math.IsInf(sm.mass[i], 0) {
			return fmt.Errorf("particle %d has mass %g from %q: shape matching needs positive masses", i, sm.mass[i], m.Base().Name)
		}
	}
	return nil
}

// buildRegions computes the effective masses and, per region, the rest
// centre of mass, the relative rest positions q and (Σ m̃ q qᵀ)⁻¹.
func (sm *ShapeMatching) buildRegions(rest []float64) error {
	rs, n := sm.rs, sm.n
	nr := rs.numRegions()
	nm := len(rs.members)
	sm.invCount = make([]float64, n)
	mt := make([]float64, n)
	for i := 0; i < n; i++ {
		sm.invCount[i] = 1 / float64(rs.count[i])
		mt[i] = sm.mass[i] * sm.invCount[i]
	}
	sm.mtilde = mt
	sm.memM = make([]float64, nm)
	sm.q = make([]float64, 3*nm)
	sm.wq = make([]float64, 4*nm)
	sm.invM = make([]float64, nr)
	sm.c0 = make([]float64, 3*nr)
	sm.restM = make([]float64, 3*n)
	sm.pm = make([]float64, 12*n)
	sm.o0 = geom.Vec3{}
	for i := 0; i < n; i++ {
		sm.o0 = sm.o0.Add(geom.At(rest, i))
	}
	sm.o0 = sm.o0.Scale(1 / float64(n))
	for i := 0; i < n; i++ {
		geom.Put(sm.restM, i, geom.At(rest, i).Sub(sm.o0).Scale(mt[i]))
	}
	sm.aqqInv = make([]geom.Mat3, nr)
	sm.scale = make([]float64, nr)
	sm.rot = make([]geom.Quat, nr)
	sm.drot = make([]geom.Quat, nr)
	sm.rmat = make([]geom.Mat3, nr)
	sm.tr = make([]geom.Mat3, nr)
	sm.com = make([]float64, 3*nr)
	sm.desc = make([]float64, example.DescSize*nr)
	sm.goals = make([]float64, 3*n)
	sm.gsum = make([]float64, 3*n)
	for r := 0; r < nr; r++ {
		mem := rs.members[rs.start[r]:rs.start[r+1]]
		var c geom.Vec3
		M := 0.0
		for _, i := range mem {
			c = c.Add(geom.At(rest, i).Scale(mt[i]))
			M += mt[i]
		}
		c = c.Scale(1 / M)
		var aqq geom.Mat3
		for j, i := range mem {
			jj := rs.start[r] + j
			q := geom.At(rest, i).Sub(c)
			sm.memM[jj] = mt[i]
			geom.Put(sm.q, jj, q)
			sm.wq[4*jj] = mt[i]
			sm.wq[4*jj+1], sm.wq[4*jj+2], sm.wq[4*jj+3] = mt[i]*q[0], mt[i]*q[1], mt[i]*q[2]
			aqq = aqq.Add(q.Outer(q).Scale(mt[i]))
		}
		// A region whose rest particles are (nearly) coplanar has no 3-D
		// shape to match: Aqq is singular. The ratio below is 1 for an
		// isotropic region and the cube of the flattest axis' relative
		// extent otherwise.
		tr := aqq.Trace()
		if !(aqq.Det() > 1e-12*tr*tr*tr) {
			return fmt.Errorf("the region of particle %d (%d particles) is flat or degenerate at rest (its moment matrix Σ m̃ q qᵀ is singular): use larger regions (regionSize) or a mesh without isolated sheets", r, len(mem))
		}
		inv, _ := aqq.Inverse()
		sm.aqqInv[r] = inv
		sm.invM[r] = 1 / M
		geom.Put(sm.c0, r, c.Sub(sm.o0))
		sm.scale[r] = 3 / tr
		sm.rot[r] = geom.QuatIdentity()
		sm.drot[r] = geom.QuatIdentity()
	}
	return nil
}

// readExamples returns the example poses: the files, then the inline arrays.
func (sm *ShapeMatching) readExamples() ([][]float64, error) {
	src := example.PoseSource{Files: sm.Examples, Inline: sm.ExamplePositions, Points: sm.n,
		Owner: fmt.Sprintf("state %q", sm.st.Base().Name), Unit: "particles"}
	if sc := sm.Node.Scene(); sc != nil {
		src.Resolve = sc.ResolvePath
	}
	if topo := sm.Node.Topology(); topo != nil {
		src.Tetrahedra = topo.Tetrahedra()
	}
	return example.ReadPoses(src)
}

// SetExamples replaces the example poses (flat [x y z] per particle each)
// and rebuilds the manifolds, for code that builds scenes directly; call it
// after Init.
func (sm *ShapeMatching) SetExamples(poses [][]float64) error {
	for k, x := range poses {
		if len(x) != 3*sm.n {
			return fmt.Errorf("example %d has %d coordinates, want %d", k, len(x), 3*sm.n)
		}
	}
	return sm.buildExamples(poses)
}

// buildExamples computes each example's region stretches (and shapes) and
// the manifolds of the groups.
func (sm *ShapeMatching) buildExamples(poses [][]float64) error {
	rs := sm.rs
	nr := rs.numRegions()
	sm.nEx = len(poses)
	sm.exDelta, sm.exShape, sm.manifolds = nil, nil, nil
	if sm.nEx == 0 {
		return nil
	}
	ne := sm.nEx
	sm.exDelta = make([]float64, 9*ne*nr)
	if sm.GoalShape == "regionShape" {
		sm.exShape = make([]float64, 3*ne*len(rs.members))
	}
	groups, err := sm.groupRegions()
	if err != nil {
		return err
	}
	sm.groupOf = make([]int, nr)
	sm.slot = make([]int, nr)
	next := 0
	for g, regs := range groups {
		for _, r := range regs {
			sm.groupOf[r] = g
			sm.slot[r] = next
			next++
		}
	}
	exDesc := make([][]float64, ne)
	for k, x := range poses {
		exDesc[k] = make([]float64, example.DescSize*nr)
		for r := 0; r < nr; r++ {
			R, Sh, c := sm.matchOne(r, x, geom.QuatIdentity())
			example.PutDescriptor(exDesc[k][example.DescSize*sm.slot[r]:], &Sh)
			d := sm.exDelta[9*(ne*r+k) : 9*(ne*r+k+1)]
			copy(d, Sh[:])
			d[0], d[4], d[8] = d[0]-1, d[4]-1, d[8]-1
			if sm.exShape == nil {
				continue
			}
			for j := rs.start[r]; j < rs.start[r+1]; j++ {
				// Rₖᵀ(xᵏ − cᵏ) − q.
				p := R.TMulVec(geom.At(x, rs.members[j]).Sub(c)).Sub(geom.At(sm.q, j))
				geom.Put(sm.exShape[3*ne*j:], k, p)
			}
		}
	}
	sm.first = make([]int, len(groups))
	first := 0
	for g, regs := range groups {
		rows := example.DescSize * len(regs)
		var points [][]float64
		if sm.IncludeRest {
			rest := make([]float64, rows)
			for j := range rest {
				rest[j] = example.IdentityDescriptor[j%example.DescSize]
			}
			points = append(points, rest)
		}
		for k := range exDesc {
			points = append(points, exDesc[k][example.DescSize*first:example.DescSize*first+rows])
		}
		em, err := example.NewManifold(points, nil)
		if err != nil {
			return fmt.Errorf("example manifold of group %d: %w", g, err)
		}
		if em.Rank() == 0 && sm.IncludeRest && sm.Manifold != "regions" {
			return fmt.Errorf("no example deforms the regions of group %d (%d regions): every example equals the rest pose there (up to a rigid motion)", g, len(regs))
		}
		sm.manifolds = append(sm.manifolds, em)
		sm.first[g] = first
		first += len(regs)
	}
	sm.weights = make([]float64, (ne+1)*len(groups))
	for g := range groups {
		sm.weights[(ne+1)*g] = 1
	}
	sm.active = make([]bool, ne+1)
	return nil
}

// groupRegions lists the regions of each example manifold: all of them
// (global), one each (regions), or by groupIndices or groupBoxes.
func (sm *ShapeMatching) groupRegions() ([][]int, error) {
	nr := sm.rs.numRegions()
	switch sm.Manifold {
	case "regions":
		groups := make([][]int, nr)
		for r := range groups {
			groups[r] = []int{r}
		}
		return groups, nil
	case "global":
		all := make([]int, nr)
		for r := range all {
			all[r] = r
		}
		return [][]int{all}, nil
	}
	rest := sm.st.Vec(graph.RestPosition)
	spec := example.GroupSpec{Indices: sm.GroupIndices, Boxes: sm.GroupBoxes, Item: "particle"}
	of, ng, err := spec.Assign(nr, func(r int) geom.Vec3 { return geom.At(rest, r) })
	if err != nil {
		return nil, err
	}
	groups := make([][]int, ng)
	for r, g := range of {
		groups[g] = append(groups[g], r)
	}
	return groups, nil
}

// momentMatrix returns Apq = Σ m̃ pᵢqᵢᵀ of region r (the first factor of
// eq. 1) and its centre of mass c at positions x. Apq is summed as
// Σ m̃ (xᵢ − x_r)qᵢᵀ, equal because Σ m̃ qᵢ = 0, and free of cancellation
// for objects far from the origin.
func (sm *ShapeMatching) momentMatrix(r int, x []float64) (geom.Mat3, geom.Vec3) {
	rs := sm.rs
	xr0, xr1, xr2 := x[3*r], x[3*r+1], x[3*r+2]
	var s0, s1, s2 float64
	var a00, a01, a02, a10, a11, a12, a20, a21, a22 float64
	lo, hi := rs.start[r], rs.start[r+1]
	members := rs.members[lo:hi]
	wq := sm.wq[4*lo : 4*hi]
	for j, i := range members {
		xi := x[3*i : 3*i+3 : 3*i+3]
		w := wq[4*j : 4*j+4 : 4*j+4]
		d0, d1, d2 := xi[0]-xr0, xi[1]-xr1, xi[2]-xr2
		m := w[0]
		s0 += m * d0
		s1 += m * d1
		s2 += m * d2
		w0, w1, w2 := w[1], w[2], w[3]
		a00 += d0 * w0
		a01 += d0 * w1
		a02 += d0 * w2
		a10 += d1 * w0
		a11 += d1 * w1
		a12 += d1 * w2
		a20 += d2 * w0
		a21 += d2 * w1
		a22 += d2 * w2
	}
	im := sm.invM[r]
	c := geom.Vec3{xr0 + s0*im, xr1 + s1*im, xr2 + s2*im}
	apq := geom.Mat3{a00, a01, a02, a10, a11, a12, a20, a21, a22}
	return apq, c
}

// mul3 sets C = A·B (3×3, row-major) without the copies of geom.Mat3.Mul.
func mul3(C, A, B *geom.Mat3) {
	a0, a1, a2, a3, a4, a5, a6, a7, a8 := A[0], A[1], A[2], A[3], A[4], A[5], A[6], A[7], A[8]
	b0, b1, b2, b3, b4, b5, b6, b7, b8 := B[0], B[1], B[2], B[3], B[4], B[5], B[6], B[7], B[8]
	C[0], C[1], C[2] = a0*b0+a1*b3+a2*b6, a0*b1+a1*b4+a2*b7, a0*b2+a1*b5+a2*b8
	C[3], C[4], C[5] = a3*b0+a4*b3+a5*b6, a3*b1+a4*b4+a5*b7, a3*b2+a4*b5+a5*b8
	C[6], C[7], C[8] = a6*b0+a7*b3+a8*b6, a6*b1+a7*b4+a8*b7, a6*b2+a7*b5+a8*b8
}

// tmul3 sets C = Aᵀ·B.
func tmul3(C, A, B *geom.Mat3) {
	a0, a1, a2, a3, a4, a5, a6, a7, a8 := A[0], A[1], A[2], A[3], A[4], A[5], A[6], A[7], A[8]
	b0, b1, b2, b3, b4, b5, b6, b7, b8 := B[0], B[1], B[2], B[3], B[4], B[5], B[6], B[7], B[8]
	C[0], C[1], C[2] = a0*b0+a3*b3+a6*b6, a0*b1+a3*b4+a6*b7, a0*b2+a3*b5+a6*b8
	C[3], C[4], C[5] = a1*b0+a4*b3+a7*b6, a1*b1+a4*b4+a7*b7, a1*b2+a4*b5+a7*b8
	C[6], C[7], C[8] = a2*b0+a5*b3+a8*b6, a2*b1+a5*b4+a8*b7, a2*b2+a5*b5+a8*b8
}

// GoalState implements GoalProvider.
func (sm *ShapeMatching) GoalState() graph.State { return sm.st }

// Stiffness implements GoalProvider.
func (sm *ShapeMatching) Stiffness() float64 { return sm.Alpha }

// ComputeGoals implements GoalProvider: the goal positions of Sec. 3 (eq. 2
// without examples, eq. 3 with), averaged over the regions holding each
// particle.
func (sm *ShapeMatching) ComputeGoals(x []float64) []float64 {
	sm.matchRegions(x)
	if sm.nEx > 0 {
		sm.projectAll()
		sm.blendStretches()
	} else {
		copy(sm.tr, sm.rmat)
	}
	sm.accumulateGoals()
	return sm.goals
}

// matchOne matches region r at x starting from the rotation prev: it
// returns the region's best-fit rotation R (regionRotation), its deformation
// in that frame Ŝ = RᵀA with A = Apq·Aqq⁻¹ (eq. 1), and its centre of mass.
func (sm *ShapeMatching) matchOne(r int, x []float64, prev geom.Quat) (R, Sh geom.Mat3, c geom.Vec3) {
	apq, c := sm.momentMatrix(r, x)
	A := apq.Mul(sm.aqqInv[r])
	_, R = regionRotation(&apq, &sm.aqqInv[r], sm.scale[r], prev)
	return R, R.TMul(A), c
}

// matchRegions computes every region's centre of mass and rotation at x,
// and with examples its deformation Ŝ and descriptor sym(Ŝ). The rotation
// search starts from the last rotation advanced by its last change (regions
// rotate smoothly from step to step), which leaves Newton's method one to
// three iterations.
//
// The moment sums use per-particle products: with o the centroid of x and
// x̃⁰ = x⁰ − o⁰, c̃⁰ = c⁰ − o⁰ (rest centroid o⁰),
//
//	Σ m̃ (x − c) qᵀ = Σᵢ m̃ᵢ(xᵢ − o)x̃ᵢ⁰ᵀ − (Σᵢ m̃ᵢ(xᵢ − o)) c̃⁰ᵀ,
//
// so each particle's 12 numbers are formed once per step and each region
// only adds them up (12 additions per member instead of 12 multiply-adds
// and 3 subtractions). Measuring from the centroids keeps the cancellation
// to (object size / region size)², about 1e-13 relative for the meshes of
// Koyama et al.'s Table 1 (momentMatrix, used outside the step, sums
// region-relative terms instead).
func (sm *ShapeMatching) matchRegions(x []float64) {
	n, nr := sm.n, sm.rs.numRegions()
	var o0, o1, o2 float64
	for i := 0; i < n; i++ {
		o0 += x[3*i]
		o1 += x[3*i+1]
		o2 += x[3*i+2]
	}
	o0, o1, o2 = o0/float64(n), o1/float64(n), o2/float64(n)
	pm, rm := sm.pm, sm.restM
	for i, m := range sm.mtilde {
		d0, d1, d2 := x[3*i]-o0, x[3*i+1]-o1, x[3*i+2]-o2
		r0, r1, r2 := rm[3*i], rm[3*i+1], rm[3*i+2]
		p := pm[12*i : 12*i+12 : 12*i+12]
		p[0], p[1], p[2] = d0*r0, d0*r1, d0*r2
		p[3], p[4], p[5] = d1*r0, d1*r1, d1*r2
		p[6], p[7], p[8] = d2*r0, d2*r1, d2*r2
		p[9], p[10], p[11] = m*d0, m*d1, m*d2
	}
	rs := sm.rs
	for r := 0; r < nr; r++ {
		var a00, a01, a02, a10, a11, a12, a20, a21, a22, y0, y1, y2 float64
		for _, i := range rs.members[rs.start[r]:rs.start[r+1]] {
			p := pm[12*i : 12*i+12 : 12*i+12]
			a00 += p[0]
			a01 += p[1]
			a02 += p[2]
			a10 += p[3]
			a11 += p[4]
			a12 += p[5]
			a20 += p[6]
			a21 += p[7]
			a22 += p[8]
			y0 += p[9]
			y1 += p[10]
			y2 += p[11]
		}
		k0, k1, k2 := sm.c0[3*r], sm.c0[3*r+1], sm.c0[3*r+2]
		apq := geom.Mat3{
			a00 - y0*k0, a01 - y0*k1, a02 - y0*k2,
			a10 - y1*k0, a11 - y1*k1, a12 - y1*k2,
			a20 - y2*k0, a21 - y2*k1, a22 - y2*k2,
		}
		im := sm.invM[r]
		c := geom.Vec3{o0 + y0*im, o1 + y1*im, o2 + y2*im}
		prev := sm.rot[r]
		q, R := regionRotation(&apq, &sm.aqqInv[r], sm.scale[r], prev.Mul(sm.drot[r]))
		sm.rot[r] = q
		sm.drot[r] = prev.Conj().Mul(q)
		sm.rmat[r] = R
		sm.com[3*r], sm.com[3*r+1], sm.com[3*r+2] = c[0], c[1], c[2]
		if sm.nEx > 0 {
			// Ŝ = Rᵀ Apq Aqq⁻¹.
			var B, Sh geom.Mat3
			tmul3(&B, &R, &apq)
			mul3(&Sh, &B, &sm.aqqInv[r])
			example.PutDescriptor(sm.desc[example.DescSize*sm.slot[r]:], &Sh)
		}
	}
}

// projectAll computes the weights of every group from the current
// descriptor: eq. 6–7, elimination of negative weights, β.
func (sm *ShapeMatching) projectAll() {
	for g := range sm.manifolds {
		sm.projectGroup(g, sm.desc, sm.Weights(g), sm.active)
	}
}

// projectGroup computes the weights w (rest first, then the examples) of
// group g from the descriptors desc (slot order): the least-squares
// projection, then, as configured, negative-weight elimination and β.
func (sm *ShapeMatching) projectGroup(g int, desc, w []float64, active []bool) {
	em := sm.manifolds[g]
	lo := example.DescSize * sm.first[g]
	d := desc[lo : lo+em.Rows()]
	if sm.IncludeRest {
		em.Project(d, w)
	} else {
		w[0] = 0
		em.Project(d, w[1:])
	}
	if sm.EliminateNegativeWeights {
		example.EliminateNegativeWeights(w, active)
	}
	example.BiasTowardRest(w, sm.Beta)
}

// blendStretches sets every region's goal map R·S̃ with
// S̃ = I + Σₖ wₖ (Ŝᵏ − I) (the weights sum to one), or R alone for
// regionShape goals, whose blend is per particle.
func (sm *ShapeMatching) blendStretches() {
	ne := sm.nEx
	nr := sm.rs.numRegions()
	if sm.exShape != nil {
		copy(sm.tr, sm.rmat)
		return
	}
	for r := 0; r < nr; r++ {
		w := sm.weights[(ne+1)*sm.groupOf[r]+1 : (ne+1)*(sm.groupOf[r]+1)]
		d := sm.exDelta[9*ne*r : 9*ne*(r+1)]
		S := geom.Mat3{1, 0, 0, 0, 1, 0, 0, 0, 1}
		for k, wk := range w {
			e := d[9*k : 9*k+9 : 9*k+9]
			S[0] += wk * e[0]
			S[1] += wk * e[1]
			S[2] += wk * e[2]
			S[3] += wk * e[3]
			S[4] += wk * e[4]
			S[5] += wk * e[5]
			S[6] += wk * e[6]
			S[7] += wk * e[7]
			S[8] += wk * e[8]
		}
		mul3(&sm.tr[r], &sm.rmat[r], &S)
	}
}

// accumulateGoals averages g_{r,i} = T_r qᵢ + c_r over the regions holding
// each particle (T_r = R_r S̃_r), or, for regionShape goals,
// g_{r,i} = R_r (qᵢ + Σₖ wₖ ΔQᵏᵢ) + c_r. (Gathering Σ_{r∋i} T_r and the
// translations per particle instead reads 12 numbers per member where this
// reads 3 and writes 3, and measured 20 % slower.)
func (sm *ShapeMatching) accumulateGoals() {
	rs := sm.rs
	nr := rs.numRegions()
	g := sm.gsum
	clear(g)
	ne := sm.nEx
	for r := 0; r < nr; r++ {
		T := &sm.tr[r]
		c0, c1, c2 := sm.com[3*r], sm.com[3*r+1], sm.com[3*r+2]
		lo, hi := rs.start[r], rs.start[r+1]
		members := rs.members[lo:hi]
		q := sm.q[3*lo : 3*hi]
		if sm.exShape != nil {
			w := sm.weights[(ne+1)*sm.groupOf[r]+1 : (ne+1)*(sm.groupOf[r]+1)]
			for j, i := range members {
				q0, q1, q2 := q[3*j], q[3*j+1], q[3*j+2]
				dq := sm.exShape[3*ne*(lo+j) : 3*ne*(lo+j+1)]
				for k, wk := range w {
					q0 += wk * dq[3*k]
					q1 += wk * dq[3*k+1]
					q2 += wk * dq[3*k+2]
				}
				gi := g[3*i : 3*i+3 : 3*i+3]
				gi[0] += T[0]*q0 + T[1]*q1 + T[2]*q2 + c0
				gi[1] += T[3]*q0 + T[4]*q1 + T[5]*q2 + c1
				gi[2] += T[6]*q0 + T[7]*q1 + T[8]*q2 + c2
			}
			continue
		}
		t00, t01, t02, t10, t11, t12, t20, t21, t22 := T[0], T[1], T[2], T[3], T[4], T[5], T[6], T[7], T[8]
		for j, i := range members {
			qj := q[3*j : 3*j+3 : 3*j+3]
			gi := g[3*i : 3*i+3 : 3*i+3]
			q0, q1, q2 := qj[0], qj[1], qj[2]
			gi[0] += t00*q0 + t01*q1 + t02*q2 + c0
			gi[1] += t10*q0 + t11*q1 + t12*q2 + c1
			gi[2] += t20*q0 + t21*q1 + t22*q2 + c2
		}
	}
	for i, ic := range sm.invCount {
		sm.goals[3*i] = g[3*i] * ic
		sm.goals[3*i+1] = g[3*i+1] * ic
		sm.goals[3*i+2] = g[3*i+2] * ic
	}
}

// DampVelocities implements GoalProvider: every region's velocity field is
// pulled a fraction Damping toward the rigid motion with the same linear and
// angular momentum, v_cm + ω × (x − c) with I ω = L (about the region's
// centre of mass), the changes averaged over the regions holding each
// particle. Each region's change has zero momentum, so the total momentum
// is unchanged; a rigid motion is unchanged.
func (sm *ShapeMatching) DampVelocities(v, x []float64) {
	if sm.Damping == 0 {
		return
	}
	rs := sm.rs
	nr := rs.numRegions()
	if sm.dv == nil {
		sm.dv = make([]float64, 3*sm.n)
	}
	dv := sm.dv
	clear(dv)
	for r := 0; r < nr; r++ {
		lo, hi := rs.start[r], rs.start[r+1]
		members := rs.members[lo:hi]
		mm := sm.memM[lo:hi]
		xr0, xr1, xr2 := x[3*r], x[3*r+1], x[3*r+2]
		// Moments about x_r: Σ m̃ d, Σ m̃ v, Σ m̃ d × v, Σ m̃ d dᵀ (d = x − x_r),
		// shifted to the centre of mass below.
		var s0, s1, s2, p0, p1, p2, l0, l1, l2 float64
		var d00, d01, d02, d11, d12, d22 float64
		for j, i := range members {
			m := mm[j]
			a0, a1, a2 := x[3*i]-xr0, x[3*i+1]-xr1, x[3*i+2]-xr2
			v0, v1, v2 := m*v[3*i], m*v[3*i+1], m*v[3*i+2]
			s0 += m * a0
			s1 += m * a1
			s2 += m * a2
			p0 += v0
			p1 += v1
			p2 += v2
			l0 += a1*v2 - a2*v1
			l1 += a2*v0 - a0*v2
			l2 += a0*v1 - a1*v0
			ma0, ma1 := m*a0, m*a1
			d00 += ma0 * a0
			d01 += ma0 * a1
			d02 += ma0 * a2
			d11 += ma1 * a1
			d12 += ma1 * a2
			d22 += m * a2 * a2
		}
		im := sm.invM[r]
		M := 1 / im
		e0, e1, e2 := s0*im, s1*im, s2*im // c − x_r
		u0, u1, u2 := p0*im, p1*im, p2*im // v_cm
		// About c: L_c = L − e × p, C = Σ m̃ d dᵀ − M e eᵀ, I = tr C·1 − C.
		lc0, lc1, lc2 := l0-(e1*p2-e2*p1), l1-(e2*p0-e0*p2), l2-(e0*p1-e1*p0)
		c00, c01, c02 := d00-M*e0*e0, d01-M*e0*e1, d02-M*e0*e2
		c11, c12, c22 := d11-M*e1*e1, d12-M*e1*e2, d22-M*e2*e2
		tr := c00 + c11 + c22
		i00, i11, i22 := tr-c00, tr-c11, tr-c22
		i01, i02, i12 := -c01, -c02, -c12
		// ω = I⁻¹ L_c by cofactors; a region too thin to spin about some
		// axis (I nearly singular) only has its linear velocity damped.
		f00, f01, f02 := i11*i22-i12*i12, i02*i12-i01*i22, i01*i12-i02*i11
		det := i00*f00 + i01*f01 + i02*f02
		var w0, w1, w2 float64
		if det > 1e-12*tr*tr*tr {
			f11, f12, f22 := i00*i22-i02*i02, i01*i02-i00*i12, i00*i11-i01*i01
			id := 1 / det
			w0 = (f00*lc0 + f01*lc1 + f02*lc2) * id
			w1 = (f01*lc0 + f11*lc1 + f12*lc2) * id
			w2 = (f02*lc0 + f12*lc1 + f22*lc2) * id
		}
		for _, i := range members {
			r0, r1, r2 := x[3*i]-xr0-e0, x[3*i+1]-xr1-e1, x[3*i+2]-xr2-e2
			dv[3*i] += u0 + w1*r2 - w2*r1 - v[3*i]
			dv[3*i+1] += u1 + w2*r0 - w0*r2 - v[3*i+1]
			dv[3*i+2] += u2 + w0*r1 - w1*r0 - v[3*i+2]
		}
	}
	k := sm.Damping
	for i, ic := range sm.invCount {
		f := k * ic
		v[3*i] += f * dv[3*i]
		v[3*i+1] += f * dv[3*i+1]
		v[3*i+2] += f * dv[3*i+2]
	}
}

// NumRegions returns the number of regions (one per particle).
func (sm *ShapeMatching) NumRegions() int { return sm.rs.numRegions() }

// RegionMembers returns the particles of region r (do not modify).
func (sm *ShapeMatching) RegionMembers(r int) []int {
	return sm.rs.members[sm.rs.start[r]:sm.rs.start[r+1]]
}

// NumExamples returns the number of example poses n.
func (sm *ShapeMatching) NumExamples() int { return sm.nEx }

// NumGroups returns the number of example manifolds (1 for a global one).
func (sm *ShapeMatching) NumGroups() int { return len(sm.manifolds) }

// Group returns the group (manifold) of region r.
func (sm *ShapeMatching) Group(r int) int { return sm.groupOf[r] }

// Weights returns the blending weights (w₀ of the rest pose, then w₁…wₙ of
// the examples) of group g from the last goal computation (do not modify).
func (sm *ShapeMatching) Weights(g int) []float64 {
	w1 := sm.nEx + 1
	return sm.weights[w1*g : w1*(g+1)]
}

// Descriptor writes the deformation descriptor of the pose x into desc (6
// numbers per region, (S₀₀, S₁₁, S₂₂, √2 S₀₁, √2 S₀₂, √2 S₁₂)), without
// touching the simulation's state.
func (sm *ShapeMatching) Descriptor(x, desc []float64) {
	for r := 0; r < sm.rs.numRegions(); r++ {
		_, Sh, _ := sm.matchOne(r, x, sm.rot[r])
		example.PutDescriptor(desc[example.DescSize*r:], &Sh)
	}
}

// ProjectDescriptor computes the weights of every group for the descriptor
// desc (layout of Descriptor) into weights ((n+1) per group), as a step
// does: eq. 6–7, then, as configured, negative-weight elimination and β.
func (sm *ShapeMatching) ProjectDescriptor(desc, weights []float64) {
	w1 := sm.nEx + 1
	active := make([]bool, w1)
	slotted := make([]float64, len(desc))
	for r, sl := range sm.slot {
		copy(slotted[example.DescSize*sl:example.DescSize*(sl+1)], desc[example.DescSize*r:example.DescSize*(r+1)])
	}
	for g := range sm.manifolds {
		sm.projectGroup(g, slotted, weights[w1*g:w1*(g+1)], active)
	}
}
