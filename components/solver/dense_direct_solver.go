package solver

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"

	"github.com/sofago/sofago/graph"
)

// DenseDirectSolver solves (m·M + b·B + k·K) x = rhs over the independent
// states of its ODE solver by assembling the matrix densely and factorising
// it: Cholesky (LAPACK dpotrf through gonum's lapack64) when the matrix is
// symmetric positive definite, as for implicit integration of a stable
// body, else LU with partial pivoting (dgetrf). It is meant for small systems — the r×r
// systems of reduced models (Barbič & James 2005, Sec. 6.1: "a dense r×r
// symmetric linear system ... solved with a direct symmetric solver"), or
// a few hundred DOFs — where a factorisation costs less than an iterative
// solve and is exact. A system with more than maxSize unknowns is an error.
//
// Assembly (assembly = "auto", the default): when every force field and
// mass of the independent nodes can write its matrix
// (graph.StiffnessAssembler, graph.MassAssembler) and nothing else in the
// subtree has a stiffness (force fields and masses of mapped nodes,
// interaction force fields), the matrix is assembled directly: the cost of
// writing K and M. Otherwise it is probed: column j is one Ops.ComputeDf
// of the unit vector eⱼ (N traversals, whatever the components).
// "Nothing else has a stiffness" is checked, not assumed: a force field
// that is not an assembler, or one on a mapped node, is applied to a random
// vector with kFactor = bFactor = 1 and must return zero (a constant load
// such as ConstantForceField does); assemblers are applied with
// kFactor = 0, bFactor = 1 and must return zero too (graph.StiffnessAssembler
// carries no damping matrix B); a mass's own AddDForce (gravity) likewise.
// assembly = "probe" always probes; "assembled" fails when it cannot
// assemble.
//
// Constraints: the projective constraints P of the states are applied as
// P A P + (I − P) and P rhs (for the usual constraints, which zero
// components, the constrained rows and columns become identity rows and
// columns), so the solution satisfies them exactly.
//
// LastStats reports one iteration, the relative residual |A x − rhs|/|rhs|
// and Converged when the normwise backward error
// |A x − rhs|∞ / (|A|∞|x|∞ + |rhs|∞) is below 1e-10 (a stable
// factorisation of a non-singular matrix gives ~1e-16; the relative
// residual itself may be larger on ill-conditioned systems).
type DenseDirectSolver struct {
	graph.ObjectBase
	MaxSize  int    `toml:"maxSize" doc:"largest number of scalar unknowns accepted (the matrix takes 8·N² bytes and its factorisation N³/3 multiply–adds); a larger system is an error" range:"[1,20000]"`
	Assembly string `toml:"assembly" doc:"how the matrix is built: auto (assembled from the components' matrices when they all can, else probed), probe (N ComputeDf traversals of unit vectors), assembled (fail if not possible)" enum:"auto,probe,assembled"`

	n       int
	states  []graph.State
	offsets []int
	a, work []float64 // N×N row-major
	rhs     []float64
	x       []float64
	diag    []float64 // projection of a vector of ones
	probeW  []float64 // a test vector and its projection
	probePW []float64
	ipiv    []int
	acc     *denseAccumulator
	check   assemblyChecker

	last       graph.LinearStats
	lastMethod string
	lastProbed bool
}

// defaultDenseMaxSize bounds the default system size: 2000 unknowns take
// 32 MB and about 2.7·10⁹ multiply–adds to factorise (~1 s).
const defaultDenseMaxSize = 2000

func init() {
	graph.Register(graph.TypeInfo{
		Name: "DenseDirectSolver",
		Kind: graph.KindLinearSolver,
		Summary: "Dense direct solver for small systems (reduced models, a few hundred DOFs): assembles m·M + b·B + k·K (from the components' matrices, or by probing ComputeDf with unit vectors), " +
			"applies the projective constraints, factorises by Cholesky (LU when not positive definite); larger than maxSize is an error.",
		New: func() graph.Object { return NewDenseDirectSolver() },
	})
}

// NewDenseDirectSolver returns a dense solver with the defaults, for code
// that builds scenes directly.
func NewDenseDirectSolver() *DenseDirectSolver {
	return &DenseDirectSolver{ObjectBase: graph.ObjectBase{Name: "dense", TypeName: "DenseDirectSolver"},
		MaxSize: defaultDenseMaxSize, Assembly: "auto"}
}

// LastStats returns the statistics of the most recent Solve.
func (d *DenseDirectSolver) LastStats() graph.LinearStats { return d.last }

// LastMethod reports how the most recent system was solved: the
// factorisation ("cholesky" or "lu") and whether the matrix was probed.
func (d *DenseDirectSolver) LastMethod() (factorisation string, probed bool) {
	return d.lastMethod, d.lastProbed
}

// layout sizes the buffers for the independent states of ops.
func (d *DenseDirectSolver) layout(ops *graph.Ops) error {
	d.states = d.states[:0]
	d.offsets = d.offsets[:0]
	n := 0
	for _, s := range ops.Independent() {
		d.states = append(d.states, s)
		d.offsets = append(d.offsets, n)
		n += s.Size() * s.Template().DerivSize()
	}
	maxSize := d.MaxSize
	if maxSize <= 0 {
		maxSize = defaultDenseMaxSize
	}
	if n > maxSize {
		return fmt.Errorf("the system has %d unknowns, more than maxSize = %d: a dense factorisation would take %.3g GB and %.3g·10⁹ multiply–adds; use CGLinearSolver (or raise maxSize)",
			n, maxSize, 8*float64(n)*float64(n)/1e9, float64(n)*float64(n)*float64(n)/3e9)
	}
	if n != d.n || d.a == nil {
		d.n = n
		d.a = make([]float64, n*n)
		d.work = make([]float64, n*n)
		d.rhs = make([]float64, n)
		d.x = make([]float64, n)
		d.diag = make([]float64, n)
		d.probeW = make([]float64, n)
		d.probePW = make([]float64, n)
		d.ipiv = make([]int, n)
	}
	return nil
}

// Solve implements graph.LinearSolver.
func (d *DenseDirectSolver) Solve(ops *graph.Ops, x, rhs graph.VecID, m, b, k float64) (graph.LinearStats, error) {
	d.last = graph.LinearStats{}
	if err := d.layout(ops); err != nil {
		return d.last, err
	}
	n := d.n
	if n == 0 {
		d.last = graph.LinearStats{Converged: true}
		return d.last, nil
	}
	clear(d.a)
	assembled := false
	if d.Assembly != "probe" {
		ok, why := d.canAssemble(ops, b != 0)
		if ok {
			d.assemble(ops, m, k)
			assembled = true
		} else if d.Assembly == "assembled" {
			return d.last, fmt.Errorf("assembly = \"assembled\" is not possible: %s", why)
		}
	}
	if !assembled {
		d.probe(ops, m, b, k)
	}
	d.lastProbed = !assembled
	d.gather(ops, rhs, d.rhs)
	if err := d.constrain(ops); err != nil {
		return d.last, err
	}
	for i, v := range d.a {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return d.last, fmt.Errorf("the system matrix has a non-finite entry at (%d, %d): a force field or mass returns a non-finite df", i/n, i%n)
		}
	}
	if err := d.factorSolve(); err != nil {
		return d.last, err
	}
	d.scatter(ops, x, d.x)
	ops.Project(x)
	d.last = d.residual()
	return d.last, nil
}

// canAssemble reports whether the matrix can be assembled from the
// components' matrices (see the type documentation) and, if not, why.
func (d *DenseDirectSolver) canAssemble(ops *graph.Ops, needB bool) (bool, string) {
	if len(d.states) != 1 {
		return false, fmt.Sprintf("%d independent states (assembly handles one)", len(d.states))
	}
	return d.check.check(ops.Root, needB)
}

// denseAccumulator adds entries into a row-major N×N matrix.
type denseAccumulator struct {
	a []float64
	n int
}

func (acc *denseAccumulator) Add(row, col int, v float64) { acc.a[row*acc.n+col] += v }

// assemble writes m·M + k·K of the single independent state.
func (d *DenseDirectSolver) assemble(ops *graph.Ops, m, k float64) {
	if d.acc == nil {
		d.acc = &denseAccumulator{}
	}
	d.acc.a, d.acc.n = d.a, d.n
	assembleNode(d.states[0].Base().Node, d.acc, m, k)
}

// probe fills the matrix column by column with ComputeDf of unit vectors.
func (d *DenseDirectSolver) probe(ops *graph.Ops, m, b, k float64) {
	n := d.n
	e, col := ops.AllocDeriv(), ops.AllocDeriv()
	defer ops.Free(e, col)
	for si, s := range d.states {
		ev := s.Vec(e)
		for c := range ev {
			ev[c] = 1
			ops.ComputeDf(col, e, m, b, k)
			ev[c] = 0
			j := d.offsets[si] + c
			for sk, s2 := range d.states {
				off := d.offsets[sk]
				for i, v := range s2.Vec(col) {
					d.a[(off+i)*n+j] = v
				}
			}
		}
	}
}

// gather copies the vector id of every state into dst.
func (d *DenseDirectSolver) gather(ops *graph.Ops, id graph.VecID, dst []float64) {
	gatherStates(d.states, d.offsets, id, dst)
}

// scatter copies src into the vector id of every state.
func (d *DenseDirectSolver) scatter(ops *graph.Ops, id graph.VecID, src []float64) {
	scatterStates(d.states, d.offsets, id, src)
}

// constrain applies A ← P A P + (I − P), rhs ← P rhs. The projector is
// found by projecting a vector of ones and a random vector: when P is
// diagonal with 0/1 entries (constraints that zero components) the
// constrained rows and columns are replaced by identity ones; otherwise P
// is formed column by column.
func (d *DenseDirectSolver) constrain(ops *graph.Ops) error {
	n := d.n
	diag := d.diag
	general, allFree := projectorDiagonal(ops, d.states, d.offsets, diag, d.probeW, d.probePW)
	if allFree && !general {
		return nil
	}
	if !general {
		for i, p := range diag {
			if p != 0 {
				continue
			}
			for j := 0; j < n; j++ {
				d.a[i*n+j], d.a[j*n+i] = 0, 0
			}
			d.a[i*n+i] = 1
			d.rhs[i] = 0
		}
		return nil
	}
	// General projector: columns P eⱼ.
	v := ops.AllocDeriv()
	defer ops.Free(v)
	P := mat.NewDense(n, n, nil)
	e := make([]float64, n)
	col := make([]float64, n)
	for j := 0; j < n; j++ {
		e[j] = 1
		d.scatter(ops, v, e)
		ops.Project(v)
		d.gather(ops, v, col)
		e[j] = 0
		for i := 0; i < n; i++ {
			P.Set(i, j, col[i])
		}
	}
	A := mat.NewDense(n, n, d.a)
	var PA, PAP mat.Dense
	PA.Mul(P, A)
	PAP.Mul(&PA, P)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			id := 0.0
			if i == j {
				id = 1
			}
			d.a[i*n+j] = PAP.At(i, j) + id - P.At(i, j)
		}
	}
	var prhs mat.VecDense
	prhs.MulVec(P, mat.NewVecDense(n, d.rhs))
	for i := range d.rhs {
		d.rhs[i] = prhs.AtVec(i)
	}
	return nil
}

// factorSolve factorises the matrix and solves for d.x: Cholesky
// (LAPACK dpotrf/dpotrs through lapack64) of its symmetric part when it is
// symmetric to 1e-10 relative and positive definite, else LU with partial
// pivoting (dgetrf/dgetrs). No condition estimate, no allocation.
func (d *DenseDirectSolver) factorSolve() error {
	n := d.n
	amax, asym := 0.0, 0.0
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			a, b := d.a[i*n+j], d.a[j*n+i]
			if a < 0 {
				a = -a
			}
			if b < 0 {
				b = -b
			}
			amax = max(amax, a, b)
			if df := d.a[i*n+j] - d.a[j*n+i]; df > asym || -df > asym {
				asym = max(df, -df)
			}
		}
	}
	copy(d.x, d.rhs)
	bx := blas64.General{Rows: n, Cols: 1, Stride: 1, Data: d.x}
	if asym <= 1e-10*amax {
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				d.work[i*n+j] = 0.5 * (d.a[i*n+j] + d.a[j*n+i])
			}
		}
		if t, ok := lapack64.Potrf(blas64.Symmetric{N: n, Stride: n, Uplo: blas.Upper, Data: d.work}); ok {
			lapack64.Potrs(t, bx)
			d.lastMethod = "cholesky"
			return d.checkFinite()
		}
		copy(d.x, d.rhs)
	}
	copy(d.work, d.a)
	lu := blas64.General{Rows: n, Cols: n, Stride: n, Data: d.work}
	if !lapack64.Getrf(lu, d.ipiv) {
		return fmt.Errorf("the system matrix is singular (LU found a zero pivot): is every DOF constrained or given a mass or a stiffness?")
	}
	lapack64.Getrs(blas.NoTrans, lu, bx, d.ipiv)
	d.lastMethod = "lu"
	return d.checkFinite()
}

// checkFinite fails on a non-finite solution.
func (d *DenseDirectSolver) checkFinite() error {
	for _, v := range d.x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("the solution is not finite: the system matrix is (numerically) singular")
		}
	}
	return nil
}

// residual computes the statistics of the solution d.x.
func (d *DenseDirectSolver) residual() graph.LinearStats {
	n := d.n
	var r2, b2, rinf, binf, xinf, ainf float64
	for i := 0; i < n; i++ {
		row := d.a[i*n : (i+1)*n]
		s, rowAbs := -d.rhs[i], 0.0
		for j, v := range row {
			s += v * d.x[j]
			rowAbs += math.Abs(v)
		}
		r2 += s * s
		b2 += d.rhs[i] * d.rhs[i]
		rinf = max(rinf, math.Abs(s))
		binf = max(binf, math.Abs(d.rhs[i]))
		xinf = max(xinf, math.Abs(d.x[i]))
		ainf = max(ainf, rowAbs)
	}
	st := graph.LinearStats{Iterations: 1}
	if b2 > 0 {
		st.Residual = math.Sqrt(r2 / b2)
	}
	den := ainf*xinf + binf
	st.Converged = den == 0 || rinf <= 1e-10*den
	return st
}
