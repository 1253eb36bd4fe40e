package validation

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

// Where the mixed scene's error sits (issue 17): its tip deflection split
// into the part carried by the block and the plate — the plate end's
// deflection plus its slope times the rod's length, the rod carried
// rigidly — and the rod's own bending on top of it. The slope is the
// difference quotient of the deflections at x = 0.49 and 0.5 m on the
// axis (the same two points in the FEM and the meshfree model, so the
// split is the same operation on both).

// mixedSplit returns the block-and-plate part and the rod part of the tip
// deflection from the deflections at the tip, at the plate end (0.5, 0, 0)
// and at (0.49, 0, 0).
func mixedSplit(tip, end, before float64) (plate, rod float64) {
	plate = end + (end-before)/0.01*0.4
	return plate, tip - plate
}

// mixedSplitReference returns the hexahedral FEM's tip deflection and its
// split (mixedSplit), each Richardson-extrapolated in dx² from dx = 5 and
// 2.5 mm as mixedHexReference does.
func mixedSplitReference(t testing.TB, P float64) (tip, plate, rod float64) {
	at := []geom.Vec3{{0.5, 0, 0}, {0.49, 0, 0}}
	c, _ := mixedHexDeflectionAt(t, P, 0.005, 2, 0.01, at)
	f, _ := mixedHexDeflectionAt(t, P, 0.0025, 2, 0.005, at)
	var r [3]float64
	for i := range r {
		r[i] = 3 / (4/f[i] - 1/c[i])
	}
	plate, rod = mixedSplit(r[0], r[1], r[2])
	return r[0], plate, rod
}

// mixedDenseRodPoints is mixedPoints with the rod sampled by n material
// points instead of 40 (same radius and volume), so that it can carry
// more nodes and elastons.
func mixedDenseRodPoints(n int) string {
	var b strings.Builder
	b.WriteString(strings.Split(mixedPoints(), "# rod")[0])
	fmt.Fprintf(&b, "# rod: radius 0.005 m, t = √3 r, %d points\n", n)
	r := 0.005
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "%.5f 0 0 %.6g %.6g\n", 0.5+0.4*(float64(i)+0.5)/float64(n), math.Pi*r*r*0.4/float64(n), math.Sqrt(3)*r)
	}
	return b.String()
}

// mixedNodes replaces the scene's nodeCount and fixedNodes (its 30 rod
// nodes) by n nodes of which the given ones are fixed (none: all by Lloyd
// iterations).
func mixedNodes(t testing.TB, src string, n int, fixed []string) string {
	t.Helper()
	i := strings.Index(src, "  nodeCount = 120\n  fixedNodes = [")
	if i < 0 {
		t.Fatal("scenes/meshfree_mixed.toml: no nodeCount = 120 followed by fixedNodes")
	}
	j := i + strings.Index(src[i:], "]]\n") + 3
	lines := fmt.Sprintf("  nodeCount = %d\n", n)
	if len(fixed) > 0 {
		lines += "  fixedNodes = [" + strings.Join(fixed, ", ") + "]\n"
	}
	return src[:i] + lines + src[j:]
}

// mixedSplitRun solves scenes/meshfree_mixed.toml under P with the edits
// given and returns the tip deflection, its split and the number of
// nodes on the rod (x > 0.5).
func mixedSplitRun(t *testing.T, P float64, edit func(string) string) (tip, plate, rod float64, rodNodes int) {
	s := loadFramesScene(t, "../scenes/meshfree_mixed.toml", func(src string) string {
		src = edit(src)
		src = framesReplaceOnce(t, src, "[0.5, 0, 0], [0.7, 0, 0]]", "[0.5, 0, 0], [0.7, 0, 0], [0.49, 0, 0]]")
		return framesReplaceOnce(t, src, "forces = [[0, -0.002, 0]]", fmt.Sprintf("forces = [[0, %g, 0]]", -P))
	})
	if err := s.Step(); err != nil {
		t.Fatal(err)
	}
	defl := func(path string, i int) float64 {
		st := graphtest.Find[graph.State](t, s, path)
		return -(geom.At(st.Vec(graph.Position), i)[1] - geom.At(st.Vec(graph.RestPosition), i)[1])
	}
	tip = defl("object/tip/point", 0)
	plate, rod = mixedSplit(tip, defl("object/markers/points", 4), defl("object/markers/points", 6))
	nodes, err := graphtest.Find[interface{ Nodes() ([]geom.Vec3, error) }](t, s, "object/sampler").Nodes()
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range nodes {
		if x[0] > 0.5 {
			rodNodes++
		}
	}
	return tip, plate, rod, rodNodes
}

// TestMeshfreeMixedJunctionRefinement: why the mixed scene's error
// stalls near −7% from 120 to 200 nodes, and that it is not a floor.
//
// Split against the FEM (mixedSplit), the block-and-plate part and the
// rod part are both stiff by similar fractions, and the rod carries 70%
// of the tip deflection (8.90e-4 of 1.262e-3 m). The sampler spaces the
// nodes evenly in space (Lloyd iterations), so a 1-D rod gains nodes as
// N^(1/3) of the total while the 3-D block takes most of them: 7, 12, 12,
// 14 rod nodes at 52, 80, 120, 200, and the rod part's error follows the
// rod's node count, not N (MESHFREE_LONG=1 logs it). Refining the rod
// alone — its nodes given as fixedNodes, evenly along it, on a rod of 160
// material points, 200 nodes in all and 1,500 elastons (every block and
// plate point an elaston, 100 on the rod: ≥ 2.5 per rod node) — the rod
// part converges at first order in the rod's node spacing h: measured
// −6.71%, −5.41%, −3.99%, −2.81% with 13, 20, 27, 40 rod nodes (h = 3.1,
// 2, 1.5, 1 cm; error / h = 2.2, 2.7, 2.7, 2.8 %/cm). A junction error
// spread over about one support (a few h) of the thinner structure does
// exactly this. The test checks that halving h (20 → 40 rod nodes)
// halves the rod part's error — ratio within 0.5 ± 0.1 (first order;
// measured 0.52; second order would give 0.25, a floor 1) — that both
// are stiff (a conforming method), and that 40 rod nodes are within 3.5%
// (measured −2.81%).
func TestMeshfreeMixedJunctionRefinement(t *testing.T) {
	const P = 2e-5
	refTip, refPlate, refRod := mixedSplitReference(t, P)
	t.Logf("hexahedral FEM: tip %.6e m = block and plate %.6e m + rod %.6e m", refTip, refPlate, refRod)
	if os.Getenv("MESHFREE_LONG") == "1" {
		for _, c := range [][2]int{{52, 156}, {80, 240}, {120, 360}, {200, 600}} {
			tip, plate, rod, nr := mixedSplitRun(t, P, func(src string) string {
				src = mixedNodes(t, src, c[0], nil)
				return framesReplaceOnce(t, src, "elastonCount = 1500", fmt.Sprintf("elastonCount = %d", c[1]))
			})
			t.Logf("scene, %d nodes (%d on the rod), %d elastons: tip %+.2f%%, block and plate %+.2f%%, rod %+.2f%%",
				c[0], nr, c[1], 100*(tip/refTip-1), 100*(plate/refPlate-1), 100*(rod/refRod-1))
		}
	}
	dir := t.TempDir()
	pf := filepath.Join(dir, "mixed_dense_rod.xyz")
	if err := os.WriteFile(pf, []byte(mixedDenseRodPoints(160)), 0o644); err != nil {
		t.Fatal(err)
	}
	rods := []int{20, 40}
	if os.Getenv("MESHFREE_LONG") == "1" {
		rods = []int{13, 20, 27, 40}
	}
	errs := map[int]float64{}
	for _, n := range rods {
		tip, plate, rod, nr := mixedSplitRun(t, P, func(src string) string {
			fixed := make([]string, n)
			for i := range fixed {
				fixed[i] = fmt.Sprintf("[%.6f, 0, 0]", 0.5+0.4*(float64(i)+0.5)/float64(n))
			}
			src = framesReplaceOnce(t, src, `"meshes/meshfree_mixed.xyz"`, fmt.Sprintf("%q", pf))
			src = mixedNodes(t, src, 200, fixed)
			return src
		})
		if nr != n {
			t.Errorf("%d rod nodes given, %d on the rod", n, nr)
		}
		errs[n] = rod/refRod - 1
		t.Logf("%d rod nodes (h = %.2f cm), 200 nodes, 1500 elastons: tip %+.2f%%, block and plate %+.2f%%, rod %+.2f%% (%.2f %%/cm)",
			n, 40/float64(n), 100*(tip/refTip-1), 100*(plate/refPlate-1), 100*errs[n], -100*errs[n]/(40/float64(n)))
	}
	e20, e40 := errs[20], errs[40]
	if !(e20 < 0 && e40 < 0) {
		t.Errorf("rod part %+.2f%% (20 rod nodes), %+.2f%% (40): want both stiff", 100*e20, 100*e40)
	}
	if r := e40 / e20; math.Abs(r-0.5) > 0.1 {
		t.Errorf("rod part's error %+.2f%% → %+.2f%% when the rod's node spacing halves: ratio %.3f, want 0.5 ± 0.1 (first order)", 100*e20, 100*e40, r)
	}
	if math.Abs(e40) > 0.035 {
		t.Errorf("rod part %+.2f%% with 40 rod nodes (limit 3.5%%)", 100*e40)
	}
}
