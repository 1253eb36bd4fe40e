package validation

import (
	"math"
	"strconv"
	"testing"

	"github.com/sofago/sofago/components/forcefield"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

// Joint springs (issue 5): the precomputed spring network of
// scenes/frames_springs.toml against the sample-integrated model of
// scenes/frames_beam.toml, and the articulations of
// scenes/articulated_chain.toml.

// springsScene loads scenes/frames_springs.toml without the cache (tests
// must not depend on, or race for, cache files) and with the network
// options opts (TOML lines, may be empty).
func springsScene(t testing.TB, opts string, edit func(string) string) *graph.Scene {
	return loadFramesScene(t, "../scenes/frames_springs.toml", func(s string) string {
		s = framesReplaceOnce(t, s, "  poissonRatio = 0\n\n  [[node.node]]\n  name = \"centreline\"", "  poissonRatio = 0\n  cache = false\n"+opts+"\n  [[node.node]]\n  name = \"centreline\"")
		if edit != nil {
			s = edit(s)
		}
		return s
	})
}

func noGravity(t testing.TB) func(string) string {
	return func(s string) string {
		return framesReplaceOnce(t, s, "gravity = [0, -9.81, 0]", "gravity = [0, 0, 0]")
	}
}

// stiffnessOf returns the 6n×6n matrix of Ops.ComputeDf (k = 1) on the
// frames of scene s at their current positions.
func stiffnessOf(t testing.TB, s *graph.Scene) []float64 {
	st := graphtest.Find[graph.State](t, s, "bar/frames")
	ops, err := graph.NewOps(st.Base().Node)
	if err != nil {
		t.Fatal(err)
	}
	f, dx, df := ops.AllocDeriv(), ops.AllocDeriv(), ops.AllocDeriv()
	defer ops.Free(f, dx, df)
	ops.ComputeForce(f)
	N := 6 * st.Size()
	K := make([]float64, N*N)
	for c := 0; c < N; c++ {
		d := st.Vec(dx)
		clear(d)
		d[c] = 1
		ops.ComputeDf(df, dx, 0, 0, 1)
		for r, v := range st.Vec(df) {
			K[r*N+c] = v
		}
	}
	return K
}

func maxRelDiff(a, b []float64) float64 {
	m, s := 0.0, 0.0
	for i := range a {
		m = math.Max(m, math.Abs(a[i]-b[i]))
		s = math.Max(s, math.Abs(b[i]))
	}
	return m / s
}

// TestSpringNetworkRestStiffness (issue 5, item 1): at rest, the
// stiffness of the frames bar run on the network equals that of the
// sample-integrated bar of scenes/frames_beam.toml (probed through that
// scene's own skinning mapping and DeformationGradientForceField; gravity
// off, so FrameMass adds no stiffness): the cluster network (default) and
// the paper's pair network with its warped tangent to 1e-8 of the largest
// entry. The paper's pair springs with their exact tangent miss the
// antisymmetric part of the joint stiffnesses (samples see three frames
// here): logged. The sampled model with dual-quaternion skinning has the
// same rest stiffness.
func TestSpringNetworkRestStiffness(t *testing.T) {
	Ks := stiffnessOf(t, loadFramesScene(t, "../scenes/frames_beam.toml", noGravity(t)))
	for _, c := range []struct {
		name, opts string
		limit      float64
	}{
		{"clusters (exact tangent)", "", 1e-8},
		{"pairs, warped tangent (eq. 19–23)", "  elements = \"pairs\"\n  tangent = \"warped\"\n", 1e-8},
		{"pairs, exact tangent", "  elements = \"pairs\"\n", math.Inf(1)},
	} {
		s := springsScene(t, c.opts, noGravity(t))
		ff := graphtest.Find[*forcefield.FrameSpringNetworkForceField](t, s, "bar/FrameSpringNetworkForceField")
		e := maxRelDiff(stiffnessOf(t, s), Ks)
		asym := 0.0
		for _, el := range ff.Network().Elements {
			asym = math.Max(asym, el.Asymmetry())
		}
		t.Logf("%-34s %2d elements: max |K_network − K_samples| / max |K_samples| = %.3g (largest pair asymmetry %.3g)", c.name, len(ff.Network().Elements), e, asym)
		if e > c.limit {
			t.Errorf("%s: the rest stiffness differs from the sampled model's by %.3g (limit %g)", c.name, e, c.limit)
		}
	}
	// The network is integrated through linear blend skinning; at rest
	// dual-quaternion skinning has the same Jacobian (both blend the
	// frames' rigid velocities with the weights to first order), so the
	// network serves a DQS model as well.
	Kdq := stiffnessOf(t, loadFramesScene(t, "../scenes/frames_beam.toml", func(s string) string { return dualQuaternion(noGravity(t)(s)) }))
	e := maxRelDiff(Kdq, Ks)
	t.Logf("sampled model with dual-quaternion skinning against linear blend: rest stiffness differs by %.3g", e)
	if e > 1e-8 {
		t.Errorf("the rest stiffness with dual-quaternion skinning differs from linear blend's by %.3g", e)
	}
}

// TestSpringNetworkRigidRotation (issue 5, item 1): the whole bar turned
// by a large rotation: no force, and the stiffness is the rest stiffness
// rotated (eq. 19), to 1e-10.
func TestSpringNetworkRigidRotation(t *testing.T) {
	s := springsScene(t, "", noGravity(t))
	st := graphtest.Find[graph.State](t, s, "bar/frames")
	K0 := stiffnessOf(t, s)
	q := geom.QuatFromAxisAngle(geom.Vec3{1, 1, -2}, 2.5)
	R := q.Mat()
	x := st.Vec(graph.Position)
	for i := 0; i < st.Size(); i++ {
		c := x[7*i : 7*i+7]
		p := R.MulVec(geom.Vec3{c[0], c[1], c[2]}).Add(geom.Vec3{0.3, 2, -1})
		qi := q.Mul(geom.Quat{c[3], c[4], c[5], c[6]})
		copy(c, []float64{p[0], p[1], p[2], qi[0], qi[1], qi[2], qi[3]})
	}
	K := stiffnessOf(t, s)
	ff := graphtest.Find[*forcefield.FrameSpringNetworkForceField](t, s, "bar/FrameSpringNetworkForceField")
	N := 6 * st.Size()
	f := make([]float64, N)
	ff.AddForce(f, x, nil)
	fmax, kmax := 0.0, 0.0
	for _, v := range f {
		fmax = math.Max(fmax, math.Abs(v))
	}
	for _, v := range K0 {
		kmax = math.Max(kmax, math.Abs(v))
	}
	// Forces against those of a 1 µm deformation (K scale × 1e-6 m).
	if fmax > 1e-10*kmax*1e-6 {
		t.Errorf("force %.3g after a rigid motion (force of a 1 µm deformation: %.3g)", fmax, kmax*1e-6)
	}
	want := make([]float64, N*N)
	for bi := 0; bi < N/3; bi++ {
		for bj := 0; bj < N/3; bj++ {
			var blk geom.Mat3
			for a := 0; a < 3; a++ {
				for b := 0; b < 3; b++ {
					blk[3*a+b] = K0[(3*bi+a)*N+3*bj+b]
				}
			}
			r := R.Mul(blk).MulT(R)
			for a := 0; a < 3; a++ {
				for b := 0; b < 3; b++ {
					want[(3*bi+a)*N+3*bj+b] = r[3*a+b]
				}
			}
		}
	}
	e := maxRelDiff(K, want)
	t.Logf("rigid rotation by 2.5 rad: max force %.3g N, stiffness vs ℛK̄ℛᵀ %.3g", fmax, e)
	if e > 1e-10 {
		t.Errorf("the stiffness of the rotated bar differs from the rotated rest stiffness by %.3g", e)
	}
}

// centrelineEnd returns the end of the bar's centre line in scene s.
func centrelineEnd(t testing.TB, s *graph.Scene) geom.Vec3 {
	cl := graphtest.Find[graph.State](t, s, "bar/centreline/points")
	return geom.At(cl.Vec(graph.Position), cl.Size()-1)
}

// loadSweep solves the static bar of scene s under gravity scaled by each
// factor in turn (ascending, each solve starting from the previous one's
// equilibrium, as StaticSolver continues the load) and returns the end of
// the centre line at each.
func loadSweep(t testing.TB, s *graph.Scene, factors []float64) []geom.Vec3 {
	g := s.Gravity
	var ends []geom.Vec3
	for _, k := range factors {
		s.Gravity = g.Scale(k)
		if err := s.Step(); err != nil {
			t.Fatalf("load %g g: %v", k, err)
		}
		ends = append(ends, centrelineEnd(t, s))
	}
	return ends
}

// TestSpringNetworkAccuracyVsLoad (issue 5, item 3): the end of the bar's
// centre line on the network against the sample-integrated model, under
// gravity scaled from 0.01 g (linear) to 10 g (the end sagging by about
// the bar's length), for the cluster network and the paper's pair
// network. The error is |x_network − x_samples| / |u_samples| (u the
// displacement of the end). Checked: the cluster network within 0.1% in
// the linear regime (≤ 0.1 g) and within 3% up to 3 g (the end sagging by
// 44% of the length); the paper's pairs are 3.7% off from the smallest
// load (TestSpringNetworkRestStiffness says why). The whole table is
// logged.
func TestSpringNetworkAccuracyVsLoad(t *testing.T) {
	factors := []float64{0.01, 0.1, 0.5, 1, 1.5, 2, 3, 4, 6, 8, 10}
	if testing.Short() {
		factors = []float64{0.01, 0.5, 1, 2}
	}
	rest := geom.Vec3{1, 0.15, 0.15}
	samples := loadSweep(t, loadFramesScene(t, "../scenes/frames_beam.toml", nil), factors)
	clusters := loadSweep(t, springsScene(t, "", nil), factors)
	pairs := loadSweep(t, springsScene(t, "  elements = \"pairs\"\n", nil), factors)
	t.Logf("load   sag/L    end (samples)        error clusters   error pairs   (relative to the end's displacement)")
	within := 0.0
	for i, k := range factors {
		u := samples[i].Sub(rest)
		ec := clusters[i].Sub(samples[i]).Norm() / u.Norm()
		ep := pairs[i].Sub(samples[i]).Norm() / u.Norm()
		t.Logf("%5.2f g %6.3f  (%+.4f, %+.4f)   %7.3f%%        %7.3f%%", k, -u[1], u[0], u[1], 100*ec, 100*ep)
		if ec <= 0.03 && within == float64(i) {
			within++
		}
		if k <= 3 && ec > 0.03 {
			t.Errorf("at %g g the cluster network's end is %.2f%% of the displacement from the sampled model's (limit 3%%)", k, 100*ec)
		}
		if k <= 0.1 && ec > 1e-3 {
			t.Errorf("at %g g (linear regime) the cluster network's end is %.3g%% off: it should be exact at rest", k, 100*ec)
		}
	}
	if n := int(within); n < len(factors) {
		t.Logf("cluster network within 3%% up to %g g", factors[n-1])
	}
}

// hingedLink is a rigid bar of length 2d hinged at one end to a fixed base
// at the origin by a JointSpringForceField free about z, started at angle
// θ0 from hanging straight down.
func hingedLink(theta0, dt float64) string {
	const d = 0.1
	q := geom.QuatFromAxisAngle(geom.Vec3{0, 0, 1}, theta0)
	// Link along its y axis, centre d below the pivot when θ = 0.
	c := q.Rotate(geom.Vec3{0, -d, 0})
	num := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	return `dt = ` + num(dt) + `
gravity = [0, -9.81, 0]
[[node]]
name = "pendulum"
  [[node.object]]
  type = "EulerImplicitSolver"
  rayleighStiffness = 0
  rayleighMass = 0
  [[node.object]]
  type = "CGLinearSolver"
  iterations = 100
  tolerance = 1e-12
  [[node.object]]
  type = "JointSpringForceField"
  name = "hinge"
  object1 = "@base/frame"
  object2 = "@link/frame"
  springs = [{m1 = 0, m2 = 0, anchor = [0, 0, 0], kTranslation = [1e6, 1e6, 1e6], kRotation = [100, 100, 0]}]
  [[node.node]]
  name = "base"
    [[node.node.object]]
    type = "MechanicalObject"
    name = "frame"
    template = "Rigid3"
    position = [[0, 0, 0, 0, 0, 0, 1]]
    [[node.node.object]]
    type = "FixedConstraint"
    fixAll = true
  [[node.node]]
  name = "link"
    [[node.node.object]]
    type = "MechanicalObject"
    name = "frame"
    template = "Rigid3"
    position = [[` + num(c[0]) + `, ` + num(c[1]) + `, 0, 0, 0, ` + num(q[2]) + `, ` + num(q[3]) + `]]
    [[node.node.object]]
    type = "RigidMass"
    mass = 0.5
    inertiaDiagonal = [1.7333333333333333e-3, 1.3333333333333333e-4, 1.7333333333333333e-3]
`
}

// TestHingedLinkPeriod: a link hinged by a JointSpringForceField (stiff
// translation at the pivot, free about z) swings as a compound pendulum:
// T = 2π √(I_pivot / (m g d)), I_pivot = I_zz + m d² (d = 0.1 m,
// m = 0.5 kg, I_zz = 1.7333e-3 kg·m²: T = 0.73617 s). The start angle
// θ0 = 0.05 rad lengthens it by θ0²/16 = 1.6e-4; implicit Euler at
// h = 1 ms by (ωh)²/3 = 2.4e-5; the pivot spring (1e6 N/m) stretches by
// 5e-6 m, 5e-5 of d. Tolerance 5e-4 on the mean of the first periods.
func TestHingedLinkPeriod(t *testing.T) {
	const (
		d, m, g = 0.1, 0.5, 9.81
		izz     = 1.7333333333333333e-3
		theta0  = 0.05
		dt      = 1e-3
	)
	want := 2 * math.Pi * math.Sqrt((izz+m*d*d)/(m*g*d)) * (1 + theta0*theta0/16)
	s := graphtest.MustLoad(t, "hinge.toml", hingedLink(theta0, dt))
	st := graphtest.Find[graph.State](t, s, "pendulum/link/frame")
	angle := func() float64 {
		x := st.Vec(graph.Position)
		return math.Atan2(x[0], -x[1]) // of the centre about the pivot, from straight down
	}
	var crossings []float64
	prev := angle()
	for i := 0; i < 3000 && len(crossings) < 5; i++ {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
		a := angle()
		if (prev > 0) != (a > 0) {
			// Linear interpolation of the zero crossing.
			crossings = append(crossings, s.Time-dt+dt*prev/(prev-a))
		}
		prev = a
	}
	if len(crossings) < 5 {
		t.Fatalf("only %d zero crossings in 3 s", len(crossings))
	}
	T := (crossings[4] - crossings[0]) / 2
	t.Logf("hinged link: period %.6f s, compound pendulum %.6f s (relative %.2g)", T, want, T/want-1)
	if math.Abs(T/want-1) > 5e-4 {
		t.Errorf("period %.6f s, want %.6f s", T, want)
	}
}

// TestArticulatedChain runs scenes/articulated_chain.toml (six links
// released horizontally) and checks its articulations: every bend stays
// within its limit ±0.5 rad plus what the blocking stiffness lets
// through, the hinges stay closed (the links' ends meet to within the
// translational springs' stretch), the chain stays in its plane, and the
// energy never grows (implicit Euler and the joint damping only dissipate).
func TestArticulatedChain(t *testing.T) {
	s := loadFramesScene(t, "../scenes/articulated_chain.toml", nil)
	st := graphtest.Find[graph.State](t, s, "chain/links/frames")
	ends := graphtest.Find[graph.State](t, s, "chain/links/ends/points")
	maxBend, maxGap, maxOut := 0.0, 0.0, 0.0
	beyondSteps := 0
	k0, p0 := s.Energies()
	prevE := k0 + p0
	maxRise := 0.0
	for i := 0; i < s.Steps; i++ {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
		x := st.Vec(graph.Position)
		beyond := false
		for k := 0; k+1 < st.Size(); k++ {
			q1 := geom.Quat{x[7*k+3], x[7*k+4], x[7*k+5], x[7*k+6]}
			q2 := geom.Quat{x[7*k+10], x[7*k+11], x[7*k+12], x[7*k+13]}
			phi := q1.Conj().Mul(q2).RotVec()
			maxBend = math.Max(maxBend, math.Abs(phi[2]))
			if math.Abs(phi[2]) > 0.5 {
				beyond = true
			}
			p := ends.Vec(graph.Position)
			maxGap = math.Max(maxGap, geom.At(p, 2*k+1).Sub(geom.At(p, 2*k+2)).Norm())
		}
		if beyond {
			beyondSteps++
		}
		for k := 0; k < st.Size(); k++ {
			maxOut = math.Max(maxOut, math.Abs(x[7*k+2]))
		}
		kin, pot := s.Energies()
		maxRise = math.Max(maxRise, kin+pot-prevE)
		prevE = kin + pot
	}
	t.Logf("chain, %d steps: largest bend %.3f rad (limit 0.5; beyond it in %d steps), largest hinge gap %.2g m, out of plane %.2g m, largest energy rise in a step %.2g J",
		s.Steps, maxBend, beyondSteps, maxGap, maxOut, maxRise)
	if beyondSteps == 0 {
		t.Errorf("the chain never reaches its bending limits: the scene does not exercise them")
	}
	// Beyond the limit the stiffness is 50 N·m/rad: the links' weight
	// (≤ 30 N at ≤ 1.2 m) and their swing cannot push much past it.
	if maxBend > 0.65 {
		t.Errorf("a hinge bends %.3f rad, well past its 0.5 rad limit", maxBend)
	}
	if maxGap > 2e-3 {
		t.Errorf("a hinge opens by %.3g m", maxGap)
	}
	if maxOut > 1e-9 {
		t.Errorf("the chain leaves its plane by %.3g m", maxOut)
	}
	if maxRise > 1e-6 {
		t.Errorf("the energy grows by %.3g J in a step", maxRise)
	}
}

// BenchmarkFramesSpringNetworkImplicitStep (issue 5, item 4): one implicit
// Euler step of the frames bar on the precomputed network (cluster
// elements), against BenchmarkFramesBeamImplicitStep (the same bar,
// integrated over its 900 samples) in validation/frames_test.go.
func BenchmarkFramesSpringNetworkImplicitStep(b *testing.B) {
	benchmarkBeamStep(b, springsScene(b, "", func(s string) string { return implicitBeam(b, s) }))
}

// BenchmarkFramesSpringNetworkPairsImplicitStep: the same with the
// paper's pair springs.
func BenchmarkFramesSpringNetworkPairsImplicitStep(b *testing.B) {
	benchmarkBeamStep(b, springsScene(b, "  elements = \"pairs\"\n", func(s string) string { return implicitBeam(b, s) }))
}

// BenchmarkFramesSpringNetworkPrecompute: building the network of the
// frames bar at Init (weights, samples and the rest stiffness of each
// cluster; Gilles et al. report 34–110 s for theirs).
func BenchmarkFramesSpringNetworkPrecompute(b *testing.B) {
	for i := 0; i < b.N; i++ {
		springsScene(b, "", nil)
	}
}

// BenchmarkArticulatedChainStep: one implicit Euler step of
// scenes/articulated_chain.toml (six links, six joint springs).
func BenchmarkArticulatedChainStep(b *testing.B) {
	s := loadFramesScene(b, "../scenes/articulated_chain.toml", nil)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := s.Step(); err != nil {
			b.Fatal(err)
		}
	}
}
