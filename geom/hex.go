package geom

// Trilinear hexahedra, corners in VTK's and Gmsh's order (see
// graph.HexahedronTopology): 0–3 the bottom face and 4–7 the top face,
// counter-clockwise seen from the top.

// HexRef holds the corners of the reference cube [−1, 1]³ in VTK order.
var HexRef = [8]Vec3{
	{-1, -1, -1}, {1, -1, -1}, {1, 1, -1}, {-1, 1, -1},
	{-1, -1, 1}, {1, -1, 1}, {1, 1, 1}, {-1, 1, 1},
}

// HexShape returns the trilinear shape functions Nₐ(ξ) = ⅛ Π (1 + ξᵢ rₐᵢ)
// at the reference point ξ, rₐ the corners of HexRef.
func HexShape(xi Vec3) [8]float64 {
	var n [8]float64
	for a, r := range HexRef {
		n[a] = (1 + r[0]*xi[0]) * (1 + r[1]*xi[1]) * (1 + r[2]*xi[2]) / 8
	}
	return n
}

// HexShapeDerivs returns ∂Nₐ/∂ξ at the reference point ξ.
func HexShapeDerivs(xi Vec3) [8]Vec3 {
	var d [8]Vec3
	for a, r := range HexRef {
		d[a] = Vec3{
			r[0] * (1 + r[1]*xi[1]) * (1 + r[2]*xi[2]) / 8,
			r[1] * (1 + r[0]*xi[0]) * (1 + r[2]*xi[2]) / 8,
			r[2] * (1 + r[0]*xi[0]) * (1 + r[1]*xi[1]) / 8,
		}
	}
	return d
}

// HexJacobian returns the Jacobian ∂x/∂ξ (columns ∂x/∂ξ₀, ∂x/∂ξ₁, ∂x/∂ξ₂)
// of the trilinear map of the hexahedron h over flat xyz points at the
// reference point ξ ∈ [−1, 1]³.
func HexJacobian(points []float64, h [8]int, xi Vec3) Mat3 {
	var J Mat3
	d := HexShapeDerivs(xi)
	for a := 0; a < 8; a++ {
		p := At(points, h[a])
		for i := 0; i < 3; i++ {
			for j := 0; j < 3; j++ {
				J[3*i+j] += p[i] * d[a][j]
			}
		}
	}
	return J
}

// HexMap returns x(ξ) = Σ Nₐ(ξ) xₐ for the hexahedron h.
func HexMap(points []float64, h [8]int, xi Vec3) Vec3 {
	n := HexShape(xi)
	var x Vec3
	for a := 0; a < 8; a++ {
		x = x.Add(At(points, h[a]).Scale(n[a]))
	}
	return x
}

// GaussPoint2 is 1/√3, the abscissa of two-point Gauss–Legendre
// quadrature on [−1, 1] (weights 1).
const GaussPoint2 = 0.57735026918962576450914878050196

// HexVolume returns the signed volume of the hexahedron h: the Jacobian
// determinant integrated by 2×2×2 Gauss points, exact for every
// trilinear map (det J is at most quadratic in each ξᵢ); negative for an
// inverted hexahedron.
func HexVolume(points []float64, h [8]int) float64 {
	v := 0.0
	for _, r := range HexRef {
		v += HexJacobian(points, h, r.Scale(GaussPoint2)).Det()
	}
	return v
}
