package forcefield

import (
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
)

// cellData is the per-element VTU cell data (visual.CellDataProvider) that
// tetSolid and cellSolid share: the arrays, their sizing at the first
// CellData call, the stress definition the force field reports, and
// CellData itself. Each solid binds its element loop and the loop body
// that fills one chunk of elements (its cellRange) at setup (bindCells).
type cellData struct {
	// reported gives the stress tensor an element (tetSolid) or a
	// quadrature point (cellSolid, whose element stress is the volume
	// average) reports from F and the P and cache of the law's
	// StressCached at F, in world axes or any rotation of them (only its
	// von Mises invariant is written); nil: the Cauchy stress
	// (cauchyStress).
	reported   func(F, P *geom.Mat3, cache []float64) geom.Mat3
	vonMises   []float64 // per element, Pa
	density    []float64 // strain energy per rest volume, J/m³
	cellCache  []float64 // law cache per chunk of the element loop (stride each)
	cellArrays map[string][]float64
	cellX      []float64 // positions during CellData, read by the loop body

	// Bound by the solid's setup (bindCells); cellRun is nil before.
	cellState   graph.State
	cellNE      int // elements
	cellStride  int // law cache size
	cellGrain   int // elements per chunk of cellRun
	cellRun     func(body func(lo, hi int))
	cellBody    func(lo, hi int)
	cellPlastic func() []float64 // the plastic strains (6 per element), nil without plasticity
}

// bindCells binds the cell data to a solid set up afresh: ne elements on
// state st, law caches of stride numbers, run the solid's parallel
// element loop over chunks of grain elements, body its cellRange, plastic
// its plastic strains (nil until plasticity is enabled). The arrays are
// sized at the next CellData and the reported stress is reset (the force
// field sets its own after setup).
func (c *cellData) bindCells(st graph.State, ne, stride, grain int, run func(body func(lo, hi int)), body func(lo, hi int), plastic func() []float64) {
	c.reported = nil
	c.cellArrays = nil
	c.cellState, c.cellNE, c.cellStride, c.cellGrain = st, ne, stride, grain
	c.cellRun, c.cellBody, c.cellPlastic = run, body, plastic
}

// CellData implements visual.CellDataProvider: per element, in the
// topology's order, at the state's current position,
//
//   - "vonMisesStress" (Pa): √(3/2 s:s), s the deviator of the element's
//     reported stress σ — the Cauchy stress σ = J⁻¹ P Fᵀ unless the force
//     field substitutes its own definition (TetrahedronFEMForceField,
//     HexahedronFEMForceField: the rotated linear stress); for elements
//     with several quadrature points (cellSolid) the volume average;
//   - "strainEnergyDensity" (J/m³): the element's energy per rest volume
//     (Ψ(F), or Σ_q w_q Ψ(F_q) / Σ_q w_q), so that Σ density·V_rest is the
//     force field's potential energy;
//   - "plasticStrain" (6 components, εxx εyy εzz εxy εyz εxz), only with
//     plasticity on: the element's plastic strain εₚ (F above is then the
//     elastic gradient Fₑ = F (I + εₚ)⁻¹).
//
// Both are scaled by the element's Eₑ/E like its forces. They are
// computed here, in the solid's parallel element loop, only when an
// exporter asks (nothing is spent on them during steps); the returned
// slices are reused by the next call. Nil before the solid is set up.
func (c *cellData) CellData() map[string][]float64 {
	if c.cellRun == nil {
		return nil
	}
	if c.cellArrays == nil {
		ne := c.cellNE
		c.vonMises = make([]float64, ne)
		c.density = make([]float64, ne)
		c.cellCache = make([]float64, c.cellStride*(ne/c.cellGrain+1))
		c.cellArrays = map[string][]float64{cellVonMises: c.vonMises, cellEnergyDensity: c.density}
		if p := c.cellPlastic(); p != nil {
			c.cellArrays[cellPlasticStrain] = p
		}
	}
	c.cellX = c.cellState.Vec(graph.Position)
	c.cellRun(c.cellBody)
	c.cellX = nil
	return c.cellArrays
}
