package validation

import (
	"fmt"
	_ "math"
	"testing"

	"github.com/sofago/sofago/components/forcefield"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

// shellPlate is a square plate a × a in the plane z = 0 with n cells per
// side (checkerboard triangles), TriangularShellForceField, its boundary
// held (FixedConstraint) and, when clamped, its edges clamped; a uniform
// pressure q downwards (SurfaceTractionForceField: consistent nodal loads).
func shellPlate(n int, a, h, e, nu, q float64, clamped bool) string {
	cl := ""
	if clamped {
		d := 1e-6 * a
		cl = fmt.Sprintf("  clampedBoxes = [[%g, %g, -1, %g, %g, 1], [%g, %g, -1, %g, %g, 1], [%g, %g, -1, %g, %g, 1], [%g, %g, -1, %g, %g, 1]]\n",
			-d, -d, d, a+d, a-d, -d, a+d, a+d, -d, -d, a+d, d, -d, a-d, a+d, a+d)
	}
	d := 1e-6 * a
	return fmt.Sprintf(`
gravity = [0, 0, 0]
[[node]]
name = "plate"
  [[node.object]]
  type = "StaticSolver"
  iterations = 10
  tolerance = 1e-10
  [[node.object]]
  type = "SparseCholeskySolver"
  [[node.object]]
  type = "RegularGridTopology"
  min = [0, 0, 0]
  max = [%.17g, %.17g, 0]
  n = [%d, %d, 1]
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[node.object]]
  type = "TriangularShellForceField"
  name = "shell"
  youngModulus = %.17g
  poissonRatio = %.17g
  thickness = %.17g
%s  [[node.object]]
  type = "FixedConstraint"
  box = [%g, %g, -1, %g, %g, 1]
  [[node.object]]
  type = "FixedConstraint"
  box = [%g, %g, -1, %g, %g, 1]
  [[node.object]]
  type = "FixedConstraint"
  box = [%g, %g, -1, %g, %g, 1]
  [[node.object]]
  type = "FixedConstraint"
  box = [%g, %g, -1, %g, %g, 1]
  [[node.object]]
  type = "SurfaceTractionForceField"
  traction = [0, 0, %.17g]
`, a, a, n+1, n+1, e, nu, h, cl, -d, -d, d, a+d, a-d, -d, a+d, a+d, -d, -d, a+d, d, -d, a-d, a+d, a+d, -q)
}

// solveShell loads a scene, takes one static step and returns the state.
func solveShell(t *testing.T, name, text string) ([]float64, graph.State) {
	t.Helper()
	s := graphtest.MustLoad(t, name+".toml", text)
	if err := s.Step(); err != nil {
		t.Fatalf("step: %v", err)
	}
	ff := graphtest.Find[*forcefield.TriangularShellForceField](t, s, name+"/shell")
	st := ff.Base().Node.State()
	return st.Vec(graph.Position), st
}

// TestShellPlate (issue 16, item 4): a square plate, ν = 0.3, under a
// uniform pressure q: the centre deflection converges to Kirchhoff's
// 0.00126 q a⁴/D clamped and 0.00406 q a⁴/D simply supported (Timoshenko
// & Woinowsky-Krieger, Tables 8 and 35: 0.001265 and 0.004062),
// D = E h³/(12(1−ν²)). h/a = 0.01 and q gives a deflection of 1e-4 h, so
// the geometric nonlinearity is 1e-8 relative.
func TestShellPlate(t *testing.T) {
	const a, h, e, nu = 1.0, 0.01, 1e6, 0.3
	d := e * h * h * h / (12 * (1 - nu*nu))
	for _, c := range []struct {
		name    string
		clamped bool
		coef    float64
	}{{"clamped", true, 0.0012653}, {"simply supported", false, 0.0040624}} {
		q := 1e-4 * h * d / (c.coef * a * a * a * a)
		for _, n := range []int{4, 8, 16, 32, 64} {
			x, _ := solveShell(t, "plate", shellPlate(n, a, h, e, nu, q, c.clamped))
			mid := n/2 + (n+1)*(n/2)
			w := -x[3*mid+2] * d / (q * a * a * a * a)
			t.Logf("%s, %2d × %2d cells: w D/(q a⁴) = %.6f (Kirchhoff %.6f, %+.2f%%)", c.name, n, n, w, c.coef, 100*(w-c.coef)/c.coef)
		}
	}
}
