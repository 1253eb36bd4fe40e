// Package reduced is the run-time half of reduced (subspace) St. Venant–
// Kirchhoff models (Barbič & James, "Real-Time Subspace Integration for
// St.Venant-Kirchhoff Deformable Models", SIGGRAPH 2005): given a
// tetrahedral mesh and a displacement basis U (3n × r), the reduced
// internal force R(q) = Uᵀ f_int(U q) of a StVK body is exactly a cubic
// polynomial in the r reduced coordinates q (eq. 9–10), so its
// coefficients can be precomputed once, element by element, and R(q) and
// the reduced tangent K(q) = ∂R/∂q (eq. 11) evaluated at run time in a
// time that does not depend on the mesh.
//
// # What is precomputed
//
// Write the displacement gradient of basis vector i in element e as
// Gᵢ = Σₐ uₐⁱ ⊗ ∇Nₐ (constant per linear tetrahedron), its symmetric part
// Lᵢ = sym Gᵢ and the pair products Nᵢⱼ = ½(GᵢᵀGⱼ + GⱼᵀGᵢ). The Green
// strain of u = U q is then E = Σ qᵢ Lᵢ + ½ Σ qᵢqⱼ Nᵢⱼ, and the element
// energy V(μ E:E + λ/2 (tr E)²) is a quartic in q whose derivatives are
//
//	T2_ab   = Γ[a,b]
//	T3_abc  = Γ[a,bc] + Γ[b,ac] + Γ[c,ab]
//	T4_abcd = Γ[ab,cd] + Γ[ac,bd] + Γ[ad,bc]
//
// with the Gram matrix Γ = Σₑ (μ·2Vₑ ⟨xₑ, xₑ⟩_: + λ·Vₑ ⟨tr xₑ, tr xₑ⟩)
// of the vectors xₑ = (L₁ … L_r, N₁₁, N₁₂, … N_rr) (r + r(r+1)/2 symmetric
// 3×3 matrices per element). This is the content of the paper's appendix B
// (eq. 18–25: the A, B, C, D integrals are these products for linear
// tetrahedra) organised so that each element contributes a rank-7 update
// (6 components of A:B, 1 of tr A tr B) of one symmetric matrix: the
// precomputation is a sequence of BLAS syrk calls on batches of elements
// (Precompute), O(r⁴) per element as in the paper, at BLAS speed. The λ
// and μ parts are kept apart per material group, so the Lamé parameters of
// each group can change at run time by re-weighting (Sec. 6.5; Model.SetLame).
//
// # Run-time evaluation (Sec. 6.2)
//
// The reduced energy is W = ½ T2 qq + ⅙ T3 qqq + 1/24 T4 qqqq, the force
// R = ∂W/∂q and the tangent
//
//	K(q) = K0 + K1(q) + K2(q),   K0 = T2,  K1 = T3·q,  K2 = ½ T4:qq.
//
// Only the r(r+1)/2 entries l ≤ m of the symmetric K are evaluated, as two
// packed coefficient matrices times monomial vectors (gonum's blas64.Gemv):
// K1 = H·q with H (r(r+1)/2 × r) and K2 = G·q̄ with G (r(r+1)/2 × r(r+1)/2)
// and q̄ the vector of monomials qᵢqⱼ, i ≤ j. Since each part is
// homogeneous in q (of degree 0, 1, 2), Euler's theorem gives the force
// from the tangent at O(r²) extra cost:
//
//	R(q) = (K0 + ½ K1(q) + ⅓ K2(q)) q,    W = q·(½ K0 + ⅙ K1 + 1/12 K2) q.
//
// So R and K together cost one evaluation of K, about (r(r+1)/2)² + r²(r+1)/2
// multiply–adds (≈ 230,000 at r = 30), half of what evaluating the cubic
// force polynomial and the quadratic stiffness polynomials separately costs
// (VegaFEM's StVKReducedInternalForces + StVKReducedStiffnessMatrix).
//
// # Storage (packed upper-triangular, as VegaFEM)
//
// Pairs i ≤ j are numbered lexicographically with i outermost
// (Pair(i, j) = i·r − i(i−1)/2 + j − i), triples i ≤ j ≤ k likewise
// (Triple). Symmetric Gram matrices are stored upper-packed in the same
// order (row i holds columns i … m−1), gonum's blas.Upper packed layout.
// VegaCoefficients converts to VegaFEM's layout, where each
// upper-triangular coefficient already sums all its symmetric
// permutations.
//
// Sign convention: R is VegaFEM's internal force, +∂W/∂q, and K = ∂R/∂q is
// positive semi-definite at rest. Force fields of this project add the
// force they apply, −R, and their stiffness is −K.
package reduced
