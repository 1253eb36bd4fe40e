package mapping

import "github.com/sofago/sofago/graph"

// Sparse Jacobians (graph.SparseJacobianMapping) of the mappings of this
// package, for solvers that assemble Jᵀ K J: every entry the mapping's
// structure can make non-zero is written, zeros included, so that the
// pattern does not change with the configuration.

var (
	_ graph.SparseJacobianMapping = (*IdentityMapping)(nil)
	_ graph.SparseJacobianMapping = (*SubsetMapping)(nil)
	_ graph.SparseJacobianMapping = (*BarycentricMapping)(nil)
	_ graph.SparseJacobianMapping = (*RigidMapping)(nil)
	_ graph.SparseJacobianMapping = (*SubspaceMapping)(nil)
	_ graph.SparseJacobianMapping = (*LinearBlendSkinningMapping)(nil)
	_ graph.SparseJacobianMapping = (*DualQuaternionSkinningMapping)(nil)
	_ graph.SparseJacobianMapping = (*GMLSMapping)(nil)
)

// JacobianEntries implements graph.SparseJacobianMapping: J = I.
func (m *IdentityMapping) JacobianEntries(acc graph.MatrixAccumulator) {
	n := m.from.Size() * m.from.Template().DerivSize()
	for i := 0; i < n; i++ {
		acc.Add(i, i, 1)
	}
}

// JacobianEntries implements graph.SparseJacobianMapping: one unit entry
// per component of each selected DOF.
func (m *SubsetMapping) JacobianEntries(acc graph.MatrixAccumulator) {
	ds := m.from.Template().DerivSize()
	for i, idx := range m.Indices {
		for c := 0; c < ds; c++ {
			acc.Add(ds*i+c, ds*idx+c, 1)
		}
	}
}

// JacobianEntries implements graph.SparseJacobianMapping: w_ij on the
// diagonal of the 3×3 block (child i, parent vertex j).
func (m *BarycentricMapping) JacobianEntries(acc graph.MatrixAccumulator) {
	k := m.k
	for i := 0; i < len(m.w)/k; i++ {
		for j := k * i; j < k*i+k; j++ {
			v, wj := 3*int(m.idx[j]), m.w[j]
			for c := 0; c < 3; c++ {
				acc.Add(3*i+c, v+c, wj)
			}
		}
	}
}

// JacobianEntries implements graph.SparseJacobianMapping: v_i = v_k +
// ω_k × r_i, i.e. the block [I  −[r_i]×] of child i and frame k.
func (m *RigidMapping) JacobianEntries(acc graph.MatrixAccumulator) {
	for i, r := range m.arm {
		c := 6 * m.frame[i]
		row := 3 * i
		acc.Add(row, c, 1)
		acc.Add(row, c+4, r[2])
		acc.Add(row, c+5, -r[1])
		acc.Add(row+1, c+1, 1)
		acc.Add(row+1, c+5, r[0])
		acc.Add(row+1, c+3, -r[2])
		acc.Add(row+2, c+2, 1)
		acc.Add(row+2, c+3, r[1])
		acc.Add(row+2, c+4, -r[0])
	}
}

// JacobianEntries implements graph.SparseJacobianMapping: J = U (dense).
func (m *SubspaceMapping) JacobianEntries(acc graph.MatrixAccumulator) {
	for i := 0; i < m.rows; i++ {
		for j := 0; j < m.r; j++ {
			acc.Add(i, j, m.u.Data[i*m.r+j])
		}
	}
}

// JacobianEntries implements graph.SparseJacobianMapping (see
// skinningJacobian).
func (m *LinearBlendSkinningMapping) JacobianEntries(acc graph.MatrixAccumulator) {
	skinningJacobian(m, &m.weights, acc)
}

// JacobianEntries implements graph.SparseJacobianMapping (see
// skinningJacobian).
func (m *DualQuaternionSkinningMapping) JacobianEntries(acc graph.MatrixAccumulator) {
	skinningJacobian(m, &m.weights, acc)
}

// skinningJacobian writes the Jacobian of a skinning mapping from ApplyJ
// products on colour classes of frames: frames that share no child point
// get one colour (greedy colouring), and the product with component d of
// every frame of one colour gives, in each child point, the column of its
// only frame of that colour. The cost is (colours × parent DerivSize)
// products, independent of the number of frames when each point has a
// few. Child point p occupies the child derivative entries [dc·p, dc·p+dc).
func skinningJacobian(m graph.Mapping, w *SkinningWeights, acc graph.MatrixAccumulator) {
	from, to := m.From(), m.To()
	ds, dc := from.Template().DerivSize(), to.Template().DerivSize()
	nf, np := from.Size(), w.NumPoints()
	// Frames' points, then the greedy colouring.
	cnt := make([]int, nf+1)
	for _, f := range w.Frames {
		cnt[f+1]++
	}
	for f := 0; f < nf; f++ {
		cnt[f+1] += cnt[f]
	}
	pts := make([]int, len(w.Frames))
	next := append([]int(nil), cnt[:nf]...)
	for p := 0; p < np; p++ {
		for e := w.Offsets[p]; e < w.Offsets[p+1]; e++ {
			f := w.Frames[e]
			pts[next[f]] = p
			next[f]++
		}
	}
	color := make([]int, nf)
	for f := range color {
		color[f] = -1
	}
	ncol := 0
	var used []bool
	for f := 0; f < nf; f++ {
		used = append(used[:0], make([]bool, ncol+1)...)
		for _, p := range pts[cnt[f]:cnt[f+1]] {
			for e := w.Offsets[p]; e < w.Offsets[p+1]; e++ {
				if c := color[w.Frames[e]]; c >= 0 {
					used[c] = true
				}
			}
		}
		c := 0
		for used[c] {
			c++
		}
		color[f] = c
		ncol = max(ncol, c+1)
	}
	parent := make([]float64, nf*ds)
	child := make([]float64, to.Size()*dc)
	for c := 0; c < ncol; c++ {
		for d := 0; d < ds; d++ {
			clear(parent)
			for f := 0; f < nf; f++ {
				if color[f] == c {
					parent[ds*f+d] = 1
				}
			}
			m.ApplyJ(child, parent)
			for p := 0; p < np; p++ {
				for e := w.Offsets[p]; e < w.Offsets[p+1]; e++ {
					f := w.Frames[e]
					if color[f] != c || dupFrame(w, p, e) {
						continue
					}
					for r := 0; r < dc; r++ {
						acc.Add(dc*p+r, ds*f+d, child[dc*p+r])
					}
				}
			}
		}
	}
}

// dupFrame reports that entry e of point p repeats a frame of an earlier
// entry of p (its column is already written).
func dupFrame(w *SkinningWeights, p, e int) bool {
	for q := w.Offsets[p]; q < e; q++ {
		if w.Frames[q] == w.Frames[e] {
			return true
		}
	}
	return false
}
