package shapefunction

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"

	"github.com/sofago/sofago/components/mapping"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

// checkElastons checks what every sampling must satisfy: the volumes add
// up to the material's, the order-2 moments are the partition's second
// moments about its centroid (points' own boxes included: computed here
// independently, point by point), the first moments vanish, and
// V h_k²/12 are the eigenvalues of the second-moment matrix.
func checkElastons(t *testing.T, m *MeshfreeSampler, total float64) {
	t.Helper()
	part, err := m.Partition()
	if err != nil {
		t.Fatal(err)
	}
	vols, _ := m.SampleVolumes()
	pos, _ := m.SamplePoints()
	order, mo, _ := m.SampleMoments()
	h, axes, _ := m.ElastonExtents()
	sum := 0.0
	for e, grp := range part {
		sum += vols[e]
		c := geom.At(pos, e)
		var S geom.Mat3
		for _, j := range grp {
			p := m.mpts[j]
			d := p.x.Sub(c)
			S = S.Add(d.Outer(d).Scale(p.v)).Add(p.S)
		}
		M := mo[geom.NumMoments*e:]
		scale := math.Abs(S[0]) + math.Abs(S[4]) + math.Abs(S[8])
		// Second moments of the box vs of the partition.
		for a := 0; a < 3; a++ {
			for b := 0; b < 3; b++ {
				var ex [3]int
				ex[a]++
				ex[b]++
				got := M[geom.MonomialIndex(ex[0], ex[1], ex[2])]
				if math.Abs(got-S[3*a+b]) > 1e-12*scale {
					t.Errorf("elaston %d: moment (%d,%d) = %.15g, partition %.15g", e, a, b, got, S[3*a+b])
				}
			}
			var ex [3]int
			ex[a] = 1
			if v := M[geom.MonomialIndex(ex[0], ex[1], ex[2])]; math.Abs(v) > 1e-12*vols[e]*h[e][0] {
				t.Errorf("elaston %d: first moment %d = %g, want 0 about the centroid", e, a, v)
			}
			u := axes[e].Col(a)
			if got, want := vols[e]*h[e][a]*h[e][a]/12, u.Dot(S.MulVec(u)); math.Abs(got-want) > 1e-12*scale {
				t.Errorf("elaston %d: V h_%d²/12 = %.15g, uᵀSu = %.15g", e, a, got, want)
			}
		}
		if order != m.Order {
			t.Errorf("order %d, want %d", order, m.Order)
		}
	}
	if math.Abs(sum-total) > 1e-12*total {
		t.Errorf("elaston volumes add up to %.15g, material %.15g", sum, total)
	}
}

// TestMeshfreeSamplerRodShell: a single line of points carrying a
// thickness t gives rod elastons whose two thin extents are exactly t
// (from the points' declared section, not from their spread, which is
// zero), a single layer gives shell elastons whose normal extent is t;
// the moments are the partition's and the volumes add up.
func TestMeshfreeSamplerRodShell(t *testing.T) {
	const t0, n = 0.02, 50
	var rod, shell [][3]float64
	for i := 0; i < n; i++ {
		rod = append(rod, [3]float64{(float64(i) + 0.5) / n, 0.3, -0.1})
		for k := 0; k < 10; k++ {
			shell = append(shell, [3]float64{(float64(i) + 0.5) / n, 0, (float64(k) + 0.5) / 20})
		}
	}
	for _, c := range []struct {
		name string
		pts  [][3]float64
		vol  float64
		kind string
		thin int
	}{{"rod", rod, t0 * t0 / n, "rod", 2}, {"shell", shell, t0 / n / 20, "shell", 1}} {
		m := &MeshfreeSampler{Points: c.pts, PointVolume: c.vol, Thickness: t0, ElastonCount: 10, LloydIterations: 100, Order: 4}
		if _, err := m.samples(); err != nil {
			t.Fatal(err)
		}
		checkElastons(t, m, c.vol*float64(len(c.pts)))
		h, _, _ := m.ElastonExtents()
		for e := range h {
			if k := m.ElastonKind(e); k != c.kind {
				t.Errorf("%s elaston %d: kind %s, extents %v", c.name, e, k, h[e])
			}
			for a := 3 - c.thin; a < 3; a++ {
				if math.Abs(h[e][a]-t0) > 1e-12 {
					t.Errorf("%s elaston %d: thin extent %d = %.15g, want the thickness %g", c.name, e, a, h[e][a], t0)
				}
			}
		}
		t.Logf("%s: %d elastons, Lloyd iterations %d, extents of elaston 0: %v", c.name, len(h), m.LloydIterationsRun()[1], h[0])
		// Deterministic: a second build gives the same bits.
		m2 := &MeshfreeSampler{Points: c.pts, PointVolume: c.vol, Thickness: t0, ElastonCount: 10, LloydIterations: 100, Order: 4}
		_, mo1, _ := m.SampleMoments()
		_, mo2, _ := m2.SampleMoments()
		for i := range mo1 {
			if mo1[i] != mo2[i] {
				t.Fatalf("%s: two builds differ at moment %d", c.name, i)
			}
		}
	}
	// Without a thickness the points are small cubes of their volume:
	// a line of them is a rod of square section v^(1/3).
	m := &MeshfreeSampler{Points: rod, PointVolume: 1e-6, ElastonCount: 5, LloydIterations: 10, Order: 2}
	if _, err := m.samples(); err != nil {
		t.Fatal(err)
	}
	h, _, _ := m.ElastonExtents()
	if math.Abs(h[0][1]-0.01) > 1e-12 || math.Abs(h[0][2]-0.01) > 1e-12 {
		t.Errorf("line of points without thickness: extents %v, want 0.01 across (the cube side)", h[0])
	}
}

// TestMeshfreeSamplerGrid: on the voxels of a box the elastons partition
// the voxels (each a box of its own second moment h²/12) and their
// moments of order 4 are those of the box of the same volume and second
// moments: along a principal axis u_k, ∫ (u_k·d)⁴ = V h_k⁴/80.
func TestMeshfreeSamplerGrid(t *testing.T) {
	s := graphtest.MustLoad(t, "grid.toml", `
[[node]]
name = "n"
  [[node.object]]
  type = "MaterialGrid"
  box = [0, 0, 0, 1, 0.5, 0.25]
  resolution = [16, 8, 4]
  [[node.object]]
  type = "MeshfreeSampler"
  name = "s"
  elastonCount = 6
  order = 4
`)
	m := graphtest.Find[*MeshfreeSampler](t, s, "n/s")
	checkElastons(t, m, 0.125)
	h, axes, _ := m.ElastonExtents()
	vols, _ := m.SampleVolumes()
	_, mo, _ := m.SampleMoments()
	for e := range h {
		for k := 0; k < 3; k++ {
			u := axes[e].Col(k)
			got := 0.0
			for i := 0; i <= 4; i++ {
				for j := 0; i+j <= 4; j++ {
					l := 4 - i - j
					c := multinomial4(i, j, l) * math.Pow(u[0], float64(i)) * math.Pow(u[1], float64(j)) * math.Pow(u[2], float64(l))
					got += c * mo[geom.NumMoments*e+geom.MonomialIndex(i, j, l)]
				}
			}
			want := vols[e] * math.Pow(h[e][k], 4) / 80
			if math.Abs(got-want) > 1e-10*want {
				t.Errorf("elaston %d axis %d: ∫ (u·d)⁴ = %.15g, box %.15g", e, k, got, want)
			}
		}
	}
	t.Logf("6 elastons on 16×8×4 voxels, extents of elaston 0: %v (Lloyd iterations %d)", h[0], m.LloydIterationsRun()[1])
	var _ graph.Object = m
}

func multinomial4(i, j, k int) float64 {
	f := func(n int) float64 {
		r := 1.0
		for a := 2; a <= n; a++ {
			r *= float64(a)
		}
		return r
	}
	return f(4) / (f(i) * f(j) * f(k))
}

// TestMeshfreeSamplerNodeRadii: along a line of material points each
// node's GMLS support radius is supportFactor × the distance to its
// supportNeighbours-th nearest node: 2 × 2 spacings ≈ 4 spacings along the
// line (Lloyd's discrete fixed point spaces the nodes 0.09–0.115 apart); a
// GMLSMapping with no radius of its own takes them (the sampler sits in
// an ancestor of the mapped node).
func TestMeshfreeSamplerNodeRadii(t *testing.T) {
	var pts []string
	for i := 0; i < 100; i++ {
		pts = append(pts, fmt.Sprintf("[%g, 0, 0]", (float64(i)+0.5)/100))
	}
	s := graphtest.MustLoad(t, "line.toml", fmt.Sprintf(`
[[node]]
name = "n"
  [[node.object]]
  type = "MeshfreeSampler"
  name = "s"
  points = [%s]
  pointVolume = 1e-6
  thickness = 0.001
  frames = "@nodes"
  nodeCount = 10
  elastonCount = 20
  order = 2
  [[node.object]]
  type = "MechanicalObject"
  name = "nodes"
  template = "Affine3"
  [[node.node]]
  name = "e"
    [[node.node.object]]
    type = "MechanicalObject"
    template = "F332"
    [[node.node.object]]
    type = "GMLSMapping"
`, strings.Join(pts, ", ")))
	m := graphtest.Find[*MeshfreeSampler](t, s, "n/s")
	nodes, _ := m.Nodes()
	r, err := m.NodeRadii()
	if err != nil {
		t.Fatal(err)
	}
	// Each node is the centroid of its cell (a discrete Lloyd fixed
	// point), and its radius 2 × the distance to its 4th nearest node
	// (brute force here).
	for i, p := range nodes {
		var d []float64
		for j, q := range nodes {
			if j != i {
				d = append(d, p.Sub(q).Norm())
			}
		}
		sort.Float64s(d)
		if math.Abs(r[i]-2*d[3]) > 1e-12 {
			t.Errorf("node at %v: radius %.12g, want 2 × %.12g", p, r[i], d[3])
		}
		if p[0] > 0.3 && p[0] < 0.7 && math.Abs(r[i]-0.4) > 0.06 { // near the ends the 4th neighbour is farther
			t.Errorf("node at %v: radius %.12g, not about 4 spacings (0.4)", p, r[i])
		}
	}
	t.Logf("nodes %v, radii %v", nodes, r)
	gm := graphtest.Find[*mapping.GMLSMapping](t, s, "n/e/GMLSMapping")
	if gm.Nodes() == nil {
		t.Fatal("the GMLS mapping has no nodes")
	}
}

// TestMeshfreeSamplerClosedSurface: material points filling a closed
// surface (scenes/meshes/capsule.stl, through a MaterialGrid): the
// elastons' volumes add up to the voxels', every elaston of this bulky
// capsule (radius 5 cm, 0.3 m long, 40 elastons of about 4 cm) is a
// solid one, the moments are the partitions', and the nodes are written
// into the frames' state at rest ([x, I]).
func TestMeshfreeSamplerClosedSurface(t *testing.T) {
	s := graphtest.MustLoad(t, "../../scenes/capsule.toml", `
[[node]]
name = "n"
  [[node.object]]
  type = "MaterialGrid"
  name = "grid"
  filename = "meshes/capsule.stl"
  cellSize = 0.01
  [[node.object]]
  type = "MeshfreeSampler"
  name = "s"
  frames = "@nodes"
  nodeCount = 12
  elastonCount = 40
  [[node.object]]
  type = "MechanicalObject"
  name = "nodes"
  template = "Affine3"
`)
	m := graphtest.Find[*MeshfreeSampler](t, s, "n/s")
	g, err := graphtest.Find[*MaterialGrid](t, s, "n/grid").Voxels()
	if err != nil {
		t.Fatal(err)
	}
	checkElastons(t, m, g.Volume())
	h, _, _ := m.ElastonExtents()
	for e := range h {
		if k := m.ElastonKind(e); k != "solid" {
			t.Errorf("elaston %d: %s, extents %v", e, k, h[e])
		}
	}
	st := graphtest.Find[graph.State](t, s, "n/nodes")
	nodes, _ := m.Nodes()
	x := st.Vec(graph.RestPosition)
	for i, p := range nodes {
		want := []float64{p[0], p[1], p[2], 1, 0, 0, 0, 1, 0, 0, 0, 1}
		for c, w := range want {
			if x[12*i+c] != w {
				t.Fatalf("node %d rest coordinates %v, want %v", i, x[12*i:12*i+12], want)
			}
		}
	}
	t.Logf("%d voxels, volume %.6g m³, %d elastons, %d nodes", g.NumVoxels(), g.Volume(), len(h), len(nodes))
}
