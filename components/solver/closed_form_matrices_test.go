package solver_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

// denseAcc collects MatrixAccumulator entries into a dense n×n matrix.
type denseAcc struct {
	n int
	a []float64
}

func newDenseAcc(n int) *denseAcc { return &denseAcc{n: n, a: make([]float64, n*n)} }

func (d *denseAcc) Add(r, c int, v float64) { d.a[r*d.n+c] += v }

// compareColumns returns max_j |A e_j − f(e_j)|∞ / |f(e_j)|∞ over the
// columns j whose product is not zero, and how many there were; f writes
// its product into df (zeroed by the caller).
func compareColumns(a *denseAcc, f func(df, dx []float64)) (float64, int) {
	n := a.n
	dx, df := make([]float64, n), make([]float64, n)
	worst, cols := 0.0, 0
	for j := 0; j < n; j++ {
		clear(df)
		dx[j] = 1
		f(df, dx)
		dx[j] = 0
		scale := 0.0
		for _, v := range df {
			scale = math.Max(scale, math.Abs(v))
		}
		for i := 0; i < n; i++ {
			scale = math.Max(scale, math.Abs(a.a[i*n+j]))
		}
		if scale == 0 {
			continue
		}
		cols++
		for i := 0; i < n; i++ {
			worst = math.Max(worst, math.Abs(a.a[i*n+j]-df[i])/scale)
		}
	}
	return worst, cols
}

// split cuts v into the states' derivative vectors.
func split(v []float64, sts []graph.State) [][]float64 {
	var out [][]float64
	o := 0
	for _, s := range sts {
		n := s.Size() * s.Template().DerivSize()
		out = append(out, v[o:o+n:o+n])
		o += n
	}
	return out
}

// TestClosedFormMatricesMatchProducts checks the matrices that the
// assembled solvers now take in closed form instead of probing — the
// interaction matrices kK + bB of SpringForceField between two states
// (damped, so that the turning of the damping force enters K) and of
// JointSpringForceField (damped joints of articulated_chain), the
// damping matrices B of MeshSpringForceField and TriangularBendingSprings
// (cloth), the mass matrices of RigidMass and FrameMass (rigid frames
// of frames_T, affine ones of frames_affine, quadratic of
// frames_quadratic), and the contact matrices: kK + bB of the contacts
// between states of one solver (the collision pipeline's interaction:
// contactText's ball, block and cube), K and B of the collision models'
// contacts with static objects (contactText's wall, both ways) and with
// objects of other solvers (the friction held on each side:
// ball_on_bridge), K and B of the obstacles (PlaneForceField of drop and
// wall_crash, SphereForceField's curvature terms in contactText), and
// K and B of RigidMass's gyroscopic terms (spinning bodies) — column
// by column against the matrix-free products AddDForce / AddMDx, at moved
// configurations with velocities (after a few steps; the contacts slide,
// so friction is in its non-linear range). Both sides evaluate the same
// terms in other orders: 1e-12 of the column's largest entry. A
// collision component without contacts at that moment has nothing to
// compare (it is checked where it has some: each kind must be seen with
// non-zero columns somewhere).
func TestClosedFormMatricesMatchProducts(t *testing.T) {
	scenes := []struct {
		file  string
		steps int
		repl  []string
		load  func(t *testing.T) *graph.Scene
	}{
		{file: "attached_beams.toml", steps: 5, repl: []string{"stiffness = 2e6", "stiffness = 2e6\n  damping = 50"}},
		{file: "articulated_chain.toml", steps: 20},
		{file: "cloth.toml", steps: 20},
		{file: "frames_T.toml", steps: 5},
		{file: "frames_affine.toml", steps: 3},
		{file: "frames_quadratic.toml", steps: 2},
		{file: "contacts", steps: 4, load: func(t *testing.T) *graph.Scene { return loadContactScene(t, `type = "SparseCholeskySolver"`) }},
		{file: "ball_on_bridge.toml", steps: 150},
		{file: "wall_crash.toml", steps: 100},
		{file: "gyroscopic", steps: 5, load: func(t *testing.T) *graph.Scene { return graphtest.MustLoad(t, "gyro.toml", gyroscopicText()) }},
	}
	// Components whose contact set may be empty at the checked step.
	contactKinds := map[string]bool{"PenaltyContactForceField": true, "TriangleCollisionModel": true, "PointCollisionModel": true,
		"PlaneForceField": true, "SphereForceField": true, "BoxForceField": true, "MeshObstacleForceField": true}
	const k, b, m = -0.7, 0.3, 1.9
	seen := map[string]bool{}
	for _, sc := range scenes {
		t.Run(sc.file, func(t *testing.T) {
			var s *graph.Scene
			if sc.load != nil {
				s = sc.load(t)
			} else {
				s = shippedScene(t, sc.file, sc.repl...)
			}
			for i := 0; i < sc.steps; i++ {
				if err := s.Step(); err != nil {
					t.Fatal(err)
				}
			}
			check := func(kind, name string, a *denseAcc, f func(df, dx []float64)) {
				worst, cols := compareColumns(a, f)
				t.Logf("%s: %d non-zero columns of %d, worst %.3g", name, cols, a.n, worst)
				base := strings.TrimSuffix(strings.TrimSuffix(kind, " K"), " B")
				if (cols == 0 && !contactKinds[base] && base != "RigidMass") || worst > 1e-12 {
					t.Errorf("%s: assembled matrix differs from the products by %.3g relative (%d columns)", name, worst, cols)
				}
				if cols > 0 {
					seen[kind] = true
				}
			}
			s.Root.Walk(func(nd *graph.Node) error {
				for _, o := range nd.Objects {
					kind := o.Base().TypeName
					if kind == "" {
						kind = fmt.Sprintf("%T", o)
						kind = kind[strings.LastIndex(kind, ".")+1:]
					}
					switch c := o.(type) {
					case graph.InteractionMatrixAssembler:
						ia := o.(graph.InteractionForceField)
						sts := ia.States()
						n := 0
						for _, st := range sts {
							n += st.Size() * st.Template().DerivSize()
						}
						a := newDenseAcc(n)
						c.AddKBToMatrix(a, k, b)
						check(kind, kind+" kK+bB "+o.Base().Path(), a, func(df, dx []float64) { ia.AddDForce(split(df, sts), split(dx, sts), k, b) })
					case graph.DampingAssembler:
						ff := o.(graph.ForceField)
						st := nd.State()
						a := newDenseAcc(st.Size() * st.Template().DerivSize())
						c.AddBToMatrix(a, b)
						bkind := kind
						if kind == "RigidMass" {
							bkind = "RigidMass B" // its mass matrix is checked below
						}
						check(bkind, kind+" bB "+o.Base().Path(), a, func(df, dx []float64) { ff.AddDForce(df, dx, 0, b) })
						if sa, ok := o.(graph.StiffnessAssembler); ok && (contactKinds[kind] || kind == "RigidMass") {
							a := newDenseAcc(st.Size() * st.Template().DerivSize())
							sa.AddKToMatrix(a, k)
							check(kind+" K", kind+" kK "+o.Base().Path(), a, func(df, dx []float64) { ff.AddDForce(df, dx, k, 0) })
						}
					}
					if ms, ok := o.(graph.Mass); ok && (kind == "RigidMass" || kind == "FrameMass") {
						st := nd.State()
						a := newDenseAcc(st.Size() * st.Template().DerivSize())
						ms.(graph.MassAssembler).AddMToMatrix(a, m)
						check(kind, kind+" mM "+o.Base().Path()+" "+st.Template().Name(), a, func(df, dx []float64) { ms.AddMDx(df, dx, m) })
					}
				}
				return nil
			})
		})
	}
	for _, want := range []string{"SpringForceField", "JointSpringForceField", "MeshSpringForceField", "TriangularBendingSprings", "RigidMass", "FrameMass",
		"PenaltyContactForceField", "TriangleCollisionModel", "TriangleCollisionModel K", "PointCollisionModel", "PlaneForceField", "PlaneForceField K", "SphereForceField", "SphereForceField K", "RigidMass B", "RigidMass K"} {
		if !seen[want] {
			t.Errorf("no %s checked with a non-zero matrix", want)
		}
	}
}
