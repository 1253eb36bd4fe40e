package validation

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/sofago/sofago/graph/graphtest"
)

// directStatic is the solver of the element comparison: Newton with the
// exact sparse solve (the systems of the finest meshes, up to 50,000
// DOFs, are solved exactly instead of by thousands of CG iterations).
const directStatic = `
  [[node.object]]
  type = "StaticSolver"
  iterations = 30
  tolerance = 1e-9
  [[node.object]]
  type = "SparseCholeskySolver"
  ordering = "nestedDissection"
`

// sagOf solves the cantilever b (cells nl × nh × nh) with tetrahedra or
// hexahedra and returns the tip sag.
func sagOf(t *testing.T, b beam, hex bool) float64 {
	t.Helper()
	b.Solver = directStatic
	text := b.scene()
	if hex {
		text = strings.Replace(text, "\n  n = [", "\n  elements = \"hexahedra\"\n  n = [", 1)
		text = strings.Replace(text, `type = "TetrahedronFEMForceField"`, `type = "HexahedronFEMForceField"`, 1)
	}
	s := graphtest.MustLoad(t, "cantilever.toml", text)
	if err := s.Step(); err != nil {
		t.Fatal(err)
	}
	return -tipDeflection(t, s, b.L)
}

// TestHexCantileverConvergesToBeamTheory is issue 15's item 3: the slender
// cantilever of TestCantileverConvergesToBeamTheory (L/h = 20, ν = 0,
// E = 1e9 Pa, under gravity) with trilinear hexahedra
// (HexahedronFEMForceField, 2×2×2 Gauss points) against linear
// tetrahedra (TetrahedronFEMForceField, 6 Kuhn tetrahedra per cell), both
// on cubic cells of side h/n for n = 1, 2, 4, 8 cells through the
// thickness (20n × n × n cells), both solved exactly (Newton with
// SparseCholeskySolver).
//
// What it must show, each a check:
//   - hexahedra converge at second order, as the closed-form model of
//     their locking says: a fully integrated trilinear element of length
//     ℓ bent at curvature κ cannot represent the transverse displacement
//     κx²/2, so it carries a parasitic shear γ = κ(x − x_mid) whose
//     energy, G·κ²ℓ²/12 per volume, adds to the bending energy
//     E·κ²h²/24 the fraction r = 2Gℓ²/(E h²) = 1/(2(1+ν)n²) for ℓ = h/n
//     (the parasitic shear of the bilinear quadrilateral in pure bending,
//     Cook, Malkus, Plesha & Witt, "Concepts and Applications of Finite
//     Element Analysis"); the beam is stiffer by 1 + r, so
//     its error is r/(1 + r) = a/(n² + a), a = 1/(2(1+ν)). Each
//     hexahedral error must be within 5% of that (measured within 0.6%),
//     which makes each halving divide it by 3 to 4;
//   - the Richardson extrapolation (p = 2) of the two finest hexahedral
//     meshes lies within 1% of Euler–Bernoulli + Timoshenko;
//   - at every n the hexahedra are closer than the tetrahedra, and a
//     hexahedral mesh with fewer elements than the finest tetrahedral one
//     is already closer than it (the table below is the log).
//
// Measured (go test -run HexCantilever -v ./validation/), error against
// theory: tetrahedra n = 1, 2, 4, 8: 75.8%, 45.1%, 17.6%, 5.15% (120 to
// 61,440 elements); hexahedra 33.3%, 11.1%, 3.04%, 0.78% (20 to 10,240
// elements; the model: 33.3%, 11.1%, 3.03%, 0.775%): 1,280 hexahedra
// (3.0%) beat 61,440 tetrahedra (5.15%); hexahedral Richardson
// extrapolation of n = 4, 8 0.03% from theory.
//
// With -short the n = 8 meshes are left out (the extrapolation then uses
// n = 2 and 4).
func TestHexCantileverConvergesToBeamTheory(t *testing.T) {
	base := beam{L: 1, H: 0.05, E: 1e9, Nu: 0, Rho: 1000, G: 9.81, Method: "large"}
	theory := timoshenkoGravitySag(base)
	ns := []int{1, 2, 4, 8}
	if testing.Short() {
		ns = ns[:3]
	}
	var hexSag, hexErr, tetErr []float64
	table := "cells through thickness | tetrahedra: elements, error | hexahedra: elements, error\n"
	for _, n := range ns {
		b := base
		b.NL, b.NH = 20*n, n
		ts := sagOf(t, b, false)
		hs := sagOf(t, b, true)
		te, he := math.Abs(ts-theory)/theory, math.Abs(hs-theory)/theory
		hexSag, hexErr, tetErr = append(hexSag, hs), append(hexErr, he), append(tetErr, te)
		cells := 20 * n * n * n
		table += fmt.Sprintf("%23d | %11d, %6.2f%% | %10d, %6.2f%%\n", n, 6*cells, 100*te, cells, 100*he)
		if he >= te {
			t.Errorf("n = %d: hexahedra error %.3g%% not below tetrahedra %.3g%%", n, 100*he, 100*te)
		}
	}
	t.Logf("tip sag under gravity, theory %.6e m (Euler–Bernoulli + Timoshenko)\n%s", theory, table)
	a := 1 / (2 * (1 + base.Nu))
	worst := 0.0
	for i, n := range ns {
		model := a / (float64(n*n) + a)
		worst = math.Max(worst, math.Abs(hexErr[i]/model-1))
		if math.Abs(hexErr[i]/model-1) > 0.05 {
			t.Errorf("hexahedra n = %d: error %.4g%%, the locking model a/(n² + a) gives %.4g%%", n, 100*hexErr[i], 100*model)
		}
	}
	t.Logf("hexahedral errors within %.2f%% (relative) of the locking model", 100*worst)
	k := len(hexSag)
	rich := hexSag[k-1] + (hexSag[k-1]-hexSag[k-2])/3
	rerr := math.Abs(rich-theory) / theory
	t.Logf("hexahedra: Richardson extrapolation of n = %d, %d: %.6e m, %.3f%% from theory", ns[k-2], ns[k-1], rich, 100*rerr)
	if rerr > 0.01 {
		t.Errorf("Richardson extrapolation %.6e is %.2f%% from the Timoshenko value %.6e (limit 1%%)", rich, 100*rerr, theory)
	}
	// The coarsest hexahedral mesh closer to theory than the finest
	// tetrahedral one.
	finest := tetErr[len(tetErr)-1]
	tetCount := 6 * 20 * ns[len(ns)-1] * ns[len(ns)-1] * ns[len(ns)-1]
	for i, e := range hexErr {
		if e <= finest {
			cells := 20 * ns[i] * ns[i] * ns[i]
			t.Logf("%d hexahedra (%.2f%%) are closer than %d tetrahedra (%.2f%%)", cells, 100*e, tetCount, 100*finest)
			if cells >= tetCount {
				t.Errorf("hexahedra need %d elements to beat %d tetrahedra", cells, tetCount)
			}
			break
		}
	}
}
