package shapefunction

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sofago/sofago/geom"
)

// TestKDTreeMatchesBruteForce: nearest and kNearest against a brute-force
// sort by (squared distance, index), on a lattice (many exact ties, which
// must go to the lowest index: MeshfreeSampler's determinism rests on it),
// duplicated points and random points, queried at lattice points, between
// them and at random places. Exact equality: both sides compare the same
// squared distances.
func TestKDTreeMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	var pts []geom.Vec3
	for i := 0; i < 6; i++ {
		for j := 0; j < 5; j++ {
			for k := 0; k < 4; k++ {
				pts = append(pts, geom.Vec3{float64(i), float64(j), float64(k)})
			}
		}
	}
	pts = append(pts, pts[:10]...) // duplicates, later indices
	for i := 0; i < 100; i++ {
		pts = append(pts, geom.Vec3{6 * rng.Float64(), 5 * rng.Float64(), 4 * rng.Float64()})
	}
	tree := newKDTree(pts)
	brute := func(p geom.Vec3) []int {
		idx := make([]int, len(pts))
		for i := range idx {
			idx[i] = i
		}
		slices.SortFunc(idx, func(a, b int) int {
			da, db := p.Sub(pts[a]).Norm2(), p.Sub(pts[b]).Norm2()
			switch {
			case da < db:
				return -1
			case da > db:
				return 1
			}
			return a - b
		})
		return idx
	}
	var queries []geom.Vec3
	for i := 0; i < 60; i++ {
		queries = append(queries, pts[i], pts[i].Add(geom.Vec3{0.5, 0.5, 0}),
			geom.Vec3{7*rng.Float64() - 0.5, 6*rng.Float64() - 0.5, 5*rng.Float64() - 0.5})
	}
	for _, q := range queries {
		want := brute(q)
		if i, d := tree.nearest(q); i != want[0] || d != q.Sub(pts[want[0]]).Norm2() {
			t.Fatalf("nearest(%v) = %d (d² %g), want %d", q, i, d, want[0])
		}
		for _, k := range []int{1, 2, 7, 30} {
			if got := tree.kNearest(q, k); !slices.Equal(got, want[:k]) {
				t.Fatalf("kNearest(%v, %d) = %v, want %v", q, k, got, want[:k])
			}
		}
	}
	if i, _ := newKDTree(nil).nearest(geom.Vec3{}); i != -1 {
		t.Errorf("nearest on an empty tree: %d, want -1", i)
	}
}
