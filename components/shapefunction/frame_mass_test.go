package shapefunction

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	_ "github.com/sofago/sofago/components/constraint"
	_ "github.com/sofago/sofago/components/forcefield"
	"github.com/sofago/sofago/components/mapping"
	_ "github.com/sofago/sofago/components/solver"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

// massScene is a bar of 3 frames with a FrameMass, a harmonic shape
// function and a skinning mapping of the given kind onto voxel-centre
// samples.
func massScene(t testing.TB, template, lumping, mappingType, shape string) *graph.Scene {
	pos := "[[0.05, 0.05, 0.05, 0, 0, 0, 1], [0.45, 0.05, 0.05, 0, 0, 0, 1], [0.85, 0.05, 0.05, 0, 0, 0, 1]]"
	if template == "Affine3" {
		pos = "[[0.05, 0.05, 0.05, 1, 0, 0, 0, 1, 0, 0, 0, 1], [0.45, 0.05, 0.05, 1, 0, 0, 0, 1, 0, 0, 0, 1], [0.85, 0.05, 0.05, 1, 0, 0, 0, 1, 0, 0, 0, 1]]"
	}
	if template == "Quadratic3" {
		var rows []string
		for _, x := range []float64{0.05, 0.45, 0.85} {
			rows = append(rows, fmt.Sprintf("[%g, 0.05, 0.05, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0]", x))
		}
		pos = "[" + strings.Join(rows, ", ") + "]"
	}
	src := fmt.Sprintf(`
gravity = [0.3, -9.81, 1.2]
[[node]]
name = "bar"
  [[node.object]]
  type = "MaterialGrid"
  box = [0, 0, 0, 0.9, 0.1, 0.2]
  resolution = [9, 2, 3]
  massDensity = 800
  densityRegions = [{box = [0.5, -1, -1, 1, 1, 1], massDensity = 2000}]
  [[node.object]]
  type = "MechanicalObject"
  name = "frames"
  template = %q
  position = %s
  [[node.object]]
  type = %q
  nbRef = 3
  [[node.object]]
  type = "FrameMass"
  lumping = %q
  [[node.node]]
  name = "samples"
    [[node.node.object]]
    type = "DenseSampler"
    [[node.node.object]]
    type = "MechanicalObject"
    template = "F331"
    [[node.node.object]]
    type = %q
`, template, pos, shape, lumping, mappingType)
	s := graphtest.MustLoad(t, "mass.toml", src)
	return s
}

func randomFrames(rng *rand.Rand, st graph.State, amp float64) {
	x := st.Vec(graph.Position)
	cs := st.Template().CoordSize()
	for f := 0; f < st.Size(); f++ {
		c := x[cs*f : cs*f+cs]
		for a := 0; a < 3; a++ {
			c[a] += amp * (rng.Float64() - 0.5)
		}
		if cs == 7 {
			q := geom.QuatFromRotVec(geom.Vec3{rng.Float64() - 0.5, rng.Float64() - 0.5, rng.Float64() - 0.5}.Scale(2 * amp))
			c[3], c[4], c[5], c[6] = q[0], q[1], q[2], q[3]
		} else {
			for k := 3; k < cs; k++ {
				c[k] += amp * (rng.Float64() - 0.5)
			}
		}
	}
}

// voxelWeightJT returns Σ_voxels J(X)ᵀ ρ V g computed through a skinning
// mapping of the given kind on the voxel centres (the definition of the
// mapped weight), at the frames' current positions.
func voxelWeightJT(t *testing.T, s *graph.Scene, kind string) []float64 {
	fm := graphtest.Find[*FrameMass](t, s, "bar/FrameMass")
	g, _ := graphtest.Find[*MaterialGrid](t, s, "bar/MaterialGrid").Voxels()
	frames := graphtest.Find[graph.State](t, s, "bar/frames")
	wp, _ := fm.provider()
	sw, err := wp.WeightsAt(g.Centres())
	if err != nil {
		t.Fatal(err)
	}
	child := graph.NewMechanicalObject("pts", graph.Vec3, g.NumVoxels())
	var m interface {
		graph.Mapping
		SetStates(from, to graph.State)
		SetRestPoints([]float64)
		SetWeights(mapping.SkinningWeights)
		Init() error
	}
	if kind == "dualQuaternion" {
		m = mapping.NewDualQuaternionSkinningMapping()
	} else {
		m = mapping.NewLinearBlendSkinningMapping()
	}
	m.SetStates(frames, child)
	m.SetRestPoints(g.Centres())
	m.SetWeights(sw)
	if err := m.Init(); err != nil {
		t.Fatal(err)
	}
	m.Apply(child.Vec(graph.Position), frames.Vec(graph.Position))
	fc := make([]float64, 3*g.NumVoxels())
	grav := s.Root.Gravity()
	for v := 0; v < g.NumVoxels(); v++ {
		geom.Put(fc, v, grav.Scale(g.Density[v]*g.VoxelVolume()))
	}
	out := make([]float64, len(frames.Vec(graph.Force)))
	m.ApplyJT(out, fc)
	return out
}

// TestFrameMassGravityIsTheMappedWeight: the gravity force on the frames
// is Σ Jᵀ ρ V g over the voxels, through linear blend (closed-form moments)
// or dual-quaternion skinning, at deformed configurations; and it is a
// force field: f = −∇W, AddDForce = ∂f/∂x (finite differences).
func TestFrameMassGravityIsTheMappedWeight(t *testing.T) {
	for _, c := range []struct{ tmpl, mp, kind string }{
		{"Rigid3", "LinearBlendSkinningMapping", "linearBlend"},
		{"Affine3", "LinearBlendSkinningMapping", "linearBlend"},
		{"Rigid3", "DualQuaternionSkinningMapping", "dualQuaternion"},
	} {
		s := massScene(t, c.tmpl, "partition", c.mp, "HarmonicShapeFunction")
		fm := graphtest.Find[*FrameMass](t, s, "bar/FrameMass")
		frames := graphtest.Find[graph.State](t, s, "bar/frames")
		rng := rand.New(rand.NewPCG(11, 12))
		randomFrames(rng, frames, 0.2)
		want := voxelWeightJT(t, s, c.kind)
		got := make([]float64, len(want))
		fm.AddForce(got, frames.Vec(graph.Position), nil)
		worst, scale := 0.0, 0.0
		for i := range want {
			worst = math.Max(worst, math.Abs(got[i]-want[i]))
			scale = math.Max(scale, math.Abs(want[i]))
		}
		t.Logf("%s %s: |f − Σ Jᵀ ρVg| ≤ %.2g (|f| %.3g)", c.tmpl, c.kind, worst, scale)
		// Same sums in another order: rounding only.
		if worst > 1e-12*scale {
			t.Errorf("%s %s: gravity differs from the mapped weight by %.3g", c.tmpl, c.kind, worst)
		}
		x := append([]float64(nil), frames.Vec(graph.Position)...)
		graphtest.CheckForceField(t, fm, frames.Template(), x, nil, graphtest.Options{Tolerance: 1e-6})
	}
}

// TestFrameMassRigidMotionKineticEnergy: with partition lumping the frames
// carry the object's mass and the kinetic energy of any rigid motion of
// the whole object (every frame moving with it) is exact, the voxels'
// own inertia included; AccFromF inverts AddMDx; for rigid frames the
// blocks turn with the frames (Gilles eq. 15).
func TestFrameMassRigidMotionKineticEnergy(t *testing.T) {
	for _, tmpl := range []string{"Rigid3", "Affine3"} {
		s := massScene(t, tmpl, "partition", "LinearBlendSkinningMapping", "VoronoiShapeFunction")
		fm := graphtest.Find[*FrameMass](t, s, "bar/FrameMass")
		g, _ := graphtest.Find[*MaterialGrid](t, s, "bar/MaterialGrid").Voxels()
		frames := graphtest.Find[graph.State](t, s, "bar/frames")
		if math.Abs(fm.TotalMass()-g.Mass()) > 1e-12*g.Mass() {
			t.Errorf("total mass %g, want %g", fm.TotalMass(), g.Mass())
		}
		sum := 0.0
		for f := 0; f < frames.Size(); f++ {
			m, _ := fm.GravityMoments(f)
			sum += m
			if b := fm.RestBlock(f); math.Abs(b[0]-m) > 1e-12*m {
				t.Errorf("frame %d: translational mass %g, gravity mass %g", f, b[0], m)
			}
		}
		if math.Abs(sum-g.Mass()) > 1e-12*g.Mass() {
			t.Errorf("%s: Σ m_i = %g, want the object's mass %g", tmpl, sum, g.Mass())
		}
		rng := rand.New(rand.NewPCG(13, 14))
		// A rigid motion of the whole object (rigid frames rotated by a
		// common rotation Q, so the blocks are turned): velocity
		// u(x) = v0 + ω × (x − o) at the current configuration.
		Q := geom.QuatFromRotVec(geom.Vec3{0.3, -0.7, 0.4})
		x := frames.Vec(graph.Position)
		rest := frames.Vec(graph.RestPosition)
		if tmpl == "Rigid3" {
			for f := 0; f < frames.Size(); f++ {
				tr := Q.Rotate(geom.At(rest[7*f:], 0))
				copy(x[7*f:], tr[:])
				x[7*f+3], x[7*f+4], x[7*f+5], x[7*f+6] = Q[0], Q[1], Q[2], Q[3]
			}
		} else {
			R := Q.Mat()
			for f := 0; f < frames.Size(); f++ {
				tr := R.MulVec(geom.At(rest[12*f:], 0))
				copy(x[12*f:], tr[:])
				copy(x[12*f+3:12*f+12], R[:])
			}
		}
		fm.AddForce(make([]float64, len(frames.Vec(graph.Force))), x, nil) // linearise
		v0, w, o := geom.Vec3{0.3, -1, 2}, geom.Vec3{1.5, 0.2, -0.8}, geom.Vec3{0.1, 0.2, 0.3}
		ds := frames.Template().DerivSize()
		v := make([]float64, ds*frames.Size())
		for f := 0; f < frames.Size(); f++ {
			tf := geom.At(x[frames.Template().CoordSize()*f:], 0)
			vf := v0.Add(w.Cross(tf.Sub(o)))
			copy(v[ds*f:], vf[:])
			if tmpl == "Rigid3" {
				copy(v[ds*f+3:], w[:])
			} else {
				// Ȧ = [ω]× A
				A := geom.Mat3(x[12*f+3 : 12*f+12])
				dA := w.Skew().Mul(A)
				copy(v[12*f+3:12*f+12], dA[:])
			}
		}
		// Exact: Σ over voxels of ½ ρ V |u(x_v)|² + ½ ωᵀ (R I_cell Rᵀ) ω.
		exact := 0.0
		h := g.Spacing
		R := Q.Mat()
		Icell := geom.Diag(geom.Vec3{h[1]*h[1] + h[2]*h[2], h[0]*h[0] + h[2]*h[2], h[0]*h[0] + h[1]*h[1]}).Scale(1.0 / 12)
		Iw := R.Mul(Icell).MulT(R)
		for vx := 0; vx < g.NumVoxels(); vx++ {
			xc := R.MulVec(g.Centre(vx))
			u := v0.Add(w.Cross(xc.Sub(o)))
			m := g.Density[vx] * g.VoxelVolume()
			exact += 0.5*m*u.Norm2() + 0.5*m*w.Dot(Iw.MulVec(w))
		}
		got := fm.KineticEnergy(v)
		t.Logf("%s: kinetic energy of a rigid motion %.15g, exact %.15g", tmpl, got, exact)
		if math.Abs(got-exact) > 1e-12*exact {
			t.Errorf("%s: kinetic energy %g, want %g", tmpl, got, exact)
		}
		// AccFromF(AddMDx(v)) = v.
		Mv := make([]float64, len(v))
		fm.AddMDx(Mv, v, 1)
		a := make([]float64, len(v))
		fm.AccFromF(a, Mv)
		for i := range v {
			if math.Abs(a[i]-v[i]) > 1e-9*(1+math.Abs(v[i])) {
				t.Fatalf("%s: M⁻¹ M v differs from v at %d: %g vs %g", tmpl, i, a[i], v[i])
			}
		}
		_ = rng
	}
}

// TestFrameMassFreeFall: under gravity alone, partition lumping makes every
// frame accelerate at exactly g (M⁻¹ f = (g, 0)); Gilles's block-diagonal
// lumping carries less mass than the weight it is given and falls faster.
func TestFrameMassFreeFall(t *testing.T) {
	for _, lumping := range []string{"partition", "blockDiagonal"} {
		s := massScene(t, "Rigid3", lumping, "LinearBlendSkinningMapping", "HarmonicShapeFunction")
		fm := graphtest.Find[*FrameMass](t, s, "bar/FrameMass")
		frames := graphtest.Find[graph.State](t, s, "bar/frames")
		f := make([]float64, 6*frames.Size())
		fm.AddForce(f, frames.Vec(graph.Position), nil)
		a := make([]float64, len(f))
		fm.AccFromF(a, f)
		g := s.Root.Gravity()
		worst := 0.0
		for k := 0; k < frames.Size(); k++ {
			d := geom.Vec3{a[6*k], a[6*k+1], a[6*k+2]}.Sub(g).Norm()
			d = math.Max(d, geom.Vec3{a[6*k+3], a[6*k+4], a[6*k+5]}.Norm())
			worst = math.Max(worst, d/g.Norm())
		}
		t.Logf("%s lumping: free-fall acceleration off g by up to %.3g (relative)", lumping, worst)
		if lumping == "partition" && worst > 1e-12 {
			t.Errorf("partition lumping: frames do not fall at g (%.3g)", worst)
		}
		if lumping == "blockDiagonal" && worst < 1e-3 {
			t.Errorf("block-diagonal lumping was expected to fall faster than g")
		}
	}
}

// quadraticFrameState reads frame f of Quadratic3 coordinates x: t and A
// (3×9), and of the rest coordinates: t̄ and the inverse of the rest linear
// part.
func quadraticFrameState(x, rest []float64, f int) (t geom.Vec3, A [27]float64, tb geom.Vec3, Qi geom.Mat3) {
	c, r := x[30*f:30*f+30], rest[30*f:30*f+30]
	t, tb = geom.Vec3{c[0], c[1], c[2]}, geom.Vec3{r[0], r[1], r[2]}
	copy(A[:], c[3:30])
	Qi, _ = geom.Mat3{r[3], r[4], r[5], r[12], r[13], r[14], r[21], r[22], r[23]}.Inverse()
	return
}

// TestFrameMassQuadraticFrames: for Quadratic3 frames (30×30 blocks),
//   - gravity is a force field (f = −∇W, AddDForce = ∂f/∂x), and its
//     potential at a random quadratic configuration equals −Σ_v ρ ∫_box
//     g·x(X), x = Σ w_i (t_i + A_i b(X̂_i)) with each voxel's centre
//     weights, integrated by 3×3×3 Gauss points here;
//   - with partition lumping every frame falls at exactly g;
//   - the kinetic energy of any motion whose velocity is one quadratic
//     field u(X) (every frame moving with it) is exactly ½ ∫ ρ |u|²
//     (Σ w = 1), Gauss-integrated over the voxels;
//   - AccFromF inverts AddMDx.
func TestFrameMassQuadraticFrames(t *testing.T) {
	s := massScene(t, "Quadratic3", "partition", "LinearBlendSkinningMapping", "HarmonicShapeFunction")
	fm := graphtest.Find[*FrameMass](t, s, "bar/FrameMass")
	g, _ := graphtest.Find[*MaterialGrid](t, s, "bar/MaterialGrid").Voxels()
	frames := graphtest.Find[graph.State](t, s, "bar/frames")
	if math.Abs(fm.TotalMass()-g.Mass()) > 1e-12*g.Mass() {
		t.Errorf("total mass %g, want %g", fm.TotalMass(), g.Mass())
	}
	wp, _ := fm.provider()
	sw, err := wp.WeightsAt(g.Centres())
	if err != nil {
		t.Fatal(err)
	}
	rest := frames.Vec(graph.RestPosition)
	grav := s.Root.Gravity()
	// Free fall at rest and elsewhere (the blocks are constant).
	f := make([]float64, 30*frames.Size())
	fm.AddForce(f, frames.Vec(graph.Position), nil)
	a := make([]float64, len(f))
	fm.AccFromF(a, f)
	for k := 0; k < frames.Size(); k++ {
		for i := 0; i < 30; i++ {
			want := 0.0
			if i < 3 {
				want = grav[i]
			}
			if math.Abs(a[30*k+i]-want) > 1e-10*grav.Norm() {
				t.Fatalf("frame %d: free-fall acceleration[%d] = %g, want %g", k, i, a[30*k+i], want)
			}
		}
	}
	rng := rand.New(rand.NewPCG(4, 4))
	randomFrames(rng, frames, 0.3)
	x := append([]float64(nil), frames.Vec(graph.Position)...)
	graphtest.CheckForceField(t, fm, frames.Template(), x, nil, graphtest.Options{Tolerance: 1e-6})
	// The potential by Gauss points over every voxel.
	gaussOver := func(v int, fn func(X geom.Vec3) float64) float64 {
		X, h := g.Centre(v), g.Spacing.Scale(0.5)
		sum := 0.0
		for _, gx := range gaussLegendre3 {
			for _, gy := range gaussLegendre3 {
				for _, gz := range gaussLegendre3 {
					p := geom.Vec3{X[0] + gx[0]*h[0], X[1] + gy[0]*h[1], X[2] + gz[0]*h[2]}
					sum += gx[1] * gy[1] * gz[1] / 8 * fn(p)
				}
			}
		}
		return sum * g.VoxelVolume()
	}
	frameX := func(c []float64, f int, X geom.Vec3) geom.Vec3 {
		tf, A, tb, Qi := quadraticFrameState(c, rest, f)
		var b [9]float64
		quadBasis(&b, Qi.MulVec(X.Sub(tb)))
		for r := 0; r < 3; r++ {
			for j := 0; j < 9; j++ {
				tf[r] += A[9*r+j] * b[j]
			}
		}
		return tf
	}
	want := 0.0
	for v := 0; v < g.NumVoxels(); v++ {
		fr, ws, _ := sw.Influences(v)
		want -= g.Density[v] * gaussOver(v, func(X geom.Vec3) float64 {
			var xs geom.Vec3
			for e, k := range fr {
				xs = xs.Add(frameX(x, k, X).Scale(ws[e]))
			}
			return grav.Dot(xs)
		})
	}
	if W := fm.PotentialEnergy(x); math.Abs(W-want) > 1e-12*math.Abs(want) {
		t.Errorf("gravity potential %.15g, Gauss integral %.15g", W, want)
	}
	// Kinetic energy of a quadratic velocity field u = c + M X + (XᵀQ_r X)_r.
	var qc geom.Vec3
	var qM geom.Mat3
	var qQ [3]geom.Mat3
	for i := 0; i < 3; i++ {
		qc[i] = rng.NormFloat64()
	}
	for i := range qM {
		qM[i] = rng.NormFloat64()
		for r := range qQ {
			qQ[r][i] = rng.NormFloat64()
		}
	}
	for r := range qQ {
		qQ[r] = qQ[r].Sym()
	}
	u := func(X geom.Vec3) geom.Vec3 {
		y := qc.Add(qM.MulVec(X))
		for r := 0; r < 3; r++ {
			y[r] += X.Dot(qQ[r].MulVec(X))
		}
		return y
	}
	// Frame velocities: the same field in each frame's local basis
	// (X = t̄ + Ā X̂): dt = u(t̄), dA = [M Ā + 2 (Q_r t̄)ᵀ Ā | ĀᵀQ_rĀ terms].
	vel := make([]float64, 30*frames.Size())
	for k := 0; k < frames.Size(); k++ {
		_, _, tb, Qi := quadraticFrameState(rest, rest, k)
		Ab, _ := Qi.Inverse()
		c := vel[30*k : 30*k+30]
		u0 := u(tb)
		copy(c, u0[:])
		for r := 0; r < 3; r++ {
			l := Ab.TMulVec(qM.Row(r).Add(qQ[r].MulVec(tb).Scale(2)))
			P := Ab.TMul(qQ[r]).Mul(Ab)
			row := c[3+9*r : 3+9*r+9]
			copy(row[:3], l[:])
			row[3], row[4], row[5], row[6], row[7], row[8] = P[0], P[4], P[8], 2*P[1], 2*P[5], 2*P[6]
		}
	}
	exact := 0.0
	for v := 0; v < g.NumVoxels(); v++ {
		exact += 0.5 * g.Density[v] * gaussOver(v, func(X geom.Vec3) float64 { return u(X).Norm2() })
	}
	got := fm.KineticEnergy(vel)
	t.Logf("quadratic frames: kinetic energy of a quadratic velocity field %.15g, exact %.15g", got, exact)
	if math.Abs(got-exact) > 1e-12*exact {
		t.Errorf("kinetic energy %g, want %g", got, exact)
	}
	Mv := make([]float64, len(vel))
	fm.AddMDx(Mv, vel, 1)
	acc := make([]float64, len(vel))
	fm.AccFromF(acc, Mv)
	for i := range vel {
		if math.Abs(acc[i]-vel[i]) > 1e-8*(1+math.Abs(vel[i])) {
			t.Fatalf("M⁻¹ M v differs from v at %d: %g vs %g", i, acc[i], vel[i])
		}
	}
}
