package validation

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/sofago/sofago/components/forcefield"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

// rodCantilever is a straight rod of n elements along x from 0 to l,
// frame 0 clamped, the tip frame loaded by a dead force/torque (6
// numbers), solved by Newton (StaticSolver) in loadSteps increments.
func rodCantilever(n int, l float64, section string, e, nu float64, load [6]float64, loadSteps int) string {
	var b strings.Builder
	for i := 0; i <= n; i++ {
		fmt.Fprintf(&b, "[%.17g, 0, 0, 0, 0, 0, 1], ", l*float64(i)/float64(n))
	}
	return fmt.Sprintf(`
gravity = [0, 0, 0]
[[node]]
name = "rod"
  [[node.object]]
  type = "StaticSolver"
  iterations = 50
  tolerance = 1e-10
  loadSteps = %d
  [[node.object]]
  type = "SparseCholeskySolver"
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  template = "Rigid3"
  position = [%s]
  [[node.object]]
  type = "BeamFEMForceField"
  name = "beam"
  youngModulus = %.17g
  poissonRatio = %.17g
  %s
  [[node.object]]
  type = "FixedConstraint"
  indices = [0]
  [[node.object]]
  type = "ConstantForceField"
  indices = [%d]
  forces = [[%.17g, %.17g, %.17g, %.17g, %.17g, %.17g]]
`, loadSteps, b.String(), e, nu, section, n, load[0], load[1], load[2], load[3], load[4], load[5])
}

// solveRod loads and solves a rod scene (one static step) and returns the
// tip frame's coordinates and the force field.
func solveRod(t *testing.T, text string) ([]float64, *forcefield.BeamFEMForceField) {
	t.Helper()
	s := graphtest.MustLoad(t, "rod.toml", text)
	if err := s.Step(); err != nil {
		t.Fatalf("step: %v", err)
	}
	ff := graphtest.Find[*forcefield.BeamFEMForceField](t, s, "rod/beam")
	x := ff.Base().Node.State().Vec(graph.Position)
	return x[len(x)-7:], ff
}

// TestRodTipLoadSmallDeflection (issue 16, item 2): a thick cantilever
// (L = 1, r = 0.1, shear 2% of the deflection) under a small tip load;
// the tip deflection converges to Timoshenko's P L³/(3EI) + P L/(κGA).
// The element is the linear Timoshenko element with one-point shear
// integration, whose tip deflection under a tip load is known in closed
// form: the bending part is P L³/(3EI) (1 + 1/(4N²))... checked here as
// second-order convergence (the error falls by 4 per halving) and a
// relative error below 1e-3 at N = 32.
func TestRodTipLoadSmallDeflection(t *testing.T) {
	const l, r, e, nu = 1.0, 0.1, 1e6, 0.3
	probe := graphtest.MustLoad(t, "rod.toml", rodCantilever(2, l, fmt.Sprintf("radius = %g", r), e, nu, [6]float64{}, 1))
	k := graphtest.Find[*forcefield.BeamFEMForceField](t, probe, "rod/beam").SectionStiffness()
	ei, kga := k[5], k[1]
	p := 3e-4 * ei / (l * l) // deflection ~1e-4 L: geometric nonlinearity ~1e-8 relative
	want := p*l*l*l/(3*ei) + p*l/kga
	t.Logf("P L³/(3EI) = %.6g, P L/(κGA) = %.6g", p*l*l*l/(3*ei), p*l/kga)
	var errs []float64
	for _, n := range []int{2, 4, 8, 16, 32} {
		tip, _ := solveRod(t, rodCantilever(n, l, fmt.Sprintf("radius = %g", r), e, nu, [6]float64{0, -p, 0, 0, 0, 0}, 1))
		got := -tip[1]
		rel := (got - want) / want
		errs = append(errs, rel)
		nf := float64(n)
		pred := p*l*l*l/(3*ei)*(1-1/(4*nf*nf)) + p*l/kga
		t.Logf("N = %2d: tip deflection %.9g, Timoshenko %.9g, relative error %+.3e; one-point element formula %.9g", n, got, want, rel, pred)
		if math.Abs(got-pred) > 1e-6*want {
			t.Errorf("N = %d: tip deflection %.9g, the reduced-integration element gives %.9g", n, got, pred)
		}
	}
	for i := 1; i < len(errs); i++ {
		ratio := errs[i-1] / errs[i]
		if !(ratio > 3.5 && ratio < 4.5) {
			t.Errorf("error ratio %.3g between N = %d and N = %d, want ≈ 4 (second order)", ratio, 1<<i, 2<<i)
		}
	}
}

// TestRodTorsion (issue 16, item 2; lecture notes "twisting a thin rod"):
// a torque T about the axis at the tip twists the tip by T L/(GJ),
// J = π r⁴/2. Twist is uniform, so the mesh only matters through the
// element's twist measure: κ₁ = sin θ/L_e for an element turned by θ,
// so its torque is GJ sin θ cos θ/L_e = GJ sin 2θ/(2L_e) and the
// computed twist exceeds T L/(GJ) by the factor 1 + (2/3) θ² + O(θ⁴),
// θ = φ/N: checked to 1% of that term (and to 1e-6 relative at N = 10).
func TestRodTorsion(t *testing.T) {
	const l, r, e, nu = 2.0, 0.05, 1e6, 0.3
	g := e / (2 * (1 + nu))
	j := math.Pi * r * r * r * r / 2
	tq := 0.01 * g * j / l
	for _, n := range []int{1, 4, 10} {
		tip, _ := solveRod(t, rodCantilever(n, l, fmt.Sprintf("radius = %g", r), e, nu, [6]float64{0, 0, 0, tq, 0, 0}, 1))
		phi := geom.Quat{tip[3], tip[4], tip[5], tip[6]}.RotVec()
		want := tq * l / (g * j)
		th := want / float64(n)
		pred := 2 * th * th / 3
		if rel := (phi[0] - want) / want; math.Abs(rel-pred) > 0.01*pred || math.Abs(phi[1])+math.Abs(phi[2]) > 1e-12 {
			t.Errorf("N = %d: tip twist %v, want [%g 0 0] (relative error %.3g, predicted %.3g)", n, phi, want, rel, pred)
		} else {
			t.Logf("N = %d: tip twist %.9g, T L/(GJ) = %.9g, relative error %.3g (predicted (2/3)(φ/N)² = %.3g)", n, phi[0], want, rel, pred)
		}
	}
}

// elastica returns the tip position (x, y), y downward, of an inextensible
// cantilever of length 1 under a dead tip load with α = P L²/(EI), by
// shooting on EI θ” = −P cos θ, θ(0) = 0, θ'(1) = 0 (θ the tangent's
// angle below the horizontal): bisection on θ'(0) ∈ [0, α] (θ'(1) < 0 at
// 0, ≥ 0 at α), RK4 with 4000 steps (error ~1e-13).
func elastica(alpha float64) (xTip, yTip float64) {
	shoot := func(m float64) (th1, x, y float64) {
		const steps = 4000
		h := 1.0 / steps
		// state: θ, θ', x, y
		f := func(s [4]float64) [4]float64 {
			return [4]float64{s[1], -alpha * math.Cos(s[0]), math.Cos(s[0]), math.Sin(s[0])}
		}
		s := [4]float64{0, m, 0, 0}
		for i := 0; i < steps; i++ {
			k1 := f(s)
			var s2, s3, s4 [4]float64
			for c := range s {
				s2[c] = s[c] + h/2*k1[c]
			}
			k2 := f(s2)
			for c := range s {
				s3[c] = s[c] + h/2*k2[c]
			}
			k3 := f(s3)
			for c := range s {
				s4[c] = s[c] + h*k3[c]
			}
			k4 := f(s4)
			for c := range s {
				s[c] += h / 6 * (k1[c] + 2*k2[c] + 2*k3[c] + k4[c])
			}
		}
		return s[1], s[2], s[3]
	}
	lo, hi := 0.0, alpha
	for it := 0; it < 100; it++ {
		mid := 0.5 * (lo + hi)
		if d, _, _ := shoot(mid); d < 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	_, xTip, yTip = shoot(0.5 * (lo + hi))
	return
}

// TestRodElastica (issue 16, item 3): large deflection of a slender
// cantilever (r/L = 0.002: stretch and shear change the tip by ~1e-6)
// under a dead tip load with P L²/(EI) = 1, 3, 10, against the elastica
// computed above by shooting. 100 elements turn by at most 0.05 rad
// each; the tip (drop and horizontal position) must match within 0.5% of
// the drop, the bound (measured: below 0.05%, logged).
func TestRodElastica(t *testing.T) {
	if _, y := elastica(1); math.Abs(y-0.3017) > 5e-4 {
		t.Fatalf("elastica(1): tip drop %.5f, want the tabulated 0.3017 L", y)
	}
	const l, r, e, nu, n = 1.0, 0.002, 1e9, 0.3, 100
	ei := e * math.Pi * r * r * r * r / 4
	for _, c := range []struct {
		alpha float64
		steps int
	}{{1, 2}, {3, 4}, {10, 10}} {
		p := c.alpha * ei / (l * l)
		tip, _ := solveRod(t, rodCantilever(n, l, fmt.Sprintf("radius = %g", r), e, nu, [6]float64{0, -p, 0, 0, 0, 0}, c.steps))
		xe, ye := elastica(c.alpha)
		dy := (-tip[1] - ye) / ye
		dx := (tip[0] - xe) / ye
		t.Logf("PL²/EI = %4g: tip drop %.6f L (elastica %.6f, %+.2e), tip x %.6f L (elastica %.6f, %+.2e of the drop)", c.alpha, -tip[1], ye, dy, tip[0], xe, dx)
		if math.Abs(dy) > 5e-3 || math.Abs(dx) > 5e-3 {
			t.Errorf("PL²/EI = %g: tip (%.6f, %.6f), elastica (%.6f, %.6f): beyond 0.5%%", c.alpha, tip[0], -tip[1], xe, ye)
		}
	}
}
