// Package sparse is the project's sparse linear algebra: compressed sparse
// row matrices (CSR) built from element contributions by a Builder (which
// implements graph.MatrixAccumulator), a fill-reducing minimum-degree
// ordering, a supernodal sparse Cholesky factorisation A = LLᵀ (symbolic
// analysis once per sparsity pattern, numeric factorisation per matrix in
// place, with its own AVX2 dense kernels), and a preconditioned conjugate
// gradient with Jacobi, incomplete-Cholesky or exact-factor
// preconditioners.
//
// It exists because the modal analysis and the direct solvers of the
// reduced (subspace) models need K and M of meshes of ~10⁴ vertices
// factorised in seconds, and Go has no usable sparse direct solver.
//
// Conventions: matrices are stored with both triangles (a symmetric matrix
// holds aᵢⱼ and aⱼᵢ), columns sorted within each row, indices 0-based.
// Every routine is deterministic: the same input gives bitwise the same
// output, whatever the number of cores.
package sparse
