package collision

import (
	"math"
	"sort"

	"github.com/sofago/sofago/geom"
)

// bvh is a bounding-volume hierarchy of axis-aligned boxes over primitives
// (points or triangles of a collision model). Its tree is built once from
// the initial positions (median split along the longest extent of the
// centroids) and refitted every step from the current positions, bottom
// up: a deforming object keeps its topology, so the tree stays valid and a
// refit costs O(n) (James & Pai's BD-tree argument, "BD-Tree: output-
// sensitive collision detection for reduced deformable models", 2004, for
// why refitting beats rebuilding for deformables). Nodes are stored in
// pre-order: the left child of node i is i+1, so refitting in reverse order
// visits children before parents.
type bvh struct {
	nodes []bvhNode
	prims []int32 // primitive indices in leaf order
	boxes []box   // triangle trees: the box of each triangle at the last refit, in leaf order (boxes[j] bounds prims[j])
}

type bvhNode struct {
	lo, hi [3]float64
	right  int32 // right child, −1 on a leaf (the left child is the next node)
	start  int32 // leaf: prims[start : start+count]
	count  int32
}

// buildBVH builds the tree over primitives with the given centroids, at
// most leafSize primitives per leaf. Boxes are empty until a refit.
func buildBVH(centroids []geom.Vec3, leafSize int) *bvh {
	b := &bvh{prims: make([]int32, len(centroids))}
	for i := range b.prims {
		b.prims[i] = int32(i)
	}
	if len(centroids) > 0 {
		b.build(centroids, 0, len(centroids), leafSize)
	}
	return b
}

func (b *bvh) build(c []geom.Vec3, lo, hi, leafSize int) int32 {
	id := int32(len(b.nodes))
	b.nodes = append(b.nodes, bvhNode{right: -1})
	if hi-lo <= leafSize {
		b.nodes[id].start, b.nodes[id].count = int32(lo), int32(hi-lo)
		return id
	}
	mn := geom.Vec3{math.Inf(1), math.Inf(1), math.Inf(1)}
	mx := geom.Vec3{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for _, p := range b.prims[lo:hi] {
		for k := 0; k < 3; k++ {
			mn[k], mx[k] = math.Min(mn[k], c[p][k]), math.Max(mx[k], c[p][k])
		}
	}
	axis := 0
	for k := 1; k < 3; k++ {
		if mx[k]-mn[k] > mx[axis]-mn[axis] {
			axis = k
		}
	}
	part := b.prims[lo:hi]
	sort.SliceStable(part, func(i, j int) bool { return c[part[i]][axis] < c[part[j]][axis] })
	mid := (lo + hi) / 2
	b.build(c, lo, mid, leafSize)
	r := b.build(c, mid, hi, leafSize)
	b.nodes[id].right = r
	return id
}

// refitTriangles recomputes the box of every triangle (boxes, in leaf
// order so that refit and queries read them in sequence; the narrow phase
// tests them before the exact distance) and of every node.
func (b *bvh) refitTriangles(x []float64, tris [][3]int32) {
	if len(b.boxes) != len(tris) {
		b.boxes = make([]box, len(tris))
	}
	for j, t := range b.prims {
		bx := &b.boxes[j]
		tr := tris[t]
		i0, i1, i2 := 3*int(tr[0]), 3*int(tr[1]), 3*int(tr[2])
		for k := 0; k < 3; k++ {
			u, v, w := x[i0+k], x[i1+k], x[i2+k]
			bx.lo[k] = min(min(u, v), w)
			bx.hi[k] = max(max(u, v), w)
		}
	}
	for i := len(b.nodes) - 1; i >= 0; i-- {
		nd := &b.nodes[i]
		if nd.right >= 0 {
			b.merge(nd, &b.nodes[i+1], &b.nodes[nd.right])
			continue
		}
		first := &b.boxes[nd.start]
		nd.lo, nd.hi = first.lo, first.hi
		for j := nd.start + 1; j < nd.start+nd.count; j++ {
			bx := &b.boxes[j]
			for k := 0; k < 3; k++ {
				nd.lo[k], nd.hi[k] = min(nd.lo[k], bx.lo[k]), max(nd.hi[k], bx.hi[k])
			}
		}
	}
}

// box is an axis-aligned box.
type box struct{ lo, hi [3]float64 }

// merge sets the box of nd to the union of its children's. The builtin min
// and max compile to branch-free instructions; math.Min/Max and if-chains
// (mispredicted on scattered data) cost several times more in refits.
func (b *bvh) merge(nd, l, r *bvhNode) {
	for k := 0; k < 3; k++ {
		nd.lo[k], nd.hi[k] = min(l.lo[k], r.lo[k]), max(l.hi[k], r.hi[k])
	}
}

// boxDist2To returns the squared distance from p to the box bx (0 inside).
func boxDist2To(bx *box, p geom.Vec3) float64 {
	d2 := 0.0
	for k := 0; k < 3; k++ {
		if e := bx.lo[k] - p[k]; e > 0 {
			d2 += e * e
		} else if e := p[k] - bx.hi[k]; e > 0 {
			d2 += e * e
		}
	}
	return d2
}

// boxDist2 returns the squared distance from p to the box of nd (0 inside).
func boxDist2(nd *bvhNode, p geom.Vec3) float64 {
	d2 := 0.0
	for k := 0; k < 3; k++ {
		if e := nd.lo[k] - p[k]; e > 0 {
			d2 += e * e
		} else if e := p[k] - nd.hi[k]; e > 0 {
			d2 += e * e
		}
	}
	return d2
}

func (nd *bvhNode) size() float64 {
	return (nd.hi[0] - nd.lo[0]) + (nd.hi[1] - nd.lo[1]) + (nd.hi[2] - nd.lo[2])
}

// nearestTriangle returns the triangle of s (whose tree is b) closest to p
// within √maxD2, by depth-first branch and bound with the nearer child
// first, skipping the triangles around DOF exclude (its one-ring
// neighbourhood, for self-contact; −1: none). It returns −1 when no
// triangle is that close.
func (b *bvh) nearestTriangle(p geom.Vec3, x []float64, s *surface, maxD2 float64, exclude int32, stack *[]int32) (best int32, bestD2 float64) {
	best, bestD2 = -1, maxD2
	if len(b.nodes) == 0 {
		return
	}
	st := append((*stack)[:0], 0)
	for len(st) > 0 {
		i := st[len(st)-1]
		st = st[:len(st)-1]
		nd := &b.nodes[i]
		if boxDist2(nd, p) >= bestD2 {
			continue
		}
		if nd.right < 0 {
			for j := nd.start; j < nd.start+nd.count; j++ {
				t := b.prims[j]
				if boxDist2To(&b.boxes[j], p) >= bestD2 || (exclude >= 0 && s.isNeighbourhood(t, exclude)) {
					continue
				}
				v0, v1, v2 := s.corners(t, x)
				q, _, _ := closestOnTriangle(p, v0, v1, v2)
				if d2 := q.Sub(p).Norm2(); d2 < bestD2 {
					best, bestD2 = t, d2
				}
			}
			continue
		}
		l, r := i+1, nd.right
		dl, dr := boxDist2(&b.nodes[l], p), boxDist2(&b.nodes[r], p)
		if dl < dr {
			l, r, dl, dr = r, l, dr, dl // push the nearer last: it is popped first
		}
		if dl < bestD2 {
			st = append(st, l)
		}
		if dr < bestD2 {
			st = append(st, r)
		}
	}
	*stack = st
	return best, bestD2
}
