package reduced

import (
	"fmt"
	"math"
)

// Basis is a displacement basis U (3n × r) of a mesh of n vertices: the
// displacement u = U q, with q the r reduced coordinates. It is stored
// row-major, U[row·R + j] being component row%3 of vertex row/3 in basis
// vector j, so that u = U q and Uᵀ f are single BLAS products and the r
// numbers of one mesh row are contiguous.
type Basis struct {
	R int       // number of basis vectors (reduced coordinates)
	U []float64 // 3n·R numbers, row-major
}

// NumRows returns 3n, the number of displacement components.
func (b *Basis) NumRows() int {
	if b == nil || b.R == 0 {
		return 0
	}
	return len(b.U) / b.R
}

// NewBasisColumnMajor builds a basis from a column-major (LAPACK/VegaFEM)
// matrix: colMajor[rows·j + row] = U(row, j).
func NewBasisColumnMajor(rows, r int, colMajor []float64) (*Basis, error) {
	if rows <= 0 || r <= 0 || len(colMajor) != rows*r {
		return nil, fmt.Errorf("basis: %d numbers for %d rows × %d columns", len(colMajor), rows, r)
	}
	b := &Basis{R: r, U: make([]float64, rows*r)}
	for j := 0; j < r; j++ {
		for i := 0; i < rows; i++ {
			b.U[i*r+j] = colMajor[rows*j+i]
		}
	}
	return b, b.Check(rows / 3)
}

// ColumnMajor returns U in column-major order.
func (b *Basis) ColumnMajor() []float64 {
	rows := b.NumRows()
	out := make([]float64, len(b.U))
	for i := 0; i < rows; i++ {
		for j := 0; j < b.R; j++ {
			out[rows*j+i] = b.U[i*b.R+j]
		}
	}
	return out
}

// Column returns a copy of basis vector j (3n numbers).
func (b *Basis) Column(j int) []float64 {
	rows := b.NumRows()
	out := make([]float64, rows)
	for i := range out {
		out[i] = b.U[i*b.R+j]
	}
	return out
}

// Check verifies that the basis has 3·numPoints rows, at least one column,
// finite entries and no zero column (a zero column gives a singular
// reduced mass).
func (b *Basis) Check(numPoints int) error {
	if b == nil || b.R <= 0 {
		return fmt.Errorf("basis: no basis vectors")
	}
	if len(b.U)%b.R != 0 {
		return fmt.Errorf("basis: %d numbers is not a multiple of r = %d", len(b.U), b.R)
	}
	if rows := len(b.U) / b.R; rows != 3*numPoints {
		return fmt.Errorf("basis has %d rows, the mesh has %d vertices (%d rows)", rows, numPoints, 3*numPoints)
	}
	norm := make([]float64, b.R)
	for i, x := range b.U {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("basis entry (%d, %d) is not finite", i/b.R, i%b.R)
		}
		norm[i%b.R] += x * x
	}
	for j, n := range norm {
		if n == 0 {
			return fmt.Errorf("basis vector %d is zero", j)
		}
	}
	return nil
}

// NumPairs returns r(r+1)/2, the number of pairs i ≤ j.
func NumPairs(r int) int { return r * (r + 1) / 2 }

// NumTriples returns r(r+1)(r+2)/6, the number of triples i ≤ j ≤ k.
func NumTriples(r int) int { return r * (r + 1) * (r + 2) / 6 }

// Pair returns the packed index of the pair (i, j), i ≤ j < r, in
// lexicographic order with i outermost (VegaFEM's pos2; also the index of
// entry (i, j) of an upper-packed symmetric r×r matrix).
func Pair(r, i, j int) int { return i*r - i*(i-1)/2 + j - i }

// Triple returns the packed index of the triple (i, j, k), i ≤ j ≤ k < r,
// in lexicographic order with i outermost (VegaFEM's pos3).
func Triple(r, i, j, k int) int {
	// Triples starting with a smaller first index: Σ_{a<i} P(r−a) with
	// P(m) = m(m+1)/2 pairs in a range of m values; then pairs (j, k) in
	// [i, r) with j ≤ k, numbered like Pair on r−i values.
	before := NumTriples(r) - NumTriples(r-i)
	return before + Pair(r-i, j-i, k-i)
}

// BasisSource is implemented by components that own a reduced basis (the
// reduced StVK force field): SubspaceMapping and the reduced mass read the
// basis through it. SubspaceBasis prepares the basis on first use (it may
// run before the owner's own Init: mappings and masses initialise before
// force fields) and returns it with the rest positions of the mesh it
// displaces (3 per vertex).
type BasisSource interface {
	SubspaceBasis() (*Basis, []float64, error)
}
