package modal_test

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"testing"

	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
	"github.com/sofago/sofago/modal"

	_ "github.com/sofago/sofago/components/constraint"
	_ "github.com/sofago/sofago/components/forcefield"
	_ "github.com/sofago/sofago/components/mass"
	_ "github.com/sofago/sofago/components/topology"
)

// vegaBarScene is VegaFEM's reference bar (testdata/vega: RegularGridTopology
// n = [3, 3, 11] reproduces its mesh exactly), StVK, E = 1e6 Pa, ν = 0.45,
// ρ = 1000 kg/m³, clamped at z = 0 unless free.
func vegaBarScene(t *testing.T, mass string, free bool) *graph.Scene {
	t.Helper()
	fixed := `
  [[node.object]]
  type = "FixedConstraint"
  box = [-1, -1, -0.001, 1, 1, 0.001]`
	if free {
		fixed = ""
	}
	return graphtest.MustLoad(t, "vega.toml", fmt.Sprintf(`
[[node]]
name = "bar"
  [[node.object]]
  type = "RegularGridTopology"
  min = [0, 0, 0]
  max = [0.2, 0.2, 1]
  n = [3, 3, 11]
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[node.object]]
  type = %q
  massDensity = 1000
  [[node.object]]
  type = "TetrahedronHyperelasticityFEMForceField"
  materialName = "StVenantKirchhoff"
  youngModulus = 1e6
  poissonRatio = 0.45
%s
`, mass, fixed))
}

type vegaEigen struct {
	Consistent []float64   `json:"eigenvalues_consistent_mass_first12"`
	Lumped     []float64   `json:"eigenvalues_lumped_mass_first12"`
	Modes      [][]float64 `json:"modes_consistent_first6"`
	NumFree    int         `json:"num_free_dofs"`
}

type vegaDerivatives struct {
	Pairs [][2]int    `json:"pairs"`
	RHS   [][]float64 `json:"rhs_minus_H_psi_i_psi_j"`
	Phi   [][]float64 `json:"modal_derivatives"`
}

func loadJSON(t *testing.T, name string, v any) {
	t.Helper()
	data, err := os.ReadFile("../testdata/vega/" + name)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatal(err)
	}
}

func barSystem(t *testing.T, mass string, free bool) *modal.System {
	t.Helper()
	s := vegaBarScene(t, mass, free)
	sys, err := modal.AssembleFromScene(s.Root)
	if err != nil {
		t.Fatal(err)
	}
	return sys
}

// relMaxDiff returns max|a − s·b| / max|b| for the sign s ∈ {±1} that fits best.
func relMaxDiff(a, b []float64) (float64, float64) {
	best, sgn := math.Inf(1), 1.0
	for _, s := range []float64{1, -1} {
		d, m := 0.0, 0.0
		for i := range a {
			d = math.Max(d, math.Abs(a[i]-s*b[i]))
			m = math.Max(m, math.Abs(b[i]))
		}
		if d/m < best {
			best, sgn = d/m, s
		}
	}
	return best, sgn
}

func TestAssembleFromSceneVegaBar(t *testing.T) {
	var ref vegaEigen
	loadJSON(t, "eigen.json", &ref)
	sys := barSystem(t, "MeshMatrixMass", false)
	if len(sys.Free) != ref.NumFree || sys.Size != 297 || !sys.Constrained {
		t.Fatalf("%d free DOFs of %d (constrained %v), want %d of 297", len(sys.Free), sys.Size, sys.Constrained, ref.NumFree)
	}
	if sys.Free[0] != 27 {
		t.Errorf("first free DOF %d, want 27 (vertices 0..8 fixed)", sys.Free[0])
	}
	if !sys.K.Symmetric(1e-14) || !sys.M.Symmetric(0) {
		t.Error("K or M not symmetric")
	}
}

// TestEigenvaluesMatchVega compares the 12 lowest eigenvalues of the
// clamped bar with VegaFEM's (dense Eigen solve on the 270 free DOFs),
// consistent and lumped mass, by the sparse shift-invert path and the
// dense path. The issue asks for 1e-9 relative; the reference README
// expects ~1e-10 from K and M agreeing to ~1e-15 (eigenvalues are
// well-conditioned: a relative perturbation δ of K moves λ by ≤ δλ).
func TestEigenvaluesMatchVega(t *testing.T) {
	var ref vegaEigen
	loadJSON(t, "eigen.json", &ref)
	for _, c := range []struct {
		mass string
		want []float64
	}{{"MeshMatrixMass", ref.Consistent}, {"DiagonalMass", ref.Lumped}} {
		sys := barSystem(t, c.mass, false)
		for _, dense := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/dense=%v", c.mass, dense), func(t *testing.T) {
				opt := modal.DefaultEigenOptions()
				opt.Dense = dense
				m, err := modal.LinearModes(sys, 12, opt)
				if err != nil {
					t.Fatal(err)
				}
				if m.Rigid != 0 {
					t.Errorf("%d rigid modes dropped from a clamped bar", m.Rigid)
				}
				worst := 0.0
				for i, l := range m.Values {
					worst = math.Max(worst, math.Abs(l-c.want[i])/c.want[i])
				}
				t.Logf("max relative eigenvalue difference from Vega: %.2g (λ₁ = %.12g, Vega %.12g)", worst, m.Values[0], c.want[0])
				if worst > 1e-9 {
					t.Errorf("eigenvalues %v\nVega        %v", m.Values, c.want)
				}
				// Mass-normalised, and eigenvectors: K ψ = λ M ψ.
				checkModes(t, sys, m, 1e-6)
			})
		}
	}
}

// checkModes verifies ψᵢᵀMψⱼ = δᵢⱼ to 1e-12 and |Kψ − λMψ| ≤ tol·|Kψ|.
// The sparse path converges on the shift-invert residual |Tψ − θψ|_M ≤
// 1e-10·θ (T = K⁻¹M, θ = 1/λ); the residual of Kψ = λMψ can exceed it
// by up to λ_max/λᵢ (~1e4 on the bar), so tol = 1e-6 there. The dense
// path's residuals are at rounding level.
func checkModes(t *testing.T, sys *modal.System, m *modal.Modes, tol float64) {
	t.Helper()
	nf := len(sys.Free)
	free := make([][]float64, len(m.Vectors))
	for i, v := range m.Vectors {
		free[i] = make([]float64, nf)
		sys.Restrict(free[i], v)
	}
	mx := make([]float64, nf)
	kx := make([]float64, nf)
	for i := range free {
		sys.M.MulVec(mx, free[i])
		for j := range free {
			d := 0.0
			for q := range mx {
				d += mx[q] * free[j][q]
			}
			want := 0.0
			if i == j {
				want = 1
			}
			if math.Abs(d-want) > 1e-12 {
				t.Errorf("ψ%dᵀMψ%d = %.3g, want %g", i, j, d, want)
			}
		}
		sys.K.MulVec(kx, free[i])
		r, k := 0.0, 0.0
		for q := range kx {
			r = math.Max(r, math.Abs(kx[q]-m.Values[i]*mx[q]))
			k = math.Max(k, math.Abs(kx[q]))
		}
		if r > tol*k {
			t.Errorf("mode %d: |Kψ − λMψ| = %.3g of |Kψ| = %.3g", i, r, k)
		}
	}
}

// TestModesMatchVega compares the first 6 consistent-mass mode shapes with
// Vega's up to sign. The modes are separated by relative gaps ≥ 0.17, so
// their directions are determined to ~ε·cond/gap; 1e-9 of the largest
// entry leaves room for K's 1e-15 differences (measured ~1e-12).
func TestModesMatchVega(t *testing.T) {
	var ref vegaEigen
	loadJSON(t, "eigen.json", &ref)
	sys := barSystem(t, "MeshMatrixMass", false)
	m, err := modal.LinearModes(sys, 6, modal.DefaultEigenOptions())
	if err != nil {
		t.Fatal(err)
	}
	for i := range ref.Modes {
		d, _ := relMaxDiff(m.Vectors[i], ref.Modes[i])
		t.Logf("mode %d: max difference from Vega %.2g of the largest entry", i, d)
		if d > 1e-9 {
			t.Errorf("mode %d differs from Vega's by %.3g", i, d)
		}
	}
}

// TestModalDerivativesMatchVega checks (1) the right-hand sides
// −(H:ψᵢ)ψⱼ computed element by element from Vega's own modes against
// Vega's StVKHessianTensor (exact formula on both sides: rounding only,
// 1e-11 of the largest entry; measured 8e-13, the modes' entries being
// given to 17 digits), and (2) the derivatives
// from our modes, up to the sign sign(ψᵢ)·sign(ψⱼ) of the modes, against
// Vega's dense LDLᵀ solutions: the issue asks for 1e-8 (K's condition
// number on the bar is ~1e5, so solutions carry ~1e-11).
func TestModalDerivativesMatchVega(t *testing.T) {
	var ref vegaEigen
	var der vegaDerivatives
	loadJSON(t, "eigen.json", &ref)
	loadJSON(t, "modal_derivatives.json", &der)
	sys := barSystem(t, "MeshMatrixMass", false)
	rhs := make([]float64, sys.Size)
	worst := 0.0
	for p, ij := range der.Pairs {
		if err := sys.HessianContraction(rhs, ref.Modes[ij[0]], ref.Modes[ij[1]]); err != nil {
			t.Fatal(err)
		}
		for q := range rhs {
			rhs[q] = -rhs[q]
		}
		d, s := relMaxDiff(rhs, der.RHS[p])
		if s != 1 {
			t.Errorf("pair %v: right-hand side has the opposite sign", ij)
		}
		worst = math.Max(worst, d)
	}
	t.Logf("right-hand sides from Vega's modes: max difference %.2g of the largest entry", worst)
	if worst > 1e-11 {
		t.Errorf("right-hand sides differ from Vega's by %.3g", worst)
	}

	m, err := modal.LinearModes(sys, 6, modal.DefaultEigenOptions())
	if err != nil {
		t.Fatal(err)
	}
	sign := make([]float64, 6)
	for i := range sign {
		_, sign[i] = relMaxDiff(m.Vectors[i], ref.Modes[i])
	}
	phi, err := modal.ModalDerivatives(sys, m, modal.DerivativeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	worst = 0.0
	for p, ij := range der.Pairs {
		if q := modal.PairIndex(ij[0], ij[1], 6); q != p {
			t.Fatalf("PairIndex(%d, %d) = %d, Vega's order %d", ij[0], ij[1], q, p)
		}
		s := sign[ij[0]] * sign[ij[1]]
		d, mx := 0.0, 0.0
		for q, v := range der.Phi[p] {
			d = math.Max(d, math.Abs(phi[p][q]-s*v))
			mx = math.Max(mx, math.Abs(v))
		}
		worst = math.Max(worst, d/mx)
	}
	t.Logf("modal derivatives: max difference %.2g of the largest entry", worst)
	if worst > 1e-8 {
		t.Errorf("modal derivatives differ from Vega's by %.3g", worst)
	}
}

// TestUnconstrainedBarDropsRigidModes: the free bar has six zero
// eigenvalues; LinearModes drops them and its flexible modes match the
// dense path's eigenvalues 7.. (1e-9 relative), and the derivatives of a
// free body are M-orthogonal to the rigid modes and satisfy
// KΦ = (I − MRRᵀ)rhs.
func TestUnconstrainedBarDropsRigidModes(t *testing.T) {
	sys := barSystem(t, "MeshMatrixMass", true)
	if sys.Constrained {
		t.Fatal("free bar reported constrained")
	}
	m, err := modal.LinearModes(sys, 6, modal.DefaultEigenOptions())
	if err != nil {
		t.Fatal(err)
	}
	if m.Rigid != 6 {
		t.Fatalf("%d rigid modes dropped, want 6 (%v)", m.Rigid, m.RigidValues)
	}
	vals, _, err := modal.EigenDense(sys.K, sys.M, 12)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 6; i++ {
		if math.Abs(vals[i]) > 1e-6*vals[6] {
			t.Errorf("dense eigenvalue %d = %g is not a rigid mode", i, vals[i])
		}
		if d := math.Abs(m.Values[i]-vals[6+i]) / vals[6+i]; d > 1e-9 {
			t.Errorf("flexible mode %d: %.15g, dense %.15g", i, m.Values[i], vals[6+i])
		}
	}
	t.Logf("free bar: rigid %v, flexible %v", m.RigidValues, m.Values)
	checkModes(t, sys, m, 1e-6)
	phi, err := modal.ModalDerivatives(sys, m, modal.DerivativeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	nf := len(sys.Free)
	x := make([]float64, nf)
	mx := make([]float64, nf)
	r := make([]float64, nf)
	// K Φ = (I − MRRᵀ)·(−(H:ψᵢ)ψⱼ) to 1e-9 of the right-hand side (CG
	// tolerance 1e-12 on a system of condition ~1e5).
	full := make([]float64, sys.Size)
	kx := make([]float64, nf)
	for i := 0; i < 6; i++ {
		for j := i; j < 6; j++ {
			if err := sys.HessianContraction(full, m.Vectors[i], m.Vectors[j]); err != nil {
				t.Fatal(err)
			}
			rhs := make([]float64, nf)
			sys.Restrict(rhs, full)
			for q := range rhs {
				rhs[q] = -rhs[q]
			}
			for _, rv := range m.RigidVectors {
				sys.Restrict(r, rv)
				sys.M.MulVec(mx, r)
				c := 0.0
				for q := range r {
					c += r[q] * rhs[q]
				}
				for q := range rhs {
					rhs[q] -= c * mx[q]
				}
			}
			sys.Restrict(x, phi[modal.PairIndex(i, j, 6)])
			sys.K.MulVec(kx, x)
			d, mm := 0.0, 0.0
			for q := range kx {
				d = math.Max(d, math.Abs(kx[q]-rhs[q]))
				mm = math.Max(mm, math.Abs(rhs[q]))
			}
			if d > 1e-9*mm {
				t.Errorf("pair (%d, %d): |KΦ − P rhs| = %.3g of %.3g", i, j, d, mm)
			}
		}
	}
	for p := range phi {
		sys.Restrict(x, phi[p])
		sys.M.MulVec(mx, x)
		for _, rv := range m.RigidVectors {
			sys.Restrict(r, rv)
			d, n := 0.0, 0.0
			for q := range r {
				d += r[q] * mx[q]
				n += x[q] * mx[q]
			}
			if math.Abs(d) > 1e-10*math.Sqrt(n) {
				t.Errorf("derivative %d not M-orthogonal to a rigid mode: %.3g", p, d)
			}
		}
	}
}

// TestSparseEigenMatchesDense compares the sparse shift-invert path with
// the dense path (gonum EigenSym on L⁻¹KL⁻ᵀ) on the clamped bar, 20
// modes: eigenvalues to 1e-11 relative, mode shapes up to sign to 1e-8 of
// the largest entry (the smallest relative gap between the 21 lowest
// eigenvalues is ~1e-2, and the sparse vectors converge to a
// shift-invert residual of 1e-10).
func TestSparseEigenMatchesDense(t *testing.T) {
	sys := barSystem(t, "MeshMatrixMass", false)
	const k = 20
	vs, xs, err := modal.Eigen(sys.K, sys.M, k, modal.DefaultEigenOptions())
	if err != nil {
		t.Fatal(err)
	}
	vd, xd, err := modal.EigenDense(sys.K, sys.M, k)
	if err != nil {
		t.Fatal(err)
	}
	we, wv := 0.0, 0.0
	for i := 0; i < k; i++ {
		we = math.Max(we, math.Abs(vs[i]-vd[i])/vd[i])
		d, _ := relMaxDiff(xs[i], xd[i])
		wv = math.Max(wv, d)
	}
	t.Logf("sparse vs dense: eigenvalues %.2g relative, vectors %.2g of the largest entry", we, wv)
	if we > 1e-11 || wv > 1e-8 {
		t.Errorf("sparse and dense disagree: eigenvalues %.3g, vectors %.3g", we, wv)
	}
}
