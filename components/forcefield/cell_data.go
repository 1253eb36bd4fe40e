package forcefield

import "github.com/sofago/sofago/geom"

// cellData is the per-element VTU cell data (visual.CellDataProvider) that
// tetSolid and cellSolid share: the arrays, their lazy sizing at the first
// CellData call, and the stress definition the force field reports. Each
// solid embeds it and fills the arrays with its own element loop
// (cellRange).
type cellData struct {
	// reported gives the stress tensor an element reports from F and the
	// P and cache of the law's StressCached at F, in world axes or any
	// rotation of them (only its von Mises invariant is written); nil:
	// the Cauchy stress (cauchyStress).
	reported   func(F, P *geom.Mat3, cache []float64) geom.Mat3
	vonMises   []float64 // per element, Pa
	density    []float64 // strain energy per rest volume, J/m³
	cellCache  []float64 // law cache per chunk of the element loop (stride each)
	cellBody   func(lo, hi int)
	cellArrays map[string][]float64
}

// resetCells forgets the arrays and the reported stress (a new setup):
// they are sized again at the next CellData.
func (c *cellData) resetCells() {
	c.reported = nil
	c.cellArrays = nil
}

// initCells sizes the cell data arrays of ne elements (the first
// CellData call: cellArrays is nil): a law cache of stride numbers per
// chunk of grain elements, body as the loop body that fills them, and the
// plastic strain array (6 per element) when plastic is not nil.
func (c *cellData) initCells(ne, stride, grain int, body func(lo, hi int), plastic []float64) {
	c.vonMises = make([]float64, ne)
	c.density = make([]float64, ne)
	c.cellCache = make([]float64, stride*(ne/grain+1))
	c.cellBody = body
	c.cellArrays = map[string][]float64{cellVonMises: c.vonMises, cellEnergyDensity: c.density}
	if plastic != nil {
		c.cellArrays[cellPlasticStrain] = plastic
	}
}
