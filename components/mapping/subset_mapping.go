package mapping

import (
	"fmt"

	"github.com/sofago/sofago/graph"
)

// SubsetMapping makes child DOF i a copy of parent DOF indices[i] (same
// template on both sides). An index may appear several times; the forces
// of all its copies add up on the parent DOF. J is a constant selection
// matrix, so the geometric stiffness is zero.
type SubsetMapping struct {
	graph.ObjectBase
	MappingIO
	Indices []int `toml:"indices" doc:"parent DOF of each child DOF (0-based); child DOF i = parent DOF indices[i]" range:"[0,inf)" required:"true"`
}

func init() {
	graph.Register(graph.TypeInfo{
		Name:    "SubsetMapping",
		Kind:    graph.KindMapping,
		Summary: "The child state holds copies of some DOFs of the parent state: child DOF i = parent DOF indices[i]; forces on the copies add up on the parent DOFs.",
		New:     func() graph.Object { return &SubsetMapping{MappingIO: MappingIO{Mechanical: true}} },
	})
}

// Validate checks that indices is not empty.
func (m *SubsetMapping) Validate() error {
	if len(m.Indices) == 0 {
		return fmt.Errorf("indices is empty; list the parent DOFs the child copies")
	}
	return nil
}

// Init resolves the states, checks the templates and the indices against
// the parent's size, sizes the child and maps the rest position and
// position onto it.
func (m *SubsetMapping) Init() error {
	if err := m.Validate(); err != nil {
		return m.Wrap(err)
	}
	if err := m.resolve(&m.ObjectBase); err != nil {
		return m.Wrap(err)
	}
	pt, ct := m.from.Template(), m.to.Template()
	if pt.Name() != ct.Name() {
		return m.Errorf("input template %s and output template %s differ; a subset mapping needs the same template", pt.Name(), ct.Name())
	}
	np := m.from.Size()
	for i, idx := range m.Indices {
		if idx < 0 || idx >= np {
			return m.Errorf("indices[%d] = %d is out of range: the input state %q has %d DOFs (valid indices 0..%d)", i, idx, m.from.Base().Path(), np, np-1)
		}
	}
	if err := sizeChild(m.to, len(m.Indices), "indices"); err != nil {
		return m.Wrap(err)
	}
	applyRestAndPosition(m)
	return nil
}

// Apply implements graph.Mapping: child DOF i = parent DOF indices[i].
func (m *SubsetMapping) Apply(childX, parentX []float64) {
	cs := m.from.Template().CoordSize()
	for i, idx := range m.Indices {
		copy(childX[cs*i:cs*i+cs], parentX[cs*idx:cs*idx+cs])
	}
}

// ApplyJ implements graph.Mapping: child velocity i = parent velocity indices[i].
func (m *SubsetMapping) ApplyJ(childV, parentV []float64) {
	ds := m.from.Template().DerivSize()
	for i, idx := range m.Indices {
		copy(childV[ds*i:ds*i+ds], parentV[ds*idx:ds*idx+ds])
	}
}

// ApplyJT implements graph.Mapping: parent force indices[i] += child force i.
func (m *SubsetMapping) ApplyJT(parentF, childF []float64) {
	ds := m.from.Template().DerivSize()
	for i, idx := range m.Indices {
		p, c := parentF[ds*idx:ds*idx+ds], childF[ds*i:ds*i+ds]
		for j := range p {
			p[j] += c[j]
		}
	}
}

// ApplyDJT implements graph.Mapping: J is constant, so nothing is added.
func (m *SubsetMapping) ApplyDJT(parentDf, parentDx, childF []float64, kFactor float64) {}
