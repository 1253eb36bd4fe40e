package shapefunction

import (
	"math"
	"strings"
	"testing"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

const placerScene = `
[[node]]
name = "obj"
  [[node.object]]
  type = "MaterialGrid"
  box = [0, 0, 0, 1.2, 0.2, 0.1]
  resolution = [24, 4, 2]
  youngModulus = 1e5
  %REGIONS%
  [[node.object]]
  type = "MechanicalObject"
  name = "frames"
  template = "%TEMPLATE%"
  [[node.object]]
  type = "FramePlacer"
  count = %COUNT%
  %FIXED%
`

func loadPlacer(t *testing.T, tmpl, count, fixed, regions string) *graph.Scene {
	t.Helper()
	src := strings.NewReplacer("%TEMPLATE%", tmpl, "%COUNT%", count, "%FIXED%", fixed, "%REGIONS%", regions).Replace(placerScene)
	return graphtest.MustLoad(t, "placer.toml", src)
}

func origins(st graph.State) []geom.Vec3 {
	o, _ := restOrigins(st)
	return o
}

// TestFramePlacerUniformBar: on a uniform bar, frames spread along it in
// Euclidean distance, symmetric about the middle (to a voxel), rest and
// current coordinates set, identity orientation / linear part.
func TestFramePlacerUniformBar(t *testing.T) {
	for _, tmpl := range []string{"Rigid3", "Affine3"} {
		s := loadPlacer(t, tmpl, "3", "", "")
		st := graphtest.Find[graph.State](t, s, "obj/frames")
		o := origins(st)
		if len(o) != 3 {
			t.Fatalf("%d frames", len(o))
		}
		xs := []float64{o[0][0], o[1][0], o[2][0]}
		lo, hi, mid := math.Min(xs[0], math.Min(xs[1], xs[2])), math.Max(xs[0], math.Max(xs[1], xs[2])), 0.0
		for _, x := range xs {
			if x != lo && x != hi {
				mid = x
			}
		}
		t.Logf("%s: frames at x = %v", tmpl, xs)
		// Lloyd on 24 cells along x converges to cells of 8: frames at
		// 0.2, 0.6, 1.0 (centres snapped to voxel centres, 0.05 apart).
		if math.Abs(lo+hi-1.2) > 0.051 || math.Abs(mid-0.6) > 0.051 || hi-lo < 0.7 {
			t.Errorf("%s: frames not spread symmetrically: %v", tmpl, xs)
		}
		cs := st.Template().CoordSize()
		x, r := st.Vec(graph.Position), st.Vec(graph.RestPosition)
		for i := range x {
			if x[i] != r[i] {
				t.Fatalf("%s: position differs from rest position", tmpl)
			}
		}
		for f := 0; f < 3; f++ {
			c := x[cs*f : cs*f+cs]
			if tmpl == "Rigid3" && (c[6] != 1 || c[3] != 0) || tmpl == "Affine3" && (c[3] != 1 || c[7] != 1 || c[11] != 1 || c[4] != 0) {
				t.Errorf("%s: frame %d is not at the identity: %v", tmpl, f, c)
			}
		}
	}
}

// TestFramePlacerKeepsFixedFramesAndFollowsCompliance: fixed frames stay
// where given, first; with a stiff core the free frames go to the soft
// parts (far apart in compliance distance), none in the core beside the
// fixed frame placed there.
func TestFramePlacerKeepsFixedFramesAndFollowsCompliance(t *testing.T) {
	s := loadPlacer(t, "Rigid3", "3", "fixed = [[0.6, 0.1, 0.05]]",
		"stiffnessRegions = [{box = [0.5, -1, -1, 0.7, 1, 1], youngModulus = 1e8}]")
	o := origins(graphtest.Find[graph.State](t, s, "obj/frames"))
	if o[0] != (geom.Vec3{0.6, 0.1, 0.05}) {
		t.Errorf("fixed frame moved to %v", o[0])
	}
	left, right := 0, 0
	for _, x := range o[1:] {
		switch {
		case x[0] < 0.5:
			left++
		case x[0] > 0.7:
			right++
		}
	}
	t.Logf("frames at %v", o)
	if left != 1 || right != 1 {
		t.Errorf("want one free frame in each soft part, got %v", o)
	}
	// Deterministic: the same scene places the same frames.
	s2 := loadPlacer(t, "Rigid3", "3", "fixed = [[0.6, 0.1, 0.05]]",
		"stiffnessRegions = [{box = [0.5, -1, -1, 0.7, 1, 1], youngModulus = 1e8}]")
	o2 := origins(graphtest.Find[graph.State](t, s2, "obj/frames"))
	for i := range o {
		if o[i] != o2[i] {
			t.Fatalf("placement differs between runs: %v vs %v", o, o2)
		}
	}
}

func TestFramePlacerErrors(t *testing.T) {
	cases := []struct{ count, fixed, want string }{
		{"1", "fixed = [[0.1, 0.1, 0.05], [0.3, 0.1, 0.05]]", "less than the 2 fixed frames"},
		{"2", "fixed = [[5, 0.1, 0.05]]", "outside the material"},
		{"1000", "", "only 192 voxels"},
	}
	for _, c := range cases {
		src := strings.NewReplacer("%TEMPLATE%", "Rigid3", "%COUNT%", c.count, "%FIXED%", c.fixed, "%REGIONS%", "").Replace(placerScene)
		s, err := graph.Load("bad.toml", []byte(src))
		if err == nil {
			err = s.Init()
		}
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "bad.toml:") {
			t.Errorf("count %s %s: error %v, want file:line and %q", c.count, c.fixed, err, c.want)
		}
	}
	// A state that gives its own positions conflicts with the placer.
	src := strings.NewReplacer("%TEMPLATE%", "Rigid3\"\n  position = [[0, 0, 0, 0, 0, 0, 1]]\n  name2 = \"", "%COUNT%", "2", "%FIXED%", "", "%REGIONS%", "").Replace(placerScene)
	src = strings.Replace(src, "\n  name2 = \"\"", "", 1)
	s, err := graph.Load("bad.toml", []byte(src))
	if err == nil {
		err = s.Init()
	}
	if err == nil || !strings.Contains(err.Error(), "gives position/restPosition itself") {
		t.Errorf("conflicting positions: %v", err)
	}
}

const samplerScene = `
[[node]]
name = "obj"
  [[node.object]]
  type = "MaterialGrid"
  box = [0, 0, 0, 1, 0.2, 0.2]
  resolution = [20, 4, 4]
  youngModulus = 1e6
  stiffnessRegions = [{box = [0.8, -1, -1, 1, 1, 1], youngModulus = 3e6}]
  [[node.object]]
  type = "MechanicalObject"
  template = "Rigid3"
  position = [[0.025, 0.075, 0.075, 0, 0, 0, 1], [0.525, 0.125, 0.125, 0, 0, 0, 1], [0.975, 0.075, 0.125, 0, 0, 0, 1]]
  [[node.object]]
  type = "HarmonicShapeFunction"
  nbRef = 2
  [[node.node]]
  name = "s"
    [[node.node.object]]
    %SAMPLER%
`

// TestDenseSampler: one sample per voxel at its centre with its volume, or
// per block: centroid, total volume, mean modulus; volumes add up to the
// material's.
func TestDenseSampler(t *testing.T) {
	for _, c := range []struct {
		sampler string
		n       int
	}{
		{`type = "DenseSampler"`, 320},
		{"type = \"DenseSampler\"\n    resolution = [5, 2, 1]", 10},
	} {
		s := graphtest.MustLoad(t, "dense.toml", strings.Replace(samplerScene, "%SAMPLER%", c.sampler, 1))
		d := graphtest.Find[*DenseSampler](t, s, "obj/s/DenseSampler")
		pts, _ := d.SamplePoints()
		vols, _ := d.SampleVolumes()
		E, _ := d.SampleYoungModuli()
		if len(pts) != 3*c.n || len(vols) != c.n || len(E) != c.n {
			t.Fatalf("%s: %d samples, want %d", c.sampler, len(vols), c.n)
		}
		sum := 0.0
		for _, v := range vols {
			sum += v
		}
		if math.Abs(sum-0.04) > 1e-15 {
			t.Errorf("%s: volumes sum to %g, want 0.04", c.sampler, sum)
		}
		if c.n == 10 {
			// Block (4, 0, 0) spans x ∈ [0.8, 1], y ∈ [0, 0.1]: centroid
			// (0.9, 0.05, 0.1), the stiff region's modulus.
			p := geom.At(pts, 4)
			if p.Sub(geom.Vec3{0.9, 0.05, 0.1}).Norm() > 1e-12 || math.Abs(E[4]-3e6) > 1e-6 || math.Abs(E[3]-1e6) > 1e-6 {
				t.Errorf("block 4: centroid %v E %g (block 3 E %g)", p, E[4], E[3])
			}
		}
	}
}

// TestSparseSampler: count samples, one or more per region of voxels
// influenced by the same frames; volumes add up; too small a count is an
// error naming the number of regions; Reset recomputes.
func TestSparseSampler(t *testing.T) {
	s := graphtest.MustLoad(t, "sparse.toml", strings.Replace(samplerScene, "%SAMPLER%", "type = \"SparseSampler\"\n    count = 12", 1))
	sp := graphtest.Find[*SparseSampler](t, s, "obj/s/SparseSampler")
	vols, err := sp.SampleVolumes()
	if err != nil {
		t.Fatal(err)
	}
	pts, _ := sp.SamplePoints()
	groups, _ := sp.SampleVoxels()
	t.Logf("%d influence regions, %d samples", sp.Regions(), len(vols))
	if len(vols) != 12 || len(pts) != 36 || sp.Regions() > 12 || sp.Regions() < 3 {
		t.Fatalf("%d samples from %d regions", len(vols), sp.Regions())
	}
	sum, seen := 0.0, map[int]bool{}
	for i, v := range vols {
		sum += v
		for _, vx := range groups[i] {
			if seen[vx] {
				t.Fatalf("voxel %d in two samples", vx)
			}
			seen[vx] = true
		}
	}
	if math.Abs(sum-0.04) > 1e-15 || len(seen) != 320 {
		t.Errorf("volumes sum to %g over %d voxels, want 0.04 over 320", sum, len(seen))
	}
	sp.Reset()
	if v2, _ := sp.SampleVolumes(); len(v2) != 12 {
		t.Errorf("after Reset: %d samples", len(v2))
	}
	bad, err := graph.Load("bad.toml", []byte(strings.Replace(samplerScene, "%SAMPLER%", "type = \"SparseSampler\"\n    count = 1", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if err := bad.Init(); err != nil {
		t.Fatal(err)
	}
	sp = graphtest.Find[*SparseSampler](t, bad, "obj/s/SparseSampler")
	if _, err := sp.SamplePoints(); err == nil || !strings.Contains(err.Error(), "regions influenced by the same frames") {
		t.Errorf("count below the regions: %v", err)
	}
}
