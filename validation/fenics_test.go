package validation

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

// The FEniCSx comparisons solve the same discrete problem (mesh, law,
// clamp, consistent nodal loads) with dolfinx + MUMPS through
// testdata/fenics/static_solve.py. They need dolfinx (Debian:
// apt-get install python3-dolfinx) and skip with a message when it is
// absent. The interpreter is $FENICS_PYTHON, else /usr/bin/python3 (the
// Debian package installs into the system Python), else python3.

// fenicsProblem is the input of static_solve.py.
type fenicsProblem struct {
	Points    [][3]float64 `json:"points"`
	Tets      [][4]int     `json:"tets"`
	Material  string       `json:"material"`
	E         float64      `json:"E"`
	Nu        float64      `json:"nu"`
	ClampX    float64      `json:"clampX"`
	LoadX     float64      `json:"loadX"`
	Force     [3]float64   `json:"force"`
	Area      float64      `json:"area"`
	LoadSteps int          `json:"loadSteps"`
	Rtol      float64      `json:"rtol"`
}

type fenicsResult struct {
	U            [][3]float64 `json:"u"`
	Iterations   int          `json:"iterations"`
	SolveSeconds float64      `json:"solveSeconds"`
}

// fenicsPython returns an interpreter that imports dolfinx, or skips.
func fenicsPython(t *testing.T) string {
	t.Helper()
	cands := []string{os.Getenv("FENICS_PYTHON"), "/usr/bin/python3", "python3"}
	for _, py := range cands {
		if py == "" {
			continue
		}
		if exec.Command(py, "-c", "import dolfinx, petsc4py").Run() == nil {
			return py
		}
	}
	t.Skip("dolfinx (FEniCSx) is not installed: apt-get install python3-dolfinx (or set FENICS_PYTHON) to run the FEniCSx comparison")
	return ""
}

// solveFEniCSx runs static_solve.py on p.
func solveFEniCSx(t *testing.T, p fenicsProblem) fenicsResult {
	t.Helper()
	py := fenicsPython(t)
	dir := t.TempDir()
	if keep := os.Getenv("FENICS_KEEP"); keep != "" {
		dir = keep // keep the problem and result files for reruns of the script
	}
	in, out := filepath.Join(dir, "problem.json"), filepath.Join(dir, "result.json")
	data, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(in, data, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, filepath.Join("testdata", "fenics", "static_solve.py"), in, out)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("static_solve.py: %v\n%s", err, msg)
	}
	var r fenicsResult
	data, err = os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// meshOf returns the rest points and the tetrahedra of the state at path
// (its node's topology).
func meshOf(t *testing.T, s *graph.Scene, path string) ([][3]float64, [][4]int) {
	st := graphtest.Find[graph.State](t, s, path)
	rest := st.Vec(graph.RestPosition)
	pts := make([][3]float64, len(rest)/3)
	for i := range pts {
		pts[i] = [3]float64{rest[3*i], rest[3*i+1], rest[3*i+2]}
	}
	return pts, st.Base().Node.Topology().Tetrahedra()
}

// maxDiff returns max |a − b| and max |b| over all components.
func maxDiff(a []float64, b [][3]float64) (d, bmax float64) {
	for i, bi := range b {
		for c := 0; c < 3; c++ {
			d = math.Max(d, math.Abs(a[3*i+c]-bi[c]))
			bmax = math.Max(bmax, math.Abs(bi[c]))
		}
	}
	return d, bmax
}

// TestStaticStVKBarMatchesFEniCSx solves the StVK bar of
// BenchmarkStaticNewtonStVKBar80x8x8 (20 × 2 × 2 cells by default;
// FENICS_BAR=80x8x8 for the benchmark's size) with StaticSolver and with
// dolfinx, both to a relative residual of 1e-10, and compares the
// displacements. Two solutions whose residuals are below 1e-10·|f_ext|
// differ by at most |K⁻¹|·2e-10·|f_ext|, about 2e-10 of the displacement
// times the condition number of the tangent relative to the load's
// direction; Newton's last step squares the error, so both land far
// below that (the differences measured are at the rounding level, 1e-13
// relative), and 1e-9 relative bounds it with the margin of an
// ill-conditioned slender bar (κ ~ 10⁵ on 80 × 8 × 8). It logs both
// solve times and Newton iteration counts.
func TestStaticStVKBarMatchesFEniCSx(t *testing.T) {
	n := [3]int{20, 2, 2}
	if v := os.Getenv("FENICS_BAR"); v != "" {
		if _, err := fmt.Sscanf(v, "%dx%dx%d", &n[0], &n[1], &n[2]); err != nil {
			t.Fatalf("FENICS_BAR=%q: want NXxNYxNZ", v)
		}
	}
	py := fenicsPython(t)
	_ = py
	bar := stvkBar{n: n}
	start := time.Now()
	s, stats, u, err := bar.solve(t)
	ours := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	pts, tets := meshOf(t, s, "bar/dofs")
	r := solveFEniCSx(t, fenicsProblem{Points: pts, Tets: tets, Material: "StVenantKirchhoff", E: 1e6, Nu: 0.3,
		ClampX: 0, LoadX: 1, Force: [3]float64{0, -10, 0}, Area: 0.01, LoadSteps: 1, Rtol: 1e-10})
	d, umax := maxDiff(u, r.U)
	t.Logf("bar %v: sofago %d Newton iterations, %.3f s (load + solve); dolfinx %d iterations, %.3f s (solve); max |u| %.6g m, max difference %.3g m (%.3g relative)",
		n, stats.Iterations, ours.Seconds(), r.Iterations, r.SolveSeconds, umax, d, d/umax)
	if d > 1e-9*umax {
		t.Errorf("displacements differ by %.3g m (max |u| %.6g m): want ≤ 1e-9 relative", d, umax)
	}
}
