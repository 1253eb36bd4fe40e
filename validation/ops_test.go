package validation

import (
	"testing"

	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

// TestTraversalsMatchFiniteDifferences runs the scene-level fixture on real
// scenes: the df that Ops.ComputeDf assembles from every force field, mass,
// mapping (ApplyJ, ApplyJT, geometric stiffness ApplyDJT) and traversal
// order must be the derivative of the force Ops.ComputeForce returns. The
// scenes are first advanced a few steps so that the configuration is
// deformed and rotated, where geometric stiffness matters.
func TestTraversalsMatchFiniteDifferences(t *testing.T) {
	for _, file := range []string{"../scenes/rigid_pendulum.toml", "../scenes/cantilever.toml"} {
		t.Run(file, func(t *testing.T) {
			s := loadScene(t, file)
			for i := 0; i < 20; i++ {
				if err := s.Step(); err != nil {
					t.Fatal(err)
				}
			}
			// Central differences with h = 1e-6 × coordinate scale leave an
			// O(h²) truncation error around 1e-10 relative and a rounding
			// error around 1e-16/1e-6 = 1e-10 of the force scale: 1e-6 is
			// a safe bound that still catches any missing term (those are
			// O(1) relative).
			graphtest.CheckOps(t, s.Ops(), graphtest.Options{Tolerance: 1e-6})
			_ = graph.Position
		})
	}
}
