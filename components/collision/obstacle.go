package collision

import (
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
)

// shape is the geometry of a static obstacle.
type shape interface {
	// penetration returns, for a point p, the depth δ by which p is inside
	// the obstacle (≤ 0 outside: the caller ignores it), the outward unit
	// normal n at the nearest surface point (the direction the contact
	// pushes, with ∂δ/∂p = −nᵀ), and H = ∂n/∂p when curved (else zero).
	penetration(p geom.Vec3) (delta float64, n geom.Vec3, H geom.Mat3, curved bool)
}

// obstacle is the force-field engine every static obstacle shares
// (PlaneForceField, SphereForceField, BoxForceField,
// MeshObstacleForceField): the Penalty law applied to every point of a
// Vec3 state against a shape, with the tangent of the last AddForce and the
// per-step friction lag.
type obstacle struct {
	pen   *Penalty
	shape shape

	hits []obstacleHit // active normal contacts at the last AddForce
	fric []frictionHit // points with friction this step (lagged at the step start)

	contacts int     // points inside at the last lag update
	maxDepth float64 // largest δ then

	// The obstacle's motion (ObstacleMotion): the shape is translated by
	// offset and moves at vel during the step.
	offset, vel geom.Vec3
}

// penetration is the shape's penetration at p, the shape translated by
// the obstacle's offset.
func (o *obstacle) penetration(p geom.Vec3) (float64, geom.Vec3, geom.Mat3, bool) {
	return o.shape.penetration(p.Sub(o.offset))
}

type obstacleHit struct {
	i      int32
	curved bool
	lambda float64
	n      geom.Vec3
	hv     geom.Vec3 // H·v
	h      geom.Mat3
}

type frictionHit struct {
	i int32
	n geom.Vec3 // lagged normal
	c frictionCache
}

// checkVec3 returns the Vec3 state of the owner's node, or an error when
// there is none, it is not Vec3, or a visual mapping would drop the forces.
func checkVec3(b *graph.ObjectBase, what string) (graph.State, error) {
	st := b.Node.State()
	if st == nil {
		return nil, b.Errorf("needs a Vec3 MechanicalObject in the same node")
	}
	if name := st.Template().Name(); name != graph.Vec3.Name() {
		return nil, b.Errorf("state %q has template %s; %s acts on Vec3 points (map a surface onto the object, e.g. with RigidMapping for a Rigid3 body)", st.Base().Path(), name, what)
	}
	if m := b.Node.Mapping(); m != nil && !m.IsMechanical() {
		return nil, b.Errorf("state %q is mapped by %q, a visual (non-mechanical) mapping that carries no force back: %s would have no effect; make the mapping mechanical", st.Base().Path(), m.Base().Name, what)
	}
	return st, nil
}

// lag takes the friction data of the step at positions x: every point
// inside the obstacle gets friction bounded by its elastic normal force
// γδ along the normal there, held for the step (Penalty). It also records
// the contact figures.
func (o *obstacle) lag(x []float64) {
	o.fric = o.fric[:0]
	o.contacts, o.maxDepth = 0, 0
	n := len(x) / 3
	for i := 0; i < n; i++ {
		d, nrm, _, _ := o.penetration(geom.At(x, i))
		if d <= 0 {
			continue
		}
		o.contacts++
		o.maxDepth = max(o.maxDepth, d)
		if o.pen.Friction > 0 {
			o.fric = append(o.fric, frictionHit{i: int32(i), n: nrm,
				c: frictionCache{scale: o.pen.Friction * o.pen.Stiffness * d}})
		}
	}
}

// addForce accumulates the contact forces (Penalty) at x, v.
func (o *obstacle) addForce(f, x, v []float64) {
	o.hits = o.hits[:0]
	gamma, c := o.pen.Stiffness, o.pen.Damping
	n := len(x) / 3
	for i := 0; i < n; i++ {
		d, nrm, h, curved := o.penetration(geom.At(x, i))
		if d <= 0 {
			continue
		}
		vi := geom.At(v, i).Sub(o.vel) // relative to the obstacle
		lam := gamma*d - c*vi.Dot(nrm)
		if lam <= 0 {
			continue // separating fast enough that the dashpot would pull
		}
		geom.AddAt(f, i, nrm.Scale(lam))
		hit := obstacleHit{i: int32(i), lambda: lam, n: nrm, curved: curved}
		if curved {
			hit.h = h
			hit.hv = h.MulVec(vi)
		}
		o.hits = append(o.hits, hit)
	}
	for k := range o.fric {
		fh := &o.fric[k]
		ft, cache := frictionForce(1, fh.c.scale, o.pen.SlipVelocity, fh.n, geom.At(v, int(fh.i)).Sub(o.vel))
		fh.c = cache
		geom.AddAt(f, int(fh.i), ft)
	}
}

// addDForce accumulates kFactor·K·dx + bFactor·B·dx at the last addForce:
// K = −γ n nᵀ − c n (H v)ᵀ + λ H, B = −c n nᵀ + the friction's velocity
// derivative (v relative to a moving obstacle).
func (o *obstacle) addDForce(df, dx []float64, kFactor, bFactor float64) {
	gamma, c := o.pen.Stiffness, o.pen.Damping
	for k := range o.hits {
		h := &o.hits[k]
		d := geom.At(dx, int(h.i))
		nd := h.n.Dot(d)
		s := -(kFactor*gamma + bFactor*c) * nd
		if h.curved && kFactor != 0 {
			s -= kFactor * c * h.hv.Dot(d)
			geom.AddAt(df, int(h.i), h.h.MulVec(d).Scale(kFactor*h.lambda))
		}
		geom.AddAt(df, int(h.i), h.n.Scale(s))
	}
	if bFactor == 0 {
		return
	}
	for k := range o.fric {
		fh := &o.fric[k]
		geom.AddAt(df, int(fh.i), fh.c.dForce(fh.n, geom.At(dx, int(fh.i))).Scale(bFactor))
	}
}

// addKToMatrix writes kFactor·K of the last addForce, one 3×3 block per
// point in contact: kFactor (−γ n nᵀ − c n (H v)ᵀ + λ H), the curvature
// terms on curved shapes only, as addDForce applies them.
func (o *obstacle) addKToMatrix(m graph.MatrixAccumulator, kFactor float64) {
	gamma, c := o.pen.Stiffness, o.pen.Damping
	for k := range o.hits {
		h := &o.hits[k]
		var blk geom.Mat3
		for r := 0; r < 3; r++ {
			for q := 0; q < 3; q++ {
				v := -gamma * h.n[q]
				if h.curved {
					v -= c * h.hv[q]
					v = h.n[r]*v + h.lambda*h.h[3*r+q]
				} else {
					v *= h.n[r]
				}
				blk[3*r+q] = kFactor * v
			}
		}
		addBlock(m, int(h.i), &blk)
	}
}

// addBToMatrix writes bFactor·B of the last addForce: −c n nᵀ per point
// in contact and the friction's velocity derivative per point with
// friction this step (frictionCache.matrix).
func (o *obstacle) addBToMatrix(m graph.MatrixAccumulator, bFactor float64) {
	c := o.pen.Damping
	for k := range o.hits {
		h := &o.hits[k]
		var blk geom.Mat3
		for r := 0; r < 3; r++ {
			for q := 0; q < 3; q++ {
				blk[3*r+q] = -bFactor * c * h.n[r] * h.n[q]
			}
		}
		addBlock(m, int(h.i), &blk)
	}
	for k := range o.fric {
		fh := &o.fric[k]
		blk := fh.c.matrix(fh.n, bFactor)
		addBlock(m, int(fh.i), &blk)
	}
}

// addBlock adds the 3×3 block b at the diagonal position of point i.
func addBlock(m graph.MatrixAccumulator, i int, b *geom.Mat3) {
	for r := 0; r < 3; r++ {
		for q := 0; q < 3; q++ {
			m.Add(3*i+r, 3*i+q, b[3*r+q])
		}
	}
}

// energy returns Σ γ/2 δ² over the points inside.
func (o *obstacle) energy(x []float64) float64 {
	w := 0.0
	n := len(x) / 3
	for i := 0; i < n; i++ {
		if d, _, _, _ := o.penetration(geom.At(x, i)); d > 0 {
			w += 0.5 * o.pen.Stiffness * d * d
		}
	}
	return w
}
