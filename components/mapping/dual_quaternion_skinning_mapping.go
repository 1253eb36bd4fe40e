package mapping

import (
	"fmt"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
)

// DualQuaternionSkinningMapping is dual quaternion skinning of rigid frames
// (Kavan et al. 2008; Gilles et al. 2011, eq. 2, 7, 8 and appendix A): a
// parent state of Rigid3 frames maps to a child state of Vec3 points or of
// F331 deformation gradients at integration samples.
//
// Frame i's rest-relative rigid transform Tᵢ T̄ᵢ⁻¹ is the unit dual
// quaternion ĝᵢ = (rᵢ, eᵢ) with rᵢ = qᵢ q̄ᵢ* and eᵢ = ½ (tᵢ rᵢ − rᵢ t̄ᵢ)
// (t as pure quaternions). A material point of rest position X with
// weights wᵢ blends them, B = Σ wᵢ ĝᵢ = (B₀, B_ε), and applies the
// normalised blend b' = B/‖B₀‖ (Gilles eq. 2):
//
//	x(B; X) = [B₀ X B₀* + 2 vec(B_ε B₀*)] / ‖B₀‖²  = R(b'₀) X + t(b').
//
// The deformation gradient (Gilles eq. 8, F = R + QNW) is the total
// derivative in X, with W_k = ∂B/∂X_k = Σ ∂_k wᵢ ĝᵢ:
//
//	F[:,k] = R(b'₀) e_k + D_B x[W_k].
//
// Everything is exact, written with quaternion products rather than the
// paper's 8×8 matrices (T̄ᵢ, N, Q, W and the Δ operators of appendix A are
// those products expanded): x is a ratio of two quadratic forms of B, so J
// (first derivatives), Jᵀ (the gradient of ⟨f, x⟩ or ⟨P, F⟩ with respect
// to B and W_k, pulled back to each frame) and the geometric stiffness
// ApplyDJT (its derivative, including the dependence of ĝᵢ's derivative on
// the frame's own pose, the paper's ∂Lᵢ) are closed-form; the fixtures
// check them against finite differences. The frame velocity [v; ω] (the
// project's order, ω in world coordinates; the paper writes [ω; v])
// moves ĝᵢ by drᵢ = ½ ω rᵢ, deᵢ = ½ (v rᵢ + tᵢ drᵢ − drᵢ t̄ᵢ) (Gilles' Lᵢ,
// with the erratum "−a_ε + w₀t_x − b₀t_z" of L_iε built in).
//
// Signs: a unit quaternion and its negative are the same rotation but not
// the same blend. The mapping blends each frame's rest-relative
// quaternion rᵢ = qᵢ q̄ᵢ* exactly as the parent state holds qᵢ: there is
// no hemisphere flip inside the physics (a flip would make the map, and
// the forces, jump). Rigid3 integration (q ← exp(hω) q) keeps qᵢ
// continuous in time, so the blend is continuous as long as the frames
// start in the hemisphere of their rest orientation; Init checks that
// (qᵢ·q̄ᵢ ≥ 0 for the initial positions) and reports a frame that is not.
// Code that inserts a frame at run time gives it the rest-relative
// rotation of the current blend at its rest point (so it starts in the
// same hemisphere as its neighbours' blend).
//
// Weights need not be a partition of unity (the blend is normalised), only
// Σ w > 0. Weights, rest points and the re-initialisation contract are
// described on SkinningInputs.
type DualQuaternionSkinningMapping struct {
	graph.ObjectBase
	SkinningInputs

	// Per frame: rest pose and, at the last Apply, the translation and the
	// blended dual quaternion ĝ = (r, e) as 8 numbers [r(4) e(4)].
	restT []geom.Vec3
	restQ []geom.Quat
	curT  []geom.Vec3
	g     [][8]float64
	// Per frame scratch: dĝ = Lᵢ [v ω] of the current direction (ApplyJ,
	// ApplyDJT).
	dg [][8]float64
	// Per point at the last Apply.
	blend []dqPoint

	loop chunkedLoop
	acc  []float64 // per frame accumulators of Jᵀ (8) or of Jᵀ and its derivative (16)
}

// dqPoint is the per-point state of the blend at the last Apply.
type dqPoint struct {
	B   [8]float64    // Σ w ĝ
	W   [3][8]float64 // W_k = Σ ∂_k w ĝ (F children)
	s   float64       // ‖B₀‖²
	x   geom.Vec3     // x = N/s, N = 𝒩(B, B; X)
	M   [3]geom.Vec3  // M_k = d/dh N(B + h W_k; X + h e_k) (F children)
	sig [3]float64    // σ_k = d/dh s(B + h W_k) = 2 B₀·W₀_k (F children)
}

func init() {
	graph.Register(graph.TypeInfo{
		Name:    "DualQuaternionSkinningMapping",
		Kind:    graph.KindMapping,
		Summary: "Dual quaternion skinning of rigid frames (Gilles et al. 2011, eq. 2, 7, 8): Rigid3 frames map to Vec3 points or F331 deformation gradients at samples through the normalised blend of the frames' rest-relative dual quaternions; no candy-wrapper collapse under twist; exact J, Jᵀ and geometric stiffness.",
		New:     func() graph.Object { return NewDualQuaternionSkinningMapping() },
	})
}

// NewDualQuaternionSkinningMapping returns a mechanical mapping with no
// inputs set (for code that builds scenes directly: SetStates,
// SetRestPoints, SetWeights, then Init).
func NewDualQuaternionSkinningMapping() *DualQuaternionSkinningMapping {
	return &DualQuaternionSkinningMapping{
		ObjectBase:     graph.ObjectBase{Name: "DualQuaternionSkinningMapping", TypeName: "DualQuaternionSkinningMapping"},
		SkinningInputs: SkinningInputs{MappingIO: MappingIO{Mechanical: true}},
	}
}

// Validate checks the fields that do not need the states.
func (m *DualQuaternionSkinningMapping) Validate() error { return m.validateFields() }

// Init resolves the states, rest points and weights (see SkinningInputs),
// checks them and the quaternion hemispheres, sizes the child and maps the
// parent's rest position, position and velocity onto it.
func (m *DualQuaternionSkinningMapping) Init() error {
	return m.Wrap(m.initialise(false))
}

// Reinit re-initialises the mapping after the parent state was resized
// (frames inserted) or after SetWeights/SetRestPoints: see SkinningInputs.
func (m *DualQuaternionSkinningMapping) Reinit() error {
	return m.Wrap(m.initialise(true))
}

func (m *DualQuaternionSkinningMapping) initialise(reinit bool) error {
	if err := m.setup(&m.ObjectBase, "DualQuaternionSkinningMapping", false, false, reinit); err != nil {
		return err
	}
	nf := m.from.Size()
	rest, pos := m.from.Vec(graph.RestPosition), m.from.Vec(graph.Position)
	m.restT = make([]geom.Vec3, nf)
	m.restQ = make([]geom.Quat, nf)
	for k := 0; k < nf; k++ {
		c := rest[7*k : 7*k+7]
		m.restT[k] = geom.Vec3{c[0], c[1], c[2]}
		m.restQ[k] = geom.Quat{c[3], c[4], c[5], c[6]}
		if !reinit {
			p := pos[7*k : 7*k+7]
			if p[3]*c[3]+p[4]*c[4]+p[5]*c[5]+p[6]*c[6] < 0 {
				return fmt.Errorf("frame %d: the position quaternion is in the opposite hemisphere of the rest quaternion (q·q̄ < 0); dual quaternion skinning blends the quaternions as given, so negate it (the same rotation)", k)
			}
		}
	}
	m.curT = make([]geom.Vec3, nf)
	m.g = make([][8]float64, nf)
	m.dg = make([][8]float64, nf)
	m.acc = make([]float64, 16*nf)
	m.blend = make([]dqPoint, m.weights.NumPoints())
	mapAll(m)
	return nil
}

// The maths, in the notation of the type's documentation. Quaternions are
// geom.Quat [x y z w]; a dual quaternion is 8 numbers [real(4) dual(4)];
// X̂ is the pure quaternion of a vector X. For dual quaternions A, C and a
// vector X the symmetric bilinear form
//
//	𝒩(A, C; X) = ℛ(A, C; X) + 𝒯(A, C),  ℛ = vec(A₀ X̂ C₀*),  𝒯 = vec(A_ε C₀* + C_ε A₀*)
//
// gives the blend's action on X: N = 𝒩(B, B; X) = ‖B₀‖² x. Its gradient in
// A for a fixed covector u, 𝒢(u, C; X) = ∇_A [u·𝒩(A, C; X)], is
//
//	𝒢(u, C; X) = (û C₀ X̂* − û C_ε,  û C₀),
//
// from ⟨p, a c⟩ = ⟨p c*, a⟩ and ⟨p, c a⟩ = ⟨c* p, a⟩. Every derivative
// below is a combination of 𝒩, ℛ and 𝒢, linear in each argument.

func qpure(v geom.Vec3) geom.Quat { return geom.Quat{v[0], v[1], v[2], 0} }
func qvec(q geom.Quat) geom.Vec3  { return geom.Vec3{q[0], q[1], q[2]} }
func qdot(a, b geom.Quat) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] + a[3]*b[3] }

func real4(d *[8]float64) geom.Quat { return geom.Quat{d[0], d[1], d[2], d[3]} }
func dual4(d *[8]float64) geom.Quat { return geom.Quat{d[4], d[5], d[6], d[7]} }

// axpy8 sets y += a x.
func axpy8(y *[8]float64, a float64, x *[8]float64) {
	for i := range y {
		y[i] += a * x[i]
	}
}

// axpyReal sets the real part of y += a q.
func axpyReal(y *[8]float64, a float64, q geom.Quat) {
	y[0] += a * q[0]
	y[1] += a * q[1]
	y[2] += a * q[2]
	y[3] += a * q[3]
}

func dot8(a, b *[8]float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func realDot(a, b *[8]float64) float64 {
	return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] + a[3]*b[3]
}

// rForm returns ℛ(A, C; X) = vec(A₀ X̂ C₀*).
func rForm(A, C *[8]float64, X geom.Vec3) geom.Vec3 {
	return qvec(real4(A).Mul(qpure(X)).Mul(real4(C).Conj()))
}

// nForm returns 𝒩(A, C; X).
func nForm(A, C *[8]float64, X geom.Vec3) geom.Vec3 {
	a0, c0 := real4(A), real4(C)
	r := a0.Mul(qpure(X)).Mul(c0.Conj())
	t1 := dual4(A).Mul(c0.Conj())
	t2 := dual4(C).Mul(a0.Conj())
	return geom.Vec3{r[0] + t1[0] + t2[0], r[1] + t1[1] + t2[1], r[2] + t1[2] + t2[2]}
}

// gForm returns 𝒢(u, C; X) = ∇_A [u·𝒩(A, C; X)]; with rotOnly, the
// gradient of u·ℛ(A, C; X) alone (real part only).
func gForm(u geom.Vec3, C *[8]float64, X geom.Vec3, rotOnly bool) [8]float64 {
	uc := qpure(u).Mul(real4(C))
	g0 := uc.Mul(qpure(X).Conj())
	var g [8]float64
	if rotOnly {
		g[0], g[1], g[2], g[3] = g0[0], g0[1], g0[2], g0[3]
		return g
	}
	ue := qpure(u).Mul(dual4(C))
	g[0], g[1], g[2], g[3] = g0[0]-ue[0], g0[1]-ue[1], g0[2]-ue[2], g0[3]-ue[3]
	g[4], g[5], g[6], g[7] = uc[0], uc[1], uc[2], uc[3]
	return g
}

var unitAxes = [3]geom.Vec3{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}

// eval computes x (and, with F non-nil, F and the caches M, σ) from B and
// W at rest position X.
func (pt *dqPoint) eval(X geom.Vec3, F *geom.Mat3) {
	pt.s = realDot(&pt.B, &pt.B)
	N := nForm(&pt.B, &pt.B, X)
	pt.x = N.Scale(1 / pt.s)
	if F == nil {
		return
	}
	s := pt.s
	for k := 0; k < 3; k++ {
		Mk := nForm(&pt.B, &pt.W[k], X).Scale(2).Add(rForm(&pt.B, &pt.B, unitAxes[k]))
		sig := 2 * realDot(&pt.B, &pt.W[k])
		pt.M[k], pt.sig[k] = Mk, sig
		col := Mk.Scale(1 / s).Sub(N.Scale(sig / (s * s)))
		F[k], F[3+k], F[6+k] = col[0], col[1], col[2]
	}
}

// frameBlend computes the rest-relative dual quaternion ĝ = (r, e) of a
// frame with current pose (t, q) and rest pose (t̄, q̄).
func frameBlend(t geom.Vec3, q geom.Quat, restT geom.Vec3, restQ geom.Quat) [8]float64 {
	r := q.Mul(restQ.Conj())
	a := qpure(t).Mul(r)
	b := r.Mul(qpure(restT))
	return [8]float64{r[0], r[1], r[2], r[3], 0.5 * (a[0] - b[0]), 0.5 * (a[1] - b[1]), 0.5 * (a[2] - b[2]), 0.5 * (a[3] - b[3])}
}

// frameTangent returns dĝ = L [v ω] for a frame of translation t and
// rest-relative rotation r: dr = ½ ω̂ r, de = ½ (v̂ r + t̂ dr − dr t̄̂).
func frameTangent(d []float64, t geom.Vec3, g *[8]float64, restT geom.Vec3) [8]float64 {
	r := real4(g)
	dr := qpure(geom.Vec3{d[3], d[4], d[5]}).Mul(r)
	dr = geom.Quat{0.5 * dr[0], 0.5 * dr[1], 0.5 * dr[2], 0.5 * dr[3]}
	a := qpure(geom.Vec3{d[0], d[1], d[2]}).Mul(r)
	b := qpure(t).Mul(dr)
	c := dr.Mul(qpure(restT))
	var out [8]float64
	for i := 0; i < 4; i++ {
		out[i] = dr[i]
		out[4+i] = 0.5 * (a[i] + b[i] - c[i])
	}
	return out
}

// frameForce adds Lᵀ γ to the frame force f = [f_v f_ω]:
// f_v = ½ vec(γ_ε r*), f_ω = ½ vec(γ₀ r*) − ¼ vec(t̂ γ_ε r*) + ¼ vec(γ_ε t̄̂ r*).
func frameForce(f []float64, gam *[8]float64, t geom.Vec3, g *[8]float64, restT geom.Vec3, scale float64) {
	rc := real4(g).Conj()
	g0, ge := real4(gam), dual4(gam)
	fv := ge.Mul(rc)
	a := g0.Mul(rc)
	b := qpure(t).Mul(ge).Mul(rc)
	c := ge.Mul(qpure(restT)).Mul(rc)
	for i := 0; i < 3; i++ {
		f[i] += scale * 0.5 * fv[i]
		f[3+i] += scale * (0.5*a[i] - 0.25*b[i] + 0.25*c[i])
	}
}

// frameForceDerivative adds (dL)ᵀ γ, the change of Lᵀ γ (γ fixed) when the
// frame moves by [v ω] (dt = v, dr = ½ ω̂ r):
// d f_v = ½ vec(γ_ε dr*), d f_ω = ½ vec(γ₀ dr*) − ¼ vec(v̂ γ_ε r*) −
// ¼ vec(t̂ γ_ε dr*) + ¼ vec(γ_ε t̄̂ dr*).
func frameForceDerivative(f []float64, gam *[8]float64, d []float64, t geom.Vec3, g *[8]float64, restT geom.Vec3, scale float64) {
	r := real4(g)
	dr := qpure(geom.Vec3{d[3], d[4], d[5]}).Mul(r)
	dr = geom.Quat{0.5 * dr[0], 0.5 * dr[1], 0.5 * dr[2], 0.5 * dr[3]}
	drc, rc := dr.Conj(), r.Conj()
	g0, ge := real4(gam), dual4(gam)
	fv := ge.Mul(drc)
	a := g0.Mul(drc)
	b := qpure(geom.Vec3{d[0], d[1], d[2]}).Mul(ge).Mul(rc)
	c := qpure(t).Mul(ge).Mul(drc)
	e := ge.Mul(qpure(restT)).Mul(drc)
	for i := 0; i < 3; i++ {
		f[i] += scale * 0.5 * fv[i]
		f[3+i] += scale * (0.5*a[i] - 0.25*b[i] - 0.25*c[i] + 0.25*e[i])
	}
}

func (m *DualQuaternionSkinningMapping) checkFrames(parentLen int) {
	if parentLen/7 != len(m.restT) {
		panic(fmt.Sprintf("%s: the input state has %d frames but the mapping was set up for %d; call Reinit after resizing it", m.Path(), parentLen/7, len(m.restT)))
	}
}

// Apply implements graph.Mapping: the blend B = Σ w ĝ (and W_k = Σ ∂_k w ĝ)
// at every point, then x, or F.
func (m *DualQuaternionSkinningMapping) Apply(childX, parentX []float64) {
	m.checkFrames(len(parentX))
	for k := range m.g {
		c := parentX[7*k : 7*k+7]
		m.curT[k] = geom.Vec3{c[0], c[1], c[2]}
		m.g[k] = frameBlend(m.curT[k], geom.Quat{c[3], c[4], c[5], c[6]}, m.restT[k], m.restQ[k])
	}
	w := &m.weights
	m.loop.run(w.NumPoints(), func(_, lo, hi int) {
		for p := lo; p < hi; p++ {
			pt := &m.blend[p]
			pt.B = [8]float64{}
			if m.gradientsOutput {
				pt.W = [3][8]float64{}
			}
			for e := w.Offsets[p]; e < w.Offsets[p+1]; e++ {
				g := &m.g[w.Frames[e]]
				axpy8(&pt.B, w.Weights[e], g)
				if m.gradientsOutput {
					dw := w.Gradients[e]
					axpy8(&pt.W[0], dw[0], g)
					axpy8(&pt.W[1], dw[1], g)
					axpy8(&pt.W[2], dw[2], g)
				}
			}
			X := geom.At(m.rest, p)
			if !m.gradientsOutput {
				pt.eval(X, nil)
				geom.Put(childX, p, pt.x)
				continue
			}
			var F geom.Mat3
			pt.eval(X, &F)
			copy(childX[9*p:9*p+9], F[:])
		}
	})
}

// blendTangent fills m.dg with every frame's dĝ for the parent direction d.
func (m *DualQuaternionSkinningMapping) blendTangent(d []float64) {
	for k := range m.dg {
		m.dg[k] = frameTangent(d[6*k:6*k+6], m.curT[k], &m.g[k], m.restT[k])
	}
}

// pointTangent returns dB and dW_k of point p for the frame tangents m.dg.
func (m *DualQuaternionSkinningMapping) pointTangent(p int) (dB [8]float64, dW [3][8]float64) {
	w := &m.weights
	for e := w.Offsets[p]; e < w.Offsets[p+1]; e++ {
		g := &m.dg[w.Frames[e]]
		axpy8(&dB, w.Weights[e], g)
		if m.gradientsOutput {
			dw := w.Gradients[e]
			axpy8(&dW[0], dw[0], g)
			axpy8(&dW[1], dw[1], g)
			axpy8(&dW[2], dw[2], g)
		}
	}
	return dB, dW
}

// ApplyJ implements graph.Mapping: dx = (dN − x ds)/s with dN = 2𝒩(B, dB; X),
// ds = 2 B₀·dB₀; for F, the derivative of F_k = M_k/s − N σ_k/s².
func (m *DualQuaternionSkinningMapping) ApplyJ(childV, parentV []float64) {
	m.blendTangent(parentV)
	m.loop.run(m.weights.NumPoints(), func(_, lo, hi int) {
		for p := lo; p < hi; p++ {
			pt := &m.blend[p]
			X := geom.At(m.rest, p)
			dB, dW := m.pointTangent(p)
			s := pt.s
			ds := 2 * realDot(&pt.B, &dB)
			dN := nForm(&pt.B, &dB, X).Scale(2)
			if !m.gradientsOutput {
				geom.Put(childV, p, dN.Sub(pt.x.Scale(ds)).Scale(1/s))
				continue
			}
			N := pt.x.Scale(s)
			out := childV[9*p : 9*p+9]
			for k := 0; k < 3; k++ {
				dM := nForm(&dB, &pt.W[k], X).Add(nForm(&pt.B, &dW[k], X)).Add(rForm(&pt.B, &dB, unitAxes[k])).Scale(2)
				dsig := 2 * (realDot(&dB, &pt.W[k]) + realDot(&pt.B, &dW[k]))
				sig := pt.sig[k]
				col := dM.Scale(1 / s).
					Sub(pt.M[k].Scale(ds / (s * s))).
					Sub(dN.Scale(sig / (s * s))).
					Sub(N.Scale(dsig / (s * s))).
					Add(N.Scale(2 * sig * ds / (s * s * s)))
				out[k], out[3+k], out[6+k] = col[0], col[1], col[2]
			}
		}
	})
}

// pointGrad returns ∇_B ψ for ψ = f·x: (2𝒢(f, B; X) − 2 (f·x) (B₀, 0))/s.
func (pt *dqPoint) pointGrad(f, X geom.Vec3) [8]float64 {
	g := gForm(f, &pt.B, X, false)
	phi := f.Dot(pt.x)
	var out [8]float64
	axpy8(&out, 2/pt.s, &g)
	axpyReal(&out, -2*phi/pt.s, real4(&pt.B))
	return out
}

// pointHess returns the derivative of pointGrad in the direction dB:
// [2𝒢(f, dB; X) − 2 dφ (B₀, 0) − 2 φ (dB₀, 0)]/s − ∇ψ ds/s, dφ = ∇ψ·dB.
func (pt *dqPoint) pointHess(f, X geom.Vec3, gB, dB *[8]float64) [8]float64 {
	g := gForm(f, dB, X, false)
	phi := f.Dot(pt.x)
	dphi := dot8(gB, dB)
	ds := 2 * realDot(&pt.B, dB)
	var out [8]float64
	axpy8(&out, 2/pt.s, &g)
	axpyReal(&out, -2*dphi/pt.s, real4(&pt.B))
	axpyReal(&out, -2*phi/pt.s, real4(dB))
	axpy8(&out, -ds/pt.s, gB)
	return out
}

// fGrad holds ∇ψ for ψ = ⟨P, F⟩ and the intermediate terms its derivative
// needs: ψ = α/s − γ/s² with α = Σ_k p_k·M_k, β_k = p_k·N, γ = Σ_k β_k σ_k
// (p_k the columns of P).
type fGrad struct {
	gB             [8]float64    // ∇_B ψ
	gW             [3][8]float64 // ∇_{W_k} ψ
	gam            [3][8]float64 // Γ_k = 2𝒢(p_k, B; X) = ∇_B β_k = ∇_{W_k} α
	gAlpha, gGamma [8]float64    // ∇_B α, ∇_B γ
	alpha, gamma   float64
	beta           [3]float64
}

func columns(P []float64) [3]geom.Vec3 {
	return [3]geom.Vec3{{P[0], P[3], P[6]}, {P[1], P[4], P[7]}, {P[2], P[5], P[8]}}
}

// fGradient computes fGrad at the point for the child force P:
//
//	∇_B α = Σ_k 2𝒢(p_k, W_k; X) + 2𝒢_ℛ(p_k, B; e_k),  ∇_B γ = Σ_k σ_k Γ_k + 2β_k (W₀_k, 0),
//	∇_B ψ = ∇_B α/s − 2α (B₀,0)/s² − ∇_B γ/s² + 4γ (B₀,0)/s³,
//	∇_{W_k} ψ = Γ_k/s − 2β_k (B₀,0)/s².
func (pt *dqPoint) fGradient(P []float64, X geom.Vec3, out *fGrad) {
	pc := columns(P)
	s := pt.s
	N := pt.x.Scale(s)
	*out = fGrad{}
	B0 := real4(&pt.B)
	for k := 0; k < 3; k++ {
		out.gam[k] = gForm(pc[k], &pt.B, X, false)
		for i := range out.gam[k] {
			out.gam[k][i] *= 2
		}
		out.alpha += pc[k].Dot(pt.M[k])
		out.beta[k] = pc[k].Dot(N)
		out.gamma += out.beta[k] * pt.sig[k]
		g1 := gForm(pc[k], &pt.W[k], X, false)
		g2 := gForm(pc[k], &pt.B, unitAxes[k], true)
		axpy8(&out.gAlpha, 2, &g1)
		axpy8(&out.gAlpha, 2, &g2)
		axpy8(&out.gGamma, pt.sig[k], &out.gam[k])
		axpyReal(&out.gGamma, 2*out.beta[k], real4(&pt.W[k]))
	}
	axpy8(&out.gB, 1/s, &out.gAlpha)
	axpyReal(&out.gB, -2*out.alpha/(s*s)+4*out.gamma/(s*s*s), B0)
	axpy8(&out.gB, -1/(s*s), &out.gGamma)
	for k := 0; k < 3; k++ {
		axpy8(&out.gW[k], 1/s, &out.gam[k])
		axpyReal(&out.gW[k], -2*out.beta[k]/(s*s), B0)
	}
}

// fHessian returns the derivative of ∇ψ (fGradient) in the direction
// (dB, dW_k), by the product rule on α, β_k, γ, s (see fGrad).
func (pt *dqPoint) fHessian(P []float64, X geom.Vec3, gr *fGrad, dB *[8]float64, dW *[3][8]float64) (dgB [8]float64, dgW [3][8]float64) {
	pc := columns(P)
	s := pt.s
	s2, s3 := s*s, s*s*s
	B0, dB0 := real4(&pt.B), real4(dB)
	ds := 2 * realDot(&pt.B, dB)
	dalpha := dot8(&gr.gAlpha, dB)
	var dgAlpha, dgGamma [8]float64
	dgamma := 0.0
	for k := 0; k < 3; k++ {
		dalpha += dot8(&gr.gam[k], &dW[k])
		dGam := gForm(pc[k], dB, X, false)
		for i := range dGam {
			dGam[i] *= 2
		}
		dbeta := dot8(&gr.gam[k], dB)
		dsig := 2 * (realDot(&pt.W[k], dB) + realDot(&pt.B, &dW[k]))
		dgamma += dbeta*pt.sig[k] + gr.beta[k]*dsig
		g1 := gForm(pc[k], &dW[k], X, false)
		g2 := gForm(pc[k], dB, unitAxes[k], true)
		axpy8(&dgAlpha, 2, &g1)
		axpy8(&dgAlpha, 2, &g2)
		axpy8(&dgGamma, dsig, &gr.gam[k])
		axpy8(&dgGamma, pt.sig[k], &dGam)
		axpyReal(&dgGamma, 2*dbeta, real4(&pt.W[k]))
		axpyReal(&dgGamma, 2*gr.beta[k], real4(&dW[k]))
		// d∇_{W_k} ψ = dΓ_k/s − Γ_k ds/s² − 2(dβ_k (B₀,0) + β_k (dB₀,0))/s² + 4β_k (B₀,0) ds/s³.
		axpy8(&dgW[k], 1/s, &dGam)
		axpy8(&dgW[k], -ds/s2, &gr.gam[k])
		axpyReal(&dgW[k], -2*dbeta/s2+4*gr.beta[k]*ds/s3, B0)
		axpyReal(&dgW[k], -2*gr.beta[k]/s2, dB0)
	}
	// d∇_B ψ = d∇α/s − ∇α ds/s² − (dα ∇s + α d∇s)/s² + 2α ∇s ds/s³
	//        − d∇γ/s² + 2∇γ ds/s³ + 2(dγ ∇s + γ d∇s)/s³ − 6γ ∇s ds/s⁴,
	// ∇s = 2(B₀,0), d∇s = 2(dB₀,0).
	alpha, gamma := gr.alpha, gr.gamma
	axpy8(&dgB, 1/s, &dgAlpha)
	axpy8(&dgB, -ds/s2, &gr.gAlpha)
	axpy8(&dgB, -1/s2, &dgGamma)
	axpy8(&dgB, 2*ds/s3, &gr.gGamma)
	axpyReal(&dgB, -2*dalpha/s2+4*alpha*ds/s3+4*dgamma/s3-12*gamma*ds/(s2*s2), B0)
	axpyReal(&dgB, -2*alpha/s2+4*gamma/s3, dB0)
	return dgB, dgW
}

// ApplyJT implements graph.Mapping: at every point the gradient of ψ = f·x
// (or ⟨P, F⟩) with respect to B and W_k is spread over the point's frames
// as the 8-vector γᵢ = w ∇_B ψ + Σ_k ∂_k w ∇_{W_k} ψ, summed per frame,
// and each frame receives Lᵢᵀ γᵢ.
func (m *DualQuaternionSkinningMapping) ApplyJT(parentF, childF []float64) {
	nf := len(m.g)
	acc := m.acc[:8*nf]
	clear(acc)
	w := &m.weights
	m.loop.accumulate(w.NumPoints(), 8*nf, acc, func(a []float64, lo, hi int) {
		var gr fGrad
		for p := lo; p < hi; p++ {
			pt := &m.blend[p]
			X := geom.At(m.rest, p)
			if !m.gradientsOutput {
				gB := pt.pointGrad(geom.At(childF, p), X)
				for e := w.Offsets[p]; e < w.Offsets[p+1]; e++ {
					axpy8((*[8]float64)(a[8*w.Frames[e]:]), w.Weights[e], &gB)
				}
				continue
			}
			pt.fGradient(childF[9*p:9*p+9], X, &gr)
			for e := w.Offsets[p]; e < w.Offsets[p+1]; e++ {
				g := (*[8]float64)(a[8*w.Frames[e]:])
				dw := w.Gradients[e]
				axpy8(g, w.Weights[e], &gr.gB)
				axpy8(g, dw[0], &gr.gW[0])
				axpy8(g, dw[1], &gr.gW[1])
				axpy8(g, dw[2], &gr.gW[2])
			}
		}
	})
	for k := 0; k < nf; k++ {
		frameForce(parentF[6*k:6*k+6], (*[8]float64)(acc[8*k:]), m.curT[k], &m.g[k], m.restT[k], 1)
	}
}

// ApplyDJT implements graph.Mapping: the derivative of Jᵀf for a parent
// direction dx, f fixed: per frame Lᵢᵀ dγᵢ + (dLᵢ)ᵀ γᵢ, with dγᵢ the
// derivative of γᵢ (the second derivatives of x or F in B and W_k, in the
// direction dB = Σ w dĝ, dW_k = Σ ∂_k w dĝ).
func (m *DualQuaternionSkinningMapping) ApplyDJT(parentDf, parentDx, childF []float64, kFactor float64) {
	if kFactor == 0 {
		return
	}
	nf := len(m.g)
	m.blendTangent(parentDx)
	acc := m.acc[:16*nf]
	clear(acc)
	w := &m.weights
	m.loop.accumulate(w.NumPoints(), 16*nf, acc, func(a []float64, lo, hi int) {
		var gr fGrad
		for p := lo; p < hi; p++ {
			pt := &m.blend[p]
			X := geom.At(m.rest, p)
			dB, dW := m.pointTangent(p)
			if !m.gradientsOutput {
				f := geom.At(childF, p)
				gB := pt.pointGrad(f, X)
				dgB := pt.pointHess(f, X, &gB, &dB)
				for e := w.Offsets[p]; e < w.Offsets[p+1]; e++ {
					k := w.Frames[e]
					axpy8((*[8]float64)(a[16*k:]), w.Weights[e], &gB)
					axpy8((*[8]float64)(a[16*k+8:]), w.Weights[e], &dgB)
				}
				continue
			}
			P := childF[9*p : 9*p+9]
			pt.fGradient(P, X, &gr)
			dgB, dgW := pt.fHessian(P, X, &gr, &dB, &dW)
			for e := w.Offsets[p]; e < w.Offsets[p+1]; e++ {
				k := w.Frames[e]
				g, dg := (*[8]float64)(a[16*k:]), (*[8]float64)(a[16*k+8:])
				dw := w.Gradients[e]
				axpy8(g, w.Weights[e], &gr.gB)
				axpy8(dg, w.Weights[e], &dgB)
				for c := 0; c < 3; c++ {
					axpy8(g, dw[c], &gr.gW[c])
					axpy8(dg, dw[c], &dgW[c])
				}
			}
		}
	})
	for k := 0; k < nf; k++ {
		out := parentDf[6*k : 6*k+6]
		frameForce(out, (*[8]float64)(acc[16*k+8:]), m.curT[k], &m.g[k], m.restT[k], kFactor)
		frameForceDerivative(out, (*[8]float64)(acc[16*k:]), parentDx[6*k:6*k+6], m.curT[k], &m.g[k], m.restT[k], kFactor)
	}
}

// Deform returns the deformed position x and the deformation gradient F
// at an arbitrary rest point X with the given influences (frame indices,
// weights, weight gradients; grads may be nil, F is then R of the blend),
// at the parent coordinates of the last Apply. It is what inverting the
// skinning map by Newton's method needs (Gilles Sec. 4.4).
func (m *DualQuaternionSkinningMapping) Deform(X geom.Vec3, frames []int, weights []float64, grads []geom.Vec3) (x geom.Vec3, F geom.Mat3) {
	var pt dqPoint
	for i, k := range frames {
		axpy8(&pt.B, weights[i], &m.g[k])
		if grads != nil {
			for c := 0; c < 3; c++ {
				axpy8(&pt.W[c], grads[i][c], &m.g[k])
			}
		}
	}
	pt.eval(X, &F)
	return pt.x, F
}
