package mapping_test

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/sofago/sofago/components/mapping"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
)

// nearestWeights gives each point the normalised Gaussian weights of its k
// nearest frames (with exact gradients of the truncated, renormalised
// kernels), the usual cut-off of frame-based models.
func nearestWeights(points []float64, centres []geom.Vec3, sigma float64, k int) mapping.SkinningWeights {
	n := len(points) / 3
	frames := make([][]int, n)
	weights := make([][]float64, n)
	grads := make([][]geom.Vec3, n)
	var hess []geom.Mat3
	for p := 0; p < n; p++ {
		X := geom.At(points, p)
		order := make([]int, len(centres))
		for i := range order {
			order[i] = i
		}
		sort.Slice(order, func(a, b int) bool {
			return X.Sub(centres[order[a]]).Norm2() < X.Sub(centres[order[b]]).Norm2()
		})
		sub := make([]geom.Vec3, k)
		for i := 0; i < k; i++ {
			sub[i] = centres[order[i]]
		}
		w := gaussianWeights(X[:], sub, sigma)
		_, ws, gs := w.Influences(0)
		frames[p] = order[:k]
		weights[p] = ws
		grads[p] = gs
		hess = append(hess, w.Hessians...)
	}
	w, _ := mapping.NewSkinningWeights(frames, weights, grads)
	w.Hessians = hess
	return w
}

// benchSkinning sets up 1,000 samples in [−1, 1]³, each influenced by its 4
// nearest of 8 frames (at the corners of [−0.5, 0.5]³), deformed by random
// rotations of up to ±60° and translations.
func benchSkinning(b *testing.B, m skinningMapping, affine bool, ct graph.Template) (parentX, parentV, childF []float64) {
	return benchSkinningFrames(b, m, affine, false, ct)
}

// benchSkinningFrames is benchSkinning for rigid, affine or quadratic
// frames (quadratic: random linear parts and quadratic coefficients).
func benchSkinningFrames(b *testing.B, m skinningMapping, affine, quadratic bool, ct graph.Template) (parentX, parentV, childF []float64) {
	rng := rand.New(rand.NewPCG(1, 1))
	const nf, np = 8, 1000
	centres := make([]geom.Vec3, 0, nf)
	for _, x := range []float64{-0.5, 0.5} {
		for _, y := range []float64{-0.5, 0.5} {
			for _, z := range []float64{-0.5, 0.5} {
				centres = append(centres, geom.Vec3{x, y, z})
			}
		}
	}
	curT := make([]geom.Vec3, nf)
	for i := range curT {
		curT[i] = centres[i].Add(geom.Vec3{0.1 * rng.NormFloat64(), 0.1 * rng.NormFloat64(), 0.1 * rng.NormFloat64()})
	}
	var pt graph.Template
	var rest, pos []float64
	if quadratic {
		pt = graph.Quadratic3
		for i := range centres {
			rest = append(rest, restQuadratic(centres[i], geom.Identity3())...)
			c := restQuadratic(curT[i], randomAffine(rng))
			for j := 12; j < 30; j++ {
				if (j-3)%9 >= 3 {
					c[j] = 0.2 * rng.NormFloat64()
				}
			}
			pos = append(pos, c...)
		}
	} else if affine {
		pt = graph.Affine3
		restA, curA := make([]geom.Mat3, nf), make([]geom.Mat3, nf)
		for i := range restA {
			restA[i], curA[i] = geom.Identity3(), randomAffine(rng)
		}
		rest, pos = affineCoords(centres, restA), affineCoords(curT, curA)
	} else {
		pt = graph.Rigid3
		restQ, curQ := make([]geom.Quat, nf), make([]geom.Quat, nf)
		for i := range restQ {
			restQ[i] = geom.QuatIdentity()
			curQ[i] = geom.QuatFromAxisAngle(geom.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}, (2*rng.Float64()-1)*math.Pi/3)
		}
		rest, pos = rigidCoords(centres, restQ), rigidCoords(curT, curQ)
	}
	pts := randomPoints(rng, np)
	buildSkinning(b, m, pt, rest, pos, ct, pts, nearestWeights(pts, centres, 0.8, 4))
	parentV = make([]float64, nf*pt.DerivSize())
	for i := range parentV {
		parentV[i] = rng.NormFloat64()
	}
	childF = make([]float64, np*ct.DerivSize())
	for i := range childF {
		childF[i] = rng.NormFloat64()
	}
	return pos, parentV, childF
}

// BenchmarkSkinning measures one Apply, ApplyJ, ApplyJT and ApplyDJT of
// 1,000 samples × 4 frames for each mapping, parent and child template
// (the per-iteration cost of a CG step is ApplyJ + ApplyJT + ApplyDJT),
// and ApplyDJT with a new child force at every call (no reuse).
func BenchmarkSkinning(b *testing.B) {
	cases := []struct {
		name   string
		new    func() skinningMapping
		affine bool
	}{
		{"LBS-Rigid3", func() skinningMapping { return mapping.NewLinearBlendSkinningMapping() }, false},
		{"LBS-Affine3", func() skinningMapping { return mapping.NewLinearBlendSkinningMapping() }, true},
		{"DQS-Rigid3", func() skinningMapping { return mapping.NewDualQuaternionSkinningMapping() }, false},
	}
	for _, c := range cases {
		for _, ct := range []graph.Template{graph.Vec3, graph.F331} {
			m := c.new()
			x, v, f := benchSkinning(b, m, c.affine, ct)
			child := make([]float64, len(f)/ct.DerivSize()*ct.CoordSize())
			childV := make([]float64, len(f))
			parentF := make([]float64, len(v))
			prefix := c.name + "-" + ct.Name() + "/1000x4/"
			b.Run(prefix+"Apply", func(b *testing.B) {
				for b.Loop() {
					m.Apply(child, x)
				}
			})
			m.Apply(child, x)
			b.Run(prefix+"ApplyJ", func(b *testing.B) {
				for b.Loop() {
					m.ApplyJ(childV, v)
				}
			})
			b.Run(prefix+"ApplyJT", func(b *testing.B) {
				for b.Loop() {
					m.ApplyJT(parentF, f)
				}
			})
			// Repeated calls with one child force, as in a CG solve: DQS
			// switches to its assembled matrix after a few calls.
			b.Run(prefix+"ApplyDJT", func(b *testing.B) {
				for b.Loop() {
					m.ApplyDJT(parentF, v, f, 1)
				}
			})
			// A new child force at every call: the direct products.
			fNeg := make([]float64, len(f))
			for i := range f {
				fNeg[i] = -f[i]
			}
			b.Run(prefix+"ApplyDJT-newforce", func(b *testing.B) {
				i := 0
				for b.Loop() {
					if i%2 == 0 {
						m.ApplyDJT(parentF, v, f, 1)
					} else {
						m.ApplyDJT(parentF, v, fNeg, 1)
					}
					i++
				}
			})
		}
	}
}

// BenchmarkSkinningF332 measures the F332 mapping (F and ∇F per sample) of
// 1,000 samples × 4 frames for rigid, affine and quadratic frames, and the
// quadratic frames onto Vec3 and F331: Apply, ApplyJ, ApplyJT (and
// ApplyDJT for rigid frames), the per-sample cost is ns/op ÷ 1,000.
func BenchmarkSkinningF332(b *testing.B) {
	cases := []struct {
		name              string
		affine, quadratic bool
		ct                graph.Template
	}{
		{"Rigid3-F332", false, false, graph.F332},
		{"Affine3-F332", true, false, graph.F332},
		{"Quadratic3-F332", false, true, graph.F332},
		{"Quadratic3-F331", false, true, graph.F331},
		{"Quadratic3-Vec3", false, true, graph.Vec3},
	}
	for _, c := range cases {
		m := mapping.NewLinearBlendSkinningMapping()
		x, v, f := benchSkinningFrames(b, m, c.affine, c.quadratic, c.ct)
		child := make([]float64, len(f)/c.ct.DerivSize()*c.ct.CoordSize())
		childV := make([]float64, len(f))
		parentF := make([]float64, len(v))
		prefix := "LBS-" + c.name + "/1000x4/"
		b.Run(prefix+"Apply", func(b *testing.B) {
			for b.Loop() {
				m.Apply(child, x)
			}
		})
		m.Apply(child, x)
		b.Run(prefix+"ApplyJ", func(b *testing.B) {
			for b.Loop() {
				m.ApplyJ(childV, v)
			}
		})
		b.Run(prefix+"ApplyJT", func(b *testing.B) {
			for b.Loop() {
				m.ApplyJT(parentF, f)
			}
		})
		if !c.affine && !c.quadratic {
			b.Run(prefix+"ApplyDJT", func(b *testing.B) {
				for b.Loop() {
					m.ApplyDJT(parentF, v, f, 1)
				}
			})
		}
	}
}
