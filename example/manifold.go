package example

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// Manifold is the example manifold of one group (the whole object, a group
// of regions or elements, or one of them): the affine combinations
//
//	D(w) = Σⱼ wⱼ Pⱼ,  Σⱼ wⱼ = 1,
//
// of N descriptor vectors P₀ … P_{N−1} (Koyama et al. 2012 eq. 6–7 with P₀
// the rest pose's descriptor; Martin et al. 2011 and the lecture notes'
// "example manifold" E(w) = Σ wᵢ Eᵢ with the examples' strains), each of
// `rows` numbers (6 per region or element), under the weighted norm
// ‖a‖²_ρ = Σ_r ρ_r a_r² (ρ = 1 for shape matching, the element volumes for
// the elastic potential, so that the projection minimises the same norm as
// the potential).
//
// Writing w₀ = 1 − Σ_{j≥1} wⱼ, D(w) = P₀ + L z with z = (w₁ … w_{N−1}) and
// L = (P₁ − P₀ … P_{N−1} − P₀) (rows × (N−1)), so the projection of a
// descriptor d, argmin_w ‖D(w) − d‖_ρ subject to Σw = 1, is the least-squares
// solution z = L_ρ⁺ (d − P₀). The manifold precomputes once, from the
// singular value decomposition √ρ L = U Σ Vᵀ:
//
//   - the pseudo-inverse L_ρ⁺ = V Σ⁻¹ Uᵀ √ρ, so a projection is N − 1 dot
//     products of length rows (Project) without squaring L's condition
//     number;
//   - the normal matrix G = Lᵀ ρ L and its pseudo-inverse G⁺ = V Σ⁻² Vᵀ,
//     for the projection constrained to w ≥ 0 (ProjectSimplex), which works
//     on the normal equations G z = Lᵀ ρ (d − P₀).
//
// When L does not have full column rank (an example that leaves the group
// undeformed, two examples that deform it alike — common with per-group
// and per-element manifolds), singular values below max(1e-9, 1e-12 σ_max)
// count as zero and the minimum-norm least-squares solution is taken: it
// gives no weight to an example that does not deform the group and splits
// it evenly among examples that deform it alike; the projected descriptor
// D(w) is the same for every least-squares solution. The weights ρ enter
// normalised by their mean, so the threshold does not depend on units.
type Manifold struct {
	n, rows  int
	base     []float64 // P₀
	dir      []float64 // (n−1)·rows: Pⱼ − P₀, j = 1..n−1
	pinv     []float64 // (n−1)·rows: L_ρ⁺
	pinvBase []float64 // n−1: L_ρ⁺ P₀
	wdir     []float64 // (n−1)·rows: ρ (Pⱼ − P₀)
	wdirBase []float64 // n−1: (ρ (Pⱼ − P₀))·P₀
	gram     []float64 // (n−1)²: G = Lᵀ ρ L
	gramPinv []float64 // (n−1)²: G⁺
	rank     int
}

// SingularFloor is the absolute threshold under which a singular value of
// √ρ L (ρ normalised to mean 1) counts as zero. Descriptors are
// dimensionless stretches or strains; examples that leave a group
// undeformed give columns of L made of rounding errors (about 1e-16 per
// entry), far below it, while any deformation an artist can see is far
// above it.
const SingularFloor = 1e-9

// NewManifold builds the manifold of the points (N ≥ 1 descriptor vectors
// of equal length; P₀ = points[0]) under the row weights rowWeight (nil:
// all 1; else one positive weight per row).
func NewManifold(points [][]float64, rowWeight []float64) (*Manifold, error) {
	n := len(points)
	if n == 0 {
		return nil, fmt.Errorf("an example manifold needs at least one point")
	}
	rows := len(points[0])
	for j, p := range points {
		if len(p) != rows {
			return nil, fmt.Errorf("point %d has %d numbers, point 0 has %d", j, len(p), rows)
		}
	}
	rho := make([]float64, rows)
	if rowWeight == nil {
		for r := range rho {
			rho[r] = 1
		}
	} else {
		if len(rowWeight) != rows {
			return nil, fmt.Errorf("%d row weights for %d rows", len(rowWeight), rows)
		}
		mean := 0.0
		for r, x := range rowWeight {
			if !(x > 0) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("row weight %d is %g: weights must be positive and finite", r, x)
			}
			mean += x
		}
		mean /= float64(rows)
		for r, x := range rowWeight {
			rho[r] = x / mean
		}
	}
	m1 := n - 1
	m := &Manifold{n: n, rows: rows,
		base:     append([]float64(nil), points[0]...),
		dir:      make([]float64, m1*rows),
		pinv:     make([]float64, m1*rows),
		pinvBase: make([]float64, m1),
		wdir:     make([]float64, m1*rows),
		wdirBase: make([]float64, m1),
		gram:     make([]float64, m1*m1),
		gramPinv: make([]float64, m1*m1),
	}
	if m1 == 0 || rows == 0 {
		return m, nil
	}
	L := mat.NewDense(rows, m1, nil)
	for k := 0; k < m1; k++ {
		d := m.dir[k*rows : (k+1)*rows]
		wd := m.wdir[k*rows : (k+1)*rows]
		for r := range d {
			d[r] = points[k+1][r] - points[0][r]
			wd[r] = rho[r] * d[r]
			L.Set(r, k, math.Sqrt(rho[r])*d[r])
		}
		m.wdirBase[k] = floats.Dot(wd, m.base)
	}
	for a := 0; a < m1; a++ {
		for b := 0; b <= a; b++ {
			g := floats.Dot(m.dir[a*rows:(a+1)*rows], m.wdir[b*rows:(b+1)*rows])
			m.gram[a*m1+b], m.gram[b*m1+a] = g, g
		}
	}
	var svd mat.SVD
	if !svd.Factorize(L, mat.SVDThin) {
		return nil, fmt.Errorf("the singular value decomposition of the example matrix L (%d × %d) did not converge", rows, m1)
	}
	var U, V mat.Dense
	svd.UTo(&U)
	svd.VTo(&V)
	sig := svd.Values(nil)
	tol := math.Max(SingularFloor, 1e-12*sig[0])
	// L_ρ⁺[k][r] = Σ_s V[k][s] U[r][s] √ρ_r / σ_s; G⁺ = Σ_s V_s V_sᵀ / σ_s².
	for s, sv := range sig {
		if sv <= tol {
			continue
		}
		m.rank++
		for k := 0; k < m1; k++ {
			v := V.At(k, s) / sv
			row := m.pinv[k*rows : (k+1)*rows]
			for r := range row {
				row[r] += v * U.At(r, s) * math.Sqrt(rho[r])
			}
			for l := 0; l < m1; l++ {
				m.gramPinv[k*m1+l] += v * V.At(l, s) / sv
			}
		}
	}
	for k := 0; k < m1; k++ {
		m.pinvBase[k] = floats.Dot(m.pinv[k*rows:(k+1)*rows], m.base)
	}
	return m, nil
}

// Size returns N, the number of points (and weights).
func (m *Manifold) Size() int { return m.n }

// Rows returns the length of a descriptor vector of the group.
func (m *Manifold) Rows() int { return m.rows }

// Rank returns the rank of L (0 when every point equals P₀).
func (m *Manifold) Rank() int { return m.rank }

// Base returns P₀ (do not modify).
func (m *Manifold) Base() []float64 { return m.base }

// Dir returns Pⱼ − P₀, j = 1 … N−1 (do not modify).
func (m *Manifold) Dir(j int) []float64 { return m.dir[(j-1)*m.rows : j*m.rows] }

// Pinv returns row j − 1 of L_ρ⁺, j = 1 … N−1: wⱼ = Pinv(j)·d − PinvBase(j)
// (do not modify).
func (m *Manifold) Pinv(j int) []float64 { return m.pinv[(j-1)*m.rows : j*m.rows] }

// PinvBase returns Pinv(j)·P₀.
func (m *Manifold) PinvBase(j int) float64 { return m.pinvBase[j-1] }

// WeightedDir returns ρ (Pⱼ − P₀), j = 1 … N−1 (ρ normalised to mean 1):
// the right-hand side of the normal equations is
// cⱼ = WeightedDir(j)·d − WeightedDirBase(j) (do not modify).
func (m *Manifold) WeightedDir(j int) []float64 { return m.wdir[(j-1)*m.rows : j*m.rows] }

// WeightedDirBase returns WeightedDir(j)·P₀.
func (m *Manifold) WeightedDirBase(j int) float64 { return m.wdirBase[j-1] }

func dot(a, b []float64) float64 {
	if len(a) > 4*DescSize {
		return floats.Dot(a, b)
	}
	s := 0.0
	for i, x := range a {
		s += x * b[i]
	}
	return s
}

// Project sets w[0:N] to the least-squares weights of the descriptor d
// (rows numbers): wⱼ = (L_ρ⁺ (d − P₀))ⱼ for j ≥ 1 and w₀ = 1 − Σ_{j≥1} wⱼ.
// The weights are not clipped: they may be negative.
func (m *Manifold) Project(d, w []float64) {
	sum := 0.0
	for j := 1; j < m.n; j++ {
		w[j] = dot(m.Pinv(j), d) - m.pinvBase[j-1]
		sum += w[j]
	}
	w[0] = 1 - sum
}

// WeightsFromPinv sets w[0:N] from the products b[j−1] = Pinv(j)·d
// computed by the caller (e.g. summed over the elements of a group in
// parallel): wⱼ = b[j−1] − PinvBase(j), w₀ = 1 − Σ_{j≥1} wⱼ.
func (m *Manifold) WeightsFromPinv(b, w []float64) {
	sum := 0.0
	for j := 1; j < m.n; j++ {
		w[j] = b[j-1] - m.pinvBase[j-1]
		sum += w[j]
	}
	w[0] = 1 - sum
}

// Blend writes D(w) = P₀ + Σ_{j≥1} wⱼ (Pⱼ − P₀) into out (rows numbers).
func (m *Manifold) Blend(w, out []float64) {
	copy(out, m.base)
	for j := 1; j < m.n; j++ {
		floats.AddScaled(out, w[j], m.Dir(j))
	}
}
