package graphtest

import (
	"math"
	"math/rand/v2"

	"github.com/sofago/sofago/graph"
)

// CheckOps checks the mechanical traversals of a whole subtree at its
// current configuration: Ops.ComputeDf(df, dx, 0, 0, 1) must equal the
// central finite difference of Ops.ComputeForce along dx, where dx moves
// every independent state (through its template) and positions propagate
// down the mappings. It exercises, together, every force field's
// AddDForce, every mapping's ApplyJ, ApplyJT and geometric stiffness
// ApplyDJT, and the order of the traversals. Positions are restored.
func CheckOps(t T, ops *graph.Ops, opt Options) bool {
	t.Helper()
	states := ops.Independent()
	var all []float64
	for _, s := range states {
		all = append(all, s.Vec(graph.Position)...)
	}
	opt.defaults(all)
	rng := rand.New(rand.NewPCG(opt.Seed, 3))
	saved := make([][]float64, len(states))
	for i, s := range states {
		saved[i] = append([]float64(nil), s.Vec(graph.Position)...)
	}
	restore := func() {
		for i, s := range states {
			copy(s.Vec(graph.Position), saved[i])
		}
	}
	defer restore()
	f, dx, df := ops.AllocDeriv(), ops.AllocDeriv(), ops.AllocDeriv()
	defer ops.Free(f, dx, df)
	forceAt := func(h float64) [][]float64 {
		restore()
		for _, s := range states {
			s.Template().Integrate(s.Vec(graph.Position), s.Vec(dx), h)
		}
		ops.ComputeForce(f)
		out := make([][]float64, len(states))
		for i, s := range states {
			out[i] = append([]float64(nil), s.Vec(f)...)
		}
		return out
	}
	ok := true
	for trial := 0; trial < opt.Trials; trial++ {
		for _, s := range states {
			v := s.Vec(dx)
			for i := range v {
				v[i] = 2*rng.Float64() - 1
			}
		}
		h := opt.Step
		fp, fm := forceAt(h), forceAt(-h)
		forceAt(0) // linearise at the configuration itself
		ops.ComputeDf(df, dx, 0, 0, 1)
		var an, fd []float64
		for i, s := range states {
			an = append(an, s.Vec(df)...)
			for j := range fp[i] {
				fd = append(fd, (fp[i][j]-fm[i][j])/(2*h))
			}
		}
		if e, at := relErr(an, fd, math.Max(maxAbs(fd), 1e-300)); e > opt.Tolerance {
			t.Errorf("Ops.ComputeDf disagrees with finite differences of Ops.ComputeForce: relative %.3g at entry %d (analytic %.9g, FD %.9g)", e, at, an[at], fd[at])
			ok = false
		}
	}
	return ok
}
