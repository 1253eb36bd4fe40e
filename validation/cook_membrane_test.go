package validation

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/sofago/sofago/components/solver"
	"github.com/sofago/sofago/components/topology"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

// Cook's membrane (Cook 1974; the large-strain version of e.g. Simo &
// Armero 1992, Reese et al. 2000): the trapezoid with corners (0, 0),
// (48, 44), (48, 60), (0, 44), clamped on x = 0 and sheared by a total
// force F = 20 in +y on the free edge x = 48, here as a 3-D slab of
// thickness 1 meshed by 16 × 16 × 1 grid cells (each split into 6 Kuhn
// tetrahedra) mapped onto the trapezoid, neo-Hookean with E = 70,
// ν = 0.4. The load is the consistent nodal load of a uniform shear
// traction F/16 on the end face.

// cookPoint maps the unit-square grid point (s, r) ∈ [0,1]² to the
// trapezoid: x = 48 s, y from the lower edge 44 s to the upper edge
// 44 + 16 s.
func cookPoint(s, r float64) (x, y float64) {
	x = 48 * s
	lo, hi := 44*s, 44+16*s
	return x, lo + r*(hi-lo)
}

// cookScene returns the scene text with the extra StaticSolver fields
// newton, and the index of the top corner (48, 60, 0).
func cookScene(t testing.TB, n int, newton string) (string, int) {
	t.Helper()
	g, err := topology.NewRegularGrid([3]float64{}, [3]float64{1, 1, 1}, [3]int{n + 1, n + 1, 2})
	if err != nil {
		t.Fatal(err)
	}
	unit := g.Points()
	np := len(unit) / 3
	pts := make([]float64, len(unit))
	var rest []string
	corner := -1
	for i := 0; i < np; i++ {
		x, y := cookPoint(unit[3*i], unit[3*i+1])
		pts[3*i], pts[3*i+1], pts[3*i+2] = x, y, unit[3*i+2]
		rest = append(rest, fmt.Sprintf("[%.17g, %.17g, %.17g]", x, y, unit[3*i+2]))
		if unit[3*i] == 1 && unit[3*i+1] == 1 && unit[3*i+2] == 0 {
			corner = i
		}
	}
	// Consistent loads of the traction (0, F/A, 0) on the face x = 48.
	const F, area = 20.0, 16.0
	load := map[int]float64{}
	for _, tri := range g.Triangles() {
		on := true
		for _, v := range tri {
			on = on && unit[3*v] == 1
		}
		if !on {
			continue
		}
		a, b, c := geom.At(pts, tri[0]), geom.At(pts, tri[1]), geom.At(pts, tri[2])
		ar := 0.5 * b.Sub(a).Cross(c.Sub(a)).Norm()
		for _, v := range tri {
			load[v] += F / area * ar / 3
		}
	}
	var is, fs []string
	for v := 0; v < np; v++ {
		if f, ok := load[v]; ok {
			is = append(is, fmt.Sprint(v))
			fs = append(fs, fmt.Sprintf("[0, %.17g, 0]", f))
		}
	}
	return fmt.Sprintf(`
gravity = [0, 0, 0]
[[node]]
name = "cook"
  [[node.object]]
  type = "StaticSolver"
  name = "newton"
  iterations = 50
  tolerance = 1e-10
  %s
  [[node.object]]
  type = "SparseCholeskySolver"
  [[node.object]]
  type = "RegularGridTopology"
  min = [0, 0, 0]
  max = [1, 1, 1]
  n = [%d, %d, 2]
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  restPosition = [%s]
  [[node.object]]
  type = "TetrahedronHyperelasticityFEMForceField"
  materialName = "NeoHookean"
  youngModulus = 70
  poissonRatio = 0.4
  [[node.object]]
  type = "ConstantForceField"
  indices = [%s]
  forces = [%s]
  [[node.object]]
  type = "FixedConstraint"
  box = [-1e-9, -1e9, -1e9, 1e-9, 1e9, 1e9]
`, newton, n+1, n+1, strings.Join(rest, ", "), strings.Join(is, ", "), strings.Join(fs, ", ")), corner
}

// solveCook runs one static step and returns the displacement of the top
// corner, the stats and the step's error.
func solveCook(t testing.TB, newton string) (geom.Vec3, solver.StaticStats, *graph.Scene, error) {
	t.Helper()
	text, corner := cookScene(t, 16, newton)
	s := graphtest.MustLoad(t, "cook.toml", text)
	err := s.Step()
	st := graphtest.Find[graph.State](t, s, "cook/dofs")
	u := geom.At(st.Vec(graph.Position), corner).Sub(geom.At(st.Vec(graph.RestPosition), corner))
	return u, graphtest.Find[*solver.StaticSolver](t, s, "cook/newton").LastStaticStats(), s, err
}

// cookReference is the displacement of the top corner (48, 60, 0) of our
// converged solution (loadSteps = 10, tolerance 1e-10), reproduced by
// dolfinx + MUMPS on the same mesh and load (10 load steps, relative
// residual 1e-10 each) to 4e-14 (TestCookMembraneMatchesFEniCSx). The
// slab of thickness 1 does not stay plane: under the full shear it has
// twisted out of its plane (u_z = −10.3 at this corner); the plane
// solution of the 2-D benchmark is not the stable equilibrium of this
// slender 3-D slab, so plane-strain literature values do not apply.
var cookReference = geom.Vec3{-12.688975451805, 8.533518012992, -10.322994907183}

// TestCookMembraneIndefiniteRecovery: with the whole load in one step,
// the third Newton iterate has an indefinite tangent (Cholesky meets a
// negative pivot) and the solve stops when recovery is off, as it did
// before; with the diagonal-shift recovery (the default) it converges,
// and so does loadSteps = 10, to the same equilibrium, which is stable:
// −K factorises (positive definite) there. The two paths agree to 1e-9
// relative (both residuals ≤ 1e-10 of the load) and with the reference
// corner displacement.
func TestCookMembraneIndefiniteRecovery(t *testing.T) {
	_, st, _, err := solveCook(t, "recoverIndefinite = false")
	if err == nil || !errors.Is(err, graph.ErrNotPositiveDefinite) {
		t.Fatalf("whole load, no recovery: error %v, want the tangent reported not positive definite", err)
	}
	t.Logf("without recovery: %d iterations, then %v", st.Iterations, err)

	uRec, rec, s, err := solveCook(t, "")
	if err != nil {
		t.Fatalf("whole load with recovery: %v", err)
	}
	uSteps, steps, _, err := solveCook(t, "loadSteps = 10")
	if err != nil {
		t.Fatalf("loadSteps = 10: %v", err)
	}
	t.Logf("recovery: corner u = %.13g, %+v", uRec, rec)
	t.Logf("10 load steps: corner u = %.13g, %+v", uSteps, steps)
	if rec.Shifts == 0 {
		t.Errorf("recovery path took no shifted solve: the test no longer exercises the recovery")
	}
	scale := cookReference.Norm()
	if d := uRec.Sub(uSteps).Norm(); d > 1e-9*scale {
		t.Errorf("recovery and load steps differ by %.3g at the corner", d)
	}
	// The reference has 13 significant digits.
	if d := uSteps.Sub(cookReference).Norm(); d > 1e-11*scale {
		t.Errorf("corner displacement %.13g, want %.13g", uSteps, cookReference)
	}
	// Stability: −K is positive definite at the equilibrium.
	node := graphtest.Find[graph.State](t, s, "cook/dofs").Base().Node
	ops, err := graph.NewOps(node)
	if err != nil {
		t.Fatal(err)
	}
	f, dx := ops.AllocDeriv(), ops.AllocDeriv()
	ops.ComputeForce(f)
	ops.Project(f)
	if _, err := node.LinearSolver().Solve(ops, dx, f, 0, 0, -1); err != nil {
		t.Errorf("the equilibrium found is not stable: %v", err)
	}
}

// TestCookMembraneMatchesFEniCSx solves the membrane with dolfinx + MUMPS
// (plain Newton, which LU lets through indefinite tangents) in 10 load
// steps and compares every displacement with ours to 1e-9 relative (both
// residuals ≤ 1e-10 of the load; the measured agreement is 1e-14).
func TestCookMembraneMatchesFEniCSx(t *testing.T) {
	fenicsPython(t)
	_, st, s, err := solveCook(t, "loadSteps = 10")
	if err != nil {
		t.Fatal(err)
	}
	pts, tets := meshOf(t, s, "cook/dofs")
	r := solveFEniCSx(t, fenicsProblem{Points: pts, Tets: tets, Material: "NeoHookean", E: 70, Nu: 0.4,
		ClampX: 0, LoadX: 48, Force: [3]float64{0, 20, 0}, Area: 16, LoadSteps: 10, Rtol: 1e-10})
	dofs := graphtest.Find[graph.State](t, s, "cook/dofs")
	x, x0 := dofs.Vec(graph.Position), dofs.Vec(graph.RestPosition)
	u := make([]float64, len(x))
	for i := range x {
		u[i] = x[i] - x0[i]
	}
	d, umax := maxDiff(u, r.U)
	t.Logf("sofago %d Newton iterations, dolfinx %d; max |u| %.6g, max difference %.3g (%.3g relative)", st.Iterations, r.Iterations, umax, d, d/umax)
	if d > 1e-9*umax {
		t.Errorf("displacements differ by %.3g (max |u| %.6g): want ≤ 1e-9 relative", d, umax)
	}
}

// TestCookMembraneScene runs scenes/cook_membrane.toml (the same mesh,
// written by cmd/meshgen -shape cook and read by MeshLoader, the load by
// SurfaceTractionForceField, loadSteps = 10) and checks the top corner
// against cookReference: the same discrete problem, both solved to a
// relative residual of 1e-10, hence 1e-9 relative.
func TestCookMembraneScene(t *testing.T) {
	s := loadScene(t, "../scenes/cook_membrane.toml")
	if err := s.Step(); err != nil {
		t.Fatal(err)
	}
	st := graphtest.Find[graph.State](t, s, "membrane/dofs")
	x, x0 := st.Vec(graph.Position), st.Vec(graph.RestPosition)
	corner := -1
	for i := 0; i < len(x0)/3; i++ {
		if x0[3*i] == 48 && x0[3*i+1] == 60 && x0[3*i+2] == 0 {
			corner = i
		}
	}
	if corner < 0 {
		t.Fatal("no vertex at the top corner (48, 60, 0)")
	}
	u := geom.At(x, corner).Sub(geom.At(x0, corner))
	stats := graphtest.Find[*solver.StaticSolver](t, s, "membrane/newton").LastStaticStats()
	t.Logf("corner u = %.13g, %+v", u, stats)
	if d := u.Sub(cookReference).Norm(); d > 1e-9*cookReference.Norm() {
		t.Errorf("corner displacement %.13g, want %.13g", u, cookReference)
	}
}
