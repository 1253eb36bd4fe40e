package solver_test

import (
	"testing"

	"github.com/sofago/sofago/components/solver"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

// contactBoxScene is a small elastic box dropped 5 mm onto a plane tilted
// by 10° (penalty, dashpot and friction, as drop.toml): it lands on one
// edge, then its whole face, and slides, so the set of vertices in
// contact — hence the probed contact, dashpot and friction entries of
// the system — changes from step to step.
const contactBoxScene = `
dt = 0.002
gravity = [0, -9.81, 0]
[[node]]
name = "box"
  [[node.object]]
  type = "EulerImplicitSolver"
  [[node.object]]
  type = "SparseCholeskySolver"
  name = "lin"
  [[node.object]]
  type = "RegularGridTopology"
  min = [0, 0.005, 0]
  max = [0.1, 0.045, 0.1]
  n = [4, 3, 4]
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[node.object]]
  type = "DiagonalMass"
  massDensity = 1000
  [[node.object]]
  type = "TetrahedronFEMForceField"
  method = "large"
  youngModulus = 1e5
  poissonRatio = 0.35
  [[node.object]]
  type = "PlaneForceField"
  normal = [0.1736, 0.9848, 0]
  stiffness = 2e4
  damping = 0.5
  friction = 0.6
`

// TestSparseCholeskyKeepsAnalysisAsContactsChange: while contacts come
// and go, their entries stay inside the matrix's pattern (diagonal
// blocks), so SparseCholeskySolver keeps one symbolic analysis
// (blockSystem.relocate) — and the run is bitwise the one that rebuilds
// the pattern and the analysis at every step (the same matrix, the same
// ordering of the same pattern). The contact set is checked to change.
func TestSparseCholeskyKeepsAnalysisAsContactsChange(t *testing.T) {
	kept := graphtest.MustLoad(t, "box.toml", contactBoxScene)
	fresh := graphtest.MustLoad(t, "box.toml", contactBoxScene)
	linKept := graphtest.Find[*solver.SparseCholeskySolver](t, kept, "box/lin")
	linFresh := graphtest.Find[*solver.SparseCholeskySolver](t, fresh, "box/lin")
	stKept := graphtest.Find[graph.State](t, kept, "box/dofs")
	stFresh := graphtest.Find[graph.State](t, fresh, "box/dofs")
	sets := map[string]bool{}
	for i := 0; i < 60; i++ {
		linFresh.ForgetPattern()
		if err := kept.Step(); err != nil {
			t.Fatal(err)
		}
		if err := fresh.Step(); err != nil {
			t.Fatal(err)
		}
		// Contact set: the vertices behind the plane n·x = 0.
		x := stKept.Vec(graph.Position)
		key := make([]byte, len(x)/3)
		for v := range key {
			key[v] = '0'
			if 0.1736*x[3*v]+0.9848*x[3*v+1] < 0 {
				key[v] = '1'
			}
		}
		sets[string(key)] = true
	}
	t.Logf("%d distinct contact sets; analyses: kept %d, rebuilt %d", len(sets), linKept.Analyses(), linFresh.Analyses())
	if len(sets) < 3 {
		t.Fatalf("only %d distinct contact sets: the scene does not exercise changing contacts", len(sets))
	}
	if linKept.Analyses() != 1 {
		t.Errorf("%d symbolic analyses while contacts changed, want 1", linKept.Analyses())
	}
	for _, id := range []graph.VecID{graph.Position, graph.Velocity} {
		a, b := stKept.Vec(id), stFresh.Vec(id)
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("vector %v entry %d: %v with the kept analysis, %v rebuilt at every step (want bitwise equal)", id, i, a[i], b[i])
			}
		}
	}
}

// TestSparseCholeskyResidualSource: a system of closed-form blocks only
// (scenes/cantilever.toml) has its residual computed matrix free at the
// first solve of its analysis and from the assembled matrix afterwards,
// still at rounding level; one with scalar entries (contactBoxScene's
// penalty, dashpot and friction blocks while in contact) matrix free at
// every solve with such entries, so an approximate tangent would keep
// showing in the residual.
func TestSparseCholeskyResidualSource(t *testing.T) {
	s := loadShippedCantilever(t)
	lin := graphtest.Find[*solver.SparseCholeskySolver](t, s, "beam/SparseCholeskySolver")
	ode := graphtest.Find[*solver.EulerImplicitSolver](t, s, "beam/EulerImplicitSolver")
	for i := 0; i < 5; i++ {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
		// Rounding level: ~ε·κ with κ(A) ~ 1e3 here (measured 1e-13).
		if r := ode.LastStats().Residual; !(r < 1e-11) {
			t.Errorf("cantilever step %d: relative residual %.3g, want < 1e-11", i, r)
		}
	}
	if n := lin.MatrixFreeResiduals(); n != 1 {
		t.Errorf("cantilever: %d matrix-free residuals in 5 solves, want 1 (the first)", n)
	}
	box := graphtest.MustLoad(t, "box.toml", contactBoxScene)
	linBox := graphtest.Find[*solver.SparseCholeskySolver](t, box, "box/lin")
	st := graphtest.Find[graph.State](t, box, "box/dofs")
	contactSteps := 0 // steps starting with a vertex behind the plane
	for i := 0; i < 60; i++ {
		x := st.Vec(graph.Position)
		for v := 0; v < len(x)/3; v++ {
			if 0.1736*x[3*v]+0.9848*x[3*v+1] < 0 {
				contactSteps++
				break
			}
		}
		if err := box.Step(); err != nil {
			t.Fatal(err)
		}
	}
	n := linBox.MatrixFreeResiduals()
	t.Logf("contact box: %d steps in contact of 60, %d matrix-free residuals", contactSteps, n)
	// Every step in contact, plus the first solve (out of contact).
	if contactSteps < 20 || n != contactSteps+1 {
		t.Errorf("contact box: %d matrix-free residuals for %d steps in contact, want one more", n, contactSteps)
	}
}

// TestImplicitEulerVelocityForm: with SparseCholeskySolver on a subtree
// whose every component writes closed-form blocks
// (scenes/cantilever.toml) implicit Euler solves for the new velocity
// from the second step on (the first assembles and finds the sources);
// that its states equal those of the Δv form is
// TestCantileverSparseCholeskyStates (states pinned from the Δv form, met
// to 1e-12). A subtree with a contact model (probed, possibly
// non-symmetric entries while in contact) keeps the Δv form at every
// step, in contact or not.
func TestImplicitEulerVelocityForm(t *testing.T) {
	s := loadShippedCantilever(t)
	ode := graphtest.Find[*solver.EulerImplicitSolver](t, s, "beam/EulerImplicitSolver")
	for i := 0; i < 10; i++ {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
	}
	if n := ode.VelocitySolves(); n != 9 {
		t.Errorf("cantilever: %d of 10 steps solved for the new velocity, want 9", n)
	}
	box := graphtest.MustLoad(t, "box.toml", contactBoxScene)
	odeBox := graphtest.Find[*solver.EulerImplicitSolver](t, box, "box/EulerImplicitSolver")
	for i := 0; i < 30; i++ {
		if err := box.Step(); err != nil {
			t.Fatal(err)
		}
	}
	if n := odeBox.VelocitySolves(); n != 0 {
		t.Errorf("contact box: %d steps solved for the new velocity, want 0", n)
	}
}
