package shapefunction

import (
	"fmt"
	"math"

	"github.com/sofago/sofago/geom"
)

// Voxels is the volume discretisation every frame-based component of this
// package shares: a regular grid of box cells over the object's bounding
// box, the cells that hold material ("voxels"), and the material of each
// (mass density and Young's modulus). MaterialGrid builds it from a box, a
// closed surface, a tetrahedral mesh or a voxel file.
//
// Cell (i, j, k), 0 ≤ i < Dims[0] etc., spans
// [Origin + (i, j, k)·Spacing, Origin + (i+1, j+1, k+1)·Spacing]; its grid
// index is i + Dims[0]·(j + Dims[1]·k). Material voxels are numbered in
// grid order (x fastest); Index maps a grid cell to its voxel number, −1
// for an empty cell, and Cells maps back. Every per-voxel array of the
// package (weights, distances, densities) is indexed by voxel number.
type Voxels struct {
	Origin  geom.Vec3 // low corner of the grid
	Spacing geom.Vec3 // cell size along each axis (m)
	Dims    [3]int    // cells per axis

	Index []int32 // grid cell → voxel number, −1 outside the material
	Cells []int32 // voxel number → grid cell

	Density []float64 // mass density of each voxel (kg/m³)
	Young   []float64 // Young's modulus of each voxel (Pa)
}

// NumVoxels returns the number of material voxels.
func (g *Voxels) NumVoxels() int { return len(g.Cells) }

// NumCells returns the number of grid cells (material or not).
func (g *Voxels) NumCells() int { return g.Dims[0] * g.Dims[1] * g.Dims[2] }

// VoxelVolume returns the volume of one cell (m³).
func (g *Voxels) VoxelVolume() float64 { return g.Spacing[0] * g.Spacing[1] * g.Spacing[2] }

// CellIndex returns the grid index of cell (i, j, k).
func (g *Voxels) CellIndex(i, j, k int) int { return i + g.Dims[0]*(j+g.Dims[1]*k) }

// CellCoords returns (i, j, k) of grid cell c.
func (g *Voxels) CellCoords(c int) (i, j, k int) {
	return c % g.Dims[0], c / g.Dims[0] % g.Dims[1], c / (g.Dims[0] * g.Dims[1])
}

// CellCentre returns the centre of grid cell (i, j, k).
func (g *Voxels) CellCentre(i, j, k int) geom.Vec3 {
	return geom.Vec3{
		g.Origin[0] + (float64(i)+0.5)*g.Spacing[0],
		g.Origin[1] + (float64(j)+0.5)*g.Spacing[1],
		g.Origin[2] + (float64(k)+0.5)*g.Spacing[2],
	}
}

// Centre returns the centre of voxel v.
func (g *Voxels) Centre(v int) geom.Vec3 {
	i, j, k := g.CellCoords(int(g.Cells[v]))
	return g.CellCentre(i, j, k)
}

// Centres returns the centres of every voxel, flat [x y z ...].
func (g *Voxels) Centres() []float64 {
	out := make([]float64, 3*g.NumVoxels())
	for v := range g.Cells {
		geom.Put(out, v, g.Centre(v))
	}
	return out
}

// CellOf returns the cell (i, j, k) containing p and whether p lies in the
// grid's box (cells are half-open, the high faces of the box belong to the
// last cells).
func (g *Voxels) CellOf(p geom.Vec3) (ijk [3]int, inside bool) {
	inside = true
	for a := 0; a < 3; a++ {
		u := (p[a] - g.Origin[a]) / g.Spacing[a]
		i := int(math.Floor(u))
		if u < 0 || u > float64(g.Dims[a]) || math.IsNaN(u) {
			inside = false
		}
		ijk[a] = min(max(i, 0), g.Dims[a]-1)
	}
	return ijk, inside
}

// VoxelAt returns the voxel containing p, or −1 when p is outside the grid
// or in an empty cell.
func (g *Voxels) VoxelAt(p geom.Vec3) int {
	ijk, in := g.CellOf(p)
	if !in {
		return -1
	}
	return int(g.Index[g.CellIndex(ijk[0], ijk[1], ijk[2])])
}

// NearestVoxel returns the voxel whose centre is nearest to p (by a
// search over growing shells of cells around p's cell; the whole grid in
// the worst case), or −1 when there is no voxel.
func (g *Voxels) NearestVoxel(p geom.Vec3) int {
	if v := g.VoxelAt(p); v >= 0 {
		return v
	}
	if g.NumVoxels() == 0 {
		return -1
	}
	ijk, _ := g.CellOf(p)
	best, bestD := -1, math.Inf(1)
	minSpacing := math.Min(g.Spacing[0], math.Min(g.Spacing[1], g.Spacing[2]))
	maxR := max(g.Dims[0], g.Dims[1], g.Dims[2])
	for r := 0; r <= maxR; r++ {
		// Once a voxel is found, cells of shell r are at least
		// (r−1)·minSpacing away from p's cell boundary: stop when that
		// exceeds the best distance.
		if best >= 0 && float64(r-1)*minSpacing > bestD {
			break
		}
		for k := ijk[2] - r; k <= ijk[2]+r; k++ {
			for j := ijk[1] - r; j <= ijk[1]+r; j++ {
				for i := ijk[0] - r; i <= ijk[0]+r; i++ {
					if max(abs(i-ijk[0]), abs(j-ijk[1]), abs(k-ijk[2])) != r {
						continue
					}
					if i < 0 || j < 0 || k < 0 || i >= g.Dims[0] || j >= g.Dims[1] || k >= g.Dims[2] {
						continue
					}
					v := int(g.Index[g.CellIndex(i, j, k)])
					if v < 0 {
						continue
					}
					if d := g.CellCentre(i, j, k).Sub(p).Norm(); d < bestD || d == bestD && v < best {
						best, bestD = v, d
					}
				}
			}
		}
	}
	return best
}

func abs(i int) int {
	if i < 0 {
		return -i
	}
	return i
}

// Mass returns Σ ρ·V over the voxels.
func (g *Voxels) Mass() float64 {
	m := 0.0
	for _, rho := range g.Density {
		m += rho
	}
	return m * g.VoxelVolume()
}

// Volume returns the material volume (number of voxels × cell volume).
func (g *Voxels) Volume() float64 { return float64(g.NumVoxels()) * g.VoxelVolume() }

// Size returns the diagonal of the bounding box of the voxels (the "object
// size" tolerances are relative to).
func (g *Voxels) Size() float64 {
	lo := geom.Vec3{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi := geom.Vec3{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for v := range g.Cells {
		c := g.Centre(v)
		for a := 0; a < 3; a++ {
			lo[a] = math.Min(lo[a], c[a]-0.5*g.Spacing[a])
			hi[a] = math.Max(hi[a], c[a]+0.5*g.Spacing[a])
		}
	}
	if g.NumVoxels() == 0 {
		return 0
	}
	return hi.Sub(lo).Norm()
}

// faceNeighbours calls fn(u, axis) for every material voxel u sharing a
// face with voxel v (axis: the axis of the face normal).
func (g *Voxels) faceNeighbours(v int, fn func(u, axis int)) {
	c := int(g.Cells[v])
	i, j, k := g.CellCoords(c)
	ijk := [3]int{i, j, k}
	stride := [3]int{1, g.Dims[0], g.Dims[0] * g.Dims[1]}
	for a := 0; a < 3; a++ {
		if ijk[a] > 0 {
			if u := g.Index[c-stride[a]]; u >= 0 {
				fn(int(u), a)
			}
		}
		if ijk[a]+1 < g.Dims[a] {
			if u := g.Index[c+stride[a]]; u >= 0 {
				fn(int(u), a)
			}
		}
	}
}

// neighbour returns the voxel at offset (di, dj, dk) from voxel v, or −1.
func (g *Voxels) neighbour(v, di, dj, dk int) int {
	i, j, k := g.CellCoords(int(g.Cells[v]))
	i, j, k = i+di, j+dj, k+dk
	if i < 0 || j < 0 || k < 0 || i >= g.Dims[0] || j >= g.Dims[1] || k >= g.Dims[2] {
		return -1
	}
	return int(g.Index[g.CellIndex(i, j, k)])
}

// validate checks the structure (sizes, indices, positive material).
func (g *Voxels) validate() error {
	for a := 0; a < 3; a++ {
		if g.Dims[a] < 1 {
			return fmt.Errorf("grid has %d cells along axis %d", g.Dims[a], a)
		}
		if !(g.Spacing[a] > 0) || math.IsInf(g.Spacing[a], 0) {
			return fmt.Errorf("grid spacing %g along axis %d must be positive and finite", g.Spacing[a], a)
		}
		if math.IsNaN(g.Origin[a]) || math.IsInf(g.Origin[a], 0) {
			return fmt.Errorf("grid origin is not finite")
		}
	}
	if len(g.Index) != g.NumCells() {
		return fmt.Errorf("grid index has %d cells, want %d", len(g.Index), g.NumCells())
	}
	if len(g.Density) != len(g.Cells) || len(g.Young) != len(g.Cells) {
		return fmt.Errorf("material arrays have %d/%d values for %d voxels", len(g.Density), len(g.Young), len(g.Cells))
	}
	for v, c := range g.Cells {
		if c < 0 || int(c) >= len(g.Index) || g.Index[c] != int32(v) {
			return fmt.Errorf("voxel %d: inconsistent cell index", v)
		}
		if !(g.Density[v] > 0) || math.IsInf(g.Density[v], 0) {
			return fmt.Errorf("voxel %d: mass density %g must be positive and finite", v, g.Density[v])
		}
		if !(g.Young[v] > 0) || math.IsInf(g.Young[v], 0) {
			return fmt.Errorf("voxel %d: Young's modulus %g must be positive and finite", v, g.Young[v])
		}
	}
	return nil
}

// newVoxels returns a grid with every cell empty.
func newVoxels(origin, spacing geom.Vec3, dims [3]int) (*Voxels, error) {
	g := &Voxels{Origin: origin, Spacing: spacing, Dims: dims}
	n := int64(dims[0]) * int64(dims[1]) * int64(dims[2])
	if n > maxGridCells {
		return nil, fmt.Errorf("a grid of %d×%d×%d cells is more than %d cells", dims[0], dims[1], dims[2], maxGridCells)
	}
	for a := 0; a < 3; a++ {
		if dims[a] < 1 {
			return nil, fmt.Errorf("resolution[%d] = %d: need at least one cell per axis", a, dims[a])
		}
	}
	g.Index = make([]int32, n)
	for i := range g.Index {
		g.Index[i] = -1
	}
	return g, nil
}

// maxGridCells bounds the grid (16.8 million cells, as SparseGridTopology).
const maxGridCells = 1 << 24

// setMaterial marks the cells where inside[c] holds as voxels (grid
// order), with density rho and Young's modulus E.
func (g *Voxels) setMaterial(inside []bool, rho, E float64) {
	g.Cells = g.Cells[:0]
	for c, in := range inside {
		if in {
			g.Index[c] = int32(len(g.Cells))
			g.Cells = append(g.Cells, int32(c))
		} else {
			g.Index[c] = -1
		}
	}
	g.Density = make([]float64, len(g.Cells))
	g.Young = make([]float64, len(g.Cells))
	for v := range g.Cells {
		g.Density[v], g.Young[v] = rho, E
	}
}

// interpolation returns the trilinear interpolation stencil of point p
// over the voxel centres: up to 8 voxels and their weights (summing to 1).
// Corners of the stencil that are empty cells are dropped and the others
// renormalised; when every corner is empty (p outside the material by
// more than half a cell), the nearest voxel is used alone. Points outside
// the grid are clamped to the outermost centres (constant extrapolation).
func (g *Voxels) interpolation(p geom.Vec3, vox *[8]int, w *[8]float64) int {
	var base [3]int
	var frac [3]float64
	for a := 0; a < 3; a++ {
		u := (p[a]-g.Origin[a])/g.Spacing[a] - 0.5
		if g.Dims[a] == 1 || u <= 0 {
			base[a], frac[a] = 0, 0
			continue
		}
		if u >= float64(g.Dims[a]-1) {
			base[a], frac[a] = g.Dims[a]-2, 1
			continue
		}
		b := int(math.Floor(u))
		base[a], frac[a] = b, u-float64(b)
	}
	n := 0
	sum := 0.0
	for corner := 0; corner < 8; corner++ {
		i, j, k := base[0]+corner&1, base[1]+corner>>1&1, base[2]+corner>>2&1
		wa := 1.0
		for a, bit := range [3]int{corner & 1, corner >> 1 & 1, corner >> 2 & 1} {
			if bit == 1 {
				wa *= frac[a]
			} else {
				wa *= 1 - frac[a]
			}
		}
		if wa == 0 || i >= g.Dims[0] || j >= g.Dims[1] || k >= g.Dims[2] {
			continue
		}
		v := g.Index[g.CellIndex(i, j, k)]
		if v < 0 {
			continue
		}
		vox[n], w[n] = int(v), wa
		sum += wa
		n++
	}
	if n == 0 {
		v := g.NearestVoxel(p)
		if v < 0 {
			return 0
		}
		vox[0], w[0] = v, 1
		return 1
	}
	for i := 0; i < n; i++ {
		w[i] /= sum
	}
	return n
}
