package sparse

// MinimumDegree returns a fill-reducing symmetric ordering of the square
// matrix A: perm[k] is the original index of the k-th pivot, so the
// Cholesky factor of P·A·Pᵀ (with (P·A·Pᵀ)ₖₗ = A[perm[k]][perm[l]]) has
// few nonzeros. Only the pattern of A + Aᵀ is read (values are ignored,
// the diagonal is implied).
//
// It is the minimum-degree heuristic (Tinney–Walker scheme 2, George & Liu
// 1989) on the explicit elimination graph, run on the quotient graph of
// indistinguishable nodes: rows with the same closed neighbourhood (the
// x, y, z components of a mesh vertex) are merged first into weighted
// supernodes, so a Vec3 mesh is ordered on its vertex graph. Each step
// eliminates a node of least weighted degree (ties: lowest index), turns
// its neighbourhood into a clique, and merges neighbours that became
// indistinguishable. Deterministic.
func MinimumDegree(a *CSR) []int {
	return identity(a.Rows) // TODO(6a): implement
}

func identity(n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	return p
}
