package validation

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/sofago/sofago/components/forcefield"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

// shellGrid is the static scene of the shell tests on a flat grid: an
// a × a plate in the plane z = 0 with n cells per side (checkerboard
// triangles), TriangularShellForceField (E, ν, thickness h, the fields
// extra, e.g. clampedBoxes), the boundary objects bc (held edges) and a
// uniform pressure q downwards (SurfaceTractionForceField: consistent
// nodal loads); StaticSolver and SparseCholeskySolver.
func shellGrid(n int, a, h, e, nu, q float64, extra, bc string) string {
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
%s%s  [[node.object]]
  type = "SurfaceTractionForceField"
  traction = [0, 0, %.17g]
`, a, a, n+1, n+1, e, nu, h, extra, bc, -q)
}

// shellHeld returns a FixedConstraint per box [x0, y0, x1, y1] (z from −1
// to 1).
func shellHeld(boxes ...[4]float64) string {
	var b strings.Builder
	for _, x := range boxes {
		fmt.Fprintf(&b, "  [[node.object]]\n  type = \"FixedConstraint\"\n  box = [%g, %g, -1, %g, %g, 1]\n", x[0], x[1], x[2], x[3])
	}
	return b.String()
}

// shellPlate is a square plate a × a in the plane z = 0 with n cells per
// side (checkerboard triangles), TriangularShellForceField, its boundary
// held (FixedConstraint) and, when clamped, its edges clamped; a uniform
// pressure q downwards (SurfaceTractionForceField: consistent nodal loads).
func shellPlate(n int, a, h, e, nu, q float64, clamped bool) string {
	d := 1e-6 * a
	edges := [][4]float64{{-d, -d, d, a + d}, {a - d, -d, a + d, a + d}, {-d, -d, a + d, d}, {-d, a - d, a + d, a + d}}
	cl := ""
	if clamped {
		var bs []string
		for _, x := range edges {
			bs = append(bs, fmt.Sprintf("[%g, %g, -1, %g, %g, 1]", x[0], x[1], x[2], x[3]))
		}
		cl = "  clampedBoxes = [" + strings.Join(bs, ", ") + "]\n"
	}
	return shellGrid(n, a, h, e, nu, q, cl, shellHeld(edges...))
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
// & Woinowsky-Krieger, Tables 8 and 35: 0.001265 and 0.004062; D =
// E h³/(12(1−ν²))), on the full plate with n × n cells of checkerboard
// triangles. h/a = 0.01 and q gives a deflection of 1e-4 h, so the
// geometric nonlinearity is 1e-8 relative. Checked: within 2% at n = 64
// (measured +0.49% clamped, +0.14% simply supported) and second-order
// convergence, the error falling by more than 3 per halving from n = 16
// on (measured 4.0 to 4.1).
func TestShellPlate(t *testing.T) {
	const a, h, e, nu = 1.0, 0.01, 1e6, 0.3
	d := e * h * h * h / (12 * (1 - nu*nu))
	for _, c := range []struct {
		name    string
		clamped bool
		coef    float64
	}{{"clamped", true, 0.0012653}, {"simply supported", false, 0.0040624}} {
		q := 1e-4 * h * d / (c.coef * a * a * a * a)
		var errs []float64
		ns := []int{8, 16, 32, 64}
		for _, n := range ns {
			x, _ := solveShell(t, "plate", shellPlate(n, a, h, e, nu, q, c.clamped))
			mid := n/2 + (n+1)*(n/2)
			w := -x[3*mid+2] * d / (q * a * a * a * a)
			rel := (w - c.coef) / c.coef
			errs = append(errs, rel)
			t.Logf("%s, %2d × %2d cells: w D/(q a⁴) = %.6f (Kirchhoff %.6f, %+.2f%%)", c.name, n, n, w, c.coef, 100*rel)
		}
		if last := errs[len(errs)-1]; math.Abs(last) > 0.02 {
			t.Errorf("%s: %+.2f%% from Kirchhoff at n = %d, want within 2%%", c.name, 100*last, ns[len(ns)-1])
		}
		for i := 2; i < len(errs); i++ {
			if r := errs[i-1] / errs[i]; !(r > 3) {
				t.Errorf("%s: error ratio %.3g from n = %d to %d, want > 3 (second order)", c.name, r, ns[i-1], ns[i])
			}
		}
	}
}

// shellStrip is a 1 × 1 plate, ν = 0, its edges x = 0 and x = 1 held
// (and clamped when asked), the edges y = 0 and y = 1 free, under a
// uniform pressure: a plate strip in cylindrical bending.
func shellStrip(n int, h, e, q float64, clamped bool) string {
	const d = 1e-6
	cl := ""
	if clamped {
		cl = fmt.Sprintf("  clampedBoxes = [[%g, -1, -1, %g, 2, 1], [%g, -1, -1, %g, 2, 1]]\n", -d, d, 1-d, 1+d)
	}
	return shellGrid(n, 1, h, e, 0, q, cl, shellHeld([4]float64{-d, -1, d, 2}, [4]float64{1 - d, -1, 1 + d, 2}))
}

// TestShellStrip: with ν = 0 a plate held on two opposite edges and free
// on the other two bends as a beam of unit width: the centre deflection
// is q L⁴/(384 D) with both held edges clamped and 5 q L⁴/(384 D) simply
// supported, uniform across the width (the free edges' moment-free
// condition is exact there). Within 1% at n = 32 (measured +0.83%
// clamped, +0.08% simply supported) and second order (error ratios
// measured 3.5 to 4.6; checked > 3 from n = 16 on). The middle of a free
// edge converges to the same beam deflection, second order too (measured
// +1.23% clamped, +0.06% simply supported at n = 32; error ratios 4.1 to
// 4.8, checked > 3).
func TestShellStrip(t *testing.T) {
	const h, e = 0.01, 1e6
	d := e * h * h * h / 12
	for _, clamped := range []bool{true, false} {
		coef := 5.0 / 384
		if clamped {
			coef = 1.0 / 384
		}
		q := 1e-4 * h * d / coef
		var errs, edges []float64
		ns := []int{8, 16, 32}
		for _, n := range ns {
			x, _ := solveShell(t, "plate", shellStrip(n, h, e, q, clamped))
			rel := -x[3*(n/2+(n+1)*(n/2))+2]*d/(q*coef) - 1
			edge := -x[3*(n/2)+2]*d/(q*coef) - 1
			errs, edges = append(errs, rel), append(edges, edge)
			t.Logf("clamped %v, %2d × %2d cells: centre %+.3f%%, free edge %+.3f%% from the beam", clamped, n, n, 100*rel, 100*edge)
		}
		if last := errs[len(errs)-1]; math.Abs(last) > 0.01 {
			t.Errorf("clamped %v: %+.2f%% from the beam at n = 32, want within 1%%", clamped, 100*last)
		}
		for i := 1; i < len(errs); i++ {
			if r := errs[i-1] / errs[i]; !(r > 3) {
				t.Errorf("clamped %v: error ratio %.3g from n = %d to %d, want > 3", clamped, r, ns[i-1], ns[i])
			}
			if r := edges[i-1] / edges[i]; !(r > 3) {
				t.Errorf("clamped %v: free edge's error ratio %.3g from n = %d to %d, want > 3 (the beam's deflection across the width)", clamped, r, ns[i-1], ns[i])
			}
		}
	}
}

// scordelisLo is a quarter of the Scordelis–Lo roof (R = 25, L = 50,
// 40° half-angle, t = 0.25, E = 4.32e8, ν = 0, dead load 90 per unit
// area): x ∈ [0, L/2], θ ∈ [0°, 40°] on a CylinderGridTopology with n × m
// cells; the end x = 0 rests on a rigid diaphragm (u_y = u_z = 0, u_x and
// the rotation about the end free), x = L/2 and θ = 0 are symmetry planes
// (the normal displacement held, the slope across them held by
// clampedBoxes: mirrored stencils), θ = 40° is free.
func scordelisLo(n, m int) string {
	const d = 1e-6
	return fmt.Sprintf(`
gravity = [0, 0, 0]
[[node]]
name = "roof"
  [[node.object]]
  type = "StaticSolver"
  iterations = 5
  tolerance = 1e-10
  [[node.object]]
  type = "SparseCholeskySolver"
  [[node.object]]
  type = "CylinderGridTopology"
  radius = 25
  length = 25
  angles = [0, 40]
  n = [%d, %d]
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[node.object]]
  type = "TriangularShellForceField"
  name = "shell"
  youngModulus = 4.32e8
  poissonRatio = 0
  thickness = 0.25
  method = "small"
  clampedBoxes = [[%g, -1, -1, %g, 30, 30], [-1, %g, -1, 30, %g, 30]]
  [[node.object]]
  type = "PartialFixedConstraint"
  box = [%g, -30, -30, %g, 30, 30]
  fixedDirections = [false, true, true]
  [[node.object]]
  type = "PartialFixedConstraint"
  box = [%g, -30, -30, %g, 30, 30]
  fixedDirections = [true, false, false]
  [[node.object]]
  type = "PartialFixedConstraint"
  box = [-1, %g, -30, 30, %g, 30]
  fixedDirections = [false, true, false]
  [[node.object]]
  type = "SurfaceTractionForceField"
  traction = [0, 0, -90]
`, n+1, m+1, 25-d, 25+d, -d, d, -d, d, 25-d, 25+d, -d, d)
}

// TestShellScordelisLo (issue 16, item 5): the vertical displacement at
// the middle of the free edge converges to 0.3024 (MacNeal & Harder
// 1985's linear reference) on a quarter of the roof with n × n cells. The
// benchmark is linear: method = "small" (under the full load the roof
// sags by 1.2 thicknesses and the geometrically exact shell is 16%
// stiffer: 0.253). Checked: within 2% at n = 64 (measured −0.78%; the
// sequence extrapolates to 0.3006, −0.6%), the differences between
// successive meshes falling by more than 3 from n = 16 on (measured 3.3
// and 3.8).
func TestShellScordelisLo(t *testing.T) {
	ns := []int{8, 16, 32, 64}
	var ws []float64
	for _, n := range ns {
		x, st := solveShell(t, "roof", scordelisLo(n, n))
		rest := st.Vec(graph.RestPosition)
		k := n + (n+1)*n // x = L/2, θ = 40°
		w := -(x[3*k+2] - rest[3*k+2])
		ws = append(ws, w)
		t.Logf("%2d × %2d cells (quarter): w = %.5f (reference 0.3024, %+.2f%%)", n, n, w, 100*(w-0.3024)/0.3024)
	}
	if w := ws[len(ws)-1]; math.Abs(w-0.3024) > 0.02*0.3024 {
		t.Errorf("w = %.5f at n = 64, want 0.3024 within 2%%", w)
	}
	for i := 2; i < len(ws); i++ {
		if r := (ws[i-1] - ws[i-2]) / (ws[i] - ws[i-1]); !(r > 3) {
			t.Errorf("successive differences fall by %.3g from n = %d to %d, want > 3", r, ns[i-1], ns[i])
		}
	}
}
