package solver

import (
	"fmt"
	"math"
	"slices"

	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/parallel"
	"github.com/sofago/sofago/sparse"
)

// PCGLinearSolver solves (m·M + b·B + k·K) x = rhs by the preconditioned
// conjugate gradient method (Hestenes & Stiefel 1952; Saad, "Iterative
// methods for sparse linear systems", Alg. 9.1), as SOFA's
// PCGLinearSolver, with the products either on the assembled sparse
// system or matrix free.
//
// Assembly: the whole system m·M + b·B + k·K of the solver's subtree is
// assembled as a 3×3-block sparse matrix by the code SparseCholeskySolver
// uses (blockSystem: the closed-form element matrices of the tetrahedral
// force fields and the Vec3 masses through an index map computed once
// per pattern, in parallel and deterministically; the scalar entries of
// the other assemblers; mappedSystem: masses and force fields on mapped
// states as JᵀLJ, the mappings' geometric stiffness, interaction force
// fields, contacts and damping matrices), with the fixed DOFs as
// identity rows and AttachConstraint's attached DOFs reduced away
// (reduction: the iteration then runs on the reduced unknowns, and its
// residual is Tᵀ(rhs − A x)). The factorised preconditioners (ic0, warp)
// take the symmetric part of the matrix (symmetrizer).
//
// Preconditioners (z = P⁻¹ r, then the fixed components zeroed):
//   - none: plain CG;
//   - jacobi: the diagonal of the system;
//   - blockJacobi: the inverse of each point's 3×3 diagonal block;
//   - ic0: incomplete Cholesky IC(0) (package sparse; it shifts the
//     diagonal when a pivot fails, Manteuffel 1980);
//   - warp: SOFA's WarpPreconditioner — a sparse Cholesky factor of the
//     system at a reference configuration (the first solve's, normally
//     the rest state), applied in the frames the points have turned by
//     since (the point rotations of a corotational or hyperelastic
//     tetrahedral force field: z = W A₀⁻¹ Wᵀ r with Wᵢ = Rᵢ R⁰ᵢᵀ), and
//     refactorised at the current configuration when some point has
//     turned by more than warpThreshold since the reference (or when m,
//     b, k or the fixed DOFs change). Exact for rigid rotations of the
//     reference shape; a few iterations per step while the deformation
//     stays near the reference's. States without point rotations (frames,
//     GMLS nodes) keep W = I: for a subtree with none, warp is the factor
//     of the reference system, kept until m, b, k or the fixed DOFs
//     change (SOFA's PrecomputedWarpPreconditioner).
//
// Only when the projective constraints neither fix components nor give
// a basis (graph.ConstraintBasis) is the whole system not assembled: the
// products are then matrix free and the preconditioner is built from the
// independent states' own matrices (jacobi replaces a diagonal entry
// that part leaves without mass or stiffness by the mean of the others);
// only none and jacobi are allowed.
//
// Products (field product):
//   - assembled: on the assembled matrix (one pass over the blocks, split
//     over the worker pool's threads by block rows; ~0.01 µs per
//     tetrahedron, a fifth of the tetrahedral force fields' matrix-free
//     product); an error when the constraints prevent the assembly;
//   - matrixFree: one Ops.ComputeDf traversal per iteration, as
//     CGLinearSolver (any scene);
//   - auto (default): assembled whenever the constraints allow it and
//     either the preconditioner needs it in that solve
//     (jacobi, blockJacobi, ic0, and warp's refactorising solves) or the
//     previous solve took at least 30 iterations (assembling the 9,984
//     tetrahedra of the benchmark beam costs about 20 matrix-free
//     products and each assembled product saves four fifths of one);
//     matrix free otherwise. The choice depends on iteration counts only,
//     never on timings, so runs are reproducible.
//
// The iteration starts from x = 0 and stops when the residual
// |rhs − A x| ≤ tolerance·|P rhs| (checked on the recomputed residual, not
// only the recursive one), after iterations steps, or on breakdown
// (pᵀAp ≤ 0: A is not positive definite along p; or a Rayleigh quotient
// pᵀAp/pᵀp below threshold times the first direction's). Not converging
// is not an error: the stats say so. Results are bitwise identical for
// any number of workers (the parallel loops write disjoint rows and sum in
// fixed orders; dot products are serial).
type PCGLinearSolver struct {
	graph.ObjectBase
	Iterations     int     `toml:"iterations" doc:"maximum number of PCG iterations" range:"[1,inf)"`
	Tolerance      float64 `toml:"tolerance" doc:"stop when the residual norm |rhs − A x| is at most tolerance × the norm of the (projected) right-hand side" range:"[0,inf)"`
	Threshold      float64 `toml:"threshold" doc:"breakdown guard: stop when a direction's Rayleigh quotient pᵀAp/pᵀp is at most threshold × the first direction's, or when pᵀAp ≤ 0" range:"[0,1)"`
	Preconditioner string  `toml:"preconditioner" doc:"none, jacobi (diagonal), blockJacobi (3×3 diagonal blocks), ic0 (incomplete Cholesky), warp (rotated Cholesky factor of a reference configuration, SOFA's WarpPreconditioner)" enum:"none,jacobi,blockJacobi,ic0,warp"`
	Product        string  `toml:"product" doc:"how A·p is computed: auto (assembled when the matrix is assembled anyway or the previous solve took ≥ 30 iterations, matrix free when the subtree cannot be assembled), assembled, or matrixFree (Ops.ComputeDf)" enum:"auto,assembled,matrixFree"`
	WarpThreshold  float64 `toml:"warpThreshold" doc:"warp: refactorise when some point has turned by more than this angle since the reference configuration" unit:"rad" range:"(0,inf)"`

	sys       blockSystem
	a         *sparse.BSR3 // the assembled system of this solve (nil when not assembled)
	assembled bool         // products on a this solve
	b, x      []float64
	r, z      []float64
	p, q      []float64
	pv, qv    graph.VecID // state vectors of the matrix-free product
	ops       *graph.Ops
	m, bf, k  float64
	runner    parallel.Runner
	mulBody   func(lo, hi int)
	mulX      []float64
	mulY      []float64

	jac     jacobiPrecond
	bjac    blockJacobiPrecond
	ic      *sparse.IncompleteCholesky
	icCSR   *sparse.CSR
	icFor   *sparse.BSR3
	icSym   symmetrizer
	warp    warpPrecond
	prov    []graph.PointRotations
	general bool // the projector is not diagonal 0/1 (matrix free only)

	solved    bool // a previous solve exists
	lastIters int  // its iterations
	last      graph.LinearStats
	lastMode  string
	// lastPartial: the preconditioner of the last solve came from the part
	// of the system that can be assembled (products matrix free).
	lastPartial bool
}

func init() {
	graph.Register(graph.TypeInfo{
		Name: "PCGLinearSolver",
		Kind: graph.KindLinearSolver,
		Summary: "Preconditioned conjugate gradient (SOFA's PCGLinearSolver) on the assembled 3×3-block system or matrix free: preconditioner none, jacobi, blockJacobi, ic0 " +
			"or warp (rotated reference Cholesky factor, refactorised past warpThreshold); product auto, assembled or matrixFree; stops on a relative residual, an iteration cap or breakdown.",
		New: func() graph.Object { return NewPCGLinearSolver(1000, 1e-9, "ic0") },
	})
}

// NewPCGLinearSolver returns a PCG solver with the given iteration cap,
// relative tolerance and preconditioner (product auto, threshold 1e-12,
// warpThreshold 0.1 rad), for code that builds scenes directly.
func NewPCGLinearSolver(iterations int, tolerance float64, preconditioner string) *PCGLinearSolver {
	return &PCGLinearSolver{ObjectBase: graph.ObjectBase{Name: "pcg", TypeName: "PCGLinearSolver"},
		Iterations: iterations, Tolerance: tolerance, Threshold: 1e-12,
		Preconditioner: preconditioner, Product: "auto", WarpThreshold: 0.1}
}

// Validate checks the enumerations (for objects built in code; the
// loader checks the tags too).
func (c *PCGLinearSolver) Validate() error {
	if !slices.Contains([]string{"none", "jacobi", "blockJacobi", "ic0", "warp"}, c.Preconditioner) {
		return fmt.Errorf("preconditioner = %q is not one of none, jacobi, blockJacobi, ic0, warp", c.Preconditioner)
	}
	if !slices.Contains([]string{"auto", "assembled", "matrixFree"}, c.Product) {
		return fmt.Errorf("product = %q is not one of auto, assembled, matrixFree", c.Product)
	}
	if c.Iterations < 1 {
		return fmt.Errorf("iterations = %d must be at least 1", c.Iterations)
	}
	if !(c.WarpThreshold > 0) {
		return fmt.Errorf("warpThreshold = %g must be positive", c.WarpThreshold)
	}
	return nil
}

// LastStats returns the statistics of the most recent Solve.
func (c *PCGLinearSolver) LastStats() graph.LinearStats { return c.last }

// LastProduct reports how the most recent Solve computed its products:
// "assembled" or "matrixFree".
func (c *PCGLinearSolver) LastProduct() string { return c.lastMode }

// SystemMatrix returns the system matrix assembled by the most recent
// Solve (nil if that solve did not assemble it): m·M + k·K with the fixed
// DOFs as identity rows, in the solver's own storage.
func (c *PCGLinearSolver) SystemMatrix() *sparse.BSR3 { return c.a }

// LastPartial reports whether the preconditioner of the most recent Solve
// was built from the part of the system that can be assembled (the whole
// system could not be; products were matrix free).
func (c *PCGLinearSolver) LastPartial() bool { return c.lastPartial }

// Refactorisations returns how many times the warp preconditioner has
// factorised its reference system.
func (c *PCGLinearSolver) Refactorisations() int { return c.warp.refactors }

// SetWorkers fixes the number of threads of the assembled product and
// the assembly's gather (0: runtime.GOMAXPROCS(0)).
func (c *PCGLinearSolver) SetWorkers(n int) {
	c.runner.Workers = n
	c.sys.runner.Workers = n
}

// Solve implements graph.LinearSolver.
func (c *PCGLinearSolver) Solve(ops *graph.Ops, x, rhs graph.VecID, m, b, k float64) (graph.LinearStats, error) {
	c.last = graph.LinearStats{}
	c.a = nil
	if err := c.Validate(); err != nil {
		return c.last, c.Wrap(err)
	}
	sys := &c.sys
	sys.layout(ops)
	n := sys.n
	if len(c.b) != n {
		c.b, c.x, c.r, c.z, c.p, c.q = make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	}
	c.ops, c.m, c.bf, c.k = ops, m, b, k
	if c.mulBody == nil {
		c.mulBody = func(lo, hi int) { c.a.MulVecRows(c.mulY, c.mulX, lo, hi) }
	}

	// The whole system is assembled through mappings (as
	// SparseCholeskySolver does) whenever the projective constraints fix
	// components or give a basis (graph.ConstraintBasis); a general
	// projector leaves the matrix-free products, with the
	// preconditioner from the independent states' own matrices.
	sys.throughMappings = true
	fixErr := sys.findFixed(ops)
	c.general = fixErr != nil
	whyNot := fixErr
	strict := whyNot == nil
	if c.Product == "assembled" && !strict {
		return c.last, c.Wrap(fmt.Errorf("product = \"assembled\" needs the whole system assembled, which this subtree cannot give now: %v; use product = \"auto\" or \"matrixFree\"", whyNot))
	}
	if c.general && c.Preconditioner != "none" && c.Preconditioner != "jacobi" {
		return c.last, c.Wrap(fmt.Errorf("preconditioner = %q works on the DOFs the projective constraints fix or leave free, and %v; use preconditioner = \"jacobi\" or \"none\"", c.Preconditioner, fixErr))
	}

	// Warp: current rotations, drift, refactorisation decision.
	refactor := false
	if c.Preconditioner == "warp" {
		if c.prov == nil {
			prov, err := warpProviders(sys)
			if err != nil {
				return c.last, c.Wrap(err)
			}
			c.prov = prov
		}
		c.warp.rotations(sys, c.prov)
		refactor = c.warp.chol == nil || c.warp.factors != [3]float64{m, b, k} || !slices.Equal(c.warp.fixedFor, sys.fixed)
		if !refactor {
			refactor = c.warp.maxDrift() > c.WarpThreshold
		}
	}

	// The matrix: the whole system when it can be assembled and is worth
	// it; otherwise, for a preconditioner, the part that can.
	needPre := c.Preconditioner == "jacobi" || c.Preconditioner == "blockJacobi" || c.Preconditioner == "ic0" || refactor
	partial := false
	switch {
	case strict && (needPre || c.Product == "assembled" || (c.Product == "auto" && (!c.solved || c.lastIters >= autoAssembleIterations))):
		A, err := sys.assemble(ops, m, b, k)
		if err != nil {
			return c.last, c.Wrap(fmt.Errorf("assembly: %w", err))
		}
		c.a = A
	case needPre:
		A, err := sys.assemblePartial(ops, m, k, !c.general)
		if err != nil {
			return c.last, c.Wrap(fmt.Errorf("assembly of the preconditioner's matrix: %w", err))
		}
		c.a, partial = A, true
	}
	c.assembled = c.a != nil && !partial && c.Product != "matrixFree"
	c.lastMode = "matrixFree"
	if c.assembled {
		c.lastMode = "assembled"
	}
	c.lastPartial = partial

	// Preconditioner.
	var pre interface{ apply(z, r []float64) }
	var err error
	switch c.Preconditioner {
	case "jacobi":
		if partial {
			c.jac.setApproximate(c.a)
		} else {
			err = c.jac.setFromBSR(c.a)
		}
		pre = &c.jac
	case "blockJacobi":
		err = c.bjac.set(c.a, sys)
		pre = &c.bjac
	case "ic0":
		if c.icFor != c.a || c.icCSR == nil || len(c.icCSR.Val) != len(c.a.Val) || c.ic == nil {
			c.icCSR, c.icFor = c.a.ToCSR(), c.a
			if !sys.closedForm() {
				c.icSym.apply(c.icCSR)
			}
			c.ic, err = sparse.NewIncompleteCholesky(c.icCSR)
		} else {
			c.a.CopyToCSR(c.icCSR)
			if !sys.closedForm() {
				c.icSym.apply(c.icCSR)
			}
			err = c.ic.Refactor(c.icCSR) // same pattern: no allocation
		}
		if err != nil {
			c.ic = nil
		} else {
			pre = icPrecond{c.ic}
		}
	case "warp":
		if refactor {
			err = c.warp.factor(c.a, m, b, k, sys.fixed, !sys.closedForm())
		}
		c.warp.drift = c.warp.maxDrift()
		pre = &c.warp
	}
	if err != nil {
		if partial {
			err = fmt.Errorf("%w (the system cannot be assembled whole: %v; the preconditioner was built from the part that can, the independent states' masses and force fields, and that part is not positive definite: use preconditioner = \"jacobi\" or \"none\")", err, whyNot)
		}
		return c.last, c.Wrap(err)
	}

	c.pv, c.qv = ops.AllocDeriv(), ops.AllocDeriv()
	defer ops.Free(c.pv, c.qv)

	stats, err := c.iterate(ops, rhs, pre)
	c.last = stats
	c.solved, c.lastIters = true, stats.Iterations
	if err != nil {
		return stats, c.Wrap(err)
	}
	if !c.general {
		sys.expand(c.x)
	}
	scatterStates(sys.states, sys.offsets, x, c.x)
	ops.Project(x)
	return stats, nil
}

// icPrecond adapts sparse.IncompleteCholesky.
type icPrecond struct{ ic *sparse.IncompleteCholesky }

func (p icPrecond) apply(z, r []float64) { p.ic.Apply(z, r) }

// autoAssembleIterations is the iteration count from which product = auto
// assembles the system for the products alone (see PCGLinearSolver).
const autoAssembleIterations = 30

// mul sets y = A·v with the chosen product (and the projection).
func (c *PCGLinearSolver) mul(y, v []float64) {
	if c.assembled {
		c.mulX, c.mulY = v, y
		c.runner.Run(c.a.N, 128, c.mulBody)
		c.mulX, c.mulY = nil, nil
		return
	}
	sys := &c.sys
	if sys.red.active() {
		// Reduced unknowns: y = Tᵀ A T v on the free ones.
		copy(y, v)
		sys.expand(y)
		scatterStates(sys.states, sys.offsets, c.pv, y)
		c.ops.ComputeDf(c.qv, c.pv, c.m, c.bf, c.k)
		clear(y)
		gatherStates(sys.states, sys.offsets, c.qv, y)
		sys.reduceRHS(y)
		c.project(y)
		return
	}
	scatterStates(sys.states, sys.offsets, c.pv, v)
	c.ops.ComputeDf(c.qv, c.pv, c.m, c.bf, c.k)
	c.ops.Project(c.qv)
	gatherStates(sys.states, sys.offsets, c.qv, y)
}

// project zeroes the constrained components of v (the fixed ones, or the
// general projector through the states).
func (c *PCGLinearSolver) project(v []float64) {
	sys := &c.sys
	if !c.general {
		for i, f := range sys.fixed {
			if f {
				v[i] = 0
			}
		}
		return
	}
	scatterStates(sys.states, sys.offsets, c.pv, v)
	c.ops.Project(c.pv)
	gatherStates(sys.states, sys.offsets, c.pv, v)
}

// precondition sets z = P⁻¹ r, projected.
func (c *PCGLinearSolver) precondition(pre interface{ apply(z, r []float64) }, z, r []float64) {
	if pre == nil {
		copy(z, r)
	} else {
		pre.apply(z, r)
	}
	c.project(z)
}

// iterate runs PCG on the flat vectors from x = 0.
func (c *PCGLinearSolver) iterate(ops *graph.Ops, rhs graph.VecID, pre interface{ apply(z, r []float64) }) (graph.LinearStats, error) {
	sys := &c.sys
	b, x, r, z, p, q := c.b, c.x, c.r, c.z, c.p, c.q
	clear(b)
	gatherStates(sys.states, sys.offsets, rhs, b)
	if !c.general {
		sys.reduceRHS(b)
	}
	c.project(b)
	clear(x)
	bn := math.Sqrt(dot(b, b))
	if math.IsNaN(bn) || math.IsInf(bn, 0) {
		return graph.LinearStats{}, fmt.Errorf("PCG: the right-hand side is not finite (|rhs| = %g)", bn)
	}
	if bn == 0 {
		return graph.LinearStats{Converged: true}, nil
	}
	stop := c.Tolerance * bn
	copy(r, b)
	c.precondition(pre, z, r)
	copy(p, z)
	rz := dot(r, z)
	var rayleigh1 float64
	stats := graph.LinearStats{}
	restarts := 0
	rn := bn
	for it := 1; it <= c.Iterations; it++ {
		c.mul(q, p)
		pq, pp := dot(p, q), dot(p, p)
		if math.IsNaN(pq) || math.IsInf(pq, 0) {
			return stats, fmt.Errorf("PCG iteration %d: pᵀAp = %g is not finite (a force field or mass returns a non-finite product)", it, pq)
		}
		if !(pq > 0) {
			break // A not positive definite along p
		}
		if it == 1 {
			rayleigh1 = pq / pp
		} else if pq <= c.Threshold*rayleigh1*pp {
			break
		}
		alpha := rz / pq
		for i := range x {
			x[i] += alpha * p[i]
			r[i] -= alpha * q[i]
		}
		stats.Iterations = it
		rn = math.Sqrt(dot(r, r))
		if rn <= stop {
			// Confirm on the recomputed residual; if the recursion has
			// drifted, continue from the true residual.
			c.residual(r, x, b)
			rn = math.Sqrt(dot(r, r))
			if rn <= stop || restarts == 3 {
				break
			}
			restarts++
			c.precondition(pre, z, r)
			copy(p, z)
			rz = dot(r, z)
			continue
		}
		c.precondition(pre, z, r)
		rzNew := dot(r, z)
		beta := rzNew / rz
		rz = rzNew
		for i := range p {
			p[i] = z[i] + beta*p[i]
		}
	}
	if !(rn <= stop) || stats.Iterations == c.Iterations {
		c.residual(r, x, b)
		rn = math.Sqrt(dot(r, r))
	}
	stats.Residual = rn / bn
	stats.Converged = rn <= stop
	return stats, nil
}

// residual sets r = b − A x (projected).
func (c *PCGLinearSolver) residual(r, x, b []float64) {
	c.mul(r, x)
	for i := range r {
		r[i] = b[i] - r[i]
	}
	c.project(r)
}

// dot is the serial scalar product (a fixed summation order, whatever the
// number of workers).
func dot(a, b []float64) float64 {
	s := 0.0
	b = b[:len(a)]
	for i, v := range a {
		s += v * b[i]
	}
	return s
}
