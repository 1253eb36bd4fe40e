package forcefield

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
	"github.com/sofago/sofago/meshio"
	"github.com/sofago/sofago/pose"
)

// exampleBar is the bar of the example-potential tests: 0.4 × 0.1 × 0.1 m
// on a 7 × 3 × 3 grid (144 tetrahedra), and three example poses made by
// package pose (as cmd/posegen does): a 60° twist about the long axis, a
// 40° bend toward +y, and a lateral bulge of the middle.
type exampleBar struct {
	n        [3]int
	rest     []float64
	tets     [][4]int
	examples [][]float64
	files    []string
}

func newExampleBar(t testing.TB) exampleBar { return newExampleBarN(t, [3]int{7, 3, 3}) }

// newExampleBarN is the bar on an n grid.
func newExampleBarN(t testing.TB, n [3]int) exampleBar {
	t.Helper()
	s := graphtest.MustLoad(t, "bar.toml", femScene(n, [3]float64{0.4, 0.1, 0.1}, "method = \"small\"\n  youngModulus = 1e6\n  poissonRatio = 0.3"))
	dofs := graphtest.Find[*graph.MechanicalObject](t, s, "beam/dofs")
	topo := s.Root.Children[0].Topology()
	b := exampleBar{n: n, rest: append([]float64(nil), dofs.Vec(graph.RestPosition)...), tets: topo.Tetrahedra()}
	c := geom.Vec3{0, 0.05, 0.05}
	x := geom.Vec3{1, 0, 0}
	defs := [][]pose.Deformation{
		{pose.Twist{Center: c, Axis: x, From: 0, To: 0.4, Angle: math.Pi / 3}},
		{pose.Bend{Center: c, Axis: x, Toward: geom.Vec3{0, 1, 0}, From: 0.05, To: 0.4, Angle: 40 * math.Pi / 180}},
		{pose.Scale{Center: c, Axis: x, From: 0.1, To: 0.3, Lateral: 1.3, Axial: 0.9, Blend: 0.05}},
	}
	dir := t.TempDir()
	for k, d := range defs {
		m, bad, err := pose.Mesh(&meshio.Mesh{Points: b.rest, Tetrahedra: b.tets}, d...)
		if err != nil || len(bad) > 0 {
			t.Fatalf("example %d: %v, %d bad tetrahedra", k, err, len(bad))
		}
		f := filepath.Join(dir, fmt.Sprintf("ex%d.vtk", k))
		if err := meshio.Write(f, m); err != nil {
			t.Fatal(err)
		}
		b.examples = append(b.examples, m.Points)
		b.files = append(b.files, filepath.ToSlash(f))
	}
	return b
}

// scene returns the bar with an ExampleBasedForceField "ex" of the given
// examples (indices into b.files) and extra fields, and no material.
func (b exampleBar) scene(examples []int, fields string) string {
	var names []string
	for _, k := range examples {
		names = append(names, fmt.Sprintf("%q", b.files[k]))
	}
	text := femScene(b.n, [3]float64{0.4, 0.1, 0.1}, fmt.Sprintf("stiffness = 1e5\n  examples = [%s]\n  %s", strings.Join(names, ", "), fields))
	return strings.Replace(text, `type = "TetrahedronFEMForceField"`, `type = "ExampleBasedForceField"`, 1)
}

func (b exampleBar) load(t testing.TB, examples []int, fields string) *ExampleBasedForceField {
	t.Helper()
	s := graphtest.MustLoad(t, "ex.toml", b.scene(examples, fields))
	return graphtest.Find[*ExampleBasedForceField](t, s, "beam/fem")
}

func vec3Template(t testing.TB) graph.Template {
	tmpl, ok := graph.LookupTemplate("Vec3")
	if !ok {
		t.Fatal("no Vec3 template")
	}
	return tmpl
}

// exampleConfigs are the fixture's configurations for a bar: the rest
// shape randomly displaced by 10 % of the element size, each example pose
// displaced by 0.1 % (near the manifold), and a pose halfway between rest
// and the twist, displaced by 5 %; all rotated and translated rigidly.
func (b exampleBar) configs(rng *rand.Rand) map[string][]float64 {
	const h = 0.067 // element size along the bar
	out := map[string][]float64{}
	out["random"] = transform(b.rest, randomDisplacement(rng, len(b.rest), 0.1*h), randomRotation(rng), geom.Vec3{0.3, -0.2, 0.5})
	for k, ex := range b.examples {
		u := randomDisplacement(rng, len(b.rest), 1e-3*h)
		for i := range u {
			u[i] += ex[i] - b.rest[i]
		}
		out[fmt.Sprintf("near example %d", k)] = transform(b.rest, u, randomRotation(rng), geom.Vec3{-0.1, 0.4, 0.2})
	}
	u := randomDisplacement(rng, len(b.rest), 0.05*h)
	for i := range u {
		u[i] += 0.5 * (b.examples[0][i] - b.rest[i])
	}
	out["half twist"] = transform(b.rest, u, geom.Identity3(), geom.Vec3{})
	return out
}

// exampleFixtureOptions: the shared fixture (central differences) at the
// README's tolerance, 1e-6. Near an example pose the force is small against
// the energy's curvature, so the central difference of W has a relative
// truncation error h²|W‴|/(6|f·d|): 1.1e-6 at the fixture's default step
// 1e-6·|x|max, 4e-8 at 1e-7·|x|max, taken here (measured; it falls as h²,
// rounding takes over below 1e-8·|x|max). The tight check is
// checkFivePoint's.
func exampleFixtureOptions(x []float64, seed uint64) graphtest.Options {
	return graphtest.Options{Seed: seed, Trials: 3, Step: 1e-7 * maxAbs(x)}
}

// fivePointTolerance: the example potential is a quartic polynomial of the
// positions (squared Green strains; the weights are linear in the strains,
// and on a fixed face of the simplex for w ≥ 0), its force a cubic, so the
// five-point derivative (8(g(h) − g(−h)) − (g(2h) − g(−2h)))/12h, exact for
// polynomials up to degree 4, has no truncation error: only rounding,
// 1e-16·|g|/h relative to the derivative, ≈ 1e-12 at h = 1e-4·|x|max,
// growing as 1/h. Measured: 2e-12 for the tangent, 9e-11 for the energy
// (go test -v -run ExampleFixture); the tolerance is 1e-10 at that step,
// scaled by 1e-4·|x|max/h at the smaller steps taken near face boundaries,
// plus the energy's own rounding floor (below).
const fivePointTolerance = 1e-10

// checkFivePoint checks K·d and f·d = −dW/dε along random directions d by
// five-point differences at h = 1e-4·|x|max. With w ≥ 0, w* is only
// continuous across a face boundary of the simplex, so it checks that no
// group's free set changes over the stencil, and if one does takes a ten
// times smaller step (down to 1e-6·|x|max); it reports false (untested)
// when even that straddles a boundary. It returns the worst relative
// errors.
func checkFivePoint(t *testing.T, ff *ExampleBasedForceField, x []float64, rng *rand.Rand) (tested bool, kErr, wErr float64) {
	t.Helper()
	tmpl := vec3Template(t)
	n := len(x)
	for trial := 0; trial < 3; trial++ {
		d := randomDisplacement(rng, n, 1)
		var fs [5][]float64
		var ws [5]float64
		h := 1e-4 * maxAbs(x)
		for ; h >= 0.99e-6*maxAbs(x); h /= 10 {
			var frees [5][]bool
			for i, a := range []float64{-2, -1, 0, 1, 2} {
				xa := graphtest.Perturb(tmpl, x, d, a*h)
				fs[i] = make([]float64, n)
				ff.AddForce(fs[i], xa, nil)
				frees[i] = append([]bool(nil), ff.terms.lin.free...)
				ws[i] = ff.PotentialEnergy(xa)
			}
			straddles := false
			for i := range frees {
				for j := range frees[i] {
					straddles = straddles || frees[i][j] != frees[2][j]
				}
			}
			if !straddles {
				break
			}
		}
		if h < 0.99e-6*maxAbs(x) {
			return false, 0, 0
		}
		ff.AddForce(make([]float64, n), x, nil)
		kd := make([]float64, n)
		ff.AddDForce(kd, d, 1, 0)
		fd := make([]float64, n)
		for i := range fd {
			fd[i] = (8*(fs[3][i]-fs[1][i]) - (fs[4][i] - fs[0][i])) / (12 * h)
		}
		e := 0.0
		for i := range kd {
			e = math.Max(e, math.Abs(kd[i]-fd[i]))
		}
		fdot := dot(fs[2], d)
		dW := -(8*(ws[3]-ws[1]) - (ws[4] - ws[0])) / (12 * h)
		// The energy differences lose 1.5·ε·|W|/h to the rounding of W
		// itself (a sum over the elements, relative error up to about
		// 50 ε): near an example pose f·d is small against W/h, so that
		// floor is added to the energy's tolerance, as the shared fixture
		// does.
		floor := 1e-14 * math.Abs(ws[2]) / (h * math.Abs(fdot))
		ke, we := e/maxAbs(fd), math.Abs(dW-fdot)/math.Abs(fdot)
		tol := fivePointTolerance * 1e-4 * maxAbs(x) / h
		if ke > tol || we > tol+floor {
			t.Errorf("five-point differences at h = %.3g: tangent relative error %.3g, force·d against −dW/dε %.3g (tolerance %.3g)", h, ke, we, tol)
		}
		// Report errors in units of the tolerance at the largest step.
		scale := h / (1e-4 * maxAbs(x))
		kErr, wErr = math.Max(kErr, ke*scale), math.Max(wErr, we*scale)
	}
	return true, kErr, wErr
}

// TestExampleFixture: force = −∇W and AddDForce = the derivative of
// AddForce, by the shared fixture (graphtest.CheckForceField, central
// differences) and by five-point differences (checkFivePoint, exact for
// this polynomial energy), for global, per-group (local: half the bar has
// no example term) and per-element manifolds, with and without the rest
// pose, unconstrained and with w ≥ 0, on random configurations, near every
// example pose and halfway to the twist. With w ≥ 0 the shared fixture's
// stencil may straddle a face boundary of the simplex, where the tangent
// jumps; those configurations are the five-point check's to skip (it
// verifies the free sets), and are counted.
func TestExampleFixture(t *testing.T) {
	b := newExampleBar(t)
	tmpl := vec3Template(t)
	cases := []struct {
		name     string
		examples []int
		fields   string
	}{
		{"global, 3 examples", []int{0, 1, 2}, ""},
		{"global, 1 example", []int{0}, ""},
		{"global, rest + 2", []int{0, 1}, "includeRest = true"},
		{"global, w ≥ 0", []int{0, 1, 2}, "nonNegativeWeights = true\n  includeRest = true"},
		{"groups: half the bar", []int{0, 2}, "includeRest = true\n  manifold = \"groups\"\n  groupBoxes = [[-1, -1, -1, 0.2, 1, 1]]"},
		{"groups: two halves, w ≥ 0", []int{0, 1, 2}, "manifold = \"groups\"\n  nonNegativeWeights = true\n  groupBoxes = [[-1, -1, -1, 0.2, 1, 1], [0.2, -1, -1, 1, 1, 1]]"},
		{"groups: own examples, falloff", []int{0, 1, 2}, "includeRest = true\n  manifold = \"groups\"\n  groupBoxes = [[-1, -1, -1, 0.2, 1, 1], [0.2, -1, -1, 1, 1, 1]]\n  groupExamples = [[0, 2], [1, 0]]\n  groupFalloff = 0.1"},
		{"groups: one example each, falloff, w ≥ 0", []int{0, 1, 2}, "manifold = \"groups\"\n  nonNegativeWeights = true\n  groupBoxes = [[-1, -1, -1, 0.25, 1, 1], [0.15, -1, -1, 1, 1, 1]]\n  groupExamples = [[2], [1]]\n  groupFalloff = 0.08"},
		{"elements", []int{0, 1, 2}, "manifold = \"elements\"\n  includeRest = true"},
		{"elements, w ≥ 0", []int{0, 1, 2}, "manifold = \"elements\"\n  nonNegativeWeights = true"},
	}
	worstK, worstW, untested, total := 0.0, 0.0, 0, 0
	for _, c := range cases {
		ff := b.load(t, c.examples, c.fields)
		tested := 0
		for seed := uint64(1); seed <= 2; seed++ {
			rng := rand.New(rand.NewPCG(11, seed))
			for name, x := range b.configs(rng) {
				total++
				ok, ke, we := checkFivePoint(t, ff, x, rng)
				if !ok {
					untested++
					t.Logf("%s, %s (seed %d): a face boundary of the simplex within the stencil, not tested", c.name, name, seed)
					continue
				}
				tested++
				worstK, worstW = math.Max(worstK, ke), math.Max(worstW, we)
				if !graphtest.CheckForceField(t, ff, tmpl, x, nil, exampleFixtureOptions(x, seed)) {
					t.Errorf("%s, %s: fixture failed", c.name, name)
				}
			}
		}
		// Without the w ≥ 0 constraint every configuration is tested;
		// with it, per-element simplices have face boundaries within
		// 1e-6 of every example pose (a vertex of each), so only the
		// random and halfway configurations may be left.
		if min := 10; ff.NonNegativeWeights && tested < 4 || !ff.NonNegativeWeights && tested < min {
			t.Errorf("%s: only %d of 10 configurations tested", c.name, tested)
		}
	}
	t.Logf("five-point differences: worst tangent error %.2g, worst energy error %.2g; %d of %d configurations at a face boundary", worstK, worstW, untested, total)
}

// TestExampleFixtureActiveConstraints: the w ≥ 0 fixture above is run
// where constraints are active: the configurations are chosen so that some
// weights of the projection are 0 (the closest point lies on a face of the
// examples' simplex), and the test checks that they are.
func TestExampleFixtureActiveConstraints(t *testing.T) {
	b := newExampleBar(t)
	tmpl := vec3Template(t)
	rng := rand.New(rand.NewPCG(13, 14))
	for _, manifold := range []string{"global", "elements"} {
		// Beyond the twist (1.6 × its displacement): the unconstrained
		// weight of the twist exceeds 1, the others go negative.
		u := randomDisplacement(rng, len(b.rest), 0.003)
		for i := range u {
			u[i] += 1.6 * (b.examples[0][i] - b.rest[i])
		}
		x := transform(b.rest, u, geom.Identity3(), geom.Vec3{})
		ff := b.load(t, []int{0, 1, 2}, "includeRest = true\n  nonNegativeWeights = true\n  manifold = \""+manifold+"\"")
		ff.AddForce(make([]float64, len(x)), x, nil)
		active := 0
		for g := 0; g < ff.NumGroups(); g++ {
			for _, w := range ff.Weights(g) {
				if w == 0 {
					active++
				}
				if w < 0 {
					t.Fatalf("%s: negative weight %v", manifold, ff.Weights(g))
				}
			}
		}
		if active == 0 {
			t.Fatalf("%s: no active constraint at the test configuration", manifold)
		}
		t.Logf("%s: %d weights held at 0 over %d groups", manifold, active, ff.NumGroups())
		if !graphtest.CheckForceField(t, ff, tmpl, x, nil, exampleFixtureOptions(x, 5)) {
			t.Errorf("%s with active constraints: fixture failed", manifold)
		}
		if ok, ke, we := checkFivePoint(t, ff, x, rng); !ok {
			t.Errorf("%s: a face boundary within the five-point stencil", manifold)
		} else {
			t.Logf("%s: five-point errors %.2g (tangent), %.2g (energy)", manifold, ke, we)
		}
	}
}

// TestExampleTangentNeedsWeightTerm: the tangent with the weights frozen
// at w* (dropping dw*/dx, a Gauss–Newton-like approximation) is not the
// derivative of the force: against central differences it is off by far
// more than the fixture's tolerance on a global manifold, while the exact
// tangent agrees to 1e-8. This is what the fixture pins.
func TestExampleTangentNeedsWeightTerm(t *testing.T) {
	b := newExampleBar(t)
	rng := rand.New(rand.NewPCG(15, 16))
	x := b.configs(rng)["half twist"]
	ff := b.load(t, []int{0, 1, 2}, "includeRest = true")
	n := len(x)
	d := randomDisplacement(rng, n, 1)
	h := 1e-7 * maxAbs(x)
	force := func(x []float64) []float64 {
		f := make([]float64, n)
		ff.AddForce(f, x, nil)
		return f
	}
	fp, fm := force(graphtest.Perturb(vec3Template(t), x, d, h)), force(graphtest.Perturb(vec3Template(t), x, d, -h))
	fd := make([]float64, n)
	for i := range fd {
		fd[i] = (fp[i] - fm[i]) / (2 * h)
	}
	relErr := func() float64 {
		force(x)
		kd := make([]float64, n)
		ff.AddDForce(kd, d, 1, 0)
		e := 0.0
		for i := range kd {
			e = math.Max(e, math.Abs(kd[i]-fd[i]))
		}
		return e / maxAbs(fd)
	}
	exact := relErr()
	ff.terms.frozenWeights = true
	frozen := relErr()
	ff.terms.frozenWeights = false
	t.Logf("tangent error against central differences: exact %.2g, weights frozen %.2g", exact, frozen)
	if exact > fdTolerance {
		t.Errorf("exact tangent: relative error %.3g", exact)
	}
	if frozen < 1e-2 {
		t.Errorf("the frozen-weight tangent is within %.3g of the derivative: the dw*/dx term is not exercised", frozen)
	}
}

// TestExamplePosesAreEquilibria: at every example pose (rigidly moved) the
// example term's force is zero to rounding — at most 1e-10 of its force
// halfway between rest and the twist, the load scale of a pose in between
// — and its energy is zero, for every kind of manifold, with and without
// the rest pose and the w ≥ 0 constraint. With includeRest the rest pose
// is one more example and must be an equilibrium too.
func TestExamplePosesAreEquilibria(t *testing.T) {
	b := newExampleBar(t)
	rng := rand.New(rand.NewPCG(17, 18))
	half := make([]float64, len(b.rest))
	for i := range half {
		half[i] = 0.5 * (b.rest[i] + b.examples[0][i])
	}
	for _, fields := range []string{
		"",
		"includeRest = true",
		"nonNegativeWeights = true",
		"manifold = \"elements\"",
		"manifold = \"groups\"\n  includeRest = true\n  groupBoxes = [[-1, -1, -1, 0.2, 1, 1], [0.2, -1, -1, 1, 1, 1]]",
	} {
		ff := b.load(t, []int{0, 1, 2}, fields)
		f := make([]float64, len(b.rest))
		ff.AddForce(f, half, nil)
		scale := maxAbs(f)
		poses := append([][]float64(nil), b.examples...)
		if strings.Contains(fields, "includeRest") {
			poses = append(poses, b.rest)
		}
		for k, p := range poses {
			x := transform(p, nil, randomRotation(rng), geom.Vec3{1, 2, 3})
			clear(f)
			ff.AddForce(f, x, nil)
			w := ff.PotentialEnergy(x)
			if r := maxAbs(f) / scale; r > 1e-10 {
				t.Errorf("%q, pose %d: force %.3g of the load scale", fields, k, r)
			}
			// Energy: k/2 V ‖S‖² with ‖S‖ ≈ 1e-16 of strains of order 0.1.
			if w > 1e-20*ff.Stiffness*0.004 {
				t.Errorf("%q, pose %d: energy %.3g J", fields, k, w)
			}
		}
	}
}

// TestExampleWorkersBitwise: results do not depend on the number of
// workers (a 13×5×5 grid, 2304 tetrahedra, has enough elements for
// parallel chunks; groups per element run the group loop in parallel too).
func TestExampleWorkersBitwise(t *testing.T) {
	b := newExampleBarN(t, [3]int{13, 5, 5})
	for _, fields := range []string{"includeRest = true", "manifold = \"elements\"\n  nonNegativeWeights = true"} {
		ff := b.load(t, []int{0, 1, 2}, fields)
		rng := rand.New(rand.NewPCG(19, 20))
		x := b.configs(rng)["random"]
		d := randomDisplacement(rng, len(x), 1)
		run := func(w int) ([]float64, []float64) {
			ff.SetWorkers(w)
			f, df := make([]float64, len(x)), make([]float64, len(x))
			ff.AddForce(f, x, nil)
			ff.AddDForce(df, d, 1, 0)
			return f, df
		}
		f1, d1 := run(1)
		f2, d2 := run(4)
		for i := range f1 {
			if f1[i] != f2[i] || d1[i] != d2[i] {
				t.Fatalf("%q: results differ between 1 and 4 workers at %d", fields, i)
			}
		}
	}
}

// TestExampleLocalGroupsTouchOnlyTheirElements: with local examples (a
// group covering the left third of the bar), the force and the force
// differential are exactly zero on every vertex of no element of the
// group, at any configuration: the example term acts only on its region.
func TestExampleLocalGroupsTouchOnlyTheirElements(t *testing.T) {
	b := newExampleBar(t)
	ff := b.load(t, []int{0, 1, 2}, "includeRest = true\n  manifold = \"groups\"\n  groupBoxes = [[-1, -1, -1, 0.13, 1, 1]]")
	touched := make([]bool, len(b.rest)/3)
	inGroup := 0
	for e := range b.tets {
		if ff.Group(e) >= 0 {
			inGroup++
			for _, v := range b.tets[e] {
				touched[v] = true
			}
		}
	}
	if inGroup == 0 || inGroup == len(b.tets) {
		t.Fatalf("test setup: %d of %d elements in the group", inGroup, len(b.tets))
	}
	rng := rand.New(rand.NewPCG(21, 22))
	x := b.configs(rng)["random"]
	f, df := make([]float64, len(x)), make([]float64, len(x))
	ff.AddForce(f, x, nil)
	ff.AddDForce(df, randomDisplacement(rng, len(x), 1), 1, 0)
	nonzero := 0
	for v, in := range touched {
		for c := 0; c < 3; c++ {
			if !in && (f[3*v+c] != 0 || df[3*v+c] != 0) {
				t.Fatalf("vertex %d outside the group's elements has force %v, differential %v", v, f[3*v:3*v+3], df[3*v:3*v+3])
			}
			if in && f[3*v+c] != 0 {
				nonzero++
			}
		}
	}
	if nonzero == 0 {
		t.Fatal("no force inside the group either")
	}
}

// TestExampleSceneErrors: mistakes are load or init errors naming the
// object, never silent.
func TestExampleSceneErrors(t *testing.T) {
	b := newExampleBar(t)
	small := filepath.ToSlash(filepath.Join(t.TempDir(), "small.vtk"))
	if err := meshio.Write(small, &meshio.Mesh{Points: make([]float64, 30), Tetrahedra: [][4]int{{0, 1, 2, 3}}}); err != nil {
		t.Fatal(err)
	}
	noEx := strings.Replace(b.scene(nil, ""), "examples = []", "", 1)
	cases := []struct{ name, text, want string }{
		{"no examples", noEx, "no example poses"},
		{"no stiffness", strings.Replace(b.scene([]int{0}, ""), "stiffness = 1e5", "", 1), "stiffness"},
		{"groups without assignment", b.scene([]int{0}, "manifold = \"groups\""), "needs groupIndices or groupBoxes"},
		{"boxes without groups", b.scene([]int{0}, "groupBoxes = [[0, 0, 0, 1, 1, 1]]"), "need manifold = \"groups\""},
		{"empty group box", b.scene([]int{0}, "manifold = \"groups\"\n  groupBoxes = [[5, 5, 5, 6, 6, 6]]"), "groupBoxes[0] holds no tetrahedron"},
		{"bad box", b.scene([]int{0}, "manifold = \"groups\"\n  groupBoxes = [[0, 0, 0, 1, 1]]"), "has 5 numbers"},
		{"frames on tetrahedra", b.scene([]int{0}, "exampleFrames = [[[0, 0, 0, 0, 0, 0, 1]]]"), "for F331 samples"},
		{"vertex count", strings.Replace(b.scene([]int{0}, ""), b.files[0], small, 1), "has 10 vertices but state"},
		{"inline size", noEx + "  examplePositions = [[[0, 0, 0]]]\n", "has 1 points but state"},
		{"unknown manifold", b.scene([]int{0}, "manifold = \"regions\""), "regions"},
		{"groupExamples without groups", b.scene([]int{0}, "groupExamples = [[0]]"), "need manifold = \"groups\""},
		{"groupExamples of unequal length", b.scene([]int{0, 1}, "manifold = \"groups\"\n  groupBoxes = [[-1, -1, -1, 0.2, 1, 1], [0.2, -1, -1, 1, 1, 1]]\n  groupExamples = [[0], [0, 1]]"), "the same number"},
		{"groupExamples per group", b.scene([]int{0, 1}, "manifold = \"groups\"\n  groupBoxes = [[-1, -1, -1, 0.2, 1, 1], [0.2, -1, -1, 1, 1, 1]]\n  groupExamples = [[0]]"), "1 lists for 2 groups"},
		{"groupExamples index", b.scene([]int{0, 1}, "manifold = \"groups\"\n  groupBoxes = [[-1, -1, -1, 0.2, 1, 1]]\n  groupExamples = [[2]]"), "names example 2 of 2"},
		{"empty groupExamples", b.scene([]int{0}, "manifold = \"groups\"\n  groupBoxes = [[-1, -1, -1, 0.2, 1, 1]]\n  groupExamples = [[]]"), "has no example"},
		{"groupFalloff without boxes", b.scene([]int{0}, "manifold = \"groups\"\n  groupIndices = [0]\n  groupFalloff = 0.1"), "give groupBoxes"},
		{"negative groupFalloff", b.scene([]int{0}, "manifold = \"groups\"\n  groupBoxes = [[-1, -1, -1, 0.2, 1, 1]]\n  groupFalloff = -0.1"), "groupFalloff"},
	}
	for _, c := range cases {
		s, err := graph.Load("bad.toml", []byte(c.text))
		if err == nil {
			err = s.Init()
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
			continue
		}
		t.Logf("%s: %v", c.name, err)
	}
}

// TestExampleGroupFalloff: with groupFalloff = w the term of an element
// is weighted by smoothstep(d/w), d the distance of its rest centroid from
// the nearest face of its group's box. With one example and no rest pose
// the manifold is a point (w* = 1 whatever the weights), so the energy must
// be Σₑ φₑ Wₑ with Wₑ the elements' terms without falloff — recomputed here
// from the definition of φ, on the elements the ramp cuts (some φ strictly
// between 0 and 1) and at a random configuration.
func TestExampleGroupFalloff(t *testing.T) {
	b := newExampleBar(t)
	box := []float64{-1, -1, -1, 0.25, 1, 1}
	const w = 0.1
	groups := fmt.Sprintf("manifold = \"groups\"\n  groupBoxes = [[%g, %g, %g, %g, %g, %g]]", box[0], box[1], box[2], box[3], box[4], box[5])
	plain := b.load(t, []int{1}, groups)
	ramp := b.load(t, []int{1}, groups+fmt.Sprintf("\n  groupFalloff = %g", w))
	x := b.configs(rand.New(rand.NewPCG(5, 6)))["random"]
	plain.PotentialEnergy(x)
	want, cut := 0.0, 0
	for s := 0; s < plain.terms.numSlots(); s++ {
		e := int(plain.terms.elem[s])
		var c geom.Vec3
		for _, v := range b.tets[e] {
			c = c.Add(geom.At(b.rest, v))
		}
		c = c.Scale(0.25)
		d := math.Inf(1)
		for a := 0; a < 3; a++ {
			d = math.Min(d, math.Min(c[a]-box[a], box[a+3]-c[a]))
		}
		r := math.Min(1, d/w)
		phi := r * r * (3 - 2*r)
		if phi > 0 && phi < 1 {
			cut++
		}
		want += phi * plain.terms.tmp.energy[s]
	}
	got := ramp.PotentialEnergy(x)
	if cut == 0 {
		t.Fatal("test setup: the ramp cuts no element")
	}
	// Sums of the same products in another order: rounding.
	if rel := math.Abs(got-want) / want; rel > 1e-13 {
		t.Errorf("energy with falloff %.17g, Σ φ W %.17g (relative %.3g)", got, want, rel)
	}
	t.Logf("%d of %d elements on the ramp; energy %.6g J without falloff, %.6g J with", cut, plain.terms.numSlots(), plain.PotentialEnergy(x), got)
}

// TestExampleGroupExamples: groupExamples gives each group its own
// manifold. With the same example in both groups it is the plain two-group
// manifold of that example (forces bitwise equal); with its own example in
// each, at the pose of group 1's example group 1 projects onto it exactly
// (weights rest 0, example 1), while group 0 does not.
func TestExampleGroupExamples(t *testing.T) {
	b := newExampleBar(t)
	groups := "includeRest = true\n  manifold = \"groups\"\n  groupBoxes = [[-1, -1, -1, 0.2, 1, 1], [0.2, -1, -1, 1, 1, 1]]"
	x := b.configs(rand.New(rand.NewPCG(7, 8)))["random"]
	one := b.load(t, []int{1}, groups)
	sel := b.load(t, []int{0, 1, 2}, groups+"\n  groupExamples = [[1], [1]]")
	f1, f2 := make([]float64, len(x)), make([]float64, len(x))
	one.AddForce(f1, x, nil)
	sel.AddForce(f2, x, nil)
	for i := range f1 {
		if f1[i] != f2[i] {
			t.Fatalf("force %d: %g with examples = [1], %g with groupExamples = [[1], [1]]", i, f1[i], f2[i])
		}
	}
	own := b.load(t, []int{0, 1, 2}, groups+"\n  groupExamples = [[0], [1]]")
	f := make([]float64, len(x))
	own.AddForce(f, b.examples[1], nil)
	w0, w1 := own.Weights(0), own.Weights(1)
	if math.Abs(w1[0]) > 1e-12 || math.Abs(w1[1]-1) > 1e-12 {
		t.Errorf("group 1 at its example: weights %v, want [0 1]", w1)
	}
	if math.Abs(w0[1]-1) < 1e-3 {
		t.Errorf("group 0 at group 1's example: weights %v, should not be its own example", w0)
	}
}
