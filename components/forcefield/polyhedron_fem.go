package forcefield

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sofago/sofago/components/topology"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/material"
	"github.com/sofago/sofago/parallel"
	"github.com/sofago/sofago/polyfem"
)

// PolyhedronFEMForceField is finite elasticity on convex polyhedra with
// harmonic shape functions (Martin et al. 2008; the lecture notes'
// polyhedral elements), on a topology serving them with their basis
// (PolyhedralTopology). Each element of n vertices is integrated on the
// tetrahedral subdivision of its cell (polyfem.Mesh.Rule: the cell's
// centre joined to its fan-triangulated faces) with a rule of degree
// quadratureDegree, with the gradient correction of Talischi et al. 2015
// (polyfem.Mesh.Integrate): at each point q, F_q = Σₐ xₐ ⊗ ∇Nₐ(q), energy
// Σ_q w_q Ψ(F_q), forces −Σ_q w_q P(F_q)∇Nₐ(q), exact tangent — the
// quadrature-point kernel of the hexahedra (cellSolid).
//
// The law is any of package material (materialName): Linear,
// CorotationalLinear (polar rotation per quadrature point, the default),
// StVenantKirchhoff, NeoHookean, StableNeoHookean. The shape functions
// reproduce linear fields and the corrected gradients integrate to the
// boundary data, so affine motions are exact and rigid ones force-free
// for every law but Linear. On a cube the harmonic shape functions are
// the trilinear ones (to the fit accuracy), and with quadratureDegree = 5
// the element's stiffness equals HexahedronFEMForceField's.
//
// Per-element Young's modulus from regions (at each cell's vertex mean)
// or youngModulusPerElement. VTU cell data per polyhedron (CellData):
// "vonMisesStress" of the volume-averaged Cauchy stress and
// "strainEnergyDensity", written with the cells as VTK polyhedra.
type PolyhedronFEMForceField struct {
	graph.ObjectBase
	material.StiffnessMap
	MaterialName     string  `toml:"materialName" doc:"law of package material: Linear, CorotationalLinear (polar rotation per quadrature point), StVenantKirchhoff, NeoHookean, StableNeoHookean" enum:"Linear,CorotationalLinear,StVenantKirchhoff,NeoHookean,StableNeoHookean"`
	YoungModulus     float64 `toml:"youngModulus" doc:"Young's modulus E (of the elements no region or per-element list overrides)" unit:"Pa" range:"(0,inf)"`
	PoissonRatio     float64 `toml:"poissonRatio" doc:"Poisson's ratio ν" range:"(-1,0.5)"`
	QuadratureDegree int     `toml:"quadratureDegree" doc:"degree of the quadrature rule on each tetrahedron of a cell's subdivision: 1 (1 point), 2 (4 points) or 5 (15 points)" enum:"1,2,5"`

	cellSolid
	integ []*polyfem.ElementIntegration
}

func init() {
	graph.Register(graph.TypeInfo{
		Name:    "PolyhedronFEMForceField",
		Kind:    graph.KindForceField,
		Summary: "Elasticity on convex polyhedra with harmonic shape functions (method of fundamental solutions), integrated on a tetrahedral subdivision with gradient correction; any law of package material (CorotationalLinear default, hyperelastic laws); energy and exact tangent; per-element Young's modulus.",
		New:     func() graph.Object { return NewPolyhedronFEMForceField() },
	})
}

// NewPolyhedronFEMForceField returns a force field with the defaults:
// CorotationalLinear, E = 5000 Pa, ν = 0.45, quadrature degree 2.
func NewPolyhedronFEMForceField() *PolyhedronFEMForceField {
	return &PolyhedronFEMForceField{
		ObjectBase:       graph.ObjectBase{Name: "PolyhedronFEMForceField", TypeName: "PolyhedronFEMForceField"},
		MaterialName:     material.NameCorotationalLinear,
		YoungModulus:     5000,
		PoissonRatio:     0.45,
		QuadratureDegree: 2,
	}
}

// Validate checks the law, the material, the degree and the heterogeneity.
func (c *PolyhedronFEMForceField) Validate() error {
	if !slices.Contains(material.Names(), c.MaterialName) {
		return fmt.Errorf("materialName = %q is not one of %s", c.MaterialName, strings.Join(material.Names(), ", "))
	}
	if !slices.Contains(polyfem.Degrees, c.QuadratureDegree) {
		return fmt.Errorf("quadratureDegree = %d is not one of %v", c.QuadratureDegree, polyfem.Degrees)
	}
	if err := checkElastic(c.YoungModulus, c.PoissonRatio); err != nil {
		return err
	}
	return c.CheckStiffnessMap()
}

// Init fits (or reuses) the topology's shape functions and builds the
// quadrature data.
func (c *PolyhedronFEMForceField) Init() error {
	if err := c.Validate(); err != nil {
		return c.Wrap(err)
	}
	law, err := material.New(c.MaterialName, c.YoungModulus, c.PoissonRatio)
	if err != nil {
		return c.Wrap(err)
	}
	mesh, st, integ, err := polyMesh(&c.ObjectBase, c.QuadratureDegree)
	if err != nil {
		return c.Wrap(err)
	}
	sc, err := elementScales(mesh, &c.StiffnessMap, "polyhedra", c.YoungModulus)
	if err != nil {
		return c.Wrap(err)
	}
	c.integ = integ
	c.setup(mesh, law, sc, st)
	return nil
}

// Integration returns the quadrature data of element e (weights, points,
// shape function values and corrected gradients).
func (c *PolyhedronFEMForceField) Integration(e int) *polyfem.ElementIntegration { return c.integ[e] }

// polyMesh reads the Vec3 state and the polyhedral topology of the
// object's node and builds the quadrature-point data of every cell at
// the given degree (in parallel; deterministic).
func polyMesh(obj *graph.ObjectBase, degree int) (*cellElements, graph.State, []*polyfem.ElementIntegration, error) {
	if obj.Node == nil {
		return nil, nil, nil, fmt.Errorf("not attached to a node")
	}
	st := obj.Node.State()
	if st == nil {
		return nil, nil, nil, fmt.Errorf("no mechanical state in node %q: add a MechanicalObject (template Vec3)", obj.Node.Path())
	}
	if tn := st.Template().Name(); tn != "Vec3" {
		return nil, nil, nil, fmt.Errorf("state %q has template %s; %s acts on Vec3 points", st.Base().Name, tn, obj.TypeName)
	}
	topo := obj.Node.Topology()
	bp, ok := topo.(topology.BasisProvider)
	if !ok || len(bp.Polyhedra()) == 0 {
		return nil, nil, nil, fmt.Errorf("no polyhedra with shape functions in the topology of node %q: use a PolyhedralTopology", obj.Node.Path())
	}
	m := bp.Mesh()
	rest := st.Vec(graph.RestPosition)
	if len(rest) != len(m.Points) {
		return nil, nil, nil, fmt.Errorf("topology %q has %d points, the state %d", topo.Base().Name, m.NumPoints(), len(rest)/3)
	}
	for i := range rest {
		if rest[i] != m.Points[i] {
			return nil, nil, nil, fmt.Errorf("the state's rest position differs from the topology's points at point %d: the shape functions are those of the topology's cells", i/3)
		}
	}
	basis, err := bp.HarmonicBasis()
	if err != nil {
		return nil, nil, nil, err
	}
	integ := make([]*polyfem.ElementIntegration, len(basis))
	errs := make([]error, len(basis))
	var r parallel.Runner
	r.Run(len(basis), 1, func(lo, hi int) {
		for e := lo; e < hi; e++ {
			integ[e], errs[e] = m.Integrate(e, basis[e], degree)
		}
	})
	for _, err := range errs {
		if err != nil {
			return nil, nil, nil, err
		}
	}
	b := newCellBuilder(len(rest) / 3)
	for _, in := range integ {
		grads := make([][]geom.Vec3, len(in.W))
		copy(grads, in.G)
		b.add(in.Nodes, rest, in.W, grads)
	}
	mesh, err := b.finish()
	if err != nil {
		return nil, nil, nil, err
	}
	return mesh, st, integ, nil
}
