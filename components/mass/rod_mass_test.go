package mass_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sofago/sofago/components/mass"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

// TestRodMassShares: a bent tube rod (RodTopology, 97 frames): the
// frames' masses add up to ρ A times the length of the frames' polyline,
// the end frames carry half an interior frame's share, AccFromF inverts
// AddMDx at randomly turned frames, and gravity is m_k g with energy
// −Σ m_k g·t_k.
func TestRodMassShares(t *testing.T) {
	s := graphtest.MustLoad(t, "rod.toml", `
gravity = [0, 0, -9.81]
[[node]]
name = "rod"
  [[node.object]]
  type = "RodTopology"
  points = [[0, 0, 0], [1, 0, 0], [2, 0.5, 0]]
  n = 97
  [[node.object]]
  type = "MechanicalObject"
  name = "frames"
  template = "Rigid3"
  [[node.object]]
  type = "RodMass"
  name = "mass"
  massDensity = 7800
  radius = 0.01
  innerRadius = 0.006
`)
	m := graphtest.Find[*mass.RodMass](t, s, "rod/mass")
	st := s.Find("rod/frames").(graph.State)
	n := st.Size()
	a := math.Pi * (0.01*0.01 - 0.006*0.006)
	length := 1 + math.Hypot(1, 0.5)
	total := 0.0
	rest := st.Vec(graph.RestPosition)
	for k := 0; k < n; k++ {
		mk, _ := m.FrameMass(k)
		total += mk
	}
	// The resampled polyline cuts the corner at (1, 0, 0): its length is
	// shorter by at most one element's sag; compare with the frames' own
	// polyline instead.
	poly := 0.0
	for k := 1; k < n; k++ {
		poly += geom.Vec3{rest[7*k], rest[7*k+1], rest[7*k+2]}.Sub(geom.Vec3{rest[7*k-7], rest[7*k-6], rest[7*k-5]}).Norm()
	}
	if math.Abs(total-7800*a*poly) > 1e-12*total || poly > length || poly < length-0.01 {
		t.Errorf("total mass %.12g, want ρ A L = %.12g (frames' polyline %.6f m, input %.6f m)", total, 7800*a*poly, poly, length)
	}
	m0, _ := m.FrameMass(0)
	m1, _ := m.FrameMass(1)
	if math.Abs(m0-m1/2) > 1e-9*m1 {
		t.Errorf("end frame mass %g, want half of %g", m0, m1)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	x := append([]float64(nil), rest...)
	for k := 0; k < n; k++ {
		q := geom.QuatFromAxisAngle(geom.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}, 2).Mul(geom.Quat{x[7*k+3], x[7*k+4], x[7*k+5], x[7*k+6]})
		x[7*k+3], x[7*k+4], x[7*k+5], x[7*k+6] = q[0], q[1], q[2], q[3]
	}
	f := make([]float64, 6*n)
	m.AddForce(f, x, nil)
	d := graphtest.RandomDeriv(rng, 6*n, 1)
	md := make([]float64, 6*n)
	m.AddMDx(md, d, 1)
	back := make([]float64, 6*n)
	m.AccFromF(back, md)
	for i := range d {
		if math.Abs(back[i]-d[i]) > 1e-9 {
			t.Fatalf("AccFromF(AddMDx(d))[%d] = %g, want %g", i, back[i], d[i])
		}
	}
	// Gravity: W = −Σ m g·t, f = m g on translations.
	w := m.PotentialEnergy(rest)
	wantW := 0.0
	for k := 0; k < n; k++ {
		mk, _ := m.FrameMass(k)
		wantW += mk * 9.81 * rest[7*k+2]
		if math.Abs(f[6*k+2]+mk*9.81) > 1e-12 {
			t.Fatalf("gravity on frame %d: %g, want %g", k, f[6*k+2], -mk*9.81)
		}
	}
	if math.Abs(w-wantW) > 1e-12 {
		t.Errorf("potential %g, want %g", w, wantW)
	}
}
