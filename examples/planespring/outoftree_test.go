package planespring_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// readmeRecipe returns the code blocks of the README's sections "Writing a
// new force field" and "Your own components, outside this repository",
// keyed by the file name in backquotes on the line just before each block
// (`go.mod`, `main.go`, `planespring/plane_spring.go`, `plane.toml`). The
// first block labelled with a name wins.
func readmeRecipe(t *testing.T) map[string]string {
	t.Helper()
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	start := strings.Index(text, "\n### Writing a new force field\n")
	if start < 0 {
		t.Fatal(`README.md has no section "### Writing a new force field"`)
	}
	if !strings.Contains(text[start:], "\n### Your own components, outside this repository\n") {
		t.Fatal(`README.md has no section "### Your own components, outside this repository"`)
	}
	text = text[start+1:]
	if end := strings.Index(text, "\n## "); end >= 0 {
		text = text[:end]
	}
	names := []string{"go.mod", "main.go", "planespring/plane_spring.go", "plane.toml"}
	blocks := map[string]string{}
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "```") {
			continue
		}
		label := ""
		for j := i - 1; j >= 0; j-- {
			if strings.TrimSpace(lines[j]) != "" {
				label = lines[j]
				break
			}
		}
		var body strings.Builder
		j := i + 1
		for ; j < len(lines) && !strings.HasPrefix(lines[j], "```"); j++ {
			body.WriteString(lines[j])
			body.WriteByte('\n')
		}
		for _, n := range names {
			if _, seen := blocks[n]; !seen && strings.Contains(label, "`"+n+"`") {
				blocks[n] = body.String()
			}
		}
		i = j
	}
	for _, n := range names {
		if _, ok := blocks[n]; !ok {
			t.Fatalf("README.md: no code block labelled `%s` in the out-of-tree recipe", n)
		}
	}
	return blocks
}

// TestREADMEQuotesExample: the README's component and scene are the files
// of this package byte for byte, so the documentation cannot drift from the
// code that is compiled, gofmt-checked and tested here.
func TestREADMEQuotesExample(t *testing.T) {
	blocks := readmeRecipe(t)
	for readme, file := range map[string]string{"planespring/plane_spring.go": "plane_spring.go", "plane.toml": "plane.toml"} {
		want, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if blocks[readme] != string(want) {
			t.Errorf("README.md's `%s` differs from examples/planespring/%s; paste the file into the README verbatim", readme, file)
		}
	}
}

// TestOutOfTreeModule builds the README's out-of-tree recipe as a module
// of its own in a temporary folder — go.mod, main.go, the component
// package and the scene, all taken from the README — with its replace
// directive pointed at this repository, then runs the scene through the
// resulting binary and checks that the component acted: every dumped
// force is the weight plus PlaneSpring's −k(y − height), and the points
// have settled at the spring's equilibrium.
//
// The build must work without a network: GOPROXY=off (only the module
// cache), GOFLAGS=-mod=mod (go.mod may gain the indirect requirements from
// the repository's module graph), the repository's go.sum for checksums and
// GOSUMDB=off so nothing asks the checksum database.
func TestOutOfTreeModule(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go tool is not in PATH: cannot build the out-of-tree module")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	blocks := readmeRecipe(t)
	const replace = "replace github.com/sofago/sofago => ../sofago"
	if !strings.Contains(blocks["go.mod"], replace+"\n") {
		t.Fatalf("README's go.mod has no line %q:\n%s", replace, blocks["go.mod"])
	}
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":                      strings.Replace(blocks["go.mod"], "=> ../sofago", "=> "+root, 1),
		"main.go":                     blocks["main.go"],
		"planespring/plane_spring.go": blocks["planespring/plane_spring.go"],
		"plane.toml":                  blocks["plane.toml"],
	}
	// What `go mod tidy` adds, offline: the repository's requirements
	// (direct and indirect) as the module's indirect ones, so the pruned
	// module graph needs no go.mod file outside the module cache, and the
	// repository's go.sum for their checksums.
	req, err := requireBlock(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	files["go.mod"] += "\n" + req
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	files["go.sum"] = string(sum)
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOSUMDB=off", "GONOSUMDB=*",
		"GOWORK=off", "GOTOOLCHAIN=local", "GO111MODULE=on")
	goCmd := func(args ...string) {
		t.Helper()
		cmd := exec.Command(goTool, args...)
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s in the out-of-tree module: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	bin := filepath.Join(dir, "mysim")
	goCmd("build", "-o", bin, ".")

	// examples/planespring stands for a package outside the repository:
	// runscene (through components/all) must not link it, or the module's
	// own copy would be a second registration of PlaneSpring (the build
	// above would panic at start rather than get here; this says why).
	cmd := exec.Command(goTool, "list", "-deps", "github.com/sofago/sofago/runscene")
	cmd.Dir, cmd.Env = root, env
	deps, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps runscene: %v", err)
	}
	if strings.Contains(string(deps), "github.com/sofago/sofago/examples/") {
		t.Error("runscene links a package of examples/; they stand for packages outside this repository and must not be imported by components/all")
	}

	run := func(args ...string) (stdout, stderr string) {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		err := cmd.Run()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("mysim %s: exit status %d, want 0\nstderr: %s", strings.Join(args, " "), ee.ExitCode(), e.String())
		} else if err != nil {
			t.Fatal(err)
		}
		return o.String(), e.String()
	}
	doc, _ := run("-doc", "PlaneSpring")
	if !strings.Contains(doc, "stiffness") || !strings.Contains(doc, "N/m") {
		t.Errorf("mysim -doc PlaneSpring does not document the stiffness field:\n%s", doc)
	}
	list, _ := run("-list")
	if !strings.Contains(list, "PlaneSpring") || !strings.Contains(list, "TetrahedronFEMForceField") {
		t.Errorf("mysim -list should hold PlaneSpring and the repository's components:\n%s", list)
	}
	summary, _ := run("-dump", "out.json", "plane.toml")
	if !strings.Contains(summary, "points/EulerImplicitSolver") {
		t.Errorf("mysim's summary has no solver line:\n%s", summary)
	}

	var dump struct {
		Steps  int `json:"steps"`
		States []struct {
			Path     string      `json:"path"`
			Position [][]float64 `json:"position"`
			Force    [][]float64 `json:"force"`
		} `json:"states"`
	}
	data, err := os.ReadFile(filepath.Join(dir, "out.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &dump); err != nil {
		t.Fatalf("out.json: %v", err)
	}
	if dump.Steps != 300 || len(dump.States) != 1 || len(dump.States[0].Position) != 3 {
		t.Fatalf("out.json: %d steps, %d states, want 300 steps of one state of 3 points:\n%s", dump.Steps, len(dump.States), data)
	}
	// plane.toml: m = 0.1 kg per point, g = (0, −9.81, 0), k = 200 N/m,
	// height = 0.5 m. The force is recomputed at the dumped positions, so
	// it matches m·g − k(y − h) to rounding (|f| ≤ 1 N: 1e-12 N); the
	// position is the equilibrium to 1e-10 m (TestPlaneSpringScene gives
	// the reason), i.e. the force is then below k × 1e-10 = 2e-8 N.
	const m, g, k, h = 0.1, -9.81, 200.0, 0.5
	st := dump.States[0]
	for i, x := range st.Position {
		f := st.Force[i]
		want := [3]float64{0, m*g - k*(x[1]-h), 0}
		for c := 0; c < 3; c++ {
			if math.Abs(f[c]-want[c]) > 1e-12 {
				t.Errorf("point %d: dumped force %v, want m·g − k(y − h) = %v", i, f, want)
				break
			}
		}
		if y := h + m*g/k; math.Abs(x[1]-y) > 1e-10 {
			t.Errorf("point %d: y = %.15g m, want the equilibrium %.15g", i, x[1], y)
		}
	}
}

// requireBlock returns the requirements of the go.mod file at path as one
// require block, each marked // indirect (for the module that gets them
// through github.com/sofago/sofago).
func requireBlock(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("require (\n")
	in := false
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) >= 2 && f[0] == "require" && f[1] == "(":
			in = true
		case in && len(f) > 0 && f[0] == ")":
			in = false
		case in && len(f) >= 2:
			b.WriteString("\t" + f[0] + " " + f[1] + " // indirect\n")
		case len(f) >= 3 && f[0] == "require":
			b.WriteString("\t" + f[1] + " " + f[2] + " // indirect\n")
		}
	}
	b.WriteString(")\n")
	return b.String(), nil
}
