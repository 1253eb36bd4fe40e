package material

import (
	"math"
	"testing"
)

func TestLame(t *testing.T) {
	// The VegaFEM reference material: E = 1e6, ν = 0.45 gives
	// λ = 3103448.27586207, μ = 344827.5862068966 (its README).
	l, m := Lame(1e6, 0.45)
	if math.Abs(l-3103448.27586207) > 1e-6 || math.Abs(m-344827.5862068966) > 1e-9 {
		t.Errorf("Lame(1e6, 0.45) = %v, %v", l, m)
	}
}

func TestStiffnessAndDensityMaps(t *testing.T) {
	// Two tetrahedra: centroids at x = 0.25 and x = 1.25.
	pts := []float64{0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0, 2, 0, 0, 1, 1, 0, 1, 0, 1}
	tets := [][4]int{{0, 1, 2, 3}, {4, 5, 6, 7}}
	sm := StiffnessMap{Regions: []StiffnessRegion{
		{Shape: Shape{Box: []float64{1, -1, -1, 3, 1, 1}}, YoungModulus: 5},
		{Shape: Shape{Box: []float64{1.2, -1, -1, 3, 1, 1}}, YoungModulus: 6}, // last containing region wins
	}}
	dm := DensityMap{Regions: []DensityRegion{{Shape: Shape{Sphere: []float64{0.25, 0.25, 0.25, 0.1}}, MassDensity: 7}}}
	if err := sm.CheckStiffnessMap(); err != nil {
		t.Fatal(err)
	}
	if err := dm.CheckDensityMap(); err != nil {
		t.Fatal(err)
	}
	E, _ := sm.YoungModuli(pts, tets, 1)
	rho, _ := dm.MassDensities(pts, tets, 2)
	if E[0] != 1 || E[1] != 6 || rho[0] != 7 || rho[1] != 2 {
		t.Errorf("E = %v, rho = %v", E, rho)
	}
	if _, err := (&StiffnessMap{YoungModulusPerElement: []float64{3}}).YoungModuli(pts, tets, 1); err == nil {
		t.Error("wrong per-element length accepted")
	}
	for _, bad := range []Shape{{}, {Box: []float64{0, 0, 0, 1, 1}}, {Sphere: []float64{0, 0, 0, -1}},
		{Box: []float64{2, 0, 0, 1, 1, 1}}, {Box: []float64{0, 0, 0, 1, 1, 1}, Sphere: []float64{0, 0, 0, 1}}} {
		m := StiffnessMap{Regions: []StiffnessRegion{{Shape: bad, YoungModulus: 1}}}
		if m.CheckStiffnessMap() == nil {
			t.Errorf("region %+v accepted", bad)
		}
	}
}
