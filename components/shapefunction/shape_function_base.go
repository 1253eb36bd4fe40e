package shapefunction

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/sofago/sofago/components/mapping"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
)

// ShapeFunctionBase holds what the shape functions (Shepard, harmonic,
// Voronoi) share: the frames they weigh, the cut-off, the evaluation of
// normalised, truncated weights and gradients at any rest point
// (mapping.WeightProvider), and the frames inserted at run time.
//
// Weights at a point p are computed in three steps:
//
//  1. the kernel of every frame f and its gradient, K_f(p) and ∇K_f(p),
//     from the component's method (analytic for Shepard; trilinear
//     interpolation over the voxel centres of a voxel field and of its
//     central-difference gradient for the grid methods);
//  2. the nbRef frames of largest positive kernel are kept (SOFA Flexible's
//     nbRef; ties by frame index; a point no kernel reaches follows the
//     frame of nearest origin) and normalised to a partition of unity,
//     w_f = K_f/S with S = Σ_kept K, with the gradient of that quotient,
//     ∇w_f = (∇K_f − w_f Σ_kept ∇K)/S, so Σ w = 1 and Σ ∇w = 0 hold to
//     rounding (linear blend skinning then reproduces affine motions
//     exactly);
//  3. the frames inserted at run time split the weight of their parent
//     frame (InsertFrame).
//
// The frames are the DOFs of the state linked by frames (default: the
// mechanical state of the shape function's own node, where SOFA Flexible
// puts it); their rest origins (the first three coordinates of every
// Rigid3, Affine3, Quadratic3 or Vec3 rest coordinate) are read when the weights are
// first asked for, so a FramePlacer or user positions are in place.
type ShapeFunctionBase struct {
	Frames graph.Link `toml:"frames" doc:"state of the frames (Rigid3, Affine3 or Quadratic3); default: the mechanical state of this node"`
	NbRef  int        `toml:"nbRef" doc:"maximum number of frames influencing a point (the largest weights are kept, then normalised to a partition of unity)" range:"[1,inf)"`

	owner  *graph.ObjectBase
	method kernelMethod

	state   graph.State
	origins []geom.Vec3 // rest origins of the base frames (no inserted frame)
	kernels kernelEvaluator
	splits  []frameSplit
	ready   bool
	err     error
}

// kernelMethod is what each shape function component provides.
type kernelMethod interface {
	// buildKernels computes the kernels of frames with rest origins o.
	buildKernels(o []geom.Vec3) (kernelEvaluator, error)
}

// kernelEvaluator evaluates K_f, ∇K_f and (when h is not nil) the Hessian
// ∇∇K_f of every frame at a rest point; w, g and h have one entry per
// frame.
type kernelEvaluator interface {
	eval(p geom.Vec3, w []float64, g []geom.Vec3, h []geom.Mat3)
	numFrames() int
}

// frameSplit records a frame inserted at run time: frame child took the
// share φ of frame parent's weight (see InsertFrame); phi evaluates φ of
// the child among every frame present at its insertion.
type frameSplit struct {
	parent, child int
	phi           kernelEvaluator
	phiIndex      int // index of the child in phi's frames
}

// DefaultNbRef is nbRef when the scene does not set it (SOFA Flexible's
// default).
const DefaultNbRef = 4

func (b *ShapeFunctionBase) setup(owner *graph.ObjectBase, m kernelMethod) {
	b.owner, b.method = owner, m
	if b.NbRef == 0 {
		b.NbRef = DefaultNbRef
	}
}

// SetFrames sets the frames' state directly (code that builds scenes
// without a file).
func (b *ShapeFunctionBase) SetFrames(s graph.State) { b.state = s; b.ready = false }

func (b *ShapeFunctionBase) resolveState() (graph.State, error) {
	if b.state != nil {
		return b.state, nil
	}
	if b.Frames.IsSet() {
		st, ok := b.Frames.Object.(graph.State)
		if !ok {
			if b.Frames.Object == nil && b.Frames.Node != nil {
				st = b.Frames.Node.State()
			}
			if st == nil {
				return nil, fmt.Errorf("frames %q is not a mechanical state", b.Frames.Path)
			}
		}
		b.state = st
		return st, nil
	}
	if b.owner == nil || b.owner.Node == nil || b.owner.Node.State() == nil {
		return nil, errors.New("no frames: give frames (a link to the frames' MechanicalObject) or put the shape function in the frames' node")
	}
	b.state = b.owner.Node.State()
	return b.state, nil
}

// restOrigins returns the rest origins of the frames of s.
func restOrigins(s graph.State) ([]geom.Vec3, error) {
	t := s.Template()
	switch t.Name() {
	case graph.Rigid3.Name(), graph.Affine3.Name(), graph.Quadratic3.Name(), graph.Vec3.Name():
	default:
		return nil, fmt.Errorf("frames state %q has template %s; shape functions weigh Rigid3, Affine3, Quadratic3 or Vec3 frames", s.Base().Path(), t.Name())
	}
	cs := t.CoordSize()
	rest := s.Vec(graph.RestPosition)
	o := make([]geom.Vec3, s.Size())
	for f := range o {
		o[f] = geom.Vec3{rest[cs*f], rest[cs*f+1], rest[cs*f+2]}
		for a := 0; a < 3; a++ {
			if math.IsNaN(o[f][a]) || math.IsInf(o[f][a], 0) {
				return nil, fmt.Errorf("frame %d has a non-finite rest position", f)
			}
		}
	}
	if len(o) == 0 {
		return nil, fmt.Errorf("frames state %q has no frame", s.Base().Path())
	}
	return o, nil
}

// prepare computes the kernels on first use, and again from scratch if the
// frames changed other than by InsertFrame.
func (b *ShapeFunctionBase) prepare() error {
	st, err := b.resolveState()
	if err != nil {
		return b.wrap(err)
	}
	if b.ready && b.err == nil && st.Size() == len(b.origins)+len(b.splits) {
		return nil
	}
	if b.ready && b.err != nil && st.Size() == len(b.origins) {
		return b.err
	}
	o, err := restOrigins(st)
	if err != nil {
		return b.wrap(err)
	}
	b.origins, b.splits, b.ready = o, nil, true
	b.kernels, b.err = b.method.buildKernels(o)
	if b.err != nil {
		b.err = b.wrap(b.err)
	}
	return b.err
}

func (b *ShapeFunctionBase) wrap(err error) error {
	if b.owner == nil {
		return err
	}
	var se *graph.Error
	if errors.As(err, &se) {
		return err
	}
	return b.owner.Wrap(err)
}

// NumFrames returns the number of frames weighed (after the first
// evaluation), inserted frames included.
func (b *ShapeFunctionBase) NumFrames() int { return len(b.origins) + len(b.splits) }

// WeightsAt implements mapping.WeightProvider: normalised weights of at
// most nbRef frames (plus the frames inserted since), and their gradients,
// at every rest point (flat xyz).
func (b *ShapeFunctionBase) WeightsAt(restPoints []float64) (mapping.SkinningWeights, error) {
	return b.weightsAt(restPoints, false)
}

// WeightHessiansAt implements mapping.WeightHessianProvider: WeightsAt
// with the second derivatives of the weights, the Hessians of the
// normalised quotient w_f = K_f/S,
//
//	∇∇w_f = (∇∇K_f − w_f ∇∇S − ∇w_f ⊗ ∇S − ∇S ⊗ ∇w_f)/S,
//
// from the kernels' Hessians (analytic, or central differences of the
// voxel gradients), so Σ_f ∇∇w_f = 0 to rounding and affine frames moved
// affinely give ∇F = 0 exactly.
func (b *ShapeFunctionBase) WeightHessiansAt(restPoints []float64) (mapping.SkinningWeights, error) {
	return b.weightsAt(restPoints, true)
}

func (b *ShapeFunctionBase) weightsAt(restPoints []float64, hessians bool) (mapping.SkinningWeights, error) {
	if err := b.prepare(); err != nil {
		return mapping.SkinningWeights{}, err
	}
	n := len(restPoints) / 3
	out := mapping.SkinningWeights{Offsets: make([]int, 1, n+1)}
	if hessians {
		out.Hessians = []geom.Mat3{}
	}
	ev := newPointEvaluator(b)
	ev.hessians = hessians
	for i := 0; i < n; i++ {
		p := geom.At(restPoints, i)
		for a := 0; a < 3; a++ {
			if math.IsNaN(p[a]) || math.IsInf(p[a], 0) {
				return mapping.SkinningWeights{}, b.wrap(fmt.Errorf("rest point %d is not finite", i))
			}
		}
		infl := ev.at(p)
		for _, e := range infl {
			out.Frames = append(out.Frames, e.frame)
			out.Weights = append(out.Weights, e.w)
			out.Gradients = append(out.Gradients, e.g)
			if hessians {
				out.Hessians = append(out.Hessians, e.h)
			}
		}
		out.Offsets = append(out.Offsets, len(out.Frames))
	}
	return out, nil
}

// influence is one frame's weight, weight gradient and (when asked for)
// weight Hessian at a point.
type influence struct {
	frame int
	w     float64
	g     geom.Vec3
	h     geom.Mat3
}

// pointEvaluator evaluates weights point by point with reused buffers.
type pointEvaluator struct {
	b        *ShapeFunctionBase
	hessians bool
	w        []float64
	g        []geom.Vec3
	h        []geom.Mat3
	order    []int
	kept     []int
	infl     []influence
	pw       []float64
	pg       []geom.Vec3
	ph       []geom.Mat3
}

func newPointEvaluator(b *ShapeFunctionBase) *pointEvaluator {
	n := b.kernels.numFrames()
	return &pointEvaluator{b: b, w: make([]float64, n), g: make([]geom.Vec3, n), h: make([]geom.Mat3, n), order: make([]int, n)}
}

// at returns the influences at p (a view, valid until the next call).
func (e *pointEvaluator) at(p geom.Vec3) []influence {
	b := e.b
	var h []geom.Mat3
	if e.hessians {
		h = e.h
	}
	b.kernels.eval(p, e.w, e.g, h)
	for f := range e.order {
		e.order[f] = f
	}
	w := e.w
	// Stable insertion sort by decreasing kernel (frames are few).
	o := e.order
	for i := 1; i < len(o); i++ {
		for j := i; j > 0 && w[o[j]] > w[o[j-1]]; j-- {
			o[j], o[j-1] = o[j-1], o[j]
		}
	}
	kept := e.kept[:0]
	for _, f := range o {
		if len(kept) == b.NbRef || !(w[f] > 0) {
			break
		}
		kept = append(kept, f)
	}
	e.kept = kept
	e.infl = e.infl[:0]
	if len(kept) == 0 {
		// No kernel reaches p (a point outside the object beyond every
		// compact support): it follows the frame of nearest origin.
		f := e.b.nearestFrame(p)
		e.infl = append(e.infl, influence{frame: f, w: 1})
		for _, s := range b.splits {
			e.applySplit(s, p)
		}
		return e.infl
	}
	S := 0.0
	var G geom.Vec3
	var HS geom.Mat3
	for _, f := range kept {
		S += w[f]
		G = G.Add(e.g[f])
		if h != nil {
			HS = HS.Add(h[f])
		}
	}
	// Sort the kept frames by index for a stable, readable layout.
	sort.Ints(kept)
	for _, f := range kept {
		wf := w[f] / S
		in := influence{frame: f, w: wf, g: e.g[f].Sub(G.Scale(wf)).Scale(1 / S)}
		if h != nil {
			in.h = quotientHessian(h[f], HS, in.g, G, wf, S)
		}
		e.infl = append(e.infl, in)
	}
	for _, s := range b.splits {
		e.applySplit(s, p)
	}
	return e.infl
}

// applySplit moves the share φ(p) of the parent's weight to the child.
func (e *pointEvaluator) applySplit(s frameSplit, p geom.Vec3) {
	k := -1
	for i, in := range e.infl {
		if in.frame == s.parent {
			k = i
			break
		}
	}
	if k < 0 {
		return
	}
	nphi := s.phi.numFrames()
	if len(e.pw) < nphi {
		e.pw = make([]float64, nphi)
		e.pg = make([]geom.Vec3, nphi)
		e.ph = make([]geom.Mat3, nphi)
	}
	var ph []geom.Mat3
	if e.hessians {
		ph = e.ph[:nphi]
	}
	s.phi.eval(p, e.pw[:nphi], e.pg[:nphi], ph)
	phi, gphi := math.Min(1, math.Max(0, e.pw[s.phiIndex])), e.pg[s.phiIndex]
	var hphi geom.Mat3
	if ph != nil {
		hphi = ph[s.phiIndex]
	}
	if phi == 0 && gphi == (geom.Vec3{}) && hphi == (geom.Mat3{}) {
		return
	}
	wp, gp, hp := e.infl[k].w, e.infl[k].g, e.infl[k].h
	child := influence{frame: s.child, w: phi * wp, g: gp.Scale(phi).Add(gphi.Scale(wp))}
	if e.hessians {
		// ∇∇(φ w_p) = φ ∇∇w_p + ∇φ ⊗ ∇w_p + ∇w_p ⊗ ∇φ + w_p ∇∇φ.
		child.h = hp.Scale(phi).Add(gphi.Outer(gp)).Add(gp.Outer(gphi)).Add(hphi.Scale(wp))
	}
	// The parent keeps w_p − w_child exactly (not (1−φ)·w_p), so the two
	// sum to the old weight to the last bit.
	e.infl[k].w = wp - child.w
	e.infl[k].g = gp.Sub(child.g)
	e.infl[k].h = hp.Sub(child.h)
	e.infl = append(e.infl, child)
}

// InsertFrame adds the last frame of the frames' state (already resized,
// its rest coordinate set) to the weights, without changing the
// displacement field (Gilles et al. 2011 Sec. 4.4, made exact): the frame
// takes the share φ of the weight of its parent — the frame of largest
// weight at its rest origin — where φ is the new frame's own normalised
// weight computed by this shape function's method among every frame (1
// at its origin, decreasing away from it):
//
//	w_child = φ w_parent,   w_parent ← w_parent − w_child,
//
// with the gradients of these products. The other frames keep their
// weights, Σ w and Σ ∇w are unchanged to rounding, and if the child's
// current transform equals the parent's (T_child T̄_child⁻¹ =
// T_parent T̄_parent⁻¹, which the caller sets) every skinned point and
// every deformation gradient is unchanged: linear blend skinning blends
// w_child T + (w_parent − w_child) T = w_parent T, and dual-quaternion
// skinning blends the same dual quaternions with the same total weight.
// The new frame then moves freely and adds local deformation where φ
// w_parent > 0. It returns the parent.
func (b *ShapeFunctionBase) InsertFrame() (parent int, err error) {
	st, err := b.resolveState()
	if err != nil {
		return -1, b.wrap(err)
	}
	if !b.ready || b.err != nil {
		return -1, b.wrap(errors.New("InsertFrame before the weights were computed"))
	}
	if st.Size() != b.NumFrames()+1 {
		return -1, b.wrap(fmt.Errorf("InsertFrame: the frames' state has %d frames, want %d (resize it by one first)", st.Size(), b.NumFrames()+1))
	}
	all, err := restOrigins(st)
	if err != nil {
		return -1, b.wrap(err)
	}
	newF := len(all) - 1
	pNew := all[newF]
	ev := newPointEvaluator(b)
	infl := ev.at(pNew)
	parent, best := -1, -1.0
	for _, in := range infl {
		if in.w > best {
			parent, best = in.frame, in.w
		}
	}
	if parent < 0 {
		return -1, b.wrap(fmt.Errorf("InsertFrame: no frame influences the new frame's rest origin %v", pNew))
	}
	phi, err := b.method.buildKernels(all)
	if err != nil {
		return -1, b.wrap(fmt.Errorf("weights of the inserted frame: %w", err))
	}
	b.splits = append(b.splits, frameSplit{parent: parent, child: newF, phi: &normalisedKernel{k: phi}, phiIndex: newF})
	return parent, nil
}

// normalisedKernel evaluates the kernels of k normalised over all frames
// (no cut-off), with the quotient's gradient: φ_f = K_f/ΣK.
type normalisedKernel struct {
	k kernelEvaluator
}

func (n *normalisedKernel) numFrames() int { return n.k.numFrames() }

func (n *normalisedKernel) eval(p geom.Vec3, w []float64, g []geom.Vec3, h []geom.Mat3) {
	n.k.eval(p, w, g, h)
	S := 0.0
	var G geom.Vec3
	var HS geom.Mat3
	for f := range w {
		if w[f] < 0 {
			w[f], g[f] = 0, geom.Vec3{}
			if h != nil {
				h[f] = geom.Mat3{}
			}
		}
		S += w[f]
		G = G.Add(g[f])
		if h != nil {
			HS = HS.Add(h[f])
		}
	}
	if !(S > 0) {
		clear(w)
		clear(g)
		clear(h)
		return
	}
	for f := range w {
		w[f] /= S
		g[f] = g[f].Sub(G.Scale(w[f])).Scale(1 / S)
		if h != nil {
			h[f] = quotientHessian(h[f], HS, g[f], G, w[f], S)
		}
	}
}

// quotientHessian returns the Hessian of w = K/S from the Hessians of K
// and S, the gradient of w and of S, w and S:
// (∇∇K − w ∇∇S − ∇w ⊗ ∇S − ∇S ⊗ ∇w)/S.
func quotientHessian(HK, HS geom.Mat3, gw, gS geom.Vec3, w, S float64) geom.Mat3 {
	return HK.Sub(HS.Scale(w)).Sub(gw.Outer(gS)).Sub(gS.Outer(gw)).Scale(1 / S)
}

// frameInsertable is implemented by the shape functions of this package.
type frameInsertable interface {
	InsertFrame() (parent int, err error)
	WeightsAt(restPoints []float64) (mapping.SkinningWeights, error)
}

// findMaterialGrid returns the grid linked, or the first MaterialGrid in
// the node or its ancestors.
func findMaterialGrid(link graph.Link, node *graph.Node) (*MaterialGrid, error) {
	if link.IsSet() {
		g, ok := link.Object.(*MaterialGrid)
		if !ok {
			return nil, fmt.Errorf("grid %q is not a MaterialGrid", link.Path)
		}
		return g, nil
	}
	for n := node; n != nil; n = n.Parent {
		for _, o := range n.Objects {
			if g, ok := o.(*MaterialGrid); ok {
				return g, nil
			}
		}
	}
	return nil, errors.New("no MaterialGrid: give grid (a link) or put a MaterialGrid in this node or an ancestor")
}

// voxelField is a kernel sampled at the voxel centres, with central
// differences as gradients, evaluated anywhere by trilinear interpolation
// over the voxel centres (Voxels.interpolation). Hessians, when first
// asked for, are the central differences of the gradients' components,
// symmetrised, interpolated the same way.
type voxelField struct {
	g    *Voxels
	val  [][]float64   // [frame][voxel]
	grad [][]geom.Vec3 // [frame][voxel]
	hess [][]geom.Mat3 // [frame][voxel], nil until needed
}

func newVoxelField(g *Voxels, values [][]float64) *voxelField {
	f := &voxelField{g: g, val: values, grad: make([][]geom.Vec3, len(values))}
	for k, vals := range values {
		f.grad[k] = centralDifferences(g, vals)
	}
	return f
}

func (f *voxelField) numFrames() int { return len(f.val) }

func (f *voxelField) eval(p geom.Vec3, w []float64, g []geom.Vec3, h []geom.Mat3) {
	var vox [8]int
	var s [8]float64
	n := f.g.interpolation(p, &vox, &s)
	if h != nil && f.hess == nil {
		f.buildHessians()
	}
	for k := range f.val {
		val, grad := f.val[k], f.grad[k]
		sum := 0.0
		var gs geom.Vec3
		for i := 0; i < n; i++ {
			sum += s[i] * val[vox[i]]
			gs = gs.Add(grad[vox[i]].Scale(s[i]))
		}
		w[k], g[k] = sum, gs
		if h != nil {
			var hs geom.Mat3
			for i := 0; i < n; i++ {
				hs = hs.Add(f.hess[k][vox[i]].Scale(s[i]))
			}
			h[k] = hs
		}
	}
}

// buildHessians computes the voxel Hessians: H[a][b] = ½ (∂_b g_a + ∂_a
// g_b), the derivatives by centralDifferences of each gradient component.
func (f *voxelField) buildHessians() {
	f.hess = make([][]geom.Mat3, len(f.val))
	comp := make([]float64, f.g.NumVoxels())
	for k, grad := range f.grad {
		H := make([]geom.Mat3, len(grad))
		for a := 0; a < 3; a++ {
			for v := range grad {
				comp[v] = grad[v][a]
			}
			d := centralDifferences(f.g, comp)
			for v := range H {
				for b := 0; b < 3; b++ {
					H[v][3*a+b] += 0.5 * d[v][b]
					H[v][3*b+a] += 0.5 * d[v][b]
				}
			}
		}
		f.hess[k] = H
	}
}

// centralDifferences returns the gradient of a voxel field: along each
// axis (w(+h) − w(−h))/2h where both neighbours are material, a one-sided
// difference where only one is, 0 where neither is (Gilles et al. 2011
// Sec. 4.1, "central differences in the weight map").
//
// At an interface between materials (neighbours of another Young's
// modulus) the difference is taken within the voxel's own material when a
// neighbour of that material exists: material-aware weights are flat in a
// stiff part and steep in the soft part next to it, and a central
// difference across the kink would give the stiff voxel the average slope,
// hence spurious strain in a part meant to move rigidly.
func centralDifferences(g *Voxels, w []float64) []geom.Vec3 {
	out := make([]geom.Vec3, len(w))
	for v := range w {
		i, j, k := g.CellCoords(int(g.Cells[v]))
		ijk := [3]int{i, j, k}
		for a := 0; a < 3; a++ {
			var lo, hi = -1, -1
			if ijk[a] > 0 {
				o := ijk
				o[a]--
				lo = int(g.Index[g.CellIndex(o[0], o[1], o[2])])
			}
			if ijk[a]+1 < g.Dims[a] {
				o := ijk
				o[a]++
				hi = int(g.Index[g.CellIndex(o[0], o[1], o[2])])
			}
			sameLo := lo >= 0 && g.Young[lo] == g.Young[v]
			sameHi := hi >= 0 && g.Young[hi] == g.Young[v]
			if sameLo != sameHi {
				// One neighbour of each material: keep the voxel's own.
				if !sameLo {
					lo = -1
				} else {
					hi = -1
				}
			}
			h := g.Spacing[a]
			switch {
			case lo >= 0 && hi >= 0:
				out[v][a] = (w[hi] - w[lo]) / (2 * h)
			case hi >= 0:
				out[v][a] = (w[hi] - w[v]) / h
			case lo >= 0:
				out[v][a] = (w[v] - w[lo]) / h
			}
		}
	}
	return out
}

// nearestFrame returns the base frame whose rest origin is nearest p.
func (b *ShapeFunctionBase) nearestFrame(p geom.Vec3) int {
	best, bestD := 0, math.Inf(1)
	for f, o := range b.origins {
		if d := o.Sub(p).Norm2(); d < bestD {
			best, bestD = f, d
		}
	}
	return best
}
