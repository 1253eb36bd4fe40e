package sparse

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// TestPanelKernelsMatchBLAS checks the factorisation's dense kernels,
// with the AVX2 micro-kernels and with the portable loops, against
// gonum's BLAS and LAPACK on sizes around the 4×8 blocking (edges in
// both directions, one column, typical panel sizes): panelFactor against
// Potrf of the diagonal block and Trsm of the rows below, syrkUpperT
// against Syrk. The same sums in other orders (with fused multiply-adds),
// so 1e-13 relative to the operands' scale (|terms| ≤ ~k, rounding ~k·ε;
// the panels are well conditioned: diagonally dominant). The entries the
// kernels must not touch (all but the entries of the panel's rows
// below its columns, and up to three rows above each block of four
// columns) are checked unchanged.
func TestPanelKernelsMatchBLAS(t *testing.T) {
	modes := []bool{false}
	if useAVX2 {
		modes = append(modes, true)
	}
	defer func(v bool) { useAVX2 = v }(useAVX2)
	rng := rand.New(rand.NewPCG(3, 4))
	for _, avx := range modes {
		useAVX2 = avx
		for _, sz := range [][2]int{{1, 1}, {4, 1}, {8, 3}, {9, 5}, {12, 4}, {13, 7}, {27, 30}, {37, 12}, {45, 15}, {132, 45}} {
			nu, k := sz[0], sz[1]
			// syrkUpperT: C = WᵀW above the diagonal, W k×nu with
			// padding after it (read, not used).
			ldw := nu + 1
			W := make([]float64, k*ldw+syrkPad)
			for i := range W {
				W[i] = rng.NormFloat64()
			}
			ldc := nu + syrkPad
			C := make([]float64, (nu+3)*ldc)
			syrkUpperT(C, ldc, W, ldw, nu, k)
			want := make([]float64, nu*nu)
			blas64.Syrk(blas.Trans, 1, blas64.General{Rows: k, Cols: nu, Stride: ldw, Data: W}, 0,
				blas64.Symmetric{Uplo: blas.Upper, N: nu, Stride: nu, Data: want})
			for i := 0; i < nu; i++ {
				for j := i; j < nu; j++ {
					if d := math.Abs(C[i*ldc+j] - want[i*nu+j]); d > 1e-13*float64(k+1) {
						t.Fatalf("avx2=%v syrk nu=%d k=%d: entry (%d, %d) = %v, want %v", avx, nu, k, i, j, C[i*ldc+j], want[i*nu+j])
					}
				}
			}
			// panelFactor on an nr×ns column-major panel of an SPD
			// matrix (nr = ns + nu rows).
			ns, nr := k, k+nu
			full := make([]float64, nr*nr) // row-major SPD: G Gᵀ/nr + 2I
			g := make([]float64, nr*nr)
			for i := range g {
				g[i] = rng.NormFloat64()
			}
			blas64.Syrk(blas.NoTrans, 1/float64(nr), blas64.General{Rows: nr, Cols: nr, Stride: nr, Data: g}, 0,
				blas64.Symmetric{Uplo: blas.Lower, N: nr, Stride: nr, Data: full})
			for i := 0; i < nr; i++ {
				full[i*nr+i] += 2
			}
			P := make([]float64, nr*ns)
			for c := 0; c < ns; c++ {
				for i := 0; i < nr; i++ {
					P[c*nr+i] = full[i*nr+c] // lower triangle; above it stays 0
				}
			}
			orig := append([]float64(nil), P...)
			dinv := make([]float64, ns)
			if col, d := panelFactor(P, nr, ns, dinv); col >= 0 {
				t.Fatalf("avx2=%v panel %d×%d: pivot %d = %g", avx, nr, ns, col, d)
			}
			ref := append([]float64(nil), full...) // row-major: L₁₁ by Potrf, L₂₁ = A₂₁L₁₁⁻ᵀ
			if _, ok := lapack64.Potrf(blas64.Symmetric{Uplo: blas.Lower, N: ns, Stride: nr, Data: ref}); !ok {
				t.Fatal("gonum: not positive definite")
			}
			if nu > 0 {
				blas64.Trsm(blas.Right, blas.Trans, 1, blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: ns, Stride: nr, Data: ref},
					blas64.General{Rows: nu, Cols: ns, Stride: nr, Data: ref[ns*nr:]})
			}
			for c := 0; c < ns; c++ {
				if d := math.Abs(dinv[c]*P[c*nr+c] - 1); d > 1e-15 {
					t.Fatalf("avx2=%v panel %d×%d: dinv[%d]·L = 1%+g", avx, nr, ns, c, d)
				}
				for i := 0; i < nr; i++ {
					if i < c {
						// The block of column c starts at t0; the
						// kernels may write rows t0−3..c−1 only.
						t0 := 0
						if c >= ns%4 {
							t0 = ns%4 + (c-ns%4)/4*4
						}
						if i < t0-3 && P[c*nr+i] != orig[c*nr+i] {
							t.Fatalf("avx2=%v panel %d×%d: entry (%d, %d) above the diagonal written", avx, nr, ns, i, c)
						}
						continue
					}
					if d := math.Abs(P[c*nr+i] - ref[i*nr+c]); d > 1e-13*float64(ns+1) {
						t.Fatalf("avx2=%v panel %d×%d: L(%d, %d) = %v, want %v", avx, nr, ns, i, c, P[c*nr+i], ref[i*nr+c])
					}
				}
			}
		}
	}
}

// TestFactorAVX2MatchesPortable factorises a grid stiffness with the
// AVX2 kernels and with the portable loops: the factors agree to
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
	// The entries of L: in supernode k (nr×ns column-major), row i,
	// columns j ≤ i (above the diagonal of the pivot block is unused
	// storage).
	for k := 0; k+1 < len(sym.super); k++ {
		ns := sym.super[k+1] - sym.super[k]
		nr := sym.sptr[k+1] - sym.sptr[k]
		l1 := fast.l[sym.lptr[k]:sym.lptr[k+1]]
		l2 := slow.l[sym.lptr[k]:sym.lptr[k+1]]
		for i := 0; i < nr; i++ {
			for j := 0; j < min(i+1, ns); j++ {
				if d := math.Abs(l1[j*nr+i] - l2[j*nr+i]); d > 1e-12*scale {
					t.Fatalf("supernode %d, entry (%d, %d): AVX2 %v, portable %v", k, i, j, l1[j*nr+i], l2[j*nr+i])
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

// TestGemvKernelsMatchNaive checks the matrix-vector kernels of the
// triangular solves (gemvNSub: y −= A·x, gemvTSub: x −= Aᵀ·w, A
// column-major with a stride larger than its rows), with the AVX2
// kernels and with the portable loops, against plain double loops on
// sizes around the blocking by four (rows and columns): the same sums in
// other orders, 1e-14 relative to |A||x| (at most a few tens of terms of
// magnitude ~1). Entries outside y's and x's ranges stay unchanged.
func TestGemvKernelsMatchNaive(t *testing.T) {
	modes := []bool{false}
	if useAVX2 {
		modes = append(modes, true)
	}
	defer func(v bool) { useAVX2 = v }(useAVX2)
	rng := rand.New(rand.NewPCG(9, 10))
	for _, avx := range modes {
		useAVX2 = avx
		for _, sz := range [][2]int{{1, 1}, {3, 2}, {4, 1}, {4, 4}, {5, 3}, {8, 7}, {13, 9}, {36, 15}, {37, 39}} {
			m, k := sz[0], sz[1]
			lda := m + 2
			A := make([]float64, k*lda)
			for i := range A {
				A[i] = rng.NormFloat64()
			}
			x := make([]float64, k+1)
			w := make([]float64, m+1)
			for i := range x {
				x[i] = rng.NormFloat64()
			}
			for i := range w {
				w[i] = rng.NormFloat64()
			}
			y := append([]float64(nil), w...)
			gemvNSub(m, k, A, lda, x, y)
			for i := 0; i <= m; i++ {
				want := w[i]
				if i < m {
					for tt := 0; tt < k; tt++ {
						want -= x[tt] * A[tt*lda+i]
					}
				}
				if d := math.Abs(y[i] - want); d > 1e-14*float64(k+1) || (i == m && y[i] != w[i]) {
					t.Fatalf("avx2=%v gemvN %d×%d: y[%d] = %v, want %v", avx, m, k, i, y[i], want)
				}
			}
			z := append([]float64(nil), x...)
			gemvTSub(m, k, A, lda, w, z)
			for tt := 0; tt <= k; tt++ {
				want := x[tt]
				if tt < k {
					for i := 0; i < m; i++ {
						want -= A[tt*lda+i] * w[i]
					}
				}
				if d := math.Abs(z[tt] - want); d > 1e-14*float64(m+1) || (tt == k && z[tt] != x[tt]) {
					t.Fatalf("avx2=%v gemvT %d×%d: x[%d] = %v, want %v", avx, m, k, tt, z[tt], want)
				}
			}
		}
	}
}
