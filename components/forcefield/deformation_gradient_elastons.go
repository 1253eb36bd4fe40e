package forcefield

import (
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/material"
	"math"
)

const f332Size = 36

// This file holds DeformationGradientForceField's integration of the
// energy over the region of an F332 sample (Faure et al. 2011 Sec. 5.3,
// Table 1; Martin et al. 2010's elastons). A sample carries F_0 = F and
// F_k = ∂F/∂X_k at its centre X_s; over its region F(X_s + d) = Σ_a d^a
// F_a (d^0 = 1, d^k the offset's components), exact for rigid or affine
// frames with linear weights. The sampler gives the region's moments
// m_α = ∫ (E/E_s) d^α dV (|α| ≤ order), and the energy is
//
//	W_s = (E_s/E) ∫ (E/E_s) Ψ(F(d)) dV
//
// integrated in closed form where Ψ(F(d)) is a polynomial in d:
//
//   - corotational (CorotationalLinear): ε(d) = sym(Rᵀ F(d)) − I with R
//     the rotation of the centre's F (polar, as the law), ε affine in d,
//     Ψ = ½ ε:C:ε quadratic: exact with the moments of order 2,
//     W = ½ Σ_ab M_ab ε_a:C:ε_b, ε_a = sym(Rᵀ F_a) − δ_a0 I,
//     M_ab = m(e_a + e_b). The force includes the turn of R with F_0
//     (dR = R[ω]×, (tr S·I − S) ω = axial(RᵀdF − dFᵀR)): with σ_a =
//     Σ_b M_ab C:ε_b, T = Σ_a σ_a (RᵀF_a)ᵀ, τ = axial(skew T) and
//     z = (tr S·I − S)⁻¹ τ,
//     ∂W/∂F_0 = R (σ_0 − 2[z]×),  ∂W/∂F_k = R σ_k,
//     and the tangent differentiates that once more (δR, δS, δz): exact;
//   - Linear: the same with R = I (exact at order 2);
//   - Green–Lagrange (StVenantKirchhoff): E(d) = ½(F(d)ᵀF(d) − I) =
//     Σ_{a≤b} d^a d^b Ê_ab, quadratic in d, Ψ = μ E:E + λ/2 (tr E)²
//     quartic: exact with the moments of order 4,
//     W = ½ Σ_PQ m(P+Q) Ê_P:Ŝ_Q (Ŝ = C:Ê), ∂W/∂F_b = Σ_a F_a Σ_ab with
//     Σ_ab = ∫ d^a d^b S(d) = Σ_Q m(e_a + e_b + Q) Ŝ_Q;
//     with order 2 or 3 the moments above the order are zero (truncated:
//     the quartic terms in ∇F drop out, an approximation);
//   - any law by the voxel quadrature: W = Σ_v ΔV_v (E_v/E_s) Ψ(F(d_v)) at
//     the centres d_v of the region's voxels (the midpoint rule per voxel),
//     forces ∂W/∂F_0 = Σ_v ω_v P(F(d_v)), ∂W/∂F_k = Σ_v ω_v d_v,k P(F(d_v)).

// Reduced shear integration (shearIntegration = "reduced"). With rigid
// frames and linear weights a segment of length ℓ along x bending with
// curvature κ has u_x = −κ X y (exact) but u_y = κX² − κℓX/2 (each frame
// extrapolates the bent axis rigidly), so ε_xy = ½κ(X − ℓ/2): a shear
// linear along the segment, zero at its centre. Its gradient ∂ε_xy/∂X
// (in β_x) carries the spurious energy G κ² ℓ²/12 per unit volume that
// multiplies the bending stiffness by 1 + (G/E)(ℓ/h)² (shear locking);
// the centre value, ½(v/ℓ − θ/2), is the shear of the linear Timoshenko
// element with one-point shear integration, which does not lock. The
// classical cure (selective reduced, or assumed-strain, integration of
// the transverse shear of hexahedra) samples each shear component on the
// line through the centre along the third axis:
//
//	ε̃_ij(d) = ε_ij(d with d_i = d_j = 0)  (i ≠ j),  ε̃_ii(d) = ε_ii(d),
//
// i.e. ε_xy keeps only its z-variation, ε_xz its y-variation, ε_yz its
// x-variation (torsion lives in ∂ε_xy/∂z and ∂ε_xz/∂y and is kept; the
// normal strains, and so bending's ∂ε_xx/∂y, are untouched). The energy
// W̃ = ∫ Ψ(ε̃(d)) dV is still an energy of the F_a, and the forces and
// tangent below are its exact derivatives: ε̃ is a projection P of each
// term of ε's expansion in d (corotational: ε_a, a = 0..3, P_k drops the
// components ij ∋ k of ε_k; Green–Lagrange: the term of d^a d^b drops the
// components ij that contain a or b), so the stress conjugate to each
// term is projected the same way (P is orthogonal for the ":" product).
// The axes are the material (rest) axes X: the energy stays invariant
// under rotations of the deformed configuration (the corotational
// measure takes R out first; Green–Lagrange E is material), rigid motions
// have none, but it depends on how the rest shape is oriented: slender
// parts should lie along the axes, as for hexahedra.

// shearDrop[a] is the bit set (bits 3, 4, 5 of the sym6 components xy, yz,
// zx) of the shear components reduced integration drops from the term of
// offset component a (0: the constant term, 1..3: d_x, d_y, d_z).
var shearDrop = [4]uint8{0, 1<<3 | 1<<5, 1<<3 | 1<<4, 1<<4 | 1<<5}

// reduce zeroes the components of e in the bit set drop.
func reduce(e *sym6, drop uint8) {
	for i := 3; i < 6; i++ {
		if drop&(1<<i) != 0 {
			e[i] = 0
		}
	}
}

// f332Mode is how the energy of F332 samples is integrated.
type f332Mode int

const (
	f332Off f332Mode = iota // F331 samples
	f332Corotational
	f332Linear
	f332Green
	f332Voxels
)

// momentOf4[a][b][c][d] is the monomial (geom's numbering) of
// d^a d^b d^c d^d, indices 0 (the constant) to 3 (d₂).
var momentOf4 [4][4][4][4]int8

// greenPairs lists the pairs (a, b), a ≤ b, of the Green strain's terms;
// greenPairOf inverts it for any order of a and b.
var (
	greenPairs  [10][2]int
	greenPairOf [4][4]int
)

func init() {
	unit := func(a int) [3]int {
		var e [3]int
		if a > 0 {
			e[a-1] = 1
		}
		return e
	}
	for a := 0; a < 4; a++ {
		for b := 0; b < 4; b++ {
			for c := 0; c < 4; c++ {
				for d := 0; d < 4; d++ {
					var e [3]int
					for _, x := range []int{a, b, c, d} {
						u := unit(x)
						e[0], e[1], e[2] = e[0]+u[0], e[1]+u[1], e[2]+u[2]
					}
					momentOf4[a][b][c][d] = int8(geom.MonomialIndex(e[0], e[1], e[2]))
				}
			}
		}
	}
	p := 0
	for a := 0; a < 4; a++ {
		for b := a; b < 4; b++ {
			greenPairs[p] = [2]int{a, b}
			greenPairOf[a][b], greenPairOf[b][a] = p, p
			p++
		}
	}
}

// elastonCache is what AddForce keeps per F332 sample for AddDForce.
type elastonCache struct {
	F [4]geom.Mat3 // F_a at the last AddForce
	// Corotational and linear.
	R    geom.Mat3
	minv [6]float64
	Y    [4]geom.Mat3 // RᵀF_a
	sig  [4]geom.Mat3 // σ_a
	z    geom.Vec3
	// Green–Lagrange: Σ_P for every pair P.
	Sig [10]geom.Mat3
	// thinLaw = reduced: the sample's thin directions (0 none, 1 a shell
	// whose normal is column 2 of thinQ, 2 a rod along column 0).
	thin  int8
	thinQ geom.Mat3
	// thinShearStabilization: the factors f of the transverse shears of a
	// thin sample in its axes thinQ (pairs 01, 12, 20 as in sym6; 1 for
	// the others); stab is false when every factor is 1.
	shearF  [3]float64
	stab    bool
	thinLaw bool // thinLaw = reduced (with stab: thin holds the form for both)
}

// elastonKernel integrates one sample's energy in closed form.
type elastonKernel struct {
	mode       f332Mode
	lambda, mu float64
	reduced    bool                         // shearIntegration = "reduced"
	coro       *material.CorotationalLinear // rotation of the centre's F (corotational)
}

// The kernels below work on symmetric matrices as 6 numbers
// [s00 s11 s22 s01 s12 s20] and on pointers to 3×3 arrays: Go copies
// fixed-size arrays passed by value, which made the first version
// (geom.Mat3 method chains) 4–8× slower.
type sym6 [6]float64

// symOf returns sym(m).
func symOf(m *geom.Mat3) sym6 {
	return sym6{m[0], m[4], m[8], 0.5 * (m[1] + m[3]), 0.5 * (m[5] + m[7]), 0.5 * (m[6] + m[2])}
}

// full returns s as a 3×3 matrix.
func (s *sym6) full() geom.Mat3 {
	return geom.Mat3{s[0], s[3], s[5], s[3], s[1], s[4], s[5], s[4], s[2]}
}

// ddot6 returns a:b.
func ddot6(a, b *sym6) float64 {
	return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] + 2*(a[3]*b[3]+a[4]*b[4]+a[5]*b[5])
}

// axpy6 sets y += a x.
func axpy6(y *sym6, a float64, x *sym6) {
	for i := range y {
		y[i] += a * x[i]
	}
}

// hooke returns C:ε = 2μ ε + λ tr(ε) I.
func (k *elastonKernel) hooke(e *sym6) sym6 {
	m2, t := 2*k.mu, k.lambda*(e[0]+e[1]+e[2])
	return sym6{m2*e[0] + t, m2*e[1] + t, m2*e[2] + t, m2 * e[3], m2 * e[4], m2 * e[5]}
}

// hookeThin returns C_red:ε, the law condensed for a thin sample (thinLaw
// = reduced), applied to the strain gradient terms: with Q the sample's
// principal axes (rest frame) and ε' = Qᵀ ε Q,
//
//   - shell (normal q₂): plane stress σ'₂₂ = 0, the in-plane normal
//     stresses 2μ ε' + λ* (ε'₀₀ + ε'₁₁) with λ* = 2λμ/(λ + 2μ), the shears
//     2μ ε' (transverse ones included);
//   - rod (axis q₀): uniaxial stress, σ'₀₀ = E ε'₀₀ with Young's modulus
//     E = μ(3λ + 2μ)/(λ + μ), σ'₁₁ = σ'₂₂ = 0, the shears 2μ ε' (torsion,
//     section shear);
//
// then σ = Q σ' Qᵀ. C_red is the static condensation of C on the normal
// strains across the thin directions: symmetric and positive
// semi-definite, so the energy stays a quadratic form.
func (k *elastonKernel) hookeThin(e *sym6, thin int8, Q *geom.Mat3) sym6 {
	E := e.full()
	var t, l geom.Mat3
	mulTN(&t, Q, &E)
	mulNN(&l, &t, Q)
	m2 := 2 * k.mu
	for i := range l {
		l[i] *= m2
	}
	switch thin {
	case 1:
		ls := 2 * k.lambda * k.mu / (k.lambda + 2*k.mu)
		tr := ls * (l[0] + l[4]) / m2
		l[0] += tr
		l[4] += tr
		l[8] = 0
	case 2:
		young := k.mu * (3*k.lambda + 2*k.mu) / (k.lambda + k.mu)
		l[0] = young * l[0] / m2
		l[4], l[8] = 0, 0
	}
	mulNN(&t, Q, &l)
	var out geom.Mat3
	mulNTMat(&out, &t, Q)
	return symOf(&out)
}

// stabStress returns the stresses s_a = ∂W/∂ε_a of a thin sample with a
// stabilised transverse shear (thinShearStabilization), for the strains
// eps (ε₀ at the centre, ε₁..₃ its gradients along the rest axes) and the
// moment matrix M. In the sample's axes Q (columns q_k) the strains are
// ε'₀ = Qᵀ ε₀ Q and ε'_k = Qᵀ (Σ_a Q_ak ε_a) Q (the gradient along q_k),
// the moments M'₀₀ = M₀₀, M'₀ₖ = Σ_a M₀ₐ Q_ak, M'_kl = (Qᵀ M₂ Q)_kl; the
// transverse shears (a thin direction with a non-thin one) of ε'₀ and of
// the gradients along non-thin directions are scaled by √f, the others
// kept, and
//
//	W = ½ Σ_kl M'_kl ε̃'_k : C_kl : ε̃'_l
//
// (C_kl the law of the gradient terms, condensed with thinLaw = reduced,
// C elsewhere): a positive semi-definite quadratic form, the lecture's
// energy for f = 1. The returned s_a are its exact derivatives (the
// adjoint of the same linear map).
func (k *elastonKernel) stabStress(c *elastonCache, M *[4][4]float64, eps *[4]sym6) (out [4]sym6) {
	Q := &c.thinQ
	// Which gradient directions (1..3 = along q₀..q₂) are non-thin, and
	// the √f per sym6 shear slot (3: 01, 4: 12, 5: 20).
	var along [4]bool
	along[0] = true
	switch c.thin {
	case 1:
		along[1], along[2] = true, true
	default:
		along[1] = true
	}
	var sq [6]float64
	for i := range sq {
		sq[i] = 1
	}
	for p := 0; p < 3; p++ {
		sq[3+p] = math.Sqrt(c.shearF[p])
	}
	rot := func(e *sym6) sym6 { // Qᵀ e Q
		E := e.full()
		var t, l geom.Mat3
		mulTN(&t, Q, &E)
		mulNN(&l, &t, Q)
		return symOf(&l)
	}
	unrot := func(e *sym6) sym6 { // Q e Qᵀ
		E := e.full()
		var t, l geom.Mat3
		mulNN(&t, Q, &E)
		mulNTMat(&l, &t, Q)
		return symOf(&l)
	}
	// Strains in the sample's axes, scaled.
	var ep [4]sym6
	ep[0] = rot(&eps[0])
	for kk := 1; kk < 4; kk++ {
		var g sym6
		for a := 1; a < 4; a++ {
			axpy6(&g, Q[3*(a-1)+kk-1], &eps[a])
		}
		ep[kk] = rot(&g)
	}
	for kk := 0; kk < 4; kk++ {
		if along[kk] {
			for i := 3; i < 6; i++ {
				ep[kk][i] *= sq[i]
			}
		}
	}
	// Moments in the sample's axes.
	var Mp [4][4]float64
	Mp[0][0] = M[0][0]
	for kk := 1; kk < 4; kk++ {
		for a := 1; a < 4; a++ {
			Mp[0][kk] += M[0][a] * Q[3*(a-1)+kk-1]
		}
		Mp[kk][0] = Mp[0][kk]
		for l := 1; l < 4; l++ {
			for a := 1; a < 4; a++ {
				for b := 1; b < 4; b++ {
					Mp[kk][l] += Q[3*(a-1)+kk-1] * M[a][b] * Q[3*(b-1)+l-1]
				}
			}
		}
	}
	var Ce, Cr [4]sym6
	id := geom.Identity3()
	for kk := 0; kk < 4; kk++ {
		Ce[kk] = k.hooke(&ep[kk])
		if c.thin != 0 && c.thinLaw && kk > 0 {
			Cr[kk] = k.hookeThin(&ep[kk], c.thin, &id)
		}
	}
	var sp [4]sym6
	for kk := 0; kk < 4; kk++ {
		for l := 0; l < 4; l++ {
			if Mp[kk][l] == 0 {
				continue
			}
			if c.thinLaw && kk > 0 && l > 0 {
				axpy6(&sp[kk], Mp[kk][l], &Cr[l])
			} else {
				axpy6(&sp[kk], Mp[kk][l], &Ce[l])
			}
		}
		if along[kk] {
			for i := 3; i < 6; i++ {
				sp[kk][i] *= sq[i]
			}
		}
	}
	// Back to the rest axes: s₀ = Q s'₀ Qᵀ, s_a = Σ_k Q_ak Q s'_k Qᵀ.
	out[0] = unrot(&sp[0])
	for kk := 1; kk < 4; kk++ {
		g := unrot(&sp[kk])
		for a := 1; a < 4; a++ {
			axpy6(&out[a], Q[3*(a-1)+kk-1], &g)
		}
	}
	return out
}

// mulNTMat sets o = a bᵀ.
func mulNTMat(o, a, b *geom.Mat3) {
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			o[3*i+j] = a[3*i]*b[3*j] + a[3*i+1]*b[3*j+1] + a[3*i+2]*b[3*j+2]
		}
	}
}

// mulTN sets o = aᵀ b.
func mulTN(o, a, b *geom.Mat3) {
	for i := 0; i < 3; i++ {
		a0, a1, a2 := a[i], a[3+i], a[6+i]
		o[3*i] = a0*b[0] + a1*b[3] + a2*b[6]
		o[3*i+1] = a0*b[1] + a1*b[4] + a2*b[7]
		o[3*i+2] = a0*b[2] + a1*b[5] + a2*b[8]
	}
}

// mulNN sets o = a b (o must not alias b).
func mulNN(o, a, b *geom.Mat3) {
	for i := 0; i < 3; i++ {
		a0, a1, a2 := a[3*i], a[3*i+1], a[3*i+2]
		o[3*i] = a0*b[0] + a1*b[3] + a2*b[6]
		o[3*i+1] = a0*b[1] + a1*b[4] + a2*b[7]
		o[3*i+2] = a0*b[2] + a1*b[5] + a2*b[8]
	}
}

// addMulNN sets o += a b.
func addMulNN(o, a, b *geom.Mat3) {
	for i := 0; i < 3; i++ {
		a0, a1, a2 := a[3*i], a[3*i+1], a[3*i+2]
		o[3*i] += a0*b[0] + a1*b[3] + a2*b[6]
		o[3*i+1] += a0*b[1] + a1*b[4] + a2*b[7]
		o[3*i+2] += a0*b[2] + a1*b[5] + a2*b[8]
	}
}

// addAxialSYt adds axial(skew(S Yᵀ)) to tau (S symmetric, full).
func addAxialSYt(tau *geom.Vec3, S, Y *geom.Mat3) {
	var t0, t1, t2 float64
	for k := 0; k < 3; k++ {
		s0, s1, s2 := S[k], S[3+k], S[6+k] // column k = row k
		y0, y1, y2 := Y[k], Y[3+k], Y[6+k]
		t0 += s2*y1 - s1*y2
		t1 += s0*y2 - s2*y0
		t2 += s1*y0 - s0*y1
	}
	tau[0] += 0.5 * t0
	tau[1] += 0.5 * t1
	tau[2] += 0.5 * t2
}

// subSkew sets m −= a [v]×.
func subSkew(m *geom.Mat3, a float64, v geom.Vec3) {
	m[1] += a * v[2]
	m[2] -= a * v[1]
	m[3] -= a * v[2]
	m[5] += a * v[0]
	m[6] += a * v[1]
	m[7] -= a * v[0]
}

// symMulVec returns m v for the symmetric matrix of upper triangle m.
func symMulVec(m *[6]float64, v geom.Vec3) geom.Vec3 {
	return geom.Vec3{
		m[0]*v[0] + m[1]*v[1] + m[2]*v[2],
		m[1]*v[0] + m[3]*v[1] + m[4]*v[2],
		m[2]*v[0] + m[4]*v[1] + m[5]*v[2],
	}
}

// momentMatrix returns M_ab = m(e_a + e_b), a, b ∈ 0..3.
func momentMatrix(m []float64) (M [4][4]float64) {
	for a := 0; a < 4; a++ {
		for b := 0; b < 4; b++ {
			M[a][b] = m[momentOf4[a][b][0][0]]
		}
	}
	return M
}

// pairMoment[P][Q] is the monomial of d^P d^Q for Green pairs P, Q.
var pairMoment [10][10]int8

func init() {
	for p, ab := range greenPairs {
		for q, cd := range greenPairs {
			pairMoment[p][q] = momentOf4[ab[0]][ab[1]][cd[0]][cd[1]]
		}
	}
}

// force computes the energy of one sample (without E_s/E) and the
// gradients g_a = ∂W/∂F_a, filling c (whose F is set by the caller). ep,
// when not nil, holds the plastic strains αₚ, βₚ¹..³ subtracted from the
// strain's constant and linear terms (deformation_gradient_plasticity.go).
func (k *elastonKernel) force(c *elastonCache, m []float64, ep *[4]sym6) (W float64, g [4]geom.Mat3) {
	switch k.mode {
	case f332Green:
		return k.greenForce(c, m, ep)
	default:
		return k.coroForce(c, m, ep)
	}
}

// dforce returns the differentials δg_a for the changes dF of the F_a at
// the linearisation of the last force call.
func (k *elastonKernel) dforce(c *elastonCache, m []float64, dF *[4]geom.Mat3) [4]geom.Mat3 {
	switch k.mode {
	case f332Green:
		return k.greenDForce(c, m, dF)
	default:
		return k.coroDForce(c, m, dF)
	}
}

func (k *elastonKernel) coroForce(c *elastonCache, m []float64, ep *[4]sym6) (W float64, g [4]geom.Mat3) {
	M := momentMatrix(m)
	rotate := k.mode == f332Corotational
	if rotate {
		c.R, _, c.minv = k.coro.Decompose(c.F[0])
	} else {
		c.R = geom.Identity3()
	}
	var eps, Ce [4]sym6
	for a := 0; a < 4; a++ {
		mulTN(&c.Y[a], &c.R, &c.F[a])
		eps[a] = symOf(&c.Y[a])
		if a == 0 {
			eps[0][0]--
			eps[0][1]--
			eps[0][2]--
		}
		if ep != nil {
			axpy6(&eps[a], -1, &ep[a])
		}
		if k.reduced {
			reduce(&eps[a], shearDrop[a])
		}
		Ce[a] = k.hooke(&eps[a])
	}
	var Cr [4]sym6 // the condensed law on the gradient terms (thin samples; stabStress condenses its own)
	if c.thin != 0 && !c.stab {
		for a := 1; a < 4; a++ {
			Cr[a] = k.hookeThin(&eps[a], c.thin, &c.thinQ)
		}
	}
	var st [4]sym6
	if c.stab {
		st = k.stabStress(c, &M, &eps)
	}
	for a := 0; a < 4; a++ {
		var s sym6
		for b := 0; b < 4 && !c.stab; b++ {
			if M[a][b] != 0 {
				if c.thin != 0 && a > 0 && b > 0 {
					axpy6(&s, M[a][b], &Cr[b])
				} else {
					axpy6(&s, M[a][b], &Ce[b])
				}
			}
		}
		if c.stab {
			s = st[a]
		}
		if k.reduced {
			reduce(&s, shearDrop[a])
		}
		c.sig[a] = s.full()
		W += 0.5 * ddot6(&eps[a], &s)
	}
	if !rotate {
		c.z = geom.Vec3{}
		return W, c.sig
	}
	var tau geom.Vec3
	for a := 0; a < 4; a++ {
		addAxialSYt(&tau, &c.sig[a], &c.Y[a])
	}
	c.z = symMulVec(&c.minv, tau)
	G0 := c.sig[0]
	subSkew(&G0, 2, c.z)
	mulNN(&g[0], &c.R, &G0)
	for a := 1; a < 4; a++ {
		mulNN(&g[a], &c.R, &c.sig[a])
	}
	return W, g
}

func (k *elastonKernel) coroDForce(c *elastonCache, m []float64, dF *[4]geom.Mat3) (dg [4]geom.Mat3) {
	M := momentMatrix(m)
	rotate := k.mode == f332Corotational
	var Om geom.Mat3
	var dY [4]geom.Mat3
	for a := 0; a < 4; a++ {
		mulTN(&dY[a], &c.R, &dF[a])
	}
	if rotate {
		X := &dY[0] // RᵀdF_0
		w := symMulVec(&c.minv, geom.Vec3{X[7] - X[5], X[2] - X[6], X[3] - X[1]})
		Om = w.Skew()
		var t geom.Mat3
		for a := 0; a < 4; a++ {
			mulNN(&t, &Om, &c.Y[a])
			for i := range t {
				dY[a][i] -= t[i]
			}
		}
	}
	var dCe, dCr, de [4]sym6
	for a := 0; a < 4; a++ {
		e := symOf(&dY[a])
		if k.reduced {
			reduce(&e, shearDrop[a])
		}
		de[a] = e
		dCe[a] = k.hooke(&e)
		if c.thin != 0 && !c.stab && a > 0 {
			dCr[a] = k.hookeThin(&e, c.thin, &c.thinQ)
		}
	}
	var dst [4]sym6
	if c.stab {
		dst = k.stabStress(c, &M, &de)
	}
	var dsig [4]geom.Mat3
	for a := 0; a < 4; a++ {
		var s sym6
		for b := 0; b < 4 && !c.stab; b++ {
			if M[a][b] != 0 {
				if c.thin != 0 && a > 0 && b > 0 {
					axpy6(&s, M[a][b], &dCr[b])
				} else {
					axpy6(&s, M[a][b], &dCe[b])
				}
			}
		}
		if c.stab {
			s = dst[a]
		}
		if k.reduced {
			reduce(&s, shearDrop[a])
		}
		dsig[a] = s.full()
	}
	if !rotate {
		return dsig
	}
	var dtau geom.Vec3
	for a := 0; a < 4; a++ {
		addAxialSYt(&dtau, &dsig[a], &c.Y[a])
		addAxialSYt(&dtau, &c.sig[a], &dY[a])
	}
	dS := symOf(&dY[0])
	z := c.z
	tr := dS[0] + dS[1] + dS[2]
	dSz := geom.Vec3{dS[0]*z[0] + dS[3]*z[1] + dS[5]*z[2], dS[3]*z[0] + dS[1]*z[1] + dS[4]*z[2], dS[5]*z[0] + dS[4]*z[1] + dS[2]*z[2]}
	dz := symMulVec(&c.minv, geom.Vec3{dtau[0] - tr*z[0] + dSz[0], dtau[1] - tr*z[1] + dSz[1], dtau[2] - tr*z[2] + dSz[2]})
	// dg_0 = R (Ω (σ_0 − 2[z]×) + dσ_0 − 2[dz]×), dg_a = R (Ω σ_a + dσ_a).
	var G, t geom.Mat3
	for a := 0; a < 4; a++ {
		G = c.sig[a]
		if a == 0 {
			subSkew(&G, 2, z)
		}
		mulNN(&t, &Om, &G)
		for i := range t {
			t[i] += dsig[a][i]
		}
		if a == 0 {
			subSkew(&t, 2, dz)
		}
		mulNN(&dg[a], &c.R, &t)
	}
	return dg
}

// greenStrainTerm returns Ê_P of pair P = (a, b): ½(F_0ᵀF_0 − I),
// ½ F_aᵀF_a (a = b > 0), sym(F_aᵀF_b) (a < b); and its differential for
// dF when dF is not nil.
func greenStrainTerm(F *[4]geom.Mat3, dF *[4]geom.Mat3, a, b int) sym6 {
	var t geom.Mat3
	if dF == nil {
		mulTN(&t, &F[a], &F[b])
		e := symOf(&t)
		if a == b {
			for i := range e {
				e[i] *= 0.5
			}
			if a == 0 {
				e[0] -= 0.5
				e[1] -= 0.5
				e[2] -= 0.5
			}
		}
		return e
	}
	if a == b {
		mulTN(&t, &F[a], &dF[a])
		return symOf(&t)
	}
	var u geom.Mat3
	mulTN(&t, &dF[a], &F[b])
	mulTN(&u, &F[a], &dF[b])
	for i := range t {
		t[i] += u[i]
	}
	return symOf(&t)
}

func (k *elastonKernel) greenForce(c *elastonCache, m []float64, ep *[4]sym6) (W float64, g [4]geom.Mat3) {
	var E, Sh [10]sym6
	for p, ab := range greenPairs {
		E[p] = greenStrainTerm(&c.F, nil, ab[0], ab[1])
		if ep != nil && ab[0] == 0 {
			// The constant (0, 0) and linear (0, k) terms lose αₚ, βₚᵏ.
			axpy6(&E[p], -1, &ep[ab[1]])
		}
		if k.reduced {
			reduce(&E[p], shearDrop[ab[0]]|shearDrop[ab[1]])
		}
		Sh[p] = k.hooke(&E[p])
	}
	for p, ab := range greenPairs {
		var s sym6
		for q := range greenPairs {
			if mm := m[pairMoment[p][q]]; mm != 0 {
				axpy6(&s, mm, &Sh[q])
			}
		}
		if k.reduced {
			reduce(&s, shearDrop[ab[0]]|shearDrop[ab[1]])
		}
		c.Sig[p] = s.full()
		W += 0.5 * ddot6(&E[p], &s)
	}
	for b := 0; b < 4; b++ {
		for a := 0; a < 4; a++ {
			addMulNN(&g[b], &c.F[a], &c.Sig[greenPairOf[a][b]])
		}
	}
	return W, g
}

func (k *elastonKernel) greenDForce(c *elastonCache, m []float64, dF *[4]geom.Mat3) (dg [4]geom.Mat3) {
	var dSh [10]sym6
	for p, ab := range greenPairs {
		e := greenStrainTerm(&c.F, dF, ab[0], ab[1])
		if k.reduced {
			reduce(&e, shearDrop[ab[0]]|shearDrop[ab[1]])
		}
		dSh[p] = k.hooke(&e)
	}
	var dSig [10]geom.Mat3
	for p, ab := range greenPairs {
		var s sym6
		for q := range greenPairs {
			if mm := m[pairMoment[p][q]]; mm != 0 {
				axpy6(&s, mm, &dSh[q])
			}
		}
		if k.reduced {
			reduce(&s, shearDrop[ab[0]]|shearDrop[ab[1]])
		}
		dSig[p] = s.full()
	}
	for b := 0; b < 4; b++ {
		for a := 0; a < 4; a++ {
			p := greenPairOf[a][b]
			addMulNN(&dg[b], &dF[a], &c.Sig[p])
			addMulNN(&dg[b], &c.F[a], &dSig[p])
		}
	}
	return dg
}

// energy returns the energy of one sample (without E_s/E) at F, with
// the plastic strains ep (nil: none) and the thin axes of the sample's
// cache sc (thinLaw = reduced; nil: none).
func (k *elastonKernel) energy(F *[4]geom.Mat3, m []float64, ep *[4]sym6, sc *elastonCache) float64 {
	var c elastonCache
	c.F = *F
	if sc != nil {
		c.thin, c.thinQ, c.shearF, c.stab, c.thinLaw = sc.thin, sc.thinQ, sc.shearF, sc.stab, sc.thinLaw
	}
	W, _ := k.force(&c, m, ep)
	return W
}

// sampleF reads the four blocks of F332 sample s of x.
func sampleF(F *[4]geom.Mat3, x []float64, s int) {
	xs := x[f332Size*s : f332Size*s+f332Size]
	for a := 0; a < 4; a++ {
		F[a] = geom.Mat3(xs[9*a : 9*a+9])
	}
}

// forceRange332 is AddForce's loop over F332 samples.
func (c *DeformationGradientForceField) forceRange332(lo, hi int) {
	f, x := c.passF, c.passX
	for s := lo; s < hi; s++ {
		fs := f[f332Size*s : f332Size*s+f332Size]
		if c.mode == f332Voxels {
			c.voxelForce(s, fs, x)
			continue
		}
		ec := &c.ecache[s]
		sampleF(&ec.F, x, s)
		_, g := c.kernel.force(ec, c.moments[geom.NumMoments*s:geom.NumMoments*(s+1)], c.samplePlasticOf(s))
		a := c.scale[s]
		for b := 0; b < 4; b++ {
			for i := 0; i < 9; i++ {
				fs[9*b+i] -= a * g[b][i]
			}
		}
	}
}

// dforceRange332 is AddDForce's loop over F332 samples.
func (c *DeformationGradientForceField) dforceRange332(lo, hi int) {
	df, dx, kf := c.passDF, c.passDX, c.passK
	for s := lo; s < hi; s++ {
		out := df[f332Size*s : f332Size*s+f332Size]
		if c.mode == f332Voxels {
			c.voxelDForce(s, out, dx, kf)
			continue
		}
		var dF [4]geom.Mat3
		sampleF(&dF, dx, s)
		dg := c.kernel.dforce(&c.ecache[s], c.moments[geom.NumMoments*s:geom.NumMoments*(s+1)], &dF)
		a := kf * c.scale[s]
		for b := 0; b < 4; b++ {
			for i := 0; i < 9; i++ {
				out[9*b+i] -= a * dg[b][i]
			}
		}
	}
}

// voxelForce adds the force of F332 sample s integrated over its voxels,
// caching F, P and the law's cache at every voxel.
func (c *DeformationGradientForceField) voxelForce(s int, fs, x []float64) {
	var F [4]geom.Mat3
	sampleF(&F, x, s)
	q := &c.quad
	cs, k := c.cacheSize, c.BulkModulus
	for p := q.first[s]; p < q.first[s+1]; p++ {
		d := q.offsets[3*p : 3*p+3]
		Fq := c.qF[9*p : 9*p+9 : 9*p+9]
		for i := 0; i < 9; i++ {
			Fq[i] = F[0][i] + d[0]*F[1][i] + d[1]*F[2][i] + d[2]*F[3][i]
		}
		P := c.qP[9*p : 9*p+9 : 9*p+9]
		if c.plastic != nil {
			// Fₑ = F(d) A(d)⁻¹, P = P(Fₑ) A(d)⁻ᵀ (plasticity).
			A := &c.plastic.qainv[p]
			var Fe, Pe geom.Mat3
			mulNN(&Fe, (*geom.Mat3)(Fq), A)
			c.law.StressCached(Fe[:], Pe[:], c.qcache[cs*p:cs*p+cs])
			mulNT(P, &Pe, A)
		} else {
			c.law.StressCached(Fq, P, c.qcache[cs*p:cs*p+cs])
		}
		w := c.scale[s] * q.stiffness[p] * q.volumes[p]
		var G [9]float64
		for i := 0; i < 9; i++ {
			G[i] = w * P[i]
		}
		if k > 0 {
			vc := c.qvcache[volumeCacheSize*p : volumeCacheSize*p+volumeCacheSize : volumeCacheSize*p+volumeCacheSize]
			copy(vc[0:9], Fq)
			cofactorTo(vc[9:18], Fq)
			J := Fq[0]*vc[9] + Fq[1]*vc[10] + Fq[2]*vc[11]
			vc[18] = J
			b := q.volumes[p] * k * (J - 1)
			for i := 0; i < 9; i++ {
				G[i] += b * vc[9+i]
			}
		}
		for i := 0; i < 9; i++ {
			fs[i] -= G[i]
			fs[9+i] -= d[0] * G[i]
			fs[18+i] -= d[1] * G[i]
			fs[27+i] -= d[2] * G[i]
		}
	}
}

// voxelDForce adds the force differential of F332 sample s at the
// linearisation of the last voxelForce.
func (c *DeformationGradientForceField) voxelDForce(s int, out, dx []float64, kf float64) {
	var dF [4]geom.Mat3
	sampleF(&dF, dx, s)
	q := &c.quad
	cs, k := c.cacheSize, c.BulkModulus
	var dFq, dP [9]float64
	for p := q.first[s]; p < q.first[s+1]; p++ {
		d := q.offsets[3*p : 3*p+3]
		for i := 0; i < 9; i++ {
			dFq[i] = dF[0][i] + d[0]*dF[1][i] + d[1]*dF[2][i] + d[2]*dF[3][i]
		}
		if c.plastic != nil {
			A := &c.plastic.qainv[p]
			var dFe, dPe geom.Mat3
			mulNN(&dFe, (*geom.Mat3)(&dFq), A)
			c.law.StressDifferentialCached(dFe[:], dPe[:], c.qcache[cs*p:cs*p+cs])
			mulNT(dP[:], &dPe, A)
		} else {
			c.law.StressDifferentialCached(dFq[:], dP[:], c.qcache[cs*p:cs*p+cs])
		}
		w := kf * c.scale[s] * q.stiffness[p] * q.volumes[p]
		var G [9]float64
		for i := 0; i < 9; i++ {
			G[i] = w * dP[i]
		}
		if k > 0 {
			vc := c.qvcache[volumeCacheSize*p : volumeCacheSize*p+volumeCacheSize : volumeCacheSize*p+volumeCacheSize]
			cof, J := vc[9:18], vc[18]
			dot := 0.0
			for i := 0; i < 9; i++ {
				dot += cof[i] * dFq[i]
			}
			var dcof [9]float64
			cofactorDifferentialTo(dcof[:], vc[0:9], dFq[:])
			b := kf * q.volumes[p] * k
			for i := 0; i < 9; i++ {
				G[i] += b * (dot*cof[i] + (J-1)*dcof[i])
			}
		}
		for i := 0; i < 9; i++ {
			out[i] -= G[i]
			out[9+i] -= d[0] * G[i]
			out[18+i] -= d[1] * G[i]
			out[27+i] -= d[2] * G[i]
		}
	}
}

// energy332 is PotentialEnergy for F332 samples.
func (c *DeformationGradientForceField) energy332(x []float64) float64 {
	W := 0.0
	for s := range c.scale {
		var F [4]geom.Mat3
		sampleF(&F, x, s)
		if c.mode != f332Voxels {
			W += c.scale[s] * c.kernel.energy(&F, c.moments[geom.NumMoments*s:geom.NumMoments*(s+1)], c.samplePlasticOf(s), &c.ecache[s])
			continue
		}
		q := &c.quad
		for p := q.first[s]; p < q.first[s+1]; p++ {
			d := q.offsets[3*p : 3*p+3]
			var Fq geom.Mat3
			for i := 0; i < 9; i++ {
				Fq[i] = F[0][i] + d[0]*F[1][i] + d[1]*F[2][i] + d[2]*F[3][i]
			}
			Fl := Fq
			if c.plastic != nil {
				mulNN(&Fl, &Fq, &c.plastic.qainv[p])
			}
			W += c.scale[s] * q.stiffness[p] * q.volumes[p] * c.law.Energy(Fl)
			if c.BulkModulus > 0 {
				J := Fq.Det()
				W += q.volumes[p] * c.BulkModulus / 2 * (J - 1) * (J - 1)
			}
		}
	}
	return W
}
