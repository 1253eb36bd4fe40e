package collision

import (
	"fmt"
	"math"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
)

// PlaneForceField (SOFA's name) is a half-space obstacle (static, or
// translated along keyframes: ObstacleMotion): the points
// of a Vec3 state below the plane n·x = d (n normalised) are pushed back
// along n by the penalty law of Penalty, with δ = d − n·x:
//
//	W = γ/2 δ²,  f = (γδ − c v·n) n,  K = −γ n nᵀ,  B = −c n nᵀ,
//
// plus regularised Coulomb friction. It is the lecture notes' W_plane =
// γ/2 ((x − b)·n)² with b any point of the plane. As any force field it
// acts on mapped states too: on the surface points of a rigid body
// (RigidMapping) or of a reduced model, the forces go up through ApplyJT.
type PlaneForceField struct {
	graph.ObjectBase
	Normal [3]float64 `toml:"normal" doc:"normal of the plane, pointing out of the obstacle into the free side (normalised on load)"`
	D      float64    `toml:"d" doc:"plane offset: the plane is n·x = d for the normalised n; points with n·x < d are inside" unit:"m"`
	Penalty
	ObstacleMotion

	n   geom.Vec3
	obs obstacle
}

func init() {
	graph.Register(graph.TypeInfo{
		Name: "PlaneForceField",
		Kind: graph.KindForceField,
		Summary: "A plane obstacle n·x = d (static, or translated along keyTimes/translations): points behind it are pushed out by the penalty γδ (W = γ/2 δ²) with a normal dashpot and regularised Coulomb friction; " +
			"the contact stiffness (and friction's velocity derivative) is in AddDForce, so implicit solvers take stiff contacts.",
		New: func() graph.Object { return &PlaneForceField{Normal: [3]float64{0, 1, 0}, Penalty: defaultPenalty()} },
	})
}

// Validate normalises the normal and checks the penalty parameters.
func (p *PlaneForceField) Validate() error {
	n := geom.Vec3(p.Normal)
	l := n.Norm()
	if !(l > 0) || math.IsInf(l, 0) {
		return fmt.Errorf("normal = %v must be a non-zero vector", p.Normal)
	}
	p.n = n.Scale(1 / l)
	p.obs = obstacle{pen: &p.Penalty, shape: planeShape{n: p.n, d: p.D}}
	if err := p.checkMotion(); err != nil {
		return err
	}
	return p.Penalty.check()
}

// Init checks the state and takes the first step's friction data.
func (p *PlaneForceField) Init() error {
	if err := p.Validate(); err != nil {
		return p.Wrap(err)
	}
	st, err := checkVec3(&p.ObjectBase, "PlaneForceField")
	if err != nil {
		return err
	}
	p.initMotion(&p.obs, &p.ObjectBase)
	p.obs.lag(st.Vec(graph.Position))
	return nil
}

// BeginStep implements graph.Behavior: it places a moving obstacle for
// the step and lags the friction.
func (p *PlaneForceField) BeginStep(t, dt float64) error {
	p.place(&p.obs, t, dt)
	p.obs.lag(p.Node.State().Vec(graph.Position))
	return nil
}

// AddForce implements graph.ForceField.
func (p *PlaneForceField) AddForce(f, x, v []float64) { p.obs.addForce(f, x, v) }

// AddDForce implements graph.ForceField.
func (p *PlaneForceField) AddDForce(df, dx []float64, kFactor, bFactor float64) {
	p.obs.addDForce(df, dx, kFactor, bFactor)
}

// PotentialEnergy implements graph.ForceField: Σ γ/2 δ² over the points behind the plane.
func (p *PlaneForceField) PotentialEnergy(x []float64) float64 { return p.obs.energy(x) }

// ContactStats implements ContactReporter.
func (p *PlaneForceField) ContactStats() (int, float64) { return p.obs.contacts, p.obs.maxDepth }

// planeShape is the half-space n·x < d.
type planeShape struct {
	n geom.Vec3
	d float64
}

func (s planeShape) penetration(p geom.Vec3) (float64, geom.Vec3, geom.Mat3, bool) {
	return s.d - s.n.Dot(p), s.n, geom.Mat3{}, false
}

// AddKToMatrix implements graph.StiffnessAssembler: one 3×3 block per
// point in contact at the last AddForce (the penalty, and on curved
// shapes the curvature terms), so assembled solvers need not probe it.
func (p *PlaneForceField) AddKToMatrix(m graph.MatrixAccumulator, kFactor float64) {
	p.obs.addKToMatrix(m, kFactor)
}

// AddBToMatrix implements graph.DampingAssembler: the dashpot and friction
// blocks of the points in contact.
func (p *PlaneForceField) AddBToMatrix(m graph.MatrixAccumulator, bFactor float64) {
	p.obs.addBToMatrix(m, bFactor)
}

var (
	_ graph.StiffnessAssembler = (*PlaneForceField)(nil)
	_ graph.DampingAssembler   = (*PlaneForceField)(nil)
)
