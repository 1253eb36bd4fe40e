package runscene

import (
	"fmt"
	"image/gif"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sofago/sofago/components/solver"
	"github.com/sofago/sofago/graph/graphtest"
)

// editedScene writes a copy of the repository scene name with the
// replacements old → new applied (each must occur) into a temporary
// folder, and returns its path.
func editedScene(t *testing.T, name string, oldNew ...string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "scenes", name))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for i := 0; i < len(oldNew); i += 2 {
		if !strings.Contains(text, oldNew[i]) {
			t.Fatalf("%s has no %q", name, oldNew[i])
		}
		text = strings.Replace(text, oldNew[i], oldNew[i+1], 1)
	}
	needTypes(t, text)
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestExitStatuses runs the binary on runs that succeed, diverge, misuse
// the command line, or leave solves unconverged, and checks the exit
// status (0, 1, 2, 3) and every stderr line. A run whose linear or Newton
// solves did not converge finishes, prints its summary and one warning per
// such solver, located at the solver and naming its path and the count of
// unconverged steps, and exits 3 unless -allow-unconverged.
func TestExitStatuses(t *testing.T) {
	// The cantilever with CG capped at 5 iterations instead of its sparse
	// Cholesky solver (CG needs ~360): every step's linear solve stops
	// unconverged.
	cg5 := editedScene(t, "cantilever.toml", `type = "SparseCholeskySolver"`, "type = \"CGLinearSolver\"\n  iterations = 5\n  tolerance = 1e-9")
	// wall_crash with its former unpreconditioned CG to 1e-6: at dt =
	// 0.05 s the implicit solve diverges without NaN (with the scene's
	// SparseCholeskySolver the matrix turns indefinite and the step stops
	// there instead).
	crashCG := editedScene(t, "wall_crash.toml", `type = "SparseCholeskySolver"`, "type = \"CGLinearSolver\"\n  iterations = 1000\n  tolerance = 1e-6")
	// The static cantilever with one Newton iteration: the linear
	// predictor is far from equilibrium (StaticSolver's doc).
	newton1 := editedScene(t, "cantilever_static.toml", "iterations = 25", "iterations = 1\n  failOnNonConvergence = false")
	// The reduced beam with two Newton iterations per step: one
	// convergence test, which the nonlinear StVK model fails at 1e-10.
	newmark2 := editedScene(t, "subspace_beam.toml", "maxIterations = 1", "maxIterations = 2")
	warnCG5 := regexp.QuoteMeta(cg5) + fmt.Sprintf(":%d: ", objectLine(t, cg5, "EulerImplicitSolver")) + `warning: solver "beam/EulerImplicitSolver": 20 of 20 steps did not converge \(linear solve: 20\); the results may be wrong: raise the iterations or the tolerance of its linear solver, or lower dt `
	cases := []struct {
		name   string
		args   []string
		code   int
		stderr []string // a regexp per stderr line
		stdout string   // a regexp the stdout must match ("" : empty)
	}{
		{"converged", []string{"-steps", "3", "../scenes/cantilever.toml"}, 0, nil, `(?m)^beam/EulerImplicitSolver +3 .* 0$`},
		{"usage error", []string{"-steps", "-1", "../scenes/cantilever.toml"}, 2, []string{`^runscene: invalid value "-1" for flag -steps: must be 0 or more, got -1 \(runscene -h lists the flags\)$`}, ""},
		{"diverged without NaN", []string{"-dt", "0.05", crashCG}, 1,
			[]string{"^" + regexp.QuoteMeta(crashCG) + fmt.Sprintf(":%d: ", objectLine(t, crashCG, "EulerImplicitSolver")) + `node "car", object "EulerImplicitSolver": step \d+ \(t = [0-9.e+-]+ s\): state "car/dofs": DOF \d+ (is [0-9.e+]+ m from the centre|moves at [0-9.e+]+ m/s).*\(divergence criterion: 1000 × .*; the implicit solve diverged \(likely cause: the linear solver did not converge`}, ""},
		{"linear solve unconverged", []string{"-steps", "20", cg5}, 3,
			[]string{"^" + warnCG5 + `\(exit status 3; -allow-unconverged accepts them\)$`}, `(?m)^beam/EulerImplicitSolver +20 +5\.0 +5 +\S+ +20$`},
		{"linear solve unconverged, allowed", []string{"-steps", "20", "-allow-unconverged", cg5}, 0,
			[]string{"^" + warnCG5 + `\(accepted by -allow-unconverged\)$`}, `(?m)^beam/EulerImplicitSolver +20 `},
		{"linear solve unconverged, quiet", []string{"-quiet", "-steps", "20", cg5}, 3, []string{"^" + warnCG5}, ""},
		{"Newton unconverged (StaticSolver)", []string{newton1}, 3,
			[]string{"^" + regexp.QuoteMeta(newton1) + fmt.Sprintf(":%d: ", objectLine(t, newton1, "StaticSolver")) + `warning: solver "beam/StaticSolver": 1 of 1 steps did not converge \(Newton: 1, linear solves: 0\)`},
			`(?m)^beam/StaticSolver +1 +1\.0 +\S+ +\d+\.0 +\d+ +\S+ +1$`},
		{"Newton unconverged (NewmarkImplicitSolver)", []string{"-steps", "20", newmark2}, 3,
			[]string{"^" + regexp.QuoteMeta(newmark2) + fmt.Sprintf(":%d: ", objectLine(t, newmark2, "NewmarkImplicitSolver")) + `warning: solver "beam/NewmarkImplicitSolver": 20 of 20 steps did not converge \(Newton: 20, linear solves: 0\)`},
			`(?m)^beam/NewmarkImplicitSolver +20 +2\.0 +\S+ +2\.0 +2 +\S+ +20$`},
		{"one linearised solve per step is not a Newton failure", []string{"-steps", "20", "../scenes/subspace_beam.toml"}, 0, nil,
			`(?m)^beam/NewmarkImplicitSolver +20 +1\.0 +- +1\.0 +1 +\S+ +0$`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, a := range c.args {
				if strings.HasSuffix(a, ".toml") {
					text, err := os.ReadFile(a)
					if err != nil {
						t.Fatal(err)
					}
					needTypes(t, string(text))
				}
			}
			r := runBin(t, c.args...)
			if r.code != c.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", r.code, c.code, r.stderr)
			}
			lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
			if r.stderr == "" {
				lines = nil
			}
			if len(lines) != len(c.stderr) {
				t.Fatalf("%d stderr lines, want %d:\n%s", len(lines), len(c.stderr), r.stderr)
			}
			for i, re := range c.stderr {
				if !regexp.MustCompile(re).MatchString(lines[i]) {
					t.Errorf("stderr line %d\n%s\ndoes not match\n%s", i+1, lines[i], re)
				}
			}
			if c.stdout == "" && c.code != 0 && c.code != 3 {
				if r.stdout != "" {
					t.Errorf("stdout not empty: %q", r.stdout)
				}
			} else if c.stdout == "" {
				if r.stdout != "" {
					t.Errorf("stdout not empty with -quiet: %q", r.stdout)
				}
			} else if !regexp.MustCompile(c.stdout).MatchString(r.stdout) {
				t.Errorf("summary does not match %s:\n%s", c.stdout, r.stdout)
			}
		})
	}
}

// StaticSolver's summary row reports the Newton iterations and the final
// residual relative to the load that the solver itself reports for the
// same run (in process), and its linear solves.
func TestStaticSolverSummaryRow(t *testing.T) {
	const scene = "../scenes/cantilever_static.toml"
	text, err := os.ReadFile(scene)
	if err != nil {
		t.Fatal(err)
	}
	needTypes(t, string(text))
	r := runBin(t, scene)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	s := graphtest.MustLoad(t, scene, string(text))
	if err := s.Step(); err != nil {
		t.Fatal(err)
	}
	st := graphtest.Find[*solver.StaticSolver](t, s, "beam/StaticSolver").LastStaticStats()
	if !st.Converged || st.LoadNorm <= 0 {
		t.Fatalf("the static cantilever did not converge: %+v", st)
	}
	want := fmt.Sprintf(`(?m)^solver +steps +Newton iterations/step +max Newton residual +linear iterations/step +max iterations +max relative residual +steps not converged\n`+
		`beam/StaticSolver +1 +%s +%s +%s +%d +%s +0$`,
		regexp.QuoteMeta(fmt.Sprintf("%.1f", float64(st.Iterations))), regexp.QuoteMeta(fmt.Sprintf("%.3g", st.Residual/st.LoadNorm)),
		regexp.QuoteMeta(fmt.Sprintf("%.1f", float64(st.LinearIterations))), st.LinearIterations, regexp.QuoteMeta(fmt.Sprintf("%.3g", st.LinearResidual)))
	if !regexp.MustCompile(want).MatchString(r.stdout) {
		t.Errorf("summary does not match %s:\n%s", want, r.stdout)
	}
}

// A scene of a small beam with a visual surface, running "forever", for
// the interrupt test.
const endlessBeam = `dt = 0.001
steps = 100000000
[[node]]
name = "beam"
  [[node.object]]
  type = "EulerImplicitSolver"
  [[node.object]]
  type = "CGLinearSolver"
  iterations = 100
  tolerance = 1e-9
  [[node.object]]
  type = "RegularGridTopology"
  min = [0, 0, 0]
  max = [1, 0.1, 0.1]
  n = [6, 2, 2]
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[node.object]]
  type = "UniformMass"
  totalMass = 1
  [[node.object]]
  type = "TetrahedronFEMForceField"
  youngModulus = 1e6
  poissonRatio = 0.3
  [[node.object]]
  type = "FixedConstraint"
  indices = [0]
  [[node.node]]
  name = "visual"
    [[node.node.object]]
    type = "MechanicalObject"
    [[node.node.object]]
    type = "IdentityMapping"
    isMechanical = false
    [[node.node.object]]
    type = "VisualModel"
`

// SIGINT stops the run after the current step and still writes the
// outputs of that step: the dump (steps and time of the last completed
// step), the last frame of the -out series and of the GIF (their last
// entry is at the dump's time, although it is not on the -every grid),
// the picture and the plot; stderr says the run was interrupted and where
// the dump is, the summary says the same, and the exit status is 130.
func TestInterruptWritesOutputs(t *testing.T) {
	needTypes(t, endlessBeam)
	p := writeScene(t, endlessBeam)
	dir := t.TempDir()
	out, dump, anim, pic, plot := filepath.Join(dir, "vtu"), filepath.Join(dir, "d.json"), filepath.Join(dir, "run.gif"), filepath.Join(dir, "p.png"), filepath.Join(dir, "e.png")
	cmd := exec.Command(build(t), "-every", "7", "-size", "64x48", "-out", out, "-dump", dump, "-gif", anim, "-picture", pic, "-plot", plot, p)
	var so, se strings.Builder
	cmd.Stdout, cmd.Stderr = &so, &se
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pvd := filepath.Join(out, "beam_dofs.pvd")
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
		time.Sleep(5 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGINT)
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Fatalf("exit code %d, want 130; stderr %s", code, se.String())
	}
	d := readDump(t, dump)
	wantErr := fmt.Sprintf("%s: interrupted after step %d (t = %g s); the dump of that step is in %s\n", p, d.Steps, d.Time, dump)
	if se.String() != wantErr {
		t.Errorf("stderr %q, want %q", se.String(), wantErr)
	}
	entries, err := readPVDFile(pvd)
	if err != nil {
		t.Fatal(err)
	}
	last := entries[len(entries)-1]
	if last.Time != d.Time {
		t.Errorf("the last -out frame is at t = %v, the dump at %v", last.Time, d.Time)
	}
	g, err := readVTUFile(filepath.Join(out, last.File))
	if err != nil {
		t.Fatal(err)
	}
	x, _ := dumpedState(t, d, "beam/dofs")
	for i := range x {
		if g.Points[i] != x[i] {
			t.Fatalf("last -out frame, entry %d: %v, the dump has %v", i, g.Points[i], x[i])
		}
	}
	// Frames: step 0, every 7 steps, and the last completed step when it
	// is not a multiple of 7.
	wantFrames := 1 + d.Steps/7
	if d.Steps%7 != 0 {
		wantFrames++
	}
	if len(entries) != wantFrames {
		t.Errorf("%d -out frames after %d steps, want %d", len(entries), d.Steps, wantFrames)
	}
	f, err := os.Open(anim)
	if err != nil {
		t.Fatal(err)
	}
	an, err := gif.DecodeAll(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(an.Image) != wantFrames {
		t.Errorf("GIF of %d frames, want %d", len(an.Image), wantFrames)
	}
	for _, path := range []string{pic, plot} {
		if _, err := os.Stat(path); err != nil {
			t.Error(err)
		}
	}
	for _, w := range []string{
		fmt.Sprintf(`(?m)^interrupted +after step %d; the outputs below show that step$`, d.Steps),
		fmt.Sprintf(`(?m)^-dump +1 +1 +%s +state at step %d \(interrupted\)$`, regexp.QuoteMeta(dump), d.Steps),
		fmt.Sprintf(`(?m)^-out VTU/PVD +%d `, wantFrames),
		fmt.Sprintf(`(?m)^-gif +%d +1 `, wantFrames),
	} {
		if !regexp.MustCompile(w).MatchString(so.String()) {
			t.Errorf("summary lacks %s:\n%s", w, so.String())
		}
	}
}

// Output files into folders that do not exist yet: the folders are
// created before the run and the files written.
func TestOutputFoldersCreated(t *testing.T) {
	needTypes(t, endlessBeam)
	p := writeScene(t, endlessBeam)
	dir := t.TempDir()
	outputs := []struct{ flag, path, check string }{
		{"-dump", "a/b/d.json", "a/b/d.json"},
		{"-picture", "c/d/p.png", "c/d/p.png"},
		{"-plot", "e/f/q.png", "e/f/q.png"},
		{"-gif", "g/h/r.gif", "g/h/r.gif"},
		{"-out", "i/j", "i/j/beam_dofs.pvd"},
		{"-frames", "k/l", "k/l/frame_000000.png"},
	}
	args := []string{"-steps", "2", "-size", "64x48"}
	for _, o := range outputs {
		args = append(args, o.flag, filepath.Join(dir, o.path))
	}
	r := runBin(t, append(args, p)...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, o := range outputs {
		if _, err := os.Stat(filepath.Join(dir, o.check)); err != nil {
			t.Errorf("%s %s: %v", o.flag, o.path, err)
		}
	}
}

// An output path whose folder cannot be created (a file is in the way)
// fails at start: exit 1, one line naming the flag and the path, no
// summary. The scene would run for 10⁸ steps, so a check after the run
// would time out.
func TestOutputFolderFailsAtStart(t *testing.T) {
	needTypes(t, endlessBeam)
	p := writeScene(t, endlessBeam)
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ flag, path string }{
		{"-dump", "x/d.json"}, {"-picture", "p.png"}, {"-plot", "q.png"}, {"-gif", "r.gif"}, {"-out", "vtu"}, {"-frames", "png"},
	} {
		t.Run(c.flag, func(t *testing.T) {
			path := filepath.Join(file, c.path)
			r := runBin(t, c.flag, path, p)
			want := fmt.Sprintf("runscene: %s %s: cannot create the folder: ", c.flag, path)
			if r.code != 1 || !strings.HasPrefix(r.stderr, want) || strings.Count(r.stderr, "\n") != 1 || r.stdout != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want 1 and one line starting %q", r.code, r.stdout, r.stderr, want)
			}
		})
	}
	// A -dump that names an existing folder cannot be written either.
	r := runBin(t, "-dump", dir, p)
	if want := fmt.Sprintf("runscene: -dump %s: is a folder, not a file\n", dir); r.code != 1 || r.stderr != want {
		t.Errorf("exit %d, stderr %q; want 1 and %q", r.code, r.stderr, want)
	}
}

// objectLine returns the line of the [[node.object]] header of the first
// object of type typ in the scene file (errors and warnings are located
// there), so the expectations follow edits of the shipped scenes.
func objectLine(t *testing.T, file, typ string) int {
	t.Helper()
	text, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	header := 0
	for i, l := range strings.Split(string(text), "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "[[") {
			header = i + 1
		}
		if strings.HasPrefix(l, "type") && strings.Contains(l, `"`+typ+`"`) {
			return header
		}
	}
	t.Fatalf("%s: no object of type %s", file, typ)
	return 0
}
