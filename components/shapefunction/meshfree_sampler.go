package shapefunction

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
)

// MeshfreeSampler samples a dense set of material points for a meshfree
// model of rods, shells and solids (lecture notes 004, "Implementation:
// Sampling"; Martin et al. 2010): it places the nodes (the frames or
// GMLS nodes carrying u and its gradient) and the elaston centres by
// Lloyd iterations on the material points, partitions the material among
// the elastons, and gives every elaston its volume, its polynomial
// moments and its extents h₁, h₂, h₃.
//
// Material points. Each point m_j carries a position, a volume v_j, a
// relative stiffness and its own second moment S_j = ∫_j (X − m_j)(X −
// m_j)ᵀ dV (the point is a small box):
//
//   - from a MaterialGrid (a box, a closed STL/OBJ surface, a tetrahedral
//     mesh or a voxel file): one point per voxel, v = the voxel's volume,
//     S = v diag(h_x², h_y², h_z²)/12, the voxel's Young's modulus;
//   - from points (inline) or pointFile (text lines "x y z [volume
//     [thickness]]"; pointVolume and thickness for the missing columns):
//     a point with thickness t = 0 is a small cube of side s = v^(1/3); a
//     point with t > 0 belongs to a thin structure made of a single layer
//     of points, as in the lecture (material points carry their volume
//     and the thickness): the principal directions of its k = 6 nearest
//     thin neighbours tell a rod (second principal spread below 5% of the
//     first: one direction along the points) from a shell (the normal is
//     the direction of least spread), and the point is a box of extent t
//     in each thin direction and s along the others (shell: v = s² t;
//     rod: v = s t²). A rod of circular section of radius r has the
//     second moment of area of a square of side t = √3 r (I = π r⁴/4 =
//     A t²/12 with A = π r²): give t = √3 r and v = π r² s.
//
// Nodes and elastons. Both are placed the same way, deterministically:
// farthest-point sampling from the point farthest from the one nearest the
// material's centroid (after the fixed nodes, kept where they are), then
// Lloyd iterations — every material point joins its nearest centre (ties:
// lowest index), every free centre moves to its partition's volume
// centroid — until no centre moves by more than 1e-9 of the material's
// size or after lloydIterations (a centroidal Voronoi tessellation of
// the material points). A node of a curved shell or rod may lie off the
// material by its partition's sagitta; GMLS nodes need not lie on it. Nodes are written into the frames' state (identity
// linear part), as FramePlacer does.
//
// Elastons. Elaston e integrates the points of its partition M_e: E_e is
// their volume-mean Young's modulus, V_e their volume, its centre X_e the
// stiffness-weighted centroid, and its stiffness-weighted second moment
//
//	S_e = Σ_j (E_j/E_e) (v_j (m_j − X_e)(m_j − X_e)ᵀ + S_j)
//
// whose eigen-decomposition S_e = Σ_k V_e h_k²/12 u_k u_kᵀ gives the
// principal extents h_k = √(12 λ_k / V_e) along u_k: the elaston is the box
// of the lecture's energy W = V/2 (α:C:α + Σ h_k²/12 β_k:C:β_k) (lecture
// "Elastons"), here with its true volume V_e (so h₁h₂h₃ ≠ V_e for a
// non-box partition, but V_e h_k²/12 is the partition's exact second
// moment: the bending stiffness E I of a rod or a plate is exact). Its
// moments up to order 4 — those DeformationGradientForceField integrates
// F332 samples with — are that box's, of uniform density V_e/(h₁h₂h₃),
// computed with 3 Gauss points per axis (exact to degree 5): order 2
// exactly the partition's, order 4 the box's. The same 27 Gauss points
// are the elaston's quadrature for laws without a closed form
// (quadrature = "voxels"). An elaston thin in one direction (h_min below
// a third of h_max) is reported as a shell, in two as a rod; the energy
// itself does not distinguish them.
type MeshfreeSampler struct {
	graph.ObjectBase
	Grid              graph.Link   `toml:"grid" doc:"MaterialGrid whose voxels are the material points (default: points or pointFile, else the first MaterialGrid in this node or an ancestor)"`
	Points            [][3]float64 `toml:"points" doc:"material points, each of volume pointVolume and thickness thickness" unit:"m"`
	PointFile         string       `toml:"pointFile" doc:"text file of material points, one per line: x y z [volume [thickness]] ('#' starts a comment), relative to the scene file"`
	PointVolume       float64      `toml:"pointVolume" doc:"volume of a material point given without one" unit:"m³" range:"[0,inf)"`
	Thickness         float64      `toml:"thickness" doc:"thickness of a material point given without one: 0 = a point of a solid; t > 0 = a point of a single-layer shell or rod, t its extent in the thin directions (a circular rod of radius r: t = √3 r)" unit:"m" range:"[0,inf)"`
	Frames            graph.Link   `toml:"frames" doc:"state of the nodes (Affine3, Quadratic3, Rigid3 or Vec3) to place; default: none (the nodes are given by the scene)"`
	NodeCount         int          `toml:"nodeCount" doc:"number of nodes to place (fixed ones included) into frames" range:"[0,100000]"`
	FixedNodes        [][3]float64 `toml:"fixedNodes" doc:"nodes given by the user, kept where they are (first in the frames' state)" unit:"m"`
	ElastonCount      int          `toml:"elastonCount" doc:"number of elastons (integration samples)" range:"[1,100000]" required:"true"`
	LloydIterations   int          `toml:"lloydIterations" doc:"maximum Lloyd iterations for the nodes and for the elastons (0: farthest-point sampling only)" range:"[0,100000]"`
	Order             int          `toml:"order" doc:"order of the region moments given to the force field: 2 (exact for CorotationalLinear and Linear) or 4 (StVenantKirchhoff)" range:"[2,4]"`
	SupportFactor     float64      `toml:"supportFactor" doc:"GMLS support radius of each node (NodeRadii, read by GMLSMapping): supportFactor × the distance to its supportNeighbours-th nearest node" range:"(0,inf)"`
	SupportNeighbours int          `toml:"supportNeighbours" doc:"which nearest node sets each node's support radius (see supportFactor): 4 gives about 4 spacings along a rod, 2 in a shell or a solid" range:"[1,64]"`

	set       sampleSet
	extents   []geom.Vec3
	axes      []geom.Mat3
	thinKinds []int8
	thinAxes  []geom.Mat3
	partition [][]int
	nodes     []geom.Vec3
	mpts      []materialPoint
	lloydRun  [2]int
	built     bool
	err       error
}

// materialPoint is one point of the dense material set.
type materialPoint struct {
	x      geom.Vec3
	v      float64
	young  float64 // 0: uniform material
	S      geom.Mat3
	thin   int       // thin directions: 0 solid, 1 shell, 2 rod
	thinP  geom.Mat3 // projector onto the thin directions
	thick  float64
	source int // line of the point file (1-based), or 0
}

func init() {
	graph.Register(graph.TypeInfo{
		Name:    "MeshfreeSampler",
		Kind:    graph.KindTopology,
		Summary: "Meshfree sampling of a dense material point set (MaterialGrid voxels, or a point cloud whose single-layer rods and shells carry their thickness): nodes and elaston centres by deterministic Lloyd iterations, each elaston's partition, volume, moments (order 2 or 4) and extents h₁,h₂,h₃ from its principal second moments (lecture notes 004, Sampling and Elastons).",
		New: func() graph.Object {
			return &MeshfreeSampler{LloydIterations: 100, Order: 4, SupportFactor: 2, SupportNeighbours: 4}
		},
	})
}

// Validate checks the counts and the point sources.
func (m *MeshfreeSampler) Validate() error {
	if len(m.Points) > 0 && m.PointFile != "" {
		return errors.New("give points or pointFile, not both")
	}
	if (len(m.Points) > 0 || m.PointFile != "") && m.Grid.IsSet() {
		return errors.New("give grid or points/pointFile, not both")
	}
	if m.NodeCount > 0 && !m.Frames.IsSet() {
		return errors.New("nodeCount needs frames (the state to write the nodes into)")
	}
	if m.Frames.IsSet() && m.NodeCount < len(m.FixedNodes) {
		return fmt.Errorf("nodeCount = %d is less than the %d fixedNodes", m.NodeCount, len(m.FixedNodes))
	}
	if m.Order != 2 && m.Order != 4 && m.Order != 3 {
		return fmt.Errorf("order = %d: elastons need 2 (or 3, 4)", m.Order)
	}
	return nil
}

// Init builds the sampling and writes the nodes into the frames' state.
func (m *MeshfreeSampler) Init() error {
	if _, err := m.samples(); err != nil {
		return err
	}
	if m.Frames.IsSet() {
		st, ok := m.Frames.Object.(graph.State)
		if !ok {
			return m.Errorf("frames %q is not a mechanical state", m.Frames.Path)
		}
		if mo, ok := st.(*graph.MechanicalObject); ok && (len(mo.PositionIn) > 0 || len(mo.RestIn) > 0) {
			return m.Errorf("the nodes' state %q gives position/restPosition itself; with nodeCount, give the nodes through fixedNodes instead", st.Base().Path())
		}
		return m.Wrap(writeFrames(st, m.nodes))
	}
	return nil
}

func (m *MeshfreeSampler) samples() (*sampleSet, error) {
	if !m.built {
		m.built = true
		m.err = m.build()
		if m.err != nil {
			m.err = m.Wrap(m.err)
		}
	}
	return &m.set, m.err
}

// materialPoints reads the material points from the grid or the points.
func (m *MeshfreeSampler) materialPoints() ([]materialPoint, error) {
	if len(m.Points) == 0 && m.PointFile == "" {
		grid, err := findMaterialGrid(m.Grid, m.Node)
		if err != nil {
			return nil, fmt.Errorf("no material points: give points, pointFile or a MaterialGrid (%w)", err)
		}
		g, err := grid.Voxels()
		if err != nil {
			return nil, err
		}
		dv := g.VoxelVolume()
		h := g.Spacing
		S := geom.Mat3{h[0] * h[0] * dv / 12, 0, 0, 0, h[1] * h[1] * dv / 12, 0, 0, 0, h[2] * h[2] * dv / 12}
		out := make([]materialPoint, g.NumVoxels())
		for v := range out {
			out[v] = materialPoint{x: g.Centre(v), v: dv, young: g.Young[v], S: S}
		}
		return out, nil
	}
	var pts []materialPoint
	if len(m.Points) > 0 {
		for _, p := range m.Points {
			pts = append(pts, materialPoint{x: geom.Vec3(p), v: m.PointVolume, thick: m.Thickness})
		}
	} else {
		path := m.PointFile
		if m.Node != nil && m.Node.Scene() != nil {
			path = m.Node.Scene().ResolvePath(path)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("pointFile: %w", err)
		}
		pts, err = parsePointFile(path, data, m.PointVolume, m.Thickness)
		if err != nil {
			return nil, err
		}
	}
	for j := range pts {
		if !(pts[j].v > 0) {
			where := fmt.Sprintf("point %d", j)
			if pts[j].source > 0 {
				where = fmt.Sprintf("%s:%d", m.PointFile, pts[j].source)
			}
			return nil, fmt.Errorf("%s has no volume: give pointVolume or a volume column", where)
		}
	}
	if err := classifyThinPoints(pts); err != nil {
		return nil, err
	}
	return pts, nil
}

// parsePointFile reads lines "x y z [volume [thickness]]".
func parsePointFile(path string, data []byte, vol, thick float64) ([]materialPoint, error) {
	var pts []materialPoint
	sc := bufio.NewScanner(bytes.NewReader(data))
	line := 0
	for sc.Scan() {
		line++
		s := sc.Text()
		if i := strings.IndexByte(s, '#'); i >= 0 {
			s = s[:i]
		}
		f := strings.Fields(s)
		if len(f) == 0 {
			continue
		}
		if len(f) < 3 || len(f) > 5 {
			return nil, fmt.Errorf("%s:%d: want x y z [volume [thickness]], got %d numbers", path, line, len(f))
		}
		var val [5]float64
		for i, w := range f {
			x, err := strconv.ParseFloat(w, 64)
			if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("%s:%d: %q is not a finite number", path, line, w)
			}
			val[i] = x
		}
		p := materialPoint{x: geom.Vec3{val[0], val[1], val[2]}, v: vol, thick: thick, source: line}
		if len(f) > 3 {
			p.v = val[3]
		}
		if len(f) > 4 {
			p.thick = val[4]
		}
		if p.thick < 0 {
			return nil, fmt.Errorf("%s:%d: negative thickness %g", path, line, p.thick)
		}
		pts = append(pts, p)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(pts) == 0 {
		return nil, fmt.Errorf("%s: no points", path)
	}
	return pts, nil
}

// rodSpreadRatio: a thin point whose neighbours' second principal spread
// is below this fraction of the first lies on a rod.
const rodSpreadRatio = 0.05

// classifyThinPoints gives every point its own second moment S_j: a cube
// for solid points, a box of extent t across and s along for the points
// of single-layer rods and shells (see MeshfreeSampler).
func classifyThinPoints(pts []materialPoint) error {
	var thinIdx []int
	var thinPos []geom.Vec3
	for j, p := range pts {
		if p.thick > 0 {
			thinIdx = append(thinIdx, j)
			thinPos = append(thinPos, p.x)
		}
	}
	tree := newKDTree(thinPos)
	for j := range pts {
		p := &pts[j]
		if p.thick == 0 {
			s := math.Cbrt(p.v)
			c := p.v * s * s / 12
			p.S = geom.Mat3{c, 0, 0, 0, c, 0, 0, 0, c}
			continue
		}
		nb := tree.kNearest(p.x, 7) // itself and 6 neighbours
		if len(nb) < 2 {
			return fmt.Errorf("material point %d (thickness %g) has no thin neighbour: a rod or shell needs at least two points", j, p.thick)
		}
		var c geom.Vec3
		for _, i := range nb {
			c = c.Add(thinPos[i])
		}
		c = c.Scale(1 / float64(len(nb)))
		var C geom.Mat3
		for _, i := range nb {
			d := thinPos[i].Sub(c)
			C = C.Add(d.Outer(d))
		}
		lam, V := geom.SymEigen(C) // eigenvalues in descending order
		t := p.thick
		var S geom.Mat3
		addDir := func(a int, ext float64) {
			u := V.Col(a)
			S = S.Add(u.Outer(u).Scale(p.v * ext * ext / 12))
		}
		proj := func(a int) geom.Mat3 { u := V.Col(a); return u.Outer(u) }
		if lam[1] < rodSpreadRatio*lam[0] {
			p.thin = 2
			p.thinP = proj(1).Add(proj(2))
			s := p.v / (t * t)
			addDir(0, s)
			addDir(1, t)
			addDir(2, t)
		} else {
			p.thin = 1
			p.thinP = proj(2)
			s := math.Sqrt(p.v / t)
			addDir(0, s)
			addDir(1, s)
			addDir(2, t)
		}
		p.S = S
	}
	return nil
}

// lloyd places count centres on the points (fixed first, kept) by
// farthest-point sampling then Lloyd iterations (see MeshfreeSampler); it
// returns the centres, the partition (point indices per centre) and the
// iterations run.
func lloyd(pts []materialPoint, fixed []geom.Vec3, count, iterations int) ([]geom.Vec3, [][]int, int) {
	pos := make([]geom.Vec3, 0, count)
	pos = append(pos, fixed...)
	xs := make([]geom.Vec3, len(pts))
	for j, p := range pts {
		xs[j] = p.x
	}
	ptree := newKDTree(xs)
	if len(pos) == 0 && count > 0 {
		var c geom.Vec3
		vt := 0.0
		for _, p := range pts {
			c = c.Add(p.x.Scale(p.v))
			vt += p.v
		}
		start, _ := ptree.nearest(c.Scale(1 / vt))
		first, far := start, -1.0
		for j, p := range pts {
			if d := p.x.Sub(pts[start].x).Norm2(); d > far {
				first, far = j, d
			}
		}
		pos = append(pos, pts[first].x)
	}
	// Farthest-point sampling: dist[j] is the squared distance of point j
	// to its nearest centre.
	dist := make([]float64, len(pts))
	for j := range dist {
		dist[j] = math.Inf(1)
	}
	update := func(c geom.Vec3) {
		for j, p := range pts {
			dist[j] = min(dist[j], p.x.Sub(c).Norm2())
		}
	}
	for _, c := range pos {
		update(c)
	}
	for len(pos) < count {
		best, bestD := -1, -1.0
		for j, d := range dist {
			if d > bestD {
				best, bestD = j, d
			}
		}
		if bestD <= 0 {
			break // more centres than distinct points
		}
		pos = append(pos, pts[best].x)
		update(pts[best].x)
	}
	nFixed := len(fixed)
	assign := func() [][]int {
		tree := newKDTree(pos)
		part := make([][]int, len(pos))
		for j, p := range pts {
			c, _ := tree.nearest(p.x)
			part[c] = append(part[c], j)
		}
		return part
	}
	part := assign()
	// Size of the material, for the convergence test.
	var lo, hi geom.Vec3
	lo, hi = pts[0].x, pts[0].x
	for _, p := range pts {
		for a := 0; a < 3; a++ {
			lo[a], hi[a] = min(lo[a], p.x[a]), max(hi[a], p.x[a])
		}
	}
	tol := 1e-9 * hi.Sub(lo).Norm()
	run := 0
	for it := 0; it < iterations && nFixed < len(pos); it++ {
		moved := 0.0
		for i := nFixed; i < len(pos); i++ {
			if len(part[i]) == 0 {
				continue
			}
			var c geom.Vec3
			vt := 0.0
			for _, j := range part[i] {
				c = c.Add(pts[j].x.Scale(pts[j].v))
				vt += pts[j].v
			}
			c = c.Scale(1 / vt)
			moved = math.Max(moved, c.Sub(pos[i]).Norm())
			pos[i] = c
		}
		run = it + 1
		part = assign()
		if moved <= tol {
			break
		}
	}
	return pos, part, run
}

// boxGauss3 are the 3-point Gauss–Legendre abscissae and weights on [−1, 1].
var boxGauss3 = [3][2]float64{{-0.7745966692414834, 5.0 / 9}, {0, 8.0 / 9}, {0.7745966692414834, 5.0 / 9}}

func (m *MeshfreeSampler) build() error {
	if err := m.Validate(); err != nil {
		return err
	}
	pts, err := m.materialPoints()
	if err != nil {
		return err
	}
	m.mpts = pts
	if m.ElastonCount > len(pts) {
		return fmt.Errorf("elastonCount = %d but there are only %d material points", m.ElastonCount, len(pts))
	}
	if m.Frames.IsSet() {
		fixed := make([]geom.Vec3, len(m.FixedNodes))
		for i, f := range m.FixedNodes {
			fixed[i] = geom.Vec3(f)
		}
		if m.NodeCount-len(fixed) > len(pts) {
			return fmt.Errorf("nodeCount = %d but there are only %d material points", m.NodeCount, len(pts))
		}
		m.nodes, _, m.lloydRun[0] = lloyd(pts, fixed, m.NodeCount, m.LloydIterations)
	}
	_, part, run := lloyd(pts, nil, m.ElastonCount, m.LloydIterations)
	m.lloydRun[1] = run
	// Empty partitions (duplicate points) are dropped.
	m.partition = m.partition[:0]
	for _, p := range part {
		if len(p) > 0 {
			m.partition = append(m.partition, p)
		}
	}
	uniform := true
	for _, p := range pts {
		if p.young != pts[0].young {
			uniform = false
		}
	}
	n := len(m.partition)
	s := sampleSet{uniform: uniform, order: m.Order, moments: make([]float64, geom.NumMoments*n)}
	m.extents = make([]geom.Vec3, n)
	m.axes = make([]geom.Mat3, n)
	m.thinKinds = make([]int8, n)
	m.thinAxes = make([]geom.Mat3, n)
	nm := geom.NumMonomials(m.Order)
	for e, grp := range m.partition {
		V, Esum := 0.0, 0.0
		for _, j := range grp {
			V += pts[j].v
			Esum += pts[j].v * stiffnessOf(pts[j])
		}
		Ee := Esum / V
		var c geom.Vec3
		for _, j := range grp {
			c = c.Add(pts[j].x.Scale(pts[j].v * stiffnessOf(pts[j]) / Ee))
		}
		c = c.Scale(1 / V)
		var S geom.Mat3
		for _, j := range grp {
			r := stiffnessOf(pts[j]) / Ee
			d := pts[j].x.Sub(c)
			S = S.Add(d.Outer(d).Scale(pts[j].v * r)).Add(pts[j].S.Scale(r))
		}
		lam, R := geom.SymEigen(S) // eigenvalues in descending order
		var h geom.Vec3
		var axes geom.Mat3
		for a := 0; a < 3; a++ {
			h[a] = math.Sqrt(math.Max(0, 12*lam[a]/V))
			u := R.Col(a)
			axes[a], axes[3+a], axes[6+a] = u[0], u[1], u[2]
		}
		if h[2] <= 1e-9*h[0] {
			return fmt.Errorf("elaston %d (%d material points near %v) has no extent across (h = %.3g, %.3g, %.3g m): single-layer rods and shells need their thickness (thickness field or column)", e, len(grp), c, h[0], h[1], h[2])
		}
		m.extents[e], m.axes[e] = h, axes
		m.thinKinds[e], m.thinAxes[e] = thinAxesOf(pts, grp, V)
		s.points = append(s.points, c[0], c[1], c[2])
		s.volumes = append(s.volumes, V)
		s.young = append(s.young, Ee)
		// Moments of the box (uniform density V/(h₁h₂h₃)) by 3³ Gauss points.
		mo := s.moments[geom.NumMoments*e : geom.NumMoments*e+nm]
		for _, q := range boxGauss(h, axes, V) {
			addPointMoments(mo, q.d, q.w, m.Order)
		}
	}
	m.set = s
	return nil
}

// thinAxesOf returns the thin form of a partition from its points' own
// thin directions: P = Σ v_j P_j / V averages the projectors onto them;
// its eigenvalues above ½ count the thin directions (a partition of
// mostly rod points: 2; of mostly shell points: 1; else 0). The axes:
// shell — the normal (P's first eigenvector) last; rod — the axis (P's
// last eigenvector) first; the others complete an orthonormal basis.
func thinAxesOf(pts []materialPoint, grp []int, V float64) (int8, geom.Mat3) {
	var P geom.Mat3
	for _, j := range grp {
		P = P.Add(pts[j].thinP.Scale(pts[j].v / V))
	}
	lam, R := geom.SymEigen(P) // eigenvalues in descending order
	n := int8(0)
	for a := 0; a < 3; a++ {
		if lam[a] > 0.5 {
			n++
		}
	}
	var cols [3]int
	switch n {
	case 1:
		cols = [3]int{1, 2, 0}
	case 2:
		cols = [3]int{2, 0, 1}
	default:
		return 0, geom.Identity3()
	}
	var Q geom.Mat3
	for a, c := range cols {
		u := R.Col(c)
		Q[a], Q[3+a], Q[6+a] = u[0], u[1], u[2]
	}
	return n, Q
}

func stiffnessOf(p materialPoint) float64 {
	if p.young > 0 {
		return p.young
	}
	return 1
}

type gaussPoint struct {
	d geom.Vec3
	w float64
}

// boxGauss returns the 27 Gauss points of the box of extents h along the
// columns of axes, centred at the origin, with weights summing to V.
func boxGauss(h geom.Vec3, axes geom.Mat3, V float64) []gaussPoint {
	out := make([]gaussPoint, 0, 27)
	for _, a := range boxGauss3 {
		for _, b := range boxGauss3 {
			for _, c := range boxGauss3 {
				loc := geom.Vec3{a[0] * h[0] / 2, b[0] * h[1] / 2, c[0] * h[2] / 2}
				out = append(out, gaussPoint{d: axes.MulVec(loc), w: V * a[1] * b[1] * c[1] / 8})
			}
		}
	}
	return out
}

// addPointMoments adds w d^α for |α| ≤ order to mo.
func addPointMoments(mo []float64, d geom.Vec3, w float64, order int) {
	for i := 0; i <= order; i++ {
		for j := 0; i+j <= order; j++ {
			for k := 0; i+j+k <= order; k++ {
				mo[geom.MonomialIndex(i, j, k)] += w * math.Pow(d[0], float64(i)) * math.Pow(d[1], float64(j)) * math.Pow(d[2], float64(k))
			}
		}
	}
}

// SamplePoints implements mapping.SamplePointProvider: the elastons'
// centres.
func (m *MeshfreeSampler) SamplePoints() ([]float64, error) {
	s, err := m.samples()
	if err != nil {
		return nil, err
	}
	return s.points, nil
}

// SampleVolumes implements forcefield.SampleVolumeProvider.
func (m *MeshfreeSampler) SampleVolumes() ([]float64, error) {
	s, err := m.samples()
	if err != nil {
		return nil, err
	}
	return s.volumes, nil
}

// SampleYoungModuli implements forcefield.SampleYoungModulusProvider: the
// volume-mean modulus of each partition, nil on uniform material.
func (m *MeshfreeSampler) SampleYoungModuli() ([]float64, error) {
	s, err := m.samples()
	if err != nil || s.uniform {
		return nil, err
	}
	return s.young, nil
}

// SampleMoments implements forcefield.SampleMomentProvider.
func (m *MeshfreeSampler) SampleMoments() (int, []float64, error) {
	s, err := m.samples()
	if err != nil {
		return 0, nil, err
	}
	return s.order, s.moments, nil
}

// SampleQuadrature implements forcefield.SampleQuadratureProvider: the 27
// Gauss points of every elaston's box.
func (m *MeshfreeSampler) SampleQuadrature() (offsets, volumes, stiffness []float64, first []int, err error) {
	s, err := m.samples()
	if err != nil {
		return nil, nil, nil, nil, err
	}
	first = []int{0}
	for e := range m.extents {
		for _, q := range boxGauss(m.extents[e], m.axes[e], s.volumes[e]) {
			offsets = append(offsets, q.d[0], q.d[1], q.d[2])
			volumes = append(volumes, q.w)
			stiffness = append(stiffness, 1)
		}
		first = append(first, len(volumes))
	}
	return offsets, volumes, stiffness, first, nil
}

// ElastonExtents returns every elaston's extents h₁ ≥ h₂ ≥ h₃ and their
// directions (the columns of each matrix).
func (m *MeshfreeSampler) ElastonExtents() ([]geom.Vec3, []geom.Mat3, error) {
	if _, err := m.samples(); err != nil {
		return nil, nil, err
	}
	return m.extents, m.axes, nil
}

// Partition returns the material points of each elaston (indices into the
// material point set, in input order).
func (m *MeshfreeSampler) Partition() ([][]int, error) {
	if _, err := m.samples(); err != nil {
		return nil, err
	}
	return m.partition, nil
}

// NodeRadii implements mapping.NodeRadiusProvider: node i's support
// radius is supportFactor × the distance to its supportNeighbours-th
// nearest other node. The default (2 × the 4th) adapts to the form: along
// a rod the 4th neighbour is two spacings away (radius 4 spacings, ~8
// nodes in a support: what the cantilever tests converge with), in a
// shell or a solid one spacing (radius 2 spacings: ~12 nodes in a shell,
// ~30 in a solid) — a single radius would give a solid hundreds.
func (m *MeshfreeSampler) NodeRadii() ([]float64, error) {
	if _, err := m.samples(); err != nil {
		return nil, err
	}
	if len(m.nodes) == 0 {
		return nil, m.Errorf("no nodes placed (nodeCount = 0): give the GMLS mapping a radius")
	}
	k := max(1, m.SupportNeighbours)
	if k >= len(m.nodes) {
		k = len(m.nodes) - 1
	}
	if k < 1 {
		return nil, m.Errorf("one node: give the GMLS mapping a radius")
	}
	tree := newKDTree(m.nodes)
	r := make([]float64, len(m.nodes))
	for i, x := range m.nodes {
		nb := tree.kNearest(x, k+1)
		d := x.Sub(m.nodes[nb[len(nb)-1]]).Norm()
		if d == 0 {
			return nil, m.Errorf("nodes %d and %d are at the same position", i, nb[len(nb)-1])
		}
		r[i] = m.SupportFactor * d
	}
	return r, nil
}

// SampleNodeSpacings implements forcefield.SampleNodeSpacingProvider
// (thinShearStabilization): per elaston the node spacing there, the
// distance from the node nearest its centre to that node's nearest other
// node.
func (m *MeshfreeSampler) SampleNodeSpacings() ([]float64, error) {
	s, err := m.samples()
	if err != nil {
		return nil, err
	}
	if len(m.nodes) < 2 {
		return nil, m.Errorf("node spacings need at least two placed nodes (nodeCount)")
	}
	tree := newKDTree(m.nodes)
	out := make([]float64, len(s.volumes))
	for e := range out {
		i, _ := tree.nearest(geom.At(s.points, e))
		nb := tree.kNearest(m.nodes[i], 2)
		out[e] = m.nodes[i].Sub(m.nodes[nb[len(nb)-1]]).Norm()
	}
	return out, nil
}

// Nodes returns the placed nodes (fixed first).
func (m *MeshfreeSampler) Nodes() ([]geom.Vec3, error) {
	if _, err := m.samples(); err != nil {
		return nil, err
	}
	return m.nodes, nil
}

// LloydIterationsRun returns the Lloyd iterations taken for the nodes and
// for the elastons.
func (m *MeshfreeSampler) LloydIterationsRun() [2]int { return m.lloydRun }

// SampleThinAxes implements forcefield.SampleThinAxesProvider (thinLaw =
// reduced): per elaston 0 (solid), 1 (shell) or 2 (rod) from its
// material points' own thin directions (thinAxesOf: the single-layer
// points that carry a thickness), not from the elaston's aspect — an
// elaston of a rod may be as long as the rod is thick — with its axes:
// the shell's normal in column 2, the rod's axis in column 0.
func (m *MeshfreeSampler) SampleThinAxes() ([]int8, []geom.Mat3, error) {
	if _, err := m.samples(); err != nil {
		return nil, nil, err
	}
	return m.thinKinds, m.thinAxes, nil
}

// ElastonKind names the form of elaston e: "rod" (two extents below a
// third of the largest), "shell" (one) or "solid".
func (m *MeshfreeSampler) ElastonKind(e int) string {
	h := m.extents[e]
	thin := 0
	for a := 1; a < 3; a++ {
		if h[a] < h[0]/3 {
			thin++
		}
	}
	return [3]string{"solid", "shell", "rod"}[thin]
}
