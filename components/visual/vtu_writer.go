package visual

import (
	"bufio"
	"encoding/xml"
	"errors"
	"fmt"
	"github.com/sofago/sofago/atomicfile"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/meshio"
)

// VTK cell types used here (VTK's vtkCellType.h).
const (
	CellVertex      = meshio.VTKVertex
	CellTriangle    = meshio.VTKTriangle
	CellTetrahedron = meshio.VTKTetrahedron
	CellHexahedron  = meshio.VTKHexahedron
	CellPolyhedron  = meshio.VTKPolyhedron
)

// Grid is one frame of a VTK unstructured grid: points, cells in VTK's
// connectivity/offsets/types form, and per-point and per-cell data arrays
// (meshio.VTUGrid: the project has one .vtu writer and one parser, in
// package meshio, which MeshLoader reads meshes with).
type Grid = meshio.VTUGrid

// DataArray is a named per-point (or per-cell) array with Components
// numbers per point (or cell).
type DataArray = meshio.VTUArray

// WriteVTU writes g as an ASCII XML UnstructuredGrid (VTK file format 1.0)
// with meshio.EncodeVTUGrid: numbers in strconv's shortest representation
// that parses back to the same float64, so a reader recovers them exactly;
// an inconsistent grid is an error, not a file ParaView rejects.
func WriteVTU(w io.Writer, g *Grid) error { return meshio.EncodeVTUGrid(w, g) }

// PVDEntry is one dataset of a ParaView collection: a file and its time.
type PVDEntry struct {
	Time float64
	File string // relative to the .pvd's folder
}

// WritePVD writes a ParaView collection (.pvd) listing entries in order.
func WritePVD(w io.Writer, entries []PVDEntry) error {
	bw := bufio.NewWriter(w)
	bw.WriteString(`<?xml version="1.0"?>` + "\n")
	bw.WriteString(`<VTKFile type="Collection" version="0.1" byte_order="LittleEndian">` + "\n")
	bw.WriteString("  <Collection>\n")
	for _, e := range entries {
		fmt.Fprintf(bw, "    <DataSet timestep=\"%s\" group=\"\" part=\"0\" file=\"%s\"/>\n",
			graph.FormatTime(e.Time), xmlAttr(e.File)) // without floating-point noise
	}
	bw.WriteString("  </Collection>\n</VTKFile>\n")
	return bw.Flush()
}

func xmlAttr(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s)) // cannot fail on a strings.Builder
	return b.String()
}

// WriteFileAtomic writes path so that it is never seen truncated: fill
// writes a temporary file in the same folder, which is synced, closed and
// then renamed over path (rename is atomic within a file system). On any
// error the temporary file is removed and path is left as it was.
func WriteFileAtomic(path string, fill func(w io.Writer) error) error {
	return writeFileAtomic(path, true, fill)
}

// AtomicWrite is WriteFileAtomic with the fsync optional: without it the
// file still survives a killed process whole (the rename happens after the
// data is in the page cache), but not a power loss. Every exporter of this
// package and runscene's pictures write through it.
func AtomicWrite(path string, sync bool, fill func(w io.Writer) error) error {
	return writeFileAtomic(path, sync, fill)
}

// interruptWriter, when set (tests only), wraps the writer of every atomic
// write, so a test can make a write fail or stall halfway.
var interruptWriter func(path string, w io.Writer) io.Writer

// writeFileAtomic is WriteFileAtomic with the fsync optional.
func writeFileAtomic(path string, sync bool, fill func(w io.Writer) error) error {
	err := atomicfile.Write(path, sync, func(w io.Writer) error {
		if interruptWriter != nil {
			w = interruptWriter(path, w)
		}
		return fill(w)
	})
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// Series writes the frames of one mechanical state as a ParaView series:
// <dir>/<name>_<frame:06d>.vtu per frame and <dir>/<name>.pvd listing them.
//
// Vec3 states whose topology (the node's own, else the nearest ancestor's)
// has one point per DOF are written with its tetrahedra (VTK type 10), or
// its triangles (type 5) for a surface mesh; every other state (Rigid3
// frames, mapped point sets) is written as a point cloud of vertex cells
// (type 1) so it still shows in ParaView. Point data: "displacement"
// (position − rest position) and "velocity" (the linear part for Rigid3
// and Affine3); Rigid3 states also get "orientation" (quaternion x y z w)
// and "angularVelocity" (world frame), Affine3 states "affine" (the 3×3
// linear part A, row-major). The displacement of a mapped state is
// measured from its first written frame, since mappings carry positions
// but not rest positions.
//
// The cells are the topology's tetrahedra, then its hexahedra
// (graph.HexahedronTopology), then its polyhedra (graph.PolyhedronTopology,
// written as VTK polyhedra with their faces); without any, its triangles. A state with
// volume cells also gets cell data from every object of its node that
// implements CellDataProvider (stress, strain-energy density, ...), one
// value or tuple per cell.
type Series struct {
	Dir  string
	Name string // file stem
	// Sync makes every file synced to disk before its rename, so frames
	// survive a power loss too, not only a killed process. It costs about
	// a millisecond per file on a typical disk, more than a step of a small
	// scene, so it is off by default.
	Sync  bool
	state graph.State
	topo  graph.Topology // nil: point cloud
	grid  Grid
	pvd   []PVDEntry

	// mapped states get their rest position from nobody (mappings map
	// positions, not rest positions): their displacement is measured from
	// the first frame written, kept in ref.
	mapped bool
	ref    []float64

	disp, vel, quat, omega, affine []float64 // point data buffers, reused per frame

	cellSources []CellDataProvider // objects of the state's node with per-tetrahedron data
}

// CellDataProvider is implemented by components that have a value per
// tetrahedron of their node's topology, in the topology's order (a force
// field's stress or strain-energy density, a material map's Young's
// modulus): VTK series of the node's state write each array as cell data.
// An array of k·(number of tetrahedra) values is written with k components
// (1: a scalar, 3: a vector, 6 or 9: a tensor). Names are what ParaView
// shows: plain identifiers saying what the values are, e.g.
// "vonMisesStress", "strainEnergyDensity" (the tetrahedral force fields'),
// with the unit in the provider's documentation. The arrays are read at
// every frame, only then (providers compute them on demand); they must
// describe the current state.
type CellDataProvider interface {
	CellData() map[string][]float64
}

// pointLayout reports whether the coordinates of template t start with a
// point in space and its derivatives with a linear velocity; it is false
// for templates without a position (Vec1 reduced coordinates, ...).
func pointLayout(t graph.Template) bool {
	switch t.Name() {
	case "Vec3", "Rigid3":
		// Coordinates start with the position (README, Conventions: translation first),
		// derivatives with the linear velocity.
		return t.CoordSize() >= 3 && t.DerivSize() >= 3
	case "Affine3":
		// [t(3) A(9)], derivatives the same 12 numbers.
		return t.CoordSize() == 12 && t.DerivSize() == 12
	}
	return false
}

// CanWrite reports whether a state has a position in space that Series
// can write (Vec3, Rigid3, Affine3).
func CanWrite(st graph.State) bool { return pointLayout(st.Template()) }

// NewSeries prepares the series of state st in dir, with file stem name.
// It writes nothing until WriteFrame.
func NewSeries(dir, name string, st graph.State) (*Series, error) {
	if !CanWrite(st) {
		return nil, fmt.Errorf("state %q: template %s has no position in space to write", st.Base().Path(), st.Template().Name())
	}
	s := &Series{Dir: dir, Name: name, state: st}
	if n := st.Base().Node; n != nil {
		s.mapped = n.Mapping() != nil
	}
	if st.Template().Name() == "Vec3" && st.Base().Node != nil {
		n := st.Base().Node
		topo := n.LocalTopology()
		if topo == nil {
			topo = n.Topology()
		}
		if topo != nil && len(topo.Points()) == 3*st.Size() && (volumeCells(topo) || len(topo.Triangles()) > 0) {
			s.topo = topo
		}
		if s.topo != nil && volumeCells(s.topo) {
			for _, o := range n.Objects {
				if p, ok := o.(CellDataProvider); ok {
					s.cellSources = append(s.cellSources, p)
				}
			}
		}
	}
	return s, nil
}

// Frames returns the frames written so far, in order.
func (s *Series) Frames() []PVDEntry { return s.pvd }

// PVDPath returns the path of the series index.
func (s *Series) PVDPath() string { return filepath.Join(s.Dir, s.Name+".pvd") }

// FramePath returns the path of frame i.
func (s *Series) FramePath(i int) string {
	return filepath.Join(s.Dir, fmt.Sprintf("%s_%06d.vtu", s.Name, i))
}

// build fills s.grid from the current state, reusing its buffers.
func (s *Series) build(t float64) error {
	st := s.state
	tm := st.Template()
	cs, ds := tm.CoordSize(), tm.DerivSize()
	n := st.Size()
	x, v := st.Vec(graph.Position), st.Vec(graph.Velocity)
	ref := st.Vec(graph.RestPosition)
	if s.mapped {
		if s.ref == nil {
			s.ref = append([]float64(nil), x...)
		}
		ref = s.ref
	}
	g := &s.grid
	g.Time = graph.RoundTime(t) // the TimeValue field, without floating-point noise
	g.Points = resize(g.Points, 3*n)
	s.disp, s.vel = resize(s.disp, 3*n), resize(s.vel, 3*n)
	for i := 0; i < n; i++ {
		for c := 0; c < 3; c++ {
			g.Points[3*i+c] = x[cs*i+c]
			s.disp[3*i+c] = x[cs*i+c] - ref[cs*i+c]
			s.vel[3*i+c] = v[ds*i+c]
		}
	}
	g.PointData = append(g.PointData[:0],
		DataArray{Name: "displacement", Components: 3, Values: s.disp},
		DataArray{Name: "velocity", Components: 3, Values: s.vel})
	if tm.Name() == "Rigid3" {
		s.quat, s.omega = resize(s.quat, 4*n), resize(s.omega, 3*n)
		for i := 0; i < n; i++ {
			copy(s.quat[4*i:4*i+4], x[7*i+3:7*i+7])
			copy(s.omega[3*i:3*i+3], v[6*i+3:6*i+6])
		}
		g.PointData = append(g.PointData,
			DataArray{Name: "orientation", Components: 4, Values: s.quat},
			DataArray{Name: "angularVelocity", Components: 3, Values: s.omega})
	}
	if tm.Name() == "Affine3" {
		s.affine = resize(s.affine, 9*n)
		for i := 0; i < n; i++ {
			copy(s.affine[9*i:9*i+9], x[12*i+3:12*i+12])
		}
		g.PointData = append(g.PointData, DataArray{Name: "affine", Components: 9, Values: s.affine})
	}
	g.Connectivity, g.Offsets, g.Types = g.Connectivity[:0], g.Offsets[:0], g.Types[:0]
	g.Faces, g.FaceOffsets = g.Faces[:0], g.FaceOffsets[:0]
	switch {
	case s.topo != nil && volumeCells(s.topo):
		for _, tet := range s.topo.Tetrahedra() {
			g.Connectivity = append(g.Connectivity, tet[0], tet[1], tet[2], tet[3])
			g.Offsets = append(g.Offsets, len(g.Connectivity))
			g.Types = append(g.Types, CellTetrahedron)
		}
		for _, h := range graph.HexahedraOf(s.topo) {
			g.Connectivity = append(g.Connectivity, h[:]...)
			g.Offsets = append(g.Offsets, len(g.Connectivity))
			g.Types = append(g.Types, CellHexahedron)
		}
		if polys := graph.PolyhedraOf(s.topo); len(polys) > 0 {
			for range g.Types {
				g.FaceOffsets = append(g.FaceOffsets, -1)
			}
			for _, c := range polys {
				start := len(g.Connectivity)
				g.Faces = append(g.Faces, len(c.Faces))
				for _, f := range c.Faces {
					g.Faces = append(g.Faces, len(f))
					g.Faces = append(g.Faces, f...)
					for _, v := range f {
						if !slices.Contains(g.Connectivity[start:], v) {
							g.Connectivity = append(g.Connectivity, v)
						}
					}
				}
				g.Offsets = append(g.Offsets, len(g.Connectivity))
				g.Types = append(g.Types, CellPolyhedron)
				g.FaceOffsets = append(g.FaceOffsets, len(g.Faces))
			}
		}
	case s.topo != nil:
		for _, tri := range s.topo.Triangles() {
			g.Connectivity = append(g.Connectivity, tri[0], tri[1], tri[2])
			g.Offsets = append(g.Offsets, len(g.Connectivity))
			g.Types = append(g.Types, CellTriangle)
		}
	default:
		for i := 0; i < n; i++ {
			g.Connectivity = append(g.Connectivity, i)
			g.Offsets = append(g.Offsets, i+1)
			g.Types = append(g.Types, CellVertex)
		}
	}
	return s.buildCellData()
}

// buildCellData gathers the cell data of the providers, in a fixed order
// (provider order, then name), each array named after its key, or
// "object.key" when two providers use the same key.
func (s *Series) buildCellData() error {
	g := &s.grid
	g.CellData = g.CellData[:0]
	nc := g.NumCells()
	for _, p := range s.cellSources {
		data := p.CellData()
		names := make([]string, 0, len(data))
		for k := range data {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			v := data[k]
			if len(v) == 0 || len(v)%nc != 0 {
				return fmt.Errorf("cell data %q of %q has %d values, not a multiple of the %d cells", k, p.(graph.Object).Base().Path(), len(v), nc)
			}
			name := k
			if g.CellArray(name) != nil {
				name = p.(graph.Object).Base().Name + "." + k
			}
			g.CellData = append(g.CellData, DataArray{Name: name, Components: len(v) / nc, Values: v})
		}
	}
	return nil
}

// volumeCells reports whether a topology serves volume cells
// (tetrahedra, hexahedra or polyhedra).
func volumeCells(t graph.Topology) bool {
	return len(t.Tetrahedra()) > 0 || len(graph.HexahedraOf(t)) > 0 || len(graph.PolyhedraOf(t)) > 0
}

func resize(v []float64, n int) []float64 {
	if cap(v) >= n {
		return v[:n]
	}
	return make([]float64, n)
}

// WriteFrame writes the state as the next frame, at time t, then rewrites
// the .pvd index; both atomically, so an interrupted run leaves every
// listed frame complete and the index valid.
func (s *Series) WriteFrame(t float64) error {
	if err := s.build(t); err != nil {
		return fmt.Errorf("state %q: %w", s.state.Base().Path(), err)
	}
	i := len(s.pvd)
	path := s.FramePath(i)
	if err := writeFileAtomic(path, s.Sync, func(w io.Writer) error { return WriteVTU(w, &s.grid) }); err != nil {
		return fmt.Errorf("state %q: %w", s.state.Base().Path(), err)
	}
	entries := append(s.pvd, PVDEntry{Time: t, File: filepath.Base(path)})
	if err := writeFileAtomic(s.PVDPath(), s.Sync, func(w io.Writer) error { return WritePVD(w, entries) }); err != nil {
		return fmt.Errorf("state %q: %w", s.state.Base().Path(), err)
	}
	s.pvd = entries
	return nil
}

// SceneWriter writes one Series per writable state of a scene (or of a
// subtree) into one folder.
type SceneWriter struct {
	Dir    string
	Series []*Series
	// Skipped lists the paths of states without a position in space
	// (e.g. Vec1 reduced coordinates), which are not written.
	Skipped []string
}

// NewSceneWriter creates dir (and parents) and prepares a series for every
// state in the subtree of root, named after the state's path with '/'
// replaced by '_' (and any character unsafe in a file name by '_').
func NewSceneWriter(dir string, root *graph.Node) (*SceneWriter, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("output folder: %w", err)
	}
	w := &SceneWriter{Dir: dir}
	used := map[string]bool{}
	err := root.Walk(func(n *graph.Node) error {
		st := n.State()
		if st == nil {
			return nil
		}
		if !CanWrite(st) {
			w.Skipped = append(w.Skipped, st.Base().Path())
			return nil
		}
		name := FileStem(st.Base().Path())
		for i := 2; used[name]; i++ {
			name = fmt.Sprintf("%s_%d", FileStem(st.Base().Path()), i)
		}
		used[name] = true
		s, err := NewSeries(dir, name, st)
		if err != nil {
			return err
		}
		w.Series = append(w.Series, s)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return w, nil
}

// FileStem turns a state path ("beam/dofs") into a file stem
// ("beam_dofs"): '/' and every character other than letters, digits, '.',
// '-' and '_' become '_'.
func FileStem(path string) string {
	b := []byte(path)
	for i, c := range b {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_'
		if !ok {
			b[i] = '_'
		}
	}
	if len(b) == 0 || b[0] == '.' {
		return "_" + string(b)
	}
	return string(b)
}

// WriteFrame writes the next frame of every series at time t. It refuses
// states with non-finite coordinates (ParaView cannot read them and they
// are a failed step's leftovers, not a result).
func (w *SceneWriter) WriteFrame(t float64) error {
	for _, s := range w.Series {
		if err := checkFinite(s.state); err != nil {
			return err
		}
	}
	var errs []error
	for _, s := range w.Series {
		if err := s.WriteFrame(t); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Frames returns the number of frames written (the same for every series).
func (w *SceneWriter) Frames() int {
	if len(w.Series) == 0 {
		return 0
	}
	return len(w.Series[0].pvd)
}

func checkFinite(st graph.State) error {
	for _, id := range []graph.VecID{graph.Position, graph.Velocity} {
		for i, x := range st.Vec(id) {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("state %q: entry %d of %s is %g; not writing a non-finite frame", st.Base().Path(), i, vecName(id), x)
			}
		}
	}
	return nil
}

func vecName(id graph.VecID) string {
	if id == graph.Position {
		return "position"
	}
	return "velocity"
}
