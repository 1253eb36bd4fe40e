package mass

import (
	"fmt"
	"math"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
)

// RigidMass is the mass of rigid bodies on a Rigid3 state (SOFA's
// UniformMass<Rigid3> with a RigidMass value): every frame of the state is a
// body of mass m and body-frame inertia tensor I (about the centre of mass,
// which is the frame origin). With R the frame's rotation and the Rigid3
// derivative [v; ω] (ω in world coordinates),
//
//	M [δv; δω] = [m δv; I_w δω],   I_w = R I Rᵀ,
//	kinetic energy ½ m |v|² + ½ ωᵀ I_w ω,
//	gravity force m g on the translation, no torque; potential −m g·t.
//
// I_w depends on the orientation. AddMDx and AccFromF use the orientation
// of the most recent AddForce call (the linearisation point, like the
// stiffness of every force field); before the first AddForce, the state's
// position at Init. KineticEnergy uses the state's current position.
//
// Gyroscopic term. Euler's equations in world coordinates read
// I_w ω̇ = τ − ω × (I_w ω). SOFA drops the velocity-dependent term
// −ω × (I_w ω); so does RigidMass by default, which is exact whenever ω
// stays along a principal axis (planar motion, a pendulum swinging about a
// principal axis) and otherwise lets a spinning body drift from free
// precession. With gyroscopic = true it is applied as a force in AddForce,
// and AddDForce adds its exact derivatives (see addGyroscopicDForce), so
// implicit solvers stay consistent.
type RigidMass struct {
	graph.ObjectBase
	Mass            float64     `toml:"mass" doc:"mass of each body" unit:"kg" range:"(0,inf)"`
	Inertia         [][]float64 `toml:"inertia" doc:"3×3 inertia tensor of each body about its centre of mass, in the body frame, as 3 rows of 3 (symmetric positive definite; default: inertiaDiagonal, else mass × identity, i.e. a 1 m radius of gyration about every axis)" unit:"kg·m²"`
	InertiaDiagonal []float64   `toml:"inertiaDiagonal" doc:"principal moments [Ixx, Iyy, Izz] of each body in the body frame, a shortcut for a diagonal inertia" unit:"kg·m²" range:"(0,inf)"`
	Gyroscopic      bool        `toml:"gyroscopic" doc:"apply the gyroscopic force −ω × (I_w ω) (false: not modelled, as in SOFA)"`

	body    geom.Mat3 // I, body frame
	bodyInv geom.Mat3 // I⁻¹
	ready   bool

	// At the last AddForce (or Init), per frame:
	rot   []geom.Mat3 // R
	world []geom.Mat3 // I_w = R I Rᵀ
	omega []geom.Vec3 // ω (gyroscopic linearisation)
}

func init() {
	graph.Register(graph.TypeInfo{
		Name:    "RigidMass",
		Kind:    graph.KindMass,
		Summary: "Mass and inertia of rigid bodies on a Rigid3 state: M = diag(m·I, R I Rᵀ) at the current orientation, gravity on the centre of mass (the frame origin), optional gyroscopic force.",
		New:     func() graph.Object { return &RigidMass{Mass: 1} },
	})
}

// NewRigidMass returns a RigidMass of mass m and body-frame inertia I, for
// code that builds scenes directly.
func NewRigidMass(m float64, inertia geom.Mat3) (*RigidMass, error) {
	r := &RigidMass{ObjectBase: graph.ObjectBase{Name: "mass", TypeName: "RigidMass"}, Mass: m,
		Inertia: [][]float64{inertia[0:3], inertia[3:6], inertia[6:9]}}
	if err := r.Validate(); err != nil {
		return nil, err
	}
	return r, nil
}

// Validate checks the mass and the inertia tensor (shape, symmetry,
// positive definiteness) and computes its inverse.
func (r *RigidMass) Validate() error {
	if !(r.Mass > 0) || math.IsInf(r.Mass, 0) {
		return fmt.Errorf("mass = %g must be positive and finite", r.Mass)
	}
	if len(r.Inertia) > 0 && len(r.InertiaDiagonal) > 0 {
		return fmt.Errorf("give inertia or inertiaDiagonal, not both")
	}
	var I geom.Mat3
	switch {
	case len(r.Inertia) > 0:
		if len(r.Inertia) != 3 {
			return fmt.Errorf("inertia has %d rows, want 3 rows of 3", len(r.Inertia))
		}
		for i, row := range r.Inertia {
			if len(row) != 3 {
				return fmt.Errorf("inertia row %d has %d numbers, want 3", i, len(row))
			}
			copy(I[3*i:3*i+3], row)
		}
		scale := 0.0
		for _, v := range I {
			scale = math.Max(scale, math.Abs(v))
		}
		for i := 0; i < 3; i++ {
			for j := i + 1; j < 3; j++ {
				// Numbers typed in a scene are exactly symmetric; allow
				// rounding from computed values.
				if math.Abs(I[3*i+j]-I[3*j+i]) > 1e-12*scale {
					return fmt.Errorf("inertia is not symmetric: [%d][%d] = %g but [%d][%d] = %g", i, j, I[3*i+j], j, i, I[3*j+i])
				}
			}
		}
		I = I.Sym()
	case len(r.InertiaDiagonal) > 0:
		if len(r.InertiaDiagonal) != 3 {
			return fmt.Errorf("inertiaDiagonal has %d numbers, want 3", len(r.InertiaDiagonal))
		}
		I = geom.Diag(geom.Vec3{r.InertiaDiagonal[0], r.InertiaDiagonal[1], r.InertiaDiagonal[2]})
	default:
		I = geom.Identity3().Scale(r.Mass)
	}
	// Sylvester's criterion: the leading principal minors of a symmetric
	// positive definite matrix are positive.
	m1, m2, m3 := I[0], I[0]*I[4]-I[1]*I[3], I.Det()
	if !(m1 > 0 && m2 > 0 && m3 > 0) {
		return fmt.Errorf("inertia %v is not positive definite (leading minors %g, %g, %g)", I, m1, m2, m3)
	}
	inv, _ := I.Inverse()
	r.body, r.bodyInv, r.ready = I, inv.Sym(), true
	return nil
}

// Init checks the state's template and takes the initial orientations.
func (r *RigidMass) Init() error {
	if err := r.Validate(); err != nil {
		return r.Wrap(err)
	}
	st := r.Node.State()
	if st == nil {
		return r.Errorf("needs a Rigid3 MechanicalObject in the same node")
	}
	if name := st.Template().Name(); name != graph.Rigid3.Name() {
		return r.Errorf("state %q has template %s; RigidMass needs Rigid3 (use UniformMass or DiagonalMass for points)", st.Base().Path(), name)
	}
	r.linearise(st.Vec(graph.Position), st.Vec(graph.Velocity))
	return nil
}

// linearise caches R, I_w and ω of every frame at coordinates x and
// velocities v (v may be nil).
func (r *RigidMass) linearise(x, v []float64) {
	if !r.ready {
		// Built in code and used before Init: validate now. Invalid fields
		// here are a programming error (scenes validate at load time).
		if err := r.Validate(); err != nil {
			panic("RigidMass used before Init with invalid fields: " + err.Error())
		}
	}
	n := len(x) / 7
	if len(r.rot) != n {
		r.rot = make([]geom.Mat3, n)
		r.world = make([]geom.Mat3, n)
		r.omega = make([]geom.Vec3, n)
	}
	for k := 0; k < n; k++ {
		c := x[7*k : 7*k+7]
		R := geom.Quat{c[3], c[4], c[5], c[6]}.Mat()
		r.rot[k] = R
		r.world[k] = R.Mul(r.body).MulT(R)
		if v != nil {
			r.omega[k] = geom.Vec3{v[6*k+3], v[6*k+4], v[6*k+5]}
		} else {
			r.omega[k] = geom.Vec3{}
		}
	}
}

// BodyInertia returns the body-frame inertia tensor I.
func (r *RigidMass) BodyInertia() geom.Mat3 { return r.body }

func (r *RigidMass) gravity() geom.Vec3 {
	if r.Node == nil {
		return geom.Vec3{}
	}
	return r.Node.Gravity()
}

// AddForce implements graph.ForceField: f += m g on every translation and,
// with gyroscopic, τ −= ω × (I_w ω). It records the orientation (and ω)
// that AddDForce, AddMDx and AccFromF use.
func (r *RigidMass) AddForce(f, x, v []float64) {
	r.linearise(x, v)
	g := r.gravity().Scale(r.Mass)
	for k := range r.rot {
		d := f[6*k : 6*k+6]
		d[0] += g[0]
		d[1] += g[1]
		d[2] += g[2]
		if r.Gyroscopic {
			w := r.omega[k]
			t := w.Cross(r.world[k].MulVec(w))
			d[3] -= t[0]
			d[4] -= t[1]
			d[5] -= t[2]
		}
	}
}

// AddDForce implements graph.ForceField. Gravity is constant, so without
// the gyroscopic term nothing is added.
func (r *RigidMass) AddDForce(df, dx []float64, kFactor, bFactor float64) {
	if !r.Gyroscopic {
		return
	}
	for k := range r.rot {
		d := dx[6*k : 6*k+6]
		dw := geom.Vec3{d[3], d[4], d[5]}
		t := r.gyroscopicDForce(k, dw, kFactor, bFactor)
		o := df[6*k : 6*k+6]
		o[3] += t[0]
		o[4] += t[1]
		o[5] += t[2]
	}
}

// gyroscopicDForce returns kFactor·K δ + bFactor·B δ for the gyroscopic
// torque g = −ω × (I_w ω) of frame k, where δ is the rotational part of
// the derivative vector (a rotation δθ for K, an angular velocity change
// δω for B). With L = I_w ω:
//
//	B δω = −(δω × L + ω × I_w δω)               (∂g/∂ω)
//	K δθ = −ω × (δθ × L) + ω × (I_w (δθ × ω))     (∂g/∂θ)
//
// the latter because R ← exp([δθ]×) R changes I_w by [δθ]× I_w − I_w [δθ]×.
func (r *RigidMass) gyroscopicDForce(k int, d geom.Vec3, kFactor, bFactor float64) geom.Vec3 {
	w, Iw := r.omega[k], r.world[k]
	L := Iw.MulVec(w)
	var t geom.Vec3
	if bFactor != 0 {
		b := d.Cross(L).Add(w.Cross(Iw.MulVec(d))).Scale(-bFactor)
		t = t.Add(b)
	}
	if kFactor != 0 {
		kk := w.Cross(Iw.MulVec(d.Cross(w))).Sub(w.Cross(d.Cross(L))).Scale(kFactor)
		t = t.Add(kk)
	}
	return t
}

// AddKToMatrix implements graph.StiffnessAssembler: with gyroscopic, per
// frame the rotational block kFactor·([ω]×[L]× − [ω]× I_w [ω]×), L = I_w ω,
// the K that gyroscopicDForce applies (at the orientation and ω of the
// last AddForce); nothing without (gravity is constant), so the assembled
// solvers need not probe it.
func (r *RigidMass) AddKToMatrix(m graph.MatrixAccumulator, kFactor float64) {
	if !r.Gyroscopic {
		return
	}
	for k := range r.rot {
		w, Iw := r.omega[k], r.world[k]
		W := w.Skew()
		K := W.Mul(Iw.MulVec(w).Skew()).Sub(W.Mul(Iw).Mul(W)).Scale(kFactor)
		addRotBlock(m, 6*k+3, &K)
	}
}

// AddBToMatrix implements graph.DampingAssembler: with gyroscopic, per
// frame the rotational block bFactor·([L]× − [ω]× I_w), the B that
// gyroscopicDForce applies; nothing without.
func (r *RigidMass) AddBToMatrix(m graph.MatrixAccumulator, bFactor float64) {
	if !r.Gyroscopic {
		return
	}
	for k := range r.rot {
		w, Iw := r.omega[k], r.world[k]
		B := Iw.MulVec(w).Skew().Sub(w.Skew().Mul(Iw)).Scale(bFactor)
		addRotBlock(m, 6*k+3, &B)
	}
}

// addRotBlock adds the 3×3 block b at rows and columns o..o+2.
func addRotBlock(m graph.MatrixAccumulator, o int, b *geom.Mat3) {
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			m.Add(o+i, o+j, b[3*i+j])
		}
	}
}

var (
	_ graph.StiffnessAssembler = (*RigidMass)(nil)
	_ graph.DampingAssembler   = (*RigidMass)(nil)
)

// PotentialEnergy implements graph.ForceField: −Σ m g·t.
func (r *RigidMass) PotentialEnergy(x []float64) float64 {
	g := r.gravity()
	e := 0.0
	for k := 0; k < len(x)/7; k++ {
		e -= r.Mass * (g[0]*x[7*k] + g[1]*x[7*k+1] + g[2]*x[7*k+2])
	}
	return e
}

// AddMToMatrix implements graph.MassAssembler: per frame mFactor·m on the
// translations and mFactor·I_w (all nine entries) on the rotations, at
// the orientation of the last AddForce, as AddMDx.
func (r *RigidMass) AddMToMatrix(m graph.MatrixAccumulator, mFactor float64) {
	for k := range r.world {
		o := 6 * k
		for c := 0; c < 3; c++ {
			m.Add(o+c, o+c, mFactor*r.Mass)
		}
		w := r.world[k]
		for a := 0; a < 3; a++ {
			for c := 0; c < 3; c++ {
				m.Add(o+3+a, o+3+c, mFactor*w[3*a+c])
			}
		}
	}
}

var _ graph.MassAssembler = (*RigidMass)(nil)

// AddMDx implements graph.Mass: df += factor·[m δv; I_w δω].
func (r *RigidMass) AddMDx(df, dx []float64, factor float64) {
	fm := factor * r.Mass
	for k := range r.world {
		d, o := dx[6*k:6*k+6], df[6*k:6*k+6]
		o[0] += fm * d[0]
		o[1] += fm * d[1]
		o[2] += fm * d[2]
		t := r.world[k].MulVec(geom.Vec3{d[3], d[4], d[5]})
		o[3] += factor * t[0]
		o[4] += factor * t[1]
		o[5] += factor * t[2]
	}
}

// AccFromF implements graph.InverseMass: a = [f/m; I_w⁻¹ τ] with
// I_w⁻¹ = R I⁻¹ Rᵀ.
func (r *RigidMass) AccFromF(a, f []float64) {
	im := 1 / r.Mass
	for k, R := range r.rot {
		d, o := f[6*k:6*k+6], a[6*k:6*k+6]
		o[0], o[1], o[2] = im*d[0], im*d[1], im*d[2]
		w := R.MulVec(r.bodyInv.MulVec(R.TMulVec(geom.Vec3{d[3], d[4], d[5]})))
		o[3], o[4], o[5] = w[0], w[1], w[2]
	}
}

// KineticEnergy implements graph.Mass: Σ ½ m |v|² + ½ ωᵀ I_w ω, with I_w at
// the state's current orientation (ωᵀ I_w ω = ω_bᵀ I ω_b with the body
// angular velocity ω_b = Rᵀ ω).
func (r *RigidMass) KineticEnergy(v []float64) float64 {
	var x []float64
	if r.Node != nil {
		if st := r.Node.State(); st != nil {
			x = st.Vec(graph.Position)
		}
	}
	e := 0.0
	for k := 0; k < len(v)/6; k++ {
		d := v[6*k : 6*k+6]
		var R geom.Mat3
		switch {
		case len(x) >= 7*k+7:
			R = geom.Quat{x[7*k+3], x[7*k+4], x[7*k+5], x[7*k+6]}.Mat()
		case k < len(r.rot):
			R = r.rot[k]
		default:
			R = geom.Identity3()
		}
		wb := R.TMulVec(geom.Vec3{d[3], d[4], d[5]})
		e += 0.5*r.Mass*(d[0]*d[0]+d[1]*d[1]+d[2]*d[2]) + 0.5*wb.Dot(r.body.MulVec(wb))
	}
	return e
}
