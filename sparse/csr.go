package sparse

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// CSR is a sparse matrix in compressed sparse row form: row i holds the
// columns Col[RowPtr[i]:RowPtr[i+1]] (strictly increasing) with the values
// Val[RowPtr[i]:RowPtr[i+1]]. Symmetric matrices store both triangles, so
// a product is one pass over the rows and a row is a column. Entries that
// are structurally present may be zero (the Builder keeps every position
// it was given, so K and K + σM built from the same elements share a
// pattern).
type CSR struct {
	Rows, Cols int
	RowPtr     []int // len Rows+1
	Col        []int // len nnz
	Val        []float64
}

// Nnz returns the number of stored entries.
func (a *CSR) Nnz() int { return len(a.Col) }

// At returns aᵢⱼ (0 when (i, j) is not stored), by binary search in row i.
func (a *CSR) At(i, j int) float64 {
	lo, hi := a.RowPtr[i], a.RowPtr[i+1]
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		switch c := a.Col[m]; {
		case c == j:
			return a.Val[m]
		case c < j:
			lo = m + 1
		default:
			hi = m
		}
	}
	return 0
}

// MulVec sets y = A·x (len(y) = Rows, len(x) = Cols).
func (a *CSR) MulVec(y, x []float64) {
	for i := 0; i < a.Rows; i++ {
		s := 0.0
		lo, hi := a.RowPtr[i], a.RowPtr[i+1]
		cols, vals := a.Col[lo:hi:hi], a.Val[lo:hi:hi]
		for k, c := range cols {
			s += vals[k] * x[c]
		}
		y[i] = s
	}
}

// MulVecAdd adds alpha·A·x to y.
func (a *CSR) MulVecAdd(y []float64, alpha float64, x []float64) {
	for i := 0; i < a.Rows; i++ {
		s := 0.0
		lo, hi := a.RowPtr[i], a.RowPtr[i+1]
		cols, vals := a.Col[lo:hi:hi], a.Val[lo:hi:hi]
		for k, c := range cols {
			s += vals[k] * x[c]
		}
		y[i] += alpha * s
	}
}

// Diagonal returns the diagonal entries (0 where not stored).
func (a *CSR) Diagonal() []float64 {
	n := min(a.Rows, a.Cols)
	d := make([]float64, n)
	for i := 0; i < n; i++ {
		d[i] = a.At(i, i)
	}
	return d
}

// MaxAbs returns the largest |aᵢⱼ|.
func (a *CSR) MaxAbs() float64 {
	m := 0.0
	for _, v := range a.Val {
		m = math.Max(m, math.Abs(v))
	}
	return m
}

// Symmetric reports whether A is square with |aᵢⱼ − aⱼᵢ| ≤ tol·max|a| for
// every stored entry (a missing mirror entry counts as 0).
func (a *CSR) Symmetric(tol float64) bool {
	if a.Rows != a.Cols {
		return false
	}
	lim := tol * a.MaxAbs()
	for i := 0; i < a.Rows; i++ {
		for k := a.RowPtr[i]; k < a.RowPtr[i+1]; k++ {
			if math.Abs(a.Val[k]-a.At(a.Col[k], i)) > lim {
				return false
			}
		}
	}
	return true
}

// Submatrix returns the rows and columns keep (strictly increasing
// indices) of a square A: B[k][l] = A[keep[k]][keep[l]]. It removes
// constrained DOFs from K and M.
func (a *CSR) Submatrix(keep []int) (*CSR, error) {
	if a.Rows != a.Cols {
		return nil, fmt.Errorf("sparse: Submatrix of a %d×%d matrix: want a square one", a.Rows, a.Cols)
	}
	newIdx := make([]int, a.Rows)
	for i := range newIdx {
		newIdx[i] = -1
	}
	for k, i := range keep {
		if i < 0 || i >= a.Rows || (k > 0 && i <= keep[k-1]) {
			return nil, fmt.Errorf("sparse: Submatrix: keep[%d] = %d is out of range [0, %d) or not increasing", k, i, a.Rows)
		}
		newIdx[i] = k
	}
	b := &CSR{Rows: len(keep), Cols: len(keep), RowPtr: make([]int, len(keep)+1)}
	for k, i := range keep {
		for p := a.RowPtr[i]; p < a.RowPtr[i+1]; p++ {
			if j := newIdx[a.Col[p]]; j >= 0 {
				b.Col = append(b.Col, j)
				b.Val = append(b.Val, a.Val[p])
			}
		}
		b.RowPtr[k+1] = len(b.Col)
	}
	return b, nil
}

// LinComb returns alpha·A + beta·B on the union of the two patterns (A
// and B of the same shape), e.g. the shifted matrix K − σM.
func LinComb(alpha float64, a *CSR, beta float64, b *CSR) (*CSR, error) {
	if a.Rows != b.Rows || a.Cols != b.Cols {
		return nil, fmt.Errorf("sparse: LinComb of a %d×%d and a %d×%d matrix", a.Rows, a.Cols, b.Rows, b.Cols)
	}
	c := &CSR{Rows: a.Rows, Cols: a.Cols, RowPtr: make([]int, a.Rows+1)}
	c.Col = make([]int, 0, max(a.Nnz(), b.Nnz()))
	c.Val = make([]float64, 0, max(a.Nnz(), b.Nnz()))
	for i := 0; i < a.Rows; i++ {
		p, pe := a.RowPtr[i], a.RowPtr[i+1]
		q, qe := b.RowPtr[i], b.RowPtr[i+1]
		for p < pe || q < qe {
			switch {
			case q == qe || (p < pe && a.Col[p] < b.Col[q]):
				c.Col = append(c.Col, a.Col[p])
				c.Val = append(c.Val, alpha*a.Val[p])
				p++
			case p == pe || b.Col[q] < a.Col[p]:
				c.Col = append(c.Col, b.Col[q])
				c.Val = append(c.Val, beta*b.Val[q])
				q++
			default:
				c.Col = append(c.Col, a.Col[p])
				c.Val = append(c.Val, alpha*a.Val[p]+beta*b.Val[q])
				p++
				q++
			}
		}
		c.RowPtr[i+1] = len(c.Col)
	}
	return c, nil
}

// Dense returns A as a gonum dense matrix (for tests and small problems).
func (a *CSR) Dense() *mat.Dense {
	d := mat.NewDense(max(a.Rows, 1), max(a.Cols, 1), nil)
	for i := 0; i < a.Rows; i++ {
		for k := a.RowPtr[i]; k < a.RowPtr[i+1]; k++ {
			d.Set(i, a.Col[k], a.Val[k])
		}
	}
	return d
}

// FromDense returns the CSR form of the r×c row-major dense matrix d,
// keeping the entries with |dᵢⱼ| > dropTol.
func FromDense(r, c int, d []float64, dropTol float64) *CSR {
	a := &CSR{Rows: r, Cols: c, RowPtr: make([]int, r+1)}
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			if v := d[i*c+j]; math.Abs(v) > dropTol {
				a.Col = append(a.Col, j)
				a.Val = append(a.Val, v)
			}
		}
		a.RowPtr[i+1] = len(a.Col)
	}
	return a
}

// Check verifies the structure: lengths, row pointers non-decreasing,
// columns in range and strictly increasing within rows, values finite.
func (a *CSR) Check() error {
	if a.Rows < 0 || a.Cols < 0 || len(a.RowPtr) != a.Rows+1 || a.RowPtr[0] != 0 {
		return fmt.Errorf("sparse: %d×%d matrix with %d row pointers (want %d starting at 0)", a.Rows, a.Cols, len(a.RowPtr), a.Rows+1)
	}
	if len(a.Col) != len(a.Val) || a.RowPtr[a.Rows] != len(a.Col) {
		return fmt.Errorf("sparse: %d columns, %d values, last row pointer %d", len(a.Col), len(a.Val), a.RowPtr[a.Rows])
	}
	for i := 0; i < a.Rows; i++ {
		if a.RowPtr[i+1] < a.RowPtr[i] {
			return fmt.Errorf("sparse: row pointer decreases at row %d", i)
		}
		for k := a.RowPtr[i]; k < a.RowPtr[i+1]; k++ {
			c := a.Col[k]
			if c < 0 || c >= a.Cols || (k > a.RowPtr[i] && c <= a.Col[k-1]) {
				return fmt.Errorf("sparse: row %d: column %d out of range [0, %d) or not increasing", i, c, a.Cols)
			}
			if math.IsNaN(a.Val[k]) || math.IsInf(a.Val[k], 0) {
				return fmt.Errorf("sparse: entry (%d, %d) = %g is not finite", i, c, a.Val[k])
			}
		}
	}
	return nil
}
