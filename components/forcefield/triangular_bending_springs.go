package forcefield

import (
	"errors"
	"fmt"

	"github.com/sofago/sofago/graph"
)

// TriangularBendingSprings (SOFA's name) resists the bending of a triangle
// surface with springs alone: across every interior edge (i, j), shared by
// the triangles (i, j, k) and (j, i, l), a spring joins the two opposite
// corners k and l, rest length their rest distance. Folding the two
// triangles about the edge shortens that spring, so together with springs
// on the edges themselves (MeshSpringForceField's trianglesStiffness) a
// sheet of springs behaves like cloth. The spring law, exact tangent and
// damping matrix are SpringForceField's (springSet).
//
// The triangles are those of the node's topology (a surface mesh, a
// RegularGridTopology with one axis of n = 1, or the boundary of a volume
// mesh). An edge shared by more than two triangles is an error (which
// pairs to join is ambiguous). Compared with SOFA: stiffness has no
// default (SOFA's is 1e5 N/m) and damping defaults to 0 (SOFA's to 1).
type TriangularBendingSprings struct {
	graph.ObjectBase
	Stiffness float64 `toml:"stiffness" doc:"stiffness of every bending spring" unit:"N/m" range:"[0,inf)" required:"true"`
	Damping   float64 `toml:"damping" doc:"damping along every bending spring" unit:"N·s/m" range:"[0,inf)"`

	state    graph.State
	set      *springSet
	blocks   []int32
	scratchF []float64
}

func init() {
	graph.Register(graph.TypeInfo{
		Name: "TriangularBendingSprings",
		Kind: graph.KindForceField,
		Summary: "Bending springs of a triangle surface: across every interior edge, a spring between the two corners opposite it; " +
			"with edge springs, cloth from springs alone. Energy, exact tangent, damping matrix.",
		New: func() graph.Object { return &TriangularBendingSprings{} },
	})
}

// Init builds a spring across every interior edge of the topology's
// triangles.
func (c *TriangularBendingSprings) Init() error { return c.Wrap(c.initialise()) }

func (c *TriangularBendingSprings) initialise() error {
	st := c.Node.State()
	if st == nil {
		return errors.New("needs a Vec3 MechanicalObject in the same node")
	}
	if tn := st.Template().Name(); tn != graph.Vec3.Name() {
		return fmt.Errorf("state %q has template %s; TriangularBendingSprings needs Vec3", st.Base().Path(), tn)
	}
	topo := c.Node.Topology()
	if topo == nil || len(topo.Triangles()) == 0 {
		return errors.New("needs a topology with triangles in this node or above (a surface mesh, or a RegularGridTopology with n = 1 along one axis)")
	}
	c.state = st
	np := st.Size()
	rest := st.Vec(graph.RestPosition)
	tris := topo.Triangles()
	// For every edge, the corners opposite it, in triangle order.
	type side struct {
		opp, tri int
	}
	index := map[[2]int]int{}
	var edgeKeys [][2]int
	var sides [][]side
	for t, tri := range tris {
		for _, v := range tri {
			if v < 0 || v >= np {
				return fmt.Errorf("triangle %d: vertex %d is out of range [0, %d) of state %q", t, v, np, st.Base().Path())
			}
		}
		for i := 0; i < 3; i++ {
			key := sorted2(tri[i], tri[(i+1)%3])
			e, ok := index[key]
			if !ok {
				e = len(edgeKeys)
				index[key] = e
				edgeKeys = append(edgeKeys, key)
				sides = append(sides, nil)
			}
			sides[e] = append(sides[e], side{opp: tri[(i+2)%3], tri: t})
		}
	}
	var defs []springDef
	for e, sd := range sides {
		switch len(sd) {
		case 1:
			continue // a border edge
		case 2:
		default:
			return fmt.Errorf("edge (%d, %d) is shared by %d triangles (%d, %d, %d, ...); bending springs need each edge in at most two",
				edgeKeys[e][0], edgeKeys[e][1], len(sd), sd[0].tri, sd[1].tri, sd[2].tri)
		}
		k, l := sd[0].opp, sd[1].opp
		if k == l {
			return fmt.Errorf("triangles %d and %d are the same triangle (vertices %d, %d, %d)", sd[0].tri, sd[1].tri, edgeKeys[e][0], edgeKeys[e][1], k)
		}
		l0 := dist3(rest[3*k:3*k+3], rest[3*l:3*l+3])
		defs = append(defs, springDef{a: k, b: l, k: c.Stiffness, c: c.Damping, l0: l0})
	}
	if len(defs) == 0 {
		return errors.New("the triangles have no interior edge: nothing to bend")
	}
	set, err := newSpringSet(defs, []int{np}, func(s int) string {
		return fmt.Sprintf("bending spring %d (points %d, %d)", s, defs[s].a, defs[s].b)
	})
	if err != nil {
		return err
	}
	c.set = set
	return nil
}

// NumSprings returns the number of bending springs (after Init).
func (c *TriangularBendingSprings) NumSprings() int { return c.set.numSprings() }

// Spring returns the points and rest length of bending spring s.
func (c *TriangularBendingSprings) Spring(s int) (a, b int, restLength float64) {
	return int(c.set.a[s]), int(c.set.b[s]), c.set.l0[s]
}

// AddForce implements graph.ForceField.
func (c *TriangularBendingSprings) AddForce(f, x, v []float64) {
	c.set.addForce(c.set.oneState(0, f), c.set.oneState(1, x), c.set.oneState(2, v))
}

// AddDForce implements graph.ForceField: kFactor·K·dx + bFactor·B·dx at
// the x of the last AddForce (at the state's position if there was none).
func (c *TriangularBendingSprings) AddDForce(df, dx []float64, kFactor, bFactor float64) {
	c.ensureLinearised()
	c.set.addDForce(c.set.oneState(0, df), c.set.oneState(1, dx), kFactor, bFactor)
}

func (c *TriangularBendingSprings) ensureLinearised() {
	if c.set.linearised {
		return
	}
	if c.scratchF == nil {
		c.scratchF = make([]float64, 3*c.state.Size())
	}
	c.AddForce(c.scratchF, c.state.Vec(graph.Position), c.state.Vec(graph.Velocity))
}

// PotentialEnergy implements graph.ForceField: Σ ½ k (l − l₀)².
func (c *TriangularBendingSprings) PotentialEnergy(x []float64) float64 {
	return c.set.energy(c.set.oneState(1, x))
}

// AddKToMatrix implements graph.StiffnessAssembler.
func (c *TriangularBendingSprings) AddKToMatrix(m graph.MatrixAccumulator, kFactor float64) {
	c.ensureLinearised()
	c.set.addKToMatrix(m, kFactor)
}

// StiffnessBlocks implements graph.StiffnessBlockAssembler: four blocks
// per spring, (a, a), (a, b), (b, a), (b, b).
func (c *TriangularBendingSprings) StiffnessBlocks() []int32 {
	if c.set == nil {
		return nil
	}
	if c.blocks == nil {
		c.blocks = c.set.stiffnessBlocks()
	}
	return c.blocks
}

// KBlocks implements graph.StiffnessBlockAssembler: kFactor·[[−M, M],
// [M, −M]] per spring at the last AddForce.
func (c *TriangularBendingSprings) KBlocks(vals []float64, kFactor float64) {
	c.ensureLinearised()
	c.set.kBlocks(vals, kFactor)
}
