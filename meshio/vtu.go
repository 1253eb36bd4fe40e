package meshio

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// VTK XML unstructured grids (.vtu, https://docs.vtk.org/en/latest/design_documents/VTKFileFormats.html),
// ASCII: the files `runscene -out` and the VTKExporter write, and those
// ParaView or VTK save with the data mode "ascii". This file holds the one
// parser and the one writer of the format in the project: VTUGrid is the
// whole file (points, cells, point and cell data, time), which
// components/visual writes its series with and reads back in its tests;
// ParseVTU and EncodeVTU turn it into a Mesh and back for MeshLoader.
//
// Read: one Piece; Points as one 3-component array; Cells as
// connectivity, offsets and types; PointData and CellData arrays of any
// numeric type; the TimeValue field. Binary and appended data (ParaView's
// default) and compressed files are reported as unsupported: save as
// ASCII. Elements inside a DataArray (ParaView's InformationKey) and
// unknown elements are skipped.

// VTK cell types (vtkCellType.h) of the cells this package writes or reads.
const (
	VTKVertex      = vtkVertex
	VTKTriangle    = vtkTriangle
	VTKTetrahedron = vtkTetra
	VTKHexahedron  = vtkHexahedron
	// VTKPolyhedron is a general polyhedron (VTK_POLYHEDRON): its
	// connectivity lists its points, and VTUGrid.Faces its faces.
	VTKPolyhedron = 42
)

// VTUGrid is one frame of a VTK unstructured grid: points, cells in VTK's
// connectivity/offsets/types form, and per-point and per-cell data arrays.
type VTUGrid struct {
	Points       []float64 // xyz per point
	Connectivity []int     // point indices of every cell, cell after cell
	Offsets      []int     // end of each cell in Connectivity (VTK's "offsets")
	Types        []uint8   // VTK cell type per cell
	// Faces and FaceOffsets describe the faces of polyhedral cells
	// (type VTKPolyhedron), VTK's "faces" and "faceoffsets" arrays:
	// FaceOffsets has one entry per cell, the end of that cell's stream
	// in Faces, or −1 for a cell that is not a polyhedron; a polyhedron's
	// stream is its face count, then for each face its point count and
	// point indices. Both are empty when there is no polyhedron.
	Faces       []int
	FaceOffsets []int
	PointData   []VTUArray
	CellData    []VTUArray // Components numbers per cell
	// Time is written as the file's TimeValue field, so a single file
	// opened in ParaView still knows its time.
	Time float64
}

// VTUArray is a named per-point (or per-cell) array with Components
// numbers per point (or cell).
type VTUArray struct {
	Name       string
	Components int
	Values     []float64
}

// NumPoints returns the number of points.
func (g *VTUGrid) NumPoints() int { return len(g.Points) / 3 }

// NumCells returns the number of cells.
func (g *VTUGrid) NumCells() int { return len(g.Types) }

// Array returns the point data array named name, or nil.
func (g *VTUGrid) Array(name string) *VTUArray {
	for i := range g.PointData {
		if g.PointData[i].Name == name {
			return &g.PointData[i]
		}
	}
	return nil
}

// CellArray returns the cell data array named name, or nil.
func (g *VTUGrid) CellArray(name string) *VTUArray {
	for i := range g.CellData {
		if g.CellData[i].Name == name {
			return &g.CellData[i]
		}
	}
	return nil
}

// Check verifies that the grid is self-consistent: whole xyz triples,
// one offset per cell type, offsets non-decreasing and ending at the
// connectivity's length, point indices in range, data arrays of
// Components values per point or cell. EncodeVTUGrid calls it, so a bad
// grid is an error rather than a file ParaView rejects.
func (g *VTUGrid) Check() error {
	if len(g.Points)%3 != 0 {
		return fmt.Errorf("vtu: %d point coordinates is not a multiple of 3", len(g.Points))
	}
	np := g.NumPoints()
	if len(g.Offsets) != len(g.Types) {
		return fmt.Errorf("vtu: %d offsets for %d cell types", len(g.Offsets), len(g.Types))
	}
	prev := 0
	for i, o := range g.Offsets {
		if o < prev || o > len(g.Connectivity) {
			return fmt.Errorf("vtu: cell %d: offset %d out of order or beyond the connectivity (%d)", i, o, len(g.Connectivity))
		}
		prev = o
	}
	if prev != len(g.Connectivity) {
		return fmt.Errorf("vtu: offsets end at %d, connectivity has %d entries", prev, len(g.Connectivity))
	}
	for i, p := range g.Connectivity {
		if p < 0 || p >= np {
			return fmt.Errorf("vtu: connectivity[%d] = %d outside the %d points", i, p, np)
		}
	}
	if err := g.checkFaces(); err != nil {
		return err
	}
	for _, a := range g.PointData {
		if a.Components < 1 || len(a.Values) != a.Components*np {
			return fmt.Errorf("vtu: point data %q has %d values, want %d × %d points", a.Name, len(a.Values), a.Components, np)
		}
	}
	for _, a := range g.CellData {
		if a.Components < 1 || len(a.Values) != a.Components*g.NumCells() {
			return fmt.Errorf("vtu: cell data %q has %d values, want %d × %d cells", a.Name, len(a.Values), a.Components, g.NumCells())
		}
	}
	return nil
}

// checkFaces verifies the polyhedral face streams: one face offset per
// cell when there are any (and whenever a cell is a polyhedron), −1 for
// the other cells, the polyhedra's streams back to back, each a face
// count and faces of at least 3 points in range.
func (g *VTUGrid) checkFaces() error {
	poly := false
	for _, t := range g.Types {
		poly = poly || t == VTKPolyhedron
	}
	if !poly && len(g.FaceOffsets) == 0 && len(g.Faces) == 0 {
		return nil
	}
	if len(g.FaceOffsets) != len(g.Types) {
		return fmt.Errorf("vtu: %d face offsets for %d cells", len(g.FaceOffsets), len(g.Types))
	}
	start := 0
	for c, o := range g.FaceOffsets {
		if g.Types[c] != VTKPolyhedron {
			if o != -1 {
				return fmt.Errorf("vtu: cell %d (type %d) has face offset %d, want -1", c, g.Types[c], o)
			}
			continue
		}
		if o < start || o > len(g.Faces) {
			return fmt.Errorf("vtu: cell %d: face offset %d out of order or beyond the faces (%d)", c, o, len(g.Faces))
		}
		s := g.Faces[start:o]
		if len(s) == 0 || s[0] < 4 {
			return fmt.Errorf("vtu: polyhedron %d: no face count, or fewer than 4 faces", c)
		}
		k := 1
		for f := 0; f < s[0]; f++ {
			if k >= len(s) || s[k] < 3 || k+1+s[k] > len(s) {
				return fmt.Errorf("vtu: polyhedron %d: face %d is truncated or has fewer than 3 points", c, f)
			}
			for _, v := range s[k+1 : k+1+s[k]] {
				if v < 0 || v >= g.NumPoints() {
					return fmt.Errorf("vtu: polyhedron %d: face %d point %d outside the %d points", c, f, v, g.NumPoints())
				}
			}
			k += 1 + s[k]
		}
		if k != len(s) {
			return fmt.Errorf("vtu: polyhedron %d: %d numbers after its faces", c, len(s)-k)
		}
		start = o
	}
	if start != len(g.Faces) {
		return fmt.Errorf("vtu: the faces have %d entries, the last face offset is %d", len(g.Faces), start)
	}
	return nil
}

// ReadVTU reads the tetrahedra and triangles of a .vtu file as a Mesh
// (ParseVTU).
func ReadVTU(path string) (*Mesh, error) {
	data, err := readFile(path)
	if err != nil {
		return nil, err
	}
	return ParseVTU(path, data)
}

// ParseVTU parses the text of an ASCII .vtu file into a Mesh: cells of
// type 10 (tetrahedron), 12 (hexahedron) and 5 (triangle) in file order; vertices, poly-
// vertices, lines and polylines (types 1–4) are skipped; any other cell
// type is an error. Point and cell data are not read into the mesh (the
// points are those of the file: for a frame of `runscene -out`, the
// deformed configuration of that frame). file names it in errors.
func ParseVTU(file string, data []byte) (*Mesh, error) {
	g, lines, err := parseVTU(file, data)
	if err != nil {
		return nil, err
	}
	m := &Mesh{Name: file, Points: g.Points}
	np := g.NumPoints()
	start := 0
	for c, typ := range g.Types {
		v := g.Connectivity[start:g.Offsets[c]]
		start = g.Offsets[c]
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
			return nil, &Error{File: file, Line: lines.types[c], Err: unsupportedf("cell %d: cell type %d not supported: only tetrahedra (10), hexahedra (12) and triangles (5) are read", c, typ)}
		}
		if len(v) != want {
			return nil, errorAt(file, lines.offsets[c], "cell %d of type %d has %d points, expected %d", c, typ, len(v), want)
		}
		if err := checkCell(v, np); err != nil {
			return nil, errorAt(file, lines.cellStart(c), "cell %d: %w", c, err)
		}
		m.addCell(v)
	}
	return m, nil
}

// WriteVTU writes m as an ASCII .vtu file (tetrahedra, hexahedra, then
// triangles, no data arrays), atomically.
func WriteVTU(path string, m *Mesh) error {
	return writeAtomic(path, func(w io.Writer) error { return EncodeVTU(w, m) })
}

// EncodeVTU writes m as an ASCII .vtu file: tetrahedra, hexahedra, then
// triangles.
func EncodeVTU(w io.Writer, m *Mesh) error {
	if err := m.Validate(); err != nil {
		return fmt.Errorf("writing %s: %w", m.Name, err)
	}
	g := &VTUGrid{Points: m.Points}
	for _, t := range m.Tetrahedra {
		g.Connectivity = append(g.Connectivity, t[0], t[1], t[2], t[3])
		g.Offsets = append(g.Offsets, len(g.Connectivity))
		g.Types = append(g.Types, vtkTetra)
	}
	for _, h := range m.Hexahedra {
		g.Connectivity = append(g.Connectivity, h[:]...)
		g.Offsets = append(g.Offsets, len(g.Connectivity))
		g.Types = append(g.Types, vtkHexahedron)
	}
	for _, t := range m.Triangles {
		g.Connectivity = append(g.Connectivity, t[0], t[1], t[2])
		g.Offsets = append(g.Offsets, len(g.Connectivity))
		g.Types = append(g.Types, vtkTriangle)
	}
	return EncodeVTUGrid(w, g)
}

// ParseVTUGrid parses the text of an ASCII .vtu file into a VTUGrid,
// every point, cell and data array as written (see the format notes at
// the top of this file). Errors are *Error values naming file and line.
func ParseVTUGrid(file string, data []byte) (*VTUGrid, error) {
	g, _, err := parseVTU(file, data)
	return g, err
}

// vtuLines holds the line of every cell's entries, for the errors of
// ParseVTU.
type vtuLines struct {
	types, offsets []int // line of cell c's type and offset
	conn           []int // line of every connectivity entry
	offsetValues   []int // the offsets, to find a cell's first entry
}

// cellStart returns the line of the first connectivity entry of cell c
// (the line of its offset if it has none).
func (l *vtuLines) cellStart(c int) int {
	start := 0
	if c > 0 {
		start = l.offsetValues[c-1]
	}
	if start < len(l.conn) {
		return l.conn[start]
	}
	return l.offsets[c]
}

// vtuArray is a DataArray as read: its attributes, the line of its start
// tag, and its text in pieces with the line each starts on.
type vtuArray struct {
	name, typ, format string
	components        int
	line              int
	text              []vtuText
}

type vtuText struct {
	s    string
	line int
}

// fields calls f for every whitespace-separated field of the array's
// text with its line, stopping at the first error f returns.
func (a *vtuArray) fields(f func(s string, line int) error) error {
	for _, t := range a.text {
		line := t.line
		s := t.s
		for len(s) > 0 {
			i := 0
			for i < len(s) && isXMLSpace(s[i]) {
				if s[i] == '\n' {
					line++
				}
				i++
			}
			s = s[i:]
			j := 0
			for j < len(s) && !isXMLSpace(s[j]) {
				j++
			}
			if j > 0 {
				if err := f(s[:j], line); err != nil {
					return err
				}
			}
			s = s[j:]
		}
	}
	return nil
}

func isXMLSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// vtuParser holds the state of one parse.
type vtuParser struct {
	file string
	d    *xml.Decoder
}

func (p *vtuParser) errorf(line int, format string, args ...any) error {
	return errorAt(p.file, line, format, args...)
}

func (p *vtuParser) unsupported(line int, format string, args ...any) error {
	return &Error{File: p.file, Line: line, Err: unsupportedf(format, args...)}
}

// line returns the decoder's current line (where the next token starts).
func (p *vtuParser) line() int {
	l, _ := p.d.InputPos()
	return l
}

// token returns the next token (copied) and the line it starts on; XML
// errors become *Error at their line.
func (p *vtuParser) token() (xml.Token, int, error) {
	line := p.line()
	tok, err := p.d.Token()
	if err != nil {
		var se *xml.SyntaxError
		switch {
		case errors.As(err, &se):
			return nil, se.Line, p.errorf(se.Line, "not well-formed XML: %s", se.Msg)
		case err == io.EOF:
			return nil, p.line(), err
		default:
			return nil, p.line(), p.errorf(p.line(), "%v", err)
		}
	}
	return xml.CopyToken(tok), line, nil
}

func attr(e xml.StartElement, name string) (string, bool) {
	for _, a := range e.Attr {
		if a.Name.Local == name {
			return a.Value, true
		}
	}
	return "", false
}

// skip skips the element whose start tag was just read.
func (p *vtuParser) skip() error {
	for depth := 1; depth > 0; {
		tok, _, err := p.token()
		if err == io.EOF {
			return p.errorf(p.line(), "unexpected end of file inside an element")
		}
		if err != nil {
			return err
		}
		switch tok.(type) {
		case xml.StartElement:
			depth++
		case xml.EndElement:
			depth--
		}
	}
	return nil
}

// dataArray reads a DataArray whose start tag (at line) was just read.
func (p *vtuParser) dataArray(e xml.StartElement, line int) (*vtuArray, error) {
	a := &vtuArray{line: line, components: 1}
	a.name, _ = attr(e, "Name")
	a.typ, _ = attr(e, "type")
	a.format, _ = attr(e, "format")
	if s, ok := attr(e, "NumberOfComponents"); ok {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 || n > 1<<16 {
			return nil, p.errorf(line, "DataArray %q: NumberOfComponents = %q is not a positive integer", clip(a.name), clip(s))
		}
		a.components = n
	}
	switch a.format {
	case "", "ascii":
	case "binary", "appended":
		return nil, p.unsupported(line, "DataArray %q: format %q not supported: save the file with ASCII data", clip(a.name), a.format)
	default:
		return nil, p.errorf(line, "DataArray %q: unknown format %q (ascii, binary or appended)", clip(a.name), clip(a.format))
	}
	switch a.typ {
	case "Float32", "Float64", "Int8", "Int16", "Int32", "Int64", "UInt8", "UInt16", "UInt32", "UInt64":
	case "":
		return nil, p.errorf(line, "DataArray %q has no type", clip(a.name))
	default:
		return nil, p.unsupported(line, "DataArray %q: type %q not supported (numbers only)", clip(a.name), clip(a.typ))
	}
	for {
		tok, tl, err := p.token()
		if err == io.EOF {
			return nil, p.errorf(p.line(), "unexpected end of file: DataArray %q (line %d) is not closed", clip(a.name), line)
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.CharData:
			a.text = append(a.text, vtuText{string(t), tl})
		case xml.StartElement:
			// ParaView's InformationKey and the like: not data.
			if err := p.skip(); err != nil {
				return nil, err
			}
		case xml.EndElement:
			return a, nil
		}
	}
}

// floats parses the array's values as float64 numbers (any that
// strconv.ParseFloat takes: VTK writes nan and inf in data arrays);
// finite requires them to be finite.
func (p *vtuParser) floats(a *vtuArray, finite bool) ([]float64, error) {
	var out []float64
	err := a.fields(func(s string, line int) error {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return p.errorf(line, "DataArray %q: value %d: %q is not a number", clip(a.name), len(out), clip(s))
		}
		if finite && (math.IsNaN(v) || math.IsInf(v, 0)) {
			return p.errorf(line, "DataArray %q: value %d is %s, not finite", clip(a.name), len(out), clip(s))
		}
		out = append(out, v)
		return nil
	})
	return out, err
}

// ints parses the array's values as integers and records the line of
// each in lines (if not nil).
func (p *vtuParser) ints(a *vtuArray, lines *[]int) ([]int, error) {
	var out []int
	err := a.fields(func(s string, line int) error {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil || v > 1<<53 || v < -(1<<53) {
			return p.errorf(line, "DataArray %q: value %d: %q is not an integer in [-2^53, 2^53]", clip(a.name), len(out), clip(s))
		}
		out = append(out, int(v))
		if lines != nil {
			*lines = append(*lines, line)
		}
		return nil
	})
	return out, err
}

// parseVTU parses a .vtu file into a grid and the lines of its cells.
func parseVTU(file string, data []byte) (*VTUGrid, *vtuLines, error) {
	p := &vtuParser{file: file, d: xml.NewDecoder(bytes.NewReader(data))}
	// Find the root element.
	var root xml.StartElement
	rootLine := 0
	for {
		tok, line, err := p.token()
		if err == io.EOF {
			return nil, nil, p.errorf(0, "no VTKFile element: not a .vtu file")
		}
		if err != nil {
			return nil, nil, err
		}
		if e, ok := tok.(xml.StartElement); ok {
			root, rootLine = e, line
			break
		}
	}
	if root.Name.Local != "VTKFile" {
		return nil, nil, p.errorf(rootLine, "root element <%s>, expected <VTKFile>: not a .vtu file", clip(root.Name.Local))
	}
	if typ, _ := attr(root, "type"); typ != "UnstructuredGrid" {
		return nil, nil, p.unsupported(rootLine, "VTKFile type %q not supported: only UnstructuredGrid (.vtu)", clip(typ))
	}
	// A compressor attribute is ignored: it applies to binary and
	// appended data only, which are rejected array by array.

	var (
		g         = &VTUGrid{}
		lines     = &vtuLines{}
		stack     []string // element names below VTKFile
		pieces    int
		pieceLine int
		nPoints   = -1
		nCells    = -1
		points    []*vtuArray
		cells     = map[string]*vtuArray{}
		cellsLine int
		gridLine  int
		pointData []*vtuArray
		cellData  []*vtuArray
	)
	parent := func() string {
		if len(stack) == 0 {
			return "VTKFile"
		}
		return stack[len(stack)-1]
	}
	count := func(e xml.StartElement, name string, line int) (int, error) {
		s, ok := attr(e, name)
		if !ok {
			return 0, p.errorf(line, "Piece has no %s", name)
		}
		n, err := parseCount(strings.TrimSpace(s), name)
		if err != nil {
			return 0, p.errorf(line, "Piece: %w", err)
		}
		return n, nil
	}
loop:
	for {
		tok, line, err := p.token()
		if err == io.EOF {
			return nil, nil, p.errorf(p.line(), "unexpected end of file: <VTKFile> (line %d) is not closed", rootLine)
		}
		if err != nil {
			return nil, nil, err
		}
		switch e := tok.(type) {
		case xml.StartElement:
			name := e.Name.Local
			switch {
			case name == "AppendedData":
				return nil, nil, p.unsupported(line, "appended data not supported: save the file with ASCII data")
			case name == "Piece" && parent() == "UnstructuredGrid":
				pieces++
				if pieces > 1 {
					return nil, nil, p.unsupported(line, "a second Piece (the first is at line %d): only single-piece grids are read", pieceLine)
				}
				pieceLine = line
				if nPoints, err = count(e, "NumberOfPoints", line); err != nil {
					return nil, nil, err
				}
				if nCells, err = count(e, "NumberOfCells", line); err != nil {
					return nil, nil, err
				}
			case name == "UnstructuredGrid" && len(stack) == 0:
				gridLine = line
			case name == "Cells" && parent() == "Piece":
				cellsLine = line
			case name == "DataArray":
				a, err := p.dataArray(e, line)
				if err != nil {
					return nil, nil, err
				}
				switch parent() {
				case "FieldData":
					if a.name == "TimeValue" {
						v, err := p.floats(a, true)
						if err != nil {
							return nil, nil, err
						}
						if len(v) != 1 {
							return nil, nil, p.errorf(a.line, "TimeValue has %d values, want 1", len(v))
						}
						g.Time = v[0]
					}
				case "Points":
					points = append(points, a)
				case "Cells":
					if prev, dup := cells[a.name]; dup {
						return nil, nil, p.errorf(a.line, "a second Cells array %q (the first is at line %d)", clip(a.name), prev.line)
					}
					cells[a.name] = a
				case "PointData":
					pointData = append(pointData, a)
				case "CellData":
					cellData = append(cellData, a)
				}
				continue // dataArray consumed the end tag
			}
			stack = append(stack, name)
		case xml.EndElement:
			if len(stack) == 0 {
				break loop // </VTKFile>
			}
			stack = stack[:len(stack)-1]
		}
	}
	if gridLine == 0 {
		return nil, nil, p.errorf(0, "no UnstructuredGrid element in <VTKFile>")
	}
	if pieces == 0 {
		return nil, nil, p.errorf(gridLine, "UnstructuredGrid has no Piece")
	}
	// Points.
	switch {
	case len(points) == 0 && nPoints > 0:
		return nil, nil, p.errorf(pieceLine, "Piece has %d points but no Points array", nPoints)
	case len(points) > 1:
		return nil, nil, p.errorf(points[1].line, "Points has %d arrays, want 1", len(points))
	case len(points) == 1:
		a := points[0]
		if a.components != 3 {
			return nil, nil, p.errorf(a.line, "Points has %d components, want 3", a.components)
		}
		v, err := p.floats(a, true)
		if err != nil {
			return nil, nil, err
		}
		if len(v) != 3*nPoints {
			return nil, nil, p.errorf(a.line, "Points has %d coordinates, want 3 × NumberOfPoints = %d", len(v), 3*nPoints)
		}
		g.Points = v
	}
	// Cells.
	if nCells > 0 || len(cells) > 0 {
		for _, name := range []string{"connectivity", "offsets", "types"} {
			if cells[name] == nil {
				l := cellsLine
				if l == 0 {
					l = pieceLine
				}
				return nil, nil, p.errorf(l, "no Cells array %q", name)
			}
		}
		var err error
		conn, offs, typs := cells["connectivity"], cells["offsets"], cells["types"]
		if g.Connectivity, err = p.ints(conn, &lines.conn); err != nil {
			return nil, nil, err
		}
		if g.Offsets, err = p.ints(offs, &lines.offsets); err != nil {
			return nil, nil, err
		}
		types, err := p.ints(typs, &lines.types)
		if err != nil {
			return nil, nil, err
		}
		if len(types) != nCells {
			return nil, nil, p.errorf(typs.line, "%d cell types for NumberOfCells = %d", len(types), nCells)
		}
		if len(g.Offsets) != nCells {
			return nil, nil, p.errorf(offs.line, "%d offsets for NumberOfCells = %d", len(g.Offsets), nCells)
		}
		g.Types = make([]uint8, nCells)
		for i, t := range types {
			if t < 0 || t > 255 {
				return nil, nil, p.errorf(lines.types[i], "cell %d: type %d is not a VTK cell type (0–255)", i, t)
			}
			g.Types[i] = uint8(t)
		}
		prev := 0
		for i, o := range g.Offsets {
			if o < prev {
				return nil, nil, p.errorf(lines.offsets[i], "offset %d = %d is smaller than the previous one (%d)", i, o, prev)
			}
			if o > len(g.Connectivity) {
				return nil, nil, p.errorf(lines.offsets[i], "offset %d = %d is beyond the %d connectivity entries", i, o, len(g.Connectivity))
			}
			prev = o
		}
		if prev != len(g.Connectivity) {
			return nil, nil, p.errorf(conn.line, "the connectivity has %d entries, the last offset is %d", len(g.Connectivity), prev)
		}
		for i, v := range g.Connectivity {
			if v < 0 || v >= nPoints {
				return nil, nil, p.errorf(lines.conn[i], "point index %d out of range [0, %d)", v, nPoints)
			}
		}
		lines.offsetValues = g.Offsets
		if fa, fo := cells["faces"], cells["faceoffsets"]; fa != nil || fo != nil {
			if fa == nil || fo == nil {
				l := cellsLine
				if l == 0 {
					l = pieceLine
				}
				return nil, nil, p.errorf(l, "Cells has one of \"faces\" and \"faceoffsets\" without the other")
			}
			if g.Faces, err = p.ints(fa, nil); err != nil {
				return nil, nil, err
			}
			if g.FaceOffsets, err = p.ints(fo, nil); err != nil {
				return nil, nil, err
			}
			if err := g.checkFaces(); err != nil {
				return nil, nil, p.errorf(fo.line, "%w", err)
			}
		}
	}
	// Data arrays.
	for _, a := range pointData {
		v, err := p.floats(a, false)
		if err != nil {
			return nil, nil, err
		}
		if len(v) != a.components*nPoints {
			return nil, nil, p.errorf(a.line, "point data %q has %d values, want %d × %d points", clip(a.name), len(v), a.components, nPoints)
		}
		g.PointData = append(g.PointData, VTUArray{Name: a.name, Components: a.components, Values: v})
	}
	for _, a := range cellData {
		v, err := p.floats(a, false)
		if err != nil {
			return nil, nil, err
		}
		if len(v) != a.components*nCells {
			return nil, nil, p.errorf(a.line, "cell data %q has %d values, want %d × %d cells", clip(a.name), len(v), a.components, nCells)
		}
		g.CellData = append(g.CellData, VTUArray{Name: a.name, Components: a.components, Values: v})
	}
	if err := g.Check(); err != nil {
		// Unreachable after the checks above; kept so that an accepted
		// grid is always one EncodeVTUGrid writes.
		return nil, nil, p.errorf(0, "%w", err)
	}
	return g, lines, nil
}

// EncodeVTUGrid writes g as an ASCII XML UnstructuredGrid (VTK file format
// 1.0). Numbers are written with strconv's shortest representation that
// parses back to the same float64, so a reader recovers them exactly.
func EncodeVTUGrid(w io.Writer, g *VTUGrid) error {
	if err := g.Check(); err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	var buf []byte
	put := func(s string) { bw.WriteString(s) }
	floats := func(v []float64, perLine int) {
		for i, x := range v {
			if i%perLine == 0 {
				put("\n          ")
			} else {
				bw.WriteByte(' ')
			}
			buf = strconv.AppendFloat(buf[:0], x, 'g', -1, 64)
			bw.Write(buf)
		}
		put("\n        ")
	}
	ints := func(v []int, perLine int) {
		for i, x := range v {
			if i%perLine == 0 {
				put("\n          ")
			} else {
				bw.WriteByte(' ')
			}
			buf = strconv.AppendInt(buf[:0], int64(x), 10)
			bw.Write(buf)
		}
		put("\n        ")
	}
	put(`<?xml version="1.0"?>` + "\n")
	put(`<VTKFile type="UnstructuredGrid" version="1.0" byte_order="LittleEndian" header_type="UInt64">` + "\n")
	put("  <UnstructuredGrid>\n")
	put("    <FieldData>\n")
	put(`      <DataArray type="Float64" Name="TimeValue" NumberOfTuples="1" format="ascii">`)
	put(strconv.FormatFloat(g.Time, 'g', -1, 64))
	put("</DataArray>\n    </FieldData>\n")
	fmt.Fprintf(bw, "    <Piece NumberOfPoints=\"%d\" NumberOfCells=\"%d\">\n", g.NumPoints(), g.NumCells())
	put("      <PointData>\n")
	for _, a := range g.PointData {
		fmt.Fprintf(bw, "        <DataArray type=\"Float64\" Name=\"%s\" NumberOfComponents=\"%d\" format=\"ascii\">", xmlAttr(a.Name), a.Components)
		floats(a.Values, a.Components)
		put("</DataArray>\n")
	}
	put("      </PointData>\n")
	if len(g.CellData) > 0 {
		put("      <CellData>\n")
		for _, a := range g.CellData {
			fmt.Fprintf(bw, "        <DataArray type=\"Float64\" Name=\"%s\" NumberOfComponents=\"%d\" format=\"ascii\">", xmlAttr(a.Name), a.Components)
			floats(a.Values, a.Components)
			put("</DataArray>\n")
		}
		put("      </CellData>\n")
	}
	put("      <Points>\n")
	put(`        <DataArray type="Float64" Name="Points" NumberOfComponents="3" format="ascii">`)
	floats(g.Points, 3)
	put("</DataArray>\n      </Points>\n")
	put("      <Cells>\n")
	put(`        <DataArray type="Int64" Name="connectivity" format="ascii">`)
	ints(g.Connectivity, 12)
	put("</DataArray>\n")
	put(`        <DataArray type="Int64" Name="offsets" format="ascii">`)
	ints(g.Offsets, 12)
	put("</DataArray>\n")
	put(`        <DataArray type="UInt8" Name="types" format="ascii">`)
	types := make([]int, len(g.Types))
	for i, t := range g.Types {
		types[i] = int(t)
	}
	ints(types, 24)
	put("</DataArray>\n")
	if len(g.FaceOffsets) > 0 {
		put(`        <DataArray type="Int64" Name="faces" format="ascii">`)
		ints(g.Faces, 24)
		put("</DataArray>\n")
		put(`        <DataArray type="Int64" Name="faceoffsets" format="ascii">`)
		ints(g.FaceOffsets, 12)
		put("</DataArray>\n")
	}
	put("      </Cells>\n")
	put("    </Piece>\n  </UnstructuredGrid>\n</VTKFile>\n")
	return bw.Flush()
}

// xmlAttr escapes s for an XML attribute value in double quotes; tabs,
// newlines and carriage returns are written as character references so
// that they survive attribute-value normalisation.
func xmlAttr(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '"':
			b.WriteString("&quot;")
		case '\t':
			b.WriteString("&#9;")
		case '\n':
			b.WriteString("&#10;")
		case '\r':
			b.WriteString("&#13;")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
