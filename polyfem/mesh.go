package polyfem

import (
	"fmt"
	"math"
	"slices"

	"github.com/sofago/sofago/geom"
)

// Cell is a convex polyhedron: its faces, each a list of vertex indices
// counter-clockwise seen from outside (the right-hand normal points out),
// the vertices of a face on one plane. It has the layout of
// graph.Polyhedron, so the two convert into each other.
type Cell struct {
	Faces [][]int
}

// Vertices returns the distinct vertices of the cell in order of first
// appearance in its faces: the element's nodes, in the order of its shape
// functions.
func (c Cell) Vertices() []int {
	var out []int
	for _, f := range c.Faces {
		for _, v := range f {
			if !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
	}
	return out
}

// Mesh is a mesh of convex polyhedra over flat xyz points.
type Mesh struct {
	Points []float64
	Cells  []Cell
}

// NumPoints returns the number of points.
func (m *Mesh) NumPoints() int { return len(m.Points) / 3 }

// faceCentre returns the mean of the face's vertices.
func faceCentre(points []float64, f []int) geom.Vec3 {
	var c geom.Vec3
	for _, v := range f {
		c = c.Add(geom.At(points, v))
	}
	return c.Scale(1 / float64(len(f)))
}

// faceArea returns the area vector of the face (its outward normal times
// its area): half the sum of the cross products of the fan from the
// face's centre.
func faceArea(points []float64, f []int) geom.Vec3 {
	c := faceCentre(points, f)
	var a geom.Vec3
	for i := range f {
		p, q := geom.At(points, f[i]).Sub(c), geom.At(points, f[(i+1)%len(f)]).Sub(c)
		a = a.Add(p.Cross(q))
	}
	return a.Scale(0.5)
}

// CellCentre returns the mean of the cell's vertices (an interior point
// of a convex cell).
func (m *Mesh) CellCentre(e int) geom.Vec3 {
	vs := m.Cells[e].Vertices()
	var c geom.Vec3
	for _, v := range vs {
		c = c.Add(geom.At(m.Points, v))
	}
	return c.Scale(1 / float64(len(vs)))
}

// CellVolume returns the volume of cell e: the sum of the tetrahedra from
// its centre to the fan triangles of its faces (positive for outward
// faces).
func (m *Mesh) CellVolume(e int) float64 {
	c := m.CellCentre(e)
	v := 0.0
	for _, f := range m.Cells[e].Faces {
		fc := faceCentre(m.Points, f)
		for i := range f {
			p, q := geom.At(m.Points, f[i]), geom.At(m.Points, f[(i+1)%len(f)])
			v += p.Sub(c).Dot(q.Sub(c).Cross(fc.Sub(c))) / 6
		}
	}
	return v
}

// Validate checks every cell: indices in range, faces of at least three
// distinct vertices, every edge used by exactly two faces in opposite
// directions (a closed, consistently oriented surface), planar faces and
// convexity (every vertex of the cell on the inner side of every face
// plane, to 1e-9 of the cell's size), and a positive volume (outward
// faces). It names the first bad cell.
func (m *Mesh) Validate() error {
	if len(m.Points)%3 != 0 {
		return fmt.Errorf("%d point coordinates is not a whole number of xyz triples", len(m.Points))
	}
	for i, x := range m.Points {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("point %d: coordinate %d is %g", i/3, i%3, x)
		}
	}
	for e := range m.Cells {
		if err := m.checkCell(e); err != nil {
			return fmt.Errorf("cell %d: %w", e, err)
		}
	}
	return nil
}

func (m *Mesh) checkCell(e int) error {
	c := m.Cells[e]
	n := m.NumPoints()
	if len(c.Faces) < 4 {
		return fmt.Errorf("%d faces: a polyhedron has at least 4", len(c.Faces))
	}
	edges := map[[2]int]int{}
	for k, f := range c.Faces {
		if len(f) < 3 {
			return fmt.Errorf("face %d has %d vertices", k, len(f))
		}
		for i, v := range f {
			if v < 0 || v >= n {
				return fmt.Errorf("face %d: vertex index %d out of range [0, %d)", k, v, n)
			}
			if slices.Contains(f[:i], v) {
				return fmt.Errorf("face %d: vertex %d repeated", k, v)
			}
			edges[[2]int{v, f[(i+1)%len(f)]}]++
		}
	}
	for ed, cnt := range edges {
		if cnt != 1 || edges[[2]int{ed[1], ed[0]}] != 1 {
			return fmt.Errorf("edge %d–%d is used %d times in that direction and %d times reversed: the faces do not close a consistently oriented surface", ed[0], ed[1], cnt, edges[[2]int{ed[1], ed[0]}])
		}
	}
	vs := c.Vertices()
	size := 0.0
	for _, a := range vs {
		for _, b := range vs {
			size = math.Max(size, geom.At(m.Points, a).Sub(geom.At(m.Points, b)).Norm())
		}
	}
	tol := 1e-9 * size
	for k, f := range c.Faces {
		area := faceArea(m.Points, f)
		if area.Norm() <= 1e-12*size*size {
			return fmt.Errorf("face %d is degenerate (area %.3g)", k, area.Norm())
		}
		nrm := area.Normalized()
		fc := faceCentre(m.Points, f)
		for _, v := range f {
			if d := math.Abs(geom.At(m.Points, v).Sub(fc).Dot(nrm)); d > tol {
				return fmt.Errorf("face %d is not planar: vertex %d is %.3g off its plane", k, v, d)
			}
		}
		for _, v := range vs {
			if d := geom.At(m.Points, v).Sub(fc).Dot(nrm); d > tol {
				return fmt.Errorf("not convex (or face %d points inwards): vertex %d is %.3g outside the plane of face %d", k, v, d, k)
			}
		}
		// Convex faces: consecutive edges turn the same way as the normal.
		for i := range f {
			p0, p1, p2 := geom.At(m.Points, f[i]), geom.At(m.Points, f[(i+1)%len(f)]), geom.At(m.Points, f[(i+2)%len(f)])
			if p1.Sub(p0).Cross(p2.Sub(p1)).Dot(nrm) < -tol*size {
				return fmt.Errorf("face %d is not a convex polygon at vertex %d", k, f[(i+1)%len(f)])
			}
		}
	}
	if v := m.CellVolume(e); !(v > 0) {
		return fmt.Errorf("volume %.3g ≤ 0 (faces oriented inwards?)", v)
	}
	return nil
}

// BoundaryTriangles returns the faces used by exactly one cell,
// fan-triangulated from their first vertex, oriented outwards, in cell
// then face order.
func (m *Mesh) BoundaryTriangles() [][3]int {
	count := map[string]int{}
	key := func(f []int) string {
		s := slices.Clone(f)
		slices.Sort(s)
		return fmt.Sprint(s)
	}
	for _, c := range m.Cells {
		for _, f := range c.Faces {
			count[key(f)]++
		}
	}
	var out [][3]int
	for _, c := range m.Cells {
		for _, f := range c.Faces {
			if count[key(f)] == 1 {
				for i := 1; i+1 < len(f); i++ {
					out = append(out, [3]int{f[0], f[i], f[i+1]})
				}
			}
		}
	}
	return out
}
