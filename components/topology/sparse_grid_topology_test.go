package topology

import (
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/sofago/sofago/meshio"
)

// TestKuhnSplitPositive: on an anisotropic cell the six tetrahedra are
// positive, each of volume hx·hy·hz/6, and fill the cell.
func TestKuhnSplitPositive(t *testing.T) {
	h := [3]float64{0.3, 1.7, 0.05}
	var pts []float64
	var corner [8]int
	for b := 0; b < 8; b++ {
		corner[b] = b
		pts = append(pts, float64(b&1)*h[0], float64(b>>1&1)*h[1], float64(b>>2)*h[2])
	}
	want := h[0] * h[1] * h[2] / 6
	for s, tet := range KuhnSplit(corner) {
		if v := TetVolume(pts, tet); math.Abs(v-want) > 1e-15 {
			t.Errorf("tetrahedron %d %v: volume %v, want %v", s, tet, v, want)
		}
	}
}

// clipOverlap is an independent triangle–box test: clip the triangle
// (Sutherland–Hodgman) against the box's six half-spaces; they overlap
// when something is left.
func clipOverlap(tri [3][3]float64, lo, hi [3]float64) bool {
	poly := [][3]float64{tri[0], tri[1], tri[2]}
	for a := 0; a < 3; a++ {
		for _, side := range []float64{1, -1} {
			bound := lo[a]
			if side < 0 {
				bound = hi[a]
			}
			inside := func(p [3]float64) bool { return side*(p[a]-bound) >= 0 }
			var out [][3]float64
			for i := range poly {
				p, q := poly[i], poly[(i+1)%len(poly)]
				if inside(p) {
					out = append(out, p)
				}
				if inside(p) != inside(q) {
					s := (bound - p[a]) / (q[a] - p[a])
					var x [3]float64
					for k := 0; k < 3; k++ {
						x[k] = p[k] + s*(q[k]-p[k])
					}
					x[a] = bound
					out = append(out, x)
				}
			}
			poly = out
			if len(poly) == 0 {
				return false
			}
		}
	}
	return true
}

// TestTriBoxOverlapAgainstClipping compares the separating-axis test with
// polygon clipping on random triangles and boxes (both outcomes occur
// often), and checks touching: a triangle lying in a box face overlaps, one
// a hair above does not.
func TestTriBoxOverlapAgainstClipping(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	counts := [2]int{}
	for i := 0; i < 200000; i++ {
		var tri [3][3]float64
		for v := range tri {
			for a := range tri[v] {
				tri[v][a] = 4*rng.Float64() - 2
			}
		}
		var lo, hi [3]float64
		for a := 0; a < 3; a++ {
			c, r := 2*rng.Float64()-1, 0.05+0.5*rng.Float64()
			lo[a], hi[a] = c-r, c+r
		}
		// Random triangles graze a box with probability zero, so the
		// closed and the open test agree with clipping.
		want := clipOverlap(tri, lo, hi)
		for _, open := range []bool{false, true} {
			if got := triBoxOverlap(&tri, &lo, &hi, open); got != want {
				t.Fatalf("case %d: triangle %v box %v–%v: SAT (open %v) %v, clipping %v", i, tri, lo, hi, open, got, want)
			}
		}
		got := want
		if got {
			counts[1]++
		} else {
			counts[0]++
		}
	}
	if counts[0] < 10000 || counts[1] < 10000 {
		t.Errorf("uninformative sample: %d disjoint, %d overlapping", counts[0], counts[1])
	}
	// Contact cases: the closed box overlaps, the open one does not.
	lo, hi := [3]float64{0, 0, 0}, [3]float64{1, 1, 1}
	for name, c := range map[string]struct {
		tri            [3][3]float64
		closed, inside bool
	}{
		"in the top face":          {[3][3]float64{{0.2, 0.2, 1}, {3, 0.5, 1}, {0.5, 3, 1}}, true, false},
		"1e-12 above the top face": {[3][3]float64{{0.2, 0.2, 1 + 1e-12}, {3, 0.5, 1 + 1e-12}, {0.5, 3, 1 + 1e-12}}, false, false},
		"1e-12 below the top face": {[3][3]float64{{0.2, 0.2, 1 - 1e-12}, {3, 0.5, 1 - 1e-12}, {0.5, 3, 1 - 1e-12}}, true, true},
		"through an edge only":     {[3][3]float64{{2, 0, 0.5}, {0, 2, 0.5}, {3, 3, 0.7}}, true, false},
		"at a corner only":         {[3][3]float64{{1, 1, 1}, {2, 1, 1}, {1, 3, 2}}, true, false},
		"through the middle":       {[3][3]float64{{-1, -1, 0.5}, {3, -1, 0.5}, {-1, 3, 0.5}}, true, true},
		// A big slanted triangle whose bounding box holds the box, passing
		// beside it: only the normal or edge axes separate them.
		"beside, slanted": {[3][3]float64{{-5, -5, 1.6}, {5, -5, 1.6}, {-5, 5, 6.6}}, false, false},
	} {
		if got := triBoxOverlap(&c.tri, &lo, &hi, false); got != c.closed {
			t.Errorf("%s: closed box overlap %v, want %v", name, got, c.closed)
		}
		if got := triBoxOverlap(&c.tri, &lo, &hi, true); got != c.inside {
			t.Errorf("%s: open box overlap %v, want %v", name, got, c.inside)
		}
	}
}

// TestCellRange compares cellRange with the definition: the cells whose
// closed extent [coord(i), coord(i+1)] meets [tmin, tmax].
func TestCellRange(t *testing.T) {
	g := &voxelGrid{min: [3]float64{-0.3, 0, 0}, max: [3]float64{0.7, 1, 1}, n: [3]int{11, 2, 2}}
	rng := rand.New(rand.NewPCG(7, 8))
	for i := 0; i < 20000; i++ {
		var tmin, tmax float64
		switch i % 3 {
		case 0: // anywhere, also beyond the grid
			tmin = 1.4*rng.Float64() - 0.5
			tmax = tmin + 0.3*rng.Float64()
		case 1: // exactly on grid planes
			tmin = g.coord(0, rng.IntN(11))
			tmax = g.coord(0, rng.IntN(11))
			if tmax < tmin {
				tmin, tmax = tmax, tmin
			}
		default: // a point
			tmin = 1.2*rng.Float64() - 0.4
			tmax = tmin
		}
		lo, hi := g.cellRange(0, tmin, tmax)
		for c := 0; c < 10; c++ {
			meets := g.coord(0, c+1) >= tmin && g.coord(0, c) <= tmax
			if in := c >= lo && c < hi; in != meets {
				t.Fatalf("[%v, %v]: range [%d, %d), cell %d [%v, %v] meets: %v", tmin, tmax, lo, hi, c, g.coord(0, c), g.coord(0, c+1), meets)
			}
		}
	}
}

// sphere5k is the closed test surface of the volume study: a latitude–
// longitude sphere of radius 1, 72 × 36 segments, 5040 triangles.
func sphere5k(t testing.TB) *meshio.Mesh {
	m, err := meshio.SphereSurface(1, 72, 36)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestSparseGridSphereVolume is the volume study on the sphere: with n
// grid vertices per axis (cells of h = 2/(n−1)), fillMode intersecting
// over-estimates the enclosed volume and inside under-estimates it, so the
// two bracket it, and both errors shrink as h does — at first order: the
// crossing layer, 1.5·h thick on average, has a volume ≈ 1.5·h·A, half of
// it outside, so each error is about ±0.75·h·A/V = ±2.25·h for the unit
// sphere. At n = 101 (100 cells across the diameter) intersecting is within
// the 5% (measured +4.5%). centre, which keeps a crossing cell when
// its centre is inside, is far closer at every n.
func TestSparseGridSphereVolume(t *testing.T) {
	if testing.Short() {
		t.Skip("builds grids of up to a million cells")
	}
	sphere := sphere5k(t)
	prev := map[string]float64{}
	for _, n := range []int{21, 41, 101} {
		h := 2.0 / float64(n-1)
		errs := map[string]float64{}
		for _, mode := range []string{"intersecting", "inside", "centre"} {
			s := &SparseGridTopology{N: [3]int{n, n, n}, FillMode: mode}
			if err := s.Build(sphere); err != nil {
				t.Fatal(err)
			}
			// The tetrahedra fill the kept cells exactly (to the rounding
			// of a sum of up to 3·10⁶ tetrahedron volumes).
			if cells := float64(s.CellsKept()) * h * h * h; math.Abs(s.TetVolume()-cells) > 1e-9*cells {
				t.Errorf("n = %d %s: tetrahedra volume %v, cells %v", n, mode, s.TetVolume(), cells)
			}
			errs[mode] = s.VolumeError()
			t.Logf("n = %3d (h = %.4f) %-12s %7d cells %8d tets  volume error %+.4f%%  (first-order estimate ±%.2f%%)",
				n, h, mode, s.CellsKept(), len(s.Tetrahedra()), 100*s.VolumeError(), 100*2.25*h)
		}
		if !(errs["inside"] < 0 && errs["intersecting"] > 0) {
			t.Errorf("n = %d: errors %v do not bracket the volume", n, errs)
		}
		for _, mode := range []string{"intersecting", "inside"} {
			// Within 30% of the first-order estimate.
			if e := math.Abs(errs[mode]); math.Abs(e-2.25*h) > 0.3*2.25*h {
				t.Errorf("n = %d %s: |error| %v, estimate %v", n, mode, e, 2.25*h)
			}
			if p, ok := prev[mode]; ok && !(math.Abs(errs[mode]) < math.Abs(p)) {
				t.Errorf("n = %d %s: error %v did not shrink from %v", n, mode, errs[mode], p)
			}
			prev[mode] = errs[mode]
		}
		if math.Abs(errs["centre"]) > 0.25*math.Abs(errs["inside"]) {
			t.Errorf("n = %d: centre error %v, not well below the bounds' %v", n, errs["centre"], errs["inside"])
		}
		if n == 101 && errs["intersecting"] > 0.05 {
			t.Errorf("n = 101: volume error %v above 5%%", errs["intersecting"])
		}
	}
}

// TestSparseGridContainment checks what each fill mode promises on a
// torus: intersecting cells contain the whole surface (every vertex and
// triangle centroid lies in a kept cell); inside cells lie in the solid
// (every vertex of the mesh has winding number 1); centre cells have their
// centre inside.
func TestSparseGridContainment(t *testing.T) {
	torus, err := meshio.TorusSurface(1, 0.35, 40, 16)
	if err != nil {
		t.Fatal(err)
	}
	wind := meshio.NewWinding(torus)
	for _, mode := range []string{"intersecting", "inside", "centre"} {
		s := &SparseGridTopology{N: [3]int{29, 29, 11}, FillMode: mode}
		if err := s.Build(torus); err != nil {
			t.Fatal(err)
		}
		n, lo, hi := s.GridSize()
		cellOf := func(q [3]float64) [3]int {
			var c [3]int
			for a := 0; a < 3; a++ {
				c[a] = min(n[a]-2, int((q[a]-lo[a])/(hi[a]-lo[a])*float64(n[a]-1)))
			}
			return c
		}
		kept := map[[3]int]bool{}
		for e := 0; e < len(s.Tetrahedra()); e += 6 {
			// The first tetrahedron of a cell starts at its low corner.
			v := s.Tetrahedra()[e][0]
			p := s.Points()[3*v : 3*v+3]
			kept[cellOf([3]float64{p[0] + 1e-9, p[1] + 1e-9, p[2] + 1e-9})] = true
		}
		if len(kept) != s.CellsKept() {
			t.Fatalf("%s: %d distinct cells from the tetrahedra, %d kept", mode, len(kept), s.CellsKept())
		}
		// inKeptCell reports whether a closed kept cell holds q (a point
		// on a grid plane is in the cells on both sides).
		inKeptCell := func(q [3]float64) bool {
			for b := 0; b < 8; b++ {
				var p [3]float64
				for a := 0; a < 3; a++ {
					p[a] = q[a] + float64(2*(b>>a&1)-1)*1e-12
				}
				if kept[cellOf(p)] {
					return true
				}
			}
			return false
		}
		switch mode {
		case "intersecting":
			for i := 0; i < torus.NumPoints(); i++ {
				q := [3]float64{torus.Points[3*i], torus.Points[3*i+1], torus.Points[3*i+2]}
				if !inKeptCell(q) {
					t.Fatalf("surface vertex %d %v is in no kept cell", i, q)
				}
			}
			for f, tr := range torus.Triangles {
				var q [3]float64
				for _, v := range tr {
					for a := 0; a < 3; a++ {
						q[a] += torus.Points[3*v+a] / 3
					}
				}
				if !inKeptCell(q) {
					t.Fatalf("centroid of triangle %d is in no kept cell", f)
				}
			}
		case "inside":
			for v := 0; v < len(s.Points())/3; v++ {
				q := [3]float64{s.Points()[3*v], s.Points()[3*v+1], s.Points()[3*v+2]}
				if w := wind.At(q); math.Abs(w-1) > 1e-10 {
					t.Fatalf("vertex %d %v of an inside cell has winding number %v", v, q, w)
				}
			}
		case "centre":
			for c := range kept {
				h := [3]float64{}
				for a := range h {
					h[a] = (hi[a] - lo[a]) / float64(n[a]-1)
				}
				q := [3]float64{lo[0] + (float64(c[0])+0.5)*h[0], lo[1] + (float64(c[1])+0.5)*h[1], lo[2] + (float64(c[2])+0.5)*h[2]}
				if w := wind.At(q); w < 0.5 {
					t.Fatalf("kept cell %v has its centre outside (w = %v)", c, w)
				}
			}
		}
		t.Logf("torus %s: %d cells, volume error %+.2f%%", mode, s.CellsKept(), 100*s.VolumeError())
	}
}

// orientedKey rotates a triangle so its smallest index comes first,
// keeping its orientation.
func orientedKey(t [3]int) [3]int {
	for t[0] > t[1] || t[0] > t[2] {
		t = [3]int{t[1], t[2], t[0]}
	}
	return t
}

// TestSparseGridMeshIsSound: on a capsule, every tetrahedron is positive;
// the boundary built from cell faces is exactly what BoundaryTriangles
// finds from the tetrahedra (same oriented triangles); it is closed and
// encloses the tetrahedra's volume; vertices are numbered compactly (all
// used).
func TestSparseGridMeshIsSound(t *testing.T) {
	capsule, err := meshio.CapsuleSurface(0.3, 1.2, 24, 6, 8)
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"intersecting", "inside", "centre"} {
		s := &SparseGridTopology{CellSize: 0.1, FillMode: mode}
		if err := s.Build(capsule); err != nil {
			t.Fatal(err)
		}
		used := make([]bool, len(s.Points())/3)
		for e, tet := range s.Tetrahedra() {
			if TetVolume(s.Points(), tet) <= 0 {
				t.Fatalf("%s: tetrahedron %d is not positive", mode, e)
			}
			for _, v := range tet {
				used[v] = true
			}
		}
		for v, u := range used {
			if !u {
				t.Fatalf("%s: vertex %d belongs to no tetrahedron", mode, v)
			}
		}
		want := BoundaryTriangles(s.Tetrahedra())
		got := s.Triangles()
		if len(got) != len(want) {
			t.Fatalf("%s: %d boundary triangles, BoundaryTriangles finds %d", mode, len(got), len(want))
		}
		keys := func(ts [][3]int) [][3]int {
			out := make([][3]int, len(ts))
			for i, tr := range ts {
				out[i] = orientedKey(tr)
			}
			sort.Slice(out, func(i, j int) bool {
				a, b := out[i], out[j]
				return a[0] < b[0] || a[0] == b[0] && (a[1] < b[1] || a[1] == b[1] && a[2] < b[2])
			})
			return out
		}
		kg, kw := keys(got), keys(want)
		for i := range kg {
			if kg[i] != kw[i] {
				t.Fatalf("%s: boundary triangle %v, BoundaryTriangles has %v", mode, kg[i], kw[i])
			}
		}
		b := &meshio.Mesh{Points: s.Points(), Triangles: got}
		if n := b.BoundaryEdges(); n != 0 {
			t.Errorf("%s: the boundary has %d open edges", mode, n)
		}
		if v := b.EnclosedVolume(); math.Abs(v-s.TetVolume()) > 1e-12*s.TetVolume() {
			t.Errorf("%s: boundary encloses %v, tetrahedra %v", mode, v, s.TetVolume())
		}
	}
}

// TestSparseGridCellSize: cubic cells of the given size on the smallest
// whole-cell box centred on the bounding box.
func TestSparseGridCellSize(t *testing.T) {
	capsule, _ := meshio.CapsuleSurface(0.3, 1.2, 24, 6, 8) // x ∈ [−0.3, 1.5], y, z ∈ [−0.3, 0.3]
	s := &SparseGridTopology{CellSize: 0.07}
	if err := s.Build(capsule); err != nil {
		t.Fatal(err)
	}
	n, lo, hi := s.GridSize()
	// 1.8/0.07 = 25.7 → 26 cells; 0.6/0.07 = 8.6 → 9 cells.
	if n != [3]int{27, 10, 10} {
		t.Errorf("n = %v, want [27 10 10]", n)
	}
	for a, ext := range [3][2]float64{{-0.3, 1.5}, {-0.3, 0.3}, {-0.3, 0.3}} {
		if h := (hi[a] - lo[a]) / float64(n[a]-1); math.Abs(h-0.07) > 1e-15 {
			t.Errorf("axis %d: cell size %v", a, h)
		}
		if math.Abs((lo[a]+hi[a])/2-(ext[0]+ext[1])/2) > 1e-15 || lo[a] > ext[0] || hi[a] < ext[1] {
			t.Errorf("axis %d: grid [%v, %v] not centred on and covering [%v, %v]", a, lo[a], hi[a], ext[0], ext[1])
		}
	}
}

// TestSparseGridAlignedCube: the unit cube's surface (written by Gmsh).
// On a 4×4×4 grid over exactly the cube its faces lie on the outer grid
// planes: the outer cells only touch the surface, their interiors are
// inside, so every mode keeps all 64 cells (volume error exactly 0). On
// cells of 0.3 (a 4×4×4 grid over [−0.1, 1.1]³) the faces cross the outer
// cells: intersecting keeps all 64 (volume 1.728), inside the 8 interior
// ones (0.216), centre all 64 (the outer cells' centres are 0.05 inside
// the faces).
func TestSparseGridAlignedCube(t *testing.T) {
	cube, err := meshio.ReadSTL("../../meshio/testdata/external/cube_gmsh_surface.stl")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		n        [3]int
		cellSize float64
		mode     string
		want     float64
	}{
		{[3]int{5, 5, 5}, 0, "intersecting", 1},
		{[3]int{5, 5, 5}, 0, "inside", 1},
		{[3]int{5, 5, 5}, 0, "centre", 1},
		{[3]int{}, 0.3, "intersecting", 1.728},
		{[3]int{}, 0.3, "inside", 0.216},
		{[3]int{}, 0.3, "centre", 1.728},
	} {
		s := &SparseGridTopology{N: c.n, CellSize: c.cellSize, FillMode: c.mode}
		if err := s.Build(cube); err != nil {
			t.Fatal(err)
		}
		// Rounding of sums of a few hundred terms.
		if math.Abs(s.TetVolume()-c.want) > 1e-13 || math.Abs(s.SurfaceVolume()-1) > 1e-13 {
			t.Errorf("n = %v, cellSize = %v, %s: tetrahedra %v, surface %v; want %v, 1", c.n, c.cellSize, c.mode, s.TetVolume(), s.SurfaceVolume(), c.want)
		}
	}
}

// TestSparseGridInwardSurface: an inward-oriented surface (winding −1
// inside, negative enclosed volume) gives the same mesh.
func TestSparseGridInwardSurface(t *testing.T) {
	torus, _ := meshio.TorusSurface(1, 0.35, 40, 16)
	inward := &meshio.Mesh{Points: torus.Points}
	for _, tr := range torus.Triangles {
		inward.Triangles = append(inward.Triangles, [3]int{tr[0], tr[2], tr[1]})
	}
	for _, mode := range []string{"intersecting", "inside", "centre"} {
		a := &SparseGridTopology{N: [3]int{21, 21, 8}, FillMode: mode}
		b := &SparseGridTopology{N: [3]int{21, 21, 8}, FillMode: mode}
		if err := a.Build(torus); err != nil {
			t.Fatal(err)
		}
		if err := b.Build(inward); err != nil {
			t.Fatal(err)
		}
		if a.CellsKept() != b.CellsKept() || a.SurfaceVolume() != b.SurfaceVolume() || len(a.Points()) != len(b.Points()) {
			t.Errorf("%s: outward %d cells (surface %v), inward %d (%v)", mode, a.CellsKept(), a.SurfaceVolume(), b.CellsKept(), b.SurfaceVolume())
		}
	}
}

// TestSparseGridRejects: an open surface (naming the open edges), a
// flipped triangle, a grid too coarse for fillMode inside, and the field
// checks of Validate.
func TestSparseGridRejects(t *testing.T) {
	sphere, _ := meshio.SphereSurface(1, 12, 6)
	open := &meshio.Mesh{Points: sphere.Points, Triangles: sphere.Triangles[1:]}
	flipped := &meshio.Mesh{Points: sphere.Points, Triangles: append([][3]int{}, sphere.Triangles...)}
	f := flipped.Triangles[5]
	flipped.Triangles[5] = [3]int{f[0], f[2], f[1]}
	for _, c := range []struct {
		name string
		s    *SparseGridTopology
		m    *meshio.Mesh
		msg  string
	}{
		{"open", &SparseGridTopology{N: [3]int{5, 5, 5}}, open, "not closed: 3 edges"},
		{"flipped", &SparseGridTopology{N: [3]int{5, 5, 5}}, flipped, "not closed: 3 edges"},
		{"too coarse", &SparseGridTopology{N: [3]int{2, 2, 2}, FillMode: "inside"}, sphere, "no cell of the 1×1×1 grid"},
		{"huge", &SparseGridTopology{CellSize: 1e-4}, sphere, "more than 16777216 cells"},
	} {
		err := c.s.Build(c.m)
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.msg)
		}
	}
	for _, c := range []struct {
		s   SparseGridTopology
		msg string
	}{
		{SparseGridTopology{Filename: "a.stl"}, "give the grid resolution"},
		{SparseGridTopology{Filename: "a.stl", N: [3]int{3, 3, 3}, CellSize: 0.1}, "not both"},
		{SparseGridTopology{Filename: "a.stl", N: [3]int{3, 1, 3}}, "n[1] = 1"},
		{SparseGridTopology{Filename: "a.msh", N: [3]int{3, 3, 3}}, "want a closed surface as .stl or .obj"},
	} {
		err := c.s.Validate()
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%+v: error %v, want %q", c.s, err, c.msg)
		}
	}
}
