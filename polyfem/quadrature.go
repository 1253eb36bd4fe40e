package polyfem

import (
	"fmt"
	"math"

	"github.com/sofago/sofago/geom"
)

// tetRule is a quadrature rule on a tetrahedron: barycentric points and
// weights summing to 1 (to be scaled by the volume).
type tetRule struct {
	points  [][4]float64
	weights []float64
}

// tetRules are the rules by degree of exactness:
//   - 1: the centroid;
//   - 2: four points at barycentric (a, b, b, b), a = (5 + 3√5)/20,
//     b = (5 − √5)/20, weights ¼ (Keast 1986);
//   - 5: fifteen points, all weights positive (Stroud's T3:5-1, Keast's
//     rule 6): the centroid (16/135), two orbits of four points
//     (a, a, a, 1 − 3a) with a = (7 ∓ √15)/34 and weights
//     (2665 ± 14√15)/37800, and the six points (b, b, ½ − b, ½ − b),
//     b = (10 − 2√15)/40, weights 10/189.
//
// TestTetRulesExact checks each against ∫ x^i y^j z^k over the unit
// tetrahedron, i!j!k!/(i+j+k+3)!, for every monomial of its degree.
var tetRules = map[int]tetRule{
	1: {points: [][4]float64{{0.25, 0.25, 0.25, 0.25}}, weights: []float64{1}},
	2: func() tetRule {
		a, b := (5+3*math.Sqrt(5))/20, (5-math.Sqrt(5))/20
		return tetRule{
			points:  [][4]float64{{a, b, b, b}, {b, a, b, b}, {b, b, a, b}, {b, b, b, a}},
			weights: []float64{0.25, 0.25, 0.25, 0.25},
		}
	}(),
	5: func() tetRule {
		r := tetRule{points: [][4]float64{{0.25, 0.25, 0.25, 0.25}}, weights: []float64{16.0 / 135}}
		s15 := math.Sqrt(15)
		for _, o := range []struct{ a, w float64 }{
			{(7 - s15) / 34, (2665 + 14*s15) / 37800},
			{(7 + s15) / 34, (2665 - 14*s15) / 37800},
		} {
			b := 1 - 3*o.a
			for k := 0; k < 4; k++ {
				p := [4]float64{o.a, o.a, o.a, o.a}
				p[k] = b
				r.points = append(r.points, p)
				r.weights = append(r.weights, o.w)
			}
		}
		b := (10 - 2*s15) / 40
		c := 0.5 - b
		for _, pair := range [][2]int{{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}} {
			p := [4]float64{c, c, c, c}
			p[pair[0]], p[pair[1]] = b, b
			r.points = append(r.points, p)
			r.weights = append(r.weights, 10.0/189)
		}
		return r
	}(),
}

// Degrees lists the quadrature degrees Rule accepts.
var Degrees = []int{1, 2, 5}

// triRule5 is the seven-point degree-5 rule on a triangle (Radon 1948):
// barycentric points and weights summing to 1.
var triRule5 = func() (pts [][3]float64, w []float64) {
	s15 := math.Sqrt(15)
	pts = append(pts, [3]float64{1.0 / 3, 1.0 / 3, 1.0 / 3})
	w = append(w, 9.0/40)
	for _, o := range []struct{ a, w float64 }{
		{(6 - s15) / 21, (155 - s15) / 1200},
		{(6 + s15) / 21, (155 + s15) / 1200},
	} {
		b := 1 - 2*o.a
		pts = append(pts, [3]float64{b, o.a, o.a}, [3]float64{o.a, b, o.a}, [3]float64{o.a, o.a, b})
		w = append(w, o.w, o.w, o.w)
	}
	return pts, w
}

// QuadPoint is a quadrature point of a cell: its position and weight
// (its share of the cell's volume).
type QuadPoint struct {
	X geom.Vec3
	W float64
}

// subTets returns the tetrahedra of the cell's subdivision: from the
// cell's centre to each face triangle, a triangular face as it is, a
// larger face fanned from its centre (the mean of its vertices).
func (m *Mesh) subTets(e int) [][4]geom.Vec3 {
	c := m.CellCentre(e)
	var out [][4]geom.Vec3
	for _, f := range m.Cells[e].Faces {
		if len(f) == 3 {
			out = append(out, [4]geom.Vec3{c, geom.At(m.Points, f[0]), geom.At(m.Points, f[1]), geom.At(m.Points, f[2])})
			continue
		}
		fc := faceCentre(m.Points, f)
		for i := range f {
			out = append(out, [4]geom.Vec3{c, fc, geom.At(m.Points, f[i]), geom.At(m.Points, f[(i+1)%len(f)])})
		}
	}
	return out
}

// Rule returns the quadrature points of cell e: the rule of the given
// degree (1, 2 or 5) on every tetrahedron of its subdivision (subTets).
// Their weights sum to the cell's volume (CellVolume).
func (m *Mesh) Rule(e, degree int) ([]QuadPoint, error) {
	r, ok := tetRules[degree]
	if !ok {
		return nil, fmt.Errorf("quadrature degree %d: want one of %v", degree, Degrees)
	}
	var out []QuadPoint
	for _, t := range m.subTets(e) {
		vol := t[1].Sub(t[0]).Dot(t[2].Sub(t[0]).Cross(t[3].Sub(t[0]))) / 6
		for q, b := range r.points {
			x := t[0].Scale(b[0]).Add(t[1].Scale(b[1])).Add(t[2].Scale(b[2])).Add(t[3].Scale(b[3]))
			out = append(out, QuadPoint{X: x, W: vol * r.weights[q]})
		}
	}
	return out, nil
}
