package validation

import (
	"math"
	"os"
	"strings"
	"testing"

	"github.com/sofago/sofago/components/forcefield"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

// shapeDeviation returns the largest distance between the points x and
// the rest points X after the best rigid fit (Procrustes: translation of
// the centroids, rotation the polar factor of Σ (x − x̄)(X − X̄)ᵀ), and the
// body's extent: how far x is from a rigid motion of X.
func shapeDeviation(x, X []float64) (dev, size float64) {
	n := len(x) / 3
	var xc, Xc geom.Vec3
	for i := 0; i < n; i++ {
		xc = xc.Add(geom.At(x, i))
		Xc = Xc.Add(geom.At(X, i))
	}
	xc, Xc = xc.Scale(1/float64(n)), Xc.Scale(1/float64(n))
	var C geom.Mat3
	for i := 0; i < n; i++ {
		a, b := geom.At(x, i).Sub(xc), geom.At(X, i).Sub(Xc)
		for r := 0; r < 3; r++ {
			for c := 0; c < 3; c++ {
				C[3*r+c] += a[r] * b[c]
			}
		}
		size = math.Max(size, b.Norm())
	}
	R := geom.PolarRotation(C)
	for i := 0; i < n; i++ {
		d := geom.At(x, i).Sub(xc).Sub(R.MulVec(geom.At(X, i).Sub(Xc)))
		dev = math.Max(dev, d.Norm())
	}
	return dev, size
}

// TestPlasticDrop runs scenes/plastic_drop.toml (an elasto-plastic block
// dropped on a corner onto a tilted plane) to rest, and the same scene
// with plasticity off. Permanent deformation is measured, after the best
// rigid fit, as the largest distance of a vertex from the rest shape.
// Resting on the slope under gravity, the elastic block deviates from
// its rest shape only by its sag, ρgH/E·H ≈ 0.1 mm order; the plastic
// block keeps the dent of its impact, more than ten times that. At rest:
// kinetic energy below 1e-3 J (the drop brings 1.6 J). The plastic strain
// is non-zero and bounded by plasticMaxThreshold.
func TestPlasticDrop(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs a drop to rest twice (seconds)")
	}
	text, err := os.ReadFile("../scenes/plastic_drop.toml")
	if err != nil {
		t.Fatal(err)
	}
	run := func(src string) (dev, size, ke float64, eps []float64) {
		s, err := graph.Load("../scenes/plastic_drop.toml", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Init(); err != nil {
			t.Fatal(err)
		}
		dofs := graphtest.Find[*graph.MechanicalObject](t, s, "block/dofs")
		fem := graphtest.Find[*forcefield.TetrahedronFEMForceField](t, s, "block/fem")
		stepN(t, s, s.Steps)
		ke, _ = s.Energies()
		dev, size = shapeDeviation(dofs.Vec(graph.Position), dofs.Vec(graph.RestPosition))
		return dev, size, ke, append([]float64(nil), fem.PlasticStrain()...)
	}
	devP, size, keP, eps := run(string(text))
	elastic := strings.Replace(string(text), "plasticMaxThreshold = 0.2", "plasticMaxThreshold = 0", 1)
	if elastic == string(text) {
		t.Fatal("scene no longer sets plasticMaxThreshold = 0.2")
	}
	devE, _, keE, epsE := run(elastic)
	t.Logf("plastic: max deviation from the rest shape %.3g mm, kinetic energy %.2g J; elastic: %.3g mm, %.2g J; block half-diagonal %.3g mm",
		1e3*devP, keP, 1e3*devE, keE, 1e3*size)
	if keP > 1e-3 || keE > 1e-3 {
		t.Errorf("not at rest: kinetic energies %g J (plastic), %g J (elastic)", keP, keE)
	}
	if epsE != nil {
		t.Errorf("plasticity off, yet a plastic state")
	}
	maxNorm := 0.0
	for e := 0; e < len(eps)/6; e++ {
		v := eps[6*e : 6*e+6]
		n := math.Sqrt(v[0]*v[0] + v[1]*v[1] + v[2]*v[2] + 2*(v[3]*v[3]+v[4]*v[4]+v[5]*v[5]))
		maxNorm = math.Max(maxNorm, n)
	}
	if !(maxNorm > 0.01 && maxNorm <= 0.2*(1+1e-12)) {
		t.Errorf("largest plastic strain norm %g, want in (0.01, 0.2]", maxNorm)
	}
	if !(devP > 10*devE) {
		t.Errorf("no dent: deviation from the rest shape %.3g mm with plasticity, %.3g mm without", 1e3*devP, 1e3*devE)
	}
}
