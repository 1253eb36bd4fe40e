package mass

import (
	"math"
	"strings"
	"testing"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

const hexMassScene = `
gravity = [0, -9.81, 0]
[[node]]
name = "body"
  [[node.object]]
  type = "RegularGridTopology"
  min = [0, 0, 0]
  max = [0.6, 0.2, 0.3]
  n = [4, 3, 2]
  elements = "hexahedra"
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[node.object]]
  type = "MASS"
  name = "mass"
  massDensity = 1200
`

// On a box hexahedron the consistent mass is the tensor product of the
// 1-D linear element's (h/6)[2 1; 1 2]: ρV/216·Π(2 or 1 per axis), so
// M_ab = ρV/27·2^(number of axes on which a and b agree)/8; the lumped
// mass gives every corner ρV/8. Checked on a 3×2×1 grid of 0.2×0.1×0.3
// boxes (every entry to 1e-15 relative: 27 Gauss terms of size ρV), and
// the consistent mass is exact for linear velocity fields: the kinetic
// energy of a rigid rotation equals ½ ω·I·ω of the box (closed form
// I = m/12 diag(b²+c², a²+c², a²+b²) about the centre).
func TestHexahedralMasses(t *testing.T) {
	s := graphtest.MustLoad(t, "m.toml", strings.Replace(hexMassScene, "MASS", "MeshMatrixMass", 1))
	cm := graphtest.Find[*MeshMatrixMass](t, s, "body/mass")
	lm := graphtest.Find[*DiagonalMass](t, graphtest.MustLoad(t, "m.toml", strings.Replace(hexMassScene, "MASS", "DiagonalMass", 1)), "body/mass")
	rho, V := 1200.0, 0.2*0.1*0.3
	rowPtr, col, val := cm.ScalarMatrix()
	pts := graphtest.Find[graph.Topology](t, s, "body/RegularGridTopology").Points()
	topo := graphtest.Find[graph.HexahedronTopology](t, s, "body/RegularGridTopology")
	// Expected scalar matrix, summed over the hexahedra.
	n := len(pts) / 3
	want := make(map[[2]int]float64)
	for _, h := range topo.Hexahedra() {
		for a := 0; a < 8; a++ {
			for b := 0; b < 8; b++ {
				ra, rb := geom.HexRef[a], geom.HexRef[b]
				f := 1.0
				for i := 0; i < 3; i++ {
					if ra[i] == rb[i] {
						f *= 2
					}
				}
				want[[2]int{h[a], h[b]}] += rho * V / 216 * f
			}
		}
	}
	for i := 0; i < n; i++ {
		for k := rowPtr[i]; k < rowPtr[i+1]; k++ {
			j := int(col[k])
			if w := want[[2]int{i, j}]; math.Abs(val[k]-w) > 1e-15*rho*V {
				t.Fatalf("M[%d][%d] = %.17g, closed form %.17g", i, j, val[k], w)
			}
			delete(want, [2]int{i, j})
		}
	}
	if len(want) != 0 {
		t.Fatalf("%d entries of the closed form missing from the matrix", len(want))
	}
	// Lumped: ρV/8 per incident hexahedron.
	count := make([]int, n)
	for _, h := range topo.Hexahedra() {
		for _, v := range h {
			count[v]++
		}
	}
	for i, m := range lm.VertexMasses() {
		if w := rho * V / 8 * float64(count[i]); math.Abs(m-w) > 1e-15*w {
			t.Errorf("lumped mass %d = %g, want %g", i, m, w)
		}
	}
	// Rigid rotation about the box centre.
	omega := geom.Vec3{0.3, -1.1, 0.7}
	c := geom.Vec3{0.3, 0.1, 0.15}
	v := make([]float64, 3*n)
	for i := 0; i < n; i++ {
		geom.Put(v, i, omega.Cross(geom.At(pts, i).Sub(c)))
	}
	m := rho * 0.6 * 0.2 * 0.3
	a, b, cc := 0.6, 0.2, 0.3
	I := geom.Vec3{m / 12 * (b*b + cc*cc), m / 12 * (a*a + cc*cc), m / 12 * (a*a + b*b)}
	wantKE := 0.5 * (I[0]*omega[0]*omega[0] + I[1]*omega[1]*omega[1] + I[2]*omega[2]*omega[2])
	if ke := cm.KineticEnergy(v); math.Abs(ke-wantKE) > 1e-13*wantKE {
		t.Errorf("consistent kinetic energy of a rotation %.15g, closed form %.15g", ke, wantKE)
	}
}
