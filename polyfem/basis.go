package polyfem

import (
	"fmt"
	"math"

	"github.com/sofago/sofago/geom"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// Options tune the fit of the harmonic shape functions. Zero values take
// the defaults noted.
type Options struct {
	// KernelScale places the kernel centres on the element's boundary
	// scaled by this factor about its centre (outside the convex
	// element): larger is smoother and worse conditioned. Default 2.
	KernelScale float64
	// KernelGrid and CollocationGrid are the subdivisions of each face
	// triangle (fanned from the face centre) that sample the kernel
	// centres and the collocation points. By default KernelGrid is the
	// largest g whose sample has at most about MaxCentres points
	// (T·g²/2 ≤ MaxCentres for T fan triangles; 4 on a hexahedron: 194
	// centres), and CollocationGrid is KernelGrid + 2 (about twice as
	// many collocation points as unknowns).
	KernelGrid, CollocationGrid int
	// MaxCentres bounds the kernel centres per element when KernelGrid
	// is 0. Default 200.
	MaxCentres int
	// ShortEdge adds kernel centres close to the edges shorter than
	// ShortEdge times the cell's radius (shortEdgeCentres). Default 0.5;
	// negative: none.
	ShortEdge float64
	// Rcond is the relative pivot cutoff of the least-squares solve
	// (rank-revealing QR). Default 1e-10.
	Rcond float64
}

func (o *Options) defaults() {
	if o.KernelScale == 0 {
		o.KernelScale = 3
	}
	if o.MaxCentres == 0 {
		o.MaxCentres = 200
	}
	if o.ShortEdge == 0 {
		o.ShortEdge = 0.5
	}
	if o.Rcond == 0 {
		o.Rcond = 1e-10
	}
}

// ElementBasis holds the harmonic shape functions of one element, one
// per node (Nodes, the cell's vertices in Cell.Vertices order): in the
// element's local coordinates x̂ = (x − Centre)/Scale,
//
//	Nₐ(x) = Σⱼ W[j·n + a] / |x̂ − Kⱼ| + A[4a]·x̂₀ + A[4a+1]·x̂₁ + A[4a+2]·x̂₂ + A[4a+3].
type ElementBasis struct {
	Nodes  []int
	Centre geom.Vec3
	Scale  float64
	K      []geom.Vec3
	W      []float64
	A      []float64
	// FitError is the largest |Nₐ − bₐ| over the element's boundary
	// check points (a sample one subdivision finer than the collocation
	// points, so mostly between them): how well
	// the fundamental solutions reproduce the barycentric boundary data.
	FitError float64
}

// Eval writes Nₐ(x) into N and ∇Nₐ(x) into G (either may be nil).
func (b *ElementBasis) Eval(x geom.Vec3, N []float64, G []geom.Vec3) {
	n := len(b.Nodes)
	inv := 1 / b.Scale
	x0, x1, x2 := (x[0]-b.Centre[0])*inv, (x[1]-b.Centre[1])*inv, (x[2]-b.Centre[2])*inv
	var nv [64]float64
	var g0, g1, g2 [64]float64
	if n > 64 {
		panic("polyfem: more than 64 nodes in an element") // FitElement refuses them
	}
	for a := 0; a < n; a++ {
		A := b.A[4*a : 4*a+4 : 4*a+4]
		nv[a] = A[0]*x0 + A[1]*x1 + A[2]*x2 + A[3]
		g0[a], g1[a], g2[a] = A[0], A[1], A[2]
	}
	W := b.W
	for j, k := range b.K {
		d0, d1, d2 := x0-k[0], x1-k[1], x2-k[2]
		r2 := d0*d0 + d1*d1 + d2*d2
		psi := 1 / math.Sqrt(r2)
		s := -psi / r2 // ∇(1/r) = −d/r³
		p0, p1, p2 := s*d0, s*d1, s*d2
		w := W[j*n : j*n+n : j*n+n]
		if G == nil {
			for a, wa := range w {
				nv[a] += wa * psi
			}
			continue
		}
		for a, wa := range w {
			nv[a] += wa * psi
			g0[a] += wa * p0
			g1[a] += wa * p1
			g2[a] += wa * p2
		}
	}
	if N != nil {
		copy(N[:n], nv[:n])
	}
	if G != nil {
		for a := 0; a < n; a++ {
			G[a] = geom.Vec3{g0[a] * inv, g1[a] * inv, g2[a] * inv} // dx̂/dx = 1/Scale
		}
	}
}

// boundarySamples returns points on the faces of cell e (each face fanned
// from its centre, each fan triangle sampled by a barycentric grid of g
// subdivisions), deduplicated, with the barycentric data of every node
// (len(nodes) per point, row-major): the Wachspress coordinates of the
// face the point is on. If scale ≠ 1 the points are moved to
// centre + scale·(p − centre) (kernel centres) and no data is computed.
func (m *Mesh) boundarySamples(e int, nodes []int, g int, centre geom.Vec3, scale float64) (pts []geom.Vec3, data []float64) {
	index := map[int]int{}
	for a, v := range nodes {
		index[v] = a
	}
	seen := map[[3]int64]bool{}
	var size float64
	for _, v := range nodes {
		size = math.Max(size, geom.At(m.Points, v).Sub(centre).Norm())
	}
	quant := func(p geom.Vec3) [3]int64 {
		return [3]int64{int64(math.Round(p[0] / size * 1e9)), int64(math.Round(p[1] / size * 1e9)), int64(math.Round(p[2] / size * 1e9))}
	}
	wk := make([]float64, 64)
	for _, f := range m.Cells[e].Faces {
		fc := faceCentre(m.Points, f)
		nrm := faceArea(m.Points, f).Normalized()
		for i := range f {
			p0, p1 := geom.At(m.Points, f[i]), geom.At(m.Points, f[(i+1)%len(f)])
			for u := 0; u <= g; u++ {
				for v := 0; u+v <= g; v++ {
					x := fc.Scale(float64(g-u-v) / float64(g)).Add(p0.Scale(float64(u) / float64(g))).Add(p1.Scale(float64(v) / float64(g)))
					key := quant(x)
					if seen[key] {
						continue
					}
					seen[key] = true
					if scale != 1 {
						pts = append(pts, centre.Add(x.Sub(centre).Scale(scale)))
						continue
					}
					pts = append(pts, x)
					row := make([]float64, len(nodes))
					wachspress(m.Points, f, nrm, x, wk)
					for k, v := range f {
						row[index[v]] = wk[k]
					}
					data = append(data, row...)
				}
			}
		}
	}
	return pts, data
}

// FitElement computes the harmonic shape functions of cell e by the
// method of fundamental solutions:
//
//  1. collocation points on the boundary (CollocationGrid) with the
//     Wachspress data bₐ of every node; kernel centres on the boundary
//     scaled by KernelScale about the cell's centre (outside the convex
//     cell); coordinates centred on the cell and scaled by its radius;
//  2. the least-squares problem min Σ |Σⱼ wⱼ ψ(|x̂ − kⱼ|) + a·x̂ + a₀ − b|²
//     over the collocation points, for all nodes at once, solved with
//     the linear part eliminated exactly: with Q an orthonormal basis of
//     the linear columns [x̂ 1], the kernel weights minimise
//     |(I − QQᵀ)(Φw − b)| (rank-revealing QR with column pivoting of the
//     column-scaled projected kernel matrix, pivots below Rcond times the
//     first dropped), then a = the least-squares fit of b − Φw by the linear
//     columns. Data that are linear (Σₐ xₐ bₐ = x, Σₐ bₐ = 1, which the
//     Wachspress data are) therefore give w = 0 and the exact linear
//     function: the shape functions reproduce linear fields and sum to 1
//     to rounding, whatever the fit error of the individual Nₐ;
//  3. the fit error: max |Nₐ − bₐ| over a finer boundary sample.
func (m *Mesh) FitElement(e int, opt Options) (*ElementBasis, error) {
	opt.defaults()
	nodes := m.Cells[e].Vertices()
	n := len(nodes)
	if n > 64 {
		return nil, fmt.Errorf("cell %d has %d vertices: at most 64 are supported", e, n)
	}
	c := m.CellCentre(e)
	s := 0.0
	for _, v := range nodes {
		s = math.Max(s, geom.At(m.Points, v).Sub(c).Norm())
	}
	b := &ElementBasis{Nodes: nodes, Centre: c, Scale: s}
	if opt.KernelGrid == 0 {
		T := 0
		for _, f := range m.Cells[e].Faces {
			T += len(f)
		}
		opt.KernelGrid = max(1, int(math.Sqrt(2*float64(opt.MaxCentres)/float64(T))))
	}
	if opt.CollocationGrid == 0 {
		opt.CollocationGrid = opt.KernelGrid + 2
	}
	P, B := m.boundarySamples(e, nodes, opt.CollocationGrid, c, 1)
	Kc, _ := m.boundarySamples(e, nodes, opt.KernelGrid, c, opt.KernelScale)
	if opt.ShortEdge > 0 {
		Kc = append(Kc, m.shortEdgeCentres(e, opt.ShortEdge*s)...)
	}
	nc, nk := len(P), len(Kc)
	if nc < nk+4 {
		return nil, fmt.Errorf("cell %d: %d collocation points for %d unknowns: raise CollocationGrid", e, nc, nk+4)
	}
	b.K = make([]geom.Vec3, nk)
	for j, k := range Kc {
		b.K[j] = k.Sub(c).Scale(1 / s)
	}
	local := func(p geom.Vec3) geom.Vec3 { return p.Sub(c).Scale(1 / s) }
	Phi := mat.NewDense(nc, nk, nil)
	L := mat.NewDense(nc, 4, nil)
	for i, p := range P {
		xh := local(p)
		for j, k := range b.K {
			Phi.Set(i, j, 1/xh.Sub(k).Norm())
		}
		L.Set(i, 0, xh[0])
		L.Set(i, 1, xh[1])
		L.Set(i, 2, xh[2])
		L.Set(i, 3, 1)
	}
	Bm := mat.NewDense(nc, n, B)
	// Orthonormal basis of the linear columns (thin QR).
	Q, Rl := thinQR4(L)
	project := func(X *mat.Dense) *mat.Dense {
		var QtX, QQtX mat.Dense
		QtX.Mul(Q.T(), X)
		QQtX.Mul(Q, &QtX)
		var out mat.Dense
		out.Sub(X, &QQtX)
		return &out
	}
	PhiP := project(Phi)
	BP := project(Bm)
	// Column scaling, then the rank-revealing QR with column pivoting
	// (LAPACK's dgeqp3): columns whose pivot falls below Rcond times the
	// first are dropped (a basic solution of the truncated problem).
	scale := make([]float64, nk)
	for j := 0; j < nk; j++ {
		scale[j] = mat.Norm(PhiP.ColView(j), 2)
		if scale[j] == 0 {
			scale[j] = 1
		}
		for i := 0; i < nc; i++ {
			PhiP.Set(i, j, PhiP.At(i, j)/scale[j])
		}
	}
	a := PhiP.RawMatrix()
	jpvt := make([]int, nk)
	for j := range jpvt {
		jpvt[j] = -1
	}
	tau := make([]float64, nk)
	work := []float64{0}
	lapack64.Geqp3(a, jpvt, tau, work, -1)
	work = make([]float64, int(work[0]))
	lapack64.Geqp3(a, jpvt, tau, work, len(work))
	C := BP.RawMatrix()
	work = []float64{0}
	lapack64.Ormqr(blas.Left, blas.Trans, a, tau, C, work, -1)
	work = make([]float64, int(work[0]))
	lapack64.Ormqr(blas.Left, blas.Trans, a, tau, C, work, len(work))
	rank := 0
	for rank < nk && math.Abs(a.Data[rank*a.Stride+rank]) > opt.Rcond*math.Abs(a.Data[0]) {
		rank++
	}
	Rt := blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: rank, Stride: a.Stride, Data: a.Data}
	Ct := blas64.General{Rows: rank, Cols: n, Stride: C.Stride, Data: C.Data}
	if rank > 0 && !lapack64.Trtrs(blas.NoTrans, Rt, Ct) {
		return nil, fmt.Errorf("cell %d: singular kernel matrix", e)
	}
	b.W = make([]float64, nk*n)
	for k := 0; k < rank; k++ {
		j := jpvt[k]
		for a := 0; a < n; a++ {
			b.W[j*n+a] = C.Data[k*C.Stride+a] / scale[j]
		}
	}
	// The exact solution has Σₐ wⱼₐ (1, xₐ) = 0 for every kernel j (the
	// data Σₐ bₐ = 1 and Σₐ xₐ bₐ = x are linear); the solve above
	// amplifies the rounding of their projection (~1e-16) by up to
	// 1/Rcond. Each row of W is therefore projected onto the complement of
	// span{1, x, y, z} in node space, which removes that noise and makes
	// partition of unity and linear precision exact to rounding.
	Vn := mat.NewDense(n, 4, nil)
	for a, v := range nodes {
		p := local(geom.At(m.Points, v))
		Vn.Set(a, 0, 1)
		Vn.Set(a, 1, p[0])
		Vn.Set(a, 2, p[1])
		Vn.Set(a, 3, p[2])
	}
	VQ, _ := thinQR4(Vn)
	{
		Wd := mat.NewDense(nk, n, b.W)
		var WQ, WQQt mat.Dense
		WQ.Mul(Wd, VQ)
		WQQt.Mul(&WQ, VQ.T())
		Wd.Sub(Wd, &WQQt)
	}
	// Linear part: least squares of B − Φ W by L.
	var PhiW, R mat.Dense
	Wd := mat.NewDense(nk, n, b.W)
	PhiW.Mul(Phi, Wd)
	R.Sub(Bm, &PhiW)
	// A = Rₗ⁻¹ Qᵀ (B − ΦW).
	var Am mat.Dense
	Am.Mul(Q.T(), &R)
	for a := 0; a < n; a++ {
		for k := 3; k >= 0; k-- {
			v := Am.At(k, a)
			for l := k + 1; l < 4; l++ {
				v -= Rl[k][l] * Am.At(l, a)
			}
			Am.Set(k, a, v/Rl[k][k])
		}
	}
	b.A = make([]float64, 4*n)
	for a := 0; a < n; a++ {
		for k := 0; k < 4; k++ {
			b.A[4*a+k] = Am.At(k, a)
		}
	}
	// Fit error on a finer boundary sample.
	Pc, Bc := m.boundarySamples(e, nodes, opt.CollocationGrid+1, c, 1)
	N := make([]float64, n)
	for i, p := range Pc {
		b.Eval(p, N, nil)
		for a := 0; a < n; a++ {
			b.FitError = math.Max(b.FitError, math.Abs(N[a]-Bc[i*n+a]))
		}
	}
	return b, nil
}

// thinQR4 returns the thin QR factorisation of an m×4 matrix: Q (m×4,
// orthonormal) by modified Gram–Schmidt applied twice (orthogonal to
// rounding for the well-conditioned linear columns it is used on), and
// R = QᵀX (upper triangular).
func thinQR4(X *mat.Dense) (*mat.Dense, [4][4]float64) {
	Q := mat.DenseCopyOf(X)
	for pass := 0; pass < 2; pass++ {
		for k := 0; k < 4; k++ {
			qk := Q.ColView(k).(*mat.VecDense)
			for l := 0; l < k; l++ {
				ql := Q.ColView(l)
				qk.AddScaledVec(qk, -mat.Dot(ql, qk), ql)
			}
			if nrm := mat.Norm(qk, 2); nrm > 0 {
				qk.ScaleVec(1/nrm, qk)
			}
		}
	}
	var R [4][4]float64
	for l := 0; l < 4; l++ {
		for k := l; k < 4; k++ {
			R[l][k] = mat.Dot(Q.ColView(l), X.ColView(k))
		}
	}
	return Q, R
}

// shortEdgeCentres returns extra kernel centres for the edges of cell e
// shorter than lmax: a shape function falls from 1 to 0 along such an
// edge, a feature of the edge's length ℓ that kernels a cell's size away
// cannot resolve. For each, centres at distance ℓ and 2ℓ outside the
// cell from the edge's midpoint and ends, along the mean of the normals
// of the edge's two faces. On Voronoi cells of jittered body-centred
// cubic seeds (3×3×3 lattice cells, jitter 0.15) this brings the mean
// boundary fit error from 0.13 to 0.039 and the worst from 0.49 to 0.079
// (edges under 0.25 of the radius: 0.051 and 0.092; closer centres, at
// ℓ/2, overfit between the collocation points).
func (m *Mesh) shortEdgeCentres(e int, lmax float64) []geom.Vec3 {
	type edge struct{ a, b int }
	// Edges in first-seen order (not map order): the kernel centres'
	// order changes the least-squares fit in its last bits, and results
	// must not change from run to run.
	normals := map[edge]geom.Vec3{}
	var order []edge
	for _, f := range m.Cells[e].Faces {
		nrm := faceArea(m.Points, f).Normalized()
		for i := range f {
			a, b := f[i], f[(i+1)%len(f)]
			if a > b {
				a, b = b, a
			}
			if _, ok := normals[edge{a, b}]; !ok {
				order = append(order, edge{a, b})
			}
			normals[edge{a, b}] = normals[edge{a, b}].Add(nrm)
		}
	}
	var out []geom.Vec3
	for _, ed := range order {
		n := normals[ed]
		pa, pb := geom.At(m.Points, ed.a), geom.At(m.Points, ed.b)
		l := pa.Sub(pb).Norm()
		if l >= lmax || n.Norm() == 0 {
			continue
		}
		n = n.Normalized()
		for _, p := range []geom.Vec3{pa, pb, pa.Add(pb).Scale(0.5)} {
			for _, k := range []float64{1, 2} {
				out = append(out, p.Add(n.Scale(k*l)))
			}
		}
	}
	return out
}
