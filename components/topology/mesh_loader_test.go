package topology_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sofago/sofago/components/topology"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
	"github.com/sofago/sofago/meshio"

	_ "github.com/sofago/sofago/components/all"
)

// loaderScene is a node holding a MeshLoader with the given extra fields
// and a MechanicalObject taking its positions from it.
func loaderScene(filename, fields string) string {
	return fmt.Sprintf(`
gravity = [0, 0, 0]
[[node]]
name = "body"
  [[node.object]]
  type = "MeshLoader"
  name = "loader"
  filename = %q
  %s
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
`, filename, fields)
}

// Loading a mesh file through a scene gives the points and tetrahedra of
// meshio.Read, the rest positions of the MechanicalObject are those points,
// and the topology's triangles are the outward boundary of the tetrahedra.
func TestMeshLoaderMatchesMeshioRead(t *testing.T) {
	for _, file := range []string{
		"../../meshio/testdata/external/cube41.msh",
		"../../meshio/testdata/external/cube_gmsh.vtk",
		"../../meshio/testdata/external/cube_vtk9.vtu",
		"../../meshio/testdata/external/cube_tetgen.ele",
		"../../meshio/testdata/bar_2x2x10_kuhn6.veg",
	} {
		want, err := meshio.Read(file)
		if err != nil {
			t.Fatal(err)
		}
		// The scene file is in this folder; the mesh file name is relative to it.
		s := graphtest.MustLoad(t, "loader_test.toml", loaderScene(file, ""))
		l := graphtest.Find[*topology.MeshLoader](t, s, "body/loader")
		if !equalFloats(l.Points(), want.Points) {
			t.Errorf("%s: points differ from meshio.Read", file)
		}
		if fmt.Sprint(l.Tetrahedra()) != fmt.Sprint(want.Tetrahedra) {
			t.Errorf("%s: tetrahedra differ from meshio.Read", file)
		}
		rest := s.Find("body/dofs").(graph.State).Vec(graph.RestPosition)
		if !equalFloats(rest, want.Points) {
			t.Errorf("%s: rest positions differ from the file's points", file)
		}
		checkClosedOutward(t, file, l)
	}
}

func equalFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// checkClosedOutward checks that the topology's triangles close the volume
// of its tetrahedra, oriented outwards: by the divergence theorem, Σ over
// triangles of p0·(p1×p2)/6 equals the total tetrahedron volume, which
// must be positive for every tetrahedron.
func checkClosedOutward(t *testing.T, name string, topo graph.Topology) {
	t.Helper()
	p := topo.Points()
	vol := 0.0
	for e, tet := range topo.Tetrahedra() {
		v := topology.TetVolume(p, tet)
		if !(v > 0) {
			t.Errorf("%s: tetrahedron %d has volume %g", name, e, v)
			return
		}
		vol += v
	}
	flux := 0.0
	for _, tr := range topo.Triangles() {
		flux += geom.At(p, tr[0]).Dot(geom.At(p, tr[1]).Cross(geom.At(p, tr[2]))) / 6
	}
	// Sums of O(1)-sized terms of opposite signs: 1e-12 relative is ample.
	if math.Abs(flux-vol) > 1e-12*vol {
		t.Errorf("%s: boundary encloses %.15g, tetrahedra fill %.15g", name, flux, vol)
	}
}

// A MeshLoader of VegaFEM's .veg bar feeding a TetrahedronFEMForceField
// gives the same forces as the RegularGridTopology n = [3,3,11] bar, which
// reproduces that mesh (same tetrahedra in the same order; coordinates
// equal to rounding, since the grid computes min + i·h and Vega i·L/n).
func TestMeshLoaderVegaBarForcesMatchGrid(t *testing.T) {
	scene := func(topo string, method string) string {
		return fmt.Sprintf(`
gravity = [0, -9.81, 0]
[[node]]
name = "bar"
  %s
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[node.object]]
  type = "DiagonalMass"
  massDensity = 1000
  [[node.object]]
  type = "TetrahedronFEMForceField"
  method = %q
  youngModulus = 1e6
  poissonRatio = 0.45
`, topo, method)
	}
	loader := `[[node.object]]
  type = "MeshLoader"
  filename = "../../meshio/testdata/bar_2x2x10_kuhn6.veg"`
	grid := `[[node.object]]
  type = "RegularGridTopology"
  min = [0, 0, 0]
  max = [0.2, 0.2, 1]
  n = [3, 3, 11]`
	for _, method := range []string{"small", "large", "polar", "svd"} {
		var forces [2][]float64
		for k, topo := range []string{loader, grid} {
			s := graphtest.MustLoad(t, "loader_test.toml", scene(topo, method))
			st := s.Find("bar/dofs").(graph.State)
			x, rest := st.Vec(graph.Position), st.Vec(graph.RestPosition)
			// A large pose, the same function of the rest point in both:
			// bend about x, twist about z, stretch along z.
			for i := 0; i < len(x)/3; i++ {
				X := geom.At(rest, i)
				z := X[2]
				c, sn := math.Cos(0.8*z), math.Sin(0.8*z)
				u := geom.Vec3{c*(X[0]-0.1) - sn*(X[1]-0.1) + 0.1, sn*(X[0]-0.1) + c*(X[1]-0.1) + 0.1 + 0.3*z*z, 1.1 * z}
				geom.Put(x, i, u)
			}
			s.ComputeForces()
			forces[k] = append([]float64(nil), st.Vec(graph.Force)...)
		}
		// The rest coordinates differ by at most one rounding (1.1e-16
		// relative, 1e-15 absolute in the bar's 1 m); through element
		// conditioning ~10 and a few hundred operations per force that is
		// ~1e-14 relative to the largest force (measured: ≤ 7e-15). 1e-13
		// still catches any wrong vertex, element or orientation, which
		// would show at O(1).
		scale, worst := 0.0, 0.0
		for i := range forces[0] {
			scale = math.Max(scale, math.Abs(forces[1][i]))
			worst = math.Max(worst, math.Abs(forces[0][i]-forces[1][i]))
		}
		t.Logf("%s: max |f| %.4g N, max difference %.3g (relative %.2g)", method, scale, worst, worst/scale)
		if !(scale > 1) || worst > 1e-13*scale {
			t.Errorf("%s: MeshLoader forces differ from the grid's by %g (max force %g)", method, worst, scale)
		}
	}
}

// writeMesh writes m into dir/name and returns the path.
func writeMesh(t *testing.T, dir, name string, m *meshio.Mesh) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := meshio.Write(path, m); err != nil {
		t.Fatal(err)
	}
	return path
}

// unitCorner is the positive tetrahedron (0, e_x, e_y, e_z) with its
// outward faces given by the file as triangles.
func unitCorner() *meshio.Mesh {
	return &meshio.Mesh{Points: []float64{0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1}, Tetrahedra: [][4]int{{0, 1, 2, 3}}}
}

// Scale, then rotate about x, then y, then z, then translate — SOFA's
// order. The rotation [90, 90, 0] tells the orders apart: x first sends
// e_y to e_z, then y sends e_z to e_x; y first would leave e_y for x to
// send to e_z.
func TestMeshLoaderTransform(t *testing.T) {
	dir := t.TempDir()
	writeMesh(t, dir, "corner.msh", unitCorner())
	scene := filepath.Join(dir, "scene.toml")
	s := graphtest.MustLoad(t, scene, loaderScene("corner.msh", `scale3d = [2, 3, 4]
  rotation = [90, 90, 0]
  translation = [10, 20, 30]`))
	l := graphtest.Find[*topology.MeshLoader](t, s, "body/loader")
	// e_x scaled to 2e_x: Rx keeps it, Ry(90) sends x to −z. e_y → 3e_y →
	// Rx: 3e_z → Ry: 3e_x. e_z → 4e_z → Rx: −4e_y → Ry keeps it.
	want := []float64{10, 20, 30, 10, 20, 28, 13, 20, 30, 10, 16, 30}
	for i, x := range l.Points() {
		if math.Abs(x-want[i]) > 1e-14 {
			t.Fatalf("transformed points %v, want %v", l.Points(), want)
		}
	}
	// Against SOFA's Quater::createQuaterFromEuler(v) (roll v0 about x,
	// pitch v1 about y, yaw v2 about z): q = (s0c1c2 − c0s1s2,
	// c0s1c2 + s0c1s2, c0c1s2 − s0s1c2, c0c1c2 + s0s1s2), halves of the angles.
	for _, deg := range [][3]float64{{90, 90, 0}, {10, -20, 30}, {-170, 45, 95}} {
		var c, sn [3]float64
		for a := range deg {
			c[a], sn[a] = math.Cos(deg[a]*math.Pi/360), math.Sin(deg[a]*math.Pi/360)
		}
		q := geom.Quat{sn[0]*c[1]*c[2] - c[0]*sn[1]*sn[2], c[0]*sn[1]*c[2] + sn[0]*c[1]*sn[2],
			c[0]*c[1]*sn[2] - sn[0]*sn[1]*c[2], c[0]*c[1]*c[2] + sn[0]*sn[1]*sn[2]}
		R := (&topology.MeshLoader{Rotation: deg}).RotationMatrix()
		Q := q.Mat()
		for k := range R {
			if math.Abs(R[k]-Q[k]) > 1e-15 {
				t.Errorf("rotation %v: R = %v, SOFA's quaternion gives %v", deg, R, Q)
				break
			}
		}
	}
	// The tetrahedron stays positive (scales 2, 3, 4 and a rotation keep the
	// orientation) with volume 2·3·4/6.
	if v := topology.TetVolume(l.Points(), l.Tetrahedra()[0]); math.Abs(v-4) > 1e-13 {
		t.Errorf("volume %g, want 4", v)
	}
}

// A mirroring scale inverts every tetrahedron; the loader re-orients them
// and the boundary stays closed and outward. A surface mesh keeps its side:
// its triangles are reversed.
func TestMeshLoaderMirror(t *testing.T) {
	dir := t.TempDir()
	writeMesh(t, dir, "bar.vtk", mustGrid(t))
	surface := &meshio.Mesh{Points: []float64{0, 0, 0, 1, 0, 0, 0, 1, 0}, Triangles: [][3]int{{0, 1, 2}}}
	writeMesh(t, dir, "tri.msh", surface)
	scene := filepath.Join(dir, "scene.toml")
	s := graphtest.MustLoad(t, scene, loaderScene("bar.vtk", `scale3d = [-1, 1, 1]`))
	l := graphtest.Find[*topology.MeshLoader](t, s, "body/loader")
	checkClosedOutward(t, "mirrored bar", l)
	s = graphtest.MustLoad(t, scene, loaderScene("tri.msh", `scale3d = [1, 1, -2]`))
	l = graphtest.Find[*topology.MeshLoader](t, s, "body/loader")
	if len(l.Tetrahedra()) != 0 || fmt.Sprint(l.Triangles()) != "[[0 2 1]]" {
		t.Errorf("mirrored surface: tetrahedra %v, triangles %v", l.Tetrahedra(), l.Triangles())
	}
	s = graphtest.MustLoad(t, scene, loaderScene("tri.msh", ""))
	l = graphtest.Find[*topology.MeshLoader](t, s, "body/loader")
	if fmt.Sprint(l.Triangles()) != "[[0 1 2]]" {
		t.Errorf("surface: triangles %v", l.Triangles())
	}
}

// A surface file (STL, OBJ) gives a topology of triangles only: the
// file's, in its order, on the side it faces; a mirroring scale reverses
// them so the surface still faces out (its enclosed volume stays positive).
func TestMeshLoaderSurfaceFiles(t *testing.T) {
	for _, file := range []string{
		"../../meshio/testdata/external/cube_gmsh_surface.stl",
		"../../meshio/testdata/obj_cube_quads.obj",
	} {
		want, err := meshio.Read(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, scale := range []string{"[1, 1, 1]", "[2, -1, 1]"} {
			s := graphtest.MustLoad(t, "loader_test.toml", loaderScene(file, "scale3d = "+scale))
			l := graphtest.Find[*topology.MeshLoader](t, s, "body/loader")
			got := &meshio.Mesh{Points: l.Points(), Triangles: l.Triangles()}
			wantVol := want.EnclosedVolume()
			if scale != "[1, 1, 1]" {
				wantVol *= 2
			}
			if len(l.Tetrahedra()) != 0 || len(got.Triangles) != len(want.Triangles) || !(wantVol > 0) ||
				math.Abs(got.EnclosedVolume()-wantVol) > 1e-12*wantVol {
				t.Errorf("%s scale %s: %d tetrahedra, %d triangles enclosing %g; file: %d triangles enclosing %g",
					file, scale, len(l.Tetrahedra()), len(got.Triangles), got.EnclosedVolume(), len(want.Triangles), wantVol)
			}
		}
	}
}

func mustGrid(t *testing.T) *meshio.Mesh {
	g, err := topology.NewRegularGrid([3]float64{0, 0, 0}, [3]float64{1, 0.2, 0.3}, [3]int{4, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	return &meshio.Mesh{Points: g.Points(), Tetrahedra: g.Tetrahedra()}
}

// Errors name the scene file, its line, the node and the object, and —
// for a malformed mesh — the mesh file and its line.
func TestMeshLoaderErrors(t *testing.T) {
	dir := t.TempDir()
	scene := filepath.Join(dir, "scene.toml")
	writeMesh(t, dir, "corner.msh", unitCorner())
	free := unitCorner()
	free.Points = append(free.Points, 5, 5, 5)
	writeMesh(t, dir, "free.vtk", free)
	writeMesh(t, dir, "points.vtk", &meshio.Mesh{Points: []float64{0, 0, 0}})
	if err := os.WriteFile(filepath.Join(dir, "bad.msh"), []byte("$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n1\n1 0 0 zero\n$EndNodes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	at := scene + ":5: node \"body\", object \"loader\" (MeshLoader): "
	for _, c := range []struct {
		file, fields string
		want         []string
		atInit       bool // the error comes from Init, not from loading the scene
	}{
		{"missing.msh", "", []string{at, filepath.Join(dir, "missing.msh"), "no such file"}, true},
		{"bad.msh", "", []string{at, filepath.Join(dir, "bad.msh") + ":6: node 1: coordinate z: \"zero\" is not a number"}, true},
		{"free.vtk", "", []string{at, "1 of 5 points belong to no tetrahedron or hexahedron (the first: point 4 at (5, 5, 5))"}, true},
		{"points.vtk", "", []string{at, "no tetrahedra, hexahedra or triangles"}, true},
		{"mesh.ply", "", []string{at, `unknown mesh format ".ply"`}, false},
		{"corner.msh", "scale3d = [1, 0, 1]", []string{at, "scale3d[1] = 0"}, false},
	} {
		s, err := graph.Load(scene, []byte(loaderScene(c.file, c.fields)))
		if err == nil {
			if !c.atInit {
				t.Errorf("%s %s: loads", c.file, c.fields)
				continue
			}
			err = s.Init()
		} else if c.atInit {
			t.Errorf("%s: load error %v", c.file, err)
			continue
		}
		if err == nil {
			t.Errorf("%s %s: no error", c.file, c.fields)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s %s: error\n\t%v\nlacks %q", c.file, c.fields, err, w)
			}
		}
	}
	// A MeshLoader without a filename is a load error.
	if _, err := graph.Load(scene, []byte("[[node]]\nname = \"b\"\n  [[node.object]]\n  type = \"MeshLoader\"\n")); err == nil || !strings.Contains(err.Error(), "filename") {
		t.Errorf("missing filename: %v", err)
	}
}
