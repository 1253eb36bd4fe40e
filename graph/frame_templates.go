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
var (
	Affine3 Template = VecTemplate{"Affine3", 12}
	F331    Template = VecTemplate{"F331", 9}
)

func init() {
	RegisterTemplate(Affine3)
	RegisterTemplate(F331)
}
