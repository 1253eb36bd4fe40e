package solver_test

import (
	"testing"

	"github.com/sofago/sofago/components/solver"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
	"github.com/sofago/sofago/parallel"
	"github.com/sofago/sofago/sparse"
)

// BenchmarkAssembledKv10k is one product K·v with the tangent stiffness K
// of the 9,984-tetrahedron beam (beam10kScene, corotational "large",
// linearised three implicit steps away from rest) assembled as 3×3 blocks
// (KBlocks scattered through sparse.BSR3Assembly, the path of
// PCGLinearSolver and SparseCholeskySolver), split over the worker pool
// by block rows. Reported per tetrahedron (Vega's assembled CSR K·v:
// 0.015 µs per tetrahedron on these machines). Compare with
// BenchmarkTetrahedronFEMMethods10k's matrix-free AddDForce.
func BenchmarkAssembledKv10k(b *testing.B) {
	s := beam10kScene(b, `type = "CGLinearSolver"
  iterations = 100
  tolerance = 1e-9`)
	for i := 0; i < 3; i++ {
		if err := s.Step(); err != nil {
			b.Fatal(err)
		}
	}
	ff := graphtest.Find[graph.ForceField](b, s, "beam/fem")
	st := graphtest.Find[graph.State](b, s, "beam/dofs")
	ff.AddForce(make([]float64, len(st.Vec(graph.Position))), st.Vec(graph.Position), nil)
	ba := ff.(graph.StiffnessBlockAssembler)
	as, err := sparse.NewBSR3Assembly(st.Size(), [][]int32{ba.StiffnessBlocks()}, nil)
	if err != nil {
		b.Fatal(err)
	}
	ba.KBlocks(as.Source(0), 1)
	as.Gather(nil)
	K := as.A
	n := 3 * K.N
	x, y := make([]float64, n), make([]float64, n)
	for i := range x {
		x[i] = float64(i%17) - 8
	}
	var r parallel.Runner
	body := func(lo, hi int) { K.MulVecRows(y, x, lo, hi) }
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r.Run(K.N, 128, body)
	}
	b.StopTimer()
	ne := ff.(interface{ NumElements() int }).NumElements()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(ne)/1e3, "µs/tet")
	b.ReportMetric(float64(K.Blocks()), "blocks")
}

// BenchmarkImplicitEulerStepBeam10kPCG is one implicit Euler step of the
// 9,984-tetrahedron beam (as BenchmarkImplicitEulerStepBeam10kSparseCholesky)
// solved by PCGLinearSolver to a relative residual of 1e-9, per
// preconditioner (product = auto: assembled for jacobi, blockJacobi and
// ic0; warp factorises once before the timer and then runs matrix free
// while the points turn by less than warpThreshold). Three steps leave
// the rest state first. A step that does not converge fails the
// benchmark. Plain CG needs ~2,500 iterations (over a second per step):
// run with -benchtime 3x.
func BenchmarkImplicitEulerStepBeam10kPCG(b *testing.B) {
	for _, pre := range []string{"none", "jacobi", "blockJacobi", "ic0", "warp"} {
		b.Run(pre, func(b *testing.B) {
			s := beam10kScene(b, "type = \"PCGLinearSolver\"\n  iterations = 100000\n  tolerance = 1e-9\n  preconditioner = \""+pre+"\"")
			for i := 0; i < 3; i++ {
				if err := s.Step(); err != nil {
					b.Fatal(err)
				}
			}
			ode := graphtest.Find[*solver.EulerImplicitSolver](b, s, "beam/ode")
			lin := graphtest.Find[*solver.PCGLinearSolver](b, s, "beam/lin")
			its := 0
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := s.Step(); err != nil {
					b.Fatal(err)
				}
				st := ode.LastStats()
				if !st.Converged {
					b.Fatalf("step %d did not converge: %+v", i, st)
				}
				its += st.Iterations
			}
			b.StopTimer()
			b.ReportMetric(float64(its)/float64(b.N), "iterations")
			b.ReportMetric(ode.LastStats().Residual/1e-9, "residual/1e-9")
			b.ReportMetric(float64(lin.Refactorisations()), "factorisations")
		})
	}
}
