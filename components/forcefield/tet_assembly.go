package forcefield

import (
	"fmt"
	"math"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/material"
)

// This file gives the tetrahedral force fields (through tetSolid, which
// both embed) what direct solvers, preconditioners and modal analysis
// need beyond matrix-free products: the assembled tangent, as 3×3 blocks
// (graph.StiffnessBlockAssembler) or scalar entries
// (graph.StiffnessAssembler), per-point rotations for warping
// preconditioners (graph.PointRotations), and the second derivative of
// the force at rest (modal derivatives, Barbič & James 2005 eq. 14–15).

var (
	_ graph.StiffnessAssembler      = (*TetrahedronFEMForceField)(nil)
	_ graph.StiffnessAssembler      = (*TetrahedronHyperelasticityFEMForceField)(nil)
	_ graph.StiffnessBlockAssembler = (*TetrahedronFEMForceField)(nil)
	_ graph.StiffnessBlockAssembler = (*TetrahedronHyperelasticityFEMForceField)(nil)
	_ graph.StiffnessBlockAdder     = (*TetrahedronFEMForceField)(nil)
	_ graph.StiffnessBlockAdder     = (*TetrahedronHyperelasticityFEMForceField)(nil)
	_ graph.PointRotations          = (*TetrahedronFEMForceField)(nil)
	_ graph.PointRotations          = (*TetrahedronHyperelasticityFEMForceField)(nil)
)

// linearise makes sure the per-element cache holds a linearisation (at
// the state's current position when AddForce was never called).
func (s *tetSolid) linearise() {
	if !s.linearised && s.stride > 0 {
		s.argX = s.state.Vec(graph.Position)
		s.asm.elements(s.forceBody)
		s.argX = nil
		s.linearised = true
	}
}

// elementMatrix writes into out (144 numbers) the sixteen 3×3 blocks of
// the stiffness matrix of element e scaled by kFactor, block (a, b) (row
// corner a, column corner b, in the element's vertex order) at
// out[9(4a+b):], row-major, in closed form: with A = ∂P/∂F the 9×9
// tangent of the law at the cached linearisation (A scratch of 81),
// wₑ the element weight and ∇N the shape gradients,
//
//	K_ab[i][k] = −wₑ Σ_jl ∇N_a[j] A[3i+j][3k+l] ∇N_b[l],
//
// computed for corners 1..3 as Dm⁻¹ A_(i·)(k·) Dm⁻ᵀ (the rows of Dm⁻¹ are
// ∇N₁..∇N₃) and for corner 0 from ∇N₀ = −(∇N₁ + ∇N₂ + ∇N₃) as minus the
// sums of the others.
func (s *tetSolid) elementMatrix(e int, kFactor float64, A, out []float64) {
	st := s.stride
	if s.largeExact != nil {
		s.largeElementMatrix(e, kFactor, out)
		return
	}
	s.tangent(s.cache[st*e:st*e+st], A)
	A = A[:81:81]
	B := (*[9]float64)(s.mesh.dmInv[9*e : 9*e+9])
	sc := -s.weight[e] * kFactor
	o := out[:144:144]
	for i := 0; i < 3; i++ {
		for k := 0; k < 3; k++ {
			// T = Dm⁻¹ A_ik (T[b][l] = Σ_j B[b][j] A[3i+j][3k+l]), then
			// M = T Dm⁻ᵀ: M[b][a] = Σ_l T[b][l] B[a][l].
			a0 := A[9*(3*i)+3*k : 9*(3*i)+3*k+3 : 9*(3*i)+3*k+3]
			a1 := A[9*(3*i+1)+3*k : 9*(3*i+1)+3*k+3 : 9*(3*i+1)+3*k+3]
			a2 := A[9*(3*i+2)+3*k : 9*(3*i+2)+3*k+3 : 9*(3*i+2)+3*k+3]
			var T [9]float64
			for b := 0; b < 3; b++ {
				b0, b1, b2 := B[3*b], B[3*b+1], B[3*b+2]
				T[3*b] = b0*a0[0] + b1*a1[0] + b2*a2[0]
				T[3*b+1] = b0*a0[1] + b1*a1[1] + b2*a2[1]
				T[3*b+2] = b0*a0[2] + b1*a1[2] + b2*a2[2]
			}
			ik := 3*i + k
			var s0 [3]float64 // Σ over b of column a, for corner 0's row
			for b := 0; b < 3; b++ {
				t0, t1, t2 := sc*T[3*b], sc*T[3*b+1], sc*T[3*b+2]
				rowSum := 0.0
				for a := 0; a < 3; a++ {
					v := t0*B[3*a] + t1*B[3*a+1] + t2*B[3*a+2]
					o[9*(4*(b+1)+a+1)+ik] = v
					rowSum += v
					s0[a] += v
				}
				o[9*(4*(b+1))+ik] = -rowSum
			}
			o[9*1+ik] = -s0[0]
			o[9*2+ik] = -s0[1]
			o[9*3+ik] = -s0[2]
			o[ik] = s0[0] + s0[1] + s0[2]
		}
	}
}

// largeElementMatrix is elementMatrix for the exact tangent of method
// "large" (largeLaw). With T = L̂(X) the differential of the stress in the
// element's rotated frame (largeRotatedDStress: dP = R·L̂(RᵀdF)) and Â its
// 9×9 matrix (largeRotatedTangent, in closed form), the block of corners
// a, b = 1..3 is
//
//	K_ab = R K̂_ab Rᵀ,   K̂_ab[p][q] = −wₑ·kFactor Σ_ij ∇N_a[i] Â[3p+i][3q+j] ∇N_b[j]
//
// (the column (b, k) of AddDForce's product with a unit displacement,
// dF = e_k ⊗ ∇N_b, written through Â). The tangent is the Hessian of the
// element's energy, so Â and K are symmetric: only the blocks a ≤ b are
// computed, K_ba = K_abᵀ, and the blocks of corner 0 are minus the sums
// of the others (translations exert no force). About 1,000 operations
// per element, against ~2,000 for the nine AddDForce columns (each a
// full evaluation of L̂, a rotation and the corner forces); equal to them
// to rounding (TestStiffnessBlocksMatchAddDForceColumns).
func (s *tetSolid) largeElementMatrix(e int, kFactor float64, out []float64) {
	cc := s.cache[strideLarge*e : strideLarge*e+strideLarge : strideLarge*e+strideLarge]
	R := (*geom.Mat3)(cc[:9])
	B := (*[9]float64)(s.mesh.dmInv[9*e : 9*e+9])
	var Ah [81]float64
	largeRotatedTangent(&Ah, cc, s.largeExact.mu, s.largeExact.lambda)
	sc := -s.weight[e] * kFactor
	// Y[3p+i][3b'+q] = Σ_j Â[3p+i][3q+j] ∇N_{b'+1}[j].
	var Y [81]float64
	for r := 0; r < 9; r++ {
		a := Ah[9*r : 9*r+9 : 9*r+9]
		y := Y[9*r : 9*r+9 : 9*r+9]
		for b := 0; b < 3; b++ {
			g0, g1, g2 := B[3*b], B[3*b+1], B[3*b+2]
			y[3*b] = a[0]*g0 + a[1]*g1 + a[2]*g2
			y[3*b+1] = a[3]*g0 + a[4]*g1 + a[5]*g2
			y[3*b+2] = a[6]*g0 + a[7]*g1 + a[8]*g2
		}
	}
	o := out[:144:144]
	for a := 0; a < 3; a++ {
		h0, h1, h2 := sc*B[3*a], sc*B[3*a+1], sc*B[3*a+2]
		for b := a; b < 3; b++ {
			// K̂_ab, then M = R K̂_ab and K_ab = M Rᵀ.
			var Kh, M geom.Mat3
			for p := 0; p < 3; p++ {
				y0 := Y[9*(3*p) : 9*(3*p)+9 : 9*(3*p)+9]
				y1 := Y[9*(3*p+1) : 9*(3*p+1)+9 : 9*(3*p+1)+9]
				y2 := Y[9*(3*p+2) : 9*(3*p+2)+9 : 9*(3*p+2)+9]
				Kh[3*p] = h0*y0[3*b] + h1*y1[3*b] + h2*y2[3*b]
				Kh[3*p+1] = h0*y0[3*b+1] + h1*y1[3*b+1] + h2*y2[3*b+1]
				Kh[3*p+2] = h0*y0[3*b+2] + h1*y1[3*b+2] + h2*y2[3*b+2]
			}
			mulTo(&M, R, &Kh)
			ab := o[9*(4*(a+1)+b+1) : 9*(4*(a+1)+b+1)+9 : 9*(4*(a+1)+b+1)+9]
			ba := o[9*(4*(b+1)+a+1) : 9*(4*(b+1)+a+1)+9 : 9*(4*(b+1)+a+1)+9]
			for i := 0; i < 3; i++ {
				m0, m1, m2 := M[3*i], M[3*i+1], M[3*i+2]
				for k := 0; k < 3; k++ {
					v := m0*R[3*k] + m1*R[3*k+1] + m2*R[3*k+2]
					ab[3*i+k] = v
					ba[3*k+i] = v
				}
			}
		}
	}
	// Corner 0: block (0, b) = −Σ_a (a, b) for b = 1..3, (b, 0) its
	// transpose, (0, 0) = −Σ_b (0, b).
	for b := 1; b < 4; b++ {
		b1 := o[9*(4+b) : 9*(4+b)+9 : 9*(4+b)+9]
		b2 := o[9*(8+b) : 9*(8+b)+9 : 9*(8+b)+9]
		b3 := o[9*(12+b) : 9*(12+b)+9 : 9*(12+b)+9]
		r := o[9*b : 9*b+9 : 9*b+9]
		c := o[36*b : 36*b+9 : 36*b+9]
		for i := 0; i < 3; i++ {
			v0 := -(b1[3*i] + b2[3*i] + b3[3*i])
			v1 := -(b1[3*i+1] + b2[3*i+1] + b3[3*i+1])
			v2 := -(b1[3*i+2] + b2[3*i+2] + b3[3*i+2])
			r[3*i], r[3*i+1], r[3*i+2] = v0, v1, v2
			c[i], c[3+i], c[6+i] = v0, v1, v2
		}
	}
	for q := 0; q < 9; q++ {
		o[q] = -(o[9+q] + o[18+q] + o[27+q])
	}
}

// AddKToMatrix implements graph.StiffnessAssembler: m += kFactor·K with
// K = ∂f/∂x the tangent AddDForce applies (the exact or warped one), at
// the x of the most recent AddForce (at the state's current position if
// AddForce was never called), from the closed-form element matrices
// (elementMatrix). Entries go to m in element order, 144 per element,
// block by block: row 3·v_a + i, column 3·v_b + k.
func (s *tetSolid) AddKToMatrix(m graph.MatrixAccumulator, kFactor float64) {
	if s.mesh == nil || kFactor == 0 {
		return
	}
	s.linearise()
	var out [144]float64
	A := s.tscratch[:81]
	for e := 0; e < s.mesh.numElements(); e++ {
		s.elementMatrix(e, kFactor, A, out[:])
		v := s.mesh.vertices(e)
		for a := 0; a < 4; a++ {
			for b := 0; b < 4; b++ {
				blk := out[9*(4*a+b) : 9*(4*a+b)+9]
				for i := 0; i < 3; i++ {
					for k := 0; k < 3; k++ {
						m.Add(3*v[a]+i, 3*v[b]+k, blk[3*i+k])
					}
				}
			}
		}
	}
}

// StiffnessBlocks implements graph.StiffnessBlockAssembler: sixteen
// blocks per element, (v_a, v_b) for corners a, b = 0..3 row-major, in
// element order.
func (s *tetSolid) StiffnessBlocks() []int32 {
	if s.mesh == nil {
		return nil
	}
	if s.blocks == nil {
		idx := s.mesh.idx
		s.blocks = make([]int32, 0, 32*s.mesh.numElements())
		for e := 0; e < s.mesh.numElements(); e++ {
			v := idx[4*e : 4*e+4]
			for a := 0; a < 4; a++ {
				for b := 0; b < 4; b++ {
					s.blocks = append(s.blocks, v[a], v[b])
				}
			}
		}
	}
	return s.blocks
}

// KBlocks implements graph.StiffnessBlockAssembler: the element matrices
// of kFactor·K (elementMatrix), 144 numbers per element, computed in
// parallel (each element writes its own slots, so the result does not
// depend on the number of workers).
func (s *tetSolid) KBlocks(vals []float64, kFactor float64) {
	if s.mesh == nil {
		return
	}
	if kFactor == 0 {
		clear(vals[:144*s.mesh.numElements()])
		return
	}
	s.linearise()
	s.argVals, s.argK = vals[:144*s.mesh.numElements()], kFactor
	s.asm.runner.Run(s.mesh.numElements(), matrixGrain, s.kblocksBody)
	s.argVals = nil
}

// AddKBlocks implements graph.StiffnessBlockAdder: the element matrices of
// kFactor·K (elementMatrix) added block by block at pos, element after
// element on the calling goroutine, for a mesh that KBlocks would not
// split over workers (fewer than 8 grains of elements, or one worker);
// false for a larger one.
func (s *tetSolid) AddKBlocks(dst []float64, pos []int32, kFactor float64) bool {
	if s.mesh == nil {
		return true
	}
	ne := s.mesh.numElements()
	if s.asm.runner.NumWorkers() > 1 && ne >= 8*matrixGrain {
		return false
	}
	if kFactor == 0 {
		return true // KBlocks would write zeros: adding them changes nothing
	}
	s.linearise()
	pos = pos[:16*ne]
	if s.largeExact != nil && useLargeAVX {
		var g largeGroup
		o := g.v[4*largeSlotOut : 4*largeSlotOut+4*144 : 4*largeSlotOut+4*144]
		for e0 := 0; e0 < ne; e0 += 4 {
			n := min(4, ne-e0)
			s.largeBlocksGroup(&g, e0, n, kFactor)
			for l := 0; l < n; l++ {
				pe := pos[16*(e0+l) : 16*(e0+l)+16 : 16*(e0+l)+16]
				for q, p := range pe {
					d := dst[9*int(p) : 9*int(p)+9 : 9*int(p)+9]
					b := o[36*q+l : 36*q+l+33 : 36*q+l+33]
					d[0] += b[0]
					d[1] += b[4]
					d[2] += b[8]
					d[3] += b[12]
					d[4] += b[16]
					d[5] += b[20]
					d[6] += b[24]
					d[7] += b[28]
					d[8] += b[32]
				}
			}
		}
		return true
	}
	var out [144]float64
	A := s.tscratch[:81:81]
	for e := 0; e < ne; e++ {
		s.elementMatrix(e, kFactor, A, out[:])
		pe := pos[16*e : 16*e+16 : 16*e+16]
		for q, p := range pe {
			d := dst[9*int(p) : 9*int(p)+9 : 9*int(p)+9]
			b := out[9*q : 9*q+9 : 9*q+9]
			d[0] += b[0]
			d[1] += b[1]
			d[2] += b[2]
			d[3] += b[3]
			d[4] += b[4]
			d[5] += b[5]
			d[6] += b[6]
			d[7] += b[7]
			d[8] += b[8]
		}
	}
	return true
}

func (s *tetSolid) kblocksRange(lo, hi int) {
	if s.largeExact != nil && useLargeAVX {
		var g largeGroup
		o := g.v[4*largeSlotOut : 4*largeSlotOut+4*144 : 4*largeSlotOut+4*144]
		for e0 := lo; e0 < hi; e0 += 4 {
			n := min(4, hi-e0)
			s.largeBlocksGroup(&g, e0, n, s.argK)
			for l := 0; l < n; l++ {
				out := s.argVals[144*(e0+l) : 144*(e0+l)+144 : 144*(e0+l)+144]
				for j := range out {
					out[j] = o[4*j+l]
				}
			}
		}
		return
	}
	k := 81 * (lo / matrixGrain)
	A := s.tscratch[k : k+81 : k+81]
	for e := lo; e < hi; e++ {
		s.elementMatrix(e, s.argK, A, s.argVals[144*e:144*e+144])
	}
}

// PointRotations implements graph.PointRotations: the rotation of every
// point is the polar factor of the volume-weighted mean deformation
// gradient of its tetrahedra at the state's current position (the
// identity for a point in none), so a rigidly rotated body gives its
// rotation at every point, and a bent one the local rotation of the
// material around each point.
func (s *tetSolid) PointRotations(out []float64) bool {
	if s.mesh == nil || len(out) < 9*s.mesh.numPoints {
		return false
	}
	m := s.mesh
	x := s.state.Vec(graph.Position)
	for v := 0; v < m.numPoints; v++ {
		var sum geom.Mat3
		wsum := 0.0
		for _, slot := range m.incSlot[m.incStart[v]:m.incStart[v+1]] {
			e := int(slot) / 4
			F := m.gradient(e, x)
			w := m.vol[e]
			for i := range sum {
				sum[i] += w * F[i]
			}
			wsum += w
		}
		R := geom.Identity3()
		if wsum > 0 {
			R = geom.PolarRotation(sum)
		}
		copy(out[9*v:9*v+9], R[:])
	}
	return true
}

// hessianStep is the relative step of the central difference that gives
// d²P[A, B] = ∂/∂ε dP(I + εA)[B] for laws other than StVK: the truncation
// error is O(h²)·|A|²·|d⁴Ψ| ~ 1e-8 relative, the rounding error
// O(ε_mach/h) ~ 1e-12.
const hessianStep = 1e-4

// AddHessianContraction adds to df factor·d²f[a, b], the second derivative
// of the elastic force at the rest configuration in the directions a and
// b (full displacement vectors, 3 per point): with K = ∂f/∂x the tangent,
// d²f[a, b] = (∂K/∂x : a)·b, the contraction of the Hessian stiffness
// tensor of Barbič & James 2005 eq. 15 (VegaFEM's H is the derivative of
// its K = −∂f/∂x, so H:a·b = −d²f[a, b]). Element by element, without
// forming H: with A = ∇a and B = ∇b the element displacement gradients,
// the element forces are −wₑ d²P[A, B] ∇Nᵢ, where for StVK at F = I
// (E = 0, S = 0)
//
//	d²P[A, B] = A dS[B] + B dS[A] + d²S[A, B],
//	dS[X] = 2μ sym(X) + λ tr(X) I,   d²S[A, B] = 2μ sym(AᵀB) + λ tr(AᵀB) I
//
// (from P = F S, S = 2μE + λ tr(E) I, dE[X] = sym(FᵀX), d²E[A, B] =
// sym(AᵀB)), exact. For the other laws d²P[A, B] is the central
// difference (dP(I + hA)[B] − dP(I − hA)[B]) / 2h with h = 1e-4/|A|_max,
// accurate to ~1e-8 relative. Safe for concurrent calls with different
// df (it touches no shared buffer); deterministic.
func (s *tetSolid) AddHessianContraction(df, a, b []float64, factor float64) error {
	if s.mesh == nil {
		return fmt.Errorf("force field not initialised")
	}
	n := 3 * s.mesh.numPoints
	if len(df) < n || len(a) < n || len(b) < n {
		return fmt.Errorf("AddHessianContraction: vectors of length %d, %d, %d for %d points", len(df), len(a), len(b), s.mesh.numPoints)
	}
	stvk, _ := s.law.(*material.StVenantKirchhoff)
	mesh := s.mesh
	var out [12]float64
	for e := 0; e < mesh.numElements(); e++ {
		A := mesh.gradient(e, a)
		B := mesh.gradient(e, b)
		var d2P geom.Mat3
		if stvk != nil {
			d2P = stvkSecondStressDifferential(stvk.Lambda, stvk.Mu, &A, &B)
		} else {
			d2P = s.centralSecondDifferential(&A, &B)
		}
		mesh.nodalForces(e, &d2P, -s.weight[e]*factor, out[:])
		v := mesh.vertices(e)
		for c := 0; c < 4; c++ {
			o := df[3*v[c] : 3*v[c]+3 : 3*v[c]+3]
			o[0] += out[3*c]
			o[1] += out[3*c+1]
			o[2] += out[3*c+2]
		}
	}
	return nil
}

// stvkSecondStressDifferential returns d²P[A, B] of StVK at F = I (see
// AddHessianContraction).
func stvkSecondStressDifferential(lambda, mu float64, A, B *geom.Mat3) geom.Mat3 {
	dS := func(X *geom.Mat3) geom.Mat3 {
		tr := lambda * (X[0] + X[4] + X[8])
		var S geom.Mat3
		for i := 0; i < 3; i++ {
			for j := 0; j < 3; j++ {
				S[3*i+j] = mu * (X[3*i+j] + X[3*j+i])
			}
			S[4*i] += tr
		}
		return S
	}
	SA, SB := dS(A), dS(B)
	var AtB geom.Mat3 // AᵀB
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			AtB[3*i+j] = A[i]*B[j] + A[3+i]*B[3+j] + A[6+i]*B[6+j]
		}
	}
	trAtB := lambda * (AtB[0] + AtB[4] + AtB[8])
	var P geom.Mat3
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			var s float64
			for k := 0; k < 3; k++ {
				s += A[3*i+k]*SB[3*k+j] + B[3*i+k]*SA[3*k+j]
			}
			P[3*i+j] = s + mu*(AtB[3*i+j]+AtB[3*j+i])
		}
		P[4*i] += trAtB
	}
	return P
}

// centralSecondDifferential returns (dP(I + hA)[B] − dP(I − hA)[B]) / 2h
// for the force field's law, h = hessianStep / max|Aᵢⱼ|.
func (s *tetSolid) centralSecondDifferential(A, B *geom.Mat3) geom.Mat3 {
	amax := 0.0
	for _, v := range A {
		amax = math.Max(amax, math.Abs(v))
	}
	if amax == 0 {
		return geom.Mat3{}
	}
	h := hessianStep / amax
	var Fp, Fm geom.Mat3
	for i := range Fp {
		Fp[i], Fm[i] = h*A[i], -h*A[i]
	}
	for i := 0; i < 3; i++ {
		Fp[4*i]++
		Fm[4*i]++
	}
	dp := s.law.StressDifferential(Fp, *B)
	dm := s.law.StressDifferential(Fm, *B)
	var P geom.Mat3
	for i := range P {
		P[i] = (dp[i] - dm[i]) / (2 * h)
	}
	return P
}
