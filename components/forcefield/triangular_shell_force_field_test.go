package forcefield_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sofago/sofago/components/forcefield"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
	"gonum.org/v1/gonum/mat"
)

// shellFlatScene: a flat 1 × 0.8 sheet in the plane z = 0 with n × m
// vertices (checkerboard triangles) and a TriangularShellForceField.
func shellFlatScene(n, m int, fields string) string {
	return fmt.Sprintf(`
[[node]]
name = "sheet"
  [[node.object]]
  type = "RegularGridTopology"
  min = [0, 0, 0]
  max = [1, 0.8, 0]
  n = [%d, %d, 1]
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[node.object]]
  type = "TriangularShellForceField"
  name = "shell"
%s`, n, m, fields)
}

// shellRoofScene: a cylindrical patch (R = 2, length 1.5, 70° of arc).
func shellRoofScene(n, m int, fields string) string {
	return fmt.Sprintf(`
[[node]]
name = "sheet"
  [[node.object]]
  type = "CylinderGridTopology"
  radius = 2
  length = 1.5
  angles = [-30, 40]
  n = [%d, %d]
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[node.object]]
  type = "TriangularShellForceField"
  name = "shell"
%s`, n, m, fields)
}

func loadShell(t *testing.T, scene string) (*forcefield.TriangularShellForceField, []float64) {
	t.Helper()
	s := graphtest.MustLoad(t, "shell.toml", scene)
	ff := graphtest.Find[*forcefield.TriangularShellForceField](t, s, "sheet/shell")
	return ff, ff.Base().Node.State().Vec(graph.RestPosition)
}

// shellCases are the meshes and material settings the fixtures run on:
// flat and curved rest shapes, free and clamped edges, membrane and
// bending alone and together (thickness 0.05: both parts of the same
// order at these deformations).
var shellCases = []struct{ name, scene string }{
	{"flat free", shellFlatScene(5, 4, "  youngModulus = 1e6\n  poissonRatio = 0.3\n  thickness = 0.05")},
	{"flat clamped", shellFlatScene(5, 4, "  youngModulus = 1e6\n  poissonRatio = 0.3\n  thickness = 0.05\n  clampedBoxes = [[-0.01, -0.01, -1, 0.01, 0.81, 1], [-0.01, -0.01, -1, 1.01, 0.01, 1]]")},
	{"flat bending only", shellFlatScene(4, 4, "  youngModulus = 1e6\n  poissonRatio = 0.25\n  thickness = 0.05\n  membrane = false")},
	{"flat membrane only", shellFlatScene(4, 4, "  youngModulus = 1e6\n  poissonRatio = 0.25\n  thickness = 0.05\n  bending = false")},
	{"curved", shellRoofScene(5, 5, "  youngModulus = 1e6\n  poissonRatio = 0.3\n  thickness = 0.05\n  clampedBoxes = [[-0.01, -5, -5, 0.01, 5, 5]]")},
	{"curved small", shellRoofScene(4, 4, "  youngModulus = 1e6\n  poissonRatio = 0.3\n  thickness = 0.05\n  method = \"small\"\n  clampedBoxes = [[-0.01, -5, -5, 0.01, 5, 5]]")},
	{"curved per-triangle thickness", shellRoofScene(3, 4, "  youngModulus = 1e6\n  poissonRatio = 0.1\n  thickness = 1\n  thicknesses = [0.03, 0.04, 0.05, 0.06, 0.07, 0.08, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08]")},
}

// TestShellFixture: forces = −∇W and AddDForce = ∂f/∂x (central
// differences, relative 1e-6) on every case, at three configurations:
// randomly deformed (displacements up to 5% of the sheet), the same turned
// by a large random rotation, and folded (a 90° bend across the sheet plus
// noise).
func TestShellFixture(t *testing.T) {
	for _, c := range shellCases {
		ff, rest := loadShell(t, c.scene)
		rng := rand.New(rand.NewPCG(3, 4))
		u := shellRandom(rng, len(rest), 0.05)
		deformed := shellTransform(rest, u, geom.Identity3(), geom.Vec3{})
		rotated := shellTransform(rest, u, shellRotation(rng), geom.Vec3{0.3, -2, 1})
		folded := make([]float64, len(rest))
		for i := 0; i < len(rest)/3; i++ {
			p := geom.At(rest, i)
			// Bend about the line x = 0.5: the half x > 0.5 turns up by up to 90°.
			if p[0] > 0.5 {
				a := math.Pi / 2 * (p[0] - 0.5) / 0.5
				r := 0.5 / (math.Pi / 2)
				p = geom.Vec3{0.5 + r*math.Sin(a), p[1], p[2] + r*(1-math.Cos(a))}
			}
			geom.Put(folded, i, p.Add(geom.At(u, i).Scale(0.1)))
		}
		for name, x := range map[string][]float64{"deformed": deformed, "rotated": rotated, "folded": folded} {
			if !graphtest.CheckForceField(t, ff, graph.Vec3, x, nil, graphtest.Options{Trials: 3}) {
				t.Errorf("%s, %s: fixture failed", c.name, name)
			}
		}
	}
}

// TestShellRigidMotion: rigid motions of any size give zero energy and
// zero force at rest (free edges, flat and curved), and leave the energy
// of a deformed configuration unchanged while turning its forces with it.
// The bound 1e-9 is rounding relative to the forces of a 1% deformation.
func TestShellRigidMotion(t *testing.T) {
	for _, c := range shellCases {
		if c.name == "flat clamped" || c.name == "curved" || c.name == "curved small" {
			continue // clamped edges are held in the world frame; small is linear
		}
		ff, rest := loadShell(t, c.scene)
		rng := rand.New(rand.NewPCG(5, 6))
		u := shellRandom(rng, len(rest), 0.01)
		f0 := make([]float64, len(rest))
		ff.AddForce(f0, shellTransform(rest, u, geom.Identity3(), geom.Vec3{}), nil)
		w0 := ff.PotentialEnergy(shellTransform(rest, u, geom.Identity3(), geom.Vec3{}))
		scale := maxAbsF(f0)
		for trial := 0; trial < 3; trial++ {
			Q := shellRotation(rng)
			b := geom.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
			f := make([]float64, len(rest))
			x := shellTransform(rest, nil, Q, b)
			ff.AddForce(f, x, nil)
			if m := maxAbsF(f); m > 1e-9*scale {
				t.Errorf("%s: rigid motion of the rest shape: force %g (forces of a 1%% deformation: %g)", c.name, m, scale)
			}
			if w := ff.PotentialEnergy(x); math.Abs(w) > 1e-12*w0 {
				t.Errorf("%s: rigid motion of the rest shape: energy %g (deformed: %g)", c.name, w, w0)
			}
			xd := shellTransform(rest, u, Q, b)
			clear(f)
			ff.AddForce(f, xd, nil)
			for i := 0; i < len(rest)/3; i++ {
				want := Q.MulVec(geom.At(f0, i))
				if d := geom.At(f, i).Sub(want).Norm(); d > 1e-9*scale {
					t.Fatalf("%s: rotated deformed configuration: force on point %d is %v, want the rotated %v", c.name, i, geom.At(f, i), want)
				}
			}
			if w := ff.PotentialEnergy(xd); math.Abs(w-w0) > 1e-10*w0 {
				t.Errorf("%s: rotated deformed configuration: energy %.15g, unrotated %.15g", c.name, w, w0)
			}
		}
	}
}

// TestShellAssembled: the 3×3 blocks (StiffnessBlocks/KBlocks, used by
// SparseCholeskySolver) and AddKToMatrix give AddDForce's K, and KBlocks
// and AddForce are bitwise the same on one worker and two.
func TestShellAssembled(t *testing.T) {
	for _, c := range shellCases {
		ff, rest := loadShell(t, c.scene)
		rng := rand.New(rand.NewPCG(7, 8))
		x := shellTransform(rest, shellRandom(rng, len(rest), 0.05), shellRotation(rng), geom.Vec3{})
		checkAssembled(t, ff, x)
		var fs, ks [2][]float64
		for w := 1; w <= 2; w++ {
			ff.SetWorkers(w)
			fs[w-1] = make([]float64, len(x))
			ff.AddForce(fs[w-1], x, nil)
			ks[w-1] = make([]float64, 9*len(ff.StiffnessBlocks())/2)
			ff.KBlocks(ks[w-1], 1)
		}
		for i := range fs[0] {
			if math.Float64bits(fs[0][i]) != math.Float64bits(fs[1][i]) {
				t.Fatalf("%s: forces differ between 1 and 2 workers at %d", c.name, i)
			}
		}
		for i := range ks[0] {
			if math.Float64bits(ks[0][i]) != math.Float64bits(ks[1][i]) {
				t.Fatalf("%s: KBlocks differ between 1 and 2 workers at %d", c.name, i)
			}
		}
		ff.SetWorkers(0)
	}
}

// TestShellQuadraticPatch: the curvature of a quadratic surface is exact.
// The flat sheet deformed to z = ε (a X² + 2 b X Y + c Y²)/2 has, at every
// interior vertex, the fitted curvature t_z ε [[a, b], [b, c]] (world
// axes), t_z the rest-area-weighted mean of the z components of its
// triangles' unit normals (each triangle bends with its own normal): the
// least-squares fit reproduces quadratics exactly. A
// twist z = ε b X Y satisfies the free-edge condition H_nn + ν H_tt = 0 on
// every edge of the rectangle, so there every vertex, boundary or not, is
// exact.
func TestShellQuadraticPatch(t *testing.T) {
	ff, rest := loadShell(t, shellFlatScene(6, 5, "  youngModulus = 1e6\n  poissonRatio = 0.3\n  thickness = 0.05"))
	tris := ff.Base().Node.Topology().Triangles()
	count := map[[2]int]int{}
	vt := map[int][][3]int{}
	for _, tr := range tris {
		for a := 0; a < 3; a++ {
			i, j := tr[a], tr[(a+1)%3]
			count[[2]int{min(i, j), max(i, j)}]++
			vt[tr[a]] = append(vt[tr[a]], tr)
		}
	}
	onBoundary := map[int]bool{}
	for e, k := range count {
		if k == 1 {
			onBoundary[e[0]], onBoundary[e[1]] = true, true
		}
	}
	const eps = 0.3
	for _, q := range [][3]float64{{1, 0.4, -0.7}, {0, 0.8, 0}} {
		a, b, c := q[0], q[1], q[2]
		twist := a == 0 && c == 0
		x := make([]float64, len(rest))
		for i := 0; i < len(rest)/3; i++ {
			p := geom.At(rest, i)
			X, Y := p[0], p[1]
			geom.Put(x, i, geom.Vec3{X, Y, eps * (a*X*X + 2*b*X*Y + c*Y*Y) / 2})
		}
		checked := 0
		for i := 0; i < ff.NumPatches(); i++ {
			K, v := ff.Curvature(i, x)
			if onBoundary[v] && !twist {
				continue
			}
			// n_z of each ring triangle, weighted by its rest area.
			tz, ar := 0.0, 0.0
			for _, tr := range vt[v] {
				p0, r0 := geom.At(x, tr[0]), geom.At(rest, tr[0])
				m := geom.At(x, tr[1]).Sub(p0).Cross(geom.At(x, tr[2]).Sub(p0))
				a := geom.At(rest, tr[1]).Sub(r0).Cross(geom.At(rest, tr[2]).Sub(r0)).Norm()
				tz += a * m.Normalized()[2]
				ar += a
			}
			tz /= ar
			want := geom.Mat3{tz * eps * a, tz * eps * b, 0, tz * eps * b, tz * eps * c, 0, 0, 0, 0}
			for k := range K {
				if math.Abs(K[k]-want[k]) > 1e-12 {
					t.Fatalf("q = %v, vertex %d: curvature %v, want %v", q, v, K, want)
				}
			}
			checked++
		}
		if checked < 12 {
			t.Fatalf("only %d vertices checked", checked)
		}
	}
}

// TestShellSmall: method = small is the quadratic expansion of the large
// method at rest: for displacements ε u the energies agree to O(ε³)
// (checked: relative gap below 3ε at ε = 1e-4 and 1e-3 of the sheet's
// size, falling tenfold with ε), and its forces are exactly linear.
func TestShellSmall(t *testing.T) {
	large, rest := loadShell(t, shellRoofScene(4, 4, "  youngModulus = 1e6\n  poissonRatio = 0.3\n  thickness = 0.05"))
	small, _ := loadShell(t, shellRoofScene(4, 4, "  youngModulus = 1e6\n  poissonRatio = 0.3\n  thickness = 0.05\n  method = \"small\""))
	u := shellRandom(rand.New(rand.NewPCG(9, 9)), len(rest), 1)
	var gaps []float64
	for _, eps := range []float64{1e-3, 1e-4} {
		x := make([]float64, len(rest))
		for i := range x {
			x[i] = rest[i] + eps*u[i]
		}
		wl, ws := large.PotentialEnergy(x), small.PotentialEnergy(x)
		gap := math.Abs(wl-ws) / ws
		gaps = append(gaps, gap)
		t.Logf("ε = %g: W large %.12g, small %.12g, relative gap %.3g", eps, wl, ws, gap)
		if !(gap < 3*eps) {
			t.Errorf("ε = %g: relative gap %.3g between the large and small energies, want < %g", eps, gap, 3*eps)
		}
		f1 := make([]float64, len(x))
		small.AddForce(f1, x, nil)
		x2 := make([]float64, len(x))
		for i := range x2 {
			x2[i] = rest[i] + 2*eps*u[i]
		}
		f2 := make([]float64, len(x))
		small.AddForce(f2, x2, nil)
		for i := range f1 {
			if math.Abs(f2[i]-2*f1[i]) > 1e-12*maxAbsF(f2) {
				t.Fatalf("small: f(2u) ≠ 2 f(u) at %d: %g vs %g", i, f2[i], 2*f1[i])
			}
		}
	}
	if !(gaps[1] < gaps[0]/5) {
		t.Errorf("the gap does not fall with ε: %v", gaps)
	}
}

// TestShellErrors: a bad box, no energy, and an edge shared by three
// triangles are refused with a message.
func TestShellErrors(t *testing.T) {
	for _, c := range []struct{ fields, want string }{
		{"  youngModulus = 1\n  thickness = 0.1\n  clampedBoxes = [[0, 0, 0, 1, 1]]", "want 6"},
		{"  youngModulus = 1\n  thickness = 0.1\n  membrane = false\n  bending = false", "no energy"},
		{"  youngModulus = 1\n  thickness = 0.1\n  thicknesses = [1, 2]", "thicknesses has 2 values"},
	} {
		s, err := graph.Load("e.toml", []byte(shellFlatScene(3, 3, c.fields)))
		if err == nil {
			err = s.Init()
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("fields %q: error %v, want one containing %q", c.fields, err, c.want)
		}
	}
}

// shellRotation returns a uniformly random rotation matrix.
func shellRotation(rng *rand.Rand) geom.Mat3 {
	q := [4]float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
	n := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])
	x, y, z, w := q[0]/n, q[1]/n, q[2]/n, q[3]/n
	return geom.Mat3{
		1 - 2*(y*y+z*z), 2 * (x*y - z*w), 2 * (x*z + y*w),
		2 * (x*y + z*w), 1 - 2*(x*x+z*z), 2 * (y*z - x*w),
		2 * (x*z - y*w), 2 * (y*z + x*w), 1 - 2*(x*x+y*y),
	}
}

// shellTransform returns Q(X + u) + b for every point X of rest (u may be nil).
func shellTransform(rest, u []float64, Q geom.Mat3, b geom.Vec3) []float64 {
	x := make([]float64, len(rest))
	for i := 0; i < len(rest)/3; i++ {
		p := geom.At(rest, i)
		if u != nil {
			p = p.Add(geom.At(u, i))
		}
		geom.Put(x, i, Q.MulVec(p).Add(b))
	}
	return x
}

func shellRandom(rng *rand.Rand, n int, amp float64) []float64 {
	u := make([]float64, n)
	for i := range u {
		u[i] = amp * (2*rng.Float64() - 1)
	}
	return u
}

// irregularSheetOBJ writes an OBJ surface: an n × n grid over [0, 1]²,
// its interior points jittered by up to 30% of a cell, cells cut along a
// random diagonal, lifted onto the dome z = 0.3 − 0.3((x−½)² + (y−½)²).
func irregularSheetOBJ(t *testing.T, n int, seed uint64) string {
	rng := rand.New(rand.NewPCG(seed, 7))
	var b strings.Builder
	h := 1 / float64(n)
	for j := 0; j <= n; j++ {
		for i := 0; i <= n; i++ {
			x, y := float64(i)*h, float64(j)*h
			if i > 0 && i < n {
				x += 0.3 * h * (2*rng.Float64() - 1)
			}
			if j > 0 && j < n {
				y += 0.3 * h * (2*rng.Float64() - 1)
			}
			fmt.Fprintf(&b, "v %.17g %.17g %.17g\n", x, y, 0.3-0.3*((x-0.5)*(x-0.5)+(y-0.5)*(y-0.5)))
		}
	}
	for j := 0; j < n; j++ {
		for i := 0; i < n; i++ {
			c00, c10, c01, c11 := 1+i+(n+1)*j, 2+i+(n+1)*j, 1+i+(n+1)*(j+1), 2+i+(n+1)*(j+1)
			if rng.IntN(2) == 0 {
				fmt.Fprintf(&b, "f %d %d %d\nf %d %d %d\n", c00, c10, c11, c00, c11, c01)
			} else {
				fmt.Fprintf(&b, "f %d %d %d\nf %d %d %d\n", c00, c10, c01, c10, c11, c01)
			}
		}
	}
	file := filepath.Join(t.TempDir(), "sheet.obj")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// TestShellIrregularMeshFile: on an irregular curved sheet read from an
// OBJ file by MeshLoader (jittered points, random diagonals, one edge
// clamped), the fixtures hold (1e-6), rigid motions of the unclamped
// sheet give zero force (1e-9 of a 1% deformation's), and the blocks are
// AddDForce's K.
func TestShellIrregularMeshFile(t *testing.T) {
	file := irregularSheetOBJ(t, 6, 3)
	for _, extra := range []string{"", "\n  clampedBoxes = [[-0.01, -0.01, -1, 0.01, 1.01, 1]]"} {
		ff, rest := loadShell(t, fmt.Sprintf(`
[[node]]
name = "sheet"
  [[node.object]]
  type = "MeshLoader"
  filename = %q
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[node.object]]
  type = "TriangularShellForceField"
  name = "shell"
  youngModulus = 1e6
  poissonRatio = 0.3
  thickness = 0.05%s
`, file, extra))
		rng := rand.New(rand.NewPCG(11, 12))
		u := shellRandom(rng, len(rest), 0.05)
		x := shellTransform(rest, u, shellRotation(rng), geom.Vec3{1, 2, 3})
		if !graphtest.CheckForceField(t, ff, graph.Vec3, x, nil, graphtest.Options{Trials: 3}) {
			t.Errorf("irregular mesh%s: fixture failed", extra)
		}
		checkAssembled(t, ff, x)
		if extra != "" {
			continue
		}
		f0 := make([]float64, len(rest))
		ff.AddForce(f0, shellTransform(rest, shellRandom(rng, len(rest), 0.01), geom.Identity3(), geom.Vec3{}), nil)
		f := make([]float64, len(rest))
		ff.AddForce(f, shellTransform(rest, nil, shellRotation(rng), geom.Vec3{-1, 0.5, 2}), nil)
		if m := maxAbsF(f); m > 1e-9*maxAbsF(f0) {
			t.Errorf("irregular mesh: rigid motion gives force %g (1%% deformation: %g)", m, maxAbsF(f0))
		}
	}
}

// shellStiffness returns −K = −∂f/∂x at x as a dense symmetric matrix
// (from AddDForce on unit vectors) and the forces at x; K must be
// symmetric to 1e-11 of |K_ij| + 1 (rounding of the gathered unit
// tangents, which are built symmetric: measured 1.4e-12 at rest).
func shellStiffness(t *testing.T, ff *forcefield.TriangularShellForceField, x []float64) (*mat.SymDense, []float64) {
	t.Helper()
	n := len(x)
	f := make([]float64, n)
	ff.AddForce(f, x, nil)
	S := mat.NewSymDense(n, nil)
	e, df := make([]float64, n), make([]float64, n)
	cols := make([][]float64, n)
	for j := 0; j < n; j++ {
		clear(e)
		clear(df)
		e[j] = 1
		ff.AddDForce(df, e, 1, 0)
		cols[j] = append([]float64(nil), df...)
	}
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			if d := cols[j][i] - cols[i][j]; math.Abs(d) > 1e-11*(math.Abs(cols[j][i])+1) {
				t.Fatalf("K is not symmetric: K[%d][%d] − K[%d][%d] = %g", i, j, j, i, d)
			}
			S.SetSym(i, j, -cols[j][i])
		}
	}
	return S, f
}

// TestShellDefiniteTangent: tangent = "definite" leaves the energy and
// the forces bit for bit as they are and gives a positive semi-definite
// stiffness −K where the exact one is indefinite (a sheet compressed by
// 10% along x and buckled: negative eigenvalues of order the membrane
// stress), and equals the exact tangent at rest (no stress: the linear
// benchmarks are unchanged). Bound: −1e-10 of the largest eigenvalue
// (rounding of a symmetric eigensolver).
func TestShellDefiniteTangent(t *testing.T) {
	fields := "  youngModulus = 1e6\n  poissonRatio = 0.3\n  thickness = 0.02"
	exact, rest := loadShell(t, shellFlatScene(6, 5, fields))
	def, _ := loadShell(t, shellFlatScene(6, 5, fields+"\n  tangent = \"definite\""))
	rng := rand.New(rand.NewPCG(9, 10))
	u := shellRandom(rng, len(rest), 0.01)
	x := make([]float64, len(rest))
	for i := 0; i < len(rest)/3; i++ {
		p := geom.At(rest, i)
		p = geom.Vec3{0.9 * p[0], p[1], 0.05 * math.Sin(2*math.Pi*p[0])}
		geom.Put(x, i, p.Add(geom.At(u, i)))
	}
	minEig := func(S *mat.SymDense) (float64, float64) {
		var es mat.EigenSym
		if !es.Factorize(S, false) {
			t.Fatal("eigen-decomposition failed")
		}
		v := es.Values(nil)
		return v[0], v[len(v)-1]
	}
	Se, fe := shellStiffness(t, exact, x)
	Sd, fd := shellStiffness(t, def, x)
	for i := range fe {
		if fe[i] != fd[i] {
			t.Fatalf("force %d: exact %g, definite %g", i, fe[i], fd[i])
		}
	}
	if we, wd := exact.PotentialEnergy(x), def.PotentialEnergy(x); we != wd {
		t.Errorf("energy: exact %g, definite %g", we, wd)
	}
	lo, hi := minEig(Se)
	t.Logf("exact tangent: eigenvalues of −K from %.4g to %.4g", lo, hi)
	if !(lo < -1e-3*hi) {
		t.Fatalf("the exact tangent is not indefinite here (smallest eigenvalue %g): the test shows nothing", lo)
	}
	lo, hi = minEig(Sd)
	t.Logf("definite tangent: eigenvalues of −K from %.4g to %.4g", lo, hi)
	if lo < -1e-10*hi {
		t.Errorf("definite tangent: eigenvalue %g < 0 (largest %g)", lo, hi)
	}
	// At rest both tangents are K₀.
	Se, _ = shellStiffness(t, exact, rest)
	Sd, _ = shellStiffness(t, def, rest)
	_, hi = minEig(Se)
	for i := 0; i < len(rest); i++ {
		for j := i; j < len(rest); j++ {
			if d := math.Abs(Se.At(i, j) - Sd.At(i, j)); d > 1e-12*hi {
				t.Fatalf("at rest: K[%d][%d] exact %g, definite %g", i, j, Se.At(i, j), Sd.At(i, j))
			}
		}
	}
}
