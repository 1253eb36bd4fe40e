package forcefield

import (
	"fmt"
	"math"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/material"
)

// HexahedronFEMForceField is corotational linear elasticity on trilinear
// hexahedra (SOFA's HexahedronFEMForceField, same name and fields), for
// topologies serving hexahedra (graph.HexahedronTopology:
// RegularGridTopology or SparseGridTopology with elements = "hexahedra",
// MeshLoader on a file with hexahedra).
//
// Each hexahedron is integrated at its 2×2×2 Gauss points (cellSolid,
// newHexElements): the deformation gradient F_q = Σₐ xₐ ⊗ ∇Nₐ(ξ_q) of the
// trilinear field at point q, the energy Σ_q w_q Ψ(F_q), the forces
// fₐ = −Σ_q w_q P(F_q) ∇Nₐ(ξ_q). The method picks Ψ exactly as for
// TetrahedronFEMForceField, now per Gauss point:
//
//   - "small": linear elasticity, Ψ = μ ε:ε + λ/2 (tr ε)², ε = sym(F) − I;
//     K is the classical trilinear hexahedron stiffness.
//   - "large" (default): R from the QR (Gram–Schmidt) decomposition of
//     F_q, Ψ = μ|sym(U) − I|² + λ/2 (tr U − 3)² with F = R U (conservative,
//     defined for flat and inverted points).
//   - "polar": R from the polar decomposition F_q = R S,
//     Ψ = μ|S − I|² + λ/2 (tr S − 3)² (VegaFEM's corotational energy).
//   - "svd": polar with the sign-corrected SVD rotation (invertible).
//
// SOFA's component rotates the whole element by one frame built from its
// edges and applies R K₀ (Rᵀx − x₀); that force is not the gradient of an
// energy, and its tangent is the warped R K₀ Rᵀ. Here each Gauss point
// has its own rotation, the force is the exact gradient of the energy
// above (so PotentialEnergy is defined) and AddDForce applies its exact
// derivative (the laws' closed-form tangents): rigid motions give no
// force for every method but small, Newton converges quadratically, and
// for small displacements every method equals "small" (K₀).
//
// The trilinear hexahedron with full 2×2×2 integration still locks
// somewhat in bending (parasitic shear of order (element length /
// thickness)² relative to bending, against the linear tetrahedron's much
// stronger locking): validation/hex_cantilever_test.go measures it.
//
// Per-element Young's modulus: youngModulusPerElement (one per
// hexahedron, in topology order) or regions (tested against each
// hexahedron's rest centre, the mean of its corners). VTU cell data per
// hexahedron (CellData): "vonMisesStress" of the volume average of the
// rotated linear stress R(2με + λ tr(ε) I)Rᵀ over the Gauss points (as
// for tetrahedra), "strainEnergyDensity" the element energy per rest
// volume. It also writes its exact tangent as 3×3 blocks for direct
// solvers and assembled preconditioners (graph.StiffnessBlockAssembler).
//
// Plasticity (plasticYieldThreshold, plasticMaxThreshold, plasticCreep;
// off by default): the flow rule of TetrahedronFEMForceField on a plastic
// strain per hexahedron, applied multiplicatively at its Gauss points,
// with the element's volume-averaged corotated strain as the elastic
// strain (cell_plasticity.go); written to VTU cell data ("plasticStrain")
// and to the JSON dump's objects section.
type HexahedronFEMForceField struct {
	graph.ObjectBase
	material.StiffnessMap
	Method       string  `toml:"method" doc:"corotational formulation, per Gauss point: small (linear FEM), large (rotation from the QR decomposition of F, conservative), polar (polar decomposition), svd (invertible: rotation from the sign-corrected SVD)" enum:"small,large,polar,svd"`
	YoungModulus float64 `toml:"youngModulus" doc:"Young's modulus E (of the elements no region or per-element list overrides)" unit:"Pa" range:"(0,inf)"`
	PoissonRatio float64 `toml:"poissonRatio" doc:"Poisson's ratio ν" range:"(-1,0.5)"`
	// Plasticity: SOFA's fields, a plastic strain per hexahedron
	// (cell_plasticity.go); off by default.
	Plasticity

	cellSolid
	mu, lambda float64
	method     femMethod
}

func init() {
	graph.Register(graph.TypeInfo{
		Name:    "HexahedronFEMForceField",
		Kind:    graph.KindForceField,
		Summary: "Corotational linear-elastic trilinear hexahedra (SOFA's HexahedronFEMForceField), 2×2×2 Gauss points each with its own rotation: method small (linear), large (QR), polar, or svd (invertible); conservative with energy and exact tangent; per-element Young's modulus from regions or a list. VTU cell data: vonMisesStress (Pa) and strainEnergyDensity (J/m³), plasticStrain (with plasticity). SOFA's plasticity fields (plasticYieldThreshold, plasticMaxThreshold, plasticCreep; off by default), a plastic strain per hexahedron.",
		New:     func() graph.Object { return NewHexahedronFEMForceField() },
	})
}

// NewHexahedronFEMForceField returns a force field with SOFA's defaults:
// method "large", E = 5000 Pa, ν = 0.45.
func NewHexahedronFEMForceField() *HexahedronFEMForceField {
	return &HexahedronFEMForceField{
		ObjectBase:   graph.ObjectBase{Name: "HexahedronFEMForceField", TypeName: "HexahedronFEMForceField"},
		Method:       "large",
		YoungModulus: 5000,
		PoissonRatio: 0.45,
		Plasticity:   defaultPlasticity(),
	}
}

// Validate checks the method, the material and the heterogeneity.
func (c *HexahedronFEMForceField) Validate() error {
	m, err := parseMethod(c.Method)
	if err != nil {
		return err
	}
	c.method = m
	if err := checkElastic(c.YoungModulus, c.PoissonRatio); err != nil {
		return err
	}
	if err := c.Plasticity.check(); err != nil {
		return err
	}
	return c.CheckStiffnessMap()
}

// parseMethod reads a corotational method name.
func parseMethod(name string) (femMethod, error) {
	switch name {
	case "small":
		return methodSmall, nil
	case "large":
		return methodLarge, nil
	case "polar":
		return methodPolar, nil
	case "svd":
		return methodSVD, nil
	}
	return 0, fmt.Errorf("method = %q is not one of small, large, polar, svd", name)
}

// checkElastic checks Young's modulus and Poisson's ratio.
func checkElastic(E, nu float64) error {
	if !(E > 0) || math.IsInf(E, 0) {
		return fmt.Errorf("youngModulus = %g must be positive and finite", E)
	}
	if !(nu > -1 && nu < 0.5) {
		return fmt.Errorf("poissonRatio = %g is out of range (-1, 0.5)", nu)
	}
	return nil
}

// Init reads the hexahedra of the node's topology and the rest positions
// of its Vec3 state, and precomputes the Gauss-point data.
func (c *HexahedronFEMForceField) Init() error {
	if err := c.Validate(); err != nil {
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
	c.lambda, c.mu = material.Lame(c.YoungModulus, c.PoissonRatio)
	law := methodLaw(c.method, c.lambda, c.mu)
	c.setup(mesh, law, sc, st)
	c.reported = func(F, _ *geom.Mat3, cache []float64) geom.Mat3 {
		return rotatedLinearStress(c.method, c.mu, c.lambda, F, cache)
	}
	c.enablePlasticity(c.Plasticity, corotatedStrainOf(c.method, law))
	return nil
}

// Lame returns the Lamé constants μ and λ in use.
func (c *HexahedronFEMForceField) Lame() (mu, lambda float64) { return c.mu, c.lambda }
