package shapematching

import (
	"fmt"

	"github.com/sofago/sofago/graph"
)

// ShapeMatchingSolver advances position-based models (GoalProviders, e.g.
// ShapeMatching) together with everything else of its subtree that applies
// forces: with h the time step,
//
//	v ← damp(v)                                     (the provider's damping, if any)
//	v ← (v + α (g(x) − x)/h + h M⁻¹ f(x, v))/(1 + h·rayleighMass)   (Koyama et al. 2012 eq. 4)
//	x ← x + h v                                     (eq. 5)
//
// where g are the provider's goal positions at x(t) and f the force of the
// subtree from ops.ComputeForce: gravity (masses), ConstantForceField,
// contact and other force fields, forces of mapped children brought up
// through their mappings. States without a provider just take the force term
// (symplectic Euler). Projective constraints act as in EulerExplicitSolver:
// the acceleration is projected, the new velocities and positions go through
// ProjectVelocities and ProjectPositions at t + h, so a FixedConstraint
// holds its particles whatever their goals say. Mapped children (visual
// surfaces, collision points) follow through the mappings after the step.
//
// rayleighMass is the framework's Rayleigh mass damping (the force
// −rayleighMass·M·v, taken implicitly): it damps every motion alike,
// including the long bending and twisting modes that the providers' own
// damping (relative to each region's rigid motion) barely reaches, and the
// rigid motion itself (air drag). rayleighMass = 0 is Koyama et al.'s
// update.
//
// The goal term is not a force: it moves the particles a fraction α of the
// way to their goals in one step whatever their mass and h, which is what
// makes shape matching unconditionally stable (Müller et al. 2005, Sec. 3.3).
// The force term is explicit, so stiff force fields in the same subtree
// (penalty contacts, FEM) need h small enough for them.
type ShapeMatchingSolver struct {
	graph.ObjectBase
	RayleighMass float64 `toml:"rayleighMass" doc:"Rayleigh mass damping α_M: the force −α_M·M·v, taken implicitly (v /= 1 + h·α_M); damps every motion, rigid ones included" unit:"1/s" range:"[0,inf)"`

	providers []GoalProvider
	linear    graph.LinearSolver // optional: M a = f when M has no cheap inverse
}

func init() {
	graph.Register(graph.TypeInfo{
		Name:    "ShapeMatchingSolver",
		Kind:    graph.KindODESolver,
		Summary: "Position-based integration for shape matching (Müller et al. 2005; Koyama et al. 2012 eq. 4–5): v += α(g − x)/h + h·M⁻¹f, x += h·v, with the goals g of every ShapeMatching of its subtree and the forces (gravity, force fields, contacts) of the whole subtree; optional Rayleigh mass damping; projective constraints and mappings apply as for the other solvers.",
		New:     func() graph.Object { return &ShapeMatchingSolver{} },
	})
}

// NeedsMass implements graph.InertialSolver: its force term h·M⁻¹f needs a mass on every
// state it integrates (checked before the run by graph.Scene.CheckRunnable).
func (s *ShapeMatchingSolver) NeedsMass() bool { return true }

// Init finds the goal providers of the subtree and checks that each acts on
// an independent state no other provider drives.
func (s *ShapeMatchingSolver) Init() error {
	s.linear = s.Node.LinearSolver()
	s.providers = s.providers[:0]
	owner := map[graph.State]GoalProvider{}
	err := s.Node.Walk(func(n *graph.Node) error {
		for _, o := range n.Objects {
			p, ok := o.(GoalProvider)
			if !ok {
				continue
			}
			st := p.GoalState()
			if st == nil {
				return p.Base().Errorf("has no state (was it initialised?)")
			}
			if m := st.Base().Node.Mapping(); m != nil && m.IsMechanical() {
				return p.Base().Errorf("acts on state %q, which is mapped by %q: shape matching moves independent states only; put it on the parent state", st.Base().Path(), m.Base().Name)
			}
			if q, dup := owner[st]; dup {
				return p.Base().Errorf("state %q is already driven by %q: give each state a single shape-matching component", st.Base().Path(), q.Base().Path())
			}
			owner[st] = p
			s.providers = append(s.providers, p)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(s.providers) == 0 {
		return s.Errorf("no shape-matching component (ShapeMatching) in the subtree of node %q: nothing for this solver to match; use EulerExplicitSolver for forces alone", s.Node.Path())
	}
	return nil
}

// Providers returns the goal providers the solver drives, in tree order.
func (s *ShapeMatchingSolver) Providers() []GoalProvider { return s.providers }

// Solve implements graph.ODESolver.
func (s *ShapeMatchingSolver) Solve(ops *graph.Ops, h float64) error {
	t := ops.Time()
	f, a := ops.AllocDeriv(), ops.AllocDeriv()
	defer ops.Free(f, a)

	ops.ComputeForce(f)
	if err := ops.AccFromF(a, f); err != nil {
		if s.linear == nil {
			return err // names the state and suggests a diagonal mass or a linear solver
		}
		if _, err := s.linear.Solve(ops, a, f, 1, 0, 0); err != nil {
			return fmt.Errorf("shape matching: solving M·a = f with %q: %w", s.linear.Base().Name, err)
		}
	}
	ops.Project(a)
	for _, p := range s.providers {
		st := p.GoalState()
		x, v := st.Vec(graph.Position), st.Vec(graph.Velocity)
		p.DampVelocities(v, x)
		g := p.ComputeGoals(x)
		k := p.Stiffness() / h
		for i := range v {
			v[i] += k * (g[i] - x[i])
		}
	}
	ops.AddScaled(graph.Velocity, h, a)
	if s.RayleighMass > 0 {
		ops.Scale(graph.Velocity, 1/(1+h*s.RayleighMass))
	}
	ops.ProjectVelocities(t + h)
	ops.Integrate(graph.Position, graph.Velocity, h)
	ops.ProjectPositions(t + h)
	return nil
}
