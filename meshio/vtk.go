package meshio

import (
	"fmt"
	"io"
	"strings"
)

// Legacy VTK files (https://vtk.org/wp-content/uploads/2015/04/file-formats.pdf),
// ASCII, DATASET UNSTRUCTURED_GRID: POINTS, then CELLS in either the classic
// layout ("CELLS n size", each cell "k i0 ... ik-1") or the VTK 5.1 layout
// ("CELLS nOffsets nConnectivity", then OFFSETS and CONNECTIVITY arrays),
// then CELL_TYPES. Cell type 10 (VTK_TETRA) becomes a tetrahedron, 12
// (VTK_HEXAHEDRON) a hexahedron and 5 (VTK_TRIANGLE) a triangle; vertices and lines (types 1–4) are skipped;
// any other cell type is an error. Keywords are case-insensitive, numbers
// may wrap lines freely; METADATA and FIELD blocks are skipped, and
// everything from POINT_DATA or CELL_DATA on is ignored.

// VTK cell types read or skipped.
const (
	vtkVertex     = 1
	vtkPolyVertex = 2
	vtkLine       = 3
	vtkPolyLine   = 4
	vtkTriangle   = 5
	vtkTetra      = 10
	vtkHexahedron = 12
)

// ReadVTK reads a legacy ASCII VTK unstructured grid.
func ReadVTK(path string) (*Mesh, error) {
	data, err := readFile(path)
	if err != nil {
		return nil, err
	}
	return ParseVTK(path, data)
}

// tokenReader splits the lines of a lineReader into whitespace-separated
// tokens, keeping the line of each.
type tokenReader struct {
	*lineReader
	fields []string
	i      int
}

// token returns the next token, crossing lines; false at the end of data.
func (t *tokenReader) token() (string, bool) {
	for t.i >= len(t.fields) {
		line, ok := t.next()
		if !ok {
			return "", false
		}
		t.fields, t.i = strings.Fields(line), 0
	}
	t.i++
	return t.fields[t.i-1], true
}

// need returns the next token or an end-of-file error saying what was expected.
func (t *tokenReader) need(what string) (string, error) {
	s, ok := t.token()
	if !ok {
		return "", t.eofError("expected " + what)
	}
	return s, nil
}

// int reads an integer token.
func (t *tokenReader) int(what string) (int, error) {
	s, err := t.need(what)
	if err != nil {
		return 0, err
	}
	v, err := parseInt(s, what)
	if err != nil {
		return 0, t.errorf("%w", err)
	}
	return v, nil
}

// count reads a non-negative integer token.
func (t *tokenReader) count(what string) (int, error) {
	v, err := t.int(what)
	if err == nil && v < 0 {
		return 0, t.errorf("%s: %d is negative", what, v)
	}
	return v, err
}

// unread steps back one token; valid only right after a successful token.
func (t *tokenReader) unread() { t.i-- }

// dropLine discards the rest of the current line.
func (t *tokenReader) dropLine() { t.fields, t.i = nil, 0 }

// vtkCells holds the cells as read, before their types are known.
type vtkCells struct {
	offsets []int // cell c is conn[offsets[c]:offsets[c+1]]
	conn    []int
	lines   []int // line where cell c starts
}

// ParseVTK parses the text of a legacy ASCII VTK unstructured grid; file
// names it in errors.
func ParseVTK(file string, data []byte) (*Mesh, error) {
	t := &tokenReader{lineReader: newLineReader(file, data)}
	line, ok := t.next()
	if !ok || !strings.HasPrefix(strings.ToLower(strings.TrimSpace(line)), "# vtk datafile") {
		return nil, errorAt(file, 1, "not a legacy VTK file: the first line must be \"# vtk DataFile Version x.y\"")
	}
	if _, ok := t.next(); !ok {
		return nil, t.eofError("expected the title line")
	}
	format, err := t.need("ASCII or BINARY")
	if err != nil {
		return nil, err
	}
	switch strings.ToUpper(format) {
	case "ASCII":
	case "BINARY":
		return nil, t.unsupportedf("binary VTK not supported, save as ASCII")
	default:
		return nil, t.errorf("expected ASCII or BINARY, found %q", clip(format))
	}
	if kw, err := t.need("DATASET"); err != nil {
		return nil, err
	} else if !strings.EqualFold(kw, "DATASET") {
		return nil, t.errorf("expected DATASET, found %q", clip(kw))
	}
	if kind, err := t.need("the dataset type"); err != nil {
		return nil, err
	} else if !strings.EqualFold(kind, "UNSTRUCTURED_GRID") {
		return nil, t.unsupportedf("DATASET %s not supported: only UNSTRUCTURED_GRID", clip(kind))
	}

	m := &Mesh{Name: file}
	var cells *vtkCells
	var types []int
	var typeLines []int // line of each cell type
	seen := map[string]int{}
loop:
	for {
		kw, ok := t.token()
		if !ok {
			break
		}
		KW := strings.ToUpper(kw)
		if at, dup := seen[KW]; dup && KW != "METADATA" && KW != "FIELD" {
			return nil, t.errorf("second %s section (the first is at line %d)", KW, at)
		}
		seen[KW] = t.line
		switch KW {
		case "POINTS":
			if err := vtkPoints(t, m); err != nil {
				return nil, err
			}
		case "CELLS":
			if m.Points == nil {
				return nil, t.errorf("CELLS before POINTS")
			}
			if cells, err = vtkReadCells(t, m.NumPoints()); err != nil {
				return nil, err
			}
		case "CELL_TYPES":
			if cells == nil {
				return nil, t.errorf("CELL_TYPES before CELLS")
			}
			n, err := t.count("number of cell types")
			if err != nil {
				return nil, err
			}
			if nc := len(cells.offsets) - 1; n != nc {
				return nil, t.errorf("CELL_TYPES has %d entries, CELLS has %d cells", n, nc)
			}
			types, typeLines = make([]int, n), make([]int, n)
			for i := range types {
				if types[i], err = t.int("cell type"); err != nil {
					return nil, err
				}
				typeLines[i] = t.line
			}
		case "METADATA":
			// Skip to the next blank line, which ends a METADATA block.
			t.dropLine()
			for {
				line, ok := t.next()
				if !ok || strings.TrimSpace(line) == "" {
					break
				}
			}
		case "FIELD":
			if err := vtkSkipField(t); err != nil {
				return nil, err
			}
		case "POINT_DATA", "CELL_DATA":
			break loop
		default:
			return nil, t.errorf("unknown keyword %q (expected POINTS, CELLS, CELL_TYPES, POINT_DATA or CELL_DATA)", clip(kw))
		}
	}
	switch {
	case m.Points == nil:
		return nil, errorAt(file, t.line, "no POINTS section")
	case cells == nil:
		return nil, errorAt(file, t.line, "no CELLS section")
	case types == nil:
		return nil, errorAt(file, t.line, "no CELL_TYPES section")
	}
	for c, typ := range types {
		v := cells.conn[cells.offsets[c]:cells.offsets[c+1]]
		want := 0
		switch typ {
		case vtkTetra:
			want = 4
		case vtkHexahedron:
			want = 8
		case vtkTriangle:
			want = 3
		case vtkVertex, vtkPolyVertex, vtkLine, vtkPolyLine:
			continue
		default:
			return nil, &Error{File: file, Line: typeLines[c], Err: unsupportedf("cell %d: cell type %d not supported: only tetrahedra (10), hexahedra (12) and triangles (5) are read", c, typ)}
		}
		if len(v) != want {
			return nil, errorAt(file, cells.lines[c], "cell %d of type %d has %d points, expected %d", c, typ, len(v), want)
		}
		if err := checkCell(v, m.NumPoints()); err != nil {
			return nil, errorAt(file, cells.lines[c], "cell %d: %w", c, err)
		}
		m.addCell(v)
	}
	return m, nil
}

// vtkPoints reads "POINTS n type" and its 3n coordinates.
func vtkPoints(t *tokenReader, m *Mesh) error {
	n, err := t.count("number of points")
	if err != nil {
		return err
	}
	typ, err := t.need("the data type of POINTS")
	if err != nil {
		return err
	}
	switch strings.ToLower(typ) {
	case "float", "double", "int", "long", "short", "vtktypeint64", "vtktypeint32", "vtktypefloat32", "vtktypefloat64":
	default:
		return t.errorf("POINTS data type %q not supported", clip(typ))
	}
	m.Points = make([]float64, 0, capHint(3*n, t.remaining(), 2))
	for i := 0; i < 3*n; i++ {
		s, err := t.need(fmt.Sprintf("coordinate %d of point %d (of %d)", i%3, i/3, n))
		if err != nil {
			return err
		}
		c, err := parseCoord(s, fmt.Sprintf("point %d", i/3))
		if err != nil {
			return t.errorf("%w", err)
		}
		m.Points = append(m.Points, c)
	}
	return nil
}

// vtkReadCells reads the CELLS section in the classic or the 5.1 layout.
func vtkReadCells(t *tokenReader, npoints int) (*vtkCells, error) {
	a, err := t.count("number of cells")
	if err != nil {
		return nil, err
	}
	b, err := t.count("size of the cell list")
	if err != nil {
		return nil, err
	}
	headerLine := t.line
	c := &vtkCells{}
	// The 5.1 layout follows with the OFFSETS keyword; the classic one with a
	// number.
	first, err := t.need("the cell list or OFFSETS")
	if err != nil {
		return nil, err
	}
	if strings.EqualFold(first, "OFFSETS") {
		if _, err := t.need("the OFFSETS data type"); err != nil {
			return nil, err
		}
		if a < 1 {
			return nil, errorAt(t.file, headerLine, "CELLS %d %d: the 5.1 layout needs at least one offset", a, b)
		}
		c.offsets = make([]int, 0, capHint(a, t.remaining(), 2))
		for i := 0; i < a; i++ {
			o, err := t.int("an offset")
			if err != nil {
				return nil, err
			}
			switch {
			case i == 0 && o != 0:
				return nil, t.errorf("the first offset is %d, expected 0", o)
			case i > 0 && o < c.offsets[i-1]:
				return nil, t.errorf("offset %d = %d is smaller than the previous one", i, o)
			case o > b:
				return nil, t.errorf("offset %d = %d exceeds the connectivity size %d", i, o, b)
			}
			c.offsets = append(c.offsets, o)
		}
		if last := c.offsets[a-1]; last != b {
			return nil, t.errorf("the last offset is %d, the connectivity size %d", last, b)
		}
		if kw, err := t.need("CONNECTIVITY"); err != nil {
			return nil, err
		} else if !strings.EqualFold(kw, "CONNECTIVITY") {
			return nil, t.errorf("expected CONNECTIVITY, found %q", clip(kw))
		}
		if _, err := t.need("the CONNECTIVITY data type"); err != nil {
			return nil, err
		}
		c.conn = make([]int, 0, capHint(b, t.remaining(), 2))
		c.lines = make([]int, a-1)
		cell := 0
		for i := 0; i < b; i++ {
			v, err := t.int("a point index")
			if err != nil {
				return nil, err
			}
			for cell < a-1 && c.offsets[cell] == i {
				c.lines[cell] = t.line
				cell++
			}
			if v < 0 || v >= npoints {
				return nil, t.errorf("point index %d out of range [0, %d)", v, npoints)
			}
			c.conn = append(c.conn, v)
		}
		for ; cell < a-1; cell++ {
			c.lines[cell] = t.line
		}
		return c, nil
	}
	// Classic layout: a cells, b numbers in all (each cell's count included).
	c.offsets = make([]int, 1, capHint(a+1, t.remaining(), 2))
	c.conn = make([]int, 0, capHint(b, t.remaining(), 2))
	c.lines = make([]int, 0, capHint(a, t.remaining(), 2))
	t.unread()
	read := 0
	for i := 0; i < a; i++ {
		s, err := t.need(fmt.Sprintf("cell %d of %d", i, a))
		if err != nil {
			return nil, err
		}
		k, err := parseCount(s, "number of points of a cell")
		if err != nil {
			return nil, t.errorf("cell %d: %w", i, err)
		}
		c.lines = append(c.lines, t.line)
		read += 1 + k
		if read > b {
			return nil, t.errorf("cell %d: the cells hold more numbers than the %d of the CELLS header", i, b)
		}
		for j := 0; j < k; j++ {
			v, err := t.int("a point index")
			if err != nil {
				return nil, err
			}
			if v < 0 || v >= npoints {
				return nil, t.errorf("cell %d: point index %d out of range [0, %d)", i, v, npoints)
			}
			c.conn = append(c.conn, v)
		}
		c.offsets = append(c.offsets, len(c.conn))
	}
	if read != b {
		return nil, errorAt(t.file, headerLine, "CELLS %d %d: the cells hold %d numbers, not %d", a, b, read, b)
	}
	return c, nil
}

// vtkSkipField skips "FIELD name numArrays" and its arrays.
func vtkSkipField(t *tokenReader) error {
	if _, err := t.need("the FIELD name"); err != nil {
		return err
	}
	n, err := t.count("number of FIELD arrays")
	if err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		if _, err := t.need("an array name"); err != nil {
			return err
		}
		comps, err := t.count("number of components")
		if err != nil {
			return err
		}
		tuples, err := t.count("number of tuples")
		if err != nil {
			return err
		}
		if _, err := t.need("the array data type"); err != nil {
			return err
		}
		if comps > 1<<20 || tuples > 1<<40 {
			return t.errorf("FIELD array of %d×%d values is too large", comps, tuples)
		}
		for j := 0; j < comps*tuples; j++ {
			if _, err := t.need("a FIELD value"); err != nil {
				return err
			}
		}
	}
	return nil
}

// WriteVTK writes m as a legacy ASCII VTK unstructured grid (classic CELLS
// layout, tetrahedra, hexahedra, then triangles), atomically.
func WriteVTK(path string, m *Mesh) error {
	return writeAtomic(path, func(w io.Writer) error { return EncodeVTK(w, m) })
}

// EncodeVTK writes m as a legacy ASCII VTK unstructured grid.
func EncodeVTK(w io.Writer, m *Mesh) error {
	if err := m.Validate(); err != nil {
		return fmt.Errorf("writing %s: %w", m.Name, err)
	}
	bw := newWriter(w)
	n := m.NumPoints()
	title := strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, "sofago mesh "+m.Name)
	bw.printf("# vtk DataFile Version 3.0\n%s\nASCII\nDATASET UNSTRUCTURED_GRID\nPOINTS %d double\n", clipTitle(title), n)
	for i := 0; i < n; i++ {
		bw.printf("%s %s %s\n", formatFloat(m.Points[3*i]), formatFloat(m.Points[3*i+1]), formatFloat(m.Points[3*i+2]))
	}
	nc := len(m.Tetrahedra) + len(m.Hexahedra) + len(m.Triangles)
	bw.printf("CELLS %d %d\n", nc, 5*len(m.Tetrahedra)+9*len(m.Hexahedra)+4*len(m.Triangles))
	for _, t := range m.Tetrahedra {
		bw.printf("4 %d %d %d %d\n", t[0], t[1], t[2], t[3])
	}
	for _, h := range m.Hexahedra {
		bw.printf("8 %d %d %d %d %d %d %d %d\n", h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7])
	}
	for _, t := range m.Triangles {
		bw.printf("3 %d %d %d\n", t[0], t[1], t[2])
	}
	bw.printf("CELL_TYPES %d\n", nc)
	for range m.Tetrahedra {
		bw.printf("%d\n", vtkTetra)
	}
	for range m.Hexahedra {
		bw.printf("%d\n", vtkHexahedron)
	}
	for range m.Triangles {
		bw.printf("%d\n", vtkTriangle)
	}
	return bw.flush()
}

// addCell appends a cell of 3 (triangle), 4 (tetrahedron) or 8
// (hexahedron) vertices.
func (m *Mesh) addCell(v []int) {
	switch len(v) {
	case 3:
		m.Triangles = append(m.Triangles, [3]int(v))
	case 4:
		m.Tetrahedra = append(m.Tetrahedra, [4]int(v))
	case 8:
		m.Hexahedra = append(m.Hexahedra, [8]int(v))
	}
}

// clipTitle keeps a VTK title within the format's 256 characters.
func clipTitle(s string) string {
	if len(s) > 255 {
		return s[:255]
	}
	return s
}
