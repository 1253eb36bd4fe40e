package graph

import "fmt"

// ObjectBase is embedded by every component. The loader fills it in; a
// component reads its node (and through it the context, state and topology)
// from here.
type ObjectBase struct {
	Name     string // unique within its node
	TypeName string // registered type
	Node     *Node
	File     string // scene file and line of the object's table, for errors
	Line     int
}

// Base implements Object.
func (b *ObjectBase) Base() *ObjectBase { return b }

// Path returns "node/path/name".
func (b *ObjectBase) Path() string {
	if b.Node == nil {
		return b.Name
	}
	p := b.Node.Path()
	if p == "" {
		return b.Name
	}
	return p + "/" + b.Name
}

// Errorf returns an error located at this object (file:line, node, object).
func (b *ObjectBase) Errorf(format string, args ...any) error {
	return b.Wrap(fmt.Errorf(format, args...))
}

// Wrap locates err at this object; nil stays nil.
func (b *ObjectBase) Wrap(err error) error {
	if err == nil {
		return nil
	}
	e := &Error{File: b.File, Line: b.Line, Object: b.Name, Type: b.TypeName, Err: err}
	if b.Node != nil {
		e.Node = b.Node.Path()
	}
	return e
}

// Error is a scene error: where it is (file, line, node path, object) and
// what went wrong. Its text has the shape "file:line: node "n", object "o"
// (Type): message".
type Error struct {
	File   string
	Line   int // 0 when unknown
	Node   string
	Object string
	Type   string
	Err    error
}

func (e *Error) Error() string {
	loc := e.File
	if e.Line > 0 {
		loc = fmt.Sprintf("%s:%d", e.File, e.Line)
	}
	if loc == "" {
		loc = "<scene>"
	}
	s := loc + ": "
	if e.Node != "" {
		s += fmt.Sprintf("node %q", e.Node)
	}
	if e.Object != "" {
		if e.Node != "" {
			s += ", "
		}
		s += fmt.Sprintf("object %q", e.Object)
		if e.Type != "" && e.Type != e.Object {
			s += fmt.Sprintf(" (%s)", e.Type)
		}
	}
	if e.Node != "" || e.Object != "" {
		s += ": "
	}
	return s + e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }
