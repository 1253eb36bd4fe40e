package runscene

import (
	"regexp"
	"strings"
	"testing"
)

// markedLine returns the 1-based line of text holding "# <-", where a case
// expects its error (1 when there is none: an empty file).
func markedLine(text string) int {
	for i, l := range strings.Split(text, "\n") {
		if strings.Contains(l, "# <-") {
			return i + 1
		}
	}
	return 1
}

// beamWith is a small FEM beam with the objects given added to its node.
func beamWith(objects string) string {
	return `dt = 0.01
steps = 3
[[node]]
name = "beam"
  [[node.object]]
  type = "RegularGridTopology"
  min = [0, 0, 0]
  max = [1, 0.1, 0.1]
  n = [3, 2, 2]
  [[node.object]]
  type = "TetrahedronFEMForceField"
  name = "fem"
  youngModulus = 1e6
  poissonRatio = 0.3
` + objects
}

// TestNoSilentNoOpScenes runs, through the binary, scenes that used to "run"
// doing nothing or something the file does not say (issue 12, item 2):
// each must exit 1 before the run with one stderr line located at the
// line marked "# <-", naming the node and the object.
func TestNoSilentNoOpScenes(t *testing.T) {
	cases := []struct {
		name  string
		text  string
		wants []string
	}{
		{"empty file", ``, []string{"the scene has no [[node]]: nothing to simulate"}},

		{"only root keys", "dt = 0.01   # <-\nsteps = 200\n", []string{"the scene has no [[node]]"}},

		{"nodes without objects", `dt = 0.01
[[node]]   # <-
name = "beam"
`, []string{`node "beam"`, "no node of the scene has an object"}},

		{"no ODE solver", beamWith(`  [[node.object]]   # <-
  type = "MechanicalObject"
  name = "dofs"
  [[node.object]]
  type = "UniformMass"
  totalMass = 1
`), []string{`node "beam", object "dofs" (MechanicalObject)`, "no ODE solver integrates this state, so it would never move", `mass "UniformMass"`, `force field "fem"`}},

		{"implicit Euler without a mass", beamWith(`  [[node.object]]
  type = "EulerImplicitSolver"
  [[node.object]]
  type = "CGLinearSolver"
  [[node.object]]   # <-
  type = "MechanicalObject"
  name = "dofs"
`), []string{`node "beam", object "dofs"`, `this state has no mass, but ODE solver "EulerImplicitSolver" (EulerImplicitSolver, node "beam") integrates it by M·a = f`}},

		{"explicit Euler without a mass", beamWith(`  [[node.object]]
  type = "EulerExplicitSolver"
  name = "euler"
  [[node.object]]   # <-
  type = "MechanicalObject"
  name = "dofs"
`), []string{`node "beam", object "dofs"`, `ODE solver "euler" (EulerExplicitSolver, node "beam")`}},

		{"Newmark without a mass", beamWith(`  [[node.object]]
  type = "NewmarkImplicitSolver"
  [[node.object]]
  type = "CGLinearSolver"
  [[node.object]]   # <-
  type = "MechanicalObject"
  name = "dofs"
`), []string{`node "beam", object "dofs"`, `(NewmarkImplicitSolver, node "beam")`}},

		{"UniformMass with neither totalMass nor vertexMass", beamWith(`  [[node.object]]
  type = "EulerImplicitSolver"
  [[node.object]]
  type = "CGLinearSolver"
  [[node.object]]
  type = "MechanicalObject"
  [[node.object]]   # <-
  type = "UniformMass"
  name = "mass"
`), []string{`node "beam", object "mass" (UniformMass)`, "give the mass: totalMass (kg, spread over the DOFs) or vertexMass (kg per DOF); there is no default"}},

		{"zero quaternion", `dt = 0.01
[[node]]
name = "body"
  [[node.object]]
  type = "EulerImplicitSolver"
  [[node.object]]
  type = "CGLinearSolver"
  [[node.object]]   # <-
  type = "MechanicalObject"
  name = "frame"
  template = "Rigid3"
  position = [[0, 1, 0, 0, 0, 0, 0]]
  [[node.object]]
  type = "RigidMass"
  mass = 1
`, []string{`node "body", object "frame" (MechanicalObject)`, "position[0]: orientation quaternion [x, y, z, w] = [0, 0, 0, 0] is zero"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			needTypes(t, c.text)
			p := writeScene(t, c.text)
			wantSceneError(t, runBin(t, p), p, markedLine(c.text), c.wants...)
		})
	}
}

const tiltedBody = `dt = 0.01
steps = 2
gravity = [0, 0, 0]
[[node]]
name = "body"
  [[node.object]]
  type = "EulerImplicitSolver"
  [[node.object]]
  type = "CGLinearSolver"
  [[node.object]]
  type = "MechanicalObject"
  name = "frame"
  template = "Rigid3"
  position = [[0, 1, 0, 0, 0, 1, 1]]
  [[node.object]]
  type = "RigidMass"
  mass = 1
`

// A non-unit quaternion is normalised with a note: under "notes" in the
// summary, located at the object; with -quiet (no summary) on stderr.
func TestQuaternionNote(t *testing.T) {
	needTypes(t, tiltedBody)
	p := writeScene(t, tiltedBody)
	note := p + `:10: node "body", object "frame" (MechanicalObject): position[0]: orientation quaternion [0, 0, 1, 1] has length 1.41421356, not 1; normalised to [0, 0, 0.7071067811865475, 0.7071067811865475]`
	r := runBin(t, p)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !regexp.MustCompile(`(?m)^notes\n  ` + regexp.QuoteMeta(note) + `$`).MatchString(r.stdout) {
		t.Errorf("summary lacks the note\n  %s\nunder a notes heading:\n%s", note, r.stdout)
	}
	if r.stderr != "" {
		t.Errorf("stderr not empty without -quiet: %q", r.stderr)
	}
	r = runBin(t, "-quiet", p)
	if r.code != 0 || r.stdout != "" || r.stderr != "note: "+note+"\n" {
		t.Errorf("-quiet: exit %d, stdout %q, stderr %q; want 0, nothing, and the note", r.code, r.stdout, r.stderr)
	}
	// A scene with no note has no notes heading.
	text := strings.Replace(tiltedBody, "0, 0, 1, 1]]", "0, 0, 0, 1]]", 1)
	p = writeScene(t, text)
	if r = runBin(t, p); r.code != 0 || strings.Contains(r.stdout, "notes") {
		t.Errorf("unit quaternion: exit %d, summary:\n%s", r.code, r.stdout)
	}
}
