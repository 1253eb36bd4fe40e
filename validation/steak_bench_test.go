package validation

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sofago/sofago/components/shapefunction"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

// steakTable2 are Faure et al. 2011 Table 2's steak models: frames,
// integration samples and the frame rates the paper reports (a 2.67 GHz
// CPU, rendering and collision detection included).
var steakTable2 = []struct {
	frames, samples, nbRef int
	paperFPS               float64
}{{3, 10, 3, 500}, {10, 53, 2, 100}, {20, 140, 3, 40}}

// steakVariant edits scenes/frames_steak.toml into an interactive version
// of Table 2's steak: nf rigid frames placed automatically (nbRef
// influences per point: 10 frames with nbRef = 3 make 56 influence
// regions, more than Table 2's 53 samples, so that variant uses 2), ns
// samples of
// a SparseSampler (F331 with the midpoint rule, or F332 elastons with
// order-2 moments and the corotational law), linear blend skinning, one
// implicit Euler step of 10 ms per Step with at most 25 CG iterations,
// gravity, and a visual surface of 5,000 mapped points (a 50×25×4 grid of
// the slab's faces, the paper's 5k vertices) updated every step.
func steakVariant(t testing.TB, nf, ns, nbRef int, elastons bool) string {
	src := mustRead(t, "../scenes/frames_steak.toml")
	r := func(old, new string) { src = framesReplaceOnce(t, src, old, new) }
	r("dt = 1\ngravity = [0, 0, 0]", "dt = 0.01\ngravity = [0, -9.81, 0]")
	r(`  type = "StaticSolver"
  iterations = 40
  tolerance = 1e-10`, `  type = "EulerImplicitSolver"
  rayleighMass = 0.1
  rayleighStiffness = 0.1`)
	r(`  type = "CGLinearSolver"
  iterations = 1000
  tolerance = 1e-12`, `  type = "CGLinearSolver"
  iterations = 25
  tolerance = 1e-8`)
	r("count = 3\n", fmt.Sprintf("count = %d\n", nf))
	r("nbRef = 3\n", fmt.Sprintf("nbRef = %d\n", nbRef))
	sampler := fmt.Sprintf("type = \"SparseSampler\"\n    count = %d", ns)
	tmpl, law := "F331", ""
	if elastons {
		sampler += "\n    order = 2"
		tmpl, law = "F332", `materialName = "CorotationalLinear"`
	}
	r(`type = "DenseSampler"
    grid = "@../grid"
    resolution = [24, 8, 2]`, sampler)
	r(`template = "F331"`, `template = "`+tmpl+`"`)
	if law != "" {
		r(`materialName = "StVenantKirchhoff"`, law)
	}
	src = strings.ReplaceAll(src, "DualQuaternionSkinningMapping", "LinearBlendSkinningMapping")
	// The visual surface: 5,000 points on the slab's faces.
	var pts []string
	for i := 0; i < 50; i++ {
		for j := 0; j < 25; j++ {
			x, y := 1.2*float64(i)/49, 0.4*float64(j)/24
			for _, z := range []float64{0, 0.1} {
				pts = append(pts, fmt.Sprintf("[%.4g, %.4g, %g]", x, y, z))
			}
		}
	}
	for len(pts) < 5000 {
		k := len(pts) - 2500
		x := 1.2 * float64(k%50) / 49
		z := 0.1 * float64(k/100%2)
		y := 0.4 * float64(k/50%2)
		pts = append(pts, fmt.Sprintf("[%.4g, %g, %g]", x, y, z))
	}
	src += fmt.Sprintf(`
  [[node.node]]
  name = "surface"
    [[node.node.object]]
    type = "MechanicalObject"
    name = "points"
    position = [%s]
    [[node.node.object]]
    type = "LinearBlendSkinningMapping"
    isMechanical = false
`, strings.Join(pts[:5000], ", "))
	return src
}

// BenchmarkFaureTable2Steak measures one step of Table 2's steak models
// (steakVariant) with F331 samples (midpoint rule) and with F332 elastons:
// steps per second = 1e9 / (ns/op), to be read on one core (-cpu 1) against
// the paper's 500, 100 and 40 frames per second. The initialisation time
// (frame placement, Voronoi weights, samples, mass) is reported as
// init-ms.
func BenchmarkFaureTable2Steak(b *testing.B) {
	for _, c := range steakTable2 {
		for _, elastons := range []bool{false, true} {
			kind := "F331"
			if elastons {
				kind = "F332"
			}
			b.Run(fmt.Sprintf("frames=%d/samples=%d/%s", c.frames, c.samples, kind), func(b *testing.B) {
				src := steakVariant(b, c.frames, c.samples, c.nbRef, elastons)
				start := time.Now()
				s := graphtest.MustLoad(b, "../scenes/frames_steak.toml", src)
				initTime := time.Since(start)
				if n := graphtest.Find[graph.State](b, s, "steak/samples/F").Size(); n != c.samples {
					b.Fatalf("%d samples, want %d", n, c.samples)
				}
				_ = graphtest.Find[*shapefunction.SparseSampler](b, s, "steak/samples/SparseSampler")
				for i := 0; i < 3; i++ {
					if err := s.Step(); err != nil {
						b.Fatal(err)
					}
				}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if err := s.Step(); err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				b.ReportMetric(float64(initTime.Milliseconds()), "init-ms")
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "steps/s")
				b.ReportMetric(c.paperFPS, "paper-fps")
			})
		}
	}
}
