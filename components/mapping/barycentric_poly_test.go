package mapping_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sofago/sofago/components/mapping"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

// polyBaryScene embeds points in a Voronoi mesh of the box of baryScene.
func polyBaryScene(childPoints []float64, mappingFields string) string {
	return `
[[node]]
name = "mesh"
  [[node.object]]
  type = "PolyhedralTopology"
  generator = "voronoi"
  min = [0, 0, 0]
  max = [1.5, 1, 0.5]
  n = [3, 2, 1]
  jitter = 0.15
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[node.node]]
  name = "embedded"
    [[node.node.object]]
    type = "MechanicalObject"
    name = "points"
    position = ` + rows(childPoints, 3) + `
    [[node.node.object]]
    type = "BarycentricMapping"
    ` + mappingFields + "\n"
}

// On polyhedra the weights are the cells' harmonic shape functions: the
// fixture passes (the map is linear), every point — inside or outside
// the mesh — follows an affine motion exactly and the rest points are
// reproduced (the weights reproduce linear fields), to the rounding of
// Σ wₐ xₐ: 1e-15·Σ|wₐ|·|x|max·n. Outside the mesh the weights are the
// minimum-norm linear ones (the largest weight stays near 1; the
// fundamental solutions extrapolated there reached 1.4e4).
func TestBarycentricMappingPolyhedra(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 2))
	pts := mixedPoints(rng, 40)
	s := graphtest.MustLoad(t, "bary.toml", polyBaryScene(pts, ""))
	m := graphtest.Find[*mapping.BarycentricMapping](t, s, "mesh/embedded/BarycentricMapping")
	if n, _ := m.Outside(); n == 0 || n == 40 {
		t.Fatalf("%d of 40 points outside the mesh; the test wants some of each", n)
	}
	parent := graphtest.Find[graph.State](t, s, "mesh/dofs")
	x0 := parent.Vec(graph.RestPosition)
	graphtest.CheckMapping(t, m, deform(rng, x0), graphtest.Options{Tolerance: fdTolerance})
	child := graphtest.Find[graph.State](t, s, "mesh/embedded/points").Vec(graph.RestPosition)
	tol := func(i int, xmax float64) float64 {
		_, v, w := m.EmbeddingCell(i)
		sum := 0.0
		for _, wj := range w {
			sum += math.Abs(wj)
		}
		return 1e-15 * sum * xmax * float64(len(v))
	}
	worstW := 0.0
	for i := range pts {
		if math.Abs(child[i]-pts[i]) > tol(i/3, 2) {
			t.Fatalf("rest point coordinate %d: mapped %v, given %v", i, child[i], pts[i])
		}
		_, _, w := m.EmbeddingCell(i / 3)
		for _, wj := range w {
			worstW = math.Max(worstW, math.Abs(wj))
		}
	}
	t.Logf("largest |weight| %.3g", worstW)
	A := geom.Mat3{1.1, 0.3, -0.2, -0.25, 0.9, 0.1, 0.05, 0.2, 1.3}
	b := geom.Vec3{0.3, -1, 2}
	x := make([]float64, len(x0))
	for i := 0; i < len(x)/3; i++ {
		geom.Put(x, i, A.MulVec(geom.At(x0, i)).Add(b))
	}
	got := make([]float64, len(pts))
	m.Apply(got, x)
	for i := 0; i < len(pts)/3; i++ {
		if d := geom.At(got, i).Sub(A.MulVec(geom.At(pts, i)).Add(b)).Norm(); d > tol(i, 4) {
			t.Errorf("point %d: affine motion off by %.3g", i, d)
		}
	}
	if c, v, w := m.EmbeddingCell(0); len(v) != len(w) || len(v) < 4 || c < 0 {
		t.Errorf("embedding of point 0: cell %d, %d vertices, %d weights", c, len(v), len(w))
	}
}
