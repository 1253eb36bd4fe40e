package forcefield

import (
	"errors"
	"fmt"
	"math"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/springnet"
)

// JointSpringForceField joins rigid bodies by 6-D articulation springs
// (SOFA's JointSpringForceField): between frames of two Rigid3 states
// (object1, object2), or between two frames of one state.
//
// Each spring joins frame m1 of object1 (body 1) to frame m2 of object2
// (body 2). Its rest offset is body 2's pose in body 1's frame —
// restTranslation and restRotation (a quaternion [x y z w] or a rotation
// vector), by default the offset of the two bodies' rest positions — so it
// is invariant under rigid motions of the pair. The joint sits at anchor
// (in body 1's frame; by default halfway between the two origins at rest)
// and carries two joint frames, one fixed to each body, that coincide at
// rest with body 1's axes there. The gap between them, measured in the
// frame halfway between them (springnet.Link: translation d, rotation
// vector φ of the relative rotation), carries the energy
//
//	W = ½ Σ_a kTranslation_a d_a² + ½ Σ_a kRotation_a φ_a²
//	    + ½ blockingStiffness Σ_a (φ_a − clamp(φ_a, limitMin_a, limitMax_a))²,
//
// per axis of the joint frame: stiff translation and two stiff rotation
// axes make a hinge about the third, whose angle is limited by the
// blocking stiffness beyond [limitMin, limitMax] (radians; the components
// of φ are the joint angles for a rotation about one axis). The forces
// are −∂W/∂x (they balance: no net force or torque on the pair), the
// tangent K is their exact derivative, rotation terms included. Damping
// is a dissipation ½ translationalDamping |Δv|² + ½ rotationalDamping
// |Δω|² of the relative velocity of the two bodies at the joint and of
// their relative angular velocity, applied at the joint (balanced too),
// with B = ∂f/∂v and its position derivative in K.
//
// Compared with SOFA's component of this name: SOFA expresses the rest
// offset (initTrans, initRot) in world coordinates, so rotating the whole
// articulated body strains its joints; its addDForce adds only the
// diagonal stiffness (no coupling between the bodies' rotations and
// translations, none of the terms of a turning joint frame), so Newton
// and implicit steps converge slowly or not at all at large rotations;
// and it has no energy. Here the offset is in body 1's frame (rotation
// invariant), the tangent is exact and the energy is defined (the
// finite-difference fixtures check force = −∇W and K = ∂f/∂x, beyond the
// limits too).
//
// It is an interaction force field over one state (object1 = object2, or
// neither given: the state of this node) or two; it may sit in any node
// of the subtree of the solver that integrates its states.
type JointSpringForceField struct {
	graph.ObjectBase
	Object1 graph.Link    `toml:"object1" doc:"Rigid3 state of the first body of every spring (m1 indexes it); default: the state of this node"`
	Object2 graph.Link    `toml:"object2" doc:"Rigid3 state of the second body (m2 indexes it); default: object1"`
	Springs []JointSpring `toml:"springs" doc:"the springs, each a table: m1, m2 (frame indices), kTranslation [3] (N/m), kRotation [3] (N·m/rad), translationalDamping (N·s/m), rotationalDamping (N·m·s/rad), limitMin/limitMax [3] (rad, with blockingStiffness N·m/rad), anchor [3] (m, body 1's frame), restTranslation [3] (m, body 1's frame), restRotation [4] quaternion or [3] rotation vector (body 1's frame)" required:"true"`

	states   []graph.State
	idx      [2]int // index of object1 and object2 in states
	laws     []springnet.AxisLaw
	attach   [][2]springnet.Attachment
	tangent  [][12][12]float64 // K per spring at the last AddForce
	damping  [][12][12]float64 // B per spring at the last AddForce
	res      springnet.Result
	hasDamps bool
}

// JointSpring is one spring of a JointSpringForceField (see there).
type JointSpring struct {
	M1                   int        `toml:"m1" doc:"frame of object1 (body 1)" range:"[0,inf)" required:"true"`
	M2                   int        `toml:"m2" doc:"frame of object2 (body 2)" range:"[0,inf)" required:"true"`
	KTranslation         [3]float64 `toml:"kTranslation" doc:"translational stiffness along each joint axis" unit:"N/m" range:"[0,inf)"`
	KRotation            [3]float64 `toml:"kRotation" doc:"rotational stiffness about each joint axis" unit:"N·m/rad" range:"[0,inf)"`
	TranslationalDamping float64    `toml:"translationalDamping" doc:"damping of the relative velocity at the joint" unit:"N·s/m" range:"[0,inf)"`
	RotationalDamping    float64    `toml:"rotationalDamping" doc:"damping of the relative angular velocity" unit:"N·m·s/rad" range:"[0,inf)"`
	LimitMin             []float64  `toml:"limitMin" doc:"lower angle limit about each joint axis (3 values; with limitMax and blockingStiffness)" unit:"rad" range:"[-3.141592653589793,3.141592653589793]"`
	LimitMax             []float64  `toml:"limitMax" doc:"upper angle limit about each joint axis (3 values)" unit:"rad" range:"[-3.141592653589793,3.141592653589793]"`
	BlockingStiffness    float64    `toml:"blockingStiffness" doc:"rotational stiffness added beyond the angle limits" unit:"N·m/rad" range:"[0,inf)"`
	Anchor               []float64  `toml:"anchor" doc:"joint point in body 1's frame (3 values; default: halfway between the two origins at rest)" unit:"m"`
	RestTranslation      []float64  `toml:"restTranslation" doc:"rest position of body 2's origin in body 1's frame (3 values; default: from the rest positions)" unit:"m"`
	RestRotation         []float64  `toml:"restRotation" doc:"rest orientation of body 2 in body 1's frame: quaternion [x, y, z, w] or rotation vector [3] (default: from the rest positions)"`
}

func init() {
	graph.Register(graph.TypeInfo{
		Name: "JointSpringForceField",
		Kind: graph.KindForceField,
		Summary: "6-D articulation springs between Rigid3 frames (of two states or one): per-axis translational and rotational stiffness and damping, angle limits with a blocking stiffness, rest offset in the first body's frame; " +
			"energy, exact tangent and damping matrix (SOFA's has a world rest offset, a diagonal tangent and no energy).",
		New: func() graph.Object { return NewJointSpringForceField() },
	})
}

// NewJointSpringForceField returns a force field without springs (for
// code that builds scenes: set Springs, and Object1/Object2 or SetStates).
func NewJointSpringForceField() *JointSpringForceField {
	return &JointSpringForceField{ObjectBase: graph.ObjectBase{Name: "JointSpringForceField", TypeName: "JointSpringForceField"}}
}

// SetStates sets the two states directly (s2 may equal s1), for code that
// builds scenes without a scene file; Init then keeps them.
func (c *JointSpringForceField) SetStates(s1, s2 graph.State) {
	c.states = []graph.State{s1}
	c.idx = [2]int{0, 0}
	if s2 != s1 {
		c.states = append(c.states, s2)
		c.idx[1] = 1
	}
}

// Validate checks the springs' fields.
func (c *JointSpringForceField) Validate() error {
	if len(c.Springs) == 0 {
		return errors.New("no springs: give springs = [{m1 = …, m2 = …, …}, …]")
	}
	for k := range c.Springs {
		if err := c.Springs[k].validate(); err != nil {
			return fmt.Errorf("springs[%d]: %w", k, err)
		}
	}
	return nil
}

func (s *JointSpring) validate() error {
	for _, f := range []struct {
		name string
		v    []float64
	}{{"limitMin", s.LimitMin}, {"limitMax", s.LimitMax}, {"anchor", s.Anchor}, {"restTranslation", s.RestTranslation}} {
		if len(f.v) != 0 && len(f.v) != 3 {
			return fmt.Errorf("%s has %d values, want 3 (or leave it out)", f.name, len(f.v))
		}
		for _, x := range f.v {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("%s is not finite", f.name)
			}
		}
	}
	switch len(s.RestRotation) {
	case 0, 3:
	case 4:
		q := geom.Quat{s.RestRotation[0], s.RestRotation[1], s.RestRotation[2], s.RestRotation[3]}
		if n := q.Norm(); math.Abs(n-1) > 1e-6 {
			return fmt.Errorf("restRotation quaternion has norm %g, want 1 (quaternions are [x, y, z, w])", n)
		}
	default:
		return fmt.Errorf("restRotation has %d values: give a quaternion [x, y, z, w] or a rotation vector [3]", len(s.RestRotation))
	}
	limited := len(s.LimitMin) > 0 || len(s.LimitMax) > 0
	if limited {
		if len(s.LimitMin) != 3 || len(s.LimitMax) != 3 {
			return errors.New("angle limits need both limitMin and limitMax (3 values each)")
		}
		for a := 0; a < 3; a++ {
			if s.LimitMin[a] > s.LimitMax[a] {
				return fmt.Errorf("limitMin[%d] = %g is above limitMax[%d] = %g", a, s.LimitMin[a], a, s.LimitMax[a])
			}
		}
		if !(s.BlockingStiffness > 0) {
			return errors.New("angle limits need a positive blockingStiffness")
		}
	} else if s.BlockingStiffness != 0 {
		return errors.New("blockingStiffness needs angle limits (limitMin, limitMax)")
	}
	return nil
}

// States implements graph.InteractionForceField: one state, or two.
func (c *JointSpringForceField) States() []graph.State { return c.states }

// Init resolves the states and sets the joints up from the rest positions.
func (c *JointSpringForceField) Init() error { return c.Wrap(c.initialise()) }

func linkedRigidState(name string, l graph.Link, node *graph.Node) (graph.State, error) {
	var st graph.State
	switch {
	case !l.IsSet():
		if node == nil || node.State() == nil {
			return nil, fmt.Errorf("no %s given and no mechanical state in this node", name)
		}
		st = node.State()
	case l.Object != nil:
		s, ok := l.Object.(graph.State)
		if !ok {
			return nil, fmt.Errorf("%s %q is not a mechanical state", name, l.Path)
		}
		st = s
	case l.Node != nil && l.Node.State() != nil:
		st = l.Node.State()
	default:
		return nil, fmt.Errorf("%s %q has no mechanical state", name, l.Path)
	}
	if tn := st.Template().Name(); tn != graph.Rigid3.Name() {
		return nil, fmt.Errorf("%s %q has template %s; joint springs join Rigid3 bodies", name, st.Base().Path(), tn)
	}
	return st, nil
}

func (c *JointSpringForceField) initialise() error {
	if err := c.Validate(); err != nil {
		return err
	}
	if c.states == nil {
		s1, err := linkedRigidState("object1", c.Object1, c.Node)
		if err != nil {
			return err
		}
		s2 := s1
		if c.Object2.IsSet() {
			if s2, err = linkedRigidState("object2", c.Object2, c.Node); err != nil {
				return err
			}
		}
		c.SetStates(s1, s2)
	}
	s1, s2 := c.states[c.idx[0]], c.states[c.idx[1]]
	n := len(c.Springs)
	c.laws = make([]springnet.AxisLaw, n)
	c.attach = make([][2]springnet.Attachment, n)
	c.tangent = make([][12][12]float64, n)
	c.damping = make([][12][12]float64, n)
	c.hasDamps = false
	for k := range c.Springs {
		sp := &c.Springs[k]
		if sp.M1 >= s1.Size() {
			return fmt.Errorf("springs[%d]: m1 = %d, but %q has %d frames", k, sp.M1, s1.Base().Path(), s1.Size())
		}
		if sp.M2 >= s2.Size() {
			return fmt.Errorf("springs[%d]: m2 = %d, but %q has %d frames", k, sp.M2, s2.Base().Path(), s2.Size())
		}
		if s1 == s2 && sp.M1 == sp.M2 {
			return fmt.Errorf("springs[%d] joins frame %d to itself", k, sp.M1)
		}
		r1 := springnet.BodyAt(s1.Vec(graph.RestPosition), sp.M1)
		r2 := springnet.BodyAt(s2.Vec(graph.RestPosition), sp.M2)
		// Rest offset of body 2 in body 1's frame.
		off := r1.Q.Conj().Rotate(r2.T.Sub(r1.T))
		if len(sp.RestTranslation) == 3 {
			off = geom.Vec3{sp.RestTranslation[0], sp.RestTranslation[1], sp.RestTranslation[2]}
		}
		q0 := r1.Q.Conj().Mul(r2.Q).Normalized()
		switch len(sp.RestRotation) {
		case 3:
			q0 = geom.QuatFromRotVec(geom.Vec3{sp.RestRotation[0], sp.RestRotation[1], sp.RestRotation[2]})
		case 4:
			q0 = geom.Quat{sp.RestRotation[0], sp.RestRotation[1], sp.RestRotation[2], sp.RestRotation[3]}.Normalized()
		}
		anchor := off.Scale(0.5)
		if len(sp.Anchor) == 3 {
			anchor = geom.Vec3{sp.Anchor[0], sp.Anchor[1], sp.Anchor[2]}
		}
		// Joint frames: body 1's axes at the anchor; body 2 sees the same
		// point and axes through the rest offset.
		c.attach[k] = [2]springnet.Attachment{
			{Offset: anchor, Rot: geom.QuatIdentity()},
			{Offset: q0.Conj().Rotate(anchor.Sub(off)), Rot: q0.Conj()},
		}
		law := springnet.AxisLaw{KT: sp.KTranslation, KR: sp.KRotation}
		if len(sp.LimitMin) == 3 {
			law.Limited, law.Blocking = true, sp.BlockingStiffness
			copy(law.Min[:], sp.LimitMin)
			copy(law.Max[:], sp.LimitMax)
		}
		c.laws[k] = law
		if sp.TranslationalDamping > 0 || sp.RotationalDamping > 0 {
			c.hasDamps = true
		}
	}
	return nil
}

// bodies returns the two bodies of spring k in xs.
func (c *JointSpringForceField) bodies(xs [][]float64, k int) (springnet.Body, springnet.Body) {
	sp := &c.Springs[k]
	return springnet.BodyAt(xs[c.idx[0]], sp.M1), springnet.BodyAt(xs[c.idx[1]], sp.M2)
}

// AddForce implements graph.InteractionForceField: the spring and damping
// forces, and the tangent and damping matrices for AddDForce.
func (c *JointSpringForceField) AddForce(f, x, v [][]float64) {
	r := &c.res
	for k := range c.Springs {
		sp := &c.Springs[k]
		b1, b2 := c.bodies(x, k)
		springnet.Evaluate(b1, b2, c.attach[k][0], c.attach[k][1], &c.laws[k], true, r)
		c.tangent[k] = r.K
		F := r.F
		if c.hasDamps && (sp.TranslationalDamping > 0 || sp.RotationalDamping > 0) {
			var u [12]float64
			if v != nil && v[c.idx[0]] != nil && v[c.idx[1]] != nil {
				copy(u[:6], v[c.idx[0]][6*sp.M1:6*sp.M1+6])
				copy(u[6:], v[c.idx[1]][6*sp.M2:6*sp.M2+6])
			}
			c.addDamping(k, b1, b2, &r.Link, &u, &F)
		}
		f1 := f[c.idx[0]][6*sp.M1 : 6*sp.M1+6]
		f2 := f[c.idx[1]][6*sp.M2 : 6*sp.M2+6]
		for a := 0; a < 6; a++ {
			f1[a] += F[a]
			f2[a] += F[6+a]
		}
	}
}

// addDamping adds the damping force of spring k at velocities u = [v₁ ω₁
// v₂ ω₂] to F, its position derivative to the spring's tangent, and sets
// its damping matrix B = ∂F/∂u.
//
// The joint point P = (P₁ + P₂)/2 with arms s_k = P − t_k; the relative
// velocity there Δv = (v₂ + ω₂ × s₂) − (v₁ + ω₁ × s₁) = C u and
// Δω = ω₂ − ω₁ = E u; the forces −c_t Cᵀ C u − c_r Eᵀ E u (F = −c_t Δv on
// body 2 at P, −F on body 1, torques −c_r Δω and +c_r Δω), so
// B = −c_t CᵀC − c_r EᵀE. The arms move with the bodies
// (δP_k = δt_k + δθ_k × r_k), which adds δf₂ = −c_t (ω₂ × δs₂ − ω₁ × δs₁),
// δτ₂ = δs₂ × F + s₂ × δf₂, and the opposite on body 1, to K.
func (c *JointSpringForceField) addDamping(k int, b1, b2 springnet.Body, l *springnet.Link, u *[12]float64, F *[12]float64) {
	sp := &c.Springs[k]
	ct, cr := sp.TranslationalDamping, sp.RotationalDamping
	P := l.P1.Add(l.P2).Scale(0.5)
	s1, s2 := P.Sub(b1.T), P.Sub(b2.T)
	v1, w1 := geom.Vec3{u[0], u[1], u[2]}, geom.Vec3{u[3], u[4], u[5]}
	v2, w2 := geom.Vec3{u[6], u[7], u[8]}, geom.Vec3{u[9], u[10], u[11]}
	dv := v2.Add(w2.Cross(s2)).Sub(v1.Add(w1.Cross(s1)))
	dw := w2.Sub(w1)
	Fp := dv.Scale(-ct)
	Tq := dw.Scale(-cr)
	t2 := s2.Cross(Fp).Add(Tq)
	t1 := s1.Cross(Fp).Add(Tq).Scale(-1)
	for a := 0; a < 3; a++ {
		F[a] -= Fp[a]
		F[3+a] += t1[a]
		F[6+a] += Fp[a]
		F[9+a] += t2[a]
	}
	// B = −c_t CᵀC − c_r EᵀE with C = [−I, [s₁]×, I, −[s₂]×], E = [0, −I, 0, I].
	var C [3][12]float64
	S1, S2 := s1.Skew(), s2.Skew()
	for i := 0; i < 3; i++ {
		C[i][i] = -1
		C[i][6+i] = 1
		for j := 0; j < 3; j++ {
			C[i][3+j] = S1[3*i+j]
			C[i][9+j] = -S2[3*i+j]
		}
	}
	B := &c.damping[k]
	for r := 0; r < 12; r++ {
		for q := 0; q < 12; q++ {
			s := 0.0
			for i := 0; i < 3; i++ {
				s += C[i][r] * C[i][q]
			}
			B[r][q] = -ct * s
		}
	}
	for i := 0; i < 3; i++ {
		B[3+i][3+i] -= cr
		B[9+i][9+i] -= cr
		B[3+i][9+i] += cr
		B[9+i][3+i] += cr
	}
	// Position derivative at fixed velocities.
	K := &c.tangent[k]
	for col := 0; col < 12; col++ {
		var e [12]float64
		e[col] = 1
		dt1, dth1 := geom.Vec3{e[0], e[1], e[2]}, geom.Vec3{e[3], e[4], e[5]}
		dt2, dth2 := geom.Vec3{e[6], e[7], e[8]}, geom.Vec3{e[9], e[10], e[11]}
		dP := dt1.Add(dth1.Cross(l.R1)).Add(dt2).Add(dth2.Cross(l.R2)).Scale(0.5)
		ds1, ds2 := dP.Sub(dt1), dP.Sub(dt2)
		dF := w2.Cross(ds2).Sub(w1.Cross(ds1)).Scale(-ct)
		dt2q := ds2.Cross(Fp).Add(s2.Cross(dF))
		dt1q := ds1.Cross(Fp).Add(s1.Cross(dF)).Scale(-1)
		for a := 0; a < 3; a++ {
			K[a][col] -= dF[a]
			K[3+a][col] += dt1q[a]
			K[6+a][col] += dF[a]
			K[9+a][col] += dt2q[a]
		}
	}
}

// AddKBToMatrix implements graph.InteractionMatrixAssembler: per spring
// the 12×12 kFactor·K + bFactor·B kept by the last AddForce (B for damped
// springs), rows and columns [frame m1 of object1, frame m2 of object2]
// over the states concatenated.
func (c *JointSpringForceField) AddKBToMatrix(m graph.MatrixAccumulator, kFactor, bFactor float64) {
	offs := make([]int, len(c.states))
	for i := 1; i < len(c.states); i++ {
		offs[i] = offs[i-1] + 6*c.states[i-1].Size()
	}
	for k := range c.Springs {
		sp := &c.Springs[k]
		var at [12]int
		for q := 0; q < 6; q++ {
			at[q] = offs[c.idx[0]] + 6*sp.M1 + q
			at[6+q] = offs[c.idx[1]] + 6*sp.M2 + q
		}
		damped := sp.TranslationalDamping > 0 || sp.RotationalDamping > 0
		K, B := &c.tangent[k], &c.damping[k]
		for r := 0; r < 12; r++ {
			for q := 0; q < 12; q++ {
				v := kFactor * K[r][q]
				if damped {
					v += bFactor * B[r][q]
				}
				m.Add(at[r], at[q], v)
			}
		}
	}
}

var _ graph.InteractionMatrixAssembler = (*JointSpringForceField)(nil)

// AddDForce implements graph.InteractionForceField: df += kFactor·K·dx +
// bFactor·B·dx with the matrices of the last AddForce.
func (c *JointSpringForceField) AddDForce(df, dx [][]float64, kFactor, bFactor float64) {
	for k := range c.Springs {
		sp := &c.Springs[k]
		var d [12]float64
		copy(d[:6], dx[c.idx[0]][6*sp.M1:6*sp.M1+6])
		copy(d[6:], dx[c.idx[1]][6*sp.M2:6*sp.M2+6])
		damped := bFactor != 0 && (sp.TranslationalDamping > 0 || sp.RotationalDamping > 0)
		K, B := &c.tangent[k], &c.damping[k]
		f1 := df[c.idx[0]][6*sp.M1 : 6*sp.M1+6]
		f2 := df[c.idx[1]][6*sp.M2 : 6*sp.M2+6]
		for r := 0; r < 12; r++ {
			y := 0.0
			if kFactor != 0 {
				s := 0.0
				for q := 0; q < 12; q++ {
					s += K[r][q] * d[q]
				}
				y = kFactor * s
			}
			if damped {
				s := 0.0
				for q := 0; q < 12; q++ {
					s += B[r][q] * d[q]
				}
				y += bFactor * s
			}
			if r < 6 {
				f1[r] += y
			} else {
				f2[r-6] += y
			}
		}
	}
}

// PotentialEnergy implements graph.InteractionForceField: the elastic
// energy of every spring (damping stores none).
func (c *JointSpringForceField) PotentialEnergy(x [][]float64) float64 {
	w := 0.0
	for k := range c.Springs {
		b1, b2 := c.bodies(x, k)
		w += springnet.Energy(b1, b2, c.attach[k][0], c.attach[k][1], &c.laws[k], &c.res.Geometry)
	}
	return w
}
