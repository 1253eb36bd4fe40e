package solver

import (
	"math"
	"slices"

	"github.com/sofago/sofago/sparse"
)

// symmetrizer replaces a scalar CSR matrix with a symmetric pattern by its
// symmetric part ½(A + Aᵀ), in place, for the factorisations (Cholesky,
// IC(0), the warp preconditioner's factor), which read one triangle only.
//
// The assembled system is the exact tangent that Ops.ComputeDf applies,
// and that is not always symmetric: the geometric stiffness of a mapping
// from rigid frames (RigidMapping, skinning from Rigid3 frames) is
// [f]×[r]×, whose antisymmetric part is [r × f]× — non-zero whenever the
// mapped forces have a net moment about the frames (a body being turned,
// not at equilibrium) — and a damped spring's B turns with the spring.
// A factorisation of one triangle would solve another system; the
// symmetric part is the consistent choice, and SparseCholeskySolver then
// recovers the exact solution by iterative refinement on the exact
// matrix (refine).
type symmetrizer struct {
	tr  []int // per entry: the index of its transposed entry
	ptr []int // the pattern tr was computed for (RowPtr, Col identity)
	col []int
}

// apply symmetrises c in place and reports whether it was not symmetric.
func (s *symmetrizer) apply(c *sparse.CSR) bool {
	if len(s.tr) != len(c.Val) || !samePattern(s.ptr, s.col, c) {
		s.tr = make([]int, len(c.Val))
		for i := 0; i < c.Rows; i++ {
			for q := c.RowPtr[i]; q < c.RowPtr[i+1]; q++ {
				j := c.Col[q]
				lo, hi := c.RowPtr[j], c.RowPtr[j+1]
				k, ok := slices.BinarySearch(c.Col[lo:hi], i)
				s.tr[q] = lo + k
				if !ok {
					s.tr[q] = -1 // no transposed entry (not in an assembled system)
				}
			}
		}
		s.ptr, s.col = c.RowPtr, c.Col
	}
	worst, scale := 0.0, 0.0
	for q, t := range s.tr {
		a := c.Val[q]
		scale = math.Max(scale, math.Abs(a))
		if t < 0 || t <= q {
			continue // each pair once, from its first entry
		}
		b := c.Val[t]
		if a != b {
			worst = math.Max(worst, math.Abs(a-b))
			v := 0.5 * (a + b)
			c.Val[q], c.Val[t] = v, v
		}
	}
	return worst > asymmetryTolerance*scale
}

// asymmetryTolerance: differences |A_ij − A_ji| up to this fraction of the
// largest entry are the rounding of element matrices summed in different
// orders (1e-16 per term, tens of terms), not an antisymmetric part:
// no refinement for them. The geometric stiffness of a turning rigid body
// is many orders above it (1e-6 to 1e-3 of the largest entry in the
// shipped scenes).
const asymmetryTolerance = 1e-13

// samePattern reports whether c's index arrays are the ones given (the
// same slices: a CSR keeps its pattern storage while its pattern stands).
func samePattern(ptr, col []int, c *sparse.CSR) bool {
	return len(ptr) > 0 && len(col) == len(c.Col) && &ptr[0] == &c.RowPtr[0] && (len(col) == 0 || &col[0] == &c.Col[0])
}
