package runscene

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The plastic strains of a tetrahedral force field reach the JSON dump
// (its optional "objects" section) and the VTU cell data
// (plasticStrain, six components). The bar of barTractionScene is pulled
// to the homogeneous uniaxial state a − 1 = p/E = 0.2, b − 1 = −νp/E
// (corotational, exact) in one static step; the step-end flow rule then
// sets εₚ = c·diag(0.2, −0.06, −0.06) in every element (yield 0.01 <
// ‖εₑ‖ = 0.218, max 0.5 > c‖εₑ‖). Tolerance 1e-12: the solve's tolerance
// is 1e-13 (see TestOutCellData) and the dump prints round-trip decimals.
func TestDumpPlasticStrain(t *testing.T) {
	const p, E, nu, c = 2e5, 1e6, 0.3, 0.5
	text := barTractionScene(t, p)
	fem := "  poissonRatio = 0.3\n  [[node.object]]\n  type = \"ConstantForceField\""
	if !strings.Contains(text, fem) {
		t.Fatal("barTractionScene changed: no force field line to extend")
	}
	text = strings.Replace(text, fem, `  poissonRatio = 0.3
  name = "fem"
  plasticYieldThreshold = 0.01
  plasticMaxThreshold = 0.5
  plasticCreep = 0.5
  [[node.object]]
  type = "ConstantForceField"`, 1)
	needTypes(t, text)
	scene := writeScene(t, text)
	dump := filepath.Join(t.TempDir(), "d.json")
	dir := filepath.Join(t.TempDir(), "out")
	if r := runBin(t, "-dump", dump, "-out", dir, scene); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	want := [6]float64{c * p / E, -c * nu * p / E, -c * nu * p / E, 0, 0, 0}
	check := func(where string, rows [][]float64) {
		t.Helper()
		if len(rows) != 120 {
			t.Fatalf("%s: %d rows, want 120 tetrahedra", where, len(rows))
		}
		worst := 0.0
		for _, r := range rows {
			if len(r) != 6 {
				t.Fatalf("%s: row of %d numbers, want 6", where, len(r))
			}
			for i := range r {
				worst = math.Max(worst, math.Abs(r[i]-want[i]))
			}
		}
		t.Logf("%s: worst deviation from the flow rule %.2g", where, worst)
		if worst > 1e-12 {
			t.Errorf("%s: plastic strain off the flow rule's %v by %.3g", where, want, worst)
		}
	}

	data, err := os.ReadFile(dump)
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Objects []struct {
			Path          string      `json:"path"`
			PlasticStrain [][]float64 `json:"plasticStrain"`
		} `json:"objects"`
	}
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatalf("dump is not JSON: %v", err)
	}
	if len(d.Objects) != 1 || d.Objects[0].Path != "bar/fem" {
		t.Fatalf("dump objects %+v, want one for bar/fem", d.Objects)
	}
	check("dump", d.Objects[0].PlasticStrain)
	// The whole dump keeps the documented shape.
	readDump(t, dump)

	g, err := readVTUFile(filepath.Join(dir, "bar_dofs_000001.vtu"))
	if err != nil {
		t.Fatal(err)
	}
	arr := g.CellArray("plasticStrain")
	if arr == nil || arr.Components != 6 {
		t.Fatalf("VTU cell array plasticStrain is %+v; want 6 components", arr)
	}
	var rows [][]float64
	for i := 0; i+6 <= len(arr.Values); i += 6 {
		rows = append(rows, arr.Values[i:i+6])
	}
	check("VTU", rows)
}
