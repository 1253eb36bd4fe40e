package collision

import (
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/keyframe"
)

// ObstacleMotion moves an obstacle along keyframes: translations (of the
// obstacle from where its fields place it) given at keyTimes, interpolated
// linearly and held before the first and after the last key (package
// keyframe, as LinearMovementConstraint). The obstacles embed it
// (PlaneForceField, SphereForceField, BoxForceField,
// MeshObstacleForceField); without keyTimes the obstacle is static.
//
// During a step from t to t + dt the obstacle stands at its place at
// t + dt (where implicit and static solvers write their equilibrium and
// the projective constraints put prescribed DOFs) and moves at the chord
// velocity V = (T(t + dt) − T(t))/dt of the step: the normal dashpot acts
// on the relative normal velocity (v − V)·n and friction on the relative
// tangential velocity, so a moving floor carries what rests on it and a
// pusher pushes without drag from its own speed. At Init it stands at its
// place at the scene's time, with the chord velocity of the first step.
type ObstacleMotion struct {
	KeyTimes     []float64   `toml:"keyTimes" doc:"key times of the obstacle's motion (strictly increasing; none: a static obstacle)" unit:"s"`
	Translations [][]float64 `toml:"translations" doc:"translation [tx, ty, tz] of the obstacle at each key time, from where its other fields place it; interpolated linearly, held outside the keys" unit:"m"`
}

// checkMotion checks the keys.
func (m *ObstacleMotion) checkMotion() error {
	if len(m.KeyTimes) == 0 && len(m.Translations) == 0 {
		return nil
	}
	_, err := keyframe.Check("keyTimes", m.KeyTimes, "translations", m.Translations, 3)
	return err
}

// at returns the translation at time t.
func (m *ObstacleMotion) at(t float64) geom.Vec3 {
	if len(m.KeyTimes) == 0 {
		return geom.Vec3{}
	}
	var d geom.Vec3
	keyframe.Eval(d[:], m.KeyTimes, m.Translations, t)
	return d
}

// place puts the obstacle o where it stands during the step from t to
// t + dt, moving at the chord velocity.
func (m *ObstacleMotion) place(o *obstacle, t, dt float64) {
	if len(m.KeyTimes) == 0 {
		return
	}
	a, b := m.at(t), m.at(t+dt)
	o.offset = b
	if dt > 0 {
		o.vel = b.Sub(a).Scale(1 / dt)
	}
}

// initMotion places the obstacle at Init: at the scene's time, with the
// chord velocity of the first step.
func (m *ObstacleMotion) initMotion(o *obstacle, b *graph.ObjectBase) {
	if len(m.KeyTimes) == 0 {
		return
	}
	ctx := b.Node.Context()
	o.offset = m.at(ctx.Time)
	if ctx.Dt > 0 {
		o.vel = m.at(ctx.Time + ctx.Dt).Sub(o.offset).Scale(1 / ctx.Dt)
	}
}

// Placement returns the obstacle's translation and velocity for the
// current step.
func (o *obstacle) placement() (offset, velocity geom.Vec3) { return o.offset, o.vel }
