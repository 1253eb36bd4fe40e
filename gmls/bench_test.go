package gmls

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkGMLSShapeFunctions evaluates the shape functions of 1,000 nodes
// (a jittered 10 × 10 × 10 lattice of spacing 0.1, support radius 0.18: about
// 24 neighbours per point) at 8,000 points, as GMLSMapping's Init does for
// the samples of a 1,000-node solid: values (Vec3 points), gradients (F331)
// and Hessians (F332), linear and quadratic GMLS; in parallel over the points.
// Besides the wall time per point it reports the process's CPU time per
// point (cpu-ns/point, summed over the threads): on a shared, loaded
// machine the wall time includes waiting for a core.
//
//	go test -run '^$' -bench GMLSShapeFunctions -cpu 1,2 -benchtime 3x ./gmls/
func BenchmarkGMLSShapeFunctions(b *testing.B) {
	rng := rand.New(rand.NewPCG(2, 2))
	var nodes, pts []float64
	for i := 0; i < 10; i++ {
		for j := 0; j < 10; j++ {
			for k := 0; k < 10; k++ {
				nodes = append(nodes, 0.1*(float64(i)+0.3*rng.Float64()), 0.1*(float64(j)+0.3*rng.Float64()), 0.1*(float64(k)+0.3*rng.Float64()))
			}
		}
	}
	for len(pts) < 3*8000 {
		pts = append(pts, 0.05+0.9*rng.Float64(), 0.05+0.9*rng.Float64(), 0.05+0.9*rng.Float64())
	}
	for _, order := range []Order{Linear, Quadratic} {
		nd, err := NewNodes(order, nodes, []float64{0.18})
		if err != nil {
			b.Fatal(err)
		}
		for _, d := range []int{0, 1, 2} {
			b.Run(fmt.Sprintf("%s/derivs=%d", order, d), func(b *testing.B) {
				var ne int
				cpu0 := cpuNanos()
				for b.Loop() {
					sf, err := nd.Evaluate(pts, d)
					if err != nil {
						b.Fatal(err)
					}
					ne = len(sf.Nodes)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/8000, "ns/point")
				b.ReportMetric(float64(cpuNanos()-cpu0)/float64(b.N)/8000, "cpu-ns/point")
				b.ReportMetric(float64(ne)/8000, "neighbours/point")
			})
		}
	}
}
