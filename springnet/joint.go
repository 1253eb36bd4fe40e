package springnet

import (
	"github.com/sofago/sofago/geom"
)

// Body is the pose of a rigid body: origin T and orientation Q (a Rigid3
// coordinate [T Q]).
type Body struct {
	T geom.Vec3
	Q geom.Quat
}

// BodyAt reads the Rigid3 coordinate of DOF i of x.
func BodyAt(x []float64, i int) Body {
	c := x[7*i : 7*i+7]
	return Body{T: geom.Vec3{c[0], c[1], c[2]}, Q: geom.Quat{c[3], c[4], c[5], c[6]}}
}

// Attachment fixes a joint to a body: the joint point, Offset, in the
// body's axes relative to its origin, and the orientation of the joint's
// axes in the body's axes, Rot.
type Attachment struct {
	Offset geom.Vec3
	Rot    geom.Quat
}

// GapLaw is the elastic energy of a joint as a function of its gap g (see
// Geometry): W(g), its gradient σ = ∂W/∂g and its Hessian H = ∂²W/∂g²
// (symmetric). Eval fills grad and, when hess is not nil, hess.
type GapLaw interface {
	Energy(g *[6]float64) float64
	Eval(g, grad *[6]float64, hess *[6][6]float64) float64
}

// Geometry is a joint at a configuration. Body k carries the joint frame
// A_k = R_k·Rot_k at the point P_k = T_k + R_k·Offset_k (world arm
// r_k = R_k·Offset_k). The gap between the two joint frames is
//
//	Δ = P₂ − P₁ (world),  Φ = log(A₂ A₁ᵀ) (world rotation vector, |Φ| ≤ π),
//
// expressed in the mid frame R_m = exp(Φ/2) A₁ = exp(−Φ/2) A₂, the
// rotation halfway between the two joint frames (Gilles et al. 2011,
// Fig. 5: the hinge frame m between m_i and m_j):
//
//	g = [R_mᵀ Δ; R_mᵀ Φ]   (6-vector [translation; rotation], joint axes).
//
// R_mᵀ Φ is also the rotation vector of A₁ᵀA₂ (a rotation vector is fixed
// by its own rotation), so the rotation part is the relative rotation of
// the two joint frames in either frame's axes. g is unchanged by any rigid
// motion of the two bodies together, so every energy of g is frame
// invariant: no force under rigid motions, and the tangent rotates with
// the bodies.
type Geometry struct {
	R1, R2 geom.Vec3 // world arms r_k = R_k Offset_k
	P1, P2 geom.Vec3 // joint points P_k
	Delta  geom.Vec3 // P₂ − P₁
	Phi    geom.Vec3 // log(A₂ A₁ᵀ), world
	Theta  float64   // |Φ|
	Rm     geom.Mat3 // mid frame
	G      [6]float64
}

// Gap computes the geometry of the joint between b1 and b2 attached by a1
// and a2.
func Gap(b1, b2 Body, a1, a2 Attachment, out *Geometry) {
	R1, R2 := b1.Q.Mat(), b2.Q.Mat()
	out.R1 = R1.MulVec(a1.Offset)
	out.R2 = R2.MulVec(a2.Offset)
	out.P1 = b1.T.Add(out.R1)
	out.P2 = b2.T.Add(out.R2)
	out.Delta = out.P2.Sub(out.P1)
	qa1 := b1.Q.Mul(a1.Rot)
	qa2 := b2.Q.Mul(a2.Rot)
	out.Phi = qa2.Mul(qa1.Conj()).RotVec()
	out.Theta = out.Phi.Norm()
	qm := geom.QuatFromRotVec(out.Phi.Scale(0.5)).Mul(qa1)
	out.Rm = qm.Mat()
	d := out.Rm.TMulVec(out.Delta)
	p := out.Rm.TMulVec(out.Phi)
	out.G = [6]float64{d[0], d[1], d[2], p[0], p[1], p[2]}
}

// Energy returns the elastic energy of the joint, using g (the geometry
// is left there) as scratch, so nothing is allocated.
func Energy(b1, b2 Body, a1, a2 Attachment, law GapLaw, g *Geometry) float64 {
	Gap(b1, b2, a1, a2, g)
	return law.Energy(&g.G)
}

// Link is the gap between two bodies at a configuration, with what its
// derivatives need: the geometry, and (after Update with jacobian) the
// Jacobian J = ∂g/∂x (6×12, for the perturbations of Rigid3 of the two
// bodies, [δt₁ δθ₁ δt₂ δθ₂]).
//
// Variations. With σ = ∂W/∂g in joint axes and its world images
// σ_Δ = R_m σ_d, σ_Φ = R_m σ_φ, a variation of the bodies (δt_k, δθ_k)
// changes the gap by δg = ℛ_mᵀ(δG + G × ρ) (G = [Δ; Φ], ρ the rotation of
// R_m), with
//
//	δΔ = δt₂ + δθ₂ × r₂ − δt₁ − δθ₁ × r₁,
//	δΦ = J_l(Φ)⁻¹ δθ₂ − J_r(Φ)⁻¹ δθ₁,          (J_r(Φ)⁻¹ = J_l(−Φ)⁻¹)
//	ρ  = ½ J_l(Φ/2) δΦ + exp(Φ/2) δθ₁,
//
// so σ·δg = σ_Δ·δΔ + η·δΦ + exp(−Φ/2)μ·δθ₁ with μ = σ_Δ × Δ + σ_Φ × Φ and
// η = σ_Φ + ½ J_l(−Φ/2) μ, and Jᵀσ is
//
//	[−σ_Δ;  −r₁ × σ_Δ − J_l(Φ)⁻¹ η + exp(−Φ/2) μ;  σ_Δ;  r₂ × σ_Δ + J_l(−Φ)⁻¹ η].
//
// Its two forces and two torques balance exactly (they sum to zero, and
// so do the torques about any point, by exp(x) = I + [x]× J_l(x)), as the
// gradient of any frame-invariant energy must.
type Link struct {
	Geometry
	J [6][12]float64

	jh, ji, eh so3Coeffs // J_l at |Φ|/2, J_l⁻¹ at |Φ|, exp at |Φ|/2 (for derivatives)
	// The same as matrices: J_l(Φ)⁻¹, J_l(−Φ)⁻¹, J_l(Φ/2), exp(Φ/2).
	jli, jri, jlh, eph geom.Mat3
	vars               [12]linkVariation // along each unit perturbation (with jacobian)
}

// matrixOf returns M(x) of the coefficient set as a 3×3 matrix.
func matrixOf(k *so3Coeffs, x geom.Vec3) geom.Mat3 {
	return geom.Cols(k.apply(x, geom.Vec3{1, 0, 0}), k.apply(x, geom.Vec3{0, 1, 0}), k.apply(x, geom.Vec3{0, 0, 1}))
}

// Update computes the link's geometry and, when jacobian, J.
func (l *Link) Update(b1, b2 Body, a1, a2 Attachment, jacobian bool) {
	Gap(b1, b2, a1, a2, &l.Geometry)
	th := l.Theta
	l.jh, l.ji, l.eh = leftJacobianCoeffs(th/2), invLeftJacobianCoeffs(th), expCoeffs(th/2)
	phi := l.Phi
	l.jli = matrixOf(&l.ji, phi)
	l.jri = l.jli.T() // J_l(−Φ)⁻¹ = (J_l(Φ)⁻¹)ᵀ
	l.jlh = matrixOf(&l.jh, phi.Scale(0.5))
	l.eph = matrixOf(&l.eh, phi.Scale(0.5))
	if !jacobian {
		return
	}
	for c := 0; c < 12; c++ {
		v := &l.vars[c]
		l.variation(c, v)
		for r := 0; r < 6; r++ {
			l.J[r][c] = v.g[r]
		}
	}
}

// linkVariation is what a unit perturbation of one coordinate changes.
type linkVariation struct {
	dr1, dr2 geom.Vec3 // of the arms
	dDelta   geom.Vec3
	dPhi     geom.Vec3
	rho      geom.Vec3 // rotation of the mid frame
	g        [6]float64
}

// variation sets v to the changes of the link along the unit perturbation
// of coordinate c (0–11: δt₁, δθ₁, δt₂, δθ₂).
func (l *Link) variation(c int, v *linkVariation) {
	*v = linkVariation{}
	switch {
	case c < 3:
		v.dDelta[c] = -1
	case c < 6:
		var dth geom.Vec3
		dth[c-3] = 1
		v.dr1 = dth.Cross(l.R1)
		v.dDelta = v.dr1.Scale(-1)
		v.dPhi = l.jri.Col(c - 3).Scale(-1)
		v.rho = l.jlh.MulVec(v.dPhi).Scale(0.5).Add(l.eph.Col(c - 3))
	case c < 9:
		v.dDelta[c-6] = 1
	default:
		var dth geom.Vec3
		dth[c-9] = 1
		v.dr2 = dth.Cross(l.R2)
		v.dDelta = v.dr2
		v.dPhi = l.jli.Col(c - 9)
		v.rho = l.jlh.MulVec(v.dPhi).Scale(0.5)
	}
	gd := l.Rm.TMulVec(v.dDelta.Add(l.Delta.Cross(v.rho)))
	gp := l.Rm.TMulVec(v.dPhi.Add(l.Phi.Cross(v.rho)))
	v.g = [6]float64{gd[0], gd[1], gd[2], gp[0], gp[1], gp[2]}
}

// gradTerms are the world vectors Jᵀσ is made of.
type gradTerms struct{ sD, sP, mu, eta geom.Vec3 }

func (l *Link) terms(sig *[6]float64) gradTerms {
	var t gradTerms
	t.sD = l.Rm.MulVec(geom.Vec3{sig[0], sig[1], sig[2]})
	t.sP = l.Rm.MulVec(geom.Vec3{sig[3], sig[4], sig[5]})
	t.mu = t.sD.Cross(l.Delta).Add(t.sP.Cross(l.Phi))
	t.eta = t.sP.Add(l.jlh.TMulVec(t.mu).Scale(0.5)) // J_l(−Φ/2) = J_l(Φ/2)ᵀ
	return t
}

// AddGradient adds Jᵀσ (the gradient of σ·g at fixed σ) to grad.
func (l *Link) AddGradient(sig *[6]float64, grad *[12]float64) {
	t := l.terms(sig)
	jiEta := l.jli.MulVec(t.eta)               // J_l(Φ)⁻¹ η
	jrEta := l.jri.MulVec(t.eta)               // J_l(−Φ)⁻¹ η
	emu := l.eph.TMulVec(t.mu)                 // exp(−Φ/2) μ
	g1 := l.R1.Cross(t.sD).Add(jiEta).Sub(emu) // minus the θ₁ part
	g2 := l.R2.Cross(t.sD).Add(jrEta)
	for a := 0; a < 3; a++ {
		grad[a] -= t.sD[a]
		grad[3+a] -= g1[a]
		grad[6+a] += t.sD[a]
		grad[9+a] += g2[a]
	}
}

// AddCurvature adds to T (12×12) the derivative of Jᵀσ along every unit
// perturbation with σ (in joint axes) held fixed: the change of the
// gradient due to the turning mid frame, arms and rotation gap. The
// tangent of an energy W(g) is −(Jᵀ H J + T(σ)) with σ = ∂W/∂g and
// H = ∂²W/∂g². It needs the variations of Update with jacobian.
func (l *Link) AddCurvature(sig *[6]float64, T *[12][12]float64) {
	t := l.terms(sig)
	phi := l.Phi
	halfM := phi.Scale(-0.5)
	negPhi := phi.Scale(-1)
	for c := 0; c < 12; c++ {
		v := &l.vars[c]
		var d1, d2, dsD geom.Vec3
		if c < 3 || (c >= 6 && c < 9) {
			// A move: only Δ changes (no rotation of anything).
			dmu := t.sD.Cross(v.dDelta)
			deta := l.jlh.TMulVec(dmu).Scale(0.5)
			d1 = l.jli.MulVec(deta).Sub(l.eph.TMulVec(dmu))
			d2 = l.jri.MulVec(deta)
		} else {
			// σ fixed in joint axes: its world images turn with R_m.
			dsD = v.rho.Cross(t.sD)
			dsP := v.rho.Cross(t.sP)
			dmu := dsD.Cross(l.Delta).Add(t.sD.Cross(v.dDelta)).Add(dsP.Cross(phi)).Add(t.sP.Cross(v.dPhi))
			dHalfM := v.dPhi.Scale(-0.5)
			deta := dsP.Add(l.jh.dapply(halfM, dHalfM, t.mu).Scale(0.5)).Add(l.jlh.TMulVec(dmu).Scale(0.5))
			djiEta := l.ji.dapply(phi, v.dPhi, t.eta).Add(l.jli.MulVec(deta))
			djrEta := l.ji.dapply(negPhi, v.dPhi.Scale(-1), t.eta).Add(l.jri.MulVec(deta))
			demu := l.eh.dapply(halfM, dHalfM, t.mu).Add(l.eph.TMulVec(dmu))
			d1 = v.dr1.Cross(t.sD).Add(l.R1.Cross(dsD)).Add(djiEta).Sub(demu)
			d2 = v.dr2.Cross(t.sD).Add(l.R2.Cross(dsD)).Add(djrEta)
		}
		for a := 0; a < 3; a++ {
			T[a][c] -= dsD[a]
			T[3+a][c] -= d1[a]
			T[6+a][c] += dsD[a]
			T[9+a][c] += d2[a]
		}
	}
}

// Result is a joint evaluated at a configuration: the energy, the forces
// [f₁ τ₁ f₂ τ₂] on the two bodies (torques about their origins, in the
// Rigid3 derivative layout [v ω] of each body) and, on request, the exact
// tangent K = ∂F/∂x (12×12, row-major, for the perturbations of Rigid3:
// origin moves, world rotation vectors on the left).
type Result struct {
	Link
	W float64
	F [12]float64
	K [12][12]float64

	sig [6]float64 // σ and H of the law (here, not on the stack: the law is an interface)
	h   [6][6]float64
	t   [12][12]float64
}

// Evaluate computes the energy, forces and (when tangent) the exact
// tangent of the joint with energy law(g) between b1 and b2: F = −Jᵀσ
// (see Link) and K = −(Jᵀ H J + T(σ)), the derivative of the force, not a
// warped approximation, so it carries the terms a turning joint frame
// adds.
func Evaluate(b1, b2 Body, a1, a2 Attachment, law GapLaw, tangent bool, out *Result) {
	out.Update(b1, b2, a1, a2, tangent)
	sig, H := &out.sig, &out.h
	var hp *[6][6]float64
	if tangent {
		hp = H
	}
	out.W = law.Eval(&out.G, sig, hp)
	var grad [12]float64
	out.AddGradient(sig, &grad)
	for i := range grad {
		out.F[i] = -grad[i]
	}
	if !tangent {
		return
	}
	T := &out.t
	*T = [12][12]float64{}
	out.AddCurvature(sig, T)
	// HJ, then Jᵀ(HJ).
	var HJ [6][12]float64
	for i := 0; i < 6; i++ {
		for k := 0; k < 6; k++ {
			h := H[i][k]
			if h == 0 {
				continue
			}
			for c := 0; c < 12; c++ {
				HJ[i][c] += h * out.J[k][c]
			}
		}
	}
	for r := 0; r < 12; r++ {
		for c := 0; c < 12; c++ {
			s := T[r][c]
			for k := 0; k < 6; k++ {
				s += out.J[k][r] * HJ[k][c]
			}
			out.K[r][c] = -s
		}
	}
}

// QuadraticLaw is W = ½ gᵀ S g with S symmetric: the joint springs of a
// precomputed network (Gilles et al. 2011 eq. 24–25: their force
// D(l_i)ᵀ(K_m + K_mᵀ)θ_j with θ_j half the gap is this law's with
// S = ½(K_m + K_mᵀ)).
type QuadraticLaw struct {
	S [6][6]float64
}

// Energy implements GapLaw.
func (q *QuadraticLaw) Energy(g *[6]float64) float64 {
	w := 0.0
	for i := 0; i < 6; i++ {
		s := 0.0
		for j := 0; j < 6; j++ {
			s += q.S[i][j] * g[j]
		}
		w += g[i] * s
	}
	return 0.5 * w
}

// Eval implements GapLaw.
func (q *QuadraticLaw) Eval(g, grad *[6]float64, hess *[6][6]float64) float64 {
	w := 0.0
	for i := 0; i < 6; i++ {
		s := 0.0
		for j := 0; j < 6; j++ {
			s += q.S[i][j] * g[j]
		}
		grad[i] = s
		w += g[i] * s
	}
	if hess != nil {
		*hess = q.S
	}
	return 0.5 * w
}

// AxisLaw is the energy of an articulation: per-axis translational and
// rotational stiffness in the joint axes, and, when Limited, a blocking
// stiffness on each component of the rotation gap beyond [Min, Max]:
//
//	W = ½ Σ_a KT_a d_a² + ½ Σ_a KR_a φ_a² + ½ Blocking Σ_a (φ_a − clamp(φ_a, Min_a, Max_a))².
//
// The rotation gap φ is a rotation vector, so its components are the
// angles about the joint axes for a rotation about one axis, and a smooth
// measure in general.
type AxisLaw struct {
	KT, KR   [3]float64
	Limited  bool
	Min, Max [3]float64
	Blocking float64
}

// beyond returns how far φ is outside [min, max] (0 inside).
func beyond(phi, lo, hi float64) float64 {
	switch {
	case phi > hi:
		return phi - hi
	case phi < lo:
		return phi - lo
	}
	return 0
}

// Energy implements GapLaw.
func (l *AxisLaw) Energy(g *[6]float64) float64 {
	w := 0.0
	for a := 0; a < 3; a++ {
		w += l.KT[a]*g[a]*g[a] + l.KR[a]*g[3+a]*g[3+a]
		if l.Limited {
			b := beyond(g[3+a], l.Min[a], l.Max[a])
			w += l.Blocking * b * b
		}
	}
	return 0.5 * w
}

// Eval implements GapLaw.
func (l *AxisLaw) Eval(g, grad *[6]float64, hess *[6][6]float64) float64 {
	if hess != nil {
		*hess = [6][6]float64{}
	}
	w := 0.0
	for a := 0; a < 3; a++ {
		d, p := g[a], g[3+a]
		w += l.KT[a]*d*d + l.KR[a]*p*p
		grad[a] = l.KT[a] * d
		grad[3+a] = l.KR[a] * p
		kr := l.KR[a]
		if l.Limited {
			if b := beyond(p, l.Min[a], l.Max[a]); b != 0 {
				w += l.Blocking * b * b
				grad[3+a] += l.Blocking * b
				kr += l.Blocking
			}
		}
		if hess != nil {
			hess[a][a] = l.KT[a]
			hess[3+a][3+a] = kr
		}
	}
	return 0.5 * w
}
