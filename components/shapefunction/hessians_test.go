package shapefunction

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sofago/sofago/components/mapping"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/material"
)

// checkHessianSums checks Σ_f ∇∇w_f = 0 at every point, relative to the
// largest Hessian there (normalised weights sum to 1 everywhere).
func checkHessianSums(t *testing.T, sw mapping.SkinningWeights) {
	t.Helper()
	if len(sw.Hessians) != len(sw.Frames) {
		t.Fatalf("%d Hessians for %d influences", len(sw.Hessians), len(sw.Frames))
	}
	worst := 0.0
	for p := 0; p < sw.NumPoints(); p++ {
		var S geom.Mat3
		hmax := 0.0
		for e := sw.Offsets[p]; e < sw.Offsets[p+1]; e++ {
			S = S.Add(sw.Hessians[e])
			for _, v := range sw.Hessians[e] {
				hmax = math.Max(hmax, math.Abs(v))
			}
		}
		if hmax > 0 {
			for _, v := range S {
				worst = math.Max(worst, math.Abs(v)/hmax)
			}
		}
	}
	// A quotient of sums of a few terms: a few ulps of the largest.
	if worst > 1e-13 {
		t.Errorf("Σ ∇∇w is %.3g of the largest Hessian, not 0", worst)
	}
}

// TestShepardHessiansMatchFiniteDifferences: the weight Hessians of
// Shepard's shape function (analytic kernel Hessians, quotient rule) are
// the central differences of its analytic gradients, and sum to zero.
func TestShepardHessiansMatchFiniteDifferences(t *testing.T) {
	s := &ShepardShapeFunction{ObjectBase: graph.ObjectBase{Name: "w"}, Power: 3, ShapeFunctionBase: ShapeFunctionBase{NbRef: 3}}
	s.SetFrames(rigidFrames(geom.Vec3{0, 0, 0}, geom.Vec3{1, 0, 0}, geom.Vec3{0, 1, 0}, geom.Vec3{0.3, 0.2, 1}))
	rng := rand.New(rand.NewPCG(9, 6))
	const h = 1e-6
	worst := 0.0
	for trial := 0; trial < 20; trial++ {
		p := geom.Vec3{rng.Float64(), rng.Float64(), rng.Float64()}
		sw, err := s.WeightHessiansAt(p[:])
		if err != nil {
			t.Fatal(err)
		}
		checkHessianSums(t, sw)
		frames := sw.Frames
		for a := 0; a < 3; a++ {
			pp, pm := p, p
			pp[a] += h
			pm[a] -= h
			wp, _ := s.WeightsAt(pp[:])
			wm, _ := s.WeightsAt(pm[:])
			if !equalInts(wp.Frames, frames) || !equalInts(wm.Frames, frames) {
				continue // the nbRef nearest frames change within ±h
			}
			for e := range frames {
				for b := 0; b < 3; b++ {
					fd := (wp.Gradients[e][b] - wm.Gradients[e][b]) / (2 * h)
					an := sw.Hessians[e][3*b+a]
					worst = math.Max(worst, math.Abs(fd-an)/(1+math.Abs(an)))
				}
			}
		}
	}
	t.Logf("largest Hessian error vs central differences of the gradients: %.2g", worst)
	// Central differences, h = 1e-6, of O(1)–O(10) functions: ~h² plus
	// rounding ε·|∇w|/h ≈ 1e-9.
	if worst > 1e-7 {
		t.Errorf("Hessian differs from finite differences by %.3g", worst)
	}
}

// TestGridHessiansOfAQuadraticField: for a kernel that is a quadratic
// polynomial of position, the voxel Hessians (central differences of the
// central-difference gradients) are its exact, constant Hessian at every
// voxel two cells or more from the boundary, where both stencils are
// central (central differences are exact on quadratics).
func TestGridHessiansOfAQuadraticField(t *testing.T) {
	g := mustBox(t, [6]float64{0, 0, 0, 1, 0.5, 0.6}, [3]int{10, 5, 6}, 1, 1)
	Q := geom.Mat3{1.3, -0.4, 0.7, -0.4, 2.1, 0.25, 0.7, 0.25, -0.9} // symmetric
	b := geom.Vec3{0.2, -1, 0.5}
	vals := make([]float64, g.NumVoxels())
	for v := range vals {
		X := g.Centre(v)
		vals[v] = 0.5*X.Dot(Q.MulVec(X)) + b.Dot(X) + 3
	}
	f := newVoxelField(g, [][]float64{vals})
	f.buildHessians()
	n := 0
	for v := range vals {
		i, j, k := g.CellCoords(int(g.Cells[v]))
		if i < 2 || j < 2 || k < 2 || i > g.Dims[0]-3 || j > g.Dims[1]-3 || k > g.Dims[2]-3 {
			continue
		}
		n++
		for a := range Q {
			if math.Abs(f.hess[0][v][a]-Q[a]) > 1e-10 {
				t.Fatalf("voxel %v: Hessian %v, want %v", [3]int{i, j, k}, f.hess[0][v], Q)
			}
		}
	}
	if n == 0 {
		t.Fatal("no interior voxel")
	}
}

// TestBarycentricShapeFunction: along a chain of frames on a line, the
// weights are the barycentric coordinates of the point's projection on
// its segment (a partition of unity, exactly linear), with the constant
// gradient ±1/ℓ along the segment, zero Hessians, and weight 1 for the
// end frame beyond the chain's ends.
func TestBarycentricShapeFunction(t *testing.T) {
	o := []geom.Vec3{{0, 0, 0}, {0.25, 0, 0}, {0.5, 0, 0}, {1, 0, 0}}
	s := &BarycentricShapeFunction{ObjectBase: graph.ObjectBase{Name: "w"}, ShapeFunctionBase: ShapeFunctionBase{NbRef: 2}}
	s.SetFrames(rigidFrames(o...))
	rng := rand.New(rand.NewPCG(2, 2))
	for trial := 0; trial < 200; trial++ {
		x := 1.2*rng.Float64() - 0.1
		p := geom.Vec3{x, 0.1 * rng.NormFloat64(), 0.1 * rng.NormFloat64()}
		sw, err := s.WeightHessiansAt(p[:])
		if err != nil {
			t.Fatal(err)
		}
		want := map[int]float64{}
		wantG := map[int]float64{}
		switch {
		case x <= 0:
			want[0] = 1
		case x >= 1:
			want[3] = 1
		default:
			for i := 0; i+1 < len(o); i++ {
				if x >= o[i][0] && x < o[i+1][0] {
					l := o[i+1][0] - o[i][0]
					sv := (x - o[i][0]) / l
					want[i], want[i+1] = 1-sv, sv
					wantG[i], wantG[i+1] = -1/l, 1/l
				}
			}
		}
		got := map[int]float64{}
		for e, f := range sw.Frames {
			got[f] = sw.Weights[e]
			if d := sw.Gradients[e].Sub(geom.Vec3{wantG[f], 0, 0}).Norm(); d > 1e-12 {
				t.Fatalf("x = %g frame %d: gradient %v, want (%g, 0, 0)", x, f, sw.Gradients[e], wantG[f])
			}
			if sw.Hessians[e] != (geom.Mat3{}) {
				t.Fatalf("non-zero Hessian %v", sw.Hessians[e])
			}
		}
		for f, w := range want {
			if math.Abs(got[f]-w) > 1e-14 {
				t.Fatalf("x = %g: weights %v, want %v", x, got, want)
			}
		}
		for f, w := range got {
			if _, ok := want[f]; !ok && w != 0 {
				t.Fatalf("x = %g: weights %v, want %v", x, got, want)
			}
		}
	}
}

// TestF332AffinePatchWithShapeFunctions: affine frames moved by one affine
// map, weighted by Shepard (analytic Hessians) and harmonic (grid
// Hessians) shape functions, give F = M and ∇F = 0 at every voxel centre
// to rounding: the normalised Hessians sum to zero exactly, whatever
// their accuracy.
func TestF332AffinePatchWithShapeFunctions(t *testing.T) {
	m, _ := NewMaterialGridBox([6]float64{0, 0, 0, 1, 0.3, 0.2}, [3]int{20, 6, 4}, 1000, 1e6)
	g, _ := m.Voxels()
	o := []geom.Vec3{{0.025, 0.125, 0.075}, {0.525, 0.175, 0.125}, {0.975, 0.025, 0.025}}
	M := geom.Mat3{1.1, 0.2, -0.3, 0.05, 0.9, 0.4, -0.2, 0.1, 1.3}
	c := geom.Vec3{0.3, -0.2, 0.1}
	for _, sf := range []mapping.WeightHessianProvider{
		&ShepardShapeFunction{ObjectBase: graph.ObjectBase{Name: "s"}, Power: 2, ShapeFunctionBase: ShapeFunctionBase{NbRef: 3}},
		harmonicOn(t, m, 3, o...),
	} {
		st := graph.NewMechanicalObject("frames", graph.Affine3, len(o))
		for f, x := range o {
			rest := st.Vec(graph.RestPosition)[12*f : 12*f+12]
			copy(rest, []float64{x[0], x[1], x[2], 1, 0, 0, 0, 1, 0, 0, 0, 1})
			y := M.MulVec(x).Add(c)
			copy(st.Vec(graph.Position)[12*f:12*f+12], append(y[:], M[:]...))
		}
		sf.(interface{ SetFrames(graph.State) }).SetFrames(st)
		sw, err := sf.WeightHessiansAt(g.Centres())
		if err != nil {
			t.Fatal(err)
		}
		checkHessianSums(t, sw)
		child := graph.NewMechanicalObject("F", graph.F332, 0)
		mp := mapping.NewLinearBlendSkinningMapping()
		mp.SetStates(st, child)
		mp.SetRestPoints(g.Centres())
		mp.SetWeights(sw)
		if err := mp.Init(); err != nil {
			t.Fatal(err)
		}
		worst := 0.0
		x := child.Vec(graph.Position)
		for p := 0; p < child.Size(); p++ {
			for i := 0; i < 36; i++ {
				want := 0.0
				if i < 9 {
					want = M[i]
				}
				worst = math.Max(worst, math.Abs(x[36*p+i]-want))
			}
		}
		t.Logf("%T: largest error of (F, ∇F) against (M, 0): %.2g", sf, worst)
		// Sums of products of weights (≤ 1), gradients (≤ 1/h = 20) and
		// Hessians (≤ 1/h² = 400) with O(1) coordinates: ~1e-13.
		if worst > 1e-11 {
			t.Errorf("%T: affine patch test error %.3g", sf, worst)
		}
	}
}

// TestInsertFrameKeepsTheHessians: after a frame is inserted, the parent's
// and the child's Hessians add up to the parent's Hessian before, at every
// voxel (the split of ShapeFunctionBase.InsertFrame, differentiated twice).
func TestInsertFrameKeepsTheHessians(t *testing.T) {
	m, _ := NewMaterialGridBox([6]float64{0, 0, 0, 1, 0.2, 0.2}, [3]int{20, 4, 4}, 1, 1)
	g, _ := m.Voxels()
	o := []geom.Vec3{{0.025, 0.075, 0.075}, {0.975, 0.075, 0.075}}
	for _, sf := range []interface {
		frameInsertable
		mapping.WeightHessianProvider
		SetFrames(graph.State)
	}{harmonicOn(t, m, 2, o...), &ShepardShapeFunction{ObjectBase: graph.ObjectBase{Name: "s"}, Power: 2, ShapeFunctionBase: ShapeFunctionBase{NbRef: 2}}} {
		st := rigidFrames(o...)
		sf.SetFrames(st)
		before, err := sf.WeightHessiansAt(g.Centres())
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
		after, err := sf.WeightHessiansAt(g.Centres())
		if err != nil {
			t.Fatal(err)
		}
		checkHessianSums(t, after)
		changed := false
		for p := 0; p < after.NumPoints(); p++ {
			sum := map[int]geom.Mat3{}
			for e := after.Offsets[p]; e < after.Offsets[p+1]; e++ {
				f := after.Frames[e]
				if f == 2 {
					f = parent
					changed = changed || after.Hessians[e] != (geom.Mat3{})
				}
				sum[f] = sum[f].Add(after.Hessians[e])
			}
			for e := before.Offsets[p]; e < before.Offsets[p+1]; e++ {
				hb := before.Hessians[e]
				d := sum[before.Frames[e]].Sub(hb)
				for i := range d {
					if math.Abs(d[i]) > 1e-10*(1+math.Abs(hb[i])) {
						t.Fatalf("%T point %d frame %d: Hessians sum to %v after, %v before", sf, p, before.Frames[e], sum[before.Frames[e]], hb)
					}
				}
			}
		}
		if !changed {
			t.Errorf("%T: the inserted frame has no Hessian anywhere", sf)
		}
	}
}

// TestBarycentricMaterialAware: with materialAware, two frames at the ends
// of a bar of 40 voxel columns with moduli E_i give each voxel centre the
// weight w_b = C(x)/C(L), C the compliance ∫ 1/E from the first frame
// (Faure eq. 5; piecewise constant here, so the sums are exact), and the
// gradient (1/E_i)/C(L) along the bar.
func TestBarycentricMaterialAware(t *testing.T) {
	const n, L = 40, 1.0
	h := L / n
	var regions []material.StiffnessRegion
	E := make([]float64, n)
	for i := range E {
		E[i] = 1e5 * (1 + 9*(float64(i)+0.5)*h) * (1 + 0.5*math.Sin(float64(i)))
		regions = append(regions, material.StiffnessRegion{Shape: material.Shape{Box: []float64{float64(i) * h, -1, -1, float64(i+1) * h, 1, 1}}, YoungModulus: E[i]})
	}
	grid := &MaterialGrid{ObjectBase: graph.ObjectBase{Name: "grid"}, Box: []float64{0, 0, 0, L, 0.1, 0.1}, Resolution: [3]int{n, 2, 2}, Scale: 1, MassDensity: 1, YoungModulus: 1, StiffnessRegions: regions}
	g, err := grid.Voxels()
	if err != nil {
		t.Fatal(err)
	}
	s := &BarycentricShapeFunction{ObjectBase: graph.ObjectBase{Name: "w"}, ShapeFunctionBase: ShapeFunctionBase{NbRef: 2}, MaterialAware: true}
	s.Grid = graph.Link{Path: "@grid", Object: grid}
	s.SetFrames(rigidFrames(geom.Vec3{0, 0.05, 0.05}, geom.Vec3{L, 0.05, 0.05}))
	sw, err := s.WeightHessiansAt(g.Centres())
	if err != nil {
		t.Fatal(err)
	}
	total := 0.0
	for _, e := range E {
		total += h / e
	}
	for v := 0; v < g.NumVoxels(); v++ {
		i, _, _ := g.CellCoords(int(g.Cells[v]))
		C := h / 2 / E[i]
		for k := 0; k < i; k++ {
			C += h / E[k]
		}
		fr, w, gr := sw.Influences(v)
		for e, f := range fr {
			want, wantG := C/total, 1/E[i]/total
			if f == 0 {
				want, wantG = 1-want, -wantG
			}
			if math.Abs(w[e]-want) > 1e-12 || gr[e].Sub(geom.Vec3{wantG, 0, 0}).Norm() > 1e-9*math.Abs(wantG) {
				t.Fatalf("voxel %d frame %d: w %.15g ∇w %v, want %.15g (%g, 0, 0)", v, f, w[e], gr[e], want, wantG)
			}
		}
	}
}
