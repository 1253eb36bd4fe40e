package mapping

import (
	"errors"
	"fmt"
	"math"
	"runtime"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/parallel"
)

// This file holds what the two skinning mappings (LinearBlendSkinningMapping
// and DualQuaternionSkinningMapping) share: the weights of the frames at
// the mapped points, where they come from, the rest positions of the
// points, and the two interfaces through which the frame-based
// discretisation (package shapefunction: shape functions and samplers)
// hands them over.
//
// The contract, in short:
//
//   - A skinning mapping maps a parent state of frames (Rigid3, or Affine3
//     for linear blend skinning) to a child state that is either Vec3
//     (points: masses, contacts, visuals), F331 (the deformation gradient
//     F = ∂x/∂X at integration samples, for DeformationGradientForceField)
//     or, for linear blend skinning, F332 (F and its gradient ∂F/∂X at the
//     samples' centres, whose weights then also need their Hessians).
//   - Each child DOF p has a rest (material) position X_p, in world
//     coordinates of the rest configuration, and a short list of
//     influencing frames with weights w and weight gradients ∇w = ∂w/∂X
//     (SkinningWeights). Gradients are needed for F331 children only.
//   - The frames' rest transforms are the parent's RestPosition; the
//     mapping blends the rest-relative transforms Tᵢ T̄ᵢ⁻¹.

// SkinningWeights are the influences of the frames on a list of points,
// stored compressed by point (CSR): the influences of point p are the
// entries e in [Offsets[p], Offsets[p+1]), each with a frame index
// Frames[e] (a DOF of the parent state), a weight Weights[e] and, when
// the mapping computes deformation gradients, the weight gradient
// Gradients[e] = ∂w/∂X at the point's rest position (per unit length).
//
// Linear blend skinning needs a partition of unity (Σ w = 1 at every
// point, hence Σ ∇w = 0) to reproduce rigid and affine motions; the
// mapping checks Σ w = 1 to 1e-9 and reports a point that breaks it. Dual
// quaternion skinning normalises the blend, so any positive scale of the
// weights gives the same map (Gilles et al. 2011, Sec. 4.1); it only needs
// Σ w > 0. A frame may appear at most once per point.
//
// Second-order samples (F332) also need the weight Hessians
// Hessians[e] = ∂²w/∂X² (symmetric, 1/m²), which must sum to zero over a
// point (Σ w = 1) for affine motions to give ∇F = 0 exactly.
type SkinningWeights struct {
	Offsets   []int       // len = number of points + 1; Offsets[0] = 0, non-decreasing
	Frames    []int       // frame (parent DOF) of each entry
	Weights   []float64   // weight of each entry
	Gradients []geom.Vec3 // ∂w/∂X of each entry (1/m); nil when only points are mapped
	Hessians  []geom.Mat3 // ∂²w/∂X² of each entry (1/m²); nil unless F332 samples are mapped
}

// NewSkinningWeights packs per-point lists into SkinningWeights. gradients
// may be nil (points only); otherwise each of its lists has the length of
// the corresponding frames list.
func NewSkinningWeights(frames [][]int, weights [][]float64, gradients [][]geom.Vec3) (SkinningWeights, error) {
	if len(weights) != len(frames) {
		return SkinningWeights{}, fmt.Errorf("weights has %d points but indices has %d", len(weights), len(frames))
	}
	if gradients != nil && len(gradients) != len(frames) {
		return SkinningWeights{}, fmt.Errorf("weightGradients has %d points but indices has %d", len(gradients), len(frames))
	}
	var w SkinningWeights
	w.Offsets = make([]int, 1, len(frames)+1)
	for p := range frames {
		if len(weights[p]) != len(frames[p]) {
			return SkinningWeights{}, fmt.Errorf("point %d: %d weights for %d frame indices", p, len(weights[p]), len(frames[p]))
		}
		if gradients != nil && len(gradients[p]) != len(frames[p]) {
			return SkinningWeights{}, fmt.Errorf("point %d: %d weight gradients for %d frame indices", p, len(gradients[p]), len(frames[p]))
		}
		w.Frames = append(w.Frames, frames[p]...)
		w.Weights = append(w.Weights, weights[p]...)
		if gradients != nil {
			w.Gradients = append(w.Gradients, gradients[p]...)
		}
		w.Offsets = append(w.Offsets, len(w.Frames))
	}
	return w, nil
}

// NumPoints returns the number of points the weights describe.
func (w *SkinningWeights) NumPoints() int {
	if len(w.Offsets) == 0 {
		return 0
	}
	return len(w.Offsets) - 1
}

// Influences returns the frames, weights and gradients (nil when absent)
// of point p, as views into w.
func (w *SkinningWeights) Influences(p int) (frames []int, weights []float64, gradients []geom.Vec3) {
	lo, hi := w.Offsets[p], w.Offsets[p+1]
	if w.Gradients != nil {
		gradients = w.Gradients[lo:hi]
	}
	return w.Frames[lo:hi], w.Weights[lo:hi], gradients
}

// Clone returns a deep copy.
func (w SkinningWeights) Clone() SkinningWeights {
	c := SkinningWeights{
		Offsets: append([]int(nil), w.Offsets...),
		Frames:  append([]int(nil), w.Frames...),
		Weights: append([]float64(nil), w.Weights...),
	}
	if w.Gradients != nil {
		c.Gradients = append([]geom.Vec3(nil), w.Gradients...)
	}
	if w.Hessians != nil {
		c.Hessians = append([]geom.Mat3(nil), w.Hessians...)
	}
	return c
}

// partitionTolerance is how far Σ w may be from 1 for linear blend
// skinning. Normalised weights sum to 1 to a few ulps; anything further
// off is a shape function that was not normalised, which would scale the
// whole object (x = (Σ w) X at rest).
const partitionTolerance = 1e-9

// Check verifies the weights for numFrames frames and numPoints points:
// consistent lengths, frame indices in range and not repeated within a
// point, finite values, gradients present when needGradients (and
// Hessians when needHessians), and the sum condition (partition of unity
// when partition, else Σ w > 0).
func (w *SkinningWeights) Check(numFrames, numPoints int, needGradients, needHessians, partition bool) error {
	if len(w.Offsets) != numPoints+1 {
		return fmt.Errorf("weights are given for %d points, want %d", w.NumPoints(), numPoints)
	}
	if w.Offsets[0] != 0 || w.Offsets[numPoints] != len(w.Frames) || len(w.Weights) != len(w.Frames) {
		return fmt.Errorf("weights: inconsistent lengths (offsets end at %d, %d frame indices, %d weights)", w.Offsets[numPoints], len(w.Frames), len(w.Weights))
	}
	if needGradients && len(w.Gradients) != len(w.Frames) {
		return fmt.Errorf("deformation gradients need weight gradients: %d given for %d influences", len(w.Gradients), len(w.Frames))
	}
	if needHessians && len(w.Hessians) != len(w.Frames) {
		return fmt.Errorf("F332 samples (the gradient of F) need the weights' second derivatives: %d Hessians given for %d influences", len(w.Hessians), len(w.Frames))
	}
	for p := 0; p < numPoints; p++ {
		lo, hi := w.Offsets[p], w.Offsets[p+1]
		if hi < lo {
			return fmt.Errorf("weights: offsets decrease at point %d", p)
		}
		if hi == lo {
			return fmt.Errorf("point %d has no influencing frame", p)
		}
		sum := 0.0
		for e := lo; e < hi; e++ {
			f := w.Frames[e]
			if f < 0 || f >= numFrames {
				return fmt.Errorf("point %d: frame index %d is out of range (the input state has %d frames)", p, f, numFrames)
			}
			for e2 := lo; e2 < e; e2++ {
				if w.Frames[e2] == f {
					return fmt.Errorf("point %d: frame %d is listed twice", p, f)
				}
			}
			if !finite(w.Weights[e]) {
				return fmt.Errorf("point %d: weight of frame %d is not finite", p, f)
			}
			if e < len(w.Gradients) {
				g := w.Gradients[e]
				if !finite(g[0]) || !finite(g[1]) || !finite(g[2]) {
					return fmt.Errorf("point %d: weight gradient of frame %d is not finite", p, f)
				}
			}
			if e < len(w.Hessians) {
				for _, h := range w.Hessians[e] {
					if !finite(h) {
						return fmt.Errorf("point %d: weight Hessian of frame %d is not finite", p, f)
					}
				}
			}
			sum += w.Weights[e]
		}
		if partition && math.Abs(sum-1) > partitionTolerance {
			return fmt.Errorf("point %d: weights sum to %.12g; linear blend skinning needs a partition of unity (normalise the shape function)", p, sum)
		}
		if !partition && !(sum > 0) {
			return fmt.Errorf("point %d: weights sum to %g; dual quaternion skinning needs a positive sum", p, sum)
		}
	}
	return nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// WeightProvider is implemented by shape functions (package shapefunction):
// it gives the weights of the frames, and their gradients, at any rest
// positions.
//
// A skinning mapping without explicit weights (neither SetWeights nor the
// indices/weights fields) uses the WeightProvider its shapeFunction link
// points to, or else the first object implementing WeightProvider in its
// own node, then in each ancestor node, nearest first (SOFA Flexible's
// shape function sits in the frames' node, the mappings in child nodes).
//
// WeightsAt is called from the mapping's Init, in the mapping phase: every
// state (including the frames') is initialised by then, but the provider's
// own Init may not have run (it runs in the phase of its kind), so a
// provider must be able to compute on demand. It is called again by
// Reinit (frames inserted or samples changed). restPoints are flat
// [x y z ...] world rest coordinates; the result must have one point per
// rest point, frame indices into the mapping's parent state, and
// Gradients filled (the mapping ignores them for Vec3 children).
type WeightProvider interface {
	graph.Object
	WeightsAt(restPoints []float64) (SkinningWeights, error)
}

// WeightHessianProvider is implemented by shape functions that also give
// the second derivatives of the weights (package shapefunction: analytic
// for Shepard and barycentric weights, central differences of the voxel
// gradients for the grid methods). A skinning mapping onto F332 samples
// asks it instead of WeightsAt; the result has Hessians filled.
type WeightHessianProvider interface {
	WeightProvider
	WeightHessiansAt(restPoints []float64) (SkinningWeights, error)
}

// SamplePointProvider is implemented by integration samplers (package
// shapefunction): it gives the rest positions of the samples, in the order
// of the DOFs of the F331 state the samples live in.
//
// A skinning mapping onto an F331 child without restPoints (field or
// SetRestPoints) uses the SamplePointProvider its samples link points to,
// or else the first one found in its own node, then in each ancestor
// node, nearest first. It is asked at Init and again at Reinit.
type SamplePointProvider interface {
	graph.Object
	SamplePoints() ([]float64, error)
}

// SkinningInputs holds the scene fields and the Go inputs both skinning
// mappings share: input/output states (MappingIO), rest positions of the
// mapped points, and their weights.
//
// Where each comes from, first match wins:
//
//	rest points: SetRestPoints; restPoints; the samples link; for a Vec3
//	  child, the child's own rest positions (its topology or positions);
//	  for an F331 or F332 child, a SamplePointProvider in the node or an
//	  ancestor.
//	weights:     SetWeights; indices + weights (+ weightGradients); the
//	  shapeFunction link; a WeightProvider in the node or an ancestor.
//
// Re-initialisation (frames inserted at run time, Gilles Sec. 4.4): after
// the parent state has been resized and its new frames given rest and
// current coordinates, call SetWeights and/or SetRestPoints when the
// inputs are Go-provided, then Reinit. Reinit re-reads the parent's rest
// frames, asks the providers again for whatever came from a provider (the
// scene fields and Go inputs are kept), re-checks everything, resizes the
// child when the number of points changed (keeping the leading DOFs'
// vectors, as State.Resize does), and maps the parent's RestPosition,
// Position and Velocity onto the child. The mapping keeps no other state
// across steps (its linearisation caches are rebuilt by every Apply), so
// nothing else is lost. Frame indices refer to parent DOFs, so insert new
// frames at the end of the parent state (or renumber the weights).
type SkinningInputs struct {
	MappingIO
	ShapeFunction graph.Link `toml:"shapeFunction" doc:"shape function giving the weights of the frames (a WeightProvider, e.g. \"@../weights\"); default: the indices/weights fields, else a WeightProvider in this node or the nearest ancestor"`
	PointInputs
	IndicesIn         [][]int        `toml:"indices" doc:"frames (parent DOF indices) influencing each child DOF" range:"[0,inf)"`
	WeightsIn         [][]float64    `toml:"weights" doc:"weight of each frame listed in indices, per child DOF (a partition of unity for linear blend skinning)"`
	WeightGradientsIn [][][3]float64 `toml:"weightGradients" doc:"gradient ∂w/∂X of each weight, per child DOF (needed for F331 and F332 children)" unit:"1/m"`
	WeightHessiansIn  [][][9]float64 `toml:"weightHessians" doc:"second derivatives ∂²w/∂X² of each weight (3×3 row-major), per child DOF (needed for F332 children)" unit:"1/m^2"`

	goWeights *SkinningWeights

	// Resolved at Init/Reinit.
	weights         SkinningWeights
	weightsFrom     inputSource
	weightProvider  WeightProvider
	gradientsOutput bool // child is F331 or F332
	hessiansOutput  bool // child is F332
	affineFrames    bool // parent is Affine3
	quadraticFrames bool // parent is Quadratic3
}

// PointInputs are the rest (material) positions of a mapping's child DOFs,
// shared by the skinning mappings and GMLSMapping. First match wins:
// SetRestPoints; the restPoints field; the samples link (a
// SamplePointProvider); for a Vec3 child, the child's own rest positions;
// else a SamplePointProvider in the mapping's node or the nearest
// ancestor (how F331 and F332 samples get their positions).
type PointInputs struct {
	Samples      graph.Link   `toml:"samples" doc:"sampler giving the rest positions of the child DOFs (a SamplePointProvider); default: restPoints, else (Vec3) the child's rest positions, (F331, F332) a SamplePointProvider in this node or the nearest ancestor"`
	RestPointsIn [][3]float64 `toml:"restPoints" doc:"rest (material) position of each child DOF, world coordinates of the rest configuration" unit:"m"`

	goPoints []float64

	// Resolved at Init/Reinit.
	rest          []float64 // X_p, flat
	pointsFrom    inputSource
	pointProvider SamplePointProvider
}

type inputSource int

const (
	fromGo inputSource = iota + 1
	fromField
	fromProvider
	fromChild
)

// SetWeights sets the weights from Go (a copy is kept); they take
// precedence over the scene fields and providers. Call Reinit (or Init,
// before the scene is initialised) to apply them.
func (s *SkinningInputs) SetWeights(w SkinningWeights) {
	c := w.Clone()
	s.goWeights = &c
}

// SetRestPoints sets the rest positions of the child DOFs from Go (flat
// [x y z ...], copied); they take precedence over the scene field and the
// providers. Call Reinit (or Init) to apply them.
func (s *PointInputs) SetRestPoints(points []float64) {
	s.goPoints = append([]float64(nil), points...)
}

// Weights returns the weights in use (after Init), as a view: do not modify.
func (s *SkinningInputs) Weights() *SkinningWeights { return &s.weights }

// RestPoints returns the rest positions of the child DOFs in use (after
// Init), flat [x y z ...], as a view: do not modify.
func (s *PointInputs) RestPoints() []float64 { return s.rest }

// GradientsOutput reports whether the child is an F331 or F332 state
// (deformation gradients) rather than Vec3 points.
func (s *SkinningInputs) GradientsOutput() bool { return s.gradientsOutput }

// validateFields checks the scene fields that do not need the states.
func (s *SkinningInputs) validateFields() error {
	if len(s.WeightsIn) > 0 || len(s.WeightGradientsIn) > 0 || len(s.WeightHessiansIn) > 0 {
		if len(s.IndicesIn) == 0 {
			return errors.New("weights/weightGradients/weightHessians need indices (the frames each weight belongs to)")
		}
	}
	if len(s.IndicesIn) > 0 {
		if len(s.WeightsIn) != len(s.IndicesIn) {
			return fmt.Errorf("indices has %d points but weights has %d", len(s.IndicesIn), len(s.WeightsIn))
		}
		if s.ShapeFunction.IsSet() {
			return errors.New("give indices/weights or shapeFunction, not both")
		}
	}
	if len(s.RestPointsIn) > 0 && s.Samples.IsSet() {
		return errors.New("give restPoints or samples, not both")
	}
	if len(s.IndicesIn) > 0 && len(s.RestPointsIn) > 0 && len(s.IndicesIn) != len(s.RestPointsIn) {
		return fmt.Errorf("indices has %d points but restPoints has %d", len(s.IndicesIn), len(s.RestPointsIn))
	}
	return nil
}

// setup resolves the states and the inputs and checks them. It is the
// common part of Init (reinit = false: the child must be empty or already
// of the right size) and Reinit (reinit = true: the child is resized).
// allowAffine says whether Affine3 parents and F332 children are
// supported (linear blend skinning); partition whether the weights must be
// a partition of unity.
func (s *SkinningInputs) setup(b *graph.ObjectBase, typeName string, allowAffine, partition, reinit bool) error {
	if err := s.validateFields(); err != nil {
		return err
	}
	if err := s.resolve(b); err != nil {
		return err
	}
	s.affineFrames, s.quadraticFrames = false, false
	switch pt := s.from.Template().Name(); pt {
	case graph.Rigid3.Name():
	case graph.Affine3.Name(), graph.Quadratic3.Name():
		if !allowAffine {
			return fmt.Errorf("input state %q has template %s; %s needs Rigid3 frames (use LinearBlendSkinningMapping for affine or quadratic frames)", s.from.Base().Path(), pt, typeName)
		}
		s.affineFrames = pt == graph.Affine3.Name()
		s.quadraticFrames = pt == graph.Quadratic3.Name()
	default:
		want := "Rigid3"
		if allowAffine {
			want = "Rigid3, Affine3 or Quadratic3"
		}
		return fmt.Errorf("input state %q has template %s; %s needs %s frames", s.from.Base().Path(), pt, typeName, want)
	}
	switch ct := s.to.Template().Name(); ct {
	case graph.Vec3.Name():
		s.gradientsOutput, s.hessiansOutput = false, false
	case graph.F331.Name():
		s.gradientsOutput, s.hessiansOutput = true, false
	case graph.F332.Name():
		if !allowAffine {
			return fmt.Errorf("output state %q has template F332; %s maps to Vec3 points or F331 deformation gradients only (the gradient of F through the normalised dual-quaternion blend is not implemented): use LinearBlendSkinningMapping for F332 samples", s.to.Base().Path(), typeName)
		}
		s.gradientsOutput, s.hessiansOutput = true, true
	default:
		want := "Vec3 points or F331 deformation gradients"
		if allowAffine {
			want = "Vec3 points or F331 deformation gradients (or F332: F and its gradient)"
		}
		return fmt.Errorf("output state %q has template %s; %s maps to %s", s.to.Base().Path(), ct, typeName, want)
	}
	nFrames := s.from.Size()
	if nFrames == 0 {
		return fmt.Errorf("input state %q has no frames", s.from.Base().Path())
	}
	if err := s.resolvePoints(b, s.to, s.gradientsOutput, reinit); err != nil {
		return err
	}
	n := len(s.rest) / 3
	if n == 0 {
		return errors.New("no points to map: the rest point list is empty")
	}
	if err := s.resolveWeights(b, reinit); err != nil {
		return err
	}
	if err := s.weights.Check(nFrames, n, s.gradientsOutput, s.hessiansOutput, partition); err != nil {
		return err
	}
	if reinit {
		if s.to.Size() != n {
			s.to.Resize(n)
		}
		return nil
	}
	return sizeChild(s.to, n, "the rest points")
}

// resolvePoints sets s.rest (see PointInputs) for the child state to,
// which holds deformation gradients (F331, F332) when gradients is true.
func (s *PointInputs) resolvePoints(b *graph.ObjectBase, to graph.State, gradients, reinit bool) error {
	switch {
	case s.goPoints != nil:
		s.rest, s.pointsFrom = s.goPoints, fromGo
	case len(s.RestPointsIn) > 0:
		s.rest = make([]float64, 0, 3*len(s.RestPointsIn))
		for i, p := range s.RestPointsIn {
			if !finite(p[0]) || !finite(p[1]) || !finite(p[2]) {
				return fmt.Errorf("restPoints[%d] is not finite", i)
			}
			s.rest = append(s.rest, p[0], p[1], p[2])
		}
		s.pointsFrom = fromField
	case s.Samples.IsSet():
		pp, ok := s.Samples.Object.(SamplePointProvider)
		if !ok {
			return fmt.Errorf("samples %q is not a sampler (it does not implement SamplePointProvider)", s.Samples.Path)
		}
		s.pointProvider, s.pointsFrom = pp, fromProvider
	case s.pointsFrom == fromChild && reinit:
		// Keep the copy of the child's rest positions read at Init.
	case !gradients && to.Size() > 0:
		s.rest, s.pointsFrom = append([]float64(nil), to.Vec(graph.RestPosition)...), fromChild
	default:
		if s.pointProvider == nil {
			pp := findUp[SamplePointProvider](b.Node)
			if pp == nil {
				if gradients {
					return errors.New("no sample positions: give restPoints, a samples link to a sampler, or put a sampler in this node or an ancestor")
				}
				return errors.New("no points: give restPoints, a samples link, or positions (or a topology) to the child MechanicalObject")
			}
			s.pointProvider = pp
		}
		s.pointsFrom = fromProvider
	}
	if s.pointsFrom == fromProvider {
		pts, err := s.pointProvider.SamplePoints()
		if err != nil {
			return fmt.Errorf("sample points from %q: %w", s.pointProvider.Base().Path(), err)
		}
		if len(pts)%3 != 0 {
			return fmt.Errorf("sampler %q gave %d numbers, not a multiple of 3", s.pointProvider.Base().Path(), len(pts))
		}
		s.rest = append(s.rest[:0:0], pts...)
	}
	return nil
}

func (s *SkinningInputs) resolveWeights(b *graph.ObjectBase, reinit bool) error {
	n := len(s.rest) / 3
	switch {
	case s.goWeights != nil:
		s.weights, s.weightsFrom = *s.goWeights, fromGo
	case len(s.IndicesIn) > 0:
		var grads [][]geom.Vec3
		if len(s.WeightGradientsIn) > 0 {
			grads = make([][]geom.Vec3, len(s.WeightGradientsIn))
			for p, gs := range s.WeightGradientsIn {
				grads[p] = make([]geom.Vec3, len(gs))
				for k, g := range gs {
					grads[p][k] = g
				}
			}
		}
		w, err := NewSkinningWeights(s.IndicesIn, s.WeightsIn, grads)
		if err != nil {
			return err
		}
		if len(s.WeightHessiansIn) > 0 {
			if len(s.WeightHessiansIn) != len(s.IndicesIn) {
				return fmt.Errorf("weightHessians has %d points but indices has %d", len(s.WeightHessiansIn), len(s.IndicesIn))
			}
			for p, hs := range s.WeightHessiansIn {
				if len(hs) != len(s.IndicesIn[p]) {
					return fmt.Errorf("point %d: %d weight Hessians for %d frame indices", p, len(hs), len(s.IndicesIn[p]))
				}
				for _, h := range hs {
					w.Hessians = append(w.Hessians, geom.Mat3(h))
				}
			}
		}
		s.weights, s.weightsFrom = w, fromField
	case s.ShapeFunction.IsSet():
		wp, ok := s.ShapeFunction.Object.(WeightProvider)
		if !ok {
			return fmt.Errorf("shapeFunction %q is not a shape function (it does not implement WeightProvider)", s.ShapeFunction.Path)
		}
		s.weightProvider, s.weightsFrom = wp, fromProvider
	default:
		if s.weightProvider == nil {
			wp := findUp[WeightProvider](b.Node)
			if wp == nil {
				return errors.New("no weights: give indices and weights, a shapeFunction link, or put a shape function in this node or an ancestor")
			}
			s.weightProvider = wp
		}
		s.weightsFrom = fromProvider
	}
	if s.weightsFrom == fromProvider {
		var w SkinningWeights
		var err error
		if s.hessiansOutput {
			hp, ok := s.weightProvider.(WeightHessianProvider)
			if !ok {
				return fmt.Errorf("shape function %q gives no second derivatives of the weights, which F332 samples need (use a shape function of package shapefunction, or give indices, weights, weightGradients and weightHessians)", s.weightProvider.Base().Path())
			}
			w, err = hp.WeightHessiansAt(s.rest)
		} else {
			w, err = s.weightProvider.WeightsAt(s.rest)
		}
		if err != nil {
			return fmt.Errorf("weights from %q: %w", s.weightProvider.Base().Path(), err)
		}
		if w.NumPoints() != n {
			return fmt.Errorf("shape function %q gave weights for %d points, want %d", s.weightProvider.Base().Path(), w.NumPoints(), n)
		}
		s.weights = w.Clone()
	}
	return nil
}

// findUp returns the first object of type T in node n, then in its
// ancestors, nearest first; nil when there is none (or n is nil).
func findUp[T any](n *graph.Node) T {
	var zero T
	for ; n != nil; n = n.Parent {
		for _, o := range n.Objects {
			if t, ok := o.(T); ok {
				return t
			}
		}
	}
	return zero
}

// mapAll sets the child's rest position, position and velocity from the
// parent's, rest first so that the linearisation (used by ApplyJ for the
// velocity, and kept for the solvers) is that of the current position.
func mapAll(m graph.Mapping) {
	m.Apply(m.To().Vec(graph.RestPosition), m.From().Vec(graph.RestPosition))
	m.Apply(m.To().Vec(graph.Position), m.From().Vec(graph.Position))
	if v, pv := m.To().Vec(graph.Velocity), m.From().Vec(graph.Velocity); v != nil && pv != nil {
		m.ApplyJ(v, pv)
	}
}

// skinningChunk is the number of child DOFs per chunk of the parallel
// loops. The chunks are fixed by the number of points alone, and each
// chunk accumulates its parent contributions in its own buffer, summed in
// chunk order afterwards, so every result is bitwise identical whatever
// the number of goroutines.
const skinningChunk = 64

// chunkedLoop runs loop bodies over the child DOFs in fixed chunks on the
// shared worker pool (package parallel), and keeps the per-chunk parent
// accumulators of the transposed products. The chunk partition is fixed
// (skinningChunk points), so results combined in chunk order are identical
// for any number of workers.
type chunkedLoop struct {
	partial [][]float64 // per chunk, parent-derivative-sized accumulators
	runner  parallel.Runner

	// The current run, read by chunkRange; set before runner.Run.
	n       int
	body    func(c, lo, hi int)
	rangeFn func(lo, hi int) // chunkRange as a method value, built once
}

// numChunks returns the number of chunks of n points.
func numChunks(n int) int { return (n + skinningChunk - 1) / skinningChunk }

// run calls body(c, lo, hi) for every chunk c of [0, n). Small loops run on
// the calling goroutine (handing work to another costs microseconds).
func (l *chunkedLoop) run(n int, body func(c, lo, hi int)) {
	nc := numChunks(n)
	if runtime.GOMAXPROCS(0) <= 1 || n < 2*skinningChunk {
		for c := 0; c < nc; c++ {
			body(c, c*skinningChunk, min(n, (c+1)*skinningChunk))
		}
		return
	}
	if l.rangeFn == nil {
		l.rangeFn = l.chunkRange
	}
	l.n, l.body = n, body
	l.runner.Run(nc, 1, l.rangeFn)
	l.body = nil
}

// chunkRange runs the chunks [lo, hi) of the current run.
func (l *chunkedLoop) chunkRange(lo, hi int) {
	for c := lo; c < hi; c++ {
		l.body(c, c*skinningChunk, min(l.n, (c+1)*skinningChunk))
	}
}

// accumulate runs body(acc, lo, hi) for every chunk with acc a zeroed
// buffer of size m owned by the chunk, then adds the buffers to out in
// chunk order.
func (l *chunkedLoop) accumulate(n, m int, out []float64, body func(acc []float64, lo, hi int)) {
	nc := numChunks(n)
	if nc == 1 {
		body(out, 0, n)
		return
	}
	for len(l.partial) < nc {
		l.partial = append(l.partial, nil)
	}
	l.run(n, func(c, lo, hi int) {
		if cap(l.partial[c]) < m {
			l.partial[c] = make([]float64, m)
		}
		acc := l.partial[c][:m]
		clear(acc)
		body(acc, lo, hi)
	})
	for c := 0; c < nc; c++ {
		acc := l.partial[c][:m]
		for i, v := range acc {
			out[i] += v
		}
	}
}
