// Package keyframe interpolates values given at key times piecewise
// linearly: the prescribed motions (LinearMovementConstraint), the load
// ramps (ConstantForceField, SurfacePressureForceField and
// SurfaceTractionForceField keyFactors) and the moving obstacles
// (PlaneForceField, SphereForceField, BoxForceField keyTimes) share it, so
// every keyframed quantity of a scene follows the same rule:
//
//   - between two key times the value is the linear interpolation of the
//     values at those times;
//   - before the first key time it is the first value, after the last key
//     time the last one (held, not extrapolated);
//   - key times are finite and strictly increasing; one key is a constant.
package keyframe

import (
	"fmt"
	"math"
)

// Check validates key times and their values: at least one key, finite
// strictly increasing times, one value per time, every value of the same
// width (one of widths when widths are given) and finite. It returns the
// common width. The errors name the field keys times and values go by in a
// scene (timesKey, valuesKey).
func Check(timesKey string, times []float64, valuesKey string, values [][]float64, widths ...int) (int, error) {
	if len(times) == 0 {
		return 0, fmt.Errorf("%s is empty: give at least one key time", timesKey)
	}
	for i, t := range times {
		if math.IsNaN(t) || math.IsInf(t, 0) {
			return 0, fmt.Errorf("%s[%d] = %g is not finite", timesKey, i, t)
		}
		if i > 0 && !(t > times[i-1]) {
			return 0, fmt.Errorf("%s must increase strictly: %s[%d] = %g follows %g", timesKey, timesKey, i, t, times[i-1])
		}
	}
	if len(values) != len(times) {
		return 0, fmt.Errorf("%s has %d entries, want one per key time (%s has %d)", valuesKey, len(values), timesKey, len(times))
	}
	w := len(values[0])
	for i, v := range values {
		if len(v) != w {
			return 0, fmt.Errorf("%s[%d] has %d numbers, %s[0] has %d: every entry must have the same size", valuesKey, i, len(v), valuesKey, w)
		}
		for j, x := range v {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return 0, fmt.Errorf("%s[%d][%d] = %g is not finite", valuesKey, i, j, x)
			}
		}
	}
	if len(widths) > 0 {
		ok := false
		for _, ww := range widths {
			ok = ok || ww == w
		}
		if !ok {
			return 0, fmt.Errorf("%s entries have %d numbers; want %s", valuesKey, w, orList(widths))
		}
	}
	return w, nil
}

// CheckScalars validates key times and one scalar value per time.
func CheckScalars(timesKey string, times []float64, valuesKey string, values []float64) error {
	vs := make([][]float64, len(values))
	for i := range values {
		vs[i] = values[i : i+1]
	}
	_, err := Check(timesKey, times, valuesKey, vs)
	return err
}

func orList(ws []int) string {
	s := ""
	for i, w := range ws {
		switch {
		case i == 0:
		case i == len(ws)-1:
			s += " or "
		default:
			s += ", "
		}
		s += fmt.Sprint(w)
	}
	return s
}

// Locate returns the segment of t: value(t) = (1 − s)·values[k] +
// s·values[k+1] with 0 ≤ s < 1; s = 0 (and k the first or last key)
// outside [times[0], times[n−1]].
func Locate(times []float64, t float64) (k int, s float64) {
	n := len(times)
	if n == 0 || t <= times[0] {
		return 0, 0
	}
	if t >= times[n-1] {
		return n - 1, 0
	}
	lo, hi := 0, n-1 // times[lo] < t < times[hi]
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if times[mid] <= t {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo, (t - times[lo]) / (times[lo+1] - times[lo])
}

// Eval sets dst to the interpolated value at t (len(dst) = the width).
func Eval(dst []float64, times []float64, values [][]float64, t float64) {
	k, s := Locate(times, t)
	a := values[k]
	if s == 0 {
		copy(dst, a)
		return
	}
	b := values[k+1]
	for j := range dst {
		dst[j] = a[j] + s*(b[j]-a[j])
	}
}

// Scalar returns the interpolated scalar value at t.
func Scalar(times, values []float64, t float64) float64 {
	k, s := Locate(times, t)
	if s == 0 {
		return values[k]
	}
	return values[k] + s*(values[k+1]-values[k])
}
