package collision

import (
	"math"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
)

// BoxForceField is a box obstacle (a wall, a step, a table top; static, or
// translated along keyframes: ObstacleMotion): a
// cuboid of the given centre and half-sizes, turned by rotation (degrees
// about the fixed x, then y, then z axis, as MeshLoader). A point inside is
// pushed out through the nearest face, along that face's outward normal n,
// by the penalty law of Penalty with δ its distance to that face:
//
//	W = γ/2 δ²,  f = (γδ − c v·n) n,  K = −γ n nᵀ.
//
// The nearest face changes across the box's internal medial planes, where
// the force switches direction; a box much thicker than the penetrations
// never meets them in practice.
type BoxForceField struct {
	graph.ObjectBase
	Center   [3]float64 `toml:"center" doc:"centre of the box" unit:"m"`
	HalfSize [3]float64 `toml:"halfSize" doc:"half the box's extent along its own x, y and z axes" unit:"m" range:"(0,inf)" required:"true"`
	Rotation [3]float64 `toml:"rotation" doc:"orientation: rotation about the fixed x, then y, then z axis (as MeshLoader)" unit:"deg"`
	Penalty
	ObstacleMotion

	obs obstacle
}

func init() {
	graph.Register(graph.TypeInfo{
		Name: "BoxForceField",
		Kind: graph.KindForceField,
		Summary: "A possibly rotated box obstacle (center, halfSize, rotation; static, or translated along keyTimes/translations): points inside are pushed out through the nearest face by the penalty γδ (W = γ/2 δ²), " +
			"with a normal dashpot and regularised Coulomb friction.",
		New: func() graph.Object { return &BoxForceField{Penalty: defaultPenalty()} },
	})
}

// rotationMatrix returns Rz(γ)·Ry(β)·Rx(α) for angles [α, β, γ] in degrees
// (MeshLoader's convention), exactly the identity for zero angles.
func rotationMatrix(deg [3]float64) geom.Mat3 {
	if deg == [3]float64{} {
		return geom.Identity3()
	}
	axis := func(a int, d float64) geom.Mat3 {
		var v geom.Vec3
		v[a] = 1
		return geom.QuatFromAxisAngle(v, d*math.Pi/180).Mat()
	}
	return axis(2, deg[2]).Mul(axis(1, deg[1])).Mul(axis(0, deg[0]))
}

// Validate checks the penalty parameters and sets up the shape.
func (b *BoxForceField) Validate() error {
	b.obs = obstacle{pen: &b.Penalty, shape: boxShape{c: b.Center, h: b.HalfSize, r: rotationMatrix(b.Rotation)}}
	if err := b.checkMotion(); err != nil {
		return err
	}
	return b.Penalty.check()
}

// Init checks the state and takes the first step's friction data.
func (b *BoxForceField) Init() error {
	if err := b.Validate(); err != nil {
		return b.Wrap(err)
	}
	st, err := checkVec3(&b.ObjectBase, "BoxForceField")
	if err != nil {
		return err
	}
	b.initMotion(&b.obs, &b.ObjectBase)
	b.obs.lag(st.Vec(graph.Position))
	return nil
}

// BeginStep implements graph.Behavior: it places a moving obstacle for
// the step and lags the friction.
func (b *BoxForceField) BeginStep(t, dt float64) error {
	b.place(&b.obs, t, dt)
	b.obs.lag(b.Node.State().Vec(graph.Position))
	return nil
}

// AddForce implements graph.ForceField.
func (b *BoxForceField) AddForce(f, x, v []float64) { b.obs.addForce(f, x, v) }

// AddDForce implements graph.ForceField.
func (b *BoxForceField) AddDForce(df, dx []float64, kFactor, bFactor float64) {
	b.obs.addDForce(df, dx, kFactor, bFactor)
}

// PotentialEnergy implements graph.ForceField: Σ γ/2 δ² over the points inside.
func (b *BoxForceField) PotentialEnergy(x []float64) float64 { return b.obs.energy(x) }

// ContactStats implements ContactReporter.
func (b *BoxForceField) ContactStats() (int, float64) { return b.obs.contacts, b.obs.maxDepth }

type boxShape struct {
	c, h geom.Vec3
	r    geom.Mat3 // columns: the box's axes in world coordinates
}

func (s boxShape) penetration(p geom.Vec3) (float64, geom.Vec3, geom.Mat3, bool) {
	q := s.r.TMulVec(p.Sub(s.c))
	best, axis := math.Inf(1), -1
	for a := 0; a < 3; a++ {
		d := s.h[a] - math.Abs(q[a])
		if d <= 0 {
			return 0, geom.Vec3{}, geom.Mat3{}, false
		}
		if d < best {
			best, axis = d, a
		}
	}
	n := s.r.Col(axis)
	if q[axis] < 0 {
		n = n.Scale(-1)
	}
	return best, n, geom.Mat3{}, false
}

// AddKToMatrix implements graph.StiffnessAssembler: one 3×3 block per
// point in contact at the last AddForce (the penalty, and on curved
// shapes the curvature terms), so assembled solvers need not probe it.
func (p *BoxForceField) AddKToMatrix(m graph.MatrixAccumulator, kFactor float64) {
	p.obs.addKToMatrix(m, kFactor)
}

// AddBToMatrix implements graph.DampingAssembler: the dashpot and friction
// blocks of the points in contact.
func (p *BoxForceField) AddBToMatrix(m graph.MatrixAccumulator, bFactor float64) {
	p.obs.addBToMatrix(m, bFactor)
}

var (
	_ graph.StiffnessAssembler = (*BoxForceField)(nil)
	_ graph.DampingAssembler   = (*BoxForceField)(nil)
)
