package mass_test

import (
	"encoding/json"
	"math"
	"os"
	"testing"

	"github.com/sofago/sofago/components/mass"
	"github.com/sofago/sofago/graph/graphtest"
)

// vegaMass is testdata/vega/mass.json (VegaFEM 4.0 GenerateMassMatrix and
// computeVertexMasses on the reference bar; see testdata/vega/README.md).
type vegaMass struct {
	Lumped     []float64 `json:"lumped_vertex_mass"`
	Diag       []float64 `json:"consistent_diag_per_vertex"`
	TotalDiv3  float64   `json:"total_mass_sum_of_all_entries_of_3n_matrix_div3"`
	TotalLump  float64   `json:"total_mass_from_lumped"`
	Consistent struct {
		N      int       `json:"n"`
		RowPtr []int     `json:"rowptr"`
		Col    []int     `json:"col"`
		Val    []float64 `json:"val"`
	} `json:"consistent_scalar_mass_csr"`
}

// vegaBarMasses builds the reference bar (RegularGridTopology min [0,0,0],
// max [0.2,0.2,1], n [3,3,11] reproduces Vega's mesh exactly: see the
// topology tests) with both masses at ρ = 1000 kg/m³.
func vegaBarMasses(t *testing.T) (*mass.MeshMatrixMass, *mass.DiagonalMass) {
	t.Helper()
	scene := func(typ string) string {
		return `
[[node]]
name = "bar"
  [[node.object]]
  type = "RegularGridTopology"
  min = [0, 0, 0]
  max = [0.2, 0.2, 1]
  n = [3, 3, 11]
  [[node.object]]
  type = "MechanicalObject"
  [[node.object]]
  type = "` + typ + `"
  name = "mass"
  massDensity = 1000
`
	}
	s1 := graphtest.MustLoad(t, "vega.toml", scene("MeshMatrixMass"))
	s2 := graphtest.MustLoad(t, "vega.toml", scene("DiagonalMass"))
	return graphtest.Find[*mass.MeshMatrixMass](t, s1, "bar/mass"), graphtest.Find[*mass.DiagonalMass](t, s2, "bar/mass")
}

// TestMassesAgreeWithVegaFEM compares both masses with VegaFEM's on its
// reference bar: the consistent scalar matrix entry by entry (same sparsity
// pattern, sorted columns), its diagonal, the lumped vertex masses and the
// totals. Every entry is a sum of at most 24 terms ρV/20 or ρV/10 (a vertex
// is in at most 24 Kuhn tetrahedra), so the two implementations differ only
// by the rounding of those sums: 1e-12 relative is a thousand times that.
func TestMassesAgreeWithVegaFEM(t *testing.T) {
	data, err := os.ReadFile("../../testdata/vega/mass.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref vegaMass
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatal(err)
	}
	mm, dm := vegaBarMasses(t)
	rowPtr, col, val := mm.ScalarMatrix()
	const tol = 1e-12
	if len(rowPtr) != ref.Consistent.N+1 || len(col) != len(ref.Consistent.Col) {
		t.Fatalf("pattern: %d rows and %d entries, Vega %d rows and %d entries", len(rowPtr)-1, len(col), ref.Consistent.N, len(ref.Consistent.Col))
	}
	for i := range rowPtr {
		if int(rowPtr[i]) != ref.Consistent.RowPtr[i] {
			t.Fatalf("rowptr[%d] = %d, Vega %d", i, rowPtr[i], ref.Consistent.RowPtr[i])
		}
	}
	worst := 0.0
	for k := range col {
		if int(col[k]) != ref.Consistent.Col[k] {
			t.Fatalf("col[%d] = %d, Vega %d", k, col[k], ref.Consistent.Col[k])
		}
		worst = math.Max(worst, math.Abs(val[k]-ref.Consistent.Val[k])/math.Abs(ref.Consistent.Val[k]))
	}
	t.Logf("consistent scalar matrix: %d rows, %d entries, max relative difference to Vega %.3g", len(rowPtr)-1, len(col), worst)
	if worst > tol {
		t.Errorf("consistent scalar matrix differs from Vega's by %.3g relative (tolerance %g)", worst, tol)
	}
	worstDiag, worstLump, sumAll, sumLump := 0.0, 0.0, 0.0, 0.0
	for i := 0; i+1 < len(rowPtr); i++ {
		for k := rowPtr[i]; k < rowPtr[i+1]; k++ {
			sumAll += val[k]
			if int(col[k]) == i {
				worstDiag = math.Max(worstDiag, math.Abs(val[k]-ref.Diag[i])/ref.Diag[i])
			}
		}
	}
	lumped := dm.VertexMasses()
	if len(lumped) != len(ref.Lumped) {
		t.Fatalf("%d lumped masses, Vega %d", len(lumped), len(ref.Lumped))
	}
	for i, m := range lumped {
		worstLump = math.Max(worstLump, math.Abs(m-ref.Lumped[i])/ref.Lumped[i])
		sumLump += m
		// MeshMatrixMass's row sums are the same lumped masses, bit for bit
		// (one shared computation).
		if mm.VertexMasses()[i] != m {
			t.Errorf("vertex %d: MeshMatrixMass row sum %.17g, DiagonalMass %.17g", i, mm.VertexMasses()[i], m)
		}
	}
	t.Logf("consistent diagonal: max relative difference %.3g; lumped masses: %.3g; totals %.17g (matrix) and %.17g (lumped), Vega %.17g and %.17g",
		worstDiag, worstLump, sumAll, sumLump, ref.TotalDiv3, ref.TotalLump)
	if worstDiag > tol || worstLump > tol {
		t.Errorf("diagonal (%.3g) or lumped masses (%.3g) differ from Vega's beyond %g", worstDiag, worstLump, tol)
	}
	// ρ·V = 1000 · 0.2·0.2·1 = 40 kg.
	for _, total := range []float64{sumAll, sumLump, ref.TotalDiv3, ref.TotalLump} {
		if math.Abs(total-40) > tol*40 {
			t.Errorf("total mass %.17g, want 40 kg", total)
		}
	}
}
