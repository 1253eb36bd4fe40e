package solver

import "github.com/sofago/sofago/graph"

// AssembledDense assembles m·M + b·B + k·K of the subtree of ops as
// SparseCholeskySolver does (through mappings) and returns it dense over
// the system's unknowns, with the state offsets and the fixed unknowns
// (identity rows in the matrix). For tests.
func AssembledDense(ops *graph.Ops, m, b, k float64) (a [][]float64, offsets []int, fixed []bool, err error) {
	a, offsets, fixed, _, err = AssembledDenseStructured(ops, m, b, k)
	return a, offsets, fixed, err
}

// AssembledDenseStructured is AssembledDense that also returns how many
// mapped nodes the structured path (graph.RowKroneckerMapping) assembled.
// For tests.
func AssembledDenseStructured(ops *graph.Ops, m, b, k float64) (a [][]float64, offsets []int, fixed []bool, structured int, err error) {
	s := &blockSystem{throughMappings: true}
	A, err := s.assemble(ops, m, b, k)
	if err != nil {
		return nil, nil, nil, 0, err
	}
	structured = len(s.kronPats)
	a = make([][]float64, s.n)
	for i := range a {
		a[i] = make([]float64, s.n)
	}
	for i := 0; i < A.N; i++ {
		for p := A.RowPtr[i]; p < A.RowPtr[i+1]; p++ {
			j := int(A.Col[p])
			for r := 0; r < 3; r++ {
				for c := 0; c < 3; c++ {
					a[3*i+r][3*j+c] = A.Val[9*int(p)+3*r+c]
				}
			}
		}
	}
	return a, s.offsets, s.fixed, structured, nil
}

// ForgetPattern makes the next Solve build the matrix pattern and the
// symbolic analysis afresh (what any change of the probed entries did
// before blockSystem.relocate). For tests.
func (s *SparseCholeskySolver) ForgetPattern() { s.sys.asm = nil }

// MatrixFreeResiduals returns how many solves computed their residual
// with Ops.ComputeDf (the others from the assembled matrix). For tests.
func (s *SparseCholeskySolver) MatrixFreeResiduals() int { return s.freeResiduals }

// VelocitySolves returns how many steps were solved for the new velocity
// (a direct solver of an exactly assembled system). For tests.
func (s *EulerImplicitSolver) VelocitySolves() int { return s.velocitySolves }
