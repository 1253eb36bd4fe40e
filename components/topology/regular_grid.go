package topology

import (
	"fmt"

	"github.com/sofago/sofago/graph"
)

// RegularGridTopology is a box split into n[0]−1 × n[1]−1 × n[2]−1
// hexahedral cells, each split into six positively oriented tetrahedra (the
// Kuhn split, conforming across cells), with its boundary triangles; or,
// with elements = "hexahedra", serving the cells themselves as hexahedra
// (graph.HexahedronTopology, VTK corner order) and no tetrahedra, the
// boundary triangles then being the boundary faces split in two.
//
// With n = 1 along one axis (and min = max there) it is instead a flat
// grid of triangles in that plane, as SOFA's RegularGridTopology with
// nz = 1 (a sheet for cloth): each of the (n−1) × (n−1) rectangular cells
// is cut into two triangles along a diagonal that alternates from cell to
// cell (a checkerboard, so the sheet has no preferred shear direction),
// all oriented with their normal along the flat axis' positive
// direction. Such a grid has triangles and no tetrahedra.
//
// Vertex (i, j, k) has index i + n0·(j + n1·k). Cells are visited k outer,
// then j, then i; each cell's tetrahedra follow the axis permutations
// (0,1,2), (0,2,1), (1,0,2), (1,2,0), (2,0,1), (2,1,0): t0 is the cell's low
// corner and t1, t2, t3 step along the permuted axes; t2 and t3 are swapped
// for the odd permutations to make the tetrahedron positive (KuhnSplit,
// shared with SparseGridTopology). This is exactly the
// recipe of the VegaFEM reference bar (../shared/reference/vega), so a grid
// with n = [3, 3, 11] over [0,0.2]×[0,0.2]×[0,1] reproduces its mesh.
type RegularGridTopology struct {
	graph.ObjectBase
	Min [3]float64 `toml:"min" doc:"low corner of the box" unit:"m"`
	Max [3]float64 `toml:"max" doc:"high corner of the box" unit:"m"`
	N   [3]int     `toml:"n" doc:"vertices per axis (cells per axis + 1); 1 along one axis (with min = max there) for a flat grid of triangles" range:"[1,inf)"`
	// Elements chooses what the cells are served as.
	Elements string `toml:"elements" doc:"cells served as tetrahedra (six Kuhn tetrahedra per cell, for the tetrahedral force fields) or hexahedra (one trilinear hexahedron per cell, for HexahedronFEMForceField; no tetrahedra are served then)" enum:"tetrahedra,hexahedra"`

	points []float64
	tets   [][4]int
	hexes  [][8]int
	tris   [][3]int
}

func init() {
	graph.Register(graph.TypeInfo{
		Name:    "RegularGridTopology",
		Kind:    graph.KindTopology,
		Summary: "A box split into hexahedral cells, each split into six positively oriented tetrahedra (Kuhn split) or served as hexahedra (elements = hexahedra), with its boundary triangles; with n = 1 along one axis, a flat grid of triangles (cloth).",
		New: func() graph.Object {
			return &RegularGridTopology{Max: [3]float64{1, 1, 1}, N: [3]int{2, 2, 2}, Elements: ElementsTetrahedra}
		},
	})
}

// NewRegularGrid builds the grid directly (for code and tests).
func NewRegularGrid(min, max [3]float64, n [3]int) (*RegularGridTopology, error) {
	g := &RegularGridTopology{ObjectBase: graph.ObjectBase{Name: "grid", TypeName: "RegularGridTopology"}, Min: min, Max: max, N: n, Elements: ElementsTetrahedra}
	if err := g.Validate(); err != nil {
		return nil, err
	}
	g.build()
	return g, nil
}

// NewRegularHexGrid builds the grid serving hexahedra (for code and tests).
func NewRegularHexGrid(min, max [3]float64, n [3]int) (*RegularGridTopology, error) {
	g := &RegularGridTopology{ObjectBase: graph.ObjectBase{Name: "grid", TypeName: "RegularGridTopology"}, Min: min, Max: max, N: n, Elements: ElementsHexahedra}
	if err := g.Validate(); err != nil {
		return nil, err
	}
	g.build()
	return g, nil
}

// Validate checks that the box has positive extent on every axis, or on
// two axes for a flat grid (n = 1 and min = max on the third).
func (g *RegularGridTopology) Validate() error {
	if err := checkElements(g.Elements); err != nil {
		return err
	}
	flat := -1
	for a := 0; a < 3; a++ {
		if g.N[a] == 1 {
			if flat >= 0 {
				return fmt.Errorf("n[%d] = n[%d] = 1: a grid needs at least 2 vertices along two axes", flat, a)
			}
			flat = a
			if g.Max[a] != g.Min[a] {
				return fmt.Errorf("n[%d] = 1 makes a flat grid in the plane at min[%d] = %g: set max[%d] = min[%d] (it is %g)", a, a, g.Min[a], a, a, g.Max[a])
			}
			continue
		}
		if !(g.Max[a] > g.Min[a]) {
			return fmt.Errorf("max[%d] = %g must be greater than min[%d] = %g", a, g.Max[a], a, g.Min[a])
		}
		if g.N[a] < 2 {
			return fmt.Errorf("n[%d] = %d: need at least 2 vertices per axis (1 along one axis for a flat grid)", a, g.N[a])
		}
	}
	if flat >= 0 && g.Elements == ElementsHexahedra {
		return fmt.Errorf("elements = \"hexahedra\" on a flat grid (n[%d] = 1): a flat grid has triangles only", flat)
	}
	if int64(g.N[0])*int64(g.N[1])*int64(g.N[2]) > 50_000_000 {
		return fmt.Errorf("n = %v gives more than 50 million vertices", g.N)
	}
	return nil
}

// Flat returns the axis along which the grid is flat (n = 1), or −1 for a
// grid of tetrahedra.
func (g *RegularGridTopology) Flat() int {
	for a := 0; a < 3; a++ {
		if g.N[a] == 1 {
			return a
		}
	}
	return -1
}

// Init builds the points and cells.
func (g *RegularGridTopology) Init() error {
	g.build()
	return nil
}

// Index returns the vertex index of grid vertex (i, j, k).
func (g *RegularGridTopology) Index(i, j, k int) int { return i + g.N[0]*(j+g.N[1]*k) }

func (g *RegularGridTopology) build() {
	nx, ny, nz := g.N[0], g.N[1], g.N[2]
	coord := func(a, i int) float64 {
		if g.N[a] == 1 {
			return g.Min[a]
		}
		return g.Min[a] + float64(i)*(g.Max[a]-g.Min[a])/float64(g.N[a]-1)
	}
	g.points = make([]float64, 0, 3*nx*ny*nz)
	for k := 0; k < nz; k++ {
		for j := 0; j < ny; j++ {
			for i := 0; i < nx; i++ {
				g.points = append(g.points, coord(0, i), coord(1, j), coord(2, k))
			}
		}
	}
	g.tets, g.hexes = nil, nil
	if flat := g.Flat(); flat >= 0 {
		g.tris = g.flatTriangles(flat)
		return
	}
	hex := g.Elements == ElementsHexahedra
	if hex {
		g.hexes = make([][8]int, 0, (nx-1)*(ny-1)*(nz-1))
	} else {
		g.tets = make([][4]int, 0, 6*(nx-1)*(ny-1)*(nz-1))
	}
	for k := 0; k < nz-1; k++ {
		for j := 0; j < ny-1; j++ {
			for i := 0; i < nx-1; i++ {
				var corner [8]int
				for b := range corner {
					corner[b] = g.Index(i+(b&1), j+(b>>1&1), k+(b>>2))
				}
				if hex {
					g.hexes = append(g.hexes, HexFromGridCorners(corner))
					continue
				}
				split := KuhnSplit(corner)
				g.tets = append(g.tets, split[:]...)
			}
		}
	}
	if hex {
		g.tris = HexBoundaryTriangles(g.hexes)
	} else {
		g.tris = BoundaryTriangles(g.tets)
	}
}

// checkElements validates an elements field (empty means tetrahedra, for
// objects built in code).
func checkElements(e string) error {
	switch e {
	case "", ElementsTetrahedra, ElementsHexahedra:
		return nil
	}
	return fmt.Errorf("elements = %q is not one of tetrahedra, hexahedra", e)
}

// flatTriangles cuts every cell of a flat grid (flat axis f) into two
// triangles, the diagonal alternating in a checkerboard, normals along +f.
func (g *RegularGridTopology) flatTriangles(f int) [][3]int {
	a0, a1 := (f+1)%3, (f+2)%3 // e_a0 × e_a1 = +e_f
	at := func(i, j int) int {
		var c [3]int
		c[a0], c[a1] = i, j
		return g.Index(c[0], c[1], c[2])
	}
	tris := make([][3]int, 0, 2*(g.N[a0]-1)*(g.N[a1]-1))
	for j := 0; j < g.N[a1]-1; j++ {
		for i := 0; i < g.N[a0]-1; i++ {
			c00, c10, c01, c11 := at(i, j), at(i+1, j), at(i, j+1), at(i+1, j+1)
			if (i+j)%2 == 0 {
				tris = append(tris, [3]int{c00, c10, c11}, [3]int{c00, c11, c01})
			} else {
				tris = append(tris, [3]int{c00, c10, c01}, [3]int{c10, c11, c01})
			}
		}
	}
	return tris
}

// Points implements graph.Topology.
func (g *RegularGridTopology) Points() []float64 { return g.points }

// Tetrahedra implements graph.Topology (none with elements = hexahedra).
func (g *RegularGridTopology) Tetrahedra() [][4]int { return g.tets }

// Hexahedra implements graph.HexahedronTopology: the cells, k outer, then
// j, then i (none with elements = tetrahedra, or for a flat grid).
func (g *RegularGridTopology) Hexahedra() [][8]int { return g.hexes }

// Triangles implements graph.Topology (the boundary, oriented outwards;
// the sheet itself for a flat grid).
func (g *RegularGridTopology) Triangles() [][3]int { return g.tris }
