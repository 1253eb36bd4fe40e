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
// totalForce is not a consistent surface load: it puts the same share on
// every selected vertex, whatever area each carries, which is right only
// for the interior of a uniform grid; on an irregular mesh, and at the
// edges and corners of any face, the load's distribution (and its moment
// on a patch that is not symmetric) is wrong. SurfaceTractionForceField
// and SurfacePressureForceField turn a face load into consistent nodal
// loads (area × traction / 3 per triangle and vertex).
//
// The forces are external loads: they are scaled by the node's load factor
// (graph.Node.LoadFactor, 1 unless a StaticSolver applies its loads in
// increments, loadSteps), and so is the potential. They are also scaled by
// the optional time profile keyTimes / keyFactors (LoadRamp: a load ramp,
// what SOFA's LinearForceField does with its keyTimes and keyForces), the
// factor of a step from t to t + dt being its value at t + dt.
//
// Potential energy: W = −Σ f·x on vector templates. On Rigid3 only the
// translational part −Σ f·t counts: a constant world torque has no global
// potential (the work of a fixed torque along a rotation path depends on the
// path, not just its end points, beyond a single axis), so the energy
// reported there is that of the forces alone.
type ConstantForceField struct {
	graph.ObjectBase
	graph.DOFSelection             // indices or box; all DOFs when neither is given
	Forces             [][]float64 `toml:"forces" doc:"one force per selected DOF in selection order, or a single force applied to each (Vec3: [fx fy fz]; Rigid3: [fx fy fz τx τy τz])" unit:"N, N·m"`
	TotalForce         []float64   `toml:"totalForce" doc:"a total force (and torque for Rigid3) divided evenly among the selected DOFs (not a consistent surface load on an irregular mesh: see SurfaceTractionForceField)" unit:"N, N·m"`
	LoadRamp

	points []int     // selected DOFs
	f      []float64 // force on each selected DOF, DerivSize each
	cs, ds int
	rigid  bool
}

func init() {
	graph.Register(graph.TypeInfo{
		Name:    "ConstantForceField",
		Kind:    graph.KindForceField,
		Summary: "Constant forces (and torques on Rigid3) on selected DOFs (indices, a box on rest positions, or all): per-DOF forces or a total force spread evenly; optional time profile keyTimes/keyFactors. Zero stiffness; potential −Σ f·x (translation only for Rigid3).",
		New:     func() graph.Object { return &ConstantForceField{} },
	})
}

// Validate checks that the selection and the forces are given consistently.
func (c *ConstantForceField) Validate() error {
	if len(c.Forces) > 0 && len(c.TotalForce) > 0 {
		return fmt.Errorf("give forces or totalForce, not both")
	}
	if len(c.Forces) == 0 && len(c.TotalForce) == 0 {
		return fmt.Errorf("no load: give forces or totalForce")
	}
	if err := c.checkRamp(); err != nil {
		return err
	}
	return c.CheckSelection()
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
	sel, err := c.Select(st)
	if err != nil {
		return c.Wrap(err)
	}
	c.points = append(c.points, sel...)
	if !c.Given() {
		for i := 0; i < n; i++ {
			c.points = append(c.points, i)
		}
		if n == 0 {
			return c.Errorf("state %q has no DOFs to load", st.Base().Name)
		}
	}
	if err := c.initRamp(&c.ObjectBase); err != nil {
		return c.Wrap(err)
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

// loadFactor returns the node's load factor (1 outside a scene) times the
// time profile's factor.
func (c *ConstantForceField) loadFactor() float64 {
	if c.Node == nil {
		return c.Factor()
	}
	return c.Node.LoadFactor() * c.Factor()
}

// BeginStep implements graph.Behavior: the time profile's factor for the
// step.
func (c *ConstantForceField) BeginStep(t, dt float64) error {
	c.stepRamp(t, dt)
	return nil
}

// AddForce adds the constant forces, times the load factor.
func (c *ConstantForceField) AddForce(f, x, v []float64) {
	ds := c.ds
	if lf := c.loadFactor(); lf != 1 {
		for k, i := range c.points {
			fi, ck := f[ds*i:ds*i+ds], c.f[ds*k:ds*k+ds]
			for j := range fi {
				fi[j] += lf * ck[j]
			}
		}
		return
	}
	for k, i := range c.points {
		fi, ck := f[ds*i:ds*i+ds], c.f[ds*k:ds*k+ds]
		for j := range fi {
			fi[j] += ck[j]
		}
	}
}

// AddDForce adds nothing: the forces do not depend on x or v.
func (c *ConstantForceField) AddDForce(df, dx []float64, kFactor, bFactor float64) {}

// PotentialEnergy returns −Σ f·x (translational part only on Rigid3),
// times the load factor.
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
	return c.loadFactor() * e
}
