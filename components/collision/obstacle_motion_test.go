package collision

import (
	"math/rand/v2"
	"testing"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

// TestMovingObstacleFixtures: the fixture of TestObstacleFixtures on every
// obstacle translated and moving (offset and velocity of the step set as
// ObstacleMotion sets them): force = −∇W at rest relative to the obstacle,
// tangent and damping products the derivatives of the force, with the
// dashpot and friction on the velocity relative to the obstacle.
func TestMovingObstacleFixtures(t *testing.T) {
	offset := geom.Vec3{0.03, -0.02, 0.01}
	vel := geom.Vec3{0.1, 0.05, -0.08}
	for _, tc := range obstacleCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			tc.ff.Base().TypeName = tc.name
			if _, ok := tc.ff.(*MeshObstacleForceField); !ok {
				if err := tc.ff.Validate(); err != nil {
					t.Fatal(err)
				}
			}
			obs := engineOf(tc.ff)
			obs.offset, obs.vel = offset, vel
			rng := rand.New(rand.NewPCG(5, 6))
			x := pointsNear(rng, obs.shape, 40, func() geom.Vec3 { return tc.sample(rng) }, tc.scale)
			for i := 0; i < len(x)/3; i++ {
				geom.AddAt(x, i, offset) // the points around the moved obstacle
			}
			obs.lag(x)
			if obs.contacts < 10 {
				t.Fatalf("only %d of 40 points in contact", obs.contacts)
			}
			// Velocities around the obstacle's, so that relative speeds
			// are those of the static fixture.
			v := graphtest.RandomDeriv(rng, len(x), 0.2)
			for i := 0; i < len(v)/3; i++ {
				geom.AddAt(v, i, vel)
			}
			// At rest relative to the obstacle: conservative.
			still := make([]float64, len(x))
			for i := 0; i < len(x)/3; i++ {
				geom.Put(still, i, vel)
			}
			graphtest.CheckForceField(t, tc.ff, graph.Vec3, x, still, graphtest.Options{})
			graphtest.CheckForceField(t, tc.ff, graph.Vec3, x, v, graphtest.Options{SkipEnergy: true, CheckDamping: true})
		})
	}
}
