package mass

import (
	"errors"
	"fmt"
	"math"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
)

// RodMass is the lumped mass of a rod on Rigid3 frames (the companion of
// BeamFEMForceField): every element of rest length L gives each of its two
// frames half of its mass, ρ A L/2, and half of its rotary inertia about
// the centre line, ρ L/2 · diag(J, I₂, I₃) in the frame's axes, with the
// frame's x axis along the centre line (as RodTopology makes the frames)
// and J = I₂ + I₃ the polar moment. Sections as BeamFEMForceField's:
// radius (and innerRadius) or width (local y) × height (local z); edges
// as there (default: the chain of all frames). Unlike RigidMass (one mass
// for every frame) the end frames get their half share. Gravity acts on
// the translations, M = diag(m_k I, R_k I_k R_kᵀ) is block diagonal, so
// explicit solvers invert it (graph.InverseMass) and direct solvers
// assemble it (graph.MassAssembler). Rotary inertia is that of the
// section (Rayleigh beam), no gyroscopic torque.
type RodMass struct {
	graph.ObjectBase
	MassDensity float64  `toml:"massDensity" doc:"density ρ of the rod's material" unit:"kg/m³" range:"(0,inf)" required:"true"`
	Radius      float64  `toml:"radius" doc:"radius of a circular section (outer radius of a tube)" unit:"m" range:"[0,inf)"`
	InnerRadius float64  `toml:"innerRadius" doc:"inner radius of a tube section" unit:"m" range:"[0,inf)"`
	Width       float64  `toml:"width" doc:"width of a rectangular section, along each frame's local y axis" unit:"m" range:"[0,inf)"`
	Height      float64  `toml:"height" doc:"height of a rectangular section, along each frame's local z axis" unit:"m" range:"[0,inf)"`
	Edges       [][2]int `toml:"edges" doc:"the elements as pairs of frame indices (default: the chain over all frames)" range:"[0,inf)"`

	m    []float64   // translational mass per frame
	ib   []geom.Vec3 // body-frame principal inertia per frame
	rot  []geom.Mat3 // orientation at the last AddForce (or Init)
	area float64
}

func init() {
	graph.Register(graph.TypeInfo{
		Name:    "RodMass",
		Kind:    graph.KindMass,
		Summary: "Lumped mass of a rod on Rigid3 frames (BeamFEMForceField's companion): half of each element's mass ρAL and section rotary inertia ρL·diag(J, I, I) to each end frame; gravity; block-diagonal, invertible and assembled.",
		New:     func() graph.Object { return &RodMass{} },
	})
}

// Validate checks the section.
func (r *RodMass) Validate() error {
	disc, rect := r.Radius > 0, r.Width > 0 || r.Height > 0
	switch {
	case disc && rect:
		return errors.New("give radius (disc or tube) or width and height (rectangle), not both")
	case !disc && !rect:
		return errors.New("no section: give radius (and innerRadius for a tube) or width and height")
	case rect && !(r.Width > 0 && r.Height > 0):
		return errors.New("a rectangular section needs both width and height")
	case r.InnerRadius > 0 && !(r.InnerRadius < r.Radius):
		return fmt.Errorf("innerRadius = %g must be below radius = %g", r.InnerRadius, r.Radius)
	}
	return nil
}

// section returns A, I₂ (about y) and I₃ (about z).
func (r *RodMass) section() (a, i2, i3 float64) {
	if r.Radius > 0 {
		ro, ri := r.Radius, r.InnerRadius
		a = math.Pi * (ro*ro - ri*ri)
		i2 = math.Pi / 4 * (ro*ro*ro*ro - ri*ri*ri*ri)
		return a, i2, i2
	}
	w, h := r.Width, r.Height
	return w * h, w * h * h * h / 12, h * w * w * w / 12
}

// Init distributes the elements' mass over the frames.
func (r *RodMass) Init() error {
	if err := r.Validate(); err != nil {
		return r.Wrap(err)
	}
	st := r.Node.State()
	if st == nil {
		return r.Errorf("needs a Rigid3 MechanicalObject in the same node")
	}
	if name := st.Template().Name(); name != graph.Rigid3.Name() {
		return r.Errorf("state %q has template %s; RodMass needs Rigid3 frames", st.Base().Path(), name)
	}
	n := st.Size()
	edges := r.Edges
	if len(edges) == 0 {
		for i := 0; i+1 < n; i++ {
			edges = append(edges, [2]int{i, i + 1})
		}
	}
	if len(edges) == 0 {
		return r.Errorf("state %q has %d frame(s); a rod needs at least 2", st.Base().Path(), n)
	}
	a, i2, i3 := r.section()
	r.area = a
	r.m = make([]float64, n)
	r.ib = make([]geom.Vec3, n)
	rest := st.Vec(graph.RestPosition)
	for e, ed := range edges {
		if ed[0] >= n || ed[1] >= n || ed[0] == ed[1] {
			return r.Errorf("edges[%d] = %v: frame indices must be distinct and below %d", e, ed, n)
		}
		l := geom.Vec3{rest[7*ed[1]], rest[7*ed[1]+1], rest[7*ed[1]+2]}.Sub(geom.Vec3{rest[7*ed[0]], rest[7*ed[0]+1], rest[7*ed[0]+2]}).Norm()
		h := 0.5 * r.MassDensity * l
		for _, k := range ed {
			r.m[k] += h * a
			r.ib[k] = r.ib[k].Add(geom.Vec3{h * (i2 + i3), h * i2, h * i3})
		}
	}
	for k, m := range r.m {
		if m == 0 {
			return r.Errorf("frame %d belongs to no element: it would have no mass", k)
		}
	}
	r.orient(st.Vec(graph.Position))
	return nil
}

func (r *RodMass) orient(x []float64) {
	n := len(x) / 7
	if len(r.rot) != n {
		r.rot = make([]geom.Mat3, n)
	}
	for k := 0; k < n; k++ {
		c := x[7*k : 7*k+7]
		r.rot[k] = geom.Quat{c[3], c[4], c[5], c[6]}.Mat()
	}
}

// FrameMass returns the translational mass and the body-frame principal
// inertia of frame k.
func (r *RodMass) FrameMass(k int) (float64, geom.Vec3) { return r.m[k], r.ib[k] }

func (r *RodMass) world(k int) geom.Mat3 {
	R := r.rot[k]
	return R.Mul(geom.Diag(r.ib[k])).MulT(R)
}

// AddForce implements graph.ForceField: f += m_k g on every translation;
// it records the orientations AddMDx and AccFromF use.
func (r *RodMass) AddForce(f, x, v []float64) {
	r.orient(x)
	g := r.Node.Gravity()
	for k, m := range r.m {
		f[6*k] += m * g[0]
		f[6*k+1] += m * g[1]
		f[6*k+2] += m * g[2]
	}
}

// AddDForce implements graph.ForceField: gravity is constant.
func (r *RodMass) AddDForce(df, dx []float64, kFactor, bFactor float64) {}

// PotentialEnergy implements graph.ForceField: −Σ m_k g·t_k.
func (r *RodMass) PotentialEnergy(x []float64) float64 {
	g := r.Node.Gravity()
	e := 0.0
	for k, m := range r.m {
		e -= m * (g[0]*x[7*k] + g[1]*x[7*k+1] + g[2]*x[7*k+2])
	}
	return e
}

// AddMDx implements graph.Mass.
func (r *RodMass) AddMDx(df, dx []float64, factor float64) {
	for k, m := range r.m {
		d, o := dx[6*k:6*k+6], df[6*k:6*k+6]
		o[0] += factor * m * d[0]
		o[1] += factor * m * d[1]
		o[2] += factor * m * d[2]
		t := r.world(k).MulVec(geom.Vec3{d[3], d[4], d[5]})
		o[3] += factor * t[0]
		o[4] += factor * t[1]
		o[5] += factor * t[2]
	}
}

// AccFromF implements graph.InverseMass.
func (r *RodMass) AccFromF(a, f []float64) {
	for k, m := range r.m {
		d, o := f[6*k:6*k+6], a[6*k:6*k+6]
		o[0], o[1], o[2] = d[0]/m, d[1]/m, d[2]/m
		R, ib := r.rot[k], r.ib[k]
		b := R.TMulVec(geom.Vec3{d[3], d[4], d[5]})
		w := R.MulVec(geom.Vec3{b[0] / ib[0], b[1] / ib[1], b[2] / ib[2]})
		o[3], o[4], o[5] = w[0], w[1], w[2]
	}
}

// KineticEnergy implements graph.Mass: Σ ½ m |v|² + ½ ωᵀ R I Rᵀ ω at the
// state's current orientations.
func (r *RodMass) KineticEnergy(v []float64) float64 {
	if st := r.Node.State(); st != nil {
		r.orient(st.Vec(graph.Position))
	}
	e := 0.0
	for k, m := range r.m {
		d := v[6*k : 6*k+6]
		w := geom.Vec3{d[3], d[4], d[5]}
		e += 0.5*m*(d[0]*d[0]+d[1]*d[1]+d[2]*d[2]) + 0.5*w.Dot(r.world(k).MulVec(w))
	}
	return e
}

// AddMToMatrix implements graph.MassAssembler.
func (r *RodMass) AddMToMatrix(mat graph.MatrixAccumulator, mFactor float64) {
	for k, m := range r.m {
		for c := 0; c < 3; c++ {
			mat.Add(6*k+c, 6*k+c, mFactor*m)
		}
		w := r.world(k)
		for a := 0; a < 3; a++ {
			for b := 0; b < 3; b++ {
				mat.Add(6*k+3+a, 6*k+3+b, mFactor*w[3*a+b])
			}
		}
	}
}
