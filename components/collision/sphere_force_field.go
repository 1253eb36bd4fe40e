package collision

import (
	"math"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
)

// SphereForceField (SOFA's name) is a ball obstacle (static, or translated
// along keyframes: ObstacleMotion) of centre c and
// radius R: points inside are pushed out radially by the penalty law of
// Penalty, with r = |x − c|, n = (x − c)/r, δ = R − r:
//
//	W = γ/2 δ²,  f = (γδ − c_d v·n) n,
//	K = −γ n nᵀ − c_d n (H v)ᵀ + λ H,  H = ∂n/∂x = (I − n nᵀ)/r,
//
// the λH term being the turning of the normal as a point slides sideways
// (SOFA's SphereForceField has the same tangent).
//
// Thickness t (default 0) is a collision thickness: the points are kept at
// R + t from the centre (R replaced by R + t above) while pictures draw
// the ball of radius R. A shell or cloth whose mid-surface carries the
// points then rests on the ball at its half thickness instead of sinking
// its drawn triangles (chords between points on the sphere) into it.
type SphereForceField struct {
	graph.ObjectBase
	Center    [3]float64 `toml:"center" doc:"centre of the sphere" unit:"m"`
	Radius    float64    `toml:"radius" doc:"radius of the sphere" unit:"m" range:"(0,inf)" required:"true"`
	Thickness float64    `toml:"thickness" doc:"collision thickness: points are pushed out to radius + thickness from the centre (e.g. half a shell's thickness, which keeps its drawn triangles outside the ball); pictures draw the ball at radius" unit:"m" range:"[0,inf)"`
	Penalty
	ObstacleMotion

	obs obstacle
}

func init() {
	graph.Register(graph.TypeInfo{
		Name: "SphereForceField",
		Kind: graph.KindForceField,
		Summary: "A ball obstacle (center, radius; static, or translated along keyTimes/translations): points inside are pushed out radially by the penalty γδ (W = γ/2 δ²) with a normal dashpot and regularised Coulomb friction; " +
			"exact tangent including the turning of the normal; optional collision thickness (points kept at radius + thickness, the ball drawn at radius).",
		New: func() graph.Object { return &SphereForceField{Penalty: defaultPenalty()} },
	})
}

// Validate checks the penalty parameters.
func (s *SphereForceField) Validate() error {
	s.obs = obstacle{pen: &s.Penalty, shape: sphereShape{c: s.Center, r: s.Radius + s.Thickness}}
	if err := s.checkMotion(); err != nil {
		return err
	}
	return s.Penalty.check()
}

// Init checks the state and takes the first step's friction data.
func (s *SphereForceField) Init() error {
	if err := s.Validate(); err != nil {
		return s.Wrap(err)
	}
	st, err := checkVec3(&s.ObjectBase, "SphereForceField")
	if err != nil {
		return err
	}
	s.initMotion(&s.obs, &s.ObjectBase)
	s.obs.lag(st.Vec(graph.Position))
	return nil
}

// BeginStep implements graph.Behavior: it places a moving obstacle for
// the step and lags the friction.
func (s *SphereForceField) BeginStep(t, dt float64) error {
	s.place(&s.obs, t, dt)
	s.obs.lag(s.Node.State().Vec(graph.Position))
	return nil
}

// AddForce implements graph.ForceField.
func (s *SphereForceField) AddForce(f, x, v []float64) { s.obs.addForce(f, x, v) }

// AddDForce implements graph.ForceField.
func (s *SphereForceField) AddDForce(df, dx []float64, kFactor, bFactor float64) {
	s.obs.addDForce(df, dx, kFactor, bFactor)
}

// PotentialEnergy implements graph.ForceField: Σ γ/2 δ² over the points inside.
func (s *SphereForceField) PotentialEnergy(x []float64) float64 { return s.obs.energy(x) }

// ContactStats implements ContactReporter.
func (s *SphereForceField) ContactStats() (int, float64) { return s.obs.contacts, s.obs.maxDepth }

type sphereShape struct {
	c geom.Vec3
	r float64
}

func (s sphereShape) penetration(p geom.Vec3) (float64, geom.Vec3, geom.Mat3, bool) {
	d := p.Sub(s.c)
	r2 := d.Norm2()
	if r2 >= s.r*s.r {
		return 0, geom.Vec3{}, geom.Mat3{}, false
	}
	r := math.Sqrt(r2)
	if r == 0 {
		// The centre itself: any direction is nearest; take +z, no curvature.
		return s.r, geom.Vec3{0, 0, 1}, geom.Mat3{}, false
	}
	n := d.Scale(1 / r)
	h := geom.Identity3().Sub(n.Outer(n)).Scale(1 / r)
	return s.r - r, n, h, true
}

// AddKToMatrix implements graph.StiffnessAssembler: one 3×3 block per
// point in contact at the last AddForce (the penalty, and on curved
// shapes the curvature terms), so assembled solvers need not probe it.
func (p *SphereForceField) AddKToMatrix(m graph.MatrixAccumulator, kFactor float64) {
	p.obs.addKToMatrix(m, kFactor)
}

// AddBToMatrix implements graph.DampingAssembler: the dashpot and friction
// blocks of the points in contact.
func (p *SphereForceField) AddBToMatrix(m graph.MatrixAccumulator, bFactor float64) {
	p.obs.addBToMatrix(m, bFactor)
}

var (
	_ graph.StiffnessAssembler = (*SphereForceField)(nil)
	_ graph.DampingAssembler   = (*SphereForceField)(nil)
)
