package sweep

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The test binary is also the sweep program: run with SWEEP_TEST_MAIN=1
// (which TestMain sets for every process it starts: local workers, Slurm
// tasks) it is sweep's Main, so workers and cluster tasks run exactly the
// code under test.
func TestMain(m *testing.M) {
	if os.Getenv("SWEEP_TEST_MAIN") == "1" {
		os.Exit(Main(os.Args[1:]))
	}
	os.Setenv("SWEEP_TEST_MAIN", "1")
	os.Exit(m.Run())
}

// testScene has two independent bodies: a small tetrahedral bar read
// from a mesh file (the swept file name and Young's modulus) and a free
// point mass falling under gravity, whose implicit-Euler trajectory is
// known in closed form: v_k = −k g h, y_k = −g h² k(k+1)/2.
const testScene = `dt = 0.01
gravity = [0, -9.81, 0]
steps = 5

[[node]]
name = "bar"
  [[node.object]]
  type = "EulerImplicitSolver"
  rayleighMass = 0.1
  [[node.object]]
  type = "CGLinearSolver"
  iterations = 200
  tolerance = 1e-9
  [[node.object]]
  type = "MeshLoader"
  name = "loader"
  filename = "bar0.vtk"
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[node.object]]
  type = "DiagonalMass"
  massDensity = 1000
  [[node.object]]
  type = "TetrahedronFEMForceField"
  name = "fem"
  youngModulus = 1e6
  poissonRatio = 0.3
  [[node.object]]
  type = "FixedConstraint"
  box = [-1, -1, -1, -0.59, 1, 1]

[[node]]
name = "ball"
  [[node.object]]
  type = "EulerImplicitSolver"
  [[node.object]]
  type = "CGLinearSolver"
  iterations = 10
  tolerance = 1e-12
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  position = [[0, 0, 0]]
  [[node.object]]
  type = "UniformMass"
  totalMass = 1
`

// longSteps is the step count of the task a test kills or cancels while
// it runs: long enough (2 to 3 s at ~10 ms per step here) to be caught
// under way after its marker appears.
const longSteps = 250

// testSweep is 8 tasks (zip): each its own mesh file (copies of one), its
// own modulus; task 7 runs longSteps steps. It records the ball's
// displacement at steps 1 and 5 and at the end, the whole ball state at
// step 2, and keeps the dump.
func testSweep(long int) string {
	return fmt.Sprintf(`scene = "scene.toml"
name = "test sweep"
mode = "zip"
set = ["bar/CGLinearSolver.iterations=1000"]

[[parameter]]
path = "bar/loader.filename"
values = ["bar0.vtk", "bar1.vtk", "bar2.vtk", "bar3.vtk", "bar4.vtk", "bar5.vtk", "bar6.vtk", "bar7.vtk"]

[[parameter]]
path = "bar/fem.youngModulus"
logspace = [1e5, 1e7, 8]

[[parameter]]
path = "steps"
values = [5, 5, 5, 5, 5, 5, 5, %d]

[record]
dump = true

[[record.point]]
name = "ball"
state = "ball/dofs"
index = 0
components = ["y"]
displacement = true
steps = [1, 5]

[[record.point]]
name = "ballEnd"
state = "ball/dofs"
nearest = [0, 0, 0]

[[record.state]]
name = "ballState"
state = "ball/dofs"
field = "velocity"
steps = [2]
`, long)
}

// setupSweep writes the scene, the sweep and the meshes (all but
// bar5.vtk, whose task therefore fails until it is added) into dir.
func setupSweep(t *testing.T, dir string, long int) string {
	t.Helper()
	mesh, err := os.ReadFile("../scenes/meshes/bar_droop.vtk")
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 8; i++ {
		if i == 5 {
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("bar%d.vtk", i)), mesh, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "scene.toml"), []byte(testScene), 0o644); err != nil {
		t.Fatal(err)
	}
	sw := filepath.Join(dir, "sweep.toml")
	if err := os.WriteFile(sw, []byte(testSweep(long)), 0o644); err != nil {
		t.Fatal(err)
	}
	return sw
}

func addMissingMesh(t *testing.T, dir string) {
	t.Helper()
	mesh, err := os.ReadFile("../scenes/meshes/bar_droop.vtk")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bar5.vtk"), mesh, 0o644); err != nil {
		t.Fatal(err)
	}
}

func preparePlan(t *testing.T, sweepFile, results string) *Plan {
	t.Helper()
	sp, err := ReadSpec(sweepFile)
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPlan(sp, results)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Save(results); err != nil {
		t.Fatal(err)
	}
	return p
}

func states(t *testing.T, dir string) []TaskState {
	t.Helper()
	p, err := ReadPlan(dir)
	if err != nil {
		t.Fatal(err)
	}
	active, _ := SlurmActive(context.Background(), dir)
	st, err := States(dir, p, active)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// table returns the folder's CSV and JSON lines tables.
func table(t *testing.T, dir string) (csvText, jsonl []byte, rows [][]string) {
	t.Helper()
	p, err := ReadPlan(dir)
	if err != nil {
		t.Fatal(err)
	}
	tb := Collect(dir, p, states(t, dir))
	var c, j bytes.Buffer
	if err := tb.WriteCSV(&c); err != nil {
		t.Fatal(err)
	}
	if err := tb.WriteJSONL(&j); err != nil {
		t.Fatal(err)
	}
	rows, err = csv.NewReader(bytes.NewReader(c.Bytes())).ReadAll()
	if err != nil {
		t.Fatalf("the CSV does not parse: %v", err)
	}
	return c.Bytes(), j.Bytes(), rows
}

// column returns the column named name of a CSV table (header first).
func column(t *testing.T, rows [][]string, name string) []string {
	t.Helper()
	for c, h := range rows[0] {
		if h == name {
			var out []string
			for _, r := range rows[1:] {
				out = append(out, r[c])
			}
			return out
		}
	}
	t.Fatalf("no column %q in %v", name, rows[0])
	return nil
}

// waitFor polls cond every 20 ms until it holds or the time is up.
func waitFor(t *testing.T, what string, limit time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// readResult reads a task's result file.
func readResult(t *testing.T, dir string, i int) ([]byte, *Result) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, resultsDir, taskName(i)+".json"))
	if err != nil {
		return nil, nil
	}
	var r Result
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatalf("task %d: %v", i, err)
	}
	return data, &r
}

// checkFigures checks the recorded figures of an ok task against the
// closed-form fall of the ball (implicit Euler, exact to rounding) and
// the run's length.
func checkFigures(t *testing.T, dir string, i, steps int) {
	t.Helper()
	_, r := readResult(t, dir, i)
	if r == nil || r.Status != StatusOK {
		t.Fatalf("task %d: result %+v", i, r)
	}
	fig := map[string]any{}
	for _, f := range r.Figures {
		fig[f.Name] = f.Value
	}
	const g, h = 9.81, 0.01
	y := func(k int) float64 { return -g * h * h * float64(k*(k+1)) / 2 }
	// Each step adds −g h² k to y (one CG iteration solves the 1-DOF
	// system exactly up to rounding): a few ulps of y per step.
	near := func(name string, got any, want float64) {
		x, ok := got.(float64)
		if !ok || math.Abs(x-want) > 1e-14*math.Max(1, math.Abs(want)) {
			t.Errorf("task %d: %s = %v, want %v", i, name, got, want)
		}
	}
	near("ball.y@1", fig["ball.y@1"], y(1))
	near("ball.y@5", fig["ball.y@5"], y(5))
	near("ballEnd.y", fig["ballEnd.y"], y(steps))
	near("ballEnd.x", fig["ballEnd.x"], 0)
	near("steps", fig["steps"], float64(steps))
	near("time", fig["time"], float64(steps)*h)
	if v, ok := fig["ballState@2"].([]float64); !ok || len(v) != 3 || math.Abs(v[1]-(-2*g*h)) > 1e-15 {
		t.Errorf("task %d: ballState@2 = %v, want [0 %v 0]", i, fig["ballState@2"], -2*g*h)
	}
	if fig["bar/EulerImplicitSolver.unconvergedSteps"] != 0.0 || fig["ball/EulerImplicitSolver.linearIterations"] != float64(steps) {
		t.Errorf("task %d: solver figures %v %v", i, fig["bar/EulerImplicitSolver.unconvergedSteps"], fig["ball/EulerImplicitSolver.linearIterations"])
	}
	if _, err := os.Stat(filepath.Join(dir, r.Files, "dump.json")); err != nil {
		t.Errorf("task %d: its dump is not in its folder: %v", i, err)
	}
}

// The local runner on 8 tasks: one fails (its mesh file is missing), one
// is killed with SIGKILL while it runs. The table shows both (failed with
// the error; incomplete, with no result and no files), the rest are ok
// with figures matching the closed form. A rerun runs exactly those two
// and leaves every other result byte for byte as it was.
func TestLocalFailKillRerun(t *testing.T) {
	dir := t.TempDir()
	sw := setupSweep(t, dir, longSteps)
	results := filepath.Join(dir, "local")
	preparePlan(t, sw, results)

	type out struct {
		rep *LocalReport
		err error
	}
	done := make(chan out, 1)
	var log bytes.Buffer
	go func() {
		rep, err := RunLocal(context.Background(), results, LocalOptions{Workers: 2, Out: &log})
		done <- out{rep, err}
	}()
	// Kill task 7 once it runs.
	mp := filepath.Join(results, runningDir, taskName(7)+".json")
	var m marker
	waitFor(t, "task 7 to start", 60*time.Second, func() bool {
		data, err := os.ReadFile(mp)
		return err == nil && json.Unmarshal(data, &m) == nil && m.PID > 0
	})
	time.Sleep(300 * time.Millisecond)
	if err := syscall.Kill(m.PID, syscall.SIGKILL); err != nil {
		t.Fatalf("killing task 7 (pid %d): %v", m.PID, err)
	}
	o := <-done
	if o.err != nil {
		t.Fatal(o.err)
	}
	if o.rep.Ran != 8 || !strings.Contains(log.String(), "task 5: exit status 1") {
		t.Errorf("first run: %v\n%s", o.rep, log.String())
	}
	st := states(t, results)
	if st[5].Status != StatusFailed || st[5].Result.Exit != 1 || !strings.Contains(st[5].Result.Error, "bar5.vtk") {
		t.Errorf("task 5: %+v", st[5])
	}
	if st[7].Status != StatusIncomplete || st[7].Result != nil || !strings.Contains(st[7].Note, "killed or crashed") {
		t.Errorf("task 7: %+v", st[7])
	}
	// The killed task left no result and no files; only its private
	// partial folder, which the rerun replaces.
	if _, err := os.Stat(filepath.Join(results, filesDir, taskName(7))); !os.IsNotExist(err) {
		t.Errorf("killed task 7 has a files folder: %v", err)
	}
	_, _, rows := table(t, results)
	status := column(t, rows, "status")
	if strings.Join(status, " ") != "ok ok ok ok ok failed ok incomplete" {
		t.Errorf("statuses %v", status)
	}
	if e := column(t, rows, "error"); !strings.Contains(e[5], "bar5.vtk") || !strings.Contains(e[7], "no result") {
		t.Errorf("error column %q", e)
	}
	if y := column(t, rows, "ball.y@5"); y[5] != "" || y[7] != "" || y[0] == "" {
		t.Errorf("figures of the failed and killed tasks: %q", y)
	}
	for i := 0; i < 7; i++ {
		if i != 5 {
			checkFigures(t, results, i, 5)
		}
	}
	before := map[int][]byte{}
	for i := 0; i < 8; i++ {
		before[i], _ = readResult(t, results, i)
	}

	// Rerun after adding the missing mesh: exactly tasks 5 and 7 run.
	addMissingMesh(t, dir)
	rep, err := RunLocal(context.Background(), results, LocalOptions{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Ran != 2 || rep.Failed != 0 {
		t.Errorf("rerun: %v", rep)
	}
	for i := 0; i < 8; i++ {
		after, _ := readResult(t, results, i)
		if i != 5 && i != 7 && !bytes.Equal(before[i], after) {
			t.Errorf("task %d's result changed in the rerun", i)
		}
	}
	checkFigures(t, results, 5, 5)
	checkFigures(t, results, 7, longSteps)
	_, r7 := readResult(t, results, 7)
	t.Logf("task 7: %d steps in %.2f s", longSteps, r7.Timing.Steps)
	if left, _ := filepath.Glob(filepath.Join(results, filesDir, ".*partial*")); len(left) > 1 {
		t.Errorf("partial folders left: %v", left)
	}
	if _, err := os.Stat(filepath.Join(results, runningDir, taskName(7)+".json")); !os.IsNotExist(err) {
		t.Errorf("task 7's marker is still there")
	}
	// Nothing is left to run.
	rep, err = RunLocal(context.Background(), results, LocalOptions{Workers: 2})
	if err != nil || rep.Ran != 0 {
		t.Errorf("third run ran %v (%v)", rep, err)
	}
	_, jl, rows := table(t, results)
	if strings.Join(column(t, rows, "status"), " ") != "ok ok ok ok ok ok ok ok" {
		t.Errorf("statuses after the rerun %v", column(t, rows, "status"))
	}
	// The JSON lines hold the same: one object per task, parameters by path.
	lines := strings.Split(strings.TrimSpace(string(jl)), "\n")
	if len(lines) != 8 {
		t.Fatalf("%d JSON lines", len(lines))
	}
	var row struct {
		Task    int            `json:"task"`
		Params  map[string]any `json:"params"`
		Status  string         `json:"status"`
		Exit    int            `json:"exit"`
		Figures map[string]any `json:"figures"`
	}
	if err := json.Unmarshal([]byte(lines[7]), &row); err != nil {
		t.Fatal(err)
	}
	if row.Task != 7 || row.Params["steps"] != float64(longSteps) || row.Params["bar/loader.filename"] != "bar7.vtk" || row.Status != "ok" || row.Figures["steps"] != float64(longSteps) {
		t.Errorf("JSON line %s", lines[7])
	}
}

// A plan is checked against the scene before anything runs: a task whose
// value the scene rejects fails the expansion, naming the task, the -set
// and the field.
func TestPlanRejectsBadTask(t *testing.T) {
	dir := t.TempDir()
	setupSweep(t, dir, 5)
	sw := filepath.Join(dir, "bad.toml")
	os.WriteFile(sw, []byte(`scene = "scene.toml"
[[parameter]]
path = "bar/fem.poissonRatio"
linspace = [0.3, 0.5, 3]
`), 0o644)
	sp, err := ReadSpec(sw)
	if err != nil {
		t.Fatal(err)
	}
	_, err = NewPlan(sp, filepath.Join(dir, "r"))
	if err == nil || !strings.Contains(err.Error(), "task 2") || !strings.Contains(err.Error(), "-set bar/fem.poissonRatio=0.5") || !strings.Contains(err.Error(), "out of range") {
		t.Errorf("got %v", err)
	}
	os.WriteFile(sw, []byte(`scene = "scene.toml"
[[parameter]]
path = "bar/femm.poissonRatio"
values = [0.3]
`), 0o644)
	sp, _ = ReadSpec(sw)
	if _, err = NewPlan(sp, filepath.Join(dir, "r")); err == nil || !strings.Contains(err.Error(), `did you mean "fem"?`) {
		t.Errorf("got %v", err)
	}
	os.WriteFile(sw, []byte(`scene = "scene.toml"
[[parameter]]
path = "dt"
values = [0.1]
[[record.point]]
name = "p"
state = "bar/fem"
index = 0
`), 0o644)
	sp, _ = ReadSpec(sw)
	if _, err = NewPlan(sp, filepath.Join(dir, "r")); err == nil || !strings.Contains(err.Error(), "not a state") {
		t.Errorf("got %v", err)
	}
	// A folder holding another sweep's plan is refused.
	good := filepath.Join(dir, "sweep.toml")
	p := preparePlan(t, good, filepath.Join(dir, "r"))
	os.WriteFile(sw, []byte(`scene = "scene.toml"
[[parameter]]
path = "dt"
values = [0.1]
`), 0o644)
	sp, _ = ReadSpec(sw)
	other, err := NewPlan(sp, filepath.Join(dir, "r"))
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Save(filepath.Join(dir, "r")); err == nil || !strings.Contains(err.Error(), "holds another sweep") {
		t.Errorf("saving another plan over %d tasks: %v", len(p.Tasks), err)
	}
}

// The Kubernetes manifest is an Indexed Job whose pods run the sweep's
// tasks: its structure is what batch/v1 expects (checked field by field
// after parsing the JSON written), and running its container's command
// once per completion index, with JOB_COMPLETION_INDEX and the env of
// the manifest as the Job controller sets them, completes exactly the
// tasks asked for.
func TestKubernetesManifest(t *testing.T) {
	dir := t.TempDir()
	sw := setupSweep(t, dir, 5)
	addMissingMesh(t, dir)
	data, _ := os.ReadFile(sw)
	os.WriteFile(sw, append(data, []byte("\n[kubernetes]\nimage = \"registry.example/sofago:1\"\nclaim = \"sofago-data\"\nmount = \"/data\"\nparallelism = 3\n")...), 0o644)
	results := filepath.Join(dir, "k8s")
	plan := preparePlan(t, sw, results)
	// Tasks 0-2 already done: the manifest runs the other five.
	for i := 0; i < 3; i++ {
		if code := RunTask(context.Background(), results, i, &bytes.Buffer{}, &bytes.Buffer{}); code != 0 {
			t.Fatalf("task %d: exit %d", i, code)
		}
	}
	todo := Pending(states(t, results))
	m, err := Manifest(results, plan, K8sOptions{Root: dir, Tasks: todo})
	if err != nil {
		t.Fatal(err)
	}
	path, err := WriteManifest(results, m)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	var job struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name string `json:"name"`
		} `json:"metadata"`
		Spec struct {
			CompletionMode       string `json:"completionMode"`
			Completions          int    `json:"completions"`
			Parallelism          int    `json:"parallelism"`
			BackoffLimitPerIndex *int   `json:"backoffLimitPerIndex"`
			Template             struct {
				Spec struct {
					RestartPolicy string `json:"restartPolicy"`
					Containers    []struct {
						Name    string   `json:"name"`
						Image   string   `json:"image"`
						Command []string `json:"command"`
						Env     []struct {
							Name      string          `json:"name"`
							Value     string          `json:"value"`
							ValueFrom json.RawMessage `json:"valueFrom"`
						} `json:"env"`
						VolumeMounts []struct {
							Name      string `json:"name"`
							MountPath string `json:"mountPath"`
						} `json:"volumeMounts"`
					} `json:"containers"`
					Volumes []struct {
						Name string `json:"name"`
						PVC  struct {
							ClaimName string `json:"claimName"`
						} `json:"persistentVolumeClaim"`
					} `json:"volumes"`
				} `json:"spec"`
			} `json:"template"`
		} `json:"spec"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&job); err != nil {
		t.Fatal(err)
	}
	s := job.Spec
	if job.APIVersion != "batch/v1" || job.Kind != "Job" || s.CompletionMode != "Indexed" || s.Completions != 5 || s.Parallelism != 3 || s.BackoffLimitPerIndex == nil {
		t.Fatalf("job header %+v", job)
	}
	// A DNS-1123 label of at most 63 characters.
	if n := job.Metadata.Name; len(n) > 63 || strings.Trim(n, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" || !strings.HasPrefix(n, "sweep-test-sweep-") {
		t.Errorf("job name %q", n)
	}
	pod := s.Template.Spec
	if pod.RestartPolicy != "Never" || len(pod.Containers) != 1 || len(pod.Volumes) != 1 || pod.Volumes[0].PVC.ClaimName != "sofago-data" {
		t.Fatalf("pod %+v", pod)
	}
	c := pod.Containers[0]
	if c.Image != "registry.example/sofago:1" || strings.Join(c.Command, " ") != "sweep task -zero /data/k8s" || len(c.VolumeMounts) != 1 || c.VolumeMounts[0].MountPath != "/data" || c.VolumeMounts[0].Name != pod.Volumes[0].Name {
		t.Fatalf("container %+v", c)
	}
	env := map[string]string{}
	for _, e := range c.Env {
		env[e.Name] = e.Value
	}
	if env["SWEEP_TASKS"] != "3,4,5,6,7" {
		t.Errorf("SWEEP_TASKS = %q", env["SWEEP_TASKS"])
	}
	// Run the pods: the container's command with the volume at /data
	// standing for dir, one process per completion index.
	exe, _ := os.Executable()
	for k := 0; k < s.Completions; k++ {
		args := append([]string{}, c.Command[1:]...)
		args[len(args)-1] = strings.Replace(args[len(args)-1], "/data", dir, 1)
		cmd := exec.Command(exe, args...)
		cmd.Env = append(os.Environ(), "JOB_COMPLETION_INDEX="+strconv.Itoa(k), "SWEEP_TASKS="+env["SWEEP_TASKS"], "HOSTNAME=pod-"+strconv.Itoa(k))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("pod %d: %v\n%s", k, err, out)
		}
	}
	st := states(t, results)
	for i, x := range st {
		if x.Status != StatusOK {
			t.Errorf("task %d: %s", i, x.Status)
		}
	}
	if _, r := readResult(t, results, 6); r == nil || r.Job != "pod "+mustHostname() {
		// clusterJob names the pod by its host name.
		if r != nil && !strings.HasPrefix(r.Job, "pod ") {
			t.Errorf("task 6 ran as %q", r.Job)
		}
	}
	// The scene must be on the volume: a root that does not hold it is refused.
	if _, err := Manifest(results, plan, K8sOptions{Root: results, Tasks: todo}); err == nil || !strings.Contains(err.Error(), "not under the volume") {
		t.Errorf("root without the scene: %v", err)
	}
}

func mustHostname() string {
	h, _ := os.Hostname()
	return h
}
