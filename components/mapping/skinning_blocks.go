package mapping

import (
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
)

// This file holds the general form of linear blend skinning that
// LinearBlendSkinningMapping uses for second-order samples (F332) and
// quadratic frames (Quadratic3); the common cases (Rigid3/Affine3 frames
// to Vec3/F331) keep their hand-specialised loops in
// linear_blend_skinning_mapping.go.
//
// Frame i maps its local coordinates to x = Aᵢ b(X̂ᵢ) + tᵢ with X̂ᵢ =
// Qᵢ (X − t̄ᵢ), Qᵢ the inverse of the rest linear part, and b the frame's
// polynomial basis: b = X̂ (nb = 3) for rigid and affine frames, b = [X̂,
// x̂², ŷ², ẑ², x̂ŷ, ŷẑ, ẑx̂] (nb = 9) for quadratic ones (Faure et al. 2011
// eq. 3). Aᵢ is 3×nb (R(qᵢ) for a rigid frame). Every child DOF is a 3×c
// matrix Y, linear in the frames:
//
//	Y = Σᵢ Aᵢ Ĝᵢ + tᵢ ĝᵢᵀ,
//
// with constants per influence, from the weight w, its gradient ∇w and
// Hessian H, the basis b, its Jacobian D = ∂b/∂X (nb×3) and D's
// derivatives ∂ₖD:
//
//	point  (c = 1):   Ĝ = w b,                                   ĝ = w
//	F      (c = 3):   Ĝ⁰ = w D + b ∇wᵀ,                          ĝ⁰ = ∇w
//	∂ₖF    (+3 each): Ĝᵏ = ∂ₖw D + w ∂ₖD + D eₖ ∇wᵀ + b (H eₖ)ᵀ,  ĝᵏ = H eₖ
//
// (Ĝᵏ = ∂ₖĜ⁰ and ĝᵏ = ∂ₖĝ⁰: the F332 blocks are the exact derivatives of
// F for the weights' given derivatives). The mapping is linear in (A, t),
// so for affine and quadratic frames J is constant and the geometric
// stiffness zero; for rigid frames dA = [ω]× A gives
//
//	dY = [ω]× Hᵢ + vᵢ ĝᵢᵀ,   Hᵢ = Aᵢ Ĝᵢ (cached at Apply),
//	Jᵀ:  fᵥ += P ĝ,  τ += Σ_col H[:,col] × P[:,col],
//	dJᵀ: δτ = Σ_col (δθ × H[:,col]) × P[:,col].

// frameKind is the kind of the parent's frames.
type frameKind int

const (
	rigidFrames frameKind = iota
	affineFrames
	quadraticFrames
)

// basisSize returns nb, the number of basis functions of the frames.
func (k frameKind) basisSize() int {
	if k == quadraticFrames {
		return 9
	}
	return 3
}

// quadPairs are the (a, b) of the quadratic monomials x̂_a x̂_b of the
// basis, in its order: x², y², z², xy, yz, zx.
var quadPairs = [6][2]int{{0, 0}, {1, 1}, {2, 2}, {0, 1}, {1, 2}, {2, 0}}

// childLayout describes the child DOF as a 3×c matrix: c columns and the
// storage index of entry (r, col).
type childLayout struct {
	c   int
	idx []int // idx[r*c+col]
}

func newChildLayout(points, hessians bool) childLayout {
	switch {
	case points:
		return childLayout{c: 1, idx: []int{0, 1, 2}}
	case !hessians:
		l := childLayout{c: 3, idx: make([]int, 9)}
		for r := 0; r < 3; r++ {
			for c := 0; c < 3; c++ {
				l.idx[3*r+c] = 3*r + c
			}
		}
		return l
	default:
		// F332: column 3b + c of block b (F, ∂₀F, ∂₁F, ∂₂F) is stored at
		// 9b + 3r + c.
		l := childLayout{c: 12, idx: make([]int, 36)}
		for r := 0; r < 3; r++ {
			for b := 0; b < 4; b++ {
				for c := 0; c < 3; c++ {
					l.idx[12*r+3*b+c] = 9*b + 3*r + c
				}
			}
		}
		return l
	}
}

// size returns the number of floats of one child DOF.
func (l childLayout) size() int { return 3 * l.c }

// basisAt returns b(X̂) (nb), D = ∂b/∂X (nb×3 row-major) and ∂ₖD (three
// nb×3 matrices) for frames of kind k with rest inverse Q.
func basisAt(k frameKind, Q geom.Mat3, Xh geom.Vec3) (b, D []float64, dD [3][]float64) {
	nb := k.basisSize()
	b = make([]float64, nb)
	D = make([]float64, 3*nb)
	for a := range dD {
		dD[a] = make([]float64, 3*nb)
	}
	copy(b, Xh[:])
	copy(D[:9], Q[:])
	if k != quadraticFrames {
		return b, D, dD
	}
	for p, ab := range quadPairs {
		i, j := ab[0], ab[1]
		b[3+p] = Xh[i] * Xh[j]
		// Row 3+p of Db (∂b/∂X̂): δ_in X̂_j + X̂_i δ_jn; of ∂_m Db:
		// δ_in δ_jm + δ_im δ_jn. D = Db Q, ∂ₖD = Σ_m ∂_m Db Q_mk Q.
		var db, ddb [3]float64 // row of Db; ∂ₖ of it in X: Σ_m ∂_m Db[n] Q_mk
		for n := 0; n < 3; n++ {
			if i == n {
				db[n] += Xh[j]
			}
			if j == n {
				db[n] += Xh[i]
			}
		}
		for n := 0; n < 3; n++ {
			s := 0.0
			for c := 0; c < 3; c++ {
				s += db[c] * Q[3*c+n]
			}
			D[3*(3+p)+n] = s
		}
		for kk := 0; kk < 3; kk++ {
			for n := 0; n < 3; n++ {
				// ∂ₖ Db[n] = Σ_m (δ_in δ_jm + δ_im δ_jn) Q_mk
				v := 0.0
				if i == n {
					v += Q[3*j+kk]
				}
				if j == n {
					v += Q[3*i+kk]
				}
				ddb[n] = v
			}
			for n := 0; n < 3; n++ {
				s := 0.0
				for c := 0; c < 3; c++ {
					s += ddb[c] * Q[3*c+n]
				}
				dD[kk][3*(3+p)+n] = s
			}
		}
	}
	return b, D, dD
}

// blockConstants writes Ĝ (nb×c row-major) and ĝ (c) of one influence.
func blockConstants(G, g []float64, l childLayout, b, D []float64, dD [3][]float64, w float64, dw geom.Vec3, H geom.Mat3) {
	nb := len(b)
	c := l.c
	if c == 1 {
		for j := 0; j < nb; j++ {
			G[j] = w * b[j]
		}
		g[0] = w
		return
	}
	for j := 0; j < nb; j++ {
		for cc := 0; cc < 3; cc++ {
			G[j*c+cc] = w*D[3*j+cc] + b[j]*dw[cc]
		}
	}
	copy(g[:3], dw[:])
	if c == 3 {
		return
	}
	for k := 0; k < 3; k++ {
		for j := 0; j < nb; j++ {
			for cc := 0; cc < 3; cc++ {
				G[j*c+3+3*k+cc] = dw[k]*D[3*j+cc] + w*dD[k][3*j+cc] + D[3*j+k]*dw[cc] + b[j]*H[3*cc+k]
			}
		}
		for cc := 0; cc < 3; cc++ {
			g[3+3*k+cc] = H[3*cc+k]
		}
	}
}

// blockState is the general path's part of LinearBlendSkinningMapping.
type blockState struct {
	generic bool
	kind    frameKind
	nb      int
	lay     childLayout
	bG      []float64 // Ĝ per influence, nb×c
	bg      []float64 // ĝ per influence, c
	bH      []float64 // rigid frames: H = R Ĝ per influence at the last Apply, 3×c
	curL    []float64 // per frame: A (3×nb) at the last Apply
}

// initBlocks computes Ĝ and ĝ of every influence.
func (m *LinearBlendSkinningMapping) initBlocks() {
	bs := &m.blocks
	bs.nb = bs.kind.basisSize()
	bs.lay = newChildLayout(!m.gradientsOutput, m.hessiansOutput)
	nb, c := bs.nb, bs.lay.c
	ne := len(m.weights.Frames)
	bs.bG = make([]float64, ne*nb*c)
	bs.bg = make([]float64, ne*c)
	bs.bH = nil
	if bs.kind == rigidFrames {
		bs.bH = make([]float64, ne*3*c)
	}
	bs.curL = make([]float64, len(m.restInv)*3*nb)
	w := &m.weights
	for e := range w.Frames {
		k := w.Frames[e]
		b, D, dD := basisAt(bs.kind, m.restInv[k], m.local[e])
		var dw geom.Vec3
		var H geom.Mat3
		if w.Gradients != nil {
			dw = w.Gradients[e]
		}
		if w.Hessians != nil && m.hessiansOutput {
			H = w.Hessians[e]
		}
		blockConstants(bs.bG[e*nb*c:(e+1)*nb*c], bs.bg[e*c:(e+1)*c], bs.lay, b, D, dD, w.Weights[e], dw, H)
	}
}

// frameLinear writes the linear part A (3×nb row-major) of frame k of the
// coordinates x into out and returns its translation.
func (m *LinearBlendSkinningMapping) frameLinear(out, x []float64, k int) geom.Vec3 {
	switch m.blocks.kind {
	case rigidFrames:
		c := x[7*k : 7*k+7]
		R := geom.Quat{c[3], c[4], c[5], c[6]}.Mat()
		copy(out, R[:])
		return geom.Vec3{c[0], c[1], c[2]}
	default:
		cs := 3 + 3*m.blocks.nb
		c := x[cs*k : cs*k+cs]
		copy(out, c[3:cs])
		return geom.Vec3{c[0], c[1], c[2]}
	}
}

// applyBlocks is Apply of the general path: Y = Σ A Ĝ + t ĝᵀ.
func (m *LinearBlendSkinningMapping) applyBlocks(childX, parentX []float64) {
	bs := &m.blocks
	nb, c, sz := bs.nb, bs.lay.c, bs.lay.size()
	for k := range m.curT {
		m.curT[k] = m.frameLinear(bs.curL[3*nb*k:3*nb*(k+1)], parentX, k)
	}
	w := &m.weights
	idx := bs.lay.idx
	m.loop.run(w.NumPoints(), func(_, lo, hi int) {
		var Hs [36]float64
		for p := lo; p < hi; p++ {
			Y := childX[sz*p : sz*p+sz : sz*p+sz]
			clear(Y)
			for e := w.Offsets[p]; e < w.Offsets[p+1]; e++ {
				k := w.Frames[e]
				A := bs.curL[3*nb*k : 3*nb*(k+1)]
				G := bs.bG[e*nb*c : (e+1)*nb*c]
				g := bs.bg[e*c : (e+1)*c]
				t := &m.curT[k]
				H := Hs[:3*c]
				if bs.bH != nil {
					H = bs.bH[e*3*c : (e+1)*3*c]
				}
				for r := 0; r < 3; r++ {
					Ar := A[nb*r : nb*r+nb]
					Hr := H[c*r : c*r+c]
					clear(Hr)
					for j, a := range Ar {
						Gj := G[c*j : c*j+c]
						for col, gv := range Gj {
							Hr[col] += a * gv
						}
					}
					for col := 0; col < c; col++ {
						Y[idx[c*r+col]] += Hr[col] + t[r]*g[col]
					}
				}
			}
		}
	})
}

// applyJBlocks is ApplyJ of the general path.
func (m *LinearBlendSkinningMapping) applyJBlocks(childV, parentV []float64) {
	bs := &m.blocks
	nb, c, sz := bs.nb, bs.lay.c, bs.lay.size()
	w := &m.weights
	idx := bs.lay.idx
	rigid := bs.kind == rigidFrames
	ds := 3 + 3*nb
	if rigid {
		ds = 6
	}
	if !rigid {
		blockJ(&m.loop, w.Offsets, w.Frames, nb, bs.lay, bs.bG, bs.bg, childV, parentV)
		return
	}
	m.loop.run(w.NumPoints(), func(_, lo, hi int) {
		for p := lo; p < hi; p++ {
			Y := childV[sz*p : sz*p+sz : sz*p+sz]
			clear(Y)
			for e := w.Offsets[p]; e < w.Offsets[p+1]; e++ {
				k := w.Frames[e]
				d := parentV[ds*k : ds*k+ds : ds*k+ds]
				g := bs.bg[e*c : (e+1)*c]
				H := bs.bH[e*3*c : (e+1)*3*c]
				o0, o1, o2 := d[3], d[4], d[5]
				for col := 0; col < c; col++ {
					h0, h1, h2 := H[col], H[c+col], H[2*c+col]
					Y[idx[col]] += d[0]*g[col] + o1*h2 - o2*h1
					Y[idx[c+col]] += d[1]*g[col] + o2*h0 - o0*h2
					Y[idx[2*c+col]] += d[2]*g[col] + o0*h1 - o1*h0
				}
			}
		}
	})
}

// blockJ sets Y_p = Σ_e Aₑ Ĝₑ + tₑ ĝₑᵀ for every child DOF p, the entries e
// of p in [offsets[p], offsets[p+1]) with parent DOF frames[e], whose
// derivative (or coordinates) v = [t(3), A(3×nb row-major)] is linear:
// the product J v of every mapping whose child DOFs are linear in the
// parent's (t, A) with constant blocks (linear blend skinning of affine and
// quadratic frames, GMLS). Ĝₑ is nb×c and ĝₑ c numbers of entry e in bG,
// bg.
func blockJ(loop *chunkedLoop, offsets, frames []int, nb int, lay childLayout, bG, bg []float64, childV, parentV []float64) {
	c, sz := lay.c, lay.size()
	idx := lay.idx
	ds := 3 + 3*nb
	loop.run(len(offsets)-1, func(_, lo, hi int) {
		for p := lo; p < hi; p++ {
			Y := childV[sz*p : sz*p+sz : sz*p+sz]
			clear(Y)
			for e := offsets[p]; e < offsets[p+1]; e++ {
				k := frames[e]
				d := parentV[ds*k : ds*k+ds : ds*k+ds]
				g := bg[e*c : (e+1)*c]
				G := bG[e*nb*c : (e+1)*nb*c]
				for r := 0; r < 3; r++ {
					// Row r: tᵣ ĝ + Σⱼ Aᵣⱼ Ĝⱼ, summed over contiguous rows of
					// Ĝ (the same order of additions per entry as a dot
					// product over j).
					var acc [12]float64
					ar := acc[:c]
					tr := d[r]
					for col, gv := range g {
						ar[col] = tr * gv
					}
					for j, a := range d[3+nb*r : 3+nb*r+nb] {
						Gj := G[c*j : c*j+c]
						for col, gv := range Gj {
							ar[col] += a * gv
						}
					}
					for col, v := range ar {
						Y[idx[c*r+col]] += v
					}
				}
			}
		}
	})
}

// blockJT accumulates parentF += Jᵀ childF for the J of blockJ.
func blockJT(loop *chunkedLoop, offsets, frames []int, nb int, lay childLayout, bG, bg []float64, parentF, childF []float64) {
	c, sz := lay.c, lay.size()
	idx := lay.idx
	ds := 3 + 3*nb
	loop.accumulate(len(offsets)-1, len(parentF), parentF, func(acc []float64, lo, hi int) {
		var P [36]float64 // the child force as the 3×c matrix
		for p := lo; p < hi; p++ {
			f := childF[sz*p : sz*p+sz : sz*p+sz]
			for i, j := range idx {
				P[i] = f[j]
			}
			for e := offsets[p]; e < offsets[p+1]; e++ {
				k := frames[e]
				d := acc[ds*k : ds*k+ds : ds*k+ds]
				g := bg[e*c : (e+1)*c]
				G := bG[e*nb*c : (e+1)*nb*c]
				for r := 0; r < 3; r++ {
					Pr := P[c*r : c*r+c]
					s := 0.0
					for col, pv := range Pr {
						s += pv * g[col]
					}
					d[r] += s
					for j := 0; j < nb; j++ {
						Gj := G[c*j : c*j+c]
						s := 0.0
						for col, pv := range Pr {
							s += pv * Gj[col]
						}
						d[3+nb*r+j] += s
					}
				}
			}
		}
	})
}

// blockEntries writes the J of blockJ as sparse entries (every entry the
// structure holds, zeros included): row sz·p + idx[c·r + col], column
// ds·k + r (ĝ) and ds·k + 3 + nb·r + j (Ĝ).
func blockEntries(acc graph.MatrixAccumulator, offsets, frames []int, nb int, lay childLayout, bG, bg []float64) {
	c, sz := lay.c, lay.size()
	ds := 3 + 3*nb
	for p := 0; p+1 < len(offsets); p++ {
		for e := offsets[p]; e < offsets[p+1]; e++ {
			k := frames[e]
			g := bg[e*c : (e+1)*c]
			G := bG[e*nb*c : (e+1)*nb*c]
			for r := 0; r < 3; r++ {
				for col := 0; col < c; col++ {
					row := sz*p + lay.idx[c*r+col]
					acc.Add(row, ds*k+r, g[col])
					for j := 0; j < nb; j++ {
						acc.Add(row, ds*k+3+nb*r+j, G[c*j+col])
					}
				}
			}
		}
	}
}

// applyJTBlocks is ApplyJT of the general path.
func (m *LinearBlendSkinningMapping) applyJTBlocks(parentF, childF []float64) {
	bs := &m.blocks
	nb, c, sz := bs.nb, bs.lay.c, bs.lay.size()
	w := &m.weights
	idx := bs.lay.idx
	rigid := bs.kind == rigidFrames
	ds := 3 + 3*nb
	if rigid {
		ds = 6
	}
	if !rigid {
		blockJT(&m.loop, w.Offsets, w.Frames, nb, bs.lay, bs.bG, bs.bg, parentF, childF)
		return
	}
	m.loop.accumulate(w.NumPoints(), len(parentF), parentF, func(acc []float64, lo, hi int) {
		var P [36]float64 // the child force as the 3×c matrix
		for p := lo; p < hi; p++ {
			f := childF[sz*p : sz*p+sz : sz*p+sz]
			for i, j := range idx {
				P[i] = f[j]
			}
			for e := w.Offsets[p]; e < w.Offsets[p+1]; e++ {
				k := w.Frames[e]
				d := acc[ds*k : ds*k+ds : ds*k+ds]
				g := bs.bg[e*c : (e+1)*c]
				for r := 0; r < 3; r++ {
					s := 0.0
					for col := 0; col < c; col++ {
						s += P[c*r+col] * g[col]
					}
					d[r] += s
				}
				H := bs.bH[e*3*c : (e+1)*3*c]
				for col := 0; col < c; col++ {
					h0, h1, h2 := H[col], H[c+col], H[2*c+col]
					p0, p1, p2 := P[col], P[c+col], P[2*c+col]
					d[3] += h1*p2 - h2*p1
					d[4] += h2*p0 - h0*p2
					d[5] += h0*p1 - h1*p0
				}
			}
		}
	})
}

// applyDJTBlocks is ApplyDJT of the general path (rigid frames only).
func (m *LinearBlendSkinningMapping) applyDJTBlocks(parentDf, parentDx, childF []float64, kFactor float64) {
	bs := &m.blocks
	c, sz := bs.lay.c, bs.lay.size()
	w := &m.weights
	idx := bs.lay.idx
	m.loop.accumulate(w.NumPoints(), len(parentDf), parentDf, func(acc []float64, lo, hi int) {
		var P [36]float64
		for p := lo; p < hi; p++ {
			f := childF[sz*p : sz*p+sz : sz*p+sz]
			for i, j := range idx {
				P[i] = f[j]
			}
			for e := w.Offsets[p]; e < w.Offsets[p+1]; e++ {
				k := w.Frames[e]
				t0, t1, t2 := parentDx[6*k+3], parentDx[6*k+4], parentDx[6*k+5]
				H := bs.bH[e*3*c : (e+1)*3*c]
				var s0, s1, s2, b float64
				for col := 0; col < c; col++ {
					h0, h1, h2 := H[col], H[c+col], H[2*c+col]
					p0, p1, p2 := P[col], P[c+col], P[2*c+col]
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

// deformBlocks is Deform of the general path: x = Σ w (A b + t) and
// F = Σ A (w D + b ∇wᵀ) + t ∇wᵀ at the frames of the last Apply.
func (m *LinearBlendSkinningMapping) deformBlocks(X geom.Vec3, frames []int, weights []float64, grads []geom.Vec3) (x geom.Vec3, F geom.Mat3) {
	bs := &m.blocks
	nb := bs.nb
	for i, k := range frames {
		Xh := m.restInv[k].MulVec(X.Sub(m.restT[k]))
		b, D, _ := basisAt(bs.kind, m.restInv[k], Xh)
		A := bs.curL[3*nb*k : 3*nb*(k+1)]
		t := m.curT[k]
		w := weights[i]
		var dw geom.Vec3
		if grads != nil {
			dw = grads[i]
		}
		for r := 0; r < 3; r++ {
			xr := t[r]
			for j := 0; j < nb; j++ {
				xr += A[nb*r+j] * b[j]
			}
			x[r] += w * xr
			for c := 0; c < 3; c++ {
				s := 0.0
				for j := 0; j < nb; j++ {
					s += A[nb*r+j] * D[3*j+c]
				}
				F[3*r+c] += w*s + xr*dw[c]
			}
		}
	}
	return x, F
}
