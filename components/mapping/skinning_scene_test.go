package mapping_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sofago/sofago/components/forcefield"
	"github.com/sofago/sofago/components/mapping"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

// testShapeFunction is a stand-in for package shapefunction's components:
// normalised Gaussian kernels centred on the rest positions of the frames
// of its node's state. It computes on demand (the mapping asks before the
// shape function's own Init, which runs in the behaviour phase).
type testShapeFunction struct {
	graph.ObjectBase
	Sigma float64 `toml:"sigma" doc:"kernel width" unit:"m"`
	calls int
}

func (f *testShapeFunction) WeightsAt(pts []float64) (mapping.SkinningWeights, error) {
	st := f.Node.State()
	if st == nil {
		return mapping.SkinningWeights{}, errors.New("no frames")
	}
	rest := st.Vec(graph.RestPosition)
	cs := st.Template().CoordSize()
	centres := make([]geom.Vec3, st.Size())
	for k := range centres {
		centres[k] = geom.Vec3{rest[cs*k], rest[cs*k+1], rest[cs*k+2]}
	}
	f.calls++
	return gaussianWeights(pts, centres, f.Sigma), nil
}

// testSampler is a stand-in for an integration sampler: the centres of an
// n³ grid of cells on [−1, 1]³, each of volume (2/n)³.
type testSampler struct {
	graph.ObjectBase
	N int `toml:"n" doc:"cells per side"`
}

func (s *testSampler) SamplePoints() ([]float64, error) {
	var pts []float64
	h := 2 / float64(s.N)
	for i := 0; i < s.N; i++ {
		for j := 0; j < s.N; j++ {
			for k := 0; k < s.N; k++ {
				pts = append(pts, -1+(float64(i)+0.5)*h, -1+(float64(j)+0.5)*h, -1+(float64(k)+0.5)*h)
			}
		}
	}
	return pts, nil
}

func (s *testSampler) SampleVolumes() ([]float64, error) {
	v := make([]float64, s.N*s.N*s.N)
	h := 2 / float64(s.N)
	for i := range v {
		v[i] = h * h * h
	}
	return v, nil
}

var (
	_ mapping.WeightProvider                = (*testShapeFunction)(nil)
	_ mapping.SamplePointProvider           = (*testSampler)(nil)
	_ forcefield.SampleVolumeProvider       = (*testSampler)(nil)
	_ forcefield.SampleYoungModulusProvider = nil
)

func init() {
	graph.Register(graph.TypeInfo{Name: "TestGaussianShapeFunction", Kind: graph.KindBehavior,
		New: func() graph.Object { return &testShapeFunction{Sigma: 1} }})
	graph.Register(graph.TypeInfo{Name: "TestGridSampler", Kind: graph.KindBehavior,
		New: func() graph.Object { return &testSampler{N: 3} }})
}

// frameScene is a solid of nf Rigid3 frames with the test shape function
// and sampler in the frames' node, samples (F331) mapped by mappingType
// found through the ancestors' providers with a DeformationGradientForceField
// of law, and (withPoints) a few Vec3 points mapped by a
// LinearBlendSkinningMapping through a shapeFunction link, pulled by a
// constant force.
func frameScene(mappingType, law string, rest, pos []float64, withPoints bool) string {
	points := ""
	if withPoints {
		points = `
  [[node.node]]
  name = "points"
    [[node.node.object]]
    type = "MechanicalObject"
    position = [[0.3, -0.2, 0.5], [-0.7, 0.1, 0.2], [0.9, 0.8, -0.6]]
    [[node.node.object]]
    type = "LinearBlendSkinningMapping"
    shapeFunction = "@../weights"
    [[node.node.object]]
    type = "ConstantForceField"
    forces = [[1e4, -2e4, 3e4]]`
	}
	return fmt.Sprintf(`
[[node]]
name = "body"
  [[node.object]]
  type = "MechanicalObject"
  name = "frames"
  template = "Rigid3"
  restPosition = %s
  position = %s
  [[node.object]]
  type = "TestGaussianShapeFunction"
  name = "weights"
  sigma = 1.1
  [[node.object]]
  type = "TestGridSampler"
  name = "sampler"
  n = 4
  [[node.node]]
  name = "samples"
    [[node.node.object]]
    type = "MechanicalObject"
    template = "F331"
    [[node.node.object]]
    type = %q
    [[node.node.object]]
    type = "DeformationGradientForceField"
    materialName = %q
    youngModulus = 1e6
    poissonRatio = 0.3
    bulkModulus = 2e5
%s
`, rows(rest, 7), rows(pos, 7), mappingType, law, points)
}

// randomFramePoses returns rest and deformed Rigid3 coordinates of nf
// frames: deformed poses turned up to ±60° (continuous from the rest
// quaternion) and moved up to ~0.3.
func randomFramePoses(seed uint64, nf int) (rest, pos []float64) {
	rng := rand.New(rand.NewPCG(seed, 5))
	ts, qs := make([]geom.Vec3, nf), make([]geom.Quat, nf)
	ct, cq := make([]geom.Vec3, nf), make([]geom.Quat, nf)
	for k := range ts {
		ts[k] = geom.Vec3{1.6*rng.Float64() - 0.8, 1.6*rng.Float64() - 0.8, 1.6*rng.Float64() - 0.8}
		qs[k] = randomRotation(rng)
		ct[k] = ts[k].Add(geom.Vec3{0.3 * rng.NormFloat64(), 0.3 * rng.NormFloat64(), 0.3 * rng.NormFloat64()})
		cq[k] = geom.QuatFromAxisAngle(geom.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}, (2*rng.Float64()-1)*math.Pi/3).Mul(qs[k])
	}
	return rigidCoords(ts, qs), rigidCoords(ct, cq)
}

// TestSkinningSceneTraversals loads frames with shape function and sampler
// components, the F331 samples and Vec3 points mapped through them (the
// providers found by search and by link), and checks the whole-tree
// stiffness: Ops.ComputeDf = the derivative of Ops.ComputeForce (every
// ApplyJ, ApplyJT, ApplyDJT and AddDForce together).
func TestSkinningSceneTraversals(t *testing.T) {
	rest, pos := randomFramePoses(3, 4)
	for _, mt := range []string{"LinearBlendSkinningMapping", "DualQuaternionSkinningMapping"} {
		for _, law := range []string{"StVenantKirchhoff", "NeoHookean", "CorotationalLinear"} {
			t.Run(mt+"/"+law, func(t *testing.T) {
				s := graphtest.MustLoad(t, "frames.toml", frameScene(mt, law, rest, pos, true))
				sf := graphtest.Find[*testShapeFunction](t, s, "body/weights")
				if sf.calls != 2 {
					t.Errorf("the shape function was asked %d times, want 2 (samples and points)", sf.calls)
				}
				if n := graphtest.Find[graph.State](t, s, "body/samples/MechanicalObject").Size(); n != 64 {
					t.Errorf("%d samples, want the sampler's 64", n)
				}
				// Same reasoning as the mapping fixtures' fdTolerance, on
				// the sum over 64 samples.
				graphtest.CheckOps(t, s.Ops(), graphtest.Options{Trials: 3, Tolerance: 1e-7})
			})
		}
	}
}

// TestSkinningRigidMotionZeroForce: frames moved together by one rigid
// motion give F = R at every sample, so every rotation-invariant law and
// the volume term apply no force to the frames (LBS and DQS).
func TestSkinningRigidMotionZeroForce(t *testing.T) {
	rest, _ := randomFramePoses(4, 4)
	Q := geom.QuatFromAxisAngle(geom.Vec3{1, 2, -1}, 2.5)
	c := geom.Vec3{3, -1, 0.5}
	pos := make([]float64, len(rest))
	for k := 0; k < len(rest)/7; k++ {
		t := Q.Rotate(geom.Vec3{rest[7*k], rest[7*k+1], rest[7*k+2]}).Add(c)
		q := Q.Mul(geom.Quat{rest[7*k+3], rest[7*k+4], rest[7*k+5], rest[7*k+6]})
		copy(pos[7*k:], []float64{t[0], t[1], t[2], q[0], q[1], q[2], q[3]})
	}
	for _, mt := range []string{"LinearBlendSkinningMapping", "DualQuaternionSkinningMapping"} {
		for _, law := range []string{"StVenantKirchhoff", "NeoHookean", "StableNeoHookean", "CorotationalLinear"} {
			s := graphtest.MustLoad(t, "frames.toml", frameScene(mt, law, rest, pos, false))
			ops := s.Ops()
			f := ops.AllocDeriv()
			ops.ComputeForce(f)
			got := graphtest.Find[graph.State](t, s, "body/frames").Vec(f)
			m := 0.0
			for _, v := range got {
				m = max(m, math.Abs(v))
			}
			// The scale of a force: E × volume (8 m³) × strain 1 ≈ 1e7 N;
			// F = R to rounding gives strains of 1e-15.
			if m > 1e-7 {
				t.Errorf("%s/%s: rigid motion gives frame forces up to %.3g N", mt, law, m)
			}
			ops.Free(f)
		}
	}
}

// TestSkinningReinit inserts a frame into a state of affine frames that
// carry an affine motion (the new frame given that motion too), with new
// weights and more points: Reinit keeps the mapped positions of the old
// points exactly, maps the new ones, and the fixtures still pass.
func TestSkinningReinit(t *testing.T) {
	rng := rand.New(rand.NewPCG(77, 1))
	M := randomAffine(rng)
	c := geom.Vec3{0.2, 0.1, -0.4}
	centres := []geom.Vec3{{-1, 0, 0}, {0, 1, 0}, {1, 0, 0}, {0, 0, 1}}
	restA := []geom.Mat3{geom.Identity3(), geom.Identity3(), geom.Identity3(), geom.Identity3()}
	curT := make([]geom.Vec3, len(centres))
	curA := make([]geom.Mat3, len(centres))
	for i := range centres {
		curT[i], curA[i] = M.MulVec(centres[i]).Add(c), M
	}
	pts := randomPoints(rng, 30)
	for _, ct := range []graph.Template{graph.Vec3, graph.F331} {
		m := mapping.NewLinearBlendSkinningMapping()
		parent, child := buildSkinning(t, m, graph.Affine3, affineCoords(centres, restA), affineCoords(curT, curA), ct, pts, gaussianWeights(pts, centres, 0.9))
		before := append([]float64(nil), child.Vec(graph.Position)...)
		// Insert a frame at rest point p̄ = (0.3, −0.5, 0.2), moved by M.
		pbar := geom.Vec3{0.3, -0.5, 0.2}
		parent.Resize(5)
		copy(parent.Vec(graph.RestPosition)[48:], affineCoords([]geom.Vec3{pbar}, []geom.Mat3{geom.Identity3()}))
		copy(parent.Vec(graph.Position)[48:], affineCoords([]geom.Vec3{M.MulVec(pbar).Add(c)}, []geom.Mat3{M}))
		more := append(append([]float64(nil), pts...), randomPoints(rng, 10)...)
		m.SetRestPoints(more)
		m.SetWeights(gaussianWeights(more, append(centres, pbar), 0.9))
		if err := m.Reinit(); err != nil {
			t.Fatal(err)
		}
		if child.Size() != 40 {
			t.Fatalf("child has %d DOFs after Reinit, want 40", child.Size())
		}
		after := child.Vec(graph.Position)
		if d := maxAbsDiff(after[:len(before)], before); d > 1e-12 {
			t.Errorf("%s: mapped positions moved by %.3g at the frame insertion", ct.Name(), d)
		}
		graphtest.CheckMapping(t, m, parent.Vec(graph.Position), graphtest.Options{Tolerance: fdTolerance})
	}
}

// TestSkinningSceneErrors: wrong inputs are load/init errors naming the
// problem.
func TestSkinningSceneErrors(t *testing.T) {
	frames := `
[[node]]
name = "body"
  [[node.object]]
  type = "MechanicalObject"
  template = %q
  position = %s
  [[node.node]]
  name = "child"
    [[node.node.object]]
    type = "MechanicalObject"
    template = %q
    [[node.node.object]]
    type = %q
    %s
`
	rigid := "[[0, 0, 0, 0, 0, 0, 1], [1, 0, 0, 0, 0, 0, 1]]"
	flipped := "[[0, 0, 0, 0, 0, 0, 1], [1, 0, 0, 0, 0, 0, -1]]\n  restPosition = " + rigid
	vec := "[[0, 0, 0], [1, 0, 0]]"
	one := `restPoints = [[0.5, 0, 0]]
    indices = [[0, 1]]`
	cases := []struct {
		parentT, parentX, childT, mapping, fields, want string
	}{
		{"Rigid3", rigid, "Vec3", "LinearBlendSkinningMapping", one + "\n    weights = [[0.5, 0.6]]", "partition of unity"},
		{"Rigid3", rigid, "Vec3", "LinearBlendSkinningMapping", one + "\n    weights = [[0.5]]", "1 weights for 2 frame indices"},
		{"Rigid3", rigid, "Vec3", "LinearBlendSkinningMapping", "restPoints = [[0.5, 0, 0]]\n    indices = [[0, 2]]\n    weights = [[0.5, 0.5]]", "out of range"},
		{"Rigid3", rigid, "F331", "LinearBlendSkinningMapping", one + "\n    weights = [[0.5, 0.5]]", "need weight gradients"},
		{"Rigid3", rigid, "Vec3", "LinearBlendSkinningMapping", "restPoints = [[0.5, 0, 0]]", "no weights"},
		{"Rigid3", rigid, "F331", "LinearBlendSkinningMapping", "", "no sample positions"},
		{"Vec3", vec, "Vec3", "LinearBlendSkinningMapping", one + "\n    weights = [[0.5, 0.5]]", "Rigid3, Affine3 or Quadratic3"},
		{"Rigid3", rigid, "Rigid3", "LinearBlendSkinningMapping", one + "\n    weights = [[0.5, 0.5]]", "Vec3 points or F331"},
		{"Affine3", "[[0,0,0,1,0,0,0,1,0,0,0,1]]", "Vec3", "DualQuaternionSkinningMapping", "restPoints = [[0.5, 0, 0]]\n    indices = [[0]]\n    weights = [[1]]", "needs Rigid3"},
		{"Rigid3", flipped, "Vec3", "DualQuaternionSkinningMapping", one + "\n    weights = [[0.5, 0.5]]", "opposite hemisphere"},
		{"Rigid3", rigid, "Vec3", "DualQuaternionSkinningMapping", one + "\n    weights = [[0.5, -0.5]]", "positive sum"},
		{"Rigid3", rigid, "Vec3", "DualQuaternionSkinningMapping", one + "\n    weights = [[0.5, 0.5]]\n    shapeFunction = \"@../MechanicalObject\"", "not both"},
		{"Rigid3", rigid, "Vec3", "DualQuaternionSkinningMapping", "restPoints = [[0.5, 0, 0]]\n    shapeFunction = \"@../MechanicalObject\"", "not a shape function"},
		{"Rigid3", rigid, "Vec3", "DualQuaternionSkinningMapping", "restPoints = [[0.5, 0, 0]]\n    indices = [[0, 0]]\n    weights = [[0.5, 0.5]]", "listed twice"},
		{"Rigid3", rigid, "Vec3", "DualQuaternionSkinningMapping", "weights = [[0.5, 0.5]]", "need indices"},
	}
	for _, c := range cases {
		err := loadErr(fmt.Sprintf(frames, c.parentT, c.parentX, c.childT, c.mapping, c.fields))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s→%s with %q: error %v, want it to contain %q", c.mapping, c.parentT, c.childT, c.fields, err, c.want)
		} else if !strings.Contains(err.Error(), "test.toml:") {
			t.Errorf("error %q does not name the file and line", err)
		}
	}
}
