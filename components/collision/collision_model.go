package collision

import (
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
)

// model is what PointCollisionModel and TriangleCollisionModel share: the
// collision geometry of one Vec3 state (points, and for triangle models a
// closed surface), its bounding-volume hierarchies, and the contact forces
// a CollisionPipeline gives it each step.
//
// A model is a force field on its own state, which is how contact forces
// reach objects integrated by any solver: its AddForce adds
//
//   - the forces held for the step from contacts with objects of other
//     solvers (explicit coupling: computed once at detection, constant
//     during the step), and
//   - the forces of its contacts with static objects (no solver), evaluated
//     at the current positions with their stiffness in AddDForce (implicit:
//     the static side does not move).
//
// Contacts between objects of one solver are not here but in the
// interaction force field the pipeline adds to that solver's node
// (implicit on both sides). Forces on a mapped state go up through ApplyJT
// like any other force.
type model struct {
	base  *graph.ObjectBase
	state graph.State
	surf  *surface // nil for point models
	// points are the DOFs that can penetrate other objects.
	points []int32
	self   bool // self-contact (triangle models only)
	group  int

	ptTree  *bvh        // over points
	triTree *bvh        // over triangles (triangle models)
	solver  *graph.Node // node of the ODE solver integrating it; nil: static
	claimed *graph.ObjectBase

	// Per point (index into points): the best candidate of the current
	// pair (squared distance, triangle), reset after each pair.
	bestD2  []float64
	bestTri []int32
	touched []int32

	held     []float64 // explicit forces of the step, 3 per DOF of the state
	hasHeld  bool
	oneSided contactSet // live contacts against static objects
	fs, xs   [1][]float64
	vs       [1][]float64
}

// setup builds the model's geometry from its state (points) and, for
// triangle models, the given triangles.
func (m *model) setup(b *graph.ObjectBase, st graph.State, points []int32, tris [][3]int, pen *Penalty) error {
	m.base, m.state = b, st
	x := st.Vec(graph.Position)
	if tris != nil {
		s, err := newSurface(tris, st.Size())
		if err != nil {
			return err
		}
		m.surf = s
		points = s.verts
		cent := make([]geom.Vec3, len(s.tris))
		for t := range s.tris {
			a, bb, c := s.corners(int32(t), x)
			cent[t] = a.Add(bb).Add(c).Scale(1.0 / 3)
		}
		m.triTree = buildBVH(cent, 8)
	}
	m.points = points
	cent := make([]geom.Vec3, len(points))
	for i, p := range points {
		cent[i] = geom.At(x, int(p))
	}
	m.ptTree = buildBVH(cent, 8)
	m.bestD2 = make([]float64, len(points))
	for i := range m.bestD2 {
		m.bestD2[i] = inf
	}
	m.bestTri = make([]int32, len(points))
	m.held = make([]float64, 3*st.Size())
	m.oneSided = contactSet{pen: pen}
	m.refit()
	return nil
}

// refit updates the hierarchies to the current positions.
func (m *model) refit() {
	x := m.state.Vec(graph.Position)
	m.ptTree.refitPoints(x, m.points)
	if m.triTree != nil {
		m.triTree.refitTriangles(x, m.surf.tris)
		m.surf.newPositions()
	}
}

// clear drops the previous step's contacts.
func (m *model) clear() {
	if m.hasHeld {
		clear(m.held)
		m.hasHeld = false
	}
	m.oneSided.reset()
}

func (m *model) addForce(f, x, v []float64) {
	if m.hasHeld {
		for i, h := range m.held {
			f[i] += h
		}
	}
	if len(m.oneSided.list) > 0 {
		m.fs[0], m.xs[0], m.vs[0] = f, x, v
		m.oneSided.addForce(m.fs[:], m.xs[:], m.vs[:])
	}
}

func (m *model) addDForce(df, dx []float64, kFactor, bFactor float64) {
	if len(m.oneSided.list) > 0 {
		m.fs[0], m.xs[0] = df, dx
		m.oneSided.addDForce(m.fs[:], m.xs[:], kFactor, bFactor)
	}
}

// oneState is the offsets of the one-sided contacts' single slot.
var oneState = []int{0}

// addKToMatrix writes kFactor·K of the live contacts against static
// objects (−γ n nᵀ blocks between each contact's participants), as
// addDForce applies it with bFactor = 0.
func (m *model) addKToMatrix(acc graph.MatrixAccumulator, kFactor float64) {
	m.oneSided.addToMatrix(acc, oneState, kFactor, 0, 0)
}

// addBToMatrix writes bFactor·B of the live contacts against static
// objects (the dashpot's −c n nᵀ, the friction's velocity derivative),
// as addDForce applies it with kFactor = 0.
func (m *model) addBToMatrix(acc graph.MatrixAccumulator, bFactor float64) {
	m.oneSided.addToMatrix(acc, oneState, 0, bFactor, bFactor)
}

func (m *model) energy(x []float64) float64 {
	if len(m.oneSided.list) == 0 {
		return 0
	}
	m.xs[0] = x
	return m.oneSided.energy(m.xs[:])
}

// solverOf returns the node of the ODE solver that integrates node n (the
// nearest ancestor, or n itself, holding one), or nil.
func solverOf(n *graph.Node) *graph.Node {
	for p := n; p != nil; p = p.Parent {
		if p.ODESolver() != nil {
			return p
		}
	}
	return nil
}
