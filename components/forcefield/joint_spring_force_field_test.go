package forcefield_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sofago/sofago/components/forcefield"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

// interactionAsForceField presents an interaction force field over Rigid3
// states as one force field on their concatenation, so graphtest's
// fixtures (which perturb one state) check it: positions, velocities and
// forces are split into per-state views of the concatenated vectors.
type interactionAsForceField struct {
	graph.ObjectBase
	ia    graph.InteractionForceField
	sizes []int
}

func wrapInteraction(ia graph.InteractionForceField) *interactionAsForceField {
	w := &interactionAsForceField{ObjectBase: graph.ObjectBase{TypeName: ia.Base().TypeName}, ia: ia}
	for _, s := range ia.States() {
		w.sizes = append(w.sizes, s.Size())
	}
	return w
}

func (w *interactionAsForceField) split(v []float64, per int) [][]float64 {
	if v == nil {
		return make([][]float64, len(w.sizes))
	}
	out := make([][]float64, len(w.sizes))
	o := 0
	for i, n := range w.sizes {
		out[i] = v[o : o+per*n]
		o += per * n
	}
	return out
}

// concat returns the concatenation of the states' vector id.
func (w *interactionAsForceField) concat(id graph.VecID) []float64 {
	var out []float64
	for _, s := range w.ia.States() {
		out = append(out, s.Vec(id)...)
	}
	return out
}

func (w *interactionAsForceField) AddForce(f, x, v []float64) {
	w.ia.AddForce(w.split(f, 6), w.split(x, 7), w.split(v, 6))
}

func (w *interactionAsForceField) AddDForce(df, dx []float64, kFactor, bFactor float64) {
	w.ia.AddDForce(w.split(df, 6), w.split(dx, 6), kFactor, bFactor)
}

func (w *interactionAsForceField) PotentialEnergy(x []float64) float64 {
	return w.ia.PotentialEnergy(w.split(x, 7))
}

// jointScene: two Rigid3 states a (3 frames) and b (2 frames) in child
// nodes, joined by springs.
func jointScene(springs string) string {
	return `
[[node]]
name = "bodies"
  [[node.node]]
  name = "a"
    [[node.node.object]]
    type = "MechanicalObject"
    name = "dofs"
    template = "Rigid3"
    position = [[0, 0, 0, 0, 0, 0, 1], [1, 0, 0, 0, 0, 0.3826834323650898, 0.9238795325112867], [2, 0.5, 0, 0, 0, 0, 1]]
  [[node.node]]
  name = "b"
    [[node.node.object]]
    type = "MechanicalObject"
    name = "dofs"
    template = "Rigid3"
    position = [[0, 1, 0, 0.2588190451025208, 0, 0, 0.9659258262890683], [1, 1, 0.5, 0, 0, 0, 1]]
  [[node.object]]
  type = "JointSpringForceField"
  name = "joints"
  object1 = "@a/dofs"
  object2 = "@b/dofs"
` + springs
}

const jointSprings = `  springs = [
    {m1 = 0, m2 = 0, kTranslation = [100, 200, 300], kRotation = [10, 20, 5], translationalDamping = 3, rotationalDamping = 0.5},
    {m1 = 1, m2 = 1, kTranslation = [50, 50, 80], kRotation = [4, 6, 1], limitMin = [-0.2, -0.1, -0.3], limitMax = [0.1, 0.2, 0.05], blockingStiffness = 40,
     anchor = [0.3, 0.2, -0.1], translationalDamping = 1},
    {m1 = 2, m2 = 1, kTranslation = [10, 20, 30], kRotation = [2, 3, 4], restTranslation = [-1, 0.5, 0.5], restRotation = [0.1, -0.2, 0.3], rotationalDamping = 2},
  ]
`

// randomRigid returns n Rigid3 coordinates: rest perturbed by rotations up
// to maxAngle and moves up to a.
func randomRigid(rng *rand.Rand, rest []float64, maxAngle, a float64) []float64 {
	x := append([]float64(nil), rest...)
	for i := 0; i < len(x)/7; i++ {
		axis := geom.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		q := geom.QuatFromAxisAngle(axis, maxAngle*rng.Float64()).Mul(geom.Quat{x[7*i+3], x[7*i+4], x[7*i+5], x[7*i+6]})
		for k := 0; k < 3; k++ {
			x[7*i+k] += a * (2*rng.Float64() - 1)
		}
		x[7*i+3], x[7*i+4], x[7*i+5], x[7*i+6] = q[0], q[1], q[2], q[3]
	}
	return x
}

// TestJointSpringFixture (issue 5, item 2): energy–force, force–tangent
// and damping against central differences, on random configurations with
// relative rotations up to ~1.5 rad, so the angle limits of spring 1 are
// crossed on most axes, and random velocities (the damping force depends
// on the positions through the joint's arms).
func TestJointSpringFixture(t *testing.T) {
	s := graphtest.MustLoad(t, "joints.toml", jointScene(jointSprings))
	jf := graphtest.Find[*forcefield.JointSpringForceField](t, s, "bodies/joints")
	w := wrapInteraction(jf)
	rng := rand.New(rand.NewPCG(1, 2))
	rest := w.concat(graph.RestPosition)
	beyond := 0
	for trial := 0; trial < 6; trial++ {
		x := randomRigid(rng, rest, 0.75, 0.2)
		v := graphtest.RandomDeriv(rng, 6*len(x)/7, 1)
		// Count the limited axes beyond their limits.
		var r [][]float64 = w.split(x, 7)
		q1 := geom.Quat{r[0][10], r[0][11], r[0][12], r[0][13]}
		q2 := geom.Quat{r[1][10], r[1][11], r[1][12], r[1][13]}
		phi := q1.Conj().Mul(q2).RotVec()
		for a, lim := range [][2]float64{{-0.2, 0.1}, {-0.1, 0.2}, {-0.3, 0.05}} {
			if phi[a] < lim[0] || phi[a] > lim[1] {
				beyond++
			}
		}
		checkJointFixture(t, w, x, v, uint64(trial+1))
	}
	t.Logf("spring 1: %d of 18 limited axis samples beyond their limits", beyond)
	if beyond < 6 {
		t.Errorf("only %d axis samples beyond the limits: the fixture does not exercise the blocking stiffness", beyond)
	}
}

// TestJointSpringOneState: springs between frames of one state (object2
// left out), through the same fixture.
func TestJointSpringOneState(t *testing.T) {
	s := graphtest.MustLoad(t, "joints.toml", strings.Replace(jointScene(`  springs = [
    {m1 = 0, m2 = 1, kTranslation = [100, 200, 300], kRotation = [10, 20, 5], limitMin = [-0.1, -0.1, -0.1], limitMax = [0.1, 0.1, 0.1], blockingStiffness = 50, rotationalDamping = 1},
    {m1 = 2, m2 = 1, kTranslation = [10, 20, 30], kRotation = [2, 3, 4], translationalDamping = 2},
  ]
`), `  object2 = "@b/dofs"`+"\n", "", 1))
	jf := graphtest.Find[*forcefield.JointSpringForceField](t, s, "bodies/joints")
	if n := len(jf.States()); n != 1 {
		t.Fatalf("one-state joint field has %d states", n)
	}
	w := wrapInteraction(jf)
	rng := rand.New(rand.NewPCG(3, 4))
	rest := w.concat(graph.RestPosition)
	for trial := 0; trial < 4; trial++ {
		x := randomRigid(rng, rest, 0.6, 0.2)
		v := graphtest.RandomDeriv(rng, 6*len(x)/7, 1)
		checkJointFixture(t, w, x, v, uint64(trial+1))
	}
}

// checkJointFixture runs graphtest's fixture twice: at zero velocity
// (force = −∇W, K = ∂f/∂x), and at velocity v (K with the damping force's
// position derivative, B = ∂f/∂v; the energy check is skipped there, as
// the damping force is not the gradient of the energy).
func checkJointFixture(t *testing.T, w *interactionAsForceField, x, v []float64, seed uint64) {
	t.Helper()
	graphtest.CheckForceField(t, w, graph.Rigid3, x, nil, graphtest.Options{Seed: seed})
	graphtest.CheckForceField(t, w, graph.Rigid3, x, v, graphtest.Options{Seed: seed, SkipEnergy: true, CheckDamping: true})
}

// TestJointSpringBalance (issue 5, item 1): the forces of the springs
// (elastic and damping) sum to zero and so do their torques about any
// point, to 1e-12 of |f|·L + |τ|.
func TestJointSpringBalance(t *testing.T) {
	s := graphtest.MustLoad(t, "joints.toml", jointScene(jointSprings))
	jf := graphtest.Find[*forcefield.JointSpringForceField](t, s, "bodies/joints")
	w := wrapInteraction(jf)
	rng := rand.New(rand.NewPCG(5, 6))
	rest := w.concat(graph.RestPosition)
	for trial := 0; trial < 5; trial++ {
		x := randomRigid(rng, rest, 1.2, 0.3)
		v := graphtest.RandomDeriv(rng, 6*len(x)/7, 1)
		f := make([]float64, len(v))
		w.AddForce(f, x, v)
		for k := 0; k < 3; k++ {
			o := geom.Vec3{10 * rng.NormFloat64(), 10 * rng.NormFloat64(), 10 * rng.NormFloat64()}
			var sf, st geom.Vec3
			scale := 0.0
			for i := 0; i < len(x)/7; i++ {
				fi := geom.Vec3{f[6*i], f[6*i+1], f[6*i+2]}
				ti := geom.Vec3{f[6*i+3], f[6*i+4], f[6*i+5]}
				arm := geom.Vec3{x[7*i], x[7*i+1], x[7*i+2]}.Sub(o)
				sf = sf.Add(fi)
				st = st.Add(ti).Add(arm.Cross(fi))
				scale += fi.Norm()*arm.Norm() + ti.Norm()
			}
			if sf.Norm() > 1e-12*scale || st.Norm() > 1e-12*scale {
				t.Errorf("trial %d: Σf = %.3g, Σ torque about %v = %.3g (scale %.3g)", trial, sf.Norm(), o, st.Norm(), scale)
			}
		}
	}
}

// TestJointSpringRigidMotion: at the rest offset the springs store no
// energy and apply no force, and a rigid motion of both states together
// keeps it so (the rest offset is in body 1's frame, unlike SOFA's
// world-frame offset).
func TestJointSpringRigidMotion(t *testing.T) {
	s := graphtest.MustLoad(t, "joints.toml", jointScene(strings.Replace(jointSprings, ", restTranslation = [-1, 0.5, 0.5], restRotation = [0.1, -0.2, 0.3]", "", 1)))
	jf := graphtest.Find[*forcefield.JointSpringForceField](t, s, "bodies/joints")
	w := wrapInteraction(jf)
	rest := w.concat(graph.RestPosition)
	q := geom.QuatFromAxisAngle(geom.Vec3{1, 2, -0.5}, 2.1)
	R := q.Mat()
	moved := append([]float64(nil), rest...)
	for i := 0; i < len(moved)/7; i++ {
		c := moved[7*i : 7*i+7]
		p := R.MulVec(geom.Vec3{c[0], c[1], c[2]}).Add(geom.Vec3{3, -1, 2})
		qi := q.Mul(geom.Quat{c[3], c[4], c[5], c[6]})
		copy(c, []float64{p[0], p[1], p[2], qi[0], qi[1], qi[2], qi[3]})
	}
	for _, x := range [][]float64{rest, moved} {
		f := make([]float64, 6*len(x)/7)
		w.AddForce(f, x, nil)
		if e := w.PotentialEnergy(x); math.Abs(e) > 1e-20 {
			t.Errorf("energy at the rest offset: %g", e)
		}
		for i, y := range f {
			if math.Abs(y) > 1e-12 {
				t.Errorf("force component %d at the rest offset: %g", i, y)
			}
		}
	}
}

// TestJointSpringClosedForm: body 2 turned about the joint's z axis by θ
// beyond limitMax: W = ½ k_z θ² + ½ k_b (θ − max)², and the torque on
// body 2 about the joint is −(k_z θ + k_b (θ − max)) about z; the joint
// point does not move (it is on the rotation axis), so there is no force.
func TestJointSpringClosedForm(t *testing.T) {
	text := `
[[node]]
name = "pair"
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  template = "Rigid3"
  position = [[0, 0, 0, 0, 0, 0, 1], [2, 0, 0, 0, 0, 0, 1]]
  [[node.object]]
  type = "JointSpringForceField"
  name = "joint"
  springs = [{m1 = 0, m2 = 1, kTranslation = [1000, 1000, 1000], kRotation = [50, 50, 3], limitMin = [-1, -1, -0.5], limitMax = [1, 1, 0.4], blockingStiffness = 200}]
`
	s := graphtest.MustLoad(t, "hinge.toml", text)
	jf := graphtest.Find[*forcefield.JointSpringForceField](t, s, "pair/joint")
	w := wrapInteraction(jf)
	for _, th := range []float64{0.3, -0.45, 0.7, -1.1} {
		// Body 2 (origin at 2 x̂, joint at x̂) turned by θ about the z axis through the joint.
		q := geom.QuatFromAxisAngle(geom.Vec3{0, 0, 1}, th)
		p := q.Rotate(geom.Vec3{1, 0, 0}).Add(geom.Vec3{1, 0, 0})
		x := []float64{0, 0, 0, 0, 0, 0, 1, p[0], p[1], p[2], q[0], q[1], q[2], q[3]}
		lo, hi := -0.5, 0.4
		b := 0.0
		if th > hi {
			b = th - hi
		} else if th < lo {
			b = th - lo
		}
		wantW := 0.5*3*th*th + 0.5*200*b*b
		wantTau := -(3*th + 200*b)
		gotW := w.PotentialEnergy(x)
		f := make([]float64, 12)
		w.AddForce(f, x, nil)
		// Torque on body 2 about the joint point: τ₂ + (t₂ − joint) × f₂.
		f2 := geom.Vec3{f[6], f[7], f[8]}
		tauJ := geom.Vec3{f[9], f[10], f[11]}.Add(p.Sub(geom.Vec3{1, 0, 0}).Cross(f2))
		if math.Abs(gotW-wantW) > 1e-12*wantW || f2.Norm() > 1e-10 || math.Abs(tauJ[2]-wantTau) > 1e-12*math.Abs(wantTau) || math.Hypot(tauJ[0], tauJ[1]) > 1e-12 {
			t.Errorf("θ = %g: W = %.15g (want %.15g), force on body 2 %v, torque about the joint %v (want z %.15g)", th, gotW, wantW, f2, tauJ, wantTau)
		}
	}
}

// TestJointSpringErrors: bad springs are load or init errors naming the
// object.
func TestJointSpringErrors(t *testing.T) {
	for _, c := range []struct{ springs, want string }{
		{`  springs = [{m1 = 0, m2 = 0, limitMin = [0, 0, 0], limitMax = [1, 1, 1]}]` + "\n", "blockingStiffness"},
		{`  springs = [{m1 = 0, m2 = 0, blockingStiffness = 3}]` + "\n", "needs angle limits"},
		{`  springs = [{m1 = 0, m2 = 0, restRotation = [0, 1]}]` + "\n", "restRotation has 2 values"},
		{`  springs = [{m1 = 0, m2 = 0, restRotation = [0, 0, 0, 2]}]` + "\n", "norm 2"},
		{`  springs = [{m1 = 0, m2 = 0, limitMin = [0, 0, 1], limitMax = [1, 1, 0], blockingStiffness = 1}]` + "\n", "above limitMax"},
		{`  springs = [{m1 = 0, m2 = 5}]` + "\n", "m2 = 5"},
		{`  springs = [{m1 = 0}]` + "\n", "m2"},
		{`  springs = [{m1 = 0, m2 = 0, kRotation = [1, -1, 0]}]` + "\n", "out of range"},
		{`  springs = [{m1 = 0, m2 = 0, stiffness = 1}]` + "\n", "unknown field"},
	} {
		s, err := graph.Load("joints.toml", []byte(jointScene(c.springs)))
		if err == nil {
			err = s.Init()
		}
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "joints") {
			t.Errorf("springs %q: error %v, want one naming the object and containing %q", c.springs, err, c.want)
		}
	}
}

// TestJointSpringExplicitRestOffset: restTranslation and restRotation
// (as a quaternion and as a rotation vector) equal to the offset of the
// rest positions store nothing at rest, like the default; another offset
// is a prestress.
func TestJointSpringExplicitRestOffset(t *testing.T) {
	// Frame 0 of a at the origin; frame 0 of b at (0, 1, 0) turned by 30°
	// about x: offset (0, 1, 0), q0 = [sin 15°, 0, 0, cos 15°].
	q := "0.2588190451025208, 0, 0, 0.9659258262890683"
	for _, c := range []struct {
		rest  string
		zeroF bool
	}{
		{"restTranslation = [0, 1, 0], restRotation = [" + q + "]", true},
		{"restTranslation = [0, 1, 0], restRotation = [0.5235987755982988, 0, 0]", true},
		{"restTranslation = [0, 1.1, 0]", false},
		{"restRotation = [0, 0.1, 0]", false},
	} {
		s := graphtest.MustLoad(t, "joints.toml", jointScene("  springs = [{m1 = 0, m2 = 0, kTranslation = [100, 200, 300], kRotation = [10, 20, 5], "+c.rest+"}]\n"))
		w := wrapInteraction(graphtest.Find[*forcefield.JointSpringForceField](t, s, "bodies/joints"))
		x := w.concat(graph.RestPosition)
		f := make([]float64, 6*len(x)/7)
		w.AddForce(f, x, nil)
		m := 0.0
		for _, v := range f {
			m = math.Max(m, math.Abs(v))
		}
		if c.zeroF && m > 1e-12 {
			t.Errorf("%s: force %.3g at rest", c.rest, m)
		}
		if !c.zeroF && m < 1e-3 {
			t.Errorf("%s: no prestress at rest (force %.3g)", c.rest, m)
		}
	}
}
