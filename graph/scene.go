package graph

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/sofago/sofago/geom"
)

// Scene is a loaded scene: the root context (dt, gravity, steps) and the
// node tree. The root node is unnamed; the scene file's [[node]] entries are
// its children.
type Scene struct {
	File    string
	Dt      float64
	Gravity geom.Vec3
	Steps   int
	// CacheDir is the folder of precomputation caches (the root key
	// cacheDir resolved against the scene file, or set by runscene -cache);
	// "" means DefaultCacheFolder. Components read it through CacheFolder.
	CacheDir string
	Root     *Node

	Time      float64 // simulated time, on the step grid t₀ + n·dt (see FormatTime)
	StepCount int     // steps taken

	// step grid of Time: base time, steps since, their dt, the last Time set
	gridBase, gridDt, gridTime float64
	gridSteps                  int

	solvers  []solverBinding
	all      *Ops    // the whole tree, for energies, dumps and visual mappings
	orphans  []*Node // mapped nodes outside every solver's subtree
	freeVecs []VecID
	nextID   VecID
	inited   bool
	reach    reach    // the region the scene can reach (divergence.go)
	checked  bool     // CheckRunnable passed
	notes    []string // see Notes
}

type solverBinding struct {
	solver ODESolver
	ops    *Ops
}

// NewScene returns an empty scene with the given file name (used in
// errors), dt = 0.01 s, gravity (0, −9.81, 0) and 100 steps.
func NewScene(file string) *Scene {
	s := &Scene{File: file, Dt: 0.01, Gravity: geom.Vec3{0, -9.81, 0}, Steps: 100, nextID: firstTempVec}
	s.Root = &Node{scene: s, File: file}
	return s
}

func (s *Scene) nextVec() VecID {
	if n := len(s.freeVecs); n > 0 {
		id := s.freeVecs[n-1]
		s.freeVecs = s.freeVecs[:n-1]
		return id
	}
	id := s.nextID
	s.nextID++
	return id
}

func (s *Scene) freeVec(id VecID) {
	if id >= firstTempVec {
		s.freeVecs = append(s.freeVecs, id)
	}
}

// kindOf is the registered kind of o, or one deduced from its interfaces
// for objects built in code.
func kindOf(o Object) Kind {
	if t, ok := registry[o.Base().TypeName]; ok {
		return t.Kind
	}
	switch o.(type) {
	case Topology:
		return KindTopology
	case State:
		return KindState
	case Mapping:
		return KindMapping
	case Mass:
		return KindMass
	case ForceField, InteractionForceField:
		return KindForceField
	case ProjectiveConstraint, InteractionConstraint:
		return KindConstraint
	case CollisionPipeline:
		return KindCollision
	case Behavior:
		return KindBehavior
	case VisualModel:
		return KindVisual
	case Exporter:
		return KindExporter
	case LinearSolver:
		return KindLinearSolver
	case ODESolver:
		return KindODESolver
	}
	return KindBehavior
}

// Init initialises every object, phase by phase (topology, state, mapping,
// mass, force field, constraint, collision, behaviour, visual, exporter,
// linear solver, ODE solver), top-down within a phase, then checks the
// structure of the tree and binds each ODE solver to its subtree.
func (s *Scene) Init() error {
	if s.inited {
		return nil
	}
	for _, k := range Kinds {
		err := s.Root.Walk(func(n *Node) error {
			for _, o := range n.Objects {
				if kindOf(o) != k {
					continue
				}
				if in, ok := o.(Initializer); ok {
					if err := in.Init(); err != nil {
						return locate(o, err)
					}
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	if err := s.checkStructure(); err != nil {
		return err
	}
	var err error
	if s.all, err = NewOps(s.Root); err != nil {
		return err
	}
	covered := map[*Node]bool{}
	err = s.Root.Walk(func(n *Node) error {
		sol := n.ODESolver()
		if sol == nil || covered[n] {
			return nil
		}
		ops, err := NewOps(n)
		if err != nil {
			return err
		}
		for _, m := range ops.nodes {
			covered[m] = true
			if m != n && m.ODESolver() != nil {
				return m.ODESolver().Base().Errorf("this ODE solver is inside the subtree of solver %q (node %q), which already integrates it; remove one of them",
					sol.Base().Name, displayPath(n))
			}
		}
		s.solvers = append(s.solvers, solverBinding{sol, ops})
		return nil
	})
	if err != nil {
		return err
	}
	for _, n := range s.all.mapped {
		if !covered[n] {
			s.orphans = append(s.orphans, n)
		}
	}
	// An interaction constraint outside every solver's subtree would never
	// be applied (a scene without solvers, built to evaluate forces, has
	// nothing to apply it).
	for _, ic := range s.all.iconstraints {
		if n := ic.Base().Node; len(s.solvers) > 0 && (n == nil || !covered[n]) {
			return ic.Base().Errorf("no ODE solver integrates this constraint's node: put it in the node of the solver that integrates all its states (or below it)")
		}
	}
	s.all.PropagatePositions()
	s.all.PropagateVisual()
	if err := s.updateVisuals(); err != nil {
		return err
	}
	s.measureReach()
	s.inited = true
	return nil
}

// locate makes sure err names the object's file and line.
func locate(o Object, err error) error {
	var se *Error
	if errors.As(err, &se) {
		return err
	}
	return o.Base().Wrap(err)
}

func (s *Scene) checkStructure() error {
	return s.Root.Walk(func(n *Node) error {
		var states []State
		var mappings []Mapping
		for _, o := range n.Objects {
			if st, ok := o.(State); ok {
				states = append(states, st)
			}
			if m, ok := o.(Mapping); ok {
				mappings = append(mappings, m)
			}
		}
		if len(states) > 1 {
			return states[1].Base().Errorf("node already has mechanical state %q; put each state in its own node", states[0].Base().Name)
		}
		if len(mappings) > 1 {
			return mappings[1].Base().Errorf("node already has mapping %q; put each mapped state in its own node", mappings[0].Base().Name)
		}
		var st State
		if len(states) == 1 {
			st = states[0]
		}
		if len(mappings) == 1 {
			m := mappings[0]
			if st == nil || m.To() != st {
				return m.Base().Errorf("a mapping's output must be the mechanical state of its own node")
			}
			if m.From() == nil || !isAncestor(m.From().Base().Node, n) {
				return m.Base().Errorf("a mapping's input must be the state of an ancestor node")
			}
		}
		for _, o := range n.Objects {
			_, isFF := o.(ForceField)
			_, isC := o.(ProjectiveConstraint)
			if (isFF || isC) && st == nil {
				return o.Base().Errorf("needs a mechanical state in the same node")
			}
			if isC && len(mappings) == 1 && mappings[0].IsMechanical() {
				return o.Base().Errorf("a projective constraint on a mapped state has no effect; constrain the independent state the mapping comes from")
			}
		}
		return nil
	})
}

func isAncestor(a, n *Node) bool {
	for p := n.Parent; p != nil; p = p.Parent {
		if p == a {
			return true
		}
	}
	return false
}

// StepError reports a failure during a step: which step, when, and the
// located error (an *Error naming the object where one is known).
type StepError struct {
	Step int
	Time float64
	Err  error
}

func (e *StepError) Error() string {
	var se *Error
	if errors.As(e.Err, &se) {
		c := *se
		c.Err = fmt.Errorf("step %d (t = %s s): %w", e.Step, FormatTime(e.Time), se.Err)
		return c.Error()
	}
	return fmt.Sprintf("step %d (t = %s s): %v", e.Step, FormatTime(e.Time), e.Err)
}

func (e *StepError) Unwrap() error { return e.Err }

// Step advances the scene by one dt: behaviours, collision detection, each
// ODE solver on its subtree (top-most first, in tree order) followed by the
// propagation of its mappings, then the visual mappings, visual models and
// exporters. A non-finite position or velocity stops the step with an error
// naming the step, the state, the force field that produced it if one did,
// and the likely cause; so does a divergence that has not reached NaN yet: a
// point outside the region the scene can reach, or a non-finite kinetic
// energy (see DivergenceFactor for the criterion, CheckEnergy for the
// potential energy).
func (s *Scene) Step() error {
	if !s.inited {
		if err := s.Init(); err != nil {
			return err
		}
	}
	if !s.checked {
		if err := s.CheckRunnable(); err != nil {
			return err
		}
	}
	step := s.StepCount + 1
	fail := func(err error) error { return &StepError{Step: step, Time: s.Time + s.Dt, Err: err} }
	err := s.Root.Walk(func(n *Node) error {
		for _, o := range n.Objects {
			if b, ok := o.(Behavior); ok {
				if err := b.BeginStep(s.Time, s.Dt); err != nil {
					return locate(o, err)
				}
			}
		}
		return nil
	})
	if err != nil {
		return fail(err)
	}
	err = s.Root.Walk(func(n *Node) error {
		for _, o := range n.Objects {
			if c, ok := o.(CollisionPipeline); ok {
				if err := c.DetectContacts(s.Time); err != nil {
					return locate(o, err)
				}
			}
		}
		return nil
	})
	if err != nil {
		return fail(err)
	}
	for _, b := range s.solvers {
		if err := b.solver.Solve(b.ops, s.Dt); err != nil {
			return fail(locate(b.solver, err))
		}
		b.ops.PropagatePositions()
		if err := b.ops.CheckFinite(); err != nil {
			return fail(s.explain(b, err))
		}
		if err := s.checkReach(b.ops, s.Time+s.Dt); err != nil {
			return fail(b.solver.Base().Errorf("%v; %s", err, solverHint(b.solver)))
		}
		if err := checkEnergy(b.ops, false); err != nil {
			return fail(err)
		}
	}
	for _, n := range s.orphans {
		m := n.Mapping()
		m.Apply(m.To().Vec(Position), m.From().Vec(Position))
		m.ApplyJ(m.To().Vec(Velocity), m.From().Vec(Velocity))
	}
	s.advanceTime()
	if err := s.endStep(); err != nil {
		return fail(err)
	}
	s.StepCount = step
	s.all.PropagateVisual()
	if err := s.updateVisuals(); err != nil {
		return fail(err)
	}
	return s.export()
}

// endStep runs EndStep of every StepEnder (graph.StepEnder), top-down,
// at the time of the end of the step.
func (s *Scene) endStep() error {
	return s.Root.Walk(func(n *Node) error {
		for _, o := range n.Objects {
			if e, ok := o.(StepEnder); ok {
				if err := e.EndStep(s.Time, s.Dt); err != nil {
					return locate(o, err)
				}
			}
		}
		return nil
	})
}

func (s *Scene) explain(b solverBinding, err error) error {
	if culprit := b.ops.Diagnose(); culprit != nil {
		return culprit.Base().Errorf("%v; this force field returns a non-finite force at the current configuration (likely cause: inverted or degenerate elements from too large a time step or load)", err)
	}
	return b.solver.Base().Errorf("%v; %s", err, solverHint(b.solver))
}

// solverHint is the likely cause of a divergence under solver.
func solverHint(solver ODESolver) string {
	if t, ok := registry[solver.Base().TypeName]; ok && t.Name == "EulerImplicitSolver" {
		return "the implicit solve diverged (likely cause: the linear solver did not converge or the tangent is indefinite; raise iterations, lower dt)"
	}
	return "the solver diverged (likely cause: dt too large for this stiffness; reduce dt, raise the damping, or use an implicit solver)"
}

func (s *Scene) updateVisuals() error {
	return s.Root.Walk(func(n *Node) error {
		for _, o := range n.Objects {
			if v, ok := o.(VisualModel); ok {
				if err := v.UpdateVisual(); err != nil {
					return locate(o, err)
				}
			}
		}
		return nil
	})
}

func (s *Scene) export() error {
	return s.Root.Walk(func(n *Node) error {
		for _, o := range n.Objects {
			if e, ok := o.(Exporter); ok {
				if err := e.Export(s.Time, s.StepCount); err != nil {
					return locate(o, err)
				}
			}
		}
		return nil
	})
}

// Close closes every exporter (flushing series indexes) and returns the
// first error.
func (s *Scene) Close() error {
	var first error
	s.Root.Walk(func(n *Node) error {
		for _, o := range n.Objects {
			if e, ok := o.(Exporter); ok {
				if err := e.Close(); err != nil && first == nil {
					first = locate(o, err)
				}
			}
		}
		return nil
	})
	return first
}

// Energies returns the kinetic and potential energy of the whole scene.
func (s *Scene) Energies() (kinetic, potential float64) {
	if s.all == nil {
		return 0, 0
	}
	return s.all.KineticEnergy(), s.all.PotentialEnergy()
}

// ComputeForces fills the Force vector of every state (independent and
// mapped) with the total force at the current configuration: all force
// fields and gravity, mapped forces brought up to their parents, before
// constraints are projected.
func (s *Scene) ComputeForces() {
	if s.all != nil {
		s.all.ComputeForce(Force)
	}
}

// States returns every mechanical state of the scene in tree order.
func (s *Scene) States() []State {
	var out []State
	s.Root.Walk(func(n *Node) error {
		if st := n.State(); st != nil {
			out = append(out, st)
		}
		return nil
	})
	return out
}

// Ops returns the mechanical operations over the whole tree (for tools and
// tests; solvers get their own).
func (s *Scene) Ops() *Ops { return s.all }

// Find returns the object at path ("node/sub/name") or nil.
func (s *Scene) Find(path string) Object {
	o, _, err := s.Root.Resolve("@/" + path)
	if err != nil {
		return nil
	}
	return o
}

// FindAs returns the object at path as a T, or an error.
func FindAs[T any](s *Scene, path string) (T, error) {
	var zero T
	o := s.Find(path)
	if o == nil {
		return zero, fmt.Errorf("no object at %q", path)
	}
	t, ok := o.(T)
	if !ok {
		return zero, fmt.Errorf("object %q is a %s, not a %v", path, o.Base().TypeName, reflect.TypeOf((*T)(nil)).Elem())
	}
	return t, nil
}
