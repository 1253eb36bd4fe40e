package graph

import "testing"

// TestTimeOnStepGrid: Time after n steps is t₀ + n·dt with one rounding
// (n additions of 0.1 drift to 0.9999999999999999 after 10 steps), and the
// grid restarts where dt or Time is changed by code.
func TestTimeOnStepGrid(t *testing.T) {
	s := NewScene("")
	s.Dt = 0.1
	for n := 1; n <= 1000; n++ {
		s.advanceTime()
		if want := float64(n) * 0.1; s.Time != want {
			t.Fatalf("step %d: Time %v, want n·dt = %v", n, s.Time, want)
		}
		if got, want := FormatTime(s.Time), FormatTime(float64(n)/10); got != want {
			t.Fatalf("step %d: printed %s, want %s", n, got, want)
		}
	}
	s.Dt = 0.01 // dt changed: the grid restarts at t = 100
	for range 3 {
		s.advanceTime()
	}
	if FormatTime(s.Time) != "100.03" {
		t.Errorf("after changing dt: %v", s.Time)
	}
	s.Time = 5 // set by code
	s.advanceTime()
	if s.Time != 5.01 {
		t.Errorf("after setting Time: %v, want 5.01", s.Time)
	}
}
