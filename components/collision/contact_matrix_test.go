package collision

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
	"github.com/sofago/sofago/meshio"
)

// denseMatrix collects MatrixAccumulator entries into a dense n×n matrix.
type denseMatrix struct {
	n int
	a []float64
}

func (d *denseMatrix) Add(r, c int, v float64) { d.a[r*d.n+c] += v }

// matrixVsProducts returns max_j |A e_j − f(e_j)|∞ / max(|A e_j|∞, |f(e_j)|∞)
// over the non-zero columns, and their number.
func matrixVsProducts(n int, write func(m graph.MatrixAccumulator), f func(df, dx []float64)) (float64, int) {
	a := &denseMatrix{n: n, a: make([]float64, n*n)}
	write(a)
	dx, df := make([]float64, n), make([]float64, n)
	worst, cols := 0.0, 0
	for j := 0; j < n; j++ {
		clear(df)
		dx[j] = 1
		f(df, dx)
		dx[j] = 0
		scale := 0.0
		for i := 0; i < n; i++ {
			scale = math.Max(scale, math.Max(math.Abs(df[i]), math.Abs(a.a[i*n+j])))
		}
		if scale == 0 {
			continue
		}
		cols++
		for i := 0; i < n; i++ {
			worst = math.Max(worst, math.Abs(a.a[i*n+j]-df[i])/scale)
		}
	}
	return worst, cols
}

// TestContactMatricesMatchProducts compares the contact matrices the
// assembled solvers take (contactInteraction.AddKBToMatrix, the collision
// models' AddKToMatrix and AddBToMatrix) column by column with AddDForce,
// at random velocities (friction in its non-linear range, dashpot on), on
// two spheres of one solver pressed into each other (both directions of
// contact), one surface in contact with itself (two spheres in one mesh,
// selfCollision: point and triangle on the same state), and a sphere
// against a static one (the contacts live on the moving model: its
// vertices in the static surface, and the static vertices in its
// triangles). Both sides sum the same terms in other orders: 1e-12 of the
// column's largest entry.
func TestContactMatricesMatchProducts(t *testing.T) {
	const k, b = -0.7, 0.3
	rng := rand.New(rand.NewPCG(11, 12))
	check := func(name string, worst float64, cols int) {
		t.Logf("%s: %d non-zero columns, worst %.3g", name, cols, worst)
		if cols == 0 || worst > 1e-12 {
			t.Errorf("%s: matrix differs from AddDForce by %.3g relative (%d columns)", name, worst, cols)
		}
	}
	interaction := func(name string, pl *CollisionPipeline) {
		pl.Damping, pl.Friction, pl.SlipVelocity = 30, 0.4, 0.05
		if err := pl.DetectContacts(0); err != nil {
			t.Fatal(err)
		}
		if len(pl.interactions) != 1 {
			t.Fatalf("%s: %d interactions, want 1", name, len(pl.interactions))
		}
		ci := pl.interactions[0]
		ff, x := flatten(ci)
		v := graphtest.RandomDeriv(rng, len(x), 0.1)
		ff.AddForce(make([]float64, len(x)), x, v)
		worst, cols := matrixVsProducts(len(x), func(m graph.MatrixAccumulator) { ci.AddKBToMatrix(m, k, b) },
			func(df, dx []float64) { ff.AddDForce(df, dx, k, b) })
		check(name+" kK+bB", worst, cols)
	}
	_, two := twoSpheresScene(t, 0.1, 24, 13, 0.02, 0.03)
	interaction("two spheres", two)

	one, err := meshio.SphereSurface(0.1, 24, 13)
	if err != nil {
		t.Fatal(err)
	}
	var pts []float64
	var tris [][3]int
	for _, cx := range []float64{-0.09, 0.09} {
		base := len(pts) / 3
		for i := 0; i < one.NumPoints(); i++ {
			pts = append(pts, one.Points[3*i]+cx, one.Points[3*i+1], one.Points[3*i+2])
		}
		for _, tr := range one.Triangles {
			tris = append(tris, [3]int{tr[0] + base, tr[1] + base, tr[2] + base})
		}
	}
	interaction("self-contact", oneSurfaceScene(t, pts, tris, true, 0.03))

	_, pl := twoSpheresScene(t, 0.1, 24, 13, 0.02, 0.03)
	st, _ := staticSecondSphere(t, pl)
	x := st.state.Vec(graph.Position)
	v := graphtest.RandomDeriv(rng, len(x), 0.1)
	st.addForce(make([]float64, len(x)), x, v)
	worst, cols := matrixVsProducts(len(x), func(m graph.MatrixAccumulator) { st.addKToMatrix(m, k) },
		func(df, dx []float64) { st.addDForce(df, dx, k, 0) })
	check("static: kK", worst, cols)
	worst, cols = matrixVsProducts(len(x), func(m graph.MatrixAccumulator) { st.addBToMatrix(m, b) },
		func(df, dx []float64) { st.addDForce(df, dx, 0, b) })
	check("static: bB", worst, cols)
}
