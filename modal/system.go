package modal

import (
	"fmt"
	"math"
	"sync"

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
	// coords holds the rest position of the point of each free DOF (3 per
	// row) for the nested-dissection ordering; nil if the state's DOFs are
	// not points.
	coords []float64

	mu    sync.Mutex
	sym   *sparse.Symbolic // analysis of K's pattern (which contains M's)
	kchol *sparse.Cholesky // factor of K (constrained bodies)
}

// symbolic returns the (cached) symbolic factorisation of K's pattern:
// nested dissection on the rest positions for point states, minimum
// degree otherwise.
func (s *System) symbolic() (*sparse.Symbolic, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sym != nil {
		return s.sym, nil
	}
	var perm []int
	if s.coords != nil {
		p, err := sparse.NestedDissection(s.K, s.coords)
		if err != nil {
			return nil, err
		}
		perm = p
	}
	sym, err := sparse.Analyze(s.K, perm)
	if err != nil {
		return nil, err
	}
	s.sym = sym
	return sym, nil
}

// factorK returns the (cached) Cholesky factor of K; it fails with
// *sparse.NotPositiveDefiniteError for a body with rigid modes.
func (s *System) factorK() (*sparse.Cholesky, error) {
	sym, err := s.symbolic()
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.kchol != nil {
		return s.kchol, nil
	}
	c, err := sym.Factor(s.K)
	if err != nil {
		return nil, err
	}
	s.kchol = c
	return c, nil
}

// factorShifted returns the Cholesky factor of K − σM (K for σ = 0).
func (s *System) factorShifted(sigma float64) (*sparse.Cholesky, error) {
	if sigma == 0 {
		return s.factorK()
	}
	sym, err := s.symbolic()
	if err != nil {
		return nil, err
	}
	A, err := sparse.LinComb(1, s.K, -sigma, s.M)
	if err != nil {
		return nil, err
	}
	return sym.Factor(A)
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
	if root == nil {
		return nil, fmt.Errorf("modal: AssembleFromScene: nil node")
	}
	var node *graph.Node
	err := root.Walk(func(n *graph.Node) error {
		st, mp := n.State(), n.Mapping()
		switch {
		case st != nil && mp == nil:
			if node != nil {
				return fmt.Errorf("modal: subtree of node %q has several independent states (%q and %q): assemble one object at a time", root.Path(), node.Path(), n.Path())
			}
			node = n
		case mp != nil && mp.IsMechanical() && (n.Mass() != nil || len(n.ForceFields()) > 0):
			return fmt.Errorf("modal: node %q is mapped and carries a mass or force field: only the independent state's own mass and force fields are assembled", n.Path())
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if node == nil {
		return nil, fmt.Errorf("modal: subtree of node %q has no independent mechanical state", root.Path())
	}
	st := node.State()
	size := st.Size() * st.Template().DerivSize()
	sys := &System{State: st, Size: size}

	// Free DOFs: the components every constraint leaves alone.
	ones := make([]float64, size)
	for i := range ones {
		ones[i] = 1
	}
	for _, c := range node.Constraints() {
		c.ProjectResponse(ones)
	}
	for i, v := range ones {
		switch v {
		case 1:
			sys.Free = append(sys.Free, i)
		case 0:
		default:
			return nil, fmt.Errorf("modal: a projective constraint of node %q mixes components (projected 1 to %g at DOF component %d): only constraints that fix components are supported", node.Path(), v, i)
		}
	}
	sys.Constrained = len(sys.Free) < size
	if len(sys.Free) == 0 {
		return nil, fmt.Errorf("modal: every DOF of %q is fixed", node.Path())
	}

	// Mass.
	mass := node.Mass()
	if mass == nil {
		return nil, fmt.Errorf("modal: node %q has no mass", node.Path())
	}
	ma, ok := mass.(graph.MassAssembler)
	if !ok {
		return nil, fmt.Errorf("modal: mass %q (%s) cannot assemble its matrix (graph.MassAssembler)", mass.Base().Name, mass.Base().TypeName)
	}
	mb := sparse.NewBuilder(size, size)
	ma.AddMToMatrix(mb, 1)
	Mfull, err := mb.Build()
	if err != nil {
		return nil, fmt.Errorf("modal: mass %q: %w", mass.Base().Name, err)
	}

	// Stiffness at rest: linearise every force field there.
	rest := st.Vec(graph.RestPosition)
	x := append([]float64(nil), rest...)
	scratch := make([]float64, size)
	kb := sparse.NewBuilder(size, size)
	probe := make([]float64, size)
	for i := range probe {
		probe[i] = math.Sin(float64(i)*0.7 + 0.3) // any vector with no zero structure
	}
	for _, ff := range node.ForceFields() {
		clear(scratch)
		ff.AddForce(scratch, x, make([]float64, size))
		if h, ok := ff.(HessianContractor); ok {
			sys.hessian = append(sys.hessian, h)
		}
		if ka, ok := ff.(graph.StiffnessAssembler); ok {
			ka.AddKToMatrix(kb, -1) // K = −∂f/∂x
			continue
		}
		clear(scratch)
		ff.AddDForce(scratch, probe, 1, 0)
		for _, v := range scratch {
			if v != 0 {
				return nil, fmt.Errorf("modal: force field %q (%s) has a stiffness but cannot assemble it (graph.StiffnessAssembler)", ff.Base().Name, ff.Base().TypeName)
			}
		}
	}
	Kfull, err := kb.Build()
	if err != nil {
		return nil, fmt.Errorf("modal: stiffness: %w", err)
	}
	// K and M on a common pattern, so that K − σM keeps it.
	Kfull, err = sparse.LinComb(1, Kfull, 0, Mfull)
	if err != nil {
		return nil, err
	}
	if sys.K, err = Kfull.Submatrix(sys.Free); err != nil {
		return nil, err
	}
	if sys.M, err = Mfull.Submatrix(sys.Free); err != nil {
		return nil, err
	}
	if t := st.Template(); t.CoordSize() == 3 && t.DerivSize() == 3 {
		sys.coords = make([]float64, 3*len(sys.Free))
		for k, i := range sys.Free {
			p := 3 * (i / 3)
			copy(sys.coords[3*k:3*k+3], rest[p:p+3])
		}
	}
	return sys, nil
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
