package forcefield

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
	"github.com/sofago/sofago/sparse"
)

// blockCase is a tetrahedral force field on a 12×3×3-cell box (648
// tetrahedra: more than 8 grains, so KBlocks runs in parallel), half of
// it five times stiffer (a region), with the fields of one method, tangent
// or law.
type blockCase struct {
	name, typ, fields string
}

func blockCases() []blockCase {
	var cs []blockCase
	for _, m := range allMethods {
		for _, tg := range []string{"exact", "warped"} {
			cs = append(cs, blockCase{"FEM/" + m + "/" + tg, "TetrahedronFEMForceField",
				fmt.Sprintf("method = %q\n  tangent = %q\n  youngModulus = 1e6\n  poissonRatio = 0.35", m, tg)})
		}
	}
	for _, law := range []string{"StVenantKirchhoff", "NeoHookean", "StableNeoHookean"} {
		cs = append(cs, blockCase{"Hyperelastic/" + law, "TetrahedronHyperelasticityFEMForceField",
			fmt.Sprintf("materialName = %q\n  youngModulus = 1e6\n  poissonRatio = 0.35", law)})
	}
	return cs
}

// loadBlockCase returns the force field (as tetSolid's owner) and its
// state, linearised at a rotated, randomly deformed configuration
// (displacements of 3% of the box width: stretches and element rotations
// well away from the rest tangent).
func loadBlockCase(t testing.TB, c blockCase) (graph.ForceField, *tetSolid, []float64) {
	t.Helper()
	s := graphtest.MustLoad(t, "blocks.toml", fmt.Sprintf(`
[[node]]
name = "b"
  [[node.object]]
  type = "RegularGridTopology"
  min = [0, 0, 0]
  max = [1.2, 0.3, 0.3]
  n = [13, 4, 4]
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[node.object]]
  type = %q
  name = "ff"
  regions = [{box = [0, -1, -1, 0.6, 1, 1], youngModulus = 5e6}]
  %s
`, c.typ, c.fields))
	ff := graphtest.Find[graph.ForceField](t, s, "b/ff")
	st := graphtest.Find[graph.State](t, s, "b/dofs")
	var ts *tetSolid
	switch f := ff.(type) {
	case *TetrahedronFEMForceField:
		ts = &f.tetSolid
	case *TetrahedronHyperelasticityFEMForceField:
		ts = &f.tetSolid
	}
	rng := rand.New(rand.NewPCG(41, 42))
	rest := st.Vec(graph.RestPosition)
	x := transform(rest, randomDisplacement(rng, len(rest), 0.01), randomRotation(rng), geom.Vec3{0.1, -0.2, 0.3})
	copy(st.Vec(graph.Position), x)
	ff.AddForce(make([]float64, len(x)), x, nil)
	return ff, ts, x
}

// assembleBlocks scatters the force field's KBlocks into a BSR3 through a
// sparse.BSR3Assembly (the path the solvers take).
func assembleBlocks(t *testing.T, ts *tetSolid, n int, kf float64) *sparse.BSR3 {
	t.Helper()
	as, err := sparse.NewBSR3Assembly(n, [][]int32{ts.StiffnessBlocks()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ts.KBlocks(as.Source(0), kf)
	as.Gather(&ts.asm.runner)
	return as.A
}

// TestStiffnessBlocksMatchAddDForceColumns checks every column of the
// block-assembled K against the matrix-free AddDForce of the unit vector,
// for every method, tangent and law, on a heterogeneous mesh at a rotated
// deformed configuration: kf·K·e_j = AddDForce(e_j, kf). The two paths
// evaluate the same derivative, one through the 9×9 closed-form tangent
// contracted with the shape gradients, the other through dP[dF] per
// element, so they agree to rounding: 1e-12 relative to the column's
// largest entry (measured ≤ 1e-14). The scalar AddKToMatrix path is
// checked against the blocks entry by entry, and the matrix for symmetry
// (every tangent here is the Hessian of an energy or R K₀ Rᵀ).
func TestStiffnessBlocksMatchAddDForceColumns(t *testing.T) {
	for _, c := range blockCases() {
		t.Run(c.name, func(t *testing.T) {
			ff, ts, x := loadBlockCase(t, c)
			n := len(x)
			const kf = -1.7
			A := assembleBlocks(t, ts, n/3, kf)
			if err := A.Check(); err != nil {
				t.Fatal(err)
			}
			e := make([]float64, n)
			want := make([]float64, n)
			got := make([]float64, n)
			worst := 0.0
			for j := 0; j < n; j++ {
				e[j] = 1
				clear(want)
				ff.AddDForce(want, e, kf, 0.3) // bFactor: elastic fields have no damping
				A.MulVec(got, e)
				e[j] = 0
				worst = math.Max(worst, colRel(got, want))
			}
			t.Logf("max over columns of |K e_j − AddDForce(e_j)| / max|AddDForce(e_j)| = %.2g", worst)
			if worst > 1e-12 {
				t.Errorf("block-assembled K differs from AddDForce by %.3g relative", worst)
			}
			// Scalar path: the same element matrices entry by entry.
			b := sparse.NewBuilder(n, n)
			ff.(graph.StiffnessAssembler).AddKToMatrix(b, kf)
			K, err := b.Build()
			if err != nil {
				t.Fatal(err)
			}
			d, m, asym := 0.0, 0.0, 0.0
			for r := 0; r < n; r++ {
				for q := K.RowPtr[r]; q < K.RowPtr[r+1]; q++ {
					d = math.Max(d, math.Abs(K.Val[q]-A.At(r, K.Col[q])))
					m = math.Max(m, math.Abs(K.Val[q]))
					asym = math.Max(asym, math.Abs(K.Val[q]-K.At(K.Col[q], r)))
				}
			}
			if d > 1e-15*m {
				t.Errorf("AddKToMatrix differs from the blocks by %.3g relative", d/m)
			}
			// Symmetry: the two triangles are computed separately, so
			// they agree to rounding of the contraction (≤ 1e-14 of max).
			if asym > 1e-12*m {
				t.Errorf("K not symmetric: %.3g relative", asym/m)
			}
		})
	}
}

// TestStiffnessBlocksDeterministicAcrossWorkers: the assembled matrix is
// bitwise the same with 1, 2 and 3 workers (element matrices in parallel,
// block rows gathered in parallel, each sum in a fixed order).
func TestStiffnessBlocksDeterministicAcrossWorkers(t *testing.T) {
	for _, c := range blockCases()[:4] {
		_, ts, x := loadBlockCase(t, c)
		var ref []float64
		for _, w := range []int{1, 2, 3} {
			ts.asm.setWorkers(w)
			A := assembleBlocks(t, ts, len(x)/3, 2)
			if ref == nil {
				ref = append([]float64(nil), A.Val...)
				continue
			}
			for i := range ref {
				if A.Val[i] != ref[i] {
					t.Fatalf("%s: %d workers differ from 1 at value %d: %v vs %v", c.name, w, i, A.Val[i], ref[i])
				}
			}
		}
		ts.asm.setWorkers(0)
	}
}

// TestPointRotations: under a rigid rotation Q of the rest shape every
// point's rotation is Q (to the polar decomposition's precision), and at
// rest it is the identity.
func TestPointRotations(t *testing.T) {
	c := blockCases()[2] // large, exact
	ff, ts, _ := loadBlockCase(t, c)
	_ = ff
	rng := rand.New(rand.NewPCG(43, 44))
	Q := randomRotation(rng)
	st := ts.state
	rest := st.Vec(graph.RestPosition)
	copy(st.Vec(graph.Position), transform(rest, make([]float64, len(rest)), Q, geom.Vec3{1, 2, 3}))
	out := make([]float64, 3*len(rest))
	if !ts.PointRotations(out) {
		t.Fatal("no rotations")
	}
	worst := 0.0
	for v := 0; v < len(rest)/3; v++ {
		for i := 0; i < 9; i++ {
			worst = math.Max(worst, math.Abs(out[9*v+i]-Q[i]))
		}
	}
	// A rigid motion gives F = Q exactly up to rounding of Ds·Dm⁻¹
	// (~1e-15); the polar iteration converges to 1e-15.
	if worst > 1e-12 {
		t.Errorf("rotations differ from the rigid rotation by %.3g", worst)
	}
}

// colRel returns max|a − b| / max|b|.
func colRel(a, b []float64) float64 {
	d, m := 0.0, 0.0
	for i := range a {
		d = math.Max(d, math.Abs(a[i]-b[i]))
		m = math.Max(m, math.Abs(b[i]))
	}
	return d / m
}

// TestLargeRotatedTangent compares the closed-form Â of
// largeRotatedTangent with largeRotatedDStress applied to the nine unit
// matrices (its columns by definition) at the cached data of every
// element of a rotated, deformed mesh (the blockCase configuration), and
// checks that Â is symmetric (the tangent of an energy). Both are sums of
// a few products of the cached data, so they agree to rounding: 1e-13
// relative to max|Â| (measured ~1e-16).
func TestLargeRotatedTangent(t *testing.T) {
	_, ts, _ := loadBlockCase(t, blockCase{"FEM/large/exact", "TetrahedronFEMForceField",
		"method = \"large\"\n  youngModulus = 1e6\n  poissonRatio = 0.35"})
	if ts.largeExact == nil {
		t.Fatal("not the exact large tangent")
	}
	mu, lam := ts.largeExact.mu, ts.largeExact.lambda
	worst, asym := 0.0, 0.0
	for e := 0; e < ts.mesh.numElements(); e++ {
		cc := ts.cache[strideLarge*e : strideLarge*e+strideLarge]
		var Ah [81]float64
		largeRotatedTangent(&Ah, cc, mu, lam)
		m, d := 0.0, 0.0
		var X, T geom.Mat3
		for c := 0; c < 9; c++ {
			X[c] = 1
			largeRotatedDStress(&T, cc, &X, mu, lam)
			X[c] = 0
			for r := 0; r < 9; r++ {
				m = math.Max(m, math.Abs(T[r]))
				d = math.Max(d, math.Abs(T[r]-Ah[9*r+c]))
			}
		}
		a := 0.0
		for r := 0; r < 9; r++ {
			for c := 0; c < r; c++ {
				a = math.Max(a, math.Abs(Ah[9*r+c]-Ah[9*c+r]))
			}
		}
		worst, asym = math.Max(worst, d/m), math.Max(asym, a/m)
	}
	t.Logf("max relative difference %.3g, asymmetry %.3g", worst, asym)
	if worst > 1e-13 {
		t.Errorf("closed-form Â differs from largeRotatedDStress by %.3g relative", worst)
	}
	if asym > 1e-13 {
		t.Errorf("Â not symmetric: %.3g relative", asym)
	}
}
