package topology

import (
	"sort"

	"github.com/sofago/sofago/geom"
)

// TetVolume returns the signed volume of tetrahedron t over flat xyz points
// (positive when det[p1−p0, p2−p0, p3−p0] > 0).
func TetVolume(points []float64, t [4]int) float64 {
	p0 := geom.At(points, t[0])
	a := geom.At(points, t[1]).Sub(p0)
	b := geom.At(points, t[2]).Sub(p0)
	c := geom.At(points, t[3]).Sub(p0)
	return a.Dot(b.Cross(c)) / 6
}

// BoundaryTriangles returns the faces that belong to exactly one
// tetrahedron, oriented outwards (for positively oriented tetrahedra), in
// a deterministic order (by tetrahedron, then face).
func BoundaryTriangles(tets [][4]int) [][3]int {
	type key [3]int
	count := make(map[key]int, 2*len(tets))
	faces := func(t [4]int) [4][3]int {
		// Outward faces of a positive tetrahedron (a, b, c, d).
		return [4][3]int{{t[0], t[2], t[1]}, {t[0], t[1], t[3]}, {t[0], t[3], t[2]}, {t[1], t[2], t[3]}}
	}
	sorted := func(f [3]int) key {
		k := key(f)
		sort.Ints(k[:])
		return k
	}
	for _, t := range tets {
		for _, f := range faces(t) {
			count[sorted(f)]++
		}
	}
	var out [][3]int
	for _, t := range tets {
		for _, f := range faces(t) {
			if count[sorted(f)] == 1 {
				out = append(out, f)
			}
		}
	}
	return out
}
