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

// spdMatrix returns A = BᵀB + n·I for a random B with entries in [−1, 1]:
// symmetric positive definite with eigenvalues in [n, n + ‖B‖²] ⊂ [n, n + n²],
// so cond(A) ≤ n + 1.
func spdMatrix(n int, seed uint64) [][]float64 {
	rng := rand.New(rand.NewPCG(seed, 3))
	B := make([][]float64, n)
	for i := range B {
		B[i] = make([]float64, n)
		for j := range B[i] {
			B[i][j] = 2*rng.Float64() - 1
		}
	}
	A := make([][]float64, n)
	for i := range A {
		A[i] = make([]float64, n)
		for j := range A[i] {
			for k := 0; k < n; k++ {
				A[i][j] += B[k][i] * B[k][j]
			}
		}
		A[i][i] += float64(n)
	}
	return A
}

func matrixTOML(A [][]float64) string {
	rows := make([]string, len(A))
	for i, r := range A {
		cells := make([]string, len(r))
		for j, x := range r {
			cells[j] = fmt.Sprintf("%.17g", x)
		}
		rows[i] = "[" + strings.Join(cells, ", ") + "]"
	}
	return "[" + strings.Join(rows, ", ") + "]"
}

// denseScene is a Vec1 state of len(A) DOFs with f = −A x, a UniformMass
// of vertexMass m, a CG solver and extra objects.
func denseScene(t *testing.T, A [][]float64, m float64, cg, extra string) (*graph.Scene, *solver.CGLinearSolver, graph.State) {
	t.Helper()
	pos := strings.TrimSuffix(strings.Repeat("[0], ", len(A)), ", ")
	s := graphtest.MustLoad(t, "cg.toml", fmt.Sprintf(`
[[node]]
name = "sys"
  [[node.object]]
  type = "CGLinearSolver"
  name = "cg"
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
`, cg, pos, m, matrixTOML(A), extra))
	return s, graphtest.Find[*solver.CGLinearSolver](t, s, "sys/cg"), graphtest.Find[graph.State](t, s, "sys/dofs")
}

// TestCGSolvesSPDSystem solves (m·M + k·K)·x = rhs with M = 0.5·I and
// K = −A (A dense SPD, n = 8) for a known x*, rhs = (0.5·m·I + (−k)·A)·x*.
// With m = 2, k = −3 the matrix is I + 3A, cond ≤ (1 + 3(n + n²))/(1 + 3n)
// ≈ 9. CG terminates in at most n iterations in exact arithmetic; with a
// condition number this small rounding does not delay it. The relative
// residual tolerance 1e-13 bounds the error by cond·1e-13 ≈ 1e-12.
func TestCGSolvesSPDSystem(t *testing.T) {
	const n, m, k = 8, 2.0, -3.0
	A := spdMatrix(n, 1)
	s, cg, st := denseScene(t, A, 0.5, "iterations = 100\n  tolerance = 1e-13", "")
	ops := s.Ops()
	rng := rand.New(rand.NewPCG(5, 5))
	xStar := graphtest.RandomDeriv(rng, n, 1)
	x, rhs := ops.AllocDeriv(), ops.AllocDeriv()
	defer ops.Free(x, rhs)
	b := st.Vec(rhs)
	for i := 0; i < n; i++ {
		b[i] = 0.5 * m * xStar[i]
		for j := 0; j < n; j++ {
			b[i] -= k * A[i][j] * xStar[j]
		}
	}
	bCopy := append([]float64(nil), b...)
	stats, err := cg.Solve(ops, x, rhs, m, 0, k)
	if err != nil {
		t.Fatal(err)
	}
	got := st.Vec(x)
	errMax, xMax := 0.0, 0.0
	for i := range got {
		errMax = math.Max(errMax, math.Abs(got[i]-xStar[i]))
		xMax = math.Max(xMax, math.Abs(xStar[i]))
	}
	t.Logf("n = %d: %d iterations, relative residual %.3g, max error %.3g", n, stats.Iterations, stats.Residual, errMax/xMax)
	if !stats.Converged || stats.Residual > 1e-13 {
		t.Errorf("CG did not converge: %+v", stats)
	}
	if stats.Iterations > n {
		t.Errorf("CG took %d iterations on a well-conditioned %d×%d system (at most n expected)", stats.Iterations, n, n)
	}
	if errMax > 1e-12*xMax {
		t.Errorf("CG solution error %.3g relative, want ≤ 1e-12", errMax/xMax)
	}
	for i := range b {
		if b[i] != bCopy[i] {
			t.Fatalf("CG modified the right-hand side at %d", i)
		}
	}
	if cg.LastStats() != stats {
		t.Errorf("LastStats = %+v, Solve returned %+v", cg.LastStats(), stats)
	}

	// Capped iterations: not converged, reported as such, no error.
	cg.Iterations = 2
	stats, err = cg.Solve(ops, x, rhs, m, 0, k)
	if err != nil || stats.Converged || stats.Iterations != 2 || !(stats.Residual > 1e-13) {
		t.Errorf("with 2 iterations: stats %+v, err %v; want 2 iterations, not converged, no error", stats, err)
	}
}

// TestCGZeroRightHandSide: rhs = 0 gives x = 0 (even from a dirty x), converged, no iterations.
func TestCGZeroRightHandSide(t *testing.T) {
	s, cg, st := denseScene(t, spdMatrix(4, 2), 1, "", "")
	ops := s.Ops()
	x, rhs := ops.AllocDeriv(), ops.AllocDeriv()
	defer ops.Free(x, rhs)
	for i := range st.Vec(x) {
		st.Vec(x)[i] = 7
	}
	stats, err := cg.Solve(ops, x, rhs, 1, 0, -1)
	if err != nil || !stats.Converged || stats.Iterations != 0 || stats.Residual != 0 {
		t.Errorf("rhs = 0: stats %+v, err %v", stats, err)
	}
	for i, v := range st.Vec(x) {
		if v != 0 {
			t.Errorf("rhs = 0: x[%d] = %g, want 0", i, v)
		}
	}
}

// TestCGBreakdown: a zero system matrix (m = b = k = 0) gives pᵀAp = 0 at
// the first iteration: CG stops with x = 0, not converged, no error, and
// reports an indefinite breakdown; a negative definite one (k = +1) too.
func TestCGBreakdown(t *testing.T) {
	s, cg, st := denseScene(t, spdMatrix(4, 3), 1, "", "")
	ops := s.Ops()
	x, rhs := ops.AllocDeriv(), ops.AllocDeriv()
	defer ops.Free(x, rhs)
	st.Vec(rhs)[1] = 1
	for _, k := range []float64{0, 1} {
		stats, err := cg.Solve(ops, x, rhs, 0, 0, k)
		br, indef := cg.LastBreakdown()
		if err != nil || stats.Converged || stats.Iterations != 0 || !br || !indef {
			t.Errorf("k = %g: stats %+v, err %v, breakdown %v, indefinite %v", k, stats, err, br, indef)
		}
		for i, v := range st.Vec(x) {
			if v != 0 {
				t.Errorf("k = %g: x[%d] = %g after breakdown, want 0", k, i, v)
			}
		}
	}
}

// TestCGWithFixedConstraint: with DOF 2 fixed, CG solves the system
// restricted to the free DOFs (rows and columns of DOF 2 removed) and
// leaves x[2] = 0, whatever rhs[2] is. The reference solves the reduced
// system by Gaussian elimination.
func TestCGWithFixedConstraint(t *testing.T) {
	const n = 5
	A := spdMatrix(n, 4)
	s, cg, st := denseScene(t, A, 1, "iterations = 50\n  tolerance = 1e-14", `
  [[node.object]]
  type = "FixedConstraint"
  indices = [2]
`)
	ops := s.Ops()
	x, rhs := ops.AllocDeriv(), ops.AllocDeriv()
	defer ops.Free(x, rhs)
	b := st.Vec(rhs)
	for i := range b {
		b[i] = float64(i + 1)
	}
	stats, err := cg.Solve(ops, x, rhs, 0, 0, -1)
	if err != nil || !stats.Converged {
		t.Fatalf("stats %+v, err %v", stats, err)
	}
	free := []int{0, 1, 3, 4}
	R := make([][]float64, len(free))
	for a, i := range free {
		R[a] = make([]float64, len(free)+1)
		for c, j := range free {
			R[a][c] = A[i][j]
		}
		R[a][len(free)] = b[i]
	}
	want := gaussSolve(R)
	got := st.Vec(x)
	if got[2] != 0 {
		t.Errorf("fixed DOF: x[2] = %g, want 0", got[2])
	}
	for a, i := range free {
		if math.Abs(got[i]-want[a]) > 1e-12*math.Abs(want[a]) {
			t.Errorf("x[%d] = %.15g, reduced system gives %.15g", i, got[i], want[a])
		}
	}
}

// gaussSolve solves the augmented system [M | r] by elimination with
// partial pivoting.
func gaussSolve(R [][]float64) []float64 {
	n := len(R)
	for c := 0; c < n; c++ {
		p := c
		for r := c + 1; r < n; r++ {
			if math.Abs(R[r][c]) > math.Abs(R[p][c]) {
				p = r
			}
		}
		R[c], R[p] = R[p], R[c]
		for r := c + 1; r < n; r++ {
			f := R[r][c] / R[c][c]
			for j := c; j <= n; j++ {
				R[r][j] -= f * R[c][j]
			}
		}
	}
	x := make([]float64, n)
	for r := n - 1; r >= 0; r-- {
		s := R[r][n]
		for j := r + 1; j < n; j++ {
			s -= R[r][j] * x[j]
		}
		x[r] = s / R[r][r]
	}
	return x
}
