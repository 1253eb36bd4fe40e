package graph

import (
	"fmt"
	"sort"
	"strings"
)

// Kind is the role of a component type; it fixes the initialisation phase
// and how runscene -list groups types.
type Kind string

// Component kinds, in initialisation order.
const (
	KindTopology     Kind = "topology"
	KindState        Kind = "state"
	KindMapping      Kind = "mapping"
	KindMass         Kind = "mass"
	KindForceField   Kind = "forcefield"
	KindConstraint   Kind = "constraint"
	KindCollision    Kind = "collision"
	KindBehavior     Kind = "behavior"
	KindVisual       Kind = "visual"
	KindExporter     Kind = "exporter"
	KindLinearSolver Kind = "linearsolver"
	KindODESolver    Kind = "odesolver"
)

// Kinds lists every kind in initialisation order.
var Kinds = []Kind{KindTopology, KindState, KindMapping, KindMass, KindForceField,
	KindConstraint, KindCollision, KindBehavior, KindVisual, KindExporter,
	KindLinearSolver, KindODESolver}

func (k Kind) phase() int {
	for i, kk := range Kinds {
		if kk == k {
			return i
		}
	}
	return len(Kinds)
}

// TypeInfo describes a registered component type.
type TypeInfo struct {
	Name    string
	Kind    Kind
	Summary string        // one paragraph: what it does, which paper equation
	New     func() Object // returns a new object with its defaults set
}

var registry = map[string]TypeInfo{}

// Register adds a component type. Call it from init(); registering a name
// twice panics (a programming error, not a user error).
func Register(t TypeInfo) {
	if t.Name == "" || t.New == nil {
		panic("graph: Register needs a name and a constructor")
	}
	if _, dup := registry[t.Name]; dup {
		panic("graph: component type registered twice: " + t.Name)
	}
	if t.Kind.phase() == len(Kinds) {
		panic("graph: unknown kind " + string(t.Kind) + " for " + t.Name)
	}
	if _, err := fieldsOf(t.New()); err != nil {
		panic(fmt.Sprintf("graph: type %s: %v", t.Name, err))
	}
	registry[t.Name] = t
}

// Lookup returns the registered type named name.
func Lookup(name string) (TypeInfo, bool) {
	t, ok := registry[name]
	return t, ok
}

// Types returns every registered type, sorted by kind phase then name.
func Types() []TypeInfo {
	var ts []TypeInfo
	for _, t := range registry {
		ts = append(ts, t)
	}
	sort.Slice(ts, func(i, j int) bool {
		if pi, pj := ts[i].Kind.phase(), ts[j].Kind.phase(); pi != pj {
			return pi < pj
		}
		return ts[i].Name < ts[j].Name
	})
	return ts
}

// Suggest returns the registered name closest to name (case-insensitive
// edit distance), or "" when nothing is close.
func Suggest(name string) string {
	var names []string
	for n := range registry {
		names = append(names, n)
	}
	return closest(name, names)
}

func closest(name string, candidates []string) string {
	best, bestD := "", 1<<30
	ln := strings.ToLower(name)
	for _, c := range candidates {
		d := editDistance(ln, strings.ToLower(c))
		if d < bestD || (d == bestD && c < best) {
			best, bestD = c, d
		}
	}
	if bestD <= max(2, len(name)/3) {
		return best
	}
	return ""
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := 1
			if a[i-1] == b[j-1] {
				c = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+c)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
