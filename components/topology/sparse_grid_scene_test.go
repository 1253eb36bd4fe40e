package topology_test

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sofago/sofago/components/mass"
	"github.com/sofago/sofago/components/topology"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/meshio"

	_ "github.com/sofago/sofago/components/all"
)

// sceneWithSurface writes a capsule surface as name (STL or OBJ) into a
// fresh folder and returns the path a scene file there would have.
func sceneWithSurface(t *testing.T, name string) string {
	t.Helper()
	dir := t.TempDir()
	capsule, err := meshio.CapsuleSurface(0.05, 0.3, 24, 6, 10)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if strings.HasSuffix(name, ".obj") {
		err = meshio.WriteOBJ(path, capsule)
	} else {
		err = meshio.WriteSTL(path, capsule, true)
	}
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "scene.toml")
}

const capsuleScene = `
dt = 0.01
gravity = [0, -9.81, 0]

[[node]]
name = "capsule"

  [[node.object]]
  type = "EulerImplicitSolver"
  rayleighStiffness = 0.05
  rayleighMass = 1

  [[node.object]]
  type = "CGLinearSolver"
  iterations = 1000
  tolerance = 1e-8

  [[node.object]]
  type = "SparseGridTopology"
  name = "grid"
  filename = "FILE"
  cellSize = 0.02

  [[node.object]]
  type = "MechanicalObject"
  template = "Vec3"

  [[node.object]]
  type = "DiagonalMass"
  name = "mass"
  massDensity = 1100

  [[node.object]]
  type = "TetrahedronFEMForceField"
  youngModulus = 1e6
  poissonRatio = 0.3

  [[node.object]]
  type = "FixedConstraint"
  box = [-0.06, -0.06, -0.06, 0.001, 0.06, 0.06]
`

// TestSparseGridFeedsFEM runs a capsule tetrahedralised from a surface
// file (found relative to the scene file, STL and OBJ) with a state, a
// lumped mass and corotational FEM: the state takes the grid's vertices,
// the mass totals ρ × the tetrahedra's volume (DiagonalMass gives ρV/4 to
// each vertex of each tetrahedron), and implicit steps under gravity stay
// finite and move the free end down.
func TestSparseGridFeedsFEM(t *testing.T) {
	for _, file := range []string{"capsule.stl", "capsule.obj"} {
		scenePath := sceneWithSurface(t, file)
		s, err := graph.Load(scenePath, []byte(strings.Replace(capsuleScene, "FILE", file, 1)))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Init(); err != nil {
			t.Fatal(err)
		}
		grid, err := graph.FindAs[*topology.SparseGridTopology](s, "capsule/grid")
		if err != nil {
			t.Fatal(err)
		}
		dm, err := graph.FindAs[*mass.DiagonalMass](s, "capsule/mass")
		if err != nil {
			t.Fatal(err)
		}
		st := s.States()[0]
		if st.Size() != len(grid.Points())/3 {
			t.Fatalf("%s: state has %d DOFs, grid %d vertices", file, st.Size(), len(grid.Points())/3)
		}
		total := 0.0
		for _, m := range dm.VertexMasses() {
			total += m
		}
		// Rounding of a sum of ~10⁴ terms.
		if want := 1100 * grid.TetVolume(); math.Abs(total-want) > 1e-12*want {
			t.Errorf("%s: total mass %.15g, want ρ·V = %.15g", file, total, want)
		}
		t.Logf("%s: %d vertices, %d tetrahedra, volume error %+.1f%%, mass %.4g kg", file, st.Size(), len(grid.Tetrahedra()), 100*grid.VolumeError(), total)
		x0 := append([]float64(nil), st.Vec(graph.Position)...)
		for i := 0; i < 3; i++ {
			if err := s.Step(); err != nil {
				t.Fatal(err)
			}
		}
		x := st.Vec(graph.Position)
		tip, dy := -1, 0.0
		for i := 0; i < st.Size(); i++ {
			if tip < 0 || x0[3*i] > x0[3*tip] {
				tip = i
			}
		}
		dy = x[3*tip+1] - x0[3*tip+1]
		for _, v := range x {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("%s: non-finite position", file)
			}
		}
		if !(dy < 0) {
			t.Errorf("%s: free end moved by %g in y, want down", file, dy)
		}
	}
}

// TestSparseGridSceneErrors: a missing file, an open surface and a
// malformed file are errors at the scene object's line that name the
// surface file (and its line when the file is at fault).
func TestSparseGridSceneErrors(t *testing.T) {
	scenePath := sceneWithSurface(t, "capsule.stl")
	dir := filepath.Dir(scenePath)
	if err := os.WriteFile(filepath.Join(dir, "bad.obj"), []byte("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := meshio.WriteOBJ(filepath.Join(dir, "open.obj"), &meshio.Mesh{Points: []float64{0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1}, Triangles: [][3]int{{0, 2, 1}, {0, 1, 3}}}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ file, msg string }{
		{"missing.stl", "missing.stl: open"},
		{"bad.obj", "bad.obj:4: face vertex \"5\": index 5 out of range"},
		{"open.obj", "open.obj: the surface is not closed: 4 edges"},
	} {
		s, err := graph.Load(scenePath, []byte(strings.Replace(capsuleScene, "FILE", c.file, 1)))
		if err != nil {
			t.Fatal(err)
		}
		err = s.Init()
		var ge *graph.Error
		if err == nil || !errors.As(err, &ge) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: error %v, want a graph.Error containing %q", c.file, err, c.msg)
			continue
		}
		if ge.File != scenePath || ge.Line != 18 || ge.Object != "grid" {
			t.Errorf("%s: error at %s:%d object %q, want the SparseGridTopology table at %s:18", c.file, ge.File, ge.Line, ge.Object, scenePath)
		}
	}
}

// TestSparseGridScaleTranslation: scale multiplies the surface's
// coordinates before translation adds to them, so the enclosed volume
// grows by scale³ and the mesh moves.
func TestSparseGridScaleTranslation(t *testing.T) {
	scenePath := sceneWithSurface(t, "capsule.stl")
	load := func(extra string) *topology.SparseGridTopology {
		text := strings.Replace(capsuleScene, "FILE", "capsule.stl", 1)
		text = strings.Replace(text, "cellSize = 0.02", "cellSize = 0.04\n  "+extra, 1)
		text = text[:strings.Index(text, "  [[node.object]]\n  type = \"FixedConstraint\"")] // its box is for the unmoved capsule
		s, err := graph.Load(scenePath, []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Init(); err != nil {
			t.Fatal(err)
		}
		g, err := graph.FindAs[*topology.SparseGridTopology](s, "capsule/grid")
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	plain := load("")
	moved := load("scale = 2\n  translation = [1, 0, -3]")
	// Both are sums of the same float32-derived terms scaled by 8.
	if r := moved.SurfaceVolume() / plain.SurfaceVolume(); math.Abs(r-8) > 1e-12 {
		t.Errorf("scaled volume ratio %v, want 8", r)
	}
	_, lo, hi := moved.GridSize()
	// The capsule spans x ∈ [−0.05, 0.35], y, z ∈ [−0.05, 0.05]: scaled
	// by 2 and moved, x ∈ [0.9, 1.7], z ∈ [−3.1, −2.9] (float32 file
	// coordinates: within 1e-7).
	if math.Abs((lo[0]+hi[0])/2-1.3) > 1e-7 || math.Abs((lo[2]+hi[2])/2+3) > 1e-7 {
		t.Errorf("grid box %v–%v, want centred on (1.3, 0, −3)", lo, hi)
	}
}
