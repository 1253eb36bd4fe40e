package forcefield

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	_ "github.com/sofago/sofago/components/topology"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

// femScene returns a scene with one node "beam": a RegularGridTopology box
// [0,lx]×[0,ly]×[0,lz] with n vertices per axis, a Vec3 MechanicalObject
// "dofs" and a TetrahedronFEMForceField "fem" with the given fields.
func femScene(n [3]int, size [3]float64, femFields string) string {
	return fmt.Sprintf(`
[[node]]
name = "beam"
  [[node.object]]
  type = "RegularGridTopology"
  min = [0, 0, 0]
  max = [%g, %g, %g]
  n = [%d, %d, %d]
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  template = "Vec3"
  [[node.object]]
  type = "TetrahedronFEMForceField"
  name = "fem"
  %s
`, size[0], size[1], size[2], n[0], n[1], n[2], femFields)
}

type femSetup struct {
	ff   *TetrahedronFEMForceField
	dofs *graph.MechanicalObject
	rest []float64
	tmpl graph.Template
}

func loadFEM(t testing.TB, n [3]int, size [3]float64, femFields string) femSetup {
	t.Helper()
	s := graphtest.MustLoad(t, "fem.toml", femScene(n, size, femFields))
	ff := graphtest.Find[*TetrahedronFEMForceField](t, s, "beam/fem")
	dofs := graphtest.Find[*graph.MechanicalObject](t, s, "beam/dofs")
	tmpl, _ := graph.LookupTemplate("Vec3")
	return femSetup{ff: ff, dofs: dofs, rest: append([]float64(nil), dofs.Vec(graph.RestPosition)...), tmpl: tmpl}
}

func (s femSetup) force(x []float64) []float64 {
	f := make([]float64, len(x))
	s.ff.AddForce(f, x, nil)
	return f
}

func (s femSetup) dforce(d []float64, k float64) []float64 {
	df := make([]float64, len(d))
	s.ff.AddDForce(df, d, k, 0)
	return df
}

// randomRotation returns a uniformly random rotation matrix.
func randomRotation(rng *rand.Rand) geom.Mat3 {
	q := [4]float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
	n := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])
	x, y, z, w := q[0]/n, q[1]/n, q[2]/n, q[3]/n
	return geom.Mat3{
		1 - 2*(y*y+z*z), 2 * (x*y - z*w), 2 * (x*z + y*w),
		2 * (x*y + z*w), 1 - 2*(x*x+z*z), 2 * (y*z - x*w),
		2 * (x*z - y*w), 2 * (y*z + x*w), 1 - 2*(x*x+y*y),
	}
}

// transform returns Q(X + u) + b for every point X of rest (u may be nil).
func transform(rest, u []float64, Q geom.Mat3, b geom.Vec3) []float64 {
	x := make([]float64, len(rest))
	for i := 0; i < len(rest)/3; i++ {
		p := geom.At(rest, i)
		if u != nil {
			p = p.Add(geom.At(u, i))
		}
		geom.Put(x, i, Q.MulVec(p).Add(b))
	}
	return x
}

func randomDisplacement(rng *rand.Rand, n int, amp float64) []float64 {
	u := make([]float64, n)
	for i := range u {
		u[i] = amp * (2*rng.Float64() - 1)
	}
	return u
}

func maxAbs(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = math.Max(m, math.Abs(x))
	}
	return m
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

var allMethods = []string{"small", "large", "polar", "svd"}

// fdTolerance is the tolerance of the finite-difference fixture. Central
// differences with the fixture's step h = 1e-6·|x|max have a truncation
// error ≈ h²·|third derivative of f| ≈ 1e-12 relative here and a rounding error
// ≈ 1e-16·|f|/(h|K d|); the measured agreement is 6e-11 to 8e-11 for
// every method. 1e-8 leaves two orders of margin and is a hundred times
// tighter than the 1e-6 of the README's testing rule (Tests and benchmarks).
const fdTolerance = 1e-8

// TestFixtureExactTangent runs graphtest.CheckForceField (force = −∇W,
// AddDForce = finite differences of AddForce) for every method with the
// exact tangent, on a rotated, translated and randomly deformed grid.
func TestFixtureExactTangent(t *testing.T) {
	h := 0.1 // element size
	for _, method := range allMethods {
		for seed := uint64(1); seed <= 3; seed++ {
			s := loadFEM(t, [3]int{4, 3, 3}, [3]float64{0.3, 0.2, 0.2},
				fmt.Sprintf(`method = %q
  youngModulus = 1e6
  poissonRatio = 0.3`, method))
			rng := rand.New(rand.NewPCG(seed, 42))
			// Displacements up to 8 % of the element size, then a random
			// rotation and translation of the whole body.
			u := randomDisplacement(rng, len(s.rest), 0.08*h)
			x := transform(s.rest, u, randomRotation(rng), geom.Vec3{0.3, -0.2, 0.5})
			ok := graphtest.CheckForceField(t, s.ff, s.tmpl, x, nil, graphtest.Options{Seed: seed, Trials: 4, Tolerance: fdTolerance})
			if !ok {
				t.Errorf("method %s, seed %d: fixture failed", method, seed)
			}
		}
	}
}

// TestFixtureLargeStrain runs the fixture at strains of ±30 %, where the
// rotation terms of the tangent dominate.
func TestFixtureLargeStrain(t *testing.T) {
	h := 0.1
	for _, method := range allMethods {
		s := loadFEM(t, [3]int{3, 3, 3}, [3]float64{0.2, 0.2, 0.2}, fmt.Sprintf(`method = %q
  poissonRatio = 0.45`, method))
		rng := rand.New(rand.NewPCG(7, 7))
		u := randomDisplacement(rng, len(s.rest), 0.3*h)
		x := transform(s.rest, u, randomRotation(rng), geom.Vec3{})
		if inverted := countInverted(s.ff, x); inverted != 0 {
			t.Fatalf("test setup: %d inverted elements", inverted)
		}
		if !graphtest.CheckForceField(t, s.ff, s.tmpl, x, nil, graphtest.Options{Seed: 3, Trials: 4, Tolerance: fdTolerance}) {
			t.Errorf("method %s: fixture failed at large strain", method)
		}
	}
}

func countInverted(ff *TetrahedronFEMForceField, x []float64) int {
	n := 0
	for e := 0; e < ff.mesh.numElements(); e++ {
		if ff.mesh.gradient(e, x).Det() < 0 {
			n++
		}
	}
	return n
}

// TestInvertedElements deforms a grid until some elements invert: the svd
// forces stay finite and the fixture passes (the tangent is defined: the
// configuration keeps every |σ̂ᵢ + σ̂ⱼ| well away from 0). The QR rotation
// of "large" is defined for inverted elements too (U₂₂ < 0), so it is
// checked on the same configuration.
func TestInvertedElements(t *testing.T) {
	for _, method := range []string{"svd", "large"} {
		checkInverted(t, method)
	}
}

func checkInverted(t *testing.T, method string) {
	h := 0.1
	s := loadFEM(t, [3]int{4, 4, 4}, [3]float64{0.3, 0.3, 0.3}, fmt.Sprintf(`method = %q`, method))
	found := false
	for seed := uint64(1); seed < 200 && !found; seed++ {
		rng := rand.New(rand.NewPCG(seed, 5))
		u := randomDisplacement(rng, len(s.rest), 0.45*h)
		x := transform(s.rest, u, randomRotation(rng), geom.Vec3{})
		inv := countInverted(s.ff, x)
		if inv == 0 || minPairSum(s.ff, x) < 0.05 {
			continue
		}
		found = true
		f := s.force(x)
		for i, v := range f {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("seed %d: force %d is %g", seed, i, v)
			}
		}
		t.Logf("%s, seed %d: %d of %d elements inverted, min |σ̂ᵢ+σ̂ⱼ|/Σ|σ̂| = %.3g", method, seed, inv, s.ff.NumElements(), minPairSum(s.ff, x))
		if !graphtest.CheckForceField(t, s.ff, s.tmpl, x, nil, graphtest.Options{Seed: seed, Trials: 4, Tolerance: fdTolerance}) {
			t.Errorf("%s: fixture failed with inverted elements", method)
		}
	}
	if !found {
		t.Fatal("test setup: no configuration with inverted elements found")
	}
}

// minPairSum returns min over elements of min |σ̂ᵢ + σ̂ⱼ| / Σ|σ̂|.
func minPairSum(ff *TetrahedronFEMForceField, x []float64) float64 {
	m := math.Inf(1)
	for e := 0; e < ff.mesh.numElements(); e++ {
		_, s, _ := geom.SVD(ff.mesh.gradient(e, x))
		sum := math.Abs(s[0]) + math.Abs(s[1]) + math.Abs(s[2])
		for _, p := range [3]float64{s[0] + s[1], s[0] + s[2], s[1] + s[2]} {
			m = math.Min(m, math.Abs(p)/sum)
		}
	}
	return m
}

// listTopology is a hand-made mesh for tests.
type listTopology struct {
	graph.ObjectBase
	points []float64
	tets   [][4]int
}

func (l *listTopology) Points() []float64    { return l.points }
func (l *listTopology) Tetrahedra() [][4]int { return l.tets }
func (l *listTopology) Triangles() [][3]int  { return nil }

// buildDirect builds a scene in code: a node with topo, a MechanicalObject
// of template tmplName with the topology's points, and ff.
func buildDirect(topo graph.Topology, tmplName string, ff *TetrahedronFEMForceField) (*graph.Scene, error) {
	s := graph.NewScene("direct")
	n := s.Root.AddChild("body")
	tmpl, _ := graph.LookupTemplate(tmplName)
	dofs := graph.NewMechanicalObject("dofs", tmpl, 0)
	switch {
	case topo == nil:
		dofs.SizeIn = 4
	case tmpl.CoordSize() != 3:
		// The topology in the parent node (as for a mapped state), so
		// that the state does not take its points.
		s.Root.Add(topo)
		dofs.SizeIn = 4
	default:
		n.Add(topo)
	}
	n.Add(dofs)
	n.Add(ff)
	return s, s.Init()
}

// TestInvertedTetForce pushes the apex of a single tetrahedron through
// its base: svd and large pull it back up (restoring the orientation),
// polar pushes it down towards the mirror image of the rest shape.
func TestInvertedTetForce(t *testing.T) {
	for _, method := range []string{"svd", "large", "polar"} {
		topo := &listTopology{ObjectBase: graph.ObjectBase{Name: "tet"},
			points: []float64{0, 0, 0, 1, 0, 0, 0, 1, 0, 0.2, 0.2, 1}, tets: [][4]int{{0, 1, 2, 3}}}
		ff := NewTetrahedronFEMForceField()
		ff.Method = method
		sc, err := buildDirect(topo, "Vec3", ff)
		if err != nil {
			t.Fatal(err)
		}
		x := append([]float64(nil), sc.Root.Children[0].State().Vec(graph.RestPosition)...)
		x[11] = -0.5 // apex below the base
		f := make([]float64, 12)
		ff.AddForce(f, x, nil)
		switch {
		case method != "polar" && !(f[11] > 0):
			t.Errorf("%s: force on the inverted apex is %v, want it pointing up (+z)", method, f[9:12])
		case method == "polar" && !(f[11] < 0):
			t.Errorf("polar: force on the inverted apex is %v, expected it pointing down (towards the reflection)", f[9:12])
		}
	}
}

// TestRigidMotionNoForce: a rigid motion gives zero force with large,
// polar and svd, and a force with small (linear FEM is not invariant).
func TestRigidMotionNoForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 11))
	for _, method := range allMethods {
		s := loadFEM(t, [3]int{5, 3, 3}, [3]float64{0.4, 0.2, 0.2}, fmt.Sprintf(`method = %q
  youngModulus = 1e6`, method))
		// Reference: the force under a 1 % stretch along x.
		stretch := transform(s.rest, nil, geom.Diag(geom.Vec3{1.01, 1, 1}), geom.Vec3{})
		fRef := maxAbs(s.force(stretch))
		for trial := 0; trial < 5; trial++ {
			Q := randomRotation(rng)
			b := geom.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
			f := maxAbs(s.force(transform(s.rest, nil, Q, b)))
			if method == "small" {
				if f < 0.1*fRef {
					t.Errorf("small: a rigid rotation gives max force %g; linear FEM should react (1 %% stretch gives %g)", f, fRef)
				}
				continue
			}
			// 1e-10 of the force of a 1 % strain: rounding of F is
			// ~1e-16·|F|, amplified by E·V/h in the force.
			if f > 1e-10*fRef {
				t.Errorf("%s: rigid motion gives max force %.3g (1 %% stretch: %.3g)", method, f, fRef)
			}
		}
	}
}

// TestPatchAffine: an affine map x = A X + b gives F = A in every element
// and zero net force on interior vertices (constant stress).
func TestPatchAffine(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 13))
	n := [3]int{4, 4, 4}
	for _, method := range allMethods {
		s := loadFEM(t, n, [3]float64{0.3, 0.3, 0.3}, fmt.Sprintf(`method = %q`, method))
		var A geom.Mat3
		for i := range A {
			A[i] = 0.1 * rng.NormFloat64()
		}
		A = randomRotation(rng).Mul(geom.Identity3().Add(A))
		x := transform(s.rest, nil, A, geom.Vec3{0.1, 0.2, 0.3})
		for e := 0; e < s.ff.mesh.numElements(); e++ {
			F := s.ff.mesh.gradient(e, x)
			for i := range F {
				if math.Abs(F[i]-A[i]) > 1e-14 {
					t.Fatalf("%s: element %d: F = %v, want A = %v", method, e, F, A)
				}
			}
		}
		f := s.force(x)
		scale := maxAbs(f)
		for k := 1; k < n[2]-1; k++ {
			for j := 1; j < n[1]-1; j++ {
				for i := 1; i < n[0]-1; i++ {
					v := i + n[0]*(j+n[1]*k)
					if fv := geom.At(f, v).Norm(); fv > 1e-10*scale {
						t.Errorf("%s: interior vertex %d has net force %.3g (max boundary force %.3g)", method, v, fv, scale)
					}
				}
			}
		}
	}
}

// TestUniaxialStrain: a bar under F = diag(1+ε, 1−νε, 1−νε) (uniaxial
// stress for linear elasticity) stores W = V·E ε²/2, and its x faces carry
// the total force E ε A. Without rotation every method reduces to the same
// energy, so all are checked.
func TestUniaxialStrain(t *testing.T) {
	const E, nu, eps = 2e5, 0.3, 1e-3
	size := [3]float64{1, 0.2, 0.1}
	n := [3]int{6, 3, 2}
	for _, method := range allMethods {
		s := loadFEM(t, n, size, fmt.Sprintf(`method = %q
  youngModulus = %g
  poissonRatio = %g`, method, E, nu))
		x := transform(s.rest, nil, geom.Diag(geom.Vec3{1 + eps, 1 - nu*eps, 1 - nu*eps}), geom.Vec3{})
		V := size[0] * size[1] * size[2]
		want := V * E * eps * eps / 2
		got := s.ff.PotentialEnergy(x)
		// The energy is a sum of 60 element terms of rounding 1e-16 each.
		if math.Abs(got-want) > 1e-12*want {
			t.Errorf("%s: energy %.17g, want V·E·ε²/2 = %.17g (relative %.3g)", method, got, want, math.Abs(got-want)/want)
		}
		f := s.force(x)
		// Total x force on the x = L face: the traction E ε times the area.
		fx := 0.0
		for v := 0; v < len(x)/3; v++ {
			if s.rest[3*v] == size[0] {
				fx += f[3*v]
			}
		}
		wantF := -E * eps * size[1] * size[2]
		if math.Abs(fx-wantF) > 1e-12*math.Abs(wantF) {
			t.Errorf("%s: force on the end face %.17g, want −E ε A = %.17g", method, fx, wantF)
		}
	}
}

// referenceK0 returns the 12×12 linear stiffness of element e (K₀ = V BᵀDB
// in Voigt notation, engineering shear strains), built independently of
// the force field's stress code.
func referenceK0(m *tetElements, e int, mu, lam float64) [12][12]float64 {
	g := m.shapeGradients(e)
	var B [6][12]float64
	for a := 0; a < 4; a++ {
		gx, gy, gz := g[a][0], g[a][1], g[a][2]
		B[0][3*a] = gx
		B[1][3*a+1] = gy
		B[2][3*a+2] = gz
		B[3][3*a], B[3][3*a+1] = gy, gx   // γxy
		B[4][3*a+1], B[4][3*a+2] = gz, gy // γyz
		B[5][3*a], B[5][3*a+2] = gz, gx   // γxz
	}
	var D [6][6]float64
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			D[i][j] = lam
		}
		D[i][i] = lam + 2*mu
		D[3+i][3+i] = mu
	}
	var K [12][12]float64
	V := m.volume(e)
	for i := 0; i < 12; i++ {
		for j := 0; j < 12; j++ {
			s := 0.0
			for p := 0; p < 6; p++ {
				for q := 0; q < 6; q++ {
					s += B[p][i] * D[p][q] * B[q][j]
				}
			}
			K[i][j] = V * s
		}
	}
	return K
}

// referenceRotation computes the element rotation of each method by an
// independent route: polar from geom.SVD (U Vᵀ, det F > 0 here), large by
// Gram–Schmidt written with vector operations.
func referenceRotation(method string, F geom.Mat3) geom.Mat3 {
	switch method {
	case "large":
		c0, c1 := F.Col(0), F.Col(1)
		r0 := c0.Normalized()
		r1 := c1.Sub(r0.Scale(r0.Dot(c1))).Normalized()
		return geom.Cols(r0, r1, r0.Cross(r1))
	default:
		U, _, V := geom.SVD(F)
		return U.MulT(V)
	}
}

// TestWarpedTangent: with tangent = "warped", AddDForce is −Σₑ R K₀ Rᵀ dx
// with K₀ and R computed independently, and it is symmetric.
func TestWarpedTangent(t *testing.T) {
	for _, method := range []string{"large", "polar", "svd"} {
		s := loadFEM(t, [3]int{3, 3, 2}, [3]float64{0.2, 0.2, 0.1}, fmt.Sprintf(`method = %q
  tangent = "warped"
  youngModulus = 1e6
  poissonRatio = 0.4`, method))
		rng := rand.New(rand.NewPCG(17, 17))
		x := transform(s.rest, randomDisplacement(rng, len(s.rest), 0.01), randomRotation(rng), geom.Vec3{})
		s.force(x)
		d := randomDisplacement(rng, len(x), 1)
		got := s.dforce(d, 1)
		want := make([]float64, len(x))
		mu, lam := s.ff.Lame()
		m := s.ff.mesh
		for e := 0; e < m.numElements(); e++ {
			K := referenceK0(m, e, mu, lam)
			R := referenceRotation(method, m.gradient(e, x))
			vs := m.vertices(e)
			// Rᵀ d per corner, K₀ on it, R back.
			var rd [12]float64
			for a, v := range vs {
				p := R.TMulVec(geom.At(d, v))
				copy(rd[3*a:], p[:])
			}
			for a, v := range vs {
				var k geom.Vec3
				for i := 0; i < 3; i++ {
					for j := 0; j < 12; j++ {
						k[i] += K[3*a+i][j] * rd[j]
					}
				}
				geom.AddAt(want, v, R.MulVec(k).Scale(-1))
			}
		}
		// Both sums round at ~1e-16 of the largest element term.
		if e := relDiff(got, want); e > 1e-12 {
			t.Errorf("%s: warped tangent differs from −R K₀ Rᵀ: relative %.3g", method, e)
		}
		checkSymmetric(t, s, method+" warped", rng)
	}
}

func relDiff(a, b []float64) float64 {
	m := 0.0
	for i := range a {
		m = math.Max(m, math.Abs(a[i]-b[i]))
	}
	return m / maxAbs(b)
}

// checkSymmetric checks eᵀ(K d) = dᵀ(K e) for random d, e at the current
// linearisation.
func checkSymmetric(t *testing.T, s femSetup, what string, rng *rand.Rand) {
	t.Helper()
	for trial := 0; trial < 3; trial++ {
		d := randomDisplacement(rng, len(s.rest), 1)
		e := randomDisplacement(rng, len(s.rest), 1)
		kd, ke := s.dforce(d, 1), s.dforce(e, 1)
		a, b := dot(e, kd), dot(d, ke)
		// Relative to |e|·|K d|: the dot products sum 3n terms rounded at
		// 1e-16 of that size.
		scale := math.Sqrt(dot(e, e) * dot(kd, kd))
		if math.Abs(a-b) > 1e-10*scale {
			t.Errorf("%s: tangent not symmetric: eᵀKd = %.15g, dᵀKe = %.15g", what, a, b)
		}
	}
}

// TestExactTangentSymmetric: the exact tangent of a conservative force is
// a Hessian, so symmetric.
func TestExactTangentSymmetric(t *testing.T) {
	for _, method := range allMethods {
		s := loadFEM(t, [3]int{4, 3, 3}, [3]float64{0.3, 0.2, 0.2}, fmt.Sprintf(`method = %q`, method))
		rng := rand.New(rand.NewPCG(19, 19))
		x := transform(s.rest, randomDisplacement(rng, len(s.rest), 0.02), randomRotation(rng), geom.Vec3{})
		s.force(x)
		checkSymmetric(t, s, method+" exact", rng)
	}
}

// TestDeterministicAcrossWorkers: forces and force differentials are
// bitwise identical with 1, 2 and 3 workers.
func TestDeterministicAcrossWorkers(t *testing.T) {
	for _, method := range allMethods {
		// 20·6·6·6 = 4320 elements and 1029 vertices: both loops split.
		s := loadFEM(t, [3]int{21, 7, 7}, [3]float64{2, 0.6, 0.6}, fmt.Sprintf(`method = %q`, method))
		rng := rand.New(rand.NewPCG(23, 23))
		x := transform(s.rest, randomDisplacement(rng, len(s.rest), 0.02), randomRotation(rng), geom.Vec3{})
		d := randomDisplacement(rng, len(x), 1)
		var f0, df0 []float64
		var w0 float64
		for _, workers := range []int{1, 2, 3} {
			s.ff.asm.setWorkers(workers)
			f := s.force(x)
			df := s.dforce(d, 0.7)
			w := s.ff.PotentialEnergy(x)
			if workers == 1 {
				f0, df0, w0 = f, df, w
				continue
			}
			for i := range f {
				if f[i] != f0[i] || df[i] != df0[i] {
					t.Fatalf("%s: %d workers differ from 1 worker at entry %d: f %v vs %v, df %v vs %v", method, workers, i, f[i], f0[i], df[i], df0[i])
				}
			}
			if w != w0 {
				t.Fatalf("%s: energy with %d workers %v differs from %v", method, workers, w, w0)
			}
		}
		s.ff.asm.setWorkers(0)
	}
}

// TestDForceBeforeForce: AddDForce before any AddForce linearises at the
// state's position.
func TestDForceBeforeForce(t *testing.T) {
	s := loadFEM(t, [3]int{3, 3, 3}, [3]float64{0.2, 0.2, 0.2}, `method = "polar"`)
	rng := rand.New(rand.NewPCG(29, 29))
	x := transform(s.rest, randomDisplacement(rng, len(s.rest), 0.01), randomRotation(rng), geom.Vec3{})
	copy(s.dofs.Vec(graph.Position), x)
	d := randomDisplacement(rng, len(x), 1)
	before := s.dforce(d, 1)
	s.force(x)
	after := s.dforce(d, 1)
	for i := range before {
		if before[i] != after[i] {
			t.Fatalf("AddDForce before AddForce differs at %d: %v vs %v", i, before[i], after[i])
		}
	}
}

// TestInitErrors: a degenerate or inverted rest tetrahedron, an index out
// of range, a missing topology, a non-Vec3 state and an empty mesh are
// errors naming what is wrong.
func TestInitErrors(t *testing.T) {
	// A 2×2×2-vertex grid (one cube, six tetrahedra, each containing
	// vertices 0 and 7); restPosition moves vertex 1 onto the diagonal
	// 0–7, which flattens tetrahedron 0 = (0, 1, 3, 7) (and 1 = (0, 1, 7, 5)).
	pts := [][3]float64{{0, 0, 0}, {0.5, 0.5, 0.5}, {0, 1, 0}, {1, 1, 0}, {0, 0, 1}, {1, 0, 1}, {0, 1, 1}, {1, 1, 1}}
	var rows []string
	for _, p := range pts {
		rows = append(rows, fmt.Sprintf("[%g, %g, %g]", p[0], p[1], p[2]))
	}
	text := strings.Replace(femScene([3]int{2, 2, 2}, [3]float64{1, 1, 1}, ""), `template = "Vec3"`,
		`template = "Vec3"
  restPosition = [`+strings.Join(rows, ", ")+`]`, 1)
	sc, err := graph.Load("degenerate.toml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	err = sc.Init()
	if err == nil || !strings.Contains(err.Error(), "tetrahedron 0 (vertices 0, 1, 3, 7) is degenerate") {
		t.Errorf("degenerate rest tetrahedron: got error %v", err)
	} else {
		t.Logf("degenerate: %v", err)
	}

	// Mirror the grid (z → −z): every tetrahedron is inverted.
	for i := range pts {
		pts[i] = [3]float64{float64(i & 1), float64(i >> 1 & 1), -float64(i >> 2 & 1)}
	}
	rows = rows[:0]
	for _, p := range pts {
		rows = append(rows, fmt.Sprintf("[%g, %g, %g]", p[0], p[1], p[2]))
	}
	text = strings.Replace(femScene([3]int{2, 2, 2}, [3]float64{1, 1, 1}, ""), `template = "Vec3"`,
		`template = "Vec3"
  restPosition = [`+strings.Join(rows, ", ")+`]`, 1)
	sc, _ = graph.Load("inverted.toml", []byte(text))
	err = sc.Init()
	if err == nil || !strings.Contains(err.Error(), "tetrahedron 0") || !strings.Contains(err.Error(), "inverted") || !strings.Contains(err.Error(), "5 more") {
		t.Errorf("inverted rest tetrahedra: got error %v", err)
	} else {
		t.Logf("inverted: %v", err)
	}

	tet := func(tets [][4]int) *listTopology {
		return &listTopology{ObjectBase: graph.ObjectBase{Name: "mesh"},
			points: []float64{0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1}, tets: tets}
	}
	cases := []struct {
		name string
		topo graph.Topology
		tmpl string
		want string
	}{
		{"index out of range", tet([][4]int{{0, 1, 2, 4}}), "Vec3", "tetrahedron 0 (vertices 0, 1, 2, 4): vertex index 4 is out of range"},
		{"no tetrahedra", tet(nil), "Vec3", "has no tetrahedra"},
		{"no topology", nil, "Vec3", "no topology"},
		{"not Vec3", tet([][4]int{{0, 1, 2, 3}}), "Vec1", "acts on Vec3"},
	}
	for _, c := range cases {
		_, err := buildDirect(c.topo, c.tmpl, NewTetrahedronFEMForceField())
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got error %v, want one containing %q", c.name, err, c.want)
		}
	}
	// Material out of range when built in code.
	ff := NewTetrahedronFEMForceField()
	ff.PoissonRatio = 0.5
	if _, err := buildDirect(tet([][4]int{{0, 1, 2, 3}}), "Vec3", ff); err == nil || !strings.Contains(err.Error(), "poissonRatio") {
		t.Errorf("ν = 0.5: got error %v", err)
	}
}

// TestSceneValidation: the loader rejects out-of-range and misspelt values
// through the field tags.
func TestSceneValidation(t *testing.T) {
	for _, c := range []struct{ fields, want string }{
		{`poissonRatio = 0.5`, "out of range"},
		{`youngModulus = 0`, "out of range"},
		{`method = "corotational"`, "is not one of"},
		{`tangent = "approximate"`, "is not one of"},
	} {
		_, err := graph.Load("bad.toml", []byte(femScene([3]int{2, 2, 2}, [3]float64{1, 1, 1}, c.fields)))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", c.fields, err, c.want)
		}
	}
}

// TestSVDNonDifferentiableRotation: at F = diag(1, ½, −½) two signed
// singular values cancel (σ̂₂ + σ̂₃ = 0), where the rotation of an inverted
// element is not differentiable; the force and the clamped tangent stay
// finite.
func TestSVDNonDifferentiableRotation(t *testing.T) {
	topo := &listTopology{ObjectBase: graph.ObjectBase{Name: "tet"},
		points: []float64{0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1}, tets: [][4]int{{0, 1, 2, 3}}}
	ff := NewTetrahedronFEMForceField()
	ff.Method = "svd"
	sc, err := buildDirect(topo, "Vec3", ff)
	if err != nil {
		t.Fatal(err)
	}
	rest := sc.Root.Children[0].State().Vec(graph.RestPosition)
	x := transform(rest, nil, geom.Diag(geom.Vec3{1, 0.5, -0.5}), geom.Vec3{})
	f := make([]float64, 12)
	ff.AddForce(f, x, nil)
	df := make([]float64, 12)
	ff.AddDForce(df, []float64{0.1, 0.2, 0.3, -0.1, 0.4, 0.2, 0.3, -0.2, 0.1, 0.5, 0.1, -0.3}, 1, 0)
	for i := range f {
		if math.IsNaN(f[i]) || math.IsInf(f[i], 0) || math.IsNaN(df[i]) || math.IsInf(df[i], 0) {
			t.Fatalf("non-finite force %v or df %v", f, df)
		}
	}
}
