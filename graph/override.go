package graph

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// Override replaces one value of a scene file before the scene is built,
// as `runscene -set PATH=VALUE` does. It is applied to the parsed TOML
// tree, so the value is typed, range-checked, enum-checked and resolved
// (links) by the same code as a value written in the file, and its errors
// come out the same way, naming the override.
//
// Path forms:
//
//	dt, gravity, steps                  a root key
//	beam/fem.youngModulus               node path, object name, field
//	beam/stvk.fixed[1].box              into a list or a table given in the file
//	beam.gravity                        a node's own key (gravity)
//
// Objects and nodes are named as everywhere else (an object without a name
// is called after its type: TetrahedronFEMForceField, TetrahedronFEMForceField2).
// Value is TOML: 2e6, 200, true, [0, -9.81, 0], [{box = [0, 0, 0, 1, 1, 1]}],
// "large". A bare word that is not TOML (large, @../dofs) is taken as a
// string, so enums and links need no shell quoting.
type Override struct {
	Path  string
	Value string
	// Flag names the override in errors ("-set" when empty).
	Flag string

	nodePath string   // "" for the root
	head     string   // object (or node) name; "" for a root key
	steps    []string // field key, then ".sub" and "[i]" steps
	value    any
	bare     bool // Value was not TOML: taken as a string
	used     int  // how many targets it was applied to (object and node)
}

// ParseOverride parses "PATH=VALUE" (the argument of runscene -set).
func ParseOverride(s string) (Override, error) {
	path, value, ok := strings.Cut(s, "=")
	path = strings.TrimSpace(path)
	if !ok || path == "" {
		return Override{}, &OverrideError{Override: "-set " + s, Err: errors.New("want PATH=VALUE, e.g. -set beam/fem.youngModulus=2e6 or -set dt=0.005")}
	}
	o := Override{Path: path, Value: strings.TrimSpace(value)}
	if err := o.parse(); err != nil {
		return Override{}, err
	}
	return o, nil
}

// String returns "-set PATH=VALUE".
func (o *Override) String() string {
	f := o.Flag
	if f == "" {
		f = "-set"
	}
	return fmt.Sprintf("%s %s=%s", f, o.Path, o.Value)
}

// Target returns the node path and the object (or node) name the override
// points to; object is "" for a root key.
func (o *Override) Target() (node, object string) { return o.nodePath, o.head }

// OverridesHint returns " (this object has -set A, -set B)" when some of
// ovs target the object named in err (a *Error), else "": an error found
// later (at Init) about an overridden object then says so.
func OverridesHint(err error, ovs []Override) string {
	var e *Error
	if !errors.As(err, &e) || e.Object == "" {
		return ""
	}
	var names []string
	for i := range ovs {
		if ovs[i].head == e.Object && ovs[i].nodePath == e.Node {
			names = append(names, ovs[i].String())
		}
	}
	if len(names) == 0 {
		return ""
	}
	return " (this object has " + strings.Join(names, ", ") + ")"
}

// OverrideError is an override that cannot be applied: it points nowhere,
// or the scene rejects its value. It is wrapped in an *Error that locates
// the target object when there is one.
type OverrideError struct {
	Override string // "-set PATH=VALUE"
	Err      error
}

func (e *OverrideError) Error() string { return e.Override + ": " + e.Err.Error() }
func (e *OverrideError) Unwrap() error { return e.Err }

func (o *Override) fail(err error) error { return &OverrideError{Override: o.String(), Err: err} }

// parse splits the path and decodes the value.
func (o *Override) parse() error {
	p := o.Path
	if strings.ContainsAny(p, " \t@") || strings.HasPrefix(p, "/") || strings.HasSuffix(p, "/") || strings.Contains(p, "//") {
		return o.fail(fmt.Errorf("bad path %q: want node/path/object.field, node/path.gravity or a root key (dt, gravity, steps)", p))
	}
	slash := strings.LastIndex(p, "/")
	last := p[slash+1:]
	if slash >= 0 {
		o.nodePath = p[:slash]
	}
	head, rest, dotted := strings.Cut(last, ".")
	if !dotted {
		if slash >= 0 {
			return o.fail(fmt.Errorf("bad path %q: the field is missing (node/path/object.field, e.g. beam/fem.youngModulus)", p))
		}
		// A root key, possibly indexed: gravity[1].
		o.head = ""
		rest = last
	} else {
		o.head = head
		if head == "" {
			return o.fail(fmt.Errorf("bad path %q: the object name before the field is empty", p))
		}
	}
	steps, err := splitFieldPath(rest)
	if err != nil {
		return o.fail(fmt.Errorf("bad path %q: %v", p, err))
	}
	o.steps = steps
	switch steps[0] {
	case "type", "name":
		return o.fail(fmt.Errorf("the %s of an object or node cannot be overridden (it decides what the path points to)", steps[0]))
	case "object", "node":
		if o.head == "" || len(steps) == 1 {
			return o.fail(fmt.Errorf("%q holds the scene's structure, not a value; override a field: node/path/object.field", steps[0]))
		}
	}
	var doc map[string]any
	if _, err := toml.Decode("v = "+o.Value, &doc); err == nil {
		o.value = doc["v"]
	} else {
		o.value, o.bare = o.Value, true
	}
	return nil
}

// splitFieldPath splits "fixed[1].box" into "fixed", "[1]", ".box" (the
// first step is the bare key).
func splitFieldPath(s string) ([]string, error) {
	var steps []string
	cur := ""
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '.':
			if cur == "" && (len(steps) == 0 || !strings.HasPrefix(steps[len(steps)-1], "[")) {
				return nil, fmt.Errorf("empty key in %q", s)
			}
			if cur != "" {
				steps = append(steps, cur)
			}
			cur = "."
		case '[':
			if cur != "" && cur != "." {
				steps = append(steps, cur)
			} else if cur == "." || len(steps) == 0 {
				return nil, fmt.Errorf("an index must follow a key in %q", s)
			}
			end := strings.IndexByte(s[i:], ']')
			if end < 0 {
				return nil, fmt.Errorf("unclosed [ in %q", s)
			}
			if _, err := strconv.Atoi(s[i+1 : i+end]); err != nil || s[i+1] == '-' || s[i+1] == '+' {
				return nil, fmt.Errorf("index %q in %q is not a non-negative integer", s[i+1:i+end], s)
			}
			steps = append(steps, s[i:i+end+1])
			i += end
			cur = ""
		default:
			cur += string(c)
		}
	}
	if cur == "." {
		return nil, fmt.Errorf("empty key at the end of %q", s)
	}
	if cur != "" {
		steps = append(steps, cur)
	}
	if len(steps) == 0 {
		return nil, fmt.Errorf("the field is missing")
	}
	for i := 1; i < len(steps); i++ {
		if strings.HasPrefix(steps[i], ".") {
			continue
		}
		if !strings.HasPrefix(steps[i], "[") {
			steps[i] = "." + steps[i]
		}
	}
	return steps, nil
}

// key is the table key the override sets.
func (o *Override) key() string { return o.steps[0] }

// apply sets the override's value in tbl (the table of an object, a node
// or the root). coerceString makes a non-string TOML scalar written bare
// (true, 12) a string, for string and link fields.
func (o *Override) apply(tbl map[string]any, coerceString bool) error {
	v := o.value
	if coerceString && !o.bare {
		switch v.(type) {
		case bool, int64, float64:
			v = o.Value
		}
	}
	var cur any = tbl
	where := o.steps[0]
	for i, st := range o.steps {
		lastStep := i == len(o.steps)-1
		if strings.HasPrefix(st, "[") {
			idx, _ := strconv.Atoi(st[1 : len(st)-1])
			items, ok := cur.([]any)
			if !ok {
				if m, isTables := cur.([]map[string]any); isTables {
					if idx >= len(m) {
						return fmt.Errorf("%s has %d entries in the scene; index %d is out of range", where, len(m), idx)
					}
					if lastStep {
						t, ok := v.(map[string]any)
						if !ok {
							return fmt.Errorf("%s%s: want a table, got %s", where, st, describe(v))
						}
						m[idx] = t
						return nil
					}
					cur = m[idx]
					where += st
					continue
				}
				return fmt.Errorf("%s is not a list in the scene, so %s%s cannot be set (set the whole %s)", where, where, st, where)
			}
			if idx >= len(items) {
				return fmt.Errorf("%s has %d entries in the scene; index %d is out of range", where, len(items), idx)
			}
			if lastStep {
				items[idx] = v
				return nil
			}
			cur = items[idx]
			where += st
			continue
		}
		key := strings.TrimPrefix(st, ".")
		m, ok := cur.(map[string]any)
		if !ok {
			return fmt.Errorf("%s is not a table in the scene, so %s%s cannot be set (set the whole %s)", where, where, st, where)
		}
		if i > 0 {
			where += st
		}
		if lastStep {
			m[key] = v
			return nil
		}
		next, given := m[key]
		if !given {
			if strings.HasPrefix(o.steps[i+1], "[") {
				return fmt.Errorf("%s is not given in the scene, so %s cannot be set by index (set the whole %s)", where, o.Path, where)
			}
			next = map[string]any{}
			m[key] = next
		}
		cur = next
	}
	return nil
}

// overrides is the set of overrides one load applies.
type overrides struct {
	list []*Override
}

// forObject returns the overrides of the object name in node n, in order.
func (ov *overrides) forTarget(n *Node, name string) []*Override {
	if ov == nil {
		return nil
	}
	var out []*Override
	p := n.Path()
	for _, o := range ov.list {
		if o.head != "" && o.head == name && o.nodePath == p {
			out = append(out, o)
		}
	}
	return out
}

// rootKeys returns the root-key overrides.
func (ov *overrides) rootKeys() []*Override {
	if ov == nil {
		return nil
	}
	var out []*Override
	for _, o := range ov.list {
		if o.head == "" {
			out = append(out, o)
		}
	}
	return out
}

// LoadFileWith is LoadFile with overrides applied, in order (a later one
// wins over an earlier one of the same path).
func LoadFileWith(file string, ovs []Override) (*Scene, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, &Error{File: file, Err: fmt.Errorf("cannot read scene: %w", unwrapPathError(err))}
	}
	return LoadWith(file, data, ovs)
}

// LoadWith is Load with overrides applied.
func LoadWith(file string, data []byte, ovs []Override) (*Scene, error) {
	set := &overrides{}
	for i := range ovs {
		o := ovs[i] // a copy: the caller's slice is not marked
		if o.steps == nil {
			if err := o.parse(); err != nil {
				return nil, &Error{File: file, Err: err}
			}
		}
		o.used = 0
		set.list = append(set.list, &o)
	}
	return load(file, data, set)
}

// checkOverridesUsed reports the first override that matched nothing, with
// the closest names at the point where its path stops matching.
func (l *loader) checkOverridesUsed() error {
	if l.ov == nil {
		return nil
	}
	for _, o := range l.ov.list {
		if o.used > 1 {
			return &Error{File: l.file, Err: o.fail(fmt.Errorf("%q names both an object and a child node of %q; rename one of them", o.head, displayPathString(o.nodePath)))}
		}
		if o.used > 0 || o.head == "" {
			continue
		}
		n := l.scene.Root
		if o.nodePath != "" {
			for _, seg := range strings.Split(o.nodePath, "/") {
				c := n.Child(seg)
				if c == nil {
					msg := fmt.Sprintf("node %q has no child node %q", displayPath(n), seg)
					var names []string
					for _, k := range n.Children {
						names = append(names, k.Name)
					}
					if s := closest(seg, names); s != "" {
						msg += fmt.Sprintf(" (did you mean %q?)", s)
					} else if len(names) > 0 {
						msg += " (children: " + strings.Join(names, ", ") + ")"
					}
					return &Error{File: l.file, Err: o.fail(errors.New(msg))}
				}
				n = c
			}
		}
		msg := fmt.Sprintf("node %q has no object named %q", displayPath(n), o.head)
		var names []string
		for _, ob := range n.Objects {
			names = append(names, ob.Base().Name)
		}
		if c := n.Child(o.head); c != nil {
			msg = fmt.Sprintf("%q is a node, whose only key besides its objects and children is gravity", c.Path())
		} else if s := closest(o.head, names); s != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", s)
		} else if len(names) > 0 {
			msg += " (objects: " + strings.Join(names, ", ") + ")"
		}
		return &Error{File: l.file, Err: o.fail(errors.New(msg))}
	}
	return nil
}

func displayPathString(p string) string {
	if p == "" {
		return "/"
	}
	return p
}

// stringField reports whether the field key of obj holds strings or links
// (at any list depth), for which a bare override value is a string.
func stringField(obj Object, key string) bool {
	fields, err := fieldsOf(obj)
	if err != nil {
		return false
	}
	for _, f := range fields {
		if f.Name != key {
			continue
		}
		t := f.typ
		for t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
			t = t.Elem()
		}
		return t == linkType || t.Kind() == reflect.String
	}
	return false
}
