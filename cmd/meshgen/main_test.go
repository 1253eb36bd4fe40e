package main

import (
	"bytes"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sofago/sofago/meshio"
)

// The cylinder fills exactly the prism over the regular polygon of
// 8·across sides inscribed in the circle: volume length·4·across·R²·sin(π/(4·across)).
// Its tetrahedra are positive, its boundary triangles close it outwards
// (divergence theorem), and the vertices of its lateral surface lie on the
// circle.
func TestCylinder(t *testing.T) {
	const R, L = 0.05, 0.5
	for _, across := range []int{1, 2, 3} {
		m, err := Cylinder(R, L, across, 7)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Validate(); err != nil {
			t.Fatal(err)
		}
		vol, flux := 0.0, 0.0
		for e := range m.Tetrahedra {
			v := m.TetVolume(e)
			if !(v > 0) {
				t.Fatalf("across %d: tetrahedron %d volume %g", across, e, v)
			}
			vol += v
		}
		p := m.Points
		onCircle := 0
		for _, tr := range m.Triangles {
			a, b, c := tr[0], tr[1], tr[2]
			ax, ay, az := p[3*a], p[3*a+1], p[3*a+2]
			bx, by, bz := p[3*b], p[3*b+1], p[3*b+2]
			cx, cy, cz := p[3*c], p[3*c+1], p[3*c+2]
			flux += (ax*(by*cz-bz*cy) - ay*(bx*cz-bz*cx) + az*(bx*cy-by*cx)) / 6
		}
		for i := 0; i < m.NumPoints(); i++ {
			if r := math.Hypot(p[3*i+1], p[3*i+2]); math.Abs(r-R) < 1e-15 {
				onCircle++
			} else if r > R {
				t.Fatalf("point %d at radius %.17g > R", i, r)
			}
		}
		want := L * 4 * float64(across) * R * R * math.Sin(math.Pi/float64(4*across))
		// Sums of ~10³ terms: 1e-12 relative is ample.
		if math.Abs(vol-want) > 1e-12*want || math.Abs(flux-want) > 1e-12*want {
			t.Errorf("across %d: volume %.15g, boundary flux %.15g, polygon prism %.15g", across, vol, flux, want)
		}
		if wantOn := 8 * across * 8; onCircle != wantOn {
			t.Errorf("across %d: %d points on the circle, want %d", across, onCircle, wantOn)
		}
	}
}

func TestRunWritesReadableFiles(t *testing.T) {
	dir := t.TempDir()
	box, err := Box([3]float64{0, 0, 0}, [3]float64{1, 0.1, 0.1}, [3]int{6, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		file string
		args []string
	}{
		{"box.msh", nil},
		{"box22.msh", []string{"-msh", "2.2"}},
		{"box.vtk", nil},
		{"box.node", nil},
		{"box.veg", nil},
	} {
		path := filepath.Join(dir, c.file)
		args := append([]string{"-shape", "box", "-min", "0,0,0", "-max", "1,0.1,0.1", "-n", "6,2,3", "-o", path}, c.args...)
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != 0 {
			t.Fatalf("%s: exit %d: %s", c.file, code, errb.String())
		}
		if !strings.Contains(out.String(), "60 tetrahedra") {
			t.Errorf("%s: output %q", c.file, out.String())
		}
		m, err := meshio.Read(path)
		if err != nil {
			t.Fatal(err)
		}
		want := *box
		if c.file == "box.veg" {
			want.Triangles = nil
		}
		if len(m.Points) != len(want.Points) || len(m.Tetrahedra) != len(want.Tetrahedra) || len(m.Triangles) != len(want.Triangles) {
			t.Fatalf("%s: read back %d points, %d tets, %d triangles", c.file, m.NumPoints(), len(m.Tetrahedra), len(m.Triangles))
		}
		for i := range m.Points {
			if m.Points[i] != want.Points[i] {
				t.Fatalf("%s: coordinate %d differs", c.file, i)
			}
		}
	}
}

func TestRunUsageErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"-shape", "box"}, 2, "-o FILE is required"},
		{[]string{"-shape", "sphere", "-o", "x.msh"}, 2, `unknown shape "sphere"`},
		{[]string{"-shape", "box", "-n", "1,2,2", "-o", "x.msh"}, 2, "n[0] = 1"},
		{[]string{"-shape", "box", "-max", "1,2", "-o", "x.msh"}, 2, "three comma-separated"},
		{[]string{"-shape", "cylinder", "-radius", "-1", "-o", "x.msh"}, 2, "must be positive"},
		{[]string{"-o", filepath.Join(dir, "x.ply")}, 1, "no writer"},
		{[]string{"-o", filepath.Join(dir, "missing", "x.msh")}, 1, "no such file"},
		{[]string{"-o", filepath.Join(dir, "x.msh"), "extra"}, 2, "unexpected argument"},
	} {
		var out, errb bytes.Buffer
		if code := run(c.args, &out, &errb); code != c.code || !strings.Contains(errb.String(), c.msg) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, errb.String(), c.code, c.msg)
		}
	}
}

// TestCookMembrane: the mesh fills Cook's trapezoid exactly (every grid
// line maps to a straight segment, the boundary ones onto the four edges),
// so its volume is the trapezoid's area 48·(44 + 16)/2 = 1440 times the
// thickness to rounding (1e-12 relative, a sum of 1,536 volumes), all
// tetrahedra are positive (checked by Cook), and the four corners are
// vertices.
func TestCookMembrane(t *testing.T) {
	m, err := Cook([3]int{17, 17, 2}, 2)
	if err != nil {
		t.Fatal(err)
	}
	vol := 0.0
	for e := range m.Tetrahedra {
		vol += m.TetVolume(e)
	}
	if math.Abs(vol-2880) > 1e-12*2880 {
		t.Errorf("volume %.17g, want 2880", vol)
	}
	for _, c := range [][3]float64{{0, 0, 0}, {48, 44, 0}, {48, 60, 2}, {0, 44, 2}} {
		found := false
		for i := 0; i < m.NumPoints(); i++ {
			found = found || (m.Points[3*i] == c[0] && m.Points[3*i+1] == c[1] && m.Points[3*i+2] == c[2])
		}
		if !found {
			t.Errorf("corner %v is not a vertex", c)
		}
	}
	if _, err := Cook([3]int{17, 17, 2}, 0); err == nil {
		t.Error("thickness 0 accepted")
	}
}
