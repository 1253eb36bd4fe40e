package shapefunction

import (
	"fmt"
	"math"

	"github.com/sofago/sofago/components/mapping"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
)

// BarycentricShapeFunction gives frames placed along a line or polyline
// (a rod, a bar) weights that are linear along it: the barycentric
// coordinates of a point's projection on the nearest edge between two
// frames (SOFA Flexible's BarycentricShapeFunction on an edge mesh of the
// frames; Faure et al. 2011 Sec. 6.1, "aligned nodes and analytically
// computed linear shape functions").
//
// The edges join frames (indices into the frames' state); by default
// consecutive frames 0–1, 1–2, …, in state order. A point p takes the
// edge (a, b) of least distance to it (ties: the first listed), the
// parameter s = (p − x_a)·(x_b − x_a)/|x_b − x_a|² clamped to [0, 1], and
// the weights w_a = 1 − s, w_b = s; their gradients are ∓(x_b − x_a)/|x_b
// − x_a|² inside the edge's slab (0 < s < 1) and zero beyond its ends,
// and their second derivatives are zero: exact, so one pair of affine
// frames with one integration sample of order 2 represents the exact
// pure-bending field of a bar (scenes/frames_elaston_bend.toml).
//
// The weights are a partition of unity; nbRef (default 2) must be at
// least 2 for both frames of an edge to count. Frames cannot be inserted
// at run time into this shape function (there is no edge for them).
type BarycentricShapeFunction struct {
	graph.ObjectBase
	ShapeFunctionBase
	Edges [][2]int `toml:"edges" doc:"pairs of frames (indices into the frames' state) whose segments carry linear weights; default: consecutive frames 0–1, 1–2, … in state order" range:"[0,inf)"`
}

func init() {
	graph.Register(graph.TypeInfo{
		Name:    "BarycentricShapeFunction",
		Kind:    graph.KindTopology,
		Summary: "Weights linear along the edges between frames (barycentric coordinates of a point's projection on the nearest edge; SOFA Flexible's BarycentricShapeFunction on edges): exact linear shape functions for aligned frames, analytic gradients, zero Hessians.",
		New: func() graph.Object {
			return &BarycentricShapeFunction{ShapeFunctionBase: ShapeFunctionBase{NbRef: 2}}
		},
	})
}

// Validate checks the edges' indices (their range against the frames is
// checked when the weights are computed).
func (s *BarycentricShapeFunction) Validate() error {
	for i, e := range s.Edges {
		if e[0] == e[1] {
			return fmt.Errorf("edges[%d] = [%d, %d] joins a frame to itself", i, e[0], e[1])
		}
	}
	return nil
}

// Init validates; the weights are computed when first asked for.
func (s *BarycentricShapeFunction) Init() error {
	s.setup(&s.ObjectBase, s)
	return s.Wrap(s.Validate())
}

// WeightsAt implements mapping.WeightProvider.
func (s *BarycentricShapeFunction) WeightsAt(restPoints []float64) (mapping.SkinningWeights, error) {
	s.setup(&s.ObjectBase, s)
	return s.ShapeFunctionBase.WeightsAt(restPoints)
}

// WeightHessiansAt implements mapping.WeightHessianProvider (the Hessians
// are zero).
func (s *BarycentricShapeFunction) WeightHessiansAt(restPoints []float64) (mapping.SkinningWeights, error) {
	s.setup(&s.ObjectBase, s)
	return s.ShapeFunctionBase.WeightHessiansAt(restPoints)
}

func (s *BarycentricShapeFunction) buildKernels(o []geom.Vec3) (kernelEvaluator, error) {
	edges := s.Edges
	if len(edges) == 0 {
		for i := 0; i+1 < len(o); i++ {
			edges = append(edges, [2]int{i, i + 1})
		}
	}
	k := &barycentricKernel{n: len(o)}
	for i, e := range edges {
		for _, f := range e {
			if f < 0 || f >= len(o) {
				return nil, fmt.Errorf("edges[%d] = %v: frame %d is out of range (the frames' state has %d frames)", i, e, f, len(o))
			}
		}
		d := o[e[1]].Sub(o[e[0]])
		l2 := d.Norm2()
		if !(l2 > 0) {
			return nil, fmt.Errorf("edges[%d] = %v joins two frames at the same rest position", i, e)
		}
		k.edges = append(k.edges, barycentricEdge{a: e[0], b: e[1], xa: o[e[0]], d: d, grad: d.Scale(1 / l2)})
	}
	return k, nil
}

type barycentricEdge struct {
	a, b  int
	xa, d geom.Vec3 // origin of a, x_b − x_a
	grad  geom.Vec3 // (x_b − x_a)/|x_b − x_a|²
}

// barycentricKernel evaluates the edge weights; with a single frame (no
// edge) that frame has weight 1 everywhere.
type barycentricKernel struct {
	n     int
	edges []barycentricEdge
}

func (k *barycentricKernel) numFrames() int { return k.n }

func (k *barycentricKernel) eval(p geom.Vec3, w []float64, g []geom.Vec3, h []geom.Mat3) {
	clear(w)
	clear(g)
	clear(h)
	if len(k.edges) == 0 {
		w[0] = 1
		return
	}
	best, bestD, bestS := 0, math.Inf(1), 0.0
	for i, e := range k.edges {
		s := p.Sub(e.xa).Dot(e.grad)
		c := math.Min(1, math.Max(0, s))
		if d := p.Sub(e.xa.Add(e.d.Scale(c))).Norm2(); d < bestD {
			best, bestD, bestS = i, d, s
		}
	}
	e := k.edges[best]
	switch {
	case bestS <= 0:
		w[e.a] = 1
	case bestS >= 1:
		w[e.b] = 1
	default:
		w[e.a], w[e.b] = 1-bestS, bestS
		g[e.a], g[e.b] = e.grad.Scale(-1), e.grad
	}
}
