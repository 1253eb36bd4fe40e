package forcefield

import (
	"errors"
	"fmt"
	"math"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/parallel"
)

// BeamFEMForceField is a geometrically exact (corotational) shear-
// deformable rod on a chain of Rigid3 frames (SOFA's BeamFEMForceField):
// the resultant-based rod of the lecture notes ("Resultant-based
// Formulations", Sec. II: W = ∫ ½ Γ·C_Γ Γ + ½ κ·C_κ κ along the centre
// line, the section's stretch/shear Γ and its bending/twist κ), one
// two-node element per edge.
//
// Each element joins frames i and j (rest length L). At Init every end
// gets a constant offset rotation C so that the element's directors
// D_a = R C e_a (a = 1, 2, 3) coincide at rest with the element frame
// (D₁ along the chord, D₂ from frame i's y axis): any rest shape (a
// polyline, a helix, frames at any orientation) is stress-free. With
// Δ = x_j − x_i, D̄_a = ½(D_a^i + D_a^j) and Q_ab = D_a^i·D_b^j, the
// strains are
//
//	Γ_a = D̄_a·Δ / L − δ_a1          (stretch, two shears)
//	κ_c = −Σ_ab ε_cab Q_ab / (2L)    (twist, two curvatures)
//
// and W = L/2 (EA Γ₁² + κGA (Γ₂² + Γ₃²) + GJ κ₁² + EI₂ κ₂² + EI₃ κ₃²).
// Γ and κ depend only on dot products of the frames' vectors, so rigid
// motions of any size leave them zero. κ is the skew part of the relative
// rotation R_iᵀR_j: for a relative rotation θ within an element it is
// sin θ/L, and D̄ shortens by cos(θ/2): both agree with the exact rotation
// vector to O(θ²), so large deflections need elements that turn by a few
// degrees each (the elastica test uses 10° or less; the error is below
// 0.1% there). In the small-deflection limit the element is the linear
// Timoshenko beam with one-point (reduced) shear integration: no shear
// locking, exact under end moments.
//
// Forces are −∂W/∂x with torques about each frame's origin (world
// frame). The tangent K = ∂f/∂x is exact: the material part
// Σ k_m h_m h_mᵀ (h_m the gradient of strain m), the stress part
// Σ k_m s_m ∂²s_m, and the part from turning the directors,
// −Σ_a [g_a]×[D_a]× on each rotation (g_a = ∂W/∂D_a). The last is not
// symmetric; its skew part is the torque the element exerts on its
// frames, and the assembled K is symmetric at an equilibrium without
// applied torques (direct solvers use it as it is).
//
// Sections: a disc or tube (radius, innerRadius) or a rectangle (width
// along the frame's y axis, height along z). The shear coefficient κ
// defaults to Cowper's (disc 6(1+ν)/(7+6ν), rectangle 10(1+ν)/(12+11ν)),
// the rectangle's torsion constant to Saint-Venant's series
// J = a b³ (1/3 − 0.21 b/a (1 − b⁴/(12 a⁴))) (a ≥ b, error under 0.5%).
//
// Compared with SOFA's BeamFEMForceField: SOFA's element is a small-
// strain Timoshenko beam in a corotated frame (rotation of the chord)
// without an energy or the tangent of the rotating frame; here the
// strains are exact under rigid motions, the energy is defined and the
// tangent is the exact derivative of the forces (graphtest fixtures).
// The mass is not part of the force field: put RigidMass on the frames
// (each frame's share of the rod: ρ A L_e and ρ I per unit length).
type BeamFEMForceField struct {
	graph.ObjectBase
	YoungModulus     float64  `toml:"youngModulus" doc:"Young's modulus E" unit:"Pa" range:"(0,inf)" required:"true"`
	PoissonRatio     float64  `toml:"poissonRatio" doc:"Poisson's ratio ν (shear modulus G = E/(2(1+ν)))" range:"(-1,0.5)"`
	Radius           float64  `toml:"radius" doc:"radius of a circular section (or the outer radius of a tube)" unit:"m" range:"[0,inf)"`
	InnerRadius      float64  `toml:"innerRadius" doc:"inner radius of a tube section (0: a full disc)" unit:"m" range:"[0,inf)"`
	Width            float64  `toml:"width" doc:"width of a rectangular section, along each frame's local y axis (with height, instead of radius)" unit:"m" range:"[0,inf)"`
	Height           float64  `toml:"height" doc:"height of a rectangular section, along each frame's local z axis" unit:"m" range:"[0,inf)"`
	ShearCoefficient float64  `toml:"shearCoefficient" doc:"Timoshenko shear coefficient κ (default: Cowper's for the section)" range:"[0,inf)"`
	Symmetric        bool     `toml:"symmetricTangent" doc:"use the symmetric part of the tangent (drop the skew part of the turning-director term, the element's torques): exact at equilibria without applied torques; set it for implicit dynamics with SparseCholeskySolver, which factorises one triangle of the matrix"`
	Edges            [][2]int `toml:"edges" doc:"the elements as pairs of frame indices (default: the chain 0–1, 1–2, ..., n−2–n−1 over all frames of the state)" range:"[0,inf)"`

	state  graph.State
	elems  []beamElem
	k      [6]float64 // EA, κGA, κGA, GJ, EI₂, EI₃
	runner parallel.Runner
	// per element at the last AddForce
	fLoc []float64 // 12 per element
	kLoc []float64 // 144 per element (row-major 12×12, K = ∂f/∂q)
	wLoc []float64
	x    []float64 // positions of the last AddForce (not owned)
}

type beamElem struct {
	i, j   int
	l      float64
	ci, cj geom.Mat3 // offsets: D_a = R C e_a (columns of R C)
}

func init() {
	graph.Register(graph.TypeInfo{
		Name: "BeamFEMForceField",
		Kind: graph.KindForceField,
		Summary: "Geometrically exact shear-deformable rods on Rigid3 frames (resultant-based: stretch, shear, twist, bending), corotational for any rigid motion; " +
			"circular, tube or rectangular sections; energy and exact tangent.",
		New: func() graph.Object { return &BeamFEMForceField{PoissonRatio: 0.3} },
	})
}

// Validate checks the section.
func (c *BeamFEMForceField) Validate() error {
	disc := c.Radius > 0
	rect := c.Width > 0 || c.Height > 0
	switch {
	case disc && rect:
		return errors.New("give radius (disc or tube) or width and height (rectangle), not both")
	case !disc && !rect:
		return errors.New("no section: give radius (and innerRadius for a tube) or width and height")
	case rect && !(c.Width > 0 && c.Height > 0):
		return errors.New("a rectangular section needs both width and height")
	case c.InnerRadius > 0 && !(c.InnerRadius < c.Radius):
		return fmt.Errorf("innerRadius = %g must be below radius = %g", c.InnerRadius, c.Radius)
	case c.InnerRadius > 0 && rect:
		return errors.New("innerRadius applies to a circular section (radius), not to width/height")
	}
	return nil
}

// SectionStiffness returns EA, κGA (both shear directions), GJ, EI₂ and
// EI₃ (about the frame's y and z axes) of the section.
func (c *BeamFEMForceField) SectionStiffness() [6]float64 {
	e, nu := c.YoungModulus, c.PoissonRatio
	g := e / (2 * (1 + nu))
	var a, j, i2, i3, kappa float64
	if c.Radius > 0 {
		r, ri := c.Radius, c.InnerRadius
		a = math.Pi * (r*r - ri*ri)
		i2 = math.Pi / 4 * (r*r*r*r - ri*ri*ri*ri)
		i3, j = i2, 2*i2
		kappa = 6 * (1 + nu) / (7 + 6*nu)
		if ri > 0 {
			// Cowper's thick tube: m = ri/r.
			m := ri / r
			m2 := m * m
			kappa = 6 * (1 + nu) * (1 + m2) * (1 + m2) /
				((7+6*nu)*(1+m2)*(1+m2) + (20+12*nu)*m2)
		}
	} else {
		w, h := c.Width, c.Height
		a = w * h
		i2 = w * h * h * h / 12 // about y: ∫ z² dA
		i3 = h * w * w * w / 12 // about z: ∫ y² dA
		long, short := math.Max(w, h), math.Min(w, h)
		j = long * short * short * short * (1.0/3 - 0.21*short/long*(1-math.Pow(short/long, 4)/12))
		kappa = 10 * (1 + nu) / (12 + 11*nu)
	}
	if c.ShearCoefficient > 0 {
		kappa = c.ShearCoefficient
	}
	return [6]float64{e * a, kappa * g * a, kappa * g * a, g * j, e * i2, e * i3}
}

// Init builds the elements from the state's rest frames.
func (c *BeamFEMForceField) Init() error { return c.Wrap(c.initialise()) }

func (c *BeamFEMForceField) initialise() error {
	if err := c.Validate(); err != nil {
		return err
	}
	st := c.Node.State()
	if st == nil {
		return errors.New("needs a Rigid3 MechanicalObject in the same node")
	}
	if tn := st.Template().Name(); tn != graph.Rigid3.Name() {
		return fmt.Errorf("state %q has template %s; BeamFEMForceField needs Rigid3 frames", st.Base().Path(), tn)
	}
	c.state = st
	n := st.Size()
	edges := c.Edges
	if len(edges) == 0 {
		if n < 2 {
			return fmt.Errorf("state %q has %d frame(s); a rod needs at least 2", st.Base().Path(), n)
		}
		for i := 0; i+1 < n; i++ {
			edges = append(edges, [2]int{i, i + 1})
		}
	}
	rest := st.Vec(graph.RestPosition)
	c.elems = c.elems[:0]
	for e, ed := range edges {
		if ed[0] >= n || ed[1] >= n || ed[0] == ed[1] {
			return fmt.Errorf("edges[%d] = %v: frame indices must be distinct and below %d", e, ed, n)
		}
		xi, qi := rigidAt(rest, ed[0])
		xj, qj := rigidAt(rest, ed[1])
		d := xj.Sub(xi)
		l := d.Norm()
		if !(l > 0) {
			return fmt.Errorf("edges[%d] = %v has zero rest length", e, ed)
		}
		e1 := d.Scale(1 / l)
		ri := qi.Mat()
		y := ri.Col(1)
		y = y.Sub(e1.Scale(y.Dot(e1)))
		if y.Norm() < 1e-6 {
			// The frame's y axis is along the chord: take its z axis.
			y = ri.Col(2).Cross(e1)
		}
		e2 := y.Normalized()
		e3 := e1.Cross(e2)
		el := geom.Cols(e1, e2, e3)
		c.elems = append(c.elems, beamElem{
			i: ed[0], j: ed[1], l: l,
			ci: ri.TMul(el),
			cj: qj.Mat().TMul(el),
		})
	}
	c.k = c.SectionStiffness()
	ne := len(c.elems)
	c.fLoc = make([]float64, 12*ne)
	c.kLoc = make([]float64, 144*ne)
	c.wLoc = make([]float64, ne)
	return nil
}

func rigidAt(x []float64, i int) (geom.Vec3, geom.Quat) {
	c := x[7*i : 7*i+7]
	return geom.Vec3{c[0], c[1], c[2]}, geom.Quat{c[3], c[4], c[5], c[6]}
}

// SetWorkers fixes the number of goroutines of the element loop (0:
// GOMAXPROCS).
func (c *BeamFEMForceField) SetWorkers(n int) { c.runner.Workers = n }

// NumElements returns the number of beam elements.
func (c *BeamFEMForceField) NumElements() int { return len(c.elems) }

// beamEval holds one element's evaluation: strains, their gradients over
// the 12 DOFs (translation i, rotation i, translation j, rotation j) and
// the directors.
type beamEval struct {
	s     [6]float64
	h     [6][12]float64
	di    [3]geom.Vec3 // D_a^i
	dj    [3]geom.Vec3 // D_a^j
	delta geom.Vec3
}

// levi returns (b, c) with ε_abc = +1 for the axis a: the cyclic pair.
var leviNext = [3][2]int{{1, 2}, {2, 0}, {0, 1}}

// evaluate computes strains and gradients of element e at x.
func (c *BeamFEMForceField) evaluate(e *beamElem, x []float64, ev *beamEval) {
	xi, qi := rigidAt(x, e.i)
	xj, qj := rigidAt(x, e.j)
	ri, rj := qi.Mat().Mul(e.ci), qj.Mat().Mul(e.cj)
	for a := 0; a < 3; a++ {
		ev.di[a], ev.dj[a] = ri.Col(a), rj.Col(a)
	}
	d := xj.Sub(xi)
	ev.delta = d
	inv := 1 / e.l
	// Γ_a = ½(D_a^i + D_a^j)·Δ/L − δ_a1. Gradients: translation ∓D̄_a/L;
	// rotation of end k: ∂/∂ω (D_a·Δ/(2L)) = D_a × Δ / (2L).
	for a := 0; a < 3; a++ {
		db := ev.di[a].Add(ev.dj[a]).Scale(0.5)
		s := db.Dot(d) * inv
		if a == 0 {
			s--
		}
		ev.s[a] = s
		h := &ev.h[a]
		for k := 0; k < 3; k++ {
			h[k] = -db[k] * inv
			h[6+k] = db[k] * inv
		}
		ti := ev.di[a].Cross(d).Scale(0.5 * inv)
		tj := ev.dj[a].Cross(d).Scale(0.5 * inv)
		for k := 0; k < 3; k++ {
			h[3+k] = ti[k]
			h[9+k] = tj[k]
		}
	}
	// κ_a = (D_b^i·D_c^j − D_c^i·D_b^j)/(2L) with (a,b,c) cyclic … written
	// from −Σ ε_abc Q_bc: κ_a = (Q_cb − Q_bc)/(2L). δ(u·v) with u = D^i,
	// v = D^j: ω_i·(u × v) + ω_j·(v × u).
	for a := 0; a < 3; a++ {
		b, cc := leviNext[a][0], leviNext[a][1]
		ev.s[3+a] = (ev.di[cc].Dot(ev.dj[b]) - ev.di[b].Dot(ev.dj[cc])) * 0.5 * inv
		g1 := ev.di[cc].Cross(ev.dj[b]) // d(Q_cb)/dω_i; d/dω_j is −g1
		g2 := ev.di[b].Cross(ev.dj[cc]) // d(Q_bc)/dω_i
		h := &ev.h[3+a]
		for k := 0; k < 3; k++ {
			h[k], h[6+k] = 0, 0
			h[3+k] = (g1[k] - g2[k]) * 0.5 * inv
			h[9+k] = -(g1[k] - g2[k]) * 0.5 * inv
		}
	}
}

// element computes energy, force (12) and, if kk is not nil, the tangent
// K = ∂f/∂q (12×12 row-major) of element e at x.
func (c *BeamFEMForceField) element(e *beamElem, x []float64, f, kk []float64) float64 {
	var ev beamEval
	c.evaluate(e, x, &ev)
	l := e.l
	var sig [6]float64 // ∂W/∂s_m = L k_m s_m
	w := 0.0
	for m := 0; m < 6; m++ {
		sig[m] = l * c.k[m] * ev.s[m]
		w += 0.5 * l * c.k[m] * ev.s[m] * ev.s[m]
	}
	for r := 0; r < 12; r++ {
		v := 0.0
		for m := 0; m < 6; m++ {
			v += sig[m] * ev.h[m][r]
		}
		f[r] = -v
	}
	if kk == nil {
		return w
	}
	for r := range kk[:144] {
		kk[r] = 0
	}
	// Material part: −Σ L k_m h_m h_mᵀ.
	for m := 0; m < 6; m++ {
		lk := l * c.k[m]
		h := &ev.h[m]
		for r := 0; r < 12; r++ {
			if h[r] == 0 {
				continue
			}
			a := -lk * h[r]
			row := kk[12*r : 12*r+12]
			for q := 0; q < 12; q++ {
				row[q] += a * h[q]
			}
		}
	}
	// Stress and turning-director parts: −[Bᵀ (Σ σ_m ∂²s_m/∂y²) B + G]
	// with y = (x_i, x_j, D^i_a, D^j_a), δD = ω × D = −[D]× ω.
	// They come from the derivatives of ∂W/∂y, collected per director:
	// g_a^i = ∂W/∂D_a^i, and the bilinear second derivatives.
	inv := 1 / l
	var gi, gj [3]geom.Vec3
	for a := 0; a < 3; a++ {
		// Γ_a: ∂/∂D_a^{i,j} = Δ/(2L).
		gi[a] = gi[a].Add(ev.delta.Scale(0.5 * inv * sig[a]))
		gj[a] = gj[a].Add(ev.delta.Scale(0.5 * inv * sig[a]))
		// κ_a = (D_c^i·D_b^j − D_b^i·D_c^j)/(2L).
		b, cc := leviNext[a][0], leviNext[a][1]
		s := sig[3+a] * 0.5 * inv
		gi[cc] = gi[cc].Add(ev.dj[b].Scale(s))
		gj[b] = gj[b].Add(ev.di[cc].Scale(s))
		gi[b] = gi[b].Sub(ev.dj[cc].Scale(s))
		gj[cc] = gj[cc].Sub(ev.di[b].Scale(s))
	}
	// G on each rotation: −Σ_a [g_a]×[D_a]× = −Σ_a (D_a g_aᵀ − (g_a·D_a) I).
	for a := 0; a < 3; a++ {
		gmi := geom.Identity3().Scale(gi[a].Dot(ev.di[a])).Sub(ev.di[a].Outer(gi[a]))
		gmj := geom.Identity3().Scale(gj[a].Dot(ev.dj[a])).Sub(ev.dj[a].Outer(gj[a]))
		if c.Symmetric {
			gmi, gmj = gmi.Sym(), gmj.Sym()
		}
		addBlock(kk, 1, 1, gmi)
		addBlock(kk, 3, 3, gmj)
	}
	// Second derivatives, each a pair (p, q) of y-blocks with α I:
	// contribution −α (B_pᵀB_q + B_qᵀB_p), B_x = I, B_D = −[D]×.
	// Γ_a: α = σ_a/(2L) between D_a^{end} and x_j (+), x_i (−); summed
	// over a first: the blocks are [Σ_a α_a D_a]× (x_j, rotation) and its
	// negative (rotation, x_j), the opposite for x_i.
	var si, sj geom.Vec3
	for a := 0; a < 3; a++ {
		al := sig[a] * 0.5 * inv
		si = si.Add(ev.di[a].Scale(al))
		sj = sj.Add(ev.dj[a].Scale(al))
	}
	for end, sv := range [2]geom.Vec3{si, sj} {
		sk := sv.Skew()
		msk := sk.Scale(-1)
		rot := 2*end + 1
		addBlock(kk, 2, rot, sk)
		addBlock(kk, rot, 2, msk)
		addBlock(kk, 0, rot, msk)
		addBlock(kk, rot, 0, sk)
	}
	// κ_a: +s between D_c^i and D_b^j, −s between D_b^i and D_c^j, with
	// −α B_uᵀB_v = α [u]×[v]× = α (v uᵀ − (u·v) I) in block (rot i, rot j)
	// and its transpose in (rot j, rot i).
	var kij geom.Mat3
	for a := 0; a < 3; a++ {
		b, cc := leviNext[a][0], leviNext[a][1]
		s := sig[3+a] * 0.5 * inv
		kij = kij.Add(skewSkew(ev.di[cc], ev.dj[b], s)).Add(skewSkew(ev.di[b], ev.dj[cc], -s))
	}
	addBlock(kk, 1, 3, kij)
	addBlock(kk, 3, 1, kij.T())
	return w
}

// skewSkew returns α [u]×[v]× = α (v uᵀ − (u·v) I).
func skewSkew(u, v geom.Vec3, al float64) geom.Mat3 {
	m := v.Outer(u).Scale(al)
	d := al * u.Dot(v)
	m[0] -= d
	m[4] -= d
	m[8] -= d
	return m
}

// addBlock adds m to the 3×3 block (r, c) of a 12×12 row-major matrix
// (blocks: 0 translation i, 1 rotation i, 2 translation j, 3 rotation j).
func addBlock(kk []float64, r, c int, m geom.Mat3) {
	for a := 0; a < 3; a++ {
		row := kk[12*(3*r+a)+3*c:]
		row[0] += m[3*a]
		row[1] += m[3*a+1]
		row[2] += m[3*a+2]
	}
}

// dofOffset returns the derivative offset of local block b of element e.
func (e *beamElem) dofOffset(b int) int {
	if b < 2 {
		return 6*e.i + 3*b
	}
	return 6*e.j + 3*(b-2)
}

// AddForce accumulates the rod forces and torques and keeps each
// element's tangent for AddDForce.
func (c *BeamFEMForceField) AddForce(f, x, v []float64) {
	c.x = x
	c.runner.Run(len(c.elems), 64, c.forceRange)
	for ei := range c.elems {
		e := &c.elems[ei]
		fl := c.fLoc[12*ei : 12*ei+12]
		for b := 0; b < 4; b++ {
			o := e.dofOffset(b)
			f[o] += fl[3*b]
			f[o+1] += fl[3*b+1]
			f[o+2] += fl[3*b+2]
		}
	}
}

func (c *BeamFEMForceField) forceRange(lo, hi int) {
	for ei := lo; ei < hi; ei++ {
		c.wLoc[ei] = c.element(&c.elems[ei], c.x, c.fLoc[12*ei:12*ei+12], c.kLoc[144*ei:144*ei+144])
	}
}

// AddDForce accumulates kFactor·K·dx with the tangents of the last
// AddForce (the rod has no damping of its own: B = 0).
func (c *BeamFEMForceField) AddDForce(df, dx []float64, kFactor, bFactor float64) {
	if kFactor == 0 {
		return
	}
	var loc [12]float64
	for ei := range c.elems {
		e := &c.elems[ei]
		for b := 0; b < 4; b++ {
			o := e.dofOffset(b)
			loc[3*b], loc[3*b+1], loc[3*b+2] = dx[o], dx[o+1], dx[o+2]
		}
		kk := c.kLoc[144*ei : 144*ei+144]
		for b := 0; b < 4; b++ {
			o := e.dofOffset(b)
			for a := 0; a < 3; a++ {
				row := kk[12*(3*b+a) : 12*(3*b+a)+12]
				s := 0.0
				for q := 0; q < 12; q++ {
					s += row[q] * loc[q]
				}
				df[o+a] += kFactor * s
			}
		}
	}
}

// PotentialEnergy returns the elastic energy of the rod at x.
func (c *BeamFEMForceField) PotentialEnergy(x []float64) float64 {
	w := 0.0
	var f [12]float64
	for ei := range c.elems {
		w += c.element(&c.elems[ei], x, f[:], nil)
	}
	return w
}

// AddKToMatrix implements graph.StiffnessAssembler: kFactor·K at the
// configuration of the last AddForce.
func (c *BeamFEMForceField) AddKToMatrix(m graph.MatrixAccumulator, kFactor float64) {
	for ei := range c.elems {
		e := &c.elems[ei]
		kk := c.kLoc[144*ei : 144*ei+144]
		for r := 0; r < 12; r++ {
			ro := e.dofOffset(r/3) + r%3
			for q := 0; q < 12; q++ {
				if v := kk[12*r+q]; v != 0 {
					m.Add(ro, e.dofOffset(q/3)+q%3, kFactor*v)
				}
			}
		}
	}
}
