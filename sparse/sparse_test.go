package sparse

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// randomSPD returns a random sparse symmetric positive definite n×n matrix
// with about nnzPerRow off-diagonal entries per row: B + Bᵀ plus a
// diagonal making it strictly diagonally dominant, then a few random
// rank-one-like couplings so it is not trivially dominant everywhere.
func randomSPD(rng *rand.Rand, n, nnzPerRow int) *CSR {
	b := NewBuilder(n, n)
	for i := 0; i < n; i++ {
		b.Add(i, i, 1e-3) // every diagonal stored
		for k := 0; k < nnzPerRow/2; k++ {
			j := rng.IntN(n)
			if j == i {
				continue
			}
			v := rng.Float64()*2 - 1
			b.Add(i, j, v)
			b.Add(j, i, v)
			// Diagonal dominance: |v| to both diagonals.
			b.Add(i, i, math.Abs(v)*1.01)
			b.Add(j, j, math.Abs(v)*1.01)
		}
	}
	a, err := b.Build()
	if err != nil {
		panic(err)
	}
	return a
}

// grid3D returns the 3-DOF-per-vertex "vector Laplacian" of an nx×ny×nz
// vertex grid with 26-neighbour coupling (the pattern of a hexahedral or
// Kuhn-tetrahedral mesh stiffness), shifted to be positive definite.
func grid3D(nx, ny, nz int) *CSR {
	n := nx * ny * nz
	id := func(i, j, k int) int { return i + nx*(j+ny*k) }
	b := NewBuilder(3*n, 3*n)
	for k := 0; k < nz; k++ {
		for j := 0; j < ny; j++ {
			for i := 0; i < nx; i++ {
				v := id(i, j, k)
				for dk := -1; dk <= 1; dk++ {
					for dj := -1; dj <= 1; dj++ {
						for di := -1; di <= 1; di++ {
							ii, jj, kk := i+di, j+dj, k+dk
							if ii < 0 || jj < 0 || kk < 0 || ii >= nx || jj >= ny || kk >= nz {
								continue
							}
							u := id(ii, jj, kk)
							for c := 0; c < 3; c++ {
								for d := 0; d < 3; d++ {
									w := -0.1
									if u == v {
										w = 0.1
										if c == d {
											w = 40
										}
									} else if c == d {
										w = -1
									}
									b.Add(3*v+c, 3*u+d, w)
								}
							}
						}
					}
				}
			}
		}
	}
	a, _ := b.Build()
	return a
}

func TestBuilderSumsDuplicatesDeterministically(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	n := 50
	dense := make([]float64, n*n)
	b := NewBuilder(n, n)
	for k := 0; k < 3*minFlush+12345; k++ { // several compactions
		i, j := rng.IntN(n), rng.IntN(n)
		v := float64(rng.IntN(7) - 3) // integers: sums are exact in any order
		dense[i*n+j] += v
		b.Add(i, j, v)
	}
	a, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Check(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if a.At(i, j) != dense[i*n+j] {
				t.Fatalf("(%d,%d) = %g, want %g", i, j, a.At(i, j), dense[i*n+j])
			}
		}
	}
	b.Add(n, 0, 1)
	if _, err := b.Build(); err == nil {
		t.Fatal("out-of-range entry accepted")
	}
}

func TestMinimumDegreeIsPermutation(t *testing.T) {
	a := grid3D(6, 5, 4)
	p := MinimumDegree(a)
	seen := make([]bool, a.Rows)
	for _, i := range p {
		if seen[i] {
			t.Fatalf("index %d twice", i)
		}
		seen[i] = true
	}
	if len(p) != a.Rows {
		t.Fatalf("length %d, want %d", len(p), a.Rows)
	}
	// Deterministic.
	q := MinimumDegree(a)
	for i := range p {
		if p[i] != q[i] {
			t.Fatal("ordering not deterministic")
		}
	}
}

// checkSolve factors a, solves for random right-hand sides and compares
// with gonum's dense Cholesky solve; the relative residual must stay at
// the level of rounding: |Ax − b| ≤ 1e-12 |A||x| (a backward-stable
// Cholesky has residual O(n ε |A||x|); the matrices here are at most a
// few thousand, with condition numbers below 1e4).
func checkSolve(t *testing.T, a *CSR, dense bool) *Cholesky {
	t.Helper()
	c, err := Factorize(a)
	if err != nil {
		t.Fatal(err)
	}
	n := a.Rows
	rng := rand.New(rand.NewPCG(3, uint64(n)))
	b := make([]float64, n)
	for i := range b {
		b[i] = rng.Float64()*2 - 1
	}
	x := make([]float64, n)
	c.Solve(x, b)
	r := make([]float64, n)
	a.MulVec(r, x)
	rn, xn := 0.0, 0.0
	for i := range r {
		rn = math.Max(rn, math.Abs(r[i]-b[i]))
		xn = math.Max(xn, math.Abs(x[i]))
	}
	if rn > 1e-12*a.MaxAbs()*xn*math.Sqrt(float64(n)) {
		t.Errorf("n = %d: residual %.3g for |A| %.3g |x| %.3g", n, rn, a.MaxAbs(), xn)
	}
	if dense {
		var ch mat.Cholesky
		sym := mat.NewSymDense(n, nil)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				sym.SetSym(i, j, a.At(i, j))
			}
		}
		if !ch.Factorize(sym) {
			t.Fatal("gonum: not positive definite")
		}
		var xd mat.VecDense
		if err := ch.SolveVecTo(&xd, mat.NewVecDense(n, b)); err != nil {
			t.Fatal(err)
		}
		cond := ch.Cond()
		for i := 0; i < n; i++ {
			// Both solutions are within cond·ε of the truth.
			if d := math.Abs(xd.AtVec(i) - x[i]); d > 1e-14*cond*xn+1e-300 {
				t.Fatalf("x[%d] = %.17g, gonum %.17g (cond %.3g)", i, x[i], xd.AtVec(i), cond)
			}
		}
	}
	return c
}

func TestCholeskyRandomSPDAgainstGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{1, 2, 3, 10, 57, 200, 600} {
		for _, per := range []int{0, 2, 6, 20} {
			checkSolve(t, randomSPD(rng, n, per), true)
		}
	}
}

func TestCholeskyGrid(t *testing.T) {
	c := checkSolve(t, grid3D(7, 6, 9), true)
	t.Logf("n = %d, nnz(L) = %d, supernodes %d, %.3g Mflop", c.sym.n, c.sym.NnzL(), c.sym.Supernodes(), c.sym.Flops()/1e6)
}

func TestCholeskyNotPositiveDefinite(t *testing.T) {
	a := grid3D(4, 4, 4)
	// Make it indefinite: a large negative diagonal entry.
	for k := a.RowPtr[17]; k < a.RowPtr[18]; k++ {
		if a.Col[k] == 17 {
			a.Val[k] = -5
		}
	}
	_, err := Factorize(a)
	if _, ok := err.(*NotPositiveDefiniteError); !ok {
		t.Fatalf("err = %v, want NotPositiveDefiniteError", err)
	}
}

func TestMulLTAndSolveLT(t *testing.T) {
	a := grid3D(5, 4, 3)
	c, err := Factorize(a)
	if err != nil {
		t.Fatal(err)
	}
	n := a.Rows
	rng := rand.New(rand.NewPCG(7, 8))
	x := make([]float64, n)
	for i := range x {
		x[i] = rng.Float64() - 0.5
	}
	z := make([]float64, n)
	c.MulLT(z, x)
	ax := make([]float64, n)
	a.MulVec(ax, x)
	xax, zz := 0.0, 0.0
	for i := range x {
		xax += x[i] * ax[i]
		zz += z[i] * z[i]
	}
	if math.Abs(xax-zz) > 1e-13*xax {
		t.Errorf("xᵀAx = %.17g, |Lᵀx|² = %.17g", xax, zz)
	}
	back := make([]float64, n)
	c.SolveLT(back, z)
	for i := range x {
		if math.Abs(back[i]-x[i]) > 1e-13 {
			t.Fatalf("SolveLT(MulLT(x))[%d] = %.17g, want %.17g", i, back[i], x[i])
		}
	}
}

// TestSolveManyMatchesSolve: the blocked multi-right-hand-side solve gives
// the single solves' results to rounding (different operation order:
// 1e-12 relative to the largest |x|).
func TestSolveManyMatchesSolve(t *testing.T) {
	a := grid3D(6, 7, 5)
	c, err := Factorize(a)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 9))
	n := a.Rows
	for _, nb := range []int{1, 2, 5, 8} {
		B := make([][]float64, nb)
		X := make([][]float64, nb)
		for j := range B {
			B[j] = make([]float64, n)
			X[j] = make([]float64, n)
			for i := range B[j] {
				B[j][i] = rng.Float64() - 0.5
			}
		}
		c.SolveMany(X, B)
		x := make([]float64, n)
		for j := range B {
			c.Solve(x, B[j])
			d, m := 0.0, 0.0
			for i := range x {
				d = math.Max(d, math.Abs(x[i]-X[j][i]))
				m = math.Max(m, math.Abs(x[i]))
			}
			if d > 1e-12*m {
				t.Errorf("nb = %d, rhs %d: SolveMany differs from Solve by %.3g", nb, j, d/m)
			}
		}
	}
}

// TestCGPreconditioners solves the same system with no preconditioner,
// Jacobi, IC(0) and the exact factor: each reaches the requested relative
// residual (checked on the true residual), the better preconditioners in
// fewer iterations, and the exact factor in one.
func TestCGPreconditioners(t *testing.T) {
	a := grid3D(8, 7, 9)
	n := a.Rows
	b := make([]float64, n)
	rng := rand.New(rand.NewPCG(4, 4))
	for i := range b {
		b[i] = rng.Float64() - 0.5
	}
	jac, err := NewJacobi(a)
	if err != nil {
		t.Fatal(err)
	}
	ic, err := NewIncompleteCholesky(a)
	if err != nil {
		t.Fatal(err)
	}
	chol, err := Factorize(a)
	if err != nil {
		t.Fatal(err)
	}
	iters := map[string]int{}
	for _, c := range []struct {
		name string
		pre  Preconditioner
	}{{"none", nil}, {"jacobi", jac}, {"ic0", ic}, {"cholesky", chol}} {
		x := make([]float64, n)
		res := CG(a, x, b, c.pre, CGOptions{Tol: 1e-10})
		if !res.Converged || res.Residual > 1e-10 {
			t.Errorf("%s: %+v", c.name, res)
		}
		r := make([]float64, n)
		a.MulVec(r, x)
		rn, bn := 0.0, 0.0
		for i := range r {
			rn += (r[i] - b[i]) * (r[i] - b[i])
			bn += b[i] * b[i]
		}
		if math.Sqrt(rn/bn) > 1e-10 {
			t.Errorf("%s: true residual %.3g", c.name, math.Sqrt(rn/bn))
		}
		iters[c.name] = res.Iterations
	}
	t.Logf("iterations: %v (IC shift %g)", iters, ic.Shift)
	if !(iters["ic0"] < iters["jacobi"] && iters["jacobi"] <= iters["none"] && iters["cholesky"] <= 1) {
		t.Errorf("iteration counts not ordered: %v", iters)
	}
}

// TestIncompleteCholeskyExactOnTridiagonal: IC(0) of a matrix whose
// Cholesky factor has no fill (tridiagonal) is the exact factor, so one
// application solves the system (to rounding).
func TestIncompleteCholeskyExactOnTridiagonal(t *testing.T) {
	n := 50
	b := NewBuilder(n, n)
	for i := 0; i < n; i++ {
		b.Add(i, i, 4)
		if i > 0 {
			b.Add(i, i-1, -1)
			b.Add(i-1, i, -1)
		}
	}
	a, _ := b.Build()
	ic, err := NewIncompleteCholesky(a)
	if err != nil {
		t.Fatal(err)
	}
	rhs := make([]float64, n)
	for i := range rhs {
		rhs[i] = float64(i%5) - 2
	}
	x := make([]float64, n)
	ic.Apply(x, rhs)
	r := make([]float64, n)
	a.MulVec(r, x)
	for i := range r {
		if math.Abs(r[i]-rhs[i]) > 1e-13 {
			t.Fatalf("residual %g at %d", r[i]-rhs[i], i)
		}
	}
}

// TestNestedDissectionReducesFill: on a 3-D grid, geometric nested
// dissection is a valid ordering whose factor needs fewer operations than
// minimum degree's, and it solves as accurately.
func TestNestedDissectionReducesFill(t *testing.T) {
	nx, ny, nz := 12, 11, 13
	a := grid3D(nx, ny, nz)
	coords := make([]float64, 3*a.Rows)
	for v := 0; v < nx*ny*nz; v++ {
		i, j, k := v%nx, (v/nx)%ny, v/(nx*ny)
		for c := 0; c < 3; c++ {
			coords[3*(3*v+c)], coords[3*(3*v+c)+1], coords[3*(3*v+c)+2] = float64(i), float64(j), float64(k)
		}
	}
	p, err := NestedDissection(a, coords)
	if err != nil {
		t.Fatal(err)
	}
	seen := make([]bool, a.Rows)
	for _, i := range p {
		if seen[i] {
			t.Fatalf("index %d twice", i)
		}
		seen[i] = true
	}
	nd, err := Analyze(a, p)
	if err != nil {
		t.Fatal(err)
	}
	md, err := Analyze(a, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("flops: nested dissection %.3g, minimum degree %.3g; nnz(L) %d vs %d", nd.Flops(), md.Flops(), nd.NnzL(), md.NnzL())
	if nd.Flops() >= md.Flops() {
		t.Errorf("nested dissection %.3g flops ≥ minimum degree %.3g", nd.Flops(), md.Flops())
	}
	c, err := nd.Factor(a)
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float64, a.Rows)
	b := make([]float64, a.Rows)
	for i := range b {
		b[i] = math.Sin(float64(i))
	}
	c.Solve(x, b)
	r := make([]float64, a.Rows)
	a.MulVec(r, x)
	for i := range r {
		if math.Abs(r[i]-b[i]) > 1e-11 {
			t.Fatalf("residual %.3g at %d", r[i]-b[i], i)
		}
	}
	if _, err := NestedDissection(a, coords[:5]); err == nil {
		t.Error("wrong coordinate count accepted")
	}
}

// TestFactorRejectsOtherPattern: a symbolic analysis is tied to its
// pattern; a one-triangle pattern is refused by Analyze.
func TestFactorRejectsOtherPattern(t *testing.T) {
	a := grid3D(3, 3, 3)
	s, err := Analyze(a, nil)
	if err != nil {
		t.Fatal(err)
	}
	b := grid3D(3, 3, 4)
	if _, err := s.Factor(b); err == nil {
		t.Error("factor of another pattern accepted")
	}
	up := NewBuilder(3, 3)
	up.Add(0, 0, 2)
	up.Add(1, 1, 2)
	up.Add(2, 2, 2)
	up.Add(0, 1, -1)
	u, _ := up.Build()
	if _, err := Analyze(u, nil); err == nil {
		t.Error("unsymmetric pattern accepted")
	}
}

// TestIncompleteCholeskyRefactor: refactoring into the kept storage gives
// the same factor as a fresh NewIncompleteCholesky, bit for bit, for new
// values on the same pattern (including values that need a diagonal
// shift), allocates nothing, and refuses another pattern.
func TestIncompleteCholeskyRefactor(t *testing.T) {
	a := grid3D(6, 5, 7)
	ic, err := NewIncompleteCholesky(a)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(9, 9))
	for trial := 0; trial < 3; trial++ {
		b := &CSR{Rows: a.Rows, Cols: a.Cols, RowPtr: a.RowPtr, Col: a.Col, Val: append([]float64(nil), a.Val...)}
		// Symmetric random perturbation of the off-diagonal entries;
		// trial 2 flips them and makes them 8 times larger (far from an
		// M-matrix, no longer diagonally dominant: IC(0) then
		// needs a diagonal shift).
		scale := 1.0
		if trial == 2 {
			scale = -8
		}
		for i := 0; i < b.Rows; i++ {
			for q := b.RowPtr[i]; q < b.RowPtr[i+1]; q++ {
				if j := b.Col[q]; j > i {
					v := scale * b.Val[q] * (1 + 0.1*(rng.Float64()-0.5))
					b.Val[q] = v
					for p := b.RowPtr[j]; p < b.RowPtr[j+1]; p++ {
						if b.Col[p] == i {
							b.Val[p] = v
						}
					}
				}
			}
		}
		fresh, err := NewIncompleteCholesky(b)
		if err != nil {
			t.Fatal(err)
		}
		allocs := testing.AllocsPerRun(1, func() {
			if err := ic.Refactor(b); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("Refactor allocates %v times", allocs)
		}
		if trial == 2 && !(fresh.Shift > 0) {
			t.Fatalf("trial 2 needs no shift: the test does not cover the shifted path")
		}
		if ic.Shift != fresh.Shift {
			t.Errorf("trial %d: shift %g, fresh %g", trial, ic.Shift, fresh.Shift)
		}
		for k := range ic.val {
			if ic.val[k] != fresh.val[k] {
				t.Fatalf("trial %d: entry %d: %v, fresh %v", trial, k, ic.val[k], fresh.val[k])
			}
		}
	}
	if err := ic.Refactor(grid3D(6, 5, 6)); err == nil {
		t.Error("Refactor accepted another pattern")
	}
}
