package all_test

import (
	"regexp"
	"testing"

	_ "github.com/sofago/sofago/components/all"
	"github.com/sofago/sofago/graph"
)

// TestSOFANamesPointToRegisteredTypes: with every component of the
// repository registered, each row of the registry's table of SOFA names
// points to a type (or template) that exists, and names no type that is
// registered itself (the table is consulted only for unknown names, so such
// a row could never be shown). The types a note recommends exist too.
func TestSOFANamesPointToRegisteredTypes(t *testing.T) {
	typeName := regexp.MustCompile(`\b[A-Z][A-Za-z0-9]*(ForceField|Solver|Mapping|Topology|Model|Constraint|Loader|Pipeline|Mass)\b`)
	for _, n := range graph.SOFANames() {
		for _, name := range typeName.FindAllString(n.Note, -1) {
			if _, ok := graph.Lookup(name); !ok {
				t.Errorf("the note of %s recommends %s, which is not a registered type", n.Name, name)
			}
		}
		if n.Template {
			if _, ok := graph.LookupTemplate(n.Name); ok != (n.Status == graph.SOFAAlias) {
				t.Errorf("template %s: LookupTemplate finds it: %v, but its status is %v", n.Name, ok, n.Status)
			}
			if n.Use != "" {
				if tm, ok := graph.LookupTemplate(n.Use); !ok || tm.Name() != n.Use {
					t.Errorf("template %s points to %q, which is not a registered template", n.Name, n.Use)
				}
			}
			continue
		}
		if _, ok := graph.Lookup(n.Name); ok {
			t.Errorf("SOFA name %s is a registered type: its row can never be shown", n.Name)
		}
		if n.Use != "" {
			if _, ok := graph.Lookup(n.Use); !ok {
				t.Errorf("SOFA name %s points to %q, which is not a registered type", n.Name, n.Use)
			}
		}
	}
}
