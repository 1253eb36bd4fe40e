package example

import (
	"fmt"
	"slices"

	"github.com/sofago/sofago/geom"
)

// GroupSpec assigns the items of an object (regions, elements) to the
// groups of local example manifolds (Koyama et al. 2012 Sec. 4.3): by an
// index per item, or by boxes [xmin, ymin, zmin, xmax, ymax, zmax] holding
// the item's rest point (the last box holding it wins).
type GroupSpec struct {
	Indices []int
	Boxes   [][]float64
	// AllowNone lets an item be in no group (index −1, or outside every
	// box): it then has no example manifold.
	AllowNone bool
	// Item names an item in messages ("particle", "element").
	Item string
}

// Assign returns the group of each of the n items (−1: none) at rest points
// at(i), and the number of groups. Groups are numbered from 0 without gaps
// and none may be empty.
func (gs GroupSpec) Assign(n int, at func(i int) geom.Vec3) ([]int, int, error) {
	of := make([]int, n)
	switch {
	case len(gs.Indices) > 0:
		if len(gs.Indices) != n {
			return nil, 0, fmt.Errorf("groupIndices has %d entries for %d %ss (one group per %s)", len(gs.Indices), n, gs.Item, gs.Item)
		}
		for i, g := range gs.Indices {
			if g < 0 && !(gs.AllowNone && g == -1) {
				return nil, 0, fmt.Errorf("groupIndices[%d] = %d is negative", i, g)
			}
		}
		copy(of, gs.Indices)
	case len(gs.Boxes) > 0:
		for k, b := range gs.Boxes {
			if len(b) != 6 {
				return nil, 0, fmt.Errorf("groupBoxes[%d] has %d numbers, want 6: [xmin, ymin, zmin, xmax, ymax, zmax]", k, len(b))
			}
		}
		for i := range of {
			of[i] = -1
			p := at(i)
			for k, b := range gs.Boxes {
				if p[0] >= b[0] && p[0] <= b[3] && p[1] >= b[1] && p[1] <= b[4] && p[2] >= b[2] && p[2] <= b[5] {
					of[i] = k
				}
			}
			if of[i] < 0 && !gs.AllowNone {
				return nil, 0, fmt.Errorf("%s %d at %v lies in no group box: every %s needs a group", gs.Item, i, p, gs.Item)
			}
		}
	default:
		return nil, 0, fmt.Errorf("no groupIndices or groupBoxes")
	}
	ng := 0
	if n > 0 {
		ng = slices.Max(of) + 1
	}
	if len(gs.Indices) == 0 {
		ng = len(gs.Boxes) // one group per box
	}
	count := make([]int, ng)
	for _, g := range of {
		if g >= 0 {
			count[g]++
		}
	}
	for g, c := range count {
		switch {
		case c == 0 && len(gs.Indices) == 0:
			return nil, 0, fmt.Errorf("groupBoxes[%d] holds no %s (or only ones a later box takes)", g, gs.Item)
		case c == 0:
			return nil, 0, fmt.Errorf("group %d has no %s (groups are numbered from 0 without gaps)", g, gs.Item)
		}
	}
	if ng == 0 {
		return nil, 0, fmt.Errorf("no %s lies in a group", gs.Item)
	}
	return of, ng, nil
}
