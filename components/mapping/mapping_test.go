package mapping_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sofago/sofago/components/mapping"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

// fdTolerance is the relative tolerance of the finite-difference checks.
// The fixture uses central differences with step h = 1e-6 × the coordinate
// scale: the truncation error is O(h²) ≈ 1e-12 relative and the rounding
// error about ε/h ≈ 2e-10 relative (the largest error observed over these
// tests is 7.4e-10), so 1e-8 leaves a >10× margin while still catching any
// wrong term (a flipped sign in ApplyDJT shows as a relative error of 0.3–2).
const fdTolerance = 1e-8

// rows formats a list of DOFs as a TOML array of arrays.
func rows(x []float64, width int) string {
	var b strings.Builder
	b.WriteString("[")
	for i := 0; i < len(x)/width; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("[")
		for j := 0; j < width; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%.17g", x[width*i+j])
		}
		b.WriteString("]")
	}
	b.WriteString("]")
	return b.String()
}

// randomFrames returns n Rigid3 coordinates with translations in [−1, 1]³
// and uniformly random orientations (normalised Gaussian quaternions).
func randomFrames(rng *rand.Rand, n int) []float64 {
	x := make([]float64, 7*n)
	for k := 0; k < n; k++ {
		q := geom.Quat{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}.Normalized()
		copy(x[7*k:], []float64{2*rng.Float64() - 1, 2*rng.Float64() - 1, 2*rng.Float64() - 1, q[0], q[1], q[2], q[3]})
	}
	return x
}

func randomPoints(rng *rand.Rand, n int) []float64 {
	x := make([]float64, 3*n)
	for i := range x {
		x[i] = 2*rng.Float64() - 1
	}
	return x
}

func loadErr(text string) error {
	s, err := graph.Load("test.toml", []byte(text))
	if err != nil {
		return err
	}
	return s.Init()
}

func TestIdentityMappingFD(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	x := randomPoints(rng, 5)
	s := graphtest.MustLoad(t, "identity.toml", fmt.Sprintf(`
[[node]]
name = "parent"
  [[node.object]]
  type = "MechanicalObject"
  position = %s
  [[node.node]]
  name = "child"
    [[node.node.object]]
    type = "MechanicalObject"
    [[node.node.object]]
    type = "IdentityMapping"
`, rows(x, 3)))
	m := graphtest.Find[*mapping.IdentityMapping](t, s, "parent/child/IdentityMapping")
	child := m.To()
	if child.Size() != 5 {
		t.Fatalf("child has %d DOFs, want 5", child.Size())
	}
	for i, v := range child.Vec(graph.Position) {
		if v != x[i] || child.Vec(graph.RestPosition)[i] != x[i] {
			t.Fatalf("child position/rest position entry %d = %g/%g, want %g", i, v, child.Vec(graph.RestPosition)[i], x[i])
		}
	}
	for trial := 0; trial < 3; trial++ {
		graphtest.CheckMapping(t, m, randomPoints(rng, 5), graphtest.Options{Seed: uint64(trial + 1), Tolerance: fdTolerance})
	}
}

func TestIdentityMappingTemplateMismatch(t *testing.T) {
	err := loadErr(`
[[node]]
name = "parent"
  [[node.object]]
  type = "MechanicalObject"
  template = "Rigid3"
  size = 2
  [[node.node]]
  name = "child"
    [[node.node.object]]
    type = "MechanicalObject"
    [[node.node.object]]
    type = "IdentityMapping"
`)
	if err == nil || !strings.Contains(err.Error(), "same template") {
		t.Fatalf("want a template mismatch error, got %v", err)
	}
}

func TestSubsetMappingFD(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	x := randomPoints(rng, 6)
	indices := []int{4, 0, 2, 4} // 4 repeats: its forces must add up
	s := graphtest.MustLoad(t, "subset.toml", fmt.Sprintf(`
[[node]]
name = "parent"
  [[node.object]]
  type = "MechanicalObject"
  position = %s
  [[node.node]]
  name = "child"
    [[node.node.object]]
    type = "MechanicalObject"
    name = "sub"
    [[node.node.object]]
    type = "SubsetMapping"
    indices = [4, 0, 2, 4]
`, rows(x, 3)))
	m := graphtest.Find[*mapping.SubsetMapping](t, s, "parent/child/SubsetMapping")
	cx := m.To().Vec(graph.Position)
	if m.To().Size() != len(indices) {
		t.Fatalf("child has %d DOFs, want %d", m.To().Size(), len(indices))
	}
	for i, idx := range indices {
		if geom.At(cx, i) != geom.At(x, idx) || geom.At(m.To().Vec(graph.RestPosition), i) != geom.At(x, idx) {
			t.Errorf("child DOF %d = %v, want parent DOF %d = %v", i, geom.At(cx, i), idx, geom.At(x, idx))
		}
	}
	// Jᵀ by hand: forces (1,2,3) on child 0 and (10,20,30) on child 3 both
	// land on parent 4.
	cf := make([]float64, 3*len(indices))
	copy(cf[0:], []float64{1, 2, 3})
	copy(cf[9:], []float64{10, 20, 30})
	pf := make([]float64, 18)
	m.ApplyJT(pf, cf)
	if got := geom.At(pf, 4); got != (geom.Vec3{11, 22, 33}) {
		t.Errorf("parent force on DOF 4 = %v, want [11 22 33]", got)
	}
	for trial := 0; trial < 3; trial++ {
		graphtest.CheckMapping(t, m, randomPoints(rng, 6), graphtest.Options{Seed: uint64(trial + 1), Tolerance: fdTolerance})
	}
}

func TestSubsetMappingRigidFrames(t *testing.T) {
	// A subset of Rigid3 frames: the same code copies 7-number coordinates
	// and 6-number derivatives.
	rng := rand.New(rand.NewPCG(7, 8))
	x := randomFrames(rng, 3)
	s := graphtest.MustLoad(t, "subset_rigid.toml", fmt.Sprintf(`
[[node]]
name = "parent"
  [[node.object]]
  type = "MechanicalObject"
  template = "Rigid3"
  position = %s
  [[node.node]]
  name = "child"
    [[node.node.object]]
    type = "MechanicalObject"
    template = "Rigid3"
    [[node.node.object]]
    type = "SubsetMapping"
    indices = [2, 1]
`, rows(x, 7)))
	m := graphtest.Find[*mapping.SubsetMapping](t, s, "parent/child/SubsetMapping")
	graphtest.CheckMapping(t, m, randomFrames(rng, 3), graphtest.Options{Tolerance: fdTolerance})
}

func TestSubsetMappingIndexOutOfRange(t *testing.T) {
	err := loadErr(`
[[node]]
name = "parent"
  [[node.object]]
  type = "MechanicalObject"
  size = 3
  [[node.node]]
  name = "child"
    [[node.node.object]]
    type = "MechanicalObject"
    [[node.node.object]]
    type = "SubsetMapping"
    indices = [0, 3]
`)
	if err == nil || !strings.Contains(err.Error(), "indices[1] = 3 is out of range") || !strings.Contains(err.Error(), "test.toml:") {
		t.Fatalf("want a located out-of-range error, got %v", err)
	}
	err = loadErr(`
[[node]]
name = "parent"
  [[node.object]]
  type = "MechanicalObject"
  size = 3
  [[node.node]]
  name = "child"
    [[node.node.object]]
    type = "MechanicalObject"
    [[node.node.object]]
    type = "SubsetMapping"
    indices = [-1]
`)
	if err == nil || !strings.Contains(err.Error(), "out of range") {
		t.Fatalf("want a range error for a negative index, got %v", err)
	}
}

// rigidScene returns a scene with a Rigid3 parent of the given frames and a
// RigidMapping'd child declared by childFields.
func rigidScene(frames []float64, childFields string) string {
	return fmt.Sprintf(`
gravity = [0, 0, 0]
[[node]]
name = "body"
  [[node.object]]
  type = "MechanicalObject"
  template = "Rigid3"
  position = %s
  [[node.node]]
  name = "points"
    [[node.node.object]]
    type = "MechanicalObject"
    name = "pts"
%s
    [[node.node.object]]
    type = "RigidMapping"
    name = "map"
`, rows(frames, 7), childFields)
}

func TestRigidMappingFD(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const nFrames, nPoints = 3, 7
	pts := randomPoints(rng, nPoints)
	perPoint := make([]int, nPoints)
	for i := range perPoint {
		perPoint[i] = i % nFrames
	}
	perPoint[nPoints-1] = 0
	text := rigidScene(randomFrames(rng, nFrames), "") + fmt.Sprintf("    points = %s\n    rigidIndexPerPoint = %s\n",
		rows(pts, 3), strings.ReplaceAll(fmt.Sprint(perPoint), " ", ", "))
	s := graphtest.MustLoad(t, "rigid.toml", text)
	m := graphtest.Find[*mapping.RigidMapping](t, s, "body/points/map")
	if m.To().Size() != nPoints {
		t.Fatalf("child has %d points, want %d", m.To().Size(), nPoints)
	}
	for trial := 0; trial < 5; trial++ {
		x := randomFrames(rng, nFrames)
		graphtest.CheckMapping(t, m, x, graphtest.Options{Seed: uint64(trial + 1), Tolerance: fdTolerance})
	}
}

// TestRigidMappingApply checks x_i = t + R p_i against an independent
// rotation (the quaternion sandwich product q p q*) and the single-frame
// default index.
func TestRigidMappingApply(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	frames := randomFrames(rng, 2)
	pts := randomPoints(rng, 4)
	s := graphtest.MustLoad(t, "rigid.toml", rigidScene(frames, "")+fmt.Sprintf("    points = %s\n    index = 1\n", rows(pts, 3)))
	m := graphtest.Find[*mapping.RigidMapping](t, s, "body/points/map")
	x := m.To().Vec(graph.Position)
	f := frames[7:14]
	q := geom.Quat{f[3], f[4], f[5], f[6]}
	for i := 0; i < 4; i++ {
		p := geom.At(pts, i)
		rp := q.Mul(geom.Quat{p[0], p[1], p[2], 0}).Mul(q.Conj())
		want := geom.Vec3{f[0] + rp[0], f[1] + rp[1], f[2] + rp[2]}
		if d := geom.At(x, i).Sub(want).Norm(); d > 1e-14 {
			t.Errorf("point %d at %v, want %v (|error| %g)", i, geom.At(x, i), want, d)
		}
	}
}

// TestRigidMappingPointsFromRest takes the points from the child's rest
// positions (world coordinates) with a rotated, translated parent rest
// frame and a different current frame: the child must keep its rest
// positions and follow the rigid motion from rest to current.
func TestRigidMappingPointsFromRest(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	rest := randomFrames(rng, 1)
	cur := randomFrames(rng, 1)
	world := randomPoints(rng, 3)
	s := graphtest.MustLoad(t, "rigid.toml", fmt.Sprintf(`
[[node]]
name = "body"
  [[node.object]]
  type = "MechanicalObject"
  template = "Rigid3"
  restPosition = %s
  position = %s
  [[node.node]]
  name = "points"
    [[node.node.object]]
    type = "MechanicalObject"
    position = %s
    [[node.node.object]]
    type = "RigidMapping"
    name = "map"
`, rows(rest, 7), rows(cur, 7), rows(world, 3)))
	m := graphtest.Find[*mapping.RigidMapping](t, s, "body/points/map")
	qr := geom.Quat{rest[3], rest[4], rest[5], rest[6]}
	qc := geom.Quat{cur[3], cur[4], cur[5], cur[6]}
	tr, tc := geom.Vec3{rest[0], rest[1], rest[2]}, geom.Vec3{cur[0], cur[1], cur[2]}
	x, x0 := m.To().Vec(graph.Position), m.To().Vec(graph.RestPosition)
	for i := 0; i < 3; i++ {
		w := geom.At(world, i)
		if d := geom.At(x0, i).Sub(w).Norm(); d > 1e-14 {
			t.Errorf("rest point %d moved by %g", i, d)
		}
		// current = tc + qc qr⁻¹ (w − tr)
		want := tc.Add(qc.Mul(qr.Conj()).Rotate(w.Sub(tr)))
		if d := geom.At(x, i).Sub(want).Norm(); d > 1e-14 {
			t.Errorf("point %d at %v, want %v", i, geom.At(x, i), want)
		}
		// The local offset keeps its length: |p| = |w − tr|.
		if d := math.Abs(m.LocalPoints()[i].Norm() - w.Sub(tr).Norm()); d > 1e-14 {
			t.Errorf("local point %d has length error %g", i, d)
		}
	}
}

func TestRigidMappingVisual(t *testing.T) {
	s := graphtest.MustLoad(t, "rigid.toml", rigidScene([]float64{0, 0, 0, 0, 0, 0, 1}, "")+"    points = [[1, 0, 0]]\n    isMechanical = false\n")
	m := graphtest.Find[*mapping.RigidMapping](t, s, "body/points/map")
	if m.IsMechanical() {
		t.Fatal("isMechanical = false is not honoured")
	}
	if got := geom.At(m.To().Vec(graph.Position), 0); got != (geom.Vec3{1, 0, 0}) {
		t.Errorf("visual point at %v, want [1 0 0]", got)
	}
}

func TestRigidMappingErrors(t *testing.T) {
	frame := []float64{0, 0, 0, 0, 0, 0, 1}
	cases := []struct{ name, fields, want string }{
		{"no points", "", "no points"},
		{"index out of range", "    points = [[1, 0, 0]]\n    index = 1\n", "index = 1 is out of range"},
		{"per point out of range", "    points = [[1, 0, 0]]\n    rigidIndexPerPoint = [2]\n", "rigidIndexPerPoint[0] = 2 is out of range"},
		{"per point count", "    points = [[1, 0, 0], [0, 1, 0]]\n    rigidIndexPerPoint = [0]\n", "one frame per point"},
		{"both", "    points = [[1, 0, 0]]\n    rigidIndexPerPoint = [0]\n    index = 1\n", "not both"},
	}
	for _, c := range cases {
		err := loadErr(rigidScene(frame, "") + c.fields)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: want an error containing %q, got %v", c.name, c.want, err)
		}
	}
	// A Vec3 parent is refused.
	err := loadErr(`
[[node]]
name = "body"
  [[node.object]]
  type = "MechanicalObject"
  size = 1
  [[node.node]]
  name = "points"
    [[node.node.object]]
    type = "MechanicalObject"
    [[node.node.object]]
    type = "RigidMapping"
    points = [[1, 0, 0]]
`)
	if err == nil || !strings.Contains(err.Error(), "needs Rigid3") {
		t.Errorf("Vec3 parent: want a template error, got %v", err)
	}
	// No state in the parent node and no input link.
	err = loadErr(`
[[node]]
name = "empty"
  [[node.node]]
  name = "points"
    [[node.node.object]]
    type = "MechanicalObject"
    [[node.node.object]]
    type = "RigidMapping"
    points = [[1, 0, 0]]
`)
	if err == nil || !strings.Contains(err.Error(), "set input") {
		t.Errorf("no parent state: want an error suggesting input, got %v", err)
	}
}

// TestRigidMappingInputLink maps from a state named by an explicit link two
// levels up.
func TestRigidMappingInputLink(t *testing.T) {
	s := graphtest.MustLoad(t, "rigid.toml", `
[[node]]
name = "body"
  [[node.object]]
  type = "MechanicalObject"
  name = "frame"
  template = "Rigid3"
  position = [[1, 2, 3, 0, 0, 0, 1]]
  [[node.node]]
  name = "group"
    [[node.node.node]]
    name = "points"
      [[node.node.node.object]]
      type = "MechanicalObject"
      [[node.node.node.object]]
      type = "RigidMapping"
      name = "map"
      input = "@../../frame"
      points = [[1, 0, 0]]
`)
	m := graphtest.Find[*mapping.RigidMapping](t, s, "body/group/points/map")
	if got := geom.At(m.To().Vec(graph.Position), 0); got != (geom.Vec3{2, 2, 3}) {
		t.Errorf("point at %v, want [2 2 3]", got)
	}
}

// BenchmarkRigidMapping1000Points measures one pass of a mechanical
// RigidMapping of 1000 points on 10 frames through an implicit solver
// iteration: Apply (positions), ApplyJ (dx down), ApplyJT (df up) and
// ApplyDJT (geometric stiffness).
func BenchmarkRigidMapping1000Points(b *testing.B) {
	rng := rand.New(rand.NewPCG(21, 22))
	const nFrames, nPoints = 10, 1000
	frames := randomFrames(rng, nFrames)
	perPoint := make([]int, nPoints)
	for i := range perPoint {
		perPoint[i] = i % nFrames
	}
	text := rigidScene(frames, "") + fmt.Sprintf("    points = %s\n    rigidIndexPerPoint = %s\n",
		rows(randomPoints(rng, nPoints), 3), strings.ReplaceAll(fmt.Sprint(perPoint), " ", ", "))
	s := graphtest.MustLoad(b, "rigid.toml", text)
	m := graphtest.Find[*mapping.RigidMapping](b, s, "body/points/map")
	cx, cv, cf := make([]float64, 3*nPoints), make([]float64, 3*nPoints), randomPoints(rng, nPoints)
	pv, pf, pdf := randomPoints(rng, 2*nFrames), make([]float64, 6*nFrames), make([]float64, 6*nFrames)
	b.ReportAllocs()
	for b.Loop() {
		m.Apply(cx, frames)
		m.ApplyJ(cv, pv)
		m.ApplyJT(pf, cf)
		m.ApplyDJT(pdf, pv, cf, 1)
	}
}

// TestRigidMappingGeometricStiffnessAsymmetry pins why assembled solvers
// must treat the tangent of rigid bodies as non-symmetric (README, Linear
// solvers: non-symmetric tangents): the geometric stiffness of one frame,
// K = ∂(Jᵀf)/∂θ = Σ [f_i]×[r_i]× (probed with ApplyDJT), has the
// antisymmetric part ½(K − Kᵀ) = ½[Σ f_i × r_i]× = −½[τ]×, τ = Σ r_i × f_i
// the moment of the child forces about the frame (the identity
// [a]×[b]× − [b]×[a]× = [a × b]×): zero only when the forces have no net
// moment (equilibrium about the frame). Both sides are sums of a few
// products: 1e-14 of the largest entry.
func TestRigidMappingGeometricStiffnessAsymmetry(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	pts := randomPoints(rng, 5)
	s := graphtest.MustLoad(t, "rigid.toml", rigidScene(randomFrames(rng, 1), "")+fmt.Sprintf("    points = %s\n", rows(pts, 3)))
	m := graphtest.Find[*mapping.RigidMapping](t, s, "body/points/map")
	m.Apply(m.To().Vec(graph.Position), m.From().Vec(graph.Position))
	f := graphtest.RandomDeriv(rng, 15, 1)
	var K [6][6]float64
	dx, df := make([]float64, 6), make([]float64, 6)
	for j := 0; j < 6; j++ {
		clear(df)
		dx[j] = 1
		m.ApplyDJT(df, dx, f, 1)
		dx[j] = 0
		for i := 0; i < 6; i++ {
			K[i][j] = df[i]
		}
	}
	frame := m.From().Vec(graph.Position)
	tr := geom.Vec3{frame[0], frame[1], frame[2]}
	x := m.To().Vec(graph.Position)
	var tau geom.Vec3
	for i := 0; i < 5; i++ {
		tau = tau.Add(geom.At(x, i).Sub(tr).Cross(geom.At(f, i)))
	}
	want := tau.Skew().Scale(-0.5)
	scale, worst := 0.0, 0.0
	for i := 0; i < 6; i++ {
		for j := 0; j < 6; j++ {
			scale = math.Max(scale, math.Abs(K[i][j]))
		}
	}
	for i := 0; i < 6; i++ {
		for j := 0; j < 6; j++ {
			anti := 0.5 * (K[i][j] - K[j][i])
			w := 0.0
			if i >= 3 && j >= 3 {
				w = want[3*(i-3)+j-3]
			}
			worst = math.Max(worst, math.Abs(anti-w))
		}
	}
	t.Logf("|τ| = %.3g, largest entry of K %.3g, antisymmetric part vs −½[τ]×: %.3g", tau.Norm(), scale, worst)
	if worst > 1e-14*scale || tau.Norm() < 1e-3*scale {
		t.Errorf("antisymmetric part of the geometric stiffness differs from −½[τ]× by %.3g (scale %.3g, |τ| %.3g)", worst, scale, tau.Norm())
	}
}
