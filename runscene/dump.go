package runscene

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/sofago/sofago/components/visual"
	"github.com/sofago/sofago/graph"
)

// The dump (README, "The command line", the JSON dump):
//
//	{"time": 0.5, "steps": 50,
//	 "energy": {"kinetic": 0.0, "potential": 0.0},
//	 "states": [{"path": "beam/dofs", "template": "Vec3",
//	             "position": [[0,0,0], ...], "velocity": [[0,0,0], ...],
//	             "force": [[0,0,0], ...]}]}
//
// Each DOF is one array in its state's layout (Rigid3 positions 7 numbers,
// velocities and forces 6). force is the total force at the dumped
// configuration (every force field and gravity, mapped forces brought up,
// constraints not projected), computed afresh by Scene.ComputeForces.
// Numbers use the shortest form that parses back to the same float64;
// time is first rounded to 12 significant digits (graph.RoundTime), so
// it carries no floating-point noise (0.3, not 0.30000000000000004).

// dumpState is one state of the dump, flat in the state's layout.
type dumpState struct {
	path, template string
	coord, deriv   int
	position       []float64
	velocity       []float64
	force          []float64
}

// writeDump computes the forces and writes the dump of s to file
// atomically. It refuses non-finite values, which JSON cannot represent,
// naming the first one.
func writeDump(file string, s *graph.Scene) error {
	s.ComputeForces()
	ke, pe := s.Energies()
	var states []dumpState
	for _, st := range s.States() {
		t := st.Template()
		states = append(states, dumpState{
			path: st.Base().Path(), template: t.Name(),
			coord: t.CoordSize(), deriv: t.DerivSize(),
			position: st.Vec(graph.Position),
			velocity: st.Vec(graph.Velocity),
			force:    st.Vec(graph.Force),
		})
	}
	if err := checkDumpFinite(ke, pe, states); err != nil {
		return fmt.Errorf("dump %s: %w", file, err)
	}
	var buf bytes.Buffer
	encodeDump(&buf, graph.RoundTime(s.Time), s.StepCount, ke, pe, states)
	if err := visual.WriteFileAtomic(file, func(w io.Writer) error {
		_, err := w.Write(buf.Bytes())
		return err
	}); err != nil {
		return fmt.Errorf("dump: %w", err)
	}
	return nil
}

func checkDumpFinite(ke, pe float64, states []dumpState) error {
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	if !finite(ke) || !finite(pe) {
		return fmt.Errorf("energy is not finite (kinetic %g, potential %g); JSON cannot hold it, not writing", ke, pe)
	}
	for _, st := range states {
		for _, v := range []struct {
			name  string
			data  []float64
			width int
		}{{"position", st.position, st.coord}, {"velocity", st.velocity, st.deriv}, {"force", st.force, st.deriv}} {
			for i, x := range v.data {
				if !finite(x) {
					return fmt.Errorf("state %q: %s of DOF %d is %g; JSON cannot hold it, not writing", st.path, v.name, i/v.width, x)
				}
			}
		}
	}
	return nil
}

// encodeDump writes the JSON with one DOF per line, which keeps large
// dumps readable and diffable.
func encodeDump(buf *bytes.Buffer, t float64, steps int, ke, pe float64, states []dumpState) {
	num := func(x float64) { buf.Write(strconv.AppendFloat(buf.AvailableBuffer(), x, 'g', -1, 64)) }
	str := func(s string) {
		b, _ := json.Marshal(s)
		buf.Write(b)
	}
	rows := func(name string, v []float64, width int) {
		fmt.Fprintf(buf, "   %q: [", name)
		for i := 0; i*width < len(v); i++ {
			if i > 0 {
				buf.WriteString(",\n    ")
			}
			buf.WriteByte('[')
			for c := 0; c < width; c++ {
				if c > 0 {
					buf.WriteByte(',')
				}
				num(v[i*width+c])
			}
			buf.WriteByte(']')
		}
		buf.WriteByte(']')
	}
	buf.WriteString(`{"time": `)
	num(t)
	fmt.Fprintf(buf, ", \"steps\": %d,\n \"energy\": {\"kinetic\": ", steps)
	num(ke)
	buf.WriteString(`, "potential": `)
	num(pe)
	buf.WriteString("},\n \"states\": [")
	for i, st := range states {
		if i > 0 {
			buf.WriteString(",\n")
		}
		buf.WriteString("\n  {\"path\": ")
		str(st.path)
		buf.WriteString(", \"template\": ")
		str(st.template)
		buf.WriteString(",\n")
		rows("position", st.position, st.coord)
		buf.WriteString(",\n")
		rows("velocity", st.velocity, st.deriv)
		buf.WriteString(",\n")
		rows("force", st.force, st.deriv)
		buf.WriteByte('}')
	}
	buf.WriteString("]}\n")
}
