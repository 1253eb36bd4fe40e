package runscene

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/sofago/sofago/graph"
)

// -h (and -help, --help) prints the help once, on stdout, and exits 0.
func TestHelpOnce(t *testing.T) {
	for _, arg := range []string{"-h", "-help", "--help"} {
		r := runBin(t, arg)
		if r.code != 0 || r.stderr != "" {
			t.Errorf("%s: exit %d, stderr %q", arg, r.code, r.stderr)
		}
		if n := strings.Count(r.stdout, "runscene runs a scene headless"); n != 1 {
			t.Errorf("%s: the help is printed %d times", arg, n)
		}
		if n := strings.Count(r.stdout, "\n  -dump FILE\n"); n != 1 {
			t.Errorf("%s: -dump listed %d times", arg, n)
		}
	}
}

// A mistake on the command line is one line on stderr with a hint to -h,
// exit status 2, and never the whole help.
func TestFlagErrorsOneLine(t *testing.T) {
	p := writeScene(t, "steps = 1\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-nosuchflag", p}, "flag provided but not defined: -nosuchflag"},
		{[]string{"-steps", "-1", p}, `invalid value "-1" for flag -steps: must be 0 or more, got -1`},
		{[]string{"-steps", "x", p}, `invalid value "x" for flag -steps: not an integer`},
		{[]string{"-dt", "abc", p}, `invalid value "abc" for flag -dt`},
		{[]string{"-dt", "0", p}, "-dt must be a positive finite number of seconds, got 0"},
		{[]string{"-every", "0", p}, "-every must be 1 or more, got 0"},
		{[]string{"-cache", "", p}, "-cache needs a folder name"},
		{[]string{"-steps"}, "flag needs an argument: -steps"},
		{[]string{}, "no scene file given; usage: runscene [flags] SCENE.toml"},
		{[]string{p, p}, "one scene file expected, got 2"},
	} {
		r := runBin(t, c.args...)
		if r.code != 2 {
			t.Errorf("%v: exit %d, want 2", c.args, r.code)
		}
		line := strings.TrimSuffix(r.stderr, "\n")
		if strings.Contains(line, "\n") || r.stdout != "" {
			t.Errorf("%v: not one line on stderr alone: stderr %q, stdout %q", c.args, r.stderr, r.stdout)
		}
		if !strings.HasPrefix(line, "runscene: ") || !strings.HasSuffix(line, " (runscene -h lists the flags)") || !strings.Contains(line, c.want) {
			t.Errorf("%v: %q, want \"runscene: ...%s... (runscene -h lists the flags)\"", c.args, line, c.want)
		}
	}
}

// -steps' help says what it does and shows no contradictory "(default -1)".
func TestStepsHelp(t *testing.T) {
	r := runBin(t, "-h")
	m := regexp.MustCompile(`(?m)^  -steps N\n\s+(.*)$`).FindStringSubmatch(r.stdout)
	if m == nil {
		t.Fatalf("no -steps N in the help:\n%s", r.stdout)
	}
	if strings.Contains(m[1], "default -1") || !strings.Contains(m[1], "(default: the scene's steps key)") {
		t.Errorf("-steps help %q", m[1])
	}
	if strings.Contains(r.stdout, "(default -1)") {
		t.Errorf("a -1 default shows in the help:\n%s", r.stdout)
	}
	// -steps 0 is valid (initialise only); so is -steps given after the file.
	p := writeScene(t, freeScene)
	if r := runBin(t, p, "-steps", "0"); r.code != 0 || !strings.Contains(r.stdout, "steps             0 (dt = 0.01 s)") {
		t.Errorf("-steps 0: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

// -doc scene prints the root keys from graph.SceneKeys (the loader's
// table): name, type, default, unit, meaning.
func TestDocScene(t *testing.T) {
	r := runBin(t, "-doc", "scene")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	if !strings.HasPrefix(r.stdout, "scene (the root of a scene file)\n") {
		t.Errorf("doc does not start with its title: %q", r.stdout)
	}
	for _, k := range graph.SceneKeys() {
		re := regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(k.Name) + ` +` + regexp.QuoteMeta(k.Type) + ` +` + regexp.QuoteMeta(k.Default) + ` +` + regexp.QuoteMeta(k.Unit) + ` +` + regexp.QuoteMeta(k.Doc) + `$`)
		if !re.MatchString(r.stdout) {
			t.Errorf("key %s not documented as %+v:\n%s", k.Name, k, r.stdout)
		}
	}
	// The documented values themselves (not only the table's).
	for _, w := range []string{`(?m)^  dt +number +0\.01 +s +time step`, `(?m)^  gravity +\[3\]number +\[0, -9\.81, 0\] +m/s² +.*measured from the world origin`,
		`(?m)^  steps +integer +100 +- +number of steps`, `(?m)^  cacheDir +string +\(user cache folder\)/sofago +- +folder of the precomputation caches`} {
		if !regexp.MustCompile(w).MatchString(r.stdout) {
			t.Errorf("-doc scene does not match %s:\n%s", w, r.stdout)
		}
	}
	if r := runBin(t, "-h"); !strings.Contains(r.stdout, "-doc scene") {
		t.Errorf("-h does not mention -doc scene")
	}
}

// Misspellings of the scene's tables ([[Node]], [[nodes]], [[node.objects]])
// are one located line with a did-you-mean, exit 1.
func TestMisspeltTablesDidYouMean(t *testing.T) {
	for _, c := range []struct {
		text  string
		line  int
		wants []string
	}{
		{"dt = 0.01\n[[Node]]\nname = \"a\"\n", 2, []string{`unknown top-level key "Node" (did you mean "node"?)`}},
		{"[[nodes]]\nname = \"a\"\n", 1, []string{`unknown top-level key "nodes" (did you mean "node"?)`}},
		{"[[Nodes.object]]\ntype = \"MechanicalObject\"\n", 1, []string{`unknown top-level key "Nodes" (did you mean "node"?)`}},
		{"[[node]]\nname = \"a\"\n  [[node.objects]]\n  type = \"MechanicalObject\"\n", 3, []string{`node "a"`, `unknown node key "objects" (did you mean "object"?)`}},
		{"[[node]]\nname = \"a\"\n  [[node.Node]]\n  name = \"b\"\n", 3, []string{`node "a"`, `unknown node key "Node" (did you mean "node"?)`}},
		{"cachedir = \"c\"\n[[node]]\nname = \"a\"\n", 1, []string{`unknown top-level key "cachedir" (did you mean "cacheDir"?)`}},
	} {
		p := writeScene(t, c.text)
		wantSceneError(t, runBin(t, p), p, c.line, c.wants...)
	}
}

// Times in the summary, the JSON dump and the PVD/VTU files carry no
// floating-point noise: 3 steps of 0.1 s end at 0.3 s (3·0.1 is
// 0.30000000000000004 in binary), and so does every frame time.
func TestTimesWithoutNoise(t *testing.T) {
	needTypes(t, freeScene)
	p := writeScene(t, freeScene)
	dir := filepath.Dir(p)
	dump, out := filepath.Join(dir, "d.json"), filepath.Join(dir, "out")
	r := runBin(t, "-dt", "0.1", "-steps", "3", "-dump", dump, "-out", out, p)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, w := range []string{"3 (dt = 0.1 s)", "simulated time    0.3 s\n"} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("summary lacks %q:\n%s", w, r.stdout)
		}
	}
	data, err := os.ReadFile(dump)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(data), `{"time": 0.3, "steps": 3,`) {
		t.Errorf("dump starts %q", string(data[:min(len(data), 40)]))
	}
	pvds, _ := filepath.Glob(filepath.Join(out, "*.pvd"))
	if len(pvds) == 0 {
		t.Fatal("no .pvd written")
	}
	for _, f := range pvds {
		text, _ := os.ReadFile(f)
		got := regexp.MustCompile(`timestep="([^"]*)"`).FindAllStringSubmatch(string(text), -1)
		var ts []string
		for _, m := range got {
			ts = append(ts, m[1])
		}
		if strings.Join(ts, " ") != "0 0.1 0.2 0.3" {
			t.Errorf("%s: timesteps %v, want 0 0.1 0.2 0.3", filepath.Base(f), ts)
		}
	}
	vtus, _ := filepath.Glob(filepath.Join(out, "*", "*.vtu"))
	vtus2, _ := filepath.Glob(filepath.Join(out, "*.vtu"))
	vtus = append(vtus, vtus2...)
	noisy := regexp.MustCompile(`\d{12,}`)
	for _, f := range vtus {
		text, _ := os.ReadFile(f)
		m := regexp.MustCompile(`Name="TimeValue"[^>]*>([^<]*)<`).FindStringSubmatch(string(text))
		if m == nil || noisy.MatchString(m[1]) {
			t.Errorf("%s: TimeValue %v", filepath.Base(f), m)
		}
	}
	if len(vtus) != 4*len(pvds) {
		t.Errorf("%d VTU files for %d series of 4 frames", len(vtus), len(pvds))
	}
}

// reducedScene is a small reduced StVK beam (its modes, derivatives and
// polynomials are computed at Init, in well under a second) that caches
// its precomputation; root is put before the tables (root keys).
func reducedScene(root string) string {
	return root + `dt = 0.01
gravity = [0, 0, 0]
steps = 2
[[node]]
name = "beam"
  [[node.object]]
  type = "NewmarkImplicitSolver"
  maxIterations = 1
  [[node.object]]
  type = "DenseDirectSolver"
  [[node.object]]
  type = "MechanicalObject"
  name = "q"
  template = "Vec1"
  [[node.object]]
  type = "ReducedStVKForceField"
  name = "stvk"
  topology = "@mesh/grid"
  youngModulus = 1e6
  poissonRatio = 0.3
  numModes = 2
  fixed = [{box = [-0.001, -1, -1, 0.001, 1, 1]}]
  [[node.object]]
  type = "ReducedMass"
  [[node.node]]
  name = "mesh"
    [[node.node.object]]
    type = "RegularGridTopology"
    name = "grid"
    min = [0, 0, 0]
    max = [0.4, 0.1, 0.1]
    n = [5, 2, 2]
    [[node.node.object]]
    type = "MechanicalObject"
    name = "x"
    [[node.node.object]]
    type = "SubspaceMapping"
    basis = "@../stvk"
    [[node.node.object]]
    type = "ConstantForceField"
    box = [0.399, -1, -1, 0.401, 1, 1]
    totalForce = [0, -1, 0]
`
}

// runBinEnv runs the binary with extra environment variables.
func runBinEnv(t *testing.T, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(build(t), args...)
	cmd.Env = append(os.Environ(), env...)
	var so, se strings.Builder
	cmd.Stdout, cmd.Stderr = &so, &se
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("runscene %v did not finish in 60 s", args)
	}
	return result{so.String(), se.String(), cmd.ProcessState.ExitCode()}
}

// cacheFiles lists the reduced-model cache files under dir.
func cacheFiles(t *testing.T, dir string) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "reduced", "*.rstvk"))
	return files
}

// Precomputation caches go to -cache DIR, else the scene's cacheDir
// (relative to the scene file), else the user cache folder/sofago — never
// next to the scene; with no user cache folder the run fails at Init with
// one located line that says how to choose one.
func TestCacheFolderFlag(t *testing.T) {
	needTypes(t, reducedScene(""))
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("the user cache folder is not taken from HOME/XDG_CACHE_HOME here")
	}
	home := t.TempDir()
	xdg := filepath.Join(home, "xdg")
	env := []string{"HOME=" + home, "XDG_CACHE_HOME=" + xdg}
	t.Run("user cache folder", func(t *testing.T) {
		p := writeScene(t, reducedScene(""))
		if r := runBinEnv(t, env, "-quiet", p); r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		if n := len(cacheFiles(t, filepath.Join(xdg, "sofago"))); n != 1 {
			t.Errorf("%d cache files in the user cache folder, want 1", n)
		}
		onlyScene(t, filepath.Dir(p))
	})
	t.Run("scene cacheDir", func(t *testing.T) {
		p := writeScene(t, reducedScene("cacheDir = \"mycache\"\n"))
		if r := runBinEnv(t, env, "-quiet", p); r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		if n := len(cacheFiles(t, filepath.Join(filepath.Dir(p), "mycache"))); n != 1 {
			t.Errorf("%d cache files in the scene's cacheDir, want 1", n)
		}
	})
	t.Run("-cache wins over the scene", func(t *testing.T) {
		p := writeScene(t, reducedScene("cacheDir = \"mycache\"\n"))
		flag := filepath.Join(t.TempDir(), "flagcache")
		r := runBinEnv(t, []string{"HOME=", "XDG_CACHE_HOME="}, p, "-quiet", "-cache", flag)
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		if n := len(cacheFiles(t, flag)); n != 1 {
			t.Errorf("%d cache files in the -cache folder, want 1", n)
		}
		onlyScene(t, filepath.Dir(p))
		// The second run reads the file: same dump as the first.
		d1, d2 := filepath.Join(t.TempDir(), "1.json"), filepath.Join(t.TempDir(), "2.json")
		runBinEnv(t, nil, p, "-quiet", "-cache", flag, "-dump", d1)
		runBinEnv(t, nil, p, "-quiet", "-cache", flag, "-dump", d2)
		a, _ := os.ReadFile(d1)
		b, _ := os.ReadFile(d2)
		if len(a) == 0 || string(a) != string(b) {
			t.Errorf("runs with the cache differ or wrote no dump")
		}
	})
	t.Run("no user cache folder", func(t *testing.T) {
		p := writeScene(t, reducedScene(""))
		r := runBinEnv(t, []string{"HOME=", "XDG_CACHE_HOME="}, p)
		wantSceneError(t, r, p, 0, `object "stvk"`, "no folder for the precomputation cache", "set cacheDir at the scene's root, run with -cache DIR, or set cache = false")
	})
}

// onlyScene checks that the scene's folder holds nothing but the scene.
func onlyScene(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "scene.toml" {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("the scene's folder holds %v; a run must write nothing next to the scene", names)
	}
}
