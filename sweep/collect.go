package sweep

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/sofago/sofago/atomicfile"
)

// Task states, as the table's status column says them.
const (
	StatusOK          = "ok"          // a result with exit status 0
	StatusFailed      = "failed"      // a result with another exit status
	StatusInterrupted = "interrupted" // stopped by SIGTERM/SIGINT (scancel, a deleted pod): no result
	StatusIncomplete  = "incomplete"  // started, never finished: killed (SIGKILL, node failure) or crashed
	StatusRunning     = "running"     // under way now (its process or cluster job is alive)
	StatusMissing     = "missing"     // never started
)

// TaskState is what the results folder says about one task.
type TaskState struct {
	Index  int
	Status string
	Result *Result // with a result file
	marker *marker
	// Note explains a state without a result: where and when it started,
	// where it stopped.
	Note string
}

// States reads the state of every task of the plan. active maps task
// indices to the state of their cluster job when it is pending or
// running (nil: none known).
func States(dir string, plan *Plan, active map[int]string) ([]TaskState, error) {
	out := make([]TaskState, len(plan.Tasks))
	host, _ := os.Hostname()
	for i := range plan.Tasks {
		ts := TaskState{Index: i, Status: StatusMissing}
		name := taskName(i)
		data, err := os.ReadFile(filepath.Join(dir, resultsDir, name+".json"))
		switch {
		case err == nil:
			var r Result
			if err := json.Unmarshal(data, &r); err != nil {
				return nil, fmt.Errorf("%s: %v", filepath.Join(dir, resultsDir, name+".json"), err)
			}
			if r.Task != i {
				return nil, fmt.Errorf("%s holds task %d", filepath.Join(dir, resultsDir, name+".json"), r.Task)
			}
			ts.Result = &r
			ts.Status = StatusFailed
			if r.Exit == 0 {
				ts.Status = StatusOK
			}
		case !os.IsNotExist(err):
			return nil, err
		}
		if data, err := os.ReadFile(filepath.Join(dir, runningDir, name+".json")); err == nil {
			var m marker
			if json.Unmarshal(data, &m) == nil {
				ts.marker = &m
			}
		}
		if st, ok := active[i]; ok {
			// The cluster runs (or will run) it, whatever the files say.
			ts.Status = StatusRunning
			ts.Note = "cluster job " + strings.ToLower(st)
		} else if m := ts.marker; m != nil && ts.Result == nil {
			where := fmt.Sprintf("started %s on %s", m.Start.Format(time.RFC3339), m.Host)
			if m.Job != "" {
				where += " (" + m.Job + ")"
			}
			switch {
			case m.Interrupted:
				ts.Status = StatusInterrupted
				ts.Note = fmt.Sprintf("interrupted after step %d; %s", m.Step, where)
			case m.Host == host && m.Job == "" && processAlive(m.PID):
				ts.Status = StatusRunning
				ts.Note = where
			default:
				ts.Status = StatusIncomplete
				ts.Note = where + "; no result: killed or crashed"
			}
		}
		out[i] = ts
	}
	return out, nil
}

// processAlive reports whether a process of this host exists.
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}

// Pending lists the tasks to (re)run: every task without an ok result,
// except those running now.
func Pending(states []TaskState) []int {
	var out []int
	for _, s := range states {
		if s.Status != StatusOK && s.Status != StatusRunning {
			out = append(out, s.Index)
		}
	}
	return out
}

// Counts summarises states: "10 ok, 1 failed (3), 1 incomplete (7)".
func Counts(states []TaskState) string {
	order := []string{StatusOK, StatusFailed, StatusInterrupted, StatusIncomplete, StatusRunning, StatusMissing}
	by := map[string][]int{}
	for _, s := range states {
		by[s.Status] = append(by[s.Status], s.Index)
	}
	var parts []string
	for _, st := range order {
		ids := by[st]
		if len(ids) == 0 {
			continue
		}
		p := fmt.Sprintf("%d %s", len(ids), st)
		if st != StatusOK {
			p += " (task " + compactList(ids, 10) + ")"
		}
		parts = append(parts, p)
	}
	return fmt.Sprintf("%d tasks: %s", len(states), strings.Join(parts, ", "))
}

// compactList writes indices as ranges "0-3,7", at most max items then "...".
func compactList(ids []int, max int) string {
	s := arrayRanges(ids)
	parts := strings.Split(s, ",")
	if max > 0 && len(parts) > max {
		return strings.Join(parts[:max], ",") + ",..."
	}
	return s
}

// arrayRanges writes sorted indices as Slurm's --array list: "0-3,7,9-10".
func arrayRanges(ids []int) string {
	ids = append([]int(nil), ids...)
	sort.Ints(ids)
	var parts []string
	for i := 0; i < len(ids); {
		j := i
		for j+1 < len(ids) && ids[j+1] == ids[j]+1 {
			j++
		}
		if j == i {
			parts = append(parts, strconv.Itoa(ids[i]))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", ids[i], ids[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

// Table is the collected results: one row per task.
type Table struct {
	Parameters []string
	Figures    []string // figure names in order of first appearance
	Rows       []Row
	// Timing adds the hosts, jobs and wall times (they differ from run to
	// run; the rest of the table does not).
	Timing bool
}

// Row is one task's row.
type Row struct {
	Task   int
	Values []any
	State  TaskState
}

// Collect builds the table of the results folder dir.
func Collect(dir string, plan *Plan, states []TaskState) *Table {
	t := &Table{Parameters: plan.Parameters}
	seen := map[string]bool{}
	for i, st := range states {
		t.Rows = append(t.Rows, Row{Task: i, Values: plan.Tasks[i].Values, State: st})
		if st.Result == nil {
			continue
		}
		for _, f := range st.Result.Figures {
			if !seen[f.Name] {
				seen[f.Name] = true
				t.Figures = append(t.Figures, f.Name)
			}
		}
	}
	return t
}

// cell formats a value for CSV: numbers in the shortest form that parses
// back to the same float64, vectors and tables as JSON.
func cell(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case json.Number:
		return x.String()
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	}
	b, _ := json.Marshal(jsonNumber(v))
	return string(b)
}

func (r *Row) figure(name string) any {
	if r.State.Result == nil {
		return nil
	}
	for _, f := range r.State.Result.Figures {
		if f.Name == name {
			return f.Value
		}
	}
	return nil
}

func (r *Row) errorText() string {
	if r.State.Result != nil {
		return r.State.Result.Error
	}
	return r.State.Note
}

// WriteCSV writes the table: task, the parameters, status, exit, the
// figures, error (then host, job and times with Timing).
func (t *Table) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	head := append([]string{"task"}, t.Parameters...)
	head = append(head, "status", "exit")
	head = append(head, t.Figures...)
	head = append(head, "error")
	if t.Timing {
		head = append(head, "host", "job", "load_s", "init_s", "steps_s", "task_s")
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	for _, r := range t.Rows {
		rec := []string{strconv.Itoa(r.Task)}
		for _, v := range r.Values {
			rec = append(rec, cell(v))
		}
		exit := ""
		if r.State.Result != nil {
			exit = strconv.Itoa(r.State.Result.Exit)
		}
		rec = append(rec, r.State.Status, exit)
		for _, f := range t.Figures {
			rec = append(rec, cell(r.figure(f)))
		}
		rec = append(rec, r.errorText())
		if t.Timing {
			if res := r.State.Result; res != nil {
				rec = append(rec, res.Host, res.Job, cell(res.Timing.Load), cell(res.Timing.Init), cell(res.Timing.Steps), cell(res.Timing.Task))
			} else {
				rec = append(rec, "", "", "", "", "", "")
			}
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteJSONL writes one JSON object per task: task, params (an object
// keyed by path), status, exit (null without a result), figures, error
// (and timing, host, job with Timing).
func (t *Table) WriteJSONL(w io.Writer) error {
	var b bytes.Buffer
	for _, r := range t.Rows {
		b.Reset()
		fmt.Fprintf(&b, `{"task":%d,"params":{`, r.Task)
		for i, p := range t.Parameters {
			if i > 0 {
				b.WriteByte(',')
			}
			k, _ := json.Marshal(p)
			v, err := json.Marshal(r.Values[i])
			if err != nil {
				return err
			}
			b.Write(k)
			b.WriteByte(':')
			b.Write(v)
		}
		st, _ := json.Marshal(r.State.Status)
		fmt.Fprintf(&b, `},"status":%s,"exit":`, st)
		figs := Figures{}
		if res := r.State.Result; res != nil {
			fmt.Fprintf(&b, "%d", res.Exit)
			figs = res.Figures
		} else {
			b.WriteString("null")
		}
		fb, err := figs.MarshalJSON()
		if err != nil {
			return err
		}
		b.WriteString(`,"figures":`)
		b.Write(fb)
		eb, _ := json.Marshal(r.errorText())
		b.WriteString(`,"error":`)
		b.Write(eb)
		if t.Timing && r.State.Result != nil {
			res := r.State.Result
			tb, _ := json.Marshal(res.Timing)
			hb, _ := json.Marshal(res.Host)
			jb, _ := json.Marshal(res.Job)
			fmt.Fprintf(&b, `,"timing":%s,"host":%s,"job":%s`, tb, hb, jb)
		}
		b.WriteString("}\n")
		if _, err := w.Write(b.Bytes()); err != nil {
			return err
		}
	}
	return nil
}

// WriteFiles writes table.csv and table.jsonl into dir, atomically.
func (t *Table) WriteFiles(dir string) error {
	if err := atomicfile.Write(filepath.Join(dir, tableCSV), false, t.WriteCSV); err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, tableJSONL), false, t.WriteJSONL)
}
