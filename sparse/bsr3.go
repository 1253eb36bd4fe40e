package sparse

import (
	"fmt"
	"math"
	"slices"
)

// BSR3 is a square sparse matrix of 3×3 blocks in block compressed sparse
// row form: block row i holds the blocks of block columns
// Col[RowPtr[i]:RowPtr[i+1]] (strictly increasing), block k having the
// nine values Val[9k:9k+9] (row-major). Scalar entry (3i+r, 3j+c) is
// Val[9k+3r+c] for the block k at (i, j). The point-based systems of
// tetrahedral meshes have this shape (three DOFs per point, every coupling
// a dense 3×3 block), and it halves the index traffic of CSR: one column
// index per nine values, and a product that loads x three values at a
// time. Both triangles are stored (a product is one pass over the rows).
type BSR3 struct {
	N      int // block rows = block columns; the scalar size is 3N
	RowPtr []int32
	Col    []int32
	Val    []float64
}

// NewBSR3 returns the zero matrix of n×n blocks whose pattern holds the
// block positions (pairs[2k], pairs[2k+1]) (row, column; duplicates are
// merged) and every diagonal block.
func NewBSR3(n int, pairs []int32) (*BSR3, error) {
	if n < 0 || n > math.MaxInt32/9 {
		return nil, fmt.Errorf("sparse: BSR3 of %d block rows", n)
	}
	if len(pairs)%2 != 0 {
		return nil, fmt.Errorf("sparse: BSR3: odd number (%d) of pair indices", len(pairs))
	}
	cnt := make([]int32, n+1)
	for k := 0; k < len(pairs); k += 2 {
		i, j := pairs[k], pairs[k+1]
		if i < 0 || int(i) >= n || j < 0 || int(j) >= n {
			return nil, fmt.Errorf("sparse: BSR3: block (%d, %d) out of range of %d×%d blocks", i, j, n, n)
		}
		cnt[i+1]++
	}
	for i := 0; i < n; i++ {
		cnt[i+1] += cnt[i] + 1 // + the diagonal
	}
	cols := make([]int32, cnt[n])
	next := make([]int32, n)
	for i := 0; i < n; i++ {
		cols[cnt[i]] = int32(i)
		next[i] = cnt[i] + 1
	}
	for k := 0; k < len(pairs); k += 2 {
		i := pairs[k]
		cols[next[i]] = pairs[k+1]
		next[i]++
	}
	a := &BSR3{N: n, RowPtr: make([]int32, n+1)}
	a.Col = cols[:0]
	for i := 0; i < n; i++ {
		row := cols[cnt[i]:cnt[i+1]]
		slices.Sort(row)
		row = slices.Compact(row)
		a.Col = append(a.Col, row...) // in place: never ahead of the read position
		a.RowPtr[i+1] = int32(len(a.Col))
	}
	a.Col = slices.Clip(a.Col)
	a.Val = make([]float64, 9*len(a.Col))
	return a, nil
}

// Blocks returns the number of stored blocks.
func (a *BSR3) Blocks() int { return len(a.Col) }

// Find returns the index k of block (i, j) (its values are
// Val[9k:9k+9]), or −1 when it is not stored.
func (a *BSR3) Find(i, j int) int {
	lo, hi := int(a.RowPtr[i]), int(a.RowPtr[i+1])
	k, ok := slices.BinarySearch(a.Col[lo:hi], int32(j))
	if !ok {
		return -1
	}
	return lo + k
}

// At returns the scalar entry (r, c) (0 when its block is not stored).
func (a *BSR3) At(r, c int) float64 {
	k := a.Find(r/3, c/3)
	if k < 0 {
		return 0
	}
	return a.Val[9*k+3*(r%3)+c%3]
}

// MulVec sets y = A·x (len 3N each).
func (a *BSR3) MulVec(y, x []float64) { a.MulVecRows(y, x, 0, a.N) }

// MulVecRows sets the block rows [lo, hi) of y = A·x: rows are
// independent, so ranges may run concurrently, and each row's sum is
// taken in the same order whatever the split.
func (a *BSR3) MulVecRows(y, x []float64, lo, hi int) {
	rp, cols, val := a.RowPtr, a.Col, a.Val
	_ = x[3*a.N-1]
	for i := lo; i < hi; i++ {
		var s0, s1, s2 float64
		p, e := int(rp[i]), int(rp[i+1])
		for ; p < e; p++ {
			j := 3 * int(cols[p])
			xs := x[j : j+3 : j+3]
			v := val[9*p : 9*p+9 : 9*p+9]
			x0, x1, x2 := xs[0], xs[1], xs[2]
			s0 += v[0]*x0 + v[1]*x1 + v[2]*x2
			s1 += v[3]*x0 + v[4]*x1 + v[5]*x2
			s2 += v[6]*x0 + v[7]*x1 + v[8]*x2
		}
		ys := y[3*i : 3*i+3 : 3*i+3]
		ys[0], ys[1], ys[2] = s0, s1, s2
	}
}

// DiagonalBlock returns the values of the diagonal block of block row i
// (not a copy; every BSR3 built by NewBSR3 stores it).
func (a *BSR3) DiagonalBlock(i int) []float64 {
	k := a.Find(i, i)
	return a.Val[9*k : 9*k+9 : 9*k+9]
}

// ToCSR returns the scalar CSR form of A (every entry of every stored
// block, zeros included, so the pattern depends on the block pattern
// only). CopyToCSR refreshes its values after A's change.
func (a *BSR3) ToCSR() *CSR {
	n := 3 * a.N
	c := &CSR{Rows: n, Cols: n, RowPtr: make([]int, n+1), Col: make([]int, 9*len(a.Col)), Val: make([]float64, 9*len(a.Col))}
	q := 0
	for i := 0; i < a.N; i++ {
		lo, hi := int(a.RowPtr[i]), int(a.RowPtr[i+1])
		for r := 0; r < 3; r++ {
			for p := lo; p < hi; p++ {
				j := 3 * int(a.Col[p])
				c.Col[q], c.Col[q+1], c.Col[q+2] = j, j+1, j+2
				q += 3
			}
			c.RowPtr[3*i+r+1] = q
		}
	}
	a.CopyToCSR(c)
	return c
}

// CSRIndex returns, for every entry of ToCSR's matrix (in its order), the
// index of its value in a.Val: the map through which a factorisation can
// read A's values without CopyToCSR (Symbolic.FactorIntoMapped).
func (a *BSR3) CSRIndex() []int32 {
	idx := make([]int32, 0, len(a.Val))
	for i := 0; i < a.N; i++ {
		lo, hi := int(a.RowPtr[i]), int(a.RowPtr[i+1])
		for r := 0; r < 3; r++ {
			for p := lo; p < hi; p++ {
				k := int32(9*p + 3*r)
				idx = append(idx, k, k+1, k+2)
			}
		}
	}
	return idx
}

// CopyToCSR copies A's values into c, which must be ToCSR's result for
// A's pattern.
func (a *BSR3) CopyToCSR(c *CSR) {
	q := 0
	for i := 0; i < a.N; i++ {
		lo, hi := int(a.RowPtr[i]), int(a.RowPtr[i+1])
		for r := 0; r < 3; r++ {
			dst := c.Val[q : q+3*(hi-lo)]
			for p := lo; p < hi; p++ {
				v := a.Val[9*p+3*r : 9*p+3*r+3]
				d := dst[3*(p-lo) : 3*(p-lo)+3]
				d[0], d[1], d[2] = v[0], v[1], v[2]
			}
			q += 3 * (hi - lo)
		}
	}
}

// SamePattern reports whether a and b have the same block pattern.
func (a *BSR3) SamePattern(b *BSR3) bool {
	return a.N == b.N && slices.Equal(a.RowPtr, b.RowPtr) && slices.Equal(a.Col, b.Col)
}

// Check verifies the structure: lengths, row pointers, columns in range
// and strictly increasing within rows, values finite.
func (a *BSR3) Check() error {
	if len(a.RowPtr) != a.N+1 || a.RowPtr[0] != 0 || int(a.RowPtr[a.N]) != len(a.Col) || len(a.Val) != 9*len(a.Col) {
		return fmt.Errorf("sparse: BSR3 with %d block rows, %d row pointers, %d blocks, %d values", a.N, len(a.RowPtr), len(a.Col), len(a.Val))
	}
	for i := 0; i < a.N; i++ {
		for p := a.RowPtr[i]; p < a.RowPtr[i+1]; p++ {
			c := a.Col[p]
			if c < 0 || int(c) >= a.N || (p > a.RowPtr[i] && c <= a.Col[p-1]) {
				return fmt.Errorf("sparse: BSR3 block row %d: column %d out of range or not increasing", i, c)
			}
		}
	}
	for k, v := range a.Val {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("sparse: BSR3 entry (%d, %d) = %g is not finite", 3*a.blockRow(k/9)+k%9/3, 3*int(a.Col[k/9])+k%3, v)
		}
	}
	return nil
}

// blockRow returns the block row of block k.
func (a *BSR3) blockRow(k int) int {
	i, _ := slices.BinarySearch(a.RowPtr, int32(k+1))
	return i - 1
}
