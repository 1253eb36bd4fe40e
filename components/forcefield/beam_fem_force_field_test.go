package forcefield_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sofago/sofago/components/forcefield"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

// rodFrames returns n+1 frames along a straight rod of length l on the x
// axis, each turned by q (the frames' orientation is free: the element
// offsets absorb it).
func rodFrames(n int, l float64, q geom.Quat) string {
	var b strings.Builder
	b.WriteString("[")
	for i := 0; i <= n; i++ {
		fmt.Fprintf(&b, "[%.17g, 0, 0, %.17g, %.17g, %.17g, %.17g], ", l*float64(i)/float64(n), q[0], q[1], q[2], q[3])
	}
	b.WriteString("]")
	return b.String()
}

// beamScene is a rod of frames with the given section and extra objects.
func beamScene(frames, section, extra string) string {
	return `
[[node]]
name = "rod"
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  template = "Rigid3"
  position = ` + frames + `
  [[node.object]]
  type = "BeamFEMForceField"
  name = "beam"
  youngModulus = 2e5
  poissonRatio = 0.3
  ` + section + `
` + extra
}

// TestBeamFEMFixture (issue 16, item 1): force = −∇W and K = ∂f/∂x by
// central differences on random configurations with frame rotations up to
// 1.2 rad and displacements of a third of an element, for a disc, a tube
// and a rectangle on frames of arbitrary orientation (so every strain,
// stretch included, is far from zero).
func TestBeamFEMFixture(t *testing.T) {
	sections := []string{"radius = 0.05", "radius = 0.05\n  innerRadius = 0.03", "width = 0.08\n  height = 0.03"}
	q := geom.QuatFromAxisAngle(geom.Vec3{1, 2, 3}, 0.7)
	for si, sec := range sections {
		s := graphtest.MustLoad(t, "beam.toml", beamScene(rodFrames(4, 1, q), sec, ""))
		ff := graphtest.Find[*forcefield.BeamFEMForceField](t, s, "rod/beam")
		rest := ff.Base().Node.State().Vec(graph.RestPosition)
		rng := rand.New(rand.NewPCG(uint64(si+1), 7))
		for trial := 0; trial < 4; trial++ {
			x := randomRigid(rng, rest, 1.2, 0.08)
			graphtest.CheckForceField(t, ff, graph.Rigid3, x, nil, graphtest.Options{Seed: uint64(trial + 1), Tolerance: 1e-6})
		}
	}
}

// TestBeamFEMRigidMotion: a rigid motion of a curved rest shape (frames
// on a helix, at rest) leaves the energy and the forces zero, and a
// deformed configuration moved rigidly keeps its energy and sees its
// forces rotated.
func TestBeamFEMRigidMotion(t *testing.T) {
	// A helix with frames along its tangent, turned by an arbitrary twist.
	n := 12
	var b strings.Builder
	b.WriteString("[")
	for i := 0; i <= n; i++ {
		th := 0.4 * float64(i)
		tan := geom.Vec3{-math.Sin(th), math.Cos(th), 0.3}.Normalized()
		q := geom.QuatFromMat(geom.Cols(tan, geom.Vec3{0, 0, 1}.Cross(tan).Normalized(), tan.Cross(geom.Vec3{0, 0, 1}.Cross(tan).Normalized())))
		q = q.Mul(geom.QuatFromAxisAngle(geom.Vec3{1, 0, 0}, 0.1*float64(i)))
		fmt.Fprintf(&b, "[%.17g, %.17g, %.17g, %g, %g, %g, %g], ", math.Cos(th), math.Sin(th), 0.3*th, q[0], q[1], q[2], q[3])
	}
	b.WriteString("]")
	s := graphtest.MustLoad(t, "helix.toml", beamScene(b.String(), "radius = 0.05", ""))
	ff := graphtest.Find[*forcefield.BeamFEMForceField](t, s, "rod/beam")
	rest := ff.Base().Node.State().Vec(graph.RestPosition)
	rot := geom.QuatFromAxisAngle(geom.Vec3{0.3, -1, 0.5}, 2.5)
	move := func(x []float64) []float64 {
		y := append([]float64(nil), x...)
		for i := 0; i < len(y)/7; i++ {
			p := rot.Rotate(geom.Vec3{y[7*i], y[7*i+1], y[7*i+2]}).Add(geom.Vec3{1, -2, 3})
			qq := rot.Mul(geom.Quat{y[7*i+3], y[7*i+4], y[7*i+5], y[7*i+6]})
			copy(y[7*i:], []float64{p[0], p[1], p[2], qq[0], qq[1], qq[2], qq[3]})
		}
		return y
	}
	f := make([]float64, 6*(n+1))
	xr := move(rest)
	ff.AddForce(f, xr, nil)
	// Forces scale like k·strain with k ~ EA = 1.6e3 N: rounding leaves 1e-9.
	if w, m := ff.PotentialEnergy(xr), maxAbsF(f); w > 1e-20 || m > 1e-9 {
		t.Errorf("rigidly moved rest shape: energy %g, max force %g; want 0", w, m)
	}
	rng := rand.New(rand.NewPCG(5, 5))
	x := randomRigid(rng, rest, 0.5, 0.05)
	f0 := make([]float64, len(f))
	ff.AddForce(f0, x, nil)
	w0 := ff.PotentialEnergy(x)
	f1 := make([]float64, len(f))
	xm := move(x)
	ff.AddForce(f1, xm, nil)
	if w1 := ff.PotentialEnergy(xm); math.Abs(w1-w0) > 1e-12*w0 {
		t.Errorf("energy changed under a rigid motion: %g → %g", w0, w1)
	}
	scale := maxAbsF(f0)
	for i := 0; i <= n; i++ {
		for part := 0; part < 2; part++ {
			want := rot.Rotate(geom.Vec3{f0[6*i+3*part], f0[6*i+3*part+1], f0[6*i+3*part+2]})
			got := geom.Vec3{f1[6*i+3*part], f1[6*i+3*part+1], f1[6*i+3*part+2]}
			if got.Sub(want).Norm() > 1e-10*scale {
				t.Errorf("frame %d part %d: force %v after a rigid motion, want the rotated %v", i, part, got, want)
			}
		}
	}
	// Net force and net torque (about the origin) vanish: internal forces.
	var fn, tn geom.Vec3
	for i := 0; i <= n; i++ {
		fi := geom.Vec3{f0[6*i], f0[6*i+1], f0[6*i+2]}
		fn = fn.Add(fi)
		tn = tn.Add(geom.Vec3{x[7*i], x[7*i+1], x[7*i+2]}.Cross(fi)).Add(geom.Vec3{f0[6*i+3], f0[6*i+4], f0[6*i+5]})
	}
	if fn.Norm() > 1e-10*scale || tn.Norm() > 1e-10*scale {
		t.Errorf("internal forces do not balance: net force %v, net torque %v", fn, tn)
	}
}

func maxAbsF(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = math.Max(m, math.Abs(x))
	}
	return m
}
