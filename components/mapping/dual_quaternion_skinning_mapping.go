package mapping

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

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
// The blend is undefined where B₀ = Σ wᵢ rᵢ vanishes (two equally weighted
// frames turned by 2π relative to each other along a continuous path);
// the run then stops at the framework's NaN check, naming this mapping's
// state.
//
// Weights need not be a partition of unity (the blend is normalised), only
// Σ w > 0. Weights, rest points and the re-initialisation contract are
// described on SkinningInputs.
type DualQuaternionSkinningMapping struct {
	graph.ObjectBase
	SkinningInputs

	// Per frame: rest pose and, at the last Apply, the translation and the
	// rest-relative dual quaternion ĝ = (r, e).
	restT []vec
	restQ []quat
	curT  []vec
	g     []dquat
	// Per frame scratch: dĝ = Lᵢ [v ω] of the current direction (ApplyJ,
	// ApplyDJT).
	dg []dquat
	// Per point at the last Apply.
	blend []dqPoint

	loop chunkedLoop
	acc  []float64 // per frame accumulators of Jᵀ (8) or of Jᵀ and its derivative (16)

	// Geometric stiffness cache (see ApplyDJT): the dense matrix Kg of
	// dJᵀf/dx (row-major, 6 nf × 6 nf) for the child force kgF at the
	// parent coordinates of the last Apply.
	kg           []float64
	kgF          []float64
	kgValid      bool
	kgCalls      int     // ApplyDJT calls with the force kgF since the last Apply
	kgBuildAfter int     // calls after which building Kg pays
	entryPoint   []int   // point of each influence entry
	frameEntries [][]int // entries of each frame
}

// dqPoint is the per-point state of the blend at the last Apply.
type dqPoint struct {
	B   dquat    // Σ w ĝ
	W   [3]dquat // W_k = Σ ∂_k w ĝ (F children)
	s   float64  // ‖B₀‖²
	x   vec      // x = N/s, N = 𝒩(B, B; X)
	M   [3]vec   // M_k = d/dh N(B + h W_k; X + h e_k) (F children)
	sig [3]float64
	// sig[k] = σ_k = d/dh s(B + h W_k) = 2 B₀·W₀_k (F children)
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
	m.restT = make([]vec, nf)
	m.restQ = make([]quat, nf)
	for k := 0; k < nf; k++ {
		c := rest[7*k : 7*k+7]
		m.restT[k] = vec{c[0], c[1], c[2]}
		m.restQ[k] = quat{c[3], c[4], c[5], c[6]}
		if !reinit {
			p := pos[7*k : 7*k+7]
			if p[3]*c[3]+p[4]*c[4]+p[5]*c[5]+p[6]*c[6] < 0 {
				return fmt.Errorf("frame %d: the position quaternion is in the opposite hemisphere of the rest quaternion (q·q̄ < 0); dual quaternion skinning blends the quaternions as given, so negate it (the same rotation)", k)
			}
		}
	}
	m.curT = make([]vec, nf)
	m.g = make([]dquat, nf)
	m.dg = make([]dquat, nf)
	m.acc = make([]float64, 16*nf)
	m.blend = make([]dqPoint, m.weights.NumPoints())
	w := &m.weights
	m.entryPoint = make([]int, len(w.Frames))
	m.frameEntries = make([][]int, nf)
	for p := 0; p < w.NumPoints(); p++ {
		for e := w.Offsets[p]; e < w.Offsets[p+1]; e++ {
			m.entryPoint[e] = p
			m.frameEntries[w.Frames[e]] = append(m.frameEntries[w.Frames[e]], e)
		}
	}
	// Building Kg costs about one gradient and six second derivatives per
	// influence entry, a direct ApplyDJT about 2.3 such evaluations per
	// point: build once the calls made would have paid for it (the
	// ski-rental rule, within 2× of the best choice made in hindsight).
	m.kgBuildAfter = max(2, (3*len(w.Frames)+w.NumPoints()-1)/w.NumPoints())
	m.kg, m.kgF, m.kgValid, m.kgCalls = nil, nil, false, 0
	mapAll(m)
	return nil
}

// The maths, in the notation of the type's documentation. For dual
// quaternions A, C and a vector X the symmetric bilinear form
//
//	𝒩(A, C; X) = ℛ(A₀, C₀; X) + 𝒯(A, C),  ℛ = vec(A₀ X̂ C₀*),  𝒯 = vec(A_ε C₀* + C_ε A₀*)
//
// (X̂ the pure quaternion of X) gives the blend's action on X:
// N = 𝒩(B, B; X) = ‖B₀‖² x. Its gradient in A for a fixed covector u,
// 𝒢(u, C; X) = ∇_A [u·𝒩(A, C; X)], is
//
//	𝒢(u, C; X) = (û C₀ X̂* − û C_ε,  û C₀),
//
// from ⟨p, a c⟩ = ⟨p c*, a⟩ and ⟨p, c a⟩ = ⟨c* p, a⟩. Every derivative
// below is a combination of 𝒩, ℛ and 𝒢, linear in each argument.
//
// The code works on small structs (quat, vec, dquat) rather than geom's
// arrays: Go keeps structs of up to four words in registers but arrays in
// memory, which made the array version 3–5× slower.

// quat is a quaternion x i + y j + z k + w.
type quat struct{ x, y, z, w float64 }

// vec is a 3-vector.
type vec struct{ x, y, z float64 }

// dquat is a dual quaternion r + ε d.
type dquat struct{ r, d quat }

func qmul(a, b quat) quat {
	return quat{
		a.w*b.x + a.x*b.w + a.y*b.z - a.z*b.y,
		a.w*b.y - a.x*b.z + a.y*b.w + a.z*b.x,
		a.w*b.z + a.x*b.y - a.y*b.x + a.z*b.w,
		a.w*b.w - a.x*b.x - a.y*b.y - a.z*b.z,
	}
}

func (a quat) conj() quat           { return quat{-a.x, -a.y, -a.z, a.w} }
func (a quat) vec() vec             { return vec{a.x, a.y, a.z} }
func (a quat) add(b quat) quat      { return quat{a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w} }
func (a quat) sub(b quat) quat      { return quat{a.x - b.x, a.y - b.y, a.z - b.z, a.w - b.w} }
func (a quat) scale(s float64) quat { return quat{s * a.x, s * a.y, s * a.z, s * a.w} }
func (a quat) dot(b quat) float64   { return a.x*b.x + a.y*b.y + a.z*b.z + a.w*b.w }
func pure(v vec) quat               { return quat{v.x, v.y, v.z, 0} }

func (a vec) add(b vec) vec        { return vec{a.x + b.x, a.y + b.y, a.z + b.z} }
func (a vec) sub(b vec) vec        { return vec{a.x - b.x, a.y - b.y, a.z - b.z} }
func (a vec) scale(s float64) vec  { return vec{s * a.x, s * a.y, s * a.z} }
func (a vec) dot(b vec) float64    { return a.x*b.x + a.y*b.y + a.z*b.z }
func (a vec) cross(b vec) vec      { return vec{a.y*b.z - a.z*b.y, a.z*b.x - a.x*b.z, a.x*b.y - a.y*b.x} }
func vecAt(s []float64, i int) vec { return vec{s[3*i], s[3*i+1], s[3*i+2]} }
func toVec(v geom.Vec3) vec        { return vec{v[0], v[1], v[2]} }
func (a vec) geom() geom.Vec3      { return geom.Vec3{a.x, a.y, a.z} }

// axpy sets y += a x.
func (y *dquat) axpy(a float64, x *dquat) {
	y.r.x += a * x.r.x
	y.r.y += a * x.r.y
	y.r.z += a * x.r.z
	y.r.w += a * x.r.w
	y.d.x += a * x.d.x
	y.d.y += a * x.d.y
	y.d.z += a * x.d.z
	y.d.w += a * x.d.w
}

// axpyReal sets y.r += a q.
func (y *dquat) axpyReal(a float64, q quat) { y.r = y.r.add(q.scale(a)) }

func (a *dquat) dot(b *dquat) float64 { return a.r.dot(b.r) + a.d.dot(b.d) }

// addTo adds s·x to the 8 numbers at a.
func (x *dquat) addTo(a []float64, s float64) {
	a = a[:8:8]
	a[0] += s * x.r.x
	a[1] += s * x.r.y
	a[2] += s * x.r.z
	a[3] += s * x.r.w
	a[4] += s * x.d.x
	a[5] += s * x.d.y
	a[6] += s * x.d.z
	a[7] += s * x.d.w
}

func loadDQ(a []float64) dquat {
	a = a[:8:8]
	return dquat{quat{a[0], a[1], a[2], a[3]}, quat{a[4], a[5], a[6], a[7]}}
}

// rForm returns ℛ(a, c; X) = vec(a X̂ c*), symmetric in a and c:
// (a_w c_w − a_v·c_v) X + a_v (c_v·X) + c_v (a_v·X) + (a_w c_v + c_w a_v) × X.
func rForm(a, c quat, X vec) vec {
	av, cv := a.vec(), c.vec()
	k := a.w*c.w - av.dot(cv)
	return X.scale(k).add(av.scale(cv.dot(X))).add(cv.scale(av.dot(X))).add(cv.scale(a.w).add(av.scale(c.w)).cross(X))
}

// tForm returns 𝒯(A, C) = vec(A_ε C₀* + C_ε A₀*), with
// vec(p q*) = q_w p_v − p_w q_v − p_v × q_v.
func tForm(A, C *dquat) vec {
	pa, qa := A.d.vec(), C.r.vec()
	pc, qc := C.d.vec(), A.r.vec()
	t1 := pa.scale(C.r.w).sub(qa.scale(A.d.w)).sub(pa.cross(qa))
	t2 := pc.scale(A.r.w).sub(qc.scale(C.d.w)).sub(pc.cross(qc))
	return t1.add(t2)
}

// nForm returns 𝒩(A, C; X).
func nForm(A, C *dquat, X vec) vec { return rForm(A.r, C.r, X).add(tForm(A, C)) }

// gForm returns 𝒢(u, C; X) = ∇_A [u·𝒩(A, C; X)] = (û C₀ X̂* − û C_ε, û C₀).
func gForm(u vec, C *dquat, X vec) dquat {
	uc := qmul(pure(u), C.r)
	return dquat{qmul(uc, pure(X).conj()).sub(qmul(pure(u), C.d)), uc}
}

// gFormR returns ∇_A [u·ℛ(A₀, C₀; X)] = (û C₀ X̂*, 0).
func gFormR(u vec, C *dquat, X vec) quat {
	return qmul(qmul(pure(u), C.r), pure(X).conj())
}

var axes = [3]vec{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}

// eval computes x (and, with F non-nil, F and the caches M, σ) from B and
// W at rest position X: F_k = M_k/s − N σ_k/s², M_k = 2𝒩(B, W_k; X) + ℛ(B₀, B₀; e_k).
func (pt *dqPoint) eval(X vec, F []float64) {
	pt.s = pt.B.r.dot(pt.B.r)
	N := nForm(&pt.B, &pt.B, X)
	pt.x = N.scale(1 / pt.s)
	if F == nil {
		return
	}
	F = F[:9:9]
	s := pt.s
	for k := 0; k < 3; k++ {
		Mk := nForm(&pt.B, &pt.W[k], X).scale(2).add(rForm(pt.B.r, pt.B.r, axes[k]))
		sig := 2 * pt.B.r.dot(pt.W[k].r)
		pt.M[k], pt.sig[k] = Mk, sig
		col := Mk.scale(1 / s).sub(N.scale(sig / (s * s)))
		F[k], F[3+k], F[6+k] = col.x, col.y, col.z
	}
}

// frameBlend returns the rest-relative dual quaternion ĝ = (r, e) of a
// frame with current pose (t, q) and rest pose (t̄, q̄): r = q q̄*,
// e = ½ (t̂ r − r t̄̂).
func frameBlend(t vec, q quat, restT vec, restQ quat) dquat {
	r := qmul(q, restQ.conj())
	return dquat{r, qmul(pure(t), r).sub(qmul(r, pure(restT))).scale(0.5)}
}

// frameTangent returns dĝ = L [v ω] for a frame of translation t and
// rest-relative rotation r: dr = ½ ω̂ r, de = ½ (v̂ r + t̂ dr − dr t̄̂).
func frameTangent(d []float64, t vec, g *dquat, restT vec) dquat {
	d = d[:6:6]
	r := g.r
	dr := qmul(quat{d[3], d[4], d[5], 0}, r).scale(0.5)
	de := qmul(quat{d[0], d[1], d[2], 0}, r).add(qmul(pure(t), dr)).sub(qmul(dr, pure(restT))).scale(0.5)
	return dquat{dr, de}
}

// frameForce adds scale·Lᵀγ to the frame force f = [f_v f_ω]:
// f_v = ½ vec(γ_ε r*), f_ω = ½ vec(γ₀ r*) − ¼ vec(t̂ γ_ε r*) + ¼ vec(γ_ε t̄̂ r*).
func frameForce(f []float64, gam *dquat, t vec, g *dquat, restT vec, scale float64) {
	f = f[:6:6]
	rc := g.r.conj()
	fv := qmul(gam.d, rc).vec().scale(0.5 * scale)
	a := qmul(gam.r, rc).vec().scale(0.5)
	b := qmul(qmul(pure(t), gam.d), rc).vec().scale(0.25)
	c := qmul(qmul(gam.d, pure(restT)), rc).vec().scale(0.25)
	fw := a.sub(b).add(c).scale(scale)
	f[0] += fv.x
	f[1] += fv.y
	f[2] += fv.z
	f[3] += fw.x
	f[4] += fw.y
	f[5] += fw.z
}

// frameForceDerivative adds scale·(dL)ᵀγ, the change of Lᵀγ (γ fixed) when
// the frame moves by [v ω] (dt = v, dr = ½ ω̂ r):
// d f_v = ½ vec(γ_ε dr*), d f_ω = ½ vec(γ₀ dr*) − ¼ vec(v̂ γ_ε r*) −
// ¼ vec(t̂ γ_ε dr*) + ¼ vec(γ_ε t̄̂ dr*).
func frameForceDerivative(f []float64, gam *dquat, d []float64, t vec, g *dquat, restT vec, scale float64) {
	f, d = f[:6:6], d[:6:6]
	r := g.r
	dr := qmul(quat{d[3], d[4], d[5], 0}, r).scale(0.5)
	drc, rc := dr.conj(), r.conj()
	fv := qmul(gam.d, drc).vec().scale(0.5 * scale)
	a := qmul(gam.r, drc).vec().scale(0.5)
	b := qmul(qmul(quat{d[0], d[1], d[2], 0}, gam.d), rc).vec().scale(0.25)
	c := qmul(qmul(pure(t), gam.d), drc).vec().scale(0.25)
	e := qmul(qmul(gam.d, pure(restT)), drc).vec().scale(0.25)
	fw := a.sub(b).sub(c).add(e).scale(scale)
	f[0] += fv.x
	f[1] += fv.y
	f[2] += fv.z
	f[3] += fw.x
	f[4] += fw.y
	f[5] += fw.z
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
	m.kgValid, m.kgCalls = false, 0
	for k := range m.g {
		c := parentX[7*k : 7*k+7]
		m.curT[k] = vec{c[0], c[1], c[2]}
		m.g[k] = frameBlend(m.curT[k], quat{c[3], c[4], c[5], c[6]}, m.restT[k], m.restQ[k])
	}
	w := &m.weights
	m.loop.run(w.NumPoints(), func(_, lo, hi int) {
		for p := lo; p < hi; p++ {
			pt := &m.blend[p]
			pt.B = dquat{}
			if m.gradientsOutput {
				pt.W = [3]dquat{}
			}
			for e := w.Offsets[p]; e < w.Offsets[p+1]; e++ {
				g := &m.g[w.Frames[e]]
				pt.B.axpy(w.Weights[e], g)
				if m.gradientsOutput {
					dw := &w.Gradients[e]
					pt.W[0].axpy(dw[0], g)
					pt.W[1].axpy(dw[1], g)
					pt.W[2].axpy(dw[2], g)
				}
			}
			X := vecAt(m.rest, p)
			if !m.gradientsOutput {
				pt.eval(X, nil)
				childX[3*p], childX[3*p+1], childX[3*p+2] = pt.x.x, pt.x.y, pt.x.z
				continue
			}
			pt.eval(X, childX[9*p:9*p+9])
		}
	})
}

// blendTangent fills m.dg with every frame's dĝ for the parent direction d.
func (m *DualQuaternionSkinningMapping) blendTangent(d []float64) {
	for k := range m.dg {
		m.dg[k] = frameTangent(d[6*k:6*k+6], m.curT[k], &m.g[k], m.restT[k])
	}
}

// pointTangent sets dB and dW_k of point p for the frame tangents m.dg.
func (m *DualQuaternionSkinningMapping) pointTangent(p int, dB *dquat, dW *[3]dquat) {
	w := &m.weights
	*dB = dquat{}
	if m.gradientsOutput {
		*dW = [3]dquat{}
	}
	for e := w.Offsets[p]; e < w.Offsets[p+1]; e++ {
		g := &m.dg[w.Frames[e]]
		dB.axpy(w.Weights[e], g)
		if m.gradientsOutput {
			dw := &w.Gradients[e]
			dW[0].axpy(dw[0], g)
			dW[1].axpy(dw[1], g)
			dW[2].axpy(dw[2], g)
		}
	}
}

// ApplyJ implements graph.Mapping: dx = (dN − x ds)/s with dN = 2𝒩(B, dB; X),
// ds = 2 B₀·dB₀; for F, the derivative of F_k = M_k/s − N σ_k/s²:
// dM_k = 2𝒩(dB, W_k; X) + 2𝒩(B, dW_k; X) + 2ℛ(B₀, dB₀; e_k),
// dσ_k = 2 (dB₀·W₀_k + B₀·dW₀_k).
func (m *DualQuaternionSkinningMapping) ApplyJ(childV, parentV []float64) {
	m.blendTangent(parentV)
	m.loop.run(m.weights.NumPoints(), func(_, lo, hi int) {
		var dB dquat
		var dW [3]dquat
		for p := lo; p < hi; p++ {
			pt := &m.blend[p]
			X := vecAt(m.rest, p)
			m.pointTangent(p, &dB, &dW)
			s := pt.s
			ds := 2 * pt.B.r.dot(dB.r)
			dN := nForm(&pt.B, &dB, X).scale(2)
			if !m.gradientsOutput {
				dx := dN.sub(pt.x.scale(ds)).scale(1 / s)
				childV[3*p], childV[3*p+1], childV[3*p+2] = dx.x, dx.y, dx.z
				continue
			}
			N := pt.x.scale(s)
			out := childV[9*p : 9*p+9 : 9*p+9]
			is, is2 := 1/s, 1/(s*s)
			for k := 0; k < 3; k++ {
				dM := nForm(&dB, &pt.W[k], X).add(nForm(&pt.B, &dW[k], X)).add(rForm(pt.B.r, dB.r, axes[k])).scale(2)
				dsig := 2 * (dB.r.dot(pt.W[k].r) + pt.B.r.dot(dW[k].r))
				sig := pt.sig[k]
				col := dM.scale(is).
					sub(pt.M[k].scale(ds * is2)).
					sub(dN.scale(sig * is2)).
					add(N.scale((2*sig*ds*is - dsig) * is2))
				out[k], out[3+k], out[6+k] = col.x, col.y, col.z
			}
		}
	})
}

// pointGrad returns ∇_B ψ for ψ = f·x: (2𝒢(f, B; X) − 2 (f·x) (B₀, 0))/s.
func (pt *dqPoint) pointGrad(f, X vec) dquat {
	g := gForm(f, &pt.B, X)
	phi := f.dot(pt.x)
	var out dquat
	out.axpy(2/pt.s, &g)
	out.axpyReal(-2*phi/pt.s, pt.B.r)
	return out
}

// pointHess returns the derivative of pointGrad in the direction dB:
// [2𝒢(f, dB; X) − 2 dφ (B₀, 0) − 2 φ (dB₀, 0)]/s − ∇ψ ds/s, dφ = ∇ψ·dB.
func (pt *dqPoint) pointHess(f, X vec, gB, dB *dquat) dquat {
	g := gForm(f, dB, X)
	phi := f.dot(pt.x)
	dphi := gB.dot(dB)
	ds := 2 * pt.B.r.dot(dB.r)
	var out dquat
	out.axpy(2/pt.s, &g)
	out.axpyReal(-2*dphi/pt.s, pt.B.r)
	out.axpyReal(-2*phi/pt.s, dB.r)
	out.axpy(-ds/pt.s, gB)
	return out
}

// fGrad holds ∇ψ for ψ = ⟨P, F⟩ and the intermediate terms its derivative
// needs: ψ = α/s − γ/s² with α = Σ_k p_k·M_k, β_k = p_k·N, γ = Σ_k β_k σ_k
// (p_k the columns of P).
type fGrad struct {
	gB             dquat    // ∇_B ψ
	gW             [3]dquat // ∇_{W_k} ψ
	gam            [3]dquat // Γ_k = 2𝒢(p_k, B; X) = ∇_B β_k = ∇_{W_k} α
	gAlpha, gGamma dquat    // ∇_B α, ∇_B γ
	alpha, gamma   float64
	beta           [3]float64
	pc             [3]vec // columns of P
}

// fGradient computes fGrad at the point for the child force P:
//
//	∇_B α = Σ_k 2𝒢(p_k, W_k; X) + 2 ∇_A ℛ(p_k; B₀; e_k),  ∇_B γ = Σ_k σ_k Γ_k + 2β_k (W₀_k, 0),
//	∇_B ψ = ∇_B α/s − 2α (B₀,0)/s² − ∇_B γ/s² + 4γ (B₀,0)/s³,
//	∇_{W_k} ψ = Γ_k/s − 2β_k (B₀,0)/s².
func (pt *dqPoint) fGradient(P []float64, X vec, out *fGrad) {
	P = P[:9:9]
	out.pc = [3]vec{{P[0], P[3], P[6]}, {P[1], P[4], P[7]}, {P[2], P[5], P[8]}}
	s := pt.s
	N := pt.x.scale(s)
	out.gAlpha, out.gGamma = dquat{}, dquat{}
	out.alpha, out.gamma = 0, 0
	for k := 0; k < 3; k++ {
		pk := out.pc[k]
		g := gForm(pk, &pt.B, X)
		out.gam[k] = dquat{g.r.scale(2), g.d.scale(2)}
		out.alpha += pk.dot(pt.M[k])
		out.beta[k] = pk.dot(N)
		out.gamma += out.beta[k] * pt.sig[k]
		g1 := gForm(pk, &pt.W[k], X)
		out.gAlpha.axpy(2, &g1)
		out.gAlpha.axpyReal(2, gFormR(pk, &pt.B, axes[k]))
		out.gGamma.axpy(pt.sig[k], &out.gam[k])
		out.gGamma.axpyReal(2*out.beta[k], pt.W[k].r)
	}
	s2, s3 := s*s, s*s*s
	out.gB = dquat{}
	out.gB.axpy(1/s, &out.gAlpha)
	out.gB.axpyReal(-2*out.alpha/s2+4*out.gamma/s3, pt.B.r)
	out.gB.axpy(-1/s2, &out.gGamma)
	for k := 0; k < 3; k++ {
		out.gW[k] = dquat{}
		out.gW[k].axpy(1/s, &out.gam[k])
		out.gW[k].axpyReal(-2*out.beta[k]/s2, pt.B.r)
	}
}

// fHessian sets dgB, dgW to the derivative of ∇ψ (fGradient) in the
// direction (dB, dW_k), by the product rule on α, β_k, γ and s (see fGrad).
func (pt *dqPoint) fHessian(X vec, gr *fGrad, dB *dquat, dW *[3]dquat, dgB *dquat, dgW *[3]dquat) {
	s := pt.s
	s2, s3 := s*s, s*s*s
	ds := 2 * pt.B.r.dot(dB.r)
	dalpha := gr.gAlpha.dot(dB)
	var dgAlpha, dgGamma dquat
	dgamma := 0.0
	for k := 0; k < 3; k++ {
		pk := gr.pc[k]
		dalpha += gr.gam[k].dot(&dW[k])
		g := gForm(pk, dB, X)
		dGam := dquat{g.r.scale(2), g.d.scale(2)}
		dbeta := gr.gam[k].dot(dB)
		dsig := 2 * (pt.W[k].r.dot(dB.r) + pt.B.r.dot(dW[k].r))
		dgamma += dbeta*pt.sig[k] + gr.beta[k]*dsig
		g1 := gForm(pk, &dW[k], X)
		dgAlpha.axpy(2, &g1)
		dgAlpha.axpyReal(2, gFormR(pk, dB, axes[k]))
		dgGamma.axpy(dsig, &gr.gam[k])
		dgGamma.axpy(pt.sig[k], &dGam)
		dgGamma.axpyReal(2*dbeta, pt.W[k].r)
		dgGamma.axpyReal(2*gr.beta[k], dW[k].r)
		// d∇_{W_k} ψ = dΓ_k/s − Γ_k ds/s² − 2(dβ_k (B₀,0) + β_k (dB₀,0))/s² + 4β_k (B₀,0) ds/s³.
		dgW[k] = dquat{}
		dgW[k].axpy(1/s, &dGam)
		dgW[k].axpy(-ds/s2, &gr.gam[k])
		dgW[k].axpyReal(-2*dbeta/s2+4*gr.beta[k]*ds/s3, pt.B.r)
		dgW[k].axpyReal(-2*gr.beta[k]/s2, dB.r)
	}
	// d∇_B ψ = d∇α/s − ∇α ds/s² − (dα ∇s + α d∇s)/s² + 2α ∇s ds/s³
	//        − d∇γ/s² + 2∇γ ds/s³ + 2(dγ ∇s + γ d∇s)/s³ − 6γ ∇s ds/s⁴,
	// with ∇s = 2(B₀,0), d∇s = 2(dB₀,0).
	alpha, gamma := gr.alpha, gr.gamma
	*dgB = dquat{}
	dgB.axpy(1/s, &dgAlpha)
	dgB.axpy(-ds/s2, &gr.gAlpha)
	dgB.axpy(-1/s2, &dgGamma)
	dgB.axpy(2*ds/s3, &gr.gGamma)
	dgB.axpyReal(-2*dalpha/s2+4*alpha*ds/s3+4*dgamma/s3-12*gamma*ds/(s2*s2), pt.B.r)
	dgB.axpyReal(-2*alpha/s2+4*gamma/s3, dB.r)
}

// ApplyJT implements graph.Mapping: at every point the gradient of ψ = f·x
// (or ⟨P, F⟩) with respect to B and W_k is spread over the point's frames
// as the 8-vector γᵢ = w ∇_B ψ + Σ_k ∂_k w ∇_{W_k} ψ, summed per frame,
// and each frame receives Lᵢᵀ γᵢ.
func (m *DualQuaternionSkinningMapping) ApplyJT(parentF, childF []float64) {
	nf := len(m.g)
	acc := m.acc[:8*nf]
	m.blendForces(acc, childF)
	for k := 0; k < nf; k++ {
		gam := loadDQ(acc[8*k:])
		frameForce(parentF[6*k:6*k+6], &gam, m.curT[k], &m.g[k], m.restT[k], 1)
	}
}

// blendForces sets acc (8 per frame) to the dual quaternion forces γᵢ of
// the child force childF.
func (m *DualQuaternionSkinningMapping) blendForces(acc, childF []float64) {
	clear(acc)
	w := &m.weights
	m.loop.accumulate(w.NumPoints(), len(acc), acc, func(a []float64, lo, hi int) {
		var gr fGrad
		for p := lo; p < hi; p++ {
			pt := &m.blend[p]
			X := vecAt(m.rest, p)
			if !m.gradientsOutput {
				gB := pt.pointGrad(vecAt(childF, p), X)
				for e := w.Offsets[p]; e < w.Offsets[p+1]; e++ {
					gB.addTo(a[8*w.Frames[e]:], w.Weights[e])
				}
				continue
			}
			pt.fGradient(childF[9*p:9*p+9], X, &gr)
			for e := w.Offsets[p]; e < w.Offsets[p+1]; e++ {
				g := a[8*w.Frames[e]:]
				dw := &w.Gradients[e]
				gr.gB.addTo(g, w.Weights[e])
				gr.gW[0].addTo(g, dw[0])
				gr.gW[1].addTo(g, dw[1])
				gr.gW[2].addTo(g, dw[2])
			}
		}
	})
}

// ApplyDJT implements graph.Mapping: the derivative of Jᵀf for a parent
// direction dx, f fixed: per frame Lᵢᵀ dγᵢ + (dLᵢ)ᵀ γᵢ, with dγᵢ the
// derivative of γᵢ (the second derivatives of x or F in B and W_k, in the
// direction dB = Σ w dĝ, dW_k = Σ ∂_k w dĝ).
//
// A conjugate-gradient solve asks for many products at one configuration
// and one child force. Once the calls with the same force since the last
// Apply would have paid for it, the mapping assembles the dense matrix
// Kg = ∂(Jᵀf)/∂x (6 nf × 6 nf; frames are few) and answers by a
// matrix–vector product; Apply or a different child force drops it.
func (m *DualQuaternionSkinningMapping) ApplyDJT(parentDf, parentDx, childF []float64, kFactor float64) {
	if kFactor == 0 {
		return
	}
	nf := len(m.g)
	if len(m.kgF) != len(childF) || !slices.Equal(m.kgF, childF) {
		m.kgF = append(m.kgF[:0], childF...)
		m.kgValid, m.kgCalls = false, 0
	}
	m.kgCalls++
	if !m.kgValid && m.kgCalls >= m.kgBuildAfter && nf <= kgMaxFrames {
		m.buildKg(childF)
	}
	if m.kgValid {
		n := 6 * nf
		for r := 0; r < n; r++ {
			row := m.kg[n*r : n*r+n : n*r+n]
			sum := 0.0
			for c, v := range row {
				sum += v * parentDx[c]
			}
			parentDf[r] += kFactor * sum
		}
		return
	}
	m.blendTangent(parentDx)
	acc := m.acc[:16*nf]
	clear(acc)
	w := &m.weights
	m.loop.accumulate(w.NumPoints(), 16*nf, acc, func(a []float64, lo, hi int) {
		var gr fGrad
		var dB, dgB dquat
		var dW, dgW [3]dquat
		for p := lo; p < hi; p++ {
			pt := &m.blend[p]
			X := vecAt(m.rest, p)
			m.pointTangent(p, &dB, &dW)
			if !m.gradientsOutput {
				f := vecAt(childF, p)
				gB := pt.pointGrad(f, X)
				dgB := pt.pointHess(f, X, &gB, &dB)
				for e := w.Offsets[p]; e < w.Offsets[p+1]; e++ {
					k := w.Frames[e]
					gB.addTo(a[16*k:], w.Weights[e])
					dgB.addTo(a[16*k+8:], w.Weights[e])
				}
				continue
			}
			pt.fGradient(childF[9*p:9*p+9], X, &gr)
			pt.fHessian(X, &gr, &dB, &dW, &dgB, &dgW)
			for e := w.Offsets[p]; e < w.Offsets[p+1]; e++ {
				k := w.Frames[e]
				g, dg := a[16*k:], a[16*k+8:]
				dw := &w.Gradients[e]
				gr.gB.addTo(g, w.Weights[e])
				dgB.addTo(dg, w.Weights[e])
				for c := 0; c < 3; c++ {
					gr.gW[c].addTo(g, dw[c])
					dgW[c].addTo(dg, dw[c])
				}
			}
		}
	})
	for k := 0; k < nf; k++ {
		out := parentDf[6*k : 6*k+6]
		gam, dgam := loadDQ(acc[16*k:]), loadDQ(acc[16*k+8:])
		frameForce(out, &dgam, m.curT[k], &m.g[k], m.restT[k], kFactor)
		frameForceDerivative(out, &gam, parentDx[6*k:6*k+6], m.curT[k], &m.g[k], m.restT[k], kFactor)
	}
}

// kgMaxFrames bounds the frames for which Kg is assembled (a dense
// (6·64)² matrix is 1.2 MB; more frames use the direct products only).
const kgMaxFrames = 64

// buildKg assembles Kg column by column: column (j, c) is the derivative of
// Jᵀf along the unit direction c of frame j, which moves only the points
// frame j influences (dB = w_j dĝ_j, dW_k = ∂_k w_j dĝ_j) plus the frame's
// own (dL_j)ᵀγ_j. Frames are processed in parallel, each writing its own
// columns, so the result does not depend on the number of goroutines.
func (m *DualQuaternionSkinningMapping) buildKg(childF []float64) {
	nf := len(m.g)
	n := 6 * nf
	if cap(m.kg) < n*n {
		m.kg = make([]float64, n*n)
	}
	m.kg = m.kg[:n*n]
	gam := m.acc[:8*nf]
	m.blendForces(gam, childF)
	w := &m.weights
	parallelEach(nf, func(j int) {
		var unit [6]float64
		var tang [6]dquat
		for c := range tang {
			unit = [6]float64{}
			unit[c] = 1
			tang[c] = frameTangent(unit[:], m.curT[j], &m.g[j], m.restT[j])
		}
		dgam := make([]dquat, 6*nf) // [c][frame]
		var gr fGrad
		var dB, dgB dquat
		var dW, dgW [3]dquat
		for _, e := range m.frameEntries[j] {
			p := m.entryPoint[e]
			pt := &m.blend[p]
			X := vecAt(m.rest, p)
			var gB dquat
			var f vec
			if m.gradientsOutput {
				pt.fGradient(childF[9*p:9*p+9], X, &gr)
			} else {
				f = vecAt(childF, p)
				gB = pt.pointGrad(f, X)
			}
			for c := range tang {
				dB = dquat{}
				dB.axpy(w.Weights[e], &tang[c])
				if m.gradientsOutput {
					dg := &w.Gradients[e]
					for k := 0; k < 3; k++ {
						dW[k] = dquat{}
						dW[k].axpy(dg[k], &tang[c])
					}
					pt.fHessian(X, &gr, &dB, &dW, &dgB, &dgW)
				} else {
					dgB = pt.pointHess(f, X, &gB, &dB)
				}
				for e2 := w.Offsets[p]; e2 < w.Offsets[p+1]; e2++ {
					d := &dgam[6*w.Frames[e2]+c]
					d.axpy(w.Weights[e2], &dgB)
					if m.gradientsOutput {
						dg := &w.Gradients[e2]
						d.axpy(dg[0], &dgW[0])
						d.axpy(dg[1], &dgW[1])
						d.axpy(dg[2], &dgW[2])
					}
				}
			}
		}
		gj := loadDQ(gam[8*j:])
		for c := range tang {
			col := 6*j + c
			unit = [6]float64{}
			unit[c] = 1
			for i := 0; i < nf; i++ {
				var out [6]float64
				frameForce(out[:], &dgam[6*i+c], m.curT[i], &m.g[i], m.restT[i], 1)
				if i == j {
					frameForceDerivative(out[:], &gj, unit[:], m.curT[j], &m.g[j], m.restT[j], 1)
				}
				for r := 0; r < 6; r++ {
					m.kg[n*(6*i+r)+col] = out[r]
				}
			}
		}
	})
	m.kgValid = true
}

// parallelEach calls body(i) for i in [0, n) on up to GOMAXPROCS
// goroutines; each i runs on exactly one goroutine.
func parallelEach(n int, body func(i int)) {
	w := min(runtime.GOMAXPROCS(0), n)
	if w <= 1 {
		for i := 0; i < n; i++ {
			body(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	work := func() {
		for {
			i := int(next.Add(1) - 1)
			if i >= n {
				return
			}
			body(i)
		}
	}
	wg.Add(w - 1)
	for i := 1; i < w; i++ {
		go func() { defer wg.Done(); work() }()
	}
	work()
	wg.Wait()
}

// Deform returns the deformed position x and the deformation gradient F
// at an arbitrary rest point X with the given influences (frame indices,
// weights, weight gradients; grads may be nil, F is then R of the blend),
// at the parent coordinates of the last Apply. It is what inverting the
// skinning map by Newton's method needs (Gilles Sec. 4.4).
func (m *DualQuaternionSkinningMapping) Deform(X geom.Vec3, frames []int, weights []float64, grads []geom.Vec3) (x geom.Vec3, F geom.Mat3) {
	var pt dqPoint
	for i, k := range frames {
		pt.B.axpy(weights[i], &m.g[k])
		if grads != nil {
			for c := 0; c < 3; c++ {
				pt.W[c].axpy(grads[i][c], &m.g[k])
			}
		}
	}
	pt.eval(toVec(X), F[:])
	return pt.x.geom(), F
}
