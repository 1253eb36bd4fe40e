package solver

import (
	"fmt"

	"github.com/sofago/sofago/graph"
)

// EulerExplicitSolver is the explicit Euler method, by default in its
// symplectic (semi-implicit) form, as SOFA's EulerExplicitSolver:
//
//	a = M⁻¹ f(x, v),  v ← v + h·a,  x ← x ⊕ h·v (the new v).
//
// Symplectic Euler preserves phase-space volume and conserves a modified
// energy close to the true one (Hairer, Lubich & Wanner, "Geometric
// Numerical Integration", VI.3 and IX.8), so an undamped system does not
// gain or lose energy over long runs at a stable step. With
// symplectic = false it is the forward Euler method (x uses the old v),
// which gains energy on every oscillator and is kept only for comparison.
//
// M⁻¹f comes from the masses directly (diagonal and rigid masses implement
// graph.InverseMass); when that is impossible (a mass on a mapped state) the
// solver solves M·a = f with the linear solver of its node or above. The
// acceleration is projected by the constraints, and the new velocities and
// positions go through ProjectVelocities and ProjectPositions at t + h.
// Stability requires h below about 2/ω_max (ω_max the highest natural
// frequency of the model).
type EulerExplicitSolver struct {
	graph.ObjectBase
	Symplectic bool `toml:"symplectic" doc:"update x with the new velocity (symplectic Euler); false: with the old one (forward Euler, gains energy)"`

	linear graph.LinearSolver // optional: for M a = f when M has no cheap inverse
}

func init() {
	graph.Register(graph.TypeInfo{
		Name:    "EulerExplicitSolver",
		Kind:    graph.KindODESolver,
		Summary: "Explicit Euler, symplectic by default (a = M⁻¹f, v += h·a, x += h·v with the new v): conserves a modified energy at a stable step; needs a mass, or a linear solver when M has no cheap inverse.",
		New:     func() graph.Object { return &EulerExplicitSolver{Symplectic: true} },
	})
}

// invertibleMass is implemented by masses that can tell whether M⁻¹ exists
// (e.g. a zero vertex mass); graph.InverseMass.AccFromF itself cannot
// report an error.
type invertibleMass interface {
	CheckInvertible() error
}

// NeedsMass implements graph.InertialSolver: a = M⁻¹f needs a mass on every
// state it integrates (checked before the run by graph.Scene.CheckRunnable).
func (s *EulerExplicitSolver) NeedsMass() bool { return true }

// Init finds the optional linear solver and checks that the masses of the
// independent states below the solver can be inverted.
func (s *EulerExplicitSolver) Init() error {
	s.linear = s.Node.LinearSolver()
	return s.Node.Walk(func(n *graph.Node) error {
		if n.Mapping() != nil {
			return nil // mapped masses go through the linear solver
		}
		mass := n.Mass()
		if m, ok := mass.(invertibleMass); ok {
			if err := m.CheckInvertible(); err != nil {
				return mass.Base().Errorf("%v; the explicit solver %q needs the accelerations M⁻¹f", err, s.Name)
			}
		}
		return nil
	})
}

// Solve implements graph.ODESolver.
func (s *EulerExplicitSolver) Solve(ops *graph.Ops, h float64) error {
	t := ops.Time()
	f, a := ops.AllocDeriv(), ops.AllocDeriv()
	defer ops.Free(f, a)

	ops.ComputeForce(f)
	if err := ops.AccFromF(a, f); err != nil {
		if s.linear == nil {
			return err // names the state and suggests a mass or a linear solver
		}
		if _, err := s.linear.Solve(ops, a, f, 1, 0, 0); err != nil {
			return fmt.Errorf("explicit Euler: solving M·a = f with %q: %w", s.linear.Base().Name, err)
		}
	}
	ops.Project(a)
	if !s.Symplectic {
		ops.Integrate(graph.Position, graph.Velocity, h) // old v
	}
	ops.AddScaled(graph.Velocity, h, a)
	ops.ProjectVelocities(t + h)
	if s.Symplectic {
		ops.Integrate(graph.Position, graph.Velocity, h) // new v
	}
	ops.ProjectPositions(t + h)
	return nil
}
