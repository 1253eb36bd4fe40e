package reduced

import (
	"math"
	"math/rand/v2"
	"testing"
)

// randomModel builds a model on a small bar with a random basis and two
// material groups (the halves z < 0.5 and z ≥ 0.5) with per-element
// weights.
func randomModel(t testing.TB, r int) (*Model, Mesh, *Basis, []int, []float64) {
	t.Helper()
	mesh := kuhnBar(2, 2, 6, 0.2, 0.2, 0.6)
	U := randomBasis(mesh, r, 0.05, 3)
	group := make([]int, len(mesh.Tets))
	weight := make([]float64, len(mesh.Tets))
	for e, tet := range mesh.Tets {
		z := 0.0
		for _, v := range tet {
			z += mesh.Points[3*v+2] / 4
		}
		if z >= 0.3 {
			group[e] = 1
		}
		weight[e] = 1 + 0.5*math.Sin(float64(e))
	}
	poly, err := Precompute(mesh, U, PrecomputeOptions{Group: group, Weight: weight})
	if err != nil {
		t.Fatal(err)
	}
	md, err := NewModel(poly, []float64{3e6, 1e6}, []float64{4e5, 2e5})
	if err != nil {
		t.Fatal(err)
	}
	return md, mesh, U, group, weight
}

// TestModelDerivatives checks R = ∂W/∂q and K = ∂R/∂q by central
// differences at random q (|q| ≤ 0.5) with h = 1e-5: the truncation error
// h²/6·∂³ is ~1e-10 relative, rounding ε·|W|/(h·|R|) ~1e-11, so 1e-7 is a
// 1000× margin that still catches any wrong coefficient.
func TestModelDerivatives(t *testing.T) {
	md, _, _, _, _ := randomModel(t, 7)
	r := md.R
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 3; trial++ {
		q := make([]float64, r)
		for i := range q {
			q[i] = 0.5 * (2*rng.Float64() - 1)
		}
		R, K := make([]float64, r), make([]float64, r*r)
		md.Evaluate(q, R, K)
		const h = 1e-5
		var eR, eK, sR, sK float64
		for i := 0; i < r; i++ {
			qp, qm := append([]float64(nil), q...), append([]float64(nil), q...)
			qp[i] += h
			qm[i] -= h
			fd := (md.Energy(qp) - md.Energy(qm)) / (2 * h)
			eR = math.Max(eR, math.Abs(fd-R[i]))
			sR = math.Max(sR, math.Abs(R[i]))
			Rp, Rm := make([]float64, r), make([]float64, r)
			md.Evaluate(qp, Rp, nil)
			md.Evaluate(qm, Rm, nil)
			for j := 0; j < r; j++ {
				d := (Rp[j] - Rm[j]) / (2 * h)
				eK = math.Max(eK, math.Abs(d-K[j*r+i]))
				sK = math.Max(sK, math.Abs(K[j*r+i]))
			}
		}
		t.Logf("trial %d: R vs dW/dq %.2g, K vs dR/dq %.2g (relative)", trial, eR/sR, eK/sK)
		if eR/sR > 1e-7 || eK/sK > 1e-7 {
			t.Errorf("trial %d: derivatives disagree with finite differences", trial)
		}
		for i := 0; i < r; i++ {
			for j := 0; j < i; j++ {
				if K[i*r+j] != K[j*r+i] {
					t.Fatalf("K is not symmetric at (%d, %d)", i, j)
				}
			}
		}
	}
}

// TestModelMatchesDirectProjection compares R(q), K(q)·p and W(q) with
// the unreduced StVK of the same mesh evaluated directly element by element
// at u = U q and projected, Uᵀ f_int(Uq) (eq. 6, 8), for two material
// groups with per-element weights: an independent computation from the
// element energy V·w·(μ E:E + λ/2 (tr E)²). Tolerance 1e-11 relative.
func TestModelMatchesDirectProjection(t *testing.T) {
	md, mesh, U, group, weight := randomModel(t, 5)
	r := md.R
	els, _ := mesh.Elements()
	lam, mu := []float64{3e6, 1e6}, []float64{4e5, 2e5}
	rng := rand.New(rand.NewPCG(8, 9))
	q := make([]float64, r)
	for i := range q {
		q[i] = 2*rng.Float64() - 1
	}
	n3 := len(mesh.Points)
	u := make([]float64, n3)
	for row := 0; row < n3; row++ {
		for j := 0; j < r; j++ {
			u[row] += U.U[row*r+j] * q[j]
		}
	}
	// Full internal force f_int = +∂W/∂u and energy, element by element.
	fint := make([]float64, n3)
	W := 0.0
	for e, el := range els {
		var H [3][3]float64 // ∂u/∂X
		for a, v := range mesh.Tets[e] {
			for k := 0; k < 3; k++ {
				for l := 0; l < 3; l++ {
					H[k][l] += u[3*v+k] * el.Grad[a][l]
				}
			}
		}
		var F, E, S, P [3][3]float64
		for k := 0; k < 3; k++ {
			for l := 0; l < 3; l++ {
				F[k][l] = H[k][l]
				if k == l {
					F[k][l]++
				}
			}
		}
		tr := 0.0
		for k := 0; k < 3; k++ {
			for l := 0; l < 3; l++ {
				c := 0.0
				for m := 0; m < 3; m++ {
					c += F[m][k] * F[m][l]
				}
				E[k][l] = 0.5 * c
				if k == l {
					E[k][l] -= 0.5
				}
			}
			tr += E[k][k]
		}
		g := group[e]
		vw := el.Volume * weight[e]
		ee := 0.0
		for k := 0; k < 3; k++ {
			for l := 0; l < 3; l++ {
				S[k][l] = 2 * mu[g] * E[k][l]
				if k == l {
					S[k][l] += lam[g] * tr
				}
				ee += E[k][l] * E[k][l]
			}
		}
		W += vw * (mu[g]*ee + 0.5*lam[g]*tr*tr)
		for k := 0; k < 3; k++ {
			for l := 0; l < 3; l++ {
				for m := 0; m < 3; m++ {
					P[k][l] += F[k][m] * S[m][l]
				}
			}
		}
		for a, v := range mesh.Tets[e] {
			for k := 0; k < 3; k++ {
				for l := 0; l < 3; l++ {
					fint[3*v+k] += vw * P[k][l] * el.Grad[a][l]
				}
			}
		}
	}
	want := make([]float64, r)
	for row := 0; row < n3; row++ {
		for j := 0; j < r; j++ {
			want[j] += U.U[row*r+j] * fint[row]
		}
	}
	R := make([]float64, r)
	md.Evaluate(q, R, nil)
	eR := relMax(R, want)
	eW := math.Abs(md.Energy(q)-W) / W
	t.Logf("R vs Uᵀf_int(Uq): %.2g, W: %.2g (relative)", eR, eW)
	if eR > 1e-11 || eW > 1e-11 {
		t.Errorf("reduced model differs from the direct projection")
	}
}

// TestSetLameIsExact: changing a group's Lamé parameters at run time gives
// the model precomputed with them (Sec. 6.5), to rounding.
func TestSetLameIsExact(t *testing.T) {
	md, mesh, U, group, weight := randomModel(t, 6)
	if err := md.SetLame(1, 5e6, 7e5); err != nil {
		t.Fatal(err)
	}
	poly, err := Precompute(mesh, U, PrecomputeOptions{Group: group, Weight: weight})
	if err != nil {
		t.Fatal(err)
	}
	ref, _ := NewModel(poly, []float64{3e6, 5e6}, []float64{4e5, 7e5})
	r := md.R
	q := make([]float64, r)
	for i := range q {
		q[i] = 0.3 * float64(i%3-1)
	}
	R1, K1, R2, K2 := make([]float64, r), make([]float64, r*r), make([]float64, r), make([]float64, r*r)
	md.Evaluate(q, R1, K1)
	ref.Evaluate(q, R2, K2)
	if e := math.Max(relMax(R1, R2), relMax(K1, K2)); e > 1e-14 {
		t.Errorf("SetLame differs from a fresh model by %.2g", e)
	}
	if err := md.SetLame(2, 1, 1); err == nil {
		t.Error("SetLame of a group out of range: no error")
	}
	if err := md.SetLame(0, 1, -1); err == nil {
		t.Error("SetLame with μ < 0: no error")
	}
}

// TestPrecomputeIndependentOfWorkers: the polynomials are bitwise the same
// for 1, 2 and 5 workers (fixed element ranges summed in order).
func TestPrecomputeIndependentOfWorkers(t *testing.T) {
	mesh := kuhnBar(3, 3, 8, 0.3, 0.3, 0.8)
	U := randomBasis(mesh, 4, 0.1, 11)
	var ref *Polynomials
	for _, w := range []int{1, 2, 5} {
		p, err := Precompute(mesh, U, PrecomputeOptions{Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		if ref == nil {
			ref = p
			continue
		}
		for i := range p.Mu[0] {
			if p.Mu[0][i] != ref.Mu[0][i] || p.Lambda[0][i] != ref.Lambda[0][i] {
				t.Fatalf("workers = %d: entry %d differs", w, i)
			}
		}
	}
}

// TestPrecomputeErrors: bad inputs are errors, not panics.
func TestPrecomputeErrors(t *testing.T) {
	mesh := kuhnBar(1, 1, 2, 1, 1, 2)
	U := randomBasis(mesh, 2, 1, 1)
	bad := []struct {
		name string
		run  func() error
	}{
		{"basis rows", func() error {
			_, err := Precompute(mesh, &Basis{R: 2, U: U.U[:len(U.U)-2]}, PrecomputeOptions{})
			return err
		}},
		{"group count", func() error {
			_, err := Precompute(mesh, U, PrecomputeOptions{Group: []int{0}})
			return err
		}},
		{"negative group", func() error {
			g := make([]int, len(mesh.Tets))
			g[0] = -1
			_, err := Precompute(mesh, U, PrecomputeOptions{Group: g})
			return err
		}},
		{"NaN weight", func() error {
			w := make([]float64, len(mesh.Tets))
			w[1] = math.NaN()
			_, err := Precompute(mesh, U, PrecomputeOptions{Weight: w})
			return err
		}},
		{"inverted tetrahedron", func() error {
			m := Mesh{Points: mesh.Points, Tets: append([][4]int(nil), mesh.Tets...)}
			m.Tets[0][1], m.Tets[0][2] = m.Tets[0][2], m.Tets[0][1]
			_, err := Precompute(m, U, PrecomputeOptions{})
			return err
		}},
		{"zero basis vector", func() error {
			z := &Basis{R: 2, U: make([]float64, len(U.U))}
			_, err := Precompute(mesh, z, PrecomputeOptions{})
			return err
		}},
	}
	for _, c := range bad {
		if err := c.run(); err == nil {
			t.Errorf("%s: no error", c.name)
		} else {
			t.Logf("%s: %v", c.name, err)
		}
	}
}

// TestPackedIndices checks Pair and Triple against enumeration order.
func TestPackedIndices(t *testing.T) {
	for _, r := range []int{1, 4, 9} {
		k := 0
		for i := 0; i < r; i++ {
			for j := i; j < r; j++ {
				if Pair(r, i, j) != k {
					t.Fatalf("Pair(%d, %d, %d) = %d, want %d", r, i, j, Pair(r, i, j), k)
				}
				k++
			}
		}
		k = 0
		for i := 0; i < r; i++ {
			for j := i; j < r; j++ {
				for l := j; l < r; l++ {
					if Triple(r, i, j, l) != k {
						t.Fatalf("Triple(%d, %d, %d, %d) = %d, want %d", r, i, j, l, Triple(r, i, j, l), k)
					}
					k++
				}
			}
		}
		if k != NumTriples(r) {
			t.Fatalf("NumTriples(%d) = %d, enumerated %d", r, NumTriples(r), k)
		}
	}
}
