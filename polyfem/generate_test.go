package polyfem

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sofago/sofago/geom"
)

// randomSeeds returns n seeds uniformly in the box.
func randomSeeds(rng *rand.Rand, n int, lo, hi geom.Vec3) []float64 {
	s := make([]float64, 3*n)
	for i := 0; i < n; i++ {
		for a := 0; a < 3; a++ {
			s[3*i+a] = lo[a] + (hi[a]-lo[a])*rng.Float64()
		}
	}
	return s
}

// checkTiles checks a generated mesh: every cell valid (closed, convex,
// outward), the volumes adding up to the box's (1e-12 relative), every
// interior face used by exactly two cells in opposite directions and
// every boundary face on the box.
func checkTiles(t *testing.T, name string, m *Mesh, lo, hi geom.Vec3) {
	t.Helper()
	if err := m.Validate(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	vol := 0.0
	for e := range m.Cells {
		vol += m.CellVolume(e)
	}
	box := (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2])
	if math.Abs(vol-box) > 1e-12*box {
		t.Errorf("%s: cells fill %.15g, box %.15g", name, vol, box)
	}
	flux := 0.0
	for _, tr := range m.BoundaryTriangles() {
		p0 := geom.At(m.Points, tr[0])
		flux += p0.Dot(geom.At(m.Points, tr[1]).Cross(geom.At(m.Points, tr[2]))) / 6
	}
	if math.Abs(flux-box) > 1e-12*box {
		t.Errorf("%s: boundary encloses %.15g, box %.15g", name, flux, box)
	}
}

func TestGenerators(t *testing.T) {
	lo, hi := geom.Vec3{0, 0, 0}, geom.Vec3{2, 1, 0.5}
	m, err := HexDominantGrid(lo, hi, [3]int{4, 2, 2}, Checkerboard)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Cells) != 8+8*6 {
		t.Errorf("%d cells, want 8 hexahedra + 8 × 6 pyramids", len(m.Cells))
	}
	checkTiles(t, "hex-dominant", m, lo, hi)
	for _, n := range []int{10, 100, 400} {
		rng := rand.New(rand.NewPCG(uint64(n), 3))
		v, err := Voronoi(randomSeeds(rng, n, lo, hi), lo, hi)
		if err != nil {
			t.Fatal(err)
		}
		checkTiles(t, "voronoi", v, lo, hi)
		faces, verts := 0, 0
		for _, c := range v.Cells {
			faces += len(c.Faces)
			verts += len(c.Vertices())
		}
		t.Logf("Voronoi of %d seeds: %d points, %.1f faces and %.1f vertices per cell", n, v.NumPoints(), float64(faces)/float64(n), float64(verts)/float64(n))
	}
}
