package collision

import (
	"math"
	"testing"

	"github.com/sofago/sofago/geom"
)

// TestSphereThickness: with a collision thickness t the contact law acts
// on the sphere of radius R + t — a point at distance R + t − δ from the
// centre is pushed out along the radius by γδ (energy γδ²/2), a point
// beyond R + t feels nothing — while the drawn ball keeps radius R: every
// vertex of its surface at distance R from the centre. Closed forms;
// rounding tolerance 1e-12 relative.
func TestSphereThickness(t *testing.T) {
	const R, th, gamma = 0.4, 0.01, 2e3
	c := geom.Vec3{0.1, -0.2, 0.3}
	s := &SphereForceField{Center: c, Radius: R, Thickness: th, Penalty: Penalty{Stiffness: gamma, SlipVelocity: 1e-3}}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	n := geom.Vec3{2, -1, 2}.Scale(1.0 / 3) // unit
	const delta = 0.004                     // inside R + t, outside R
	x := []float64{0, 0, 0, 0, 0, 0}
	geom.Put(x, 0, c.Add(n.Scale(R+th-delta)))
	geom.Put(x, 1, c.Add(n.Scale(R+th+1e-4)))
	f := make([]float64, 6)
	s.AddForce(f, x, make([]float64, 6))
	want := n.Scale(gamma * delta)
	if d := geom.At(f, 0).Sub(want).Norm(); d > 1e-12*want.Norm() {
		t.Errorf("force at depth %g inside radius + thickness: %v, want γδn = %v", delta, geom.At(f, 0), want)
	}
	if got := geom.At(f, 1); got.Norm() != 0 {
		t.Errorf("force beyond radius + thickness: %v, want 0", got)
	}
	if e, want := s.PotentialEnergy(x), 0.5*gamma*delta*delta; math.Abs(e-want) > 1e-12*want {
		t.Errorf("energy %.17g, want γδ²/2 = %.17g", e, want)
	}
	pts, tris := s.ObstacleSurface()
	if len(tris) == 0 {
		t.Fatal("no drawn surface")
	}
	for i := 0; i < len(pts)/3; i++ {
		if r := geom.At(pts, i).Sub(c).Norm(); math.Abs(r-R) > 1e-12*R {
			t.Fatalf("drawn vertex %d at distance %.17g from the centre, want the radius %g (not radius + thickness)", i, r, R)
		}
	}
}
