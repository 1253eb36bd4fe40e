package solver

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/sparse"
)

// SparseCholeskySolver solves (m·M + b·B + k·K) x = rhs over the
// independent states of its ODE solver exactly, by assembling the sparse
// matrix from the components' matrices (graph.StiffnessAssembler K of the
// force fields, graph.MassAssembler M of the masses, into a
// sparse.Builder) and factorising it with package sparse's supernodal
// multifrontal Cholesky. The system of implicit Euler and of Newton's
// method with a stable material is symmetric positive definite
// (m·M − h(h+β)·K with K = ∂f/∂x negative semi-definite), so Cholesky
// applies without pivoting.
//
// The symbolic analysis (fill-reducing ordering, elimination tree,
// supernodes) depends on the sparsity pattern only: it is computed at the
// first Solve and kept while the pattern stays the same (it is redone when
// the pattern changes, e.g. when a time-dependent constraint fixes other
// DOFs); the numeric factorisation is redone at every Solve, since K
// changes with the configuration.
//
// Scope, checked at the first Solve (the same check as DenseDirectSolver's
// assembly): every force field with a stiffness and every mass must sit on
// an independent state and implement the assembler interfaces; force
// fields and masses of mapped nodes (mechanical mappings) and interaction
// force fields must contribute nothing to A; with b ≠ 0 the force fields
// must have no damping matrix B (StiffnessAssembler does not write one).
// Otherwise Solve fails naming the component; CGLinearSolver (matrix free)
// handles those scenes.
//
// Constraints: the projective constraints must zero components (as
// FixedConstraint does); the rows and columns of the fixed DOFs are
// replaced by identity ones and their right-hand side by zero, so the
// solution satisfies them exactly. Constraints that mix components are an
// error (DenseDirectSolver handles a general projector on small systems).
//
// LastStats reports one iteration, Converged, and the relative residual
// |P(A x − rhs)| / |P rhs| computed by one Ops.ComputeDf product (an
// independent check of the assembly against the components' AddDForce).
type SparseCholeskySolver struct {
	graph.ObjectBase
	Ordering string `toml:"ordering" doc:"fill-reducing ordering of the symbolic analysis: minimumDegree (package sparse's default) or nestedDissection (geometric, on the rest positions; Vec3 states only; several times less fill on 3-D meshes)" enum:"minimumDegree,nestedDissection"`

	n       int
	states  []graph.State
	offsets []int
	checked int // 0: not checked, 1: checked without B, 2: checked with B

	fixed       []bool
	diag, w, pw []float64
	rhs, x      []float64
	sym         *sparse.Symbolic
	rowPtr, col []int       // pattern sym was computed for
	a           *sparse.CSR // the last assembled matrix, whose pattern later assemblies reuse
	aFixed      []bool      // the fixed DOFs a was assembled with
	pacc        patternAccumulator
	analyses    int

	last  graph.LinearStats
	shift float64 // σ of SolveShifted, 0 for Solve
}

var _ graph.ShiftedLinearSolver = (*SparseCholeskySolver)(nil)

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
		if s.fixed[i] {
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
		Summary: "Sparse direct solver: assembles m·M + k·K from the force fields' and masses' matrices (StiffnessAssembler, MassAssembler), applies the fixed DOFs as identity rows, " +
			"and factorises by supernodal sparse Cholesky (symbolic analysis kept while the pattern is unchanged, numeric factorisation every solve); exact in one iteration.",
		New: func() graph.Object { return NewSparseCholeskySolver() },
	})
}

// NewSparseCholeskySolver returns a sparse Cholesky solver with the
// defaults, for code that builds scenes directly.
func NewSparseCholeskySolver() *SparseCholeskySolver {
	return &SparseCholeskySolver{ObjectBase: graph.ObjectBase{Name: "cholesky", TypeName: "SparseCholeskySolver"},
		Ordering: "minimumDegree"}
}

// LastStats returns the statistics of the most recent Solve.
func (s *SparseCholeskySolver) LastStats() graph.LinearStats { return s.last }

// Analyses returns how many symbolic analyses have been computed (one per
// distinct sparsity pattern met), for tests and diagnostics.
func (s *SparseCholeskySolver) Analyses() int { return s.analyses }

// Symbolic returns the current symbolic analysis (nil before the first
// Solve): its Flops, NnzL and Supernodes describe the factorisation cost.
func (s *SparseCholeskySolver) Symbolic() *sparse.Symbolic { return s.sym }

// layout lists the independent states and sizes the buffers.
func (s *SparseCholeskySolver) layout(ops *graph.Ops) {
	s.states = s.states[:0]
	s.offsets = s.offsets[:0]
	n := 0
	for _, st := range ops.Independent() {
		s.states = append(s.states, st)
		s.offsets = append(s.offsets, n)
		n += st.Size() * st.Template().DerivSize()
	}
	if n != s.n || s.rhs == nil {
		s.n = n
		s.fixed = make([]bool, n)
		s.diag = make([]float64, n)
		s.w = make([]float64, n)
		s.pw = make([]float64, n)
		s.rhs = make([]float64, n)
		s.x = make([]float64, n)
		s.sym, s.rowPtr, s.col, s.a = nil, nil, nil, nil
	}
}

// Solve implements graph.LinearSolver.
func (s *SparseCholeskySolver) Solve(ops *graph.Ops, x, rhs graph.VecID, m, b, k float64) (graph.LinearStats, error) {
	s.last = graph.LinearStats{}
	s.layout(ops)
	n := s.n
	if n == 0 {
		s.last = graph.LinearStats{Iterations: 1, Converged: true}
		return s.last, nil
	}
	need := 1
	if b != 0 {
		need = 2
	}
	if s.checked < need {
		var chk assemblyChecker
		if ok, why := chk.check(ops.Root, b != 0); !ok {
			return s.last, fmt.Errorf("SparseCholeskySolver assembles the system from the components' matrices and cannot here: %s; use CGLinearSolver (matrix free) for this scene", why)
		}
		s.checked = need
	}

	// Fixed DOFs.
	general, _ := projectorDiagonal(ops, s.states, s.offsets, s.diag, s.w, s.pw)
	if general {
		return s.last, fmt.Errorf("SparseCholeskySolver handles projective constraints that fix components (projecting to 0 or leaving them), not ones that mix components; use CGLinearSolver (or DenseDirectSolver for a small system)")
	}
	for i, p := range s.diag {
		s.fixed[i] = p == 0
	}

	// Assembly: m·M + k·K without the fixed rows and columns, then an
	// identity diagonal on them. Into the known pattern when there is one
	// (no sorting, no allocation), else (first solve, or an entry or a
	// fixed set the pattern does not have) through a sparse.Builder.
	A, err := s.assemble(m, k)
	if err != nil {
		return s.last, err
	}
	for i := 0; i < n; i++ {
		for q := A.RowPtr[i]; q < A.RowPtr[i+1]; q++ {
			if v := A.Val[q]; math.IsNaN(v) || math.IsInf(v, 0) {
				return s.last, fmt.Errorf("SparseCholeskySolver: the system matrix has a non-finite entry at (%d, %d): a force field or mass writes a non-finite matrix", i, A.Col[q])
			}
		}
	}

	if s.shift != 0 {
		s.addShift(A)
	}

	// Symbolic analysis, kept while the pattern is unchanged.
	if s.sym == nil || !samePattern(A, s.rowPtr, s.col) {
		if err := s.analyze(A); err != nil {
			return s.last, err
		}
	}
	chol, err := s.sym.Factor(A)
	if err != nil {
		var npd *sparse.NotPositiveDefiniteError
		if errors.As(err, &npd) {
			st, dof, comp := s.locate(npd.Column)
			return s.last, fmt.Errorf("SparseCholeskySolver: the system matrix is not positive definite (pivot %g at DOF %d component %d of %q): an unstable configuration, a DOF with neither mass nor stiffness, or k > 0; use CGLinearSolver, which reports indefinite directions: %w (%w)",
				npd.Pivot, dof, comp, st.Base().Path(), err, graph.ErrNotPositiveDefinite)
		}
		return s.last, fmt.Errorf("SparseCholeskySolver: %w", err)
	}

	gatherStates(s.states, s.offsets, rhs, s.rhs)
	for i, f := range s.fixed {
		if f {
			s.rhs[i] = 0
		}
	}
	chol.Solve(s.x, s.rhs)
	for _, v := range s.x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return s.last, fmt.Errorf("SparseCholeskySolver: the solution is not finite: the system matrix is numerically singular")
		}
	}
	scatterStates(s.states, s.offsets, x, s.x)
	ops.Project(x)
	s.last = s.residual(ops, x, rhs, m, b, k)
	return s.last, nil
}

// analyze computes the symbolic factorisation of A's pattern with the
// chosen ordering.
func (s *SparseCholeskySolver) analyze(A *sparse.CSR) error {
	var perm []int
	if s.Ordering == "nestedDissection" {
		coords := make([]float64, 0, 3*s.n)
		for _, st := range s.states {
			if t := st.Template(); t.CoordSize() != 3 || t.DerivSize() != 3 {
				return fmt.Errorf("SparseCholeskySolver: ordering = \"nestedDissection\" needs Vec3 states (points); %q is %s: use ordering = \"minimumDegree\"", st.Base().Path(), t.Name())
			}
			rest := st.Vec(graph.RestPosition)
			for i := 0; i+3 <= len(rest); i += 3 {
				// One point per DOF row (its three components share it).
				for c := 0; c < 3; c++ {
					coords = append(coords, rest[i:i+3]...)
				}
			}
		}
		p, err := sparse.NestedDissection(A, coords)
		if err != nil {
			return fmt.Errorf("SparseCholeskySolver: ordering: %w", err)
		}
		perm = p
	}
	sym, err := sparse.Analyze(A, perm)
	if err != nil {
		return fmt.Errorf("SparseCholeskySolver: symbolic analysis: %w", err)
	}
	s.sym = sym
	s.rowPtr = append(s.rowPtr[:0], A.RowPtr...)
	s.col = append(s.col[:0], A.Col...)
	s.analyses++
	return nil
}

// assemble returns the constrained system matrix m·M + k·K (see Solve).
func (s *SparseCholeskySolver) assemble(m, k float64) (*sparse.CSR, error) {
	if s.a != nil && slices.Equal(s.fixed, s.aFixed) {
		pa := &s.pacc
		*pa = patternAccumulator{a: s.a, fixed: s.fixed, last: -1}
		clear(s.a.Val)
		for si, st := range s.states {
			pa.off = s.offsets[si]
			assembleNode(st.Base().Node, pa, m, k)
		}
		if !pa.miss {
			for i, f := range s.fixed {
				if f { // the pattern of a fixed row is its diagonal alone
					s.a.Val[s.a.RowPtr[i]] = 1
				}
			}
			return s.a, nil
		}
	}
	bld := sparse.NewBuilder(s.n, s.n)
	for si, st := range s.states {
		assembleNode(st.Base().Node, &fixedFilter{b: bld, fixed: s.fixed, off: s.offsets[si]}, m, k)
	}
	for i, f := range s.fixed {
		if f {
			bld.Add(i, i, 1)
		}
	}
	A, err := bld.Build()
	if err != nil {
		return nil, fmt.Errorf("SparseCholeskySolver: assembly: %w", err)
	}
	s.a = A
	s.aFixed = append(s.aFixed[:0], s.fixed...)
	return A, nil
}

// locate maps a system row to its state, DOF and component.
func (s *SparseCholeskySolver) locate(row int) (graph.State, int, int) {
	si := len(s.states) - 1
	for si > 0 && s.offsets[si] > row {
		si--
	}
	st := s.states[si]
	d := st.Template().DerivSize()
	r := row - s.offsets[si]
	return st, r / d, r % d
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

// samePattern reports whether A has the pattern (rowPtr, col).
func samePattern(A *sparse.CSR, rowPtr, col []int) bool {
	if len(A.RowPtr) != len(rowPtr) || len(A.Col) != len(col) {
		return false
	}
	for i, p := range rowPtr {
		if A.RowPtr[i] != p {
			return false
		}
	}
	for i, c := range col {
		if A.Col[i] != c {
			return false
		}
	}
	return true
}

// fixedFilter adds one state's entries (shifted by off) to a builder,
// dropping those in the rows and columns of fixed DOFs.
type fixedFilter struct {
	b     *sparse.Builder
	fixed []bool
	off   int
}

func (f *fixedFilter) Add(row, col int, v float64) {
	row += f.off
	col += f.off
	if uint(row) < uint(len(f.fixed)) && uint(col) < uint(len(f.fixed)) && (f.fixed[row] || f.fixed[col]) {
		return
	}
	f.b.Add(row, col, v) // out-of-range entries are reported by Build
}

// patternAccumulator adds one state's entries (shifted by off) into the
// values of a CSR matrix of known pattern, dropping those in the rows and
// columns of fixed DOFs; an entry outside the pattern sets miss. Element
// matrices arrive in runs of consecutive columns of one row (a 3×3 vertex
// block row), so the position after the previous entry is tried before a
// binary search of the row.
type patternAccumulator struct {
	a     *sparse.CSR
	fixed []bool
	off   int
	last  int // position of the previous entry, -1 if none
	miss  bool
}

func (p *patternAccumulator) Add(row, col int, v float64) {
	row += p.off
	col += p.off
	n := len(p.fixed)
	if uint(row) >= uint(n) || uint(col) >= uint(n) {
		p.miss = true // the builder path reports it
		return
	}
	if p.fixed[row] || p.fixed[col] {
		return
	}
	a := p.a
	lo, hi := a.RowPtr[row], a.RowPtr[row+1]
	if q := p.last + 1; q > lo && q < hi && a.Col[q] == col {
		a.Val[q] += v
		p.last = q
		return
	}
	cols := a.Col[lo:hi]
	j, found := slices.BinarySearch(cols, col)
	if !found {
		p.miss = true
		return
	}
	a.Val[lo+j] += v
	p.last = lo + j
}
