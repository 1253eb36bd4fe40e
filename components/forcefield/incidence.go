package forcefield

// Vertex incidence lists shared by the element loops of the tetrahedral,
// hexahedral and polyhedral force fields: element results are written per
// slot (one slot per element corner) in parallel, then summed per vertex in
// a fixed order, so results do not depend on the number of workers.

// buildIncidence returns, in CSR form, the slots of each of np vertices:
// vertex v owns slot[start[v]:start[v+1]], increasing. nodes[s] is the
// vertex of slot s.
func buildIncidence(nodes []int32, np int) (start, slot []int32) {
	start = make([]int32, np+1)
	for _, v := range nodes {
		start[v+1]++
	}
	for v := 0; v < np; v++ {
		start[v+1] += start[v]
	}
	slot = make([]int32, len(nodes))
	next := append([]int32(nil), start[:np]...)
	for s, v := range nodes {
		slot[next[v]] = int32(s)
		next[v]++
	}
	return start, slot
}

// gatherIncidence adds to f the per-vertex sums of the per-slot 3-vectors
// elem for the vertices in [lo, hi), in the fixed incidence order.
func gatherIncidence(f, elem []float64, start, slots []int32, lo, hi int) {
	for v := lo; v < hi; v++ {
		var sx, sy, sz float64
		for _, s := range slots[start[v]:start[v+1]] {
			q := elem[3*int(s) : 3*int(s)+3 : 3*int(s)+3]
			sx += q[0]
			sy += q[1]
			sz += q[2]
		}
		fv := f[3*v : 3*v+3 : 3*v+3]
		fv[0] += sx
		fv[1] += sy
		fv[2] += sz
	}
}
