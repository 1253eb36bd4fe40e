// Package example is the example-based deformation machinery that
// components of several packages share: Koyama et al. 2012's shape matching
// (components/shapematching) and the example-based elastic potential of
// Martin et al. 2011 (components/forcefield's ExampleBasedForceField).
//
//   - Descriptors: a symmetric 3×3 tensor per region or element (Koyama's
//     stretch, Martin's Green strain) as 6 numbers whose Euclidean norm is
//     the Frobenius norm (PutDescriptor, Descriptor).
//   - Manifold: the affine hull of N example descriptors of one group, with
//     a weighted least-squares projection w(d) (Σw = 1) precomputed once by
//     the singular value decomposition of the example matrix, its normal
//     matrix and pseudo-inverse, the projection constrained to w ≥ 0
//     (ProjectSimplex, an exact active-set solve) and the derivatives of
//     both.
//   - Koyama's weight rules: negative-weight elimination and the β bias.
//   - Example poses: mesh files (cmd/posegen's output, any meshio format)
//     and inline positions (ReadPoses), group assignment by indices or boxes
//     (AssignGroups).
//
// It is not a component package: it registers nothing and imports no
// component.
package example
