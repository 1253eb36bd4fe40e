package mass

import (
	"fmt"
	"math"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/material"
)

// defaultDensity is the mass density the tetrahedral masses use when
// neither massDensity nor totalMass is given (water, kg/m³).
const defaultDensity = 1000.0

// DiagonalMass is the lumped mass of a tetrahedral mesh on a Vec3 state:
// every tetrahedron of volume V and density ρ contributes ρV/4 to each of
// its four vertices. This is the row-sum lumping of the consistent
// linear-tetrahedron mass matrix (MeshMatrixMass, whose element rows sum to
// ρV/4), as in VegaFEM's computeVertexMasses and SOFA's DiagonalMass, so the
// total mass is exactly Σ ρ_e V_e and rigid translations carry the exact
// momentum.
//
// On hexahedra (a topology serving graph.HexahedronTopology: a grid with
// elements = "hexahedra", a mesh file with hexahedra) each corner gets
// the row sum ρ∫Nₐ dV of the trilinear consistent mass (ρV/8 on a box);
// a topology may serve both kinds, each cell counting once.
//
// Lumped versus consistent: the lumped mass is diagonal, so M⁻¹ is free and
// explicit solvers can use it directly; it integrates ρ|v|² exactly only for
// piecewise-constant velocity fields (a rigid rotation already has too much
// kinetic energy on a coarse mesh), and it lowers the higher natural
// frequencies of the discretisation. MeshMatrixMass is exact for linear
// fields but needs a linear solve.
//
// Density: massDensity everywhere, overridden per tetrahedron by the
// embedded material.DensityMap (regions with a massDensity, tested on the
// rest centroid; or massDensityPerElement). A region's youngModulus is a
// force-field property and is ignored here (a region may set both, so one
// list of regions can be copied onto the force field and the mass); a
// region without a massDensity and youngModulusPerElement are errors on a
// mass rather than silent no-ops. With totalMass instead of
// massDensity, the density is the uniform one that gives that total (masses
// proportional to the incident volumes); it cannot be combined with
// per-element densities, which are absolute.
//
// The masses are computed once at Init from the state's rest positions and
// the tetrahedra of the node's topology (or the nearest ancestor's).
// Gravity: every vertex weighs m_i·g (potential −Σ m_i g·x_i).
type DiagonalMass struct {
	graph.ObjectBase
	MassDensity float64 `toml:"massDensity" doc:"mass density ρ (exclusive with totalMass; −1 means not given; 1000 kg/m³ when neither is given)" unit:"kg/m³" range:"(0,inf)"`
	TotalMass   float64 `toml:"totalMass" doc:"total mass, distributed in proportion to the volume around each vertex (exclusive with massDensity and with per-element densities; −1 means not given)" unit:"kg" range:"(0,inf)"`
	// Heterogeneity: regions' massDensity and massDensityPerElement apply;
	// youngModulus values belong to the force field.
	material.DensityMap

	masses []float64 // per vertex
	blocks []int32   // MassBlocks, built on first use
}

func init() {
	graph.Register(graph.TypeInfo{
		Name: "DiagonalMass",
		Kind: graph.KindMass,
		Summary: "Lumped (diagonal) mass of a tetrahedral mesh on a Vec3 state: each tetrahedron gives ρV/4 to each of its vertices (row-sum lumping, as VegaFEM and SOFA); " +
			"M⁻¹ is free, so explicit solvers use it directly. Density per tetrahedron from regions (each with a massDensity; a youngModulus there is for the force field) or massDensityPerElement; youngModulusPerElement is an error here. Applies gravity.",
		New: func() graph.Object { return &DiagonalMass{MassDensity: notGiven, TotalMass: notGiven} },
	})
}

// Validate checks the density fields (see validateTetMass).
func (d *DiagonalMass) Validate() error {
	return validateTetMass(d.MassDensity, d.TotalMass, &d.DensityMap)
}

// Init lumps the mass of the tetrahedra onto the vertices.
func (d *DiagonalMass) Init() error {
	tm, err := newTetMesh(&d.ObjectBase, d.MassDensity, d.TotalMass, &d.DensityMap)
	if err != nil {
		return err
	}
	d.masses = tm.vertexMasses()
	return nil
}

// VertexMasses returns the lumped mass of each vertex (not a copy).
func (d *DiagonalMass) VertexMasses() []float64 { return d.masses }

// AddForce adds the weight m_i·g of every vertex.
func (d *DiagonalMass) AddForce(f, x, v []float64) { addLumpedWeight(f, d.masses, d.Node.Gravity()) }

// AddDForce adds nothing: gravity does not depend on x or v.
func (d *DiagonalMass) AddDForce(df, dx []float64, kFactor, bFactor float64) {}

// PotentialEnergy returns the gravity potential −Σ m_i g·x_i.
func (d *DiagonalMass) PotentialEnergy(x []float64) float64 {
	return lumpedGravityPotential(x, d.masses, d.Node.Gravity())
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

// The helpers below are shared by DiagonalMass and MeshMatrixMass, so the
// lumped and consistent masses of one mesh come from the same element
// masses ρ_e·V_e and their row sums agree exactly.

// validateTetMass checks the density fields of a tetrahedral mass at load
// time: at most one of massDensity and totalMass; valid region shapes; no
// totalMass together with per-element densities (those are absolute, kg/m³,
// so the total would be over-determined).
func validateTetMass(massDensity, totalMass float64, h *material.DensityMap) error {
	if massDensity >= 0 && totalMass >= 0 {
		return fmt.Errorf("give massDensity or totalMass, not both (massDensity = %g, totalMass = %g)", massDensity, totalMass)
	}
	if err := h.CheckDensityMap(); err != nil {
		return err
	}
	if totalMass >= 0 && !h.Uniform() {
		return fmt.Errorf("totalMass = %g cannot be combined with per-element densities (regions or massDensityPerElement give absolute densities in kg/m³): give massDensity instead", totalMass)
	}
	return nil
}

// tetMesh is what a mesh mass reads at Init: the tetrahedra, the other
// cells (hexahedra, polyhedra: cells[k] with its scalar consistent mass
// matrix cellMats[k], n×n row-major for its n vertices, density
// included), the number of vertices of the state, and the mass ρ_e·V_e of
// every element (tetrahedra first, then the other cells in order).
type tetMesh struct {
	n        int
	tets     [][4]int
	cells    [][]int
	cellMats [][]float64
	elemMass []float64
}

// newTetMesh checks the state (Vec3) and the topology (tetrahedra and
// other cells whose vertices index the state), resolves the density of
// every element and returns the element masses ρ_e·V_e computed from the
// state's rest positions (scaled to totalMass when it is given), with the
// consistent matrices of the non-tetrahedral cells.
func newTetMesh(b *graph.ObjectBase, massDensity, totalMass float64, h *material.DensityMap) (*tetMesh, error) {
	if err := validateTetMass(massDensity, totalMass, h); err != nil {
		return nil, b.Wrap(err)
	}
	kind := b.TypeName
	st := b.Node.State()
	if st == nil {
		return nil, b.Errorf("needs a mechanical state in the same node")
	}
	if tm := st.Template(); tm.CoordSize() != 3 || tm.DerivSize() != 3 {
		if _, rigid := tm.(graph.Rigid3Template); rigid {
			return nil, b.Errorf("%s applies to Vec3 points, not %s frames: use RigidMass", kind, tm.Name())
		}
		return nil, b.Errorf("%s applies to Vec3 states, not %s", kind, tm.Name())
	}
	topo := b.Node.Topology()
	var tets [][4]int
	var hexes [][8]int
	var polys []graph.Polyhedron
	if topo != nil {
		tets, hexes, polys = topo.Tetrahedra(), graph.HexahedraOf(topo), graph.PolyhedraOf(topo)
	}
	if topo == nil || len(tets) == 0 && len(hexes) == 0 && len(polys) == 0 {
		return nil, b.Errorf("%s needs the tetrahedra, hexahedra or polyhedra of a topology in this node or above (e.g. RegularGridTopology); found none", kind)
	}
	n := st.Size()
	for e, t := range tets {
		for _, v := range t {
			if v < 0 || v >= n {
				return nil, b.Errorf("tetrahedron %d of topology %q has vertex %d, but the state has %d DOFs", e, topo.Base().Name, v, n)
			}
		}
	}
	for e, hx := range hexes {
		for _, v := range hx {
			if v < 0 || v >= n {
				return nil, b.Errorf("hexahedron %d of topology %q has vertex %d, but the state has %d DOFs", e, topo.Base().Name, v, n)
			}
		}
	}
	rest := st.Vec(graph.RestPosition)
	rho := defaultDensity
	if massDensity >= 0 {
		rho = massDensity
	}
	if totalMass >= 0 {
		rho = 1 // rescaled below
	}
	tm := &tetMesh{n: n, tets: tets}
	for _, hx := range hexes {
		tm.cells = append(tm.cells, hx[:])
		tm.cellMats = append(tm.cellMats, hexUnitMass(rest, hx))
	}
	if len(polys) > 0 {
		cells, mats, err := polyUnitMasses(topo, rest)
		if err != nil {
			return nil, b.Wrap(err)
		}
		tm.cells = append(tm.cells, cells...)
		tm.cellMats = append(tm.cellMats, mats...)
	}
	var dens []float64
	var err error
	if len(tm.cells) == 0 {
		dens, err = h.MassDensities(rest, tets, rho)
	} else {
		dens, err = h.MassDensitiesAt(tm.centres(rest), "cells (tetrahedra, hexahedra, then polyhedra)", rho)
	}
	if err != nil {
		return nil, b.Wrap(err)
	}
	me := make([]float64, len(tets)+len(tm.cells))
	total := 0.0
	for e, t := range tets {
		p0 := geom.At(rest, t[0])
		a := geom.At(rest, t[1]).Sub(p0)
		c := geom.At(rest, t[2]).Sub(p0)
		d := geom.At(rest, t[3]).Sub(p0)
		// The mass of an element does not depend on its orientation.
		me[e] = dens[e] * math.Abs(a.Dot(c.Cross(d))) / 6
		total += me[e]
	}
	for k, M := range tm.cellMats {
		e := len(tets) + k
		sum := 0.0
		for i := range M {
			M[i] *= dens[e]
			sum += M[i]
		}
		me[e] = sum
		total += sum
	}
	if totalMass >= 0 {
		if total == 0 {
			return nil, b.Errorf("the cells have zero total volume: cannot distribute totalMass = %g", totalMass)
		}
		s := totalMass / total
		for e := range me {
			me[e] *= s
		}
		for _, M := range tm.cellMats {
			for i := range M {
				M[i] *= s
			}
		}
	}
	tm.elemMass = me
	return tm, nil
}

// centres returns the rest centre of every element (the mean of its
// vertices), tetrahedra first, flat xyz.
func (m *tetMesh) centres(rest []float64) []float64 {
	out := make([]float64, 0, 3*(len(m.tets)+len(m.cells)))
	add := func(vs []int) {
		var c geom.Vec3
		for _, v := range vs {
			c = c.Add(geom.At(rest, v))
		}
		c = c.Scale(1 / float64(len(vs)))
		out = append(out, c[0], c[1], c[2])
	}
	for _, t := range m.tets {
		add(t[:])
	}
	for _, c := range m.cells {
		add(c)
	}
	return out
}

// vertexMasses returns the lumped masses: each tetrahedron gives a quarter
// of its mass to each of its vertices, each other cell the row sums of
// its consistent matrix (the row sums of the consistent mass throughout).
func (m *tetMesh) vertexMasses() []float64 {
	out := make([]float64, m.n)
	for e, t := range m.tets {
		q := m.elemMass[e] / 4
		for _, v := range t {
			out[v] += q
		}
	}
	for k, c := range m.cells {
		M, nv := m.cellMats[k], len(c)
		for a, v := range c {
			s := 0.0
			for _, x := range M[nv*a : nv*a+nv] {
				s += x
			}
			out[v] += s
		}
	}
	return out
}

// addLumpedWeight adds f_i += m_i·g. For a uniform field this is also the
// consistent weight M·g: (M_s ⊗ I₃)(1 ⊗ g) = (M_s·1) ⊗ g, the row sums
// times g.
func addLumpedWeight(f, masses []float64, g geom.Vec3) {
	for i, m := range masses {
		f[3*i] += m * g[0]
		f[3*i+1] += m * g[1]
		f[3*i+2] += m * g[2]
	}
}

// lumpedGravityPotential returns −Σ m_i g·x_i.
func lumpedGravityPotential(x, masses []float64, g geom.Vec3) float64 {
	e := 0.0
	for i, m := range masses {
		e -= m * (g[0]*x[3*i] + g[1]*x[3*i+1] + g[2]*x[3*i+2])
	}
	return e
}
