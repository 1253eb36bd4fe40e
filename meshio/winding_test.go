package meshio

import (
	"math"
	"math/rand/v2"
	"testing"
)

// octahedron returns the regular octahedron with vertices ±e_i, outward:
// its volume is exactly 4/3.
func octahedron() *Mesh {
	m := &Mesh{Points: []float64{1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1}}
	for _, sx := range []int{0, 1} {
		for _, sy := range []int{2, 3} {
			for _, sz := range []int{4, 5} {
				t := [3]int{sx, sy, sz}
				// Reflecting one axis reverses the orientation: swap when the
				// octant has an odd number of negative axes.
				if (sx+sy+sz)%2 == 1 {
					t[1], t[2] = t[2], t[1]
				}
				m.Triangles = append(m.Triangles, t)
			}
		}
	}
	return m
}

// TestEnclosedVolume: the octahedron encloses exactly 4/3, wherever it is
// (the divergence theorem does not depend on the origin); flipped, −4/3.
func TestEnclosedVolume(t *testing.T) {
	m := octahedron()
	if v := m.EnclosedVolume(); math.Abs(v-4.0/3) > 1e-15 {
		t.Errorf("octahedron volume %v, want 4/3", v)
	}
	for i := range m.Points {
		m.Points[i] += []float64{10, -20, 30}[i%3]
	}
	// Terms of size ~30³ cancel down to 4/3: rounding of a few ulp of 3e4.
	if v := m.EnclosedVolume(); math.Abs(v-4.0/3) > 1e-10 {
		t.Errorf("translated octahedron volume %v, want 4/3", v)
	}
	flipped := flip(m)
	if v := flipped.EnclosedVolume(); math.Abs(v+4.0/3) > 1e-10 {
		t.Errorf("inward octahedron volume %v, want −4/3", v)
	}
}

func flip(m *Mesh) *Mesh {
	out := &Mesh{Points: m.Points}
	for _, t := range m.Triangles {
		out.Triangles = append(out.Triangles, [3]int{t[0], t[2], t[1]})
	}
	return out
}

// TestShapesAreClosedAndConverge: the generated surfaces are closed,
// outward (positive volume), and their volumes converge to the smooth
// shapes' at second order in the segment size: halving the segments
// divides the error by 4 (within 10%).
func TestShapesAreClosedAndConverge(t *testing.T) {
	const R, r, L = 1.0, 0.3, 2.0
	shapes := []struct {
		name   string
		make   func(k int) (*Mesh, error)
		smooth float64
	}{
		{"sphere", func(k int) (*Mesh, error) { return SphereSurface(R, 16*k, 8*k) }, 4 * math.Pi / 3},
		{"capsule", func(k int) (*Mesh, error) { return CapsuleSurface(r, L, 16*k, 4*k, 2*k) }, math.Pi*r*r*L + 4*math.Pi/3*r*r*r},
		{"torus", func(k int) (*Mesh, error) { return TorusSurface(R, r, 24*k, 12*k) }, 2 * math.Pi * math.Pi * R * r * r},
	}
	for _, s := range shapes {
		var errs []float64
		for _, k := range []int{1, 2, 4} {
			m, err := s.make(k)
			if err != nil {
				t.Fatal(err)
			}
			if err := m.Validate(); err != nil {
				t.Fatalf("%s: %v", s.name, err)
			}
			if n := m.BoundaryEdges(); n != 0 {
				t.Fatalf("%s ×%d: %d boundary edges", s.name, k, n)
			}
			v := m.EnclosedVolume()
			if !(v > 0 && v < s.smooth) {
				t.Fatalf("%s ×%d: volume %v, want in (0, %v) (inscribed polyhedron, outward)", s.name, k, v, s.smooth)
			}
			errs = append(errs, (s.smooth-v)/s.smooth)
		}
		for i := 1; i < len(errs); i++ {
			if ratio := errs[i-1] / errs[i]; math.Abs(ratio-4) > 0.4 {
				t.Errorf("%s: volume errors %v: ratio %v, want 4 (second order)", s.name, errs, ratio)
			}
		}
		t.Logf("%s: relative volume deficits %.3g", s.name, errs)
	}
}

// TestWindingNumber checks the generalized winding number of closed
// surfaces against its defining values: 1 inside, 0 outside, exactly 1/2
// at a face (the face's principal value), −1 inside an inward-oriented
// surface, 2 inside a surface stored twice; and that an open surface gives
// a value between 0 and 1 (Jacobson et al.'s graceful degradation).
//
// Tolerance 1e-10: w is a sum of a few thousand atan2 terms of size ≤ π,
// each exact to an ulp, so rounding is ~1e-13.
func TestWindingNumber(t *testing.T) {
	sphere, _ := SphereSurface(1, 48, 24)
	torus, _ := TorusSurface(1, 0.3, 48, 24)
	capsule, _ := CapsuleSurface(0.3, 2, 32, 8, 8)
	rng := rand.New(rand.NewPCG(1, 2))
	// Points inside: well within the inscribed polyhedra (whose faces are
	// at least cos(π/24)·radius ≈ 0.991·radius from the centre or axis).
	type shape struct {
		name   string
		m      *Mesh
		inside func() [3]float64
	}
	ball := func(c [3]float64, rad float64) [3]float64 {
		for {
			p := [3]float64{2*rng.Float64() - 1, 2*rng.Float64() - 1, 2*rng.Float64() - 1}
			if p[0]*p[0]+p[1]*p[1]+p[2]*p[2] < 1 {
				return [3]float64{c[0] + rad*p[0], c[1] + rad*p[1], c[2] + rad*p[2]}
			}
		}
	}
	shapes := []shape{
		{"sphere", sphere, func() [3]float64 { return ball([3]float64{}, 0.95) }},
		{"torus", torus, func() [3]float64 {
			u := 2 * math.Pi * rng.Float64()
			return ball([3]float64{math.Cos(u), math.Sin(u), 0}, 0.28)
		}},
		{"capsule", capsule, func() [3]float64 { return ball([3]float64{2 * rng.Float64(), 0, 0}, 0.28) }},
	}
	const tol = 1e-10
	for _, s := range shapes {
		w := NewWinding(s.m)
		inward := NewWinding(flip(s.m))
		twice := &Mesh{Points: s.m.Points, Triangles: append(append([][3]int{}, s.m.Triangles...), s.m.Triangles...)}
		w2 := NewWinding(twice)
		for i := 0; i < 50; i++ {
			q := s.inside()
			if got := w.At(q); math.Abs(got-1) > tol {
				t.Fatalf("%s: w(%v) = %v inside, want 1", s.name, q, got)
			}
			if got := inward.At(q); math.Abs(got+1) > tol {
				t.Fatalf("%s inward: w(%v) = %v, want −1", s.name, q, got)
			}
			if got := w2.At(q); math.Abs(got-2) > tol {
				t.Fatalf("%s twice: w(%v) = %v, want 2", s.name, q, got)
			}
			// Outside: beyond the bounding sphere of every shape, and in
			// the torus's hole.
			dir := ball([3]float64{}, 1)
			n := math.Sqrt(dir[0]*dir[0] + dir[1]*dir[1] + dir[2]*dir[2])
			out := [3]float64{3.5 * dir[0] / n, 3.5 * dir[1] / n, 3.5 * dir[2] / n}
			if got := w.At(out); math.Abs(got) > tol {
				t.Fatalf("%s: w(%v) = %v outside, want 0", s.name, out, got)
			}
		}
		if s.name == "torus" {
			if got := w.At([3]float64{0.1, -0.2, 0.05}); math.Abs(got) > tol {
				t.Errorf("torus: w = %v in the hole, want 0", got)
			}
		}
		// On the surface: the centroid of every 7th face.
		for f := 0; f < len(s.m.Triangles); f += 7 {
			tr := s.m.Triangles[f]
			var q [3]float64
			for _, v := range tr {
				for a := 0; a < 3; a++ {
					q[a] += s.m.Points[3*v+a] / 3
				}
			}
			if got := w.At(q); math.Abs(got-0.5) > tol {
				t.Fatalf("%s: w = %v at the centroid of face %d, want 1/2", s.name, got, f)
			}
		}
	}

	// An open surface: the sphere without its first 48 faces (the polar
	// cap). Inside, w = 1 − (solid angle of the hole)/4π: strictly between
	// 0 and 1, and computable — at the centre it is the cap's share of
	// the sphere, which the missing triangles' own winding gives.
	polar := &Mesh{Points: sphere.Points, Triangles: sphere.Triangles[:48]}
	open := &Mesh{Points: sphere.Points, Triangles: sphere.Triangles[48:]}
	if n := open.BoundaryEdges(); n != 48 {
		t.Errorf("open sphere: %d boundary edges, want 48 (the cap's rim)", n)
	}
	centre := [3]float64{}
	wCap := NewWinding(polar).At(centre)
	wOpen := NewWinding(open).At(centre)
	if !(wCap > 0 && wCap < 0.1) || math.Abs(wOpen+wCap-1) > tol {
		t.Errorf("open sphere: w = %v at the centre, cap %v; want them to sum to 1 with the cap small", wOpen, wCap)
	}
}

// TestBoundaryEdges: a flipped triangle, a missing one, and a vertex
// repeated with identical coordinates (closes again).
func TestBoundaryEdges(t *testing.T) {
	m := octahedron()
	if n := m.BoundaryEdges(); n != 0 {
		t.Fatalf("octahedron: %d boundary edges", n)
	}
	missing := &Mesh{Points: m.Points, Triangles: m.Triangles[1:]}
	if n := missing.BoundaryEdges(); n != 3 {
		t.Errorf("missing face: %d boundary edges, want 3", n)
	}
	flipped := &Mesh{Points: m.Points, Triangles: append([][3]int{}, m.Triangles...)}
	f := flipped.Triangles[0]
	flipped.Triangles[0] = [3]int{f[0], f[2], f[1]}
	if n := flipped.BoundaryEdges(); n != 3 {
		t.Errorf("flipped face: %d boundary edges, want 3", n)
	}
	// Vertex 0 duplicated as vertex 6, used by one face: same coordinates,
	// so the surface is still closed.
	dup := &Mesh{Points: append(append([]float64{}, m.Points...), m.Points[0:3]...), Triangles: append([][3]int{}, m.Triangles...)}
	for i, tr := range dup.Triangles {
		if tr[0] == 0 {
			dup.Triangles[i][0] = 6
			break
		}
	}
	if n := dup.BoundaryEdges(); n != 0 {
		t.Errorf("duplicated vertex: %d boundary edges, want 0", n)
	}
}

// TestWindingAtPointsMatchesAt: the parallel evaluation gives exactly the
// serial values.
func TestWindingAtPointsMatchesAt(t *testing.T) {
	m, _ := TorusSurface(1, 0.4, 24, 12)
	w := NewWinding(m)
	rng := rand.New(rand.NewPCG(3, 4))
	qs := make([]float64, 3*101)
	for i := range qs {
		qs[i] = 3*rng.Float64() - 1.5
	}
	out := make([]float64, 101)
	w.AtPoints(qs, out)
	for i := range out {
		if want := w.At([3]float64{qs[3*i], qs[3*i+1], qs[3*i+2]}); out[i] != want {
			t.Fatalf("point %d: %v, want %v", i, out[i], want)
		}
	}
}

// TestFastWinding measures the hierarchical approximation against the
// exact sum at points all over and around the test shapes, many of them
// close to the surface: the error stays below 0.05 (measured: 0.015 to
// 0.03; Inside falls back to the exact sum outside a band of ±1/4 around
// integers, 5 times this bound), and Inside agrees with |At| ≥ 1/2 everywhere, including on the
// surface (face centroids, w = 1/2: the fallback evaluates them exactly).
func TestFastWinding(t *testing.T) {
	sphere, _ := SphereSurface(1, 72, 36)
	torus, _ := TorusSurface(1, 0.3, 64, 24)
	capsule, _ := CapsuleSurface(0.3, 2, 32, 8, 12)
	rng := rand.New(rand.NewPCG(9, 10))
	for _, s := range []struct {
		name string
		m    *Mesh
	}{{"sphere", sphere}, {"torus", torus}, {"capsule", capsule}} {
		w := NewWinding(s.m)
		var qs []float64
		// Random points in the bounding box, enlarged by 20%.
		lo, hi := [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}, [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
		for i := 0; i < s.m.NumPoints(); i++ {
			for a := 0; a < 3; a++ {
				lo[a], hi[a] = math.Min(lo[a], s.m.Points[3*i+a]), math.Max(hi[a], s.m.Points[3*i+a])
			}
		}
		for i := 0; i < 3000; i++ {
			for a := 0; a < 3; a++ {
				ext := hi[a] - lo[a]
				qs = append(qs, lo[a]-0.2*ext+1.4*ext*rng.Float64())
			}
		}
		// Points near the surface: face centroids moved along ±normal by
		// 1e-6 to 1e-1 of the shape's size, and the centroids themselves.
		for f := 0; f < len(s.m.Triangles); f += 5 {
			tr := s.m.Triangles[f]
			p := func(k int) [3]float64 { return [3]float64{s.m.Points[3*k], s.m.Points[3*k+1], s.m.Points[3*k+2]} }
			a, b, c := p(tr[0]), p(tr[1]), p(tr[2])
			u := [3]float64{b[0] - a[0], b[1] - a[1], b[2] - a[2]}
			v := [3]float64{c[0] - a[0], c[1] - a[1], c[2] - a[2]}
			n := [3]float64{u[1]*v[2] - u[2]*v[1], u[2]*v[0] - u[0]*v[2], u[0]*v[1] - u[1]*v[0]}
			nn := math.Sqrt(n[0]*n[0] + n[1]*n[1] + n[2]*n[2])
			off := math.Pow(10, -1-5*rng.Float64()) * (1 - 2*float64(f/5%2))
			if f%35 == 0 {
				off = 0
			}
			for k := 0; k < 3; k++ {
				qs = append(qs, (a[k]+b[k]+c[k])/3+off*n[k]/nn)
			}
		}
		worst := 0.0
		for i := 0; i < len(qs)/3; i++ {
			q := [3]float64{qs[3*i], qs[3*i+1], qs[3*i+2]}
			worst = math.Max(worst, math.Abs(w.Fast(q)-w.At(q)))
		}
		if worst > 0.05 {
			t.Errorf("%s: Fast differs from At by up to %.3g", s.name, worst)
		}
		inside := make([]bool, len(qs)/3)
		w.Inside(qs, inside)
		for i, in := range inside {
			if want := math.Abs(w.At([3]float64{qs[3*i], qs[3*i+1], qs[3*i+2]})) >= 0.5; in != want {
				t.Fatalf("%s: point %d: Inside %v, |At| ≥ 1/2 %v", s.name, i, in, want)
			}
		}
		t.Logf("%s: %d points, max |Fast − At| = %.2g", s.name, len(qs)/3, worst)
	}
}
