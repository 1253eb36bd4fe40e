package mass

import "github.com/sofago/sofago/geom"

// gauss3 are the abscissae and weights of three-point Gauss–Legendre
// quadrature on [−1, 1] (exact for polynomials of degree 5).
var (
	gauss3X = [3]float64{-0.77459666924148337703585307995648, 0, 0.77459666924148337703585307995648}
	gauss3W = [3]float64{5.0 / 9, 8.0 / 9, 5.0 / 9}
)

// hexUnitMass returns the consistent mass matrix of a trilinear
// hexahedron (VTK corner order) for unit density, M_ab = ∫ Nₐ N_b dV,
// 8×8 row-major, by 3×3×3 Gauss points on the reference cube: exact for
// every trilinear map, since Nₐ N_b det J is at most of degree 4 in each
// reference coordinate (the rule is exact to degree 5). Its row sums are
// ∫ Nₐ dV (V/8 for a box), its total the volume.
func hexUnitMass(rest []float64, h [8]int) []float64 {
	M := make([]float64, 64)
	for i, xi := range gauss3X {
		for j, eta := range gauss3X {
			for k, zeta := range gauss3X {
				p := geom.Vec3{xi, eta, zeta}
				w := gauss3W[i] * gauss3W[j] * gauss3W[k] * geom.HexJacobian(rest, h, p).Det()
				n := geom.HexShape(p)
				for a := 0; a < 8; a++ {
					for b := 0; b < 8; b++ {
						M[8*a+b] += w * n[a] * n[b]
					}
				}
			}
		}
	}
	return M
}
