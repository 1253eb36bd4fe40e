package meshio

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// TetGen files (https://wias-berlin.de/software/tetgen/fformats.html): a
// .node file of points, a .ele file of tetrahedra and an optional .face
// file of triangles, sharing a base name. Points are numbered consecutively
// from 0 or from 1; the first point's number fixes the base for every
// index of the three files. Point attributes, boundary markers and region
// attributes are read past and dropped. Second-order tetrahedra (10 nodes
// per element) are an error. '#' starts a comment anywhere on a line.

// ReadTetGen reads the TetGen mesh whose .node or .ele file is path: base.node
// and base.ele must exist; base.face is read when it exists.
func ReadTetGen(path string) (*Mesh, error) {
	base := strings.TrimSuffix(path, filepath.Ext(path))
	nodeFile, eleFile, faceFile := base+".node", base+".ele", base+".face"
	node, err := readFile(nodeFile)
	if err != nil {
		return nil, err
	}
	ele, err := readFile(eleFile)
	if err != nil {
		return nil, err
	}
	face, err := os.ReadFile(faceFile)
	if errors.Is(err, fs.ErrNotExist) {
		face, err = nil, nil
	}
	if err != nil {
		return nil, &Error{File: faceFile, Err: err}
	}
	m, err := ParseTetGen(nodeFile, node, eleFile, ele, faceFile, face)
	if m != nil {
		m.Name = base
	}
	return m, err
}

// tetgenLines yields the non-empty lines of a TetGen file with comments removed.
type tetgenLines struct{ *lineReader }

// fields returns the fields of the next non-blank line (commas count as
// spaces), or an end-of-file error naming what was expected.
func (r tetgenLines) fields(what string) ([]string, error) {
	for {
		line, ok := r.next()
		if !ok {
			return nil, r.eofError("expected " + what)
		}
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		if f := strings.Fields(strings.ReplaceAll(line, ",", " ")); len(f) > 0 {
			return f, nil
		}
	}
}

// ints parses every field as an integer.
func (r tetgenLines) ints(f []string, what string) ([]int, error) {
	v := make([]int, len(f))
	for i, s := range f {
		x, err := parseInt(s, what)
		if err != nil {
			return nil, r.errorf("%w", err)
		}
		v[i] = x
	}
	return v, nil
}

// flag checks a 0/1 header flag.
func (r tetgenLines) flag(v int, what string) error {
	if v != 0 && v != 1 {
		return r.errorf("%s = %d: expected 0 or 1", what, v)
	}
	return nil
}

// ParseTetGen parses the text of TetGen .node and .ele files and, when face
// is not nil, of a .face file; the file names are used in errors.
func ParseTetGen(nodeFile string, node []byte, eleFile string, ele []byte, faceFile string, face []byte) (*Mesh, error) {
	m := &Mesh{Name: nodeFile}
	// .node
	r := tetgenLines{newLineReader(nodeFile, node)}
	f, err := r.fields("the header \"<#points> <dimension> <#attributes> <#boundary markers>\"")
	if err != nil {
		return nil, err
	}
	if len(f) != 4 {
		return nil, r.errorf("header: expected \"<#points> <dimension> <#attributes> <boundary markers 0|1>\", found %d fields", len(f))
	}
	h, err := r.ints(f, "header field")
	if err != nil {
		return nil, err
	}
	n, dim, nattr, bmark := h[0], h[1], h[2], h[3]
	switch {
	case n < 0:
		return nil, r.errorf("number of points %d is negative", n)
	case dim != 3:
		return nil, r.errorf("dimension %d: only 3-D meshes are read", dim)
	case nattr < 0 || nattr > 1<<16:
		return nil, r.errorf("number of attributes %d is out of range", nattr)
	}
	if err := r.flag(bmark, "boundary markers"); err != nil {
		return nil, err
	}
	base := 0
	m.Points = make([]float64, 0, 3*capHint(n, r.remaining(), 8))
	for i := 0; i < n; i++ {
		f, err := r.fields(fmt.Sprintf("point %d of %d", i+1, n))
		if err != nil {
			return nil, err
		}
		if want := 4 + nattr + bmark; len(f) != want {
			return nil, r.errorf("point line: expected %d fields (number, x, y, z, %d attributes, %d markers), found %d", want, nattr, bmark, len(f))
		}
		idx, err := parseInt(f[0], "point number")
		if err != nil {
			return nil, r.errorf("%w", err)
		}
		if i == 0 {
			if idx != 0 && idx != 1 {
				return nil, r.errorf("the first point is numbered %d: TetGen numbers points from 0 or 1", idx)
			}
			base = idx
		} else if idx != base+i {
			return nil, r.errorf("point numbered %d, expected %d (points must be numbered consecutively)", idx, base+i)
		}
		for a := 0; a < 3; a++ {
			c, err := parseCoord(f[1+a], "coordinate "+"xyz"[a:a+1])
			if err != nil {
				return nil, r.errorf("point %d: %w", idx, err)
			}
			m.Points = append(m.Points, c)
		}
	}
	if f, err := r.fields("nothing"); err == nil {
		return nil, r.errorf("unexpected %q after the %d points of the header (wrong count?)", clip(strings.Join(f, " ")), n)
	}

	// .ele
	r = tetgenLines{newLineReader(eleFile, ele)}
	f, err = r.fields("the header \"<#tetrahedra> <nodes per tetrahedron> <#attributes>\"")
	if err != nil {
		return nil, err
	}
	if len(f) != 3 {
		return nil, r.errorf("header: expected \"<#tetrahedra> <nodes per tetrahedron> <region attribute 0|1>\", found %d fields", len(f))
	}
	if h, err = r.ints(f, "header field"); err != nil {
		return nil, err
	}
	ne, npt, region := h[0], h[1], h[2]
	switch {
	case ne < 0:
		return nil, r.errorf("number of tetrahedra %d is negative", ne)
	case npt == 10:
		return nil, r.unsupportedf("second-order (10-node) tetrahedra not supported")
	case npt != 4:
		return nil, r.errorf("%d nodes per tetrahedron: expected 4", npt)
	}
	if err := r.flag(region, "region attribute"); err != nil {
		return nil, err
	}
	m.Tetrahedra = make([][4]int, 0, capHint(ne, r.remaining(), 10))
	var t [4]int
	for e := 0; e < ne; e++ {
		f, err := r.fields(fmt.Sprintf("tetrahedron %d of %d", e+1, ne))
		if err != nil {
			return nil, err
		}
		if want := 5 + region; len(f) != want {
			return nil, r.errorf("tetrahedron line: expected %d fields, found %d", want, len(f))
		}
		if err := tetgenCell(r, f[1:5], t[:], base, n); err != nil {
			return nil, err
		}
		m.Tetrahedra = append(m.Tetrahedra, t)
	}
	if f, err := r.fields("nothing"); err == nil {
		return nil, r.errorf("unexpected %q after the %d tetrahedra of the header (wrong count?)", clip(strings.Join(f, " ")), ne)
	}

	if face == nil {
		return m, nil
	}
	// .face
	r = tetgenLines{newLineReader(faceFile, face)}
	f, err = r.fields("the header \"<#faces> <boundary markers 0|1>\"")
	if err != nil {
		return nil, err
	}
	if len(f) != 2 {
		return nil, r.errorf("header: expected \"<#faces> <boundary markers 0|1>\", found %d fields", len(f))
	}
	if h, err = r.ints(f, "header field"); err != nil {
		return nil, err
	}
	nf, fmark := h[0], h[1]
	if nf < 0 {
		return nil, r.errorf("number of faces %d is negative", nf)
	}
	if err := r.flag(fmark, "boundary markers"); err != nil {
		return nil, err
	}
	m.Triangles = make([][3]int, 0, capHint(nf, r.remaining(), 8))
	var tri [3]int
	for e := 0; e < nf; e++ {
		f, err := r.fields(fmt.Sprintf("face %d of %d", e+1, nf))
		if err != nil {
			return nil, err
		}
		if want := 4 + fmark; len(f) != want {
			return nil, r.errorf("face line: expected %d fields, found %d", want, len(f))
		}
		if err := tetgenCell(r, f[1:4], tri[:], base, n); err != nil {
			return nil, err
		}
		m.Triangles = append(m.Triangles, tri)
	}
	if f, err := r.fields("nothing"); err == nil {
		return nil, r.errorf("unexpected %q after the %d faces of the header (wrong count?)", clip(strings.Join(f, " ")), nf)
	}
	return m, nil
}

// tetgenCell parses the point numbers f into 0-based indices c.
func tetgenCell(r tetgenLines, f []string, c []int, base, n int) error {
	for k, s := range f {
		v, err := parseInt(s, "point number")
		if err != nil {
			return r.errorf("%w", err)
		}
		if v < base || v >= base+n {
			return r.errorf("point number %d out of range [%d, %d]", v, base, base+n-1)
		}
		c[k] = v - base
	}
	if err := checkCell(c, n); err != nil {
		return r.errorf("%w", err)
	}
	return nil
}

// WriteTetGen writes m as TetGen files base.node, base.ele and base.face
// (base is path without its extension), numbered from 1, each atomically.
// The .face file is written even when m has no triangles (with zero faces),
// so that an older .face beside it cannot be read back with the new mesh.
func WriteTetGen(path string, m *Mesh) error {
	if err := m.Validate(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	base := strings.TrimSuffix(path, filepath.Ext(path))
	if err := writeAtomic(base+".node", func(w io.Writer) error { return EncodeTetGenNode(w, m) }); err != nil {
		return err
	}
	if err := writeAtomic(base+".ele", func(w io.Writer) error { return EncodeTetGenEle(w, m) }); err != nil {
		return err
	}
	return writeAtomic(base+".face", func(w io.Writer) error { return EncodeTetGenFace(w, m) })
}

// EncodeTetGenNode writes the points of m as a TetGen .node file numbered from 1.
func EncodeTetGenNode(w io.Writer, m *Mesh) error {
	bw := newWriter(w)
	n := m.NumPoints()
	bw.printf("# sofago: %d points\n%d 3 0 0\n", n, n)
	for i := 0; i < n; i++ {
		bw.printf("%d %s %s %s\n", i+1, formatFloat(m.Points[3*i]), formatFloat(m.Points[3*i+1]), formatFloat(m.Points[3*i+2]))
	}
	return bw.flush()
}

// EncodeTetGenEle writes the tetrahedra of m as a TetGen .ele file numbered from 1.
func EncodeTetGenEle(w io.Writer, m *Mesh) error {
	bw := newWriter(w)
	bw.printf("# sofago: %d tetrahedra\n%d 4 0\n", len(m.Tetrahedra), len(m.Tetrahedra))
	for e, t := range m.Tetrahedra {
		bw.printf("%d %d %d %d %d\n", e+1, t[0]+1, t[1]+1, t[2]+1, t[3]+1)
	}
	return bw.flush()
}

// EncodeTetGenFace writes the triangles of m as a TetGen .face file numbered from 1.
func EncodeTetGenFace(w io.Writer, m *Mesh) error {
	bw := newWriter(w)
	bw.printf("# sofago: %d triangles\n%d 0\n", len(m.Triangles), len(m.Triangles))
	for e, t := range m.Triangles {
		bw.printf("%d %d %d %d\n", e+1, t[0]+1, t[1]+1, t[2]+1)
	}
	return bw.flush()
}
