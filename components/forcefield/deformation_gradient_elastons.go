package forcefield

import (
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/material"
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
}

// elastonKernel integrates one sample's energy in closed form.
type elastonKernel struct {
	mode       f332Mode
	lambda, mu float64
	coro       *material.CorotationalLinear // rotation of the centre's F (corotational)
}

// hooke returns C:ε = 2μ ε + λ tr(ε) I for a symmetric ε.
func (k *elastonKernel) hooke(e geom.Mat3) geom.Mat3 {
	s := e.Scale(2 * k.mu)
	t := k.lambda * e.Trace()
	s[0] += t
	s[4] += t
	s[8] += t
	return s
}

// skewOf returns [v]×.
func skewOf(v geom.Vec3) geom.Mat3 { return v.Skew() }

// axialSkew returns axial(skew X) = ½ (X₂₁ − X₁₂, X₀₂ − X₂₀, X₁₀ − X₀₁).
func axialSkew(X geom.Mat3) geom.Vec3 {
	return geom.Vec3{0.5 * (X[7] - X[5]), 0.5 * (X[2] - X[6]), 0.5 * (X[3] - X[1])}
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

// force computes the energy of one sample (without E_s/E) and the
// gradients g_a = ∂W/∂F_a, filling c (whose F is set by the caller).
func (k *elastonKernel) force(c *elastonCache, m []float64) (W float64, g [4]geom.Mat3) {
	switch k.mode {
	case f332Green:
		return k.greenForce(c, m)
	default:
		return k.coroForce(c, m)
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

func (k *elastonKernel) coroForce(c *elastonCache, m []float64) (W float64, g [4]geom.Mat3) {
	M := momentMatrix(m)
	rotate := k.mode == f332Corotational
	if rotate {
		c.R, _, c.minv = k.coro.Decompose(c.F[0])
	} else {
		c.R = geom.Identity3()
	}
	var Ce [4]geom.Mat3
	var eps [4]geom.Mat3
	for a := 0; a < 4; a++ {
		c.Y[a] = c.R.TMul(c.F[a])
		eps[a] = c.Y[a].Sym()
		if a == 0 {
			eps[a][0]--
			eps[a][4]--
			eps[a][8]--
		}
		Ce[a] = k.hooke(eps[a])
	}
	for a := 0; a < 4; a++ {
		var s geom.Mat3
		for b := 0; b < 4; b++ {
			s = s.Add(Ce[b].Scale(M[a][b]))
		}
		c.sig[a] = s
		W += 0.5 * eps[a].DDot(s)
	}
	if !rotate {
		c.z = geom.Vec3{}
		for a := 0; a < 4; a++ {
			g[a] = c.sig[a]
		}
		return W, g
	}
	var T geom.Mat3
	for a := 0; a < 4; a++ {
		T = T.Add(c.sig[a].MulT(c.Y[a]))
	}
	c.z = symMulVec(&c.minv, axialSkew(T))
	g[0] = c.R.Mul(c.sig[0].Sub(skewOf(c.z).Scale(2)))
	for a := 1; a < 4; a++ {
		g[a] = c.R.Mul(c.sig[a])
	}
	return W, g
}

func (k *elastonKernel) coroDForce(c *elastonCache, m []float64, dF *[4]geom.Mat3) (dg [4]geom.Mat3) {
	M := momentMatrix(m)
	rotate := k.mode == f332Corotational
	var Om geom.Mat3
	if rotate {
		X := c.R.TMul(dF[0])
		a := geom.Vec3{X[7] - X[5], X[2] - X[6], X[3] - X[1]}
		Om = skewOf(symMulVec(&c.minv, a))
	}
	var dY, dCe [4]geom.Mat3
	for a := 0; a < 4; a++ {
		dY[a] = c.R.TMul(dF[a])
		if rotate {
			dY[a] = dY[a].Sub(Om.Mul(c.Y[a]))
		}
		dCe[a] = k.hooke(dY[a].Sym())
	}
	var dsig [4]geom.Mat3
	for a := 0; a < 4; a++ {
		for b := 0; b < 4; b++ {
			dsig[a] = dsig[a].Add(dCe[b].Scale(M[a][b]))
		}
	}
	if !rotate {
		return dsig
	}
	var dT geom.Mat3
	for a := 0; a < 4; a++ {
		dT = dT.Add(dsig[a].MulT(c.Y[a])).Add(c.sig[a].MulT(dY[a]))
	}
	dS := dY[0].Sym()
	tr := dS.Trace()
	// δB z = (tr δS I − δS) z.
	dBz := c.z.Scale(tr).Sub(dS.MulVec(c.z))
	dz := symMulVec(&c.minv, axialSkew(dT).Sub(dBz))
	dg[0] = c.R.Mul(Om.Mul(c.sig[0].Sub(skewOf(c.z).Scale(2))).Add(dsig[0]).Sub(skewOf(dz).Scale(2)))
	for a := 1; a < 4; a++ {
		dg[a] = c.R.Mul(Om.Mul(c.sig[a]).Add(dsig[a]))
	}
	return dg
}

// greenStrainTerm returns Ê_P of pair P = (a, b): ½(F_0ᵀF_0 − I),
// ½ F_aᵀF_a (a = b > 0), sym(F_aᵀF_b) (a < b); and its differential for
// dF when dF is not nil.
func greenStrainTerm(F *[4]geom.Mat3, dF *[4]geom.Mat3, a, b int) geom.Mat3 {
	if dF == nil {
		if a == b {
			e := F[a].TMul(F[a]).Scale(0.5)
			if a == 0 {
				e[0] -= 0.5
				e[4] -= 0.5
				e[8] -= 0.5
			}
			return e
		}
		return F[a].TMul(F[b]).Sym()
	}
	if a == b {
		return F[a].TMul(dF[a]).Sym()
	}
	return dF[a].TMul(F[b]).Add(F[a].TMul(dF[b])).Sym()
}

func (k *elastonKernel) greenForce(c *elastonCache, m []float64) (W float64, g [4]geom.Mat3) {
	var E, Sh [10]geom.Mat3
	for p, ab := range greenPairs {
		E[p] = greenStrainTerm(&c.F, nil, ab[0], ab[1])
		Sh[p] = k.hooke(E[p])
	}
	for p, ab := range greenPairs {
		var s geom.Mat3
		for q, cd := range greenPairs {
			if mm := m[momentOf4[ab[0]][ab[1]][cd[0]][cd[1]]]; mm != 0 {
				s = s.Add(Sh[q].Scale(mm))
			}
		}
		c.Sig[p] = s
		W += 0.5 * E[p].DDot(s)
	}
	for b := 0; b < 4; b++ {
		for a := 0; a < 4; a++ {
			g[b] = g[b].Add(c.F[a].Mul(c.Sig[greenPairOf[a][b]]))
		}
	}
	return W, g
}

func (k *elastonKernel) greenDForce(c *elastonCache, m []float64, dF *[4]geom.Mat3) (dg [4]geom.Mat3) {
	var dSh, dSig [10]geom.Mat3
	for p, ab := range greenPairs {
		dSh[p] = k.hooke(greenStrainTerm(&c.F, dF, ab[0], ab[1]))
	}
	for p, ab := range greenPairs {
		var s geom.Mat3
		for q, cd := range greenPairs {
			if mm := m[momentOf4[ab[0]][ab[1]][cd[0]][cd[1]]]; mm != 0 {
				s = s.Add(dSh[q].Scale(mm))
			}
		}
		dSig[p] = s
	}
	for b := 0; b < 4; b++ {
		for a := 0; a < 4; a++ {
			p := greenPairOf[a][b]
			dg[b] = dg[b].Add(dF[a].Mul(c.Sig[p])).Add(c.F[a].Mul(dSig[p]))
		}
	}
	return dg
}

// energy returns the energy of one sample (without E_s/E) at F.
func (k *elastonKernel) energy(F *[4]geom.Mat3, m []float64) float64 {
	var c elastonCache
	c.F = *F
	W, _ := k.force(&c, m)
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
		_, g := c.kernel.force(ec, c.moments[geom.NumMoments*s:geom.NumMoments*(s+1)])
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
		c.law.StressCached(Fq, P, c.qcache[cs*p:cs*p+cs])
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
		c.law.StressDifferentialCached(dFq[:], dP[:], c.qcache[cs*p:cs*p+cs])
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
			W += c.scale[s] * c.kernel.energy(&F, c.moments[geom.NumMoments*s:geom.NumMoments*(s+1)])
			continue
		}
		q := &c.quad
		for p := q.first[s]; p < q.first[s+1]; p++ {
			d := q.offsets[3*p : 3*p+3]
			var Fq geom.Mat3
			for i := 0; i < 9; i++ {
				Fq[i] = F[0][i] + d[0]*F[1][i] + d[1]*F[2][i] + d[2]*F[3][i]
			}
			W += c.scale[s] * q.stiffness[p] * q.volumes[p] * c.law.Energy(Fq)
			if c.BulkModulus > 0 {
				J := Fq.Det()
				W += q.volumes[p] * c.BulkModulus / 2 * (J - 1) * (J - 1)
			}
		}
	}
	return W
}
