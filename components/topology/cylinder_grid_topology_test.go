package topology

import (
	"math"
	"testing"

	"github.com/sofago/sofago/geom"
)

// TestCylinderGrid: the Scordelis–Lo patch (R = 25, L = 50, ±40°) with
// 5 × 7 vertices: every point at distance R from the axis, the ends at
// x = 0 and L and the arc's ends at ∓40°, 2 (n_x−1)(n_θ−1) triangles
// whose normals point away from the axis, the diagonals alternating, and
// the total area exactly L × the chord polygon's length, L (n_θ−1) 2R
// sin(Δθ/2) (each cell is a flat rectangle).
func TestCylinderGrid(t *testing.T) {
	g := &CylinderGridTopology{Radius: 25, Length: 50, Angles: [2]float64{-40, 40}, N: [2]int{5, 7}, Center: [3]float64{1, 2, 3}}
	if err := g.Init(); err != nil {
		t.Fatal(err)
	}
	p := g.Points()
	if len(p) != 3*35 {
		t.Fatalf("%d points", len(p)/3)
	}
	c := geom.Vec3{1, 2, 3}
	for i := 0; i < 35; i++ {
		q := geom.At(p, i).Sub(c)
		if r := math.Hypot(q[1], q[2]); math.Abs(r-25) > 1e-12 {
			t.Fatalf("point %d at distance %g from the axis", i, r)
		}
	}
	if q := geom.At(p, g.Index(4, 0)).Sub(c); math.Abs(q[0]-50) > 1e-12 || math.Abs(math.Atan2(q[1], q[2])*180/math.Pi+40) > 1e-12 {
		t.Errorf("vertex (4, 0) at %v", q)
	}
	if q := geom.At(p, g.Index(0, 6)).Sub(c); q[0] != 0 || math.Abs(math.Atan2(q[1], q[2])*180/math.Pi-40) > 1e-12 {
		t.Errorf("vertex (0, 6) at %v", q)
	}
	tris := g.Triangles()
	if len(tris) != 2*4*6 {
		t.Fatalf("%d triangles", len(tris))
	}
	area := 0.0
	for ti, tr := range tris {
		a, b, d := geom.At(p, tr[0]), geom.At(p, tr[1]), geom.At(p, tr[2])
		n := b.Sub(a).Cross(d.Sub(a))
		area += n.Norm() / 2
		mid := a.Add(b).Add(d).Scale(1.0 / 3).Sub(c)
		if n.Dot(geom.Vec3{0, mid[1], mid[2]}) <= 0 {
			t.Errorf("triangle %d %v points inwards", ti, tr)
		}
	}
	if ti := tris[0]; ti != [3]int{0, 1, 6} {
		t.Errorf("first cell cut along %v, want [0 1 6]", ti)
	}
	if ti := tris[2]; ti != [3]int{1, 2, 6} {
		t.Errorf("second cell cut along %v, want [1 2 6] (alternating diagonal)", ti)
	}
	want := 50 * 6 * 2 * 25 * math.Sin(80.0/6/2*math.Pi/180)
	if math.Abs(area-want) > 1e-10*want {
		t.Errorf("area %.12g, want %.12g", area, want)
	}
	for _, bad := range []CylinderGridTopology{
		{Radius: 1, Length: 1, Angles: [2]float64{0, 360}, N: [2]int{2, 2}},
		{Radius: 1, Length: 1, Angles: [2]float64{10, 0}, N: [2]int{2, 2}},
		{Radius: 1, Length: 1, Angles: [2]float64{0, 10}, N: [2]int{1, 2}},
	} {
		if bad.Validate() == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}
