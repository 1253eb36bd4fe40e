package constraint_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sofago/sofago/components/constraint"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

// beamNode is a corotational FEM beam node on the box [x0, x1] × [0, 0.1]²
// with nx points along x, clamped at x = 0 when clamp.
func beamNode(name string, x0, x1 float64, nx int, clamp bool, indent string) string {
	s := fmt.Sprintf(`
[[%[1]snode]]
name = "%[2]s"
  [[%[1]snode.object]]
  type = "RegularGridTopology"
  min = [%[3]g, 0, 0]
  max = [%[4]g, 0.1, 0.1]
  n = [%[5]d, 3, 3]
  [[%[1]snode.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[%[1]snode.object]]
  type = "DiagonalMass"
  massDensity = 1000
  [[%[1]snode.object]]
  type = "TetrahedronFEMForceField"
  method = "large"
  youngModulus = 1e8
  poissonRatio = 0.3
`, indent, name, x0, x1, nx)
	if clamp {
		s += fmt.Sprintf(`  [[%[1]snode.object]]
  type = "FixedConstraint"
  box = [-0.001, -1, -1, 0.001, 1, 1]
`, indent)
	}
	return s
}

func solverObjects(kind string) string {
	switch kind {
	case "static":
		return obj("StaticSolver", "tolerance = 1e-12") + obj("DenseDirectSolver")
	case "staticCholesky":
		return obj("StaticSolver", "tolerance = 1e-12") + obj("SparseCholeskySolver")
	case "dynamicPCG":
		return obj("EulerImplicitSolver", "rayleighMass = 0.5") + obj("PCGLinearSolver", `preconditioner = "ic0"`, "iterations = 5000", "tolerance = 1e-14")
	default:
		return obj("EulerImplicitSolver", "rayleighMass = 0.5") + obj("CGLinearSolver", "iterations = 5000", "tolerance = 1e-14")
	}
}

// twoBeams: two 1 m beams, the second's face x = 1 attached to the first's.
func twoBeams(kind, attach string) string {
	return fmt.Sprintf("dt = 0.02\ngravity = [0, -9.81, 0]\n[[node]]\nname = \"root\"\n%s%s%s%s",
		solverObjects(kind), attach, beamNode("a", 0, 1, 11, true, "node."), beamNode("b", 1, 2, 11, false, "node."))
}

const projectiveAttach = `  [[node.object]]
  type = "AttachConstraint"
  name = "attach"
  object1 = "@a/dofs"
  object2 = "@b/dofs"
  box = [0.999, -1, -1, 1.001, 1, 1]
`

// positionsByRest maps each rest position (rounded) to the current
// position of that point, over the given states.
func positionsByRest(sts ...graph.State) map[[3]int64][3]float64 {
	out := map[[3]int64][3]float64{}
	for _, st := range sts {
		r, x := st.Vec(graph.RestPosition), st.Vec(graph.Position)
		for i := 0; i < st.Size(); i++ {
			k := [3]int64{int64(math.Round(r[3*i] * 1e6)), int64(math.Round(r[3*i+1] * 1e6)), int64(math.Round(r[3*i+2] * 1e6))}
			out[k] = [3]float64{x[3*i], x[3*i+1], x[3*i+2]}
		}
	}
	return out
}

// compareWithOneBeam returns the largest distance between the points of
// the two-beam scene and those of the one 2 m beam at the same rest
// positions, and the one beam's largest displacement.
func compareWithOneBeam(t *testing.T, two, one *graph.Scene) (float64, float64) {
	t.Helper()
	p2 := positionsByRest(graphtest.Find[graph.State](t, two, "root/a/dofs"), graphtest.Find[graph.State](t, two, "root/b/dofs"))
	single := graphtest.Find[graph.State](t, one, "root/one/dofs")
	p1 := positionsByRest(single)
	if len(p1) != len(p2) {
		t.Fatalf("%d distinct rest points in the two beams, %d in the one beam", len(p2), len(p1))
	}
	worst, disp := 0.0, 0.0
	r := single.Vec(graph.RestPosition)
	x := single.Vec(graph.Position)
	for i := range r {
		disp = math.Max(disp, math.Abs(x[i]-r[i]))
	}
	for k, a := range p1 {
		b, ok := p2[k]
		if !ok {
			t.Fatalf("rest point %v of the one beam is in neither of the two", k)
		}
		for j := 0; j < 3; j++ {
			worst = math.Max(worst, math.Abs(a[j]-b[j]))
		}
	}
	return worst, disp
}

// TestAttachedBeamsAreOneBeam: two corotational beams of 1 m, the second
// attached to the end face of the first by an AttachConstraint, sag under
// gravity exactly as one beam of 2 m meshed by the same cells (the two
// meshes together are the one mesh, cell for cell): the attached points'
// masses and forces add up and they move as one. Statically (Newton,
// dense direct solves, or SparseCholeskySolver on the reduced system)
// and dynamically (implicit Euler + CG or PCGLinearSolver with IC(0) on
// the reduced system, 10 steps),
// every point within 1e-8 m of its twin (the solves' tolerances: 1e-12
// and 1e-14 relative; measured: 2e-16) for a sag of 0.2 m. (Symplectic
// Euler averages the pairs' accelerations, which is the total force over
// the total mass only for equal masses; the Kuhn split lumps different
// masses on the two sides of the joint, and the two beams then differ from
// the one by 0.7 % of its displacement after 500 steps of 20 µs, measured.)
func TestAttachedBeamsAreOneBeam(t *testing.T) {
	for _, c := range []struct {
		kind  string
		steps int
	}{{"static", 1}, {"dynamic", 10}, {"staticCholesky", 1}, {"dynamicPCG", 10}} {
		t.Run(c.kind, func(t *testing.T) {
			two := graphtest.MustLoad(t, "two.toml", twoBeams(c.kind, projectiveAttach))
			// The one beam with the solver of reference (dense direct
			// or CG), whatever the two beams use.
			ref := strings.TrimSuffix(strings.TrimSuffix(c.kind, "Cholesky"), "PCG")
			one := graphtest.MustLoad(t, "one.toml", fmt.Sprintf("dt = 0.02\ngravity = [0, -9.81, 0]\n[[node]]\nname = \"root\"\n%s%s",
				solverObjects(ref), beamNode("one", 0, 2, 21, true, "node.")))
			if n := graphtest.Find[*constraint.AttachConstraint](t, two, "root/attach").Pairs(); n != 9 {
				t.Fatalf("%d attached pairs, want the 9 points of the face x = 1", n)
			}
			for i := 0; i < c.steps; i++ {
				if err := two.Step(); err != nil {
					t.Fatal(err)
				}
				if err := one.Step(); err != nil {
					t.Fatal(err)
				}
			}
			worst, disp := compareWithOneBeam(t, two, one)
			t.Logf("%s: largest displacement %.4g m; two attached beams within %.3g m of the one beam", c.kind, disp, worst)
			if worst > 1e-8 || disp < 1e-3 {
				t.Errorf("two attached beams differ from one by %.3g m (displacement %.3g m)", worst, disp)
			}
		})
	}
}

// TestSpringAttachConverges: the same two beams joined by zero-length
// springs (SpringForceField between the states) instead: the gap to the
// one beam falls as 1/k as the springs stiffen (the springs stretch by
// force/k) — by about tenfold per tenfold k — and reaches the projective
// attach's result for stiff springs.
func TestSpringAttachConverges(t *testing.T) {
	one := graphtest.MustLoad(t, "one.toml", fmt.Sprintf("dt = 0.02\ngravity = [0, -9.81, 0]\n[[node]]\nname = \"root\"\n%s%s",
		solverObjects("static"), beamNode("one", 0, 2, 21, true, "node.")))
	if err := one.Step(); err != nil {
		t.Fatal(err)
	}
	// The face x = 1 of each beam: indices 10, 21, ... (x fastest).
	var idxA, idxB []string
	for j := 0; j < 9; j++ {
		idxA = append(idxA, fmt.Sprint(11*j+10))
		idxB = append(idxB, fmt.Sprint(11*j))
	}
	prev := math.Inf(1)
	for _, k := range []float64{1e5, 1e6, 1e7, 1e8, 1e9} {
		springs := fmt.Sprintf(`  [[node.object]]
  type = "SpringForceField"
  object1 = "@a/dofs"
  object2 = "@b/dofs"
  indices1 = [%s]
  indices2 = [%s]
  stiffness = %g
`, strings.Join(idxA, ", "), strings.Join(idxB, ", "), k)
		two := graphtest.MustLoad(t, "springs.toml", twoBeams("static", springs))
		if err := two.Step(); err != nil {
			t.Fatal(err)
		}
		// Each beam's points against the one beam (the attached faces
		// are compared on beam a's side).
		pa := positionsByRest(graphtest.Find[graph.State](t, two, "root/a/dofs"))
		pb := positionsByRest(graphtest.Find[graph.State](t, two, "root/b/dofs"))
		p1 := positionsByRest(graphtest.Find[graph.State](t, one, "root/one/dofs"))
		gap := 0.0
		for _, p := range []map[[3]int64][3]float64{pa, pb} {
			for key, x := range p {
				y := p1[key]
				for j := 0; j < 3; j++ {
					gap = math.Max(gap, math.Abs(x[j]-y[j]))
				}
			}
		}
		t.Logf("k = %g N/m: largest gap to the one beam %.4g m", k, gap)
		if gap > prev/5 {
			t.Errorf("k = %g: gap %.3g m did not fall (previous %.3g m)", k, gap, prev)
		}
		prev = gap
	}
	// gap·k ≈ 4.6e3 N (the springs' forces): 4.6e-6 m at k = 1e9.
	if prev > 1e-5 {
		t.Errorf("stiffest springs: gap %.3g m", prev)
	}
}

// TestAttachProjector: the projection is orthogonal — symmetric
// (⟨Pa, b⟩ = ⟨a, Pb⟩) and idempotent (PPa = Pa) — and lands on the
// constraint: attached points equal (a group of three, where one point of
// object1 is attached to two of object2), and, for Vec3 points on a
// Rigid3 frame, d = v + ω × (x − t).
func TestAttachProjector(t *testing.T) {
	vecScene := `[[node]]
name = "a"
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  position = [[0, 0, 0], [1, 0, 0], [2, 0, 0]]
[[node]]
name = "b"
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  position = [[1, 0, 0], [1, 0, 0], [5, 0, 0], [2, 0, 0]]
  [[node.object]]
  type = "AttachConstraint"
  name = "attach"
  object1 = "@/a/dofs"
  object2 = "@dofs"
  indices1 = [1, 1, 2]
  indices2 = [0, 1, 3]
`
	rigidScene := `[[node]]
name = "a"
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  template = "Rigid3"
  position = [[0, 0, 0, 0, 0, 0, 1], [1, 2, 3, 0.6, 0, 0, 0.8]]
[[node]]
name = "b"
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  position = [[0.5, 0, 0], [1, 2.5, 3], [0, 0.7, -0.2], [9, 9, 9], [1.3, 2, 3.1]]
  [[node.object]]
  type = "AttachConstraint"
  name = "attach"
  object1 = "@/a/dofs"
  object2 = "@dofs"
  indices1 = [0, 1, 0, 1]
  indices2 = [0, 1, 2, 4]
`
	for _, c := range []struct {
		name, scene string
		check       func(a, b, xa, xb []float64) float64
	}{
		{"vec", vecScene, func(a, b, xa, xb []float64) float64 {
			e := 0.0
			for j := 0; j < 3; j++ {
				e = math.Max(e, math.Abs(a[3+j]-b[j])+math.Abs(a[3+j]-b[3+j])+math.Abs(a[6+j]-b[9+j]))
			}
			return e
		}},
		{"rigid", rigidScene, func(a, b, xa, xb []float64) float64 {
			e := 0.0
			for k, fr := range []int{0, 1, 0, -1, 1} {
				if fr < 0 {
					continue
				}
				v, w := geom.Vec3{a[6*fr], a[6*fr+1], a[6*fr+2]}, geom.Vec3{a[6*fr+3], a[6*fr+4], a[6*fr+5]}
				r := geom.At(xb, k).Sub(geom.Vec3{xa[7*fr], xa[7*fr+1], xa[7*fr+2]})
				e = math.Max(e, geom.At(b, k).Sub(v.Add(w.Cross(r))).Norm())
			}
			return e
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := graphtest.MustLoad(t, "p.toml", c.scene)
			ac := graphtest.Find[*constraint.AttachConstraint](t, s, "b/attach")
			sts := ac.States()
			rng := rand.New(rand.NewPCG(1, 2))
			rnd := func() [][]float64 {
				var out [][]float64
				for _, st := range sts {
					out = append(out, graphtest.RandomDeriv(rng, st.Size()*st.Template().DerivSize(), 1))
				}
				return out
			}
			cp := func(v [][]float64) [][]float64 {
				var out [][]float64
				for _, x := range v {
					out = append(out, append([]float64(nil), x...))
				}
				return out
			}
			dot := func(a, b [][]float64) float64 {
				s := 0.0
				for k := range a {
					for i := range a[k] {
						s += a[k][i] * b[k][i]
					}
				}
				return s
			}
			for trial := 0; trial < 5; trial++ {
				a, b := rnd(), rnd()
				pa, pb := cp(a), cp(b)
				ac.ProjectResponse(pa)
				ac.ProjectResponse(pb)
				if d := math.Abs(dot(pa, b) - dot(a, pb)); d > 1e-14 {
					t.Errorf("not symmetric: ⟨Pa, b⟩ − ⟨a, Pb⟩ = %.3g", d)
				}
				ppa := cp(pa)
				ac.ProjectResponse(ppa)
				for k := range pa {
					for i := range pa[k] {
						if math.Abs(ppa[k][i]-pa[k][i]) > 1e-14 {
							t.Fatalf("not idempotent: P(Pa) − Pa = %.3g at state %d entry %d", ppa[k][i]-pa[k][i], k, i)
						}
					}
				}
				if e := c.check(pa[0], pa[1], sts[0].Vec(graph.Position), sts[1].Vec(graph.Position)); e > 1e-14 {
					t.Errorf("projected vector off the constraint by %.3g", e)
				}
				// Unattached entries are untouched: DOF 2 of b in the
				// vector scene, point 3 of b in the rigid one.
				if c.name == "vec" && pa[1][6] != a[1][6] || c.name == "rigid" && pa[1][9] != a[1][9] {
					t.Errorf("an unattached point was changed")
				}
			}
			// The basis T (BasisEntries) spans range(P): T y is left
			// unchanged by P for any y on the independent components, and
			// Tᵀ (a − P a) = 0 (the rest of a is orthogonal to range(T)).
			// With the dimensions (free components), range(T) = range(P).
			var sizes []int
			total := 0
			for _, st := range sts {
				sizes = append(sizes, st.Size()*st.Template().DerivSize())
				total += sizes[len(sizes)-1]
			}
			T := &denseBasis{n: total, dep: map[int]map[int]float64{}}
			ac.BasisEntries(T)
			split := func(v []float64) [][]float64 {
				out := [][]float64{v[:sizes[0]]}
				if len(sizes) > 1 {
					out = append(out, v[sizes[0]:])
				}
				return out
			}
			for trial := 0; trial < 3; trial++ {
				y := graphtest.RandomDeriv(rng, total, 1)
				ty := T.apply(y)
				pty := append([]float64(nil), ty...)
				ac.ProjectResponse(split(pty))
				for i := range ty {
					if math.Abs(pty[i]-ty[i]) > 1e-14 {
						t.Fatalf("P T y ≠ T y at %d: %.3g", i, pty[i]-ty[i])
					}
				}
				a := graphtest.RandomDeriv(rng, total, 1)
				pa := append([]float64(nil), a...)
				ac.ProjectResponse(split(pa))
				for i := range a {
					a[i] -= pa[i]
				}
				for j, v := range T.transposeApply(a) {
					if math.Abs(v) > 1e-14 {
						t.Fatalf("Tᵀ(a − P a) = %.3g at %d, want 0", v, j)
					}
				}
			}
			// Positions: ProjectPosition puts them back on the constraint
			// after a perturbation.
			x := [][]float64{sts[0].Vec(graph.Position), sts[1].Vec(graph.Position)}
			want := cp(x)
			for k := range x {
				for i := range x[k] {
					x[k][i] += 1e-3 * float64((i*7+k)%5)
				}
			}
			if c.name == "rigid" {
				sts[0].Template().Normalize(x[0])
			}
			ac.ProjectPosition(x, 0)
			if c.name == "vec" {
				if e := c.check(x[0], x[1], nil, nil); e > 1e-15 {
					t.Errorf("positions not attached after ProjectPosition: %.3g", e)
				}
			} else {
				// Every attached point at its frame-fixed offset: the
				// frame's rotation applied to the initial offset.
				for k, fr := range []int{0, 1, 0, -1, 1} {
					if fr < 0 {
						continue
					}
					f := x[0][7*fr : 7*fr+7]
					f0 := want[0][7*fr : 7*fr+7]
					q, q0 := geom.Quat{f[3], f[4], f[5], f[6]}, geom.Quat{f0[3], f0[4], f0[5], f0[6]}
					r0 := q0.Conj().Rotate(geom.At(want[1], k).Sub(geom.Vec3{f0[0], f0[1], f0[2]}))
					p := geom.Vec3{f[0], f[1], f[2]}.Add(q.Rotate(r0))
					if d := p.Sub(geom.At(x[1], k)).Norm(); d > 1e-14 {
						t.Errorf("point %d is %.3g m off its frame after ProjectPosition", k, d)
					}
				}
			}
		})
	}
}

func TestAttachErrors(t *testing.T) {
	base := `[[node]]
name = "a"
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  %s
[[node]]
name = "b"
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  position = [[1, 0, 0], [3, 0, 0]]
  [[node.object]]
  type = "AttachConstraint"
  object1 = "@/a/dofs"
  object2 = "@dofs"
  %s
`
	vec := "position = [[0, 0, 0], [1, 0, 0]]"
	for _, c := range []struct{ a, fields, want string }{
		{vec, "", "nothing attached"},
		{vec, "indices1 = [1]\n  indices2 = [0, 1]", "one pair per attachment"},
		{vec, "indices1 = [5]\n  indices2 = [0]", "out of range"},
		{vec, "box = [0.9, -1, -1, 3.1, 1, 1]", "no point of object1"},
		{vec, "box = [5, -1, -1, 6, 1, 1]", "holds no point"},
		{`template = "Vec1"
  position = [[0], [1]]`, "indices1 = [0]\n  indices2 = [0]", "attach states of one template"},
	} {
		s, err := graph.Load("e.toml", []byte(fmt.Sprintf(base, c.a, c.fields)))
		if err == nil {
			err = s.Init()
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one containing %q", c.fields, err, c.want)
		}
	}
}

// TestAttachBeamToRigidBody: a beam whose end face is welded to a rigid
// block (a Rigid3 body of 10 kg at the block's centre, the face's points
// riding on it through AttachConstraint) sags as the same beam continued by
// a stiff FEM block of the same mass (the density putting 10 kg in the
// block): the rigid body is the limit of the stiff block, whose weight acts
// at the same centroid (lumped masses keep each tetrahedron's centroid).
// The difference is the stiff block's flexibility, falling as 1/E: every
// beam point and the body's origin within 1e-6 of the sag for a block 10⁴
// times stiffer than the beam (measured 1.9e-7), ten times closer for 10⁵
// (1.9e-8). It needs the attached points kept on the rotating frame during
// Newton's iterations (Ops.Integrate re-projects them): moved only along
// the projected directions they drift off it by ~θ²r/2, 1.6e-3 of the sag
// here.
func TestAttachBeamToRigidBody(t *testing.T) {
	attached := fmt.Sprintf(`dt = 1
gravity = [0, -9.81, 0]
[[node]]
name = "root"
%s  [[node.object]]
  type = "AttachConstraint"
  name = "weld"
  object1 = "@block/dofs"
  object2 = "@a/dofs"
  box = [0.999, -1, -1, 1.001, 1, 1]
%s
[[node.node]]
name = "block"
  [[node.node.object]]
  type = "MechanicalObject"
  name = "dofs"
  template = "Rigid3"
  position = [[1.1, 0.05, 0.05, 0, 0, 0, 1]]
  [[node.node.object]]
  type = "RigidMass"
  mass = 10
  inertiaDiagonal = [0.0167, 0.0417, 0.0417]
`, solverObjects("static"), beamNode("a", 0, 1, 11, true, "node."))
	a := graphtest.MustLoad(t, "weld.toml", attached)
	if err := a.Step(); err != nil {
		t.Fatal(err)
	}
	pa := positionsByRest(graphtest.Find[graph.State](t, a, "root/a/dofs"))
	frame := graphtest.Find[graph.State](t, a, "root/block/dofs").Vec(graph.Position)
	pa[[3]int64{1100000, 50000, 50000}] = [3]float64{frame[0], frame[1], frame[2]}
	// SparseCholeskySolver on the reduced system (the beam's face carried
	// by the frame's twist) lands on the same Newton solution: both stop
	// at a residual of 1e-12, so within 1e-9 m of each other.
	c := graphtest.MustLoad(t, "weldChol.toml", strings.Replace(attached, "DenseDirectSolver", "SparseCholeskySolver", 1))
	if err := c.Step(); err != nil {
		t.Fatal(err)
	}
	pc := positionsByRest(graphtest.Find[graph.State](t, c, "root/a/dofs"))
	fc := graphtest.Find[graph.State](t, c, "root/block/dofs").Vec(graph.Position)
	pc[[3]int64{1100000, 50000, 50000}] = [3]float64{fc[0], fc[1], fc[2]}
	dc := 0.0
	for k, x := range pa {
		for j := 0; j < 3; j++ {
			dc = math.Max(dc, math.Abs(x[j]-pc[k][j]))
		}
	}
	t.Logf("SparseCholeskySolver vs DenseDirectSolver: %.3g m", dc)
	if dc > 1e-9 {
		t.Errorf("SparseCholeskySolver's weld differs from DenseDirectSolver's by %.3g m", dc)
	}
	prev := 0.0
	for _, eBlock := range []float64{1e12, 1e13} {
		stiff := fmt.Sprintf(`dt = 1
gravity = [0, -9.81, 0]
[[node]]
name = "root"
%s
[[node.node]]
name = "one"
  [[node.node.object]]
  type = "RegularGridTopology"
  min = [0, 0, 0]
  max = [1.2, 0.1, 0.1]
  n = [13, 3, 3]
  [[node.node.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[node.node.object]]
  type = "DiagonalMass"
  massDensity = 1000
  regions = [{box = [0.999, -1, -1, 2, 1, 1], massDensity = 5000}]
  [[node.node.object]]
  type = "TetrahedronFEMForceField"
  method = "large"
  youngModulus = 1e8
  poissonRatio = 0.3
  regions = [{box = [0.999, -1, -1, 2, 1, 1], youngModulus = %g}]
  [[node.node.object]]
  type = "FixedConstraint"
  box = [-0.001, -1, -1, 0.001, 1, 1]
`, solverObjects("static"), eBlock)
		b := graphtest.MustLoad(t, "stiff.toml", stiff)
		if err := b.Step(); err != nil {
			t.Fatal(err)
		}
		pb := positionsByRest(graphtest.Find[graph.State](t, b, "root/one/dofs"))
		worst, sag := 0.0, 0.0
		for k, x := range pa {
			y, ok := pb[k]
			if !ok {
				t.Fatalf("rest point %v missing from the stiff-block beam", k)
			}
			sag = math.Max(sag, float64(k[1])*1e-6-y[1])
			for j := 0; j < 3; j++ {
				worst = math.Max(worst, math.Abs(x[j]-y[j]))
			}
		}
		t.Logf("block E = %g Pa: sag %.4g m; welded rigid body vs stiff FEM block: %.3g m (%.2g of the sag)", eBlock, sag, worst, worst/sag)
		if worst > 1e-6*sag || (prev > 0 && worst > prev/5) {
			t.Errorf("block E = %g: beam welded to a rigid body differs from the stiff-block beam by %.3g m (sag %.3g m; previous %.3g m)", eBlock, worst, sag, prev)
		}
		prev = worst
	}
}

// TestAttachChecks: a FixedConstraint on one side of an attached pair only
// is refused at the first step (the projections would not commute), and so
// is an attachment across two solvers.
func TestAttachChecks(t *testing.T) {
	// Beam b clamped at its own end x = 1 too, beam a not there.
	bad := strings.Replace(twoBeams("dynamic", projectiveAttach), `name = "b"`, `name = "b"
  [[node.node.object]]
  type = "FixedConstraint"
  box = [0.999, -1, -1, 1.001, 1, 1]`, 1)
	s := graphtest.MustLoad(t, "bad.toml", bad)
	if err := s.Step(); err == nil || !strings.Contains(err.Error(), "held differently") {
		t.Errorf("one-sided FixedConstraint: error %v", err)
	}
}

// TestAttachAcrossSolvers: the states of an attachment must be integrated
// by one solver; a constraint no solver reaches is an error, never ignored.
func TestAttachAcrossSolvers(t *testing.T) {
	for _, c := range []struct{ where, want string }{
		// The constraint in the root node, each beam under its own solver.
		{"root", "no ODE solver integrates this constraint's node"},
		// The constraint under beam a's solver, beam b under another.
		{"a", "outside the subtree"},
	} {
		a := strings.Replace(beamNode("a", 0, 1, 11, true, ""), "[[node.object]]\n  type = \"RegularGridTopology\"", solverObjects("dynamic")+"  [[node.object]]\n  type = \"RegularGridTopology\"", 1)
		b := strings.Replace(beamNode("b", 1, 2, 11, false, ""), "[[node.object]]\n  type = \"RegularGridTopology\"", solverObjects("dynamic")+"  [[node.object]]\n  type = \"RegularGridTopology\"", 1)
		attach := strings.NewReplacer("@a/dofs", "@/a/dofs", "@b/dofs", "@/b/dofs").Replace(projectiveAttach)
		var scene string
		if c.where == "root" {
			scene = "dt = 0.01\n" + a + b + "[[node]]\nname = \"glue\"\n" + attach
		} else {
			scene = "dt = 0.01\n" + a + attach + b
		}
		s, err := graph.Load("x.toml", []byte(scene))
		if err == nil {
			err = s.Init()
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("attachment in %s: error %v, want one containing %q", c.where, err, c.want)
		}
	}
}

// TestAttachMappedState: a projective attachment to a mapped state (points
// a RigidMapping computes) is refused with the alternatives named.
func TestAttachMappedState(t *testing.T) {
	scene := fmt.Sprintf(`dt = 0.01
[[node]]
name = "root"
%s  [[node.object]]
  type = "AttachConstraint"
  object1 = "@a/dofs"
  object2 = "@body/points/dofs"
  indices1 = [10]
  indices2 = [0]
%s
[[node.node]]
name = "body"
  [[node.node.object]]
  type = "MechanicalObject"
  template = "Rigid3"
  position = [[1.1, 0.05, 0.05, 0, 0, 0, 1]]
  [[node.node.object]]
  type = "RigidMass"
  mass = 1
  inertiaDiagonal = [1, 1, 1]
  [[node.node.node]]
  name = "points"
    [[node.node.node.object]]
    type = "MechanicalObject"
    name = "dofs"
    position = [[1, 0, 0]]
    [[node.node.node.object]]
    type = "RigidMapping"
`, solverObjects("dynamic"), beamNode("a", 0, 1, 11, true, "node."))
	s, err := graph.Load("m.toml", []byte(scene))
	if err == nil {
		err = s.Init()
	}
	if err == nil || !strings.Contains(err.Error(), "which a mapping computes") {
		t.Errorf("attachment to a mapped state: error %v", err)
	}
}

// denseBasis collects BasisEntries: dep[d][j] = T_dj for the dependent
// components d; T is the identity on the others.
type denseBasis struct {
	n   int
	dep map[int]map[int]float64
}

func (b *denseBasis) Add(row, col int, v float64) {
	if b.dep[row] == nil {
		b.dep[row] = map[int]float64{}
	}
	b.dep[row][col] += v
}

// apply returns T y (y's dependent entries are ignored).
func (b *denseBasis) apply(y []float64) []float64 {
	out := append([]float64(nil), y...)
	for d, row := range b.dep {
		s := 0.0
		for j, v := range row {
			s += v * y[j]
		}
		out[d] = s
	}
	return out
}

// transposeApply returns Tᵀ a (zero on the dependent components).
func (b *denseBasis) transposeApply(a []float64) []float64 {
	out := append([]float64(nil), a...)
	for d, row := range b.dep {
		for j, v := range row {
			out[j] += v * a[d]
		}
	}
	for d := range b.dep {
		out[d] = 0
	}
	return out
}
