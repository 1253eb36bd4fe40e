package polyfem

import "github.com/sofago/sofago/geom"

// HexCell returns the cell of a hexahedron given by its corners in VTK
// order (graph.HexahedronTopology), faces outward.
func HexCell(h [8]int) Cell {
	faces := [6][4]int{{0, 3, 2, 1}, {4, 5, 6, 7}, {0, 1, 5, 4}, {1, 2, 6, 5}, {2, 3, 7, 6}, {3, 0, 4, 7}}
	c := Cell{Faces: make([][]int, 6)}
	for k, f := range faces {
		c.Faces[k] = []int{h[f[0]], h[f[1]], h[f[2]], h[f[3]]}
	}
	return c
}

// wachspress writes into out (len(f) numbers) the Wachspress coordinates
// of the point x, in the plane of the convex face f with unit normal n
// (Wachspress 1975; Meyer, Lee, Barr & Desbrun 2002): with Aⱼ(x) the
// signed area of the triangle (x, vⱼ, vⱼ₊₁) and Cᵢ that of (vᵢ₋₁, vᵢ,
// vᵢ₊₁),
//
//	λᵢ(x) ∝ Cᵢ · Π_{j ∉ {i−1, i}} Aⱼ(x),   Σᵢ λᵢ = 1,
//
// the product form of Cᵢ / (Aᵢ₋₁ Aᵢ), which stays finite on the edges.
// They are the barycentric coordinates on a triangle, bilinear on a
// parallelogram, linear along every edge, reproduce linear functions
// (Σ λᵢ vᵢ = x) and depend on the polygon alone.
func wachspress(points []float64, f []int, n geom.Vec3, x geom.Vec3, out []float64) {
	k := len(f)
	var A [64]float64
	var v [64]geom.Vec3
	for i := 0; i < k; i++ {
		v[i] = geom.At(points, f[i])
	}
	for j := 0; j < k; j++ {
		A[j] = v[j].Sub(x).Cross(v[(j+1)%k].Sub(x)).Dot(n) / 2
	}
	sum := 0.0
	for i := 0; i < k; i++ {
		prev, next := v[(i+k-1)%k], v[(i+1)%k]
		w := prev.Sub(v[i]).Cross(next.Sub(v[i])).Dot(n) / 2
		w = -w // (vᵢ₋₁, vᵢ, vᵢ₊₁) is clockwise seen along n for a convex counter-clockwise polygon
		for j := 0; j < k; j++ {
			if j == (i+k-1)%k || j == i {
				continue
			}
			w *= A[j]
		}
		out[i] = w
		sum += w
	}
	for i := 0; i < k; i++ {
		out[i] /= sum
	}
}
