package forcefield

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/meshio"
)

// SurfaceSelection picks the triangles a surface load acts on, among the
// triangles of the topology of the load's node (the outward boundary of a
// tetrahedral mesh, or the triangles of a surface mesh): by at most one of
// a box, a list of triangle indices, or a surface file; all of them when
// none is given. Components embed it (SurfacePressureForceField,
// SurfaceTractionForceField).
type SurfaceSelection struct {
	Box             []float64 `toml:"box" doc:"[xmin, ymin, zmin, xmax, ymax, zmax]: the triangles whose three vertices' rest positions lie inside (bounds included)" unit:"m"`
	TriangleIndices []int     `toml:"triangleIndices" doc:"0-based indices into the topology's triangles (the outward boundary of a tetrahedral mesh, in its order)" range:"[0,inf)"`
	Filename        string    `toml:"filename" doc:"a surface file (.stl, .obj, .msh, ... as MeshLoader; relative to the scene file) whose triangles are the loaded ones: each must match a topology triangle, vertex by vertex within 1e-6 of the mesh size (any order or orientation: the topology's orientation is used)"`
}

// checkSurface checks that at most one selection is given and the box is
// well formed.
func (s *SurfaceSelection) checkSurface() error {
	given := 0
	for _, g := range []bool{len(s.Box) > 0, len(s.TriangleIndices) > 0, s.Filename != ""} {
		if g {
			given++
		}
	}
	if given > 1 {
		return fmt.Errorf("give at most one of box, triangleIndices and filename")
	}
	if len(s.Box) > 0 {
		if len(s.Box) != 6 {
			return fmt.Errorf("box has %d numbers, want 6: [xmin, ymin, zmin, xmax, ymax, zmax]", len(s.Box))
		}
		for a := 0; a < 3; a++ {
			if s.Box[a] > s.Box[a+3] {
				return fmt.Errorf("box min[%d] = %g is greater than max[%d] = %g", a, s.Box[a], a, s.Box[a+3])
			}
		}
	}
	return nil
}

// selectTriangles resolves the selection on the topology of the node of b
// for the Vec3 state st: the selected triangles (with the topology's
// orientation), or an error when nothing is selected or the topology does
// not fit the state.
func (s *SurfaceSelection) selectTriangles(b *graph.ObjectBase, st graph.State) ([][3]int, error) {
	if err := s.checkSurface(); err != nil {
		return nil, err
	}
	topo := b.Node.Topology()
	if topo == nil {
		return nil, fmt.Errorf("needs a topology with triangles in its node or above (a tetrahedral mesh's boundary, or a surface mesh)")
	}
	tris := topo.Triangles()
	if len(tris) == 0 {
		return nil, fmt.Errorf("topology %q has no triangles", topo.Base().Name)
	}
	n := st.Size()
	for _, t := range tris {
		for _, v := range t {
			if v >= n {
				return nil, fmt.Errorf("topology %q has a triangle on vertex %d, but state %q has %d points: put the load in the node of the state the topology describes", topo.Base().Name, v, st.Base().Name, n)
			}
		}
	}
	rest := st.Vec(graph.RestPosition)
	var out [][3]int
	switch {
	case len(s.TriangleIndices) > 0:
		seen := map[int]bool{}
		for _, k := range s.TriangleIndices {
			if k < 0 || k >= len(tris) {
				return nil, fmt.Errorf("triangle index %d is out of range: topology %q has %d triangles (indices are 0-based)", k, topo.Base().Name, len(tris))
			}
			if seen[k] {
				return nil, fmt.Errorf("triangle index %d appears twice in triangleIndices", k)
			}
			seen[k] = true
			out = append(out, tris[k])
		}
	case len(s.Box) > 0:
		in := func(v int) bool {
			p := rest[3*v:]
			return p[0] >= s.Box[0] && p[0] <= s.Box[3] && p[1] >= s.Box[1] && p[1] <= s.Box[4] && p[2] >= s.Box[2] && p[2] <= s.Box[5]
		}
		for _, t := range tris {
			if in(t[0]) && in(t[1]) && in(t[2]) {
				out = append(out, t)
			}
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("box %v contains no triangle of topology %q (all three vertices inside): it selects nothing", s.Box, topo.Base().Name)
		}
	case s.Filename != "":
		var err error
		if out, err = s.matchFile(b, tris, rest); err != nil {
			return nil, err
		}
	default:
		out = append(out, tris...)
	}
	return out, nil
}

// matchFile reads the surface file and returns the topology triangles its
// triangles match.
func (s *SurfaceSelection) matchFile(b *graph.ObjectBase, tris [][3]int, rest []float64) ([][3]int, error) {
	path := s.Filename
	if b.Node != nil && b.Node.Scene() != nil {
		path = b.Node.Scene().ResolvePath(s.Filename)
	}
	m, err := meshio.Read(path)
	if err != nil {
		return nil, err
	}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(m.Triangles) == 0 {
		return nil, fmt.Errorf("%s: the file has no triangles", path)
	}
	// Tolerance: 1e-6 of the rest mesh's bounding-box diagonal.
	lo := [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi := [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for i := 0; i < len(rest); i += 3 {
		for a := 0; a < 3; a++ {
			lo[a], hi[a] = min(lo[a], rest[i+a]), max(hi[a], rest[i+a])
		}
	}
	tol := 1e-6 * math.Sqrt((hi[0]-lo[0])*(hi[0]-lo[0])+(hi[1]-lo[1])*(hi[1]-lo[1])+(hi[2]-lo[2])*(hi[2]-lo[2]))
	// Rest points sorted by x, to find a file point's vertex by a window.
	np := len(rest) / 3
	order := make([]int, np)
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, c int) bool { return rest[3*order[a]] < rest[3*order[c]] })
	xs := make([]float64, np)
	for k, i := range order {
		xs[k] = rest[3*i]
	}
	vertexOf := make([]int, m.NumPoints())
	for p := range vertexOf {
		q := m.Points[3*p : 3*p+3]
		best, bestD := -1, tol
		for k := sort.SearchFloat64s(xs, q[0]-tol); k < np && xs[k] <= q[0]+tol; k++ {
			i := order[k]
			d := math.Max(math.Abs(rest[3*i]-q[0]), math.Max(math.Abs(rest[3*i+1]-q[1]), math.Abs(rest[3*i+2]-q[2])))
			if d <= bestD {
				best, bestD = i, d
			}
		}
		vertexOf[p] = best
	}
	byKey := make(map[[3]int]int, len(tris))
	for k, t := range tris {
		byKey[sortedTri(t)] = k
	}
	var out [][3]int
	used := map[int]bool{}
	for e, t := range m.Triangles {
		var v [3]int
		for j := range t {
			if v[j] = vertexOf[t[j]]; v[j] < 0 {
				q := m.Points[3*t[j] : 3*t[j]+3]
				return nil, fmt.Errorf("%s: triangle %d: its vertex (%g, %g, %g) is no rest point of the state (tolerance %.3g)", path, e, q[0], q[1], q[2], tol)
			}
		}
		k, ok := byKey[sortedTri(v)]
		if !ok {
			return nil, fmt.Errorf("%s: triangle %d (vertices %v of the state) is not a triangle of the topology (the boundary of the mesh)", path, e, v)
		}
		if !used[k] {
			used[k] = true
			out = append(out, tris[k])
		}
	}
	return out, nil
}

func sortedTri(t [3]int) [3]int {
	s := t
	slices.Sort(s[:])
	return s
}
