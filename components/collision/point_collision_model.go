package collision

import (
	"github.com/sofago/sofago/graph"
)

// PointCollisionModel (SOFA's name) makes points of its node's Vec3 state
// collide with the closed surfaces of TriangleCollisionModels: all of them,
// or those selected by indices or box. Points cannot be penetrated; use it
// for objects represented by sample points (the corners of a rigid body, a
// frame-based model's samples) or to add interior points to a surface
// model. A CollisionPipeline above finds the contacts; the model is also a
// force field on its state (see model).
type PointCollisionModel struct {
	graph.ObjectBase
	graph.DOFSelection
	Group int `toml:"group" doc:"models with the same non-zero group never collide with each other" range:"[0,inf)"`

	m model
}

func init() {
	graph.Register(graph.TypeInfo{
		Name: "PointCollisionModel",
		Kind: graph.KindCollision,
		Summary: "Points of its node's Vec3 state (all, or by indices or box) as a collision model: pushed out of the closed surfaces of TriangleCollisionModels; " +
			"a force field on its state carrying the contact forces a CollisionPipeline finds.",
		New: func() graph.Object { return &PointCollisionModel{} },
	})
}

// Validate checks the selection.
func (c *PointCollisionModel) Validate() error { return c.CheckSelection() }

// Init selects the points and builds the geometry.
func (c *PointCollisionModel) Init() error {
	if c.m.state != nil {
		return nil
	}
	st, err := checkVec3(&c.ObjectBase, "PointCollisionModel")
	if err != nil {
		return err
	}
	sel, err := c.Select(st)
	if err != nil {
		return c.Wrap(err)
	}
	var pts []int32
	if sel == nil {
		for i := 0; i < st.Size(); i++ {
			pts = append(pts, int32(i))
		}
	} else {
		for _, i := range sel {
			pts = append(pts, int32(i))
		}
	}
	if len(pts) == 0 {
		return c.Errorf("state %q has no points", st.Base().Path())
	}
	if err := c.m.setup(&c.ObjectBase, st, pts, nil, nil); err != nil {
		return c.Wrap(err)
	}
	c.m.group = c.Group
	return nil
}

func (c *PointCollisionModel) collisionModel() *model { return &c.m }

// AddForce implements graph.ForceField: the step's contact forces.
func (c *PointCollisionModel) AddForce(f, x, v []float64) { c.m.addForce(f, x, v) }

// AddDForce implements graph.ForceField: the stiffness of contacts with static objects.
func (c *PointCollisionModel) AddDForce(df, dx []float64, kFactor, bFactor float64) {
	c.m.addDForce(df, dx, kFactor, bFactor)
}

// PotentialEnergy implements graph.ForceField: Σ γ/2 δ² of contacts with static objects.
func (c *PointCollisionModel) PotentialEnergy(x []float64) float64 { return c.m.energy(x) }

// AddKToMatrix implements graph.StiffnessAssembler: the stiffness of the
// contacts with static objects at the last AddForce (3×3 blocks between
// each contact's points; the held forces of other solvers' contacts have
// none), so assembled solvers need not probe it.
func (c *PointCollisionModel) AddKToMatrix(m graph.MatrixAccumulator, kFactor float64) {
	c.m.addKToMatrix(m, kFactor)
}

// AddBToMatrix implements graph.DampingAssembler: the dashpot and friction
// velocity derivatives of those contacts.
func (c *PointCollisionModel) AddBToMatrix(m graph.MatrixAccumulator, bFactor float64) {
	c.m.addBToMatrix(m, bFactor)
}

var (
	_ graph.StiffnessAssembler = (*PointCollisionModel)(nil)
	_ graph.DampingAssembler   = (*PointCollisionModel)(nil)
)
