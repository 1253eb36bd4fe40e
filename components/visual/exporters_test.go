package visual

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "github.com/sofago/sofago/components/mass"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/meshio"
)

// statSolver is an ODE solver that does nothing but report made-up linear
// solver statistics (step-dependent), so the logger's columns can be
// checked.
type statSolver struct {
	graph.ObjectBase
	calls int
}

func (s *statSolver) Solve(ops *graph.Ops, dt float64) error { s.calls++; return nil }
func (s *statSolver) LastStats() graph.LinearStats {
	return graph.LinearStats{Iterations: 10 + s.calls, Residual: 1e-9 * float64(s.calls), Converged: s.calls%3 != 0}
}

// exportScene is the bar of barScene with a mass (so the potential energy
// changes as it moves), a visual boundary and the exporters given.
func exportScene(exporters string) string {
	return barScene("") + `
  [[node.object]]
  type = "UniformMass"
  totalMass = 2
` + exporters
}

// runExport loads text in dir with a mover and a statSolver on the bar,
// runs steps steps (recording the surface points and energies after each,
// index 0 being the initial state) and closes the scene.
func runExport(t *testing.T, dir, text string, steps int) (s *graph.Scene, surf [][]float64, energies [][2]float64) {
	t.Helper()
	s, err := graph.Load(filepath.Join(dir, "bar.toml"), []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	bar := s.Root.Child("bar")
	bar.Add(&mover{ObjectBase: graph.ObjectBase{Name: "mover"}, disp: bend})
	bar.Add(&statSolver{ObjectBase: graph.ObjectBase{Name: "solver"}})
	if err := s.Init(); err != nil {
		t.Fatal(err)
	}
	vm := s.Find("bar/visual/VisualModel").(*VisualModel)
	record := func() {
		p, _, _ := vm.SurfaceMesh()
		surf = append(surf, append([]float64(nil), p...))
		k, pe := s.Energies()
		energies = append(energies, [2]float64{k, pe})
	}
	record()
	for i := 0; i < steps; i++ {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
		record()
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return s, surf, energies
}

// readOBJNormals returns the "vn" vectors of an OBJ file.
func readOBJNormals(t *testing.T, path string) []float64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []float64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) == 4 && fs[0] == "vn" {
			for _, x := range fs[1:] {
				v, err := strconv.ParseFloat(x, 64)
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, v)
			}
		}
	}
	return out
}

// The OBJ sequence: frames at steps 0, 2, 4 and the last (5); each file
// reads back (meshio.ReadOBJ) to the surface's points at that step, bit
// for bit, with its triangles and unit normals; the material file has the
// colour.
func TestOBJExporter(t *testing.T) {
	dir := t.TempDir()
	_, surf, _ := runExport(t, dir, exportScene(`
  [[node.object]]
  type = "OBJExporter"
  directory = "obj"
  every = 2
`), 5)
	s := loadWith(t, "x.toml", barScene(""), "")
	_, tris, _ := s.Find("bar/visual/VisualModel").(*VisualModel).SurfaceMesh()
	for frame, step := range []int{0, 2, 4, 5} {
		path := filepath.Join(dir, "obj", fmt.Sprintf("bar_visual_VisualModel_%06d.obj", frame))
		m, err := meshio.ReadOBJ(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(m.Points) != len(surf[step]) || len(m.Triangles) != len(tris) {
			t.Fatalf("frame %d: %d points, %d triangles; want %d, %d", frame, m.NumPoints(), len(m.Triangles), len(surf[step])/3, len(tris))
		}
		for i := range m.Points {
			if m.Points[i] != surf[step][i] {
				t.Fatalf("frame %d (step %d): coordinate %d is %v, the surface had %v", frame, step, i, m.Points[i], surf[step][i])
			}
		}
		for k := range tris {
			if m.Triangles[k] != tris[k] {
				t.Fatalf("frame %d: triangle %d is %v, want %v", frame, k, m.Triangles[k], tris[k])
			}
		}
		nrm := readOBJNormals(t, path)
		if len(nrm) != len(m.Points) {
			t.Fatalf("frame %d: %d normals for %d vertices", frame, len(nrm)/3, m.NumPoints())
		}
		for i := 0; i < len(nrm)/3; i++ {
			if n := geom.At(nrm, i).Norm(); math.Abs(n-1) > 1e-15 {
				t.Fatalf("frame %d: normal %d has length %v", frame, i, n)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "obj", "bar_visual_VisualModel_000004.obj")); !os.IsNotExist(err) {
		t.Errorf("a fifth frame was written")
	}
	mtl, err := os.ReadFile(filepath.Join(dir, "obj", "bar_visual_VisualModel.mtl"))
	if err != nil || !strings.Contains(string(mtl), "Kd 0.2 0.4 0.8") {
		t.Errorf("material file: %q, %v", mtl, err)
	}
	assertNoTemp(t, filepath.Join(dir, "obj"))
}

// The STL sequence, binary and ASCII: each file reads back (meshio.ReadSTL)
// to the surface's triangles with float32-rounded corners.
func TestSTLExporter(t *testing.T) {
	for _, ascii := range []bool{false, true} {
		dir := t.TempDir()
		_, surf, _ := runExport(t, dir, exportScene(fmt.Sprintf(`
  [[node.object]]
  type = "STLExporter"
  every = 3
  ascii = %v
`, ascii)), 4)
		s := loadWith(t, "x.toml", barScene(""), "")
		_, tris, _ := s.Find("bar/visual/VisualModel").(*VisualModel).SurfaceMesh()
		for frame, step := range []int{0, 3, 4} {
			// Default folder: <scene stem>_stl next to the scene.
			path := filepath.Join(dir, "bar_stl", fmt.Sprintf("bar_visual_VisualModel_%06d.stl", frame))
			m, err := meshio.ReadSTL(path)
			if err != nil {
				t.Fatal(err)
			}
			if len(m.Triangles) != len(tris) {
				t.Fatalf("ascii=%v frame %d: %d triangles, want %d", ascii, frame, len(m.Triangles), len(tris))
			}
			for k, tr := range tris {
				for j := 0; j < 3; j++ {
					got := geom.At(m.Points, m.Triangles[k][j])
					p := geom.At(surf[step], tr[j])
					want := geom.Vec3{float64(float32(p[0])), float64(float32(p[1])), float64(float32(p[2]))}
					if got != want {
						t.Fatalf("ascii=%v frame %d: triangle %d corner %d at %v, want %v", ascii, frame, k, j, got, want)
					}
				}
			}
			if !ascii {
				if fi, _ := os.Stat(path); fi.Size() != int64(84+50*len(tris)) {
					t.Errorf("binary STL of %d triangles has %d bytes, want %d", len(tris), fi.Size(), 84+50*len(tris))
				}
			}
		}
	}
}

// The energy log, CSV and JSON: a row for the initial state, every
// `every` steps and the last step, with the scene's energies at those
// steps (bit for bit) and the solver's statistics.
func TestEnergyLogger(t *testing.T) {
	for _, ext := range []string{"csv", "json"} {
		dir := t.TempDir()
		_, _, en := runExport(t, dir, exportScene(fmt.Sprintf(`
  [[node.object]]
  type = "EnergyLogger"
  filename = "log/energy.%s"
  every = 2
`, ext)), 5)
		steps := []int{0, 2, 4, 5}
		path := filepath.Join(dir, "log", "energy."+ext)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		type row struct {
			step                       int
			time, kin, pot, total, res float64
			iters                      int
			conv                       bool
		}
		var rows []row
		if ext == "csv" {
			recs, err := csv.NewReader(strings.NewReader(string(data))).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			want := "step,time,kinetic,potential,total,bar/solver.iterations,bar/solver.residual,bar/solver.converged"
			if strings.Join(recs[0], ",") != want {
				t.Fatalf("header %v, want %s", recs[0], want)
			}
			for _, r := range recs[1:] {
				f := func(i int) float64 { x, _ := strconv.ParseFloat(r[i], 64); return x }
				st, _ := strconv.Atoi(r[0])
				it, _ := strconv.Atoi(r[5])
				rows = append(rows, row{st, f(1), f(2), f(3), f(4), f(6), it, r[7] == "true"})
			}
		} else {
			var doc []struct {
				Step                            int
				Time, Kinetic, Potential, Total float64
				Solvers                         map[string]struct {
					Iterations int
					Residual   float64
					Converged  bool
				}
			}
			if err := json.Unmarshal(data, &doc); err != nil {
				t.Fatalf("%v\n%s", err, data)
			}
			for _, d := range doc {
				sv := d.Solvers["bar/solver"]
				rows = append(rows, row{d.Step, d.Time, d.Kinetic, d.Potential, d.Total, sv.Residual, sv.Iterations, sv.Converged})
			}
		}
		if len(rows) != len(steps) {
			t.Fatalf("%s: %d rows, want %d", ext, len(rows), len(steps))
		}
		for i, r := range rows {
			st := steps[i]
			if r.step != st || math.Abs(r.time-0.1*float64(st)) > 1e-15 || r.kin != en[st][0] || r.pot != en[st][1] || r.total != en[st][0]+en[st][1] {
				t.Errorf("%s row %d: %+v; want step %d, energies %v", ext, i, r, st, en[st])
			}
			// statSolver reports 10 + n iterations after its n-th call;
			// nothing before the first step.
			if st > 0 && (r.iters != 10+st || r.res != 1e-9*float64(st) || r.conv != (st%3 != 0)) {
				t.Errorf("%s row %d: solver columns %d %g %v", ext, i, r.iters, r.res, r.conv)
			}
			if st == 0 && (r.iters != 0 || r.res != 0 || r.conv) {
				t.Errorf("%s row 0 has solver figures %d %g %v before any solve", ext, r.iters, r.res, r.conv)
			}
		}
		if en[5][1] == en[0][1] {
			t.Errorf("the potential energy did not change; the test moves nothing")
		}
	}
}

// cellField is a force field that provides per-tetrahedron data (a scalar
// and a 6-component tensor) and no force.
type cellField struct {
	graph.ObjectBase
	n   int
	bad bool
}

func (c *cellField) AddForce(f, x, v []float64)                           {}
func (c *cellField) AddDForce(df, dx []float64, kFactor, bFactor float64) {}
func (c *cellField) PotentialEnergy(x []float64) float64                  { return 0 }
func (c *cellField) CellData() map[string][]float64 {
	e := make([]float64, c.n)
	s := make([]float64, 6*c.n)
	for i := range e {
		e[i] = float64(i) + 0.25
	}
	for i := range s {
		s[i] = -float64(i) / 7
	}
	if c.bad {
		e = e[1:]
	}
	return map[string][]float64{"energyDensity": e, "stress": s}
}

// Cell data from a CellDataProvider in the state's node is written with
// the tetrahedra and read back exactly; an array of the wrong length is an
// error naming it.
func TestVTKCellData(t *testing.T) {
	for _, bad := range []bool{false, true} {
		s, err := graph.Load("bar.toml", []byte(barScene("")))
		if err != nil {
			t.Fatal(err)
		}
		bar := s.Root.Child("bar")
		nt := 0
		bar.Add(&cellField{ObjectBase: graph.ObjectBase{Name: "fem"}, bad: bad})
		if err := s.Init(); err != nil {
			t.Fatal(err)
		}
		nt = len(bar.LocalTopology().Tetrahedra())
		bar.Object("fem").(*cellField).n = nt
		dir := t.TempDir()
		w, err := NewSceneWriter(dir, bar)
		if err != nil {
			t.Fatal(err)
		}
		err = w.WriteFrame(0)
		if bad {
			if err == nil || !strings.Contains(err.Error(), `"energyDensity"`) || !strings.Contains(err.Error(), "not a multiple") {
				t.Errorf("error %v, want one naming the short array", err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		g := readGrid(t, filepath.Join(dir, "bar_dofs_000000.vtu"))
		want := bar.Object("fem").(*cellField).CellData()
		for name, comps := range map[string]int{"energyDensity": 1, "stress": 6} {
			a := g.CellArray(name)
			if a == nil || a.Components != comps || fmt.Sprint(a.Values) != fmt.Sprint(want[name]) {
				t.Errorf("cell data %q: %+v", name, a)
			}
		}
		// The surface series (visual node) has triangles and no cell data.
		sg := readGrid(t, filepath.Join(dir, "bar_visual_surface_000000.vtu"))
		if sg.Types[0] != CellTriangle || len(sg.CellData) != 0 {
			t.Errorf("surface series: cell type %d, %d cell arrays", sg.Types[0], len(sg.CellData))
		}
	}
}

// Affine3 frames are written as points with their 3×3 linear part.
func TestVTKAffineFrames(t *testing.T) {
	if _, ok := graph.LookupTemplate("Affine3"); !ok {
		graph.RegisterTemplate(graph.VecTemplate{TemplateName: "Affine3", Dim: 12})
	}
	s := load(t, "a.toml", `
[[node]]
name = "frames"
  [[node.object]]
  type = "MechanicalObject"
  template = "Affine3"
  position = [[1, 2, 3, 1, 0, 0, 0, 1, 0, 0, 0, 1], [4, 5, 6, 2, 0.5, 0, 0, 1, 0, 0.25, 0, 3]]
`)
	dir := t.TempDir()
	w, err := NewSceneWriter(dir, s.Root)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteFrame(0); err != nil {
		t.Fatal(err)
	}
	g := readGrid(t, filepath.Join(dir, "frames_MechanicalObject_000000.vtu"))
	a := g.Array("affine")
	if fmt.Sprint(g.Points) != "[1 2 3 4 5 6]" || a == nil || a.Components != 9 ||
		fmt.Sprint(a.Values) != "[1 0 0 0 1 0 0 0 1 2 0.5 0 0 1 0 0.25 0 3]" {
		t.Errorf("points %v, affine %+v", g.Points, a)
	}
}

func TestCameraValidation(t *testing.T) {
	cases := []struct{ fields, want string }{
		{`position = [1, 2]`, "position has 2 numbers"},
		{`position = [1, 2, 3]
  lookAt = [1, 2, 3]`, "same point"},
		{`direction = [0, 0, 0]`, "direction is zero"},
		{`up = [0, 0, 0]`, "up is zero"},
		{`fieldOfView = 0`, "out of range"},
		{`box = [0, 0, 0]`, "box has 3 numbers"},
		{`box = [1, 0, 0, 0, 1, 1]`, "min 1 > max 0"},
	}
	for i, c := range cases {
		_, err := graph.Load("c.toml", []byte(barScene("")+"\n  [[node.object]]\n  type = \"Camera\"\n  "+c.fields+"\n"))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("case %d: error %v, want %q", i, err, c.want)
		}
	}
	s, err := graph.Load("c.toml", []byte(barScene("")+`
  [[node.object]]
  type = "Camera"
  [[node.node]]
  name = "other"
    [[node.node.object]]
    type = "Camera"
`))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Init(); err == nil || !strings.Contains(err.Error(), "already has camera") {
		t.Errorf("two cameras: %v", err)
	}
}

// failingWriter passes n bytes through and then fails, as a full disk or a
// crash in the middle of a write would.
type failingWriter struct {
	w io.Writer
	n int
}

func (f *failingWriter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		k, _ := f.w.Write(p[:f.n])
		f.n = 0
		return k, errInjected
	}
	f.n -= len(p)
	return f.w.Write(p)
}

// exporterCases are the exporters of this package with what each writes:
// the file that the interrupted write targets at frame 2 (step 2 with
// every = 1), and a check that every file of the folder is complete.
var exporterCases = []struct {
	name, toml, target string
	// existing lists files that must be complete after an interruption at
	// frame 2.
	existing []string
}{
	{"VTK", `
  [[node.object]]
  type = "VTKExporter"
  directory = "out"
`, "bar_dofs_000002.vtu", []string{"bar_dofs_000000.vtu", "bar_dofs_000001.vtu", "bar_dofs.pvd"}},
	{"OBJ", `
  [[node.object]]
  type = "OBJExporter"
  directory = "out"
`, "bar_visual_VisualModel_000002.obj", []string{"bar_visual_VisualModel_000000.obj", "bar_visual_VisualModel_000001.obj", "bar_visual_VisualModel.mtl"}},
	{"STL", `
  [[node.object]]
  type = "STLExporter"
  directory = "out"
`, "bar_visual_VisualModel_000002.stl", []string{"bar_visual_VisualModel_000000.stl", "bar_visual_VisualModel_000001.stl"}},
	{"EnergyLogger", `
  [[node.object]]
  type = "EnergyLogger"
  filename = "out/energy.csv"
`, "energy.csv", []string{"energy.csv"}},
}

// checkComplete parses every (non-temporary) file of dir completely with
// the project's readers: a truncated file fails to parse or has fewer
// items than it announces.
func checkComplete(t *testing.T, dir string) (files int) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		name := e.Name()
		if strings.HasPrefix(name, ".") && strings.Contains(name, ".tmp") {
			continue // an abandoned temporary file, never the output
		}
		path := filepath.Join(dir, name)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		files++
		switch filepath.Ext(name) {
		case ".vtu":
			if _, err := ReadVTU(strings.NewReader(string(data))); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		case ".pvd":
			if _, err := ReadPVD(strings.NewReader(string(data))); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		case ".obj":
			m, err := meshio.ReadOBJ(path)
			var nv, nt int
			fmt.Sscanf(string(data), "# bar_visual_VisualModel: %d vertices, %d triangles", &nv, &nt)
			if err != nil || m.NumPoints() != nv || len(m.Triangles) != nt || len(readOBJNormals(t, path)) != 3*nv {
				t.Errorf("%s: incomplete (%v)", name, err)
			}
		case ".stl":
			m, err := meshio.ReadSTL(path)
			if err != nil || int64(len(data)) != 84+50*int64(len(m.Triangles)) {
				t.Errorf("%s: incomplete (%v, %d bytes)", name, err, len(data))
			}
		case ".mtl":
			if !strings.HasSuffix(string(data), "illum 1\n") {
				t.Errorf("%s: incomplete %q", name, data)
			}
		case ".csv":
			recs, err := csv.NewReader(strings.NewReader(string(data))).ReadAll()
			if err != nil || len(recs) < 2 || !strings.HasSuffix(string(data), "\n") {
				t.Errorf("%s: incomplete (%v)", name, err)
			}
		default:
			t.Errorf("unexpected file %s", name)
		}
	}
	return files
}

// An exporter whose write fails midway (full disk, I/O error) reports the
// error and leaves no truncated file: the frames before are complete, the
// failed file is absent (a new frame) or its previous version (the log),
// and no temporary file remains.
func TestExporterFailedWriteLeavesNoTruncatedFile(t *testing.T) {
	for _, c := range exporterCases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			s, err := graph.Load(filepath.Join(dir, "bar.toml"), []byte(exportScene(c.toml)))
			if err != nil {
				t.Fatal(err)
			}
			s.Root.Child("bar").Add(&mover{ObjectBase: graph.ObjectBase{Name: "mover"}, disp: bend})
			if err := s.Init(); err != nil {
				t.Fatal(err)
			}
			if l, ok := s.Find("bar/EnergyLogger").(*EnergyLogger); ok {
				l.flushEvery = 0
			}
			if err := s.Step(); err != nil {
				t.Fatal(err)
			}
			var before []byte
			if c.name == "EnergyLogger" {
				before, _ = os.ReadFile(filepath.Join(dir, "out", c.target))
			}
			interruptWriter = func(path string, w io.Writer) io.Writer {
				if filepath.Base(path) == c.target {
					return &failingWriter{w: w, n: 40}
				}
				return w
			}
			defer func() { interruptWriter = nil }()
			err = s.Step()
			if !errors.Is(err, errInjected) {
				t.Fatalf("step 2: error %v, want the injected one", err)
			}
			interruptWriter = nil
			out := filepath.Join(dir, "out")
			assertNoTemp(t, out)
			checkComplete(t, out)
			for _, f := range c.existing {
				if _, err := os.Stat(filepath.Join(out, f)); err != nil {
					t.Errorf("%s missing after the failed write: %v", f, err)
				}
			}
			target := filepath.Join(out, c.target)
			if c.name == "EnergyLogger" {
				if after, _ := os.ReadFile(target); string(after) != string(before) {
					t.Errorf("log after the failed rewrite:\n%s\nwant the previous one:\n%s", after, before)
				}
			} else if _, err := os.Stat(target); !os.IsNotExist(err) {
				t.Errorf("the failed frame %s exists", c.target)
			}
		})
	}
}

// A run killed (SIGKILL) in the middle of a write, for each exporter,
// leaves every file complete: the child process stalls halfway through
// the frame-2 file, the parent kills it, and every file in the folder
// parses completely.
func TestExporterKilledMidWriteLeavesNoTruncatedFile(t *testing.T) {
	if name := os.Getenv("EXPORTER_KILL_CASE"); name != "" {
		killChild(name, os.Getenv("EXPORTER_KILL_DIR"))
		return
	}
	if testing.Short() {
		t.Skip("starts child processes")
	}
	for _, c := range exporterCases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command(os.Args[0], "-test.run=^TestExporterKilledMidWriteLeavesNoTruncatedFile$")
			cmd.Env = append(os.Environ(), "EXPORTER_KILL_CASE="+c.name, "EXPORTER_KILL_DIR="+dir)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan struct{})
			go func() { cmd.Wait(); close(exited) }()
			deadline := time.After(30 * time.Second)
		wait:
			for {
				if _, err := os.Stat(filepath.Join(dir, "ready")); err == nil {
					break
				}
				select {
				case <-exited:
					t.Fatalf("child exited before the middle of its write: %s", stderr.String())
				case <-deadline:
					cmd.Process.Kill()
					<-exited
					t.Fatalf("child never reached the middle of its write: %s", stderr.String())
				case <-time.After(5 * time.Millisecond):
					continue wait
				}
			}
			cmd.Process.Kill()
			<-exited
			out := filepath.Join(dir, "out")
			// The child stalled inside the write of the target: its
			// temporary file holds half of it.
			half := false
			ents, _ := os.ReadDir(out)
			for _, e := range ents {
				if strings.HasPrefix(e.Name(), "."+c.target+".tmp") {
					if fi, _ := e.Info(); fi.Size() > 0 {
						half = true
					}
				}
			}
			if !half {
				t.Errorf("no half-written temporary file of %s: the kill did not land mid-write", c.target)
			}
			if n := checkComplete(t, out); n < len(c.existing) {
				t.Errorf("%d complete files, want at least %d", n, len(c.existing))
			}
			for _, f := range c.existing {
				if _, err := os.Stat(filepath.Join(out, f)); err != nil {
					t.Errorf("%s missing: %v", f, err)
				}
			}
		})
	}
}

// killChild runs the exporter case in dir and stalls halfway through the
// write of its frame-2 file, after writing a "ready" marker.
func killChild(name, dir string) {
	for _, c := range exporterCases {
		if c.name != name {
			continue
		}
		s, err := graph.Load(filepath.Join(dir, "bar.toml"), []byte(exportScene(c.toml)))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		s.Root.Child("bar").Add(&mover{ObjectBase: graph.ObjectBase{Name: "mover"}, disp: bend})
		if err := s.Init(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		if l, ok := s.Find("bar/EnergyLogger").(*EnergyLogger); ok {
			l.flushEvery = 0
		}
		if err := s.Step(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		interruptWriter = func(path string, w io.Writer) io.Writer {
			if filepath.Base(path) != c.target {
				return w
			}
			return &stallWriter{w: w, dir: dir}
		}
		s.Step()
		os.Exit(4) // not reached: killed while stalled
	}
	os.Exit(5)
}

// stallWriter writes the first half of what it gets (at least 64 bytes),
// syncs, marks "ready" and sleeps, waiting to be killed.
type stallWriter struct {
	w   io.Writer
	dir string
}

func (s *stallWriter) Write(p []byte) (int, error) {
	n := max(len(p)/2, min(64, len(p)))
	s.w.Write(p[:n])
	if f, ok := s.w.(*os.File); ok {
		f.Sync()
	}
	os.WriteFile(filepath.Join(s.dir, "ready"), nil, 0o644)
	time.Sleep(time.Minute)
	return len(p), nil
}
