package validation

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

// Mass–spring validation (issue 14): closed forms of a hanging chain and
// of a spring pendulum, energy conservation of an undamped spring network
// under symplectic Euler, and altitude springs restoring a crushed
// tetrahedral block where edge springs alone leave it inverted.

// TestHangingChain: N points of mass m hang below a fixed anchor on N
// springs of stiffnesses k_i and rest lengths L_i. Spring i carries the
// weight of the N − i + 1 points below it, so at equilibrium its
// elongation is exactly (N − i + 1)·m·g/k_i. The anchor is a state of its
// own, joined to the chain by an interaction spring (two states, one
// solver); the chain's springs are a one-state SpringForceField. Static
// Newton with a dense direct solve: the problem is linear along the
// vertical (the springs stay aligned), so the first Newton step is exact
// up to rounding, ~1e-16 of the positions, ~1e-14 of the elongations.
func TestHangingChain(t *testing.T) {
	const N, m, L = 10, 0.2, 0.1
	k := make([]float64, N+1) // k[i]: spring above point i (1-based)
	var pos, springs []string
	for i := 1; i <= N; i++ {
		k[i] = 50 + 17*float64(i%4) + 3*float64(i)
		// Start stretched by 10%: a slack spring has no sideways
		// stiffness (T/l = 0), and the tangent of a slack chain would be
		// singular across it.
		pos = append(pos, fmt.Sprintf("[0, %g, 0]", -1.1*float64(i)*L))
		if i > 1 {
			// Chain points are 0-based in their state: point i is index i−1.
			springs = append(springs, fmt.Sprintf("{m1 = %d, m2 = %d, stiffness = %g, restLength = %g}", i-2, i-1, k[i], L))
		}
	}
	text := fmt.Sprintf(`
gravity = [0, -9.81, 0]
dt = 1
[[node]]
name = "root"
  [[node.object]]
  type = "StaticSolver"
  iterations = 5
  tolerance = 1e-15
  absoluteTolerance = 1e-13
  failOnNonConvergence = false
  [[node.object]]
  type = "DenseDirectSolver"
  [[node.node]]
  name = "anchor"
    [[node.node.object]]
    type = "MechanicalObject"
    name = "dofs"
    position = [[0, 0, 0]]
    [[node.node.object]]
    type = "UniformMass"
    vertexMass = 1
    [[node.node.object]]
    type = "FixedConstraint"
    indices = [0]
  [[node.node]]
  name = "chain"
    [[node.node.object]]
    type = "MechanicalObject"
    name = "dofs"
    position = [%s]
    [[node.node.object]]
    type = "UniformMass"
    vertexMass = %g
    [[node.node.object]]
    type = "SpringForceField"
    name = "links"
    springs = [%s]
  [[node.object]]
  type = "SpringForceField"
  name = "top"
  object1 = "@anchor/dofs"
  object2 = "@chain/dofs"
  springs = [{m1 = 0, m2 = 0, stiffness = %g, restLength = %g}]
`, strings.Join(pos, ", "), m, strings.Join(springs, ", "), k[1], L)
	s := graphtest.MustLoad(t, "chain.toml", text)
	if err := s.Step(); err != nil {
		t.Fatal(err)
	}
	chain := graphtest.Find[graph.State](t, s, "root/chain/dofs").Vec(graph.Position)
	prevY := 0.0
	worst := 0.0
	for i := 1; i <= N; i++ {
		y := chain[3*(i-1)+1]
		want := float64(N-i+1) * m * gAcc / k[i]
		got := (prevY - y) - L
		rel := math.Abs(got-want) / want
		worst = math.Max(worst, rel)
		if rel > 1e-10 {
			t.Errorf("spring %d: elongation %.15g m, closed form (N−i+1)mg/k = %.15g m (relative %.2g)", i, got, want, rel)
		}
		if x, z := chain[3*(i-1)], chain[3*(i-1)+2]; x != 0 || z != 0 {
			t.Errorf("point %d left the vertical: x = %g, z = %g", i, x, z)
		}
		prevY = y
	}
	t.Logf("largest relative elongation error over %d springs: %.2g", N, worst)
}

// pendulumScene: a bob of mass m on a spring (k, rest length L0) from a
// fixed anchor at the origin, integrated by symplectic Euler.
func pendulumScene(m, k, L0, dt float64, bob [3]float64) string {
	return fmt.Sprintf(`
gravity = [0, -9.81, 0]
dt = %g
[[node]]
name = "pendulum"
  [[node.object]]
  type = "EulerExplicitSolver"
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  position = [[0, 0, 0], [%.17g, %.17g, %.17g]]
  [[node.object]]
  type = "UniformMass"
  vertexMass = %g
  [[node.object]]
  type = "FixedConstraint"
  indices = [0]
  [[node.object]]
  type = "SpringForceField"
  springs = [{m1 = 0, m2 = 1, stiffness = %g, restLength = %g}]
`, dt, bob[0], bob[1], bob[2], m, k, L0)
}

// crossingPeriod runs s for steps steps and returns the mean period of
// the upward zero crossings of value(s) − ref, interpolated linearly
// within a step, and the number of periods measured.
func crossingPeriod(t *testing.T, s *graph.Scene, steps int, dt float64, value func() float64, ref float64) (float64, int) {
	t.Helper()
	var first, last float64
	n := -1
	prev := value() - ref
	for i := 1; i <= steps; i++ {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
		cur := value() - ref
		if prev < 0 && cur >= 0 {
			tc := (float64(i) - cur/(cur-prev)) * dt
			if n < 0 {
				first = tc
			}
			last = tc
			n++
		}
		prev = cur
	}
	if n < 1 {
		t.Fatalf("fewer than two crossings in %d steps", steps)
	}
	return (last - first) / float64(n), n
}

// TestSpringPendulumPeriods: a mass m on a spring of stiffness k under
// gravity. Radial: moved along the vertical from its equilibrium, it
// oscillates at ω_r = √(k/m) exactly (the motion stays on the line, where
// the spring is linear). Swinging: released at a small angle θ₀ on the
// equilibrium length L = L₀ + mg/k, it swings at ω_s = √(g/L) — the
// transverse stiffness T/l = mg/L of the stretched spring (the geometric
// term of the tangent) is the pendulum's restoring stiffness. Symplectic
// Euler with ωh ≤ 2e-3 stretches a period by (ωh)²/24 ≤ 1.7e-7; the
// amplitude θ₀ = 0.005 adds θ₀²/16 = 1.6e-6 to the swing and the
// elastic-pendulum coupling (ω_r/ω_s = 6.5, far from the 2:1 resonance)
// less; hence 1e-5 (radial) and 2e-5 (swing).
func TestSpringPendulumPeriods(t *testing.T) {
	const m, k, L0, dt = 1.0, 400.0, 1.0, 1e-4
	L := L0 + m*gAcc/k
	t.Run("radial", func(t *testing.T) {
		s := graphtest.MustLoad(t, "radial.toml", pendulumScene(m, k, L0, dt, [3]float64{0, -L - 0.01, 0}))
		x := graphtest.Find[graph.State](t, s, "pendulum/dofs").Vec(graph.Position)
		T, n := crossingPeriod(t, s, 20000, dt, func() float64 { return x[4] }, -L)
		want := 2 * math.Pi * math.Sqrt(m/k)
		t.Logf("radial period %.9f s over %d periods, closed form 2π√(m/k) = %.9f s (relative %.2g)", T, n, want, T/want-1)
		if math.Abs(T/want-1) > 1e-5 {
			t.Errorf("radial period %.9f s, want %.9f s", T, want)
		}
		if xs, zs := x[3], x[5]; xs != 0 || zs != 0 {
			t.Errorf("radial motion left the vertical: x = %g, z = %g", xs, zs)
		}
	})
	t.Run("swing", func(t *testing.T) {
		th := 0.005
		s := graphtest.MustLoad(t, "swing.toml", pendulumScene(m, k, L0, dt, [3]float64{L * math.Sin(th), -L * math.Cos(th), 0}))
		x := graphtest.Find[graph.State](t, s, "pendulum/dofs").Vec(graph.Position)
		T, n := crossingPeriod(t, s, 100000, dt, func() float64 { return x[3] }, 0)
		want := 2 * math.Pi * math.Sqrt(L/gAcc)
		t.Logf("swing period %.9f s over %d periods, closed form 2π√(L/g) = %.9f s (relative %.2g)", T, n, want, T/want-1)
		if math.Abs(T/want-1) > 2e-5 {
			t.Errorf("swing period %.9f s, want %.9f s", T, want)
		}
	})
}

// springBlockScene: a 0.4 × 0.1 × 0.1 m bar of tetrahedral mass–spring
// (Van Gelder edge springs from E, optional altitude springs), lumped
// mass.
func springBlockScene(solver string, E, rho, dt float64, extra string) string {
	return fmt.Sprintf(`
dt = %g
gravity = [0, -9.81, 0]
[[node]]
name = "bar"
%s
  [[node.object]]
  type = "RegularGridTopology"
  min = [0, 0, 0]
  max = [0.4, 0.1, 0.1]
  n = [9, 3, 3]
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[node.object]]
  type = "DiagonalMass"
  massDensity = %g
  [[node.object]]
  type = "MeshSpringForceField"
  name = "springs"
  youngModulus = %g
%s`, dt, solver, rho, E, extra)
}

// TestSpringNetworkConservesEnergy: an undamped mass–spring bar (edge,
// triangle and altitude springs) clamped at one end and released under
// gravity, integrated by symplectic Euler for 10,000 steps, keeps its
// total energy within 1% of the energy it exchanges (the largest kinetic
// energy), as the FEM beam does (TestSymplecticEulerConservesEnergy).
// The time step is a fifth of h/c with c = √(E/ρ) the bar's wave speed.
func TestSpringNetworkConservesEnergy(t *testing.T) {
	steps := 10000
	if testing.Short() {
		steps = 2000
	}
	const E, rho, h = 1e5, 100.0, 0.05
	dt := 0.2 * h / math.Sqrt(E/rho)
	text := springBlockScene(`  [[node.object]]
  type = "EulerExplicitSolver"`, E, rho, dt, `  trianglesStiffness = 200
  altitudeSprings = true
  altitudeStiffness = 100
  [[node.object]]
  type = "FixedConstraint"
  box = [-1e-9, -1, -1, 1e-9, 1, 1]
`)
	s := graphtest.MustLoad(t, "energy.toml", text)
	k0, p0 := s.Energies()
	e0 := k0 + p0
	maxKin, maxDrift := 0.0, 0.0
	for i := 0; i < steps; i++ {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
		k, p := s.Energies()
		maxKin = math.Max(maxKin, k)
		maxDrift = math.Max(maxDrift, math.Abs(k+p-e0))
	}
	t.Logf("dt = %.3g s, %d steps (%.2f s): max |E − E0| = %.4g J, max kinetic energy %.4g J (%.3f%%)",
		dt, steps, float64(steps)*dt, maxDrift, maxKin, 100*maxDrift/maxKin)
	if maxKin == 0 {
		t.Fatal("the bar never moved")
	}
	if maxDrift > 0.01*maxKin {
		t.Errorf("energy drift %.4g J exceeds 1%% of the exchanged energy %.4g J", maxDrift, maxKin)
	}
}

// crushScene: a 3×3×3-cell cube (162 tetrahedra) of mass–spring without
// gravity, damped along its edge springs, integrated by symplectic Euler
// (the crushed cube's compressed springs have a strongly negative
// transverse stiffness, −T/l with l → 0, which no implicit step of
// reasonable size keeps positive definite).
func crushScene(altitude bool, dt, damping float64) string {
	extra := ""
	if altitude {
		extra = "  altitudeSprings = true\n  altitudeStiffness = 200\n"
	}
	return fmt.Sprintf(`
dt = %g
gravity = [0, 0, 0]
[[node]]
name = "cube"
  [[node.object]]
  type = "EulerExplicitSolver"
  [[node.object]]
  type = "RegularGridTopology"
  min = [0, 0, 0]
  max = [0.3, 0.3, 0.3]
  n = [4, 4, 4]
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[node.object]]
  type = "DiagonalMass"
  massDensity = 100
  [[node.object]]
  type = "MeshSpringForceField"
  name = "springs"
  youngModulus = 1e4
  tetrahedraDamping = %g
%s`, dt, damping, extra)
}

// crush flattens the cube onto the plane z = 0 with a small random jitter
// (1 mm in z, 5 mm in x and y), so its tetrahedra end up flat, with
// either orientation.
func crush(x []float64, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	for i := 0; i < len(x)/3; i++ {
		x[3*i] += 0.005 * (2*rng.Float64() - 1)
		x[3*i+1] += 0.005 * (2*rng.Float64() - 1)
		x[3*i+2] = 0.001 * (2*rng.Float64() - 1)
	}
}

// shapeError returns the largest distance between x and the best proper
// rigid motion of rest (centroids matched, rotation the polar factor of
// the cross-covariance), and the determinant of that polar factor (−1
// when the best orthogonal fit is a reflection).
func shapeError(x, rest []float64) (float64, float64) {
	n := len(x) / 3
	var cx, cr geom.Vec3
	for i := 0; i < n; i++ {
		cx = cx.Add(geom.At(x, i))
		cr = cr.Add(geom.At(rest, i))
	}
	cx, cr = cx.Scale(1/float64(n)), cr.Scale(1/float64(n))
	var H geom.Mat3
	for i := 0; i < n; i++ {
		H = H.Add(geom.At(x, i).Sub(cx).Outer(geom.At(rest, i).Sub(cr)))
	}
	R, _ := geom.Polar(H)
	worst := 0.0
	for i := 0; i < n; i++ {
		d := geom.At(x, i).Sub(cx).Sub(R.MulVec(geom.At(rest, i).Sub(cr)))
		worst = math.Max(worst, d.Norm())
	}
	return worst, R.Det()
}

// invertedTets counts the tetrahedra of non-positive volume at x.
func invertedTets(x []float64, tets [][4]int) int {
	n := 0
	for _, t := range tets {
		a := geom.At(x, t[0])
		D := geom.Cols(geom.At(x, t[1]).Sub(a), geom.At(x, t[2]).Sub(a), geom.At(x, t[3]).Sub(a))
		if D.Det() <= 0 {
			n++
		}
	}
	return n
}

// TestAltitudeSpringsUncrush (issue 14, item 3): the cube crushed flat and
// released recovers its rest shape with altitude springs — every
// tetrahedron positive again, the shape a proper rigid motion of the rest
// shape to 1e-12 of its size after 3 s of damped motion (the error falls
// about tenfold every 0.1 s once the tetrahedra are upright, reaching the
// rounding of the positions, ~1e-15 m, by 2 s) — while with edge springs
// alone the same crushed cube settles, at rest, with about half its
// tetrahedra inverted (edge lengths fix a tetrahedron only up to its
// mirror image, so folded and mirrored regions cost nothing).
func TestAltitudeSpringsUncrush(t *testing.T) {
	const dt, damping, duration, size = 2e-4, 3.0, 3.0, 0.3
	steps := int(duration / dt)
	seeds := []uint64{1, 2, 3}
	if testing.Short() {
		seeds = seeds[:1]
	}
	for _, seed := range seeds {
		for _, altitude := range []bool{true, false} {
			s := graphtest.MustLoad(t, "crush.toml", crushScene(altitude, dt, damping))
			st := graphtest.Find[graph.State](t, s, "cube/dofs")
			tets := st.Base().Node.Topology().Tetrahedra()
			rest := append([]float64(nil), st.Vec(graph.RestPosition)...)
			x := st.Vec(graph.Position)
			crush(x, seed)
			inv0 := invertedTets(x, tets)
			for i := 0; i < steps; i++ {
				if err := s.Step(); err != nil {
					t.Fatal(err)
				}
			}
			inv := invertedTets(x, tets)
			e, det := shapeError(x, rest)
			kin, _ := s.Energies()
			t.Logf("seed %d, altitude springs %v: %d of %d tetrahedra inverted or flat after crushing, %d after %d steps; shape error %.3g m (fit det %+.0f), kinetic energy %.3g J",
				seed, altitude, inv0, len(tets), inv, steps, e, det, kin)
			if inv0 == 0 {
				t.Fatalf("seed %d: the crushed cube has no inverted or flat tetrahedron", seed)
			}
			if altitude {
				if inv != 0 || det < 0 || e > 1e-12*size {
					t.Errorf("seed %d: with altitude springs %d tetrahedra stay inverted, shape error %.3g m (limit %.3g), fit det %+.0f", seed, inv, e, 1e-12*size, det)
				}
			} else if inv < len(tets)/10 {
				t.Errorf("seed %d: edge springs alone left only %d inverted tetrahedra (shape error %.3g m): the test does not show what altitude springs add", seed, inv, e)
			}
		}
	}
}

// TestSpringsAssembledSolvers: a mass–spring cantilever (edge springs from
// E, altitude springs) and a cloth of springs and bending springs, ten
// implicit Euler steps each (stretched springs: the transverse terms are
// in the matrix), solved by CG to 1e-14, by SparseCholeskySolver
// (assembled from the closed-form 3×3 blocks) and by PCGLinearSolver with
// an assembled product: the same velocities to 1e-11 of the largest (the
// CG tolerance 1e-14 times the system's condition, ~1e3). The same with
// damped springs: the direct solver takes their damping matrix B.
func TestSpringsAssembledSolvers(t *testing.T) {
	bar := func(linear string) string {
		return springBlockScene(`  [[node.object]]
  type = "EulerImplicitSolver"
`+linear, 1e5, 100, 0.01, `  altitudeSprings = true
  altitudeStiffness = 100
  [[node.object]]
  type = "FixedConstraint"
  box = [-1e-9, -1, -1, 1e-9, 1, 1]
`)
	}
	cloth := func(linear string) string {
		return `
dt = 0.01
gravity = [0, -9.81, 0]
[[node]]
name = "bar"
  [[node.object]]
  type = "EulerImplicitSolver"
` + linear + `
  [[node.object]]
  type = "RegularGridTopology"
  min = [0, 0, 0]
  max = [1, 0, 1]
  n = [9, 1, 9]
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[node.object]]
  type = "UniformMass"
  totalMass = 0.2
  [[node.object]]
  type = "MeshSpringForceField"
  trianglesStiffness = 300
  [[node.object]]
  type = "TriangularBendingSprings"
  stiffness = 3
  [[node.object]]
  type = "FixedConstraint"
  indices = [0, 8]
`
	}
	solvers := map[string]string{
		"CG":     "  [[node.object]]\n  type = \"CGLinearSolver\"\n  iterations = 5000\n  tolerance = 1e-14\n",
		"sparse": "  [[node.object]]\n  type = \"SparseCholeskySolver\"\n",
		"PCG":    "  [[node.object]]\n  type = \"PCGLinearSolver\"\n  product = \"assembled\"\n  preconditioner = \"ic0\"\n  iterations = 5000\n  tolerance = 1e-14\n",
	}
	for name, scene := range map[string]func(string) string{"bar": bar, "cloth": cloth} {
		v := map[string][]float64{}
		for _, sv := range []string{"CG", "sparse", "PCG"} {
			s := graphtest.MustLoad(t, name+".toml", scene(solvers[sv]))
			for i := 0; i < 10; i++ {
				if err := s.Step(); err != nil {
					t.Fatalf("%s with %s: %v", name, sv, err)
				}
			}
			v[sv] = append([]float64(nil), graphtest.Find[graph.State](t, s, "bar/dofs").Vec(graph.Velocity)...)
		}
		scale := 0.0
		for _, x := range v["CG"] {
			scale = math.Max(scale, math.Abs(x))
		}
		for _, sv := range []string{"sparse", "PCG"} {
			worst := 0.0
			for i := range v["CG"] {
				worst = math.Max(worst, math.Abs(v[sv][i]-v["CG"][i]))
			}
			t.Logf("%s: %s vs CG: largest velocity difference %.3g of %.3g m/s", name, sv, worst, scale)
			if !(scale > 0) || worst > 1e-11*scale {
				t.Errorf("%s: %s differs from CG by %.3g m/s (largest velocity %.3g)", name, sv, worst, scale)
			}
		}
	}
	// Damped springs: SparseCholeskySolver takes B (probed with
	// AddDForce at kFactor = 0), CG applies it matrix free. One step from
	// rest: at zero velocity the damping force's turning term (its
	// position derivative c/l·u (P w)ᵀ, not symmetric) vanishes and the
	// system is symmetric, so both solvers solve the same one.
	damp := func(text string) string {
		return strings.Replace(text, "  altitudeSprings = true\n", "  tetrahedraDamping = 2\n  altitudeSprings = true\n", 1)
	}
	step1 := func(text string) []float64 {
		s := graphtest.MustLoad(t, "damped.toml", text)
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
		return append([]float64(nil), graphtest.Find[graph.State](t, s, "bar/dofs").Vec(graph.Velocity)...)
	}
	vCG, vSparse, vUndamped := step1(damp(bar(solvers["CG"]))), step1(damp(bar(solvers["sparse"]))), step1(bar(solvers["CG"]))
	worst, scale, felt := 0.0, 0.0, 0.0
	for i := range vCG {
		worst = math.Max(worst, math.Abs(vSparse[i]-vCG[i]))
		scale = math.Max(scale, math.Abs(vCG[i]))
		felt = math.Max(felt, math.Abs(vCG[i]-vUndamped[i]))
	}
	t.Logf("damped bar, one step: sparse vs CG %.3g of %.3g m/s; the damping changes the velocities by %.3g m/s", worst, scale, felt)
	if !(scale > 0) || worst > 1e-11*scale {
		t.Errorf("damped bar: SparseCholeskySolver differs from CG by %.3g m/s (largest velocity %.3g)", worst, scale)
	}
	if felt < 1e-3*scale {
		t.Errorf("damping changed the bar's first step by only %.3g m/s: B is not in the system", felt)
	}
}
