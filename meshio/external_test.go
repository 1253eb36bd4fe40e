package meshio

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// Files written by other programs (testdata/external, see its README): a
// unit cube meshed by Gmsh 4.8.4 and saved as .msh 4.1, .msh 2.2 and legacy
// VTK; the same mesh converted by meshio 5.0 to VTK 5.1 (OFFSETS and
// CONNECTIVITY) and to TetGen files numbered from 0; and the cube's
// surface tetrahedralised by TetGen 1.5.0 (.node/.ele/.face numbered from 1);
// Gmsh's STL of the cube's surface mesh; the Gmsh mesh saved as .vtu by
// VTK 9.1's XML writer (ASCII, and its default appended binary) and by
// meshio 5.0 (ASCII).

// triangleArea returns the area of triangle t.
func triangleArea(m *Mesh, t [3]int) float64 {
	p := func(i int) [3]float64 { return [3]float64{m.Points[3*i], m.Points[3*i+1], m.Points[3*i+2]} }
	a, b, c := p(t[0]), p(t[1]), p(t[2])
	u := [3]float64{b[0] - a[0], b[1] - a[1], b[2] - a[2]}
	v := [3]float64{c[0] - a[0], c[1] - a[1], c[2] - a[2]}
	x, y, z := u[1]*v[2]-u[2]*v[1], u[2]*v[0]-u[0]*v[2], u[0]*v[1]-u[1]*v[0]
	return 0.5 * math.Sqrt(x*x+y*y+z*z)
}

func TestExternalFiles(t *testing.T) {
	ref, err := Read("testdata/external/cube41.msh")
	if err != nil {
		t.Fatal(err)
	}
	// Gmsh saves every element without physical groups: 8 points, 48 line
	// segments, 84 triangles and 101 tetrahedra over 45 nodes. The reader
	// keeps the triangles and tetrahedra.
	if ref.NumPoints() != 45 || len(ref.Tetrahedra) != 101 || len(ref.Triangles) != 84 {
		t.Fatalf("cube41.msh: %d points, %d tetrahedra, %d triangles", ref.NumPoints(), len(ref.Tetrahedra), len(ref.Triangles))
	}
	check := func(name string, m *Mesh, wantTriangles int) {
		t.Helper()
		if err := m.Validate(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		// The tetrahedra fill the unit cube: volumes add up to 1 (rounding
		// of ~100 terms of size 1e-2: 1e-14 is ample).
		vol, negative := 0.0, 0
		for e := range m.Tetrahedra {
			v := m.TetVolume(e)
			if v < 0 {
				negative++
			}
			vol += math.Abs(v)
		}
		if math.Abs(vol-1) > 1e-14 {
			t.Errorf("%s: total volume %.17g, want 1", name, vol)
		}
		if negative != 0 {
			t.Errorf("%s: %d of %d tetrahedra negatively oriented", name, negative, len(m.Tetrahedra))
		}
		// The triangles are the cube's surface: area 6.
		area := 0.0
		for _, tri := range m.Triangles {
			area += triangleArea(m, tri)
		}
		if len(m.Triangles) != wantTriangles || (wantTriangles > 0 && math.Abs(area-6) > 1e-13) {
			t.Errorf("%s: %d triangles of area %.17g, want %d of area 6", name, len(m.Triangles), area, wantTriangles)
		}
	}
	check("cube41.msh", ref, 84)
	// The other Gmsh, meshio and VTK files hold the same mesh: coordinates
	// equal to the last printed digit (Gmsh prints 16 significant digits,
	// meshio's legacy VTK writer and VTK 17; the coordinates are O(1),
	// hence 1e-15; meshio's .vtu writer prints 12 digits, "%.11e", hence
	// half a unit of the 12th digit, 5e-12), cells identical. VTK's .vtu
	// also holds Gmsh's vertex and line cells (skipped), point and cell
	// data and ParaView's InformationKey elements (ignored).
	tolerance := map[string]float64{"cube_meshio.vtu": 5e-12}
	for _, name := range []string{"cube22.msh", "cube_gmsh.vtk", "cube_meshio51.vtk", "cube_meshio.node", "cube_vtk9.vtu", "cube_meshio.vtu"} {
		m, err := Read("testdata/external/" + name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		wantTriangles := 84
		if name == "cube_meshio.node" { // meshio's TetGen writer drops the triangles
			wantTriangles = 0
		}
		check(name, m, wantTriangles)
		if m.NumPoints() != ref.NumPoints() || len(m.Tetrahedra) != len(ref.Tetrahedra) {
			t.Errorf("%s: %d points, %d tetrahedra", name, m.NumPoints(), len(m.Tetrahedra))
			continue
		}
		tol := 1e-15
		if v, ok := tolerance[name]; ok {
			tol = v
		}
		for i := range m.Points {
			if math.Abs(m.Points[i]-ref.Points[i]) > tol {
				t.Errorf("%s: coordinate %d = %.17g, cube41.msh %.17g", name, i, m.Points[i], ref.Points[i])
				break
			}
		}
		for e := range m.Tetrahedra {
			if m.Tetrahedra[e] != ref.Tetrahedra[e] {
				t.Errorf("%s: tetrahedron %d = %v, cube41.msh %v", name, e, m.Tetrahedra[e], ref.Tetrahedra[e])
				break
			}
		}
		for e := range m.Triangles {
			if m.Triangles[e] != ref.Triangles[e] {
				t.Errorf("%s: triangle %d = %v, cube41.msh %v", name, e, m.Triangles[e], ref.Triangles[e])
				break
			}
		}
	}
	// TetGen's own output, numbered from 1, with boundary markers: 68
	// points, 126 tetrahedra, 132 boundary faces.
	tg, err := Read("testdata/external/cube_tetgen.ele")
	if err != nil {
		t.Fatal(err)
	}
	if tg.NumPoints() != 68 || len(tg.Tetrahedra) != 126 {
		t.Fatalf("cube_tetgen: %d points, %d tetrahedra", tg.NumPoints(), len(tg.Tetrahedra))
	}
	check("cube_tetgen", tg, 132)

	// Gmsh's ASCII STL of the cube's surface mesh (through ReadSTL): the
	// same 84 triangles over the 44 surface points, closed, oriented
	// outwards (enclosed volume +1).
	surf, err := Read("testdata/external/cube_gmsh_surface.stl")
	if err != nil {
		t.Fatal(err)
	}
	if surf.NumPoints() != 44 || len(surf.Triangles) != 84 || surf.BoundaryEdges() != 0 || math.Abs(surf.EnclosedVolume()-1) > 1e-6 {
		t.Errorf("cube_gmsh_surface.stl: %d points, %d triangles, %d boundary edges, enclosed volume %.9g",
			surf.NumPoints(), len(surf.Triangles), surf.BoundaryEdges(), surf.EnclosedVolume())
	}

	// VTK's default .vtu (appended, zlib-compressed data) is reported as
	// unsupported at the line of its first binary array.
	_, err = Read("testdata/external/cube_vtk9_binary.vtu")
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, ErrUnsupported) || e.Line != 6 || !strings.Contains(err.Error(), `format "appended" not supported`) {
		t.Errorf("cube_vtk9_binary.vtu: error %v, want an unsupported *Error at line 6", err)
	}
}
