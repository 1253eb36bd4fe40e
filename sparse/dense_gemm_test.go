package sparse

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestDenseGemmSub compares DenseGemmSub (AVX2 kernel when present, and
// the scalar loops) with a triple loop on shapes with kernel blocks and
// edges, strided A and offset B and C: 1e-14 of the result's scale (the
// kernel sums in another order, with fused multiply-adds).
func TestDenseGemmSub(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	saved := useAVX2
	defer func() { useAVX2 = saved }()
	for _, avx := range []bool{false, saved} {
		useAVX2 = avx
		for _, sh := range [][3]int{{12, 36, 12}, {4, 8, 1}, {30, 44, 12}, {3, 5, 7}, {12, 100, 12}} {
			m, n, k := sh[0], sh[1], sh[2]
			ars, ats := 1, m+3 // A column-major in a wider buffer
			a := make([]float64, (k-1)*ats+(m-1)*ars+1)
			ldb, ldc := n+5, n+2
			b := make([]float64, k*ldb)
			c := make([]float64, m*ldc)
			for _, v := range [][]float64{a, b, c} {
				for i := range v {
					v[i] = 2*rng.Float64() - 1
				}
			}
			want := append([]float64(nil), c...)
			for i := 0; i < m; i++ {
				for j := 0; j < n; j++ {
					for p := 0; p < k; p++ {
						want[i*ldc+j] -= a[i*ars+p*ats] * b[p*ldb+j]
					}
				}
			}
			DenseGemmSub(m, n, k, a, ars, ats, b, ldb, c, ldc)
			for i := range c {
				if d := math.Abs(c[i] - want[i]); d > 1e-14*float64(k+1) {
					t.Fatalf("AVX2 %v, %d×%d×%d: entry %d differs by %.3g", avx, m, n, k, i, d)
				}
			}
		}
	}
}
