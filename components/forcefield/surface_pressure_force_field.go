package forcefield

import (
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
)

// SurfacePressureForceField applies a uniform pressure to triangles of the
// surface of a Vec3 state (SOFA's name): the boundary triangles of the
// node's tetrahedral topology (or the triangles of a surface mesh),
// selected by a box, triangle indices or a surface file (SurfaceSelection;
// all of them by default).
//
// Sign (SOFA's): a positive pressure pushes along each triangle's normal,
// which for the outward boundary of a mesh is an internal pressure
// inflating the body; an external pressure, compressing it, is negative.
//
// Dead load (follower = false, the default): the pressure acts on the rest
// surface, each triangle of rest area A₀ and outward unit normal n₀ giving
// p·A₀·n₀/3 to each of its three vertices — the consistent nodal loads of
// linear triangles (the exact integral of the pressure against each
// vertex's shape function). The forces do not depend on the configuration:
// zero stiffness, W = −Σ f·x.
//
// Follower load (follower = true, SOFA's behaviour): the pressure acts on
// the current triangle along its current normal,
//
//	f_a = f_b = f_c = (p/6)·(x_b − x_a) × (x_c − x_a)   (= p·A·n/3),
//
// and AddDForce holds its exact derivative, (p/6)·(dx_ab × e_ac + e_ab ×
// dx_ac) on each vertex, which is not symmetric triangle by triangle. On a
// closed surface (or a patch whose boundary vertices are fixed) the
// follower load is conservative — f = −∂W/∂x with W = −p·V(x), V the
// volume the triangles enclose (Σ x_a·(x_b × x_c)/6) — and the summed
// tangent is symmetric; that W is the potential energy reported. On a
// patch with free boundary vertices the work of the pressure depends on the
// path: the tangent is then not symmetric, which CGLinearSolver and
// SparseCholeskySolver assume (DenseDirectSolver takes it by LU).
//
// The pressure is an external load: it is scaled by the node's load factor
// (StaticSolver's loadSteps) and by the optional time profile keyTimes /
// keyFactors (LoadRamp).
type SurfacePressureForceField struct {
	graph.ObjectBase
	SurfaceSelection
	Pressure float64 `toml:"pressure" doc:"pressure, positive along the triangles' outward normals (inflating, as SOFA); an external pressure is negative" unit:"Pa" required:"true"`
	Follower bool    `toml:"follower" doc:"false: dead load on the rest surface (consistent nodal loads p·A₀·n₀/3); true: the pressure follows the current triangles' area and normal (SOFA's), with its exact tangent"`
	LoadRamp

	tris [][3]int
	f0   []float64 // dead load: the nodal forces at full pressure
	x    []float64 // follower load: the coordinates of the last AddForce
}

func init() {
	graph.Register(graph.TypeInfo{
		Name: "SurfacePressureForceField",
		Kind: graph.KindForceField,
		Summary: "Uniform pressure on surface triangles (boundary of the tetrahedral topology, selected by box, triangleIndices or a surface file): a dead load on the rest surface (consistent nodal loads p·A₀·n₀/3) or " +
			"a follower load on the current one (follower = true) with its exact tangent; positive inflates (SOFA's sign); optional keyTimes/keyFactors ramp.",
		New: func() graph.Object { return &SurfacePressureForceField{} },
	})
}

// Validate checks the selection and the ramp.
func (c *SurfacePressureForceField) Validate() error {
	if err := c.checkSurface(); err != nil {
		return err
	}
	return c.checkRamp()
}

// Init resolves the triangles and, for a dead load, the nodal forces.
func (c *SurfacePressureForceField) Init() error {
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
	for _, t := range c.tris {
		// (p/6)(x_b − x_a) × (x_c − x_a) = p·A₀·n₀/3 per vertex.
		g := triNormal2(rest, t).Scale(c.Pressure / 6)
		for _, v := range t {
			geom.AddAt(c.f0, v, g)
		}
	}
	return nil
}

// vec3State returns the Vec3 state of the node of b.
func vec3State(b *graph.ObjectBase) (graph.State, error) {
	st := b.Node.State()
	if st == nil {
		return nil, b.Errorf("needs a Vec3 MechanicalObject in the same node")
	}
	if st.Template().Name() != graph.Vec3.Name() {
		return nil, b.Errorf("state %q has template %s; surface loads act on Vec3 points", st.Base().Path(), st.Template().Name())
	}
	return st, nil
}

// triNormal2 returns (x_b − x_a) × (x_c − x_a): twice the area times the
// unit normal of triangle t at coordinates x.
func triNormal2(x []float64, t [3]int) geom.Vec3 {
	a := geom.At(x, t[0])
	return geom.At(x, t[1]).Sub(a).Cross(geom.At(x, t[2]).Sub(a))
}

// Triangles returns the loaded triangles (not a copy).
func (c *SurfacePressureForceField) Triangles() [][3]int { return c.tris }

// BeginStep implements graph.Behavior: the ramp's factor for the step.
func (c *SurfacePressureForceField) BeginStep(t, dt float64) error {
	c.stepRamp(t, dt)
	return nil
}

// scale is the factor on the pressure: load factor × ramp.
func (c *SurfacePressureForceField) scale() float64 {
	s := c.Factor()
	if c.Node != nil {
		s *= c.Node.LoadFactor()
	}
	return s
}

// AddForce implements graph.ForceField.
func (c *SurfacePressureForceField) AddForce(f, x, v []float64) {
	s := c.scale()
	if !c.Follower {
		for i, g := range c.f0 {
			f[i] += s * g
		}
		return
	}
	c.x = append(c.x[:0], x...)
	p := s * c.Pressure / 6
	for _, t := range c.tris {
		g := triNormal2(x, t).Scale(p)
		for _, vi := range t {
			geom.AddAt(f, vi, g)
		}
	}
}

// AddDForce implements graph.ForceField: zero for a dead load; for a
// follower load kFactor·(p/6)·(dx_ab × e_ac + e_ab × dx_ac) on each vertex
// of each triangle, at the x of the last AddForce (kept in the state).
func (c *SurfacePressureForceField) AddDForce(df, dx []float64, kFactor, bFactor float64) {
	if !c.Follower || kFactor == 0 {
		return
	}
	x := c.x
	if x == nil {
		x = c.Node.State().Vec(graph.Position)
	}
	p := kFactor * c.scale() * c.Pressure / 6
	for _, t := range c.tris {
		a := geom.At(x, t[0])
		eb, ec := geom.At(x, t[1]).Sub(a), geom.At(x, t[2]).Sub(a)
		da := geom.At(dx, t[0])
		db, dc := geom.At(dx, t[1]).Sub(da), geom.At(dx, t[2]).Sub(da)
		g := db.Cross(ec).Add(eb.Cross(dc)).Scale(p)
		for _, vi := range t {
			geom.AddAt(df, vi, g)
		}
	}
}

// AddKToMatrix implements graph.StiffnessAssembler: nothing for a dead
// load; for a follower load the blocks ∂f/∂x_a = (p/6)[x_c − x_b]×,
// ∂f/∂x_b = −(p/6)[e_ac]×, ∂f/∂x_c = (p/6)[e_ab]× of each triangle on
// each of its vertices (not symmetric per triangle; symmetric summed over a
// closed surface).
func (c *SurfacePressureForceField) AddKToMatrix(m graph.MatrixAccumulator, kFactor float64) {
	if !c.Follower {
		return
	}
	x := c.x
	if x == nil {
		x = c.Node.State().Vec(graph.Position)
	}
	p := kFactor * c.scale() * c.Pressure / 6
	for _, t := range c.tris {
		a := geom.At(x, t[0])
		eb, ec := geom.At(x, t[1]).Sub(a), geom.At(x, t[2]).Sub(a)
		blocks := [3]geom.Mat3{
			ec.Sub(eb).Skew().Scale(p), // ∂/∂x_a: [x_c − x_b]×
			ec.Skew().Scale(-p),        // ∂/∂x_b: −[e_ac]×
			eb.Skew().Scale(p),         // ∂/∂x_c: [e_ab]×
		}
		for _, row := range t {
			for k, col := range t {
				for i := 0; i < 3; i++ {
					for j := 0; j < 3; j++ {
						// Zeros too: the pattern does not depend on values.
						m.Add(3*row+i, 3*col+j, blocks[k][3*i+j])
					}
				}
			}
		}
	}
}

// PotentialEnergy implements graph.ForceField: −Σ f·x for a dead load;
// −p·V(x) for a follower load (exact on closed surfaces and on patches
// with fixed boundary vertices, see the type's doc).
func (c *SurfacePressureForceField) PotentialEnergy(x []float64) float64 {
	s := c.scale()
	e := 0.0
	if !c.Follower {
		for i, g := range c.f0 {
			e -= g * x[i]
		}
		return s * e
	}
	for _, t := range c.tris {
		e += geom.At(x, t[0]).Dot(geom.At(x, t[1]).Cross(geom.At(x, t[2])))
	}
	return -s * c.Pressure * e / 6
}

// EnclosedVolume returns Σ x_a·(x_b × x_c)/6 over the loaded triangles at
// x: the volume they enclose when they form a closed outward surface.
func (c *SurfacePressureForceField) EnclosedVolume(x []float64) float64 {
	v := 0.0
	for _, t := range c.tris {
		v += geom.At(x, t[0]).Dot(geom.At(x, t[1]).Cross(geom.At(x, t[2])))
	}
	return v / 6
}

var _ graph.StiffnessAssembler = (*SurfacePressureForceField)(nil)
