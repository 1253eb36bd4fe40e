package graph

import "fmt"

// DOFSelection is how components pick DOFs of a state: a list of 0-based
// indices, or a box on the rest positions. Embed it in a component struct
// and its fields become the component's `indices` and `box` scene fields.
type DOFSelection struct {
	Indices []int     `toml:"indices" doc:"0-based indices of the selected DOFs" range:"[0,inf)"`
	Box     []float64 `toml:"box" doc:"[xmin, ymin, zmin, xmax, ymax, zmax]: select the DOFs whose rest position lies inside (bounds included)" unit:"m"`
}

// Given reports whether indices or a box was given.
func (s *DOFSelection) Given() bool { return len(s.Indices) > 0 || len(s.Box) > 0 }

// CheckSelection checks that at most one of indices and box is given and
// that the box is well formed.
func (s *DOFSelection) CheckSelection() error {
	if len(s.Indices) > 0 && len(s.Box) > 0 {
		return fmt.Errorf("give indices or box, not both")
	}
	if s.Box == nil {
		return nil
	}
	if len(s.Box) != 6 {
		return fmt.Errorf("box has %d numbers, want 6: [xmin, ymin, zmin, xmax, ymax, zmax]", len(s.Box))
	}
	for a := 0; a < 3; a++ {
		if s.Box[a] > s.Box[a+3] {
			return fmt.Errorf("box min[%d] = %g is greater than max[%d] = %g", a, s.Box[a], a, s.Box[a+3])
		}
	}
	return nil
}

// Select resolves the selection against st: the indices as given (each
// checked against the state's size, a repeat is an error), or the DOFs whose
// first three rest coordinates lie in the box, in index order. A box that
// selects nothing is an error (a silent no-op is a trap). It returns nil
// when nothing was given.
func (s *DOFSelection) Select(st State) ([]int, error) {
	if err := s.CheckSelection(); err != nil {
		return nil, err
	}
	n := st.Size()
	switch {
	case len(s.Indices) > 0:
		seen := make(map[int]bool, len(s.Indices))
		for _, i := range s.Indices {
			if i < 0 || i >= n {
				return nil, fmt.Errorf("index %d is out of range: state %q has %d DOFs (indices are 0-based)", i, st.Base().Name, n)
			}
			if seen[i] {
				return nil, fmt.Errorf("index %d appears twice in indices", i)
			}
			seen[i] = true
		}
		return append([]int(nil), s.Indices...), nil
	case len(s.Box) > 0:
		cs := st.Template().CoordSize()
		if cs < 3 {
			return nil, fmt.Errorf("box selection needs 3 position coordinates; template %s has %d: give indices", st.Template().Name(), cs)
		}
		rest := st.Vec(RestPosition)
		b := s.Box
		var out []int
		for i := 0; i < n; i++ {
			p := rest[cs*i:]
			if p[0] >= b[0] && p[0] <= b[3] && p[1] >= b[1] && p[1] <= b[4] && p[2] >= b[2] && p[2] <= b[5] {
				out = append(out, i)
			}
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("box %v contains no rest position of state %q (%d DOFs): it selects nothing", s.Box, st.Base().Name, n)
		}
		return out, nil
	}
	return nil, nil
}
