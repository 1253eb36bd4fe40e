// Package modal builds deformation bases for reduced (subspace) models of
// tetrahedral solids (Barbič & James 2005, Sec. 5 and appendices A and D):
//
//   - AssembleFromScene assembles the stiffness K = −∂f/∂x at the rest
//     configuration and the mass M of a scene subtree, with the fixed
//     DOFs removed (System);
//   - LinearModes solves K ψ = λ M ψ for the k smallest eigenpairs
//     (shift-invert Krylov on the sparse Cholesky factor of package
//     sparse, or a dense path for small meshes), mass-normalised; the six
//     rigid modes of an unconstrained body are dropped;
//   - ModalDerivatives solves K Φᵢⱼ = −(H:ψᵢ)ψⱼ (eq. 14–15), the Hessian
//     contraction computed element by element, in parallel over (i, j);
//   - MassPCA (appendix A) and the eq. 16 scaling reduce modes and
//     derivatives, or recorded deformation snapshots, to r mass-orthonormal
//     vectors; BuildModalDerivativeBasis and BuildSnapshotBasis do it all
//     from a scene;
//   - ReadBasis and WriteBasis read and write bases (and snapshot files) in
//     plain formats, so bases from other tools drop in.
//
// Sign convention: K here is the positive (semi-)definite stiffness of
// structural mechanics and of VegaFEM, K = −∂f/∂x, the negative of the
// tangent the force fields of this project add (graph.StiffnessAssembler
// writes ∂f/∂x). H = ∂K/∂u likewise, so (H:a)b = −d²f[a, b].
//
// Vectors over the whole state ("full" vectors) have the length of the
// state's derivative vector (3 per point for Vec3), in the state's DOF
// order, with zeros at the fixed DOFs. Bases are column-major: column j of
// a rows×cols basis U is U[rows·j : rows·(j+1)] (LAPACK and VegaFEM order).
package modal
