package sweep

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/sofago/sofago/atomicfile"
	_ "github.com/sofago/sofago/components/all" // the scene's component types, to check every task's overrides
	"github.com/sofago/sofago/graph"
)

// Plan is a sweep expanded into tasks: what tasks.json in the results
// folder holds. Every runner (local, Slurm, Kubernetes) reads the same
// plan, so a task's values are fixed when the sweep is prepared, random
// draws included.
type Plan struct {
	Version int    `json:"version"`
	Name    string `json:"name"`
	// Scene is the base scene; Cache the shared -cache folder. Both are
	// relative to the results folder when they can be, so the folder can
	// move together with the scenes (onto a cluster's shared file system,
	// a Kubernetes volume).
	Scene string `json:"scene"`
	Cache string `json:"cache,omitempty"`
	// Args are the runscene flags of every task (steps, fixed -set,
	// flags), before the parameters' -set.
	Args       []string   `json:"args"`
	Parameters []string   `json:"parameters"`
	Record     Record     `json:"record"`
	Slurm      Slurm      `json:"slurm"`
	Kubernetes Kubernetes `json:"kubernetes"`
	Tasks      []PlanTask `json:"tasks"`
}

// PlanTask is one task: its values (for the table) and the -set
// arguments that apply them (the values as TOML text, exact).
type PlanTask struct {
	Index  int      `json:"index"`
	Values []any    `json:"values"`
	Sets   []string `json:"sets"`
}

const planVersion = 1

// Layout of a results folder.
const (
	planFile    = "tasks.json"
	resultsDir  = "results"
	runningDir  = "running"
	filesDir    = "files"
	logsDir     = "logs"
	binDir      = "bin"
	tableCSV    = "table.csv"
	tableJSONL  = "table.jsonl"
	jobScript   = "job.sh"
	jobsFile    = "jobs.txt"
	k8sManifest = "job.json"
)

func taskName(i int) string { return fmt.Sprintf("task-%06d", i) }

// NewPlan expands the sweep and checks every task: the base scene loads
// with the task's overrides (types, ranges, enums, links, paths), so a bad
// value fails here, before anything is submitted to a cluster. dir is the
// results folder the plan is meant for (paths are made relative to it).
func NewPlan(sp *Spec, dir string) (*Plan, error) {
	tasks, err := sp.Expand()
	if err != nil {
		return nil, err
	}
	scene := sp.resolve(sp.Scene)
	text, err := os.ReadFile(scene)
	if err != nil {
		return nil, fmt.Errorf("%s: scene: %v", sp.file, err)
	}
	p := &Plan{Version: planVersion, Name: sp.Name, Scene: relTo(dir, scene), Record: sp.Record, Slurm: sp.Slurm, Kubernetes: sp.Kubernetes}
	if sp.Cache != "" {
		p.Cache = relTo(dir, sp.resolve(sp.Cache))
	}
	if sp.Steps != nil {
		p.Args = append(p.Args, "-steps", strconv.Itoa(*sp.Steps))
	}
	var fixed []graph.Override
	for _, s := range sp.Set {
		p.Args = append(p.Args, "-set", s)
		o, _ := graph.ParseOverride(s)
		fixed = append(fixed, o)
	}
	p.Args = append(p.Args, sp.Flags...)
	for _, par := range sp.Parameters {
		p.Parameters = append(p.Parameters, par.Path)
	}
	// Check the record's files against the scene once.
	for _, f := range sp.Record.Files {
		path, _, _ := strings.Cut(f, "=")
		o, _ := graph.ParseOverride(path + "=x")
		fixed = append(fixed, o)
	}
	for _, t := range tasks {
		pt := PlanTask{Index: t.Index, Values: t.Values}
		ovs := append([]graph.Override(nil), fixed...)
		for i, v := range t.Values {
			val, err := tomlValue(v)
			if err != nil {
				return nil, fmt.Errorf("%s: parameter %q: %v", sp.file, p.Parameters[i], err)
			}
			set := p.Parameters[i] + "=" + val
			pt.Sets = append(pt.Sets, set)
			o, err := graph.ParseOverride(set)
			if err != nil {
				return nil, fmt.Errorf("%s: task %d: %v", sp.file, t.Index, err)
			}
			ovs = append(ovs, o)
		}
		s, err := graph.LoadWith(scene, text, ovs)
		if err != nil {
			return nil, fmt.Errorf("%s: task %d: %v", sp.file, t.Index, err)
		}
		if t.Index == 0 {
			if err := checkRecordPaths(s, &sp.Record); err != nil {
				return nil, fmt.Errorf("%s: %v", sp.file, err)
			}
		}
		p.Tasks = append(p.Tasks, pt)
	}
	return p, nil
}

// checkRecordPaths checks that the recorded states exist in the loaded
// scene and are states.
func checkRecordPaths(s *graph.Scene, r *Record) error {
	check := func(what, name, path string) error {
		o := s.Find(path)
		if o == nil {
			return fmt.Errorf("record.%s %q: no object %q in the scene", what, name, path)
		}
		if _, ok := o.(graph.State); !ok {
			return fmt.Errorf("record.%s %q: %q is a %s, not a state (MechanicalObject)", what, name, path, o.Base().TypeName)
		}
		return nil
	}
	for _, p := range r.Points {
		if err := check("point", p.Name, p.State); err != nil {
			return err
		}
	}
	for _, st := range r.States {
		if err := check("state", st.Name, st.State); err != nil {
			return err
		}
	}
	return nil
}

// relTo returns target relative to dir (both made absolute), or target
// made absolute when no relative path exists.
func relTo(dir, target string) string {
	ad, err1 := filepath.Abs(dir)
	at, err2 := filepath.Abs(target)
	if err1 != nil || err2 != nil {
		return target
	}
	if r, err := filepath.Rel(ad, at); err == nil {
		return filepath.ToSlash(r)
	}
	return at
}

// fromDir resolves a plan path against the results folder.
func fromDir(dir, p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, filepath.FromSlash(p))
}

// encode returns the plan's JSON (one task per line).
func (p *Plan) encode() ([]byte, error) {
	tasks := p.Tasks
	head := *p
	head.Tasks = nil
	hb, err := json.MarshalIndent(head, "", " ")
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.Write(hb[:len(hb)-2]) // without "\n}"
	b.WriteString(",\n \"tasks\": [")
	for i, t := range tasks {
		if i > 0 {
			b.WriteByte(',')
		}
		tb, err := json.Marshal(t)
		if err != nil {
			return nil, err
		}
		b.WriteString("\n  ")
		b.Write(tb)
	}
	b.WriteString("]\n}\n")
	return b.Bytes(), nil
}

// Save writes the plan into the results folder dir (creating it). A folder
// that already holds a plan keeps it when it is the same sweep (its
// results stay valid: only failed and missing tasks rerun); another sweep
// is refused, so results of two sweeps never mix.
func (p *Plan) Save(dir string) error {
	data, err := p.encode()
	if err != nil {
		return err
	}
	path := filepath.Join(dir, planFile)
	if old, err := os.ReadFile(path); err == nil {
		if bytes.Equal(old, data) {
			return nil
		}
		return fmt.Errorf("%s holds another sweep (its %s differs from this one's); use a new results folder, or remove it", dir, planFile)
	}
	for _, d := range []string{dir, filepath.Join(dir, resultsDir), filepath.Join(dir, runningDir), filepath.Join(dir, logsDir)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	return atomicfile.WriteBytes(path, data)
}

// ReadPlan reads the plan of a results folder. Numbers keep their text
// (json.Number), so integers stay integers.
func ReadPlan(dir string) (*Plan, error) {
	data, err := os.ReadFile(filepath.Join(dir, planFile))
	if err != nil {
		if os.IsNotExist(err) {
			return nil, fmt.Errorf("%s is not a sweep's results folder (no %s): prepare it with sweep run, submit or k8s", dir, planFile)
		}
		return nil, err
	}
	var p Plan
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("%s: %v", filepath.Join(dir, planFile), err)
	}
	if p.Version != planVersion {
		return nil, fmt.Errorf("%s: version %d, this program reads version %d", filepath.Join(dir, planFile), p.Version, planVersion)
	}
	for i, t := range p.Tasks {
		if t.Index != i {
			return nil, fmt.Errorf("%s: task %d has index %d", filepath.Join(dir, planFile), i, t.Index)
		}
	}
	return &p, nil
}
