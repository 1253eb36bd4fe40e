package scenes

import (
	"math"
	"testing"

	"github.com/sofago/sofago/components/mass"
	"github.com/sofago/sofago/graph"
)

// TestShellDrape runs shell_drape.toml through its fall and its first
// 0.2 s on the ball (150 steps; the scene test runs only 5, before
// contact) and checks it against closed forms:
//
//   - the consistent triangle mass weighs ρhA = 1100 × 0.003 × 1 = 3.3 kg;
//   - before contact the sheet falls as a rigid body (the shell exerts no
//     force on a translation, M·a = M·g whatever M is): with mass damping
//     α, implicit Euler gives v_{n+1} = (v_n + h g)/(1 + hα) and
//     x_{n+1} = x_n + h v_{n+1} for every point, checked at step 40
//     (t = 0.08 s, 3 cm fallen of the 4.85 cm gap) to 1e-12 of the
//     distance fallen (direct solves, ~40 steps of rounding);
//   - every step's system stays positive definite (the factorisation
//     refuses otherwise) through the impact and the buckling;
//   - afterwards no point is deeper than 5 mm inside radius + thickness
//     (the 2 s run's largest, at t = 0.354 s, is 2.0 mm), and the energy has gone
//     down (implicit Euler with damping dissipates).
func TestShellDrape(t *testing.T) {
	s, err := graph.LoadFile("shell_drape.toml")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Init(); err != nil {
		t.Fatal(err)
	}
	mm, ok := s.Find("sheet/MeshMatrixMass").(*mass.MeshMatrixMass)
	if !ok {
		t.Fatal("no MeshMatrixMass in sheet")
	}
	total := 0.0
	for _, m := range mm.VertexMasses() {
		total += m
	}
	if want := 1100 * 0.003 * 1.0; math.Abs(total-want) > 1e-13*want {
		t.Errorf("sheet mass %.17g kg, want ρhA = %g", total, want)
	}
	st := s.Find("sheet/dofs").(graph.State)
	x0 := append([]float64(nil), st.Vec(graph.Position)...)
	k0, p0 := s.Energies()
	const h, alpha, g = 0.002, 2.5, -9.81
	v, y := 0.0, 0.0 // closed-form velocity and displacement along y
	for n := 1; n <= 150; n++ {
		if err := s.Step(); err != nil {
			t.Fatalf("step %d: %v", n, err)
		}
		v = (v + h*g) / (1 + h*alpha)
		y += h * v
		if n != 40 {
			continue
		}
		x, vel := st.Vec(graph.Position), st.Vec(graph.Velocity)
		worst := 0.0
		for i := range x {
			wantX, wantV := x0[i], 0.0
			if i%3 == 1 {
				wantX, wantV = x0[i]+y, v
			}
			worst = math.Max(worst, math.Max(math.Abs(x[i]-wantX), h*math.Abs(vel[i]-wantV))/math.Abs(y))
		}
		t.Logf("t = %.3f s: fallen %.4f m, worst deviation from the rigid fall %.2g of it", 40*h, -y, worst)
		if worst > 1e-12 {
			t.Errorf("free fall: points off the closed form by %.3g of the distance fallen", worst)
		}
	}
	x := st.Vec(graph.Position)
	c, rt := [3]float64{0.03, 0.5, 0.02}, 0.25+0.0015
	deepest := 0.0
	for i := 0; i < len(x)/3; i++ {
		d := math.Sqrt((x[3*i]-c[0])*(x[3*i]-c[0]) + (x[3*i+1]-c[1])*(x[3*i+1]-c[1]) + (x[3*i+2]-c[2])*(x[3*i+2]-c[2]))
		deepest = math.Max(deepest, rt-d)
	}
	k, p := s.Energies()
	t.Logf("t = %.2f s: deepest point %.3g mm inside radius + thickness; energy %.4g J → %.4g J (kinetic %.3g J)", s.Time, 1e3*deepest, k0+p0, k+p, k)
	if deepest > 5e-3 {
		t.Errorf("a point is %.3g m inside the ball's radius + thickness", deepest)
	}
	if !(k+p < k0+p0) {
		t.Errorf("energy went up: %.6g J → %.6g J", k0+p0, k+p)
	}
}
