package main

import (
	"bufio"
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sofago/sofago/components/topology"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/meshio"
	"github.com/sofago/sofago/pose"
)

// TestWritesThePose: posegen's output reads back with the rest mesh's
// vertices in order and its tetrahedra, at the positions package pose
// computes, in several formats, from a box or from a mesh file.
func TestWritesThePose(t *testing.T) {
	dir := t.TempDir()
	g, err := topology.NewRegularGrid([3]float64{0, 0, 0}, [3]float64{0.2, 0.8, 0.2}, [3]int{5, 9, 5})
	if err != nil {
		t.Fatal(err)
	}
	want, err := pose.Apply(g.Points(),
		pose.Twist{Center: geom.Vec3{0.1, 0.4, 0.1}, Axis: geom.Vec3{0, 1, 0}, From: 0, To: 0.8, Angle: math.Pi / 2},
		pose.Scale{Center: geom.Vec3{0.1, 0.4, 0.1}, Axis: geom.Vec3{0, 1, 0}, From: 0.2, To: 0.6, Lateral: 1.2, Axial: 1, Blend: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a.vtk", "b.msh", "c.node"} {
		out := filepath.Join(dir, name)
		var stdout, stderr bytes.Buffer
		code := run([]string{"-box", "-min", "0,0,0", "-max", "0.2,0.8,0.2", "-n", "5,9,5",
			"-twist", "axis=y angle=90", "-scale", "axis=y from=0.2 to=0.6 lateral=1.2 blend=0.1", "-o", out}, &stdout, &stderr)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, stderr.String())
		}
		m, err := meshio.Read(out)
		if err != nil {
			t.Fatal(err)
		}
		if len(m.Points) != len(want) || len(m.Tetrahedra) != len(g.Tetrahedra()) {
			t.Fatalf("%s: %d points, %d tetrahedra", name, m.NumPoints(), len(m.Tetrahedra))
		}
		worst := 0.0
		for i := range want {
			worst = math.Max(worst, math.Abs(m.Points[i]-want[i]))
		}
		// Written with 17 significant digits: exact round trip.
		if worst > 1e-15 {
			t.Errorf("%s: points differ from pose.Apply by %.3g", name, worst)
		}
		t.Logf("%s: %s", name, strings.TrimSpace(stdout.String()))
	}
	// From a mesh file: the written a.vtk bent again.
	out := filepath.Join(dir, "d.vtk")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-in", filepath.Join(dir, "a.vtk"), "-bend", "axis=y toward=x from=0.4 angle=30", "-o", out}, &stdout, &stderr); code != 0 {
		t.Fatalf("from a file: exit %d: %s", code, stderr.String())
	}
}

// TestShippedExamples: the example poses the scenes load are what the
// commands in their comments write (every posegen command of each scene).
func TestShippedExamples(t *testing.T) {
	for _, scene := range []string{"../../scenes/shapematching_cuboid_twist.toml", "../../scenes/shapematching_local.toml",
		"../../scenes/example_fem_twist.toml", "../../scenes/example_fem_sneaker.toml"} {
		f, err := os.Open(scene)
		if err != nil {
			t.Fatal(err)
		}
		var cmds []string
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if line := strings.TrimSpace(strings.TrimPrefix(sc.Text(), "#")); strings.HasPrefix(line, "go run ./cmd/posegen ") {
				cmds = append(cmds, strings.TrimPrefix(line, "go run ./cmd/posegen "))
			}
		}
		f.Close()
		if len(cmds) == 0 {
			t.Fatalf("%s: no posegen command in the comments", scene)
		}
		for _, cmd := range cmds {
			checkShipped(t, scene, cmd)
		}
	}
}

// checkShipped runs one posegen command line into a temporary file and
// compares it with the file the scene ships.
func checkShipped(t *testing.T, scene, cmd string) {
	t.Helper()
	args := splitQuoted(t, cmd)
	shipped, fresh := "", ""
	for i := range args {
		if (args[i] == "-snapshot" || args[i] == "-in") && i+1 < len(args) {
			args[i+1] = filepath.Join("../..", args[i+1]) // paths in the comments are from the repository's root
		}
		if args[i] == "-o" && i+1 < len(args) {
			shipped = filepath.Join("../..", args[i+1])
			fresh = filepath.Join(t.TempDir(), filepath.Base(args[i+1]))
			args[i+1] = fresh
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run(args, &stdout, &stderr); code != 0 {
		t.Fatalf("%s: %q: exit %d: %s", scene, cmd, code, stderr.String())
	}
	a, err1 := meshio.Read(fresh)
	b, err2 := meshio.Read(shipped)
	if err1 != nil || err2 != nil {
		t.Fatalf("%v %v", err1, err2)
	}
	if len(a.Points) != len(b.Points) {
		t.Fatalf("%s: %d points, shipped %d", scene, a.NumPoints(), b.NumPoints())
	}
	for k := range a.Points {
		if a.Points[k] != b.Points[k] {
			t.Fatalf("%s: the shipped %s differs from what the command writes (coordinate %d: %g vs %g)", scene, shipped, k, b.Points[k], a.Points[k])
		}
	}
}

// splitQuoted splits a shell command line with single-quoted arguments.
func splitQuoted(t *testing.T, s string) []string {
	t.Helper()
	var out []string
	for len(s) > 0 {
		s = strings.TrimLeft(s, " ")
		if s == "" {
			break
		}
		if s[0] == '\'' {
			end := strings.IndexByte(s[1:], '\'')
			if end < 0 {
				t.Fatalf("unbalanced quote in %q", s)
			}
			out = append(out, s[1:1+end])
			s = s[end+2:]
			continue
		}
		end := strings.IndexByte(s, ' ')
		if end < 0 {
			end = len(s)
		}
		out = append(out, s[:end])
		s = s[end:]
	}
	return out
}

// TestUsageErrors: usage mistakes exit with code 2 and say what is wrong; a
// pose that inverts tetrahedra exits with 1 and writes nothing.
func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "x.vtk")
	box := []string{"-box", "-n", "3,3,3"}
	cases := []struct {
		args []string
		code int
		want string
	}{
		{append(box, "-twist", "axis=x angle=10"), 2, "-o FILE is required"},
		{[]string{"-twist", "axis=x angle=10", "-o", out}, 2, "exactly one of -in FILE and -box"},
		{append(box, "-o", out), 2, "no deformation"},
		{append(box, "-twist", "angle=10", "-o", out), 2, "needs axis"},
		{append(box, "-twist", "axis=x", "-o", out), 2, "needs angle"},
		{append(box, "-twist", "axis=x angle=10 spin=3", "-o", out), 2, "unknown setting \"spin\""},
		{append(box, "-bend", "axis=x angle=10", "-o", out), 2, "needs toward"},
		{append(box, "-bend", "axis=x toward=x angle=10", "-o", out), 2, "perpendicular"},
		{append(box, "-scale", "axis=x lateral=-1", "-o", out), 2, "positive"},
		{append(box, "-twist", "axis=x from=2 to=1 angle=10", "-o", out), 2, "from < to"},
		{append(box, "-twist", "axis=q angle=10", "-o", out), 2, "axis"},
		{append(box, "-bend", "axis=x toward=y from=0.4 to=0.5 angle=170", "-o", out), 1, "inverts or flattens"},
		{append(box, "-bulge", "axis=y amount=0.3", "-o", out), 2, "needs out"},
		{append(box, "-bulge", "axis=y out=z", "-o", out), 2, "needs amount"},
		{append(box, "-bulge", "axis=y out=y amount=0.3", "-o", out), 2, "perpendicular"},
		{append(box, "-bulge", "axis=y out=z amount=0.3 afrom=0", "-o", out), 2, "afrom needs across"},
		{append(box, "-bulge", "axis=y out=z amount=0.3 axial=0", "-o", out), 2, "positive"},
		{append(box, "-twist", "axis=x angle=10", "-snapshot", "d.json", "-o", out), 2, "-snapshot FILE and -state PATH go together"},
		{append(box, "-twist", "axis=x angle=10", "-state", "a/dofs", "-o", out), 2, "-snapshot FILE and -state PATH go together"},
		{append(box, "-twist", "axis=x angle=10", "-snapshot", filepath.Join(dir, "none.json"), "-state", "a/dofs", "-o", out), 1, "none.json"},
	}
	for _, c := range cases {
		var stdout, stderr bytes.Buffer
		code := run(c.args, &stdout, &stderr)
		if code != c.code || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit %d mentioning %q", c.args, code, stderr.String(), c.code, c.want)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("a failed run wrote %s", out)
	}
}

// TestSnapshot: with -snapshot and -state the deformations start from the
// positions of a state in a runscene -dump file (here one written by hand
// in the dump's format, with two states), as pose.Apply computes them from
// those positions; a missing state or a wrong point count is an error that
// says so.
func TestSnapshot(t *testing.T) {
	dir := t.TempDir()
	g, err := topology.NewRegularGrid([3]float64{0, 0, 0}, [3]float64{0.4, 0.2, 0.2}, [3]int{5, 3, 3})
	if err != nil {
		t.Fatal(err)
	}
	rest := g.Points()
	snap := make([]float64, len(rest))
	for i := range rest {
		snap[i] = rest[i] + 0.01*math.Sin(float64(7*i)) // a "simulated" state
	}
	rows := func(p []float64) string {
		var b strings.Builder
		for i := 0; i < len(p); i += 3 {
			if i > 0 {
				b.WriteString(",\n    ")
			}
			b.WriteString("[" + strconv.FormatFloat(p[i], 'g', -1, 64) + "," + strconv.FormatFloat(p[i+1], 'g', -1, 64) + "," + strconv.FormatFloat(p[i+2], 'g', -1, 64) + "]")
		}
		return b.String()
	}
	dump := filepath.Join(dir, "d.json")
	text := `{"time": 1, "steps": 10, "energy": {"kinetic": 0, "potential": 1},
 "states": [
  {"path": "other/dofs", "template": "Vec3", "position": [[0,0,0]], "velocity": [[0,0,0]], "force": [[0,0,0]]},
  {"path": "block/dofs", "template": "Vec3", "position": [` + rows(snap) + `], "velocity": [], "force": []}]}`
	if err := os.WriteFile(dump, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	lo, hi := pose.Bounds(snap)
	b := pose.Bulge{Center: lo.Add(hi).Scale(0.5), Axis: geom.Vec3{0, 1, 0}, Out: geom.Vec3{0, 0, 1}, From: lo[1], To: hi[1], Amount: 0.3, Axial: 1,
		Across: geom.Vec3{1, 0, 0}, AcrossFrom: -1, AcrossTo: 0.25, Blend: 0.1}
	want, err := pose.Apply(snap, b)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "e.vtk")
	args := []string{"-box", "-min", "0,0,0", "-max", "0.4,0.2,0.2", "-n", "5,3,3", "-snapshot", dump, "-state", "block/dofs",
		"-bulge", "axis=y out=z amount=0.3 across=x afrom=-1 ato=0.25 blend=0.1", "-o", out}
	var stdout, stderr bytes.Buffer
	if code := run(args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	m, err := meshio.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	moved, kept := 0, 0
	for i := range want {
		if m.Points[i] != want[i] {
			t.Fatalf("coordinate %d: %g, pose.Apply on the snapshot %g", i, m.Points[i], want[i])
		}
		if want[i] != snap[i] {
			moved++
		} else {
			kept++
		}
	}
	if moved == 0 || kept == 0 {
		t.Fatalf("test setup: %d coordinates moved by the bulge, %d kept", moved, kept)
	}
	for _, c := range []struct{ state, want string }{
		{"nope/dofs", "no state \"nope/dofs\" (states: other/dofs, block/dofs)"},
		{"other/dofs", "has 1 points, the rest mesh 45"},
	} {
		a := append([]string(nil), args...)
		a[10] = c.state
		stdout.Reset()
		stderr.Reset()
		if code := run(a, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("-state %s: exit %d, %q; want exit 1 mentioning %q", c.state, code, stderr.String(), c.want)
		}
	}
}
