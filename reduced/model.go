package reduced

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// Model evaluates a reduced StVK model: the internal force R(q), the
// tangent K(q) and the energy W(q) of the precomputed polynomials with the
// current Lamé parameters of each material group (see the package
// documentation for the formulas and the storage).
//
// A Model holds scratch vectors: it must not be used by two goroutines at
// once. Evaluation allocates nothing.
type Model struct {
	R      int
	poly   *Polynomials
	lambda []float64 // per group
	mu     []float64

	pairI, pairJ []int32 // pair p = (pairI[p], pairJ[p])
	pairIdx      []int32 // r×r: pair index of (min, max)
	k0           []float64
	h            blas64.General // np × r: T3_{(lm) i}
	g            blas64.General // np × np: ½ w_ij T4_{(lm)(ij)}
	gamma        []float64      // Γ = Σ λ_g Λ_g + μ_g M_g, upper-packed, order R + np

	q2, k1, k2 []float64
}

// NewModel returns the model of the polynomials p with the Lamé parameters
// lambda[g], mu[g] of each group.
func NewModel(p *Polynomials, lambda, mu []float64) (*Model, error) {
	ng := p.NumGroups()
	if len(lambda) != ng || len(mu) != ng {
		return nil, fmt.Errorf("reduced model: %d groups, %d λ and %d μ given", ng, len(lambda), len(mu))
	}
	r := p.R
	np := NumPairs(r)
	md := &Model{R: r, poly: p,
		lambda: append([]float64(nil), lambda...), mu: append([]float64(nil), mu...),
		pairI: make([]int32, np), pairJ: make([]int32, np), pairIdx: make([]int32, r*r),
		k0:    make([]float64, r*r),
		h:     blas64.General{Rows: np, Cols: r, Stride: r, Data: make([]float64, np*r)},
		g:     blas64.General{Rows: np, Cols: np, Stride: np, Data: make([]float64, np*np)},
		gamma: make([]float64, len(p.Mu[0])),
		q2:    make([]float64, np), k1: make([]float64, np), k2: make([]float64, np)}
	for i := 0; i < r; i++ {
		for j := i; j < r; j++ {
			k := Pair(r, i, j)
			md.pairI[k], md.pairJ[k] = int32(i), int32(j)
			md.pairIdx[i*r+j], md.pairIdx[j*r+i] = int32(k), int32(k)
		}
	}
	for g := 0; g < ng; g++ {
		if err := checkLame(g, lambda[g], mu[g]); err != nil {
			return nil, err
		}
	}
	md.rebuild()
	return md, nil
}

func checkLame(g int, lambda, mu float64) error {
	if math.IsNaN(lambda) || math.IsInf(lambda, 0) || !(mu >= 0) || math.IsInf(mu, 0) {
		return fmt.Errorf("group %d: Lamé parameters λ = %g, μ = %g must be finite with μ ≥ 0", g, lambda, mu)
	}
	return nil
}

// NumGroups returns the number of material groups.
func (md *Model) NumGroups() int { return len(md.mu) }

// Lame returns the Lamé parameters of group g.
func (md *Model) Lame(g int) (lambda, mu float64) { return md.lambda[g], md.mu[g] }

// SetLame changes the Lamé parameters of group g and rebuilds the
// evaluation matrices (Sec. 6.5: the polynomials are linear in λ and μ of
// each group): O(groups·M²) work, about a millisecond at r = 30.
func (md *Model) SetLame(g int, lambda, mu float64) error {
	if g < 0 || g >= len(md.mu) {
		return fmt.Errorf("group %d out of range [0, %d)", g, len(md.mu))
	}
	if err := checkLame(g, lambda, mu); err != nil {
		return err
	}
	md.lambda[g], md.mu[g] = lambda, mu
	md.rebuild()
	return nil
}

// gam returns Γ(a, b) for any a, b < M.
func (md *Model) gam(a, b int) float64 {
	if a > b {
		a, b = b, a
	}
	return md.gamma[Pair(md.R+NumPairs(md.R), a, b)]
}

// T2 returns ∂²W/∂q_a∂q_b at q = 0 (the reduced rest stiffness UᵀK₀U).
func (md *Model) T2(a, b int) float64 { return md.gam(a, b) }

// T3 returns ∂³W/∂q_a∂q_b∂q_c.
func (md *Model) T3(a, b, c int) float64 {
	r, pi := md.R, md.pairIdx
	return md.gam(a, r+int(pi[b*r+c])) + md.gam(b, r+int(pi[a*r+c])) + md.gam(c, r+int(pi[a*r+b]))
}

// T4 returns ∂⁴W/∂q_a∂q_b∂q_c∂q_d.
func (md *Model) T4(a, b, c, d int) float64 {
	r, pi := md.R, md.pairIdx
	return md.gam(r+int(pi[a*r+b]), r+int(pi[c*r+d])) + md.gam(r+int(pi[a*r+c]), r+int(pi[b*r+d])) +
		md.gam(r+int(pi[a*r+d]), r+int(pi[b*r+c]))
}

// rebuild combines the groups' Gram matrices and forms K0, H and G.
func (md *Model) rebuild() {
	for i := range md.gamma {
		md.gamma[i] = 0
	}
	for g := range md.mu {
		l, m := md.lambda[g], md.mu[g]
		pl, pm := md.poly.Lambda[g], md.poly.Mu[g]
		for i := range md.gamma {
			md.gamma[i] += l*pl[i] + m*pm[i]
		}
	}
	r := md.R
	np := NumPairs(r)
	for a := 0; a < r; a++ {
		for b := 0; b < r; b++ {
			md.k0[a*r+b] = md.T2(a, b)
		}
	}
	for p := 0; p < np; p++ {
		l, m := int(md.pairI[p]), int(md.pairJ[p])
		row := md.h.Data[p*r : (p+1)*r]
		for i := range row {
			row[i] = md.T3(l, m, i)
		}
		grow := md.g.Data[p*np : (p+1)*np]
		for p2 := 0; p2 < np; p2++ {
			i, j := int(md.pairI[p2]), int(md.pairJ[p2])
			w := 1.0 // ½ w_ij: ½ on the diagonal pairs, 1 off it
			if i == j {
				w = 0.5
			}
			grow[p2] = w * md.T4(l, m, i, j)
		}
	}
}

// Evaluate computes at q the internal force R = ∂W/∂q (r numbers, VegaFEM's
// sign: the force the body applies is −R) and the symmetric tangent
// K = ∂R/∂q (r×r, row-major). Either output may be nil. The cost is the
// same either way: R comes from the parts of K (package documentation).
func (md *Model) Evaluate(q, R, K []float64) {
	r := md.R
	md.monomials(q)
	if R != nil {
		R = R[:r:r]
		for i := range R {
			R[i] = 0
		}
	}
	k0 := md.k0
	for p, i := range md.pairI {
		l, m := int(i), int(md.pairJ[p])
		a, b, c := k0[l*r+m], md.k1[p], md.k2[p]
		if K != nil {
			v := a + b + c
			K[l*r+m], K[m*r+l] = v, v
		}
		if R != nil {
			v := a + 0.5*b + c/3
			R[l] += v * q[m]
			if l != m {
				R[m] += v * q[l]
			}
		}
	}
}

// monomials sets q2 = (qᵢqⱼ)_{i≤j}, k1 = H q and k2 = G q2.
func (md *Model) monomials(q []float64) {
	q = q[:md.R:md.R]
	for p, i := range md.pairI {
		md.q2[p] = q[i] * q[md.pairJ[p]]
	}
	blas64.Gemv(blas.NoTrans, 1, md.h, blas64.Vector{N: md.R, Inc: 1, Data: q}, 0, blas64.Vector{N: len(md.k1), Inc: 1, Data: md.k1})
	blas64.Gemv(blas.NoTrans, 1, md.g, blas64.Vector{N: len(md.q2), Inc: 1, Data: md.q2}, 0, blas64.Vector{N: len(md.k2), Inc: 1, Data: md.k2})
}

// Energy returns the reduced strain energy W(q) = ½ T2 qq + ⅙ T3 qqq +
// 1/24 T4 qqqq (W(0) = 0).
func (md *Model) Energy(q []float64) float64 {
	r := md.R
	md.monomials(q)
	w := 0.0
	for p, i := range md.pairI {
		l, m := int(i), int(md.pairJ[p])
		v := (0.5*md.k0[l*r+m] + md.k1[p]/6 + md.k2[p]/12) * md.q2[p]
		if l != m {
			v *= 2
		}
		w += v
	}
	return w
}

// VegaCoefficients returns the polynomial R(q) in VegaFEM's layout
// (StVKReducedInternalForces):
//
//	R_l = Σ_i lin[l·r+i] qᵢ + Σ_{i≤j} quad[l·P+Pair(i,j)] qᵢqⱼ + Σ_{i≤j≤k} cub[l·T+Triple(i,j,k)] qᵢqⱼq_k
//
// with P = r(r+1)/2, T = r(r+1)(r+2)/6, each upper-triangular coefficient
// summing all the symmetric permutations of its indices.
func (md *Model) VegaCoefficients() (lin, quad, cub []float64) {
	r := md.R
	np, nt := NumPairs(r), NumTriples(r)
	lin, quad, cub = make([]float64, r*r), make([]float64, r*np), make([]float64, r*nt)
	for l := 0; l < r; l++ {
		for i := 0; i < r; i++ {
			lin[l*r+i] = md.T2(l, i)
			for j := i; j < r; j++ {
				// ½ T3_lij qᵢqⱼ over ordered (i, j): the pair i < j twice.
				f := 1.0
				if i == j {
					f = 0.5
				}
				quad[l*np+Pair(r, i, j)] = f * md.T3(l, i, j)
				for k := j; k < r; k++ {
					// 1/6 T4_lijk over the distinct orderings of (i, j, k).
					var perms float64
					switch {
					case i == j && j == k:
						perms = 1
					case i == j || j == k:
						perms = 3
					default:
						perms = 6
					}
					cub[l*nt+Triple(r, i, j, k)] = perms / 6 * md.T4(l, i, j, k)
				}
			}
		}
	}
	return lin, quad, cub
}
