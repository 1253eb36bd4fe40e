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

// gmlsNodeCoords returns the rest coordinates [X̄, I, 0] of GMLS nodes at
// centres in template pt (Affine3 or Quadratic3).
func gmlsRest(pt graph.Template, centres []geom.Vec3) []float64 {
	var out []float64
	for _, c := range centres {
		if pt == graph.Quadratic3 {
			out = append(out, restQuadratic(c, geom.Identity3())...)
		} else {
			out = append(out, affineCoords([]geom.Vec3{c}, []geom.Mat3{geom.Identity3()})...)
		}
	}
	return out
}

// gmlsFollow returns the node coordinates that carry the Taylor data of
// the quadratic map q at the nodes (for Affine3, q must be linear: its
// quadratic part is dropped).
func gmlsFollow(pt graph.Template, q quadraticMap, centres []geom.Vec3) []float64 {
	var out []float64
	for _, c := range centres {
		f := q.frame(c, geom.Identity3())
		if pt == graph.Quadratic3 {
			out = append(out, f...)
			continue
		}
		out = append(out, f[:3]...)
		for r := 0; r < 3; r++ {
			out = append(out, f[3+9*r:3+9*r+3]...)
		}
	}
	return out
}

func buildGMLS(t testing.TB, pt graph.Template, rest, pos []float64, ct graph.Template, pts []float64, radii []float64) (*mapping.GMLSMapping, *graph.MechanicalObject) {
	t.Helper()
	parent := graph.NewMechanicalObject("nodes", pt, len(rest)/pt.CoordSize())
	copy(parent.Vec(graph.RestPosition), rest)
	copy(parent.Vec(graph.Position), pos)
	child := graph.NewMechanicalObject("samples", ct, 0)
	m := mapping.NewGMLSMapping()
	m.SetStates(parent, child)
	m.SetRestPoints(pts)
	m.SetRadii(radii)
	if err := m.Init(); err != nil {
		t.Fatalf("init: %v", err)
	}
	return m, child
}

func randomCentres(rng *rand.Rand, n int) []geom.Vec3 {
	c := make([]geom.Vec3, n)
	for i := range c {
		c[i] = geom.Vec3{2*rng.Float64() - 1, 2*rng.Float64() - 1, 2*rng.Float64() - 1}
	}
	return c
}

// TestGMLSMappingFixtures: linear (Affine3) and quadratic (Quadratic3)
// GMLS nodes onto Vec3, F331 and F332 pass the mapping fixture (J against
// central differences of Apply, Jᵀ the adjoint of J, zero geometric
// stiffness), and the sparse Jacobian (JacobianEntries) times random
// vectors equals ApplyJ to rounding.
func TestGMLSMappingFixtures(t *testing.T) {
	for _, pt := range []graph.Template{graph.Affine3, graph.Quadratic3} {
		for _, ct := range []graph.Template{graph.Vec3, graph.F331, graph.F332} {
			t.Run(pt.Name()+"/"+ct.Name(), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(5, 21))
				centres := randomCentres(rng, 60)
				rest := gmlsRest(pt, centres)
				pos := make([]float64, len(rest))
				for i := range pos {
					pos[i] = rest[i] + 0.3*rng.NormFloat64()
				}
				pts := make([]float64, 3*150)
				for i := range pts {
					pts[i] = 1.6*rng.Float64() - 0.8
				}
				m, child := buildGMLS(t, pt, rest, pos, ct, pts, []float64{0.8})
				graphtest.CheckMapping(t, m, pos, graphtest.Options{Trials: 3, Tolerance: fdTolerance})

				// Sparse J against ApplyJ.
				nr, nc := child.Size()*ct.DerivSize(), len(pos)/pt.CoordSize()*pt.DerivSize()
				acc := &denseAcc{rows: nr, cols: nc, a: make([]float64, nr*nc)}
				m.JacobianEntries(acc)
				for trial := 0; trial < 3; trial++ {
					d := graphtest.RandomDeriv(rng, nc, 1)
					want := make([]float64, nr)
					m.ApplyJ(want, d)
					got := make([]float64, nr)
					for i := 0; i < nr; i++ {
						for j := 0; j < nc; j++ {
							got[i] += acc.a[i*nc+j] * d[j]
						}
					}
					// Rounding of sums of ≤ 30 neighbours × 31 terms of O(1–10).
					if e := maxAbsDiff(got, want); e > 1e-12*math.Max(1, maxAbs(want)) {
						t.Errorf("sparse J · d differs from ApplyJ by %.3g", e)
					}
				}
			})
		}
	}
}

type denseAcc struct {
	rows, cols int
	a          []float64
}

func (d *denseAcc) Add(i, j int, v float64) { d.a[i*d.cols+j] += v }

func maxAbs(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = math.Max(m, math.Abs(x))
	}
	return m
}

// TestGMLSMappingPatch: nodes carrying the Taylor data of a random linear
// map (Affine3) or complete quadratic map (Quadratic3) x = c + M X + (Xᵀ
// Qᵣ X)ᵣ reproduce it exactly at every child DOF: x (Vec3), F = ∂x/∂X
// (F331) and F and ∂F/∂Xₖ (F332), to 1e-12 — also at points inside a
// single node's support and between two nodes only, where classical MLS
// has no solution. The layout of the Quadratic3 coordinates (½ x,ₐₐ and
// x,ₐᵦ as the coefficients of the quadratic monomials) is the one the
// skinning tests use for quadratic frames (quadraticMap.frame).
func TestGMLSMappingPatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 7))
	for _, pt := range []graph.Template{graph.Affine3, graph.Quadratic3} {
		amp := 0.0
		if pt == graph.Quadratic3 {
			amp = 0.5
		}
		q := randomQuadraticMap(rng, amp)
		// A cloud, plus an isolated node and an isolated pair.
		centres := append(randomCentres(rng, 60), geom.Vec3{5, 0, 0}, geom.Vec3{0, 5, 0}, geom.Vec3{0.3, 5, 0.2})
		// 2,100 cloud points: the mapping evaluates in chunks of 1,024, so
		// the last points (below) are in the third chunk.
		pts := make([]float64, 3*2100)
		for i := range pts {
			pts[i] = 1.6*rng.Float64() - 0.8
		}
		pts = append(pts, 5.2, 0.1, -0.3, 4.7, -0.2, 0.2, 0.1, 5.1, 0.1, 0.2, 4.9, 0.0)
		radii := make([]float64, len(centres))
		for i := range radii {
			radii[i] = 0.8
		}
		rest := gmlsRest(pt, centres)
		pos := gmlsFollow(pt, q, centres)
		worst := 0.0
		for _, ct := range []graph.Template{graph.Vec3, graph.F331, graph.F332} {
			m, child := buildGMLS(t, pt, rest, pos, ct, pts, radii)
			off, _ := m.Neighbours()
			n := len(pts) / 3
			if k := off[n-3] - off[n-4]; k != 1 {
				t.Fatalf("the point by the isolated node has %d neighbours, want 1", k)
			}
			if k := off[n] - off[n-1]; k != 2 {
				t.Fatalf("the point by the isolated pair has %d neighbours, want 2", k)
			}
			y := child.Vec(graph.Position)
			sz := ct.CoordSize()
			for p := 0; p < n; p++ {
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
			// The rest configuration maps to the rest points, F = I, ∇F = 0.
			yr := child.Vec(graph.RestPosition)
			for p := 0; p < n; p++ {
				var want []float64
				switch ct {
				case graph.Vec3:
					want = pts[3*p : 3*p+3]
				default:
					I := geom.Identity3()
					want = append(want, I[:]...)
					if ct == graph.F332 {
						want = append(want, make([]float64, 27)...)
					}
				}
				worst = math.Max(worst, maxAbsDiff(yr[sz*p:sz*p+sz], want))
			}
		}
		t.Logf("%s nodes: largest error of x, F, ∇F: %.3g", pt.Name(), worst)
		if worst > 1e-12 {
			t.Errorf("%s nodes: patch test error %.3g > 1e-12", pt.Name(), worst)
		}
	}
}

// TestGMLSMappingErrors: wrong templates, a rest node that is not [X̄, I,
// 0], no radius, and a point outside every support are refused with a
// message naming the problem.
func TestGMLSMappingErrors(t *testing.T) {
	scene := func(tmpl, pos, child, fields string) string {
		return `
[[node]]
name = "nodes"
  [[node.object]]
  type = "MechanicalObject"
  template = "` + tmpl + `"
  position = ` + pos + `
  [[node.node]]
  name = "points"
    [[node.node.object]]
    type = "MechanicalObject"
    template = "Vec3"
    position = ` + child + `
    [[node.node.object]]
    type = "GMLSMapping"
    ` + fields + `
`
	}
	affine := "[[0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1], [1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1]]"
	for _, c := range []struct{ text, want string }{
		{scene("Rigid3", "[[0, 0, 0, 0, 0, 0, 1]]", "[[0.1, 0, 0]]", "radius = 1"), "Affine3"},
		{scene("Affine3", "[[0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 1]]", "[[0.1, 0, 0]]", "radius = 1"), "identity gradient"},
		{scene("Affine3", affine, "[[0.1, 0, 0]]", ""), "no support radius"},
		{scene("Affine3", affine, "[[0.1, 0, 0]]", "radius = 1\n    radii = [1, 1]"), "radius or radii"},
		{scene("Affine3", affine, "[[0.1, 0, 0]]", "radii = [1, 1, 1]"), "3 support radii for 2 nodes"},
		{scene("Affine3", affine, "[[0.5, 0, 0], [3, 0, 0]]", "radius = 0.8"), "outside the support"},
	} {
		err := loadErr(c.text)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want one mentioning %q", err, c.want)
		}
	}
}

// TestGMLSMappingReinit: nodes appended to the parent (carrying the same
// affine motion), new radii and more points, then Reinit: the child is
// resized, the old points keep their mapped positions (the motion is
// reproduced by any node set), the new ones are mapped, and the fixture
// still passes.
func TestGMLSMappingReinit(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 2))
	q := randomQuadraticMap(rng, 0)
	centres := randomCentres(rng, 30)
	pts := make([]float64, 3*50)
	for i := range pts {
		pts[i] = 1.2*rng.Float64() - 0.6
	}
	m, child := buildGMLS(t, graph.Affine3, gmlsRest(graph.Affine3, centres), gmlsFollow(graph.Affine3, q, centres), graph.Vec3, pts, []float64{0.8})
	before := append([]float64(nil), child.Vec(graph.Position)...)
	parent := m.From().(*graph.MechanicalObject)
	more := []geom.Vec3{{0.1, 0.2, 0.3}, {-0.4, 0.1, 0.0}}
	parent.Resize(len(centres) + len(more))
	copy(parent.Vec(graph.RestPosition)[12*len(centres):], gmlsRest(graph.Affine3, more))
	copy(parent.Vec(graph.Position)[12*len(centres):], gmlsFollow(graph.Affine3, q, more))
	pts = append(pts, 0.05, -0.1, 0.2, 0.3, 0.3, -0.3)
	m.SetRestPoints(pts)
	m.SetRadii([]float64{0.7})
	if err := m.Reinit(); err != nil {
		t.Fatal(err)
	}
	if child.Size() != 52 {
		t.Fatalf("child has %d points after Reinit, want 52", child.Size())
	}
	x := child.Vec(graph.Position)
	if d := maxAbsDiff(x[:150], before); d > 1e-13 {
		t.Errorf("old points moved by %.3g at Reinit", d)
	}
	for p := 50; p < 52; p++ {
		want, _, _ := q.at(geom.At(pts, p))
		if d := maxAbsDiff(x[3*p:3*p+3], want[:]); d > 1e-13 {
			t.Errorf("new point %d off the motion by %.3g", p, d)
		}
	}
	graphtest.CheckMapping(t, m, parent.Vec(graph.Position), graphtest.Options{Tolerance: fdTolerance})
}
