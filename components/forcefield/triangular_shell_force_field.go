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
//	W = Σ_T A₀ [ h/2 ε:C:ε + h³/24 (κ−κ₀):C:(κ−κ₀) ],
//
// with the plane-stress C = E/(1−ν²)[(1−ν)𝕀 + ν 1⊗1], one membrane strain
// ε and one curvature κ per triangle T (rest area A₀, thickness h).
//
// Membrane: the Green–Lagrange strain of the constant-strain triangle,
// ε = ½(FᵀF − I) with F = ∂x/∂X the 3×2 deformation gradient over the
// triangle's rest coordinates X (a St Venant–Kirchhoff membrane): exact
// under rigid motions of any size, correct for large rotations with small
// strains.
//
// Bending: a basic shell triangle (BST) in the manner of Oñate & Zárate
// (2000) and Flores & Oñate (2005), with the curvature of a quadratic
// patch. At Init each triangle's three neighbours across its edges are
// unfolded into its rest plane (each rotated about the shared edge), and
// the unique quadratic q(X) = c₀ + c·X + ½XᵀHX through the six points is
// written as weights: H = Σ_a w_a x_a over the six points x_a. In the
// current configuration the curvature is the Hessian of the fitted height
// above the triangle's own plane,
//
//	κ_αβ = t · Σ_a w_aαβ x_a,    t = (x₁−x₀)×(x₂−x₀)/|…|,
//
// κ₀ the same at rest. The weights reproduce every quadratic surface
// exactly (the patch test of Kirchhoff plates: constant curvature is
// exact), Σ_a w_a = 0 and κ is made of dot products, so rigid motions of
// any size leave κ unchanged. The energy, forces −∂W/∂x and the tangent
// K = ∂f/∂x are exact (the tangent includes the second derivatives of the
// unit normal).
//
// Boundaries: a triangle edge with no neighbour replaces the missing
// point of the fit by one condition on the quadratic.
//
//   - free (default): the natural condition of a free or simply supported
//     edge, no bending moment across it: H_nn + ν H_tt = 0 (n across the
//     edge, t along it). Rotation about the edge is free. A simply
//     supported edge is a free edge whose points are held (FixedConstraint
//     or a projective constraint on their displacements).
//   - clamped (edges inside a box of clampedBoxes): the slope across the
//     edge at its midpoint is held at its rest value, ∂x/∂n = the rest
//     direction across the edge (in the world frame). Rotation about the
//     edge is fixed; hold the edge's points too (FixedConstraint).
//
// Every edge must be shared by at most two triangles. Triangles may be
// oriented either way (each one uses its own normal at rest and now).
type TriangularShellForceField struct {
	graph.ObjectBase
	YoungModulus float64     `toml:"youngModulus" doc:"Young's modulus E" unit:"Pa" range:"(0,inf)" required:"true"`
	PoissonRatio float64     `toml:"poissonRatio" doc:"Poisson's ratio ν (plane stress)" range:"(-1,0.5)"`
	Thickness    float64     `toml:"thickness" doc:"shell thickness h (membrane stiffness ∝ h, bending ∝ h³)" unit:"m" range:"(0,inf)" required:"true"`
	Thicknesses  []float64   `toml:"thicknesses" doc:"optional thickness per triangle of the topology, in its order (overrides thickness)" unit:"m" range:"(0,inf)"`
	Membrane     bool        `toml:"membrane" doc:"include the membrane (stretch and in-plane shear) energy"`
	Bending      bool        `toml:"bending" doc:"include the bending energy"`
	ClampedBoxes [][]float64 `toml:"clampedBoxes" doc:"boxes [xmin, ymin, zmin, xmax, ymax, zmax]: boundary edges with both rest end points inside one are clamped (rotation about the edge held at rest); other boundary edges are free (no moment: free or simply supported)" unit:"m"`

	state  graph.State
	elems  []shellElem
	ntris  int
	cm, cb [3][3]float64 // C / h and C / (h³/12) without thickness (E/(1−ν²) …)
	runner parallel.Runner

	// per element at the last AddForce
	fLoc []float64 // 18 per element
	kLoc []float64 // 324 per element (row-major 18×18, K = ∂f/∂x)
	wLoc []float64
	dLoc []float64 // 18 per element (AddDForce scratch)
	x    []float64

	start, slots []int32 // vertex → element slots (6 per element; missing ones go to vertex np)
	blocks       []int32
	blockOf      []int32 // per block: element*36 + a*6 + b
	scratchF     []float64
}

// shellElem is one triangle: its corners v[0..2], the points across its
// edges v[3+a] (across the edge opposite corner a; −1 on a boundary).
type shellElem struct {
	v    [6]int32
	area float64
	h    float64
	gm   [3][2]float64    // membrane: ∂N_a/∂X_α of the corners
	w    [3][6]float64    // bending: H_s = Σ_a w[s][a] x_a + g[s], s = XX, YY, XY
	g    [3]geom.Vec3     // clamped edges' constant part
	k0   [3]float64       // rest curvature (XX, YY, XY)
	pair [6]bool          // which of the six points exist
	edge [3]shellEdgeKind // per edge opposite corner a
}

type shellEdgeKind uint8

const (
	shellInterior shellEdgeKind = iota
	shellFree
	shellClamped
)

func init() {
	graph.Register(graph.TypeInfo{
		Name: "TriangularShellForceField",
		Kind: graph.KindForceField,
		Summary: "Thin shell on a triangle surface of Vec3 points, rotation-free: Green–Lagrange membrane (CST) and basic-shell-triangle bending " +
			"(curvature of the quadratic through each triangle and its three neighbours); free/simply supported or clamped edges; energy and exact tangent.",
		New: func() graph.Object {
			return &TriangularShellForceField{PoissonRatio: 0.3, Membrane: true, Bending: true}
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

// Init builds the elements from the topology's triangles and the state's
// rest positions.
func (c *TriangularShellForceField) Init() error { return c.Wrap(c.initialise()) }

func (c *TriangularShellForceField) inClampedBox(p geom.Vec3) bool {
	for _, b := range c.ClampedBoxes {
		if p[0] >= b[0] && p[1] >= b[1] && p[2] >= b[2] && p[0] <= b[3] && p[1] <= b[4] && p[2] <= b[5] {
			return true
		}
	}
	return false
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
	type side struct{ tri, corner int }
	edges := map[[2]int][]side{}
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
		}
	}
	e, nu := c.YoungModulus, c.PoissonRatio
	s := e / (1 - nu*nu)
	c.cm = [3][3]float64{{s, s * nu, 0}, {s * nu, s, 0}, {0, 0, s * (1 - nu) / 2}}
	c.cb = c.cm
	c.elems = make([]shellElem, len(tris))
	c.ntris = len(tris)
	for t, tri := range tris {
		el := &c.elems[t]
		el.h = c.Thickness
		if len(c.Thicknesses) > 0 {
			el.h = c.Thicknesses[t]
		}
		for a := 0; a < 3; a++ {
			el.v[a] = int32(tri[a])
			el.v[3+a] = -1
			key := sorted2(tri[(a+1)%3], tri[(a+2)%3])
			sd := edges[key]
			switch len(sd) {
			case 1:
				el.edge[a] = shellFree
				if c.inClampedBox(geom.At(rest, key[0])) && c.inClampedBox(geom.At(rest, key[1])) {
					el.edge[a] = shellClamped
				}
			case 2:
				o := sd[0]
				if o.tri == t {
					o = sd[1]
				}
				q := tris[o.tri][o.corner]
				if q == tri[a] {
					return fmt.Errorf("triangles %d and %d have the same three vertices", t, o.tri)
				}
				el.v[3+a] = int32(q)
			default:
				return fmt.Errorf("edge (%d, %d) is shared by %d triangles (%d, %d, %d, ...); a shell needs each edge in at most two",
					key[0], key[1], len(sd), sd[0].tri, sd[1].tri, sd[2].tri)
			}
		}
		if err := c.setupElem(el, rest); err != nil {
			return fmt.Errorf("triangle %d %v: %w", t, tri, err)
		}
	}
	ne := len(c.elems)
	c.fLoc = make([]float64, 18*ne)
	c.kLoc = make([]float64, 324*ne)
	c.wLoc = make([]float64, ne)
	c.dLoc = make([]float64, 18*ne)
	nodes := make([]int32, 6*ne)
	for ei := range c.elems {
		for a := 0; a < 6; a++ {
			v := c.elems[ei].v[a]
			if v < 0 {
				v = int32(np)
			}
			nodes[6*ei+a] = v
		}
	}
	c.start, c.slots = buildIncidence(nodes, np+1)
	c.blocks, c.blockOf = nil, nil
	for ei := range c.elems {
		el := &c.elems[ei]
		for a := 0; a < 6; a++ {
			for b := 0; b < 6; b++ {
				if el.pair[a] && el.pair[b] {
					c.blocks = append(c.blocks, el.v[a], el.v[b])
					c.blockOf = append(c.blockOf, int32(36*ei+6*a+b))
				}
			}
		}
	}
	return nil
}

// setupElem computes the rest data of one triangle: membrane shape
// gradients, the quadratic-fit weights and the rest curvature.
func (c *TriangularShellForceField) setupElem(el *shellElem, rest []float64) error {
	x0, x1, x2 := geom.At(rest, int(el.v[0])), geom.At(rest, int(el.v[1])), geom.At(rest, int(el.v[2]))
	m := x1.Sub(x0).Cross(x2.Sub(x0))
	if m.Norm() == 0 {
		return errors.New("zero rest area")
	}
	el.area = m.Norm() / 2
	e1 := x1.Sub(x0).Normalized()
	n0 := m.Normalized()
	e2 := n0.Cross(e1)
	var P [6][2]float64
	for a, x := range []geom.Vec3{x0, x1, x2} {
		d := x.Sub(x0)
		P[a] = [2]float64{d.Dot(e1), d.Dot(e2)}
	}
	// Membrane: gradients of the linear shape functions.
	det := (P[1][0]-P[0][0])*(P[2][1]-P[0][1]) - (P[2][0]-P[0][0])*(P[1][1]-P[0][1])
	for a := 0; a < 3; a++ {
		b, cc := (a+1)%3, (a+2)%3
		el.gm[a] = [2]float64{(P[b][1] - P[cc][1]) / det, (P[cc][0] - P[b][0]) / det}
	}
	for a := 0; a < 6; a++ {
		el.pair[a] = el.v[a] >= 0
	}
	if !c.Bending {
		return nil
	}
	// Bending: the quadratic fit in coordinates ξ = (X − centroid)/ℓ.
	cx := (P[0][0] + P[1][0] + P[2][0]) / 3
	cy := (P[0][1] + P[1][1] + P[2][1]) / 3
	l := math.Sqrt(2 * el.area)
	var A [6][6]float64
	var rhs [6]geom.Vec3 // constant right-hand sides (clamped edges)
	pointRow := func(p [2]float64) [6]float64 {
		u, v := (p[0]-cx)/l, (p[1]-cy)/l
		return [6]float64{1, u, v, u * u, u * v, v * v}
	}
	for a := 0; a < 3; a++ {
		A[a] = pointRow(P[a])
	}
	nu := c.PoissonRatio
	for a := 0; a < 3; a++ {
		i, j, k := (a+1)%3, (a+2)%3, a
		pi, pj := P[i], P[j]
		L := math.Hypot(pj[0]-pi[0], pj[1]-pi[1])
		tt := [2]float64{(pj[0] - pi[0]) / L, (pj[1] - pi[1]) / L}
		nn := [2]float64{tt[1], -tt[0]}
		if (P[k][0]-pi[0])*nn[0]+(P[k][1]-pi[1])*nn[1] > 0 {
			nn = [2]float64{-nn[0], -nn[1]} // outward, away from corner k
		}
		switch {
		case el.v[3+a] >= 0:
			// Unfold the neighbour's point q about the edge.
			xi, xj := geom.At(rest, int(el.v[i])), geom.At(rest, int(el.v[j]))
			xq := geom.At(rest, int(el.v[3+a]))
			dh := xj.Sub(xi).Normalized()
			s := xq.Sub(xi).Dot(dh)
			r := xq.Sub(xi).Sub(dh.Scale(s)).Norm()
			if !(r > 1e-12*L) {
				return fmt.Errorf("the triangle across edge (%d, %d) has zero rest area", el.v[i], el.v[j])
			}
			A[3+a] = pointRow([2]float64{pi[0] + s*tt[0] + r*nn[0], pi[1] + s*tt[1] + r*nn[1]})
		case el.edge[a] == shellFree:
			// H_nn + ν H_tt = 0 (in ξ, the same condition up to ℓ²).
			A[3+a] = [6]float64{0, 0, 0,
				2 * (nn[0]*nn[0] + nu*tt[0]*tt[0]),
				2 * (nn[0]*nn[1] + nu*tt[0]*tt[1]),
				2 * (nn[1]*nn[1] + nu*tt[1]*tt[1])}
		default:
			// ∂q/∂n at the edge midpoint = ℓ · (the rest direction across the edge).
			mu, mv := ((pi[0]+pj[0])/2-cx)/l, ((pi[1]+pj[1])/2-cy)/l
			A[3+a] = [6]float64{0, nn[0], nn[1], 2 * nn[0] * mu, nn[0]*mv + nn[1]*mu, 2 * nn[1] * mv}
			rhs[3+a] = e1.Scale(nn[0]).Add(e2.Scale(nn[1])).Scale(l)
		}
	}
	inv, ok := invert6(A)
	if !ok {
		return errors.New("the quadratic patch through the triangle and its neighbours is degenerate (its points lie on a conic): remesh or move a point")
	}
	l2 := l * l
	for k := 0; k < 6; k++ {
		wk := [3]float64{2 * inv[3][k] / l2, 2 * inv[5][k] / l2, inv[4][k] / l2}
		for s := 0; s < 3; s++ {
			if k < 3 || el.v[k] >= 0 {
				el.w[s][k] = wk[s]
			} else {
				el.g[s] = el.g[s].Add(rhs[k].Scale(wk[s]))
			}
		}
	}
	for s := 0; s < 3; s++ {
		v := el.g[s]
		for a := 0; a < 6; a++ {
			if el.v[a] >= 0 {
				v = v.Add(geom.At(rest, int(el.v[a])).Scale(el.w[s][a]))
			}
		}
		el.k0[s] = n0.Dot(v)
	}
	return nil
}

// invert6 inverts a 6×6 matrix by Gauss–Jordan elimination with partial
// pivoting; false when a pivot is below 1e-10 of the largest entry (the
// matrix is singular to working accuracy).
func invert6(a [6][6]float64) ([6][6]float64, bool) {
	var inv [6][6]float64
	big := 0.0
	for i := 0; i < 6; i++ {
		inv[i][i] = 1
		for j := 0; j < 6; j++ {
			big = math.Max(big, math.Abs(a[i][j]))
		}
	}
	for col := 0; col < 6; col++ {
		p := col
		for r := col + 1; r < 6; r++ {
			if math.Abs(a[r][col]) > math.Abs(a[p][col]) {
				p = r
			}
		}
		if !(math.Abs(a[p][col]) > 1e-10*big) {
			return inv, false
		}
		a[col], a[p] = a[p], a[col]
		inv[col], inv[p] = inv[p], inv[col]
		d := 1 / a[col][col]
		for j := 0; j < 6; j++ {
			a[col][j] *= d
			inv[col][j] *= d
		}
		for r := 0; r < 6; r++ {
			if r == col || a[r][col] == 0 {
				continue
			}
			f := a[r][col]
			for j := 0; j < 6; j++ {
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

// NumTriangles returns the number of shell triangles (after Init).
func (c *TriangularShellForceField) NumTriangles() int { return len(c.elems) }

// Curvature returns triangle t's curvature change κ − κ₀ (XX, YY, XY in
// its rest frame: X along its first edge) at x.
func (c *TriangularShellForceField) Curvature(t int, x []float64) [3]float64 {
	el := &c.elems[t]
	x0, x1, x2 := geom.At(x, int(el.v[0])), geom.At(x, int(el.v[1])), geom.At(x, int(el.v[2]))
	n := x1.Sub(x0).Cross(x2.Sub(x0)).Normalized()
	var k [3]float64
	for s := 0; s < 3; s++ {
		v := el.g[s]
		for a := 0; a < 6; a++ {
			if el.v[a] >= 0 {
				v = v.Add(geom.At(x, int(el.v[a])).Scale(el.w[s][a]))
			}
		}
		k[s] = n.Dot(v) - el.k0[s]
	}
	return k
}

// element returns the energy of triangle el at x and, when f is not nil,
// writes its forces (18: the six points) and when kk is not nil its
// tangent ∂f/∂x (18×18 row-major).
func (c *TriangularShellForceField) element(el *shellElem, x []float64, f, kk []float64) float64 {
	var p [6]geom.Vec3
	for a := 0; a < 6; a++ {
		if el.v[a] >= 0 {
			p[a] = geom.At(x, int(el.v[a]))
		}
	}
	if f != nil {
		clear(f[:18])
	}
	if kk != nil {
		clear(kk[:324])
	}
	addK := func(a, b int, m geom.Mat3, s float64) {
		for i := 0; i < 3; i++ {
			row := kk[18*(3*a+i)+3*b:]
			row[0] += s * m[3*i]
			row[1] += s * m[3*i+1]
			row[2] += s * m[3*i+2]
		}
	}
	w := 0.0
	A := el.area
	if c.Membrane {
		h := el.h
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
		w += A / 2 * (ev[0]*N[0] + ev[1]*N[1] + ev[2]*N[2])
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
		if kk != nil {
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
					geo := N[0]*ga[0]*gb[0] + N[1]*ga[1]*gb[1] + N[2]*(ga[0]*gb[1]+ga[1]*gb[0])
					m[0] += geo
					m[4] += geo
					m[8] += geo
					addK(a, b, m, -A)
				}
			}
		}
	}
	if c.Bending {
		h := el.h
		db := h * h * h / 12
		mv := p[1].Sub(p[0]).Cross(p[2].Sub(p[0]))
		lm := mv.Norm()
		t := mv.Scale(1 / lm)
		ed := [3]geom.Vec3{p[2].Sub(p[1]), p[0].Sub(p[2]), p[1].Sub(p[0])}
		var V [3]geom.Vec3
		var kv [3]float64
		sc := [3]float64{1, 1, 2}
		for s := 0; s < 3; s++ {
			v := el.g[s]
			for a := 0; a < 6; a++ {
				if el.v[a] >= 0 {
					v = v.Add(p[a].Scale(el.w[s][a]))
				}
			}
			V[s] = v
			kv[s] = sc[s] * (t.Dot(v) - el.k0[s])
		}
		var M [3]float64
		for s := 0; s < 3; s++ {
			for r := 0; r < 3; r++ {
				M[s] += db * c.cb[s][r] * kv[r]
			}
		}
		w += A / 2 * (kv[0]*M[0] + kv[1]*M[1] + kv[2]*M[2])
		if f == nil && kk == nil {
			return w
		}
		// ∂κv_s/∂x_a = sc_s (w_sa t + [a<3] u_s × e_a), u_s = P V_s/|m|.
		var G [3][6]geom.Vec3
		for s := 0; s < 3; s++ {
			u := V[s].Sub(t.Scale(t.Dot(V[s]))).Scale(1 / lm)
			for a := 0; a < 6; a++ {
				if el.v[a] < 0 {
					continue
				}
				g := t.Scale(el.w[s][a])
				if a < 3 {
					g = g.Add(u.Cross(ed[a]))
				}
				G[s][a] = g.Scale(sc[s])
			}
		}
		if f != nil {
			for a := 0; a < 6; a++ {
				fa := G[0][a].Scale(-A * M[0]).Add(G[1][a].Scale(-A * M[1])).Add(G[2][a].Scale(-A * M[2]))
				f[3*a] += fa[0]
				f[3*a+1] += fa[1]
				f[3*a+2] += fa[2]
			}
		}
		if kk == nil {
			return w
		}
		// Stress part: Σ_s μ_s ∂²(t·V_s) with μ_s = A M_s sc_s.
		var mu [3]float64
		var vbar geom.Vec3
		var alpha [6]float64
		for s := 0; s < 3; s++ {
			mu[s] = A * M[s] * sc[s]
			vbar = vbar.Add(V[s].Scale(mu[s]))
			for a := 0; a < 6; a++ {
				alpha[a] += mu[s] * el.w[s][a]
			}
		}
		proj := geom.Identity3().Sub(t.Outer(t))
		ubar := proj.MulVec(vbar).Scale(1 / lm)
		// ∂²f/∂m² for f(m) = V̄·m/|m|.
		fmm := t.Outer(ubar).Add(ubar.Outer(t)).Scale(-1 / lm).Sub(proj.Scale(t.Dot(vbar) / (lm * lm)))
		var pe [3]geom.Mat3 // P [e_b]× / |m| = ∂t/∂x_b
		for b := 0; b < 3; b++ {
			pe[b] = proj.Mul(ed[b].Skew()).Scale(1 / lm)
		}
		us := ubar.Skew()
		for a := 0; a < 6; a++ {
			if el.v[a] < 0 {
				continue
			}
			for b := 0; b < 6; b++ {
				if el.v[b] < 0 {
					continue
				}
				var m geom.Mat3
				for s := 0; s < 3; s++ {
					for r := 0; r < 3; r++ {
						if k := c.cb[s][r]; k != 0 {
							m = m.Add(G[s][a].Outer(G[r][b]).Scale(db * k))
						}
					}
				}
				m = m.Scale(A)
				if b < 3 {
					m = m.Add(pe[b].Scale(alpha[a]))
				}
				if a < 3 {
					m = m.Add(pe[a].T().Scale(alpha[b]))
				}
				if a < 3 && b < 3 {
					m = m.Add(ed[a].Skew().T().Mul(fmm).Mul(ed[b].Skew()))
					switch b {
					case (a + 1) % 3:
						m = m.Sub(us)
					case (a + 2) % 3:
						m = m.Add(us)
					}
				}
				addK(a, b, m, -1)
			}
		}
	}
	return w
}

// AddForce accumulates the shell forces and keeps each triangle's tangent
// for AddDForce.
func (c *TriangularShellForceField) AddForce(f, x, v []float64) {
	c.x = x
	c.runner.Run(len(c.elems), 32, c.forceRange)
	np := c.state.Size()
	c.runner.Run(np, 256, func(lo, hi int) { gatherIncidence(f, c.fLoc, c.start, c.slots, lo, hi) })
}

func (c *TriangularShellForceField) forceRange(lo, hi int) {
	for ei := lo; ei < hi; ei++ {
		c.wLoc[ei] = c.element(&c.elems[ei], c.x, c.fLoc[18*ei:18*ei+18], c.kLoc[324*ei:324*ei+324])
	}
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
	c.runner.Run(len(c.elems), 64, func(lo, hi int) {
		var loc [18]float64
		for ei := lo; ei < hi; ei++ {
			el := &c.elems[ei]
			for a := 0; a < 6; a++ {
				if v := el.v[a]; v >= 0 {
					loc[3*a], loc[3*a+1], loc[3*a+2] = dx[3*v], dx[3*v+1], dx[3*v+2]
				} else {
					loc[3*a], loc[3*a+1], loc[3*a+2] = 0, 0, 0
				}
			}
			kk := c.kLoc[324*ei : 324*ei+324]
			out := c.dLoc[18*ei : 18*ei+18]
			for r := 0; r < 18; r++ {
				row := kk[18*r : 18*r+18]
				s := 0.0
				for q, lq := range loc {
					s += row[q] * lq
				}
				out[r] = kFactor * s
			}
		}
	})
	np := c.state.Size()
	c.runner.Run(np, 256, func(lo, hi int) { gatherIncidence(df, c.dLoc, c.start, c.slots, lo, hi) })
}

// PotentialEnergy returns the shell's elastic energy at x.
func (c *TriangularShellForceField) PotentialEnergy(x []float64) float64 {
	w := 0.0
	for ei := range c.elems {
		w += c.element(&c.elems[ei], x, nil, nil)
	}
	return w
}

// AddKToMatrix implements graph.StiffnessAssembler: kFactor·K at the
// configuration of the last AddForce.
func (c *TriangularShellForceField) AddKToMatrix(m graph.MatrixAccumulator, kFactor float64) {
	c.ensureLinearised()
	for ei := range c.elems {
		el := &c.elems[ei]
		kk := c.kLoc[324*ei : 324*ei+324]
		for r := 0; r < 18; r++ {
			if el.v[r/3] < 0 {
				continue
			}
			ro := 3*int(el.v[r/3]) + r%3
			for q := 0; q < 18; q++ {
				if v := kk[18*r+q]; v != 0 && el.v[q/3] >= 0 {
					m.Add(ro, 3*int(el.v[q/3])+q%3, kFactor*v)
				}
			}
		}
	}
}

// StiffnessBlocks implements graph.StiffnessBlockAssembler: one block per
// pair of the (up to) six points of every triangle.
func (c *TriangularShellForceField) StiffnessBlocks() []int32 { return c.blocks }

// KBlocks implements graph.StiffnessBlockAssembler: kFactor·K at the last
// AddForce.
func (c *TriangularShellForceField) KBlocks(vals []float64, kFactor float64) {
	c.ensureLinearised()
	c.runner.Run(len(c.blockOf), 512, func(lo, hi int) {
		for bi := lo; bi < hi; bi++ {
			code := int(c.blockOf[bi])
			ei, a, b := code/36, (code%36)/6, code%6
			kk := c.kLoc[324*ei:]
			out := vals[9*bi : 9*bi+9]
			for i := 0; i < 3; i++ {
				row := kk[18*(3*a+i)+3*b:]
				out[3*i] = kFactor * row[0]
				out[3*i+1] = kFactor * row[1]
				out[3*i+2] = kFactor * row[2]
			}
		}
	})
}
