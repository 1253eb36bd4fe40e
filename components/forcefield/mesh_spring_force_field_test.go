package forcefield_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sofago/sofago/components/forcefield"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

// meshSpringScene: a 2×2×1-cell grid (24 tetrahedra) with a
// MeshSpringForceField of the given fields.
func meshSpringScene(n [3]int, max [3]float64, fields string) string {
	return fmt.Sprintf(`
[[node]]
name = "block"
  [[node.object]]
  type = "RegularGridTopology"
  min = [0, 0, 0]
  max = [%g, %g, %g]
  n = [%d, %d, %d]
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[node.object]]
  type = "MeshSpringForceField"
  name = "springs"
%s`, max[0], max[1], max[2], n[0], n[1], n[2], fields)
}

// denseK assembles AddKToMatrix into a dense matrix.
type denseK struct {
	n int
	a []float64
}

func (d *denseK) Add(r, c int, v float64) { d.a[d.n*r+c] += v }

// checkAssembled: the assembled K (scalar entries, and 3×3 blocks for
// graph.StiffnessBlockAssembler) times random vectors equals AddDForce
// (all at the last AddForce), to rounding.
func checkAssembled(t *testing.T, ff interface {
	graph.ForceField
	graph.StiffnessAssembler
}, x []float64) {
	t.Helper()
	n := len(x)
	ff.AddForce(make([]float64, n), x, nil)
	K := &denseK{n: n, a: make([]float64, n*n)}
	ff.AddKToMatrix(K, 1.5)
	rng := rand.New(rand.NewPCG(11, 12))
	d := graphtest.RandomDeriv(rng, n, 1)
	df := make([]float64, n)
	ff.AddDForce(df, d, 1.5, 0)
	scale := 0.0
	for _, v := range df {
		scale = math.Max(scale, math.Abs(v))
	}
	mats := []*denseK{K}
	if ba, ok := ff.(graph.StiffnessBlockAssembler); ok {
		pos := ba.StiffnessBlocks()
		vals := make([]float64, 9*len(pos)/2)
		ba.KBlocks(vals, 1.5)
		B := &denseK{n: n, a: make([]float64, n*n)}
		for b := 0; b < len(pos)/2; b++ {
			for r := 0; r < 3; r++ {
				for c := 0; c < 3; c++ {
					B.Add(3*int(pos[2*b])+r, 3*int(pos[2*b+1])+c, vals[9*b+3*r+c])
				}
			}
		}
		mats = append(mats, B)
	} else {
		t.Errorf("%s is not a graph.StiffnessBlockAssembler", ff.Base().TypeName)
	}
	for i, M := range mats {
		for r := 0; r < n; r++ {
			s := 0.0
			for c := 0; c < n; c++ {
				s += M.a[n*r+c] * d[c]
			}
			if math.Abs(s-df[r]) > 1e-12*scale {
				t.Errorf("%s: assembled (%s) K·d = %.15g, AddDForce = %.15g at row %d", ff.Base().TypeName, []string{"scalar", "blocks"}[i], s, df[r], r)
				return
			}
		}
	}
}

// TestMeshSpringFixture: edge springs (from youngModulus), boundary
// triangle springs with damping and altitude springs, through the
// fixture at random configurations: mildly deformed, nearly flat
// (squashed to 1% of the height with jitter, tetrahedra of both
// orientations), mirrored (every tetrahedron inverted) and exactly flat
// in z (every point–face altitude zero).
func TestMeshSpringFixture(t *testing.T) {
	s := graphtest.MustLoad(t, "mesh.toml", meshSpringScene([3]int{3, 3, 2}, [3]float64{1, 0.8, 0.5}, `  youngModulus = 1000
  trianglesStiffness = 50
  trianglesDamping = 2
  tetrahedraDamping = 0.5
  altitudeSprings = true
  altitudeStiffness = 300
`))
	ms := graphtest.Find[*forcefield.MeshSpringForceField](t, s, "block/springs")
	st := graphtest.Find[graph.State](t, s, "block/dofs")
	rest := append([]float64(nil), st.Vec(graph.RestPosition)...)
	rng := rand.New(rand.NewPCG(5, 6))
	configs := map[string]func(p []float64, i int){
		"deformed": func(p []float64, i int) {
			for a := 0; a < 3; a++ {
				p[a] += 0.15 * (2*rng.Float64() - 1)
			}
		},
		"nearly flat": func(p []float64, i int) {
			p[2] = 0.01*p[2] + 0.004*(2*rng.Float64()-1)
			p[0] += 0.05 * (2*rng.Float64() - 1)
			p[1] += 0.05 * (2*rng.Float64() - 1)
		},
		"inverted": func(p []float64, i int) {
			p[2] = -p[2]
			for a := 0; a < 3; a++ {
				p[a] += 0.05 * (2*rng.Float64() - 1)
			}
		},
		"flat": func(p []float64, i int) {
			// Each layer keeps its own x, y offset so no two points meet.
			p[0] += 0.1 * p[2]
			p[1] += 0.13 * p[2]
			p[2] = 0
		},
	}
	for _, name := range []string{"deformed", "nearly flat", "inverted", "flat"} {
		t.Run(name, func(t *testing.T) {
			for trial := 0; trial < 3; trial++ {
				x := append([]float64(nil), rest...)
				for i := 0; i < len(x)/3; i++ {
					configs[name](x[3*i:3*i+3], i)
				}
				v := graphtest.RandomDeriv(rng, len(x), 1)
				step, tol := 0.0, 1e-7
				if name == "nearly flat" {
					// Tetrahedra 100 times wider than high: the central
					// differences' truncation (∝ h²) and rounding (∝ 1/h)
					// errors meet at ~2e-7 for h = 3e-7 (measured over
					// h = 1e-5 … 3e-8), so this case is held to the
					// project's standard 1e-6 at that step.
					step, tol = 3e-7, 1e-6
				}
				checkSpringFixtureStep(t, ms, x, v, uint64(trial+1), step, tol)
				checkBalance(t, ms, x, v)
				checkAssembled(t, ms, x)
			}
		})
	}
}

// TestAltitudeSpringsAlone: altitude springs without edge springs, near
// and through degenerate tetrahedra (one corner moved through the
// opposite face of a single tetrahedron), where the altitude changes sign:
// fixture at every position, and the point–face force on the moving corner
// points back toward the rest side of the face.
func TestAltitudeSpringsAlone(t *testing.T) {
	s := graphtest.MustLoad(t, "alt.toml", meshSpringScene([3]int{2, 2, 2}, [3]float64{1, 1, 1}, `  altitudeSprings = true
  altitudeStiffness = 100
`))
	ms := graphtest.Find[*forcefield.MeshSpringForceField](t, s, "block/springs")
	if n := ms.NumSprings(); n != 0 {
		t.Fatalf("%d edge springs, want none", n)
	}
	st := graphtest.Find[graph.State](t, s, "block/dofs")
	rest := append([]float64(nil), st.Vec(graph.RestPosition)...)
	// Corner 7 (1, 1, 1) through the plane of corners 0, 3, 5... move the
	// top corner down through the whole cube: it crosses z = 0 planes of
	// the bottom faces and the diagonal planes.
	for _, z := range []float64{1, 0.5, 1e-3, 0, -1e-3, -0.4, -1} {
		x := append([]float64(nil), rest...)
		// Off every line through two grid corners (x, y ∉ {0, 1}, x ≠ y,
		// x ≠ 1 − y), so no face collapses onto a line and no edge from
		// corner 7 turns parallel to another.
		x[3*7+0], x[3*7+1], x[3*7+2] = 0.9, 0.8, z
		graphtest.CheckForceField(t, ms, graph.Vec3, x, nil, graphtest.Options{Seed: 3, Tolerance: 1e-7})
		f := make([]float64, len(x))
		ms.AddForce(f, x, nil)
		if z < 1 && f[3*7+2] <= 0 {
			t.Errorf("corner 7 at z = %g: vertical force %g, want upward (back toward rest)", z, f[3*7+2])
		}
	}
}

// TestMeshSpringDilation: with youngModulus, a uniform dilation
// x → (1+ε)x costs 3 E ε² V on any tetrahedral mesh (the bulk modulus
// 2E/3 of an isotropic solid with ν = 1/4), here on a Kuhn grid with
// unequal spacings and on the cylinder mesh of scenes/meshes. Under a
// dilation every l − l₀ is exactly ε l₀, so the energy has no higher-order
// terms; only the rounding of l − l₀ (1e-16/ε = 1e-12 relative) remains,
// hence the tolerance 1e-10.
func TestMeshSpringDilation(t *testing.T) {
	const E, eps = 2e5, 1e-4
	cyl := `
[[node]]
name = "block"
  [[node.object]]
  type = "MeshLoader"
  filename = "../../scenes/meshes/cylinder.msh"
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[node.object]]
  type = "MeshSpringForceField"
  name = "springs"
  youngModulus = 200000
`
	hexGrid := strings.Replace(meshSpringScene([3]int{4, 3, 5}, [3]float64{0.3, 0.25, 0.6}, "  youngModulus = 200000\n"),
		"  n = [4, 3, 5]\n", "  n = [4, 3, 5]\n  elements = \"hexahedra\"\n", 1)
	for name, text := range map[string]string{
		"grid":      meshSpringScene([3]int{4, 3, 5}, [3]float64{0.3, 0.25, 0.6}, "  youngModulus = 200000\n"),
		"cylinder":  cyl,
		"hexahedra": hexGrid,
	} {
		t.Run(name, func(t *testing.T) {
			// Named in this folder, so the mesh path resolves from here.
			s := graphtest.MustLoad(t, name+".toml", text)
			ms := graphtest.Find[*forcefield.MeshSpringForceField](t, s, "block/springs")
			st := graphtest.Find[graph.State](t, s, "block/dofs")
			topo := st.Base().Node.Topology()
			rest := st.Vec(graph.RestPosition)
			V := 0.0
			for _, tet := range topo.Tetrahedra() {
				V += tetVolume(rest, tet)
			}
			for _, hex := range graph.HexahedraOf(topo) {
				V += geom.HexVolume(rest, hex)
			}
			energy := func(e float64) float64 {
				x := make([]float64, len(rest))
				for i := range x {
					x[i] = (1 + e) * rest[i]
				}
				return ms.PotentialEnergy(x)
			}
			got := 0.5 * (energy(eps) + energy(-eps))
			want := 3 * E * eps * eps * V
			t.Logf("%d springs, V = %.6g m³: energy %.12g J, 3Eε²V = %.12g J (relative %.2g)", ms.NumSprings(), V, got, want, got/want-1)
			if math.Abs(got/want-1) > 1e-10 {
				t.Errorf("dilation energy %.12g J, want 3Eε²V = %.12g J", got, want)
			}
		})
	}
}

// TestMeshSpringKuhnStiffness: the homogenised stiffness tensor of the
// spring network on a Kuhn grid of cubic cells, from the energy of affine
// strains, against the closed form C = (E/6) Σ over the cell's six
// tetrahedra and their six edges of n⊗n⊗n⊗n (energy per tetrahedron
// ½ E V_t Σ_e (n·εn)²): in Voigt order (xx, yy, zz, yz, xz, xy),
// C_xxxx = 13/9 E (3 axis edges, 8 face diagonals at ¼, 6 body diagonals
// at 1/9 over 6 tetrahedra), C_xxyy = 5/18 E (4 face diagonals at ¼, 6
// body diagonals at 1/9), C_xxxy = 5/18 E, C_xxyz = 1/9 E (body diagonals
// only), C_yzyz = 5/18 E, C_yzxz = 1/9 E. Under uniaxial stress along x
// this network is 30/29 E stiff (S_xxxx = 29/30 E⁻¹). The energies are
// taken at ε = 1e-4 as the mean of ±ε (odd terms cancel): the quartic
// terms leave ε² = 1e-8 of the entries (at most 13/9 E), hence 2e-8 E.
func TestMeshSpringKuhnStiffness(t *testing.T) {
	closed := [6][6]float64{
		{26. / 18, 5. / 18, 5. / 18, 2. / 18, 5. / 18, 5. / 18},
		{5. / 18, 26. / 18, 5. / 18, 5. / 18, 2. / 18, 5. / 18},
		{5. / 18, 5. / 18, 26. / 18, 5. / 18, 5. / 18, 2. / 18},
		{2. / 18, 5. / 18, 5. / 18, 5. / 18, 2. / 18, 2. / 18},
		{5. / 18, 2. / 18, 5. / 18, 2. / 18, 5. / 18, 2. / 18},
		{5. / 18, 5. / 18, 2. / 18, 2. / 18, 2. / 18, 5. / 18},
	}
	checkNetworkTensor(t, "  youngModulus = 1e6\n", closed)
}

// TestMeshSpringHexahedraIsotropic: on hexahedral cubic cells
// (RegularGridTopology with elements = "hexahedra"), youngModulus gives the
// 28 springs of each cube the shares 0.15 (edges), 0.2 (face diagonals)
// and 0.45 (body diagonals) of its volume, which makes the network the
// isotropic solid of Young's modulus E and ν = ¼: λ = μ = 0.4 E,
// C₁₁₁₁ = λ + 2μ = 1.2 E, C₁₁₂₂ = λ, C₂₃₂₃ = μ, every coupling 0 (with
// E_x = 4a + 2f + 4b/9, C₁₁₂₂ = f + 4b/9 summed over a cube's springs).
func TestMeshSpringHexahedraIsotropic(t *testing.T) {
	var iso [6][6]float64
	for p := 0; p < 3; p++ {
		for q := 0; q < 3; q++ {
			iso[p][q] = 0.4
		}
		iso[p][p] = 1.2
		iso[p+3][p+3] = 0.4
	}
	checkNetworkTensor(t, "  youngModulus = 1e6\n", iso, `  elements = "hexahedra"`)
}

// checkNetworkTensor measures the homogenised stiffness tensor of the
// spring network of a MeshSpringForceField with the given fields (E =
// 1e6 Pa) on a 3×3×3 grid of cubic cells from the energies of affine
// strains, and compares it with want (Voigt order xx, yy, zz, yz, xz, xy,
// tensor shears, in units of E). The energies are taken at ε = 1e-4 as
// the mean of ±ε (odd terms cancel): the quartic terms leave ε² = 1e-8
// of the entries (at most 13/9 E), hence 2e-8 E.
func checkNetworkTensor(t *testing.T, fields string, want [6][6]float64, gridFields ...string) {
	t.Helper()
	const E, eps = 1e6, 1e-4
	h := 0.1
	text := meshSpringScene([3]int{4, 4, 4}, [3]float64{3 * h, 3 * h, 3 * h}, fields)
	if len(gridFields) > 0 {
		text = strings.Replace(text, "  n = [4, 4, 4]\n", "  n = [4, 4, 4]\n"+strings.Join(gridFields, "\n")+"\n", 1)
	}
	s := graphtest.MustLoad(t, "tensor.toml", text)
	ms := graphtest.Find[*forcefield.MeshSpringForceField](t, s, "block/springs")
	st := graphtest.Find[graph.State](t, s, "block/dofs")
	rest := st.Vec(graph.RestPosition)
	V := 27 * h * h * h
	voigt := [6][2]int{{0, 0}, {1, 1}, {2, 2}, {1, 2}, {0, 2}, {0, 1}}
	// Energy of the affine displacement u = ε X (ε symmetric), mean of ±.
	energy := func(strain [3][3]float64) float64 {
		w := 0.0
		for _, sgn := range []float64{1, -1} {
			x := make([]float64, len(rest))
			for i := 0; i < len(rest)/3; i++ {
				for a := 0; a < 3; a++ {
					x[3*i+a] = rest[3*i+a]
					for b := 0; b < 3; b++ {
						x[3*i+a] += sgn * strain[a][b] * rest[3*i+b]
					}
				}
			}
			w += 0.5 * ms.PotentialEnergy(x)
		}
		return w
	}
	unit := func(p int, scale float64) [3][3]float64 {
		var e [3][3]float64
		i, j := voigt[p][0], voigt[p][1]
		e[i][j] += scale
		if i != j {
			e[j][i] += scale
		}
		return e
	}
	sum := func(a, b [3][3]float64) [3][3]float64 {
		for i := range a {
			for j := range a[i] {
				a[i][j] += b[i][j]
			}
		}
		return a
	}
	// W(ε) = ½ V ε:C:ε with tensor strains: for the unit strain E_p of
	// Voigt entry p (two entries for a shear), ε:C:ε = mult(p)² C_pp, and
	// the cross term of E_p + E_q is 2·mult(p)·mult(q)·C_pq.
	mult := func(p int) float64 {
		if p >= 3 {
			return 2
		}
		return 1
	}
	worst := 0.0
	for p := 0; p < 6; p++ {
		for q := p; q < 6; q++ {
			wpq := energy(sum(unit(p, eps), unit(q, eps)))
			wp, wq := energy(unit(p, eps)), energy(unit(q, eps))
			var c float64
			if p == q {
				c = 2 * wp / (V * eps * eps * mult(p) * mult(p))
			} else {
				c = (wpq - wp - wq) / (V * eps * eps * mult(p) * mult(q))
			}
			c /= E
			worst = math.Max(worst, math.Abs(c-want[p][q]))
			if math.Abs(c-want[p][q]) > 2e-8 {
				t.Errorf("C[%d][%d] = %.10f E, closed form %.10f E", p, q, c, want[p][q])
			}
		}
	}
	t.Logf("%d springs: largest deviation from the closed-form tensor %.2g E", ms.NumSprings(), worst)
}

func tetVolume(x []float64, t [4]int) float64 {
	var d [3][3]float64
	for c := 1; c < 4; c++ {
		for a := 0; a < 3; a++ {
			d[c-1][a] = x[3*t[c]+a] - x[3*t[0]+a]
		}
	}
	return (d[0][0]*(d[1][1]*d[2][2]-d[1][2]*d[2][1]) - d[0][1]*(d[1][0]*d[2][2]-d[1][2]*d[2][0]) + d[0][2]*(d[1][0]*d[2][1]-d[1][1]*d[2][0])) / 6
}

// TestMeshSpringErrors: asking for springs the topology cannot give is an
// error at the object's line.
func TestMeshSpringErrors(t *testing.T) {
	grid := func(n string, fields string) string {
		return `
[[node]]
name = "n"
  [[node.object]]
  type = "RegularGridTopology"
  min = [0, 0, 0]
  max = [1, 1, 0]
  n = ` + n + `
  [[node.object]]
  type = "MechanicalObject"
  [[node.object]]
  type = "MeshSpringForceField"
` + fields
	}
	for _, c := range []struct{ text, want string }{
		{grid("[3, 3, 1]", "  tetrahedraStiffness = 10\n"), "has no tetrahedra"},
		{grid("[3, 3, 1]", "  youngModulus = 1e3\n"), "has neither"},
		{grid("[3, 3, 1]", "  cubesStiffness = 10\n"), "has no hexahedra"},
		{grid("[3, 3, 1]", "  altitudeSprings = true\n  altitudeStiffness = 5\n"), "has no tetrahedra"},
		{grid("[3, 3, 1]", "  altitudeSprings = true\n"), "needs a positive altitudeStiffness"},
		{grid("[3, 3, 1]", ""), "no springs"},
		{grid("[3, 3, 1]", "  youngModulus = 1e3\n  tetrahedraStiffness = 10\n"), "not both"},
		{grid("[3, 3, 1]", "  trianglesStiffness = 10\n"), ""},
	} {
		s, err := graph.Load("bad.toml", []byte(c.text))
		if err == nil {
			err = s.Init()
		}
		switch {
		case c.want == "" && err != nil:
			t.Errorf("unexpected error %v", err)
		case c.want != "" && err == nil:
			t.Errorf("no error, want %q", c.want)
		case c.want != "" && (!strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "bad.toml:")):
			t.Errorf("error %q: want %q at its line", err, c.want)
		}
	}
}

// TestTriangularBendingSpringsFixture: on a flat 4×4 grid of triangles
// (checkerboard diagonals), one bending spring per interior edge between
// the two opposite corners; fixture on random 3-D foldings.
func TestTriangularBendingSpringsFixture(t *testing.T) {
	s := graphtest.MustLoad(t, "cloth.toml", `
[[node]]
name = "sheet"
  [[node.object]]
  type = "RegularGridTopology"
  min = [0, 0, 0]
  max = [1, 1, 0]
  n = [5, 5, 1]
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[node.object]]
  type = "TriangularBendingSprings"
  name = "bend"
  stiffness = 40
  damping = 0.3
`)
	bs := graphtest.Find[*forcefield.TriangularBendingSprings](t, s, "sheet/bend")
	st := graphtest.Find[graph.State](t, s, "sheet/dofs")
	// 4×4 cells, 32 triangles: 40 grid edges inside (3·4 + 4·3 = 24
	// interior axis edges) plus 16 diagonals, all interior.
	if n := bs.NumSprings(); n != 24+16 {
		t.Errorf("%d bending springs, want 40 (24 interior grid edges + 16 diagonals)", n)
	}
	rest := st.Vec(graph.RestPosition)
	for s := 0; s < bs.NumSprings(); s++ {
		a, b, l0 := bs.Spring(s)
		d := math.Hypot(rest[3*a]-rest[3*b], rest[3*a+1]-rest[3*b+1])
		if l0 != d || !(l0 > 0.25) {
			t.Errorf("spring %d (%d, %d): rest length %g, distance %g: a bending spring spans two cells", s, a, b, l0, d)
		}
	}
	rng := rand.New(rand.NewPCG(9, 10))
	for trial := 0; trial < 4; trial++ {
		x := append([]float64(nil), rest...)
		for i := range x {
			x[i] += 0.1 * (2*rng.Float64() - 1)
		}
		v := graphtest.RandomDeriv(rng, len(x), 1)
		checkSpringFixture(t, bs, x, v, uint64(trial+1))
		checkBalance(t, bs, x, v)
		checkAssembled(t, bs, x)
	}
	// Folding the flat sheet about its middle line x = 0.5 shortens the
	// springs across it and stores energy; the flat sheet has none.
	if w := bs.PotentialEnergy(rest); w != 0 {
		t.Errorf("flat sheet: bending energy %g, want 0", w)
	}
	x := append([]float64(nil), rest...)
	for i := 0; i < len(x)/3; i++ {
		if dx := x[3*i] - 0.5; dx > 0 {
			x[3*i], x[3*i+2] = 0.5+dx*math.Cos(1), dx*math.Sin(1)
		}
	}
	if w := bs.PotentialEnergy(x); !(w > 0) {
		t.Errorf("folded sheet: bending energy %g, want > 0", w)
	}
}

// TestMeshSpringHexahedraFixture: springs between every pair of corners of
// the hexahedra of a 2×2×1-cell grid (12 + 12 + 4 per cube, shared ones
// once), through the fixture at random configurations.
func TestMeshSpringHexahedraFixture(t *testing.T) {
	text := strings.Replace(meshSpringScene([3]int{3, 3, 2}, [3]float64{1, 0.8, 0.5}, "  cubesStiffness = 300\n  cubesDamping = 0.7\n"),
		"  n = [3, 3, 2]\n", "  n = [3, 3, 2]\n  elements = \"hexahedra\"\n", 1)
	s := graphtest.MustLoad(t, "hex.toml", text)
	ms := graphtest.Find[*forcefield.MeshSpringForceField](t, s, "block/springs")
	// One spring per distinct pair of corners of some hexahedron.
	pairs := map[[2]int]bool{}
	for _, hx := range graph.HexahedraOf(graphtest.Find[graph.State](t, s, "block/dofs").Base().Node.Topology()) {
		for i := 0; i < 8; i++ {
			for j := i + 1; j < 8; j++ {
				a, b := hx[i], hx[j]
				if a > b {
					a, b = b, a
				}
				pairs[[2]int{a, b}] = true
			}
		}
	}
	if len(pairs) == 0 || ms.NumSprings() != len(pairs) {
		t.Fatalf("%d springs for %d distinct corner pairs", ms.NumSprings(), len(pairs))
	}
	rest := append([]float64(nil), graphtest.Find[graph.State](t, s, "block/dofs").Vec(graph.RestPosition)...)
	rng := rand.New(rand.NewPCG(15, 16))
	for trial := 0; trial < 3; trial++ {
		x := append([]float64(nil), rest...)
		for i := range x {
			x[i] += 0.1 * (2*rng.Float64() - 1)
		}
		v := graphtest.RandomDeriv(rng, len(x), 1)
		checkSpringFixture(t, ms, x, v, uint64(trial+1))
		checkBalance(t, ms, x, v)
		checkAssembled(t, ms, x)
	}
}
