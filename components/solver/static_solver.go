package solver

import (
	"errors"
	"fmt"
	"math"

	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/sparse"
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
// Load steps (loadSteps = n > 1): the first time step applies the
// external loads in n equal increments, λ = 1/n, 2/n, …, 1, each solved
// to convergence from the solution of the previous one. The solver sets
// λ as the load factor of its node (graph.Node.SetLoadFactor), which
// every external load of the subtree honours: ConstantForceField and the
// weight of every mass (graph.Node.Gravity); internal forces
// (elasticity, springs, contacts) are not scaled. Later time steps start
// from the equilibrium under the full load and apply their loads at once.
//
// Line search (lineSearch = true): a step is accepted when one of two
// Armijo sufficient-decrease conditions holds (Nocedal & Wright,
// "Numerical Optimization", 2nd ed., 3.1 and 11.2):
//
//	energy:   Π(x + s·dx) ≤ Π(x) − c·s·(P f)·dx    (Π = Ops.PotentialEnergy)
//	residual: |P f(x + s·dx)| ≤ (1 − c·s)·|P f(x)|
//
// with c = 10⁻⁴. When −K is positive definite the Newton direction descends
// both: dΠ/ds = −f·dx = −fᵀ(−K)⁻¹f < 0 and d/ds ½|P f|² = (P f)ᵀK dx =
// −|P f|² at s = 0. The energy is the natural merit function of
// elasticity; the residual condition covers forces without a consistent
// potential and the last iterations, where energy changes are below
// rounding.
//
// The full step is always tried first, and it is kept even when it fails
// both conditions (the watchdog technique, Nocedal & Wright 15.6, after
// Chamberlain et al. 1982): far from the solution the first Newton steps
// of a bending structure typically raise the energy (the linear predictor
// of a cantilever stretches its fibres) although Newton converges without
// help, and halving them there costs iterations (13 instead of 8 on the
// 80×8×8 StVK bar of validation/static_bar_test.go). After such a relaxed
// step, up to watchdogSteps further full Newton steps are taken; as soon
// as one of them lands on a point satisfying the sufficient-decrease
// conditions relative to the point before the relaxed step, the
// iteration goes on from there. If none does (or an iterate is not
// finite), the iteration returns to that point and backtracks along its
// Newton direction (halving from s = 1/2 down to 2⁻³⁰; the step with the
// smallest residual is taken if none satisfies Armijo but one reduced the
// residual; otherwise Newton has stalled, reported as non-convergence).
// Where full Newton steps converge, the line search therefore costs no
// iteration; where they diverge, it costs at most watchdogSteps
// iterations before the classic backtracking takes over. watchdogSteps =
// 0 gives the classic monotone backtracking line search.
//
// Indefinite tangent (recoverIndefinite = true): when the linear solver
// reports that −K is not positive definite (a Newton iterate passing
// through an unstable shape: a buckling or snapping configuration, a
// compressed neo-Hookean element), or returns a direction along which the
// energy rises ((P f)·dx ≤ 0), the system is solved again with a diagonal
// shift, (−K + σ·D) dx = P f with D = |diag(−K)|, through
// graph.ShiftedLinearSolver (SparseCholeskySolver implements it): σ starts
// at 10⁻⁴ (or a tenth of the previous iteration's shift) and grows tenfold
// until the factorisation succeeds and dx descends the energy, up to
// σ = 10⁸. A shifted direction is a descent direction that interpolates
// between Newton's step (σ → 0) and a diagonally scaled steepest descent
// (σ → ∞), as in Levenberg–Marquardt; the line search then makes progress
// and, once the iterates leave the unstable region, the unshifted Newton
// steps converge quadratically again. LastStaticStats counts the shifted
// solves.
// With a linear solver that cannot shift, the error is reported (use
// loadSteps, or SparseCholeskySolver).
//
// Chord steps (chordSteps = n, default 4): after a full Newton step that
// at least halved the residual, and when the linear solver keeps its
// factorisation (graph.FactorReuser: SparseCholeskySolver), up to n
// corrections x ← x + K₀⁻¹ P f(x) with the tangent K₀ of that step are
// taken, each kept only if it halves the residual again (else undone). This
// is Newton's method with the Jacobian reused (Shamanskii's method; Kelley,
// "Iterative methods for linear and nonlinear equations", 1995, 5.4): near
// the solution the tangent changes little between iterates, and a chord
// step costs two triangular solves and a force evaluation instead of an
// assembly and a factorisation. On the 80×8×8 StVK bar: 5 factorisations
// and 6 chord steps instead of 8 factorisations.
//
// Convergence (checked on the projected residual r = |P f|, and on the
// Newton correction):
//   - r ≤ absoluteTolerance, or
//   - r ≤ tolerance·F, with F the largest residual under the full load at
//     the start of any step so far (the load scale the solver has had to
//     balance; a step that starts at equilibrium therefore converges at
//     once instead of chasing rounding noise), or
//   - a full, unshifted Newton step from a converged linear solve with
//     |dx| ≤ tolerance·|x ⊖ x_start|, x_start the configuration at the
//     start of the load step: the correction, an estimate of the remaining
//     error, is negligible against the displacement of the step (SOFA's
//     relative correction criterion; it ends the iteration when the
//     residual is at the rounding level of the internal forces).
//
// If none holds after iterations Newton steps (per load step), Solve
// returns an error with the iteration count and the residual
// (failOnNonConvergence = false keeps the last iterate and goes on).
// LastStaticStats reports the last time step; LastStats (its linear
// solves) and LastNewton (its Newton iterations, with the final residual
// relative to F) are what runscene's summary and EnergyLogger read of
// every solver.
type StaticSolver struct {
	graph.ObjectBase
	Iterations           int     `toml:"iterations" doc:"maximum number of Newton iterations per load step" range:"[1,inf)"`
	Tolerance            float64 `toml:"tolerance" doc:"relative tolerance: on the residual |P f| against the largest residual under the full load at the start of a step, and on the Newton correction |dx| against the displacement of the load step" range:"[0,inf)"`
	AbsoluteTolerance    float64 `toml:"absoluteTolerance" doc:"converged when the residual |P f| is at most this" unit:"N" range:"[0,inf)"`
	LoadSteps            int     `toml:"loadSteps" doc:"number of equal load increments of the first time step: every external load (ConstantForceField, gravity) is scaled by λ = 1/n, 2/n, …, 1, each increment solved to convergence" range:"[1,inf)"`
	LineSearch           bool    `toml:"lineSearch" doc:"globalise Newton: full steps are kept while the watchdog allows, else backtracking on the potential energy or the residual norm (keeps Newton from diverging far from the solution)"`
	WatchdogSteps        int     `toml:"watchdogSteps" doc:"full Newton steps allowed after one that fails the sufficient-decrease test before returning to it and backtracking (0: classic monotone backtracking at every step)" range:"[0,inf)"`
	ChordSteps           int     `toml:"chordSteps" doc:"after a Newton step that at least halved the residual, up to this many chord steps (corrections with the factorisation of that step's tangent, kept while each halves the residual; needs a linear solver that keeps its factorisation, e.g. SparseCholeskySolver; 0: none)" range:"[0,inf)"`
	RecoverIndefinite    bool    `toml:"recoverIndefinite" doc:"when the tangent is not positive definite, solve with a growing diagonal shift (−K + σ·|diag K|) instead of stopping (needs a linear solver that can shift, e.g. SparseCholeskySolver)"`
	FailOnNonConvergence bool    `toml:"failOnNonConvergence" doc:"return an error when Newton does not converge in iterations steps (false: keep the last iterate and go on)"`

	linear   graph.LinearSolver
	loadNorm float64 // largest full-load residual at the start of a step so far
	ramped   bool    // the first (ramped) time step is done
	lastWhy  string  // why the last Newton solve stopped without converging
	last     StaticStats
}

// StaticStats reports how a StaticSolver step went.
type StaticStats struct {
	Iterations       int     // Newton iterations (linear solves) taken, over all load steps
	Residual         float64 // final projected residual |P f|
	LoadNorm         float64 // F: the largest full-load residual at the start of any step so far
	Converged        bool
	LinearIterations int     // total linear-solver iterations
	LinearResidual   float64 // largest relative residual of the step's accepted linear solves
	LinearConverged  bool    // every accepted linear solve of the step converged
	Halvings         int     // total step halvings of the line search
	LoadSteps        int     // load increments solved (1 without loadSteps)
	Relaxed          int     // full Newton steps kept although they failed the sufficient-decrease test (watchdog)
	Fallbacks        int     // watchdog returns to the point before a relaxed step
	Shifts           int     // linear solves with a diagonal shift (indefinite tangent)
	ChordSteps       int     // accepted chord steps (corrections with a kept factorisation)
	ChordRejected    int     // chord steps tried and undone
}

func init() {
	graph.Register(graph.TypeInfo{
		Name: "StaticSolver",
		Kind: graph.KindODESolver,
		Summary: "Static equilibrium f(x) = 0 by Newton's method: solves (−K) dx = f with the linear solver of its node or above; optional load increments (loadSteps), " +
			"watchdog line search (full steps unless they fail to pay off), diagonal-shift recovery of an indefinite tangent; each step starts from the previous solution; reports non-convergence.",
		New: func() graph.Object {
			return &StaticSolver{Iterations: 25, Tolerance: 1e-10, LoadSteps: 1, LineSearch: true, WatchdogSteps: 4, ChordSteps: 4,
				RecoverIndefinite: true, FailOnNonConvergence: true}
		},
	})
}

// maxHalvings bounds the line search: steps down to 2⁻³⁰ of the Newton step.
const maxHalvings = 30

// armijo is the sufficient-decrease constant of the line search.
const armijo = 1e-4

// Diagonal shifts of the indefinite-tangent recovery: the first σ, the
// growth factor, and the largest σ tried.
const (
	shiftStart  = 1e-4
	shiftGrowth = 10
	shiftMax    = 1e8
)

// Init finds the linear solver.
func (s *StaticSolver) Init() error {
	s.linear = s.Node.LinearSolver()
	if s.linear == nil {
		return s.Errorf("StaticSolver needs a linear solver (e.g. CGLinearSolver) in its node or above")
	}
	if s.LoadSteps < 1 {
		s.LoadSteps = 1
	}
	return nil
}

// LastStaticStats returns the statistics of the most recent step.
func (s *StaticSolver) LastStaticStats() StaticStats { return s.last }

// LastStats returns the linear solves of the most recent step combined:
// the total of their iterations, the largest relative residual, whether
// all converged (a step already at equilibrium solves nothing: zero
// iterations, converged). A solve rejected for an indefinite tangent and
// redone with a shift counts its iterations only.
func (s *StaticSolver) LastStats() graph.LinearStats {
	return graph.LinearStats{Iterations: s.last.LinearIterations, Residual: s.last.LinearResidual, Converged: s.last.LinearConverged}
}

// LastNewton returns the Newton iterations of the most recent step (over
// all its load steps), with the final residual |P f| relative to F, the
// largest full-load residual at the start of any step so far (0 when
// F = 0: nothing was ever loaded).
func (s *StaticSolver) LastNewton() graph.NewtonStats {
	rel := 0.0
	if s.last.LoadNorm > 0 {
		rel = s.last.Residual / s.last.LoadNorm
	}
	return graph.NewtonStats{Iterations: s.last.Iterations, Residual: rel, Tested: true, Converged: s.last.Converged}
}

// residual computes f at the current positions into f, projects it and
// returns its norm.
func residual(ops *graph.Ops, f graph.VecID) float64 {
	ops.ComputeForce(f)
	ops.Project(f)
	return ops.Norm(f)
}

// newtonVecs are the vectors of one Newton solve.
type newtonVecs struct {
	f, dx, u, dxRef graph.VecID // derivative vectors
	xStart, xk      graph.VecID // coordinates: start of the load step, current iterate
	xRef            graph.VecID // coordinates: the point before a relaxed step
}

// Solve implements graph.ODESolver: one equilibrium solve (in load
// increments on the first step when loadSteps > 1).
func (s *StaticSolver) Solve(ops *graph.Ops, h float64) error {
	if s.linear == nil {
		if err := s.Init(); err != nil {
			return err
		}
	}
	t := ops.Time()
	v := newtonVecs{f: ops.AllocDeriv(), dx: ops.AllocDeriv(), u: ops.AllocDeriv(), dxRef: ops.AllocDeriv(),
		xStart: ops.AllocCoord(), xk: ops.AllocCoord(), xRef: ops.AllocCoord()}
	defer ops.Free(v.f, v.dx, v.u, v.dxRef, v.xStart, v.xk, v.xRef)

	ops.ProjectPositions(t + h)
	ops.Clear(graph.Velocity)
	defer ops.Clear(graph.Velocity)
	node := s.Node
	defer node.SetLoadFactor(1)

	stats := StaticStats{LinearConverged: true}
	// The load scale: the residual under the full load at the start.
	node.SetLoadFactor(1)
	r := residual(ops, v.f)
	if !isFinite(r) {
		s.last = stats
		return fmt.Errorf("StaticSolver: the residual at the start of the step is %g (a force field returns non-finite forces)", r)
	}
	s.loadNorm = math.Max(s.loadNorm, r)
	stats.LoadNorm = s.loadNorm
	tol := math.Max(s.AbsoluteTolerance, s.Tolerance*s.loadNorm)

	n := 1
	if !s.ramped && s.LoadSteps > 1 {
		n = s.LoadSteps
	}
	s.ramped = true
	for i := 1; i <= n; i++ {
		lambda := float64(i) / float64(n)
		node.SetLoadFactor(lambda)
		stats.LoadSteps++
		err := s.newton(ops, v, tol, &stats)
		s.last = stats
		if err != nil {
			if n > 1 {
				return fmt.Errorf("StaticSolver, load step %d of %d (load factor %.4g): %w", i, n, lambda, err)
			}
			return err
		}
		if !stats.Converged && i < n {
			break // reported below
		}
	}
	if !stats.Converged && s.FailOnNonConvergence {
		where := ""
		if n > 1 {
			where = fmt.Sprintf(" at load step %d of %d", stats.LoadSteps, n)
		}
		return fmt.Errorf("StaticSolver did not converge in %d Newton iterations%s: residual |P f| = %.6g, tolerance %.6g%s "+
			"(raise iterations, loosen tolerance, load in more steps (loadSteps), or set failOnNonConvergence = false to go on)",
			s.Iterations, where, stats.Residual, tol, s.lastWhy)
	}
	return nil
}

// newton runs Newton's method at the current load factor from the current
// positions, adding to stats. It returns an error for failures that stop
// the run (linear solver errors, divergence to non-finite values);
// non-convergence is reported through stats.Converged and s.lastWhy.
func (s *StaticSolver) newton(ops *graph.Ops, v newtonVecs, tol float64, stats *StaticStats) error {
	s.lastWhy = ""
	ops.Copy(v.xStart, graph.Position)
	r := residual(ops, v.f)
	if !isFinite(r) {
		return fmt.Errorf("StaticSolver: the residual at the start of the load step is %g (a force field returns non-finite forces)", r)
	}
	stats.Converged = false
	var (
		ls       graph.LinearStats // the last linear solve
		watch    watchdog
		its      int
		sigma    float64 // the last diagonal shift (0: none)
		useWatch = s.LineSearch && s.WatchdogSteps > 0
		eCur     float64 // potential energy at the current iterate, when eValid
		eValid   bool
	)
	for {
		stats.Residual = r
		if r <= tol {
			stats.Converged = true
			return nil
		}
		if its == s.Iterations {
			s.lastWhy = fmt.Sprintf("; last linear solve: %d iterations, relative residual %.3g, converged %v", ls.Iterations, ls.Residual, ls.Converged)
			return nil
		}
		its++
		stats.Iterations++
		rBefore := r
		var err error
		var shifted bool
		ls, shifted, err = s.direction(ops, v, r, &sigma, stats)
		if !shifted {
			// A shifted solve solves its own (shifted) system; its
			// residual against the tangent measures the shift, not the
			// solve.
			stats.LinearResidual = math.Max(stats.LinearResidual, ls.Residual)
		}
		stats.LinearConverged = stats.LinearConverged && ls.Converged
		if err != nil {
			return fmt.Errorf("StaticSolver: Newton iteration %d: %w", stats.Iterations, err)
		}
		ops.Copy(v.xk, graph.Position)
		slope := ops.Dot(v.f, v.dx) // −dΠ/ds at s = 0
		useEnergy := s.LineSearch && slope > 0
		var e0 float64 // energy at xk (mapped positions are propagated there)
		if (useEnergy || useWatch) && !watch.active {
			if !eValid {
				eCur = ops.PotentialEnergy()
			}
			e0 = eCur
		}
		eValid = false

		step := 1.0
		// The full step.
		ops.Integrate(graph.Position, v.dx, 1)
		rNew := residual(ops, v.f)
		finite := isFinite(rNew) && ops.CheckFinite() == nil
		switch {
		case !s.LineSearch:
			if !finite {
				return s.diverged(ops, stats, rNew)
			}
		case watch.active:
			ok := finite && rNew <= (1-armijo)*watch.r
			if finite && !ok && watch.useEnergy {
				eCur, eValid = ops.PotentialEnergy(), true
				ok = eCur <= watch.e-armijo*watch.slope
			}
			switch {
			case ok:
				watch.active = false // the relaxed steps paid off
			case finite && watch.left > 1:
				watch.left--
			default:
				// Back to the point before the relaxed step; backtrack
				// along its direction from s = 1/2.
				stats.Fallbacks++
				watch.active = false
				ops.Copy(v.xk, v.xRef)
				ops.Copy(v.dx, v.dxRef)
				eValid = false
				var halvings int
				step, rNew, halvings = s.backtrack(ops, v, watch.r, watch.useEnergy, watch.e, watch.slope, 0.5)
				stats.Halvings += halvings
				if step == 0 {
					return s.stalled(ops, v, stats)
				}
			}
		default:
			ok := finite && rNew <= (1-armijo)*r
			if finite && !ok && useEnergy {
				eCur, eValid = ops.PotentialEnergy(), true
				ok = eCur <= e0-armijo*slope
			}
			switch {
			case ok:
			case finite && useWatch && !shifted:
				// Keep the full step, watched.
				stats.Relaxed++
				watch = watchdog{active: true, left: s.WatchdogSteps, r: r, e: e0, slope: slope, useEnergy: useEnergy}
				ops.Copy(v.xRef, v.xk)
				ops.Copy(v.dxRef, v.dx)
			default:
				eValid = false
				var halvings int
				step, rNew, halvings = s.backtrack(ops, v, r, useEnergy, e0, slope, 0.5)
				stats.Halvings += halvings
				if step == 0 {
					return s.stalled(ops, v, stats)
				}
			}
		}
		r = rNew
		if err := ops.CheckFinite(); !isFinite(r) || err != nil {
			return s.diverged(ops, stats, r)
		}
		if step == 1 && ls.Converged && !shifted {
			// The correction estimates the remaining error only when the
			// linear solve converged (a breakdown returns dx = 0).
			ops.Difference(v.u, graph.Position, v.xStart)
			if du := ops.Norm(v.u); isFinite(du) && ops.Norm(v.dx) <= s.Tolerance*du {
				stats.Residual = r
				stats.Converged = true
				return nil
			}
		}
		if step == 1 && !shifted && !watch.active && r <= chordGain*rBefore && r > tol {
			var done bool
			r, done = s.chords(ops, v, r, tol, stats)
			eValid = false
			if done {
				stats.Residual = r
				stats.Converged = true
				return nil
			}
		}
	}
}

// chordGain is the residual reduction a Newton step must achieve before
// chord steps are tried, and that each chord step must achieve to be kept
// (a chord step costs a small fraction of a Newton step: on the 80×8×8
// StVK bar two triangular solves and a force evaluation take ~20 ms
// against ~450 ms for an assembly and a factorisation, so halving the
// residual pays; 0.5 gives 5 factorisations + 6 chord steps there, 0.25
// gives 6 + 5, none 8).
const chordGain = 0.5

// chords takes up to ChordSteps chord steps from the current iterate (f
// holds its projected force, r its norm): x ← x + K₀⁻¹ f with the kept
// factorisation of the last tangent K₀ (graph.FactorReuser), each kept
// while it cuts the residual by chordGain. Near the solution the tangent
// changes little from one iterate to the next and a chord step, two
// triangular solves and a force evaluation, does much of what a Newton
// step (assembly and factorisation) would; further away the first chord
// step fails the test and is undone, at the price of two force
// evaluations. It returns the residual and whether it met tol.
func (s *StaticSolver) chords(ops *graph.Ops, v newtonVecs, r, tol float64, stats *StaticStats) (float64, bool) {
	fr, ok := s.linear.(graph.FactorReuser)
	if !ok || s.ChordSteps == 0 {
		return r, false
	}
	for k := 0; k < s.ChordSteps; k++ {
		if _, err := fr.SolveAgain(ops, v.dx, v.f); err != nil {
			return r, false
		}
		ops.Copy(v.xk, graph.Position)
		ops.Integrate(graph.Position, v.dx, 1)
		rc := residual(ops, v.f)
		if !isFinite(rc) || ops.CheckFinite() != nil || rc > chordGain*r {
			// Undo; the force fields linearise at xk again for the next
			// Newton step's tangent.
			stats.ChordRejected++
			ops.Copy(graph.Position, v.xk)
			return residual(ops, v.f), false
		}
		stats.ChordSteps++
		r = rc
		if r <= tol {
			return r, true
		}
	}
	return r, false
}

// watchdog is the state of a relaxed (unchecked) full Newton step: the
// residual, energy and energy slope at the point before it.
type watchdog struct {
	active    bool
	left      int // full steps still allowed
	r, e      float64
	slope     float64
	useEnergy bool
}

// direction solves (−K) dx = f for the Newton direction, with the
// diagonal-shift recovery when −K is not positive definite. sigma holds the
// shift of the previous iteration (0 if none) and is updated.
func (s *StaticSolver) direction(ops *graph.Ops, v newtonVecs, r float64, sigma *float64, stats *StaticStats) (graph.LinearStats, bool, error) {
	sl, canShift := s.linear.(graph.ShiftedLinearSolver)
	try := 0.0
	if *sigma > 0 && canShift && s.RecoverIndefinite {
		// Start from a tenth of the last shift (unshifted once it falls
		// below the first shift): Levenberg–Marquardt's decrease.
		if try = *sigma / shiftGrowth; try < shiftStart {
			try = 0
		}
	}
	for {
		var ls graph.LinearStats
		var err error
		if try == 0 {
			ls, err = s.linear.Solve(ops, v.dx, v.f, 0, 0, -1)
		} else {
			stats.Shifts++
			ls, err = sl.SolveShifted(ops, v.dx, v.f, 0, 0, -1, try)
		}
		stats.LinearIterations += ls.Iterations
		indefinite := isNotPositiveDefinite(err)
		if err != nil && !indefinite {
			return ls, try > 0, fmt.Errorf("linear solve with %q: %w", s.linear.Base().Name, err)
		}
		if !indefinite && s.RecoverIndefinite && canShift && r > 0 && ops.Dot(v.f, v.dx) <= 0 {
			indefinite = true // the direction raises the energy
		}
		if !indefinite {
			*sigma = try
			return ls, try > 0, nil
		}
		if !s.RecoverIndefinite || !canShift {
			if err == nil {
				*sigma = 0
				return ls, false, nil // a direction that does not descend: the line search deals with it
			}
			why := "recoverIndefinite = false"
			if !canShift {
				why = fmt.Sprintf("%q cannot solve with a diagonal shift (use SparseCholeskySolver)", s.linear.Base().Name)
			}
			return ls, false, fmt.Errorf("the tangent is not positive definite and cannot be recovered (%s); apply the load in steps (loadSteps): linear solve with %q: %w",
				why, s.linear.Base().Name, err)
		}
		if try == 0 {
			try = shiftStart
		} else {
			try *= shiftGrowth
		}
		if try > shiftMax {
			return ls, true, fmt.Errorf("the tangent is not positive definite even with a diagonal shift of %g·|diag K| (linear solver %q): %w", shiftMax, s.linear.Base().Name, graph.ErrNotPositiveDefinite)
		}
	}
}

// isNotPositiveDefinite reports whether err says the system matrix is not
// positive definite.
func isNotPositiveDefinite(err error) bool {
	if err == nil {
		return false
	}
	var npd *sparse.NotPositiveDefiniteError
	return errors.Is(err, graph.ErrNotPositiveDefinite) || errors.As(err, &npd)
}

// stalled restores the iterate xk when no step length reduces the
// residual and records why Newton stopped.
func (s *StaticSolver) stalled(ops *graph.Ops, v newtonVecs, stats *StaticStats) error {
	ops.Copy(graph.Position, v.xk)
	stats.Residual = residual(ops, v.f)
	s.lastWhy = "; the line search found no step reducing the residual along the Newton direction"
	return nil
}

// diverged returns the error of a non-finite iterate.
func (s *StaticSolver) diverged(ops *graph.Ops, stats *StaticStats, r float64) error {
	what := fmt.Sprintf("the residual is %g", r)
	if err := ops.CheckFinite(); err != nil {
		what = err.Error()
	}
	return fmt.Errorf("StaticSolver diverged at Newton iteration %d: %s (try lineSearch = true, more load steps (loadSteps), or check the tangent stiffness)", stats.Iterations, what)
}

// backtrack moves the positions from xk along dx with step lengths
// start, start/2, … until the Armijo condition on the residual (or, with
// useEnergy, on the energy from e0 with slope −dΠ/ds) holds, and returns
// the accepted step length (0 when none reduces the residual), the
// residual there (with f holding the projected force at the new
// positions) and the number of halvings. r0 is the residual at xk. If no
// step down to 2⁻³⁰ qualifies, the one with the smallest residual is taken
// when it reduced the residual.
func (s *StaticSolver) backtrack(ops *graph.Ops, v newtonVecs, r0 float64, useEnergy bool, e0, slope, start float64) (step, r float64, halvings int) {
	bestStep, bestR := 0.0, r0
	step = start
	halvings = 1
	for {
		ops.Copy(graph.Position, v.xk)
		ops.Integrate(graph.Position, v.dx, step)
		r = residual(ops, v.f)
		if isFinite(r) && r <= (1-armijo*step)*r0 {
			return step, r, halvings
		}
		if useEnergy && isFinite(r) && ops.PotentialEnergy() <= e0-armijo*step*slope {
			return step, r, halvings
		}
		if isFinite(r) && r < bestR {
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
	ops.Copy(graph.Position, v.xk)
	ops.Integrate(graph.Position, v.dx, bestStep)
	return bestStep, residual(ops, v.f), halvings
}

func isFinite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
