// Package sweep runs batch studies of a scene: a sweep description (TOML)
// names a base scene, the parameters to vary (lists, ranges, random samples
// with a seed) and the figures to record per run; the sweep expands into
// tasks, one runscene run each with -set overrides, run locally by N
// worker processes, on Slurm as one job array, or on Kubernetes as one
// Indexed Job. Every task writes its own result file atomically into the
// results folder, so a task killed at any moment leaves no partial result
// and is simply rerun; Collect gathers the results into one table (CSV and
// JSON lines) with the parameters, the exit status and the figures.
//
// The results folder holds:
//
//	tasks.json              the expansion (scene, runscene flags, every task's values)
//	results/task-NNNNNN.json  one task's result, written atomically at its end
//	running/task-NNNNNN.json  a task under way (removed with its result)
//	files/task-NNNNNN/      the files a task keeps (dump, -out, exporters), renamed into place
//	logs/task-NNNNNN.log    a task's standard output and error
//	bin/sweep               the program the cluster's tasks run
//	job.sh, jobs.txt        the Slurm job script and the jobs submitted
//	job.json                the Kubernetes Indexed Job manifest
//	table.csv, table.jsonl  the collected table
package sweep

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/sofago/sofago/graph"
)

// Spec is a sweep description, read from TOML by ReadSpec:
//
//	scene = "../scenes/cantilever_static.toml"   # the base scene, relative to this file
//	name = "cantilever-E"                        # job name (default: the file's stem)
//	steps = 1                                    # -steps of every task (default: the scene's)
//	set = ["beam/StaticSolver.iterations=40"]    # fixed overrides of every task
//	flags = ["-allow-unconverged"]               # further runscene flags of every task
//	cache = "cache"                              # -cache folder shared by every task
//	mode = "grid"                                # grid: every combination; zip: i-th values together
//
//	[[parameter]]
//	path = "beam/fem.youngModulus"               # a -set path
//	logspace = [1e6, 1e8, 9]                     # or linspace = [a, b, n], values = [...],
//	                                             # uniform = [a, b], loguniform = [a, b]
//	[samples]                                    # draws of the uniform and loguniform parameters
//	count = 100
//	seed = 1
//
//	[record]                                     # see Record
//	[slurm]                                      # see Slurm
//	[kubernetes]                                 # see Kubernetes
type Spec struct {
	Scene      string      `toml:"scene"`
	Name       string      `toml:"name"`
	Steps      *int        `toml:"steps"`
	Set        []string    `toml:"set"`
	Flags      []string    `toml:"flags"`
	Cache      string      `toml:"cache"`
	Mode       string      `toml:"mode"`
	Parameters []Parameter `toml:"parameter"`
	Samples    *Samples    `toml:"samples"`
	Record     Record      `toml:"record"`
	Slurm      Slurm       `toml:"slurm"`
	Kubernetes Kubernetes  `toml:"kubernetes"`

	file string // the sweep file, for relative paths and errors
}

// Parameter is one varied value: a -set path and exactly one of its value
// sources. Lists hold any TOML values (numbers, strings, arrays);
// linspace and logspace hold [first, last, count] and include both ends.
type Parameter struct {
	Path       string    `toml:"path"`
	Values     []any     `toml:"values"`
	Linspace   []float64 `toml:"linspace"`
	Logspace   []float64 `toml:"logspace"`
	Uniform    []float64 `toml:"uniform"`
	LogUniform []float64 `toml:"loguniform"`
}

// Samples sets the number of random draws and their seed. Parameter i's
// draws come from its own PCG stream (seed, i), so adding a parameter
// does not change the others' values.
type Samples struct {
	Count int    `toml:"count"`
	Seed  uint64 `toml:"seed"`
}

// Record says what each run records besides its exit status. Energies
// (kinetic, potential) and the simulated time and step count of the final
// state, and each solver's figures (as runscene's summary), are on by
// default.
type Record struct {
	Energies *bool   `toml:"energies" json:"energies,omitempty"`
	Solvers  *bool   `toml:"solvers" json:"solvers,omitempty"`
	Points   []Point `toml:"point" json:"point,omitempty"`
	States   []State `toml:"state" json:"state,omitempty"`
	// Dump keeps the final JSON dump (runscene -dump) in the task's folder.
	Dump bool `toml:"dump" json:"dump,omitempty"`
	// Out keeps runscene -out's VTU series in the task's folder.
	Out bool `toml:"out" json:"out,omitempty"`
	// Files redirects the output of the scene's exporters into the task's
	// folder: "node/object.field=NAME" sets that field (an exporter's
	// directory or filename) to NAME inside the task's folder.
	Files []string `toml:"files" json:"files,omitempty"`
}

// Point records coordinates of one DOF of a state at chosen steps: the
// DOF by index or the one whose rest position is nearest a point.
type Point struct {
	Name       string    `toml:"name" json:"name,omitempty"`
	State      string    `toml:"state" json:"state,omitempty"`
	Index      *int      `toml:"index" json:"index,omitempty"`
	Nearest    []float64 `toml:"nearest" json:"nearest,omitempty"`
	Components []string  `toml:"components" json:"components,omitempty"`
	Steps      []int     `toml:"steps" json:"steps,omitempty"`
	// Displacement records position − rest position.
	Displacement bool `toml:"displacement" json:"displacement,omitempty"`
}

// State records a whole state vector (position or velocity) at chosen
// steps: an array in the JSON lines, its JSON text in a CSV cell.
type State struct {
	Name  string `toml:"name" json:"name,omitempty"`
	State string `toml:"state" json:"state,omitempty"`
	Field string `toml:"field" json:"field,omitempty"`
	Steps []int  `toml:"steps" json:"steps,omitempty"`
}

// Slurm holds the job array's settings.
type Slurm struct {
	// Options are further #SBATCH lines: "--time=00:10:00", "--mem=2G",
	// "--partition=short".
	Options []string `toml:"options" json:"options,omitempty"`
	// Parallel caps the tasks running at once (--array=...%N); 0: no cap.
	Parallel int `toml:"parallel" json:"parallel,omitempty"`
	// CPUs per task (--cpus-per-task, and GOMAXPROCS), default 1.
	CPUs int `toml:"cpus" json:"cpus,omitempty"`
}

// Kubernetes holds the Indexed Job's settings.
type Kubernetes struct {
	Image       string `toml:"image" json:"image,omitempty"`             // a container image holding the sweep program
	Claim       string `toml:"claim" json:"claim,omitempty"`             // the PersistentVolumeClaim holding the scenes and the results folder
	Mount       string `toml:"mount" json:"mount,omitempty"`             // where the claim is mounted (default /data)
	Parallelism int    `toml:"parallelism" json:"parallelism,omitempty"` // pods at once (default 4)
	CPU         string `toml:"cpu" json:"cpu,omitempty"`                 // CPU request and limit per pod (default "1")
	Memory      string `toml:"memory" json:"memory,omitempty"`           // memory request and limit per pod (default "1Gi")
	Retries     int    `toml:"retries" json:"retries,omitempty"`         // backoffLimitPerIndex (default 1)
}

// ReadSpec reads and checks a sweep file.
func ReadSpec(file string) (*Spec, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	return ParseSpec(file, data)
}

// ParseSpec parses and checks a sweep description; file names it in errors
// and anchors relative paths.
func ParseSpec(file string, data []byte) (*Spec, error) {
	var sp Spec
	md, err := toml.Decode(string(data), &sp)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("%s:%d: %s", file, pe.Position.Line, pe.Message)
		}
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		return nil, fmt.Errorf("%s: unknown key %q (sweep keys: scene, name, steps, set, flags, cache, mode, [[parameter]], [samples], [record], [slurm], [kubernetes])", file, und[0].String())
	}
	sp.file = file
	if err := sp.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return &sp, nil
}

// resolve returns p relative to the sweep file's folder.
func (sp *Spec) resolve(p string) string {
	if filepath.IsAbs(p) || sp.file == "" {
		return p
	}
	return filepath.Join(filepath.Dir(sp.file), p)
}

func (sp *Spec) check() error {
	if sp.Scene == "" {
		return fmt.Errorf("scene is missing: the base scene file, relative to the sweep file")
	}
	if sp.Name == "" {
		sp.Name = strings.TrimSuffix(filepath.Base(sp.file), filepath.Ext(sp.file))
	}
	if sp.Steps != nil && *sp.Steps < 0 {
		return fmt.Errorf("steps must be 0 or more, got %d", *sp.Steps)
	}
	switch sp.Mode {
	case "":
		sp.Mode = "grid"
	case "grid", "zip":
	default:
		return fmt.Errorf("mode = %q: want grid (every combination) or zip (the i-th values together)", sp.Mode)
	}
	for _, s := range sp.Set {
		if _, err := graph.ParseOverride(s); err != nil {
			return fmt.Errorf("set: %v", err)
		}
	}
	for _, f := range sp.Flags {
		for _, bad := range []string{"-set", "-dump", "-out", "-cache", "-steps", "-quiet", "-list", "-doc"} {
			if name, _, _ := strings.Cut(strings.TrimLeft(f, "-"), "="); "-"+name == bad {
				return fmt.Errorf("flags: %s is set by the sweep itself (use set, record, cache, steps)", f)
			}
		}
	}
	if len(sp.Parameters) == 0 {
		return fmt.Errorf("no [[parameter]]: a sweep varies at least one value")
	}
	seen := map[string]bool{}
	random := 0
	for i := range sp.Parameters {
		p := &sp.Parameters[i]
		if _, err := graph.ParseOverride(p.Path + "=0"); err != nil || p.Path == "" {
			return fmt.Errorf("parameter %d: path %q is not a -set path (node/path/object.field or a root key)", i+1, p.Path)
		}
		if seen[p.Path] {
			return fmt.Errorf("parameter %q is given twice", p.Path)
		}
		seen[p.Path] = true
		n := 0
		for _, given := range []bool{p.Values != nil, p.Linspace != nil, p.Logspace != nil, p.Uniform != nil, p.LogUniform != nil} {
			if given {
				n++
			}
		}
		if n != 1 {
			return fmt.Errorf("parameter %q: give exactly one of values, linspace, logspace, uniform, loguniform", p.Path)
		}
		switch {
		case p.Values != nil && len(p.Values) == 0:
			return fmt.Errorf("parameter %q: values is empty", p.Path)
		case p.Linspace != nil:
			if err := checkRange("linspace", p.Linspace, false); err != nil {
				return fmt.Errorf("parameter %q: %v", p.Path, err)
			}
		case p.Logspace != nil:
			if err := checkRange("logspace", p.Logspace, true); err != nil {
				return fmt.Errorf("parameter %q: %v", p.Path, err)
			}
		case p.Uniform != nil || p.LogUniform != nil:
			random++
			b, name, logScale := p.Uniform, "uniform", false
			if p.LogUniform != nil {
				b, name, logScale = p.LogUniform, "loguniform", true
			}
			if len(b) != 2 || !finite(b[0]) || !finite(b[1]) || b[1] <= b[0] || (logScale && b[0] <= 0) {
				return fmt.Errorf("parameter %q: %s = %v: want [low, high] with low < high%s", p.Path, name, b, map[bool]string{true: " and low > 0", false: ""}[logScale])
			}
		}
	}
	if random > 0 && (sp.Samples == nil || sp.Samples.Count < 1) {
		return fmt.Errorf("random parameters (uniform, loguniform) need [samples] with count ≥ 1 (and a seed)")
	}
	if random == 0 && sp.Samples != nil {
		return fmt.Errorf("[samples] is given but no parameter is random (uniform, loguniform)")
	}
	return sp.Record.check()
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

func checkRange(name string, r []float64, logScale bool) error {
	if len(r) != 3 || !finite(r[0]) || !finite(r[1]) || r[2] != math.Trunc(r[2]) || r[2] < 1 {
		return fmt.Errorf("%s = %v: want [first, last, count] with count a whole number ≥ 1", name, r)
	}
	if logScale && (r[0] <= 0 || r[1] <= 0) {
		return fmt.Errorf("%s = %v: first and last must be positive", name, r)
	}
	if r[2] == 1 && r[0] != r[1] {
		return fmt.Errorf("%s = %v: one value needs first = last", name, r)
	}
	return nil
}

func (r *Record) check() error {
	names := map[string]bool{}
	for i := range r.Points {
		p := &r.Points[i]
		if p.Name == "" || strings.ContainsAny(p.Name, " ,@.") {
			return fmt.Errorf("record.point %d: name %q must be a non-empty word (no spaces, commas, dots or @)", i+1, p.Name)
		}
		if names[p.Name] {
			return fmt.Errorf("record: name %q is used twice", p.Name)
		}
		names[p.Name] = true
		if p.State == "" {
			return fmt.Errorf("record.point %q: state is missing (node/path/name of a MechanicalObject)", p.Name)
		}
		if (p.Index == nil) == (p.Nearest == nil) {
			return fmt.Errorf("record.point %q: give index or nearest = [x, y, z]", p.Name)
		}
		if p.Index != nil && *p.Index < 0 {
			return fmt.Errorf("record.point %q: index %d is negative", p.Name, *p.Index)
		}
		for _, c := range p.Components {
			if _, ok := componentIndex(c); !ok {
				return fmt.Errorf("record.point %q: component %q: want x, y, z, qx, qy, qz, qw or an index", p.Name, c)
			}
		}
		if err := checkSteps(p.Steps); err != nil {
			return fmt.Errorf("record.point %q: %v", p.Name, err)
		}
	}
	for i := range r.States {
		s := &r.States[i]
		if s.Name == "" || strings.ContainsAny(s.Name, " ,@.") {
			return fmt.Errorf("record.state %d: name %q must be a non-empty word", i+1, s.Name)
		}
		if names[s.Name] {
			return fmt.Errorf("record: name %q is used twice", s.Name)
		}
		names[s.Name] = true
		if s.State == "" {
			return fmt.Errorf("record.state %q: state is missing", s.Name)
		}
		switch s.Field {
		case "":
			s.Field = "position"
		case "position", "velocity":
		default:
			return fmt.Errorf("record.state %q: field = %q: want position or velocity", s.Name, s.Field)
		}
		if err := checkSteps(s.Steps); err != nil {
			return fmt.Errorf("record.state %q: %v", s.Name, err)
		}
	}
	for _, f := range r.Files {
		path, name, ok := strings.Cut(f, "=")
		if !ok || name == "" || filepath.IsAbs(name) || strings.Contains(filepath.ToSlash(filepath.Clean(name)), "..") {
			return fmt.Errorf("record.files: %q: want node/object.field=NAME, NAME a relative name inside the task's folder", f)
		}
		if _, err := graph.ParseOverride(path + "=x"); err != nil {
			return fmt.Errorf("record.files: %v", err)
		}
	}
	return nil
}

func checkSteps(steps []int) error {
	for _, s := range steps {
		if s < 0 {
			return fmt.Errorf("step %d is negative", s)
		}
	}
	return nil
}

// componentIndex maps a component name to its coordinate index.
func componentIndex(c string) (int, bool) {
	names := map[string]int{"x": 0, "y": 1, "z": 2, "qx": 3, "qy": 4, "qz": 5, "qw": 6}
	if i, ok := names[c]; ok {
		return i, true
	}
	i, err := strconv.Atoi(c)
	return i, err == nil && i >= 0
}

// values returns the values of a non-random parameter.
func (p *Parameter) values() []any {
	switch {
	case p.Values != nil:
		return p.Values
	case p.Linspace != nil:
		return spaced(p.Linspace, false)
	case p.Logspace != nil:
		return spaced(p.Logspace, true)
	}
	return nil
}

// random reports whether p is drawn at random.
func (p *Parameter) random() bool { return p.Uniform != nil || p.LogUniform != nil }

// spaced returns count values from first to last, both included, evenly
// spaced (in log scale for logspace). The ends are exact; inner values are
// first + i·(last − first)/(count − 1) (exponents likewise), as numpy's
// linspace and logspace compute them.
func spaced(r []float64, logScale bool) []any {
	a, b, n := r[0], r[1], int(r[2])
	if logScale {
		a, b = math.Log10(a), math.Log10(b)
	}
	out := make([]any, n)
	for i := range out {
		x := a
		if n > 1 {
			x = a + float64(i)*(b-a)/float64(n-1)
		}
		if i == n-1 {
			x = b
		}
		if logScale {
			switch i {
			case 0:
				x = r[0]
			case n - 1:
				x = r[1]
			default:
				x = math.Pow(10, x)
			}
		}
		out[i] = x
	}
	return out
}

// draws returns count random values of parameter i (uniform or
// log-uniform between its bounds) from the PCG stream (seed, i).
func (p *Parameter) draws(i int, s *Samples) []any {
	rng := rand.New(rand.NewPCG(s.Seed, uint64(i)))
	out := make([]any, s.Count)
	for k := range out {
		u := rng.Float64()
		if p.Uniform != nil {
			out[k] = p.Uniform[0] + u*(p.Uniform[1]-p.Uniform[0])
		} else {
			lo, hi := math.Log(p.LogUniform[0]), math.Log(p.LogUniform[1])
			out[k] = math.Exp(lo + u*(hi-lo))
		}
	}
	return out
}

// Task is one run of the sweep: its index and one value per parameter, in
// the order of the parameters.
type Task struct {
	Index  int   `json:"index"`
	Values []any `json:"values"`
}

// Expand lists the tasks. Grid mode takes every combination, the first
// parameter varying slowest (nested loops in the order of the file), and
// the random parameters' draws together as one more, innermost axis; zip
// mode takes the i-th value of every parameter (and the i-th draw), all
// lists being of one length.
func (sp *Spec) Expand() ([]Task, error) {
	var axes [][][]any // axes[k][j] = values of the parameters of axis k at position j
	var axisParams [][]int
	var randomIdx []int
	for i := range sp.Parameters {
		if sp.Parameters[i].random() {
			randomIdx = append(randomIdx, i)
		}
	}
	if sp.Mode == "zip" {
		n := -1
		cols := make([][]any, len(sp.Parameters))
		for i := range sp.Parameters {
			p := &sp.Parameters[i]
			if p.random() {
				cols[i] = p.draws(i, sp.Samples)
			} else {
				cols[i] = p.values()
			}
			if n >= 0 && len(cols[i]) != n {
				return nil, fmt.Errorf("%s: mode = \"zip\" needs lists of one length: %q has %d values, %q %d", sp.file, p.Path, len(cols[i]), sp.Parameters[0].Path, n)
			}
			n = len(cols[i])
		}
		tasks := make([]Task, n)
		for t := range tasks {
			tasks[t].Index = t
			for i := range cols {
				tasks[t].Values = append(tasks[t].Values, cols[i][t])
			}
		}
		return tasks, nil
	}
	for i := range sp.Parameters {
		p := &sp.Parameters[i]
		if p.random() {
			continue
		}
		vals := p.values()
		axis := make([][]any, len(vals))
		for j, v := range vals {
			axis[j] = []any{v}
		}
		axes = append(axes, axis)
		axisParams = append(axisParams, []int{i})
	}
	if len(randomIdx) > 0 {
		draws := make([][]any, len(randomIdx))
		for k, i := range randomIdx {
			draws[k] = sp.Parameters[i].draws(i, sp.Samples)
		}
		axis := make([][]any, sp.Samples.Count)
		for j := range axis {
			for k := range randomIdx {
				axis[j] = append(axis[j], draws[k][j])
			}
		}
		axes = append(axes, axis)
		axisParams = append(axisParams, randomIdx)
	}
	total := 1
	for _, a := range axes {
		total *= len(a)
		if total > 10_000_000 {
			return nil, fmt.Errorf("%s: the sweep expands into more than 10 million tasks", sp.file)
		}
	}
	tasks := make([]Task, total)
	for t := range tasks {
		tasks[t].Index = t
		tasks[t].Values = make([]any, len(sp.Parameters))
		rem := t
		for k := len(axes) - 1; k >= 0; k-- {
			j := rem % len(axes[k])
			rem /= len(axes[k])
			for m, pi := range axisParams[k] {
				tasks[t].Values[pi] = axes[k][j][m]
			}
		}
	}
	return tasks, nil
}

// tomlValue writes v (a value decoded from TOML or drawn) as TOML text
// that parses back to the same value: floats in the shortest form that
// round-trips, with a decimal point or exponent so they stay floats.
func tomlValue(v any) (string, error) {
	switch x := v.(type) {
	case float64:
		if !finite(x) {
			return "", fmt.Errorf("value %g is not finite", x)
		}
		s := strconv.FormatFloat(x, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eEn") {
			s += ".0"
		}
		return s, nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case int:
		return strconv.Itoa(x), nil
	case bool:
		return strconv.FormatBool(x), nil
	case string:
		b, _ := json.Marshal(x) // JSON string escapes are TOML basic-string escapes
		return string(b), nil
	case []any:
		parts := make([]string, len(x))
		for i, it := range x {
			s, err := tomlValue(it)
			if err != nil {
				return "", err
			}
			parts[i] = s
		}
		return "[" + strings.Join(parts, ", ") + "]", nil
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var b bytes.Buffer
		b.WriteString("{")
		for i, k := range keys {
			s, err := tomlValue(x[k])
			if err != nil {
				return "", err
			}
			if i > 0 {
				b.WriteString(", ")
			}
			kb, _ := json.Marshal(k)
			fmt.Fprintf(&b, "%s = %s", kb, s)
		}
		b.WriteString("}")
		return b.String(), nil
	}
	return "", fmt.Errorf("value of type %T cannot be written as TOML", v)
}
