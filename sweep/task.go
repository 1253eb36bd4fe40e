package sweep

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/sofago/sofago/atomicfile"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/runscene"
)

// Result is one task's result file (results/task-NNNNNN.json), written
// atomically once the run ended: it exists complete or not at all.
type Result struct {
	Task int `json:"task"`
	// Sets are the task's -set arguments, as run.
	Sets []string `json:"sets"`
	// Status is "ok" (exit status 0) or "failed" (anything else).
	Status string `json:"status"`
	// Exit is runscene's exit status (1 scene or run error, 2 usage, 3
	// unconverged solves; 70 a crash of the program itself).
	Exit int `json:"exit"`
	// Error holds what the run printed on stderr when it failed, one line.
	Error string `json:"error,omitempty"`
	// Figures are the recorded figures, in a fixed order; runs that did not
	// finish their steps (exit 1, 2, 70) have none.
	Figures Figures `json:"figures"`
	// Files is the task's folder (relative to the results folder) when
	// the sweep keeps files.
	Files  string `json:"files,omitempty"`
	Timing Timing `json:"timing"`
	Host   string `json:"host"`
	// Job is the cluster job that ran it: Slurm "JOBID_TASK", Kubernetes
	// "pod NAME".
	Job string `json:"job,omitempty"`
}

// Timing holds the wall times of a task in seconds: loading the scene,
// Init (precomputations, cache reads), the steps, and the whole task
// process (from its start to its result, writing included).
type Timing struct {
	Load  float64 `json:"load"`
	Init  float64 `json:"init"`
	Steps float64 `json:"steps"`
	Task  float64 `json:"task"`
}

// Figure is one recorded figure: a number, a vector (a whole state), or
// nil when it was not reached (a step beyond the run).
type Figure struct {
	Name  string
	Value any // float64, []float64 or nil
}

// Figures is an ordered list of figures, a JSON object in that order.
type Figures []Figure

// MarshalJSON writes the figures as one JSON object, in order.
func (fs Figures) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range fs {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(f.Name)
		b.Write(k)
		b.WriteByte(':')
		v, err := json.Marshal(jsonNumber(f.Value))
		if err != nil {
			return nil, fmt.Errorf("figure %s: %w", f.Name, err)
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// jsonNumber replaces non-finite numbers (which JSON cannot hold) by nil.
func jsonNumber(v any) any {
	switch x := v.(type) {
	case float64:
		if !finite(x) {
			return nil
		}
	case []float64:
		for _, y := range x {
			if !finite(y) {
				return nil
			}
		}
	}
	return v
}

// UnmarshalJSON reads a JSON object keeping its order; numbers stay
// float64 (exact: they were written in the shortest form that parses
// back to the same float64).
func (fs *Figures) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("figures: want an object")
	}
	*fs = nil
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return err
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return err
		}
		var v any
		switch {
		case bytes.Equal(raw, []byte("null")):
		case len(raw) > 0 && raw[0] == '[':
			var xs []float64
			if err := json.Unmarshal(raw, &xs); err != nil {
				return err
			}
			v = xs
		default:
			var x float64
			if err := json.Unmarshal(raw, &x); err != nil {
				return err
			}
			v = x
		}
		*fs = append(*fs, Figure{Name: kt.(string), Value: v})
	}
	_, err = dec.Token()
	return err
}

// marker is running/task-NNNNNN.json: a task under way (or killed).
type marker struct {
	Host  string    `json:"host"`
	PID   int       `json:"pid"`
	Start time.Time `json:"start"`
	Job   string    `json:"job,omitempty"`
	// Interrupted is set when the task stopped on SIGTERM or SIGINT
	// (scancel, a pod deleted, Ctrl-C) after Step steps.
	Interrupted bool `json:"interrupted,omitempty"`
	Step        int  `json:"step,omitempty"`
}

// clusterJob names the cluster job running this process, from the
// environment Slurm and Kubernetes give it.
func clusterJob() string {
	if id := os.Getenv("SLURM_ARRAY_JOB_ID"); id != "" {
		return id + "_" + os.Getenv("SLURM_ARRAY_TASK_ID")
	}
	if id := os.Getenv("SLURM_JOB_ID"); id != "" {
		return id
	}
	if os.Getenv("JOB_COMPLETION_INDEX") != "" {
		h, _ := os.Hostname()
		return "pod " + h
	}
	return ""
}

// processStart is when this process started, for the task's total time.
var processStart = time.Now()

// Exit status of a task whose run panicked (EX_SOFTWARE).
const exitCrash = 70

// RunTask runs task index of the results folder dir in this process and
// writes its result file; it returns runscene's exit status. While it
// runs, running/task-NNNNNN.json says so. A task interrupted through ctx
// (SIGTERM from scancel, a deleted pod, Ctrl-C) writes no result, marks
// itself interrupted and returns 130; a task killed outright leaves its
// marker: either way it is rerun. Files it keeps go to a private folder
// renamed into place just before the result is written.
func RunTask(ctx context.Context, dir string, index int, stdout, stderr io.Writer) int {
	code, _ := runTask(ctx, dir, index, stdout, stderr)
	return code
}

// runTask is RunTask; wrote reports whether it wrote the result file.
func runTask(ctx context.Context, dir string, index int, stdout, stderr io.Writer) (code int, wrote bool) {
	plan, err := ReadPlan(dir)
	if err != nil {
		fmt.Fprintf(stderr, "sweep task: %v\n", err)
		return 1, false
	}
	if index < 0 || index >= len(plan.Tasks) {
		fmt.Fprintf(stderr, "sweep task: task %d does not exist (the sweep has tasks 0 to %d)\n", index, len(plan.Tasks)-1)
		return 2, false
	}
	task := plan.Tasks[index]
	name := taskName(index)
	host, _ := os.Hostname()
	mk := marker{Host: host, PID: os.Getpid(), Start: time.Now().UTC().Truncate(time.Millisecond), Job: clusterJob()}
	markerPath := filepath.Join(dir, runningDir, name+".json")
	if err := writeJSON(markerPath, mk, false); err != nil {
		fmt.Fprintf(stderr, "sweep task %d: %v\n", index, err)
		return 1, false
	}

	// The files this task keeps go to a folder of its own process first.
	var partial, filesRel string
	if plan.Record.Dump || plan.Record.Out || len(plan.Record.Files) > 0 {
		filesRel = filepath.ToSlash(filepath.Join(filesDir, name))
		partial = filepath.Join(dir, filesDir, fmt.Sprintf(".%s.partial-%d", name, os.Getpid()))
		if err := os.MkdirAll(partial, 0o755); err != nil {
			fmt.Fprintf(stderr, "sweep task %d: %v\n", index, err)
			return 1, false
		}
	}
	args := append([]string(nil), plan.Args...)
	if plan.Cache != "" {
		args = append(args, "-cache", fromDir(dir, plan.Cache))
	}
	for _, s := range task.Sets {
		args = append(args, "-set", s)
	}
	if plan.Record.Dump {
		args = append(args, "-dump", filepath.Join(partial, "dump.json"))
	}
	if plan.Record.Out {
		args = append(args, "-out", filepath.Join(partial, "out"))
	}
	for _, f := range plan.Record.Files {
		path, rel, _ := strings.Cut(f, "=")
		args = append(args, "-set", path+"="+strconvQuote(filepath.Join(partial, rel)))
	}
	args = append(args, fromDir(dir, plan.Scene))

	rec := newRecorder(&plan.Record)
	var errBuf bytes.Buffer
	code, rep := runProtected(ctx, args, stdout, io.MultiWriter(stderr, &errBuf), &runscene.Observer{Step: rec.step})
	if ctx.Err() != nil || code == 130 {
		// Interrupted: no result; the marker says where it stopped.
		if partial != "" {
			os.RemoveAll(partial)
		}
		mk.Interrupted = true
		if rep != nil && rep.Scene != nil {
			mk.Step = rep.Scene.StepCount
		}
		writeJSON(markerPath, mk, false)
		return 130, false
	}
	res := Result{Task: index, Sets: task.Sets, Exit: code, Host: host, Job: mk.Job, Figures: Figures{}}
	res.Status = "ok"
	if code != 0 {
		res.Status = "failed"
		res.Error = oneLine(errBuf.String())
	}
	if rep != nil {
		res.Timing = Timing{Load: rep.Load.Seconds(), Init: rep.Init.Seconds(), Steps: rep.Steps.Seconds()}
		// Figures of runs that finished their steps (exit 0, or 3 with
		// unconverged solves), not of runs stopped by an error.
		if (code == 0 || code == 3) && rep.Scene != nil {
			res.Figures = rec.figures(rep)
		}
	}
	if partial != "" {
		final := filepath.Join(dir, filepath.FromSlash(filesRel))
		if err := replaceDir(partial, final); err != nil {
			fmt.Fprintf(stderr, "sweep task %d: keeping its files: %v\n", index, err)
			os.RemoveAll(partial)
			return 1, false
		}
		res.Files = filesRel
	}
	res.Timing.Task = time.Since(processStart).Seconds()
	if err := writeJSON(filepath.Join(dir, resultsDir, name+".json"), res, true); err != nil {
		fmt.Fprintf(stderr, "sweep task %d: writing its result: %v\n", index, err)
		return 1, false
	}
	os.Remove(markerPath)
	return code, true
}

// strconvQuote quotes a file name as a TOML string.
func strconvQuote(s string) string {
	q, _ := tomlValue(filepath.ToSlash(s))
	return q
}

// runProtected runs runscene, turning a panic of the run into exit status
// 70 with the panic on stderr (a panic in another goroutine still kills
// the process: the task is then left without a result, and rerun).
func runProtected(ctx context.Context, args []string, stdout, stderr io.Writer, obs *runscene.Observer) (code int, rep *runscene.Report) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "panic: %v\n%s", r, debug.Stack())
			code, rep = exitCrash, nil
		}
	}()
	return runscene.Run(ctx, args, stdout, stderr, obs)
}

// oneLine joins the non-empty lines of s with " | ", at most 1000 bytes.
func oneLine(s string) string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	out := strings.Join(lines, " | ")
	if len(out) > 1000 {
		out = out[:997] + "..."
	}
	return out
}

// replaceDir renames src over dst (a folder), removing an older dst.
func replaceDir(src, dst string) error {
	if _, err := os.Stat(dst); err == nil {
		old := fmt.Sprintf("%s.old-%d", dst, os.Getpid())
		if err := os.Rename(dst, old); err != nil {
			return err
		}
		defer os.RemoveAll(old)
	}
	return os.Rename(src, dst)
}

// writeJSON writes v as indented JSON atomically; sync flushes it to disk
// first (a result must survive a node's crash once it exists; a marker
// need not).
func writeJSON(path string, v any, sync bool) error {
	data, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		return err
	}
	data = append(data, '\n')
	return atomicfile.Write(path, sync, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// recorder takes the figures the sweep records, during and after the run.
type recorder struct {
	r      *Record
	points []*pointRec
	states []*stateRec
	err    error
}

type pointRec struct {
	p     *Point
	state graph.State
	dof   int
	comps []int
	names []string
	width int
	got   map[int][]float64 // step → values of comps
}

type stateRec struct {
	s     *State
	state graph.State
	got   map[int][]float64
}

func newRecorder(r *Record) *recorder {
	rc := &recorder{r: r}
	for i := range r.Points {
		rc.points = append(rc.points, &pointRec{p: &r.Points[i], got: map[int][]float64{}})
	}
	for i := range r.States {
		rc.states = append(rc.states, &stateRec{s: &r.States[i], got: map[int][]float64{}})
	}
	return rc
}

// findState returns the state at path.
func findState(s *graph.Scene, path string) (graph.State, error) {
	o := s.Find(path)
	if o == nil {
		return nil, fmt.Errorf("no object %q in the scene", path)
	}
	st, ok := o.(graph.State)
	if !ok {
		return nil, fmt.Errorf("%q is a %s, not a state", path, o.Base().TypeName)
	}
	return st, nil
}

// step is the runscene observer: after Init it resolves the recorded
// states and points; at every step it keeps what is asked for then.
func (rc *recorder) step(s *graph.Scene) error {
	if s.StepCount == 0 {
		for _, pr := range rc.points {
			if err := pr.resolve(s); err != nil {
				return fmt.Errorf("record.point %q: %w", pr.p.Name, err)
			}
		}
		for _, sr := range rc.states {
			st, err := findState(s, sr.s.State)
			if err != nil {
				return fmt.Errorf("record.state %q: %w", sr.s.Name, err)
			}
			sr.state = st
		}
	}
	for _, pr := range rc.points {
		if contains(pr.p.Steps, s.StepCount) {
			pr.got[s.StepCount] = pr.values()
		}
	}
	for _, sr := range rc.states {
		if contains(sr.s.Steps, s.StepCount) {
			sr.got[s.StepCount] = sr.values()
		}
	}
	return nil
}

func contains(list []int, x int) bool {
	for _, y := range list {
		if y == x {
			return true
		}
	}
	return false
}

func (pr *pointRec) resolve(s *graph.Scene) error {
	st, err := findState(s, pr.p.State)
	if err != nil {
		return err
	}
	pr.state = st
	pr.width = st.Template().CoordSize()
	n := st.Size()
	if pr.p.Index != nil {
		if *pr.p.Index >= n {
			return fmt.Errorf("index %d: %q has %d DOFs", *pr.p.Index, pr.p.State, n)
		}
		pr.dof = *pr.p.Index
	} else {
		// The DOF whose rest position is nearest (the first of equals).
		rest := st.Vec(graph.RestPosition)
		var q geom.Vec3
		copy(q[:], pr.p.Nearest)
		best := math.Inf(1)
		for i := 0; i < n; i++ {
			d := 0.0
			for c := 0; c < min(3, pr.width, len(pr.p.Nearest)); c++ {
				e := rest[i*pr.width+c] - q[c]
				d += e * e
			}
			if d < best {
				best, pr.dof = d, i
			}
		}
	}
	pr.comps, pr.names = nil, nil
	if len(pr.p.Components) == 0 {
		for c := 0; c < pr.width; c++ {
			pr.comps = append(pr.comps, c)
			pr.names = append(pr.names, componentName(c, pr.width))
		}
	}
	for _, name := range pr.p.Components {
		c, _ := componentIndex(name)
		if c >= pr.width {
			return fmt.Errorf("component %q: %q has %d coordinates per DOF", name, pr.p.State, pr.width)
		}
		pr.comps = append(pr.comps, c)
		pr.names = append(pr.names, name)
	}
	return nil
}

// componentName names coordinate c of a DOF of the given width.
func componentName(c, width int) string {
	if width == 3 || width == 7 {
		return []string{"x", "y", "z", "qx", "qy", "qz", "qw"}[c]
	}
	return strconv.Itoa(c)
}

func (pr *pointRec) values() []float64 {
	x := pr.state.Vec(graph.Position)
	var rest []float64
	if pr.p.Displacement {
		rest = pr.state.Vec(graph.RestPosition)
	}
	out := make([]float64, len(pr.comps))
	for i, c := range pr.comps {
		k := pr.dof*pr.width + c
		out[i] = x[k]
		if rest != nil {
			out[i] -= rest[k]
		}
	}
	return out
}

func (sr *stateRec) values() []float64 {
	id := graph.Position
	if sr.s.Field == "velocity" {
		id = graph.Velocity
	}
	return append([]float64(nil), sr.state.Vec(id)...)
}

// figures lists the figures of a finished run, in their fixed order.
func (rc *recorder) figures(rep *runscene.Report) Figures {
	s := rep.Scene
	fs := Figures{{"steps", float64(s.StepCount)}, {"time", s.Time}}
	if rc.r.Energies == nil || *rc.r.Energies {
		k, p := s.Energies()
		fs = append(fs, Figure{"kinetic", k}, Figure{"potential", p})
	}
	for _, pr := range rc.points {
		if pr.state == nil {
			continue
		}
		if len(pr.p.Steps) == 0 {
			v := pr.values()
			for i, n := range pr.names {
				fs = append(fs, Figure{pr.p.Name + "." + n, v[i]})
			}
			continue
		}
		for _, st := range pr.p.Steps {
			v, ok := pr.got[st]
			for i, n := range pr.names {
				f := Figure{Name: fmt.Sprintf("%s.%s@%d", pr.p.Name, n, st)}
				if ok {
					f.Value = v[i]
				}
				fs = append(fs, f)
			}
		}
	}
	for _, sr := range rc.states {
		if sr.state == nil {
			continue
		}
		if len(sr.s.Steps) == 0 {
			fs = append(fs, Figure{sr.s.Name, sr.values()})
			continue
		}
		for _, st := range sr.s.Steps {
			f := Figure{Name: fmt.Sprintf("%s@%d", sr.s.Name, st)}
			if v, ok := sr.got[st]; ok {
				f.Value = v
			}
			fs = append(fs, f)
		}
	}
	if rc.r.Solvers == nil || *rc.r.Solvers {
		for _, sf := range rep.Solvers {
			p := sf.Path + "."
			fs = append(fs,
				Figure{p + "linearIterations", float64(sf.LinearIterations)},
				Figure{p + "maxLinearIterations", float64(sf.MaxLinearIterations)},
				Figure{p + "maxResidual", sf.MaxResidual},
				Figure{p + "unconvergedSteps", float64(sf.Unconverged)})
			if sf.Newton {
				fs = append(fs, Figure{p + "newtonIterations", float64(sf.NewtonIterations)},
					Figure{p + "maxNewtonResidual", sf.MaxNewtonResidual})
			}
		}
	}
	return fs
}
