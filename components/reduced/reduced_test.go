package reduced_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/sofago/sofago/components/mapping"
	creduced "github.com/sofago/sofago/components/reduced"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
	"github.com/sofago/sofago/reduced"
)

// fdTolerance: the reduced force is a cubic polynomial, so central
// differences with the fixture's step (1e-6 × |q|) have a truncation error
// ~1e-12 and a rounding error ~ε/h ≈ 1e-10 relative; 1e-8 keeps a 100×
// margin.
const fdTolerance = 1e-8

func randomQ(r int, a float64, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 3))
	q := make([]float64, r)
	for i := range q {
		q[i] = a * (2*rng.Float64() - 1)
	}
	return q
}

// TestReducedForceFieldFixture: the force is −∇W and AddDForce its
// derivative (graphtest.CheckForceField) at large random q on VegaFEM's
// bar and basis; the same for the reduced gravity of ReducedMass; the
// subspace mapping passes graphtest.CheckMapping.
func TestReducedForceFieldFixture(t *testing.T) {
	s := barScene(t, vegaBasis(t), "", [3]float64{0, 0, 0})
	ff := graphtest.Find[*creduced.ReducedStVKForceField](t, s, "bar/stvk")
	q := randomQ(6, 0.1, 1)
	graphtest.CheckForceField(t, ff, graph.Vec1, q, nil, graphtest.Options{Tolerance: fdTolerance})
	m := graphtest.Find[*mapping.SubspaceMapping](t, s, "bar/mesh/SubspaceMapping")
	graphtest.CheckMapping(t, m, q, graphtest.Options{Tolerance: fdTolerance})

	g := gravityScene(t, vegaBasis(t))
	ms := graphtest.Find[*creduced.ReducedMass](t, g, "bar/ReducedMass")
	graphtest.CheckForceField(t, ms, graph.Vec1, q, nil, graphtest.Options{Tolerance: fdTolerance})
}

// gravityScene is barScene with gravity and no load.
func gravityScene(t testing.TB, b *reduced.Basis) *graph.Scene {
	t.Helper()
	text := strings.Replace(barText("", [3]float64{}), "gravity = [0, 0, 0]", "gravity = [1, -9.81, 2]", 1)
	return initWithBasis(t, text, b)
}

const projGrid = `
    [[node.node.object]]
    type = "RegularGridTopology"
    name = "grid"
    min = [0, 0, 0]
    max = [0.2, 0.2, 0.6]
    n = [3, 3, 7]
    [[node.node.object]]
    type = "MechanicalObject"
    name = "x"
    [[node.node.object]]
    type = "SubspaceMapping"
    basis = "@../stvk"`

// reducedModel is the reduced model (force field, ReducedMass) of the
// 2×2×6 bar in basis b, E = 2e6 Pa, ν = 0.3, ρ = 800 kg/m³, with the
// extra force-field lines region (e.g. regions: a second material group).
func reducedModel(t *testing.T, b *reduced.Basis, region string) *graph.Scene {
	return initWithBasis(t, fmt.Sprintf(`
gravity = [0.5, -9.81, 1]
[[node]]
name = "bar"
  [[node.object]]
  type = "MechanicalObject"
  name = "q"
  template = "Vec1"
  [[node.object]]
  type = "ReducedStVKForceField"
  name = "stvk"
  topology = "@mesh/grid"
  youngModulus = 2e6
  poissonRatio = 0.3
  massDensity = 800
  cache = false
  %s
  [[node.object]]
  type = "ReducedMass"
  [[node.node]]
  name = "mesh"
%s
`, region, projGrid), b)
}

// projected is the full model of the same bar (StVK FEM with E, ν and the
// region lines, consistent mass) on the mesh mapped from the reduced
// coordinates: its forces and products come back up the mapping as
// Uᵀ f(x₀ + Uq), UᵀKU, UᵀMU. The reduced force field in the reduced node
// only supplies the basis and is then removed from the node.
func projected(t *testing.T, b *reduced.Basis, E, nu float64, region string) *graph.Scene {
	s := initWithBasis(t, fmt.Sprintf(`
gravity = [0.5, -9.81, 1]
[[node]]
name = "bar"
  [[node.object]]
  type = "MechanicalObject"
  name = "q"
  template = "Vec1"
  [[node.object]]
  type = "ReducedStVKForceField"
  name = "stvk"
  topology = "@mesh/grid"
  cache = false
  [[node.node]]
  name = "mesh"
%s
    [[node.node.object]]
    type = "TetrahedronHyperelasticityFEMForceField"
    materialName = "StVenantKirchhoff"
    youngModulus = %g
    poissonRatio = %g
    %s
    [[node.node.object]]
    type = "MeshMatrixMass"
    massDensity = 800
`, projGrid, E, nu, region), b)
	nd := s.Root.Child("bar")
	var keep []graph.Object
	for _, o := range nd.Objects {
		if _, ok := o.(*creduced.ReducedStVKForceField); !ok {
			keep = append(keep, o)
		}
	}
	nd.Objects = keep
	return s
}

// barText is the scene of barScene.
func barText(extra string, tip [3]float64) string {
	return fmt.Sprintf(`
dt = 0.005
gravity = [0, 0, 0]
[[node]]
name = "bar"
%s
  [[node.object]]
  type = "MechanicalObject"
  name = "q"
  template = "Vec1"
  [[node.object]]
  type = "ReducedStVKForceField"
  name = "stvk"
  topology = "@mesh/grid"
  youngModulus = 1e6
  poissonRatio = 0.45
  massDensity = 1000
  cache = false
  [[node.object]]
  type = "ReducedMass"
  [[node.node]]
  name = "mesh"
    [[node.node.object]]
    type = "RegularGridTopology"
    name = "grid"
    min = [0, 0, 0]
    max = [0.2, 0.2, 1]
    n = [3, 3, 11]
    [[node.node.object]]
    type = "MechanicalObject"
    name = "x"
    [[node.node.object]]
    type = "SubspaceMapping"
    basis = "@../stvk"
    [[node.node.object]]
    type = "ConstantForceField"
    box = [-1, -1, 0.999, 1, 1, 1.001]
    totalForce = [%g, %g, %g]
`, extra, tip[0], tip[1], tip[2])
}

// initWithBasis loads text, gives the force field "bar/stvk" the basis b
// and initialises the scene.
func initWithBasis(t testing.TB, text string, b *reduced.Basis) *graph.Scene {
	t.Helper()
	s, err := graph.Load("bar.toml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	ff, err := graph.FindAs[*creduced.ReducedStVKForceField](s, "bar/stvk")
	if err != nil {
		t.Fatal(err)
	}
	ff.SetBasis(b)
	if err := s.Init(); err != nil {
		t.Fatal(err)
	}
	return s
}

// randomBarBasis is a random basis of the 2×2×6 bar, zero at z = 0.
func randomBarBasis(r int) *reduced.Basis {
	rng := rand.New(rand.NewPCG(42, 1))
	n := 3 * 3 * 7
	b := &reduced.Basis{R: r, U: make([]float64, 3*n*r)}
	for v := 9; v < n; v++ {
		for k := 0; k < 3*r; k++ {
			b.U[3*v*r+k] = 0.05 * (2*rng.Float64() - 1)
		}
	}
	return b
}

// compare evaluates force, df, energies of the reduced and projected
// scenes at q and returns the largest relative difference.
func compare(t *testing.T, red, full *graph.Scene, q []float64) float64 {
	worst := 0.0
	var fs, dfs [2][]float64
	var pe, ke [2]float64
	dx := randomQ(len(q), 1, 9)
	v := randomQ(len(q), 0.3, 10)
	for k, s := range []*graph.Scene{red, full} {
		nd := s.Root.Child("bar")
		ops, err := graph.NewOps(nd)
		if err != nil {
			t.Fatal(err)
		}
		st := nd.State()
		copy(st.Vec(graph.Position), q)
		copy(st.Vec(graph.Velocity), v)
		f, d, x := ops.AllocDeriv(), ops.AllocDeriv(), ops.AllocDeriv()
		copy(st.Vec(x), dx)
		ops.ComputeForce(f)
		ops.ComputeDf(d, x, 0.7, 0, -1.3)
		fs[k] = append([]float64(nil), st.Vec(f)...)
		dfs[k] = append([]float64(nil), st.Vec(d)...)
		pe[k], ke[k] = ops.PotentialEnergy(), ops.KineticEnergy()
		ops.Free(f, d, x)
	}
	ef, ed := relDiff(fs[0], fs[1]), relDiff(dfs[0], dfs[1])
	ep, ek := math.Abs(pe[0]-pe[1])/math.Abs(pe[1]), math.Abs(ke[0]-ke[1])/ke[1]
	t.Logf("reduced vs projected full model: force %.2g, (0.7 M − 1.3 K) dx %.2g, potential energy %.2g, kinetic energy %.2g", ef, ed, ep, ek)
	for _, e := range []float64{ef, ed, ep, ek} {
		worst = math.Max(worst, e)
	}
	return worst
}

// TestReducedMatchesProjectedFullModel: the reduced force (elastic and
// gravity), tangent, mass, potential and kinetic energy equal those of the
// full StVK FEM and consistent mass on the mapped mesh projected through
// SubspaceMapping (Uᵀ f(x₀ + Uq), UᵀKU, UᵀMU: eq. 4–8), with two material
// groups (a region), before and after changing a group's Young's modulus
// at run time (Sec. 6.5), and after changing both groups to a new E and ν.
// Tolerance 1e-11 relative (two summation orders of the same polynomial).
func TestReducedMatchesProjectedFullModel(t *testing.T) {
	b := randomBarBasis(5)
	region := func(E float64) string {
		return fmt.Sprintf("regions = [{box = [-1, -1, 0.3, 1, 1, 1], youngModulus = %g}]", E)
	}
	red := reducedModel(t, b, region(5e6))
	q := randomQ(5, 0.5, 4)
	const tol = 1e-11
	if e := compare(t, red, projected(t, b, 2e6, 0.3, region(5e6)), q); e > tol {
		t.Errorf("with a region: difference %.2g", e)
	}
	ff := graphtest.Find[*creduced.ReducedStVKForceField](t, red, "bar/stvk")
	if ff.NumGroups() != 2 {
		t.Fatalf("%d material groups, want 2", ff.NumGroups())
	}
	if err := ff.SetMaterial(1, 1.5e6, 0.3); err != nil {
		t.Fatal(err)
	}
	if e := compare(t, red, projected(t, b, 2e6, 0.3, region(1.5e6)), q); e > tol {
		t.Errorf("after SetMaterial(1, 1.5e6, 0.3): difference %.2g", e)
	}
	for g := 0; g < 2; g++ {
		if err := ff.SetMaterial(g, 3e6, 0.42); err != nil {
			t.Fatal(err)
		}
	}
	if e := compare(t, red, projected(t, b, 3e6, 0.42, ""), q); e > tol {
		t.Errorf("after SetMaterial of both groups to (3e6, 0.42): difference %.2g", e)
	}
	if err := ff.SetMaterial(2, 1e6, 0.3); err == nil {
		t.Error("SetMaterial of a group out of range: no error")
	}
	// A Young's modulus per element (stiffness weights within group 0).
	var list []string
	for e := 0; e < 6*2*2*6; e++ {
		list = append(list, fmt.Sprintf("%g", 1e6*(1+float64(e%7))))
	}
	perElement := "youngModulusPerElement = [" + strings.Join(list, ", ") + "]"
	if e := compare(t, reducedModel(t, b, perElement), projected(t, b, 2e6, 0.3, perElement), q); e > tol {
		t.Errorf("with youngModulusPerElement: difference %.2g", e)
	}
	if err := ff.SetMaterial(0, 1e6, 0.5); err == nil {
		t.Error("SetMaterial with ν = 0.5: no error")
	}
}

// TestPrecomputationCache: the first Init computes (reporting progress)
// and writes the cache (with a .gitignore beside it), the second reads it
// silently and gives bitwise the same model, another material is another
// file.
func TestPrecomputationCache(t *testing.T) {
	dir := t.TempDir()
	b := randomBarBasis(4)
	text := func(E float64) string {
		return strings.Replace(strings.Replace(barText("", [3]float64{}), "cache = false", fmt.Sprintf("cacheDir = %q", filepath.Join(dir, "c")), 1),
			"youngModulus = 1e6", fmt.Sprintf("youngModulus = %g", E), 1)
	}
	text0 := shortBar(text(1e6))
	var calls, finals int
	saved := creduced.Progress
	creduced.Progress = func(object, stage string, done, total int, note string) {
		calls++
		if total > 0 && done == total && stage == "cubic polynomials" && object == "bar/stvk" {
			finals++
		}
	}
	defer func() { creduced.Progress = saved }()
	s1 := initWithBasis(t, text0, b)
	if calls == 0 || finals != 1 {
		t.Errorf("progress: %d calls, %d completions of the polynomials (want ≥ 1 and 1)", calls, finals)
	}
	calls = 0
	ff1 := graphtest.Find[*creduced.ReducedStVKForceField](t, s1, "bar/stvk")
	path, hit, _ := ff1.CacheInfo()
	if hit || path == "" {
		t.Fatalf("first run: hit = %v, path %q", hit, path)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("cache file not written: %v", err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(path), ".gitignore")); err != nil {
		t.Errorf("no .gitignore in the cache folder: %v", err)
	}
	s2 := initWithBasis(t, text0, b)
	if calls != 0 {
		t.Errorf("progress reported %d times for a cached model", calls)
	}
	ff2 := graphtest.Find[*creduced.ReducedStVKForceField](t, s2, "bar/stvk")
	path2, hit2, _ := ff2.CacheInfo()
	if !hit2 || path2 != path {
		t.Fatalf("second run: hit = %v, path %q (first %q)", hit2, path2, path)
	}
	q := randomQ(4, 0.3, 2)
	f1, f2 := make([]float64, 4), make([]float64, 4)
	ff1.AddForce(f1, q, nil)
	ff2.AddForce(f2, q, nil)
	for i := range f1 {
		if f1[i] != f2[i] {
			t.Fatalf("cached model differs: %v vs %v", f1, f2)
		}
	}
	s3 := initWithBasis(t, shortBar(text(2e6)), b)
	path3, hit3, _ := graphtest.Find[*creduced.ReducedStVKForceField](t, s3, "bar/stvk").CacheInfo()
	if hit3 || path3 == path {
		t.Errorf("another material: hit = %v, same file %v", hit3, path3 == path)
	}
}

// shortBar turns barText's 2×2×10 bar into the 2×2×6 bar of
// randomBarBasis (tip load box at z = 0.6).
func shortBar(text string) string {
	return strings.NewReplacer("max = [0.2, 0.2, 1]", "max = [0.2, 0.2, 0.6]", "n = [3, 3, 11]", "n = [3, 3, 7]",
		"0.999, 1, 1, 1.001", "0.599, 1, 1, 0.601").Replace(text)
}

// TestReducedSceneErrors: wrong scenes are errors naming the problem.
func TestReducedSceneErrors(t *testing.T) {
	b := randomBarBasis(3)
	bar := func(r *strings.Replacer) string {
		return r.Replace(shortBar(barText("", [3]float64{})))
	}
	cases := []struct {
		name, text, want string
	}{
		{"Vec3 state", bar(strings.NewReplacer(`template = "Vec1"`, `template = "Vec3"`)), "template"},
		{"size mismatch", bar(strings.NewReplacer(`template = "Vec1"`, "template = \"Vec1\"\n  size = 5")), "basis has 3 vectors"},
		{"topology is not a mesh", bar(strings.NewReplacer(`topology = "@mesh/grid"`, `topology = "@mesh/x"`)), "not a topology"},
		{"fixed vertex not zero", bar(strings.NewReplacer(`cache = false`, "cache = false\n  fixed = [{box = [-1, -1, 0.5, 1, 1, 1]}]")), "fixed vertex"},
		{"basis and snapshots", bar(strings.NewReplacer(`cache = false`, "cache = false\n  basisFile = \"a.U\"\n  snapshotFile = \"b.U\"")), "not both"},
	}
	for _, c := range cases {
		s, err := graph.Load("bar.toml", []byte(c.text))
		if err == nil {
			ff, ferr := graph.FindAs[*creduced.ReducedStVKForceField](s, "bar/stvk")
			if ferr == nil {
				ff.SetBasis(b)
			}
			err = s.Init()
		}
		if err == nil {
			if c.want != "" {
				t.Errorf("%s: no error", c.name)
			}
			continue
		}
		t.Logf("%s: %v", c.name, err)
		if c.want != "" && !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q does not mention %q", c.name, err, c.want)
		}
	}
}

// TestUnwritableCacheIsNotAnError: a cache folder that cannot be created
// (here: under a regular file) leaves the model working, uncached.
func TestUnwritableCacheIsNotAnError(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(shortBar(barText("", [3]float64{})), "cache = false", fmt.Sprintf("cacheDir = %q", filepath.Join(file, "sub")), 1)
	s := initWithBasis(t, text, randomBarBasis(3))
	path, hit, _ := graphtest.Find[*creduced.ReducedStVKForceField](t, s, "bar/stvk").CacheInfo()
	if path != "" || hit {
		t.Errorf("cache path %q, hit %v; want none", path, hit)
	}
}

// TestCacheFolderFromScene: without its own cacheDir the force field caches
// in reduced/ of the scene's cache folder — the root key cacheDir (relative
// to the scene file), overridden by Scene.CacheDir as runscene -cache sets
// it, else the user cache folder/sofago — never next to the scene; with no
// user cache folder it is an error naming the object and the remedies.
func TestCacheFolderFromScene(t *testing.T) {
	b := randomBarBasis(3)
	cached := strings.Replace(shortBar(barText("", [3]float64{})), "  cache = false\n", "", 1)
	dir := t.TempDir()
	file := filepath.Join(dir, "scenes", "bar.toml")
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, "xdg"))
	t.Setenv("LocalAppData", filepath.Join(home, "local"))
	user, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	initPath := func(text, override string) (string, error) {
		s, err := graph.Load(file, []byte(text))
		if err != nil {
			return "", err
		}
		if override != "" {
			s.CacheDir = override
		}
		ff := graphtest.Find[*creduced.ReducedStVKForceField](t, s, "bar/stvk")
		ff.SetBasis(b)
		if err := s.Init(); err != nil {
			return "", err
		}
		path, _, _ := ff.CacheInfo()
		return path, nil
	}
	flag := filepath.Join(t.TempDir(), "flag")
	for _, c := range []struct {
		name, text, override, wantDir string
	}{
		{"user cache folder", cached, "", filepath.Join(user, "sofago", "reduced")},
		{"root key, relative to the scene", "cacheDir = \"../c\"\n" + cached, "", filepath.Join(dir, "c", "reduced")},
		{"-cache over the root key", "cacheDir = \"../c\"\n" + cached, flag, filepath.Join(flag, "reduced")},
		{"the object's cacheDir first", "cacheDir = \"../c\"\n" + strings.Replace(cached, `topology = "@mesh/grid"`, "topology = \"@mesh/grid\"\n  cacheDir = \"own\"", 1), flag, filepath.Join(dir, "scenes", "own")},
	} {
		path, err := initPath(c.text, c.override)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if filepath.Dir(path) != c.wantDir {
			t.Errorf("%s: cache file %s, want it in %s", c.name, path, c.wantDir)
		}
		if _, err := os.Stat(path); err != nil {
			t.Errorf("%s: cache file not written: %v", c.name, err)
		}
		if _, err := os.Stat(filepath.Join(c.wantDir, ".gitignore")); err != nil {
			t.Errorf("%s: no .gitignore beside the cache file: %v", c.name, err)
		}
	}
	// The .gitignore goes into the subfolder, not into a folder the user named.
	for _, d := range []string{flag, filepath.Join(dir, "c")} {
		if _, err := os.Stat(filepath.Join(d, ".gitignore")); err == nil {
			t.Errorf("a .gitignore was written into the user's folder %s", d)
		}
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, "scenes")); len(entries) != 1 || entries[0].Name() != "own" {
		t.Errorf("files next to the scene: %v (only the object's own cacheDir was asked for)", entries)
	}
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		return
	}
	t.Setenv("HOME", "")
	t.Setenv("XDG_CACHE_HOME", "")
	_, err = initPath(cached, "")
	if err == nil {
		t.Fatal("no user cache folder: no error")
	}
	for _, w := range []string{file + ":", `object "stvk"`, "no folder for the precomputation cache", "-cache DIR", "cache = false"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q lacks %q", err, w)
		}
	}
	// cache = false needs no folder.
	if _, err := initPath(shortBar(barText("", [3]float64{})), ""); err != nil {
		t.Errorf("cache = false with no user cache folder: %v", err)
	}
}
