package modal_test

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/sofago/sofago/modal"
	"github.com/sofago/sofago/sparse"
)

// TestMassPCAMatchesCholeskySVD compares MassPCA with the literal recipe of
// Barbič & James appendix A: M = LLᵀ (sparse Cholesky), Z = LᵀX, thin SVD
// (gonum), U = L⁻ᵀV. Singular values to 1e-12 relative, vectors up to
// sign to 1e-9 of their largest entry (the test's vectors have singular
// values separated by ≥ 10%, so the singular vectors are well
// conditioned). Also UᵀMU = I to 1e-12.
func TestMassPCAMatchesCholeskySVD(t *testing.T) {
	sys := barSystem(t, "MeshMatrixMass", false)
	M := sys.M
	n := M.Rows
	rng := rand.New(rand.NewPCG(3, 4))
	const nv, r = 9, 5
	vecs := make([][]float64, nv)
	for j := range vecs {
		v := make([]float64, n)
		for i := range v {
			v[i] = (rng.Float64()*2 - 1) * math.Pow(0.6, float64(j))
		}
		vecs[j] = v
	}
	U, sigma, err := modal.MassPCA(vecs, M, r)
	if err != nil {
		t.Fatal(err)
	}
	chol, err := sparse.Factorize(M)
	if err != nil {
		t.Fatal(err)
	}
	Z := mat.NewDense(n, nv, nil)
	z := make([]float64, n)
	for j, v := range vecs {
		chol.MulLT(z, v)
		Z.SetCol(j, z)
	}
	var svd mat.SVD
	if !svd.Factorize(Z, mat.SVDThin) {
		t.Fatal("svd")
	}
	sv := svd.Values(nil)
	var V mat.Dense
	svd.UTo(&V)
	for j := 0; j < nv; j++ {
		if math.Abs(sigma[j]-sv[j]) > 1e-12*sv[0] {
			t.Errorf("σ%d = %.17g, Cholesky+SVD %.17g", j, sigma[j], sv[j])
		}
	}
	for j := 0; j < r; j++ {
		mat.Col(z, j, &V)
		u := make([]float64, n)
		chol.SolveLT(u, z)
		if d, _ := relMaxDiff(U[j], u); d > 1e-9 {
			t.Errorf("vector %d differs by %.3g", j, d)
		}
	}
	checkMassOrthonormal(t, M, U, 1e-12)
}

func checkMassOrthonormal(t *testing.T, M *sparse.CSR, U [][]float64, tol float64) {
	t.Helper()
	mu := make([]float64, M.Rows)
	for i := range U {
		M.MulVec(mu, U[i])
		for j := range U {
			d := 0.0
			for q := range mu {
				d += mu[q] * U[j][q]
			}
			want := 0.0
			if i == j {
				want = 1
			}
			if math.Abs(d-want) > tol {
				t.Errorf("u%dᵀMu%d = %.3g, want %g", i, j, d, want)
			}
		}
	}
}

// TestMassPCARankDeficient: vectors spanning 3 dimensions (some repeated,
// some combinations) give 3 nonzero singular values and a basis that
// reproduces every vector exactly; asking for 4 is an error.
func TestMassPCARankDeficient(t *testing.T) {
	sys := barSystem(t, "DiagonalMass", false)
	n := sys.M.Rows
	rng := rand.New(rand.NewPCG(5, 6))
	base := make([][]float64, 3)
	for j := range base {
		base[j] = make([]float64, n)
		for i := range base[j] {
			base[j][i] = rng.Float64() - 0.5
		}
	}
	comb := func(a, b, c float64) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = a*base[0][i] + b*base[1][i] + c*base[2][i]
		}
		return v
	}
	vecs := [][]float64{base[0], comb(1, 2, 0), base[1], comb(0, 0, 3), base[0], comb(-1, 1, 1)}
	U, sigma, err := modal.MassPCA(vecs, sys.M, 3)
	if err != nil {
		t.Fatal(err)
	}
	if sigma[3] > 1e-13*sigma[0] {
		t.Errorf("singular values %v: want 3 nonzero", sigma)
	}
	checkMassOrthonormal(t, sys.M, U, 1e-12)
	mu := make([]float64, n)
	for j, v := range vecs {
		// Residual of the M-orthogonal projection on U.
		res := append([]float64(nil), v...)
		for _, u := range U {
			sys.M.MulVec(mu, u)
			c := 0.0
			for q := range mu {
				c += mu[q] * v[q]
			}
			for q := range res {
				res[q] -= c * u[q]
			}
		}
		d, m := 0.0, 0.0
		for q := range res {
			d = math.Max(d, math.Abs(res[q]))
			m = math.Max(m, math.Abs(v[q]))
		}
		if d > 1e-12*m {
			t.Errorf("vector %d not in the span: residual %.3g", j, d/m)
		}
	}
	if _, _, err := modal.MassPCA(vecs, sys.M, 4); err == nil {
		t.Error("r above the rank accepted")
	}
}

// TestModalDerivativeBasis builds the r = 15 basis from 6 modes on the
// Vega bar (the paper's spoon setting): mass-orthonormal, zero at the
// fixed DOFs, and with r = 27 (everything) it spans every mode and
// derivative exactly.
func TestModalDerivativeBasis(t *testing.T) {
	s := vegaBarScene(t, "MeshMatrixMass", false)
	var stages []string
	b, sys, err := modal.BuildModalDerivativeBasis(s.Root, modal.BasisOptions{Modes: 6, Size: 15,
		Progress: func(stage string, done, total int) {
			if len(stages) == 0 || stages[len(stages)-1] != stage {
				stages = append(stages, stage)
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if b.Rows != 297 || b.Cols != 15 || len(b.U) != 297*15 || len(b.SingularValues) != 27 {
		t.Fatalf("basis %d×%d (%d numbers), %d singular values", b.Rows, b.Cols, len(b.U), len(b.SingularValues))
	}
	if strings.Join(stages, ",") != "assemble,modes,derivatives,pca" {
		t.Errorf("progress stages %v", stages)
	}
	cols := make([][]float64, b.Cols)
	for j := range cols {
		cols[j] = make([]float64, len(sys.Free))
		sys.Restrict(cols[j], b.Column(j))
		for i := 0; i < 27; i++ {
			if b.Column(j)[i] != 0 {
				t.Fatalf("column %d nonzero at fixed DOF %d", j, i)
			}
		}
	}
	checkMassOrthonormal(t, sys.M, cols, 1e-12)
	t.Logf("singular values: %.3g", b.SingularValues)

	full, sys2, err := modal.BuildModalDerivativeBasis(s.Root, modal.BasisOptions{Modes: 6})
	if err != nil {
		t.Fatal(err)
	}
	if full.Cols != 27 {
		t.Fatalf("default size %d, want 27", full.Cols)
	}
	modes, err := modal.LinearModes(sys2, 6, modal.DefaultEigenOptions())
	if err != nil {
		t.Fatal(err)
	}
	phi, err := modal.ModalDerivatives(sys2, modes, modal.DerivativeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	all := append(append([][]float64(nil), modes.Vectors...), phi...)
	for j, v := range all {
		if r := projectionResidual(sys2, full, v); r > 1e-10 {
			t.Errorf("vector %d: outside the full basis by %.3g", j, r)
		}
	}
}

// projectionResidual returns |v − UUᵀMv|_∞ / |v|_∞ for a full vector v.
func projectionResidual(sys *modal.System, b *modal.Basis, v []float64) float64 {
	nf := len(sys.Free)
	vf := make([]float64, nf)
	sys.Restrict(vf, v)
	mv := make([]float64, nf)
	sys.M.MulVec(mv, vf)
	res := append([]float64(nil), vf...)
	u := make([]float64, nf)
	for j := 0; j < b.Cols; j++ {
		sys.Restrict(u, b.Column(j))
		c := 0.0
		for q := range u {
			c += u[q] * mv[q]
		}
		for q := range res {
			res[q] -= c * u[q]
		}
	}
	d, m := 0.0, 0.0
	for q := range res {
		d = math.Max(d, math.Abs(res[q]))
		m = math.Max(m, math.Abs(vf[q]))
	}
	return d / m
}

// TestBasisFileRoundTrip writes and reads a basis in every format
// (bit-exact), reads VegaFEM's reduced.json layout, and rejects malformed
// files with a message naming the problem.
func TestBasisFileRoundTrip(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(9, 9))
	rows, cols := 7, 3
	U := make([]float64, rows*cols)
	for i := range U {
		U[i] = (rng.Float64() - 0.5) * math.Pow(10, float64(rng.IntN(40)-20))
	}
	U[4] = -0.0
	for _, name := range []string{"b.txt", "b.U", "b.bin", "b.json", "b.dat"} {
		p := filepath.Join(dir, name)
		if err := modal.WriteBasis(p, U, rows, cols); err != nil {
			t.Fatal(err)
		}
		got, r, c, err := modal.ReadBasis(p)
		if err != nil {
			t.Fatal(err)
		}
		if r != rows || c != cols {
			t.Fatalf("%s: %d×%d", name, r, c)
		}
		for i := range U {
			if math.Float64bits(got[i]) != math.Float64bits(U[i]) && !(got[i] == 0 && U[i] == 0) {
				t.Fatalf("%s: entry %d = %.17g, wrote %.17g", name, i, got[i], U[i])
			}
		}
	}
	// Text: row by row, comments.
	p := filepath.Join(dir, "hand.txt")
	os.WriteFile(p, []byte("# a 2×2 basis\n2 2\n1 2 # first row\n3 4\n"), 0o644)
	got, _, _, err := modal.ReadBasis(p)
	if err != nil || got[0] != 1 || got[1] != 3 || got[2] != 2 || got[3] != 4 {
		t.Errorf("hand-written text: %v, %v (want column-major 1 3 2 4)", got, err)
	}
	// Vega's layout.
	p = filepath.Join(dir, "vega.json")
	os.WriteFile(p, []byte(`{"r": 2, "U": [1, 2, 3, 4, 5, 6]}`), 0o644)
	got, r, c, err := modal.ReadBasis(p)
	if err != nil || r != 3 || c != 2 || got[3] != 4 {
		t.Errorf("Vega layout: %v %d×%d %v", got, r, c, err)
	}
	for name, content := range map[string]string{
		"short.txt":  "2 2\n1 2 3\n",
		"long.txt":   "1 1\n1 2\n",
		"nan.txt":    "1 2\n1 NaN\n",
		"word.txt":   "1 1\nx\n",
		"header.txt": "0 3\n",
		"none.txt":   "# nothing\n",
		"bad.json":   `{"rows": 2, "cols": 2, "data": [1, 2, 3]}`,
		"r.json":     `{"r": 4, "U": [1, 2, 3]}`,
		"short.U":    "\x02\x00\x00\x00\x02\x00\x00\x00",
	} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(content), 0o644)
		if _, _, _, err := modal.ReadBasis(p); err == nil {
			t.Errorf("%s: accepted", name)
		} else if !strings.Contains(err.Error(), name) {
			t.Errorf("%s: error %q does not name the file", name, err)
		}
	}
}
