package graph

import (
	"fmt"
	"slices"
	"strings"
)

// CheckRunnable refuses a scene that would run without anything happening,
// or with a solver that cannot work, with an error located at the object
// to fix. Step calls it before the first step; runscene calls it right
// after Init, so a run never "succeeds" doing nothing. The rules:
//
//   - a scene with no ODE solver at all: nothing in it would ever move
//     (unless a behaviour drives a state: StateDriver);
//   - an ODE solver with no independent mechanical state in its node or
//     below: it integrates nothing (it is probably in the wrong node);
//   - an independent state that no ODE solver integrates nor a StateDriver
//     moves, while something acts on it: a mass (gravity), a force field,
//     an interaction force field, a non-zero initial velocity, on the state
//     itself or on a state mapped from it. It would never move. An
//     independent state outside every solver on which nothing acts is a
//     static one (an obstacle's geometry, a fixed reference frame) and is
//     allowed;
//   - an inertial ODE solver (InertialSolver: explicit and implicit Euler,
//     Newmark, shape matching) over an independent state with no mass on
//     its node nor on any node mapped from it: M·a = f has no solution.
//     A state whose every DOF is held by projective constraints (a fixed
//     base body) does not move and needs none.
//
// Scenes built in code to evaluate forces (tests, tools) need not pass it:
// Init does not call it.
func (s *Scene) CheckRunnable() error {
	if s.checked {
		return nil
	}
	if !s.inited {
		if err := s.Init(); err != nil {
			return err
		}
	}
	covered := map[State]bool{}
	for _, b := range s.solvers {
		if len(b.ops.independent) == 0 {
			return b.solver.Base().Errorf("this ODE solver has nothing to integrate: no mechanical state (MechanicalObject) in node %q or below, outside a mapping", displayPath(b.solver.Base().Node))
		}
		for _, st := range b.ops.independent {
			covered[st] = true
		}
	}

	driven := false
	err := s.Root.Walk(func(n *Node) error {
		for _, o := range n.Objects {
			if d, ok := o.(StateDriver); ok {
				for _, st := range d.DrivenStates() {
					covered[st], driven = true, true
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}

	// root maps every mechanical state to the independent state it moves
	// with: itself, or the state its mappings come from.
	root := map[State]State{}
	for _, st := range s.all.independent {
		root[st] = st
	}
	for _, n := range s.all.mapped {
		if r, ok := root[n.Mapping().From()]; ok {
			root[n.State()] = r
		}
	}
	acting := map[State][]string{}
	act := func(r State, what string) {
		if !slices.Contains(acting[r], what) {
			acting[r] = append(acting[r], what)
		}
	}
	massed := map[State]bool{}
	for _, ni := range s.all.info {
		r, ok := root[ni.state]
		if ni.state == nil || ni.visual || !ok {
			continue
		}
		if ni.mass != nil {
			massed[r] = true
			act(r, describeObject("mass", ni.mass))
		}
		for _, f := range ni.forceFields {
			act(r, describeObject("force field", f))
		}
	}
	for _, ia := range s.all.interactions {
		for _, st := range ia.States() {
			if r, ok := root[st]; ok {
				act(r, describeObject("interaction force field", ia))
			}
		}
	}
	for _, st := range s.all.independent {
		if covered[st] {
			continue
		}
		what := acting[st]
		if v := st.Vec(Velocity); !allZero(v) {
			what = append(what, "a non-zero initial velocity")
		}
		if len(what) > 0 {
			return st.Base().Errorf("no ODE solver integrates this state, so it would never move, although it has %s; add an ODE solver (e.g. EulerImplicitSolver with a CGLinearSolver) to node %q or an ancestor",
				strings.Join(what, ", "), displayPath(st.Base().Node))
		}
	}
	if len(s.solvers) == 0 && !driven {
		for _, st := range s.all.independent {
			return st.Base().Errorf("the scene has no ODE solver, so nothing in it would move; add one (e.g. EulerImplicitSolver with a CGLinearSolver) to node %q or an ancestor",
				displayPath(st.Base().Node))
		}
		return s.noSolverError()
	}
	for _, b := range s.solvers {
		in, ok := b.solver.(InertialSolver)
		if !ok || !in.NeedsMass() {
			continue
		}
		for i, st := range b.ops.independent {
			if !massed[st] && !fullyConstrained(st, b.ops.constraints[i]) {
				sb := b.solver.Base()
				return st.Base().Errorf("this state has no mass, but ODE solver %q (%s, node %q) integrates it by M·a = f, which needs one; add a mass (UniformMass, DiagonalMass, MeshMatrixMass, RigidMass, ...) to this node or to a node mapped from it, or use StaticSolver for static equilibrium",
					sb.Name, sb.TypeName, displayPath(sb.Node))
			}
		}
	}
	s.checked = true
	return nil
}

// noSolverError reports a scene with neither an ODE solver nor a
// mechanical state, at its first object.
func (s *Scene) noSolverError() error {
	var first Object
	s.Root.Walk(func(n *Node) error {
		if first == nil && len(n.Objects) > 0 {
			first = n.Objects[0]
		}
		return nil
	})
	const msg = "the scene has no mechanical state (MechanicalObject) and no ODE solver, so nothing in it would move"
	if first == nil {
		return &Error{File: s.File, Err: fmt.Errorf("%s", msg)}
	}
	return first.Base().Errorf("%s", msg)
}

// fullyConstrained reports whether the projective constraints cs hold
// every DOF of st: they zero every component of a derivative vector.
func fullyConstrained(st State, cs []ProjectiveConstraint) bool {
	if len(cs) == 0 {
		return st.Size() == 0
	}
	v := make([]float64, st.Size()*st.Template().DerivSize())
	for i := range v {
		v[i] = 1
	}
	for _, c := range cs {
		c.ProjectResponse(v)
	}
	return allZero(v)
}

func describeObject(role string, o Object) string {
	return fmt.Sprintf("%s %q", role, o.Base().Name)
}

func allZero(v []float64) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}
