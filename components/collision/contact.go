package collision

import (
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
)

// contact is one point–surface contact found by the narrow phase, frozen
// for the step as SOFA's penalty contacts are (PenalityContactForceField
// keeps each contact's normal and its point on the other object from
// detection to the next): the gap vector is an affine function of the
// participating DOFs,
//
//	g(x) = b0 + Σ_k a_k x_k,   δ = −g·n,
//
// with, for point p of object A against the point c = Σ w_j y_j of a
// triangle of object B (outward normal n of B),
//
//	two-sided:               g = x_p − Σ w_j y_j      (a = 1, −w0, −w1, −w2)
//	B static (frozen at c):  g = x_p − c              (a = 1)
//	A static (frozen at p):  g = p − Σ w_j y_j        (a = −w0, −w1, −w2)
//
// so δ is the penetration of p into B measured along the normal at
// detection, and the contact potential is the lecture notes' plane penalty
// W = γ/2 (g·n)² while δ > 0. The force on participant k is a_k·F with
// F = λ n + f_t (Penalty): equal and opposite on the two objects, the
// triangle's share spread by the barycentric weights. The tangent of that
// force is exact (n and the weights are constants of the step):
//
//	∂F/∂x_k = −γ a_k n nᵀ,   B: −c n nᵀ and the friction's velocity derivative.
type contact struct {
	k    int32 // number of participants (1 to 4)
	slot [4]int32
	dof  [4]int32
	a    [4]float64
	b0   geom.Vec3
	n    geom.Vec3
	// lag is the elastic normal force γδ at detection: the bound of this
	// step's friction (0: no friction).
	lag float64
	// v0 is added to Σ a_k v_k: the frozen velocity of the other side of a
	// friction-only contact.
	v0 geom.Vec3
	// frictionOnly contacts carry the friction of an explicitly coupled
	// contact, whose normal force is held (see CollisionPipeline).
	frictionOnly bool

	// At the last addForce.
	lambda float64 // normal force, 0 when inactive
	fc     frictionCache
}

// combine returns Σ a_k x_k over the participants (plus b0 when withOffset).
func (c *contact) combine(xs [][]float64, withOffset bool) geom.Vec3 {
	var g geom.Vec3
	if withOffset {
		g = c.b0
	}
	for k := int32(0); k < c.k; k++ {
		x := xs[c.slot[k]]
		d := 3 * c.dof[k]
		a := c.a[k]
		g[0] += a * x[d]
		g[1] += a * x[d+1]
		g[2] += a * x[d+2]
	}
	return g
}

func (c *contact) scatter(fs [][]float64, f geom.Vec3) {
	for k := int32(0); k < c.k; k++ {
		y := fs[c.slot[k]]
		d := 3 * c.dof[k]
		a := c.a[k]
		y[d] += a * f[0]
		y[d+1] += a * f[1]
		y[d+2] += a * f[2]
	}
}

// force evaluates the contact at positions xs and velocities vs: the total
// force F on the side with a = +1 (the others get a_k·F), with the normal
// force λ and the friction cache stored for dForce.
func (c *contact) force(p *Penalty, xs, vs [][]float64) geom.Vec3 {
	vrel := c.combine(vs, false).Add(c.v0)
	var f geom.Vec3
	c.lambda = 0
	if delta := -c.combine(xs, true).Dot(c.n); delta > 0 && !c.frictionOnly {
		if lam := p.Stiffness*delta - p.Damping*vrel.Dot(c.n); lam > 0 {
			c.lambda = lam
			f = c.n.Scale(lam)
		}
	}
	if c.lag > 0 && p.Friction > 0 {
		ft, fc := frictionForce(p.Friction, c.lag, p.SlipVelocity, c.n, vrel)
		c.fc = fc
		f = f.Add(ft)
	}
	return f
}

// contactSet is a list of contacts over one or several states (slots) with
// their penalty law, and the contact figures of the detection that made it.
type contactSet struct {
	pen  *Penalty
	list []contact

	contacts int     // contacts penetrating at detection
	maxDepth float64 // largest penetration then
}

func (cs *contactSet) reset() {
	cs.list = cs.list[:0]
	cs.contacts, cs.maxDepth = 0, 0
}

// add appends a contact detected at penetration delta (> 0: penetrating),
// which fixes its friction bound.
func (cs *contactSet) add(c contact, delta float64) {
	if delta > 0 {
		cs.contacts++
		cs.maxDepth = max(cs.maxDepth, delta)
		if cs.pen.Friction > 0 {
			c.lag = cs.pen.Stiffness * delta
		}
	}
	cs.list = append(cs.list, c)
}

func (cs *contactSet) addForce(fs, xs, vs [][]float64) {
	for i := range cs.list {
		c := &cs.list[i]
		f := c.force(cs.pen, xs, vs)
		if c.lambda > 0 || c.lag > 0 {
			c.scatter(fs, f)
		}
	}
}

func (cs *contactSet) addDForce(dfs, dxs [][]float64, kFactor, bFactor float64) {
	kn := kFactor*cs.pen.Stiffness + bFactor*cs.pen.Damping
	frict := bFactor != 0 && cs.pen.Friction > 0
	for i := range cs.list {
		c := &cs.list[i]
		if c.lambda <= 0 && !(frict && c.lag > 0) {
			continue
		}
		d := c.combine(dxs, false)
		var df geom.Vec3
		if c.lambda > 0 {
			df = c.n.Scale(-kn * c.n.Dot(d))
		}
		if frict && c.lag > 0 {
			df = df.Add(c.fc.dForce(c.n, d).Scale(bFactor))
		}
		c.scatter(dfs, df)
	}
}

func (cs *contactSet) energy(xs [][]float64) float64 {
	w := 0.0
	for i := range cs.list {
		c := &cs.list[i]
		if c.frictionOnly {
			continue
		}
		if delta := -c.combine(xs, true).Dot(c.n); delta > 0 {
			w += 0.5 * cs.pen.Stiffness * delta * delta
		}
	}
	return w
}

// addToMatrix writes the matrix addDForce applies, as 3×3 blocks between
// the participants of every contact, into m: participant k of a contact
// is DOF dof[k] of slot slot[k], at scalar entry offs[slot]+3·dof. With
// d = Σ_l a_l dx_l and the force a_k·F on participant k, the block (k, l)
// is a_k a_l G with
//
//	G = −(kn·γ + bn·c) n nᵀ                     (normal force in action)
//	  + bf·(−μλ_e (a P + (b − a) t tᵀ P))       (friction, frictionCache)
//
// kn, bn, bf the factors of the stiffness γ, the dashpot c and the
// friction (kFactor, bFactor, bFactor for kK + bB; one of them zero for K
// or B alone). The contacts written are those addDForce acts on at the
// last addForce (normal force λ > 0, or friction lagged for the step),
// each with all its blocks whatever the factors (zeros included), so the
// entries depend on the contact set only. frictionCache's t is tangential
// (u = P v), so t tᵀ P = t tᵀ and G is symmetric (up to rounding:
// frictionCache.matrix).
func (cs *contactSet) addToMatrix(m graph.MatrixAccumulator, offs []int, kn, bn, bf float64) {
	gn := kn*cs.pen.Stiffness + bn*cs.pen.Damping
	frict := cs.pen.Friction > 0
	var G geom.Mat3
	for i := range cs.list {
		c := &cs.list[i]
		normal := c.lambda > 0
		fr := frict && c.lag > 0
		if !normal && !fr {
			continue
		}
		G = geom.Mat3{}
		if normal {
			for r := 0; r < 3; r++ {
				for q := 0; q < 3; q++ {
					G[3*r+q] = -gn * c.n[r] * c.n[q]
				}
			}
		}
		if fr {
			f := c.fc.matrix(c.n, bf)
			for q := range G {
				G[q] += f[q]
			}
		}
		for k := int32(0); k < c.k; k++ {
			rk := offs[c.slot[k]] + 3*int(c.dof[k])
			for l := int32(0); l < c.k; l++ {
				rl := offs[c.slot[l]] + 3*int(c.dof[l])
				w := c.a[k] * c.a[l]
				for r := 0; r < 3; r++ {
					for q := 0; q < 3; q++ {
						m.Add(rk+r, rl+q, w*G[3*r+q])
					}
				}
			}
		}
	}
}
