package polyfem

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sofago/sofago/geom"
)

// A generated mesh written and read back is the same mesh, bit for bit;
// malformed files are errors naming file and line.
func TestPolyhedraFormat(t *testing.T) {
	m, err := HexDominantGrid(geom.Vec3{0, 0, 0}, geom.Vec3{1, 0.5, 0.5}, [3]int{2, 1, 1}, Checkerboard)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "m.polyhedra")
	if err := WritePolyhedra(path, m); err != nil {
		t.Fatal(err)
	}
	back, err := ReadPolyhedra(path)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(back.Points, m.Points) || len(back.Cells) != len(m.Cells) {
		t.Fatalf("read back %d points, %d cells; wrote %d, %d", back.NumPoints(), len(back.Cells), m.NumPoints(), len(m.Cells))
	}
	for e := range m.Cells {
		for k := range m.Cells[e].Faces {
			if !slices.Equal(back.Cells[e].Faces[k], m.Cells[e].Faces[k]) {
				t.Fatalf("cell %d face %d differs", e, k)
			}
		}
	}
	tet := "sofago-polyhedra 1\npoints 4\n0 0 0\n1 0 0\n0 1 0\n0 0 1\ncells 1\n4\n3 0 2 1\n3 0 1 3\n3 0 3 2\n3 1 2 3\n"
	if _, err := ParsePolyhedra("tet.polyhedra", []byte(tet)); err != nil {
		t.Fatalf("a tetrahedron: %v", err)
	}
	for _, c := range []struct{ text, want string }{
		{"sofago-polyhedra 2\n", "tet.polyhedra:1: expected the header"},
		{strings.Replace(tet, "0 1 0\n", "0 x 0\n", 1), `tet.polyhedra:5: point 2 coordinate 1: "x" is not a number`},
		{strings.Replace(tet, "3 0 1 3\n", "3 0 1 7\n", 1), "tet.polyhedra:10: cell 0 face 1: vertex 7 out of range [0, 4)"},
		{strings.Replace(tet, "3 0 2 1\n", "3 0 1 2\n", 1), "tet.polyhedra:12: cell 0: edge"},
		{strings.Replace(tet, "cells 1\n", "cells 2\n", 1), "unexpected end of file: expected the face count of cell 1"},
		{tet + "5\n", `tet.polyhedra:13: unexpected "5" after the 1 cells`},
	} {
		_, err := ParsePolyhedra("tet.polyhedra", []byte(c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
}
