package forcefield

import (
	"errors"
	"fmt"
	"math/bits"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
)

// MeshSpringForceField (SOFA's name) is a mass–spring model built from the
// topology of its node: a spring along every edge of its tetrahedra and/or
// triangles and between the corners of its hexahedra, rest length the
// rest distance, plus optionally the altitude springs of every
// tetrahedron (altitudeSprings below).
//
// Edge stiffness: tetrahedraStiffness (N/m, SOFA's field) gives every
// tetrahedron edge the same spring; youngModulus E instead gives edge e
// the stiffness of its share of the volume (Van Gelder 1998, "Approximate
// simulation of elastic membranes by triangulated spring meshes"),
//
//	k_e = E · Σ_{t ∋ e} V_t / l_e²,
//
// V_t the rest volumes of the tetrahedra around the edge and l_e its rest
// length. Under any uniform dilation x → (1+ε)x every edge stretches by
// ε l_e and the energy is Σ_e ½ k_e ε² l_e² = 3 E ε² V, exactly the
// dilation energy ½·9K ε² V of an isotropic solid of Young's modulus E,
// Poisson's ratio ¼ and bulk modulus K = 2E/3 — on every tetrahedral
// mesh. Other strains depend on the mesh: springs carry only central
// forces, so a spring network obeys the Cauchy relations (an isotropic
// one has ν = ¼ whatever E), and on the Kuhn-split grid of
// RegularGridTopology (cubic cells) it is anisotropic — stiffness tensor
// C₁₁₁₁ = 13/9 E, C₁₁₂₂ = C₁₁₁₂ = 5/18 E, C₁₁₂₃ = 1/9 E (README), so a
// bar stretched along a grid axis under uniaxial stress shows an
// apparent modulus 30/29 E (+3.4%), a Poisson ratio 1/29 and some shear.
// Hexahedra (SOFA's cubes: a topology serving graph.HexahedronTopology,
// e.g. RegularGridTopology with elements = "hexahedra") get a spring
// between every pair of their 8 corners, as SOFA's MeshSpringForceField
// does: 12 edges, 12 face diagonals, 4 body diagonals. cubesStiffness
// gives them all the same stiffness; with youngModulus, spring e gets
// k_e = E · Σ_{h ∋ e} α_e V_h / l_e² with α = 0.15 (edges), 0.2 (face
// diagonals), 0.45 (body diagonals). The shares add up to 6 per
// hexahedron, so a uniform dilation costs 3Eε²V on any hexahedral mesh,
// as for tetrahedra; and on cubic cells these weights make the network
// exactly isotropic — C₁₁₁₁ = 1.2 E, C₁₁₂₂ = C₁₂₁₂ = 0.4 E, every
// coupling term zero (the cube's ± diagonals cancel them) — i.e. Young's
// modulus E and ν = ¼, the only isotropic solid central springs can make
// (the family of isotropic weights is 4α_edge = α_face + 8α_body/9 with
// α_face + 4α_body/9 = 0.4; this member keeps every spring). On
// rectangular cells of unequal sides the network is anisotropic.
// trianglesStiffness (N/m) puts a spring on every edge of the node's
// triangles (the boundary of a tetrahedral mesh, or a surface mesh such
// as a RegularGridTopology with one axis of n = 1: cloth). An edge of
// both a tetrahedron and a triangle carries both stiffnesses (summed);
// the damping fields add a damping c along each spring likewise.
//
// The spring law, tangent and damping matrix are SpringForceField's (see
// springSet); the force field also writes its tangent into assembled
// matrices (graph.StiffnessAssembler).
type MeshSpringForceField struct {
	graph.ObjectBase
	TetrahedraStiffness float64 `toml:"tetrahedraStiffness" doc:"stiffness of the spring on every tetrahedron edge (or youngModulus)" unit:"N/m" range:"[0,inf)"`
	TetrahedraDamping   float64 `toml:"tetrahedraDamping" doc:"damping along every tetrahedron edge spring" unit:"N·s/m" range:"[0,inf)"`
	YoungModulus        float64 `toml:"youngModulus" doc:"Young's modulus E giving each tetrahedron edge e the stiffness E·Σ V_t/l_e² of its share of the volume (instead of tetrahedraStiffness), and each hexahedron spring E·Σ α V_h/l_e² (α = 0.15 edges, 0.2 face and 0.45 body diagonals; instead of cubesStiffness)" unit:"Pa" range:"[0,inf)"`
	TrianglesStiffness  float64 `toml:"trianglesStiffness" doc:"stiffness of the spring on every triangle edge (surface meshes, or the boundary of a volume mesh)" unit:"N/m" range:"[0,inf)"`
	TrianglesDamping    float64 `toml:"trianglesDamping" doc:"damping along every triangle edge spring" unit:"N·s/m" range:"[0,inf)"`
	CubesStiffness      float64 `toml:"cubesStiffness" doc:"stiffness of the spring between every pair of corners of a hexahedron (or youngModulus)" unit:"N/m" range:"[0,inf)"`
	CubesDamping        float64 `toml:"cubesDamping" doc:"damping along every hexahedron spring" unit:"N·s/m" range:"[0,inf)"`
	AltitudeSprings     bool    `toml:"altitudeSprings" doc:"add the four point–face and three edge–edge altitude springs of every tetrahedron (signed altitudes: they resist flattening and inversion)"`
	AltitudeStiffness   float64 `toml:"altitudeStiffness" doc:"stiffness of every altitude spring" unit:"N/m" range:"[0,inf)"`

	state    graph.State
	set      *springSet
	alt      *altitudeSprings
	blocks   []int32
	scratchF []float64
}

func init() {
	graph.Register(graph.TypeInfo{
		Name: "MeshSpringForceField",
		Kind: graph.KindForceField,
		Summary: "Mass–spring model of the node's topology: a spring on every tetrahedron and/or triangle edge (uniform stiffness, or from youngModulus by each edge's share of volume), " +
			"optional point–face and edge–edge altitude springs per tetrahedron that resist flattening and inversion; energy and exact tangent.",
		New: func() graph.Object { return &MeshSpringForceField{} },
	})
}

// Validate checks the fields that do not need the topology.
func (c *MeshSpringForceField) Validate() error {
	if c.YoungModulus > 0 && (c.TetrahedraStiffness > 0 || c.CubesStiffness > 0) {
		return errors.New("give tetrahedraStiffness/cubesStiffness or youngModulus, not both")
	}
	if c.AltitudeSprings && !(c.AltitudeStiffness > 0) {
		return errors.New("altitudeSprings = true needs a positive altitudeStiffness")
	}
	if !c.AltitudeSprings && c.AltitudeStiffness > 0 {
		return errors.New("altitudeStiffness is given but altitudeSprings is false")
	}
	if c.TetrahedraStiffness == 0 && c.YoungModulus == 0 && c.TrianglesStiffness == 0 && c.CubesStiffness == 0 && !c.AltitudeSprings {
		return errors.New("no springs: give tetrahedraStiffness or youngModulus (tetrahedron edges), cubesStiffness (hexahedra), trianglesStiffness (triangle edges), or altitudeSprings")
	}
	return nil
}

// Init builds the springs from the topology and the state's rest
// positions.
func (c *MeshSpringForceField) Init() error { return c.Wrap(c.initialise()) }

func (c *MeshSpringForceField) initialise() error {
	if err := c.Validate(); err != nil {
		return err
	}
	st := c.Node.State()
	if st == nil {
		return errors.New("needs a Vec3 MechanicalObject in the same node")
	}
	if tn := st.Template().Name(); tn != graph.Vec3.Name() {
		return fmt.Errorf("state %q has template %s; MeshSpringForceField needs Vec3", st.Base().Path(), tn)
	}
	topo := c.Node.Topology()
	if topo == nil {
		return errors.New("needs a topology (MeshLoader, RegularGridTopology, ...) in this node or above")
	}
	c.state = st
	rest := st.Vec(graph.RestPosition)
	np := st.Size()
	tets, tris, hexes := topo.Tetrahedra(), topo.Triangles(), graph.HexahedraOf(topo)
	useHexes := c.CubesStiffness > 0 || c.CubesDamping > 0 || (c.YoungModulus > 0 && len(hexes) > 0)
	if useHexes && len(hexes) == 0 {
		return fmt.Errorf("cubesStiffness is given but topology %q has no hexahedra", topo.Base().Path())
	}
	if c.YoungModulus > 0 && len(tets) == 0 && len(hexes) == 0 {
		return fmt.Errorf("youngModulus gives the springs of tetrahedra and hexahedra, but topology %q has neither", topo.Base().Path())
	}
	useTets := c.TetrahedraStiffness > 0 || c.TetrahedraDamping > 0 || (c.YoungModulus > 0 && len(tets) > 0) || c.AltitudeSprings
	if useTets && len(tets) == 0 {
		return fmt.Errorf("tetrahedron springs are asked for (tetrahedraStiffness, tetrahedraDamping or altitudeSprings) but topology %q has no tetrahedra", topo.Base().Path())
	}
	useTris := c.TrianglesStiffness > 0 || c.TrianglesDamping > 0
	if useTris && len(tris) == 0 {
		return fmt.Errorf("trianglesStiffness is given but topology %q has no triangles", topo.Base().Path())
	}
	var mesh *tetElements
	if useTets {
		var err error
		if mesh, err = newTetElements(rest, tets); err != nil {
			return err
		}
	}
	// Edges in order of first appearance: tetrahedra, then triangles.
	type edgeInfo struct {
		a, b     int
		share    float64 // Σ V_t of the tetrahedra around it
		hexShare float64 // Σ α V_h of the hexahedra around it
		inTet    bool
		inHex    bool
		inTri    bool
	}
	index := map[[2]int]int{}
	var edges []edgeInfo
	edge := func(i, j int) *edgeInfo {
		key := sorted2(i, j)
		e, ok := index[key]
		if !ok {
			e = len(edges)
			index[key] = e
			edges = append(edges, edgeInfo{a: key[0], b: key[1]})
		}
		return &edges[e]
	}
	check := func(kind string, n int, vs []int) error {
		for _, v := range vs {
			if v < 0 || v >= np {
				return fmt.Errorf("%s %d: vertex %d is out of range [0, %d) of state %q", kind, n, v, np, st.Base().Path())
			}
		}
		return nil
	}
	if useTets {
		for t, tet := range tets {
			if err := check("tetrahedron", t, tet[:]); err != nil {
				return err
			}
			for i := 0; i < 4; i++ {
				for j := i + 1; j < 4; j++ {
					e := edge(tet[i], tet[j])
					e.inTet = true
					e.share += mesh.volume(t)
				}
			}
		}
	}
	if useHexes {
		for h, hex := range hexes {
			if err := check("hexahedron", h, hex[:]); err != nil {
				return err
			}
			vol := geom.HexVolume(rest, hex)
			if !(vol > 0) {
				return fmt.Errorf("hexahedron %d has volume %g at rest: it must be positively oriented", h, vol)
			}
			for i := 0; i < 8; i++ {
				for j := i + 1; j < 8; j++ {
					e := edge(hex[i], hex[j])
					e.inHex = true
					e.hexShare += hexSpringShare[bits.OnesCount(uint(hexCornerBits[i]^hexCornerBits[j]))] * vol
				}
			}
		}
	}
	if useTris {
		for t, tri := range tris {
			if err := check("triangle", t, tri[:]); err != nil {
				return err
			}
			for i := 0; i < 3; i++ {
				edge(tri[i], tri[(i+1)%3]).inTri = true
			}
		}
	}
	var defs []springDef
	for _, e := range edges {
		d := springDef{a: e.a, b: e.b, l0: dist3(rest[3*e.a:3*e.a+3], rest[3*e.b:3*e.b+3])}
		if !(d.l0 > 0) {
			return fmt.Errorf("edge (%d, %d) has zero rest length", e.a, e.b)
		}
		if e.inTet {
			d.c = c.TetrahedraDamping
			if c.YoungModulus > 0 {
				d.k = c.YoungModulus * e.share / (d.l0 * d.l0)
			} else {
				d.k = c.TetrahedraStiffness
			}
		}
		if e.inHex {
			d.c += c.CubesDamping
			if c.YoungModulus > 0 {
				d.k += c.YoungModulus * e.hexShare / (d.l0 * d.l0)
			} else {
				d.k += c.CubesStiffness
			}
		}
		if e.inTri {
			d.k += c.TrianglesStiffness
			d.c += c.TrianglesDamping
		}
		if d.k == 0 && d.c == 0 {
			continue // only altitude springs asked for on tetrahedra
		}
		defs = append(defs, d)
	}
	name := func(s int) string { return fmt.Sprintf("edge (%d, %d)", defs[s].a, defs[s].b) }
	set, err := newSpringSet(defs, []int{np}, name)
	if err != nil {
		return err
	}
	c.set = set
	c.alt = nil
	if c.AltitudeSprings {
		if c.alt, err = newAltitudeSprings(mesh, rest, c.AltitudeStiffness); err != nil {
			return err
		}
	}
	return nil
}

// hexCornerBits gives the grid offsets bx + 2·by + 4·bz of the corners of
// a hexahedron in VTK order (graph.HexahedronTopology): two corners are
// joined by an edge, a face diagonal or a body diagonal as their offsets
// differ in 1, 2 or 3 bits.
var hexCornerBits = [8]int{0, 1, 3, 2, 4, 5, 7, 6}

// hexSpringShare is the share α of a hexahedron's volume given to a spring
// by the number of axes its corners differ along (1 edge, 2 face
// diagonal, 3 body diagonal): 12·0.15 + 12·0.2 + 4·0.45 = 6.
var hexSpringShare = [4]float64{0, 0.15, 0.2, 0.45}

func sorted2(i, j int) [2]int {
	if i > j {
		return [2]int{j, i}
	}
	return [2]int{i, j}
}

// NumSprings returns the number of edge springs (after Init).
func (c *MeshSpringForceField) NumSprings() int { return c.set.numSprings() }

// Spring returns the points, stiffness and rest length of edge spring s.
func (c *MeshSpringForceField) Spring(s int) (a, b int, k, restLength float64) {
	return int(c.set.a[s]), int(c.set.b[s]), c.set.k[s], c.set.l0[s]
}

// SetWorkers fixes the number of goroutines of the element loops
// (0: runtime.GOMAXPROCS(0)); results do not depend on it.
func (c *MeshSpringForceField) SetWorkers(n int) {
	c.set.runner.Workers = n
	if c.alt != nil {
		c.alt.asm.setWorkers(n)
	}
}

// AddForce implements graph.ForceField.
func (c *MeshSpringForceField) AddForce(f, x, v []float64) {
	c.set.addForce(c.set.oneState(0, f), c.set.oneState(1, x), c.set.oneState(2, v))
	if c.alt != nil {
		c.alt.addForce(f, x)
	}
}

// AddDForce implements graph.ForceField: kFactor·K·dx + bFactor·B·dx at
// the x of the last AddForce (at the state's position if there was none).
func (c *MeshSpringForceField) AddDForce(df, dx []float64, kFactor, bFactor float64) {
	c.ensureLinearised()
	c.set.addDForce(c.set.oneState(0, df), c.set.oneState(1, dx), kFactor, bFactor)
	if c.alt != nil {
		c.alt.addDForce(df, dx, kFactor)
	}
}

func (c *MeshSpringForceField) ensureLinearised() {
	if c.set.linearised && (c.alt == nil || c.alt.linearised) {
		return
	}
	if c.scratchF == nil {
		c.scratchF = make([]float64, 3*c.state.Size())
	}
	c.AddForce(c.scratchF, c.state.Vec(graph.Position), c.state.Vec(graph.Velocity))
}

// PotentialEnergy implements graph.ForceField: edge and altitude springs.
func (c *MeshSpringForceField) PotentialEnergy(x []float64) float64 {
	w := c.set.energy(c.set.oneState(1, x))
	if c.alt != nil {
		w += c.alt.potentialEnergy(x)
	}
	return w
}

// AddKToMatrix implements graph.StiffnessAssembler: kFactor·K, edge
// springs as 3×3 blocks [[−M, M], [M, −M]], altitude springs as 12×12
// blocks per tetrahedron.
func (c *MeshSpringForceField) AddKToMatrix(m graph.MatrixAccumulator, kFactor float64) {
	c.ensureLinearised()
	c.set.addKToMatrix(m, kFactor)
	if c.alt != nil {
		c.alt.addKToMatrix(m, kFactor)
	}
}

// StiffnessBlocks implements graph.StiffnessBlockAssembler: four blocks
// per edge spring ((a, a), (a, b), (b, a), (b, b)), then sixteen per
// tetrahedron for the altitude springs.
func (c *MeshSpringForceField) StiffnessBlocks() []int32 {
	if c.set == nil {
		return nil
	}
	if c.blocks == nil {
		c.blocks = c.set.stiffnessBlocks()
		if c.alt != nil {
			c.blocks = append(c.blocks, c.alt.stiffnessBlocks()...)
		}
	}
	return c.blocks
}

// KBlocks implements graph.StiffnessBlockAssembler: the closed-form
// blocks of kFactor·K at the last AddForce, in the order of
// StiffnessBlocks.
func (c *MeshSpringForceField) KBlocks(vals []float64, kFactor float64) {
	c.ensureLinearised()
	n := 36 * c.set.numSprings()
	c.set.kBlocks(vals[:n], kFactor)
	if c.alt != nil {
		c.alt.kBlocks(vals[n:], kFactor)
	}
}

// AddBToMatrix implements graph.DampingAssembler: bFactor·c u uᵀ blocks
// of the edge springs (the altitude springs have no damping).
func (c *MeshSpringForceField) AddBToMatrix(m graph.MatrixAccumulator, bFactor float64) {
	c.ensureLinearised()
	c.set.addKBToMatrix(m, oneStateOffset, 0, bFactor)
}

// AddBToMatrix implements graph.DampingAssembler: bFactor·c u uᵀ blocks.
func (c *TriangularBendingSprings) AddBToMatrix(m graph.MatrixAccumulator, bFactor float64) {
	c.ensureLinearised()
	c.set.addKBToMatrix(m, oneStateOffset, 0, bFactor)
}

var (
	_ graph.StiffnessAssembler      = (*MeshSpringForceField)(nil)
	_ graph.StiffnessBlockAssembler = (*MeshSpringForceField)(nil)
	_ graph.StiffnessAssembler      = (*TriangularBendingSprings)(nil)
	_ graph.StiffnessBlockAssembler = (*TriangularBendingSprings)(nil)
	_ graph.DampingAssembler        = (*MeshSpringForceField)(nil)
	_ graph.DampingAssembler        = (*TriangularBendingSprings)(nil)
)
