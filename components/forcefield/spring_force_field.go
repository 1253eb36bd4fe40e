package forcefield

import (
	"errors"
	"fmt"
	"math"

	"github.com/sofago/sofago/graph"
)

// SpringForceField (SOFA's name) joins pairs of points by springs: points
// of one Vec3 state, or a point of one state (object1) to a point of
// another (object2) — an interaction force field, so the two states may be
// two objects integrated by one solver (a spring attachment between
// them). Each spring has a stiffness k, a damping c along the spring and a
// rest length l₀ (by default the distance of the two points at rest):
//
//	W = ½ k (l − l₀)²,  f_a = k (l − l₀) u + c (u·(v_b − v_a)) u,  f_b = −f_a,
//
// with l the length and u the unit vector from a to b. The tangent is the
// exact derivative of these forces, transverse (geometric) part
// k (l − l₀)/l (I − u uᵀ) included, and the damping matrix B = ∂f/∂v is
// c u uᵀ per spring (see springSet). Springs come from indices1/indices2
// (with one stiffness, damping and optional lengths for all) and/or from a
// springs table with the values of each.
//
// SOFA's StiffSpringForceField is this component: SOFA's SpringForceField
// has no stiffness matrix (explicit integration only) and its
// StiffSpringForceField adds one; here every force field has its exact
// tangent, so one type does both (graph/sofa_names.go points the other
// name here). Compared with SOFA: damping defaults to 0, not 5 (damping
// is a modelling choice, and Rayleigh damping lives on the ODE solver).
type SpringForceField struct {
	graph.ObjectBase
	Object1   graph.Link `toml:"object1" doc:"Vec3 state of the first point of every spring (indices1, m1 index it); default: the state of this node"`
	Object2   graph.Link `toml:"object2" doc:"Vec3 state of the second point (indices2, m2); default: object1"`
	Indices1  []int      `toml:"indices1" doc:"first point of each spring (with indices2; stiffness, damping and lengths apply)" range:"[0,inf)"`
	Indices2  []int      `toml:"indices2" doc:"second point of each spring" range:"[0,inf)"`
	Lengths   []float64  `toml:"lengths" doc:"rest length of each spring of indices1/indices2, or one value for all (default: the distance of the two points at rest)" unit:"m" range:"[0,inf)"`
	Stiffness float64    `toml:"stiffness" doc:"stiffness of the springs of indices1/indices2" unit:"N/m" range:"[0,inf)"`
	Damping   float64    `toml:"damping" doc:"damping along the springs of indices1/indices2 (force c·(relative velocity along the spring))" unit:"N·s/m" range:"[0,inf)"`
	Springs   []Spring   `toml:"springs" doc:"springs with their own values, each a table {m1, m2, stiffness, damping, restLength}; added after those of indices1/indices2"`

	states []graph.State
	idx2   int // index of object2 in states
	set    *springSet
	xs     [][]float64 // scratch for a linearisation at the current positions
	scr    [][]float64
}

// Spring is one spring of a SpringForceField's springs table (SOFA's
// "m1 m2 ks kd L").
type Spring struct {
	M1         int     `toml:"m1" doc:"point of object1" range:"[0,inf)" required:"true"`
	M2         int     `toml:"m2" doc:"point of object2" range:"[0,inf)" required:"true"`
	Stiffness  float64 `toml:"stiffness" doc:"stiffness" unit:"N/m" range:"[0,inf)" required:"true"`
	Damping    float64 `toml:"damping" doc:"damping along the spring" unit:"N·s/m" range:"[0,inf)"`
	RestLength float64 `toml:"restLength" doc:"rest length (0: a zero-length spring)" unit:"m" range:"[0,inf)" required:"true"`
}

func init() {
	graph.Register(graph.TypeInfo{
		Name: "SpringForceField",
		Kind: graph.KindForceField,
		Summary: "Springs between pairs of points of one Vec3 state or of two (an interaction force field): per-spring stiffness, damping along the spring and rest length (default: the rest distance); " +
			"energy, exact tangent including the transverse part, damping matrix. SOFA's StiffSpringForceField is this type.",
		New: func() graph.Object { return NewSpringForceField() },
	})
}

// NewSpringForceField returns a force field without springs and SOFA's
// default stiffness 100 N/m (for code that builds scenes: set the
// springs, and Object1/Object2 or SetStates).
func NewSpringForceField() *SpringForceField {
	return &SpringForceField{ObjectBase: graph.ObjectBase{Name: "SpringForceField", TypeName: "SpringForceField"}, Stiffness: 100}
}

// SetStates sets the two states directly (s2 may equal s1), for code that
// builds scenes without a scene file; Init then keeps them.
func (c *SpringForceField) SetStates(s1, s2 graph.State) {
	c.states = []graph.State{s1}
	c.idx2 = 0
	if s2 != s1 {
		c.states = append(c.states, s2)
		c.idx2 = 1
	}
}

// Validate checks the fields that do not need the states.
func (c *SpringForceField) Validate() error {
	if len(c.Indices1) != len(c.Indices2) {
		return fmt.Errorf("indices1 has %d points and indices2 %d: give one pair per spring", len(c.Indices1), len(c.Indices2))
	}
	if n := len(c.Lengths); n > 1 && n != len(c.Indices1) {
		return fmt.Errorf("lengths has %d values for %d springs of indices1/indices2: give one per spring, one for all, or none (the rest distances)", n, len(c.Indices1))
	}
	if len(c.Lengths) > 0 && len(c.Indices1) == 0 {
		return errors.New("lengths is given without indices1/indices2 (the springs table gives each spring's restLength)")
	}
	if len(c.Indices1) == 0 && len(c.Springs) == 0 {
		return errors.New("no springs: give indices1 and indices2, or springs = [{m1 = …, m2 = …, stiffness = …, restLength = …}, …]")
	}
	return nil
}

// States implements graph.InteractionForceField: one state, or two.
func (c *SpringForceField) States() []graph.State { return c.states }

// linkedVec3State resolves a link to a Vec3 state (or the state of node
// when the link is not set).
func linkedVec3State(name string, l graph.Link, node *graph.Node) (graph.State, error) {
	var st graph.State
	switch {
	case !l.IsSet():
		if node == nil || node.State() == nil {
			return nil, fmt.Errorf("no %s given and no mechanical state in this node", name)
		}
		st = node.State()
	case l.Object != nil:
		s, ok := l.Object.(graph.State)
		if !ok {
			return nil, fmt.Errorf("%s %q is not a mechanical state", name, l.Path)
		}
		st = s
	case l.Node != nil && l.Node.State() != nil:
		st = l.Node.State()
	default:
		return nil, fmt.Errorf("%s %q has no mechanical state", name, l.Path)
	}
	if tn := st.Template().Name(); tn != graph.Vec3.Name() {
		return nil, fmt.Errorf("%s %q has template %s; springs join Vec3 points", name, st.Base().Path(), tn)
	}
	return st, nil
}

// Init resolves the states and builds the springs, with the rest
// distances where no length is given.
func (c *SpringForceField) Init() error { return c.Wrap(c.initialise()) }

func (c *SpringForceField) initialise() error {
	if err := c.Validate(); err != nil {
		return err
	}
	if c.states == nil {
		s1, err := linkedVec3State("object1", c.Object1, c.Node)
		if err != nil {
			return err
		}
		s2 := s1
		if c.Object2.IsSet() {
			if s2, err = linkedVec3State("object2", c.Object2, c.Node); err != nil {
				return err
			}
		}
		c.SetStates(s1, s2)
	}
	s1, s2 := c.states[0], c.states[c.idx2]
	rest := [][]float64{s1.Vec(graph.RestPosition), s2.Vec(graph.RestPosition)}
	nList := len(c.Indices1)
	defs := make([]springDef, 0, nList+len(c.Springs))
	for i := range c.Indices1 {
		d := springDef{sa: 0, a: c.Indices1[i], sb: c.idx2, b: c.Indices2[i], k: c.Stiffness, c: c.Damping, l0: -1}
		switch len(c.Lengths) {
		case 1:
			d.l0 = c.Lengths[0]
		case nList:
			d.l0 = c.Lengths[i]
		}
		defs = append(defs, d)
	}
	for _, sp := range c.Springs {
		defs = append(defs, springDef{sa: 0, a: sp.M1, sb: c.idx2, b: sp.M2, k: sp.Stiffness, c: sp.Damping, l0: sp.RestLength})
	}
	name := func(s int) string {
		if s < nList {
			return fmt.Sprintf("spring %d (indices1[%d] = %d, indices2[%d] = %d of %q, %q)", s, s, c.Indices1[s], s, c.Indices2[s], s1.Base().Path(), s2.Base().Path())
		}
		j := s - nList
		return fmt.Sprintf("springs[%d] (m1 = %d of %q, m2 = %d of %q)", j, c.Springs[j].M1, s1.Base().Path(), c.Springs[j].M2, s2.Base().Path())
	}
	sizes := []int{s1.Size(), s2.Size()}[:len(c.states)]
	// Rest distances, once the indices are known to be in range.
	for s := range defs {
		d := &defs[s]
		if d.a < 0 || d.b < 0 || d.a >= sizes[0] || d.b >= sizes[d.sb] {
			continue // newSpringSet reports it
		}
		if d.l0 < 0 {
			xa, xb := rest[0][3*d.a:3*d.a+3], rest[1][3*d.b:3*d.b+3]
			d.l0 = dist3(xa, xb)
		}
	}
	set, err := newSpringSet(defs, sizes, name)
	if err != nil {
		return err
	}
	c.set = set
	return nil
}

func dist3(a, b []float64) float64 {
	x, y, z := b[0]-a[0], b[1]-a[1], b[2]-a[2]
	return math.Sqrt(x*x + y*y + z*z)
}

// SetWorkers fixes the number of goroutines of the spring loops
// (0: runtime.GOMAXPROCS(0)); results do not depend on it.
func (c *SpringForceField) SetWorkers(n int) { c.set.runner.Workers = n }

// NumSprings returns the number of springs (after Init).
func (c *SpringForceField) NumSprings() int { return c.set.numSprings() }

// RestLength returns the rest length of spring s (after Init).
func (c *SpringForceField) RestLength(s int) float64 { return c.set.l0[s] }

// AddForce implements graph.InteractionForceField.
func (c *SpringForceField) AddForce(f, x, v [][]float64) { c.set.addForce(f, x, v) }

// AddDForce implements graph.InteractionForceField: kFactor·K·dx +
// bFactor·B·dx at the last AddForce (at the states' current positions and
// velocities if there was none).
func (c *SpringForceField) AddDForce(df, dx [][]float64, kFactor, bFactor float64) {
	if !c.set.linearised {
		c.linearise()
	}
	c.set.addDForce(df, dx, kFactor, bFactor)
}

// AddKBToMatrix implements graph.InteractionMatrixAssembler: the blocks
// of every spring, kFactor·M + bFactor·c u uᵀ (see springSet), over the
// states concatenated.
func (c *SpringForceField) AddKBToMatrix(m graph.MatrixAccumulator, kFactor, bFactor float64) {
	if !c.set.linearised {
		c.linearise()
	}
	offs := make([]int, len(c.states))
	for i := 1; i < len(c.states); i++ {
		offs[i] = offs[i-1] + 3*c.states[i-1].Size()
	}
	c.set.addKBToMatrix(m, offs, kFactor, bFactor)
}

var _ graph.InteractionMatrixAssembler = (*SpringForceField)(nil)

// linearise runs AddForce at the states' current positions into scratch.
func (c *SpringForceField) linearise() {
	if c.scr == nil {
		for _, s := range c.states {
			c.scr = append(c.scr, make([]float64, 3*s.Size()))
		}
		c.xs = make([][]float64, 2*len(c.states))
	}
	for i, s := range c.states {
		c.xs[i] = s.Vec(graph.Position)
		c.xs[len(c.states)+i] = s.Vec(graph.Velocity)
	}
	n := len(c.states)
	c.set.addForce(c.scr, c.xs[:n], c.xs[n:])
}

// PotentialEnergy implements graph.InteractionForceField: Σ ½ k (l − l₀)².
func (c *SpringForceField) PotentialEnergy(x [][]float64) float64 { return c.set.energy(x) }
