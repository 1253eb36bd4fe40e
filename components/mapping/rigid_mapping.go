package mapping

import (
	"fmt"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
)

// RigidMapping attaches points to rigid frames: a Rigid3 parent state
// (frames [t q]) maps to a Vec3 child state, point i riding on frame k(i)
// at the body-frame offset p_i:
//
//	x_i = t_k + R(q_k) p_i.
//
// With r_i = R(q_k) p_i and the world angular velocity ω_k of the Rigid3
// convention,
//
//	J:     v_i = v_k + ω_k × r_i                   (J = [I  −[r_i]×])
//	Jᵀ:    f_k += f_i,  τ_k += r_i × f_i
//	dJᵀ:   τ_k += (δθ_k × r_i) × f_i = [f_i]× [r_i]× δθ_k
//
// The last line is the exact derivative of Jᵀf under the frame perturbation
// R ← exp([δθ]×) R (which moves r_i by δθ × r_i, the translation δt leaves
// Jᵀf unchanged). It is not symmetric unless f_i ∥ r_i: it is the
// geometric stiffness of a force that keeps its world direction while the
// lever arm turns (SOFA's RigidMapping gives the same term, optionally
// symmetrised).
//
// The offsets p_i are the `points` field, or, when it is absent, the
// child's rest positions (world coordinates) expressed in the parent's
// rest frame: p_i = R(q_k,rest)ᵀ (x_i,rest − t_k,rest).
type RigidMapping struct {
	graph.ObjectBase
	MappingIO
	Points             [][3]float64 `toml:"points" doc:"offset of each child point in the body frame of its parent frame (default: the child's rest positions, taken as world coordinates and expressed in the parent's rest frame)" unit:"m"`
	Index              int          `toml:"index" doc:"the parent frame every point rides on (when rigidIndexPerPoint is not given)" range:"[0,inf)"`
	RigidIndexPerPoint []int        `toml:"rigidIndexPerPoint" doc:"the parent frame of each child point (overrides index; default with neither given: the frames a TubeTopology in the child node assigns, else frame 0)" range:"[0,inf)"`

	local []geom.Vec3 // p_i, body-frame offsets
	frame []int       // k(i)
	arm   []geom.Vec3 // r_i = R(q_k) p_i at the last Apply
	rot   []geom.Mat3 // R(q_k) at the last Apply, one per parent frame
}

func init() {
	graph.Register(graph.TypeInfo{
		Name:    "RigidMapping",
		Kind:    graph.KindMapping,
		Summary: "Points attached to rigid frames: a Rigid3 parent maps to a Vec3 child, x_i = t + R(q) p_i with p_i fixed in the body frame; forces come back as force and torque, with the exact geometric stiffness of the turning lever arm.",
		New:     func() graph.Object { return &RigidMapping{MappingIO: MappingIO{Mechanical: true}} },
	})
}

// Validate checks the fields that do not need the states.
func (m *RigidMapping) Validate() error {
	if len(m.RigidIndexPerPoint) > 0 && m.Index != 0 {
		return fmt.Errorf("give index or rigidIndexPerPoint, not both")
	}
	if len(m.RigidIndexPerPoint) > 0 && len(m.Points) > 0 && len(m.RigidIndexPerPoint) != len(m.Points) {
		return fmt.Errorf("rigidIndexPerPoint has %d entries but points has %d; give one frame per point", len(m.RigidIndexPerPoint), len(m.Points))
	}
	return nil
}

// Init resolves the states, checks the templates, works out the body-frame
// offsets and the frame of each point, sizes the child and maps the rest
// position and position onto it.
func (m *RigidMapping) Init() error {
	if err := m.Validate(); err != nil {
		return m.Wrap(err)
	}
	if err := m.resolve(&m.ObjectBase); err != nil {
		return m.Wrap(err)
	}
	if name := m.from.Template().Name(); name != graph.Rigid3.Name() {
		return m.Errorf("input state %q has template %s; RigidMapping needs Rigid3", m.from.Base().Path(), name)
	}
	if name := m.to.Template().Name(); name != graph.Vec3.Name() {
		return m.Errorf("output state %q has template %s; RigidMapping needs Vec3", m.to.Base().Path(), name)
	}
	np := m.from.Size()
	if np == 0 {
		return m.Errorf("input state %q has no frames", m.from.Base().Path())
	}
	n := len(m.Points)
	if n > 0 {
		if err := sizeChild(m.to, n, "points"); err != nil {
			return m.Wrap(err)
		}
	} else {
		n = m.to.Size()
		if n == 0 {
			return m.Errorf("no points: give points (body-frame offsets) or positions to the child MechanicalObject")
		}
	}
	m.frame = make([]int, n)
	if len(m.RigidIndexPerPoint) == 0 && m.Index == 0 && len(m.Points) == 0 {
		// A tube around a rod (TubeTopology) says which frame each point
		// rides on.
		if pt, ok := m.to.Base().Node.LocalTopology().(graph.PointFrameTopology); ok {
			m.RigidIndexPerPoint = pt.PointFrames()
		}
	}
	if len(m.RigidIndexPerPoint) > 0 {
		if len(m.RigidIndexPerPoint) != n {
			return m.Errorf("rigidIndexPerPoint has %d entries but the child state has %d points", len(m.RigidIndexPerPoint), n)
		}
		for i, k := range m.RigidIndexPerPoint {
			if k >= np {
				return m.Errorf("rigidIndexPerPoint[%d] = %d is out of range: the input state has %d frames", i, k, np)
			}
			m.frame[i] = k
		}
	} else {
		if m.Index >= np {
			return m.Errorf("index = %d is out of range: the input state has %d frames", m.Index, np)
		}
		for i := range m.frame {
			m.frame[i] = m.Index
		}
	}
	m.local = make([]geom.Vec3, n)
	if len(m.Points) > 0 {
		for i, p := range m.Points {
			m.local[i] = p
		}
	} else {
		rest, childRest := m.from.Vec(graph.RestPosition), m.to.Vec(graph.RestPosition)
		for i := range m.local {
			c := rest[7*m.frame[i] : 7*m.frame[i]+7]
			q := geom.Quat{c[3], c[4], c[5], c[6]}
			d := geom.At(childRest, i).Sub(geom.Vec3{c[0], c[1], c[2]})
			m.local[i] = q.Mat().TMulVec(d)
		}
	}
	m.arm = make([]geom.Vec3, n)
	m.rot = make([]geom.Mat3, np)
	applyRestAndPosition(m)
	return nil
}

// Apply implements graph.Mapping: x_i = t_k + R(q_k) p_i. It caches the
// rotation of every frame and the world lever arms r_i for ApplyJ,
// ApplyJT and ApplyDJT.
func (m *RigidMapping) Apply(childX, parentX []float64) {
	np := len(parentX) / 7
	if len(m.rot) != np {
		m.rot = make([]geom.Mat3, np)
	}
	for k := range m.rot {
		c := parentX[7*k : 7*k+7]
		m.rot[k] = geom.Quat{c[3], c[4], c[5], c[6]}.Mat()
	}
	for i, p := range m.local {
		k := m.frame[i]
		r := m.rot[k].MulVec(p)
		m.arm[i] = r
		c := parentX[7*k : 7*k+3]
		childX[3*i] = c[0] + r[0]
		childX[3*i+1] = c[1] + r[1]
		childX[3*i+2] = c[2] + r[2]
	}
}

// ApplyJ implements graph.Mapping: v_i = v_k + ω_k × r_i.
func (m *RigidMapping) ApplyJ(childV, parentV []float64) {
	for i, r := range m.arm {
		d := parentV[6*m.frame[i] : 6*m.frame[i]+6]
		w := geom.Vec3{d[3], d[4], d[5]}.Cross(r)
		childV[3*i] = d[0] + w[0]
		childV[3*i+1] = d[1] + w[1]
		childV[3*i+2] = d[2] + w[2]
	}
}

// ApplyJT implements graph.Mapping: f_k += f_i, τ_k += r_i × f_i.
func (m *RigidMapping) ApplyJT(parentF, childF []float64) {
	for i, r := range m.arm {
		d := parentF[6*m.frame[i] : 6*m.frame[i]+6]
		f := geom.At(childF, i)
		t := r.Cross(f)
		d[0] += f[0]
		d[1] += f[1]
		d[2] += f[2]
		d[3] += t[0]
		d[4] += t[1]
		d[5] += t[2]
	}
}

// ApplyDJT implements graph.Mapping: τ_k += kFactor·(δθ_k × r_i) × f_i, the
// change of the torque r_i × f_i when frame k turns by δθ_k (the force f_i
// held fixed), evaluated as r_i (δθ_k·f_i) − δθ_k (r_i·f_i) (vector triple
// product), which needs no cross product.
func (m *RigidMapping) ApplyDJT(parentDf, parentDx, childF []float64, kFactor float64) {
	for i, r := range m.arm {
		k := m.frame[i]
		dx := parentDx[6*k : 6*k+6]
		f := childF[3*i : 3*i+3]
		a := kFactor * (dx[3]*f[0] + dx[4]*f[1] + dx[5]*f[2])
		b := kFactor * (r[0]*f[0] + r[1]*f[1] + r[2]*f[2])
		d := parentDf[6*k : 6*k+6]
		d[3] += a*r[0] - b*dx[3]
		d[4] += a*r[1] - b*dx[4]
		d[5] += a*r[2] - b*dx[5]
	}
}

// LocalPoints returns the body-frame offsets p_i (after Init).
func (m *RigidMapping) LocalPoints() []geom.Vec3 { return m.local }
