package visual

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"

	"github.com/sofago/sofago/graph"
)

// surfaceFiles is the part the OBJ and STL exporters share: the surfaces of
// a subtree, a file stem for each, and a frame counter.
type surfaceFiles struct {
	FrameOutput
	dir      string
	surfaces []Surface
	stems    []string
}

func (sf *surfaceFiles) init(n *graph.Node, suffix string) error {
	dir, err := sf.outputDir(n, suffix)
	if err != nil {
		return err
	}
	sf.dir = dir
	sf.surfaces = Surfaces(n)
	if len(sf.surfaces) == 0 {
		return fmt.Errorf("no visual surface in this node or below to export; add a VisualModel (in a child node, fed by a mapping)")
	}
	used := map[string]bool{}
	sf.stems = sf.stems[:0]
	for _, s := range sf.surfaces {
		stem := FileStem(s.Base().Path())
		for i := 2; used[stem]; i++ {
			stem = fmt.Sprintf("%s_%d", FileStem(s.Base().Path()), i)
		}
		used[stem] = true
		sf.stems = append(sf.stems, stem)
	}
	return nil
}

// framePath is the file of surface i at frame k.
func (sf *surfaceFiles) framePath(i, k int, ext string) string {
	return filepath.Join(sf.dir, fmt.Sprintf("%s_%06d%s", sf.stems[i], k, ext))
}

// checkFiniteSurface refuses a surface with non-finite points: the file
// would be unreadable, and it is a failed step's leftover, not a result.
func checkFiniteSurface(s Surface) error {
	pts, _, _ := s.SurfaceMesh()
	for i, x := range pts {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("surface %q: coordinate %d of vertex %d is %g; not writing a non-finite frame", s.Base().Path(), i%3, i/3, x)
		}
	}
	return nil
}

// OBJExporter writes the visual surfaces (VisualModel, or any Surface) of
// its node and the nodes below it as a Wavefront OBJ sequence, one file
// per surface per frame, <stem>_<frame:06d>.obj, with vertex normals and a
// material (<stem>.mtl, the surface's colour): Blender's "import OBJ as
// sequence" (Stop-motion-OBJ) and most tools read it as an animation.
// Frames follow FrameOutput; every file is written atomically.
type OBJExporter struct {
	graph.ObjectBase
	surfaceFiles
	buf []byte
}

func init() {
	graph.Register(graph.TypeInfo{
		Name:    "OBJExporter",
		Kind:    graph.KindExporter,
		Summary: "Writes the visual surfaces of its node's subtree as a Wavefront OBJ sequence (a file per surface per frame, with vertex normals and a .mtl colour), each file written atomically.",
		New:     func() graph.Object { return &OBJExporter{surfaceFiles: surfaceFiles{FrameOutput: newFrameOutput()}} },
	})
}

// Init finds the surfaces, creates the folder and writes each surface's
// material file.
func (e *OBJExporter) Init() error {
	if err := e.init(e.Node, "obj"); err != nil {
		return err
	}
	for i, s := range e.surfaces {
		c := s.SurfaceColor()
		mtl := fmt.Sprintf("# material of %s, written by sofago\nnewmtl %s\nKa 0 0 0\nKd %g %g %g\nKs 0 0 0\nd 1\nillum 1\n", s.Base().Path(), e.stems[i], c[0], c[1], c[2])
		path := filepath.Join(e.dir, e.stems[i]+".mtl")
		if err := writeFileAtomic(path, e.Sync, func(w io.Writer) error {
			_, err := io.WriteString(w, mtl)
			return err
		}); err != nil {
			return err
		}
	}
	return nil
}

// UpdateVisual writes frame 0 at the end of Scene.Init.
func (e *OBJExporter) UpdateVisual() error {
	if !e.initialFrame() {
		return nil
	}
	return e.write()
}

// Export implements graph.Exporter.
func (e *OBJExporter) Export(t float64, step int) error {
	if !e.exportDue(step) {
		return nil
	}
	return e.write()
}

// Close writes the last step if it fell between two frames.
func (e *OBJExporter) Close() error {
	if !e.finalDue() {
		return nil
	}
	return e.write()
}

// Output describes what was written, for summaries.
func (e *OBJExporter) Output() (what string, frames, files int, where string) {
	frames, files = e.Written()
	return "OBJ sequence", frames, files, e.dir
}

func (e *OBJExporter) write() error {
	for _, s := range e.surfaces {
		if err := checkFiniteSurface(s); err != nil {
			return err
		}
	}
	sc := e.Node.Scene()
	for i, s := range e.surfaces {
		pts, tris, nrm := s.SurfaceMesh()
		e.buf = AppendOBJ(e.buf[:0], e.stems[i], pts, tris, nrm, sc.Time, sc.StepCount)
		if err := writeFileAtomic(e.framePath(i, e.frames, ".obj"), e.Sync, func(w io.Writer) error {
			_, err := w.Write(e.buf)
			return err
		}); err != nil {
			return fmt.Errorf("surface %q: %w", s.Base().Path(), err)
		}
	}
	e.wrote(sc.StepCount, len(e.surfaces))
	return nil
}

// AppendOBJ appends a Wavefront OBJ of the surface to b: a comment with
// the time and step, "mtllib <name>.mtl", "o <name>", "v" and "vn" lines
// (shortest decimals that read back exactly), "usemtl <name>", and "f
// a//a b//b c//c" faces (1-based).
func AppendOBJ(b []byte, name string, points []float64, tris [][3]int, normals []float64, t float64, step int) []byte {
	b = fmt.Appendf(b, "# %s: %d vertices, %d triangles, t = %s s (step %d), written by sofago\n", name, len(points)/3, len(tris), graph.FormatTime(t), step)
	b = fmt.Appendf(b, "mtllib %s.mtl\no %s\n", name, name)
	vec := func(tag string, v []float64) {
		for i := 0; i+2 < len(v); i += 3 {
			b = append(b, tag...)
			b = strconv.AppendFloat(b, v[i], 'g', -1, 64)
			b = append(b, ' ')
			b = strconv.AppendFloat(b, v[i+1], 'g', -1, 64)
			b = append(b, ' ')
			b = strconv.AppendFloat(b, v[i+2], 'g', -1, 64)
			b = append(b, '\n')
		}
	}
	vec("v ", points)
	vec("vn ", normals)
	b = fmt.Appendf(b, "usemtl %s\n", name)
	for _, tr := range tris {
		b = append(b, 'f')
		for _, v := range tr {
			b = append(b, ' ')
			b = strconv.AppendInt(b, int64(v+1), 10)
			b = append(b, "//"...)
			b = strconv.AppendInt(b, int64(v+1), 10)
		}
		b = append(b, '\n')
	}
	return b
}

// STLExporter writes the visual surfaces of its node and the nodes below it
// as a binary STL sequence, one file per surface per frame,
// <stem>_<frame:06d>.stl (coordinates rounded to float32, as the format
// stores them; facet normals from the vertex order). Frames follow
// FrameOutput; every file is written atomically.
type STLExporter struct {
	graph.ObjectBase
	surfaceFiles
	ASCII bool `toml:"ascii" doc:"write ASCII STL instead of binary (larger, slower, human-readable)"`
}

func init() {
	graph.Register(graph.TypeInfo{
		Name:    "STLExporter",
		Kind:    graph.KindExporter,
		Summary: "Writes the visual surfaces of its node's subtree as an STL sequence (binary by default; a file per surface per frame), each file written atomically.",
		New:     func() graph.Object { return &STLExporter{surfaceFiles: surfaceFiles{FrameOutput: newFrameOutput()}} },
	})
}

// Init finds the surfaces and creates the folder.
func (e *STLExporter) Init() error { return e.init(e.Node, "stl") }

// UpdateVisual writes frame 0 at the end of Scene.Init.
func (e *STLExporter) UpdateVisual() error {
	if !e.initialFrame() {
		return nil
	}
	return e.write()
}

// Export implements graph.Exporter.
func (e *STLExporter) Export(t float64, step int) error {
	if !e.exportDue(step) {
		return nil
	}
	return e.write()
}

// Close writes the last step if it fell between two frames.
func (e *STLExporter) Close() error {
	if !e.finalDue() {
		return nil
	}
	return e.write()
}

// Output describes what was written, for summaries.
func (e *STLExporter) Output() (what string, frames, files int, where string) {
	frames, files = e.Written()
	return "STL sequence", frames, files, e.dir
}

func (e *STLExporter) write() error {
	for _, s := range e.surfaces {
		if err := checkFiniteSurface(s); err != nil {
			return err
		}
		if pts, _, _ := s.SurfaceMesh(); overflows32(pts) {
			return fmt.Errorf("surface %q: a coordinate overflows the float32 of STL", s.Base().Path())
		}
	}
	sc := e.Node.Scene()
	for i, s := range e.surfaces {
		pts, tris, _ := s.SurfaceMesh()
		name := e.stems[i]
		err := writeFileAtomic(e.framePath(i, e.frames, ".stl"), e.Sync, func(w io.Writer) error {
			if e.ASCII {
				return WriteSTLASCII(w, name, pts, tris)
			}
			return WriteSTLBinary(w, fmt.Sprintf("%s t=%s step %d, binary STL written by sofago", name, graph.FormatTime(sc.Time), sc.StepCount), pts, tris)
		})
		if err != nil {
			return fmt.Errorf("surface %q: %w", s.Base().Path(), err)
		}
	}
	e.wrote(sc.StepCount, len(e.surfaces))
	return nil
}

func overflows32(v []float64) bool {
	for _, x := range v {
		if math.Abs(x) > math.MaxFloat32 {
			return true
		}
	}
	return false
}

// facetNormal returns the unit normal of triangle t (float32, as STL
// stores it), or zero for a degenerate one.
func facetNormal(points []float64, t [3]int) [3]float32 {
	a, b, c := 3*t[0], 3*t[1], 3*t[2]
	ux, uy, uz := points[b]-points[a], points[b+1]-points[a+1], points[b+2]-points[a+2]
	vx, vy, vz := points[c]-points[a], points[c+1]-points[a+1], points[c+2]-points[a+2]
	nx, ny, nz := uy*vz-uz*vy, uz*vx-ux*vz, ux*vy-uy*vx
	l := math.Sqrt(nx*nx + ny*ny + nz*nz)
	if l == 0 {
		return [3]float32{}
	}
	return [3]float32{float32(nx / l), float32(ny / l), float32(nz / l)}
}

// WriteSTLBinary writes the surface as binary STL: an 80-byte header (the
// text, cut or padded; it never starts with "solid", which some readers
// take for ASCII), the triangle count, then 50 bytes per triangle (normal,
// three vertices as little-endian float32, a zero attribute count).
func WriteSTLBinary(w io.Writer, header string, points []float64, tris [][3]int) error {
	if len(tris) > math.MaxUint32 {
		return fmt.Errorf("%d triangles do not fit a binary STL count", len(tris))
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	var h [80]byte
	if len(header) >= 5 && header[:5] == "solid" {
		header = "stl " + header
	}
	copy(h[:], header)
	bw.Write(h[:])
	var rec [50]byte
	binary.LittleEndian.PutUint32(rec[:4], uint32(len(tris)))
	bw.Write(rec[:4])
	put := func(off int, v float32) { binary.LittleEndian.PutUint32(rec[off:], math.Float32bits(v)) }
	for _, t := range tris {
		n := facetNormal(points, t)
		put(0, n[0])
		put(4, n[1])
		put(8, n[2])
		for k, v := range t {
			put(12+12*k, float32(points[3*v]))
			put(16+12*k, float32(points[3*v+1]))
			put(20+12*k, float32(points[3*v+2]))
		}
		rec[48], rec[49] = 0, 0
		bw.Write(rec[:])
	}
	return bw.Flush()
}

// WriteSTLASCII writes the surface as ASCII STL (float32 values, as the
// binary form stores them, printed exactly).
func WriteSTLASCII(w io.Writer, name string, points []float64, tris [][3]int) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	var b []byte
	f32 := func(x float32) { b = strconv.AppendFloat(b, float64(x), 'g', -1, 32) }
	fmt.Fprintf(bw, "solid %s\n", name)
	for _, t := range tris {
		n := facetNormal(points, t)
		b = append(b[:0], "  facet normal "...)
		f32(n[0])
		b = append(b, ' ')
		f32(n[1])
		b = append(b, ' ')
		f32(n[2])
		b = append(b, "\n    outer loop\n"...)
		for _, v := range t {
			b = append(b, "      vertex "...)
			f32(float32(points[3*v]))
			b = append(b, ' ')
			f32(float32(points[3*v+1]))
			b = append(b, ' ')
			f32(float32(points[3*v+2]))
			b = append(b, '\n')
		}
		b = append(b, "    endloop\n  endfacet\n"...)
		bw.Write(b)
	}
	fmt.Fprintf(bw, "endsolid %s\n", name)
	return bw.Flush()
}
