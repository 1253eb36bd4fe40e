package constraint

import (
	"fmt"
	"slices"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/keyframe"
)

// LinearMovementConstraint prescribes the motion of selected DOFs (SOFA's
// LinearMovementConstraint): they follow movements given at key times,
// interpolated piecewise linearly (package keyframe: held before the first
// and after the last key), relative to the coordinates the DOFs had at
// Init (SOFA's relativeMovements = true, the only mode here).
//
// A movement is, per key time:
//
//   - on a vector template (Vec3, Vec1, Affine3, ...), as many numbers as
//     a coordinate: a displacement added to each selected DOF's initial
//     coordinates, x(t) = x₀ + m(t);
//   - on Vec3 or Rigid3, six numbers [tx ty tz rx ry rz]: a rigid
//     transform of the selected DOFs as one body about center (default: the
//     centroid of their initial positions), a translation T and a rotation
//     vector r (axis × angle in radians, world frame),
//     x(t) = c + T(t) + R(t)(x₀ − c) with R = exp(r(t)); a Rigid3 frame's
//     orientation becomes R(t)·q₀. T and r are interpolated linearly, so a
//     rotation about a fixed axis turns at a constant rate, and a rotation
//     vector longer than π (several half-turns between two keys) is
//     followed turn by turn;
//   - on Rigid3, three numbers: a translation of the frame origins.
//
// Projection. ProjectPosition(x, t) sets the selected coordinates to x(t)
// exactly. ProjectResponse zeroes their derivative components (forces,
// search directions, velocity changes, Newton corrections). The velocity a
// solver sees is the chord of the step, (x(t + h) − x(t))/h, for a Rigid3
// frame with the angular velocity ω = log(q(t + h) q(t)⁻¹)/h: it is set at
// the beginning of every step (BeginStep) and again by ProjectVelocity at
// its end (the chord of the step just taken), so that a solver integrating
// x ← x ⊕ h·v lands on x(t + h) and the linearisations of the implicit
// solvers (the K·h·v term of implicit Euler, Newmark's predictor) see the
// motion the step actually imposes. Within a segment of a translation the
// chord is the exact velocity; for a rotation it is the secant (it differs
// from ω × (x − c) by O(h)). Every ODE solver takes the prescribed motion
// exactly: EulerExplicitSolver and EulerImplicitSolver through the chord
// velocity, StaticSolver and NewmarkImplicitSolver by putting the DOFs at
// x(t + h) before their Newton iterations.
//
// At Init the DOFs are put at x(t₀) (t₀ the scene time, normally 0) with
// the chord velocity of the first step. A state no ODE solver integrates
// (a pusher, a moving support described by its keyframes alone) is moved
// by the constraint itself (graph.StateDriver): every step puts it at
// x(t + dt), its mapped children following. The reaction the motion needs is
// the force the rest of the model applies to the selected DOFs, which
// projection removes from the dynamics (runscene -dump reports it in the
// "force" of the state: forces are dumped before projection).
type LinearMovementConstraint struct {
	graph.ObjectBase
	graph.DOFSelection
	KeyTimes  []float64   `toml:"keyTimes" doc:"key times, strictly increasing; before the first and after the last the movement is held" unit:"s" required:"true"`
	Movements [][]float64 `toml:"movements" doc:"one movement per key time, relative to the initial coordinates: a displacement (as many numbers as a coordinate of a vector template; Rigid3: 3, a translation) or, on Vec3 and Rigid3, [tx ty tz rx ry rz], a translation and a rotation vector (axis × angle, rad) about center" unit:"m, rad" required:"true"`
	Center    []float64   `toml:"center" doc:"centre of the rotations of a 6-number movement (default: the centroid of the selected DOFs' initial positions)" unit:"m"`

	sel    []int     // selected DOFs, sorted
	x0     []float64 // their initial coordinates, cs each
	cs, ds int
	mode   movementMode
	c      geom.Vec3
	dt     float64 // the step of the last BeginStep (0 before the first)
	driven bool    // no ODE solver integrates the state: BeginStep moves it
	m      []float64
	xa, xb []float64 // scratch: coordinates of the selected DOFs at two times
}

type movementMode int

const (
	moveDisplacement movementMode = iota // vector template: x₀ + m
	moveTranslation                      // Rigid3: origins translated
	moveRigid                            // Vec3 or Rigid3: rigid transform about c
)

func init() {
	graph.Register(graph.TypeInfo{
		Name: "LinearMovementConstraint",
		Kind: graph.KindConstraint,
		Summary: "Prescribed motion: selected DOFs (indices or box) follow displacements or rigid transforms (translation + rotation vector about a centre) given at keyTimes, " +
			"interpolated linearly; positions set exactly at every step, velocities the chord of the step, their share of every derivative vector zeroed. Any template; every ODE solver.",
		New: func() graph.Object { return &LinearMovementConstraint{} },
	})
}

// Validate checks the selection, the key times and the movements (widths
// are checked against the template at Init).
func (c *LinearMovementConstraint) Validate() error {
	if !c.Given() {
		return fmt.Errorf("nothing selected: give indices or box")
	}
	if _, err := keyframe.Check("keyTimes", c.KeyTimes, "movements", c.Movements); err != nil {
		return err
	}
	if c.Center != nil && len(c.Center) != 3 {
		return fmt.Errorf("center has %d numbers, want 3", len(c.Center))
	}
	return c.CheckSelection()
}

// Init resolves the selection, checks the movements against the template,
// records the initial coordinates and puts the DOFs at their position at
// the scene's current time.
func (c *LinearMovementConstraint) Init() error {
	if err := c.Validate(); err != nil {
		return c.Wrap(err)
	}
	st := c.Node.State()
	if st == nil {
		return c.Errorf("needs a mechanical state in the same node")
	}
	tmpl := st.Template()
	c.cs, c.ds = tmpl.CoordSize(), tmpl.DerivSize()
	w := len(c.Movements[0])
	_, rigid := tmpl.(graph.Rigid3Template)
	switch {
	case rigid && w == 3:
		c.mode = moveTranslation
	case (rigid || tmpl.Name() == graph.Vec3.Name()) && w == 6:
		c.mode = moveRigid
	case !rigid && c.cs == c.ds && w == c.cs:
		c.mode = moveDisplacement
	default:
		want := fmt.Sprint(c.cs)
		switch {
		case rigid:
			want = "3 (a translation) or 6 (translation and rotation vector)"
		case tmpl.Name() == graph.Vec3.Name():
			want = "3 (a displacement) or 6 (translation and rotation vector)"
		case c.cs != c.ds:
			return c.Errorf("template %s is neither a vector template nor Rigid3: LinearMovementConstraint cannot move it", tmpl.Name())
		}
		return c.Errorf("movements have %d numbers; template %s wants %s", w, tmpl.Name(), want)
	}
	if c.Center != nil && c.mode != moveRigid {
		return c.Errorf("center is used only by 6-number movements (translation and rotation)")
	}
	sel, err := c.Select(st)
	if err != nil {
		return c.Wrap(err)
	}
	c.sel = append(c.sel[:0], sel...)
	slices.Sort(c.sel)
	x := st.Vec(graph.Position)
	c.x0 = c.x0[:0]
	for _, i := range c.sel {
		c.x0 = append(c.x0, x[c.cs*i:c.cs*i+c.cs]...)
	}
	if c.mode == moveRigid {
		if c.Center != nil {
			c.c = geom.Vec3{c.Center[0], c.Center[1], c.Center[2]}
		} else {
			var sum geom.Vec3
			for k := range c.sel {
				sum = sum.Add(geom.Vec3{c.x0[c.cs*k], c.x0[c.cs*k+1], c.x0[c.cs*k+2]})
			}
			c.c = sum.Scale(1 / float64(len(c.sel)))
		}
	}
	c.driven = true
	for n := c.Node; n != nil; n = n.Parent {
		if n.ODESolver() != nil {
			c.driven = false
		}
	}
	c.m = make([]float64, w)
	c.xa = make([]float64, len(c.x0))
	c.xb = make([]float64, len(c.x0))
	ctx := c.Node.Context()
	c.ProjectPosition(x, ctx.Time)
	if ctx.Dt > 0 {
		c.setChord(st.Vec(graph.Velocity), ctx.Time, ctx.Time+ctx.Dt)
	}
	return nil
}

// Selected returns the prescribed DOFs, sorted (not a copy).
func (c *LinearMovementConstraint) Selected() []int { return c.sel }

// RotationCenter returns the centre of the rotations (for 6-number
// movements).
func (c *LinearMovementConstraint) RotationCenter() geom.Vec3 { return c.c }

// CoordsAt writes the prescribed coordinates of the selected DOFs at time
// t into dst (CoordSize numbers per selected DOF, in Selected order).
func (c *LinearMovementConstraint) CoordsAt(dst []float64, t float64) {
	keyframe.Eval(c.m, c.KeyTimes, c.Movements, t)
	cs := c.cs
	switch c.mode {
	case moveDisplacement:
		for k := range c.sel {
			for j := 0; j < cs; j++ {
				dst[cs*k+j] = c.x0[cs*k+j] + c.m[j]
			}
		}
	case moveTranslation:
		copy(dst, c.x0)
		for k := range c.sel {
			for j := 0; j < 3; j++ {
				dst[cs*k+j] += c.m[j]
			}
		}
	case moveRigid:
		q := geom.QuatFromRotVec(geom.Vec3{c.m[3], c.m[4], c.m[5]})
		R := q.Mat()
		T := geom.Vec3{c.m[0], c.m[1], c.m[2]}
		for k := range c.sel {
			p0 := geom.Vec3{c.x0[cs*k], c.x0[cs*k+1], c.x0[cs*k+2]}
			p := c.c.Add(T).Add(R.MulVec(p0.Sub(c.c)))
			dst[cs*k], dst[cs*k+1], dst[cs*k+2] = p[0], p[1], p[2]
			if cs == 7 {
				o := c.x0[cs*k+3 : cs*k+7]
				qo := q.Mul(geom.Quat{o[0], o[1], o[2], o[3]}).Normalized()
				copy(dst[cs*k+3:cs*k+7], qo[:])
			}
		}
	}
}

// BeginStep implements graph.Behavior: at the start of the step from t to
// t + dt the DOFs are at x(t) and move with the chord velocity of the step.
// A state that no ODE solver integrates (a body moved only by its
// keyframes) is put at x(t + dt) instead, where the step leaves it.
func (c *LinearMovementConstraint) BeginStep(t, dt float64) error {
	c.dt = dt
	st := c.Node.State()
	if c.driven {
		c.ProjectPosition(st.Vec(graph.Position), t+dt)
		if dt > 0 {
			c.setChord(st.Vec(graph.Velocity), t, t+dt)
		}
		return nil
	}
	c.ProjectPosition(st.Vec(graph.Position), t)
	if dt > 0 {
		c.setChord(st.Vec(graph.Velocity), t, t+dt)
	}
	return nil
}

// setChord sets the velocities of the selected DOFs to the chord from
// time ta to tb: (x(tb) ⊖ x(ta)) / (tb − ta).
func (c *LinearMovementConstraint) setChord(v []float64, ta, tb float64) {
	c.CoordsAt(c.xa, ta)
	c.CoordsAt(c.xb, tb)
	h := tb - ta
	cs, ds := c.cs, c.ds
	for k, i := range c.sel {
		a, b, vi := c.xa[cs*k:cs*k+cs], c.xb[cs*k:cs*k+cs], v[ds*i:ds*i+ds]
		if cs == 7 {
			vi[0], vi[1], vi[2] = (b[0]-a[0])/h, (b[1]-a[1])/h, (b[2]-a[2])/h
			qa := geom.Quat{a[3], a[4], a[5], a[6]}
			qb := geom.Quat{b[3], b[4], b[5], b[6]}
			w := qb.Mul(qa.Conj()).RotVec().Scale(1 / h)
			vi[3], vi[4], vi[5] = w[0], w[1], w[2]
			continue
		}
		for j := range vi {
			vi[j] = (b[j] - a[j]) / h
		}
	}
}

// DrivenStates implements graph.StateDriver: the state, when no ODE solver
// integrates it (its prescribed DOFs then move by BeginStep alone; the
// others stay where they are).
func (c *LinearMovementConstraint) DrivenStates() []graph.State {
	if !c.driven || c.Node == nil || c.Node.State() == nil {
		return nil
	}
	return []graph.State{c.Node.State()}
}

// ProjectResponse zeroes the derivative components of the prescribed DOFs.
func (c *LinearMovementConstraint) ProjectResponse(dx []float64) {
	ds := c.ds
	for _, i := range c.sel {
		clear(dx[ds*i : ds*i+ds])
	}
}

// ProjectPosition sets the prescribed DOFs to their coordinates at time t.
func (c *LinearMovementConstraint) ProjectPosition(x []float64, t float64) {
	c.CoordsAt(c.xa, t)
	cs := c.cs
	for k, i := range c.sel {
		copy(x[cs*i:cs*i+cs], c.xa[cs*k:cs*k+cs])
	}
}

// ProjectVelocity sets the prescribed velocities at time t to the chord of
// the step ending at t, (x(t) ⊖ x(t − h)) / h, h the step of the last
// BeginStep (the scene's dt before the first).
func (c *LinearMovementConstraint) ProjectVelocity(v []float64, t float64) {
	h := c.dt
	if h <= 0 && c.Node != nil {
		h = c.Node.Context().Dt
	}
	if h <= 0 {
		c.ProjectResponse(v)
		return
	}
	c.setChord(v, t-h, t)
}
