package mapping_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	_ "github.com/sofago/sofago/components/shapefunction"
	_ "github.com/sofago/sofago/components/topology"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

// gmlsBarScene is a bar [0, 1] × [−0.1, 0.1]² of 5 × 2 × 2 GMLS nodes
// (template tmpl: Affine3 or Quadratic3, support radius 0.45 m) driving
// the 21 × 5 × 5 vertices of a tetrahedral grid (linear elasticity, E = 1
// MPa, ν = 0) through GMLSMapping, pulled by tractions ±σ on its end
// faces; node 0 (at the origin) is clamped in translation and in the
// off-diagonal gradient entries (no rigid motion left), and a StaticSolver
// with SparseCholeskySolver (which assembles Jᵀ K J through the mapping's
// sparse Jacobian) finds the equilibrium.
func gmlsBarScene(tmpl string, sigma float64) string {
	var nodes []string
	cs := 12
	if tmpl == "Quadratic3" {
		cs = 30
	}
	nb := (cs - 3) / 3
	for i := 0; i < 5; i++ {
		for _, y := range []float64{-0.1, 0.1} {
			for _, z := range []float64{-0.1, 0.1} {
				c := make([]string, cs)
				for k := range c {
					c[k] = "0"
				}
				c[0], c[1], c[2] = fmt.Sprint(0.25*float64(i)), fmt.Sprint(y), fmt.Sprint(z)
				for r := 0; r < 3; r++ {
					c[3+nb*r+r] = "1"
				}
				nodes = append(nodes, "["+strings.Join(c, ", ")+"]")
			}
		}
	}
	// Node 0 is at (0, −0.1, −0.1): fix t and the off-diagonal entries of
	// the linear part (quadratic columns free).
	dirs := make([]string, cs)
	for k := range dirs {
		dirs[k] = "false"
		switch {
		case k < 3:
			dirs[k] = "true"
		case (k-3)%nb < 3 && (k-3)%nb != (k-3)/nb:
			dirs[k] = "true"
		}
	}
	return fmt.Sprintf(`
dt = 1
gravity = [0, 0, 0]
steps = 1
[[node]]
name = "bar"
  [[node.object]]
  type = "StaticSolver"
  iterations = 5
  tolerance = 1e-15
  absoluteTolerance = 1e-11
  [[node.object]]
  type = "SparseCholeskySolver"
  [[node.object]]
  type = "MechanicalObject"
  name = "nodes"
  template = "%s"
  position = [%s]
  [[node.object]]
  type = "PartialFixedConstraint"
  indices = [0]
  fixedDirections = [%s]
  [[node.node]]
  name = "solid"
    [[node.node.object]]
    type = "RegularGridTopology"
    min = [0, -0.1, -0.1]
    max = [1, 0.1, 0.1]
    n = [21, 5, 5]
    [[node.node.object]]
    type = "MechanicalObject"
    name = "points"
    [[node.node.object]]
    type = "TetrahedronFEMForceField"
    method = "small"
    youngModulus = 1e6
    poissonRatio = 0
    [[node.node.object]]
    type = "SurfaceTractionForceField"
    box = [0.999999, -1, -1, 1.000001, 1, 1]
    traction = [%g, 0, 0]
    [[node.node.object]]
    type = "SurfaceTractionForceField"
    box = [-0.000001, -1, -1, 0.000001, 1, 1]
    traction = [%g, 0, 0]
    [[node.node.object]]
    type = "GMLSMapping"
    radius = 0.45
`, tmpl, strings.Join(nodes, ", "), strings.Join(dirs, ", "), sigma, -sigma)
}

// TestGMLSBarUniformStretch: a bar pulled by tractions ±σ on its ends, ν =
// 0: the exact solution of linear elasticity is the uniform stretch u =
// (σ/E) x eₓ (node 0 at x = 0 held), which lies in the span of both the
// tetrahedral mesh and linear or quadratic GMLS, so the Galerkin solution
// must be it — every mesh vertex at X + (σ/E) X eₓ, to the rounding of
// the direct solve. That rounding follows the condition number of the
// reduced Jᵀ K J, measured (gonum EigenSym on the assembled matrix) at
// 5.2e8 for linear and 2.4e12 for quadratic nodes (the quadratic data
// across the 2 × 2 cross-section are nearly free): errors measured 2.5e-13
// m and 3.0e-11 m. Tolerance 1e-9 m, 1e-6 of the 1e-3 m displacement; a
// wrong J, load or assembly, or a discretisation that did not contain the
// stretch, is off by O(1e-5) m or more.
func TestGMLSBarUniformStretch(t *testing.T) {
	const sigma, E = 1000.0, 1e6
	for _, tmpl := range []string{"Affine3", "Quadratic3"} {
		s := graphtest.MustLoad(t, "gmls_bar.toml", gmlsBarScene(tmpl, sigma))
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
		pts := graphtest.Find[graph.State](t, s, "bar/solid/points")
		rest, x := pts.Vec(graph.RestPosition), pts.Vec(graph.Position)
		worst, tip := 0.0, 0.0
		for p := 0; p < pts.Size(); p++ {
			want := []float64{rest[3*p] * (1 + sigma/E), rest[3*p+1], rest[3*p+2]}
			for c := 0; c < 3; c++ {
				worst = math.Max(worst, math.Abs(x[3*p+c]-want[c]))
			}
			tip = math.Max(tip, x[3*p]-rest[3*p])
		}
		t.Logf("%s: tip displacement %.12g m (σL/E = %g m); largest error over the %d vertices %.3g m", tmpl, tip, sigma/E, pts.Size(), worst)
		if worst > 1e-9 {
			t.Errorf("%s: the uniform stretch is not reproduced: error %.3g m", tmpl, worst)
		}
		for _, note := range s.Notes() {
			if strings.Contains(note, "no sparse Jacobian") {
				t.Errorf("%s: the solver probed J: %s", tmpl, note)
			}
		}
	}
}

// gmlsSampledScene is a bar [0, 1] × [0, 0.2]² of 5 × 2 × 2 GMLS nodes
// (tmpl) whose deformation gradients at DenseSampler samples (child
// template ct: F331 at the 10 × 2 × 2 voxel centres, or F332 with order-4
// region moments) feed DeformationGradientForceField (StVK, E = 1 MPa, ν =
// 0.3). The mapping finds its sample positions from the sampler in its
// node, as the skinning mappings do.
func gmlsSampledScene(tmpl, ct string, rest, pos []float64) string {
	cs := 12
	if tmpl == "Quadratic3" {
		cs = 30
	}
	list := func(x []float64) string {
		var rows []string
		for i := 0; i < len(x)/cs; i++ {
			var c []string
			for _, v := range x[cs*i : cs*i+cs] {
				c = append(c, fmt.Sprintf("%.17g", v))
			}
			rows = append(rows, "["+strings.Join(c, ", ")+"]")
		}
		return strings.Join(rows, ", ")
	}
	order := 0
	if ct == "F332" {
		order = 4
	}
	return fmt.Sprintf(`
dt = 1
gravity = [0, 0, 0]
[[node]]
name = "bar"
  [[node.object]]
  type = "MaterialGrid"
  box = [0, 0, 0, 1, 0.2, 0.2]
  resolution = [10, 2, 2]
  massDensity = 1000
  youngModulus = 1e6
  [[node.object]]
  type = "MechanicalObject"
  name = "nodes"
  template = "%s"
  restPosition = [%s]
  position = [%s]
  [[node.node]]
  name = "samples"
    [[node.node.object]]
    type = "DenseSampler"
    order = %d
    [[node.node.object]]
    type = "MechanicalObject"
    name = "F"
    template = "%s"
    [[node.node.object]]
    type = "GMLSMapping"
    radius = 0.45
    [[node.node.object]]
    type = "DeformationGradientForceField"
    materialName = "StVenantKirchhoff"
    youngModulus = 1e6
    poissonRatio = 0.3
`, tmpl, list(rest), list(pos), order, ct)
}

// gmlsLattice returns the nodes of gmlsSampledScene (5 × 2 × 2 at x = 0,
// 0.25, …, 1 and y, z ∈ {0.05, 0.15}).
func gmlsLattice() []geom.Vec3 {
	var c []geom.Vec3
	for i := 0; i < 5; i++ {
		for _, y := range []float64{0.05, 0.15} {
			for _, z := range []float64{0.05, 0.15} {
				c = append(c, geom.Vec3{0.25 * float64(i), y, z})
			}
		}
	}
	return c
}

// TestGMLSSampledSolid: GMLS nodes driving F331 and F332 samples from a
// sampler. (1) Nodes carrying an affine motion x = M X + c give F = M at
// every sample, so the StVK energy is V Ψ(M) with V = 0.04 m³ the bar's
// volume and Ψ = μ tr(E²) + λ/2 tr(E)², E = (MᵀM − I)/2 (closed form, to
// 1e-12 relative: rounding of 40 samples' sums). (2) At a random
// configuration the whole tree's ComputeDf is the derivative of
// ComputeForce (graphtest.CheckOps: every ApplyJ, ApplyJT and AddDForce
// together; tolerance as for the skinning scenes).
func TestGMLSSampledSolid(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 3))
	M := randomAffine(rng)
	c := geom.Vec3{0.1, -0.2, 0.3}
	q := quadraticMap{c: c, M: M}
	centres := gmlsLattice()
	const E, nu, V = 1e6, 0.3, 0.04
	lambda, mu := E*nu/((1+nu)*(1-2*nu)), E/(2*(1+nu))
	G := M.TMul(M).Sub(geom.Identity3()).Scale(0.5)
	want := V * (mu*G.DDot(G) + lambda/2*G.Trace()*G.Trace())
	for _, tmpl := range []graph.Template{graph.Affine3, graph.Quadratic3} {
		for _, ct := range []string{"F331", "F332"} {
			rest := gmlsRest(tmpl, centres)
			pos := gmlsFollow(tmpl, q, centres)
			s := graphtest.MustLoad(t, "gmls_solid.toml", gmlsSampledScene(tmpl.Name(), ct, rest, pos))
			if n := graphtest.Find[graph.State](t, s, "bar/samples/F").Size(); n != 40 {
				t.Fatalf("%d samples, want the sampler's 40", n)
			}
			got := s.Ops().PotentialEnergy()
			t.Logf("%s → %s: affine motion energy %.15g J, V Ψ(M) = %.15g J", tmpl.Name(), ct, got, want)
			if math.Abs(got-want) > 1e-12*want {
				t.Errorf("%s → %s: energy %.15g, want V Ψ(M) = %.15g", tmpl.Name(), ct, got, want)
			}
			for i := range pos {
				pos[i] = rest[i] + 0.02*rng.NormFloat64()
			}
			s = graphtest.MustLoad(t, "gmls_solid.toml", gmlsSampledScene(tmpl.Name(), ct, rest, pos))
			graphtest.CheckOps(t, s.Ops(), graphtest.Options{Trials: 3, Tolerance: 1e-7})
		}
	}
}
