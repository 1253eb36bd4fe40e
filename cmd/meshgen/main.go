// Command meshgen writes tetrahedral meshes — a box or a cylinder — in any
// format the project reads and writes (meshio.Write: Gmsh .msh, VTK .vtk and .vtu,
// TetGen .node/.ele/.face, Vega .veg), for tests and for scenes that load a
// mesh file (MeshLoader):
//
//	meshgen -shape box -min 0,0,0 -max 1,0.1,0.1 -n 21,3,3 -o bar.msh
//	meshgen -shape cylinder -radius 0.05 -length 0.5 -across 2 -along 20 -o scenes/meshes/cylinder.msh
//	meshgen -shape cylinder -msh 2.2 -o cylinder22.msh
//	meshgen -shape cook -n 17,17,2 -thickness 1 -o scenes/meshes/cook_membrane.vtk
//
// A box is RegularGridTopology's mesh: n[a] vertices per axis, each
// hexahedral cell split into six positive tetrahedra (Kuhn split). A
// cylinder, along x from 0 to length, is a box of along × 2·across ×
// 2·across cells (across cells from the axis to the surface) whose square
// cross-section [−1,1]² is mapped onto the disk of the radius by Shirley and
// Chiu's concentric map (1997: concentric squares go to concentric
// circles, the boundary's vertices to equal angles; it preserves
// orientation, so the tetrahedra stay positive); the mesh fills exactly the
// prism over the regular polygon of 8·across sides inscribed in the circle,
// of area 4·across·radius²·sin(π/(4·across)), so its volume falls short of
// the cylinder's by 2.6% for across = 2, 1.1% for 3, 0.6% for 4.
//
// Cook's membrane (shape cook) is the trapezoid with corners (0, 0),
// (48, 44), (48, 60), (0, 44) extruded over [0, thickness] in z: the unit
// box of n[0] × n[1] × n[2] vertices (Kuhn split) with each point (s, r)
// moved to x = 48·s, y = 44·s + r·(44 − 28·s) (linear along every grid
// line, orientation preserving), so the mesh fills the trapezoid exactly.
//
// The format follows the extension; .msh is Gmsh 4.1 unless -msh 2.2. The
// boundary triangles (outward) are written too, except in .veg files, which
// hold none. meshgen prints the counts, the volume of the mesh and that of
// the smooth shape. Exit codes: 1 for a failed write, 2 for a usage error.
package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/sofago/sofago/components/topology"
	"github.com/sofago/sofago/meshio"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// vec3 is a flag of three comma-separated numbers.
type vec3 [3]float64

func (v *vec3) String() string { return fmt.Sprintf("%g,%g,%g", v[0], v[1], v[2]) }
func (v *vec3) Set(s string) error {
	f := strings.Split(s, ",")
	if len(f) != 3 {
		return fmt.Errorf("want three comma-separated numbers, got %q", s)
	}
	for i := range f {
		x, err := strconv.ParseFloat(strings.TrimSpace(f[i]), 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("%q is not a finite number", f[i])
		}
		v[i] = x
	}
	return nil
}

// int3 is a flag of three comma-separated integers.
type int3 [3]int

func (v *int3) String() string { return fmt.Sprintf("%d,%d,%d", v[0], v[1], v[2]) }
func (v *int3) Set(s string) error {
	f := strings.Split(s, ",")
	if len(f) != 3 {
		return fmt.Errorf("want three comma-separated integers, got %q", s)
	}
	for i := range f {
		x, err := strconv.Atoi(strings.TrimSpace(f[i]))
		if err != nil {
			return fmt.Errorf("%q is not an integer", f[i])
		}
		v[i] = x
	}
	return nil
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("meshgen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	shape := fs.String("shape", "box", "shape: box, cylinder or cook (Cook's membrane)")
	lo, hi, n := vec3{0, 0, 0}, vec3{1, 1, 1}, int3{2, 2, 2}
	fs.Var(&lo, "min", "box: low corner x,y,z (m)")
	fs.Var(&hi, "max", "box: high corner x,y,z (m)")
	fs.Var(&n, "n", "box: vertices per axis nx,ny,nz (cells + 1)")
	radius := fs.Float64("radius", 0.05, "cylinder: radius (m)")
	length := fs.Float64("length", 0.5, "cylinder: length along x, from x = 0 (m)")
	across := fs.Int("across", 2, "cylinder: cells from the axis to the surface (the circle becomes a polygon of 8·across sides)")
	along := fs.Int("along", 20, "cylinder: cells along the axis")
	thickness := fs.Float64("thickness", 1, "cook: thickness along z (-n gives the vertices per axis)")
	mshVersion := fs.String("msh", "4.1", "Gmsh version for .msh files: 4.1 or 2.2")
	out := fs.String("o", "", "output file; the format follows the extension (.msh, .vtk, .vtu, .node/.ele, .veg)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: meshgen [-shape box|cylinder] [shape flags] -o FILE")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "meshgen: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if *out == "" {
		fmt.Fprintln(stderr, "meshgen: -o FILE is required")
		return 2
	}
	var m *meshio.Mesh
	var exact float64
	var err error
	switch *shape {
	case "box":
		m, err = Box(lo, hi, n)
		exact = (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2])
	case "cylinder":
		m, err = Cylinder(*radius, *length, *across, *along)
		exact = math.Pi * *radius * *radius * *length
	case "cook":
		m, err = Cook(n, *thickness)
		exact = 48 * (44 + 16) / 2 * *thickness
	default:
		err = fmt.Errorf("unknown shape %q (box, cylinder or cook)", *shape)
	}
	if err != nil {
		fmt.Fprintf(stderr, "meshgen: %v\n", err)
		return 2
	}
	ext := strings.ToLower(filepath.Ext(*out))
	if ext == ".veg" {
		m.Triangles = nil
	}
	if ext == ".msh" {
		err = meshio.WriteMSH(*out, m, *mshVersion)
	} else {
		err = meshio.Write(*out, m)
	}
	if err != nil {
		fmt.Fprintf(stderr, "meshgen: %v\n", err)
		return 1
	}
	vol := 0.0
	for e := range m.Tetrahedra {
		vol += m.TetVolume(e)
	}
	fmt.Fprintf(stdout, "wrote %s: %d points, %d tetrahedra, %d boundary triangles; volume %.9g m³ (%s: %.9g m³, %+.3g%%)\n",
		*out, m.NumPoints(), len(m.Tetrahedra), len(m.Triangles), vol, *shape, exact, 100*(vol-exact)/exact)
	return 0
}

// Box returns RegularGridTopology's mesh of the box [lo, hi] with n[a]
// vertices along axis a, with its outward boundary triangles.
func Box(lo, hi [3]float64, n [3]int) (*meshio.Mesh, error) {
	g, err := topology.NewRegularGrid(lo, hi, n)
	if err != nil {
		return nil, err
	}
	return &meshio.Mesh{Points: g.Points(), Tetrahedra: g.Tetrahedra(), Triangles: g.Triangles()}, nil
}

// Cylinder returns a tetrahedral cylinder of the radius along x over
// [0, length]: the box [0, length] × [−1, 1]² of along × 2·across ×
// 2·across cells, Kuhn split (so the axis y = z = 0 is a line of
// vertices), with each cross-section point (y, z) moved to
// radius·concentric(y, z). Every tetrahedron is checked positive.
func Cylinder(radius, length float64, across, along int) (*meshio.Mesh, error) {
	if !(radius > 0) || !(length > 0) || math.IsInf(radius, 0) || math.IsInf(length, 0) {
		return nil, fmt.Errorf("radius %g and length %g must be positive and finite", radius, length)
	}
	if across < 1 || along < 1 {
		return nil, fmt.Errorf("across = %d and along = %d must be at least 1", across, along)
	}
	m, err := Box([3]float64{0, -1, -1}, [3]float64{length, 1, 1}, [3]int{along + 1, 2*across + 1, 2*across + 1})
	if err != nil {
		return nil, err
	}
	for i := 0; i < m.NumPoints(); i++ {
		y, z := concentric(m.Points[3*i+1], m.Points[3*i+2])
		m.Points[3*i+1], m.Points[3*i+2] = radius*y, radius*z
	}
	for e := range m.Tetrahedra {
		if v := m.TetVolume(e); !(v > 0) {
			return nil, fmt.Errorf("tetrahedron %d has volume %g after the disk mapping (a bug)", e, v)
		}
	}
	return m, nil
}

// Cook returns Cook's membrane (see the package comment) of n vertices per
// axis and the thickness. Every tetrahedron is checked positive.
func Cook(n [3]int, thickness float64) (*meshio.Mesh, error) {
	if !(thickness > 0) || math.IsInf(thickness, 0) {
		return nil, fmt.Errorf("thickness %g must be positive and finite", thickness)
	}
	m, err := Box([3]float64{}, [3]float64{1, 1, thickness}, n)
	if err != nil {
		return nil, err
	}
	for i := 0; i < m.NumPoints(); i++ {
		s, r := m.Points[3*i], m.Points[3*i+1]
		m.Points[3*i], m.Points[3*i+1] = CookPoint(s, r)
	}
	for e := range m.Tetrahedra {
		if v := m.TetVolume(e); !(v > 0) {
			return nil, fmt.Errorf("tetrahedron %d has volume %g after the trapezoid mapping (a bug)", e, v)
		}
	}
	return m, nil
}

// CookPoint maps the unit-square point (s, r) to Cook's trapezoid: x = 48·s,
// y from the lower edge 44·s to the upper edge 44 + 16·s.
func CookPoint(s, r float64) (x, y float64) {
	lo, hi := 44*s, 44+16*s
	return 48 * s, lo + r*(hi-lo)
}

// concentric maps the square [−1,1]² onto the unit disk (Shirley & Chiu,
// "A low distortion map between disk and square", 1997): the square of
// half-side r goes to the circle of radius r, its boundary at equal angles.
func concentric(a, b float64) (x, y float64) {
	if a == 0 && b == 0 {
		return 0, 0
	}
	var r, phi float64
	if math.Abs(a) > math.Abs(b) {
		r, phi = a, math.Pi/4*(b/a)
	} else {
		r, phi = b, math.Pi/2-math.Pi/4*(a/b)
	}
	return r * math.Cos(phi), r * math.Sin(phi)
}
