package graph

import (
	"fmt"
	"math"
)

// Ops are the mechanical operations over the subtree a solver owns. Solvers
// are written once against Ops and work for every DOF type and any depth of
// mappings: vector operations act on the independent (unmapped) states only;
// ComputeForce and ComputeDf traverse the whole subtree, going down the
// mappings with Apply/ApplyJ and back up with ApplyJT/ApplyDJT.
//
// The traversals are a few generic loops over the subtree's nodes in
// top-down order (parents before children) and its reverse, not one visitor
// class per operation.
type Ops struct {
	Root *Node
	// Nodes of the subtree, parents before children.
	nodes []*Node
	// info caches the roles of the objects of each node (same order as
	// nodes), so traversals do not search or allocate.
	info []nodeInfo
	// independent states (no mechanical mapping in their node), in tree order.
	independent []State
	// constraints[i] are the projective constraints of independent[i].
	constraints [][]ProjectiveConstraint
	// mapped nodes: their mapping is mechanical; in tree order.
	mapped []*Node
	// visual nodes: non-mechanical mappings, in tree order.
	visual       []*Node
	interactions []InteractionForceField
	// interaction constraints (between independent states), and scratch
	// slices of their states' vectors.
	iconstraints []InteractionConstraint
	icVecs       [][][]float64

	scene     *Scene
	freeIDs   []VecID // local id free list when there is no scene
	nextLocal VecID

	// Per-interaction scratch slices of state vectors, reused each call.
	iaVecs [][4][][]float64
}

// nodeInfo is what a traversal needs of one node.
type nodeInfo struct {
	node        *Node
	state       State
	mapping     Mapping
	mapped      bool // mechanical mapping: uses the standard vectors
	visual      bool // non-mechanical mapping: skipped by mechanical traversals
	forceFields []ForceField
	mass        Mass
}

// NewOps binds the mechanical operations to the subtree of root.
func NewOps(root *Node) (*Ops, error) {
	o := &Ops{Root: root, scene: root.scene}
	err := root.Walk(func(n *Node) error {
		o.nodes = append(o.nodes, n)
		m := n.Mapping()
		o.info = append(o.info, nodeInfo{node: n, state: n.State(), mapping: m,
			mapped: m != nil && m.IsMechanical(), visual: m != nil && !m.IsMechanical(),
			forceFields: n.ForceFields(), mass: n.Mass()})
		for _, obj := range n.Objects {
			if ia, ok := obj.(InteractionForceField); ok {
				o.interactions = append(o.interactions, ia)
			}
			if ic, ok := obj.(InteractionConstraint); ok {
				o.iconstraints = append(o.iconstraints, ic)
			}
		}
		st := n.State()
		switch {
		case m != nil && !m.IsMechanical():
			o.visual = append(o.visual, n)
		case m != nil:
			o.mapped = append(o.mapped, n)
		case st != nil:
			o.independent = append(o.independent, st)
			o.constraints = append(o.constraints, n.Constraints())
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	inTree := map[State]bool{}
	for _, n := range o.nodes {
		if s := n.State(); s != nil {
			inTree[s] = true
		}
	}
	for _, ia := range o.interactions {
		for _, s := range ia.States() {
			if !inTree[s] {
				return nil, ia.Base().Errorf("interaction acts on state %q outside the subtree of node %q", s.Base().Path(), displayPath(root))
			}
		}
	}
	isIndependent := map[State]bool{}
	for _, s := range o.independent {
		isIndependent[s] = true
	}
	for _, ic := range o.iconstraints {
		for _, s := range ic.States() {
			switch {
			case !inTree[s]:
				return nil, ic.Base().Errorf("constraint acts on state %q outside the subtree of node %q: the states it joins must be integrated by one solver", s.Base().Path(), displayPath(root))
			case !isIndependent[s]:
				return nil, ic.Base().Errorf("constraint acts on state %q, which a mapping computes: a projective constraint must act on independent states (join the states the mappings come from, or use a spring, SpringForceField)", s.Base().Path())
			}
		}
		o.icVecs = append(o.icVecs, make([][]float64, len(ic.States())))
	}
	return o, nil
}

// Independent returns the independent (unmapped) states of the subtree.
func (o *Ops) Independent() []State { return o.independent }

// Time returns the current simulation time.
func (o *Ops) Time() float64 {
	if o.scene == nil {
		return 0
	}
	return o.scene.Time
}

// AllocDeriv allocates a zeroed derivative vector in every independent state.
func (o *Ops) AllocDeriv() VecID { return o.alloc(false) }

// AllocCoord allocates a zeroed coordinate vector in every independent state.
func (o *Ops) AllocCoord() VecID { return o.alloc(true) }

func (o *Ops) alloc(coord bool) VecID {
	var id VecID
	if o.scene != nil {
		id = o.scene.nextVec()
	} else {
		// Ops built on a bare node tree (tests): ids reused through a
		// local free list.
		if n := len(o.freeIDs); n > 0 {
			id, o.freeIDs = o.freeIDs[n-1], o.freeIDs[:n-1]
		} else {
			id = firstTempVec + o.nextLocal
			o.nextLocal++
		}
	}
	for _, s := range o.independent {
		s.Alloc(id, coord)
	}
	return id
}

// Free releases a temporary vector.
func (o *Ops) Free(ids ...VecID) {
	for _, id := range ids {
		for _, s := range o.independent {
			s.Free(id)
		}
		if o.scene != nil {
			o.scene.freeVec(id)
		} else if id >= firstTempVec {
			o.freeIDs = append(o.freeIDs, id)
		}
	}
}

// Clear sets v = 0.
func (o *Ops) Clear(v VecID) {
	for _, s := range o.independent {
		clear(s.Vec(v))
	}
}

// Copy sets dst = src (same kind of vectors).
func (o *Ops) Copy(dst, src VecID) {
	for _, s := range o.independent {
		copy(s.Vec(dst), s.Vec(src))
	}
}

// Scale sets v = a·v.
func (o *Ops) Scale(v VecID, a float64) {
	for _, s := range o.independent {
		x := s.Vec(v)
		for i := range x {
			x[i] *= a
		}
	}
}

// AddScaled sets dst += a·src (derivative vectors).
func (o *Ops) AddScaled(dst VecID, a float64, src VecID) {
	for _, s := range o.independent {
		d, x := s.Vec(dst), s.Vec(src)
		for i := range d {
			d[i] += a * x[i]
		}
	}
}

// LinComb sets dst = a + f·b (derivative vectors; dst may alias a or b).
func (o *Ops) LinComb(dst, a VecID, f float64, b VecID) {
	for _, s := range o.independent {
		d, x, y := s.Vec(dst), s.Vec(a), s.Vec(b)
		for i := range d {
			d[i] = x[i] + f*y[i]
		}
	}
}

// Dot returns Σ a·b over the independent states.
func (o *Ops) Dot(a, b VecID) float64 {
	sum := 0.0
	for _, s := range o.independent {
		x, y := s.Vec(a), s.Vec(b)
		for i := range x {
			sum += x[i] * y[i]
		}
	}
	return sum
}

// Norm returns √(v·v).
func (o *Ops) Norm(v VecID) float64 { return math.Sqrt(o.Dot(v, v)) }

// Integrate moves the coordinates x along the derivative v: x ← x ⊕ h·v,
// through each state's template (quaternion exponential for Rigid3). When
// x is Position, the interaction constraints (InteractionConstraint) then
// put the positions back on themselves: a move along a projected
// derivative satisfies a nonlinear attachment (points riding on a rotating
// frame) only to first order, and Newton's iterates must not drift off it.
func (o *Ops) Integrate(x, v VecID, h float64) {
	for _, s := range o.independent {
		s.Template().Integrate(s.Vec(x), s.Vec(v), h)
	}
	if x == Position {
		t := o.Time()
		for j, c := range o.iconstraints {
			c.ProjectPosition(o.icVectors(j, Position), t)
		}
	}
}

// Difference sets d = a ⊖ b for coordinate vectors a and b.
func (o *Ops) Difference(d, a, b VecID) {
	for _, s := range o.independent {
		s.Template().Difference(s.Vec(d), s.Vec(a), s.Vec(b))
	}
}

// PropagatePositions applies every mechanical mapping top-down: child
// positions from parent positions, child velocities from parent velocities.
func (o *Ops) PropagatePositions() {
	for _, n := range o.mapped {
		m := n.Mapping()
		m.Apply(m.To().Vec(Position), m.From().Vec(Position))
		m.ApplyJ(m.To().Vec(Velocity), m.From().Vec(Velocity))
	}
}

// PropagateVisual applies the non-mechanical (visual) mappings of the subtree.
func (o *Ops) PropagateVisual() {
	for _, n := range o.visual {
		m := n.Mapping()
		m.Apply(m.To().Vec(Position), m.From().Vec(Position))
	}
}

// vecOf returns the id a traversal uses in state s: the given id on
// independent states, the standard id on mapped ones.
func (o *Ops) mappedNode(n *Node) bool {
	m := n.Mapping()
	return m != nil && m.IsMechanical()
}

// ComputeForce sets f to the total force on the independent states at the
// current positions and velocities: positions are propagated down, every
// force field and mass (gravity) of every node adds its force (mapped
// states accumulate into their Force vector), and the mapped forces go up
// through ApplyJT, children first. Constraints are not applied.
func (o *Ops) ComputeForce(f VecID) {
	o.PropagatePositions()
	for i := range o.info {
		ni := &o.info[i]
		if ni.state == nil || ni.visual {
			continue
		}
		id := f
		if ni.mapped {
			id = Force
		}
		fv := ni.state.Vec(id)
		clear(fv)
		x, v := ni.state.Vec(Position), ni.state.Vec(Velocity)
		for _, ff := range ni.forceFields {
			ff.AddForce(fv, x, v)
		}
		if ni.mass != nil {
			ni.mass.AddForce(fv, x, v)
		}
	}
	for j, ia := range o.interactions {
		sts := ia.States()
		fs, xs, vs := o.scratch(j, 0, len(sts)), o.scratch(j, 1, len(sts)), o.scratch(j, 2, len(sts))
		for i, s := range sts {
			fs[i] = s.Vec(o.idFor(s, f, Force))
			xs[i], vs[i] = s.Vec(Position), s.Vec(Velocity)
		}
		ia.AddForce(fs, xs, vs)
	}
	for i := len(o.mapped) - 1; i >= 0; i-- {
		m := o.mapped[i].Mapping()
		m.ApplyJT(m.From().Vec(o.idFor(m.From(), f, Force)), m.To().Vec(Force))
	}
}

// idFor returns id for independent states and std for mapped ones.
func (o *Ops) idFor(s State, id, std VecID) VecID {
	if n := s.Base().Node; n != nil && o.mappedNode(n) {
		return std
	}
	return id
}

// ComputeDf sets df = (m·M + b·B + k·K)·dx over the independent states
// (dx given on them): dx goes down the mappings by ApplyJ, every force field
// adds kFactor·K·dx + bFactor·B·dx, every mass adds m·M·dx, and the result
// comes back up by ApplyJT plus the geometric stiffness ApplyDJT (with the
// child forces of the last ComputeForce). Constraints are not applied.
func (o *Ops) ComputeDf(df, dx VecID, m, b, k float64) {
	for _, n := range o.mapped {
		mp := n.Mapping()
		mp.ApplyJ(mp.To().Vec(Dx), mp.From().Vec(o.idFor(mp.From(), dx, Dx)))
	}
	for i := range o.info {
		ni := &o.info[i]
		if ni.state == nil || ni.visual {
			continue
		}
		dfID, dxID := df, dx
		if ni.mapped {
			dfID, dxID = DForce, Dx
		}
		dfv, dxv := ni.state.Vec(dfID), ni.state.Vec(dxID)
		clear(dfv)
		if k != 0 || b != 0 {
			for _, ff := range ni.forceFields {
				ff.AddDForce(dfv, dxv, k, b)
			}
		}
		if ni.mass != nil && m != 0 {
			ni.mass.AddMDx(dfv, dxv, m)
		}
		if ni.mass != nil && (k != 0 || b != 0) {
			// Masses are force fields too (gravity, gyroscopic torque).
			ni.mass.AddDForce(dfv, dxv, k, b)
		}
	}
	if k != 0 || b != 0 {
		for j, ia := range o.interactions {
			sts := ia.States()
			dfs, dxs := o.scratch(j, 0, len(sts)), o.scratch(j, 1, len(sts))
			for i, s := range sts {
				dfs[i] = s.Vec(o.idFor(s, df, DForce))
				dxs[i] = s.Vec(o.idFor(s, dx, Dx))
			}
			ia.AddDForce(dfs, dxs, k, b)
		}
	}
	for i := len(o.mapped) - 1; i >= 0; i-- {
		mp := o.mapped[i].Mapping()
		parentDf := mp.From().Vec(o.idFor(mp.From(), df, DForce))
		mp.ApplyJT(parentDf, mp.To().Vec(DForce))
		if k != 0 {
			mp.ApplyDJT(parentDf, mp.From().Vec(o.idFor(mp.From(), dx, Dx)), mp.To().Vec(Force), k)
		}
	}
}

// Project applies the projective constraints of every independent state to
// the derivative vector v (zeroing constrained components), then the
// interaction constraints between states (InteractionConstraint).
func (o *Ops) Project(v VecID) {
	for i, s := range o.independent {
		for _, c := range o.constraints[i] {
			c.ProjectResponse(s.Vec(v))
		}
	}
	for j, c := range o.iconstraints {
		c.ProjectResponse(o.icVectors(j, v))
	}
}

// icVectors returns the vectors id of the states of interaction
// constraint j (a reused scratch slice).
func (o *Ops) icVectors(j int, id VecID) [][]float64 {
	vs := o.icVecs[j]
	for k, s := range o.iconstraints[j].States() {
		vs[k] = s.Vec(id)
	}
	return vs
}

// ProjectPositions and ProjectVelocities impose prescribed coordinates and
// velocities at time t.
func (o *Ops) ProjectPositions(t float64) {
	for i, s := range o.independent {
		for _, c := range o.constraints[i] {
			c.ProjectPosition(s.Vec(Position), t)
		}
	}
	for j, c := range o.iconstraints {
		c.ProjectPosition(o.icVectors(j, Position), t)
	}
}

// ProjectVelocities imposes prescribed velocities at time t.
func (o *Ops) ProjectVelocities(t float64) {
	for i, s := range o.independent {
		for _, c := range o.constraints[i] {
			c.ProjectVelocity(s.Vec(Velocity), t)
		}
	}
	for j, c := range o.iconstraints {
		c.ProjectVelocity(o.icVectors(j, Velocity), t)
	}
}

// AccFromF sets a = M⁻¹ f on every independent state. It needs every
// independent state to carry an InverseMass and no mass in mapped nodes
// (whose contribution JᵀMJ has no cheap inverse); otherwise it returns an
// error naming the state, and the caller should solve M a = f instead.
func (o *Ops) AccFromF(a, f VecID) error {
	for _, n := range o.mapped {
		if n.Mass() != nil {
			return n.Mass().Base().Errorf("a mass on a mapped state has no diagonal inverse; add a linear solver (e.g. CGLinearSolver) to the solver's node")
		}
	}
	for _, s := range o.independent {
		m := s.Base().Node.Mass()
		if m == nil {
			return s.Base().Errorf("state has no mass; add one (UniformMass, DiagonalMass, MeshMatrixMass, RigidMass)")
		}
		inv, ok := m.(InverseMass)
		if !ok {
			return m.Base().Errorf("this mass has no cheap inverse (a consistent mass such as MeshMatrixMass couples DOFs): add a linear solver (e.g. CGLinearSolver) to the explicit solver's node, or use a diagonal mass (DiagonalMass)")
		}
		inv.AccFromF(s.Vec(a), s.Vec(f))
	}
	return nil
}

// KineticEnergy returns Σ ½ vᵀ M v over every mass of the subtree (mapped
// masses use their propagated velocities).
func (o *Ops) KineticEnergy() float64 {
	e := 0.0
	for _, ni := range o.info {
		if ni.mass != nil && ni.state != nil && !ni.visual {
			e += ni.mass.KineticEnergy(ni.state.Vec(Velocity))
		}
	}
	return e
}

// PotentialEnergy returns the potential energy of every force field and the
// gravity potential of every mass of the subtree.
func (o *Ops) PotentialEnergy() float64 {
	e := 0.0
	for _, ni := range o.info {
		if ni.state == nil || ni.visual {
			continue
		}
		x := ni.state.Vec(Position)
		for _, ff := range ni.forceFields {
			e += ff.PotentialEnergy(x)
		}
		if ni.mass != nil {
			e += ni.mass.PotentialEnergy(x)
		}
	}
	for j, ia := range o.interactions {
		sts := ia.States()
		xs := o.scratch(j, 3, len(sts))
		for i, s := range sts {
			xs[i] = s.Vec(Position)
		}
		e += ia.PotentialEnergy(xs)
	}
	return e
}

// CheckFinite returns an error if a position or velocity of an independent
// state is NaN or infinite, naming the state and the first bad DOF.
func (o *Ops) CheckFinite() error {
	for _, s := range o.independent {
		for _, id := range []VecID{Position, Velocity} {
			for i, x := range s.Vec(id) {
				if math.IsNaN(x) || math.IsInf(x, 0) {
					what := "position"
					w := s.Template().CoordSize()
					if id == Velocity {
						what, w = "velocity", s.Template().DerivSize()
					}
					return &nonFiniteError{state: s, what: what, dof: i / w, value: x}
				}
			}
		}
	}
	return nil
}

type nonFiniteError struct {
	state State
	what  string
	dof   int
	value float64
}

func (e *nonFiniteError) Error() string {
	return fmt.Sprintf("state %q: %s of DOF %d is %g", e.state.Base().Path(), e.what, e.dof, e.value)
}

// Diagnose looks for the force field whose force is not finite at the
// current configuration, to name the likely culprit of a blow-up.
func (o *Ops) Diagnose() Object {
	for _, n := range o.nodes {
		st := n.State()
		if st == nil {
			continue
		}
		x, v := st.Vec(Position), st.Vec(Velocity)
		buf := make([]float64, len(st.Vec(Force)))
		ffs := n.ForceFields()
		for _, ff := range ffs {
			clear(buf)
			ff.AddForce(buf, x, v)
			for _, y := range buf {
				if math.IsNaN(y) || math.IsInf(y, 0) {
					return ff
				}
			}
		}
	}
	return nil
}

// scratch returns the reusable slice k of interaction j, of length n.
func (o *Ops) scratch(j, k, n int) [][]float64 {
	for len(o.iaVecs) <= j {
		o.iaVecs = append(o.iaVecs, [4][][]float64{})
	}
	if cap(o.iaVecs[j][k]) < n {
		o.iaVecs[j][k] = make([][]float64, n)
	}
	return o.iaVecs[j][k][:n]
}
