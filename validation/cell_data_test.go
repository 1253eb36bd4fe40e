package validation

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/sofago/sofago/components/visual"
	"github.com/sofago/sofago/graph/graphtest"
)

// TestUniaxialBarCellData: the bar of the uniaxial tests, pulled or pushed
// by the nominal traction p and solved by Newton (uniaxialBarScene), gives
// every tetrahedron the von Mises stress and strain-energy density of the
// closed form, through the cell data an exporter writes:
//
//   - StVK (ν = 0 and 0.3), p = E(ε + 3ε²/2 + ε³/2): the Cauchy stress is
//     uniaxial with σ₁₁ = P₁₁·s/J = p/t² (J = s t², t = √(1 − 2ν E₁₁)
//     the lateral stretch; σ₁₁ = p for ν = 0), so vonMisesStress = p/t²;
//     strainEnergyDensity = E E₁₁²/2, E₁₁ = ε + ε²/2;
//   - TetrahedronFEMForceField (methods large, polar, svd; ν = 0.3): the
//     corotational bar is linear in the rotated strain, σ₁₁ = p, so
//     vonMisesStress = p and strainEnergyDensity = p²/(2E).
//
// The solve stops at a relative residual of 1e-13 and the existing
// uniaxial tests measure the stress of the computed stretch to 5e-14; the
// element F is recovered from coordinates of size 1 through 0.2 m cells
// (rounding ~1e-15, i.e. ~1e-14/ε relative on a stress ∝ ε). Measured:
// at most 7.1e-14 (logged); the tolerance is 1e-12.
func TestUniaxialBarCellData(t *testing.T) {
	worst := 0.0
	check := func(what, text string, vmWant, psiWant float64) {
		t.Helper()
		sc := graphtest.MustLoad(t, "bar.toml", text)
		if err := sc.Step(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		var p visual.CellDataProvider
		for _, o := range sc.Root.Child("bar").Objects {
			if c, ok := o.(visual.CellDataProvider); ok {
				p = c
			}
		}
		if p == nil {
			t.Fatalf("%s: the force field provides no cell data", what)
		}
		data := p.CellData()
		vm, psi := data["vonMisesStress"], data["strainEnergyDensity"]
		if len(vm) != 120 || len(psi) != 120 {
			t.Fatalf("%s: %d and %d values, want one per tetrahedron (120)", what, len(vm), len(psi))
		}
		vmErr, psiErr := 0.0, 0.0
		for e := range vm {
			vmErr = math.Max(vmErr, math.Abs(vm[e]-vmWant)/vmWant)
			psiErr = math.Max(psiErr, math.Abs(psi[e]-psiWant)/psiWant)
		}
		worst = math.Max(worst, math.Max(vmErr, psiErr))
		t.Logf("%s: von Mises %.9g Pa (closed form %.9g), energy density %.9g J/m³ (%.9g): errors %.2g, %.2g", what, vm[0], vmWant, psi[0], psiWant, vmErr, psiErr)
		if vmErr > 1e-12 || psiErr > 1e-12 {
			t.Errorf("%s: relative errors %.3g (von Mises), %.3g (energy density)", what, vmErr, psiErr)
		}
	}
	for _, nu := range []float64{0, 0.3} {
		for _, eps := range []float64{-0.1, 0.1, 0.3} {
			p := uniaxialStVK(barE, eps)
			e11 := eps + eps*eps/2
			tl := math.Sqrt(1 - 2*nu*e11)
			check(fmt.Sprintf("StVK ν = %g ε = %+g", nu, eps), uniaxialBarScene(t, "StVenantKirchhoff", nu, p),
				math.Abs(p)/(tl*tl), barE*e11*e11/2)
		}
	}
	const nu = 0.3
	for _, method := range []string{"large", "polar", "svd"} {
		for _, p := range []float64{-1e5, 2e5} {
			text := strings.Replace(uniaxialBarScene(t, "StVenantKirchhoff", nu, p),
				"type = \"TetrahedronHyperelasticityFEMForceField\"\n  materialName = \"StVenantKirchhoff\"",
				fmt.Sprintf("type = \"TetrahedronFEMForceField\"\n  method = %q", method), 1)
			if !strings.Contains(text, "TetrahedronFEMForceField\"\n  method") {
				t.Fatal("scene edit failed")
			}
			check(fmt.Sprintf("TetrahedronFEMForceField %s p = %g", method, p), text, math.Abs(p), p*p/(2*barE))
		}
	}
	t.Logf("worst relative error %.2g", worst)
}
