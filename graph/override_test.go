package graph_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/sofago/sofago/graph"
)

// overrideThing is a test-only component with a field of every type an
// override can set: number with a range, integer with a range, bool,
// enum, link, vector, list, list of vectors, list of tables.
type overrideThing struct {
	graph.ObjectBase
	Stiffness float64       `toml:"stiffness" doc:"a stiffness" range:"(0,inf)"`
	Count     int           `toml:"count" doc:"a count" range:"[1,100]"`
	Enabled   bool          `toml:"enabled" doc:"a switch"`
	Method    string        `toml:"method" doc:"a method" enum:"small,large,polar"`
	Label     string        `toml:"label" doc:"free text"`
	Target    graph.Link    `toml:"target" doc:"another object"`
	Center    [3]float64    `toml:"center" doc:"a point"`
	Indices   []int         `toml:"indices" doc:"some indices" range:"[0,inf)"`
	Points    [][3]float64  `toml:"points" doc:"some points"`
	Boxes     []overrideBox `toml:"boxes" doc:"some regions"`
}

type overrideBox struct {
	Box    [6]float64 `toml:"box" doc:"xmin ymin zmin xmax ymax zmax"`
	Weight float64    `toml:"weight" doc:"a weight" range:"[0,inf)"`
}

func init() {
	graph.Register(graph.TypeInfo{
		Name: "OverrideTestThing", Kind: graph.KindBehavior, Summary: "test only",
		New: func() graph.Object { return &overrideThing{Method: "small", Count: 1} },
	})
}

// overrideScene has two nodes (one unnamed, so called node2), named and
// unnamed objects, and values of every type given in the file.
const overrideScene = `dt = 0.01
gravity = [0, -9.81, 0]
steps = 20

[[node]]
name = "beam"
gravity = [0, 0, -1]

  [[node.object]]
  type = "OverrideTestThing"
  name = "a"
  stiffness = 5
  count = 3
  method = "large"
  target = "@b"
  center = [1, 2, 3]
  indices = [0, 1, 2]
  points = [[0, 0, 0], [1, 1, 1]]
  boxes = [{box = [0, 0, 0, 1, 1, 1], weight = 1}, {box = [2, 2, 2, 3, 3, 3], weight = 2}]

  [[node.object]]
  type = "OverrideTestThing"
  name = "b"

  [[node.object]]
  type = "OverrideTestThing"

  [[node.node]]
  name = "tip"

    [[node.node.object]]
    type = "OverrideTestThing"
    target = "@../a"

[[node]]

  [[node.object]]
  type = "OverrideTestThing"
`

func loadOverridden(t *testing.T, sets ...string) (*graph.Scene, error) {
	t.Helper()
	var ovs []graph.Override
	for _, s := range sets {
		o, err := graph.ParseOverride(s)
		if err != nil {
			return nil, err
		}
		ovs = append(ovs, o)
	}
	return graph.LoadWith("over.toml", []byte(overrideScene), ovs)
}

// Every field type takes an override, typed like the file: the decoded
// component holds the overriding value, and the fields left alone keep the
// file's values.
func TestOverrideFieldTypes(t *testing.T) {
	thing := func(s *graph.Scene, path string) *overrideThing {
		o := s.Find(path)
		if o == nil {
			t.Fatalf("no object %s", path)
		}
		return o.(*overrideThing)
	}
	cases := []struct {
		set   string
		check func(s *graph.Scene) any // returns the value read back
		want  any
	}{
		{"beam/a.stiffness=2e6", func(s *graph.Scene) any { return thing(s, "beam/a").Stiffness }, 2e6},
		{"beam/a.stiffness=7", func(s *graph.Scene) any { return thing(s, "beam/a").Stiffness }, 7.0}, // an integer into a number
		{"beam/a.count=42", func(s *graph.Scene) any { return thing(s, "beam/a").Count }, 42},
		{"beam/a.count=4.0", func(s *graph.Scene) any { return thing(s, "beam/a").Count }, 4}, // an integral number into an integer, as in the file
		{"beam/a.enabled=true", func(s *graph.Scene) any { return thing(s, "beam/a").Enabled }, true},
		{"beam/a.method=polar", func(s *graph.Scene) any { return thing(s, "beam/a").Method }, "polar"}, // bare word
		{`beam/a.method="small"`, func(s *graph.Scene) any { return thing(s, "beam/a").Method }, "small"},
		{"beam/a.label=true", func(s *graph.Scene) any { return thing(s, "beam/a").Label }, "true"}, // a bare scalar into a string field stays text
		{"beam/a.label=some words", func(s *graph.Scene) any { return thing(s, "beam/a").Label }, "some words"},
		{"beam/a.target=@b", func(s *graph.Scene) any { return thing(s, "beam/a").Target.Object }, nil}, // checked below: resolved
		{"beam/a.center=[4, 5.5, -6]", func(s *graph.Scene) any { return thing(s, "beam/a").Center }, [3]float64{4, 5.5, -6}},
		{"beam/a.center[1]=9", func(s *graph.Scene) any { return thing(s, "beam/a").Center }, [3]float64{1, 9, 3}},
		{"beam/a.indices=[7, 8]", func(s *graph.Scene) any { return thing(s, "beam/a").Indices }, []int{7, 8}},
		{"beam/a.indices[2]=5", func(s *graph.Scene) any { return thing(s, "beam/a").Indices }, []int{0, 1, 5}},
		{"beam/a.points=[[1, 2, 3]]", func(s *graph.Scene) any { return thing(s, "beam/a").Points }, [][3]float64{{1, 2, 3}}},
		{"beam/a.points[1][2]=-4", func(s *graph.Scene) any { return thing(s, "beam/a").Points }, [][3]float64{{0, 0, 0}, {1, 1, -4}}},
		{"beam/a.boxes[1].weight=0.5", func(s *graph.Scene) any { return thing(s, "beam/a").Boxes[1] }, overrideBox{Box: [6]float64{2, 2, 2, 3, 3, 3}, Weight: 0.5}},
		{"beam/a.boxes=[{box = [0, 0, 0, 9, 9, 9]}]", func(s *graph.Scene) any { return thing(s, "beam/a").Boxes }, []overrideBox{{Box: [6]float64{0, 0, 0, 9, 9, 9}}}},
		{"beam/b.stiffness=3", func(s *graph.Scene) any { return thing(s, "beam/b").Stiffness }, 3.0},                               // a field absent from the file
		{"beam/OverrideTestThing.count=9", func(s *graph.Scene) any { return thing(s, "beam/OverrideTestThing").Count }, 9},         // an unnamed object, by its type
		{"node2/OverrideTestThing.count=8", func(s *graph.Scene) any { return thing(s, "node2/OverrideTestThing").Count }, 8},       // an unnamed node
		{"beam/tip/OverrideTestThing.count=6", func(s *graph.Scene) any { return thing(s, "beam/tip/OverrideTestThing").Count }, 6}, // a nested node
		{"beam/tip/OverrideTestThing.target=@../b", func(s *graph.Scene) any { return thing(s, "beam/tip/OverrideTestThing").Target.Path }, "@../b"},
		{"dt=0.005", func(s *graph.Scene) any { return s.Dt }, 0.005},
		{"steps=7", func(s *graph.Scene) any { return s.Steps }, 7},
		{"gravity=[0, 0, -9.81]", func(s *graph.Scene) any { return [3]float64(s.Gravity) }, [3]float64{0, 0, -9.81}},
		{"gravity[0]=1.5", func(s *graph.Scene) any { return [3]float64(s.Gravity) }, [3]float64{1.5, -9.81, 0}},
		{"beam.gravity=[0, 1, 0]", func(s *graph.Scene) any { return [3]float64(*s.Root.Child("beam").GravityOverride) }, [3]float64{0, 1, 0}},
	}
	for _, c := range cases {
		s, err := loadOverridden(t, c.set)
		if err != nil {
			t.Errorf("-set %s: %v", c.set, err)
			continue
		}
		got := c.check(s)
		if strings.Contains(c.set, ".target=") && !strings.Contains(c.set, "tip") {
			// The link resolves to the object it names.
			if got != s.Find("beam/b") {
				t.Errorf("-set %s: target resolved to %v", c.set, got)
			}
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("-set %s: read back %v, want %v", c.set, got, c.want)
		}
		// What the override did not touch keeps the file's value.
		if !strings.HasPrefix(c.set, "beam/a.") {
			if a := thing(s, "beam/a"); a.Stiffness != 5 || a.Count != 3 || a.Method != "large" {
				t.Errorf("-set %s changed beam/a: %+v", c.set, a)
			}
		}
	}
	// Overrides apply in order: a later one of the same path wins.
	s, err := loadOverridden(t, "beam/a.count=10", "beam/a.count=11", "dt=0.002")
	if err != nil {
		t.Fatal(err)
	}
	if thing(s, "beam/a").Count != 11 || s.Dt != 0.002 {
		t.Errorf("two overrides: count %d dt %g", thing(s, "beam/a").Count, s.Dt)
	}
}

// A bad override fails the load with an error naming the flag, the field
// and the object, with a did-you-mean where a name is close; it is an
// *OverrideError inside a located *graph.Error.
func TestBadOverrides(t *testing.T) {
	cases := []struct {
		set   string
		wants []string
	}{
		// syntax
		{"beam/a.stiffness", []string{"-set beam/a.stiffness", "want PATH=VALUE"}},
		{"=3", []string{"want PATH=VALUE"}},
		{"beam/a=3", []string{"the field is missing"}},
		{"beam/.stiffness=3", []string{"object name before the field is empty"}},
		{"beam/a.indices[x]=3", []string{`index "x"`}},
		{"beam/a.indices[-1]=3", []string{`not a non-negative integer`}},
		{"beam/a.type=Other", []string{"type of an object or node cannot be overridden"}},
		{"beam/a.name=c", []string{"name of an object or node cannot be overridden"}},
		{"node=[]", []string{"holds the scene's structure"}},
		// paths that point nowhere
		{"beem/a.stiffness=3", []string{"-set beem/a.stiffness=3", `node "/" has no child node "beem"`, `did you mean "beam"?`}},
		{"beam/aa.stiffness=3", []string{`node "beam" has no object named "aa"`, `did you mean "a"?`}},
		{"beam/tipp/x.count=3", []string{`has no child node "tipp"`, `did you mean "tip"?`}},
		{"beam/zzzzzzz.count=3", []string{`has no object named "zzzzzzz"`, "objects: a, b, OverrideTestThing"}},
		{"beam/a.stifness=3", []string{"-set beam/a.stifness=3", `node "beam", object "a"`, `unknown field "stifness"`, `did you mean "stiffness"?`}},
		{"dtt=0.1", []string{"-set dtt=0.1", `unknown top-level key "dtt"`, `did you mean "dt"?`}},
		{"beam.youngModulus=3", []string{`"beam" is a node, whose only key`}},
		// values the file would reject too
		{"beam/a.stiffness=-1", []string{"-set beam/a.stiffness=-1", "stiffness = -1 is out of range (0,inf)"}},
		{"beam/a.stiffness=stiff", []string{"stiffness: want a number, got string \"stiff\""}},
		{"beam/a.stiffness=nan", []string{"want a finite number"}},
		{"beam/a.count=2.5", []string{"count: want an integer, got 2.5"}},
		{"beam/a.count=1000", []string{"count = 1000 is out of range [1,100]"}},
		{"beam/a.enabled=yes", []string{"enabled: want true or false"}},
		{"beam/a.method=larg", []string{`method = "larg" is not one of small, large, polar`, `did you mean "large"?`}},
		{"beam/a.target=b", []string{`target: want a link "@path/name"`}},
		{"beam/a.target=@nowhere", []string{"-set beam/a.target=@nowhere", `link "@nowhere" points nowhere`}},
		{"beam/a.target=@bb", []string{`did you mean "b"?`}},
		{"beam/a.center=[1, 2]", []string{"center: want 3 values, got 2"}},
		{"beam/a.center=[1, 2, x]", []string{"center: want an array"}},
		{"beam/a.indices=[1, -2]", []string{"indices[1] = -2 is out of range"}},
		{"beam/a.indices[5]=1", []string{"indices has 3 entries in the scene; index 5 is out of range"}},
		{"beam/b.indices[0]=1", []string{"indices is not given in the scene", "set the whole indices"}},
		{"beam/a.boxes[1].weight=-2", []string{"weight = -2 is out of range"}},
		{"beam/a.boxes[1].wieght=2", []string{`unknown field "wieght"`, `did you mean "weight"?`}},
		{"beam/a.stiffness.x=2", []string{"stiffness is not a table in the scene"}},
		{"dt=-0.01", []string{"-set dt=-0.01", "dt must be a positive number"}},
		{"steps=2.5", []string{"-set steps=2.5", "steps must be a non-negative integer"}},
		{"gravity=[0, 1]", []string{"-set gravity=[0, 1]", "gravity: want 3 numbers"}},
		{"beam.gravity=1", []string{"-set beam.gravity=1", "gravity: want 3 numbers"}},
	}
	for _, c := range cases {
		_, err := loadOverridden(t, c.set)
		if err == nil {
			t.Errorf("-set %s: no error", c.set)
			continue
		}
		msg := err.Error()
		for _, w := range c.wants {
			if !strings.Contains(msg, w) {
				t.Errorf("-set %s: error %q lacks %q", c.set, msg, w)
			}
		}
		var oe *graph.OverrideError
		if !errors.As(err, &oe) {
			t.Errorf("-set %s: error %q is not an *OverrideError", c.set, msg)
		}
		if strings.Contains(msg, "\n") {
			t.Errorf("-set %s: error spans lines: %q", c.set, msg)
		}
		// An error located at an object is a *graph.Error naming the scene
		// file; syntax errors (ParseOverride) come before any file.
		var ge *graph.Error
		if errors.As(err, &ge) && ge.File != "over.toml" {
			t.Errorf("-set %s: error names file %q", c.set, ge.File)
		}
	}
}

// An override whose object and child node share the name (gravity of a
// node and a field "gravity" of an object are both possible) is refused
// rather than applied to one of them silently.
func TestOverrideAmbiguous(t *testing.T) {
	text := `[[node]]
name = "n"
  [[node.object]]
  type = "OverrideTestThing"
  name = "x"
  [[node.node]]
  name = "x"
`
	o, err := graph.ParseOverride("n/x.gravity=[0, 0, 1]")
	if err != nil {
		t.Fatal(err)
	}
	_, err = graph.LoadWith("amb.toml", []byte(text), []graph.Override{o})
	// The object has no field gravity: that error comes first, naming the
	// override.
	if err == nil || !strings.Contains(err.Error(), `unknown field "gravity"`) || !strings.Contains(err.Error(), "-set n/x.gravity") {
		t.Errorf("got %v", err)
	}
}
