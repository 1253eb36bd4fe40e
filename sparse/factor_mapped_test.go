package sparse

import (
	"math"
	"testing"
)

// TestFactorIntoMappedMatchesFactorInto: factorising a BSR3 matrix from
// its own values through CSRIndex gives bitwise the factor of its CSR copy
// (the same entries reach the same fronts in the same order: the same
// solutions bit for bit), and solves A x = b to rounding.
func TestFactorIntoMappedMatchesFactorInto(t *testing.T) {
	const n = 40 // block rows: a chain with second neighbours, 120 unknowns
	var pairs []int32
	for i := 0; i < n; i++ {
		for j := max(0, i-2); j <= min(n-1, i+2); j++ {
			pairs = append(pairs, int32(i), int32(j))
		}
	}
	a, err := NewBSR3(n, pairs)
	if err != nil {
		t.Fatal(err)
	}
	// Symmetric entries, diagonally dominant: SPD.
	entry := func(r, c int) float64 {
		if r == c {
			return 20 + math.Sin(float64(r))
		}
		return math.Cos(float64(r*c+r+c)) / 2
	}
	for i := 0; i < n; i++ {
		for p := a.RowPtr[i]; p < a.RowPtr[i+1]; p++ {
			j := int(a.Col[p])
			for r := 0; r < 3; r++ {
				for c := 0; c < 3; c++ {
					a.Val[9*int(p)+3*r+c] = entry(3*i+r, 3*j+c)
				}
			}
		}
	}
	csr := a.ToCSR()
	sym, err := Analyze(csr, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, got := &Cholesky{}, &Cholesky{}
	if err := sym.FactorInto(want, csr); err != nil {
		t.Fatal(err)
	}
	b := make([]float64, 3*n)
	for i := range b {
		b[i] = float64(i%7) - 3
	}
	xw, x := make([]float64, 3*n), make([]float64, 3*n)
	want.Solve(xw, b)
	idx := a.CSRIndex()
	for round := 0; round < 2; round++ { // the second reuses the composed map
		if err := sym.FactorIntoMapped(got, a.Val, idx); err != nil {
			t.Fatal(err)
		}
		// The factor's significant entries (not the unused upper
		// triangles of the pivot blocks) are compared through solves.
		got.Solve(x, b)
		for i := range x {
			if x[i] != xw[i] {
				t.Fatalf("round %d: x[%d] = %v, want %v (bitwise)", round, i, x[i], xw[i])
			}
		}
	}
	ax := make([]float64, 3*n)
	csr.MulVec(ax, x)
	var rn, bn float64
	for i := range b {
		rn += (ax[i] - b[i]) * (ax[i] - b[i])
		bn += b[i] * b[i]
	}
	// κ of this diagonally dominant matrix is ~2: the residual is a few ε.
	if r := math.Sqrt(rn / bn); !(r < 1e-14) {
		t.Errorf("relative residual %.3g, want < 1e-14", r)
	}
	if err := sym.FactorIntoMapped(got, a.Val, idx[1:]); err == nil {
		t.Errorf("FactorIntoMapped accepted %d indices for %d entries", len(idx)-1, len(idx))
	}
}
