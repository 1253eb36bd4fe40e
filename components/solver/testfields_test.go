package solver_test

import (
	"math"

	"github.com/sofago/sofago/graph"
)

// Test-only force fields with known closed forms, registered under names
// starting with "Test" so scenes in these tests can use them.

// testSpring pulls every coordinate linearly to the origin with a linear
// damper: f = −k·x − c·v, so K = −k·I, B = −c·I, W = ½·k·|x|².
type testSpring struct {
	graph.ObjectBase
	K float64 `toml:"stiffness"`
	C float64 `toml:"damping"`
}

func (s *testSpring) AddForce(f, x, v []float64) {
	for i := range f {
		f[i] += -s.K*x[i] - s.C*v[i]
	}
}

func (s *testSpring) AddDForce(df, dx []float64, kFactor, bFactor float64) {
	for i := range df {
		df[i] += (-kFactor*s.K - bFactor*s.C) * dx[i]
	}
}

func (s *testSpring) PotentialEnergy(x []float64) float64 {
	e := 0.0
	for _, xi := range x {
		e += xi * xi
	}
	return 0.5 * s.K * e
}

// testCubic is the nonlinear spring f(x) = −k·x³ + F on every coordinate:
// K = −3k·x², W = k·x⁴/4 − F·x, equilibrium x* = (F/k)^(1/3).
type testCubic struct {
	graph.ObjectBase
	K float64   `toml:"k"`
	F float64   `toml:"load"`
	x []float64 // linearisation point
}

func (c *testCubic) AddForce(f, x, v []float64) {
	c.x = append(c.x[:0], x...)
	for i := range f {
		f[i] += -c.K*x[i]*x[i]*x[i] + c.F
	}
}

func (c *testCubic) AddDForce(df, dx []float64, kFactor, bFactor float64) {
	for i := range df {
		df[i] += kFactor * (-3 * c.K * c.x[i] * c.x[i]) * dx[i]
	}
}

func (c *testCubic) PotentialEnergy(x []float64) float64 {
	e := 0.0
	for _, xi := range x {
		e += c.K*xi*xi*xi*xi/4 - c.F*xi
	}
	return e
}

// testArctan is f(x) = −k·atan(x − c): K = −k/(1 + (x − c)²). Newton's
// method on it diverges from |x − c| ≳ 1.39 (the classic example).
type testArctan struct {
	graph.ObjectBase
	K      float64 `toml:"k"`
	Center float64 `toml:"center"`
	x      []float64
}

func (a *testArctan) AddForce(f, x, v []float64) {
	a.x = append(a.x[:0], x...)
	for i := range f {
		f[i] += -a.K * math.Atan(x[i]-a.Center)
	}
}

func (a *testArctan) AddDForce(df, dx []float64, kFactor, bFactor float64) {
	for i := range df {
		d := a.x[i] - a.Center
		df[i] += kFactor * (-a.K / (1 + d*d)) * dx[i]
	}
}

func (a *testArctan) PotentialEnergy(x []float64) float64 {
	e := 0.0
	for _, xi := range x {
		d := xi - a.Center
		e += a.K * (d*math.Atan(d) - 0.5*math.Log1p(d*d))
	}
	return e
}

// testDense is the linear force f = −A·x with a dense symmetric matrix A
// (rows given in the scene) on a state of len(A) scalar coordinates, so
// K = −A.
type testDense struct {
	graph.ObjectBase
	A [][]float64 `toml:"matrix"`
}

func (d *testDense) mul(out, x []float64, s float64) {
	for i, row := range d.A {
		sum := 0.0
		for j, a := range row {
			sum += a * x[j]
		}
		out[i] += s * sum
	}
}

func (d *testDense) AddForce(f, x, v []float64) { d.mul(f, x, -1) }

func (d *testDense) AddDForce(df, dx []float64, kFactor, bFactor float64) {
	d.mul(df, dx, -kFactor)
}

func (d *testDense) PotentialEnergy(x []float64) float64 {
	ax := make([]float64, len(x))
	d.mul(ax, x, 1)
	e := 0.0
	for i := range x {
		e += x[i] * ax[i]
	}
	return 0.5 * e
}

func init() {
	for _, t := range []graph.TypeInfo{
		{Name: "TestSpring", New: func() graph.Object { return &testSpring{} }},
		{Name: "TestCubic", New: func() graph.Object { return &testCubic{} }},
		{Name: "TestArctan", New: func() graph.Object { return &testArctan{} }},
		{Name: "TestDense", New: func() graph.Object { return &testDense{} }},
	} {
		t.Kind = graph.KindForceField
		t.Summary = "test-only force field"
		graph.Register(t)
	}
}

// testLoadProbe records, at every AddForce, the load factor of its node
// and the first coordinate; it adds no force.
type testLoadProbe struct {
	graph.ObjectBase
	factors, xs []float64
}

func (p *testLoadProbe) AddForce(f, x, v []float64) {
	p.factors = append(p.factors, p.Node.LoadFactor())
	p.xs = append(p.xs, x[0])
}
func (p *testLoadProbe) AddDForce(df, dx []float64, kFactor, bFactor float64) {}
func (p *testLoadProbe) PotentialEnergy(x []float64) float64                  { return 0 }

func init() {
	graph.Register(graph.TypeInfo{Name: "TestLoadProbe", Kind: graph.KindForceField, Summary: "test-only load-factor probe",
		New: func() graph.Object { return &testLoadProbe{} }})
}
