package topology_test

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sofago/sofago/components/topology"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
	"github.com/sofago/sofago/polyfem"
)

// A PolyhedralTopology serves the same mesh from a .polyhedra file as the
// generator that wrote it (points bit for bit, same cells), the state
// takes its points, the boundary triangles close its volume outwards,
// and it serves no tetrahedra.
func TestPolyhedralTopologyFileAndGenerator(t *testing.T) {
	m, err := polyfem.HexDominantGrid(geom.Vec3{0, 0, 0}, geom.Vec3{0.6, 0.2, 0.4}, [3]int{3, 1, 2}, polyfem.Checkerboard)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := polyfem.WritePolyhedra(filepath.Join(dir, "m.polyhedra"), m); err != nil {
		t.Fatal(err)
	}
	for _, fields := range []string{`filename = "m.polyhedra"`, `generator = "hexDominant"
  min = [0, 0, 0]
  max = [0.6, 0.2, 0.4]
  n = [3, 1, 2]`} {
		s := graphtest.MustLoad(t, filepath.Join(dir, "scene.toml"), `
[[node]]
name = "body"
  [[node.object]]
  type = "PolyhedralTopology"
  name = "mesh"
  `+fields+`
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
`)
		p := graphtest.Find[*topology.PolyhedralTopology](t, s, "body/mesh")
		if !slices.Equal(p.Points(), m.Points) || len(p.Polyhedra()) != len(m.Cells) || len(p.Tetrahedra()) != 0 {
			t.Fatalf("%s: %d points, %d polyhedra, %d tetrahedra; want %d, %d, 0", fields, len(p.Points())/3, len(p.Polyhedra()), len(p.Tetrahedra()), m.NumPoints(), len(m.Cells))
		}
		for e, c := range p.Polyhedra() {
			for k := range c.Faces {
				if !slices.Equal(c.Faces[k], m.Cells[e].Faces[k]) {
					t.Fatalf("%s: cell %d face %d differs", fields, e, k)
				}
			}
		}
		if st := graphtest.Find[graph.State](t, s, "body/dofs"); !slices.Equal(st.Vec(graph.RestPosition), m.Points) {
			t.Errorf("%s: the state did not take the topology's points", fields)
		}
		flux := 0.0
		for _, tr := range p.Triangles() {
			flux += geom.At(p.Points(), tr[0]).Dot(geom.At(p.Points(), tr[1]).Cross(geom.At(p.Points(), tr[2]))) / 6
		}
		if math.Abs(flux-0.6*0.2*0.4) > 1e-15 {
			t.Errorf("%s: boundary encloses %v, box 0.048", fields, flux)
		}
	}
}

// Errors: both or neither source, a file of another format, a malformed
// file (named with its line), a box of no extent.
func TestPolyhedralTopologyErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.polyhedra")
	if err := writeText(bad, "sofago-polyhedra 1\npoints 1\n0 0 x\n"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ fields, want string }{
		{`filename = "a.polyhedra"
  generator = "voronoi"`, "give filename or generator, not both"},
		{``, "give a .polyhedra filename or a generator"},
		{`filename = "m.vtk"`, `want a .polyhedra file`},
		{`filename = "bad.polyhedra"`, `bad.polyhedra:3: point 0 coordinate 2: "x" is not a number`},
		{`generator = "voronoi"
  max = [1, 0, 1]`, "max[1] = 0 must be greater than min[1] = 0"},
	} {
		s, err := graph.Load(filepath.Join(dir, "scene.toml"), []byte(`
[[node]]
name = "body"
  [[node.object]]
  type = "PolyhedralTopology"
  `+c.fields+`
`))
		if err == nil {
			err = s.Init()
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.fields, err, c.want)
		}
	}
}

func writeText(path, text string) error { return os.WriteFile(path, []byte(text), 0o644) }
