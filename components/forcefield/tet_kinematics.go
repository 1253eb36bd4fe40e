package forcefield

import (
	"fmt"
	"math"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/material"
	"github.com/sofago/sofago/parallel"
)

// tetElements is the rest-shape data of a linear tetrahedral mesh that every
// tetrahedral force field of this package shares (TetrahedronFEMForceField,
// TetrahedronHyperelasticityFEMForceField, through tetSolid below): for
// element e with vertices (x₀, x₁, x₂, x₃),
//
//	Dm = [X₁−X₀, X₂−X₀, X₃−X₀]   (rest edge matrix, columns)
//	Ds = [x₁−x₀, x₂−x₀, x₃−x₀]   (current edge matrix)
//	F  = Ds Dm⁻¹                 (deformation gradient, constant per element)
//	V  = det(Dm)/6               (rest volume)
//
// The shape functions have constant gradients ∇Nᵢ = Dm⁻ᵀ eᵢ (row i of
// Dm⁻¹) for i = 1, 2, 3 and ∇N₀ = −(∇N₁ + ∇N₂ + ∇N₃). An element energy
// V·Ψ(F) with first Piola–Kirchhoff stress P = ∂Ψ/∂F gives the vertex
// forces fᵢ = −V P ∇Nᵢ: the columns of −V P Dm⁻ᵀ for vertices 1..3 and
// minus their sum for vertex 0 (Sifakis & Barbič, "FEM simulation of 3D
// deformable solids", SIGGRAPH 2012 course, Sec. 4). Force differentials
// follow with dP in place of P and dF = dDs Dm⁻¹.
//
// Per-element results go to a flat array of 12 numbers per element (the
// forces on corners 0..3, xyz each); gatherAdd sums them per vertex over
// a precomputed vertex → (element, corner) incidence list (CSR), always in
// increasing element order. Element loops and vertex loops can then both
// run in parallel with results independent of the number of workers.
type tetElements struct {
	numPoints int
	idx       []int32   // 4 per element: vertex indices
	dmInv     []float64 // 9 per element: Dm⁻¹, row-major
	vol       []float64 // rest volume per element (> 0)
	// incStart[v] .. incStart[v+1] index incSlot, which holds 4·e + corner
	// for every element e incident to vertex v, by increasing e.
	incStart []int32
	incSlot  []int32
}

// degenerateRatio is the smallest |det Dm| / (longest edge)³ accepted for a
// rest element. A regular tetrahedron has 0.71, a Kuhn cube tetrahedron
// 0.19; below 1e-8 the inverse Dm⁻¹ carries a condition number beyond 1e8
// and the element's forces lose half their digits.
const degenerateRatio = 1e-8

// newTetElements builds the rest data of tets over the flat rest positions
// rest (3 numbers per point). It fails on an index out of range, a
// degenerate element (|det Dm| ≤ 1e-8 · longest edge³) or an inverted one
// (det Dm < 0), naming the first offending element and counting the others.
func newTetElements(rest []float64, tets [][4]int) (*tetElements, error) {
	np := len(rest) / 3
	if np > math.MaxInt32 || 4*len(tets) > math.MaxInt32 {
		return nil, fmt.Errorf("mesh too large: %d points, %d tetrahedra", np, len(tets))
	}
	ne := len(tets)
	m := &tetElements{
		numPoints: np,
		idx:       make([]int32, 4*ne),
		dmInv:     make([]float64, 9*ne),
		vol:       make([]float64, ne),
	}
	for e, t := range tets {
		for c, v := range t {
			if v < 0 || v >= np {
				return nil, fmt.Errorf("tetrahedron %d (vertices %d, %d, %d, %d): vertex index %d is out of range [0, %d) of the state's points",
					e, t[0], t[1], t[2], t[3], v, np)
			}
			m.idx[4*e+c] = int32(v)
		}
	}
	var firstBad error
	nBad := 0
	for e, t := range tets {
		x0 := geom.At(rest, t[0])
		a, b, c := geom.At(rest, t[1]).Sub(x0), geom.At(rest, t[2]).Sub(x0), geom.At(rest, t[3]).Sub(x0)
		Dm := geom.Cols(a, b, c)
		det := Dm.Det()
		lmax := 0.0
		for i := 0; i < 4; i++ {
			for j := i + 1; j < 4; j++ {
				lmax = math.Max(lmax, geom.At(rest, t[i]).Sub(geom.At(rest, t[j])).Norm())
			}
		}
		var err error
		switch {
		case !(math.Abs(det) > degenerateRatio*lmax*lmax*lmax):
			err = fmt.Errorf("tetrahedron %d (vertices %d, %d, %d, %d) is degenerate in the rest configuration: volume %.3g for a longest edge of %.3g (|volume| must exceed %g × edge³/6)",
				e, t[0], t[1], t[2], t[3], det/6, lmax, degenerateRatio)
		case det < 0:
			err = fmt.Errorf("tetrahedron %d (vertices %d, %d, %d, %d) is inverted in the rest configuration (volume %.3g < 0); swap two of its vertices to orient it positively",
				e, t[0], t[1], t[2], t[3], det/6)
		}
		if err != nil {
			if firstBad == nil {
				firstBad = err
			}
			nBad++
			continue
		}
		inv, _ := Dm.Inverse()
		copy(m.dmInv[9*e:9*e+9], inv[:])
		m.vol[e] = det / 6
	}
	if nBad > 1 {
		return nil, fmt.Errorf("%w (and %d more bad tetrahedra)", firstBad, nBad-1)
	}
	if firstBad != nil {
		return nil, firstBad
	}
	// Incidence lists, CSR: count, prefix sum, fill in element order.
	m.incStart, m.incSlot = buildIncidence(m.idx, np)
	return m, nil
}

// numElements returns the number of tetrahedra.
func (m *tetElements) numElements() int { return len(m.vol) }

// volume returns the rest volume of element e.
func (m *tetElements) volume(e int) float64 { return m.vol[e] }

// vertices returns the vertex indices of element e.
func (m *tetElements) vertices(e int) [4]int {
	i := m.idx[4*e : 4*e+4 : 4*e+4]
	return [4]int{int(i[0]), int(i[1]), int(i[2]), int(i[3])}
}

// restInverse returns Dm⁻¹ of element e.
func (m *tetElements) restInverse(e int) geom.Mat3 {
	return geom.Mat3(m.dmInv[9*e : 9*e+9])
}

// shapeGradients returns ∇N₀ … ∇N₃ of element e (constant over it).
func (m *tetElements) shapeGradients(e int) [4]geom.Vec3 {
	B := m.restInverse(e)
	g1, g2, g3 := B.Row(0), B.Row(1), B.Row(2)
	return [4]geom.Vec3{g1.Add(g2).Add(g3).Scale(-1), g1, g2, g3}
}

// gradient returns G·Dm⁻¹ with G = [u₁−u₀, u₂−u₀, u₃−u₀] for the vertex
// values u (3 per point) of element e: the deformation gradient F for
// positions, its differential dF for displacements.
func (m *tetElements) gradient(e int, u []float64) geom.Mat3 {
	ix := m.idx[4*e : 4*e+4 : 4*e+4]
	i0, i1, i2, i3 := 3*int(ix[0]), 3*int(ix[1]), 3*int(ix[2]), 3*int(ix[3])
	p0 := u[i0 : i0+3 : i0+3]
	p1 := u[i1 : i1+3 : i1+3]
	p2 := u[i2 : i2+3 : i2+3]
	p3 := u[i3 : i3+3 : i3+3]
	B := m.dmInv[9*e : 9*e+9 : 9*e+9]
	var F geom.Mat3
	for r := 0; r < 3; r++ {
		d1, d2, d3 := p1[r]-p0[r], p2[r]-p0[r], p3[r]-p0[r]
		F[3*r] = d1*B[0] + d2*B[3] + d3*B[6]
		F[3*r+1] = d1*B[1] + d2*B[4] + d3*B[7]
		F[3*r+2] = d1*B[2] + d2*B[5] + d3*B[8]
	}
	return F
}

// gradientTo writes gradient(e, u) into out[0:9] (heap memory for the
// material laws' slice arguments, without copying an array).
func (m *tetElements) gradientTo(e int, u, out []float64) {
	ix := m.idx[4*e : 4*e+4 : 4*e+4]
	i0, i1, i2, i3 := 3*int(ix[0]), 3*int(ix[1]), 3*int(ix[2]), 3*int(ix[3])
	p0 := u[i0 : i0+3 : i0+3]
	p1 := u[i1 : i1+3 : i1+3]
	p2 := u[i2 : i2+3 : i2+3]
	p3 := u[i3 : i3+3 : i3+3]
	B := m.dmInv[9*e : 9*e+9 : 9*e+9]
	F := out[:9:9]
	for r := 0; r < 3; r++ {
		d1, d2, d3 := p1[r]-p0[r], p2[r]-p0[r], p3[r]-p0[r]
		F[3*r] = d1*B[0] + d2*B[3] + d3*B[6]
		F[3*r+1] = d1*B[1] + d2*B[4] + d3*B[7]
		F[3*r+2] = d1*B[2] + d2*B[5] + d3*B[8]
	}
}

// nodalForces writes into out[0:12] the vertex forces s·P·∇Nᵢ of element e
// for i = 0..3: with s = −V they are the elastic forces of stress P, with
// s = −V·k the force differentials of dP scaled by k.
func (m *tetElements) nodalForces(e int, P *geom.Mat3, s float64, out []float64) {
	B := m.dmInv[9*e : 9*e+9 : 9*e+9]
	o := out[:12:12]
	for r := 0; r < 3; r++ {
		// Row r of P Dm⁻ᵀ: (P Dm⁻ᵀ)_rj = Σ_k P_rk B_jk.
		p0, p1, p2 := s*P[3*r], s*P[3*r+1], s*P[3*r+2]
		f1 := p0*B[0] + p1*B[1] + p2*B[2]
		f2 := p0*B[3] + p1*B[4] + p2*B[5]
		f3 := p0*B[6] + p1*B[7] + p2*B[8]
		o[3+r] = f1
		o[6+r] = f2
		o[9+r] = f3
		o[r] = -(f1 + f2 + f3)
	}
}

// gatherAdd adds to f the per-vertex sums of the per-element results elem
// (12 per element) for the vertices in [lo, hi), in the fixed incidence
// order.
func (m *tetElements) gatherAdd(f, elem []float64, lo, hi int) {
	gatherIncidence(f, elem, m.incStart, m.incSlot, lo, hi)
}

// tetAssembler runs per-element kernels over a tetElements mesh in
// parallel and sums their per-element results (12 numbers per element,
// written by the kernel into elem[12e:12e+12], e.g. by nodalForces) into
// per-vertex vectors. The element pass and the vertex pass both split
// their ranges over the workers; since each element writes only its own
// slot and each vertex sums its slots in a fixed order, the result is
// bitwise the same for any number of workers. Nothing is allocated per
// call.
type tetAssembler struct {
	mesh   *tetElements
	runner parallel.Runner
	elem   []float64 // 12 per element
	out    []float64 // target of the current accumulate
	gather func(lo, hi int)
}

// Grain sizes of the parallel loops (about 10 µs of work each): the
// ranges are cut into chunks no smaller, and meshes under 8 grains run on
// one goroutine.
const (
	elementGrain = 64
	vertexGrain  = 128
	// matrixGrain is the grain of the element-matrix loop (KBlocks):
	// an element matrix costs ~0.4 µs, ten times a force, so 480
	// tetrahedra (scenes/cantilever.toml) are already worth two workers.
	matrixGrain = 16
)

func newTetAssembler(mesh *tetElements) *tetAssembler {
	a := &tetAssembler{mesh: mesh, elem: make([]float64, 12*mesh.numElements())}
	a.gather = func(lo, hi int) { a.mesh.gatherAdd(a.out, a.elem, lo, hi) }
	return a
}

// elements runs body over all element indices, in parallel chunks.
func (a *tetAssembler) elements(body func(lo, hi int)) {
	a.runner.Run(a.mesh.numElements(), elementGrain, body)
}

// accumulate adds the per-element results to out (3 per vertex).
func (a *tetAssembler) accumulate(out []float64) {
	a.out = out
	a.runner.Run(a.mesh.numPoints, vertexGrain, a.gather)
	a.out = nil
}

// setWorkers fixes the number of workers (0: runtime.GOMAXPROCS(0)).
func (a *tetAssembler) setWorkers(n int) { a.runner.Workers = n }

// tetSolid is the element machinery of every tetrahedral force field of
// this package: a material law (material.Law) evaluated per element on
// F = Ds Dm⁻¹, with element energy wₑ Ψ(F), forces fᵢ = −wₑ P ∇Nᵢ and
// force differentials −wₑ dP(F)[dF] ∇Nᵢ, where wₑ = Vₑ Eₑ/E is the rest
// volume scaled by the element's share of the stiffness (1 for a uniform
// body; every law of package material is proportional to E at fixed ν).
// It owns the per-element linearisation cache (filled by AddForce, read
// by AddDForce), runs the element loops in parallel through tetAssembler
// and gathers per vertex in a fixed order, so results are bitwise
// identical for any number of workers. Nothing is allocated per call.
//
// Force fields embed it: its AddForce, AddDForce and PotentialEnergy are
// theirs.
type tetSolid struct {
	mesh   *tetElements
	asm    *tetAssembler
	elem   []float64 // asm's per-element results (12 per element)
	law    material.Law
	weight []float64 // wₑ = Vₑ Eₑ/E
	// diff writes dP at the cached linearisation (dF, dP, cache); law's
	// StressDifferentialCached unless a force field substitutes an
	// approximate tangent (stiffness warping).
	diff func(dF, dP, cache []float64)
	// tangent writes the 9×9 matrix of diff (material.Tangent of law
	// unless a force field substitutes its own with diff), for the
	// element matrices.
	tangent func(cache, A []float64)
	// largeExact is the law when it is method "large"'s with its exact
	// tangent: the element matrices then take largeElementMatrix.
	largeExact *largeLaw
	// scratch holds 18 numbers (F or dF, then P or dP) per chunk of the
	// element loops, at index lo/elementGrain of the chunk [lo, hi): the
	// runner cuts its range into contiguous chunks of at least
	// elementGrain elements (parallel.Runner.run), so concurrent chunks
	// never share a slot. The laws take their matrices as slices of heap
	// memory (see material.Law).
	scratch    []float64
	stride     int       // law.CacheSize()
	cache      []float64 // linearisation data per element, from AddForce
	linearised bool      // cache holds the data of some AddForce
	energies   []float64 // per-element energies for PotentialEnergy
	state      graph.State
	forceBody  func(lo, hi int)
	dforceBody func(lo, hi int)
	energyBody func(lo, hi int)
	argX       []float64 // position or dx of the current call, for the bodies
	argK       float64   // kFactor of the current AddDForce

	// Per-element results for VTU cell data (CellData), computed only
	// when an exporter asks.
	cellData

	// Element matrices (tet_assembly.go): 81 numbers (a 9×9 tangent) per
	// chunk of the element-matrix loop (index lo/matrixGrain); the block pairs of
	// StiffnessBlocks (built on first use); the output of the current
	// KBlocks.
	tscratch    []float64
	blocks      []int32
	argVals     []float64
	kblocksBody func(lo, hi int)

	// plastic is the per-element plastic state (tet_plasticity.go), nil
	// when plasticity is off.
	plastic *plasticState
}

// Cell data names: the arrays the tetrahedral force fields give VTU
// series (visual.CellDataProvider).
const (
	cellVonMises      = "vonMisesStress"
	cellEnergyDensity = "strainEnergyDensity"
)

// tetMesh reads what a tetrahedral force field acts on from its node: the
// Vec3 state, the topology's tetrahedra and the rest positions, and
// builds the element data. Errors name what is missing, for the object
// obj (its type name is used in messages).
func tetMesh(obj *graph.ObjectBase) (*tetElements, graph.State, [][4]int, error) {
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
	if topo == nil {
		return nil, nil, nil, fmt.Errorf("no topology in node %q or its ancestors: add one with tetrahedra (e.g. RegularGridTopology)", obj.Node.Path())
	}
	tets := topo.Tetrahedra()
	if len(tets) == 0 {
		return nil, nil, nil, fmt.Errorf("topology %q has no tetrahedra", topo.Base().Name)
	}
	mesh, err := newTetElements(st.Vec(graph.RestPosition), tets)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("topology %q: %w", topo.Base().Name, err)
	}
	return mesh, st, tets, nil
}

// elementWeights returns wₑ = Vₑ Eₑ/E with Eₑ from the heterogeneity (the
// per-element list or the regions containing each rest centroid, else E).
func elementWeights(mesh *tetElements, h *material.StiffnessMap, rest []float64, tets [][4]int, E float64) ([]float64, error) {
	w := append([]float64(nil), mesh.vol...)
	if h.Uniform() {
		return w, nil
	}
	Es, err := h.YoungModuli(rest, tets, E)
	if err != nil {
		return nil, err
	}
	for e := range w {
		w[e] *= Es[e] / E
	}
	return w, nil
}

// setup binds the solid to its mesh, law, weights and state, sizes the
// buffers and builds the loop bodies (once, so that calls allocate
// nothing). diff may be nil for the law's exact tangent.
func (s *tetSolid) setup(mesh *tetElements, law material.Law, weight []float64, st graph.State,
	diff func(dF, dP, cache []float64), tangent func(cache, A []float64)) {
	s.mesh, s.law, s.weight, s.state = mesh, law, weight, st
	s.diff, s.tangent = diff, tangent
	if diff == nil {
		s.diff = law.StressDifferentialCached
		s.tangent = func(cache, A []float64) { material.Tangent(law, cache, A) }
		s.largeExact, _ = law.(*largeLaw)
	}
	s.stride = law.CacheSize()
	ne := mesh.numElements()
	s.cache = make([]float64, s.stride*ne)
	s.asm = newTetAssembler(mesh)
	s.elem = s.asm.elem
	s.energies = make([]float64, ne)
	s.scratch = make([]float64, 18*(ne/elementGrain+1))
	s.tscratch = make([]float64, 81*(ne/matrixGrain+1))
	s.blocks = nil
	s.kblocksBody = s.kblocksRange
	s.linearised = false
	s.forceBody = s.forceRange
	s.dforceBody = s.dforceRange
	s.energyBody = s.energyRange
	s.plastic = nil
	s.bindCells(st, ne, s.stride, elementGrain, s.asm.elements, s.cellRange, s.plasticStrains)
}

// plasticStrains returns the plastic strains for the cell data (nil
// without plasticity).
func (s *tetSolid) plasticStrains() []float64 {
	if s.plastic == nil {
		return nil
	}
	return s.plastic.strain
}

// cellRange fills the cell data of elements [lo, hi). It uses its own law
// cache (not the one AddDForce linearises with) and the chunk's slot of
// the F/P scratch, like forceRange.
func (s *tetSolid) cellRange(lo, hi int) {
	m, x, st, law := s.mesh, s.cellX, s.stride, s.law
	k := 18 * (lo / elementGrain)
	F, P := s.scratch[k:k+9:k+9], s.scratch[k+9:k+18:k+18]
	c := st * (lo / elementGrain)
	cache := s.cellCache[c : c+st : c+st]
	Fm, Pm := (*geom.Mat3)(F), (*geom.Mat3)(P)
	for e := lo; e < hi; e++ {
		m.gradientTo(e, x, F)
		law.StressCached(F, P, cache)
		var sigma geom.Mat3
		if s.reported != nil {
			sigma = s.reported(Fm, Pm, cache)
		} else {
			sigma = cauchyStress(Fm, Pm)
		}
		scale := s.weight[e] / m.vol[e] // Eₑ/E
		s.vonMises[e] = scale * vonMisesOf(&sigma)
		s.density[e] = scale * law.Energy(*Fm)
	}
}

// cauchyStress returns the Cauchy stress σ = J⁻¹ P Fᵀ, J = det F, for an
// element with J > 0. For a flat or inverted element (J ≤ 0) the Cauchy
// stress is not defined (it is infinite at J = 0); the Kirchhoff stress
// τ = P Fᵀ = Jσ is returned instead, finite and of the same magnitude for
// moderate strains.
func cauchyStress(F, P *geom.Mat3) geom.Mat3 {
	tau := P.MulT(*F)
	if J := F.Det(); J > 0 {
		return tau.Scale(1 / J)
	}
	return tau
}

// vonMisesOf returns √(3/2 s:s) with s the deviator of sym(σ) (σ is
// symmetric up to rounding for every law here).
func vonMisesOf(sigma *geom.Mat3) float64 {
	t := sigma.Trace() / 3
	d0, d1, d2 := sigma[0]-t, sigma[4]-t, sigma[8]-t
	o01 := 0.5 * (sigma[1] + sigma[3])
	o02 := 0.5 * (sigma[2] + sigma[6])
	o12 := 0.5 * (sigma[5] + sigma[7])
	return math.Sqrt(1.5 * (d0*d0 + d1*d1 + d2*d2 + 2*(o01*o01+o02*o02+o12*o12)))
}

// NumElements returns the number of tetrahedra (0 before Init).
func (s *tetSolid) NumElements() int {
	if s.mesh == nil {
		return 0
	}
	return s.mesh.numElements()
}

// AddForce implements graph.ForceField: f += −∂W/∂x, and caches per
// element what AddDForce needs.
func (s *tetSolid) AddForce(f, x, v []float64) {
	if s.mesh == nil {
		return
	}
	s.argX = x
	s.asm.elements(s.forceBody)
	s.argX = nil
	s.linearised = true
	s.asm.accumulate(f)
}

// AddDForce implements graph.ForceField: df += kFactor·K·dx (elastic
// forces have no velocity dependence, so bFactor plays no part), with K
// the tangent at the x of the most recent AddForce (at the state's current
// position if AddForce was never called).
func (s *tetSolid) AddDForce(df, dx []float64, kFactor, bFactor float64) {
	if s.mesh == nil || kFactor == 0 {
		return
	}
	if !s.linearised && s.stride > 0 {
		// Linearise at the current position: the forces computed on the
		// way are discarded.
		s.argX = s.state.Vec(graph.Position)
		s.asm.elements(s.forceBody)
		s.linearised = true
	}
	s.argX, s.argK = dx, kFactor
	s.asm.elements(s.dforceBody)
	s.argX = nil
	s.asm.accumulate(df)
}

// PotentialEnergy implements graph.ForceField: W = Σ wₑ Ψ(Fₑ). It leaves
// the AddDForce linearisation untouched.
func (s *tetSolid) PotentialEnergy(x []float64) float64 {
	if s.mesh == nil {
		return 0
	}
	s.argX = x
	s.asm.elements(s.energyBody)
	s.argX = nil
	w := 0.0
	for _, e := range s.energies {
		w += e
	}
	return w
}

func (s *tetSolid) energyRange(lo, hi int) {
	m, x, law := s.mesh, s.argX, s.law
	for e := lo; e < hi; e++ {
		s.energies[e] = s.weight[e] * law.Energy(m.gradient(e, x))
	}
}

func (s *tetSolid) forceRange(lo, hi int) {
	if s.largeExact != nil && useLargeAVX {
		s.largeForceRange(lo, hi)
		return
	}
	m, x, st, law := s.mesh, s.argX, s.stride, s.law
	k := 18 * (lo / elementGrain)
	F, P := s.scratch[k:k+9:k+9], s.scratch[k+9:k+18:k+18]
	for e := lo; e < hi; e++ {
		m.gradientTo(e, x, F)
		law.StressCached(F, P, s.cache[st*e:st*e+st])
		m.nodalForces(e, (*geom.Mat3)(P), -s.weight[e], s.elem[12*e:])
	}
}

func (s *tetSolid) dforceRange(lo, hi int) {
	if s.largeExact != nil && useLargeAVX {
		s.largeDForceRange(lo, hi)
		return
	}
	m, dx, st, diff, kf := s.mesh, s.argX, s.stride, s.diff, s.argK
	k := 18 * (lo / elementGrain)
	dF, dP := s.scratch[k:k+9:k+9], s.scratch[k+9:k+18:k+18]
	for e := lo; e < hi; e++ {
		m.gradientTo(e, dx, dF)
		diff(dF, dP, s.cache[st*e:st*e+st])
		m.nodalForces(e, (*geom.Mat3)(dP), -s.weight[e]*kf, s.elem[12*e:])
	}
}
