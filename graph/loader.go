package graph

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/sofago/sofago/geom"
)

// LoadFile reads and builds the scene in file (TOML; the format is the README's "Scene format" section and `runscene -doc scene`).
// It does not initialise it: call Scene.Init. Every error is an *Error with
// the file, the line where one exists, the node path and the object.
func LoadFile(file string) (*Scene, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, &Error{File: file, Err: fmt.Errorf("cannot read scene: %w", unwrapPathError(err))}
	}
	return Load(file, data)
}

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Dir returns the folder of the scene file, against which file names in the
// scene are resolved.
func (s *Scene) Dir() string { return filepath.Dir(s.File) }

// ResolvePath returns name relative to the scene file's folder (absolute
// names are kept).
func (s *Scene) ResolvePath(name string) string {
	if filepath.IsAbs(name) || s.File == "" {
		return name
	}
	return filepath.Join(s.Dir(), name)
}

// Load builds a scene from TOML text; file names it in errors and anchors
// relative file names.
func Load(file string, data []byte) (*Scene, error) {
	return load(file, data, nil)
}

// load builds a scene with overrides (nil: none) applied to the parsed
// tree as the loader reaches their targets.
func load(file string, data []byte, ov *overrides) (*Scene, error) {
	var doc map[string]any
	if _, err := toml.Decode(string(data), &doc); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, &Error{File: file, Line: pe.Position.Line, Err: fmt.Errorf("TOML syntax: %s", pe.Message)}
		}
		return nil, &Error{File: file, Err: fmt.Errorf("TOML: %v", err)}
	}
	lines := indexLines(string(data))
	s := NewScene(file)
	l := &loader{file: file, scene: s, ov: ov}
	if err := l.root(doc, lines); err != nil {
		return nil, err
	}
	if err := l.checkOverridesUsed(); err != nil {
		return nil, err
	}
	if err := l.resolveLinks(); err != nil {
		return nil, err
	}
	if err := l.notEmpty(); err != nil {
		return nil, err
	}
	return s, nil
}

// notEmpty refuses a scene with nothing in it: no [[node]] at all (an empty
// file, or only dt, gravity and steps), or nodes without a single
// [[node.object]]. Such a scene would "run" and do nothing.
func (l *loader) notEmpty() error {
	s := l.scene
	if len(s.Root.Children) == 0 {
		return l.errAt(1, nil, "", "", "the scene has no [[node]]: nothing to simulate (a scene needs a node with a MechanicalObject, a mass and an ODE solver; runscene -list shows the components)")
	}
	if len(l.objects) == 0 {
		first := s.Root.Children[0]
		return l.errAt(first.Line, first, "", "", "no node of the scene has an object ([[node.object]]): nothing to simulate")
	}
	return nil
}

type loader struct {
	file    string
	scene   *Scene
	objects []loadedObject
	ov      *overrides
}

type loadedObject struct {
	obj   Object
	lines *lineRecord
	ov    map[string]*Override // the overridden keys of this object
}

// overridden turns err, about a key an override set, into an error naming
// the override (and no line: the value is not in the file).
func overridden(err error, o *Override, line int) error {
	var e *Error
	if errors.As(err, &e) {
		return &Error{File: e.File, Line: line, Node: e.Node, Object: e.Object, Type: e.Type, Err: o.fail(e.Err)}
	}
	return o.fail(err)
}

func (l *loader) errAt(line int, n *Node, obj string, typ string, format string, args ...any) error {
	e := &Error{File: l.file, Line: line, Object: obj, Type: typ, Err: fmt.Errorf(format, args...)}
	if n != nil {
		e.Node = n.Path()
	}
	return e
}

func (l *loader) root(doc map[string]any, rec *lineRecord) error {
	byKey := map[string]*Override{}
	for _, o := range l.ov.rootKeys() {
		if err := o.apply(doc, false); err != nil {
			return &Error{File: l.file, Err: o.fail(err)}
		}
		o.used++
		byKey[o.key()] = o
	}
	keys := sortedKeys(doc, rec)
	for _, k := range keys {
		if err := l.rootKey(k, doc[k], rec); err != nil {
			if o := byKey[k]; o != nil {
				return overridden(err, o, 0)
			}
			return err
		}
	}
	return nil
}

// rootKey reads one key of the root table.
func (l *loader) rootKey(k string, v any, rec *lineRecord) error {
	s := l.scene
	line := rec.keyLine(k)
	switch key, known := findSceneKey(k); {
	case k == "node":
		nodes, ok := tables(v)
		if !ok {
			return l.errAt(line, nil, "", "", "node must be an array of tables ([[node]]), got %s", describe(v))
		}
		for i, nd := range nodes {
			if err := l.node(s.Root, nd, rec.child("node", i), i); err != nil {
				return err
			}
		}
	case known:
		if err := key.set(s, v); err != nil {
			return l.errAt(line, nil, "", "", "%v", err)
		}
	default:
		names := sceneKeyNames()
		msg := fmt.Sprintf("unknown top-level key %q (known: %s; runscene -doc scene documents them)", k, strings.Join(names, ", "))
		if c := closest(k, names); c != "" {
			msg = fmt.Sprintf("unknown top-level key %q (did you mean %q?)", k, c)
		}
		return l.errAt(line, nil, "", "", "%s", msg)
	}
	return nil
}

func (l *loader) node(parent *Node, tbl map[string]any, rec *lineRecord, index int) error {
	name := fmt.Sprintf("node%d", index+1)
	explicit := false
	if v, ok := tbl["name"]; ok {
		sv, isStr := v.(string)
		if !isStr || sv == "" || strings.ContainsAny(sv, "/@") {
			return l.errAt(rec.keyLine("name"), parent, "", "", "node name must be a non-empty string without '/' or '@', got %s", describe(v))
		}
		name, explicit = sv, true
	}
	if other := parent.Child(name); other != nil {
		if explicit {
			return l.errAt(rec.keyLine("name"), parent, "", "", "duplicate node name %q (also at line %d)", name, other.Line)
		}
		name = fmt.Sprintf("%s_%d", name, index+1)
	}
	n := parent.AddChild(name)
	n.Line = rec.line
	byKey := map[string]*Override{}
	for _, o := range l.ov.forTarget(parent, name) {
		if o.key() != "gravity" {
			continue // not a node key: checkOverridesUsed explains
		}
		if err := o.apply(tbl, false); err != nil {
			return l.errAt(rec.line, n, "", "", "%w", o.fail(err))
		}
		o.used++
		byKey[o.key()] = o
	}
	for _, k := range sortedKeys(tbl, rec) {
		if err := l.nodeKey(n, k, tbl[k], rec); err != nil {
			if o := byKey[k]; o != nil {
				return overridden(err, o, rec.line)
			}
			return err
		}
	}
	return nil
}

// nodeKey reads one key of a node's table.
func (l *loader) nodeKey(n *Node, k string, v any, rec *lineRecord) error {
	switch k {
	case "name":
	case "gravity":
		g, err := vec3(v)
		if err != nil {
			return l.errAt(rec.keyLine(k), n, "", "", "gravity: %v", err)
		}
		n.GravityOverride = &g
	case "object":
		objs, ok := tables(v)
		if !ok {
			return l.errAt(rec.keyLine(k), n, "", "", "object must be an array of tables ([[node.object]]), got %s", describe(v))
		}
		for i, o := range objs {
			if err := l.object(n, o, rec.child("object", i)); err != nil {
				return err
			}
		}
	case "node":
		kids, ok := tables(v)
		if !ok {
			return l.errAt(rec.keyLine(k), n, "", "", "node must be an array of tables ([[node.node]]), got %s", describe(v))
		}
		for i, c := range kids {
			if err := l.node(n, c, rec.child("node", i), i); err != nil {
				return err
			}
		}
	default:
		msg := fmt.Sprintf("unknown node key %q (a node has name, gravity, object, node; component fields go in [[node.object]] tables)", k)
		if c := closest(k, []string{"name", "gravity", "object", "node"}); c != "" {
			msg = fmt.Sprintf("unknown node key %q (did you mean %q?)", k, c)
		}
		return l.errAt(rec.keyLine(k), n, "", "", "%s", msg)
	}
	return nil
}

func (l *loader) object(n *Node, tbl map[string]any, rec *lineRecord) error {
	line := rec.line
	tv, ok := tbl["type"]
	if !ok {
		return l.errAt(line, n, "", "", "object has no type (every [[node.object]] needs type = \"...\")")
	}
	typ, ok := tv.(string)
	if !ok {
		return l.errAt(rec.keyLine("type"), n, "", "", "type must be a string, got %s", describe(tv))
	}
	info, ok := Lookup(typ)
	if !ok {
		return l.errAt(rec.keyLine("type"), n, "", "", "%s", UnknownType(typ))
	}
	name, explicit := typ, false
	if nv, ok := tbl["name"]; ok {
		s, isStr := nv.(string)
		if !isStr || s == "" || strings.ContainsAny(s, "/@") {
			return l.errAt(rec.keyLine("name"), n, "", typ, "object name must be a non-empty string without '/' or '@', got %s", describe(nv))
		}
		name, explicit = s, true
	}
	if other := n.Object(name); other != nil {
		if explicit {
			return l.errAt(rec.keyLine("name"), n, name, typ, "duplicate object name %q in this node (also at line %d)", name, other.Base().Line)
		}
		for i := 2; n.Object(name) != nil; i++ {
			name = fmt.Sprintf("%s%d", typ, i)
		}
	}
	obj := info.New()
	b := obj.Base()
	b.Name, b.TypeName, b.File, b.Line = name, typ, l.file, line
	fields := map[string]any{}
	for k, v := range tbl {
		if k != "type" && k != "name" {
			fields[k] = v
		}
	}
	n.Add(obj)
	b.File, b.Line = l.file, line
	// Overrides set their keys in fields; an error about such a key names
	// the override and the object's line (the value is not in the file).
	var ov map[string]*Override
	for _, o := range l.ov.forTarget(n, name) {
		if err := o.apply(fields, stringField(obj, o.key())); err != nil {
			return l.errAt(line, n, name, typ, "%w", o.fail(err))
		}
		o.used++
		if ov == nil {
			ov = map[string]*Override{}
		}
		ov[o.key()] = o
	}
	keyLine := rec.keyLine
	if ov != nil {
		keyLine = func(k string) int {
			if ov[k] != nil {
				return rec.line
			}
			return rec.keyLine(k)
		}
	}
	fail := func(key string, err error) error {
		if o := ov[key]; o != nil {
			return l.errAt(line, n, name, typ, "%w", o.fail(err))
		}
		if len(ov) > 0 {
			// An error about no one key (a check across fields) may come
			// from an override all the same: say which ones apply.
			var names []string
			for _, o := range l.ov.forTarget(n, name) {
				names = append(names, o.String())
			}
			return l.errAt(line, n, name, typ, "%v (this object has %s)", err, strings.Join(names, ", "))
		}
		return l.errAt(line, n, name, typ, "%v", err)
	}
	if err := decodeFields(obj, fields, keyLine); err != nil {
		var ke *keyError
		key := ""
		if errors.As(err, &ke) {
			key = ke.key
			if ke.line > 0 {
				line = ke.line
			}
		}
		return fail(key, err)
	}
	if v, ok := obj.(Validator); ok {
		if err := v.Validate(); err != nil {
			// A Validate error about one field (a *keyError with its key)
			// points at that field's line.
			var ke *keyError
			key := ""
			if errors.As(err, &ke) && ke.key != "" {
				key = ke.key
				line = keyLine(ke.key)
			}
			return fail(key, err)
		}
	}
	l.objects = append(l.objects, loadedObject{obj, rec, ov})
	return nil
}

// resolveLinks resolves every Link field once the whole tree exists, so a
// link may point to an object declared later.
func (l *loader) resolveLinks() error {
	for _, lo := range l.objects {
		obj := lo.obj
		fields, _ := fieldsOf(obj)
		root := reflect.ValueOf(obj).Elem()
		for _, f := range fields {
			err := walkLinks(root.FieldByIndex(f.index), func(lk *Link) error {
				if !lk.IsSet() {
					return nil
				}
				o, nd, err := obj.Base().Node.Resolve(lk.Path)
				if err != nil {
					return err
				}
				lk.Object, lk.Node = o, nd
				return nil
			})
			if err != nil {
				b := obj.Base()
				if o := lo.ov[f.Name]; o != nil {
					return l.errAt(lo.lines.line, b.Node, b.Name, b.TypeName, "%w", o.fail(fmt.Errorf("%s: %v", f.Name, err)))
				}
				return l.errAt(lo.lines.keyLine(f.Name), b.Node, b.Name, b.TypeName, "%s: %v", f.Name, err)
			}
		}
	}
	return nil
}

func sortedKeys(m map[string]any, rec *lineRecord) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		li, lj := rec.keyLine(keys[i]), rec.keyLine(keys[j])
		if li != lj {
			return li < lj
		}
		return keys[i] < keys[j]
	})
	return keys
}

func tables(v any) ([]map[string]any, bool) {
	switch t := v.(type) {
	case []map[string]any:
		return t, true
	case []any:
		out := make([]map[string]any, len(t))
		for i, x := range t {
			m, ok := x.(map[string]any)
			if !ok {
				return nil, false
			}
			out[i] = m
		}
		return out, true
	}
	return nil, false
}

func number(v any) (float64, error) {
	switch x := v.(type) {
	case int64:
		return float64(x), nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return 0, fmt.Errorf("not finite")
		}
		return x, nil
	}
	return 0, fmt.Errorf("not a number")
}

func vec3(v any) (geom.Vec3, error) {
	items, ok := v.([]any)
	if !ok || len(items) != 3 {
		return geom.Vec3{}, fmt.Errorf("want 3 numbers [x, y, z], got %s", describe(v))
	}
	var g geom.Vec3
	for i, it := range items {
		x, err := number(it)
		if err != nil {
			return geom.Vec3{}, fmt.Errorf("component %d: want a finite number, got %s", i, describe(it))
		}
		g[i] = x
	}
	return g, nil
}

// lineRecord remembers where a table and its keys are in the file, mirroring
// the [[node]] / [[node.object]] / [[node.node]] structure, so errors can
// name lines (the TOML decoder does not expose them).
type lineRecord struct {
	line     int
	keys     map[string]int
	children map[string][]*lineRecord // "node", "object"
}

func newRecord(line int) *lineRecord {
	return &lineRecord{line: line, keys: map[string]int{}, children: map[string][]*lineRecord{}}
}

func (r *lineRecord) keyLine(k string) int {
	if r == nil {
		return 0
	}
	if l, ok := r.keys[k]; ok {
		return l
	}
	return r.line
}

// child returns the record of the i-th [[...kind]] table under r. Tables
// written inline (node = [{...}]) have no record of their own: they get an
// empty one located at the line of the key that holds them.
func (r *lineRecord) child(kind string, i int) *lineRecord {
	if r == nil {
		return newRecord(0)
	}
	if i >= len(r.children[kind]) {
		return newRecord(r.keyLine(kind))
	}
	return r.children[kind][i]
}

// indexLines scans TOML text for array-of-table headers made of "node" and
// "object" segments and for the keys under them. Anything it does not
// understand (inline tables, other headers) just leaves lines unknown.
func indexLines(text string) *lineRecord {
	root := newRecord(0)
	cur := root
	depth := 0    // bracket depth of a multi-line value
	inMulti := "" // inside a multi-line string: its delimiter
	for i, raw := range strings.Split(text, "\n") {
		lineNo := i + 1
		line := raw
		if inMulti != "" {
			if idx := strings.Index(line, inMulti); idx >= 0 {
				line = line[idx+3:]
				inMulti = ""
			} else {
				continue
			}
		}
		code, multi, delta := scanCode(line)
		if depth == 0 {
			t := strings.TrimSpace(code)
			switch {
			case strings.HasPrefix(t, "[["):
				end := strings.Index(t, "]]")
				if end < 0 {
					break
				}
				cur = attachHeader(root, strings.TrimSpace(t[2:end]), lineNo)
			case strings.HasPrefix(t, "["):
				// A plain table: not part of the scene structure; remember
				// where it is so an error about it has a line.
				if end := strings.Index(t, "]"); end > 0 {
					noteHeader(root, strings.TrimSpace(t[1:end]), lineNo)
				}
				cur = nil
			default:
				if eq := strings.Index(t, "="); eq > 0 && cur != nil {
					key := strings.TrimSpace(t[:eq])
					if dot := strings.Index(key, "."); dot >= 0 {
						key = key[:dot]
					}
					key = strings.Trim(key, `"'`)
					if _, seen := cur.keys[key]; !seen {
						cur.keys[key] = lineNo
					}
				}
			}
		}
		depth += delta
		if depth < 0 {
			depth = 0
		}
		inMulti = multi
	}
	return root
}

func attachHeader(root *lineRecord, path string, line int) *lineRecord {
	segs := strings.Split(path, ".")
	cur := root
	for i, s := range segs {
		s = strings.TrimSpace(s)
		if s != "node" && !(s == "object" && i == len(segs)-1) {
			noteHeader(root, path, line)
			return nil
		}
		if i == len(segs)-1 {
			r := newRecord(line)
			cur.children[s] = append(cur.children[s], r)
			return r
		}
		kids := cur.children["node"]
		if len(kids) == 0 {
			return nil
		}
		cur = kids[len(kids)-1]
	}
	return nil
}

// noteHeader records a header the scene structure does not know ([node],
// [[nodes]], [[node.objects]]) as a key of the table it would belong to, so
// the "unknown key" error it causes names its line.
func noteHeader(root *lineRecord, path string, line int) {
	segs := strings.Split(path, ".")
	cur := root
	for _, s := range segs {
		s = strings.TrimSpace(s)
		kids := cur.children["node"]
		if s == "node" && len(kids) > 0 && len(segs) > 1 {
			cur = kids[len(kids)-1]
			segs = segs[1:]
			continue
		}
		if _, seen := cur.keys[s]; !seen {
			cur.keys[s] = line
		}
		return
	}
}

// scanCode returns the line without its comment, the multi-line string
// delimiter left open at its end ("" if none) and the change of bracket
// depth outside strings.
func scanCode(line string) (code string, openMulti string, delta int) {
	var b strings.Builder
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '#':
			return b.String(), "", delta
		case strings.HasPrefix(line[i:], `"""`) || strings.HasPrefix(line[i:], `'''`):
			delim := line[i : i+3]
			end := strings.Index(line[i+3:], delim)
			if end < 0 {
				return b.String(), delim, delta
			}
			b.WriteString(`""`)
			i += 3 + end + 2
		case c == '"' || c == '\'':
			j := i + 1
			for j < len(line) && line[j] != c {
				if c == '"' && line[j] == '\\' {
					j++
				}
				j++
			}
			b.WriteString(line[i:min(j+1, len(line))])
			i = j
		case c == '[' || c == '{':
			delta++
			b.WriteByte(c)
		case c == ']' || c == '}':
			delta--
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), "", delta
}
