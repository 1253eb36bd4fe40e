package forcefield

import (
	"fmt"
	"math"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
)

// altitudeSprings are the altitude springs of a tetrahedral mass–spring
// model (lecture 12 of Liu's course, "Mass-spring simulation for
// deformable objects": point–face and edge–edge altitude springs; Selle,
// Lentine & Fedkiw 2008, "A mass spring model for hair simulation",
// Sec. 4): per tetrahedron, four point–face springs (each corner against
// the plane of the opposite face) and three edge–edge springs (between
// the lines of the pairs of opposite edges). Edge springs fix the edge
// lengths, which fix a tetrahedron only up to a reflection: a flattened
// or mirrored tetrahedron can sit at zero edge energy. Altitude springs
// measure a signed altitude, positive at rest, so they push a flat
// tetrahedron back up and an inverted one back through.
//
// Every altitude is h = m̂·w with m = u × v, m̂ = m/|m| and u, v, w
// differences of corners:
//
//	point–face, corner i, face (j, k, l):  u = x_k − x_j, v = x_l − x_j, w = x_i − x_j
//	edge–edge, edges (i, j) and (k, l):    u = x_j − x_i, v = x_l − x_k, w = x_k − x_i
//
// (u and v exchanged where needed so that h > 0 at rest). The energy is
// W = ½ k (h − h₀)², h₀ the rest altitude. With r = |m|, P = I − m̂ m̂ᵀ
// and g_m = P w / r the derivatives are
//
//	∂h/∂u = v × g_m,  ∂h/∂v = g_m × u,  ∂h/∂w = m̂,
//
// and the Hessian, with H_mm = (−w m̂ᵀ − m̂ wᵀ − h I + 3 h m̂ m̂ᵀ)/r²,
//
//	H_uu = −[v]× H_mm [v]×,  H_vv = −[u]× H_mm [u]×,  H_uv = [v]× H_mm [u]× − [g_m]×,
//	H_uw = [v]× P / r,       H_vw = −[u]× P / r,      H_ww = 0,
//
// so the forces are −k (h − h₀) ∇h and the tangent −k (∇h ∇hᵀ + (h − h₀) ∇²h),
// carried to the corners through the ±1 differences. h is smooth wherever
// r > 0: through flat (h = 0) and inverted (h < 0) configurations alike.
// Where r vanishes (a face collapsed onto a line, two opposite edges
// parallel) the direction of the altitude is undefined; a spring whose r
// falls below 1e-10 of its rest value is left out of that evaluation.
type altitudeSprings struct {
	mesh *tetElements
	asm  *tetAssembler
	k    float64
	// Per tetrahedron and spring (7 per tetrahedron): the corner pairs of
	// u, v, w (oriented at rest), the rest altitude and the rest |u × v|.
	defs []altitudeDef
	h0   []float64
	r0   []float64
	// kmat holds the 12×12 tangent of each tetrahedron's springs at the
	// last AddForce (row-major, rows and columns corner·3 + axis), valid
	// when kValid; xLin is the x of that AddForce.
	kmat       []float64
	xLin       []float64
	kValid     bool
	linearised bool
	argX       []float64
	argK       float64
	energies   []float64

	forceBody, dforceBody, energyBody, tangentBody func(lo, hi int)
}

// altitudeDef gives u = x[u1] − x[u0], v = x[v1] − x[v0], w = x[w1] − x[w0]
// by local corner numbers.
type altitudeDef struct{ u0, u1, v0, v1, w0, w1 uint8 }

// altitudeTemplates are the seven springs of a tetrahedron (0, 1, 2, 3)
// before orientation: four point–face, three edge–edge.
var altitudeTemplates = [7]altitudeDef{
	{u0: 1, u1: 2, v0: 1, v1: 3, w0: 1, w1: 0}, // corner 0, face (1, 2, 3)
	{u0: 0, u1: 2, v0: 0, v1: 3, w0: 0, w1: 1}, // corner 1, face (0, 2, 3)
	{u0: 0, u1: 1, v0: 0, v1: 3, w0: 0, w1: 2}, // corner 2, face (0, 1, 3)
	{u0: 0, u1: 1, v0: 0, v1: 2, w0: 0, w1: 3}, // corner 3, face (0, 1, 2)
	{u0: 0, u1: 1, v0: 2, v1: 3, w0: 0, w1: 2}, // edges (0, 1), (2, 3)
	{u0: 0, u1: 2, v0: 1, v1: 3, w0: 0, w1: 1}, // edges (0, 2), (1, 3)
	{u0: 0, u1: 3, v0: 1, v1: 2, w0: 0, w1: 1}, // edges (0, 3), (1, 2)
}

// altitudeDegenerate is the fraction of its rest |u × v| below which a
// spring's altitude direction is treated as undefined.
const altitudeDegenerate = 1e-10

func newAltitudeSprings(mesh *tetElements, rest []float64, k float64) (*altitudeSprings, error) {
	ne := mesh.numElements()
	a := &altitudeSprings{
		mesh: mesh, asm: newTetAssembler(mesh), k: k,
		defs: make([]altitudeDef, 7*ne), h0: make([]float64, 7*ne), r0: make([]float64, 7*ne),
		kmat: make([]float64, 144*ne), energies: make([]float64, ne), xLin: make([]float64, len(rest)),
	}
	for e := 0; e < ne; e++ {
		p := cornerPositions(mesh, e, rest)
		for s, d := range altitudeTemplates {
			u, v, w := d.vectors(&p)
			m := u.Cross(v)
			r := m.Norm()
			h := m.Dot(w) / r
			if !(r > 0) || !(math.Abs(h) > 0) {
				return nil, fmt.Errorf("tetrahedron %d: altitude spring %d is degenerate at rest", e, s)
			}
			if h < 0 {
				d.u0, d.u1, d.v0, d.v1 = d.v0, d.v1, d.u0, d.u1
				h = -h
			}
			a.defs[7*e+s], a.h0[7*e+s], a.r0[7*e+s] = d, h, r
		}
	}
	a.forceBody = a.forces
	a.dforceBody = a.dforces
	a.energyBody = a.energy
	a.tangentBody = a.tangents
	return a, nil
}

func cornerPositions(mesh *tetElements, e int, x []float64) [4]geom.Vec3 {
	v := mesh.vertices(e)
	return [4]geom.Vec3{geom.At(x, v[0]), geom.At(x, v[1]), geom.At(x, v[2]), geom.At(x, v[3])}
}

func (d altitudeDef) vectors(p *[4]geom.Vec3) (u, v, w geom.Vec3) {
	return p[d.u1].Sub(p[d.u0]), p[d.v1].Sub(p[d.v0]), p[d.w1].Sub(p[d.w0])
}

// evaluate adds spring (e, s)'s forces to f (12 numbers, corners × xyz)
// when f is not nil and its tangent to K (12×12) when K is not nil; it
// returns the spring's energy.
func (a *altitudeSprings) evaluate(e, s int, p *[4]geom.Vec3, f []float64, K *[144]float64) float64 {
	d := a.defs[7*e+s]
	u, v, w := d.vectors(p)
	m := u.Cross(v)
	r := m.Norm()
	if !(r > altitudeDegenerate*a.r0[7*e+s]) {
		return 0
	}
	mh := m.Scale(1 / r)
	h := mh.Dot(w)
	ex := h - a.h0[7*e+s]
	k := a.k
	if f == nil && K == nil {
		return 0.5 * k * ex * ex
	}
	gm := w.Sub(mh.Scale(h)).Scale(1 / r)
	g := [3]geom.Vec3{v.Cross(gm), gm.Cross(u), mh}
	// Corners of u, v, w: +1 at pairs[P][0], −1 at pairs[P][1].
	pairs := [3][2]int{{3 * int(d.u1), 3 * int(d.u0)}, {3 * int(d.v1), 3 * int(d.v0)}, {3 * int(d.w1), 3 * int(d.w0)}}
	if f != nil {
		for P := 0; P < 3; P++ {
			fp := g[P].Scale(-k * ex)
			c1, c0 := pairs[P][0], pairs[P][1]
			for i := 0; i < 3; i++ {
				f[c1+i] += fp[i]
				f[c0+i] -= fp[i]
			}
		}
	}
	if K == nil {
		return 0.5 * k * ex * ex
	}
	// Hessian blocks in (u, v, w), then X = −k (g gᵀ + (h − h₀) H).
	proj := geom.Identity3().Sub(mh.Outer(mh))
	hmm := w.Outer(mh).Add(mh.Outer(w)).Scale(-1).Sub(geom.Identity3().Scale(h)).Add(mh.Outer(mh).Scale(3 * h)).Scale(1 / (r * r))
	su, sv := u.Skew(), v.Skew()
	var H [3][3]geom.Mat3
	H[0][0] = sv.Mul(hmm).Mul(sv).Scale(-1)
	H[1][1] = su.Mul(hmm).Mul(su).Scale(-1)
	H[0][1] = sv.Mul(hmm).Mul(su).Sub(gm.Skew())
	H[0][2] = sv.Mul(proj).Scale(1 / r)
	H[1][2] = su.Mul(proj).Scale(-1 / r)
	H[1][0], H[2][0], H[2][1] = H[0][1].T(), H[0][2].T(), H[1][2].T()
	var X [9][9]float64
	for P := 0; P < 3; P++ {
		for Q := 0; Q < 3; Q++ {
			hb := &H[P][Q]
			for i := 0; i < 3; i++ {
				for j := 0; j < 3; j++ {
					X[3*P+i][3*Q+j] = -k * (g[P][i]*g[Q][j] + ex*hb[3*i+j])
				}
			}
		}
	}
	// Y = X S (9×12), then K += Sᵀ Y.
	var Y [9][12]float64
	for Q := 0; Q < 3; Q++ {
		c1, c0 := pairs[Q][0], pairs[Q][1]
		for r := 0; r < 9; r++ {
			for j := 0; j < 3; j++ {
				x := X[r][3*Q+j]
				Y[r][c1+j] += x
				Y[r][c0+j] -= x
			}
		}
	}
	for P := 0; P < 3; P++ {
		c1, c0 := pairs[P][0], pairs[P][1]
		for i := 0; i < 3; i++ {
			y := &Y[3*P+i]
			k1 := K[12*(c1+i) : 12*(c1+i)+12 : 12*(c1+i)+12]
			k0 := K[12*(c0+i) : 12*(c0+i)+12 : 12*(c0+i)+12]
			for col, x := range y {
				k1[col] += x
				k0[col] -= x
			}
		}
	}
	return 0.5 * k * ex * ex
}

// forces evaluates the forces of tetrahedra [lo, hi) at argX into the
// assembler's element buffer.
func (a *altitudeSprings) forces(lo, hi int) {
	for e := lo; e < hi; e++ {
		p := cornerPositions(a.mesh, e, a.argX)
		f := a.asm.elem[12*e : 12*e+12 : 12*e+12]
		clear(f)
		for s := 0; s < 7; s++ {
			a.evaluate(e, s, &p, f, nil)
		}
	}
}

// tangents evaluates the tangents of tetrahedra [lo, hi) at the
// linearisation point into kmat.
func (a *altitudeSprings) tangents(lo, hi int) {
	for e := lo; e < hi; e++ {
		p := cornerPositions(a.mesh, e, a.xLin)
		K := (*[144]float64)(a.kmat[144*e : 144*e+144])
		*K = [144]float64{}
		for s := 0; s < 7; s++ {
			a.evaluate(e, s, &p, nil, K)
		}
	}
}

// ensureTangents builds the tangents at the last addForce if they are
// not built yet: explicit integrators, which never ask for them, do not
// pay for them.
func (a *altitudeSprings) ensureTangents() {
	if a.kValid {
		return
	}
	a.asm.elements(a.tangentBody)
	a.kValid = true
}

// dforces multiplies each tetrahedron's cached tangent by its corners'
// values of argX (a dx), scaled by argK, into the element buffer.
func (a *altitudeSprings) dforces(lo, hi int) {
	for e := lo; e < hi; e++ {
		v := a.mesh.vertices(e)
		var dx [12]float64
		for c := 0; c < 4; c++ {
			copy(dx[3*c:3*c+3], a.argX[3*v[c]:3*v[c]+3])
		}
		K := a.kmat[144*e : 144*e+144 : 144*e+144]
		f := a.asm.elem[12*e : 12*e+12 : 12*e+12]
		for i := 0; i < 12; i++ {
			row := K[12*i : 12*i+12 : 12*i+12]
			s := 0.0
			for j, x := range dx {
				s += row[j] * x
			}
			f[i] = a.argK * s
		}
	}
}

func (a *altitudeSprings) energy(lo, hi int) {
	for e := lo; e < hi; e++ {
		p := cornerPositions(a.mesh, e, a.argX)
		w := 0.0
		for s := 0; s < 7; s++ {
			w += a.evaluate(e, s, &p, nil, nil)
		}
		a.energies[e] = w
	}
}

// addForce accumulates the altitude forces at x into f and linearises
// there (keeping a copy of x; the tangents follow on demand).
func (a *altitudeSprings) addForce(f, x []float64) {
	a.argX = x
	a.asm.elements(a.forceBody)
	a.argX = nil
	copy(a.xLin, x)
	a.linearised, a.kValid = true, false
	a.asm.accumulate(f)
}

// addDForce accumulates kFactor·K·dx at the last addForce.
func (a *altitudeSprings) addDForce(df, dx []float64, kFactor float64) {
	if kFactor == 0 {
		return
	}
	a.ensureTangents()
	a.argX, a.argK = dx, kFactor
	a.asm.elements(a.dforceBody)
	a.argX = nil
	a.asm.accumulate(df)
}

// potentialEnergy returns Σ ½ k (h − h₀)² at x, summed in element order.
func (a *altitudeSprings) potentialEnergy(x []float64) float64 {
	a.argX = x
	a.asm.elements(a.energyBody)
	a.argX = nil
	w := 0.0
	for _, e := range a.energies {
		w += e
	}
	return w
}

// stiffnessBlocks returns the 16 blocks (v_i, v_j) of every tetrahedron,
// i, j = 0..3 row-major, in element order.
func (a *altitudeSprings) stiffnessBlocks() []int32 {
	ne := a.mesh.numElements()
	out := make([]int32, 0, 32*ne)
	for e := 0; e < ne; e++ {
		v := a.mesh.idx[4*e : 4*e+4]
		for i := 0; i < 4; i++ {
			for j := 0; j < 4; j++ {
				out = append(out, v[i], v[j])
			}
		}
	}
	return out
}

// kBlocks overwrites vals (144 per tetrahedron) with kFactor times the
// cached tangents, block by block in the order of stiffnessBlocks.
func (a *altitudeSprings) kBlocks(vals []float64, kFactor float64) {
	a.ensureTangents()
	for e := 0; e < a.mesh.numElements(); e++ {
		K := a.kmat[144*e : 144*e+144 : 144*e+144]
		out := vals[144*e : 144*e+144 : 144*e+144]
		for i := 0; i < 4; i++ {
			for j := 0; j < 4; j++ {
				blk := out[9*(4*i+j) : 9*(4*i+j)+9 : 9*(4*i+j)+9]
				for r := 0; r < 3; r++ {
					for c := 0; c < 3; c++ {
						blk[3*r+c] = kFactor * K[12*(3*i+r)+3*j+c]
					}
				}
			}
		}
	}
}

// addKToMatrix writes kFactor times the cached tangents into m.
func (a *altitudeSprings) addKToMatrix(m graph.MatrixAccumulator, kFactor float64) {
	a.ensureTangents()
	for e := 0; e < a.mesh.numElements(); e++ {
		v := a.mesh.vertices(e)
		K := a.kmat[144*e : 144*e+144 : 144*e+144]
		for i := 0; i < 12; i++ {
			for j := 0; j < 12; j++ {
				m.Add(3*v[i/3]+i%3, 3*v[j/3]+j%3, kFactor*K[12*i+j])
			}
		}
	}
}
