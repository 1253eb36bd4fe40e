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
// − x_a|² inside the edge's closed slab (0 ≤ s ≤ 1) and zero beyond it,
// and their second derivatives are zero: exact, so one pair of affine
// frames with one integration sample of order 2 represents the exact
// pure-bending field of a bar (scenes/frames_elaston_bend.toml).
//
// With materialAware, the parameter is measured in compliance distance
// along the edge instead (Faure et al. 2011 Sec. 4.1, eq. 5: the ideal
// shape function of a heterogeneous bar, w_a(x) = ∫_x^{x_b} c / ∫_{x_a}^{x_b}
// c with the compliance c = 1/E): s = C(s_E)/C(1), C the cumulative
// compliance along the segment from x_a, sampled from the MaterialGrid's
// Young's moduli every quarter of the smallest voxel side and interpolated
// linearly, so a bar pulled along its frames' edges is reproduced exactly
// in 1-D whatever its stiffness profile. The gradient is that of the
// interpolant (∇s = C′/C(1) ∇s_E) and the Hessian is zero between table
// points.
//
// The weights are a partition of unity; nbRef (default 2) must be at
// least 2 for both frames of an edge to count. Frames cannot be inserted
// at run time into this shape function (there is no edge for them).
type BarycentricShapeFunction struct {
	graph.ObjectBase
	ShapeFunctionBase
	Edges         [][2]int   `toml:"edges" doc:"pairs of frames (indices into the frames' state) whose segments carry linear weights; default: consecutive frames 0–1, 1–2, … in state order" range:"[0,inf)"`
	MaterialAware bool       `toml:"materialAware" doc:"measure the position along an edge in compliance distance (∫ 1/E, from the MaterialGrid): Faure's ideal 1-D shape functions for a heterogeneous bar"`
	Grid          graph.Link `toml:"grid" doc:"voxel grid with the Young's moduli (materialAware; default: the first MaterialGrid in this node or an ancestor)"`
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

// Init validates (and finds the grid when materialAware); the weights are
// computed when first asked for.
func (s *BarycentricShapeFunction) Init() error {
	s.setup(&s.ObjectBase, s)
	if err := s.Validate(); err != nil {
		return s.Wrap(err)
	}
	if s.MaterialAware {
		if _, err := findMaterialGrid(s.Grid, s.Node); err != nil {
			return s.Wrap(err)
		}
	}
	return nil
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
	var g *Voxels
	if s.MaterialAware {
		grid, err := findMaterialGrid(s.Grid, s.Node)
		if err != nil {
			return nil, err
		}
		if g, err = grid.Voxels(); err != nil {
			return nil, err
		}
	}
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
		be := barycentricEdge{a: e[0], b: e[1], xa: o[e[0]], d: d, grad: d.Scale(1 / l2)}
		if g != nil {
			if err := be.complianceTable(g); err != nil {
				return nil, fmt.Errorf("edges[%d] = %v: %w", i, e, err)
			}
		}
		k.edges = append(k.edges, be)
	}
	return k, nil
}

type barycentricEdge struct {
	a, b  int
	xa, d geom.Vec3 // origin of a, x_b − x_a
	grad  geom.Vec3 // (x_b − x_a)/|x_b − x_a|²
	// materialAware: the normalised cumulative compliance at the
	// Euclidean parameters k/(len(cum)−1), from 0 to 1.
	cum []float64
}

// complianceTable samples 1/E along the edge (the voxel containing each
// point, or the nearest voxel) every quarter of the smallest voxel side and
// accumulates it by the midpoint rule into the normalised table cum.
func (e *barycentricEdge) complianceTable(g *Voxels) error {
	step := 0.25 * math.Min(g.Spacing[0], math.Min(g.Spacing[1], g.Spacing[2]))
	n := max(1, int(math.Ceil(e.d.Norm()/step)))
	e.cum = make([]float64, n+1)
	for i := 0; i < n; i++ {
		v := g.NearestVoxel(e.xa.Add(e.d.Scale((float64(i) + 0.5) / float64(n))))
		if v < 0 || !(g.Young[v] > 0) {
			return fmt.Errorf("no material along the edge")
		}
		e.cum[i+1] = e.cum[i] + 1/g.Young[v]
	}
	total := e.cum[n]
	for i := range e.cum {
		e.cum[i] /= total
	}
	return nil
}

// param returns the (material-aware) parameter at the Euclidean parameter
// t ∈ [0, 1] and its derivative in t.
func (e *barycentricEdge) param(t float64) (s, ds float64) {
	if e.cum == nil {
		return t, 1
	}
	n := len(e.cum) - 1
	u := t * float64(n)
	i := min(n-1, max(0, int(math.Floor(u))))
	slope := (e.cum[i+1] - e.cum[i]) * float64(n)
	return e.cum[i] + (u-float64(i))*slope/float64(n), slope
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
	case bestS < 0:
		w[e.a] = 1
	case bestS > 1:
		w[e.b] = 1
	default:
		// The closed slab 0 ≤ s ≤ 1 keeps the edge's gradient: a point
		// exactly on a frame between two edges (a voxel centred on a
		// frame) takes the gradient of one of them, not zero, so its
		// deformation gradient is that of the segment it closes.
		sv, ds := e.param(bestS)
		w[e.a], w[e.b] = 1-sv, sv
		g[e.a], g[e.b] = e.grad.Scale(-ds), e.grad.Scale(ds)
	}
}
