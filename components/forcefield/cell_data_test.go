package forcefield

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/material"
)

// The cell data tests put a grid in a homogeneous uniaxial state
// x = Q·diag(s, t, t)·X (Q a rotation, s = 1 + ε the axial stretch, t the
// lateral stretch at which the lateral stress of the law vanishes) and
// compare every element's vonMisesStress and strainEnergyDensity with the
// closed forms of a bar in uniaxial stress: the von Mises stress of a
// uniaxial stress is |σ₁₁|.
//
// Tolerances: F is recovered from vertex coordinates of size ≤ 1 through
// Dm⁻¹ of 0.2 m cells, so its entries carry rounding of ~1e-15 absolute.
// The stresses are linear in F − R ~ ε, hence a relative rounding of
// ~1e-15/|ε|: the von Mises tolerance is 1e-14/|ε| (measured ≤ 1.9e-14 at
// ε = 0.05 against 2e-13). The energy densities are ~μ ε², but the
// neo-Hookean one is a sum of terms of size μ ε (μ/2 (tr C − 3) and
// −μ ln J) that cancel: the rounding of tr C − 3, ~1e-15, makes a
// relative ~1e-15/ε²; the tolerance is 1e-14/ε² (measured 7.9e-13 at
// ε = 0.05 against 4e-12; the other laws stay below 5e-14).
func cellTolerances(eps float64) (vonMises, energy float64) {
	return 1e-14 / math.Abs(eps), 1e-14 / (eps * eps)
}

var (
	cellN    = [3]int{6, 3, 3}
	cellSize = [3]float64{1, 0.4, 0.4}
)

// uniaxialClosedForm holds the closed form of one law at axial strain ε.
type uniaxialClosedForm struct {
	t         float64 // lateral stretch
	vonMises  float64 // |σ₁₁| of the reported stress, Pa
	energyDen float64 // Ψ per rest volume, J/m³
}

// stvkUniaxial: with free lateral faces S₂₂ = 0 gives E₂₂ = −ν E₁₁ and
// S₁₁ = E·E₁₁ (E₁₁ = ε + ε²/2), so t = √(1 − 2ν E₁₁) and
// P₁₁ = s S₁₁ (= E(ε + 3ε²/2 + ε³/2) for ν = 0, where t = 1). The Cauchy
// stress σ = J⁻¹ P Fᵀ with J = s t² is uniaxial, σ₁₁ = s² S₁₁ / (s t²) =
// s S₁₁ / t². Energy: Ψ = μ(E₁₁² + 2E₂₂²) + λ/2 (E₁₁ + 2E₂₂)² = E E₁₁²/2.
func stvkUniaxial(E, nu, eps float64) uniaxialClosedForm {
	s := 1 + eps
	e11 := eps + eps*eps/2
	t := math.Sqrt(1 - 2*nu*e11)
	return uniaxialClosedForm{t: t, vonMises: math.Abs(s * E * e11 / (t * t)), energyDen: E * e11 * e11 / 2}
}

// neoHookeanUniaxial: the lateral stretch t solves μ(t² − 1) + λ ln(s t²)
// = 0 (bisection), P₁₁ = μ(s − 1/s) + λ ln(J)/s, J = s t², and
// σ₁₁ = P₁₁ s / J; Ψ = μ/2 (s² + 2t² − 3) − μ ln J + λ/2 (ln J)²
// (J = s t² > 0.2, the unpatched branch of material.NeoHookean).
func neoHookeanUniaxial(E, nu, eps float64) uniaxialClosedForm {
	lam, mu := material.Lame(E, nu)
	s := 1 + eps
	lo, hi := 0.1, 10.0
	for i := 0; i < 200; i++ {
		mid := 0.5 * (lo + hi)
		if mu*(mid*mid-1)+lam*math.Log(s*mid*mid) < 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	t := 0.5 * (lo + hi)
	J := s * t * t
	P := mu*(s-1/s) + lam*math.Log(J)/s
	psi := mu/2*(s*s+2*t*t-3) - mu*math.Log(J) + lam/2*math.Log(J)*math.Log(J)
	return uniaxialClosedForm{t: t, vonMises: math.Abs(P * s / J), energyDen: psi}
}

// corotationalUniaxial: the corotational laws are linear in the rotated
// strain ε = sym(RᵀF) − I = diag(s−1, t−1, t−1); the lateral stress
// vanishes at t − 1 = −ν(s − 1), leaving σ₁₁ = E(s − 1) and
// Ψ = ½ σ:ε = E(s − 1)²/2.
func corotationalUniaxial(E, nu, eps float64) uniaxialClosedForm {
	return uniaxialClosedForm{t: 1 - nu*eps, vonMises: math.Abs(E * eps), energyDen: E * eps * eps / 2}
}

// cellProvider is what the tests need of a force field.
type cellProvider interface {
	CellData() map[string][]float64
	PotentialEnergy(x []float64) float64
	AddForce(f, x, v []float64)
	AddDForce(df, dx []float64, kFactor, bFactor float64)
	NumElements() int
}

// cellCase is a force field on the grid with the closed form it must
// report.
type cellCase struct {
	name    string
	ff      cellProvider
	dofs    *graph.MechanicalObject
	rest    []float64
	want    uniaxialClosedForm
	rotates bool // rotation invariant (all but method "small")
}

func femCase(t *testing.T, method string, E, nu float64, extra string, want uniaxialClosedForm) cellCase {
	f := loadFEM(t, cellN, cellSize, fmt.Sprintf("method = %q\n  youngModulus = %g\n  poissonRatio = %g\n  %s", method, E, nu, extra))
	return cellCase{"TetrahedronFEMForceField " + method, f.ff, f.dofs, f.rest, want, method != "small"}
}

func hyperCase(t *testing.T, law string, E, nu float64, extra string, want uniaxialClosedForm) cellCase {
	h := loadHyper(t, cellN, cellSize, fmt.Sprintf("materialName = %q\n  youngModulus = %g\n  poissonRatio = %g\n  %s", law, E, nu, extra))
	return cellCase{"TetrahedronHyperelasticityFEMForceField " + law, h.ff, h.dofs, h.rest, want, true}
}

// setUniaxial moves the state to x = Q diag(s, t, t) X + c.
func setUniaxial(dofs *graph.MechanicalObject, rest []float64, Q geom.Mat3, s, t float64) {
	x := dofs.Vec(graph.Position)
	c := geom.Vec3{0.3, -0.2, 0.1}
	for v := 0; v < len(rest)/3; v++ {
		X := geom.At(rest, v)
		p := Q.MulVec(geom.Vec3{s * X[0], t * X[1], t * X[2]}).Add(c)
		copy(x[3*v:3*v+3], p[:])
	}
}

// checkCells compares the cell data at axial strain eps with the closed
// form (scaled per element by scale[e], nil for 1) and returns the worst
// relative errors.
func checkCells(t *testing.T, what string, ff cellProvider, eps float64, want uniaxialClosedForm, scale []float64) (vmErr, psiErr float64) {
	t.Helper()
	ne := ff.NumElements()
	if ne != 120 {
		t.Fatalf("%s: %d tetrahedra, want the 5 × 2 × 2 cells × 6 = 120 of the grid", what, ne)
	}
	data := ff.CellData()
	vm, psi := data["vonMisesStress"], data["strainEnergyDensity"]
	if len(data) != 2 || len(vm) != ne || len(psi) != ne {
		t.Fatalf("%s: cell data %d arrays, %d and %d values for %d tetrahedra", what, len(data), len(vm), len(psi), ne)
	}
	for e := 0; e < ne; e++ {
		k := 1.0
		if scale != nil {
			k = scale[e]
		}
		vmErr = math.Max(vmErr, math.Abs(vm[e]-k*want.vonMises)/(k*want.vonMises))
		psiErr = math.Max(psiErr, math.Abs(psi[e]-k*want.energyDen)/(k*want.energyDen))
	}
	if tolVM, tolPsi := cellTolerances(eps); vmErr > tolVM || psiErr > tolPsi {
		t.Errorf("%s: von Mises %.9g (closed form %.9g), energy density %.9g (%.9g): relative errors %.2g, %.2g",
			what, vm[0], want.vonMises, psi[0], want.energyDen, vmErr, psiErr)
	}
	return vmErr, psiErr
}

// TestCellDataUniaxialClosedForm: every law and method of the two
// tetrahedral force fields, ν = 0 (where the StVK stress is the brief's
// P = E(ε + 3ε²/2 + ε³/2)) and ν = 0.3, stretched and compressed, in the
// axes and rotated. TetrahedronFEMForceField's "small" method is not
// rotation invariant, so it is checked unrotated only.
func TestCellDataUniaxialClosedForm(t *testing.T) {
	const E = 1e6
	rng := rand.New(rand.NewPCG(11, 12))
	rotations := []geom.Mat3{geom.Identity3(), randomRotation(rng)}
	worstVM, worstPsi := 0.0, 0.0
	for _, nu := range []float64{0, 0.3} {
		for _, eps := range []float64{-0.1, 0.05, 0.3} {
			var cases []cellCase
			for _, method := range []string{"small", "large", "polar", "svd"} {
				cases = append(cases, femCase(t, method, E, nu, "", corotationalUniaxial(E, nu, eps)))
			}
			cases = append(cases,
				hyperCase(t, "StVenantKirchhoff", E, nu, "", stvkUniaxial(E, nu, eps)),
				hyperCase(t, "NeoHookean", E, nu, "", neoHookeanUniaxial(E, nu, eps)))
			for _, f := range cases {
				for i, Q := range rotations {
					if i > 0 && !f.rotates {
						continue
					}
					setUniaxial(f.dofs, f.rest, Q, 1+eps, f.want.t)
					what := fmt.Sprintf("%s ν = %g ε = %g rotation %d", f.name, nu, eps, i)
					vm, psi := checkCells(t, what, f.ff, eps, f.want, nil)
					worstVM, worstPsi = math.Max(worstVM, vm), math.Max(worstPsi, psi)
				}
			}
		}
	}
	t.Logf("worst relative errors: von Mises %.2g, energy density %.2g", worstVM, worstPsi)
}

// Per-element Young's moduli scale each element's cell data by Eₑ/E,
// like its forces; the energy densities times the rest volumes add up to
// the force field's potential energy.
func TestCellDataHeterogeneous(t *testing.T) {
	const E, nu, eps = 1e6, 0.3, 0.1
	rng := rand.New(rand.NewPCG(5, 6))
	scale := make([]float64, 120)
	moduli := make([]string, len(scale))
	for e := range scale {
		scale[e] = 0.5 + 2*rng.Float64()
		moduli[e] = fmt.Sprint(E * scale[e])
	}
	perElement := "youngModulusPerElement = [" + strings.Join(moduli, ", ") + "]"
	for _, c := range []cellCase{
		femCase(t, "svd", E, nu, perElement, corotationalUniaxial(E, nu, eps)),
		hyperCase(t, "StVenantKirchhoff", E, nu, perElement, stvkUniaxial(E, nu, eps)),
	} {
		setUniaxial(c.dofs, c.rest, randomRotation(rng), 1+eps, c.want.t)
		checkCells(t, c.name, c.ff, eps, c.want, scale)
		// Σ density·V_rest = W: the rest volume of every element of the
		// 0.2 m cubes split in 6 is 0.2³/6.
		sum := 0.0
		for _, d := range c.ff.CellData()["strainEnergyDensity"] {
			sum += d * 0.2 * 0.2 * 0.2 / 6
		}
		if W := c.ff.PotentialEnergy(c.dofs.Vec(graph.Position)); math.Abs(sum-W) > 1e-13*W {
			t.Errorf("%s: Σ density·V = %.15g, potential energy %.15g", c.name, sum, W)
		}
	}
}

// CellData works on its own law cache: the tangent AddDForce applies is
// still the one of the most recent AddForce, bit for bit, after cell data
// were computed at another position.
func TestCellDataKeepsLinearisation(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, c := range []cellCase{
		femCase(t, "large", 1e6, 0.3, "", uniaxialClosedForm{}),
		femCase(t, "polar", 1e6, 0.3, "", uniaxialClosedForm{}),
		hyperCase(t, "NeoHookean", 1e6, 0.3, "", uniaxialClosedForm{}),
	} {
		x := c.dofs.Vec(graph.Position)
		x1 := append([]float64(nil), x...)
		for i := range x1 {
			x1[i] += 0.02 * rng.NormFloat64()
		}
		dx := make([]float64, len(x))
		for i := range dx {
			dx[i] = rng.NormFloat64()
		}
		apply := func() []float64 {
			df := make([]float64, len(x))
			c.ff.AddDForce(df, dx, 1, 0)
			return df
		}
		c.ff.AddForce(make([]float64, len(x)), x1, nil)
		before := apply()
		setUniaxial(c.dofs, c.rest, randomRotation(rng), 1.2, 0.95)
		c.ff.CellData()
		after := apply()
		for i := range before {
			if math.Float64bits(before[i]) != math.Float64bits(after[i]) {
				t.Fatalf("%s: AddDForce entry %d changed from %v to %v by CellData", c.name, i, before[i], after[i])
			}
		}
	}
}

// Flat and inverted elements, where the Cauchy stress J⁻¹PFᵀ is undefined,
// still get finite cell data (ParaView cannot read NaN or Inf), and so do
// the corotational methods on them.
func TestCellDataFiniteOnInvertedElements(t *testing.T) {
	for _, c := range []cellCase{
		femCase(t, "svd", 1e6, 0.3, "", uniaxialClosedForm{}),
		femCase(t, "large", 1e6, 0.3, "", uniaxialClosedForm{}),
		hyperCase(t, "NeoHookean", 1e6, 0.3, "", uniaxialClosedForm{}),
		hyperCase(t, "StableNeoHookean", 1e6, 0.3, "", uniaxialClosedForm{}),
		hyperCase(t, "StVenantKirchhoff", 1e6, 0.3, "", uniaxialClosedForm{}),
	} {
		for _, s := range []float64{0, -0.5} { // flattened, then mirrored along x
			setUniaxial(c.dofs, c.rest, geom.Identity3(), s, 1)
			for name, v := range c.ff.CellData() {
				for e, x := range v {
					if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
						t.Fatalf("%s, axial stretch %g: %s of element %d is %v", c.name, s, name, e, x)
					}
				}
			}
		}
	}
}

// BenchmarkCellData10k: the cell data of the 9,984-tetrahedron benchmark
// bar (method large), against BenchmarkTetrahedronFEMLargeAddForce10k:
// what one VTU frame costs beyond writing it.
func BenchmarkCellData10k(b *testing.B) {
	fb := newFEMBench(b, "large", "exact", 0)
	copy(fb.s.dofs.Vec(graph.Position), fb.x)
	b.ReportAllocs()
	for b.Loop() {
		fb.s.ff.CellData()
	}
}
