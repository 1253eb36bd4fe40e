package forcefield

import (
	"fmt"
	"math"
	"strings"

	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/material"
)

// TetrahedronHyperelasticityFEMForceField is hyperelastic tetrahedral FEM
// (SOFA's TetrahedronHyperelasticityFEMForceField): linear tetrahedra,
// deformation gradient F = Ds Dm⁻¹ constant per element, element energy
// V·Ψ(F), vertex forces fᵢ = −V P(F) ∇Nᵢ, and the exact tangent applied
// matrix-free, df = −V dP(F)[dF] ∇Nᵢ with dF = dDs Dm⁻¹, so Newton and
// implicit Euler see the true derivative of the force. The law Ψ is one
// of package material, chosen by materialName:
//
//   - "StVenantKirchhoff": Ψ = μ tr(E²) + λ/2 tr(E)², E = ½(FᵀF − I).
//     Rotation invariant, exactly cubic in the displacements; softens in
//     strong compression and offers no resistance to inversion (a mirrored
//     element has zero energy): meant for large rotations with moderate
//     strains.
//   - "NeoHookean": Bonet & Wood's Ψ = μ/2 (tr C − 3) − μ ln J +
//     λ/2 (ln J)², VegaFEM's neo-Hookean; below J = J₀ = 0.2 ln J is
//     replaced by its second-order Taylor expansion at J₀ (C² across J₀),
//     so flat and inverted elements get finite, restoring forces
//     (material.NeoHookean).
//   - "StableNeoHookean": Smith, de Goes & Kim 2018, defined for every F
//     without any patch, restoring for inverted elements, same small-strain
//     behaviour as the other two (material.StableNeoHookean).
//
// λ and μ come from youngModulus and poissonRatio. The Young's modulus may
// vary per element (youngModulusPerElement, or regions with their own
// youngModulus): each element's energy, force and tangent are scaled by
// Eₑ/E at the common ν.
//
// VTU output (runscene -out, VTKExporter) gets two cell data arrays from
// it (cellData.CellData): "vonMisesStress" (Pa), the von Mises stress of
// the Cauchy stress σ = J⁻¹ P Fᵀ (of the Kirchhoff stress P Fᵀ for a flat
// or inverted element, where σ is undefined), and "strainEnergyDensity"
// (J/m³ of rest volume), Ψ(F).
//
// Plasticity (plasticYieldThreshold, plasticMaxThreshold, plasticCreep;
// off by default) is multiplicative: a plastic strain εₚ per element
// deforms its rest shape, Fₑ = F (I + εₚ)⁻¹, updated once per step after
// the solve by SOFA's flow rule on the Biot strain of Fₑ (see
// Plasticity); written to VTU cell data ("plasticStrain") and the dump.
//
// It shares the element machinery with TetrahedronFEMForceField (tetSolid
// in tet_kinematics.go): AddForce caches per element what the tangent
// needs (AddDForce linearises at the x of the most recent AddForce);
// element loops run in parallel and every vertex sums its elements in a
// fixed order, so results are bitwise identical for any number of
// workers; nothing is allocated per call.
type TetrahedronHyperelasticityFEMForceField struct {
	graph.ObjectBase
	material.StiffnessMap
	Plasticity
	MaterialName string  `toml:"materialName" doc:"hyperelastic law: StVenantKirchhoff, NeoHookean (Bonet–Wood; ln J extended below J = 0.2 so inverted elements are pushed back), StableNeoHookean (Smith et al. 2018, defined for every F)" enum:"StVenantKirchhoff,NeoHookean,StableNeoHookean"`
	YoungModulus float64 `toml:"youngModulus" doc:"Young's modulus E (of the elements no region or per-element list overrides)" unit:"Pa" range:"(0,inf)"`
	PoissonRatio float64 `toml:"poissonRatio" doc:"Poisson's ratio ν" range:"(-1,0.5)"`

	tetSolid
}

func init() {
	graph.Register(graph.TypeInfo{
		Name:    "TetrahedronHyperelasticityFEMForceField",
		Kind:    graph.KindForceField,
		Summary: "Hyperelastic tetrahedral FEM (StVenantKirchhoff, NeoHookean, StableNeoHookean) with energy and exact tangent; per-element Young's modulus from regions or a list. Multiplicative plasticity with SOFA's fields (plasticYieldThreshold, plasticMaxThreshold, plasticCreep; off by default). VTU cell data: vonMisesStress (Pa, of the Cauchy stress J⁻¹PFᵀ), strainEnergyDensity (J/m³ of rest volume), plasticStrain (with plasticity).",
		New:     func() graph.Object { return NewTetrahedronHyperelasticityFEMForceField() },
	})
}

// NewTetrahedronHyperelasticityFEMForceField returns a force field with
// SOFA's defaults where it has them: StVenantKirchhoff, E = 5000 Pa,
// ν = 0.45 (those of TetrahedronFEMForceField).
func NewTetrahedronHyperelasticityFEMForceField() *TetrahedronHyperelasticityFEMForceField {
	return &TetrahedronHyperelasticityFEMForceField{
		ObjectBase:   graph.ObjectBase{Name: "TetrahedronHyperelasticityFEMForceField", TypeName: "TetrahedronHyperelasticityFEMForceField"},
		MaterialName: material.NameStVenantKirchhoff,
		YoungModulus: 5000,
		PoissonRatio: 0.45,
		Plasticity:   defaultPlasticity(),
	}
}

// hyperelasticLaws are the materialName values.
var hyperelasticLaws = []string{material.NameStVenantKirchhoff, material.NameNeoHookean, material.NameStableNeoHookean}

// Validate checks the law, the material and the heterogeneity (for
// objects built in code; the loader checks the tags too).
func (c *TetrahedronHyperelasticityFEMForceField) Validate() error {
	known := false
	for _, n := range hyperelasticLaws {
		known = known || n == c.MaterialName
	}
	if !known {
		return fmt.Errorf("materialName = %q is not one of %s", c.MaterialName, strings.Join(hyperelasticLaws, ", "))
	}
	if !(c.YoungModulus > 0) || math.IsInf(c.YoungModulus, 0) {
		return fmt.Errorf("youngModulus = %g must be positive and finite", c.YoungModulus)
	}
	if !(c.PoissonRatio > -1 && c.PoissonRatio < 0.5) {
		return fmt.Errorf("poissonRatio = %g is out of range (-1, 0.5)", c.PoissonRatio)
	}
	if err := c.Plasticity.check(); err != nil {
		return err
	}
	return c.CheckStiffnessMap()
}

// Init reads the tetrahedra of the node's topology and the rest positions
// of its Vec3 state, and precomputes the element data.
func (c *TetrahedronHyperelasticityFEMForceField) Init() error {
	if err := c.Validate(); err != nil {
		return c.Wrap(err)
	}
	law, err := material.New(c.MaterialName, c.YoungModulus, c.PoissonRatio)
	if err != nil {
		return c.Wrap(err)
	}
	mesh, st, tets, err := tetMesh(&c.ObjectBase)
	if err != nil {
		return c.Wrap(err)
	}
	w, err := elementWeights(mesh, &c.StiffnessMap, st.Vec(graph.RestPosition), tets, c.YoungModulus)
	if err != nil {
		return c.Wrap(err)
	}
	c.setup(mesh, law, w, st, nil, nil)
	c.enablePlasticity(c.Plasticity, biotStrain)
	return nil
}

// Law returns the material law in use (nil before Init).
func (c *TetrahedronHyperelasticityFEMForceField) Law() material.Law { return c.law }
