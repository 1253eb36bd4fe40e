package graph

import (
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// Scene fields are the exported struct fields of a component that carry a
// `toml:"name"` tag. Further tags document and check them, so the help text
// (`runscene -doc`) and the validation come from the same declaration:
//
//	doc:"Young's modulus"   what it is
//	unit:"Pa"               SI unit
//	range:"(0,0.5)"         interval for numbers (and every number of a vector); inf allowed
//	enum:"small,large"      allowed strings
//	required:"true"         must be given in the scene
//
// Supported Go types: float64, int, bool, string, Link, slices and fixed
// arrays of those (nested), and structs of tagged fields (TOML tables).

// Link is a reference to another object (or node), written "@path/name" in a
// scene: "@dofs" in the same node, "@../dofs" in the parent, "@child/dofs"
// below, "@/top/dofs" from the root. The loader resolves every link before
// any Init; a link that points nowhere is a load error.
type Link struct {
	Path   string
	Object Object // nil for links to nodes
	Node   *Node  // the node the target lives in (or the node itself)
}

// IsSet reports whether the link was given in the scene.
func (l Link) IsSet() bool { return l.Path != "" }

var linkType = reflect.TypeOf(Link{})

// FieldDoc documents one scene field of a component type.
type FieldDoc struct {
	Name     string
	Type     string
	Doc      string
	Unit     string
	Default  string
	Range    string
	Enum     []string
	Required bool
}

type fieldInfo struct {
	FieldDoc
	index []int
	typ   reflect.Type
	rng   *interval
}

type interval struct {
	lo, hi         float64
	loOpen, hiOpen bool
	text           string
}

func (iv *interval) contains(x float64) bool {
	if x < iv.lo || (iv.loOpen && x == iv.lo) {
		return false
	}
	if x > iv.hi || (iv.hiOpen && x == iv.hi) {
		return false
	}
	return true
}

func parseInterval(s string) (*interval, error) {
	s = strings.TrimSpace(s)
	if len(s) < 5 {
		return nil, fmt.Errorf("bad range %q", s)
	}
	iv := &interval{text: s}
	switch s[0] {
	case '(':
		iv.loOpen = true
	case '[':
	default:
		return nil, fmt.Errorf("bad range %q: must start with ( or [", s)
	}
	switch s[len(s)-1] {
	case ')':
		iv.hiOpen = true
	case ']':
	default:
		return nil, fmt.Errorf("bad range %q: must end with ) or ]", s)
	}
	parts := strings.Split(s[1:len(s)-1], ",")
	if len(parts) != 2 {
		return nil, fmt.Errorf("bad range %q", s)
	}
	var err error
	if iv.lo, err = parseBound(parts[0]); err != nil {
		return nil, err
	}
	if iv.hi, err = parseBound(parts[1]); err != nil {
		return nil, err
	}
	return iv, nil
}

func parseBound(s string) (float64, error) {
	switch strings.TrimSpace(s) {
	case "inf", "+inf":
		return math.Inf(1), nil
	case "-inf":
		return math.Inf(-1), nil
	}
	return strconv.ParseFloat(strings.TrimSpace(s), 64)
}

// fieldsOf lists the scene fields of obj (a pointer to a struct).
func fieldsOf(obj any) ([]*fieldInfo, error) {
	rv := reflect.ValueOf(obj)
	if rv.Kind() != reflect.Pointer || rv.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("component must be a pointer to a struct, got %T", obj)
	}
	return structFields(rv.Elem(), nil)
}

func structFields(v reflect.Value, prefix []int) ([]*fieldInfo, error) {
	t := v.Type()
	var out []*fieldInfo
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		idx := append(append([]int{}, prefix...), i)
		if sf.Anonymous && sf.Type.Kind() == reflect.Struct && sf.Tag.Get("toml") == "" {
			// Embedded helper structs contribute their tagged fields.
			sub, err := structFields(v.Field(i), idx)
			if err != nil {
				return nil, err
			}
			out = append(out, sub...)
			continue
		}
		key := sf.Tag.Get("toml")
		if key == "" || key == "-" {
			continue
		}
		if !sf.IsExported() {
			return nil, fmt.Errorf("field %s has a toml tag but is not exported", sf.Name)
		}
		if key == "type" || key == "name" {
			return nil, fmt.Errorf("field %s: %q is reserved", sf.Name, key)
		}
		fi := &fieldInfo{index: idx, typ: sf.Type}
		fi.Name = key
		fi.Doc = sf.Tag.Get("doc")
		fi.Unit = sf.Tag.Get("unit")
		fi.Required = sf.Tag.Get("required") == "true"
		fi.Type = typeName(sf.Type)
		if e := sf.Tag.Get("enum"); e != "" {
			fi.Enum = strings.Split(e, ",")
		}
		if r := sf.Tag.Get("range"); r != "" {
			iv, err := parseInterval(r)
			if err != nil {
				return nil, fmt.Errorf("field %s: %v", key, err)
			}
			fi.rng, fi.Range = iv, iv.text
		}
		if err := checkSupported(sf.Type); err != nil {
			return nil, fmt.Errorf("field %s: %v", key, err)
		}
		fi.Default = formatValue(v.Field(i))
		out = append(out, fi)
	}
	return out, nil
}

func checkSupported(t reflect.Type) error {
	if t == linkType {
		return nil
	}
	switch t.Kind() {
	case reflect.Float64, reflect.Int, reflect.Bool, reflect.String:
		return nil
	case reflect.Slice, reflect.Array:
		return checkSupported(t.Elem())
	case reflect.Struct:
		_, err := structFields(reflect.New(t).Elem(), nil)
		return err
	}
	return fmt.Errorf("unsupported field type %s", t)
}

func typeName(t reflect.Type) string {
	if t == linkType {
		return "link"
	}
	switch t.Kind() {
	case reflect.Float64:
		return "number"
	case reflect.Int:
		return "integer"
	case reflect.Bool:
		return "bool"
	case reflect.String:
		return "string"
	case reflect.Slice:
		return "[]" + typeName(t.Elem())
	case reflect.Array:
		return fmt.Sprintf("[%d]%s", t.Len(), typeName(t.Elem()))
	case reflect.Struct:
		return "table"
	}
	return t.String()
}

func formatValue(v reflect.Value) string {
	if v.Type() == linkType {
		return v.Interface().(Link).Path
	}
	switch v.Kind() {
	case reflect.String:
		return strconv.Quote(v.String())
	case reflect.Float64:
		return strconv.FormatFloat(v.Float(), 'g', -1, 64)
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.Len() == 0 {
			return "[]"
		}
		parts := make([]string, v.Len())
		for i := range parts {
			parts[i] = formatValue(v.Index(i))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case reflect.Struct:
		return "{...}"
	}
	return fmt.Sprint(v.Interface())
}

// FieldDocs returns the documentation of every scene field of a type, with
// the defaults its constructor sets.
func FieldDocs(t TypeInfo) []FieldDoc {
	fs, _ := fieldsOf(t.New())
	out := make([]FieldDoc, len(fs))
	for i, f := range fs {
		out[i] = f.FieldDoc
	}
	return out
}

// decodeFields assigns the TOML table tbl (without "type" and "name") to
// the fields of obj. Errors name the key; keyLine maps keys to lines.
func decodeFields(obj any, tbl map[string]any, keyLine func(string) int) error {
	fields, err := fieldsOf(obj)
	if err != nil {
		return err
	}
	byName := map[string]*fieldInfo{}
	var names []string
	for _, f := range fields {
		byName[f.Name] = f
		names = append(names, f.Name)
	}
	keys := make([]string, 0, len(tbl))
	for k := range tbl {
		keys = append(keys, k)
	}
	// Report errors in document order.
	sort.Slice(keys, func(i, j int) bool {
		li, lj := keyLine(keys[i]), keyLine(keys[j])
		if li != lj {
			return li < lj
		}
		return keys[i] < keys[j]
	})
	root := reflect.ValueOf(obj).Elem()
	for _, k := range keys {
		f, ok := byName[k]
		if !ok {
			msg := fmt.Sprintf("unknown field %q", k)
			if s := closest(k, names); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			} else if len(names) > 0 {
				msg += " (fields: " + strings.Join(names, ", ") + ")"
			} else {
				msg += " (this type has no fields)"
			}
			return &keyError{key: k, line: keyLine(k), msg: msg}
		}
		if err := assign(root.FieldByIndex(f.index), tbl[k], f, k); err != nil {
			return &keyError{key: k, line: keyLine(k), msg: err.Error()}
		}
	}
	for _, f := range fields {
		if _, given := tbl[f.Name]; f.Required && !given {
			return &keyError{msg: fmt.Sprintf("missing required field %q (%s)", f.Name, f.Doc)}
		}
	}
	return nil
}

type keyError struct {
	key  string
	line int
	msg  string
}

func (e *keyError) Error() string { return e.msg }

func describe(data any) string {
	switch d := data.(type) {
	case string:
		return fmt.Sprintf("string %q", d)
	case int64:
		return fmt.Sprintf("integer %d", d)
	case float64:
		return fmt.Sprintf("number %g", d)
	case bool:
		return fmt.Sprintf("bool %v", d)
	case []any:
		return fmt.Sprintf("array of %d", len(d))
	case []map[string]any:
		return fmt.Sprintf("array of %d tables", len(d))
	case map[string]any:
		return "table"
	}
	return fmt.Sprintf("%T", data)
}

func assign(v reflect.Value, data any, f *fieldInfo, path string) error {
	t := v.Type()
	if t == linkType {
		s, ok := data.(string)
		if !ok || !strings.HasPrefix(s, "@") || len(s) < 2 {
			return fmt.Errorf("%s: want a link \"@path/name\", got %s", path, describe(data))
		}
		v.Set(reflect.ValueOf(Link{Path: s}))
		return nil
	}
	switch t.Kind() {
	case reflect.Float64:
		var x float64
		switch d := data.(type) {
		case int64:
			x = float64(d)
		case float64:
			x = d
		default:
			return fmt.Errorf("%s: want a number, got %s", path, describe(data))
		}
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("%s: want a finite number, got %g", path, x)
		}
		if f.rng != nil && !f.rng.contains(x) {
			return fmt.Errorf("%s = %g is out of range %s", path, x, f.rng.text)
		}
		v.SetFloat(x)
	case reflect.Int:
		var n int64
		switch d := data.(type) {
		case int64:
			n = d
		case float64:
			if d != math.Trunc(d) || math.Abs(d) > 1<<53 {
				return fmt.Errorf("%s: want an integer, got %g", path, d)
			}
			n = int64(d)
		default:
			return fmt.Errorf("%s: want an integer, got %s", path, describe(data))
		}
		if f.rng != nil && !f.rng.contains(float64(n)) {
			return fmt.Errorf("%s = %d is out of range %s", path, n, f.rng.text)
		}
		v.SetInt(n)
	case reflect.Bool:
		b, ok := data.(bool)
		if !ok {
			return fmt.Errorf("%s: want true or false, got %s", path, describe(data))
		}
		v.SetBool(b)
	case reflect.String:
		s, ok := data.(string)
		if !ok {
			return fmt.Errorf("%s: want a string, got %s", path, describe(data))
		}
		if len(f.Enum) > 0 && !contains(f.Enum, s) {
			msg := fmt.Sprintf("%s = %q is not one of %s", path, s, strings.Join(f.Enum, ", "))
			if c := closest(s, f.Enum); c != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", c)
			}
			return fmt.Errorf("%s", msg)
		}
		v.SetString(s)
	case reflect.Slice, reflect.Array:
		items, err := asList(data)
		if err != nil {
			return fmt.Errorf("%s: want an array, got %s", path, describe(data))
		}
		if t.Kind() == reflect.Array {
			if len(items) != t.Len() {
				return fmt.Errorf("%s: want %d values, got %d", path, t.Len(), len(items))
			}
		} else {
			v.Set(reflect.MakeSlice(t, len(items), len(items)))
		}
		for i, it := range items {
			if err := assign(v.Index(i), it, f, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case reflect.Struct:
		tbl, ok := data.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: want a table, got %s", path, describe(data))
		}
		sub := reflect.New(t)
		sub.Elem().Set(v)
		if err := decodeFields(sub.Interface(), tbl, func(string) int { return 0 }); err != nil {
			return fmt.Errorf("%s: %v", path, err)
		}
		v.Set(sub.Elem())
	default:
		return fmt.Errorf("%s: unsupported field type %s", path, t)
	}
	return nil
}

func asList(data any) ([]any, error) {
	switch d := data.(type) {
	case []any:
		return d, nil
	case []map[string]any:
		out := make([]any, len(d))
		for i := range d {
			out[i] = d[i]
		}
		return out, nil
	}
	return nil, fmt.Errorf("not a list")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// eachLink calls fn for every Link field (at any depth) of obj.
func eachLink(obj any, fn func(l *Link) error) error {
	return walkLinks(reflect.ValueOf(obj).Elem(), fn)
}

func walkLinks(v reflect.Value, fn func(l *Link) error) error {
	if v.Type() == linkType {
		return fn(v.Addr().Interface().(*Link))
	}
	switch v.Kind() {
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			if err := walkLinks(v.Index(i), fn); err != nil {
				return err
			}
		}
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			if !t.Field(i).IsExported() {
				continue
			}
			if t.Field(i).Tag.Get("toml") == "" && !t.Field(i).Anonymous {
				continue
			}
			if t.Field(i).Type == reflect.TypeOf(ObjectBase{}) {
				continue
			}
			if err := walkLinks(v.Field(i), fn); err != nil {
				return err
			}
		}
	}
	return nil
}
