package reduced

import (
	"fmt"

	"github.com/sofago/sofago/components/constraint"
	"github.com/sofago/sofago/components/forcefield"
	"github.com/sofago/sofago/components/mass"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/modal"
	"github.com/sofago/sofago/reduced"
)

// meshTopology is the topology of the private full-mesh model the basis
// is computed on.
type meshTopology struct {
	graph.ObjectBase
	points []float64
	tets   [][4]int
}

func (t *meshTopology) Points() []float64    { return t.points }
func (t *meshTopology) Tetrahedra() [][4]int { return t.tets }
func (t *meshTopology) Triangles() [][3]int  { return nil }
func (t *meshTopology) Init() error          { return nil }

// fullModel builds and initialises, outside the scene, the full model the
// modal analysis needs: the mesh as a Vec3 state, a StVK
// TetrahedronHyperelasticityFEMForceField with the force field's material
// and regions (at rest StVK is linear elasticity, so its K is the rest
// stiffness), the consistent (MeshMatrixMass) or lumped (DiagonalMass)
// mass, and a FixedConstraint on the fixed vertices.
func (c *ReducedStVKForceField) fullModel(fixed []int) (*graph.Node, error) {
	root := &graph.Node{Name: c.Name + "-full", File: c.File}
	topo := &meshTopology{ObjectBase: graph.ObjectBase{Name: "mesh", TypeName: "mesh"}, points: c.mesh.Points, tets: c.mesh.Tets}
	root.Add(topo)
	mo := graph.NewMechanicalObject("dofs", graph.Vec3, 0)
	root.Add(mo)
	ff := forcefield.NewTetrahedronHyperelasticityFEMForceField()
	ff.Name = "stvk"
	ff.YoungModulus, ff.PoissonRatio = c.YoungModulus, c.PoissonRatio
	ff.StiffnessMap = c.StiffnessMap
	root.Add(ff)
	var ms graph.Object
	if c.LumpedMass {
		info, _ := graph.Lookup("DiagonalMass")
		dm := info.New().(*mass.DiagonalMass)
		dm.MassDensity = c.MassDensity
		ms = dm
	} else {
		info, _ := graph.Lookup("MeshMatrixMass")
		mm := info.New().(*mass.MeshMatrixMass)
		mm.MassDensity = c.MassDensity
		ms = mm
	}
	ms.Base().Name, ms.Base().TypeName = "mass", "mass"
	root.Add(ms)
	objs := []graph.Object{topo, mo, ms, ff}
	if len(fixed) > 0 {
		fc := &constraint.FixedConstraint{}
		fc.Name, fc.TypeName = "fixed", "FixedConstraint"
		fc.Indices = fixed
		root.Add(fc)
		objs = append(objs, fc)
	}
	for _, o := range objs {
		if in, ok := o.(graph.Initializer); ok {
			if err := in.Init(); err != nil {
				return nil, fmt.Errorf("building the full model for the modal analysis: %w", err)
			}
		}
	}
	return root, nil
}

// computeBasis builds the basis from the full mesh: modes and modal
// derivatives reduced by mass-PCA, or mass-PCA of a snapshot file.
func (c *ReducedStVKForceField) computeBasis(fixed []int) (*reduced.Basis, []float64, error) {
	root, err := c.fullModel(fixed)
	if err != nil {
		return nil, nil, err
	}
	var b *modal.Basis
	if c.SnapshotFile != "" {
		c.progress("snapshot basis", 0, 0, "mass-PCA of "+c.SnapshotFile)
		b, _, err = modal.BuildSnapshotBasis(root, c.resolve(c.SnapshotFile), c.BasisSize)
		if err != nil {
			return nil, nil, fmt.Errorf("snapshotFile: %w", err)
		}
	} else {
		b, _, err = modal.BuildModalDerivativeBasis(root, modal.BasisOptions{
			Modes: c.NumModes, Size: c.BasisSize, LinearOnly: c.LinearModesOnly,
			Progress: func(stage string, done, total int) { c.progress(stage, done, total, "") },
		})
		if err != nil {
			return nil, nil, fmt.Errorf("modal basis: %w", err)
		}
	}
	basis, err := reduced.NewBasisColumnMajor(b.Rows, b.Cols, b.U)
	if err != nil {
		return nil, nil, err
	}
	return basis, b.Eigenvalues, nil
}
