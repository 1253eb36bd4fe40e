package topology

import (
	"encoding/json"
	"math"
	"os"
	"testing"
)

// TestRegularGridReproducesVegaBar checks the grid against an outside
// mesh: the VegaFEM reference bar (testdata/vega/mesh.json, 2×2×10 cubes of
// 0.1 m split into 6 Kuhn tetrahedra) must come out vertex for vertex and
// tetrahedron for tetrahedron, with the same volumes.
func TestRegularGridReproducesVegaBar(t *testing.T) {
	data, err := os.ReadFile("../../testdata/vega/mesh.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Vertices   []float64 `json:"vertices"`
		Tets       []int     `json:"tets"`
		TetVolumes []float64 `json:"tet_volumes"`
	}
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatal(err)
	}
	g, err := NewRegularGrid([3]float64{0, 0, 0}, [3]float64{0.2, 0.2, 1}, [3]int{3, 3, 11})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Points()) != len(ref.Vertices) || 4*len(g.Tetrahedra()) != len(ref.Tets) {
		t.Fatalf("sizes: %d points, %d tets; Vega %d, %d", len(g.Points())/3, len(g.Tetrahedra()), len(ref.Vertices)/3, len(ref.Tets)/4)
	}
	for i, x := range g.Points() {
		// The grid computes min + i·(max−min)/(n−1); Vega i·L/n: equal to
		// rounding.
		if math.Abs(x-ref.Vertices[i]) > 1e-15 {
			t.Fatalf("point coordinate %d: %v, Vega %v", i, x, ref.Vertices[i])
		}
	}
	for e, tet := range g.Tetrahedra() {
		for c := 0; c < 4; c++ {
			if tet[c] != ref.Tets[4*e+c] {
				t.Fatalf("tet %d: %v, Vega %v", e, tet, ref.Tets[4*e:4*e+4])
			}
		}
		if v := TetVolume(g.Points(), tet); math.Abs(v-ref.TetVolumes[e]) > 1e-15 {
			t.Fatalf("tet %d volume %v, Vega %v", e, v, ref.TetVolumes[e])
		}
	}
}

// TestBoundaryTrianglesCloseTheSurface checks the boundary of a grid: the
// count (2 triangles per boundary cell face), outward orientation (the
// divergence theorem gives the enclosed volume: Σ (p0·(p1×p2))/6 = box
// volume) and that every edge is shared by exactly two triangles.
func TestBoundaryTrianglesCloseTheSurface(t *testing.T) {
	g, err := NewRegularGrid([3]float64{-1, 0, 2}, [3]float64{1, 0.5, 3}, [3]int{5, 3, 4})
	if err != nil {
		t.Fatal(err)
	}
	tris := g.Triangles()
	nx, ny, nz := 4, 2, 3
	want := 2 * 2 * (nx*ny + ny*nz + nx*nz)
	if len(tris) != want {
		t.Errorf("%d boundary triangles, want %d", len(tris), want)
	}
	vol := 0.0
	edges := map[[2]int]int{}
	p := g.Points()
	for _, tr := range tris {
		a, b, c := tr[0], tr[1], tr[2]
		pa := [3]float64{p[3*a], p[3*a+1], p[3*a+2]}
		pb := [3]float64{p[3*b], p[3*b+1], p[3*b+2]}
		pc := [3]float64{p[3*c], p[3*c+1], p[3*c+2]}
		vol += (pa[0]*(pb[1]*pc[2]-pb[2]*pc[1]) - pa[1]*(pb[0]*pc[2]-pb[2]*pc[0]) + pa[2]*(pb[0]*pc[1]-pb[1]*pc[0])) / 6
		for k := 0; k < 3; k++ {
			u, v := tr[k], tr[(k+1)%3]
			edges[[2]int{u, v}]++
		}
	}
	if math.Abs(vol-2*0.5*1) > 1e-12 {
		t.Errorf("enclosed volume %v, want 1 (triangles not all outward?)", vol)
	}
	for e, n := range edges {
		// A closed, consistently oriented surface has every directed edge
		// once and its reverse once.
		if n != 1 || edges[[2]int{e[1], e[0]}] != 1 {
			t.Fatalf("edge %v appears %d times, its reverse %d times", e, n, edges[[2]int{e[1], e[0]}])
		}
	}
	for e, tet := range g.Tetrahedra() {
		if TetVolume(p, tet) <= 0 {
			t.Fatalf("tetrahedron %d is not positively oriented", e)
		}
	}
}

func TestRegularGridRejectsBadBoxes(t *testing.T) {
	if _, err := NewRegularGrid([3]float64{0, 0, 0}, [3]float64{1, 0, 1}, [3]int{2, 2, 2}); err == nil {
		t.Error("flat box accepted")
	}
	if _, err := NewRegularGrid([3]float64{0, 0, 0}, [3]float64{1, 1, 1}, [3]int{1, 2, 2}); err == nil {
		t.Error("n = 1 accepted")
	}
}
