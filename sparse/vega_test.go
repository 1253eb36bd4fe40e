package sparse

import (
	"encoding/json"
	"math"
	"os"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestCholeskyVegaBarStiffness factors VegaFEM's rest stiffness of the
// reference bar (testdata/vega/stiffness_stvk_csr.json) on its 270 free
// DOFs (vertices 9.. ; the first 27 DOFs are clamped) and checks the
// solution of K x = b against gonum's dense Cholesky: K's condition
// number is ~1e5 here, so both solutions agree to ~1e-11 relative;
// tolerance 1e-9. The residual must be at rounding level (1e-12 of
// |K||x|).
func TestCholeskyVegaBarStiffness(t *testing.T) {
	data, err := os.ReadFile("../testdata/vega/stiffness_stvk_csr.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Rest struct {
			N      int       `json:"n"`
			RowPtr []int     `json:"rowptr"`
			Col    []int     `json:"col"`
			Val    []float64 `json:"val"`
		} `json:"K_rest"`
	}
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatal(err)
	}
	full := &CSR{Rows: ref.Rest.N, Cols: ref.Rest.N, RowPtr: ref.Rest.RowPtr, Col: ref.Rest.Col, Val: ref.Rest.Val}
	if err := full.Check(); err != nil {
		t.Fatal(err)
	}
	keep := make([]int, 0, full.Rows-27)
	for i := 27; i < full.Rows; i++ {
		keep = append(keep, i)
	}
	K, err := full.Submatrix(keep)
	if err != nil {
		t.Fatal(err)
	}
	chol, err := Factorize(K)
	if err != nil {
		t.Fatal(err)
	}
	n := K.Rows
	b := make([]float64, n)
	for i := range b {
		b[i] = math.Cos(0.37 * float64(i))
	}
	x := make([]float64, n)
	chol.Solve(x, b)
	var ch mat.Cholesky
	S := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			S.SetSym(i, j, K.At(i, j))
		}
	}
	if !ch.Factorize(S) {
		t.Fatal("gonum: not positive definite")
	}
	var xd mat.VecDense
	if err := ch.SolveVecTo(&xd, mat.NewVecDense(n, b)); err != nil {
		t.Fatal(err)
	}
	d, m := 0.0, 0.0
	for i := range x {
		d = math.Max(d, math.Abs(x[i]-xd.AtVec(i)))
		m = math.Max(m, math.Abs(xd.AtVec(i)))
	}
	r := make([]float64, n)
	K.MulVec(r, x)
	rn := 0.0
	for i := range r {
		rn = math.Max(rn, math.Abs(r[i]-b[i]))
	}
	t.Logf("condition %.3g; |x − x_gonum|/|x| = %.2g; residual %.2g of |K||x|", ch.Cond(), d/m, rn/(K.MaxAbs()*m))
	if d > 1e-9*m {
		t.Errorf("solution differs from gonum's by %.3g relative", d/m)
	}
	if rn > 1e-12*K.MaxAbs()*m {
		t.Errorf("residual %.3g", rn)
	}
	// PCG on the same elasticity stiffness (not an M-matrix: IC(0) may
	// need its diagonal shift) reaches 1e-10 and agrees with the direct
	// solve to cond·1e-10.
	jac, err := NewJacobi(K)
	if err != nil {
		t.Fatal(err)
	}
	ic, err := NewIncompleteCholesky(K)
	if err != nil {
		t.Fatal(err)
	}
	for name, pre := range map[string]Preconditioner{"jacobi": jac, "ic0": ic} {
		xc := make([]float64, n)
		res := CG(K, xc, b, pre, CGOptions{Tol: 1e-10, MaxIter: 5000})
		dd := 0.0
		for i := range xc {
			dd = math.Max(dd, math.Abs(xc[i]-x[i]))
		}
		t.Logf("PCG %s: %d iterations, residual %.2g, |x − x_chol|/|x| = %.2g (IC shift %g)", name, res.Iterations, res.Residual, dd/m, ic.Shift)
		if !res.Converged || dd > 1e-10*ch.Cond()*m {
			t.Errorf("PCG %s: %+v, difference %.3g", name, res, dd/m)
		}
	}
}
