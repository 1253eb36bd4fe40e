package mapping_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sofago/sofago/components/mapping"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

// quadraticMap is x(X) = c + M X + (Xᵀ Q_r X)_r, a complete quadratic map.
type quadraticMap struct {
	c geom.Vec3
	M geom.Mat3
	Q [3]geom.Mat3 // symmetric
}

func randomQuadraticMap(rng *rand.Rand, a float64) quadraticMap {
	q := quadraticMap{c: geom.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}, M: randomAffine(rng)}
	for r := range q.Q {
		var m geom.Mat3
		for i := range m {
			m[i] = a * rng.NormFloat64()
		}
		q.Q[r] = m.Sym()
	}
	return q
}

func (q quadraticMap) at(X geom.Vec3) (x geom.Vec3, F geom.Mat3, dF [3]geom.Mat3) {
	x = q.c.Add(q.M.MulVec(X))
	F = q.M
	for r := 0; r < 3; r++ {
		QX := q.Q[r].MulVec(X)
		x[r] += X.Dot(QX)
		for c := 0; c < 3; c++ {
			F[3*r+c] += 2 * QX[c]
			for k := 0; k < 3; k++ {
				dF[k][3*r+c] = 2 * q.Q[r][3*c+k]
			}
		}
	}
	return x, F, dF
}

// frame returns the Quadratic3 coordinates of a frame of rest (t̄, Ā) that
// follows q: with X = t̄ + Ā X̂, x = [q(t̄)] + [M Ā + 2 (Q_r t̄)ᵀ Ā] X̂ +
// X̂ᵀ (Āᵀ Q_r Ā) X̂, the quadratic part written on the basis x̂², ŷ², ẑ²,
// x̂ŷ, ŷẑ, ẑx̂.
func (q quadraticMap) frame(tb geom.Vec3, Ab geom.Mat3) []float64 {
	x0, _, _ := q.at(tb)
	c := make([]float64, 30)
	copy(c, x0[:])
	for r := 0; r < 3; r++ {
		lin := q.M.Row(r)
		lin = lin.Add(q.Q[r].MulVec(tb).Scale(2))
		l := Ab.TMulVec(lin)
		P := Ab.TMul(q.Q[r]).Mul(Ab)
		row := c[3+9*r : 3+9*r+9]
		copy(row[:3], l[:])
		row[3], row[4], row[5] = P[0], P[4], P[8]
		row[6], row[7], row[8] = 2*P[1], 2*P[5], 2*P[6]
	}
	return c
}

// restQuadratic returns the rest coordinates of a quadratic frame (t̄, Ā)
// with zero quadratic columns.
func restQuadratic(tb geom.Vec3, Ab geom.Mat3) []float64 {
	c := make([]float64, 30)
	copy(c, tb[:])
	for r := 0; r < 3; r++ {
		copy(c[3+9*r:3+9*r+3], Ab[3*r:3*r+3])
	}
	return c
}

func quadraticFixture(t testing.TB, seed uint64, ct graph.Template, nf, np int) (*mapping.LinearBlendSkinningMapping, *graph.MechanicalObject, []float64, []float64, []geom.Vec3) {
	rng := rand.New(rand.NewPCG(seed, 13))
	centres := make([]geom.Vec3, nf)
	var rest, pos []float64
	for i := range centres {
		centres[i] = geom.Vec3{2*rng.Float64() - 1, 2*rng.Float64() - 1, 2*rng.Float64() - 1}
		rest = append(rest, restQuadratic(centres[i], randomAffine(rng))...)
		c := make([]float64, 30)
		for j := range c {
			c[j] = rest[30*i+j] + 0.5*rng.NormFloat64()
		}
		pos = append(pos, c...)
	}
	pts := randomPoints(rng, np)
	m := mapping.NewLinearBlendSkinningMapping()
	_, child := buildSkinning(t, m, graph.Quadratic3, rest, pos, ct, pts, gaussianWeights(pts, centres, 1.2))
	return m, child, pos, pts, centres
}

// TestQuadraticSkinningFixtures: quadratic frames (random rest affine
// parts, random current 3×9 maps) onto Vec3, F331 and F332 pass the mapping
// fixture (J against differences of Apply, Jᵀ, zero geometric stiffness).
func TestQuadraticSkinningFixtures(t *testing.T) {
	for _, ct := range []graph.Template{graph.Vec3, graph.F331, graph.F332} {
		t.Run(ct.Name(), func(t *testing.T) {
			m, _, pos, _, _ := quadraticFixture(t, 3, ct, 4, 120)
			graphtest.CheckMapping(t, m, pos, graphtest.Options{Trials: 4, Tolerance: fdTolerance})
		})
	}
}

// TestQuadraticPatch: one quadratic frame (weight 1 everywhere), and five
// frames with Gaussian partition-of-unity weights, each following one
// random complete quadratic map x = c + M X + (XᵀQ_r X)_r, reproduce it
// exactly: x, F = M + 2 (Q_r X)ᵀ and ∂F/∂X_k = 2 Q_r e_k at every point
// and sample, to 1e-12 (a few ulps of O(10) sums).
func TestQuadraticPatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 4))
	q := randomQuadraticMap(rng, 0.5)
	for _, nf := range []int{1, 5} {
		centres := make([]geom.Vec3, nf)
		var rest, pos []float64
		for i := range centres {
			centres[i] = geom.Vec3{2*rng.Float64() - 1, 2*rng.Float64() - 1, 2*rng.Float64() - 1}
			// A rotated, mildly stretched rest frame: the terms of A b
			// grow like cond(Ā)², and so does their rounding.
			Ab := randomRotation(rng).Mat().Mul(geom.Diag(geom.Vec3{0.8 + 0.4*rng.Float64(), 0.8 + 0.4*rng.Float64(), 0.8 + 0.4*rng.Float64()}))
			rest = append(rest, restQuadratic(centres[i], Ab)...)
			pos = append(pos, q.frame(centres[i], Ab)...)
		}
		pts := randomPoints(rng, 100)
		var w mapping.SkinningWeights
		if nf == 1 {
			n := len(pts) / 3
			fr, ws, gs := make([][]int, n), make([][]float64, n), make([][]geom.Vec3, n)
			for p := range fr {
				fr[p], ws[p], gs[p] = []int{0}, []float64{1}, []geom.Vec3{{}}
			}
			w, _ = mapping.NewSkinningWeights(fr, ws, gs)
			w.Hessians = make([]geom.Mat3, n)
		} else {
			w = gaussianWeights(pts, centres, 0.9)
		}
		worst := 0.0
		for _, ct := range []graph.Template{graph.Vec3, graph.F331, graph.F332} {
			m := mapping.NewLinearBlendSkinningMapping()
			_, child := buildSkinning(t, m, graph.Quadratic3, rest, pos, ct, pts, w)
			y := child.Vec(graph.Position)
			sz := ct.CoordSize()
			for p := 0; p < child.Size(); p++ {
				x, F, dF := q.at(geom.At(pts, p))
				var want []float64
				switch ct {
				case graph.Vec3:
					want = x[:]
				default:
					want = append(want, F[:]...)
					if ct == graph.F332 {
						for k := 0; k < 3; k++ {
							want = append(want, dF[k][:]...)
						}
					}
				}
				worst = math.Max(worst, maxAbsDiff(y[sz*p:sz*p+sz], want))
			}
		}
		t.Logf("%d quadratic frame(s): largest error of x, F, ∇F: %.3g", nf, worst)
		if worst > 1e-12 {
			t.Errorf("%d quadratic frame(s): patch test error %.3g > 1e-12", nf, worst)
		}
	}
}

// TestQuadraticDeform: Deform (used to invert the map) agrees with Apply
// onto Vec3 and F331 at the mapped points.
func TestQuadraticDeform(t *testing.T) {
	for _, ct := range []graph.Template{graph.Vec3, graph.F331} {
		m, child, _, _, _ := quadraticFixture(t, 8, ct, 3, 20)
		w := m.Weights()
		for p := 0; p < w.NumPoints(); p++ {
			fr, ws, gs := w.Influences(p)
			x, F := m.Deform(geom.At(m.RestPoints(), p), fr, ws, gs)
			var got []float64
			if ct == graph.Vec3 {
				got = x[:]
			} else {
				got = F[:]
			}
			sz := ct.CoordSize()
			if d := maxAbsDiff(got, child.Vec(graph.Position)[sz*p:sz*p+sz]); d > 1e-12 {
				t.Fatalf("%s point %d: Deform differs from Apply by %g", ct.Name(), p, d)
			}
		}
	}
	_ = fmt.Sprint
}
