package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sofago/sofago/meshio"
)

// TestShippedCapsuleIsReproducible regenerates the scene's surface with
// the command in scenes/stl_object.toml's comment: the bytes must equal the
// shipped file, so the scene's mesh is what the repository makes.
func TestShippedCapsuleIsReproducible(t *testing.T) {
	scene, err := os.ReadFile("../../scenes/stl_object.toml")
	if err != nil {
		t.Fatal(err)
	}
	const cmd = "go run ./cmd/surfacegen "
	i := bytes.Index(scene, []byte(cmd))
	if i < 0 {
		t.Fatal("no surfacegen command in the scene's comment")
	}
	line := string(scene[i+len(cmd):])
	line = line[:strings.IndexByte(line, '\n')]
	args := strings.Fields(line)
	out := filepath.Join(t.TempDir(), "capsule.stl")
	for k, a := range args {
		if a == "-o" && k+1 < len(args) {
			args[k+1] = out
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run(args, &stdout, &stderr); code != 0 {
		t.Fatalf("surfacegen %v: exit %d: %s", args, code, stderr.String())
	}
	got, err := meshio.ReadSTL(out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := meshio.ReadSTL("../../scenes/meshes/capsule.stl")
	if err != nil {
		t.Fatal(err)
	}
	// Same triangles; coordinates equal up to a float32 rounding (a
	// platform whose compiler fuses multiply-adds may land on the other
	// side of a rounding boundary: 0.35 m × 2⁻²⁴ ≈ 2e-8 m).
	if len(got.Points) != len(want.Points) || len(got.Triangles) != len(want.Triangles) {
		t.Fatalf("surfacegen %s: %d points, %d triangles; shipped file %d, %d", line, got.NumPoints(), len(got.Triangles), want.NumPoints(), len(want.Triangles))
	}
	for i := range got.Triangles {
		if got.Triangles[i] != want.Triangles[i] {
			t.Fatalf("triangle %d: %v, shipped %v", i, got.Triangles[i], want.Triangles[i])
		}
	}
	for i := range got.Points {
		if math.Abs(got.Points[i]-want.Points[i]) > 5e-8 {
			t.Fatalf("coordinate %d: %v, shipped %v", i, got.Points[i], want.Points[i])
		}
	}
}

// TestEveryShapeAndFormat writes each shape in each format: the files read
// back as closed, outward surfaces; usage errors exit 2.
func TestEveryShapeAndFormat(t *testing.T) {
	dir := t.TempDir()
	for _, shape := range []string{"sphere", "capsule", "torus"} {
		for _, f := range []struct{ name, flag string }{{shape + ".stl", ""}, {shape + "_ascii.stl", "-ascii"}, {shape + ".obj", ""}} {
			path := filepath.Join(dir, f.name)
			args := []string{"-shape", shape, "-around", "12", "-rings", "6", "-o", path}
			if f.flag != "" {
				args = append(args, f.flag)
			}
			var stdout, stderr bytes.Buffer
			if code := run(args, &stdout, &stderr); code != 0 {
				t.Fatalf("%v: exit %d: %s", args, code, stderr.String())
			}
			m, err := meshio.ReadSTL(path)
			if strings.HasSuffix(path, ".obj") {
				m, err = meshio.ReadOBJ(path)
			}
			if err != nil {
				t.Fatal(err)
			}
			if n := m.BoundaryEdges(); n != 0 || !(m.EnclosedVolume() > 0) {
				t.Errorf("%s: %d open edges, volume %v", f.name, n, m.EnclosedVolume())
			}
		}
	}
	for _, args := range [][]string{
		{"-shape", "cube", "-o", filepath.Join(dir, "x.stl")},
		{"-shape", "sphere"},
		{"-o", filepath.Join(dir, "x.ply")},
		{"-o", filepath.Join(dir, "x.obj"), "-ascii"},
		{"-shape", "torus", "-major", "0.1", "-minor", "0.3", "-o", filepath.Join(dir, "x.stl")},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(args, &stdout, &stderr); code != 2 || stderr.Len() == 0 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and a message", args, code, stderr.String())
		}
	}
}
