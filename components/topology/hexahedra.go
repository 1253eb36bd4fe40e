package topology

import (
	"fmt"
	"slices"

	"github.com/sofago/sofago/geom"
)

// Hexahedra follow VTK's and Gmsh's corner order (graph.HexahedronTopology):
// 0–3 the bottom face, 4–7 the top face, counter-clockwise seen from the
// top, corner 4+i above corner i.

// Element kinds a grid topology serves (the elements field).
const (
	ElementsTetrahedra = "tetrahedra"
	ElementsHexahedra  = "hexahedra"
)

// hexFromBits maps VTK corner numbers to grid corner numbers
// b = bx + 2·by + 4·bz (the numbering of KuhnSplit): VTK corner c is grid
// corner hexFromBits[c].
var hexFromBits = [8]int{0, 1, 3, 2, 4, 5, 7, 6}

// HexFromGridCorners returns the hexahedron of a grid cell in VTK order
// from its corners indexed by b = bx + 2·by + 4·bz (as KuhnSplit takes
// them). For positive grid spacings it is positively oriented.
func HexFromGridCorners(corner [8]int) [8]int {
	var h [8]int
	for c, b := range hexFromBits {
		h[c] = corner[b]
	}
	return h
}

// HexFaces lists the six faces of a hexahedron as corner numbers, each
// counter-clockwise seen from outside (right-hand normal outwards for a
// positive hexahedron): −z (bottom), +z (top), −y, +x, +y, −x.
var HexFaces = [6][4]int{
	{0, 3, 2, 1},
	{4, 5, 6, 7},
	{0, 1, 5, 4},
	{1, 2, 6, 5},
	{2, 3, 7, 6},
	{3, 0, 4, 7},
}

// hexGridFace gives, for the cell faces −x, +x, −y, +y, −z, +z (the order
// of kuhnCellFaces), the index into HexFaces.
var hexGridFace = [6]int{5, 3, 2, 4, 0, 1}

// quadTriangles splits the quadrilateral (a, b, c, d) into the triangles
// (a, b, c) and (a, c, d), keeping its orientation.
func quadTriangles(q [4]int) [2][3]int {
	return [2][3]int{{q[0], q[1], q[2]}, {q[0], q[2], q[3]}}
}

// HexBoundaryTriangles returns the faces that belong to exactly one
// hexahedron, each split into two triangles oriented outwards (for
// positive hexahedra), in a deterministic order (by hexahedron, then
// face).
func HexBoundaryTriangles(hexes [][8]int) [][3]int {
	type key [4]int
	sorted := func(f [4]int) key {
		k := key(f)
		slices.Sort(k[:])
		return k
	}
	count := make(map[key]int, 3*len(hexes))
	for _, h := range hexes {
		for _, f := range HexFaces {
			count[sorted([4]int{h[f[0]], h[f[1]], h[f[2]], h[f[3]]})]++
		}
	}
	var out [][3]int
	for _, h := range hexes {
		for _, f := range HexFaces {
			q := [4]int{h[f[0]], h[f[1]], h[f[2]], h[f[3]]}
			if count[sorted(q)] == 1 {
				t := quadTriangles(q)
				out = append(out, t[0], t[1])
			}
		}
	}
	return out
}

// HexVolume returns the signed volume of hexahedron h over flat xyz
// points (geom.HexVolume).
func HexVolume(points []float64, h [8]int) float64 { return geom.HexVolume(points, h) }

// CheckHexahedron reports a hexahedron whose trilinear map is not
// positive at all of its eight corners (an inverted, flat or badly
// twisted element) or whose corner vertices repeat.
func CheckHexahedron(points []float64, h [8]int) error {
	for i := range h {
		for j := 0; j < i; j++ {
			if h[i] == h[j] {
				return fmt.Errorf("vertex %d repeated", h[i])
			}
		}
	}
	for c := 0; c < 8; c++ {
		if d := geom.HexJacobian(points, h, geom.HexRef[c]).Det(); !(d > 0) {
			return fmt.Errorf("the trilinear map has Jacobian determinant %.3g ≤ 0 at corner %d (inverted or degenerate; corners must follow VTK's order: bottom face 0–3 counter-clockwise seen from above, top face 4–7)", d, c)
		}
	}
	return nil
}
