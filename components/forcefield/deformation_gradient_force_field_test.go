package forcefield

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
	"github.com/sofago/sofago/material"
)

// randomGradients returns n deformation gradients R (I + a·N(0,1)): random
// rotations times random stretch/shear of size a.
func randomGradients(rng *rand.Rand, n int, a float64) []float64 {
	x := make([]float64, 0, 9*n)
	for i := 0; i < n; i++ {
		q := geom.Quat{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}.Normalized()
		U := geom.Identity3()
		for j := range U {
			U[j] += a * rng.NormFloat64()
		}
		F := q.Mat().Mul(U)
		x = append(x, F[:]...)
	}
	return x
}

func tomlList(v []float64) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = fmt.Sprintf("%.17g", x)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func tomlRows(x []float64, w int) string {
	rows := make([]string, len(x)/w)
	for i := range rows {
		rows[i] = tomlList(x[w*i : w*i+w])
	}
	return "[" + strings.Join(rows, ", ") + "]"
}

// loadSamples loads a node with an F331 state at F and a
// DeformationGradientForceField "ff" with the given extra fields.
func loadSamples(t testing.TB, F []float64, fields string) (*DeformationGradientForceField, *graph.MechanicalObject) {
	t.Helper()
	s := graphtest.MustLoad(t, "samples.toml", fmt.Sprintf(`
[[node]]
name = "samples"
  [[node.object]]
  type = "MechanicalObject"
  name = "F"
  template = "F331"
  position = %s
  [[node.object]]
  type = "DeformationGradientForceField"
  name = "ff"
  %s
`, tomlRows(F, 9), fields))
	return graphtest.Find[*DeformationGradientForceField](t, s, "samples/ff"), graphtest.Find[*graph.MechanicalObject](t, s, "samples/F")
}

// TestDeformationGradientFixture runs graphtest.CheckForceField for every
// law, with and without the volume term, on 40 samples with random
// rotations and strains up to ~±50 % (a = 0.2), random volumes and
// per-sample moduli. Tolerance fdTolerance (1e-8) with a step of 1e-7
// (the entries of F are O(1)): as for the tetrahedral fields, the central
// differences' truncation is O(h²) ≈ 1e-14 relative and their rounding
// ≈ ε/h ≈ 1e-9.
func TestDeformationGradientFixture(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 3))
	const n = 40
	F := randomGradients(rng, n, 0.2)
	vol, young := make([]float64, n), make([]float64, n)
	for i := range vol {
		vol[i] = 1e-3 * (0.5 + rng.Float64())
		young[i] = 1e6 * (0.5 + 2*rng.Float64())
	}
	for _, law := range material.Names() {
		for _, bulk := range []float64{0, 3e6} {
			t.Run(fmt.Sprintf("%s/bulk=%g", law, bulk), func(t *testing.T) {
				ff, st := loadSamples(t, F, fmt.Sprintf(`materialName = %q
  youngModulus = 1e6
  poissonRatio = 0.35
  bulkModulus = %g
  volumes = %s
  youngModulusPerSample = %s`, law, bulk, tomlList(vol), tomlList(young)))
				x := st.Vec(graph.Position)
				graphtest.CheckForceField(t, ff, graph.F331, x, nil, graphtest.Options{Seed: 5, Trials: 4, Tolerance: fdTolerance, Step: 1e-7})
			})
		}
	}
}

// TestDeformationGradientClosedForms: a uniaxial stretch F = diag(1+ε, 1, 1)
// of StVK with ν = 0 has P₁₁ = E (ε + 3ε²/2 + ε³/2) and no other stress,
// so the sample force is −V P; the volume term alone gives
// −V k (J − 1) cof F; a rotation gives zero force for every
// rotation-invariant law.
func TestDeformationGradientClosedForms(t *testing.T) {
	const E, V, eps = 2e6, 0.25, 0.3
	F := []float64{1 + eps, 0, 0, 0, 1, 0, 0, 0, 1}
	ff, _ := loadSamples(t, F, fmt.Sprintf(`youngModulus = %g
  poissonRatio = 0
  volumes = [%g]`, E, V))
	f := make([]float64, 9)
	ff.AddForce(f, F, nil)
	want := -V * E * (eps + 1.5*eps*eps + 0.5*eps*eps*eps)
	if math.Abs(f[0]-want) > 1e-12*math.Abs(want) || maxAbs(f[1:]) > 1e-12*math.Abs(want) {
		t.Errorf("StVK uniaxial: f = %v, want [%g 0 ...]", f, want)
	}

	// Volume term: with a law that is zero at this F (a rotation), only
	// −V k (J − 1) cof F remains; use a pure dilation F = λ I.
	const k, lam = 5e5, 1.1
	Fd := []float64{lam, 0, 0, 0, lam, 0, 0, 0, lam}
	ffv, _ := loadSamples(t, Fd, fmt.Sprintf(`youngModulus = 1e-30
  poissonRatio = 0
  bulkModulus = %g
  volumes = [%g]`, k, V))
	fv := make([]float64, 9)
	ffv.AddForce(fv, Fd, nil)
	J := lam * lam * lam
	wantV := -V * k * (J - 1) * lam * lam // cof(λI) = λ² I
	if math.Abs(fv[0]-wantV) > 1e-12*math.Abs(wantV) || math.Abs(fv[4]-wantV) > 1e-12*math.Abs(wantV) || math.Abs(fv[1]) > 1e-20 {
		t.Errorf("volume term: f = %v, want %g on the diagonal", fv, wantV)
	}
	if W, wantW := ffv.PotentialEnergy(Fd), V*k/2*(J-1)*(J-1); math.Abs(W-wantW) > 1e-12*wantW {
		t.Errorf("volume term energy %g, want %g", W, wantW)
	}

	rng := rand.New(rand.NewPCG(8, 8))
	R := randomGradients(rng, 20, 0)
	for _, law := range []string{material.NameStVenantKirchhoff, material.NameNeoHookean, material.NameStableNeoHookean, material.NameCorotationalLinear} {
		ffr, _ := loadSamples(t, R, fmt.Sprintf(`materialName = %q
  youngModulus = 1e6
  poissonRatio = 0.3
  bulkModulus = 1e6
  volumes = %s`, law, tomlList(make20(1.0))))
		fr := make([]float64, len(R))
		ffr.AddForce(fr, R, nil)
		// Stresses are O(E·strain); a rotation has strain 0 to rounding
		// (ε ≈ 1e-16), so forces are O(1e6 · 1e-15).
		if m := maxAbs(fr); m > 1e-8 {
			t.Errorf("%s: rotation gives force %.3g (want 0)", law, m)
		}
	}
}

func make20(v float64) []float64 {
	out := make([]float64, 20)
	for i := range out {
		out[i] = v
	}
	return out
}

// TestDeformationGradientWorkers: results are bitwise identical on one
// and on several goroutines (samples write only their own slots).
func TestDeformationGradientWorkers(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	const n = 1000
	F := randomGradients(rng, n, 0.2)
	d := randomGradients(rng, n, 0.5)
	var res [2][]float64
	for i, w := range []int{1, 3} {
		ff := NewDeformationGradientForceField()
		ff.MaterialName = material.NameNeoHookean
		ff.BulkModulus = 1e3
		ff.SetVolumes(make([]float64, n))
		vol := make([]float64, n)
		for s := range vol {
			vol[s] = 1 + float64(s%7)
		}
		ff.SetVolumes(vol)
		if err := ff.Init(); err != nil {
			t.Fatal(err)
		}
		ff.SetWorkers(w)
		f := make([]float64, 9*n)
		ff.AddForce(f, F, nil)
		df := make([]float64, 9*n)
		ff.AddDForce(df, d, 0.7, 0)
		res[i] = append(f, df...)
	}
	for j := range res[0] {
		if res[0][j] != res[1][j] {
			t.Fatalf("entry %d differs between 1 and 3 workers: %v vs %v", j, res[0][j], res[1][j])
		}
	}
}

// TestDeformationGradientErrors: scene errors name the problem.
func TestDeformationGradientErrors(t *testing.T) {
	F := []float64{1, 0, 0, 0, 1, 0, 0, 0, 1}
	cases := []struct{ fields, want string }{
		{``, "no sample volumes"},
		{`volumes = [1, 2]`, "2 sample volumes for 1 samples"},
		{`volumes = [1]
  youngModulusPerSample = [1, 2]`, "2 per-sample Young's moduli for 1 samples"},
		{`volumes = [1]
  samples = "@F"`, "not both"},
		{`samples = "@F"`, "not a sampler"},
	}
	for _, c := range cases {
		text := fmt.Sprintf(`
[[node]]
name = "samples"
  [[node.object]]
  type = "MechanicalObject"
  name = "F"
  template = "F331"
  position = %s
  [[node.object]]
  type = "DeformationGradientForceField"
  %s
`, tomlRows(F, 9), c.fields)
		s, err := graph.Load("bad.toml", []byte(text))
		if err == nil {
			err = s.Init()
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("fields %q: error %v, want it to contain %q", c.fields, err, c.want)
		}
	}
	// Wrong template.
	s, err := graph.Load("bad.toml", []byte(`
[[node]]
name = "n"
  [[node.object]]
  type = "MechanicalObject"
  position = [[0, 0, 0]]
  [[node.object]]
  type = "DeformationGradientForceField"
  volumes = [1]
`))
	if err == nil {
		err = s.Init()
	}
	if err == nil || !strings.Contains(err.Error(), "F331") {
		t.Errorf("Vec3 state: error %v, want it to mention F331", err)
	}
}
