package mass

import (
	"fmt"

	"github.com/sofago/sofago/graph"
)

// notGiven marks a mass field the scene did not set (the scene ranges reject
// negative values, so a negative default cannot come from a user).
const notGiven = -1

// UniformMass gives every DOF of a vector-space state (Vec3, Vec1, or any
// graph.VecTemplate) the same mass m: M = m·I, applied to every coordinate
// of every DOF. It is SOFA's UniformMass for point templates.
//
// Gravity: on a Vec3 state every point weighs m·g (force m·g, potential
// −Σ m g·x). On other templates the coordinates are not positions in the
// gravity field (Vec1 reduced coordinates, ...), so no gravity is applied
// and the potential is zero.
//
// Rigid bodies need an inertia tensor: use RigidMass on Rigid3 states.
type UniformMass struct {
	graph.ObjectBase
	TotalMass  float64 `toml:"totalMass" doc:"total mass, spread evenly over the DOFs (exclusive with vertexMass; −1 means not given)" unit:"kg" range:"[0,inf)"`
	VertexMass float64 `toml:"vertexMass" doc:"mass of each DOF (exclusive with totalMass; −1 means not given; one of the two is required: there is no default mass)" unit:"kg" range:"[0,inf)"`

	m       float64 // mass per DOF
	gravity bool    // Vec3: apply gravity
	blocks  []int32 // MassBlocks (Vec3), built on first use
}

func init() {
	graph.Register(graph.TypeInfo{
		Name:    "UniformMass",
		Kind:    graph.KindMass,
		Summary: "The same mass on every DOF of a point state (M = m·I), from totalMass or vertexMass; applies gravity m·g to Vec3 points. Rigid3 bodies need RigidMass.",
		New:     func() graph.Object { return &UniformMass{TotalMass: notGiven, VertexMass: notGiven} },
	})
}

// NewUniformMass returns a UniformMass of vertexMass m per DOF, for code
// that builds scenes directly.
func NewUniformMass(m float64) *UniformMass {
	return &UniformMass{ObjectBase: graph.ObjectBase{Name: "mass", TypeName: "UniformMass"}, TotalMass: notGiven, VertexMass: m}
}

// Validate checks that exactly one of totalMass and vertexMass is given.
// There is no default (SOFA's is 1 kg per DOF): a scene that forgets its
// mass would silently weigh 1 kg per vertex, whatever its size.
func (u *UniformMass) Validate() error {
	if u.TotalMass >= 0 && u.VertexMass >= 0 {
		return fmt.Errorf("give totalMass or vertexMass, not both (totalMass = %g, vertexMass = %g)", u.TotalMass, u.VertexMass)
	}
	if u.TotalMass < 0 && u.VertexMass < 0 {
		return fmt.Errorf("give the mass: totalMass (kg, spread over the DOFs) or vertexMass (kg per DOF); there is no default")
	}
	return nil
}

// Init computes the mass per DOF from the state's size.
func (u *UniformMass) Init() error {
	if err := u.Validate(); err != nil {
		return u.Wrap(err)
	}
	st := u.Node.State()
	if st == nil {
		return u.Errorf("needs a mechanical state in the same node")
	}
	tmpl := st.Template()
	if _, rigid := tmpl.(graph.Rigid3Template); rigid {
		return u.Errorf("UniformMass does not apply to %s DOFs (a rigid body needs an inertia tensor): use RigidMass", tmpl.Name())
	}
	if tmpl.CoordSize() != tmpl.DerivSize() {
		return u.Errorf("UniformMass needs a vector-space template (coordinates and derivatives of the same size); %s has %d and %d",
			tmpl.Name(), tmpl.CoordSize(), tmpl.DerivSize())
	}
	switch {
	case u.TotalMass >= 0:
		n := st.Size()
		if n == 0 {
			return u.Errorf("totalMass = %g cannot be spread over a state with no DOFs", u.TotalMass)
		}
		u.m = u.TotalMass / float64(n)
	default:
		u.m = u.VertexMass
	}
	u.gravity = tmpl.CoordSize() == 3
	return nil
}

// MassPerDOF returns the mass of each DOF.
func (u *UniformMass) MassPerDOF() float64 { return u.m }

// AddForce adds the weight m·g of every point (Vec3 only).
func (u *UniformMass) AddForce(f, x, v []float64) {
	if !u.gravity {
		return
	}
	g := u.Node.Gravity()
	w0, w1, w2 := u.m*g[0], u.m*g[1], u.m*g[2]
	for i := 0; i+2 < len(f); i += 3 {
		f[i] += w0
		f[i+1] += w1
		f[i+2] += w2
	}
}

// AddDForce adds nothing: gravity does not depend on x or v.
func (u *UniformMass) AddDForce(df, dx []float64, kFactor, bFactor float64) {}

// PotentialEnergy returns the gravity potential −Σ m g·x (Vec3; zero otherwise).
func (u *UniformMass) PotentialEnergy(x []float64) float64 {
	if !u.gravity {
		return 0
	}
	g := u.Node.Gravity()
	var s0, s1, s2 float64
	for i := 0; i+2 < len(x); i += 3 {
		s0 += x[i]
		s1 += x[i+1]
		s2 += x[i+2]
	}
	return -u.m * (g[0]*s0 + g[1]*s1 + g[2]*s2)
}

// AddMDx accumulates df += factor·m·dx.
func (u *UniformMass) AddMDx(df, dx []float64, factor float64) {
	s := factor * u.m
	for i := range df {
		df[i] += s * dx[i]
	}
}

// KineticEnergy returns ½ m Σ|v|².
func (u *UniformMass) KineticEnergy(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x * x
	}
	return 0.5 * u.m * s
}

// AccFromF implements graph.InverseMass: a = f/m. With a zero mass it would
// divide by zero; explicit solvers call CheckInvertible first.
func (u *UniformMass) AccFromF(a, f []float64) {
	for i := range a {
		a[i] = f[i] / u.m
	}
}

// CheckInvertible reports whether M⁻¹ exists (a positive mass per DOF).
// graph.InverseMass.AccFromF has no error return, so explicit solvers call
// this at Init to refuse a zero mass instead of producing infinities.
func (u *UniformMass) CheckInvertible() error {
	if !(u.m > 0) {
		return fmt.Errorf("the mass per DOF is %g: M⁻¹f is undefined; give a positive totalMass or vertexMass", u.m)
	}
	return nil
}
