package graph_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/sofago/sofago/graph"
)

// TestSceneKeysDocumentTheLoader: every documented root key is accepted by
// the loader with a value of its documented type, and the documented
// defaults are what a scene that leaves the key out gets.
func TestSceneKeysDocumentTheLoader(t *testing.T) {
	keys := graph.SceneKeys()
	var names []string
	for _, k := range keys {
		names = append(names, k.Name)
		if k.Doc == "" || k.Type == "" || k.Default == "" || k.Unit == "" {
			t.Errorf("key %s is not fully documented: %+v", k.Name, k)
		}
	}
	if got := strings.Join(names, " "); got != "dt gravity steps cacheDir node" {
		t.Fatalf("root keys %q", got)
	}
	want := map[string]string{"dt": "0.01", "gravity": "[0, -9.81, 0]", "steps": "100", "cacheDir": "(user cache folder)/sofago", "node": "-"}
	for _, k := range keys {
		if k.Default != want[k.Name] {
			t.Errorf("%s: documented default %q, want %q", k.Name, k.Default, want[k.Name])
		}
	}
	units := map[string]string{"dt": "s", "gravity": "m/s²", "steps": "-"}
	for _, k := range keys {
		if u, ok := units[k.Name]; ok && k.Unit != u {
			t.Errorf("%s: unit %q, want %q", k.Name, k.Unit, u)
		}
	}
	// The defaults are the loader's: an empty root takes them.
	s, err := graph.Load("d.toml", []byte("[[node]]\nname = \"a\"\n[[node.object]]\ntype = \"MechanicalObject\"\nsize = 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Dt != 0.01 || s.Gravity != [3]float64{0, -9.81, 0} || s.Steps != 100 || s.CacheDir != "" {
		t.Errorf("defaults dt %g, gravity %v, steps %d, cacheDir %q", s.Dt, s.Gravity, s.Steps, s.CacheDir)
	}
	// Every key is accepted with a value of its type.
	s, err = graph.Load(filepath.Join("some", "dir", "s.toml"), []byte("dt = 0.002\ngravity = [0, 0, -1.62]\nsteps = 7\ncacheDir = \"cache\"\n[[node]]\nname = \"a\"\n[[node.object]]\ntype = \"MechanicalObject\"\nsize = 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Dt != 0.002 || s.Gravity != [3]float64{0, 0, -1.62} || s.Steps != 7 {
		t.Errorf("dt %g, gravity %v, steps %d", s.Dt, s.Gravity, s.Steps)
	}
	// cacheDir is relative to the scene file; absolute names are kept.
	if want := filepath.Join("some", "dir", "cache"); s.CacheDir != want {
		t.Errorf("cacheDir %q, want %q (relative to the scene file)", s.CacheDir, want)
	}
	abs := filepath.Join(t.TempDir(), "c")
	s, err = graph.Load("s.toml", []byte(fmt.Sprintf("cacheDir = %q\n[[node]]\nname = \"a\"\n[[node.object]]\ntype = \"MechanicalObject\"\nsize = 1\n", abs)))
	if err != nil {
		t.Fatal(err)
	}
	if s.CacheDir != abs {
		t.Errorf("absolute cacheDir %q became %q", abs, s.CacheDir)
	}
}

// TestRootKeyMistakes: a misspelt or mistyped root key, including the
// [[Node]]-style misspellings of the tables, is one located line with a
// did-you-mean.
func TestRootKeyMistakes(t *testing.T) {
	const file = "bad.toml"
	cases := []struct {
		name, text string
		line       int
		want       string
	}{
		{"[[Node]]", "dt = 0.01\n[[Node]]\nname = \"a\"\n", 2, `unknown top-level key "Node" (did you mean "node"?)`},
		{"[[NODE]]", "[[NODE]]\nname = \"a\"\n", 1, `unknown top-level key "NODE" (did you mean "node"?)`},
		{"[[nodes]]", "[[nodes]]\nname = \"a\"\n", 1, `unknown top-level key "nodes" (did you mean "node"?)`},
		{"[[Nodes]]", "steps = 2\n\n[[Nodes]]\nname = \"a\"\n", 3, `unknown top-level key "Nodes" (did you mean "node"?)`},
		{"[[Node.object]]", "[[Node.object]]\ntype = \"X\"\n", 1, `unknown top-level key "Node" (did you mean "node"?)`},
		{"[[node.objects]]", "[[node]]\nname = \"a\"\n[[node.objects]]\ntype = \"X\"\n", 3, `node "a": unknown node key "objects" (did you mean "object"?)`},
		{"[[node.Object]]", "[[node]]\nname = \"a\"\n[[node.Object]]\ntype = \"X\"\n", 3, `unknown node key "Object" (did you mean "object"?)`},
		{"[[node.nodes]]", "[[node]]\nname = \"a\"\n[[node.nodes]]\nname = \"b\"\n", 3, `unknown node key "nodes" (did you mean "node"?)`},
		{"cachedir", "cachedir = \"c\"\n", 1, `unknown top-level key "cachedir" (did you mean "cacheDir"?)`},
		{"Dt", "Dt = 0.1\n", 1, `unknown top-level key "Dt" (did you mean "dt"?)`},
		{"far from any key", "solver = \"x\"\n", 1, `unknown top-level key "solver" (known: dt, gravity, steps, cacheDir, node; runscene -doc scene documents them)`},
		{"empty cacheDir", "cacheDir = \"\"\n[[node]]\nname = \"a\"\n", 1, `cacheDir must be a non-empty folder name, got string ""`},
		{"cacheDir not a string", "cacheDir = 3\n[[node]]\nname = \"a\"\n", 1, `cacheDir must be a non-empty folder name, got integer 3`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := graph.Load(file, []byte(c.text))
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") {
				t.Errorf("not one line: %q", msg)
			}
			if prefix := fmt.Sprintf("%s:%d: ", file, c.line); !strings.HasPrefix(msg, prefix) {
				t.Errorf("%q does not start with %q", msg, prefix)
			}
			if !strings.Contains(msg, c.want) {
				t.Errorf("%q lacks %q", msg, c.want)
			}
		})
	}
}

// TestCacheFolder: the scene's CacheDir (root key or runscene -cache) wins;
// otherwise the user cache folder/sofago; with no user cache folder it is
// an error saying how to choose one.
func TestCacheFolder(t *testing.T) {
	s := graph.NewScene("s.toml")
	s.CacheDir = "/some/where"
	if d, err := s.CacheFolder(); err != nil || d != "/some/where" {
		t.Errorf("CacheDir set: %q, %v", d, err)
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, "xdg"))
	t.Setenv("LocalAppData", filepath.Join(home, "local"))
	user, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range []*graph.Scene{graph.NewScene("s.toml"), nil} {
		if d, err := sc.CacheFolder(); err != nil || d != filepath.Join(user, "sofago") {
			t.Errorf("default: %q, %v; want %q", d, err, filepath.Join(user, "sofago"))
		}
	}
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		return
	}
	t.Setenv("HOME", "")
	t.Setenv("XDG_CACHE_HOME", "")
	_, err = graph.NewScene("s.toml").CacheFolder()
	if err == nil {
		t.Fatal("no user cache folder: no error")
	}
	for _, w := range []string{"no folder for the precomputation cache", "cacheDir", "-cache DIR", "cache = false"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q lacks %q", err, w)
		}
	}
}

// TestFormatTime: times print without floating-point noise.
func TestFormatTime(t *testing.T) {
	sum := 0.0
	for range 3 {
		sum += 0.1
	}
	for _, c := range []struct {
		t    float64
		want string
	}{
		{sum, "0.3"}, // 0.30000000000000004
		{0.09999999999999999, "0.1"},
		{2, "2"},
		{0, "0"},
		{1e-5, "1e-05"},
		{0.015, "0.015"},
		{123456.789, "123456.789"},
		{1.0000000000001, "1"},           // below 12 digits: noise
		{1.00000000001, "1.00000000001"}, // at 12 digits: kept
		{-0.3000000000000001, "-0.3"},
	} {
		if got := graph.FormatTime(c.t); got != c.want {
			t.Errorf("FormatTime(%v) = %q, want %q", c.t, got, c.want)
		}
	}
}
