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
//
// Objects with internal state beyond the DOFs (graph.DumpDataProvider:
// the plastic strains of the tetrahedral FEM) add an optional section
// after "states", written only when some object has data, so the dumps of
// other scenes are unchanged:
//
//	 "objects": [{"path": "block/fem",
//	              "plasticStrain": [[exx,eyy,ezz,exy,eyz,exz], ...]}]
//
// one array per item (element) of the array's width.

// dumpState is one state of the dump, flat in the state's layout.
type dumpState struct {
	path, template string
	coord, deriv   int
	position       []float64
	velocity       []float64
	force          []float64
}

// dumpObject is the internal state of one object (graph.DumpDataProvider).
type dumpObject struct {
	path   string
	arrays []graph.DumpArray
}

// dumpObjects collects the internal state of the scene's objects, in the
// scene's order (top-down, declaration order).
func dumpObjects(s *graph.Scene) []dumpObject {
	var out []dumpObject
	s.Root.Walk(func(n *graph.Node) error {
		for _, o := range n.Objects {
			if p, ok := o.(graph.DumpDataProvider); ok {
				if arr := p.DumpData(); len(arr) > 0 {
					out = append(out, dumpObject{path: o.Base().Path(), arrays: arr})
				}
			}
		}
		return nil
	})
	return out
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
	objects := dumpObjects(s)
	for _, o := range objects {
		for _, a := range o.arrays {
			for i, x := range a.Data {
				if math.IsNaN(x) || math.IsInf(x, 0) {
					return fmt.Errorf("dump %s: object %q: %s of item %d is %g; JSON cannot hold it, not writing", file, o.path, a.Name, i/max(a.Width, 1), x)
				}
			}
		}
	}
	var buf bytes.Buffer
	encodeDump(&buf, graph.RoundTime(s.Time), s.StepCount, ke, pe, states)
	encodeObjects(&buf, objects)
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

// encodeObjects inserts the "objects" section into the dump encodeDump
// wrote (before its closing brace), one item per line; nothing when
// objects is empty.
func encodeObjects(buf *bytes.Buffer, objects []dumpObject) {
	if len(objects) == 0 {
		return
	}
	buf.Truncate(buf.Len() - len("}\n"))
	buf.WriteString(",\n \"objects\": [")
	for i, o := range objects {
		if i > 0 {
			buf.WriteString(",\n")
		}
		b, _ := json.Marshal(o.path)
		buf.WriteString("\n  {\"path\": ")
		buf.Write(b)
		for _, a := range o.arrays {
			fmt.Fprintf(buf, ",\n   %q: [", a.Name)
			w := max(a.Width, 1)
			for k := 0; k*w < len(a.Data); k++ {
				if k > 0 {
					buf.WriteString(",\n    ")
				}
				buf.WriteByte('[')
				for c := 0; c < w && k*w+c < len(a.Data); c++ {
					if c > 0 {
						buf.WriteByte(',')
					}
					buf.Write(strconv.AppendFloat(buf.AvailableBuffer(), a.Data[k*w+c], 'g', -1, 64))
				}
				buf.WriteByte(']')
			}
			buf.WriteByte(']')
		}
		buf.WriteByte('}')
	}
	buf.WriteString("]}\n")
}
