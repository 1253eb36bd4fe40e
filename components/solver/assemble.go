package solver

import (
	"fmt"
	"math/rand/v2"

	"github.com/sofago/sofago/graph"
)

// Shared by the direct solvers (DenseDirectSolver, SparseCholeskySolver):
// the check that a subtree's system m·M + b·B + k·K can be written from
// its components' matrices, the assembly itself, and the discovery of the
// DOFs the projective constraints fix.

// assemblyChecker decides whether the system of a subtree can be
// assembled from graph.StiffnessAssembler and graph.MassAssembler
// matrices: every force field and mass with a stiffness must sit on an
// independent state and write its matrix, and nothing else (force fields
// and masses of mapped nodes, interaction force fields) may contribute to
// A. "Nothing else contributes" is checked, not assumed: a force field
// that is not an assembler, or one on a mapped node, is applied to a
// random vector with kFactor = bFactor = 1 and must return zero (a
// constant load such as ConstantForceField does); when the system has a
// damping term (needB), assemblers are applied with kFactor = 0,
// bFactor = 1 and must return zero too (graph.StiffnessAssembler carries
// no damping matrix B); a mass's own AddDForce (gravity) likewise.
type assemblyChecker struct {
	scratch map[graph.State][2][]float64 // per state: a random vector and a result buffer
	rng     *rand.Rand
}

// check reports whether the subtree of nd can be assembled and, if not,
// why (naming the component).
func (c *assemblyChecker) check(nd *graph.Node, needB bool) (bool, string) {
	for _, o := range nd.Objects {
		if _, ia := o.(graph.InteractionForceField); ia {
			return false, fmt.Sprintf("interaction force field %q", o.Base().Path())
		}
	}
	mp := nd.Mapping()
	st := nd.State()
	if st != nil && (mp == nil || mp.IsMechanical()) {
		mapped := mp != nil
		for _, o := range nd.Objects {
			ff, isFF := o.(graph.ForceField)
			if _, isMass := o.(graph.Mass); !isFF || isMass {
				continue
			}
			_, isAsm := ff.(graph.StiffnessAssembler)
			if ba, ok := ff.(graph.StiffnessBlockAssembler); ok && ba.StiffnessBlocks() != nil && st.Template().DerivSize() == 3 {
				isAsm = true
			}
			switch {
			case isAsm && !mapped:
				if needB && !c.zeroDForce(st, ff, 0, 1) {
					return false, fmt.Sprintf("force field %q has a damping matrix B, which StiffnessAssembler does not write", ff.Base().Path())
				}
			case !c.zeroDForce(st, ff, 1, 1):
				if mapped {
					return false, fmt.Sprintf("force field %q is on a mapped state and has a stiffness", ff.Base().Path())
				}
				return false, fmt.Sprintf("force field %q has a stiffness and does not implement StiffnessAssembler", ff.Base().Path())
			}
		}
		if ms := nd.Mass(); ms != nil {
			_, isMA := ms.(graph.MassAssembler)
			if ba, ok := ms.(graph.MassBlockAssembler); ok && ba.MassBlocks() != nil && st.Template().DerivSize() == 3 {
				isMA = true
			}
			_, isKA := ms.(graph.StiffnessAssembler)
			switch {
			case mapped:
				return false, fmt.Sprintf("mass %q is on a mapped state", ms.Base().Path())
			case !isMA:
				return false, fmt.Sprintf("mass %q does not implement MassAssembler", ms.Base().Path())
			case !isKA && !c.zeroDForce(st, ms, 1, 1):
				return false, fmt.Sprintf("mass %q has a stiffness (e.g. gyroscopic) and no StiffnessAssembler", ms.Base().Path())
			case isKA && needB && !c.zeroDForce(st, ms, 0, 1):
				return false, fmt.Sprintf("mass %q has a damping matrix B (gyroscopic), which StiffnessAssembler does not write", ms.Base().Path())
			}
		}
	}
	for _, ch := range nd.Children {
		if ok, why := c.check(ch, needB); !ok {
			return false, why
		}
	}
	return true, ""
}

// zeroDForce applies ff.AddDForce to a random vector and reports whether
// the result is exactly zero.
func (c *assemblyChecker) zeroDForce(st graph.State, ff graph.ForceField, k, b float64) bool {
	if c.scratch == nil {
		c.scratch = map[graph.State][2][]float64{}
		c.rng = rand.New(rand.NewPCG(1, 2))
	}
	n := st.Size() * st.Template().DerivSize()
	s := c.scratch[st]
	if len(s[0]) != n {
		s = [2][]float64{make([]float64, n), make([]float64, n)}
		for i := range s[0] {
			s[0][i] = 2*c.rng.Float64() - 1
		}
		c.scratch[st] = s
	}
	df := s[1]
	clear(df)
	ff.AddDForce(df, s[0], k, b)
	for _, v := range df {
		if v != 0 {
			return false
		}
	}
	return true
}

// assembleNode adds m·M + k·K of the independent state of nd (its force
// fields' and mass's matrices) to acc, in the state's derivative layout.
// The subtree must have passed assemblyChecker.check. Zero factors are
// still passed to the components, so the entries written (the sparsity
// pattern) do not depend on m and k.
func assembleNode(nd *graph.Node, acc graph.MatrixAccumulator, m, k float64) {
	for _, o := range nd.Objects {
		if _, isMass := o.(graph.Mass); isMass {
			continue
		}
		if sa, ok := o.(graph.StiffnessAssembler); ok {
			if _, isFF := o.(graph.ForceField); isFF {
				sa.AddKToMatrix(acc, k)
			}
		}
	}
	if ms := nd.Mass(); ms != nil {
		ms.(graph.MassAssembler).AddMToMatrix(acc, m)
		if sa, ok := ms.(graph.StiffnessAssembler); ok {
			sa.AddKToMatrix(acc, k)
		}
	}
}

// gatherStates copies the vector id of every state into dst (state si at
// offsets[si]).
func gatherStates(states []graph.State, offsets []int, id graph.VecID, dst []float64) {
	for si, s := range states {
		copy(dst[offsets[si]:], s.Vec(id))
	}
}

// scatterStates copies src into the vector id of every state.
func scatterStates(states []graph.State, offsets []int, id graph.VecID, src []float64) {
	for si, s := range states {
		v := s.Vec(id)
		copy(v, src[offsets[si]:offsets[si]+len(v)])
	}
}

// projectorDiagonal finds the projector P of the constraints of ops
// (over the states at offsets): diag receives P applied to a vector of
// ones; general reports that P is not the diagonal matrix diag(diag) with
// 0/1 entries (the usual constraints zero components, and then the DOFs
// with diag = 0 are the fixed ones), found by checking an entry that is
// neither 0 nor 1 and that a test vector w projects to diag·w (w and pw
// are scratch of the system size). allFree reports P = I.
func projectorDiagonal(ops *graph.Ops, states []graph.State, offsets []int, diag, w, pw []float64) (general, allFree bool) {
	v := ops.AllocDeriv()
	defer ops.Free(v)
	for i := range diag {
		diag[i] = 1
	}
	scatterStates(states, offsets, v, diag)
	ops.Project(v)
	gatherStates(states, offsets, v, diag)
	allFree = true
	for _, p := range diag {
		general = general || (p != 0 && p != 1)
		allFree = allFree && p == 1
	}
	if general {
		return true, false
	}
	for i := range w {
		w[i] = float64(i%7) + 0.5
	}
	scatterStates(states, offsets, v, w)
	ops.Project(v)
	copy(pw, w) // padding entries (no state) stay as w, as diag is 1 there
	gatherStates(states, offsets, v, pw)
	for i := range pw {
		if pw[i] != diag[i]*w[i] {
			return true, false
		}
	}
	return false, allFree
}

// stateProjectorDiagonal is projectorDiagonal for the per-state
// projective constraints only (cons[i]: those of the node of states[i]),
// for subtrees whose interaction constraints are handled by a basis
// (reduction).
func stateProjectorDiagonal(states []graph.State, cons [][]graph.ProjectiveConstraint, offsets []int, diag, w, pw []float64) (general bool) {
	for i := range diag {
		diag[i] = 1
		w[i] = float64(i%7) + 0.5
	}
	copy(pw, w)
	for si, st := range states {
		sz := st.Size() * st.Template().DerivSize()
		for _, c := range cons[si] {
			c.ProjectResponse(diag[offsets[si] : offsets[si]+sz])
			c.ProjectResponse(pw[offsets[si] : offsets[si]+sz])
		}
	}
	for i, p := range diag {
		if (p != 0 && p != 1) || pw[i] != p*w[i] {
			return true
		}
	}
	return false
}
