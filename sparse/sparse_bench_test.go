package sparse

import (
	"fmt"
	"testing"
)

// gridCoords returns the vertex coordinates of grid3D's rows.
func gridCoords(nx, ny, nz int) []float64 {
	c := make([]float64, 9*nx*ny*nz)
	for v := 0; v < nx*ny*nz; v++ {
		i, j, k := v%nx, (v/nx)%ny, v/(nx*ny)
		for d := 0; d < 3; d++ {
			c[3*(3*v+d)], c[3*(3*v+d)+1], c[3*(3*v+d)+2] = float64(i), float64(j), float64(k)
		}
	}
	return c
}

// BenchmarkOrdering: minimum degree and nested dissection of a 15³-vertex
// grid (10,125 DOFs with 27-point vertex coupling).
func BenchmarkOrdering(b *testing.B) {
	a := grid3D(15, 15, 15)
	coords := gridCoords(15, 15, 15)
	b.Run("MinimumDegree", func(b *testing.B) {
		for b.Loop() {
			MinimumDegree(a)
		}
	})
	b.Run("NestedDissection", func(b *testing.B) {
		for b.Loop() {
			if _, err := NestedDissection(a, coords); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkSolve: one solve against a block of 8 with the same factor
// (nested dissection of a 15³-vertex grid).
func BenchmarkSolve(b *testing.B) {
	a := grid3D(15, 15, 15)
	p, err := NestedDissection(a, gridCoords(15, 15, 15))
	if err != nil {
		b.Fatal(err)
	}
	s, err := Analyze(a, p)
	if err != nil {
		b.Fatal(err)
	}
	c, err := s.Factor(a)
	if err != nil {
		b.Fatal(err)
	}
	n := a.Rows
	B := make([][]float64, 8)
	X := make([][]float64, 8)
	for j := range B {
		B[j], X[j] = make([]float64, n), make([]float64, n)
		for i := range B[j] {
			B[j][i] = float64((i+j)%7) - 3
		}
	}
	b.Run("factor", func(b *testing.B) {
		for b.Loop() {
			if _, err := s.Factor(a); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(s.Flops()/1e9, "Gflop")
	})
	b.Run("single", func(b *testing.B) {
		for b.Loop() {
			c.Solve(X[0], B[0])
		}
	})
	for _, nb := range []int{2, 8} {
		b.Run(fmt.Sprintf("many%d", nb), func(b *testing.B) {
			for b.Loop() {
				c.SolveMany(X[:nb], B[:nb])
			}
		})
	}
}
