package reduced_test

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sofago/sofago/components/reduced"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
	"github.com/sofago/sofago/modal"

	_ "github.com/sofago/sofago/components/all"
)

const recorderScene = `
dt = 0.01
gravity = [0, -9.81, 0]
[[node]]
name = "beam"
  [[node.object]]
  type = "EulerImplicitSolver"
  [[node.object]]
  type = "CGLinearSolver"
  iterations = 1000
  tolerance = 1e-12
  [[node.object]]
  type = "RegularGridTopology"
  min = [0, 0, 0]
  max = [1, 0.2, 0.2]
  n = [9, 3, 3]
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[node.object]]
  type = "MeshMatrixMass"
  massDensity = 1000
  [[node.object]]
  type = "TetrahedronHyperelasticityFEMForceField"
  materialName = "StVenantKirchhoff"
  youngModulus = 1e5
  poissonRatio = 0.3
  [[node.object]]
  type = "FixedConstraint"
  box = [-0.001, -1, -1, 0.001, 1, 1]
  [[node.object]]
  type = "SnapshotRecorder"
  name = "rec"
  filename = "%s"
  every = 2
  start = 3
  maxSnapshots = 4
`

// TestSnapshotRecorder runs a sagging StVK beam for 12 steps, records the
// displacements on steps 3, 5, 7, 9 (every 2 from 3, at most 4), checks
// the file written at Close against the state (bit-exact in every
// format), and builds a mass-PCA basis from it: mass-orthonormal, zero at
// the clamp, and with r = 4 reproducing every snapshot (1e-10).
func TestSnapshotRecorder(t *testing.T) {
	for _, name := range []string{"snaps.txt", "snaps.U", "snaps.json"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			s := graphtest.MustLoad(t, filepath.Join(dir, "scene.toml"), strings.Replace(recorderScene, "%s", name, 1))
			rec := graphtest.Find[*reduced.SnapshotRecorder](t, s, "beam/rec")
			st := graphtest.Find[graph.State](t, s, "beam/dofs")
			var want [][]float64
			for step := 1; step <= 12; step++ {
				if err := s.Step(); err != nil {
					t.Fatal(err)
				}
				if step >= 3 && (step-3)%2 == 0 && len(want) < 4 {
					x, x0 := st.Vec(graph.Position), st.Vec(graph.RestPosition)
					u := make([]float64, len(x))
					for i := range u {
						u[i] = x[i] - x0[i]
					}
					want = append(want, u)
				}
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			U, rows, cols, err := modal.ReadBasis(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			if rows != 3*st.Size() || cols != 4 {
				t.Fatalf("%d×%d snapshots, want %d×4", rows, cols, 3*st.Size())
			}
			for j, u := range want {
				for i, v := range u {
					if U[rows*j+i] != v {
						t.Fatalf("snapshot %d entry %d = %.17g, want %.17g", j, i, U[rows*j+i], v)
					}
				}
			}
			if _, _, c := rec.Snapshots(); c != 4 {
				t.Errorf("recorder holds %d snapshots", c)
			}
			b, sys, err := modal.BuildSnapshotBasis(s.Root, filepath.Join(dir, name), 4)
			if err != nil {
				t.Fatal(err)
			}
			nf := len(sys.Free)
			cols4 := make([][]float64, 4)
			for j := range cols4 {
				cols4[j] = make([]float64, nf)
				sys.Restrict(cols4[j], b.Column(j))
			}
			mu := make([]float64, nf)
			for i := range cols4 {
				sys.M.MulVec(mu, cols4[i])
				for j := range cols4 {
					d := dot(mu, cols4[j])
					if want := b2f(i == j); math.Abs(d-want) > 1e-12 {
						t.Errorf("u%dᵀMu%d = %.3g", i, j, d)
					}
				}
			}
			for j, u := range want {
				uf := make([]float64, nf)
				sys.Restrict(uf, u)
				sys.M.MulVec(mu, uf)
				res := append([]float64(nil), uf...)
				for _, c := range cols4 {
					a := dot(c, mu)
					for q := range res {
						res[q] -= a * c[q]
					}
				}
				d, m := 0.0, 0.0
				for q := range res {
					d = math.Max(d, math.Abs(res[q]))
					m = math.Max(m, math.Abs(uf[q]))
				}
				if d > 1e-10*m {
					t.Errorf("snapshot %d outside the basis by %.3g", j, d/m)
				}
			}
		})
	}
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// TestSnapshotRecorderErrors: a Rigid3 state and a missing file name are
// reported; a write failure surfaces from Close.
func TestSnapshotRecorderErrors(t *testing.T) {
	s, err := graph.Load("r.toml", []byte(`
[[node]]
name = "b"
  [[node.object]]
  type = "MechanicalObject"
  template = "Rigid3"
  position = [[0, 0, 0, 0, 0, 0, 1]]
  [[node.object]]
  type = "SnapshotRecorder"
  filename = "x.txt"
`))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Init(); err == nil || !strings.Contains(err.Error(), "Rigid3") {
		t.Errorf("Rigid3 state: %v", err)
	}
	if _, err := graph.Load("r.toml", []byte(`
[[node]]
name = "b"
  [[node.object]]
  type = "SnapshotRecorder"
`)); err == nil {
		t.Error("missing filename accepted")
	}
	dir := t.TempDir()
	s2 := graphtest.MustLoad(t, filepath.Join(dir, "s.toml"), strings.Replace(recorderScene, "%s", "missing/dir/snaps.txt", 1))
	for i := 0; i < 4; i++ {
		if err := s2.Step(); err != nil {
			t.Fatal(err)
		}
	}
	if err := s2.Close(); err == nil {
		t.Error("write into a missing folder succeeded")
	}
	if _, err := os.Stat(filepath.Join(dir, "missing")); err == nil {
		t.Error("folder created")
	}
}
