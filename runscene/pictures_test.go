package runscene

import (
	"fmt"
	"image/gif"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/render"
)

// dumpedState returns the state at path in a dump, flattened.
func dumpedState(t *testing.T, d dumpJSON, path string) (position, velocity []float64) {
	t.Helper()
	for _, st := range d.States {
		if st.Path == path {
			for i := range st.Position {
				position = append(position, st.Position[i]...)
				velocity = append(velocity, st.Velocity[i]...)
			}
			return position, velocity
		}
	}
	t.Fatalf("dump has no state %q", path)
	return nil, nil
}

// The VTU/PVD output of a run, read back with the project's reader,
// matches the dump of the same run (issue 9, item 2): the last frame of
// the beam's series has the dump's point count and positions, the
// topology's tetrahedra as connectivity, and a displacement field equal to
// the dumped positions minus those of the initial dump (-steps 0), bit for
// bit (every number is written in its shortest exact form); likewise the
// visual surface's series, with the boundary triangles.
func TestOutMatchesDump(t *testing.T) {
	const scene = "../scenes/cantilever.toml"
	text, err := os.ReadFile(scene)
	if err != nil {
		t.Fatal(err)
	}
	needTypes(t, string(text))
	dir := t.TempDir()
	out, dump, dump0 := filepath.Join(dir, "vtu"), filepath.Join(dir, "d.json"), filepath.Join(dir, "d0.json")
	if r := runBin(t, "-steps", "0", "-dump", dump0, scene); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if r := runBin(t, "-steps", "7", "-every", "3", "-out", out, "-dump", dump, scene); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	d, d0 := readDump(t, dump), readDump(t, dump0)
	s, err := graph.LoadFile(scene)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Init(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		state, series string
		cells         [][]int
		cellType      uint8
	}{
		{"beam/dofs", "beam_dofs", tetCells(s.Root.Child("beam").LocalTopology().Tetrahedra()), 10},
		{"beam/visual/surface", "beam_visual_surface", triCells(s.Root.Child("beam").LocalTopology().Triangles()), 5},
	} {
		entries, err := readPVDFile(filepath.Join(out, c.series+".pvd"))
		if err != nil {
			t.Fatal(err)
		}
		// Frames at steps 0, 3, 6 and the last, 7.
		if len(entries) != 4 || entries[3].Time != d.Time {
			t.Fatalf("%s: %d frames, last at t = %v; want 4, the last at the dump's %v", c.series, len(entries), entries[len(entries)-1].Time, d.Time)
		}
		g, err := readVTUFile(filepath.Join(out, entries[3].File))
		if err != nil {
			t.Fatal(err)
		}
		x, v := dumpedState(t, d, c.state)
		x0, _ := dumpedState(t, d0, c.state)
		if g.NumPoints() != len(x)/3 {
			t.Fatalf("%s: %d points, the dump has %d", c.series, g.NumPoints(), len(x)/3)
		}
		disp, vel := g.Array("displacement"), g.Array("velocity")
		for i := range x {
			if g.Points[i] != x[i] || disp.Values[i] != x[i]-x0[i] || vel.Values[i] != v[i] {
				t.Fatalf("%s, entry %d: point %v, displacement %v, velocity %v; the dump gives %v, %v, %v",
					c.series, i, g.Points[i], disp.Values[i], vel.Values[i], x[i], x[i]-x0[i], v[i])
			}
		}
		if g.NumCells() != len(c.cells) {
			t.Fatalf("%s: %d cells, the topology has %d", c.series, g.NumCells(), len(c.cells))
		}
		for k, cell := range c.cells {
			got := g.Connectivity[g.Offsets[k]-len(cell) : g.Offsets[k]]
			if g.Types[k] != c.cellType || fmt.Sprint(got) != fmt.Sprint(cell) {
				t.Fatalf("%s: cell %d is %v (type %d), want %v (type %d)", c.series, k, got, g.Types[k], cell, c.cellType)
			}
		}
	}
}

func tetCells(tets [][4]int) [][]int {
	out := make([][]int, len(tets))
	for i, t := range tets {
		out[i] = t[:]
	}
	return out
}

func triCells(tris [][3]int) [][]int {
	out := make([][]int, len(tris))
	for i, t := range tris {
		out[i] = t[:]
	}
	return out
}

// -frames, -picture, -gif and -plot write their files: PNG frames of the
// requested size at steps 0, every -every steps and the last, the GIF with
// as many frames, the final picture, the energy plot; the summary lists
// them.
func TestPictureFlags(t *testing.T) {
	const scene = "../scenes/cantilever.toml"
	text, err := os.ReadFile(scene)
	if err != nil {
		t.Fatal(err)
	}
	needTypes(t, string(text))
	dir := t.TempDir()
	frames, pic, anim, plot := filepath.Join(dir, "frames"), filepath.Join(dir, "final.png"), filepath.Join(dir, "run.gif"), filepath.Join(dir, "energy.png")
	r := runBin(t, "-steps", "5", "-every", "2", "-size", "320x200", "-wireframe", "-supersample", "2",
		"-frames", frames, "-picture", pic, "-gif", anim, "-plot", plot, scene)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	decodePNG := func(path string) (w, h int) {
		t.Helper()
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		img, err := png.Decode(f)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return img.Bounds().Dx(), img.Bounds().Dy()
	}
	// Steps 0, 2, 4 and the last, 5.
	for i := 0; i < 4; i++ {
		if w, h := decodePNG(filepath.Join(frames, fmt.Sprintf("frame_%06d.png", i))); w != 320 || h != 200 {
			t.Errorf("frame %d is %d×%d", i, w, h)
		}
	}
	if _, err := os.Stat(filepath.Join(frames, "frame_000004.png")); !os.IsNotExist(err) {
		t.Errorf("a fifth frame was written")
	}
	if w, h := decodePNG(pic); w != 320 || h != 200 {
		t.Errorf("picture is %d×%d", w, h)
	}
	if w, h := decodePNG(plot); w < 100 || h < 100 {
		t.Errorf("plot is %d×%d", w, h)
	}
	f, err := os.Open(anim)
	if err != nil {
		t.Fatal(err)
	}
	g, err := gif.DecodeAll(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	// 2 steps of 0.01 s per frame: 2 hundredths, real time.
	if len(g.Image) != 4 || g.Delay[0] != 2 || g.Config.Width != 320 {
		t.Errorf("gif: %d frames, delay %d, width %d", len(g.Image), g.Delay[0], g.Config.Width)
	}
	for _, w := range []string{`(?m)^-frames PNG +4 +4 `, `(?m)^-gif +4 +1 `, `(?m)^-picture +1 +1 `, `(?m)^-plot +6 +1 `, `(?m)^solver +steps +linear iterations/step`, `(?m)^beam/EulerImplicitSolver +5 `} {
		if !regexp.MustCompile(w).MatchString(r.stdout) {
			t.Errorf("summary lacks %s:\n%s", w, r.stdout)
		}
	}
}

func TestPictureUsageErrors(t *testing.T) {
	p := writeScene(t, "steps = 1\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-size", "800", p}, "-size"},
		{[]string{"-size", "8x6", p}, "-size"},
		{[]string{"-picture", "a.jpg", p}, "-picture needs a .png"},
		{[]string{"-gif", "a.png", p}, "-gif needs a .gif"},
		{[]string{"-eye", "1,2", p}, "-eye"},
		{[]string{"-center", "1,x,3", p}, "-center"},
		{[]string{"-supersample", "0", p}, "-supersample"},
	} {
		r := runBin(t, c.args...)
		if r.code != 2 || !strings.HasPrefix(r.stderr, "runscene: ") || !strings.Contains(r.stderr, c.want) {
			t.Errorf("runscene %v: exit %d, stderr %q; want 2 and %q", c.args, r.code, r.stderr, c.want)
		}
	}
	// A scene with nothing to draw is a scene error, one line: reduced
	// coordinates (Vec1) have no place in space.
	p = writeScene(t, `steps = 1
[[node]]
name = "modes"
  [[node.object]]
  type = "EulerExplicitSolver"
  [[node.object]]
  type = "MechanicalObject"
  template = "Vec1"
  position = [[0.5]]
  [[node.object]]
  type = "UniformMass"
  vertexMass = 1
`)
	r := runBin(t, "-picture", filepath.Join(t.TempDir(), "x.png"), p)
	if r.code != 1 || !strings.Contains(r.stderr, "nothing to draw") {
		t.Errorf("nothing to draw: exit %d, stderr %q", r.code, r.stderr)
	}
}

// Scenes that used to be refused before the run ("nothing to draw") are
// drawn: rigid bodies without a visual model as their frames' axes
// (articulated_chain.toml: red x axes), and obstacles with the objects
// (wall_crash.toml: the wall in the obstacle colour, the ground patch in
// the ground colour); the GIF's palette has the obstacles' colours.
func TestPicturesOfRigidAndObstacleScenes(t *testing.T) {
	for _, c := range []struct {
		scene string
		want  map[string][3]float64 // colour name → 0–1 RGB, some shade of which must appear
	}{
		{"../scenes/articulated_chain.toml", map[string][3]float64{"x axis": render.AxisColors[0], "y axis": render.AxisColors[1]}},
		{"../scenes/wall_crash.toml", map[string][3]float64{"wall": render.ObstacleColor, "ground": render.GroundColor}},
	} {
		t.Run(filepath.Base(c.scene), func(t *testing.T) {
			text, err := os.ReadFile(c.scene)
			if err != nil {
				t.Fatal(err)
			}
			needTypes(t, string(text))
			dir := t.TempDir()
			pic, anim := filepath.Join(dir, "p.png"), filepath.Join(dir, "a.gif")
			r := runBin(t, "-steps", "2", "-size", "320x240", "-picture", pic, "-gif", anim, c.scene)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			f, err := os.Open(pic)
			if err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(f)
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			for name, col := range c.want {
				n := 0
				b := img.Bounds()
				for y := b.Min.Y; y < b.Max.Y; y++ {
					for x := b.Min.X; x < b.Max.X; x++ {
						r, g, bl, _ := img.At(x, y).RGBA()
						px := [3]float64{float64(r>>8) / 255, float64(g>>8) / 255, float64(bl>>8) / 255}
						// A shade s·col of the colour, to 8-bit rounding.
						s := (px[0]*col[0] + px[1]*col[1] + px[2]*col[2]) / (col[0]*col[0] + col[1]*col[1] + col[2]*col[2])
						if s > 0.2 && math.Abs(px[0]-s*col[0]) <= 2.0/255 && math.Abs(px[1]-s*col[1]) <= 2.0/255 && math.Abs(px[2]-s*col[2]) <= 2.0/255 {
							n++
						}
					}
				}
				if n < 50 {
					t.Errorf("%s: %d pixels of the %s's colour", c.scene, n, name)
				}
			}
			if _, err := os.Stat(anim); err != nil {
				t.Error(err)
			}
		})
	}
}
