package sparse

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sofago/sofago/parallel"
)

// randomSources returns block lists of random element-like sources (k
// random distinct points per element, all k² pairs) over n points.
func randomSources(rng *rand.Rand, n, sources, elems, k int) [][]int32 {
	out := make([][]int32, sources)
	for s := range out {
		for e := 0; e < elems; e++ {
			pts := rng.Perm(n)[:k]
			for _, a := range pts {
				for _, b := range pts {
					out[s] = append(out[s], int32(a), int32(b))
				}
			}
		}
	}
	return out
}

// TestBSR3AssemblyMatchesBuilder assembles random sources of 3×3 blocks
// both through BSR3Assembly and entry by entry through Builder (an
// independent sort-and-sum), and compares the matrices, their products
// with a random vector, and the scalar CSR form. The sums are taken in the
// same order (source by source, in list order), so they agree exactly.
func TestBSR3AssemblyMatchesBuilder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 300
	srcs := randomSources(rng, n, 3, 400, 4)
	extra := []int32{5, 200, 200, 5}
	as, err := NewBSR3Assembly(n, srcs, extra)
	if err != nil {
		t.Fatal(err)
	}
	b := NewBuilder(3*n, 3*n)
	for s, list := range srcs {
		v := as.Source(s)
		for q := 0; q < len(list); q += 2 {
			for e := 0; e < 9; e++ {
				x := rng.Float64()*2 - 1
				v[9*(q/2)+e] = x
				b.Add(3*int(list[q])+e/3, 3*int(list[q+1])+e%3, x)
			}
		}
	}
	as.Gather(nil)
	A := as.A
	if err := A.Check(); err != nil {
		t.Fatal(err)
	}
	if k := A.Find(5, 200); k < 0 {
		t.Error("extra block (5, 200) missing")
	}
	for i := 0; i < n; i++ {
		if A.Find(i, i) < 0 {
			t.Fatalf("diagonal block %d missing", i)
		}
	}
	B, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	for r := 0; r < 3*n; r++ {
		for q := B.RowPtr[r]; q < B.RowPtr[r+1]; q++ {
			if got := A.At(r, B.Col[q]); got != B.Val[q] {
				t.Fatalf("entry (%d, %d): BSR3 %v, Builder %v", r, B.Col[q], got, B.Val[q])
			}
		}
	}
	x := make([]float64, 3*n)
	for i := range x {
		x[i] = rng.Float64()*2 - 1
	}
	y1, y2, y3 := make([]float64, 3*n), make([]float64, 3*n), make([]float64, 3*n)
	A.MulVec(y1, x)
	B.MulVec(y2, x)
	C := A.ToCSR()
	if err := C.Check(); err != nil {
		t.Fatal(err)
	}
	C.MulVec(y3, x)
	// ToCSR holds every entry of every block (the extra and unfilled
	// diagonal blocks as zeros): each equals A's and Builder's entry.
	for r := 0; r < 3*n; r++ {
		for q := C.RowPtr[r]; q < C.RowPtr[r+1]; q++ {
			if c := C.Col[q]; C.Val[q] != A.At(r, c) || C.Val[q] != B.At(r, c) {
				t.Fatalf("ToCSR entry (%d, %d) = %v; BSR3 %v, Builder %v", r, c, C.Val[q], A.At(r, c), B.At(r, c))
			}
		}
	}
	for i := range y1 {
		// The block product groups each block's three terms before
		// adding them to the row sum, CSR adds term by term: ~50 terms
		// of size ≤ 1 per row, rounding ≤ 50·1e-16.
		if math.Abs(y1[i]-y2[i]) > 1e-13 || y2[i] != y3[i] {
			t.Fatalf("row %d: BSR3 %v, Builder CSR %v, ToCSR %v", i, y1[i], y2[i], y3[i])
		}
	}
}

// TestBSR3GatherDeterministic: Gather on 1, 2 and 3 workers gives the
// same values bit for bit.
func TestBSR3GatherDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n = 2000
	as, err := NewBSR3Assembly(n, randomSources(rng, n, 2, 3000, 4), nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range as.Vals {
		as.Vals[i] = rng.NormFloat64()
	}
	var ref []float64
	for _, w := range []int{1, 2, 3} {
		as.Gather(&parallel.Runner{Workers: w})
		if ref == nil {
			ref = append([]float64(nil), as.A.Val...)
			continue
		}
		for i := range ref {
			if ref[i] != as.A.Val[i] {
				t.Fatalf("%d workers: value %d differs", w, i)
			}
		}
	}
}

// TestBSR3Errors: out-of-range blocks and odd pair lists are errors.
func TestBSR3Errors(t *testing.T) {
	if _, err := NewBSR3(3, []int32{0, 3}); err == nil {
		t.Error("block (0, 3) of a 3×3-block matrix accepted")
	}
	if _, err := NewBSR3(3, []int32{0}); err == nil {
		t.Error("odd pair list accepted")
	}
}

// gridBSR3 returns a BSR3 with the graph of a Kuhn-split grid of
// nx×ny×nz points (each point coupled to itself and its 14 Freudenthal
// neighbours), random values.
func gridBSR3(nx, ny, nz int) *BSR3 {
	id := func(i, j, k int) int32 { return int32((k*ny+j)*nx + i) }
	off := [][3]int{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 0}, {1, 0, 1}, {0, 1, 1}, {1, 1, 1}}
	var pairs []int32
	for k := 0; k < nz; k++ {
		for j := 0; j < ny; j++ {
			for i := 0; i < nx; i++ {
				for _, o := range off {
					for _, s := range []int{1, -1} {
						a, b, c := i+s*o[0], j+s*o[1], k+s*o[2]
						if a >= 0 && a < nx && b >= 0 && b < ny && c >= 0 && c < nz {
							pairs = append(pairs, id(i, j, k), id(a, b, c))
						}
					}
				}
			}
		}
	}
	A, _ := NewBSR3(nx*ny*nz, pairs)
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range A.Val {
		A.Val[i] = rng.NormFloat64()
	}
	return A
}

// BenchmarkBSR3MulVec is one product with the 105×5×5-point grid (the
// 9,984-tetrahedron beam's pattern), serial; per block.
func BenchmarkBSR3MulVec(b *testing.B) {
	A := gridBSR3(105, 5, 5)
	x, y := make([]float64, 3*A.N), make([]float64, 3*A.N)
	for i := range x {
		x[i] = float64(i%13) - 6
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		A.MulVec(y, x)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(A.Blocks()), "ns/block")
	b.ReportMetric(float64(A.Blocks()), "blocks")
}
