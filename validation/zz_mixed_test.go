package validation

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

func TestZZMixed(t *testing.T) {
	for _, c := range []struct {
		n, e int
		r    string
	}{{48, 144, ""}, {96, 288, ""}} {
		s := loadFramesScene(t, "../scenes/meshfree_mixed.toml", func(src string) string {
			src = framesReplaceOnce(t, src, "forces = [[0, -0.002, 0]]", "forces = [[0, -2e-5, 0]]")
			src = framesReplaceOnce(t, src, "nodeCount = 48", fmt.Sprintf("nodeCount = %d", c.n))
			src = framesReplaceOnce(t, src, "elastonCount = 144", fmt.Sprintf("elastonCount = %d", c.e))
			return src
		})
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
		st := graphtest.Find[graph.State](t, s, "object/markers/points")
		x, x0 := st.Vec(graph.Position), st.Vec(graph.RestPosition)
		tp := graphtest.Find[graph.State](t, s, "object/tip/point")
		t.Logf("%v: plate end %.4g tip %.4g (estimates 1.1e-4, %.4g)", c, geom.At(x, 4).Sub(geom.At(x0, 4))[1], tp.Vec(graph.Position)[1], mixedBeamEstimate(2e-5))
	}
}

func stringsReplaceAll(s, a, b string) string { return strings.ReplaceAll(s, a, b) }
