package mapping

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/sofago/sofago/gmls"
	"github.com/sofago/sofago/graph"
)

// GMLSMapping maps meshfree GMLS nodes (Martin et al. 2010; lecture notes
// 004, "Generalized MLS"; package gmls) to Vec3 points, to F331
// deformation gradients or to F332 samples (F and ∂F/∂X).
//
// A node is a frame whose local map is the Taylor expansion of the
// deformation x(X) = X + u(X) at the node's rest position X̄ᵢ, in the
// frame templates' layouts with local coordinates ℓ = X − X̄ᵢ:
//
//	Affine3 (linear GMLS):       [t A]  = [xᵢ, ∂x/∂X(X̄ᵢ)]                 (12 numbers)
//	Quadratic3 (quadratic GMLS): [t A]  = [xᵢ, ∂x/∂X | Q]                   (30 numbers)
//	  row r of the 3×9 A: ∂xᵣ/∂X₀..₂, then Qᵣ = ½ xᵣ,₀₀, ½ xᵣ,₁₁, ½ xᵣ,₂₂,
//	  xᵣ,₀₁, xᵣ,₁₂, xᵣ,₂₀ (the coefficients of ℓ₀², ℓ₁², ℓ₂², ℓ₀ℓ₁, ℓ₁ℓ₂, ℓ₂ℓ₀).
//
// At rest a node is [X̄ᵢ, I, 0] (the parent's RestPosition must hold an
// identity linear part and zero quadratic columns; its translations are the
// nodes' rest positions). GMLS reproduces linear (quadratic) fields, X
// among them, so the lecture's u(X) = Σᵢ [uᵢ Nᵢ + Σⱼ uᵢ,ⱼ Nᵢʲ + Σⱼₖ uᵢ,ⱼₖ
// Nᵢʲᵏ] holds for x as well as for u, and a child DOF is
//
//	x(X)    = Σᵢ [ tᵢ Nᵢ + Σⱼ Aᵢ[:, j] Nᵢʲ + Σ_m Qᵢ[:, m] 2 Nᵢ^{jₘkₘ} ],
//	F(X)    = ∂x/∂X   (the shape functions' gradients),
//	∂ₖF(X)  = ∂²x/∂X∂Xₖ (their Hessians),
//
// m over the pairs xx, yy, zz, xy, yz, zx (the factor 2: a diagonal pair has
// uᵢ,ₐₐ = 2 Qₐₐ; a mixed pair stands for two ordered pairs, each Nᵢᵃᵇ, with
// uᵢ,ₐᵦ = Qₐᵦ). The mapping is linear in the node values with constant
// blocks, computed once at Init from the shape functions at the child's
// rest positions: J is exact and constant, and there is no geometric
// stiffness. The blocks go through the same loops as linear blend
// skinning of affine and quadratic frames (skinning_blocks.go).
//
// Rest positions of the child DOFs: PointInputs (the child's rest
// positions for Vec3 points; for F331/F332 samples the restPoints field,
// the samples link or a sampler in this node or an ancestor, as for the
// skinning mappings). The support radius: radius (one for all nodes) or
// radii (one per node), or SetRadii from Go; without them, the radii of
// a NodeRadiusProvider (MeshfreeSampler) in this node or an ancestor.
type GMLSMapping struct {
	graph.ObjectBase
	MappingIO
	PointInputs
	Radius float64   `toml:"radius" doc:"support radius r of every node: the weight (1 − |d|²)³, d = (X − X̄ᵢ)/r, vanishes beyond r; each mapped point must lie within the support of at least one node" unit:"m"`
	Radii  []float64 `toml:"radii" doc:"support radius of each node (instead of radius)" unit:"m"`

	goRadii []float64

	order   gmls.Order
	nodes   *gmls.Nodes
	offsets []int // the neighbours of child DOF p: nbrs[offsets[p]:offsets[p+1]]
	nbrs    []int
	nb      int
	lay     childLayout
	bG, bg  []float64
	loop    chunkedLoop
	kron    *graph.RowKroneckerJacobian // J for assembled solvers (built on demand)
}

func init() {
	graph.Register(graph.TypeInfo{
		Name:    "GMLSMapping",
		Kind:    graph.KindMapping,
		Summary: "Generalized moving least squares (Martin et al. 2010): meshfree nodes carrying x and ∂x/∂X (Affine3, linear GMLS) or also the second derivatives (Quadratic3, quadratic GMLS) map to Vec3 points, F331 deformation gradients or F332 samples (F, ∂F/∂X); weight (1 − |d|²)³ over a support radius; reproduces linear (quadratic) fields exactly; constant exact J, no geometric stiffness.",
		New:     func() graph.Object { return NewGMLSMapping() },
	})
}

// NewGMLSMapping returns a mechanical mapping with no inputs set (for code
// that builds scenes directly: SetStates, SetRestPoints, SetRadii, Init).
func NewGMLSMapping() *GMLSMapping {
	return &GMLSMapping{
		ObjectBase: graph.ObjectBase{Name: "GMLSMapping", TypeName: "GMLSMapping"},
		MappingIO:  MappingIO{Mechanical: true},
	}
}

// SetRadii sets the support radii from Go (one for all nodes, or one per
// node); they take precedence over the radius and radii fields. Call
// Reinit (or Init) to apply them.
func (m *GMLSMapping) SetRadii(r []float64) { m.goRadii = append([]float64(nil), r...) }

// Nodes returns the GMLS nodes (after Init).
func (m *GMLSMapping) Nodes() *gmls.Nodes { return m.nodes }

// Neighbours returns the nodes influencing each child DOF (after Init):
// those of DOF p are nodes[offsets[p]:offsets[p+1]], in increasing order;
// views, do not modify. The shape functions themselves are not kept (the
// mapping keeps its blocks): Nodes().Evaluate(RestPoints(), …) gives
// them.
func (m *GMLSMapping) Neighbours() (offsets, nodes []int) { return m.offsets, m.nbrs }

// Validate checks the fields that do not need the states.
func (m *GMLSMapping) Validate() error {
	if len(m.RestPointsIn) > 0 && m.Samples.IsSet() {
		return errors.New("give restPoints or samples, not both")
	}
	if m.Radius != 0 && len(m.Radii) > 0 {
		return errors.New("give radius or radii, not both")
	}
	if m.Radius < 0 || math.IsNaN(m.Radius) || math.IsInf(m.Radius, 0) {
		return fmt.Errorf("radius = %g: want a positive support radius", m.Radius)
	}
	for i, r := range m.Radii {
		if !(r > 0) || math.IsInf(r, 0) {
			return fmt.Errorf("radii[%d] = %g: want a positive support radius", i, r)
		}
	}
	return nil
}

// Init resolves the states, the nodes' rest positions, the child's rest
// points and the radii, evaluates the shape functions there, sizes the
// child and maps the parent's rest position, position and velocity onto
// it.
func (m *GMLSMapping) Init() error { return m.Wrap(m.initialise(false)) }

// Reinit re-initialises the mapping after the parent or the inputs
// changed (nodes added at the end of the parent, SetRestPoints, SetRadii):
// as Init, but the child is resized to the number of points.
func (m *GMLSMapping) Reinit() error { return m.Wrap(m.initialise(true)) }

func (m *GMLSMapping) initialise(reinit bool) error {
	if err := m.Validate(); err != nil {
		return err
	}
	if err := m.resolve(&m.ObjectBase); err != nil {
		return err
	}
	switch pt := m.from.Template().Name(); pt {
	case graph.Affine3.Name():
		m.order = gmls.Linear
	case graph.Quadratic3.Name():
		m.order = gmls.Quadratic
	default:
		return fmt.Errorf("input state %q has template %s; GMLSMapping needs Affine3 (linear GMLS) or Quadratic3 (quadratic GMLS) nodes", m.from.Base().Path(), pt)
	}
	derivs := 0
	switch ct := m.to.Template().Name(); ct {
	case graph.Vec3.Name():
	case graph.F331.Name():
		derivs = 1
	case graph.F332.Name():
		derivs = 2
	default:
		return fmt.Errorf("output state %q has template %s; GMLSMapping maps to Vec3 points, F331 deformation gradients or F332 samples", m.to.Base().Path(), ct)
	}
	nn := m.from.Size()
	if nn == 0 {
		return fmt.Errorf("input state %q has no nodes", m.from.Base().Path())
	}
	// The nodes' rest positions, checking the rest Taylor data [X̄, I, 0].
	m.nb = m.order.Slots() - 1
	cs := 3 + 3*m.nb
	rest := m.from.Vec(graph.RestPosition)
	pos := make([]float64, 3*nn)
	for i := 0; i < nn; i++ {
		c := rest[cs*i : cs*i+cs]
		copy(pos[3*i:3*i+3], c[:3])
		for r := 0; r < 3; r++ {
			for j := 0; j < m.nb; j++ {
				want := 0.0
				if j == r {
					want = 1
				}
				if math.Abs(c[3+m.nb*r+j]-want) > 1e-12 {
					return fmt.Errorf("rest node %d: A[%d][%d] = %g, want %g: a GMLS node's rest value is its rest position with the identity gradient (and zero second derivatives)", i, r, j, c[3+m.nb*r+j], want)
				}
			}
		}
	}
	radii := m.goRadii
	switch {
	case radii != nil:
	case len(m.Radii) > 0:
		radii = m.Radii
	case m.Radius > 0:
		radii = []float64{m.Radius}
	default:
		p := findUp[NodeRadiusProvider](m.Node)
		if p == nil {
			return errors.New("no support radius: set radius (all nodes) or radii (one per node), or put a sampler giving the nodes' radii (MeshfreeSampler) in this node or an ancestor")
		}
		r, err := p.NodeRadii()
		if err != nil {
			return fmt.Errorf("node radii from %q: %w", p.Base().Path(), err)
		}
		radii = r
	}
	nodes, err := gmls.NewNodes(m.order, pos, radii)
	if err != nil {
		return err
	}
	if err := m.resolvePoints(&m.ObjectBase, m.to, derivs > 0, reinit); err != nil {
		return err
	}
	np := len(m.rest) / 3
	if np == 0 {
		return errors.New("no points to map: the rest point list is empty")
	}
	m.nodes = nodes
	m.kron = nil
	m.lay = newChildLayout(derivs == 0, derivs == 2)
	// The shape functions chunk by chunk of points, each turned into blocks
	// at once: the blocks are all that is kept, and the peak memory stays
	// that of the blocks plus one chunk's shape functions.
	const chunk = 1024
	m.offsets = append(m.offsets[:0], 0)
	m.nbrs, m.bG, m.bg = m.nbrs[:0], m.bG[:0], m.bg[:0]
	for lo := 0; lo < np; lo += chunk {
		hi := min(np, lo+chunk)
		sf, err := nodes.Evaluate(m.rest[3*lo:3*hi], derivs)
		if err != nil {
			if lo > 0 {
				return fmt.Errorf("child DOFs from %d: %w", lo, err)
			}
			return err
		}
		for p := 0; p < hi-lo; p++ {
			m.offsets = append(m.offsets, len(m.nbrs)+sf.Offsets[p+1])
		}
		m.nbrs = append(m.nbrs, sf.Nodes...)
		m.appendBlocks(&sf)
	}
	if reinit {
		if m.to.Size() != np {
			m.to.Resize(np)
		}
	} else if err := sizeChild(m.to, np, "the rest points"); err != nil {
		return err
	}
	mapAll(m)
	return nil
}

// appendBlocks turns shape functions into the blocks of blockJ, appended
// to m.bG and m.bg: per entry, ĝ[col] = the column's derivative of Nᵢ
// and Ĝ[j][col] = that of Nᵢʲ (j < 3) or of 2 Nᵢ^{pair j−3} (quadratic
// columns).
func (m *GMLSMapping) appendBlocks(sf *gmls.ShapeFunctions) {
	nb, c := m.nb, m.lay.c
	nc := gmls.Components(sf.Derivs)
	// comp[col]: the shape-function component of child column col.
	comp := make([]int, c)
	switch c {
	case 1:
		comp[0] = 0
	default:
		for a := 0; a < 3; a++ {
			comp[a] = 1 + a
		}
		for k := 0; k < 3 && c == 12; k++ {
			for a := 0; a < 3; a++ {
				for p, ab := range gmls.Pairs {
					if (ab[0] == k && ab[1] == a) || (ab[0] == a && ab[1] == k) {
						comp[3+3*k+a] = 4 + p
					}
				}
			}
		}
	}
	ne := len(sf.Nodes)
	e0 := len(m.bg) / c
	m.bG = slices.Grow(m.bG, ne*nb*c)[:(e0+ne)*nb*c]
	m.bg = slices.Grow(m.bg, ne*c)[:(e0+ne)*c]
	for e := 0; e < ne; e++ {
		v := sf.Entry(e)
		G := m.bG[(e0+e)*nb*c : (e0+e+1)*nb*c]
		g := m.bg[(e0+e)*c : (e0+e+1)*c]
		for col, d := range comp {
			g[col] = v[d]
			for j := 0; j < nb; j++ {
				f := 1.0
				if j >= 3 {
					f = 2
				}
				G[c*j+col] = f * v[(1+j)*nc+d]
			}
		}
	}
}

func (m *GMLSMapping) checkNodes(parentLen int) {
	if cs := 3 + 3*m.nb; parentLen/cs != m.nodes.Len() {
		panic(fmt.Sprintf("%s: the input state has %d nodes but the mapping was set up for %d; call Reinit after resizing it", m.Path(), parentLen/cs, m.nodes.Len()))
	}
}

// Apply implements graph.Mapping: the child DOFs, linear in the nodes'
// coordinates (the same blocks as J).
func (m *GMLSMapping) Apply(childX, parentX []float64) {
	m.checkNodes(len(parentX))
	blockJ(&m.loop, m.offsets, m.nbrs, m.nb, m.lay, m.bG, m.bg, childX, parentX)
}

// ApplyJ implements graph.Mapping: childV = J parentV.
func (m *GMLSMapping) ApplyJ(childV, parentV []float64) {
	blockJ(&m.loop, m.offsets, m.nbrs, m.nb, m.lay, m.bG, m.bg, childV, parentV)
}

// ApplyJT implements graph.Mapping: parentF += Jᵀ childF.
func (m *GMLSMapping) ApplyJT(parentF, childF []float64) {
	blockJT(&m.loop, m.offsets, m.nbrs, m.nb, m.lay, m.bG, m.bg, parentF, childF)
}

// ApplyDJT implements graph.Mapping: nothing, the mapping is linear.
func (m *GMLSMapping) ApplyDJT(parentDf, parentDx, childF []float64, kFactor float64) {}

// JacobianEntries implements graph.SparseJacobianMapping: the constant
// blocks, every entry of a (child DOF, neighbour node) pair written.
func (m *GMLSMapping) JacobianEntries(acc graph.MatrixAccumulator) {
	blockEntries(acc, m.offsets, m.nbrs, m.nb, m.lay, m.bG, m.bg)
}

// NodeRadiusProvider is implemented by samplers that place GMLS nodes
// (shapefunction.MeshfreeSampler): one support radius per node, in the
// order of the nodes' state. GMLSMapping uses the nearest one (this node,
// then each ancestor) when the scene gives no radius.
type NodeRadiusProvider interface {
	graph.Object
	NodeRadii() ([]float64, error)
}
