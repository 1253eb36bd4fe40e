package shapefunction

import (
	"math"

	"github.com/sofago/sofago/geom"
)

// Compliance distance (Faure et al. 2011, Sec. 4.1–4.2): the length of the
// cheapest path between two points through the material, each piece of
// path weighted by the local compliance c = E_ref/E (E_ref the stiffest
// voxel's modulus, so c = 1 on uniform material and the compliance
// distance is the geodesic distance there; soft material makes points
// farther apart, a rigid part shrinks to a point).
//
// It is computed by Dijkstra's algorithm on the voxels (26-neighbour
// graph), with any-angle relaxation (Theta*, Nash et al. 2007): besides the
// lattice edge from the voxel u just settled, every neighbour n is also
// offered the straight segment from u's anchor (the point u's own best
// path came straight from: a source point, a frontier point, or a voxel
// centre) when that segment stays in the material. A segment's cost is
// ∫ c ds, integrated exactly over the voxels it crosses (3-D DDA,
// Amanatides & Woo 1987). The candidate with the lower cost wins, so every
// distance is the cost of an actual path (an upper bound of the true
// compliance distance, never above the plain lattice Dijkstra's), and on
// uniform convex material every anchor stays the source point: the
// distance is then exactly the Euclidean distance |p − source| (checked to
// 1e-12 by TestComplianceDistanceIsEuclideanOnUniformMaterial), where a
// lattice metric errs by up to 8% (26 neighbours).

// distanceSeed is a source of a distance computation: an anchor point
// with its distance, the voxel it starts in and a label carried to the
// voxels it reaches first.
type distanceSeed struct {
	point geom.Vec3 // anchor point
	dist  float64   // distance at the anchor point
	label int32
	// voxel is the voxel the seed starts in (−1: the voxel containing
	// point), and voxelDist the distance at its centre (NaN: dist plus the
	// cost of the segment from point to the centre).
	voxel     int
	voxelDist float64
}

// pointSeed is a seed at a point with distance 0.
func pointSeed(p geom.Vec3, label int32) distanceSeed {
	return distanceSeed{point: p, label: label, voxel: -1, voxelDist: math.NaN()}
}

// distanceField is the result of a Dijkstra pass: per voxel the distance,
// the label of the seed that reached it (−1: unreached) and the anchor
// (for diagnostics and tests).
type distanceField struct {
	dist  []float64
	label []int32
}

// compliance returns E_max/E per voxel.
func compliance(g *Voxels) []float64 {
	eMax := 0.0
	for _, e := range g.Young {
		eMax = math.Max(eMax, e)
	}
	c := make([]float64, g.NumVoxels())
	for v, e := range g.Young {
		c[v] = eMax / e
	}
	return c
}

// distanceSolver runs Dijkstra passes on one grid with one compliance
// map, reusing its buffers.
type distanceSolver struct {
	g    *Voxels
	comp []float64
	cMin float64

	dist   []float64
	label  []int32
	anchor []int32 // anchor id: voxel number, or nVox + seed index
	done   []bool
	seedP  []geom.Vec3
	seedD  []float64
	heap   distHeap

	offsets [26][3]int
}

func newDistanceSolver(g *Voxels, comp []float64) *distanceSolver {
	s := &distanceSolver{g: g, comp: comp, cMin: math.Inf(1)}
	for _, c := range comp {
		s.cMin = math.Min(s.cMin, c)
	}
	n := 0
	for dk := -1; dk <= 1; dk++ {
		for dj := -1; dj <= 1; dj++ {
			for di := -1; di <= 1; di++ {
				if di != 0 || dj != 0 || dk != 0 {
					s.offsets[n] = [3]int{di, dj, dk}
					n++
				}
			}
		}
	}
	return s
}

// anchorPoint returns the position and distance of anchor id a.
func (s *distanceSolver) anchorPoint(a int32) (geom.Vec3, float64) {
	nv := int32(s.g.NumVoxels())
	if a >= nv {
		return s.seedP[a-nv], s.seedD[a-nv]
	}
	return s.g.Centre(int(a)), s.dist[a]
}

// run computes distances from the seeds over the voxels where allowed is
// true (nil: every voxel). A seed outside the allowed material is
// skipped. The result's slices are owned by the solver until the next run
// (copy them to keep them).
func (s *distanceSolver) run(seeds []distanceSeed, allowed []bool) distanceField {
	g := s.g
	nv := g.NumVoxels()
	if len(s.dist) != nv {
		s.dist = make([]float64, nv)
		s.label = make([]int32, nv)
		s.anchor = make([]int32, nv)
		s.done = make([]bool, nv)
	}
	for v := range s.dist {
		s.dist[v], s.label[v], s.anchor[v], s.done[v] = math.Inf(1), -1, -1, false
	}
	s.seedP, s.seedD = s.seedP[:0], s.seedD[:0]
	s.heap = s.heap[:0]
	for k, sd := range seeds {
		s.seedP = append(s.seedP, sd.point)
		s.seedD = append(s.seedD, sd.dist)
		v := sd.voxel
		if v < 0 {
			v = g.VoxelAt(sd.point)
		}
		if v < 0 || allowed != nil && !allowed[v] {
			continue
		}
		d := sd.voxelDist
		if math.IsNaN(d) {
			cost, ok := s.segment(sd.point, g.Centre(v), allowed)
			if !ok {
				continue
			}
			d = sd.dist + cost
		}
		if d < s.dist[v] || d == s.dist[v] && sd.label < s.label[v] {
			s.dist[v], s.label[v], s.anchor[v] = d, sd.label, int32(nv+k)
			s.heap.push(d, int32(v))
		}
	}
	for len(s.heap) > 0 {
		d, u32 := s.heap.pop()
		u := int(u32)
		if s.done[u] || d > s.dist[u] {
			continue
		}
		s.done[u] = true
		cu := g.Centre(u)
		aID := s.anchor[u]
		aP, aD := s.anchorPoint(aID)
		hasAnchor := aID != int32(u)
		i, j, k := g.CellCoords(int(g.Cells[u]))
		for _, o := range s.offsets {
			ni, nj, nk := i+o[0], j+o[1], k+o[2]
			if ni < 0 || nj < 0 || nk < 0 || ni >= g.Dims[0] || nj >= g.Dims[1] || nk >= g.Dims[2] {
				continue
			}
			n := int(g.Index[g.CellIndex(ni, nj, nk)])
			if n < 0 || s.done[n] || allowed != nil && !allowed[n] {
				continue
			}
			cn := g.CellCentre(ni, nj, nk)
			best, bestA := math.Inf(1), int32(-1)
			if c, ok := s.segment(cu, cn, allowed); ok {
				best, bestA = s.dist[u]+c, int32(u)
			}
			if hasAnchor {
				// The straight segment from the anchor can only win if
				// its cheapest possible cost beats the current best.
				lower := aD + s.cMin*cn.Sub(aP).Norm()
				if lower < best && lower < s.dist[n] {
					if c, ok := s.segment(aP, cn, allowed); ok && aD+c < best {
						best, bestA = aD+c, aID
					}
				}
			}
			if bestA >= 0 && (best < s.dist[n] || best == s.dist[n] && s.label[u] < s.label[n]) {
				s.dist[n], s.label[n], s.anchor[n] = best, s.label[u], bestA
				s.heap.push(best, int32(n))
			}
		}
	}
	return distanceField{dist: s.dist, label: s.label}
}

// segment returns ∫ c ds along the straight segment P→Q and whether it
// stays in allowed material voxels. The voxels crossed are walked by a 3-D
// DDA; a crossing exactly through an edge or corner steps every axis at
// once (the segment spends no length in the cells beside it). When every
// crossed voxel has the same compliance c, the cost is c·|Q − P| exactly.
func (s *distanceSolver) segment(P, Q geom.Vec3, allowed []bool) (float64, bool) {
	g := s.g
	d := Q.Sub(P)
	L := d.Norm()
	var cell [3]int
	var step [3]int
	var tMax, tDelta [3]float64
	for a := 0; a < 3; a++ {
		// The starting cell is the one the segment enters from P (P may lie
		// on a cell face).
		u := (P[a] + 1e-9*d[a] - g.Origin[a]) / g.Spacing[a]
		c := int(math.Floor(u))
		if c < 0 || c >= g.Dims[a] {
			if u == float64(g.Dims[a]) {
				c = g.Dims[a] - 1
			} else {
				return 0, false
			}
		}
		cell[a] = c
		switch {
		case d[a] > 0:
			step[a] = 1
			tMax[a] = (g.Origin[a] + float64(c+1)*g.Spacing[a] - P[a]) / d[a]
			tDelta[a] = g.Spacing[a] / d[a]
		case d[a] < 0:
			step[a] = -1
			tMax[a] = (g.Origin[a] + float64(c)*g.Spacing[a] - P[a]) / d[a]
			tDelta[a] = -g.Spacing[a] / d[a]
		default:
			tMax[a], tDelta[a] = math.Inf(1), math.Inf(1)
		}
	}
	t := 0.0
	cost := 0.0
	c0 := -1.0
	uniform := true
	for {
		v := g.Index[g.CellIndex(cell[0], cell[1], cell[2])]
		if v < 0 || allowed != nil && !allowed[v] {
			return 0, false
		}
		cv := s.comp[v]
		if c0 < 0 {
			c0 = cv
		} else if cv != c0 {
			uniform = false
		}
		tNext := math.Min(1, math.Min(tMax[0], math.Min(tMax[1], tMax[2])))
		cost += cv * (tNext - t)
		if tNext >= 1 {
			break
		}
		t = tNext
		// Step every axis whose boundary is at tNext (to a relative 1e-12:
		// a segment through an edge or corner enters the diagonal cell).
		for a := 0; a < 3; a++ {
			if tMax[a] <= tNext+1e-12 {
				cell[a] += step[a]
				tMax[a] += tDelta[a]
				if cell[a] < 0 || cell[a] >= g.Dims[a] {
					return 0, false
				}
			}
		}
	}
	if uniform {
		return c0 * L, true
	}
	return cost * L, true
}

// distHeap is a binary min-heap of (distance, voxel), ties broken by the
// voxel number so that passes are deterministic.
type distHeap []distEntry

type distEntry struct {
	d float64
	v int32
}

func (h distEntry) less(o distEntry) bool { return h.d < o.d || h.d == o.d && h.v < o.v }

func (h *distHeap) push(d float64, v int32) {
	*h = append(*h, distEntry{d, v})
	a := *h
	i := len(a) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !a[i].less(a[p]) {
			break
		}
		a[i], a[p] = a[p], a[i]
		i = p
	}
}

func (h *distHeap) pop() (float64, int32) {
	a := *h
	top := a[0]
	n := len(a) - 1
	a[0] = a[n]
	a = a[:n]
	i := 0
	for {
		l, r := 2*i+1, 2*i+2
		m := i
		if l < n && a[l].less(a[m]) {
			m = l
		}
		if r < n && a[r].less(a[m]) {
			m = r
		}
		if m == i {
			break
		}
		a[i], a[m] = a[m], a[i]
		i = m
	}
	*h = a
	return top.d, top.v
}

// ComplianceDistance returns the compliance distance (see above) from the
// point source to the centre of every voxel (+Inf where the material is
// not connected to it), for tools and tests.
func ComplianceDistance(g *Voxels, source geom.Vec3) []float64 {
	s := newDistanceSolver(g, compliance(g))
	f := s.run([]distanceSeed{pointSeed(source, 0)}, nil)
	return append([]float64(nil), f.dist...)
}
