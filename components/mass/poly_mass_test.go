package mass

import (
	"math"
	"strings"
	"testing"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph/graphtest"
)

const polyMassScene = `
gravity = [0, -9.81, 0]
[[node]]
name = "body"
  [[node.object]]
  type = "PolyhedralTopology"
  generator = "voronoi"
  min = [0, 0, 0]
  max = [0.6, 0.2, 0.3]
  n = [3, 1, 2]
  jitter = 0.2
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[node.object]]
  type = "MASS"
  name = "mass"
  massDensity = 1200
`

// Masses on a Voronoi mesh: the consistent mass integrates ρ|v|² exactly
// for linear velocity fields (the harmonic shape functions reproduce
// them, and the degree-2 rule integrates their square exactly on every
// tetrahedron of the subdivision), so the kinetic energy of a rigid
// rotation is the box's ½ ω·I·ω (1e-13); the lumped masses (row sums)
// add up to ρV and are positive.
func TestPolyhedralMasses(t *testing.T) {
	s := graphtest.MustLoad(t, "m.toml", strings.Replace(polyMassScene, "MASS", "MeshMatrixMass", 1))
	cm := graphtest.Find[*MeshMatrixMass](t, s, "body/mass")
	pts := s.States()[0].Vec(0)
	n := len(pts) / 3
	rho := 1200.0
	a, b, c := 0.6, 0.2, 0.3
	m := rho * a * b * c
	omega := geom.Vec3{0.3, -1.1, 0.7}
	ctr := geom.Vec3{a / 2, b / 2, c / 2}
	v := make([]float64, 3*n)
	for i := 0; i < n; i++ {
		geom.Put(v, i, omega.Cross(geom.At(pts, i).Sub(ctr)))
	}
	I := geom.Vec3{m / 12 * (b*b + c*c), m / 12 * (a*a + c*c), m / 12 * (a*a + b*b)}
	want := 0.5 * (I[0]*omega[0]*omega[0] + I[1]*omega[1]*omega[1] + I[2]*omega[2]*omega[2])
	if ke := cm.KineticEnergy(v); math.Abs(ke-want) > 1e-13*want {
		t.Errorf("consistent kinetic energy of a rotation %.15g, closed form %.15g", ke, want)
	}
	lm := graphtest.Find[*DiagonalMass](t, graphtest.MustLoad(t, "m.toml", strings.Replace(polyMassScene, "MASS", "DiagonalMass", 1)), "body/mass")
	total := 0.0
	for i, mi := range lm.VertexMasses() {
		if !(mi > 0) {
			t.Errorf("vertex %d has lumped mass %g", i, mi)
		}
		total += mi
	}
	if math.Abs(total-m) > 1e-13*m {
		t.Errorf("lumped masses add up to %.15g, ρV = %.15g", total, m)
	}
}
