package validation

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sofago/sofago/components/solver"
	"github.com/sofago/sofago/components/topology"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
	"github.com/sofago/sofago/material"
)

// The bar of the uniaxial tests: [0, L] × [0, A] × [0, A], 5 × 2 × 2
// cubic cells of 0.2 m (120 tetrahedra).
const (
	barL, barA = 1.0, 0.4
	barE       = 1e6
)

var barN = [3]int{6, 3, 3}

// uniaxialStVK is the nominal (first Piola–Kirchhoff) stress of a StVK bar
// under uniaxial stress at stretch 1 + ε: with free lateral faces S₂₂ = 0
// gives E₂₂ = −ν E₁₁, hence S₁₁ = E·E₁₁ with E₁₁ = ε + ε²/2, and
// P₁₁ = (1 + ε) S₁₁ = E(ε + 3ε²/2 + ε³/2), whatever ν.
func uniaxialStVK(E, eps float64) float64 { return E * (eps + 1.5*eps*eps + 0.5*eps*eps*eps) }

// uniaxialNeoHookean is the nominal stress of a Bonet–Wood neo-Hookean bar
// under uniaxial stress at stretch s = 1 + ε. With F = diag(s, t, t),
// Ψ(s, t) = μ/2 (s² + 2t² − 3) − μ ln(s t²) + λ/2 ln²(s t²); free lateral
// faces mean ∂Ψ/∂t = 0, i.e. μ(t² − 1) + λ ln(s t²) = 0, solved here by
// bisection (the left side increases with t), and then
// P₁₁ = ∂Ψ/∂s = μ(s − 1/s) + λ ln(s t²)/s. It returns P₁₁ and t.
func uniaxialNeoHookean(E, nu, eps float64) (P, t float64) {
	lam, mu := material.Lame(E, nu)
	s := 1 + eps
	lo, hi := 1e-3, 10.0
	for i := 0; i < 200; i++ {
		mid := 0.5 * (lo + hi)
		if mu*(mid*mid-1)+lam*math.Log(s*mid*mid) < 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	t = 0.5 * (lo + hi)
	return mu*(s-1/s) + lam*math.Log(s*t*t)/s, t
}

// endFaceLoads returns the vertices of the face x = L of the grid and the
// consistent nodal forces of a uniform traction (p, 0, 0) on it: each
// boundary triangle of the face gives a third of p·area to each of its
// vertices. These are exactly the forces the homogeneous stress state
// P = p e₁⊗e₁ exerts on the face's vertices (−∫ P ∇Nᵢ dV = ∫ Nᵢ P n dA on
// linear elements), so the discrete equilibrium is the homogeneous
// deformation, with no end effect.
func endFaceLoads(t *testing.T, p float64) (idx []int, forces []float64) {
	t.Helper()
	g, err := topology.NewRegularGrid([3]float64{}, [3]float64{barL, barA, barA}, barN)
	if err != nil {
		t.Fatal(err)
	}
	pts := g.Points()
	load := map[int]float64{}
	for _, tri := range g.Triangles() {
		onFace := true
		for _, v := range tri {
			onFace = onFace && math.Abs(pts[3*v]-barL) < 1e-12
		}
		if !onFace {
			continue
		}
		a, b, c := geom.At(pts, tri[0]), geom.At(pts, tri[1]), geom.At(pts, tri[2])
		area := 0.5 * b.Sub(a).Cross(c.Sub(a)).Norm()
		for _, v := range tri {
			load[v] += p * area / 3
		}
	}
	for v := 0; v < len(pts)/3; v++ {
		if f, ok := load[v]; ok {
			idx = append(idx, v)
			forces = append(forces, f)
		}
	}
	return idx, forces
}

// uniaxialBarScene is the bar with symmetry-plane supports (x fixed on
// x = 0, y on y = 0, z on z = 0: the homogeneous uniaxial state satisfies
// them exactly and they remove every rigid motion without blocking the
// lateral contraction), the end traction p on x = L, and a static Newton
// solve.
func uniaxialBarScene(t *testing.T, materialName string, nu, p float64) string {
	idx, forces := endFaceLoads(t, p)
	var is, fs []string
	for k, v := range idx {
		is = append(is, fmt.Sprint(v))
		fs = append(fs, fmt.Sprintf("[%.17g, 0, 0]", forces[k]))
	}
	return fmt.Sprintf(`
[[node]]
name = "bar"
  [[node.object]]
  type = "StaticSolver"
  iterations = 40
  tolerance = 1e-13
  [[node.object]]
  type = "CGLinearSolver"
  iterations = 2000
  tolerance = 1e-13
  [[node.object]]
  type = "RegularGridTopology"
  min = [0, 0, 0]
  max = [%g, %g, %g]
  n = [%d, %d, %d]
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[node.object]]
  type = "TetrahedronHyperelasticityFEMForceField"
  materialName = %q
  youngModulus = %g
  poissonRatio = %g
  [[node.object]]
  type = "ConstantForceField"
  indices = [%s]
  forces = [%s]
  [[node.object]]
  type = "PartialFixedConstraint"
  name = "symmetryX"
  box = [-1e-9, -1, -1, 1e-9, 1, 1]
  fixedDirections = [true, false, false]
  [[node.object]]
  type = "PartialFixedConstraint"
  name = "symmetryY"
  box = [-1, -1e-9, -1, 2, 1e-9, 1]
  fixedDirections = [false, true, false]
  [[node.object]]
  type = "PartialFixedConstraint"
  name = "symmetryZ"
  box = [-1, -1, -1e-9, 2, 1, 1e-9]
  fixedDirections = [false, false, true]
`, barL, barA, barA, barN[0], barN[1], barN[2], materialName, barE, nu, strings.Join(is, ", "), strings.Join(fs, ", "))
}

// solveBar runs one static step and returns the axial and lateral
// stretches measured on the end face x = L and on the faces y = A, z = A,
// and the largest deviation of any vertex from the homogeneous map
// diag(s, t, t) (relative to the displacement scale).
func solveBar(t *testing.T, text string) (s, tl, dev float64, stats solver.StaticStats) {
	t.Helper()
	sc := graphtest.MustLoad(t, "bar.toml", text)
	if err := sc.Step(); err != nil {
		t.Fatal(err)
	}
	stats = graphtest.Find[*solver.StaticSolver](t, sc, "bar/StaticSolver").LastStaticStats()
	st := graphtest.Find[graph.State](t, sc, "bar/dofs")
	x, x0 := st.Vec(graph.Position), st.Vec(graph.RestPosition)
	// Stretches from the corner vertex (L, A, A).
	c := len(x)/3 - 1
	s, tl = x[3*c]/x0[3*c], x[3*c+1]/x0[3*c+1]
	if t2 := x[3*c+2] / x0[3*c+2]; math.Abs(t2-tl) > 1e-12 {
		t.Errorf("lateral stretches differ: y %.15g, z %.15g", tl, t2)
	}
	scale := math.Max(math.Abs(s-1), math.Abs(tl-1)) * barL
	for v := 0; v < len(x)/3; v++ {
		want := geom.Vec3{s * x0[3*v], tl * x0[3*v+1], tl * x0[3*v+2]}
		dev = math.Max(dev, geom.At(x, v).Sub(want).Norm()/scale)
	}
	return s, tl, dev, stats
}

// TestUniaxialBarStVK: a StVK bar pulled (ε = 0.1, 0.3) or pushed
// (ε = −0.1) by the nominal traction of the closed form
// P = E(ε + 3ε²/2 + ε³/2) reaches the stretch 1 + ε whatever ν (0.3,
// 0.45), its lateral faces contracting freely (lateral Green strain
// −ν E₁₁). The issue asks for 1 %. With consistent end loads and
// symmetry supports the discrete solution is the homogeneous one, so the
// only error is the Newton/CG tolerance: the test asks for 1e-8 on the
// stress (measured ≤ 5e-14, logged) and that every vertex follows the
// homogeneous map to 1e-8 of the displacement.
func TestUniaxialBarStVK(t *testing.T) {
	for _, nu := range []float64{0.3, 0.45} {
		for _, eps := range []float64{-0.1, 0.1, 0.3} {
			p := uniaxialStVK(barE, eps)
			s, tl, dev, stats := solveBar(t, uniaxialBarScene(t, "StVenantKirchhoff", nu, p))
			epsFE := s - 1
			pAt := uniaxialStVK(barE, epsFE)
			e11 := eps + eps*eps/2
			tWant := math.Sqrt(1 - 2*nu*e11)
			perr := math.Abs(pAt-p) / math.Abs(p)
			t.Logf("ν = %.2f ε = %+.2f: stretch %.12f (closed form %.12f), lateral %.12f (%.12f); P(ε_FE) vs applied P: %.2g; homogeneity %.2g; Newton %d, CG %d",
				nu, eps, s, 1+eps, tl, tWant, perr, dev, stats.Iterations, stats.LinearIterations)
			if perr > 1e-8 || math.Abs(tl-tWant) > 1e-8 || dev > 1e-8 {
				t.Errorf("ν = %g, ε = %g: stress error %.3g, lateral stretch %.12f vs %.12f, deviation from homogeneous %.3g", nu, eps, perr, tl, tWant, dev)
			}
		}
	}
}

// TestUniaxialBarNeoHookean: the neo-Hookean bar under the nominal
// traction of its closed form (uniaxialNeoHookean, the lateral stretch
// from ∂Ψ/∂t = 0 solved numerically) reaches the stretch 1 + ε and the
// closed-form lateral stretch, at ν = 0.3 and 0.45 (same tolerances and
// reasoning as TestUniaxialBarStVK).
func TestUniaxialBarNeoHookean(t *testing.T) {
	for _, nu := range []float64{0.3, 0.45} {
		for _, eps := range []float64{-0.1, 0.1, 0.3} {
			p, tWant := uniaxialNeoHookean(barE, nu, eps)
			s, tl, dev, stats := solveBar(t, uniaxialBarScene(t, "NeoHookean", nu, p))
			pAt, _ := uniaxialNeoHookean(barE, nu, s-1)
			perr := math.Abs(pAt-p) / math.Abs(p)
			t.Logf("ν = %.2f ε = %+.2f: P = %.6g Pa, stretch %.12f (closed form %.12f), lateral %.12f (%.12f); P(ε_FE) vs applied P: %.2g; homogeneity %.2g; Newton %d, CG %d",
				nu, eps, p, s, 1+eps, tl, tWant, perr, dev, stats.Iterations, stats.LinearIterations)
			if perr > 1e-8 || math.Abs(tl-tWant) > 1e-8 || dev > 1e-8 {
				t.Errorf("ν = %g, ε = %g: stress error %.3g, lateral stretch %.12f vs %.12f, deviation from homogeneous %.3g", nu, eps, perr, tl, tWant, dev)
			}
		}
	}
}

// TestAffinePatch: the boundary vertices of a 4 × 4 × 4-cell cube are
// clamped at an affine image x = A X + b of their rest positions (A a
// rotated stretch of up to 20 %), the 27 interior vertices start 2 cm
// (a fifth of a cell) away from it at random, and a static Newton solve
// must put them at A X + b:
// linear tetrahedra represent affine fields exactly and a uniform F gives
// zero net force on every interior vertex. Tolerance 1e-10 of the
// displacement scale (Newton converges quadratically to rounding, 1e-16
// relative to the coordinates).
func TestAffinePatch(t *testing.T) {
	n := [3]int{5, 5, 5}
	g, err := topology.NewRegularGrid([3]float64{}, [3]float64{0.4, 0.4, 0.4}, n)
	if err != nil {
		t.Fatal(err)
	}
	rest := g.Points()
	rng := rand.New(rand.NewPCG(3, 5))
	q := geom.Quat{0.1, -0.2, 0.3, 0.9}.Normalized()
	A := q.Mat().Mul(geom.Mat3{1.2, 0.1, -0.05, 0.05, 0.85, 0.1, -0.1, 0.02, 1.1})
	b := geom.Vec3{0.05, -0.1, 0.2}
	var pos, restPos, boundary []string
	for v := 0; v < len(rest)/3; v++ {
		i, j, k := v%n[0], v/n[0]%n[1], v/(n[0]*n[1])
		X := geom.At(rest, v)
		p := X
		if i == 0 || j == 0 || k == 0 || i == n[0]-1 || j == n[1]-1 || k == n[2]-1 {
			p = A.MulVec(X).Add(b)
			boundary = append(boundary, fmt.Sprint(v))
		} else {
			// Interior: the affine image, jittered by 2 cm (a fifth of
			// the cell size).
			p = A.MulVec(X).Add(b).Add(geom.Vec3{0.02 * rng.NormFloat64(), 0.02 * rng.NormFloat64(), 0.02 * rng.NormFloat64()})
		}
		pos = append(pos, fmt.Sprintf("[%.17g, %.17g, %.17g]", p[0], p[1], p[2]))
		restPos = append(restPos, fmt.Sprintf("[%.17g, %.17g, %.17g]", X[0], X[1], X[2]))
	}
	for _, name := range []string{"StVenantKirchhoff", "NeoHookean", "StableNeoHookean"} {
		sc := graphtest.MustLoad(t, "patch.toml", fmt.Sprintf(`
[[node]]
name = "cube"
  [[node.object]]
  type = "StaticSolver"
  iterations = 30
  tolerance = 1e-14
  [[node.object]]
  type = "CGLinearSolver"
  iterations = 1000
  tolerance = 1e-14
  [[node.object]]
  type = "RegularGridTopology"
  min = [0, 0, 0]
  max = [0.4, 0.4, 0.4]
  n = [%d, %d, %d]
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  restPosition = [%s]
  position = [%s]
  [[node.object]]
  type = "TetrahedronHyperelasticityFEMForceField"
  materialName = %q
  youngModulus = 1e6
  poissonRatio = 0.4
  [[node.object]]
  type = "FixedConstraint"
  indices = [%s]
`, n[0], n[1], n[2], strings.Join(restPos, ", "), strings.Join(pos, ", "), name, strings.Join(boundary, ", ")))
		if err := sc.Step(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		stats := graphtest.Find[*solver.StaticSolver](t, sc, "cube/StaticSolver").LastStaticStats()
		x := graphtest.Find[graph.State](t, sc, "cube/dofs").Vec(graph.Position)
		dev := 0.0
		for v := 0; v < len(rest)/3; v++ {
			want := A.MulVec(geom.At(rest, v)).Add(b)
			dev = math.Max(dev, geom.At(x, v).Sub(want).Norm())
		}
		// Displacement scale: |A − I|·size ≈ 0.1 m.
		scale := 0.4 * math.Sqrt(A.Sub(geom.Identity3()).DDot(A.Sub(geom.Identity3())))
		t.Logf("%s: max |x − (A X + b)| = %.2g m (%.2g of the displacement scale), residual %.2g N after %d Newton iterations",
			name, dev, dev/scale, stats.Residual, stats.Iterations)
		if dev > 1e-10*scale {
			t.Errorf("%s: interior deviates from the affine field by %.3g m (scale %.3g m)", name, dev, scale)
		}
	}
}
