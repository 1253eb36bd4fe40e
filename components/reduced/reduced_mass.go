package reduced

import (
	"gonum.org/v1/gonum/mat"

	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/reduced"
)

// ReducedMass is the mass of reduced coordinates q (a Vec1 state): the
// reduced mass matrix M_r = UᵀMU of the full mesh's mass M in the basis U
// (eq. 4–7; the identity for a mass-orthonormal basis), and gravity as
// the reduced force Uᵀ M g, with the gravity potential of the full model,
// W = −g·Σ m_v (x₀_v + u_v). It reads U and M from the model that owns the
// basis (model = "@stvk", default: the ReducedStVKForceField of its node),
// which computes them for its massDensity (consistent or lumped mass) in
// its precomputation: every product here costs O(r²), independent of the
// mesh.
//
// It implements graph.MassAssembler (dense solvers assemble M_r) and
// graph.InverseMass (M_r⁻¹ by a Cholesky factorisation at Init, so
// explicit solvers work on reduced models too).
type ReducedMass struct {
	graph.ObjectBase
	Model graph.Link `toml:"model" doc:"the component owning the basis and the reduced mass (default: the ReducedStVKForceField of this node)"`

	r      int
	m      []float64 // r×r
	grav   []float64 // r×3
	total  float64
	moment [3]float64
	chol   mat.Cholesky
}

func init() {
	graph.Register(graph.TypeInfo{
		Name: "ReducedMass",
		Kind: graph.KindMass,
		Summary: "Mass of reduced coordinates (Vec1): UᵀMU of the full mesh in the basis of a reduced model, gravity as Uᵀ M g; O(r²) per product, " +
			"assemblable and invertible (dense).",
		New: func() graph.Object { return &ReducedMass{} },
	})
}

// inertiaSource is implemented by ReducedStVKForceField.
type inertiaSource interface {
	Inertia() (*reduced.Inertia, error)
}

// Init reads the reduced mass from the model.
func (c *ReducedMass) Init() error {
	var src inertiaSource
	if c.Model.IsSet() {
		s, ok := c.Model.Object.(inertiaSource)
		if !ok {
			return c.Errorf("model %q owns no reduced mass (link a ReducedStVKForceField)", c.Model.Path)
		}
		src = s
	} else {
		for _, o := range c.Node.Objects {
			if s, ok := o.(inertiaSource); ok {
				src = s
				break
			}
		}
		if src == nil {
			return c.Errorf("no reduced model in node %q: add a ReducedStVKForceField or set model = \"@path\"", c.Node.Path())
		}
	}
	in, err := src.Inertia()
	if err != nil {
		return err
	}
	st := c.Node.State()
	if st == nil || st.Template().Name() != "Vec1" {
		return c.Errorf("needs a Vec1 state (the reduced coordinates) in its node")
	}
	if st.Size() != in.R {
		return c.Errorf("state %q has %d DOFs, the reduced model %d", st.Base().Name, st.Size(), in.R)
	}
	c.r, c.m, c.grav, c.total, c.moment = in.R, in.M, in.Gravity, in.TotalMass, in.FirstMoment
	if !c.chol.Factorize(mat.NewSymDense(c.r, append([]float64(nil), c.m...))) {
		return c.Errorf("the reduced mass UᵀMU is not positive definite: the basis vectors are linearly dependent")
	}
	return nil
}

// TotalMass returns the mass of the full mesh.
func (c *ReducedMass) TotalMass() float64 { return c.total }

// Matrix returns UᵀMU (r×r row-major, not a copy).
func (c *ReducedMass) Matrix() []float64 { return c.m }

// AddMDx implements graph.Mass: df += factor·M_r·dx.
func (c *ReducedMass) AddMDx(df, dx []float64, factor float64) {
	r := c.r
	for i := 0; i < r; i++ {
		row := c.m[i*r : (i+1)*r : (i+1)*r]
		s := 0.0
		for j, m := range row {
			s += m * dx[j]
		}
		df[i] += factor * s
	}
}

// KineticEnergy implements graph.Mass: ½ q̇ᵀ M_r q̇.
func (c *ReducedMass) KineticEnergy(v []float64) float64 {
	r := c.r
	e := 0.0
	for i := 0; i < r; i++ {
		s := 0.0
		for j, m := range c.m[i*r : (i+1)*r] {
			s += m * v[j]
		}
		e += v[i] * s
	}
	return 0.5 * e
}

// AddForce implements graph.ForceField: the reduced gravity Uᵀ M g.
func (c *ReducedMass) AddForce(f, x, v []float64) {
	g := c.Node.Gravity()
	if g == ([3]float64{}) {
		return
	}
	for i := 0; i < c.r; i++ {
		f[i] += c.grav[3*i]*g[0] + c.grav[3*i+1]*g[1] + c.grav[3*i+2]*g[2]
	}
}

// AddDForce implements graph.ForceField: gravity has no stiffness.
func (c *ReducedMass) AddDForce(df, dx []float64, kFactor, bFactor float64) {}

// PotentialEnergy implements graph.ForceField: −g·(Σ m_v x₀_v + M U q),
// the gravity potential of the full mesh at u = U q.
func (c *ReducedMass) PotentialEnergy(x []float64) float64 {
	g := c.Node.Gravity()
	w := -(g[0]*c.moment[0] + g[1]*c.moment[1] + g[2]*c.moment[2])
	for i := 0; i < c.r; i++ {
		w -= x[i] * (c.grav[3*i]*g[0] + c.grav[3*i+1]*g[1] + c.grav[3*i+2]*g[2])
	}
	return w
}

// AddMToMatrix implements graph.MassAssembler.
func (c *ReducedMass) AddMToMatrix(m graph.MatrixAccumulator, mFactor float64) {
	for i := 0; i < c.r; i++ {
		for j := 0; j < c.r; j++ {
			m.Add(i, j, mFactor*c.m[i*c.r+j])
		}
	}
}

// AccFromF implements graph.InverseMass: a = M_r⁻¹ f.
func (c *ReducedMass) AccFromF(a, f []float64) {
	dst := mat.NewVecDense(c.r, a[:c.r])
	// Factorised at Init; SolveVecTo only reports ill-conditioning.
	c.chol.SolveVecTo(dst, mat.NewVecDense(c.r, f[:c.r]))
}
