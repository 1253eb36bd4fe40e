package graph

import (
	"math"
	"strconv"
)

// Simulated time is printed without floating-point noise: Step keeps
// Scene.Time on the step grid (t₀ + n·dt, one rounding, instead of n
// accumulated additions), and every place that prints a time (runscene's
// summary and JSON dump, the PVD and VTU files, the energy log) formats it
// with FormatTime: rounded to 12 significant digits (a relative 1e-12,
// far above the rounding error of t₀ + n·dt and far below any step size
// used), then written in the shortest form that parses back to that
// value. So 3 steps of 0.1 s print as 0.3, not 0.30000000000000004.

// timeDigits is the number of significant digits times are rounded to.
const timeDigits = 12

// RoundTime returns t rounded to 12 significant digits (non-finite values
// unchanged).
func RoundTime(t float64) float64 {
	if t == 0 || math.IsNaN(t) || math.IsInf(t, 0) {
		return t
	}
	r, err := strconv.ParseFloat(strconv.FormatFloat(t, 'g', timeDigits, 64), 64)
	if err != nil {
		return t
	}
	return r
}

// FormatTime formats a time in seconds as the shortest decimal of
// RoundTime(t): "0.1", "2", "1e-05".
func FormatTime(t float64) string {
	return strconv.FormatFloat(RoundTime(t), 'g', -1, 64)
}

// advanceTime moves Time one dt along the step grid: t₀ + n·dt, where t₀
// is the time at which dt (or Time, set by code) last changed.
func (s *Scene) advanceTime() {
	if s.Dt != s.gridDt || s.Time != s.gridTime {
		s.gridBase, s.gridSteps, s.gridDt = s.Time, 0, s.Dt
	}
	s.gridSteps++
	s.Time = s.gridBase + float64(s.gridSteps)*s.Dt
	s.gridTime = s.Time
}
