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
	// leafTris are the triangles' vertices in leaf order, so that the refit
	// reads them in sequence.
	leafTris [][3]int32
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
		b.leafTris = make([][3]int32, len(tris))
		for j, t := range b.prims {
			b.leafTris[j] = tris[t]
		}
	}
	for j := range b.leafTris {
		bx, tr := &b.boxes[j], &b.leafTris[j]
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
	dx := max(bx.lo[0]-p[0], p[0]-bx.hi[0], 0)
	dy := max(bx.lo[1]-p[1], p[1]-bx.hi[1], 0)
	dz := max(bx.lo[2]-p[2], p[2]-bx.hi[2], 0)
	return dx*dx + dy*dy + dz*dz
}

// boxDist2 returns the squared distance from p to the box of nd (0 inside).
func boxDist2(nd *bvhNode, p geom.Vec3) float64 {
	// Branch-free (the builtin max): the comparisons of a query against
	// scattered boxes are unpredictable, and mispredicted branches cost
	// more than the arithmetic.
	dx := max(nd.lo[0]-p[0], p[0]-nd.hi[0], 0)
	dy := max(nd.lo[1]-p[1], p[1]-nd.hi[1], 0)
	dz := max(nd.lo[2]-p[2], p[2]-nd.hi[2], 0)
	return dx*dx + dy*dy + dz*dz
}

func (nd *bvhNode) size() float64 {
	return (nd.hi[0] - nd.lo[0]) + (nd.hi[1] - nd.lo[1]) + (nd.hi[2] - nd.lo[2])
}

// refitPoints recomputes the boxes of a tree over points: primitive i is
// the point pts[i] of the flat coordinates x.
func (b *bvh) refitPoints(x []float64, pts []int32) {
	for i := len(b.nodes) - 1; i >= 0; i-- {
		nd := &b.nodes[i]
		if nd.right >= 0 {
			b.merge(nd, &b.nodes[i+1], &b.nodes[nd.right])
			continue
		}
		q := x[3*pts[b.prims[nd.start]]:]
		nd.lo = [3]float64{q[0], q[1], q[2]}
		nd.hi = nd.lo
		for _, pi := range b.prims[nd.start+1 : nd.start+nd.count] {
			q := x[3*pts[pi] : 3*pts[pi]+3]
			for k := 0; k < 3; k++ {
				nd.lo[k], nd.hi[k] = min(nd.lo[k], q[k]), max(nd.hi[k], q[k])
			}
		}
	}
}

// near reports whether the boxes of a and b lie within r of each other.
func near(a, b *bvhNode, r float64) bool {
	return a.lo[0]-r <= b.hi[0] && b.lo[0] <= a.hi[0]+r &&
		a.lo[1]-r <= b.hi[1] && b.lo[1] <= a.hi[1]+r &&
		a.lo[2]-r <= b.hi[2] && b.lo[2] <= a.hi[2]+r
}

// triQuery is the narrow phase of one point p against a surface: the
// nearest triangle so far and its squared distance (the bound).
//
// For self-contact (exclude ≥ 0, the DOF at p) it skips the triangles
// around that DOF (its one-ring neighbourhood) and those that do not face
// it (face normal · facing ≥ 0, facing the vertex's own normal): a surface
// can only touch itself where two of its sheets face each other, and
// without that filter every vertex of a convex surface would lie behind
// its neighbours' planes.
type triQuery struct {
	p       geom.Vec3
	x       []float64
	s       *surface
	exclude int32
	facing  geom.Vec3
	best    int32
	bestD2  float64
}

// test measures triangle t: first the distance to its plane, a lower
// bound on the distance to the triangle that needs no square root
// ((p − v0)·N)² ≥ bound·|N|² for the unnormalised normal N) and rejects
// most triangles of a nearly parallel surface, then exactly (Ericson's
// closest point).
func (q *triQuery) test(t int32) {
	tr := q.s.tris[t]
	x := q.x
	i0, i1, i2 := 3*int(tr[0]), 3*int(tr[1]), 3*int(tr[2])
	ax, ay, az := x[i0], x[i0+1], x[i0+2]
	ux, uy, uz := x[i1]-ax, x[i1+1]-ay, x[i1+2]-az
	vx, vy, vz := x[i2]-ax, x[i2+1]-ay, x[i2+2]-az
	nx, ny, nz := uy*vz-uz*vy, uz*vx-ux*vz, ux*vy-uy*vx
	if q.exclude >= 0 && (q.s.isNeighbourhood(t, q.exclude) || nx*q.facing[0]+ny*q.facing[1]+nz*q.facing[2] >= 0) {
		return
	}
	h := (q.p[0]-ax)*nx + (q.p[1]-ay)*ny + (q.p[2]-az)*nz
	if h*h >= q.bestD2*(nx*nx+ny*ny+nz*nz) {
		return
	}
	c, _, _ := closestOnTriangle(q.p, geom.Vec3{ax, ay, az}, geom.Vec3{x[i1], x[i1+1], x[i1+2]}, geom.Vec3{x[i2], x[i2+1], x[i2+2]})
	if d2 := c.Sub(q.p).Norm2(); d2 < q.bestD2 {
		q.best, q.bestD2 = t, d2
	}
}

// testLeaf measures the triangles of leaf nd whose boxes are within the
// bound, except skip.
func (q *triQuery) testLeaf(b *bvh, nd *bvhNode, skip int32) {
	for j := nd.start; j < nd.start+nd.count; j++ {
		if t := b.prims[j]; t != skip && boxDist2To(&b.boxes[j], q.p) < q.bestD2 {
			q.test(t)
		}
	}
}

// nearest finds the triangle of the tree b closest to q.p within the
// current bound, by depth-first branch and bound with the nearer child
// first, skipping triangle skip (already measured).
func (q *triQuery) nearest(b *bvh, skip int32, stack *[]bvhEntry) {
	if len(b.nodes) == 0 {
		return
	}
	st := append((*stack)[:0], bvhEntry{0, boxDist2(&b.nodes[0], q.p)})
	for len(st) > 0 {
		e := st[len(st)-1]
		st = st[:len(st)-1]
		if e.d2 >= q.bestD2 {
			continue
		}
		nd := &b.nodes[e.node]
		if nd.right < 0 {
			q.testLeaf(b, nd, skip)
			continue
		}
		l, r := e.node+1, nd.right
		dl, dr := boxDist2(&b.nodes[l], q.p), boxDist2(&b.nodes[r], q.p)
		if dl < dr {
			l, r, dl, dr = r, l, dr, dl // push the nearer last: it is popped first
		}
		if dl < q.bestD2 {
			st = append(st, bvhEntry{l, dl})
		}
		if dr < q.bestD2 {
			st = append(st, bvhEntry{r, dr})
		}
	}
	*stack = st
}

// bvhEntry is a node waiting on a stack, with its box distance to the query
// point where that matters.
type bvhEntry struct {
	node int32
	d2   float64
}
