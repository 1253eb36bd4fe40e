package gmls

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/sofago/sofago/geom"
	"gonum.org/v1/gonum/mat"
)

// field is a complete quadratic vector field u(X) = c + B X + ½ (Xᵀ Hᵣ X)ᵣ
// (H = 0: a linear field), with its exact gradient and Hessians.
type field struct {
	c geom.Vec3
	B geom.Mat3
	H [3]geom.Mat3 // symmetric
}

func randomField(rng *rand.Rand, quadratic bool) field {
	var f field
	for r := 0; r < 3; r++ {
		f.c[r] = rng.NormFloat64()
	}
	for i := range f.B {
		f.B[i] = rng.NormFloat64()
	}
	if quadratic {
		for r := range f.H {
			var m geom.Mat3
			for i := range m {
				m[i] = rng.NormFloat64()
			}
			f.H[r] = m.Sym()
		}
	}
	return f
}

// at returns u, ∂u_r/∂X_a (row r) and ∂²u_r/∂X_a∂X_b (H_r).
func (f field) at(X geom.Vec3) (u geom.Vec3, du geom.Mat3, ddu [3]geom.Mat3) {
	u = f.c.Add(f.B.MulVec(X))
	du = f.B
	for r := 0; r < 3; r++ {
		HX := f.H[r].MulVec(X)
		u[r] += 0.5 * X.Dot(HX)
		for a := 0; a < 3; a++ {
			du[3*r+a] += HX[a]
		}
	}
	return u, du, f.H
}

// interpolate sums the node data of f with the shape functions of point p:
// returns u, ∇u and the Hessians (components up to sf.Derivs).
func interpolate(nd *Nodes, sf *ShapeFunctions, p int, f field) (u geom.Vec3, du geom.Mat3, ddu [3]geom.Mat3) {
	nb, nc := sf.Order.Slots(), Components(sf.Derivs)
	for e := sf.Offsets[p]; e < sf.Offsets[p+1]; e++ {
		ui, dui, ddui := f.at(nd.Position(sf.Nodes[e]))
		vals := sf.Entry(e)
		for s := 0; s < nb; s++ {
			// The datum of slot s, per component r.
			var d geom.Vec3
			switch {
			case s == 0:
				d = ui
			case s < 4:
				d = dui.Col(s - 1)
			default:
				ab := Pairs[s-4]
				for r := 0; r < 3; r++ {
					d[r] = Multiplicity(s-4) * ddui[r][3*ab[0]+ab[1]]
				}
			}
			N := vals[s*nc : (s+1)*nc]
			for r := 0; r < 3; r++ {
				u[r] += d[r] * N[0]
				for a := 0; a < 3 && sf.Derivs >= 1; a++ {
					du[3*r+a] += d[r] * N[1+a]
				}
				if sf.Derivs >= 2 {
					for m, ab := range Pairs {
						v := d[r] * N[4+m]
						ddu[r][3*ab[0]+ab[1]] += v
						if ab[0] != ab[1] {
							ddu[r][3*ab[1]+ab[0]] += v
						}
					}
				}
			}
		}
	}
	return u, du, ddu
}

type layout struct {
	name   string
	nodes  []float64
	radius []float64
	points []float64
	minNbr int // the fewest neighbours a point must have (checks the layout)
	maxNbr int // the most
}

func vecs(vs ...geom.Vec3) []float64 {
	var out []float64
	for _, v := range vs {
		out = append(out, v[:]...)
	}
	return out
}

// layouts are node sets where the classical MLS moment matrix is singular
// (one node, two nodes, collinear and coplanar nodes) and a random cloud.
func layouts(rng *rand.Rand) []layout {
	var cloud, cloudPts []float64
	for i := 0; i < 300; i++ {
		cloud = append(cloud, 2*rng.Float64()-1, 2*rng.Float64()-1, 2*rng.Float64()-1)
	}
	for i := 0; i < 200; i++ {
		cloudPts = append(cloudPts, 1.6*rng.Float64()-0.8, 1.6*rng.Float64()-0.8, 1.6*rng.Float64()-0.8)
	}
	randAround := func(c geom.Vec3, r float64, n int) []float64 {
		var out []float64
		for len(out) < 3*n {
			d := geom.Vec3{2*rng.Float64() - 1, 2*rng.Float64() - 1, 2*rng.Float64() - 1}.Scale(r)
			if d.Norm() < r {
				p := c.Add(d)
				out = append(out, p[:]...)
			}
		}
		return out
	}
	c := geom.Vec3{0.3, -0.2, 0.5}
	line := vecs(geom.Vec3{0, 0, 0}, geom.Vec3{0.2, 0.1, 0}, geom.Vec3{0.4, 0.2, 0}, geom.Vec3{0.6, 0.3, 0})
	plane := vecs(geom.Vec3{0, 0, 0}, geom.Vec3{0.3, 0, 0}, geom.Vec3{0, 0.3, 0}, geom.Vec3{0.3, 0.3, 0}, geom.Vec3{0.15, 0.4, 0})
	return []layout{
		{"single node", vecs(c), []float64{0.5}, randAround(c, 0.5, 40), 1, 1},
		// Second node far away: every point sees exactly one of them.
		{"single neighbour of two", vecs(c, geom.Vec3{3, 0, 0}), []float64{0.5, 0.7}, append(randAround(c, 0.5, 20), randAround(geom.Vec3{3, 0, 0}, 0.7, 20)...), 1, 1},
		{"two nodes", vecs(c, c.Add(geom.Vec3{0.3, 0.1, -0.1})), []float64{0.6, 0.5}, randAround(c.Add(geom.Vec3{0.15, 0.05, -0.05}), 0.3, 40), 2, 2},
		{"collinear nodes", line, []float64{0.8}, randAround(geom.Vec3{0.3, 0.15, 0}, 0.4, 60), 4, 4},
		{"coplanar nodes", plane, []float64{0.9}, randAround(geom.Vec3{0.15, 0.15, 0}, 0.3, 60), 5, 5},
		{"random cloud", cloud, []float64{0.45}, cloudPts, 2, 1000},
	}
}

// TestReproduction: linear GMLS reproduces every linear field and
// quadratic GMLS every quadratic field exactly — the value, the gradient
// and the Hessian — at points of layouts where classical MLS fails (one,
// two, collinear, coplanar neighbours) and in a random cloud. The node
// data are the field's closed-form values and derivatives; the tolerance
// 1e-12 (absolute, on data of O(1–10)) is a few hundred ulps of the sums,
// the rounding of solving G (condition ≲ 1e4 with the scaled basis).
func TestReproduction(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 17))
	for _, order := range []Order{Linear, Quadratic} {
		for _, ly := range layouts(rng) {
			nd, err := NewNodes(order, ly.nodes, ly.radius)
			if err != nil {
				t.Fatal(err)
			}
			sf, err := nd.Evaluate(ly.points, 2)
			if err != nil {
				t.Fatalf("%s %s: %v", order, ly.name, err)
			}
			worst := [3]float64{}
			for trial := 0; trial < 3; trial++ {
				f := randomField(rng, order == Quadratic)
				for p := 0; p < sf.NumPoints(); p++ {
					k := sf.Offsets[p+1] - sf.Offsets[p]
					if k < ly.minNbr || k > ly.maxNbr {
						t.Fatalf("%s: point %d has %d neighbours, the layout wants %d..%d", ly.name, p, k, ly.minNbr, ly.maxNbr)
					}
					X := geom.At(ly.points, p)
					u, du, ddu := interpolate(nd, &sf, p, f)
					ue, due, ddue := f.at(X)
					worst[0] = math.Max(worst[0], maxDiff(u[:], ue[:]))
					worst[1] = math.Max(worst[1], maxDiff(du[:], due[:]))
					for r := 0; r < 3; r++ {
						worst[2] = math.Max(worst[2], maxDiff(ddu[r][:], ddue[r][:]))
					}
				}
			}
			t.Logf("%s GMLS, %s: largest error of u, ∇u, ∇∇u: %.2g %.2g %.2g", order, ly.name, worst[0], worst[1], worst[2])
			for i, what := range []string{"u", "∇u", "∇∇u"} {
				if worst[i] > 1e-12 {
					t.Errorf("%s GMLS, %s: %s not reproduced: error %.3g > 1e-12", order, ly.name, what, worst[i])
				}
			}
		}
	}
}

// TestLinearDoesNotReproduceQuadratic: the reproduction test can fail —
// linear GMLS on the random cloud misses a quadratic field by O(r²).
func TestLinearDoesNotReproduceQuadratic(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	ly := layouts(rng)[5]
	nd, _ := NewNodes(Linear, ly.nodes, ly.radius)
	sf, err := nd.Evaluate(ly.points, 0)
	if err != nil {
		t.Fatal(err)
	}
	f := randomField(rng, true)
	worst := 0.0
	for p := 0; p < sf.NumPoints(); p++ {
		u, _, _ := interpolate(nd, &sf, p, f)
		ue, _, _ := f.at(geom.At(ly.points, p))
		worst = math.Max(worst, maxDiff(u[:], ue[:]))
	}
	if worst < 1e-3 {
		t.Errorf("linear GMLS reproduced a quadratic field to %.3g: the reproduction test would not see a wrong order", worst)
	}
}

// TestSingleNodeClosedForm: with one neighbour the fit is the node's
// Taylor polynomial, so Nᵢ = 1, Nᵢʲ = (x − x̄ᵢ)ⱼ (linear), and for
// quadratic GMLS also Nᵢʲᵏ = ½ (x − x̄ᵢ)ⱼ (x − x̄ᵢ)ₖ, whatever the weight.
func TestSingleNodeClosedForm(t *testing.T) {
	xi := geom.Vec3{0.2, -0.4, 1.1}
	for _, order := range []Order{Linear, Quadratic} {
		nd, _ := NewNodes(order, xi[:], []float64{0.7})
		pts := []float64{0.5, -0.3, 1.0, 0.2, -0.4, 1.1, -0.2, -0.5, 1.3}
		sf, err := nd.Evaluate(pts, 0)
		if err != nil {
			t.Fatal(err)
		}
		for p := 0; p < 3; p++ {
			d := geom.At(pts, p).Sub(xi)
			want := []float64{1, d[0], d[1], d[2]}
			if order == Quadratic {
				for _, ab := range Pairs {
					want = append(want, 0.5*d[ab[0]]*d[ab[1]])
				}
			}
			got := sf.Entry(p)
			if e := maxAbs(sub(got, want)); e > 1e-14 {
				t.Errorf("%s, point %d: shape functions %v, want %v", order, p, got, want)
			}
		}
	}
}

// TestShapeFunctionDerivatives: the analytic gradients and Hessians of
// every shape function against central differences of the values
// (gradients) and of the analytic gradients (Hessians), at points of the
// random cloud. Step 1e-5 on radius 0.45: truncation O(h²·N”') ≈ 1e-9,
// rounding O(ε/h) ≈ 1e-11 relative to the largest entry; 1e-7 leaves a
// margin and still catches any wrong term (O(1)).
func TestShapeFunctionDerivatives(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 9))
	ly := layouts(rng)[5]
	const h = 1e-5
	for _, order := range []Order{Linear, Quadratic} {
		nd, _ := NewNodes(order, ly.nodes, ly.radius)
		var ws Workspace
		worst := 0.0
		for p := 0; p < 20; p++ {
			X := geom.At(ly.points, p)
			nodes, vals, err := nd.EvaluateAt(&ws, X, 2)
			if err != nil {
				t.Fatal(err)
			}
			nodes = slices.Clone(nodes)
			vals = slices.Clone(vals)
			scale := maxAbs(vals)
			for a := 0; a < 3; a++ {
				at := func(s float64) map[int][]float64 {
					Y := X
					Y[a] += s
					nb, v, err := nd.EvaluateAt(&ws, Y, 1)
					if err != nil {
						t.Fatal(err)
					}
					m := map[int][]float64{}
					st := order.Slots() * 4
					for k, i := range nb {
						m[i] = slices.Clone(v[k*st : (k+1)*st])
					}
					return m
				}
				plus, minus := at(h), at(-h)
				for k, i := range nodes {
					for s := 0; s < order.Slots(); s++ {
						got := vals[(k*order.Slots()+s)*10 : (k*order.Slots()+s+1)*10]
						vp, vm := plus[i][4*s:4*s+4], minus[i][4*s:4*s+4]
						// ∂ₐN against the value's difference.
						worst = math.Max(worst, math.Abs(got[1+a]-(vp[0]-vm[0])/(2*h))/scale)
						// ∂ₐ∂ᵦN against the gradient's difference.
						for m, ab := range Pairs {
							var b int
							switch a {
							case ab[0]:
								b = ab[1]
							case ab[1]:
								b = ab[0]
							default:
								continue
							}
							worst = math.Max(worst, math.Abs(got[4+m]-(vp[1+b]-vm[1+b])/(2*h))/scale)
						}
					}
				}
			}
		}
		t.Logf("%s: largest relative error of the analytic derivatives: %.2g", order, worst)
		if worst > 1e-7 {
			t.Errorf("%s: analytic derivatives of the shape functions disagree with finite differences: %.3g", order, worst)
		}
	}
}

// TestWeight: the kernel's value on closed-form points and its gradient
// and Hessian against central differences; zero outside the support.
func TestWeight(t *testing.T) {
	xi := geom.Vec3{1, 2, 3}
	r := 0.8
	x := geom.Vec3{1.3, 1.8, 3.2}
	w, g, H := Weight(x, xi, r)
	s := x.Sub(xi).Norm2() / (r * r)
	if want := math.Pow(1-s, 3); math.Abs(w-want) > 1e-15 {
		t.Errorf("w = %.17g, want %.17g", w, want)
	}
	const h = 1e-6
	for a := 0; a < 3; a++ {
		xp, xm := x, x
		xp[a] += h
		xm[a] -= h
		wp, gp, _ := Weight(xp, xi, r)
		wm, gm, _ := Weight(xm, xi, r)
		if d := math.Abs(g[a] - (wp-wm)/(2*h)); d > 1e-8 {
			t.Errorf("∂w/∂x%d = %g, differences %g", a, g[a], (wp-wm)/(2*h))
		}
		for b := 0; b < 3; b++ {
			if d := math.Abs(H[3*b+a] - (gp[b]-gm[b])/(2*h)); d > 1e-7 {
				t.Errorf("∂²w/∂x%d∂x%d = %g, differences %g", b, a, H[3*b+a], (gp[b]-gm[b])/(2*h))
			}
		}
	}
	if w, _, _ := Weight(xi.Add(geom.Vec3{r, 0, 0}), xi, r); w != 0 {
		t.Errorf("w on the support's boundary = %g, want 0", w)
	}
}

// TestNeighbours: the grid finds exactly the nodes a brute-force search
// finds, with per-node radii of very different sizes.
func TestNeighbours(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 1))
	n := 2000
	pos := make([]float64, 3*n)
	rad := make([]float64, n)
	for i := range pos {
		pos[i] = 4*rng.Float64() - 2
	}
	for i := range rad {
		rad[i] = 0.05 + 0.5*rng.Float64()
	}
	nd, err := NewNodes(Linear, pos, rad)
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	total := 0
	for q := 0; q < 400; q++ {
		x := geom.Vec3{5*rng.Float64() - 2.5, 5*rng.Float64() - 2.5, 5*rng.Float64() - 2.5}
		got = nd.Neighbours(got[:0], x)
		var want []int
		for i := 0; i < n; i++ {
			if x.Sub(geom.At(pos, i)).Norm() < rad[i] {
				want = append(want, i)
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("query %v: grid %v, brute force %v", x, got, want)
		}
		total += len(got)
	}
	if total < 1000 {
		t.Errorf("only %d neighbours over 400 queries (want ≥ 1000): the test does not exercise the search", total)
	}
}

// TestErrors: points outside every support and bad inputs are errors.
func TestErrors(t *testing.T) {
	nd, err := NewNodes(Linear, []float64{0, 0, 0}, []float64{1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := nd.Evaluate([]float64{0.5, 0, 0, 2, 0, 0}, 1); err == nil {
		t.Error("a point outside every support gave no error")
	}
	for _, bad := range []struct {
		o Order
		p []float64
		r []float64
	}{
		{3, []float64{0, 0, 0}, []float64{1}},
		{Linear, []float64{0, 0}, []float64{1}},
		{Linear, []float64{0, 0, 0}, []float64{0}},
		{Linear, []float64{0, 0, 0, 1, 1, 1, 2, 2, 2}, []float64{1, 1}},
		{Linear, []float64{0, math.NaN(), 0}, []float64{1}},
	} {
		if _, err := NewNodes(bad.o, bad.p, bad.r); err == nil {
			t.Errorf("NewNodes(%v, %v, %v) gave no error", bad.o, bad.p, bad.r)
		}
	}
}

func maxAbs(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = math.Max(m, math.Abs(x))
	}
	return m
}

func maxDiff(a, b []float64) float64 { return maxAbs(sub(a, b)) }

func sub(a, b []float64) []float64 {
	out := make([]float64, len(a))
	for i := range a {
		out[i] = a[i] - b[i]
	}
	return out
}

// TestPartitionOfUnity: the identities behind reproduction, checked on the
// shape functions themselves at points of the random cloud: Σᵢ Nᵢ = 1 with
// zero gradient and Hessian (constants), Σᵢ Nᵢ x̄ᵢ + Nᵢʲ eⱼ = x (linear
// fields: ∇ = I, ∇∇ = 0), and for quadratic GMLS Σᵢ Nᵢ x̄ᵢₐx̄ᵢᵦ + Nᵢʲ
// ∂ⱼ(xₐxᵦ)(x̄ᵢ) + Σ Nᵢʲᵏ ∂ⱼₖ(xₐxᵦ) = xₐxᵦ. Tolerance 1e-12 as in
// TestReproduction.
func TestPartitionOfUnity(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	ly := layouts(rng)[5]
	for _, order := range []Order{Linear, Quadratic} {
		nd, _ := NewNodes(order, ly.nodes, ly.radius)
		sf, err := nd.Evaluate(ly.points, 2)
		if err != nil {
			t.Fatal(err)
		}
		nc := Components(2)
		worst := 0.0
		for p := 0; p < sf.NumPoints(); p++ {
			x := geom.At(ly.points, p)
			var one [10]float64
			var lin [3][10]float64
			var quad [6][10]float64
			for e := sf.Offsets[p]; e < sf.Offsets[p+1]; e++ {
				xi := nd.Position(sf.Nodes[e])
				v := sf.Entry(e)
				for d := 0; d < nc; d++ {
					one[d] += v[d]
					for a := 0; a < 3; a++ {
						lin[a][d] += v[d]*xi[a] + v[(1+a)*nc+d]
					}
					if order == Quadratic {
						for m, ab := range Pairs {
							a, b := ab[0], ab[1]
							// f = xₐxᵦ: value, ∂ⱼf = δⱼₐxᵦ + δⱼᵦxₐ, ∂ⱼₖf = δⱼₐδₖᵦ + δⱼᵦδₖₐ.
							s := v[d] * xi[a] * xi[b]
							s += v[(1+a)*nc+d] * xi[b]
							s += v[(1+b)*nc+d] * xi[a]
							// Σⱼₖ ∂ⱼₖf Nʲᵏ: for a = b one ordered pair with
							// ∂ₐₐf = 2; for a ≠ b two ordered pairs with ∂ₐᵦf = 1
							// (Nᵃᵇ = Nᵇᵃ): 2 Nᵃᵇ either way.
							s += 2 * v[(4+m)*nc+d]
							quad[m][d] += s
						}
					}
				}
			}
			wantOne := [10]float64{1}
			worst = math.Max(worst, maxDiff(one[:], wantOne[:]))
			for a := 0; a < 3; a++ {
				var w [10]float64
				w[0], w[1+a] = x[a], 1
				worst = math.Max(worst, maxDiff(lin[a][:], w[:]))
			}
			if order == Quadratic {
				for m, ab := range Pairs {
					a, b := ab[0], ab[1]
					var w [10]float64
					w[0] = x[a] * x[b]
					w[1+a] += x[b]
					w[1+b] += x[a]
					if a == b {
						w[4+m] = 2
					} else {
						w[4+m] = 1
					}
					worst = math.Max(worst, maxDiff(quad[m][:], w[:]))
				}
			}
		}
		t.Logf("%s: largest error of the identities %.2g", order, worst)
		if worst > 1e-12 {
			t.Errorf("%s: partition-of-unity identities off by %.3g", order, worst)
		}
	}
}

// lectureShapeFunctions evaluates the lecture's formulas literally, in the
// global monomial basis of the lecture's order p = (1, x, y, z, xx, xy, xz,
// yy, yz, zz) (the first 4 for linear GMLS), with the raw weights
// w = (1 − |d|²)³ and a dense solve: Nᵢ^α = p(x)ᵀ G⁻¹ p^α(x̄ᵢ) w, G = Σᵢ w
// [p pᵀ + Σⱼ p,ⱼ p,ⱼᵀ + Σⱼₖ p,ⱼₖ p,ⱼₖᵀ] (ordered pairs j, k). It returns,
// per neighbour, the slots in this package's order (α = value, ∂ⱼ, then
// ∂ⱼₖ for Pairs).
func lectureShapeFunctions(t *testing.T, order Order, nodes []geom.Vec3, r float64, x geom.Vec3) [][]float64 {
	nb := order.Slots()
	p := func(y geom.Vec3) []float64 {
		v := []float64{1, y[0], y[1], y[2], y[0] * y[0], y[0] * y[1], y[0] * y[2], y[1] * y[1], y[1] * y[2], y[2] * y[2]}
		return v[:nb]
	}
	// dp(j, y) = ∂p/∂yⱼ, ddp(j, k) = ∂²p/∂yⱼ∂yₖ, by the lecture's monomials.
	mono := [10][3]int{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {2, 0, 0}, {1, 1, 0}, {1, 0, 1}, {0, 2, 0}, {0, 1, 1}, {0, 0, 2}}
	deriv := func(y geom.Vec3, d [3]int) []float64 {
		v := make([]float64, nb)
		for m := 0; m < nb; m++ {
			c := 1.0
			for a := 0; a < 3; a++ {
				e := mono[m][a]
				for k := 0; k < d[a]; k++ {
					c *= float64(e)
					e--
				}
				if e < 0 {
					c = 0
					break
				}
				c *= math.Pow(y[a], float64(e))
			}
			v[m] = c
		}
		return v
	}
	data := func(y geom.Vec3) (vs [][]float64) {
		vs = append(vs, p(y))
		for j := 0; j < 3; j++ {
			var d [3]int
			d[j] = 1
			vs = append(vs, deriv(y, d))
		}
		if order == Quadratic {
			for _, ab := range Pairs {
				var d [3]int
				d[ab[0]]++
				d[ab[1]]++
				vs = append(vs, deriv(y, d))
			}
		}
		return vs
	}
	G := mat.NewSymDense(nb, nil)
	var ws []float64
	for _, xi := range nodes {
		s := x.Sub(xi).Norm2() / (r * r)
		w := 0.0
		if s < 1 {
			w = math.Pow(1-s, 3)
		}
		ws = append(ws, w)
		vs := data(xi)
		for a, v := range vs {
			f := w
			if a >= 4 {
				f *= Multiplicity(a - 4) // the ordered pairs (j, k) and (k, j)
			}
			for i := 0; i < nb; i++ {
				for j := i; j < nb; j++ {
					G.SetSym(i, j, G.At(i, j)+f*v[i]*v[j])
				}
			}
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(G) {
		t.Fatal("lecture G not positive definite")
	}
	gam := mat.NewVecDense(nb, nil)
	if err := ch.SolveVecTo(gam, mat.NewVecDense(nb, p(x))); err != nil {
		t.Fatal(err)
	}
	var out [][]float64
	for i, xi := range nodes {
		vs := data(xi)
		var sl []float64
		for _, v := range vs {
			sl = append(sl, ws[i]*mat.Dot(gam, mat.NewVecDense(nb, v)))
		}
		out = append(out, sl)
	}
	return out
}

// TestLectureFormulas: the shape functions (values) equal the lecture's
// formulas evaluated literally — global unscaled monomials in the
// lecture's order, raw weights, dense Cholesky of G (gonum) — so the
// centred, scaled basis, the sparse node data and the normalised weights
// change nothing but rounding. Reproduction alone would not show this (any
// positive weighting of the value and derivative terms reproduces the
// same polynomials; a different weighting changes them by O(1)). Nodes
// around (2, −1, 0.5) with radius 0.6, 8–21 neighbours per point;
// measured 1.5e-15 relative to the largest shape function; tolerance
// 1e-12, the rounding allowed to the literal formula's G in global
// (uncentred) coordinates.
func TestLectureFormulas(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	c := geom.Vec3{2, -1, 0.5}
	var nodes []geom.Vec3
	var flat []float64
	for i := 0; i < 25; i++ {
		v := c.Add(geom.Vec3{rng.Float64() - 0.5, rng.Float64() - 0.5, rng.Float64() - 0.5})
		nodes = append(nodes, v)
		flat = append(flat, v[:]...)
	}
	const r = 0.6
	for _, order := range []Order{Linear, Quadratic} {
		nd, _ := NewNodes(order, flat, []float64{r})
		var ws Workspace
		worst := 0.0
		kmin, kmax := 1000, 0
		for q := 0; q < 20; q++ {
			x := c.Add(geom.Vec3{0.6*rng.Float64() - 0.3, 0.6*rng.Float64() - 0.3, 0.6*rng.Float64() - 0.3})
			nbrs, vals, err := nd.EvaluateAt(&ws, x, 0)
			if err != nil {
				t.Fatal(err)
			}
			kmin, kmax = min(kmin, len(nbrs)), max(kmax, len(nbrs))
			var sub []geom.Vec3
			for _, i := range nbrs {
				sub = append(sub, nodes[i])
			}
			want := lectureShapeFunctions(t, order, sub, r, x)
			scale := 0.0
			for _, w := range want {
				scale = math.Max(scale, maxAbs(w))
			}
			for k := range nbrs {
				got := vals[k*order.Slots() : (k+1)*order.Slots()]
				worst = math.Max(worst, maxDiff(got, want[k])/scale)
			}
		}
		t.Logf("%s: largest relative difference from the literal lecture formulas %.2g (%d–%d neighbours)", order, worst, kmin, kmax)
		if worst > 1e-12 {
			t.Errorf("%s: shape functions differ from the lecture's formulas by %.3g (relative)", order, worst)
		}
	}
}

// TestEvaluateDeterministic: Evaluate gives the same bits on one and on
// several goroutines (each point is computed alone into its own slots).
func TestEvaluateDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 1))
	ly := layouts(rng)[5]
	nd, _ := NewNodes(Quadratic, ly.nodes, ly.radius)
	pts := slices.Repeat(ly.points, 10) // 2,000 points: enough to split
	prev := runtime.GOMAXPROCS(1)
	one, err := nd.Evaluate(pts, 2)
	runtime.GOMAXPROCS(max(prev, 4))
	many, err2 := nd.Evaluate(pts, 2)
	runtime.GOMAXPROCS(prev)
	if err != nil || err2 != nil {
		t.Fatal(err, err2)
	}
	if !slices.Equal(one.Offsets, many.Offsets) || !slices.Equal(one.Nodes, many.Nodes) || !slices.Equal(one.Values, many.Values) {
		t.Error("Evaluate differs between 1 and several goroutines")
	}
}
