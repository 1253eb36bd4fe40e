package runscene

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sofago/sofago/graph"
)

// fuzzSeeds are malformed and borderline scenes using real component types,
// added to the example scenes as the seed corpus of FuzzLoad.
var fuzzSeeds = []string{
	`dt = 0.01
gravity = [0, -9.81, 0]
steps = 3
[[node]]
name = "beam"
  [[node.object]]
  type = "EulerImplicitSolver"
  rayleighStiffness = 0.1
  [[node.object]]
  type = "CGLinearSolver"
  iterations = 25
  [[node.object]]
  type = "RegularGridTopology"
  min = [0, 0, 0]
  max = [1, 0.1, 0.1]
  n = [4, 2, 2]
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[node.object]]
  type = "UniformMass"
  totalMass = 1
  [[node.object]]
  type = "FixedConstraint"
  indices = [0, 4]
  [[node.node]]
  name = "tip"
    [[node.node.object]]
    type = "MechanicalObject"
    size = 2
    [[node.node.object]]
    type = "SubsetMapping"
    indices = [3, 15]
    input = "@../dofs"
`,
	`[[node]]
name = "body"
  [[node.object]]
  type = "MechanicalObject"
  template = "Rigid3"
  position = [[0, 1, 0, 0, 0, 0, 1]]
  velocity = [[0, 0, 0, 0, 0, 1]]
  [[node.object]]
  type = "RigidMass"
  mass = 2
  inertiaDiagonal = [1, 2, 3]
  [[node.object]]
  type = "ConstantForceField"
  forces = [[0, 1, 0, 0, 0, 0]]
  [[node.node]]
  name = "points"
    [[node.node.object]]
    type = "MechanicalObject"
    position = [[1, 0, 0], [0, 1, 0]]
    [[node.node.object]]
    type = "RigidMapping"
`,
	`[[node]]
name = "s"
  [[node.object]]
  type = "EulerExplicitSolver"
  [[node.object]]
  type = "MechanicalObject"
  restPosition = [[0, 0, 0], [1, 0, 0]]
  position = [[0, 0, nan]]
  [[node.object]]
  type = "RestShapeSpringsForceField"
  stiffness = -1
  points = [5]
`,
	`dt = -1
steps = -2
gravity = [0, inf]
[[node]]
name = "x"
[[node]]
name = "x"
  [[node.object]]
  type = "TetrahedronFEMForceField"
  method = "larg"
  poissonRatio = 0.5
  youngModulus = 1e6
  [[node.object]]
  name = "noType"
  [[node.object]]
  type = "DiagonalMass"
  massDensity = 1000
`,
}

// FuzzLoad feeds arbitrary bytes to the scene loader and, when they load,
// initialises the scene and computes its forces and energies: nothing may
// panic, and every error must be located in the scene file.
//
// Seeds: every scenes/*.toml and fuzzSeeds. Scenes with exporters are not
// initialised (they write files), nor scenes whose integer fields ask for
// more than maxFuzzCount items (they would only test the machine's memory).
func FuzzLoad(f *testing.F) {
	files, _ := filepath.Glob("../scenes/*.toml")
	for _, p := range files {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		const file = "fuzz.toml"
		s, err := graph.Load(file, data)
		if err != nil {
			checkLocated(t, file, "load", err)
			return
		}
		if hasExporter(s) || tooBig(s) {
			return
		}
		s.CacheDir = testCache() // precomputation caches: never next to the test
		if err := s.Init(); err != nil {
			checkLocated(t, file, "init", err)
			return
		}
		s.ComputeForces()
		s.Energies()
	})
}

func checkLocated(t *testing.T, file, phase string, err error) {
	t.Helper()
	msg := err.Error()
	if !strings.HasPrefix(msg, file+":") {
		t.Errorf("%s error not located in the scene file: %q", phase, msg)
	}
}

func hasExporter(s *graph.Scene) bool {
	found := false
	s.Root.Walk(func(n *graph.Node) error {
		for _, o := range n.Objects {
			if t, ok := graph.Lookup(o.Base().TypeName); ok && t.Kind == graph.KindExporter {
				found = true
			}
			if _, ok := o.(graph.Exporter); ok {
				found = true
			}
		}
		return nil
	})
	return found
}

// maxFuzzCount bounds the integer fields (counts, sizes, grid resolutions;
// the product for fixed arrays such as a grid's n) of scenes the fuzzer
// initialises.
const maxFuzzCount = 20000

func tooBig(s *graph.Scene) bool {
	big := false
	s.Root.Walk(func(n *graph.Node) error {
		for _, o := range n.Objects {
			v := reflect.ValueOf(o).Elem()
			for i := 0; i < v.NumField(); i++ {
				if v.Type().Field(i).Tag.Get("toml") == "" {
					continue
				}
				f := v.Field(i)
				switch {
				case f.Kind() == reflect.Int:
					big = big || f.Int() > maxFuzzCount
				case f.Kind() == reflect.Array && f.Type().Elem().Kind() == reflect.Int:
					p := int64(1)
					for j := 0; j < f.Len(); j++ {
						p *= max(1, min(f.Index(j).Int(), maxFuzzCount+1))
					}
					big = big || p > maxFuzzCount
				}
			}
		}
		return nil
	})
	return big
}
