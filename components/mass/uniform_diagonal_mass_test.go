package mass_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sofago/sofago/components/mass"
	_ "github.com/sofago/sofago/components/topology"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

func initSceneErr(text string) error {
	s, err := graph.Load("m.toml", []byte(text))
	if err != nil {
		return err
	}
	return s.Init()
}

func uniformMassScene(template string, n int, massTOML string) string {
	dim := map[string]int{"Vec3": 3, "Vec1": 1, "Rigid3": 7}[template]
	p := make([]string, n)
	for i := range p {
		c := make([]string, dim)
		for j := range c {
			c[j] = fmt.Sprint(i + j)
		}
		if template == "Rigid3" {
			c[6] = "1"
			c[3], c[4], c[5] = "0", "0", "0"
		}
		p[i] = "[" + strings.Join(c, ", ") + "]"
	}
	return fmt.Sprintf(`
gravity = [1, -9.81, 2]
[[node]]
name = "n"
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  template = %q
  position = [%s]
  [[node.object]]
  type = "UniformMass"
  name = "mass"
  %s
`, template, strings.Join(p, ", "), massTOML)
}

// TestUniformMassTotalVersusVertex: totalMass is spread evenly over the DOFs,
// vertexMass is per DOF; giving both, or neither (SOFA's silent default of
// 1 kg per DOF), is an error at load naming the line of the mass.
func TestUniformMassTotalVersusVertex(t *testing.T) {
	for _, c := range []struct {
		toml string
		want float64
	}{{"totalMass = 6", 1.5}, {"vertexMass = 0.25", 0.25}} {
		s := graphtest.MustLoad(t, "m.toml", uniformMassScene("Vec3", 4, c.toml))
		if got := graphtest.Find[*mass.UniformMass](t, s, "n/mass").MassPerDOF(); got != c.want {
			t.Errorf("%q: mass per DOF %g, want %g", c.toml, got, c.want)
		}
	}
	err := initSceneErr(uniformMassScene("Vec3", 4, "totalMass = 1\n  vertexMass = 1"))
	if err == nil || !strings.Contains(err.Error(), "not both") {
		t.Errorf("both totalMass and vertexMass: error %v", err)
	}
	err = initSceneErr(uniformMassScene("Vec3", 4, ""))
	if err == nil || !strings.Contains(err.Error(), "give the mass: totalMass") || !strings.Contains(err.Error(), `object "mass" (UniformMass)`) {
		t.Errorf("neither totalMass nor vertexMass: error %v", err)
	}
	err = initSceneErr(uniformMassScene("Rigid3", 2, "vertexMass = 1"))
	if err == nil || !strings.Contains(err.Error(), "use RigidMass") {
		t.Errorf("UniformMass on Rigid3: error %v, want a pointer to RigidMass", err)
	}
	err = initSceneErr(uniformMassScene("Vec3", 2, "totalMass = -1"))
	if err == nil || !strings.Contains(err.Error(), "out of range") {
		t.Errorf("negative totalMass: error %v", err)
	}
}

// TestUniformMassOperators checks M·dx, ½vᵀMv, M⁻¹f and the gravity
// fixture: the weight is −∇ of the potential −Σ m g·x and its stiffness is
// zero (graphtest.CheckForceField, central differences, default 1e-6).
// The potential is linear in x, so the difference quotient is exact up to
// rounding of W.
func TestUniformMassOperators(t *testing.T) {
	s := graphtest.MustLoad(t, "m.toml", uniformMassScene("Vec3", 5, "totalMass = 10"))
	um := graphtest.Find[*mass.UniformMass](t, s, "n/mass")
	rng := rand.New(rand.NewPCG(1, 2))
	x := graphtest.RandomDeriv(rng, 15, 3)
	graphtest.CheckForceField(t, um, graph.Vec3, x, nil, graphtest.Options{})

	const m = 2.0 // 10 kg over 5 points
	dx := graphtest.RandomDeriv(rng, 15, 1)
	df := make([]float64, 15)
	um.AddMDx(df, dx, -1.5)
	ke := 0.0
	for i := range dx {
		if df[i] != -1.5*m*dx[i] {
			t.Fatalf("AddMDx[%d] = %g, want %g", i, df[i], -1.5*m*dx[i])
		}
		ke += 0.5 * m * dx[i] * dx[i]
	}
	if got := um.KineticEnergy(dx); math.Abs(got-ke) > 1e-15*ke {
		t.Errorf("KineticEnergy = %.17g, want %.17g", got, ke)
	}
	a := make([]float64, 15)
	um.AccFromF(a, dx)
	for i := range a {
		if a[i] != dx[i]/m {
			t.Fatalf("AccFromF[%d] = %g, want %g", i, a[i], dx[i]/m)
		}
	}
	f := make([]float64, 15)
	um.AddForce(f, x, nil)
	g := []float64{1, -9.81, 2}
	w := 0.0
	for i := range f {
		if f[i] != m*g[i%3] {
			t.Fatalf("gravity force[%d] = %g, want %g", i, f[i], m*g[i%3])
		}
		w -= m * g[i%3] * x[i]
	}
	if got := um.PotentialEnergy(x); math.Abs(got-w) > 1e-14*math.Abs(w) {
		t.Errorf("PotentialEnergy = %.17g, want %.17g", got, w)
	}
}

// TestUniformMassVec1: no gravity on reduced coordinates, M = m·I.
func TestUniformMassVec1(t *testing.T) {
	s := graphtest.MustLoad(t, "m.toml", uniformMassScene("Vec1", 3, "vertexMass = 4"))
	um := graphtest.Find[*mass.UniformMass](t, s, "n/mass")
	f := make([]float64, 3)
	um.AddForce(f, []float64{1, 2, 3}, nil)
	if f[0] != 0 || f[1] != 0 || f[2] != 0 || um.PotentialEnergy([]float64{1, 2, 3}) != 0 {
		t.Errorf("Vec1 gravity: force %v, energy %g; want none", f, um.PotentialEnergy([]float64{1, 2, 3}))
	}
	df := make([]float64, 3)
	um.AddMDx(df, []float64{1, 2, 3}, 1)
	if df[2] != 12 {
		t.Errorf("Vec1 AddMDx = %v", df)
	}
	if err := um.CheckInvertible(); err != nil {
		t.Error(err)
	}
	s = graphtest.MustLoad(t, "m.toml", uniformMassScene("Vec1", 3, "vertexMass = 0"))
	if err := graphtest.Find[*mass.UniformMass](t, s, "n/mass").CheckInvertible(); err == nil {
		t.Error("zero mass reported invertible")
	}
}

func diagonalMassScene(min, max [3]float64, n [3]int, massTOML string) string {
	return fmt.Sprintf(`
gravity = [0, -9.81, 0]
[[node]]
name = "n"
  [[node.object]]
  type = "RegularGridTopology"
  name = "grid"
  min = [%g, %g, %g]
  max = [%g, %g, %g]
  n = [%d, %d, %d]
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[node.object]]
  type = "DiagonalMass"
  name = "mass"
  %s
`, min[0], min[1], min[2], max[0], max[1], max[2], n[0], n[1], n[2], massTOML)
}

// TestDiagonalMassTotals: on a box a×b×c split into tetrahedra, Σ m_i = ρ·abc
// (the tetrahedra tile the box; 1e-12 relative allows the rounding of a few
// hundred volume sums). Corner vertices by hand: in the Kuhn split every
// one of a cell's 6 tetrahedra (volume V_cell/6) contains the cell's low
// and high corners, so the box corners (0,0,0) and (a,b,c) get
// 6·(ρV_cell/6)/4 = ρV_cell/4; the corner (a,0,0) is the cell corner
// (1,0,0), in the 2 tetrahedra whose first step is along x, so it gets
// 2·(ρV_cell/6)/4 = ρV_cell/12.
func TestDiagonalMassTotals(t *testing.T) {
	const a, b, c, rho = 1.2, 0.3, 0.5, 2700.0
	n := [3]int{5, 3, 4}
	s := graphtest.MustLoad(t, "dm.toml", diagonalMassScene([3]float64{-0.1, 0.2, 0}, [3]float64{-0.1 + a, 0.2 + b, c}, n, fmt.Sprintf("massDensity = %g", rho)))
	dm := graphtest.Find[*mass.DiagonalMass](t, s, "n/mass")
	ms := dm.VertexMasses()
	total := 0.0
	for _, m := range ms {
		total += m
	}
	if want := rho * a * b * c; math.Abs(total-want) > 1e-12*want {
		t.Errorf("Σ m_i = %.17g, want ρabc = %.17g", total, want)
	}
	vCell := a / float64(n[0]-1) * b / float64(n[1]-1) * c / float64(n[2]-1)
	idx := func(i, j, k int) int { return i + n[0]*(j+n[1]*k) }
	for _, v := range []struct {
		i, j, k int
		want    float64
	}{
		{0, 0, 0, rho * vCell / 4},
		{n[0] - 1, n[1] - 1, n[2] - 1, rho * vCell / 4},
		{n[0] - 1, 0, 0, rho * vCell / 12},
	} {
		if got := ms[idx(v.i, v.j, v.k)]; math.Abs(got-v.want) > 1e-13*v.want {
			t.Errorf("vertex (%d,%d,%d): mass %.17g, want %.17g", v.i, v.j, v.k, got, v.want)
		}
	}
	// totalMass instead of a density: same distribution, scaled.
	s2 := graphtest.MustLoad(t, "dm.toml", diagonalMassScene([3]float64{-0.1, 0.2, 0}, [3]float64{-0.1 + a, 0.2 + b, c}, n, "totalMass = 3"))
	ms2 := graphtest.Find[*mass.DiagonalMass](t, s2, "n/mass").VertexMasses()
	for i := range ms {
		if want := ms[i] * 3 / (rho * a * b * c); math.Abs(ms2[i]-want) > 1e-12*want {
			t.Fatalf("totalMass: vertex %d mass %.17g, want %.17g", i, ms2[i], want)
		}
	}
}

// TestDiagonalMassOperators: the gravity fixture, M·dx, kinetic energy and
// M⁻¹f against the vertex masses.
func TestDiagonalMassOperators(t *testing.T) {
	s := graphtest.MustLoad(t, "dm.toml", diagonalMassScene([3]float64{}, [3]float64{1, 1, 1}, [3]int{3, 2, 2}, ""))
	dm := graphtest.Find[*mass.DiagonalMass](t, s, "n/mass")
	ms := dm.VertexMasses()
	total := 0.0
	for _, m := range ms {
		total += m
	}
	if math.Abs(total-1000) > 1e-12*1000 {
		t.Errorf("default density: total %g, want 1000 kg for 1 m³", total)
	}
	nd := 3 * len(ms)
	rng := rand.New(rand.NewPCG(3, 4))
	x := graphtest.RandomDeriv(rng, nd, 2)
	graphtest.CheckForceField(t, dm, graph.Vec3, x, nil, graphtest.Options{})
	dx := graphtest.RandomDeriv(rng, nd, 1)
	df := make([]float64, nd)
	dm.AddMDx(df, dx, 2)
	a := make([]float64, nd)
	dm.AccFromF(a, dx)
	ke := 0.0
	for i := range dx {
		m := ms[i/3]
		if df[i] != 2*m*dx[i] || a[i] != dx[i]/m {
			t.Fatalf("entry %d: M dx = %g (want %g), M⁻¹f = %g (want %g)", i, df[i], 2*m*dx[i], a[i], dx[i]/m)
		}
		ke += 0.5 * m * dx[i] * dx[i]
	}
	if got := dm.KineticEnergy(dx); math.Abs(got-ke) > 1e-14*ke {
		t.Errorf("KineticEnergy = %.17g, want %.17g", got, ke)
	}
	if err := dm.CheckInvertible(); err != nil {
		t.Error(err)
	}
}

// TestDiagonalMassErrors: no tetrahedra, both fields.
func TestDiagonalMassErrors(t *testing.T) {
	err := initSceneErr(`
[[node]]
name = "n"
  [[node.object]]
  type = "MechanicalObject"
  position = [[0, 0, 0]]
  [[node.object]]
  type = "DiagonalMass"
`)
	if err == nil || !strings.Contains(err.Error(), "needs the tetrahedra") {
		t.Errorf("no topology: error %v", err)
	}
	err = initSceneErr(diagonalMassScene([3]float64{}, [3]float64{1, 1, 1}, [3]int{2, 2, 2}, "totalMass = 1\n  massDensity = 1"))
	if err == nil || !strings.Contains(err.Error(), "not both") {
		t.Errorf("both fields: error %v", err)
	}
}
