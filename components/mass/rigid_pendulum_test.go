package mass_test

import (
	"math"
	"testing"

	"github.com/sofago/sofago/components/mapping"
	"github.com/sofago/sofago/components/mass"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"

	_ "github.com/sofago/sofago/components/all"
)

// pendulumRun is what one run of scenes/rigid_pendulum.toml measured.
type pendulumRun struct {
	crossings          []float64 // times the angle crosses zero (linear interpolation)
	peaks              []float64 // |θ| at its maximum in each half swing
	maxStretch         float64   // largest distance of the pivot point from its target
	closed             float64   // closed-form small-amplitude period
	omegaH             float64   // ω·dt
	dt                 float64
	theta0             float64
	energy0, energyEnd float64
}

// runPendulum runs the scene and tracks the swing angle θ (rotation about
// z, θ = 2 atan2(q_z, q_w)).
func runPendulum(t *testing.T) pendulumRun {
	t.Helper()
	s, err := graph.LoadFile("../../scenes/rigid_pendulum.toml")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Init(); err != nil {
		t.Fatal(err)
	}
	frame := graphtest.Find[graph.State](t, s, "body/frame")
	rm := graphtest.Find[*mass.RigidMass](t, s, "body/mass")
	pivotMap := graphtest.Find[*mapping.RigidMapping](t, s, "body/pivot/RigidMapping")
	pivot := graphtest.Find[graph.State](t, s, "body/pivot/point")

	// Closed form from the scene's own parameters: T = 2π √(I_pivot/(m g d)),
	// I_pivot = I_cm,zz + m d² (parallel axis theorem).
	m := rm.Mass
	d := pivotMap.LocalPoints()[0].Norm()
	g := s.Gravity.Norm()
	iPivot := rm.BodyInertia()[8] + m*d*d
	var run pendulumRun
	run.closed = 2 * math.Pi * math.Sqrt(iPivot/(m*g*d))
	run.omegaH = 2 * math.Pi / run.closed * s.Dt
	run.dt = s.Dt

	angle := func() float64 {
		x := frame.Vec(graph.Position)
		return 2 * math.Atan2(x[5], x[6])
	}
	run.theta0 = angle()
	k, p := s.Energies()
	run.energy0 = k + p
	prev, prevT := run.theta0, 0.0
	peak := math.Abs(prev)
	for step := 0; step < s.Steps; step++ {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
		th := angle()
		if (prev > 0) != (th > 0) {
			// Linear interpolation: θ is nearly linear in t near a zero
			// (θ̈ = −ω²θ ≈ 0 there), so the error is O(dt³).
			run.crossings = append(run.crossings, prevT+s.Dt*prev/(prev-th))
			run.peaks = append(run.peaks, peak)
			peak = 0
		}
		peak = math.Max(peak, math.Abs(th))
		prev, prevT = th, s.Time
		run.maxStretch = math.Max(run.maxStretch, geom.At(pivot.Vec(graph.Position), 0).Norm())
	}
	k, p = s.Energies()
	run.energyEnd = k + p
	return run
}

// TestRigidPendulumPeriod runs scenes/rigid_pendulum.toml (implicit Euler +
// CG, dt = 1 ms, θ0 = 0.05 rad) and compares the measured period with the
// compound-pendulum closed form T = 2π √(I_pivot/(m g d)).
//
// Expected deviations from the closed form: the finite amplitude lengthens
// the period by θ0²/16 = 1.6e-4; implicit Euler by (ωh)²/3 = 4.9e-6; the
// pivot spring (k = 1e6 N/m) by O(m g/(k d)) ≈ 2e-5. The requirement is 1 %
// (issue 3f); the test also checks against T·(1 + θ0²/16) to 1e-4, a tight
// bound the sum of the above (≈ 3e-5 after the amplitude correction) meets
// with margin, so a modelling error (a wrong inertia or lever arm) cannot
// hide inside the 1 %. A missing geometric stiffness leaves the period
// right but shows in the amplitude decay, checked below.
func TestRigidPendulumPeriod(t *testing.T) {
	if _, ok := graph.Lookup("EulerImplicitSolver"); !ok {
		t.Skip("EulerImplicitSolver is not registered yet")
	}
	run := runPendulum(t)
	n := len(run.crossings)
	if n < 5 {
		t.Fatalf("only %d zero crossings in the run; the pendulum does not swing", n)
	}
	// Crossings are half a period apart: average over all of them.
	period := 2 * (run.crossings[n-1] - run.crossings[0]) / float64(n-1)
	rel := period/run.closed - 1
	t.Logf("period: measured %.6f s over %.1f periods, closed form %.6f s, relative difference %.2e", period, float64(n-1)/2, run.closed, rel)
	if math.Abs(rel) > 0.01 {
		t.Errorf("period %.6f s differs from the compound-pendulum value %.6f s by %.3g %% (> 1 %%)", period, run.closed, 100*rel)
	}
	withAmplitude := run.closed * (1 + run.theta0*run.theta0/16)
	r := period/withAmplitude - 1
	t.Logf("finite-amplitude value T·(1 + θ0²/16) = %.6f s, relative difference %.2e", withAmplitude, r)
	if math.Abs(r) > 1e-4 {
		t.Errorf("period %.7f s differs from the finite-amplitude value %.7f s by %.2e (> 1e-4)", period, withAmplitude, r)
	}
	// The first crossing comes a quarter period after release from rest.
	if q := run.crossings[0] / (period / 4); math.Abs(q-1) > 0.01 {
		t.Errorf("first zero crossing at %.5f s, a quarter period is %.5f s", run.crossings[0], period/4)
	}

	// Amplitude decay: implicit Euler multiplies a linear oscillator's
	// amplitude by (1 + ω²h²)^(−1/2) per step. Checked to be modest and of
	// the predicted size: this also shows the swing is integrated
	// implicitly, i.e. that RigidMapping's geometric stiffness (ApplyDJT,
	// the only term carrying the pendulum's restoring stiffness m g d into
	// the system matrix) reaches the solver; without it the swing mode is
	// integrated symplectically and does not decay at all (measured ×1.00000).
	periods := float64(len(run.peaks)-1) / 2
	decay := math.Pow(run.peaks[len(run.peaks)-1]/run.peaks[0], 1/periods)
	predicted := math.Pow(1+run.omegaH*run.omegaH, -0.5*period/run.dt) // over T/h steps
	t.Logf("amplitude: %.5f rad at release, %.5f rad after %.1f periods; per period ×%.5f (implicit Euler predicts ×%.5f)",
		run.theta0, run.peaks[len(run.peaks)-1], periods, decay, predicted)
	if decay < 0.97 || math.Abs(decay-predicted) > 0.002 {
		t.Errorf("amplitude decays by ×%.5f per period; implicit Euler at ωh = %.4f predicts ×%.5f", decay, run.omegaH, predicted)
	}
	t.Logf("pivot: largest distance from its target %.3g m; energy %.6g J → %.6g J", run.maxStretch, run.energy0, run.energyEnd)
	// Static stretch m g/k = 1e-5 m, plus the centripetal load, small here.
	if run.maxStretch > 2e-5 {
		t.Errorf("the pivot drifts %.3g m from its target (expected ≈ m g/k = 1e-5 m)", run.maxStretch)
	}
}

// BenchmarkRigidPendulumStep measures one implicit Euler + CG step of
// scenes/rigid_pendulum.toml (one rigid body, a mapped spring pivot, a
// visual point set).
func BenchmarkRigidPendulumStep(b *testing.B) {
	s, err := graph.LoadFile("../../scenes/rigid_pendulum.toml")
	if err != nil {
		b.Fatal(err)
	}
	if err := s.Init(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Step(); err != nil {
			b.Fatal(err)
		}
	}
}
