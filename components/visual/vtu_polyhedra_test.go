package visual

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/sofago/sofago/components/forcefield"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/meshio"
)

// A state on a polyhedral topology is written with VTK polyhedron cells:
// per cell its distinct points as connectivity and its faces in the
// "faces"/"faceoffsets" streams, which read back as the topology's faces
// exactly; the force field's cell data come with one value per
// polyhedron, and Σ strainEnergyDensity·V is its energy.
func TestSeriesWritesPolyhedra(t *testing.T) {
	s := load(t, "poly.toml", `
[[node]]
name = "block"
  [[node.object]]
  type = "PolyhedralTopology"
  name = "mesh"
  generator = "hexDominant"
  min = [0, 0, 0]
  max = [0.4, 0.2, 0.2]
  n = [2, 1, 1]
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[node.object]]
  type = "PolyhedronFEMForceField"
  name = "fem"
  materialName = "NeoHookean"
  youngModulus = 1e6
  poissonRatio = 0.3
`)
	st, err := graph.FindAs[graph.State](s, "block/dofs")
	if err != nil {
		t.Fatal(err)
	}
	x := st.Vec(graph.Position)
	for i := range x {
		if i%3 == 0 {
			x[i] *= 1.05 // a stretch, for non-zero cell data
		}
	}
	dir := t.TempDir()
	sr, err := NewSeries(dir, "block", st)
	if err != nil {
		t.Fatal(err)
	}
	if err := sr.WriteFrame(0); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(sr.FramePath(0))
	if err != nil {
		t.Fatal(err)
	}
	g, err := meshio.ParseVTUGrid(filepath.Base(sr.FramePath(0)), data)
	if err != nil {
		t.Fatal(err)
	}
	topo, _ := graph.FindAs[graph.PolyhedronTopology](s, "block/mesh")
	polys := topo.Polyhedra()
	if len(g.Types) != len(polys) || len(polys) != 1+6 {
		t.Fatalf("%d cells, topology %d (a hexahedron and six pyramids)", len(g.Types), len(polys))
	}
	start, cstart := 0, 0
	for c, p := range polys {
		if g.Types[c] != CellPolyhedron {
			t.Fatalf("cell %d has type %d", c, g.Types[c])
		}
		stream := g.Faces[start:g.FaceOffsets[c]]
		start = g.FaceOffsets[c]
		if stream[0] != len(p.Faces) {
			t.Fatalf("cell %d: %d faces, topology %d", c, stream[0], len(p.Faces))
		}
		k := 1
		var verts []int
		for _, f := range p.Faces {
			if !slices.Equal(stream[k+1:k+1+stream[k]], f) {
				t.Fatalf("cell %d: face %v, topology %v", c, stream[k+1:k+1+stream[k]], f)
			}
			k += 1 + stream[k]
			for _, v := range f {
				if !slices.Contains(verts, v) {
					verts = append(verts, v)
				}
			}
		}
		if !slices.Equal(g.Connectivity[cstart:g.Offsets[c]], verts) {
			t.Fatalf("cell %d: connectivity %v, its vertices %v", c, g.Connectivity[cstart:g.Offsets[c]], verts)
		}
		cstart = g.Offsets[c]
	}
	dens := g.CellArray("strainEnergyDensity")
	vm := g.CellArray("vonMisesStress")
	if dens == nil || vm == nil || len(dens.Values) != len(polys) {
		t.Fatalf("cell data missing: %v", g.CellData)
	}
	ff, _ := graph.FindAs[*forcefield.PolyhedronFEMForceField](s, "block/fem")
	total := 0.0
	for c := range polys {
		v := 0.0
		for _, w := range ff.Integration(c).W {
			v += w
		}
		total += dens.Values[c] * v
	}
	if W := ff.PotentialEnergy(x); math.Abs(total-W) > 1e-12*W {
		t.Errorf("Σ density·V = %.15g, energy %.15g", total, W)
	}
}

// TestPolyhedraReadByVTK has VTK itself (python3-vtk9: `apt-get install
// python3-vtk9`; skipped with a message when /usr/bin/python3 cannot
// import vtk) read a frame of a Voronoi mesh written by a Series: every
// cell is a VTK polyhedron (type 42) and vtkCellSizeFilter's volumes of
// the cells add up to the box's, 0.6 × 0.2 × 0.2 m (to 1e-12).
func TestPolyhedraReadByVTK(t *testing.T) {
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import vtk").Run(); err != nil {
		t.Skipf("%s cannot import vtk (apt-get install python3-vtk9): %v", py, err)
	}
	s := load(t, "poly.toml", `
[[node]]
name = "block"
  [[node.object]]
  type = "PolyhedralTopology"
  generator = "voronoi"
  min = [0, 0, 0]
  max = [0.6, 0.2, 0.2]
  n = [6, 2, 2]
  jitter = 0.15
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
`)
	st, _ := graph.FindAs[graph.State](s, "block/dofs")
	sr, err := NewSeries(t.TempDir(), "block", st)
	if err != nil {
		t.Fatal(err)
	}
	if err := sr.WriteFrame(0); err != nil {
		t.Fatal(err)
	}
	script := `
import sys, vtk
r = vtk.vtkXMLUnstructuredGridReader(); r.SetFileName(sys.argv[1]); r.Update()
g = r.GetOutput()
types = set(g.GetCellType(i) for i in range(g.GetNumberOfCells()))
f = vtk.vtkCellSizeFilter(); f.SetInputData(g); f.ComputeVolumeOn(); f.Update()
a = f.GetOutput().GetCellData().GetArray("Volume")
print(g.GetNumberOfCells(), sorted(types), repr(sum(a.GetValue(i) for i in range(a.GetNumberOfTuples()))))
`
	out, err := exec.Command(py, "-c", script, sr.FramePath(0)).CombinedOutput()
	if err != nil {
		t.Fatalf("vtk: %v\n%s", err, out)
	}
	var n int
	var vol float64
	var types string
	if _, err := fmt.Sscanf(string(out), "%d %s %g", &n, &types, &vol); err != nil {
		t.Fatalf("vtk output %q: %v", out, err)
	}
	topo, _ := graph.FindAs[graph.PolyhedronTopology](s, "block/PolyhedralTopology")
	t.Logf("VTK read %d cells of types %s, total volume %.17g", n, types, vol)
	if n != len(topo.Polyhedra()) || types != "[42]" || math.Abs(vol-0.024) > 1e-12 {
		t.Errorf("VTK read %d cells of types %s with volume %.17g; want %d polyhedra (42), 0.024", n, types, vol, len(topo.Polyhedra()))
	}
}
