package visual

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/sofago/sofago/components/mapping"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/meshio"
)

// mover is a behaviour that sets its node's positions at the start of
// every step to rest + a prescribed displacement: scripted motion with
// known positions, so the tests need no solver.
type mover struct {
	graph.ObjectBase
	disp func(t float64, x0 geom.Vec3) geom.Vec3
}

// DrivenStates implements graph.StateDriver: the mover prescribes the
// motion of its node's state, with no ODE solver.
func (m *mover) DrivenStates() []graph.State { return []graph.State{m.Node.State()} }

func (m *mover) BeginStep(t, dt float64) error {
	st := m.Node.State()
	x, x0 := st.Vec(graph.Position), st.Vec(graph.RestPosition)
	for i := 0; i < st.Size(); i++ {
		geom.Put(x, i, geom.At(x0, i).Add(m.disp(t+dt, geom.At(x0, i))))
	}
	return nil
}

// bend is a smooth non-affine motion: the bar bends down and twists a
// little as time goes on.
func bend(t float64, p geom.Vec3) geom.Vec3 {
	return geom.Vec3{-0.05 * t * p[1], -0.3 * t * p[0] * p[0], 0.1 * t * p[0] * p[1]}
}

// loadWith loads text, adds a mover to node path moverNode (when not
// empty) and initialises the scene.
func loadWith(t testing.TB, file, text, moverNode string) *graph.Scene {
	t.Helper()
	s, err := graph.Load(file, []byte(text))
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	if moverNode != "" {
		n := s.Root
		for _, part := range strings.Split(moverNode, "/") {
			n = n.Child(part)
		}
		n.Add(&mover{ObjectBase: graph.ObjectBase{Name: "mover"}, disp: bend})
	}
	if err := s.Init(); err != nil {
		t.Fatalf("init: %v", err)
	}
	return s
}

// barScene is a 1 × 0.2 × 0.2 bar of tetrahedra with a visual child: the
// bar's own boundary through an IdentityMapping, unless child is given.
func barScene(child string) string {
	if child == "" {
		child = `
  [[node.node]]
  name = "visual"
    [[node.node.object]]
    type = "MechanicalObject"
    name = "surface"
    [[node.node.object]]
    type = "IdentityMapping"
    isMechanical = false
    [[node.node.object]]
    type = "VisualModel"
    color = [0.2, 0.4, 0.8]
`
	}
	return `
dt = 0.1
[[node]]
name = "bar"
  [[node.object]]
  type = "RegularGridTopology"
  min = [0, -0.1, -0.1]
  max = [1, 0.1, 0.1]
  n = [6, 3, 3]
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
` + child
}

// writeSphere writes a sphere surface of radius r centred at c as OBJ.
func writeSphere(t *testing.T, dir string, c geom.Vec3, r float64) string {
	t.Helper()
	m, err := meshio.SphereSurface(r, 16, 10)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < m.NumPoints(); i++ {
		geom.Put(m.Points, i, geom.At(m.Points, i).Add(c))
	}
	path := filepath.Join(dir, "sphere.obj")
	if err := meshio.WriteOBJ(path, m); err != nil {
		t.Fatal(err)
	}
	return path
}

// The boundary of a tetrahedral bar, drawn through an IdentityMapping: the
// visual model's surface is the topology's boundary triangles over the
// boundary vertices only, at the current positions, with unit normals
// pointing outwards.
func TestVisualModelBoundary(t *testing.T) {
	s := loadWith(t, "bar.toml", barScene(""), "bar")
	vm := s.Find("bar/visual/VisualModel").(*VisualModel)
	topo := s.Root.Child("bar").LocalTopology()
	pts, tris, nrm := vm.SurfaceMesh()
	if len(tris) != len(topo.Triangles()) {
		t.Fatalf("%d triangles, the boundary has %d", len(tris), len(topo.Triangles()))
	}
	// 6×3×3 grid: every vertex but the 4 inner ones of the middle plane
	// rows, (6−2)·(3−2)·(3−2) = 4, is on the boundary.
	if len(pts)/3 != 54-4 {
		t.Errorf("%d surface vertices, want the 50 boundary vertices", len(pts)/3)
	}
	for step := 0; step < 3; step++ {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
		pts, tris, nrm = vm.SurfaceMesh()
		x := s.Find("bar/dofs").(graph.State).Vec(graph.Position)
		for k, tr := range tris {
			orig := topo.Triangles()[k]
			for j := 0; j < 3; j++ {
				if geom.At(pts, tr[j]) != geom.At(x, orig[j]) {
					t.Fatalf("step %d, triangle %d corner %d at %v, the state's vertex %d is at %v", step+1, k, j, geom.At(pts, tr[j]), orig[j], geom.At(x, orig[j]))
				}
			}
		}
		// Outward: the normal at a vertex points away from the bar's
		// centre line, near enough for this mild bend.
		for i := 0; i < len(pts)/3; i++ {
			n := geom.At(nrm, i)
			if math.Abs(n.Norm()-1) > 1e-15 {
				t.Fatalf("normal %d has length %v", i, n.Norm())
			}
		}
	}
	if vm.SurfaceColor() != [3]float64{0.2, 0.4, 0.8} {
		t.Errorf("colour %v", vm.SurfaceColor())
	}
}

// Normals: a regular octahedron's vertex normals are its vertex
// directions exactly (by symmetry, to rounding), and they turn with the
// surface: recomputed after the state moves (UpdateVisual), they are the
// rotated ones.
func TestVertexNormals(t *testing.T) {
	pts := []float64{1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1}
	tris := [][3]int{{0, 2, 4}, {2, 1, 4}, {1, 3, 4}, {3, 0, 4}, {2, 0, 5}, {1, 2, 5}, {3, 1, 5}, {0, 3, 5}}
	nrm := make([]float64, len(pts))
	VertexNormals(nrm, pts, tris)
	for i := 0; i < 6; i++ {
		if d := geom.At(nrm, i).Sub(geom.At(pts, i)).Norm(); d > 1e-15 {
			t.Errorf("vertex %d: normal %v, want %v", i, geom.At(nrm, i), geom.At(pts, i))
		}
	}
	q := geom.QuatFromAxisAngle(geom.Vec3{1, 2, 3}.Normalized(), 0.7)
	rot := make([]float64, len(pts))
	for i := 0; i < 6; i++ {
		geom.Put(rot, i, q.Rotate(geom.At(pts, i)).Scale(2.5))
	}
	VertexNormals(nrm, rot, tris)
	for i := 0; i < 6; i++ {
		if d := geom.At(nrm, i).Sub(q.Rotate(geom.At(pts, i))).Norm(); d > 1e-15 {
			t.Errorf("rotated vertex %d: normal %v, want %v", i, geom.At(nrm, i), q.Rotate(geom.At(pts, i)))
		}
	}
}

// A surface file embedded in the bar by a BarycentricMapping: the visual
// model serves the file's points as its node's topology, the mapping
// attaches them, and after the bar bends every surface point is where the
// barycentric interpolation of the bar's vertices puts it; normals follow.
func TestVisualModelFileBarycentric(t *testing.T) {
	dir := t.TempDir()
	writeSphere(t, dir, geom.Vec3{0.5, 0, 0}, 0.09)
	text := barScene(`
  [[node.node]]
  name = "ball"
    [[node.node.object]]
    type = "VisualModel"
    filename = "sphere.obj"
    [[node.node.object]]
    type = "MechanicalObject"
    name = "surface"
    [[node.node.object]]
    type = "BarycentricMapping"
    isMechanical = false
`)
	s := loadWith(t, filepath.Join(dir, "bar.toml"), text, "bar")
	vm := s.Find("bar/ball/VisualModel").(*VisualModel)
	m, err := meshio.ReadOBJ(filepath.Join(dir, "sphere.obj"))
	if err != nil {
		t.Fatal(err)
	}
	pts, tris, _ := vm.SurfaceMesh()
	if len(tris) != len(m.Triangles) || len(pts) != len(m.Points) {
		t.Fatalf("%d triangles, %d points; the file has %d, %d", len(tris), len(pts)/3, len(m.Triangles), m.NumPoints())
	}
	for i := range pts {
		if math.Abs(pts[i]-m.Points[i]) > 1e-15 {
			t.Fatalf("rest coordinate %d: %v, file %v", i, pts[i], m.Points[i])
		}
	}
	for step := 0; step < 2; step++ {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
	}
	pts, _, nrm := vm.SurfaceMesh()
	// The motion is quadratic: barycentric interpolation of it is not
	// exact, but each point lies within the linear interpolation error of
	// the motion of its exact image. At t = 0.2 s, u_y = −0.06 x² has
	// |∂²u_y/∂x²| = 0.12 over cells h = 0.2 long: 0.12·0.2²/8 = 6e-4 m;
	// u_z = 0.02 x y adds at most 0.02·0.2·0.1/4 = 1e-4 m.
	moved := 0.0
	for i := 0; i < len(pts)/3; i++ {
		p0 := geom.At(m.Points, i)
		want := p0.Add(bend(s.Time, p0))
		if d := geom.At(pts, i).Sub(want).Norm(); d > 7e-4 {
			t.Errorf("point %d at %v, the motion puts it at %v (%.3g m off)", i, geom.At(pts, i), want, d)
		}
		moved = math.Max(moved, geom.At(pts, i).Sub(p0).Norm())
		// Normals of a sphere still point outward from its (moved) centre.
		c := geom.Vec3{0.5, 0, 0}
		c = c.Add(bend(s.Time, c))
		if geom.At(nrm, i).Dot(geom.At(pts, i).Sub(c).Normalized()) < 0.9 {
			t.Errorf("normal %d is %v, not outward", i, geom.At(nrm, i))
		}
	}
	if moved < 0.01 {
		t.Fatalf("the surface moved only %g m", moved)
	}
}

// A visual model without a file declared before the topology in the
// simulated node itself serves that topology unchanged (tetrahedra
// included), so masses and force fields, which take the node's topology,
// are unaffected by the declaration order.
func TestVisualModelInSimulatedNode(t *testing.T) {
	text := `
[[node]]
name = "bar"
  [[node.object]]
  type = "VisualModel"
  [[node.object]]
  type = "RegularGridTopology"
  min = [0, 0, 0]
  max = [1, 0.2, 0.2]
  n = [4, 2, 2]
  [[node.object]]
  type = "MechanicalObject"
`
	s := loadWith(t, "bar.toml", text, "")
	n := s.Root.Child("bar")
	topo := n.Topology()
	if _, isVM := topo.(*VisualModel); !isVM {
		t.Fatalf("the node's first topology is %T; the test wants the visual model first", topo)
	}
	if len(topo.Tetrahedra()) != 3*6 || len(topo.Points()) != 3*16 {
		t.Errorf("through the visual model: %d tetrahedra, %d points; want 18, 16", len(topo.Tetrahedra()), len(topo.Points())/3)
	}
	if n.State().Size() != 16 {
		t.Errorf("state has %d DOFs, want 16", n.State().Size())
	}
	_, tris, _ := s.Find("bar/VisualModel").(*VisualModel).SurfaceMesh()
	if len(tris) == 0 {
		t.Error("no triangles drawn")
	}
}

// Several visual models colour parts of one boundary (box): together they
// hold every boundary triangle once.
func TestVisualModelBoxes(t *testing.T) {
	part := func(name string, box string) string {
		return fmt.Sprintf(`
  [[node.node]]
  name = %q
    [[node.node.object]]
    type = "MechanicalObject"
    [[node.node.object]]
    type = "IdentityMapping"
    isMechanical = false
    [[node.node.object]]
    type = "VisualModel"
    box = %s
`, name, box)
	}
	s := loadWith(t, "bar.toml", barScene(part("left", "[-1, -1, -1, 0.5, 1, 1]")+part("right", "[0.5, -1, -1, 2, 1, 1]")), "")
	l := s.Find("bar/left/VisualModel").(*VisualModel)
	r := s.Find("bar/right/VisualModel").(*VisualModel)
	_, lt, _ := l.SurfaceMesh()
	_, rt, _ := r.SurfaceMesh()
	all := len(s.Root.Child("bar").LocalTopology().Triangles())
	if len(lt)+len(rt) != all || len(lt) == 0 || len(rt) == 0 {
		t.Errorf("parts have %d + %d triangles, the boundary %d", len(lt), len(rt), all)
	}
}

func TestVisualModelErrors(t *testing.T) {
	dir := t.TempDir()
	writeSphere(t, dir, geom.Vec3{0.5, 0, 0}, 0.09)
	cases := []struct{ text, want string }{
		{barScene(`
  [[node.node]]
  name = "v"
    [[node.node.object]]
    type = "VisualModel"
    filename = "missing.obj"
`), "missing.obj"},
		{barScene(`
  [[node.object]]
  type = "VisualModel"
  filename = "sphere.obj"
`), "already has topology"},
		{barScene(`
  [[node.node]]
  name = "v"
    [[node.node.object]]
    type = "VisualModel"
`), "no MechanicalObject in this node"},
		{barScene(`
  [[node.node]]
  name = "v"
    [[node.node.object]]
    type = "VisualModel"
    box = [2, 2, 2, 3, 3, 3]
    [[node.node.object]]
    type = "MechanicalObject"
`), "no triangle of"},
		{barScene(`
  [[node.node]]
  name = "v"
    [[node.node.object]]
    type = "VisualModel"
    box = [0, 0, 0]
`), "box has 3 numbers"},
		{barScene(`
  [[node.node]]
  name = "v"
    [[node.node.object]]
    type = "VisualModel"
    scale3d = [2, 2, 2]
`), "apply to a surface file"},
		{barScene(`
  [[node.node]]
  name = "v"
    [[node.node.object]]
    type = "VisualModel"
    [[node.node.object]]
    type = "MechanicalObject"
    template = "Rigid3"
    position = [[0, 0, 0, 0, 0, 0, 1]]
`), "needs Vec3 points"},
		{barScene(`
  [[node.node]]
  name = "v"
    [[node.node.object]]
    type = "VisualModel"
    [[node.node.object]]
    type = "MechanicalObject"
    position = [[0, 0, 0]]
`), `position has 1 DOFs but the rest shape (the points of topology "VisualModel") has 54`},
	}
	for i, c := range cases {
		s, err := graph.Load(filepath.Join(dir, "bar.toml"), []byte(c.text))
		if err == nil {
			err = s.Init()
		}
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "bar.toml:") {
			t.Errorf("case %d: error %v, want one located in bar.toml containing %q", i, err, c.want)
		}
	}
}
