package forcefield

import (
	"fmt"
	"math"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/material"
	"github.com/sofago/sofago/parallel"
)

// cellElements is the rest-shape data of a mesh of elements with any
// number of nodes whose fields vary inside the element (trilinear
// hexahedra, harmonic polyhedra), integrated at quadrature points: for
// element e with nodes a = 0..n−1 and quadrature point q of weight w_q
// (its share of the rest volume),
//
//	F_q = Σₐ xₐ ⊗ ∇Nₐ(q) = Σ_{a≥1} (xₐ − x₀) ⊗ ∇Nₐ(q)   (Σₐ ∇Nₐ = 0)
//	W_e = Σ_q w_q Ψ(F_q)
//	fₐ  = −Σ_q w_q P(F_q) ∇Nₐ(q)
//
// with the rest-space shape gradients ∇Nₐ(q) precomputed. The second
// form of F, from differences to node 0, is what the code computes: it
// keeps the digits that the absolute coordinates of a small element far
// from the origin would cancel. The element with one quadrature point
// and the linear tetrahedron's gradients is tetElements; this is its
// generalisation, with the same parallel layout: per-element results (3
// numbers per element node, "slot") in a flat array, summed per vertex
// over a precomputed incidence list in increasing slot order, so results
// are bitwise independent of the number of workers.
type cellElements struct {
	numPoints int
	nodeStart []int32   // element e has slots nodeStart[e] .. nodeStart[e+1]
	nodes     []int32   // vertex of each slot
	qpStart   []int32   // element e has quadrature points qpStart[e] .. qpStart[e+1]
	gradStart []int     // gradients of quadrature point g at grad[gradStart[g]:], 3 per element node
	grad      []float64 // ∇Nₐ(q), rest space
	w         []float64 // quadrature weight per point (rest volume share, > 0)
	vol       []float64 // rest volume per element (Σ w over its points)
	centre    []float64 // rest centre per element (mean of its nodes), xyz
	incStart  []int32   // vertex v has incidence entries incStart[v] .. incStart[v+1]
	incSlot   []int32   // the slots of vertex v, increasing
	maxNodes  int
}

// cellBuilder accumulates elements into a cellElements.
type cellBuilder struct{ m *cellElements }

func newCellBuilder(numPoints int) *cellBuilder {
	return &cellBuilder{m: &cellElements{numPoints: numPoints, nodeStart: []int32{0}, qpStart: []int32{0}}}
}

// add appends an element of nodes with quadrature weights w and, for
// quadrature point q, gradients grads[q][a] of node a.
func (b *cellBuilder) add(nodes []int, rest []float64, w []float64, grads [][]geom.Vec3) {
	m := b.m
	var c geom.Vec3
	for _, v := range nodes {
		m.nodes = append(m.nodes, int32(v))
		c = c.Add(geom.At(rest, v))
	}
	c = c.Scale(1 / float64(len(nodes)))
	m.centre = append(m.centre, c[0], c[1], c[2])
	m.nodeStart = append(m.nodeStart, int32(len(m.nodes)))
	vol := 0.0
	for q, g := range grads {
		m.gradStart = append(m.gradStart, len(m.grad))
		for _, v := range g {
			m.grad = append(m.grad, v[0], v[1], v[2])
		}
		m.w = append(m.w, w[q])
		vol += w[q]
	}
	m.vol = append(m.vol, vol)
	m.qpStart = append(m.qpStart, int32(len(m.w)))
	m.maxNodes = max(m.maxNodes, len(nodes))
}

// finish builds the incidence lists.
func (b *cellBuilder) finish() (*cellElements, error) {
	m := b.m
	np := m.numPoints
	if np > math.MaxInt32 || len(m.nodes) > math.MaxInt32 || len(m.w) > math.MaxInt32 {
		return nil, fmt.Errorf("mesh too large: %d points, %d element nodes, %d quadrature points", np, len(m.nodes), len(m.w))
	}
	m.incStart, m.incSlot = buildIncidence(m.nodes, np)
	return m, nil
}

func (m *cellElements) numElements() int { return len(m.vol) }

// elementNodes returns the vertices of element e.
func (m *cellElements) elementNodes(e int) []int32 { return m.nodes[m.nodeStart[e]:m.nodeStart[e+1]] }

// gradientTo writes into F (9 numbers) Σ_{a≥1} (uₐ − u₀) ⊗ ∇Nₐ(g) for the
// vertex values u of element e at its quadrature point g (global index).
func (m *cellElements) gradientTo(e, g int, u, F []float64) {
	nodes := m.nodes[m.nodeStart[e]:m.nodeStart[e+1]]
	G := m.grad[m.gradStart[g]:]
	i0 := 3 * int(nodes[0])
	u0, u1, u2 := u[i0], u[i0+1], u[i0+2]
	var f0, f1, f2, f3, f4, f5, f6, f7, f8 float64
	for a := 1; a < len(nodes); a++ {
		i := 3 * int(nodes[a])
		d0, d1, d2 := u[i]-u0, u[i+1]-u1, u[i+2]-u2
		g := G[3*a : 3*a+3 : 3*a+3]
		f0 += d0 * g[0]
		f1 += d0 * g[1]
		f2 += d0 * g[2]
		f3 += d1 * g[0]
		f4 += d1 * g[1]
		f5 += d1 * g[2]
		f6 += d2 * g[0]
		f7 += d2 * g[1]
		f8 += d2 * g[2]
	}
	F = F[:9:9]
	F[0], F[1], F[2], F[3], F[4], F[5], F[6], F[7], F[8] = f0, f1, f2, f3, f4, f5, f6, f7, f8
}

// addNodalForces adds s·P·∇Nₐ(g) to the slots of element e in out (3 per
// element node, from the element's first slot).
func (m *cellElements) addNodalForces(e, g int, P *geom.Mat3, s float64, out []float64) {
	n := int(m.nodeStart[e+1] - m.nodeStart[e])
	G := m.grad[m.gradStart[g] : m.gradStart[g]+3*n]
	p0, p1, p2 := s*P[0], s*P[1], s*P[2]
	p3, p4, p5 := s*P[3], s*P[4], s*P[5]
	p6, p7, p8 := s*P[6], s*P[7], s*P[8]
	o := out[:3*n]
	for a := 0; a < n; a++ {
		g := G[3*a : 3*a+3 : 3*a+3]
		oa := o[3*a : 3*a+3 : 3*a+3]
		oa[0] += p0*g[0] + p1*g[1] + p2*g[2]
		oa[1] += p3*g[0] + p4*g[1] + p5*g[2]
		oa[2] += p6*g[0] + p7*g[1] + p8*g[2]
	}
}

// gatherAdd adds to f the per-vertex sums of the per-slot results elem
// for the vertices in [lo, hi), in the fixed incidence order.
func (m *cellElements) gatherAdd(f, elem []float64, lo, hi int) {
	gatherIncidence(f, elem, m.incStart, m.incSlot, lo, hi)
}

// cellGrain is the number of elements per chunk of the element loops
// (about 10 µs of work for hexahedra and more for polyhedra).
const cellGrain = 8

// cellSolid is the element machinery of the force fields on cellElements
// (HexahedronFEMForceField, HexahedronHyperelasticityFEMForceField,
// PolyhedronFEMForceField): a material law evaluated at every quadrature
// point, scaled by the element's Eₑ/E; a linearisation cache per
// quadrature point filled by AddForce and read by AddDForce; element
// loops in parallel chunks, vertex sums in a fixed order. Nothing is
// allocated per call. It is tetSolid for elements with many quadrature
// points; force fields embed it.
type cellSolid struct {
	mesh   *cellElements
	law    material.Law
	scale  []float64 // Eₑ/E per element
	runner parallel.Runner
	elem   []float64 // 3 per slot
	// stride is the law's cache size per quadrature point.
	stride     int
	cache      []float64 // law cache per quadrature point
	linearised bool
	energies   []float64 // per element
	state      graph.State
	// scratch: 18 numbers (F or dF, then P or dP) and 81 (a tangent) per
	// chunk of the element loop, at index lo/cellGrain of chunk [lo, hi):
	// the runner cuts ranges into contiguous chunks of at least cellGrain
	// elements, so concurrent chunks never share a slot.
	scratch    []float64
	tscratch   []float64
	forceBody  func(lo, hi int)
	dforceBody func(lo, hi int)
	energyBody func(lo, hi int)
	argX       []float64
	argK       float64
	argOut     []float64 // target of the current accumulate
	gatherBody func(lo, hi int)

	// Cell data (on demand; cellData.reported is applied at each
	// quadrature point and the element's stress is its volume average).
	cellData

	// Element matrices: block pairs of StiffnessBlocks, the output of
	// the current KBlocks and each element's offset in it.
	blocks      []int32
	blockStart  []int
	argVals     []float64
	kblocksBody func(lo, hi int)

	// plastic is the per-element plastic state (cell_plasticity.go), nil
	// when plasticity is off.
	plastic *cellPlastic
}

// setup binds the solid to its mesh, law, per-element scale Eₑ/E and
// state, sizes the buffers and builds the loop bodies.
func (s *cellSolid) setup(mesh *cellElements, law material.Law, scale []float64, st graph.State) {
	s.mesh, s.law, s.scale, s.state = mesh, law, scale, st
	s.stride = law.CacheSize()
	ne := mesh.numElements()
	s.elem = make([]float64, 3*len(mesh.nodes))
	s.cache = make([]float64, s.stride*len(mesh.w))
	s.energies = make([]float64, ne)
	chunks := ne/cellGrain + 1
	s.scratch = make([]float64, 18*chunks)
	s.tscratch = make([]float64, 81*chunks)
	s.linearised = false
	s.forceBody = s.forceRange
	s.dforceBody = s.dforceRange
	s.energyBody = s.energyRange
	s.kblocksBody = s.kblocksRange
	s.gatherBody = func(lo, hi int) { s.mesh.gatherAdd(s.argOut, s.elem, lo, hi) }
	s.blocks, s.blockStart = nil, nil
	s.plastic = nil
	s.bindCells(st, ne, s.stride, cellGrain, s.elements, s.cellRange, s.plasticStrains)
}

// plasticStrains returns the plastic strains for the cell data (nil
// without plasticity).
func (s *cellSolid) plasticStrains() []float64 {
	if s.plastic == nil {
		return nil
	}
	return s.plastic.strain
}

// setWorkers fixes the number of workers (0: runtime.GOMAXPROCS(0)).
func (s *cellSolid) setWorkers(n int) { s.runner.Workers = n }

// NumElements returns the number of elements (0 before Init).
func (s *cellSolid) NumElements() int {
	if s.mesh == nil {
		return 0
	}
	return s.mesh.numElements()
}

func (s *cellSolid) elements(body func(lo, hi int)) {
	s.runner.Run(s.mesh.numElements(), cellGrain, body)
}

func (s *cellSolid) accumulate(out []float64) {
	s.argOut = out
	s.runner.Run(s.mesh.numPoints, vertexGrain, s.gatherBody)
	s.argOut = nil
}

// AddForce implements graph.ForceField: f += −∂W/∂x, and caches per
// quadrature point what AddDForce needs.
func (s *cellSolid) AddForce(f, x, v []float64) {
	if s.mesh == nil {
		return
	}
	s.argX = x
	s.elements(s.forceBody)
	s.argX = nil
	s.linearised = true
	s.accumulate(f)
}

// AddDForce implements graph.ForceField: df += kFactor·K·dx with K the
// tangent at the x of the most recent AddForce (at the current position
// if there was none).
func (s *cellSolid) AddDForce(df, dx []float64, kFactor, bFactor float64) {
	if s.mesh == nil || kFactor == 0 {
		return
	}
	s.linearise()
	s.argX, s.argK = dx, kFactor
	s.elements(s.dforceBody)
	s.argX = nil
	s.accumulate(df)
}

// linearise makes sure the cache holds a linearisation.
func (s *cellSolid) linearise() {
	if !s.linearised && s.stride > 0 {
		s.argX = s.state.Vec(graph.Position)
		s.elements(s.forceBody)
		s.argX = nil
		s.linearised = true
	}
}

// PotentialEnergy implements graph.ForceField: W = Σₑ (Eₑ/E) Σ_q w_q Ψ(F_q).
func (s *cellSolid) PotentialEnergy(x []float64) float64 {
	if s.mesh == nil {
		return 0
	}
	s.argX = x
	s.elements(s.energyBody)
	s.argX = nil
	w := 0.0
	for _, e := range s.energies {
		w += e
	}
	return w
}

func (s *cellSolid) energyRange(lo, hi int) {
	m, x, law := s.mesh, s.argX, s.law
	k := 18 * (lo / cellGrain)
	F := s.scratch[k : k+9 : k+9]
	for e := lo; e < hi; e++ {
		w := 0.0
		for g := int(m.qpStart[e]); g < int(m.qpStart[e+1]); g++ {
			m.gradientTo(e, g, x, F)
			w += m.w[g] * law.Energy(geom.Mat3(F))
		}
		s.energies[e] = s.scale[e] * w
	}
}

func (s *cellSolid) forceRange(lo, hi int) {
	m, x, st, law := s.mesh, s.argX, s.stride, s.law
	k := 18 * (lo / cellGrain)
	F, P := s.scratch[k:k+9:k+9], s.scratch[k+9:k+18:k+18]
	for e := lo; e < hi; e++ {
		out := s.elem[3*m.nodeStart[e] : 3*m.nodeStart[e+1]]
		clear(out)
		for g := int(m.qpStart[e]); g < int(m.qpStart[e+1]); g++ {
			m.gradientTo(e, g, x, F)
			law.StressCached(F, P, s.cache[st*g:st*g+st])
			m.addNodalForces(e, g, (*geom.Mat3)(P), -s.scale[e]*m.w[g], out)
		}
	}
}

func (s *cellSolid) dforceRange(lo, hi int) {
	m, dx, st, law, kf := s.mesh, s.argX, s.stride, s.law, s.argK
	k := 18 * (lo / cellGrain)
	dF, dP := s.scratch[k:k+9:k+9], s.scratch[k+9:k+18:k+18]
	for e := lo; e < hi; e++ {
		out := s.elem[3*m.nodeStart[e] : 3*m.nodeStart[e+1]]
		clear(out)
		for g := int(m.qpStart[e]); g < int(m.qpStart[e+1]); g++ {
			m.gradientTo(e, g, dx, dF)
			law.StressDifferentialCached(dF, dP, s.cache[st*g:st*g+st])
			m.addNodalForces(e, g, (*geom.Mat3)(dP), -s.scale[e]*m.w[g]*kf, out)
		}
	}
}

// cellRange fills the cell data of elements [lo, hi) (cellData.CellData):
// the volume averages of the quadrature points' reported stresses and
// energies.
func (s *cellSolid) cellRange(lo, hi int) {
	m, x, st, law := s.mesh, s.cellX, s.stride, s.law
	k := 18 * (lo / cellGrain)
	F, P := s.scratch[k:k+9:k+9], s.scratch[k+9:k+18:k+18]
	c := st * (lo / cellGrain)
	cache := s.cellCache[c : c+st : c+st]
	Fm, Pm := (*geom.Mat3)(F), (*geom.Mat3)(P)
	for e := lo; e < hi; e++ {
		var sigma geom.Mat3
		energy := 0.0
		for g := int(m.qpStart[e]); g < int(m.qpStart[e+1]); g++ {
			m.gradientTo(e, g, x, F)
			law.StressCached(F, P, cache)
			var sg geom.Mat3
			if s.reported != nil {
				sg = s.reported(Fm, Pm, cache)
			} else {
				sg = cauchyStress(Fm, Pm)
			}
			for i := range sigma {
				sigma[i] += m.w[g] * sg[i]
			}
			energy += m.w[g] * law.Energy(*Fm)
		}
		sigma = sigma.Scale(1 / m.vol[e])
		s.vonMises[e] = s.scale[e] * vonMisesOf(&sigma)
		s.density[e] = s.scale[e] * energy / m.vol[e]
	}
}

// Element matrices, for direct solvers and assembled preconditioners: the
// (n·n) 3×3 blocks of element e with n nodes, block (a, b) =
//
//	K_ab[i][k] = −(Eₑ/E) Σ_q w_q Σ_jl ∇Nₐ(q)[j] A_q[3i+j][3k+l] ∇N_b(q)[l]
//
// with A_q = ∂P/∂F the law's 9×9 tangent at the quadrature point's cached
// linearisation (material.Tangent: closed form for every law here).

// elementMatrix writes kFactor·K_e into out (9·n² numbers, block (a, b)
// at 9(n·a + b), row-major), using A (81) and T (3n) as scratch.
func (s *cellSolid) elementMatrix(e int, kFactor float64, A, out []float64) {
	m := s.mesh
	n := int(m.nodeStart[e+1] - m.nodeStart[e])
	st := s.stride
	o := out[:9*n*n]
	clear(o)
	var T [3 * 64]float64 // T[3a + l] = Σ_j ∇Nₐ[j] A_ik[j][l], n ≤ 64
	var Tbig []float64
	if 3*n > len(T) {
		Tbig = make([]float64, 3*n)
	}
	for g := int(m.qpStart[e]); g < int(m.qpStart[e+1]); g++ {
		material.Tangent(s.law, s.cache[st*g:st*g+st], A)
		G := m.grad[m.gradStart[g] : m.gradStart[g]+3*n]
		sc := -s.scale[e] * m.w[g] * kFactor
		Tv := T[:3*n]
		if Tbig != nil {
			Tv = Tbig
		}
		for i := 0; i < 3; i++ {
			for k := 0; k < 3; k++ {
				a0 := A[9*(3*i)+3*k : 9*(3*i)+3*k+3 : 9*(3*i)+3*k+3]
				a1 := A[9*(3*i+1)+3*k : 9*(3*i+1)+3*k+3 : 9*(3*i+1)+3*k+3]
				a2 := A[9*(3*i+2)+3*k : 9*(3*i+2)+3*k+3 : 9*(3*i+2)+3*k+3]
				for a := 0; a < n; a++ {
					g0, g1, g2 := sc*G[3*a], sc*G[3*a+1], sc*G[3*a+2]
					Tv[3*a] = g0*a0[0] + g1*a1[0] + g2*a2[0]
					Tv[3*a+1] = g0*a0[1] + g1*a1[1] + g2*a2[1]
					Tv[3*a+2] = g0*a0[2] + g1*a1[2] + g2*a2[2]
				}
				ik := 3*i + k
				for a := 0; a < n; a++ {
					t0, t1, t2 := Tv[3*a], Tv[3*a+1], Tv[3*a+2]
					row := o[9*n*a:]
					for b := 0; b < n; b++ {
						row[9*b+ik] += t0*G[3*b] + t1*G[3*b+1] + t2*G[3*b+2]
					}
				}
			}
		}
	}
}

// AddKToMatrix implements graph.StiffnessAssembler: m += kFactor·K at the
// linearisation of the last AddForce, element by element.
func (s *cellSolid) AddKToMatrix(mat graph.MatrixAccumulator, kFactor float64) {
	if s.mesh == nil || kFactor == 0 {
		return
	}
	s.linearise()
	A := make([]float64, 81)
	n := s.mesh.maxNodes
	out := make([]float64, 9*n*n)
	for e := 0; e < s.mesh.numElements(); e++ {
		nodes := s.mesh.elementNodes(e)
		k := len(nodes)
		s.elementMatrix(e, kFactor, A, out)
		for a, va := range nodes {
			for b, vb := range nodes {
				blk := out[9*(k*a+b) : 9*(k*a+b)+9]
				for i := 0; i < 3; i++ {
					for c := 0; c < 3; c++ {
						mat.Add(3*int(va)+i, 3*int(vb)+c, blk[3*i+c])
					}
				}
			}
		}
	}
}

// StiffnessBlocks implements graph.StiffnessBlockAssembler: n² blocks per
// element of n nodes, (vₐ, v_b) row-major over a, b, in element order.
func (s *cellSolid) StiffnessBlocks() []int32 {
	if s.mesh == nil {
		return nil
	}
	if s.blocks == nil {
		m := s.mesh
		s.blockStart = make([]int, m.numElements()+1)
		for e := 0; e < m.numElements(); e++ {
			nodes := m.elementNodes(e)
			for _, va := range nodes {
				for _, vb := range nodes {
					s.blocks = append(s.blocks, va, vb)
				}
			}
			s.blockStart[e+1] = len(s.blocks) / 2
		}
	}
	return s.blocks
}

// KBlocks implements graph.StiffnessBlockAssembler: the element matrices
// of kFactor·K in the order of StiffnessBlocks, computed in parallel.
func (s *cellSolid) KBlocks(vals []float64, kFactor float64) {
	if s.mesh == nil {
		return
	}
	s.StiffnessBlocks()
	nb := s.blockStart[len(s.blockStart)-1]
	if kFactor == 0 {
		clear(vals[:9*nb])
		return
	}
	s.linearise()
	s.argVals, s.argK = vals[:9*nb], kFactor
	s.elements(s.kblocksBody)
	s.argVals = nil
}

func (s *cellSolid) kblocksRange(lo, hi int) {
	k := 81 * (lo / cellGrain)
	A := s.tscratch[k : k+81 : k+81]
	for e := lo; e < hi; e++ {
		s.elementMatrix(e, s.argK, A, s.argVals[9*s.blockStart[e]:9*s.blockStart[e+1]])
	}
}

// elementScales returns Eₑ/E per element from the stiffness map at the
// elements' rest centres. kind names the elements in messages.
func elementScales(m *cellElements, h *material.StiffnessMap, kind string, E float64) ([]float64, error) {
	sc := make([]float64, m.numElements())
	for e := range sc {
		sc[e] = 1
	}
	if h.Uniform() {
		return sc, nil
	}
	Es, err := h.YoungModuliAt(m.centre, kind, E)
	if err != nil {
		return nil, err
	}
	for e := range sc {
		sc[e] = Es[e] / E
	}
	return sc, nil
}

// PointRotations implements graph.PointRotations (for warping
// preconditioners): the rotation of every point is the polar factor of
// the volume-weighted mean deformation gradient of its elements at the
// state's current position (each element's F averaged over its
// quadrature points), the identity for a point in none — as the
// tetrahedral force fields give it.
func (s *cellSolid) PointRotations(out []float64) bool {
	if s.mesh == nil || len(out) < 9*s.mesh.numPoints {
		return false
	}
	m := s.mesh
	x := s.state.Vec(graph.Position)
	ne := m.numElements()
	meanF := make([]geom.Mat3, ne) // Σ_q w_q F_q (volume-weighted sum)
	var F [9]float64
	for e := 0; e < ne; e++ {
		for g := int(m.qpStart[e]); g < int(m.qpStart[e+1]); g++ {
			m.gradientTo(e, g, x, F[:])
			for i := range F {
				meanF[e][i] += m.w[g] * F[i]
			}
		}
	}
	elemOf := make([]int32, len(m.nodes))
	for e := 0; e < ne; e++ {
		for sl := m.nodeStart[e]; sl < m.nodeStart[e+1]; sl++ {
			elemOf[sl] = int32(e)
		}
	}
	for v := 0; v < m.numPoints; v++ {
		var sum geom.Mat3
		wsum := 0.0
		for _, sl := range m.incSlot[m.incStart[v]:m.incStart[v+1]] {
			e := elemOf[sl]
			sum = sum.Add(meanF[e])
			wsum += m.vol[e]
		}
		R := geom.Identity3()
		if wsum > 0 {
			R = geom.PolarRotation(sum)
		}
		copy(out[9*v:9*v+9], R[:])
	}
	return true
}

var (
	_ graph.PointRotations          = (*cellSolid)(nil)
	_ graph.StiffnessBlockAssembler = (*cellSolid)(nil)
	_ graph.StiffnessAssembler      = (*cellSolid)(nil)
)
