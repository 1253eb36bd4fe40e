package runscene

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sofago/sofago/components/topology"
)

// The plastic strains of hexahedra and of elastons reach the JSON dump's
// "objects" section (and, for hexahedra, the VTU cell data), as those of
// the tetrahedra do (TestDumpPlasticStrain).
//
// Hexahedra: the 1 × 0.4 × 0.4 m bar of barTractionScene as 5 × 2 × 2
// trilinear hexahedra (HexahedronFEMForceField, large), pulled by the
// consistent nodal loads of a uniform traction p on its bilinear end
// face (p A/4 per quad corner) and solved statically: the homogeneous
// uniaxial state a − 1 = p/E = 0.2, b − 1 = −νp/E, so the flow rule sets
// εₚ = c·diag(0.2, −0.06, −0.06) in all 20 hexahedra. Tolerance 1e-12, as
// for the tetrahedra.
//
// Elastons: the two-frame cantilever of scenes/frames_elaston_bend.toml
// (one F332 sample, Linear law, ν = 0) bent by an end couple to the
// curvature κ = M/(EI) = 0.4 /m: its one sample dumps a zero plastic
// membrane strain (6 numbers) and the plastic bending strains (18
// numbers), of which β^y_xx = −c κ (the pure-bending field is in the span
// and the law linear; tolerance 1e-9 relative, the static solve's).
func TestDumpPlasticStrainHexahedraAndElastons(t *testing.T) {
	const p, E, nu, c = 2e5, 1e6, 0.3, 0.5
	g, err := topology.NewRegularGrid([3]float64{}, [3]float64{1, 0.4, 0.4}, [3]int{6, 3, 3})
	if err != nil {
		t.Fatal(err)
	}
	pts := g.Points()
	load := map[int]float64{}
	for v := 0; v < len(pts)/3; v++ {
		if pts[3*v] != 1 {
			continue
		}
		// Quads of 0.2 × 0.2 around the node: 1 at a corner, 2 on an edge, 4 inside.
		n := 1.0
		for _, y := range []float64{pts[3*v+1], pts[3*v+2]} {
			if y > 0 && y < 0.4 {
				n *= 2
			}
		}
		load[v] = n * p * 0.04 / 4
	}
	var idx, forces []string
	for v := 0; v < len(pts)/3; v++ {
		if f, ok := load[v]; ok {
			idx = append(idx, fmt.Sprint(v))
			forces = append(forces, fmt.Sprintf("[%.17g, 0, 0]", f))
		}
	}
	hex := fmt.Sprintf(`steps = 1
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
  n = [6, 3, 3]
  elements = "hexahedra"
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[node.object]]
  type = "HexahedronFEMForceField"
  name = "fem"
  youngModulus = %g
  poissonRatio = %g
  plasticYieldThreshold = 0.01
  plasticMaxThreshold = 0.5
  plasticCreep = %g
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
`, E, nu, c, strings.Join(idx, ", "), strings.Join(forces, ", "))
	needTypes(t, hex)
	dump := filepath.Join(t.TempDir(), "h.json")
	dir := filepath.Join(t.TempDir(), "out")
	if r := runBin(t, "-dump", dump, "-out", dir, writeScene(t, hex)); r.code != 0 {
		t.Fatalf("hexahedra: exit %d: %s", r.code, r.stderr)
	}
	want := []float64{c * p / E, -c * nu * p / E, -c * nu * p / E, 0, 0, 0}
	check := func(where string, rows [][]float64, n int, want []float64, tol float64) {
		t.Helper()
		if len(rows) != n {
			t.Fatalf("%s: %d rows, want %d", where, len(rows), n)
		}
		worst := 0.0
		for _, r := range rows {
			if len(r) != len(want) {
				t.Fatalf("%s: row of %d numbers, want %d", where, len(r), len(want))
			}
			for i := range r {
				worst = math.Max(worst, math.Abs(r[i]-want[i]))
			}
		}
		t.Logf("%s: worst deviation from the flow rule %.2g", where, worst)
		if worst > tol {
			t.Errorf("%s: plastic strain off the flow rule's %v by %.3g", where, want, worst)
		}
	}
	obj := func(path, dumpFile string) map[string]json.RawMessage {
		t.Helper()
		d := readDump(t, dumpFile)
		if len(d.Objects) != 1 {
			t.Fatalf("dump has %d objects, want 1", len(d.Objects))
		}
		var got string
		if err := json.Unmarshal(d.Objects[0]["path"], &got); err != nil || got != path {
			t.Fatalf("dump object path %q (%v), want %q", got, err, path)
		}
		return d.Objects[0]
	}
	rows := func(raw json.RawMessage) [][]float64 {
		t.Helper()
		var r [][]float64
		if err := json.Unmarshal(raw, &r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	check("hexahedra dump", rows(obj("bar/fem", dump)["plasticStrain"]), 20, want, 1e-12)
	vg, err := readVTUFile(filepath.Join(dir, "bar_dofs_000001.vtu"))
	if err != nil {
		t.Fatal(err)
	}
	arr := vg.CellArray("plasticStrain")
	if arr == nil || arr.Components != 6 {
		t.Fatalf("VTU cell array plasticStrain is %+v; want 6 components", arr)
	}
	var vr [][]float64
	for i := 0; i+6 <= len(arr.Values); i += 6 {
		vr = append(vr, arr.Values[i:i+6])
	}
	check("hexahedra VTU", vr, 20, want, 1e-12)

	// Elastons.
	const kappa, h = 0.4, 0.1
	M := kappa * E * h * h * h * h / 12
	el := fmt.Sprintf(`steps = 1
gravity = [0, 0, 0]
[[node]]
name = "bar"
  [[node.object]]
  type = "StaticSolver"
  iterations = 20
  tolerance = 1e-13
  absoluteTolerance = 1e-11
  [[node.object]]
  type = "CGLinearSolver"
  iterations = 1000
  tolerance = 1e-15
  [[node.object]]
  type = "MaterialGrid"
  box = [0, -0.05, -0.05, 1, 0.05, 0.05]
  resolution = [40, 4, 4]
  massDensity = 1000
  youngModulus = %g
  [[node.object]]
  type = "MechanicalObject"
  name = "frames"
  template = "Affine3"
  position = [[0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1], [1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1]]
  [[node.object]]
  type = "BarycentricShapeFunction"
  [[node.object]]
  type = "FixedConstraint"
  indices = [0]
  [[node.node]]
  name = "samples"
    [[node.node.object]]
    type = "SparseSampler"
    count = 1
    order = 2
    [[node.node.object]]
    type = "MechanicalObject"
    name = "F"
    template = "F332"
    [[node.node.object]]
    type = "LinearBlendSkinningMapping"
    [[node.node.object]]
    type = "DeformationGradientForceField"
    name = "ff"
    materialName = "Linear"
    youngModulus = %g
    poissonRatio = 0
    plasticYieldThreshold = 0.005
    plasticMaxThreshold = 0.5
    plasticCreep = %g
  [[node.node]]
  name = "couple"
    [[node.node.object]]
    type = "MechanicalObject"
    position = [[1, 0.05, 0], [1, -0.05, 0]]
    [[node.node.object]]
    type = "LinearBlendSkinningMapping"
    [[node.node.object]]
    type = "ConstantForceField"
    forces = [[%.17g, 0, 0], [%.17g, 0, 0]]
`, E, E, c, -M/h, M/h)
	needTypes(t, el)
	dump = filepath.Join(t.TempDir(), "e.json")
	if r := runBin(t, "-dump", dump, writeScene(t, el)); r.code != 0 {
		t.Fatalf("elastons: exit %d: %s", r.code, r.stderr)
	}
	o := obj("bar/samples/ff", dump)
	check("elaston membrane", rows(o["plasticStrain"]), 1, make([]float64, 6), 1e-12)
	wantB := make([]float64, 18)
	wantB[6] = -c * kappa // β^y_xx
	check("elaston bending", rows(o["plasticBendingStrain"]), 1, wantB, 1e-9*kappa)
}
