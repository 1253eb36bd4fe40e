package forcefield_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sofago/sofago/components/forcefield"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

// vec3Interaction presents an interaction force field over Vec3 states as
// one force field on their concatenation (as interactionAsForceField does
// for Rigid3), so graphtest's fixtures check it across the states.
type vec3Interaction struct {
	graph.ObjectBase
	ia    graph.InteractionForceField
	sizes []int
}

func wrapVec3Interaction(ia graph.InteractionForceField) *vec3Interaction {
	w := &vec3Interaction{ObjectBase: graph.ObjectBase{TypeName: ia.Base().TypeName}, ia: ia}
	for _, s := range ia.States() {
		w.sizes = append(w.sizes, s.Size())
	}
	return w
}

func (w *vec3Interaction) split(v []float64) [][]float64 {
	out := make([][]float64, len(w.sizes))
	if v == nil {
		return out
	}
	o := 0
	for i, n := range w.sizes {
		out[i] = v[o : o+3*n]
		o += 3 * n
	}
	return out
}

func (w *vec3Interaction) concat(id graph.VecID) []float64 {
	var out []float64
	for _, s := range w.ia.States() {
		out = append(out, s.Vec(id)...)
	}
	return out
}

func (w *vec3Interaction) AddForce(f, x, v []float64) {
	w.ia.AddForce(w.split(f), w.split(x), w.split(v))
}

func (w *vec3Interaction) AddDForce(df, dx []float64, kFactor, bFactor float64) {
	w.ia.AddDForce(w.split(df), w.split(dx), kFactor, bFactor)
}

func (w *vec3Interaction) PotentialEnergy(x []float64) float64 {
	return w.ia.PotentialEnergy(w.split(x))
}

// pairSpringScene: one node with 5 points and a SpringForceField mixing the
// list form (rest distances, one given length) and the table form
// (stretched, compressed and zero-length springs, damping).
const pairSpringScene = `
[[node]]
name = "net"
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  position = [[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0.5], [0.5, 0.5, 1]]
  [[node.object]]
  type = "SpringForceField"
  name = "springs"
  indices1 = [0, 1, 2, 3]
  indices2 = [1, 2, 3, 0]
  stiffness = 120
  damping = 3
  springs = [
    {m1 = 0, m2 = 2, stiffness = 80, damping = 0.5, restLength = 1.9},
    {m1 = 1, m2 = 3, stiffness = 60, restLength = 0.4},
    {m1 = 4, m2 = 0, stiffness = 40, damping = 2, restLength = 0},
    {m1 = 4, m2 = 2, stiffness = 30, damping = 1, restLength = 0.9},
  ]
`

// TestSpringForceFieldFixture: force = −∇W, K = ∂f/∂x (transverse part
// and the position dependence of the damping force included) and
// B = ∂f/∂v against central differences, at random configurations and
// velocities, on one state.
func TestSpringForceFieldFixture(t *testing.T) {
	s := graphtest.MustLoad(t, "springs.toml", pairSpringScene)
	sf := graphtest.Find[*forcefield.SpringForceField](t, s, "net/springs")
	if n := len(sf.States()); n != 1 {
		t.Fatalf("one-state spring field has %d states", n)
	}
	if n := sf.NumSprings(); n != 8 {
		t.Fatalf("%d springs, want 8", n)
	}
	// Rest lengths: the rest distances for the list form.
	for s, want := range []float64{1, 1, math.Sqrt(1.25), math.Sqrt(1.25), 1.9, 0.4, 0, 0.9} {
		if got := sf.RestLength(s); math.Abs(got-want) > 1e-15 {
			t.Errorf("spring %d: rest length %.17g, want %.17g", s, got, want)
		}
	}
	w := wrapVec3Interaction(sf)
	rest := w.concat(graph.RestPosition)
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := 0; trial < 6; trial++ {
		x := append([]float64(nil), rest...)
		for i := range x {
			x[i] += 0.4 * (2*rng.Float64() - 1)
		}
		v := graphtest.RandomDeriv(rng, len(x), 2)
		checkSpringFixture(t, w, x, v, uint64(trial+1))
		checkBalance(t, w, x, v)
	}
}

// checkSpringFixture runs the fixture at rest velocity (energy, K) and at
// velocities v (K with the damping force's position dependence, and B).
// Tolerance 1e-7 relative: central differences of a smooth force at step
// 1e-6 err by ~1e-12·f”' and rounding by ~1e-16/1e-6 = 1e-10.
func checkSpringFixture(t *testing.T, ff graph.ForceField, x, v []float64, seed uint64) {
	t.Helper()
	checkSpringFixtureStep(t, ff, x, v, seed, 0, 1e-7)
}

// checkSpringFixtureStep is checkSpringFixture with a given step (0: the
// fixture's default) and tolerance, for badly conditioned configurations.
func checkSpringFixtureStep(t *testing.T, ff graph.ForceField, x, v []float64, seed uint64, step, tol float64) {
	t.Helper()
	graphtest.CheckForceField(t, ff, graph.Vec3, x, nil, graphtest.Options{Seed: seed, Tolerance: tol, Step: step})
	graphtest.CheckForceField(t, ff, graph.Vec3, x, v, graphtest.Options{Seed: seed, SkipEnergy: true, Tolerance: tol, Step: step})
	checkDampingExact(t, ff, x, v, seed)
}

// checkDampingExact checks B = ∂f/∂v. The forces are affine in the
// velocities, so the central difference is exact at any step: with step
// 1 only rounding remains, relative to the elastic forces (up to 1e5
// times B·d in the squashed configurations), hence 1e-9.
func checkDampingExact(t *testing.T, ff graph.ForceField, x, v []float64, seed uint64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 77))
	d := graphtest.RandomDeriv(rng, len(x), 1)
	vp, vm := make([]float64, len(v)), make([]float64, len(v))
	for i := range v {
		vp[i], vm[i] = v[i]+d[i], v[i]-d[i]
	}
	fp, fm := make([]float64, len(x)), make([]float64, len(x))
	ff.AddForce(fp, x, vp)
	ff.AddForce(fm, x, vm)
	ff.AddForce(make([]float64, len(x)), x, v)
	bd := make([]float64, len(x))
	ff.AddDForce(bd, d, 0, 1)
	scale := 0.0
	for i := range bd {
		scale = math.Max(scale, math.Abs(bd[i]))
	}
	if scale == 0 {
		t.Errorf("%s: no damping", ff.Base().TypeName)
		return
	}
	for i := range bd {
		fd := (fp[i] - fm[i]) / 2
		if math.Abs(fd-bd[i]) > 1e-9*scale {
			t.Errorf("%s: B·d = %.15g, difference of forces in velocity %.15g at %d", ff.Base().TypeName, bd[i], fd, i)
			return
		}
	}
}

// checkBalance: the spring forces have no resultant and no moment (about
// the origin; with zero resultant, about any point).
func checkBalance(t *testing.T, ff graph.ForceField, x, v []float64) {
	t.Helper()
	f := make([]float64, len(x))
	ff.AddForce(f, x, v)
	var sum, mom [3]float64
	scale := 0.0
	for i := 0; i < len(x)/3; i++ {
		p, q := x[3*i:3*i+3], f[3*i:3*i+3]
		for a := 0; a < 3; a++ {
			sum[a] += q[a]
			scale = math.Max(scale, math.Abs(q[a]))
		}
		mom[0] += p[1]*q[2] - p[2]*q[1]
		mom[1] += p[2]*q[0] - p[0]*q[2]
		mom[2] += p[0]*q[1] - p[1]*q[0]
	}
	for a := 0; a < 3; a++ {
		// Rounding of sums of O(scale) terms.
		if math.Abs(sum[a]) > 1e-13*scale || math.Abs(mom[a]) > 1e-13*scale*10 {
			t.Errorf("forces do not balance: resultant %v, moment %v (largest force %g)", sum, mom, scale)
			return
		}
	}
}

// twoStateScene: two Vec3 objects in child nodes joined by interaction
// springs from their parent node.
const twoStateScene = `
[[node]]
name = "pair"
  [[node.node]]
  name = "a"
    [[node.node.object]]
    type = "MechanicalObject"
    name = "dofs"
    position = [[0, 0, 0], [1, 0, 0], [0, 1, 0]]
  [[node.node]]
  name = "b"
    [[node.node.object]]
    type = "MechanicalObject"
    name = "dofs"
    position = [[0, 0, 1], [1, 0.2, 1.1]]
  [[node.object]]
  type = "SpringForceField"
  name = "links"
  object1 = "@a/dofs"
  object2 = "@b/dofs"
  indices1 = [0, 1, 2]
  indices2 = [0, 1, 1]
  lengths = [0.5]
  stiffness = 200
  damping = 4
  springs = [{m1 = 2, m2 = 0, stiffness = 50, damping = 1, restLength = 0}]
`

// TestSpringForceFieldTwoStates: the same fixture for springs between two
// states (an interaction force field), and the forces on the two objects
// balance.
func TestSpringForceFieldTwoStates(t *testing.T) {
	s := graphtest.MustLoad(t, "pair.toml", twoStateScene)
	sf := graphtest.Find[*forcefield.SpringForceField](t, s, "pair/links")
	if n := len(sf.States()); n != 2 {
		t.Fatalf("two-state spring field has %d states", n)
	}
	for s := 0; s < 3; s++ {
		if got := sf.RestLength(s); got != 0.5 {
			t.Errorf("spring %d: rest length %g, want the single length 0.5", s, got)
		}
	}
	w := wrapVec3Interaction(sf)
	rest := w.concat(graph.RestPosition)
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 6; trial++ {
		x := append([]float64(nil), rest...)
		for i := range x {
			x[i] += 0.5 * (2*rng.Float64() - 1)
		}
		v := graphtest.RandomDeriv(rng, len(x), 2)
		checkSpringFixture(t, w, x, v, uint64(trial+1))
		checkBalance(t, w, x, v)
	}
}

// TestSpringTransverseStiffness: a spring along x stretched to length l
// under tension T = k (l − l₀): K along the spring is −k, across it
// −T/l (a string under tension resists sideways motion by T/l; this is
// the pendulum's restoring stiffness), and B along the spring is −c.
func TestSpringTransverseStiffness(t *testing.T) {
	const k, c, l0, l = 300.0, 7.0, 0.8, 1.25
	text := strings.NewReplacer("K", "300", "C", "7", "L0", "0.8").Replace(`
[[node]]
name = "n"
  [[node.object]]
  type = "MechanicalObject"
  position = [[0, 0, 0], [1.25, 0, 0]]
  [[node.object]]
  type = "SpringForceField"
  name = "s"
  springs = [{m1 = 0, m2 = 1, stiffness = K, damping = C, restLength = L0}]
`)
	s := graphtest.MustLoad(t, "one.toml", text)
	sf := graphtest.Find[*forcefield.SpringForceField](t, s, "n/s")
	x := [][]float64{{0, 0, 0, l, 0, 0}}
	f := [][]float64{make([]float64, 6)}
	sf.AddForce(f, x, nil)
	T := k * (l - l0)
	if math.Abs(f[0][0]-T) > 1e-13*T || math.Abs(f[0][3]+T) > 1e-13*T {
		t.Errorf("forces %v, want ±%g along x", f[0], T)
	}
	// Move point 1 by a unit along x, then along y; read df on point 1.
	for _, cse := range []struct {
		axis    int
		kf, bf  float64
		want    float64
		meaning string
	}{
		{0, 1, 0, -k, "axial stiffness −k"},
		{1, 1, 0, -T / l, "transverse stiffness −T/l"},
		{2, 1, 0, -T / l, "transverse stiffness −T/l"},
		{0, 0, 1, -c, "axial damping −c"},
		{1, 0, 1, 0, "no transverse damping"},
	} {
		dx := [][]float64{make([]float64, 6)}
		dx[0][3+cse.axis] = 1
		df := [][]float64{make([]float64, 6)}
		sf.AddDForce(df, dx, cse.kf, cse.bf)
		if got := df[0][3+cse.axis]; math.Abs(got-cse.want) > 1e-12*k {
			t.Errorf("%s: got %.15g, want %.15g", cse.meaning, got, cse.want)
		}
		if got := df[0][cse.axis]; math.Abs(got+cse.want) > 1e-12*k {
			t.Errorf("%s: reaction on point 0 %.15g, want %.15g", cse.meaning, got, -cse.want)
		}
	}
}

// TestSpringForceFieldErrors: malformed spring lists are errors naming
// the spring.
func TestSpringForceFieldErrors(t *testing.T) {
	base := `
[[node]]
name = "n"
  [[node.object]]
  type = "MechanicalObject"
  position = [[0, 0, 0], [1, 0, 0], [0, 1, 0]]
  [[node.object]]
  type = "SpringForceField"
`
	for _, c := range []struct{ fields, want string }{
		{"  indices1 = [0, 1]\n  indices2 = [1]\n", "indices1 has 2 points and indices2 1"},
		{"  indices1 = [0]\n  indices2 = [3]\n", "point 3 is out of range [0, 3)"},
		{"  indices1 = [1]\n  indices2 = [1]\n", "joins point 1 to itself"},
		{"  indices1 = [0, 1, 2]\n  indices2 = [1, 2, 0]\n  lengths = [1, 2]\n", "lengths has 2 values for 3 springs"},
		{"  stiffness = 10\n", "no springs"},
		{"  springs = [{m1 = 0, m2 = 1, stiffness = 10}]\n", `missing required field "restLength"`},
		{"  object1 = \"@.\"\n  indices1 = [0]\n  indices2 = [1]\n", ""},
	} {
		s, err := graph.Load("bad.toml", []byte(base+c.fields))
		if err == nil {
			err = s.Init()
		}
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: unexpected error %v", c.fields, err)
		case c.want != "" && err == nil:
			t.Errorf("%q: no error, want %q", c.fields, c.want)
		case c.want != "" && !strings.Contains(err.Error(), c.want):
			t.Errorf("%q: error %q lacks %q", c.fields, err, c.want)
		case err != nil && !strings.HasPrefix(err.Error(), "bad.toml:"):
			t.Errorf("%q: error %q is not located at its line", c.fields, err)
		}
	}
}

// TestSpringForceFieldOps: the two-state springs inside a scene's
// traversals (graph.Ops gathers interaction force fields from any node):
// the whole-tree df equals the finite difference of the whole-tree force.
func TestSpringForceFieldOps(t *testing.T) {
	s := graphtest.MustLoad(t, "pair.toml", twoStateScene)
	rng := rand.New(rand.NewPCG(21, 22))
	for _, st := range s.Ops().Independent() {
		x := st.Vec(graph.Position)
		for i := range x {
			x[i] += 0.3 * (2*rng.Float64() - 1)
		}
	}
	ops := s.Ops()
	f := ops.AllocDeriv()
	defer ops.Free(f)
	ops.ComputeForce(f)
	norm := 0.0
	for _, st := range ops.Independent() {
		for _, v := range st.Vec(f) {
			norm += v * v
		}
	}
	if !(norm > 1) {
		t.Fatalf("the springs exert no force in the scene's traversal (|f|² = %g)", norm)
	}
	graphtest.CheckOps(t, ops, graphtest.Options{Tolerance: 1e-7})
}
