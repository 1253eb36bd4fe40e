package meshio

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fivePoints is the mesh every hand-written sample in testdata/ holds: two
// positive tetrahedra sharing the face (1, 2, 3), and two triangles.
var fivePoints = &Mesh{
	Points:     []float64{0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1},
	Tetrahedra: [][4]int{{0, 1, 2, 3}, {1, 2, 3, 4}},
	Triangles:  [][3]int{{0, 2, 1}, {1, 2, 4}},
}

// sameMesh reports the first difference between two meshes: points are
// compared bit for bit, cells exactly, nil and empty cell lists are equal.
func sameMesh(got, want *Mesh) error {
	if len(got.Points) != len(want.Points) {
		return fmt.Errorf("%d coordinates, want %d", len(got.Points), len(want.Points))
	}
	for i := range got.Points {
		if math.Float64bits(got.Points[i]) != math.Float64bits(want.Points[i]) {
			return fmt.Errorf("point %d coordinate %d = %v, want %v", i/3, i%3, got.Points[i], want.Points[i])
		}
	}
	if len(got.Tetrahedra) != len(want.Tetrahedra) {
		return fmt.Errorf("%d tetrahedra, want %d", len(got.Tetrahedra), len(want.Tetrahedra))
	}
	for e := range got.Tetrahedra {
		if got.Tetrahedra[e] != want.Tetrahedra[e] {
			return fmt.Errorf("tetrahedron %d = %v, want %v", e, got.Tetrahedra[e], want.Tetrahedra[e])
		}
	}
	if len(got.Hexahedra) != len(want.Hexahedra) {
		return fmt.Errorf("%d hexahedra, want %d", len(got.Hexahedra), len(want.Hexahedra))
	}
	for e := range got.Hexahedra {
		if got.Hexahedra[e] != want.Hexahedra[e] {
			return fmt.Errorf("hexahedron %d = %v, want %v", e, got.Hexahedra[e], want.Hexahedra[e])
		}
	}
	if len(got.Triangles) != len(want.Triangles) {
		return fmt.Errorf("%d triangles, want %d", len(got.Triangles), len(want.Triangles))
	}
	for e := range got.Triangles {
		if got.Triangles[e] != want.Triangles[e] {
			return fmt.Errorf("triangle %d = %v, want %v", e, got.Triangles[e], want.Triangles[e])
		}
	}
	return nil
}

func TestReadSamples(t *testing.T) {
	noTriangles := &Mesh{Points: fivePoints.Points, Tetrahedra: fivePoints.Tetrahedra}
	for _, c := range []struct {
		file string
		want *Mesh
	}{
		{"gmsh22_tags.msh", fivePoints},   // non-contiguous tags, point and line elements, $PhysicalNames, $NodeData
		{"gmsh41_blocks.msh", fivePoints}, // entity blocks, unsorted tags, a parametric block, $Entities
		{"vtk_classic.vtk", fivePoints},   // classic CELLS, wrapped numbers, FIELD, vertex and line cells, CELL_DATA
		{"vtk51.vtk", fivePoints},         // OFFSETS/CONNECTIVITY layout, METADATA
		{"vtu_sample.vtu", fivePoints},    // VTK XML: comments, Float32, wrapped numbers, vertex and line cells, data arrays, InformationKey
		{"tetgen0.node", fivePoints},      // 0-based, attributes, markers, comments, with .face
		{"tetgen0.ele", fivePoints},
		{"tetgen1.ele", noTriangles}, // 1-based, no .face
		{"veg_sections.veg", noTriangles},
	} {
		m, err := Read(filepath.Join("testdata", c.file))
		if err != nil {
			t.Errorf("%s: %v", c.file, err)
			continue
		}
		if err := sameMesh(m, c.want); err != nil {
			t.Errorf("%s: %v", c.file, err)
		}
		if err := m.Validate(); err != nil {
			t.Errorf("%s: Validate: %v", c.file, err)
		}
	}
}

func TestVEGMaterials(t *testing.T) {
	_, mats, err := ReadVEGMaterials("testdata/veg_sections.veg")
	if err != nil {
		t.Fatal(err)
	}
	want := []VEGMaterial{{"soft", "ENU", 1000, 1e6, 0.45}, {"hard", "ENU", 1100, 2e7, 0.3}}
	if fmt.Sprint(mats) != fmt.Sprint(want) {
		t.Errorf("materials %v, want %v", mats, want)
	}
}

// vegaBar reads the VegaFEM reference bar (testdata/vega/mesh.json of the
// project: 99 vertices, 240 tetrahedra, 0-based), the mesh the .veg file
// bar_2x2x10_kuhn6.veg describes.
func vegaBar(t *testing.T) *Mesh {
	t.Helper()
	data, err := os.ReadFile("../testdata/vega/mesh.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		NumVertices int       `json:"num_vertices"`
		NumTets     int       `json:"num_tets"`
		Vertices    []float64 `json:"vertices"`
		Tets        []int     `json:"tets"` // flat, 4 per tetrahedron
	}
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatal(err)
	}
	if ref.NumVertices != 99 || ref.NumTets != 240 || len(ref.Vertices) != 3*99 || len(ref.Tets) != 4*240 {
		t.Fatalf("mesh.json: %d vertices (%d coordinates), %d tets", ref.NumVertices, len(ref.Vertices), len(ref.Tets))
	}
	m := &Mesh{Points: ref.Vertices}
	for e := 0; e < ref.NumTets; e++ {
		m.Tetrahedra = append(m.Tetrahedra, [4]int(ref.Tets[4*e:4*e+4]))
	}
	return m
}

// The .veg reader gives exactly VegaFEM's mesh: the same 99 vertices (bit
// for bit: both are the shortest decimals of the same doubles) and the same
// 240 tetrahedra in the same order, shifted to 0-based indices.
func TestVegaBar(t *testing.T) {
	m, mats, err := ReadVEGMaterials("testdata/bar_2x2x10_kuhn6.veg")
	if err != nil {
		t.Fatal(err)
	}
	if err := sameMesh(m, vegaBar(t)); err != nil {
		t.Fatal(err)
	}
	if len(mats) != 1 || mats[0] != (VEGMaterial{"defaultMaterial", "ENU", 1000, 1e6, 0.45}) {
		t.Errorf("materials %v", mats)
	}
	for e := range m.Tetrahedra {
		if v := m.TetVolume(e); !(v > 0) {
			t.Errorf("tetrahedron %d has volume %g", e, v)
		}
	}
}

// awkward is a small mesh whose coordinates need all 17 significant digits,
// with extreme exponents and negative zero, to check that writers keep
// every bit.
func awkward() *Mesh {
	return &Mesh{
		Points: []float64{1.0 / 3, -2.0 / 3, 0.1, 1e-300, -1e300, math.Copysign(0, -1),
			math.Pi, math.E, math.Sqrt2, 5e-324, math.MaxFloat64, -math.SmallestNonzeroFloat64,
			123456789.123456789, -0.30000000000000004, 7},
		Tetrahedra: [][4]int{{0, 1, 2, 3}, {4, 3, 2, 1}},
		Triangles:  [][3]int{{0, 1, 2}, {4, 2, 3}, {1, 3, 4}},
	}
}

func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	bar, err := ReadVEG("testdata/bar_2x2x10_kuhn6.veg")
	if err != nil {
		t.Fatal(err)
	}
	surface := &Mesh{Points: fivePoints.Points, Triangles: fivePoints.Triangles}
	meshes := map[string]*Mesh{"awkward": awkward(), "bar": bar, "five": fivePoints, "surface": surface, "empty": {}}
	writers := []struct {
		ext       string
		write     func(string, *Mesh) error
		triangles bool // the format holds triangles
	}{
		{".msh", func(p string, m *Mesh) error { return WriteMSH(p, m, "2.2") }, true},
		{".msh", func(p string, m *Mesh) error { return WriteMSH(p, m, "4.1") }, true},
		{".vtk", Write, true},
		{".vtu", Write, true},
		{".node", Write, true},
		{".veg", Write, false},
	}
	// The surface formats through Read and Write. STL stores a triangle
	// soup of float32 coordinates that the reader welds, numbering points
	// by first use: the sample has coordinates exact in float32 and points
	// numbered in the order the triangles first use them.
	square := &Mesh{Points: []float64{0, 0, 0, 0.5, 0, 0, 0, 0.25, 0, 0.5, 0.25, -1}, Triangles: [][3]int{{0, 1, 2}, {1, 3, 2}}}
	for _, ext := range []string{".obj", ".stl"} {
		path := filepath.Join(dir, "surface"+ext)
		if err := Write(path, square); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		got, err := Read(path)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if err := sameMesh(got, square); err != nil {
			t.Errorf("%s: read back: %v", path, err)
		}
	}
	for name, m := range meshes {
		for i, w := range writers {
			if !w.triangles && len(m.Triangles) > 0 {
				continue
			}
			path := filepath.Join(dir, fmt.Sprintf("%s%d%s", name, i, w.ext))
			if err := w.write(path, m); err != nil {
				t.Errorf("%s: write: %v", path, err)
				continue
			}
			got, err := Read(path)
			if err != nil {
				t.Errorf("%s: read back: %v", path, err)
				continue
			}
			if err := sameMesh(got, m); err != nil {
				t.Errorf("%s: read back: %v", path, err)
			}
		}
	}
	// No temporary files are left behind.
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

func TestWriteErrors(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mesh.msh")
	if err := Write(path, fivePoints); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	// An invalid mesh is refused and the previous file stays intact.
	bad := &Mesh{Points: []float64{0, 0, 0}, Tetrahedra: [][4]int{{0, 1, 2, 3}}}
	if err := Write(path, bad); err == nil || !strings.Contains(err.Error(), "out of range") {
		t.Errorf("invalid mesh: error %v", err)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Errorf("a failed write changed the file")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d files in the folder after a failed write, want 1", len(entries))
	}
	if err := Write(filepath.Join(dir, "m.veg"), fivePoints); err == nil || !strings.Contains(err.Error(), "no triangles") {
		t.Errorf(".veg with triangles: error %v", err)
	}
	if err := Write(filepath.Join(dir, "m.stl"), &Mesh{Points: fivePoints.Points, Tetrahedra: fivePoints.Tetrahedra}); err == nil || !strings.Contains(err.Error(), "no triangles") {
		t.Errorf(".stl without triangles: error %v", err)
	}
	if err := Write(filepath.Join(dir, "m.xyz"), fivePoints); !errors.Is(err, ErrUnsupported) {
		t.Errorf(".xyz: error %v", err)
	}
	if err := Write(filepath.Join(dir, "missing", "m.vtk"), fivePoints); err == nil {
		t.Errorf("missing folder: no error")
	}
	if err := WriteMSH(filepath.Join(dir, "m.msh"), fivePoints, "3.0"); !errors.Is(err, ErrUnsupported) {
		t.Errorf("msh 3.0: error %v", err)
	}
}

func TestReadDispatchErrors(t *testing.T) {
	for _, c := range []struct{ path, msg string }{
		{"testdata/mesh.xyz", `unknown mesh format ".xyz"`},
		{"testdata/missing.stl", "no such file"},
		{"testdata/missing.obj", "no such file"},
		{"testdata/missing.msh", "no such file"},
		{"testdata/missing.ele", "missing.node"},
	} {
		_, err := Read(c.path)
		var e *Error
		if !errors.As(err, &e) || !strings.Contains(err.Error(), c.msg) || !strings.HasPrefix(err.Error(), e.File+": ") {
			t.Errorf("%s: error %v, want an *Error containing %q", c.path, err, c.msg)
		}
	}
}

func TestValidateOrient(t *testing.T) {
	m := &Mesh{Points: fivePoints.Points, Tetrahedra: [][4]int{{0, 1, 3, 2}, {1, 2, 3, 4}, {0, 1, 2, 2}}}
	if err := m.Validate(); err == nil || !strings.Contains(err.Error(), "tetrahedron 2") || !strings.Contains(err.Error(), "repeated") {
		t.Errorf("repeated vertex: %v", err)
	}
	m.Tetrahedra = m.Tetrahedra[:2]
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	if v := m.TetVolume(0); v != -1.0/6 {
		t.Fatalf("volume of the inverted unit corner %g, want -1/6", v)
	}
	if n := m.Orient(); n != 1 || m.Tetrahedra[0] != [4]int{0, 1, 2, 3} || m.Tetrahedra[1] != [4]int{1, 2, 3, 4} {
		t.Errorf("Orient flipped %d: %v", n, m.Tetrahedra)
	}
	for _, c := range []struct {
		m   *Mesh
		msg string
	}{
		{&Mesh{Points: []float64{0, 0}}, "xyz triples"},
		{&Mesh{Points: []float64{0, math.NaN(), 0}}, "NaN"},
		{&Mesh{Points: []float64{0, 0, 0}, Triangles: [][3]int{{0, -1, 0}}}, "triangle 0"},
	} {
		if err := c.m.Validate(); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("Validate: error %v, want %q", err, c.msg)
		}
	}
}

func TestErrorFormat(t *testing.T) {
	cause := errors.New("bad thing")
	if s := (&Error{File: "a.msh", Line: 7, Err: cause}).Error(); s != "a.msh:7: bad thing" {
		t.Errorf("%q", s)
	}
	if s := (&Error{File: "a.msh", Err: cause}).Error(); s != "a.msh: bad thing" {
		t.Errorf("%q", s)
	}
	if !errors.Is(&Error{File: "a", Err: cause}, cause) {
		t.Errorf("Unwrap")
	}
}
