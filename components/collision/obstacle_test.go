package collision

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
	"github.com/sofago/sofago/meshio"
)

// obstacleUnderTest is what the fixture tests need of an obstacle component.
type obstacleUnderTest interface {
	graph.ForceField
	graph.StiffnessAssembler
	graph.DampingAssembler
	Validate() error
}

func engineOf(ff graph.ForceField) *obstacle {
	switch o := ff.(type) {
	case *PlaneForceField:
		return &o.obs
	case *SphereForceField:
		return &o.obs
	case *BoxForceField:
		return &o.obs
	case *MeshObstacleForceField:
		return &o.obs
	}
	panic("not an obstacle")
}

// pointsNear returns n points scattered around the surface of an obstacle:
// each is a random point p inside, kept where it is (half of them) or moved
// along the obstacle's normal to a depth in ±[0.05, 1]·scale, so that no
// point sits within the finite-difference step of the contact switch δ = 0.
func pointsNear(rng *rand.Rand, sh shape, n int, sample func() geom.Vec3, scale float64) []float64 {
	x := make([]float64, 0, 3*n)
	for len(x) < 3*n {
		p := sample()
		d, nrm, _, _ := sh.penetration(p)
		if d <= 0 {
			continue // sample from inside, then push in or out along n
		}
		if rng.IntN(2) == 0 && d > 0.05*scale {
			x = append(x, p[0], p[1], p[2]) // as sampled, at any depth
			continue
		}
		depth := scale * (0.05 + 0.95*rng.Float64())
		if rng.IntN(3) == 0 {
			depth = -depth // a third outside
		}
		q := p.Add(nrm.Scale(d - depth))
		if dq, _, _, _ := sh.penetration(q); math.Abs(dq-depth) > 1e-9*scale && depth > 0 {
			continue // crossed into another face's region: resample
		}
		x = append(x, q[0], q[1], q[2])
	}
	return x
}

func obstacleCases(t *testing.T) []struct {
	name   string
	ff     obstacleUnderTest
	sample func(*rand.Rand) geom.Vec3
	scale  float64
} {
	pen := Penalty{Stiffness: 3e4, Damping: 20, Friction: 0.6, SlipVelocity: 0.05}
	sphere, err := meshio.SphereSurface(0.5, 24, 12)
	if err != nil {
		t.Fatal(err)
	}
	mesh := &MeshObstacleForceField{Penalty: pen}
	if err := mesh.setMesh(sphere.Points, sphere.Triangles); err != nil {
		t.Fatal(err)
	}
	// A torus is not convex: from inside, near its hole, the nearest
	// surface point is often on an edge or a vertex, where the normal
	// turns with the point (the curvature term of the tangent).
	torus, err := meshio.TorusSurface(0.4, 0.15, 8, 10)
	if err != nil {
		t.Fatal(err)
	}
	ring := &MeshObstacleForceField{Penalty: pen}
	if err := ring.setMesh(torus.Points, torus.Triangles); err != nil {
		t.Fatal(err)
	}
	inBall := func(c geom.Vec3, r float64) func(*rand.Rand) geom.Vec3 {
		return func(rng *rand.Rand) geom.Vec3 {
			for {
				p := geom.Vec3{2*rng.Float64() - 1, 2*rng.Float64() - 1, 2*rng.Float64() - 1}
				if p.Norm2() < 1 {
					return c.Add(p.Scale(r))
				}
			}
		}
	}
	return []struct {
		name   string
		ff     obstacleUnderTest
		sample func(*rand.Rand) geom.Vec3
		scale  float64
	}{
		{"plane", &PlaneForceField{Normal: [3]float64{0.3, 1, -0.2}, D: 0.1, Penalty: pen},
			func(rng *rand.Rand) geom.Vec3 {
				return geom.Vec3{rng.Float64(), -0.5 + 0.3*rng.Float64(), rng.Float64()}
			}, 0.01},
		{"sphere", &SphereForceField{Center: [3]float64{0.1, -0.2, 0.3}, Radius: 0.4, Penalty: pen},
			inBall(geom.Vec3{0.1, -0.2, 0.3}, 0.35), 0.02},
		{"sphere with thickness", &SphereForceField{Center: [3]float64{0.1, -0.2, 0.3}, Radius: 0.4, Thickness: 0.03, Penalty: pen},
			inBall(geom.Vec3{0.1, -0.2, 0.3}, 0.4), 0.02},
		{"box", &BoxForceField{Center: [3]float64{0.2, 0, -0.1}, HalfSize: [3]float64{0.5, 0.2, 0.3}, Rotation: [3]float64{10, 20, 30}, Penalty: pen},
			func(rng *rand.Rand) geom.Vec3 {
				r := rotationMatrix([3]float64{10, 20, 30})
				q := geom.Vec3{0.5 * (2*rng.Float64() - 1), 0.2 * (2*rng.Float64() - 1), 0.3 * (2*rng.Float64() - 1)}
				return geom.Vec3{0.2, 0, -0.1}.Add(r.MulVec(q))
			}, 0.01},
		{"mesh sphere", mesh, inBall(geom.Vec3{}, 0.45), 0.01},
		{"mesh torus", ring, func(rng *rand.Rand) geom.Vec3 {
			// Near the hole (v ≈ π), where the surface is concave along u,
			// close to the reflex edges between the 8 segments around z.
			u := 2*math.Pi*float64(rng.IntN(8))/8 + 0.08*(2*rng.Float64()-1)
			v, r := math.Pi*(0.8+0.4*rng.Float64()), 0.15*(0.7+0.3*rng.Float64())
			rho := 0.4 + r*math.Cos(v)
			return geom.Vec3{rho * math.Cos(u), rho * math.Sin(u), r * math.Sin(v)}
		}, 0.03},
	}
}

// TestObstacleFixtures runs the shared force-field fixture on every
// obstacle: at rest (v = 0) the force is −∇W and AddDForce the derivative
// of AddForce; with velocities, the tangent includes the dashpot's
// dependence on the turning normal and the damping product (bFactor) is
// the velocity derivative of dashpot and friction together. Central
// differences at h = 1e-6 × the coordinate scale leave a truncation error
// O(h²·f”') ~ 1e-11 relative and a rounding error ~1e-16/1e-6 = 1e-10:
// the fixture's 1e-6 catches any missing term (those are O(1) relative).
func TestObstacleFixtures(t *testing.T) {
	for _, tc := range obstacleCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			tc.ff.Base().TypeName = tc.name                    // for the fixture's messages
			if _, ok := tc.ff.(*MeshObstacleForceField); !ok { // the mesh has no file here
				if err := tc.ff.Validate(); err != nil {
					t.Fatal(err)
				}
			}
			obs := engineOf(tc.ff)
			rng := rand.New(rand.NewPCG(3, 4))
			x := pointsNear(rng, obs.shape, 40, func() geom.Vec3 { return tc.sample(rng) }, tc.scale)
			obs.lag(x)
			if obs.contacts < 10 || len(obs.fric) != obs.contacts {
				t.Fatalf("only %d of 40 points in contact (%d with friction)", obs.contacts, len(obs.fric))
			}
			graphtest.CheckForceField(t, tc.ff, graph.Vec3, x, nil, graphtest.Options{})
			curved := 0
			for _, h := range obs.hits {
				if h.curved {
					curved++
				}
			}
			t.Logf("%d of %d points in contact, %d on a curved feature", obs.contacts, len(x)/3, curved)
			if _, isSphere := tc.ff.(*SphereForceField); (isSphere || tc.name == "mesh torus") && curved < 5 {
				t.Errorf("only %d contacts on curved features: the curvature terms are hardly exercised", curved)
			}
			// Velocities small enough that no dashpot clamps (c|v| < γδ_min
			// would be 3e4·5e-4 = 15 N against 20·0.2 = 4 N), large enough
			// that friction runs in both regimes (|u| around v_s).
			v := graphtest.RandomDeriv(rng, len(x), 0.2)
			graphtest.CheckForceField(t, tc.ff, graph.Vec3, x, v, graphtest.Options{SkipEnergy: true, CheckDamping: true})
			// The matrices the assembled solvers take (AddKToMatrix,
			// AddBToMatrix) column by column against AddDForce at x, v:
			// every obstacle, box edges and mesh features included (the
			// solver package's scene check sees only planes and spheres).
			// Both sides sum the same terms in other orders: 1e-12 of the
			// column's largest entry.
			const kf, bf = -0.7, 0.3
			tc.ff.AddForce(make([]float64, len(x)), x, v)
			for _, c := range []struct {
				name  string
				write func(m graph.MatrixAccumulator)
				k, b  float64
			}{{"kK", func(m graph.MatrixAccumulator) { tc.ff.AddKToMatrix(m, kf) }, kf, 0},
				{"bB", func(m graph.MatrixAccumulator) { tc.ff.AddBToMatrix(m, bf) }, 0, bf}} {
				worst, cols := matrixVsProducts(len(x), c.write, func(df, dx []float64) { tc.ff.AddDForce(df, dx, c.k, c.b) })
				t.Logf("%s: %d non-zero columns, worst %.3g", c.name, cols, worst)
				if cols == 0 || worst > 1e-12 {
					t.Errorf("%s matrix differs from AddDForce by %.3g relative (%d columns)", c.name, worst, cols)
				}
			}
		})
	}
}
