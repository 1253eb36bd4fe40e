package meshio

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// objIgnored lists the Wavefront OBJ statements that carry nothing a
// triangle surface needs (texture coordinates, normals, parameter-space
// vertices, materials, groups, objects, smoothing groups, points and
// polylines): ReadOBJ skips them. Any other statement is an error, so a
// file using a feature this reader does not know (free-form curves and
// surfaces, say) is not silently read as something else.
var objIgnored = map[string]bool{
	"vt": true, "vn": true, "vp": true, "usemtl": true, "mtllib": true,
	"g": true, "o": true, "s": true, "l": true, "p": true,
}

// ReadOBJ reads the surface of a Wavefront OBJ file: its "v x y z [w]"
// vertices and "f" faces. A face lists three or more vertex references,
// each "v", "v/vt", "v//vn" or "v/vt/vn" (only v is used); indices are
// 1-based, and negative ones count back from the last vertex defined
// before the face (−1 is the latest). Polygons are fan-triangulated from
// their first vertex, (v0, v_i, v_i+1), which is exact for convex planar
// polygons and keeps the polygon's orientation. Triangles of the fan with
// a repeated vertex are dropped (zero area; Mesh.Validate rejects them).
// Vertices are kept as they are (no welding: an OBJ file indexes shared
// vertices itself). The w coordinate, if given, is ignored.
//
// Malformed lines give an *Error naming the file and line: a bad number, a
// face index of 0 or out of range (a face may only refer to vertices
// defined above it), a face with fewer than three vertices, an unknown
// statement, a file with no face.
func ReadOBJ(path string) (*Mesh, error) {
	data, err := readFile(path)
	if err != nil {
		return nil, err
	}
	r := newLineReader(path, data)
	m := &Mesh{Name: path}
	var face []int // vertex indices of the current face, reused
	for {
		line, ok := r.next()
		if !ok {
			break
		}
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		switch kw := fields[0]; kw {
		case "v":
			if len(fields) != 4 && len(fields) != 5 {
				return nil, r.errorf("vertex: want \"v x y z [w]\", got %d numbers", len(fields)-1)
			}
			for a, s := range fields[1:4] {
				c, err := parseCoord(s, "vertex "+string("xyz"[a]))
				if err != nil {
					return nil, r.errorf("%v", err)
				}
				m.Points = append(m.Points, c)
			}
			if len(fields) == 5 {
				if _, err := parseCoord(fields[4], "vertex w"); err != nil {
					return nil, r.errorf("%v", err)
				}
			}
		case "f":
			if len(fields) < 4 {
				return nil, r.errorf("face with %d vertices: a face needs at least 3", len(fields)-1)
			}
			face = face[:0]
			n := len(m.Points) / 3
			for _, ref := range fields[1:] {
				v, err := objVertexIndex(ref, n)
				if err != nil {
					return nil, r.errorf("face vertex %q: %v", ref, err)
				}
				face = append(face, v)
			}
			for i := 1; i+1 < len(face); i++ {
				t := [3]int{face[0], face[i], face[i+1]}
				if t[0] != t[1] && t[1] != t[2] && t[0] != t[2] {
					m.Triangles = append(m.Triangles, t)
				}
			}
		default:
			if !objIgnored[kw] {
				return nil, r.errorf("unknown statement %q (this reader takes v and f; it skips vt, vn, vp, usemtl, mtllib, g, o, s, l, p)", kw)
			}
		}
	}
	if len(m.Triangles) == 0 {
		return nil, errorAt(path, 0, "no faces (%d vertices)", len(m.Points)/3)
	}
	return m, nil
}

// objVertexIndex parses the vertex part of a face reference "v[/vt[/vn]]"
// into a 0-based index, given the n vertices defined so far.
func objVertexIndex(ref string, n int) (int, error) {
	s := ref
	if i := strings.IndexByte(ref, '/'); i >= 0 {
		s = ref[:i]
		if strings.Count(ref, "/") > 2 {
			return 0, fmt.Errorf("want v, v/vt, v//vn or v/vt/vn")
		}
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not an integer index", s)
	}
	switch {
	case v > 0 && v <= n:
		return v - 1, nil
	case v < 0 && -v <= n:
		return n + v, nil
	case v == 0:
		return 0, fmt.Errorf("index 0 (OBJ indices start at 1, or count back from −1)")
	default:
		return 0, fmt.Errorf("index %d out of range: %d vertices defined so far", v, n)
	}
}

// WriteOBJ writes the triangles of m as a Wavefront OBJ file ("v" lines
// with the shortest decimals that read back exactly, then 1-based "f"
// lines), atomically. Tetrahedra are not written. ReadOBJ reads the result
// back identically.
func WriteOBJ(path string, m *Mesh) error {
	if err := m.Validate(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if len(m.Triangles) == 0 {
		return fmt.Errorf("writing %s: the mesh has no triangles", path)
	}
	return writeAtomic(path, func(w io.Writer) error {
		var b []byte
		b = fmt.Appendf(b, "# %d vertices, %d triangles, written by sofago meshio\n", m.NumPoints(), len(m.Triangles))
		for i := 0; i < m.NumPoints(); i++ {
			b = append(b, "v "...)
			b = strconv.AppendFloat(b, m.Points[3*i], 'g', -1, 64)
			b = append(b, ' ')
			b = strconv.AppendFloat(b, m.Points[3*i+1], 'g', -1, 64)
			b = append(b, ' ')
			b = strconv.AppendFloat(b, m.Points[3*i+2], 'g', -1, 64)
			b = append(b, '\n')
			if len(b) > 1<<16 {
				if _, err := w.Write(b); err != nil {
					return err
				}
				b = b[:0]
			}
		}
		for _, t := range m.Triangles {
			b = append(b, "f "...)
			b = strconv.AppendInt(b, int64(t[0]+1), 10)
			b = append(b, ' ')
			b = strconv.AppendInt(b, int64(t[1]+1), 10)
			b = append(b, ' ')
			b = strconv.AppendInt(b, int64(t[2]+1), 10)
			b = append(b, '\n')
			if len(b) > 1<<16 {
				if _, err := w.Write(b); err != nil {
					return err
				}
				b = b[:0]
			}
		}
		_, err := w.Write(b)
		return err
	})
}
