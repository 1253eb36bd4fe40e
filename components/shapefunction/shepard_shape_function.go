package shapefunction

import (
	"math"

	"github.com/sofago/sofago/components/mapping"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
)

// ShepardShapeFunction weighs the frames by inverse Euclidean distance
// (Shepard 1968; SOFA Flexible's ShepardShapeFunction): the kernel of
// frame f at p is K_f = |p − x_f|^(−power), x_f the frame's rest origin,
// and the nbRef largest are normalised to a partition of unity
// (ShapeFunctionBase). At a frame's origin that frame has weight 1 and
// every other 0. Kernels and gradients are analytic (∇K_f =
// −power·K_f·(p − x_f)/|p − x_f|²), so no grid is needed; the weights
// ignore the material and the geometry (points close in space move
// together even across a gap, Gilles et al. 2011 Fig. 3).
type ShepardShapeFunction struct {
	graph.ObjectBase
	ShapeFunctionBase
	Power float64 `toml:"power" doc:"exponent of the inverse distance" range:"(0,inf)"`
}

func init() {
	graph.Register(graph.TypeInfo{
		Name:    "ShepardShapeFunction",
		Kind:    graph.KindTopology,
		Summary: "Frame weights by inverse Euclidean distance |p − x_f|^(−power), the nbRef largest normalised to a partition of unity, with analytic gradients (no grid needed).",
		New: func() graph.Object {
			return &ShepardShapeFunction{Power: 2, ShapeFunctionBase: ShapeFunctionBase{NbRef: DefaultNbRef}}
		},
	})
}

// Init validates; the weights are computed when first asked for (by the
// mappings), once the frames are placed.
func (s *ShepardShapeFunction) Init() error {
	s.setup(&s.ObjectBase, s)
	return nil
}

// WeightsAt implements mapping.WeightProvider (see ShapeFunctionBase).
func (s *ShepardShapeFunction) WeightsAt(restPoints []float64) (mapping.SkinningWeights, error) {
	s.setup(&s.ObjectBase, s)
	return s.ShapeFunctionBase.WeightsAt(restPoints)
}

// WeightHessiansAt implements mapping.WeightHessianProvider (analytic
// Hessians of the kernels; see ShapeFunctionBase).
func (s *ShepardShapeFunction) WeightHessiansAt(restPoints []float64) (mapping.SkinningWeights, error) {
	s.setup(&s.ObjectBase, s)
	return s.ShapeFunctionBase.WeightHessiansAt(restPoints)
}

// InsertFrame adds the last frame of the frames' state (see
// ShapeFunctionBase.InsertFrame).
func (s *ShepardShapeFunction) InsertFrame() (int, error) {
	s.setup(&s.ObjectBase, s)
	return s.ShapeFunctionBase.InsertFrame()
}

func (s *ShepardShapeFunction) buildKernels(o []geom.Vec3) (kernelEvaluator, error) {
	scale := 0.0
	for _, x := range o {
		scale = math.Max(scale, x.Sub(o[0]).Norm())
	}
	if scale == 0 {
		scale = 1
	}
	return &shepardKernel{origins: append([]geom.Vec3(nil), o...), power: s.Power, hit: 1e-12 * scale}, nil
}

type shepardKernel struct {
	origins []geom.Vec3
	power   float64
	hit     float64 // distance below which p is at a frame's origin
}

func (k *shepardKernel) numFrames() int { return len(k.origins) }

// eval: K = r^(−p), ∇K = −p K d/r², ∇∇K = −p K/r² (I − (p+2) d dᵀ/r²),
// d = x − x_f, r = |d|.
func (k *shepardKernel) eval(p geom.Vec3, w []float64, g []geom.Vec3, h []geom.Mat3) {
	for f, x := range k.origins {
		if p.Sub(x).Norm() <= k.hit {
			// At a frame's origin: that frame alone (interpolation).
			clear(w)
			clear(g)
			clear(h)
			w[f] = 1
			return
		}
	}
	for f, x := range k.origins {
		d := p.Sub(x)
		r2 := d.Norm2()
		K := math.Pow(r2, -0.5*k.power)
		w[f] = K
		g[f] = d.Scale(-k.power * K / r2)
		if h != nil {
			h[f] = geom.Identity3().Sub(d.Outer(d).Scale((k.power + 2) / r2)).Scale(-k.power * K / r2)
		}
	}
}
