package solver_test

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	_ "github.com/sofago/sofago/components/all"
	"github.com/sofago/sofago/components/solver"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

// cantileverScene is the beam of scenes/cantilever.toml (corotational
// tetrahedra, 567 DOFs, clamped face x = 0, gravity) with the ODE solver
// block ode and the linear solver block lin.
func cantileverScene(t testing.TB, ode, lin string) *graph.Scene {
	t.Helper()
	return graphtest.MustLoad(t, "cantilever.toml", cantileverText(ode, lin))
}

// cantileverText is cantileverScene's scene text.
func cantileverText(ode, lin string) string {
	return fmt.Sprintf(`
dt = 0.01
gravity = [0, -9.81, 0]
[[node]]
name = "beam"
  [[node.object]]
  name = "ode"
  %s
  [[node.object]]
  name = "lin"
  %s
  [[node.object]]
  type = "RegularGridTopology"
  min = [0, 0, 0]
  max = [1, 0.1, 0.1]
  n = [21, 3, 3]
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  template = "Vec3"
  [[node.object]]
  type = "DiagonalMass"
  massDensity = 1000
  [[node.object]]
  type = "TetrahedronFEMForceField"
  name = "fem"
  method = "large"
  youngModulus = 1e7
  poissonRatio = 0.3
  [[node.object]]
  type = "FixedConstraint"
  box = [-0.001, -1, -1, 0.001, 1, 1]
  [[node.node]]
  name = "visual"
    [[node.node.object]]
    type = "MechanicalObject"
    name = "surface"
    [[node.node.object]]
    type = "IdentityMapping"
    isMechanical = false
`, ode, lin)
}

const (
	implicitEuler = `type = "EulerImplicitSolver"
  rayleighStiffness = 0.1
  rayleighMass = 0.1`
	sparseCholesky = `type = "SparseCholeskySolver"`
	tightCG        = `type = "CGLinearSolver"
  iterations = 5000
  tolerance = 1e-12`
)

// TestSparseCholeskyImplicitStepMatchesCG compares one implicit Euler step
// of the cantilever solved by sparse Cholesky with the same step solved by
// CG to a relative residual of 1e-12, and with DenseDirectSolver (an
// independent dense LAPACK factorisation of the same assembled matrix).
// The CG solution's relative error is bounded by κ·1e-12, κ the condition
// number of M − h(h+β)K (~10³–10⁴ here: β = 0.1 makes the stiffness term
// dominate), hence 1e-8; two exact factorisations agree to κ·ε ≈ 1e-12,
// hence 1e-10 against the dense solver. The relative residual of a
// backward-stable solve is ≤ c·ε·|A||x|/|rhs| ≤ c·ε·κ ≈ 10⁻¹²…10⁻¹¹ (the
// residual is computed by ComputeDf, summing in another order than the
// assembly); 1e-10 bounds it.
func TestSparseCholeskyImplicitStepMatchesCG(t *testing.T) {
	for _, ordering := range []string{"minimumDegree", "nestedDissection"} {
		t.Run(ordering, func(t *testing.T) {
			step := func(lin string) ([]float64, graph.LinearStats) {
				s := cantileverScene(t, implicitEuler, lin)
				if err := s.Step(); err != nil {
					t.Fatal(err)
				}
				st := graphtest.Find[graph.State](t, s, "beam/dofs")
				return append([]float64(nil), st.Vec(graph.Velocity)...),
					graphtest.Find[*solver.EulerImplicitSolver](t, s, "beam/ode").LastStats()
			}
			vChol, stChol := step(sparseCholesky + "\n  ordering = \"" + ordering + "\"")
			vCG, stCG := step(tightCG)
			vDense, _ := step(`type = "DenseDirectSolver"`)
			t.Logf("Cholesky stats %+v; CG %+v", stChol, stCG)
			if !stCG.Converged {
				t.Fatalf("reference CG did not converge: %+v", stCG)
			}
			if !stChol.Converged || stChol.Iterations != 1 || stChol.Residual > 1e-10 {
				t.Errorf("Cholesky stats %+v: want one converged iteration with a residual at rounding level", stChol)
			}
			if maxAbs(vChol) == 0 {
				t.Fatal("zero velocity after a step under gravity")
			}
			eCG, eDense := relMaxDiff(vChol, vCG), relMaxDiff(vChol, vDense)
			t.Logf("relative max difference: vs CG %.3g, vs dense %.3g", eCG, eDense)
			if eCG > 1e-8 {
				t.Errorf("velocities differ from CG's by %.3g relative (want ≤ 1e-8)", eCG)
			}
			if eDense > 1e-10 {
				t.Errorf("velocities differ from the dense solver's by %.3g relative (want ≤ 1e-10)", eDense)
			}
		})
	}
}

// TestSparseCholeskyKeepsAnalysis checks that several steps (K changing
// with the configuration, the pattern not) reuse one symbolic analysis,
// that the clamped DOFs stay exactly at rest, and that every solve's
// residual (one ComputeDf, independent of the assembly) is at rounding
// level (≤ c·ε·κ, see TestSparseCholeskyImplicitStepMatchesCG).
func TestSparseCholeskyKeepsAnalysis(t *testing.T) {
	s := cantileverScene(t, implicitEuler, sparseCholesky)
	lin := graphtest.Find[*solver.SparseCholeskySolver](t, s, "beam/lin")
	ode := graphtest.Find[*solver.EulerImplicitSolver](t, s, "beam/ode")
	st := graphtest.Find[graph.State](t, s, "beam/dofs")
	for i := 0; i < 5; i++ {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
		if r := ode.LastStats().Residual; r > 1e-10 || math.IsNaN(r) {
			t.Errorf("step %d: relative residual %.3g, want ≤ 1e-10", i, r)
		}
	}
	if lin.Analyses() != 1 {
		t.Errorf("%d symbolic analyses over 5 steps, want 1", lin.Analyses())
	}
	x, rest, v := st.Vec(graph.Position), st.Vec(graph.RestPosition), st.Vec(graph.Velocity)
	for i := 0; i < len(x); i += 3 {
		if rest[i] < 0.001 {
			for c := 0; c < 3; c++ {
				if x[i+c] != rest[i+c] || v[i+c] != 0 {
					t.Fatalf("clamped DOF %d moved: x %v rest %v v %v", i/3, x[i:i+3], rest[i:i+3], v[i:i+3])
				}
			}
		}
	}
	sym := lin.Symbolic()
	t.Logf("factor: %d supernodes, %d entries in L, %.3g flops", sym.Supernodes(), sym.NnzL(), sym.Flops())
}

// TestSparseCholeskyStaticMatchesCG solves the static equilibrium of
// scenes/cantilever_static.toml with Newton's method using sparse
// Cholesky and using CG (tolerance 1e-12), and compares the
// displacements. Newton stops at |f| ≤ 1e-10·|f₀| in both, so the
// equilibria differ by at most ~1e-10·κ(K) relative to the displacement;
// 1e-7 leaves a margin for κ(K) ~ 10³ of this beam.
func TestSparseCholeskyStaticMatchesCG(t *testing.T) {
	const static = `type = "StaticSolver"
  iterations = 25
  tolerance = 1e-10`
	solve := func(lin string) ([]float64, solver.StaticStats) {
		s := cantileverScene(t, static, lin)
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
		st := graphtest.Find[graph.State](t, s, "beam/dofs")
		u := make([]float64, len(st.Vec(graph.Position)))
		for i, x := range st.Vec(graph.Position) {
			u[i] = x - st.Vec(graph.RestPosition)[i]
		}
		return u, graphtest.Find[*solver.StaticSolver](t, s, "beam/ode").LastStaticStats()
	}
	uChol, nChol := solve(sparseCholesky)
	uCG, nCG := solve(tightCG)
	t.Logf("Newton with Cholesky %+v; with CG %+v", nChol, nCG)
	if !nChol.Converged || !nCG.Converged {
		t.Fatalf("Newton did not converge: Cholesky %+v, CG %+v", nChol, nCG)
	}
	e := relMaxDiff(uChol, uCG)
	t.Logf("tip-region max displacement %.6g m; relative difference %.3g", maxAbs(uChol), e)
	if e > 1e-7 {
		t.Errorf("equilibria differ by %.3g relative (want ≤ 1e-7)", e)
	}
}

// TestSparseCholeskyAssemblesWhatItUsedToRefuse steps the two scenes
// SparseCholeskySolver once refused — a mass on a mechanically mapped node
// (JᵀMJ through an IdentityMapping: the parent sees mass 1 + 2 per point)
// and a force field with a stiffness and no matrix (TestCubic, probed with
// AddDForce, a note saying so) on a Vec1 state (padded to a 3-block) —
// and compares with CG to 1e-12 relative residual: both systems are
// diagonal with κ ≤ 10, so the velocities agree to 1e-11 relative (CG's
// κ·1e-12 bound).
func TestSparseCholeskyAssemblesWhatItUsedToRefuse(t *testing.T) {
	mapped := `
dt = 0.01
gravity = [0, -9.81, 0]
[[node]]
name = "n"
  [[node.object]]
  type = "EulerImplicitSolver"
  [[node.object]]
  %s
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  position = [[0, 0, 0], [1, 0, 0]]
  [[node.object]]
  type = "UniformMass"
  vertexMass = 1
  [[node.node]]
  name = "child"
    [[node.node.object]]
    type = "MechanicalObject"
    name = "copy"
    [[node.node.object]]
    type = "IdentityMapping"
    [[node.node.object]]
    type = "UniformMass"
    name = "extra"
    vertexMass = 2
`
	noAsm := `
dt = 0.01
[[node]]
name = "n"
  [[node.object]]
  type = "EulerImplicitSolver"
  [[node.object]]
  %s
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  template = "Vec1"
  position = [[1]]
  [[node.object]]
  type = "UniformMass"
  vertexMass = 1
  [[node.object]]
  type = "TestCubic"
  name = "cubic"
  k = 2
`
	for name, text := range map[string]string{"mapped": mapped, "noasm": noAsm} {
		run := func(lin string) (*graph.Scene, []float64) {
			s := graphtest.MustLoad(t, name+".toml", fmt.Sprintf(text, lin))
			if err := s.Step(); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			return s, graphtest.Find[graph.State](t, s, "n/dofs").Vec(graph.Velocity)
		}
		sc, vc := run(sparseCholesky)
		_, vg := run(tightCG)
		if e := relMaxDiff(vc, vg); e > 1e-11 || maxAbs(vg) == 0 {
			t.Errorf("%s: velocities differ from CG's by %.3g relative (|v| = %g)", name, e, maxAbs(vg))
		}
		if name == "mapped" {
			// One step from rest with gravity only: v = h·g whatever the
			// masses, if the mapped mass's weight and inertia both arrive.
			if d := math.Abs(vc[1] - 0.01*-9.81); d > 1e-15 {
				t.Errorf("mapped: v_y = %g, want %g", vc[1], 0.01*-9.81)
			}
		}
		if name == "noasm" && !slices.ContainsFunc(sc.Notes(), func(n string) bool {
			return strings.Contains(n, `object "cubic"`) && strings.Contains(n, "probes")
		}) {
			t.Errorf("noasm: no note on probing the cubic's stiffness; notes %q", sc.Notes())
		}
	}
}

// beam10kScene is the beam of validation/bench_test.go (104 × 4 × 4 cells,
// 9,984 corotational tetrahedra, 2,625 vertices, clamped at x = 0) with
// the linear solver block lin.
func beam10kScene(b testing.TB, lin string) *graph.Scene {
	return graphtest.MustLoad(b, "beam10k.toml", `
dt = 0.01
gravity = [0, -9.81, 0]
[[node]]
name = "beam"
  [[node.object]]
  type = "EulerImplicitSolver"
  name = "ode"
  rayleighStiffness = 0.1
  rayleighMass = 0.1
  [[node.object]]
  name = "lin"
  `+lin+`
  [[node.object]]
  type = "RegularGridTopology"
  min = [0, 0, 0]
  max = [1, 0.04, 0.04]
  n = [105, 5, 5]
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[node.object]]
  type = "DiagonalMass"
  massDensity = 1000
  [[node.object]]
  type = "TetrahedronFEMForceField"
  name = "fem"
  method = "large"
  youngModulus = 1e8
  poissonRatio = 0.3
  [[node.object]]
  type = "FixedConstraint"
  box = [-1e-9, -1, -1, 1e-9, 1, 1]
`)
}

// BenchmarkImplicitEulerStepBeam10kSparseCholesky is one implicit Euler
// step of the 9,984-tetrahedron beam with the system solved exactly by
// SparseCholeskySolver (assembly, numeric factorisation, solve, residual
// check; the symbolic analysis is done before the timer), for both
// orderings, and with CG for comparison on the same machine: at most 100
// iterations, tolerance 1e-9, as validation/bench_test.go does (which
// leaves the residual at ~1, far from converged), and to convergence
// (~2,400 iterations, over a second per step: run with -benchtime 3x).
func BenchmarkImplicitEulerStepBeam10kSparseCholesky(b *testing.B) {
	for _, c := range []struct{ name, lin string }{
		{"minimumDegree", `type = "SparseCholeskySolver"`},
		{"nestedDissection", "type = \"SparseCholeskySolver\"\n  ordering = \"nestedDissection\""},
		{"CG100", "type = \"CGLinearSolver\"\n  iterations = 100\n  tolerance = 1e-9"},
		{"CGconverged", "type = \"CGLinearSolver\"\n  iterations = 100000\n  tolerance = 1e-9"},
	} {
		b.Run(c.name, func(b *testing.B) {
			s := beam10kScene(b, c.lin)
			for i := 0; i < 3; i++ { // leave the rest state
				if err := s.Step(); err != nil {
					b.Fatal(err)
				}
			}
			ode := graphtest.Find[*solver.EulerImplicitSolver](b, s, "beam/ode")
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := s.Step(); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			st := ode.LastStats()
			b.ReportMetric(float64(st.Iterations), "iterations")
			b.ReportMetric(st.Residual/1e-12, "residual/1e-12")
			if lin, ok := s.Find("beam/lin").(*solver.SparseCholeskySolver); ok {
				b.ReportMetric(lin.Symbolic().Flops(), "factor-flops")
			}
		})
	}
}
