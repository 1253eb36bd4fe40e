package shapefunction

import (
	"errors"
	"math"

	"github.com/sofago/sofago/components/mapping"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
)

// KernelShapeFunction weighs scattered nodes (meshfree models) by the
// compactly supported kernel of the lecture notes' MLS weight (004,
// "Classical MLS"): K_f(p) = (1 − |p − x_f|²/ρ_f²)³ inside the support
// radius ρ_f, 0 outside, normalised over the nbRef largest to a
// partition of unity (ShapeFunctionBase). ρ_f = supportFactor × the
// distance from node f to its nearest other node, so the supports follow
// a sampling whose density varies. The kernel is C² where it is positive
// (and C¹ across the support's edge), nonzero with a nonzero gradient at
// the node itself, and its gradient and Hessian are analytic: unlike
// Shepard's inverse distance it has no flat spot at the nodes, so an
// integration sample may sit anywhere. With Affine3 nodes, linear blend
// skinning through these weights reproduces every affine field exactly
// (the weights are a partition of unity) — the role GMLS plays in the
// lecture, until a GMLS mapping replaces it.
type KernelShapeFunction struct {
	graph.ObjectBase
	ShapeFunctionBase
	SupportFactor float64 `toml:"supportFactor" doc:"support radius of each node's kernel, in units of the distance to its nearest other node" range:"(1,inf)"`
}

func init() {
	graph.Register(graph.TypeInfo{
		Name:    "KernelShapeFunction",
		Kind:    graph.KindTopology,
		Summary: "Node weights by the MLS kernel (1 − d²/ρ²)³ of the lecture notes, ρ = supportFactor × the nearest-node distance, the nbRef largest normalised to a partition of unity; analytic gradients and Hessians (meshfree models, no grid).",
		New: func() graph.Object {
			return &KernelShapeFunction{SupportFactor: 2.5, ShapeFunctionBase: ShapeFunctionBase{NbRef: 8}}
		},
	})
}

// Init validates; the weights are computed when first asked for.
func (s *KernelShapeFunction) Init() error {
	s.setup(&s.ObjectBase, s)
	return nil
}

// WeightsAt implements mapping.WeightProvider.
func (s *KernelShapeFunction) WeightsAt(restPoints []float64) (mapping.SkinningWeights, error) {
	s.setup(&s.ObjectBase, s)
	return s.ShapeFunctionBase.WeightsAt(restPoints)
}

// WeightHessiansAt implements mapping.WeightHessianProvider.
func (s *KernelShapeFunction) WeightHessiansAt(restPoints []float64) (mapping.SkinningWeights, error) {
	s.setup(&s.ObjectBase, s)
	return s.ShapeFunctionBase.WeightHessiansAt(restPoints)
}

func (s *KernelShapeFunction) buildKernels(o []geom.Vec3) (kernelEvaluator, error) {
	if len(o) < 2 {
		return nil, errors.New("KernelShapeFunction needs at least two nodes (the support radius is a multiple of the nearest-node distance)")
	}
	tree := newKDTree(o)
	k := &compactKernel{origins: append([]geom.Vec3(nil), o...), rho2: make([]float64, len(o))}
	for f, x := range o {
		d := math.Inf(1)
		for _, i := range tree.kNearest(x, 2) {
			if i != f {
				d = math.Min(d, x.Sub(o[i]).Norm())
			}
		}
		if d == 0 {
			return nil, errors.New("two nodes at the same position")
		}
		r := s.SupportFactor * d
		k.rho2[f] = r * r
	}
	return k, nil
}

type compactKernel struct {
	origins []geom.Vec3
	rho2    []float64
}

func (k *compactKernel) numFrames() int { return len(k.origins) }

// eval: with q = 1 − r²/ρ², K = q³, ∇K = −6 q² d/ρ², ∇∇K = 24 q d dᵀ/ρ⁴ −
// 6 q² I/ρ².
func (k *compactKernel) eval(p geom.Vec3, w []float64, g []geom.Vec3, h []geom.Mat3) {
	for f, x := range k.origins {
		d := p.Sub(x)
		r2 := d.Norm2()
		if r2 >= k.rho2[f] {
			w[f] = 0
			g[f] = geom.Vec3{}
			if h != nil {
				h[f] = geom.Mat3{}
			}
			continue
		}
		ir := 1 / k.rho2[f]
		q := 1 - r2*ir
		w[f] = q * q * q
		g[f] = d.Scale(-6 * q * q * ir)
		if h != nil {
			h[f] = d.Outer(d).Scale(24 * q * ir * ir).Sub(geom.Identity3().Scale(6 * q * q * ir))
		}
	}
}
