package meshio

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"strconv"

	"github.com/hschendel/stl"
)

// STL sizes: an 80-byte header and a uint32 triangle count, then 50 bytes
// per triangle (normal, three vertices as float32, a uint16 attribute).
const (
	stlBinaryHeaderSize   = 84
	stlBinaryTriangleSize = 50
)

// ReadSTL reads an ASCII or binary STL file (github.com/hschendel/stl
// parses it) into a triangle surface.
//
// STL is a triangle soup: every facet repeats its three vertices as
// float32. They are welded here by exact equality of their float32
// coordinates (no tolerance: two vertices are the same if the file says so
// bit for bit, which is what every exporter writes for a shared vertex),
// numbered in order of first appearance, so the result is deterministic.
// Facet normals are ignored: the orientation is the vertex order (counter-
// clockwise seen from outside), which the STL specification says agrees
// with the normal. Facets that become degenerate (a repeated vertex) are
// dropped: they carry no area, and Mesh.Validate rejects them.
//
// The format is binary when the file's size is exactly 84 + 50·count for
// the count in its header (the library's test), ASCII when it starts with
// "solid" and looks like text. Malformed files give an *Error naming the
// file and, for ASCII files, the line: a truncated binary file, a bad
// keyword or number, a non-finite coordinate, a file with no facet.
func ReadSTL(path string) (*Mesh, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &Error{File: path, Err: err}
	}
	if len(data) == 0 {
		return nil, errorAt(path, 0, "empty file")
	}
	var solid *stl.Solid
	ascii := false
	switch {
	case isBinarySTL(data):
		solid, err = stl.ReadAll(bytes.NewReader(data))
		if err != nil {
			return nil, errorAt(path, 0, "binary STL: %v", err)
		}
	case looksLikeASCIISTL(data):
		ascii = true
		if solid, err = readASCIISTL(path, data); err != nil {
			return nil, err
		}
	case len(data) < stlBinaryHeaderSize:
		return nil, errorAt(path, 0, "not an STL file: %d bytes, neither ASCII (starting with \"solid\") nor binary (an 84-byte header at least)", len(data))
	default:
		count := binary.LittleEndian.Uint32(data[80:84])
		return nil, errorAt(path, 0, "binary STL: the header announces %d triangles, %d bytes, but the file has %d bytes (truncated or not an STL file)",
			count, stlBinaryHeaderSize+stlBinaryTriangleSize*int64(count), len(data))
	}
	if len(solid.Triangles) == 0 {
		return nil, errorAt(path, 0, "no triangles")
	}
	for i, t := range solid.Triangles {
		for j, v := range t.Vertices {
			for _, c := range v {
				if math.IsNaN(float64(c)) || math.IsInf(float64(c), 0) {
					line := 0
					if ascii {
						line = asciiSTLVertexLine(data, 3*i+j)
					}
					return nil, errorAt(path, line, "triangle %d, vertex %d: coordinate %g is not finite", i, j, c)
				}
			}
		}
	}
	m := weldSTL(solid.Triangles)
	if len(m.Triangles) == 0 {
		return nil, errorAt(path, 0, "no triangles: all %d facets are degenerate (a repeated vertex)", len(solid.Triangles))
	}
	m.Name = path
	return m, nil
}

// isBinarySTL reports whether data has exactly the size its binary header
// announces.
func isBinarySTL(data []byte) bool {
	if len(data) < stlBinaryHeaderSize {
		return false
	}
	count := int64(binary.LittleEndian.Uint32(data[80:84]))
	return int64(len(data)) == stlBinaryHeaderSize+stlBinaryTriangleSize*count
}

// looksLikeASCIISTL reports whether data starts with "solid" and its first
// kilobyte is text (binary files whose 80-byte header happens to start with
// "solid" have zero bytes or floats soon after).
func looksLikeASCIISTL(data []byte) bool {
	if !bytes.HasPrefix(data, []byte("solid")) {
		return false
	}
	for _, b := range data[:min(len(data), 1024)] {
		if b < 0x20 && b != '\n' && b != '\r' && b != '\t' || b >= 0x7f {
			return false
		}
	}
	return true
}

// stlErrorLine matches one error of the library's ASCII parser, "LINE: message".
var stlErrorLine = regexp.MustCompile(`(?m)^(\d+): (.*)$`)

// readASCIISTL parses an ASCII STL file with the library and turns its
// error text (a list of "line: message" entries) into an *Error at the
// first line at fault.
func readASCIISTL(path string, data []byte) (*stl.Solid, error) {
	// The library insists on "solid " with a space; a header line holding
	// just "solid" (no name) is common and legal.
	if len(data) > 5 && (data[5] == '\n' || data[5] == '\r') {
		data = append([]byte("solid "), data[5:]...)
	}
	if line := trailingAfterEndsolid(data); line > 0 {
		return nil, errorAt(path, line, "text after the first \"endsolid\" (only one solid per file is supported)")
	}
	solid, err := stl.ReadAll(bytes.NewReader(data))
	if err == nil {
		return solid, nil
	}
	if m := stlErrorLine.FindStringSubmatch(err.Error()); m != nil {
		line, _ := strconv.Atoi(m[1])
		return nil, errorAt(path, line, "ASCII STL: %s", m[2])
	}
	return nil, errorAt(path, 0, "ASCII STL: %v", err)
}

// trailingAfterEndsolid returns the 1-based line of the first non-blank
// line after the first line starting with "endsolid", or 0 if there is
// none (or no "endsolid" at all, which the parser reports).
func trailingAfterEndsolid(data []byte) int {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, len(data)+1)
	line, ended := 0, false
	for sc.Scan() {
		line++
		fields := bytes.Fields(sc.Bytes())
		if len(fields) == 0 {
			continue
		}
		if ended {
			return line
		}
		ended = string(fields[0]) == "endsolid"
	}
	return 0
}

// asciiSTLVertexLine returns the 1-based line of the (n+1)-th "vertex"
// keyword of an ASCII STL file (0 if there are fewer), to locate a bad
// coordinate the parser accepted.
func asciiSTLVertexLine(data []byte, n int) int {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, len(data)+1)
	line := 0
	for sc.Scan() {
		line++
		for _, w := range bytes.Fields(sc.Bytes()) {
			if string(w) == "vertex" {
				if n == 0 {
					return line
				}
				n--
			}
		}
	}
	return 0
}

// weldSTL merges the vertices of a triangle soup that have bit-identical
// float32 coordinates, numbering them in order of first appearance, and
// drops triangles left with a repeated vertex.
func weldSTL(tris []stl.Triangle) *Mesh {
	index := make(map[stl.Vec3]int, len(tris)/2+3)
	m := &Mesh{Triangles: make([][3]int, 0, len(tris))}
	for _, t := range tris {
		v := t.Vertices
		if v[0] == v[1] || v[1] == v[2] || v[0] == v[2] {
			continue // degenerate: no area; its vertices are not numbered
		}
		var f [3]int
		for j, v := range t.Vertices {
			// +0 and −0 are equal as map keys (Go compares floats by
			// value), so they weld, as they should.
			id, ok := index[v]
			if !ok {
				id = len(m.Points) / 3
				index[v] = id
				m.Points = append(m.Points, float64(v[0]), float64(v[1]), float64(v[2]))
			}
			f[j] = id
		}
		m.Triangles = append(m.Triangles, f)
	}
	return m
}

// WriteSTL writes the triangles of m as an STL file, binary or ASCII,
// atomically (a temporary file in the same folder renamed over path).
// Coordinates are rounded to float32, as the format stores them; facet
// normals are computed from the vertex order. Tetrahedra are not written.
func WriteSTL(path string, m *Mesh, binaryFormat bool) error {
	if err := m.Validate(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if len(m.Triangles) == 0 {
		return fmt.Errorf("writing %s: the mesh has no triangles", path)
	}
	if len(m.Triangles) > math.MaxUint32 {
		return fmt.Errorf("writing %s: %d triangles do not fit a binary STL count", path, len(m.Triangles))
	}
	solid := &stl.Solid{Name: "sofago", IsAscii: !binaryFormat, Triangles: make([]stl.Triangle, len(m.Triangles))}
	if binaryFormat {
		// A binary header must not start with "solid", or readers that
		// test the first bytes would take it for ASCII.
		solid.BinaryHeader = []byte("binary STL written by sofago meshio")
	}
	for i, t := range m.Triangles {
		for j, v := range t {
			for a := 0; a < 3; a++ {
				c := m.Points[3*v+a]
				if math.Abs(c) > math.MaxFloat32 {
					return fmt.Errorf("writing %s: point %d coordinate %g overflows float32", path, v, c)
				}
				solid.Triangles[i].Vertices[j][a] = float32(c)
			}
		}
	}
	solid.RecalculateNormals()
	return writeAtomic(path, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<16)
		if err := solid.WriteAll(bw); err != nil {
			return err
		}
		return bw.Flush()
	})
}
