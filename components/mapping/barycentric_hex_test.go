package mapping_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sofago/sofago/components/mapping"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

// hexBaryScene is baryScene over the same box served as 3×2×2 hexahedra.
func hexBaryScene(childPoints []float64, mappingFields string) string {
	return strings.Replace(baryScene(childPoints, mappingFields), "n = [4, 3, 3]", "n = [4, 3, 3]\n  elements = \"hexahedra\"", 1)
}

// The fixture (ApplyJ against differences of Apply, ApplyJT = Jᵀ) on
// hexahedra, with points inside and outside the mesh.
func TestBarycentricMappingHexFD(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 6))
	s := graphtest.MustLoad(t, "bary.toml", hexBaryScene(mixedPoints(rng, 40), ""))
	m := graphtest.Find[*mapping.BarycentricMapping](t, s, "mesh/embedded/BarycentricMapping")
	if n, _ := m.Outside(); n == 0 || n == 40 {
		t.Fatalf("%d of 40 points outside the mesh; the test wants some of each", n)
	}
	parent := graphtest.Find[graph.State](t, s, "mesh/dofs")
	graphtest.CheckMapping(t, m, deform(rng, parent.Vec(graph.RestPosition)), graphtest.Options{Tolerance: fdTolerance})
}

// In a box hexahedron the weights are the trilinear shape functions of
// the closed-form reference coordinates ξ = 2(p − lo)/h − 1 (not the
// Kuhn tetrahedra's barycentric coordinates, which differ under a
// non-affine motion): after moving one vertex the mapped points are
// Σ Nₐ(ξ) xₐ. On a jittered rest mesh, points on vertices follow them bit
// for bit, and an affine motion moves every point (inside or outside)
// affinely, trilinear interpolation being exact for affine fields.
func TestBarycentricMappingHexTrilinear(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	pts := make([]float64, 0, 60)
	for i := 0; i < 20; i++ {
		pts = append(pts, 0.5*rng.Float64(), 0.5*rng.Float64(), 0.25*rng.Float64()) // in the first cell
	}
	s := graphtest.MustLoad(t, "bary.toml", hexBaryScene(pts, `isMechanical = false`))
	m := graphtest.Find[*mapping.BarycentricMapping](t, s, "mesh/embedded/BarycentricMapping")
	x0 := graphtest.Find[graph.State](t, s, "mesh/dofs").Vec(graph.RestPosition)
	x := append([]float64(nil), x0...)
	x[3*1+1] += 0.2 // corner 1 of the first cell moves along y
	got := make([]float64, len(pts))
	m.Apply(got, x)
	h := [8]int{0, 1, 5, 4, 12, 13, 17, 16} // the first cell in VTK order (n = 4 × 3 × 3)
	for i := 0; i < len(pts)/3; i++ {
		p := geom.At(pts, i)
		xi := geom.Vec3{2*p[0]/0.5 - 1, 2*p[1]/0.5 - 1, 2*p[2]/0.25 - 1}
		want := geom.HexMap(x, h, xi)
		if d := geom.At(got, i).Sub(want).Norm(); d > 1e-15 {
			t.Errorf("point %d: mapped %v, trilinear %v", i, geom.At(got, i), want)
		}
		if c, v, _ := m.EmbeddingCell(i); c != 0 || len(v) != 8 {
			t.Errorf("point %d embedded in cell %d with %d vertices, want hexahedron 0", i, c, len(v))
		}
	}

	// Jittered rest mesh: vertices and affine motions.
	probe := graphtest.MustLoad(t, "bary.toml", hexBaryScene([]float64{0.1, 0.1, 0.1}, ""))
	xj := deform(rng, graphtest.Find[graph.State](t, probe, "mesh/dofs").Vec(graph.RestPosition))
	nv := len(xj) / 3
	all := append(append([]float64(nil), xj...), mixedPoints(rng, 30)...)
	scene := strings.Replace(hexBaryScene(all, `isMechanical = false`), `name = "dofs"`, `name = "dofs"
  restPosition = `+rows(xj, 3), 1)
	s = graphtest.MustLoad(t, "bary.toml", scene)
	m = graphtest.Find[*mapping.BarycentricMapping](t, s, "mesh/embedded/BarycentricMapping")
	child := graphtest.Find[graph.State](t, s, "mesh/embedded/points").Vec(graph.Position)
	for i := range all {
		// Rest reproduction: Newton's residual 1e-14 of the cell size.
		if math.Abs(child[i]-all[i]) > 1e-13 {
			t.Fatalf("rest point coordinate %d: mapped %v, given %v", i, child[i], all[i])
		}
	}
	xd := deform(rng, xj)
	got = make([]float64, len(all))
	m.Apply(got, xd)
	for i := 0; i < nv; i++ {
		if geom.At(got, i) != geom.At(xd, i) {
			t.Fatalf("point on vertex %d mapped to %v, vertex at %v", i, geom.At(got, i), geom.At(xd, i))
		}
	}
	A := geom.Mat3{1.1, 0.3, -0.2, -0.25, 0.9, 0.1, 0.05, 0.2, 1.3}
	b := geom.Vec3{0.3, -1, 2}
	xa := make([]float64, len(xj))
	for i := 0; i < nv; i++ {
		geom.Put(xa, i, A.MulVec(geom.At(xj, i)).Add(b))
	}
	m.Apply(got, xa)
	for i := 0; i < len(all)/3; i++ {
		// Weights of extrapolated points reach a few units: 1e-13 as in
		// the tetrahedral test.
		if d := geom.At(got, i).Sub(A.MulVec(geom.At(all, i)).Add(b)).Norm(); d > 1e-13 {
			t.Errorf("point %d: affine motion off by %.3g", i, d)
		}
	}
}
