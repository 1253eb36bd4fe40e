package mass

import (
	"slices"

	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/material"
)

// MeshMatrixMass is the consistent mass matrix of a linear-tetrahedron mesh
// on a Vec3 state (SOFA's MeshMatrixMass, VegaFEM's GenerateMassMatrix):
//
//	M = Σ_e M_e ⊗ I₃,   M_e = ρ_e V_e / 20 · (I₄ + 11ᵀ),
//
// i.e. ∫ρ N_a N_b dV over each tetrahedron (ρV/10 on the diagonal, ρV/20
// off it; Zienkiewicz & Taylor, "The Finite Element Method", vol. 1,
// the consistent mass of the linear tetrahedron). The same scalar matrix
// acts on x, y and z, with no coupling between them. It is stored once, as
// the compressed sparse rows of the n×n scalar matrix (a diagonal entry and
// one entry per mesh edge in every row), so M·dx is one sparse product.
//
// On hexahedra (graph.HexahedronTopology) the element matrix is
// M_ab = ∫ρ Nₐ N_b dV of the trilinear shape functions, by 3×3×3 Gauss
// points (exact for any trilinear hexahedron; on a box it is the tensor
// product of the 1-D (h/6)[2 1; 1 2]); massDensityPerElement then lists
// the tetrahedra first, then the hexahedra.
//
// On a triangle surface (triangles and no volume cells in the topology:
// a flat RegularGridTopology, a MeshLoader surface) the element matrix is
// that of the linear triangle, M_ab = ρh∫Nₐ N_b dA = ρh·A/12·(1 + δ_ab)
// (ρhA/6 on the diagonal, ρhA/12 off it, row sums ρhA/3), with the mass
// per area ρh from massDensity × thickness, surfaceDensity or totalMass
// exactly as for DiagonalMass (no default; massDensity without thickness
// is an error, since SOFA reads it as a mass per area on triangles).
//
// Consistent versus lumped (DiagonalMass, the row sums of this matrix):
// the consistent mass integrates ρ u·v exactly for the piecewise-linear
// fields of the mesh, so the kinetic energy of any linear velocity field
// (a rigid rotation, a uniform strain rate) is exact, and the higher natural
// frequencies of the discretisation are more accurate (the lumped mass
// lowers them, the consistent one bounds them from above). Its inverse is
// full, so it does not implement graph.InverseMass: an explicit solver must
// solve M·a = f with a linear solver in its node (EulerExplicitSolver does
// so with CGLinearSolver; without one it stops with an error), and implicit
// solvers just see M in their system matrix. The lumped mass is diagonal
// and explicit-friendly at the price of those inaccuracies.
//
// Density: massDensity (or the uniform density giving totalMass),
// overridden per tetrahedron by the embedded material.DensityMap, exactly
// as for DiagonalMass (a region's youngModulus is ignored; a region
// without a massDensity and youngModulusPerElement are errors).
//
// Gravity: f = M·g. For a uniform field g this is the row sums times g, the
// lumped weight, and it is computed that way (exactly the DiagonalMass
// weight); the potential is −Σ (M g)·x = −Σ m_i g·x_i.
type MeshMatrixMass struct {
	graph.ObjectBase
	MassDensity    float64 `toml:"massDensity" doc:"mass density ρ, a volume density on surfaces too (exclusive with totalMass; −1 means not given; 1000 kg/m³ on a volume mesh when neither is given; no default on a triangle surface)" unit:"kg/m³" range:"(0,inf)"`
	TotalMass      float64 `toml:"totalMass" doc:"total mass, with the uniform density that gives it (exclusive with massDensity and with per-element densities; −1 means not given)" unit:"kg" range:"(0,inf)"`
	Thickness      float64 `toml:"thickness" doc:"triangle surfaces only (no volume cells in the topology): the sheet's thickness h, the mass per area being massDensity·h (needs massDensity; −1 means not given; an error on a volume mesh)" unit:"m" range:"(0,inf)"`
	SurfaceDensity float64 `toml:"surfaceDensity" doc:"triangle surfaces only: the mass per area ρh (what SOFA calls massDensity on triangles; alone, exclusive with massDensity, thickness and totalMass; −1 means not given; an error on a volume mesh)" unit:"kg/m²" range:"(0,inf)"`
	// Heterogeneity: regions' massDensity and massDensityPerElement apply;
	// youngModulus values belong to the force field.
	material.DensityMap

	// The n×n scalar matrix in CSR form: row i holds columns
	// col[rowPtr[i]:rowPtr[i+1]] (sorted, the diagonal included) with values
	// val[...]. int32 indices halve the index traffic of the product.
	rowPtr []int32
	col    []int32
	val    []float64
	lumped []float64 // row sums, Σ_e ρ_e V_e / 4 over the incident elements
	blocks []int32   // MassBlocks, built on first use
}

func init() {
	graph.Register(graph.TypeInfo{
		Name: "MeshMatrixMass",
		Kind: graph.KindMass,
		Summary: "Consistent mass of a tetrahedral mesh on a Vec3 state: ρV/20·(I₄ + 11ᵀ) per tetrahedron and scalar DOF, ⊗ I₃ (SOFA, VegaFEM). Exact kinetic energy for linear velocity fields; " +
			"no cheap inverse (explicit solvers need a linear solver). On a triangle surface (no volume cells), ρhA/12·(1 + δ_ab) per triangle with ρh = massDensity·thickness or surfaceDensity (kg/m²). Density per tetrahedron from regions (each with a massDensity; a youngModulus there is for the force field) or massDensityPerElement; youngModulusPerElement is an error here. Applies gravity M·g.",
		New: func() graph.Object {
			return &MeshMatrixMass{MassDensity: notGiven, TotalMass: notGiven, Thickness: notGiven, SurfaceDensity: notGiven}
		},
	})
}

// fields returns the density fields for the shared helpers.
func (m *MeshMatrixMass) fields() meshMassFields {
	return meshMassFields{m.MassDensity, m.TotalMass, m.Thickness, m.SurfaceDensity, &m.DensityMap}
}

// Validate checks the density fields (see validateMeshMass).
func (m *MeshMatrixMass) Validate() error { return validateMeshMass(m.fields()) }

// Init assembles the consistent mass.
func (m *MeshMatrixMass) Init() error {
	tm, err := newTetMesh(&m.ObjectBase, m.fields())
	if err != nil {
		return err
	}
	m.lumped = tm.vertexMasses()
	m.assemble(tm)
	return nil
}

// assemble builds the CSR pattern from the vertex pairs of the tetrahedra
// (each vertex with itself and its edge neighbours) and adds the element
// matrices ρV/10 (diagonal) and ρV/20 (off-diagonal).
func (m *MeshMatrixMass) assemble(tm *tetMesh) {
	n := tm.n
	// Pattern: all (row, col) pairs of every element, sorted and deduplicated
	// (≈ 16 per element, done once).
	pairs := make([]uint64, 0, 16*len(tm.tets)+n)
	for i := 0; i < n; i++ {
		pairs = append(pairs, uint64(i)<<32|uint64(i)) // a vertex in no element keeps a zero diagonal
	}
	for _, t := range tm.tets {
		for _, a := range t {
			for _, b := range t {
				pairs = append(pairs, uint64(a)<<32|uint64(b))
			}
		}
	}
	for _, c := range tm.cells {
		for _, a := range c {
			for _, b := range c {
				pairs = append(pairs, uint64(a)<<32|uint64(b))
			}
		}
	}
	slices.Sort(pairs)
	pairs = slices.Compact(pairs)
	m.rowPtr = make([]int32, n+1)
	m.col = make([]int32, len(pairs))
	m.val = make([]float64, len(pairs))
	for k, p := range pairs {
		m.rowPtr[int(p>>32)+1]++
		m.col[k] = int32(uint32(p))
	}
	for i := 0; i < n; i++ {
		m.rowPtr[i+1] += m.rowPtr[i]
	}
	for e, t := range tm.tets {
		diag, off := tm.elemMass[e]/10, tm.elemMass[e]/20
		for _, a := range t {
			row := m.col[m.rowPtr[a]:m.rowPtr[a+1]]
			for _, b := range t {
				k, _ := slices.BinarySearch(row, int32(b))
				if a == b {
					m.val[int(m.rowPtr[a])+k] += diag
				} else {
					m.val[int(m.rowPtr[a])+k] += off
				}
			}
		}
	}
	for c, cell := range tm.cells {
		M, nv := tm.cellMats[c], len(cell)
		for i, a := range cell {
			row := m.col[m.rowPtr[a]:m.rowPtr[a+1]]
			for j, b := range cell {
				k, _ := slices.BinarySearch(row, int32(b))
				m.val[int(m.rowPtr[a])+k] += M[nv*i+j]
			}
		}
	}
}

// ScalarMatrix returns the n×n scalar consistent mass in CSR form (not
// copies): row i has the sorted columns col[rowPtr[i]:rowPtr[i+1]] and
// values val[rowPtr[i]:rowPtr[i+1]]. The 3n×3n mass is this ⊗ I₃.
func (m *MeshMatrixMass) ScalarMatrix() (rowPtr, col []int32, val []float64) {
	return m.rowPtr, m.col, m.val
}

// VertexMasses returns the row sums of the scalar matrix, Σ ρ_e V_e/4 over
// each vertex's elements: the lumped masses of DiagonalMass (not a copy).
func (m *MeshMatrixMass) VertexMasses() []float64 { return m.lumped }

// AddForce adds the weight M·g, i.e. m_i·g per vertex with m_i the row sums.
func (m *MeshMatrixMass) AddForce(f, x, v []float64) { addLumpedWeight(f, m.lumped, m.Node.Gravity()) }

// AddDForce adds nothing: gravity does not depend on x or v.
func (m *MeshMatrixMass) AddDForce(df, dx []float64, kFactor, bFactor float64) {}

// PotentialEnergy returns the gravity potential −(M g)·x = −Σ m_i g·x_i.
func (m *MeshMatrixMass) PotentialEnergy(x []float64) float64 {
	return lumpedGravityPotential(x, m.lumped, m.Node.Gravity())
}

// AddMDx accumulates df += factor·M·dx: one pass over the CSR rows, the
// three components of a row gathered together. Entries are taken two at a
// time into two sets of sums, which halves the floating-point add latency
// chain that otherwise bounds the loop (≈ 2× faster).
func (m *MeshMatrixMass) AddMDx(df, dx []float64, factor float64) {
	rowPtr, col, val := m.rowPtr, m.col, m.val
	n := len(rowPtr) - 1
	df = df[:3*n]
	dx = dx[:3*n]
	for i := 0; i < n; i++ {
		lo, hi := rowPtr[i], rowPtr[i+1]
		cols := col[lo:hi]
		vals := val[lo:hi]
		vals = vals[:len(cols)]
		var ax, ay, az, bx, by, bz float64
		k := 0
		for ; k+1 < len(cols); k += 2 {
			wa, wb := vals[k], vals[k+1]
			ja, jb := 3*int(cols[k]), 3*int(cols[k+1])
			da := dx[ja : ja+3 : ja+3]
			db := dx[jb : jb+3 : jb+3]
			ax += wa * da[0]
			ay += wa * da[1]
			az += wa * da[2]
			bx += wb * db[0]
			by += wb * db[1]
			bz += wb * db[2]
		}
		if k < len(cols) {
			w, j := vals[k], 3*int(cols[k])
			d := dx[j : j+3 : j+3]
			ax += w * d[0]
			ay += w * d[1]
			az += w * d[2]
		}
		o := df[3*i : 3*i+3 : 3*i+3]
		o[0] += factor * (ax + bx)
		o[1] += factor * (ay + by)
		o[2] += factor * (az + bz)
	}
}

// KineticEnergy returns ½ vᵀMv.
func (m *MeshMatrixMass) KineticEnergy(v []float64) float64 {
	rowPtr, col, val := m.rowPtr, m.col, m.val
	e := 0.0
	for i := 0; i+1 < len(rowPtr); i++ {
		var sx, sy, sz float64
		lo, hi := rowPtr[i], rowPtr[i+1]
		for k, j := range col[lo:hi] {
			w := val[int(lo)+k]
			sx += w * v[3*j]
			sy += w * v[3*j+1]
			sz += w * v[3*j+2]
		}
		e += v[3*i]*sx + v[3*i+1]*sy + v[3*i+2]*sz
	}
	return 0.5 * e
}
