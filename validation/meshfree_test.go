package validation

import (
	"context"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
	"github.com/sofago/sofago/runscene"
	"gonum.org/v1/gonum/mat"
)

// Meshfree rods, shells and solids (issue 17; lecture notes 004,
// "Elastons", "Mesh-Free Methods", "Implementation: Sampling"): one bar
// sampled three ways — a single line of material points carrying their
// section (a rod: two thin extents), a single layer carrying its
// thickness (a shell: one), voxels filling the bar (a solid: none) —
// with Affine3 nodes and elastons placed by MeshfreeSampler, weights of
// KernelShapeFunction, LinearBlendSkinningMapping to F332 samples and
// DeformationGradientForceField (corotational, order-2 moments).

// mfBar is a bar of the meshfree tests: length L along x, clamped at
// x = 0, a square section H × H centred on the x axis (or, with R > 0, a
// circular section of radius R), Young's modulus E and Poisson ratio Nu.
type mfBar struct {
	L, H, R, E, Nu float64
}

// mfCantilever: L/h = 20, ν = 0 (the rod and shell reduce to beam theory
// without a reduced constitutive law; see TestMeshfreeThinPoisson).
var mfCantilever = mfBar{L: 1, H: 0.05, E: 1e7, Nu: 0}

// mfCase is one meshfree model of a bar.
type mfCase struct {
	form      string // "rod", "shell" or "solid"
	n         int    // material points (voxels) along the length
	nodes     int    // nodes, node 0 fixed at (0, 0, 0)
	elastons  int
	law       string // material law (default CorotationalLinear)
	order     int    // sampler order (default 2)
	loadAt    []geom.Vec3
	loads     []geom.Vec3
	loadSteps int
	lbs       bool    // KernelShapeFunction + LinearBlendSkinningMapping instead of GMLSMapping
	radius    float64 // GMLS support radius in node spacings L/(nodes − 1) (default: the sampler's NodeRadii)
	quadratic bool    // Quadratic3 nodes (quadratic GMLS) instead of Affine3
	thinLaw   string  // DeformationGradientForceField thinLaw (default full)
	stab      float64 // DeformationGradientForceField thinShearStabilization (default 0)
	clampAt   float64 // distance of the four off-axis clamp points from the axis (default: the section's half size)
}

// section returns the section area and the thin extent t of the bar's
// single-layer points (a disc of radius R has the second moment of area
// of a square of side √3 R).
func (b mfBar) section() (area, t float64) {
	if b.R > 0 {
		return math.Pi * b.R * b.R, math.Sqrt(3) * b.R
	}
	return b.H * b.H, b.H
}

// materialSource returns the sampler's fields (and a MaterialGrid for the
// solid) giving the bar's material points: a rod is n points on the axis,
// a shell n × m points in the x–z plane (thickness h along y), a solid
// n × m × m voxels.
func (b mfBar) materialSource(form string, n int) (fields, objects string) {
	s := b.L / float64(n)
	area, t := b.section()
	var pts []string
	switch form {
	case "rod":
		for i := 0; i < n; i++ {
			pts = append(pts, fmt.Sprintf("[%g, 0, 0]", (float64(i)+0.5)*s))
		}
	case "shell":
		m := max(1, int(math.Round(b.H/s)))
		sz := b.H / float64(m)
		for k := 0; k < m; k++ {
			for i := 0; i < n; i++ {
				pts = append(pts, fmt.Sprintf("[%g, 0, %g]", (float64(i)+0.5)*s, -b.H/2+(float64(k)+0.5)*sz))
			}
		}
	case "solid":
		m := max(1, int(math.Round(b.H*float64(n)/b.L)))
		return "  grid = \"@grid\"\n", fmt.Sprintf(`  [[node.object]]
  type = "MaterialGrid"
  name = "grid"
  box = [0, %g, %g, %g, %g, %g]
  resolution = [%d, %d, %d]
  youngModulus = %g
  massDensity = 1000
`, -b.H/2, -b.H/2, b.L, b.H/2, b.H/2, n, m, m, b.E)
	}
	vol := b.L * area / float64(len(pts))
	return fmt.Sprintf("  points = [%s]\n  pointVolume = %g\n  thickness = %g\n", strings.Join(pts, ", "), vol, t), ""
}

// scene returns the static scene of case c on bar b: Affine3 nodes and
// elastons by MeshfreeSampler, KernelShapeFunction weights, F332 elastons,
// the clamp (node 0 fixed, and stiff springs holding five mapped points
// of the section x = 0: the kernels of the free nodes reach x = 0 too),
// and the loads on mapped points.
func (b mfBar) scene(c mfCase) string {
	if c.law == "" {
		c.law = "CorotationalLinear"
	}
	if c.order == 0 {
		c.order = 2
	}
	if c.loadSteps == 0 {
		c.loadSteps = 1
	}
	fields, objects := b.materialSource(c.form, c.n)
	a := b.H / 2
	if b.R > 0 {
		a = b.R
	}
	if c.clampAt > 0 {
		a = c.clampAt
	}
	var at, f []string
	for i, p := range c.loadAt {
		at = append(at, fmt.Sprintf("[%g, %g, %g]", p[0], p[1], p[2]))
		f = append(f, fmt.Sprintf("[%g, %g, %g]", c.loads[i][0], c.loads[i][1], c.loads[i][2]))
	}
	text := fmt.Sprintf(`
dt = 1
gravity = [0, 0, 0]
[[node]]
name = "bar"
  [[node.object]]
  type = "StaticSolver"
  iterations = 30
  tolerance = 1e-10
  absoluteTolerance = 1e-9
  loadSteps = %d
  [[node.object]]
  type = "SparseCholeskySolver"
  [[node.object]]
  type = "MeshfreeSampler"
  name = "sampler"
%s  frames = "@nodes"
  nodeCount = %d
  fixedNodes = [[0, 0, 0]]
  elastonCount = %d
  order = %d
%s  [[node.object]]
  type = "MechanicalObject"
  name = "nodes"
  template = "Affine3"
  [[node.object]]
  type = "KernelShapeFunction"
  supportFactor = 4
  nbRef = 16
  [[node.object]]
  type = "FixedConstraint"
  indices = [0]
  [[node.node]]
  name = "elastons"
    [[node.node.object]]
    type = "MechanicalObject"
    template = "F332"
    [[node.node.object]]
    type = "LinearBlendSkinningMapping"
    [[node.node.object]]
    type = "DeformationGradientForceField"
    materialName = %q
    youngModulus = %g
    poissonRatio = %g
  [[node.node]]
  name = "clamp"
    [[node.node.object]]
    type = "MechanicalObject"
    position = [[0, 0, 0], [0, %g, 0], [0, %g, 0], [0, 0, %g], [0, 0, %g]]
    [[node.node.object]]
    type = "LinearBlendSkinningMapping"
    [[node.node.object]]
    type = "RestShapeSpringsForceField"
    stiffness = %g
  [[node.node]]
  name = "load"
    [[node.node.object]]
    type = "MechanicalObject"
    name = "points"
    position = [%s]
    [[node.node.object]]
    type = "LinearBlendSkinningMapping"
    [[node.node.object]]
    type = "ConstantForceField"
    forces = [%s]
`, c.loadSteps, fields, c.nodes, c.elastons, c.order, objects, c.law, b.E, b.Nu, -a, a, -a, a, 1e3*b.E*b.H,
		strings.Join(at, ", "), strings.Join(f, ", "))
	if c.quadratic {
		text = strings.Replace(text, `template = "Affine3"`, `template = "Quadratic3"`, 1)
	}
	if c.thinLaw != "" {
		text = strings.Replace(text, "    poissonRatio = ", fmt.Sprintf("    thinLaw = %q\n    poissonRatio = ", c.thinLaw), 1)
	}
	if c.stab > 0 {
		text = strings.Replace(text, "    poissonRatio = ", fmt.Sprintf("    thinShearStabilization = %g\n    poissonRatio = ", c.stab), 1)
	}
	if !c.lbs {
		text = strings.Replace(text, "  [[node.object]]\n  type = \"KernelShapeFunction\"\n  supportFactor = 4\n  nbRef = 16\n", "", 1)
		m := "type = \"GMLSMapping\""
		if c.radius > 0 {
			m += fmt.Sprintf("\n    radius = %g", c.radius*b.L/float64(c.nodes-1))
		}
		text = strings.ReplaceAll(text, "type = \"LinearBlendSkinningMapping\"", m)
	}
	return text
}

// solveLoaded loads the scene of c, solves one static step and returns the
// displacements of the loaded points.
func (b mfBar) solveLoaded(t testing.TB, c mfCase) []geom.Vec3 {
	t.Helper()
	s := graphtest.MustLoad(t, "meshfree_bar.toml", b.scene(c))
	if err := s.Step(); err != nil {
		t.Fatal(err)
	}
	st := graphtest.Find[graph.State](t, s, "bar/load/points")
	x, x0 := st.Vec(graph.Position), st.Vec(graph.RestPosition)
	out := make([]geom.Vec3, st.Size())
	for i := range out {
		out[i] = geom.At(x, i).Sub(geom.At(x0, i))
	}
	return out
}

// TestMeshfreeBarRodShellSolid (issue 17, item 2): the same cantilever
// (1 × 0.05 × 0.05 m, E = 10 MPa, ν = 0) under a tip load P that deflects
// it by 1e-3 L, modelled as a rod (160 points on the axis: two thin
// extents), a shell (160 × 8 points in the x–z plane, thickness 0.05 m
// along y: one thin extent) and a solid (160 × 8 × 8 voxels), with 9, 17
// and 33 nodes and three elastons per node: the tip deflection converges
// to beam theory P L³/(3EI) + P L/(κGA) (κ = 5/6; the shear term is
// 0.15% of the total) and is within 3% of it for all three forms on the
// finest sampling. The discretisation is stiff on coarse samplings
// (affine nodes blended by kernel weights, as a conforming method).
// Node spacings well below the section's size (65 nodes on this bar)
// make it soft again: the elastons see F to first order only, so with one
// or two elastons per node the nodes' gradients have modes of little
// energy (measured: 65 nodes, 1 elaston per node: +12%; 3 per node:
// +1.7%); keep node spacings at or above the thickness, as a resultant
// model does.
func TestMeshfreeBarRodShellSolid(t *testing.T) {
	b := mfCantilever
	I := b.H * b.H * b.H * b.H / 12
	P := 1e-3 * 3 * b.E * I / (b.L * b.L * b.L)
	G := b.E / (2 * (1 + b.Nu))
	want := P*b.L*b.L*b.L/(3*b.E*I) + P*b.L/(5.0/6*G*b.H*b.H)
	t.Logf("beam theory: tip deflection %.6e m under P = %.4g N", want, P)
	t.Logf("| nodes | elastons | rod | shell | solid |")
	for _, nodes := range []int{9, 17, 33} {
		row := fmt.Sprintf("| %d | %d |", nodes, 3*nodes)
		for _, form := range []string{"rod", "shell", "solid"} {
			u := b.solveLoaded(t, mfCase{form: form, n: 160, nodes: nodes, elastons: 3 * nodes,
				loadAt: []geom.Vec3{{b.L, 0, 0}}, loads: []geom.Vec3{{0, -P, 0}}})
			e := -u[0][1]/want - 1
			row += fmt.Sprintf(" %+.2f%% |", 100*e)
			if nodes == 33 && math.Abs(e) > 0.03 {
				t.Errorf("%s, %d nodes: tip deflection %.6e m, beam theory %.6e m: %+.2f%% (limit 3%%)", form, nodes, -u[0][1], want, 100*e)
			}
		}
		t.Log(row)
	}
}

// TestMeshfreeRodTwist (issue 17, item 2): a thin rod of circular section
// (L = 1 m, r = 0.01 m: 200 points on the axis carrying t = √3 r and
// π r² s) clamped at x = 0 and twisted by a couple T at its tip turns by
// T L/(GJ), J = π r⁴/2, within 3%. The elaston's torsion energy is
// V/2 Σ_k h_k²/12 β_k:C:β_k = ½ G (I₂ + I₃) θ'² per length: the polar
// moment, which is J for a disc (no warping); the couple is two opposite
// forces ±f at (L, 0, ±r), the twist the rotation of those points.
func TestMeshfreeRodTwist(t *testing.T) {
	b := mfBar{L: 1, H: 0.02, R: 0.01, E: 1e7, Nu: 0}
	G := b.E / (2 * (1 + b.Nu))
	J := math.Pi * math.Pow(b.R, 4) / 2
	phi := 1e-3 // target twist (rad)
	T := phi * G * J / b.L
	f := T / (2 * b.R)
	for _, nodes := range []int{9, 17, 33} {
		u := b.solveLoaded(t, mfCase{form: "rod", n: 200, nodes: nodes, elastons: 3 * nodes,
			loadAt: []geom.Vec3{{b.L, 0, b.R}, {b.L, 0, -b.R}}, loads: []geom.Vec3{{0, -f, 0}, {0, f, 0}}})
		got := (u[1][1] - u[0][1]) / (2 * b.R)
		e := got/phi - 1
		t.Logf("%d nodes, %d elastons: twist %.6e rad, T L/(GJ) = %.6e rad (%+.2f%%)", nodes, 3*nodes, got, phi, 100*e)
		if nodes == 33 && math.Abs(e) > 0.03 {
			t.Errorf("twist %.6e rad, T L/(GJ) = %.6e rad: %+.2f%% (limit 3%%)", got, phi, 100*e)
		}
	}
}

// smallestStiffnessEigenvalue returns the smallest eigenvalue of the
// tangent stiffness −∂f/∂x of the nodes of scene s (at their current
// positions, with the forces of the last step), restricted to the free
// nodes (node 0 is fixed): probed column by column with graph.Ops
// ComputeDf through the mappings (elastons, clamp springs), symmetrised
// (its skew part is rounding) and diagonalised densely.
func smallestStiffnessEigenvalue(t testing.TB, s *graph.Scene) float64 {
	t.Helper()
	st := graphtest.Find[graph.State](t, s, "bar/nodes")
	ops, err := graph.NewOps(st.Base().Node)
	if err != nil {
		t.Fatal(err)
	}
	f, dx, df := ops.AllocDeriv(), ops.AllocDeriv(), ops.AllocDeriv()
	defer ops.Free(f, dx, df)
	ops.ComputeForce(f)
	N := 12 * (st.Size() - 1)
	K := mat.NewSymDense(N, nil)
	cols := make([][]float64, N)
	for c := 0; c < N; c++ {
		d := st.Vec(dx)
		clear(d)
		d[12+c] = 1
		ops.ComputeDf(df, dx, 0, 0, 1)
		cols[c] = append([]float64(nil), st.Vec(df)[12:]...)
	}
	for r := 0; r < N; r++ {
		for c := r; c < N; c++ {
			K.SetSym(r, c, -0.5*(cols[c][r]+cols[r][c]))
		}
	}
	var es mat.EigenSym
	if !es.Factorize(K, false) {
		t.Fatal("eigen decomposition failed")
	}
	return es.Values(nil)[0]
}

// TestMeshfreeColumnBuckling (issue 17, item 3): a slender clamped–free
// column (a rod of circular section, L = 1 m, r = 0.01 m, L/r = 100,
// E = 10 MPa, ν = 0; St Venant–Kirchhoff elastons with order-4 moments,
// whose exact tangent carries the geometric stiffness of the axial
// stress) under an axial tip load P buckles at the Euler load
// π²EI/(4L²) within 5%.
//
// Detection: the perfect column stays straight, so it buckles at the
// load where the tangent stiffness of the compressed equilibrium stops
// being positive definite. For a load P the straight equilibrium is
// solved (StaticSolver, sparse Cholesky; recoverIndefinite above the
// critical load, where the residual stays axial so Newton stays on the
// straight branch), the tangent K(P) of the free nodes probed through
// the mappings (elastons, clamp springs) and its smallest eigenvalue
// λ(P) computed. Bisection on the sign of λ(P) over [0.5, 1.5] × the
// Euler load (8 halvings), then the zero of the line through the last
// bracket (λ is linear in P near the crossing: the geometric stiffness
// is proportional to the axial force) gives the critical load. Away
// from it the smallest eigenvalue is a torsion mode (the node gradients'
// rotation about the axis), which the axial load does not soften.
func TestMeshfreeColumnBuckling(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: 20 static solves and tangent eigenvalues (about 20 s)")
	}
	b := mfBar{L: 1, H: 0.02, R: 0.01, E: 1e7, Nu: 0}
	I := math.Pi * math.Pow(b.R, 4) / 4
	euler := math.Pi * math.Pi * b.E * I / (4 * b.L * b.L)
	lambdaAt := func(nodes int, P float64) float64 {
		src := b.scene(mfCase{form: "rod", n: 200, nodes: nodes, elastons: 3 * nodes,
			law: "StVenantKirchhoff", order: 4, loadAt: []geom.Vec3{{b.L, 0, 0}}, loads: []geom.Vec3{{-P, 0, 0}}})
		src = strings.Replace(src, "  absoluteTolerance = 1e-9\n", "  absoluteTolerance = 1e-9\n  recoverIndefinite = true\n", 1)
		s := graphtest.MustLoad(t, "meshfree_column.toml", src)
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
		return smallestStiffnessEigenvalue(t, s)
	}
	for _, nodes := range []int{17, 33} {
		lo, hi := 0.5*euler, 1.5*euler
		llo, lhi := lambdaAt(nodes, lo), lambdaAt(nodes, hi)
		if !(llo > 0 && lhi < 0) {
			t.Fatalf("%d nodes: λ_min = %.3g at 0.5 × Euler, %.3g at 1.5 × Euler: no crossing", nodes, llo, lhi)
		}
		for it := 0; it < 8; it++ {
			mid := 0.5 * (lo + hi)
			if l := lambdaAt(nodes, mid); l > 0 {
				lo, llo = mid, l
			} else {
				hi, lhi = mid, l
			}
		}
		pstar := lo + llo*(hi-lo)/(llo-lhi)
		e := pstar/euler - 1
		t.Logf("%d nodes, %d elastons: λ_min = %+.3g / %+.3g N/m at P = %.6e / %.6e N; critical load %.6e N, Euler π²EI/(4L²) = %.6e N (%+.2f%%)",
			nodes, 3*nodes, llo, lhi, lo, hi, pstar, euler, 100*e)
		if nodes == 33 && math.Abs(e) > 0.05 {
			t.Errorf("%d nodes: buckling load %.6e N, Euler %.6e N: %+.2f%% (limit 5%%)", nodes, pstar, euler, 100*e)
		}
	}
}

// mixedPoints returns the material point file of scenes/meshfree_mixed.toml
// (one point set, three forms):
//
//   - a solid block [0, 0.1] × [−0.05, 0.05]², 10³ points of 0.01 m cubes
//     (thickness 0);
//   - a shell plate from x = 0.1 to 0.5 in the plane y = 0,
//     z ∈ [−0.05, 0.05]: 40 × 10 points, 0.01 m apart, thickness 0.01 m;
//   - a rod from x = 0.5 to 0.9 on the axis y = z = 0: 160 points
//     2.5 mm apart, radius 5 mm (t = √3 r, volume π r² × 0.0025). Four
//     times the block's and plate's point density along the line, so that
//     the rod's 30 given nodes (the scene's fixedNodes) each get a few
//     elastons (with 40 points the rod could hold only 11).
func mixedPoints() string {
	var b strings.Builder
	b.WriteString("# scenes/meshfree_mixed.toml: x y z volume thickness (generated by validation/meshfree_test.go mixedPoints)\n# solid block: 0.01 m cubes\n")
	for k := 0; k < 10; k++ {
		for j := 0; j < 10; j++ {
			for i := 0; i < 10; i++ {
				fmt.Fprintf(&b, "%.4f %.4f %.4f 1e-06 0\n", 0.005+0.01*float64(i), -0.045+0.01*float64(j), -0.045+0.01*float64(k))
			}
		}
	}
	b.WriteString("# shell plate: thickness 0.01 m\n")
	for k := 0; k < 10; k++ {
		for i := 0; i < 40; i++ {
			fmt.Fprintf(&b, "%.4f 0 %.4f 1e-06 0.01\n", 0.105+0.01*float64(i), -0.045+0.01*float64(k))
		}
	}
	b.WriteString("# rod: radius 0.005 m, t = √3 r\n")
	r := 0.005
	for i := 0; i < 160; i++ {
		fmt.Fprintf(&b, "%.5f 0 0 %.6g %.6g\n", 0.50125+0.0025*float64(i), math.Pi*r*r*0.0025, math.Sqrt(3)*r)
	}
	return b.String()
}

// TestMeshfreeMixedPointFile: scenes/meshes/meshfree_mixed.xyz is what
// mixedPoints generates (MESHFREE_WRITE=1 rewrites it).
func TestMeshfreeMixedPointFile(t *testing.T) {
	const path = "../scenes/meshes/meshfree_mixed.xyz"
	want := mixedPoints()
	if os.Getenv("MESHFREE_WRITE") == "1" {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := mustRead(t, path); got != want {
		t.Errorf("%s differs from mixedPoints() (MESHFREE_WRITE=1 go test -run TestMeshfreeMixedPointFile ./validation/ rewrites it)", path)
	}
}

// mixedLimit: the shipped mixed scene's measured gap to the hexahedral
// reference (−4.81%: 120 nodes, 30 of them given along the rod, 1,500
// elastons) plus 0.7%: what remains of the junction stiffening
// (TestMeshfreeMixedScene). The discretisation is deterministic; the
// margin is half the change from 700 to 1,500 elastons (−3.5% → −4.8%),
// and a rod sampled by Lloyd alone (−10.9%) or left with a soft mode
// (+19% at 450 elastons) fails it.
const mixedLimit = 0.055

// mixedBeamEstimate returns the linear tip deflection of
// scenes/meshfree_mixed.toml's rod-on-plate under a tip load P, both as
// Euler–Bernoulli beams in series (plate width b = 0.1 m, thickness
// 0.01 m, length 0.4 m; rod radius 5 mm, length 0.4 m; E = 1 MPa), the
// block rigid: the rod's own P L_r³/(3EI_r), plus the plate's end
// deflection and rotation under the force P and the moment P L_r,
// carried to the tip.
func mixedBeamEstimate(P float64) float64 {
	const E, b, tp, Lp, r, Lr = 1e6, 0.1, 0.01, 0.4, 0.005, 0.4
	EIp := E * b * tp * tp * tp / 12
	EIr := E * math.Pi * math.Pow(r, 4) / 4
	M := P * Lr
	v := P*Lp*Lp*Lp/(3*EIp) + M*Lp*Lp/(2*EIp)
	th := P*Lp*Lp/(2*EIp) + M*Lp/EIp
	return P*Lr*Lr*Lr/(3*EIr) + v + th*Lr
}

// TestMeshfreeMixedScene: scenes/meshfree_mixed.toml (a solid block, a
// shell plate and a rod from one point set, one meshfree model) under a
// 100× smaller tip load than the scene's, where it is linear, against the
// hexahedral FEM of the same solid (mixedHexReference: 1.262e-3 m, 2.8%
// above the beams in series of mixedBeamEstimate, the junctions' own
// compliance), and the sampler makes rod, shell and solid elastons of it
// (ElastonKind).
//
// Why it was 21% stiff (−18.6% against the beams): transverse-shear
// locking of the thin plate (t = 1 cm) and rod (t = 8.7 mm) whose nodes
// are 3–6 thicknesses apart (TestMeshfreeThinShearLocking), not the
// reference. With thinShearStabilization = 1 (the scene's) the
// remaining gap is at the two junctions (plate root in the block, rod
// root on the plate): the smooth GMLS field cannot follow the jump of
// curvature there (×17 from plate to rod), so the rod's root and the
// plate's root are stiffened over about a support. Measured, tip / FEM
// − 1 (MESHFREE_LONG=1 adds 80, 120 and 200 nodes): see the README
// table (TestMeshfreeMixedJunctionRefinement splits it between the two
// junctions and shows it first order in the rod's node spacing, which is
// why the scene gives its 30 rod nodes as fixedNodes); the limit is the
// shipped figure with a small margin (mixedLimit; the discretisation is
// deterministic: given nodes, Lloyd iterations from a fixed start).
func TestMeshfreeMixedScene(t *testing.T) {
	const P = 2e-5
	ref, _, _ := mixedHexReference(t, P, 0.005)
	counts := [][2]int{{120, 1500}}
	if os.Getenv("MESHFREE_LONG") == "1" {
		counts = append(counts, [2]int{200, 1500}, [2]int{300, 1500})
	}
	for _, c := range counts {
		s := loadFramesScene(t, "../scenes/meshfree_mixed.toml", func(src string) string {
			src = framesReplaceOnce(t, src, "nodeCount = 120\n", fmt.Sprintf("nodeCount = %d\n", c[0]))
			src = framesReplaceOnce(t, src, "elastonCount = 1500", fmt.Sprintf("elastonCount = %d", c[1]))
			if os.Getenv("MESHFREE_MIXED_FULL") == "1" { // the lecture's law, for the README's comparison
				src = framesReplaceOnce(t, src, "    thinShearStabilization = 1", "    thinShearStabilization = 0")
			}
			return framesReplaceOnce(t, src, "forces = [[0, -0.002, 0]]", fmt.Sprintf("forces = [[0, %g, 0]]", -P))
		})
		checkMixed(t, s, P, ref, c)
	}
}

func checkMixed(t *testing.T, s *graph.Scene, P, ref float64, c [2]int) {
	if err := s.Step(); err != nil {
		t.Fatal(err)
	}
	st := graphtest.Find[graph.State](t, s, "object/tip/point")
	d := geom.At(st.Vec(graph.Position), 0).Sub(geom.At(st.Vec(graph.RestPosition), 0))
	e := -d[1]/ref - 1
	// The elastons' forms from their material (the thin directions of
	// their points, SampleThinAxes, which thinShearStabilization uses),
	// and from their aspect (ElastonKind; at fine samplings the plate's
	// and rod's elastons are about as long as thick and report "solid").
	sm := graphtest.Find[interface {
		ElastonKind(int) string
		SampleThinAxes() ([]int8, []geom.Mat3, error)
	}](t, s, "object/sampler")
	tk, _, err := sm.SampleThinAxes()
	if err != nil {
		t.Fatal(err)
	}
	kinds, aspect := map[string]int{}, map[string]int{}
	for i, k := range tk {
		kinds[[3]string{"solid", "shell", "rod"}[k]]++
		aspect[sm.ElastonKind(i)]++
	}
	t.Logf("%d nodes, %d elastons: tip deflection %.6e m under %g N, hexahedral FEM %.6e m (%+.2f%%), beams in series %.6e m (%+.2f%%); elastons by material %v, by aspect %v",
		c[0], c[1], -d[1], P, ref, 100*e, mixedBeamEstimate(P), 100*(-d[1]/mixedBeamEstimate(P)-1), kinds, aspect)
	if c[0] == 120 && os.Getenv("MESHFREE_MIXED_FULL") != "1" && math.Abs(e) > mixedLimit {
		t.Errorf("tip deflection %.6e m, hexahedral FEM %.6e m: %+.2f%% (limit %.0f%%)", -d[1], ref, 100*e, 100*mixedLimit)
	}
	for _, k := range []string{"rod", "shell", "solid"} {
		if kinds[k] == 0 {
			t.Errorf("no %s elaston in the mixed scene: by material %v, by aspect %v", k, kinds, aspect)
		}
	}
	// The rod's 30 given nodes need a few elastons each: with 700
	// elastons the sampler gives the rod 28 (under one per node) and
	// 450 elastons leave it a soft mode (+19%); 1,500 give it 99.
	if kinds["rod"] < 75 {
		t.Errorf("%d rod elastons for the rod's 30 nodes: want ≥ 2.5 per node", kinds["rod"])
	}
}

// cylinderPoints returns the material point file of
// scenes/meshfree_cylinder_buckle.toml: a single layer of points on the
// cylinder of radius 0.1 m and height 0.2 m about the z axis, 63 around ×
// 20 high (about 0.01 m apart, rows staggered), each of volume
// (2πR/63)(H/20) t with the thickness t = 0.01 m, with an imperfection:
// the radius is R + δ sin(πz/H) cos(4θ), δ = 0.2 mm (a perfect cylinder
// would stay on the unbuckled branch).
func cylinderPoints() string {
	const R, H, t, na, nh = 0.1, 0.2, 0.01, 63, 20
	var b strings.Builder
	b.WriteString("# scenes/meshfree_cylinder_buckle.toml: x y z volume thickness (generated by validation/meshfree_test.go cylinderPoints)\n")
	v := 2 * math.Pi * R / na * H / nh * t
	for k := 0; k < nh; k++ {
		z := (float64(k) + 0.5) * H / nh
		for i := 0; i < na; i++ {
			a := 2 * math.Pi * (float64(i) + 0.5*float64(k%2)) / na
			r := R + 2e-4*math.Sin(math.Pi*z/H)*math.Cos(4*a)
			fmt.Fprintf(&b, "%.6f %.6f %.4f %.6g %g\n", r*math.Cos(a), r*math.Sin(a), z, v, t)
		}
	}
	return b.String()
}

// TestMeshfreeCylinderPointFile: scenes/meshes/meshfree_cylinder.xyz is
// what cylinderPoints generates (MESHFREE_WRITE=1 rewrites it).
func TestMeshfreeCylinderPointFile(t *testing.T) {
	const path = "../scenes/meshes/meshfree_cylinder.xyz"
	want := cylinderPoints()
	if os.Getenv("MESHFREE_WRITE") == "1" {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := mustRead(t, path); got != want {
		t.Errorf("%s differs from cylinderPoints() (MESHFREE_WRITE=1 go test -run TestMeshfreeCylinderPointFile ./validation/ rewrites it)", path)
	}
}

// TestMeshfreeCylinderSceneInlinePoints: the positions written inline
// in scenes/meshfree_cylinder_buckle.toml (MechanicalObject has no point
// file) are copies of meshes/meshfree_cylinder.xyz, which the sampler
// reads: "material" all 1,260 points in the file's order, "bottom" the
// first two rows (126), "top" and "platen" the last two; a regenerated
// point file without the scene edited to match fails here.
func TestMeshfreeCylinderSceneInlinePoints(t *testing.T) {
	var pts [][3]float64
	for _, l := range strings.Split(cylinderPoints(), "\n") {
		if l = strings.TrimSpace(l); l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		var p [3]float64
		if _, err := fmt.Sscan(l, &p[0], &p[1], &p[2]); err != nil {
			t.Fatalf("cylinderPoints line %q: %v", l, err)
		}
		pts = append(pts, p)
	}
	var scene struct {
		Node []struct {
			Node []struct {
				Name   string
				Object []struct {
					Position [][3]float64
				}
			}
		}
	}
	if _, err := toml.Decode(mustRead(t, "../scenes/meshfree_cylinder_buckle.toml"), &scene); err != nil {
		t.Fatal(err)
	}
	const rows = 126
	want := map[string][][3]float64{"material": pts, "bottom": pts[:rows], "top": pts[len(pts)-rows:], "platen": pts[len(pts)-rows:]}
	seen := 0
	for _, n := range scene.Node[0].Node {
		w, ok := want[n.Name]
		if !ok {
			continue
		}
		seen++
		got := n.Object[0].Position
		if !slices.Equal(got, w) {
			t.Errorf("node %q: %d inline positions differ from the %d expected rows of meshes/meshfree_cylinder.xyz", n.Name, len(got), len(w))
		}
	}
	if seen != len(want) {
		t.Errorf("found %d of the nodes %v in the scene", seen, want)
	}
}

// TestMeshfreeCylinderBuckle runs scenes/meshfree_cylinder_buckle.toml
// as runscene does (no flags) and checks the load–shortening curve of the
// platen against physics outside the code:
//
//   - the run is honest: exit status 0, every step's Newton iteration of
//     implicit Euler converged (runscene's own count);
//   - the pre-buckling response is the static one: a StaticSolver solve
//     of the same scene straight to the 9 mm of step 3 gives the reaction
//     F_s, whose secant stiffness is the membrane stiffness E 2πR t/H_eff
//     of the 0.17 m of wall between the clamped rows (ν = 0: uniform
//     axial strain) within 10% (measured +6%: at the clamped rows the
//     axial displacement has a kink, which linear GMLS smooths over its
//     supports, 2–4 node spacings); the dynamic reaction there (the
//     platen at v = 0.3 m/s, 1% of the bar-wave speed √(E/ρ) = 31.6
//     m/s) exceeds F_s by the platen's share of the Rayleigh drag −α m v
//     (inertia is nil at constant speed): the wall's speed grows
//     linearly from the clamp to the platen, and a load at the fraction
//     s of the way is carried s by the platen, so the platen carries
//     α v Σ m s²: α M v/3 = 2.51 N if the wall were clamped at z = 0,
//     2.89 N summed over the 20 rows of points (s = 0 on the two clamped
//     rows, s = 1 on the two tied to the platen, linear over the 0.17 m
//     between); the test takes 2.7 ± 0.4 N, which covers both (measured
//     +2.65 N);
//   - the peak load lies between 0.9 and 1.5 × the classical critical
//     load of a long cylinder, 2πR t × E t/(R√3) (ν = 0): the 0.2 mm
//     imperfection (0.02 t) lowers it by a few per cent at most (Koiter),
//     while 96 nodes about 5 cm apart barely resolve the classical
//     half-wavelength 1.7√(Rt) = 5.4 cm and stiffen it (a conforming
//     discretisation), as do the clamped ends (measured 1.33×);
//   - buckling is a snap: past the peak the reaction falls by more than
//     5% while the platen advances, and the kinetic energy during the
//     fall rises above 20 × that of the steady compression before it
//     (measured: 7.3%, 0.061 J against 2.8e-4 J);
//   - the final shape is folded: node radii spread from below R − 4 cm
//     to above R + 2 cm (against the 0.2 mm imperfection), and the wall
//     has come to rest (kinetic energy below 5% of the snap's).
//
// -short runs the first 3 steps only (to 9 mm: the exit status, the
// convergence and the static path; about 3 s); the buckling needs the
// whole run (about 12 s of CPU).
func TestMeshfreeCylinderBuckle(t *testing.T) {
	const path = "../scenes/meshfree_cylinder_buckle.toml"
	args := []string{"-quiet", path}
	if testing.Short() {
		// The first 3 steps (to 9 mm) and the static reference, about
		// 3 s; the whole run (about 12 s of CPU) checks the buckling.
		args = []string{"-quiet", "-steps", "3", path}
	}
	const R, th, E, Heff = 0.1, 0.01, 1e6, 0.17
	k0 := E * 2 * math.Pi * R * th / Heff
	classical := 2 * math.Pi * R * th * E * th / (R * math.Sqrt(3))

	type record struct{ d, f, kin, rmin, rmax float64 }
	var recs []record
	var ops *graph.Ops
	var fID graph.VecID
	obs := &runscene.Observer{Step: func(s *graph.Scene) error {
		if s.StepCount == 0 {
			return nil
		}
		platen := s.Find("cylinder/platen/points").(graph.State)
		nodes := s.Find("cylinder/nodes").(graph.State)
		if ops == nil {
			o, err := graph.NewOps(nodes.Base().Node)
			if err != nil {
				return err
			}
			ops, fID = o, o.AllocDeriv()
		}
		d, f := platenLoad(ops, fID, platen)
		x := nodes.Vec(graph.Position)
		rec := record{d: d, f: f, rmin: math.Inf(1), rmax: 0}
		for i := 0; i < nodes.Size(); i++ {
			r := math.Hypot(x[12*i], x[12*i+1])
			rec.rmin, rec.rmax = min(rec.rmin, r), max(rec.rmax, r)
		}
		rec.kin, _ = s.Energies()
		recs = append(recs, rec)
		return nil
	}}
	var stdout, stderr strings.Builder
	code, rep := runscene.Run(context.Background(), args, &stdout, &stderr, obs)
	if code != 0 || rep == nil {
		t.Fatalf("runscene %s: exit status %d, want 0\n%s", path, code, stderr.String())
	}
	for _, sf := range rep.Solvers {
		t.Logf("%s: %d steps, %d linear solves (Newton iterations), %d unconverged", sf.Path, sf.Steps, sf.LinearIterations, sf.Unconverged)
		if sf.Unconverged != 0 || sf.Steps != len(recs) {
			t.Errorf("%s: %d of %d steps unconverged (want none of %d)", sf.Path, sf.Unconverged, sf.Steps, len(recs))
		}
	}
	for i, r := range recs {
		t.Logf("step %2d: shortening %6.3f mm, reaction %6.1f N, kinetic %.3g J, node radii %.4f–%.4f m", i+1, 1e3*r.d, r.f, r.kin, r.rmin, r.rmax)
	}

	// The static reference at step 3's shortening.
	const linStep = 3
	st := loadFramesScene(t, path, func(src string) string {
		src = framesReplaceOnce(t, src, "dt = 0.01\n", "dt = 0.03\n")
		i, j := strings.Index(src, "  type = \"EulerImplicitSolver\""), strings.Index(src, "  type = \"SparseCholeskySolver\"")
		if i < 0 || j < i {
			t.Fatal("scene: no EulerImplicitSolver before the SparseCholeskySolver")
		}
		return src[:i] + "  type = \"StaticSolver\"\n  iterations = 25\n  tolerance = 1e-10\n  lineSearch = true\n\n  [[node.object]]\n" + src[j:]
	})
	if err := st.Step(); err != nil {
		t.Fatalf("static solve to step %d's shortening: %v", linStep, err)
	}
	sops, err := graph.NewOps(graphtest.Find[graph.State](t, st, "cylinder/nodes").Base().Node)
	if err != nil {
		t.Fatal(err)
	}
	ds, fs := platenLoad(sops, sops.AllocDeriv(), graphtest.Find[graph.State](t, st, "cylinder/platen/points"))
	lin := recs[linStep-1]
	t.Logf("static: %.4g N at %.3f mm, secant stiffness %.4g N/m = %.4f × E 2πR t/H_eff; dynamic %.4g N (%+.2f N)", fs, 1e3*ds, fs/ds, fs/ds/k0, lin.f, lin.f-fs)
	if math.Abs(ds-lin.d) > 1e-9 {
		t.Fatalf("static shortening %.6g m, dynamic step %d %.6g m", ds, linStep, lin.d)
	}
	if e := fs/(k0*ds) - 1; math.Abs(e) > 0.1 {
		t.Errorf("static secant stiffness %.4g N/m vs membrane %.4g N/m (%+.1f%%, limit 10%%)", fs/ds, k0, 100*e)
	}
	if drag := lin.f - fs; math.Abs(drag-2.7) > 0.4 {
		t.Errorf("dynamic reaction %.4g N at %.3f mm = static %.4g N %+.3g N: want the platen's share of the Rayleigh drag, 2.5–2.9 N (2.7 ± 0.4 N)", lin.f, 1e3*lin.d, fs, drag)
	}

	if testing.Short() {
		t.Skip("-short: the buckling needs the whole run (21 implicit Euler steps, about 12 s of CPU)")
	}

	// Peak, the fall after it, the snap's kinetic energy.
	ip := 0
	for i, r := range recs {
		if r.f > recs[ip].f {
			ip = i
		}
	}
	im := ip
	for i := ip; i < len(recs); i++ {
		if recs[i].f < recs[im].f {
			im = i
		}
	}
	peak, low := recs[ip], recs[im]
	snapKin := 0.0
	for _, r := range recs[ip : im+1] {
		snapKin = max(snapKin, r.kin)
	}
	steady := recs[linStep+1].kin // after the platen slowed down (step 5)
	t.Logf("peak %.4g N at %.3f mm = %.3f × the classical %.4g N; falls to %.4g N at %.3f mm (−%.1f%%); kinetic energy %.3g J in the fall vs %.3g J steady",
		peak.f, 1e3*peak.d, peak.f/classical, classical, low.f, 1e3*low.d, 100*(1-low.f/peak.f), snapKin, steady)
	if r := peak.f / classical; r < 0.9 || r > 1.5 {
		t.Errorf("peak load %.4g N = %.3f × the classical %.4g N (want 0.9–1.5)", peak.f, r, classical)
	}
	if ip <= linStep || im == ip || low.f > 0.95*peak.f {
		t.Errorf("no fall of the load after the peak (peak %.4g N at step %d, lowest after it %.4g N at step %d; want below 95%% of the peak)", peak.f, ip+1, low.f, im+1)
	}
	if snapKin < 20*steady {
		t.Errorf("kinetic energy in the fall %.3g J, steady compression %.3g J: no snap (want above 20×)", snapKin, steady)
	}
	last := recs[len(recs)-1]
	if last.rmin > R-0.04 || last.rmax < R+0.02 {
		t.Errorf("final node radii %.4f–%.4f m: not folded (want below %.2f and above %.2f m)", last.rmin, last.rmax, R-0.04, R+0.02)
	}
	if last.kin > 0.05*snapKin {
		t.Errorf("final kinetic energy %.3g J: not at rest after the snap (%.3g J; want below 5%%)", last.kin, snapKin)
	}
}

// platenLoad returns the platen's shortening (the mean downward
// displacement of its points from rest) and the axial force it carries
// (the z sum of the forces on its points, those of the zero-length
// springs tying it to the top rows), computed into f by ops.
func platenLoad(ops *graph.Ops, f graph.VecID, platen graph.State) (d, force float64) {
	ops.ComputeForce(f)
	fv, x, x0 := platen.Vec(f), platen.Vec(graph.Position), platen.Vec(graph.RestPosition)
	n := platen.Size()
	for i := 0; i < n; i++ {
		force += fv[3*i+2]
		d += (x0[3*i+2] - x[3*i+2]) / float64(n)
	}
	return d, force
}

// TestMeshfreeThinShearLocking: a thin cantilever (the bar of
// TestMeshfreeBarRodShellSolid made 10× thinner: L/h = 200, h = 5 mm) as a
// rod and as a shell, with 9 and 17 nodes (ℓ/h = 25 and 12.5). With the
// lecture's law the elastons' transverse shear locks: the GMLS fit of the
// deflection and the nodes' own section rotations cannot both follow a
// bent bar (linear GMLS reproduces linear fields only, and the mismatch,
// of order κℓ, costs G(κℓ)² against the bending energy E κ² h²/12), so the
// bar is stiffer by a factor growing with ℓ/h — measured 0.819 and 0.902
// of beam theory (and 0.91, 0.97, 0.98 with 9, 17, 33 nodes at L/h = 100;
// none at L/h = 20, the bar of the other tests). thinShearStabilization
// = α scales the transverse shear modulus of thin elastons by h²/(h² +
// α ℓ²) (the stabilised Reissner–Mindlin shear of Lyly, Stenberg and
// Vihinen), applied to the centre's shear and to its gradient along the
// bar; its extra shear compliance is 0.6 α (ℓ/L)² of the bending
// deflection here (0.9% at 9 nodes with α = 1). With α = 1 both forms
// are within 1% of beam theory (measured 0.998, 1.000; α = 0.1 leaves
// 0.984, 0.990), and the locking without it exceeds 5% at 9 nodes.
func TestMeshfreeThinShearLocking(t *testing.T) {
	b := mfBar{L: 1, H: 0.005, E: 1e7}
	I := b.H * b.H * b.H * b.H / 12
	P := 1e-3 * 3 * b.E * I / (b.L * b.L * b.L)
	G := b.E / 2
	want := P*b.L*b.L*b.L/(3*b.E*I) + P*b.L/(5.0/6*G*b.H*b.H)
	for _, nodes := range []int{9, 17} {
		for _, form := range []string{"rod", "shell"} {
			var r [2]float64
			for k, a := range []float64{0, 1} {
				u := b.solveLoaded(t, mfCase{form: form, n: 160, nodes: nodes, elastons: 3 * nodes, stab: a,
					loadAt: []geom.Vec3{{b.L, 0, 0}}, loads: []geom.Vec3{{0, -P, 0}}})
				r[k] = -u[0][1] / want
			}
			t.Logf("%s, %d nodes (ℓ/h = %.1f): tip / beam theory %.4f (lecture's law), %.4f (thinShearStabilization = 1)", form, nodes, b.L/float64(nodes-1)/b.H, r[0], r[1])
			if math.Abs(r[1]-1) > 0.01 {
				t.Errorf("%s, %d nodes, stabilised: tip %.4f × beam theory (limit 1%%)", form, nodes, r[1])
			}
			if nodes == 9 && r[0] > 0.95 {
				t.Errorf("%s, 9 nodes, lecture's law: tip %.4f × beam theory: the locking this test documents is gone (update the README)", form, r[0])
			}
		}
	}
}

// TestMeshfreeThinPoisson: with ν ≠ 0 the lecture's one isotropic law
// (W = V/2 (α:C:α + Σ h_k²/12 β_k:C:β_k), the same C for every elaston)
// stiffens thin elastons in bending: linear GMLS nodes carry the
// gradient, so the membrane strain α relaxes across the thickness (its
// through-thickness components are the nodes' own), but the change of
// that strain across the thickness (β along a thin direction) would need
// second derivatives the nodes do not carry, so the lateral contraction
// of bending is held at zero. The bending stiffness then lies between
// E I and the laterally constrained one, C₁₁₁₁ I = (1 − ν)/((1 + ν)(1 −
// 2ν)) E I (rod: both lateral strains held; shell: the plate's
// cylindrical bending, between E/(1 − ν²) and C₁₁₁₁); measured at ν = 0.3
// with 17 nodes the cantilever of TestMeshfreeBarRodShellSolid is stiffer
// than beam theory with E by 1.174 (rod), 1.180 (shell), 1.197 (solid,
// whose nodes lie on the axis at this sampling: a rod's kinematics),
// within those bounds (C₁₁₁₁/E = 1.346). Scenes use ν = 0, where rod,
// shell and solid agree (the README says so).
func TestMeshfreeThinPoisson(t *testing.T) {
	b := mfCantilever
	b.Nu = 0.3
	I := b.H * b.H * b.H * b.H / 12
	P := 1e-3 * 3 * b.E * I / (b.L * b.L * b.L)
	G := b.E / (2 * (1 + b.Nu))
	want := P*b.L*b.L*b.L/(3*b.E*I) + P*b.L/(5.0/6*G*b.H*b.H)
	upper := (1 - b.Nu) / ((1 + b.Nu) * (1 - 2*b.Nu))
	for _, form := range []string{"rod", "shell", "solid"} {
		u := b.solveLoaded(t, mfCase{form: form, n: 160, nodes: 17, elastons: 51,
			loadAt: []geom.Vec3{{b.L, 0, 0}}, loads: []geom.Vec3{{0, -P, 0}}})
		f := want / -u[0][1]
		t.Logf("%s, ν = %g: stiffer than beam theory with E by %.4f (bounds 1 and C₁₁₁₁/E = %.4f; plate E/(1−ν²) = %.4f)", form, b.Nu, f, upper, 1/(1-b.Nu*b.Nu))
		lower := 1.0
		if form == "shell" {
			lower = 1 / (1 - b.Nu*b.Nu)
		}
		// The discretisation itself is within ±1.6% at 17 nodes (ν = 0).
		if f < lower*0.98 || f > upper*1.02 {
			t.Errorf("%s: stiffening %.4f outside [%.4f, %.4f] (±2%% discretisation)", form, f, lower, upper)
		}
	}
}

// TestMeshfreeQuadraticNodesPoisson: quadratic GMLS nodes (Quadratic3)
// carry the second derivatives, so the change of the lateral strain across
// the thickness is free, and a bending shell or solid bar no longer
// stiffens with ν (TestMeshfreeThinPoisson's 1.18–1.20 at ν = 0.3 with
// linear nodes): the ratio of its stiffness at ν = 0.3 to that at ν = 0
// (beam theory: 1, the bar is free to contract laterally; the shear term,
// 0.15% of the deflection, changes by 0.05%) is 1 within 2%. Measured,
// 17 nodes and 5 elastons per node: 0.998 (shell), 1.008 (solid). The
// bars themselves are softer than beam theory here (0.942, 0.968) because
// their clamp is on the section's edge, which does not hold the rotation
// of the axis section with quadratic nodes (TestMeshfreeQuadraticNodesBeam:
// clamped near the axis they are within 3%, and so is the single-line
// rod, 4.8× soft with the edge clamp).
func TestMeshfreeQuadraticNodesPoisson(t *testing.T) {
	for _, form := range []string{"shell", "solid"} {
		var f [2]float64
		for k, nu := range []float64{0, 0.3} {
			b := mfCantilever
			b.Nu = nu
			I := b.H * b.H * b.H * b.H / 12
			P := 1e-3 * 3 * b.E * I / (b.L * b.L * b.L)
			G := b.E / (2 * (1 + b.Nu))
			want := P*b.L*b.L*b.L/(3*b.E*I) + P*b.L/(5.0/6*G*b.H*b.H)
			u := b.solveLoaded(t, mfCase{form: form, n: 160, nodes: 17, elastons: 85, quadratic: true,
				loadAt: []geom.Vec3{{b.L, 0, 0}}, loads: []geom.Vec3{{0, -P, 0}}})
			f[k] = want / -u[0][1]
		}
		t.Logf("%s, quadratic nodes: stiffness / beam theory %.4f (ν = 0), %.4f (ν = 0.3): ratio %.4f", form, f[0], f[1], f[1]/f[0])
		if r := f[1] / f[0]; math.Abs(r-1) > 0.02 {
			t.Errorf("%s: quadratic nodes stiffen by %.4f from ν = 0 to 0.3 (want 1 within 2%%)", form, r)
		}
	}
}

// TestMeshfreeQuadraticNodesBeam: quadratic GMLS nodes (Quadratic3)
// converge to beam theory like linear ones once the clamp holds the
// rotation of the axis section. The cantilever of
// TestMeshfreeBarRodShellSolid (ν = 0, 17 nodes, 5 elastons per node) as
// a rod, a shell and a solid, clamped by node 0 and stiff springs on five
// mapped points of the section x = 0 at distance d from the axis.
//
// With d = h/2 (the section's edge, as for linear nodes) the quadratic rod
// is 4.8× too soft and the shell 6%: not the bending — the deflection is
// beam theory's plus a rigid rotation about the root (measured here
// 3.8e-3 rad, and tip − that rotation × L = 0.966e-3 m against 1.0015e-3
// m). A quadratic node's second derivatives let the GMLS field vary
// across the section (the weights depend on y too), so u_x can vanish at
// y = ±h/2 while the axis section rotates: springs on the edge no longer
// hold the rotation, and the elastons, on the axis, see a strain-free
// turn. With d = h/8 (near the axis, where the field is the axis
// section's) the tip is within 3% of P L³/(3EI) + P L/(κGA) for all three
// (measured +1.6%, +0.5%, +2.9%). Five elastons per node are needed:
// with three the second-derivative DOFs keep modes of little energy (the
// smallest eigenvalue of the tangent of a 9-node quadratic rod is 5e-8
// against 1e-3 with linear nodes, its mode a node's own u_x,xy and
// u_x,xz, which enter the elastons' ∇F with about a twentieth of the weight of
// a neighbour's gradient datum) and the bars are 6–23% soft.
func TestMeshfreeQuadraticNodesBeam(t *testing.T) {
	b := mfCantilever
	I := b.H * b.H * b.H * b.H / 12
	P := 1e-3 * 3 * b.E * I / (b.L * b.L * b.L)
	G := b.E / 2
	want := P*b.L*b.L*b.L/(3*b.E*I) + P*b.L/(5.0/6*G*b.H*b.H)
	for _, form := range []string{"rod", "shell", "solid"} {
		u := b.solveLoaded(t, mfCase{form: form, n: 160, nodes: 17, elastons: 85, quadratic: true, clampAt: b.H / 8,
			loadAt: []geom.Vec3{{b.L, 0, 0}}, loads: []geom.Vec3{{0, -P, 0}}})
		e := -u[0][1]/want - 1
		t.Logf("%s, quadratic nodes, clamp near the axis: tip %.6e m, beam theory %.6e m (%+.2f%%)", form, -u[0][1], want, 100*e)
		if math.Abs(e) > 0.03 {
			t.Errorf("%s, quadratic nodes: tip %+.2f%% from beam theory (limit 3%%)", form, 100*e)
		}
	}
	// The clamp on the section's edge: the rod turns about its root.
	u := b.solveLoaded(t, mfCase{form: "rod", n: 160, nodes: 17, elastons: 85, quadratic: true,
		loadAt: []geom.Vec3{{0.001, 0, 0}, {b.L, 0, 0}}, loads: []geom.Vec3{{}, {0, -P, 0}}})
	root := -u[0][1] / 0.001
	t.Logf("rod, clamp on the section's edge: tip %.4g × beam theory, root rotation %.3g rad; tip − root rotation × L = %.6e m", -u[1][1]/want, root, -u[1][1]-root*b.L)
	if -u[1][1]/want < 2 {
		t.Errorf("rod with the clamp on the section's edge: tip %.4g × beam theory; the root rotation this test documents is gone (update the README)", -u[1][1]/want)
	}
}

// TestMeshfreeThinLawReduced: with thinLaw = "reduced" the strain-gradient
// terms of rod and shell elastons (whose material points carry a
// thickness) take the law condensed across their thin directions —
// uniaxial stress for a rod, plane stress for a shell — and the ν = 0.3
// cantilever of TestMeshfreeThinPoisson comes back to beam theory: the
// rod to E I (stiffness factor 1), the shell, a plate strip whose lateral
// curvature its single row of nodes cannot form, to the plate's E I/(1 −
// ν²) (1.0989), each within 2% (the ν = 0 discretisation error at 17
// nodes is −1.3% to +0.7%). The solid, which has no thin points, keeps
// the full law (its stiffening is a matter of its nodes all lying on the
// axis at this sampling, not of a thin region).
func TestMeshfreeThinLawReduced(t *testing.T) {
	b := mfCantilever
	b.Nu = 0.3
	I := b.H * b.H * b.H * b.H / 12
	P := 1e-3 * 3 * b.E * I / (b.L * b.L * b.L)
	G := b.E / (2 * (1 + b.Nu))
	want := P*b.L*b.L*b.L/(3*b.E*I) + P*b.L/(5.0/6*G*b.H*b.H)
	for _, c := range []struct {
		form   string
		factor float64
	}{{"rod", 1}, {"shell", 1 / (1 - b.Nu*b.Nu)}} {
		u := b.solveLoaded(t, mfCase{form: c.form, n: 160, nodes: 17, elastons: 51, thinLaw: "reduced",
			loadAt: []geom.Vec3{{b.L, 0, 0}}, loads: []geom.Vec3{{0, -P, 0}}})
		f := want / -u[0][1]
		t.Logf("%s, ν = %g, thinLaw = reduced: stiffness / beam theory with E %.4f (want %.4f)", c.form, b.Nu, f, c.factor)
		if math.Abs(f/c.factor-1) > 0.02 {
			t.Errorf("%s: stiffness factor %.4f, want %.4f within 2%%", c.form, f, c.factor)
		}
	}
}

// TestMeshfreeBarLinearBlendSkinning: the cantilever of
// TestMeshfreeBarRodShellSolid with KernelShapeFunction weights and
// LinearBlendSkinningMapping instead of GMLS (supportFactor 4, nbRef 16):
// it converges too, from the stiff side, more slowly; within 3% of beam
// theory at 33 nodes.
func TestMeshfreeBarLinearBlendSkinning(t *testing.T) {
	b := mfCantilever
	I := b.H * b.H * b.H * b.H / 12
	P := 1e-3 * 3 * b.E * I / (b.L * b.L * b.L)
	G := b.E / (2 * (1 + b.Nu))
	want := P*b.L*b.L*b.L/(3*b.E*I) + P*b.L/(5.0/6*G*b.H*b.H)
	t.Logf("| nodes | elastons | rod | shell | solid |")
	for _, nodes := range []int{9, 17, 33} {
		row := fmt.Sprintf("| %d | %d |", nodes, 3*nodes)
		for _, form := range []string{"rod", "shell", "solid"} {
			u := b.solveLoaded(t, mfCase{form: form, n: 160, nodes: nodes, elastons: 3 * nodes, lbs: true,
				loadAt: []geom.Vec3{{b.L, 0, 0}}, loads: []geom.Vec3{{0, -P, 0}}})
			e := -u[0][1]/want - 1
			row += fmt.Sprintf(" %+.2f%% |", 100*e)
			if nodes == 33 && math.Abs(e) > 0.03 {
				t.Errorf("%s, %d nodes, skinning: tip deflection %+.2f%% from beam theory (limit 3%%)", form, nodes, 100*e)
			}
		}
		t.Log(row)
	}
}
