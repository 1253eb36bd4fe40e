package solver_test

import (
	"fmt"
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/sofago/sofago/components/solver"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

var preconditioners = []string{"none", "jacobi", "blockJacobi", "ic0", "warp"}

// pcgBlock is a PCGLinearSolver block for the test scenes.
func pcgBlock(pre, product string, iterations int, tol float64) string {
	return fmt.Sprintf("type = \"PCGLinearSolver\"\n  preconditioner = %q\n  product = %q\n  iterations = %d\n  tolerance = %g", pre, product, iterations, tol)
}

// hyperBeamScene is a StVK beam with a consistent mass, a five times
// stiffer half (regions) and a clamped end: the block assembly of the
// hyperelastic force field and of MeshMatrixMass, with heterogeneity.
func hyperBeamScene(t testing.TB, lin string) *graph.Scene {
	return graphtest.MustLoad(t, "hyper.toml", `
dt = 0.01
gravity = [0, -9.81, 0]
[[node]]
name = "beam"
  [[node.object]]
  type = "EulerImplicitSolver"
  name = "ode"
  rayleighStiffness = 0.05
  rayleighMass = 0.1
  [[node.object]]
  name = "lin"
  `+lin+`
  [[node.object]]
  type = "RegularGridTopology"
  min = [0, 0, 0]
  max = [1, 0.1, 0.1]
  n = [21, 3, 3]
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[node.object]]
  type = "MeshMatrixMass"
  massDensity = 1000
  [[node.object]]
  type = "TetrahedronHyperelasticityFEMForceField"
  materialName = "StVenantKirchhoff"
  youngModulus = 2e6
  poissonRatio = 0.35
  regions = [{box = [0, -1, -1, 0.5, 1, 1], youngModulus = 1e7}]
  [[node.object]]
  type = "FixedConstraint"
  box = [-0.001, -1, -1, 0.001, 1, 1]
`)
}

// stepVelocities runs steps implicit Euler steps and returns the final
// velocities and the last linear statistics.
func stepVelocities(t *testing.T, s *graph.Scene, steps int) ([]float64, graph.LinearStats) {
	t.Helper()
	for i := 0; i < steps; i++ {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
	}
	st := graphtest.Find[graph.State](t, s, "beam/dofs")
	return append([]float64(nil), st.Vec(graph.Velocity)...),
		graphtest.Find[*solver.EulerImplicitSolver](t, s, "beam/ode").LastStats()
}

// TestPCGMatchesSparseCholesky solves two implicit Euler steps of the
// corotational cantilever (DiagonalMass) and of a heterogeneous StVK beam
// (MeshMatrixMass) with every preconditioner and product, to a relative
// residual of 1e-10 (recomputed, not only the recursive one: 1e-12 is
// below what the residual of even the exact solution rounds to, ε·κ),
// and compares the velocities with those of SparseCholeskySolver (exact;
// itself checked against tight CG and a dense LAPACK solve). A relative
// residual ρ bounds the relative error by κ·ρ, κ ≲ 10⁴ here, hence 1e-6.
func TestPCGMatchesSparseCholesky(t *testing.T) {
	scenes := map[string]func(testing.TB, string) *graph.Scene{
		"cantilever": func(t testing.TB, lin string) *graph.Scene { return cantileverScene(t, implicitEuler, lin) },
		"hyperBeam":  hyperBeamScene,
	}
	for name, mk := range scenes {
		ref, _ := stepVelocities(t, mk(t, sparseCholesky), 2)
		for _, pre := range preconditioners {
			for _, product := range []string{"auto", "assembled", "matrixFree"} {
				t.Run(name+"/"+pre+"/"+product, func(t *testing.T) {
					s := mk(t, pcgBlock(pre, product, 20000, 1e-10))
					v, st := stepVelocities(t, s, 2)
					lin := graphtest.Find[*solver.PCGLinearSolver](t, s, "beam/lin")
					if !st.Converged || st.Residual > 1e-10 {
						t.Fatalf("not converged: %+v", st)
					}
					if product != "auto" && lin.LastProduct() != product {
						t.Errorf("product %q asked, %q used", product, lin.LastProduct())
					}
					e := relMaxDiff(v, ref)
					t.Logf("%d iterations (%s products), velocities vs sparse Cholesky %.2g", st.Iterations, lin.LastProduct(), e)
					if e > 1e-6 {
						t.Errorf("velocities differ from sparse Cholesky's by %.3g relative", e)
					}
				})
			}
		}
	}
}

// slenderBeam is an ill-conditioned system: a 1 m × 2 cm × 2 cm bar
// (E = 1e8 Pa, ρ = 7800 kg/m³, the material of the 10k-tetrahedron
// benchmark beam) of 50×2×2 cells, clamped at one end, implicit Euler at
// dt = 10 ms with Rayleigh stiffness damping: the stiffness term dominates
// and plain CG needs ~2,300 iterations to 1e-9. (Stiffer still, E ≳ 1e9,
// the recomputed residual of even the exact solution, ~ε·κ, stays above
// 1e-9.)
func slenderBeam(t testing.TB, lin string) *graph.Scene {
	return graphtest.MustLoad(t, "slender.toml", `
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
  max = [1, 0.02, 0.02]
  n = [51, 3, 3]
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[node.object]]
  type = "DiagonalMass"
  massDensity = 7800
  [[node.object]]
  type = "TetrahedronFEMForceField"
  method = "large"
  youngModulus = 1e8
  poissonRatio = 0.3
  [[node.object]]
  type = "FixedConstraint"
  box = [-0.001, -1, -1, 0.001, 1, 1]
`)
}

// TestPCGPreconditionersBeatCG runs five steps of the slender beam with
// plain CG (preconditioner none) and with every preconditioner, all to a
// relative residual of 1e-9: every preconditioned solve must take strictly
// fewer iterations than plain CG's solve of the same step (the systems
// are the same up to the solutions' differences, ~1e-9 relative), and the
// final velocities must agree to κ·1e-9 ≲ 1e-4 relative (κ ~ 10⁵).
func TestPCGPreconditionersBeatCG(t *testing.T) {
	const steps = 5
	run := func(pre string) ([]int, []float64) {
		s := slenderBeam(t, pcgBlock(pre, "auto", 100000, 1e-9))
		ode := graphtest.Find[*solver.EulerImplicitSolver](t, s, "beam/ode")
		var its []int
		for i := 0; i < steps; i++ {
			if err := s.Step(); err != nil {
				t.Fatal(err)
			}
			st := ode.LastStats()
			if !st.Converged {
				t.Fatalf("%s, step %d: not converged: %+v", pre, i, st)
			}
			its = append(its, st.Iterations)
		}
		return its, append([]float64(nil), graphtest.Find[graph.State](t, s, "beam/dofs").Vec(graph.Velocity)...)
	}
	cgIts, cgV := run("none")
	t.Logf("%-12s iterations per step %v", "none", cgIts)
	for _, pre := range preconditioners[1:] {
		its, v := run(pre)
		t.Logf("%-12s iterations per step %v", pre, its)
		for i := range its {
			if its[i] >= cgIts[i] {
				t.Errorf("%s, step %d: %d iterations, plain CG %d", pre, i, its[i], cgIts[i])
			}
		}
		if e := relMaxDiff(v, cgV); e > 1e-4 {
			t.Errorf("%s: velocities differ from plain CG's by %.3g relative", pre, e)
		}
	}
}

// TestPCGDeterministicAcrossWorkers runs three steps of a 5,760-tetrahedron
// beam (large enough for the element loops, the gather and the product
// to split over the workers) with GOMAXPROCS 1 and 2, for every
// preconditioner: positions and velocities must be bitwise identical.
func TestPCGDeterministicAcrossWorkers(t *testing.T) {
	scene := func(pre string) *graph.Scene {
		return graphtest.MustLoad(t, "det.toml", `
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
  `+pcgBlock(pre, "auto", 5000, 1e-9)+`
  [[node.object]]
  type = "RegularGridTopology"
  min = [0, 0, 0]
  max = [1, 0.1, 0.1]
  n = [61, 5, 5]
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[node.object]]
  type = "DiagonalMass"
  massDensity = 1000
  [[node.object]]
  type = "TetrahedronFEMForceField"
  method = "large"
  youngModulus = 1e7
  poissonRatio = 0.3
  [[node.object]]
  type = "FixedConstraint"
  box = [-0.001, -1, -1, 0.001, 1, 1]
`)
	}
	prev := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(prev)
	for _, pre := range preconditioners {
		var ref []float64
		for _, procs := range []int{1, 2} {
			runtime.GOMAXPROCS(procs)
			s := scene(pre)
			for i := 0; i < 3; i++ {
				if err := s.Step(); err != nil {
					t.Fatal(err)
				}
			}
			st := graphtest.Find[graph.State](t, s, "beam/dofs")
			got := append(append([]float64(nil), st.Vec(graph.Position)...), st.Vec(graph.Velocity)...)
			if ref == nil {
				ref = got
				continue
			}
			for i := range ref {
				if got[i] != ref[i] {
					t.Fatalf("%s: GOMAXPROCS %d differs from 1 at entry %d: %v vs %v", pre, procs, i, got[i], ref[i])
				}
			}
		}
	}
}

// mappedMassScene has a mass on a mechanically mapped node: the system
// cannot be assembled from the independent state's components; with
// ownMass the independent state has a mass of its own.
func mappedMassScene(t testing.TB, lin string, ownMass bool) *graph.Scene {
	own := "  [[node.object]]\n  type = \"UniformMass\"\n  vertexMass = 1\n"
	if !ownMass {
		own = ""
	}
	return graphtest.MustLoad(t, "mapped.toml", strings.Replace(`
dt = 0.01
gravity = [0, -9.81, 0]
[[node]]
name = "n"
  [[node.object]]
  type = "EulerImplicitSolver"
  name = "ode"
  [[node.object]]
  name = "lin"
  `+lin+`
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  position = [[0, 0, 0], [1, 0, 0]]
OWN  [[node.node]]
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
`, "OWN", own, 1))
}

// TestPCGAssemblesThroughMappings: on a subtree with a mass on a mapped
// node, PCGLinearSolver assembles the whole system through the mapping
// (as SparseCholeskySolver does): every preconditioner runs on assembled
// products with the whole matrix (not the independent states' part) and
// gives CG's answer, product = assembled is accepted, and where the
// independent state has no mass of its own (all of it mapped) ic0 and
// blockJacobi work as well — they failed on the partial matrix.
func TestPCGAssemblesThroughMappings(t *testing.T) {
	for _, own := range []bool{true, false} {
		ref := mappedMassScene(t, tightCG, own)
		if err := ref.Step(); err != nil {
			t.Fatal(err)
		}
		want := graphtest.Find[graph.State](t, ref, "n/dofs").Vec(graph.Velocity)
		for _, pre := range preconditioners[:4] {
			for _, product := range []string{"auto", "assembled"} {
				s := mappedMassScene(t, pcgBlock(pre, product, 100, 1e-12), own)
				if err := s.Step(); err != nil {
					t.Fatalf("own mass %v, %s, %s: %v", own, pre, product, err)
				}
				lin := graphtest.Find[*solver.PCGLinearSolver](t, s, "n/lin")
				if lin.LastProduct() != "assembled" || lin.LastPartial() {
					t.Errorf("own mass %v, %s, %s: %s products, partial preconditioner %v; want assembled, whole", own, pre, product, lin.LastProduct(), lin.LastPartial())
				}
				// The whole matrix is (1 + 2)·I (or 2·I): the diagonal
				// preconditioners are exact, one iteration.
				if pre != "none" && lin.LastStats().Iterations != 1 {
					t.Errorf("own mass %v, %s: %d iterations, want 1 (exact preconditioner of the whole matrix)", own, pre, lin.LastStats().Iterations)
				}
				got := graphtest.Find[graph.State](t, s, "n/dofs").Vec(graph.Velocity)
				if e := relMaxDiff(got, want); e > 1e-10 {
					t.Errorf("own mass %v, %s: velocities differ from CG's by %.3g", own, pre, e)
				}
			}
		}
	}
}

// TestAssemblyRecheckedEachSolve: a force field that writes no matrix and
// whose stiffness appears during the run (as a contact model's does with
// its contacts) must not be left out of the assembled system: after it
// switches on, SparseCholeskySolver and PCGLinearSolver probe it into
// their matrices (the pattern grows) and give CG's answer.
func TestAssemblyRecheckedEachSolve(t *testing.T) {
	withSpring := func(lin string) *graph.Scene {
		return graphtest.MustLoad(t, "late.toml", strings.Replace(cantileverText(implicitEuler, lin), "[[node.node]]", `[[node.object]]
  type = "TestSpring"
  name = "late"
  stiffness = 0
  [[node.node]]`, 1))
	}
	run := func(lin string) (*graph.Scene, error) {
		s := withSpring(lin)
		if err := s.Step(); err != nil {
			t.Fatalf("%s, step 1 (spring off): %v", lin, err)
		}
		graphtest.Find[*testSpring](t, s, "beam/late").K = 500
		return s, s.Step()
	}
	ref, err := run(tightCG)
	if err != nil {
		t.Fatal(err)
	}
	want := graphtest.Find[graph.State](t, ref, "beam/dofs").Vec(graph.Velocity)
	// SparseCholeskySolver assembles the spring once it has a stiffness
	// (probed: TestSpring writes no matrix) and its damping.
	sc, err := run(sparseCholesky)
	if err != nil {
		t.Fatalf("SparseCholeskySolver after the spring switched on: %v", err)
	}
	if e := relMaxDiff(graphtest.Find[graph.State](t, sc, "beam/dofs").Vec(graph.Velocity), want); e > 1e-6 {
		t.Errorf("SparseCholeskySolver: velocities differ from CG's by %.3g", e)
	}
	for _, pre := range []string{"ic0", "warp"} {
		s, err := run(pcgBlock(pre, "auto", 5000, 1e-10))
		if err != nil {
			t.Fatalf("%s: %v", pre, err)
		}
		lin := graphtest.Find[*solver.PCGLinearSolver](t, s, "beam/lin")
		if lin.LastPartial() {
			t.Errorf("%s: preconditioner from the partial matrix after the spring switched on, want the whole one", pre)
		}
		got := graphtest.Find[graph.State](t, s, "beam/dofs").Vec(graph.Velocity)
		// Tolerance 1e-10 on a system of κ ≲ 10⁴ (as in
		// TestPCGMatchesSparseCholesky).
		if e := relMaxDiff(got, want); e > 1e-6 {
			t.Errorf("%s: velocities differ from CG's by %.3g", pre, e)
		}
	}
}

// TestPCGWarpRefactorises swings a soft cantilever (E = 2e5) down under
// gravity for 30 steps with warpThreshold = 0.05 rad: its points turn by
// up to ~1 rad, so the warp preconditioner must refactorise several
// times, and every step must converge (1e-12) to the sparse Cholesky
// solution's velocities to κ·1e-12 per step (1e-7 after 30 steps).
func TestPCGWarpRefactorises(t *testing.T) {
	soft := func(lin string) *graph.Scene {
		s := graphtest.MustLoad(t, "soft.toml", strings.Replace(`
dt = 0.01
gravity = [0, -9.81, 0]
[[node]]
name = "beam"
  [[node.object]]
  type = "EulerImplicitSolver"
  name = "ode"
  rayleighStiffness = 0.01
  rayleighMass = 0.1
  [[node.object]]
  name = "lin"
  LIN
  [[node.object]]
  type = "RegularGridTopology"
  min = [0, 0, 0]
  max = [1, 0.1, 0.1]
  n = [21, 3, 3]
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[node.object]]
  type = "DiagonalMass"
  massDensity = 1000
  [[node.object]]
  type = "TetrahedronFEMForceField"
  method = "large"
  youngModulus = 2e5
  poissonRatio = 0.3
  [[node.object]]
  type = "FixedConstraint"
  box = [-0.001, -1, -1, 0.001, 1, 1]
`, "LIN", lin, 1))
		return s
	}
	ref, _ := stepVelocities(t, soft(sparseCholesky), 30)
	s := soft(pcgBlock("warp", "auto", 1000, 1e-12) + "\n  warpThreshold = 0.05")
	lin := graphtest.Find[*solver.PCGLinearSolver](t, s, "beam/lin")
	ode := graphtest.Find[*solver.EulerImplicitSolver](t, s, "beam/ode")
	total := 0
	for i := 0; i < 30; i++ {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
		if st := ode.LastStats(); !st.Converged {
			t.Fatalf("step %d: %+v", i, st)
		}
		total += ode.LastStats().Iterations
	}
	v := graphtest.Find[graph.State](t, s, "beam/dofs").Vec(graph.Velocity)
	e := relMaxDiff(v, ref)
	t.Logf("%d factorisations, %.1f iterations per step, velocities vs Cholesky %.2g", lin.Refactorisations(), float64(total)/30, e)
	if lin.Refactorisations() < 2 {
		t.Errorf("%d factorisations: the threshold should have been crossed", lin.Refactorisations())
	}
	if e > 1e-7 {
		t.Errorf("velocities differ from sparse Cholesky's by %.3g", e)
	}
	_ = math.Abs
}

// TestPCGWarpWithoutRotations: on GMLS nodes (Affine3, no force field
// giving point rotations) warp is the Cholesky factor of the first step's
// system, kept while m, b, k and the fixed DOFs stay (W = I): five steps
// of the small meshfree solid factorise once, converge to 1e-12 in a few
// iterations each, and give SparseCholeskySolver's velocities to 1e-9
// (κ·1e-12 per step on this system).
func TestPCGWarpWithoutRotations(t *testing.T) {
	run := func(lin string) *graph.Scene {
		s := graphtest.MustLoad(t, "gmls.toml", strings.Replace(gmlsSolidText("Affine3", 0.18), `type = "SparseCholeskySolver"`, lin, 1))
		for i := 0; i < 5; i++ {
			if err := s.Step(); err != nil {
				t.Fatalf("%s: step %d: %v", lin, i, err)
			}
		}
		return s
	}
	want := graphtest.Find[graph.State](t, run(`type = "SparseCholeskySolver"`), "bar/nodes").Vec(graph.Velocity)
	s := run(`type = "PCGLinearSolver"
  name = "lin"
  preconditioner = "warp"
  tolerance = 1e-12`)
	lin := graphtest.Find[*solver.PCGLinearSolver](t, s, "bar/lin")
	st := lin.LastStats()
	t.Logf("warp: %d factorisation(s), last step %d iterations, residual %.3g", lin.Refactorisations(), st.Iterations, st.Residual)
	if lin.Refactorisations() != 1 || !st.Converged || st.Iterations > 20 {
		t.Errorf("warp: %d factorisations, last step %d iterations (converged %v); want 1 factorisation and a few iterations", lin.Refactorisations(), st.Iterations, st.Converged)
	}
	if e := relMaxDiff(graphtest.Find[graph.State](t, s, "bar/nodes").Vec(graph.Velocity), want); e > 1e-9 {
		t.Errorf("warp: velocities differ from SparseCholeskySolver's by %.3g", e)
	}
}
