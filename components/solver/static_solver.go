package solver

import (
	"fmt"
	"math"

	"github.com/sofago/sofago/graph"
)

// StaticSolver finds the static equilibrium f(x) = 0 by Newton's method
// (SOFA's StaticSolver): at each iteration it solves the tangent system
//
//	(−K) dx = P f(x)        (ComputeDf with k = −1, through the linear solver)
//
// with K = ∂f/∂x and P the projective constraints, then moves
// x ← x ⊕ s·dx. Velocities are zero throughout. Each time step solves the
// equilibrium once, starting from the previous solution, so a scene whose
// loads change over the steps is solved by load continuation.
//
// Line search (lineSearch = true): the step length s starts at 1 and is
// halved until one of two Armijo sufficient-decrease conditions holds
// (Nocedal & Wright, "Numerical Optimization", 2nd ed., 3.1 and 11.2):
//
//	energy:   Π(x + s·dx) ≤ Π(x) − c·s·(P f)·dx    (Π = Ops.PotentialEnergy)
//	residual: |P f(x + s·dx)| ≤ (1 − c·s)·|P f(x)|
//
// with c = 10⁻⁴. When −K is positive definite the Newton direction descends
// both: dΠ/ds = −f·dx = −fᵀ(−K)⁻¹f < 0 and d/ds ½|P f|² = (P f)ᵀK dx =
// −|P f|² at s = 0. The energy is the natural merit function of
// elasticity: the residual norm is dominated by the stiffest modes and
// typically jumps up on the first step towards a bent equilibrium (a
// cantilever's linear predictor stretches its fibres), so a residual-only
// search would shrink good Newton steps to crawling. The residual condition
// covers forces without a consistent potential and the last iterations,
// where energy changes are below rounding. A full step is always tried
// first, so close to the solution the convergence stays quadratic. If no
// step length down to 2⁻³⁰ qualifies, the one with the smallest residual is
// taken if it reduced the residual at all; otherwise Newton has stalled
// (reported as non-convergence). The price of the safety: where the full
// first step raises the energy although pure Newton would converge (on
// scenes/cantilever_static.toml the linear predictor's spurious stretch
// does), the halved step costs a few iterations (7 instead of 5 there);
// lineSearch = false is faster when Newton is known to converge from the
// start.
//
// Convergence (checked on the projected residual r = |P f|, and on the
// Newton correction):
//   - r ≤ absoluteTolerance, or
//   - r ≤ tolerance·F, with F the largest residual at the start of any step
//     so far (the load scale the solver has had to balance; a step that
//     starts at equilibrium therefore converges at once instead of chasing
//     rounding noise), or
//   - a full Newton step (s = 1) from a converged linear solve with
//     |dx| ≤ tolerance·|x ⊖ x_start|, x_start the configuration at the
//     start of the step: the correction, an estimate of the remaining
//     error, is negligible against the displacement of the step (SOFA's
//     relative correction criterion; it ends the iteration when the
//     residual is at the rounding level of the internal forces).
//
// If none holds after iterations Newton steps, Solve returns an error with
// the iteration count and the residual (failOnNonConvergence = false keeps
// the last iterate and goes on). LastStats reports the last step.
type StaticSolver struct {
	graph.ObjectBase
	Iterations           int     `toml:"iterations" doc:"maximum number of Newton iterations per step" range:"[1,inf)"`
	Tolerance            float64 `toml:"tolerance" doc:"relative tolerance: on the residual |P f| against the largest residual at the start of a step, and on the Newton correction |dx| against the displacement of the step" range:"[0,inf)"`
	AbsoluteTolerance    float64 `toml:"absoluteTolerance" doc:"converged when the residual |P f| is at most this" unit:"N" range:"[0,inf)"`
	LineSearch           bool    `toml:"lineSearch" doc:"backtracking line search on the potential energy or the residual norm (keeps Newton from diverging far from the solution)"`
	FailOnNonConvergence bool    `toml:"failOnNonConvergence" doc:"return an error when Newton does not converge in iterations steps (false: keep the last iterate and go on)"`

	linear   graph.LinearSolver
	loadNorm float64 // largest residual at the start of a step so far
	last     StaticStats
}

// StaticStats reports how a StaticSolver step went.
type StaticStats struct {
	Iterations       int     // Newton iterations (linear solves) taken
	Residual         float64 // final projected residual |P f|
	Converged        bool
	LinearIterations int // total linear-solver iterations
	Halvings         int // total step halvings of the line search
}

func init() {
	graph.Register(graph.TypeInfo{
		Name: "StaticSolver",
		Kind: graph.KindODESolver,
		Summary: "Static equilibrium f(x) = 0 by Newton's method with a backtracking line search (energy or residual): solves (−K) dx = f with the linear solver of its node or above; " +
			"each step starts from the previous solution (load continuation); reports non-convergence.",
		New: func() graph.Object {
			return &StaticSolver{Iterations: 25, Tolerance: 1e-10, LineSearch: true, FailOnNonConvergence: true}
		},
	})
}

// maxHalvings bounds the line search: steps down to 2⁻³⁰ of the Newton step.
const maxHalvings = 30

// armijo is the sufficient-decrease constant of the line search.
const armijo = 1e-4

// Init finds the linear solver.
func (s *StaticSolver) Init() error {
	s.linear = s.Node.LinearSolver()
	if s.linear == nil {
		return s.Errorf("StaticSolver needs a linear solver (e.g. CGLinearSolver) in its node or above")
	}
	return nil
}

// LastStats returns the statistics of the most recent step.
func (s *StaticSolver) LastStats() StaticStats { return s.last }

// residual computes f at the current positions into f, projects it and
// returns its norm.
func residual(ops *graph.Ops, f graph.VecID) float64 {
	ops.ComputeForce(f)
	ops.Project(f)
	return ops.Norm(f)
}

// Solve implements graph.ODESolver: one equilibrium solve.
func (s *StaticSolver) Solve(ops *graph.Ops, h float64) error {
	if s.linear == nil {
		if err := s.Init(); err != nil {
			return err
		}
	}
	t := ops.Time()
	f, dx, u := ops.AllocDeriv(), ops.AllocDeriv(), ops.AllocDeriv()
	xStart, xk := ops.AllocCoord(), ops.AllocCoord()
	defer ops.Free(f, dx, u, xStart, xk)

	ops.ProjectPositions(t + h)
	ops.Clear(graph.Velocity)
	defer ops.Clear(graph.Velocity)
	ops.Copy(xStart, graph.Position)

	stats := StaticStats{}
	r := residual(ops, f)
	if !isFinite(r) {
		s.last = stats
		return fmt.Errorf("StaticSolver: the residual at the start of the step is %g (a force field returns non-finite forces)", r)
	}
	s.loadNorm = math.Max(s.loadNorm, r)
	tol := math.Max(s.AbsoluteTolerance, s.Tolerance*s.loadNorm)
	stalled := ""
	var ls graph.LinearStats // the last linear solve
	for {
		stats.Residual = r
		if r <= tol {
			stats.Converged = true
			break
		}
		if stats.Iterations == s.Iterations {
			break
		}
		stats.Iterations++
		var err error
		ls, err = s.linear.Solve(ops, dx, f, 0, 0, -1)
		stats.LinearIterations += ls.Iterations
		if err != nil {
			s.last = stats
			return fmt.Errorf("StaticSolver: Newton iteration %d: linear solve with %q: %w", stats.Iterations, s.linear.Base().Name, err)
		}
		ops.Copy(xk, graph.Position)
		step, rNew, halvings := s.lineSearch(ops, f, dx, xk, r)
		stats.Halvings += halvings
		if step == 0 {
			// No step length reduces the residual: the tangent does not
			// point downhill (indefinite K, a wrong tangent, or a linear
			// solve far from converged).
			ops.Copy(graph.Position, xk)
			r = residual(ops, f)
			stats.Residual = r
			stalled = "; the line search found no step reducing the residual along the Newton direction"
			break
		}
		r = rNew
		if err := ops.CheckFinite(); !isFinite(r) || err != nil {
			s.last = stats
			what := fmt.Sprintf("the residual is %g", r)
			if err != nil {
				what = err.Error()
			}
			return fmt.Errorf("StaticSolver diverged at Newton iteration %d: %s (try lineSearch = true, smaller load steps, or check the tangent stiffness)", stats.Iterations, what)
		}
		if step == 1 && ls.Converged {
			// The correction estimates the remaining error only when the
			// linear solve converged (a breakdown returns dx = 0).
			ops.Difference(u, graph.Position, xStart)
			if du := ops.Norm(u); isFinite(du) && ops.Norm(dx) <= s.Tolerance*du {
				stats.Residual = r
				stats.Converged = true
				break
			}
		}
	}
	s.last = stats
	if !stats.Converged && s.FailOnNonConvergence {
		return fmt.Errorf("StaticSolver did not converge in %d Newton iterations: residual |P f| = %.6g, tolerance %.6g%s; last linear solve: %d iterations, relative residual %.3g, converged %v "+
			"(raise iterations, loosen tolerance, load in smaller steps, or set failOnNonConvergence = false to go on)",
			stats.Iterations, stats.Residual, tol, stalled, ls.Iterations, ls.Residual, ls.Converged)
	}
	return nil
}

// lineSearch moves the positions from xk along dx and returns the accepted
// step length (0 when none reduces the residual), the residual there (with
// f holding the projected force at the new positions) and the number of
// halvings. On entry f holds the projected force at xk, whose norm is r0.
// Without line search the full step is always taken.
func (s *StaticSolver) lineSearch(ops *graph.Ops, f, dx, xk graph.VecID, r0 float64) (step, r float64, halvings int) {
	// Energy condition only along a descent direction of Π.
	slope := ops.Dot(f, dx) // −dΠ/ds at s = 0
	useEnergy := s.LineSearch && slope > 0
	var e0 float64
	if useEnergy {
		e0 = ops.PotentialEnergy() // positions are at xk
	}
	bestStep, bestR := 0.0, r0
	step = 1
	for {
		ops.Copy(graph.Position, xk)
		ops.Integrate(graph.Position, dx, step)
		r = residual(ops, f)
		if !s.LineSearch || r <= (1-armijo*step)*r0 {
			return step, r, halvings
		}
		if useEnergy && isFinite(r) && ops.PotentialEnergy() <= e0-armijo*step*slope {
			return step, r, halvings
		}
		if r < bestR {
			bestStep, bestR = step, r
		}
		if halvings == maxHalvings {
			break
		}
		step /= 2
		halvings++
	}
	if bestStep == 0 {
		return 0, r0, halvings
	}
	ops.Copy(graph.Position, xk)
	ops.Integrate(graph.Position, dx, bestStep)
	return bestStep, residual(ops, f), halvings
}

func isFinite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
