package mass_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sofago/sofago/components/mass"
	"github.com/sofago/sofago/components/topology"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"

	_ "github.com/sofago/sofago/components/constraint"
	_ "github.com/sofago/sofago/components/forcefield"
	_ "github.com/sofago/sofago/components/solver"
)

// tetMassScene is a grid with a tetrahedral mass of the given type, named
// "n/mass", under gravity (1, −9.81, 2) (all three components non-zero, so
// every axis of the weight is exercised).
func tetMassScene(typ string, min, max [3]float64, n [3]int, massTOML string) string {
	return fmt.Sprintf(`
gravity = [1, -9.81, 2]
[[node]]
name = "n"
  [[node.object]]
  type = "RegularGridTopology"
  min = [%g, %g, %g]
  max = [%g, %g, %g]
  n = [%d, %d, %d]
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[node.object]]
  type = %q
  name = "mass"
  %s
`, min[0], min[1], min[2], max[0], max[1], max[2], n[0], n[1], n[2], typ, massTOML)
}

func loadMeshMatrixMass(t *testing.T, min, max [3]float64, n [3]int, massTOML string) *mass.MeshMatrixMass {
	t.Helper()
	s := graphtest.MustLoad(t, "mm.toml", tetMassScene("MeshMatrixMass", min, max, n, massTOML))
	return graphtest.Find[*mass.MeshMatrixMass](t, s, "n/mass")
}

func loadDiagonalMass(t *testing.T, min, max [3]float64, n [3]int, massTOML string) *mass.DiagonalMass {
	t.Helper()
	s := graphtest.MustLoad(t, "dm.toml", tetMassScene("DiagonalMass", min, max, n, massTOML))
	return graphtest.Find[*mass.DiagonalMass](t, s, "n/mass")
}

// denseConsistentMass builds the n×n scalar consistent mass independently
// of the component: Σ_e ρ_e V_e/20 (1 + δ_ab) over the element's vertex
// pairs, V_e = |det[p1−p0, p2−p0, p3−p0]|/6.
func denseConsistentMass(points []float64, tets [][4]int, rho []float64) [][]float64 {
	n := len(points) / 3
	M := make([][]float64, n)
	for i := range M {
		M[i] = make([]float64, n)
	}
	p := func(v, c int) float64 { return points[3*v+c] }
	for e, t := range tets {
		var d [3][3]float64
		for r := 0; r < 3; r++ {
			for c := 0; c < 3; c++ {
				d[r][c] = p(t[r+1], c) - p(t[0], c)
			}
		}
		det := d[0][0]*(d[1][1]*d[2][2]-d[1][2]*d[2][1]) - d[0][1]*(d[1][0]*d[2][2]-d[1][2]*d[2][0]) + d[0][2]*(d[1][0]*d[2][1]-d[1][1]*d[2][0])
		m := rho[e] * math.Abs(det) / 6
		for _, a := range t {
			for _, b := range t {
				if a == b {
					M[a][b] += m / 10
				} else {
					M[a][b] += m / 20
				}
			}
		}
	}
	return M
}

// csrEntry returns entry (i, j) of the CSR matrix (0 outside the pattern).
func csrEntry(rowPtr, col []int32, val []float64, i, j int) float64 {
	for k := rowPtr[i]; k < rowPtr[i+1]; k++ {
		if int(col[k]) == j {
			return val[k]
		}
	}
	return 0
}

func sum(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s
}

// TestMeshMatrixMassOperators checks the consistent mass against a dense
// matrix built in the test from the element formula, on a grid with a
// random density per tetrahedron (so the element masses all differ):
// every CSR entry (and nothing outside the pattern), exact symmetry (both
// triangles add the same terms in the same order), M·dx with a factor,
// ½vᵀMv, the weight M·(1⊗g), and the gravity fixture. Tolerances: the
// entries are sums of at most 24 positive terms, the products sums of a few
// hundred, so 1e-13 relative to the largest entry is ~100 ulps.
func TestMeshMatrixMassOperators(t *testing.T) {
	min, max, n := [3]float64{-0.1, 0.2, 0}, [3]float64{0.5, 0.5, 0.9}, [3]int{4, 3, 5}
	grid, err := topology.NewRegularGrid(min, max, n)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	rho := make([]float64, len(grid.Tetrahedra()))
	list := make([]string, len(rho))
	for e := range rho {
		rho[e] = 500 + 1000*rng.Float64()
		list[e] = fmt.Sprintf("%.17g", rho[e])
	}
	mm := loadMeshMatrixMass(t, min, max, n, "massDensityPerElement = ["+strings.Join(list, ", ")+"]")
	M := denseConsistentMass(grid.Points(), grid.Tetrahedra(), rho)
	nv := len(M)
	rowPtr, col, val := mm.ScalarMatrix()
	if len(rowPtr) != nv+1 {
		t.Fatalf("%d CSR rows, want %d", len(rowPtr)-1, nv)
	}
	scale := 0.0
	for i := range M {
		for j := range M {
			scale = math.Max(scale, M[i][j])
		}
	}
	const tol = 1e-13
	nnz := 0
	for i := range M {
		for j := range M {
			got := csrEntry(rowPtr, col, val, i, j)
			if M[i][j] != 0 {
				nnz++
			}
			if math.Abs(got-M[i][j]) > tol*scale {
				t.Fatalf("M[%d][%d] = %.17g, dense reference %.17g", i, j, got, M[i][j])
			}
			if got != csrEntry(rowPtr, col, val, j, i) {
				t.Fatalf("not symmetric: M[%d][%d] = %.17g, M[%d][%d] = %.17g", i, j, got, j, i, csrEntry(rowPtr, col, val, j, i))
			}
		}
	}
	if nnz != len(val) {
		t.Errorf("CSR holds %d entries, the dense matrix has %d non-zeros", len(val), nnz)
	}

	// M·dx (⊗ I₃) and ½vᵀMv against the dense matrix.
	dx := graphtest.RandomDeriv(rng, 3*nv, 1)
	df := graphtest.RandomDeriv(rng, 3*nv, 1)
	want := append([]float64(nil), df...)
	const factor = -1.75
	mm.AddMDx(df, dx, factor)
	ke := 0.0
	for i := range M {
		for c := 0; c < 3; c++ {
			s := 0.0
			for j := range M {
				s += M[i][j] * dx[3*j+c]
			}
			want[3*i+c] += factor * s
			ke += 0.5 * dx[3*i+c] * s
		}
	}
	if e := relMaxDiff(df, want); e > tol {
		t.Errorf("AddMDx: relative difference %.3g to the dense product", e)
	}
	if got := mm.KineticEnergy(dx); math.Abs(got-ke) > tol*ke {
		t.Errorf("KineticEnergy = %.17g, ½ dxᵀ M dx = %.17g", got, ke)
	}

	// Weight: M·(1 ⊗ g), and the row sums are the lumped masses.
	g := [3]float64{1, -9.81, 2}
	f := make([]float64, 3*nv)
	x := graphtest.RandomDeriv(rng, 3*nv, 2)
	mm.AddForce(f, x, nil)
	wantF := make([]float64, 3*nv)
	for i := range M {
		rowSum := sum(M[i])
		if got := mm.VertexMasses()[i]; math.Abs(got-rowSum) > tol*rowSum {
			t.Errorf("vertex %d: VertexMasses %.17g, row sum %.17g", i, got, rowSum)
		}
		for c := 0; c < 3; c++ {
			wantF[3*i+c] = rowSum * g[c]
		}
	}
	if e := relMaxDiff(f, wantF); e > tol {
		t.Errorf("weight differs from M·(1⊗g) by %.3g relative", e)
	}
	graphtest.CheckForceField(t, mm, graph.Vec3, x, nil, graphtest.Options{})
}

// TestTetMassesGravityFixture: the gravity of DiagonalMass with a
// heterogeneous density passes the force-field fixture too (force = −∇W,
// zero stiffness; W is linear, so central differences are exact up to
// rounding), and the two masses apply exactly the same weight.
func TestTetMassesGravityFixture(t *testing.T) {
	min, max, n := [3]float64{0, 0, 0}, [3]float64{1, 0.4, 0.3}, [3]int{5, 3, 3}
	het := `massDensity = 800
  regions = [{sphere = [0.5, 0.2, 0.15, 0.3], massDensity = 3000}]`
	dm := loadDiagonalMass(t, min, max, n, het)
	mm := loadMeshMatrixMass(t, min, max, n, het)
	rng := rand.New(rand.NewPCG(7, 8))
	x := graphtest.RandomDeriv(rng, 3*len(dm.VertexMasses()), 2)
	graphtest.CheckForceField(t, dm, graph.Vec3, x, nil, graphtest.Options{})
	f1 := make([]float64, len(x))
	f2 := make([]float64, len(x))
	dm.AddForce(f1, x, nil)
	mm.AddForce(f2, x, nil)
	for i := range f1 {
		if f1[i] != f2[i] {
			t.Fatalf("weight entry %d: DiagonalMass %.17g, MeshMatrixMass %.17g", i, f1[i], f2[i])
		}
	}
	if dm.PotentialEnergy(x) != mm.PotentialEnergy(x) {
		t.Errorf("gravity potentials differ: %.17g vs %.17g", dm.PotentialEnergy(x), mm.PotentialEnergy(x))
	}
}

// TestMassesRigidMotions: for a rigid translation v, vᵀMv = m_total|v|²
// for both masses (both reproduce constant fields). For a rigid rotation
// v = ω × (x − p), a linear field, the consistent mass integrates ρ|v|²
// exactly, so ½vᵀMv equals the box's ½ωᵀIω with I = ∫ρ(|r|²I₃ − rrᵀ)dV in
// closed form; the lumped mass does not (it puts the mass on the vertices,
// too far from the axis on average).
func TestMassesRigidMotions(t *testing.T) {
	lo, hi, n := [3]float64{-0.2, 0.1, 0.3}, [3]float64{0.4, 0.3, 1.3}, [3]int{4, 3, 6}
	const rho = 1250.0
	mm := loadMeshMatrixMass(t, lo, hi, n, fmt.Sprint("massDensity = ", rho))
	dm := loadDiagonalMass(t, lo, hi, n, fmt.Sprint("massDensity = ", rho))
	grid, err := topology.NewRegularGrid(lo, hi, n)
	if err != nil {
		t.Fatal(err)
	}
	pts := grid.Points()
	nv := len(pts) / 3
	vol := (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2])
	total := rho * vol

	// Translation. vᵀMv sums ~100 terms: 1e-13.
	vt := [3]float64{0.3, -1.2, 0.7}
	v := make([]float64, 3*nv)
	for i := 0; i < nv; i++ {
		copy(v[3*i:], vt[:])
	}
	v2 := vt[0]*vt[0] + vt[1]*vt[1] + vt[2]*vt[2]
	for name, ke := range map[string]float64{"MeshMatrixMass": mm.KineticEnergy(v), "DiagonalMass": dm.KineticEnergy(v)} {
		if want := 0.5 * total * v2; math.Abs(ke-want) > 1e-13*want {
			t.Errorf("%s: translation kinetic energy %.17g, want ½m|v|² = %.17g", name, ke, want)
		}
	}

	// Rotation about the axis ω through p.
	w := [3]float64{0.3, -0.5, 0.8}
	p := [3]float64{0.1, 0.2, -0.3}
	for i := 0; i < nv; i++ {
		r := [3]float64{pts[3*i] - p[0], pts[3*i+1] - p[1], pts[3*i+2] - p[2]}
		v[3*i] = w[1]*r[2] - w[2]*r[1]
		v[3*i+1] = w[2]*r[0] - w[0]*r[2]
		v[3*i+2] = w[0]*r[1] - w[1]*r[0]
	}
	// S_kl = ∫ r_k r_l dV over the box, r = x − p.
	var a, b [3]float64 // box bounds relative to p
	for k := 0; k < 3; k++ {
		a[k], b[k] = lo[k]-p[k], hi[k]-p[k]
	}
	var S [3][3]float64
	for k := 0; k < 3; k++ {
		for l := 0; l < 3; l++ {
			s := 1.0
			for m := 0; m < 3; m++ {
				switch {
				case k == l && m == k:
					s *= (b[m]*b[m]*b[m] - a[m]*a[m]*a[m]) / 3
				case m == k || m == l:
					s *= (b[m]*b[m] - a[m]*a[m]) / 2
				default:
					s *= b[m] - a[m]
				}
			}
			S[k][l] = s
		}
	}
	// ½ρ∫|ω×r|² = ½ρ(|ω|² tr S − ωᵀSω).
	trS := S[0][0] + S[1][1] + S[2][2]
	wSw := 0.0
	for k := 0; k < 3; k++ {
		for l := 0; l < 3; l++ {
			wSw += w[k] * S[k][l] * w[l]
		}
	}
	exact := 0.5 * rho * ((w[0]*w[0]+w[1]*w[1]+w[2]*w[2])*trS - wSw)
	keC, keL := mm.KineticEnergy(v), dm.KineticEnergy(v)
	t.Logf("rigid rotation: exact ½ωᵀIω = %.15g J, consistent %.15g (rel. %.2g), lumped %.15g (rel. %+.3g)",
		exact, keC, (keC-exact)/exact, keL, (keL-exact)/exact)
	// Exact up to rounding of a few hundred terms: 1e-12.
	if math.Abs(keC-exact) > 1e-12*exact {
		t.Errorf("consistent mass: rotation kinetic energy %.17g, exact %.17g", keC, exact)
	}
	// The lumped error is O(h²) of the cell size, here ~1e-2: demand at
	// least 1e-4 so the test shows the difference, not rounding.
	if math.Abs(keL-exact) < 1e-4*exact {
		t.Errorf("lumped mass: rotation kinetic energy %.17g is as exact as the consistent one (%.17g)", keL, exact)
	}
}

// TestTetMassesHeterogeneity: a box region of density 2ρ over the upper
// half of a bar (z > 0.5, a plane of grid vertices, so every tetrahedron
// is on one side) doubles the mass of that half in both masses, exactly:
// every vertex and every matrix entry supported only by upper elements is
// doubled bit for bit (doubling is exact in floating point), every one
// supported only by lower elements is unchanged, and the total is 1.5×.
// The equivalent massDensityPerElement list gives the same matrices bit for
// bit. A region's youngModulus (a force-field property) changes nothing.
func TestTetMassesHeterogeneity(t *testing.T) {
	lo, hi, n := [3]float64{0, 0, 0}, [3]float64{0.2, 0.2, 1}, [3]int{3, 3, 11}
	const rho = 1000.0
	uniform := fmt.Sprint("massDensity = ", rho)
	region := uniform + "\n  regions = [{box = [-1, -1, 0.5, 1, 1, 2], massDensity = 2000}]"
	grid, err := topology.NewRegularGrid(lo, hi, n)
	if err != nil {
		t.Fatal(err)
	}
	pts, tets := grid.Points(), grid.Tetrahedra()
	list := make([]string, len(tets))
	for e, tet := range tets {
		cz := (pts[3*tet[0]+2] + pts[3*tet[1]+2] + pts[3*tet[2]+2] + pts[3*tet[3]+2]) / 4
		list[e] = "1000"
		if cz > 0.5 {
			list[e] = "2000"
		}
	}
	perElement := "massDensityPerElement = [" + strings.Join(list, ", ") + "]"
	z := func(i int) float64 { return pts[3*i+2] }
	const eps = 1e-9

	// Lumped.
	du := loadDiagonalMass(t, lo, hi, n, uniform).VertexMasses()
	dr := loadDiagonalMass(t, lo, hi, n, region).VertexMasses()
	dl := loadDiagonalMass(t, lo, hi, n, perElement).VertexMasses()
	for i := range du {
		switch {
		case z(i) > 0.5+eps && dr[i] != 2*du[i]:
			t.Errorf("DiagonalMass vertex %d (z = %g): %.17g, want 2 × %.17g", i, z(i), dr[i], du[i])
		case z(i) < 0.5-eps && dr[i] != du[i]:
			t.Errorf("DiagonalMass vertex %d (z = %g): %.17g, want %.17g", i, z(i), dr[i], du[i])
		}
		if dl[i] != dr[i] {
			t.Errorf("DiagonalMass vertex %d: per-element list %.17g, region %.17g", i, dl[i], dr[i])
		}
	}
	if tu, tr := sum(du), sum(dr); math.Abs(tr-1.5*tu) > 1e-13*tr || math.Abs(tu-40) > 1e-13*40 {
		t.Errorf("DiagonalMass totals: uniform %.17g (want 40), with the dense half %.17g (want 60)", tu, tr)
	}

	// Consistent.
	mu := loadMeshMatrixMass(t, lo, hi, n, uniform)
	mr := loadMeshMatrixMass(t, lo, hi, n, region)
	ml := loadMeshMatrixMass(t, lo, hi, n, perElement)
	rp, col, vu := mu.ScalarMatrix()
	_, _, vr := mr.ScalarMatrix()
	_, _, vl := ml.ScalarMatrix()
	for i := 0; i+1 < len(rp); i++ {
		for k := rp[i]; k < rp[i+1]; k++ {
			j := int(col[k])
			switch {
			case z(i) > 0.5+eps && z(j) > 0.5+eps && vr[k] != 2*vu[k]:
				t.Errorf("MeshMatrixMass M[%d][%d]: %.17g, want 2 × %.17g", i, j, vr[k], vu[k])
			case z(i) < 0.5-eps && z(j) < 0.5-eps && vr[k] != vu[k]:
				t.Errorf("MeshMatrixMass M[%d][%d]: %.17g, want %.17g", i, j, vr[k], vu[k])
			}
			if vl[k] != vr[k] {
				t.Errorf("MeshMatrixMass M[%d][%d]: per-element list %.17g, region %.17g", i, j, vl[k], vr[k])
			}
		}
	}
	if tu, tr := sum(vu), sum(vr); math.Abs(tr-1.5*tu) > 1e-13*tr || math.Abs(tu-40) > 1e-13*40 {
		t.Errorf("MeshMatrixMass totals: uniform %.17g (want 40), with the dense half %.17g (want 60)", tu, tr)
	}
}

// TestTetMassesHeterogeneityErrors: a per-element list of the wrong length
// (at Init, when the mesh is known), youngModulusPerElement or a region
// without a density on a mass (silent no-ops otherwise), and totalMass with
// per-element densities (over-determined) are errors that name the
// problem, for both masses.
func TestTetMassesHeterogeneityErrors(t *testing.T) {
	lo, hi, n := [3]float64{0, 0, 0}, [3]float64{1, 1, 1}, [3]int{2, 2, 2} // 6 tetrahedra
	for _, typ := range []string{"MeshMatrixMass", "DiagonalMass"} {
		for _, c := range []struct{ toml, want string }{
			{"massDensityPerElement = [1, 2, 3]", "massDensityPerElement has 3 values, the mesh has 6 tetrahedra"},
			{"youngModulusPerElement = [1, 2, 3, 4, 5, 6]", `unknown field "youngModulusPerElement"`},
			{"regions = [{box = [0, 0, 0, 1, 1, 1], youngModulus = 5}]", `unknown field "youngModulus"`},
			{"totalMass = 3\n  regions = [{box = [0, 0, 0, 1, 1, 1], massDensity = 5}]", "cannot be combined with per-element densities"},
			{"totalMass = 3\n  massDensityPerElement = [1, 2, 3, 4, 5, 6]", "cannot be combined with per-element densities"},
			{"regions = [{box = [0, 0, 0, 1, 1], massDensity = 5}]", "box has 5 numbers"},
			{"massDensity = 1\n  totalMass = 1", "not both"},
		} {
			err := initSceneErr(tetMassScene(typ, lo, hi, n, c.toml))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s with %q: error %v, want one containing %q", typ, c.toml, err, c.want)
			}
		}
	}
}

// TestMeshMatrixMassTotalMass: totalMass gives the uniform density ρ =
// total/volume, so the matrix is the massDensity one scaled.
func TestMeshMatrixMassTotalMass(t *testing.T) {
	lo, hi, n := [3]float64{0, 0, 0}, [3]float64{2, 1, 0.5}, [3]int{4, 3, 2}
	_, _, a := loadMeshMatrixMass(t, lo, hi, n, "massDensity = 3").ScalarMatrix()
	_, _, b := loadMeshMatrixMass(t, lo, hi, n, "totalMass = 3").ScalarMatrix() // volume 1 m³
	for k := range a {
		if math.Abs(a[k]-b[k]) > 1e-14*a[k] {
			t.Fatalf("entry %d: massDensity 3 gives %.17g, totalMass 3 over 1 m³ gives %.17g", k, a[k], b[k])
		}
	}
	if total := sum(b); math.Abs(total-3) > 1e-14*3 {
		t.Errorf("total %.17g, want 3", total)
	}
}

func relMaxDiff(a, b []float64) float64 {
	d, m := 0.0, 0.0
	for i := range a {
		d = math.Max(d, math.Abs(a[i]-b[i]))
		m = math.Max(m, math.Abs(b[i]))
	}
	return d / m
}

// freeFallScene is a block with MeshMatrixMass falling under gravity with
// the given solver table(s).
func freeFallScene(solvers string) string {
	return `
dt = 0.01
gravity = [0.5, -9.81, 1.5]
[[node]]
name = "body"
` + solvers + `
  [[node.object]]
  type = "RegularGridTopology"
  min = [0, 0, 0]
  max = [0.3, 0.2, 0.5]
  n = [4, 3, 5]
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[node.object]]
  type = "MeshMatrixMass"
  massDensity = 700
`
}

// TestMeshMatrixMassFreeFall: under uniform gravity alone M·a = M·g, so
// a = g exactly whatever M is. Implicit Euler then gives v_n = n·h·g and
// x_n = x_0 + h²·g·n(n+1)/2 (it updates x with the new v), and so does
// symplectic explicit Euler, which solves M·a = f with the CG solver of its
// node (MeshMatrixMass has no cheap inverse). Both are checked to 1e-12
// relative to the displacement: CG is run to a 1e-15 relative residual,
// and the mass matrix is well conditioned (its element matrices have
// eigenvalues in ratio 1:5), so Δv is exact to a few ulps per step.
// Without a linear solver the explicit solver stops with an error that says
// what to add.
func TestMeshMatrixMassFreeFall(t *testing.T) {
	const cg = `
  [[node.object]]
  type = "CGLinearSolver"
  name = "cg"
  iterations = 200
  tolerance = 1e-15`
	for _, c := range []struct{ name, solver string }{
		{"implicit", "  [[node.object]]\n  type = \"EulerImplicitSolver\"\n" + cg},
		{"explicit+CG", "  [[node.object]]\n  type = \"EulerExplicitSolver\"\n" + cg},
	} {
		s := graphtest.MustLoad(t, "fall.toml", freeFallScene(c.solver))
		st := graphtest.Find[graph.State](t, s, "body/dofs")
		x0 := append([]float64(nil), st.Vec(graph.Position)...)
		const steps, h = 30, 0.01
		for i := 0; i < steps; i++ {
			if err := s.Step(); err != nil {
				t.Fatalf("%s: step %d: %v", c.name, i, err)
			}
		}
		g := [3]float64{0.5, -9.81, 1.5}
		x, v := st.Vec(graph.Position), st.Vec(graph.Velocity)
		worstX, worstV := 0.0, 0.0
		for i := range x {
			gi := g[i%3]
			wantU := h * h * gi * steps * (steps + 1) / 2
			worstX = math.Max(worstX, math.Abs(x[i]-x0[i]-wantU)/(h*h*9.81*steps*(steps+1)/2))
			worstV = math.Max(worstV, math.Abs(v[i]-steps*h*gi)/(steps*h*9.81))
		}
		t.Logf("%s: after %d steps, max relative error of x %.2g, of v %.2g", c.name, steps, worstX, worstV)
		if worstX > 1e-12 || worstV > 1e-12 {
			t.Errorf("%s: free fall off the closed form: relative error %.3g in x, %.3g in v", c.name, worstX, worstV)
		}
	}
	s := graphtest.MustLoad(t, "fall.toml", freeFallScene("  [[node.object]]\n  type = \"EulerExplicitSolver\""))
	err := s.Step()
	if err == nil || !strings.Contains(err.Error(), "linear solver") {
		t.Errorf("explicit Euler with MeshMatrixMass and no linear solver: error %v, want one asking for a linear solver", err)
	}
	if _, ok := any(&mass.MeshMatrixMass{}).(graph.InverseMass); ok {
		t.Error("MeshMatrixMass implements graph.InverseMass, but its inverse is a full matrix")
	}
}

// beamScene is a clamped corotational beam under gravity with the given
// mass and solver table (with its linear solver).
func beamScene(massType, solver string) string {
	return fmt.Sprintf(`
dt = 0.01
gravity = [0, -9.81, 0]
[[node]]
name = "beam"
  [[node.object]]
  %s
  [[node.object]]
  type = "CGLinearSolver"
  iterations = 300
  tolerance = 1e-12
  [[node.object]]
  type = "RegularGridTopology"
  min = [0, 0, 0]
  max = [0.5, 0.1, 0.1]
  n = [9, 3, 3]
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[node.object]]
  type = %q
  massDensity = 1000
  [[node.object]]
  type = "TetrahedronFEMForceField"
  method = "large"
  youngModulus = 2e6
  poissonRatio = 0.3
  [[node.object]]
  type = "FixedConstraint"
  box = [-0.001, -1, -1, 0.001, 1, 1]
`, solver, massType)
}

// TestMeshMatrixMassDynamicBeam: a cantilever with the consistent mass
// under implicit Euler + CG.
//
// Undamped, implicit Euler only dissipates: the total energy (kinetic +
// elastic + gravity) never rises by more than 1e-6 of the energy exchanged
// (the linear solve is converged to 1e-12) and has fallen after the beam
// swings.
//
// Damped (Rayleigh α = 2/s, β = 0.01 s), the beam settles at the static
// equilibrium f(x) = 0 that StaticSolver finds by Newton's method, which
// does not depend on M (and the consistent and lumped weights are the
// same). The slowest mode, first bending at ω ≈ 18 rad/s by beam theory
// (3.516·√(EI/ρAL⁴)), decays at ≥ α/2 + βω²/2 ≈ 2.6/s from Rayleigh
// damping plus ≈ ln(1 + h²ω²)/2h ≈ 1.6/s from implicit Euler, so after
// 3 s its amplitude (at most the sag, starting from rest) is below
// e^{−12.6} ≈ 3.4e-6 of the sag: tolerance 1e-5 of the sag, for both
// masses.
func TestMeshMatrixMassDynamicBeam(t *testing.T) {
	s := graphtest.MustLoad(t, "beam.toml", beamScene("MeshMatrixMass", `type = "EulerImplicitSolver"`))
	k0, p0 := s.Energies()
	e0, prev, maxK := k0+p0, k0+p0, 0.0
	energies := make([]float64, 0, 60)
	for i := 0; i < 60; i++ {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
		k, p := s.Energies()
		maxK = math.Max(maxK, k)
		energies = append(energies, k+p)
	}
	for i, e := range energies {
		if e > prev+1e-6*maxK {
			t.Errorf("step %d: total energy rose from %.9g to %.9g J (largest kinetic energy %.4g J)", i+1, prev, e, maxK)
		}
		prev = e
	}
	t.Logf("undamped: total energy %.6g J → %.6g J over 60 steps; largest kinetic energy %.4g J", e0, prev, maxK)
	if maxK == 0 || !(prev < e0) {
		t.Errorf("the beam did not swing and dissipate: largest kinetic %g J, energy %g → %g J", maxK, e0, prev)
	}

	static := graphtest.MustLoad(t, "beam.toml", beamScene("MeshMatrixMass", `type = "StaticSolver"
  iterations = 30
  tolerance = 1e-12`))
	if err := static.Step(); err != nil {
		t.Fatal(err)
	}
	xs := graphtest.Find[graph.State](t, static, "beam/dofs").Vec(graph.Position)
	rest := graphtest.Find[graph.State](t, static, "beam/dofs").Vec(graph.RestPosition)
	sag := 0.0
	for i := range xs {
		sag = math.Max(sag, math.Abs(xs[i]-rest[i]))
	}
	for _, massType := range []string{"MeshMatrixMass", "DiagonalMass"} {
		s := graphtest.MustLoad(t, "beam.toml", beamScene(massType, `type = "EulerImplicitSolver"
  rayleighMass = 2
  rayleighStiffness = 0.01`))
		for i := 0; i < 300; i++ {
			if err := s.Step(); err != nil {
				t.Fatal(err)
			}
		}
		x := graphtest.Find[graph.State](t, s, "beam/dofs").Vec(graph.Position)
		diff := 0.0
		for i := range x {
			diff = math.Max(diff, math.Abs(x[i]-xs[i]))
		}
		t.Logf("%s, damped, 3 s: max |x − x_static| = %.3g m (static sag %.5g m)", massType, diff, sag)
		if diff > 1e-5*sag {
			t.Errorf("%s: the damped beam is %.3g m from the static equilibrium after 3 s (sag %.4g m)", massType, diff, sag)
		}
	}
}

// BenchmarkMeshMatrixMassAddMDx: one consistent-mass product M·dx on a
// 9,984-tetrahedron grid (9 × 9 × 27 vertices, 2,187 vertices), what every
// CG iteration of an implicit step costs for the mass; DiagonalMass's
// product for comparison.
func BenchmarkMeshMatrixMassAddMDx(b *testing.B) {
	for _, typ := range []string{"MeshMatrixMass", "DiagonalMass"} {
		b.Run(typ, func(b *testing.B) {
			s := graphtest.MustLoad(b, "bench.toml", tetMassScene(typ, [3]float64{0, 0, 0}, [3]float64{0.8, 0.8, 2.6}, [3]int{9, 9, 27}, ""))
			m := graphtest.Find[graph.Mass](b, s, "n/mass")
			nv := graphtest.Find[graph.State](b, s, "n/dofs").Size()
			rng := rand.New(rand.NewPCG(1, 2))
			dx := graphtest.RandomDeriv(rng, 3*nv, 1)
			df := make([]float64, 3*nv)
			for b.Loop() {
				m.AddMDx(df, dx, 1)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/9984, "ns/tet")
			if mm, ok := m.(*mass.MeshMatrixMass); ok {
				_, col, _ := mm.ScalarMatrix()
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(col)), "ns/entry")
			}
		})
	}
}
