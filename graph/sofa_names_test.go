package graph_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/sofago/sofago/graph"
)

// TestSOFATemplateAliases: SOFA's template names load as this project's
// templates, with their layouts (a Rigid3d position takes 7 numbers).
func TestSOFATemplateAliases(t *testing.T) {
	cases := []struct {
		alias    string
		want     graph.Template
		position string
	}{
		{"Vec3d", graph.Vec3, "[[0, 0, 0], [1, 2, 3]]"},
		{"Vec1d", graph.Vec1, "[[0.5], [-1]]"},
		{"Rigid3d", graph.Rigid3, "[[0, 0, 0, 0, 0, 0, 1], [1, 2, 3, 0, 0, 1, 0]]"},
		{"Rigid", graph.Rigid3, "[[0, 0, 0, 0, 0, 0, 1], [1, 2, 3, 0, 0, 1, 0]]"},
		{"Affine", graph.Affine3, "[[0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1], [1, 2, 3, 1, 0, 0, 0, 1, 0, 0, 0, 1]]"},
	}
	for _, c := range cases {
		t.Run(c.alias, func(t *testing.T) {
			s, err := graph.Load("alias.toml", fmt.Appendf(nil, `
[[node]]
name = "n"
  [[node.object]]
  type = "MechanicalObject"
  template = %q
  position = %s
`, c.alias, c.position))
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Init(); err != nil {
				t.Fatal(err)
			}
			st, err := graph.FindAs[graph.State](s, "n/MechanicalObject")
			if err != nil {
				t.Fatal(err)
			}
			if st.Template() != c.want || st.Size() != 2 {
				t.Errorf("template %q: state of %d DOFs of template %s, want 2 of %s", c.alias, st.Size(), st.Template().Name(), c.want.Name())
			}
		})
	}
}

// TestSOFANameMessages: a SOFA name that is not a type (or template) here
// is an error at its line, in the unknown-type wording, that says what to
// write instead — the expectations are written out here, not derived from
// the table, for the names a SOFA user meets first.
func TestSOFANameMessages(t *testing.T) {
	typeScene := func(typ string) string {
		return fmt.Sprintf("dt = 0.01\n\n[[node]]\nname = \"root\"\n  [[node.object]]\n  type = %q\n", typ)
	}
	templateScene := func(tmpl string) string {
		return fmt.Sprintf("dt = 0.01\n\n[[node]]\nname = \"root\"\n  [[node.object]]\n  type = \"MechanicalObject\"\n  template = %q\n", tmpl)
	}
	cases := []struct {
		name, text string
		line       int
		wants      []string
	}{
		{"OglModel", typeScene("OglModel"), 6, []string{`unknown component type "OglModel": SOFA's type OglModel is VisualModel here (did you mean "VisualModel"?)`, "runscene -doc VisualModel"}},
		{"SparseLDLSolver", typeScene("SparseLDLSolver"), 6, []string{`did you mean "SparseCholeskySolver"?`}},
		{"MeshGmshLoader", typeScene("MeshGmshLoader"), 6, []string{`did you mean "MeshLoader"?`, "one MeshLoader reads every mesh format"}},
		{"MeshVTKLoader", typeScene("MeshVTKLoader"), 6, []string{`did you mean "MeshLoader"?`}},
		{"MeshSTLLoader", typeScene("MeshSTLLoader"), 6, []string{`did you mean "MeshLoader"?`}},
		{"MeshOBJLoader", typeScene("MeshOBJLoader"), 6, []string{`did you mean "MeshLoader"?`}},
		{"StiffSpringForceField", typeScene("StiffSpringForceField"), 6, []string{`SOFA's type StiffSpringForceField is SpringForceField here (did you mean "SpringForceField"?)`, "SpringForceField is both"}},
		{"RegularGridSpringForceField", typeScene("RegularGridSpringForceField"), 6, []string{`did you mean "MeshSpringForceField"?`}},
		{"TriangleBendingSprings", typeScene("TriangleBendingSprings"), 6, []string{`did you mean "TriangularBendingSprings"?`}},
		{"TriangularFEMForceField", typeScene("TriangularFEMForceField"), 6, []string{`did you mean "TriangularShellForceField"?`, "bending = false"}},
		{"DefaultAnimationLoop", typeScene("DefaultAnimationLoop"), 6, []string{"is not needed here", "no animation-loop object", "remove it"}},
		{"FreeMotionAnimationLoop", typeScene("FreeMotionAnimationLoop"), 6, []string{"is not needed here", "penalty forces"}},
		{"RequiredPlugin", typeScene("RequiredPlugin"), 6, []string{"SOFA's type RequiredPlugin is not needed here: every component is compiled in"}},
		{"VisualStyle", typeScene("VisualStyle"), 6, []string{"is not needed here", "no interactive viewer"}},
		{"OglSceneFrame", typeScene("OglSceneFrame"), 6, []string{"is not needed here"}},
		{"BruteForceBroadPhase", typeScene("BruteForceBroadPhase"), 6, []string{`did you mean "CollisionPipeline"?`, "broad and narrow phases are inside CollisionPipeline"}},
		{"BVHNarrowPhase", typeScene("BVHNarrowPhase"), 6, []string{`did you mean "CollisionPipeline"?`}},
		{"DefaultPipeline", typeScene("DefaultPipeline"), 6, []string{`did you mean "CollisionPipeline"?`}},
		{"MinProximityIntersection", typeScene("MinProximityIntersection"), 6, []string{`did you mean "CollisionPipeline"?`, "contactDistance"}},
		{"LineCollisionModel", typeScene("LineCollisionModel"), 6, []string{"is not implemented yet", "point–triangle"}},
		{"UncoupledConstraintCorrection", typeScene("UncoupledConstraintCorrection"), 6, []string{"is not implemented yet", "penalty forces"}},
		{"LCPConstraintSolver", typeScene("LCPConstraintSolver"), 6, []string{"is not implemented yet", "penalty forces"}},
		{"GenericConstraintSolver", typeScene("GenericConstraintSolver"), 6, []string{"is not implemented yet", "penalty forces"}},
		{"TetrahedronSetTopologyContainer", typeScene("TetrahedronSetTopologyContainer"), 6, []string{"is not needed here", "is its topology itself"}},
		{"FixedProjectiveConstraint", typeScene("FixedProjectiveConstraint"), 6, []string{`did you mean "FixedConstraint"?`}},
		{"Vec3f", templateScene("Vec3f"), 7, []string{`object "MechanicalObject": unknown template "Vec3f": SOFA's template Vec3f is Vec3 here (did you mean "Vec3"?): single precision is not available`}},
		{"Rigid3f", templateScene("Rigid3f"), 7, []string{`did you mean "Rigid3"?`}},
		{"Vec2d", templateScene("Vec2d"), 7, []string{"SOFA's template Vec2d is not implemented yet"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := graph.Load("sofa.toml", []byte(c.text))
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			if prefix := fmt.Sprintf("sofa.toml:%d: node \"root\"", c.line); !strings.HasPrefix(msg, prefix) {
				t.Errorf("message %q does not start with %q", msg, prefix)
			}
			for _, w := range c.wants {
				if !strings.Contains(msg, w) {
					t.Errorf("message %q lacks %q", msg, w)
				}
			}
		})
	}
}

// TestSOFATable checks every row of the table of SOFA names: component
// names give a located unknown-type error that carries the row's
// explanation (and never the generic edit-distance guess), template names
// either load (aliases) or give a located error; aliases are templates
// only; no name appears twice; every row is in the README's table.
func TestSOFATable(t *testing.T) {
	data, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	if i := strings.Index(readme, "\n### Coming from SOFA\n"); i < 0 {
		t.Fatal(`README.md has no section "### Coming from SOFA"`)
	} else {
		readme = readme[i+1:]
		if j := strings.Index(readme, "\n## "); j >= 0 {
			readme = readme[:j]
		}
	}
	seen := map[string]bool{}
	for _, n := range graph.SOFANames() {
		key := fmt.Sprintf("%v/%s", n.Template, n.Name)
		if seen[key] {
			t.Errorf("%s appears twice in the table", n.Name)
		}
		seen[key] = true
		if !strings.Contains(readme, "`"+n.Name+"`") {
			t.Errorf("README.md's table of SOFA names lacks `%s`", n.Name)
		}
		if n.Status == graph.SOFAEquivalent && n.Use == "" {
			t.Errorf("%s: an equivalent with no Use", n.Name)
		}
		if n.Status != graph.SOFAAlias && n.Status != graph.SOFAEquivalent && n.Note == "" {
			t.Errorf("%s: no note saying why it is not needed or what to do", n.Name)
		}
		if !n.Template {
			if n.Status == graph.SOFAAlias {
				t.Errorf("%s: component types have no silent aliases (their fields differ)", n.Name)
			}
			text := fmt.Sprintf("[[node]]\nname = \"root\"\n  [[node.object]]\n  type = %q\n", n.Name)
			_, err := graph.Load("t.toml", []byte(text))
			if err == nil || !strings.HasPrefix(err.Error(), "t.toml:4: ") ||
				!strings.Contains(err.Error(), fmt.Sprintf("unknown component type %q: %s", n.Name, n.Explain())) ||
				strings.Contains(err.Error(), "runscene -list shows them all") {
				t.Errorf("type %s: error %v, want at t.toml:4 the table's explanation", n.Name, err)
			}
			continue
		}
		text := fmt.Sprintf("[[node]]\nname = \"root\"\n  [[node.object]]\n  type = \"MechanicalObject\"\n  template = %q\n", n.Name)
		_, err := graph.Load("t.toml", []byte(text))
		if n.Status == graph.SOFAAlias {
			if _, ok := graph.LookupTemplate(n.Use); !ok {
				t.Errorf("template alias %s names %s, which is not a template", n.Name, n.Use)
			}
			if err != nil {
				t.Errorf("template alias %s: %v", n.Name, err)
			}
			continue
		}
		if err == nil || !strings.HasPrefix(err.Error(), "t.toml:5: ") || !strings.Contains(err.Error(), n.Explain()) {
			t.Errorf("template %s: error %v, want at t.toml:5 the table's explanation", n.Name, err)
		}
	}
}
