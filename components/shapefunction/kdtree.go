package shapefunction

import (
	"sort"

	"github.com/sofago/sofago/geom"
)

// kdTree answers nearest-point queries over a fixed set of points
// (MeshfreeSampler's Lloyd iterations and neighbourhoods). Ties are broken
// by the lowest point index, so every query is deterministic.
type kdTree struct {
	pts   []geom.Vec3
	idx   []int // permutation of the points, ordered as the tree
	nodes []kdNode
}

type kdNode struct {
	lo, hi      int // idx[lo:hi] is the subtree
	axis        int
	split       float64
	left, right int // child nodes, −1 for a leaf
}

const kdLeaf = 8

func newKDTree(pts []geom.Vec3) *kdTree {
	t := &kdTree{pts: pts, idx: make([]int, len(pts))}
	for i := range t.idx {
		t.idx[i] = i
	}
	if len(pts) > 0 {
		t.build(0, len(pts))
	}
	return t
}

func (t *kdTree) build(lo, hi int) int {
	n := len(t.nodes)
	t.nodes = append(t.nodes, kdNode{lo: lo, hi: hi, left: -1, right: -1})
	if hi-lo <= kdLeaf {
		return n
	}
	var bmin, bmax geom.Vec3
	bmin, bmax = t.pts[t.idx[lo]], t.pts[t.idx[lo]]
	for _, i := range t.idx[lo:hi] {
		for a := 0; a < 3; a++ {
			bmin[a] = min(bmin[a], t.pts[i][a])
			bmax[a] = max(bmax[a], t.pts[i][a])
		}
	}
	axis := 0
	for a := 1; a < 3; a++ {
		if bmax[a]-bmin[a] > bmax[axis]-bmin[axis] {
			axis = a
		}
	}
	if bmax[axis] == bmin[axis] {
		return n // all points equal: one leaf
	}
	s := t.idx[lo:hi]
	sort.Slice(s, func(a, b int) bool {
		pa, pb := t.pts[s[a]][axis], t.pts[s[b]][axis]
		if pa != pb {
			return pa < pb
		}
		return s[a] < s[b]
	})
	mid := lo + (hi-lo)/2
	split := t.pts[t.idx[mid]][axis]
	l := t.build(lo, mid)
	r := t.build(mid, hi)
	t.nodes[n].axis, t.nodes[n].split, t.nodes[n].left, t.nodes[n].right = axis, split, l, r
	return n
}

// nearest returns the index of the point nearest to p (ties: lowest
// index) and its squared distance; −1 on an empty tree.
func (t *kdTree) nearest(p geom.Vec3) (int, float64) {
	best, bestD := -1, 0.0
	if len(t.nodes) == 0 {
		return best, bestD
	}
	var visit func(n int)
	visit = func(n int) {
		nd := &t.nodes[n]
		if nd.left < 0 {
			for _, i := range t.idx[nd.lo:nd.hi] {
				d := p.Sub(t.pts[i]).Norm2()
				if best < 0 || d < bestD || (d == bestD && i < best) {
					best, bestD = i, d
				}
			}
			return
		}
		diff := p[nd.axis] - nd.split
		first, second := nd.left, nd.right
		if diff >= 0 {
			first, second = nd.right, nd.left
		}
		visit(first)
		if best < 0 || diff*diff <= bestD {
			visit(second)
		}
	}
	visit(0)
	return best, bestD
}

// kNearest returns the indices of the k points nearest to p (ties: lowest
// index), nearest first.
func (t *kdTree) kNearest(p geom.Vec3, k int) []int {
	type cand struct {
		i int
		d float64
	}
	var heap []cand // sorted ascending, at most k
	worse := func(a, b cand) bool { return a.d > b.d || (a.d == b.d && a.i > b.i) }
	var visit func(n int)
	visit = func(n int) {
		nd := &t.nodes[n]
		if nd.left < 0 {
			for _, i := range t.idx[nd.lo:nd.hi] {
				c := cand{i, p.Sub(t.pts[i]).Norm2()}
				if len(heap) == k && !worse(heap[k-1], c) {
					continue
				}
				j := sort.Search(len(heap), func(j int) bool { return worse(heap[j], c) })
				heap = append(heap, cand{})
				copy(heap[j+1:], heap[j:])
				heap[j] = c
				if len(heap) > k {
					heap = heap[:k]
				}
			}
			return
		}
		diff := p[nd.axis] - nd.split
		first, second := nd.left, nd.right
		if diff >= 0 {
			first, second = nd.right, nd.left
		}
		visit(first)
		if len(heap) < k || diff*diff <= heap[len(heap)-1].d {
			visit(second)
		}
	}
	if len(t.nodes) > 0 && k > 0 {
		visit(0)
	}
	out := make([]int, len(heap))
	for j, c := range heap {
		out[j] = c.i
	}
	return out
}
