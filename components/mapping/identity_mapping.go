package mapping

import (
	"fmt"

	"github.com/sofago/sofago/graph"
)

// MappingIO holds the scene fields every mapping of this package shares:
// the input (parent) and output (child) states and whether the mapping is
// mechanical. It is embedded (exported, so the loader resolves its links)
// by IdentityMapping, SubsetMapping and RigidMapping.
type MappingIO struct {
	Input      graph.Link `toml:"input" doc:"parent state the mapping reads (default: the mechanical state of the parent node)"`
	Output     graph.Link `toml:"output" doc:"child state the mapping writes (default: the mechanical state of this node)"`
	Mechanical bool       `toml:"isMechanical" doc:"true: forces and stiffness go up through the mapping to the parent; false: a visual mapping, applied only at the end of each step"`

	from, to graph.State
}

// From implements graph.Mapping.
func (e *MappingIO) From() graph.State { return e.from }

// To implements graph.Mapping.
func (e *MappingIO) To() graph.State { return e.to }

// IsMechanical implements graph.Mapping.
func (e *MappingIO) IsMechanical() bool { return e.Mechanical }

// SetStates sets the parent and child states directly, for code that builds
// mappings without a scene file; Init then keeps them.
func (e *MappingIO) SetStates(from, to graph.State) { e.from, e.to = from, to }

// resolve finds the parent and child states: the links when given, else the
// state of the parent node and the state of the mapping's own node.
func (e *MappingIO) resolve(b *graph.ObjectBase) error {
	if e.from == nil {
		switch {
		case e.Input.IsSet():
			st, err := linkedState("input", e.Input)
			if err != nil {
				return err
			}
			e.from = st
		case b.Node == nil || b.Node.Parent == nil:
			return fmt.Errorf("no input state: the mapping has no parent node; set input = \"@path/to/state\"")
		default:
			e.from = b.Node.Parent.State()
			if e.from == nil {
				return fmt.Errorf("no input state: the parent node %q has no mechanical state; set input = \"@path/to/state\"", b.Node.Parent.Path())
			}
		}
	}
	if e.to == nil {
		switch {
		case e.Output.IsSet():
			st, err := linkedState("output", e.Output)
			if err != nil {
				return err
			}
			e.to = st
		case b.Node == nil:
			return fmt.Errorf("no output state: the mapping is in no node")
		default:
			e.to = b.Node.State()
			if e.to == nil {
				return fmt.Errorf("no output state: this node has no MechanicalObject; add one (its size is set by the mapping)")
			}
		}
	}
	return nil
}

// linkedState returns the state a link points to: a state object, or the
// state of a node.
func linkedState(field string, l graph.Link) (graph.State, error) {
	if l.Object != nil {
		st, ok := l.Object.(graph.State)
		if !ok {
			return nil, fmt.Errorf("%s %q is a %s, not a mechanical state", field, l.Path, l.Object.Base().TypeName)
		}
		return st, nil
	}
	if l.Node != nil {
		if st := l.Node.State(); st != nil {
			return st, nil
		}
		return nil, fmt.Errorf("%s %q: that node has no mechanical state", field, l.Path)
	}
	return nil, fmt.Errorf("%s %q was not resolved", field, l.Path)
}

// sizeChild gives the child state n DOFs when it has none, and otherwise
// checks that it has n.
func sizeChild(to graph.State, n int, why string) error {
	switch to.Size() {
	case 0:
		to.Resize(n)
	case n:
	default:
		return fmt.Errorf("the output state has %d DOFs but %s gives %d; leave the child MechanicalObject without positions (the mapping sets them) or make them agree", to.Size(), why, n)
	}
	return nil
}

// applyRestAndPosition sets the child's rest position and position by
// mapping the parent's, rest first so that the mapping's linearisation
// caches end at the current position.
func applyRestAndPosition(m graph.Mapping) {
	m.Apply(m.To().Vec(graph.RestPosition), m.From().Vec(graph.RestPosition))
	m.Apply(m.To().Vec(graph.Position), m.From().Vec(graph.Position))
}

// IdentityMapping makes the child state a copy of the parent state
// (same template, same number of DOFs): x_child = x_parent. J is the
// identity and the geometric stiffness is zero.
type IdentityMapping struct {
	graph.ObjectBase
	MappingIO
}

func init() {
	graph.Register(graph.TypeInfo{
		Name:    "IdentityMapping",
		Kind:    graph.KindMapping,
		Summary: "The child state is a copy of the parent state (same template and size): x_child = x_parent, forces added back unchanged.",
		New:     func() graph.Object { return &IdentityMapping{MappingIO: MappingIO{Mechanical: true}} },
	})
}

// Init resolves the states, checks that their templates match, sizes the
// child and maps the parent's rest position and position onto it.
func (m *IdentityMapping) Init() error {
	if err := m.resolve(&m.ObjectBase); err != nil {
		return m.Wrap(err)
	}
	pt, ct := m.from.Template(), m.to.Template()
	if pt.Name() != ct.Name() {
		return m.Errorf("input template %s and output template %s differ; an identity mapping needs the same template", pt.Name(), ct.Name())
	}
	if err := sizeChild(m.to, m.from.Size(), fmt.Sprintf("the input state %q", m.from.Base().Path())); err != nil {
		return m.Wrap(err)
	}
	applyRestAndPosition(m)
	return nil
}

// Apply implements graph.Mapping: childX = parentX.
func (m *IdentityMapping) Apply(childX, parentX []float64) { copy(childX, parentX) }

// ApplyJ implements graph.Mapping: childV = parentV.
func (m *IdentityMapping) ApplyJ(childV, parentV []float64) { copy(childV, parentV) }

// ApplyJT implements graph.Mapping: parentF += childF.
func (m *IdentityMapping) ApplyJT(parentF, childF []float64) {
	for i, f := range childF {
		parentF[i] += f
	}
}

// ApplyDJT implements graph.Mapping: J is constant, so nothing is added.
func (m *IdentityMapping) ApplyDJT(parentDf, parentDx, childF []float64, kFactor float64) {}
