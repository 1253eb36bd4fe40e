package solver_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sofago/sofago/components/solver"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

// denseDirectScene is denseScene with a DenseDirectSolver.
func denseDirectScene(t *testing.T, A [][]float64, m float64, opts, extra string) (*graph.Scene, *solver.DenseDirectSolver, graph.State) {
	t.Helper()
	pos := strings.TrimSuffix(strings.Repeat("[0], ", len(A)), ", ")
	s := graphtest.MustLoad(t, "dense.toml", fmt.Sprintf(`
[[node]]
name = "sys"
  [[node.object]]
  type = "DenseDirectSolver"
  name = "dense"
  %s
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  template = "Vec1"
  position = [%s]
  [[node.object]]
  type = "UniformMass"
  vertexMass = %g
  [[node.object]]
  type = "TestDense"
  matrix = %s
%s
`, opts, pos, m, matrixTOML(A), extra))
	return s, graphtest.Find[*solver.DenseDirectSolver](t, s, "sys/dense"), graphtest.Find[graph.State](t, s, "sys/dofs")
}

// solveKnown solves (m·M + k·K) x = rhs for rhs made from a known x* and
// returns the largest error relative to max|x*|. M = mass·I, K = −A.
func solveKnown(t *testing.T, s *graph.Scene, d *solver.DenseDirectSolver, st graph.State, A [][]float64, mass, m, k float64, fixed []int) float64 {
	n := len(A)
	ops := s.Ops()
	rng := rand.New(rand.NewPCG(5, 5))
	xStar := graphtest.RandomDeriv(rng, n, 1)
	for _, i := range fixed {
		xStar[i] = 0
	}
	x, rhs := ops.AllocDeriv(), ops.AllocDeriv()
	defer ops.Free(x, rhs)
	b := st.Vec(rhs)
	for i := 0; i < n; i++ {
		b[i] = mass * m * xStar[i]
		for j := 0; j < n; j++ {
			b[i] -= k * A[i][j] * xStar[j]
		}
	}
	// The constrained rows of rhs carry garbage the solver must ignore.
	for _, i := range fixed {
		b[i] = 1e3
	}
	stats, err := d.Solve(ops, x, rhs, m, 0, k)
	if err != nil {
		t.Fatal(err)
	}
	if !stats.Converged {
		t.Errorf("not converged: %+v", stats)
	}
	e, xm := 0.0, 0.0
	for i, v := range st.Vec(x) {
		e = math.Max(e, math.Abs(v-xStar[i]))
		xm = math.Max(xm, math.Abs(xStar[i]))
	}
	return e / xm
}

// TestDenseDirectSolvesSPDSystem: (2·0.5 I + 3A) x = rhs for a known x*,
// cond ≈ 9 (see TestCGSolvesSPDSystem): a Cholesky solve is exact to a
// few ulps, 1e-13; the matrix is probed (TestDense has no assembler).
func TestDenseDirectSolvesSPDSystem(t *testing.T) {
	A := spdMatrix(8, 1)
	s, d, st := denseDirectScene(t, A, 0.5, "", "")
	e := solveKnown(t, s, d, st, A, 0.5, 2, -3, nil)
	method, probed := d.LastMethod()
	t.Logf("relative error %.2g (%s, probed %v)", e, method, probed)
	if e > 1e-13 || method != "cholesky" || !probed {
		t.Errorf("error %.2g, method %s, probed %v", e, method, probed)
	}
}

// TestDenseDirectWithFixedConstraint: fixed DOFs come out zero whatever
// the right-hand side there, the others solve the free subsystem.
func TestDenseDirectWithFixedConstraint(t *testing.T) {
	A := spdMatrix(8, 2)
	fixed := []int{1, 4, 5}
	s, d, st := denseDirectScene(t, A, 0.5, "", `
  [[node.object]]
  type = "FixedConstraint"
  indices = [1, 4, 5]`)
	e := solveKnown(t, s, d, st, A, 0.5, 2, -3, fixed)
	if e > 1e-13 {
		t.Errorf("relative error %.2g", e)
	}
}

// TestDenseDirectIndefiniteUsesLU: M − 3A with A ≻ 0 large is
// indefinite: Cholesky fails and LU solves it (cond ~ 30: 1e-12).
func TestDenseDirectIndefiniteUsesLU(t *testing.T) {
	A := spdMatrix(6, 3)
	s, d, st := denseDirectScene(t, A, 10, "", "")
	e := solveKnown(t, s, d, st, A, 10, 1, 3, nil)
	method, _ := d.LastMethod()
	t.Logf("relative error %.2g with %s", e, method)
	if e > 1e-12 || method != "lu" {
		t.Errorf("error %.2g, method %s", e, method)
	}
}

// TestDenseDirectSizeLimit: more unknowns than maxSize is a clear error.
func TestDenseDirectSizeLimit(t *testing.T) {
	A := spdMatrix(8, 1)
	s, d, _ := denseDirectScene(t, A, 0.5, "maxSize = 5", "")
	ops := s.Ops()
	x, rhs := ops.AllocDeriv(), ops.AllocDeriv()
	defer ops.Free(x, rhs)
	_, err := d.Solve(ops, x, rhs, 1, 0, -1)
	if err == nil || !strings.Contains(err.Error(), "maxSize") {
		t.Fatalf("error %v, want one naming maxSize", err)
	}
	t.Log(err)
}

// femScene is a small clamped StVK block with a consistent mass, a tip
// load on a mapped copy (identity mapping, so the load's zero stiffness is
// checked on a mapped node) and the dense solver with the given assembly.
func femScene(t *testing.T, assembly string) *graph.Scene {
	return graphtest.MustLoad(t, "fem.toml", fmt.Sprintf(`
gravity = [0, -9.81, 0]
[[node]]
name = "block"
  [[node.object]]
  type = "DenseDirectSolver"
  name = "dense"
  assembly = %q
  [[node.object]]
  type = "RegularGridTopology"
  min = [0, 0, 0]
  max = [0.3, 0.1, 0.1]
  n = [4, 2, 2]
  [[node.object]]
  type = "MechanicalObject"
  name = "x"
  position = [[0,0,0],[0.11,0,0],[0.2,0.01,0],[0.3,0,0.02],[0,0.1,0],[0.1,0.1,0],[0.2,0.1,0],[0.31,0.12,0],[0,0,0.1],[0.1,0,0.1],[0.2,0,0.1],[0.3,0,0.1],[0,0.1,0.1],[0.1,0.1,0.1],[0.2,0.1,0.1],[0.3,0.1,0.13]]
  [[node.object]]
  type = "MeshMatrixMass"
  massDensity = 1000
  [[node.object]]
  type = "TetrahedronHyperelasticityFEMForceField"
  materialName = "StVenantKirchhoff"
  youngModulus = 1e5
  poissonRatio = 0.3
  [[node.object]]
  type = "FixedConstraint"
  box = [-0.01, -1, -1, 0.01, 1, 1]
  [[node.node]]
  name = "copy"
    [[node.node.object]]
    type = "MechanicalObject"
    [[node.node.object]]
    type = "IdentityMapping"
    [[node.node.object]]
    type = "ConstantForceField"
    indices = [3]
    forces = [[0, -1, 0]]
`, assembly))
}

// TestDenseDirectAssembledEqualsProbed: on a deformed StVK block the
// assembled matrix (StiffnessAssembler, MassAssembler; the mapped constant
// load checked to have no stiffness) and the probed one give the same
// solution to 1e-12 relative (the same matrix in another summation order),
// for the implicit-integration system with M, K and a B factor.
func TestDenseDirectAssembledEqualsProbed(t *testing.T) {
	var sols [2][]float64
	for k, asm := range []string{"assembled", "probe"} {
		s := femScene(t, asm)
		d := graphtest.Find[*solver.DenseDirectSolver](t, s, "block/dense")
		st := graphtest.Find[graph.State](t, s, "block/x")
		ops := s.Ops()
		f, x := ops.AllocDeriv(), ops.AllocDeriv()
		ops.ComputeForce(f)
		ops.Project(f)
		stats, err := d.Solve(ops, x, f, 400, -0.1, -1.2)
		if err != nil {
			t.Fatal(err)
		}
		_, probed := d.LastMethod()
		if probed != (asm == "probe") || !stats.Converged {
			t.Errorf("%s: probed = %v, stats %+v", asm, probed, stats)
		}
		sols[k] = append([]float64(nil), st.Vec(x)...)
	}
	e := relMaxDiff(sols[0], sols[1])
	t.Logf("assembled vs probed solution: %.2g relative (max |x| = %.3g)", e, maxAbs(sols[1]))
	if !(e <= 1e-12) || maxAbs(sols[1]) == 0 {
		t.Errorf("assembled and probed solutions differ by %.2g", e)
	}
}

func maxAbs(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = math.Max(m, math.Abs(x))
	}
	return m
}

func relMaxDiff(a, b []float64) float64 {
	d, s := 0.0, 0.0
	for i := range b {
		d = math.Max(d, math.Abs(a[i]-b[i]))
		s = math.Max(s, math.Abs(b[i]))
	}
	return d / s
}
