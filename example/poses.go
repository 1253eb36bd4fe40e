package example

import (
	"fmt"
	"math"
	"slices"

	"github.com/sofago/sofago/meshio"
)

// PoseSource says where example poses come from and what they must match.
type PoseSource struct {
	// Files are mesh files (any format meshio reads, e.g. cmd/posegen's
	// output) holding the rest mesh's vertices deformed, in the same order;
	// Resolve maps a name to a path (relative to the scene file), nil for
	// as is.
	Files   []string
	Resolve func(string) string
	// Inline are poses given as [x, y, z] per point.
	Inline [][][]float64
	// Points is the number of points a pose must have; Tetrahedra, when
	// not nil, the rest mesh's tetrahedra that a file's (if it has any)
	// must equal as vertex sets. Owner and Unit name them in messages
	// ("state \"dofs\"", "particles").
	Points      int
	Tetrahedra  [][4]int
	Owner, Unit string
}

// ReadPoses returns the example poses (3 numbers per point each): the
// files, then the inline poses. Errors name the example (examples[k],
// examplePositions[k]) and what does not match.
func ReadPoses(src PoseSource) ([][]float64, error) {
	var out [][]float64
	for k, name := range src.Files {
		path := name
		if src.Resolve != nil {
			path = src.Resolve(name)
		}
		m, err := meshio.Read(path)
		if err != nil {
			return nil, fmt.Errorf("examples[%d]: %w", k, err)
		}
		if m.NumPoints() != src.Points {
			return nil, fmt.Errorf("examples[%d] %q has %d vertices but %s has %d %s: an example must be the rest mesh deformed, vertex for vertex", k, name, m.NumPoints(), src.Owner, src.Points, src.Unit)
		}
		if err := checkSameTetrahedra(m.Tetrahedra, src.Tetrahedra); err != nil {
			return nil, fmt.Errorf("examples[%d] %q: %w", k, name, err)
		}
		out = append(out, m.Points)
	}
	for k, pose := range src.Inline {
		if len(pose) != src.Points {
			return nil, fmt.Errorf("examplePositions[%d] has %d points but %s has %d %s", k, len(pose), src.Owner, src.Points, src.Unit)
		}
		x := make([]float64, 0, 3*src.Points)
		for i, p := range pose {
			if len(p) != 3 {
				return nil, fmt.Errorf("examplePositions[%d][%d] has %d numbers, want 3", k, i, len(p))
			}
			x = append(x, p...)
		}
		out = append(out, x)
	}
	for k, x := range out {
		for _, v := range x {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("example %d has a non-finite coordinate", k)
			}
		}
	}
	return out, nil
}

// checkSameTetrahedra compares an example file's tetrahedra (when it has
// any) with the rest mesh's, as vertex sets (loaders may reorder the
// vertices of a tetrahedron to orient it), to catch an example made from
// another mesh.
func checkSameTetrahedra(tets, rest [][4]int) error {
	if len(tets) == 0 || len(rest) == 0 {
		return nil
	}
	if len(rest) != len(tets) {
		return fmt.Errorf("it has %d tetrahedra but the rest mesh has %d: an example must be the rest mesh deformed", len(tets), len(rest))
	}
	for t := range tets {
		a, b := tets[t], rest[t]
		slices.Sort(a[:])
		slices.Sort(b[:])
		if a != b {
			return fmt.Errorf("tetrahedron %d has vertices %v but the rest mesh's has %v: an example must be the rest mesh deformed", t, tets[t], rest[t])
		}
	}
	return nil
}
