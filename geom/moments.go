package geom

// Polynomial moments of a region (Faure et al. 2011, Sec. 5.3): the
// integrals ∫_V d^α dV of the monomials d^α = d₀^i d₁^j d₂^k of the offset
// d = X − c from a centre c, for every exponent α = (i, j, k) of total
// degree |α| = i + j + k up to MaxMomentOrder. A quantity v that is a
// polynomial of degree ≤ n in d, v = Σ_α v_α d^α, then integrates exactly
// as ∫_V v = Σ_α v_α M_α.
//
// Monomials are numbered by degree, then in graded lexicographic order
// (x before y before z):
//
//	0: 1
//	1: x  2: y  3: z
//	4: x²  5: xy  6: xz  7: y²  8: yz  9: z²
//	10–19: x³ x²y x²z xy² xyz xz² y³ y²z yz² z³
//	20–34: x⁴ x³y x³z x²y² x²yz x²z² xy³ xy²z xyz² xz³ y⁴ y³z y²z² yz³ z⁴
//
// so the monomials of degree ≤ n are the first NumMonomials(n).

// MaxMomentOrder is the highest degree of the moments kept (4: the degree
// of the Green–Lagrange energy density over a region with F affine in X,
// Faure Table 1).
const MaxMomentOrder = 4

// NumMoments is the number of monomials of degree ≤ MaxMomentOrder (35),
// the stride of a region's moments in the flat arrays that carry them.
const NumMoments = 35

var (
	monomialExp   [NumMoments][3]int
	monomialIndex [MaxMomentOrder + 1][MaxMomentOrder + 1][MaxMomentOrder + 1]int
)

func init() {
	m := 0
	for n := 0; n <= MaxMomentOrder; n++ {
		for i := n; i >= 0; i-- {
			for j := n - i; j >= 0; j-- {
				k := n - i - j
				monomialExp[m] = [3]int{i, j, k}
				monomialIndex[i][j][k] = m
				m++
			}
		}
	}
	if m != NumMoments {
		panic("geom: monomial count")
	}
	for i := range monomialIndex {
		for j := range monomialIndex[i] {
			for k := range monomialIndex[i][j] {
				if i+j+k > MaxMomentOrder {
					monomialIndex[i][j][k] = -1
				}
			}
		}
	}
}

// NumMonomials returns the number of monomials in three variables of
// degree ≤ n: (n+1)(n+2)(n+3)/6.
func NumMonomials(n int) int { return (n + 1) * (n + 2) * (n + 3) / 6 }

// MonomialExponents returns the exponents (i, j, k) of monomial m.
func MonomialExponents(m int) [3]int { return monomialExp[m] }

// MonomialIndex returns the number of the monomial x^i y^j z^k, or −1 when
// its degree exceeds MaxMomentOrder (or an exponent is negative).
func MonomialIndex(i, j, k int) int {
	if i < 0 || j < 0 || k < 0 || i+j+k > MaxMomentOrder {
		return -1
	}
	return monomialIndex[i][j][k]
}

// EvalMonomials writes d^α for the first len(out) monomials (at most
// NumMoments).
func EvalMonomials(out []float64, d Vec3) {
	var pw [3][MaxMomentOrder + 1]float64
	for a := 0; a < 3; a++ {
		pw[a][0] = 1
		for n := 1; n <= MaxMomentOrder; n++ {
			pw[a][n] = pw[a][n-1] * d[a]
		}
	}
	for m := range out {
		e := monomialExp[m]
		out[m] = pw[0][e[0]] * pw[1][e[1]] * pw[2][e[2]]
	}
}

// AddBoxMoments adds scale·∫_B (X − c)^α dX to out[α] for the first
// len(out) monomials (at most NumMoments), B the axis-aligned box of centre
// b and half-sizes h. The integral is exact (per axis, ∫_{−h}^{h}
// (b − c + u)^n du expanded binomially in u, so no cancellation of large
// powers when the box is far from c).
func AddBoxMoments(out []float64, b, h, c Vec3, scale float64) {
	// I[a][n] = ∫_{−h_a}^{h_a} (o_a + u)^n du, o = b − c.
	var I [3][MaxMomentOrder + 1]float64
	for a := 0; a < 3; a++ {
		o, ha := b[a]-c[a], h[a]
		// ∫ u^j du = 2 h^{j+1}/(j+1) for even j, 0 for odd j.
		var U [MaxMomentOrder + 1]float64
		hp := ha
		for j := 0; j <= MaxMomentOrder; j++ {
			if j%2 == 0 {
				U[j] = 2 * hp / float64(j+1)
			}
			hp *= ha
		}
		var op [MaxMomentOrder + 1]float64
		op[0] = 1
		for n := 1; n <= MaxMomentOrder; n++ {
			op[n] = op[n-1] * o
		}
		for n := 0; n <= MaxMomentOrder; n++ {
			s := 0.0
			for j := 0; j <= n; j += 2 {
				s += binomial[n][j] * op[n-j] * U[j]
			}
			I[a][n] = s
		}
	}
	for m := range out {
		e := monomialExp[m]
		out[m] += scale * I[0][e[0]] * I[1][e[1]] * I[2][e[2]]
	}
}

var binomial = [MaxMomentOrder + 1][MaxMomentOrder + 1]float64{
	{1},
	{1, 1},
	{1, 2, 1},
	{1, 3, 3, 1},
	{1, 4, 6, 4, 1},
}
