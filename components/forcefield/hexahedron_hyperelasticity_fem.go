package forcefield

import (
	"fmt"
	"strings"

	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/material"
)

// HexahedronHyperelasticityFEMForceField is hyperelastic FEM on trilinear
// hexahedra: the laws of TetrahedronHyperelasticityFEMForceField
// (materialName = StVenantKirchhoff, NeoHookean, StableNeoHookean, from
// package material) evaluated at each hexahedron's 2×2×2 Gauss points
// (see HexahedronFEMForceField for the element): energy Σ_q w_q Ψ(F_q),
// forces −Σ_q w_q P(F_q)∇Nₐ, exact tangent −Σ_q w_q dP(F_q)[dF_q]∇Nₐ.
//
// It is a component of its own, beside HexahedronFEMForceField, as in
// SOFA (TetrahedronFEMForceField and TetrahedronHyperelasticityFEMForceField
// are also two): a scene says the element type and the law family in the
// type name, and each component keeps the fields of its family (method
// for corotational elasticity, materialName for hyperelastic laws).
// Both run on the same element kernel (cellSolid), as the two
// tetrahedral ones share tetSolid.
//
// VTU cell data: "vonMisesStress" of the volume-averaged Cauchy stress
// J⁻¹PFᵀ over the Gauss points (Kirchhoff where J ≤ 0), and
// "strainEnergyDensity". Per-element Young's modulus from regions or
// youngModulusPerElement, as for HexahedronFEMForceField. Plasticity as
// for HexahedronFEMForceField, with the Biot strain S − I of Fₑ = R S as
// the elastic strain (as TetrahedronHyperelasticityFEMForceField):
// "plasticStrain" cell data and dump output.
type HexahedronHyperelasticityFEMForceField struct {
	graph.ObjectBase
	material.StiffnessMap
	MaterialName string  `toml:"materialName" doc:"hyperelastic law: StVenantKirchhoff, NeoHookean (Bonet–Wood; ln J extended below J = 0.2 so inverted points are pushed back), StableNeoHookean (Smith et al. 2018, defined for every F)" enum:"StVenantKirchhoff,NeoHookean,StableNeoHookean"`
	YoungModulus float64 `toml:"youngModulus" doc:"Young's modulus E (of the elements no region or per-element list overrides)" unit:"Pa" range:"(0,inf)"`
	PoissonRatio float64 `toml:"poissonRatio" doc:"Poisson's ratio ν" range:"(-1,0.5)"`
	// Plasticity: SOFA's fields, a plastic strain per hexahedron
	// (cell_plasticity.go); off by default.
	Plasticity

	cellSolid
}

func init() {
	graph.Register(graph.TypeInfo{
		Name:    "HexahedronHyperelasticityFEMForceField",
		Kind:    graph.KindForceField,
		Summary: "Hyperelastic trilinear hexahedra (StVenantKirchhoff, NeoHookean, StableNeoHookean at 2×2×2 Gauss points) with energy and exact tangent; per-element Young's modulus from regions or a list. VTU cell data: vonMisesStress (Pa, of the Cauchy stress) and strainEnergyDensity (J/m³), plasticStrain (with plasticity). SOFA's plasticity fields (plasticYieldThreshold, plasticMaxThreshold, plasticCreep; off by default), a plastic strain per hexahedron.",
		New:     func() graph.Object { return NewHexahedronHyperelasticityFEMForceField() },
	})
}

// NewHexahedronHyperelasticityFEMForceField returns a force field with the
// defaults of TetrahedronHyperelasticityFEMForceField: StVenantKirchhoff,
// E = 5000 Pa, ν = 0.45.
func NewHexahedronHyperelasticityFEMForceField() *HexahedronHyperelasticityFEMForceField {
	return &HexahedronHyperelasticityFEMForceField{
		ObjectBase:   graph.ObjectBase{Name: "HexahedronHyperelasticityFEMForceField", TypeName: "HexahedronHyperelasticityFEMForceField"},
		MaterialName: material.NameStVenantKirchhoff,
		YoungModulus: 5000,
		PoissonRatio: 0.45,
		Plasticity:   defaultPlasticity(),
	}
}

// Validate checks the law, the material and the heterogeneity.
func (c *HexahedronHyperelasticityFEMForceField) Validate() error {
	known := false
	for _, n := range hyperelasticLaws {
		known = known || n == c.MaterialName
	}
	if !known {
		return fmt.Errorf("materialName = %q is not one of %s", c.MaterialName, strings.Join(hyperelasticLaws, ", "))
	}
	if err := checkElastic(c.YoungModulus, c.PoissonRatio); err != nil {
		return err
	}
	if err := c.Plasticity.check(); err != nil {
		return err
	}
	return c.CheckStiffnessMap()
}

// Init reads the hexahedra and precomputes the Gauss-point data.
func (c *HexahedronHyperelasticityFEMForceField) Init() error {
	if err := c.Validate(); err != nil {
		return c.Wrap(err)
	}
	law, err := material.New(c.MaterialName, c.YoungModulus, c.PoissonRatio)
	if err != nil {
		return c.Wrap(err)
	}
	mesh, st, err := hexMesh(&c.ObjectBase)
	if err != nil {
		return c.Wrap(err)
	}
	sc, err := elementScales(mesh, &c.StiffnessMap, "hexahedra", c.YoungModulus)
	if err != nil {
		return c.Wrap(err)
	}
	c.setup(mesh, law, sc, st)
	c.enablePlasticity(c.Plasticity, biotStrain)
	return nil
}

// Law returns the material law in use (nil before Init).
func (c *HexahedronHyperelasticityFEMForceField) Law() material.Law { return c.law }
