package sparse

import (
	"slices"
)

// MinimumDegree returns a fill-reducing symmetric ordering of the square
// matrix A: perm[k] is the original index of the k-th pivot, so the
// Cholesky factor of P·A·Pᵀ (with (P·A·Pᵀ)ₖₗ = A[perm[k]][perm[l]]) has
// few nonzeros. Only the pattern of A + Aᵀ is read (values are ignored,
// the diagonal is implied).
//
// It is the minimum-degree heuristic (Tinney–Walker scheme 2; George & Liu,
// "The evolution of the minimum degree ordering algorithm", SIAM Review
// 1989) on the explicit elimination graph, run on supernodes of
// indistinguishable nodes: rows with the same closed neighbourhood (the
// x, y, z components of a mesh vertex) are merged first into weighted
// nodes, so a Vec3 mesh is ordered on its vertex graph, and neighbours of
// an eliminated node that become indistinguishable are merged as the
// elimination proceeds (mass elimination). Each step eliminates a node of
// least external degree (the total weight of its neighbours) and turns
// its neighbourhood into a clique. Deterministic: ties go to the node
// that reached that degree first (initially the lowest index).
func MinimumDegree(a *CSR) []int {
	n := a.Rows
	if n == 0 {
		return nil
	}
	adj := symmetricAdjacency(a)
	g := newMDGraph(n, adj)
	g.compressInitial()
	return g.eliminate()
}

// symmetricAdjacency returns the neighbour lists of the pattern of A + Aᵀ
// without the diagonal, sorted.
func symmetricAdjacency(a *CSR) [][]int32 {
	n := a.Rows
	cnt := make([]int, n)
	for i := 0; i < n; i++ {
		for k := a.RowPtr[i]; k < a.RowPtr[i+1]; k++ {
			if j := a.Col[k]; j != i && j < n {
				cnt[i]++
				cnt[j]++
			}
		}
	}
	adj := make([][]int32, n)
	for i := range adj {
		adj[i] = make([]int32, 0, cnt[i])
	}
	for i := 0; i < n; i++ {
		for k := a.RowPtr[i]; k < a.RowPtr[i+1]; k++ {
			if j := a.Col[k]; j != i && j < n {
				adj[i] = append(adj[i], int32(j))
				adj[j] = append(adj[j], int32(i))
			}
		}
	}
	for i := range adj {
		slices.Sort(adj[i])
		adj[i] = slices.Compact(adj[i])
	}
	return adj
}

// mdGraph is the elimination graph of the minimum-degree ordering over
// supernodes: a live supernode v stands for the original nodes
// members[v] (weight len(members[v])), adj[v] lists the live supernodes
// adjacent to it (sorted), deg[v] is the total weight of adj[v]. Live
// nodes sit in doubly linked buckets by degree.
type mdGraph struct {
	n        int
	adj      [][]int32
	members  [][]int32
	weight   []int
	deg      []int
	alive    []bool
	head     []int32 // per degree: first node, -1 if none
	next     []int32
	prev     []int32
	minDeg   int
	mark     []int32 // scratch marks (stamp per use)
	stamp    int32
	hashes   []uint64
	scratchA []int32
}

func newMDGraph(n int, adj [][]int32) *mdGraph {
	g := &mdGraph{n: n, adj: adj,
		members: make([][]int32, n), weight: make([]int, n), deg: make([]int, n),
		alive: make([]bool, n), next: make([]int32, n), prev: make([]int32, n),
		mark: make([]int32, n), hashes: make([]uint64, n)}
	for i := range g.members {
		g.members[i] = []int32{int32(i)}
		g.weight[i] = 1
		g.alive[i] = true
	}
	return g
}

// closedHash hashes the closed neighbourhood adj[v] ∪ {v}.
func (g *mdGraph) closedHash(v int32) uint64 {
	h := uint64(v) * 0x9E3779B97F4A7C15
	for _, u := range g.adj[v] {
		h += uint64(u) * 0x9E3779B97F4A7C15
	}
	return h ^ uint64(len(g.adj[v]))<<48
}

// sameClosed reports whether u and v (adjacent) have the same closed
// neighbourhood: adj[u] \ {v} == adj[v] \ {u}.
func (g *mdGraph) sameClosed(u, v int32) bool {
	a, b := g.adj[u], g.adj[v]
	if len(a) != len(b) {
		return false
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		if i < len(a) && a[i] == v {
			i++
			continue
		}
		if j < len(b) && b[j] == u {
			j++
			continue
		}
		if i == len(a) || j == len(b) || a[i] != b[j] {
			return false
		}
		i++
		j++
	}
	return true
}

// absorb merges the live node u into the live node v (same closed
// neighbourhood): u's members join v's, u leaves every adjacency list.
func (g *mdGraph) absorb(v, u int32) {
	g.members[v] = append(g.members[v], g.members[u]...)
	g.weight[v] += g.weight[u]
	g.members[u] = nil
	g.alive[u] = false
	for _, x := range g.adj[u] {
		if x != v {
			g.adj[x] = removeSorted(g.adj[x], u)
		}
	}
	g.adj[v] = removeSorted(g.adj[v], u)
	g.adj[u] = nil
}

// mergeIndistinguishable merges, among the candidate live nodes, those
// with the same closed neighbourhood (found through equal hashes, checked
// exactly), into the lowest-indexed one. It returns the candidates that
// remain live.
func (g *mdGraph) mergeIndistinguishable(cands []int32) []int32 {
	if len(cands) < 2 {
		return cands
	}
	for _, v := range cands {
		g.hashes[v] = g.closedHash(v)
	}
	order := append(g.scratchA[:0], cands...)
	slices.SortFunc(order, func(x, y int32) int {
		if hx, hy := g.hashes[x], g.hashes[y]; hx != hy {
			if hx < hy {
				return -1
			}
			return 1
		}
		return int(x) - int(y)
	})
	for i := 0; i < len(order); i++ {
		v := order[i]
		if !g.alive[v] {
			continue
		}
		for j := i + 1; j < len(order) && g.hashes[order[j]] == g.hashes[v]; j++ {
			u := order[j]
			if g.alive[u] && g.sameClosed(u, v) {
				g.absorb(v, u)
			}
		}
	}
	g.scratchA = order
	out := cands[:0]
	for _, v := range cands {
		if g.alive[v] {
			out = append(out, v)
		}
	}
	return out
}

// compressInitial merges the indistinguishable nodes of the initial graph.
func (g *mdGraph) compressInitial() {
	all := make([]int32, g.n)
	for i := range all {
		all[i] = int32(i)
	}
	// Only adjacent nodes can be indistinguishable (closed neighbourhoods
	// contain the node itself); equal hashes are checked exactly.
	for _, v := range all {
		g.hashes[v] = g.closedHash(v)
	}
	for v := int32(0); v < int32(g.n); v++ {
		if !g.alive[v] {
			continue
		}
		for k := 0; k < len(g.adj[v]); k++ {
			u := g.adj[v][k]
			if u > v && g.alive[u] && g.hashes[u] == g.hashes[v] && g.sameClosed(u, v) {
				g.absorb(v, u)
				k-- // adj[v] lost u
			}
		}
	}
	total := 0
	for v := 0; v < g.n; v++ {
		if g.alive[v] {
			total += g.weight[v]
		}
	}
	g.head = make([]int32, total+1) // degrees are weights: at most the total
	for d := range g.head {
		g.head[d] = -1
	}
	for v := g.n - 1; v >= 0; v-- {
		if g.alive[v] {
			g.deg[v] = g.weightOf(g.adj[v])
			g.insert(int32(v))
		}
	}
	g.minDeg = 0
}

func (g *mdGraph) weightOf(list []int32) int {
	s := 0
	for _, u := range list {
		s += g.weight[u]
	}
	return s
}

func (g *mdGraph) insert(v int32) {
	d := g.deg[v]
	g.prev[v] = -1
	g.next[v] = g.head[d]
	if h := g.head[d]; h >= 0 {
		g.prev[h] = v
	}
	g.head[d] = v
	if d < g.minDeg {
		g.minDeg = d
	}
}

func (g *mdGraph) remove(v int32) {
	if p := g.prev[v]; p >= 0 {
		g.next[p] = g.next[v]
	} else {
		g.head[g.deg[v]] = g.next[v]
	}
	if nx := g.next[v]; nx >= 0 {
		g.prev[nx] = g.prev[v]
	}
}

// eliminate runs the minimum-degree elimination and returns the ordering.
func (g *mdGraph) eliminate() []int {
	perm := make([]int, 0, g.n)
	var merged []int32
	for len(perm) < g.n {
		for g.head[g.minDeg] < 0 {
			g.minDeg++
		}
		v := g.head[g.minDeg]
		g.remove(v)
		g.alive[v] = false
		m := slices.Clone(g.members[v])
		slices.Sort(m)
		for _, i := range m {
			perm = append(perm, int(i))
		}
		nb := g.adj[v]
		g.adj[v] = nil
		// Each neighbour u: adj[u] ← (adj[u] ∪ nb) \ {u, v}.
		for _, u := range nb {
			g.remove(u)
			g.adj[u] = mergeClique(g.adj[u], nb, u, v)
		}
		merged = g.mergeIndistinguishable(append(merged[:0], nb...))
		for _, u := range merged {
			g.deg[u] = g.weightOf(g.adj[u])
			g.insert(u)
		}
	}
	return perm
}

// mergeClique returns the sorted union of a and b without u and v (a is
// reused when it has room).
func mergeClique(a, b []int32, u, v int32) []int32 {
	out := make([]int32, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		var x int32
		switch {
		case j == len(b) || (i < len(a) && a[i] < b[j]):
			x = a[i]
			i++
		case i == len(a) || b[j] < a[i]:
			x = b[j]
			j++
		default:
			x = a[i]
			i++
			j++
		}
		if x != u && x != v {
			out = append(out, x)
		}
	}
	return out
}

// removeSorted removes x from the sorted list s (if present), in place.
func removeSorted(s []int32, x int32) []int32 {
	if k, ok := slices.BinarySearch(s, x); ok {
		return append(s[:k], s[k+1:]...)
	}
	return s
}

func sortInt32Slow(a []int32) { slices.Sort(a) }
