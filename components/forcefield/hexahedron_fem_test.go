package forcefield

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
	"github.com/sofago/sofago/material"
	"gonum.org/v1/gonum/mat"
)

// hexScene is femScene with a hexahedral grid and a force field of type
// typ named "fem".
func hexScene(n [3]int, size [3]float64, typ, fields string) string {
	return fmt.Sprintf(`
[[node]]
name = "beam"
  [[node.object]]
  type = "RegularGridTopology"
  min = [0, 0, 0]
  max = [%g, %g, %g]
  n = [%d, %d, %d]
  elements = "hexahedra"
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[node.object]]
  type = %q
  name = "fem"
  %s
`, size[0], size[1], size[2], n[0], n[1], n[2], typ, fields)
}

// hexSetup is a loaded hexahedral force field.
type hexSetup struct {
	ff   cellField
	cs   *cellSolid
	dofs *graph.MechanicalObject
	rest []float64
	tmpl graph.Template
}

// cellField is what the tests use of the cellSolid force fields.
type cellField interface {
	graph.ForceField
	graph.StiffnessBlockAssembler
	graph.StiffnessAssembler
	CellData() map[string][]float64
	NumElements() int
}

func loadHex(t testing.TB, n [3]int, size [3]float64, typ, fields string) hexSetup {
	t.Helper()
	s := graphtest.MustLoad(t, "hex.toml", hexScene(n, size, typ, fields))
	return hexFrom(t, s)
}

func hexFrom(t testing.TB, s *graph.Scene) hexSetup {
	t.Helper()
	ff := graphtest.Find[cellField](t, s, "beam/fem")
	var cs *cellSolid
	switch f := ff.(type) {
	case *HexahedronFEMForceField:
		cs = &f.cellSolid
	case *HexahedronHyperelasticityFEMForceField:
		cs = &f.cellSolid
	case *PolyhedronFEMForceField:
		cs = &f.cellSolid
	}
	dofs := graphtest.Find[*graph.MechanicalObject](t, s, "beam/dofs")
	tmpl, _ := graph.LookupTemplate("Vec3")
	return hexSetup{ff: ff, cs: cs, dofs: dofs, rest: append([]float64(nil), dofs.Vec(graph.RestPosition)...), tmpl: tmpl}
}

func (s hexSetup) force(x []float64) []float64 {
	f := make([]float64, len(x))
	s.ff.AddForce(f, x, nil)
	return f
}

// hexCases are every hexahedral force field configuration: the four
// corotational methods and the three hyperelastic laws.
func hexCases() [][2]string {
	var c [][2]string
	for _, m := range allMethods {
		c = append(c, [2]string{"HexahedronFEMForceField", fmt.Sprintf("method = %q", m)})
	}
	for _, l := range hyperelasticLaws {
		c = append(c, [2]string{"HexahedronHyperelasticityFEMForceField", fmt.Sprintf("materialName = %q", l)})
	}
	return c
}

// TestHexFixture runs graphtest.CheckForceField (force = −∇W, AddDForce =
// finite differences of AddForce) for every method and law on a rotated,
// translated and randomly deformed hexahedral grid; displacements up to
// 8% of the cell size, and 25% (large strains, where the rotation terms
// of the tangents dominate). Tolerance as for the tetrahedra
// (fdTolerance, measured agreement ~1e-10).
func TestHexFixture(t *testing.T) {
	h := 0.1
	for _, c := range hexCases() {
		for _, amp := range []float64{0.08, 0.25} {
			s := loadHex(t, [3]int{4, 3, 3}, [3]float64{0.3, 0.2, 0.2}, c[0], c[1]+"\n  youngModulus = 1e6\n  poissonRatio = 0.3")
			rng := rand.New(rand.NewPCG(3, uint64(100*amp)))
			u := randomDisplacement(rng, len(s.rest), amp*h)
			x := transform(s.rest, u, randomRotation(rng), geom.Vec3{0.3, -0.2, 0.5})
			if !graphtest.CheckForceField(t, s.ff, s.tmpl, x, nil, graphtest.Options{Seed: 5, Trials: 4, Tolerance: fdTolerance}) {
				t.Errorf("%s %s, amplitude %g: fixture failed", c[0], c[1], amp)
			}
		}
	}
}

// distortedHexScene is a 2×2×2 patch of hexahedra over [0,1]³ whose
// interior vertex and face-centre vertices are moved off the grid, so
// that no element is a parallelepiped: a patch test must hold for
// general trilinear elements, not only for the grid's boxes. The
// vertices are given as the MechanicalObject's rest positions through a
// MeshLoader-free topology, a RegularGridTopology whose points are
// overridden by restPosition.
func distortedHexScene(typ, fields string) string {
	var pos []string
	rng := rand.New(rand.NewPCG(9, 9))
	for k := 0; k < 3; k++ {
		for j := 0; j < 3; j++ {
			for i := 0; i < 3; i++ {
				p := [3]float64{0.5 * float64(i), 0.5 * float64(j), 0.5 * float64(k)}
				for a, idx := range [3]int{i, j, k} {
					// Move every coordinate that is not on the cube's
					// boundary in that axis by up to ±0.12.
					if idx == 1 {
						p[a] += 0.24 * (rng.Float64() - 0.5)
					}
				}
				pos = append(pos, fmt.Sprintf("[%.17g, %.17g, %.17g]", p[0], p[1], p[2]))
			}
		}
	}
	return fmt.Sprintf(`
[[node]]
name = "beam"
  [[node.object]]
  type = "RegularGridTopology"
  min = [0, 0, 0]
  max = [1, 1, 1]
  n = [3, 3, 3]
  elements = "hexahedra"
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  restPosition = [%s]
  [[node.object]]
  type = %q
  name = "fem"
  youngModulus = 1e6
  poissonRatio = 0.3
  %s
`, strings.Join(pos, ", "), typ, fields)
}

// TestHexPatchAffine is the patch test on distorted hexahedra: under an
// affine motion x = A X + b every Gauss point has F = A, so the energy is
// V·Ψ(A) (V = 1, the patch's volume) and the interior vertex (13, the
// only one not on the patch's boundary) has zero force, for every method
// and law: 2×2×2 Gauss integration of ∫∇Nₐ is exact for trilinear
// elements (its integrand cof(J)∂N/∂ξ is at most cubic in each ξᵢ).
// Tolerances: forces relative to the largest boundary force (1e-13;
// rounding of sums of ~30 terms of size 1); energy relative 1e-14/ε² with
// ε = 0.05 the strain, the bound of the tetrahedral cell-data tests
// (cellTolerances): the neo-Hookean energies are differences of terms of
// size μ·ε whose rounding, ~1e-15, is relative ~1e-15/ε² to Ψ ~ μ·ε²
// (measured 1.2e-13 for StableNeoHookean, the others ≤ 1e-15).
func TestHexPatchAffine(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	A := geom.Mat3{1.05, 0.02, -0.03, 0.01, 0.97, 0.04, -0.02, 0.03, 1.02}
	for _, c := range hexCases() {
		s := hexFrom(t, graphtest.MustLoad(t, "patch.toml", distortedHexScene(c[0], c[1])))
		if s.rest[3*13] == 0.5 && s.rest[3*13+1] == 0.5 {
			t.Fatal("test setup: the interior vertex is not moved")
		}
		Q := randomRotation(rng)
		for _, rot := range []bool{false, true} {
			if rot && strings.Contains(c[1], `"small"`) {
				continue // linear FEM is not rotation invariant
			}
			M := A
			if rot {
				M = Q.Mul(A)
			}
			x := transform(s.rest, nil, M, geom.Vec3{0.1, 0.2, -0.3})
			f := s.force(x)
			fi := maxAbs(f[3*13 : 3*13+3])
			if fi > 1e-13*maxAbs(f) {
				t.Errorf("%s %s rotated %v: interior force %.3g, largest %.3g", c[0], c[1], rot, fi, maxAbs(f))
			}
			var law material.Law
			switch ff := s.ff.(type) {
			case *HexahedronFEMForceField:
				law = ff.law
			case *HexahedronHyperelasticityFEMForceField:
				law = ff.law
			}
			want := law.Energy(M)
			if W := s.ff.PotentialEnergy(x); math.Abs(W-want) > 1e-14/(0.05*0.05)*want {
				t.Errorf("%s %s rotated %v: energy %.15g, V·Ψ(A) = %.15g", c[0], c[1], rot, W, want)
			}
		}
	}
}

// TestHexRigidMotionNoForce: a rigid motion of the rest shape gives zero
// force and energy for every method but small and every law. Forces are
// measured against those of a 1% stretch (1e-12); the energy is zero to
// the rounding of the laws' terms of size μ·|F|² ~ E per unit volume,
// 1e-15·E·V absolute (measured 2.5e-11 with E = 1e6, V = 1).
func TestHexRigidMotionNoForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 1))
	for _, c := range hexCases() {
		if strings.Contains(c[1], `"small"`) {
			continue
		}
		s := hexFrom(t, graphtest.MustLoad(t, "patch.toml", distortedHexScene(c[0], c[1])))
		ref := maxAbs(s.force(transform(s.rest, nil, geom.Diag(geom.Vec3{1.01, 1, 1}), geom.Vec3{})))
		x := transform(s.rest, nil, randomRotation(rng), geom.Vec3{1, -2, 0.5})
		if f := maxAbs(s.force(x)); f > 1e-12*ref {
			t.Errorf("%s %s: rigid motion gives force %.3g (1%% stretch: %.3g)", c[0], c[1], f, ref)
		}
		if W := s.ff.PotentialEnergy(x); math.Abs(W) > 1e-15*1e6 {
			t.Errorf("%s %s: rigid motion gives energy %.3g", c[0], c[1], W)
		}
	}
}

// TestHexElementNullSpace: the linear stiffness of one hexahedron with
// full 2×2×2 integration has exactly the six rigid-body modes as its null
// space (a reduced one-point rule would add twelve hourglass modes), and
// is symmetric negative semi-definite.
func TestHexElementNullSpace(t *testing.T) {
	s := loadHex(t, [3]int{2, 2, 2}, [3]float64{1, 0.5, 2}, "HexahedronFEMForceField", `method = "small"
  youngModulus = 1e6
  poissonRatio = 0.3`)
	K := mat.NewSymDense(24, nil)
	d := make([]float64, 24)
	for j := 0; j < 24; j++ {
		clear(d)
		d[j] = 1
		df := make([]float64, 24)
		s.ff.AddDForce(df, d, 1, 0)
		for i := 0; i <= j; i++ {
			if math.Abs(df[i]-func() float64 {
				e := make([]float64, 24)
				e[i] = 1
				dfi := make([]float64, 24)
				s.ff.AddDForce(dfi, e, 1, 0)
				return dfi[j]
			}()) > 1e-9*1e6 {
				t.Fatalf("K not symmetric at (%d, %d)", i, j)
			}
			K.SetSym(i, j, -df[i])
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(K, false) {
		t.Fatal("eigen decomposition failed")
	}
	vals := eig.Values(nil)
	zero := 0
	for _, v := range vals {
		if v < -1e-8*vals[23] {
			t.Errorf("negative eigenvalue %g of −K", v)
		}
		if math.Abs(v) < 1e-10*vals[23] {
			zero++
		}
	}
	if zero != 6 {
		t.Errorf("%d zero eigenvalues of the element stiffness, want the 6 rigid modes (eigenvalues %v)", zero, vals)
	}
}

// TestHexStiffnessBlocksMatchAddDForce: the assembled blocks (KBlocks) and
// scalar entries (AddKToMatrix) apply the same K as AddDForce, at a
// deformed configuration, for a corotational method and a hyperelastic
// law; and KBlocks is bitwise the same on one worker and two.
func TestHexStiffnessBlocksMatchAddDForce(t *testing.T) {
	for _, c := range [][2]string{{"HexahedronFEMForceField", `method = "polar"`}, {"HexahedronHyperelasticityFEMForceField", `materialName = "NeoHookean"`}} {
		s := loadHex(t, [3]int{3, 3, 2}, [3]float64{0.2, 0.2, 0.1}, c[0], c[1]+"\n  youngModulus = 1e6")
		rng := rand.New(rand.NewPCG(8, 8))
		x := transform(s.rest, randomDisplacement(rng, len(s.rest), 0.01), randomRotation(rng), geom.Vec3{})
		s.force(x)
		d := randomDisplacement(rng, len(x), 1)
		want := make([]float64, len(x))
		s.ff.AddDForce(want, d, 0.7, 0)
		pairs := s.ff.StiffnessBlocks()
		vals := make([]float64, 9*len(pairs)/2)
		s.ff.KBlocks(vals, 0.7)
		got := make([]float64, len(x))
		for b := 0; b < len(pairs)/2; b++ {
			r, col := int(pairs[2*b]), int(pairs[2*b+1])
			for i := 0; i < 3; i++ {
				for k := 0; k < 3; k++ {
					got[3*r+i] += vals[9*b+3*i+k] * d[3*col+k]
				}
			}
		}
		dense := denseAcc{n: len(x), a: make([]float64, len(x)*len(x))}
		s.ff.AddKToMatrix(&dense, 0.7)
		got2 := make([]float64, len(x))
		for i := range got2 {
			for j := range d {
				got2[i] += dense.a[i*len(x)+j] * d[j]
			}
		}
		for i := range want {
			if math.Abs(got[i]-want[i]) > 1e-10*maxAbs(want) || math.Abs(got2[i]-want[i]) > 1e-10*maxAbs(want) {
				t.Fatalf("%s: K·d entry %d: blocks %g, matrix %g, AddDForce %g", c[0], i, got[i], got2[i], want[i])
			}
		}
		s.cs.setWorkers(1)
		one := make([]float64, len(vals))
		s.ff.KBlocks(one, 0.7)
		s.cs.setWorkers(2)
		two := make([]float64, len(vals))
		s.ff.KBlocks(two, 0.7)
		for i := range one {
			if math.Float64bits(one[i]) != math.Float64bits(two[i]) {
				t.Fatalf("%s: KBlocks differ between 1 and 2 workers at %d", c[0], i)
			}
		}
	}
}

type denseAcc struct {
	n int
	a []float64
}

func (d *denseAcc) Add(r, c int, v float64) { d.a[r*d.n+c] += v }

// TestHexDeterministicAcrossWorkers: forces, force differentials and
// energies are bitwise the same on one worker and on two.
func TestHexDeterministicAcrossWorkers(t *testing.T) {
	s := loadHex(t, [3]int{9, 5, 5}, [3]float64{0.8, 0.4, 0.4}, "HexahedronFEMForceField", `method = "polar"`)
	rng := rand.New(rand.NewPCG(2, 2))
	x := transform(s.rest, randomDisplacement(rng, len(s.rest), 0.01), randomRotation(rng), geom.Vec3{})
	d := randomDisplacement(rng, len(x), 1)
	run := func(w int) ([]float64, []float64, float64) {
		s.cs.setWorkers(w)
		f := s.force(x)
		df := make([]float64, len(x))
		s.ff.AddDForce(df, d, 1, 0)
		return f, df, s.ff.PotentialEnergy(x)
	}
	f1, d1, w1 := run(1)
	f2, d2, w2 := run(2)
	for i := range f1 {
		if math.Float64bits(f1[i]) != math.Float64bits(f2[i]) || math.Float64bits(d1[i]) != math.Float64bits(d2[i]) {
			t.Fatalf("entry %d differs between 1 and 2 workers", i)
		}
	}
	if w1 != w2 {
		t.Errorf("energy %v vs %v", w1, w2)
	}
}

// TestHexCellDataUniaxial: in the homogeneous uniaxial state of the
// tetrahedral cell-data tests every hexahedron reports the closed-form
// von Mises stress and energy density (same tolerances: F is exact to
// rounding at every Gauss point of a box element), and per-element
// Young's moduli scale both like the forces.
func TestHexCellDataUniaxial(t *testing.T) {
	const E, nu, eps = 1e6, 0.3, 0.05
	type hcase struct {
		typ, fields string
		want        uniaxialClosedForm
	}
	var cases []hcase
	for _, m := range []string{"small", "large", "polar", "svd"} {
		cases = append(cases, hcase{"HexahedronFEMForceField", fmt.Sprintf("method = %q", m), corotationalUniaxial(E, nu, eps)})
	}
	cases = append(cases,
		hcase{"HexahedronHyperelasticityFEMForceField", `materialName = "StVenantKirchhoff"`, stvkUniaxial(E, nu, eps)},
		hcase{"HexahedronHyperelasticityFEMForceField", `materialName = "NeoHookean"`, neoHookeanUniaxial(E, nu, eps)})
	tolVM, tolPsi := cellTolerances(eps)
	for _, c := range cases {
		for _, hetero := range []bool{false, true} {
			extra := fmt.Sprintf("\n  youngModulus = %g\n  poissonRatio = %g", E, nu)
			if hetero {
				extra += "\n  regions = [{box = [0.5, -1, -1, 2, 1, 1], youngModulus = 3e6}]"
			}
			s := loadHex(t, cellN, cellSize, c.typ, c.fields+extra)
			setUniaxial(s.dofs, s.rest, geom.Identity3(), 1+eps, c.want.t)
			data := s.ff.CellData()
			vm, psi := data[cellVonMises], data[cellEnergyDensity]
			if len(vm) != 20 || len(psi) != 20 {
				t.Fatalf("%s %s: %d and %d values for the 5 × 2 × 2 = 20 hexahedra", c.typ, c.fields, len(vm), len(psi))
			}
			total := 0.0
			for e := range vm {
				k := 1.0
				if hetero && s.cs.mesh.centre[3*e] >= 0.5 {
					k = 3
				}
				if math.Abs(vm[e]-k*c.want.vonMises) > tolVM*k*c.want.vonMises || math.Abs(psi[e]-k*c.want.energyDen) > tolPsi*k*c.want.energyDen {
					t.Errorf("%s %s hetero %v element %d: von Mises %.9g (%.9g), energy density %.9g (%.9g)", c.typ, c.fields, hetero, e, vm[e], k*c.want.vonMises, psi[e], k*c.want.energyDen)
					break
				}
				total += psi[e] * s.cs.mesh.vol[e]
			}
			if W := s.ff.PotentialEnergy(s.dofs.Vec(graph.Position)); math.Abs(W-total) > 1e-12*W {
				t.Errorf("%s %s: Σ density·V = %g, energy %g", c.typ, c.fields, total, W)
			}
		}
	}
}

// TestHexInitErrors: a topology without hexahedra and invalid fields are
// located errors naming the object.
func TestHexInitErrors(t *testing.T) {
	loadInit := func(text string) error {
		s, err := graph.Load("e.toml", []byte(text))
		if err != nil {
			return err
		}
		return s.Init()
	}
	err := loadInit(strings.Replace(hexScene([3]int{2, 2, 2}, [3]float64{1, 1, 1}, "HexahedronFEMForceField", ""), `elements = "hexahedra"`, "", 1))
	if err == nil || !strings.Contains(err.Error(), "has no hexahedra (it has 6 tetrahedra") || !strings.Contains(err.Error(), "fem") {
		t.Errorf("tetrahedral grid: error %v", err)
	}
	err = loadInit(hexScene([3]int{2, 2, 2}, [3]float64{1, 1, 1}, "HexahedronFEMForceField", `method = "warped"`))
	if err == nil || !strings.Contains(err.Error(), "method") {
		t.Errorf("bad method: error %v", err)
	}
}

// TestHexPointRotations: under a rigid rotation Q of a deformed-free body
// every point's rotation is Q (the polar factor of Q·I), to rounding.
func TestHexPointRotations(t *testing.T) {
	s := loadHex(t, [3]int{3, 3, 2}, [3]float64{0.2, 0.2, 0.1}, "HexahedronFEMForceField", `method = "polar"`)
	Q := randomRotation(rand.New(rand.NewPCG(5, 5)))
	copy(s.dofs.Vec(graph.Position), transform(s.rest, nil, Q, geom.Vec3{1, 2, 3}))
	out := make([]float64, 9*len(s.rest)/3)
	if !s.cs.PointRotations(out) {
		t.Fatal("no rotations")
	}
	for i := 0; i < len(s.rest)/3; i++ {
		for k := 0; k < 9; k++ {
			if math.Abs(out[9*i+k]-Q[k]) > 1e-14 {
				t.Fatalf("point %d: rotation %v, want %v", i, out[9*i:9*i+9], Q)
			}
		}
	}
}
