package collision

import (
	"fmt"
	"math"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
)

var inf = math.Inf(1)

// CollisionPipeline finds the contacts between the collision models
// (TriangleCollisionModel, PointCollisionModel) of its subtree at the start
// of every step and turns them into penalty forces (the law of Penalty).
//
// Detection, once per step, before the solvers (graph.CollisionPipeline):
//
//   - broad phase: every model has a bounding-volume hierarchy over its
//     points and, for triangle models, one over its triangles, built once
//     and refitted to the current positions every step (O(n), no
//     rebuild); the points of A whose leaves and selves lie within
//     contactDistance of the box of B's surface go on to
//   - narrow phase: the nearest triangle of B to each such point p within
//     contactDistance, by branch and bound down B's triangle tree (nearer
//     child first). The point's nearest triangle at the last detection (or
//     its neighbour's) is measured first, so the search starts with a
//     tight bound and opens few nodes; triangle boxes, then the distance to
//     the triangle's plane, are tested before the exact point–triangle
//     distance (Ericson). That gives the closest point c on B's surface; p
//     is inside B when (p − c)·N < 0 for the
//     angle-weighted pseudo-normal N of the feature c lies on (Bærentzen &
//     Aanæs 2005; exact for B's closed surface), which gives the
//     penetration δ and B's outward normal n at c. A point found
//     penetrating keeps being looked for at any depth the next step (an
//     unbounded nearest-triangle query), so a contact deeper than
//     contactDistance is not lost;
//   - response: a contact (p, c = Σ w_j y_j, n) with the potential
//     W = γ/2 ((x_p − Σ w_j y_j)·n)² while penetrating (n and w frozen for
//     the step, as SOFA's penalty contacts), a normal dashpot and
//     regularised Coulomb friction; its force goes to p and, spread by the
//     weights w_j, oppositely to the triangle's vertices (see contact).
//
// Both directions are tested (A's points against B's surface and B's
// against A's); vertex–face contacts only, so meshes should be fine enough
// that edges do not cross without a vertex entering.
//
// Coupling. How a contact acts depends on who integrates the two objects:
//
//   - same ODE solver: implicit. The contact lives in an interaction force
//     field added to that solver's node (contactInteraction), evaluated at
//     the current positions with its stiffness in AddDForce on both
//     objects: stiff contacts stay stable with implicit Euler.
//   - different solvers: explicit. The normal contact force is computed
//     once, at detection, from the positions and velocities at the start
//     of the step, and each object's model adds its share as a constant
//     force during the step (equal and opposite, so momentum is exchanged
//     exactly). Stable while h·√(γ (1/m_A + 1/m_B)) stays below about 1
//     for the masses m of the contacting points (vertex masses of a mesh);
//     beyond that use one solver for both objects. Friction, whose
//     regularised law is far too stiff in velocity to be explicit, acts
//     on each object against the other's velocity at detection, with its
//     velocity derivative in that object's own solver (so it is stable,
//     and equal and opposite up to the change of the relative velocity
//     within the step).
//   - one object static (no solver above it): implicit on the moving
//     object, against the static surface frozen where it is.
//
// Self-contact (selfCollision on a TriangleCollisionModel, off by
// default) tests the surface's vertices against its own triangles, skipping
// those within one ring of the vertex and those that do not face it (a
// surface touches itself only where two sheets face each other: a fold).
type CollisionPipeline struct {
	graph.ObjectBase
	Penalty
	ContactDistance float64 `toml:"contactDistance" doc:"alarm distance: a point closer than this to another object's surface becomes a contact (active once it penetrates); at least the relative distance objects travel in one step" unit:"m" range:"(0,inf)" required:"true"`

	models       []*model
	pairs        []*pairState
	interactions []*contactInteraction
	explicitN    int     // explicitly coupled contacts penetrating at the last detection
	explicitMax  float64 // their largest penetration

	stack []bvhEntry
	walk  []int32
}

// Contact coupling of a pair of models.
const (
	coupleImplicit = iota // same solver: contactInteraction
	coupleExplicit        // different solvers: forces held for the step
	coupleStaticB         // B static: live contacts on A's model
	coupleStaticA         // A static: live contacts on B's model
)

// pairState is one ordered pair (A's points against B's surface).
type pairState struct {
	a, b     *model
	coupling int
	inter    *contactInteraction
	slotA    int32
	slotB    int32
	prev     []int32 // points of A penetrating B at the last detection
	next     []int32
	hint     []int32 // per point of A: its nearest triangle of B at the last detection (−1: none)
}

// collider is implemented by the collision model components.
type collider interface {
	graph.Object
	Init() error
	collisionModel() *model
}

func init() {
	graph.Register(graph.TypeInfo{
		Name: "CollisionPipeline",
		Kind: graph.KindCollision,
		Summary: "Finds contacts between the collision models of its subtree every step (refitted bounding-volume hierarchies, point–triangle proximity, pseudo-normal inside test) and applies penalty forces " +
			"with damping and regularised Coulomb friction: implicitly between objects of one solver, explicitly (held for the step) between solvers.",
		New: func() graph.Object { return &CollisionPipeline{Penalty: defaultPenalty()} },
	})
}

// Validate checks the penalty parameters.
func (p *CollisionPipeline) Validate() error { return p.Penalty.check() }

// Init gathers the collision models of the subtree, decides how each pair
// is coupled, adds one contact interaction force field per solver that
// integrates two or more models (or a self-colliding one), and detects the
// initial contacts.
func (p *CollisionPipeline) Init() error {
	if err := p.Validate(); err != nil {
		return p.Wrap(err)
	}
	var cols []collider
	err := p.Node.Walk(func(n *graph.Node) error {
		for _, o := range n.Objects {
			if c, ok := o.(collider); ok {
				cols = append(cols, c)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(cols) == 0 {
		return p.Errorf("no collision model (TriangleCollisionModel, PointCollisionModel) in node %q or below", p.Node.Path())
	}
	for _, c := range cols {
		if err := c.Init(); err != nil {
			return err
		}
		m := c.collisionModel()
		if m.claimed != nil {
			return c.Base().Errorf("collision model is already handled by pipeline %q; use one CollisionPipeline per set of objects", m.claimed.Path())
		}
		m.claimed = &p.ObjectBase
		m.oneSided.pen = &p.Penalty
		m.solver = solverOf(c.Base().Node)
		p.models = append(p.models, m)
	}
	for _, a := range p.models {
		for _, b := range p.models {
			if b.surf == nil || (a == b && !b.self) || (a != b && a.group != 0 && a.group == b.group) {
				continue
			}
			if a.solver == nil && b.solver == nil {
				continue // two static objects
			}
			ps := &pairState{a: a, b: b, hint: make([]int32, len(a.points))}
			for i := range ps.hint {
				ps.hint[i] = -1
			}
			switch {
			case a.solver == b.solver:
				ps.coupling = coupleImplicit
				ps.inter = p.interactionFor(a.solver)
				ps.slotA, ps.slotB = ps.inter.slotOf(a.state), ps.inter.slotOf(b.state)
			case b.solver == nil:
				ps.coupling = coupleStaticB
			case a.solver == nil:
				ps.coupling = coupleStaticA
			default:
				ps.coupling = coupleExplicit
			}
			p.pairs = append(p.pairs, ps)
		}
	}
	return p.DetectContacts(0)
}

// interactionFor returns the contact interaction of the solver at node n,
// creating it and adding it to that node.
func (p *CollisionPipeline) interactionFor(n *graph.Node) *contactInteraction {
	for _, ci := range p.interactions {
		if ci.Node == n {
			return ci
		}
	}
	name := p.Name + "Contacts"
	for k := 2; n.Object(name) != nil; k++ {
		name = fmt.Sprintf("%sContacts%d", p.Name, k)
	}
	ci := &contactInteraction{set: contactSet{pen: &p.Penalty}}
	ci.Name, ci.TypeName, ci.File, ci.Line = name, "PenaltyContactForceField", p.File, p.Line
	n.Add(ci)
	p.interactions = append(p.interactions, ci)
	return ci
}

// Interactions returns the contact interaction force fields the pipeline
// added (one per solver that integrates colliding models).
func (p *CollisionPipeline) Interactions() []graph.InteractionForceField {
	out := make([]graph.InteractionForceField, len(p.interactions))
	for i, ci := range p.interactions {
		out[i] = ci
	}
	return out
}

// DetectContacts implements graph.CollisionPipeline: it refits the
// hierarchies, replaces every contact by those of the current positions
// and computes the forces of the explicitly coupled ones.
func (p *CollisionPipeline) DetectContacts(t float64) error {
	for _, m := range p.models {
		m.refit()
		m.clear()
	}
	for _, ci := range p.interactions {
		ci.set.reset()
	}
	p.explicitN, p.explicitMax = 0, 0
	for _, ps := range p.pairs {
		p.detect(ps)
	}
	return nil
}

// ContactStats implements ContactReporter: the penetrating contacts of
// every pair at the last detection.
func (p *CollisionPipeline) ContactStats() (int, float64) {
	n, d := p.explicitN, p.explicitMax
	for _, ci := range p.interactions {
		n += ci.set.contacts
		d = max(d, ci.set.maxDepth)
	}
	for _, m := range p.models {
		n += m.oneSided.contacts
		d = max(d, m.oneSided.maxDepth)
	}
	return n, d
}

// detect finds the contacts of A's points with B's surface.
func (p *CollisionPipeline) detect(ps *pairState) {
	a, b := ps.a, ps.b
	xa, xb := a.state.Vec(graph.Position), b.state.Vec(graph.Position)
	r := p.ContactDistance
	r2 := r * r
	self := a == b
	a.touched = a.touched[:0]
	// Broad phase: the leaves of A's point tree within r of the box of B's
	// surface, then their points within r of it. Narrow phase: for each,
	// the nearest triangle of B within r by branch and bound down B's
	// triangle tree, starting from a hint — the point's nearest at the
	// last detection, or the previous point's — whose distance bounds the
	// search from the start, so that few nodes are opened.
	q := triQuery{x: xb, s: b.surf, exclude: -1}
	rootB := &b.triTree.nodes[0]
	st := append(p.walk[:0], 0)
	for len(st) > 0 {
		i := st[len(st)-1]
		st = st[:len(st)-1]
		na := &a.ptTree.nodes[i]
		if !near(na, rootB, r) {
			continue
		}
		if na.right >= 0 {
			st = append(st, i+1, na.right)
			continue
		}
		prev := int32(-1)
		for _, pi := range a.ptTree.prims[na.start : na.start+na.count] {
			dof := a.points[pi]
			q.p = geom.At(xa, int(dof))
			if boxDist2(rootB, q.p) >= r2 {
				continue
			}
			q.best, q.bestD2 = -1, r2
			if self {
				q.exclude, q.facing = dof, a.surf.vertexNormal(dof, xa)
			}
			hint := ps.hint[pi]
			if hint < 0 {
				hint = prev
			}
			if hint >= 0 {
				q.test(hint)
			}
			q.nearest(b.triTree, hint, &p.stack)
			ps.hint[pi] = q.best
			if q.best >= 0 {
				a.touched = append(a.touched, pi)
				a.bestD2[pi], a.bestTri[pi] = q.bestD2, q.best
				prev = q.best
			}
		}
	}
	p.walk = st
	// Points that were penetrating at the last detection are looked for at
	// any depth.
	for _, pi := range ps.prev {
		if a.bestD2[pi] != inf {
			continue
		}
		dof := a.points[pi]
		q.p = geom.At(xa, int(dof))
		q.best, q.bestD2 = -1, inf
		if self {
			q.exclude, q.facing = dof, a.surf.vertexNormal(dof, xa)
		}
		q.nearest(b.triTree, -1, &p.stack)
		if q.best >= 0 {
			a.touched = append(a.touched, pi)
			a.bestD2[pi], a.bestTri[pi] = q.bestD2, q.best
		}
	}
	ps.next = ps.next[:0]
	for _, pi := range a.touched {
		t := a.bestTri[pi]
		a.bestD2[pi] = inf
		dof := a.points[pi]
		px := geom.At(xa, int(dof))
		v0, v1, v2 := b.surf.corners(t, xb)
		q, w, feat := closestOnTriangle(px, v0, v1, v2)
		delta, n := b.surf.signedContact(px, q, t, feat, xb)
		if delta <= -r {
			continue // a tracked point now outside and away
		}
		if delta > 0 {
			ps.next = append(ps.next, pi)
		}
		tri := b.surf.tris[t]
		switch ps.coupling {
		case coupleImplicit:
			ps.inter.set.add(contact{k: 4,
				slot: [4]int32{ps.slotA, ps.slotB, ps.slotB, ps.slotB},
				dof:  [4]int32{dof, tri[0], tri[1], tri[2]},
				a:    [4]float64{1, -w[0], -w[1], -w[2]}, n: n}, delta)
		case coupleStaticB:
			a.oneSided.add(contact{k: 1, dof: [4]int32{dof}, a: [4]float64{1}, b0: q.Scale(-1), n: n}, delta)
		case coupleStaticA:
			b.oneSided.add(contact{k: 3, dof: [4]int32{tri[0], tri[1], tri[2]},
				a: [4]float64{-w[0], -w[1], -w[2]}, b0: px, n: n}, delta)
		case coupleExplicit:
			if delta <= 0 {
				continue
			}
			p.explicitN++
			p.explicitMax = max(p.explicitMax, delta)
			// Normal force at detection, held for the step.
			va, vb := a.state.Vec(graph.Velocity), b.state.Vec(graph.Velocity)
			vp := geom.At(va, int(dof))
			vc := geom.At(vb, int(tri[0])).Scale(w[0]).Add(geom.At(vb, int(tri[1])).Scale(w[1])).Add(geom.At(vb, int(tri[2])).Scale(w[2]))
			lam := p.Stiffness*delta - p.Damping*vp.Sub(vc).Dot(n)
			if lam > 0 {
				f := n.Scale(lam)
				geom.AddAt(a.held, int(dof), f)
				for j := 0; j < 3; j++ {
					geom.AddAt(b.held, int(tri[j]), f.Scale(-w[j]))
				}
				a.hasHeld, b.hasHeld = true, true
			}
			// Friction on each side against the other's velocity at
			// detection, in the side's own solver (implicit there).
			if p.Friction > 0 {
				lag := p.Stiffness * delta
				a.oneSided.list = append(a.oneSided.list, contact{k: 1, dof: [4]int32{dof}, a: [4]float64{1},
					n: n, lag: lag, v0: vc.Scale(-1), frictionOnly: true})
				b.oneSided.list = append(b.oneSided.list, contact{k: 3, dof: [4]int32{tri[0], tri[1], tri[2]},
					a: [4]float64{-w[0], -w[1], -w[2]}, n: n, lag: lag, v0: vp, frictionOnly: true})
			}
		}
	}
	ps.prev, ps.next = ps.next, ps.prev
}
