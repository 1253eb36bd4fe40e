package forcefield

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

// Issue 12, item 3: a MechanicalObject given `position` next to a topology
// starts from that deformed pose, its rest shape staying the topology's
// points, so the elastic forces are those of the deformation (they used to
// be zero: the pose became the rest shape).

// poseScene is a 1 × 0.1 × 0.1 m polar-corotational beam (E = 1 MPa,
// ν = 0.3) on a 5×2×2 grid, with position rows when given.
func poseScene(position string) string {
	text := femScene([3]int{5, 2, 2}, [3]float64{1, 0.1, 0.1}, "method = \"polar\"\n  youngModulus = 1e6\n  poissonRatio = 0.3")
	if position != "" {
		text = strings.Replace(text, `name = "dofs"`, `name = "dofs"`+"\n  position = "+position, 1)
	}
	return text
}

func rowsOf(x []float64) string {
	var b strings.Builder
	b.WriteString("[")
	for i := 0; i < len(x)/3; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "[%.17g, %.17g, %.17g]", x[3*i], x[3*i+1], x[3*i+2])
	}
	b.WriteString("]")
	return b.String()
}

// forcesOf returns the total force on beam/dofs at its current position.
func forcesOf(s *graph.Scene) []float64 {
	s.ComputeForces()
	return append([]float64(nil), s.Find("beam/dofs").(graph.State).Vec(graph.Force)...)
}

// TestStretchedInitialPoseHasItsForces gives the beam a uniaxial stretch
// x = X + ε X₀ e_x as its `position`. Checks:
//   - the rest shape is still the grid (the topology's points);
//   - the forces equal, bit for bit, those of the rest beam deformed in code
//     to the same pose;
//   - closed form: with the polar decomposition R = I for F = diag(1+ε, 1, 1),
//     the first Piola stress is P = 2μ(F − I) + λ tr(F − I) I, uniform, so
//     the x-forces on the vertices of the end face x = L sum to −P_xx·A
//     = −(λ + 2μ) ε A exactly (the nodal forces of a uniform stress on
//     linear tetrahedra are its tractions integrated against the shape
//     functions; on the side faces P n has no x-component), those on
//     x = 0 to +(λ + 2μ) ε A, and each vertex inside in x has zero x-force.
//     Tolerance 1e-12 relative to (λ + 2μ) ε A: the forces are sums of
//     a few dozen element terms of that size, rounded at 1e-16.
func TestStretchedInitialPoseHasItsForces(t *testing.T) {
	const eps = 0.01
	ref := graphtest.MustLoad(t, "rest.toml", poseScene(""))
	X := append([]float64(nil), ref.Find("beam/dofs").(graph.State).Vec(graph.RestPosition)...)
	x := append([]float64(nil), X...)
	for i := 0; i < len(x); i += 3 {
		x[i] *= 1 + eps
	}

	s := graphtest.MustLoad(t, "stretched.toml", poseScene(rowsOf(x)))
	st := s.Find("beam/dofs").(graph.State)
	for i, v := range st.Vec(graph.RestPosition) {
		if v != X[i] {
			t.Fatalf("rest position %d = %v, want the grid's %v: the given position became the rest shape", i/3, v, X[i])
		}
	}
	f := forcesOf(s)

	copy(ref.Find("beam/dofs").(graph.State).Vec(graph.Position), x)
	fCode := forcesOf(ref)
	for i := range f {
		if f[i] != fCode[i] {
			t.Fatalf("force component %d: %v from the scene's position, %v from the same pose set in code", i, f[i], fCode[i])
		}
	}

	const E, nu, L, A = 1e6, 0.3, 1.0, 0.01
	lambda := E * nu / ((1 + nu) * (1 - 2*nu))
	mu := E / (2 * (1 + nu))
	want := (lambda + 2*mu) * eps * A // 134.6 N
	tol := 1e-12 * want
	var end, start float64
	for i := 0; i < len(X)/3; i++ {
		switch {
		case X[3*i] == L:
			end += f[3*i]
		case X[3*i] == 0:
			start += f[3*i]
		default:
			if math.Abs(f[3*i]) > tol {
				t.Errorf("vertex %d inside (x = %g) has x-force %g N, want 0", i, X[3*i], f[3*i])
			}
		}
	}
	t.Logf("end-face x-force %.15g N, closed form %.15g N: relative error %.2g", end, -want, math.Abs(end+want)/want)
	if math.Abs(end+want) > tol || math.Abs(start-want) > tol {
		t.Errorf("end-face x-forces sum to %.12g N (x = L) and %.12g N (x = 0), want ∓(λ+2μ)εA = ∓%.12g N", end, start, want)
	}
}

// TestRigidlyMovedInitialPoseHasNoForce gives the beam, as its `position`,
// a copy of its rest shape turned by 40° about (1, 2, 3) and moved by
// (0.3, −1, 2) m: a rigid motion, so every elastic force is zero (polar
// R = the rotation exactly, S = I). Tolerance 1e-12 relative to the end
// force of a 1% stretch, 134.6 N: rounding of R and of F − R at 1e-16.
func TestRigidlyMovedInitialPoseHasNoForce(t *testing.T) {
	ref := graphtest.MustLoad(t, "rest.toml", poseScene(""))
	X := ref.Find("beam/dofs").(graph.State).Vec(graph.RestPosition)
	q := geom.QuatFromAxisAngle(geom.Vec3{1, 2, 3}, 40*math.Pi/180)
	x := make([]float64, len(X))
	for i := 0; i < len(X)/3; i++ {
		geom.Put(x, i, q.Rotate(geom.At(X, i)).Add(geom.Vec3{0.3, -1, 2}))
	}
	s := graphtest.MustLoad(t, "moved.toml", poseScene(rowsOf(x)))
	if got := s.Find("beam/dofs").(graph.State).Vec(graph.Position); got[3] != x[3] {
		t.Fatalf("position not taken: %v", got[:6])
	}
	const scale = 134.6 // N: (λ+2μ)·ε·A of the stretch test
	worst := 0.0
	for _, v := range forcesOf(s) {
		worst = math.Max(worst, math.Abs(v))
	}
	t.Logf("largest force component on the rigidly moved beam: %.3g N", worst)
	for i, v := range forcesOf(s) {
		if math.Abs(v) > 1e-12*scale {
			t.Errorf("force component %d = %g N on a rigidly moved beam, want 0", i, v)
		}
	}
}
