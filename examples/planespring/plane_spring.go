// Package planespring is an example of a component kept outside the
// framework's component packages: a force field that registers itself from
// init(), so a program gets it by importing the package blank.
package planespring

import "github.com/sofago/sofago/graph"

// PlaneSpring pulls every point of a Vec3 state toward the plane
// y = Height with stiffness K: W = ½K Σ (yᵢ − Height)².
type PlaneSpring struct {
	graph.ObjectBase
	K      float64 `toml:"stiffness" doc:"spring stiffness" unit:"N/m" range:"[0,inf)"`
	Height float64 `toml:"height" doc:"height of the plane" unit:"m"`
}

func init() {
	graph.Register(graph.TypeInfo{Name: "PlaneSpring", Kind: graph.KindForceField,
		Summary: "Pulls the points of a Vec3 state toward the plane y = height: W = ½k Σ (yᵢ − height)².",
		New:     func() graph.Object { return &PlaneSpring{K: 100} }})
}

// Init checks that its node holds a Vec3 state: the loops below assume
// three numbers per point.
func (p *PlaneSpring) Init() error {
	st := p.Node.State()
	if st == nil || st.Template().Name() != graph.Vec3.Name() {
		return p.Errorf("needs a Vec3 MechanicalObject in the same node")
	}
	return nil
}

// AddForce adds f = −∂W/∂x = −K (y − Height) to the y component of each point.
func (p *PlaneSpring) AddForce(f, x, v []float64) {
	for i := 1; i < len(x); i += 3 {
		f[i] -= p.K * (x[i] - p.Height)
	}
}

// AddDForce adds kFactor·K·dx, the stiffness −K on each y component.
func (p *PlaneSpring) AddDForce(df, dx []float64, kFactor, bFactor float64) {
	for i := 1; i < len(dx); i += 3 {
		df[i] -= kFactor * p.K * dx[i]
	}
}

// PotentialEnergy returns W = ½K Σ (yᵢ − Height)².
func (p *PlaneSpring) PotentialEnergy(x []float64) (w float64) {
	for i := 1; i < len(x); i += 3 {
		w += 0.5 * p.K * (x[i] - p.Height) * (x[i] - p.Height)
	}
	return w
}
