package forcefield

import (
	"fmt"
	"math"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/material"
)

// This file gives the tetrahedral force fields (through tetSolid, which
// both embed) what direct solvers and modal analysis need beyond
// matrix-free products: the assembled tangent (graph.StiffnessAssembler)
// and the second derivative of the force at rest (modal derivatives,
// Barbič & James 2005 eq. 14–15).

var (
	_ graph.StiffnessAssembler = (*TetrahedronFEMForceField)(nil)
	_ graph.StiffnessAssembler = (*TetrahedronHyperelasticityFEMForceField)(nil)
)

// AddKToMatrix implements graph.StiffnessAssembler: m += kFactor·K with
// K = ∂f/∂x the tangent AddDForce applies (the exact or warped one), at
// the x of the most recent AddForce (at the state's current position if
// AddForce was never called). Element by element: column (a, c) of the
// 12×12 element block is the force differential of dF = e_c ⊗ ∇N_a (a
// unit displacement of corner a along axis c), −wₑ dP[dF] ∇N_b for the
// rows of corners b. Entries go to m in element order, 144 per element,
// row 3·v_b + r, column 3·v_a + c.
func (s *tetSolid) AddKToMatrix(m graph.MatrixAccumulator, kFactor float64) {
	if s.mesh == nil || kFactor == 0 {
		return
	}
	if !s.linearised && s.stride > 0 {
		s.argX = s.state.Vec(graph.Position)
		s.asm.elements(s.forceBody)
		s.argX = nil
		s.linearised = true
	}
	mesh, st := s.mesh, s.stride
	var dF, dP [9]float64
	var col [12]float64
	for e := 0; e < mesh.numElements(); e++ {
		g := mesh.shapeGradients(e)
		v := mesh.vertices(e)
		cache := s.cache[st*e : st*e+st]
		scale := -s.weight[e] * kFactor
		for a := 0; a < 4; a++ {
			for c := 0; c < 3; c++ {
				dF = [9]float64{}
				dF[3*c], dF[3*c+1], dF[3*c+2] = g[a][0], g[a][1], g[a][2]
				s.diff(dF[:], dP[:], cache)
				mesh.nodalForces(e, (*geom.Mat3)(&dP), scale, col[:])
				j := 3*v[a] + c
				for b := 0; b < 4; b++ {
					m.Add(3*v[b], j, col[3*b])
					m.Add(3*v[b]+1, j, col[3*b+1])
					m.Add(3*v[b]+2, j, col[3*b+2])
				}
			}
		}
	}
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
