package topology

import (
	"errors"
	"fmt"
	"math"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
)

// RodTopology is the centre line of a rod: n frames along a polyline (or
// a helix), for a Rigid3 MechanicalObject in the same node (which takes
// them as its rest shape, graph.FrameTopology) and BeamFEMForceField.
//
// The frames sit at equal arc-length spacing along the polyline `points`
// (its vertices when n is not given); each frame's x axis is the centre
// line's tangent there (the mean of the two neighbouring chords' directions; at the ends, extrapolated linearly from the two end chords), its y
// axis starts along `normal` (projected off the first tangent; default:
// the world axis most perpendicular to it) and is carried along by
// parallel transport (the rotation taking one tangent to the next), so
// the rest shape has no twist. A helix (helixRadius, helixPitch, turns)
// about the z axis through `center` replaces the polyline. Points are the
// frame origins, Edges the chain 0–1, 1–2, ...
type RodTopology struct {
	graph.ObjectBase
	PointsIn    [][3]float64 `toml:"points" doc:"vertices of the centre line (a polyline of at least 2 points)" unit:"m"`
	N           int          `toml:"n" doc:"number of frames, evenly spaced by arc length (default: one per vertex of points; 64 per turn for a helix)" range:"[2,inf)"`
	Normal      [3]float64   `toml:"normal" doc:"direction of the first frame's y axis (projected off the tangent; default: the world axis most perpendicular to it)"`
	HelixRadius float64      `toml:"helixRadius" doc:"radius of a helix about the z axis (instead of points)" unit:"m" range:"[0,inf)"`
	HelixPitch  float64      `toml:"helixPitch" doc:"rise of the helix per turn" unit:"m"`
	Turns       float64      `toml:"turns" doc:"number of turns of the helix" range:"[0,inf)"`
	Center      [3]float64   `toml:"center" doc:"point of the helix's axis where it starts (at angle 0 the helix passes through center + [helixRadius, 0, 0])" unit:"m"`

	points []float64
	frames []float64
}

func init() {
	graph.Register(graph.TypeInfo{
		Name:    "RodTopology",
		Kind:    graph.KindTopology,
		Summary: "Centre line of a rod: n frames (x along the tangent, parallel-transported y) evenly spaced along a polyline or a helix, the rest shape of a Rigid3 MechanicalObject for BeamFEMForceField.",
		New:     func() graph.Object { return &RodTopology{} },
	})
}

// Validate checks that exactly one centre line is given.
func (r *RodTopology) Validate() error {
	helix := r.HelixRadius > 0 || r.Turns > 0 || r.HelixPitch != 0
	switch {
	case helix && len(r.PointsIn) > 0:
		return errors.New("give points (a polyline) or a helix (helixRadius, helixPitch, turns), not both")
	case helix && !(r.HelixRadius > 0 && r.Turns > 0):
		return errors.New("a helix needs helixRadius > 0 and turns > 0")
	case !helix && len(r.PointsIn) < 2:
		return errors.New("no centre line: give points (at least 2) or a helix (helixRadius, turns)")
	}
	return nil
}

// Init builds the frames.
func (r *RodTopology) Init() error {
	if err := r.Validate(); err != nil {
		return r.Wrap(err)
	}
	poly := make([]geom.Vec3, 0, len(r.PointsIn))
	n := r.N
	if r.HelixRadius > 0 {
		m := int(math.Ceil(256 * r.Turns)) // fine polyline, resampled below
		for i := 0; i <= m; i++ {
			th := 2 * math.Pi * r.Turns * float64(i) / float64(m)
			poly = append(poly, geom.Vec3{r.Center[0] + r.HelixRadius*math.Cos(th), r.Center[1] + r.HelixRadius*math.Sin(th), r.Center[2] + r.HelixPitch*th/(2*math.Pi)})
		}
		if n == 0 {
			n = int(math.Ceil(64*r.Turns)) + 1
		}
	} else {
		for _, p := range r.PointsIn {
			poly = append(poly, p)
		}
		if n == 0 {
			n = len(poly)
		}
	}
	pts, err := resample(poly, n, r.N == 0 && r.HelixRadius == 0)
	if err != nil {
		return r.Wrap(err)
	}
	r.points = make([]float64, 0, 3*n)
	r.frames = make([]float64, 0, 7*n)
	var y geom.Vec3
	var prevT geom.Vec3
	for i := range pts {
		var t geom.Vec3
		last := len(pts) - 1
		switch {
		case i == 0 && last >= 2:
			// Linear extrapolation from the chords' midpoints: the end chord alone is
			// off by half the turn of the first element.
			t = pts[1].Sub(pts[0]).Normalized().Scale(1.5).Sub(pts[2].Sub(pts[1]).Normalized().Scale(0.5))
		case i == last && last >= 2:
			t = pts[i].Sub(pts[i-1]).Normalized().Scale(1.5).Sub(pts[i-1].Sub(pts[i-2]).Normalized().Scale(0.5))
		case i == 0:
			t = pts[1].Sub(pts[0])
		case i == last:
			t = pts[i].Sub(pts[i-1])
		default:
			t = pts[i+1].Sub(pts[i]).Normalized().Add(pts[i].Sub(pts[i-1]).Normalized())
		}
		if t.Norm() == 0 {
			return r.Errorf("the centre line turns back on itself at frame %d", i)
		}
		t = t.Normalized()
		if i == 0 {
			y = geom.Vec3(r.Normal)
			if y.Norm() == 0 {
				y = leastAligned(t)
			}
			y = y.Sub(t.Scale(y.Dot(t)))
			if y.Norm() < 1e-9 {
				return r.Errorf("normal %v is along the first tangent %v", r.Normal, t)
			}
		} else {
			// Parallel transport: rotate y by the rotation taking prevT to t.
			ax := prevT.Cross(t)
			if s := ax.Norm(); s > 1e-15 {
				ang := math.Atan2(s, prevT.Dot(t))
				y = geom.QuatFromAxisAngle(ax, ang).Rotate(y)
			}
			y = y.Sub(t.Scale(y.Dot(t)))
		}
		y = y.Normalized()
		z := t.Cross(y)
		q := geom.QuatFromMat(geom.Cols(t, y, z)).Normalized()
		r.points = append(r.points, pts[i][0], pts[i][1], pts[i][2])
		r.frames = append(r.frames, pts[i][0], pts[i][1], pts[i][2], q[0], q[1], q[2], q[3])
		prevT = t
	}
	return nil
}

// leastAligned returns the world axis most perpendicular to t.
func leastAligned(t geom.Vec3) geom.Vec3 {
	best, bi := math.Inf(1), 0
	for i := 0; i < 3; i++ {
		if a := math.Abs(t[i]); a < best {
			best, bi = a, i
		}
	}
	var e geom.Vec3
	e[bi] = 1
	return e
}

// resample returns n points evenly spaced by arc length along poly (poly
// itself when keep).
func resample(poly []geom.Vec3, n int, keep bool) ([]geom.Vec3, error) {
	cum := make([]float64, len(poly))
	for i := 1; i < len(poly); i++ {
		d := poly[i].Sub(poly[i-1]).Norm()
		if d == 0 {
			return nil, fmt.Errorf("points[%d] repeats points[%d]: zero-length segment", i, i-1)
		}
		cum[i] = cum[i-1] + d
	}
	if keep {
		return poly, nil
	}
	out := make([]geom.Vec3, n)
	total := cum[len(cum)-1]
	seg := 0
	for k := 0; k < n; k++ {
		s := total * float64(k) / float64(n-1)
		for seg < len(poly)-2 && cum[seg+1] < s {
			seg++
		}
		u := (s - cum[seg]) / (cum[seg+1] - cum[seg])
		out[k] = poly[seg].Add(poly[seg+1].Sub(poly[seg]).Scale(u))
	}
	return out, nil
}

// Points returns the frame origins.
func (r *RodTopology) Points() []float64 { return r.points }

// Frames returns the rest frames, 7 numbers [t q] each.
func (r *RodTopology) Frames() []float64 { return r.frames }

// Tetrahedra returns nil: a rod has none.
func (r *RodTopology) Tetrahedra() [][4]int { return nil }

// Triangles returns nil: see TubeTopology for a surface.
func (r *RodTopology) Triangles() [][3]int { return nil }

// Edges returns the chain of elements.
func (r *RodTopology) Edges() [][2]int {
	e := make([][2]int, 0, len(r.points)/3)
	for i := 0; i+1 < len(r.points)/3; i++ {
		e = append(e, [2]int{i, i + 1})
	}
	return e
}

// TubeTopology is the surface of a tube of radius `radius` around the
// centre line of a RodTopology (link rod; default: the topology of the
// parent node): a ring of `sides` points about every frame, in the plane
// of its y and z axes, closed at both ends by a centre point, and the
// outward triangles between them. Each point rides on its frame
// (graph.PointFrameTopology), so a RigidMapping from the rod's Rigid3
// state carries the surface with the rod without further fields: for
// pictures (VisualModel), outputs and point contacts (PlaneForceField,
// SphereForceField on the mapped points).
type TubeTopology struct {
	graph.ObjectBase
	Rod    graph.Link `toml:"rod" doc:"the RodTopology of the centre line (default: the topology of the parent node)"`
	Radius float64    `toml:"radius" doc:"radius of the tube" unit:"m" range:"(0,inf)" required:"true"`
	Sides  int        `toml:"sides" doc:"points per ring" range:"[3,inf)"`
	Axis   bool       `toml:"axis" doc:"serve only the centre line: one point at every frame's origin and no triangles (contacts of the axis with obstacles, which then need an offset of the radius)"`

	points []float64
	tris   [][3]int
	frame  []int
}

func init() {
	graph.Register(graph.TypeInfo{
		Name:    "TubeTopology",
		Kind:    graph.KindTopology,
		Summary: "Triangulated tube around a RodTopology's centre line (a ring per frame, capped ends); each point rides on its frame, so RigidMapping from the rod's Rigid3 state needs no indices.",
		New:     func() graph.Object { return &TubeTopology{Sides: 12} },
	})
}

// Init builds the rings from the rod's rest frames.
func (tb *TubeTopology) Init() error {
	var rod *RodTopology
	if tb.Rod.IsSet() {
		r, ok := tb.Rod.Object.(*RodTopology)
		if !ok {
			return tb.Errorf("rod = %q is not a RodTopology", tb.Rod.Path)
		}
		rod = r
	} else if p := tb.Node.Parent; p != nil {
		r, ok := p.Topology().(*RodTopology)
		if !ok {
			return tb.Errorf("no rod: give rod = \"@path/to/RodTopology\" (the parent node has no RodTopology)")
		}
		rod = r
	} else {
		return tb.Errorf("no rod: give rod = \"@path/to/RodTopology\"")
	}
	fr := rod.Frames()
	if len(fr) == 0 {
		return tb.Errorf("rod %q has no frames (not initialised)", rod.Base().Path())
	}
	nf, s := len(fr)/7, tb.Sides
	tb.points = tb.points[:0]
	tb.frame = tb.frame[:0]
	tb.tris = tb.tris[:0]
	if tb.Axis {
		for i := 0; i < nf; i++ {
			tb.points = append(tb.points, fr[7*i], fr[7*i+1], fr[7*i+2])
			tb.frame = append(tb.frame, i)
		}
		return nil
	}
	for i := 0; i < nf; i++ {
		c := fr[7*i : 7*i+7]
		q := geom.Quat{c[3], c[4], c[5], c[6]}
		o := geom.Vec3{c[0], c[1], c[2]}
		for k := 0; k < s; k++ {
			a := 2 * math.Pi * float64(k) / float64(s)
			p := o.Add(q.Rotate(geom.Vec3{0, tb.Radius * math.Cos(a), tb.Radius * math.Sin(a)}))
			tb.points = append(tb.points, p[0], p[1], p[2])
			tb.frame = append(tb.frame, i)
		}
	}
	// Rings: the frame's x axis runs along the rod, the ring turns from y
	// to z, so (p_k+1 − p_k) × (next ring − p_k) points out.
	for i := 0; i+1 < nf; i++ {
		for k := 0; k < s; k++ {
			a, b := i*s+k, i*s+(k+1)%s
			c, d := a+s, b+s
			tb.tris = append(tb.tris, [3]int{a, b, c}, [3]int{b, d, c})
		}
	}
	// Caps: centre points at both ends.
	for end, i := range []int{0, nf - 1} {
		c := fr[7*i : 7*i+3]
		ci := len(tb.points) / 3
		tb.points = append(tb.points, c[0], c[1], c[2])
		tb.frame = append(tb.frame, i)
		for k := 0; k < s; k++ {
			a, b := i*s+k, i*s+(k+1)%s
			if end == 0 {
				tb.tris = append(tb.tris, [3]int{ci, b, a})
			} else {
				tb.tris = append(tb.tris, [3]int{ci, a, b})
			}
		}
	}
	return nil
}

// Points returns the rest points of the tube.
func (tb *TubeTopology) Points() []float64 { return tb.points }

// Tetrahedra returns nil.
func (tb *TubeTopology) Tetrahedra() [][4]int { return nil }

// Triangles returns the tube's outward triangles.
func (tb *TubeTopology) Triangles() [][3]int { return tb.tris }

// PointFrames returns the frame each point rides on.
func (tb *TubeTopology) PointFrames() []int { return tb.frame }
