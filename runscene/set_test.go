package runscene

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sofago/sofago/graph"
)

// -set changes the scene as editing the file would: the forces of the
// dump are the weights of the overridden mass under the overridden
// gravity, exactly (m g with m = 12/3 kg, g = −2 m/s² along z).
func TestSetOverridesDump(t *testing.T) {
	needTypes(t, freeScene)
	p := writeScene(t, freeScene)
	out := filepath.Join(filepath.Dir(p), "dump.json")
	var so, se strings.Builder
	code, _ := Run(context.Background(), []string{"-steps", "0", "-dump", out,
		"-set", "points/UniformMass.totalMass=12", "-set", "gravity=[0, 0, -2]", p,
		"-set", "body/RigidMass.mass=5"}, &so, &se, nil)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, se.String())
	}
	d := readDump(t, out)
	for i, f := range d.States[0].Force {
		if f[0] != 0 || f[1] != 0 || f[2] != 4*-2.0 {
			t.Errorf("force on point %d = %v, want [0 0 -8]", i, f)
		}
	}
	if f := d.States[1].Force[0]; f[2] != 5*-2.0 {
		t.Errorf("force on the rigid body %v, want z = -10", f)
	}
}

// -set of dt and steps: the run takes the overridden number of steps of
// the overridden size (the scene says 200 × 0.01 s).
func TestSetDtSteps(t *testing.T) {
	needTypes(t, freeScene)
	p := writeScene(t, "steps = 200\n"+freeScene)
	var so, se strings.Builder
	code, rep := Run(context.Background(), []string{"-quiet", "-set", "dt=0.25", "-set", "steps=3", p}, &so, &se, nil)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, se.String())
	}
	if rep.Scene.StepCount != 3 || rep.Scene.Time != 0.75 {
		t.Errorf("ran %d steps to t = %g, want 3 to 0.75", rep.Scene.StepCount, rep.Scene.Time)
	}
}

// A bad -set is a usage error (exit 2): one line naming the flag and the
// field, with a did-you-mean; nothing runs.
func TestSetBad(t *testing.T) {
	needTypes(t, freeScene)
	p := writeScene(t, freeScene)
	cases := []struct {
		set   string
		wants []string
	}{
		{"points/UniformMass.totalMas=3", []string{"-set points/UniformMass.totalMas=3", `unknown field "totalMas"`, `did you mean "totalMass"?`}},
		{"points/UniformMass.totalMass=-3", []string{"-set points/UniformMass.totalMass=-3", "totalMass = -3 is out of range"}},
		{"point/UniformMass.totalMass=3", []string{`no child node "point"`, `did you mean "points"?`}},
		{"points/UniformMas.totalMass=3", []string{`no object named "UniformMas"`, `did you mean "UniformMass"?`}},
		{"dtt=0.1", []string{`did you mean "dt"?`}},
		{"points", []string{"-set points", "want PATH=VALUE"}},
	}
	for _, c := range cases {
		var so, se strings.Builder
		code, _ := Run(context.Background(), []string{"-set", c.set, p}, &so, &se, nil)
		if code != exitUsage {
			t.Errorf("-set %s: exit %d, want 2 (stderr %q)", c.set, code, se.String())
		}
		msg := strings.TrimSuffix(se.String(), "\n")
		first, _, _ := strings.Cut(msg, "\n")
		for _, w := range c.wants {
			if !strings.Contains(first, w) {
				t.Errorf("-set %s: stderr %q lacks %q", c.set, msg, w)
			}
		}
		if so.Len() != 0 {
			t.Errorf("-set %s: stdout %q", c.set, so.String())
		}
	}
}

// A value the field accepts but Init finds inconsistent with the rest of
// the object is a scene error (exit 1) that names the override.
func TestSetInitError(t *testing.T) {
	needTypes(t, freeScene)
	p := writeScene(t, freeScene)
	var so, se strings.Builder
	code, _ := Run(context.Background(), []string{"-set", "points/dofs.template=Rigid3", p}, &so, &se, nil)
	msg := se.String()
	if code != exitScene || !strings.Contains(msg, "position[0] has 3 numbers, want 7") || !strings.Contains(msg, "(this object has -set points/dofs.template=Rigid3)") {
		t.Errorf("exit %d, stderr %q", code, msg)
	}
}

// Run reports to its observer after Init and after every step, stops on
// the context (exit 130 after the current step), and returns the solver
// figures of the summary.
func TestRunObserverAndReport(t *testing.T) {
	text := `dt = 0.01
gravity = [0, -9.81, 0]
[[node]]
name = "p"
  [[node.object]]
  type = "EulerImplicitSolver"
  [[node.object]]
  type = "CGLinearSolver"
  iterations = 50
  tolerance = 1e-12
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  position = [[0, 0, 0]]
  [[node.object]]
  type = "UniformMass"
  totalMass = 1
`
	needTypes(t, text)
	p := writeScene(t, text)
	var seen []int
	var y []float64
	obs := &Observer{Step: func(s *graph.Scene) error {
		seen = append(seen, s.StepCount)
		y = append(y, s.Find("p/dofs").(graph.State).Vec(graph.Position)[1])
		return nil
	}}
	var so, se strings.Builder
	code, rep := Run(context.Background(), []string{"-quiet", "-steps", "4", p}, &so, &se, obs)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, se.String())
	}
	if len(seen) != 5 || seen[0] != 0 || seen[4] != 4 {
		t.Fatalf("observer saw steps %v, want 0..4", seen)
	}
	// Implicit Euler of a free fall: v_k = −k g h, y_k = −g h² k(k+1)/2.
	const g, h = 9.81, 0.01
	for k, yk := range y {
		want := -g * h * h * float64(k*(k+1)) / 2
		if math.Abs(yk-want) > 1e-15 {
			t.Errorf("y at step %d = %.17g, want %.17g", k, yk, want)
		}
	}
	if len(rep.Solvers) != 1 || rep.Solvers[0].Path != "p/EulerImplicitSolver" || rep.Solvers[0].Steps != 4 || rep.Solvers[0].Unconverged != 0 {
		t.Errorf("solver figures %+v", rep.Solvers)
	}
	if rep.Load <= 0 || rep.Init <= 0 || rep.Steps <= 0 {
		t.Errorf("times load %v init %v steps %v", rep.Load, rep.Init, rep.Steps)
	}

	// A cancelled context interrupts after the current step.
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	obs = &Observer{Step: func(s *graph.Scene) error {
		if n++; s.StepCount == 2 {
			cancel()
		}
		return nil
	}}
	code, rep = Run(ctx, []string{"-quiet", "-steps", "100", p}, &so, &se, obs)
	if code != exitInterrupted || rep.Scene.StepCount != 2 {
		t.Errorf("cancelled run: exit %d after %d steps, want 130 after 2", code, rep.Scene.StepCount)
	}
}
