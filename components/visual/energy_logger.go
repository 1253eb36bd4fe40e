package visual

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/sofago/sofago/graph"
)

// LinearStatser is implemented by ODE solvers that report how the linear
// solves of their most recent step went (EulerImplicitSolver,
// NewmarkImplicitSolver, StaticSolver): for a step of several solves, the
// total of their iterations, the largest relative residual, and whether
// all converged. EnergyLogger and runscene's summary read it.
type LinearStatser interface {
	graph.ODESolver
	LastStats() graph.LinearStats
}

// NewtonStatser is implemented by ODE solvers that run Newton iterations
// in each step (StaticSolver, NewmarkImplicitSolver): LastNewton reports
// those of the most recent step; runscene's summary reads it.
type NewtonStatser interface {
	LinearStatser
	LastNewton() graph.NewtonStats
}

// EnergyLogger writes, every `every` steps, the energies of the whole scene
// and the statistics of every ODE solver's linear solve to a CSV or JSON
// file (by the extension of `filename`):
//
//	step,time,kinetic,potential,total,<solver>.iterations,<solver>.residual,<solver>.converged,...
//
// or a JSON array of {"step", "time", "kinetic", "potential", "total",
// "solvers": {"<solver path>": {"iterations", "residual", "converged"}}}.
// Energies are in J (kinetic ½vᵀMv; potential: elastic plus gravity, the
// scene's Energies); the residual is relative to the right-hand side.
// Numbers are written in the shortest form that parses back to the same
// float64. Row 0 is the initial state, before any solve: its solver
// fields are empty (CSV) or absent (JSON).
//
// The file is rewritten whole, atomically, at most once per second of wall
// time and at Close, so it is always a complete, parseable log of the
// steps so far (never a truncated row), even if the run is killed.
type EnergyLogger struct {
	graph.ObjectBase
	Filename string `toml:"filename" doc:"log file, relative to the scene file's folder: .csv or .json (default: <scene file name>_energy.csv next to the scene file)"`
	Every    int    `toml:"every" doc:"log a row every N steps (row 0 is the initial state; the last step is always logged)" range:"[1,inf)"`
	Sync     bool   `toml:"sync" doc:"fsync the file before renaming it into place (survives a power loss, not only a killed process)"`

	path      string
	json      bool
	solvers   []LinearStatser
	rows      []energyRow
	lastStep  int
	loggedAt  int // step of the last row (-1: none)
	inStep    bool
	lastWrite time.Time
	dirty     bool
	writes    int
	// flushEvery is the least wall time between two rewrites of the file.
	flushEvery time.Duration
}

type energyRow struct {
	step                     int
	time, kinetic, potential float64
	iterations               []int
	residual                 []float64
	converged                []bool
}

func init() {
	graph.Register(graph.TypeInfo{
		Name:    "EnergyLogger",
		Kind:    graph.KindExporter,
		Summary: "Logs the scene's kinetic, potential and total energy and each ODE solver's linear-solve statistics (iterations, residual, converged) every N steps to a CSV or JSON file, rewritten atomically so it is always complete.",
		New:     func() graph.Object { return &EnergyLogger{Every: 1, loggedAt: -1, flushEvery: time.Second} },
	})
}

// Validate checks the extension.
func (e *EnergyLogger) Validate() error {
	if e.Filename == "" {
		return nil
	}
	switch strings.ToLower(filepath.Ext(e.Filename)) {
	case ".csv", ".json":
		return nil
	}
	return fmt.Errorf("filename %q: the log is .csv or .json", e.Filename)
}

// Init resolves the file and finds the solvers.
func (e *EnergyLogger) Init() error {
	if err := e.Validate(); err != nil {
		return err
	}
	s := e.Node.Scene()
	name := e.Filename
	if name == "" {
		stem := strings.TrimSuffix(filepath.Base(s.File), filepath.Ext(s.File))
		name = stem + "_energy.csv"
	}
	e.path = s.ResolvePath(name)
	if err := os.MkdirAll(filepath.Dir(e.path), 0o755); err != nil {
		return err
	}
	e.json = strings.EqualFold(filepath.Ext(e.path), ".json")
	e.solvers = e.solvers[:0]
	s.Root.Walk(func(n *graph.Node) error {
		for _, o := range n.Objects {
			if ls, ok := o.(LinearStatser); ok {
				e.solvers = append(e.solvers, ls)
			}
		}
		return nil
	})
	return nil
}

// Path returns the log file's path (after Init).
func (e *EnergyLogger) Path() string { return e.path }

// UpdateVisual logs row 0 (the initial state) at the end of Scene.Init.
func (e *EnergyLogger) UpdateVisual() error {
	if e.loggedAt >= 0 || e.Node.Scene().StepCount != 0 {
		return nil
	}
	e.record()
	return e.flush(true)
}

// BeginStep implements graph.Behavior (see FrameOutput: a failed step is
// not logged).
func (e *EnergyLogger) BeginStep(t, dt float64) error {
	e.inStep = true
	return nil
}

// Export implements graph.Exporter.
func (e *EnergyLogger) Export(t float64, step int) error {
	e.inStep = false
	e.lastStep = step
	if step%e.Every != 0 {
		return nil
	}
	e.record()
	return e.flush(false)
}

// Close logs the last step if it fell between two rows, and writes the
// file.
func (e *EnergyLogger) Close() error {
	if e.path == "" {
		return nil
	}
	s := e.Node.Scene()
	if !e.inStep && s.StepCount == e.lastStep && e.loggedAt != e.lastStep {
		e.record()
	}
	return e.flush(true)
}

// Output describes what was written, for summaries.
func (e *EnergyLogger) Output() (what string, frames, files int, where string) {
	n := 0
	if e.writes > 0 {
		n = 1
	}
	return "energy log", len(e.rows), n, e.path
}

func (e *EnergyLogger) record() {
	s := e.Node.Scene()
	k, p := s.Energies()
	r := energyRow{step: s.StepCount, time: graph.RoundTime(s.Time), kinetic: k, potential: p}
	for _, ls := range e.solvers {
		if s.StepCount == 0 {
			break // nothing solved yet: the initial row has no solver figures
		}
		st := ls.LastStats()
		r.iterations = append(r.iterations, st.Iterations)
		r.residual = append(r.residual, st.Residual)
		r.converged = append(r.converged, st.Converged)
	}
	e.rows = append(e.rows, r)
	e.loggedAt = s.StepCount
	e.dirty = true
}

// flush rewrites the file when it has new rows and, unless forced, when
// flushEvery has passed since the last write.
func (e *EnergyLogger) flush(force bool) error {
	if !e.dirty || (!force && time.Since(e.lastWrite) < e.flushEvery) {
		return nil
	}
	var buf bytes.Buffer
	if e.json {
		e.encodeJSON(&buf)
	} else {
		e.encodeCSV(&buf)
	}
	if err := writeFileAtomic(e.path, e.Sync, func(w io.Writer) error {
		_, err := w.Write(buf.Bytes())
		return err
	}); err != nil {
		return err
	}
	e.dirty = false
	e.lastWrite = time.Now()
	e.writes++
	return nil
}

// num formats a float for the log; NaN and infinities (a diverged run) are
// written as CSV's usual NaN/+Inf/-Inf, and as null in JSON.
func num(b []byte, x float64, jsonOut bool) []byte {
	if jsonOut && (math.IsNaN(x) || math.IsInf(x, 0)) {
		return append(b, "null"...)
	}
	return strconv.AppendFloat(b, x, 'g', -1, 64)
}

func (e *EnergyLogger) encodeCSV(buf *bytes.Buffer) {
	buf.WriteString("step,time,kinetic,potential,total")
	for _, ls := range e.solvers {
		p := csvField(ls.Base().Path())
		fmt.Fprintf(buf, ",%s.iterations,%s.residual,%s.converged", p, p, p)
	}
	buf.WriteByte('\n')
	var b []byte
	for _, r := range e.rows {
		b = strconv.AppendInt(b[:0], int64(r.step), 10)
		for _, x := range []float64{r.time, r.kinetic, r.potential, r.kinetic + r.potential} {
			b = append(b, ',')
			b = num(b, x, false)
		}
		if len(r.iterations) == 0 {
			for range e.solvers {
				b = append(b, ",,,"...)
			}
		}
		for i := range r.iterations {
			b = append(b, ',')
			b = strconv.AppendInt(b, int64(r.iterations[i]), 10)
			b = append(b, ',')
			b = num(b, r.residual[i], false)
			b = append(b, ',')
			b = strconv.AppendBool(b, r.converged[i])
		}
		b = append(b, '\n')
		buf.Write(b)
	}
}

// csvField quotes a field that holds a comma or a quote (RFC 4180).
func csvField(s string) string {
	if !strings.ContainsAny(s, ",\"\n") {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

func (e *EnergyLogger) encodeJSON(buf *bytes.Buffer) {
	paths := make([][]byte, len(e.solvers))
	for i, ls := range e.solvers {
		paths[i], _ = json.Marshal(ls.Base().Path())
	}
	buf.WriteString("[")
	var b []byte
	for k, r := range e.rows {
		b = b[:0]
		if k > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n {\"step\": "...)
		b = strconv.AppendInt(b, int64(r.step), 10)
		for _, f := range []struct {
			name string
			x    float64
		}{{"time", r.time}, {"kinetic", r.kinetic}, {"potential", r.potential}, {"total", r.kinetic + r.potential}} {
			b = append(b, ", \""+f.name+"\": "...)
			b = num(b, f.x, true)
		}
		b = append(b, ", \"solvers\": {"...)
		for i := range r.iterations {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = append(b, paths[i]...)
			b = append(b, ": {\"iterations\": "...)
			b = strconv.AppendInt(b, int64(r.iterations[i]), 10)
			b = append(b, ", \"residual\": "...)
			b = num(b, r.residual[i], true)
			b = append(b, ", \"converged\": "...)
			b = strconv.AppendBool(b, r.converged[i])
			b = append(b, '}')
		}
		b = append(b, "}}"...)
		buf.Write(b)
	}
	buf.WriteString("\n]\n")
}
