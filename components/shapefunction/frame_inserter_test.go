package shapefunction

import (
	"fmt"
	"math"
	"testing"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

// insertScene is a cantilever of 3 frames, dynamic, with integration
// samples (sampler) and a Vec3 child of material points, both skinned by
// mapping.
func insertScene(t testing.TB, tmpl, mapping, shape, sampler string) *graph.Scene {
	pos := "[[0, 0.1, 0.1, 0, 0, 0, 1], [0.5, 0.1, 0.1, 0, 0, 0, 1], [1, 0.1, 0.1, 0, 0, 0, 1]]"
	if tmpl == "Affine3" {
		pos = "[[0, 0.1, 0.1, 1, 0, 0, 0, 1, 0, 0, 0, 1], [0.5, 0.1, 0.1, 1, 0, 0, 0, 1, 0, 0, 0, 1], [1, 0.1, 0.1, 1, 0, 0, 0, 1, 0, 0, 0, 1]]"
	}
	src := fmt.Sprintf(`
dt = 0.01
gravity = [0, -9.81, 0]
[[node]]
name = "bar"
  [[node.object]]
  type = "EulerImplicitSolver"
  rayleighMass = 1
  [[node.object]]
  type = "CGLinearSolver"
  iterations = 500
  tolerance = 1e-12
  [[node.object]]
  type = "MaterialGrid"
  box = [0, 0, 0, 1, 0.2, 0.2]
  resolution = [20, 4, 4]
  massDensity = 1000
  youngModulus = 1e5
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
  [[node.object]]
  type = "FixedConstraint"
  indices = [0]
  [[node.object]]
  type = "FrameInserter"
  point = [0, 0, 0]
  time = 1e9
  [[node.node]]
  name = "samples"
    [[node.node.object]]
    type = %s
    [[node.node.object]]
    type = "MechanicalObject"
    name = "F"
    template = "F331"
    [[node.node.object]]
    type = %q
    [[node.node.object]]
    type = "DeformationGradientForceField"
    youngModulus = 1e5
    poissonRatio = 0.3
  [[node.node]]
  name = "points"
    [[node.node.object]]
    type = "MechanicalObject"
    name = "x"
    position = [[0.1, 0.05, 0.05], [0.3, 0.2, 0.1], [0.62, 0.1, 0.0], [0.77, 0.15, 0.19], [0.99, 0.01, 0.2], [0.5, 0.1, 0.1]]
    [[node.node.object]]
    type = %q
`, tmpl, pos, shape, sampler, mapping, mapping)
	return graphtest.MustLoad(t, "insert.toml", src)
}

// TestFrameInsertionNoJump: inserting a frame into a deforming, moving
// bar changes no material point's position or velocity (≤ 1e-6 of the
// object's size; measured ~1e-16), nor the deformation gradients of dense
// samples, nor the elastic and gravity forces on the old frames; the run
// goes on stably, and the new frame then moves on its own.
func TestFrameInsertionNoJump(t *testing.T) {
	for _, c := range []struct{ tmpl, mp, shape, sampler string }{
		{"Rigid3", "DualQuaternionSkinningMapping", "HarmonicShapeFunction", `"DenseSampler"`},
		{"Rigid3", "LinearBlendSkinningMapping", "VoronoiShapeFunction", `"DenseSampler"`},
		{"Affine3", "LinearBlendSkinningMapping", "ShepardShapeFunction", `"DenseSampler"`},
		{"Rigid3", "DualQuaternionSkinningMapping", "HarmonicShapeFunction", "\"SparseSampler\"\n    count = 40"},
	} {
		name := c.tmpl + "/" + c.mp + "/" + c.shape + "/" + c.sampler[1:7]
		s := insertScene(t, c.tmpl, c.mp, c.shape, c.sampler)
		for i := 0; i < 20; i++ {
			if err := s.Step(); err != nil {
				t.Fatal(err)
			}
		}
		pts := graphtest.Find[graph.State](t, s, "bar/points/x")
		F := graphtest.Find[graph.State](t, s, "bar/samples/F")
		frames := graphtest.Find[graph.State](t, s, "bar/frames")
		g, _ := graphtest.Find[*MaterialGrid](t, s, "bar/MaterialGrid").Voxels()
		size := g.Size()
		x0 := append([]float64(nil), pts.Vec(graph.Position)...)
		v0 := append([]float64(nil), pts.Vec(graph.Velocity)...)
		F0 := append([]float64(nil), F.Vec(graph.Position)...)
		s.ComputeForces()
		f0 := append([]float64(nil), frames.Vec(graph.Force)...)
		n0 := frames.Size()
		// The material point now at the deformed position of rest point
		// (0.7, 0.15, 0.05).
		target := geom.At(pts.Vec(graph.Position), 3).Add(geom.At(pts.Vec(graph.Position), 2)).Scale(0.5)
		ins := graphtest.Find[*FrameInserter](t, s, "bar/FrameInserter")
		rep, err := ins.Insert(target)
		if err != nil {
			t.Fatal(err)
		}
		if frames.Size() != n0+1 || rep.Frame != n0 {
			t.Fatalf("%s: %d frames after insertion", name, frames.Size())
		}
		jump, vjump := 0.0, 0.0
		for i := range x0 {
			jump = math.Max(jump, math.Abs(pts.Vec(graph.Position)[i]-x0[i]))
			vjump = math.Max(vjump, math.Abs(pts.Vec(graph.Velocity)[i]-v0[i]))
		}
		t.Logf("%s: Newton %d iterations from %.3g m (residual %.2g m), parent %d, point jump %.2g m = %.2g of the size, velocity jump %.2g m/s",
			name, rep.Iterations, rep.StartDist, rep.Residual, rep.Parent, jump, jump/size, vjump)
		if jump > 1e-6*size || vjump > 1e-9 {
			t.Errorf("%s: material points jumped by %.3g m (%.3g of the size), velocities by %.3g", name, jump, jump/size, vjump)
		}
		if rep.Residual >= 1e-5 {
			t.Errorf("%s: Newton residual %g", name, rep.Residual)
		}
		if c.sampler == `"DenseSampler"` {
			dF := 0.0
			for i := range F0 {
				dF = math.Max(dF, math.Abs(F.Vec(graph.Position)[i]-F0[i]))
			}
			if dF > 1e-12 {
				t.Errorf("%s: deformation gradients changed by %.3g", name, dF)
			}
			// Forces at the same configuration: the frames other than the
			// parent keep theirs, and the parent and the child share the
			// parent's old translational force (linear in the weights).
			s.ComputeForces()
			ds := frames.Template().DerivSize()
			fNew := frames.Vec(graph.Force)
			df, scale := 0.0, 0.0
			for i := 0; i < n0*ds; i++ {
				scale = math.Max(scale, math.Abs(f0[i]))
				want := f0[i]
				got := fNew[i]
				if i/ds == rep.Parent {
					if i%ds >= 3 {
						continue // torques are about different origins
					}
					got += fNew[n0*ds+i%ds]
				}
				df = math.Max(df, math.Abs(got-want))
			}
			if df > 1e-10*scale {
				t.Errorf("%s: forces on the old frames changed by %.3g N (|f| %.3g)", name, df, scale)
			}
			t.Logf("%s: |ΔF| ≤ %.2g, forces on the old frames change ≤ %.2g N", name, dF, df)
		}
		for i := 0; i < 30; i++ {
			if err := s.Step(); err != nil {
				t.Fatalf("%s: step after insertion: %v", name, err)
			}
		}
		// The new frame no longer follows its parent rigidly: it adds a
		// degree of freedom (its translation differs from where the
		// parent's motion carries its rest origin).
		x := frames.Vec(graph.Position)
		cs := frames.Template().CoordSize()
		pc, nc := x[cs*rep.Parent:cs*rep.Parent+cs], x[cs*rep.Frame:cs*rep.Frame+cs]
		pr := frames.Vec(graph.RestPosition)[cs*rep.Parent : cs*rep.Parent+cs]
		var carried geom.Vec3
		d := rep.RestPoint.Sub(geom.Vec3{pr[0], pr[1], pr[2]})
		if cs == 7 {
			qRel := geom.Quat{pc[3], pc[4], pc[5], pc[6]}.Mul(geom.Quat{pr[3], pr[4], pr[5], pr[6]}.Conj())
			carried = qRel.Rotate(d).Add(geom.Vec3{pc[0], pc[1], pc[2]})
		} else {
			Ainv, _ := geom.Mat3(pr[3:12]).Inverse()
			carried = geom.Mat3(pc[3:12]).Mul(Ainv).MulVec(d).Add(geom.Vec3{pc[0], pc[1], pc[2]})
		}
		if sep := carried.Sub(geom.Vec3{nc[0], nc[1], nc[2]}).Norm(); sep < 1e-7 {
			t.Errorf("%s: the new frame still follows its parent rigidly (%.3g m apart)", name, sep)
		}
		ke, _ := s.Energies()
		if math.IsNaN(ke) || ke > 1e3 {
			t.Errorf("%s: kinetic energy %g after the insertion", name, ke)
		}
	}
}
