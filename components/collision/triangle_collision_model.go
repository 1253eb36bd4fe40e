package collision

import (
	"github.com/sofago/sofago/graph"
)

// TriangleCollisionModel (SOFA's name) makes the closed triangle surface of
// its node's Vec3 state collide: its triangles (from the node's topology,
// or the nearest ancestor's — a FEM object's boundary triangles, a
// MeshLoader surface) can be penetrated by the points of other models, and
// its vertices penetrate the surfaces of others. Penetration is measured
// against the volume the surface encloses, so it must be closed and
// oriented outwards.
//
// The state may be the object's own DOFs (a FEM mesh's boundary) or a
// surface mapped onto it (RigidMapping on a rigid body, later barycentric
// or skinning mappings): contact forces act on the surface points and go up
// through ApplyJT. A CollisionPipeline above finds the contacts; the model
// is also a force field on its state (see model).
type TriangleCollisionModel struct {
	graph.ObjectBase
	SelfCollision bool `toml:"selfCollision" doc:"also let the surface's own vertices collide with its non-neighbouring triangles (folds)"`
	Group         int  `toml:"group" doc:"models with the same non-zero group never collide with each other" range:"[0,inf)"`

	m model
}

func init() {
	graph.Register(graph.TypeInfo{
		Name: "TriangleCollisionModel",
		Kind: graph.KindCollision,
		Summary: "The closed triangle surface of its node's Vec3 state (the topology's triangles) as a collision model: other models' points are pushed out of it, its vertices out of theirs; " +
			"a force field on its state carrying the contact forces a CollisionPipeline finds.",
		New: func() graph.Object { return &TriangleCollisionModel{} },
	})
}

// Init checks the state and topology and builds the geometry.
func (c *TriangleCollisionModel) Init() error {
	if c.m.state != nil {
		return nil // set up already by the pipeline
	}
	st, err := checkVec3(&c.ObjectBase, "TriangleCollisionModel")
	if err != nil {
		return err
	}
	topo := c.Node.Topology()
	if topo == nil || len(topo.Triangles()) == 0 {
		return c.Errorf("needs triangles: a topology with a surface in this node or above (RegularGridTopology, MeshLoader, SparseGridTopology)")
	}
	if err := c.m.setup(&c.ObjectBase, st, nil, topo.Triangles(), nil); err != nil {
		return c.Errorf("triangles of topology %q: %v", topo.Base().Name, err)
	}
	c.m.self, c.m.group = c.SelfCollision, c.Group
	return nil
}

func (c *TriangleCollisionModel) collisionModel() *model { return &c.m }

// AddForce implements graph.ForceField: the step's contact forces.
func (c *TriangleCollisionModel) AddForce(f, x, v []float64) { c.m.addForce(f, x, v) }

// AddDForce implements graph.ForceField: the stiffness of contacts with static objects.
func (c *TriangleCollisionModel) AddDForce(df, dx []float64, kFactor, bFactor float64) {
	c.m.addDForce(df, dx, kFactor, bFactor)
}

// PotentialEnergy implements graph.ForceField: Σ γ/2 δ² of contacts with static objects.
func (c *TriangleCollisionModel) PotentialEnergy(x []float64) float64 { return c.m.energy(x) }

// AddKToMatrix implements graph.StiffnessAssembler: the stiffness of the
// contacts with static objects at the last AddForce (3×3 blocks between
// each contact's points; the held forces of other solvers' contacts have
// none), so assembled solvers need not probe it.
func (c *TriangleCollisionModel) AddKToMatrix(m graph.MatrixAccumulator, kFactor float64) {
	c.m.addKToMatrix(m, kFactor)
}

// AddBToMatrix implements graph.DampingAssembler: the dashpot and friction
// velocity derivatives of those contacts.
func (c *TriangleCollisionModel) AddBToMatrix(m graph.MatrixAccumulator, bFactor float64) {
	c.m.addBToMatrix(m, bFactor)
}

var (
	_ graph.StiffnessAssembler = (*TriangleCollisionModel)(nil)
	_ graph.DampingAssembler   = (*TriangleCollisionModel)(nil)
)
