package meshio

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Vega .veg volumetric meshes (VegaFEM's volumetricMesh format): a
// *VERTICES section ("n 3 0 0", then "k x y z" with k = 1..n), an *ELEMENTS
// section ("TET" or "TETS", then "m 4 0", then "e a b c d" with 1-based
// vertex numbers), and *MATERIAL, *REGION and *SET sections, of which the
// ENU materials ("ENU, density, E, nu") are returned by ReadVEGMaterials and
// everything else is skipped. Commas count as spaces; lines starting with
// '#' are comments. Cubic (hexahedral) meshes and *INCLUDE are errors.

// VEGMaterial is a *MATERIAL section of a .veg file. Density, YoungModulus
// and PoissonRatio are set for Type "ENU" (Vega's isotropic material) and
// zero otherwise.
type VEGMaterial struct {
	Name         string
	Type         string
	Density      float64
	YoungModulus float64
	PoissonRatio float64
}

// ReadVEG reads a Vega .veg tetrahedral mesh.
func ReadVEG(path string) (*Mesh, error) {
	m, _, err := ReadVEGMaterials(path)
	return m, err
}

// ReadVEGMaterials reads a Vega .veg tetrahedral mesh and its materials.
func ReadVEGMaterials(path string) (*Mesh, []VEGMaterial, error) {
	data, err := readFile(path)
	if err != nil {
		return nil, nil, err
	}
	return ParseVEG(path, data)
}

// vegReader reads the significant lines of a .veg file.
type vegReader struct {
	*lineReader
	pending []string // a line read ahead, returned again by fields
}

// fields returns the fields of the next non-blank, non-comment line, or
// nil at the end of the data.
func (r *vegReader) fields() []string {
	if f := r.pending; f != nil {
		r.pending = nil
		return f
	}
	for {
		line, ok := r.next()
		if !ok {
			return nil
		}
		if isBlankOrComment(line, '#') {
			continue
		}
		if f := strings.Fields(strings.ReplaceAll(line, ",", " ")); len(f) > 0 {
			return f
		}
	}
}

// need returns the next line's fields or an end-of-file error.
func (r *vegReader) need(what string) ([]string, error) {
	if f := r.fields(); f != nil {
		return f, nil
	}
	return nil, r.eofError("expected " + what)
}

// header reads a section header of at least min integer fields.
func (r *vegReader) header(min int, what string) ([]int, error) {
	f, err := r.need(what)
	if err != nil {
		return nil, err
	}
	if len(f) < min {
		return nil, r.errorf("expected %s, found %d fields", what, len(f))
	}
	v := make([]int, len(f))
	for i, s := range f {
		if v[i], err = parseInt(s, what); err != nil {
			return nil, r.errorf("%w", err)
		}
	}
	return v, nil
}

// ParseVEG parses the text of a Vega .veg file; file names it in errors.
func ParseVEG(file string, data []byte) (*Mesh, []VEGMaterial, error) {
	r := &vegReader{lineReader: newLineReader(file, data)}
	m := &Mesh{Name: file}
	var mats []VEGMaterial
	seen := map[string]int{}
	for {
		f := r.fields()
		if f == nil {
			break
		}
		if !strings.HasPrefix(f[0], "*") {
			return nil, nil, r.errorf("expected a section such as *VERTICES, found %q", clip(strings.Join(f, " ")))
		}
		kw := strings.ToUpper(f[0])
		if at, dup := seen[kw]; dup && (kw == "*VERTICES" || kw == "*ELEMENTS") {
			return nil, nil, r.errorf("second %s section (the first is at line %d)", kw, at)
		}
		seen[kw] = r.line
		switch kw {
		case "*VERTICES":
			if err := r.vertices(m); err != nil {
				return nil, nil, err
			}
		case "*ELEMENTS":
			if m.Points == nil {
				return nil, nil, r.errorf("*ELEMENTS before *VERTICES")
			}
			if err := r.elements(m); err != nil {
				return nil, nil, err
			}
		case "*MATERIAL":
			mat, err := r.material(f)
			if err != nil {
				return nil, nil, err
			}
			mats = append(mats, mat)
		case "*REGION", "*SET":
			r.skip()
		case "*INCLUDE":
			return nil, nil, r.unsupportedf("*INCLUDE not supported: merge the included file")
		default:
			return nil, nil, r.errorf("unknown section %s (expected *VERTICES, *ELEMENTS, *MATERIAL, *REGION or *SET)", clip(f[0]))
		}
	}
	if m.Points == nil {
		return nil, nil, errorAt(file, 0, "no *VERTICES section")
	}
	if _, ok := seen["*ELEMENTS"]; !ok {
		return nil, nil, errorAt(file, 0, "no *ELEMENTS section")
	}
	return m, mats, nil
}

// skip reads past the lines of a skipped section, up to the next '*' line.
func (r *vegReader) skip() {
	for {
		f := r.fields()
		if f == nil {
			return
		}
		if strings.HasPrefix(f[0], "*") {
			r.pending = f
			return
		}
	}
}

func (r *vegReader) vertices(m *Mesh) error {
	h, err := r.header(1, "\"<#vertices> 3 0 0\"")
	if err != nil {
		return err
	}
	n := h[0]
	if n < 0 {
		return r.errorf("number of vertices %d is negative", n)
	}
	if len(h) > 1 && h[1] != 3 {
		return r.errorf("dimension %d: only 3-D meshes are read", h[1])
	}
	m.Points = make([]float64, 0, 3*capHint(n, r.remaining(), 8))
	for i := 0; i < n; i++ {
		f, err := r.need(fmt.Sprintf("vertex %d of %d", i+1, n))
		if err != nil {
			return err
		}
		if strings.HasPrefix(f[0], "*") {
			return r.errorf("%s after %d vertices: the header announces %d", f[0], i, n)
		}
		if len(f) != 4 {
			return r.errorf("vertex line: expected \"number x y z\", found %d fields", len(f))
		}
		k, err := parseInt(f[0], "vertex number")
		if err != nil {
			return r.errorf("%w", err)
		}
		if k != i+1 {
			return r.errorf("vertex numbered %d, expected %d (vertices are numbered 1, 2, ... in order)", k, i+1)
		}
		for a := 0; a < 3; a++ {
			c, err := parseCoord(f[1+a], "coordinate "+"xyz"[a:a+1])
			if err != nil {
				return r.errorf("vertex %d: %w", k, err)
			}
			m.Points = append(m.Points, c)
		}
	}
	return nil
}

func (r *vegReader) elements(m *Mesh) error {
	f, err := r.need("the element type (TET)")
	if err != nil {
		return err
	}
	switch strings.ToUpper(f[0]) {
	case "TET", "TETS":
	case "CUBIC", "CUBE", "CUBES":
		return r.unsupportedf("cubic (hexahedral) .veg meshes not supported")
	default:
		return r.errorf("element type %q: expected TET or TETS", clip(f[0]))
	}
	h, err := r.header(1, "\"<#elements> 4 0\"")
	if err != nil {
		return err
	}
	ne := h[0]
	if ne < 0 {
		return r.errorf("number of elements %d is negative", ne)
	}
	if len(h) > 1 && h[1] != 4 {
		return r.errorf("%d vertices per element: tetrahedra have 4", h[1])
	}
	n := m.NumPoints()
	m.Tetrahedra = make([][4]int, 0, capHint(ne, r.remaining(), 10))
	for e := 0; e < ne; e++ {
		f, err := r.need(fmt.Sprintf("element %d of %d", e+1, ne))
		if err != nil {
			return err
		}
		if strings.HasPrefix(f[0], "*") {
			return r.errorf("%s after %d elements: the header announces %d", f[0], e, ne)
		}
		if len(f) != 5 {
			return r.errorf("element line: expected \"number a b c d\", found %d fields", len(f))
		}
		if _, err := parseInt(f[0], "element number"); err != nil {
			return r.errorf("%w", err)
		}
		var t [4]int
		for k := range t {
			v, err := parseInt(f[1+k], "vertex number")
			if err != nil {
				return r.errorf("%w", err)
			}
			if v < 1 || v > n {
				return r.errorf("element %s: vertex number %d out of range [1, %d]", f[0], v, n)
			}
			t[k] = v - 1
		}
		if err := checkCell(t[:], n); err != nil {
			return r.errorf("element %s: %w", f[0], err)
		}
		m.Tetrahedra = append(m.Tetrahedra, t)
	}
	return nil
}

func (r *vegReader) material(head []string) (VEGMaterial, error) {
	line := r.line
	if len(head) != 2 {
		return VEGMaterial{}, r.errorf("expected \"*MATERIAL name\"")
	}
	mat := VEGMaterial{Name: head[1]}
	f, err := r.need("the material parameters")
	if err != nil {
		return mat, err
	}
	if strings.HasPrefix(f[0], "*") {
		return mat, errorAt(r.file, line, "*MATERIAL %s has no parameter line", mat.Name)
	}
	mat.Type = strings.ToUpper(f[0])
	if mat.Type != "ENU" {
		r.skip()
		return mat, nil
	}
	if len(f) != 4 {
		return mat, r.errorf("ENU material: expected \"ENU, density, youngModulus, poissonRatio\", found %d fields", len(f))
	}
	var v [3]float64
	for i, what := range []string{"density", "Young's modulus", "Poisson's ratio"} {
		if v[i], err = parseCoord(f[1+i], what); err != nil {
			return mat, r.errorf("%w", err)
		}
	}
	mat.Density, mat.YoungModulus, mat.PoissonRatio = v[0], v[1], v[2]
	return mat, nil
}

// WriteVEG writes m as a Vega .veg file (1-based numbering, no material),
// atomically. Vega meshes hold no triangles: m must have none.
func WriteVEG(path string, m *Mesh) error {
	return writeAtomic(path, func(w io.Writer) error { return EncodeVEG(w, m) })
}

// EncodeVEG writes m as a Vega .veg file.
func EncodeVEG(w io.Writer, m *Mesh) error {
	if err := m.Validate(); err != nil {
		return fmt.Errorf("writing %s: %w", m.Name, err)
	}
	if len(m.Triangles) > 0 {
		return fmt.Errorf("writing %s: a .veg file holds no triangles (%d given): clear them first", m.Name, len(m.Triangles))
	}
	bw := newWriter(w)
	n := m.NumPoints()
	bw.printf("# Vega mesh file.\n# %d vertices, %d elements\n\n*VERTICES\n%d 3 0 0\n", n, len(m.Tetrahedra), n)
	for i := 0; i < n; i++ {
		bw.printf("%d %s %s %s\n", i+1, formatFloat(m.Points[3*i]), formatFloat(m.Points[3*i+1]), formatFloat(m.Points[3*i+2]))
	}
	bw.printf("\n*ELEMENTS\nTET\n%d 4 0\n", len(m.Tetrahedra))
	for e, t := range m.Tetrahedra {
		bw.printf("%s %d %d %d %d\n", strconv.Itoa(e+1), t[0]+1, t[1]+1, t[2]+1, t[3]+1)
	}
	return bw.flush()
}
