package sweep

import (
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

func mustSpec(t *testing.T, text string) *Spec {
	t.Helper()
	sp, err := ParseSpec("t.toml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

// linspace and logspace give count values with both ends exact, the
// inner ones first + i·(last − first)/(count − 1) (of the exponents for
// logspace), as numpy.linspace and numpy.logspace define them.
func TestSpaced(t *testing.T) {
	lin := spaced([]float64{0, 1, 5}, false)
	if !reflect.DeepEqual(lin, []any{0.0, 0.25, 0.5, 0.75, 1.0}) { // quarters are exact in binary
		t.Errorf("linspace [0, 1, 5] = %v", lin)
	}
	lin = spaced([]float64{-2, 2, 1e0 + 2}, false)
	if !reflect.DeepEqual(lin, []any{-2.0, 0.0, 2.0}) {
		t.Errorf("linspace [-2, 2, 3] = %v", lin)
	}
	if got := spaced([]float64{3, 3, 1}, false); !reflect.DeepEqual(got, []any{3.0}) {
		t.Errorf("linspace [3, 3, 1] = %v", got)
	}
	logv := spaced([]float64{1e6, 1e8, 9}, true)
	if logv[0] != 1e6 || logv[8] != 1e8 || logv[4] != 1e7 {
		t.Errorf("logspace ends and middle %v %v %v, want 1e6 1e7 1e8 exactly", logv[0], logv[4], logv[8])
	}
	for i, v := range logv {
		// 10^(6 + 2i/8) = 1e6 · 10^(i/4); the two evaluations differ by a
		// few rounding errors at most.
		want := 1e6 * math.Pow(10, float64(i)/4)
		if math.Abs(v.(float64)-want) > 4e-16*want {
			t.Errorf("logspace[%d] = %v, want %v", i, v, want)
		}
	}
}

// Grid mode takes every combination, the first parameter slowest; zip
// mode the i-th values together.
func TestExpandGridZip(t *testing.T) {
	sp := mustSpec(t, `scene = "s.toml"
[[parameter]]
path = "a/b.c"
values = [1, 2]
[[parameter]]
path = "dt"
values = [0.1, 0.2, 0.3]
`)
	tasks, err := sp.Expand()
	if err != nil {
		t.Fatal(err)
	}
	var got [][]any
	for i, tk := range tasks {
		if tk.Index != i {
			t.Errorf("task %d has index %d", i, tk.Index)
		}
		got = append(got, tk.Values)
	}
	want := [][]any{{int64(1), 0.1}, {int64(1), 0.2}, {int64(1), 0.3}, {int64(2), 0.1}, {int64(2), 0.2}, {int64(2), 0.3}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("grid %v, want %v", got, want)
	}
	sp = mustSpec(t, `scene = "s.toml"
mode = "zip"
[[parameter]]
path = "a/b.c"
values = ["small", "large", "polar"]
[[parameter]]
path = "dt"
linspace = [0.1, 0.3, 3]
`)
	tasks, err = sp.Expand()
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) != 3 || tasks[1].Values[0] != "large" || tasks[2].Values[1] != 0.3 {
		t.Errorf("zip %v", tasks)
	}
}

// Random samples: inside their bounds, the same for the same seed, the
// draws of one parameter unchanged by adding another (one PCG stream per
// parameter), and distributed as asked: the mean of u = (x − a)/(b − a)
// for uniform, of ln x for log-uniform, within 4 standard errors of the
// uniform mean 1/2 (σ = 1/√12 per draw).
func TestExpandRandom(t *testing.T) {
	text := `scene = "s.toml"
[[parameter]]
path = "beam/fem.youngModulus"
loguniform = [1e6, 1e8]
[[parameter]]
path = "beam/fem.poissonRatio"
uniform = [0.2, 0.45]
[samples]
count = 4000
seed = 7
`
	sp := mustSpec(t, text)
	a, err := sp.Expand()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := mustSpec(t, text).Expand()
	if !reflect.DeepEqual(a, b) {
		t.Error("two expansions with one seed differ")
	}
	var mu, mE float64
	for _, tk := range a {
		E, nu := tk.Values[0].(float64), tk.Values[1].(float64)
		if E < 1e6 || E >= 1e8 || nu < 0.2 || nu >= 0.45 {
			t.Fatalf("task %d: values %v out of bounds", tk.Index, tk.Values)
		}
		mE += (math.Log(E) - math.Log(1e6)) / (math.Log(1e8) - math.Log(1e6))
		mu += (nu - 0.2) / 0.25
	}
	n := float64(len(a))
	tol := 4 / math.Sqrt(12*n)
	if math.Abs(mE/n-0.5) > tol || math.Abs(mu/n-0.5) > tol {
		t.Errorf("means %v %v, want 0.5 ± %v", mE/n, mu/n, tol)
	}
	// Parameter 0's draws do not depend on parameter 1 being there.
	one := mustSpec(t, strings.Replace(text, "[[parameter]]\npath = \"beam/fem.poissonRatio\"\nuniform = [0.2, 0.45]\n", "", 1))
	c, _ := one.Expand()
	for i := range c {
		if c[i].Values[0] != a[i].Values[0] {
			t.Fatalf("draw %d of the first parameter changed when the second was removed", i)
		}
	}
	// Another seed, other draws.
	d, _ := mustSpec(t, strings.Replace(text, "seed = 7", "seed = 8", 1)).Expand()
	if d[0].Values[0] == a[0].Values[0] {
		t.Error("seeds 7 and 8 drew the same first value")
	}
	// Grid × samples: the samples are the innermost axis.
	g, err := mustSpec(t, `scene = "s.toml"
[[parameter]]
path = "dt"
values = [0.1, 0.2]
[[parameter]]
path = "beam/fem.poissonRatio"
uniform = [0.2, 0.45]
[samples]
count = 3
seed = 1
`).Expand()
	if err != nil {
		t.Fatal(err)
	}
	if len(g) != 6 || g[0].Values[0] != 0.1 || g[3].Values[0] != 0.2 || g[0].Values[1] != g[3].Values[1] || g[0].Values[1] == g[1].Values[1] {
		t.Errorf("grid × samples: %v", g)
	}
}

// Sweep files with a mistake are refused with a message naming it.
func TestSpecErrors(t *testing.T) {
	cases := []struct{ text, want string }{
		{`[[parameter]]` + "\npath = \"dt\"\nvalues = [1]\n", "scene is missing"},
		{`scene = "s.toml"`, "no [[parameter]]"},
		{`scene = "s.toml"` + "\nscenee = 1\n[[parameter]]\npath = \"dt\"\nvalues = [1]\n", `unknown key "scenee"`},
		{`scene = "s.toml"` + "\n[[parameter]]\npath = \"dt\"\n", "exactly one of values"},
		{`scene = "s.toml"` + "\n[[parameter]]\npath = \"dt\"\nvalues = [1]\nlinspace = [0, 1, 2]\n", "exactly one of values"},
		{`scene = "s.toml"` + "\n[[parameter]]\npath = \"dt\"\nlinspace = [0, 1, 2.5]\n", "count a whole number"},
		{`scene = "s.toml"` + "\n[[parameter]]\npath = \"dt\"\nlogspace = [0, 1, 3]\n", "must be positive"},
		{`scene = "s.toml"` + "\n[[parameter]]\npath = \"dt\"\nuniform = [0.2, 0.1]\n[samples]\ncount = 2\n", "low < high"},
		{`scene = "s.toml"` + "\n[[parameter]]\npath = \"dt\"\nuniform = [0.1, 0.2]\n", "need [samples]"},
		{`scene = "s.toml"` + "\n[[parameter]]\npath = \"dt\"\nvalues = [1]\n[samples]\ncount = 2\n", "no parameter is random"},
		{`scene = "s.toml"` + "\n[[parameter]]\npath = \"beam/\"\nvalues = [1]\n", "not a -set path"},
		{`scene = "s.toml"` + "\n[[parameter]]\npath = \"dt\"\nvalues = [1]\n[[parameter]]\npath = \"dt\"\nvalues = [2]\n", "given twice"},
		{`scene = "s.toml"` + "\nmode = \"zipp\"\n[[parameter]]\npath = \"dt\"\nvalues = [1]\n", "want grid"},
		{`scene = "s.toml"` + "\nflags = [\"-dump=x.json\"]\n[[parameter]]\npath = \"dt\"\nvalues = [1]\n", "set by the sweep itself"},
		{`scene = "s.toml"` + "\nset = [\"beam\"]\n[[parameter]]\npath = \"dt\"\nvalues = [1]\n", "want PATH=VALUE"},
		{`scene = "s.toml"` + "\n[[parameter]]\npath = \"dt\"\nvalues = [1]\n[[record.point]]\nname = \"tip\"\nstate = \"b/d\"\n", "give index or nearest"},
		{`scene = "s.toml"` + "\n[[parameter]]\npath = \"dt\"\nvalues = [1]\n[[record.point]]\nname = \"tip\"\nstate = \"b/d\"\nindex = 1\ncomponents = [\"w\"]\n", `component "w"`},
		{`scene = "s.toml"` + "\n[[parameter]]\npath = \"dt\"\nvalues = [1]\n[[record.state]]\nname = \"q\"\nstate = \"b/q\"\nfield = \"force\"\n", "want position or velocity"},
		{`scene = "s.toml"` + "\n[[parameter]]\npath = \"dt\"\nvalues = [1]\n[record]\nfiles = [\"b/vtk.directory=../up\"]\n", "inside the task's folder"},
	}
	for _, c := range cases {
		_, err := ParseSpec("t.toml", []byte(c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "t.toml") {
			t.Errorf("%q: error %v, want one naming t.toml and %q", c.text, err, c.want)
		}
	}
	sp := mustSpec(t, `scene = "s.toml"
mode = "zip"
[[parameter]]
path = "dt"
values = [1, 2]
[[parameter]]
path = "steps"
values = [1, 2, 3]
`)
	if _, err := sp.Expand(); err == nil || !strings.Contains(err.Error(), "lists of one length") {
		t.Errorf("zip of unequal lists: %v", err)
	}
}

// tomlValue writes values that TOML parses back to the same value, floats
// bit for bit (they travel to every task through -set).
func TestTomlValueRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	values := []any{0.0, 1.0, -2.5, 1e6, 1e-300, 5e-324, math.MaxFloat64, 1e21, 123456789012345680.0, 0.1, 1.0 / 3,
		int64(0), int64(-42), int64(math.MaxInt64), true, false, "large", `a "quoted" \ back\slash`, "tab\there", "ünïcödé",
		[]any{1.0, int64(2), "three"}, []any{[]any{0.0, 0.5}, []any{}}, map[string]any{"box": []any{0.0, 1.0}, "weight": 2.0}}
	for i := 0; i < 1000; i++ {
		values = append(values, math.Float64frombits(rng.Uint64()&^(0x7ff<<52)|uint64(rng.IntN(2046)+1)<<52))
	}
	for _, v := range values {
		text, err := tomlValue(v)
		if err != nil {
			t.Fatalf("%v: %v", v, err)
		}
		var doc map[string]any
		if _, err := toml.Decode("v = "+text, &doc); err != nil {
			t.Fatalf("%v written %q: %v", v, text, err)
		}
		if got := doc["v"]; !reflect.DeepEqual(got, v) {
			if f, ok := v.(float64); !ok || math.Float64bits(got.(float64)) != math.Float64bits(f) {
				t.Errorf("%v (%T) written %q read back %v (%T)", v, v, text, got, got)
			}
		}
	}
	for _, bad := range []any{math.NaN(), math.Inf(1), []any{math.Inf(-1)}} {
		if _, err := tomlValue(bad); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}

// Slurm's --array lists: ranges and singles, sorted, with %N.
func TestArraySpec(t *testing.T) {
	if got := ArraySpec([]int{7, 0, 1, 2, 3, 9, 10}, 0); got != "0-3,7,9-10" {
		t.Errorf("got %q", got)
	}
	if got := ArraySpec([]int{5}, 4); got != "5%4" {
		t.Errorf("got %q", got)
	}
}
