package polyfem

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/sofago/sofago/atomicfile"
)

// The polyhedral mesh file format (extension .polyhedra), plain text:
//
//	# comments run from '#' to the end of the line; blank lines are skipped
//	sofago-polyhedra 1
//	points N
//	x y z                      (N lines: the points, numbered from 0)
//	cells M
//	F                          (for each of the M cells: its number of faces,
//	k v0 v1 … v(k−1)            then F lines, each a face: its vertex count
//	…                           and its vertices, counter-clockwise seen
//	                            from outside the cell)
//
// Every cell must be a closed, convex polyhedron with planar faces
// (Mesh.Validate); errors name the file and line.

// ReadPolyhedra reads a .polyhedra file.
func ReadPolyhedra(path string) (*Mesh, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParsePolyhedra(path, data)
}

// ParsePolyhedra parses the text of a .polyhedra file (file names it in
// errors) and validates the mesh.
func ParsePolyhedra(file string, data []byte) (*Mesh, error) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	line := 0
	next := func(what string) ([]string, error) {
		for sc.Scan() {
			line++
			t := sc.Text()
			if i := strings.IndexByte(t, '#'); i >= 0 {
				t = t[:i]
			}
			if f := strings.Fields(t); len(f) > 0 {
				return f, nil
			}
		}
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", file, line, err)
		}
		return nil, fmt.Errorf("%s:%d: unexpected end of file: expected %s", file, line, what)
	}
	errorf := func(format string, args ...any) error {
		return fmt.Errorf("%s:%d: %s", file, line, fmt.Sprintf(format, args...))
	}
	count := func(f []string, key string) (int, error) {
		if len(f) != 2 || f[0] != key {
			return 0, errorf("expected %q followed by a count, found %q", key, strings.Join(f, " "))
		}
		n, err := strconv.Atoi(f[1])
		if err != nil || n < 0 {
			return 0, errorf("%s count %q is not a non-negative integer", key, f[1])
		}
		return n, nil
	}
	f, err := next("the header")
	if err != nil {
		return nil, err
	}
	if len(f) != 2 || f[0] != "sofago-polyhedra" || f[1] != "1" {
		return nil, errorf("expected the header \"sofago-polyhedra 1\", found %q", strings.Join(f, " "))
	}
	if f, err = next("points N"); err != nil {
		return nil, err
	}
	np, err := count(f, "points")
	if err != nil {
		return nil, err
	}
	m := &Mesh{Points: make([]float64, 0, 3*np)}
	for i := 0; i < np; i++ {
		if f, err = next(fmt.Sprintf("point %d of %d", i, np)); err != nil {
			return nil, err
		}
		if len(f) != 3 {
			return nil, errorf("point %d: expected 3 coordinates, found %d fields", i, len(f))
		}
		for a, s := range f {
			x, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return nil, errorf("point %d coordinate %d: %q is not a number", i, a, s)
			}
			m.Points = append(m.Points, x)
		}
	}
	if f, err = next("cells M"); err != nil {
		return nil, err
	}
	nc, err := count(f, "cells")
	if err != nil {
		return nil, err
	}
	atoi := func(s, what string) (int, error) {
		v, err := strconv.Atoi(s)
		if err != nil {
			return 0, errorf("%s: %q is not an integer", what, s)
		}
		return v, nil
	}
	for c := 0; c < nc; c++ {
		if f, err = next(fmt.Sprintf("the face count of cell %d", c)); err != nil {
			return nil, err
		}
		if len(f) != 1 {
			return nil, errorf("cell %d: expected its face count alone on the line, found %d fields", c, len(f))
		}
		nf, err := atoi(f[0], fmt.Sprintf("cell %d face count", c))
		if err != nil {
			return nil, err
		}
		if nf < 4 {
			return nil, errorf("cell %d has %d faces: a polyhedron has at least 4", c, nf)
		}
		var cell Cell
		for k := 0; k < nf; k++ {
			if f, err = next(fmt.Sprintf("face %d of cell %d", k, c)); err != nil {
				return nil, err
			}
			nv, err := atoi(f[0], fmt.Sprintf("cell %d face %d vertex count", c, k))
			if err != nil {
				return nil, err
			}
			if nv < 3 || len(f) != 1+nv {
				return nil, errorf("cell %d face %d: vertex count %d, then %d vertices (a face has at least 3)", c, k, nv, len(f)-1)
			}
			face := make([]int, nv)
			for i := range face {
				if face[i], err = atoi(f[1+i], fmt.Sprintf("cell %d face %d vertex %d", c, k, i)); err != nil {
					return nil, err
				}
				if face[i] < 0 || face[i] >= np {
					return nil, errorf("cell %d face %d: vertex %d out of range [0, %d)", c, k, face[i], np)
				}
			}
			cell.Faces = append(cell.Faces, face)
		}
		m.Cells = append(m.Cells, cell)
		if err := m.checkCell(len(m.Cells) - 1); err != nil {
			return nil, errorf("cell %d: %v", c, err)
		}
	}
	if f, err := next("the end"); err == nil {
		return nil, errorf("unexpected %q after the %d cells", strings.Join(f, " "), nc)
	}
	return m, nil
}

// WritePolyhedra writes m as a .polyhedra file, atomically.
func WritePolyhedra(path string, m *Mesh) error {
	return atomicfile.Write(path, false, func(w io.Writer) error { return EncodePolyhedra(w, m) })
}

// EncodePolyhedra writes m in the .polyhedra format; numbers in the
// shortest form that reads back exactly.
func EncodePolyhedra(w io.Writer, m *Mesh) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "sofago-polyhedra 1\npoints %d\n", m.NumPoints())
	for i := 0; i < m.NumPoints(); i++ {
		fmt.Fprintf(bw, "%s %s %s\n", strconv.FormatFloat(m.Points[3*i], 'g', -1, 64), strconv.FormatFloat(m.Points[3*i+1], 'g', -1, 64), strconv.FormatFloat(m.Points[3*i+2], 'g', -1, 64))
	}
	fmt.Fprintf(bw, "cells %d\n", len(m.Cells))
	for _, c := range m.Cells {
		fmt.Fprintf(bw, "%d\n", len(c.Faces))
		for _, f := range c.Faces {
			fmt.Fprintf(bw, "%d", len(f))
			for _, v := range f {
				fmt.Fprintf(bw, " %d", v)
			}
			fmt.Fprintln(bw)
		}
	}
	return bw.Flush()
}
