package meshio

import (
	"errors"
	"fmt"
	"math"

	"github.com/sofago/sofago/geom"
)

// Mesh is a tetrahedral, hexahedral and/or triangle mesh with 0-based
// vertex indices.
type Mesh struct {
	// Name is a label for messages (e.g. the file it came from); it may be empty.
	Name string
	// Points holds the vertex coordinates, flat: x0 y0 z0 x1 y1 z1 ...
	Points []float64
	// Tetrahedra are 4 vertex indices each. A positive tetrahedron
	// (a, b, c, d) has det[b−a, c−a, d−a] > 0.
	Tetrahedra [][4]int
	// Hexahedra are trilinear 8-node bricks in VTK's and Gmsh's corner
	// order (the same in both): 0–3 the bottom face, 4–7 the top face,
	// counter-clockwise seen from the top, corner 4+i above corner i. A
	// positive hexahedron has a positive volume (geom.HexVolume).
	Hexahedra [][8]int
	// Triangles are 3 vertex indices each (surface facets: a surface mesh's
	// triangles, or boundary faces stored in a volume-mesh file).
	Triangles [][3]int
}

// NumPoints returns the number of vertices.
func (m *Mesh) NumPoints() int { return len(m.Points) / 3 }

// Validate checks the structure of the mesh: the point array holds whole
// xyz triples of finite numbers, every cell index is in range, and no cell
// repeats a vertex. It does not check geometry: flat or inverted tetrahedra
// are legal here (Orient fixes inverted ones; degenerate ones are reported by
// the force fields that would divide by their volume).
func (m *Mesh) Validate() error {
	if len(m.Points)%3 != 0 {
		return fmt.Errorf("%d point coordinates is not a whole number of xyz triples", len(m.Points))
	}
	for i, c := range m.Points {
		if math.IsNaN(c) || math.IsInf(c, 0) {
			return fmt.Errorf("point %d: coordinate %d is %g", i/3, i%3, c)
		}
	}
	n := m.NumPoints()
	for e, t := range m.Tetrahedra {
		if err := checkCell(t[:], n); err != nil {
			return fmt.Errorf("tetrahedron %d %v: %w", e, t, err)
		}
	}
	for e, h := range m.Hexahedra {
		if err := checkCell(h[:], n); err != nil {
			return fmt.Errorf("hexahedron %d %v: %w", e, h, err)
		}
	}
	for e, t := range m.Triangles {
		if err := checkCell(t[:], n); err != nil {
			return fmt.Errorf("triangle %d %v: %w", e, t, err)
		}
	}
	return nil
}

// checkCell checks that the indices of one cell are in [0, n) and distinct.
func checkCell(c []int, n int) error {
	for i, v := range c {
		if v < 0 || v >= n {
			return fmt.Errorf("vertex index %d out of range [0, %d)", v, n)
		}
		for _, w := range c[:i] {
			if w == v {
				return fmt.Errorf("vertex %d repeated", v)
			}
		}
	}
	return nil
}

// TetVolume returns the signed volume of tetrahedron e,
// det[b−a, c−a, d−a]/6.
func (m *Mesh) TetVolume(e int) float64 {
	t := m.Tetrahedra[e]
	p := func(i int) [3]float64 { return [3]float64{m.Points[3*i], m.Points[3*i+1], m.Points[3*i+2]} }
	a, b, c, d := p(t[0]), p(t[1]), p(t[2]), p(t[3])
	u := [3]float64{b[0] - a[0], b[1] - a[1], b[2] - a[2]}
	v := [3]float64{c[0] - a[0], c[1] - a[1], c[2] - a[2]}
	w := [3]float64{d[0] - a[0], d[1] - a[1], d[2] - a[2]}
	return (u[0]*(v[1]*w[2]-v[2]*w[1]) - u[1]*(v[0]*w[2]-v[2]*w[0]) + u[2]*(v[0]*w[1]-v[1]*w[0])) / 6
}

// Orient makes every tetrahedron positively oriented: a tetrahedron with
// negative signed volume has its last two vertices swapped (t[2] ↔ t[3]),
// which flips the sign and keeps the same four vertices. Tetrahedra of zero
// volume are left as they are (the force fields report them). Gmsh, VTK,
// TetGen and Vega all write positive tetrahedra in this convention (checked
// on their files in testdata/external), so Orient matters for meshes of
// other origins, hand-edited ones and after a mirroring transform (a
// negative scale); loaders call it rather than trusting the file. It
// returns the number of tetrahedra it flipped. The mesh must be valid
// (Validate).
func (m *Mesh) Orient() (flipped int) {
	for e := range m.Tetrahedra {
		if m.TetVolume(e) < 0 {
			t := &m.Tetrahedra[e]
			t[2], t[3] = t[3], t[2]
			flipped++
		}
	}
	return flipped
}

// HexVolume returns the signed volume of hexahedron e (geom.HexVolume).
func (m *Mesh) HexVolume(e int) float64 { return geom.HexVolume(m.Points, m.Hexahedra[e]) }

// OrientHexahedra makes every hexahedron positively oriented: one of
// negative volume (its corners listed clockwise, or mirrored by a
// transform) is reflected by swapping corners 1 ↔ 3 and 5 ↔ 7, which
// keeps corner 0 and the bottom/top pairing. It returns the number
// flipped. The mesh must be valid (Validate).
func (m *Mesh) OrientHexahedra() (flipped int) {
	for e := range m.Hexahedra {
		if m.HexVolume(e) < 0 {
			h := &m.Hexahedra[e]
			h[1], h[3] = h[3], h[1]
			h[5], h[7] = h[7], h[5]
			flipped++
		}
	}
	return flipped
}

// Error is a malformed-file error from a reader: the file, the 1-based line
// where the problem is (0 when no single line is at fault, e.g. a missing
// section or an unreadable file), and the cause.
type Error struct {
	File string
	Line int
	Err  error
}

// Error formats as "file:line: message" (or "file: message" without a line).
func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.File, e.Err)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// errorAt returns an *Error at file:line with a formatted message.
func errorAt(file string, line int, format string, args ...any) error {
	return &Error{File: file, Line: line, Err: fmt.Errorf(format, args...)}
}

// ErrUnsupported matches (errors.Is) the errors for formats or variants
// this package does not handle: binary .msh, element types other than
// linear tetrahedra and triangles, unknown extensions, ...
var ErrUnsupported = errors.New("unsupported")

// unsupportedError is a message that matches ErrUnsupported without
// repeating the word in the text.
type unsupportedError struct{ msg string }

func (e unsupportedError) Error() string        { return e.msg }
func (e unsupportedError) Is(target error) bool { return target == ErrUnsupported }

// unsupportedf returns a formatted error that matches ErrUnsupported.
func unsupportedf(format string, args ...any) error {
	return unsupportedError{fmt.Sprintf(format, args...)}
}
