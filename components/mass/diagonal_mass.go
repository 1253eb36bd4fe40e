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
// On a triangle surface (a topology with triangles and no volume cells:
// a flat RegularGridTopology, a MeshLoader surface from STL, OBJ or a
// triangle mesh file) each triangle of area A gives ρh·A/3 to each of its
// corners, the row sums of the consistent triangle mass (MeshMatrixMass),
// with the mass per area ρh = massDensity × thickness (kg/m³ × m; per
// triangle with regions or massDensityPerElement) or surfaceDensity
// (kg/m²) or the uniform one giving totalMass. A surface has no default
// density, and massDensity without thickness is an error: SOFA's
// DiagonalMass reads massDensity on triangles as a mass per area, which
// here is surfaceDensity, so a scene copied from SOFA fails with a
// message saying so instead of being 1/h times too heavy or light.
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
	MassDensity    float64 `toml:"massDensity" doc:"mass density ρ, a volume density on surfaces too (exclusive with totalMass; −1 means not given; 1000 kg/m³ on a volume mesh when neither is given; no default on a triangle surface)" unit:"kg/m³" range:"(0,inf)"`
	TotalMass      float64 `toml:"totalMass" doc:"total mass, distributed in proportion to the volume (on a surface, the area) around each vertex (exclusive with massDensity and with per-element densities; −1 means not given)" unit:"kg" range:"(0,inf)"`
	Thickness      float64 `toml:"thickness" doc:"triangle surfaces only (no volume cells in the topology): the sheet's thickness h, the mass per area being massDensity·h (needs massDensity; −1 means not given; an error on a volume mesh)" unit:"m" range:"(0,inf)"`
	SurfaceDensity float64 `toml:"surfaceDensity" doc:"triangle surfaces only: the mass per area ρh (what SOFA calls massDensity on triangles; alone, exclusive with massDensity, thickness and totalMass; −1 means not given; an error on a volume mesh)" unit:"kg/m²" range:"(0,inf)"`
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
			"M⁻¹ is free, so explicit solvers use it directly. On a triangle surface (no volume cells), ρhA/3 per corner with ρh = massDensity·thickness or surfaceDensity (kg/m²). Density per tetrahedron from regions (each with a massDensity; a youngModulus there is for the force field) or massDensityPerElement; youngModulusPerElement is an error here. Applies gravity.",
		New: func() graph.Object {
			return &DiagonalMass{MassDensity: notGiven, TotalMass: notGiven, Thickness: notGiven, SurfaceDensity: notGiven}
		},
	})
}

// fields returns the density fields for the shared helpers.
func (d *DiagonalMass) fields() meshMassFields {
	return meshMassFields{d.MassDensity, d.TotalMass, d.Thickness, d.SurfaceDensity, &d.DensityMap}
}

// Validate checks the density fields (see validateMeshMass).
func (d *DiagonalMass) Validate() error { return validateMeshMass(d.fields()) }

// Init lumps the mass of the tetrahedra onto the vertices.
func (d *DiagonalMass) Init() error {
	tm, err := newTetMesh(&d.ObjectBase, d.fields())
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
// positive mass (a vertex that belongs to no element has none).
func (d *DiagonalMass) CheckInvertible() error {
	for i, m := range d.masses {
		if !(m > 0) {
			return fmt.Errorf("vertex %d has mass %g (it belongs to no element of positive volume or area): M⁻¹f is undefined", i, m)
		}
	}
	return nil
}

// The helpers below are shared by DiagonalMass and MeshMatrixMass, so the
// lumped and consistent masses of one mesh come from the same element
// masses and their row sums agree exactly.

// meshMassFields are the density fields DiagonalMass and MeshMatrixMass
// share (notGiven for a field the scene does not set).
type meshMassFields struct {
	massDensity, totalMass float64
	thickness              float64 // surfaces only: mass per area = massDensity·thickness
	surfaceDensity         float64 // surfaces only: mass per area, kg/m²
	h                      *material.DensityMap
}

// validateMeshMass checks the density fields of a mesh mass at load time:
// at most one of massDensity and totalMass; thickness only with
// massDensity; surfaceDensity alone (it is the mass per area itself);
// valid region shapes; no totalMass or surfaceDensity together with
// per-element densities (those are absolute, kg/m³, so the total would be
// over-determined, and on a surface they are multiplied by thickness).
// Whether the mesh is a volume or a surface is known only at Init (see
// newTetMesh).
func validateMeshMass(p meshMassFields) error {
	if p.massDensity >= 0 && p.totalMass >= 0 {
		return fmt.Errorf("give massDensity or totalMass, not both (massDensity = %g, totalMass = %g)", p.massDensity, p.totalMass)
	}
	if p.surfaceDensity >= 0 && (p.massDensity >= 0 || p.thickness >= 0 || p.totalMass >= 0) {
		return fmt.Errorf("surfaceDensity = %g kg/m² is the mass per area of the surface by itself: give it alone, or massDensity (kg/m³) with thickness (m), or totalMass (kg)", p.surfaceDensity)
	}
	if p.thickness >= 0 && p.totalMass >= 0 {
		return fmt.Errorf("thickness = %g and totalMass = %g: totalMass fixes the mass by itself, so the thickness would be ignored; give totalMass alone, or massDensity (kg/m³) with thickness (m)", p.thickness, p.totalMass)
	}
	if p.thickness >= 0 && p.massDensity < 0 {
		return fmt.Errorf("thickness = %g m needs massDensity (kg/m³; the mass per area is massDensity·thickness); or give surfaceDensity (kg/m²) instead of thickness", p.thickness)
	}
	if err := p.h.CheckDensityMap(); err != nil {
		return err
	}
	if p.totalMass >= 0 && !p.h.Uniform() {
		return fmt.Errorf("totalMass = %g cannot be combined with per-element densities (regions or massDensityPerElement give absolute densities in kg/m³): give massDensity instead", p.totalMass)
	}
	if p.surfaceDensity >= 0 && !p.h.Uniform() {
		return fmt.Errorf("surfaceDensity = %g cannot be combined with per-element densities (regions and massDensityPerElement are volume densities in kg/m³, multiplied by thickness on a surface): give massDensity and thickness instead", p.surfaceDensity)
	}
	return nil
}

// tetMesh is what a mesh mass reads at Init: the tetrahedra, the other
// cells (hexahedra, polyhedra, or the triangles of a surface: cells[k]
// with its scalar consistent mass matrix cellMats[k], n×n row-major for
// its n vertices, density included), the number of vertices of the
// state, and the mass of every element (tetrahedra first, then the other
// cells in order).
type tetMesh struct {
	n        int
	tets     [][4]int
	cells    [][]int
	cellMats [][]float64
	elemMass []float64
	surface  bool // the cells are the triangles of a surface
}

// triangleUnitMass returns the consistent mass matrix of a linear
// triangle of rest corners a, b, c for a unit mass per area,
// M_ab = ∫ Nₐ N_b dA = A/12·(1 + δ_ab) (Zienkiewicz & Taylor, vol. 1,
// the linear triangle), 3×3 row-major: A/6 on the diagonal, A/12 off it,
// row sums A/3, total A. The area does not depend on the orientation.
func triangleUnitMass(rest []float64, t [3]int) []float64 {
	p0 := geom.At(rest, t[0])
	A := 0.5 * geom.At(rest, t[1]).Sub(p0).Cross(geom.At(rest, t[2]).Sub(p0)).Norm()
	d, o := A/6, A/12
	return []float64{d, o, o, o, d, o, o, o, d}
}

// newTetMesh checks the state (Vec3) and the topology, resolves the
// density of every element and returns the element masses computed from
// the state's rest positions (scaled to totalMass when it is given), with
// the consistent matrices of the non-tetrahedral cells.
//
// Volume cells (tetrahedra, hexahedra, polyhedra) are used when the
// topology has any: their mass is ρ_e·V_e, with massDensity (kg/m³, 1000
// when neither it nor totalMass is given) or totalMass; thickness and
// surfaceDensity are errors there. A topology with triangles and no
// volume cells (a flat RegularGridTopology, a MeshLoader surface from
// STL, OBJ or a Gmsh/VTK triangle mesh) is a surface: each triangle of
// area A gets the mass ρh·A with the mass per area ρh = massDensity ×
// thickness (per-triangle densities from the DensityMap, times
// thickness), or surfaceDensity, or the uniform value giving totalMass.
// A surface has no default: massDensity without thickness (SOFA reads
// massDensity on triangles as a mass per area; here massDensity is always
// kg/m³) or no density at all is an error.
func newTetMesh(b *graph.ObjectBase, p meshMassFields) (*tetMesh, error) {
	if err := validateMeshMass(p); err != nil {
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
	var tris [][3]int
	if topo != nil {
		tets, hexes, polys, tris = topo.Tetrahedra(), graph.HexahedraOf(topo), graph.PolyhedraOf(topo), topo.Triangles()
	}
	volume := len(tets) > 0 || len(hexes) > 0 || len(polys) > 0
	if topo == nil || !volume && len(tris) == 0 {
		return nil, b.Errorf("%s needs the tetrahedra, hexahedra or polyhedra of a topology in this node or above (e.g. RegularGridTopology), or the triangles of a surface (a flat RegularGridTopology, a MeshLoader surface); found none", kind)
	}
	n := st.Size()
	if volume && (p.thickness >= 0 || p.surfaceDensity >= 0) {
		return nil, b.Errorf("thickness and surfaceDensity are for triangle surfaces, but topology %q has volume cells (%d tetrahedra, %d hexahedra, %d polyhedra): give massDensity (kg/m³) or totalMass (kg)",
			topo.Base().Name, len(tets), len(hexes), len(polys))
	}
	if !volume {
		return newSurfaceMesh(b, p, topo, tris, n)
	}
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
	if p.massDensity >= 0 {
		rho = p.massDensity
	}
	if p.totalMass >= 0 {
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
		dens, err = p.h.MassDensities(rest, tets, rho)
	} else {
		dens, err = p.h.MassDensitiesAt(tm.centres(rest), "cells (tetrahedra, hexahedra, then polyhedra)", rho)
	}
	if err != nil {
		return nil, b.Wrap(err)
	}
	me := make([]float64, len(tets)+len(tm.cells))
	for e, t := range tets {
		p0 := geom.At(rest, t[0])
		a := geom.At(rest, t[1]).Sub(p0)
		c := geom.At(rest, t[2]).Sub(p0)
		d := geom.At(rest, t[3]).Sub(p0)
		// The mass of an element does not depend on its orientation.
		me[e] = dens[e] * math.Abs(a.Dot(c.Cross(d))) / 6
	}
	if err := tm.finish(b, me, dens, p.totalMass); err != nil {
		return nil, err
	}
	return tm, nil
}

// newSurfaceMesh builds the element masses of the triangles of a surface
// (see newTetMesh): unit-density matrices A/12·(1 + δ_ab) times the mass
// per area of each triangle.
func newSurfaceMesh(b *graph.ObjectBase, p meshMassFields, topo graph.Topology, tris [][3]int, n int) (*tetMesh, error) {
	name := topo.Base().Name
	switch {
	case p.massDensity >= 0 && p.thickness < 0:
		return nil, b.Errorf("topology %q is a triangle surface (%d triangles, no volume cells): massDensity = %g kg/m³ needs the sheet's thickness (m), the mass per area being massDensity·thickness; or give surfaceDensity (kg/m²; SOFA's massDensity on triangles is this mass per area) or totalMass (kg)",
			name, len(tris), p.massDensity)
	case p.massDensity < 0 && p.surfaceDensity < 0 && p.totalMass < 0:
		return nil, b.Errorf("topology %q is a triangle surface (%d triangles, no volume cells), which has no default density: give massDensity (kg/m³) with thickness (m), or surfaceDensity (kg/m²), or totalMass (kg)",
			name, len(tris))
	}
	for e, t := range tris {
		for _, v := range t {
			if v < 0 || v >= n {
				return nil, b.Errorf("triangle %d of topology %q has vertex %d, but the state has %d DOFs", e, name, v, n)
			}
		}
	}
	rest := b.Node.State().Vec(graph.RestPosition)
	tm := &tetMesh{n: n, surface: true}
	tm.cells = make([][]int, len(tris))
	tm.cellMats = make([][]float64, len(tris))
	for e := range tris {
		tm.cells[e] = tris[e][:]
		tm.cellMats[e] = triangleUnitMass(rest, tris[e])
	}
	var dens []float64
	switch {
	case p.surfaceDensity >= 0:
		dens = make([]float64, len(tris))
		for e := range dens {
			dens[e] = p.surfaceDensity
		}
	case p.totalMass >= 0:
		dens = make([]float64, len(tris))
		for e := range dens {
			dens[e] = 1 // rescaled in finish
		}
	default:
		var err error
		dens, err = p.h.MassDensitiesAt(tm.centres(rest), "triangles", p.massDensity)
		if err != nil {
			return nil, b.Wrap(err)
		}
		for e := range dens {
			dens[e] *= p.thickness
		}
	}
	if err := tm.finish(b, make([]float64, len(tris)), dens, p.totalMass); err != nil {
		return nil, err
	}
	return tm, nil
}

// finish scales the unit cell matrices by their densities (dens lists the
// tetrahedra first, whose masses me[:len(tets)] are already set), sets the
// cells' masses to their matrices' totals, and rescales everything to
// totalMass when it is given.
func (tm *tetMesh) finish(b *graph.ObjectBase, me, dens []float64, totalMass float64) error {
	for k, M := range tm.cellMats {
		e := len(tm.tets) + k
		sum := 0.0
		for i := range M {
			M[i] *= dens[e]
			sum += M[i]
		}
		me[e] = sum
	}
	if totalMass >= 0 {
		total := 0.0
		for _, m := range me {
			total += m
		}
		if total == 0 {
			what := "cells have zero total volume"
			if tm.surface {
				what = "triangles have zero total area"
			}
			return b.Errorf("the %s: cannot distribute totalMass = %g", what, totalMass)
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
	return nil
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
