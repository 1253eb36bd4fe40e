package forcefield

import (
	"fmt"

	"github.com/sofago/sofago/graph"
)

// ConstantForceField applies fixed forces to selected DOFs of its node's
// state (SOFA's ConstantForceField): a load that does not depend on the
// configuration, so its stiffness and damping are zero.
//
// Each force has DerivSize numbers: 3 for a Vec3 point, 6 for a Rigid3
// frame (force then torque, world frame, torque about the frame origin).
// The points are selected by indices, by a box on the first three rest
// coordinates, or, when neither is given, are all the DOFs (as in SOFA).
// The forces are either listed (one per selected point, in the order of
// indices, or a single one applied to each) or given as a totalForce spread
// evenly over the selected points.
//
// Potential energy: W = −Σ f·x on vector templates. On Rigid3 only the
// translational part −Σ f·t counts: a constant world torque has no global
// potential (the work of a fixed torque along a rotation path depends on the
// path, not just its end points, beyond a single axis), so the energy
// reported there is that of the forces alone.
type ConstantForceField struct {
	graph.ObjectBase
	Indices    []int       `toml:"indices" doc:"0-based indices of the loaded DOFs (default: all, unless box is given)" range:"[0,inf)"`
	Box        []float64   `toml:"box" doc:"[xmin, ymin, zmin, xmax, ymax, zmax]: load the DOFs whose rest position lies inside (bounds included)" unit:"m"`
	Forces     [][]float64 `toml:"forces" doc:"one force per selected DOF in selection order, or a single force applied to each (Vec3: [fx fy fz]; Rigid3: [fx fy fz τx τy τz])" unit:"N, N·m"`
	TotalForce []float64   `toml:"totalForce" doc:"a total force (and torque for Rigid3) divided evenly among the selected DOFs" unit:"N, N·m"`

	points []int     // selected DOFs
	f      []float64 // force on each selected DOF, DerivSize each
	cs, ds int
	rigid  bool
}

func init() {
	graph.Register(graph.TypeInfo{
		Name:    "ConstantForceField",
		Kind:    graph.KindForceField,
		Summary: "Constant forces (and torques on Rigid3) on selected DOFs (indices, a box on rest positions, or all): per-DOF forces or a total force spread evenly. Zero stiffness; potential −Σ f·x (translation only for Rigid3).",
		New:     func() graph.Object { return &ConstantForceField{} },
	})
}

// Validate checks that the selection and the forces are given consistently.
func (c *ConstantForceField) Validate() error {
	if len(c.Indices) > 0 && len(c.Box) > 0 {
		return fmt.Errorf("give indices or box, not both")
	}
	if len(c.Forces) > 0 && len(c.TotalForce) > 0 {
		return fmt.Errorf("give forces or totalForce, not both")
	}
	if len(c.Forces) == 0 && len(c.TotalForce) == 0 {
		return fmt.Errorf("no load: give forces or totalForce")
	}
	if c.Box != nil {
		if len(c.Box) != 6 {
			return fmt.Errorf("box has %d numbers, want 6: [xmin, ymin, zmin, xmax, ymax, zmax]", len(c.Box))
		}
		for a := 0; a < 3; a++ {
			if c.Box[a] > c.Box[a+3] {
				return fmt.Errorf("box min[%d] = %g is greater than max[%d] = %g", a, c.Box[a], a, c.Box[a+3])
			}
		}
	}
	return nil
}

// Init resolves the selection and the force of each selected DOF.
func (c *ConstantForceField) Init() error {
	if err := c.Validate(); err != nil {
		return c.Wrap(err)
	}
	st := c.Node.State()
	if st == nil {
		return c.Errorf("needs a mechanical state in the same node")
	}
	tmpl := st.Template()
	c.cs, c.ds = tmpl.CoordSize(), tmpl.DerivSize()
	_, c.rigid = tmpl.(graph.Rigid3Template)
	if !c.rigid && c.cs != c.ds {
		return c.Errorf("template %s is neither a vector space nor Rigid3: its potential energy is undefined", tmpl.Name())
	}
	n := st.Size()
	c.points = c.points[:0]
	switch {
	case len(c.Indices) > 0:
		seen := make(map[int]bool, len(c.Indices))
		for _, i := range c.Indices {
			if i < 0 || i >= n {
				return c.Errorf("index %d is out of range: state %q has %d DOFs (indices are 0-based)", i, st.Base().Name, n)
			}
			if seen[i] {
				return c.Errorf("index %d appears twice in indices", i)
			}
			seen[i] = true
		}
		c.points = append(c.points, c.Indices...)
	case len(c.Box) > 0:
		if c.cs < 3 {
			return c.Errorf("box selection needs 3 position coordinates; template %s has %d: give indices", tmpl.Name(), c.cs)
		}
		rest := st.Vec(graph.RestPosition)
		b := c.Box
		for i := 0; i < n; i++ {
			p := rest[c.cs*i:]
			if p[0] >= b[0] && p[0] <= b[3] && p[1] >= b[1] && p[1] <= b[4] && p[2] >= b[2] && p[2] <= b[5] {
				c.points = append(c.points, i)
			}
		}
		if len(c.points) == 0 {
			return c.Errorf("box %v contains no rest position of state %q (%d DOFs): the load would act on nothing", c.Box, st.Base().Name, n)
		}
	default:
		for i := 0; i < n; i++ {
			c.points = append(c.points, i)
		}
		if n == 0 {
			return c.Errorf("state %q has no DOFs to load", st.Base().Name)
		}
	}
	np := len(c.points)
	c.f = make([]float64, c.ds*np)
	switch {
	case len(c.TotalForce) > 0:
		if len(c.TotalForce) != c.ds {
			return c.Errorf("totalForce has %d numbers, want %d for %s", len(c.TotalForce), c.ds, tmpl.Name())
		}
		for k := 0; k < np; k++ {
			for j := 0; j < c.ds; j++ {
				c.f[c.ds*k+j] = c.TotalForce[j] / float64(np)
			}
		}
	default:
		if len(c.Forces) != 1 && len(c.Forces) != np {
			return c.Errorf("forces has %d entries; want 1 (applied to each DOF) or %d (one per selected DOF)", len(c.Forces), np)
		}
		for k := 0; k < np; k++ {
			fk := c.Forces[0]
			if len(c.Forces) > 1 {
				fk = c.Forces[k]
			}
			if len(fk) != c.ds {
				return c.Errorf("forces[%d] has %d numbers, want %d for %s", min(k, len(c.Forces)-1), len(fk), c.ds, tmpl.Name())
			}
			copy(c.f[c.ds*k:], fk)
		}
	}
	return nil
}

// Points returns the loaded DOFs in selection order (not a copy).
func (c *ConstantForceField) Points() []int { return c.points }

// AddForce adds the constant forces.
func (c *ConstantForceField) AddForce(f, x, v []float64) {
	ds := c.ds
	for k, i := range c.points {
		fi, ck := f[ds*i:ds*i+ds], c.f[ds*k:ds*k+ds]
		for j := range fi {
			fi[j] += ck[j]
		}
	}
}

// AddDForce adds nothing: the forces do not depend on x or v.
func (c *ConstantForceField) AddDForce(df, dx []float64, kFactor, bFactor float64) {}

// PotentialEnergy returns −Σ f·x (translational part only on Rigid3).
func (c *ConstantForceField) PotentialEnergy(x []float64) float64 {
	ds, cs := c.ds, c.cs
	w := ds
	if c.rigid {
		w = 3
	}
	e := 0.0
	for k, i := range c.points {
		for j := 0; j < w; j++ {
			e -= c.f[ds*k+j] * x[cs*i+j]
		}
	}
	return e
}
