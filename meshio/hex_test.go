package meshio

import (
	"math"
	"path/filepath"
	"testing"
)

// twoCubes is the mesh of the hexahedral samples: two unit cubes side by
// side along x, in VTK's (= Gmsh's) corner order, and one triangle.
var twoCubes = &Mesh{
	Points: []float64{0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1,
		2, 0, 0, 2, 1, 0, 2, 0, 1, 2, 1, 1},
	Hexahedra: [][8]int{{0, 1, 2, 3, 4, 5, 6, 7}, {1, 8, 9, 2, 5, 10, 11, 6}},
	Triangles: [][3]int{{0, 1, 2}},
}

// Hexahedra are read from Gmsh (element type 5) and legacy VTK (cell type
// 12) files written by hand after the two formats' documentation, and
// every writer's output reads back as the same mesh.
func TestHexahedraReadWrite(t *testing.T) {
	for _, f := range []string{"gmsh41_hex.msh", "vtk_hex.vtk"} {
		m, err := Read(filepath.Join("testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := sameMesh(m, twoCubes); err != nil {
			t.Errorf("%s: %v", f, err)
		}
		for e := range m.Hexahedra {
			if v := m.HexVolume(e); math.Abs(v-1) > 1e-15 {
				t.Errorf("%s: hexahedron %d has volume %g, want 1", f, e, v)
			}
		}
	}
	dir := t.TempDir()
	for _, name := range []string{"m22.msh", "m41.msh", "m.vtk", "m.vtu"} {
		path := filepath.Join(dir, name)
		var err error
		switch name {
		case "m22.msh":
			err = WriteMSH(path, twoCubes, "2.2")
		case "m41.msh":
			err = WriteMSH(path, twoCubes, "4.1")
		default:
			err = Write(path, twoCubes)
		}
		if err != nil {
			t.Fatal(err)
		}
		back, err := Read(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := sameMesh(back, twoCubes); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// OrientHexahedra reflects clockwise hexahedra (1 ↔ 3, 5 ↔ 7), keeping the
// cells' vertex sets, and leaves positive ones alone.
func TestOrientHexahedra(t *testing.T) {
	m := &Mesh{Points: twoCubes.Points, Hexahedra: [][8]int{{0, 3, 2, 1, 4, 7, 6, 5}, twoCubes.Hexahedra[1]}}
	if v := m.HexVolume(0); v != -1 {
		t.Fatalf("mirrored cube volume %g, want -1", v)
	}
	if n := m.OrientHexahedra(); n != 1 {
		t.Errorf("flipped %d, want 1", n)
	}
	if m.Hexahedra[0] != twoCubes.Hexahedra[0] || m.Hexahedra[1] != twoCubes.Hexahedra[1] {
		t.Errorf("oriented %v, want %v", m.Hexahedra, twoCubes.Hexahedra)
	}
}
