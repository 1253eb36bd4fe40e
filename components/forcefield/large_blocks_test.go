package forcefield

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"regexp"
	"testing"

	"github.com/sofago/sofago/sparse"
)

// TestLargeBlocksGenerated: large_blocks_amd64.s is the output of
// large_blocks_gen.go as checked in (the kernel and its generator cannot
// drift apart).
func TestLargeBlocksGenerated(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the generator through the go command")
	}
	want, err := os.ReadFile("large_blocks_amd64.s")
	if err != nil {
		t.Fatal(err)
	}
	got, err := exec.Command("go", "run", "large_blocks_gen.go").Output()
	if err != nil {
		t.Fatalf("go run large_blocks_gen.go: %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("large_blocks_amd64.s is not the output of large_blocks_gen.go: run `go run large_blocks_gen.go > large_blocks_amd64.s`")
	}
}

// TestLargeTangentPattern: every entry of Â outside the generator's
// pattern of structural non-zeros is exactly zero, on the elements of a
// rotated, deformed mesh and on random caches (any U, U⁻¹, G, B), so the
// kernel, which skips the products with those entries, loses nothing.
func TestLargeTangentPattern(t *testing.T) {
	src, err := os.ReadFile("large_blocks_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	rows := regexp.MustCompile(`"([1.]{9})"`).FindAllSubmatch(src, -1)
	if len(rows) != 9 {
		t.Fatalf("%d pattern rows in large_blocks_gen.go, want 9", len(rows))
	}
	nz := 0
	check := func(what string, Ah *[81]float64) {
		for r := 0; r < 9; r++ {
			for c := 0; c < 9; c++ {
				if rows[r][1][c] == '.' && Ah[9*r+c] != 0 {
					t.Fatalf("%s: Â[%d][%d] = %g outside the pattern", what, r, c, Ah[9*r+c])
				}
			}
		}
	}
	for r := range rows {
		nz += bytes.Count(rows[r][1], []byte("1"))
	}
	_, ts, _ := loadBlockCase(t, blockCase{"FEM/large/exact", "TetrahedronFEMForceField",
		"method = \"large\"\n  youngModulus = 1e6\n  poissonRatio = 0.35"})
	mu, lam := ts.largeExact.mu, ts.largeExact.lambda
	for e := 0; e < ts.mesh.numElements(); e++ {
		var Ah [81]float64
		largeRotatedTangent(&Ah, ts.cache[strideLarge*e:strideLarge*e+strideLarge], mu, lam)
		check("mesh element", &Ah)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	cc := make([]float64, strideLarge)
	for it := 0; it < 1000; it++ {
		for i := range cc {
			cc[i] = 2*rng.Float64() - 1
		}
		var Ah [81]float64
		largeRotatedTangent(&Ah, cc, rng.Float64(), rng.Float64())
		check("random cache", &Ah)
	}
	t.Logf("%d structural non-zeros of 81", nz)
}

// TestLargeBlocks4MatchesScalar: the AVX kernel's element matrices are
// exactly (==) the scalar largeElementMatrix's, for every element of a
// rotated, deformed heterogeneous mesh, in groups of 1 to 4 starting
// anywhere (an element's blocks do not depend on its group). Both run
// the same operations in the same order; where the Go compiler fuses
// products and sums into FMA (GOAMD64=v3) the scalar code rounds
// differently, and the bound is then 4 units in the last place of the
// element's largest entry.
func TestLargeBlocks4MatchesScalar(t *testing.T) {
	if !useLargeAVX {
		t.Skip("no AVX")
	}
	_, ts, _ := loadBlockCase(t, blockCase{"FEM/large/exact", "TetrahedronFEMForceField",
		"method = \"large\"\n  youngModulus = 1e6\n  poissonRatio = 0.35"})
	ne := ts.mesh.numElements()
	var g largeGroup
	var ref [144]float64
	const kf = -0.7
	checked := 0
	for _, start := range []int{0, 1, 2, 3} {
		for n := 1; n <= 4; n++ {
			for e0 := start; e0+n <= ne; e0 += n {
				ts.largeBlocksGroup(&g, e0, n, kf)
				for l := 0; l < n; l++ {
					ts.largeElementMatrix(e0+l, kf, ref[:])
					scale := 0.0
					for _, v := range ref {
						scale = math.Max(scale, math.Abs(v))
					}
					tol := 0.0
					if goFusesMultiplyAdd {
						tol = 4 * 0x1p-52 * scale
					}
					for j, want := range ref {
						if got := g.v[4*(largeSlotOut+j)+l]; !(math.Abs(got-want) <= tol) {
							t.Fatalf("element %d (group at %d of %d) entry %d: kernel %v, scalar %v", e0+l, e0, n, j, got, want)
						}
					}
					checked++
				}
			}
		}
	}
	t.Logf("%d element matrices of %d elements compared", checked, ne)
}

// TestLargeForces4MatchesScalar: the AVX force pass of method "large"
// (largeForceRange) leaves exactly (==) the scalar forceRange's element
// caches and corner forces, on a rotated, deformed heterogeneous mesh in
// which one element is collapsed to a point (F = 0: its pivots fail and
// the scalar code redoes it), over ranges starting and ending anywhere.
// Under FMA fusing by the compiler (goFusesMultiplyAdd) the bound is
// relative to the largest entry of each quantity: 16 units in the last
// place for R, U and U⁻¹ (measured 2.6); 1e-13 for G, B and the forces,
// because G = 2μ(U − I) + … cancels: a last-bit change of U ≈ I moves G
// by it over the strain (measured G 1.9e-14, B 4.0e-14, forces 1.2e-14).
func TestLargeForces4MatchesScalar(t *testing.T) {
	if !useLargeAVX {
		t.Skip("no AVX")
	}
	_, ts, x := loadBlockCase(t, blockCase{"FEM/large/exact", "TetrahedronFEMForceField",
		"method = \"large\"\n  youngModulus = 1e6\n  poissonRatio = 0.35"})
	ne := ts.mesh.numElements()
	const collapsed = 37
	ix := ts.mesh.idx[4*collapsed : 4*collapsed+4]
	for _, p := range ix[1:] {
		copy(x[3*p:3*p+3], x[3*ix[0]:3*ix[0]+3])
	}
	ts.argX = x
	defer func() { ts.argX, useLargeAVX = nil, true }()
	useLargeAVX = false
	ts.forceRange(0, ne)
	wantCache := append([]float64(nil), ts.cache...)
	wantElem := append([]float64(nil), ts.elem...)
	if u := wantCache[strideLarge*collapsed+9]; u > minPivot {
		t.Fatalf("collapsed element: U₀₀ = %g, want the minPivot branch", u)
	}
	useLargeAVX = true
	for _, r := range [][2]int{{0, ne}, {1, ne}, {3, ne - 2}, {collapsed - 1, collapsed + 1}} {
		clear(ts.cache)
		clear(ts.elem)
		ts.forceRange(r[0], r[1])
		for e := r[0]; e < r[1]; e++ {
			gc, wc := ts.cache[strideLarge*e:strideLarge*e+strideLarge], wantCache[strideLarge*e:strideLarge*e+strideLarge]
			const ulp16, cancel = 16 * 0x1p-52, 1e-13
			for _, c := range []struct {
				name      string
				got, want []float64
				rel       float64
			}{
				{"R", gc[:9], wc[:9], ulp16}, {"U", gc[9:15], wc[9:15], ulp16}, {"U⁻¹", gc[15:18], wc[15:18], ulp16},
				{"G", gc[18:24], wc[18:24], cancel}, {"B", gc[24:27], wc[24:27], cancel},
				{"forces", ts.elem[12*e : 12*e+12], wantElem[12*e : 12*e+12], cancel},
			} {
				tol := 0.0
				if goFusesMultiplyAdd {
					for _, v := range c.want {
						tol = math.Max(tol, c.rel*math.Abs(v))
					}
				}
				for i := range c.want {
					if !(math.Abs(c.got[i]-c.want[i]) <= tol) {
						t.Fatalf("range %v element %d %s[%d]: kernel %v, scalar %v", r, e, c.name, i, c.got[i], c.want[i])
					}
				}
			}
		}
	}
}

// TestLargeAddKBlocksMatchesScalar: AddKBlocks through the AVX kernel and
// addBlocks adds exactly (==) what the scalar path adds, into a matrix
// that already holds values (the adds accumulate, block by block, in
// element order), and KBlocks writes exactly the scalar blocks.
func TestLargeAddKBlocksMatchesScalar(t *testing.T) {
	if !useLargeAVX {
		t.Skip("no AVX")
	}
	_, ts, x := loadBlockCase(t, blockCase{"FEM/large/exact", "TetrahedronFEMForceField",
		"method = \"large\"\n  youngModulus = 1e6\n  poissonRatio = 0.35"})
	defer func() { useLargeAVX = true; ts.asm.setWorkers(0) }()
	ts.asm.setWorkers(1)
	as, err := sparse.NewBSR3Assembly(len(x)/3, [][]int32{ts.StiffnessBlocks()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	pos := as.Positions(0)
	run := func(avx bool) ([]float64, []float64) {
		useLargeAVX = avx
		dst := make([]float64, len(as.A.Val))
		for i := range dst {
			dst[i] = float64(i%7) - 3 // values already there
		}
		if !ts.AddKBlocks(dst, pos, -1.5) {
			t.Fatal("AddKBlocks declined on one worker")
		}
		vals := make([]float64, 144*ts.mesh.numElements())
		ts.KBlocks(vals, -1.5)
		return dst, vals
	}
	wantDst, wantVals := run(false)
	gotDst, gotVals := run(true)
	// Exact, unless the compiler fuses the scalar code's multiply-adds:
	// then 64 units in the last place of the largest block entry, for the
	// sums of the few blocks each matrix value gathers (each within 4 of
	// its element's largest entry, TestLargeBlocks4MatchesScalar; measured
	// 14.7 for AddKBlocks, 1.8 for KBlocks).
	tol := 0.0
	if goFusesMultiplyAdd {
		for _, v := range wantVals {
			tol = math.Max(tol, 64*0x1p-52*math.Abs(v))
		}
	}
	for i := range wantDst {
		if !(math.Abs(gotDst[i]-wantDst[i]) <= tol) {
			t.Fatalf("AddKBlocks value %d: AVX %v, scalar %v", i, gotDst[i], wantDst[i])
		}
	}
	for i := range wantVals {
		if !(math.Abs(gotVals[i]-wantVals[i]) <= tol) {
			t.Fatalf("KBlocks value %d: AVX %v, scalar %v", i, gotVals[i], wantVals[i])
		}
	}
}

// TestLargeDForces4MatchesScalar: the AVX force differentials of method
// "large" (largeDForceRange, AddDForce's element pass) are exactly (==)
// the scalar dforceRange's, for a random displacement on a rotated,
// deformed heterogeneous mesh, over ranges starting and ending anywhere
// (16 units in the last place of the element's largest force where the
// compiler fuses multiply-adds: the differential is linear in dx and
// does not cancel like G; measured 3.7).
func TestLargeDForces4MatchesScalar(t *testing.T) {
	if !useLargeAVX {
		t.Skip("no AVX")
	}
	_, ts, x := loadBlockCase(t, blockCase{"FEM/large/exact", "TetrahedronFEMForceField",
		"method = \"large\"\n  youngModulus = 1e6\n  poissonRatio = 0.35"})
	ne := ts.mesh.numElements()
	rng := rand.New(rand.NewPCG(5, 6))
	dx := make([]float64, len(x))
	for i := range dx {
		dx[i] = 2*rng.Float64() - 1
	}
	ts.argX, ts.argK = dx, -0.37
	defer func() { ts.argX, useLargeAVX = nil, true }()
	useLargeAVX = false
	ts.dforceRange(0, ne)
	want := append([]float64(nil), ts.elem...)
	useLargeAVX = true
	for _, r := range [][2]int{{0, ne}, {1, ne}, {3, ne - 2}, {5, 6}} {
		clear(ts.elem)
		ts.dforceRange(r[0], r[1])
		for e := r[0]; e < r[1]; e++ {
			got, w := ts.elem[12*e:12*e+12], want[12*e:12*e+12]
			tol := 0.0
			if goFusesMultiplyAdd {
				for _, v := range w {
					tol = math.Max(tol, 16*0x1p-52*math.Abs(v))
				}
			}
			for i := range w {
				if !(math.Abs(got[i]-w[i]) <= tol) {
					t.Fatalf("range %v element %d force %d: kernel %v, scalar %v", r, e, i, got[i], w[i])
				}
			}
		}
	}
}

// BenchmarkLargeElementMatrices: the element matrices of method "large"
// (kernel and its inputs) of the 648-tetrahedron block-test mesh, per
// pass, through the AVX kernel and through the scalar largeElementMatrix.
func BenchmarkLargeElementMatrices(b *testing.B) {
	_, ts, _ := loadBlockCase(b, blockCase{"FEM/large/exact", "TetrahedronFEMForceField",
		"method = \"large\"\n  youngModulus = 1e6\n  poissonRatio = 0.35"})
	ne := ts.mesh.numElements()
	b.Run("avx", func(b *testing.B) {
		if !useLargeAVX {
			b.Skip("no AVX")
		}
		var g largeGroup
		for b.Loop() {
			for e0 := 0; e0 < ne; e0 += 4 {
				ts.largeBlocksGroup(&g, e0, min(4, ne-e0), 1)
			}
		}
	})
	b.Run("scalar", func(b *testing.B) {
		var out [144]float64
		for b.Loop() {
			for e := 0; e < ne; e++ {
				ts.largeElementMatrix(e, 1, out[:])
			}
		}
	})
}
