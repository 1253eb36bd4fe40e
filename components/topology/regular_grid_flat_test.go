package topology

import (
	"math"
	"strings"
	"testing"
)

// TestRegularGridFlat: n = 1 along one axis gives a flat sheet of
// triangles in the plane min = max of that axis, for each of the three
// axes: (n₀−1)(n₁−1) cells of two triangles each, tiling the rectangle
// (their areas sum to it), every normal along the flat axis' positive
// direction, the diagonals alternating from cell to cell, no
// tetrahedra.
func TestRegularGridFlat(t *testing.T) {
	for flat := 0; flat < 3; flat++ {
		min, max := [3]float64{-1, 0.5, 2}, [3]float64{1, 1.5, 4}
		n := [3]int{5, 4, 6}
		max[flat], n[flat] = min[flat], 1
		g, err := NewRegularGrid(min, max, n)
		if err != nil {
			t.Fatalf("flat axis %d: %v", flat, err)
		}
		if g.Flat() != flat || len(g.Tetrahedra()) != 0 {
			t.Errorf("flat axis %d: Flat() = %d, %d tetrahedra", flat, g.Flat(), len(g.Tetrahedra()))
		}
		a0, a1 := (flat+1)%3, (flat+2)%3
		cells := (n[a0] - 1) * (n[a1] - 1)
		if got := len(g.Triangles()); got != 2*cells {
			t.Errorf("flat axis %d: %d triangles, want %d", flat, got, 2*cells)
		}
		p := g.Points()
		if len(p) != 3*n[0]*n[1]*n[2] {
			t.Fatalf("flat axis %d: %d points", flat, len(p)/3)
		}
		for i := 0; i < len(p)/3; i++ {
			if p[3*i+flat] != min[flat] {
				t.Fatalf("flat axis %d: point %d off the plane: %v", flat, i, p[3*i:3*i+3])
			}
		}
		area := 0.0
		diag := map[[2]int]bool{} // the diagonal of each cell, by its corner pair
		for _, tr := range g.Triangles() {
			var e1, e2 [3]float64
			for c := 0; c < 3; c++ {
				e1[c] = p[3*tr[1]+c] - p[3*tr[0]+c]
				e2[c] = p[3*tr[2]+c] - p[3*tr[0]+c]
			}
			nrm := [3]float64{e1[1]*e2[2] - e1[2]*e2[1], e1[2]*e2[0] - e1[0]*e2[2], e1[0]*e2[1] - e1[1]*e2[0]}
			if !(nrm[flat] > 0) || nrm[a0] != 0 || nrm[a1] != 0 {
				t.Errorf("flat axis %d: triangle %v has normal %v, want along +axis %d", flat, tr, nrm, flat)
			}
			area += nrm[flat] / 2
			for i := 0; i < 3; i++ {
				u, v := tr[i], tr[(i+1)%3]
				d0 := math.Abs(p[3*u+a0] - p[3*v+a0])
				d1 := math.Abs(p[3*u+a1] - p[3*v+a1])
				if d0 > 0 && d1 > 0 {
					diag[sorted(u, v)] = true
				}
			}
		}
		want := (max[a0] - min[a0]) * (max[a1] - min[a1])
		if math.Abs(area-want) > 1e-12*want {
			t.Errorf("flat axis %d: triangles cover %.15g, the rectangle is %.15g", flat, area, want)
		}
		if len(diag) != cells {
			t.Errorf("flat axis %d: %d diagonals for %d cells", flat, len(diag), cells)
		}
		// Checkerboard: the diagonals of two cells side by side cross.
		at := func(i, j int) int {
			var c [3]int
			c[a0], c[a1] = i, j
			return g.Index(c[0], c[1], c[2])
		}
		for i := 0; i+1 < n[a0]; i++ {
			for j := 0; j+1 < n[a1]; j++ {
				rising := diag[sorted(at(i, j), at(i+1, j+1))]
				falling := diag[sorted(at(i+1, j), at(i, j+1))]
				if rising == falling || rising != ((i+j)%2 == 0) {
					t.Errorf("flat axis %d, cell (%d, %d): rising diagonal %v, falling %v", flat, i, j, rising, falling)
				}
			}
		}
	}
}

func sorted(u, v int) [2]int {
	if u > v {
		return [2]int{v, u}
	}
	return [2]int{u, v}
}

// TestRegularGridFlatErrors: a flat axis needs min = max there, and only
// one axis may be flat.
func TestRegularGridFlatErrors(t *testing.T) {
	for _, c := range []struct {
		min, max [3]float64
		n        [3]int
		want     string
	}{
		{[3]float64{0, 0, 0}, [3]float64{1, 1, 1}, [3]int{3, 3, 1}, "set max[2] = min[2]"},
		{[3]float64{0, 0, 0}, [3]float64{1, 0, 0}, [3]int{3, 1, 1}, "at least 2 vertices along two axes"},
		{[3]float64{0, 0, 0}, [3]float64{1, 1, 0}, [3]int{3, 0, 1}, "need at least 2 vertices"},
	} {
		_, err := NewRegularGrid(c.min, c.max, c.n)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("n = %v, max = %v: error %v, want %q", c.n, c.max, err, c.want)
		}
	}
}
