package graph

import (
	"fmt"
	"strings"

	"github.com/sofago/sofago/geom"
)

// Node is one node of the scene tree. Its objects are kept in declaration
// order; the role of each (state, mapping, mass, ...) is found from the
// interfaces it implements, so the order never matters.
type Node struct {
	Name     string
	Parent   *Node
	Children []*Node
	Objects  []Object

	// GravityOverride, when set, replaces the inherited gravity for this
	// node and its descendants.
	GravityOverride *geom.Vec3

	// loadFactor scales the external loads of the subtree when
	// hasLoadFactor (see SetLoadFactor).
	loadFactor    float64
	hasLoadFactor bool

	scene *Scene
	File  string
	Line  int
}

// Scene returns the scene the node belongs to.
func (n *Node) Scene() *Scene { return n.scene }

// Path returns the slash-separated path from the root ("" for the root).
func (n *Node) Path() string {
	if n.Parent == nil {
		return ""
	}
	pp := n.Parent.Path()
	if pp == "" {
		return n.Name
	}
	return pp + "/" + n.Name
}

// Context returns dt, time, gravity and load factor as seen from this node.
func (n *Node) Context() Context {
	c := Context{LoadFactor: 1}
	if n.scene != nil {
		c.Dt, c.Time, c.Gravity = n.scene.Dt, n.scene.Time, n.scene.Gravity
	}
	gravitySet := false
	for p := n; p != nil; p = p.Parent {
		if p.GravityOverride != nil && !gravitySet {
			c.Gravity = *p.GravityOverride
			gravitySet = true
		}
		if p.hasLoadFactor {
			c.LoadFactor *= p.loadFactor
		}
	}
	return c
}

// Gravity returns the gravity load acting in this node now: the gravity
// of the scene (or the nearest GravityOverride) times the load factor.
// Masses apply their weight with it, so gravity follows the load
// increments of a StaticSolver.
func (n *Node) Gravity() geom.Vec3 {
	c := n.Context()
	return c.Gravity.Scale(c.LoadFactor)
}

// LoadFactor returns the factor that scales the external loads in this
// node: the product of the factors set on it and its ancestors (1 unless
// a solver is applying its loads in increments). External loads —
// ConstantForceField, the weight of every mass (through Gravity), and any
// component that applies a prescribed load — multiply their force and its
// potential by it; internal forces (elasticity, springs, contacts) do not.
func (n *Node) LoadFactor() float64 {
	f := 1.0
	for p := n; p != nil; p = p.Parent {
		if p.hasLoadFactor {
			f *= p.loadFactor
		}
	}
	return f
}

// SetLoadFactor scales the external loads of this node's subtree by f
// (see LoadFactor). A StaticSolver sets it on its own node while it
// ramps the loads over its load steps, and restores 1 afterwards. f must
// be finite; 0 removes every external load.
func (n *Node) SetLoadFactor(f float64) {
	n.loadFactor, n.hasLoadFactor = f, f != 1
}

// Add appends an object to the node (used by the loader and by code that
// builds scenes directly).
func (n *Node) Add(o Object) {
	b := o.Base()
	b.Node = n
	if b.File == "" {
		b.File = n.File
	}
	n.Objects = append(n.Objects, o)
}

// AddChild appends a new child node and returns it.
func (n *Node) AddChild(name string) *Node {
	c := &Node{Name: name, Parent: n, scene: n.scene, File: n.File}
	n.Children = append(n.Children, c)
	return c
}

// Object returns the object named name in this node, or nil.
func (n *Node) Object(name string) Object {
	for _, o := range n.Objects {
		if o.Base().Name == name {
			return o
		}
	}
	return nil
}

// Child returns the child node named name, or nil.
func (n *Node) Child(name string) *Node {
	for _, c := range n.Children {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// State returns the mechanical state of the node, or nil.
func (n *Node) State() State {
	for _, o := range n.Objects {
		if s, ok := o.(State); ok {
			return s
		}
	}
	return nil
}

// Mapping returns the mapping of the node (whose To is the node's state), or nil.
func (n *Node) Mapping() Mapping {
	for _, o := range n.Objects {
		if m, ok := o.(Mapping); ok {
			return m
		}
	}
	return nil
}

// Mass returns the mass of the node, or nil.
func (n *Node) Mass() Mass {
	for _, o := range n.Objects {
		if m, ok := o.(Mass); ok {
			return m
		}
	}
	return nil
}

// ForceFields returns the force fields of the node, masses excluded.
func (n *Node) ForceFields() []ForceField {
	var out []ForceField
	for _, o := range n.Objects {
		if _, isMass := o.(Mass); isMass {
			continue
		}
		if f, ok := o.(ForceField); ok {
			out = append(out, f)
		}
	}
	return out
}

// Constraints returns the projective constraints of the node.
func (n *Node) Constraints() []ProjectiveConstraint {
	var out []ProjectiveConstraint
	for _, o := range n.Objects {
		if c, ok := o.(ProjectiveConstraint); ok {
			out = append(out, c)
		}
	}
	return out
}

// Topology returns the topology of this node, or of the nearest ancestor
// that has one (as in SOFA), or nil.
func (n *Node) Topology() Topology {
	for p := n; p != nil; p = p.Parent {
		for _, o := range p.Objects {
			if t, ok := o.(Topology); ok {
				return t
			}
		}
	}
	return nil
}

// LocalTopology returns the topology held by this node itself, or nil.
func (n *Node) LocalTopology() Topology {
	for _, o := range n.Objects {
		if t, ok := o.(Topology); ok {
			return t
		}
	}
	return nil
}

// ODESolver returns the ODE solver of the node, or nil.
func (n *Node) ODESolver() ODESolver {
	for _, o := range n.Objects {
		if s, ok := o.(ODESolver); ok {
			return s
		}
	}
	return nil
}

// LinearSolver returns the linear solver of this node or the nearest
// ancestor, or nil.
func (n *Node) LinearSolver() LinearSolver {
	for p := n; p != nil; p = p.Parent {
		for _, o := range p.Objects {
			if s, ok := o.(LinearSolver); ok {
				return s
			}
		}
	}
	return nil
}

// Walk calls fn on n and its descendants, parents before children, in
// declaration order; it stops at the first error.
func (n *Node) Walk(fn func(*Node) error) error {
	if err := fn(n); err != nil {
		return err
	}
	for _, c := range n.Children {
		if err := c.Walk(fn); err != nil {
			return err
		}
	}
	return nil
}

// Resolve finds the target of a link path ("@name", "@../name",
// "@child/name", "@/top/name") seen from this node.
func (n *Node) Resolve(path string) (Object, *Node, error) {
	p := strings.TrimPrefix(path, "@")
	cur := n
	if strings.HasPrefix(p, "/") {
		for cur.Parent != nil {
			cur = cur.Parent
		}
		p = strings.TrimPrefix(p, "/")
	}
	segs := strings.Split(p, "/")
	for i, s := range segs {
		last := i == len(segs)-1
		switch s {
		case "", ".":
			if last {
				return nil, cur, nil
			}
			continue
		case "..":
			if cur.Parent == nil {
				return nil, nil, fmt.Errorf("link %q goes above the root", path)
			}
			cur = cur.Parent
			if last {
				return nil, cur, nil
			}
			continue
		}
		if last {
			if o := cur.Object(s); o != nil {
				return o, cur, nil
			}
			if c := cur.Child(s); c != nil {
				return nil, c, nil
			}
			return nil, nil, fmt.Errorf("link %q points nowhere: node %q has no object or child named %q%s",
				path, displayPath(cur), s, suggestIn(cur, s))
		}
		c := cur.Child(s)
		if c == nil {
			return nil, nil, fmt.Errorf("link %q points nowhere: node %q has no child %q", path, displayPath(cur), s)
		}
		cur = c
	}
	return nil, cur, nil
}

func displayPath(n *Node) string {
	if p := n.Path(); p != "" {
		return p
	}
	return "/"
}

func suggestIn(n *Node, s string) string {
	var names []string
	for _, o := range n.Objects {
		names = append(names, o.Base().Name)
	}
	for _, c := range n.Children {
		names = append(names, c.Name)
	}
	if c := closest(s, names); c != "" {
		return fmt.Sprintf(" (did you mean %q?)", c)
	}
	return ""
}
