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
//
// Newton iterations (newtonIterations = n > 1): the step above is the
// first Newton iteration of the nonlinear backward Euler equation for the
// new velocity v₁ = v₀ + Δv,
//
//	G(Δv) = M·Δv − h·F(x₀ + h·v₁, v₁) = 0,   F(x, v) = f(x, v) − α·M·v + β·K(x)·v
//
// (the first iteration evaluates F at the end of the step by its
// first-order expansion around x₀, which is the linearised step). Each
// further iteration sets x₁ = x₀ + h·v₁, evaluates the residual
// r = h·F(x₁, v₁) − M·Δv there (projected), and solves
// ((1 + h·α)·M − h·B − h·(h + β)·K(x₁)) δ = r, Δv ← Δv + δ, until
// |r| ≤ newtonTolerance·|r₀| (r₀ the right-hand side of the first solve) or
// n iterations. A correction that does not reduce |r| is halved (up to
// 10 times; else the iteration stops at the last iterate): mid-iteration
// the system matrix of an exact tangent can be indefinite (compressed
// elements, geometric stiffness), where CG breaks down. The tangent
// leaves out the derivative of the Rayleigh term β·K(x)·v with respect to
// x (second order in h), so with β > 0 the iteration converges linearly
// rather than quadratically. Stiff scenes with large rotations over a step
// (where the linearised step lags the rotation and adds artificial damping
// or drift) become the implicit Euler solution proper. LastStats sums the
// linear iterations of the step (its residual the largest, Converged if
// all converged and, with newtonIterations > 1, Newton converged);
// LastNewtonStats reports the Newton iterations.
type EulerImplicitSolver struct {
	graph.ObjectBase
	RayleighStiffness float64 `toml:"rayleighStiffness" doc:"Rayleigh stiffness damping β: damping force β·K·v (K = ∂f/∂x, negative semi-definite)" unit:"s" range:"[0,inf)"`
	RayleighMass      float64 `toml:"rayleighMass" doc:"Rayleigh mass damping α: damping force −α·M·v" unit:"1/s" range:"[0,inf)"`
	NewtonIterations  int     `toml:"newtonIterations" doc:"Newton iterations per step on the nonlinear backward Euler equation (1: the linearised step of SOFA)" range:"[1,inf)"`
	NewtonTolerance   float64 `toml:"newtonTolerance" doc:"stop the Newton iterations when the residual |M·Δv − h·F(x₁, v₁)| is at most this times the first one" range:"[0,inf)"`

	linear graph.LinearSolver
	last   graph.LinearStats
	newton graph.NewtonStats

	velocitySolves int // steps solved for the new velocity (exactSolver)
}

func init() {
	graph.Register(graph.TypeInfo{
		Name: "EulerImplicitSolver",
		Kind: graph.KindODESolver,
		Summary: "Implicit (backward) Euler with Rayleigh damping (Baraff & Witkin 1998; SOFA): solves ((1+hα)M − hB − h(h+β)K) Δv = h(f + (h+β)Kv − αMv) " +
			"with the linear solver of its node or above, then v += Δv, x += h·v.",
		New: func() graph.Object { return &EulerImplicitSolver{NewtonIterations: 1, NewtonTolerance: 1e-6} },
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

// LastNewtonStats returns the Newton iterations of the most recent step:
// with newtonIterations = 1 a single linearised solve, Tested = false (no
// residual is evaluated); else Residual is |r|/|r₀| at the last test. (It
// is not named LastNewton, so runscene's summary keeps its columns for
// the solvers whose every step is a Newton solve; an unconverged Newton
// iteration shows there through LastStats, whose Converged it clears.)
func (s *EulerImplicitSolver) LastNewtonStats() graph.NewtonStats { return s.newton }

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
	velocityForm := s.NewtonIterations <= 1 && s.exactLinear(ops) && s.velocityProjected(ops, dv)
	if velocityForm {
		// A direct solver of an exactly assembled system solves for the
		// new velocity v₁ = v + Δv: with A = (1 + h·α)·M − h·B − h·(h +
		// β)·K, A·v + rhs = M·v − h·B·v + h·f, the same equation without
		// the product K·v (one pass over the elements less). Taken only
		// when v is unchanged by the constraints' projection (their DOFs
		// at rest), so v₁ = Pv₁ holds for the solution, as Δv = PΔv does.
		ops.ComputeDf(rhs, graph.Velocity, 1, -h, 0)
	} else {
		ops.ComputeDf(rhs, graph.Velocity, -h*alpha, 0, h*(h+beta))
	}
	ops.AddScaled(rhs, h, f)
	ops.Project(rhs)

	stats, err := s.linear.Solve(ops, dv, rhs, 1+h*alpha, -h, -h*(h+beta))
	if velocityForm && err == nil {
		ops.AddScaled(dv, -1, graph.Velocity) // Δv = v₁ − v
		s.velocitySolves++
	}
	s.last = stats
	s.newton = graph.NewtonStats{Iterations: 1}
	if err != nil {
		return fmt.Errorf("implicit Euler: linear solve with %q: %w", s.linear.Base().Name, err)
	}
	if s.NewtonIterations <= 1 {
		ops.AddScaled(graph.Velocity, 1, dv)
		ops.ProjectVelocities(t + h)
		ops.Integrate(graph.Position, graph.Velocity, h)
		ops.ProjectPositions(t + h)
		return nil
	}
	return s.newtonIterate(ops, h, t, f, rhs, dv)
}

// exactSolver is implemented by the linear solvers that can tell, before
// a solve, that its solution will satisfy the system ComputeDf applies to
// rounding (a direct factorisation of an exactly assembled, symmetric
// matrix), for which implicit Euler may solve for the new velocity rather
// than its change: the solution's error then scales with |v₁| instead of
// |Δv|, which only an exact solve makes negligible (an approximate or
// non-symmetric tangent — probed contacts between two states — would
// show at 1e-8 relative).
type exactSolver interface {
	solvesExactly(ops *graph.Ops) bool
}

// solvesExactly implements exactSolver: the subtree is assembled in
// closed form only (blockSystem.exactlyAssembled).
func (s *SparseCholeskySolver) solvesExactly(ops *graph.Ops) bool {
	return s.sys.exactlyAssembled(ops)
}

// exactLinear reports whether the linear solver solves the coming system
// exactly.
func (s *EulerImplicitSolver) exactLinear(ops *graph.Ops) bool {
	e, ok := s.linear.(exactSolver)
	return ok && e.solvesExactly(ops)
}

// velocityProjected reports whether the projective constraints leave the
// velocity unchanged (tmp is scratch): Pv = v.
func (s *EulerImplicitSolver) velocityProjected(ops *graph.Ops, tmp graph.VecID) bool {
	ops.Copy(tmp, graph.Velocity)
	ops.Project(tmp)
	for _, st := range ops.Independent() {
		a, b := st.Vec(tmp), st.Vec(graph.Velocity)
		for i := range a {
			if a[i] != b[i] {
				return false
			}
		}
	}
	return true
}

// newtonHalvings bounds the halvings of a Newton correction that does not
// reduce the residual of the nonlinear backward Euler equation.
const newtonHalvings = 10

// newtonIterate continues the step from the first Newton iterate dv (rhs
// holds the first right-hand side) with the further Newton iterations of
// the nonlinear backward Euler equation (see the type's comment).
func (s *EulerImplicitSolver) newtonIterate(ops *graph.Ops, h, t float64, f, rhs, dv graph.VecID) error {
	alpha, beta := s.RayleighMass, s.RayleighStiffness
	x0, v0 := ops.AllocCoord(), ops.AllocDeriv()
	tmp, delta, dvPrev := ops.AllocDeriv(), ops.AllocDeriv(), ops.AllocDeriv()
	defer ops.Free(x0, v0, tmp, delta, dvPrev)
	ops.Copy(x0, graph.Position)
	ops.Copy(v0, graph.Velocity)
	r0 := ops.Norm(rhs)
	// update sets v₁ = v₀ + Δv and x₁ = x₀ + h·v₁ with the constraints.
	update := func() {
		ops.Copy(graph.Velocity, v0)
		ops.AddScaled(graph.Velocity, 1, dv)
		ops.ProjectVelocities(t + h)
		ops.Copy(graph.Position, x0)
		ops.Integrate(graph.Position, graph.Velocity, h)
		ops.ProjectPositions(t + h)
	}
	// residual sets rhs to r at the current (x₁, v₁) and returns |r|.
	resid := func() float64 {
		// r = h·(f(x₁, v₁) − α·M·v₁ + β·K(x₁)·v₁) − M·Δv, projected.
		ops.ComputeForce(f)
		ops.ComputeDf(rhs, graph.Velocity, -h*alpha, 0, h*beta)
		ops.AddScaled(rhs, h, f)
		ops.ComputeDf(tmp, dv, 1, 0, 0)
		ops.AddScaled(rhs, -1, tmp)
		ops.Project(rhs)
		return ops.Norm(rhs)
	}
	update()
	r := resid()
	for {
		if err := ops.CheckFinite(); err != nil {
			return fmt.Errorf("implicit Euler: Newton iteration %d: %w", s.newton.Iterations, err)
		}
		if r0 > 0 {
			s.newton.Residual = r / r0
		}
		s.newton.Tested = true
		s.newton.Converged = r <= s.NewtonTolerance*r0
		if s.newton.Converged {
			return nil
		}
		if s.newton.Iterations >= s.NewtonIterations {
			s.last.Converged = false // visible in runscene's summary
			return nil
		}
		// The tangent at x₁ (the ComputeForce of residual linearised there).
		ls, err := s.linear.Solve(ops, delta, rhs, 1+h*alpha, -h, -h*(h+beta))
		s.newton.Iterations++
		s.last.Iterations += ls.Iterations
		s.last.Residual = max(s.last.Residual, ls.Residual)
		s.last.Converged = s.last.Converged && ls.Converged
		if err != nil {
			return fmt.Errorf("implicit Euler: Newton iteration %d: linear solve with %q: %w", s.newton.Iterations, s.linear.Base().Name, err)
		}
		// Safeguard: the residual must decrease (the tangent may be
		// indefinite mid-iteration, where CG breaks down); halve the
		// correction until it does, else keep the last iterate and stop.
		step := 1.0
		ops.Copy(dvPrev, dv)
		for k := 0; ; k++ {
			ops.LinComb(dv, dvPrev, step, delta)
			update()
			rNew := resid()
			if isFinite(rNew) && rNew < r {
				r = rNew
				break
			}
			if k == newtonHalvings {
				ops.Copy(dv, dvPrev)
				update()
				resid() // back at the last iterate (and its linearisation)
				s.last.Converged = false
				return nil
			}
			step /= 2
		}
	}
}
