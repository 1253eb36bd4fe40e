// Package graphtest holds the reusable finite-difference fixtures every
// force field and mapping is tested with (README, Tests and benchmarks):
//
//   - force = −∇energy, by central differences of PotentialEnergy;
//   - AddDForce = the central-difference change of AddForce (stiffness K)
//     and of the velocity (damping B);
//   - for mappings: ApplyJ against differences of Apply, ApplyJT = Jᵀ
//     exactly, ApplyDJT against differences of Jᵀf.
//
// Perturbations are taken in the tangent space of the state's template
// (Template.Integrate), so the same fixtures serve Vec3, Rigid3 and any
// later DOF type. Errors are measured relative to the largest entry of the
// analytic vector, the tolerance the README's testing rule fixes (1e-6 or better with
// central differences).
package graphtest

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/sofago/sofago/graph"
)

// T is the part of *testing.T (or *testing.B) the fixtures use.
type T interface {
	Helper()
	Errorf(format string, args ...any)
	Logf(format string, args ...any)
}

// Options tune a fixture. Zero values take the defaults noted.
type Options struct {
	Seed      uint64  // random seed (default 1)
	Trials    int     // random directions tried (default 3)
	Step      float64 // finite-difference step, absolute (default 1e-6 × coordinate scale)
	Tolerance float64 // relative to the largest analytic entry (default 1e-6)
	// SkipEnergy skips the energy check (force fields without a potential,
	// e.g. damping).
	SkipEnergy bool
	// CheckDamping also checks bFactor·B against differences in velocity.
	CheckDamping bool
}

func (o *Options) defaults(x []float64) {
	if o.Seed == 0 {
		o.Seed = 1
	}
	if o.Trials == 0 {
		o.Trials = 3
	}
	if o.Tolerance == 0 {
		o.Tolerance = 1e-6
	}
	if o.Step == 0 {
		scale := 0.0
		for _, v := range x {
			scale = math.Max(scale, math.Abs(v))
		}
		if scale == 0 {
			scale = 1
		}
		o.Step = 1e-6 * scale
	}
}

// RandomDeriv fills a derivative vector of state-like size with values in [−a, a].
func RandomDeriv(rng *rand.Rand, n int, a float64) []float64 {
	d := make([]float64, n)
	for i := range d {
		d[i] = a * (2*rng.Float64() - 1)
	}
	return d
}

// Perturb returns x ⊕ h·d through the template.
func Perturb(t graph.Template, x, d []float64, h float64) []float64 {
	y := append([]float64(nil), x...)
	t.Integrate(y, d, h)
	return y
}

func maxAbs(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = math.Max(m, math.Abs(x))
	}
	return m
}

// relErr returns max|a − b| / max(max|b|, floor).
func relErr(a, b []float64, floor float64) (float64, int) {
	m, at := 0.0, -1
	for i := range a {
		if d := math.Abs(a[i] - b[i]); d > m || at < 0 {
			if d >= m {
				m, at = d, i
			}
		}
	}
	return m / math.Max(maxAbs(b), floor), at
}

// CheckForceField checks a force field acting on a state of template tmpl
// at coordinates x and velocities v (v may be nil for zero):
// f = −∂W/∂x (unless SkipEnergy), K·d = ∂f/∂x·d, and with CheckDamping
// B·d = ∂f/∂v·d. It returns false and reports through t on failure.
func CheckForceField(t T, ff graph.ForceField, tmpl graph.Template, x, v []float64, opt Options) bool {
	t.Helper()
	opt.defaults(x)
	ds := tmpl.DerivSize()
	n := len(x) / tmpl.CoordSize()
	if v == nil {
		v = make([]float64, n*ds)
	}
	rng := rand.New(rand.NewPCG(opt.Seed, 99))
	force := func(x, v []float64) []float64 {
		f := make([]float64, n*ds)
		ff.AddForce(f, x, v)
		return f
	}
	ok := true
	name := ff.Base().TypeName
	for trial := 0; trial < opt.Trials; trial++ {
		d := RandomDeriv(rng, n*ds, 1)
		h := opt.Step
		f0 := force(x, v)
		// Stiffness: K d against (f(x+hd) − f(x−hd)) / 2h.
		fp := force(Perturb(tmpl, x, d, h), v)
		fm := force(Perturb(tmpl, x, d, -h), v)
		fd := make([]float64, len(fp))
		for i := range fd {
			fd[i] = (fp[i] - fm[i]) / (2 * h)
		}
		force(x, v) // AddDForce linearises at the last AddForce
		kd := make([]float64, n*ds)
		ff.AddDForce(kd, d, 1, 0)
		scale := math.Max(maxAbs(fd), 1e-300)
		if e, at := relErr(kd, fd, scale); e > opt.Tolerance {
			t.Errorf("%s: AddDForce disagrees with finite differences of AddForce: relative error %.3g at entry %d (analytic %.9g, FD %.9g), tolerance %g",
				name, e, at, kd[at], fd[at], opt.Tolerance)
			ok = false
		}
		// kFactor must scale linearly.
		kd2 := make([]float64, n*ds)
		ff.AddDForce(kd2, d, 2.5, 0)
		for i := range kd2 {
			if math.Abs(kd2[i]-2.5*kd[i]) > 1e-12*math.Max(scale, maxAbs(kd)) {
				t.Errorf("%s: AddDForce(kFactor = 2.5) is not 2.5 × AddDForce(kFactor = 1) at entry %d", name, i)
				ok = false
				break
			}
		}
		if !opt.SkipEnergy {
			wp := ff.PotentialEnergy(Perturb(tmpl, x, d, h))
			wm := ff.PotentialEnergy(Perturb(tmpl, x, d, -h))
			fdW := -(wp - wm) / (2 * h)
			an := 0.0
			for i := range d {
				an += f0[i] * d[i]
			}
			denom := math.Max(math.Abs(an), 1e-300)
			// Rounding of the energy difference limits the check: scale by
			// the energy magnitude too.
			w0 := math.Abs(ff.PotentialEnergy(x))
			floor := 1e-15 * w0 / h
			if math.Abs(fdW-an) > opt.Tolerance*denom+floor {
				t.Errorf("%s: force is not −∇energy: f·d = %.12g, −dW/dε = %.12g (relative %.3g), tolerance %g",
					name, an, fdW, math.Abs(fdW-an)/denom, opt.Tolerance)
				ok = false
			}
		}
		if opt.CheckDamping {
			vp, vm := append([]float64(nil), v...), append([]float64(nil), v...)
			for i := range d {
				vp[i] += h * d[i]
				vm[i] -= h * d[i]
			}
			fvp, fvm := force(x, vp), force(x, vm)
			for i := range fd {
				fd[i] = (fvp[i] - fvm[i]) / (2 * h)
			}
			force(x, v)
			bd := make([]float64, n*ds)
			ff.AddDForce(bd, d, 0, 1)
			if e, at := relErr(bd, fd, math.Max(maxAbs(fd), 1e-300)); e > opt.Tolerance {
				t.Errorf("%s: damping (bFactor) disagrees with finite differences in velocity: relative %.3g at %d", name, e, at)
				ok = false
			}
		}
	}
	return ok
}

// CheckMapping checks a mapping at parent coordinates parentX: ApplyJ
// against central differences of Apply, ApplyJT against Jᵀ (to rounding),
// and ApplyDJT against central differences of Jᵀf for a random child force.
func CheckMapping(t T, m graph.Mapping, parentX []float64, opt Options) bool {
	t.Helper()
	opt.defaults(parentX)
	pt, ct := m.From().Template(), m.To().Template()
	np := len(parentX) / pt.CoordSize()
	nc := m.To().Size()
	pd, cd := np*pt.DerivSize(), nc*ct.DerivSize()
	rng := rand.New(rand.NewPCG(opt.Seed, 7))
	apply := func(x []float64) []float64 {
		c := make([]float64, nc*ct.CoordSize())
		m.Apply(c, x)
		return c
	}
	jt := func(x, f []float64) []float64 {
		m.Apply(make([]float64, nc*ct.CoordSize()), x)
		out := make([]float64, pd)
		m.ApplyJT(out, f)
		return out
	}
	ok := true
	name := m.Base().TypeName
	for trial := 0; trial < opt.Trials; trial++ {
		d := RandomDeriv(rng, pd, 1)
		h := opt.Step
		cp, cm := apply(Perturb(pt, parentX, d, h)), apply(Perturb(pt, parentX, d, -h))
		fd := make([]float64, cd)
		ct.Difference(fd, cp, cm)
		for i := range fd {
			fd[i] /= 2 * h
		}
		apply(parentX)
		jd := make([]float64, cd)
		m.ApplyJ(jd, d)
		if e, at := relErr(jd, fd, math.Max(maxAbs(fd), 1e-300)); e > opt.Tolerance {
			t.Errorf("%s: ApplyJ disagrees with finite differences of Apply: relative %.3g at entry %d (J d = %.9g, FD %.9g)", name, e, at, jd[at], fd[at])
			ok = false
		}
		// Jᵀ: f·(J d) = (Jᵀ f)·d.
		f := RandomDeriv(rng, cd, 1)
		jtf := make([]float64, pd)
		m.ApplyJT(jtf, f)
		a, b := 0.0, 0.0
		for i := range f {
			a += f[i] * jd[i]
		}
		for i := range d {
			b += jtf[i] * d[i]
		}
		if math.Abs(a-b) > 1e-12*math.Max(math.Abs(a), maxAbs(jtf)*maxAbs(d)*float64(pd)) {
			t.Errorf("%s: ApplyJT is not the transpose of ApplyJ: f·Jd = %.15g, Jᵀf·d = %.15g", name, a, b)
			ok = false
		}
		// dJᵀ: ApplyDJT(d) against (Jᵀ(x+hd) f − Jᵀ(x−hd) f) / 2h.
		jp, jm := jt(Perturb(pt, parentX, d, h), f), jt(Perturb(pt, parentX, d, -h), f)
		fdJT := make([]float64, pd)
		for i := range fdJT {
			fdJT[i] = (jp[i] - jm[i]) / (2 * h)
		}
		apply(parentX)
		djt := make([]float64, pd)
		m.ApplyDJT(djt, d, f, 1)
		scale := math.Max(maxAbs(fdJT), 1e-12*maxAbs(jp))
		if e, at := relErr(djt, fdJT, scale); e > opt.Tolerance {
			t.Errorf("%s: ApplyDJT disagrees with finite differences of Jᵀf: relative %.3g at entry %d (analytic %.9g, FD %.9g)", name, e, at, djt[at], fdJT[at])
			ok = false
		}
	}
	return ok
}

// MustLoad loads and initialises a scene from TOML text, failing the test
// on error.
func MustLoad(t interface {
	Helper()
	Fatalf(string, ...any)
}, name, text string) *graph.Scene {
	t.Helper()
	s, err := graph.Load(name, []byte(text))
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	if err := s.Init(); err != nil {
		t.Fatalf("init: %v", err)
	}
	return s
}

// Find returns the object at path as a T or fails the test.
func Find[O any](t interface {
	Helper()
	Fatalf(string, ...any)
}, s *graph.Scene, path string) O {
	t.Helper()
	o, err := graph.FindAs[O](s, path)
	if err != nil {
		t.Fatalf("%v", err)
	}
	return o
}

// Describe formats a short vector for messages.
func Describe(v []float64) string {
	if len(v) > 6 {
		return fmt.Sprintf("%.6g … (%d values)", v[:6], len(v))
	}
	return fmt.Sprintf("%.6g", v)
}
