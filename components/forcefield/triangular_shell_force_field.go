package forcefield

import (
	"errors"
	"fmt"
	"math"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/parallel"
)

// TriangularShellForceField is a thin (Kirchhoff–Love) shell on a triangle
// surface of Vec3 points, rotation-free: the resultant-based shell of the
// lecture notes ("Resultant-based Formulations", Sec. II),
//
//	W = Σ_T A_T h/2 ε:C:ε  +  Σ_v A_v Σ_{T∋v} β_T h³/24 (κ_T−κ₀_T):C:(κ_T−κ₀_T),
//
// with the plane-stress C = E/(1−ν²)[(1−ν)𝕀 + ν 1⊗1]: one membrane
// strain ε per triangle T (rest area A_T) and, per vertex v, one fitted
// second derivative read along the normal of each triangle of its ring
// (A_v: its mixed Voronoi area at rest; β_T: the triangle's share of the
// ring's rest area; h: the thickness).
//
// Membrane: the Green–Lagrange strain of the constant-strain triangle,
// ε = ½(FᵀF − I) with F = ∂x/∂X the 3×2 deformation gradient over the
// triangle's rest coordinates X (a St Venant–Kirchhoff membrane): exact
// under rigid motions of any size, correct for large rotations with small
// strains.
//
// Bending: rotation-free, from a quadratic fitted about each vertex. At
// Init every vertex gets a stencil — itself, its neighbours, and the
// vertices across the outer edges of its ring of triangles that are no
// farther than the ring's longest edge (all of them when that makes fewer
// than six points) — and rest tangent-plane coordinates X of the stencil
// (projection on the plane normal to the vertex's rest normal). The least-
// squares quadratic q(X) = c₀ + c·X + ½XᵀHX through the stencil (subject
// to the boundary conditions below) is linear in the data, so its Hessian
// is a fixed combination H = Σ_p w_p x_p (+ a constant on clamped edges).
// In the current configuration the curvature is the Hessian of the fitted
// height above the vertex's tangent plane,
//
//	κ_T,αβ = n_T · (Σ_p w_pαβ x_p + g_αβ),   n_T = m_T / |m_T|,
//
// m_T = (x₁−x₀)×(x₂−x₀) for each triangle T of the vertex's ring
// (oriented alike), κ₀_T the same at rest; the vertex's energy is the
// β_T-weighted mean over its ring. The fit reproduces quadratic surfaces
// exactly (so constant curvature is exact: the plate patch test), Σ_p w_p
// = 0 and κ is made of dot products, so rigid motions of any size leave κ
// unchanged. Each triangle's own normal, not the normalised sum of the
// ring's: where a ring folds sharply (a draped sheet's free edge) that sum
// nearly cancels (|Σ m_T| fell to 0.13 Σ|m_T| in shell_drape.toml) and the
// derivatives of the normal, ∝ 1/|Σ m_T|, blow up; |m_T| stays twice the
// triangle's area. On a flat rest mesh n_T = t at rest: the linear plate
// results are those of the summed normal.
// Vertex-centred stencils matter: a curvature per triangle from the
// triangle and its three neighbours (the basic shell triangle) gives an
// oscillating field — heights ±1 on a checkerboard of vertices — the same
// curvature in every triangle, which then cancels the smooth curvature
// and converges to a plate 73% too soft on a checkerboard mesh; about a
// vertex the same field has curvature of alternating sign. Vertex areas
// must not alternate either (barycentric areas, 2:1 on a checkerboard
// mesh, left the plate 8% too soft): they are mixed Voronoi areas.
//
// The energy, forces −∂W/∂x and the tangent K = ∂f/∂x are exact (the
// tangent includes the second derivatives of the unit normal).
// tangent = "definite" keeps the forces and replaces K by a positive
// semi-definite one: the membrane's stress term with the compressive part
// of the membrane stress dropped, the bending's Gauss–Newton part only
// (its stress term is indefinite). For implicit time stepping through
// buckling and folding: a compressed membrane's exact negative stiffness
// (the driver of buckling) can make M − h²K singular, then indefinite —
// in shell_drape.toml at dt = 2 ms its triangles' stiffnesses reached
// −240 N/m at 4% compression and at t = 0.332 s one solve threw points
// (the shell's energy jumped from 1.2 to 11.8 J) before the factorisation
// met a negative pivot. Implicit Euler is then linearly implicit with a
// tangent that is not the exact one (equal to it at rest, so linear
// results are unchanged).
//
// Boundaries: at a vertex on the boundary (edges with one triangle), the
// fit is constrained by one condition per boundary direction (two edges
// meeting at less than 30° count as one direction, their mean normal):
//
//   - free (default): the natural condition of a free or simply supported
//     edge, no bending moment across it: H_nn + ν H_tt = 0 (n across the
//     edge, t along it). Rotation about the edge is free. A simply
//     supported edge is a free edge whose points are held (FixedConstraint
//     or a projective constraint on their displacements).
//   - clamped (edges inside a box of clampedBoxes): the stencil is
//     mirrored across the edge (ghost points x_g = M x_p + (I − M) x_v,
//     M = I − 2nnᵀ in the rest frame), so the fitted surface leaves the
//     edge at its rest slope (in the world frame). Rotation about the
//     edge is fixed; hold the edge's points too (FixedConstraint). With
//     the points free along it, the edge is a symmetry plane.
//
// method = "small" replaces W by its quadratic expansion at rest, ½ uᵀK₀u
// (linear shell theory: the linear benchmarks; not invariant under
// rotations). Every edge must be shared by at most two triangles;
// triangles may be oriented either way.
type TriangularShellForceField struct {
	graph.ObjectBase
	YoungModulus float64     `toml:"youngModulus" doc:"Young's modulus E" unit:"Pa" range:"(0,inf)" required:"true"`
	PoissonRatio float64     `toml:"poissonRatio" doc:"Poisson's ratio ν (plane stress)" range:"(-1,0.5)"`
	Thickness    float64     `toml:"thickness" doc:"shell thickness h (membrane stiffness ∝ h, bending ∝ h³)" unit:"m" range:"(0,inf)" required:"true"`
	Thicknesses  []float64   `toml:"thicknesses" doc:"optional thickness per triangle of the topology, in its order (overrides thickness; a vertex bends with the area-weighted mean of its triangles')" unit:"m" range:"(0,inf)"`
	Membrane     bool        `toml:"membrane" doc:"include the membrane (stretch and in-plane shear) energy"`
	Bending      bool        `toml:"bending" doc:"include the bending energy"`
	Method       string      `toml:"method" doc:"large: geometrically exact (any rotation); small: linearised at rest (W = ½ uᵀK₀u, K₀ the tangent at rest: linear shell theory, for linear benchmarks; not invariant under rotations)" enum:"large,small"`
	Tangent      string      `toml:"tangent" doc:"exact: K = ∂f/∂x; definite: a positive semi-definite K for implicit time stepping through buckling and folding (membrane stress term with the compressive part of the stress dropped, bending without its stress term; forces unchanged)" enum:"exact,definite"`
	ClampedBoxes [][]float64 `toml:"clampedBoxes" doc:"boxes [xmin, ymin, zmin, xmax, ymax, zmax]: boundary edges with both rest end points inside one are clamped (rotation about the edge held at rest); other boundary edges are free (no moment: free or simply supported)" unit:"m"`

	state graph.State
	cm    [3][3]float64 // E/(1−ν²) [[1, ν, 0], [ν, 1, 0], [0, 0, (1−ν)/2]]
	tris  []shellTri
	pats  []shellPatch
	units []shellUnit
	nodes []int32 // the points of every unit, unit u's at nodes[u.slot : u.slot+u.n]

	runner parallel.Runner
	// per unit at the last AddForce
	fLoc []float64 // 3 per slot
	kLoc []float64 // (3n)² per unit, row-major, K = ∂f/∂x
	wLoc []float64
	dLoc []float64 // 3 per slot (AddDForce)
	x    []float64

	start, slots []int32 // vertex → slots
	blocks       []int32
	blockK       []int // per block: offset of its top-left entry in kLoc
	blockRow     []int // per block: the row stride (3n)
	scratchF     []float64
	rest         []float64 // method = small: the rest positions (K₀ is in kLoc)
}

// shellUnit is a membrane triangle (tri ≥ 0) or a bending patch (pat ≥ 0).
type shellUnit struct {
	slot, n  int32
	tri, pat int32
	koff     int
}

// shellTri is one membrane triangle.
type shellTri struct {
	area, h float64
	gm      [3][2]float64 // ∂N_a/∂X_α of the corners
}

// shellPatch is one vertex's bending stencil (its points are its unit's
// nodes, the vertex first).
type shellPatch struct {
	ring    [][3]int32 // the vertex's triangles, local point indices, oriented alike
	area, h float64
	w       [3][]geom.Mat3 // H_s = Σ_p w[s][p] x_p + g[s], s = XX, YY, XY (multiples of I but at clamped edges)
	g       [3]geom.Vec3
	k0      [][3]float64 // per ring triangle: n_T · H_s at rest
	beta    []float64    // per ring triangle: its share of the ring's rest area (Σ = 1)
	e1, e2  geom.Vec3    // rest tangent axes (world)
	iso     bool         // every w[s][p] is a multiple of I
}

func init() {
	graph.Register(graph.TypeInfo{
		Name: "TriangularShellForceField",
		Kind: graph.KindForceField,
		Summary: "Thin shell on a triangle surface of Vec3 points, rotation-free: Green–Lagrange membrane (CST) and bending from a quadratic fitted about each vertex; " +
			"free/simply supported or clamped edges; energy and exact tangent.",
		New: func() graph.Object {
			return &TriangularShellForceField{PoissonRatio: 0.3, Membrane: true, Bending: true, Method: "large", Tangent: "exact"}
		},
	})
}

// Validate checks the boxes.
func (c *TriangularShellForceField) Validate() error {
	for i, b := range c.ClampedBoxes {
		if len(b) != 6 {
			return fmt.Errorf("clampedBoxes[%d] has %d numbers, want 6: [xmin, ymin, zmin, xmax, ymax, zmax]", i, len(b))
		}
		for a := 0; a < 3; a++ {
			if b[a] > b[a+3] {
				return fmt.Errorf("clampedBoxes[%d]: min[%d] = %g is greater than max[%d] = %g", i, a, b[a], a, b[a+3])
			}
		}
	}
	if !c.Membrane && !c.Bending {
		return errors.New("membrane and bending are both off: the shell has no energy")
	}
	return nil
}

func (c *TriangularShellForceField) inClampedBox(p geom.Vec3) bool {
	for _, b := range c.ClampedBoxes {
		if p[0] >= b[0] && p[1] >= b[1] && p[2] >= b[2] && p[0] <= b[3] && p[1] <= b[4] && p[2] <= b[5] {
			return true
		}
	}
	return false
}

// Init builds the membrane triangles and the bending stencils from the
// topology's triangles and the state's rest positions.
func (c *TriangularShellForceField) Init() error { return c.Wrap(c.initialise()) }

// shellBoundaryEdge is a boundary edge seen from one of its vertices.
type shellBoundaryEdge struct {
	other, third int // the edge's other end and its triangle's third vertex
	clamped      bool
}

func (c *TriangularShellForceField) initialise() error {
	if err := c.Validate(); err != nil {
		return err
	}
	st := c.Node.State()
	if st == nil {
		return errors.New("needs a Vec3 MechanicalObject in the same node")
	}
	if tn := st.Template().Name(); tn != graph.Vec3.Name() {
		return fmt.Errorf("state %q has template %s; TriangularShellForceField needs Vec3", st.Base().Path(), tn)
	}
	topo := c.Node.Topology()
	if topo == nil || len(topo.Triangles()) == 0 {
		return errors.New("needs a topology with triangles in this node or above (a surface mesh, CylinderGridTopology, or a RegularGridTopology with n = 1 along one axis)")
	}
	tris := topo.Triangles()
	if len(c.Thicknesses) > 0 && len(c.Thicknesses) != len(tris) {
		return fmt.Errorf("thicknesses has %d values for %d triangles", len(c.Thicknesses), len(tris))
	}
	c.state = st
	np := st.Size()
	rest := st.Vec(graph.RestPosition)
	e, nu := c.YoungModulus, c.PoissonRatio
	s := e / (1 - nu*nu)
	c.cm = [3][3]float64{{s, s * nu, 0}, {s * nu, s, 0}, {0, 0, s * (1 - nu) / 2}}

	type side struct{ tri, corner int }
	edges := map[[2]int][]side{}
	vtris := make([][]int, np)
	c.tris = make([]shellTri, len(tris))
	for t, tri := range tris {
		for _, v := range tri {
			if v < 0 || v >= np {
				return fmt.Errorf("triangle %d: vertex %d is out of range [0, %d) of state %q", t, v, np, st.Base().Path())
			}
		}
		if tri[0] == tri[1] || tri[1] == tri[2] || tri[0] == tri[2] {
			return fmt.Errorf("triangle %d %v repeats a vertex", t, tri)
		}
		for a := 0; a < 3; a++ {
			key := sorted2(tri[(a+1)%3], tri[(a+2)%3])
			edges[key] = append(edges[key], side{t, a})
			vtris[tri[a]] = append(vtris[tri[a]], t)
		}
		h := c.Thickness
		if len(c.Thicknesses) > 0 {
			h = c.Thicknesses[t]
		}
		if err := c.setupTri(&c.tris[t], tri, rest, h); err != nil {
			return fmt.Errorf("triangle %d %v: %w", t, tri, err)
		}
	}
	bnd := make([][]shellBoundaryEdge, np)
	for key, sd := range edges {
		switch len(sd) {
		case 1:
			third := tris[sd[0].tri][sd[0].corner]
			cl := c.inClampedBox(geom.At(rest, key[0])) && c.inClampedBox(geom.At(rest, key[1]))
			bnd[key[0]] = append(bnd[key[0]], shellBoundaryEdge{key[1], third, cl})
			bnd[key[1]] = append(bnd[key[1]], shellBoundaryEdge{key[0], third, cl})
		case 2:
			if tris[sd[0].tri][sd[0].corner] == tris[sd[1].tri][sd[1].corner] {
				return fmt.Errorf("triangles %d and %d have the same three vertices", sd[0].tri, sd[1].tri)
			}
		default:
			return fmt.Errorf("edge (%d, %d) is shared by %d triangles (%d, %d, %d, ...); a shell needs each edge in at most two",
				key[0], key[1], len(sd), sd[0].tri, sd[1].tri, sd[2].tri)
		}
	}
	// Boundary edges in a fixed order (the map's is random).
	for v := range bnd {
		b := bnd[v]
		for i := 1; i < len(b); i++ {
			for j := i; j > 0 && b[j].other < b[j-1].other; j-- {
				b[j], b[j-1] = b[j-1], b[j]
			}
		}
	}

	c.units, c.nodes, c.pats = nil, nil, nil
	koff := 0
	addUnit := func(nodes []int32, tri, pat int) {
		n := len(nodes)
		c.units = append(c.units, shellUnit{slot: int32(len(c.nodes)), n: int32(n), tri: int32(tri), pat: int32(pat), koff: koff})
		c.nodes = append(c.nodes, nodes...)
		koff += 9 * n * n
	}
	if c.Membrane {
		for t, tri := range tris {
			addUnit([]int32{int32(tri[0]), int32(tri[1]), int32(tri[2])}, t, -1)
		}
	}
	// across(t, i, j): the vertex opposite edge (i, j) in the other
	// triangle on it than t, or −1.
	across := func(t, i, j int) int {
		for _, sd := range edges[sorted2(i, j)] {
			if sd.tri != t {
				return tris[sd.tri][sd.corner]
			}
		}
		return -1
	}
	if c.Bending {
		for v := 0; v < np; v++ {
			if len(vtris[v]) == 0 {
				continue
			}
			var p shellPatch
			nodes, err := c.setupPatch(&p, v, tris, vtris, across, bnd[v], rest)
			if err != nil {
				return fmt.Errorf("vertex %d: %w", v, err)
			}
			p.iso = true
			for s := range p.w {
				for _, m := range p.w[s] {
					if m[1] != 0 || m[2] != 0 || m[3] != 0 || m[5] != 0 || m[6] != 0 || m[7] != 0 || m[4] != m[0] || m[8] != m[0] {
						p.iso = false
					}
				}
			}
			c.pats = append(c.pats, p)
			addUnit(nodes, -1, len(c.pats)-1)
		}
	}
	nslot := len(c.nodes)
	c.fLoc = make([]float64, 3*nslot)
	c.dLoc = make([]float64, 3*nslot)
	c.kLoc = make([]float64, koff)
	c.wLoc = make([]float64, len(c.units))
	c.start, c.slots = buildIncidence(c.nodes, np)
	c.blocks, c.blockK, c.blockRow = nil, nil, nil
	for _, u := range c.units {
		nd := c.nodes[u.slot : u.slot+u.n]
		row := 3 * int(u.n)
		for a := range nd {
			for b := range nd {
				c.blocks = append(c.blocks, nd[a], nd[b])
				c.blockK = append(c.blockK, u.koff+3*a*row+3*b)
				c.blockRow = append(c.blockRow, row)
			}
		}
	}
	c.x = nil
	c.rest = nil
	if c.Method == "small" {
		// K₀: the tangent at rest, kept; forces are K₀ u from then on.
		c.AddForce(make([]float64, 3*np), rest, nil)
		c.rest = append([]float64(nil), rest...)
	}
	return nil
}

// setupTri computes a membrane triangle's rest data.
func (c *TriangularShellForceField) setupTri(el *shellTri, tri [3]int, rest []float64, h float64) error {
	x0, x1, x2 := geom.At(rest, tri[0]), geom.At(rest, tri[1]), geom.At(rest, tri[2])
	m := x1.Sub(x0).Cross(x2.Sub(x0))
	if !(m.Norm() > 0) {
		return errors.New("zero rest area")
	}
	el.area = m.Norm() / 2
	el.h = h
	e1 := x1.Sub(x0).Normalized()
	e2 := m.Normalized().Cross(e1)
	var P [3][2]float64
	for a, x := range []geom.Vec3{x0, x1, x2} {
		d := x.Sub(x0)
		P[a] = [2]float64{d.Dot(e1), d.Dot(e2)}
	}
	det := (P[1][0]-P[0][0])*(P[2][1]-P[0][1]) - (P[2][0]-P[0][0])*(P[1][1]-P[0][1])
	for a := 0; a < 3; a++ {
		b, cc := (a+1)%3, (a+2)%3
		el.gm[a] = [2]float64{(P[b][1] - P[cc][1]) / det, (P[cc][0] - P[b][0]) / det}
	}
	return nil
}

// setupPatch builds vertex v's bending stencil and fit; it returns the
// stencil's points (v first).
func (c *TriangularShellForceField) setupPatch(p *shellPatch, v int, tris [][3]int, vtris [][]int, across func(t, i, j int) int, bnd []shellBoundaryEdge, rest []float64) ([]int32, error) {
	local := map[int]int32{v: 0}
	nodes := []int32{int32(v)}
	add := func(q int) int32 {
		if i, ok := local[q]; ok {
			return i
		}
		local[q] = int32(len(nodes))
		nodes = append(nodes, int32(q))
		return local[q]
	}
	xv := geom.At(rest, v)
	var mref, msum geom.Vec3
	for k, t := range vtris[v] {
		tri := tris[t]
		m := geom.At(rest, tri[1]).Sub(geom.At(rest, tri[0])).Cross(geom.At(rest, tri[2]).Sub(geom.At(rest, tri[0])))
		r := [3]int32{add(tri[0]), add(tri[1]), add(tri[2])}
		if k == 0 {
			mref = m
		} else if m.Dot(mref) < 0 {
			r[1], r[2] = r[2], r[1]
			m = m.Scale(-1)
		}
		msum = msum.Add(m)
		p.ring = append(p.ring, r)
		a := voronoiArea(rest, v, tri)
		p.area += a
		h := c.Thickness
		if len(c.Thicknesses) > 0 {
			h = c.Thicknesses[t]
		}
		p.h += h * a
	}
	p.h /= p.area
	ringSize := len(nodes)
	// The vertices across the ring's outer edges that lie within the
	// longest edge of the ring's triangles (on a grid: the 3 × 3 block
	// about the vertex whatever its valence, so that neighbouring vertices
	// fit alike).
	reach := 0.0
	for _, t := range vtris[v] {
		tri := tris[t]
		for a := 0; a < 3; a++ {
			reach = math.Max(reach, geom.At(rest, tri[a]).Sub(geom.At(rest, tri[(a+1)%3])).Norm())
		}
	}
	reach *= 1 + 1e-6
	// Short of six points (a corner), take them all.
	for pass := 0; pass < 2; pass++ {
		for _, t := range vtris[v] {
			tri := tris[t]
			for a := 0; a < 3; a++ {
				if tri[a] == v {
					if q := across(t, tri[(a+1)%3], tri[(a+2)%3]); q >= 0 && (pass == 1 || geom.At(rest, q).Sub(xv).Norm() <= reach) {
						add(q)
					}
				}
			}
		}
		if len(nodes) >= 6 {
			break
		}
	}
	t0 := msum.Normalized()
	if !(msum.Norm() > 0) {
		return nil, errors.New("its triangles' normals cancel")
	}
	// Tangent axes: e1 towards the first neighbour.
	d := geom.At(rest, int(nodes[1])).Sub(xv)
	e1 := d.Sub(t0.Scale(d.Dot(t0))).Normalized()
	e2 := t0.Cross(e1)
	p.e1, p.e2 = e1, e2
	l := 0.0
	for _, q := range nodes[1:ringSize] {
		l += geom.At(rest, int(q)).Sub(xv).Norm()
	}
	l /= float64(ringSize - 1)
	to2 := func(q int) [2]float64 {
		d := geom.At(rest, q).Sub(xv)
		return [2]float64{d.Dot(e1) / l, d.Dot(e2) / l}
	}
	np := len(nodes)
	// Constraints: one per boundary direction.
	type cons struct {
		row [6]float64
		rhs geom.Vec3
	}
	var cs []cons
	type dir struct {
		n       [2]float64
		clamped bool
	}
	var dirs []dir
	for _, b := range bnd {
		q := to2(b.other)
		L := math.Hypot(q[0], q[1])
		n := [2]float64{q[1] / L, -q[0] / L}
		if r := to2(b.third); r[0]*n[0]+r[1]*n[1] > 0 {
			n = [2]float64{-n[0], -n[1]}
		}
		merged := false
		for i := range dirs {
			if dirs[i].clamped == b.clamped && dirs[i].n[0]*n[0]+dirs[i].n[1]*n[1] > math.Cos(math.Pi/6) {
				s := [2]float64{dirs[i].n[0] + n[0], dirs[i].n[1] + n[1]}
				sl := math.Hypot(s[0], s[1])
				dirs[i].n = [2]float64{s[0] / sl, s[1] / sl}
				merged = true
				break
			}
		}
		if !merged {
			dirs = append(dirs, dir{n, b.clamped})
		}
	}
	// Free directions constrain the fit; clamped ones mirror the stencil
	// across the edge (ghost points, their positions reflected in the rest
	// frame: x_g = M x_p + (I − M) x_v, M = I − 2 n nᵀ), so the fitted
	// surface leaves the edge with its rest slope.
	nu := c.PoissonRatio
	type mirror struct {
		m2 [2][2]float64 // in tangent coordinates
		m3 geom.Mat3     // in the world
	}
	var mirrors []mirror
	for _, dr := range dirs {
		n := dr.n
		tt := [2]float64{-n[1], n[0]}
		if dr.clamped {
			nw := e1.Scale(n[0]).Add(e2.Scale(n[1]))
			mirrors = append(mirrors, mirror{
				m2: [2][2]float64{{1 - 2*n[0]*n[0], -2 * n[0] * n[1]}, {-2 * n[1] * n[0], 1 - 2*n[1]*n[1]}},
				m3: geom.Identity3().Sub(nw.Outer(nw).Scale(2)),
			})
			continue
		}
		cs = append(cs, cons{row: [6]float64{0, 0, 0,
			2 * (n[0]*n[0] + nu*tt[0]*tt[0]),
			2 * (n[0]*n[1] + nu*tt[0]*tt[1]),
			2 * (n[1]*n[1] + nu*tt[1]*tt[1])}})
	}
	if len(mirrors) == 2 {
		// The corner's third image: both reflections.
		a, b := mirrors[0], mirrors[1]
		var m2 [2][2]float64
		for i := 0; i < 2; i++ {
			for j := 0; j < 2; j++ {
				m2[i][j] = a.m2[i][0]*b.m2[0][j] + a.m2[i][1]*b.m2[1][j]
			}
		}
		mirrors = append(mirrors, mirror{m2: m2, m3: a.m3.Mul(b.m3)})
	}
	// Least-squares rows: the stencil's points (data x_p) and their images
	// (data M x_p + (I − M) x_v).
	type fitRow struct {
		row  [6]float64
		p    int
		m    geom.Mat3 // the data is m x_p + (I − m) x_v
		real bool
	}
	var rows []fitRow
	poly := func(X [2]float64) [6]float64 {
		return [6]float64{1, X[0], X[1], X[0] * X[0], X[0] * X[1], X[1] * X[1]}
	}
	for i, q := range nodes {
		X := to2(int(q))
		rows = append(rows, fitRow{row: poly(X), p: i, m: geom.Identity3(), real: true})
		for _, mr := range mirrors {
			Y := [2]float64{mr.m2[0][0]*X[0] + mr.m2[0][1]*X[1], mr.m2[1][0]*X[0] + mr.m2[1][1]*X[1]}
			if math.Hypot(Y[0]-X[0], Y[1]-X[1]) < 1e-9 {
				continue // on the mirror: its own image
			}
			rows = append(rows, fitRow{row: poly(Y), p: i, m: mr.m3})
		}
	}
	// KKT system [[AᵀA, Bᵀ], [B, 0]] of the constrained least squares.
	nc := len(cs)
	N := 6 + nc
	kkt := make([][]float64, N)
	for i := range kkt {
		kkt[i] = make([]float64, N)
	}
	for _, r := range rows {
		for a := 0; a < 6; a++ {
			for b := 0; b < 6; b++ {
				kkt[a][b] += r.row[a] * r.row[b]
			}
		}
	}
	for k, cn := range cs {
		for a := 0; a < 6; a++ {
			kkt[6+k][a] = cn.row[a]
			kkt[a][6+k] = cn.row[a]
		}
	}
	inv, ok := invertN(kkt)
	if !ok {
		return nil, fmt.Errorf("its %d-point neighbourhood (with %d boundary conditions) cannot determine a quadratic: too few or degenerate points", np, nc+len(mirrors))
	}
	// Hessian coefficients: H_XX = 2c₃/l², H_YY = 2c₅/l², H_XY = c₄/l².
	coef := [3]int{3, 5, 4}
	scale := [3]float64{2 / (l * l), 2 / (l * l), 1 / (l * l)}
	for s := 0; s < 3; s++ {
		r := inv[coef[s]]
		p.w[s] = make([]geom.Mat3, np)
		for _, fr := range rows {
			w := 0.0
			for a := 0; a < 6; a++ {
				w += r[a] * fr.row[a]
			}
			w *= scale[s]
			p.w[s][fr.p] = p.w[s][fr.p].Add(fr.m.Scale(w))
			if !fr.real {
				p.w[s][0] = p.w[s][0].Add(geom.Identity3().Sub(fr.m).Scale(w))
			}
		}
		for k, cn := range cs {
			p.g[s] = p.g[s].Add(cn.rhs.Scale(scale[s] * r[6+k]))
		}
	}
	var vv [3]geom.Vec3
	for s := 0; s < 3; s++ {
		vv[s] = p.g[s]
		for i, q := range nodes {
			vv[s] = vv[s].Add(p.w[s][i].MulVec(geom.At(rest, int(q))))
		}
	}
	p.k0 = make([][3]float64, len(p.ring))
	p.beta = make([]float64, len(p.ring))
	sum := 0.0
	for k, r := range p.ring {
		x0 := geom.At(rest, int(nodes[r[0]]))
		m := geom.At(rest, int(nodes[r[1]])).Sub(x0).Cross(geom.At(rest, int(nodes[r[2]])).Sub(x0))
		n := m.Normalized()
		for s := 0; s < 3; s++ {
			p.k0[k][s] = n.Dot(vv[s])
		}
		p.beta[k] = m.Norm()
		sum += m.Norm()
	}
	for k := range p.beta {
		p.beta[k] /= sum
	}
	return nodes, nil
}

// positivePart2 returns the positive part of the symmetric 2×2 tensor
// [[N0, N2], [N2, N1]] (its negative eigenvalues set to zero), in the
// same layout.
func positivePart2(N [3]float64) [3]float64 {
	m, d := (N[0]+N[1])/2, math.Hypot((N[0]-N[1])/2, N[2])
	l1, l2 := m+d, m-d
	if l2 >= 0 {
		return N
	}
	if l1 <= 0 {
		return [3]float64{}
	}
	// l1 (e eᵀ) with e the eigenvector of l1: N − l2 (I − e eᵀ)... = l1 e eᵀ
	// = (N − l2 I) l1/(l1 − l2).
	s := l1 / (l1 - l2)
	return [3]float64{(N[0] - l2) * s, (N[1] - l2) * s, N[2] * s}
}

// voronoiArea returns vertex v's share of the rest area of triangle tri
// (Meyer et al. 2003, "mixed" Voronoi area): its Voronoi region
// (|vq|² cot r + |vr|² cot q)/8 when no angle is obtuse, else half the
// area when v's angle is obtuse and a quarter when another is. The shares
// sum to the triangle's area.
func voronoiArea(rest []float64, v int, tri [3]int) float64 {
	var q, r int
	for a := 0; a < 3; a++ {
		if tri[a] == v {
			q, r = tri[(a+1)%3], tri[(a+2)%3]
		}
	}
	xv, xq, xr := geom.At(rest, v), geom.At(rest, q), geom.At(rest, r)
	area := xq.Sub(xv).Cross(xr.Sub(xv)).Norm() / 2
	dv := xq.Sub(xv).Dot(xr.Sub(xv)) // ∝ cos of the angle at v
	dq := xv.Sub(xq).Dot(xr.Sub(xq))
	dr := xv.Sub(xr).Dot(xq.Sub(xr))
	switch {
	case dv < 0:
		return area / 2
	case dq < 0 || dr < 0:
		return area / 4
	}
	// cot = dot / |cross| = dot / (2 area)
	return (xq.Sub(xv).Norm2()*dr + xr.Sub(xv).Norm2()*dq) / (16 * area)
}

// invertN inverts a small square matrix by Gauss–Jordan elimination with
// partial pivoting; false when a pivot is below 1e-10 of the largest
// entry (singular to working accuracy).
func invertN(a [][]float64) ([][]float64, bool) {
	n := len(a)
	inv := make([][]float64, n)
	big := 0.0
	for i := range a {
		inv[i] = make([]float64, n)
		inv[i][i] = 1
		for _, v := range a[i] {
			big = math.Max(big, math.Abs(v))
		}
	}
	for col := 0; col < n; col++ {
		p := col
		for r := col + 1; r < n; r++ {
			if math.Abs(a[r][col]) > math.Abs(a[p][col]) {
				p = r
			}
		}
		if !(math.Abs(a[p][col]) > 1e-10*big) {
			return nil, false
		}
		a[col], a[p] = a[p], a[col]
		inv[col], inv[p] = inv[p], inv[col]
		d := 1 / a[col][col]
		for j := 0; j < n; j++ {
			a[col][j] *= d
			inv[col][j] *= d
		}
		for r := 0; r < n; r++ {
			if r == col || a[r][col] == 0 {
				continue
			}
			f := a[r][col]
			for j := 0; j < n; j++ {
				a[r][j] -= f * a[col][j]
				inv[r][j] -= f * inv[col][j]
			}
		}
	}
	return inv, true
}

// SetWorkers fixes the number of goroutines of the element loops (0: all
// of GOMAXPROCS).
func (c *TriangularShellForceField) SetWorkers(n int) { c.runner.Workers = n }

// NumTriangles returns the number of membrane triangles and NumPatches the
// number of bending stencils (one per vertex), after Init.
func (c *TriangularShellForceField) NumTriangles() int { return len(c.tris) }

// NumPatches returns the number of bending stencils (one per vertex of a triangle).
func (c *TriangularShellForceField) NumPatches() int { return len(c.pats) }

// patchUnit returns the unit of bending patch i.
func (c *TriangularShellForceField) patchUnit(i int) *shellUnit {
	off := 0
	if c.Membrane {
		off = len(c.tris)
	}
	return &c.units[off+i]
}

// Curvature returns the curvature change κ − κ₀ at bending patch i's
// vertex (in world axes: the 3×3 tensor κ_XX e1⊗e1 + κ_XY (e1⊗e2 + e2⊗e1)
// + κ_YY e2⊗e2 of the rest tangent axes) at x, and the vertex.
func (c *TriangularShellForceField) Curvature(i int, x []float64) (geom.Mat3, int) {
	u := c.patchUnit(i)
	p := &c.pats[i]
	nd := c.nodes[u.slot : u.slot+u.n]
	var V [3]geom.Vec3
	for s := 0; s < 3; s++ {
		V[s] = p.g[s]
		for a, q := range nd {
			V[s] = V[s].Add(p.w[s][a].MulVec(geom.At(x, int(q))))
		}
	}
	var k [3]float64
	for j, r := range p.ring {
		x0 := geom.At(x, int(nd[r[0]]))
		t := geom.At(x, int(nd[r[1]])).Sub(x0).Cross(geom.At(x, int(nd[r[2]])).Sub(x0)).Normalized()
		for s := 0; s < 3; s++ {
			k[s] += p.beta[j] * (t.Dot(V[s]) - p.k0[j][s])
		}
	}
	K := p.e1.Outer(p.e1).Scale(k[0]).Add(p.e2.Outer(p.e2).Scale(k[1])).Add(p.e1.Outer(p.e2).Add(p.e2.Outer(p.e1)).Scale(k[2]))
	return K, int(nd[0])
}

// unit returns unit u's energy at x and, when f is not nil, writes its
// forces (3 per point) and when kk is not nil its tangent ∂f/∂x.
func (c *TriangularShellForceField) unit(u *shellUnit, x []float64, f, kk []float64) float64 {
	nd := c.nodes[u.slot : u.slot+u.n]
	n := len(nd)
	if f != nil {
		clear(f[:3*n])
	}
	if kk != nil {
		clear(kk[:9*n*n])
	}
	if u.tri >= 0 {
		return c.membrane(&c.tris[u.tri], nd, x, f, kk)
	}
	return c.bending(&c.pats[u.pat], nd, x, f, kk)
}

// addBlock adds s·m to block (a, b) of the row-major (3n)² matrix kk.
func addBlock3(kk []float64, n, a, b int, m geom.Mat3, s float64) {
	row := 3 * n
	for i := 0; i < 3; i++ {
		r := kk[(3*a+i)*row+3*b:]
		r[0] += s * m[3*i]
		r[1] += s * m[3*i+1]
		r[2] += s * m[3*i+2]
	}
}

func (c *TriangularShellForceField) membrane(el *shellTri, nd []int32, x []float64, f, kk []float64) float64 {
	var p [3]geom.Vec3
	for a := 0; a < 3; a++ {
		p[a] = geom.At(x, int(nd[a]))
	}
	A, h := el.area, el.h
	var F [2]geom.Vec3
	for a := 0; a < 3; a++ {
		F[0] = F[0].Add(p[a].Scale(el.gm[a][0]))
		F[1] = F[1].Add(p[a].Scale(el.gm[a][1]))
	}
	ev := [3]float64{(F[0].Dot(F[0]) - 1) / 2, (F[1].Dot(F[1]) - 1) / 2, F[0].Dot(F[1])}
	var N [3]float64
	for s := 0; s < 3; s++ {
		for t := 0; t < 3; t++ {
			N[s] += h * c.cm[s][t] * ev[t]
		}
	}
	w := A / 2 * (ev[0]*N[0] + ev[1]*N[1] + ev[2]*N[2])
	if f == nil && kk == nil {
		return w
	}
	var G [3][3]geom.Vec3 // ∂ε_s/∂x_a
	for a := 0; a < 3; a++ {
		g0, g1 := el.gm[a][0], el.gm[a][1]
		G[0][a] = F[0].Scale(g0)
		G[1][a] = F[1].Scale(g1)
		G[2][a] = F[1].Scale(g0).Add(F[0].Scale(g1))
		if f != nil {
			fa := G[0][a].Scale(-A * N[0]).Add(G[1][a].Scale(-A * N[1])).Add(G[2][a].Scale(-A * N[2]))
			f[3*a] += fa[0]
			f[3*a+1] += fa[1]
			f[3*a+2] += fa[2]
		}
	}
	if kk == nil {
		return w
	}
	// The stress term Σ gₐ·N·g_b I; tangent = definite keeps the tensile
	// part of N only (its 2×2 eigen-decomposition, negative eigenvalues
	// dropped): a compressed membrane's negative stiffness, the driver of
	// buckling, is left out of K.
	Np := N
	if c.Tangent == "definite" {
		Np = positivePart2(N)
	}
	for a := 0; a < 3; a++ {
		for b := 0; b < 3; b++ {
			var m geom.Mat3
			for s := 0; s < 3; s++ {
				for t := 0; t < 3; t++ {
					if cst := c.cm[s][t]; cst != 0 {
						m = m.Add(G[s][a].Outer(G[t][b]).Scale(h * cst))
					}
				}
			}
			ga, gb := el.gm[a], el.gm[b]
			geo := Np[0]*ga[0]*gb[0] + Np[1]*ga[1]*gb[1] + Np[2]*(ga[0]*gb[1]+ga[1]*gb[0])
			m[0] += geo
			m[4] += geo
			m[8] += geo
			addBlock3(kk, 3, a, b, m, -A)
		}
	}
	return w
}

// bending returns the vertex's bending energy Σ_T β_T A_v h³/24
// (κ_T−κ₀_T):C:(κ_T−κ₀_T), κ_T,s = n_T·H_s, and writes its forces and
// tangent when f, kk are not nil. The ring triangles share H_s = Σ_p w_sp
// x_p: with g_T,ps = ŵ_sp n_T (ŵ = w·(1, 1, 2)) the Gauss–Newton term
// Σ_T A_T D Σ C g_T,p ⊗ g_T,q (every pair of stencil points) is
// Σ C ŵ_p ŵ_q (Σ_T A_T n_T n_Tᵀ), built once for the stencil; what n_T's
// own dependence adds touches only pairs with a point of T (3 × stencil
// blocks per triangle). The tangent is symmetric: only blocks b ≥ a are
// built, then mirrored.
func (c *TriangularShellForceField) bending(p *shellPatch, nd []int32, x []float64, f, kk []float64) float64 {
	n := len(nd)
	var sc shellScratch
	pos := sc.vecs(&sc.pos, n)
	for a, q := range nd {
		pos[a] = geom.At(x, int(q))
	}
	var V [3]geom.Vec3 // H_s = Σ_p w_sp x_p + g_s
	for s := 0; s < 3; s++ {
		v := p.g[s]
		for a := 0; a < n; a++ {
			v = v.Add(p.w[s][a].MulVec(pos[a]))
		}
		V[s] = v
	}
	db := p.h * p.h * p.h / 12
	vs := [3]float64{1, 1, 2}
	w := 0.0
	var z [3]geom.Vec3 // Σ_T μ_T,s n_T
	var T geom.Mat3    // Σ_T A_T n_T n_Tᵀ
	for j := range p.ring {
		A := p.area * p.beta[j]
		r := p.ring[j]
		x0, x1, x2 := pos[r[0]], pos[r[1]], pos[r[2]]
		t := x1.Sub(x0).Cross(x2.Sub(x0)).Normalized()
		var kv, M [3]float64
		for s := 0; s < 3; s++ {
			kv[s] = vs[s] * (t.Dot(V[s]) - p.k0[j][s])
		}
		for s := 0; s < 3; s++ {
			for q := 0; q < 3; q++ {
				M[s] += db * c.cm[s][q] * kv[q]
			}
		}
		w += A / 2 * (kv[0]*M[0] + kv[1]*M[1] + kv[2]*M[2])
		for s := 0; s < 3; s++ {
			z[s] = z[s].Add(t.Scale(A * M[s] * vs[s]))
		}
		T = T.Add(t.Outer(t).Scale(A))
	}
	if f == nil && kk == nil {
		return w
	}
	if f != nil {
		// The part through H: −Σ_s W_spᵀ z_s at every stencil point.
		for a := 0; a < n; a++ {
			fa := p.w[0][a].TMulVec(z[0]).Add(p.w[1][a].TMulVec(z[1])).Add(p.w[2][a].TMulVec(z[2]))
			f[3*a] -= fa[0]
			f[3*a+1] -= fa[1]
			f[3*a+2] -= fa[2]
		}
	}
	if kk != nil {
		c.bendingGG(p, n, db, &T, kk)
	}
	for j := range p.ring {
		c.bendingTri(p, j, n, pos, &V, &sc, f, kk)
	}
	if kk != nil {
		row := 3 * n
		for a := 0; a < n; a++ {
			for b := a + 1; b < n; b++ {
				for i := 0; i < 3; i++ {
					for l := 0; l < 3; l++ {
						kk[(3*b+l)*row+3*a+i] = kk[(3*a+i)*row+3*b+l]
					}
				}
			}
		}
	}
	return w
}

// bendingGG subtracts from the blocks b ≥ a of kk the Gauss–Newton term
// through H of all ring triangles, D Σ_sq C_sq Ŵ_saᵀ T Ŵ_qb (Ŵ_s = vs_s
// W_s, T = Σ_T A_T n_T n_Tᵀ).
func (c *TriangularShellForceField) bendingGG(p *shellPatch, n int, db float64, T *geom.Mat3, kk []float64) {
	vs := [3]float64{1, 1, 2}
	row := 3 * n
	if p.iso {
		// W_sa = ŵ_sa I/vs_s: the block is D (Σ_sq C_sq ŵ_sa ŵ_qb) T.
		var buf [32][6]float64 // ŵ_a and Σ_s C_qs ŵ_sa
		cw := buf[:0]
		if n > len(buf) {
			cw = make([][6]float64, 0, n)
		}
		for a := 0; a < n; a++ {
			var e [6]float64
			for s := 0; s < 3; s++ {
				e[s] = vs[s] * p.w[s][a][0]
			}
			for q := 0; q < 3; q++ {
				e[3+q] = db * (c.cm[q][0]*e[0] + c.cm[q][1]*e[1] + c.cm[q][2]*e[2])
			}
			cw = append(cw, e)
		}
		for a := 0; a < n; a++ {
			ea := &cw[a]
			for b := a; b < n; b++ {
				eb := &cw[b]
				s := ea[3]*eb[0] + ea[4]*eb[1] + ea[5]*eb[2]
				for i := 0; i < 3; i++ {
					r := kk[(3*a+i)*row+3*b:]
					r[0] -= s * T[3*i]
					r[1] -= s * T[3*i+1]
					r[2] -= s * T[3*i+2]
				}
			}
		}
		return
	}
	var buf [32][3]geom.Mat3
	Q := buf[:0] // Q_qa = (Σ_s C_qs Ŵ_sa)ᵀ T D
	if n > len(buf) {
		Q = make([][3]geom.Mat3, 0, n)
	}
	for a := 0; a < n; a++ {
		var e [3]geom.Mat3
		for q := 0; q < 3; q++ {
			var m geom.Mat3
			for s := 0; s < 3; s++ {
				if k := c.cm[q][s]; k != 0 {
					m = m.Add(p.w[s][a].Scale(k * vs[s] * vs[q] * db))
				}
			}
			e[q] = m.TMul(*T)
		}
		Q = append(Q, e)
	}
	for a := 0; a < n; a++ {
		for b := a; b < n; b++ {
			m := Q[a][0].Mul(p.w[0][b]).Add(Q[a][1].Mul(p.w[1][b])).Add(Q[a][2].Mul(p.w[2][b]))
			addBlock3(kk, n, a, b, m, -1)
		}
	}
}

// bendingTri adds to f and to the blocks b ≥ a of kk (when not nil) what
// ring triangle j's normal n_j adds to the vertex's bending forces and
// tangent beyond the part through H (bending has added that).
func (c *TriangularShellForceField) bendingTri(p *shellPatch, j, n int, pos []geom.Vec3, V *[3]geom.Vec3, sc *shellScratch, f, kk []float64) {
	A := p.area * p.beta[j]
	db := p.h * p.h * p.h / 12
	r := p.ring[j]
	// Normal: m = m_T; E_a = x_prev − x_next on the triangle, ∂m/∂x_a = [E_a]×.
	x0, x1, x2 := pos[r[0]], pos[r[1]], pos[r[2]]
	mv := x1.Sub(x0).Cross(x2.Sub(x0))
	var E [3]geom.Vec3
	E[0], E[1], E[2] = x2.Sub(x1), x0.Sub(x2), x1.Sub(x0)
	lm := mv.Norm()
	t := mv.Scale(1 / lm)
	var kv [3]float64
	vs := [3]float64{1, 1, 2}
	for s := 0; s < 3; s++ {
		kv[s] = vs[s] * (t.Dot(V[s]) - p.k0[j][s])
	}
	var M, mu [3]float64
	for s := 0; s < 3; s++ {
		for q := 0; q < 3; q++ {
			M[s] += db * c.cm[s][q] * kv[q]
		}
		mu[s] = A * M[s] * vs[s]
	}
	// Σ_s μ_s u_s, u_s = P V_s/|m|: ∂κv_s/∂x_a = vs_s (W_saᵀ t + u_s × E_a).
	var vbar geom.Vec3
	for s := 0; s < 3; s++ {
		vbar = vbar.Add(V[s].Scale(mu[s]))
	}
	proj := geom.Identity3().Sub(t.Outer(t))
	ubar := proj.MulVec(vbar).Scale(1 / lm)
	if f != nil {
		for k := 0; k < 3; k++ {
			fa := ubar.Cross(E[k])
			a := int(r[k])
			f[3*a] -= fa[0]
			f[3*a+1] -= fa[1]
			f[3*a+2] -= fa[2]
		}
	}
	if kk == nil {
		return
	}
	// g_as = vs_s W_saᵀ t (all points), h_ks = vs_s u_s × E_k (the
	// triangle's points); with C: cg_aq = Σ_s C_qs g_as, ch_kq likewise.
	var cg [][3]geom.Vec3
	if n <= len(sc.g) {
		cg = sc.g[:n]
	} else {
		cg = make([][3]geom.Vec3, n)
	}
	var al []float64 // Σ_s μ_s w_sa (p.iso)
	var alm []geom.Mat3
	if p.iso {
		al = sc.al[:0]
		if n > len(sc.al) {
			al = make([]float64, 0, n)
		}
	} else {
		var buf [32]geom.Mat3 // zeroed on this branch only
		alm = buf[:0]
		if n > len(buf) {
			alm = make([]geom.Mat3, 0, n)
		}
	}
	for a := 0; a < n; a++ {
		if p.iso { // g_as = ŵ_sa t
			w0, w1, w2 := vs[0]*p.w[0][a][0], vs[1]*p.w[1][a][0], vs[2]*p.w[2][a][0]
			for q := 0; q < 3; q++ {
				cg[a][q] = t.Scale(c.cm[q][0]*w0 + c.cm[q][1]*w1 + c.cm[q][2]*w2)
			}
			al = append(al, mu[0]*p.w[0][a][0]+mu[1]*p.w[1][a][0]+mu[2]*p.w[2][a][0])
			continue
		}
		var ga [3]geom.Vec3
		for s := 0; s < 3; s++ {
			ga[s] = p.w[s][a].TMulVec(t).Scale(vs[s])
		}
		for q := 0; q < 3; q++ {
			cg[a][q] = ga[0].Scale(c.cm[q][0]).Add(ga[1].Scale(c.cm[q][1])).Add(ga[2].Scale(c.cm[q][2]))
		}
		alm = append(alm, p.w[0][a].Scale(mu[0]).Add(p.w[1][a].Scale(mu[1])).Add(p.w[2][a].Scale(mu[2])))
	}
	var h, ch [3][3]geom.Vec3
	for s := 0; s < 3; s++ {
		u := V[s].Sub(t.Scale(t.Dot(V[s]))).Scale(1 / lm)
		for k := 0; k < 3; k++ {
			h[k][s] = u.Cross(E[k]).Scale(vs[s])
		}
	}
	for k := 0; k < 3; k++ {
		for q := 0; q < 3; q++ {
			ch[k][q] = h[k][0].Scale(c.cm[q][0]).Add(h[k][1].Scale(c.cm[q][1])).Add(h[k][2].Scale(c.cm[q][2]))
		}
	}
	exact := c.Tangent != "definite"
	var pe, pet, ske [3]geom.Mat3 // ∂t/∂x_a = P [E_a]× / |m|, its transpose; [E_a]×
	var efs [3][3]geom.Mat3       // [E_k]×ᵀ ∂²f/∂m² [E_l]×
	if exact {
		fmm := t.Outer(ubar).Add(ubar.Outer(t)).Scale(-1 / lm).Sub(proj.Scale(t.Dot(vbar) / (lm * lm)))
		for k := 0; k < 3; k++ {
			ske[k] = E[k].Skew()
			pe[k] = proj.Mul(ske[k]).Scale(1 / lm)
			pet[k] = pe[k].T()
		}
		for k := 0; k < 3; k++ {
			efe := ske[k].T().Mul(fmm)
			for l := 0; l < 3; l++ {
				efs[k][l] = efe.Mul(ske[l])
			}
		}
	}
	AD := A * db
	row := 3 * n
	// Every pair {a, b} with a point of the triangle, once: the triangle's
	// point r[k] with each stencil point that is not an earlier one of the
	// triangle's.
	for k := 0; k < 3; k++ {
		tk := int(r[k])
		for o := 0; o < n; o++ {
			ko := -1
			for l := 0; l < 3; l++ {
				if int(r[l]) == o {
					ko = l
				}
			}
			if ko >= 0 && ko < k {
				continue
			}
			a, ka, b, kb := tk, k, o, ko
			if o < tk {
				a, ka, b, kb = o, ko, tk, k
			}
			// Gauss–Newton beyond H: A D Σ_q (ch_aq ⊗ G_bq + cg_aq ⊗ h_bq),
			// G_b = g_b + h_b.
			var m geom.Mat3
			if ka >= 0 {
				for q := 0; q < 3; q++ {
					L := ch[ka][q]
					R := p.w[q][b].TMulVec(t).Scale(vs[q])
					if kb >= 0 {
						R = R.Add(h[kb][q])
					}
					for i := 0; i < 3; i++ {
						m[3*i] += L[i] * R[0]
						m[3*i+1] += L[i] * R[1]
						m[3*i+2] += L[i] * R[2]
					}
				}
			}
			if kb >= 0 {
				for q := 0; q < 3; q++ {
					L, R := cg[a][q], h[kb][q]
					for i := 0; i < 3; i++ {
						m[3*i] += L[i] * R[0]
						m[3*i+1] += L[i] * R[1]
						m[3*i+2] += L[i] * R[2]
					}
				}
			}
			for i := range m {
				m[i] *= AD
			}
			if exact {
				if p.iso {
					if kb >= 0 {
						pk, s := &pe[kb], al[a]
						for i := range m {
							m[i] += s * pk[i]
						}
					}
					if ka >= 0 {
						pk, s := &pet[ka], al[b]
						for i := range m {
							m[i] += s * pk[i]
						}
					}
				} else {
					if kb >= 0 {
						m = m.Add(alm[a].TMul(pe[kb]))
					}
					if ka >= 0 {
						m = m.Add(pe[ka].TMul(alm[b]))
					}
				}
				if ka >= 0 && kb >= 0 {
					m = m.Add(efs[ka][kb])
				}
			}
			for i := 0; i < 3; i++ {
				rr := kk[(3*a+i)*row+3*b:]
				rr[0] -= m[3*i]
				rr[1] -= m[3*i+1]
				rr[2] -= m[3*i+2]
			}
		}
	}
	if !exact {
		return
	}
	// Second derivatives of m: −[ū]× on (a, next a), +[ū]× on (a, prev a).
	us := ubar.Skew()
	for k := 0; k < 3; k++ {
		a, b := int(r[k]), int(r[(k+1)%3])
		if a < b {
			addBlock3(kk, n, a, b, us, 1)
		} else {
			addBlock3(kk, n, b, a, us, -1)
		}
	}
}

// shellScratch holds a bending stencil's work arrays on the stack (up to
// 32 points; larger stencils allocate).
type shellScratch struct {
	pos [32]geom.Vec3
	g   [32][3]geom.Vec3
	al  [32]float64
}

func (s *shellScratch) vecs(a *[32]geom.Vec3, n int) []geom.Vec3 {
	if n <= len(a) {
		return a[:n]
	}
	return make([]geom.Vec3, n)
}

// AddForce accumulates the shell forces and keeps each unit's tangent for
// AddDForce.
func (c *TriangularShellForceField) AddForce(f, x, v []float64) {
	c.x = x
	c.runner.Run(len(c.units), 16, c.forceRange)
	c.runner.Run(c.state.Size(), 256, func(lo, hi int) { gatherIncidence(f, c.fLoc, c.start, c.slots, lo, hi) })
}

func (c *TriangularShellForceField) forceRange(lo, hi int) {
	for i := lo; i < hi; i++ {
		u := &c.units[i]
		n := int(u.n)
		f := c.fLoc[3*int(u.slot) : 3*(int(u.slot)+n)]
		if c.rest != nil {
			c.wLoc[i] = c.linearUnit(u, c.x, f)
			continue
		}
		c.wLoc[i] = c.unit(u, c.x, f, c.kLoc[u.koff:u.koff+9*n*n])
	}
}

// linearUnit is unit u under method = small: f = K₀ u_loc, W = −½ u·K₀u
// (K₀ = ∂f/∂x at rest); f may be nil.
func (c *TriangularShellForceField) linearUnit(u *shellUnit, x, f []float64) float64 {
	n := int(u.n)
	nd := c.nodes[u.slot : int(u.slot)+n]
	var buf [96]float64
	d := buf[:0]
	if 3*n > len(buf) {
		d = make([]float64, 0, 3*n)
	}
	for _, q := range nd {
		d = append(d, x[3*q]-c.rest[3*q], x[3*q+1]-c.rest[3*q+1], x[3*q+2]-c.rest[3*q+2])
	}
	kk := c.kLoc[u.koff : u.koff+9*n*n]
	row := 3 * n
	w := 0.0
	for r := 0; r < row; r++ {
		kr := kk[r*row : r*row+row]
		s := 0.0
		for q, dq := range d {
			s += kr[q] * dq
		}
		if f != nil {
			f[r] = s
		}
		w -= d[r] * s / 2
	}
	return w
}

func (c *TriangularShellForceField) ensureLinearised() {
	if c.x != nil {
		return
	}
	if c.scratchF == nil {
		c.scratchF = make([]float64, 3*c.state.Size())
	}
	c.AddForce(c.scratchF, c.state.Vec(graph.Position), nil)
}

// AddDForce accumulates kFactor·K·dx with the tangents of the last
// AddForce (at the state's position if there was none); the shell has no
// damping of its own (B = 0).
func (c *TriangularShellForceField) AddDForce(df, dx []float64, kFactor, bFactor float64) {
	if kFactor == 0 {
		return
	}
	c.ensureLinearised()
	c.runner.Run(len(c.units), 32, func(lo, hi int) {
		var buf [96]float64
		for i := lo; i < hi; i++ {
			u := &c.units[i]
			n := int(u.n)
			nd := c.nodes[u.slot : int(u.slot)+n]
			loc := buf[:0]
			if 3*n > len(buf) {
				loc = make([]float64, 0, 3*n)
			}
			for _, q := range nd {
				loc = append(loc, dx[3*q], dx[3*q+1], dx[3*q+2])
			}
			kk := c.kLoc[u.koff : u.koff+9*n*n]
			out := c.dLoc[3*int(u.slot) : 3*(int(u.slot)+n)]
			row := 3 * n
			for r := 0; r < row; r++ {
				kr := kk[r*row : r*row+row]
				s := 0.0
				for q, lq := range loc {
					s += kr[q] * lq
				}
				out[r] = kFactor * s
			}
		}
	})
	c.runner.Run(c.state.Size(), 256, func(lo, hi int) { gatherIncidence(df, c.dLoc, c.start, c.slots, lo, hi) })
}

// PotentialEnergy returns the shell's elastic energy at x.
func (c *TriangularShellForceField) PotentialEnergy(x []float64) float64 {
	w := 0.0
	for i := range c.units {
		if c.rest != nil {
			w += c.linearUnit(&c.units[i], x, nil)
			continue
		}
		w += c.unit(&c.units[i], x, nil, nil)
	}
	return w
}

// AddKToMatrix implements graph.StiffnessAssembler: kFactor·K at the
// configuration of the last AddForce.
func (c *TriangularShellForceField) AddKToMatrix(m graph.MatrixAccumulator, kFactor float64) {
	c.ensureLinearised()
	for _, u := range c.units {
		nd := c.nodes[u.slot : u.slot+u.n]
		row := 3 * int(u.n)
		kk := c.kLoc[u.koff : u.koff+row*row]
		for r := 0; r < row; r++ {
			ro := 3*int(nd[r/3]) + r%3
			for q := 0; q < row; q++ {
				if v := kk[r*row+q]; v != 0 {
					m.Add(ro, 3*int(nd[q/3])+q%3, kFactor*v)
				}
			}
		}
	}
}

// StiffnessBlocks implements graph.StiffnessBlockAssembler: one block per
// pair of points of every membrane triangle and bending stencil.
func (c *TriangularShellForceField) StiffnessBlocks() []int32 { return c.blocks }

// KBlocks implements graph.StiffnessBlockAssembler: kFactor·K at the last
// AddForce.
func (c *TriangularShellForceField) KBlocks(vals []float64, kFactor float64) {
	c.ensureLinearised()
	c.runner.Run(len(c.blockK), 512, func(lo, hi int) {
		for bi := lo; bi < hi; bi++ {
			k, row := c.blockK[bi], c.blockRow[bi]
			out := vals[9*bi : 9*bi+9]
			for i := 0; i < 3; i++ {
				r := c.kLoc[k+i*row:]
				out[3*i] = kFactor * r[0]
				out[3*i+1] = kFactor * r[1]
				out[3*i+2] = kFactor * r[2]
			}
		}
	})
}
