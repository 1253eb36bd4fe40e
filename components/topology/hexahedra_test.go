package topology_test

import (
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/sofago/sofago/components/topology"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
	"github.com/sofago/sofago/meshio"
)

// checkHexBoundary checks that the topology's triangles close the volume of
// its hexahedra: every directed edge once and its reverse once, and the
// divergence theorem's flux equal to the summed hexahedron volumes (so
// every triangle faces out).
func checkHexBoundary(t *testing.T, name string, topo graph.HexahedronTopology) {
	t.Helper()
	p := topo.Points()
	vol := 0.0
	for e, h := range topo.Hexahedra() {
		if err := topology.CheckHexahedron(p, h); err != nil {
			t.Fatalf("%s: hexahedron %d: %v", name, e, err)
		}
		vol += topology.HexVolume(p, h)
	}
	flux := 0.0
	edges := map[[2]int]int{}
	for _, tr := range topo.Triangles() {
		flux += geom.At(p, tr[0]).Dot(geom.At(p, tr[1]).Cross(geom.At(p, tr[2]))) / 6
		for k := 0; k < 3; k++ {
			edges[[2]int{tr[k], tr[(k+1)%3]}]++
		}
	}
	if math.Abs(flux-vol) > 1e-12*vol {
		t.Errorf("%s: boundary encloses %v, hexahedra %v", name, flux, vol)
	}
	for e, n := range edges {
		if n != 1 || edges[[2]int{e[1], e[0]}] != 1 {
			t.Fatalf("%s: edge %v appears %d times, its reverse %d times", name, e, n, edges[[2]int{e[1], e[0]}])
		}
	}
}

// A grid with elements = hexahedra serves one positive hexahedron per cell
// (volume hx·hy·hz, the corners of the cell in VTK order), no
// tetrahedra, and a closed outward boundary of 2 triangles per boundary
// cell face; each hexahedron has the vertex set of the six Kuhn
// tetrahedra the same grid serves with elements = tetrahedra.
func TestRegularGridHexahedra(t *testing.T) {
	lo, hi, n := [3]float64{-1, 0, 2}, [3]float64{1, 0.5, 3}, [3]int{5, 3, 4}
	g, err := topology.NewRegularHexGrid(lo, hi, n)
	if err != nil {
		t.Fatal(err)
	}
	tg, _ := topology.NewRegularGrid(lo, hi, n)
	nc := (n[0] - 1) * (n[1] - 1) * (n[2] - 1)
	if len(g.Hexahedra()) != nc || len(g.Tetrahedra()) != 0 {
		t.Fatalf("%d hexahedra and %d tetrahedra, want %d and 0", len(g.Hexahedra()), len(g.Tetrahedra()), nc)
	}
	cell := 0.5 * 0.25 * (1.0 / 3)
	for e, h := range g.Hexahedra() {
		if v := topology.HexVolume(g.Points(), h); math.Abs(v-cell) > 1e-15 {
			t.Fatalf("hexahedron %d volume %v, want %v", e, v, cell)
		}
		var set []int
		for _, tet := range tg.Tetrahedra()[6*e : 6*e+6] {
			set = append(set, tet[:]...)
		}
		slices.Sort(set)
		set = slices.Compact(set)
		hs := append([]int(nil), h[:]...)
		slices.Sort(hs)
		if !slices.Equal(set, hs) {
			t.Fatalf("hexahedron %d has vertices %v, its Kuhn tetrahedra %v", e, hs, set)
		}
		// Corner 0 is the cell's low corner, corner 6 its high one.
		lo0, hi6 := geom.At(g.Points(), h[0]), geom.At(g.Points(), h[6])
		if d := hi6.Sub(lo0); d != (geom.Vec3{0.5, 0.25, 1.0 / 3}) && d.Sub(geom.Vec3{0.5, 0.25, 1.0 / 3}).Norm() > 1e-15 {
			t.Fatalf("hexahedron %d: corner 6 − corner 0 = %v", e, d)
		}
	}
	nx, ny, nz := 4, 2, 3
	if want := 2 * 2 * (nx*ny + ny*nz + nx*nz); len(g.Triangles()) != want {
		t.Errorf("%d boundary triangles, want %d", len(g.Triangles()), want)
	}
	checkHexBoundary(t, "regular grid", g)
}

// SparseGridTopology with elements = hexahedra keeps the same cells as with
// tetrahedra (same points, same volume), one hexahedron per cell, with a
// closed outward boundary.
func TestSparseGridHexahedra(t *testing.T) {
	capsule, err := meshio.CapsuleSurface(0.3, 1.2, 24, 6, 8)
	if err != nil {
		t.Fatal(err)
	}
	tets := &topology.SparseGridTopology{CellSize: 0.1, FillMode: "intersecting"}
	hexes := &topology.SparseGridTopology{CellSize: 0.1, FillMode: "intersecting", Elements: "hexahedra"}
	for _, s := range []*topology.SparseGridTopology{tets, hexes} {
		if err := s.Build(capsule); err != nil {
			t.Fatal(err)
		}
	}
	if len(hexes.Hexahedra()) != hexes.CellsKept() || len(hexes.Tetrahedra()) != 0 || 6*len(hexes.Hexahedra()) != len(tets.Tetrahedra()) {
		t.Fatalf("%d hexahedra, %d tetrahedra for %d cells; tetrahedral grid %d", len(hexes.Hexahedra()), len(hexes.Tetrahedra()), hexes.CellsKept(), len(tets.Tetrahedra()))
	}
	if !slices.Equal(hexes.Points(), tets.Points()) {
		t.Error("the hexahedral grid's points differ from the tetrahedral one's")
	}
	if math.Abs(hexes.TetVolume()-tets.TetVolume()) > 1e-12*tets.TetVolume() {
		t.Errorf("volume %v, tetrahedra %v", hexes.TetVolume(), tets.TetVolume())
	}
	checkHexBoundary(t, "sparse grid", hexes)
	// The boundary holds the same surface as the tetrahedral grid's (the
	// same area: both tile the same cell faces).
	area := func(s *topology.SparseGridTopology) float64 {
		a := 0.0
		for _, tr := range s.Triangles() {
			p0 := geom.At(s.Points(), tr[0])
			a += geom.At(s.Points(), tr[1]).Sub(p0).Cross(geom.At(s.Points(), tr[2]).Sub(p0)).Norm() / 2
		}
		return a
	}
	if a, b := area(hexes), area(tets); math.Abs(a-b) > 1e-12*b {
		t.Errorf("boundary area %v, tetrahedral grid %v", a, b)
	}
}

// MeshLoader serves the hexahedra of Gmsh and VTK files; a mirroring
// scale re-orients them (and their boundary still faces out).
func TestMeshLoaderHexahedra(t *testing.T) {
	g, err := topology.NewRegularHexGrid([3]float64{0, 0, 0}, [3]float64{1, 0.2, 0.3}, [3]int{4, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	m := &meshio.Mesh{Points: g.Points(), Hexahedra: g.Hexahedra()}
	dir := t.TempDir()
	scene := filepath.Join(dir, "scene.toml")
	for _, f := range []string{"bar.msh", "bar.vtk", "bar.vtu"} {
		writeMesh(t, dir, f, m)
		for _, fields := range []string{"", `scale3d = [-1, 1, 1]`} {
			s := graphtest.MustLoad(t, scene, loaderScene(f, fields))
			l := graphtest.Find[*topology.MeshLoader](t, s, "body/loader")
			if len(l.Hexahedra()) != len(g.Hexahedra()) || len(l.Tetrahedra()) != 0 {
				t.Fatalf("%s %s: %d hexahedra, %d tetrahedra", f, fields, len(l.Hexahedra()), len(l.Tetrahedra()))
			}
			if fields == "" && !slices.Equal(l.Hexahedra(), g.Hexahedra()) {
				t.Errorf("%s: hexahedra differ from the file's", f)
			}
			checkHexBoundary(t, f+" "+fields, l)
			st := graphtest.Find[graph.State](t, s, "body/dofs")
			if st.Size() != len(g.Points())/3 {
				t.Errorf("%s: state of %d points", f, st.Size())
			}
		}
	}
}
