package render

import (
	"math"

	"github.com/sofago/sofago/components/visual"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
)

// Colours of the drawn frame axes: x red, y green, z blue (the usual
// convention of 3D tools).
var AxisColors = [3][3]float64{{0.85, 0.22, 0.18}, {0.25, 0.65, 0.25}, {0.2, 0.38, 0.85}}

// axisLengthFraction is the length of a drawn frame axis as a fraction of
// the diagonal of the scene's initial bounds; axisWidthFraction its
// square cross-section's side as a fraction of its length.
const (
	axisLengthFraction = 0.1
	axisWidthFraction  = 0.12
	// defaultAxisLength (m) is used when the scene's points all coincide
	// (a lone body), which gives no size to go by.
	defaultAxisLength = 0.1
)

// frameAxes draws one axis of every frame of a Rigid3 or Affine3 state: a
// square bar from the frame's origin along the image of the local axis
// (R e_k for Rigid3 [t q], the column A e_k for Affine3 [t A], so an
// affine frame's axes stretch and shear with it). The three axes of a
// state are three surfaces, one per colour.
type frameAxes struct {
	st            graph.State
	axis          int
	length, width float64
	points        []float64
	tris          [][3]int
	normals       []float64
}

func (f *frameAxes) Base() *graph.ObjectBase  { return f.st.Base() }
func (f *frameAxes) SurfaceColor() [3]float64 { return AxisColors[f.axis] }

// frameTemplate reports whether states of template t are frames in space
// that pictures can draw as axes.
func frameTemplate(t graph.Template) bool {
	switch t.Name() {
	case graph.Rigid3.Name():
		return t.CoordSize() == 7
	case graph.Affine3.Name():
		return t.CoordSize() == 12
	}
	return false
}

// frame returns the origin and the three axis images of frame i.
func (f *frameAxes) frame(x []float64, i int) (o geom.Vec3, axes [3]geom.Vec3) {
	if f.st.Template().Name() == graph.Rigid3.Name() {
		c := x[7*i : 7*i+7]
		q := geom.Quat{c[3], c[4], c[5], c[6]}
		if n := q.Norm(); n > 0 {
			q = q.Normalized()
		}
		m := q.Mat()
		return geom.Vec3{c[0], c[1], c[2]}, [3]geom.Vec3{m.Col(0), m.Col(1), m.Col(2)}
	}
	c := x[12*i : 12*i+12] // [t, A row-major]
	for k := 0; k < 3; k++ {
		axes[k] = geom.Vec3{c[3+k], c[6+k], c[9+k]}
	}
	return geom.Vec3{c[0], c[1], c[2]}, axes
}

// SurfaceMesh returns the bars at the state's current positions: for each
// frame, the parallelepiped from o − (w/2)(â + û + v̂) spanned by
// (length + w/2)â-scaled axis k and w times the unit directions of the
// other two axes (â, û, v̂ the unit axis images), its faces oriented
// outward (for a reflecting affine frame too).
func (f *frameAxes) SurfaceMesh() ([]float64, [][3]int, []float64) {
	x := f.st.Vec(graph.Position)
	n := f.st.Size()
	if len(f.points) != 24*n {
		f.points = make([]float64, 24*n)
		f.normals = make([]float64, 24*n)
		f.tris = f.tris[:0]
	}
	build := len(f.tris) == 0
	k, k1, k2 := f.axis, (f.axis+1)%3, (f.axis+2)%3
	w := f.width
	for i := 0; i < n; i++ {
		o, axes := f.frame(x, i)
		a := axes[k].Scale(f.length)
		ah := unit(axes[k])
		a = a.Add(ah.Scale(w / 2))
		b, c := unit(axes[k1]).Scale(w), unit(axes[k2]).Scale(w)
		p0 := o.Sub(ah.Scale(w / 2)).Sub(b.Scale(0.5)).Sub(c.Scale(0.5))
		for j := 0; j < 8; j++ {
			p := p0
			if j&1 != 0 {
				p = p.Add(a)
			}
			if j&2 != 0 {
				p = p.Add(b)
			}
			if j&4 != 0 {
				p = p.Add(c)
			}
			copy(f.points[24*i+3*j:], p[:])
		}
		if build {
			f.tris = append(f.tris, boxTriangles(8*i)...)
		}
	}
	if build {
		f.orient(x)
	}
	visual.VertexNormals(f.normals, f.points, f.tris)
	return f.points, f.tris, f.normals
}

// orient flips the faces of the bars whose spanning vectors are
// left-handed (an affine frame with det A < 0), once: the handedness of
// a frame does not change during a run without it passing through a
// degenerate A.
func (f *frameAxes) orient(x []float64) {
	for i := 0; i < f.st.Size(); i++ {
		_, axes := f.frame(x, i)
		k, k1, k2 := f.axis, (f.axis+1)%3, (f.axis+2)%3
		if axes[k].Dot(axes[k1].Cross(axes[k2])) < 0 {
			for t := 12 * i; t < 12*i+12; t++ {
				f.tris[t][1], f.tris[t][2] = f.tris[t][2], f.tris[t][1]
			}
		}
	}
}

func unit(v geom.Vec3) geom.Vec3 {
	if n := v.Norm(); n > 0 {
		return v.Scale(1 / n)
	}
	return geom.Vec3{}
}

// boxTriangles returns the 12 triangles of the parallelepiped on corners
// base + j, j = i + 2·jb + 4·jc for the coefficients (i, jb, jc) ∈ {0,1}³
// of right-handed spanning vectors, counter-clockwise seen from outside:
// the face of outward normal ±e_a goes round its corners by the bits of
// axes a+1 and a+2 as (0,0), (1,0), (1,1), (0,1), which turns about
// e_{a+1} × e_{a+2} = e_a, reversed for the − face.
func boxTriangles(base int) [][3]int {
	out := make([][3]int, 0, 12)
	for a := 0; a < 3; a++ {
		bb, cc := 1<<((a+1)%3), 1<<((a+2)%3)
		for _, plus := range []bool{false, true} {
			f := 0
			if plus {
				f = 1 << a
			}
			q := [4]int{f, f | bb, f | bb | cc, f | cc}
			if !plus {
				q[1], q[3] = q[3], q[1]
			}
			out = append(out, [3]int{base + q[0], base + q[1], base + q[2]}, [3]int{base + q[0], base + q[2], base + q[3]})
		}
	}
	return out
}

// frameSurfaces returns the axes of every Rigid3 and Affine3 state under
// whose node nothing else is drawn (a body with a visual model or a
// triangle surface mapped below it shows through that), sized from the
// scene: axisLengthFraction of the diagonal of the bounds of every state's
// points and frame origins at the start.
func frameSurfaces(s *graph.Scene, drawn []visual.Surface) []visual.Surface {
	var frames []graph.State
	for _, st := range s.States() {
		if st.Base().Node == nil || !frameTemplate(st.Template()) || st.Size() == 0 {
			continue
		}
		covered := false
		for _, sf := range drawn {
			for n := sf.Base().Node; n != nil; n = n.Parent {
				if n == st.Base().Node {
					covered = true
					break
				}
			}
			if covered {
				break
			}
		}
		if !covered {
			frames = append(frames, st)
		}
	}
	if len(frames) == 0 {
		return nil
	}
	length := axisLengthFraction * sceneSize(s)
	if !(length > 0) || math.IsInf(length, 0) {
		length = defaultAxisLength
	}
	var out []visual.Surface
	for _, st := range frames {
		for k := 0; k < 3; k++ {
			out = append(out, &frameAxes{st: st, axis: k, length: length, width: axisWidthFraction * length})
		}
	}
	return out
}

// sceneSize returns the diagonal of the bounds of the positions in space
// of every state: Vec3 points and the origins of Rigid3 and Affine3
// frames (0 when there are fewer than two distinct ones).
func sceneSize(s *graph.Scene) float64 {
	lo := geom.Vec3{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi := lo.Scale(-1)
	for _, st := range s.States() {
		t := st.Template()
		if t.Name() != graph.Vec3.Name() && !frameTemplate(t) {
			continue
		}
		cs := t.CoordSize()
		x := st.Vec(graph.Position)
		for i := 0; i+2 < len(x); i += cs {
			for a := 0; a < 3; a++ {
				if v := x[i+a]; !math.IsNaN(v) && !math.IsInf(v, 0) {
					lo[a], hi[a] = math.Min(lo[a], v), math.Max(hi[a], v)
				}
			}
		}
	}
	if !(lo[0] <= hi[0]) {
		return 0
	}
	return hi.Sub(lo).Norm()
}
