package forcefield

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"regexp"
	"testing"
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
