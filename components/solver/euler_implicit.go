package solver

import (
	"fmt"

	"github.com/sofago/sofago/graph"
)

// EulerImplicitSolver is the backward (implicit) Euler method of Baraff &
// Witkin ("Large steps in cloth simulation", SIGGRAPH 1998, eq. 6-7), with
// Rayleigh damping, as SOFA's EulerImplicitSolver. One linearised step of
// size h solves
//
//	((1 + h·α)·M − h·B − h·(h + β)·K) Δv = h·(f + (h + β)·K·v − α·M·v)
//
// then sets v ← v + Δv and x ← x ⊕ h·v (the new velocity). f, K = ∂f/∂x and
// B = ∂f/∂v are taken at the start of the step; α (rayleighMass) and β
// (rayleighStiffness) add the damping force −α·M·v + β·K·v (README, Conventions). The
// system comes from M Δv = h·F(x + h·v_new, v_new), F the total force
// including damping, expanded to first order around (x, v). The right-hand
// side and the solution are projected by the constraints, and the new
// velocities and positions are passed to ProjectVelocities and
// ProjectPositions at the end of the step (t + h).
//
// The linear system is solved by the linear solver of the node or the
// nearest ancestor (e.g. CGLinearSolver). An unconverged linear solve is not
// an error (the step proceeds with the approximate Δv, as in SOFA);
// LastStats reports how it went.
type EulerImplicitSolver struct {
	graph.ObjectBase
	RayleighStiffness float64 `toml:"rayleighStiffness" doc:"Rayleigh stiffness damping β: damping force β·K·v (K = ∂f/∂x, negative semi-definite)" unit:"s" range:"[0,inf)"`
	RayleighMass      float64 `toml:"rayleighMass" doc:"Rayleigh mass damping α: damping force −α·M·v" unit:"1/s" range:"[0,inf)"`

	linear graph.LinearSolver
	last   graph.LinearStats
}

func init() {
	graph.Register(graph.TypeInfo{
		Name: "EulerImplicitSolver",
		Kind: graph.KindODESolver,
		Summary: "Implicit (backward) Euler with Rayleigh damping (Baraff & Witkin 1998; SOFA): solves ((1+hα)M − hB − h(h+β)K) Δv = h(f + (h+β)Kv − αMv) " +
			"with the linear solver of its node or above, then v += Δv, x += h·v.",
		New: func() graph.Object { return &EulerImplicitSolver{} },
	})
}

// NeedsMass implements graph.InertialSolver: the M of its system needs a mass on every
// state it integrates (checked before the run by graph.Scene.CheckRunnable).
func (s *EulerImplicitSolver) NeedsMass() bool { return true }

// Init finds the linear solver.
func (s *EulerImplicitSolver) Init() error {
	s.linear = s.Node.LinearSolver()
	if s.linear == nil {
		return s.Errorf("EulerImplicitSolver needs a linear solver (e.g. CGLinearSolver) in its node or above")
	}
	return nil
}

// LastStats returns the linear solver's statistics for the most recent step.
func (s *EulerImplicitSolver) LastStats() graph.LinearStats { return s.last }

// Solve implements graph.ODESolver.
func (s *EulerImplicitSolver) Solve(ops *graph.Ops, h float64) error {
	if s.linear == nil {
		if err := s.Init(); err != nil {
			return err
		}
	}
	alpha, beta := s.RayleighMass, s.RayleighStiffness
	t := ops.Time()
	f, rhs, dv := ops.AllocDeriv(), ops.AllocDeriv(), ops.AllocDeriv()
	defer ops.Free(f, rhs, dv)

	// rhs = h·f + h·(h + β)·K·v − h·α·M·v. ComputeDf linearises at the
	// configuration of the ComputeForce just before it.
	ops.ComputeForce(f)
	ops.ComputeDf(rhs, graph.Velocity, -h*alpha, 0, h*(h+beta))
	ops.AddScaled(rhs, h, f)
	ops.Project(rhs)

	stats, err := s.linear.Solve(ops, dv, rhs, 1+h*alpha, -h, -h*(h+beta))
	s.last = stats
	if err != nil {
		return fmt.Errorf("implicit Euler: linear solve with %q: %w", s.linear.Base().Name, err)
	}
	ops.AddScaled(graph.Velocity, 1, dv)
	ops.ProjectVelocities(t + h)
	ops.Integrate(graph.Position, graph.Velocity, h)
	ops.ProjectPositions(t + h)
	return nil
}
