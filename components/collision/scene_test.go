package collision

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
	"github.com/sofago/sofago/meshio"

	_ "github.com/sofago/sofago/components/mapping"
)

// TestMeshObstacleFromFile loads a MeshObstacleForceField from an OBJ file
// with MeshLoader's transform (scale, then translation) and checks the
// force on points at known depths inside the sphere it encloses: a point
// on a face's centroid line at depth δ gets γ·δ along that face's normal.
func TestMeshObstacleFromFile(t *testing.T) {
	dir := t.TempDir()
	sphere, err := meshio.SphereSurface(1, 16, 9)
	if err != nil {
		t.Fatal(err)
	}
	if err := meshio.Write(filepath.Join(dir, "ball.obj"), sphere); err != nil {
		t.Fatal(err)
	}
	// A face of the scaled, translated sphere and a point δ inside it.
	const scale, delta, gamma = 0.2, 0.003, 5e3
	shift := geom.Vec3{1, 2, 3}
	tr := sphere.Triangles[40]
	var c geom.Vec3
	var corner [3]geom.Vec3
	for k, v := range tr {
		corner[k] = geom.At(sphere.Points, v).Scale(scale).Add(shift)
		c = c.Add(corner[k].Scale(1.0 / 3))
	}
	n := corner[1].Sub(corner[0]).Cross(corner[2].Sub(corner[0])).Normalized()
	p := c.Sub(n.Scale(delta))
	outside := c.Add(n.Scale(delta))
	text := `
[[node]]
name = "pts"
  [[node.object]]
  type = "MechanicalObject"
  position = [[` + fmtVec(p) + `], [` + fmtVec(outside) + `]]
  [[node.object]]
  type = "MeshObstacleForceField"
  filename = "ball.obj"
  scale3d = [0.2, 0.2, 0.2]
  translation = [1, 2, 3]
  stiffness = 5e3
`
	s, err := graph.Load(filepath.Join(dir, "scene.toml"), []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Init(); err != nil {
		t.Fatal(err)
	}
	ff := graphtest.Find[*MeshObstacleForceField](t, s, "pts/MeshObstacleForceField")
	st := graphtest.Find[graph.State](t, s, "pts/MechanicalObject")
	f := make([]float64, 6)
	ff.AddForce(f, st.Vec(graph.Position), st.Vec(graph.Velocity))
	want := n.Scale(gamma * delta)
	for k := 0; k < 3; k++ {
		if math.Abs(f[k]-want[k]) > 1e-9*gamma*delta || f[3+k] != 0 {
			t.Fatalf("force %v, want %v on the inside point and 0 on the outside one", f, want)
		}
	}
	if n, d := ff.ContactStats(); n != 1 || math.Abs(d-delta) > 1e-12 {
		t.Errorf("ContactStats = %d, %g; want 1, %g", n, d, delta)
	}
}

func fmtVec(v geom.Vec3) string { return fmt.Sprintf("%.17g, %.17g, %.17g", v[0], v[1], v[2]) }

// TestSceneErrors checks that misuse is reported at load or init with the
// object named, never silently ignored.
func TestSceneErrors(t *testing.T) {
	dir := t.TempDir()
	open := &meshio.Mesh{Points: []float64{0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1},
		Triangles: [][3]int{{0, 2, 1}, {0, 1, 3}, {0, 3, 2}}} // a tetrahedron missing a face
	if err := meshio.Write(filepath.Join(dir, "open.obj"), open); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ name, text, want string }{
		{"obstacle on Rigid3", `
[[node]]
name = "body"
  [[node.object]]
  type = "MechanicalObject"
  template = "Rigid3"
  position = [[0, 0, 0, 0, 0, 0, 1]]
  [[node.object]]
  type = "PlaneForceField"
  stiffness = 100
`, "acts on Vec3 points"},
		{"obstacle on a visual mapping", `
[[node]]
name = "body"
  [[node.object]]
  type = "MechanicalObject"
  template = "Rigid3"
  position = [[0, 0, 0, 0, 0, 0, 1]]
  [[node.node]]
  name = "surface"
    [[node.node.object]]
    type = "MechanicalObject"
    [[node.node.object]]
    type = "RigidMapping"
    points = [[0, 0, 0]]
    isMechanical = false
    [[node.node.object]]
    type = "PlaneForceField"
    stiffness = 100
`, "no effect"},
		{"missing stiffness", `
[[node]]
name = "pts"
  [[node.object]]
  type = "MechanicalObject"
  position = [[0, 0, 0]]
  [[node.object]]
  type = "SphereForceField"
  radius = 1
`, `missing required field "stiffness"`},
		{"zero normal", `
[[node]]
name = "pts"
  [[node.object]]
  type = "MechanicalObject"
  position = [[0, 0, 0]]
  [[node.object]]
  type = "PlaneForceField"
  normal = [0, 0, 0]
  stiffness = 100
`, "non-zero"},
		{"open obstacle surface", `
[[node]]
name = "pts"
  [[node.object]]
  type = "MechanicalObject"
  position = [[0, 0, 0]]
  [[node.object]]
  type = "MeshObstacleForceField"
  filename = "open.obj"
  stiffness = 100
`, "not closed"},
		{"triangle model without triangles", `
[[node]]
name = "pts"
  [[node.object]]
  type = "MechanicalObject"
  position = [[0, 0, 0]]
  [[node.object]]
  type = "TriangleCollisionModel"
`, "needs triangles"},
		{"pipeline without models", `
[[node]]
name = "world"
  [[node.object]]
  type = "CollisionPipeline"
  stiffness = 100
  contactDistance = 0.01
`, "no collision model"},
		{"pipeline without contactDistance", `
[[node]]
name = "world"
  [[node.object]]
  type = "CollisionPipeline"
  stiffness = 100
`, `missing required field "contactDistance"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, err := graph.Load(filepath.Join(dir, "scene.toml"), []byte(tc.text))
			if err == nil {
				err = s.Init()
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
			t.Log(err)
		})
	}
}
