package mass

import (
	"fmt"
	"math"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
)

// defaultDensity is the mass density DiagonalMass uses when neither
// massDensity nor totalMass is given (water, kg/m³).
const defaultDensity = 1000.0

// DiagonalMass is the lumped mass of a tetrahedral mesh on a Vec3 state:
// every tetrahedron of volume V contributes ρV/4 to each of its four
// vertices. This is the row-sum lumping of the consistent linear-tetrahedron
// mass matrix (whose rows for one element sum to ρV/4), as in VegaFEM's
// lumped mass and SOFA's DiagonalMass, so the total mass is exactly ρ times
// the mesh volume and rigid translations carry the exact momentum.
//
// With totalMass instead of massDensity, the density is the one that gives
// that total (masses proportional to the incident volumes). The masses are
// computed once at Init from the state's rest positions and the tetrahedra
// of the node's topology (or the nearest ancestor's).
//
// Gravity: every vertex weighs m_i·g (potential −Σ m_i g·x_i).
type DiagonalMass struct {
	graph.ObjectBase
	MassDensity float64 `toml:"massDensity" doc:"mass density ρ (exclusive with totalMass; −1 means not given; 1000 kg/m³ when neither is given)" unit:"kg/m³" range:"(0,inf)"`
	TotalMass   float64 `toml:"totalMass" doc:"total mass, distributed in proportion to the volume around each vertex (exclusive with massDensity; −1 means not given)" unit:"kg" range:"(0,inf)"`

	masses []float64 // per vertex
}

func init() {
	graph.Register(graph.TypeInfo{
		Name:    "DiagonalMass",
		Kind:    graph.KindMass,
		Summary: "Lumped (diagonal) mass of a tetrahedral mesh on a Vec3 state: each tetrahedron gives ρV/4 to each of its vertices (row-sum lumping, as VegaFEM and SOFA); applies gravity.",
		New:     func() graph.Object { return &DiagonalMass{MassDensity: notGiven, TotalMass: notGiven} },
	})
}

// Validate checks that at most one of massDensity and totalMass is given.
func (d *DiagonalMass) Validate() error {
	if d.MassDensity >= 0 && d.TotalMass >= 0 {
		return fmt.Errorf("give massDensity or totalMass, not both (massDensity = %g, totalMass = %g)", d.MassDensity, d.TotalMass)
	}
	return nil
}

// Init lumps the mass of the tetrahedra onto the vertices.
func (d *DiagonalMass) Init() error {
	if err := d.Validate(); err != nil {
		return d.Wrap(err)
	}
	st := d.Node.State()
	if st == nil {
		return d.Errorf("needs a mechanical state in the same node")
	}
	if tm := st.Template(); tm.CoordSize() != 3 || tm.DerivSize() != 3 {
		if _, rigid := tm.(graph.Rigid3Template); rigid {
			return d.Errorf("DiagonalMass applies to Vec3 points, not %s frames: use RigidMass", tm.Name())
		}
		return d.Errorf("DiagonalMass applies to Vec3 states, not %s", tm.Name())
	}
	topo := d.Node.Topology()
	if topo == nil || len(topo.Tetrahedra()) == 0 {
		return d.Errorf("DiagonalMass needs the tetrahedra of a topology in this node or above (e.g. RegularGridTopology); found none")
	}
	n := st.Size()
	rest := st.Vec(graph.RestPosition)
	rho := defaultDensity
	if d.MassDensity >= 0 {
		rho = d.MassDensity
	}
	if d.TotalMass >= 0 {
		rho = 1 // rescaled below
	}
	d.masses = make([]float64, n)
	for e, t := range topo.Tetrahedra() {
		for _, v := range t {
			if v < 0 || v >= n {
				return d.Errorf("tetrahedron %d of topology %q has vertex %d, but the state has %d DOFs", e, topo.Base().Name, v, n)
			}
		}
		p0 := geom.At(rest, t[0])
		a := geom.At(rest, t[1]).Sub(p0)
		b := geom.At(rest, t[2]).Sub(p0)
		c := geom.At(rest, t[3]).Sub(p0)
		// The mass of an element does not depend on its orientation.
		quarter := rho * math.Abs(a.Dot(b.Cross(c))) / 24
		for _, v := range t {
			d.masses[v] += quarter
		}
	}
	if d.TotalMass >= 0 {
		vol := 0.0
		for _, m := range d.masses {
			vol += m
		}
		if vol == 0 {
			return d.Errorf("the tetrahedra have zero total volume: cannot distribute totalMass = %g", d.TotalMass)
		}
		s := d.TotalMass / vol
		for i := range d.masses {
			d.masses[i] *= s
		}
	}
	return nil
}

// VertexMasses returns the lumped mass of each vertex (not a copy).
func (d *DiagonalMass) VertexMasses() []float64 { return d.masses }

// AddForce adds the weight m_i·g of every vertex.
func (d *DiagonalMass) AddForce(f, x, v []float64) {
	g := d.Node.Gravity()
	for i, m := range d.masses {
		f[3*i] += m * g[0]
		f[3*i+1] += m * g[1]
		f[3*i+2] += m * g[2]
	}
}

// AddDForce adds nothing: gravity does not depend on x or v.
func (d *DiagonalMass) AddDForce(df, dx []float64, kFactor, bFactor float64) {}

// PotentialEnergy returns the gravity potential −Σ m_i g·x_i.
func (d *DiagonalMass) PotentialEnergy(x []float64) float64 {
	g := d.Node.Gravity()
	e := 0.0
	for i, m := range d.masses {
		e -= m * (g[0]*x[3*i] + g[1]*x[3*i+1] + g[2]*x[3*i+2])
	}
	return e
}

// AddMDx accumulates df += factor·M·dx.
func (d *DiagonalMass) AddMDx(df, dx []float64, factor float64) {
	for i, m := range d.masses {
		s := factor * m
		df[3*i] += s * dx[3*i]
		df[3*i+1] += s * dx[3*i+1]
		df[3*i+2] += s * dx[3*i+2]
	}
}

// KineticEnergy returns ½ Σ m_i |v_i|².
func (d *DiagonalMass) KineticEnergy(v []float64) float64 {
	e := 0.0
	for i, m := range d.masses {
		e += m * (v[3*i]*v[3*i] + v[3*i+1]*v[3*i+1] + v[3*i+2]*v[3*i+2])
	}
	return 0.5 * e
}

// AccFromF implements graph.InverseMass: a_i = f_i/m_i. A vertex in no
// tetrahedron has zero mass; explicit solvers call CheckInvertible first.
func (d *DiagonalMass) AccFromF(a, f []float64) {
	for i, m := range d.masses {
		a[3*i] = f[3*i] / m
		a[3*i+1] = f[3*i+1] / m
		a[3*i+2] = f[3*i+2] / m
	}
}

// CheckInvertible reports whether M⁻¹ exists: every vertex must have a
// positive mass (a vertex that belongs to no tetrahedron has none).
func (d *DiagonalMass) CheckInvertible() error {
	for i, m := range d.masses {
		if !(m > 0) {
			return fmt.Errorf("vertex %d has mass %g (it belongs to no tetrahedron of positive volume): M⁻¹f is undefined", i, m)
		}
	}
	return nil
}
