package forcefield

import (
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/keyframe"
)

// LoadRamp is the optional time profile of an external load: its value is
// multiplied by a factor given at keyTimes (keyFactors), interpolated
// linearly and held before the first and after the last key (package
// keyframe); without keys the factor is 1. During a step from t to t + dt
// the load takes its factor at t + dt (where implicit and static solvers
// write their equilibrium and the projective constraints put prescribed
// DOFs); at Init, at the scene's time (so a -steps 0 dump shows the load at
// t = 0). Components embed it (ConstantForceField, SurfacePressureForceField,
// SurfaceTractionForceField) and call initRamp from Init and stepRamp from
// BeginStep.
type LoadRamp struct {
	KeyTimes   []float64 `toml:"keyTimes" doc:"key times of the load's time profile (strictly increasing; optional)" unit:"s"`
	KeyFactors []float64 `toml:"keyFactors" doc:"factor on the load at each key time, interpolated linearly, held outside the keys (required with keyTimes)"`

	factor float64
}

// checkRamp checks the keys.
func (r *LoadRamp) checkRamp() error {
	if len(r.KeyTimes) == 0 && len(r.KeyFactors) == 0 {
		return nil
	}
	return keyframe.CheckScalars("keyTimes", r.KeyTimes, "keyFactors", r.KeyFactors)
}

// rampAt returns the factor at time t (1 without keys).
func (r *LoadRamp) rampAt(t float64) float64 {
	if len(r.KeyTimes) == 0 {
		return 1
	}
	return keyframe.Scalar(r.KeyTimes, r.KeyFactors, t)
}

// initRamp checks the keys and sets the factor at the scene's time.
func (r *LoadRamp) initRamp(b *graph.ObjectBase) error {
	if err := r.checkRamp(); err != nil {
		return err
	}
	t := 0.0
	if b.Node != nil {
		t = b.Node.Context().Time
	}
	r.factor = r.rampAt(t)
	return nil
}

// stepRamp sets the factor of the step from t to t + dt.
func (r *LoadRamp) stepRamp(t, dt float64) { r.factor = r.rampAt(t + dt) }

// Factor returns the ramp's current factor (1 without keys).
func (r *LoadRamp) Factor() float64 {
	if len(r.KeyTimes) == 0 {
		return 1
	}
	return r.factor
}
