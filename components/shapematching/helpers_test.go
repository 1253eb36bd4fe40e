package shapematching

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sofago/sofago/components/topology"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
	"github.com/sofago/sofago/meshio"
	"github.com/sofago/sofago/pose"

	// Component types the test scenes use (components/all would import
	// this package: an import cycle).
	_ "github.com/sofago/sofago/components/constraint"
	_ "github.com/sofago/sofago/components/forcefield"
	_ "github.com/sofago/sofago/components/mapping"
	_ "github.com/sofago/sofago/components/mass"
)

// cuboidScene is Koyama et al.'s cuboid: 5 × 9 × 5 = 225 particles,
// 0.2 × 0.8 × 0.2 m along y, 1-ring regions, hanging from its top face
// under gravity. extra is appended to the ShapeMatching object.
func cuboidScene(extra string) string {
	return `
dt = 0.01
gravity = [0, -9.81, 0]
[[node]]
name = "cuboid"
  [[node.object]]
  type = "ShapeMatchingSolver"
  [[node.object]]
  type = "RegularGridTopology"
  min = [0, 0, 0]
  max = [0.2, 0.8, 0.2]
  n = [5, 9, 5]
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[node.object]]
  type = "UniformMass"
  totalMass = 1
  [[node.object]]
  type = "FixedConstraint"
  box = [-1, 0.799, -1, 1, 1, 1]
  [[node.object]]
  type = "ShapeMatching"
  name = "sm"
  alpha = 0.5
` + extra
}

// cuboidExamples returns the cuboid's example poses: a 90° twist about its
// long axis and an S shape (two opposite 35° bends of its halves).
func cuboidExamples(tb testing.TB, rest []float64) [][]float64 {
	tb.Helper()
	c := geom.Vec3{0.1, 0, 0.1}
	y, x := geom.Vec3{0, 1, 0}, geom.Vec3{1, 0, 0}
	twist := mustPose(tb, rest, pose.Twist{Center: c, Axis: y, From: 0, To: 0.8, Angle: math.Pi / 2})
	s := mustPose(tb, rest,
		pose.Bend{Center: c, Axis: y, Toward: x, From: 0.4, To: 0.8, Angle: -35 * math.Pi / 180},
		pose.Bend{Center: c, Axis: y, Toward: x, From: 0, To: 0.4, Angle: 35 * math.Pi / 180})
	return [][]float64{twist, s}
}

func mustPose(tb testing.TB, rest []float64, ds ...pose.Deformation) []float64 {
	tb.Helper()
	x, err := pose.Apply(rest, ds...)
	if err != nil {
		tb.Fatal(err)
	}
	return x
}

// cylinderMesh writes the cylinder of Koyama et al.'s Table 1 (2,025
// particles: 81 per cross-section × 25 along x; radius 0.1 m, length 1 m)
// to a file in dir and returns its name. It is cmd/meshgen's cylinder
// (-across 4 -along 24): a Kuhn-split box whose square cross-section is
// mapped onto the disk by Shirley and Chiu's concentric map.
func cylinderMesh(tb testing.TB, dir string) string {
	tb.Helper()
	g, err := topology.NewRegularGrid([3]float64{0, -1, -1}, [3]float64{1, 1, 1}, [3]int{25, 9, 9})
	if err != nil {
		tb.Fatal(err)
	}
	pts := append([]float64(nil), g.Points()...)
	for i := 0; i < len(pts)/3; i++ {
		a, b := pts[3*i+1], pts[3*i+2]
		var r, phi float64
		switch {
		case a == 0 && b == 0:
		case math.Abs(a) > math.Abs(b):
			r, phi = a, math.Pi/4*(b/a)
		default:
			r, phi = b, math.Pi/2-math.Pi/4*(a/b)
		}
		pts[3*i+1], pts[3*i+2] = 0.1*r*math.Cos(phi), 0.1*r*math.Sin(phi)
	}
	name := filepath.Join(dir, "cylinder2025.vtk")
	if err := meshio.Write(name, &meshio.Mesh{Points: pts, Tetrahedra: g.Tetrahedra()}); err != nil {
		tb.Fatal(err)
	}
	return name
}

// cylinderScene is the cylinder hanging from its end x = 0 under gravity
// along +x.
func cylinderScene(mesh, extra string) string {
	return strings.ReplaceAll(`
dt = 0.01
gravity = [9.81, 0, 0]
[[node]]
name = "cylinder"
  [[node.object]]
  type = "ShapeMatchingSolver"
  [[node.object]]
  type = "MeshLoader"
  filename = "MESH"
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[node.object]]
  type = "UniformMass"
  totalMass = 30
  [[node.object]]
  type = "FixedConstraint"
  box = [-1, -1, -1, 0.001, 1, 1]
  [[node.object]]
  type = "ShapeMatching"
  name = "sm"
  alpha = 0.5
`, "MESH", filepath.ToSlash(mesh)) + extra
}

// cylinderExamples: a 90° bend toward y and a 90° twist about the axis.
func cylinderExamples(tb testing.TB, rest []float64) [][]float64 {
	tb.Helper()
	x := geom.Vec3{1, 0, 0}
	bend := mustPose(tb, rest, pose.Bend{Axis: x, Toward: geom.Vec3{0, 1, 0}, From: 0, To: 1, Angle: math.Pi / 2})
	twist := mustPose(tb, rest, pose.Twist{Axis: x, From: 0, To: 1, Angle: math.Pi / 2})
	return [][]float64{bend, twist}
}

// loadWithExamples loads a scene, sets the examples of its ShapeMatching at
// path smPath (examples computed from the rest positions) and returns both.
func loadWithExamples(tb testing.TB, text, smPath string, examples func(testing.TB, []float64) [][]float64) (*graph.Scene, *ShapeMatching) {
	tb.Helper()
	s := graphtest.MustLoad(tb, "test.toml", text)
	sm := graphtest.Find[*ShapeMatching](tb, s, smPath)
	if examples != nil {
		ex := examples(tb, sm.GoalState().Vec(graph.RestPosition))
		if err := sm.SetExamples(ex); err != nil {
			tb.Fatal(err)
		}
	}
	return s, sm
}

func maxAbsDiff(a, b []float64) float64 {
	d := 0.0
	for i := range a {
		d = math.Max(d, math.Abs(a[i]-b[i]))
	}
	return d
}
