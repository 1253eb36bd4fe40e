package shapematching

import (
	"slices"
	"strings"
	"testing"

	"github.com/sofago/sofago/components/topology"
)

// checkSymmetric checks what the effective masses and momentum conservation
// rely on: every region holds its own particle, j ∈ N_r ⇔ r ∈ N_j, and the
// count of regions holding a particle is the size of its own region.
func checkSymmetric(t *testing.T, rs *regionSet) {
	t.Helper()
	n := rs.numRegions()
	for r := 0; r < n; r++ {
		mem := rs.members[rs.start[r]:rs.start[r+1]]
		if !slices.IsSorted(mem) || !slices.Contains(mem, r) {
			t.Fatalf("region %d = %v: not sorted or lacks its particle", r, mem)
		}
		for _, j := range mem {
			if !slices.Contains(rs.members[rs.start[j]:rs.start[j+1]], r) {
				t.Fatalf("%d is in region %d but %d is not in region %d", j, r, r, j)
			}
		}
		if rs.count[r] != len(mem) {
			t.Fatalf("particle %d is in %d regions but its region has %d particles", r, rs.count[r], len(mem))
		}
	}
}

// TestRingRegions: on a Kuhn-split grid an interior vertex has 14 edge
// neighbours (6 along the axes, 6 face diagonals, 2 along the main
// diagonal), so its 1-ring region has 15 particles; a corner vertex at the
// start of the main diagonal has 7 neighbours (3 axes, 3 face diagonals, 1
// body diagonal), the opposite corner too; the 2-ring contains the 1-ring.
func TestRingRegions(t *testing.T) {
	g, err := topology.NewRegularGrid([3]float64{}, [3]float64{1, 1, 1}, [3]int{5, 5, 5})
	if err != nil {
		t.Fatal(err)
	}
	n := len(g.Points()) / 3
	one, err := ringRegions(n, g.Tetrahedra(), 1)
	if err != nil {
		t.Fatal(err)
	}
	checkSymmetric(t, one)
	size := func(rs *regionSet, r int) int { return rs.start[r+1] - rs.start[r] }
	if s := size(one, g.Index(2, 2, 2)); s != 15 {
		t.Errorf("interior 1-ring has %d particles, want 15", s)
	}
	if s := size(one, g.Index(0, 0, 0)); s != 8 {
		t.Errorf("corner (0,0,0) 1-ring has %d particles, want 8", s)
	}
	if s := size(one, g.Index(4, 4, 4)); s != 8 {
		t.Errorf("corner (4,4,4) 1-ring has %d particles, want 8", s)
	}
	two, err := ringRegions(n, g.Tetrahedra(), 2)
	if err != nil {
		t.Fatal(err)
	}
	checkSymmetric(t, two)
	for r := 0; r < n; r++ {
		big := two.members[two.start[r]:two.start[r+1]]
		for _, j := range one.members[one.start[r]:one.start[r+1]] {
			if !slices.Contains(big, j) {
				t.Fatalf("2-ring of %d lacks 1-ring member %d", r, j)
			}
		}
	}
	if _, err := ringRegions(n+1, g.Tetrahedra(), 1); err == nil || !strings.Contains(err.Error(), "belongs to no tetrahedron") {
		t.Errorf("an isolated particle: got %v", err)
	}
}

// TestLatticeRegions: FastLSM regions of half-width w hold (2w+1)³
// particles inside the lattice, clipped at faces, edges and corners.
func TestLatticeRegions(t *testing.T) {
	g, err := topology.NewRegularGrid([3]float64{-1, 0, 2}, [3]float64{1, 0.8, 4}, [3]int{5, 9, 5})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []int{1, 2} {
		rs, err := latticeRegions(g.Points(), w)
		if err != nil {
			t.Fatal(err)
		}
		checkSymmetric(t, rs)
		size := func(i, j, k int) int { r := g.Index(i, j, k); return rs.start[r+1] - rs.start[r] }
		side := 2*w + 1
		if s := size(2, 4, 2); s != side*side*side {
			t.Errorf("w = %d: interior region has %d particles, want %d", w, s, side*side*side)
		}
		if s := size(0, 0, 0); s != (w+1)*(w+1)*(w+1) {
			t.Errorf("w = %d: corner region has %d particles, want %d", w, s, (w+1)*(w+1)*(w+1))
		}
		if s := size(0, 4, 2); s != (w+1)*side*side {
			t.Errorf("w = %d: face region has %d particles, want %d", w, s, (w+1)*side*side)
		}
	}
	pts := append([]float64(nil), g.Points()...)
	pts[4] += 0.013 // particle 1 off the lattice
	if _, err := latticeRegions(pts, 1); err == nil || !strings.Contains(err.Error(), "not on a regular lattice") {
		t.Errorf("a particle off the lattice: got %v", err)
	}
	pts = append(append([]float64(nil), g.Points()...), g.Points()[:3]...)
	if _, err := latticeRegions(pts, 1); err == nil || !strings.Contains(err.Error(), "same lattice node") {
		t.Errorf("two particles on one node: got %v", err)
	}
}
