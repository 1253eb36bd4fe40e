package topology

// Hexahedral grid cells are split into tetrahedra the same way by every grid
// topology (RegularGridTopology, SparseGridTopology), so that meshes made
// of such cells conform across cell faces and agree with the VegaFEM
// reference bar.

// kuhnCorners lists, for each of the six tetrahedra of the Kuhn split of a
// grid cell, its four corners as corner numbers b = bx + 2·by + 4·bz (bx,
// by, bz ∈ {0,1} the offsets along x, y, z from the cell's low corner).
//
// Tetrahedron s follows the axis permutation p of (0,1,2), (0,2,1),
// (1,0,2), (1,2,0), (2,0,1), (2,1,0): it starts at the low corner (b = 0)
// and steps along axes p[0], p[1], p[2] in turn, ending at the high corner
// (b = 7). Its edge vectors are e_p0, e_p0 + e_p1, e_p0 + e_p1 + e_p2, so
// its signed volume is sign(p)·hx·hy·hz/6: the three odd permutations have
// their last two corners swapped to make every tetrahedron positively
// oriented on a grid with positive spacings. Every cell face is cut along
// the diagonal through the face's lowest corner, so neighbouring cells
// conform (Kuhn 1960; Freudenthal's triangulation).
var kuhnCorners = [6][4]int{
	{0, 1, 3, 7}, // (0,1,2), even
	{0, 1, 7, 5}, // (0,2,1) → 0,1,5,7, odd: swapped
	{0, 2, 7, 3}, // (1,0,2) → 0,2,3,7, odd: swapped
	{0, 2, 6, 7}, // (1,2,0), even
	{0, 4, 5, 7}, // (2,0,1), even
	{0, 4, 7, 6}, // (2,1,0) → 0,4,6,7, odd: swapped
}

// KuhnSplit returns the six positively oriented tetrahedra of a grid cell
// (for positive grid spacings along x, y and z) given the vertex indices
// of its eight corners, corner[bx + 2·by + 4·bz] being the corner at
// offsets (bx, by, bz) from the cell's low corner. The order of the
// tetrahedra and of their vertices is the one of kuhnCorners.
func KuhnSplit(corner [8]int) [6][4]int {
	var out [6][4]int
	for s, c := range kuhnCorners {
		out[s] = [4]int{corner[c[0]], corner[c[1]], corner[c[2]], corner[c[3]]}
	}
	return out
}
