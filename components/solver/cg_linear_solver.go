package solver

import (
	"fmt"
	"math"

	"github.com/sofago/sofago/graph"
)

// CGLinearSolver solves (m·M + b·B + k·K) x = rhs by the conjugate gradient
// method (Hestenes & Stiefel 1952; Shewchuk, "An Introduction to the
// Conjugate Gradient Method Without the Agonizing Pain", 1994, B2), matrix
// free: each product A·p is one Ops.ComputeDf traversal, followed by the
// projective constraints, so the iteration stays in the subspace the
// constraints leave free. The system must be symmetric positive definite on
// that subspace, as it is for implicit Euler and Newton with a stable
// material (K negative semi-definite, k ≤ 0).
//
// The iteration starts from x = 0 (SOFA's default) and stops when the
// residual |r| ≤ tolerance·|P rhs|, after iterations steps, or on breakdown:
// a direction p with pᵀAp ≤ 0 (A is not positive definite along p), or
// whose Rayleigh quotient pᵀAp/pᵀp falls below threshold times that of the
// first direction (A numerically singular along p). The threshold is thus
// relative, unlike SOFA's absolute smallDenominatorThreshold: an absolute
// bound on pᵀAp would stop the solve on any small right-hand side (the late
// iterations of Newton's method) however well conditioned A is.
//
// Not converging is not an error: the stats say so and the caller decides
// (implicit Euler proceeds with the approximate solution, as SOFA does).
// A non-finite residual or product is an error.
type CGLinearSolver struct {
	graph.ObjectBase
	Iterations int     `toml:"iterations" doc:"maximum number of CG iterations" range:"[1,inf)"`
	Tolerance  float64 `toml:"tolerance" doc:"stop when the residual norm is at most tolerance × the norm of the (projected) right-hand side" range:"[0,inf)"`
	Threshold  float64 `toml:"threshold" doc:"breakdown guard: stop when a direction's Rayleigh quotient pᵀAp/pᵀp is at most threshold × the first direction's (A singular along p), or when pᵀAp ≤ 0" range:"[0,1)"`

	last        graph.LinearStats
	lastBreak   bool
	lastIndefin bool
}

func init() {
	graph.Register(graph.TypeInfo{
		Name:    "CGLinearSolver",
		Kind:    graph.KindLinearSolver,
		Summary: "Matrix-free conjugate gradient for the (m·M + b·B + k·K) x = rhs systems of the ODE solvers: one mechanical traversal per iteration, projective constraints applied to every product; stops on a relative residual, an iteration cap or breakdown.",
		New:     func() graph.Object { return &CGLinearSolver{Iterations: 25, Tolerance: 1e-5, Threshold: 1e-12} },
	})
}

// NewCGLinearSolver returns a CG solver with the given iteration cap and
// relative tolerance (threshold 1e-12), for code that builds scenes directly.
func NewCGLinearSolver(iterations int, tolerance float64) *CGLinearSolver {
	return &CGLinearSolver{ObjectBase: graph.ObjectBase{Name: "cg", TypeName: "CGLinearSolver"},
		Iterations: iterations, Tolerance: tolerance, Threshold: 1e-12}
}

// LastStats returns the statistics of the most recent Solve.
func (c *CGLinearSolver) LastStats() graph.LinearStats { return c.last }

// LastBreakdown reports whether the most recent Solve stopped on breakdown,
// and whether that breakdown was a direction with pᵀAp ≤ 0 (an indefinite
// or negative system: an unstable configuration or a wrong tangent).
func (c *CGLinearSolver) LastBreakdown() (breakdown, indefinite bool) {
	return c.lastBreak, c.lastIndefin
}

// Solve implements graph.LinearSolver. x is overwritten; rhs is read only
// (its projection is taken on a copy).
func (c *CGLinearSolver) Solve(ops *graph.Ops, x, rhs graph.VecID, m, b, k float64) (graph.LinearStats, error) {
	c.lastBreak, c.lastIndefin = false, false
	r, p, q := ops.AllocDeriv(), ops.AllocDeriv(), ops.AllocDeriv()
	defer ops.Free(r, p, q)

	ops.Clear(x)
	ops.Copy(r, rhs)
	ops.Project(r)
	rho := ops.Dot(r, r) // |r|²
	normB := math.Sqrt(rho)
	if math.IsNaN(normB) || math.IsInf(normB, 0) {
		return graph.LinearStats{}, fmt.Errorf("CG: the right-hand side is not finite (|rhs| = %g)", normB)
	}
	if normB == 0 {
		c.last = graph.LinearStats{Converged: true}
		return c.last, nil
	}
	stop := c.Tolerance * normB
	stop2 := stop * stop
	ops.Copy(p, r)
	var rayleigh1 float64 // pᵀAp/pᵀp of the first direction
	stats := graph.LinearStats{}
	for it := 1; it <= c.Iterations; it++ {
		ops.ComputeDf(q, p, m, b, k)
		ops.Project(q)
		den := ops.Dot(p, q)
		pp := ops.Dot(p, p)
		if math.IsNaN(den) || math.IsInf(den, 0) {
			return stats, fmt.Errorf("CG iteration %d: pᵀAp = %g is not finite (a force field returns a non-finite df)", it, den)
		}
		if !(den > 0) {
			c.lastBreak, c.lastIndefin = true, true
			break
		}
		if it == 1 {
			rayleigh1 = den / pp
		} else if den <= c.Threshold*rayleigh1*pp {
			c.lastBreak = true
			break
		}
		alpha := rho / den
		ops.AddScaled(x, alpha, p)
		ops.AddScaled(r, -alpha, q)
		rhoNew := ops.Dot(r, r)
		stats.Iterations = it
		beta := rhoNew / rho
		rho = rhoNew
		if rho <= stop2 {
			break
		}
		ops.LinComb(p, r, beta, p) // p ← r + β p
	}
	stats.Residual = math.Sqrt(rho) / normB
	stats.Converged = rho <= stop2
	c.last = stats
	return stats, nil
}
