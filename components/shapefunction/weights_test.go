package shapefunction

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sofago/sofago/components/mapping"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
)

// rigidFrames returns a Rigid3 state with frames at the given rest origins.
func rigidFrames(origins ...geom.Vec3) *graph.MechanicalObject {
	st := graph.NewMechanicalObject("frames", graph.Rigid3, 0)
	if err := writeFrames(st, origins); err != nil {
		panic(err)
	}
	return st
}

func harmonicOn(t *testing.T, m *MaterialGrid, nbRef int, origins ...geom.Vec3) *HarmonicShapeFunction {
	t.Helper()
	h := &HarmonicShapeFunction{ObjectBase: graph.ObjectBase{Name: "weights", TypeName: "HarmonicShapeFunction"},
		Tolerance: 1e-10, Iterations: 100000, ShapeFunctionBase: ShapeFunctionBase{NbRef: nbRef}}
	h.Grid = graph.Link{Path: "@grid", Object: m}
	h.SetFrames(rigidFrames(origins...))
	return h
}

func voronoiOn(t *testing.T, m *MaterialGrid, nbRef, levels int, origins ...geom.Vec3) *VoronoiShapeFunction {
	t.Helper()
	s := &VoronoiShapeFunction{ObjectBase: graph.ObjectBase{Name: "weights", TypeName: "VoronoiShapeFunction"},
		Subdivisions: levels, ShapeFunctionBase: ShapeFunctionBase{NbRef: nbRef}}
	s.Grid = graph.Link{Path: "@grid", Object: m}
	s.SetFrames(rigidFrames(origins...))
	return s
}

// checkPartition checks Σ w = 1 and Σ ∇w = 0 at every point, at most
// nbRef (+ extra) influences, weights in [0, 1].
func checkPartition(t *testing.T, sw mapping.SkinningWeights, nbRef int) {
	t.Helper()
	worstW, worstG := 0.0, 0.0
	for p := 0; p < sw.NumPoints(); p++ {
		frames, w, g := sw.Influences(p)
		if len(frames) > nbRef {
			t.Fatalf("point %d has %d influences, nbRef %d", p, len(frames), nbRef)
		}
		s, gs, gmax := 0.0, geom.Vec3{}, 0.0
		for e := range frames {
			if w[e] < -1e-12 || w[e] > 1+1e-12 {
				t.Fatalf("point %d: weight %g outside [0, 1]", p, w[e])
			}
			s += w[e]
			gs = gs.Add(g[e])
			gmax = math.Max(gmax, g[e].Norm())
		}
		worstW = math.Max(worstW, math.Abs(s-1))
		if gmax > 0 {
			worstG = math.Max(worstG, gs.Norm()/gmax)
		}
	}
	// Normalised weights: Σ w = 1 and Σ ∇w = 0 to a few ulps.
	if worstW > 1e-14 || worstG > 1e-13 {
		t.Errorf("partition of unity: |Σw − 1| ≤ %.2g, |Σ∇w|/max|∇w| ≤ %.2g", worstW, worstG)
	}
}

// TestHarmonicWeightsSolveLaplace: each harmonic kernel is 1 on its frame's
// voxels, 0 on the others', satisfies the discrete Laplace equation to the
// CG tolerance, lies in [0, 1], and the kernels sum to 1 (the sum solves
// the problem with 1 on every frame).
func TestHarmonicWeightsSolveLaplace(t *testing.T) {
	m, err := NewMaterialGridBox([6]float64{0, 0, 0, 1, 0.3, 0.2}, [3]int{20, 6, 4}, 1000, 1e6)
	if err != nil {
		t.Fatal(err)
	}
	g, _ := m.Voxels()
	origins := []geom.Vec3{{0.025, 0.125, 0.075}, {0.525, 0.175, 0.125}, {0.975, 0.025, 0.025}}
	h := harmonicOn(t, m, 3, origins...)
	K, err := h.VoxelWeights()
	if err != nil {
		t.Fatal(err)
	}
	st := h.Stats()
	L := newGridLaplacian(g, false)
	fixed := make([]bool, g.NumVoxels())
	for _, vs := range st.FixedVoxels {
		for _, v := range vs {
			fixed[v] = true
		}
	}
	for f := range origins {
		if r := L.residual(K[f], fixed); r > h.Tolerance {
			t.Errorf("frame %d: Laplace residual %.3g > tolerance %g", f, r, h.Tolerance)
		}
		t.Logf("frame %d: %d CG iterations, residual %.2g", f, st.Iterations[f], st.Residuals[f])
		for f2, vs := range st.FixedVoxels {
			want := 0.0
			if f2 == f {
				want = 1
			}
			for _, v := range vs {
				if K[f][v] != want {
					t.Errorf("frame %d's weight on frame %d's voxel is %g, want %g exactly", f, f2, K[f][v], want)
				}
			}
		}
	}
	worst := 0.0
	for v := 0; v < g.NumVoxels(); v++ {
		s := 0.0
		for f := range K {
			if K[f][v] < -1e-9 || K[f][v] > 1+1e-9 {
				t.Fatalf("kernel %d at voxel %d = %g outside [0, 1]", f, v, K[f][v])
			}
			s += K[f][v]
		}
		worst = math.Max(worst, math.Abs(s-1))
	}
	t.Logf("largest |Σ_f K_f − 1| over the voxels: %.2g", worst)
	// Each solve leaves a relative residual ≤ 1e-10; the error of the sum
	// is that residual amplified by at most the condition of the
	// operator (≈ (n/π)² ≈ 40 for 20 cells), so 1e-7 is generous.
	if worst > 1e-7 {
		t.Errorf("kernels sum to 1 within %.3g only", worst)
	}
	sw, err := h.WeightsAt(g.Centres())
	if err != nil {
		t.Fatal(err)
	}
	checkPartition(t, sw, 3)
}

// TestHarmonicWeightsErrors: frames outside the material or sharing a
// voxel, and material without a frame, are errors.
func TestHarmonicWeightsErrors(t *testing.T) {
	m, _ := NewMaterialGridBox([6]float64{0, 0, 0, 1, 1, 1}, [3]int{4, 4, 4}, 1, 1)
	for _, c := range []struct {
		o    []geom.Vec3
		want string
	}{
		{[]geom.Vec3{{2, 0, 0}}, "outside the material"},
		{[]geom.Vec3{{0.1, 0.1, 0.1}, {0.2, 0.2, 0.2}}, "share the voxel"},
	} {
		h := harmonicOn(t, m, 4, c.o...)
		if _, err := h.VoxelWeights(); err == nil || !contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.o, err, c.want)
		}
	}
	g, _ := m.Voxels()
	inside := make([]bool, g.NumCells())
	for c := range inside {
		i, _, _ := g.CellCoords(c)
		inside[c] = i != 2 // two separate slabs
	}
	g2 := *g
	g2.Index = append([]int32(nil), g.Index...)
	g2.setMaterial(inside, 1, 1)
	m2, err := NewMaterialGridFromVoxels(&g2)
	if err != nil {
		t.Fatal(err)
	}
	h := harmonicOn(t, m2, 4, geom.Vec3{0.1, 0.1, 0.1})
	if _, err := h.VoxelWeights(); err == nil || !contains(err.Error(), "not connected") {
		t.Errorf("disconnected material: %v", err)
	}
}

func contains(s, sub string) bool {
	return len(sub) == 0 || len(s) >= len(sub) && (func() bool {
		for i := 0; i+len(sub) <= len(s); i++ {
			if s[i:i+len(sub)] == sub {
				return true
			}
		}
		return false
	})()
}

// TestHarmonicWeightsLinearInABar: frames fixing whole end sections of a
// bar (dirichletRadius covering the section) make the harmonic weights
// exactly linear along it (the 1-D Laplace solution), so the central
// differences are exact and the interpolated weights and gradients are the
// linear function and its slope everywhere.
func TestHarmonicWeightsLinearInABar(t *testing.T) {
	m, _ := NewMaterialGridBox([6]float64{0, 0, 0, 1, 0.1, 0.1}, [3]int{10, 3, 3}, 1, 1)
	h := harmonicOn(t, m, 2, geom.Vec3{0.05, 0.05, 0.05}, geom.Vec3{0.95, 0.05, 0.05})
	h.DirichletRadius = 0.06 // the 3×3 end sections
	rng := rand.New(rand.NewPCG(3, 4))
	var pts []float64
	for i := 0; i < 50; i++ {
		pts = append(pts, 0.05+0.9*rng.Float64(), 0.1*rng.Float64(), 0.1*rng.Float64())
	}
	sw, err := h.WeightsAt(pts)
	if err != nil {
		t.Fatal(err)
	}
	for p := 0; p < sw.NumPoints(); p++ {
		frames, w, g := sw.Influences(p)
		x := pts[3*p]
		for e, f := range frames {
			want, slope := (0.95-x)/0.9, -1/0.9
			if f == 1 {
				want, slope = 1-want, -slope
			}
			// CG tolerance 1e-10 on a 10-cell problem: the weights are
			// linear to ~1e-9.
			if math.Abs(w[e]-want) > 1e-8 || g[e].Sub(geom.Vec3{slope, 0, 0}).Norm() > 1e-7 {
				t.Fatalf("x = %g frame %d: w %g ∇w %v, want %g (%g, 0, 0)", x, f, w[e], g[e], want, slope)
			}
		}
	}
}

// TestShepardGradientsMatchFiniteDifferences: Shepard weights are analytic;
// their gradients (of the normalised, truncated set) agree with central
// differences of the weights.
func TestShepardGradientsMatchFiniteDifferences(t *testing.T) {
	s := &ShepardShapeFunction{ObjectBase: graph.ObjectBase{Name: "w"}, Power: 2, ShapeFunctionBase: ShapeFunctionBase{NbRef: 3}}
	s.SetFrames(rigidFrames(geom.Vec3{0, 0, 0}, geom.Vec3{1, 0, 0}, geom.Vec3{0, 1, 0}, geom.Vec3{0.3, 0.2, 1}))
	rng := rand.New(rand.NewPCG(5, 6))
	const h = 1e-6
	worst := 0.0
	for trial := 0; trial < 20; trial++ {
		p := geom.Vec3{rng.Float64(), rng.Float64(), rng.Float64()}
		sw, err := s.WeightsAt(p[:])
		if err != nil {
			t.Fatal(err)
		}
		checkPartition(t, sw, 3)
		frames, _, g := sw.Influences(0)
		for a := 0; a < 3; a++ {
			pp, pm := p, p
			pp[a] += h
			pm[a] -= h
			wp, _ := s.WeightsAt(pp[:])
			wm, _ := s.WeightsAt(pm[:])
			fp, vp, _ := wp.Influences(0)
			fm, vm, _ := wm.Influences(0)
			if !equalInts(fp, frames) || !equalInts(fm, frames) {
				continue // the nbRef nearest frames change within ±h
			}
			for e := range frames {
				fd := (vp[e] - vm[e]) / (2 * h)
				worst = math.Max(worst, math.Abs(fd-g[e][a])/(1+math.Abs(g[e][a])))
			}
		}
	}
	t.Logf("largest gradient error vs central differences: %.2g", worst)
	// Central differences with h = 1e-6 on O(1) functions: error ~h² plus
	// rounding ε/h ≈ 1e-10.
	if worst > 1e-7 {
		t.Errorf("gradient differs from finite differences by %.3g", worst)
	}
	// At a frame's origin that frame alone.
	sw, _ := s.WeightsAt([]float64{1, 0, 0})
	if f, w, _ := sw.Influences(0); len(f) != 1 || f[0] != 1 || w[0] != 1 {
		t.Errorf("at frame 1: %v %v", f, w)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestGridGradientsOfALinearField: the grid machinery (central differences,
// one-sided at the boundary, trilinear interpolation of values and
// gradients) reproduces an affine field and its gradient exactly,
// anywhere in the material.
func TestGridGradientsOfALinearField(t *testing.T) {
	g := mustBox(t, [6]float64{0, 0, 0, 1, 0.5, 0.3}, [3]int{8, 5, 3}, 1, 1)
	b := geom.Vec3{0.7, -1.3, 2.1}
	vals := make([]float64, g.NumVoxels())
	for v := range vals {
		vals[v] = 0.4 + b.Dot(g.Centre(v))
	}
	f := newVoxelField(g, [][]float64{vals})
	rng := rand.New(rand.NewPCG(7, 8))
	w := make([]float64, 1)
	gr := make([]geom.Vec3, 1)
	for i := 0; i < 100; i++ {
		// Inside the hull of the voxel centres (outside it the field is
		// extrapolated as a constant).
		p := geom.Vec3{0.0625 + 0.875*rng.Float64(), 0.05 + 0.4*rng.Float64(), 0.05 + 0.2*rng.Float64()}
		f.eval(p, w, gr, nil)
		if math.Abs(w[0]-(0.4+b.Dot(p))) > 1e-14 || gr[0].Sub(b).Norm() > 1e-13 {
			t.Fatalf("at %v: %g %v, want %g %v", p, w[0], gr[0], 0.4+b.Dot(p), b)
		}
	}
}

// TestVoronoiKernelsAreIdealIn1D: on the axis of a layered bar (compliance
// 1 then 5), the Voronoi kernels of two frames are Faure et al.'s ideal
// shape functions (eq. 5): w₀(x) = d_c(x, x₁)/d_c(x₀, x₁), linear in the
// compliance distance, 1/2 at the compliance midpoint, summing to 1.
func TestVoronoiKernelsAreIdealIn1D(t *testing.T) {
	g := mustBox(t, [6]float64{0, 0, 0, 1, 0.1, 0.1}, [3]int{20, 3, 3}, 1, 1e6)
	for v := range g.Young {
		if g.Centre(v)[0] > 0.6 {
			g.Young[v] = 2e5
		}
	}
	m, _ := NewMaterialGridFromVoxels(g)
	x0, x1 := geom.Vec3{0.025, 0.05, 0.05}, geom.Vec3{0.975, 0.05, 0.05}
	dc := func(a, b float64) float64 { // compliance length between a < b on the axis
		c := func(x float64) float64 {
			if x <= 0.6 {
				return x
			}
			return 0.6 + 5*(x-0.6)
		}
		return c(b) - c(a)
	}
	worst := map[int]float64{}
	for _, levels := range []int{1, 2, 3} {
		s := voronoiOn(t, m, 2, levels, x0, x1)
		K, err := s.VoxelKernels()
		if err != nil {
			t.Fatal(err)
		}
		for v := 0; v < g.NumVoxels(); v++ {
			c := g.Centre(v)
			if math.Abs(c[1]-0.05) > 1e-12 || math.Abs(c[2]-0.05) > 1e-12 {
				continue
			}
			want := dc(c[0], x1[0]) / dc(x0[0], x1[0])
			e := math.Max(math.Abs(K[0][v]-want), math.Abs(K[1][v]-(1-want)))
			worst[levels] = math.Max(worst[levels], e)
		}
	}
	t.Logf("largest deviation from eq. 5 on the axis: %.2g (1 isosurface), %.2g (2), %.2g (3)", worst[1], worst[2], worst[3])
	// One isosurface (the Voronoi frontier): exact to rounding. With more,
	// the extra isosurfaces are curved across the bar (a surface's distance
	// to an off-axis point is not its distance along the axis), so the
	// linear extrapolation beyond the last one uses the width of the
	// nearest frontier point, which need not lie on the axis: a few % off.
	if worst[1] > 1e-12 || worst[2] > 0.03 || worst[3] > 0.03 {
		t.Errorf("kernels deviate from eq. 5 by %.3g, %.3g, %.3g (1, 2, 3 isosurfaces)", worst[1], worst[2], worst[3])
	}
}

// TestVoronoiKernelsProperties: interpolating at the frames, compact
// support (zero beyond the neighbours), partition of unity after
// normalisation, and material-aware: a soft layer between two stiff parts
// concentrates the weight change in it.
func TestVoronoiKernelsProperties(t *testing.T) {
	g := mustBox(t, [6]float64{0, 0, 0, 1.2, 0.1, 0.1}, [3]int{24, 2, 2}, 1, 1e7)
	for v := range g.Young {
		if x := g.Centre(v)[0]; x > 0.5 && x < 0.7 {
			g.Young[v] = 1e5 // soft layer
		}
	}
	m, _ := NewMaterialGridFromVoxels(g)
	// Frames at voxel centres (a frame half a cell off its voxel's centre
	// is, in the soft layer, a large compliance distance from it).
	o := []geom.Vec3{{0.025, 0.025, 0.025}, {0.625, 0.025, 0.025}, {1.175, 0.075, 0.075}}
	s := voronoiOn(t, m, 3, 1, o...)
	K, err := s.VoxelKernels()
	if err != nil {
		t.Fatal(err)
	}
	for f, x := range o {
		v := g.VoxelAt(x)
		for f2 := range o {
			want := 0.0
			if f2 == f {
				want = 1
			}
			if math.Abs(K[f2][v]-want) > 1e-12 {
				t.Errorf("kernel %d at frame %d = %g, want %g", f2, f, K[f2][v], want)
			}
		}
	}
	// Frame 0's kernel vanishes beyond frame 1 along their row (compact
	// support; off the row, in the very compliant layer, a voxel beside
	// frame 1 is far from it in compliance distance and keeps some of
	// frame 0's weight).
	for v := 0; v < g.NumVoxels(); v++ {
		c := g.Centre(v)
		if c[0] >= 0.625 && c[1] < 0.05 && c[2] < 0.05 && K[0][v] > 1e-12 {
			t.Fatalf("kernel 0 at x = %g is %g, want 0 beyond frame 1", g.Centre(v)[0], K[0][v])
		}
	}
	// In the stiff part x < 0.5 frame 0 dominates: the soft layer takes
	// most of the change between frames 0 and 1.
	v := g.VoxelAt(geom.Vec3{0.475, 0.025, 0.025})
	t.Logf("kernel 0 at the stiff part's end x = 0.475: %.4f (linear in x between the frames: %.4f)", K[0][v], 1-0.45/0.6)
	if K[0][v] < 0.9 {
		t.Errorf("kernel 0 at the end of the stiff part is %g, want > 0.9 (material-aware)", K[0][v])
	}
	sw, err := s.WeightsAt(g.Centres())
	if err != nil {
		t.Fatal(err)
	}
	checkPartition(t, sw, 3)
}

// TestWeightsDeterministic: the same inputs give bitwise identical weights.
func TestWeightsDeterministic(t *testing.T) {
	m, _ := NewMaterialGridBox([6]float64{0, 0, 0, 1, 0.4, 0.2}, [3]int{10, 4, 2}, 1, 1)
	g, _ := m.Voxels()
	o := []geom.Vec3{{0.05, 0.05, 0.05}, {0.55, 0.35, 0.15}, {0.95, 0.05, 0.15}}
	for name, mk := range map[string]func() mapping.WeightProvider{
		"harmonic": func() mapping.WeightProvider { return harmonicOn(t, m, 2, o...) },
		"voronoi":  func() mapping.WeightProvider { return voronoiOn(t, m, 2, 2, o...) },
	} {
		a, err := mk().WeightsAt(g.Centres())
		if err != nil {
			t.Fatal(err)
		}
		b, _ := mk().WeightsAt(g.Centres())
		for e := range a.Weights {
			if a.Frames[e] != b.Frames[e] || a.Weights[e] != b.Weights[e] || a.Gradients[e] != b.Gradients[e] {
				t.Fatalf("%s: entry %d differs between two runs", name, e)
			}
		}
	}
}

// TestInsertFrameKeepsTheBlend: after InsertFrame the new frame takes a
// share of its parent's weight; every other weight is unchanged and the
// parent's plus the child's equal the parent's old weight (and gradient)
// to rounding.
func TestInsertFrameKeepsTheBlend(t *testing.T) {
	m, _ := NewMaterialGridBox([6]float64{0, 0, 0, 1, 0.2, 0.2}, [3]int{20, 4, 4}, 1, 1)
	g, _ := m.Voxels()
	o := []geom.Vec3{{0.025, 0.075, 0.075}, {0.975, 0.075, 0.075}}
	for _, sf := range []interface {
		frameInsertable
		SetFrames(graph.State)
	}{harmonicOn(t, m, 2, o...), voronoiOn(t, m, 2, 1, o...),
		&ShepardShapeFunction{ObjectBase: graph.ObjectBase{Name: "s"}, Power: 2, ShapeFunctionBase: ShapeFunctionBase{NbRef: 2}}} {
		st := rigidFrames(o...)
		sf.SetFrames(st)
		before, err := sf.WeightsAt(g.Centres())
		if err != nil {
			t.Fatal(err)
		}
		st.Resize(3)
		pNew := geom.Vec3{0.625, 0.125, 0.075}
		for _, id := range []graph.VecID{graph.RestPosition, graph.Position} {
			copy(st.Vec(id)[14:17], pNew[:])
		}
		parent, err := sf.InsertFrame()
		if err != nil {
			t.Fatal(err)
		}
		if parent != 1 {
			t.Errorf("parent %d, want 1 (the dominant frame at x = 0.625)", parent)
		}
		after, err := sf.WeightsAt(g.Centres())
		if err != nil {
			t.Fatal(err)
		}
		childSeen := false
		for p := 0; p < after.NumPoints(); p++ {
			fb, wb, gb := before.Influences(p)
			fa, wa, ga := after.Influences(p)
			sum := map[int]float64{}
			gsum := map[int]geom.Vec3{}
			for e, f := range fa {
				if f == 2 {
					childSeen = true
					f = parent
				}
				sum[f] += wa[e]
				gsum[f] = gsum[f].Add(ga[e])
			}
			for e, f := range fb {
				if math.Abs(sum[f]-wb[e]) > 1e-15 || gsum[f].Sub(gb[e]).Norm() > 1e-12*(1+gb[e].Norm()) {
					t.Fatalf("point %d frame %d: %g %v after, %g %v before", p, f, sum[f], gsum[f], wb[e], gb[e])
				}
			}
		}
		if !childSeen {
			t.Errorf("the inserted frame influences no voxel")
		}
		// At its own origin the child has the parent's whole weight there.
		sw, _ := sf.WeightsAt(pNew[:])
		fr, w, _ := sw.Influences(0)
		for e, f := range fr {
			if f == parent && w[e] > 1e-9 {
				t.Errorf("at the new frame's origin the parent keeps weight %g, want 0", w[e])
			}
		}
	}
}

// TestHarmonicGradientsMatchFiniteDifferences: at interior voxel centres
// the returned gradients agree with central differences (step: one cell)
// of the returned weights. The harmonic kernels sum to 1 to the CG
// tolerance, so normalisation changes nothing beyond that, and at voxel
// centres the interpolation returns the voxel values: the two agree to
// the solver's tolerance.
func TestHarmonicGradientsMatchFiniteDifferences(t *testing.T) {
	m, _ := NewMaterialGridBox([6]float64{0, 0, 0, 1, 0.3, 0.3}, [3]int{20, 6, 6}, 1, 1)
	g, _ := m.Voxels()
	h := harmonicOn(t, m, 3, geom.Vec3{0.025, 0.125, 0.125}, geom.Vec3{0.525, 0.175, 0.125}, geom.Vec3{0.975, 0.125, 0.225})
	worst, gmax := 0.0, 0.0
	for v := 0; v < g.NumVoxels(); v++ {
		X := g.Centre(v)
		sw, err := h.WeightsAt(X[:])
		if err != nil {
			t.Fatal(err)
		}
		fr, _, gr := sw.Influences(0)
		for a := 0; a < 3; a++ {
			d := geom.Vec3{}
			d[a] = g.Spacing[a]
			if g.VoxelAt(X.Add(d)) < 0 || g.VoxelAt(X.Sub(d)) < 0 {
				continue // boundary: one-sided there
			}
			xp, xm := X.Add(d), X.Sub(d)
			wp, _ := h.WeightsAt(xp[:])
			wm, _ := h.WeightsAt(xm[:])
			fp, vp, _ := wp.Influences(0)
			fm, vm, _ := wm.Influences(0)
			if !equalInts(fp, fr) || !equalInts(fm, fr) {
				continue
			}
			for e := range fr {
				fd := (vp[e] - vm[e]) / (2 * g.Spacing[a])
				worst = math.Max(worst, math.Abs(fd-gr[e][a]))
				gmax = math.Max(gmax, math.Abs(gr[e][a]))
			}
		}
	}
	t.Logf("largest |∇w − central difference| %.2g (largest |∇w| %.3g)", worst, gmax)
	if worst > 1e-8*gmax {
		t.Errorf("gradients differ from central differences by %.3g (|∇w| up to %.3g)", worst, gmax)
	}
}
