package runscene

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sofago/sofago/components/topology"
	"github.com/sofago/sofago/components/visual"
	"github.com/sofago/sofago/geom"
)

// barTractionScene is a 1 × 0.4 × 0.4 m bar (5 × 2 × 2 cubes, 120
// tetrahedra) of TetrahedronFEMForceField (method large, E = 1e6 Pa,
// ν = 0.3) on symmetry-plane supports, pulled by the consistent nodal
// forces of a uniform traction p on its end x = 1 and solved statically
// in one step. The discrete solution is the homogeneous uniaxial state
// (validation/hyperelastic_bar_test.go explains why), in which the
// corotational stress is σ₁₁ = p: every tetrahedron has von Mises stress
// |p| and strain-energy density p²/(2E).
func barTractionScene(t *testing.T, p float64) string {
	t.Helper()
	n := [3]int{6, 3, 3}
	g, err := topology.NewRegularGrid([3]float64{}, [3]float64{1, 0.4, 0.4}, n)
	if err != nil {
		t.Fatal(err)
	}
	pts := g.Points()
	load := map[int]float64{}
	for _, tri := range g.Triangles() {
		onEnd := true
		for _, v := range tri {
			onEnd = onEnd && pts[3*v] == 1
		}
		if onEnd {
			a, b, c := geom.At(pts, tri[0]), geom.At(pts, tri[1]), geom.At(pts, tri[2])
			area := 0.5 * b.Sub(a).Cross(c.Sub(a)).Norm()
			for _, v := range tri {
				load[v] += p * area / 3
			}
		}
	}
	var idx, forces []string
	for v := 0; v < len(pts)/3; v++ {
		if f, ok := load[v]; ok {
			idx = append(idx, fmt.Sprint(v))
			forces = append(forces, fmt.Sprintf("[%.17g, 0, 0]", f))
		}
	}
	return fmt.Sprintf(`steps = 1
[[node]]
name = "bar"
  [[node.object]]
  type = "StaticSolver"
  iterations = 40
  tolerance = 1e-13
  [[node.object]]
  type = "CGLinearSolver"
  iterations = 2000
  tolerance = 1e-13
  [[node.object]]
  type = "RegularGridTopology"
  min = [0, 0, 0]
  max = [1, 0.4, 0.4]
  n = [%d, %d, %d]
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[node.object]]
  type = "TetrahedronFEMForceField"
  method = "large"
  youngModulus = 1e6
  poissonRatio = 0.3
  [[node.object]]
  type = "ConstantForceField"
  indices = [%s]
  forces = [%s]
  [[node.object]]
  type = "PartialFixedConstraint"
  box = [-1e-9, -1, -1, 1e-9, 1, 1]
  fixedDirections = [true, false, false]
  [[node.object]]
  type = "PartialFixedConstraint"
  box = [-1, -1e-9, -1, 2, 1e-9, 1]
  fixedDirections = [false, true, false]
  [[node.object]]
  type = "PartialFixedConstraint"
  box = [-1, -1, -1e-9, 2, 1, 1e-9]
  fixedDirections = [false, false, true]
`, n[0], n[1], n[2], strings.Join(idx, ", "), strings.Join(forces, ", "))
}

// -out writes the force field's cell data with the tetrahedra: the first
// frame (rest) has zero stress and energy, the solved frame the closed
// form, read back with the VTU reader. Tolerances: at rest F = Dm·Dm⁻¹ is
// the identity to rounding, so stresses are ~E·1e-15 = 1e-9 Pa (bound
// 1e-6 Pa, energies 1e-12 J/m³); solved, the Newton tolerance 1e-13 and
// F's rounding ~1e-15/ε (ε = 0.2) give ~1e-14 relative (the validation
// test measures 7e-14; bound 1e-12).
func TestOutCellData(t *testing.T) {
	const p, E = 2e5, 1e6
	text := barTractionScene(t, p)
	needTypes(t, text)
	scene := writeScene(t, text)
	dir := filepath.Join(t.TempDir(), "out")
	r := runBin(t, "-out", dir, scene)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for frame, want := range []struct{ vm, psi, tol float64 }{{0, 0, 0}, {p, p * p / (2 * E), 1e-12}} {
		g, err := readVTUFile(filepath.Join(dir, fmt.Sprintf("bar_dofs_%06d.vtu", frame)))
		if err != nil {
			t.Fatal(err)
		}
		if g.NumCells() != 120 || g.Types[0] != visual.CellTetrahedron {
			t.Fatalf("frame %d: %d cells of type %d, want 120 tetrahedra", frame, g.NumCells(), g.Types[0])
		}
		for _, a := range []struct {
			name      string
			want, abs float64 // closed form, and its bound at rest
		}{{"vonMisesStress", want.vm, 1e-6}, {"strainEnergyDensity", want.psi, 1e-12}} {
			arr := g.CellArray(a.name)
			if arr == nil || arr.Components != 1 || len(arr.Values) != 120 {
				t.Fatalf("frame %d: cell array %q is %+v; want 120 scalars", frame, a.name, arr)
			}
			worst := 0.0
			for _, v := range arr.Values {
				if a.want == 0 {
					worst = math.Max(worst, math.Abs(v))
				} else {
					worst = math.Max(worst, math.Abs(v-a.want)/a.want)
				}
			}
			bound := a.abs
			if a.want != 0 {
				bound = want.tol
			}
			t.Logf("frame %d %s: closed form %g, worst deviation %.2g", frame, a.name, a.want, worst)
			if worst > bound {
				t.Errorf("frame %d %s: worst deviation %.3g from %g exceeds %g", frame, a.name, worst, a.want, bound)
			}
		}
	}
}

// A result reused as a mesh: a beam run with -out, the .vtu of its last
// frame loaded by MeshLoader in another scene. The second scene's
// positions are the frame's points bit for bit (the VTU writer and the
// JSON dump both print shortest round-trip decimals), its elastic forces
// vanish (the loaded shape is its rest shape), and it runs.
func TestOutVTUReusedByMeshLoader(t *testing.T) {
	first := `dt = 0.01
steps = 5
gravity = [0, -9.81, 0]
[[node]]
name = "beam"
  [[node.object]]
  type = "EulerImplicitSolver"
  [[node.object]]
  type = "CGLinearSolver"
  iterations = 200
  tolerance = 1e-10
  [[node.object]]
  type = "RegularGridTopology"
  min = [0, 0, 0]
  max = [1, 0.1, 0.1]
  n = [6, 2, 2]
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[node.object]]
  type = "UniformMass"
  totalMass = 1
  [[node.object]]
  type = "TetrahedronFEMForceField"
  youngModulus = 1e5
  poissonRatio = 0.3
  [[node.object]]
  type = "FixedConstraint"
  box = [-0.01, -1, -1, 0.01, 1, 1]
`
	needTypes(t, first)
	out := filepath.Join(t.TempDir(), "out")
	if r := runBin(t, "-out", out, writeScene(t, first)); r.code != 0 {
		t.Fatalf("first run: exit %d: %s", r.code, r.stderr)
	}
	frames, err := readPVDFile(filepath.Join(out, "beam_dofs.pvd"))
	if err != nil {
		t.Fatal(err)
	}
	last := filepath.Join(out, frames[len(frames)-1].File)
	g, err := readVTUFile(last)
	if err != nil {
		t.Fatal(err)
	}
	if d := g.Array("displacement"); d == nil || !(d.Values[3*(g.NumPoints()-1)+1] < -1e-4) {
		t.Fatalf("the last frame is not deformed: %+v", d)
	}

	second := strings.NewReplacer(
		"  type = \"RegularGridTopology\"\n  min = [0, 0, 0]\n  max = [1, 0.1, 0.1]\n  n = [6, 2, 2]",
		fmt.Sprintf("  type = \"MeshLoader\"\n  filename = %q", last),
		"steps = 5", "steps = 3",
	).Replace(first)
	if !strings.Contains(second, "MeshLoader") {
		t.Fatal("scene edit failed")
	}
	p := writeScene(t, second)
	dump := filepath.Join(filepath.Dir(p), "d.json")
	r := runBin(t, "-steps", "0", "-dump", dump, p)
	if r.code != 0 {
		t.Fatalf("second scene: exit %d: %s", r.code, r.stderr)
	}
	d := readDump(t, dump)
	st := d.States[0]
	if st.Path != "beam/dofs" || len(st.Position) != g.NumPoints() {
		t.Fatalf("state %s with %d points, the VTU has %d", st.Path, len(st.Position), g.NumPoints())
	}
	// Elastic forces at the rest shape are rounding (E·1e-15 × areas of
	// 1e-3 m²: 1e-13 N) next to the weight of a vertex, 1/24 kg × 9.81.
	weight := 9.81 / float64(g.NumPoints())
	for v, x := range st.Position {
		for c := 0; c < 3; c++ {
			if math.Float64bits(x[c]) != math.Float64bits(g.Points[3*v+c]) {
				t.Fatalf("point %d: position %v, the VTU has %v", v, x, g.Points[3*v:3*v+3])
			}
		}
		// The dump's forces are not projected: clamped points too
		// carry their weight.
		if f := st.Force[v]; math.Abs(f[0]) > 1e-9*weight || math.Abs(f[1]+weight) > 1e-9*weight || math.Abs(f[2]) > 1e-9*weight {
			t.Errorf("point %d: force %v, want its weight alone, [0, %g, 0]", v, f, -weight)
		}
	}
	if r := runBin(t, p); r.code != 0 {
		t.Fatalf("second scene, 3 steps: exit %d: %s", r.code, r.stderr)
	}
	// The MeshLoader's .vtu goes through the same file:line errors as
	// every mesh file.
	bad := filepath.Join(t.TempDir(), "bad.vtu")
	data, _ := os.ReadFile(last)
	if err := os.WriteFile(bad, []byte(strings.Replace(string(data), `format="ascii"`, `format="binary"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runBin(t, writeScene(t, strings.Replace(second, last, bad, 1)))
	if r.code != 1 || !strings.Contains(r.stderr, bad+":5: ") || !strings.Contains(r.stderr, `format "binary" not supported`) {
		t.Errorf("binary .vtu: exit %d, stderr %q", r.code, r.stderr)
	}
}
