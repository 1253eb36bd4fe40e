package graph_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sofago/sofago/graph"
)

// loaderThing is a test-only component with one field of each checked
// kind: required with a range, enum, link, fixed-size array, integer list.
type loaderThing struct {
	graph.ObjectBase
	Stiffness float64    `toml:"stiffness" doc:"a stiffness" unit:"N/m" range:"(0,inf)" required:"true"`
	Method    string     `toml:"method" doc:"a method" enum:"small,large"`
	Target    graph.Link `toml:"target" doc:"another object"`
	Box       [6]float64 `toml:"box" doc:"a box" unit:"m"`
	Indices   []int      `toml:"indices" doc:"some indices" range:"[0,inf)"`
}

// loaderMass is a test-only mass-kind component whose Init reads the size
// of its node's state, so it only works if states are initialised first,
// wherever the mass is declared.
type loaderMass struct {
	graph.ObjectBase
	PerDOF float64 `toml:"perDOF" doc:"mass per DOF" unit:"kg" range:"(0,inf)"`

	size int
}

func (m *loaderMass) Init() error {
	st := m.Node.State()
	if st == nil {
		return m.Errorf("needs a mechanical state in the same node")
	}
	if st.Size() == 0 {
		return m.Errorf("state %q is empty at Init", st.Base().Name)
	}
	m.size = st.Size()
	return nil
}

func init() {
	graph.Register(graph.TypeInfo{
		Name: "LoaderTestThing", Kind: graph.KindBehavior, Summary: "test only",
		New: func() graph.Object { return &loaderThing{Method: "small"} },
	})
	graph.Register(graph.TypeInfo{
		Name: "LoaderTestMass", Kind: graph.KindMass, Summary: "test only",
		New: func() graph.Object { return &loaderMass{PerDOF: 1} },
	})
}

// markedLine returns the 1-based line of text holding the marker "# <-",
// where a case expects its error.
func markedLine(text string) int {
	for i, l := range strings.Split(text, "\n") {
		if strings.Contains(l, "# <-") {
			return i + 1
		}
	}
	return 0
}

// TestMalformedScenes loads scenes with one mistake each and checks the
// error: "file:line: " with the line marked "# <-" in the scene (or
// "file: " where no line exists), and substrings naming the node, the
// object and the problem. Errors that need Init (sizes known only then)
// are checked after Init.
func TestMalformedScenes(t *testing.T) {
	const file = "bad.toml"
	cases := []struct {
		name  string
		text  string
		init  bool // the error comes from Init, not Load
		wants []string
	}{
		{"unknown type", `
[[node]]
name = "beam"
  [[node.object]]
  type = "MechanicalObjet"   # <-
`, false, []string{`node "beam"`, `unknown component type "MechanicalObjet" (did you mean "MechanicalObject"?)`}},

		{"unknown type without a close name", `
[[node]]
name = "beam"
  [[node.object]]
  type = "Zzyzx"   # <-
`, false, []string{`node "beam"`, `unknown component type "Zzyzx"; runscene -list`}},

		{"unknown key", `
[[node]]
name = "beam"
  [[node.object]]
  type = "LoaderTestThing"
  name = "spring"
  stifness = 3   # <-
`, false, []string{`node "beam", object "spring" (LoaderTestThing)`, `unknown field "stifness" (did you mean "stiffness"?)`}},

		{"wrong value type", `
[[node]]
name = "beam"
  [[node.object]]
  type = "LoaderTestThing"
  stiffness = "stiff"   # <-
`, false, []string{`object "LoaderTestThing"`, `stiffness: want a number, got string "stiff"`}},

		{"missing required field", `
[[node]]
name = "beam"
  [[node.object]]   # <-
  type = "LoaderTestThing"
  name = "spring"
  method = "large"
`, false, []string{`node "beam", object "spring"`, `missing required field "stiffness"`}},

		{"out of range", `
[[node]]
name = "beam"
  [[node.object]]
  type = "LoaderTestThing"
  name = "spring"
  stiffness = -1   # <-
`, false, []string{`object "spring"`, "stiffness = -1 is out of range (0,inf)"}},

		{"range on every element of a list", `
[[node]]
name = "beam"
  [[node.object]]
  type = "LoaderTestThing"
  stiffness = 1
  indices = [0, 3, -2]   # <-
`, false, []string{"indices[2] = -2 is out of range [0,inf)"}},

		{"integer field given a fraction", `
[[node]]
name = "beam"
  [[node.object]]
  type = "LoaderTestThing"
  stiffness = 1
  indices = [1.5]   # <-
`, false, []string{"indices[0]: want an integer, got 1.5"}},

		{"NaN in a vector", `
[[node]]
name = "beam"
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  position = [[0, 0, 0],   # <-
              [nan, 0, 0]]
`, false, []string{`node "beam", object "dofs" (MechanicalObject)`, "position[1][0]: want a finite number, got NaN"}},

		{"NaN scalar", `
[[node]]
name = "beam"
  [[node.object]]
  type = "LoaderTestThing"
  stiffness = nan   # <-
`, false, []string{"stiffness: want a finite number, got NaN"}},

		{"+inf in an array", `
[[node]]
name = "beam"
  [[node.object]]
  type = "LoaderTestThing"
  stiffness = 1
  box = [0, 0, 0, inf, 1, 1]   # <-
`, false, []string{"box[3]: want a finite number, got +Inf"}},

		{"-inf gravity", `
dt = 0.01
gravity = [0, -inf, 0]   # <-
`, false, []string{"gravity: component 1: want a finite number"}},

		{"node gravity of wrong length", `
[[node]]
name = "moon"
gravity = [0, -1.62]   # <-
`, false, []string{`node "moon"`, "gravity: want 3 numbers [x, y, z], got array of 2"}},

		{"dangling link", `
[[node]]
name = "beam"
  [[node.object]]
  type = "LoaderTestThing"
  name = "spring"
  stiffness = 1
  target = "@../nowhere/dofs"   # <-
`, false, []string{`node "beam", object "spring"`, `target: link "@../nowhere/dofs" points nowhere: node "/" has no child "nowhere"`}},

		{"dangling link with a close name", `
[[node]]
name = "beam"
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[node.object]]
  type = "LoaderTestThing"
  stiffness = 1
  target = "@dof"   # <-
`, false, []string{`object "LoaderTestThing"`, `link "@dof" points nowhere: node "beam" has no object or child named "dof" (did you mean "dofs"?)`}},

		{"link above the root", `
[[node]]
name = "beam"
  [[node.object]]
  type = "LoaderTestThing"
  stiffness = 1
  target = "@../../x"   # <-
`, false, []string{`link "@../../x" goes above the root`}},

		{"link that is not a link", `
[[node]]
name = "beam"
  [[node.object]]
  type = "LoaderTestThing"
  stiffness = 1
  target = "dofs"   # <-
`, false, []string{`target: want a link "@path/name", got string "dofs"`}},

		{"duplicate object name", `
[[node]]
name = "beam"
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[node.object]]
  type = "LoaderTestThing"
  name = "dofs"   # <-
  stiffness = 1
`, false, []string{`node "beam", object "dofs" (LoaderTestThing)`, `duplicate object name "dofs" in this node (also at line 4)`}},

		{"duplicate node name", `
[[node]]
name = "beam"
[[node]]
name = "beam"   # <-
`, false, []string{`duplicate node name "beam" (also at line 2)`}},

		{"duplicate child node name, full path", `
[[node]]
name = "beam"
  [[node.node]]
  name = "surface"
  [[node.node]]
  name = "surface"   # <-
`, false, []string{`node "beam"`, `duplicate node name "surface" (also at line 4)`}},

		{"error in a grandchild names the full path", `
[[node]]
name = "beam"
  [[node.node]]
  name = "surface"
    [[node.node.object]]
    type = "LoaderTestThing"
    name = "spring"
    stiffness = 0   # <-
`, false, []string{`node "beam/surface", object "spring"`, "stiffness = 0 is out of range (0,inf)"}},

		{"TOML syntax error", `
dt = 0.01
[[node]]
name = "beam
`, false, []string{"TOML syntax"}},

		{"bad enum value", `
[[node]]
name = "beam"
  [[node.object]]
  type = "LoaderTestThing"
  stiffness = 1
  method = "larg"   # <-
`, false, []string{`method = "larg" is not one of small, large (did you mean "large"?)`}},

		{"wrong array length", `
[[node]]
name = "beam"
  [[node.object]]
  type = "LoaderTestThing"
  stiffness = 1
  box = [0, 0, 0, 1, 1]   # <-
`, false, []string{"box: want 6 values, got 5"}},

		{"negative steps", `
dt = 0.01
steps = -3   # <-
`, false, []string{"steps must be a non-negative integer, got integer -3"}},

		{"fractional steps", `
steps = 2.5   # <-
`, false, []string{"steps must be a non-negative integer, got number 2.5"}},

		{"zero dt", `
dt = 0   # <-
`, false, []string{"dt must be a positive number of seconds, got integer 0"}},

		{"negative dt", `
steps = 3
dt = -0.01   # <-
`, false, []string{"dt must be a positive number of seconds, got number -0.01"}},

		{"bad top-level key", `
dt = 0.01
grvity = [0, -9.81, 0]   # <-
`, false, []string{`unknown top-level key "grvity" (did you mean "gravity"?)`}},

		{"bad node key", `
[[node]]
name = "beam"
objects = 3   # <-
`, false, []string{`node "beam"`, `unknown node key "objects" (did you mean "object"?)`}},

		{"node table instead of array of tables", `
[node]   # <-
name = "beam"
`, false, []string{`node must be an array of tables ([[node]])`}},

		{"misspelt array-of-tables header", `
dt = 0.01
[[nodes]]   # <-
name = "beam"
`, false, []string{`unknown top-level key "nodes" (did you mean "node"?)`}},

		{"misspelt object header", `
[[node]]
name = "beam"
  [[node.objects]]   # <-
  type = "MechanicalObject"
`, false, []string{`node "beam"`, `unknown node key "objects" (did you mean "object"?)`}},

		{"object without type", `
[[node]]
name = "beam"
  [[node.object]]   # <-
  name = "dofs"
  position = [[0, 0, 0]]
`, false, []string{`node "beam"`, `object has no type`}},

		{"object name with a slash", `
[[node]]
name = "beam"
  [[node.object]]
  type = "MechanicalObject"
  name = "a/b"   # <-
`, false, []string{`object name must be a non-empty string without '/' or '@'`}},

		{"unknown template", `
[[node]]
name = "beam"
  [[node.object]]
  type = "MechanicalObject"
  template = "Vec4"   # <-
`, false, []string{`object "MechanicalObject"`, `unknown template "Vec4" (did you mean "Vec1"?); known: Affine3, F331, F332, Quadratic3, Rigid3, Vec1, Vec3 (SOFA's Vec1d, Vec3d`}},

		{"position with the wrong arity (Init)", `
[[node]]
name = "beam"
  [[node.object]]   # <-
  type = "MechanicalObject"
  name = "dofs"
  position = [[0, 0, 0], [1, 0]]
`, true, []string{`node "beam", object "dofs"`, "position[1] has 2 numbers, want 3"}},

		{"Rigid3 velocity with the wrong arity (Init)", `
[[node]]
name = "body"
  [[node.object]]   # <-
  type = "MechanicalObject"
  template = "Rigid3"
  position = [[0, 0, 0, 0, 0, 0, 1], [1, 0, 0, 0, 0, 0, 1]]
  velocity = [[0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0]]
`, true, []string{`node "body"`, "velocity[0] has 7 numbers, want 6"}},

		{"position and restPosition disagree (Init)", `
[[node]]
name = "beam"
  [[node.object]]   # <-
  type = "MechanicalObject"
  restPosition = [[0, 0, 0], [1, 0, 0]]
  position = [[0, 0, 0]]
`, true, []string{"position has 1 DOFs but the rest shape (restPosition) has 2"}},

		{"mass without a state (Init)", `
[[node]]
name = "beam"
  [[node.object]]   # <-
  type = "LoaderTestMass"
  name = "m"
`, true, []string{`node "beam", object "m" (LoaderTestMass)`, "needs a mechanical state in the same node"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := graph.Load(file, []byte(c.text))
			if c.init {
				if err != nil {
					t.Fatalf("load failed, the error should come from Init: %v", err)
				}
				err = s.Init()
			}
			if err == nil {
				t.Fatal("no error")
			}
			var se *graph.Error
			if !errors.As(err, &se) {
				t.Errorf("error is a %T, not a *graph.Error", err)
			}
			msg := err.Error()
			line := markedLine(c.text)
			if c.name == "TOML syntax error" {
				line = 4 // the unterminated string; the parser reports its line
			}
			prefix := fmt.Sprintf("%s:%d: ", file, line)
			if !strings.HasPrefix(msg, prefix) {
				t.Errorf("message %q does not start with %q", msg, prefix)
			}
			if strings.Contains(msg, "\n") {
				t.Errorf("message spans several lines: %q", msg)
			}
			for _, w := range c.wants {
				if !strings.Contains(msg, w) {
					t.Errorf("message %q lacks %q", msg, w)
				}
			}
		})
	}
}

// An unreadable file has no line: the message is "file: ...".
func TestLoadFileUnreadable(t *testing.T) {
	p := filepath.Join(t.TempDir(), "missing.toml")
	_, err := graph.LoadFile(p)
	if err == nil {
		t.Fatal("no error")
	}
	if want := p + ": cannot read scene: "; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("message %q does not start with %q", err, want)
	}
	if _, err := graph.LoadFile(t.TempDir()); err == nil || !strings.Contains(err.Error(), "cannot read scene") {
		t.Errorf("a folder as scene: %v", err)
	}
}

// A link may point to an object declared later in the file, in a node
// declared later.
func TestLinkToLaterObject(t *testing.T) {
	text := `
[[node]]
name = "a"
  [[node.object]]
  type = "LoaderTestThing"
  name = "spring"
  stiffness = 1
  target = "@../b/dofs"
  [[node.object]]
  type = "LoaderTestThing"
  name = "self"
  stiffness = 1
  target = "@later"
  [[node.object]]
  type = "LoaderTestThing"
  name = "later"
  stiffness = 1
  target = "@/b"
[[node]]
name = "b"
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  position = [[0, 0, 0]]
`
	s, err := graph.Load("links.toml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Init(); err != nil {
		t.Fatal(err)
	}
	spring := s.Find("a/spring").(*loaderThing)
	if spring.Target.Object != s.Find("b/dofs") || spring.Target.Object == nil {
		t.Errorf("@../b/dofs resolved to %v", spring.Target.Object)
	}
	if spring.Target.Node != s.Root.Child("b") {
		t.Errorf("@../b/dofs: node %v", spring.Target.Node)
	}
	self := s.Find("a/self").(*loaderThing)
	if self.Target.Object != s.Find("a/later") {
		t.Errorf("@later resolved to %v", self.Target.Object)
	}
	later := s.Find("a/later").(*loaderThing)
	if later.Target.Object != nil || later.Target.Node != s.Root.Child("b") {
		t.Errorf("@/b (a node) resolved to object %v, node %v", later.Target.Object, later.Target.Node)
	}
}

// A mass declared before the state it weighs still sees the state
// initialised: Init runs by kind (states before masses), not by
// declaration order.
func TestInitOrderIndependence(t *testing.T) {
	text := `
[[node]]
name = "beam"
  [[node.object]]
  type = "LoaderTestMass"
  name = "m"
  [[node.object]]
  type = "MechanicalObject"
  position = [[0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 0, 0]]
`
	s, err := graph.Load("order.toml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Init(); err != nil {
		t.Fatal(err)
	}
	if m := s.Find("beam/m").(*loaderMass); m.size != 4 {
		t.Errorf("mass saw %d DOFs at Init, want 4", m.size)
	}
}

// Unnamed objects and nodes get unique default names; the fields given are
// decoded and the defaults kept.
func TestDefaultsAndNames(t *testing.T) {
	text := `
dt = 0.005
gravity = [0, 0, -9.81]
steps = 7
[[node]]
  [[node.object]]
  type = "LoaderTestThing"
  stiffness = 2
  [[node.object]]
  type = "LoaderTestThing"
  stiffness = 3
  indices = [4, 5]
[[node]]
`
	s, err := graph.Load("names.toml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if s.Dt != 0.005 || s.Gravity != [3]float64{0, 0, -9.81} || s.Steps != 7 {
		t.Errorf("root: dt %v gravity %v steps %v", s.Dt, s.Gravity, s.Steps)
	}
	if len(s.Root.Children) != 2 || s.Root.Children[0].Name != "node1" || s.Root.Children[1].Name != "node2" {
		t.Fatalf("node names %v", s.Root.Children)
	}
	a, b := s.Find("node1/LoaderTestThing"), s.Find("node1/LoaderTestThing2")
	if a == nil || b == nil {
		t.Fatalf("default object names: %v", s.Root.Children[0].Objects)
	}
	bt := b.(*loaderThing)
	if bt.Stiffness != 3 || bt.Method != "small" || fmt.Sprint(bt.Indices) != "[4 5]" {
		t.Errorf("decoded %+v", bt)
	}
	if a.Base().Line != 6 || b.Base().Line != 9 {
		t.Errorf("object lines %d, %d; want 6, 9", a.Base().Line, b.Base().Line)
	}
}

// Array-of-tables may also be written inline (valid TOML, the same
// document); the loader must accept them, or at least not panic.
//
// Known failure (reported): the line index has no record for inline
// tables, and loader.node / loader.object read rec.line from a nil
// *lineRecord.
func TestLoadInlineTables(t *testing.T) {
	for _, text := range []string{
		`node = [{name = "a", object = [{type = "MechanicalObject", size = 1}]}]`,
		"[[node]]\nname = \"a\"\nobject = [{type = \"MechanicalObject\", position = [[0, 0, 0]]}]\n",
		"[[node]]\nname = \"a\"\nnode = [{name = \"b\", object = [{type = \"MechanicalObject\", position = [[0, 0, 0]]}]}]\n",
	} {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("Load(%q) panicked: %v", text, r)
				}
			}()
			s, err := graph.Load("inline.toml", []byte(text))
			if err != nil {
				t.Errorf("Load(%q): %v", text, err)
				return
			}
			if err := s.Init(); err != nil {
				t.Errorf("Init(%q): %v", text, err)
			}
		}()
	}
}

// The scenes of the repository load (with their component types absent
// here, only unknown-type errors are allowed) and never panic.
func TestRepositoryScenesParse(t *testing.T) {
	files, _ := filepath.Glob("../scenes/*.toml")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		_, err = graph.Load(f, data)
		if err != nil && !strings.Contains(err.Error(), "unknown component type") {
			t.Errorf("%s: %v", f, err)
		}
	}
}
