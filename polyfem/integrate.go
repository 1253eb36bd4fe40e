package polyfem

import (
	"math"

	"github.com/sofago/sofago/geom"
	"gonum.org/v1/gonum/mat"
)

// ElementIntegration is what an element integrates with: quadrature points
// (weights summing to the cell's volume), the shape functions' values and
// corrected gradients there (n per point, in the basis's node order).
type ElementIntegration struct {
	Nodes []int
	W     []float64
	X     []geom.Vec3
	N     [][]float64
	G     [][]geom.Vec3
	// Correction is the largest |cₐ|·size of the gradient correction
	// below, relative: how far the quadrature of ∇Nₐ was from its
	// boundary integral.
	Correction float64
}

// Integrate returns the quadrature of cell e with basis b at the given
// degree (Rule), with the gradient correction of Talischi, Pereira,
// Menezes & Paulino ("Gradient correction for polygonal and polyhedral
// finite elements", IJNME 2015): every gradient of Nₐ is shifted by the
// same vector
//
//	cₐ = (∮ bₐ n dS − Σ_q w_q ∇Nₐ(x_q)) / V
//
// so that the quadrature of ∇Nₐ equals the boundary integral of the
// barycentric data exactly (the divergence theorem, discretely). The
// boundary integral is computed face by face on the fan triangles with
// the seven-point degree-5 rule, from the face's data alone, so two cells
// sharing a face compute opposite contributions. With it, the forces of a
// homogeneous stress balance at every interior node of any mesh (the
// patch test), whatever the quadrature and fit errors; and since the
// shape functions reproduce linear fields exactly (Σₐ xₐ∇Nₐ = I at every
// point, and Σₐ xₐ ∮ bₐ n dS = ∮ x⊗n dS = V·I), the correction leaves
// affine fields exact.
func (m *Mesh) Integrate(e int, b *ElementBasis, degree int) (*ElementIntegration, error) {
	qs, err := m.Rule(e, degree)
	if err != nil {
		return nil, err
	}
	n := len(b.Nodes)
	out := &ElementIntegration{Nodes: b.Nodes}
	vol := 0.0
	sum := make([]geom.Vec3, n)
	for _, q := range qs {
		N := make([]float64, n)
		G := make([]geom.Vec3, n)
		b.Eval(q.X, N, G)
		out.W = append(out.W, q.W)
		out.X = append(out.X, q.X)
		out.N = append(out.N, N)
		out.G = append(out.G, G)
		vol += q.W
		for a := range G {
			sum[a] = sum[a].Add(G[a].Scale(q.W))
		}
	}
	// Exact partition of unity and linear precision at every point: the
	// kernel weights cancel in Σₐ Nₐ and Σₐ xₐNₐ only to the rounding of
	// their sizes (ε·|w|, up to ~1e-9 where the fit is ill-conditioned),
	// so the values and gradients at each point are projected, in node
	// space, onto the constraints Σₐ Nₐ = 1, Σₐ x̂ₐ Nₐ = x̂, Σₐ ∇Nₐ = 0,
	// Σₐ x̂ₐ ⊗ ∇Nₐ = I/Scale (the smallest change that satisfies them,
	// of the size of the violation).
	cons := newNodeConstraints(m, b)
	for q := range out.W {
		cons.project(out.X[q], out.N[q], out.G[q])
	}
	sum = make([]geom.Vec3, n)
	for q := range out.W {
		for a := range sum {
			sum[a] = sum[a].Add(out.G[q][a].Scale(out.W[q]))
		}
	}
	bnd := m.boundaryIntegrals(e, b.Nodes)
	for a := 0; a < n; a++ {
		c := bnd[a].Sub(sum[a]).Scale(1 / vol)
		out.Correction = max(out.Correction, c.Norm()*b.Scale)
		for q := range out.G {
			out.G[q][a] = out.G[q][a].Add(c)
		}
	}
	return out, nil
}

// boundaryIntegrals returns ∮ bₐ n dS for every node of cell e: on each
// face, the area-weighted Wachspress coordinates integrated on the fan
// triangles from the face centre (seven-point rule), times the face's
// unit normal.
func (m *Mesh) boundaryIntegrals(e int, nodes []int) []geom.Vec3 {
	index := map[int]int{}
	for a, v := range nodes {
		index[v] = a
	}
	out := make([]geom.Vec3, len(nodes))
	pts, ws := triRule5()
	wk := make([]float64, 64)
	for _, f := range m.Cells[e].Faces {
		area := faceArea(m.Points, f)
		nrm := area.Normalized()
		fc := faceCentre(m.Points, f)
		for i := range f {
			p0, p1 := geom.At(m.Points, f[i]), geom.At(m.Points, f[(i+1)%len(f)])
			ta := p0.Sub(fc).Cross(p1.Sub(fc)).Dot(nrm) / 2
			for q, bc := range pts {
				x := fc.Scale(bc[0]).Add(p0.Scale(bc[1])).Add(p1.Scale(bc[2]))
				wachspress(m.Points, f, nrm, x, wk)
				for k, v := range f {
					out[index[v]] = out[index[v]].Add(nrm.Scale(ta * ws[q] * wk[k]))
				}
			}
		}
	}
	return out
}

// nodeConstraints projects per-point shape function values and gradients
// onto the linear constraints of partition of unity and linear precision:
// with V the n×4 matrix of rows (1, x̂ₐ) (local coordinates), the values
// must satisfy VᵀN = (1, x̂) and the gradients VᵀG = (0; I/Scale); the
// projection N ← N − V(VᵀV)⁻¹(VᵀN − target) is the least change.
type nodeConstraints struct {
	b    *ElementBasis
	V    *mat.Dense // n × 4
	VtVi *mat.Dense // (VᵀV)⁻¹
	loc  []geom.Vec3
}

func newNodeConstraints(m *Mesh, b *ElementBasis) *nodeConstraints {
	n := len(b.Nodes)
	c := &nodeConstraints{b: b, V: mat.NewDense(n, 4, nil)}
	for a, v := range b.Nodes {
		p := geom.At(m.Points, v).Sub(b.Centre).Scale(1 / b.Scale)
		c.loc = append(c.loc, p)
		c.V.Set(a, 0, 1)
		c.V.Set(a, 1, p[0])
		c.V.Set(a, 2, p[1])
		c.V.Set(a, 3, p[2])
	}
	var VtV mat.Dense
	VtV.Mul(c.V.T(), c.V)
	c.VtVi = mat.NewDense(4, 4, nil)
	if err := c.VtVi.Inverse(&VtV); err != nil {
		c.VtVi = nil // coplanar nodes: no projection (cannot happen for a valid cell)
	}
	return c
}

func (c *nodeConstraints) project(x geom.Vec3, N []float64, G []geom.Vec3) {
	if c.VtVi == nil {
		return
	}
	xh := x.Sub(c.b.Centre).Scale(1 / c.b.Scale)
	// Residuals r = VᵀY − target for the value column and three gradient
	// columns.
	var r [4][4]float64 // r[k][col], col 0: N, 1..3: gradient components
	for a := range N {
		row := [4]float64{1, c.loc[a][0], c.loc[a][1], c.loc[a][2]}
		for k := 0; k < 4; k++ {
			r[k][0] += row[k] * N[a]
			r[k][1] += row[k] * G[a][0]
			r[k][2] += row[k] * G[a][1]
			r[k][3] += row[k] * G[a][2]
		}
	}
	r[0][0] -= 1
	for k := 1; k < 4; k++ {
		r[k][0] -= xh[k-1]
		r[k][k] -= 1 / c.b.Scale
	}
	// s = (VᵀV)⁻¹ r, then Y −= V s.
	var sv [4][4]float64
	for i := 0; i < 4; i++ {
		for col := 0; col < 4; col++ {
			for k := 0; k < 4; k++ {
				sv[i][col] += c.VtVi.At(i, k) * r[k][col]
			}
		}
	}
	for a := range N {
		row := [4]float64{1, c.loc[a][0], c.loc[a][1], c.loc[a][2]}
		var d [4]float64
		for i := 0; i < 4; i++ {
			for col := 0; col < 4; col++ {
				d[col] += row[i] * sv[i][col]
			}
		}
		N[a] -= d[0]
		G[a] = G[a].Sub(geom.Vec3{d[1], d[2], d[3]})
	}
}

// ShapeValues returns Nₐ(x) of cell e's basis b at any point x (inside
// the cell, or outside it, extrapolated), projected like the quadrature
// points' values so that Σₐ Nₐ = 1 and Σₐ xₐ Nₐ = x hold to rounding.
func (m *Mesh) ShapeValues(b *ElementBasis, x geom.Vec3) []float64 {
	n := len(b.Nodes)
	N := make([]float64, n)
	G := make([]geom.Vec3, n)
	b.Eval(x, N, G)
	newNodeConstraints(m, b).project(x, N, G)
	return N
}

// OutsideDistance returns the largest signed distance of x to the planes
// of cell e's faces: ≤ 0 inside the (convex) cell, and outside a lower
// bound of the distance to it, equal to it where the nearest point is on
// a face.
func (m *Mesh) OutsideDistance(e int, x geom.Vec3) float64 {
	d := math.Inf(-1)
	for _, f := range m.Cells[e].Faces {
		n := faceArea(m.Points, f).Normalized()
		d = math.Max(d, x.Sub(faceCentre(m.Points, f)).Dot(n))
	}
	return d
}

// LinearWeights returns the weights of minimum norm over cell e's nodes
// (basis b) that reproduce constant and linear functions at x,
// Σₐ wₐ = 1 and Σₐ wₐ xₐ = x: an affine-exact extrapolation for points
// outside the cell, where the fundamental solutions' extrapolation grows
// without bound towards the kernel centres.
func (m *Mesh) LinearWeights(b *ElementBasis, x geom.Vec3) []float64 {
	n := len(b.Nodes)
	N := make([]float64, n)
	G := make([]geom.Vec3, n)
	c := newNodeConstraints(m, b)
	for a := range G {
		G[a] = geom.Vec3{}
	}
	c.project(x, N, G) // from zero: the least change that meets the constraints
	return N
}
