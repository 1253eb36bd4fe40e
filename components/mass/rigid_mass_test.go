package mass_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sofago/sofago/components/mass"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

// randomQuat returns a uniformly random unit quaternion.
func randomQuat(rng *rand.Rand) geom.Quat {
	return geom.Quat{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}.Normalized()
}

// randomFrames returns n Rigid3 coordinates, translations in [−1, 1]³ and
// random orientations.
func randomFrames(rng *rand.Rand, n int) []float64 {
	x := make([]float64, 7*n)
	for k := 0; k < n; k++ {
		q := randomQuat(rng)
		copy(x[7*k:], []float64{2*rng.Float64() - 1, 2*rng.Float64() - 1, 2*rng.Float64() - 1, q[0], q[1], q[2], q[3]})
	}
	return x
}

func randomVec(rng *rand.Rand, n int, a float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = a * (2*rng.Float64() - 1)
	}
	return v
}

// pointCloud is a rigid set of point masses with their centroid at the
// origin of the body frame: an independent model of a rigid body.
type pointCloud struct {
	m []float64
	s []geom.Vec3 // body-frame positions
}

func newPointCloud(rng *rand.Rand, n int) pointCloud {
	c := pointCloud{m: make([]float64, n), s: make([]geom.Vec3, n)}
	var centroid geom.Vec3
	total := 0.0
	for j := range c.m {
		c.m[j] = 0.5 + rng.Float64()
		c.s[j] = geom.Vec3{2*rng.Float64() - 1, 0.6 * (2*rng.Float64() - 1), 0.3 * (2*rng.Float64() - 1)}
		centroid = centroid.Add(c.s[j].Scale(c.m[j]))
		total += c.m[j]
	}
	centroid = centroid.Scale(1 / total)
	for j := range c.s {
		c.s[j] = c.s[j].Sub(centroid)
	}
	return c
}

func (c pointCloud) mass() float64 {
	t := 0.0
	for _, m := range c.m {
		t += m
	}
	return t
}

// inertia is Σ m_j (|s_j|² 1 − s_j s_jᵀ) about the centroid.
func (c pointCloud) inertia() geom.Mat3 {
	var I geom.Mat3
	for j, s := range c.s {
		I = I.Add(geom.Identity3().Scale(c.m[j] * s.Norm2()).Sub(s.Outer(s).Scale(c.m[j])))
	}
	return I
}

// kinetic is Σ ½ m_j |v + ω × R s_j|², the kinetic energy of the points.
func (c pointCloud) kinetic(q geom.Quat, v, w geom.Vec3) float64 {
	e := 0.0
	for j, s := range c.s {
		u := v.Add(w.Cross(q.Rotate(s)))
		e += 0.5 * c.m[j] * u.Norm2()
	}
	return e
}

func matRows(I geom.Mat3) string {
	return fmt.Sprintf("[[%.17g, %.17g, %.17g], [%.17g, %.17g, %.17g], [%.17g, %.17g, %.17g]]",
		I[0], I[1], I[2], I[3], I[4], I[5], I[6], I[7], I[8])
}

// rigidMassScene is a Rigid3 state of n frames at the identity with a
// RigidMass declared by massFields.
func rigidMassScene(n int, massFields string) string {
	return fmt.Sprintf(`
gravity = [0.3, -9.81, 1.2]
[[node]]
name = "bodies"
  [[node.object]]
  type = "MechanicalObject"
  name = "frames"
  template = "Rigid3"
  size = %d
  [[node.object]]
  type = "RigidMass"
  name = "mass"
%s
`, n, massFields)
}

func loadBodies(t *testing.T, n int, massFields string) (*graph.Scene, graph.State, *mass.RigidMass) {
	t.Helper()
	s := graphtest.MustLoad(t, "rigid_mass.toml", rigidMassScene(n, massFields))
	return s, graphtest.Find[graph.State](t, s, "bodies/frames"), graphtest.Find[*mass.RigidMass](t, s, "bodies/mass")
}

// fdTolerance: central differences with h = 1e-6 × the coordinate scale
// have O(h²) ≈ 1e-12 truncation and ≈ ε/h ≈ 2e-10 rounding error; 1e-8
// keeps a wide margin and still catches any wrong term (O(1) errors).
const fdTolerance = 1e-8

func TestRigidMassGravityFD(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	I := newPointCloud(rng, 6).inertia()
	_, _, m := loadBodies(t, 3, fmt.Sprintf("  mass = 2.5\n  inertia = %s\n", matRows(I)))
	for trial := 0; trial < 4; trial++ {
		x := randomFrames(rng, 3)
		graphtest.CheckForceField(t, m, graph.Rigid3, x, randomVec(rng, 18, 2), graphtest.Options{Seed: uint64(trial + 1), Tolerance: fdTolerance})
		// The force is the weight on the translations, no torque.
		f := make([]float64, 18)
		m.AddForce(f, x, nil)
		g := geom.Vec3{0.3, -9.81, 1.2}.Scale(2.5)
		for k := 0; k < 3; k++ {
			if d := (geom.Vec3{f[6*k], f[6*k+1], f[6*k+2]}).Sub(g).Norm(); d > 1e-14 || f[6*k+3] != 0 || f[6*k+4] != 0 || f[6*k+5] != 0 {
				t.Errorf("frame %d: force %v, want weight %v and no torque", k, f[6*k:6*k+6], g)
			}
		}
	}
}

// TestRigidMassGyroscopicFD checks the gyroscopic torque's derivatives in
// position (K) and velocity (B) against finite differences, on random
// orientations and angular velocities. It has no potential, so the energy
// check is skipped; it does no work: ω·(ω × I_w ω) = 0.
func TestRigidMassGyroscopicFD(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	I := newPointCloud(rng, 5).inertia()
	_, _, m := loadBodies(t, 2, fmt.Sprintf("  mass = 1.5\n  inertia = %s\n  gyroscopic = true\n", matRows(I)))
	for trial := 0; trial < 4; trial++ {
		x := randomFrames(rng, 2)
		v := randomVec(rng, 12, 3)
		graphtest.CheckForceField(t, m, graph.Rigid3, x, v, graphtest.Options{Seed: uint64(trial + 1), Tolerance: fdTolerance, SkipEnergy: true, CheckDamping: true})
		f := make([]float64, 12)
		m.AddForce(f, x, v)
		for k := 0; k < 2; k++ {
			if p := f[6*k+3]*v[6*k+3] + f[6*k+4]*v[6*k+4] + f[6*k+5]*v[6*k+5]; math.Abs(p) > 1e-12 {
				t.Errorf("frame %d: gyroscopic torque does work ω·τ = %g", k, p)
			}
		}
	}
	// Without the flag there is no torque and no derivative.
	_, _, plain := loadBodies(t, 1, fmt.Sprintf("  inertia = %s\n", matRows(I)))
	x, v := randomFrames(rng, 1), randomVec(rng, 6, 3)
	f, df := make([]float64, 6), make([]float64, 6)
	plain.AddForce(f, x, v)
	plain.AddDForce(df, randomVec(rng, 6, 1), 1, 1)
	if f[3] != 0 || f[4] != 0 || f[5] != 0 || df[3] != 0 || df[4] != 0 || df[5] != 0 {
		t.Errorf("gyroscopic = false: torque %v, dforce %v, want zero", f[3:], df)
	}
}

// TestRigidMassKineticEnergy compares the kinetic energy with that of an
// independent model: a cloud of point masses with the same mass and
// inertia, moving rigidly (Σ ½ m_j |v + ω × R s_j|²), on random
// orientations and velocities. It also checks ½ vᵀ (AddMDx v) against it.
func TestRigidMassKineticEnergy(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	cloud := newPointCloud(rng, 7)
	_, st, m := loadBodies(t, 1, fmt.Sprintf("  mass = %.17g\n  inertia = %s\n", cloud.mass(), matRows(cloud.inertia())))
	for trial := 0; trial < 10; trial++ {
		x := randomFrames(rng, 1)
		v := randomVec(rng, 6, 2)
		copy(st.Vec(graph.Position), x)
		q := geom.Quat{x[3], x[4], x[5], x[6]}
		want := cloud.kinetic(q, geom.Vec3{v[0], v[1], v[2]}, geom.Vec3{v[3], v[4], v[5]})
		got := m.KineticEnergy(v)
		// Both sides are sums of a few O(1) terms: agreement to rounding.
		if math.Abs(got-want) > 1e-13*want {
			t.Errorf("trial %d: kinetic energy %.15g, point cloud %.15g", trial, got, want)
		}
		m.AddForce(make([]float64, 6), x, nil)
		mv := make([]float64, 6)
		m.AddMDx(mv, v, 1)
		half := 0.0
		for i := range v {
			half += 0.5 * v[i] * mv[i]
		}
		if math.Abs(half-want) > 1e-13*want {
			t.Errorf("trial %d: ½ vᵀ M v = %.15g, point cloud %.15g", trial, half, want)
		}
	}
}

// TestRigidMassInverse checks AccFromF(AddMDx(d)) = d and
// AddMDx(AccFromF(f)) = f on random orientations of a body with a full
// (non-diagonal) inertia tensor.
func TestRigidMassInverse(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	I := newPointCloud(rng, 6).inertia()
	_, _, m := loadBodies(t, 4, fmt.Sprintf("  mass = 0.7\n  inertia = %s\n", matRows(I)))
	for trial := 0; trial < 5; trial++ {
		x := randomFrames(rng, 4)
		m.AddForce(make([]float64, 24), x, nil)
		d := randomVec(rng, 24, 1)
		md := make([]float64, 24)
		m.AddMDx(md, d, 1)
		back := make([]float64, 24)
		m.AccFromF(back, md)
		// I has a condition number of order 10 here: errors of a few ε.
		for i := range d {
			if math.Abs(back[i]-d[i]) > 1e-13 {
				t.Fatalf("trial %d: M⁻¹ M d differs from d at %d: %.17g vs %.17g", trial, i, back[i], d[i])
			}
		}
		f := randomVec(rng, 24, 1)
		a := make([]float64, 24)
		m.AccFromF(a, f)
		fa := make([]float64, 24)
		m.AddMDx(fa, a, 1)
		for i := range f {
			if math.Abs(fa[i]-f[i]) > 1e-13 {
				t.Fatalf("trial %d: M M⁻¹ f differs from f at %d: %.17g vs %.17g", trial, i, fa[i], f[i])
			}
		}
		// factor scales linearly and accumulates.
		md2 := append([]float64(nil), md...)
		m.AddMDx(md2, d, -1)
		for i := range md2 {
			if math.Abs(md2[i]) > 1e-15 {
				t.Fatalf("AddMDx(factor −1) does not cancel AddMDx(factor 1): %g at %d", md2[i], i)
			}
		}
	}
}

// TestRigidMassDefaults: inertiaDiagonal gives diag(I); nothing gives
// mass × identity.
func TestRigidMassDefaults(t *testing.T) {
	_, _, m := loadBodies(t, 1, "  mass = 3\n  inertiaDiagonal = [1, 2, 4]\n")
	if got := m.BodyInertia(); got != geom.Diag(geom.Vec3{1, 2, 4}) {
		t.Errorf("inertiaDiagonal: body inertia %v", got)
	}
	_, _, m = loadBodies(t, 1, "  mass = 3\n")
	if got := m.BodyInertia(); got != geom.Identity3().Scale(3) {
		t.Errorf("default: body inertia %v, want 3·identity", got)
	}
}

func TestRigidMassErrors(t *testing.T) {
	cases := []struct{ fields, want string }{
		{"  mass = 0\n", "out of range"},
		{"  mass = -1\n", "out of range"},
		{"  inertia = [[1, 0.1, 0], [0, 1, 0], [0, 0, 1]]\n", "not symmetric"},
		{"  inertia = [[1, 2, 0], [2, 1, 0], [0, 0, 1]]\n", "not positive definite"},
		{"  inertia = [[1, 0, 0], [0, 1, 0]]\n", "3 rows"},
		{"  inertia = [[1, 0, 0], [0, 1], [0, 0, 1]]\n", "row 1 has 2 numbers"},
		{"  inertiaDiagonal = [1, 2]\n", "want 3"},
		{"  inertiaDiagonal = [1, 0, 2]\n", "out of range"},
		{"  inertiaDiagonal = [1, 1, 1]\n  inertia = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]\n", "not both"},
	}
	for _, c := range cases {
		_, err := graph.Load("rigid_mass.toml", []byte(rigidMassScene(1, c.fields)))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "rigid_mass.toml:") {
			t.Errorf("%q: want a located error containing %q, got %v", c.fields, c.want, err)
		}
	}
	// A Vec3 state is refused at Init.
	s, err := graph.Load("rigid_mass.toml", []byte(`
[[node]]
name = "pts"
  [[node.object]]
  type = "MechanicalObject"
  size = 2
  [[node.object]]
  type = "RigidMass"
`))
	if err == nil {
		err = s.Init()
	}
	if err == nil || !strings.Contains(err.Error(), "needs Rigid3") {
		t.Errorf("Vec3 state: want a template error, got %v", err)
	}
}

// TestRigidMassFreeRotation spins a free asymmetric body (no gravity, no
// torque) near its minor axis with symplectic explicit Euler. Euler's
// equations conserve the world angular momentum L = I_w ω and the kinetic
// energy; with gyroscopic = true the integrated motion must keep both to
// first order in dt. With gyroscopic = false (SOFA's model) ω stays
// constant while I_w turns, so L is visibly not conserved: the test shows
// the flag matters.
func TestRigidMassFreeRotation(t *testing.T) {
	const scene = `
dt = 1e-4
gravity = [0, 0, 0]
[[node]]
name = "body"
  [[node.object]]
  type = "EulerExplicitSolver"
  [[node.object]]
  type = "MechanicalObject"
  name = "frame"
  template = "Rigid3"
  position = [[0, 0, 0, 0, 0, 0, 1]]
  velocity = [[0, 0, 0, 3, 0.3, 0.4]]
  [[node.object]]
  type = "RigidMass"
  name = "mass"
  inertiaDiagonal = [1, 2, 3]
  gyroscopic = %v
`
	momentum := func(st graph.State, m *mass.RigidMass) geom.Vec3 {
		x, v := st.Vec(graph.Position), st.Vec(graph.Velocity)
		R := geom.Quat{x[3], x[4], x[5], x[6]}.Mat()
		return R.Mul(m.BodyInertia()).MulT(R).MulVec(geom.Vec3{v[3], v[4], v[5]})
	}
	drift := func(gyroscopic bool) (dL, dE float64) {
		s := graphtest.MustLoad(t, "free.toml", fmt.Sprintf(scene, gyroscopic))
		st := graphtest.Find[graph.State](t, s, "body/frame")
		m := graphtest.Find[*mass.RigidMass](t, s, "body/mass")
		L0 := momentum(st, m)
		E0, _ := s.Energies()
		for i := 0; i < 10000; i++ { // 1 s, about half a turn
			if err := s.Step(); err != nil {
				t.Fatal(err)
			}
		}
		E1, _ := s.Energies()
		return momentum(st, m).Sub(L0).Norm() / L0.Norm(), math.Abs(E1-E0) / E0
	}
	dL, dE := drift(true)
	t.Logf("gyroscopic = true: |ΔL|/|L| = %.2e, |ΔE|/E = %.2e after 1 s at dt = 1e-4 s", dL, dE)
	// First-order scheme: the drift is proportional to dt (measured 2.7e-5
	// at dt = 1e-4 s and 5.4e-5 at 2e-4 s, for both L and E); 1e-4 leaves
	// a margin of 4 and is 5000× below the drift without the term.
	if dL > 1e-4 || dE > 1e-4 {
		t.Errorf("gyroscopic = true: angular momentum drifts %.2e, energy %.2e (want ≤ 1e-4)", dL, dE)
	}
	dL, _ = drift(false)
	t.Logf("gyroscopic = false: |ΔL|/|L| = %.2e", dL)
	if dL < 0.05 {
		t.Errorf("gyroscopic = false: angular momentum drifts only %.2e; the test no longer shows the gyroscopic term", dL)
	}
}
