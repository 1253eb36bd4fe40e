package material

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sofago/sofago/geom"
)

// testE and testNu: a soft, nearly incompressible material (λ/μ = 9), the
// hardest case for the volumetric terms.
const testE, testNu = 1e6, 0.45

type namedLaw struct {
	name string
	law  Law
	// inversion: the law is meant to handle inverted F (finite values
	// and a restoring force).
	inversion bool
}

func allLaws(t *testing.T) []namedLaw {
	t.Helper()
	var out []namedLaw
	for _, n := range Names() {
		l, err := New(n, testE, testNu)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, namedLaw{n, l, n == NameNeoHookean || n == NameStableNeoHookean})
	}
	lam, mu := Lame(testE, testNu)
	out = append(out, namedLaw{"CorotationalLinear(Invertible)", &CorotationalLinear{Lambda: lam, Mu: mu, Invertible: true}, true})
	return out
}

func randomRotation(rng *rand.Rand) geom.Mat3 {
	q := geom.Quat{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
	return q.Normalized().Mat()
}

func randomMat(rng *rand.Rand, a float64) geom.Mat3 {
	var m geom.Mat3
	for i := range m {
		m[i] = a * (2*rng.Float64() - 1)
	}
	return m
}

// testConfig is a family of deformation gradients.
type testConfig struct {
	name     string
	inverted bool
	make     func(rng *rand.Rand) geom.Mat3
}

// configs: moderate random strain, large stretch, strong compression,
// and inverted (det F < 0) gradients, each rotated at random.
var configs = []testConfig{
	{"moderate", false, func(rng *rand.Rand) geom.Mat3 {
		return randomRotation(rng).Mul(geom.Identity3().Add(randomMat(rng, 0.2)))
	}},
	{"stretch", false, func(rng *rand.Rand) geom.Mat3 {
		return randomRotation(rng).Mul(geom.Diag(geom.Vec3{2.2, 0.8, 1.5}).Add(randomMat(rng, 0.1))).Mul(randomRotation(rng))
	}},
	{"compression", false, func(rng *rand.Rand) geom.Mat3 {
		// J ≈ 0.35: above NeoHookean's threshold.
		return randomRotation(rng).Mul(geom.Diag(geom.Vec3{0.5, 0.8, 0.9}).Add(randomMat(rng, 0.05))).Mul(randomRotation(rng))
	}},
	{"below-threshold", false, func(rng *rand.Rand) geom.Mat3 {
		// J ≈ 0.1: NeoHookean's Taylor extension.
		return randomRotation(rng).Mul(geom.Diag(geom.Vec3{0.25, 0.6, 0.7}).Add(randomMat(rng, 0.02))).Mul(randomRotation(rng))
	}},
	{"inverted", true, func(rng *rand.Rand) geom.Mat3 {
		// det F ≈ −0.4: one axis pushed through zero.
		return randomRotation(rng).Mul(geom.Diag(geom.Vec3{1.1, 0.9, -0.4}).Add(randomMat(rng, 0.05))).Mul(randomRotation(rng))
	}},
}

// stressScale is the stress unit: P entries are of order (λ + 2μ)·strain.
func stressScale() float64 {
	lam, mu := Lame(testE, testNu)
	return lam + 2*mu
}

func maxAbs(m geom.Mat3) float64 {
	a := 0.0
	for _, v := range m {
		a = math.Max(a, math.Abs(v))
	}
	return a
}

func finiteMat(m geom.Mat3) bool {
	for _, v := range m {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// fdTolerance: central differences with h = 1e-6·|F| have a truncation
// error ≈ h²·|Ψ”'| ≈ 1e-12 relative, and a rounding error of
// ≈ 1e-16·|Ψ|/h ≈ 1e-10 of the stress for the energy check (Ψ/|P| ≈ |F|),
// 1e-16·|P|/(h|dP|) ≈ 1e-10 for the tangent check. Measured: below 2e-9 for
// every law and configuration (the NeoHookean extension below its
// threshold has the largest third derivatives). 1e-7 keeps a margin and
// is ten times tighter than the 1e-6 of the README's testing rule (Tests and benchmarks).
const fdTolerance = 1e-7

// TestStressIsEnergyGradient: P = ∂Ψ/∂F by central differences, entry by
// entry, and the cached and uncached stresses agree bitwise.
func TestStressIsEnergyGradient(t *testing.T) {
	for _, nl := range allLaws(t) {
		for _, cfg := range configs {
			if cfg.inverted && !nl.inversion {
				continue
			}
			rng := rand.New(rand.NewPCG(1, 2))
			worst := 0.0
			for trial := 0; trial < 20; trial++ {
				F := cfg.make(rng)
				P := nl.law.Stress(F)
				cache := make([]float64, nl.law.CacheSize())
				var Pc geom.Mat3
				if nl.law.StressCached(F[:], Pc[:], cache); Pc != P {
					t.Fatalf("%s/%s: StressCached %v differs from Stress %v", nl.name, cfg.name, Pc, P)
				}
				h := 1e-6 * math.Sqrt(F.DDot(F))
				var fd geom.Mat3
				for i := range F {
					Fp, Fm := F, F
					Fp[i] += h
					Fm[i] -= h
					fd[i] = (nl.law.Energy(Fp) - nl.law.Energy(Fm)) / (2 * h)
				}
				err := maxAbs(fd.Sub(P)) / math.Max(maxAbs(P), 1e-3*stressScale())
				worst = math.Max(worst, err)
			}
			if worst > fdTolerance {
				t.Errorf("%s/%s: P differs from ∂Ψ/∂F by %.3g (relative), tolerance %g", nl.name, cfg.name, worst, fdTolerance)
			}
			t.Logf("%-32s %-16s P vs FD of Ψ: %.2g", nl.name, cfg.name, worst)
		}
	}
}

// TestStressDifferential: dP = ∂P/∂F[dF] by central differences along
// random dF, and the cached differential equals the uncached one.
func TestStressDifferential(t *testing.T) {
	for _, nl := range allLaws(t) {
		for _, cfg := range configs {
			if cfg.inverted && !nl.inversion {
				continue
			}
			rng := rand.New(rand.NewPCG(3, 4))
			worst := 0.0
			for trial := 0; trial < 20; trial++ {
				F := cfg.make(rng)
				dF := randomMat(rng, 1)
				dP := nl.law.StressDifferential(F, dF)
				cache := make([]float64, nl.law.CacheSize())
				var P, dPc geom.Mat3
				nl.law.StressCached(F[:], P[:], cache)
				if nl.law.StressDifferentialCached(dF[:], dPc[:], cache); dPc != dP {
					t.Fatalf("%s/%s: cached differential %v differs from %v", nl.name, cfg.name, dPc, dP)
				}
				h := 1e-6 * math.Sqrt(F.DDot(F))
				fd := nl.law.Stress(F.Add(dF.Scale(h))).Sub(nl.law.Stress(F.Sub(dF.Scale(h)))).Scale(1 / (2 * h))
				err := maxAbs(fd.Sub(dP)) / math.Max(maxAbs(fd), 1e-3*stressScale())
				worst = math.Max(worst, err)
			}
			if worst > fdTolerance {
				t.Errorf("%s/%s: dP differs from finite differences of P by %.3g, tolerance %g", nl.name, cfg.name, worst, fdTolerance)
			}
			t.Logf("%-32s %-16s dP vs FD of P: %.2g", nl.name, cfg.name, worst)
		}
	}
}

// TestTangentSymmetric: dP is the Hessian of Ψ, so
// dF₂ : dP[dF₁] = dF₁ : dP[dF₂].
func TestTangentSymmetric(t *testing.T) {
	for _, nl := range allLaws(t) {
		rng := rand.New(rand.NewPCG(5, 6))
		for _, cfg := range configs {
			if cfg.inverted && !nl.inversion {
				continue
			}
			F := cfg.make(rng)
			a, b := randomMat(rng, 1), randomMat(rng, 1)
			x, y := b.DDot(nl.law.StressDifferential(F, a)), a.DDot(nl.law.StressDifferential(F, b))
			// The products sum nine terms of size |dP|, rounded at 1e-16.
			if math.Abs(x-y) > 1e-12*(math.Abs(x)+math.Abs(y)+stressScale()) {
				t.Errorf("%s/%s: tangent not symmetric: %.17g vs %.17g", nl.name, cfg.name, x, y)
			}
		}
	}
}

// TestRestState: every law is stress-free with zero energy at F = I, and
// its tangent there is linear elasticity of (λ, μ):
// dP = 2μ sym(dF) + λ tr(dF) I.
func TestRestState(t *testing.T) {
	lam, mu := Lame(testE, testNu)
	rng := rand.New(rand.NewPCG(7, 8))
	I := geom.Identity3()
	for _, nl := range allLaws(t) {
		if w := nl.law.Energy(I); math.Abs(w) > 1e-16*stressScale() {
			t.Errorf("%s: Ψ(I) = %g", nl.name, w)
		}
		if p := maxAbs(nl.law.Stress(I)); p > 1e-16*stressScale() {
			t.Errorf("%s: |P(I)| = %g", nl.name, p)
		}
		for trial := 0; trial < 5; trial++ {
			dF := randomMat(rng, 1)
			want := dF.Sym().Scale(2 * mu).Add(geom.Identity3().Scale(lam * dF.Trace()))
			got := nl.law.StressDifferential(I, dF)
			// Rounding of the stable law's reparametrisation
			// (λ̃ − 5μ̃/8 = λ) and of Polar at I: 1e-15 of the scale.
			if e := maxAbs(got.Sub(want)) / maxAbs(want); e > 1e-13 {
				t.Errorf("%s: tangent at rest differs from linear elasticity by %.3g", nl.name, e)
			}
		}
	}
}

// TestRigidRotationNoStress: Ψ(Q) = 0 and P(Q) = 0 for rotations Q and,
// more generally, P(QF) = Q P(F) and Ψ(QF) = Ψ(F) (frame indifference),
// for every law but Linear, which is not rotation invariant.
func TestRigidRotationNoStress(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, nl := range allLaws(t) {
		if nl.name == NameLinear {
			Q := randomRotation(rng)
			if maxAbs(nl.law.Stress(Q)) < 0.1*stressScale() {
				t.Errorf("Linear: a rotation gives no stress; linear elasticity should react")
			}
			continue
		}
		for trial := 0; trial < 5; trial++ {
			Q := randomRotation(rng)
			// Rounding: Q is orthogonal to 1e-16, the laws' constants
			// cancel at F = Q to a few 1e-16 of λ + 2μ.
			if w, p := nl.law.Energy(Q), maxAbs(nl.law.Stress(Q)); math.Abs(w) > 1e-14*stressScale() || p > 1e-14*stressScale() {
				t.Errorf("%s: rotation gives Ψ = %.3g, |P| = %.3g", nl.name, w, p)
			}
			F := configs[1].make(rng)
			w0, w1 := nl.law.Energy(F), nl.law.Energy(Q.Mul(F))
			if math.Abs(w0-w1) > 1e-13*math.Abs(w0) {
				t.Errorf("%s: Ψ(QF) = %.17g, Ψ(F) = %.17g", nl.name, w1, w0)
			}
			P0, P1 := nl.law.Stress(F), nl.law.Stress(Q.Mul(F))
			if e := maxAbs(Q.Mul(P0).Sub(P1)) / maxAbs(P0); e > 1e-13 {
				t.Errorf("%s: P(QF) differs from Q P(F) by %.3g", nl.name, e)
			}
		}
	}
}

// uniaxialLateral solves for the lateral stretch t of a uniaxial-stress
// state F = diag(s, t, t) (P₂₂ = 0) by bisection on P₂₂ over t ∈ (lo, hi),
// independently of the laws' tangents.
func uniaxialLateral(law Law, s, lo, hi float64) float64 {
	p22 := func(t float64) float64 { return law.Stress(geom.Diag(geom.Vec3{s, t, t}))[4] }
	flo := p22(lo)
	for i := 0; i < 200; i++ {
		mid := 0.5 * (lo + hi)
		if (p22(mid) > 0) == (flo > 0) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return 0.5 * (lo + hi)
}

// TestUniaxialClosedForms: under uniaxial stress (free lateral faces),
// StVK's nominal stress is E(ε + 3ε²/2 + ε³/2) whatever ν, with lateral
// Green strain −ν times the axial one; the neo-Hookean nominal stress is
// μ(s − 1/s) + λ ln J/s with the lateral stretch t solving
// μ(t² − 1) + λ ln(s t²) = 0 (∂Ψ/∂t = 0).
func TestUniaxialClosedForms(t *testing.T) {
	for _, nu := range []float64{0, 0.3, 0.45} {
		lam, mu := Lame(testE, nu)
		stvk := &StVenantKirchhoff{Lambda: lam, Mu: mu}
		nh := NewNeoHookean(lam, mu)
		for _, eps := range []float64{-0.3, -0.1, 0.1, 0.3, 1} {
			s := 1 + eps
			// StVK: closed form, lateral stretch from E₂₂ = −ν E₁₁.
			e11 := eps + eps*eps/2
			tl := math.Sqrt(1 - 2*nu*e11)
			P := stvk.Stress(geom.Diag(geom.Vec3{s, tl, tl}))
			want := testE * (eps + 1.5*eps*eps + 0.5*eps*eps*eps)
			// Rounding only: λ and μ recombine to E at 1e-16.
			if math.Abs(P[0]-want) > 1e-12*testE || math.Abs(P[4]) > 1e-12*testE || math.Abs(P[8]) > 1e-12*testE {
				t.Errorf("StVK ν=%g ε=%g: P = diag(%.12g, %.3g, %.3g), want (%.12g, 0, 0)", nu, eps, P[0], P[4], P[8], want)
			}
			// Neo-Hookean: solve the lateral equation by bisection on
			// the closed form, then compare with the law's P₂₂ root.
			g := func(x float64) float64 { return mu*(x*x-1) + lam*math.Log(s*x*x) }
			lo, hi := 0.05, 3.0
			for i := 0; i < 200; i++ {
				mid := 0.5 * (lo + hi)
				if g(mid) < 0 {
					lo = mid
				} else {
					hi = mid
				}
			}
			tn := 0.5 * (lo + hi)
			J := s * tn * tn
			wantNH := mu*(s-1/s) + lam*math.Log(J)/s
			Pn := nh.Stress(geom.Diag(geom.Vec3{s, tn, tn}))
			if math.Abs(Pn[0]-wantNH) > 1e-12*testE || math.Abs(Pn[4]) > 1e-9*testE {
				t.Errorf("NeoHookean ν=%g ε=%g: P = diag(%.12g, %.3g), want (%.12g, 0)", nu, eps, Pn[0], Pn[4], wantNH)
			}
			if tb := uniaxialLateral(nh, s, 0.05, 3); math.Abs(tb-tn) > 1e-12 {
				t.Errorf("NeoHookean ν=%g ε=%g: lateral stretch from P₂₂ = 0 is %.15g, closed form %.15g", nu, eps, tb, tn)
			}
		}
	}
}

// TestInversion: at det F ≤ 0 every law returns finite values; the laws
// meant for inversion (NeoHookean, StableNeoHookean, invertible
// corotational) lower their energy as the inverted axis grows back
// (∂Ψ/∂s < 0 along F = diag(a, b, s), s ≤ 0), i.e. their force restores
// the orientation. The polar corotational law is even under reflection:
// between s = 0 and its mirror image s = −1 it pushes towards the mirror
// (documented).
func TestInversion(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, nl := range allLaws(t) {
		for _, s := range []float64{0, -1e-9, -0.1, -0.5, -1, -3} {
			F := geom.Diag(geom.Vec3{1.1, 0.9, s})
			w, P := nl.law.Energy(F), nl.law.Stress(F)
			dP := nl.law.StressDifferential(F, randomMat(rng, 1))
			if math.IsNaN(w) || math.IsInf(w, 0) || !finiteMat(P) || !finiteMat(dP) {
				t.Errorf("%s at s = %g: Ψ = %g, P = %v, dP = %v", nl.name, s, w, P, dP)
				continue
			}
			// The invertible corotational law un-inverts along the
			// axis of the smallest singular value: the z axis only
			// while |s| < 0.9.
			zFlips := !strings.HasPrefix(nl.name, NameCorotationalLinear) || s > -0.9
			if nl.inversion && zFlips && !(P[8] < 0) {
				t.Errorf("%s at s = %g: P₂₂ = %g, want < 0 (energy decreasing as the element un-inverts)", nl.name, s, P[8])
			}
			// The polar law's equilibrium is the mirror image s = −1.
			if nl.name == NameCorotationalLinear && s < -0.05 && s > -1 && !(P[8] > 0) {
				t.Errorf("CorotationalLinear (polar) at s = %g: P₂₂ = %g, expected > 0 (towards the mirror image)", s, P[8])
			}
		}
	}
}

// TestNoNaN: pathological gradients (zero, rank one, reflections, huge
// and tiny entries) give finite energies, stresses and tangents for every
// law.
func TestNoNaN(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	u := geom.Vec3{1, 2, 3}.Normalized()
	cases := []geom.Mat3{
		{},
		u.Outer(geom.Vec3{0.3, -0.2, 0.5}),
		geom.Identity3().Scale(-1),
		geom.Diag(geom.Vec3{1, 1, -1}),
		geom.Diag(geom.Vec3{1e6, 1e-6, 1}),
		geom.Diag(geom.Vec3{1e-12, 1e-12, 1e-12}),
		geom.Diag(geom.Vec3{1, 0.5, -0.5}),
		randomMat(rng, 100),
	}
	for _, nl := range allLaws(t) {
		for i, F := range cases {
			w, P, dP := nl.law.Energy(F), nl.law.Stress(F), nl.law.StressDifferential(F, randomMat(rng, 1))
			if math.IsNaN(w) || math.IsInf(w, 0) || !finiteMat(P) || !finiteMat(dP) {
				t.Errorf("%s, case %d (F = %v): Ψ = %g, P = %v, dP = %v", nl.name, i, F, w, P, dP)
			}
		}
	}
}

// TestNeoHookeanThresholdContinuity: across J₀ the energy, stress and
// tangent of NeoHookean are continuous (the extension is C²): their jumps
// over a gap of 2δ in J are O(δ).
func TestNeoHookeanThresholdContinuity(t *testing.T) {
	lam, mu := Lame(testE, testNu)
	l := NewNeoHookean(lam, mu)
	j0 := DefaultNeoHookeanThreshold
	dF := geom.Mat3{0.3, -0.1, 0.2, 0.05, 0.4, -0.3, 0.1, 0.2, -0.5}
	const delta = 1e-9
	at := func(J float64) (float64, geom.Mat3, geom.Mat3) {
		// F = diag(0.5, 0.8, J/0.4): det F = J.
		F := geom.Diag(geom.Vec3{0.5, 0.8, J / 0.4})
		return l.Energy(F), l.Stress(F), l.StressDifferential(F, dF)
	}
	w0, P0, D0 := at(j0 - delta)
	w1, P1, D1 := at(j0 + delta)
	// The slopes are of order λ/J₀ (energy), λ/J₀² (stress), λ/J₀³
	// (tangent): the jumps must be at most a few δ times those.
	if math.Abs(w1-w0) > 100*delta*lam/j0 || maxAbs(P1.Sub(P0)) > 100*delta*lam/(j0*j0) || maxAbs(D1.Sub(D0)) > 100*delta*lam/(j0*j0*j0) {
		t.Errorf("discontinuity at J₀: ΔΨ = %.3g, |ΔP| = %.3g, |ΔdP| = %.3g", w1-w0, maxAbs(P1.Sub(P0)), maxAbs(D1.Sub(D0)))
	}
}

func TestNewErrors(t *testing.T) {
	for _, c := range []struct {
		name  string
		E, nu float64
	}{{"Foo", 1, 0.3}, {NameNeoHookean, 0, 0.3}, {NameNeoHookean, 1, 0.5}, {NameNeoHookean, math.Inf(1), 0.3}, {NameNeoHookean, 1, math.NaN()}} {
		if _, err := New(c.name, c.E, c.nu); err == nil {
			t.Errorf("New(%q, %g, %g) accepted", c.name, c.E, c.nu)
		}
	}
}

// BenchmarkLaws times one StressCached and one StressDifferentialCached
// call per law (the per-element kernel of a force field, without the
// mesh gathering).
func BenchmarkLaws(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	F := configs[0].make(rng)
	dF := randomMat(rng, 1e-3)
	for _, n := range Names() {
		law, _ := New(n, testE, testNu)
		// Heap buffers, as in a force field's element loop.
		cache := make([]float64, law.CacheSize())
		buf := make([]float64, 27)
		copy(buf[:9], F[:])
		copy(buf[18:], dF[:])
		b.Run(fmt.Sprintf("%s/StressCached", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				law.StressCached(buf[:9], buf[9:18], cache)
			}
		})
		b.Run(fmt.Sprintf("%s/StressDifferentialCached", n), func(b *testing.B) {
			law.StressCached(buf[:9], buf[9:18], cache)
			for i := 0; i < b.N; i++ {
				law.StressDifferentialCached(buf[18:27], buf[9:18], cache)
			}
		})
	}
}

// TestTangentMatchesDifferential: every law implements TangentLaw, and its
// closed-form 9×9 tangent applied to random dF equals
// StressDifferentialCached at the same linearisation, on every
// configuration family. Both evaluate the same derivative through
// different sums of nine terms of size |A|·|dF|, so they agree to a few
// ulps of the largest term: 1e-13 relative to max|A|·max|dF|·9.
func TestTangentMatchesDifferential(t *testing.T) {
	for _, nl := range allLaws(t) {
		if _, ok := nl.law.(TangentLaw); !ok {
			t.Errorf("%s does not implement TangentLaw", nl.name)
			continue
		}
		for _, cfg := range configs {
			if cfg.inverted && !nl.inversion {
				continue
			}
			rng := rand.New(rand.NewPCG(9, 10))
			worst := 0.0
			for trial := 0; trial < 20; trial++ {
				F := cfg.make(rng)
				cache := make([]float64, nl.law.CacheSize())
				var P geom.Mat3
				nl.law.StressCached(F[:], P[:], cache)
				A := make([]float64, 81)
				Tangent(nl.law, cache, A)
				amax := 0.0
				for _, v := range A {
					amax = math.Max(amax, math.Abs(v))
				}
				dF := randomMat(rng, 1)
				var want geom.Mat3
				nl.law.StressDifferentialCached(dF[:], want[:], cache)
				for p := 0; p < 9; p++ {
					got := 0.0
					for q := 0; q < 9; q++ {
						got += A[9*p+q] * dF[q]
					}
					worst = math.Max(worst, math.Abs(got-want[p])/(9*amax))
				}
			}
			t.Logf("%-32s %-16s |A·dF − dP| / (9 max|A|): %.2g", nl.name, cfg.name, worst)
			if worst > 1e-13 {
				t.Errorf("%s/%s: tangent differs from the differential by %.3g", nl.name, cfg.name, worst)
			}
		}
	}
}
