package solver

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/sparse"
)

// SparseCholeskySolver solves (m·M + b·B + k·K) x = rhs over the
// independent states of its ODE solver exactly, by assembling the sparse
// matrix from the components' matrices (blockSystem: 3×3 blocks of the
// tetrahedral force fields and Vec3 masses through an index map computed
// once per pattern, scalar entries of the others) and factorising it with
// package sparse's supernodal Cholesky. The system of
// implicit Euler and of Newton's method with a stable material is
// symmetric positive definite (m·M − h(h+β)·K with K = ∂f/∂x negative
// semi-definite), so Cholesky applies without pivoting.
//
// The symbolic analysis (fill-reducing ordering, elimination tree,
// supernodes) depends on the sparsity pattern only: it is computed at the
// first Solve and kept while the pattern stays the same (the fixed DOFs
// do not change it: their rows and columns keep their places, zeroed with
// a unit diagonal); the numeric factorisation is redone at every Solve,
// since K changes with the configuration.
//
// Scope: the whole subtree, as Ops.ComputeDf applies it — the
// independent states' component matrices plus what mappedSystem adds
// (masses and force fields on mapped states as JᵀLJ, the mappings'
// geometric stiffness, interaction force fields, contacts, damping
// matrices, and the stiffness of components without a matrix, probed
// with a note).
//
// Constraints: the projective constraints of the states must zero
// components (as FixedConstraint does); the rows and columns of the
// fixed DOFs are replaced by identity ones and their right-hand side by
// zero, so the solution satisfies them exactly. Interaction constraints
// that make components follow others (AttachConstraint, through
// graph.ConstraintBasis) are solved on the reduced system Tᵀ A T y =
// Tᵀ rhs, x = T y (see reduction), which is what conjugate gradients
// solve matrix free on the projected system. Other constraints that mix
// components are an error (DenseDirectSolver handles a general projector
// on small systems).
//
// LastStats reports one iteration, Converged, and the relative residual
// |P(A x − rhs)| / |P rhs|. A x is one Ops.ComputeDf product (an
// independent check of the assembly against the components' AddDForce)
// at the first solve of every symbolic analysis and at every solve of a
// system with entries written one by one or probed (spring networks,
// reduced models, contacts, mapped components, damping: where an
// approximate or changing tangent would show); a system assembled only
// from the closed-form blocks of the tetrahedral force fields and the
// Vec3 masses (whose agreement with AddDForce the tests pin column by
// column) takes it from the assembled matrix at the later solves: the
// residual of the factorisation, a tenth of the cost.
type SparseCholeskySolver struct {
	graph.ObjectBase
	Ordering string `toml:"ordering" doc:"fill-reducing ordering of the symbolic analysis: minimumDegree (package sparse's default) or nestedDissection (geometric, on the rest positions; Vec3 states only; several times less fill on 3-D meshes; on a slender body the band ordering along its long axis is taken instead when its factorisation costs fewer operations)" enum:"minimumDegree,nestedDissection"`

	sys      blockSystem
	rhs, x   []float64
	csr      *sparse.CSR  // A in scalar CSR form (the factorisation's input)
	csrFor   *sparse.BSR3 // the block matrix csr's pattern comes from
	csrIdx   []int32      // csrFor.CSRIndex(), once needed
	sym      *sparse.Symbolic
	analyses int

	last  graph.LinearStats
	shift float64          // σ of SolveShifted, 0 for Solve
	chol  *sparse.Cholesky // the factorisation of the last Solve, for SolveAgain
	// checked is the analysis whose first solve had its residual computed
	// matrix free (Ops.ComputeDf); later solves with it take the
	// residual from the assembled matrix when the system is closed form
	// (blockSystem.closedForm).
	checked       *sparse.Symbolic
	ax            []float64
	freeResiduals int              // solves whose residual was computed matrix free
	store         *sparse.Cholesky // storage of the factorisations (sparse.Symbolic.FactorInto)

	sym2 symmetrizer
	asym bool         // the last assembled matrix was not symmetric
	a    *sparse.BSR3 // the last assembled matrix (exact), for refinement
	bicg [][]float64  // refinement vectors
}

// Refinement of a non-symmetric system (see refine).
const (
	maxRefinements = 40
	// refinedResidual is the relative residual |rhs − A x| / |rhs| under
	// which a refined solution counts as converged: a thousand times
	// the rounding floor of these direct solves (1e-13 on the stiffest
	// shipped scenes).
	refinedResidual = 1e-10
	// stalledResidual: an iteration that stops halving the residual has
	// reached the rounding floor of the system, ε·κ, which exceeds
	// refinedResidual on ill-conditioned ones (1e-10 on the rods, whose
	// axial and bending stiffnesses differ by 10⁵ per length²): the
	// solution is then as exact as a direct solve of it can be, and
	// counts as converged unless that floor is above 1e-6 (a refinement
	// stuck far from the solution).
	stalledResidual = 1e-6
)

// refine solves A x = rhs (reduced unknowns; s.x holds S⁻¹ rhs on entry)
// for the exact assembled matrix A when the factor is of its symmetric
// part S, by BiCGStab (van der Vorst 1992; Saad, "Iterative methods for
// sparse linear systems", Alg. 7.7) preconditioned on the right by S⁻¹,
// from s.x: the preconditioned matrix A S⁻¹ = I + N S⁻¹ has its spectrum
// about 1 (N = A − S, the antisymmetric part), so a few iterations of two
// triangular solves and two block products each reach the rounding floor,
// where plain iterative refinement (x ← x + S⁻¹(rhs − A x)) contracts
// only by ρ(S⁻¹N) per step. It keeps the best iterate, stops when the
// residual is at 1e-15 of the right-hand side or an iteration does not
// halve it, and reports the factor solves taken and whether the residual
// reached refinedResidual (or stalled below stalledResidual).
func (s *SparseCholeskySolver) refine(A *sparse.BSR3) (int, bool) {
	n := len(s.x)
	if len(s.bicg) != 9 || len(s.bicg[0]) != n {
		s.bicg = make([][]float64, 9)
		for i := range s.bicg {
			s.bicg[i] = make([]float64, n)
		}
	}
	r, rh, p, v, y, sv, z, best, ax := s.bicg[0], s.bicg[1], s.bicg[2], s.bicg[3], s.bicg[4], s.bicg[5], s.bicg[6], s.bicg[7], s.bicg[8]
	bn := math.Sqrt(dot(s.rhs, s.rhs))
	if bn == 0 {
		return 0, true
	}
	x := s.x
	A.MulVec(r, x)
	for i := range r {
		r[i] = s.rhs[i] - r[i]
	}
	bestN := math.Sqrt(dot(r, r))
	copy(best, x)
	copy(rh, r)
	clear(p)
	clear(v)
	rho, alpha, omega := 1.0, 1.0, 1.0
	solves := 0
	mark := bestN // the residual each iteration must halve
	stalled := false
	for solves+2 <= maxRefinements && bestN > 1e-15*bn {
		rhoN := dot(rh, r)
		if rhoN == 0 || omega == 0 {
			break
		}
		beta := rhoN / rho * alpha / omega
		rho = rhoN
		for i := range p {
			p[i] = r[i] + beta*(p[i]-omega*v[i])
		}
		s.chol.Solve(y, p)
		A.MulVec(v, y)
		solves++
		d := dot(rh, v)
		if d == 0 {
			break
		}
		alpha = rho / d
		for i := range x {
			x[i] += alpha * y[i]
			sv[i] = r[i] - alpha*v[i]
		}
		s.chol.Solve(z, sv)
		A.MulVec(r, z) // t = A z, in r
		solves++
		tt := dot(r, r)
		if tt == 0 {
			omega = 0
		} else {
			omega = dot(r, sv) / tt
		}
		for i := range x {
			x[i] += omega * z[i]
			r[i] = sv[i] - omega*r[i]
		}
		// The recursive residual drifts: the true one decides.
		A.MulVec(ax, x)
		var rn2 float64
		for i, w := range ax {
			e := s.rhs[i] - w
			rn2 += e * e
		}
		rn := math.Sqrt(rn2)
		if rn < bestN {
			bestN = rn
			copy(best, x)
		}
		if bestN > 0.5*mark {
			stalled = true // at the rounding floor (or stuck): no further progress
			break
		}
		mark = bestN
	}
	copy(x, best)
	return solves, bestN <= refinedResidual*bn || (stalled && bestN <= stalledResidual*bn)
}

var (
	_ graph.ShiftedLinearSolver = (*SparseCholeskySolver)(nil)
	_ graph.FactorReuser        = (*SparseCholeskySolver)(nil)
)

// SolveAgain implements graph.FactorReuser: it solves with the
// factorisation of the last Solve (the matrix assembled then, the fixed
// DOFs then), the cost of two triangular solves. It fails when there is
// none or the layout of the states has changed since.
func (s *SparseCholeskySolver) SolveAgain(ops *graph.Ops, x, rhs graph.VecID) (graph.LinearStats, error) {
	same := s.chol != nil && len(ops.Independent()) == len(s.sys.states) && len(s.rhs) == s.sys.n
	for i, st := range ops.Independent() {
		same = same && st == s.sys.states[i] && st.Size()*st.Template().DerivSize() == s.sys.sizes[i]
	}
	if !same {
		return graph.LinearStats{}, fmt.Errorf("SparseCholeskySolver: no factorisation of the current system to solve with again")
	}
	clear(s.rhs)
	gatherStates(s.sys.states, s.sys.offsets, rhs, s.rhs)
	s.sys.reduceRHS(s.rhs)
	for i, f := range s.sys.fixed {
		if f {
			s.rhs[i] = 0
		}
	}
	s.chol.Solve(s.x, s.rhs)
	st := graph.LinearStats{Iterations: 1, Converged: true}
	if s.asym && s.a != nil {
		n, ok := s.refine(s.a)
		st.Iterations += n
		st.Converged = ok
	}
	s.sys.expand(s.x)
	scatterStates(s.sys.states, s.sys.offsets, x, s.x)
	ops.Project(x)
	return st, nil
}

// SolveShifted implements graph.ShiftedLinearSolver: Solve with σ·|A_ii|
// added to the diagonal of every free row of the assembled matrix (1
// where the diagonal is zero). StaticSolver calls it when the tangent is
// not positive definite.
func (s *SparseCholeskySolver) SolveShifted(ops *graph.Ops, x, rhs graph.VecID, m, b, k, sigma float64) (graph.LinearStats, error) {
	s.shift = sigma
	defer func() { s.shift = 0 }()
	return s.Solve(ops, x, rhs, m, b, k)
}

// addShift adds s.shift·|A_ii| (s.shift where A_ii = 0) to the diagonal
// of the free rows of A.
func (s *SparseCholeskySolver) addShift(A *sparse.CSR) {
	for i := 0; i < A.Rows; i++ {
		if s.sys.fixed[i] {
			continue
		}
		for q := A.RowPtr[i]; q < A.RowPtr[i+1]; q++ {
			if A.Col[q] == i {
				d := math.Abs(A.Val[q])
				if d == 0 {
					d = 1
				}
				A.Val[q] += s.shift * d
				break
			}
		}
	}
}

func init() {
	graph.Register(graph.TypeInfo{
		Name: "SparseCholeskySolver",
		Kind: graph.KindLinearSolver,
		Summary: "Sparse direct solver: assembles m·M + b·B + k·K of the whole subtree (the components' matrices; masses and force fields on mapped states as JᵀLJ, mappings' geometric stiffness, interactions, contacts and damping, probed where a component has no matrix), applies the fixed DOFs as identity rows, " +
			"and factorises by supernodal sparse Cholesky (symbolic analysis kept while the pattern is unchanged, numeric factorisation every solve); exact in one iteration.",
		New: func() graph.Object { return NewSparseCholeskySolver() },
	})
}

// NewSparseCholeskySolver returns a sparse Cholesky solver with the
// defaults, for code that builds scenes directly.
func NewSparseCholeskySolver() *SparseCholeskySolver {
	s := &SparseCholeskySolver{ObjectBase: graph.ObjectBase{Name: "cholesky", TypeName: "SparseCholeskySolver"},
		Ordering: "minimumDegree"}
	s.sys.throughMappings = true
	return s
}

// LastStats returns the statistics of the most recent Solve.
func (s *SparseCholeskySolver) LastStats() graph.LinearStats { return s.last }

// Analyses returns how many symbolic analyses have been computed (one per
// distinct sparsity pattern met), for tests and diagnostics.
func (s *SparseCholeskySolver) Analyses() int { return s.analyses }

// Symbolic returns the current symbolic analysis (nil before the first
// Solve): its Flops, NnzL and Supernodes describe the factorisation cost.
func (s *SparseCholeskySolver) Symbolic() *sparse.Symbolic { return s.sym }

// Solve implements graph.LinearSolver.
func (s *SparseCholeskySolver) Solve(ops *graph.Ops, x, rhs graph.VecID, m, b, k float64) (graph.LinearStats, error) {
	s.last = graph.LinearStats{}
	s.sys.throughMappings = true
	A, err := s.sys.assemble(ops, m, b, k)
	switch {
	case errors.Is(err, errGeneralProjector):
		return s.last, fmt.Errorf("SparseCholeskySolver handles projective constraints that fix components (projecting to 0 or leaving them) and interaction constraints that make components follow others (graph.ConstraintBasis: AttachConstraint), not other constraints that mix components; use CGLinearSolver (or DenseDirectSolver for a small system)")
	case err != nil:
		return s.last, fmt.Errorf("SparseCholeskySolver assembles the system from the components' matrices and cannot here: %v; use CGLinearSolver (matrix free) for this scene", err)
	}
	n := s.sys.n
	if n == 0 {
		s.last = graph.LinearStats{Iterations: 1, Converged: true}
		return s.last, nil
	}
	fresh := false
	if s.csrFor != A || s.csr == nil || len(s.csr.Val) != len(A.Val) {
		s.csr = A.ToCSR()
		s.csrFor = A
		s.csrIdx = nil
		s.sym = nil
		fresh = true
	}
	// Closed-form element and mass blocks are symmetric: only systems
	// with other entries need the symmetric part (and a refinement).
	closed := s.sys.closedForm()
	// Such a system, unshifted, once analysed, is factorised from A's
	// values in place (FactorIntoMapped): nothing reads the CSR copy.
	mapped := closed && s.shift == 0 && !fresh && s.sym != nil
	if !fresh && !mapped {
		A.CopyToCSR(s.csr)
	}
	s.asym = !closed && s.sym2.apply(s.csr)
	s.a = A
	if s.shift != 0 {
		s.addShift(s.csr)
	}

	// Symbolic analysis, kept while the pattern is unchanged.
	if s.sym == nil {
		if err := s.analyze(s.csr); err != nil {
			return s.last, err
		}
	}
	s.chol = nil
	if s.store == nil {
		s.store = &sparse.Cholesky{}
	}
	chol := s.store // the factor's storage is reused: no allocation per solve
	if mapped {
		if s.csrIdx == nil {
			s.csrIdx = A.CSRIndex()
		}
		err = s.sym.FactorIntoMapped(chol, A.Val, s.csrIdx)
	} else {
		err = s.sym.FactorInto(chol, s.csr)
	}
	if err != nil {
		if e := s.nonFinite(A); e != nil {
			return s.last, e
		}
		var npd *sparse.NotPositiveDefiniteError
		if errors.As(err, &npd) {
			st, dof, comp := s.sys.locate(npd.Column)
			return s.last, fmt.Errorf("SparseCholeskySolver: the system matrix is not positive definite (pivot %g at DOF %d component %d of %q): an unstable configuration, a DOF with neither mass nor stiffness, or k > 0; use CGLinearSolver, which reports indefinite directions: %w (%w)",
				npd.Pivot, dof, comp, st.Base().Path(), err, graph.ErrNotPositiveDefinite)
		}
		return s.last, fmt.Errorf("SparseCholeskySolver: %w", err)
	}

	s.chol = chol
	if len(s.rhs) != n {
		s.rhs, s.x = make([]float64, n), make([]float64, n)
	}
	clear(s.rhs)
	gatherStates(s.sys.states, s.sys.offsets, rhs, s.rhs)
	s.sys.reduceRHS(s.rhs)
	for i, f := range s.sys.fixed {
		if f {
			s.rhs[i] = 0
		}
	}
	chol.Solve(s.x, s.rhs)
	refined, refinedOK := 0, true
	if s.asym && s.shift == 0 {
		refined, refinedOK = s.refine(A)
	}
	s.sys.expand(s.x)
	for _, v := range s.x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			if e := s.nonFinite(A); e != nil {
				return s.last, e
			}
			return s.last, fmt.Errorf("SparseCholeskySolver: the solution is not finite: the system matrix is numerically singular")
		}
	}
	scatterStates(s.sys.states, s.sys.offsets, x, s.x)
	ops.Project(x)
	if s.checked == s.sym && s.sys.closedForm() {
		s.last = s.assembledResidual(A)
	} else {
		s.last = s.residual(ops, x, rhs, m, b, k)
		s.checked = s.sym
		s.freeResiduals++
	}
	s.last.Iterations += refined
	s.last.Converged = refinedOK
	return s.last, nil
}

// nonFinite returns an error naming the row of a non-finite entry of A,
// or nil when every entry is finite (looked for only when the
// factorisation or the solution failed: a non-finite entry makes one of
// them fail).
func (s *SparseCholeskySolver) nonFinite(A *sparse.BSR3) error {
	for i, v := range A.Val {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			st, dof, comp := s.sys.locate(3*s.blockRow(A, i/9) + i%9/3)
			return fmt.Errorf("SparseCholeskySolver: the system matrix has a non-finite entry in the row of DOF %d component %d of %q: a force field or mass writes a non-finite matrix", dof, comp, st.Base().Path())
		}
	}
	return nil
}

// assembledResidual returns the statistics of the solution s.x of
// A s.x = s.rhs: one iteration, converged, and |A x − rhs| / |rhs| with
// A x the product with the assembled matrix (the fixed rows are identity
// rows, their right-hand side and solution zero, so this is the
// projected residual).
func (s *SparseCholeskySolver) assembledResidual(A *sparse.BSR3) graph.LinearStats {
	if len(s.ax) != s.sys.n {
		s.ax = make([]float64, s.sys.n)
	}
	A.MulVec(s.ax, s.x)
	var rr, bb float64
	for i, v := range s.ax {
		d := v - s.rhs[i]
		rr += d * d
		bb += s.rhs[i] * s.rhs[i]
	}
	st := graph.LinearStats{Iterations: 1, Converged: true}
	if bb > 0 {
		st.Residual = math.Sqrt(rr / bb)
	}
	return st
}

// blockRow returns the block row of block q of A.
func (s *SparseCholeskySolver) blockRow(A *sparse.BSR3, q int) int {
	i, _ := slices.BinarySearch(A.RowPtr, int32(q+1))
	return i - 1
}

// analyze computes the symbolic factorisation of A's pattern with the
// chosen ordering.
func (s *SparseCholeskySolver) analyze(A *sparse.CSR) error {
	var perm []int
	if s.Ordering == "nestedDissection" {
		coords := make([]float64, 3*A.Rows)
		for si, st := range s.sys.states {
			if t := st.Template(); t.CoordSize() != 3 || t.DerivSize() != 3 {
				return fmt.Errorf("SparseCholeskySolver: ordering = \"nestedDissection\" needs Vec3 states (points); %q is %s: use ordering = \"minimumDegree\"", st.Base().Path(), t.Name())
			}
			rest := st.Vec(graph.RestPosition)
			off := s.sys.offsets[si]
			for i := 0; i+3 <= len(rest); i += 3 {
				// One point per DOF row (its three components share it).
				for c := 0; c < 3; c++ {
					copy(coords[3*(off+i+c):], rest[i:i+3])
				}
			}
		}
		p, err := sparse.NestedDissection(A, coords)
		if err != nil {
			return fmt.Errorf("SparseCholeskySolver: ordering: %w", err)
		}
		perm = p
		// A slender body factorises with fewer operations in layers along
		// its long axis (a banded matrix) than by nested dissection, whose
		// small parts are cut across: keep the cheaper of the two.
		layered, err := sparse.Analyze(A, layerOrdering(coords))
		if err != nil {
			return fmt.Errorf("SparseCholeskySolver: symbolic analysis: %w", err)
		}
		nd, err := sparse.Analyze(A, perm)
		if err != nil {
			return fmt.Errorf("SparseCholeskySolver: symbolic analysis: %w", err)
		}
		s.sym = nd
		if layered.Flops() < nd.Flops() {
			s.sym = layered
		}
		s.analyses++
		return nil
	}
	sym, err := sparse.Analyze(A, perm)
	if err != nil {
		return fmt.Errorf("SparseCholeskySolver: symbolic analysis: %w", err)
	}
	s.sym = sym
	s.analyses++
	return nil
}

// layerOrdering orders the rows by their coordinate along the longest
// extent of coords (3 per row), ties in row order: the band ordering of a
// slender body, sliced across its long axis.
func layerOrdering(coords []float64) []int {
	n := len(coords) / 3
	axis, ext := 0, -1.0
	for c := 0; c < 3; c++ {
		lo, hi := math.Inf(1), math.Inf(-1)
		for i := 0; i < n; i++ {
			lo, hi = math.Min(lo, coords[3*i+c]), math.Max(hi, coords[3*i+c])
		}
		if hi-lo > ext {
			axis, ext = c, hi-lo
		}
	}
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	slices.SortStableFunc(perm, func(a, b int) int { return cmp.Compare(coords[3*a+axis], coords[3*b+axis]) })
	return perm
}

// residual returns the statistics of the solution x: one iteration,
// converged, and |P(A x − rhs)| / |P rhs| with A x from one ComputeDf.
func (s *SparseCholeskySolver) residual(ops *graph.Ops, x, rhs graph.VecID, m, b, k float64) graph.LinearStats {
	ax, pr := ops.AllocDeriv(), ops.AllocDeriv()
	defer ops.Free(ax, pr)
	ops.ComputeDf(ax, x, m, b, k)
	ops.Project(ax)
	ops.Copy(pr, rhs)
	ops.Project(pr)
	nb := ops.Norm(pr)
	ops.AddScaled(ax, -1, pr)
	st := graph.LinearStats{Iterations: 1, Converged: true}
	if nb > 0 {
		st.Residual = ops.Norm(ax) / nb
	}
	return st
}
