package forcefield_test

import (
	"math"
	"testing"

	"github.com/sofago/sofago/geom"
)

func TestShellTmpCylinder(t *testing.T) {
	ff, rest := loadShell(t, `
[[node]]
name = "sheet"
  [[node.object]]
  type = "CylinderGridTopology"
  radius = 25
  length = 10
  angles = [-40, 40]
  n = [11, 17]
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[node.object]]
  type = "TriangularShellForceField"
  name = "shell"
  youngModulus = 1e6
  poissonRatio = 0
  thickness = 0.25
`)
	x := make([]float64, len(rest))
	R, R2 := 25.0, 20.0
	for i := 0; i < len(rest)/3; i++ {
		p := geom.At(rest, i)
		th := math.Atan2(p[1], p[2])
		s := R * th
		geom.Put(x, i, geom.Vec3{p[0], R2 * math.Sin(s/R2), R2 * math.Cos(s/R2)})
	}
	for i := 0; i < ff.NumPatches(); i += 7 {
		K, v := ff.Curvature(i, x)
		p := geom.At(rest, v)
		// circumferential direction at p
		c := geom.Vec3{0, p[2], -p[1]}.Normalized()
		ax := geom.Vec3{1, 0, 0}
		t.Logf("v %d (x %.1f, th %.1f): k_cc %.6f (want %.6f) k_xx %.6f k_xc %.6f", v, p[0], math.Atan2(p[1], p[2])*180/math.Pi,
			c.Dot(K.MulVec(c)), -(1/R2 - 1/R), ax.Dot(K.MulVec(ax)), ax.Dot(K.MulVec(c)))
	}
}
