package mass_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sofago/sofago/components/mass"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

// The tests of this file pin the triangle-surface masses (DiagonalMass and
// MeshMatrixMass on a topology with triangles and no volume cells) against
// integrals over the surface computed in closed form here: the surfaces
// are unions of axis-aligned rectangles (a flat grid; the six faces of a
// box read from an OBJ file), on which ∫ x^i y^j z^k dA is a product of
// one-dimensional integrals.

// rect is an axis-aligned rectangle: coordinate axis = at, the other two
// (in increasing axis order) over [lo, hi].
type rect struct {
	axis   int
	at     float64
	lo, hi [2]float64
}

// moment returns ∫ x^e[0] y^e[1] z^e[2] dA over the rectangles.
func moment(rs []rect, e [3]int) float64 {
	s := 0.0
	for _, r := range rs {
		v := math.Pow(r.at, float64(e[r.axis]))
		k := 0
		for a := 0; a < 3; a++ {
			if a == r.axis {
				continue
			}
			p := float64(e[a] + 1)
			v *= (math.Pow(r.hi[k], p) - math.Pow(r.lo[k], p)) / p
			k++
		}
		s += v
	}
	return s
}

// linear is the field c[0] + c[1] x + c[2] y + c[3] z.
type linear [4]float64

func (c linear) at(p []float64) float64 { return c[0] + c[1]*p[0] + c[2]*p[1] + c[3]*p[2] }

// intProduct returns ∫ a b dA over the rectangles for linear a, b,
// expanded into moments of degree ≤ 2.
func intProduct(rs []rect, a, b linear) float64 {
	exp := [4][3]int{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
	s := 0.0
	for i := 0; i < 4; i++ {
		for j := 0; j < 4; j++ {
			if a[i] == 0 || b[j] == 0 {
				continue
			}
			e := [3]int{exp[i][0] + exp[j][0], exp[i][1] + exp[j][1], exp[i][2] + exp[j][2]}
			s += a[i] * b[j] * moment(rs, e)
		}
	}
	return s
}

// sheetScene is a flat grid in the plane y = 0.7 over [x0, x1] × [z0, z1]
// with a mass of type typ (named "n/mass") under gravity (1, −9.81, 2),
// and the rectangle it covers.
func sheetScene(typ, massTOML string) (string, []rect) {
	const x0, x1, z0, z1, y = -0.3, 0.9, 0.2, 0.7, 0.7
	return fmt.Sprintf(`
gravity = [1, -9.81, 2]
[[node]]
name = "n"
  [[node.object]]
  type = "RegularGridTopology"
  min = [%g, %g, %g]
  max = [%g, %g, %g]
  n = [7, 1, 4]
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[node.object]]
  type = %q
  name = "mass"
  %s
`, x0, y, z0, x1, y, z1, typ, massTOML), []rect{{axis: 1, at: y, lo: [2]float64{x0, z0}, hi: [2]float64{x1, z1}}}
}

// boxOBJ writes the surface of the box [0, a] × [0, b] × [0, c] as an OBJ
// file (8 vertices, 12 triangles, some faces split along one diagonal,
// some along the other) and returns its path and its six faces.
func boxOBJ(t *testing.T, a, b, c float64) (string, []rect) {
	t.Helper()
	var sb strings.Builder
	for k := 0; k < 8; k++ {
		fmt.Fprintf(&sb, "v %g %g %g\n", float64(k&1)*a, float64(k>>1&1)*b, float64(k>>2&1)*c)
	}
	// Each face as a quad of 1-based vertex numbers, split in two.
	quads := [][4]int{{1, 3, 4, 2}, {5, 6, 8, 7}, {1, 2, 6, 5}, {3, 7, 8, 4}, {1, 5, 7, 3}, {2, 4, 8, 6}}
	for i, q := range quads {
		if i%2 == 0 {
			fmt.Fprintf(&sb, "f %d %d %d\nf %d %d %d\n", q[0], q[1], q[2], q[0], q[2], q[3])
		} else {
			fmt.Fprintf(&sb, "f %d %d %d\nf %d %d %d\n", q[0], q[1], q[3], q[1], q[2], q[3])
		}
	}
	path := filepath.Join(t.TempDir(), "box.obj")
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var rs []rect
	for _, at := range []float64{0, a} {
		rs = append(rs, rect{0, at, [2]float64{0, 0}, [2]float64{b, c}})
	}
	for _, at := range []float64{0, b} {
		rs = append(rs, rect{1, at, [2]float64{0, 0}, [2]float64{a, c}})
	}
	for _, at := range []float64{0, c} {
		rs = append(rs, rect{2, at, [2]float64{0, 0}, [2]float64{a, b}})
	}
	return path, rs
}

func boxScene(typ, objPath, massTOML string) string {
	return fmt.Sprintf(`
gravity = [1, -9.81, 2]
[[node]]
name = "n"
  [[node.object]]
  type = "MeshLoader"
  filename = %q
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[node.object]]
  type = %q
  name = "mass"
  %s
`, objPath, typ, massTOML)
}

// surfaceCase is one surface with its mass per area ρh.
type surfaceCase struct {
	name  string
	scene func(typ string) string
	rects []rect
	rhoH  float64
}

func surfaceCases(t *testing.T) []surfaceCase {
	// ρ = 1200 kg/m³, h = 2.5 mm: ρh = 3 kg/m².
	const fields = "massDensity = 1200\n  thickness = 0.0025"
	_, sheet := sheetScene("", "")
	obj, box := boxOBJ(t, 0.4, 0.25, 0.6)
	return []surfaceCase{
		{"sheet", func(typ string) string { s, _ := sheetScene(typ, fields); return s }, sheet, 3},
		{"sheet/surfaceDensity", func(typ string) string { s, _ := sheetScene(typ, "surfaceDensity = 3"); return s }, sheet, 3},
		{"sheet/totalMass", func(typ string) string {
			s, _ := sheetScene(typ, fmt.Sprint("totalMass = ", 3*moment(sheet, [3]int{})))
			return s
		}, sheet, 3},
		{"box", func(typ string) string { return boxScene(typ, obj, fields) }, box, 3},
	}
}

// loadSurface loads a case and returns the scalar mass matrix products
// the tests need through AddMDx on the x components (the same scalar
// matrix acts on y and z; TestTriangleMassesComponents checks that).
func loadSurface(t *testing.T, c surfaceCase, typ string) (graph.Mass, []float64) {
	t.Helper()
	s := graphtest.MustLoad(t, "m.toml", c.scene(typ))
	m := graphtest.Find[graph.Mass](t, s, "n/mass")
	st := graphtest.Find[graph.State](t, s, "n/dofs")
	return m, st.Vec(graph.RestPosition)
}

// bilinear returns wᵀ M_s u for the scalar fields w, u at the points,
// through AddMDx on the x components.
func bilinear(m graph.Mass, pts []float64, w, u linear) float64 {
	n := len(pts) / 3
	dx := make([]float64, 3*n)
	for i := 0; i < n; i++ {
		dx[3*i] = u.at(pts[3*i : 3*i+3])
	}
	df := make([]float64, 3*n)
	m.AddMDx(df, dx, 1)
	s := 0.0
	for i := 0; i < n; i++ {
		s += w.at(pts[3*i:3*i+3]) * df[3*i]
	}
	return s
}

// TestTriangleMassMoments: both masses have the total mass ρh·area and
// the first moments ρh∫x dA exactly (lumping A/3 onto the corners puts
// each triangle's mass at its centroid); the consistent mass also has the
// exact second moments, wᵀMu = ρh∫w u dA for every pair of linear fields
// (the consistent mass times a linear field, tested against every linear
// field), while the lumped one does not. On the flat sheet and on the
// surface of a box read from an OBJ file (all six orientations), with
// ρh from massDensity·thickness, surfaceDensity or totalMass. Tolerance
// 1e-13 relative: sums of ≤ 100 terms of one sign or of mixed signs whose
// magnitudes are within 10× of the result.
func TestTriangleMassMoments(t *testing.T) {
	fields := []linear{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}, {0.3, -1.1, 0.6, 2.2}}
	for _, c := range surfaceCases(t) {
		area := moment(c.rects, [3]int{})
		for _, typ := range []string{"DiagonalMass", "MeshMatrixMass"} {
			m, pts := loadSurface(t, c, typ)
			var vm []float64
			switch mm := m.(type) {
			case *mass.DiagonalMass:
				vm = mm.VertexMasses()
			case *mass.MeshMatrixMass:
				vm = mm.VertexMasses()
			}
			if got, want := sum(vm), c.rhoH*area; math.Abs(got-want) > 1e-13*want {
				t.Errorf("%s %s: total mass %.17g, want ρh·area = %.17g", c.name, typ, got, want)
			}
			worstLumped := 0.0
			for i, w := range fields {
				for _, u := range fields[i:] {
					got := bilinear(m, pts, w, u)
					want := c.rhoH * intProduct(c.rects, w, u)
					scale := c.rhoH * math.Sqrt(intProduct(c.rects, w, w)*intProduct(c.rects, u, u))
					err := math.Abs(got-want) / scale
					switch {
					case typ == "MeshMatrixMass" || i == 0: // i = 0: w = 1, a zeroth or first moment
						if err > 1e-13 {
							t.Errorf("%s %s: ρh∫w·u dA for w = %v, u = %v: %.17g, want %.17g (rel. %.2g)", c.name, typ, w, u, got, want, err)
						}
					default:
						worstLumped = math.Max(worstLumped, err)
					}
				}
			}
			if typ == "DiagonalMass" {
				t.Logf("%s: lumped second moments off by up to %.3g relative", c.name, worstLumped)
				// O(cell²/size²), ~1e-2 here: demand 1e-4 so the test sees the lumping.
				if worstLumped < 1e-4 {
					t.Errorf("%s: lumped second moments exact to %.3g: not a lumped mass", c.name, worstLumped)
				}
			}
		}
	}
}

// TestTriangleMassEntries: every entry of the consistent surface matrix
// on the box (12 triangles of three sizes) against the element formula
// ρh·A/12·(1 + δ_ab) summed here from the file's faces, and the lumped
// masses = row sums ρh Σ A/3; a vertex in no triangle (none here) would
// have zero mass. Exact up to a few ulps: 1e-15 relative to the largest.
func TestTriangleMassEntries(t *testing.T) {
	const a, b, c, rhoH = 0.4, 0.25, 0.6, 3.0
	obj, _ := boxOBJ(t, a, b, c)
	text, err := os.ReadFile(obj)
	if err != nil {
		t.Fatal(err)
	}
	var pts [][3]float64
	var tris [][3]int
	for _, line := range strings.Split(string(text), "\n") {
		var p [3]float64
		var f [3]int
		if n, _ := fmt.Sscanf(line, "v %g %g %g", &p[0], &p[1], &p[2]); n == 3 {
			pts = append(pts, p)
		} else if n, _ := fmt.Sscanf(line, "f %d %d %d", &f[0], &f[1], &f[2]); n == 3 {
			tris = append(tris, [3]int{f[0] - 1, f[1] - 1, f[2] - 1})
		}
	}
	want := make([][]float64, len(pts))
	for i := range want {
		want[i] = make([]float64, len(pts))
	}
	for _, tr := range tris {
		var e1, e2 [3]float64
		for k := 0; k < 3; k++ {
			e1[k] = pts[tr[1]][k] - pts[tr[0]][k]
			e2[k] = pts[tr[2]][k] - pts[tr[0]][k]
		}
		cx := [3]float64{e1[1]*e2[2] - e1[2]*e2[1], e1[2]*e2[0] - e1[0]*e2[2], e1[0]*e2[1] - e1[1]*e2[0]}
		A := 0.5 * math.Sqrt(cx[0]*cx[0]+cx[1]*cx[1]+cx[2]*cx[2])
		for _, i := range tr {
			for _, j := range tr {
				if i == j {
					want[i][j] += rhoH * A / 6
				} else {
					want[i][j] += rhoH * A / 12
				}
			}
		}
	}
	s := graphtest.MustLoad(t, "m.toml", boxScene("MeshMatrixMass", obj, "surfaceDensity = 3"))
	mm := graphtest.Find[*mass.MeshMatrixMass](t, s, "n/mass")
	dm := graphtest.Find[*mass.DiagonalMass](t, graphtest.MustLoad(t, "m.toml", boxScene("DiagonalMass", obj, "surfaceDensity = 3")), "n/mass")
	rowPtr, col, val := mm.ScalarMatrix()
	if len(rowPtr) != len(pts)+1 {
		t.Fatalf("%d rows, want %d (MeshLoader reordered the points?)", len(rowPtr)-1, len(pts))
	}
	mx := rhoH * (a*b + b*c + c*a) // larger than any entry
	for i := range pts {
		row := 0.0
		for j := range pts {
			got := csrEntry(rowPtr, col, val, i, j)
			if math.Abs(got-want[i][j]) > 1e-15*mx {
				t.Errorf("M[%d][%d] = %.17g, want %.17g", i, j, got, want[i][j])
			}
			row += want[i][j]
		}
		if math.Abs(dm.VertexMasses()[i]-row) > 1e-15*mx {
			t.Errorf("lumped mass of vertex %d: %.17g, want the row sum %.17g", i, dm.VertexMasses()[i], row)
		}
	}
	// Stored entries outside the element pattern must be absent: a box
	// vertex meets 4 or 5 others through triangle edges, never its opposite corner.
	for i := range pts {
		if got := csrEntry(rowPtr, col, val, i, 7-i); got != 0 {
			t.Errorf("M[%d][%d] = %g between opposite corners, want 0", i, 7-i, got)
		}
	}
}

// TestTriangleMassesRigidMotions: the kinetic energy ½vᵀMv of a rigid
// motion v = v₀ + ω × (x − p) of the box surface: for both masses exact
// for a translation (½ρh·area·|v₀|²); for the consistent mass exact for
// the motion with rotation, ½ρh∫|v|² dA (each component of v is linear);
// the lumped mass is off there. The same scalar matrix acts on x, y and
// z (TestTriangleMassMoments looks at x only). Tolerance 1e-13.
func TestTriangleMassesRigidMotions(t *testing.T) {
	obj, rs := boxOBJ(t, 0.4, 0.25, 0.6)
	const rhoH = 3.0
	v0 := [3]float64{0.3, -1.2, 0.7}
	w := [3]float64{0.3, -0.5, 0.8}
	p := [3]float64{0.1, 0.2, -0.3}
	// v_k = v0_k + (ω × (x − p))_k as linear fields.
	var comps [3]linear
	cross := func(k int, r [3]float64) float64 { // (ω × r)_k
		a, b := (k+1)%3, (k+2)%3
		return w[a]*r[b] - w[b]*r[a]
	}
	for k := 0; k < 3; k++ {
		comps[k][0] = v0[k] - cross(k, p)
		for j := 0; j < 3; j++ {
			var e [3]float64
			e[j] = 1
			comps[k][1+j] = cross(k, e)
		}
	}
	exactRot := 0.0
	for k := 0; k < 3; k++ {
		exactRot += 0.5 * rhoH * intProduct(rs, comps[k], comps[k])
	}
	v2 := v0[0]*v0[0] + v0[1]*v0[1] + v0[2]*v0[2]
	exactTrans := 0.5 * rhoH * moment(rs, [3]int{}) * v2
	for _, typ := range []string{"DiagonalMass", "MeshMatrixMass"} {
		s := graphtest.MustLoad(t, "m.toml", boxScene(typ, obj, "surfaceDensity = 3"))
		m := graphtest.Find[graph.Mass](t, s, "n/mass")
		pts := graphtest.Find[graph.State](t, s, "n/dofs").Vec(graph.RestPosition)
		nv := len(pts) / 3
		vt := make([]float64, 3*nv)
		vr := make([]float64, 3*nv)
		for i := 0; i < nv; i++ {
			for k := 0; k < 3; k++ {
				vt[3*i+k] = v0[k]
				vr[3*i+k] = comps[k].at(pts[3*i : 3*i+3])
			}
		}
		if ke := m.KineticEnergy(vt); math.Abs(ke-exactTrans) > 1e-13*exactTrans {
			t.Errorf("%s: translation kinetic energy %.17g, want %.17g", typ, ke, exactTrans)
		}
		ke := m.KineticEnergy(vr)
		rel := (ke - exactRot) / exactRot
		t.Logf("%s: rigid motion with rotation: ½vᵀMv = %.15g J, exact %.15g (rel. %+.2g)", typ, ke, exactRot, rel)
		if typ == "MeshMatrixMass" && math.Abs(rel) > 1e-13 {
			t.Errorf("consistent mass: rigid-motion kinetic energy %.17g, exact %.17g", ke, exactRot)
		}
		if typ == "DiagonalMass" && math.Abs(rel) < 1e-4 {
			t.Errorf("lumped mass: rigid-motion kinetic energy as exact as the consistent one (rel. %.2g)", rel)
		}
	}
}

// TestTriangleMassesGravity: the weight is M·g = the lumped masses times
// g for both masses (bit for bit the same), its total ρh·area·g, and the
// gravity passes the force-field fixture (force = −∇W, W linear).
func TestTriangleMassesGravity(t *testing.T) {
	g := [3]float64{1, -9.81, 2}
	c := surfaceCases(t)[0]
	area := moment(c.rects, [3]int{})
	var forces [][]float64
	for _, typ := range []string{"DiagonalMass", "MeshMatrixMass"} {
		m, pts := loadSurface(t, c, typ)
		f := make([]float64, len(pts))
		m.(graph.ForceField).AddForce(f, pts, nil)
		for k := 0; k < 3; k++ {
			s := 0.0
			for i := k; i < len(f); i += 3 {
				s += f[i]
			}
			if want := c.rhoH * area * g[k]; math.Abs(s-want) > 1e-13*math.Abs(want) {
				t.Errorf("%s: total weight along %d = %.17g, want ρh·area·g = %.17g", typ, k, s, want)
			}
		}
		forces = append(forces, f)
		graphtest.CheckForceField(t, m.(graph.ForceField), graph.Vec3, pts, nil, graphtest.Options{})
	}
	for i := range forces[0] {
		if forces[0][i] != forces[1][i] {
			t.Fatalf("weight entry %d: DiagonalMass %.17g, MeshMatrixMass %.17g", i, forces[0][i], forces[1][i])
		}
	}
}

// TestTriangleMassesRegions: on a surface, regions and
// massDensityPerElement are volume densities multiplied by the
// thickness. A box region over x > 0.3 (a grid line, so every triangle
// is on one side) of twice the density makes the mass ρh(A₁ + 2A₂), and
// the per-triangle list with the same values gives the same matrix.
func TestTriangleMassesRegions(t *testing.T) {
	_, rs := sheetScene("", "")
	r := rs[0] // x over [−0.3, 0.9], z over [0.2, 0.7]; grid lines every 0.2 in x
	const rho, h = 1200.0, 0.0025
	a2 := (r.hi[0] - 0.3) * (r.hi[1] - r.lo[1])
	a1 := moment(rs, [3]int{}) - a2
	want := rho * h * (a1 + 2*a2)
	region := fmt.Sprintf("massDensity = %g\n  thickness = %g\n  regions = [{box = [0.3, -1, -1, 2, 2, 2], massDensity = %g}]", rho, h, 2*rho)
	text, _ := sheetScene("MeshMatrixMass", region)
	s := graphtest.MustLoad(t, "m.toml", text)
	mm := graphtest.Find[*mass.MeshMatrixMass](t, s, "n/mass")
	if got := sum(mm.VertexMasses()); math.Abs(got-want) > 1e-13*want {
		t.Errorf("total mass with a region %.17g, want ρh(A₁ + 2A₂) = %.17g", got, want)
	}
	// The same densities as a list, triangle by triangle (centroid x > 0.3).
	topo := graphtest.Find[graph.Topology](t, s, "n/RegularGridTopology")
	pts := topo.Points()
	var list []string
	for _, tr := range topo.Triangles() {
		cx := (pts[3*tr[0]] + pts[3*tr[1]] + pts[3*tr[2]]) / 3
		d := rho
		if cx > 0.3 {
			d = 2 * rho
		}
		list = append(list, fmt.Sprint(d))
	}
	text, _ = sheetScene("MeshMatrixMass", fmt.Sprintf("massDensity = %g\n  thickness = %g\n  massDensityPerElement = [%s]", rho, h, strings.Join(list, ", ")))
	mm2 := graphtest.Find[*mass.MeshMatrixMass](t, graphtest.MustLoad(t, "m.toml", text), "n/mass")
	_, _, v1 := mm.ScalarMatrix()
	_, _, v2 := mm2.ScalarMatrix()
	for i := range v1 {
		if v1[i] != v2[i] {
			t.Fatalf("entry %d: regions %.17g, massDensityPerElement %.17g", i, v1[i], v2[i])
		}
	}
}

// TestTriangleMassesFreeFall: a sheet under gravity alone falls with
// a = g whatever M is (M·a = M·g): implicit Euler gives v_n = n·h·g and
// x_n = x₀ + h²·g·n(n+1)/2, and so does symplectic explicit Euler. Run
// with the lumped mass by its inverse (explicit), with the consistent
// mass by CG (explicit and implicit) and by the assembled sparse Cholesky
// factor (implicit). 1e-12 relative, as TestMeshMatrixMassFreeFall: CG to
// 1e-15, a well-conditioned mass (element eigenvalues 1:4).
func TestTriangleMassesFreeFall(t *testing.T) {
	const cg = "\n  [[node.object]]\n  type = \"CGLinearSolver\"\n  iterations = 200\n  tolerance = 1e-15\n"
	for _, c := range []struct{ name, mass, solvers string }{
		{"explicit, lumped", "DiagonalMass", "  [[node.object]]\n  type = \"EulerExplicitSolver\"\n"},
		{"explicit+CG, consistent", "MeshMatrixMass", "  [[node.object]]\n  type = \"EulerExplicitSolver\"" + cg},
		{"implicit+CG, consistent", "MeshMatrixMass", "  [[node.object]]\n  type = \"EulerImplicitSolver\"" + cg},
		{"implicit+Cholesky, consistent", "MeshMatrixMass", "  [[node.object]]\n  type = \"EulerImplicitSolver\"\n  [[node.object]]\n  type = \"SparseCholeskySolver\"\n"},
		{"implicit+Cholesky, lumped", "DiagonalMass", "  [[node.object]]\n  type = \"EulerImplicitSolver\"\n  [[node.object]]\n  type = \"SparseCholeskySolver\"\n"},
	} {
		text, _ := sheetScene(c.mass, "massDensity = 1200\n  thickness = 0.0025")
		text = strings.Replace(text, "gravity = [1, -9.81, 2]", "dt = 0.01\ngravity = [1, -9.81, 2]", 1)
		text = strings.Replace(text, "name = \"n\"\n", "name = \"n\"\n"+c.solvers, 1)
		s := graphtest.MustLoad(t, "fall.toml", text)
		st := graphtest.Find[graph.State](t, s, "n/dofs")
		x0 := append([]float64(nil), st.Vec(graph.Position)...)
		const steps, h = 30, 0.01
		for i := 0; i < steps; i++ {
			if err := s.Step(); err != nil {
				t.Fatalf("%s: step %d: %v", c.name, i, err)
			}
		}
		g := [3]float64{1, -9.81, 2}
		x, v := st.Vec(graph.Position), st.Vec(graph.Velocity)
		worstX, worstV := 0.0, 0.0
		for i := range x {
			gi := g[i%3]
			wantU := h * h * gi * steps * (steps + 1) / 2
			worstX = math.Max(worstX, math.Abs(x[i]-x0[i]-wantU)/(h*h*9.81*steps*(steps+1)/2))
			worstV = math.Max(worstV, math.Abs(v[i]-steps*h*gi)/(steps*h*9.81))
		}
		t.Logf("%s: after %d steps, max relative error of x %.2g, of v %.2g", c.name, steps, worstX, worstV)
		if worstX > 1e-12 || worstV > 1e-12 {
			t.Errorf("%s: free fall off the closed form: relative error %.3g in x, %.3g in v", c.name, worstX, worstV)
		}
	}
}

// TestTriangleMassErrors: a surface has no default density, massDensity
// alone is refused (SOFA reads it as a mass per area on triangles), the
// surface fields are refused on a volume mesh, and contradictory fields
// are refused at load; each error names the file and line of the mass,
// its node and what to give instead.
func TestTriangleMassErrors(t *testing.T) {
	volume := tetMassScene("DiagonalMass", [3]float64{}, [3]float64{1, 1, 1}, [3]int{2, 2, 2}, "massDensity = 1000\n  thickness = 0.01")
	for _, c := range []struct {
		name, text string
		want       []string
	}{
		{"no density", "", []string{"triangle surface", "no default density", "thickness", "surfaceDensity", "totalMass"}},
		{"massDensity alone", "massDensity = 1200", []string{"massDensity = 1200 kg/m³ needs the sheet's thickness", "surfaceDensity", "SOFA"}},
		{"thickness alone", "thickness = 0.01", []string{"thickness = 0.01 m needs massDensity"}},
		{"surfaceDensity and massDensity", "surfaceDensity = 3\n  massDensity = 1200", []string{"give it alone"}},
		{"surfaceDensity and thickness", "surfaceDensity = 3\n  thickness = 0.01", []string{"give it alone"}},
		{"thickness and totalMass", "thickness = 0.01\n  totalMass = 2", []string{"thickness would be ignored"}},
		{"surfaceDensity and regions", "surfaceDensity = 3\n  regions = [{box = [0, 0, 0, 1, 1, 1], massDensity = 5}]", []string{"cannot be combined with per-element densities"}},
		{"per-element list of the wrong length", "massDensity = 1200\n  thickness = 0.01\n  massDensityPerElement = [1, 2]", []string{"massDensityPerElement has 2 values", "36 triangles"}},
		{"thickness on a volume", volume, []string{"thickness and surfaceDensity are for triangle surfaces", "volume cells"}},
	} {
		for _, typ := range []string{"DiagonalMass", "MeshMatrixMass"} {
			text := c.text
			if text != volume {
				text, _ = sheetScene(typ, c.text)
			} else {
				text = strings.Replace(text, "DiagonalMass", typ, 1)
			}
			err := initSceneErr(text)
			if err == nil {
				t.Errorf("%s, %s: no error", c.name, typ)
				continue
			}
			msg := err.Error()
			// The mass table starts on line 13 of both scene texts.
			for _, w := range append([]string{"m.toml:13:", `"n"`, typ}, c.want...) {
				if !strings.Contains(msg, w) {
					t.Errorf("%s, %s: error %q lacks %q", c.name, typ, msg, w)
				}
			}
		}
	}
}
