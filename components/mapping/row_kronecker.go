package mapping

import (
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
)

// rowKronecker packs the constant blocks of blockJ (Ĝ nb×c and ĝ c per
// entry) as a graph.RowKroneckerJacobian: the parent DOF [t(3), A(3×nb)]
// is the 3×(1+nb) matrix X = [t | A], and entry e's q×c coefficients are
// ĝ (m = 0) followed by the rows of Ĝ (m = 1 + j), so that Y[r][col] =
// tᵣ ĝ[col] + Σⱼ Aᵣⱼ Ĝ[j][col] as blockJ computes it.
func rowKronecker(offsets, frames []int, nb int, lay childLayout, bG, bg []float64) *graph.RowKroneckerJacobian {
	c, q := lay.c, 1+nb
	kj := &graph.RowKroneckerJacobian{
		ChildCols:   c,
		ParentCols:  q,
		ChildIndex:  append([]int(nil), lay.idx...),
		ParentIndex: make([]int, 3*q),
		Offsets:     offsets,
		Parents:     frames,
		Coef:        make([]float64, len(frames)*q*c),
	}
	for r := 0; r < 3; r++ {
		kj.ParentIndex[q*r] = r
		for j := 0; j < nb; j++ {
			kj.ParentIndex[q*r+1+j] = 3 + nb*r + j
		}
	}
	for e := range frames {
		B := kj.Coef[e*q*c : (e+1)*q*c]
		copy(B[:c], bg[e*c:(e+1)*c])
		copy(B[c:], bG[e*nb*c:(e+1)*nb*c])
	}
	return kj
}

// RowKroneckerJacobian implements graph.RowKroneckerMapping: J of the
// constant blocks (built once, after Init; nil before).
func (m *GMLSMapping) RowKroneckerJacobian() *graph.RowKroneckerJacobian {
	if m.kron == nil && m.nodes != nil {
		m.kron = rowKronecker(m.offsets, m.nbrs, m.nb, m.lay, m.bG, m.bg)
	}
	return m.kron
}

// RowKroneckerJacobian implements graph.RowKroneckerMapping for affine and
// quadratic frames (nil for rigid frames, whose J turns with them). The
// hand-specialised paths (affine frames to points and F331) keep no
// blocks: they are computed here, once, with the general path's
// functions.
func (m *LinearBlendSkinningMapping) RowKroneckerJacobian() *graph.RowKroneckerJacobian {
	bs := &m.blocks
	if bs.kind == rigidFrames || m.restInv == nil {
		return nil
	}
	if m.kron != nil {
		return m.kron
	}
	if bs.generic {
		m.kron = rowKronecker(m.weights.Offsets, m.weights.Frames, bs.nb, bs.lay, bs.bG, bs.bg)
		return m.kron
	}
	nb := bs.kind.basisSize()
	lay := newChildLayout(!m.gradientsOutput, false)
	c := lay.c
	w := &m.weights
	ne := len(w.Frames)
	bG, bg := make([]float64, ne*nb*c), make([]float64, ne*c)
	for e := range w.Frames {
		k := w.Frames[e]
		b, D, dD := basisAt(bs.kind, m.restInv[k], m.local[e])
		var dw geom.Vec3
		if w.Gradients != nil {
			dw = w.Gradients[e]
		}
		blockConstants(bG[e*nb*c:(e+1)*nb*c], bg[e*c:(e+1)*c], lay, b, D, dD, w.Weights[e], dw, geom.Mat3{})
	}
	m.kron = rowKronecker(w.Offsets, w.Frames, nb, lay, bG, bg)
	return m.kron
}
