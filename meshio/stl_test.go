package meshio

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hschendel/stl"
)

// float32Welded returns what an STL round trip of m must give: every
// coordinate rounded to float32, vertices numbered in order of first
// appearance in the triangles (as ReadSTL welds them), unused vertices
// gone.
func float32Welded(m *Mesh) *Mesh {
	out := &Mesh{}
	id := map[[3]float32]int{}
	for _, t := range m.Triangles {
		var f [3]int
		for j, v := range t {
			key := [3]float32{float32(m.Points[3*v]), float32(m.Points[3*v+1]), float32(m.Points[3*v+2])}
			i, ok := id[key]
			if !ok {
				i = len(id)
				id[key] = i
				out.Points = append(out.Points, float64(key[0]), float64(key[1]), float64(key[2]))
			}
			f[j] = i
		}
		out.Triangles = append(out.Triangles, f)
	}
	return out
}

// sameSurface fails unless a and b have identical points and triangles.
func sameSurface(t *testing.T, what string, got, want *Mesh) {
	t.Helper()
	if len(got.Points) != len(want.Points) || len(got.Triangles) != len(want.Triangles) {
		t.Fatalf("%s: %d points, %d triangles; want %d, %d", what, got.NumPoints(), len(got.Triangles), want.NumPoints(), len(want.Triangles))
	}
	for i := range got.Points {
		if got.Points[i] != want.Points[i] {
			t.Fatalf("%s: coordinate %d = %v, want %v", what, i, got.Points[i], want.Points[i])
		}
	}
	for i := range got.Triangles {
		if got.Triangles[i] != want.Triangles[i] {
			t.Fatalf("%s: triangle %d = %v, want %v", what, i, got.Triangles[i], want.Triangles[i])
		}
	}
	if len(got.Tetrahedra) != 0 {
		t.Fatalf("%s: %d tetrahedra from a surface file", what, len(got.Tetrahedra))
	}
}

// TestSTLRoundTrip writes closed surfaces as binary and ASCII STL and reads
// them back: the result must be exactly the float32-rounded surface with
// its vertices welded back together (every shared vertex of the original
// appears once), in both formats, and a second round trip must change
// nothing.
func TestSTLRoundTrip(t *testing.T) {
	sphere, err := SphereSurface(0.7, 40, 20)
	if err != nil {
		t.Fatal(err)
	}
	torus, err := TorusSurface(1.3, 0.4, 36, 18)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		m    *Mesh
	}{{"sphere", sphere}, {"torus", torus}} {
		want := float32Welded(c.m)
		if want.NumPoints() != c.m.NumPoints() {
			t.Fatalf("%s: float32 rounding merged vertices of the original (%d → %d): pick other sizes", c.name, c.m.NumPoints(), want.NumPoints())
		}
		for _, binaryFormat := range []bool{true, false} {
			path := filepath.Join(dir, c.name+".stl")
			if err := WriteSTL(path, c.m, binaryFormat); err != nil {
				t.Fatal(err)
			}
			got, err := ReadSTL(path)
			if err != nil {
				t.Fatal(err)
			}
			what := c.name + map[bool]string{true: " binary", false: " ASCII"}[binaryFormat]
			sameSurface(t, what, got, want)
			if got.Name != path {
				t.Errorf("%s: Name = %q, want the file name", what, got.Name)
			}
			if n := got.BoundaryEdges(); n != 0 {
				t.Errorf("%s: %d boundary edges after welding, want a closed surface", what, n)
			}
			if err := WriteSTL(path, got, binaryFormat); err != nil {
				t.Fatal(err)
			}
			again, err := ReadSTL(path)
			if err != nil {
				t.Fatal(err)
			}
			sameSurface(t, what+" (second round trip)", again, want)
		}
	}
	// No temporary files are left behind by the atomic writes.
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 {
		t.Errorf("%d files in the output folder, want 2", len(entries))
	}
}

// TestSTLWeldsAndOrients reads a hand-written ASCII STL (an unnamed
// "solid", CRLF line ends): four facets repeating their vertices must weld
// to the 4 vertices of a tetrahedron, in order of first appearance, with
// the orientation of the file's normals (enclosed volume +1/6).
func TestSTLWeldsAndOrients(t *testing.T) {
	m, err := ReadSTL("testdata/stl_tetrahedron_unnamed.stl")
	if err != nil {
		t.Fatal(err)
	}
	want := &Mesh{
		Points:    []float64{0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 1},
		Triangles: [][3]int{{0, 1, 2}, {0, 2, 3}, {0, 3, 1}, {2, 1, 3}},
	}
	sameSurface(t, "tetrahedron", m, want)
	if v := m.EnclosedVolume(); math.Abs(v-1.0/6) > 1e-16 {
		t.Errorf("enclosed volume %v, want 1/6", v)
	}
}

// TestSTLFromGmsh reads an STL written by another program (Gmsh 4.8.4, the
// unit cube's surface, testdata/external): it must weld into a closed
// surface enclosing volume 1, oriented as the file's facet normals say.
func TestSTLFromGmsh(t *testing.T) {
	const path = "testdata/external/cube_gmsh_surface.stl"
	m, err := ReadSTL(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := m.BoundaryEdges(); n != 0 {
		t.Errorf("%d boundary edges, want a closed surface", n)
	}
	// The coordinates are multiples of 1/8 (exact in float32), so the
	// divergence theorem is exact to rounding of a few hundred terms.
	if v := m.EnclosedVolume(); math.Abs(v-1) > 1e-14 {
		t.Errorf("enclosed volume %v, want 1", v)
	}
	// ReadSTL ignores the normals; check its orientation convention (vertex
	// order counter-clockwise from outside) against them.
	solid, err := stl.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(solid.Triangles) != len(m.Triangles) {
		t.Fatalf("%d facets in the file, %d triangles read", len(solid.Triangles), len(m.Triangles))
	}
	for i, f := range solid.Triangles {
		tr := m.Triangles[i]
		p := func(k int) [3]float64 { return [3]float64{m.Points[3*k], m.Points[3*k+1], m.Points[3*k+2]} }
		a, b, c := p(tr[0]), p(tr[1]), p(tr[2])
		u := [3]float64{b[0] - a[0], b[1] - a[1], b[2] - a[2]}
		w := [3]float64{c[0] - a[0], c[1] - a[1], c[2] - a[2]}
		n := [3]float64{u[1]*w[2] - u[2]*w[1], u[2]*w[0] - u[0]*w[2], u[0]*w[1] - u[1]*w[0]}
		if n[0]*float64(f.Normal[0])+n[1]*float64(f.Normal[1])+n[2]*float64(f.Normal[2]) <= 0 {
			t.Fatalf("facet %d: vertex order disagrees with the file's normal %v", i, f.Normal)
		}
	}
}

// TestSTLMalformed checks that malformed STL files are rejected with an
// *Error naming the file, and the line for ASCII files.
func TestSTLMalformed(t *testing.T) {
	for _, c := range []struct {
		file string
		line int
		msg  string
	}{
		{"stl_truncated_binary.stl", 0, "announces 2 triangles, 184 bytes, but the file has 159 bytes"},
		{"stl_short.stl", 0, "not an STL file"},
		{"stl_zero_triangles.stl", 0, "no triangles"},
		{"stl_zero_triangles_binary.stl", 0, "no triangles"},
		{"stl_degenerate_only.stl", 0, "all 1 facets are degenerate"},
		{"stl_bad_keyword.stl", 12, `"vertex" expected`},
		{"stl_bad_number.stl", 5, "Unable to parse float"},
		{"stl_missing_vertex.stl", 6, `"vertex" expected`},
		{"stl_missing_endsolid.stl", 8, `"endsolid" expected`},
		{"stl_nan.stl", 13, "triangle 1, vertex 2: coordinate NaN is not finite"},
		{"stl_two_solids.stl", 10, "only one solid per file"},
		{"stl_does_not_exist.stl", 0, "no such file"},
	} {
		path := "testdata/" + c.file
		_, err := ReadSTL(path)
		if err == nil {
			t.Errorf("%s: accepted", c.file)
			continue
		}
		var me *Error
		if !errors.As(err, &me) {
			t.Errorf("%s: error %T (%v), want *meshio.Error", c.file, err, err)
			continue
		}
		if me.File != path || me.Line != c.line || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: got %q (line %d), want line %d and %q", c.file, err, me.Line, c.line, c.msg)
		}
		prefix := path + ":"
		if c.line > 0 {
			prefix = path + ":" + strconv.Itoa(c.line) + ": "
		}
		if !strings.HasPrefix(err.Error(), prefix) {
			t.Errorf("%s: %q does not start with %q", c.file, err, prefix)
		}
	}
}

// TestSTLDropsDegenerateFacets: a facet with two identical vertices (as
// float32) carries no area and is dropped; the others keep their order.
func TestSTLDropsDegenerateFacets(t *testing.T) {
	m := &Mesh{
		Points:    []float64{0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1 + 1e-12, 0, 0},
		Triangles: [][3]int{{0, 2, 1}, {1, 4, 3}, {0, 1, 3}},
	}
	path := filepath.Join(t.TempDir(), "degenerate.stl")
	if err := WriteSTL(path, m, true); err != nil {
		t.Fatal(err)
	}
	got, err := ReadSTL(path)
	if err != nil {
		t.Fatal(err)
	}
	want := &Mesh{Points: []float64{0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 1}, Triangles: [][3]int{{0, 1, 2}, {0, 2, 3}}}
	sameSurface(t, "degenerate facet", got, want)
}

// TestWriteSTLRejects: no triangles, bad indices, float32 overflow.
func TestWriteSTLRejects(t *testing.T) {
	dir := t.TempDir()
	for name, m := range map[string]*Mesh{
		"no triangles":  {Points: []float64{0, 0, 0}},
		"bad index":     {Points: []float64{0, 0, 0, 1, 0, 0, 0, 1, 0}, Triangles: [][3]int{{0, 1, 3}}},
		"float32 range": {Points: []float64{0, 0, 0, 1e39, 0, 0, 0, 1, 0}, Triangles: [][3]int{{0, 1, 2}}},
	} {
		path := filepath.Join(dir, "x.stl")
		if err := WriteSTL(path, m, true); err == nil {
			t.Errorf("%s: written", name)
		}
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Errorf("%s: a file was left behind", name)
		}
	}
}

// FuzzReadSTL: whatever the bytes, ReadSTL returns a valid mesh or an
// *Error, never panics.
func FuzzReadSTL(f *testing.F) {
	for _, name := range []string{"stl_tetrahedron_unnamed.stl", "stl_bad_keyword.stl", "stl_truncated_binary.stl", "stl_zero_triangles_binary.stl", "external/cube_gmsh_surface.stl"} {
		data, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "fuzz.stl")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := ReadSTL(path)
		if err != nil {
			var me *Error
			if !errors.As(err, &me) {
				t.Fatalf("error %T %v, want *Error", err, err)
			}
			return
		}
		if err := m.Validate(); err != nil || len(m.Triangles) == 0 {
			t.Fatalf("invalid mesh accepted: %v (%d triangles)", err, len(m.Triangles))
		}
	})
}
