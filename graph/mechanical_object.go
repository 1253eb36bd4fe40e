package graph

import (
	"fmt"
	"math"
	"strings"
)

// MechanicalObject is the mechanical state of a node: the DOF vectors of one
// template. Positions default to the node's topology (its rest points),
// velocities to zero.
type MechanicalObject struct {
	ObjectBase
	TemplateName string      `toml:"template" doc:"DOF type: Vec3, Rigid3, Vec1 (SOFA's Vec3d, Rigid3d, Vec1d are accepted), or any registered template"`
	PositionIn   [][]float64 `toml:"position" doc:"initial coordinates, one array per DOF in the template's layout (default: the rest shape); with a topology in the node they are a deformed pose, the topology's points staying the rest shape"`
	VelocityIn   [][]float64 `toml:"velocity" doc:"initial velocities, one array per DOF, or a single array applied to every DOF (default: zero)" unit:"m/s, rad/s"`
	RestIn       [][]float64 `toml:"restPosition" doc:"rest coordinates, one array per DOF (default: the points of a topology in the same node, and only when there is none, position)"`
	Translation  [3]float64  `toml:"translation" doc:"translation applied to the initial and rest coordinates taken from a topology" unit:"m"`
	SizeIn       int         `toml:"size" doc:"number of DOFs when nothing else sets it (they start at the origin, identity orientation)" range:"[0,50000000]"`

	tmpl Template
	n    int
	vecs [][]float64
	// coord records which allocated vectors are coordinate vectors.
	coord []bool
}

func init() {
	Register(TypeInfo{
		Name:    "MechanicalObject",
		Kind:    KindState,
		Summary: "The DOFs of a node (positions, velocities, forces and solver temporaries) for one template: Vec3 points, Rigid3 frames [t q], Vec1 reduced coordinates, ...",
		New:     func() Object { return &MechanicalObject{TemplateName: "Vec3"} },
	})
}

// NewMechanicalObject returns a state of n DOFs of template t (for code
// that builds scenes or tests directly).
func NewMechanicalObject(name string, t Template, n int) *MechanicalObject {
	m := &MechanicalObject{ObjectBase: ObjectBase{Name: name, TypeName: "MechanicalObject"}, TemplateName: t.Name(), tmpl: t}
	m.Resize(n)
	return m
}

// Validate checks the template name (SOFA's aliases such as Vec3d are
// accepted; other SOFA names are explained from the table of SOFA names).
func (m *MechanicalObject) Validate() error {
	t, ok := LookupTemplate(m.TemplateName)
	if !ok {
		msg := fmt.Sprintf("unknown template %q", m.TemplateName)
		if sn, isSOFA := LookupSOFA(m.TemplateName, true); isSOFA {
			msg += ": " + sn.Explain()
		} else if c := closest(m.TemplateName, TemplateNames()); c != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", c)
		}
		msg += fmt.Sprintf("; known: %s (SOFA's %s also accepted)", strings.Join(TemplateNames(), ", "), strings.Join(sofaTemplateAliases(), ", "))
		return &keyError{key: "template", msg: msg}
	}
	m.tmpl = t
	return nil
}

// Init sizes and fills the vectors. The rest shape comes, in order of
// precedence, from restPosition, from the points of a topology in the same
// node (shifted by translation), from position, and otherwise the state has
// size DOFs at the origin. The initial coordinates are position when given
// (so a scene can start from a deformed pose: the elastic forces then pull
// it back to the topology's shape), otherwise the rest shape. A topology's
// points are 3 numbers each, so states of other templates (Rigid3, Vec1,
// ...) never take them: their rest shape defaults to position, except
// that a Rigid3 state takes the frames of a FrameTopology (RodTopology).
//
// Coordinates a scene gives are checked by their template (CoordChecker):
// a zero or non-finite Rigid3 quaternion is an error, a non-unit one is
// normalised with a note (Scene.Notes).
func (m *MechanicalObject) Init() error {
	if m.tmpl == nil {
		if err := m.Validate(); err != nil {
			return m.Wrap(err)
		}
	}
	cs, ds := m.tmpl.CoordSize(), m.tmpl.DerivSize()
	var x []float64 // position as given
	if len(m.PositionIn) > 0 {
		v, err := m.given("position", m.PositionIn)
		if err != nil {
			return err
		}
		x = v
	}
	var rest []float64
	restFrom := ""
	var topoPts []float64
	topoName := ""
	if topo := m.Node.LocalTopology(); topo != nil && topo.Base() != nil {
		topoPts, topoName = topo.Points(), topo.Base().Name
	}
	switch {
	case len(m.RestIn) > 0:
		r, err := m.given("restPosition", m.RestIn)
		if err != nil {
			return err
		}
		rest, restFrom = r, "restPosition"
	case len(topoPts) > 0 && cs == 7 && isFrameTopology(m.Node.LocalTopology()):
		rest = append([]float64(nil), m.Node.LocalTopology().(FrameTopology).Frames()...)
		for i := 0; i < len(rest)/7; i++ {
			for c := 0; c < 3; c++ {
				rest[7*i+c] += m.Translation[c]
			}
		}
		restFrom = fmt.Sprintf("the frames of topology %q", topoName)
	case len(topoPts) > 0 && cs == 3:
		rest = append([]float64(nil), topoPts...)
		for i := 0; i < len(rest)/3; i++ {
			for c := 0; c < 3; c++ {
				rest[3*i+c] += m.Translation[c]
			}
		}
		restFrom = fmt.Sprintf("the points of topology %q", topoName)
	case x != nil:
		rest, restFrom = x, "position"
	case len(topoPts) > 0:
		return m.Errorf("template %s cannot take its positions from topology %q (3 numbers per point); give position or restPosition", m.TemplateName, topoName)
	}
	n := m.SizeIn
	if rest != nil {
		n = len(rest) / cs
	}
	if m.n != 0 && rest == nil {
		n = m.n // sized by code before Init
	}
	m.Resize(n)
	if rest != nil {
		copy(m.vecs[RestPosition], rest)
		copy(m.vecs[Position], rest)
	}
	if x != nil {
		if len(x) != len(m.vecs[Position]) {
			return m.Errorf("position has %d DOFs but the rest shape (%s) has %d", len(x)/cs, restFrom, n)
		}
		copy(m.vecs[Position], x)
	}
	m.tmpl.Normalize(m.vecs[Position])
	m.tmpl.Normalize(m.vecs[RestPosition])
	switch {
	case len(m.VelocityIn) == 1 && n != 1:
		if len(m.VelocityIn[0]) != ds {
			return m.Errorf("velocity[0] has %d numbers, want %d for %s", len(m.VelocityIn[0]), ds, m.TemplateName)
		}
		for i := 0; i < n; i++ {
			copy(m.vecs[Velocity][ds*i:], m.VelocityIn[0])
		}
	case len(m.VelocityIn) > 0:
		v, err := flatten("velocity", m.VelocityIn, ds)
		if err != nil {
			return m.Wrap(err)
		}
		if len(v) != len(m.vecs[Velocity]) {
			return m.Errorf("velocity has %d DOFs, want %d (or a single value for all)", len(v)/ds, n)
		}
		copy(m.vecs[Velocity], v)
	}
	return nil
}

// given flattens coordinates the scene gives (position, restPosition) and
// has the template check each one (CoordChecker): an error names the DOF,
// a change is recorded as a note.
func (m *MechanicalObject) given(what string, rows [][]float64) ([]float64, error) {
	cs := m.tmpl.CoordSize()
	x, err := flatten(what, rows, cs)
	if err != nil {
		return nil, m.Wrap(err)
	}
	if ck, ok := m.tmpl.(CoordChecker); ok {
		for i := 0; i < len(x)/cs; i++ {
			change, err := ck.CheckCoord(x[cs*i : cs*i+cs])
			if err != nil {
				return nil, m.Errorf("%s[%d]: %v", what, i, err)
			}
			if change != "" {
				m.Notef("%s[%d]: %s", what, i, change)
			}
		}
	}
	return x, nil
}

func flatten(what string, rows [][]float64, width int) ([]float64, error) {
	out := make([]float64, 0, len(rows)*width)
	for i, r := range rows {
		if len(r) != width {
			return nil, fmt.Errorf("%s[%d] has %d numbers, want %d", what, i, len(r), width)
		}
		for _, x := range r {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("%s[%d] is not finite", what, i)
			}
		}
		out = append(out, r...)
	}
	return out, nil
}

// Template implements State.
func (m *MechanicalObject) Template() Template {
	if m.tmpl == nil {
		m.tmpl, _ = LookupTemplate(m.TemplateName)
	}
	return m.tmpl
}

// Size implements State.
func (m *MechanicalObject) Size() int { return m.n }

// Vec implements State.
func (m *MechanicalObject) Vec(id VecID) []float64 {
	if int(id) >= len(m.vecs) {
		return nil
	}
	return m.vecs[id]
}

func (m *MechanicalObject) isCoord(id VecID) bool {
	return id.IsStandardCoord() || (int(id) < len(m.coord) && m.coord[id])
}

// Alloc implements State.
func (m *MechanicalObject) Alloc(id VecID, coord bool) {
	for len(m.vecs) <= int(id) {
		m.vecs = append(m.vecs, nil)
		m.coord = append(m.coord, false)
	}
	m.coord[id] = coord
	size := m.n * m.Template().DerivSize()
	if coord {
		size = m.n * m.Template().CoordSize()
	}
	if cap(m.vecs[id]) >= size {
		m.vecs[id] = m.vecs[id][:size]
		clear(m.vecs[id])
	} else {
		m.vecs[id] = make([]float64, size)
	}
}

// Free implements State. The storage is kept for the next Alloc of that id.
func (m *MechanicalObject) Free(id VecID) {
	if int(id) < len(m.vecs) && id >= firstTempVec {
		m.vecs[id] = m.vecs[id][:0]
	}
}

// Resize implements State.
func (m *MechanicalObject) Resize(n int) {
	t := m.Template()
	if len(m.vecs) < int(firstTempVec) {
		m.vecs = make([][]float64, firstTempVec)
		m.coord = make([]bool, firstTempVec)
	}
	old := m.n
	m.n = n
	for id := range m.vecs {
		if id >= int(firstTempVec) && len(m.vecs[id]) == 0 && old != 0 {
			continue // freed temporary
		}
		coord := m.isCoord(VecID(id))
		w := t.DerivSize()
		if coord {
			w = t.CoordSize()
		}
		nv := make([]float64, n*w)
		copy(nv, m.vecs[id])
		if coord && n > old {
			// New coordinates start at the template's identity (a zero
			// quaternion normalises to the identity orientation).
			t.Normalize(nv[old*w:])
		}
		m.vecs[id] = nv
	}
}

func isFrameTopology(t Topology) bool {
	_, ok := t.(FrameTopology)
	return ok
}
