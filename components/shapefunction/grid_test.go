package shapefunction

import (
	"bufio"
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/sofago/sofago/components/topology"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
	"github.com/sofago/sofago/meshio"
)

func mustBox(t *testing.T, box [6]float64, res [3]int, rho, E float64) *Voxels {
	t.Helper()
	m, err := NewMaterialGridBox(box, res, rho, E)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := m.Voxels()
	return v
}

func TestMaterialGridBox(t *testing.T) {
	g := mustBox(t, [6]float64{0, 0, 0, 1, 0.1, 0.2}, [3]int{10, 2, 4}, 1000, 1e6)
	if g.NumVoxels() != 80 || g.Spacing != (geom.Vec3{0.1, 0.05, 0.05}) {
		t.Fatalf("voxels %d spacing %v", g.NumVoxels(), g.Spacing)
	}
	// Volume and mass are exact for a box (within rounding of the spacing).
	if v := g.Volume(); math.Abs(v-0.02) > 1e-15 {
		t.Errorf("volume %g, want 0.02", v)
	}
	if m := g.Mass(); math.Abs(m-20) > 1e-12 {
		t.Errorf("mass %g, want 20", m)
	}
	if c := g.Centre(0); c.Sub(geom.Vec3{0.05, 0.025, 0.025}).Norm() > 1e-15 {
		t.Errorf("centre of voxel 0 %v", c)
	}
	// VoxelAt: the faces of the box belong to the outermost voxels.
	if v := g.VoxelAt(geom.Vec3{1, 0.1, 0.2}); v != g.NumVoxels()-1 {
		t.Errorf("VoxelAt(max corner) = %d", v)
	}
	if v := g.VoxelAt(geom.Vec3{1.01, 0, 0}); v != -1 {
		t.Errorf("VoxelAt outside = %d", v)
	}
	if v := g.NearestVoxel(geom.Vec3{2, 0.05, 0.1}); g.Centre(v)[0] != 0.9500000000000001 && math.Abs(g.Centre(v)[0]-0.95) > 1e-12 {
		t.Errorf("NearestVoxel far outside gave %v", g.Centre(v))
	}
}

func TestMaterialGridRegions(t *testing.T) {
	src := `
[[node]]
name = "n"
  [[node.object]]
  type = "MaterialGrid"
  box = [0, 0, 0, 1, 0.1, 0.1]
  resolution = [10, 1, 1]
  massDensity = 1000
  youngModulus = 1e6
  stiffnessRegions = [{box = [0.2, -1, -1, 0.4, 1, 1], youngModulus = 1e9}]
  densityRegions = [{sphere = [0.95, 0.05, 0.05, 0.01], massDensity = 5000}]
`
	s := graphtest.MustLoad(t, "regions.toml", src)
	m := graphtest.Find[*MaterialGrid](t, s, "n/MaterialGrid")
	g, err := m.Voxels()
	if err != nil {
		t.Fatal(err)
	}
	for v := 0; v < g.NumVoxels(); v++ {
		x := g.Centre(v)[0]
		wantE, wantRho := 1e6, 1000.0
		if x > 0.2 && x < 0.4 {
			wantE = 1e9
		}
		if v == 9 {
			wantRho = 5000
		}
		if g.Young[v] != wantE || g.Density[v] != wantRho {
			t.Errorf("voxel %d at x = %g: E %g rho %g, want %g %g", v, x, g.Young[v], g.Density[v], wantE, wantRho)
		}
	}
}

// TestMaterialGridSurfaceSphere voxelizes a sphere STL: the voxels are the
// cells whose centre is inside, so the volume converges to 4/3 π r³.
func TestMaterialGridSurfaceSphere(t *testing.T) {
	dir := t.TempDir()
	sph, err := meshio.SphereSurface(0.5, 64, 32)
	if err != nil {
		t.Fatal(err)
	}
	if err := meshio.Write(filepath.Join(dir, "sphere.stl"), sph); err != nil {
		t.Fatal(err)
	}
	exact := math.Abs(sph.EnclosedVolume())
	for _, n := range []int{10, 20, 40} {
		m := &MaterialGrid{ObjectBase: graph.ObjectBase{Name: "g"}, Filename: filepath.Join(dir, "sphere.stl"),
			Resolution: [3]int{n, n, n}, Scale: 1, MassDensity: 1, YoungModulus: 1}
		g, err := m.Voxels()
		if err != nil {
			t.Fatal(err)
		}
		rel := (g.Volume() - exact) / exact
		t.Logf("%d cells across: %d voxels, volume error %+.2f%%", n, g.NumVoxels(), 100*rel)
		if math.Abs(rel) > 2.0/float64(n) {
			t.Errorf("%d cells: volume error %.3g%% too large", n, 100*rel)
		}
		for v := 0; v < g.NumVoxels(); v++ {
			if g.Centre(v).Norm() > 0.5+1e-9 {
				t.Fatalf("voxel centre %v outside the sphere", g.Centre(v))
			}
		}
	}
}

// TestMaterialGridFromMesh rasterises a tetrahedral box: every cell centre
// is inside, so the voxels are the box's cells.
func TestMaterialGridFromMesh(t *testing.T) {
	src := `
[[node]]
name = "fem"
  [[node.object]]
  type = "RegularGridTopology"
  name = "topo"
  min = [0, 0, 0]
  max = [1, 0.2, 0.2]
  n = [6, 3, 3]
[[node]]
name = "frames"
  [[node.object]]
  type = "MaterialGrid"
  mesh = "@../fem/topo"
  resolution = [20, 4, 4]
`
	s := graphtest.MustLoad(t, "mesh.toml", src)
	m := graphtest.Find[*MaterialGrid](t, s, "frames/MaterialGrid")
	g, err := m.Voxels()
	if err != nil {
		t.Fatal(err)
	}
	if g.NumVoxels() != 320 {
		t.Errorf("%d voxels, want 320", g.NumVoxels())
	}
}

func TestVoxelFileRoundTrip(t *testing.T) {
	g := mustBox(t, [6]float64{0, 0, 0, 0.3, 0.2, 0.1}, [3]int{3, 2, 1}, 1000, 2e6)
	g.Young[2] = 7e6
	g.Density[4] = 1234.5
	path := filepath.Join(t.TempDir(), "m.vox")
	if err := WriteVoxelFile(path, g); err != nil {
		t.Fatal(err)
	}
	h, err := ReadVoxelFile(path, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	if h.Dims != g.Dims || h.Origin != g.Origin || h.Spacing != g.Spacing || h.NumVoxels() != g.NumVoxels() {
		t.Fatalf("grid changed: %+v vs %+v", h, g)
	}
	for v := range g.Cells {
		if h.Young[v] != g.Young[v] || h.Density[v] != g.Density[v] {
			t.Errorf("voxel %d: E %g rho %g, want %g %g", v, h.Young[v], h.Density[v], g.Young[v], g.Density[v])
		}
	}
	// Through the component: the file's grid and material.
	s := graphtest.MustLoad(t, filepath.Join(filepath.Dir(path), "scene.toml"), `
[[node]]
name = "n"
  [[node.object]]
  type = "MaterialGrid"
  voxelFile = "m.vox"
`)
	m := graphtest.Find[*MaterialGrid](t, s, "n/MaterialGrid")
	k, err := m.Voxels()
	if err != nil {
		t.Fatal(err)
	}
	if k.NumVoxels() != 6 || k.Young[2] != 7e6 {
		t.Errorf("component read %d voxels, E[2] = %g", k.NumVoxels(), k.Young[2])
	}
}

func TestVoxelFileErrors(t *testing.T) {
	header := "sofago-voxels 1\ndims 2 1 1\norigin 0 0 0\nspacing 1 1 1\n"
	f32 := func(vals ...float32) string {
		var b bytes.Buffer
		for _, v := range vals {
			u := math.Float32bits(v)
			b.Write([]byte{byte(u), byte(u >> 8), byte(u >> 16), byte(u >> 24)})
		}
		return b.String()
	}
	cases := []struct{ name, text, want string }{
		{"magic", "voxels\n", "1: not a voxel file"},
		{"no data", header + "fields density\n", "unexpected end of file"},
		{"unknown key", header + "colour red\ndata\n", "5: unknown header keyword"},
		{"bad dims", "sofago-voxels 1\ndims 2 0 1\n", "2: dims[1]"},
		{"bad spacing", "sofago-voxels 1\nspacing 1 -1 1\n", "2: spacing[1] = -1 must be positive"},
		{"unknown field", header + "fields colour\n", "unknown field"},
		{"no fields", "sofago-voxels 1\ndims 1 1 1\nspacing 1 1 1\ndata\n", "no fields line"},
		{"short data", header + "fields density\ndata\n" + f32(1), "want 2 float32 values"},
		{"extra data", header + "fields density\ndata\n" + f32(1, 1, 1), "more bytes"},
		{"negative", header + "fields density\ndata\n" + f32(1, -1), "cell (1, 0, 0) has value -1"},
		{"mismatch", header + "fields density youngModulus\ndata\n" + f32(1, 1, 1, 0), "needs both positive"},
		{"empty", header + "fields density\ndata\n" + f32(0, 0), "no material cell"},
		{"duplicate", header + "dims 1 1 1\n", "dims given twice"},
	}
	for _, c := range cases {
		_, err := readVoxels(bufio.NewReader(strings.NewReader(c.text)), 1, 1)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to contain %q", c.name, err, c.want)
		}
	}
	// A missing field takes the component's value.
	g, err := readVoxels(bufio.NewReader(strings.NewReader(header+"fields youngModulus\ndata\n"+f32(3e6, 0))), 900, 1)
	if err != nil || g.NumVoxels() != 1 || g.Density[0] != 900 || g.Young[0] != 3e6 {
		t.Errorf("young-only file: %v %+v", err, g)
	}
	if _, err := ReadVoxelFile(filepath.Join(t.TempDir(), "none.vox"), 1, 1); !os.IsNotExist(err) {
		t.Errorf("missing file: %v", err)
	}
}

func TestMaterialGridSceneErrors(t *testing.T) {
	cases := []struct{ body, want string }{
		{`box = [0, 0, 0, 1, 1, 1]`, "give the grid resolution"},
		{`box = [0, 0, 0, 1, 1, 1]
  filename = "a.stl"
  resolution = [2, 2, 2]`, "exactly one solid"},
		{`resolution = [2, 2, 2]`, "exactly one solid"},
		{`box = [0, 0, 0, -1, 1, 1]
  resolution = [2, 2, 2]`, "box max[0]"},
		{`box = [0, 0, 0, 1, 1, 1]
  resolution = [2, 2, 2]
  cellSize = 0.1`, "not both"},
		{`filename = "a.ply"
  resolution = [2, 2, 2]`, "want a closed surface"},
		{`voxelFile = "a.vox"
  cellSize = 0.1`, "brings its own grid"},
		{`box = [0, 0, 0, 1, 1, 1]
  resolution = [2, 2, 2]
  stiffnessRegions = [{box = [0, 0, 0, 1, 1], youngModulus = 1}]`, "stiffnessRegions: regions[0]: box has 5 numbers"},
	}
	for _, c := range cases {
		src := "[[node]]\nname = \"n\"\n  [[node.object]]\n  type = \"MaterialGrid\"\n  " + c.body + "\n"
		s, err := graph.Load("bad.toml", []byte(src))
		if err == nil {
			err = s.Init()
		}
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "bad.toml:") {
			t.Errorf("%q: error %v, want file:line and %q", c.body, err, c.want)
		}
	}
}

// TestComplianceDistanceIsEuclideanOnUniformMaterial: on uniform convex
// material every any-angle path comes straight from the source, so the
// compliance distance is |p − source| to rounding, in any direction and
// on anisotropic cells (a 26-neighbour lattice metric errs by up to 8%).
func TestComplianceDistanceIsEuclideanOnUniformMaterial(t *testing.T) {
	g := mustBox(t, [6]float64{0, 0, 0, 1, 0.6, 0.45}, [3]int{20, 15, 9}, 1000, 3e5)
	rng := rand.New(rand.NewPCG(1, 2))
	worst := 0.0
	for trial := 0; trial < 4; trial++ {
		src := geom.Vec3{rng.Float64(), 0.6 * rng.Float64(), 0.45 * rng.Float64()}
		d := ComplianceDistance(g, src)
		for v := range d {
			want := g.Centre(v).Sub(src).Norm()
			// Relative 1e-12: the distance is one segment length c·|Q − P|.
			if e := math.Abs(d[v]-want) / math.Max(want, 1e-3); e > worst {
				worst = e
			}
		}
	}
	t.Logf("largest relative difference from the Euclidean distance: %.2g", worst)
	if worst > 1e-12 {
		t.Errorf("compliance distance differs from Euclidean by %.3g", worst)
	}
}

// TestComplianceDistanceLayeredBar: along the axis of a bar of layers
// (compliance c1 then c2), the distance is ∫ c dx exactly; off the axis
// it is the cost of a real path, never below the straight segment's
// lower bound c_min·|Δ| and never above the straight segment's cost.
func TestComplianceDistanceLayeredBar(t *testing.T) {
	g := mustBox(t, [6]float64{0, 0, 0, 1, 0.1, 0.1}, [3]int{20, 3, 3}, 1000, 1e6)
	for v := range g.Young {
		if g.Centre(v)[0] > 0.5 {
			g.Young[v] = 1e5 // compliance 10× on the right half
		}
	}
	src := geom.Vec3{0.025, 0.05, 0.05}
	d := ComplianceDistance(g, src)
	for v := range d {
		c := g.Centre(v)
		if math.Abs(c[1]-0.05) > 1e-12 || math.Abs(c[2]-0.05) > 1e-12 {
			continue
		}
		want := c[0] - src[0]
		if c[0] > 0.5 {
			want = 0.5 - src[0] + 10*(c[0]-0.5)
		}
		if math.Abs(d[v]-want) > 1e-12*want+1e-15 {
			t.Errorf("x = %g: distance %.15g, want %.15g", c[0], d[v], want)
		}
	}
}

// TestComplianceDistanceAroundAGap: material with a slot; the distance to
// the far side goes around it, longer than the straight line.
func TestComplianceDistanceAroundAGap(t *testing.T) {
	g := mustBox(t, [6]float64{0, 0, 0, 1, 1, 0.1}, [3]int{10, 10, 1}, 1, 1)
	// Remove the column x ∈ [0.4, 0.6] for y < 0.8: a U shape.
	inside := make([]bool, g.NumCells())
	for c := range inside {
		i, j, k := g.CellCoords(c)
		p := g.CellCentre(i, j, k)
		inside[c] = !(p[0] > 0.4 && p[0] < 0.6 && p[1] < 0.8)
	}
	g.setMaterial(inside, 1, 1)
	src := geom.Vec3{0.15, 0.15, 0.05}
	d := ComplianceDistance(g, src)
	dst := g.VoxelAt(geom.Vec3{0.85, 0.15, 0.05})
	// Shortest path around the slot's corners at (0.4, 0.8) and (0.6, 0.8)
	// (the cells' corners; the path passes the voxel corners exactly).
	a, b := geom.Vec3{0.4, 0.8, 0.05}, geom.Vec3{0.6, 0.8, 0.05}
	geodesic := a.Sub(src).Norm() + 0.2 + g.Centre(dst).Sub(b).Norm()
	t.Logf("around the slot: %.6f (geodesic %.6f, straight %.6f)", d[dst], geodesic, g.Centre(dst).Sub(src).Norm())
	// Anchors are voxel centres, so a path bending round a concave corner
	// turns at the centre of a voxel next to it, not at the corner itself:
	// an excess of the order of the cell size h = 0.1 over this 1.6-long
	// path (a path through the voxel centres next to both corners would be
	// 1.756, 10% long).
	if d[dst] < geodesic-1e-12 || d[dst] > 1.05*geodesic {
		t.Errorf("distance %g, want within 5%% above the geodesic %g", d[dst], geodesic)
	}
}
