package forcefield_test

// This file is the README's "Writing a new force field" example, compiled
// and tested so that the README cannot drift from working code.

import (
	"testing"

	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

// PlaneSpring pulls every point toward the plane y = Height with stiffness K: W = ½K Σ (yᵢ − Height)².
type PlaneSpring struct {
	graph.ObjectBase
	K      float64 `toml:"stiffness" doc:"spring stiffness" unit:"N/m" range:"[0,inf)"`
	Height float64 `toml:"height" doc:"height of the plane" unit:"m"`
}

func init() {
	graph.Register(graph.TypeInfo{Name: "PlaneSpring", Kind: graph.KindForceField,
		Summary: "Pulls points toward a horizontal plane.",
		New:     func() graph.Object { return &PlaneSpring{K: 100} }})
}

func (p *PlaneSpring) AddForce(f, x, v []float64) {
	for i := 1; i < len(x); i += 3 {
		f[i] -= p.K * (x[i] - p.Height)
	}
}
func (p *PlaneSpring) AddDForce(df, dx []float64, kFactor, bFactor float64) {
	for i := 1; i < len(dx); i += 3 {
		df[i] -= kFactor * p.K * dx[i]
	}
}
func (p *PlaneSpring) PotentialEnergy(x []float64) (w float64) {
	for i := 1; i < len(x); i += 3 {
		w += 0.5 * p.K * (x[i] - p.Height) * (x[i] - p.Height)
	}
	return w
}

func TestPlaneSpringExample(t *testing.T) {
	s := graphtest.MustLoad(t, "plane.toml", `
[[node]]
name = "points"
  [[node.object]]
  type = "MechanicalObject"
  position = [[0, 1, 0], [1, -2, 0.5]]
  [[node.object]]
  type = "PlaneSpring"
  name = "spring"
  stiffness = 250
  height = 0.5
`)
	ff := graphtest.Find[graph.ForceField](t, s, "points/spring")
	st := graphtest.Find[graph.State](t, s, "points/MechanicalObject")
	graphtest.CheckForceField(t, ff, graph.Vec3, st.Vec(graph.Position), nil, graphtest.Options{})
}
