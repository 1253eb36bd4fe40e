package meshio

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Gmsh .msh files (https://gmsh.info/doc/texinfo/gmsh.html#MSH-file-format),
// ASCII versions 2.x (2.0–2.2, one flat node list and one flat element list)
// and 4.1 (nodes and elements grouped in entity blocks). Node tags need not
// be contiguous or sorted; they are mapped to 0-based indices in file order.
// Linear tetrahedra (type 4), 8-node hexahedra (type 5, Gmsh's corner
// order, which is VTK's) and triangles (type 2) are read; points and
// lines (of any order) are skipped, since they carry no volume or surface;
// every other 2-D or 3-D element (quadrangles, prisms, pyramids,
// second-order elements, ...) is an error rather than a silent loss of
// part of the body. Sections other than $MeshFormat, $Nodes and $Elements
// ($PhysicalNames, $Entities, $NodeData, ...) are skipped.

// gmshElement describes one Gmsh element type: its dimension and node count.
type gmshElement struct {
	name string
	dim  int
	n    int
}

// gmshTypes lists the element types of the Gmsh reference manual by number.
var gmshTypes = map[int]gmshElement{
	1: {"2-node line", 1, 2}, 2: {"3-node triangle", 2, 3}, 3: {"4-node quadrangle", 2, 4},
	4: {"4-node tetrahedron", 3, 4}, 5: {"8-node hexahedron", 3, 8}, 6: {"6-node prism", 3, 6},
	7: {"5-node pyramid", 3, 5}, 8: {"3-node line", 1, 3}, 9: {"6-node triangle", 2, 6},
	10: {"9-node quadrangle", 2, 9}, 11: {"10-node tetrahedron", 3, 10}, 12: {"27-node hexahedron", 3, 27},
	13: {"18-node prism", 3, 18}, 14: {"14-node pyramid", 3, 14}, 15: {"1-node point", 0, 1},
	16: {"8-node quadrangle", 2, 8}, 17: {"20-node hexahedron", 3, 20}, 18: {"15-node prism", 3, 15},
	19: {"13-node pyramid", 3, 13}, 20: {"9-node triangle", 2, 9}, 21: {"10-node triangle", 2, 10},
	22: {"12-node triangle", 2, 12}, 23: {"15-node triangle", 2, 15}, 24: {"15-node triangle", 2, 15},
	25: {"21-node triangle", 2, 21}, 26: {"4-node line", 1, 4}, 27: {"5-node line", 1, 5},
	28: {"6-node line", 1, 6}, 29: {"20-node tetrahedron", 3, 20}, 30: {"35-node tetrahedron", 3, 35},
	31: {"56-node tetrahedron", 3, 56},
}

// Gmsh element type numbers this package reads.
const (
	gmshTriangle    = 2
	gmshTetrahedron = 4
	gmshHexahedron  = 5
)

// ReadMSH reads a Gmsh ASCII .msh file (version 2.x or 4.1).
func ReadMSH(path string) (*Mesh, error) {
	data, err := readFile(path)
	if err != nil {
		return nil, err
	}
	return ParseMSH(path, data)
}

// mshReader holds the state of one .msh parse.
type mshReader struct {
	*lineReader
	major    int         // 2 or 4
	index    map[int]int // node tag → 0-based index
	mesh     *Mesh
	sections map[string]int // section name → line where it was read
}

// ParseMSH parses the text of a Gmsh ASCII .msh file; file names it in errors.
func ParseMSH(file string, data []byte) (*Mesh, error) {
	r := &mshReader{lineReader: newLineReader(file, data), mesh: &Mesh{Name: file}, sections: map[string]int{}}
	for {
		line, ok := r.next()
		if !ok {
			break
		}
		t := strings.TrimSpace(line)
		if t == "" {
			continue
		}
		if !strings.HasPrefix(t, "$") || strings.ContainsAny(t, " \t") {
			return nil, r.errorf("expected a section header such as $Nodes, found %q", clip(t))
		}
		name := t[1:]
		if strings.HasPrefix(name, "End") {
			return nil, r.errorf("%s without a matching $%s", t, strings.TrimPrefix(name, "End"))
		}
		if at, dup := r.sections[name]; dup && (name == "MeshFormat" || name == "Nodes" || name == "Elements") {
			return nil, r.errorf("second $%s section (the first is at line %d)", name, at)
		}
		r.sections[name] = r.line
		if name != "MeshFormat" && r.major == 0 {
			return nil, r.errorf("$%s before $MeshFormat (not a Gmsh file?)", name)
		}
		var err error
		switch name {
		case "MeshFormat":
			err = r.meshFormat()
		case "Nodes":
			if r.major == 2 {
				err = r.nodes2()
			} else {
				err = r.nodes4()
			}
		case "Elements":
			if r.index == nil {
				return nil, r.errorf("$Elements before $Nodes")
			}
			if r.major == 2 {
				err = r.elements2()
			} else {
				err = r.elements4()
			}
		default:
			err = r.skipSection(name)
		}
		if err != nil {
			return nil, err
		}
	}
	if r.major == 0 {
		return nil, errorAt(file, 0, "no $MeshFormat section (not a Gmsh file?)")
	}
	if r.index == nil {
		return nil, errorAt(file, 0, "no $Nodes section")
	}
	if _, ok := r.sections["Elements"]; !ok {
		return nil, errorAt(file, 0, "no $Elements section")
	}
	return r.mesh, nil
}

// clip shortens a string quoted in an error message.
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// fields returns the fields of the next line, which must exist; what says
// what was expected, for the error.
func (r *mshReader) fields(what string) ([]string, error) {
	line, ok := r.next()
	if !ok {
		return nil, r.eofError("expected " + what)
	}
	return strings.Fields(line), nil
}

// end reads the line that must close section name.
func (r *mshReader) end(name, after string) error {
	f, err := r.fields("$End" + name)
	if err != nil {
		return err
	}
	if len(f) != 1 || f[0] != "$End"+name {
		return r.errorf("expected $End%s after %s, found %q (wrong count?)", name, after, clip(strings.Join(f, " ")))
	}
	return nil
}

func (r *mshReader) skipSection(name string) error {
	start := r.line
	for {
		line, ok := r.next()
		if !ok {
			return errorAt(r.file, start, "section $%s has no $End%s", name, name)
		}
		if strings.TrimSpace(line) == "$End"+name {
			return nil
		}
	}
}

func (r *mshReader) meshFormat() error {
	f, err := r.fields("version, file type and data size")
	if err != nil {
		return err
	}
	if len(f) != 3 {
		return r.errorf("expected \"version file-type data-size\", found %d fields", len(f))
	}
	version, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return r.errorf("version %q is not a number", clip(f[0]))
	}
	switch f[1] {
	case "0":
	case "1":
		return r.unsupportedf("binary .msh not supported, save as ASCII (Gmsh: File > Export, or -format msh41 without -bin)")
	default:
		return r.errorf("file type %q: expected 0 (ASCII) or 1 (binary)", clip(f[1]))
	}
	switch {
	case version >= 2 && version < 3:
		r.major = 2
	case version == 4.1:
		r.major = 4
	default:
		return r.unsupportedf("Gmsh format version %s not supported (only 2.x and 4.1 ASCII; save as 4.1 or 2.2)", f[0])
	}
	return r.end("MeshFormat", "the format line")
}

// addNode records node tag at the next index with coordinates f[0:3].
func (r *mshReader) addNode(tag int, f []string) error {
	if _, dup := r.index[tag]; dup {
		return r.errorf("node tag %d defined twice", tag)
	}
	r.index[tag] = len(r.mesh.Points) / 3
	for a := 0; a < 3; a++ {
		c, err := parseCoord(f[a], "coordinate "+"xyz"[a:a+1])
		if err != nil {
			return r.errorf("node %d: %w", tag, err)
		}
		r.mesh.Points = append(r.mesh.Points, c)
	}
	return nil
}

// nodes2 reads a version 2 $Nodes section: a count, then "tag x y z" lines.
func (r *mshReader) nodes2() error {
	f, err := r.fields("the node count")
	if err != nil {
		return err
	}
	if len(f) != 1 {
		return r.errorf("expected the number of nodes alone on the line, found %d fields", len(f))
	}
	n, err := parseCount(f[0], "number of nodes")
	if err != nil {
		return r.errorf("%w", err)
	}
	r.index = make(map[int]int, capHint(n, r.remaining(), 8))
	r.mesh.Points = make([]float64, 0, 3*capHint(n, r.remaining(), 8))
	for i := 0; i < n; i++ {
		f, err := r.fields(fmt.Sprintf("node %d of %d", i+1, n))
		if err != nil {
			return err
		}
		if len(f) != 4 {
			return r.errorf("node line: expected \"tag x y z\", found %d fields (wrong node count?)", len(f))
		}
		tag, err := parseInt(f[0], "node tag")
		if err != nil {
			return r.errorf("%w", err)
		}
		if err := r.addNode(tag, f[1:]); err != nil {
			return err
		}
	}
	return r.end("Nodes", fmt.Sprintf("%d nodes", n))
}

// ints parses every field of f as an integer.
func (r *mshReader) ints(f []string, what string) ([]int, error) {
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

// nodes4 reads a version 4.1 $Nodes section: a header, then entity blocks
// of node tags followed by their coordinates.
func (r *mshReader) nodes4() error {
	f, err := r.fields("the $Nodes header")
	if err != nil {
		return err
	}
	if len(f) != 4 {
		return r.errorf("expected \"numEntityBlocks numNodes minNodeTag maxNodeTag\", found %d fields", len(f))
	}
	h, err := r.ints(f, "$Nodes header")
	if err != nil {
		return err
	}
	blocks, n, minTag, maxTag := h[0], h[1], h[2], h[3]
	if blocks < 0 || n < 0 {
		return r.errorf("negative block or node count")
	}
	r.index = make(map[int]int, capHint(n, r.remaining(), 8))
	r.mesh.Points = make([]float64, 0, 3*capHint(n, r.remaining(), 8))
	for b := 0; b < blocks; b++ {
		f, err := r.fields(fmt.Sprintf("node block %d of %d", b+1, blocks))
		if err != nil {
			return err
		}
		if len(f) != 4 {
			return r.errorf("node block header: expected \"entityDim entityTag parametric numNodesInBlock\", found %d fields", len(f))
		}
		bh, err := r.ints(f, "node block header")
		if err != nil {
			return err
		}
		dim, parametric, m := bh[0], bh[2], bh[3]
		if dim < 0 || dim > 3 {
			return r.errorf("entity dimension %d is not 0, 1, 2 or 3", dim)
		}
		if parametric != 0 && parametric != 1 {
			return r.errorf("parametric flag %d is not 0 or 1", parametric)
		}
		if m < 0 || len(r.mesh.Points)/3+m > n {
			return r.errorf("node block of %d nodes: more nodes than the %d of the header", m, n)
		}
		tags := make([]int, 0, capHint(m, r.remaining(), 2))
		for i := 0; i < m; i++ {
			f, err := r.fields("a node tag")
			if err != nil {
				return err
			}
			if len(f) != 1 {
				return r.errorf("expected one node tag per line, found %d fields (wrong block size?)", len(f))
			}
			tag, err := parseInt(f[0], "node tag")
			if err != nil {
				return r.errorf("%w", err)
			}
			if tag < minTag || tag > maxTag {
				return r.errorf("node tag %d outside [%d, %d] of the $Nodes header", tag, minTag, maxTag)
			}
			tags = append(tags, tag)
		}
		want := 3
		if parametric == 1 {
			want += dim
		}
		for _, tag := range tags {
			f, err := r.fields("node coordinates")
			if err != nil {
				return err
			}
			if len(f) != want {
				return r.errorf("node %d: expected %d coordinates, found %d (wrong block size?)", tag, want, len(f))
			}
			if err := r.addNode(tag, f); err != nil {
				return err
			}
		}
	}
	if got := len(r.mesh.Points) / 3; got != n {
		return r.errorf("$Nodes header announces %d nodes, the blocks hold %d", n, got)
	}
	return r.end("Nodes", fmt.Sprintf("%d node blocks", blocks))
}

// addElement records one element of Gmsh type typ with node tags nodes.
func (r *mshReader) addElement(typ int, nodes []int) error {
	var idx [8]int
	for i, tag := range nodes {
		k, ok := r.index[tag]
		if !ok {
			return r.errorf("element refers to node tag %d, which $Nodes does not define", tag)
		}
		idx[i] = k
	}
	if err := checkCell(idx[:len(nodes)], len(r.mesh.Points)/3); err != nil {
		return r.errorf("element: %w", err)
	}
	switch typ {
	case gmshTriangle:
		r.mesh.Triangles = append(r.mesh.Triangles, [3]int{idx[0], idx[1], idx[2]})
	case gmshTetrahedron:
		r.mesh.Tetrahedra = append(r.mesh.Tetrahedra, [4]int(idx[:4]))
	case gmshHexahedron:
		r.mesh.Hexahedra = append(r.mesh.Hexahedra, idx)
	}
	return nil
}

// elementType looks up a Gmsh element type and says whether it is read
// (triangle, tetrahedron, hexahedron), skipped (points, lines) or an
// error.
func (r *mshReader) elementType(typ int) (e gmshElement, keep bool, err error) {
	e, known := gmshTypes[typ]
	if !known {
		return e, false, r.errorf("unknown Gmsh element type %d", typ)
	}
	switch {
	case typ == gmshTriangle || typ == gmshTetrahedron || typ == gmshHexahedron:
		return e, true, nil
	case e.dim <= 1:
		return e, false, nil
	}
	return e, false, r.unsupportedf("element type %d (%s) not supported: only linear tetrahedra (4), 8-node hexahedra (5) and triangles (2) are read; mesh with linear tetrahedra or hexahedra", typ, e.name)
}

// elements2 reads a version 2 $Elements section: a count, then
// "tag type numTags tags... nodes..." lines.
func (r *mshReader) elements2() error {
	f, err := r.fields("the element count")
	if err != nil {
		return err
	}
	if len(f) != 1 {
		return r.errorf("expected the number of elements alone on the line, found %d fields", len(f))
	}
	n, err := parseCount(f[0], "number of elements")
	if err != nil {
		return r.errorf("%w", err)
	}
	for i := 0; i < n; i++ {
		f, err := r.fields(fmt.Sprintf("element %d of %d", i+1, n))
		if err != nil {
			return err
		}
		if len(f) < 3 {
			return r.errorf("element line: expected \"tag type numTags tags... nodes...\", found %d fields (wrong element count?)", len(f))
		}
		v, err := r.ints(f, "element field")
		if err != nil {
			return err
		}
		e, keep, err := r.elementType(v[1])
		if err != nil {
			return err
		}
		if ntags := v[2]; ntags < 0 || len(v) != 3+ntags+e.n {
			return r.errorf("element %d (%s) with %d tags: expected %d fields, found %d", v[0], e.name, ntags, 3+max(ntags, 0)+e.n, len(v))
		}
		if keep {
			if err := r.addElement(v[1], v[3+v[2]:]); err != nil {
				return err
			}
		}
	}
	return r.end("Elements", fmt.Sprintf("%d elements", n))
}

// elements4 reads a version 4.1 $Elements section: a header, then entity
// blocks of one element type, one "tag nodes..." line per element.
func (r *mshReader) elements4() error {
	f, err := r.fields("the $Elements header")
	if err != nil {
		return err
	}
	if len(f) != 4 {
		return r.errorf("expected \"numEntityBlocks numElements minElementTag maxElementTag\", found %d fields", len(f))
	}
	h, err := r.ints(f, "$Elements header")
	if err != nil {
		return err
	}
	blocks, n := h[0], h[1]
	if blocks < 0 || n < 0 {
		return r.errorf("negative block or element count")
	}
	total := 0
	for b := 0; b < blocks; b++ {
		f, err := r.fields(fmt.Sprintf("element block %d of %d", b+1, blocks))
		if err != nil {
			return err
		}
		if len(f) != 4 {
			return r.errorf("element block header: expected \"entityDim entityTag elementType numElementsInBlock\", found %d fields", len(f))
		}
		bh, err := r.ints(f, "element block header")
		if err != nil {
			return err
		}
		typ, m := bh[2], bh[3]
		e, keep, err := r.elementType(typ)
		if err != nil {
			return err
		}
		if m < 0 || total+m > n {
			return r.errorf("element block of %d elements: more elements than the %d of the header", m, n)
		}
		total += m
		for i := 0; i < m; i++ {
			f, err := r.fields("an element")
			if err != nil {
				return err
			}
			if len(f) != 1+e.n {
				return r.errorf("%s: expected a tag and %d node tags, found %d fields (wrong block size?)", e.name, e.n, len(f))
			}
			v, err := r.ints(f, "element field")
			if err != nil {
				return err
			}
			if keep {
				if err := r.addElement(typ, v[1:]); err != nil {
					return err
				}
			}
		}
	}
	if total != n {
		return r.errorf("$Elements header announces %d elements, the blocks hold %d", n, total)
	}
	return r.end("Elements", fmt.Sprintf("%d element blocks", blocks))
}

// WriteMSH writes m as a Gmsh ASCII file of version "2.2" or "4.1",
// atomically.
func WriteMSH(path string, m *Mesh, version string) error {
	return writeAtomic(path, func(w io.Writer) error { return EncodeMSH(w, m, version) })
}

// EncodeMSH writes m in Gmsh ASCII format "2.2" or "4.1". Nodes are tagged
// 1..n in order; triangles come before tetrahedra and hexahedra (Gmsh
// orders elements by dimension), each kind in its own order. Version 4.1
// puts every node, tetrahedron and hexahedron in volume entity 1 and the
// triangles in surface entity 1.
func EncodeMSH(w io.Writer, m *Mesh, version string) error {
	if version != "2.2" && version != "4.1" {
		return unsupportedf("Gmsh version %q: write 2.2 or 4.1", version)
	}
	if err := m.Validate(); err != nil {
		return fmt.Errorf("writing %s: %w", m.Name, err)
	}
	bw := newWriter(w)
	n := m.NumPoints()
	bw.printf("$MeshFormat\n%s 0 8\n$EndMeshFormat\n", version)
	if version == "2.2" {
		bw.printf("$Nodes\n%d\n", n)
		for i := 0; i < n; i++ {
			bw.printf("%d %s %s %s\n", i+1, formatFloat(m.Points[3*i]), formatFloat(m.Points[3*i+1]), formatFloat(m.Points[3*i+2]))
		}
		bw.printf("$EndNodes\n$Elements\n%d\n", len(m.Triangles)+len(m.Tetrahedra)+len(m.Hexahedra))
		id := 0
		for _, t := range m.Triangles {
			id++
			bw.printf("%d 2 2 0 1 %d %d %d\n", id, t[0]+1, t[1]+1, t[2]+1)
		}
		for _, t := range m.Tetrahedra {
			id++
			bw.printf("%d 4 2 0 1 %d %d %d %d\n", id, t[0]+1, t[1]+1, t[2]+1, t[3]+1)
		}
		for _, h := range m.Hexahedra {
			id++
			bw.printf("%d 5 2 0 1 %d %d %d %d %d %d %d %d\n", id, h[0]+1, h[1]+1, h[2]+1, h[3]+1, h[4]+1, h[5]+1, h[6]+1, h[7]+1)
		}
		bw.printf("$EndElements\n")
		return bw.flush()
	}
	// Version 4.1: a minimal $Entities section (one surface bounding one
	// volume), so that Gmsh itself reopens the file.
	lo, hi := bounds(m.Points)
	box := fmt.Sprintf("%s %s %s %s %s %s", formatFloat(lo[0]), formatFloat(lo[1]), formatFloat(lo[2]),
		formatFloat(hi[0]), formatFloat(hi[1]), formatFloat(hi[2]))
	hasSurf, hasVol := len(m.Triangles) > 0, len(m.Tetrahedra) > 0 || len(m.Hexahedra) > 0 || len(m.Triangles) == 0
	bw.printf("$Entities\n0 0 %d %d\n", b2i(hasSurf), b2i(hasVol))
	if hasSurf {
		bw.printf("1 %s 0 0\n", box)
	}
	if hasVol {
		if hasSurf {
			bw.printf("1 %s 0 1 1\n", box)
		} else {
			bw.printf("1 %s 0 0\n", box)
		}
	}
	bw.printf("$EndEntities\n")
	nodeDim := 3
	if !hasVol {
		nodeDim = 2
	}
	if n > 0 {
		bw.printf("$Nodes\n1 %d 1 %d\n%d 1 0 %d\n", n, n, nodeDim, n)
		for i := 0; i < n; i++ {
			bw.printf("%d\n", i+1)
		}
		for i := 0; i < n; i++ {
			bw.printf("%s %s %s\n", formatFloat(m.Points[3*i]), formatFloat(m.Points[3*i+1]), formatFloat(m.Points[3*i+2]))
		}
	} else {
		bw.printf("$Nodes\n0 0 0 0\n")
	}
	bw.printf("$EndNodes\n")
	ne := len(m.Triangles) + len(m.Tetrahedra) + len(m.Hexahedra)
	nb := b2i(len(m.Triangles) > 0) + b2i(len(m.Tetrahedra) > 0) + b2i(len(m.Hexahedra) > 0)
	if ne > 0 {
		bw.printf("$Elements\n%d %d 1 %d\n", nb, ne, ne)
	} else {
		bw.printf("$Elements\n0 0 0 0\n")
	}
	id := 0
	if len(m.Triangles) > 0 {
		bw.printf("2 1 2 %d\n", len(m.Triangles))
		for _, t := range m.Triangles {
			id++
			bw.printf("%d %d %d %d\n", id, t[0]+1, t[1]+1, t[2]+1)
		}
	}
	if len(m.Tetrahedra) > 0 {
		bw.printf("3 1 4 %d\n", len(m.Tetrahedra))
		for _, t := range m.Tetrahedra {
			id++
			bw.printf("%d %d %d %d %d\n", id, t[0]+1, t[1]+1, t[2]+1, t[3]+1)
		}
	}
	if len(m.Hexahedra) > 0 {
		bw.printf("3 1 5 %d\n", len(m.Hexahedra))
		for _, h := range m.Hexahedra {
			id++
			bw.printf("%d %d %d %d %d %d %d %d %d\n", id, h[0]+1, h[1]+1, h[2]+1, h[3]+1, h[4]+1, h[5]+1, h[6]+1, h[7]+1)
		}
	}
	bw.printf("$EndElements\n")
	return bw.flush()
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// bounds returns the bounding box of flat xyz points (zeros when empty).
func bounds(p []float64) (lo, hi [3]float64) {
	for i := 0; i+2 < len(p); i += 3 {
		for a := 0; a < 3; a++ {
			if i == 0 || p[i+a] < lo[a] {
				lo[a] = p[i+a]
			}
			if i == 0 || p[i+a] > hi[a] {
				hi[a] = p[i+a]
			}
		}
	}
	return lo, hi
}
