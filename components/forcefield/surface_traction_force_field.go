package forcefield

import (
	"fmt"
	"math"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
)

// SurfaceTractionForceField applies a uniform traction (a force per unit
// area, any direction) to triangles of the surface of a Vec3 state —
// the boundary triangles of the node's tetrahedral topology, or the
// triangles of a surface mesh, selected as by SurfacePressureForceField
// (box, triangleIndices, filename; all by default) — as consistent nodal
// loads: each triangle of rest area A₀ gives A₀·t/3 to each of its three
// vertices, the exact integral of the traction against each vertex's
// linear shape function. A face load applied this way has the exact
// resultant (t × the face's area) and moment on any mesh.
//
// This is what ConstantForceField's totalForce is not: totalForce divides
// the load evenly among the selected vertices, which is the consistent load
// only on a uniform grid's interior; on an irregular mesh (or at the edges
// and corners of any face) it puts the same force on a vertex carrying a
// sliver and on one carrying a large patch, so the load's moment and the
// stresses near the face are wrong.
//
// The traction is a dead load on the rest surface: zero stiffness,
// W = −Σ f·x, scaled by the node's load factor (StaticSolver's loadSteps)
// and the optional time profile keyTimes / keyFactors (LoadRamp).
type SurfaceTractionForceField struct {
	graph.ObjectBase
	SurfaceSelection
	Traction []float64 `toml:"traction" doc:"force per unit rest area [tx, ty, tz] on the selected triangles" unit:"Pa" required:"true"`
	LoadRamp

	tris [][3]int
	f0   []float64
	area float64
}

func init() {
	graph.Register(graph.TypeInfo{
		Name: "SurfaceTractionForceField",
		Kind: graph.KindForceField,
		Summary: "Uniform traction (force per unit area, any direction) on surface triangles (box, triangleIndices or a surface file) as consistent nodal loads: A₀·t/3 per triangle to each vertex, " +
			"exact resultant and moment on any mesh (unlike totalForce's even spread); dead load; optional keyTimes/keyFactors ramp.",
		New: func() graph.Object { return &SurfaceTractionForceField{} },
	})
}

// Validate checks the traction, the selection and the ramp.
func (c *SurfaceTractionForceField) Validate() error {
	if len(c.Traction) != 3 {
		return fmt.Errorf("traction has %d numbers, want 3: [tx, ty, tz]", len(c.Traction))
	}
	for j, v := range c.Traction {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("traction[%d] = %g is not finite", j, v)
		}
	}
	if err := c.checkSurface(); err != nil {
		return err
	}
	return c.checkRamp()
}

// Init resolves the triangles and the nodal loads.
func (c *SurfaceTractionForceField) Init() error {
	if err := c.Validate(); err != nil {
		return c.Wrap(err)
	}
	st, err := vec3State(&c.ObjectBase)
	if err != nil {
		return err
	}
	if c.tris, err = c.selectTriangles(&c.ObjectBase, st); err != nil {
		return c.Wrap(err)
	}
	if err := c.initRamp(&c.ObjectBase); err != nil {
		return c.Wrap(err)
	}
	rest := st.Vec(graph.RestPosition)
	c.f0 = make([]float64, len(rest))
	c.area = 0
	t := geom.Vec3{c.Traction[0], c.Traction[1], c.Traction[2]}
	for _, tri := range c.tris {
		a := 0.5 * triNormal2(rest, tri).Norm()
		c.area += a
		g := t.Scale(a / 3)
		for _, v := range tri {
			geom.AddAt(c.f0, v, g)
		}
	}
	return nil
}

// Triangles returns the loaded triangles (not a copy).
func (c *SurfaceTractionForceField) Triangles() [][3]int { return c.tris }

// Area returns the rest area of the loaded triangles.
func (c *SurfaceTractionForceField) Area() float64 { return c.area }

// BeginStep implements graph.Behavior: the ramp's factor for the step.
func (c *SurfaceTractionForceField) BeginStep(t, dt float64) error {
	c.stepRamp(t, dt)
	return nil
}

func (c *SurfaceTractionForceField) scale() float64 {
	s := c.Factor()
	if c.Node != nil {
		s *= c.Node.LoadFactor()
	}
	return s
}

// AddForce implements graph.ForceField.
func (c *SurfaceTractionForceField) AddForce(f, x, v []float64) {
	s := c.scale()
	for i, g := range c.f0 {
		f[i] += s * g
	}
}

// AddDForce adds nothing: a dead load has no stiffness.
func (c *SurfaceTractionForceField) AddDForce(df, dx []float64, kFactor, bFactor float64) {}

// PotentialEnergy implements graph.ForceField: −Σ f·x.
func (c *SurfaceTractionForceField) PotentialEnergy(x []float64) float64 {
	e := 0.0
	for i, g := range c.f0 {
		e -= g * x[i]
	}
	return c.scale() * e
}
