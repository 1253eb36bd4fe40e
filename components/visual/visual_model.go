package visual

import (
	"fmt"
	"math"

	"github.com/sofago/sofago/components/topology"
	"github.com/sofago/sofago/graph"
)

// Surface is a triangle surface at its current position, as pictures and
// the surface exporters (OBJ, STL) see it. VisualModel implements it; any
// other component with something to draw (an obstacle, a contact plane)
// may implement it too and is then drawn and exported like a visual model.
type Surface interface {
	graph.Object
	// SurfaceMesh returns the current surface: vertex positions (xyz per
	// vertex), triangles (indices into them, counter-clockwise seen from
	// outside) and unit vertex normals (xyz per vertex). The slices belong
	// to the surface and stay valid until the next step.
	SurfaceMesh() (points []float64, triangles [][3]int, normals []float64)
	// SurfaceColor returns the diffuse colour (red, green, blue in [0, 1]).
	SurfaceColor() [3]float64
}

// VisualModel is a surface drawn and exported with the mechanics (SOFA's
// OglModel, without OpenGL). Its vertices are the positions of the
// mechanical state of its node, a Vec3 state fed by a mapping from the
// simulated object: usually a non-mechanical one (isMechanical = false),
// which runs once per step and carries no forces — BarycentricMapping for
// a surface embedded in a tetrahedral mesh, IdentityMapping for the mesh's
// own boundary, RigidMapping for a rigid body, the skinning mappings,
// SubspaceMapping. An object may have several visual models, each in its
// own child node.
//
// The surface is
//   - the file `filename` (STL or OBJ; any format MeshLoader reads, a
//     volume mesh giving its boundary), scaled, rotated and translated as
//     MeshLoader does. The visual model then serves as its node's
//     topology: the node's MechanicalObject takes its points as rest
//     positions, and the mapping attaches them to the parent. The node
//     must hold no other topology.
//   - without a filename, the triangles of the topology of its node, or of
//     the nearest ancestor with one (a tetrahedral mesh's boundary,
//     oriented outwards). The state must then have one DOF per point of
//     that topology (an IdentityMapping copy, or the simulated state
//     itself). In a node with its own topology, the visual model serves
//     that topology unchanged, so it shadows nothing whatever the
//     declaration order.
//
// With `box`, only the triangles whose rest centroid lies in the box are
// drawn, so several visual models can show the parts of one surface in
// different colours.
//
// Normals are area-weighted vertex normals (the sum of the adjacent
// triangles' cross products, normalised), recomputed from the current
// positions whenever the surface is read after a step (UpdateVisual marks
// them stale), so every output frame has the normals of its positions and
// steps with no output cost nothing.
type VisualModel struct {
	graph.ObjectBase
	Filename    string     `toml:"filename" doc:"surface file, relative to the scene file (.stl, .obj; or a volume mesh: its boundary); default: the triangles of the topology of this node or the nearest ancestor"`
	Translation [3]float64 `toml:"translation" doc:"translation added to every point of the file, after scale and rotation" unit:"m"`
	Rotation    [3]float64 `toml:"rotation" doc:"rotation of the file's points about the fixed x, then y, then z axis (SOFA's Euler angles), after scale" unit:"deg"`
	Scale3d     [3]float64 `toml:"scale3d" doc:"scale factor of the file's points along x, y and z, applied first"`
	Color       [3]float64 `toml:"color" doc:"diffuse colour: red, green, blue" range:"[0,1]"`
	Box         []float64  `toml:"box" doc:"draw only the triangles whose centroid (at rest) lies in this box [xmin, ymin, zmin, xmax, ymax, zmax]: several visual models can colour parts of one boundary" unit:"m"`

	file     *topology.MeshLoader // the surface file, when filename is set
	fileErr  error
	state    graph.State
	used     []int32  // state vertices the triangles use, ascending
	tris     [][3]int // triangles over the compact vertex list (index into used)
	points   []float64
	normals  []float64
	stale    bool
	checkErr error
}

func init() {
	graph.Register(graph.TypeInfo{
		Name:    "VisualModel",
		Kind:    graph.KindVisual,
		Summary: "A surface drawn and exported with the mechanics (SOFA's OglModel without OpenGL): an STL/OBJ file, or the boundary of the node's topology, on the Vec3 state of its node, which a (usually non-mechanical) mapping moves with the simulated object; vertex normals recomputed for every output frame.",
		New: func() graph.Object {
			return &VisualModel{Scale3d: [3]float64{1, 1, 1}, Color: [3]float64{0.85, 0.6, 0.35}}
		},
	})
}

// Validate reads the surface file, at load time, so that the node's
// MechanicalObject (initialised before visual models) can take its points.
func (v *VisualModel) Validate() error {
	if v.Box != nil {
		if len(v.Box) != 6 {
			return fmt.Errorf("box has %d numbers, want 6: [xmin, ymin, zmin, xmax, ymax, zmax]", len(v.Box))
		}
		for a := 0; a < 3; a++ {
			if !(v.Box[a] <= v.Box[a+3]) {
				return fmt.Errorf("box: min %g > max %g on axis %d", v.Box[a], v.Box[a+3], a)
			}
		}
	}
	if v.Filename == "" {
		if v.Translation != ([3]float64{}) || v.Rotation != ([3]float64{}) || v.Scale3d != ([3]float64{1, 1, 1}) {
			return fmt.Errorf("translation, rotation and scale3d apply to a surface file; give filename, or transform the topology this model draws")
		}
		return nil
	}
	return v.load()
}

// load reads the file once, through a MeshLoader (same formats, same
// transformation, same file:line errors).
func (v *VisualModel) load() error {
	if v.file != nil || v.fileErr != nil {
		return v.fileErr
	}
	l := &topology.MeshLoader{ObjectBase: v.ObjectBase, Filename: v.Filename,
		Translation: v.Translation, Rotation: v.Rotation, Scale3d: v.Scale3d}
	if err := l.Init(); err != nil {
		v.fileErr = err
		return err
	}
	if len(l.Triangles()) == 0 {
		v.fileErr = fmt.Errorf("%s has no triangles to draw", v.Filename)
		return v.fileErr
	}
	v.file = l
	return nil
}

// borrowed returns the topology a model without a file draws: another
// topology of its own node, else the nearest ancestor's. Models that borrow
// are never borrowed from (so two models cannot borrow from each other).
func (v *VisualModel) borrowed() (topo graph.Topology, own bool) {
	if v.Node == nil {
		return nil, false
	}
	for n := v.Node; n != nil; n = n.Parent {
		for _, o := range n.Objects {
			t, ok := o.(graph.Topology)
			if !ok || o == graph.Object(v) {
				continue
			}
			if vm, isVM := o.(*VisualModel); isVM && vm.Filename == "" {
				continue
			}
			return t, n == v.Node
		}
	}
	return nil, false
}

// Points implements graph.Topology: the surface's points (the file's, or
// those of the topology it draws).
func (v *VisualModel) Points() []float64 {
	if v.Filename != "" {
		if v.load() != nil {
			return nil
		}
		return v.file.Points()
	}
	t, own := v.borrowed()
	if t == nil {
		return nil
	}
	if !own {
		// An ancestor's points serve a Vec3 copy of them; a state of
		// another template in this node (a rigid body holding a visual
		// model by mistake) must not take them: Init reports it.
		if st := v.Node.State(); st != nil && st.Template() != nil && st.Template().Name() != graph.Vec3.Name() {
			return nil
		}
	}
	return t.Points()
}

// Tetrahedra implements graph.Topology: those of the topology of its own
// node, when it draws that one (so force fields and masses that find the
// visual model as their node's topology see the real one); none
// otherwise, the visual model's node being a surface.
func (v *VisualModel) Tetrahedra() [][4]int {
	if v.Filename != "" {
		return nil
	}
	if t, own := v.borrowed(); t != nil && own {
		return t.Tetrahedra()
	}
	return nil
}

// Hexahedra implements graph.HexahedronTopology as Tetrahedra does: those
// of the topology of its own node when it draws that one.
func (v *VisualModel) Hexahedra() [][8]int {
	if v.Filename != "" {
		return nil
	}
	if t, own := v.borrowed(); t != nil && own {
		return graph.HexahedraOf(t)
	}
	return nil
}

// Polyhedra implements graph.PolyhedronTopology as Tetrahedra does: those
// of the topology of its own node when it draws that one.
func (v *VisualModel) Polyhedra() []graph.Polyhedron {
	if v.Filename != "" {
		return nil
	}
	if t, own := v.borrowed(); t != nil && own {
		return graph.PolyhedraOf(t)
	}
	return nil
}

// Triangles implements graph.Topology: the surface's triangles.
func (v *VisualModel) Triangles() [][3]int {
	if v.Filename != "" {
		if v.load() != nil {
			return nil
		}
		return v.file.Triangles()
	}
	if t, _ := v.borrowed(); t != nil {
		return t.Triangles()
	}
	return nil
}

// Init checks the surface against the node's state and prepares the
// compact vertex list the surface is exported with.
func (v *VisualModel) Init() error {
	if v.Filename != "" {
		if err := v.load(); err != nil {
			return err
		}
		for _, o := range v.Node.Objects {
			if _, ok := o.(graph.Topology); ok && o != graph.Object(v) {
				return fmt.Errorf("this node already has topology %q; a visual model with a filename is its node's topology: put it in a child node with its own MechanicalObject and a mapping", o.Base().Name)
			}
		}
	}
	st := v.Node.State()
	if st == nil {
		return fmt.Errorf("no MechanicalObject in this node: a visual model draws the positions of its node's Vec3 state (add one, fed by a mapping from the simulated object)")
	}
	if name := st.Template().Name(); name != graph.Vec3.Name() {
		return fmt.Errorf("the state %q of this node has template %s; a visual model needs Vec3 points", st.Base().Path(), name)
	}
	pts, tris := v.Points(), v.Triangles()
	what := fmt.Sprintf("the file %s", v.Filename)
	if v.Filename == "" {
		t, _ := v.borrowed()
		if t == nil {
			return fmt.Errorf("no surface: give filename, or put the visual model under a topology whose triangles it draws")
		}
		what = fmt.Sprintf("topology %q", t.Base().Path())
		if len(tris) == 0 {
			return fmt.Errorf("%s has no triangles to draw", what)
		}
	}
	if len(pts) != 3*st.Size() {
		return fmt.Errorf("%s has %d points but the state %q has %d; the state must hold the surface's points (leave its positions unset, or map the whole parent with an IdentityMapping)", what, len(pts)/3, st.Base().Path(), st.Size())
	}
	if v.Box != nil {
		var in [][3]int
		for _, t := range tris {
			inside := true
			for a := 0; a < 3; a++ {
				c := (pts[3*t[0]+a] + pts[3*t[1]+a] + pts[3*t[2]+a]) / 3
				inside = inside && c >= v.Box[a] && c <= v.Box[a+3]
			}
			if inside {
				in = append(in, t)
			}
		}
		if len(in) == 0 {
			return fmt.Errorf("no triangle of %s has its centroid in box %v", what, v.Box)
		}
		tris = in
	}
	v.state = st
	v.compact(tris, st.Size())
	v.stale = true
	return nil
}

// compact lists the vertices the triangles use and renumbers the triangles
// over that list (a tetrahedral mesh's interior vertices are not part of
// its boundary surface).
func (v *VisualModel) compact(tris [][3]int, n int) {
	index := make([]int32, n)
	for i := range index {
		index[i] = -1
	}
	for _, t := range tris {
		for _, p := range t {
			index[p] = 0
		}
	}
	v.used = v.used[:0]
	for i, x := range index {
		if x == 0 {
			index[i] = int32(len(v.used))
			v.used = append(v.used, int32(i))
		}
	}
	v.tris = make([][3]int, len(tris))
	for k, t := range tris {
		v.tris[k] = [3]int{int(index[t[0]]), int(index[t[1]]), int(index[t[2]])}
	}
	v.points = make([]float64, 3*len(v.used))
	v.normals = make([]float64, 3*len(v.used))
}

// UpdateVisual implements graph.VisualModel: the state has moved, the
// surface's points and normals will be recomputed when next read.
func (v *VisualModel) UpdateVisual() error {
	v.stale = true
	return nil
}

// SurfaceMesh implements Surface: the current points of the surface (its
// state's positions, restricted to the vertices its triangles use), its
// triangles and its vertex normals.
func (v *VisualModel) SurfaceMesh() (points []float64, triangles [][3]int, normals []float64) {
	if v.stale && v.state != nil {
		v.refresh()
	}
	return v.points, v.tris, v.normals
}

// SurfaceColor implements Surface.
func (v *VisualModel) SurfaceColor() [3]float64 { return v.Color }

// refresh gathers the positions and recomputes the normals.
func (v *VisualModel) refresh() {
	x := v.state.Vec(graph.Position)
	for i, p := range v.used {
		copy(v.points[3*i:3*i+3], x[3*p:3*p+3])
	}
	VertexNormals(v.normals, v.points, v.tris)
	v.stale = false
}

// VertexNormals sets normals to the area-weighted vertex normals of the
// triangle surface (points, tris): each vertex gets the sum of the cross
// products (b−a)×(c−a) of its triangles (twice their area times their unit
// normal), normalised. A vertex of degenerate triangles only gets a zero
// normal.
func VertexNormals(normals, points []float64, tris [][3]int) {
	clear(normals)
	for _, t := range tris {
		a, b, c := 3*t[0], 3*t[1], 3*t[2]
		ux, uy, uz := points[b]-points[a], points[b+1]-points[a+1], points[b+2]-points[a+2]
		vx, vy, vz := points[c]-points[a], points[c+1]-points[a+1], points[c+2]-points[a+2]
		nx, ny, nz := uy*vz-uz*vy, uz*vx-ux*vz, ux*vy-uy*vx
		for _, p := range [3]int{a, b, c} {
			normals[p] += nx
			normals[p+1] += ny
			normals[p+2] += nz
		}
	}
	for i := 0; i+2 < len(normals); i += 3 {
		l := math.Sqrt(normals[i]*normals[i] + normals[i+1]*normals[i+1] + normals[i+2]*normals[i+2])
		if l > 0 {
			normals[i] /= l
			normals[i+1] /= l
			normals[i+2] /= l
		}
	}
}

// Bounds returns the axis-aligned bounding box of the surfaces' current
// points; ok is false when they have none.
func Bounds(surfaces []Surface) (lo, hi [3]float64, ok bool) {
	lo = [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi = [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for _, s := range surfaces {
		pts, _, _ := s.SurfaceMesh()
		for i := 0; i+2 < len(pts); i += 3 {
			for a := 0; a < 3; a++ {
				lo[a] = math.Min(lo[a], pts[i+a])
				hi[a] = math.Max(hi[a], pts[i+a])
			}
		}
	}
	return lo, hi, lo[0] <= hi[0]
}

// Surfaces returns every Surface in the subtree of root, in tree order.
func Surfaces(root *graph.Node) []Surface {
	var out []Surface
	root.Walk(func(n *graph.Node) error {
		for _, o := range n.Objects {
			if s, ok := o.(Surface); ok {
				out = append(out, s)
			}
		}
		return nil
	})
	return out
}
