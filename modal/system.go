package modal

import (
	"errors"

	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/sparse"
)

// System is the linearised mechanics of one scene subtree at its rest
// configuration, restricted to the free DOFs.
type System struct {
	// K is the stiffness −∂f/∂x at the rest positions on the free DOFs
	// (symmetric; positive definite for a constrained body, positive
	// semi-definite with the rigid motions as null space for a free one).
	K *sparse.CSR
	// M is the mass matrix on the free DOFs (symmetric positive definite).
	M *sparse.CSR
	// Free lists the free DOFs: Free[k] is the index in the full
	// derivative vector of row k of K and M (increasing).
	Free []int
	// Size is the length of a full derivative vector of the state.
	Size int
	// Constrained reports whether any DOF is fixed (if not, the body has
	// rigid modes, which LinearModes drops).
	Constrained bool
	// State is the independent state the system describes.
	State graph.State

	hessian []HessianContractor // force fields of the state's node
}

// HessianContractor is implemented by force fields that can add the
// second derivative of their force at the rest configuration in two
// directions, df += factor·d²f[a, b] = factor·(∂K/∂x : a)·b with K = ∂f/∂x
// the tangent of the force field (TetrahedronFEMForceField and
// TetrahedronHyperelasticityFEMForceField implement it). Modal
// derivatives need it (eq. 14–15: (H:ψᵢ)ψⱼ = −d²f[ψᵢ, ψⱼ]).
type HessianContractor interface {
	AddHessianContraction(df, a, b []float64, factor float64) error
}

// AssembleFromScene assembles K and M of the subtree of root at the rest
// configuration, with the fixed DOFs removed.
//
// The subtree must have exactly one independent (unmapped) state, and its
// mass and force fields must sit in that state's node (mapped child nodes
// may exist, e.g. for visual output, but must carry no mass and no force
// field). Every force field with stiffness must implement
// graph.StiffnessAssembler (force fields whose AddDForce is zero, like
// ConstantForceField, are skipped after checking that on a probe vector);
// the mass must implement graph.MassAssembler. The force fields are
// linearised at the rest positions (AddForce is called there and its
// result discarded), which also becomes the linearisation of the next
// AddDForce. The fixed DOFs are those every projective constraint of the
// node zeroes (found by projecting a vector of ones: constraints that mix
// components, rather than zero them, are an error).
func AssembleFromScene(root *graph.Node) (*System, error) {
	return nil, errors.New("modal: AssembleFromScene not implemented yet") // TODO(6a)
}

// Expand writes the free-DOF vector free into the full vector full (zeros
// at the fixed DOFs).
func (s *System) Expand(full, free []float64) {
	clear(full)
	for k, i := range s.Free {
		full[i] = free[k]
	}
}

// Restrict writes the free components of the full vector full into free.
func (s *System) Restrict(free, full []float64) {
	for k, i := range s.Free {
		free[k] = full[i]
	}
}

// HessianContraction sets the full vector dst = (H:a)·b, the derivative
// of K = −∂f/∂x at rest in the direction a applied to b (Barbič & James
// eq. 15), summed over the force fields, element by element without
// forming H. a and b are full vectors.
func (s *System) HessianContraction(dst, a, b []float64) error {
	clear(dst)
	for _, h := range s.hessian {
		if err := h.AddHessianContraction(dst, a, b, -1); err != nil {
			return err
		}
	}
	return nil
}
