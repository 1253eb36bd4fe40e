package constraint

import (
	"fmt"
	"math"
	"slices"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
)

// AttachConstraint makes points of two states move together (SOFA's
// AttachConstraint): a projective constraint between two objects
// integrated by one ODE solver (graph.InteractionConstraint), such as two
// FEM meshes welded along a face, or a mesh welded to a rigid body.
//
// Two kinds of attachment:
//
//   - object1 and object2 of one vector template (Vec3, ...): the pairs
//     indices1[k] ↔ indices2[k] move as one DOF. Derivative vectors
//     (forces, search directions, velocity changes) are projected
//     orthogonally onto "the attached DOFs are equal": each group of
//     attached DOFs (pairs sharing a DOF join one group) takes its mean.
//     Positions keep the offsets the points had at Init (normally zero:
//     coincident points); the group's mean position is kept.
//   - object1 Rigid3 and object2 Vec3: each point indices2[k] rides on the
//     frame indices1[k] (or indices1[0] for all), at its offset from the
//     frame at Init, in the frame's axes. Derivatives are projected
//     orthogonally onto the motions where each point moves as its frame,
//     d = v + ω × (x − t): per frame a 6×6 system (I + Σ GᵢᵀGᵢ)ξ = ξ₀ +
//     Σ Gᵢᵀdᵢ with Gᵢ = [I, −[rᵢ]×] at the current offsets rᵢ. Positions put
//     each point on its frame, x = t + R(q)·r₀.
//
// The pairs come from indices1 and indices2, or from box: the points of
// object2 whose rest positions lie in the box, each paired with the point
// of object1 at the same rest position (within 1e-6 of the box's
// diagonal) — or, for a Rigid3 object1, attached to frame indices1[0]
// (frame 0 without indices1). object2 defaults to object1 (stitching
// points of one mesh).
//
// Both orthogonal projections are symmetric and idempotent, so conjugate
// gradients, DenseDirectSolver and Newton's method solve the constrained
// system exactly: P(f) = 0 is the balance of the attached points' total
// force (and moment, for a rigid body), and two meshes attached along a
// face behave exactly as one mesh holding both (the attached points' masses
// and loads add up). The assembled solvers (SparseCholeskySolver,
// PCGLinearSolver) solve the same system reduced to the independent
// components, through BasisEntries (graph.ConstraintBasis). An explicit solver projects accelerations: exact
// when attached points have equal masses, else the mean of their
// accelerations instead of the total force over the total mass (use an
// implicit solver). Unlike SOFA's default (twoWay = false, object2
// follows object1 without acting back), the attachment always acts both
// ways. Other projective constraints must treat attached DOFs alike (fix
// all of a group or none of it); this is checked at the first step.
type AttachConstraint struct {
	graph.ObjectBase
	Object1  graph.Link `toml:"object1" doc:"the first state (Vec3 or another vector template; or Rigid3, whose frames carry object2's points)" required:"true"`
	Object2  graph.Link `toml:"object2" doc:"the second state (default: object1): its points indices2 are attached to indices1 of object1"`
	Indices1 []int      `toml:"indices1" doc:"points of object1 (Rigid3: the frame of each point of indices2, or one frame for all)" range:"[0,inf)"`
	Indices2 []int      `toml:"indices2" doc:"points of object2, one per entry of indices1 (for a Rigid3 object1: any number)" range:"[0,inf)"`
	Box      []float64  `toml:"box" doc:"[xmin, ymin, zmin, xmax, ymax, zmax]: attach object2's points with rest positions in the box to object1's points at the same rest positions (Rigid3 object1: to frame indices1[0], default 0)" unit:"m"`

	states []graph.State
	s2     int  // index of object2 in states
	rigid  bool // object1 Rigid3, object2 Vec3
	n      int  // components per DOF (vector mode)

	// Vector mode: groups of attached DOFs, members start[g]..start[g+1]
	// of (mState, mIdx) with position offsets mOff (n each).
	start  []int
	mState []int
	mIdx   []int
	mOff   []float64
	mean   []float64

	// Rigid mode: per frame, its index and the attached points with their
	// offsets in the frame's axes.
	frames []attachedFrame

	checked bool
}

type attachedFrame struct {
	frame  int
	points []int
	local  []geom.Vec3
}

func init() {
	graph.Register(graph.TypeInfo{
		Name: "AttachConstraint",
		Kind: graph.KindConstraint,
		Summary: "Points of two states of one solver move together (projective): pairs (indices1/indices2, or a box matching rest positions) of Vec3 points averaged as one DOF, or Vec3 points riding on Rigid3 frames; " +
			"orthogonal projections, so implicit and static solvers with CG or DenseDirectSolver solve the joined system exactly.",
		New: func() graph.Object { return &AttachConstraint{} },
	})
}

// Validate checks the fields that need no state.
func (c *AttachConstraint) Validate() error {
	if len(c.Box) > 0 {
		if len(c.Box) != 6 {
			return fmt.Errorf("box has %d numbers, want 6: [xmin, ymin, zmin, xmax, ymax, zmax]", len(c.Box))
		}
		for a := 0; a < 3; a++ {
			if c.Box[a] > c.Box[a+3] {
				return fmt.Errorf("box min[%d] = %g is greater than max[%d] = %g", a, c.Box[a], a, c.Box[a+3])
			}
		}
		if len(c.Indices2) > 0 {
			return fmt.Errorf("give indices2 or box, not both")
		}
		return nil
	}
	if len(c.Indices2) == 0 {
		return fmt.Errorf("nothing attached: give indices1 and indices2, or box")
	}
	return nil
}

// States implements graph.InteractionConstraint.
func (c *AttachConstraint) States() []graph.State { return c.states }

func linkedState(name string, l graph.Link) (graph.State, error) {
	switch {
	case l.Object != nil:
		s, ok := l.Object.(graph.State)
		if !ok {
			return nil, fmt.Errorf("%s %q is not a mechanical state", name, l.Path)
		}
		return s, nil
	case l.Node != nil && l.Node.State() != nil:
		return l.Node.State(), nil
	}
	return nil, fmt.Errorf("%s %q has no mechanical state", name, l.Path)
}

// Init resolves the states and builds the groups or frames.
func (c *AttachConstraint) Init() error {
	if err := c.Validate(); err != nil {
		return c.Wrap(err)
	}
	s1, err := linkedState("object1", c.Object1)
	if err != nil {
		return c.Wrap(err)
	}
	s2 := s1
	if c.Object2.IsSet() {
		if s2, err = linkedState("object2", c.Object2); err != nil {
			return c.Wrap(err)
		}
	}
	c.states, c.s2 = []graph.State{s1}, 0
	if s2 != s1 {
		c.states, c.s2 = append(c.states, s2), 1
	}
	t1, t2 := s1.Template(), s2.Template()
	_, r1 := t1.(graph.Rigid3Template)
	_, r2 := t2.(graph.Rigid3Template)
	switch {
	case r1 && t2.Name() == graph.Vec3.Name():
		c.rigid = true
		return c.Wrap(c.initRigid(s1, s2))
	case r2:
		return c.Errorf("object2 %q is Rigid3: make the Rigid3 state object1 (its frames carry object2's points)", s2.Base().Path())
	case t1.Name() != t2.Name():
		return c.Errorf("object1 %q is %s and object2 %q is %s: attach states of one template, or Vec3 points to Rigid3 frames", s1.Base().Path(), t1.Name(), s2.Base().Path(), t2.Name())
	case t1.CoordSize() != t1.DerivSize():
		return c.Errorf("template %s is not a vector template", t1.Name())
	}
	c.n = t1.DerivSize()
	return c.Wrap(c.initVec(s1, s2))
}

// pairsByBox pairs object2's points in the box with object1's points at the
// same rest positions.
func (c *AttachConstraint) pairsByBox(s1, s2 graph.State) ([]int, []int, error) {
	if s1.Template().CoordSize() < 3 {
		return nil, nil, fmt.Errorf("box needs 3 position coordinates; template %s has %d: give indices1 and indices2", s1.Template().Name(), s1.Template().CoordSize())
	}
	b := c.Box
	tol := 1e-6 * math.Sqrt((b[3]-b[0])*(b[3]-b[0])+(b[4]-b[1])*(b[4]-b[1])+(b[5]-b[2])*(b[5]-b[2]))
	cs1, cs2 := s1.Template().CoordSize(), s2.Template().CoordSize()
	r1, r2 := s1.Vec(graph.RestPosition), s2.Vec(graph.RestPosition)
	inBox := func(p []float64) bool {
		return p[0] >= b[0] && p[0] <= b[3] && p[1] >= b[1] && p[1] <= b[4] && p[2] >= b[2] && p[2] <= b[5]
	}
	var cand1 []int
	for i := 0; i < s1.Size(); i++ {
		if p := r1[cs1*i:]; p[0] >= b[0]-tol && p[0] <= b[3]+tol && p[1] >= b[1]-tol && p[1] <= b[4]+tol && p[2] >= b[2]-tol && p[2] <= b[5]+tol {
			cand1 = append(cand1, i)
		}
	}
	var i1, i2 []int
	for j := 0; j < s2.Size(); j++ {
		q := r2[cs2*j:]
		if !inBox(q) {
			continue
		}
		best, bestD := -1, tol
		for _, i := range cand1 {
			if s1 == s2 && i == j {
				continue
			}
			p := r1[cs1*i:]
			d := math.Max(math.Abs(p[0]-q[0]), math.Max(math.Abs(p[1]-q[1]), math.Abs(p[2]-q[2])))
			if d <= bestD {
				best, bestD = i, d
			}
		}
		if best < 0 {
			if s1 == s2 {
				continue // stitching: points without a twin are not attached
			}
			return nil, nil, fmt.Errorf("point %d of object2 (rest position %v) is in the box, but no point of object1 %q is at that rest position (tolerance %.3g)", j, q[:3], s1.Base().Path(), tol)
		}
		if s1 == s2 && best > j {
			continue // each twin pair once
		}
		i1, i2 = append(i1, best), append(i2, j)
	}
	if len(i2) == 0 {
		return nil, nil, fmt.Errorf("box %v holds no point of object2 %q to attach", c.Box, s2.Base().Path())
	}
	return i1, i2, nil
}

func checkIndices(name string, idx []int, st graph.State) error {
	for _, i := range idx {
		if i < 0 || i >= st.Size() {
			return fmt.Errorf("%s: index %d is out of range: state %q has %d DOFs (indices are 0-based)", name, i, st.Base().Path(), st.Size())
		}
	}
	return nil
}

func (c *AttachConstraint) initVec(s1, s2 graph.State) error {
	i1, i2 := c.Indices1, c.Indices2
	if len(c.Box) > 0 {
		var err error
		if i1, i2, err = c.pairsByBox(s1, s2); err != nil {
			return err
		}
	} else if len(i1) != len(i2) {
		return fmt.Errorf("indices1 has %d points and indices2 %d: give one pair per attachment", len(i1), len(i2))
	}
	if err := checkIndices("indices1", i1, s1); err != nil {
		return err
	}
	if err := checkIndices("indices2", i2, s2); err != nil {
		return err
	}
	// Union-find over the DOFs (state k, index i), keyed 2i + k.
	key := func(k, i int) int { return 2*i + k }
	parent := map[int]int{}
	var find func(int) int
	find = func(a int) int {
		p, ok := parent[a]
		if !ok {
			parent[a] = a
			return a
		}
		if p != a {
			parent[a] = find(p)
		}
		return parent[a]
	}
	for k := range i1 {
		a, b := key(0, i1[k]), key(c.s2, i2[k])
		if a == b {
			return fmt.Errorf("pair %d attaches point %d to itself", k, i1[k])
		}
		if ra, rb := find(a), find(b); ra != rb {
			parent[ra] = rb
		}
	}
	groups := map[int][]int{}
	var roots []int
	for a := range parent {
		r := find(a)
		if _, ok := groups[r]; !ok {
			roots = append(roots, r)
		}
		groups[r] = append(groups[r], a)
	}
	slices.Sort(roots)
	c.start, c.mState, c.mIdx, c.mOff = c.start[:0], c.mState[:0], c.mIdx[:0], c.mOff[:0]
	n := c.n
	for _, r := range roots {
		m := groups[r]
		slices.Sort(m)
		c.start = append(c.start, len(c.mState))
		var ref []float64
		for _, a := range m {
			k, i := a%2, a/2
			x := c.states[k].Vec(graph.Position)[n*i : n*i+n]
			if ref == nil {
				ref = x
			}
			c.mState, c.mIdx = append(c.mState, k), append(c.mIdx, i)
			for j := 0; j < n; j++ {
				c.mOff = append(c.mOff, x[j]-ref[j])
			}
		}
	}
	c.start = append(c.start, len(c.mState))
	c.mean = make([]float64, n)
	return nil
}

func (c *AttachConstraint) initRigid(s1, s2 graph.State) error {
	var i1, i2 []int
	if len(c.Box) > 0 {
		b := c.Box
		r2 := s2.Vec(graph.RestPosition)
		for j := 0; j < s2.Size(); j++ {
			q := r2[3*j:]
			if q[0] >= b[0] && q[0] <= b[3] && q[1] >= b[1] && q[1] <= b[4] && q[2] >= b[2] && q[2] <= b[5] {
				i2 = append(i2, j)
			}
		}
		if len(i2) == 0 {
			return fmt.Errorf("box %v holds no point of object2 %q to attach", c.Box, s2.Base().Path())
		}
		if len(c.Indices1) > 1 {
			return fmt.Errorf("with box, indices1 gives one frame (the one every point in the box rides on), not %d", len(c.Indices1))
		}
		i1 = []int{0}
		if len(c.Indices1) == 1 {
			i1 = c.Indices1
		}
	} else {
		i1, i2 = c.Indices1, c.Indices2
		if len(i1) == 0 {
			i1 = []int{0}
		}
		if len(i1) != 1 && len(i1) != len(i2) {
			return fmt.Errorf("indices1 has %d frames for %d points of indices2: give one frame per point, or one for all", len(i1), len(i2))
		}
	}
	if err := checkIndices("indices1", i1, s1); err != nil {
		return err
	}
	if err := checkIndices("indices2", i2, s2); err != nil {
		return err
	}
	seen := map[int]bool{}
	byFrame := map[int]int{}
	c.frames = c.frames[:0]
	x1, x2 := s1.Vec(graph.Position), s2.Vec(graph.Position)
	for k, j := range i2 {
		if seen[j] {
			return fmt.Errorf("point %d of object2 is attached twice", j)
		}
		seen[j] = true
		f := i1[0]
		if len(i1) > 1 {
			f = i1[k]
		}
		fi, ok := byFrame[f]
		if !ok {
			fi = len(c.frames)
			byFrame[f] = fi
			c.frames = append(c.frames, attachedFrame{frame: f})
		}
		fr := x1[7*f : 7*f+7]
		q := geom.Quat{fr[3], fr[4], fr[5], fr[6]}
		r := geom.At(x2, j).Sub(geom.Vec3{fr[0], fr[1], fr[2]})
		c.frames[fi].points = append(c.frames[fi].points, j)
		c.frames[fi].local = append(c.frames[fi].local, q.Conj().Rotate(r))
	}
	return nil
}

// Pairs returns the number of attached groups (vector mode) or points
// (rigid mode).
func (c *AttachConstraint) Pairs() int {
	if c.rigid {
		n := 0
		for _, f := range c.frames {
			n += len(f.points)
		}
		return n
	}
	return len(c.start) - 1
}

// ProjectResponse implements graph.InteractionConstraint.
func (c *AttachConstraint) ProjectResponse(dx [][]float64) {
	if c.rigid {
		c.projectRigid(dx[0], dx[c.s2])
		return
	}
	n := c.n
	for g := 0; g+1 < len(c.start); g++ {
		a, b := c.start[g], c.start[g+1]
		w := 1 / float64(b-a)
		for j := 0; j < n; j++ {
			s := 0.0
			for m := a; m < b; m++ {
				s += dx[c.mState[m]][n*c.mIdx[m]+j]
			}
			s *= w
			for m := a; m < b; m++ {
				dx[c.mState[m]][n*c.mIdx[m]+j] = s
			}
		}
	}
}

// projectRigid projects (frame twists d1, point derivatives d2) onto the
// rigid motions of each frame with its points, at the current positions.
func (c *AttachConstraint) projectRigid(d1, d2 []float64) {
	x1, x2 := c.states[0].Vec(graph.Position), c.states[c.s2].Vec(graph.Position)
	for _, fr := range c.frames {
		f := fr.frame
		t := geom.Vec3{x1[7*f], x1[7*f+1], x1[7*f+2]}
		// A = I + Σ GᵢᵀGᵢ, b = ξ + Σ Gᵢᵀdᵢ, Gᵢ = [I, −[rᵢ]×].
		var A [6][6]float64
		var b [6]float64
		for k := 0; k < 6; k++ {
			A[k][k] = 1
			b[k] = d1[6*f+k]
		}
		for _, j := range fr.points {
			r := geom.At(x2, j).Sub(t)
			d := geom.At(d2, j)
			rs := r.Skew() // [r]×
			rr := geom.Identity3().Scale(r.Norm2()).Sub(r.Outer(r))
			for p := 0; p < 3; p++ {
				A[p][p]++
				for q := 0; q < 3; q++ {
					A[p][3+q] -= rs[3*p+q] // −[r]×
					A[3+p][q] += rs[3*p+q] // [r]×
					A[3+p][3+q] += rr[3*p+q]
				}
			}
			rd := r.Cross(d)
			for p := 0; p < 3; p++ {
				b[p] += d[p]
				b[3+p] += rd[p]
			}
		}
		xi := solve6(A, b)
		copy(d1[6*f:6*f+6], xi[:])
		v, w := geom.Vec3{xi[0], xi[1], xi[2]}, geom.Vec3{xi[3], xi[4], xi[5]}
		for _, j := range fr.points {
			r := geom.At(x2, j).Sub(t)
			geom.Put(d2, j, v.Add(w.Cross(r)))
		}
	}
}

// solve6 solves the symmetric positive definite 6×6 system A x = b by
// Cholesky.
func solve6(A [6][6]float64, b [6]float64) [6]float64 {
	var L [6][6]float64
	for i := 0; i < 6; i++ {
		for j := 0; j <= i; j++ {
			s := A[i][j]
			for k := 0; k < j; k++ {
				s -= L[i][k] * L[j][k]
			}
			if i == j {
				L[i][i] = math.Sqrt(s)
			} else {
				L[i][j] = s / L[j][j]
			}
		}
	}
	var y, x [6]float64
	for i := 0; i < 6; i++ {
		s := b[i]
		for k := 0; k < i; k++ {
			s -= L[i][k] * y[k]
		}
		y[i] = s / L[i][i]
	}
	for i := 5; i >= 0; i-- {
		s := y[i]
		for k := i + 1; k < 6; k++ {
			s -= L[k][i] * x[k]
		}
		x[i] = s / L[i][i]
	}
	return x
}

var _ graph.ConstraintBasis = (*AttachConstraint)(nil)

// BasisEntries implements graph.ConstraintBasis: the projections above
// are orthogonal onto "every member of a group equals its first member"
// (entries 1) and "each point moves as its frame", d = v + ω × r =
// v − [r]× ω at the current offsets r (3 + 9 entries per point, zeros of
// [r]× included), so assembled solvers can solve the reduced system.
func (c *AttachConstraint) BasisEntries(m graph.MatrixAccumulator) {
	offs := make([]int, len(c.states))
	for k := 1; k < len(c.states); k++ {
		st := c.states[k-1]
		offs[k] = offs[k-1] + st.Size()*st.Template().DerivSize()
	}
	if c.rigid {
		x1, x2 := c.states[0].Vec(graph.Position), c.states[c.s2].Vec(graph.Position)
		o2 := offs[c.s2]
		for _, fr := range c.frames {
			f := fr.frame
			t := geom.Vec3{x1[7*f], x1[7*f+1], x1[7*f+2]}
			for _, j := range fr.points {
				rs := geom.At(x2, j).Sub(t).Skew()
				for p := 0; p < 3; p++ {
					row := o2 + 3*j + p
					m.Add(row, 6*f+p, 1)
					for q := 0; q < 3; q++ {
						m.Add(row, 6*f+3+q, -rs[3*p+q])
					}
				}
			}
		}
		return
	}
	n := c.n
	for g := 0; g+1 < len(c.start); g++ {
		a := c.start[g]
		col := offs[c.mState[a]] + n*c.mIdx[a]
		for mb := a + 1; mb < c.start[g+1]; mb++ {
			row := offs[c.mState[mb]] + n*c.mIdx[mb]
			for j := 0; j < n; j++ {
				m.Add(row+j, col+j, 1)
			}
		}
	}
}

// ProjectPosition implements graph.InteractionConstraint: each group at
// its mean position (offsets kept); each point on its frame.
func (c *AttachConstraint) ProjectPosition(x [][]float64, t float64) {
	if c.rigid {
		x1, x2 := x[0], x[c.s2]
		for _, fr := range c.frames {
			f := x1[7*fr.frame : 7*fr.frame+7]
			q := geom.Quat{f[3], f[4], f[5], f[6]}
			tr := geom.Vec3{f[0], f[1], f[2]}
			for k, j := range fr.points {
				geom.Put(x2, j, tr.Add(q.Rotate(fr.local[k])))
			}
		}
		return
	}
	n := c.n
	for g := 0; g+1 < len(c.start); g++ {
		a, b := c.start[g], c.start[g+1]
		clear(c.mean)
		for m := a; m < b; m++ {
			xi := x[c.mState[m]][n*c.mIdx[m]:]
			for j := 0; j < n; j++ {
				c.mean[j] += xi[j] - c.mOff[n*m+j]
			}
		}
		w := 1 / float64(b-a)
		for m := a; m < b; m++ {
			xi := x[c.mState[m]][n*c.mIdx[m]:]
			for j := 0; j < n; j++ {
				xi[j] = c.mean[j]*w + c.mOff[n*m+j]
			}
		}
	}
}

// ProjectVelocity implements graph.InteractionConstraint: the orthogonal
// projection of the velocities.
func (c *AttachConstraint) ProjectVelocity(v [][]float64, t float64) { c.ProjectResponse(v) }

// BeginStep implements graph.Behavior: at the first step, it checks that
// the per-state projective constraints of its states treat every group of
// attached DOFs alike (all of its components fixed or free), so that the
// projections commute.
func (c *AttachConstraint) BeginStep(t, dt float64) error {
	if c.checked {
		return nil
	}
	c.checked = true
	probe := make([][]float64, len(c.states))
	for k, st := range c.states {
		v := make([]float64, st.Size()*st.Template().DerivSize())
		for i := range v {
			v[i] = 1
		}
		if n := st.Base().Node; n != nil {
			for _, pc := range n.Constraints() {
				pc.ProjectResponse(v)
			}
		}
		probe[k] = v
	}
	if c.rigid {
		p1, p2 := probe[0], probe[c.s2]
		for _, fr := range c.frames {
			ref := p1[6*fr.frame]
			for _, v := range p1[6*fr.frame : 6*fr.frame+6] {
				if v != ref {
					return fmt.Errorf("frame %d is partly held by a projective constraint of its state: an attachment needs its frames fully fixed or fully free", fr.frame)
				}
			}
			for _, j := range fr.points {
				for _, v := range p2[3*j : 3*j+3] {
					if v != ref {
						return fmt.Errorf("point %d of object2 is held differently from frame %d by the projective constraints of their states: fix a frame and the points attached to it together, or neither", j, fr.frame)
					}
				}
			}
		}
		return nil
	}
	n := c.n
	for g := 0; g+1 < len(c.start); g++ {
		a, b := c.start[g], c.start[g+1]
		for j := 0; j < n; j++ {
			ref := probe[c.mState[a]][n*c.mIdx[a]+j]
			for m := a + 1; m < b; m++ {
				if probe[c.mState[m]][n*c.mIdx[m]+j] != ref {
					return fmt.Errorf("attached points %d of %q and %d of %q are held differently by the projective constraints of their states (component %d): fix attached points together, or neither",
						c.mIdx[a], c.states[c.mState[a]].Base().Path(), c.mIdx[m], c.states[c.mState[m]].Base().Path(), j)
				}
			}
		}
	}
	return nil
}
