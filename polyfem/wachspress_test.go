package polyfem

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sofago/sofago/geom"
)

// Wachspress coordinates: on a parallelogram they are the bilinear
// functions (the boundary data that makes a hexahedron's harmonic shape
// functions trilinear); on a convex hexagon they are positive inside,
// sum to one, reproduce x, and are the Lagrange functions at the
// vertices (1e-15).
func TestWachspress(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	// Parallelogram in a tilted plane.
	u, v := geom.Vec3{1, 0.2, 0.1}, geom.Vec3{0.3, 0.8, -0.2}
	o := geom.Vec3{0.5, -0.3, 0.2}
	pts := []float64{}
	for _, c := range []geom.Vec3{o, o.Add(u), o.Add(u).Add(v), o.Add(v)} {
		pts = append(pts, c[0], c[1], c[2])
	}
	f := []int{0, 1, 2, 3}
	n := u.Cross(v).Normalized()
	w := make([]float64, 4)
	for i := 0; i < 100; i++ {
		s, r := rng.Float64(), rng.Float64()
		wachspress(pts, f, n, o.Add(u.Scale(s)).Add(v.Scale(r)), w)
		want := []float64{(1 - s) * (1 - r), s * (1 - r), s * r, (1 - s) * r}
		for k := range w {
			if math.Abs(w[k]-want[k]) > 1e-15 {
				t.Fatalf("parallelogram (%g, %g): λ = %v, bilinear %v", s, r, w, want)
			}
		}
	}
	// Convex hexagon (a perturbed regular one) in the plane z = 0.
	pts = pts[:0]
	for k := 0; k < 6; k++ {
		a := 2*math.Pi*float64(k)/6 + 0.1*rng.Float64()
		r := 1 + 0.1*rng.Float64()
		pts = append(pts, r*math.Cos(a), r*math.Sin(a), 0)
	}
	f = []int{0, 1, 2, 3, 4, 5}
	n = geom.Vec3{0, 0, 1}
	w = make([]float64, 6)
	for k := 0; k < 6; k++ {
		wachspress(pts, f, n, geom.At(pts, k), w)
		for j := range w {
			if d := math.Abs(w[j] - b2f(j == k)); d > 1e-15 {
				t.Fatalf("vertex %d: λ = %v", k, w)
			}
		}
	}
	for i := 0; i < 200; i++ {
		x := geom.Vec3{0.8 * (2*rng.Float64() - 1), 0.8 * (2*rng.Float64() - 1), 0}
		if x.Norm() > 0.8 {
			continue
		}
		wachspress(pts, f, n, x, w)
		sum := -1.0
		y := x.Scale(-1)
		for k := range w {
			if !(w[k] > 0) {
				t.Fatalf("λ%d = %g ≤ 0 inside", k, w[k])
			}
			sum += w[k]
			y = y.Add(geom.At(pts, k).Scale(w[k]))
		}
		if math.Abs(sum) > 1e-15 || y.Norm() > 1e-15 {
			t.Fatalf("Σλ − 1 = %g, Σλv − x = %v", sum, y)
		}
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
