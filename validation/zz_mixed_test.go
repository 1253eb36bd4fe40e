package validation

import (
	"fmt"
	"testing"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

func TestZZMixed(t *testing.T) {
	for _, c := range [][2]int{{48, 144}, {96, 288}, {96, 500}} {
		s := loadFramesScene(t, "../scenes/meshfree_mixed.toml", func(src string) string {
			src = framesReplaceOnce(t, src, "forces = [[0, -0.002, 0]]", "forces = [[0, -2e-5, 0]]")
			src = framesReplaceOnce(t, src, "nodeCount = 48", fmt.Sprintf("nodeCount = %d", c[0]))
			return framesReplaceOnce(t, src, "elastonCount = 144", fmt.Sprintf("elastonCount = %d", c[1]))
		})
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
		st := graphtest.Find[graph.State](t, s, "object/markers/points")
		x, x0 := st.Vec(graph.Position), st.Vec(graph.RestPosition)
		for i := 0; i < st.Size(); i++ {
			t.Logf("%v marker %v: %v", c, geom.At(x0, i), geom.At(x, i).Sub(geom.At(x0, i)))
		}
		n := graphtest.Find[interface{ Nodes() ([]geom.Vec3, error) }](t, s, "object/sampler")
		nodes, _ := n.Nodes()
		cnt := 0
		for _, p := range nodes {
			if p[0] > 0.7 {
				cnt++
			}
		}
		t.Logf("rod nodes %d", cnt)
	}
	const E, b, tp, Lp, r, Lr, P = 1e6, 0.2, 0.01, 0.5, 0.005, 0.4, 2e-5
	EIp := E * b * tp * tp * tp / 12
	M := P * Lr
	t.Logf("plate end estimate v = %g", P*Lp*Lp*Lp/(3*EIp)+M*Lp*Lp/(2*EIp))
}
