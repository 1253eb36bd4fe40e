package render

import (
	"math"

	"github.com/fogleman/fauxgl"
	"github.com/sofago/sofago/components/visual"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
)

// Obstacle is a static obstacle with a closed surface that pictures draw
// (the collision package's BoxForceField, SphereForceField and
// MeshObstacleForceField implement it). Package render knows obstacles
// only through this interface and GroundPlane, so it imports no
// component.
type Obstacle interface {
	graph.Object
	// ObstacleSurface returns the obstacle's surface in world coordinates
	// after Init: points (xyz per vertex) and triangles, counter-clockwise
	// seen from outside. The obstacle does not move: it is read once.
	ObstacleSurface() (points []float64, triangles [][3]int)
}

// GroundPlane is a static half-space obstacle (PlaneForceField): pictures
// draw a finite patch of its plane under the scene, with the ground grid
// on it.
type GroundPlane interface {
	graph.Object
	// ObstaclePlane returns the plane n·x = d bounding the obstacle, n a
	// unit normal pointing out of it (into the free side).
	ObstaclePlane() (normal [3]float64, d float64)
}

// Colours of the static obstacles (linear 0–1 RGB): the ground patches are
// drawn flat (unlit) in GroundColor, so the grid reads on them from any
// side; solid obstacles are shaded like the surfaces, in ObstacleColor.
var (
	GroundColor   = [3]float64{0.89, 0.88, 0.85}
	ObstacleColor = [3]float64{0.8, 0.68, 0.55}
)

// Plane is the boundary n·x = D of a half-space obstacle, N a unit normal
// toward the free side.
type Plane struct {
	N geom.Vec3
	D float64
}

// Scenery is what a picture draws besides the surfaces: the static
// obstacles, which do not move.
type Scenery struct {
	// Planes are drawn as finite patches under the scene (planePatch); the
	// ground grid goes on the one facing most upward instead of under the
	// scene's bounds.
	Planes []Plane
	// Solids are closed surfaces (points, triangles counter-clockwise seen
	// from outside), shaded in ObstacleColor.
	Solids []visual.Surface
}

// Empty reports whether there is nothing to draw.
func (s Scenery) Empty() bool { return len(s.Planes) == 0 && len(s.Solids) == 0 }

// CollectScenery returns the static obstacles of a scene (after Init):
// the planes of its GroundPlane objects and the surfaces of its Obstacle
// objects, each once however many nodes repeat it (a scene gives every
// object its own PlaneForceField on the same ground, as slope.toml does).
func CollectScenery(s *graph.Scene) Scenery {
	var sc Scenery
	var solids [][]float64
	s.Root.Walk(func(n *graph.Node) error {
		for _, o := range n.Objects {
			switch ob := o.(type) {
			case GroundPlane:
				nn, d := ob.ObstaclePlane()
				pl := Plane{N: geom.Vec3(nn), D: d}
				if !(pl.N.Norm() > 0) || math.IsNaN(d) || math.IsInf(d, 0) {
					continue
				}
				dup := false
				for _, q := range sc.Planes {
					// The same plane to rounding: normals and offsets equal
					// within 1e-12 (relative to the offset, at least 1 m).
					if q.N.Sub(pl.N).Norm() <= 1e-12 && math.Abs(q.D-pl.D) <= 1e-12*math.Max(1, math.Abs(pl.D)) {
						dup = true
						break
					}
				}
				if !dup {
					sc.Planes = append(sc.Planes, pl)
				}
			case Obstacle:
				pts, tris := ob.ObstacleSurface()
				if len(tris) == 0 || !finite(pts) {
					continue
				}
				dup := false
				for _, q := range solids {
					if equalFloats(q, pts) {
						dup = true
						break
					}
				}
				if dup {
					continue
				}
				solids = append(solids, pts)
				sc.Solids = append(sc.Solids, newFixedSurface(o.Base(), pts, tris, ObstacleColor))
			}
		}
		return nil
	})
	return sc
}

func finite(x []float64) bool {
	for _, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

func equalFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// fixedSurface is a surface that does not move (an obstacle's).
type fixedSurface struct {
	base    *graph.ObjectBase
	points  []float64
	tris    [][3]int
	normals []float64
	color   [3]float64
}

func newFixedSurface(base *graph.ObjectBase, points []float64, tris [][3]int, color [3]float64) *fixedSurface {
	s := &fixedSurface{base: base, points: points, tris: tris, normals: make([]float64, len(points)), color: color}
	visual.VertexNormals(s.normals, s.points, s.tris)
	return s
}

func (s *fixedSurface) Base() *graph.ObjectBase { return s.base }
func (s *fixedSurface) SurfaceMesh() ([]float64, [][3]int, []float64) {
	return s.points, s.tris, s.normals
}
func (s *fixedSurface) SurfaceColor() [3]float64 { return s.color }

// planeAxes returns two unit vectors spanning the plane perpendicular to
// the unit vector u, (e1, e2, u) right-handed: e1 is the world axis least
// aligned with u (x, or z when u is within 26° of x), made orthogonal to u.
func planeAxes(u geom.Vec3) (e1, e2 geom.Vec3) {
	a := geom.Vec3{1, 0, 0}
	if math.Abs(u[0]) > 0.9 {
		a = geom.Vec3{0, 0, 1}
	}
	e1 = a.Sub(u.Scale(a.Dot(u))).Normalized()
	return e1, u.Cross(e1)
}

// patch is a finite rectangle of a plane, as drawn: its corners
// counter-clockwise seen from the free side, and the grid lines across it.
type patch struct {
	corners [4]geom.Vec3
	lines   []fauxgl.Line
}

// planePatch returns the patch of plane pl drawn for a scene whose bounds
// are the box [lo, hi]: the rectangle, in the plane's axes (planeAxes),
// around the box's footprint (its corners projected on the plane) grown
// by half the box's diagonal on each side and rounded outward to whole
// grid steps; the grid lines, every step across it, have the ground
// grid's spacing (1, 2 or 5 × 10ⁿ near a tenth of the diagonal).
func planePatch(pl Plane, lo, hi geom.Vec3) patch {
	u := pl.N.Normalized()
	e1, e2 := planeAxes(u)
	size := hi.Sub(lo).Norm()
	if size == 0 {
		size = 1
	}
	step := niceStep(size / gridFactor)
	s0, s1, t0, t1 := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for i := 0; i < 8; i++ {
		p := geom.Vec3{pick(i&1, lo[0], hi[0]), pick(i&2, lo[1], hi[1]), pick(i&4, lo[2], hi[2])}
		s, t := p.Dot(e1), p.Dot(e2)
		s0, s1 = math.Min(s0, s), math.Max(s1, s)
		t0, t1 = math.Min(t0, t), math.Max(t1, t)
	}
	grow := size / 2
	s0, s1 = math.Floor((s0-grow)/step), math.Ceil((s1+grow)/step)
	t0, t1 = math.Floor((t0-grow)/step), math.Ceil((t1+grow)/step)
	origin := u.Scale(pl.D)
	at := func(i, j float64) geom.Vec3 { return origin.Add(e1.Scale(i * step)).Add(e2.Scale(j * step)) }
	p := patch{corners: [4]geom.Vec3{at(s0, t0), at(s1, t0), at(s1, t1), at(s0, t1)}}
	for i := s0; i <= s1; i++ {
		p.lines = append(p.lines, fauxgl.Line{V1: fauxgl.Vertex{Position: vec(at(i, t0))}, V2: fauxgl.Vertex{Position: vec(at(i, t1))}})
	}
	for j := t0; j <= t1; j++ {
		p.lines = append(p.lines, fauxgl.Line{V1: fauxgl.Vertex{Position: vec(at(s0, j))}, V2: fauxgl.Vertex{Position: vec(at(s1, j))}})
	}
	return p
}

// groundIndex returns the plane facing most upward (largest n·up), which
// carries the ground grid, or −1 when there is none.
func groundIndex(planes []Plane, up geom.Vec3) int {
	best, k := math.Inf(-1), -1
	u := up.Normalized()
	for i, pl := range planes {
		if c := pl.N.Normalized().Dot(u); c > best {
			best, k = c, i
		}
	}
	return k
}
