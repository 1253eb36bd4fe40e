package shapematching

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
	"github.com/sofago/sofago/meshio"

	_ "github.com/sofago/sofago/components/solver"
	"github.com/sofago/sofago/components/topology"
)

// vertexMasses reads the lumped masses the way ShapeMatching does.
func vertexMasses(t *testing.T, s *graph.Scene, path string, n int) []float64 {
	t.Helper()
	ones := make([]float64, 3*n)
	for i := 0; i < n; i++ {
		ones[3*i] = 1
	}
	md := make([]float64, 3*n)
	graphtest.Find[graph.Mass](t, s, path).AddMDx(md, ones, 1)
	m := make([]float64, n)
	for i := range m {
		m[i] = md[3*i]
	}
	return m
}

// randomPose perturbs the rest positions by up to ±amp on every coordinate.
func randomPose(rng *rand.Rand, rest []float64, amp float64) []float64 {
	x := make([]float64, len(rest))
	for i := range x {
		x[i] = rest[i] + amp*(2*rng.Float64()-1)
	}
	return x
}

// TestGoalsConserveMomentum: for any positions the goal term
// Σᵢ mᵢ(gᵢ − xᵢ) is zero (the effective masses and the averaging use the
// same region counts), and without examples its torque Σᵢ mᵢ xᵢ × (gᵢ − xᵢ)
// is zero too (each region's best-fit rotation makes its goals torque-free
// about its centre). Random poses of the cuboid (every coordinate moved by
// up to ±20 % of the smallest cell side), with DiagonalMass's non-uniform
// masses.
func TestGoalsConserveMomentum(t *testing.T) {
	for _, fields := range []string{"", "  regions = \"lattice\"\n", "  regionSize = 2\n"} {
		text := strings.Replace(cuboidScene(fields), "UniformMass\"\n  totalMass = 1", "DiagonalMass\"\n  totalMass = 1", 1)
		s, sm := loadWithExamples(t, text, "cuboid/sm", nil)
		rest := sm.GoalState().Vec(graph.RestPosition)
		m := vertexMasses(t, s, "cuboid/DiagonalMass", sm.n)
		rng := rand.New(rand.NewPCG(9, 10))
		worstP, worstL := 0.0, 0.0
		for trial := 0; trial < 20; trial++ {
			x := randomPose(rng, rest, 0.01)
			g := sm.ComputeGoals(x)
			var p, L, scaleP, scaleL geom.Vec3
			for i := 0; i < sm.n; i++ {
				d := geom.At(g, i).Sub(geom.At(x, i)).Scale(m[i])
				p = p.Add(d)
				L = L.Add(geom.At(x, i).Cross(d))
				for a := 0; a < 3; a++ {
					scaleP[a] += math.Abs(d[a])
					scaleL[a] += geom.At(x, i).Norm() * d.Norm()
				}
			}
			for a := 0; a < 3; a++ {
				worstP = math.Max(worstP, math.Abs(p[a])/scaleP[a])
				worstL = math.Max(worstL, math.Abs(L[a])/scaleL[a])
			}
		}
		t.Logf("%q: |Σ m(g − x)| and |Σ m x × (g − x)| relative to Σ of their terms' sizes: %.3g, %.3g", fields, worstP, worstL)
		// Sums of ~225 terms: rounding is ~1e-15 relative to their sizes.
		if worstP > 1e-13 || worstL > 1e-13 {
			t.Errorf("%q: goal term momentum %.3g, torque %.3g (relative)", fields, worstP, worstL)
		}
	}
}

// TestDampingKeepsMomentumAndRigidMotion: region damping leaves a rigid
// velocity field unchanged and the momentum of any velocity field unchanged.
func TestDampingKeepsMomentumAndRigidMotion(t *testing.T) {
	s, sm := loadWithExamples(t, cuboidScene("  damping = 0.7\n"), "cuboid/sm", nil)
	rest := sm.GoalState().Vec(graph.RestPosition)
	m := vertexMasses(t, s, "cuboid/UniformMass", sm.n)
	rng := rand.New(rand.NewPCG(15, 16))
	x := randomPose(rng, rest, 0.02)
	omega, u := geom.Vec3{0.3, -2, 1}, geom.Vec3{1, 2, 3}
	v := make([]float64, len(x))
	for i := 0; i < sm.n; i++ {
		geom.Put(v, i, u.Add(omega.Cross(geom.At(x, i))))
	}
	v0 := append([]float64(nil), v...)
	sm.DampVelocities(v, x)
	if d := maxAbsDiff(v, v0); d > 1e-13 {
		t.Errorf("damping changed a rigid velocity field by %.3g", d)
	}
	v = randomPose(rng, make([]float64, len(x)), 1)
	var p0, p1 geom.Vec3
	for i := 0; i < sm.n; i++ {
		p0 = p0.Add(geom.At(v, i).Scale(m[i]))
	}
	before := append([]float64(nil), v...)
	sm.DampVelocities(v, x)
	for i := 0; i < sm.n; i++ {
		p1 = p1.Add(geom.At(v, i).Scale(m[i]))
	}
	if d := p1.Sub(p0).Norm(); d > 1e-13 {
		t.Errorf("damping changed the momentum by %.3g", d)
	}
	if maxAbsDiff(v, before) < 0.1 {
		t.Errorf("damping did nothing to a random velocity field")
	}
}

// TestExamplesFromFiles: examples given as mesh files (any format meshio
// writes), relative to the scene file, are read vertex for vertex; the
// object started at an example is in that example (weight 1).
func TestExamplesFromFiles(t *testing.T) {
	dir := t.TempDir()
	s0, sm0 := loadWithExamples(t, cuboidScene(""), "cuboid/sm", nil)
	_ = s0
	rest := sm0.GoalState().Vec(graph.RestPosition)
	ex := cuboidExamples(t, rest)
	tets := graphtest.Find[graph.Topology](t, s0, "cuboid/RegularGridTopology").Tetrahedra()
	for k, name := range []string{"twist.vtk", "s.msh"} {
		if err := meshio.Write(filepath.Join(dir, name), &meshio.Mesh{Points: ex[k], Tetrahedra: tets}); err != nil {
			t.Fatal(err)
		}
	}
	text := cuboidScene("  beta = 1\n  examples = [\"twist.vtk\", \"s.msh\"]\n")
	s, err := graph.Load(filepath.Join(dir, "scene.toml"), []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Init(); err != nil {
		t.Fatal(err)
	}
	sm := graphtest.Find[*ShapeMatching](t, s, "cuboid/sm")
	if sm.NumExamples() != 2 {
		t.Fatalf("%d examples", sm.NumExamples())
	}
	sm.ComputeGoals(ex[1])
	if w := sm.Weights(0); math.Abs(w[2]-1) > 1e-12 || math.Abs(w[1]) > 1e-12 {
		t.Errorf("at the S-shaped example the weights are %v, want [0 0 1]", w)
	}
}

// TestSceneErrors: mistakes in a scene are load or init errors naming the
// object, never silent.
func TestSceneErrors(t *testing.T) {
	dir := t.TempDir()
	if err := meshio.Write(filepath.Join(dir, "small.vtk"), &meshio.Mesh{Points: make([]float64, 30), Tetrahedra: [][4]int{{0, 1, 2, 3}}}); err != nil {
		t.Fatal(err)
	}
	otherTets := [][4]int{}
	for i := 0; i < 768; i++ {
		otherTets = append(otherTets, [4]int{0, 1, 2, 3})
	}
	if err := meshio.Write(filepath.Join(dir, "other.vtk"), &meshio.Mesh{Points: make([]float64, 3*225), Tetrahedra: otherTets}); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ name, text, want string }{
		{"wrong solver", strings.Replace(cuboidScene(""), "type = \"ShapeMatchingSolver\"", "type = \"EulerImplicitSolver\"", 1), "moves only under a ShapeMatchingSolver"},
		{"no solver", strings.Replace(cuboidScene(""), "type = \"ShapeMatchingSolver\"", "type = \"RegularGridTopology\"\n  name = \"spare\"", 1), "needs a ShapeMatchingSolver"},
		{"no mass", strings.Replace(cuboidScene(""), "  type = \"UniformMass\"\n  totalMass = 1\n", "  type = \"ConstantForceField\"\n  totalForce = [0, 0, 0]\n", 1), "needs a mass"},
		{"groups without manifold", cuboidScene("  groupIndices = [0]\n"), "need manifold = \"groups\""},
		{"groups without assignment", cuboidScene("  manifold = \"groups\"\n"), "needs groupIndices or groupBoxes"},
		{"bad box", cuboidScene("  manifold = \"groups\"\n  groupBoxes = [[0, 0, 0, 1, 1]]\n"), "has 5 numbers"},
		{"box missing particles, no examples yet", cuboidScene("  manifold = \"groups\"\n  groupBoxes = [[-1, -1, -1, 1, 0.3, 1]]\n"), "lies in no group box"},
		{"box missing particles", smallCubeWithExample(t, "  manifold = \"groups\"\n  groupBoxes = [[-1, -1, -1, 1, 0.3, 1]]\n"), "lies in no group box"},
		{"example vertex count", cuboidScene("  examples = [\"" + filepath.ToSlash(filepath.Join(dir, "small.vtk")) + "\"]\n"), "has 10 vertices but state"},
		{"example from another mesh", cuboidScene("  examples = [\"" + filepath.ToSlash(filepath.Join(dir, "other.vtk")) + "\"]\n"), "an example must be the rest mesh deformed"},
		{"example array size", cuboidScene("  examplePositions = [[[0, 0, 0]]]\n"), "has 1 points but state"},
		{"lattice off grid", strings.Replace(strings.Replace(cylinderScene(cylinderMesh(t, dir), "  regions = \"lattice\"\n"), "name = \"cylinder\"", "name = \"cuboid\"", 1), "cylinder/", "cuboid/", -1), "not on a regular lattice"},
		{"unknown region kind", cuboidScene("  regions = \"voxel\"\n"), "voxel"},
		{"beta out of range", cuboidScene("  beta = 1.5\n"), "out of range"},
	}
	for _, c := range cases {
		s, err := graph.Load("bad.toml", []byte(c.text))
		if err == nil {
			err = s.Init()
		}
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q does not mention %q", c.name, err, c.want)
		}
		t.Logf("%s: %v", c.name, err)
	}
}

// TestSolverErrors: a ShapeMatchingSolver with nothing to match, and a
// ShapeMatching on a mapped state, are errors.
func TestSolverErrors(t *testing.T) {
	text := strings.Replace(cuboidScene(""), "  [[node.object]]\n  type = \"ShapeMatching\"\n  name = \"sm\"\n  alpha = 0.5\n", "", 1)
	s, err := graph.Load("bad.toml", []byte(text))
	if err == nil {
		err = s.Init()
	}
	if err == nil || !strings.Contains(err.Error(), "no shape-matching component") {
		t.Errorf("solver without ShapeMatching: %v", err)
	}
	mapped := cuboidScene("") + `
  [[node.node]]
  name = "copy"
    [[node.node.object]]
    type = "MechanicalObject"
    [[node.node.object]]
    type = "IdentityMapping"
    isMechanical = true
    [[node.node.object]]
    type = "UniformMass"
    totalMass = 1
    [[node.node.object]]
    type = "ShapeMatching"
`
	s, err = graph.Load("bad.toml", []byte(mapped))
	if err == nil {
		err = s.Init()
	}
	if err == nil || !strings.Contains(err.Error(), "independent states only") {
		t.Errorf("ShapeMatching on a mapped state: %v", err)
	}
}

// TestSparseGridRegions: on a SparseGridTopology (a capsule STL voxelized on
// 2 cm cells), ring regions come from its tetrahedra and lattice regions
// from its vertices, which sit on the voxel lattice; for both, the goals of
// a rigid motion are the positions (to rounding), and a step runs.
func TestSparseGridRegions(t *testing.T) {
	stl, err := filepath.Abs("../../scenes/meshes/capsule.stl")
	if err != nil {
		t.Fatal(err)
	}
	for _, regions := range []string{"ring", "lattice"} {
		text := `
dt = 0.01
gravity = [0, -9.81, 0]
[[node]]
name = "capsule"
  [[node.object]]
  type = "ShapeMatchingSolver"
  [[node.object]]
  type = "SparseGridTopology"
  filename = "` + filepath.ToSlash(stl) + `"
  cellSize = 0.02
  [[node.object]]
  type = "MechanicalObject"
  [[node.object]]
  type = "DiagonalMass"
  totalMass = 2.86
  [[node.object]]
  type = "ShapeMatching"
  name = "sm"
  regions = "` + regions + `"
`
		s := graphtest.MustLoad(t, "capsule.toml", text)
		sm := graphtest.Find[*ShapeMatching](t, s, "capsule/sm")
		rest := sm.GoalState().Vec(graph.RestPosition)
		R := geom.QuatFromRotVec(geom.Vec3{0.4, -0.3, 1.1}).Mat()
		x := make([]float64, len(rest))
		for i := 0; i < len(rest)/3; i++ {
			geom.Put(x, i, R.MulVec(geom.At(rest, i)).Add(geom.Vec3{1, -2, 3}))
		}
		d := maxAbsDiff(sm.ComputeGoals(x), x)
		t.Logf("%s regions on %d particles: |g − x| for a rigid motion %.3g m", regions, sm.n, d)
		// Object size 0.4 m; sums of order-one terms: rounding.
		if d > 1e-12 {
			t.Errorf("%s: rigid-motion goals off by %.3g m", regions, d)
		}
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestExamplePositionsInline: an example given as position arrays in the
// scene is the same example as one given by SetExamples.
func TestExamplePositionsInline(t *testing.T) {
	base := strings.Replace(cuboidScene("  beta = 1\n"), "n = [5, 9, 5]", "n = [3, 3, 3]", 1)
	_, sm0 := loadWithExamples(t, base, "cuboid/sm", nil)
	rest := sm0.GoalState().Vec(graph.RestPosition)
	ex := cuboidExamples(t, rest)[0]
	var b strings.Builder
	b.WriteString("  examplePositions = [[")
	for i := 0; i < len(ex)/3; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "[%.17g, %.17g, %.17g]", ex[3*i], ex[3*i+1], ex[3*i+2])
	}
	b.WriteString("]]\n")
	_, smInline := loadWithExamples(t, base+b.String(), "cuboid/sm", nil)
	_, smSet := loadWithExamples(t, base, "cuboid/sm", func(testing.TB, []float64) [][]float64 { return [][]float64{ex} })
	x := randomPose(rand.New(rand.NewPCG(17, 18)), rest, 0.01)
	g1 := append([]float64(nil), smInline.ComputeGoals(x)...)
	g2 := smSet.ComputeGoals(x)
	if d := maxAbsDiff(g1, g2); d != 0 {
		t.Errorf("inline and SetExamples examples give goals differing by %.3g", d)
	}
	if smInline.NumExamples() != 1 {
		t.Errorf("%d examples", smInline.NumExamples())
	}
}

// smallCubeWithExample is the cuboid scene on a 3 × 3 × 3 grid with one
// inline example (the rest stretched 20 % along y), plus extra fields.
func smallCubeWithExample(t *testing.T, extra string) string {
	t.Helper()
	g, err := topology.NewRegularGrid([3]float64{}, [3]float64{0.2, 0.8, 0.2}, [3]int{3, 3, 3})
	if err != nil {
		t.Fatal(err)
	}
	p := g.Points()
	var b strings.Builder
	b.WriteString("  examplePositions = [[")
	for i := 0; i < len(p)/3; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "[%g, %g, %g]", p[3*i], 1.2*p[3*i+1], p[3*i+2])
	}
	b.WriteString("]]\n")
	return strings.Replace(cuboidScene(b.String()+extra), "n = [5, 9, 5]", "n = [3, 3, 3]", 1)
}
