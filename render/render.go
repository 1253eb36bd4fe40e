package render

import (
	"image"
	"image/color"
	"math"

	"github.com/fogleman/fauxgl"
	"github.com/sofago/sofago/components/visual"
	"github.com/sofago/sofago/geom"
)

// Options are the settings of the pictures.
type Options struct {
	Width, Height int
	// Wireframe draws every triangle edge over the shaded surfaces.
	Wireframe bool
	// NoGrid leaves out the ground grid.
	NoGrid bool
	// Supersample renders at k times the size in each direction and
	// averages k×k blocks (anti-aliasing; costs k² times as much). 0 or 1:
	// none.
	Supersample int
}

// Colours of the picture (linear 0–1 RGB).
var (
	Background = fauxgl.Color{R: 0.97, G: 0.97, B: 0.975, A: 1}
	GridColor  = fauxgl.Color{R: 0.75, G: 0.76, B: 0.78, A: 1}
	WireColor  = fauxgl.Color{R: 0.15, G: 0.15, B: 0.17, A: 1}
)

// Lighting: an ambient term and two directional lights fixed to the camera
// (a key light from the upper left and a weaker fill from the right), so
// every view is lit alike. Fragment brightness is
// ambient + key·max(n·l_key, 0) + fill·max(n·l_fill, 0), at most 1.
const (
	ambient    = 0.3
	keyLight   = 0.62
	fillLight  = 0.25
	creaseCos  = 0.766 // cos 40°: triangles meeting at a sharper angle are shaded apart (a crease)
	wireBias   = -1e-5 // depth bias pulling edges in front of their own faces
	gridFactor = 10    // about this many grid lines across the scene
)

// Renderer draws surfaces with a fixed view into a reusable buffer. It is
// not safe for concurrent use.
type Renderer struct {
	View *View
	opt  Options
	ctx  *fauxgl.Context
	sh   *shader
	line *fauxgl.SolidColorShader
	grid []fauxgl.Line
	out  *image.NRGBA

	// The scene's bounds and up direction, for the scenery.
	lo, hi, up geom.Vec3
	// Static obstacles (SetScenery): ground patches drawn flat, the first
	// one carrying the grid; solid obstacles shaded.
	patches []patch
	flat    *fauxgl.SolidColorShader
	solids  []visual.Surface
	// The colour and depth buffers with only the static part drawn (the
	// grid, the obstacles), kept from the first picture: the view is fixed
	// and they do not move, so every later picture starts from a copy of
	// them instead of drawing them again (a ground patch covers much of
	// the picture, and the rasteriser costs about 0.3 µs per pixel).
	staticColor []uint8
	staticDepth []float64

	cache map[visual.Surface]*surfaceCache
}

// surfaceCache holds what the renderer derives once from a surface's
// triangles (which never change): whether it is closed, its edges, and
// the triangles around each vertex; and per-frame face normals.
type surfaceCache struct {
	closed     bool
	edges      [][2]int
	start      []int32 // triangles around vertex v: around[start[v]:start[v+1]]
	around     []int32
	faceN      []fauxgl.Vector // unit normal of each triangle, this frame
	faceW      []float64       // its weight: twice its area
	degenerate []bool
}

func newSurfaceCache(tris [][3]int, nv int) *surfaceCache {
	c := &surfaceCache{closed: isClosed(tris), start: make([]int32, nv+1)}
	for _, t := range tris {
		for _, v := range t {
			c.start[v+1]++
		}
	}
	for v := 0; v < nv; v++ {
		c.start[v+1] += c.start[v]
	}
	c.around = make([]int32, c.start[nv])
	fill := append([]int32(nil), c.start[:nv]...)
	for k, t := range tris {
		for _, v := range t {
			c.around[fill[v]] = int32(k)
			fill[v]++
		}
	}
	c.faceN = make([]fauxgl.Vector, len(tris))
	c.faceW = make([]float64, len(tris))
	c.degenerate = make([]bool, len(tris))
	return c
}

// NewRenderer returns a renderer for view (whose size is the picture's)
// with the options' wireframe, grid and supersampling. The ground grid is
// drawn under the box [lo, hi] (the scene's bounds when the view was
// fitted), perpendicular to up.
func NewRenderer(view *View, opt Options, lo, hi, up geom.Vec3) *Renderer {
	k := max(opt.Supersample, 1)
	r := &Renderer{View: view, opt: opt, cache: map[visual.Surface]*surfaceCache{}, lo: lo, hi: hi, up: up}
	r.ctx = fauxgl.NewContext(view.Width*k, view.Height*k)
	r.ctx.ClearColor = Background
	r.ctx.LineWidth = float64(k)
	r.sh = &shader{matrix: view.matrix, eye: vec(view.Eye)}
	// Lights in world coordinates, from the camera's frame: key from the
	// upper left, in front; fill from the right.
	fwd := view.Center.Sub(view.Eye).Normalized()
	right := fwd.Cross(view.Up).Normalized()
	upv := right.Cross(fwd)
	r.sh.key = vec(upv.Scale(0.6).Sub(right.Scale(0.35)).Sub(fwd.Scale(0.75)).Normalized())
	r.sh.fill = vec(right.Scale(0.9).Sub(fwd.Scale(0.4)).Add(upv.Scale(0.1)).Normalized())
	r.line = fauxgl.NewSolidColorShader(view.matrix, WireColor)
	if !opt.NoGrid {
		r.grid = groundGrid(lo, hi, up)
	}
	return r
}

// SetScenery adds the static obstacles to every later picture. When
// there are planes, each is drawn as a flat patch around the scene's
// footprint (planePatch, sized from the bounds given to NewRenderer), and
// the ground grid lies on the one facing most upward instead of under the
// bounds; solid obstacles are shaded like surfaces.
func (r *Renderer) SetScenery(sc Scenery) {
	r.patches, r.solids = nil, sc.Solids
	r.staticColor, r.staticDepth = nil, nil
	if len(sc.Planes) == 0 {
		return
	}
	g := groundIndex(sc.Planes, r.up)
	r.patches = append(r.patches, planePatch(sc.Planes[g], r.lo, r.hi))
	for i, pl := range sc.Planes {
		if i != g {
			r.patches = append(r.patches, planePatch(pl, r.lo, r.hi))
		}
	}
	for i := 1; i < len(r.patches); i++ {
		r.patches[i].lines = nil // the grid is on the ground only
	}
	if r.opt.NoGrid {
		r.patches[0].lines = nil
	}
	r.grid = nil
	c := GroundColor
	r.flat = fauxgl.NewSolidColorShader(r.View.matrix, fauxgl.Color{R: c[0], G: c[1], B: c[2], A: 1})
}

// drawPatches draws the ground patches flat, the ground first, then its
// grid on it (drawn over it whatever the depth: the lines lie in the
// patch, where a depth test would flicker between them), then the other
// planes with the depth test.
func (r *Renderer) drawPatches() {
	ctx := r.ctx
	ctx.Cull = fauxgl.CullNone
	ctx.DepthBias = 0
	for k := range r.patches {
		p := &r.patches[k]
		ctx.Shader = r.flat
		for _, tri := range [2][3]int{{0, 1, 2}, {0, 2, 3}} {
			t := fauxgl.Triangle{V1: fauxgl.Vertex{Position: vec(p.corners[tri[0]])},
				V2: fauxgl.Vertex{Position: vec(p.corners[tri[1]])}, V3: fauxgl.Vertex{Position: vec(p.corners[tri[2]])}}
			ctx.DrawTriangle(&t)
		}
		if len(p.lines) > 0 {
			r.line.Color = GridColor
			ctx.Shader = r.line
			ctx.ReadDepth, ctx.WriteDepth = false, false
			for i := range p.lines {
				ctx.DrawLine(&p.lines[i])
			}
			ctx.ReadDepth, ctx.WriteDepth = true, true
		}
	}
}

// groundGrid returns the lines of a square grid in the plane perpendicular
// to up, a quarter of the box's size below it, extending one box size
// beyond it on each side, with a round spacing (1, 2 or 5 × 10ⁿ) near a
// tenth of the box's size.
func groundGrid(lo, hi, up geom.Vec3) []fauxgl.Line {
	u := up.Normalized()
	size := hi.Sub(lo).Norm()
	if size == 0 {
		size = 1
	}
	e1, e2 := planeAxes(u)
	c := lo.Add(hi).Scale(0.5)
	height := math.Inf(1)
	for i := 0; i < 8; i++ {
		p := geom.Vec3{pick(i&1, lo[0], hi[0]), pick(i&2, lo[1], hi[1]), pick(i&4, lo[2], hi[2])}
		height = math.Min(height, p.Dot(u))
	}
	height -= 0.25 * size
	step := niceStep(size / gridFactor)
	half := math.Ceil(size / step)
	c1, c2 := math.Round(c.Dot(e1)/step)*step, math.Round(c.Dot(e2)/step)*step
	at := func(s, t float64) fauxgl.Vector { return vec(u.Scale(height).Add(e1.Scale(s)).Add(e2.Scale(t))) }
	var lines []fauxgl.Line
	for i := -half; i <= half; i++ {
		s := i * step
		lines = append(lines,
			fauxgl.Line{V1: fauxgl.Vertex{Position: at(c1+s, c2-half*step)}, V2: fauxgl.Vertex{Position: at(c1+s, c2+half*step)}},
			fauxgl.Line{V1: fauxgl.Vertex{Position: at(c1-half*step, c2+s)}, V2: fauxgl.Vertex{Position: at(c1+half*step, c2+s)}})
	}
	return lines
}

// niceStep returns 1, 2 or 5 × 10ⁿ nearest above x.
func niceStep(x float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= x {
			return m * p
		}
	}
	return 10 * p
}

// Render draws the surfaces and returns the picture (owned by the
// renderer, overwritten by the next call).
func (r *Renderer) Render(surfaces []visual.Surface) *image.NRGBA {
	ctx := r.ctx
	if r.staticColor == nil {
		ctx.ClearColorBuffer()
		ctx.ClearDepthBuffer()
		r.drawStatic()
		r.staticColor = append([]uint8(nil), ctx.ColorBuffer.Pix...)
		r.staticDepth = append([]float64(nil), ctx.DepthBuffer...)
	} else {
		copy(ctx.ColorBuffer.Pix, r.staticColor)
		copy(ctx.DepthBuffer, r.staticDepth)
	}
	for _, s := range surfaces {
		r.drawSurface(s)
	}
	if r.opt.Wireframe {
		r.line.Color = WireColor
		ctx.Shader = r.line
		ctx.DepthBias = wireBias
		for _, s := range surfaces {
			r.drawEdges(s)
		}
		ctx.DepthBias = 0
	}
	return r.resolve()
}

// drawStatic draws what does not move, on cleared buffers: the ground
// grid, or the ground patches and their grid; the solid obstacles.
func (r *Renderer) drawStatic() {
	ctx := r.ctx
	if len(r.grid) > 0 {
		r.line.Color = GridColor
		ctx.Shader = r.line
		ctx.DepthBias = 0
		for i := range r.grid {
			ctx.DrawLine(&r.grid[i])
		}
	}
	r.drawPatches()
	for _, s := range r.solids {
		r.drawSurface(s)
	}
}

// cacheOf returns the surface's cache, made on first use.
func (r *Renderer) cacheOf(s visual.Surface) *surfaceCache {
	c, ok := r.cache[s]
	if !ok {
		pts, tris, _ := s.SurfaceMesh()
		c = newSurfaceCache(tris, len(pts)/3)
		r.cache[s] = c
	}
	return c
}

// drawSurface rasterises one surface: back faces culled when it is closed
// (every edge shared by two triangles in opposite directions), two-sided
// lighting otherwise. Shading normals are crease-angle normals: at each
// corner, the area-weighted average of the normals of the triangles
// around the vertex that are within 40° of this triangle's — smooth on
// curved surfaces, sharp along a box's edges (where a plain vertex normal
// would smear the edge across both faces).
func (r *Renderer) drawSurface(s visual.Surface) {
	pts, tris, _ := s.SurfaceMesh()
	c := r.cacheOf(s)
	closed := c.closed
	for k, tr := range tris {
		a, b, cc := 3*tr[0], 3*tr[1], 3*tr[2]
		ux, uy, uz := pts[b]-pts[a], pts[b+1]-pts[a+1], pts[b+2]-pts[a+2]
		vx, vy, vz := pts[cc]-pts[a], pts[cc+1]-pts[a+1], pts[cc+2]-pts[a+2]
		n := fauxgl.Vector{X: uy*vz - uz*vy, Y: uz*vx - ux*vz, Z: ux*vy - uy*vx}
		l := n.Length()
		c.degenerate[k] = l == 0
		c.faceW[k] = l
		if l > 0 {
			c.faceN[k] = n.DivScalar(l)
		}
	}
	ctx := r.ctx
	ctx.Shader = r.sh
	ctx.DepthBias = 0
	if closed {
		ctx.Cull = fauxgl.CullBack
	} else {
		ctx.Cull = fauxgl.CullNone
	}
	r.sh.twoSided = !closed
	sc := s.SurfaceColor()
	col := fauxgl.Color{R: sc[0], G: sc[1], B: sc[2], A: 1}
	var t fauxgl.Triangle
	t.V1.Color, t.V2.Color, t.V3.Color = col, col, col
	for k, tr := range tris {
		if c.degenerate[k] {
			continue
		}
		a, b, cc := 3*tr[0], 3*tr[1], 3*tr[2]
		t.V1.Position = fauxgl.Vector{X: pts[a], Y: pts[a+1], Z: pts[a+2]}
		t.V2.Position = fauxgl.Vector{X: pts[b], Y: pts[b+1], Z: pts[b+2]}
		t.V3.Position = fauxgl.Vector{X: pts[cc], Y: pts[cc+1], Z: pts[cc+2]}
		fn := c.faceN[k]
		t.V1.Normal = c.cornerNormal(tr[0], fn)
		t.V2.Normal = c.cornerNormal(tr[1], fn)
		t.V3.Normal = c.cornerNormal(tr[2], fn)
		ctx.DrawTriangle(&t)
	}
}

// cornerNormal is the crease-angle normal at vertex v of a triangle with
// unit normal fn.
func (c *surfaceCache) cornerNormal(v int, fn fauxgl.Vector) fauxgl.Vector {
	var n fauxgl.Vector
	for _, k := range c.around[c.start[v]:c.start[v+1]] {
		if c.degenerate[k] {
			continue
		}
		if f := c.faceN[k]; f.Dot(fn) >= creaseCos {
			w := c.faceW[k]
			n.X += w * f.X
			n.Y += w * f.Y
			n.Z += w * f.Z
		}
	}
	return n.Normalize()
}

// drawEdges draws every edge of a surface once.
func (r *Renderer) drawEdges(s visual.Surface) {
	pts, tris, _ := s.SurfaceMesh()
	c := r.cacheOf(s)
	if c.edges == nil {
		c.edges = uniqueEdges(tris)
	}
	edges := c.edges
	ctx := r.ctx
	ctx.Cull = fauxgl.CullNone
	var l fauxgl.Line
	for _, e := range edges {
		a, b := 3*e[0], 3*e[1]
		l.V1.Position = fauxgl.Vector{X: pts[a], Y: pts[a+1], Z: pts[a+2]}
		l.V2.Position = fauxgl.Vector{X: pts[b], Y: pts[b+1], Z: pts[b+2]}
		ctx.DrawLine(&l)
	}
}

// uniqueEdges lists each edge of the triangles once (smaller index first).
func uniqueEdges(tris [][3]int) [][2]int {
	seen := make(map[[2]int]bool, 3*len(tris)/2)
	var out [][2]int
	for _, t := range tris {
		for k := 0; k < 3; k++ {
			a, b := t[k], t[(k+1)%3]
			if a > b {
				a, b = b, a
			}
			if !seen[[2]int{a, b}] {
				seen[[2]int{a, b}] = true
				out = append(out, [2]int{a, b})
			}
		}
	}
	return out
}

// isClosed reports whether every directed edge a→b of the triangles has
// exactly one opposite b→a: a closed, consistently oriented surface, whose
// back faces are never seen.
func isClosed(tris [][3]int) bool {
	count := make(map[[2]int]int, 3*len(tris))
	for _, t := range tris {
		for k := 0; k < 3; k++ {
			count[[2]int{t[k], t[(k+1)%3]}]++
		}
	}
	for e, n := range count {
		if n != 1 || count[[2]int{e[1], e[0]}] != 1 {
			return false
		}
	}
	return len(tris) > 0
}

// resolve returns the picture: the colour buffer, averaged over k×k blocks
// when supersampling.
func (r *Renderer) resolve() *image.NRGBA {
	src := r.ctx.ColorBuffer
	k := max(r.opt.Supersample, 1)
	if k == 1 {
		return src
	}
	w, h := r.View.Width, r.View.Height
	if r.out == nil {
		r.out = image.NewNRGBA(image.Rect(0, 0, w, h))
	}
	n := uint32(k * k)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			var sr, sg, sb uint32
			for j := 0; j < k; j++ {
				row := src.Pix[(y*k+j)*src.Stride+x*k*4:]
				for i := 0; i < k; i++ {
					sr += uint32(row[4*i])
					sg += uint32(row[4*i+1])
					sb += uint32(row[4*i+2])
				}
			}
			o := r.out.Pix[y*r.out.Stride+4*x:]
			o[0], o[1], o[2], o[3] = uint8((sr+n/2)/n), uint8((sg+n/2)/n), uint8((sb+n/2)/n), 255
		}
	}
	return r.out
}

// shader lights fragments with the two camera-fixed lights. Lighting uses
// the interpolated normal; for open surfaces the normal is turned toward
// the eye (two-sided lighting), so an inside seen through a hole is lit.
type shader struct {
	matrix    fauxgl.Matrix
	eye       fauxgl.Vector
	key, fill fauxgl.Vector
	twoSided  bool
}

func (s *shader) Vertex(v fauxgl.Vertex) fauxgl.Vertex {
	v.Output = s.matrix.MulPositionW(v.Position)
	return v
}

func (s *shader) Fragment(v fauxgl.Vertex) fauxgl.Color {
	n := v.Normal
	if s.twoSided && n.Dot(s.eye.Sub(v.Position)) < 0 {
		n = n.Negate()
	}
	d := ambient + keyLight*math.Max(n.Dot(s.key), 0) + fillLight*math.Max(n.Dot(s.fill), 0)
	d = math.Min(d, 1)
	return fauxgl.Color{R: v.Color.R * d, G: v.Color.G * d, B: v.Color.B * d, A: 1}
}

// Brightness returns the range of brightness factors the shader applies to
// a surface colour, [ambient, at most 1]: a GIF palette made of ramps over
// it reproduces every shaded pixel closely.
func Brightness() (lo, hi float64) { return ambient, math.Min(ambient+keyLight+fillLight, 1) }

// colorNRGBA converts a fauxgl colour the way the context does.
func colorNRGBA(c fauxgl.Color) color.NRGBA { return c.NRGBA() }
