package reduced_test

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	creduced "github.com/sofago/sofago/components/reduced"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

// TestBasisFileEqualsGivenBasis: basisFile = VegaFEM's reduced.json (read
// by modal.ReadBasis) gives bitwise the model of the same basis set in
// code.
func TestBasisFileEqualsGivenBasis(t *testing.T) {
	path, err := filepath.Abs(filepath.Join("..", "..", "testdata", "vega", "reduced.json"))
	if err != nil {
		t.Fatal(err)
	}
	s := graphtest.MustLoad(t, "bar.toml", strings.Replace(barText("", [3]float64{}), "cache = false", fmt.Sprintf("cache = false\n  basisFile = %q", path), 1))
	ref := barScene(t, vegaBasis(t), "", [3]float64{})
	q := randomQ(6, 0.05, 8)
	var f [2][]float64
	for k, sc := range []*graph.Scene{s, ref} {
		ff := graphtest.Find[*creduced.ReducedStVKForceField](t, sc, "bar/stvk")
		f[k] = make([]float64, 6)
		ff.AddForce(f[k], q, nil)
	}
	for i := range f[0] {
		if f[0][i] != f[1][i] {
			t.Fatalf("basisFile model differs: %v vs %v", f[0], f[1])
		}
	}
}

// TestSnapshotBasis records deformation snapshots of a full StVK bar
// bending under a tip load (SnapshotRecorder), builds a reduced model from
// them (snapshotFile, mass-PCA: Barbič & James 2005 Sec. 5.2 and appendix
// A) and checks the basis: mass-orthonormal (UᵀMU = I to 1e-10, the
// consistent mass of the same mesh), zero at the clamped vertices (the
// snapshots are), and spanning the recorded motion: the last snapshot lies
// within 1% of the span of r = 3 vectors (measured 0.21%: the bar's
// response to an oblique tip load is its two first bendings and a little
// more).
func TestSnapshotBasis(t *testing.T) {
	dir := t.TempDir()
	snaps := filepath.Join(dir, "snaps.txt")
	full := graphtest.MustLoad(t, filepath.Join(dir, "full.toml"), fmt.Sprintf(`
dt = 0.01
gravity = [0, 0, 0]
[[node]]
name = "bar"
  [[node.object]]
  type = "EulerImplicitSolver"
  rayleighMass = 1
  [[node.object]]
  type = "CGLinearSolver"
  iterations = 500
  tolerance = 1e-10
  [[node.object]]
  type = "RegularGridTopology"
  min = [0, 0, 0]
  max = [0.2, 0.2, 0.6]
  n = [3, 3, 7]
  [[node.object]]
  type = "MechanicalObject"
  name = "x"
  [[node.object]]
  type = "MeshMatrixMass"
  massDensity = 1000
  [[node.object]]
  type = "TetrahedronHyperelasticityFEMForceField"
  youngModulus = 1e6
  poissonRatio = 0.3
  [[node.object]]
  type = "FixedConstraint"
  box = [-1, -1, -0.001, 1, 1, 0.001]
  [[node.object]]
  type = "ConstantForceField"
  box = [-1, -1, 0.599, 1, 1, 0.601]
  totalForce = [30, 10, 0]
  [[node.object]]
  type = "SnapshotRecorder"
  filename = %q
  every = 2
  start = 1
`, snaps))
	for i := 0; i < 30; i++ {
		if err := full.Step(); err != nil {
			t.Fatal(err)
		}
	}
	st := graphtest.Find[graph.State](t, full, "bar/x")
	last := make([]float64, len(st.Vec(graph.Position)))
	for i := range last {
		last[i] = st.Vec(graph.Position)[i] - st.Vec(graph.RestPosition)[i]
	}
	if err := full.Close(); err != nil {
		t.Fatal(err)
	}
	red := graphtest.MustLoad(t, filepath.Join(dir, "red.toml"), shortBar(strings.Replace(barText("", [3]float64{}), "cache = false",
		"cache = false\n  snapshotFile = \"snaps.txt\"\n  basisSize = 3", 1)))
	ff := graphtest.Find[*creduced.ReducedStVKForceField](t, red, "bar/stvk")
	ms := graphtest.Find[*creduced.ReducedMass](t, red, "bar/ReducedMass")
	b := ff.Precomputed().Basis
	r := b.R
	if r != 3 {
		t.Fatalf("r = %d, want 3", r)
	}
	orth := 0.0
	for i := 0; i < r; i++ {
		for j := 0; j < r; j++ {
			want := 0.0
			if i == j {
				want = 1
			}
			orth = math.Max(orth, math.Abs(ms.Matrix()[i*r+j]-want))
		}
	}
	atFixed := 0.0
	for v := 0; v < 9; v++ { // z = 0 vertices
		for k := 0; k < 3*r; k++ {
			atFixed = math.Max(atFixed, math.Abs(b.U[3*v*r+k]))
		}
	}
	// Distance to the span by a Euclidean least-squares fit.
	fit := projectionError(b.U, r, last)
	t.Logf("UᵀMU − I: %.2g; basis at the clamped vertices: %.2g; last snapshot outside the span: %.2g relative", orth, atFixed, fit)
	if orth > 1e-10 || atFixed != 0 || fit > 1e-2 {
		t.Errorf("snapshot basis: UᵀMU − I %.2g, clamp %.2g, fit %.2g", orth, atFixed, fit)
	}
}

// projectionError returns |u − U c| / |u| for the least-squares c
// (normal equations, r ≤ 3 here).
func projectionError(U []float64, r int, u []float64) float64 {
	rows := len(u)
	G := make([]float64, r*r)
	rhs := make([]float64, r)
	for i := 0; i < rows; i++ {
		for a := 0; a < r; a++ {
			rhs[a] += U[i*r+a] * u[i]
			for c := 0; c < r; c++ {
				G[a*r+c] += U[i*r+a] * U[i*r+c]
			}
		}
	}
	// Gaussian elimination.
	for k := 0; k < r; k++ {
		for i := k + 1; i < r; i++ {
			f := G[i*r+k] / G[k*r+k]
			for j := k; j < r; j++ {
				G[i*r+j] -= f * G[k*r+j]
			}
			rhs[i] -= f * rhs[k]
		}
	}
	c := make([]float64, r)
	for k := r - 1; k >= 0; k-- {
		s := rhs[k]
		for j := k + 1; j < r; j++ {
			s -= G[k*r+j] * c[j]
		}
		c[k] = s / G[k*r+k]
	}
	var e2, u2 float64
	for i := 0; i < rows; i++ {
		d := u[i]
		for a := 0; a < r; a++ {
			d -= U[i*r+a] * c[a]
		}
		e2 += d * d
		u2 += u[i] * u[i]
	}
	return math.Sqrt(e2 / u2)
}
