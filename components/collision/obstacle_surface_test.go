package collision

import (
	"math"
	"testing"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/meshio"
)

// checkClosedOutward checks that triangles form a closed, consistently
// oriented surface (every directed edge once, its reverse once) over
// points, and returns the volume it encloses (positive when the
// triangles face outward).
func checkClosedOutward(t *testing.T, points []float64, tris [][3]int) float64 {
	t.Helper()
	count := map[[2]int]int{}
	for _, tr := range tris {
		for k := 0; k < 3; k++ {
			if tr[k] < 0 || 3*tr[k]+2 >= len(points) {
				t.Fatalf("triangle %v indexes past the %d points", tr, len(points)/3)
			}
			count[[2]int{tr[k], tr[(k+1)%3]}]++
		}
	}
	for e, n := range count {
		if n != 1 || count[[2]int{e[1], e[0]}] != 1 {
			t.Fatalf("edge %v appears %d times, its reverse %d: not a closed oriented surface", e, n, count[[2]int{e[1], e[0]}])
		}
	}
	return (&meshio.Mesh{Points: points, Triangles: tris}).EnclosedVolume()
}

// The drawn surface of an obstacle is the boundary of the shape its
// contact law uses: a point just behind each face (by ε along the face's
// normal) is inside at depth ε with that face's normal as contact normal,
// and a point just in front of it is outside. So the picture shows the
// obstacle where points are stopped.
func TestObstacleSurfaceIsTheContactBoundary(t *testing.T) {
	pen := Penalty{Stiffness: 1e4, SlipVelocity: 1e-3}
	box := &BoxForceField{Center: [3]float64{0.3, -0.2, 1}, HalfSize: [3]float64{0.1, 0.5, 0.25}, Rotation: [3]float64{20, -35, 70}, Penalty: pen}
	sphere := &SphereForceField{Center: [3]float64{-1, 2, 0.5}, Radius: 0.4, Penalty: pen}
	torus, err := meshio.TorusSurface(1, 0.3, 32, 16)
	if err != nil {
		t.Fatal(err)
	}
	mesh := &MeshObstacleForceField{Penalty: pen}
	if p, _ := mesh.ObstacleSurface(); p != nil {
		t.Error("a mesh obstacle has a surface before Init")
	}
	if err := mesh.setMesh(torus.Points, torus.Triangles); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		ff   interface {
			obstacleUnderTest
			ObstacleSurface() ([]float64, [][3]int)
		}
		volume float64 // enclosed by the drawn surface
		tol    float64 // relative
		flat   bool    // a triangle's interior lies on the shape's boundary
	}{
		// A box's triangles are its faces exactly: the volume to rounding.
		{"box", box, 8 * 0.1 * 0.5 * 0.25, 1e-12, true},
		// The polyhedron inscribed in the ball (its vertices on the sphere)
		// encloses less than the ball and more than the ball of radius
		// its smallest distance from the centre to a face (checked below);
		// here only the upper bound.
		{"sphere", sphere, 4.0 / 3 * math.Pi * 0.4 * 0.4 * 0.4, 1, false},
		// A mesh obstacle draws its own triangles: the same polyhedron.
		{"mesh", mesh, torus.EnclosedVolume(), 1e-12, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.name != "mesh" { // set up by setMesh; Validate wants a file
				if err := c.ff.Validate(); err != nil {
					t.Fatal(err)
				}
			}
			sh := engineOf(c.ff).shape
			pts, tris := c.ff.ObstacleSurface()
			if len(tris) == 0 {
				t.Fatal("no triangles")
			}
			vol := checkClosedOutward(t, pts, tris)
			if math.Abs(vol-c.volume) > c.tol*c.volume || (!c.flat && vol > c.volume) {
				t.Errorf("encloses %.12g m³, want %.12g (relative %.1g)", vol, c.volume, c.tol)
			}
			var lo, hi geom.Vec3
			for i := 0; i < len(pts)/3; i++ {
				p := geom.At(pts, i)
				for a := 0; a < 3; a++ {
					lo[a], hi[a] = math.Min(lo[a], p[a]), math.Max(hi[a], p[a])
				}
				if c.name == "sphere" {
					// Every vertex on the sphere.
					if r := p.Sub(geom.Vec3(sphere.Center)).Norm(); math.Abs(r-sphere.Radius) > 1e-12 {
						t.Fatalf("vertex %d at distance %.15g from the centre, want %g", i, r, sphere.Radius)
					}
				}
			}
			if c.name == "sphere" {
				rIn := math.Inf(1)
				for _, tr := range tris {
					a, b, cc := geom.At(pts, tr[0]), geom.At(pts, tr[1]), geom.At(pts, tr[2])
					n := b.Sub(a).Cross(cc.Sub(a)).Normalized()
					rIn = math.Min(rIn, a.Sub(geom.Vec3(sphere.Center)).Dot(n))
				}
				// The faces' distance is R cos of half their angular size:
				// at least R·cos(π/24)·cos(π/48) for 48 × 24 segments.
				if rIn < sphere.Radius*math.Cos(math.Pi/24)*math.Cos(math.Pi/48) {
					t.Errorf("a face is %g from the centre: the tessellation is coarser than 48 × 24", rIn)
				}
				if vIn := 4.0 / 3 * math.Pi * rIn * rIn * rIn; vol < vIn {
					t.Errorf("encloses %g m³, less than the inscribed ball's %g", vol, vIn)
				}
			}
			size := hi.Sub(lo).Norm()
			eps := 1e-6 * size
			for k, tr := range tris {
				a, b, cc := geom.At(pts, tr[0]), geom.At(pts, tr[1]), geom.At(pts, tr[2])
				n := b.Sub(a).Cross(cc.Sub(a)).Normalized()
				g := a.Add(b).Add(cc).Scale(1.0 / 3)
				if d, _, _, _ := sh.penetration(g.Add(n.Scale(eps))); d > 0 && c.flat {
					t.Fatalf("triangle %d: a point %g in front of it is inside (depth %g)", k, eps, d)
				}
				if !c.flat {
					// A chord's centroid is inside the ball; its outward
					// normal points away from the centre.
					if d, nc, _, _ := sh.penetration(g); !(d > 0) || nc.Dot(n) < 0.99 {
						t.Fatalf("triangle %d: centroid depth %g, normal %v against the contact's %v", k, d, n, nc)
					}
					continue
				}
				d, nc, _, _ := sh.penetration(g.Sub(n.Scale(eps)))
				// 1e-9·size: rounding of the centroid and the transforms.
				if math.Abs(d-eps) > 1e-9*size || nc.Dot(n) < 1-1e-9 {
					t.Fatalf("triangle %d: a point %g behind it has depth %g and contact normal %v, want %g along %v", k, eps, d, nc, eps, n)
				}
			}
		})
	}
}

// The drawn plane is the contact plane: unit normal, same offset.
func TestObstaclePlane(t *testing.T) {
	p := &PlaneForceField{Normal: [3]float64{0, 3, 4}, D: 0.5, Penalty: Penalty{Stiffness: 1e4, SlipVelocity: 1e-3}}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	n, d := p.ObstaclePlane()
	if geom.Vec3(n).Sub(geom.Vec3{0, 0.6, 0.8}).Norm() > 1e-15 || d != 0.5 {
		t.Errorf("plane n = %v, d = %g; want (0, 0.6, 0.8), 0.5", n, d)
	}
	// On the plane: depth zero; in front of it: outside.
	on := geom.Vec3(n).Scale(d)
	if dd, _, _, _ := p.obs.shape.penetration(on); math.Abs(dd) > 1e-15 {
		t.Errorf("n·d is at depth %g", dd)
	}
}
