package runscene

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sofago/sofago/components/visual"
	"github.com/sofago/sofago/graph"
)

// binary is the runscene executable, built on first use (fuzz workers,
// which never run it, do not build it).
var (
	binDir    string
	binary    string
	buildOnce sync.Once
	buildErr  error
)

// testCache is the precomputation cache of this package's tests: one
// temporary folder per test binary (so a model precomputed by one test is
// read by the next), removed with the binary's folder.
func testCache() string { return filepath.Join(binDir, "cache") }

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "runscene-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// build compiles the command once with go build -o into the test's
// temporary folder.
func build(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		binary = filepath.Join(binDir, "runscene")
		goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
		if _, err := os.Stat(goTool); err != nil {
			goTool = "go"
		}
		if out, err := exec.Command(goTool, "build", "-o", binary, "../cmd/runscene").CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("building runscene: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binary
}

type result struct {
	stdout, stderr string
	code           int
}

// runBin runs the built binary with args and a 60 s limit.
func runBin(t *testing.T, args ...string) result {
	t.Helper()
	cmd := exec.Command(build(t), args...)
	var so, se strings.Builder
	cmd.Stdout, cmd.Stderr = &so, &se
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("runscene %v did not finish in 60 s", args)
	}
	return result{so.String(), se.String(), cmd.ProcessState.ExitCode()}
}

// writeScene writes a scene file into a fresh temporary folder.
func writeScene(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "scene.toml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

var typeRE = regexp.MustCompile(`(?m)^\s*type\s*=\s*"([^"]+)"`)

// needTypes skips the test when a component type the scene uses is not
// registered yet (other components are written in parallel).
func needTypes(t *testing.T, sceneText string) {
	t.Helper()
	for _, m := range typeRE.FindAllStringSubmatch(sceneText, -1) {
		if _, ok := graph.Lookup(m[1]); !ok {
			t.Skipf("component type %s is not registered yet", m[1])
		}
	}
}

// wantSceneError checks exit code 1 and a single stderr line
// "file:line: ..." containing every one of wants.
func wantSceneError(t *testing.T, r result, file string, line int, wants ...string) {
	t.Helper()
	if r.code != 1 {
		t.Fatalf("exit code %d, want 1; stderr: %s", r.code, r.stderr)
	}
	msg := strings.TrimSuffix(r.stderr, "\n")
	if strings.Contains(msg, "\n") || msg == "" {
		t.Fatalf("stderr is not one line: %q", r.stderr)
	}
	prefix := file + ":"
	if line > 0 {
		prefix = fmt.Sprintf("%s:%d: ", file, line)
	}
	if !strings.HasPrefix(msg, prefix) {
		t.Errorf("stderr %q does not start with %q", msg, prefix)
	}
	for _, w := range wants {
		if !strings.Contains(msg, w) {
			t.Errorf("stderr %q does not contain %q", msg, w)
		}
	}
	if r.stdout != "" {
		t.Errorf("stdout not empty on error: %q", r.stdout)
	}
}

func TestBadSceneOneLine(t *testing.T) {
	p := writeScene(t, `dt = 0.01
[[node]]
name = "beam"
  [[node.object]]
  type = "MechanicalObjct"
`)
	wantSceneError(t, runBin(t, p), p, 5, `node "beam"`, `unknown component type "MechanicalObjct"`, `did you mean "MechanicalObject"?`)
}

func TestUnreadableScene(t *testing.T) {
	p := filepath.Join(t.TempDir(), "missing.toml")
	r := runBin(t, p)
	wantSceneError(t, r, p, 0, "cannot read scene")
	if !strings.HasPrefix(r.stderr, p+": ") {
		t.Errorf("an unreadable file has no line: want %q, got %q", p+": ", r.stderr)
	}
}

const femScene = `dt = 0.01
[[node]]
name = "beam"
  [[node.object]]
  type = "RegularGridTopology"
  min = [0, 0, 0]
  max = [1, 0.1, 0.1]
  n = [3, 2, 2]
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[node.object]]
  type = "TetrahedronFEMForceField"
  name = "fem"
  youngModulus = 1e6
  poissonRatio = 0.5
`

func TestPoissonRatioOutOfRange(t *testing.T) {
	needTypes(t, femScene)
	p := writeScene(t, femScene)
	wantSceneError(t, runBin(t, p), p, 16, `node "beam"`, `object "fem"`, "poissonRatio", "out of range")
}

func TestNegativeMass(t *testing.T) {
	text := `[[node]]
name = "ball"
  [[node.object]]
  type = "MechanicalObject"
  position = [[0, 0, 0]]
  [[node.object]]
  type = "UniformMass"
  totalMass = -1
`
	needTypes(t, text)
	p := writeScene(t, text)
	wantSceneError(t, runBin(t, p), p, 8, `node "ball"`, `object "UniformMass"`, "totalMass", "out of range")
}

// A rest shape that flattens the grid onto the plane z = 0 makes every
// tetrahedron degenerate; the force field's Init must say so at its line.
func TestDegenerateTetrahedron(t *testing.T) {
	text := strings.Replace(femScene, "poissonRatio = 0.5", "poissonRatio = 0.3", 1)
	text = strings.Replace(text, `  name = "dofs"`, `  name = "dofs"
  restPosition = [[0,0,0], [0.5,0,0], [1,0,0], [0,0.1,0], [0.5,0.1,0], [1,0.1,0],
                  [0,0,0], [0.5,0,0], [1,0,0], [0,0.1,0], [0.5,0.1,0], [1,0.1,0]]`, 1)
	needTypes(t, text)
	p := writeScene(t, text)
	r := runBin(t, p)
	wantSceneError(t, r, p, 14, `node "beam"`, `object "fem"`)
	if !regexp.MustCompile(`(?i)degenerate|zero volume|inverted|flat`).MatchString(r.stderr) {
		t.Errorf("message does not say the element is degenerate: %s", r.stderr)
	}
}

func TestUsageErrors(t *testing.T) {
	p := writeScene(t, "steps = 1\n")
	for _, args := range [][]string{
		{},
		{"-steps", "-1", p},
		{"-dt", "0", p},
		{"-dt", "-0.1", p},
		{"-every", "0", p},
		{"-nosuchflag", p},
		{p, p},
		{"-steps", "x", p},
		{"-doc", "MechanicalObjekt"},
	} {
		r := runBin(t, args...)
		if r.code != 2 {
			t.Errorf("runscene %v: exit code %d, want 2 (stderr %q)", args, r.code, r.stderr)
		}
		if !strings.HasPrefix(r.stderr, "runscene: ") {
			t.Errorf("runscene %v: stderr %q does not start with \"runscene: \"", args, r.stderr)
		}
	}
	r := runBin(t, "-doc", "MechanicalObjekt")
	if !strings.Contains(r.stderr, `did you mean "MechanicalObject"?`) {
		t.Errorf("-doc of a misspelt type: %q, want a did-you-mean", r.stderr)
	}
	// A SOFA name gets this project's equivalent from the registry's table.
	if r := runBin(t, "-doc", "OglModel"); r.code != 2 || !strings.Contains(r.stderr, `SOFA's type OglModel is VisualModel here (did you mean "VisualModel"?)`) {
		t.Errorf("-doc OglModel: exit %d, stderr %q, want 2 and a pointer to VisualModel", r.code, r.stderr)
	}
	if r := runBin(t, "-h"); r.code != 0 || !strings.Contains(r.stdout, "-dump") {
		t.Errorf("-h: exit %d, stdout %q", r.code, r.stdout)
	}
}

func TestList(t *testing.T) {
	r := runBin(t, "-list")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	// Every registered type appears once, under its kind, kinds in order.
	lastKind := -1
	for _, ty := range graph.Types() {
		re := regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(ty.Name) + ` +\S`)
		if len(re.FindAllString(r.stdout, -1)) != 1 {
			t.Errorf("type %s not listed once with its summary", ty.Name)
		}
		kindAt := strings.Index(r.stdout, "\n"+string(ty.Kind)+"\n")
		if ty.Kind == graph.Kinds[0] {
			kindAt = strings.Index(r.stdout, string(ty.Kind)+"\n")
		}
		if kindAt < lastKind {
			t.Errorf("kind %s out of order", ty.Kind)
		}
		lastKind = kindAt
		if at := strings.Index(r.stdout, "  "+ty.Name+" "); at < kindAt {
			t.Errorf("type %s is not under its kind %s", ty.Name, ty.Kind)
		}
	}
}

func TestDoc(t *testing.T) {
	r := runBin(t, "-doc", "MechanicalObject")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !strings.HasPrefix(r.stdout, "MechanicalObject (state)\n") {
		t.Errorf("doc does not start with the name and kind: %q", r.stdout)
	}
	for _, f := range graph.FieldDocs(mustLookup(t, "MechanicalObject")) {
		if !regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(f.Name) + ` `).MatchString(r.stdout) {
			t.Errorf("field %s missing from the table", f.Name)
		}
	}
	for _, w := range []string{"NAME", "TYPE", "DEFAULT", "UNIT", "RANGE/ENUM", "REQUIRED", "DOC", `"Vec3"`, "[0,50000000]"} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("doc lacks %q:\n%s", w, r.stdout)
		}
	}
}

func mustLookup(t *testing.T, name string) graph.TypeInfo {
	ti, ok := graph.Lookup(name)
	if !ok {
		t.Fatalf("%s not registered", name)
	}
	return ti
}

type dumpJSON struct {
	Time   float64 `json:"time"`
	Steps  int     `json:"steps"`
	Energy struct {
		Kinetic   *float64 `json:"kinetic"`
		Potential *float64 `json:"potential"`
	} `json:"energy"`
	States []struct {
		Path     string      `json:"path"`
		Template string      `json:"template"`
		Position [][]float64 `json:"position"`
		Velocity [][]float64 `json:"velocity"`
		Force    [][]float64 `json:"force"`
	} `json:"states"`
	// Objects is the optional internal-state section (plastic strains):
	// a path and arrays of rows per object.
	Objects []map[string]json.RawMessage `json:"objects"`
}

func readDump(t *testing.T, path string) dumpJSON {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var d dumpJSON
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		t.Fatalf("dump is not the documented JSON: %v\n%s", err, data)
	}
	return d
}

const freeScene = `dt = 0.01
gravity = [0, -9.81, 0]
[[node]]
name = "points"
  [[node.object]]
  type = "EulerExplicitSolver"
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  position = [[0, 0, 0], [1, 2, 3], [-1, 0.5, 2]]
  velocity = [[0.5, 0, 0]]
  [[node.object]]
  type = "UniformMass"
  totalMass = 6
[[node]]
name = "body"
  [[node.object]]
  type = "EulerExplicitSolver"
  [[node.object]]
  type = "MechanicalObject"
  name = "frame"
  template = "Rigid3"
  position = [[0, 1, 0, 0, 0, 0, 1]]
  [[node.object]]
  type = "RigidMass"
  mass = 3
`

// -steps 0 -dump: the documented shape, the state layouts, and the force on
// free points = their weight m·g (2 kg each here), exactly.
func TestDumpStepsZero(t *testing.T) {
	needTypes(t, freeScene)
	p := writeScene(t, freeScene)
	out := filepath.Join(filepath.Dir(p), "dump.json")
	r := runBin(t, "-steps", "0", "-dump", out, p)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if r.stderr != "" {
		t.Errorf("stderr not empty in a pipe: %q", r.stderr)
	}
	d := readDump(t, out)
	if d.Time != 0 || d.Steps != 0 || d.Energy.Kinetic == nil || d.Energy.Potential == nil {
		t.Fatalf("header: time %v steps %v energy %+v", d.Time, d.Steps, d.Energy)
	}
	if len(d.States) != 2 {
		t.Fatalf("%d states, want 2", len(d.States))
	}
	pts, body := d.States[0], d.States[1]
	if pts.Path != "points/dofs" || pts.Template != "Vec3" || body.Path != "body/frame" || body.Template != "Rigid3" {
		t.Fatalf("states %s (%s), %s (%s)", pts.Path, pts.Template, body.Path, body.Template)
	}
	shape := func(name string, rows [][]float64, n, width int) {
		t.Helper()
		if len(rows) != n {
			t.Errorf("%s: %d DOFs, want %d", name, len(rows), n)
		}
		for i, r := range rows {
			if len(r) != width {
				t.Errorf("%s[%d] has %d numbers, want %d", name, i, len(r), width)
			}
		}
	}
	shape("points position", pts.Position, 3, 3)
	shape("points velocity", pts.Velocity, 3, 3)
	shape("points force", pts.Force, 3, 3)
	shape("body position", body.Position, 1, 7)
	shape("body velocity", body.Velocity, 1, 6)
	shape("body force", body.Force, 1, 6)
	for i, f := range pts.Force {
		// m·g with m = 6/3 = 2 kg: 2 × −9.81 is exact in float64.
		if f[0] != 0 || f[1] != 2*-9.81 || f[2] != 0 {
			t.Errorf("force on free point %d = %v, want [0 %v 0]", i, f, 2*-9.81)
		}
		if pts.Velocity[i][0] != 0.5 {
			t.Errorf("velocity %d = %v, want [0.5 0 0]", i, pts.Velocity[i])
		}
	}
	want := []float64{0, 3 * -9.81, 0, 0, 0, 0} // weight at the centre, no torque
	for i := range want {
		if body.Force[0][i] != want[i] {
			t.Errorf("force on the rigid body %v, want %v", body.Force[0], want)
			break
		}
	}
	if fmt.Sprint(pts.Position[1]) != "[1 2 3]" || fmt.Sprint(body.Position[0]) != "[0 1 0 0 0 0 1]" {
		t.Errorf("positions %v, %v", pts.Position, body.Position)
	}
	// Kinetic ½ Σ m v² = ½ · 2 · 0.25 · 3; potential −Σ m g·x = 9.81 (2·(0+2+0.5) + 3·1).
	if *d.Energy.Kinetic != 0.75 || math.Abs(*d.Energy.Potential-9.81*8) > 1e-12 {
		t.Errorf("energies %v %v, want 0.75 and %v", *d.Energy.Kinetic, *d.Energy.Potential, 9.81*8)
	}
}

// A run that blows up stops with a one-line error, exit 1, and no dump.
func TestDivergingRunNoDump(t *testing.T) {
	text := `dt = 1
gravity = [0, 0, 0]
steps = 500
[[node]]
name = "spring"
  [[node.object]]
  type = "EulerExplicitSolver"
  symplectic = false
  [[node.object]]
  type = "MechanicalObject"
  restPosition = [[0, 0, 0]]
  position = [[1, 0, 0]]
  [[node.object]]
  type = "UniformMass"
  vertexMass = 1
  [[node.object]]
  type = "RestShapeSpringsForceField"
  stiffness = 1e12
`
	needTypes(t, text)
	p := writeScene(t, text)
	out := filepath.Join(filepath.Dir(p), "dump.json")
	r := runBin(t, "-dump", out, p)
	wantSceneError(t, r, p, 0, "step ")
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a dump was written for a diverged run")
	}
}

// -out writes frame 0, a frame every -every steps and the last step, as
// VTU files listed in a .pvd; the tetrahedra come from the topology.
func TestOutVTU(t *testing.T) {
	text := `dt = 0.01
steps = 5
[[node]]
name = "beam"
  [[node.object]]
  type = "EulerImplicitSolver"
  [[node.object]]
  type = "CGLinearSolver"
  [[node.object]]
  type = "RegularGridTopology"
  min = [0, 0, 0]
  max = [1, 0.1, 0.1]
  n = [4, 2, 2]
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[node.object]]
  type = "UniformMass"
  totalMass = 1
  [[node.object]]
  type = "FixedConstraint"
  indices = [0]
`
	needTypes(t, text)
	p := writeScene(t, text)
	dir := filepath.Join(t.TempDir(), "frames")
	r := runBin(t, "-out", dir, "-every", "2", p)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	f, err := os.Open(filepath.Join(dir, "beam_dofs.pvd"))
	if err != nil {
		t.Fatal(err)
	}
	entries, err := visual.ReadPVD(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	var times []string
	for _, e := range entries {
		times = append(times, fmt.Sprintf("%.2f", e.Time))
	}
	if fmt.Sprint(times) != "[0.00 0.02 0.04 0.05]" {
		t.Errorf("frames at %v, want steps 0, 2, 4 and the last, 5", times)
	}
	for _, e := range entries {
		f, err := os.Open(filepath.Join(dir, e.File))
		if err != nil {
			t.Fatal(err)
		}
		g, err := visual.ReadVTU(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", e.File, err)
		}
		if g.NumPoints() != 16 || g.NumCells() != 3*6 || g.Types[0] != visual.CellTetrahedron {
			t.Errorf("%s: %d points, %d cells of type %d; want 16, 18 tetrahedra", e.File, g.NumPoints(), g.NumCells(), g.Types[0])
		}
	}
	// Under gravity the free end has moved down by the last frame.
	g, err := readVTUFile(filepath.Join(dir, entries[len(entries)-1].File))
	if err != nil {
		t.Fatal(err)
	}
	if d := g.Array("displacement"); d == nil || !(d.Values[3*15+1] < 0) {
		t.Errorf("last frame: the free corner did not fall: %+v", d)
	}
	if !regexp.MustCompile(`(?m)^-out VTU/PVD +4 +5 +` + regexp.QuoteMeta(dir) + ` +1 series$`).MatchString(r.stdout) {
		t.Errorf("summary does not report the frames (4 frames, 5 files, 1 series):\n%s", r.stdout)
	}
}

// SIGINT stops the run after the current step with exit code 130, leaving
// a valid .pvd listing complete frames.
func TestInterrupt(t *testing.T) {
	text := `dt = 0.001
steps = 100000000
[[node]]
name = "pts"
  [[node.object]]
  type = "EulerExplicitSolver"
  [[node.object]]
  type = "MechanicalObject"
  position = [[0, 0, 0], [1, 0, 0]]
  [[node.object]]
  type = "UniformMass"
  vertexMass = 1
`
	needTypes(t, text)
	p := writeScene(t, text)
	dir := filepath.Join(t.TempDir(), "out")
	cmd := exec.Command(build(t), "-out", dir, "-every", "1000", p)
	var se strings.Builder
	cmd.Stderr = &se
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pvd := filepath.Join(dir, "pts_MechanicalObject.pvd")
	deadline := time.Now().Add(30 * time.Second)
	for {
		if e, err := readPVDFile(pvd); err == nil && len(e) >= 3 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatal("no frames after 30 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGINT)
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Errorf("exit code %d, want 130; stderr %s", code, se.String())
	}
	if !strings.Contains(se.String(), "interrupted after step") {
		t.Errorf("stderr %q", se.String())
	}
	e, err := readPVDFile(pvd)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range e {
		if _, err := readVTUFile(filepath.Join(dir, x.File)); err != nil {
			t.Errorf("frame %s: %v", x.File, err)
		}
	}
}

func readPVDFile(path string) ([]visual.PVDEntry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return visual.ReadPVD(f)
}

func readVTUFile(path string) (*visual.Grid, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return visual.ReadVTU(f)
}

// Flags may follow the scene file; the summary goes to stdout, nothing to
// stderr in a pipe.
func TestFlagsAfterSceneAndSummary(t *testing.T) {
	needTypes(t, freeScene)
	p := writeScene(t, freeScene)
	r := runBin(t, p, "-steps", "3", "-dt", "0.005")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if r.stderr != "" {
		t.Errorf("progress or noise on stderr in a pipe: %q", r.stderr)
	}
	for _, w := range []string{"steps", "3 (dt = 0.005 s)", "simulated time", "0.015 s", "ms/step", "kinetic energy", "potential energy"} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("summary lacks %q:\n%s", w, r.stdout)
		}
	}
	if r := runBin(t, "-quiet", "-steps", "1", p); r.code != 0 || r.stdout != "" || r.stderr != "" {
		t.Errorf("-quiet: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

// The example scenes run a few steps each, so none can rot. -short leaves
// out the one whose Init takes seconds (a large reduced model to
// precompute; the scenes package's test runs it).
func TestExampleScenes(t *testing.T) {
	files, _ := filepath.Glob("../scenes/*.toml")
	if len(files) == 0 {
		t.Skip("no scenes yet")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			if filepath.Base(f) == "subspace_bridge.toml" && testing.Short() {
				t.Skip("-short: precomputes an 11,520-tetrahedron reduced model at Init (about 3 s of CPU)")
			}
			text, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			needTypes(t, string(text))
			dump := filepath.Join(t.TempDir(), "d.json")
			r := runBin(t, "-steps", "3", "-dump", dump, "-cache", testCache(), f)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			d := readDump(t, dump)
			if d.Steps != 3 || len(d.States) == 0 {
				t.Errorf("dump: %d steps, %d states", d.Steps, len(d.States))
			}
		})
	}
}

// The cantilever scene runs 3 steps and sags.
func TestCantileverThreeSteps(t *testing.T) {
	const f = "../scenes/cantilever.toml"
	text, err := os.ReadFile(f)
	if err != nil {
		t.Skip("scenes/cantilever.toml not there yet")
	}
	needTypes(t, string(text))
	dump := filepath.Join(t.TempDir(), "d.json")
	r := runBin(t, "-steps", "3", "-dump", dump, f)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	d := readDump(t, dump)
	if d.Steps != 3 || math.Abs(d.Time-0.03) > 1e-12 {
		t.Errorf("time %v after %d steps, want 0.03 after 3", d.Time, d.Steps)
	}
	var beam = d.States[0]
	if beam.Path != "beam/dofs" || beam.Template != "Vec3" || len(beam.Position) != 21*3*3 {
		t.Fatalf("state %s (%s) with %d DOFs", beam.Path, beam.Template, len(beam.Position))
	}
	tip := beam.Position[20] // vertex (20, 0, 0): x = 1
	if math.Abs(tip[0]-1) > 0.01 || !(tip[1] < 0) {
		t.Errorf("tip at %v: it should have started to sag", tip)
	}
	if beam.Position[0][1] != 0 {
		t.Errorf("clamped vertex moved: %v", beam.Position[0])
	}
}

// The dump refuses NaN rather than writing invalid JSON.
func TestDumpRefusesNaN(t *testing.T) {
	err := checkDumpFinite(0, 0, []dumpState{{path: "a/b", coord: 3, deriv: 3,
		position: []float64{0, 0, 0, 1, math.NaN(), 0}, velocity: make([]float64, 6), force: make([]float64, 6)}})
	if err == nil || !strings.Contains(err.Error(), `state "a/b": position of DOF 1 is NaN`) {
		t.Errorf("error %v", err)
	}
	if err := checkDumpFinite(math.Inf(1), 0, nil); err == nil {
		t.Error("infinite energy accepted")
	}
}

func TestOneLine(t *testing.T) {
	if got := oneLine("s.toml", fmt.Errorf("boom\nsecond")); got != "s.toml: boom; second" {
		t.Errorf("got %q", got)
	}
	if got := oneLine("s.toml", fmt.Errorf("s.toml:3: x")); got != "s.toml:3: x" {
		t.Errorf("got %q", got)
	}
}

// Progress is drawn only when stderr is a terminal (run in-process, where
// the terminal check is a parameter), and cleared before the summary.
func TestProgressOnlyOnTerminal(t *testing.T) {
	needTypes(t, freeScene)
	p := writeScene(t, freeScene)
	for _, terminal := range []bool{false, true} {
		var so, se strings.Builder
		code := run(context.Background(), []string{"-steps", "4", "-every", "2", p}, &so, &se, terminal)
		if code != 0 {
			t.Fatalf("terminal=%v: exit %d, stderr %q", terminal, code, se.String())
		}
		if !terminal && se.Len() != 0 {
			t.Errorf("progress written to a pipe: %q", se.String())
		}
		if terminal {
			want := "\r\033[K[############............]  50%  step 2/4  t = 0.02 s"
			if !strings.HasPrefix(se.String(), want) || !strings.Contains(se.String(), "[########################] 100%  step 4/4") || !strings.HasSuffix(se.String(), "\r\033[K") {
				t.Errorf("terminal progress %q, want steps 2 and 4, then cleared", se.String())
			}
		}
		if !strings.Contains(so.String(), "simulated time") {
			t.Errorf("no summary: %q", so.String())
		}
	}
}
