package mass

import "github.com/sofago/sofago/graph"

// This file implements graph.MassAssembler for the masses that have a
// matrix worth assembling (direct solvers, preconditioners, modal
// analysis): m += f·M with the state's derivative layout (DOF i, component
// c at row i·DerivSize + c), and graph.MassBlockAssembler (M as 3×3
// blocks of points) on Vec3 states.

var (
	_ graph.MassAssembler      = (*DiagonalMass)(nil)
	_ graph.MassAssembler      = (*MeshMatrixMass)(nil)
	_ graph.MassAssembler      = (*UniformMass)(nil)
	_ graph.MassBlockAssembler = (*DiagonalMass)(nil)
	_ graph.MassBlockAssembler = (*MeshMatrixMass)(nil)
	_ graph.MassBlockAssembler = (*UniformMass)(nil)
)

// diagonalBlocks returns the pairs (i, i) of n points.
func diagonalBlocks(n int) []int32 {
	p := make([]int32, 2*n)
	for i := 0; i < n; i++ {
		p[2*i], p[2*i+1] = int32(i), int32(i)
	}
	return p
}

// writeScaledIdentities writes the blocks s·mᵢ·I₃ into vals (9 per block).
func writeScaledIdentities(vals, m []float64, s float64) {
	vals = vals[:9*len(m)]
	for i, mi := range m {
		v := s * mi
		b := vals[9*i : 9*i+9 : 9*i+9]
		b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8] = v, 0, 0, 0, v, 0, 0, 0, v
	}
}

// MassBlocks implements graph.MassBlockAssembler: one diagonal block per
// vertex.
func (d *DiagonalMass) MassBlocks() []int32 {
	if len(d.blocks) != 2*len(d.masses) {
		d.blocks = diagonalBlocks(len(d.masses))
	}
	return d.blocks
}

// MBlocks implements graph.MassBlockAssembler: mFactor·mᵢ·I₃ per vertex.
func (d *DiagonalMass) MBlocks(vals []float64, mFactor float64) {
	writeScaledIdentities(vals, d.masses, mFactor)
}

// MassBlocks implements graph.MassBlockAssembler: the pattern of the
// scalar matrix Mₛ, row by row (M = Mₛ ⊗ I₃).
func (mm *MeshMatrixMass) MassBlocks() []int32 {
	if len(mm.blocks) != 2*len(mm.col) && mm.rowPtr != nil {
		n := len(mm.rowPtr) - 1
		mm.blocks = make([]int32, 0, 2*len(mm.col))
		for i := 0; i < n; i++ {
			for _, j := range mm.col[mm.rowPtr[i]:mm.rowPtr[i+1]] {
				mm.blocks = append(mm.blocks, int32(i), j)
			}
		}
	}
	return mm.blocks
}

// MBlocks implements graph.MassBlockAssembler: mFactor·(Mₛ)ᵢⱼ·I₃ per
// stored entry.
func (mm *MeshMatrixMass) MBlocks(vals []float64, mFactor float64) {
	writeScaledIdentities(vals, mm.val, mFactor)
}

// MassBlocks implements graph.MassBlockAssembler on Vec3 states (nil on
// others, which assemble through AddMToMatrix): one diagonal block per
// point.
func (u *UniformMass) MassBlocks() []int32 {
	if u.Node == nil || u.Node.State() == nil || u.Node.State().Template().DerivSize() != 3 {
		return nil
	}
	if n := u.Node.State().Size(); len(u.blocks) != 2*n {
		u.blocks = diagonalBlocks(n)
	}
	return u.blocks
}

// MBlocks implements graph.MassBlockAssembler: mFactor·m·I₃ per point.
func (u *UniformMass) MBlocks(vals []float64, mFactor float64) {
	v := mFactor * u.m
	for i := 0; i+9 <= len(vals); i += 9 {
		b := vals[i : i+9 : i+9]
		b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8] = v, 0, 0, 0, v, 0, 0, 0, v
	}
}

// AddMToMatrix implements graph.MassAssembler: the lumped vertex masses on
// the diagonal, mᵢ for the x, y and z rows of vertex i.
func (d *DiagonalMass) AddMToMatrix(m graph.MatrixAccumulator, mFactor float64) {
	for i, mi := range d.masses {
		v := mFactor * mi
		m.Add(3*i, 3*i, v)
		m.Add(3*i+1, 3*i+1, v)
		m.Add(3*i+2, 3*i+2, v)
	}
}

// AddMToMatrix implements graph.MassAssembler: the consistent mass
// M = Mₛ ⊗ I₃ from the scalar CSR matrix Mₛ, entry (i, j) of Mₛ at rows
// and columns (3i + c, 3j + c) for c = 0, 1, 2.
func (mm *MeshMatrixMass) AddMToMatrix(m graph.MatrixAccumulator, mFactor float64) {
	n := len(mm.rowPtr) - 1
	for i := 0; i < n; i++ {
		for k := mm.rowPtr[i]; k < mm.rowPtr[i+1]; k++ {
			j, v := int(mm.col[k]), mFactor*mm.val[k]
			m.Add(3*i, 3*j, v)
			m.Add(3*i+1, 3*j+1, v)
			m.Add(3*i+2, 3*j+2, v)
		}
	}
}

// AddMToMatrix implements graph.MassAssembler: m·I on every derivative
// component of every DOF.
func (u *UniformMass) AddMToMatrix(m graph.MatrixAccumulator, mFactor float64) {
	if u.Node == nil || u.Node.State() == nil {
		return
	}
	st := u.Node.State()
	n := st.Size() * st.Template().DerivSize()
	v := mFactor * u.m
	for i := 0; i < n; i++ {
		m.Add(i, i, v)
	}
}
