package collision

import (
	"math"

	"fmt"

	"github.com/sofago/sofago/components/topology"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/meshio"
)

// MeshObstacleForceField is an obstacle of any shape (static, or translated
// along keyframes: ObstacleMotion): the volume
// enclosed by a closed triangle surface read from a file (STL, OBJ, or the
// boundary of a tetrahedral mesh; meshio.Read through MeshLoader, with the
// same scale3d, rotation and translation). A point of the Vec3 state inside
// it is pushed toward its nearest surface point c by the penalty law of
// Penalty, δ = |c − x|, n the outward normal there:
//
//	W = γ/2 δ²,  f = (γδ − c_d v·n) n,  K = −γ n nᵀ − c_d n (H v)ᵀ + λ H,
//
// with H = ∂n/∂x = 0 when c is inside a face, −(I − n nᵀ − e eᵀ)/δ on an
// edge of direction e and −(I − n nᵀ)/δ at a vertex (n then turns as the
// point moves). Inside/outside comes from the angle-weighted pseudo-normal
// at c (Bærentzen & Aanæs 2005), exact for a closed manifold; nearest
// points come from a bounding-volume hierarchy built once (the obstacle
// does not move), O(log n) per point inside the surface's bounding box.
type MeshObstacleForceField struct {
	graph.ObjectBase
	Filename    string     `toml:"filename" doc:"closed surface, relative to the scene file: .stl, .obj, or a tetrahedral mesh (.msh, .vtk, .node, .veg) whose boundary is used" required:"true"`
	Translation [3]float64 `toml:"translation" doc:"translation added to every point, after scale and rotation" unit:"m"`
	Rotation    [3]float64 `toml:"rotation" doc:"rotation about the fixed x, then y, then z axis, after scale (as MeshLoader)" unit:"deg"`
	Scale3d     [3]float64 `toml:"scale3d" doc:"scale factor along x, y and z, applied first"`
	Penalty
	ObstacleMotion

	shape *meshShape
	obs   obstacle
}

func init() {
	graph.Register(graph.TypeInfo{
		Name: "MeshObstacleForceField",
		Kind: graph.KindForceField,
		Summary: "An obstacle (static, or translated along keyTimes/translations) bounded by a closed triangle surface from a file (STL, OBJ, or a tetrahedral mesh's boundary): points inside are pushed to the nearest surface point by the penalty γδ, " +
			"with a normal dashpot and regularised Coulomb friction; inside/outside by angle-weighted pseudo-normals, nearest points by a bounding-volume hierarchy.",
		New: func() graph.Object {
			return &MeshObstacleForceField{Scale3d: [3]float64{1, 1, 1}, Penalty: defaultPenalty()}
		},
	})
}

// Validate checks the penalty parameters and the loader fields.
func (m *MeshObstacleForceField) Validate() error {
	if err := m.Penalty.check(); err != nil {
		return err
	}
	if err := m.checkMotion(); err != nil {
		return err
	}
	return m.loader().Validate()
}

func (m *MeshObstacleForceField) loader() *topology.MeshLoader {
	l := &topology.MeshLoader{Filename: m.Filename, Translation: m.Translation, Rotation: m.Rotation, Scale3d: m.Scale3d}
	l.Node, l.Name, l.TypeName, l.File, l.Line = m.Node, m.Name, m.TypeName, m.File, m.Line
	return l
}

// Init reads the surface, checks that it is closed, builds its hierarchy
// and takes the first step's friction data.
func (m *MeshObstacleForceField) Init() error {
	if err := m.Validate(); err != nil {
		return m.Wrap(err)
	}
	st, err := checkVec3(&m.ObjectBase, "MeshObstacleForceField")
	if err != nil {
		return err
	}
	l := m.loader()
	if err := l.Init(); err != nil {
		return m.Wrap(err)
	}
	if err := m.setMesh(l.Points(), l.Triangles()); err != nil {
		return m.Errorf("%s: %v", m.Filename, err)
	}
	m.initMotion(&m.obs, &m.ObjectBase)
	m.obs.lag(st.Vec(graph.Position))
	return nil
}

// setMesh builds the obstacle from surface points and outward triangles.
func (m *MeshObstacleForceField) setMesh(points []float64, tris [][3]int) error {
	s, err := newMeshShape(points, tris)
	if err != nil {
		return err
	}
	m.shape = s
	m.obs = obstacle{pen: &m.Penalty, shape: s}
	return nil
}

// BeginStep implements graph.Behavior: it places a moving obstacle for
// the step and lags the friction.
func (m *MeshObstacleForceField) BeginStep(t, dt float64) error {
	m.place(&m.obs, t, dt)
	m.obs.lag(m.Node.State().Vec(graph.Position))
	return nil
}

// AddForce implements graph.ForceField.
func (m *MeshObstacleForceField) AddForce(f, x, v []float64) { m.obs.addForce(f, x, v) }

// AddDForce implements graph.ForceField.
func (m *MeshObstacleForceField) AddDForce(df, dx []float64, kFactor, bFactor float64) {
	m.obs.addDForce(df, dx, kFactor, bFactor)
}

// PotentialEnergy implements graph.ForceField: Σ γ/2 δ² over the points inside.
func (m *MeshObstacleForceField) PotentialEnergy(x []float64) float64 { return m.obs.energy(x) }

// ContactStats implements ContactReporter.
func (m *MeshObstacleForceField) ContactStats() (int, float64) {
	return m.obs.contacts, m.obs.maxDepth
}

// meshShape is the inside of a closed static triangle surface.
type meshShape struct {
	x     []float64
	surf  *surface
	tree  *bvh
	stack []bvhEntry
	tiny  float64 // distances below this count as on the surface (no curvature term)
}

func newMeshShape(points []float64, tris [][3]int) (*meshShape, error) {
	surf, err := newSurface(tris, len(points)/3)
	if err != nil {
		return nil, err
	}
	s := &meshShape{x: append([]float64(nil), points...), surf: surf}
	cent := make([]geom.Vec3, len(surf.tris))
	for t := range surf.tris {
		a, b, c := surf.corners(int32(t), s.x)
		cent[t] = a.Add(b).Add(c).Scale(1.0 / 3)
	}
	s.tree = buildBVH(cent, 4)
	s.tree.refitTriangles(s.x, surf.tris)
	root := &s.tree.nodes[0]
	s.tiny = 1e-9 * root.size()
	if vol := (&meshio.Mesh{Points: s.x, Triangles: tris}).EnclosedVolume(); !(vol > 0) {
		return nil, fmt.Errorf("the surface encloses a volume of %g: its triangles must be oriented outwards", vol)
	}
	return s, nil
}

func (s *meshShape) penetration(p geom.Vec3) (float64, geom.Vec3, geom.Mat3, bool) {
	if boxDist2(&s.tree.nodes[0], p) > 0 {
		return 0, geom.Vec3{}, geom.Mat3{}, false
	}
	query := triQuery{p: p, x: s.x, s: s.surf, exclude: -1, best: -1, bestD2: math.Inf(1)}
	query.nearest(s.tree, -1, &s.stack)
	t := query.best
	if t < 0 {
		return 0, geom.Vec3{}, geom.Mat3{}, false
	}
	a, b, c := s.surf.corners(t, s.x)
	q, _, feat := closestOnTriangle(p, a, b, c)
	d, n := s.surf.signedContact(p, q, t, feat, s.x)
	if d <= 0 || feat == featFace || d < s.tiny {
		return d, n, geom.Mat3{}, false
	}
	// Edge or vertex: n = (c − x)/δ turns as x moves.
	h := geom.Identity3().Sub(n.Outer(n))
	if feat >= featEdge01 {
		e0 := int(feat - featEdge01)
		tr := s.surf.tris[t]
		e := geom.At(s.x, int(tr[(e0+1)%3])).Sub(geom.At(s.x, int(tr[e0]))).Normalized()
		h = h.Sub(e.Outer(e))
	}
	return d, n, h.Scale(-1 / d), true
}

// AddKToMatrix implements graph.StiffnessAssembler: one 3×3 block per
// point in contact at the last AddForce (the penalty, and on curved
// shapes the curvature terms), so assembled solvers need not probe it.
func (p *MeshObstacleForceField) AddKToMatrix(m graph.MatrixAccumulator, kFactor float64) {
	p.obs.addKToMatrix(m, kFactor)
}

// AddBToMatrix implements graph.DampingAssembler: the dashpot and friction
// blocks of the points in contact.
func (p *MeshObstacleForceField) AddBToMatrix(m graph.MatrixAccumulator, bFactor float64) {
	p.obs.addBToMatrix(m, bFactor)
}

var (
	_ graph.StiffnessAssembler = (*MeshObstacleForceField)(nil)
	_ graph.DampingAssembler   = (*MeshObstacleForceField)(nil)
)
