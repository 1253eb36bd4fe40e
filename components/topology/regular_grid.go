package topology

import (
	"fmt"

	"github.com/sofago/sofago/graph"
)

// RegularGridTopology is a box split into n[0]−1 × n[1]−1 × n[2]−1
// hexahedral cells, each split into six positively oriented tetrahedra (the
// Kuhn split, conforming across cells), with its boundary triangles.
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
	N   [3]int     `toml:"n" doc:"vertices per axis (cells per axis + 1)" range:"[2,inf)"`

	points []float64
	tets   [][4]int
	tris   [][3]int
}

func init() {
	graph.Register(graph.TypeInfo{
		Name:    "RegularGridTopology",
		Kind:    graph.KindTopology,
		Summary: "A box split into hexahedral cells, each split into six positively oriented tetrahedra (Kuhn split), with its boundary triangles.",
		New:     func() graph.Object { return &RegularGridTopology{Max: [3]float64{1, 1, 1}, N: [3]int{2, 2, 2}} },
	})
}

// NewRegularGrid builds the grid directly (for code and tests).
func NewRegularGrid(min, max [3]float64, n [3]int) (*RegularGridTopology, error) {
	g := &RegularGridTopology{ObjectBase: graph.ObjectBase{Name: "grid", TypeName: "RegularGridTopology"}, Min: min, Max: max, N: n}
	if err := g.Validate(); err != nil {
		return nil, err
	}
	g.build()
	return g, nil
}

// Validate checks that the box has positive extent on every axis.
func (g *RegularGridTopology) Validate() error {
	for a := 0; a < 3; a++ {
		if !(g.Max[a] > g.Min[a]) {
			return fmt.Errorf("max[%d] = %g must be greater than min[%d] = %g", a, g.Max[a], a, g.Min[a])
		}
		if g.N[a] < 2 {
			return fmt.Errorf("n[%d] = %d: need at least 2 vertices per axis", a, g.N[a])
		}
	}
	if int64(g.N[0])*int64(g.N[1])*int64(g.N[2]) > 50_000_000 {
		return fmt.Errorf("n = %v gives more than 50 million vertices", g.N)
	}
	return nil
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
	g.points = make([]float64, 0, 3*nx*ny*nz)
	for k := 0; k < nz; k++ {
		for j := 0; j < ny; j++ {
			for i := 0; i < nx; i++ {
				g.points = append(g.points,
					g.Min[0]+float64(i)*(g.Max[0]-g.Min[0])/float64(nx-1),
					g.Min[1]+float64(j)*(g.Max[1]-g.Min[1])/float64(ny-1),
					g.Min[2]+float64(k)*(g.Max[2]-g.Min[2])/float64(nz-1))
			}
		}
	}
	g.tets = make([][4]int, 0, 6*(nx-1)*(ny-1)*(nz-1))
	for k := 0; k < nz-1; k++ {
		for j := 0; j < ny-1; j++ {
			for i := 0; i < nx-1; i++ {
				var corner [8]int
				for b := range corner {
					corner[b] = g.Index(i+(b&1), j+(b>>1&1), k+(b>>2))
				}
				split := KuhnSplit(corner)
				g.tets = append(g.tets, split[:]...)
			}
		}
	}
	g.tris = BoundaryTriangles(g.tets)
}

// Points implements graph.Topology.
func (g *RegularGridTopology) Points() []float64 { return g.points }

// Tetrahedra implements graph.Topology.
func (g *RegularGridTopology) Tetrahedra() [][4]int { return g.tets }

// Triangles implements graph.Topology (the boundary, oriented outwards).
func (g *RegularGridTopology) Triangles() [][3]int { return g.tris }
