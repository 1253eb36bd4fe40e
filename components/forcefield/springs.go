package forcefield

import (
	"fmt"
	"math"

	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/parallel"
)

// springSet is the kernel every pair-spring force field of this package
// shares (SpringForceField, MeshSpringForceField, TriangularBendingSprings):
// n springs, spring s joining point a[s] of state sa[s] to point b[s] of
// state sb[s] (one or two Vec3 states), with stiffness k, damping c along
// the spring and rest length l₀. With d = x_b − x_a, l = |d|, u = d/l and
// the relative velocity w = v_b − v_a,
//
//	W = ½ k (l − l₀)²,
//	F = k (l − l₀) u + c (u·w) u        (force on a; b gets −F),
//
// and the force differential, with P = I − u uᵀ,
//
//	∂F/∂d = M = k u uᵀ + k (l − l₀)/l P + c/l (u (P w)ᵀ + (u·w) P),
//	∂F/∂w = c u uᵀ,
//
// so df_a = M (dx_b − dx_a), df_b = −df_a (and likewise for B with
// c u uᵀ). The transverse (geometric) term k (l − l₀)/l P is what makes a
// stretched spring resist sideways motion — a pendulum's restoring force;
// the damping terms of M are the turning of the damping force with the
// spring (zero at rest velocity). A zero-length spring (l₀ = 0) is the
// linear spring F = k d, with M = k I at any l. Coincident endpoints of a
// spring with l₀ > 0 (l = 0, no direction) exert no force and no tangent.
//
// AddForce evaluates every spring in parallel into a per-spring buffer
// and caches M and u for AddDForce; the per-point sums are then gathered
// over a point → (spring, end) incidence list in increasing spring order,
// so results are bitwise identical for any number of workers (as the
// tetrahedral force fields do, see tetAssembler). Nothing is allocated per
// call.
type springSet struct {
	a, b   []int32 // endpoint points
	sa, sb []uint8 // endpoint states (indices into the states of a call)
	k, c   []float64
	l0     []float64
	damped bool // some c > 0

	// lin holds 8 numbers per spring, the linearisation at the last
	// AddForce: u, α, β, p with M = α u uᵀ + β I + u pᵀ (p = 0 without
	// damping; M is then symmetric).
	lin  []float64
	elem []float64 // 3 per spring: F or dF of the current pass
	// linearised: mat and dir hold the data of some AddForce.
	linearised bool

	// inc[st] is the incidence of state st: for point p, slots
	// start[p]..start[p+1] hold 2·s + end (end 0 for a, 1 for b) for every
	// spring s touching p, by increasing s.
	inc []springIncidence

	runner parallel.Runner
	// Arguments of the current pass, read by the bodies.
	argX, argV, argD [][]float64
	argOut           []float64
	argVals          []float64
	argState         int
	kFactor, bFactor float64
	one              [4][1][]float64 // one-state argument slices, no allocation

	forceBody, dforceBody, gatherBody, kblocksBody func(lo, hi int)
}

type springIncidence struct {
	start []int32
	slot  []int32
}

// Grain sizes of the spring loops: about 10 µs of work per chunk (a spring
// costs ~20 ns, a point's gather a few ns per incident spring).
const (
	springGrain      = 512
	springPointGrain = 512
)

// springDef is one spring before the kernel is built.
type springDef struct {
	sa, a, sb, b int
	k, c, l0     float64
}

// newSpringSet builds the kernel over states of the given sizes (points
// per state). Rest lengths must be set (l0 ≥ 0). It fails on an index out
// of range or a spring joining a point to itself, naming the spring with
// name(s).
func newSpringSet(defs []springDef, sizes []int, name func(s int) string) (*springSet, error) {
	n := len(defs)
	if n > math.MaxInt32/2 {
		return nil, fmt.Errorf("%d springs: too many", n)
	}
	ss := &springSet{
		a: make([]int32, n), b: make([]int32, n),
		sa: make([]uint8, n), sb: make([]uint8, n),
		k: make([]float64, n), c: make([]float64, n), l0: make([]float64, n),
		lin: make([]float64, 8*n), elem: make([]float64, 3*n),
	}
	for s, d := range defs {
		for _, e := range [2][2]int{{d.sa, d.a}, {d.sb, d.b}} {
			if e[0] < 0 || e[0] >= len(sizes) {
				return nil, fmt.Errorf("%s: state %d out of range", name(s), e[0])
			}
			if e[1] < 0 || e[1] >= sizes[e[0]] {
				return nil, fmt.Errorf("%s: point %d is out of range [0, %d) of its state", name(s), e[1], sizes[e[0]])
			}
		}
		if d.sa == d.sb && d.a == d.b {
			return nil, fmt.Errorf("%s joins point %d to itself", name(s), d.a)
		}
		if !(d.k >= 0) || !(d.c >= 0) || !(d.l0 >= 0) || math.IsInf(d.k+d.c+d.l0, 0) {
			return nil, fmt.Errorf("%s: stiffness %g, damping %g and rest length %g must be finite and non-negative", name(s), d.k, d.c, d.l0)
		}
		ss.a[s], ss.b[s] = int32(d.a), int32(d.b)
		ss.sa[s], ss.sb[s] = uint8(d.sa), uint8(d.sb)
		ss.k[s], ss.c[s], ss.l0[s] = d.k, d.c, d.l0
		if d.c > 0 {
			ss.damped = true
		}
	}
	ss.inc = make([]springIncidence, len(sizes))
	for st, np := range sizes {
		inc := springIncidence{start: make([]int32, np+1)}
		for s := range defs {
			if int(ss.sa[s]) == st {
				inc.start[ss.a[s]+1]++
			}
			if int(ss.sb[s]) == st {
				inc.start[ss.b[s]+1]++
			}
		}
		for p := 0; p < np; p++ {
			inc.start[p+1] += inc.start[p]
		}
		inc.slot = make([]int32, inc.start[np])
		fill := append([]int32(nil), inc.start[:np]...)
		for s := range defs {
			if int(ss.sa[s]) == st {
				inc.slot[fill[ss.a[s]]] = int32(2 * s)
				fill[ss.a[s]]++
			}
			if int(ss.sb[s]) == st {
				inc.slot[fill[ss.b[s]]] = int32(2*s + 1)
				fill[ss.b[s]]++
			}
		}
		ss.inc[st] = inc
	}
	ss.forceBody = ss.forces
	ss.dforceBody = ss.dforces
	ss.gatherBody = ss.gather
	ss.kblocksBody = ss.kblocks
	return ss, nil
}

// length returns |x_b − x_a| of spring s in the coordinates xs.
func (ss *springSet) length(xs [][]float64, s int) float64 {
	xa := xs[ss.sa[s]][3*ss.a[s]:]
	xb := xs[ss.sb[s]][3*ss.b[s]:]
	dx, dy, dz := xb[0]-xa[0], xb[1]-xa[1], xb[2]-xa[2]
	return math.Sqrt(dx*dx + dy*dy + dz*dz)
}

// numSprings returns the number of springs.
func (ss *springSet) numSprings() int { return len(ss.k) }

// addForce accumulates the spring forces into fs (one vector per state)
// at coordinates xs and velocities vs (vs, or any of its vectors, may be
// nil for zero velocity), and linearises there.
func (ss *springSet) addForce(fs, xs, vs [][]float64) {
	ss.argX, ss.argV = xs, vs
	ss.runner.Run(len(ss.k), springGrain, ss.forceBody)
	ss.argX, ss.argV = nil, nil
	ss.linearised = true
	ss.accumulate(fs)
}

// addDForce accumulates kFactor·K·dx + bFactor·B·dx at the linearisation
// of the last addForce (callers run addForce first if there was none).
func (ss *springSet) addDForce(dfs, dxs [][]float64, kFactor, bFactor float64) {
	if !ss.damped {
		bFactor = 0
	}
	if kFactor == 0 && bFactor == 0 {
		return
	}
	ss.argD, ss.kFactor, ss.bFactor = dxs, kFactor, bFactor
	ss.runner.Run(len(ss.k), springGrain, ss.dforceBody)
	ss.argD = nil
	ss.accumulate(dfs)
}

// accumulate adds the per-spring results of the last pass to outs.
func (ss *springSet) accumulate(outs [][]float64) {
	for st := range ss.inc {
		if st >= len(outs) || outs[st] == nil {
			continue
		}
		ss.argOut, ss.argState = outs[st], st
		ss.runner.Run(len(ss.inc[st].start)-1, springPointGrain, ss.gatherBody)
	}
	ss.argOut = nil
}

// forces evaluates springs [lo, hi): F into elem, the linearisation
// (u, α, β, p) into lin.
func (ss *springSet) forces(lo, hi int) {
	xs, vs := ss.argX, ss.argV
	for s := lo; s < hi; s++ {
		ia, ib := 3*int(ss.a[s]), 3*int(ss.b[s])
		xa := xs[ss.sa[s]][ia : ia+3 : ia+3]
		xb := xs[ss.sb[s]][ib : ib+3 : ib+3]
		dx, dy, dz := xb[0]-xa[0], xb[1]-xa[1], xb[2]-xa[2]
		l := math.Sqrt(dx*dx + dy*dy + dz*dz)
		k, l0 := ss.k[s], ss.l0[s]
		lin := ss.lin[8*s : 8*s+8 : 8*s+8]
		f := ss.elem[3*s : 3*s+3 : 3*s+3]
		if l == 0 {
			// No direction: a zero-length spring is F = k d = 0 with
			// M = k I; a spring with a rest length exerts nothing.
			f[0], f[1], f[2] = 0, 0, 0
			*(*[8]float64)(lin) = [8]float64{}
			if l0 == 0 {
				lin[4] = k
			}
			continue
		}
		inv := 1 / l
		ux, uy, uz := dx*inv, dy*inv, dz*inv
		// M = k u uᵀ + (t/l)(I − u uᵀ) = (k − t/l) u uᵀ + (t/l) I, with
		// the tension t = k (l − l₀) (for l₀ = 0: F = k d, M = k I).
		t := k * (l - l0)
		beta := t * inv
		alpha := k - beta
		fx, fy, fz := t*ux, t*uy, t*uz
		var px, py, pz float64
		if c := ss.c[s]; c != 0 && vs != nil {
			va, vb := vs[ss.sa[s]], vs[ss.sb[s]]
			var wx, wy, wz float64
			if vb != nil {
				wx, wy, wz = vb[ib], vb[ib+1], vb[ib+2]
			}
			if va != nil {
				wx, wy, wz = wx-va[ia], wy-va[ia+1], wz-va[ia+2]
			}
			sv := ux*wx + uy*wy + uz*wz
			cs := c * sv
			fx, fy, fz = fx+cs*ux, fy+cs*uy, fz+cs*uz
			// ∂(c (u·w) u)/∂d = c/l (u pᵀ + (u·w)(I − u uᵀ)),
			// p = w − (u·w) u.
			q := c * inv
			alpha -= q * sv
			beta += q * sv
			px, py, pz = q*(wx-sv*ux), q*(wy-sv*uy), q*(wz-sv*uz)
		}
		f[0], f[1], f[2] = fx, fy, fz
		lin[0], lin[1], lin[2], lin[3] = ux, uy, uz, alpha
		lin[4], lin[5], lin[6], lin[7] = beta, px, py, pz
	}
}

// dforces evaluates kFactor·M·dd + bFactor·c u (u·dd), dd = dx_b − dx_a,
// of springs [lo, hi) into elem.
func (ss *springSet) dforces(lo, hi int) {
	ds := ss.argD
	kf, bf := ss.kFactor, ss.bFactor
	for s := lo; s < hi; s++ {
		ia, ib := 3*int(ss.a[s]), 3*int(ss.b[s])
		da := ds[ss.sa[s]][ia : ia+3 : ia+3]
		db := ds[ss.sb[s]][ib : ib+3 : ib+3]
		x, y, z := db[0]-da[0], db[1]-da[1], db[2]-da[2]
		lin := ss.lin[8*s : 8*s+8 : 8*s+8]
		ux, uy, uz := lin[0], lin[1], lin[2]
		ud := ux*x + uy*y + uz*z
		g := kf * (lin[3]*ud + lin[5]*x + lin[6]*y + lin[7]*z)
		if bf != 0 {
			g += bf * ss.c[s] * ud
		}
		h := kf * lin[4]
		f := ss.elem[3*s : 3*s+3 : 3*s+3]
		f[0] = g*ux + h*x
		f[1] = g*uy + h*y
		f[2] = g*uz + h*z
	}
}

// matrix returns M of spring s at the last AddForce (row-major).
func (ss *springSet) matrix(s int) [9]float64 {
	lin := ss.lin[8*s : 8*s+8 : 8*s+8]
	var m [9]float64
	for r := 0; r < 3; r++ {
		for c := 0; c < 3; c++ {
			m[3*r+c] = lin[r] * (lin[3]*lin[c] + lin[5+c])
		}
		m[4*r] += lin[4]
	}
	return m
}

// gather adds the per-spring results to the points [lo, hi) of the
// current state: +elem at end a, −elem at end b, in spring order.
func (ss *springSet) gather(lo, hi int) {
	inc := &ss.inc[ss.argState]
	out, elem := ss.argOut, ss.elem
	for p := lo; p < hi; p++ {
		var sx, sy, sz float64
		for _, sl := range inc.slot[inc.start[p]:inc.start[p+1]] {
			q := elem[3*(sl>>1) : 3*(sl>>1)+3 : 3*(sl>>1)+3]
			if sl&1 == 0 {
				sx += q[0]
				sy += q[1]
				sz += q[2]
			} else {
				sx -= q[0]
				sy -= q[1]
				sz -= q[2]
			}
		}
		o := out[3*p : 3*p+3 : 3*p+3]
		o[0] += sx
		o[1] += sy
		o[2] += sz
	}
}

// energy returns Σ ½ k (l − l₀)² at xs.
func (ss *springSet) energy(xs [][]float64) float64 {
	w := 0.0
	for s := range ss.k {
		e := ss.length(xs, s) - ss.l0[s]
		w += 0.5 * ss.k[s] * e * e
	}
	return w
}

// addKToMatrix writes kFactor·K of a one-state spring set into m: per
// spring the blocks [[−M, M], [M, −M]] (rows a, b; columns a, b), at the
// linearisation of the last addForce (addKBToMatrix without damping).
func (ss *springSet) addKToMatrix(m graph.MatrixAccumulator, kFactor float64) {
	ss.addKBToMatrix(m, oneStateOffset, kFactor, 0)
}

// oneStateOffset is addKBToMatrix's offs for a one-state spring set.
var oneStateOffset = []int{0}

// addKBToMatrix writes kFactor·K + bFactor·B of the spring set into m,
// state st's entries starting at offs[st]: per spring the blocks
// [[−G, G], [G, −G]] (rows a, b; columns a, b) with
// G = kFactor·M + bFactor·c u uᵀ, as dforces applies them.
func (ss *springSet) addKBToMatrix(m graph.MatrixAccumulator, offs []int, kFactor, bFactor float64) {
	for s := range ss.k {
		a, b := offs[ss.sa[s]]+3*int(ss.a[s]), offs[ss.sb[s]]+3*int(ss.b[s])
		mm := ss.matrix(s)
		lin := ss.lin[8*s : 8*s+3]
		cb := bFactor * ss.c[s]
		for r := 0; r < 3; r++ {
			for c := 0; c < 3; c++ {
				v := kFactor*mm[3*r+c] + cb*lin[r]*lin[c]
				m.Add(a+r, a+c, -v)
				m.Add(a+r, b+c, v)
				m.Add(b+r, a+c, v)
				m.Add(b+r, b+c, -v)
			}
		}
	}
}

// oneState returns the slot-th reusable one-element slice holding v (for
// force fields on one state calling the kernel without allocating).
func (ss *springSet) oneState(slot int, v []float64) [][]float64 {
	ss.one[slot][0] = v
	return ss.one[slot][:]
}

// stiffnessBlocks returns the block positions of a one-state spring set
// for graph.StiffnessBlockAssembler: per spring (a, a), (a, b), (b, a),
// (b, b).
func (ss *springSet) stiffnessBlocks() []int32 {
	out := make([]int32, 0, 8*len(ss.k))
	for s := range ss.k {
		a, b := ss.a[s], ss.b[s]
		out = append(out, a, a, a, b, b, a, b, b)
	}
	return out
}

// kBlocks overwrites vals (36 numbers per spring, the blocks of
// stiffnessBlocks) with kFactor·[[−M, M], [M, −M]], in parallel (each
// spring writes its own slots).
func (ss *springSet) kBlocks(vals []float64, kFactor float64) {
	ss.argVals, ss.kFactor = vals[:36*len(ss.k)], kFactor
	ss.runner.Run(len(ss.k), springGrain, ss.kblocksBody)
	ss.argVals = nil
}

func (ss *springSet) kblocks(lo, hi int) {
	kf := ss.kFactor
	for s := lo; s < hi; s++ {
		m := ss.matrix(s)
		v := ss.argVals[36*s : 36*s+36 : 36*s+36]
		for i, x := range m {
			x *= kf
			v[i], v[9+i], v[18+i], v[27+i] = -x, x, x, -x
		}
	}
}
