package example

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sofago/sofago/geom"
	"gonum.org/v1/gonum/mat"
)

// randomProblem returns N random points of `rows` numbers, positive row
// weights and a random descriptor; with dup, point 2 repeats point 1 (a
// rank-deficient manifold, as local manifolds often are).
func randomProblem(rng *rand.Rand, n, rows int, dup bool) (pts [][]float64, rho, d []float64) {
	pts = make([][]float64, n)
	for j := range pts {
		pts[j] = make([]float64, rows)
		for r := range pts[j] {
			pts[j][r] = 2*rng.Float64() - 1
		}
	}
	if dup && n > 2 {
		copy(pts[2], pts[1])
	}
	rho = make([]float64, rows)
	d = make([]float64, rows)
	for r := range rho {
		rho[r] = 1e-6 * (0.5 + rng.Float64()) // volumes: units must not matter
		d[r] = 2*rng.Float64() - 1
	}
	return
}

// objective returns ‖Σ wⱼ Pⱼ − d‖²_ρ.
func objective(pts [][]float64, rho, d, w []float64) float64 {
	s := 0.0
	for r := range d {
		x := -d[r]
		for j, p := range pts {
			x += w[j] * p[r]
		}
		s += rho[r] * x * x
	}
	return s
}

// kktSolve solves the weighted least-squares problem on the face F (Σ w_F =
// 1, others 0) by gonum's dense solver on the KKT system of the points
// themselves (not the manifold's centred normal matrix): the reference.
func kktSolve(pts [][]float64, rho, d []float64, face []int) ([]float64, bool) {
	f := len(face)
	A := mat.NewDense(f+1, f+1, nil)
	b := mat.NewVecDense(f+1, nil)
	for i, a := range face {
		for j, c := range face {
			s := 0.0
			for r := range d {
				s += rho[r] * pts[a][r] * pts[c][r]
			}
			A.Set(i, j, s)
		}
		s := 0.0
		for r := range d {
			s += rho[r] * pts[a][r] * d[r]
		}
		b.SetVec(i, s)
		A.Set(i, f, 1)
		A.Set(f, i, 1)
	}
	b.SetVec(f, 1)
	var x mat.VecDense
	if err := x.SolveVec(A, b); err != nil {
		return nil, false
	}
	w := make([]float64, len(pts))
	for i, a := range face {
		w[a] = x.AtVec(i)
	}
	return w, true
}

// TestProjectWeighted: the unconstrained projection minimises the weighted
// distance: it matches the KKT solution over all points (gonum), and the
// normal-equation path (ProjectSimplex inside the hull, UnconstrainedDifferential)
// agrees with the pseudo-inverse path.
func TestProjectWeighted(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		n := 2 + rng.IntN(4)
		pts, rho, d := randomProblem(rng, n, 6*(1+rng.IntN(20)), false)
		m, err := NewManifold(pts, rho)
		if err != nil {
			t.Fatal(err)
		}
		w := make([]float64, n)
		m.Project(d, w)
		face := make([]int, n)
		for j := range face {
			face[j] = j
		}
		ref, ok := kktSolve(pts, rho, d, face)
		if !ok {
			t.Fatal("reference KKT singular")
		}
		for j := range w {
			// Random points: L's condition number is O(10); 1e-11 is
			// rounding with margin (the reference squares it).
			if math.Abs(w[j]-ref[j]) > 1e-11 {
				t.Fatalf("trial %d: weights %v, reference %v", trial, w, ref)
			}
		}
		// Normal-equation path: c = WeightedDir·d − base, z = G⁺c.
		c := make([]float64, n-1)
		for j := 1; j < n; j++ {
			c[j-1] = dot(m.WeightedDir(j), d) - m.WeightedDirBase(j)
		}
		z := make([]float64, n)
		m.UnconstrainedDifferential(c, z) // linear: the same map applied to c
		for j := 1; j < n; j++ {
			if math.Abs(z[j]-w[j]) > 1e-10 {
				t.Fatalf("trial %d: G⁺c = %v, L⁺d = %v", trial, z, w)
			}
		}
	}
}

// TestProjectSimplexIsMinimiser: the simplex-constrained projection equals
// the best feasible face solution found by enumerating every face of the
// simplex (2ᴺ − 1 KKT solves by gonum), on random problems inside and
// outside the hull and with a repeated example (singular faces).
func TestProjectSimplexIsMinimiser(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	ws := NewSimplexWork(6)
	outside := 0
	for trial := 0; trial < 2000; trial++ {
		n := 1 + rng.IntN(6)
		pts, rho, d := randomProblem(rng, n, 6*(1+rng.IntN(4)), trial%3 == 0)
		m, err := NewManifold(pts, rho)
		if err != nil {
			t.Fatal(err)
		}
		c := make([]float64, n)
		for j := 1; j < n; j++ {
			c[j-1] = dot(m.WeightedDir(j), d) - m.WeightedDirBase(j)
		}
		w := make([]float64, n)
		free := make([]bool, n)
		m.ProjectSimplex(c, w, free, ws)
		sum := 0.0
		for j, x := range w {
			if x < 0 || (x > 0) != free[j] && x != 0 {
				t.Fatalf("trial %d: weights %v, free %v", trial, w, free)
			}
			sum += x
		}
		if math.Abs(sum-1) > 1e-12 {
			t.Fatalf("trial %d: weights sum to %.17g", trial, sum)
		}
		got := objective(pts, rho, d, w)
		best := math.Inf(1)
		for mask := 1; mask < 1<<n; mask++ {
			var face []int
			for j := 0; j < n; j++ {
				if mask&(1<<j) != 0 {
					face = append(face, j)
				}
			}
			ref, ok := kktSolve(pts, rho, d, face)
			if !ok {
				continue // singular face: its solutions are those of a smaller face
			}
			feasible := true
			for _, x := range ref {
				feasible = feasible && x >= -1e-14
			}
			if feasible {
				best = math.Min(best, objective(pts, rho, d, ref))
			}
		}
		if !free[0] || func() bool {
			for _, f := range free {
				if !f {
					return true
				}
			}
			return false
		}() {
			outside++
		}
		// Objective values are O(1e-6 × rows); 1e-12 relative is rounding.
		if math.IsInf(best, 1) {
			t.Fatalf("trial %d: no feasible face", trial)
		}
		if got > best*(1+1e-12)+1e-300 {
			t.Fatalf("trial %d (N = %d): objective %.17g, best face %.17g (weights %v)", trial, n, got, best, w)
		}
	}
	t.Logf("%d of 2000 problems with an active constraint", outside)
	if outside < 500 {
		t.Fatalf("only %d of 2000 problems had an active constraint: the test does not exercise the active set", outside)
	}
}

// TestSimplexDifferential: the derivative of the projected descriptor
// D(w*(d)) along a random descriptor change matches central differences of
// ProjectSimplex, inside the hull and on its faces.
func TestSimplexDifferential(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	ws := NewSimplexWork(5)
	skipped, onFace := 0, 0
	for trial := 0; trial < 300; trial++ {
		n := 2 + rng.IntN(4)
		rows := 6 * (1 + rng.IntN(4))
		pts, rho, d := randomProblem(rng, n, rows, trial%4 == 0)
		m, _ := NewManifold(pts, rho)
		dd := make([]float64, rows)
		for r := range dd {
			dd[r] = 2*rng.Float64() - 1
		}
		blendAt := func(d []float64) ([]float64, []bool) {
			c := make([]float64, n)
			for j := 1; j < n; j++ {
				c[j-1] = dot(m.WeightedDir(j), d) - m.WeightedDirBase(j)
			}
			w := make([]float64, n)
			free := make([]bool, n)
			m.ProjectSimplex(c, w, free, ws)
			out := make([]float64, rows)
			m.Blend(w, out)
			return out, free
		}
		_, free := blendAt(d)
		const h = 1e-6
		dp, dm := append([]float64(nil), d...), append([]float64(nil), d...)
		for r := range d {
			dp[r] += h * dd[r]
			dm[r] -= h * dd[r]
		}
		bp, fp := blendAt(dp)
		bm, fm := blendAt(dm)
		same := true
		for j := range free {
			same = same && fp[j] == free[j] && fm[j] == free[j]
		}
		if !same {
			skipped++
			continue // a face boundary within h: w* is only continuous there
		}
		for _, f := range free {
			if !f {
				onFace++
				break
			}
		}
		dc := make([]float64, n)
		for j := 1; j < n; j++ {
			dc[j-1] = dot(m.WeightedDir(j), dd)
		}
		dw := make([]float64, n)
		m.SimplexDifferential(dc, dw, free, ws)
		an := make([]float64, rows)
		for j := 1; j < n; j++ {
			for r := range an {
				an[r] += dw[j] * m.Dir(j)[r]
			}
		}
		scale := 0.0
		for r := range an {
			scale = math.Max(scale, math.Abs(bp[r]-bm[r])/(2*h))
		}
		for r := range an {
			fd := (bp[r] - bm[r]) / (2 * h)
			// The blend is piecewise linear in d: central differences are
			// exact up to rounding (1e-16/h = 1e-10).
			if math.Abs(an[r]-fd) > 1e-8*math.Max(scale, 1) {
				t.Fatalf("trial %d: dD %v, FD %v (free %v)", trial, an, fd, free)
			}
		}
	}
	if skipped > 3 || onFace < 50 {
		t.Fatalf("%d trials skipped at face boundaries, %d checked on a face: the test does not exercise what it should", skipped, onFace)
	}
	t.Logf("%d trials on a face of the simplex, %d skipped", onFace, skipped)
}

// TestGreenStrainDescriptor: PutGreenStrain is ½(FᵀF − I) in descriptor
// form (norm = Frobenius norm), Tensor inverts PutDescriptor, and
// PutGreenStrainDifferential matches central differences.
func TestGreenStrainDescriptor(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := 0; trial < 100; trial++ {
		var F, dF geom.Mat3
		for i := range F {
			F[i] = 2*rng.Float64() - 1
			dF[i] = 2*rng.Float64() - 1
		}
		E := F.TMul(F).Sub(geom.Identity3()).Scale(0.5)
		d := make([]float64, DescSize)
		PutGreenStrain(d, &F)
		back := Tensor(d)
		n2 := 0.0
		for _, x := range d {
			n2 += x * x
		}
		if math.Abs(n2-E.DDot(E)) > 1e-14*(1+n2) {
			t.Fatalf("‖d‖² = %g, ‖E‖²_F = %g", n2, E.DDot(E))
		}
		for i := range back {
			if math.Abs(back[i]-E[i]) > 1e-15*4 {
				t.Fatalf("Tensor(PutGreenStrain(F)) = %v, E = %v", back, E)
			}
		}
		const h = 1e-6
		dp, dm := make([]float64, DescSize), make([]float64, DescSize)
		Fp, Fm := F.Add(dF.Scale(h)), F.Sub(dF.Scale(h))
		PutGreenStrain(dp, &Fp)
		PutGreenStrain(dm, &Fm)
		dd := make([]float64, DescSize)
		PutGreenStrainDifferential(dd, &F, &dF)
		for i := range dd {
			// E is quadratic in F: central differences are exact up to
			// rounding (1e-16/h).
			if fd := (dp[i] - dm[i]) / (2 * h); math.Abs(fd-dd[i]) > 1e-9 {
				t.Fatalf("dE %v, FD at %d = %g", dd, i, fd)
			}
		}
	}
}

// TestGroupSpec: boxes (last wins), indices, items outside every box
// allowed only with AllowNone, empty groups refused.
func TestGroupSpec(t *testing.T) {
	pts := []geom.Vec3{{0, 0, 0}, {1, 0, 0}, {2, 0, 0}}
	at := func(i int) geom.Vec3 { return pts[i] }
	of, ng, err := GroupSpec{Boxes: [][]float64{{-1, -1, -1, 1.5, 1, 1}, {0.5, -1, -1, 1.5, 1, 1}}, AllowNone: true, Item: "element"}.Assign(3, at)
	if err != nil || ng != 2 || of[0] != 0 || of[1] != 1 || of[2] != -1 {
		t.Fatalf("boxes: %v %d %v", of, ng, err)
	}
	if _, _, err := (GroupSpec{Boxes: [][]float64{{-1, -1, -1, 1.5, 1, 1}}, Item: "particle"}).Assign(3, at); err == nil {
		t.Error("a particle outside every box was accepted without AllowNone")
	}
	if _, _, err := (GroupSpec{Indices: []int{0, 2, 2}, Item: "element"}).Assign(3, at); err == nil {
		t.Error("an empty group 1 was accepted")
	}
	if _, _, err := (GroupSpec{Indices: []int{0, -1, 0}, Item: "element"}).Assign(3, at); err == nil {
		t.Error("index −1 was accepted without AllowNone")
	}
}
