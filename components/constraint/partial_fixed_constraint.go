package constraint

import (
	"fmt"
	"slices"

	"github.com/sofago/sofago/graph"
)

// PartialFixedConstraint clamps chosen components of selected DOFs (SOFA's
// PartialFixedConstraint): for each selected DOF, the components marked in
// fixedDirections keep the values they had at Init, their velocities are
// zero, and those components of every derivative vector a solver projects
// are zeroed; the other components move freely. Symmetry planes are its
// typical use: fixedDirections = [true, false, false] on the points of the
// plane x = 0 lets them slide in y and z, which is what removes rigid
// motions from a stretched bar without blocking its lateral contraction.
//
// It acts on vector templates (Vec3, Vec1, ...: coordinates and
// derivatives alike, one component each). DOFs are selected as by
// FixedConstraint: exactly one of indices, box (on rest positions) or
// fixAll; selecting nothing is an error.
type PartialFixedConstraint struct {
	graph.ObjectBase
	graph.DOFSelection
	FixAll          bool   `toml:"fixAll" doc:"select every DOF of the state"`
	FixedDirections []bool `toml:"fixedDirections" doc:"which components of each selected DOF to fix, one flag per component (Vec3: [x, y, z])" required:"true"`

	fixed []int     // sorted, unique
	dirs  []int     // fixed components
	x0    []float64 // initial values of the fixed components, len(dirs) per fixed DOF
	n     int       // components per DOF
}

func init() {
	graph.Register(graph.TypeInfo{
		Name:    "PartialFixedConstraint",
		Kind:    graph.KindConstraint,
		Summary: "Clamps chosen components (fixedDirections, e.g. [true, false, false] for x only) of selected DOFs (indices, a box on rest positions, or all) at their initial values: symmetry planes, sliding supports. Vector templates.",
		New:     func() graph.Object { return &PartialFixedConstraint{} },
	})
}

// Validate checks the selection and that some direction is fixed.
func (c *PartialFixedConstraint) Validate() error {
	given := 0
	for _, g := range []bool{len(c.Indices) > 0, len(c.Box) > 0, c.FixAll} {
		if g {
			given++
		}
	}
	switch {
	case given == 0:
		return fmt.Errorf("nothing selected: give indices, box or fixAll")
	case given > 1:
		return fmt.Errorf("give only one of indices, box and fixAll")
	case !slices.Contains(c.FixedDirections, true):
		return fmt.Errorf("fixedDirections = %v fixes no direction (use true for each fixed component)", c.FixedDirections)
	}
	return c.CheckSelection()
}

// Init resolves the selection and records the initial values of the fixed
// components.
func (c *PartialFixedConstraint) Init() error {
	if err := c.Validate(); err != nil {
		return c.Wrap(err)
	}
	st := c.Node.State()
	if st == nil {
		return c.Errorf("needs a mechanical state in the same node")
	}
	tmpl := st.Template()
	if tmpl.CoordSize() != tmpl.DerivSize() {
		return c.Errorf("template %s is not a vector template (coordinates %d, derivatives %d): fix whole DOFs with FixedConstraint", tmpl.Name(), tmpl.CoordSize(), tmpl.DerivSize())
	}
	c.n = tmpl.DerivSize()
	if len(c.FixedDirections) != c.n {
		return c.Errorf("fixedDirections has %d flags, template %s has %d components per DOF", len(c.FixedDirections), tmpl.Name(), c.n)
	}
	c.dirs = c.dirs[:0]
	for j, f := range c.FixedDirections {
		if f {
			c.dirs = append(c.dirs, j)
		}
	}
	c.fixed = c.fixed[:0]
	if c.FixAll {
		for i := 0; i < st.Size(); i++ {
			c.fixed = append(c.fixed, i)
		}
	} else {
		sel, err := c.Select(st)
		if err != nil {
			return c.Wrap(err)
		}
		c.fixed = append(c.fixed, sel...)
		slices.Sort(c.fixed)
	}
	x := st.Vec(graph.Position)
	c.x0 = c.x0[:0]
	for _, i := range c.fixed {
		for _, j := range c.dirs {
			c.x0 = append(c.x0, x[c.n*i+j])
		}
	}
	return nil
}

// Fixed returns the indices of the selected DOFs, sorted (not a copy).
func (c *PartialFixedConstraint) Fixed() []int { return c.fixed }

// ProjectResponse zeroes the fixed components of the selected DOFs.
func (c *PartialFixedConstraint) ProjectResponse(dx []float64) {
	for _, i := range c.fixed {
		for _, j := range c.dirs {
			dx[c.n*i+j] = 0
		}
	}
}

// ProjectPosition puts the fixed components back at their initial values.
func (c *PartialFixedConstraint) ProjectPosition(x []float64, t float64) {
	k := 0
	for _, i := range c.fixed {
		for _, j := range c.dirs {
			x[c.n*i+j] = c.x0[k]
			k++
		}
	}
}

// ProjectVelocity zeroes the velocities of the fixed components.
func (c *PartialFixedConstraint) ProjectVelocity(v []float64, t float64) { c.ProjectResponse(v) }
