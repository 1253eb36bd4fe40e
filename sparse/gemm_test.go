package sparse

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestAVX2KernelsMatchNaive checks the transposed-panel kernels (the
// AVX2 micro-kernel and its scalar edges) against plain triple loops on
// sizes around the 4×8 blocking (edges in both directions, k = 1) and
// typical front sizes: the same sums in another order with fused
// multiply-adds, so 1e-13 relative to the operands' scale (|terms| ≤ ~k,
// rounding ~k·ε). Entries of C above the diagonal are ignored (the
// kernels may write them); everything else must be untouched.
func TestAVX2KernelsMatchNaive(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2 + FMA on this machine: the portable kernels are in use")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, sz := range [][2]int{{1, 1}, {4, 1}, {8, 3}, {9, 5}, {12, 4}, {13, 7}, {27, 30}, {37, 12}, {132, 45}} {
		nu, k := sz[0], sz[1]
		ldw, ldc := nu+1, nu+3
		W := make([]float64, k*ldw)
		for i := range W {
			W[i] = rng.NormFloat64()
		}
		C := make([]float64, nu*ldc)
		for i := range C {
			C[i] = rng.NormFloat64()
		}
		got := append([]float64(nil), C...)
		syrkSubLowerT(got, ldc, W, ldw, nu, k)
		for i := 0; i < nu; i++ {
			for j := 0; j < ldc; j++ {
				want := C[i*ldc+j]
				if j <= i {
					for t := 0; t < k; t++ {
						want -= W[t*ldw+i] * W[t*ldw+j]
					}
				} else if j < nu {
					continue // above the diagonal: free
				}
				if d := math.Abs(got[i*ldc+j] - want); d > 1e-13*float64(k+1) {
					t.Fatalf("syrk nu=%d k=%d: entry (%d, %d) = %v, want %v", nu, k, i, j, got[i*ldc+j], want)
				}
			}
		}
		// Triangular solve L·X = W with L well conditioned.
		ns := k
		ldl := ns + 2
		L := make([]float64, ns*ldl)
		for i := 0; i < ns; i++ {
			for j := 0; j < i; j++ {
				L[i*ldl+j] = 0.3 * rng.NormFloat64()
			}
			L[i*ldl+i] = 2 + rng.Float64()
		}
		X := append([]float64(nil), W...)
		trsmLeftLowerT(X, ldw, L, ldl, ns, nu)
		// Residual L·X − W, entry by entry.
		for tt := 0; tt < ns; tt++ {
			for j := 0; j < nu; j++ {
				s := 0.0
				for q := 0; q <= tt; q++ {
					s += L[tt*ldl+q] * X[q*ldw+j]
				}
				if d := math.Abs(s - W[tt*ldw+j]); d > 1e-13*float64(ns+1) {
					t.Fatalf("trsm ns=%d nu=%d: residual %g at (%d, %d)", ns, nu, d, tt, j)
				}
			}
		}
	}
}

// TestFactorAVX2MatchesPortable factorises a grid stiffness with the
// AVX2 kernels and with the portable 2×2 ones: the factors agree to
// rounding (1e-12 relative to the largest entry: a few hundred
// operations per entry, condition of the leading blocks ~10), and the
// solutions of both to 1e-12 relative.
func TestFactorAVX2MatchesPortable(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2 + FMA on this machine")
	}
	a := grid3D(12, 5, 4)
	sym, err := Analyze(a, nil)
	if err != nil {
		t.Fatal(err)
	}
	fast, err := sym.Factor(a)
	if err != nil {
		t.Fatal(err)
	}
	useAVX2 = false
	slow, err := sym.Factor(a)
	useAVX2 = true
	if err != nil {
		t.Fatal(err)
	}
	scale := 0.0
	for _, v := range slow.l {
		scale = math.Max(scale, math.Abs(v))
	}
	// The entries of L: in supernode k (nr×ns row-major), row i, columns
	// j ≤ i (above the diagonal of the pivot block is unused storage).
	for k := 0; k+1 < len(sym.super); k++ {
		ns := sym.super[k+1] - sym.super[k]
		nr := sym.sptr[k+1] - sym.sptr[k]
		l1 := fast.l[sym.lptr[k]:sym.lptr[k+1]]
		l2 := slow.l[sym.lptr[k]:sym.lptr[k+1]]
		for i := 0; i < nr; i++ {
			for j := 0; j < min(i+1, ns); j++ {
				if d := math.Abs(l1[i*ns+j] - l2[i*ns+j]); d > 1e-12*scale {
					t.Fatalf("supernode %d, entry (%d, %d): AVX2 %v, portable %v", k, i, j, l1[i*ns+j], l2[i*ns+j])
				}
			}
		}
	}
	b := make([]float64, a.Rows)
	for i := range b {
		b[i] = float64(i%7) - 3
	}
	x1, x2 := make([]float64, a.Rows), make([]float64, a.Rows)
	fast.Solve(x1, b)
	slow.Solve(x2, b)
	xs := 0.0
	for _, v := range x2 {
		xs = math.Max(xs, math.Abs(v))
	}
	for i := range x1 {
		if d := math.Abs(x1[i] - x2[i]); d > 1e-12*xs {
			t.Fatalf("solution %d: AVX2 %v, portable %v", i, x1[i], x2[i])
		}
	}
}
