package validation

import (
	"math"
	"testing"

	"github.com/sofago/sofago/components/forcefield"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

// solveSceneFile runs one step of a scene file and returns the shell's
// state.
func solveSceneFile(t *testing.T, file, shell string) graph.State {
	t.Helper()
	s := loadFramesScene(t, file, nil)
	if err := s.Step(); err != nil {
		t.Fatal(err)
	}
	return graphtest.Find[*forcefield.TriangularShellForceField](t, s, shell).Base().Node.State()
}

// TestShellPlateScene: scenes/shell_plate.toml gives the figures its
// header states: centre deflection 0.001276 q a⁴/D (+0.87% from
// Kirchhoff's clamped plate), to the 4 digits written.
func TestShellPlateScene(t *testing.T) {
	st := solveSceneFile(t, "../scenes/shell_plate.toml", "plate/shell")
	x, x0 := st.Vec(graph.Position), st.Vec(graph.RestPosition)
	const n = 48
	mid := n/2 + (n+1)*(n/2)
	d := 2.1e11 * 1e-6 / (12 * (1 - 0.09))
	w := -(x[3*mid+2] - x0[3*mid+2]) * d / 1000
	t.Logf("w D/(q a⁴) = %.6f (Kirchhoff 0.001265, %+.2f%%), w = %.4g m", w, 100*(w-0.0012653)/0.0012653, w*1000/d)
	if math.Abs(w-0.001276) > 0.0000005 {
		t.Errorf("w D/(q a⁴) = %.6f, the scene's header says 0.001276", w)
	}
}

// TestShellRoofScene: scenes/shell_roof.toml gives the figure its header
// states: the middle of a free edge drops 0.2983 (reference 0.3024), to
// the 4 digits written; both free edges alike (the mesh is symmetric).
func TestShellRoofScene(t *testing.T) {
	st := solveSceneFile(t, "../scenes/shell_roof.toml", "roof/shell")
	x, x0 := st.Vec(graph.Position), st.Vec(graph.RestPosition)
	const n = 64
	for _, k := range []int{n / 2, n/2 + (n+1)*n} {
		w := -(x[3*k+2] - x0[3*k+2])
		t.Logf("vertex %d: w = %.5f (reference 0.3024, %+.2f%%)", k, w, 100*(w-0.3024)/0.3024)
		if math.Abs(w-0.2983) > 0.00005 {
			t.Errorf("vertex %d: w = %.5f, the scene's header says 0.2983", k, w)
		}
	}
}
