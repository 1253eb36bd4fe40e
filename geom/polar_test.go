package geom

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Tolerances: every factorisation here is backward stable, so errors are
// a few units of rounding (2.2e-16) times a small constant relative to the
// matrix norm. 1e-14 leaves a factor ≈ 45 for the dozens of operations
// involved; looser bounds are only used where the mathematics says the
// quantity is ill-conditioned (stated at each use).
const tightTol = 1e-14

func frob(m Mat3) float64 { return math.Sqrt(frob2(m)) }

func randMat(rng *rand.Rand) Mat3 {
	var m Mat3
	for i := range m {
		m[i] = rng.NormFloat64()
	}
	return m
}

// randRotation returns a uniformly random rotation (from a random unit
// quaternion).
func randRotation(rng *rand.Rand) Mat3 {
	q := [4]float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
	n := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])
	x, y, z, w := q[0]/n, q[1]/n, q[2]/n, q[3]/n
	return Mat3{
		1 - 2*(y*y+z*z), 2 * (x*y - z*w), 2 * (x*z + y*w),
		2 * (x*y + z*w), 1 - 2*(x*x+z*z), 2 * (y*z - x*w),
		2 * (x*z - y*w), 2 * (y*z + x*w), 1 - 2*(x*x+y*y),
	}
}

// orthoErr returns ‖QᵀQ − I‖_F.
func orthoErr(Q Mat3) float64 { return frob(Q.TMul(Q).Sub(Identity3())) }

func checkRotation(t *testing.T, what string, Q Mat3) {
	t.Helper()
	if e := orthoErr(Q); e > tightTol {
		t.Errorf("%s: ‖QᵀQ − I‖ = %.3g", what, e)
	}
	if d := Q.Det(); math.Abs(d-1) > tightTol {
		t.Errorf("%s: det = %.17g, want +1", what, d)
	}
}

func TestSymEigenRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 2000; trial++ {
		M := randMat(rng)
		A := M.Add(M.T())
		lam, V := SymEigen(A)
		checkRotation(t, "SymEigen V", V)
		if !(lam[0] >= lam[1] && lam[1] >= lam[2]) {
			t.Fatalf("eigenvalues not descending: %v", lam)
		}
		back := V.Mul(Diag(lam)).MulT(V)
		if e := frob(back.Sub(A)) / frob(A); e > tightTol {
			t.Fatalf("trial %d: ‖V Λ Vᵀ − A‖/‖A‖ = %.3g", trial, e)
		}
		// Trace and determinant are invariants (checks against a
		// formula that does not use the decomposition).
		if e := math.Abs(lam[0]+lam[1]+lam[2]-A.Trace()) / frob(A); e > tightTol {
			t.Fatalf("trace mismatch %.3g", e)
		}
	}
}

func TestSymEigenRepeated(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	cases := []Vec3{{1, 1, 1}, {2, 2, 1}, {3, 1, 1}, {0, 0, 0}, {1e-300, 0, -1e-300}, {5, 5, -5}, {1, 1 + 1e-15, 1}}
	for _, d := range cases {
		Q := randRotation(rng)
		A := Q.Mul(Diag(d)).MulT(Q)
		lam, V := SymEigen(A)
		checkRotation(t, "SymEigen V (repeated)", V)
		back := V.Mul(Diag(lam)).MulT(V)
		scale := math.Max(frob(A), 1e-300)
		if e := frob(back.Sub(A)) / scale; e > tightTol {
			t.Errorf("eigen %v: reconstruction error %.3g", d, e)
		}
		want := d
		// Descending order of the expected values.
		for i := 0; i < 3; i++ {
			for j := i + 1; j < 3; j++ {
				if want[j] > want[i] {
					want[i], want[j] = want[j], want[i]
				}
			}
		}
		for i := range want {
			if math.Abs(lam[i]-want[i]) > tightTol*math.Max(math.Abs(want[0]), math.Abs(want[2])) {
				t.Errorf("eigen %v: got %v", d, lam)
			}
		}
	}
	// Already diagonal: exact.
	lam, V := SymEigen(Diag(Vec3{1, 3, 2}))
	if lam != (Vec3{3, 2, 1}) {
		t.Errorf("diagonal input: eigenvalues %v", lam)
	}
	checkRotation(t, "SymEigen V (diagonal)", V)
}

func checkSVD(t *testing.T, what string, F Mat3) (U Mat3, s Vec3, V Mat3) {
	t.Helper()
	U, s, V = SVD(F)
	checkRotation(t, what+" U", U)
	checkRotation(t, what+" V", V)
	back := U.Mul(Diag(s)).MulT(V)
	scale := math.Max(frob(F), 1e-300)
	if e := frob(back.Sub(F)) / scale; e > tightTol {
		t.Errorf("%s: ‖U Σ Vᵀ − F‖/‖F‖ = %.3g", what, e)
	}
	// Ordered by magnitude up to rounding (σ₁ ≥ σ₂ ≥ |σ₃|), only σ₃ signed.
	if tol := tightTol * s[0]; !(s[0] >= s[1]-tol && s[1] >= math.Abs(s[2])-tol) || s[1] < 0 {
		t.Errorf("%s: singular values not ordered by magnitude with only σ₃ signed: %v", what, s)
	}
	if d := F.Det(); d < -1e-14*scale*scale*scale && s[2] > 0 || d > 1e-14*scale*scale*scale && s[2] < 0 {
		t.Errorf("%s: det F = %g but σ₃ = %g (its sign must follow det F)", what, d, s[2])
	}
	return U, s, V
}

func TestSVDRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	neg := 0
	for trial := 0; trial < 2000; trial++ {
		F := randMat(rng)
		_, s, _ := checkSVD(t, "random", F)
		if s[2] < 0 {
			neg++
		}
		// |σ₁σ₂σ₃| = |det F| and Σσ² = ‖F‖² are external invariants.
		if e := math.Abs(s[0]*s[1]*s[2]-F.Det()) / math.Pow(frob(F), 3); e > tightTol {
			t.Fatalf("σ₁σ₂σ₃ ≠ det F: %.3g", e)
		}
		if e := math.Abs(s.Norm2()-frob2(F)) / frob2(F); e > tightTol {
			t.Fatalf("Σσ² ≠ ‖F‖²: %.3g", e)
		}
	}
	if neg < 500 {
		t.Errorf("only %d of 2000 random matrices were inverted; the test does not exercise det < 0", neg)
	}
}

func TestSVDDegenerateAndInverted(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	cases := []struct {
		name string
		s    Vec3 // singular values with the sign of det on the last
	}{
		{"identity", Vec3{1, 1, 1}},
		{"reflection", Vec3{1, 1, -1}},
		{"flat (rank 2)", Vec3{2, 1, 0}},
		{"line (rank 1)", Vec3{3, 0, 0}},
		{"zero", Vec3{0, 0, 0}},
		{"equal pair", Vec3{2, 2, 0.5}},
		{"equal pair inverted", Vec3{2, 0.5, -0.5}},
		{"nearly singular", Vec3{1, 0.5, 1e-12}},
		{"nearly singular inverted", Vec3{1, 0.5, -1e-12}},
		{"wide range", Vec3{1e8, 1, 1e-8}},
	}
	for _, c := range cases {
		P, Q := randRotation(rng), randRotation(rng)
		F := P.Mul(Diag(c.s)).MulT(Q)
		_, s, _ := checkSVD(t, c.name, F)
		for i := range s {
			// Singular values are perfectly conditioned: error ≤ ‖ΔF‖.
			if math.Abs(s[i]-c.s[i]) > tightTol*math.Max(c.s[0], 1e-300)+1e-300 {
				t.Errorf("%s: σ = %v, want %v", c.name, s, c.s)
				break
			}
		}
	}
	// An exact reflection, not rotated: σ = (1, 1, −1).
	_, s, _ := checkSVD(t, "diag(1,1,-1)", Diag(Vec3{1, 1, -1}))
	if s != (Vec3{1, 1, -1}) {
		t.Errorf("diag(1,1,-1): σ = %v", s)
	}
}

func checkPolar(t *testing.T, what string, F Mat3) (R, S Mat3) {
	t.Helper()
	R, S = Polar(F)
	scale := frob(F)
	if e := orthoErr(R); e > tightTol {
		t.Errorf("%s: ‖RᵀR − I‖ = %.3g", what, e)
	}
	// The sign of det R follows det F unless det F is zero to rounding
	// (then both signs give valid factors).
	dF, dTol := F.Det(), 1e-14*scale*scale*scale
	if dF > dTol && math.Abs(R.Det()-1) > tightTol || dF < -dTol && math.Abs(R.Det()+1) > tightTol {
		t.Errorf("%s: det R = %.17g, det F = %g", what, R.Det(), dF)
	}
	if S != S.T() {
		t.Errorf("%s: S is not symmetric", what)
	}
	lam, _ := SymEigen(S)
	if lam[2] < -tightTol*scale {
		t.Errorf("%s: S has a negative eigenvalue %g", what, lam[2])
	}
	if e := frob(R.Mul(S).Sub(F)) / math.Max(scale, 1e-300); e > tightTol {
		t.Errorf("%s: ‖RS − F‖/‖F‖ = %.3g", what, e)
	}
	return R, S
}

func TestPolarRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for trial := 0; trial < 2000; trial++ {
		F := randMat(rng)
		R, S := checkPolar(t, "random", F)
		// Against the factors built from SVD, an independent route. The
		// polar factor's condition number is 2/(σ₂ + σ₃) (Higham 1986,
		// Thm 2.3): scale the tolerance by it.
		R2, S2 := polarFromSVD(F)
		_, s, _ := SVD(F)
		cond := frob(F) / (s[1] + math.Abs(s[2]))
		if e := frob(R.Sub(R2)); e > tightTol*cond {
			t.Fatalf("trial %d: Higham R differs from SVD R by %.3g (cond %.3g)", trial, e, cond)
		}
		if e := frob(S.Sub(S2)) / frob(F); e > tightTol*cond {
			t.Fatalf("trial %d: S differs by %.3g", trial, e)
		}
		if PolarRotation(F) != R {
			t.Fatalf("PolarRotation differs from Polar")
		}
	}
}

func TestPolarNearRotation(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for trial := 0; trial < 1000; trial++ {
		Q := randRotation(rng)
		// Symmetric stretch of ±10 %, as in an element under load.
		M := randMat(rng).Scale(0.05)
		Sw := Identity3().Add(M.Add(M.T()))
		R, S := checkPolar(t, "near rotation", Q.Mul(Sw))
		if e := frob(R.Sub(Q)); e > tightTol {
			t.Fatalf("R ≠ Q: %.3g", e)
		}
		if e := frob(S.Sub(Sw)); e > tightTol {
			t.Fatalf("S ≠ stretch: %.3g", e)
		}
	}
	// A rotation is its own polar factor.
	Q := randRotation(rng)
	R, S := checkPolar(t, "rotation", Q)
	if frob(R.Sub(Q)) > tightTol || frob(S.Sub(Identity3())) > tightTol {
		t.Errorf("rotation: R = %v, S = %v", R, S)
	}
}

// TestPolarSimpleShear checks the closed form for simple shear
// F = [[1, γ, 0], [0, 1, 0], [0, 0, 1]]: R = [[2, γ], [−γ, 2]]/√(4 + γ²) in
// the x–y block (RᵀF is then symmetric positive definite).
func TestPolarSimpleShear(t *testing.T) {
	for _, g := range []float64{1e-8, 0.1, 1, 10, 1e4} {
		F := Mat3{1, g, 0, 0, 1, 0, 0, 0, 1}
		R, _ := checkPolar(t, "shear", F)
		n := math.Sqrt(4 + g*g)
		want := Mat3{2 / n, g / n, 0, -g / n, 2 / n, 0, 0, 0, 1}
		// cond = 2/(σ₂+σ₃) ≈ γ for large γ, but here the σ₂ + σ₃ = 1 +
		// 1/σ₁ > 1, so the absolute error stays at rounding.
		if e := frob(R.Sub(want)); e > tightTol {
			t.Errorf("γ = %g: R error %.3g", g, e)
		}
	}
}

func TestPolarInvertedAndSingular(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, s := range []Vec3{{1, 1, -1}, {1, 0.9, -0.2}, {2, 1, 0}, {1, 0, 0}, {1, 0.5, 1e-13}, {1, 1, -1e-13}} {
		P, Q := randRotation(rng), randRotation(rng)
		F := P.Mul(Diag(s)).MulT(Q)
		checkPolar(t, "inverted/singular", F)
	}
	R, S := Polar(Mat3{})
	if orthoErr(R) > tightTol || S != (Mat3{}) {
		t.Errorf("zero matrix: R = %v, S = %v", R, S)
	}
}

func BenchmarkPolarNearRotation(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	const n = 256
	Fs := make([]Mat3, n)
	for i := range Fs {
		M := randMat(rng).Scale(0.05)
		Fs[i] = randRotation(rng).Mul(Identity3().Add(M.Add(M.T())))
	}
	b.ResetTimer()
	var sink float64
	for i := 0; i < b.N; i++ {
		R, _ := Polar(Fs[i%n])
		sink += R[0]
	}
	_ = sink
}

func BenchmarkSVDNearRotation(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	const n = 256
	Fs := make([]Mat3, n)
	for i := range Fs {
		M := randMat(rng).Scale(0.05)
		Fs[i] = randRotation(rng).Mul(Identity3().Add(M.Add(M.T())))
	}
	b.ResetTimer()
	var sink float64
	for i := 0; i < b.N; i++ {
		U, _, _ := SVD(Fs[i%n])
		sink += U[0]
	}
	_ = sink
}

func BenchmarkSymEigen(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	const n = 256
	As := make([]Mat3, n)
	for i := range As {
		M := randMat(rng)
		As[i] = M.TMul(M)
	}
	b.ResetTimer()
	var sink float64
	for i := 0; i < b.N; i++ {
		l, _ := SymEigen(As[i%n])
		sink += l[0]
	}
	_ = sink
}

func BenchmarkSVDInverted(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	const n = 256
	Fs := make([]Mat3, n)
	for i := range Fs {
		M := randMat(rng).Scale(0.05)
		Fs[i] = randRotation(rng).Mul(Diag(Vec3{1, 1, -0.5})).Mul(Identity3().Add(M.Add(M.T())))
	}
	b.ResetTimer()
	var sink float64
	for i := 0; i < b.N; i++ {
		U, _, _ := SVD(Fs[i%n])
		sink += U[0]
	}
	_ = sink
}
