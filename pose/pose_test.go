package pose

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sofago/sofago/components/topology"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/meshio"
)

// boxMesh is RegularGridTopology's mesh of a bar along x.
func boxMesh(t *testing.T, n [3]int) *meshio.Mesh {
	t.Helper()
	g, err := topology.NewRegularGrid([3]float64{0, -0.1, -0.1}, [3]float64{1, 0.1, 0.1}, n)
	if err != nil {
		t.Fatal(err)
	}
	return &meshio.Mesh{Points: g.Points(), Tetrahedra: g.Tetrahedra(), Triangles: g.Triangles()}
}

func randomPoints(rng *rand.Rand, n int) []geom.Vec3 {
	p := make([]geom.Vec3, n)
	for i := range p {
		p[i] = geom.Vec3{1.4*rng.Float64() - 0.2, 0.2 * (2*rng.Float64() - 1), 0.2 * (2*rng.Float64() - 1)}
	}
	return p
}

// rigidAmong checks that d moves the points like one rigid motion (pairwise
// distances kept, orientation kept) to tol.
func rigidAmong(t *testing.T, what string, d Deformation, pts []geom.Vec3, tol float64) {
	t.Helper()
	for i := 0; i+3 < len(pts); i += 4 {
		a, b, c, e := pts[i], pts[i+1], pts[i+2], pts[i+3]
		A, B, C, E := d.Apply(a), d.Apply(b), d.Apply(c), d.Apply(e)
		for _, pr := range [][4]geom.Vec3{{a, b, A, B}, {a, c, A, C}, {b, e, B, E}} {
			if err := math.Abs(pr[0].Sub(pr[1]).Norm() - pr[2].Sub(pr[3]).Norm()); err > tol {
				t.Fatalf("%s: a distance changed by %.3g", what, err)
			}
		}
		v0 := b.Sub(a).Cross(c.Sub(a)).Dot(e.Sub(a))
		v1 := B.Sub(A).Cross(C.Sub(A)).Dot(E.Sub(A))
		if math.Abs(v0-v1) > tol {
			t.Fatalf("%s: an oriented volume changed from %.6g to %.6g", what, v0, v1)
		}
	}
}

// TestTwist: before the slab nothing moves; inside, every point turns about
// the axis by Angle·(s − From)/(To − From), keeping its axial coordinate
// and its distance to the axis; beyond, the part turns rigidly by Angle.
func TestTwist(t *testing.T) {
	tw := Twist{Center: geom.Vec3{0, 0.02, -0.01}, Axis: geom.Vec3{2, 0, 0}, From: 0.2, To: 0.7, Angle: 2.5}
	if err := tw.Validate(); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var beyond []geom.Vec3
	for _, p := range randomPoints(rng, 4000) {
		q := tw.Apply(p)
		rel, relQ := p.Sub(tw.Center), q.Sub(tw.Center)
		axial := func(v geom.Vec3) float64 { return v[0] }
		radial := func(v geom.Vec3) (float64, float64) { return math.Hypot(v[1], v[2]), math.Atan2(v[2], v[1]) }
		switch {
		case p[0] <= tw.From:
			if q != p {
				t.Fatalf("%v before the slab moved to %v", p, q)
			}
		default:
			want := tw.Angle * math.Min(1, (p[0]-tw.From)/(tw.To-tw.From))
			r0, a0 := radial(rel)
			r1, a1 := radial(relQ)
			turn := math.Remainder(a1-a0, 2*math.Pi)
			// Rotations of unit-size vectors: rounding only.
			if math.Abs(axial(relQ)-axial(rel)) > 1e-15 || math.Abs(r1-r0) > 1e-15 || math.Abs(turn-math.Remainder(want, 2*math.Pi)) > 1e-12 {
				t.Fatalf("%v → %v: axial %.3g → %.3g, radius %.6g → %.6g, turned %.6g, want %.6g", p, q, axial(rel), axial(relQ), r0, r1, turn, want)
			}
			if p[0] >= tw.To {
				beyond = append(beyond, p)
			}
		}
	}
	rigidAmong(t, "beyond the twist", tw, beyond, 1e-14)
}

// TestBend: the slab's neutral line (through Center along Axis) becomes a
// circular arc of radius ρ = (To − From)/Angle keeping its length; a line
// of material offset u toward Toward has length (ρ − u)·Angle; beyond the
// slab the part moves rigidly, continuously at To, with its axis turned by
// Angle toward Toward.
func TestBend(t *testing.T) {
	b := Bend{Center: geom.Vec3{0, 0, 0}, Axis: geom.Vec3{1, 0, 0}, Toward: geom.Vec3{0.3, 1, 0}, From: 0.25, To: 0.75, Angle: 1.2}
	if err := b.Validate(); err != nil {
		t.Fatal(err)
	}
	rho := (b.To - b.From) / b.Angle
	centre := geom.Vec3{b.From, rho, 0} // the toward direction, made perpendicular, is +y
	for _, u := range []float64{0, 0.05, -0.08} {
		length, prev := 0.0, b.Apply(geom.Vec3{b.From, u, 0.03})
		const n = 2000
		for k := 1; k <= n; k++ {
			s := b.From + (b.To-b.From)*float64(k)/n
			q := b.Apply(geom.Vec3{s, u, 0.03})
			if u == 0 {
				if r := math.Hypot(q[0]-centre[0], q[1]-centre[1]); math.Abs(r-rho) > 1e-14 {
					t.Fatalf("neutral line point at s = %g is %.15g from the arc's centre, want %.15g", s, r, rho)
				}
				if q[2] != 0.03 {
					t.Fatalf("the bend moved a point out of its plane: %v", q)
				}
			}
			length += q.Sub(prev).Norm()
			prev = q
		}
		want := (rho - u) * b.Angle
		// A polygon of 2000 chords under an arc: relative error θ²/24 per
		// chord, (1.2/2000)²/24 ≈ 1.5e-8.
		if math.Abs(length-want) > 2e-8*want {
			t.Errorf("fibre at u = %g has length %.10g, want (ρ − u)·angle = %.10g", u, length, want)
		}
	}
	// Continuity at To and the end direction.
	for _, u := range []float64{0, 0.07} {
		in, out := b.Apply(geom.Vec3{b.To - 1e-9, u, 0}), b.Apply(geom.Vec3{b.To + 1e-9, u, 0})
		if d := in.Sub(out).Norm(); d > 3e-9 {
			t.Errorf("the bend jumps by %.3g at To", d)
		}
	}
	dir := b.Apply(geom.Vec3{1.3, 0, 0}).Sub(b.Apply(geom.Vec3{1.0, 0, 0})).Normalized()
	want := geom.Vec3{math.Cos(b.Angle), math.Sin(b.Angle), 0}
	if d := dir.Sub(want).Norm(); d > 1e-14 {
		t.Errorf("the part beyond the slab points along %v, want %v", dir, want)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	var beyond []geom.Vec3
	for _, p := range randomPoints(rng, 400) {
		if p[0] >= b.To {
			beyond = append(beyond, p)
		}
	}
	rigidAmong(t, "beyond the bend", b, beyond, 1e-14)
}

// TestScale: on a grid whose planes contain the slab's ends, the slab's
// volume is multiplied by Lateral²·Axial exactly (Blend = 0), the mesh
// beyond the cell layers next to the slab keeps its volume, and the part
// beyond the slab is shifted along the
// axis by (Axial − 1)·(To − From); with a blend, the shift is
// (Axial − 1)·(To − From − Blend) and every tetrahedron stays positive.
func TestScale(t *testing.T) {
	m := boxMesh(t, [3]int{11, 5, 5}) // planes every 0.1 along x
	sc := Scale{Center: geom.Vec3{0, 0, 0}, Axis: geom.Vec3{1, 0, 0}, From: 0.3, To: 0.6, Lateral: 1.5, Axial: 0.8}
	out, bad, err := Mesh(m, sc)
	if err != nil {
		t.Fatal(err)
	}
	if len(bad) > 0 {
		t.Fatalf("%d tetrahedra inverted", len(bad))
	}
	centroidX := func(mm *meshio.Mesh, e int) float64 {
		s := 0.0
		for _, v := range m.Tetrahedra[e] {
			s += m.Points[3*v]
		}
		_ = mm
		return s / 4
	}
	var inSlab, inSlab0, rest, rest0 float64
	for e := range m.Tetrahedra {
		switch c := centroidX(m, e); {
		case c > sc.From && c < sc.To:
			inSlab += out.TetVolume(e)
			inSlab0 += m.TetVolume(e)
		case c < sc.From-0.1 || c > sc.To+0.1: // beyond the cell layers that take the jump
			rest += out.TetVolume(e)
			rest0 += m.TetVolume(e)
		}
	}
	want := inSlab0 * sc.Lateral * sc.Lateral * sc.Axial
	// Sums of ~100 volumes: rounding.
	if math.Abs(inSlab-want) > 1e-14 || math.Abs(rest-rest0) > 1e-14 {
		t.Errorf("slab volume %.15g (want %.15g), outside %.15g (want %.15g)", inSlab, want, rest, rest0)
	}
	end := sc.Apply(geom.Vec3{1, 0.1, 0.1})
	if d := end.Sub(geom.Vec3{1 + (sc.Axial-1)*(sc.To-sc.From), 0.1, 0.1}).Norm(); d > 1e-15 {
		t.Errorf("the end moved to %v", end)
	}
	blended := sc
	blended.Blend = 0.1
	out, bad, err = Mesh(m, blended)
	if err != nil || len(bad) > 0 {
		t.Fatalf("blended scale: %v, %d inverted", err, len(bad))
	}
	if got, want := blended.Apply(geom.Vec3{1, 0, 0})[0], 1+(sc.Axial-1)*(sc.To-sc.From-blended.Blend); math.Abs(got-want) > 1e-15 {
		t.Errorf("blended: the end is at x = %.15g, want %.15g", got, want)
	}
	_ = out
}

// TestMeshReportsInvertedTetrahedra: bending a slab tighter than the bar is
// thick (radius below the half thickness) turns the inner side inside out,
// and Mesh says which tetrahedra; a moderate twist inverts none.
func TestMeshReportsInvertedTetrahedra(t *testing.T) {
	m := boxMesh(t, [3]int{11, 3, 3})
	_, bad, err := Mesh(m, Bend{Axis: geom.Vec3{1, 0, 0}, Toward: geom.Vec3{0, 1, 0}, From: 0.4, To: 0.5, Angle: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(bad) == 0 {
		t.Errorf("a bend of radius 0.05 on a bar 0.2 thick inverted nothing")
	}
	_, bad, err = Mesh(m, Twist{Axis: geom.Vec3{1, 0, 0}, From: 0, To: 1, Angle: math.Pi})
	if err != nil || len(bad) > 0 {
		t.Errorf("a half-turn twist over the bar: %v, %d inverted", err, len(bad))
	}
}

// TestValidate: malformed deformations are errors, and Apply checks them.
func TestValidate(t *testing.T) {
	x := geom.Vec3{1, 0, 0}
	cases := []struct {
		d    Deformation
		want string
	}{
		{Twist{Axis: geom.Vec3{}, From: 0, To: 1, Angle: 1}, "non-zero"},
		{Twist{Axis: x, From: 1, To: 1, Angle: 1}, "from < to"},
		{Twist{Axis: x, From: 0, To: 1, Angle: math.NaN()}, "finite"},
		{Bend{Axis: x, Toward: x, From: 0, To: 1, Angle: 1}, "perpendicular"},
		{Scale{Axis: x, From: 0, To: 1, Lateral: 0, Axial: 1}, "positive"},
		{Scale{Axis: x, From: 0, To: 1, Lateral: 1, Axial: 1, Blend: 0.6}, "blend"},
	}
	for _, c := range cases {
		err := c.d.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.d, err, c.want)
		}
		if _, err := Apply([]float64{0, 0, 0}, c.d); err == nil {
			t.Errorf("%+v: Apply accepted it", c.d)
		}
	}
}

// TestBulge: outside the band nothing moves; at mid-height inside it the
// offsets along out from the centre plane grow by 1 + Amount and heights
// shrink by Axial; the slab's ends (t = 0, 1) do not bulge; the ramp is
// continuous; a moderate bulge inverts no tetrahedron.
func TestBulge(t *testing.T) {
	b := Bulge{Center: geom.Vec3{0.5, 0, 0.1}, Axis: geom.Vec3{0, 1, 0}, Out: geom.Vec3{0, 0, 1},
		Across: geom.Vec3{1, 0, 0}, From: 0, To: 0.2, AcrossFrom: 0, AcrossTo: 0.4, Blend: 0.1, Amount: 0.3, Axial: 0.8}
	if err := b.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []geom.Vec3{{0.5, 0.1, 0.2}, {0.41, 0.2, 0}, {-0.01, 0.05, 0.2}} {
		if q := b.Apply(p); q != p {
			t.Errorf("%v outside the band moved to %v", p, q)
		}
	}
	// Inside the band's flat part, at mid-height: y 0.1 → 0.08, z − 0.1 scaled 1.3.
	q := b.Apply(geom.Vec3{0.2, 0.1, 0.2})
	if d := q.Sub(geom.Vec3{0.2, 0.08, 0.1 + 0.1*1.3}).Norm(); d > 1e-15 {
		t.Errorf("mid-height point moved to %v", q)
	}
	// Top of the slab: no bulge, height scaled.
	q = b.Apply(geom.Vec3{0.2, 0.2, 0.2})
	if d := q.Sub(geom.Vec3{0.2, 0.16, 0.2}).Norm(); d > 1e-15 {
		t.Errorf("top point moved to %v", q)
	}
	// Continuity across the ramp's outer edge.
	a, c := b.Apply(geom.Vec3{0.4 - 1e-9, 0.1, 0.2}), geom.Vec3{0.4 - 1e-9, 0.1, 0.2}
	if a.Sub(c).Norm() > 1e-9 {
		t.Errorf("jump at the band's edge: %v", a.Sub(c))
	}
	m := boxMesh(t, [3]int{11, 5, 5})
	if _, bad, err := Mesh(m, Bulge{Center: geom.Vec3{0.5, 0.1, 0.1}, Axis: geom.Vec3{0, 1, 0}, Out: geom.Vec3{0, 0, 1}, From: 0, To: 0.2, Amount: 0.3, Axial: 0.8}); err != nil || len(bad) > 0 {
		t.Errorf("a whole-slab bulge: %v, %d inverted", err, len(bad))
	}
	for _, bad := range []Bulge{
		{Axis: geom.Vec3{0, 1, 0}, Out: geom.Vec3{0, 1, 0}, From: 0, To: 1, Axial: 1},
		{Axis: geom.Vec3{0, 1, 0}, Out: geom.Vec3{0, 0, 1}, From: 0, To: 1, Axial: 0},
		{Axis: geom.Vec3{0, 1, 0}, Out: geom.Vec3{0, 0, 1}, From: 0, To: 1, Axial: 1, Amount: -1},
		{Axis: geom.Vec3{0, 1, 0}, Out: geom.Vec3{0, 0, 1}, Across: geom.Vec3{1, 0, 0}, From: 0, To: 1, AcrossFrom: 0, AcrossTo: 1, Blend: 0.6, Axial: 1},
	} {
		if bad.Validate() == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}
