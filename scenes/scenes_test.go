// Package scenes holds the example scenes; its test runs each of them for a
// few steps so no example can rot.
package scenes

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/sofago/sofago/graph"

	_ "github.com/sofago/sofago/components/all"
)

// slowInit lists the scenes whose Init takes seconds; -short leaves them out.
var slowInit = map[string]string{
	"subspace_bridge.toml": "precomputes an 11,520-tetrahedron reduced model at Init (about 3 s of CPU)",
}

// TestEverySceneRuns loads, initialises and steps every scene in this folder
// and checks that every state stays finite. The precomputation caches go to
// one temporary folder shared by the scenes (never the user's cache).
func TestEverySceneRuns(t *testing.T) {
	cache := t.TempDir()
	files, err := filepath.Glob("*.toml")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no scenes")
	}
	for _, f := range files {
		t.Run(f, func(t *testing.T) {
			if why, ok := slowInit[f]; ok && testing.Short() {
				t.Skipf("-short: %s", why)
			}
			s, err := graph.LoadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			s.CacheDir = cache
			if err := s.Init(); err != nil {
				t.Fatal(err)
			}
			steps := min(s.Steps, 5)
			for i := 0; i < steps; i++ {
				if err := s.Step(); err != nil {
					t.Fatal(err)
				}
			}
			for _, st := range s.States() {
				for _, x := range st.Vec(graph.Position) {
					if math.IsNaN(x) || math.IsInf(x, 0) {
						t.Fatalf("state %s is not finite", st.Base().Path())
					}
				}
			}
			k, p := s.Energies()
			t.Logf("%d steps, t = %g s, kinetic %.4g J, potential %.4g J", steps, s.Time, k, p)
		})
	}
}
