package forcefield

import (
	"fmt"
	"math"

	"github.com/sofago/sofago/example"
	"github.com/sofago/sofago/geom"
)

// This file holds ExampleBasedForceField's F332 front end: the example
// term integrated over each sample's region (Faure et al. 2011 Sec. 5.3,
// as DeformationGradientForceField's elastons do for the elastic energy).
// Over the region of a sample, F(d) = F_0 + Σ_k d_k F_k (d the offset from
// the sample's centre), so the Green strain is quadratic in d,
//
//	E(d) = Σ_P d^P Ê_P,  P = (a, b), a ≤ b ∈ 0..3 (d^0 = 1): 10 terms,
//
// and the example term of the sample is the integral of the squared
// distance to the example manifold over the region,
//
//	W_s = k/2 ∫ ‖E(d) − E(w; d)‖²_F dV = k/2 Σ_PQ M_PQ (Ê_P − Ê_P(w)) : (Ê_Q − Ê_Q(w)),
//
// M_PQ = m(P + Q) the region's moments up to order 4 (stiffness-weighted
// as the sampler gives them: ∫ (E/E_s) d^α dV, plain volume moments for a
// uniform material). With M = L Lᵀ (Cholesky), the descriptor of a sample
// is the 60 numbers D_P = Σ_Q L_QP ê_Q (ê_Q the descriptor form of Ê_Q),
// whose squared Euclidean norm is ∫ ‖E(d)‖² dV, so the manifolds, the
// projection w* and its differential are those of the other front ends,
// with unit row weights. The force on the sample's F and ∇F is
//
//	∂W/∂F_b = Σ_a F_a Σ_{(a,b)},  Σ_P = k · Tensor(Σ_Q L_PQ r_Q),
//
// r = D − D(w*) the residual (envelope theorem: w* minimises the same
// norm), as for the Green–Lagrange elastons; the tangent differentiates
// it once more, with dr = dD − dD(w*) including dw*/dx: exact.

// exampleRegionDesc is the size of an F332 sample's descriptor.
const exampleRegionDesc = 10 * example.DescSize

// exampleRegions holds the Cholesky factors of the samples' moment
// matrices.
type exampleRegions struct {
	L    []float64 // 100 per sample: L_PQ, lower triangular, row-major
	ones []float64 // unit row weights, one per sample
}

// newExampleRegions factors M_PQ = m(P + Q) of n samples from the
// sampler's moments (geom.NumMoments per sample, exact up to order).
func newExampleRegions(order int, mom []float64, n int) (*exampleRegions, error) {
	if order < 4 {
		return nil, fmt.Errorf("order = %d: the example term on F332 samples integrates the squared Green strain (quartic in the offset) over each region, which needs its moments up to order 4: set order = 4 on the sampler", order)
	}
	if len(mom) != geom.NumMoments*n {
		return nil, fmt.Errorf("%d region moments for %d F332 samples, want %d per sample", len(mom), n, geom.NumMoments)
	}
	r := &exampleRegions{L: make([]float64, 100*n), ones: make([]float64, n)}
	for s := 0; s < n; s++ {
		r.ones[s] = 1
		m := mom[geom.NumMoments*s : geom.NumMoments*(s+1)]
		L := r.L[100*s : 100*s+100]
		for p := 0; p < 10; p++ {
			for q := 0; q <= p; q++ {
				v := m[pairMoment[p][q]]
				for j := 0; j < q; j++ {
					v -= L[10*p+j] * L[10*q+j]
				}
				if p == q {
					if !(v > 1e-12*m[pairMoment[p][p]]) {
						return nil, fmt.Errorf("sample %d: the moment matrix of its region is singular (pivot %g): its voxels do not span the quadratic monomials", s, v)
					}
					L[10*p+p] = math.Sqrt(v)
				} else {
					L[10*p+q] = v / L[10*q+q]
				}
			}
		}
	}
	return r, nil
}

// blocks reads the four 3×3 blocks [F, ∂F/∂X₀, ∂F/∂X₁, ∂F/∂X₂] of an F332
// sample.
func blocks(x []float64) (F [4]geom.Mat3) {
	for a := 0; a < 4; a++ {
		F[a] = geom.Mat3(x[9*a : 9*a+9])
	}
	return F
}

// putSym6Desc writes the sym6 [s00 s11 s22 s01 s12 s20] in descriptor form
// (S₀₀, S₁₁, S₂₂, √2 S₀₁, √2 S₀₂, √2 S₁₂).
func putSym6Desc(d []float64, e *sym6) {
	d[0], d[1], d[2] = e[0], e[1], e[2]
	d[3], d[4], d[5] = math.Sqrt2*e[3], math.Sqrt2*e[5], math.Sqrt2*e[4]
}

// choleskyT writes D_P = Σ_{Q ≥ P} L_QP ê_Q.
func choleskyT(L, e, d []float64) {
	const ds = example.DescSize
	for p := 0; p < 10; p++ {
		out := d[ds*p : ds*p+ds : ds*p+ds]
		clear(out)
		for q := p; q < 10; q++ {
			l := L[10*q+p]
			in := e[ds*q : ds*q+ds : ds*q+ds]
			for i := range out {
				out[i] += l * in[i]
			}
		}
	}
}

// desc writes the descriptor of sample e at x (F332, 36 numbers).
func (r *exampleRegions) desc(e int, x, d []float64) {
	F := blocks(x)
	var eh [exampleRegionDesc]float64
	for p, ab := range greenPairs {
		t := greenStrainTerm(&F, nil, ab[0], ab[1])
		putSym6Desc(eh[example.DescSize*p:], &t)
	}
	choleskyT(r.L[100*e:100*e+100], eh[:], d)
}

// ddesc writes the descriptor's differential at x along dx.
func (r *exampleRegions) ddesc(e int, x, dx, d []float64) {
	F, dF := blocks(x), blocks(dx)
	var eh [exampleRegionDesc]float64
	for p, ab := range greenPairs {
		t := greenStrainTerm(&F, &dF, ab[0], ab[1])
		putSym6Desc(eh[example.DescSize*p:], &t)
	}
	choleskyT(r.L[100*e:100*e+100], eh[:], d)
}

// stresses returns Σ_P = k Tensor(Σ_{Q ≤ P} L_PQ r_Q) for the 10 pairs.
func (r *exampleRegions) stresses(e int, res []float64, k float64) (S [10]geom.Mat3) {
	const ds = example.DescSize
	L := r.L[100*e : 100*e+100]
	for p := 0; p < 10; p++ {
		var y [ds]float64
		for q := 0; q <= p; q++ {
			l := k * L[10*p+q]
			in := res[ds*q : ds*q+ds : ds*q+ds]
			for i := range y {
				y[i] += l * in[i]
			}
		}
		S[p] = example.Tensor(y[:])
	}
	return S
}

// force subtracts ∂W/∂(F, ∇F) of sample e at x (residual res) from out.
func (r *exampleRegions) force(e int, x, res []float64, k float64, out []float64) {
	F := blocks(x)
	S := r.stresses(e, res, k)
	for b := 0; b < 4; b++ {
		var g geom.Mat3
		for a := 0; a < 4; a++ {
			addMulNN(&g, &F[a], &S[greenPairOf[a][b]])
		}
		for i := 0; i < 9; i++ {
			out[9*b+i] -= g[i]
		}
	}
}

// dforce subtracts kk times the differential of ∂W/∂(F, ∇F) along dx
// (residual res, its change dres) from out.
func (r *exampleRegions) dforce(e int, x, dx, res, dres []float64, kk float64, out []float64) {
	F, dF := blocks(x), blocks(dx)
	S := r.stresses(e, res, kk)
	dS := r.stresses(e, dres, kk)
	for b := 0; b < 4; b++ {
		var g geom.Mat3
		for a := 0; a < 4; a++ {
			p := greenPairOf[a][b]
			addMulNN(&g, &dF[a], &S[p])
			addMulNN(&g, &F[a], &dS[p])
		}
		for i := 0; i < 9; i++ {
			out[9*b+i] -= g[i]
		}
	}
}
