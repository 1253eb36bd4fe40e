package graph

// Templates of the frame-based models (Gilles et al. 2011, Faure et al.
// 2011), named as in SOFA's Flexible plugin.
//
// Affine3 is a deformable (affine) frame: 12 numbers [t(3) A(9, row-major)]
// mapping a local point ℓ to A ℓ + t. Its derivative (velocity, force) is
// the same 12 numbers, so it is a flat vector space (VecTemplate):
// integration is an axpy and nothing is normalised. A DOF added by Resize
// starts at zero (t = 0, A = 0): code that inserts affine frames sets their
// coordinates (the skinning mappings read them at their next Apply).
//
// F331 is a deformation-gradient sample: 9 numbers, F row-major (3 spatial
// dimensions, 3 material dimensions, first order). The skinning mappings
// write it (F = ∂x/∂X at the sample's rest position X); force fields on
// samples read it. Its derivative is again 9 numbers (dF, or the "force"
// −∂W/∂F conjugate to F). A new sample starts at zero until the mapping
// that owns it is applied.
//
// F332 is a deformation-gradient sample of second order (SOFA Flexible's
// name: 3 spatial dimensions, 3 material dimensions, order 2): F and its
// spatial gradient at the sample's centre X_s, 36 numbers
//
//	[F (9), ∂F/∂X₀ (9), ∂F/∂X₁ (9), ∂F/∂X₂ (9)],  each block row-major,
//
// so that F(X_s + d) ≈ F + Σ_k d_k ∂F/∂X_k over the sample's region (exact
// when F is affine in X, as with rigid or affine frames and linear
// weights). Force fields integrate the energy of that field over the
// region from its polynomial moments (Faure et al. 2011 Sec. 5.3: the
// "elastons" of Martin et al. 2010). Its derivative is again 36 numbers,
// the "force" being −∂W/∂(F, ∇F).
//
// Quadratic3 is a quadratic frame (Faure et al. 2011 eq. 3 with the
// complete polynomial basis of order 2): 30 numbers [t(3) A(27)], A the
// 3×9 matrix (row-major) of the map ℓ ↦ t + A b(ℓ) of local coordinates,
// b(ℓ) = [ℓ₀, ℓ₁, ℓ₂, ℓ₀², ℓ₁², ℓ₂², ℓ₀ℓ₁, ℓ₁ℓ₂, ℓ₂ℓ₀]: row r of A holds
// the 3 linear coefficients of x_r, then those of x², y², z², xy, yz, zx.
// At rest the quadratic columns are zero (the rest frame is affine). Its
// derivative is the same 30 numbers.
var (
	Affine3    Template = VecTemplate{"Affine3", 12}
	Quadratic3 Template = VecTemplate{"Quadratic3", 30}
	F331       Template = VecTemplate{"F331", 9}
	F332       Template = VecTemplate{"F332", 36}
)

func init() {
	RegisterTemplate(Affine3)
	RegisterTemplate(Quadratic3)
	RegisterTemplate(F331)
	RegisterTemplate(F332)
}
