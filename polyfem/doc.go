// Package polyfem holds convex polyhedral finite elements with harmonic
// shape functions (Martin, Kaufmann, Botsch, Wicke & Gross, "Polyhedral
// finite elements using harmonic basis functions", SGP 2008; the lecture
// notes' "Polyhedral Elements", "Harmonic Basis Functions" and
// "Numerical Approximation"): meshes of convex polyhedra (Mesh, its text
// file format, and generators of hex-dominant grids and clipped Voronoi
// cells), the shape functions of each element by the method of
// fundamental solutions (Basis), and quadrature on a tetrahedral
// subdivision of each element (Rule) with the gradient correction that
// makes the integrated gradients consistent with the boundary.
//
// A shape function Nₐ of element e is harmonic inside it, ΔNₐ = 0, and
// equals on its boundary the barycentric data bₐ: on each face, the
// Wachspress coordinates of the face polygon (ordinary barycentric
// coordinates on a triangle, bilinear on a parallelogram), zero on faces
// not containing vertex a. The data depend on the face alone, so
// neighbouring elements agree on their common face, and Nₐ(x_b) = δₐ_b.
// Nₐ is approximated by the method of fundamental solutions,
//
//	Nₐ(x) = Σⱼ wⱼₐ ψ(|x − kⱼ|) + aₐ·x + a₀ₐ,   ψ(r) = 1/r,
//
// with kernel centres kⱼ outside the element, fitted to the boundary data
// at collocation points in the least-squares sense (Basis).
//
// The package is numerical machinery, not a component:
// components/topology serves its meshes (PolyhedralTopology), and
// components/forcefield and components/mass integrate with its rules.
package polyfem
