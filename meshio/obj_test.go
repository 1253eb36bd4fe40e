package meshio

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestOBJRoundTrip writes closed surfaces as OBJ and reads them back: OBJ
// indexes its vertices and the writer prints the shortest decimals that
// parse back exactly, so points and triangles must come back bit for bit.
func TestOBJRoundTrip(t *testing.T) {
	capsule, err := CapsuleSurface(0.05, 0.3, 24, 6, 10)
	if err != nil {
		t.Fatal(err)
	}
	torus, err := TorusSurface(1, 0.25, 30, 12)
	if err != nil {
		t.Fatal(err)
	}
	// Coordinates with awkward decimals: a third, huge and tiny scales.
	odd := &Mesh{
		Points:    []float64{1.0 / 3, -2e-300, 7e300, -0.1, 0.2, 0.3, 5, math.Pi, -math.E},
		Triangles: [][3]int{{0, 1, 2}},
	}
	dir := t.TempDir()
	for name, m := range map[string]*Mesh{"capsule": capsule, "torus": torus, "odd": odd} {
		path := filepath.Join(dir, name+".obj")
		if err := WriteOBJ(path, m); err != nil {
			t.Fatal(err)
		}
		got, err := ReadOBJ(path)
		if err != nil {
			t.Fatal(err)
		}
		sameSurface(t, name, got, m)
	}
}

// TestOBJFeatures reads a unit cube written with quads, every face
// reference form (v, v/vt, v//vn, v/vt/vn), negative indices, a 4-number
// vertex, comments and skipped statements: 8 vertices, 12 triangles from
// fanning the quads, closed, enclosing volume 1.
func TestOBJFeatures(t *testing.T) {
	m, err := ReadOBJ("testdata/obj_cube_quads.obj")
	if err != nil {
		t.Fatal(err)
	}
	if m.NumPoints() != 8 || len(m.Triangles) != 12 {
		t.Fatalf("%d points, %d triangles; want 8, 12", m.NumPoints(), len(m.Triangles))
	}
	// Fan triangulation from the first vertex: f 1 4 3 2 → (0,3,2), (0,2,1);
	// f -5 -1 -2 -6 with 8 vertices is f 4 8 7 3 → (3,7,6), (3,6,2).
	want := map[int][3]int{0: {0, 3, 2}, 1: {0, 2, 1}, 6: {3, 7, 6}, 7: {3, 6, 2}}
	for i, tr := range want {
		if m.Triangles[i] != tr {
			t.Errorf("triangle %d = %v, want %v", i, m.Triangles[i], tr)
		}
	}
	if n := m.BoundaryEdges(); n != 0 {
		t.Errorf("%d boundary edges, want a closed cube", n)
	}
	if v := m.EnclosedVolume(); v != 1 {
		t.Errorf("enclosed volume %v, want exactly 1 (every product is exact)", v)
	}
}

// TestOBJMalformed checks that malformed OBJ files are rejected with an
// *Error naming the file and the line.
func TestOBJMalformed(t *testing.T) {
	for _, c := range []struct {
		file string
		line int
		msg  string
	}{
		{"obj_bad_number.obj", 3, `vertex y: "1.5e" is not a number`},
		{"obj_infinite.obj", 3, "vertex y: inf is not finite"},
		{"obj_vertex_two_numbers.obj", 2, "got 2 numbers"},
		{"obj_index_out_of_range.obj", 5, "index 4 out of range: 3 vertices defined so far"},
		{"obj_negative_out_of_range.obj", 4, "index -4 out of range"},
		{"obj_index_zero.obj", 4, "index 0"},
		{"obj_short_face.obj", 5, "face with 2 vertices: a face needs at least 3"},
		{"obj_bad_reference.obj", 4, "want v, v/vt, v//vn or v/vt/vn"},
		{"obj_not_an_index.obj", 4, `"two" is not an integer index`},
		{"obj_unknown_statement.obj", 4, `unknown statement "curv"`},
		{"obj_no_faces.obj", 0, "no faces (3 vertices)"},
		{"obj_does_not_exist.obj", 0, "no such file"},
	} {
		path := "testdata/" + c.file
		_, err := ReadOBJ(path)
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
		prefix := path + ": "
		if c.line > 0 {
			prefix = path + ":" + strconv.Itoa(c.line) + ": "
		}
		if !strings.HasPrefix(err.Error(), prefix) {
			t.Errorf("%s: %q does not start with %q", c.file, err, prefix)
		}
	}
}

// FuzzReadOBJ: whatever the bytes, ReadOBJ returns a valid mesh or an
// *Error, never panics.
func FuzzReadOBJ(f *testing.F) {
	for _, name := range []string{"obj_cube_quads.obj", "obj_index_out_of_range.obj", "obj_bad_reference.obj"} {
		data, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "fuzz.obj")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := ReadOBJ(path)
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
