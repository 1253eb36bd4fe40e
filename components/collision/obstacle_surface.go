package collision

import (
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/meshio"
)

// What pictures draw of the static obstacles. Package render finds these
// methods through its own small interfaces (render.Obstacle for a closed
// surface, render.GroundPlane for a half-space), so it needs nothing else
// of this package:
//
//	ObstaclePlane() (normal [3]float64, d float64)          // PlaneForceField
//	ObstacleSurface() (points []float64, triangles [][3]int) // Box, Sphere, MeshObstacle
//
// The surfaces are the shapes' boundaries in world coordinates, triangles
// counter-clockwise seen from outside (outward normals), closed and with
// shared vertices, so a renderer may cull their back faces.

// sphereAround and sphereRings are the tessellation of a drawn
// SphereForceField: 48 segments around, 24 from pole to pole (2 256
// triangles), fine enough that the outline is round in an 800×600 picture
// where the sphere fills the height (the chord's sagitta is
// 1 − cos(π/48) = 0.2 % of the radius, under a pixel).
const (
	sphereAround = 48
	sphereRings  = 24
)

// ObstaclePlane returns the plane n·x = d bounding the obstacle: the unit
// normal n pointing out of it (into the free side) and the offset d.
func (p *PlaneForceField) ObstaclePlane() (normal [3]float64, d float64) {
	n := geom.Vec3(p.Normal)
	if l := n.Norm(); l > 0 {
		n = n.Scale(1 / l)
	}
	return n, p.D
}

// ObstacleSurface returns the box's six faces, two triangles each, on its
// eight corners center + R·(±h₀, ±h₁, ±h₂).
func (b *BoxForceField) ObstacleSurface() (points []float64, triangles [][3]int) {
	r := rotationMatrix(b.Rotation)
	c, h := geom.Vec3(b.Center), geom.Vec3(b.HalfSize)
	points = make([]float64, 0, 24)
	// Corner k has local coordinates (±h₀, ±h₁, ±h₂), bit a of k giving the
	// sign along axis a (1: +).
	for k := 0; k < 8; k++ {
		var q geom.Vec3
		for a := 0; a < 3; a++ {
			q[a] = -h[a]
			if k&(1<<a) != 0 {
				q[a] = h[a]
			}
		}
		p := c.Add(r.MulVec(q))
		points = append(points, p[0], p[1], p[2])
	}
	// The face of outward normal ±e_a: its corners have bit a = 1 (+) or
	// 0 (−); going round them with the bits of axes b = a+1 and c = a+2
	// as (0,0), (1,0), (1,1), (0,1) turns counter-clockwise about
	// e_b × e_c = e_a, so the + face takes them in that order and the −
	// face in the reverse one.
	for a := 0; a < 3; a++ {
		bb, cc := 1<<((a+1)%3), 1<<((a+2)%3)
		for _, plus := range []bool{false, true} {
			base := 0
			if plus {
				base = 1 << a
			}
			q := [4]int{base, base | bb, base | bb | cc, base | cc}
			if !plus {
				q[1], q[3] = q[3], q[1]
			}
			triangles = append(triangles, [3]int{q[0], q[1], q[2]}, [3]int{q[0], q[2], q[3]})
		}
	}
	return points, triangles
}

// ObstacleSurface returns a latitude–longitude triangulation of the
// sphere (sphereAround × sphereRings), its vertices on the sphere.
func (s *SphereForceField) ObstacleSurface() (points []float64, triangles [][3]int) {
	m, err := meshio.SphereSurface(s.Radius, sphereAround, sphereRings)
	if err != nil {
		return nil, nil // only for a non-positive radius, which Validate refuses
	}
	for i := 0; i+2 < len(m.Points); i += 3 {
		m.Points[i] += s.Center[0]
		m.Points[i+1] += s.Center[1]
		m.Points[i+2] += s.Center[2]
	}
	return m.Points, m.Triangles
}

// ObstacleSurface returns the obstacle's surface as read, transformed and
// checked by Init (nothing before Init).
func (m *MeshObstacleForceField) ObstacleSurface() (points []float64, triangles [][3]int) {
	if m.shape == nil {
		return nil, nil
	}
	points = append([]float64(nil), m.shape.x...)
	triangles = make([][3]int, len(m.shape.surf.tris))
	for i, t := range m.shape.surf.tris {
		triangles[i] = [3]int{int(t[0]), int(t[1]), int(t[2])}
	}
	return points, triangles
}
