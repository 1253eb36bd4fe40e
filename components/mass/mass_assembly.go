package mass

import "github.com/sofago/sofago/graph"

// This file implements graph.MassAssembler for the masses that have a
// matrix worth assembling (direct solvers, modal analysis): m += f·M with
// the state's derivative layout (DOF i, component c at row i·DerivSize + c).

var (
	_ graph.MassAssembler = (*DiagonalMass)(nil)
	_ graph.MassAssembler = (*MeshMatrixMass)(nil)
	_ graph.MassAssembler = (*UniformMass)(nil)
)

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
