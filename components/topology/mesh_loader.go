package topology

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/meshio"
)

// MeshLoader reads a mesh file and serves it as the topology of its node:
// points, tetrahedra, hexahedra (Gmsh type 5, VTK type 12: served through
// graph.HexahedronTopology to HexahedronFEMForceField) and triangles, used by a MechanicalObject, a mass and
// a force field in the same node exactly as they use RegularGridTopology.
// The format follows the extension (meshio.Read): Gmsh .msh (ASCII 2.2 and
// 4.1), legacy VTK .vtk, VTK XML .vtu (ASCII; the frames `runscene -out`
// and VTKExporter write, so a result can be reused as a mesh: its points
// are that frame's deformed positions, its point and cell data are
// ignored), TetGen .node/.ele, Vega .veg, and the STL and OBJ surfaces. SOFA splits this into MeshGmshLoader, MeshVTKLoader, ...; one
// loader dispatching on the extension does the same with one set of fields.
//
// Each point p of the file becomes R·(scale3d ⊙ p) + translation, with
// R = Rz(γ)·Ry(β)·Rx(α) for rotation = [α, β, γ] in degrees: rotate about
// the fixed x axis, then y, then z — the order of SOFA's MeshLoader (scale,
// rotate, translate; Euler angles as in Quater::createQuaterFromEuler).
//
// Every tetrahedron is then made positive (meshio.Mesh.Orient swaps two
// vertices of an inverted one, which mirroring by a negative scale makes of
// every one), and so is every hexahedron (meshio.Mesh.OrientHexahedra);
// a hexahedron whose trilinear map is not positive at all of its corners
// even then (twisted, or corners out of VTK's order) is an error.
// Triangles are the file's triangles when it has no volume cells (a
// surface; reversed under a mirroring scale so they keep their side), and
// otherwise the boundary of the tetrahedra and of the hexahedra (whose
// boundary quadrilaterals are split in two), oriented outwards (the file's
// own triangles are then ignored: they may be any subset, oriented either
// way). With volume cells, every point must belong to one: a point outside
// every cell would be a degree of freedom with no mass and no stiffness.
type MeshLoader struct {
	graph.ObjectBase
	Filename    string     `toml:"filename" doc:"mesh file, relative to the scene file: .msh (Gmsh ASCII 2.2/4.1), .vtk (legacy ASCII unstructured grid), .vtu (VTK XML unstructured grid, ASCII, as runscene -out writes it; point and cell data ignored), .node/.ele (TetGen), .veg (Vega), .stl, .obj" required:"true"`
	Translation [3]float64 `toml:"translation" doc:"translation added to every point, after scale and rotation" unit:"m"`
	Rotation    [3]float64 `toml:"rotation" doc:"rotation about the fixed x, then y, then z axis (SOFA's Euler angles), after scale" unit:"deg"`
	Scale3d     [3]float64 `toml:"scale3d" doc:"scale factor along x, y and z, applied first (a negative factor mirrors the mesh)"`

	mesh *meshio.Mesh
	tris [][3]int
}

func init() {
	graph.Register(graph.TypeInfo{
		Name:    "MeshLoader",
		Kind:    graph.KindTopology,
		Summary: "Reads a tetrahedral, hexahedral or triangle mesh file (Gmsh .msh, VTK .vtk and .vtu, TetGen .node/.ele, Vega .veg, STL, OBJ; format by extension), scales, rotates and translates it, and serves its points, positively oriented tetrahedra and hexahedra and boundary triangles as the node's topology.",
		New:     func() graph.Object { return &MeshLoader{Scale3d: [3]float64{1, 1, 1}} },
	})
}

// meshExtensions are the extensions meshio.Read knows.
var meshExtensions = []string{".msh", ".vtk", ".vtu", ".node", ".ele", ".face", ".veg", ".stl", ".obj"}

// Validate checks the fields that need no file: a known extension, finite
// non-zero scale factors, finite angles and translation.
func (l *MeshLoader) Validate() error {
	ext := strings.ToLower(filepath.Ext(l.Filename))
	known := false
	for _, e := range meshExtensions {
		known = known || ext == e
	}
	if !known {
		return fmt.Errorf("filename %q: unknown mesh format %q (known: %s)", l.Filename, ext, strings.Join(meshExtensions, " "))
	}
	for a := 0; a < 3; a++ {
		if s := l.Scale3d[a]; s == 0 || math.IsNaN(s) || math.IsInf(s, 0) {
			return fmt.Errorf("scale3d[%d] = %g: scale factors must be finite and non-zero", a, s)
		}
	}
	return nil
}

// Init reads the file and builds the topology.
func (l *MeshLoader) Init() error {
	if err := l.Validate(); err != nil {
		return err
	}
	path := l.Filename
	if l.Node != nil && l.Node.Scene() != nil {
		path = l.Node.Scene().ResolvePath(l.Filename)
	}
	m, err := meshio.Read(path)
	if err != nil {
		return err
	}
	if err := m.Validate(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if m.NumPoints() == 0 {
		return fmt.Errorf("%s: the mesh has no points", path)
	}
	volume := len(m.Tetrahedra) > 0 || len(m.Hexahedra) > 0
	if !volume && len(m.Triangles) == 0 {
		return fmt.Errorf("%s: the mesh has %d points but no tetrahedra, hexahedra or triangles", path, m.NumPoints())
	}
	if volume {
		if err := checkAllPointsInTets(m); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	l.transform(m)
	m.Orient()
	m.OrientHexahedra()
	for e, h := range m.Hexahedra {
		if err := CheckHexahedron(m.Points, h); err != nil {
			return fmt.Errorf("%s: hexahedron %d %v: %w", path, e, h, err)
		}
	}
	if volume {
		l.tris = append(BoundaryTriangles(m.Tetrahedra), HexBoundaryTriangles(m.Hexahedra)...)
	} else {
		l.tris = m.Triangles
	}
	l.mesh = m
	return nil
}

// checkAllPointsInTets reports points that belong to no tetrahedron or
// hexahedron.
func checkAllPointsInTets(m *meshio.Mesh) error {
	used := make([]bool, m.NumPoints())
	for _, t := range m.Tetrahedra {
		for _, v := range t {
			used[v] = true
		}
	}
	for _, h := range m.Hexahedra {
		for _, v := range h {
			used[v] = true
		}
	}
	free, first := 0, -1
	for i, u := range used {
		if !u {
			if first < 0 {
				first = i
			}
			free++
		}
	}
	if free > 0 {
		p := geom.At(m.Points, first)
		return fmt.Errorf("%d of %d points belong to no tetrahedron or hexahedron (the first: point %d at (%g, %g, %g)); they would be degrees of freedom with no mass or stiffness: remove them from the mesh",
			free, m.NumPoints(), first, p[0], p[1], p[2])
	}
	return nil
}

// RotationMatrix returns R = Rz(γ)·Ry(β)·Rx(α) for rotation = [α, β, γ] in
// degrees.
func (l *MeshLoader) RotationMatrix() geom.Mat3 {
	rad := math.Pi / 180
	axis := func(a int, deg float64) geom.Mat3 {
		var v geom.Vec3
		v[a] = 1
		return geom.QuatFromAxisAngle(v, deg*rad).Mat()
	}
	return axis(2, l.Rotation[2]).Mul(axis(1, l.Rotation[1])).Mul(axis(0, l.Rotation[0]))
}

// transform applies scale, rotation and translation to the points, and
// reverses the triangles under a mirroring scale.
func (l *MeshLoader) transform(m *meshio.Mesh) {
	identity := l.Scale3d == [3]float64{1, 1, 1} && l.Rotation == [3]float64{} && l.Translation == [3]float64{}
	if identity {
		return // keep the file's coordinates bit for bit
	}
	R := l.RotationMatrix()
	if l.Rotation == [3]float64{} {
		R = geom.Identity3() // exactly, not cos(0) products
	}
	s, t := geom.Vec3(l.Scale3d), geom.Vec3(l.Translation)
	for i := 0; i < m.NumPoints(); i++ {
		p := geom.At(m.Points, i)
		p = R.MulVec(geom.Vec3{s[0] * p[0], s[1] * p[1], s[2] * p[2]}).Add(t)
		geom.Put(m.Points, i, p)
	}
	if s[0]*s[1]*s[2] < 0 {
		for i := range m.Triangles {
			tr := &m.Triangles[i]
			tr[1], tr[2] = tr[2], tr[1]
		}
	}
}

// Mesh returns the loaded mesh after transformation and orientation (its
// Triangles are the file's; Triangles() gives the topology's).
func (l *MeshLoader) Mesh() *meshio.Mesh { return l.mesh }

// Points implements graph.Topology.
func (l *MeshLoader) Points() []float64 {
	if l.mesh == nil {
		return nil
	}
	return l.mesh.Points
}

// Tetrahedra implements graph.Topology.
func (l *MeshLoader) Tetrahedra() [][4]int {
	if l.mesh == nil {
		return nil
	}
	return l.mesh.Tetrahedra
}

// Hexahedra implements graph.HexahedronTopology: the file's hexahedra,
// positively oriented.
func (l *MeshLoader) Hexahedra() [][8]int {
	if l.mesh == nil {
		return nil
	}
	return l.mesh.Hexahedra
}

// Triangles implements graph.Topology: the boundary of the tetrahedra and
// hexahedra, oriented outwards, or the file's triangles for a surface mesh.
func (l *MeshLoader) Triangles() [][3]int { return l.tris }
