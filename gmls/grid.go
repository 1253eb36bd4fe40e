package gmls

import (
	"math"
	"slices"

	"github.com/sofago/sofago/geom"
)

// grid is a uniform hash grid of the nodes with cells as large as the
// largest support radius, so the nodes whose support may contain a point
// are in the 27 cells around the point's cell. Cells are stored sorted by
// key (node lists contiguous in one slice); a query looks up 9 rows of 3
// consecutive cells by binary search, so building is O(n log n) and a
// query O(log n + neighbours) with no map.
type grid struct {
	cell  float64
	keys  []cellKey // sorted, one per non-empty cell
	start []int32   // nodes of cell keys[c]: items[start[c]:start[c+1]]
	items []int32
	// Per item, in items' order (cache-friendly scans): position and
	// squared support radius.
	px []geom.Vec3
	r2 []float64
}

type cellKey [3]int32

func cmpKey(a, b cellKey) int {
	for d := 0; d < 3; d++ {
		if a[d] != b[d] {
			if a[d] < b[d] {
				return -1
			}
			return 1
		}
	}
	return 0
}

func (g *grid) keyOf(x geom.Vec3) cellKey {
	var k cellKey
	for d := 0; d < 3; d++ {
		// Clamped so that far-away query points cannot overflow int32.
		v := math.Floor(x[d] / g.cell)
		k[d] = int32(math.Max(-1<<30, math.Min(1<<30, v)))
	}
	return k
}

func newGrid(pos []geom.Vec3, radius []float64) grid {
	g := grid{cell: slices.Max(radius)}
	type kv struct {
		k cellKey
		i int32
	}
	all := make([]kv, len(pos))
	for i, p := range pos {
		all[i] = kv{g.keyOf(p), int32(i)}
	}
	slices.SortFunc(all, func(a, b kv) int {
		if c := cmpKey(a.k, b.k); c != 0 {
			return c
		}
		return int(a.i - b.i)
	})
	g.items = make([]int32, len(all))
	g.px = make([]geom.Vec3, len(all))
	g.r2 = make([]float64, len(all))
	for j, e := range all {
		g.items[j] = e.i
		g.px[j] = pos[e.i]
		g.r2[j] = radius[e.i] * radius[e.i]
		if j == 0 || e.k != all[j-1].k {
			g.keys = append(g.keys, e.k)
			g.start = append(g.start, int32(j))
		}
	}
	g.start = append(g.start, int32(len(all)))
	return g
}

// query appends the nodes with |x − pos[i]| < radius[i] to dst, sorted.
func (g *grid) query(dst []int, x geom.Vec3) []int {
	k := g.keyOf(x)
	n0 := len(dst)
	for dz := int32(-1); dz <= 1; dz++ {
		for dy := int32(-1); dy <= 1; dy++ {
			lo := cellKey{k[0] + dz, k[1] + dy, k[2] - 1}
			c, _ := slices.BinarySearchFunc(g.keys, lo, cmpKey)
			for ; c < len(g.keys); c++ {
				ck := g.keys[c]
				if ck[0] != lo[0] || ck[1] != lo[1] || ck[2] > k[2]+1 {
					break
				}
				for j := g.start[c]; j < g.start[c+1]; j++ {
					p := &g.px[j]
					d0, d1, d2 := x[0]-p[0], x[1]-p[1], x[2]-p[2]
					if d0*d0+d1*d1+d2*d2 < g.r2[j] {
						dst = append(dst, int(g.items[j]))
					}
				}
			}
		}
	}
	slices.Sort(dst[n0:])
	return dst
}
