package sweep

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The README's batch-study section shows the table of
// sweeps/cantilever_youngs_modulus.toml: this reruns that sweep and checks
// the rows shown (modulus, status, tip deflection, Euler–Bernoulli
// deflection and their ratio, to the 4 digits printed), so the section
// cannot drift from what the program produces. The iteration counts it
// also shows are not checked: they move with any change of the solvers.
func TestReadmeSweepTable(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the README sweep runs 9 static solves (a few seconds)")
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	const head = "| task | E (Pa) | status | tip.y (m) | Euler–Bernoulli (m) | ratio | Newton iterations | CG iterations |"
	text := string(readme)
	i := strings.Index(text, head)
	if i < 0 {
		t.Fatalf("README has no line %q", head)
	}
	var rows [][]string
	for _, line := range strings.Split(text[i:], "\n")[2:] {
		if !strings.HasPrefix(line, "|") {
			break
		}
		var cells []string
		for _, c := range strings.Split(strings.Trim(line, "|"), "|") {
			cells = append(cells, strings.TrimSpace(c))
		}
		rows = append(rows, cells)
	}
	if len(rows) != 9 {
		t.Fatalf("README table has %d rows, want 9", len(rows))
	}

	results := filepath.Join(t.TempDir(), "r")
	preparePlan(t, "../sweeps/cantilever_youngs_modulus.toml", results)
	rep, err := RunLocal(context.Background(), results, LocalOptions{Workers: 2})
	if err != nil || rep.Failed != 0 {
		t.Fatalf("%v %v", rep, err)
	}
	_, _, csvRows := table(t, results)
	E, status, tip := column(t, csvRows, "beam/fem.youngModulus"), column(t, csvRows, "status"), column(t, csvRows, "tip.y")
	g4 := func(x float64) string { return fmt.Sprintf("%.4g", x) }
	for k, r := range rows {
		e, _ := strconv.ParseFloat(E[k], 64)
		y, _ := strconv.ParseFloat(tip[k], 64)
		eb := 1.4715e6 / e // q L⁴/(8 E I): q = ρ g A = 98.1 N/m, L = 1 m, I = 0.1⁴/12 m⁴
		want := []string{strconv.Itoa(k), g4(e), status[k], g4(y), g4(eb), g4(math.Abs(y) / eb)}
		for c, w := range want {
			if r[c] != w {
				t.Errorf("README row %d column %d: %q, the sweep gives %q", k, c, r[c], w)
			}
		}
	}
}
