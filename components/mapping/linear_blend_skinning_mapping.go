package mapping

import (
	"fmt"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
)

// LinearBlendSkinningMapping is linear blend skinning of frames (SOFA
// Flexible's LinearMapping; Faure et al. 2011, eq. 3): a parent state of
// Rigid3 or Affine3 frames maps to a child state of Vec3 points or of F331
// deformation gradients at integration samples.
//
// Frame i has the current transform Tᵢ(ℓ) = Aᵢ ℓ + tᵢ (Aᵢ = R(qᵢ) for a
// rigid frame, the 3×3 block of an affine one) and the rest transform T̄ᵢ
// from the parent's RestPosition. A material point of rest position X with
// weights wᵢ(X) moves to
//
//	x(X) = Σᵢ wᵢ(X) Tᵢ T̄ᵢ⁻¹ X = Σᵢ wᵢ (Aᵢ X̂ᵢ + tᵢ),   X̂ᵢ = Āᵢ⁻¹ (X − t̄ᵢ),
//
// and its deformation gradient is the derivative of that in X:
//
//	F(X) = Σᵢ wᵢ Aᵢ Āᵢ⁻¹ + (Aᵢ X̂ᵢ + tᵢ) ⊗ ∇wᵢ = Σᵢ Aᵢ Gᵢ + tᵢ ⊗ ∇wᵢ,
//	Gᵢ = wᵢ Āᵢ⁻¹ + X̂ᵢ ⊗ ∇wᵢ  (constant, computed once).
//
// Both are linear in (tᵢ, Aᵢ), so with partition-of-unity weights (Σ w = 1,
// Σ ∇w = 0) any affine motion x = M X + c of affine frames is reproduced
// exactly (F = M everywhere) and any rigid motion of rigid frames gives
// F = R (the patch tests).
//
// Derivatives: for Affine3 frames (derivative [dt dA]) the mapping is
// linear, dx = Σ w (dAᵢ X̂ᵢ + dtᵢ), dF = Σ dAᵢ Gᵢ + dtᵢ ⊗ ∇wᵢ, and the
// geometric stiffness is zero. For Rigid3 frames (derivative [v ω], ω in
// world coordinates) dAᵢ = [ωᵢ]× Aᵢ, so with the world arms rᵢ = Aᵢ X̂ᵢ and
// Hᵢ = Aᵢ Gᵢ cached at Apply:
//
//	points: dx = Σ w (vᵢ + ωᵢ × rᵢ);        Jᵀ: fᵢ += w f, τᵢ += w rᵢ × f
//	F:      dF = Σ [ωᵢ]× Hᵢ + vᵢ ⊗ ∇wᵢ;     Jᵀ: fᵢ += P ∇wᵢ, τᵢ += Σ_c Hᵢ[:,c] × P[:,c]
//
// (P is the child "force" conjugate to F, −∂W/∂F) and the geometric
// stiffness is the change of the torques when the arms turn, δr = δθ × r:
//
//	points: δτᵢ = w (δθᵢ × rᵢ) × f,   F: δτᵢ = Σ_c (δθᵢ × Hᵢ[:,c]) × P[:,c].
//
// F332 children (second-order samples) get F and its gradient ∂F/∂X_k
// at the samples' centres, which need the weights' Hessians too (from the
// shape function: mapping.WeightHessianProvider, or the weightHessians
// field): ∂ₖF = Σ Aᵢ ∂ₖGᵢ + tᵢ ⊗ ∂ₖ∇wᵢ with
// ∂ₖGᵢ = ∂ₖwᵢ Āᵢ⁻¹ + (Āᵢ⁻¹ eₖ) ⊗ ∇wᵢ + X̂ᵢ ⊗ ∂ₖ∇wᵢ, again linear in the
// frames, with the same J, Jᵀ and geometric stiffness structure
// (skinning_blocks.go). With Σ ∇∇w = 0 affine motions give ∇F = 0 exactly.
//
// Quadratic3 frames (graph.Quadratic3: x = t + A b(X̂), b the complete
// quadratic basis) map the same way through the general path, to Vec3,
// F331 or F332; their rest coordinates must be affine (zero quadratic
// columns), X̂ = Ā⁻¹(X − t̄) with Ā the rest linear part, and the mapping
// is linear in (t, A): constant J, no geometric stiffness.
//
// Weights, rest points and the re-initialisation contract are described
// on SkinningInputs; the weights must be a partition of unity.
type LinearBlendSkinningMapping struct {
	graph.ObjectBase
	SkinningInputs

	// Per frame: rest inverse (Āᵢ⁻¹, t̄ᵢ) and current (Aᵢ, tᵢ) at the last Apply.
	restInv []geom.Mat3
	restT   []geom.Vec3
	curA    []geom.Mat3
	curT    []geom.Vec3
	// Per influence entry: X̂ᵢ, Gᵢ (F children), and the rigid caches
	// rᵢ = Aᵢ X̂ᵢ (points) or Hᵢ = Aᵢ Gᵢ (F) at the last Apply.
	local []geom.Vec3
	g     []geom.Mat3
	arm   []geom.Vec3
	h     []geom.Mat3

	// The general path (F332 children; see skinning_blocks.go).
	blocks blockState
	kron   *graph.RowKroneckerJacobian // J for assembled solvers (affine and quadratic frames; built on demand)

	loop chunkedLoop
}

func init() {
	graph.Register(graph.TypeInfo{
		Name:    "LinearBlendSkinningMapping",
		Kind:    graph.KindMapping,
		Summary: "Linear blend skinning (Faure et al. 2011, eq. 3; SOFA Flexible's LinearMapping): Rigid3, Affine3 or Quadratic3 frames map to Vec3 points, to F331 deformation gradients at samples, or to F332 (F and ∂F/∂X, from the weights' Hessians), x = Σ wᵢ Tᵢ T̄ᵢ⁻¹ X, F = ∂x/∂X; exact J, Jᵀ and (rigid frames) geometric stiffness.",
		New:     func() graph.Object { return NewLinearBlendSkinningMapping() },
	})
}

// NewLinearBlendSkinningMapping returns a mechanical mapping with no inputs
// set (for code that builds scenes directly: SetStates, SetRestPoints,
// SetWeights, then Init).
func NewLinearBlendSkinningMapping() *LinearBlendSkinningMapping {
	return &LinearBlendSkinningMapping{
		ObjectBase:     graph.ObjectBase{Name: "LinearBlendSkinningMapping", TypeName: "LinearBlendSkinningMapping"},
		SkinningInputs: SkinningInputs{MappingIO: MappingIO{Mechanical: true}},
	}
}

// Validate checks the fields that do not need the states.
func (m *LinearBlendSkinningMapping) Validate() error { return m.validateFields() }

// Init resolves the states, rest points and weights (see SkinningInputs),
// checks them, precomputes the per-influence constants, sizes the child and
// maps the parent's rest position, position and velocity onto it.
func (m *LinearBlendSkinningMapping) Init() error {
	return m.Wrap(m.initialise(false))
}

// Reinit re-initialises the mapping after the parent state was resized
// (frames inserted) or after SetWeights/SetRestPoints: see SkinningInputs.
// The child is resized to the number of points when it changed.
func (m *LinearBlendSkinningMapping) Reinit() error {
	return m.Wrap(m.initialise(true))
}

func (m *LinearBlendSkinningMapping) initialise(reinit bool) error {
	if err := m.setup(&m.ObjectBase, "LinearBlendSkinningMapping", true, true, reinit); err != nil {
		return err
	}
	nf := m.from.Size()
	m.restInv = make([]geom.Mat3, nf)
	m.restT = make([]geom.Vec3, nf)
	m.curA = make([]geom.Mat3, nf)
	m.curT = make([]geom.Vec3, nf)
	rest := m.from.Vec(graph.RestPosition)
	for k := 0; k < nf; k++ {
		A, t := m.frameTransform(rest, k)
		inv, ok := A.Inverse()
		if !ok {
			return fmt.Errorf("rest frame %d has a singular matrix (det = %g)", k, A.Det())
		}
		m.restInv[k], m.restT[k] = inv, t
		if m.quadraticFrames {
			c := rest[30*k : 30*k+30]
			for r := 0; r < 3; r++ {
				for j := 3; j < 9; j++ {
					if c[3+9*r+j] != 0 {
						return fmt.Errorf("rest frame %d has quadratic coefficients (A[%d][%d] = %g): a quadratic frame's rest position must be affine (zero quadratic columns)", k, r, j, c[3+9*r+j])
					}
				}
			}
		}
	}
	ne := len(m.weights.Frames)
	m.kron = nil
	m.local = make([]geom.Vec3, ne)
	m.g, m.arm, m.h = nil, nil, nil
	m.blocks.kind = rigidFrames
	switch {
	case m.affineFrames:
		m.blocks.kind = affineFrames
	case m.quadraticFrames:
		m.blocks.kind = quadraticFrames
	}
	m.blocks.generic = m.hessiansOutput || m.quadraticFrames
	if m.blocks.generic {
		for p := 0; p < m.weights.NumPoints(); p++ {
			X := geom.At(m.rest, p)
			for e := m.weights.Offsets[p]; e < m.weights.Offsets[p+1]; e++ {
				k := m.weights.Frames[e]
				m.local[e] = m.restInv[k].MulVec(X.Sub(m.restT[k]))
			}
		}
		m.initBlocks()
		mapAll(m)
		return nil
	}
	if m.gradientsOutput {
		m.g = make([]geom.Mat3, ne)
		if !m.affineFrames {
			m.h = make([]geom.Mat3, ne)
		}
	} else if !m.affineFrames {
		m.arm = make([]geom.Vec3, ne)
	}
	for p := 0; p < m.weights.NumPoints(); p++ {
		X := geom.At(m.rest, p)
		for e := m.weights.Offsets[p]; e < m.weights.Offsets[p+1]; e++ {
			k := m.weights.Frames[e]
			m.local[e] = m.restInv[k].MulVec(X.Sub(m.restT[k]))
			if m.gradientsOutput {
				m.g[e] = m.restInv[k].Scale(m.weights.Weights[e]).Add(m.local[e].Outer(m.weights.Gradients[e]))
			}
		}
	}
	mapAll(m)
	return nil
}

// frameTransform returns (A, t) of frame k of the coordinates x (for a
// quadratic frame, A is the linear part: the first three columns).
func (m *LinearBlendSkinningMapping) frameTransform(x []float64, k int) (geom.Mat3, geom.Vec3) {
	if m.quadraticFrames {
		c := x[30*k : 30*k+30]
		return geom.Mat3{c[3], c[4], c[5], c[12], c[13], c[14], c[21], c[22], c[23]}, geom.Vec3{c[0], c[1], c[2]}
	}
	if m.affineFrames {
		c := x[12*k : 12*k+12]
		return geom.Mat3(c[3:12]), geom.Vec3{c[0], c[1], c[2]}
	}
	c := x[7*k : 7*k+7]
	return geom.Quat{c[3], c[4], c[5], c[6]}.Mat(), geom.Vec3{c[0], c[1], c[2]}
}

func (m *LinearBlendSkinningMapping) checkFrames(parentLen int) {
	cs := 7
	switch {
	case m.affineFrames:
		cs = 12
	case m.quadraticFrames:
		cs = 30
	}
	if parentLen/cs != len(m.restInv) {
		panic(fmt.Sprintf("%s: the input state has %d frames but the mapping was set up for %d; call Reinit after resizing it", m.Path(), parentLen/cs, len(m.restInv)))
	}
}

// The loops below are written on scalars and pointers: Go keeps
// fixed-size arrays (geom.Vec3, geom.Mat3) in memory, so expressions on
// array values cost a copy per operation (3–5× slower here).

// Apply implements graph.Mapping: x = Σ w (A X̂ + t) or F = Σ A G + t ⊗ ∇w.
// It caches the frames' transforms and, for rigid frames, the world arms
// (points) or A·G (F) for the derivatives.
func (m *LinearBlendSkinningMapping) Apply(childX, parentX []float64) {
	m.checkFrames(len(parentX))
	if m.blocks.generic {
		m.applyBlocks(childX, parentX)
		return
	}
	for k := range m.curA {
		m.curA[k], m.curT[k] = m.frameTransform(parentX, k)
	}
	n := m.weights.NumPoints()
	w := &m.weights
	if !m.gradientsOutput {
		m.loop.run(n, func(_, lo, hi int) {
			for p := lo; p < hi; p++ {
				var x0, x1, x2 float64
				for e := w.Offsets[p]; e < w.Offsets[p+1]; e++ {
					k := w.Frames[e]
					A, t, X := &m.curA[k], &m.curT[k], &m.local[e]
					r0 := A[0]*X[0] + A[1]*X[1] + A[2]*X[2]
					r1 := A[3]*X[0] + A[4]*X[1] + A[5]*X[2]
					r2 := A[6]*X[0] + A[7]*X[1] + A[8]*X[2]
					if m.arm != nil {
						m.arm[e] = geom.Vec3{r0, r1, r2}
					}
					c := w.Weights[e]
					x0 += c * (r0 + t[0])
					x1 += c * (r1 + t[1])
					x2 += c * (r2 + t[2])
				}
				childX[3*p], childX[3*p+1], childX[3*p+2] = x0, x1, x2
			}
		})
		return
	}
	m.loop.run(n, func(_, lo, hi int) {
		var H geom.Mat3
		for p := lo; p < hi; p++ {
			F := childX[9*p : 9*p+9 : 9*p+9]
			clear(F)
			for e := w.Offsets[p]; e < w.Offsets[p+1]; e++ {
				k := w.Frames[e]
				h := &H
				if m.h != nil {
					h = &m.h[e]
				}
				mulTo(h, &m.curA[k], &m.g[e])
				t, dw := &m.curT[k], &w.Gradients[e]
				for r := 0; r < 3; r++ {
					F[3*r] += h[3*r] + t[r]*dw[0]
					F[3*r+1] += h[3*r+1] + t[r]*dw[1]
					F[3*r+2] += h[3*r+2] + t[r]*dw[2]
				}
			}
		}
	})
}

// mulTo sets *out = a b.
func mulTo(out, a, b *geom.Mat3) {
	for r := 0; r < 3; r++ {
		a0, a1, a2 := a[3*r], a[3*r+1], a[3*r+2]
		out[3*r] = a0*b[0] + a1*b[3] + a2*b[6]
		out[3*r+1] = a0*b[1] + a1*b[4] + a2*b[7]
		out[3*r+2] = a0*b[2] + a1*b[5] + a2*b[8]
	}
}

// addOuter adds a bᵀ to M.
func addOuter(M *geom.Mat3, a, b geom.Vec3) {
	M[0] += a[0] * b[0]
	M[1] += a[0] * b[1]
	M[2] += a[0] * b[2]
	M[3] += a[1] * b[0]
	M[4] += a[1] * b[1]
	M[5] += a[1] * b[2]
	M[6] += a[2] * b[0]
	M[7] += a[2] * b[1]
	M[8] += a[2] * b[2]
}

// ApplyJ implements graph.Mapping (see the type's documentation for J).
func (m *LinearBlendSkinningMapping) ApplyJ(childV, parentV []float64) {
	if m.blocks.generic {
		m.applyJBlocks(childV, parentV)
		return
	}
	n := m.weights.NumPoints()
	w := &m.weights
	switch {
	case !m.gradientsOutput && !m.affineFrames:
		m.loop.run(n, func(_, lo, hi int) {
			for p := lo; p < hi; p++ {
				var v0, v1, v2 float64
				for e := w.Offsets[p]; e < w.Offsets[p+1]; e++ {
					d := parentV[6*w.Frames[e] : 6*w.Frames[e]+6 : 6*w.Frames[e]+6]
					r := &m.arm[e]
					c := w.Weights[e]
					v0 += c * (d[0] + d[4]*r[2] - d[5]*r[1])
					v1 += c * (d[1] + d[5]*r[0] - d[3]*r[2])
					v2 += c * (d[2] + d[3]*r[1] - d[4]*r[0])
				}
				childV[3*p], childV[3*p+1], childV[3*p+2] = v0, v1, v2
			}
		})
	case !m.gradientsOutput:
		m.loop.run(n, func(_, lo, hi int) {
			for p := lo; p < hi; p++ {
				var v0, v1, v2 float64
				for e := w.Offsets[p]; e < w.Offsets[p+1]; e++ {
					d := parentV[12*w.Frames[e] : 12*w.Frames[e]+12 : 12*w.Frames[e]+12]
					X := &m.local[e]
					c := w.Weights[e]
					v0 += c * (d[0] + d[3]*X[0] + d[4]*X[1] + d[5]*X[2])
					v1 += c * (d[1] + d[6]*X[0] + d[7]*X[1] + d[8]*X[2])
					v2 += c * (d[2] + d[9]*X[0] + d[10]*X[1] + d[11]*X[2])
				}
				childV[3*p], childV[3*p+1], childV[3*p+2] = v0, v1, v2
			}
		})
	case !m.affineFrames:
		// dF = Σ [ω]× H + v ⊗ ∇w: row r of [ω]× H is ω × (column-wise)...
		// written out: ([ω]× H)[r][c] = ω[r+1] H[r+2][c] − ω[r+2] H[r+1][c].
		m.loop.run(n, func(_, lo, hi int) {
			for p := lo; p < hi; p++ {
				dF := childV[9*p : 9*p+9 : 9*p+9]
				clear(dF)
				for e := w.Offsets[p]; e < w.Offsets[p+1]; e++ {
					d := parentV[6*w.Frames[e] : 6*w.Frames[e]+6 : 6*w.Frames[e]+6]
					H, dw := &m.h[e], &w.Gradients[e]
					o0, o1, o2 := d[3], d[4], d[5]
					for c := 0; c < 3; c++ {
						h0, h1, h2 := H[c], H[3+c], H[6+c]
						dF[c] += d[0]*dw[c] + o1*h2 - o2*h1
						dF[3+c] += d[1]*dw[c] + o2*h0 - o0*h2
						dF[6+c] += d[2]*dw[c] + o0*h1 - o1*h0
					}
				}
			}
		})
	default:
		m.loop.run(n, func(_, lo, hi int) {
			for p := lo; p < hi; p++ {
				dF := childV[9*p : 9*p+9 : 9*p+9]
				clear(dF)
				for e := w.Offsets[p]; e < w.Offsets[p+1]; e++ {
					d := parentV[12*w.Frames[e] : 12*w.Frames[e]+12 : 12*w.Frames[e]+12]
					G, dw := &m.g[e], &w.Gradients[e]
					for r := 0; r < 3; r++ {
						a0, a1, a2, t := d[3+3*r], d[4+3*r], d[5+3*r], d[r]
						dF[3*r] += a0*G[0] + a1*G[3] + a2*G[6] + t*dw[0]
						dF[3*r+1] += a0*G[1] + a1*G[4] + a2*G[7] + t*dw[1]
						dF[3*r+2] += a0*G[2] + a1*G[5] + a2*G[8] + t*dw[2]
					}
				}
			}
		})
	}
}

// ApplyJT implements graph.Mapping: parentF += Jᵀ childF.
func (m *LinearBlendSkinningMapping) ApplyJT(parentF, childF []float64) {
	if m.blocks.generic {
		m.applyJTBlocks(parentF, childF)
		return
	}
	n := m.weights.NumPoints()
	w := &m.weights
	switch {
	case !m.gradientsOutput && !m.affineFrames:
		m.loop.accumulate(n, len(parentF), parentF, func(acc []float64, lo, hi int) {
			for p := lo; p < hi; p++ {
				f0, f1, f2 := childF[3*p], childF[3*p+1], childF[3*p+2]
				for e := w.Offsets[p]; e < w.Offsets[p+1]; e++ {
					d := acc[6*w.Frames[e] : 6*w.Frames[e]+6 : 6*w.Frames[e]+6]
					c := w.Weights[e]
					r := &m.arm[e]
					d[0] += c * f0
					d[1] += c * f1
					d[2] += c * f2
					d[3] += c * (r[1]*f2 - r[2]*f1)
					d[4] += c * (r[2]*f0 - r[0]*f2)
					d[5] += c * (r[0]*f1 - r[1]*f0)
				}
			}
		})
	case !m.gradientsOutput:
		m.loop.accumulate(n, len(parentF), parentF, func(acc []float64, lo, hi int) {
			for p := lo; p < hi; p++ {
				f := childF[3*p : 3*p+3 : 3*p+3]
				for e := w.Offsets[p]; e < w.Offsets[p+1]; e++ {
					d := acc[12*w.Frames[e] : 12*w.Frames[e]+12 : 12*w.Frames[e]+12]
					c := w.Weights[e]
					X := &m.local[e]
					for r := 0; r < 3; r++ {
						cf := c * f[r]
						d[r] += cf
						d[3+3*r] += cf * X[0]
						d[4+3*r] += cf * X[1]
						d[5+3*r] += cf * X[2]
					}
				}
			}
		})
	case !m.affineFrames:
		m.loop.accumulate(n, len(parentF), parentF, func(acc []float64, lo, hi int) {
			for p := lo; p < hi; p++ {
				P := childF[9*p : 9*p+9 : 9*p+9]
				for e := w.Offsets[p]; e < w.Offsets[p+1]; e++ {
					d := acc[6*w.Frames[e] : 6*w.Frames[e]+6 : 6*w.Frames[e]+6]
					H, dw := &m.h[e], &w.Gradients[e]
					for r := 0; r < 3; r++ {
						d[r] += P[3*r]*dw[0] + P[3*r+1]*dw[1] + P[3*r+2]*dw[2]
					}
					// τ = Σ_c H[:,c] × P[:,c].
					for c := 0; c < 3; c++ {
						h0, h1, h2 := H[c], H[3+c], H[6+c]
						p0, p1, p2 := P[c], P[3+c], P[6+c]
						d[3] += h1*p2 - h2*p1
						d[4] += h2*p0 - h0*p2
						d[5] += h0*p1 - h1*p0
					}
				}
			}
		})
	default:
		m.loop.accumulate(n, len(parentF), parentF, func(acc []float64, lo, hi int) {
			for p := lo; p < hi; p++ {
				P := childF[9*p : 9*p+9 : 9*p+9]
				for e := w.Offsets[p]; e < w.Offsets[p+1]; e++ {
					d := acc[12*w.Frames[e] : 12*w.Frames[e]+12 : 12*w.Frames[e]+12]
					G, dw := &m.g[e], &w.Gradients[e]
					// f_t = P ∇w, f_A = P Gᵀ.
					for r := 0; r < 3; r++ {
						p0, p1, p2 := P[3*r], P[3*r+1], P[3*r+2]
						d[r] += p0*dw[0] + p1*dw[1] + p2*dw[2]
						d[3+3*r] += p0*G[0] + p1*G[1] + p2*G[2]
						d[4+3*r] += p0*G[3] + p1*G[4] + p2*G[5]
						d[5+3*r] += p0*G[6] + p1*G[7] + p2*G[8]
					}
				}
			}
		})
	}
}

// ApplyDJT implements graph.Mapping: the geometric stiffness, zero for
// affine frames (the mapping is linear), the turning of the arms for rigid
// frames: δτ = (δθ × r) × f = r (δθ·f) − δθ (r·f) per point and
// Σ_c H[:,c] (δθ·P[:,c]) − δθ (H[:,c]·P[:,c]) per sample.
func (m *LinearBlendSkinningMapping) ApplyDJT(parentDf, parentDx, childF []float64, kFactor float64) {
	if m.affineFrames || m.quadraticFrames || kFactor == 0 {
		return
	}
	if m.blocks.generic {
		m.applyDJTBlocks(parentDf, parentDx, childF, kFactor)
		return
	}
	n := m.weights.NumPoints()
	w := &m.weights
	if !m.gradientsOutput {
		m.loop.accumulate(n, len(parentDf), parentDf, func(acc []float64, lo, hi int) {
			for p := lo; p < hi; p++ {
				f0, f1, f2 := childF[3*p], childF[3*p+1], childF[3*p+2]
				for e := w.Offsets[p]; e < w.Offsets[p+1]; e++ {
					k := w.Frames[e]
					t0, t1, t2 := parentDx[6*k+3], parentDx[6*k+4], parentDx[6*k+5]
					r := &m.arm[e]
					c := kFactor * w.Weights[e]
					a := c * (t0*f0 + t1*f1 + t2*f2)
					b := c * (r[0]*f0 + r[1]*f1 + r[2]*f2)
					d := acc[6*k+3 : 6*k+6 : 6*k+6]
					d[0] += a*r[0] - b*t0
					d[1] += a*r[1] - b*t1
					d[2] += a*r[2] - b*t2
				}
			}
		})
		return
	}
	m.loop.accumulate(n, len(parentDf), parentDf, func(acc []float64, lo, hi int) {
		for p := lo; p < hi; p++ {
			P := childF[9*p : 9*p+9 : 9*p+9]
			for e := w.Offsets[p]; e < w.Offsets[p+1]; e++ {
				k := w.Frames[e]
				t0, t1, t2 := parentDx[6*k+3], parentDx[6*k+4], parentDx[6*k+5]
				H := &m.h[e]
				var s0, s1, s2, b float64
				for c := 0; c < 3; c++ {
					h0, h1, h2 := H[c], H[3+c], H[6+c]
					p0, p1, p2 := P[c], P[3+c], P[6+c]
					a := t0*p0 + t1*p1 + t2*p2
					s0 += a * h0
					s1 += a * h1
					s2 += a * h2
					b += h0*p0 + h1*p1 + h2*p2
				}
				d := acc[6*k+3 : 6*k+6 : 6*k+6]
				d[0] += kFactor * (s0 - b*t0)
				d[1] += kFactor * (s1 - b*t1)
				d[2] += kFactor * (s2 - b*t2)
			}
		}
	})
}

// Deform returns the deformed position x and the deformation gradient F
// at an arbitrary rest point X with the given influences (frame indices,
// weights, weight gradients; grads may be nil, F is then the blend of the
// frames' linear parts without the ∇w terms), at the parent coordinates of
// the last Apply. It is what inverting the skinning map by Newton's method
// needs (Gilles Sec. 4.4: X ← X + F⁻¹ (x* − x(X))).
func (m *LinearBlendSkinningMapping) Deform(X geom.Vec3, frames []int, weights []float64, grads []geom.Vec3) (x geom.Vec3, F geom.Mat3) {
	if m.blocks.generic {
		return m.deformBlocks(X, frames, weights, grads)
	}
	for i, k := range frames {
		local := m.restInv[k].MulVec(X.Sub(m.restT[k]))
		xi := m.curA[k].MulVec(local).Add(m.curT[k])
		x = x.Add(xi.Scale(weights[i]))
		F = F.Add(m.curA[k].Mul(m.restInv[k]).Scale(weights[i]))
		if grads != nil {
			addOuter(&F, xi, grads[i])
		}
	}
	return x, F
}
