package topology_test

import (
	"math"
	"testing"

	"github.com/sofago/sofago/components/topology"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

const rodScene = `
[[node]]
name = "rod"
  [[node.object]]
  type = "RodTopology"
  name = "line"
  helixRadius = 0.5
  helixPitch = 0.2
  turns = 2
  n = 257
  [[node.object]]
  type = "MechanicalObject"
  name = "frames"
  template = "Rigid3"
  [[node.node]]
  name = "tube"
    [[node.node.object]]
    type = "TubeTopology"
    name = "tube"
    radius = 0.02
    sides = 16
`

// TestRodTopologyHelix: frames on a helix sit on the curve at equal arc
// length, their x axis along its tangent (central chords: error O(h²),
// here below 1e-4), y and z orthonormal; parallel transport along a helix
// twists the frame relative to the Frenet frame at the rate of the
// helix's torsion only (no spurious twist: y stays ⊥ x and varies
// smoothly). The Rigid3 state takes the frames as its rest shape.
func TestRodTopologyHelix(t *testing.T) {
	s := graphtest.MustLoad(t, "rod.toml", rodScene)
	rod := graphtest.Find[*topology.RodTopology](t, s, "rod/line")
	fr := rod.Frames()
	n := len(fr) / 7
	if n != 257 {
		t.Fatalf("%d frames, want 257", n)
	}
	r, c := 0.5, 0.2/(2*math.Pi)
	speed := math.Hypot(r, c)
	st := s.Find("rod/frames").(graph.State)
	for i, v := range st.Vec(graph.RestPosition) {
		if math.Abs(v-fr[i]) > 1e-15 {
			t.Fatalf("the Rigid3 state's rest coordinate %d is %g, the frame's %g", i, v, fr[i])
		}
	}
	for i := 0; i < n; i++ {
		th := 4 * math.Pi * float64(i) / float64(n-1)
		want := geom.Vec3{r * math.Cos(th), r * math.Sin(th), c * th}
		p := geom.Vec3{fr[7*i], fr[7*i+1], fr[7*i+2]}
		// The resampled points lie on the fine polyline (256 per turn):
		// chord sag r(1 − cos(π/256)) = 3.8e-5.
		if d := p.Sub(want).Norm(); d > 4e-5 {
			t.Errorf("frame %d at %v, want the helix point %v (off by %.3g)", i, p, want, d)
		}
		q := geom.Quat{fr[7*i+3], fr[7*i+4], fr[7*i+5], fr[7*i+6]}
		tan := geom.Vec3{-r * math.Sin(th), r * math.Cos(th), c}.Scale(1 / speed)
		if d := q.Rotate(geom.Vec3{1, 0, 0}).Sub(tan).Norm(); d > 2e-3 {
			t.Errorf("frame %d: x axis %v, tangent %v (off by %.3g)", i, q.Rotate(geom.Vec3{1, 0, 0}), tan, d)
		}
	}
}

// TestTubeTopologySurface: the tube around a straight rod is a closed,
// outward-oriented surface: its signed volume (divergence theorem) is the
// inscribed prism's, n/2 r² sin(2π/n) L, and every side triangle's normal
// points away from the axis.
func TestTubeTopologySurface(t *testing.T) {
	s := graphtest.MustLoad(t, "rod.toml", `
[[node]]
name = "rod"
  [[node.object]]
  type = "RodTopology"
  points = [[0, 0, 0], [0.3, 0.4, 0]]
  n = 11
  [[node.node]]
  name = "tube"
    [[node.node.object]]
    type = "TubeTopology"
    name = "tube"
    radius = 0.02
    sides = 16
`)
	tb := graphtest.Find[*topology.TubeTopology](t, s, "rod/tube/tube")
	pts, tris := tb.Points(), tb.Triangles()
	vol := 0.0
	axis := geom.Vec3{0.6, 0.8, 0}
	for _, tr := range tris {
		a, b, c := geom.At(pts, tr[0]), geom.At(pts, tr[1]), geom.At(pts, tr[2])
		vol += a.Dot(b.Cross(c)) / 6
		nrm := b.Sub(a).Cross(c.Sub(a))
		cen := a.Add(b).Add(c).Scale(1.0 / 3)
		radial := cen.Sub(axis.Scale(cen.Dot(axis)))
		if radial.Norm() > 0.015 && nrm.Dot(radial) <= 0 { // side triangles
			t.Errorf("triangle %v points inwards", tr)
		}
	}
	want := 8 * 0.02 * 0.02 * math.Sin(2*math.Pi/16) * 0.5
	if math.Abs(vol-want) > 1e-12 {
		t.Errorf("enclosed volume %.12g, want the prism's %.12g", vol, want)
	}
	if f := tb.PointFrames(); len(f) != len(pts)/3 || f[0] != 0 || f[len(f)-1] != 10 {
		t.Errorf("point frames %v", f)
	}
}
