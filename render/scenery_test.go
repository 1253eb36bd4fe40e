package render

import (
	"image"
	"image/color"
	"math"
	"testing"

	"github.com/fogleman/fauxgl"
	"github.com/sofago/sofago/components/collision"
	"github.com/sofago/sofago/components/visual"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/meshio"
)

// The collision obstacles are what render draws, through its interfaces.
var (
	_ GroundPlane = (*collision.PlaneForceField)(nil)
	_ Obstacle    = (*collision.BoxForceField)(nil)
	_ Obstacle    = (*collision.SphereForceField)(nil)
	_ Obstacle    = (*collision.MeshObstacleForceField)(nil)
)

// A plane's patch lies on the plane, is counter-clockwise seen from its
// free side, covers the footprint of the scene's bounds (every corner of
// the box projected on the plane) with half the box's diagonal to spare,
// and its grid lines lie in it at the grid step.
func TestPlanePatch(t *testing.T) {
	lo, hi := geom.Vec3{0.3, -0.1, -0.05}, geom.Vec3{1.9, 0.4, 0.05}
	size := hi.Sub(lo).Norm()
	for _, pl := range []Plane{
		{N: geom.Vec3{0, 1, 0}, D: -0.5},
		{N: geom.Vec3{0.3420201433256687, 0.9396926207859084, 0}, D: 0}, // slope.toml's
		{N: geom.Vec3{-1, 0, 0}, D: -3},                                 // a wall facing −x, e1 = z
		{N: geom.Vec3{1, 2, -2}.Normalized(), D: 0.7},
	} {
		p := planePatch(pl, lo, hi)
		e1 := p.corners[1].Sub(p.corners[0])
		e2 := p.corners[3].Sub(p.corners[0])
		for k, c := range p.corners {
			// On the plane to rounding (1e-12 of the scene's size).
			if d := pl.N.Dot(c) - pl.D; math.Abs(d) > 1e-12*size {
				t.Errorf("plane %v: corner %d is %g off the plane", pl, k, d)
			}
		}
		if n := e1.Cross(e2); n.Dot(pl.N) <= 0 || math.Abs(e1.Dot(e2)) > 1e-12*size*size {
			t.Errorf("plane %v: patch sides %v, %v are not a counter-clockwise rectangle about the normal", pl, e1, e2)
		}
		u1, u2 := e1.Normalized(), e2.Normalized()
		for i := 0; i < 8; i++ {
			q := geom.Vec3{pick(i&1, lo[0], hi[0]), pick(i&2, lo[1], hi[1]), pick(i&4, lo[2], hi[2])}
			r := q.Sub(p.corners[0])
			s, tt := r.Dot(u1), r.Dot(u2)
			// Inside, at least half the diagonal from every edge.
			if s < size/2-1e-12 || s > e1.Norm()-size/2+1e-12 || tt < size/2-1e-12 || tt > e2.Norm()-size/2+1e-12 {
				t.Errorf("plane %v: box corner %v projects to (%.3g, %.3g) in a %.3g × %.3g patch, within %.3g of its edge", pl, q, s, tt, e1.Norm(), e2.Norm(), size/2)
			}
		}
		step := niceStep(size / gridFactor)
		want := int(math.Round(e1.Norm()/step)) + 1 + int(math.Round(e2.Norm()/step)) + 1
		if len(p.lines) != want {
			t.Errorf("plane %v: %d grid lines, want %d at step %g", pl, len(p.lines), want, step)
		}
		for k, l := range p.lines {
			for _, v := range []geom.Vec3{{l.V1.Position.X, l.V1.Position.Y, l.V1.Position.Z}, {l.V2.Position.X, l.V2.Position.Y, l.V2.Position.Z}} {
				if d := pl.N.Dot(v) - pl.D; math.Abs(d) > 1e-12*size {
					t.Errorf("plane %v: grid line %d is %g off the plane", pl, k, d)
				}
			}
		}
	}
}

// obstacleScene is a small cube above a ground plane y = −0.3 (given
// twice, as scenes give every object its own plane), next to a box and a
// sphere obstacle.
const obstacleScene = `
gravity = [0, -9.81, 0]
[[node]]
name = "cube"
  [[node.object]]
  type = "EulerImplicitSolver"
  [[node.object]]
  type = "CGLinearSolver"
  [[node.object]]
  type = "RegularGridTopology"
  min = [0, 0, 0]
  max = [0.2, 0.2, 0.2]
  n = [2, 2, 2]
  [[node.object]]
  type = "MechanicalObject"
  [[node.object]]
  type = "UniformMass"
  totalMass = 1
  [[node.object]]
  type = "PlaneForceField"
  normal = [0, 1, 0]
  d = -0.3
  stiffness = 100
  [[node.object]]
  type = "PlaneForceField"
  normal = [0, 2, 0]
  d = -0.3
  stiffness = 100
  [[node.object]]
  type = "BoxForceField"
  center = [0.35, -0.15, 0.1]
  halfSize = [0.05, 0.1, 0.05]
  stiffness = 100
  [[node.object]]
  type = "SphereForceField"
  center = [-0.15, -0.15, 0.1]
  radius = 0.06
  stiffness = 100
`

func fauxglColor(c [3]float64) fauxgl.Color { return fauxgl.Color{R: c[0], G: c[1], B: c[2], A: 1} }

// hueNear reports whether pixel c is colour want (0–1 RGB) scaled by one
// brightness factor (the shader scales every channel alike), within 8-bit
// rounding: each channel within 2/255 of b·want for the b that fits best.
func hueNear(c color.NRGBA, want [3]float64) bool {
	got := [3]float64{float64(c.R) / 255, float64(c.G) / 255, float64(c.B) / 255}
	b := (got[0]*want[0] + got[1]*want[1] + got[2]*want[2]) / (want[0]*want[0] + want[1]*want[1] + want[2]*want[2])
	for k := 0; k < 3; k++ {
		if math.Abs(got[k]-b*want[k]) > 2.0/255 {
			return false
		}
	}
	return b > 0.2
}

// near3 reports whether a pixel of the 3×3 block around (x, y) is c.
func near3(img *image.NRGBA, x, y float64, c color.NRGBA) bool {
	for j := -1; j <= 1; j++ {
		for i := -1; i <= 1; i++ {
			if img.NRGBAAt(int(x)+i, int(y)+j) == c {
				return true
			}
		}
	}
	return false
}

// A picture of a scene with obstacles draws them: the ground patch (flat,
// GroundColor) where the plane projects, the grid lines on the plane (not
// under the bounds), the box and the sphere in the obstacle colour where
// their visible faces project; the repeated plane is drawn once.
func TestObstaclesDrawn(t *testing.T) {
	s, err := graph.Load("obstacles.toml", []byte(obstacleScene))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Init(); err != nil {
		t.Fatal(err)
	}
	p, err := NewPictures(s, Options{Width: 800, Height: 600})
	if err != nil {
		t.Fatal(err)
	}
	sc := p.Scenery()
	if len(sc.Planes) != 1 || len(sc.Solids) != 2 {
		t.Fatalf("scenery: %d planes, %d solids; want the plane once, the box and the sphere", len(sc.Planes), len(sc.Solids))
	}
	img, err := p.Render()
	if err != nil {
		t.Fatal(err)
	}
	v := p.View()
	if p.r.grid != nil {
		t.Error("the decorative grid under the bounds is drawn as well as the ground's")
	}
	g := p.r.patches[0]
	step := g.lines[1].V1.Position.Sub(g.lines[0].V1.Position).Length()
	e1 := g.corners[1].Sub(g.corners[0]).Normalized()
	e2 := g.corners[3].Sub(g.corners[0]).Normalized()
	// The objects' projected bounds (2 px wider), where they may hide the
	// ground.
	var hidden []image.Rectangle
	surfaces, _ := p.Surfaces()
	for _, sf := range append(surfaces, sc.Solids...) {
		pts, _, _ := sf.SurfaceMesh()
		r := image.Rectangle{Min: image.Pt(800, 600)} // empty, grown below
		for i := 0; i < len(pts)/3; i++ {
			x, y, _, _ := v.Project(geom.At(pts, i))
			r.Min.X, r.Min.Y = min(r.Min.X, int(x)-2), min(r.Min.Y, int(y)-2)
			r.Max.X, r.Max.Y = max(r.Max.X, int(x)+3), max(r.Max.Y, int(y)+3)
		}
		hidden = append(hidden, r)
	}
	visible := func(x, y float64) bool {
		if x < 2 || y < 2 || x > 797 || y > 597 {
			return false
		}
		for _, r := range hidden {
			if image.Pt(int(x), int(y)).In(r) {
				return false
			}
		}
		return true
	}
	// Ground: the centres of the grid cells of the patch that project
	// inside the picture, where no object is in front; grid: the points of
	// the lines half-way along the cells' sides.
	ground, gridHits, gridTried := 0, 0, 0
	ni, nj := int(math.Round(g.corners[1].Sub(g.corners[0]).Norm()/step)), int(math.Round(g.corners[3].Sub(g.corners[0]).Norm()/step))
	for i := 0; i < ni; i++ {
		for j := 0; j < nj; j++ {
			q := g.corners[0].Add(e1.Scale((float64(i) + 0.5) * step)).Add(e2.Scale((float64(j) + 0.5) * step))
			x, y, _, ok := v.Project(q)
			if !ok || !visible(x, y) {
				continue
			}
			if c := img.NRGBAAt(int(x), int(y)); c != colorNRGBA(fauxglColor(GroundColor)) {
				t.Errorf("ground cell (%d, %d) at pixel (%.1f, %.1f) is %v, want the ground colour", i, j, x, y, c)
			} else {
				ground++
			}
			// The grid line through the cell's corner.
			q = g.corners[0].Add(e1.Scale(float64(i) * step)).Add(e2.Scale((float64(j) + 0.5) * step))
			if x, y, _, ok := v.Project(q); ok && visible(x, y) {
				gridTried++
				if near3(img, x, y, GridColor.NRGBA()) {
					gridHits++
				}
			}
		}
	}
	t.Logf("%d ground cells seen, grid lines at %d of %d points", ground, gridHits, gridTried)
	if ground < 30 || gridTried < 30 || gridHits != gridTried {
		t.Errorf("%d ground cells seen, grid lines at %d of %d points on the plane", ground, gridHits, gridTried)
	}
	// The box's +z face and the sphere's point facing the eye.
	for _, c := range []struct {
		name string
		p    geom.Vec3
	}{
		{"box", geom.Vec3{0.35, -0.15, 0.15}},
		{"sphere", geom.Vec3{-0.15, -0.15, 0.1}.Add(v.Eye.Sub(geom.Vec3{-0.15, -0.15, 0.1}).Normalized().Scale(0.06))},
	} {
		x, y, _, ok := v.Project(c.p)
		if !ok || x < 0 || y < 0 || x >= 800 || y >= 600 {
			t.Errorf("%s: %v projects outside the picture (%.1f, %.1f)", c.name, c.p, x, y)
			continue
		}
		if px := img.NRGBAAt(int(x), int(y)); !hueNear(px, ObstacleColor) {
			t.Errorf("%s: pixel (%.1f, %.1f) is %v, not a shade of the obstacle colour", c.name, x, y, px)
		}
	}
	cols := p.Colors()
	if cols[len(cols)-2] != ObstacleColor || cols[len(cols)-1] != GroundColor {
		t.Errorf("picture colours %v lack the obstacle and ground colours (for the GIF palette)", cols)
	}
}

// Rigid bodies without a visual model are drawn as their axes: the
// picture has each axis's colour where a point along the axis projects,
// x red, y green, z blue, each 0.1 of the scene's size long.
func TestRigidFramesDrawn(t *testing.T) {
	const scene = `
gravity = [0, -9.81, 0]
[[node]]
name = "bodies"
  [[node.object]]
  type = "EulerImplicitSolver"
  [[node.object]]
  type = "CGLinearSolver"
  [[node.object]]
  type = "MechanicalObject"
  template = "Rigid3"
  # The second body turned by 40° about z.
  position = [[0, 0, 0, 0, 0, 0, 1], [1, 0.5, 0, 0, 0, 0.3420201433256687, 0.9396926207859084]]
  [[node.object]]
  type = "RigidMass"
  mass = 1
  inertiaDiagonal = [0.01, 0.01, 0.01]
`
	s, err := graph.Load("bodies.toml", []byte(scene))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Init(); err != nil {
		t.Fatal(err)
	}
	p, err := NewPictures(s, Options{Width: 800, Height: 600, NoGrid: true})
	if err != nil {
		t.Fatalf("a scene of rigid bodies cannot be drawn: %v", err)
	}
	img, err := p.Render()
	if err != nil {
		t.Fatal(err)
	}
	v := p.View()
	// The bodies' origins span (0,0,0)–(1,0.5,0).
	length := axisLengthFraction * math.Sqrt(1.25)
	bodies := []struct {
		o geom.Vec3
		q geom.Quat
	}{{geom.Vec3{}, geom.QuatIdentity()}, {geom.Vec3{1, 0.5, 0}, geom.Quat{0, 0, 0.3420201433256687, 0.9396926207859084}}}
	for b, body := range bodies {
		for k := 0; k < 3; k++ {
			var e geom.Vec3
			e[k] = 1
			// Three quarters along the axis: past the hub where the three
			// bars meet.
			q := body.o.Add(body.q.Rotate(e).Scale(0.75 * length))
			x, y, _, ok := v.Project(q)
			if !ok {
				t.Fatalf("body %d axis %d behind the eye", b, k)
			}
			if px := img.NRGBAAt(int(x), int(y)); !hueNear(px, AxisColors[k]) {
				t.Errorf("body %d, axis %d: pixel (%.1f, %.1f) is %v, not a shade of %v", b, k, x, y, px, AxisColors[k])
			}
		}
	}
}

// An affine frame's axes are the columns of A: a bar's far end reaches
// length·|A e_k| along A e_k; with det A < 0 (a reflection) the bars are
// still closed surfaces facing outward.
func TestAffineFrameAxes(t *testing.T) {
	st := graph.NewMechanicalObject("frames", graph.Affine3, 1)
	// t = (1, 2, 3); A = diag(2, 1, −1) turned 30° about z, row-major.
	c, s := math.Cos(math.Pi/6), math.Sin(math.Pi/6)
	a := [9]float64{2 * c, -s, 0, 2 * s, c, 0, 0, 0, -1}
	x := st.Vec(graph.Position)
	copy(x, []float64{1, 2, 3})
	copy(x[3:], a[:])
	const length, width = 0.5, 0.05
	for k := 0; k < 3; k++ {
		f := &frameAxes{st: st, axis: k, length: length, width: width}
		pts, tris, _ := f.SurfaceMesh()
		col := geom.Vec3{a[k], a[3+k], a[6+k]}
		dir := col.Normalized()
		far := math.Inf(-1)
		for i := 0; i < len(pts)/3; i++ {
			far = math.Max(far, geom.At(pts, i).Sub(geom.Vec3{1, 2, 3}).Dot(dir))
		}
		if want := length * col.Norm(); math.Abs(far-want) > 1e-12 {
			t.Errorf("axis %d reaches %.15g along A e_%d, want %.15g", k, far, k, want)
		}
		m := &meshio.Mesh{Points: pts, Triangles: tris}
		// Volume of the bar: (length|A e_k| + w/2)·w² times the sine
		// factor of the other two unit columns (orthogonal here).
		if vol, want := m.EnclosedVolume(), (length*col.Norm()+width/2)*width*width; math.Abs(vol-want) > 1e-12 {
			t.Errorf("axis %d bar encloses %.15g, want %.15g (outward faces)", k, vol, want)
		}
		if !isClosed(tris) {
			t.Errorf("axis %d bar is not closed", k)
		}
	}
}

// The static part of a picture (grid, ground, obstacles) is drawn once and
// copied into every later picture: a picture after another one is the
// picture a fresh renderer draws, pixel for pixel.
func TestStaticLayerReused(t *testing.T) {
	s, err := graph.Load("obstacles.toml", []byte(obstacleScene))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Init(); err != nil {
		t.Fatal(err)
	}
	sc := CollectScenery(s)
	a, err := meshio.SphereSurface(0.1, 16, 8)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := meshio.SphereSurface(0.1, 16, 8)
	for i := 0; i < len(b.Points); i += 3 {
		b.Points[i] += 0.3 // moved along x
	}
	sa, sb := newMeshSurface(a, [3]float64{0.85, 0.6, 0.35}), newMeshSurface(b, [3]float64{0.85, 0.6, 0.35})
	lo, hi := geom.Vec3{-0.2, -0.2, -0.2}, geom.Vec3{0.5, 0.2, 0.2}
	view, err := FitView(lo, hi, nil, geom.Vec3{0.45, 0.35, 1}, geom.Vec3{0, 1, 0}, 30, 320, 240, 0.08)
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{Width: 320, Height: 240, Supersample: 2}
	r1 := NewRenderer(view, opt, lo, hi, geom.Vec3{0, 1, 0})
	r1.SetScenery(sc)
	r1.Render([]visual.Surface{sa})
	second := clone(r1.Render([]visual.Surface{sb}))
	r2 := NewRenderer(view, opt, lo, hi, geom.Vec3{0, 1, 0})
	r2.SetScenery(sc)
	fresh := r2.Render([]visual.Surface{sb})
	diff := 0
	for i := range fresh.Pix {
		if fresh.Pix[i] != second.Pix[i] {
			diff++
		}
	}
	if diff != 0 {
		t.Errorf("%d bytes differ between a second picture and a fresh one", diff)
	}
}
