package render

import (
	"image"
	"image/color"
	"math"
	"testing"

	_ "github.com/sofago/sofago/components/constraint"
	_ "github.com/sofago/sofago/components/forcefield"
	_ "github.com/sofago/sofago/components/mapping"
	_ "github.com/sofago/sofago/components/mass"
	_ "github.com/sofago/sofago/components/solver"
	_ "github.com/sofago/sofago/components/topology"
	"github.com/sofago/sofago/components/visual"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/meshio"
)

func clone(img *image.NRGBA) *image.NRGBA {
	c := *img
	c.Pix = append([]byte(nil), img.Pix...)
	return &c
}

var bg = Background.NRGBA()

func isBackground(img *image.NRGBA, x, y int) bool { return img.NRGBAAt(x, y) == bg }

// silhouette returns the rightmost column and the lowest row holding a
// non-background pixel.
func silhouette(img *image.NRGBA) (right, bottom int) {
	right, bottom = -1, -1
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if !isBackground(img, x, y) {
				right = max(right, x)
				bottom = max(bottom, y)
			}
		}
	}
	return right, bottom
}

// A picture of scenes/cantilever.toml at rest and after sagging differs
// where the beam moved, and the tip's silhouette is where the camera
// projection predicts it, within 2 px (issue 9, item 1).
//
// The beam (1 m along x, 0.1 m square) is seen from the front (+z), so
// its sag is in the picture plane. The picture of a polyhedral surface
// reaches furthest right and down at projected vertices (each triangle
// projects to a triangle), so the silhouette's extremes are the largest
// projected x and y over the surface's vertices — those of the tip, for a
// beam sagging down. The rasteriser covers a pixel when its centre is
// inside a projected triangle, so the outermost covered pixel's centre
// lies within a pixel of the projected extreme; 2 px allows for that and
// for rounding. Without the grid, any non-background pixel is the beam.
func TestCantileverPictureSilhouette(t *testing.T) {
	s, err := graph.LoadFile("../scenes/cantilever.toml")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Init(); err != nil {
		t.Fatal(err)
	}
	p, err := NewPictures(s, Options{Width: 800, Height: 600, NoGrid: true})
	if err != nil {
		t.Fatal(err)
	}
	p.Eye, p.Center = &geom.Vec3{0.5, -0.05, 2.5}, &geom.Vec3{0.5, -0.05, 0.05}
	dofs := s.Find("beam/dofs").(graph.State)
	x0 := dofs.Vec(graph.RestPosition)

	// predict returns the projected extremes of the surfaces' vertices and
	// of the tip's (the vertices at rest x = 1).
	predict := func(v *View) (right, bottom, tipRight, tipBottom float64) {
		right, bottom, tipRight, tipBottom = math.Inf(-1), math.Inf(-1), math.Inf(-1), math.Inf(-1)
		surfaces, _ := p.Surfaces()
		for _, sf := range surfaces {
			pts, _, _ := sf.SurfaceMesh()
			for i := 0; i < len(pts)/3; i++ {
				px, py, _, _ := v.Project(geom.At(pts, i))
				right, bottom = math.Max(right, px), math.Max(bottom, py)
			}
		}
		x := dofs.Vec(graph.Position)
		for i := 0; i < dofs.Size(); i++ {
			if x0[3*i] == 1 {
				px, py, _, _ := v.Project(geom.At(x, i))
				tipRight, tipBottom = math.Max(tipRight, px), math.Max(tipBottom, py)
			}
		}
		return
	}
	check := func(name string, img *image.NRGBA) (tipRight, tipBottom float64) {
		t.Helper()
		right, bottom, tr, tb := predict(p.View())
		if math.Abs(right-tr) > 1e-9 || math.Abs(bottom-tb) > 1e-9 {
			t.Errorf("%s: the picture's extremes (%.2f, %.2f) are not the tip's (%.2f, %.2f)", name, right, bottom, tr, tb)
		}
		gotR, gotB := silhouette(img)
		t.Logf("%s: tip silhouette at column %d, row %d; projection predicts %.2f, %.2f (pixel centres %.1f, %.1f)", name, gotR, gotB, tr, tb, float64(gotR)+0.5, float64(gotB)+0.5)
		if math.Abs(float64(gotR)+0.5-tr) > 2 || math.Abs(float64(gotB)+0.5-tb) > 2 {
			t.Errorf("%s: tip silhouette at pixel (%d, %d), the projection predicts (%.2f, %.2f): more than 2 px apart", name, gotR, gotB, tr, tb)
		}
		return tr, tb
	}

	img, err := p.Render()
	if err != nil {
		t.Fatal(err)
	}
	rest := clone(img)
	_, restBottom := check("rest", rest)
	// The top of the tip at rest, a little inside the beam: (1, 0.1, 0.1)
	// moved 2 px left and down.
	topX, topY, _, _ := p.View().Project(geom.Vec3{1, 0.1, 0.1})

	for i := 0; i < 50; i++ {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
	}
	sag, err := p.Render()
	if err != nil {
		t.Fatal(err)
	}
	_, tipBottom := check("sagged", sag)
	if tipBottom-restBottom < 20 {
		t.Fatalf("the tip moved down only %.1f px in the picture; the test wants a clear sag", tipBottom-restBottom)
	}
	// Where the beam moved: below the rest tip the sagged picture shows
	// the beam and the rest one the background; at the rest tip's top,
	// the other way round. The first probe is the centre of the front
	// face's last quad at the bottom (rest corners (0.95…1, 0…0.05, 0.1)),
	// where it is now.
	var centre geom.Vec3
	x := dofs.Vec(graph.Position)
	for i := 0; i < dofs.Size(); i++ {
		r := geom.At(x0, i)
		if r[0] >= 0.95-1e-12 && r[1] <= 0.05+1e-12 && r[2] == 0.1 {
			centre = centre.Add(geom.At(x, i).Scale(0.25))
		}
	}
	fx, fy, _, _ := p.View().Project(centre)
	bx, by := int(fx), int(fy)
	if isBackground(sag, bx, by) || !isBackground(rest, bx, by) {
		t.Errorf("at the sagged tip's bottom (%d, %d): sagged picture background %v, rest picture background %v; want beam, background",
			bx, by, isBackground(sag, bx, by), isBackground(rest, bx, by))
	}
	tx, ty := int(topX)-3, int(topY)+3
	if !isBackground(sag, tx, ty) || isBackground(rest, tx, ty) {
		t.Errorf("at the rest tip's top (%d, %d): sagged picture background %v, rest picture background %v; want background, beam",
			tx, ty, isBackground(sag, tx, ty), isBackground(rest, tx, ty))
	}
	// The pictures differ where the beam moved: the pixels it left or
	// entered lie mostly in the outer half (the deflection grows as x²),
	// none left of the clamp.
	midX, _, _, _ := p.View().Project(geom.Vec3{0.5, 0.05, 0.1})
	clampX, _, _, _ := p.View().Project(geom.Vec3{0, 0.05, 0.1})
	outer, inner := 0, 0
	for y := 0; y < 600; y++ {
		for x := 0; x < 800; x++ {
			if isBackground(rest, x, y) == isBackground(sag, x, y) {
				continue
			}
			switch {
			case float64(x) < clampX-2:
				t.Fatalf("pixel (%d, %d) left of the clamp changed", x, y)
			case float64(x) >= midX:
				outer++
			default:
				inner++
			}
		}
	}
	t.Logf("pixels the beam left or entered: %d in the outer half, %d in the inner half", outer, inner)
	if outer < 1000 || inner > outer/3 {
		t.Errorf("changed pixels: %d in the outer half, %d in the inner half; want most in the outer half", outer, inner)
	}
}

// The view's projection agrees with the rasteriser: a single large
// triangle's covered pixels are exactly those whose centres lie inside
// the projected triangle (away from its edges, where rounding decides).
func TestProjectMatchesRaster(t *testing.T) {
	m := &meshio.Mesh{Points: []float64{-1, -0.8, 0, 1.2, -0.5, 0.3, 0.1, 0.9, -0.2}, Triangles: [][3]int{{0, 1, 2}}}
	s := newMeshSurface(m, [3]float64{1, 0, 0})
	view, err := NewView(geom.Vec3{0.3, 0.2, 4}, geom.Vec3{0, 0, 0}, geom.Vec3{0, 1, 0}, 40, 320, 240, 0.5, 20)
	if err != nil {
		t.Fatal(err)
	}
	r := NewRenderer(view, Options{Width: 320, Height: 240, NoGrid: true}, geom.Vec3{-1, -1, -1}, geom.Vec3{1, 1, 1}, geom.Vec3{0, 1, 0})
	img := r.Render([]visual.Surface{s})
	var q [3][2]float64
	for i := 0; i < 3; i++ {
		x, y, _, _ := view.Project(geom.At(m.Points, i))
		q[i] = [2]float64{x, y}
	}
	edge := func(a, b [2]float64, px, py float64) float64 {
		// Signed distance of (px, py) from the line ab, in pixels.
		dx, dy := b[0]-a[0], b[1]-a[1]
		return ((px-a[0])*dy - (py-a[1])*dx) / math.Hypot(dx, dy)
	}
	checked := 0
	for y := 0; y < 240; y++ {
		for x := 0; x < 320; x++ {
			cx, cy := float64(x)+0.5, float64(y)+0.5
			d0, d1, d2 := edge(q[0], q[1], cx, cy), edge(q[1], q[2], cx, cy), edge(q[2], q[0], cx, cy)
			inside := (d0 > 0 && d1 > 0 && d2 > 0) || (d0 < 0 && d1 < 0 && d2 < 0)
			if min(math.Abs(d0), math.Abs(d1), math.Abs(d2)) < 0.01 {
				continue
			}
			checked++
			if inside == isBackground(img, x, y) {
				t.Fatalf("pixel (%d, %d): inside the projected triangle %v, background %v", x, y, inside, isBackground(img, x, y))
			}
		}
	}
	if checked < 70000 {
		t.Errorf("only %d pixels checked", checked)
	}
}

// The ground grid and the wireframe draw: the grid adds grid-coloured
// pixels below the object, the wireframe adds dark edge pixels on it.
func TestGridAndWireframe(t *testing.T) {
	m, err := meshio.SphereSurface(1, 12, 8)
	if err != nil {
		t.Fatal(err)
	}
	s := newMeshSurface(m, [3]float64{0.85, 0.6, 0.35})
	lo, hi := geom.Vec3{-1, -1, -1}, geom.Vec3{1, 1, 1}
	view, err := FitView(lo, hi, nil, geom.Vec3{0.45, 0.35, 1}, geom.Vec3{0, 1, 0}, 30, 400, 300, 0.08)
	if err != nil {
		t.Fatal(err)
	}
	count := func(opt Options, c color.NRGBA) int {
		img := NewRenderer(view, opt, lo, hi, geom.Vec3{0, 1, 0}).Render([]visual.Surface{s})
		n := 0
		for y := 0; y < 300; y++ {
			for x := 0; x < 400; x++ {
				if img.NRGBAAt(x, y) == c {
					n++
				}
			}
		}
		return n
	}
	grid, wire := GridColor.NRGBA(), WireColor.NRGBA()
	if n := count(Options{Width: 400, Height: 300, NoGrid: true}, grid); n != 0 {
		t.Errorf("%d grid pixels without the grid", n)
	}
	if n := count(Options{Width: 400, Height: 300}, grid); n < 1000 {
		t.Errorf("%d grid pixels with the grid", n)
	}
	if n := count(Options{Width: 400, Height: 300, NoGrid: true}, wire); n != 0 {
		t.Errorf("%d edge pixels without the wireframe", n)
	}
	if n := count(Options{Width: 400, Height: 300, NoGrid: true, Wireframe: true}, wire); n < 1000 {
		t.Errorf("%d edge pixels with the wireframe", n)
	}
}

// The closed-surface test decides back-face culling.
func TestIsClosed(t *testing.T) {
	m, _ := meshio.SphereSurface(1, 8, 6)
	if !isClosed(m.Triangles) {
		t.Error("sphere not closed")
	}
	if isClosed(m.Triangles[1:]) {
		t.Error("sphere with a hole closed")
	}
	flipped := append([][3]int(nil), m.Triangles...)
	flipped[0] = [3]int{flipped[0][0], flipped[0][2], flipped[0][1]}
	if isClosed(flipped) {
		t.Error("inconsistently oriented sphere closed")
	}
}

// cameraScene is a small bar with its boundary drawn, and a Camera with
// the given fields.
func cameraScene(fields string) string {
	return `
gravity = [0, 0, -9.81]
[[node]]
name = "bar"
  [[node.object]]
  type = "RegularGridTopology"
  min = [0, 0, 0]
  max = [1, 0.2, 0.2]
  n = [3, 2, 2]
  [[node.object]]
  type = "MechanicalObject"
  [[node.node]]
  name = "visual"
    [[node.node.object]]
    type = "MechanicalObject"
    [[node.node.object]]
    type = "IdentityMapping"
    isMechanical = false
    [[node.node.object]]
    type = "VisualModel"
[[node]]
name = "view"
  [[node.object]]
  type = "Camera"
  ` + fields + "\n"
}

// The scene's Camera sets the view: position and lookAt as given, up
// against gravity by default; with a box, the fitted view keeps the box's
// corners inside the picture (within the margin) and looks at its centre;
// -eye/-center (Pictures.Eye, Center) override the camera.
func TestSceneCamera(t *testing.T) {
	load := func(fields string) *Pictures {
		t.Helper()
		s, err := graph.Load("cam.toml", []byte(cameraScene(fields)))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Init(); err != nil {
			t.Fatal(err)
		}
		p, err := NewPictures(s, Options{Width: 400, Height: 300})
		if err != nil {
			t.Fatal(err)
		}
		if _, fallback := p.Surfaces(); fallback {
			t.Fatal("the visual model was not found")
		}
		return p
	}
	p := load(`position = [3, -4, 2]
  lookAt = [0.5, 0.1, 0.1]
  fieldOfView = 40`)
	if _, err := p.Render(); err != nil {
		t.Fatal(err)
	}
	v := p.View()
	if v.Eye != (geom.Vec3{3, -4, 2}) || v.Center != (geom.Vec3{0.5, 0.1, 0.1}) || v.Up != (geom.Vec3{0, 0, 1}) || v.FovY != 40 {
		t.Errorf("view %+v", v)
	}
	p = load(`box = [-1, -1, -1, 2, 1, 1]
  margin = 0.1`)
	if _, err := p.Render(); err != nil {
		t.Fatal(err)
	}
	v = p.View()
	if v.Center != (geom.Vec3{0.5, 0, 0}) {
		t.Errorf("fitted view looks at %v, want the box centre", v.Center)
	}
	tight := 0.0
	for i := 0; i < 8; i++ {
		c := geom.Vec3{pick(i&1, -1, 2), pick(i&2, -1, 1), pick(i&4, -1, 1)}
		x, y, _, ok := v.Project(c)
		if !ok || x < 40-1e-6 || x > 360+1e-6 || y < 30-1e-6 || y > 270+1e-6 {
			t.Errorf("box corner %v projects to (%.2f, %.2f), outside the margin", c, x, y)
		}
		tight = max(tight, math.Max(40-x, x-360)/400, math.Max(30-y, y-270)/300)
	}
	// The fit is the nearest distance: some corner touches the margin.
	if tight < -1e-6 {
		t.Errorf("no box corner on the margin (closest %.3g of the picture inside it): the view is farther than it needs", -tight)
	}
	p = load(`position = [3, -4, 2]`)
	p.Eye, p.Center = &geom.Vec3{0, 0, 5}, &geom.Vec3{0, 0.5, 0}
	if _, err := p.Render(); err != nil {
		t.Fatal(err)
	}
	if v := p.View(); v.Eye != (geom.Vec3{0, 0, 5}) || v.Center != (geom.Vec3{0, 0.5, 0}) {
		t.Errorf("overrides ignored: %+v", v)
	}
}
