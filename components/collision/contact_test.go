package collision

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
	"github.com/sofago/sofago/meshio"
)

// flatInteraction presents an interaction force field over several Vec3
// states as a force field over their concatenation, for the fixtures.
type flatInteraction struct {
	graph.ObjectBase
	ia    graph.InteractionForceField
	sizes []int // numbers per state
}

func (f *flatInteraction) split(v []float64) [][]float64 {
	out := make([][]float64, len(f.sizes))
	off := 0
	for i, n := range f.sizes {
		out[i] = v[off : off+n]
		off += n
	}
	return out
}

func (f *flatInteraction) AddForce(force, x, v []float64) {
	f.ia.AddForce(f.split(force), f.split(x), f.split(v))
}
func (f *flatInteraction) AddDForce(df, dx []float64, kFactor, bFactor float64) {
	f.ia.AddDForce(f.split(df), f.split(dx), kFactor, bFactor)
}
func (f *flatInteraction) PotentialEnergy(x []float64) float64 {
	return f.ia.PotentialEnergy(f.split(x))
}

func flatten(ia graph.InteractionForceField) (*flatInteraction, []float64) {
	f := &flatInteraction{ObjectBase: graph.ObjectBase{TypeName: "PenaltyContactForceField"}, ia: ia}
	var x []float64
	for _, s := range ia.States() {
		f.sizes = append(f.sizes, len(s.Vec(graph.Position)))
		x = append(x, s.Vec(graph.Position)...)
	}
	return f, x
}

// TestContactTangent checks the object–object contact force field the
// pipeline builds between two objects of one solver (two spheres of 312
// triangles pressed 2 cm into each other, both directions of contact, with
// dashpot and friction): force = −∇W and AddDForce = the derivative of
// AddForce by central differences (issue 8's item 4), at rest and, with
// the damping product, at random velocities. The contacts' normals and
// barycentric weights are constants of the step (detection), so away
// from the switches (δ = 0, λ = 0, which the configuration keeps more than
// the step away from) the force is smooth and the tangent exact: the
// fixture's default 1e-6 applies.
func TestContactTangent(t *testing.T) {
	_, pl := twoSpheresScene(t, 0.1, 24, 13, 0.02, 0.03)
	pl.Damping, pl.Friction, pl.SlipVelocity = 30, 0.4, 0.05
	if err := pl.DetectContacts(0); err != nil {
		t.Fatal(err)
	}
	n, d := pl.ContactStats()
	if len(pl.interactions) != 1 || n < 20 {
		t.Fatalf("%d interactions, %d contacts: the spheres should be pressed together", len(pl.interactions), n)
	}
	t.Logf("%d contacts penetrating (largest %.3g mm), %d candidates", n, d*1e3, len(pl.interactions[0].set.list))
	ff, x := flatten(pl.interactions[0])
	graphtest.CheckForceField(t, ff, graph.Vec3, x, nil, graphtest.Options{})
	rng := rand.New(rand.NewPCG(5, 6))
	v := graphtest.RandomDeriv(rng, len(x), 0.1)
	graphtest.CheckForceField(t, ff, graph.Vec3, x, v, graphtest.Options{SkipEnergy: true, CheckDamping: true})
}

// staticSecondSphere makes the second model of twoSpheresScene's pipeline
// static, as if no solver were above it (dashpot and friction on), and
// detects the contacts; it returns the moving and the static model.
func staticSecondSphere(t *testing.T, pl *CollisionPipeline) (st, sb *model) {
	t.Helper()
	pl.Damping, pl.Friction, pl.SlipVelocity = 30, 0.4, 0.05
	st, sb = pl.models[0], pl.models[1]
	sb.solver = nil
	for _, ps := range pl.pairs {
		switch {
		case ps.a == st && ps.b == sb:
			ps.coupling = coupleStaticB
		case ps.a == sb && ps.b == st:
			ps.coupling = coupleStaticA
		}
	}
	if err := pl.DetectContacts(0); err != nil {
		t.Fatal(err)
	}
	return st, sb
}

// TestContactAgainstStaticObject checks the contacts a moving object gets
// from a static one (no solver above it): they live in the moving object's
// collision model, a force field on its own state, evaluated against the
// static surface where it is; same fixture, both the point side (the
// moving sphere's vertices in the static one) and the triangle side (the
// static sphere's vertices in the moving one, whose triangles carry the
// force by barycentric weights).
func TestContactAgainstStaticObject(t *testing.T) {
	s, pl := twoSpheresScene(t, 0.1, 24, 13, 0.02, 0.03)
	st, sb := staticSecondSphere(t, pl)
	col := graphtest.Find[*TriangleCollisionModel](t, s, "world/a/collision")
	n, _ := pl.ContactStats()
	t.Logf("%d contacts, %d on the moving model", n, len(st.oneSided.list))
	if n < 4 || len(sb.oneSided.list) != 0 {
		t.Fatalf("contacts: %d on the moving model, %d on the static one", len(st.oneSided.list), len(sb.oneSided.list))
	}
	x := append([]float64(nil), st.state.Vec(graph.Position)...)
	graphtest.CheckForceField(t, col, graph.Vec3, x, nil, graphtest.Options{})
	v := graphtest.RandomDeriv(rand.New(rand.NewPCG(7, 8)), len(x), 0.1)
	graphtest.CheckForceField(t, col, graph.Vec3, x, v, graphtest.Options{SkipEnergy: true, CheckDamping: true})
}

// TestDetectionAgainstBruteForce compares the pipeline's contacts with a
// brute-force reference: for every vertex of sphere a, the closest point
// over all triangles of sphere b, and inside/outside by the generalized
// winding number (meshio, an independent inside test). Every vertex within
// contactDistance of b's surface must be a contact with the same distance
// (to 1e-12) and the same side; no other vertex may be.
func TestDetectionAgainstBruteForce(t *testing.T) {
	const alarm = 0.01
	s, pl := twoSpheresScene(t, 0.1, 60, 31, 0.01, alarm)
	xa := graphtest.Find[graph.State](t, s, "world/a/dofs").Vec(graph.Position)
	xb := graphtest.Find[graph.State](t, s, "world/b/dofs").Vec(graph.Position)
	trisB := s.Root.Child("world").Child("b").Topology().Triangles()
	w := meshio.NewWinding(&meshio.Mesh{Points: xb, Triangles: trisB})
	type ref struct{ delta float64 }
	want := map[int32]float64{}
	for i := 0; i < len(xa)/3; i++ {
		p := geom.At(xa, i)
		best := math.Inf(1)
		for _, tr := range trisB {
			q, _, _ := closestOnTriangle(p, geom.At(xb, tr[0]), geom.At(xb, tr[1]), geom.At(xb, tr[2]))
			best = math.Min(best, q.Sub(p).Norm())
		}
		if best < alarm {
			if w.At([3]float64{p[0], p[1], p[2]}) > 0.5 {
				want[int32(i)] = best
			} else {
				want[int32(i)] = -best
			}
		}
	}
	got := map[int32]float64{}
	for _, c := range pl.interactions[0].set.list {
		if c.k == 4 && c.slot[0] == 0 { // a's vertices in b
			xs := [][]float64{xa, xb}
			got[c.dof[0]] = -c.combine(xs, true).Dot(c.n)
		}
	}
	inside, outside := 0, 0
	for i, d := range want {
		g, ok := got[i]
		if !ok {
			t.Errorf("vertex %d at signed depth %.6g is not a contact", i, d)
			continue
		}
		if math.Abs(g-d) > 1e-12 {
			t.Errorf("vertex %d: depth %.15g, brute force %.15g", i, g, d)
		}
		if d > 0 {
			inside++
		} else {
			outside++
		}
	}
	for i := range got {
		if _, ok := want[i]; !ok {
			t.Errorf("vertex %d is a contact but lies farther than contactDistance", i)
		}
	}
	t.Logf("%d vertices of a within %g m of b: %d inside, %d outside", len(want), alarm, inside, outside)
	if inside < 10 || outside < 10 {
		t.Errorf("%d vertices inside, %d outside: the configuration does not test both sides", inside, outside)
	}
}

// TestExplicitCoupling checks the contacts between objects of different
// solvers: the normal forces are computed at detection and held (equal and
// opposite: force and torque sum to zero over both objects), and the
// friction each object gets against the other's velocity at detection is a
// force field of its own velocity whose derivative (the b-term) passes the
// fixture; the held forces have no stiffness, so K·d = 0 is exact too.
func TestExplicitCoupling(t *testing.T) {
	s, pl := twoSpheresScene(t, 0.1, 24, 13, 0.02, 0.03)
	pl.Damping, pl.Friction, pl.SlipVelocity = 30, 0.4, 0.05
	ma, mb := pl.models[0], pl.models[1]
	for _, ps := range pl.pairs {
		ps.coupling = coupleExplicit
	}
	rng := rand.New(rand.NewPCG(9, 10))
	for _, m := range pl.models {
		v := m.state.Vec(graph.Velocity)
		copy(v, graphtest.RandomDeriv(rng, len(v), 0.1))
	}
	if err := pl.DetectContacts(0); err != nil {
		t.Fatal(err)
	}
	n, _ := pl.ContactStats()
	if n < 20 || !ma.hasHeld || !mb.hasHeld {
		t.Fatalf("%d contacts, held forces on a: %v, b: %v", n, ma.hasHeld, mb.hasHeld)
	}
	// Held forces: zero total force and torque about the origin.
	var f, tq geom.Vec3
	for _, m := range pl.models {
		x := m.state.Vec(graph.Position)
		for i := 0; i < len(m.held)/3; i++ {
			fi := geom.At(m.held, i)
			f = f.Add(fi)
			tq = tq.Add(geom.At(x, i).Cross(fi))
		}
	}
	scale := 0.0
	for _, h := range ma.held {
		scale = math.Max(scale, math.Abs(h))
	}
	t.Logf("%d contacts; held forces sum to %.3g N, torque %.3g N·m (largest entry %.3g N)", n, f.Norm(), tq.Norm(), scale)
	// The force on p and its counterpart spread over the triangle (acting
	// at c = Σ w y) lie along n, parallel to p − c: torques balance too.
	if f.Norm() > 1e-12*scale || tq.Norm() > 1e-12*scale {
		t.Errorf("held forces are not equal and opposite: they sum to %v, torque %v", f, tq)
	}
	for _, name := range []string{"a", "b"} {
		col := graphtest.Find[*TriangleCollisionModel](t, s, "world/"+name+"/collision")
		x := append([]float64(nil), col.m.state.Vec(graph.Position)...)
		v := append([]float64(nil), col.m.state.Vec(graph.Velocity)...)
		graphtest.CheckForceField(t, col, graph.Vec3, x, v, graphtest.Options{SkipEnergy: true, CheckDamping: true})
	}
}
