package validation

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sofago/sofago/components/forcefield"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/meshio"
	"github.com/sofago/sofago/pose"
)

// Tests of the example-based elastic potential (ExampleBasedForceField,
// Martin et al. 2011; issue 18) on the scenes scenes/example_fem_twist.toml
// and scenes/example_fem_sneaker.toml: equilibria against the example,
// monotone in the stiffness k, convergence to the example under no load
// (with shape matching's example method alongside), responses to the same
// load, locality of local examples.

const twistScene = "../scenes/example_fem_twist.toml"

// twistMaterialBlock is the material of the twist scene's FEM bar, removed
// for the example-term-only runs.
const twistMaterialBlock = `  [[node.object]]
  type = "TetrahedronHyperelasticityFEMForceField"
  name = "material"
  materialName = "NeoHookean"
  youngModulus = 1e5
  poissonRatio = 0.3
`

// loadTwist loads the twist scene with overrides (-set PATH=VALUE pairs),
// without the FEM bar's material when noMaterial, and initialises it.
func loadTwist(t testing.TB, noMaterial bool, sets ...string) *graph.Scene {
	t.Helper()
	data, err := os.ReadFile(twistScene)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	if noMaterial {
		if !strings.Contains(text, twistMaterialBlock) {
			t.Fatal("the twist scene's material block changed: update twistMaterialBlock")
		}
		text = strings.Replace(text, twistMaterialBlock, "", 1)
	}
	var ovs []graph.Override
	for i := 0; i+1 < len(sets); i += 2 {
		ovs = append(ovs, graph.Override{Path: sets[i], Value: sets[i+1]})
	}
	s, err := graph.LoadWith(twistScene, []byte(text), ovs)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Init(); err != nil {
		t.Fatal(err)
	}
	return s
}

// twistExample returns the example pose of the twist scene.
func twistExample(t testing.TB) []float64 {
	t.Helper()
	m, err := meshio.Read("../scenes/meshes/cuboid_twist.vtk")
	if err != nil {
		t.Fatal(err)
	}
	return m.Points
}

// twistMeasure returns the mean rotation angle (degrees, right-handed
// about +y) of the top face (y = 0.8) of a bar state about its axis, and
// the RMS distance of the state to the example pose (shifted like the
// state's rest), relative to the RMS distance of rest to the example.
func twistMeasure(st graph.State, example []float64) (angle, dist float64) {
	x, rest := st.Vec(graph.Position), st.Vec(graph.RestPosition)
	shift := geom.At(rest, 0).Sub(geom.At(example, 0)) // the example is at the origin
	var c geom.Vec3
	n := 0
	for i := 0; i < len(rest)/3; i++ {
		if geom.At(rest, i)[1] > 0.799 {
			c = c.Add(geom.At(rest, i))
			n++
		}
	}
	c = c.Scale(1 / float64(n))
	m := 0
	var num, den float64
	for i := 0; i < len(rest)/3; i++ {
		p0 := geom.At(rest, i)
		d2x := geom.At(x, i).Sub(geom.At(example, i).Add(shift))
		d2r := p0.Sub(geom.At(example, i).Add(shift))
		num += d2x.Norm2()
		den += d2r.Norm2()
		r0 := geom.Vec3{p0[0] - c[0], 0, p0[2] - c[2]}
		if p0[1] < 0.799 || r0.Norm() < 1e-9 { // not on the top face, or on the axis
			continue
		}
		p := geom.At(x, i)
		r := geom.Vec3{p[0] - c[0], 0, p[2] - c[2]}
		// Right-handed about +y: (r0 × r)·ŷ = r0z rx − r0x rz.
		angle += math.Atan2(r0[2]*r[0]-r0[0]*r[2], r0.Dot(r))
		m++
	}
	return angle / float64(m) * 180 / math.Pi, math.Sqrt(num / den)
}

func stateOf(t testing.TB, s *graph.Scene, path string) graph.State {
	t.Helper()
	st, err := graph.FindAs[graph.State](s, path)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestExampleTwistExamplePose: the twist scene's example, measured by
// twistMeasure, is the 90° twist at distance 0 (the measure is right).
func TestExampleTwistExamplePose(t *testing.T) {
	s := loadTwist(t, false)
	st := stateOf(t, s, "fem/dofs")
	copy(st.Vec(graph.Position), twistExample(t))
	a, d := twistMeasure(st, twistExample(t))
	if math.Abs(a-90) > 1e-9 || d != 0 {
		t.Fatalf("example: angle %.12g°, distance %g", a, d)
	}
}

// TestExampleTwistMonotoneInK: with the material on and no load, the
// static equilibrium moves from the rest shape (k = 0) toward the example
// as k grows, monotonically: the top face's twist angle increases, the
// distance to the example decreases, and without the material the example
// term alone brings the bar onto the example. The table goes to the
// README.
func TestExampleTwistMonotoneInK(t *testing.T) {
	ex := twistExample(t)
	ks := []float64{0, 1e4, 3e4, 1e5, 3e5, 1e6, 1e7}
	if testing.Short() {
		ks = []float64{0, 1e5, 1e6}
	}
	prevA, prevD := -1.0, 2.0
	t.Logf("| k/E | twist of the top face | distance to the example |")
	for _, k := range ks {
		s := loadTwist(t, false, "fem/torque.forces", "[[0, 0, 0]]", "fem/example.stiffness", fmt.Sprint(k))
		if err := s.Step(); err != nil {
			t.Fatalf("k = %g: %v", k, err)
		}
		a, d := twistMeasure(stateOf(t, s, "fem/dofs"), ex)
		t.Logf("| %g | %.4f° | %.6f |", k/1e5, a, d)
		if k == 0 && (math.Abs(a) > 1e-9 || math.Abs(d-1) > 1e-12) {
			t.Errorf("k = 0: the bar left its rest shape (angle %g°, distance %g)", a, d)
		}
		if a <= prevA || d >= prevD {
			t.Errorf("k = %g: angle %.6g° (previous %.6g°), distance %.6g (previous %.6g): not monotone", k, a, prevA, d, prevD)
		}
		prevA, prevD = a, d
	}
	// The example term alone: the example itself.
	s := loadTwist(t, true, "fem/torque.forces", "[[0, 0, 0]]")
	if err := s.Step(); err != nil {
		t.Fatal(err)
	}
	a, d := twistMeasure(stateOf(t, s, "fem/dofs"), ex)
	t.Logf("| ∞ (no material) | %.4f° | %.2g |", a, d)
	if math.Abs(a-90) > 1e-6 || d > 1e-8 {
		t.Errorf("example term alone: angle %.9g°, distance %.3g: not the example", a, d)
	}
}

var _ = forcefield.NewExampleBasedForceField

// TestExampleTwistConvergesToExample: under no load, both example methods
// bring the bar from its rest shape onto the example: the example
// potential alone (no material; static Newton, whose exact tangent
// converges quadratically) and shape matching with the example as its
// manifold (includeRest = false; position-based dynamics, its distance to
// the example shrinking geometrically).
func TestExampleTwistConvergesToExample(t *testing.T) {
	ex := twistExample(t)
	s := loadTwist(t, true, "fem/torque.forces", "[[0, 0, 0]]", "shapematching/torque.forces", "[[0, 0, 0]]")
	steps := 1000
	if testing.Short() {
		steps = 300
	}
	fem, sm := stateOf(t, s, "fem/dofs"), stateOf(t, s, "shapematching/dofs")
	var dist []float64 // shape matching's distance every 100 steps
	for i := 1; i <= steps; i++ {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
		if i == 1 || i%100 == 0 {
			a1, d1 := twistMeasure(fem, ex)
			a2, d2 := twistMeasure(sm, ex)
			t.Logf("step %d: example potential %.6f° (distance %.2g), shape matching %.6f° (distance %.2g)", i, a1, d1, a2, d2)
			if i%100 == 0 {
				dist = append(dist, d2)
			}
		}
	}
	// The potential: Newton's first step lands on the example to rounding.
	a1, d1 := twistMeasure(fem, ex)
	if math.Abs(a1-90) > 1e-9 || d1 > 1e-12 {
		t.Errorf("example potential: %.12g°, distance %.3g", a1, d1)
	}
	// Shape matching: past its transient (200 steps) the distance to the
	// example shrinks geometrically, by 0.69 every 100 steps (measured), so
	// it converges to the example itself, not near it: require a factor
	// below 0.75 over each of the last 100-step spans, and 2e-3 after 1000
	// steps.
	for k := 2; k < len(dist); k++ {
		if r := dist[k] / dist[k-1]; r > 0.75 {
			t.Errorf("shape matching: distance %.3g after %d steps, %.3g after %d: ratio %.3g, not converging", dist[k-1], 100*k, dist[k], 100*(k+1), r)
		}
	}
	if d := dist[len(dist)-1]; steps == 1000 && d > 2e-3 {
		t.Errorf("shape matching: distance %.3g after %d steps", d, steps)
	}
}

// atExampleTorque is a torque of 1 N·m about +y on the top face as it lies
// in the example pose: the example turns the top face by 90°, taking the
// rest offset r from the axis to (r_z, −r_x), where the tangential
// direction ŷ × (r_z, 0, −r_x) is −r; f = −r/Σ|r|² (Σ|r|² = 0.25 m²),
// as dead loads on the 25 top vertices in index order.
func atExampleTorque(tau float64) string {
	var rows []string
	for k := 0; k < 5; k++ {
		for i := 0; i < 5; i++ {
			rx, rz := 0.05*float64(i)-0.1, 0.05*float64(k)-0.1
			rows = append(rows, fmt.Sprintf("[%g, 0, %g]", -tau*rx/0.25, -tau*rz/0.25))
		}
	}
	return "[" + strings.Join(rows, ", ") + "]"
}

// TestExampleTwistLoadResponse: responses of the two example methods to
// the same loads, for the README's tables.
//
// The scene's load (4 N·m about +y at rest, a dead load: once the top face
// has turned by θ its moment about the axis is 4 cos θ N·m, and at 90° it
// only pulls the face outward) on the material alone, the material with
// the example term, the example term alone and shape matching with the
// example alone: the material resists, the example term pulls toward 90°.
//
// A torque applied at the example pose (tangential there; atExampleTorque)
// on the two example-only models: both twist beyond the example by an
// amount proportional to the torque; the potential's stiffness is k (the
// angle halves when k doubles, whatever the time step), shape matching's
// comes from α, the regions and the time step, and changes with dt.
func TestExampleTwistLoadResponse(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: eight static solves and 4000 shape-matching steps")
	}
	ex := twistExample(t)
	run := func(s *graph.Scene, path string, steps int) (float64, float64) {
		st := stateOf(t, s, path)
		for i := 0; i < steps; i++ {
			if err := s.Step(); err != nil {
				t.Fatal(err)
			}
		}
		return twistMeasure(st, ex)
	}
	t.Logf("| model (scene load: 4 N·m at rest) | twist of the top face | distance to the example |")
	row := func(name string, s *graph.Scene, path string, steps int) float64 {
		a, d := run(s, path, steps)
		t.Logf("| %s | %.3f° | %.4f |", name, a, d)
		return a
	}
	mat := row("FEM, material only (k = 0)", loadTwist(t, false, "fem/example.stiffness", "0"), "fem/dofs", 1)
	both := row("FEM, material + example (k = E = 100 kPa)", loadTwist(t, false), "fem/dofs", 1)
	exOnly := row("FEM, example term only (k = 100 kPa)", loadTwist(t, true), "fem/dofs", 1)
	sm := row("shape matching, example only (α = 0.5, dt = 10 ms, 1000 steps)", loadTwist(t, false), "shapematching/dofs", 1000)
	const noLoadBoth = 51.0769 // TestExampleTwistMonotoneInK, k = E
	if !(mat > 0 && both > mat && both > noLoadBoth) {
		t.Errorf("material %.4g°, material + example %.4g° (no load: %.4g°): the load should add to the twist", mat, both, noLoadBoth)
	}
	// At 90° the dead load has no moment: both example-only models stay
	// within a degree of the example.
	if math.Abs(exOnly-90) > 1 || math.Abs(sm-90) > 1 {
		t.Errorf("example-only models under the scene's load: %.4g° (potential), %.4g° (shape matching)", exOnly, sm)
	}

	t.Logf("| model (torque at the example pose) | torque | twist beyond the example |")
	// Both start at the example pose.
	atExample := func(s *graph.Scene, path string) *graph.Scene {
		st := stateOf(t, s, path)
		x, rest := st.Vec(graph.Position), st.Vec(graph.RestPosition)
		for i := range x {
			x[i] = ex[i] + rest[i%3] - ex[i%3] // the example, shifted like the bar (vertex 0 is on the clamped face)
		}
		return s
	}
	var fem []float64
	for _, c := range []struct{ k, tau string }{{"1e5", "1"}, {"1e5", "2"}, {"2e5", "2"}} {
		a, _ := run(atExample(loadTwist(t, true, "fem/torque.forces", atExampleTorque(mustFloat(c.tau)), "fem/example.stiffness", c.k), "fem/dofs"), "fem/dofs", 1)
		t.Logf("| FEM example term, k = %s Pa | %s N·m | %.4f° |", c.k, c.tau, a-90)
		fem = append(fem, a-90)
	}
	var smA []float64
	for _, c := range []struct{ dt, tau string }{{"0.01", "1"}, {"0.01", "2"}, {"0.005", "2"}} {
		steps := int(10 / mustFloat(c.dt))
		a, _ := run(atExample(loadTwist(t, false, "dt", c.dt, "shapematching/torque.forces", atExampleTorque(mustFloat(c.tau))), "shapematching/dofs"), "shapematching/dofs", steps)
		t.Logf("| shape matching, α = 0.5, dt = %s s | %s N·m | %.4f° |", c.dt, c.tau, a-90)
		smA = append(smA, a-90)
	}
	// The potential: the equilibrium of k∇W₁ = τ g depends on τ/k alone
	// (exactly: the solver's tolerance, 1e-10), and the angle is linear in
	// τ up to the geometric nonlinearity, O(θ²) ≈ 7e-3 for θ = 0.08 rad
	// (measured 2e-4).
	if math.Abs(fem[2]-fem[0]) > 1e-8*fem[0] || math.Abs(fem[1]/fem[0]-2) > 7e-3 {
		t.Errorf("example potential: angles %v not proportional to τ/k", fem)
	}
	// Shape matching: linear in τ likewise, and its stiffness is α·m/dt²,
	// so halving dt quarters the angle (measured 0.2498).
	if math.Abs(smA[1]/smA[0]-2) > 7e-3 || math.Abs(smA[2]/smA[1]-0.25) > 0.25*7e-3 {
		t.Errorf("shape matching: angles %v: not linear in τ, or not ∝ dt²", smA)
	}
}

func mustFloat(s string) float64 {
	var x float64
	if _, err := fmt.Sscan(s, &x); err != nil {
		panic(err)
	}
	return x
}

const sneakerScene = "../scenes/example_fem_sneaker.toml"

// sneakerDistances are the distances from the groups (x < 0.3 m, x > 1.1
// m) at which the locality table is measured.
var sneakerDistances = []float64{0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3}

// sneakerResult is what one run of the sneaker scene (or a variant)
// measures.
type sneakerResult struct {
	// Mean outward bow of the front and back walls at mid-height (y =
	// 0.15 m) where the examples are fully bowed (x ≤ 0.05 m, x ≥ 1.35 m):
	// plain block, block with the examples, the examples themselves.
	bowPlain, bowEx, bowExample float64
	// Largest |u − u_plain| outside the groups at least sneakerDistances[i]
	// from them, relative to the largest |u_plain|.
	diff []float64
	// Largest |u − u_plain| anywhere, relative likewise.
	diffAll float64
	// The final states.
	xp, rp, xe, re []float64
}

// runSneaker runs the sneaker scene text (with example files ex[0], ex[1]
// for the left and right ends, read for the bows) to its end.
func runSneaker(t *testing.T, text string, ex [2]string) sneakerResult {
	t.Helper()
	s, err := graph.LoadWith(sneakerScene, []byte(text), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Init(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < s.Steps; i++ {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
	}
	plain, withEx := stateOf(t, s, "plain/dofs"), stateOf(t, s, "examples/dofs")
	r := sneakerResult{xp: plain.Vec(graph.Position), rp: plain.Vec(graph.RestPosition), xe: withEx.Vec(graph.Position), re: withEx.Vec(graph.RestPosition)}
	var exPts [2][]float64
	for k, f := range ex {
		m, err := meshio.Read(f)
		if err != nil {
			t.Fatal(err)
		}
		exPts[k] = m.Points
	}
	n := len(r.rp) / 3
	maxU := 0.0
	for i := 0; i < n; i++ {
		maxU = math.Max(maxU, geom.At(r.xp, i).Sub(geom.At(r.rp, i)).Norm())
	}
	count := 0
	for i := 0; i < n; i++ {
		p := geom.At(r.rp, i)
		if math.Abs(p[1]-0.15) > 1e-9 || (p[2] > 1e-9 && p[2] < 0.3-1e-9) || (p[0] > 0.05+1e-9 && p[0] < 1.35-1e-9) {
			continue
		}
		out := 1.0 // outward: +z on the front wall, −z on the back wall
		if p[2] < 0.15 {
			out = -1
		}
		k := 0
		if p[0] > 0.7 {
			k = 1
		}
		r.bowPlain += out * (r.xp[3*i+2] - p[2])
		r.bowEx += out * (r.xe[3*i+2] - r.re[3*i+2])
		r.bowExample += out * (exPts[k][3*i+2] - p[2])
		count++
	}
	r.bowPlain, r.bowEx, r.bowExample = r.bowPlain/float64(count), r.bowEx/float64(count), r.bowExample/float64(count)
	for i := 0; i < n; i++ {
		d := geom.At(r.xe, i).Sub(geom.At(r.re, i)).Sub(geom.At(r.xp, i).Sub(geom.At(r.rp, i))).Norm()
		r.diffAll = math.Max(r.diffAll, d/maxU)
	}
	for _, d := range sneakerDistances {
		worst := 0.0
		for i := 0; i < n; i++ {
			if x := r.rp[3*i]; x < 0.3+d || x > 1.1-d {
				continue
			}
			ue := geom.At(r.xe, i).Sub(geom.At(r.re, i))
			up := geom.At(r.xp, i).Sub(geom.At(r.rp, i))
			worst = math.Max(worst, ue.Sub(up).Norm())
		}
		r.diff = append(r.diff, worst/maxU)
	}
	return r
}

func (r sneakerResult) log(t *testing.T, name string) {
	t.Helper()
	row := ""
	for _, d := range r.diff {
		row += fmt.Sprintf(" %.2f %% |", 100*d)
	}
	t.Logf("%s: bows %.1f mm plain, %.1f mm with the examples, %.1f mm in the examples; difference outside the groups at %v m: |%s", name, 1e3*r.bowPlain, 1e3*r.bowEx, 1e3*r.bowExample, sneakerDistances, row)
}

// TestExampleSneakerLocal: the sneaker scene's two blocks pressed down by
// 20 %. With the two local examples both ends buckle outward like their
// example (their walls bow out three times as far as the plain block's,
// a good part of the way to the examples' own bow), and outside the two
// groups the displacement stays within 1 % of the plain block's largest
// displacement, from the groups' edges on (issue 18, item 4), decaying
// with the distance from them. The examples are the plain block's final
// state with one end bowed (posegen -snapshot): outside their end they
// are that state, to the last bit.
func TestExampleSneakerLocal(t *testing.T) {
	data, err := os.ReadFile(sneakerScene)
	if err != nil {
		t.Fatal(err)
	}
	ex := [2]string{"../scenes/meshes/block_bulge_left.vtk", "../scenes/meshes/block_bulge_right.vtk"}
	r := runSneaker(t, string(data), ex)
	r.log(t, "scene")
	if !(r.bowPlain > 0 && r.bowEx > 2.5*r.bowPlain && r.bowEx < r.bowExample) {
		t.Errorf("bows: plain %.4g m, with examples %.4g m, examples %.4g m: the ends do not buckle outward toward the examples", r.bowPlain, r.bowEx, r.bowExample)
	}
	for k, d := range sneakerDistances {
		if r.diff[k] > 0.01 {
			t.Errorf("%.2f m from the groups the displacement differs from the plain block's by %.2f %% of its largest (issue 18: within 1 %%)", d, 100*r.diff[k])
		}
		if k > 0 && r.diff[k] > r.diff[k-1] {
			t.Errorf("the difference grows from %.3g to %.3g at %.2f m from the groups", r.diff[k-1], r.diff[k], d)
		}
	}
	// The examples are the plain block's final state outside their end:
	// the snapshot is this scene's plain block (deterministic: the same
	// bits), and posegen leaves points outside the bulge's band as they
	// are.
	n := len(r.rp) / 3
	for k, f := range ex {
		m, err := meshio.Read(f)
		if err != nil {
			t.Fatal(err)
		}
		worst := 0.0
		for i := 0; i < n; i++ {
			if x := r.rp[3*i]; (k == 0 && x >= 0.3-1e-9) || (k == 1 && x <= 1.1+1e-9) {
				worst = math.Max(worst, geom.At(m.Points, i).Sub(geom.At(r.xp, i)).Norm())
			}
		}
		if worst > 1e-12 {
			t.Errorf("%s differs from the plain block's final state outside its end by %.3g m: regenerate the snapshot and the examples (commands in the scene's header)", f, worst)
		}
	}
}

// TestExampleSneakerVariants measures why the sneaker scene is built as it
// is (README table), against variants of it:
//
//   - the plain state on the manifold (every example in both groups, so
//     the other end's example, which is the plain state there, is a point
//     of each manifold): the plain state is then an equilibrium of the
//     material and the example term together, and nothing bulges — the
//     block with examples stays the plain block (to the Newton tolerance);
//   - no groupFalloff: the term's stress ends with a jump at the groups'
//     edges, which the outside feels: more than the shipped scene there;
//   - the examples made from the rest block instead of the simulated state
//     (posegen compressing and bowing the ends of the rest block, the
//     scene's former examples: the example's strain at the group's edge
//     is not the plain state's): by far the largest difference.
func TestExampleSneakerVariants(t *testing.T) {
	if testing.Short() {
		t.Skip("three runs of the sneaker scene")
	}
	data, err := os.ReadFile(sneakerScene)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	const groupEx, falloff = "  groupExamples = [[0], [1]]", "  groupFalloff = 0.15"
	if !strings.Contains(text, groupEx) || !strings.Contains(text, falloff) {
		t.Fatal("the sneaker scene's groupExamples or groupFalloff changed: update the test")
	}
	ex := [2]string{"../scenes/meshes/block_bulge_left.vtk", "../scenes/meshes/block_bulge_right.vtk"}
	shipped := runSneaker(t, text, ex)
	shipped.log(t, "scene")

	onManifold := runSneaker(t, strings.Replace(text, groupEx, "", 1), ex)
	onManifold.log(t, "plain state on the manifold")
	t.Logf("plain state on the manifold: largest difference anywhere %.3g of the plain displacement", onManifold.diffAll)
	// The term's residual, and so its force, is rounding at the plain
	// state on every step (it is on the manifold), so both blocks take the
	// same Newton path: they agree to rounding (3.7e-15 measured).
	if onManifold.diffAll > 1e-12 {
		t.Errorf("with the plain state on the manifold the block moved by %.3g of the plain displacement: it should be an equilibrium", onManifold.diffAll)
	}

	noFalloff := runSneaker(t, strings.Replace(text, falloff, "", 1), ex)
	noFalloff.log(t, "no groupFalloff")
	if !(noFalloff.diff[0] > shipped.diff[0]) {
		t.Errorf("without groupFalloff the difference at the groups' edges is %.3g, with it %.3g", noFalloff.diff[0], shipped.diff[0])
	}

	// The former examples: the rest block compressed by 20 % in its ends
	// with the walls bowed by 40 %, ramping in over 0.15 m.
	dir := t.TempDir()
	var rest [2]string
	g, err := meshio.Read(ex[0])
	if err != nil {
		t.Fatal(err)
	}
	rp := shipped.rp
	if len(g.Points) != len(rp) {
		t.Fatal("example and state differ in size")
	}
	for k, band := range [2][2]float64{{-1, 0.4}, {1, 2.4}} {
		b := pose.Bulge{Center: geom.Vec3{0.7, 0.15, 0.15}, Axis: geom.Vec3{0, 1, 0}, Out: geom.Vec3{0, 0, 1}, From: 0, To: 0.3,
			Amount: 0.4, Axial: 0.8, Across: geom.Vec3{1, 0, 0}, AcrossFrom: band[0], AcrossTo: band[1], Blend: 0.15}
		restMesh := &meshio.Mesh{Points: restOf(rp), Tetrahedra: g.Tetrahedra}
		m, bad, err := pose.Mesh(restMesh, b)
		if err != nil || len(bad) > 0 {
			t.Fatalf("rest-based example %d: %v, %d bad tetrahedra", k, err, len(bad))
		}
		rest[k] = filepath.Join(dir, fmt.Sprintf("rest_bulge_%d.vtk", k))
		if err := meshio.Write(rest[k], m); err != nil {
			t.Fatal(err)
		}
	}
	fromRest := strings.Replace(strings.Replace(text, groupEx, "", 1), falloff, "", 1)
	fromRest = strings.Replace(fromRest, `examples = ["meshes/block_bulge_left.vtk", "meshes/block_bulge_right.vtk"]`,
		fmt.Sprintf("examples = [%q, %q]", filepath.ToSlash(rest[0]), filepath.ToSlash(rest[1])), 1)
	rr := runSneaker(t, fromRest, rest)
	rr.log(t, "examples from the rest block")
	if !(rr.diff[0] > noFalloff.diff[0]) {
		t.Errorf("examples from the rest block: difference %.3g at the groups' edges, not more than from the simulated state's (%.3g)", rr.diff[0], noFalloff.diff[0])
	}
}

// restOf returns a copy of the rest positions (the scene's plain block is
// not translated, so they are the grid's).
func restOf(rp []float64) []float64 { return append([]float64(nil), rp...) }
