package keyframe

import (
	"strings"
	"testing"
)

// TestEval checks the interpolation rule against hand-computed values:
// linear inside a segment, exact at the keys, held outside.
func TestEval(t *testing.T) {
	times := []float64{0, 1, 3}
	values := [][]float64{{0, 10}, {2, 10}, {-2, 4}}
	for _, c := range []struct {
		t    float64
		want []float64
	}{
		{-5, []float64{0, 10}}, // before the first key: held
		{0, []float64{0, 10}},  // at a key: exact
		{0.25, []float64{0.5, 10}},
		{1, []float64{2, 10}},
		{2, []float64{0, 7}}, // middle of the second segment
		{2.5, []float64{-1, 5.5}},
		{3, []float64{-2, 4}},
		{7, []float64{-2, 4}}, // after the last key: held
	} {
		got := make([]float64, 2)
		Eval(got, times, values, c.t)
		for j := range got {
			if got[j] != c.want[j] {
				t.Errorf("Eval at t = %g: %v, want %v", c.t, got, c.want)
				break
			}
		}
		if s := Scalar(times, []float64{0, 2, -2}, c.t); s != c.want[0] {
			t.Errorf("Scalar at t = %g: %g, want %g", c.t, s, c.want[0])
		}
	}
	// One key: a constant.
	got := []float64{0}
	Eval(got, []float64{2}, [][]float64{{5}}, 0)
	if got[0] != 5 {
		t.Errorf("one key: %g, want 5", got[0])
	}
}

func TestCheck(t *testing.T) {
	for _, c := range []struct {
		times  []float64
		values [][]float64
		widths []int
		want   string
	}{
		{nil, nil, nil, "is empty"},
		{[]float64{0, 0}, [][]float64{{1}, {2}}, nil, "increase strictly"},
		{[]float64{1, 0}, [][]float64{{1}, {2}}, nil, "increase strictly"},
		{[]float64{0, 1}, [][]float64{{1}}, nil, "one per key time"},
		{[]float64{0, 1}, [][]float64{{1}, {2, 3}}, nil, "same size"},
		{[]float64{0, 1}, [][]float64{{1, 2}, {2, 3}}, []int{3, 6}, "want 3 or 6"},
	} {
		_, err := Check("keyTimes", c.times, "movements", c.values, c.widths...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Check(%v, %v): %v, want an error containing %q", c.times, c.values, err, c.want)
		}
	}
	if w, err := Check("keyTimes", []float64{0, 1}, "movements", [][]float64{{1, 2, 3}, {4, 5, 6}}, 3, 6); err != nil || w != 3 {
		t.Errorf("valid keys: width %d, error %v", w, err)
	}
}
