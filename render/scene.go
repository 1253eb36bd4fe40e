package render

import (
	"fmt"
	"image"
	"image/png"
	"io"
	"math"

	"github.com/sofago/sofago/components/visual"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
)

// Pictures renders the visual surfaces of a scene, frame after frame, with
// one view: the scene's Camera (or the -eye/-center overrides), with what
// is not given fitted to the surfaces' bounds at the first picture, and
// kept for every later one so that an animation does not jump.
//
// A scene without visual surfaces is drawn from the triangles of its
// states' own topologies (the boundary of each tetrahedral mesh, in grey),
// so every deformable object still shows. Rigid3 and Affine3 frames under
// which nothing is drawn (rigid bodies without a visual model, the frames
// of frame-based models) are drawn as their axes (frameSurfaces). The
// static obstacles (CollectScenery) are drawn too: planes as ground
// patches carrying the grid, the others as shaded solids.
type Pictures struct {
	Scene *graph.Scene
	Opt   Options
	// Eye and Center override the scene camera's position and lookAt.
	Eye, Center *geom.Vec3

	surfaces []visual.Surface
	fallback bool
	scenery  Scenery
	r        *Renderer
}

// NewPictures collects the surfaces and obstacles of an initialised scene.
func NewPictures(s *graph.Scene, opt Options) (*Pictures, error) {
	if opt.Width < 1 || opt.Height < 1 {
		return nil, fmt.Errorf("picture size %d×%d", opt.Width, opt.Height)
	}
	p := &Pictures{Scene: s, Opt: opt, surfaces: visual.Surfaces(s.Root)}
	if len(p.surfaces) == 0 {
		p.surfaces = stateSurfaces(s)
		p.fallback = true
	}
	p.surfaces = append(p.surfaces, frameSurfaces(s, p.surfaces)...)
	if len(p.surfaces) == 0 {
		return nil, fmt.Errorf("nothing to draw: the scene has no visual surface (add a VisualModel), no state with a triangle or tetrahedral topology and no Rigid3 or Affine3 frame")
	}
	p.scenery = CollectScenery(s)
	return p, nil
}

// Surfaces returns what is drawn (obstacles aside); fallback is true when
// these are the states' own boundaries because the scene has no visual
// surface.
func (p *Pictures) Surfaces() (surfaces []visual.Surface, fallback bool) {
	return p.surfaces, p.fallback
}

// Scenery returns the static obstacles drawn.
func (p *Pictures) Scenery() Scenery { return p.scenery }

// Colors returns the colours the pictures use for surfaces (before
// shading): every surface's, the obstacles' and the ground's when there
// are some; an animated GIF's palette is made from them.
func (p *Pictures) Colors() [][3]float64 {
	var out [][3]float64
	for _, s := range p.surfaces {
		out = append(out, s.SurfaceColor())
	}
	if len(p.scenery.Solids) > 0 {
		out = append(out, ObstacleColor)
	}
	if len(p.scenery.Planes) > 0 {
		out = append(out, GroundColor)
	}
	return out
}

// View returns the view, fitted at the first Render (nil before).
func (p *Pictures) View() *View {
	if p.r == nil {
		return nil
	}
	return p.r.View
}

// Render draws the current state. The picture is owned by Pictures and
// overwritten by the next call.
func (p *Pictures) Render() (*image.NRGBA, error) {
	if p.r == nil {
		if err := p.fit(); err != nil {
			return nil, err
		}
	}
	for _, s := range p.surfaces {
		pts, _, _ := s.SurfaceMesh()
		for i, x := range pts {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("surface %q: coordinate %d of vertex %d is %g; not drawing a non-finite frame", s.Base().Path(), i%3, i/3, x)
			}
		}
	}
	return p.r.Render(p.surfaces), nil
}

// fit sets up the view from the camera, the overrides and the bounds.
func (p *Pictures) fit() error {
	lo, hi, ok := visual.Bounds(p.surfaces)
	if !ok {
		return fmt.Errorf("the visual surfaces have no points")
	}
	up := geom.Vec3{0, 1, 0}
	if g := p.Scene.Gravity; g.Norm() > 0 {
		up = g.Scale(-1 / g.Norm())
	}
	lo, hi = nearObstacles(lo, hi, p.scenery.Solids)
	lo, hi = downToGround(lo, hi, p.scenery.Planes, up)
	dir, fov, margin := geom.Vec3{0.45, 0.35, 1}, 30.0, 0.08
	var eye, center *geom.Vec3
	if c := visual.FindCamera(p.Scene); c != nil {
		dir, fov, margin = geom.Vec3(c.Direction), c.FieldOfView, c.Margin
		if c.Up != nil {
			up = geom.Vec3{c.Up[0], c.Up[1], c.Up[2]}
		}
		if c.Position != nil {
			eye = &geom.Vec3{c.Position[0], c.Position[1], c.Position[2]}
		}
		if c.LookAt != nil {
			center = &geom.Vec3{c.LookAt[0], c.LookAt[1], c.LookAt[2]}
		}
		if c.Box != nil {
			lo, hi = [3]float64(c.Box[:3]), [3]float64(c.Box[3:])
		}
	}
	if p.Eye != nil {
		eye = p.Eye
	}
	if p.Center != nil {
		center = p.Center
	}
	lo3, hi3 := geom.Vec3(lo), geom.Vec3(hi)
	var view *View
	var err error
	if eye == nil {
		view, err = FitView(lo3, hi3, center, dir, up, fov, p.Opt.Width, p.Opt.Height, margin)
	} else {
		c := lo3.Add(hi3).Scale(0.5)
		if center != nil {
			c = *center
		}
		size := math.Max(hi3.Sub(lo3).Norm(), 1e-9)
		dist := c.Sub(*eye).Norm()
		view, err = NewView(*eye, c, up, fov, p.Opt.Width, p.Opt.Height, math.Max(dist-3*size, 1e-3*dist), dist+10*size)
	}
	if err != nil {
		return fmt.Errorf("camera: %w", err)
	}
	if !p.scenery.Empty() {
		if view, err = enclose(view, p.scenery, lo3, hi3); err != nil {
			return fmt.Errorf("camera: %w", err)
		}
	}
	p.r = NewRenderer(view, p.Opt, lo3, hi3, up)
	p.r.SetScenery(p.scenery)
	return nil
}

// nearObstacles returns the box [lo, hi] grown to take in the parts of the
// solid obstacles near it: each obstacle's bounding box clipped to [lo,
// hi] grown by half its diagonal on every side. So a fitted view shows
// the wall a body is about to hit or rests against, without zooming out
// to a whole large obstacle far from the action.
func nearObstacles(lo, hi [3]float64, solids []visual.Surface) (nlo, nhi [3]float64) {
	nlo, nhi = lo, hi
	g := 0.5 * geom.Vec3(hi).Sub(geom.Vec3(lo)).Norm()
	for _, s := range solids {
		olo, ohi, ok := visual.Bounds([]visual.Surface{s})
		if !ok {
			continue
		}
		var clo, chi [3]float64
		for a := 0; a < 3; a++ {
			clo[a], chi[a] = math.Max(olo[a], lo[a]-g), math.Min(ohi[a], hi[a]+g)
			if clo[a] > chi[a] {
				ok = false
			}
		}
		if !ok {
			continue
		}
		for a := 0; a < 3; a++ {
			nlo[a], nhi[a] = math.Min(nlo[a], clo[a]), math.Max(nhi[a], chi[a])
		}
	}
	return nlo, nhi
}

// downToGround returns the box [lo, hi] grown to take in its shadow on the
// ground (the plane carrying the grid, when it faces up within 60°): the
// projections on it of the box's corners that are above it by at most
// twice the box's diagonal. So a fitted view of objects released above
// the ground shows where they land, and a ground far below does not
// shrink them to nothing.
func downToGround(lo, hi [3]float64, planes []Plane, up geom.Vec3) (nlo, nhi [3]float64) {
	nlo, nhi = lo, hi
	g := groundIndex(planes, up)
	if g < 0 || planes[g].N.Normalized().Dot(up.Normalized()) < 0.5 {
		return
	}
	n, d := planes[g].N.Normalized(), planes[g].D
	size := geom.Vec3(hi).Sub(geom.Vec3(lo)).Norm()
	for i := 0; i < 8; i++ {
		c := geom.Vec3{pick(i&1, lo[0], hi[0]), pick(i&2, lo[1], hi[1]), pick(i&4, lo[2], hi[2])}
		h := n.Dot(c) - d
		if h <= 0 || h > 2*size {
			continue
		}
		q := c.Sub(n.Scale(h))
		for a := 0; a < 3; a++ {
			nlo[a], nhi[a] = math.Min(nlo[a], q[a]), math.Max(nhi[a], q[a])
		}
	}
	return nlo, nhi
}

// enclose returns the view with its clipping distances widened, if need
// be, to take in the obstacles drawn with the scene whose bounds are [lo,
// hi] (a wall or a ground patch nearer or farther than the fitted range):
// near is at most half the distance of the nearest obstacle point in front
// of the eye (but at least 1e-3 of the distance to the target, for the
// depth buffer's resolution), far at least 1.1 times the farthest.
func enclose(v *View, sc Scenery, lo, hi geom.Vec3) (*View, error) {
	fwd := v.Center.Sub(v.Eye).Normalized()
	near, far := v.Near, v.Far
	take := func(p geom.Vec3) {
		if d := p.Sub(v.Eye).Dot(fwd); d > 0 {
			near, far = math.Min(near, 0.5*d), math.Max(far, 1.1*d)
		}
	}
	for _, pl := range sc.Planes {
		for _, c := range planePatch(pl, lo, hi).corners {
			take(c)
		}
	}
	for _, s := range sc.Solids {
		pts, _, _ := s.SurfaceMesh()
		for i := 0; i+2 < len(pts); i += 3 {
			take(geom.Vec3{pts[i], pts[i+1], pts[i+2]})
		}
	}
	near = math.Max(near, 1e-3*v.Center.Sub(v.Eye).Norm())
	if near == v.Near && far == v.Far {
		return v, nil
	}
	return NewView(v.Eye, v.Center, v.Up, v.FovY, v.Width, v.Height, near, far)
}

// EncodePNG writes img as PNG with the fastest compression that still
// compresses (pictures of a run are many; BestSpeed is 3–5× faster than the
// default level for a few percent more bytes).
func EncodePNG(w io.Writer, img image.Image) error {
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	return enc.Encode(w, img)
}

// WritePNG writes img to path atomically (a complete file or none).
func WritePNG(path string, img image.Image) error {
	return visual.AtomicWrite(path, false, func(w io.Writer) error { return EncodePNG(w, img) })
}

// stateSurface draws the triangles of a state's own topology.
type stateSurface struct {
	st      graph.State
	tris    [][3]int
	used    []int32
	points  []float64
	normals []float64
}

func (s *stateSurface) Base() *graph.ObjectBase { return s.st.Base() }

func (s *stateSurface) SurfaceMesh() ([]float64, [][3]int, []float64) {
	x := s.st.Vec(graph.Position)
	for i, p := range s.used {
		copy(s.points[3*i:3*i+3], x[3*p:3*p+3])
	}
	visual.VertexNormals(s.normals, s.points, s.tris)
	return s.points, s.tris, s.normals
}

func (s *stateSurface) SurfaceColor() [3]float64 { return [3]float64{0.7, 0.72, 0.75} }

// stateSurfaces returns a surface for every Vec3 state whose node (or
// nearest ancestor) has a topology of triangles with one point per DOF.
func stateSurfaces(s *graph.Scene) []visual.Surface {
	var out []visual.Surface
	for _, st := range s.States() {
		n := st.Base().Node
		if n == nil || st.Template().Name() != graph.Vec3.Name() {
			continue
		}
		topo := n.Topology()
		if topo == nil || len(topo.Points()) != 3*st.Size() || len(topo.Triangles()) == 0 {
			continue
		}
		tris := topo.Triangles()
		index := make([]int32, st.Size())
		for i := range index {
			index[i] = -1
		}
		ss := &stateSurface{st: st}
		for _, t := range tris {
			for _, v := range t {
				if index[v] < 0 {
					index[v] = 0
				}
			}
		}
		for i, x := range index {
			if x == 0 {
				index[i] = int32(len(ss.used))
				ss.used = append(ss.used, int32(i))
			}
		}
		for _, t := range tris {
			ss.tris = append(ss.tris, [3]int{int(index[t[0]]), int(index[t[1]]), int(index[t[2]])})
		}
		ss.points = make([]float64, 3*len(ss.used))
		ss.normals = make([]float64, 3*len(ss.used))
		out = append(out, ss)
	}
	return out
}
