package constraint

import (
	"fmt"
	"slices"

	"github.com/sofago/sofago/graph"
)

// FixedConstraint clamps DOFs of its node's state (SOFA's FixedConstraint):
// the selected DOFs keep the coordinates they had at Init, their velocities
// are zero, and every derivative vector a solver projects (forces, search
// directions, velocity changes) has its components there zeroed.
//
// It is generic over the template: a Vec3 point loses its 3 derivative
// components, a Rigid3 frame its 6 (translation and rotation), a Vec1
// coordinate its one. DOFs are selected by exactly one of indices, box
// (on the first three rest coordinates, i.e. the position of a point or the
// origin of a frame) or fixAll. Selecting nothing is an error, never a
// silent no-op.
type FixedConstraint struct {
	graph.ObjectBase
	graph.DOFSelection
	FixAll bool `toml:"fixAll" doc:"fix every DOF of the state"`

	fixed  []int     // sorted, unique
	x0     []float64 // coordinates of the fixed DOFs at Init, CoordSize each
	cs, ds int
}

func init() {
	graph.Register(graph.TypeInfo{
		Name:    "FixedConstraint",
		Kind:    graph.KindConstraint,
		Summary: "Clamps selected DOFs (indices, a box on rest positions, or all) at their initial coordinates: zero velocity, and their components of every projected derivative vector zeroed. Works for any template (Vec3 points, Rigid3 frames, ...).",
		New:     func() graph.Object { return &FixedConstraint{} },
	})
}

// Validate checks that exactly one selection is given and the box is well formed.
func (c *FixedConstraint) Validate() error {
	given := 0
	for _, g := range []bool{len(c.Indices) > 0, len(c.Box) > 0, c.FixAll} {
		if g {
			given++
		}
	}
	switch {
	case given == 0:
		return fmt.Errorf("nothing to fix: give indices, box or fixAll")
	case given > 1:
		return fmt.Errorf("give only one of indices, box and fixAll")
	}
	return c.CheckSelection()
}

// Init resolves the selection against the state and records the initial
// coordinates of the fixed DOFs.
func (c *FixedConstraint) Init() error {
	if err := c.Validate(); err != nil {
		return c.Wrap(err)
	}
	st := c.Node.State()
	if st == nil {
		return c.Errorf("needs a mechanical state in the same node")
	}
	tmpl := st.Template()
	c.cs, c.ds = tmpl.CoordSize(), tmpl.DerivSize()
	n := st.Size()
	c.fixed = c.fixed[:0]
	switch {
	case c.FixAll:
		for i := 0; i < n; i++ {
			c.fixed = append(c.fixed, i)
		}
	default:
		sel, err := c.Select(st)
		if err != nil {
			return c.Wrap(err)
		}
		c.fixed = append(c.fixed, sel...)
		slices.Sort(c.fixed)
	}
	x := st.Vec(graph.Position)
	c.x0 = make([]float64, 0, c.cs*len(c.fixed))
	for _, i := range c.fixed {
		c.x0 = append(c.x0, x[c.cs*i:c.cs*i+c.cs]...)
	}
	return nil
}

// Fixed returns the indices of the fixed DOFs, sorted (not a copy).
func (c *FixedConstraint) Fixed() []int { return c.fixed }

// ProjectResponse zeroes the derivative components of the fixed DOFs.
func (c *FixedConstraint) ProjectResponse(dx []float64) {
	ds := c.ds
	for _, i := range c.fixed {
		clear(dx[ds*i : ds*i+ds])
	}
}

// ProjectPosition puts the fixed DOFs back at their initial coordinates.
func (c *FixedConstraint) ProjectPosition(x []float64, t float64) {
	cs := c.cs
	for k, i := range c.fixed {
		copy(x[cs*i:cs*i+cs], c.x0[cs*k:cs*k+cs])
	}
}

// ProjectVelocity zeroes the velocities of the fixed DOFs.
func (c *FixedConstraint) ProjectVelocity(v []float64, t float64) { c.ProjectResponse(v) }
