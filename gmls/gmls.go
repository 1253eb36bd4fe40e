// Package gmls computes generalized moving least squares (GMLS) shape
// functions (Martin et al. 2010; lecture notes 004, "Mesh-Free Methods",
// "Classical MLS", "Generalized MLS"): meshfree nodes x̄ᵢ carry a value uᵢ
// and its first derivatives uᵢ,ⱼ (linear GMLS) and also its second
// derivatives uᵢ,ⱼₖ (quadratic GMLS), and the field anywhere is
//
//	u(x̄) = Σᵢ [ uᵢ Nᵢ(x̄) + Σⱼ uᵢ,ⱼ Nᵢʲ(x̄) + Σⱼₖ uᵢ,ⱼₖ Nᵢʲᵏ(x̄) ],
//
//	Nᵢ(x̄)   = p(x̄)ᵀ G⁻¹(x̄) p(x̄ᵢ)     w(x̄ − x̄ᵢ),
//	Nᵢʲ(x̄)  = p(x̄)ᵀ G⁻¹(x̄) p,ⱼ(x̄ᵢ)   w(x̄ − x̄ᵢ),
//	Nᵢʲᵏ(x̄) = p(x̄)ᵀ G⁻¹(x̄) p,ⱼₖ(x̄ᵢ)  w(x̄ − x̄ᵢ),
//
//	G(x̄) = Σᵢ w(x̄ − x̄ᵢ) [ p(x̄ᵢ) p(x̄ᵢ)ᵀ + Σⱼ p,ⱼ(x̄ᵢ) p,ⱼ(x̄ᵢ)ᵀ + Σⱼₖ p,ⱼₖ(x̄ᵢ) p,ⱼₖ(x̄ᵢ)ᵀ ],
//
// the minimiser of the lecture's least-squares fit of a polynomial aᵀp to
// the values and the derivatives of the nodes (the lecture's objective
// writes ½ before the value term only; its G — implemented here — weighs
// values and derivatives equally, i.e. the same ½ on every term), p the complete linear
// basis (1, x, y, z) or quadratic basis (adding xx, xy, xz, yy, yz, zz;
// the Σⱼₖ terms only for quadratic GMLS, over all nine ordered pairs j, k
// as in the lecture, so that a mixed pair counts twice). The weight is
// w(d) = (1 − |d|²)³ on d = (x̄ − x̄ᵢ)/rᵢ, zero for |d| ≥ 1, rᵢ the node's
// support radius; it is C² (w, ∇w and ∇∇w vanish on the support's
// boundary), so the shape functions are twice continuously differentiable,
// as elastons' bending strains need.
//
// Because G is assembled from the derivatives as well as the values, one
// node alone makes it regular (the Taylor data of one node determine a
// linear or quadratic polynomial), so the shape functions exist wherever
// at least one node's support reaches, with collinear or coplanar nodes
// too. GMLS reproduces every polynomial of its basis exactly: if the node
// data are those of a linear (quadratic) field, u(x̄) and all its
// derivatives are that field's.
//
// Computation: the shape functions do not depend on the choice of the
// polynomial basis spanning the same space (the fit is of the function and
// its derivatives, not of coefficients), so at each evaluation point x̄₀
// the basis is taken as p((x − x̄₀)/h), h the largest support radius of
// the neighbours, which keeps G well conditioned whatever the coordinates'
// origin and scale. The spatial derivatives are analytic, the classical
// MLS identities with γ = G⁻¹ p(x̄):
//
//	γ,ₐ  = G⁻¹ (p,ₐ − G,ₐ γ),
//	γ,ₐᵦ = G⁻¹ (p,ₐᵦ − G,ₐ γ,ᵦ − G,ᵦ γ,ₐ − G,ₐᵦ γ),    G,ₐ = Σᵢ w,ₐ Mᵢ, …
//
// and N = w cᵀγ for each node datum c ∈ {p(x̄ᵢ), p,ⱼ(x̄ᵢ), p,ⱼₖ(x̄ᵢ)}, so
// N,ₐ = w,ₐ cᵀγ + w cᵀγ,ₐ and N,ₐᵦ = w,ₐᵦ cᵀγ + w,ₐ cᵀγ,ᵦ + w,ᵦ cᵀγ,ₐ +
// w cᵀγ,ₐᵦ. One Cholesky factorisation of G (4×4 or 10×10) serves them
// all. The weights are divided by their sum first (see normalise): the
// shape functions do not change, the rounding near the edge of a lone
// support does.
//
// The fit adds squared values (length²) and squared derivatives
// (dimensionless) as the lecture does, so away from reproduced fields the
// interpolant depends on the unit of length; reproduction does not.
package gmls

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/parallel"
)

// Order is the polynomial order of the GMLS fit: Linear (nodes carry u and
// ∇u) or Quadratic (nodes also carry ∇∇u).
type Order int

const (
	Linear    Order = 1
	Quadratic Order = 2
)

// Slots returns the number of shape functions per node, which is also the
// size of the polynomial basis: 4 for linear GMLS (Nᵢ, Nᵢ⁰, Nᵢ¹, Nᵢ²), 10
// for quadratic GMLS (adding Nᵢʲᵏ for the pairs of Pairs).
func (o Order) Slots() int {
	if o == Quadratic {
		return 10
	}
	return 4
}

func (o Order) String() string {
	switch o {
	case Linear:
		return "linear"
	case Quadratic:
		return "quadratic"
	}
	return fmt.Sprintf("Order(%d)", int(o))
}

// Pairs are the index pairs (j, k) of the second derivatives, in the order
// of the quadratic slots 4..9 and of the second-derivative components
// 4..9: xx, yy, zz, xy, yz, zx (the order of the Quadratic3 template's
// quadratic columns). Nᵢʲᵏ = Nᵢᵏʲ, so a mixed pair stands for both of its
// orderings: with symmetric node data, Σⱼₖ uᵢ,ⱼₖ Nᵢʲᵏ = Σ over Pairs of
// Multiplicity · uᵢ,ⱼₖ Nᵢʲᵏ.
var Pairs = [6][2]int{{0, 0}, {1, 1}, {2, 2}, {0, 1}, {1, 2}, {2, 0}}

// Multiplicity returns how many ordered pairs (j, k) quadratic slot or
// second-derivative component 4+m stands for: 1 for xx, yy, zz, 2 for xy,
// yz, zx.
func Multiplicity(m int) float64 {
	if m < 3 {
		return 1
	}
	return 2
}

// Components returns the number of numbers per shape function for the
// given derivative level: 1 (the value), 4 (value, ∂₀, ∂₁, ∂₂) or 10
// (adding ∂∂ for the pairs of Pairs: ∂₀₀, ∂₁₁, ∂₂₂, ∂₀₁, ∂₁₂, ∂₂₀).
func Components(derivs int) int {
	switch derivs {
	case 0:
		return 1
	case 1:
		return 4
	}
	return 10
}

// Weight returns the lecture's kernel w = (1 − |d|²)³, d = (x − xi)/r, and
// its gradient and Hessian in x (zero outside the support |d| < 1).
func Weight(x, xi geom.Vec3, r float64) (w float64, g geom.Vec3, H geom.Mat3) {
	dx := x.Sub(xi)
	ir2 := 1 / (r * r)
	s := dx.Norm2() * ir2
	if s >= 1 {
		return 0, g, H
	}
	t := 1 - s
	w = t * t * t
	// s,ₐ = 2 dxₐ/r², s,ₐᵦ = 2 δₐᵦ/r²; w,ₐ = −3t² s,ₐ; w,ₐᵦ = 6t s,ₐ s,ᵦ − 3t² s,ₐᵦ.
	c1 := -6 * t * t * ir2
	c2 := 24 * t * ir2 * ir2
	for a := 0; a < 3; a++ {
		g[a] = c1 * dx[a]
		for b := 0; b < 3; b++ {
			H[3*a+b] = c2 * dx[a] * dx[b]
		}
		H[4*a] += c1
	}
	return w, g, H
}

// Nodes are GMLS nodes: rest positions, support radii and a neighbour
// grid.
type Nodes struct {
	order  Order
	pos    []geom.Vec3
	radius []float64
	grid   grid
}

// NewNodes returns the nodes of the given order at positions (flat
// [x y z ...]) with support radii: one radius for all nodes, or one per
// node (all positive and finite).
func NewNodes(order Order, positions []float64, radii []float64) (*Nodes, error) {
	if order != Linear && order != Quadratic {
		return nil, fmt.Errorf("GMLS order %d: want 1 (linear) or 2 (quadratic)", int(order))
	}
	if len(positions)%3 != 0 {
		return nil, fmt.Errorf("%d node coordinates: not a multiple of 3", len(positions))
	}
	n := len(positions) / 3
	if n == 0 {
		return nil, errors.New("no GMLS nodes")
	}
	if len(radii) != 1 && len(radii) != n {
		return nil, fmt.Errorf("%d support radii for %d nodes: give one radius for all nodes or one per node", len(radii), n)
	}
	nd := &Nodes{order: order, pos: make([]geom.Vec3, n), radius: make([]float64, n)}
	for i := range nd.pos {
		nd.pos[i] = geom.At(positions, i)
		for _, v := range nd.pos[i] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("node %d: position is not finite", i)
			}
		}
		r := radii[0]
		if len(radii) == n {
			r = radii[i]
		}
		if !(r > 0) || math.IsInf(r, 0) {
			return nil, fmt.Errorf("node %d: support radius %g must be positive and finite", i, r)
		}
		nd.radius[i] = r
	}
	nd.grid = newGrid(nd.pos, nd.radius)
	return nd, nil
}

// Order returns the nodes' order.
func (n *Nodes) Order() Order { return n.order }

// Len returns the number of nodes.
func (n *Nodes) Len() int { return len(n.pos) }

// Position returns the rest position of node i.
func (n *Nodes) Position(i int) geom.Vec3 { return n.pos[i] }

// Radius returns the support radius of node i.
func (n *Nodes) Radius(i int) float64 { return n.radius[i] }

// Neighbours appends to dst the nodes whose support contains x
// (|x − x̄ᵢ| < rᵢ), in increasing index order, and returns it.
func (n *Nodes) Neighbours(dst []int, x geom.Vec3) []int {
	return n.grid.query(dst, x)
}

// ShapeFunctions are the GMLS shape functions of the nodes at a list of
// points, compressed by point (CSR): the neighbours of point p are the
// entries e in [Offsets[p], Offsets[p+1]), node Nodes[e], in increasing
// node order. Entry e holds Slots × Components(Derivs) numbers in Values,
// from e·Slots·Components on, slot-major: number s·Components + c is
// component c (value, ∂₀, ∂₁, ∂₂, then ∂∂ in Pairs order) of shape
// function s (Nᵢ, Nᵢ⁰, Nᵢ¹, Nᵢ², then Nᵢʲᵏ in Pairs order).
type ShapeFunctions struct {
	Order   Order
	Derivs  int // 0: values; 1: and gradients; 2: and Hessians
	Offsets []int
	Nodes   []int
	Values  []float64
}

// NumPoints returns the number of points.
func (s *ShapeFunctions) NumPoints() int { return len(s.Offsets) - 1 }

// Stride returns the number of Values per entry.
func (s *ShapeFunctions) Stride() int { return s.Order.Slots() * Components(s.Derivs) }

// Entry returns the values of entry e (a view).
func (s *ShapeFunctions) Entry(e int) []float64 {
	st := s.Stride()
	return s.Values[e*st : (e+1)*st : (e+1)*st]
}

// Evaluate returns the shape functions and their derivatives up to derivs
// (0, 1 or 2) at the points (flat [x y z ...]), in parallel over the
// points (the results do not depend on the number of workers). A point
// that no node's support reaches is an error naming it.
func (n *Nodes) Evaluate(points []float64, derivs int) (ShapeFunctions, error) {
	if derivs < 0 || derivs > 2 {
		return ShapeFunctions{}, fmt.Errorf("derivative level %d: want 0, 1 or 2", derivs)
	}
	if len(points)%3 != 0 {
		return ShapeFunctions{}, fmt.Errorf("%d point coordinates: not a multiple of 3", len(points))
	}
	np := len(points) / 3
	sf := ShapeFunctions{Order: n.order, Derivs: derivs, Offsets: make([]int, np+1)}
	var run parallel.Runner
	// Pass 1: the neighbours of every point.
	nbrs := make([][]int, np)
	counts := sf.Offsets[1:]
	run.Run(np, 64, func(lo, hi int) {
		var buf []int
		for p := lo; p < hi; p++ {
			buf = n.Neighbours(buf[:0], geom.At(points, p))
			nbrs[p] = slices.Clone(buf)
			counts[p] = len(buf)
		}
	})
	for p := 0; p < np; p++ {
		if counts[p] == 0 {
			return ShapeFunctions{}, fmt.Errorf("point %d at %v is outside the support of every GMLS node", p, geom.At(points, p))
		}
		sf.Offsets[p+1] += sf.Offsets[p]
	}
	ne := sf.Offsets[np]
	st := sf.Stride()
	sf.Nodes = make([]int, ne)
	sf.Values = make([]float64, ne*st)
	// Pass 2: the shape functions, each point into its own slots.
	errs := make([]error, np)
	run.Run(np, 16, func(lo, hi int) {
		var ws Workspace
		for p := lo; p < hi; p++ {
			a, b := sf.Offsets[p], sf.Offsets[p+1]
			copy(sf.Nodes[a:b], nbrs[p])
			if err := n.eval(&ws, geom.At(points, p), derivs, nbrs[p], sf.Values[a*st:b*st]); err != nil {
				errs[p] = fmt.Errorf("point %d at %v: %w", p, geom.At(points, p), err)
			}
		}
	})
	for _, err := range errs {
		if err != nil {
			return ShapeFunctions{}, err
		}
	}
	return sf, nil
}

// Workspace holds the buffers of one evaluation; reuse it across calls of
// EvaluateAt on one goroutine to avoid allocations.
type Workspace struct {
	nbrs   []int
	c      []float64 // per neighbour: the non-zeros of its data vectors c_α (pattern order)
	w      []float64
	g      []geom.Vec3
	h      []geom.Mat3
	s      []float64 // per neighbour and α: cᵀγ, cᵀγ,ₐ (3), cᵀγ,ₐᵦ (6)
	values []float64
}

// EvaluateAt returns the neighbours of x and their shape functions (as in
// ShapeFunctions: Slots × Components(derivs) numbers per neighbour), views
// into ws valid until its next use.
func (n *Nodes) EvaluateAt(ws *Workspace, x geom.Vec3, derivs int) (nodes []int, values []float64, err error) {
	if derivs < 0 || derivs > 2 {
		return nil, nil, fmt.Errorf("derivative level %d: want 0, 1 or 2", derivs)
	}
	ws.nbrs = n.Neighbours(ws.nbrs[:0], x)
	if len(ws.nbrs) == 0 {
		return nil, nil, fmt.Errorf("%v is outside the support of every GMLS node", x)
	}
	sz := len(ws.nbrs) * n.order.Slots() * Components(derivs)
	if cap(ws.values) < sz {
		ws.values = make([]float64, sz)
	}
	ws.values = ws.values[:sz]
	if err := n.eval(ws, x, derivs, ws.nbrs, ws.values); err != nil {
		return nil, nil, err
	}
	return ws.nbrs, ws.values, nil
}

// grow returns s resized to n (reallocated when too small).
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// pattern is the sparsity of the node data vectors c_α (α = value, ∂ⱼ,
// then ∂ⱼₖ in Pairs order) in the scaled monomial basis [1, y₀, y₁, y₂,
// then yₐyᵦ in Pairs order]: c_α has its non-zeros at idx[off[α]:off[α+1]]
// — dense for the value, 1 + (quadratic) 3 entries for a first
// derivative, 1 for a second derivative (7 or 28 numbers per node instead
// of 16 or 100).
type pattern struct {
	off []int
	idx []int
}

var patterns = [3]pattern{Linear: makePattern(false), Quadratic: makePattern(true)}

func makePattern(quad bool) pattern {
	nb := 4
	if quad {
		nb = 10
	}
	var p pattern
	p.off = append(p.off, 0)
	for c := 0; c < nb; c++ {
		p.idx = append(p.idx, c)
	}
	p.off = append(p.off, len(p.idx))
	for j := 0; j < 3; j++ {
		p.idx = append(p.idx, 1+j)
		if quad {
			for m, ab := range Pairs {
				if ab[0] == j || ab[1] == j {
					p.idx = append(p.idx, 4+m)
				}
			}
		}
		p.off = append(p.off, len(p.idx))
	}
	if quad {
		for m := range Pairs {
			p.idx = append(p.idx, 4+m)
			p.off = append(p.off, len(p.idx))
		}
	}
	return p
}

// eval writes the shape functions of the neighbours nbrs at x into out.
func (n *Nodes) eval(ws *Workspace, x geom.Vec3, derivs int, nbrs []int, out []float64) error {
	nb := n.order.Slots() // basis size = data per node
	quad := n.order == Quadratic
	pat := &patterns[n.order]
	nz := len(pat.idx)
	nc := Components(derivs)
	K := len(nbrs)
	h := 0.0
	for _, i := range nbrs {
		h = math.Max(h, n.radius[i])
	}
	ih := 1 / h
	ws.c = grow(ws.c, K*nz)
	ws.w = grow(ws.w, K)
	ws.g = grow(ws.g, K)
	ws.h = grow(ws.h, K)
	ws.s = grow(ws.s, K*nb*10)
	// Node data vectors in the basis p(y), y = (X − x)/h (their non-zeros,
	// in pattern order).
	for k, i := range nbrs {
		y := n.pos[i].Sub(x).Scale(ih)
		c := ws.c[k*nz : (k+1)*nz]
		// c_0 = p(y).
		c[0], c[1], c[2], c[3] = 1, y[0], y[1], y[2]
		q := nb
		for j := 0; j < 3; j++ {
			// c_{1+j} = p,ⱼ = ∂p/∂yⱼ / h; ∂(yₐyᵦ)/∂yⱼ = δₐⱼ yᵦ + δᵦⱼ yₐ.
			c[q] = ih
			q++
			if quad {
				for _, ab := range Pairs {
					a, b := ab[0], ab[1]
					switch {
					case a == j && b == j:
						c[q] = 2 * y[j] * ih
					case a == j:
						c[q] = y[b] * ih
					case b == j:
						c[q] = y[a] * ih
					default:
						continue
					}
					q++
				}
			}
		}
		if quad {
			for m, ab := range Pairs {
				c[4+m] = y[ab[0]] * y[ab[1]]
				// c_{4+m} = p,ⱼₖ for the pair m = (j, k): ∂²(yⱼyₖ)/∂yⱼ∂yₖ / h².
				if ab[0] == ab[1] {
					c[q] = 2 * ih * ih
				} else {
					c[q] = ih * ih
				}
				q++
			}
		}
		ws.w[k], ws.g[k], ws.h[k] = Weight(x, n.pos[i], n.radius[i])
	}
	normalise(ws.w[:K], ws.g[:K], ws.h[:K])
	// G = Σₖ wₖ Σ_α mult_α c cᵀ.
	var G [100]float64
	for k := 0; k < K; k++ {
		c := ws.c[k*nz : (k+1)*nz]
		w := ws.w[k]
		for al := 0; al < nb; al++ {
			f := w
			if al >= 4 {
				f *= Multiplicity(al - 4)
			}
			lo, hi := pat.off[al], pat.off[al+1]
			for p := lo; p < hi; p++ {
				fr := f * c[p]
				row := G[pat.idx[p]*nb:]
				for q := lo; q < hi; q++ {
					row[pat.idx[q]] += fr * c[q]
				}
			}
		}
	}
	var L [100]float64
	if err := cholesky(L[:nb*nb], G[:nb*nb], nb); err != nil {
		return err
	}
	// γ = G⁻¹ p(x̄), p(x̄) = p(0) = e₀; then its derivatives.
	var gam [10][10]float64 // γ, γ,ₐ (1..3), γ,ₐᵦ (4..9 in Pairs order)
	// dots sets ws.s[(k·nb + α)·10 + d] = c_kα · γ_d.
	dots := func(d int) {
		gd := &gam[d]
		for k := 0; k < K; k++ {
			c := ws.c[k*nz : (k+1)*nz]
			sk := ws.s[k*nb*10 : (k+1)*nb*10]
			for al := 0; al < nb; al++ {
				s := 0.0
				for p := pat.off[al]; p < pat.off[al+1]; p++ {
					s += c[p] * gd[pat.idx[p]]
				}
				sk[al*10+d] = s
			}
		}
	}
	// subMc subtracts Σₖ Σ_α mult_α coef(k, α) c_kα from v.
	subMc := func(v []float64, coef func(k int, s []float64) float64) {
		for k := 0; k < K; k++ {
			c := ws.c[k*nz : (k+1)*nz]
			sk := ws.s[k*nb*10 : (k+1)*nb*10]
			for al := 0; al < nb; al++ {
				f := coef(k, sk[al*10:al*10+10])
				if al >= 4 {
					f *= Multiplicity(al - 4)
				}
				for p := pat.off[al]; p < pat.off[al+1]; p++ {
					v[pat.idx[p]] -= f * c[p]
				}
			}
		}
	}
	gam[0][0] = 1
	cholSolve(gam[0][:nb], L[:nb*nb], nb)
	dots(0)
	if derivs >= 1 {
		for a := 0; a < 3; a++ {
			// γ,ₐ = G⁻¹ (p,ₐ − G,ₐ γ), p,ₐ(x̄) = e_{1+a}/h, G,ₐ = Σ w,ₐ M.
			v := gam[1+a][:nb]
			v[1+a] = ih
			subMc(v, func(k int, s []float64) float64 { return ws.g[k][a] * s[0] })
			cholSolve(v, L[:nb*nb], nb)
		}
		for a := 1; a <= 3; a++ {
			dots(a)
		}
	}
	if derivs >= 2 {
		for m, ab := range Pairs {
			a, b := ab[0], ab[1]
			// γ,ₐᵦ = G⁻¹ (p,ₐᵦ − G,ₐ γ,ᵦ − G,ᵦ γ,ₐ − G,ₐᵦ γ).
			v := gam[4+m][:nb]
			if quad {
				// p,ₐᵦ(x̄) = ∂²p/∂yₐ∂yᵦ / h² at y = 0: only the monomial yₐyᵦ.
				if a == b {
					v[4+m] = 2 * ih * ih
				} else {
					v[4+m] = ih * ih
				}
			}
			subMc(v, func(k int, s []float64) float64 {
				return ws.g[k][a]*s[1+b] + ws.g[k][b]*s[1+a] + ws.h[k][3*a+b]*s[0]
			})
			cholSolve(v, L[:nb*nb], nb)
		}
		for d := 4; d < 10; d++ {
			dots(d)
		}
	}
	// N = w s, N,ₐ = w,ₐ s + w s,ₐ, N,ₐᵦ = w,ₐᵦ s + w,ₐ s,ᵦ + w,ᵦ s,ₐ + w s,ₐᵦ.
	for k := 0; k < K; k++ {
		w, g, H := ws.w[k], &ws.g[k], &ws.h[k]
		for al := 0; al < nb; al++ {
			s := ws.s[(k*nb+al)*10 : (k*nb+al)*10+10]
			o := out[(k*nb+al)*nc : (k*nb+al+1)*nc]
			o[0] = w * s[0]
			if derivs >= 1 {
				for a := 0; a < 3; a++ {
					o[1+a] = g[a]*s[0] + w*s[1+a]
				}
			}
			if derivs >= 2 {
				for m, ab := range Pairs {
					a, b := ab[0], ab[1]
					o[4+m] = H[3*a+b]*s[0] + g[a]*s[1+b] + g[b]*s[1+a] + w*s[4+m]
				}
			}
		}
	}
	return nil
}

// normalise replaces the weights by ŵ = w/S, S = Σ w, with their exact
// gradients ∇ŵ = (∇w − ŵ ∇S)/S and Hessians ∇∇ŵ = (∇∇w − ŵ ∇∇S − ∇ŵ ∇Sᵀ
// − ∇S ∇ŵᵀ)/S. The shape functions do not change (G and every
// w-weighted term scale by 1/S), but the cancellation between the terms
// of N,ₐ and N,ₐᵦ, of the size of ∇w/w and ∇∇w/w — unbounded towards the
// edge of a support that holds a point alone — is gone: a point with one
// neighbour gets ŵ = 1 and zero derivatives exactly.
func normalise(w []float64, g []geom.Vec3, H []geom.Mat3) {
	S, dS, HS := 0.0, geom.Vec3{}, geom.Mat3{}
	for k := range w {
		S += w[k]
		dS = dS.Add(g[k])
		HS = HS.Add(H[k])
	}
	iS := 1 / S
	for k := range w {
		w[k] *= iS
		gk := g[k].Sub(dS.Scale(w[k])).Scale(iS)
		Hk := H[k].Sub(HS.Scale(w[k]))
		for a := 0; a < 3; a++ {
			for b := 0; b < 3; b++ {
				Hk[3*a+b] -= gk[a]*dS[b] + dS[a]*gk[b]
			}
		}
		g[k], H[k] = gk, Hk.Scale(iS)
	}
}

// cholesky factors the symmetric positive definite n×n matrix A = L Lᵀ
// (L lower triangular, row-major into L). It fails when a pivot is not
// positive relative to the diagonal (G singular: cannot happen with at
// least one neighbour, short of rounding on a degenerate scale).
func cholesky(L, A []float64, n int) error {
	dmax := 0.0
	for i := 0; i < n; i++ {
		dmax = math.Max(dmax, A[i*n+i])
	}
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			s := A[i*n+j]
			for k := 0; k < j; k++ {
				s -= L[i*n+k] * L[j*n+k]
			}
			if i == j {
				if !(s > 1e-14*dmax) {
					return fmt.Errorf("the GMLS moment matrix G is singular (pivot %d: %g of %g)", i, s, dmax)
				}
				L[i*n+i] = math.Sqrt(s)
			} else {
				L[i*n+j] = s / L[j*n+j]
			}
		}
	}
	return nil
}

// cholSolve overwrites b with A⁻¹ b for A = L Lᵀ.
func cholSolve(b, L []float64, n int) {
	for i := 0; i < n; i++ {
		s := b[i]
		for k := 0; k < i; k++ {
			s -= L[i*n+k] * b[k]
		}
		b[i] = s / L[i*n+i]
	}
	for i := n - 1; i >= 0; i-- {
		s := b[i]
		for k := i + 1; k < n; k++ {
			s -= L[k*n+i] * b[k]
		}
		b[i] = s / L[i*n+i]
	}
}
