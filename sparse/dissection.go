package sparse

import (
	"fmt"
	"slices"
)

// ndLeaf is the size (in supernodes, i.e. mesh vertices for Vec3
// matrices) below which NestedDissection orders a part by minimum degree
// instead of splitting it further.
const ndLeaf = 200

// NestedDissection returns a fill-reducing ordering of the symmetric
// pattern of A (perm[k] = original index of pivot k, as MinimumDegree)
// by geometric nested dissection (George 1973; George & Liu 1981):
// rows are placed at coords (3 numbers per row: the rest position of the
// mesh vertex a DOF belongs to), the rows with the same closed
// neighbourhood are grouped (the components of a vertex), and each part of
// the mesh is split at the median of its longest extent into two halves
// and a separator — the vertices of one half adjacent to the other (the
// smaller of the two choices) — ordered last; parts below 200 vertices are
// ordered by minimum degree. On 3-D meshes this gives a factor with
// several times fewer operations than minimum degree, whose fill grows
// faster on grids (the top separator of an n-vertex mesh is ~n^(2/3)
// vertices, a dense block at the end). Deterministic.
func NestedDissection(a *CSR, coords []float64) ([]int, error) {
	n := a.Rows
	if a.Cols != n {
		return nil, fmt.Errorf("sparse: NestedDissection of a %d×%d matrix", a.Rows, a.Cols)
	}
	if len(coords) != 3*n {
		return nil, fmt.Errorf("sparse: NestedDissection: %d coordinates for %d rows (want 3 per row)", len(coords), n)
	}
	if n == 0 {
		return nil, nil
	}
	g := newMDGraph(n, symmetricAdjacency(a))
	g.compressInitial()
	var nodes []int32
	for v := 0; v < n; v++ {
		if g.alive[v] {
			nodes = append(nodes, int32(v))
		}
	}
	d := &dissector{g: g, coords: coords, part: make([]int32, n), perm: make([]int, 0, n)}
	for i := range d.part {
		d.part[i] = -1
	}
	d.split(nodes)
	return d.perm, nil
}

type dissector struct {
	g      *mdGraph
	coords []float64
	part   []int32 // current part label of each supernode (-1: ordered)
	label  int32
	perm   []int
}

// split orders the supernodes of nodes (a part whose neighbours outside
// are already placed later in the ordering).
func (d *dissector) split(nodes []int32) {
	if len(nodes) == 0 {
		return
	}
	if len(nodes) <= ndLeaf {
		d.leaf(nodes)
		return
	}
	// Longest extent of the part.
	var lo, hi [3]float64
	for c := 0; c < 3; c++ {
		lo[c], hi[c] = d.coords[3*int(nodes[0])+c], d.coords[3*int(nodes[0])+c]
	}
	for _, v := range nodes {
		for c := 0; c < 3; c++ {
			x := d.coords[3*int(v)+c]
			lo[c], hi[c] = min(lo[c], x), max(hi[c], x)
		}
	}
	axis := 0
	for c := 1; c < 3; c++ {
		if hi[c]-lo[c] > hi[axis]-lo[axis] {
			axis = c
		}
	}
	sorted := slices.Clone(nodes)
	slices.SortFunc(sorted, func(x, y int32) int {
		cx, cy := d.coords[3*int(x)+axis], d.coords[3*int(y)+axis]
		switch {
		case cx < cy:
			return -1
		case cx > cy:
			return 1
		}
		return int(x) - int(y)
	})
	// Split at the median; nodes at the median coordinate all go to the
	// second half, so a grid plane stays whole.
	mid := len(sorted) / 2
	cm := d.coords[3*int(sorted[mid])+axis]
	for mid > 0 && d.coords[3*int(sorted[mid-1])+axis] == cm {
		mid--
	}
	if mid == 0 { // all on one coordinate value below the median: split by count
		mid = len(sorted) / 2
	}
	la, lb := d.label+1, d.label+2
	d.label += 2
	for k, v := range sorted {
		if k < mid {
			d.part[v] = la
		} else {
			d.part[v] = lb
		}
	}
	// Separator candidates: the nodes of each half adjacent to the other.
	var sepA, sepB []int32
	wa, wb := 0, 0
	for _, v := range sorted {
		own, other := d.part[v], lb
		if own == lb {
			other = la
		}
		for _, u := range d.g.adj[v] {
			if d.part[u] == other {
				if own == la {
					sepA = append(sepA, v)
					wa += d.g.weight[v]
				} else {
					sepB = append(sepB, v)
					wb += d.g.weight[v]
				}
				break
			}
		}
	}
	sep := sepA
	if wb < wa {
		sep = sepB
	}
	for _, v := range sep {
		d.part[v] = -2 // placed after both halves
	}
	var A, B []int32
	for _, v := range sorted {
		switch d.part[v] {
		case la:
			A = append(A, v)
		case lb:
			B = append(B, v)
		}
	}
	if len(A) == 0 || len(B) == 0 {
		// Degenerate split (a part that is all separator): order it whole.
		for _, v := range sorted {
			d.part[v] = la
		}
		d.leaf(sorted)
		return
	}
	d.split(A)
	d.split(B)
	d.leaf(sep)
}

// leaf orders the supernodes of nodes by minimum degree on the subgraph
// they induce, and appends their members to perm.
func (d *dissector) leaf(nodes []int32) {
	if len(nodes) == 0 {
		return
	}
	d.label++
	lab := d.label
	local := make(map[int32]int32, len(nodes))
	for k, v := range nodes {
		d.part[v] = lab
		local[v] = int32(k)
	}
	adj := make([][]int32, len(nodes))
	for k, v := range nodes {
		for _, u := range d.g.adj[v] {
			if d.part[u] == lab {
				adj[k] = append(adj[k], local[u])
			}
		}
		slices.Sort(adj[k])
	}
	sub := newMDGraph(len(nodes), adj)
	for k, v := range nodes {
		sub.weight[k] = d.g.weight[v]
	}
	sub.compressInitial()
	for _, k := range sub.eliminate() {
		v := nodes[k]
		m := slices.Clone(d.g.members[v])
		slices.Sort(m)
		for _, i := range m {
			d.perm = append(d.perm, int(i))
		}
		d.part[v] = -1
	}
}
