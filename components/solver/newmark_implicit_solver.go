package solver

import (
	"fmt"
	"math"

	"github.com/sofago/sofago/graph"
)

// NewmarkImplicitSolver is the implicit Newmark method with Newton–Raphson
// iterations and Rayleigh damping at the current iterate (Barbič & James
// 2005, appendix C; VegaFEM's ImplicitNewmarkDense/Sparse), on any subtree:
// a reduced model (r reduced coordinates, with DenseDirectSolver), a full
// FEM mesh (with CGLinearSolver or a sparse solver), anything Ops drives.
//
// With x_n, v_n, a_n the state at the start of the step, h = dt and the
// constants a₁ = 1/(βh²), a₂ = 1/(βh), a₃ = (1−2β)/(2β), a₄ = γ/(βh),
// a₅ = 1 − γ/β, a₆ = (1 − γ/(2β))h, one step is
//
//	x = x_n   (predictor; prescribed DOFs at x(t + h)); d = x ⊖ x_n
//	a = a₁d − a₂v_n − a₃a_n,   v = a₄d + a₅v_n + a₆a_n
//	for it = 0 … maxIterations−1:
//	    f = f(x, v)                                  (every force: elastic, gravity, loads)
//	    res = P(f − M a − α M v + β K v)             (the damping force −C v, C = αM − βK)
//	    if it = 0: res₀ = |res|²  elif |res|²/res₀ < tolerance²: stop;  stop if |res|² = 0
//	    solve ((a₁ + a₄α) M − a₄ B − (1 + a₄β) K) δ = res
//	    x ← x ⊕ δ;  update d, a, v as above
//
// with K = ∂f/∂x (negative semi-definite for a stable body: VegaFEM's
// stiffness is −K), B = ∂f/∂v, both at the current iterate x, and P the
// projective constraints. The damping matrix is taken at the current iterate
// and its derivative ignored, as in the paper and in VegaFEM (damping
// C = α_M M + β_K K(q_current)). The initial acceleration is zero, as in
// VegaFEM (which does not solve the equation of motion at t = 0), unless
// consistentInitialAcceleration solves M a₀ = f − C v₀ on the first step.
// maxIterations = 1 (the default, the paper's and VegaFEM's) is one
// linearised solve per step. The velocity of the state holds v during
// the iterations, so velocity-dependent forces see the current iterate.
//
// Convergence is tested on the projected residual (the free DOFs);
// VegaFEM's sparse integrator also counts the constrained rows (the
// reaction forces), so with a tight tolerance it never stops early. A
// step that ends its iterations above the tolerance is not an error
// (LastNewton reports it, and runscene counts it as not converged); a
// failed linear solve is. With maxIterations = 1 no test runs (the step is
// one linearised solve by design): LastNewton reports Tested = false.
type NewmarkImplicitSolver struct {
	graph.ObjectBase
	Beta                          float64 `toml:"beta" doc:"Newmark β (0.25: the average-acceleration, unconditionally stable, energy-conserving rule)" range:"(0,0.5]"`
	Gamma                         float64 `toml:"gamma" doc:"Newmark γ (0.5: no numerical damping; above 0.5 damps high frequencies)" range:"[0.5,1]"`
	RayleighMass                  float64 `toml:"rayleighMass" doc:"Rayleigh mass damping α: damping force −α·M·v" unit:"1/s" range:"[0,inf)"`
	RayleighStiffness             float64 `toml:"rayleighStiffness" doc:"Rayleigh stiffness damping β: damping force β·K·v with K at the current iterate (VegaFEM's tangential damping)" unit:"s" range:"[0,inf)"`
	MaxIterations                 int     `toml:"maxIterations" doc:"Newton–Raphson iterations per step (1: one linearised solve, the paper's semi-implicit default)" range:"[1,inf)"`
	Tolerance                     float64 `toml:"tolerance" doc:"stop the Newton iterations when |residual| ≤ tolerance·|residual of the predictor| (VegaFEM's ε)" range:"[0,inf)"`
	ConsistentInitialAcceleration bool    `toml:"consistentInitialAcceleration" doc:"solve M a₀ = f − C v₀ for the initial acceleration (false: a₀ = 0, as VegaFEM)"`

	linear  graph.LinearSolver
	ops     *graph.Ops // the subtree the acceleration vector belongs to
	acc     graph.VecID
	started bool
	last    graph.LinearStats
	newton  graph.NewtonStats
}

func init() {
	graph.Register(graph.TypeInfo{
		Name: "NewmarkImplicitSolver",
		Kind: graph.KindODESolver,
		Summary: "Implicit Newmark (β, γ) with Newton–Raphson iterations and Rayleigh damping C = αM − βK at the current iterate (Barbič & James 2005 appendix C, VegaFEM's ImplicitNewmark); " +
			"zero initial acceleration as VegaFEM unless consistentInitialAcceleration; any subtree, any linear solver.",
		New: func() graph.Object { return NewNewmarkImplicitSolver() },
	})
}

// NewNewmarkImplicitSolver returns a solver with the defaults (β = 1/4,
// γ = 1/2, one iteration, tolerance 1e-10, no damping).
func NewNewmarkImplicitSolver() *NewmarkImplicitSolver {
	return &NewmarkImplicitSolver{ObjectBase: graph.ObjectBase{Name: "newmark", TypeName: "NewmarkImplicitSolver"},
		Beta: 0.25, Gamma: 0.5, MaxIterations: 1, Tolerance: 1e-10}
}

// Validate checks the parameters (for objects built in code).
func (s *NewmarkImplicitSolver) Validate() error {
	if !(s.Beta > 0 && s.Beta <= 0.5) {
		return fmt.Errorf("beta = %g is out of range (0, 0.5]", s.Beta)
	}
	if !(s.Gamma >= 0.5 && s.Gamma <= 1) {
		return fmt.Errorf("gamma = %g is out of range [0.5, 1]", s.Gamma)
	}
	if s.MaxIterations < 1 {
		return fmt.Errorf("maxIterations = %d must be at least 1", s.MaxIterations)
	}
	if !(s.RayleighMass >= 0) || !(s.RayleighStiffness >= 0) || !(s.Tolerance >= 0) {
		return fmt.Errorf("rayleighMass, rayleighStiffness and tolerance must be ≥ 0")
	}
	return nil
}

// NeedsMass implements graph.InertialSolver: the M of its system needs a mass on every
// state it integrates (checked before the run by graph.Scene.CheckRunnable).
func (s *NewmarkImplicitSolver) NeedsMass() bool { return true }

// Init finds the linear solver.
func (s *NewmarkImplicitSolver) Init() error {
	if err := s.Validate(); err != nil {
		return s.Wrap(err)
	}
	s.linear = s.Node.LinearSolver()
	if s.linear == nil {
		return s.Errorf("NewmarkImplicitSolver needs a linear solver (DenseDirectSolver for reduced models, CGLinearSolver for meshes) in its node or above")
	}
	return nil
}

// SetLinearSolver sets the linear solver directly (code that builds
// scenes without nodes).
func (s *NewmarkImplicitSolver) SetLinearSolver(l graph.LinearSolver) { s.linear = l }

// LastStats returns the linear-solve statistics of the most recent step,
// combined over its Newton iterations: the total of their iterations, the
// largest relative residual, and whether all converged.
func (s *NewmarkImplicitSolver) LastStats() graph.LinearStats { return s.last }

// LastNewton returns the Newton statistics of the most recent step: the
// linear solves taken, and at the last convergence test the ratio
// |residual| / |residual of the predictor| (Residual) and whether it met
// the tolerance.
func (s *NewmarkImplicitSolver) LastNewton() graph.NewtonStats { return s.newton }

// Acceleration returns the acceleration vector id in the independent
// states of the solver's subtree (valid after the first step).
func (s *NewmarkImplicitSolver) Acceleration() (graph.VecID, bool) { return s.acc, s.started }

// Solve implements graph.ODESolver.
func (s *NewmarkImplicitSolver) Solve(ops *graph.Ops, h float64) error {
	if s.linear == nil {
		if err := s.Init(); err != nil {
			return err
		}
	}
	beta, gamma := s.Beta, s.Gamma
	a1, a2 := 1/(beta*h*h), 1/(beta*h)
	a3 := (1 - 2*beta) / (2 * beta)
	a4, a5, a6 := gamma/(beta*h), 1-gamma/beta, (1-gamma/(2*beta))*h
	alpha, betaK := s.RayleighMass, s.RayleighStiffness
	t := ops.Time()

	if !s.started || s.ops != ops {
		s.ops, s.acc, s.started = ops, ops.AllocDeriv(), true
		if s.ConsistentInitialAcceleration {
			if err := s.initialAcceleration(ops); err != nil {
				return err
			}
		}
	}
	acc := s.acc
	xn, vn, an := ops.AllocCoord(), ops.AllocDeriv(), ops.AllocDeriv()
	d, f, res, tmp, delta := ops.AllocDeriv(), ops.AllocDeriv(), ops.AllocDeriv(), ops.AllocDeriv(), ops.AllocDeriv()
	defer ops.Free(xn, vn, an, d, f, res, tmp, delta)
	ops.Copy(xn, graph.Position)
	// The predictor puts the prescribed DOFs where the step ends (a
	// no-op for fixed ones): d = x(t + h) ⊖ x_n there, so the free DOFs
	// are solved against the prescribed motion of this step, not of the
	// last one (with the chord velocity of LinearMovementConstraint,
	// a = 0 and v = the chord on a uniform motion).
	ops.ProjectPositions(t + h)
	ops.Copy(vn, graph.Velocity)
	ops.Copy(an, acc)
	k := kinematics{ops: ops, d: d, xn: xn, vn: vn, an: an, acc: acc, a1: a1, a2: a2, a3: a3, a4: a4, a5: a5, a6: a6}
	k.update()
	s.last = graph.LinearStats{Converged: true}
	s.newton = graph.NewtonStats{}
	var err0 float64
	for it := 0; it < s.MaxIterations; it++ {
		ops.ComputeForce(f)
		// res = f − M (a + α v) + β K v (K at the x of ComputeForce): one
		// traversal for the mass terms, one more for the stiffness damping.
		ops.LinComb(tmp, acc, alpha, graph.Velocity)
		ops.ComputeDf(res, tmp, -1, 0, 0)
		ops.AddScaled(res, 1, f)
		if betaK != 0 {
			ops.ComputeDf(tmp, graph.Velocity, 0, 0, betaK)
			ops.AddScaled(res, 1, tmp)
		}
		ops.Project(res)
		e := ops.Dot(res, res)
		if math.IsNaN(e) || math.IsInf(e, 0) {
			return fmt.Errorf("Newmark: the residual is not finite at iteration %d (|res|² = %g)", it, e)
		}
		if it == 0 {
			err0 = e
		} else {
			s.newton.Residual, s.newton.Tested = math.Sqrt(e/err0), true
			if e < s.Tolerance*s.Tolerance*err0 {
				s.newton.Converged = true
				break
			}
		}
		if e == 0 {
			s.newton.Residual, s.newton.Tested, s.newton.Converged = 0, true, true
			break
		}
		stats, err := s.linear.Solve(ops, delta, res, a1+a4*alpha, -a4, -(1 + a4*betaK))
		s.last.Iterations += stats.Iterations
		s.last.Residual = math.Max(s.last.Residual, stats.Residual)
		s.last.Converged = s.last.Converged && stats.Converged
		if err != nil {
			return fmt.Errorf("Newmark: linear solve with %q: %w", s.linear.Base().Name, err)
		}
		s.newton.Iterations++
		ops.Integrate(graph.Position, delta, 1)
		k.update()
	}
	ops.ProjectVelocities(t + h)
	ops.ProjectPositions(t + h)
	ops.Project(acc)
	return nil
}

// kinematics holds the Newmark update of one step.
type kinematics struct {
	ops                    *graph.Ops
	d, xn, vn, an, acc     graph.VecID
	a1, a2, a3, a4, a5, a6 float64
}

// update sets, from d = x ⊖ x_n, the acceleration a = a₁d − a₂v_n − a₃a_n
// and the state velocity v = a₄d + a₅v_n + a₆a_n.
func (k *kinematics) update() {
	ops := k.ops
	ops.Difference(k.d, graph.Position, k.xn)
	ops.Clear(k.acc)
	ops.AddScaled(k.acc, k.a1, k.d)
	ops.AddScaled(k.acc, -k.a2, k.vn)
	ops.AddScaled(k.acc, -k.a3, k.an)
	ops.Clear(graph.Velocity)
	ops.AddScaled(graph.Velocity, k.a4, k.d)
	ops.AddScaled(graph.Velocity, k.a5, k.vn)
	ops.AddScaled(graph.Velocity, k.a6, k.an)
}

// initialAcceleration solves M a₀ = f(x₀, v₀) − α M v₀ + β K v₀.
func (s *NewmarkImplicitSolver) initialAcceleration(ops *graph.Ops) error {
	f, tmp := ops.AllocDeriv(), ops.AllocDeriv()
	defer ops.Free(f, tmp)
	ops.ComputeForce(f)
	if s.RayleighMass != 0 || s.RayleighStiffness != 0 {
		ops.ComputeDf(tmp, graph.Velocity, -s.RayleighMass, 0, s.RayleighStiffness)
		ops.AddScaled(f, 1, tmp)
	}
	ops.Project(f)
	if _, err := s.linear.Solve(ops, s.acc, f, 1, 0, 0); err != nil {
		return fmt.Errorf("Newmark: initial acceleration: linear solve with %q: %w", s.linear.Base().Name, err)
	}
	return nil
}
