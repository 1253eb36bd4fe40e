package topology

import (
	"fmt"
	"math"

	"github.com/sofago/sofago/graph"
)

// CylinderGridTopology is a cylindrical patch of triangles for shells
// (TriangularShellForceField): the surface of radius `radius` about an
// axis parallel to x through `center`, from x = center_x to center_x +
// length, over the angles θ ∈ [angles[0], angles[1]] measured from +z
// towards +y (degrees; the point at θ is center + (x, R sin θ, R cos θ)).
// n = [n_x, n_θ] vertices along the axis and along the arc, evenly spaced;
// each of the (n_x−1)(n_θ−1) cells is cut into two triangles along a
// diagonal that alternates from cell to cell (a checkerboard, as
// RegularGridTopology's flat sheet), every triangle's normal pointing away
// from the axis. Vertex (i, j) (i along x, j along θ) has index i + n_x·j.
// The Scordelis–Lo roof is radius = 25, length = 50, angles = [−40, 40].
type CylinderGridTopology struct {
	graph.ObjectBase
	Radius float64    `toml:"radius" doc:"radius of the cylinder" unit:"m" range:"(0,inf)" required:"true"`
	Length float64    `toml:"length" doc:"length along the axis (x)" unit:"m" range:"(0,inf)" required:"true"`
	Angles [2]float64 `toml:"angles" doc:"angular range [θmin, θmax] from +z towards +y, less than a full turn" unit:"deg"`
	N      [2]int     `toml:"n" doc:"vertices along the axis and along the arc" range:"[2,inf)"`
	Center [3]float64 `toml:"center" doc:"point of the axis at x = 0 of the patch" unit:"m"`

	points []float64
	tris   [][3]int
}

func init() {
	graph.Register(graph.TypeInfo{
		Name:    "CylinderGridTopology",
		Kind:    graph.KindTopology,
		Summary: "A cylindrical patch (radius, length along x, angular range) cut into a checkerboard of triangles, normals outwards: curved shells such as the Scordelis–Lo roof.",
		New: func() graph.Object {
			return &CylinderGridTopology{Angles: [2]float64{-40, 40}, N: [2]int{2, 2}}
		},
	})
}

// Validate checks the angular range and the counts.
func (g *CylinderGridTopology) Validate() error {
	span := g.Angles[1] - g.Angles[0]
	if !(span > 0) || !(span < 360) {
		return fmt.Errorf("angles = %v: need θmin < θmax and less than a full turn (360°)", g.Angles)
	}
	if g.N[0] < 2 || g.N[1] < 2 {
		return fmt.Errorf("n = %v: need at least 2 vertices along the axis and along the arc", g.N)
	}
	if int64(g.N[0])*int64(g.N[1]) > 50_000_000 {
		return fmt.Errorf("n = %v gives more than 50 million vertices", g.N)
	}
	return nil
}

// Init builds the points and triangles.
func (g *CylinderGridTopology) Init() error {
	if err := g.Validate(); err != nil {
		return g.Wrap(err)
	}
	nx, nt := g.N[0], g.N[1]
	g.points = make([]float64, 0, 3*nx*nt)
	for j := 0; j < nt; j++ {
		th := (g.Angles[0] + (g.Angles[1]-g.Angles[0])*float64(j)/float64(nt-1)) * math.Pi / 180
		for i := 0; i < nx; i++ {
			x := g.Length * float64(i) / float64(nx-1)
			g.points = append(g.points, g.Center[0]+x, g.Center[1]+g.Radius*math.Sin(th), g.Center[2]+g.Radius*math.Cos(th))
		}
	}
	g.tris = make([][3]int, 0, 2*(nx-1)*(nt-1))
	for j := 0; j < nt-1; j++ {
		for i := 0; i < nx-1; i++ {
			c00, c10, c01, c11 := g.Index(i, j), g.Index(i+1, j), g.Index(i, j+1), g.Index(i+1, j+1)
			if (i+j)%2 == 0 {
				g.tris = append(g.tris, [3]int{c00, c10, c11}, [3]int{c00, c11, c01})
			} else {
				g.tris = append(g.tris, [3]int{c00, c10, c01}, [3]int{c10, c11, c01})
			}
		}
	}
	return nil
}

// Index returns the vertex index of grid vertex (i along x, j along θ).
func (g *CylinderGridTopology) Index(i, j int) int { return i + g.N[0]*j }

// Points implements graph.Topology.
func (g *CylinderGridTopology) Points() []float64 { return g.points }

// Tetrahedra implements graph.Topology: none.
func (g *CylinderGridTopology) Tetrahedra() [][4]int { return nil }

// Triangles implements graph.Topology.
func (g *CylinderGridTopology) Triangles() [][3]int { return g.tris }
