package visual

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/sofago/sofago/components/topology"
	"github.com/sofago/sofago/graph"
)

func load(t testing.TB, file, text string) *graph.Scene {
	t.Helper()
	s, err := graph.Load(file, []byte(text))
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	if err := s.Init(); err != nil {
		t.Fatalf("init: %v", err)
	}
	return s
}

func readGrid(t *testing.T, path string) *Grid {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	g, err := ReadVTU(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return g
}

func readPVD(t *testing.T, path string) []PVDEntry {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	e, err := ReadPVD(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return e
}

// Every float64 written must read back bit for bit (shortest round-trip
// formatting), including subnormals, huge values and negative zero.
func TestVTURoundTripExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	g := &Grid{Time: 0.1 + 0.2}
	special := []float64{0, math.Copysign(0, -1), 5e-324, math.MaxFloat64, -1e-300, 1.0 / 3, 123456789.123456789}
	for i := 0; i < 30; i++ {
		g.Points = append(g.Points, rng.NormFloat64()*math.Pow(10, float64(rng.IntN(40)-20)))
	}
	copy(g.Points, special)
	np := g.NumPoints()
	for c := 0; c+3 < np; c += 2 {
		g.Connectivity = append(g.Connectivity, c, c+1, c+2, c+3)
		g.Offsets = append(g.Offsets, len(g.Connectivity))
		g.Types = append(g.Types, CellTetrahedron)
	}
	g.Connectivity = append(g.Connectivity, np-1)
	g.Offsets = append(g.Offsets, len(g.Connectivity))
	g.Types = append(g.Types, CellVertex)
	vals := make([]float64, 2*np)
	for i := range vals {
		vals[i] = rng.Float64() - 0.5
	}
	g.PointData = []DataArray{{Name: `a&b"<c>`, Components: 2, Values: vals}}

	var sb strings.Builder
	if err := WriteVTU(&sb, g); err != nil {
		t.Fatal(err)
	}
	back, err := ReadVTU(strings.NewReader(sb.String()))
	if err != nil {
		t.Fatalf("%v\n%s", err, sb.String())
	}
	sameBits := func(what string, a, b []float64) {
		t.Helper()
		if len(a) != len(b) {
			t.Fatalf("%s: %d values read, %d written", what, len(b), len(a))
		}
		for i := range a {
			if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
				t.Errorf("%s[%d]: wrote %v, read %v", what, i, a[i], b[i])
			}
		}
	}
	sameBits("points", g.Points, back.Points)
	sameBits("time", []float64{g.Time}, []float64{back.Time})
	if a := back.Array(`a&b"<c>`); a == nil || a.Components != 2 {
		t.Fatalf("point data array lost: %+v", back.PointData)
	} else {
		sameBits("data", vals, a.Values)
	}
	if fmt.Sprint(back.Connectivity, back.Offsets, back.Types) != fmt.Sprint(g.Connectivity, g.Offsets, g.Types) {
		t.Errorf("cells differ: wrote %v %v %v, read %v %v %v", g.Connectivity, g.Offsets, g.Types, back.Connectivity, back.Offsets, back.Types)
	}
}

func TestWriteVTURejectsInconsistentGrid(t *testing.T) {
	bad := []*Grid{
		{Points: []float64{0, 0}},
		{Points: []float64{0, 0, 0}, Connectivity: []int{1}, Offsets: []int{1}, Types: []uint8{CellVertex}},
		{Points: []float64{0, 0, 0}, Connectivity: []int{0}, Offsets: []int{2}, Types: []uint8{CellVertex}},
		{Points: []float64{0, 0, 0}, PointData: []DataArray{{Name: "v", Components: 3, Values: []float64{1}}}},
	}
	for i, g := range bad {
		if err := WriteVTU(io.Discard, g); err == nil {
			t.Errorf("grid %d: no error", i)
		}
	}
}

const beamScene = `
dt = 0.01
[[node]]
name = "beam"
  [[node.object]]
  type = "RegularGridTopology"
  min = [0, 0, 0]
  max = [1, 0.2, 0.1]
  n = [4, 3, 2]
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[node.node]]
  name = "frames"
    [[node.node.object]]
    type = "MechanicalObject"
    template = "Rigid3"
    position = [[0, 0, 0, 0, 0, 0, 1], [1, 2, 3, 0, 0, 0.6, 0.8]]
  [[node.node]]
  name = "modes"
    [[node.node.object]]
    type = "MechanicalObject"
    template = "Vec1"
    size = 3
`

// A tet mesh is written with its tetrahedra and exact displacement and
// velocity; Rigid3 frames as a point cloud with orientations; Vec1 states
// are skipped; the .pvd lists every frame with its time.
func TestSceneWriterFrames(t *testing.T) {
	s := load(t, "beam.toml", beamScene)
	dir := filepath.Join(t.TempDir(), "out", "nested")
	w, err := NewSceneWriter(dir, s.Root)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Series) != 2 || w.Series[0].Name != "beam_dofs" || w.Series[1].Name != "beam_frames_MechanicalObject" {
		var names []string
		for _, sr := range w.Series {
			names = append(names, sr.Name)
		}
		t.Fatalf("series %v, want [beam_dofs beam_frames_MechanicalObject]", names)
	}
	if fmt.Sprint(w.Skipped) != "[beam/modes/MechanicalObject]" {
		t.Errorf("skipped %v, want the Vec1 state", w.Skipped)
	}
	beam := s.Find("beam/dofs").(graph.State)
	topo := s.Root.Child("beam").LocalTopology()
	rng := rand.New(rand.NewPCG(1, 2))
	times := []float64{0, 0.01, 0.02}
	for f, tm := range times {
		if f > 0 {
			for i := range beam.Vec(graph.Position) {
				beam.Vec(graph.Position)[i] += 0.01 * rng.NormFloat64()
				beam.Vec(graph.Velocity)[i] = rng.NormFloat64()
			}
		}
		if err := w.WriteFrame(tm); err != nil {
			t.Fatal(err)
		}
		g := readGrid(t, filepath.Join(dir, fmt.Sprintf("beam_dofs_%06d.vtu", f)))
		if g.NumPoints() != 24 || g.NumCells() != len(topo.Tetrahedra()) || g.Time != tm {
			t.Fatalf("frame %d: %d points, %d cells, time %v; want 24, %d, %v", f, g.NumPoints(), g.NumCells(), g.Time, len(topo.Tetrahedra()), tm)
		}
		for c, tet := range topo.Tetrahedra() {
			if g.Types[c] != CellTetrahedron || g.Offsets[c] != 4*(c+1) || [4]int(g.Connectivity[4*c:4*c+4]) != tet {
				t.Fatalf("frame %d: cell %d is %v (type %d), want tet %v", f, c, g.Connectivity[4*c:4*c+4], g.Types[c], tet)
			}
		}
		x, x0, v := beam.Vec(graph.Position), beam.Vec(graph.RestPosition), beam.Vec(graph.Velocity)
		disp, vel := g.Array("displacement"), g.Array("velocity")
		for i := range x {
			// Exact: the file holds x and x − x0 as computed in float64.
			if g.Points[i] != x[i] || disp.Values[i] != x[i]-x0[i] || vel.Values[i] != v[i] {
				t.Fatalf("frame %d, entry %d: point %v disp %v vel %v; want %v %v %v", f, i, g.Points[i], disp.Values[i], vel.Values[i], x[i], x[i]-x0[i], v[i])
			}
		}
		rg := readGrid(t, filepath.Join(dir, fmt.Sprintf("beam_frames_MechanicalObject_%06d.vtu", f)))
		if fmt.Sprint(rg.Points) != "[0 0 0 1 2 3]" || fmt.Sprint(rg.Types) != "[1 1]" || fmt.Sprint(rg.Connectivity) != "[0 1]" {
			t.Errorf("rigid frames: points %v types %v conn %v", rg.Points, rg.Types, rg.Connectivity)
		}
		if q := rg.Array("orientation"); q == nil || fmt.Sprint(q.Values) != "[0 0 0 1 0 0 0.6 0.8]" {
			t.Errorf("rigid orientation %+v", q)
		}
	}
	for _, name := range []string{"beam_dofs", "beam_frames_MechanicalObject"} {
		e := readPVD(t, filepath.Join(dir, name+".pvd"))
		if len(e) != len(times) {
			t.Fatalf("%s.pvd: %d entries, want %d", name, len(e), len(times))
		}
		for f := range e {
			if want := fmt.Sprintf("%s_%06d.vtu", name, f); e[f].File != want || e[f].Time != times[f] {
				t.Errorf("%s.pvd entry %d: %+v, want %s at %v", name, f, e[f], want, times[f])
			}
		}
	}
	assertNoTemp(t, dir)
}

// A surface mesh (triangles only) is written with triangle cells; a mapped
// state whose size differs from its ancestor's topology is a point cloud.
func TestSeriesCellChoice(t *testing.T) {
	s := load(t, "beam.toml", beamScene)
	st := graph.NewMechanicalObject("pts", graph.Vec3, 5)
	child := s.Root.Child("beam").AddChild("points")
	child.Add(st)
	sr, err := NewSeries(t.TempDir(), "pts", st)
	if err != nil {
		t.Fatal(err)
	}
	if sr.topo != nil {
		t.Errorf("5 points took the 24-point ancestor topology")
	}
	surf := &surfaceTopo{points: []float64{0, 0, 0, 1, 0, 0, 0, 1, 0}, tris: [][3]int{{0, 1, 2}}}
	n := s.Root.AddChild("surf")
	n.Add(surf)
	st3 := graph.NewMechanicalObject("x", graph.Vec3, 3)
	n.Add(st3)
	copy(st3.Vec(graph.Position), surf.points)
	sr, err = NewSeries(t.TempDir(), "surf", st3)
	if err != nil {
		t.Fatal(err)
	}
	if err := sr.WriteFrame(0); err != nil {
		t.Fatal(err)
	}
	g := readGrid(t, sr.FramePath(0))
	if fmt.Sprint(g.Types, g.Connectivity) != "[5] [0 1 2]" {
		t.Errorf("surface cells %v %v, want one triangle", g.Types, g.Connectivity)
	}
}

type surfaceTopo struct {
	graph.ObjectBase
	points []float64
	tris   [][3]int
}

func (s *surfaceTopo) Points() []float64    { return s.points }
func (s *surfaceTopo) Tetrahedra() [][4]int { return nil }
func (s *surfaceTopo) Triangles() [][3]int  { return s.tris }

func TestSceneWriterRefusesNonFinite(t *testing.T) {
	s := load(t, "beam.toml", beamScene)
	dir := t.TempDir()
	w, err := NewSceneWriter(dir, s.Root)
	if err != nil {
		t.Fatal(err)
	}
	s.Find("beam/dofs").(graph.State).Vec(graph.Position)[7] = math.NaN()
	err = w.WriteFrame(0)
	if err == nil || !strings.Contains(err.Error(), `"beam/dofs"`) || !strings.Contains(err.Error(), "NaN") {
		t.Fatalf("error %v, want one naming beam/dofs and NaN", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("files written for a NaN frame: %v", ents)
	}
}

var errInjected = errors.New("injected failure")

// failAfter is a fill function that writes n bytes of data and then fails,
// as a full disk or a crash in the middle of a write would.
func failAfter(data string, n int) func(io.Writer) error {
	return func(w io.Writer) error {
		io.WriteString(w, data[:n])
		return errInjected
	}
}

func assertNoTemp(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

// A write that fails midway leaves the previous file intact (or no file),
// never a truncated one, and removes its temporary file.
func TestWriteFileAtomicFailure(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.pvd")
	old := []PVDEntry{{0, "a_000000.vtu"}}
	if err := WriteFileAtomic(path, func(w io.Writer) error { return WritePVD(w, old) }); err != nil {
		t.Fatal(err)
	}
	var full strings.Builder
	WritePVD(&full, append(old, PVDEntry{0.5, "a_000001.vtu"}))
	err := WriteFileAtomic(path, failAfter(full.String(), full.Len()/2))
	if !errors.Is(err, errInjected) {
		t.Fatalf("error %v, want the injected one", err)
	}
	if e := readPVD(t, path); len(e) != 1 || e[0] != old[0] {
		t.Errorf("index after a failed rewrite: %+v, want the old one", e)
	}
	missing := filepath.Join(dir, "new.vtu")
	if err := WriteFileAtomic(missing, failAfter("<?xml", 3)); err == nil {
		t.Fatal("no error")
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Errorf("a failed first write created %s", missing)
	}
	assertNoTemp(t, dir)
}

// When a frame cannot be written (here a directory sits where the file
// should go), WriteFrame fails, the index still lists the earlier frames
// and parses, and the series can go on once the obstacle is gone.
func TestSeriesFailedFrameKeepsIndex(t *testing.T) {
	s := load(t, "beam.toml", beamScene)
	dir := t.TempDir()
	sr, err := NewSeries(dir, "beam_dofs", s.Find("beam/dofs").(graph.State))
	if err != nil {
		t.Fatal(err)
	}
	for f := 0; f < 2; f++ {
		if err := sr.WriteFrame(float64(f)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(sr.FramePath(2), "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := sr.WriteFrame(2); err == nil {
		t.Fatal("frame 2 written over a directory")
	}
	if e := readPVD(t, sr.PVDPath()); len(e) != 2 {
		t.Errorf("index lists %d frames after a failed one, want 2", len(e))
	}
	assertNoTemp(t, dir)
	os.RemoveAll(sr.FramePath(2))
	if err := sr.WriteFrame(2); err != nil {
		t.Fatal(err)
	}
	if e := readPVD(t, sr.PVDPath()); len(e) != 3 {
		t.Errorf("index lists %d frames, want 3", len(e))
	}
}

// A process killed (SIGKILL) between writing the temporary file and the
// rename leaves the final file as it was: valid and complete.
func TestKilledWriterLeavesNoTruncatedFile(t *testing.T) {
	if dir := os.Getenv("VTU_KILL_HELPER_DIR"); dir != "" {
		// Child: rewrite the index, stall halfway through, wait to be killed.
		var full strings.Builder
		WritePVD(&full, []PVDEntry{{0, "a"}, {1, "b"}, {2, "c"}})
		WriteFileAtomic(filepath.Join(dir, "a.pvd"), func(w io.Writer) error {
			io.WriteString(w, full.String()[:full.Len()/2])
			w.(*os.File).Sync()
			os.WriteFile(filepath.Join(dir, "ready"), nil, 0o644)
			time.Sleep(time.Minute)
			return nil
		})
		os.Exit(3)
	}
	if testing.Short() {
		t.Skip("starts a child process")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "a.pvd")
	if err := WriteFileAtomic(path, func(w io.Writer) error { return WritePVD(w, []PVDEntry{{0, "a"}}) }); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestKilledWriterLeavesNoTruncatedFile$")
	cmd.Env = append(os.Environ(), "VTU_KILL_HELPER_DIR="+dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(dir, "ready")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatal("child never reached the middle of its write")
		}
		time.Sleep(5 * time.Millisecond)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if e := readPVD(t, path); len(e) != 1 {
		t.Errorf("index after the kill lists %d entries, want the old 1", len(e))
	}
}

// The VTKExporter writes frame 0 at Init, a frame every `every` steps and
// the last step on Close; files go next to the scene file.
func TestVTKExporter(t *testing.T) {
	dir := t.TempDir()
	text := beamScene + `
  [[node.object]]
  type = "VTKExporter"
  directory = "vtk"
  every = 2
`
	s := load(t, filepath.Join(dir, "scene.toml"), text)
	// Something must move for the scene to run (graph.Scene.CheckRunnable):
	// the beam bends by prescribed motion.
	s.Root.Child("beam").Add(&mover{ObjectBase: graph.ObjectBase{Name: "mover"}, disp: bend})
	for i := 0; i < 5; i++ {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	e := readPVD(t, filepath.Join(dir, "vtk", "beam_dofs.pvd"))
	var got []string
	for _, x := range e {
		got = append(got, fmt.Sprintf("%g:%s", x.Time, x.File))
	}
	// Steps of dt = 0.01: frames at steps 0, 2, 4 and the final step 5.
	want := "[0:beam_dofs_000000.vtu 0.02:beam_dofs_000001.vtu 0.04:beam_dofs_000002.vtu 0.05:beam_dofs_000003.vtu]"
	if fmt.Sprint(got) != want {
		t.Errorf("frames %v, want %s", got, want)
	}
	for _, x := range e {
		readGrid(t, filepath.Join(dir, "vtk", x.File))
	}
}

// BenchmarkWriteFrame10kTets measures writing one frame of a 10,584-tet
// beam (grid 37×8×8 vertices, 2,368 points) as ASCII VTU plus its rewritten index (temp file +
// rename each, no fsync: Series.Sync is off by default).
func BenchmarkWriteFrame10kTets(b *testing.B) {
	text := strings.Replace(beamScene, "n = [4, 3, 2]", "n = [37, 8, 8]", 1)
	s := load(b, "beam.toml", text)
	w, err := NewSceneWriter(b.TempDir(), s.Root.Child("beam"))
	if err != nil {
		b.Fatal(err)
	}
	w.Series = w.Series[:1]
	if nt := len(s.Root.Child("beam").LocalTopology().Tetrahedra()); nt != 10584 {
		b.Fatalf("%d tetrahedra", nt)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if err := w.WriteFrame(float64(i)); err != nil {
			b.Fatal(err)
		}
	}
}

// failingSolver is an ODE solver that does nothing, except fail at one step.
type failingSolver struct {
	graph.ObjectBase
	calls, failAt int
}

func (f *failingSolver) Solve(ops *graph.Ops, dt float64) error {
	f.calls++
	if f.calls == f.failAt {
		return errors.New("injected solver failure")
	}
	return nil
}

// After a failed step, Close does not write the half-updated state as a
// final frame.
func TestVTKExporterSkipsFailedStep(t *testing.T) {
	dir := t.TempDir()
	text := beamScene + `
  [[node.object]]
  type = "VTKExporter"
  directory = "vtk"
  every = 2
`
	s, err := graph.Load(filepath.Join(dir, "scene.toml"), []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	s.Root.Child("beam").Add(&failingSolver{ObjectBase: graph.ObjectBase{Name: "solver"}, failAt: 4})
	if err := s.Init(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Step(); err == nil {
		t.Fatal("step 4 did not fail")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	e := readPVD(t, filepath.Join(dir, "vtk", "beam_dofs.pvd"))
	if len(e) != 2 || e[1].Time != 0.02 {
		t.Errorf("frames %+v, want steps 0 and 2 only", e)
	}
}
