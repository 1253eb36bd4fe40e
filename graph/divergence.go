package graph

import (
	"fmt"
	"math"

	"github.com/sofago/sofago/geom"
)

// Divergence criterion. A run can blow up without ever reaching NaN: an
// unstable explicit step or an unconverged implicit one multiplies the
// state by a large factor every step, and floating point holds 1e300
// before it overflows, so the run "finishes" with 1e130 J of kinetic
// energy. After each solve, Step therefore checks the points the solvers
// move against the region the scene can reach:
//
//	R(t) = DivergenceFactor · (S + v₀·t + ½·g·t²)
//
// with, measured once at Init over the positions of every mechanical state
// whose coordinates start with a point in space (Vec3 points, the
// translations of Rigid3 bodies and Affine3 frames, independent or mapped):
// c and S the centre and the diagonal of their bounding box (S at least
// MinSceneSize), v₀ the largest initial speed of a point, g the largest
// gravity any node sees, and t the time since Init. Without the factor,
// S + v₀·t + ½·g·t² bounds how far a body thrown at v₀ under g travels from
// the box; the factor, 1000, leaves room for everything else that
// legitimately accelerates a body (springs, contacts, loads, a rigid body
// spinning up), so a stable run is never stopped, while a blow-up, whose
// state grows geometrically, crosses it a few steps after it starts. A step
// diverges when
//
//   - a point lies farther than R(t) from c, or
//   - a point moves faster than R(t)/dt (a speed that would carry it
//     across the whole reachable region in one step), or
//   - the kinetic energy of a solver's subtree is NaN or infinite (this
//     covers what the points do not: rigid bodies' angular velocities,
//     reduced coordinates).
//
// States without a point in space (reduced coordinates Vec1, deformation
// gradients F331) are checked through the points mapped from them (a
// reduced model's SubspaceMapping'd mesh), through the kinetic energy,
// and, like every state, for NaN. Rigid3 bodies are checked by their
// translations only (an orientation is always a unit quaternion).
//
// The potential energy is not checked every step: it costs about one
// force evaluation (measured: +50% per step for an explicit corotational
// FEM beam), and with positions finite and bounded the shipped force
// fields and material laws cannot make it non-finite. CheckEnergy checks
// it once, at the end of a run (runscene does).
const (
	DivergenceFactor = 1e3
	MinSceneSize     = 1.0 // m: the floor of S, for a scene of one point or a few close ones
)

// reach is the region a scene can reach, measured at Init.
type reach struct {
	centre geom.Vec3
	size   float64 // S: the box diagonal, at least MinSceneSize
	speed  float64 // v₀: the largest initial speed of a point
	g      float64 // the largest gravity magnitude seen by a state's node
	t0     float64 // time at Init
}

// radius is R(t) at time t.
func (r *reach) radius(t float64) float64 {
	dt := max(t-r.t0, 0)
	return DivergenceFactor * (r.size + r.speed*dt + 0.5*r.g*dt*dt)
}

// pointLayout reports whether the coordinates of template t begin with a
// point in space, and the coordinate and derivative strides of one DOF:
// Vec3 (3, 3), Rigid3 (7, 6: translation, then orientation), Affine3
// (12, 12: translation, then the linear part), Quadratic3 (30, 30).
func pointLayout(t Template) (coord, deriv int, ok bool) {
	switch tt := t.(type) {
	case Rigid3Template:
		return 7, 6, true
	case VecTemplate:
		switch {
		case tt.Dim == 3:
			return 3, 3, true
		case tt == Affine3:
			return 12, 12, true
		case tt == Quadratic3:
			return 30, 30, true
		}
	}
	return 0, 0, false
}

// mechanicalStates returns the states of ops that its solver moves:
// independent ones and those under a mechanical mapping.
func (o *Ops) mechanicalStates() []State {
	var out []State
	for _, ni := range o.info {
		if ni.state != nil && !ni.visual {
			out = append(out, ni.state)
		}
	}
	return out
}

// measureReach sets s.reach from the states of the solvers' subtrees
// (called at the end of Init, after the mappings are applied).
func (s *Scene) measureReach() {
	lo := geom.Vec3{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi := geom.Vec3{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	r := reach{t0: s.Time}
	for _, b := range s.solvers {
		for _, st := range b.ops.mechanicalStates() {
			cs, ds, ok := pointLayout(st.Template())
			if !ok {
				continue
			}
			if n := st.Base().Node; n != nil {
				r.g = max(r.g, n.Gravity().Norm())
			}
			x, v := st.Vec(Position), st.Vec(Velocity)
			for i := 0; i+cs <= len(x); i += cs {
				for k := 0; k < 3; k++ {
					lo[k], hi[k] = min(lo[k], x[i+k]), max(hi[k], x[i+k])
				}
			}
			for i := 0; i+ds <= len(v); i += ds {
				r.speed = max(r.speed, geom.Vec3{v[i], v[i+1], v[i+2]}.Norm())
			}
		}
	}
	r.size = MinSceneSize
	if lo[0] <= hi[0] {
		r.centre = lo.Add(hi).Scale(0.5)
		r.size = max(r.size, hi.Sub(lo).Norm())
	}
	if !isFinite(r.size) || !isFinite(r.speed) || !isFinite(r.g) {
		// Init already rejects non-finite positions and velocities; a huge
		// but finite scene only makes the criterion looser.
		r.size, r.speed, r.g = math.Inf(1), 0, 0
	}
	s.reach = r
}

func isFinite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// DivergenceError reports a state that left the region the scene can
// reach (see DivergenceFactor).
type DivergenceError struct {
	State  State
	What   string  // "position" or "velocity"
	DOF    int     // index of the DOF
	Value  float64 // distance from the centre (m) or speed (m/s)
	Limit  float64 // the bound it exceeds
	Radius float64 // R(t)
	Dt     float64
	reach  reach
}

func (e *DivergenceError) Error() string {
	r := e.reach
	how := fmt.Sprintf("DOF %d is %.4g m from the centre of the scene's initial bounding box, beyond the %.4g m the scene can reach", e.DOF, e.Value, e.Limit)
	if e.What == "velocity" {
		how = fmt.Sprintf("DOF %d moves at %.4g m/s, faster than the %.4g m/s that would cross the whole reachable region (%.4g m) in one step of %g s", e.DOF, e.Value, e.Limit, e.Radius, e.Dt)
	}
	return fmt.Sprintf("state %q: %s (divergence criterion: %g × (scene size %.4g m + initial speed %.4g m/s × t + ½ × gravity %.4g m/s² × t²))",
		e.State.Base().Path(), how, DivergenceFactor, r.size, r.speed, r.g)
}

// checkReach returns a *DivergenceError for the first point of the states
// of ops outside the reachable region at time t.
func (s *Scene) checkReach(ops *Ops, t float64) error {
	r := &s.reach
	radius := r.radius(t)
	vmax := radius / s.Dt
	c := r.centre
	for _, st := range ops.mechanicalStates() {
		cs, ds, ok := pointLayout(st.Template())
		if !ok {
			continue
		}
		x, v := st.Vec(Position), st.Vec(Velocity)
		// Squared norms against squared bounds (no square root per
		// point; NaN and overflow to +Inf still fail the test).
		r2, v2 := radius*radius, vmax*vmax
		for i := 0; i+cs <= len(x); i += cs {
			if d := (geom.Vec3{x[i] - c[0], x[i+1] - c[1], x[i+2] - c[2]}); !(d.Norm2() <= r2) {
				return &DivergenceError{State: st, What: "position", DOF: i / cs, Value: d.Norm(), Limit: radius, Radius: radius, Dt: s.Dt, reach: *r}
			}
		}
		for i := 0; i+ds <= len(v); i += ds {
			if w := (geom.Vec3{v[i], v[i+1], v[i+2]}); !(w.Norm2() <= v2) {
				return &DivergenceError{State: st, What: "velocity", DOF: i / ds, Value: w.Norm(), Limit: vmax, Radius: radius, Dt: s.Dt, reach: *r}
			}
		}
	}
	return nil
}

// CheckEnergy returns an error, located at the mass or force field
// responsible, when the kinetic or the potential energy of a solver's
// subtree is NaN or infinite (Step checks only the kinetic energy, see
// DivergenceFactor); runscene calls it after the last step.
func (s *Scene) CheckEnergy() error {
	for _, b := range s.solvers {
		if err := checkEnergy(b.ops, true); err != nil {
			return err
		}
	}
	return nil
}

// checkEnergy returns an error located at the mass or force field whose
// energy is not finite in the subtree of ops: kinetic energy only, or
// also potential energy (nil when they are finite).
func checkEnergy(ops *Ops, potential bool) error {
	if isFinite(ops.KineticEnergy()) && (!potential || isFinite(ops.PotentialEnergy())) {
		return nil
	}
	for _, ni := range ops.info {
		if ni.state == nil || ni.visual {
			continue
		}
		x := ni.state.Vec(Position)
		if ni.mass != nil {
			if e := ni.mass.KineticEnergy(ni.state.Vec(Velocity)); !isFinite(e) {
				return ni.mass.Base().Errorf("the kinetic energy is %g (likely cause: the solver diverged; reduce dt or use an implicit solver)", e)
			}
		}
		if !potential {
			continue
		}
		if ni.mass != nil {
			if e := ni.mass.PotentialEnergy(x); !isFinite(e) {
				return ni.mass.Base().Errorf("the gravity potential energy is %g (likely cause: the solver diverged; reduce dt or use an implicit solver)", e)
			}
		}
		for _, ff := range ni.forceFields {
			if e := ff.PotentialEnergy(x); !isFinite(e) {
				return ff.Base().Errorf("the potential energy is %g at the current configuration (likely cause: inverted or degenerate elements from too large a time step or load)", e)
			}
		}
	}
	for j, ia := range ops.interactions {
		if !potential {
			break
		}
		sts := ia.States()
		xs := ops.scratch(j, 3, len(sts))
		for i, s := range sts {
			xs[i] = s.Vec(Position)
		}
		if e := ia.PotentialEnergy(xs); !isFinite(e) {
			return ia.Base().Errorf("the potential energy is %g at the current configuration (likely cause: the solver diverged; reduce dt or use an implicit solver)", e)
		}
	}
	return fmt.Errorf("the energy of the subtree of node %q is not finite", displayPath(ops.Root))
}
