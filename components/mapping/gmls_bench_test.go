package mapping_test

import (
	"math/rand/v2"
	"testing"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
)

// BenchmarkGMLSMappingStep is what a solver step asks of GMLSMapping on a
// 1,000-node solid (a jittered 10 × 10 × 10 lattice of spacing 0.1,
// support radius 0.18: about 22 neighbours per sample) with 1,000 F332
// samples (elastons: about one per node in Martin et al. 2010): one Apply,
// one ApplyJ and one ApplyJT (a CG iteration does the last two), for
// linear (Affine3) and quadratic (Quadratic3) nodes.
//
//	go test -run '^$' -bench GMLSMappingStep -cpu 1,2 -benchtime 5x ./components/mapping/
func BenchmarkGMLSMappingStep(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 3))
	var centres []geom.Vec3
	for i := 0; i < 10; i++ {
		for j := 0; j < 10; j++ {
			for k := 0; k < 10; k++ {
				centres = append(centres, geom.Vec3{0.1 * (float64(i) + 0.3*rng.Float64()), 0.1 * (float64(j) + 0.3*rng.Float64()), 0.1 * (float64(k) + 0.3*rng.Float64())})
			}
		}
	}
	var pts []float64
	for len(pts) < 3*1000 {
		pts = append(pts, 0.05+0.9*rng.Float64(), 0.05+0.9*rng.Float64(), 0.05+0.9*rng.Float64())
	}
	for _, pt := range []graph.Template{graph.Affine3, graph.Quadratic3} {
		rest := gmlsRest(pt, centres)
		pos := make([]float64, len(rest))
		for i := range pos {
			pos[i] = rest[i] + 0.01*rng.NormFloat64()
		}
		m, child := buildGMLS(b, pt, rest, pos, graph.F332, pts, []float64{0.18})
		v := make([]float64, len(pos))
		for i := range v {
			v[i] = rng.NormFloat64()
		}
		cx := make([]float64, child.Size()*36)
		cv := make([]float64, len(cx))
		f := make([]float64, len(v))
		b.Run(pt.Name(), func(b *testing.B) {
			for b.Loop() {
				m.Apply(cx, pos)
				m.ApplyJ(cv, v)
				clear(f)
				m.ApplyJT(f, cv)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1000, "ns/sample")
		})
	}
}
