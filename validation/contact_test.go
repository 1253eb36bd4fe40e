package validation

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/sofago/sofago/components/collision"
	"github.com/sofago/sofago/components/solver"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
	"github.com/sofago/sofago/meshio"
)

// Contact validation (issue 8): resting and sliding blocks against closed
// forms, head-on collisions that must not pass through, energy of elastic
// bounces, and the object–object contact tangent against finite
// differences.

const gAcc = 9.81

func stepN(t testing.TB, s *graph.Scene, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
	}
}

// rigidBlockScene is a 1 kg rigid cube of side 0.1 m (RigidMass, inertia
// m a²/6) whose 8 corners are mapped points (RigidMapping) carrying a
// PlaneForceField: the plane through the origin with normal (sin θ, cos θ, 0)
// (a slope going down toward +x), the cube turned by −θ about z to sit on
// it, its bottom face starting at height lift above the plane, or at the
// equilibrium penetration mg cos θ/(4γ) when lift is 0 (at rest in contact).
func rigidBlockScene(theta, mu, gamma, damping, slip, dt, lift float64) string {
	const a, m = 0.1, 1.0
	n := geom.Vec3{math.Sin(theta), math.Cos(theta), 0}
	delta := m * gAcc * math.Cos(theta) / (4 * gamma)
	if lift != 0 {
		delta = -lift
	}
	c := n.Scale(a/2 - delta)
	q := geom.QuatFromAxisAngle(geom.Vec3{0, 0, 1}, -theta)
	return fmt.Sprintf(`
dt = %g
gravity = [0, -9.81, 0]
[[node]]
name = "block"
  [[node.object]]
  type = "EulerImplicitSolver"
  [[node.object]]
  type = "CGLinearSolver"
  iterations = 50
  tolerance = 1e-13
  [[node.object]]
  type = "MechanicalObject"
  name = "body"
  template = "Rigid3"
  position = [[%.17g, %.17g, 0, %.17g, %.17g, %.17g, %.17g]]
  [[node.object]]
  type = "RigidMass"
  mass = %g
  inertiaDiagonal = [%.17g, %.17g, %.17g]
  [[node.node]]
  name = "corners"
    [[node.node.object]]
    type = "MechanicalObject"
    name = "points"
    [[node.node.object]]
    type = "RigidMapping"
    points = [[-0.05, -0.05, -0.05], [0.05, -0.05, -0.05], [-0.05, -0.05, 0.05], [0.05, -0.05, 0.05],
              [-0.05, 0.05, -0.05], [0.05, 0.05, -0.05], [-0.05, 0.05, 0.05], [0.05, 0.05, 0.05]]
    [[node.node.object]]
    type = "PlaneForceField"
    name = "ground"
    normal = [%.17g, %.17g, 0]
    d = 0
    stiffness = %g
    damping = %g
    friction = %g
    slipVelocity = %g
`, dt, c[0], c[1], q[0], q[1], q[2], q[3], m, m*a*a/6, m*a*a/6, m*a*a/6, n[0], n[1], gamma, damping, mu, slip)
}

// TestBlockRestsOnPlane checks issue 8's item 1 on a rigid cube dropped
// from 1 mm onto a horizontal plane, touching it with four corners: each
// bottom corner must settle at the penetration δ = mg/k, k = 4γ the total
// contact stiffness (mg/(4γ) per corner, by symmetry), and the block must
// not drift. The
// equilibrium of implicit Euler (Δv = 0) is exactly f = 0, so after the
// contact's damped oscillation (ω = √(4γ/m) = 632 rad/s, damping ratio
// 4c/(2√(4γm)) = 0.63) dies out the penetration is exact to the
// tolerance of the last linear solve: the test asks 1e-6 relative where the
// issue asks 5%. Drift: over the second second, nothing may move by more
// than 1e-12 m (no tangential force exists on a flat plane; friction is
// on, μ = 0.5, and must not create any).
func TestBlockRestsOnPlane(t *testing.T) {
	const gamma, c = 1e5, 200.0
	s := graphtest.MustLoad(t, "rest.toml", rigidBlockScene(0, 0.5, gamma, c, 1e-4, 1e-3, 1e-3))
	corners := graphtest.Find[graph.State](t, s, "block/corners/points")
	body := graphtest.Find[graph.State](t, s, "block/body")
	stepN(t, s, 1000)
	x1 := append([]float64(nil), body.Vec(graph.Position)...)
	stepN(t, s, 1000)
	want := 1.0 * gAcc / (4 * gamma)
	for i := 0; i < 4; i++ {
		got := -corners.Vec(graph.Position)[3*i+1]
		if math.Abs(got-want) > 1e-6*want {
			t.Errorf("corner %d: penetration %.9g m, want mg/(4γ) = %.9g m (relative error %.2g)", i, got, want, math.Abs(got-want)/want)
		}
	}
	x2 := body.Vec(graph.Position)
	drift := 0.0
	for i := range x2 {
		drift = math.Max(drift, math.Abs(x2[i]-x1[i]))
	}
	t.Logf("penetration %.9g m (mg/(4γ) = %.9g m); largest coordinate change over the second second %.3g", -corners.Vec(graph.Position)[1], want, drift)
	if drift > 1e-12 {
		t.Errorf("the resting block drifts: a coordinate changed by %.3g over 1 s", drift)
	}
}

// femBlockOnPlane is a FEM cube (0.1 m, 4×4×4 vertices, UniformMass so that
// the mean velocity is the centre of mass's) on the plane y = 0 under a
// gravity tilted by θ (equivalent to a slope of angle θ, with the mesh
// axis-aligned), with a PlaneForceField on its own vertices.
func femBlockOnPlane(theta, mu, gamma, damping, slip, dt float64) string {
	const nBottom = 16
	delta := 1.0 * gAcc * math.Cos(theta) / (nBottom * gamma)
	return fmt.Sprintf(`
dt = %g
gravity = [%.17g, %.17g, 0]
[[node]]
name = "block"
  [[node.object]]
  type = "EulerImplicitSolver"
  rayleighStiffness = 0.001
  [[node.object]]
  type = "CGLinearSolver"
  iterations = 400
  tolerance = 1e-11
  [[node.object]]
  type = "RegularGridTopology"
  min = [0, %.17g, 0]
  max = [0.1, %.17g, 0.1]
  n = [4, 4, 4]
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[node.object]]
  type = "UniformMass"
  totalMass = 1
  [[node.object]]
  type = "TetrahedronFEMForceField"
  youngModulus = 1e7
  poissonRatio = 0.3
  [[node.object]]
  type = "PlaneForceField"
  name = "ground"
  normal = [0, 1, 0]
  d = 0
  stiffness = %g
  damping = %g
  friction = %g
  slipVelocity = %g
`, dt, gAcc*math.Sin(theta), -gAcc*math.Cos(theta), -delta, 0.1-delta, gamma, damping, mu, slip)
}

// TestFEMBlockRestsOnPlane is item 1 on a deformable block: the 16 bottom
// vertices of a FEM cube carry different loads (the FEM block is not
// rigid), but their contact forces must add up to mg, so the mean
// penetration is mg/k with k = 16γ; and the block must not drift.
func TestFEMBlockRestsOnPlane(t *testing.T) {
	const gamma = 4e4
	s := graphtest.MustLoad(t, "fem_rest.toml", femBlockOnPlane(0, 0.5, gamma, 20, 1e-4, 2e-3))
	dofs := graphtest.Find[graph.State](t, s, "block/dofs")
	stepN(t, s, 500)
	x1 := append([]float64(nil), dofs.Vec(graph.Position)...)
	stepN(t, s, 500)
	x := dofs.Vec(graph.Position)
	sum, n := 0.0, 0
	for i := 0; i < len(x)/3; i++ {
		if x[3*i+1] < 0.05 && x[3*i+1] < 0 {
			sum -= x[3*i+1]
			n++
		}
	}
	want := 1.0 * gAcc / (16 * gamma)
	mean := sum / float64(n)
	drift := 0.0
	for i := range x {
		drift = math.Max(drift, math.Abs(x[i]-x1[i]))
	}
	t.Logf("%d vertices in contact, mean penetration %.9g m (mg/(16γ) = %.9g m), drift over the second second %.3g m", n, mean, want, drift)
	if n != 16 || math.Abs(mean-want) > 1e-6*want {
		t.Errorf("mean penetration %.9g m over %d vertices, want %.9g m over 16 (relative error %.2g)", mean, n, want, math.Abs(mean-want)/want)
	}
	if drift > 1e-10 {
		t.Errorf("the resting block drifts: a coordinate changed by %.3g m over 1 s", drift)
	}
}

// slopeRun runs the rigid cube on a slope of angle θ and returns the
// position and velocity of its centre along the slope at t1 and t2.
func slopeRun(t *testing.T, theta, mu float64, t1, t2 float64) (s1, s2, v1, v2 float64) {
	const dt = 1e-3
	s := graphtest.MustLoad(t, "slope.toml", rigidBlockScene(theta, mu, 1e5, 200, 1e-4, dt, 0))
	body := graphtest.Find[graph.State](t, s, "block/body")
	down := geom.Vec3{math.Cos(theta), -math.Sin(theta), 0}
	along := func() (float64, float64) {
		x, v := body.Vec(graph.Position), body.Vec(graph.Velocity)
		return down.Dot(geom.Vec3{x[0], x[1], x[2]}), down.Dot(geom.Vec3{v[0], v[1], v[2]})
	}
	x0, _ := along()
	stepN(t, s, int(math.Round(t1/dt)))
	s1, v1 = along()
	stepN(t, s, int(math.Round((t2-t1)/dt)))
	s2, v2 = along()
	return s1 - x0, s2 - x0, v1, v2
}

// TestBlockOnSlopeSticks checks issue 8's item 2, sticking: a rigid cube on
// a 20° slope with μ = 0.6 > tan 20° = 0.364 must move less than 1 mm in
// 2 s. Regularised friction lets a sticking contact creep at
// v_s·atanh(tan θ/μ) = 1e-4 × 0.70 m/s, 0.14 mm in 2 s: the check has
// room, and the creep is the price of the smooth friction law (Penalty).
func TestBlockOnSlopeSticks(t *testing.T) {
	theta := 20 * math.Pi / 180
	_, s2, _, v2 := slopeRun(t, theta, 0.6, 1, 2)
	creep := 1e-4 * math.Atanh(math.Tan(theta)/0.6)
	t.Logf("moved %.4g mm down the slope in 2 s, speed %.3g m/s (regularisation creep v_s·atanh(tan θ/μ) = %.3g m/s)", s2*1e3, v2, creep)
	if math.Abs(s2) >= 1e-3 {
		t.Errorf("the block slid %.4g mm in 2 s with μ = 0.6 > tan θ = %.3f; want < 1 mm", s2*1e3, math.Tan(theta))
	}
	if math.Abs(v2-creep) > 0.05*creep {
		t.Errorf("creep speed %.4g m/s, want the regularised law's %.4g m/s", v2, creep)
	}
}

// TestBlockOnSlopeSlides checks issue 8's item 2, sliding: with μ = 0.2 <
// tan 20° the cube slides with a = g (sin θ − μ cos θ) = 1.5115 m/s². The
// acceleration is measured between 0.5 s and 1.5 s (sliding at 0.75 to
// 2.3 m/s, far above v_s = 1e-4 m/s, where tanh(|u|/v_s) = 1 to machine
// precision); implicit Euler integrates a constant force exactly, so the
// only error is the contact's normal oscillation, long damped: the test
// asks 1e-6 relative where the issue asks 5%.
func TestBlockOnSlopeSlides(t *testing.T) {
	theta, mu := 20*math.Pi/180, 0.2
	_, _, v1, v2 := slopeRun(t, theta, mu, 0.5, 1.5)
	a := (v2 - v1) / 1.0
	want := gAcc * (math.Sin(theta) - mu*math.Cos(theta))
	t.Logf("acceleration %.9g m/s², g(sin θ − μ cos θ) = %.9g m/s² (relative error %.2g)", a, want, math.Abs(a-want)/want)
	if math.Abs(a-want) > 1e-6*want {
		t.Errorf("acceleration %.9g m/s², want %.9g", a, want)
	}
}

// TestFEMBlockOnSlope repeats item 2 on a deformable (FEM) cube, the slope
// made by tilting gravity over the plane y = 0: sticking at μ = 0.6, and
// sliding at μ = 0.2 with the centre-of-mass acceleration of the closed
// form, measured over 1 s of sliding after 0.5 s: the internal forces
// cancel in the sum, so once the normal oscillation has died out the
// centre of mass feels exactly m g (sin θ − μ cos θ), 1e-6 relative.
func TestFEMBlockOnSlope(t *testing.T) {
	theta := 20 * math.Pi / 180
	const dt = 2e-3
	mean := func(v []float64, c int) float64 {
		s := 0.0
		for i := c; i < len(v); i += 3 {
			s += v[i]
		}
		return s / float64(len(v)/3)
	}
	for _, mu := range []float64{0.6, 0.2} {
		s := graphtest.MustLoad(t, "fem_slope.toml", femBlockOnPlane(theta, mu, 4e4, 20, 1e-4, dt))
		dofs := graphtest.Find[graph.State](t, s, "block/dofs")
		x0 := mean(dofs.Vec(graph.Position), 0)
		stepN(t, s, 250)
		v1 := mean(dofs.Vec(graph.Velocity), 0)
		stepN(t, s, 500)
		v2 := mean(dofs.Vec(graph.Velocity), 0)
		stepN(t, s, 250)
		moved := mean(dofs.Vec(graph.Position), 0) - x0
		if mu > math.Tan(theta) {
			t.Logf("μ = %g: moved %.4g mm in 2 s", mu, moved*1e3)
			if math.Abs(moved) >= 1e-3 {
				t.Errorf("μ = %g > tan θ: the block moved %.4g mm in 2 s, want < 1 mm", mu, moved*1e3)
			}
			continue
		}
		a := v2 - v1
		want := gAcc * (math.Sin(theta) - mu*math.Cos(theta))
		t.Logf("μ = %g: acceleration %.9g m/s², closed form %.9g (relative error %.2g)", mu, a, want, math.Abs(a-want)/want)
		if math.Abs(a-want) > 1e-6*want {
			t.Errorf("μ = %g: acceleration %.9g m/s², want %.9g", mu, a, want)
		}
	}
}

// headOnScene is two FEM cubes (0.1 m, 5×5×5 vertices, 1 kg, E = 1e7 Pa)
// 1 cm apart along x, flying at each other at speed each (closing at
// 2·speed), with TriangleCollisionModels on their boundaries and a
// CollisionPipeline. With oneSolver they share an implicit Euler solver
// (implicit contact coupling); otherwise each has its own (explicit
// coupling between solvers).
func headOnScene(speed, gamma, damping, dt float64, oneSolver bool) string {
	solver := `
  [[node.object]]
  type = "EulerImplicitSolver"
  [[node.object]]
  type = "CGLinearSolver"
  iterations = 500
  tolerance = 1e-10`
	top, each := solver, ""
	if !oneSolver {
		top, each = "", strings.ReplaceAll(solver, "[[node.object]]", "[[node.node.object]]")
	}
	block := func(name string, x0, v float64) string {
		return fmt.Sprintf(`
  [[node.node]]
  name = %q%s
    [[node.node.object]]
    type = "RegularGridTopology"
    min = [%g, -0.05, -0.05]
    max = [%g, 0.05, 0.05]
    n = [5, 5, 5]
    [[node.node.object]]
    type = "MechanicalObject"
    name = "dofs"
    velocity = [[%g, 0, 0]]
    [[node.node.object]]
    type = "UniformMass"
    totalMass = 1
    [[node.node.object]]
    type = "TetrahedronFEMForceField"
    youngModulus = 1e7
    poissonRatio = 0.3
    [[node.node.object]]
    type = "TriangleCollisionModel"
`, name, each, x0, x0+0.1, v)
	}
	return fmt.Sprintf(`
dt = %g
gravity = [0, 0, 0]
[[node]]
name = "world"%s
  [[node.object]]
  type = "CollisionPipeline"
  stiffness = %g
  damping = %g
  contactDistance = %g
%s%s`, dt, top, gamma, damping, 2.5*2*speed*dt, block("a", -0.105, speed), block("b", 0.005, -speed))
}

// insideCount returns how many points of x lie inside the closed surface
// (y, tris), by the generalized winding number (> 1/2 inside).
func insideCount(x, y []float64, tris [][3]int) int {
	w := meshio.NewWinding(&meshio.Mesh{Points: y, Triangles: tris})
	n := 0
	for i := 0; i < len(x)/3; i++ {
		if w.At([3]float64{x[3*i], x[3*i+1], x[3*i+2]}) > 0.5 {
			n++
		}
	}
	return n
}

// collide runs a head-on scene and returns the largest penetration the
// pipeline reported during the run, the total momentum along x before and
// after, and the kinetic energy before and after. After every step the
// blocks must still be in order along x (centre of a left of centre of
// b: they never passed through), and after the run, once they have
// bounced apart, no vertex of one may be inside the other (generalized
// winding numbers: an inside test independent of the pipeline's).
func collide(t *testing.T, text string, steps int) (maxPen, p0, p1, k0, k1 float64) {
	s := graphtest.MustLoad(t, "head_on.toml", text)
	a := graphtest.Find[graph.State](t, s, "world/a/dofs")
	b := graphtest.Find[graph.State](t, s, "world/b/dofs")
	pl := graphtest.Find[*collision.CollisionPipeline](t, s, "world/CollisionPipeline")
	tris := s.Root.Child("world").Child("a").Topology().Triangles()
	sumX := func(st graph.State, id graph.VecID) float64 {
		sum := 0.0
		v := st.Vec(id)
		for i := 0; i < len(v); i += 3 {
			sum += v[i] / 125 // 1 kg over 125 vertices
		}
		return sum
	}
	p0 = sumX(a, graph.Velocity) + sumX(b, graph.Velocity)
	k0, _ = s.Energies()
	for i := 0; i < steps; i++ {
		stepN(t, s, 1)
		_, d := pl.ContactStats()
		maxPen = max(maxPen, d)
		if ca, cb := sumX(a, graph.Position), sumX(b, graph.Position); ca >= cb {
			t.Fatalf("step %d: the blocks passed through each other (centres at x = %.4g and %.4g)", i+1, ca, cb)
		}
	}
	xa, xb := a.Vec(graph.Position), b.Vec(graph.Position)
	if n := insideCount(xa, xb, tris) + insideCount(xb, xa, tris); n > 0 {
		t.Errorf("after the run, %d vertices of one block are inside the other", n)
	}
	if va, vb := sumX(a, graph.Velocity), sumX(b, graph.Velocity); va >= 0 || vb <= 0 {
		t.Errorf("the blocks did not bounce apart: centre velocities %.3g and %.3g m/s", va, vb)
	}
	k1, _ = s.Energies()
	return maxPen, p0, sumX(a, graph.Velocity) + sumX(b, graph.Velocity), k0, k1
}

// TestHeadOnCollisionDoesNotPassThrough checks issue 8's item 3: two FEM
// blocks colliding head-on, each at 5 m/s (closing at 10 m/s), never pass
// through each other: after every step no vertex of one is inside the
// other. Documented setting: contact stiffness γ = 1e5 N/m per contact,
// dt = 1 ms, contactDistance = 2.5 × the closing distance per step. Both
// blocks share one implicit solver (implicit contact). The bounce is
// undamped (no dashpot, no Rayleigh damping): it must not gain kinetic
// energy (implicit Euler dissipates), and momentum is conserved (equal and
// opposite contact forces; 1e-9 of the initial momentum scale, from the
// linear solves' tolerance).
func TestHeadOnCollisionDoesNotPassThrough(t *testing.T) {
	maxPen, p0, p1, k0, k1 := collide(t, headOnScene(5, 1e5, 0, 1e-3, true), 60)
	t.Logf("largest penetration %.3g mm; momentum %.3g → %.3g kg·m/s; kinetic energy %.4g → %.4g J", maxPen*1e3, p0, p1, k0, k1)
	if k1 > k0 {
		t.Errorf("the undamped bounce gained kinetic energy: %.6g → %.6g J", k0, k1)
	}
	if math.Abs(p1-p0) > 1e-9*5 {
		t.Errorf("momentum not conserved: %.3g → %.3g", p0, p1)
	}
}

// TestHeadOnCollisionTwoSolvers is item 3 with each block integrated by
// its own implicit solver: the contact forces are exchanged explicitly,
// computed once per step at detection and held for the step
// (CollisionPipeline). Stable for h·√(γ(1/m_a + 1/m_b)) ≲ 1 with the
// vertex masses m = 8 g: γ = 2e4 N/m, h = 0.2 ms gives 0.32. Equal and
// opposite held forces conserve momentum to rounding.
func TestHeadOnCollisionTwoSolvers(t *testing.T) {
	maxPen, p0, p1, k0, k1 := collide(t, headOnScene(5, 2e4, 0, 2e-4, false), 300)
	t.Logf("largest penetration %.3g mm; momentum %.3g → %.3g kg·m/s; kinetic energy %.4g → %.4g J", maxPen*1e3, p0, p1, k0, k1)
	if k1 > k0 {
		t.Errorf("the undamped bounce gained kinetic energy: %.6g → %.6g J", k0, k1)
	}
	if math.Abs(p1-p0) > 1e-9*5 {
		t.Errorf("momentum not conserved: %.3g → %.3g", p0, p1)
	}
}

// TestElasticBounceDoesNotGainEnergy checks issue 8's item 3, energy: a
// rigid cube dropped flat from 2 cm onto an undamped, frictionless plane
// (γ = 1e5 N/m per corner) must not come back with more energy than it
// fell with. In free flight both Euler schemes conserve exactly the
// modified energy H̃ = ½mv² − m g·x + (h/2) m g·v (one step adds
// h m g·(v + v')/2 of kinetic energy, removes h m g·v' of potential energy
// and h² m g²/2 of the correction: they cancel), so H̃ before and after the
// bounce, both in flight, compare the bounce alone. Implicit Euler
// dissipates on the contact's fast mode; symplectic Euler conserves a
// modified energy of the smooth spring, and the step where the contact
// switches on or off errs by O(h) either way, so the drop heights sweep
// the phase of the impact within a step: no height may gain more than
// 1e-3 of the energy with symplectic Euler (the worst measured is noted in
// the log), none at all with implicit Euler.
func TestElasticBounceDoesNotGainEnergy(t *testing.T) {
	const dt, m = 1e-4, 1.0
	for _, kind := range []string{"implicit", "symplectic"} {
		worst := math.Inf(-1)
		for k := 0; k < 8; k++ {
			lift := 0.02 + 1e-4*float64(k)/8*3 // impact phases across a step
			text := rigidBlockScene(0, 0, 1e5, 0, 1e-4, dt, lift)
			if kind == "symplectic" {
				text = strings.Replace(text, `type = "EulerImplicitSolver"`, `type = "EulerExplicitSolver"`, 1)
			}
			s := graphtest.MustLoad(t, "bounce.toml", text)
			body := graphtest.Find[graph.State](t, s, "block/body")
			modified := func() float64 {
				x, v := body.Vec(graph.Position), body.Vec(graph.Velocity)
				kin, _ := s.Energies()
				return kin + m*gAcc*x[1] - dt/2*m*gAcc*v[1]
			}
			h0 := modified()
			// Fall (64 ms), bounce (~5 ms), rise: stop at 120 ms, in flight.
			stepN(t, s, 1200)
			if v := body.Vec(graph.Velocity)[1]; v <= 0 {
				t.Fatalf("%s, lift %g: not rising after the bounce (v = %g)", kind, lift, v)
			}
			gain := (modified() - h0) / h0
			worst = max(worst, gain)
			if kind == "implicit" && gain > 0 || gain > 1e-3 {
				t.Errorf("%s Euler, drop from %.5g m: the bounce gained %.3g of the energy", kind, lift, gain)
			}
		}
		t.Logf("%s Euler: largest relative energy change over the bounce %+.3g", kind, worst)
	}
}

// ballOnBlock is a rigid ball (r = 8 cm, 10 kg, surface points mapped by
// RigidMapping) resting on a FEM block clamped at its base, both in one
// implicit solver, with a pipeline (damping and friction on).
const ballOnBlock = `
dt = 0.001
gravity = [0, -9.81, 0]
[[node]]
name = "world"
  [[node.object]]
  type = "EulerImplicitSolver"
  rayleighMass = 1
  [[node.object]]
  type = "CGLinearSolver"
  iterations = 500
  tolerance = 1e-10
  [[node.object]]
  type = "CollisionPipeline"
  stiffness = 2e4
  damping = 10
  friction = 0.4
  slipVelocity = 0.01
  contactDistance = 0.01
  [[node.node]]
  name = "ball"
    [[node.node.object]]
    type = "MechanicalObject"
    name = "body"
    template = "Rigid3"
    position = [[0.13, 0.181, 0.15, 0.1, 0.2, 0.05, 0.97]]
    [[node.node.object]]
    type = "RigidMass"
    mass = 10
    inertiaDiagonal = [0.0256, 0.0256, 0.0256]
    [[node.node.node]]
    name = "surface"
      [[node.node.node.object]]
      type = "MeshLoader"
      filename = "../scenes/meshes/ball.obj"
      translation = [0.13, 0.181, 0.15]
      [[node.node.node.object]]
      type = "MechanicalObject"
      name = "points"
      [[node.node.node.object]]
      type = "RigidMapping"
      [[node.node.node.object]]
      type = "TriangleCollisionModel"
  [[node.node]]
  name = "block"
    [[node.node.object]]
    type = "RegularGridTopology"
    min = [0, 0, 0]
    max = [0.3, 0.1, 0.3]
    n = [7, 3, 7]
    [[node.node.object]]
    type = "MechanicalObject"
    name = "dofs"
    [[node.node.object]]
    type = "DiagonalMass"
    massDensity = 500
    [[node.node.object]]
    type = "TetrahedronFEMForceField"
    youngModulus = 1e6
    poissonRatio = 0.3
    [[node.node.object]]
    type = "FixedConstraint"
    box = [-1, -0.001, -1, 1, 0.001, 1]
    [[node.node.object]]
    type = "TriangleCollisionModel"
`

// TestContactTangentThroughMappings is issue 8's item 4 at the scale of a
// whole scene: after a rigid ball has fallen onto and pressed into a FEM
// block (both ways of contact active: the ball's vertices in the block's
// surface and the block's vertices in the ball's), the df the solver
// assembles — the contact interaction's stiffness on the mapped ball
// surface, brought up through RigidMapping's Jᵀ and its geometric
// stiffness under the contact forces, plus the block's FEM — must be the
// derivative of the force (graphtest.CheckOps, central differences, 1e-6
// as for every force field). The differences step by 1e-6 of the
// coordinate scale (0.3 µm): no contact lies that close to its switch
// (δ = 0) in this configuration, or the check would fail there.
func TestContactTangentThroughMappings(t *testing.T) {
	s := graphtest.MustLoad(t, "ball_on_block.toml", ballOnBlock)
	pl := graphtest.Find[*collision.CollisionPipeline](t, s, "world/CollisionPipeline")
	stepN(t, s, 150)
	n, d := pl.ContactStats()
	t.Logf("%d contacts, largest penetration %.3g mm", n, d*1e3)
	if n < 3 {
		t.Fatalf("only %d contacts: the ball is not pressing on the block", n)
	}
	// At rest: the mapped velocities J(x)·v of the ball's surface depend on
	// the ball's orientation, and Ops has no term for ∂(J v)/∂x, so a
	// velocity-dependent force (the dashpot, friction) on a mapped state
	// would add an unaccounted O(|ω|) difference; those forces' velocity
	// derivatives are checked by TestContactTangent in the collision
	// package.
	for _, st := range s.States() {
		clear(st.Vec(graph.Velocity))
	}
	graphtest.CheckOps(t, s.Ops(), graphtest.Options{Tolerance: 1e-6})
}

// loadSlope loads scenes/slope.toml, without its contacts (plane force
// fields, collision models, pipeline) when contacts is false: the blocks
// then fall freely, and the step costs what FEM and the solver cost alone.
func loadSlope(b *testing.B, contacts bool) *graph.Scene {
	s, err := graph.LoadFile("../scenes/slope.toml")
	if err != nil {
		b.Fatal(err)
	}
	if !contacts {
		s.Root.Walk(func(n *graph.Node) error {
			kept := n.Objects[:0]
			for _, o := range n.Objects {
				switch o.Base().TypeName {
				case "PlaneForceField", "TriangleCollisionModel", "CollisionPipeline":
				default:
					kept = append(kept, o)
				}
			}
			n.Objects = kept
			return nil
		})
	}
	if err := s.Init(); err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkSlopeStep measures one step of scenes/slope.toml (a FEM block
// of 768 tetrahedra under implicit Euler + CG, a shape-matching block of
// 225 particles under its own solver), with its contacts (two planes, both
// blocks' surfaces against each other) after 0.5 s of sliding, and without
// contacts (the same blocks in free fall). It reports the FEM solver's
// linear iterations, which the contact stiffness changes.
func BenchmarkSlopeStep(b *testing.B) {
	for _, contacts := range []bool{true, false} {
		name := "contacts"
		if !contacts {
			name = "no-contacts"
		}
		b.Run(name, func(b *testing.B) {
			s := loadSlope(b, contacts)
			sol := graphtest.Find[*solver.EulerImplicitSolver](b, s, "world/fem/EulerImplicitSolver")
			for i := 0; i < 250; i++ { // 0.5 s: sliding
				if err := s.Step(); err != nil {
					b.Fatal(err)
				}
			}
			iters := 0
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := s.Step(); err != nil {
					b.Fatal(err)
				}
				iters += sol.LastStats().Iterations
			}
			b.ReportMetric(float64(iters)/float64(b.N), "CG-iterations/step")
		})
	}
}
