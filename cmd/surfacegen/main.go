// Command surfacegen writes closed triangle surfaces (a sphere, a capsule,
// a torus) as STL (binary or ASCII) or OBJ files, for tests and for scenes
// that tetrahedralise a surface (SparseGridTopology):
//
//	surfacegen -shape capsule -radius 0.05 -length 0.3 -o scenes/meshes/capsule.stl
//	surfacegen -shape sphere -radius 1 -around 72 -rings 36 -ascii -o sphere.stl
//	surfacegen -shape torus -major 1 -minor 0.3 -o torus.obj
//
// The format follows the extension (.stl or .obj); -ascii picks ASCII STL
// (binary by default). The surfaces are meshio.SphereSurface,
// CapsuleSurface and TorusSurface: outward oriented, closed, vertices
// shared. It prints the vertex and triangle counts and the enclosed volume
// next to the smooth shape's. Exit codes: 1 for a failed write, 2 for a
// usage error.
package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/sofago/sofago/meshio"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("surfacegen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	shape := fs.String("shape", "sphere", "shape: sphere, capsule or torus")
	radius := fs.Float64("radius", 1, "sphere and capsule radius (m)")
	length := fs.Float64("length", 2, "capsule: length of the cylinder between the hemispheres' centres, along x (m)")
	major := fs.Float64("major", 1, "torus: distance from the z axis to the tube's centre (m)")
	minor := fs.Float64("minor", 0.3, "torus: tube radius (m)")
	around := fs.Int("around", 48, "segments around the x axis (sphere, capsule) or the z axis (torus)")
	rings := fs.Int("rings", 24, "sphere: latitude steps pole to pole; capsule: steps per hemisphere; torus: segments around the tube")
	bodyRings := fs.Int("body-rings", 16, "capsule: steps along the cylinder")
	ascii := fs.Bool("ascii", false, "write ASCII STL instead of binary")
	out := fs.String("o", "", "output file, .stl or .obj (required)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *out == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "usage: surfacegen -shape sphere|capsule|torus [shape flags] [-ascii] -o FILE.stl|FILE.obj")
		return 2
	}
	var m *meshio.Mesh
	var smooth float64 // volume of the smooth shape
	var err error
	switch *shape {
	case "sphere":
		m, err = meshio.SphereSurface(*radius, *around, *rings)
		smooth = 4 * math.Pi / 3 * math.Pow(*radius, 3)
	case "capsule":
		m, err = meshio.CapsuleSurface(*radius, *length, *around, *rings, *bodyRings)
		smooth = math.Pi**radius**radius**length + 4*math.Pi/3*math.Pow(*radius, 3)
	case "torus":
		m, err = meshio.TorusSurface(*major, *minor, *around, *rings)
		smooth = 2 * math.Pi * math.Pi * *major * *minor * *minor
	default:
		fmt.Fprintf(stderr, "surfacegen: unknown shape %q (sphere, capsule, torus)\n", *shape)
		return 2
	}
	if err != nil {
		fmt.Fprintf(stderr, "surfacegen: %v\n", err)
		return 2
	}
	switch strings.ToLower(filepath.Ext(*out)) {
	case ".stl":
		err = meshio.WriteSTL(*out, m, !*ascii)
	case ".obj":
		if *ascii {
			fmt.Fprintln(stderr, "surfacegen: -ascii applies to STL only")
			return 2
		}
		err = meshio.WriteOBJ(*out, m)
	default:
		fmt.Fprintf(stderr, "surfacegen: output %q: want a .stl or .obj file\n", *out)
		return 2
	}
	if err != nil {
		fmt.Fprintf(stderr, "surfacegen: %v\n", err)
		return 1
	}
	v := m.EnclosedVolume()
	fmt.Fprintf(stdout, "%s: %s, %d vertices, %d triangles, enclosed volume %.6g m³ (smooth shape %.6g m³, %+.3f%%)\n",
		*out, *shape, m.NumPoints(), len(m.Triangles), v, smooth, 100*(v-smooth)/smooth)
	return 0
}
