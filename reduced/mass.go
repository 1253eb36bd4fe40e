package reduced

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// Inertia holds the reduced mass quantities of a basis on a mesh.
type Inertia struct {
	R int
	// M is the reduced mass UᵀMU (r×r, row-major, symmetric).
	M []float64
	// Gravity is r×3 (row-major): column c is Uᵀ M 1_c, the reduced force
	// of a unit gravity along axis c, so a gravity g gives the reduced
	// force Σ_c g_c·Gravity[:, c]. (M 1_c is the lumped mass for both
	// consistent and lumped M.)
	Gravity []float64
	// TotalMass is Σ ρV; FirstMoment is Σ_v m_v x_v at rest (lumped
	// vertex masses m_v), so the gravity potential of u = Uq is
	// −g·FirstMoment − g·(Gravity q), that of the full model.
	TotalMass   float64
	FirstMoment [3]float64
}

// ReducedInertia computes UᵀMU, the reduced gravity and the mass moments
// for the mass density of each tetrahedron. consistent selects the
// consistent mass ρV/20·(I₄ + 11ᵀ) ⊗ I₃ per tetrahedron (VegaFEM's
// GenerateMassMatrix, MeshMatrixMass); otherwise the lumped mass ρV/4 per
// incident tetrahedron (DiagonalMass). UᵀMU is accumulated by blas64.Syrk
// on scaled rows of U: √(Σ ρV/20) U_v per vertex (the I₄ part) and
// √(ρV/20) Σₐ U_vₐ per element (the 11ᵀ part); lumped: √m_v U_v.
func ReducedInertia(mesh Mesh, U *Basis, density []float64, consistent bool) (*Inertia, error) {
	np := mesh.NumPoints()
	if err := U.Check(np); err != nil {
		return nil, err
	}
	els, err := mesh.Elements()
	if err != nil {
		return nil, err
	}
	if len(density) != len(els) {
		return nil, fmt.Errorf("%d densities for %d tetrahedra", len(density), len(els))
	}
	r := U.R
	lumped := make([]float64, np) // Σ ρV/4
	diag := make([]float64, np)   // Σ ρV/20
	in := &Inertia{R: r, M: make([]float64, r*r), Gravity: make([]float64, 3*r)}
	for e, el := range els {
		rho := density[e]
		if !(rho > 0) || math.IsInf(rho, 0) {
			return nil, fmt.Errorf("tetrahedron %d: mass density %g must be positive and finite", e, rho)
		}
		m := rho * el.Volume
		in.TotalMass += m
		for _, v := range mesh.Tets[e] {
			lumped[v] += m / 4
			diag[v] += m / 20
		}
	}
	c := blas64.Symmetric{N: r, Stride: r, Uplo: blas.Upper, Data: in.M}
	const batchRows = 1024
	rows := make([]float64, batchRows*r)
	n := 0
	flush := func() {
		if n > 0 {
			blas64.Syrk(blas.Trans, 1, blas64.General{Rows: n, Cols: r, Stride: r, Data: rows[:n*r]}, 1, c)
			n = 0
		}
	}
	addRow := func(s float64, src []float64) {
		dst := rows[n*r : (n+1)*r]
		for j, x := range src {
			dst[j] = s * x
		}
		n++
		if n == batchRows {
			flush()
		}
	}
	for v := 0; v < np; v++ {
		w := lumped[v]
		if consistent {
			w = diag[v]
		}
		s := math.Sqrt(w)
		for k := 0; k < 3; k++ {
			addRow(s, U.U[(3*v+k)*r:(3*v+k+1)*r])
			in.FirstMoment[k] += lumped[v] * mesh.Points[3*v+k]
			g := in.Gravity[k:]
			for j, x := range U.U[(3*v+k)*r : (3*v+k+1)*r] {
				g[3*j] += lumped[v] * x
			}
		}
	}
	if consistent {
		sum := make([]float64, r)
		for e, el := range els {
			s := math.Sqrt(density[e] * el.Volume / 20)
			for k := 0; k < 3; k++ {
				for j := range sum {
					sum[j] = 0
				}
				for _, v := range mesh.Tets[e] {
					for j, x := range U.U[(3*v+k)*r : (3*v+k+1)*r] {
						sum[j] += x
					}
				}
				addRow(s, sum)
			}
		}
	}
	flush()
	for i := 0; i < r; i++ {
		for j := 0; j < i; j++ {
			in.M[i*r+j] = in.M[j*r+i]
		}
	}
	return in, nil
}
