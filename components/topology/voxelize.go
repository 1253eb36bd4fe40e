package topology

import (
	"fmt"
	"math"

	"github.com/sofago/sofago/meshio"
)

// Voxelization of a closed triangle surface on a regular grid: which cells
// cross the surface, which lie inside. SparseGridTopology builds its
// tetrahedra from the result.

// Cell classes. A cell is crossing when the surface meets its open
// interior; otherwise its interior holds no surface point and lies
// entirely inside or outside the solid.
const (
	cellOutside  uint8 = iota // interior outside the solid (winding number < 1/2)
	cellInside                // interior inside the solid (winding number ≥ 1/2)
	cellCrossing              // the surface passes through the interior
	cellTouching              // while classifying: the surface meets the closed cell only on its boundary
)

// voxelGrid is a box cut into n[a]−1 cells along each axis a. Coordinates
// of grid planes come from coord only, the same formula as
// RegularGridTopology's vertices, so a cell box tested against the surface
// is bit for bit the box its tetrahedra fill.
type voxelGrid struct {
	min, max [3]float64
	n        [3]int // vertices per axis
}

// cells returns the number of cells along axis a.
func (g *voxelGrid) cells(a int) int { return g.n[a] - 1 }

// numCells returns the number of cells.
func (g *voxelGrid) numCells() int { return g.cells(0) * g.cells(1) * g.cells(2) }

// coord returns the coordinate of grid plane i along axis a.
func (g *voxelGrid) coord(a, i int) float64 {
	return g.min[a] + float64(i)*(g.max[a]-g.min[a])/float64(g.n[a]-1)
}

// cellIndex returns the index of cell (i, j, k): i fastest, then j, then k.
func (g *voxelGrid) cellIndex(i, j, k int) int { return i + g.cells(0)*(j+g.cells(1)*k) }

// cellCentre returns the centre of cell (i, j, k).
func (g *voxelGrid) cellCentre(i, j, k int) [3]float64 {
	return [3]float64{
		0.5 * (g.coord(0, i) + g.coord(0, i+1)),
		0.5 * (g.coord(1, j) + g.coord(1, j+1)),
		0.5 * (g.coord(2, k) + g.coord(2, k+1)),
	}
}

// classifyCells returns the class of every cell of g (cellIndex order)
// for a closed surface (BoundaryEdges() == 0).
//
// The cells a triangle meets are found by the separating-axis test
// against the closed cell box (triBoxOverlap), recursing over blocks of
// cells so that a large triangle costs in proportion to the cells it
// meets, not to its bounding box; a cell it meets is crossing if the
// triangle also meets the open box, touching otherwise (a triangle in a
// cell face, or grazing an edge: the surface lies on the boundary of every
// grid box at its extreme points, lines or faces).
//
// The cells no triangle meets form face-connected components (flood
// fill); two such neighbours share a face no triangle touches, so the
// union of a component contains no surface point and the winding number,
// an integer off a closed surface, is constant on it: one evaluation at
// the centre of one of its cells classifies the whole component
// (|w| ≥ 1/2 is inside, which also accepts a consistently inward-oriented
// surface). A touching cell's interior holds no surface point either; its
// centre's winding number classifies it. The evaluations go through
// meshio.Winding.Inside (hierarchical, with the exact sum wherever the
// approximation is not clearly near an integer), so the classification is
// exact for closed surfaces and costs one winding-number evaluation per
// component and per touching cell instead of one per grid point.
func classifyCells(g *voxelGrid, surface *meshio.Mesh, wind *meshio.Winding) []uint8 {
	class := make([]uint8, g.numCells())
	p := surface.Points
	for _, t := range surface.Triangles {
		var tri [3][3]float64
		var lo, hi [3]int
		for a := 0; a < 3; a++ {
			tmin, tmax := math.Inf(1), math.Inf(-1)
			for v := 0; v < 3; v++ {
				x := p[3*t[v]+a]
				tri[v][a] = x
				tmin, tmax = math.Min(tmin, x), math.Max(tmax, x)
			}
			lo[a], hi[a] = g.cellRange(a, tmin, tmax)
		}
		if lo[0] < hi[0] && lo[1] < hi[1] && lo[2] < hi[2] {
			g.markCrossing(&tri, lo, hi, class)
		}
	}

	// Flood fill the cells no triangle meets into components, each
	// classified by the winding number at its first cell's centre.
	nc := [3]int{g.cells(0), g.cells(1), g.cells(2)}
	label := make([]int32, len(class))
	for i := range label {
		label[i] = -1
	}
	var seeds []float64 // centres of each component's first cell
	queue := make([]int32, 0, 1024)
	for c0 := range class {
		if class[c0] != cellOutside || label[c0] >= 0 {
			continue
		}
		comp := int32(len(seeds) / 3)
		i0, j0, k0 := c0%nc[0], c0/nc[0]%nc[1], c0/(nc[0]*nc[1])
		centre := g.cellCentre(i0, j0, k0)
		seeds = append(seeds, centre[0], centre[1], centre[2])
		label[c0] = comp
		queue = append(queue[:0], int32(c0))
		for len(queue) > 0 {
			c := int(queue[len(queue)-1])
			queue = queue[:len(queue)-1]
			i, j, k := c%nc[0], c/nc[0]%nc[1], c/(nc[0]*nc[1])
			visit := func(d int) {
				if class[d] == cellOutside && label[d] < 0 {
					label[d] = comp
					queue = append(queue, int32(d))
				}
			}
			if i > 0 {
				visit(c - 1)
			}
			if i+1 < nc[0] {
				visit(c + 1)
			}
			if j > 0 {
				visit(c - nc[0])
			}
			if j+1 < nc[1] {
				visit(c + nc[0])
			}
			if k > 0 {
				visit(c - nc[0]*nc[1])
			}
			if k+1 < nc[2] {
				visit(c + nc[0]*nc[1])
			}
		}
	}
	// Then one point per touching cell, after the components' seeds.
	components := len(seeds) / 3
	for c, cl := range class {
		if cl == cellTouching {
			centre := g.cellCentre(c%nc[0], c/nc[0]%nc[1], c/(nc[0]*nc[1]))
			seeds = append(seeds, centre[0], centre[1], centre[2])
		}
	}
	inside := make([]bool, len(seeds)/3)
	wind.Inside(seeds, inside)
	touching := components
	for c, l := range label {
		switch {
		case l >= 0 && inside[l]:
			class[c] = cellInside
		case class[c] == cellTouching:
			class[c] = cellOutside
			if inside[touching] {
				class[c] = cellInside
			}
			touching++
		}
	}
	return class
}

// cellRange returns the half-open range [lo, hi) of cells along axis a
// whose closed extent meets [tmin, tmax] (touching counts), clamped to
// the grid.
func (g *voxelGrid) cellRange(a int, tmin, tmax float64) (lo, hi int) {
	nc := g.cells(a)
	h := (g.max[a] - g.min[a]) / float64(nc)
	// A first guess from the spacing, then corrected against coord, which
	// defines the planes.
	lo = max(0, min(nc-1, int(math.Floor((tmin-g.min[a])/h))))
	for lo > 0 && g.coord(a, lo) >= tmin {
		lo--
	}
	for lo < nc && g.coord(a, lo+1) < tmin {
		lo++
	}
	hi = max(lo, min(nc, int(math.Floor((tmax-g.min[a])/h))+1))
	for hi < nc && g.coord(a, hi) <= tmax {
		hi++
	}
	for hi > lo && g.coord(a, hi-1) > tmax {
		hi--
	}
	return lo, hi
}

// markCrossing marks the cells of the block [lo, hi) that the triangle
// meets, crossing or touching: if it meets the block's closed box, the
// block is halved along its longest side (in cells) until single cells
// remain.
func (g *voxelGrid) markCrossing(tri *[3][3]float64, lo, hi [3]int, class []uint8) {
	var bmin, bmax [3]float64
	for a := 0; a < 3; a++ {
		bmin[a], bmax[a] = g.coord(a, lo[a]), g.coord(a, hi[a])
	}
	if !triBoxOverlap(tri, &bmin, &bmax, false) {
		return
	}
	split, size := 0, hi[0]-lo[0]
	for a := 1; a < 3; a++ {
		if s := hi[a] - lo[a]; s > size {
			split, size = a, s
		}
	}
	if size == 1 {
		c := g.cellIndex(lo[0], lo[1], lo[2])
		if class[c] != cellCrossing {
			class[c] = cellTouching
			if triBoxOverlap(tri, &bmin, &bmax, true) {
				class[c] = cellCrossing
			}
		}
		return
	}
	mid := lo[split] + size/2
	h1, l2 := hi, lo
	h1[split], l2[split] = mid, mid
	g.markCrossing(tri, lo, h1, class)
	g.markCrossing(tri, l2, hi, class)
}

// triBoxOverlap reports whether a triangle and an axis-aligned box share a
// point — the closed box, or with open = true its interior — by the
// separating-axis theorem (Akenine-Möller 2001, "Fast 3D triangle-box
// overlap testing"): they are disjoint exactly when their projections are
// disjoint on one of 13 axes — the box's three normals, the triangle's
// normal, and the nine cross products of a box axis with a triangle edge.
// For the closed box, projections that touch overlap; for the open box
// they must overlap on an interval (the open box projects to an open
// interval), and a zero axis (an edge parallel to a box axis, a
// degenerate triangle's normal) separates nothing and is skipped.
//
// The box is projected from its corners (Σ_a min/max of L_a·lo_a and
// L_a·hi_a), not from a centre and half-sizes, and the axes do not depend
// on the box, so in floating point a box that contains another always
// overlaps whatever the inner one overlaps: markCrossing's block pruning
// never loses a cell.
func triBoxOverlap(tri *[3][3]float64, bmin, bmax *[3]float64, open bool) bool {
	// Box normals: the bounding boxes must overlap.
	for a := 0; a < 3; a++ {
		t0, t1, t2 := tri[0][a], tri[1][a], tri[2][a]
		tmin, tmax := math.Min(t0, math.Min(t1, t2)), math.Max(t0, math.Max(t1, t2))
		if tmin > bmax[a] || tmax < bmin[a] || open && (tmin >= bmax[a] || tmax <= bmin[a]) {
			return false
		}
	}
	var e [3][3]float64 // edges
	for k := 0; k < 3; k++ {
		for a := 0; a < 3; a++ {
			e[k][a] = tri[(k+1)%3][a] - tri[k][a]
		}
	}
	separated := func(l [3]float64) bool {
		if open && l == [3]float64{} {
			return false
		}
		p0 := l[0]*tri[0][0] + l[1]*tri[0][1] + l[2]*tri[0][2]
		p1 := l[0]*tri[1][0] + l[1]*tri[1][1] + l[2]*tri[1][2]
		p2 := l[0]*tri[2][0] + l[1]*tri[2][1] + l[2]*tri[2][2]
		rmin, rmax := 0.0, 0.0
		for a := 0; a < 3; a++ {
			u, v := l[a]*bmin[a], l[a]*bmax[a]
			rmin += math.Min(u, v)
			rmax += math.Max(u, v)
		}
		tmin, tmax := math.Min(p0, math.Min(p1, p2)), math.Max(p0, math.Max(p1, p2))
		if open {
			return tmin >= rmax || tmax <= rmin
		}
		return tmin > rmax || tmax < rmin
	}
	// Triangle normal.
	if separated([3]float64{
		e[0][1]*e[1][2] - e[0][2]*e[1][1],
		e[0][2]*e[1][0] - e[0][0]*e[1][2],
		e[0][0]*e[1][1] - e[0][1]*e[1][0],
	}) {
		return false
	}
	// Box axis × triangle edge.
	for k := 0; k < 3; k++ {
		f := e[k]
		if separated([3]float64{0, -f[2], f[1]}) || // x × f
			separated([3]float64{f[2], 0, -f[0]}) || // y × f
			separated([3]float64{-f[1], f[0], 0}) { // z × f
			return false
		}
	}
	return true
}

// gridOverSurface returns the grid for a surface's bounding box [lo, hi]:
// n vertices per axis over exactly that box, or, with cellSize > 0,
// cubic cells of that size over the smallest box centred on it.
func gridOverSurface(lo, hi [3]float64, n [3]int, cellSize float64) (*voxelGrid, error) {
	g := &voxelGrid{min: lo, max: hi, n: n}
	for a := 0; a < 3; a++ {
		ext := hi[a] - lo[a]
		if !(ext > 0) {
			return nil, fmt.Errorf("the surface is flat along axis %d (bounding box [%g, %g]): it encloses no volume", a, lo[a], hi[a])
		}
		if cellSize > 0 {
			// Whole cells covering the extent, up to a relative 1e-6 so
			// that float32 rounding (STL files) of an extent of exactly
			// m cells does not add a cell; the surface may then poke out
			// of the grid by that much, and the outermost cells still
			// count as crossing.
			cells := math.Ceil(ext / cellSize * (1 - 1e-6))
			if cells > 1e6 {
				return nil, fmt.Errorf("cellSize = %g gives %g cells along axis %d", cellSize, cells, a)
			}
			c := max(1, int(cells))
			mid := 0.5 * (lo[a] + hi[a])
			g.min[a] = mid - 0.5*float64(c)*cellSize
			g.max[a] = mid + 0.5*float64(c)*cellSize
			g.n[a] = c + 1
		}
	}
	if cells := int64(g.cells(0)) * int64(g.cells(1)) * int64(g.cells(2)); cells > maxVoxelCells {
		return nil, fmt.Errorf("a grid of %d×%d×%d cells is more than %d cells", g.cells(0), g.cells(1), g.cells(2), maxVoxelCells)
	}
	return g, nil
}

// maxVoxelCells bounds the grid (16.8 million cells, 256³: a byte and an
// int32 per cell during voxelization, and up to 6 tetrahedra per cell).
const maxVoxelCells = 1 << 24
