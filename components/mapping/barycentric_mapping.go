package mapping

import (
	"fmt"
	"math"

	"github.com/sofago/sofago/components/topology"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
)

// BarycentricMapping embeds the points of a Vec3 child state in the
// tetrahedral mesh of a Vec3 parent state (SOFA's BarycentricMapping with a
// tetrahedral topology). At Init, each child point, at its rest position,
// is located in the parent's rest mesh: its containing tetrahedron t(i)
// and barycentric coordinates w_i (Σ_j w_ij = 1). From then on
//
//	x_i = Σ_j w_ij x_{t(i)_j}
//
// a linear map with constant weights, so J is exact (ApplyJ is the same
// sum on velocities), Jᵀ scatters f_i·w_ij back to the four vertices, and
// the geometric stiffness is zero.
//
// A point outside every tetrahedron (a visual surface slightly outside a
// coarse simulation mesh) is attached to the nearest tetrahedron (smallest
// Euclidean distance) with its extrapolated barycentric coordinates (some
// negative, still summing to 1): it moves with the affine deformation of
// that tetrahedron. A point on a tetrahedron vertex gets the weight 1 on that
// vertex exactly (weights below 1e-12 are set to zero and the largest takes
// the remainder), so it follows the vertex bit for bit.
//
// Hexahedra (a parent topology serving graph.HexahedronTopology) embed
// points trilinearly: a point in hexahedron h gets the weights Nₐ(ξ) of
// its reference coordinates ξ (x(ξ) = p solved by Newton's method from
// the point's position in the hexahedron's Kuhn tetrahedra, to 1e-14 of
// the element size), so x_i = Σₐ Nₐ(ξ_i) x_{h(i)ₐ}: exact J, zero
// geometric stiffness, and a point on a vertex follows it bit for bit. A
// topology may serve both kinds; each point goes to the cell containing
// it (else the nearest, extrapolated).
//
// Polyhedra (a PolyhedralTopology: convex cells with harmonic shape
// functions) embed points with the cell's shape functions: a point gets
// the weights Nₐ(x) of the cell containing it, projected so that they
// sum to 1 and reproduce x; a point outside every cell gets, in the cell
// whose face planes it is least outside of, the minimum-norm weights
// that reproduce linear functions (polyfem.Mesh.LinearWeights: the
// fundamental solutions themselves blow up towards their kernel centres
// outside the cell). Affine motions are mapped exactly either way, and a
// point on a vertex follows it to the accuracy of the shape functions'
// fit (not bit for bit).
//
// The parent's cells come from the `topology` link, or from the
// topology of the parent state's node (or its nearest ancestor). Points
// are located with a uniform grid over the cells' bounding boxes:
// O(1) per point inside the mesh, a growing ring search outside it.
type BarycentricMapping struct {
	graph.ObjectBase
	MappingIO
	Topology graph.Link `toml:"topology" doc:"tetrahedral topology of the input state (default: the topology of the input state's node, or of its nearest ancestor)"`

	// idx[k·i:k·i+k] are the parent vertices of child point i,
	// w[k·i:k·i+k] their weights; k = 4 on tetrahedra, 8 when the parent
	// has hexahedra (a point in a tetrahedron then has four zero weights).
	idx     []int32
	w       []float64
	k       int
	numTets int     // cells below numTets are tetrahedra
	count   []int32 // weights per point on polyhedra (nil otherwise)
	tet     []int32 // parent cell of each child point (tetrahedra, then hexahedra)

	outside int     // child points outside every tetrahedron
	maxDist float64 // largest distance of such a point to its tetrahedron
}

func init() {
	graph.Register(graph.TypeInfo{
		Name:    "BarycentricMapping",
		Kind:    graph.KindMapping,
		Summary: "Embeds the points of a Vec3 child state (a visual surface, contact points) in the tetrahedral mesh of a Vec3 parent: each point follows its rest tetrahedron with fixed barycentric coordinates (the nearest tetrahedron, extrapolated, for points outside the mesh). Linear: exact J, zero geometric stiffness.",
		New:     func() graph.Object { return &BarycentricMapping{MappingIO: MappingIO{Mechanical: true}} },
	})
}

// baryZero is the weight below which a barycentric coordinate is set to
// zero: a point within 1e-12 (relative to the tetrahedron) of a vertex,
// edge or face is put exactly on it, so that points placed on the parent's
// vertices follow them bit for bit instead of to rounding.
const baryZero = 1e-12

// Init resolves the states and the parent topology, locates every child
// rest point in the parent's rest mesh, and maps the rest position and the
// position onto the child.
func (m *BarycentricMapping) Init() error {
	if err := m.resolve(&m.ObjectBase); err != nil {
		return m.Wrap(err)
	}
	if name := m.from.Template().Name(); name != graph.Vec3.Name() {
		return m.Errorf("input state %q has template %s; BarycentricMapping needs Vec3", m.from.Base().Path(), name)
	}
	if name := m.to.Template().Name(); name != graph.Vec3.Name() {
		return m.Errorf("output state %q has template %s; BarycentricMapping needs Vec3", m.to.Base().Path(), name)
	}
	topo, err := m.parentTopology()
	if err != nil {
		return m.Wrap(err)
	}
	tets := topo.Tetrahedra()
	hexes := graph.HexahedraOf(topo)
	np := m.from.Size()
	if bp, ok := topo.(topology.BasisProvider); ok && len(bp.Polyhedra()) > 0 {
		if len(topo.Points()) != 3*np {
			return m.Errorf("topology %q has %d points but the input state %q has %d DOFs; they must be the same points", topo.Base().Path(), len(topo.Points())/3, m.from.Base().Path(), np)
		}
		if m.to.Size() == 0 {
			return m.Errorf("the output state %q has no points to embed", m.to.Base().Path())
		}
		if err := m.locatePolyhedra(bp, m.to.Vec(graph.RestPosition)); err != nil {
			return m.Wrap(err)
		}
		applyRestAndPosition(m)
		return nil
	}
	if len(tets) == 0 && len(hexes) == 0 {
		return m.Errorf("topology %q of the input state has no tetrahedra or hexahedra; BarycentricMapping embeds points in a volume mesh", topo.Base().Path())
	}
	if len(topo.Points()) != 3*np {
		return m.Errorf("topology %q has %d points but the input state %q has %d DOFs; they must be the same points", topo.Base().Path(), len(topo.Points())/3, m.from.Base().Path(), np)
	}
	for e, t := range tets {
		for _, v := range t {
			if v < 0 || v >= np {
				return m.Errorf("tetrahedron %d of topology %q has vertex %d outside the %d points", e, topo.Base().Path(), v, np)
			}
		}
	}
	for e, h := range hexes {
		for _, v := range h {
			if v < 0 || v >= np {
				return m.Errorf("hexahedron %d of topology %q has vertex %d outside the %d points", e, topo.Base().Path(), v, np)
			}
		}
	}
	nc := m.to.Size()
	if nc == 0 {
		return m.Errorf("the output state %q has no points to embed; give its node a surface (a VisualModel with a filename, a MeshLoader) or positions", m.to.Base().Path())
	}
	if err := m.locate(tets, hexes, m.from.Vec(graph.RestPosition), m.to.Vec(graph.RestPosition)); err != nil {
		return m.Wrap(err)
	}
	applyRestAndPosition(m)
	return nil
}

// parentTopology returns the topology the input state's points belong to.
func (m *BarycentricMapping) parentTopology() (graph.Topology, error) {
	if m.Topology.IsSet() {
		if t, ok := m.Topology.Object.(graph.Topology); ok {
			return t, nil
		}
		if m.Topology.Object == nil && m.Topology.Node != nil {
			if t := m.Topology.Node.Topology(); t != nil {
				return t, nil
			}
		}
		return nil, fmt.Errorf("topology %q is not a topology", m.Topology.Path)
	}
	n := m.from.Base().Node
	if n == nil {
		return nil, fmt.Errorf("the input state %q is in no node; set topology = \"@path/to/topology\"", m.from.Base().Path())
	}
	t := n.Topology()
	if t == nil {
		return nil, fmt.Errorf("no topology for the input state %q (none in its node or above); BarycentricMapping needs its tetrahedra", m.from.Base().Path())
	}
	return t, nil
}

// locate computes, for every child rest point, its parent cell and
// weights in the rest mesh x0. Hexahedra are located through their six
// Kuhn tetrahedra, then given trilinear weights.
func (m *BarycentricMapping) locate(tets [][4]int, hexes [][8]int, x0, childRest []float64) error {
	nc := len(childRest) / 3
	loc := tets
	if len(hexes) > 0 {
		loc = append(append([][4]int(nil), tets...), hexKuhnTets(hexes)...)
	}
	tl, err := newTetLocator(loc, x0)
	if err != nil {
		return err
	}
	m.k, m.numTets, m.count = 4, len(tets), nil
	if len(hexes) > 0 {
		m.k = 8
	}
	k := m.k
	m.idx = make([]int32, k*nc)
	m.w = make([]float64, k*nc)
	m.tet = make([]int32, nc)
	m.outside, m.maxDist = 0, 0
	for i := 0; i < nc; i++ {
		p := geom.At(childRest, i)
		e, w, dist := tl.find(p)
		if e < 0 {
			return fmt.Errorf("child point %d at %v: no cell of the input mesh to attach it to", i, p)
		}
		if dist > 0 {
			m.outside++
			m.maxDist = math.Max(m.maxDist, dist)
		}
		if e < len(tets) {
			snapWeights(&w)
			m.tet[i] = int32(e)
			for j := 0; j < 4; j++ {
				m.idx[k*i+j] = int32(tets[e][j])
				m.w[k*i+j] = w[j]
			}
			continue
		}
		hx := (e - len(tets)) / 6
		h := hexes[hx]
		// Starting point: the reference coordinates of the point's
		// barycentric combination of the Kuhn tetrahedron's corners.
		kt := hexKuhn[(e-len(tets))%6]
		var xi geom.Vec3
		for j := 0; j < 4; j++ {
			xi = xi.Add(geom.HexRef[kt[j]].Scale(w[j]))
		}
		var n [8]float64
		if xi, ok := trilinearCoordinates(x0, h, p, xi); ok {
			n = geom.HexShape(xi)
		} else {
			// Far outside a distorted hexahedron the trilinear map may
			// fold and Newton fail: the point then follows the Kuhn
			// tetrahedron it was attached to, linearly.
			for j := 0; j < 4; j++ {
				n[kt[j]] = w[j]
			}
		}
		snapHexWeights(&n)
		m.tet[i] = int32(len(tets) + hx)
		for j := 0; j < 8; j++ {
			m.idx[k*i+j] = int32(h[j])
			m.w[k*i+j] = n[j]
		}
	}
	return nil
}

// locatePolyhedra embeds every child rest point in the polyhedral mesh of
// bp with its shape function weights (stride: the largest cell's node
// count, shorter cells padded with zero weights).
func (m *BarycentricMapping) locatePolyhedra(bp topology.BasisProvider, childRest []float64) error {
	basis, err := bp.HarmonicBasis()
	if err != nil {
		return err
	}
	mesh := bp.Mesh()
	k := 0
	lo := make([]geom.Vec3, len(basis))
	hi := make([]geom.Vec3, len(basis))
	for e, b := range basis {
		k = max(k, len(b.Nodes))
		lo[e] = geom.At(mesh.Points, b.Nodes[0])
		hi[e] = lo[e]
		for _, v := range b.Nodes {
			p := geom.At(mesh.Points, v)
			for a := 0; a < 3; a++ {
				lo[e][a] = math.Min(lo[e][a], p[a])
				hi[e][a] = math.Max(hi[e][a], p[a])
			}
		}
	}
	nc := len(childRest) / 3
	m.k, m.numTets = k, 0
	m.count = make([]int32, nc)
	m.idx = make([]int32, k*nc)
	m.w = make([]float64, k*nc)
	m.tet = make([]int32, nc)
	m.outside, m.maxDist = 0, 0
	for i := 0; i < nc; i++ {
		p := geom.At(childRest, i)
		best, bestD := -1, math.Inf(1)
		for e := range basis {
			in := true
			for a := 0; a < 3; a++ {
				in = in && p[a] >= lo[e][a]-1e-9 && p[a] <= hi[e][a]+1e-9
			}
			if !in && bestD <= 0 {
				continue // a containing cell is known; this one's box misses p
			}
			if d := mesh.OutsideDistance(e, p); d < bestD {
				best, bestD = e, d
			}
		}
		b := basis[best]
		scale := hi[best].Sub(lo[best]).Norm()
		if bestD > 1e-12*scale {
			m.outside++
			m.maxDist = math.Max(m.maxDist, bestD)
		}
		var w []float64
		if bestD > 1e-12*scale {
			w = mesh.LinearWeights(b, p)
		} else {
			w = mesh.ShapeValues(b, p)
		}
		m.tet[i] = int32(best)
		m.count[i] = int32(len(b.Nodes))
		for j, v := range b.Nodes {
			m.idx[k*i+j] = int32(v)
			m.w[k*i+j] = w[j]
		}
	}
	return nil
}

// hexKuhn lists the Kuhn tetrahedra of a hexahedron as VTK corner
// numbers (kuhnCorners of package topology, whose grid corner numbers
// b = bx + 2by + 4bz map to VTK corners by 0,1,3,2,4,5,7,6).
var hexKuhn = func() (out [6][4]int) {
	kuhn := [6][4]int{{0, 1, 3, 7}, {0, 1, 7, 5}, {0, 2, 7, 3}, {0, 2, 6, 7}, {0, 4, 5, 7}, {0, 4, 7, 6}}
	vtk := [8]int{0, 1, 3, 2, 4, 5, 7, 6}
	for s, t := range kuhn {
		for j, b := range t {
			out[s][j] = vtk[b]
		}
	}
	return out
}()

// hexKuhnTets returns the six Kuhn tetrahedra of every hexahedron, in
// order (tetrahedron 6h + s belongs to hexahedron h).
func hexKuhnTets(hexes [][8]int) [][4]int {
	out := make([][4]int, 0, 6*len(hexes))
	for _, h := range hexes {
		for _, t := range hexKuhn {
			out = append(out, [4]int{h[t[0]], h[t[1]], h[t[2]], h[t[3]]})
		}
	}
	return out
}

// trilinearCoordinates solves x(ξ) = p for the reference coordinates ξ of
// p in hexahedron h (rest points x0) by Newton's method from xi, to
// 1e-14 of the element's size in at most 50 iterations (from the Kuhn
// estimate Newton converges in a few steps inside the element; outside
// it extrapolates the same polynomial map). It reports false when Newton
// does not converge or leaves |ξ| ≤ 10 (the map folds far outside a
// distorted element).
func trilinearCoordinates(x0 []float64, h [8]int, p, xi geom.Vec3) (geom.Vec3, bool) {
	size := geom.At(x0, h[6]).Sub(geom.At(x0, h[0])).Norm()
	for it := 0; it < 50; it++ {
		r := p.Sub(geom.HexMap(x0, h, xi))
		if r.Norm() <= 1e-14*size {
			return xi, true
		}
		inv, ok := geom.HexJacobian(x0, h, xi).Inverse()
		if !ok || xi.Norm() > 10 {
			return xi, false
		}
		xi = xi.Add(inv.MulVec(r))
	}
	return xi, false
}

// snapHexWeights sets trilinear weights within baryZero of zero to zero
// and lets the largest take the remainder, as snapWeights does, so a
// point on a vertex has the weight 1 there exactly.
func snapHexWeights(w *[8]float64) {
	big := 0
	for j := 1; j < 8; j++ {
		if w[j] > w[big] {
			big = j
		}
	}
	rest := 0.0
	for j := 0; j < 8; j++ {
		if j == big {
			continue
		}
		if math.Abs(w[j]) < baryZero {
			w[j] = 0
		}
		rest += w[j]
	}
	w[big] = 1 - rest
}

// snapWeights sets weights within baryZero of zero to zero and lets the
// largest take the remainder, so Σ w = 1 still holds (to rounding) and a
// point on a vertex has the weights (1, 0, 0, 0) exactly.
func snapWeights(w *[4]float64) {
	big := 0
	for j := 1; j < 4; j++ {
		if w[j] > w[big] {
			big = j
		}
	}
	rest := 0.0
	for j := 0; j < 4; j++ {
		if j == big {
			continue
		}
		if math.Abs(w[j]) < baryZero {
			w[j] = 0
		}
		rest += w[j]
	}
	w[big] = 1 - rest
}

// Outside reports how many child points lie outside every tetrahedron of
// the rest mesh, and the largest distance of one of them to the
// tetrahedron it was attached to.
func (m *BarycentricMapping) Outside() (count int, maxDistance float64) { return m.outside, m.maxDist }

// Embedding returns the parent tetrahedron (index into the topology's
// tetrahedra), its vertices and the barycentric weights of child point i
// (for a parent with hexahedra, the first four of EmbeddingCell's).
func (m *BarycentricMapping) Embedding(i int) (tet int, vertices [4]int, weights [4]float64) {
	for j := 0; j < 4; j++ {
		vertices[j] = int(m.idx[m.k*i+j])
		weights[j] = m.w[m.k*i+j]
	}
	return int(m.tet[i]), vertices, weights
}

// EmbeddingCell returns the parent cell of child point i (the topology's
// tetrahedra numbered first, then its hexahedra; or its polyhedra), its
// vertices and weights (4 for a tetrahedron, 8 for a hexahedron, the
// cell's vertex count for a polyhedron).
func (m *BarycentricMapping) EmbeddingCell(i int) (cell int, vertices []int, weights []float64) {
	k := m.k
	n := 8
	switch {
	case m.count != nil:
		n = int(m.count[i])
	case int(m.tet[i]) < m.numTets:
		n = 4 // a tetrahedron (padded with zero weights in a mixed mesh)
	}
	for j := 0; j < n; j++ {
		vertices = append(vertices, int(m.idx[k*i+j]))
		weights = append(weights, m.w[k*i+j])
	}
	return int(m.tet[i]), vertices, weights
}

// Apply implements graph.Mapping: x_i = Σ_j w_ij x_{t(i)_j}.
func (m *BarycentricMapping) Apply(childX, parentX []float64) { m.interpolate(childX, parentX) }

// ApplyJ implements graph.Mapping: v_i = Σ_j w_ij v_{t(i)_j}.
func (m *BarycentricMapping) ApplyJ(childV, parentV []float64) { m.interpolate(childV, parentV) }

func (m *BarycentricMapping) interpolate(child, parent []float64) {
	idx, w := m.idx, m.w
	if m.k != 4 {
		k := m.k
		for i := 0; i < len(w)/k; i++ {
			var x, y, z float64
			for j := k * i; j < k*i+k; j++ {
				a, wj := 3*int(idx[j]), w[j]
				x += wj * parent[a]
				y += wj * parent[a+1]
				z += wj * parent[a+2]
			}
			out := child[3*i : 3*i+3 : 3*i+3]
			out[0], out[1], out[2] = x, y, z
		}
		return
	}
	for i := 0; i < len(w)/4; i++ {
		a, b, c, d := 3*int(idx[4*i]), 3*int(idx[4*i+1]), 3*int(idx[4*i+2]), 3*int(idx[4*i+3])
		wa, wb, wc, wd := w[4*i], w[4*i+1], w[4*i+2], w[4*i+3]
		out := child[3*i : 3*i+3 : 3*i+3]
		out[0] = wa*parent[a] + wb*parent[b] + wc*parent[c] + wd*parent[d]
		out[1] = wa*parent[a+1] + wb*parent[b+1] + wc*parent[c+1] + wd*parent[d+1]
		out[2] = wa*parent[a+2] + wb*parent[b+2] + wc*parent[c+2] + wd*parent[d+2]
	}
}

// ApplyJT implements graph.Mapping: f_{t(i)_j} += w_ij f_i.
func (m *BarycentricMapping) ApplyJT(parentF, childF []float64) {
	idx, w, k := m.idx, m.w, m.k
	for i := 0; i < len(w)/k; i++ {
		fx, fy, fz := childF[3*i], childF[3*i+1], childF[3*i+2]
		for j := k * i; j < k*i+k; j++ {
			v, wj := 3*int(idx[j]), w[j]
			parentF[v] += wj * fx
			parentF[v+1] += wj * fy
			parentF[v+2] += wj * fz
		}
	}
}

// ApplyDJT implements graph.Mapping: J is constant, so nothing is added.
func (m *BarycentricMapping) ApplyDJT(parentDf, parentDx, childF []float64, kFactor float64) {}

// tetLocator finds the tetrahedron containing a point (or the nearest one)
// with a uniform grid whose cells list the tetrahedra whose bounding boxes
// overlap them.
type tetLocator struct {
	tets  [][4]int
	x     []float64
	inv   []geom.Mat3 // inverse of [p1−p0, p2−p0, p3−p0]; ok[e] false when degenerate
	ok    []bool
	lo    geom.Vec3
	h     geom.Vec3
	n     [3]int
	cells [][]int32
	seen  []int32 // stamp per tetrahedron of the last query that measured it
	query int32
}

func newTetLocator(tets [][4]int, x []float64) (*tetLocator, error) {
	l := &tetLocator{tets: tets, x: x, inv: make([]geom.Mat3, len(tets)), ok: make([]bool, len(tets)), seen: make([]int32, len(tets))}
	lo := geom.Vec3{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi := lo.Scale(-1)
	good := 0
	meanEdge := 0.0
	for e, t := range tets {
		p0 := geom.At(x, t[0])
		d := geom.Cols(geom.At(x, t[1]).Sub(p0), geom.At(x, t[2]).Sub(p0), geom.At(x, t[3]).Sub(p0))
		scale := d.Col(0).Norm() + d.Col(1).Norm() + d.Col(2).Norm()
		// A tetrahedron flatter than 1e-12 of its edge lengths cubed has no
		// usable barycentric coordinates.
		if det := d.Det(); math.Abs(det) > 1e-12*scale*scale*scale/27 {
			l.inv[e], l.ok[e] = d.Inverse()
		}
		if !l.ok[e] {
			continue
		}
		good++
		meanEdge += scale / 3
		for _, v := range t {
			p := geom.At(x, v)
			for a := 0; a < 3; a++ {
				lo[a] = math.Min(lo[a], p[a])
				hi[a] = math.Max(hi[a], p[a])
			}
		}
	}
	if good == 0 {
		return nil, fmt.Errorf("every one of the %d tetrahedra of the input mesh is degenerate (flat)", len(tets))
	}
	meanEdge /= float64(good)
	// Cells about the size of a tetrahedron, at most ~64 per axis so the
	// grid stays small for any mesh.
	for a := 0; a < 3; a++ {
		ext := hi[a] - lo[a]
		l.n[a] = max(1, min(64, int(math.Ceil(ext/meanEdge))))
		l.h[a] = ext / float64(l.n[a])
		if l.h[a] == 0 {
			l.h[a] = 1
		}
	}
	l.lo = lo
	l.cells = make([][]int32, l.n[0]*l.n[1]*l.n[2])
	for e, t := range tets {
		if !l.ok[e] {
			continue
		}
		bl, bh := geom.At(x, t[0]), geom.At(x, t[0])
		for _, v := range t[1:] {
			p := geom.At(x, v)
			for a := 0; a < 3; a++ {
				bl[a] = math.Min(bl[a], p[a])
				bh[a] = math.Max(bh[a], p[a])
			}
		}
		c0, c1 := l.cellOf(bl), l.cellOf(bh)
		for i := c0[0]; i <= c1[0]; i++ {
			for j := c0[1]; j <= c1[1]; j++ {
				for k := c0[2]; k <= c1[2]; k++ {
					c := l.flat(i, j, k)
					l.cells[c] = append(l.cells[c], int32(e))
				}
			}
		}
	}
	return l, nil
}

func (l *tetLocator) cellOf(p geom.Vec3) [3]int {
	var c [3]int
	for a := 0; a < 3; a++ {
		c[a] = min(max(int(math.Floor((p[a]-l.lo[a])/l.h[a])), 0), l.n[a]-1)
	}
	return c
}

func (l *tetLocator) flat(i, j, k int) int { return (i*l.n[1]+j)*l.n[2] + k }

// bary returns the barycentric coordinates of p in tetrahedron e.
func (l *tetLocator) bary(e int, p geom.Vec3) [4]float64 {
	t := l.tets[e]
	r := l.inv[e].MulVec(p.Sub(geom.At(l.x, t[0])))
	return [4]float64{1 - r[0] - r[1] - r[2], r[0], r[1], r[2]}
}

// find returns the tetrahedron containing p (the most interior one when p
// is on a shared face) with distance 0, or else the nearest tetrahedron and
// its distance to p; with the barycentric coordinates of p in it.
func (l *tetLocator) find(p geom.Vec3) (tet int, w [4]float64, dist float64) {
	// Inside: the containing tetrahedron's box holds p, so it is listed in
	// p's cell. A coordinate down to −1e-12 counts as inside (rounding on
	// a shared face).
	best, bestMin := -1, -1e-12
	c := l.cellOf(p)
	for _, e := range l.cells[l.flat(c[0], c[1], c[2])] {
		b := l.bary(int(e), p)
		if mn := min(b[0], b[1], b[2], b[3]); mn >= bestMin && (best < 0 || mn > bestMin) {
			best, bestMin, w = int(e), mn, b
		}
	}
	if best >= 0 {
		return best, w, 0
	}
	// Outside: search rings of cells of growing Chebyshev radius k around
	// p's (clamped) cell. A tetrahedron listed in no cell of the block
	// B_k lies entirely outside it, so its distance to p is at least the
	// distance from p to the nearest face of B_k that is not on the grid's
	// boundary; stop once the best distance found is within that bound.
	l.query++
	bestD := math.Inf(1)
	for k := 0; ; k++ {
		var lo, hi [3]int
		for a := 0; a < 3; a++ {
			lo[a], hi[a] = max(c[a]-k, 0), min(c[a]+k, l.n[a]-1)
		}
		for i := lo[0]; i <= hi[0]; i++ {
			for j := lo[1]; j <= hi[1]; j++ {
				for kk := lo[2]; kk <= hi[2]; kk++ {
					if k > 0 && abs(i-c[0]) < k && abs(j-c[1]) < k && abs(kk-c[2]) < k {
						continue // inner cell, visited at a smaller k
					}
					for _, e := range l.cells[l.flat(i, j, kk)] {
						if l.seen[e] == l.query {
							continue
						}
						l.seen[e] = l.query
						if d := l.distance(int(e), p); d < bestD || (d == bestD && int(e) < best) {
							best, bestD = int(e), d
						}
					}
				}
			}
		}
		bound := math.Inf(1)
		for a := 0; a < 3; a++ {
			if c[a]-k > 0 {
				bound = math.Min(bound, p[a]-(l.lo[a]+float64(c[a]-k)*l.h[a]))
			}
			if c[a]+k < l.n[a]-1 {
				bound = math.Min(bound, l.lo[a]+float64(c[a]+k+1)*l.h[a]-p[a])
			}
		}
		if math.IsInf(bound, 1) || (best >= 0 && bestD <= bound) {
			break
		}
	}
	if best < 0 {
		return -1, w, 0
	}
	return best, l.bary(best, p), bestD
}

func abs(i int) int {
	if i < 0 {
		return -i
	}
	return i
}

// distance returns the Euclidean distance from p to tetrahedron e: zero
// inside, else the distance to the nearest of its four faces.
func (l *tetLocator) distance(e int, p geom.Vec3) float64 {
	b := l.bary(e, p)
	if b[0] >= 0 && b[1] >= 0 && b[2] >= 0 && b[3] >= 0 {
		return 0
	}
	t := l.tets[e]
	v := [4]geom.Vec3{geom.At(l.x, t[0]), geom.At(l.x, t[1]), geom.At(l.x, t[2]), geom.At(l.x, t[3])}
	d := math.Inf(1)
	for _, f := range [4][3]int{{1, 2, 3}, {0, 2, 3}, {0, 1, 3}, {0, 1, 2}} {
		q := closestPointOnTriangle(p, v[f[0]], v[f[1]], v[f[2]])
		d = math.Min(d, p.Sub(q).Norm())
	}
	return d
}

// closestPointOnTriangle returns the point of triangle abc nearest to p
// (Ericson, Real-Time Collision Detection, §5.1.5: Voronoi regions of the
// vertices, edges and face).
func closestPointOnTriangle(p, a, b, c geom.Vec3) geom.Vec3 {
	ab, ac, ap := b.Sub(a), c.Sub(a), p.Sub(a)
	d1, d2 := ab.Dot(ap), ac.Dot(ap)
	if d1 <= 0 && d2 <= 0 {
		return a
	}
	bp := p.Sub(b)
	d3, d4 := ab.Dot(bp), ac.Dot(bp)
	if d3 >= 0 && d4 <= d3 {
		return b
	}
	vc := d1*d4 - d3*d2
	if vc <= 0 && d1 >= 0 && d3 <= 0 {
		return a.Add(ab.Scale(d1 / (d1 - d3)))
	}
	cp := p.Sub(c)
	d5, d6 := ab.Dot(cp), ac.Dot(cp)
	if d6 >= 0 && d5 <= d6 {
		return c
	}
	vb := d5*d2 - d1*d6
	if vb <= 0 && d2 >= 0 && d6 <= 0 {
		return a.Add(ac.Scale(d2 / (d2 - d6)))
	}
	va := d3*d6 - d5*d4
	if va <= 0 && d4-d3 >= 0 && d5-d6 >= 0 {
		return b.Add(c.Sub(b).Scale((d4 - d3) / ((d4 - d3) + (d5 - d6))))
	}
	denom := 1 / (va + vb + vc)
	v, w := vb*denom, vc*denom
	return a.Add(ab.Scale(v)).Add(ac.Scale(w))
}
