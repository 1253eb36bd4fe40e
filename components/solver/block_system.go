package solver

import (
	"errors"
	"fmt"
	"slices"

	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/parallel"
	"github.com/sofago/sofago/sparse"
)

// blockSystem assembles the system matrix A = m·M + k·K of an ODE
// solver's subtree (its independent states) as a sparse.BSR3, for
// SparseCholeskySolver and PCGLinearSolver. The scalar unknowns are the
// independent states' derivative components one state after the other,
// each state starting on a multiple of 3 (a state whose size is not a
// multiple of 3 is padded with unknowns that behave as fixed DOFs).
//
// Sources, found once (the first assembly) on the independent states'
// nodes:
//   - force fields and masses that write 3×3 blocks
//     (graph.StiffnessBlockAssembler, graph.MassBlockAssembler: the
//     tetrahedral force fields and the Vec3 masses): their block lists
//     are mapped to matrix positions once per pattern and their values
//     summed by sparse.BSR3Assembly (parallel, deterministic);
//   - the others that write scalar entries (graph.StiffnessAssembler,
//     graph.MassAssembler: spring networks, reduced models, rigid
//     masses): the entries of the first assembly are recorded, their
//     positions found once, and later assemblies replay them, checking
//     that each call writes the entry it wrote the first time (else the
//     pattern is rebuilt).
//
// What may not be assembled (force fields and masses on mapped states,
// interaction force fields, damping matrices) is checked as for the
// direct solvers (assemblyChecker): assemble returns an error naming the
// component.
//
// The projective constraints must fix components (projector diagonal with
// 0/1 entries); the rows and columns of the fixed DOFs are zeroed and
// their diagonal set to 1, so A stays symmetric positive definite when
// the free part is, and a right-hand side zero on them gives a solution
// zero on them.
type blockSystem struct {
	n       int // scalar size (3 × block rows)
	states  []graph.State
	offsets []int // scalar offset of each state (a multiple of 3)
	sizes   []int // scalar size of each state
	checker assemblyChecker
	sources []sysSource
	asm     *sparse.BSR3Assembly
	rec     scalarRecord
	spare   scalarRecord // storage for relocate's next record
	replay  replayAccumulator

	fixed     []bool  // per scalar unknown (pads are fixed)
	fixedFor  []bool  // the fixed set zero and one were computed for
	zero, one []int32 // value indices set to 0 (fixed rows and columns) and 1 (their diagonal)
	diag      []float64
	w, pw     []float64

	runner parallel.Runner
	direct bool // the last values() went through addBlocks

	// throughMappings: assemble the whole subtree (mappedSystem: mapped
	// masses and force fields, geometric stiffness, interactions,
	// damping matrices, probed stiffnesses) instead of refusing it.
	throughMappings bool
	mapped          mappedSystem
	// The structured terms of mapped (kronecker_system.go) the pattern
	// was built with, and the matrix block of each of their blocks.
	kronPats []*kronPattern
	kronPos  [][]int32

	// Interaction constraints that make components follow others
	// (graph.ConstraintBasis): the system is reduced to Tᵀ A T (see
	// reduction); redOK is false when some interaction constraint gives
	// no basis (the projector is then general: refused).
	red    reduction
	redOK  bool
	cons   [][]graph.ProjectiveConstraint // per state: its node's projective constraints
	fixedA *sparse.BSR3                   // the matrix zero and one index
}

// sysSource is one component writing into A.
type sysSource struct {
	obj   graph.Object
	mass  bool // writes M (else K)
	block bool // through blocks (else scalar entries)
	off   int  // scalar offset of its state
	src   int  // block sources: index in asm
	pairs []int32
}

// errGeneralProjector reports constraints that mix components.
var errGeneralProjector = errors.New("the projective constraints mix components (projector not diagonal 0/1)")

// layout lists the independent states; it reports whether the layout
// changed (then everything is recomputed).
func (s *blockSystem) layout(ops *graph.Ops) bool {
	ind := ops.Independent()
	same := len(ind) == len(s.states)
	n := 0
	offsets := make([]int, 0, len(ind))
	sizes := make([]int, 0, len(ind))
	for i, st := range ind {
		sz := st.Size() * st.Template().DerivSize()
		offsets = append(offsets, n)
		sizes = append(sizes, sz)
		n += (sz + 2) / 3 * 3
		same = same && s.states[i] == st && s.sizes[i] == sz
	}
	if same && s.n == n && s.fixed != nil {
		return false
	}
	s.states = append(s.states[:0], ind...)
	s.offsets, s.sizes, s.n = offsets, sizes, n
	s.sources = nil
	s.asm = nil
	s.fixed = make([]bool, n)
	s.fixedFor = nil
	s.diag = make([]float64, n)
	s.w = make([]float64, n)
	s.pw = make([]float64, n)
	s.redOK = s.red.setConstraints(ops.Root, s.states, s.offsets, s.sizes)
	s.cons = s.cons[:0]
	for _, st := range s.states {
		var c []graph.ProjectiveConstraint
		if nd := st.Base().Node; nd != nil {
			c = nd.Constraints()
		}
		s.cons = append(s.cons, c)
	}
	return true
}

// check runs assemblyChecker, at every solve: a component whose stiffness
// appears during the run (a contact model once contacts exist) must stop
// the assembly then, not be left out of the matrix. The probes are one
// AddDForce of each force field that writes no matrix (constant loads,
// contact models: cheap) and of each mass.
func (s *blockSystem) check(ops *graph.Ops, needB bool) error {
	if ok, why := s.checker.check(ops.Root, needB); !ok {
		return errors.New(why)
	}
	return nil
}

// findFixed computes the fixed unknowns from the projector of ops, and
// the basis T of the interaction constraints that give one: their
// dependent components count as fixed (identity rows of the reduced
// system, expanded after the solve).
func (s *blockSystem) findFixed(ops *graph.Ops) error {
	var general bool
	if s.redOK {
		general = stateProjectorDiagonal(s.states, s.cons, s.offsets, s.diag, s.w, s.pw)
	} else {
		general, _ = projectorDiagonal(ops, s.states, s.offsets, s.diag, s.w, s.pw)
	}
	if general {
		return errGeneralProjector
	}
	if s.redOK {
		if err := s.red.basis(s.n); err != nil {
			s.red.row = s.red.row[:0]
			return err
		}
	}
	clear(s.fixed)
	for si, off := range s.offsets {
		for i := 0; i < s.sizes[si]; i++ {
			s.fixed[off+i] = s.diag[off+i] == 0
		}
		for i := off + s.sizes[si]; i < off+(s.sizes[si]+2)/3*3; i++ {
			s.fixed[i] = true // padding
		}
	}
	for _, g := range s.red.row {
		s.fixed[g] = true
	}
	return nil
}

// reduceRHS sets v ← Tᵀ v when constraints make components follow
// others (before the fixed entries are zeroed).
func (s *blockSystem) reduceRHS(v []float64) {
	if s.red.active() {
		s.red.reduceVec(v)
	}
}

// expand sets v ← T v: the dependent components from the ones they
// follow.
func (s *blockSystem) expand(v []float64) {
	if s.red.active() {
		s.red.expand(v)
	}
}

// collect finds the sources on the independent states' nodes.
func (s *blockSystem) collect() {
	s.sources = s.sources[:0]
	for si, st := range s.states {
		nd := st.Base().Node
		off := s.offsets[si]
		vec3 := st.Template().DerivSize() == 3
		for _, o := range nd.Objects {
			if _, isMass := o.(graph.Mass); isMass {
				continue
			}
			if _, isFF := o.(graph.ForceField); !isFF {
				continue
			}
			if ba, ok := o.(graph.StiffnessBlockAssembler); ok && vec3 {
				if p := ba.StiffnessBlocks(); p != nil {
					s.sources = append(s.sources, sysSource{obj: o, block: true, off: off, pairs: shiftPairs(p, off/3)})
					continue
				}
			}
			if _, ok := o.(graph.StiffnessAssembler); ok {
				s.sources = append(s.sources, sysSource{obj: o, off: off})
			}
		}
		if ms := nd.Mass(); ms != nil {
			added := false
			if ba, ok := ms.(graph.MassBlockAssembler); ok && vec3 {
				if p := ba.MassBlocks(); p != nil {
					s.sources = append(s.sources, sysSource{obj: ms, mass: true, block: true, off: off, pairs: shiftPairs(p, off/3)})
					added = true
				}
			}
			if _, ok := ms.(graph.MassAssembler); ok && !added {
				s.sources = append(s.sources, sysSource{obj: ms, mass: true, off: off})
			}
			if _, ok := ms.(graph.StiffnessAssembler); ok {
				s.sources = append(s.sources, sysSource{obj: ms, off: off})
			}
		}
	}
}

// shiftPairs returns the pairs shifted by d blocks (the pairs themselves
// when d = 0).
func shiftPairs(p []int32, d int) []int32 {
	if d == 0 {
		return p
	}
	q := make([]int32, len(p))
	for i, v := range p {
		q[i] = v + int32(d)
	}
	return q
}

// assemble returns A = m·M + k·K of the subtree with the fixed rows and
// columns replaced by identity ones (the matrix is the system's own
// storage, valid until the next call). b ≠ 0 requires the subtree to have
// no damping matrix (checked).
func (s *blockSystem) assemble(ops *graph.Ops, m, b, k float64) (*sparse.BSR3, error) {
	s.layout(ops)
	if !s.throughMappings {
		if err := s.check(ops, b != 0); err != nil {
			return nil, err
		}
	}
	if err := s.findFixed(ops); err != nil {
		return nil, err
	}
	if s.sources == nil {
		s.collect()
	}
	if s.throughMappings {
		// A subtree the direct path assembles exactly (assemblyChecker
		// passes) and whose mappings carry no geometric stiffness gets
		// nothing from mappedSystem: skip it (no probes, no allocations).
		if ok, _ := s.checker.check(ops.Root, b != 0); ok && !s.mapped.anyGeometricOrMassB(ops.Root, b, k) {
			s.mapped.skip()
		} else if err := s.mapped.compute(ops, s.states, s.offsets, s.n, m, b, k); err != nil {
			return nil, err
		}
	}
	if s.asm == nil || !s.values(m, k) {
		if err := s.build(m, k); err != nil {
			return nil, err
		}
	}
	A := s.asm.A
	if s.red.active() {
		var err error
		if A, err = s.red.matrix(A); err != nil {
			return nil, err
		}
	}
	s.applyFixed(A)
	return A, nil
}

// assemblePartial returns m·M + k·K of what the independent states'
// components can write, without the check that nothing else contributes
// (mapped masses and force fields, interaction force fields, contact
// stiffnesses, damping matrices are left out): the matrix of approximate
// preconditioners for subtrees that cannot be assembled exactly. With
// fixed, the fixed DOFs become identity rows as in assemble (the
// projector must then fix components: findFixed succeeded).
func (s *blockSystem) assemblePartial(ops *graph.Ops, m, k float64, fixed bool) (*sparse.BSR3, error) {
	s.layout(ops)
	if s.sources == nil {
		s.collect()
	}
	if s.asm == nil || !s.values(m, k) {
		if err := s.build(m, k); err != nil {
			return nil, err
		}
	}
	if fixed {
		s.applyFixed(s.asm.A)
	}
	return s.asm.A, nil
}

// writeBlocks lets every block source write its values.
func (s *blockSystem) writeBlocks(m, k float64) {
	for _, src := range s.sources {
		if !src.block {
			continue
		}
		v := s.asm.Source(src.src)
		if src.mass {
			src.obj.(graph.MassBlockAssembler).MBlocks(v, m)
		} else {
			src.obj.(graph.StiffnessBlockAssembler).KBlocks(v, k)
		}
	}
}

// addBlocks is writeBlocks followed by Gather, for a matrix the runner
// would gather on one goroutine anyway: the sources that can add their
// blocks straight into the matrix (graph.StiffnessBlockAdder) do so, the
// others write them into their buffers, added at once (AddSource). The
// matrix is bitwise the one of writeBlocks and Gather (the same sums in
// the same order), without the pass over a buffer of every element's
// blocks.
func (s *blockSystem) addBlocks(m, k float64) {
	val := s.asm.A.Val
	clear(val)
	for _, src := range s.sources {
		if !src.block {
			continue
		}
		if !src.mass {
			if ad, ok := src.obj.(graph.StiffnessBlockAdder); ok && ad.AddKBlocks(val, s.asm.Positions(src.src), k) {
				continue
			}
		}
		v := s.asm.Source(src.src)
		if src.mass {
			src.obj.(graph.MassBlockAssembler).MBlocks(v, m)
		} else {
			src.obj.(graph.StiffnessBlockAssembler).KBlocks(v, k)
		}
		s.asm.AddSource(src.src)
	}
}

// callScalar runs every scalar source with acc (shifted to its state).
func (s *blockSystem) callScalar(acc interface {
	graph.MatrixAccumulator
	setOffset(int)
}, m, k float64) {
	for _, src := range s.sources {
		if src.block {
			continue
		}
		acc.setOffset(src.off)
		if src.mass {
			src.obj.(graph.MassAssembler).AddMToMatrix(acc, m)
		} else {
			src.obj.(graph.StiffnessAssembler).AddKToMatrix(acc, k)
		}
	}
	if s.throughMappings {
		acc.setOffset(0)
		mp := &s.mapped
		for q, v := range mp.vals {
			acc.Add(int(mp.rows[q]), int(mp.cols[q]), v)
		}
	}
}

// build computes the pattern from the sources (recording the scalar
// entries on the way) and assembles the values.
func (s *blockSystem) build(m, k float64) error {
	s.rec = scalarRecord{n: s.n}
	s.callScalar(&s.rec, m, k)
	if s.rec.err != nil {
		return s.rec.err
	}
	lists := [][]int32{}
	for i := range s.sources {
		if s.sources[i].block {
			s.sources[i].src = len(lists)
			lists = append(lists, s.sources[i].pairs)
		}
	}
	terms := s.kronTerms()
	ne := 4 * len(s.rec.rows)
	for _, t := range terms {
		ne += len(t.pat.pairs)
	}
	extra := make([]int32, 0, ne)
	for q := range s.rec.rows {
		// Both (i, j) and (j, i): the pattern stays symmetric when a
		// probed entry happens to be zero on one side only.
		i, j := s.rec.rows[q]/3, s.rec.cols[q]/3
		extra = append(extra, i, j, j, i)
	}
	for _, t := range terms {
		extra = append(extra, t.pat.pairs...) // (k, l) and (l, k) both
	}
	asm, err := sparse.NewBSR3Assembly(s.n/3, lists, extra)
	if err != nil {
		return fmt.Errorf("assembly: %w", err)
	}
	s.asm = asm
	s.kronPats, s.kronPos = s.kronPats[:0], s.kronPos[:0]
	for _, t := range terms {
		pr := t.pat.pairs
		pos := make([]int32, len(pr)/2)
		for q := range pos {
			pos[q] = int32(asm.A.Find(int(pr[2*q]), int(pr[2*q+1])))
		}
		s.kronPats = append(s.kronPats, t.pat)
		s.kronPos = append(s.kronPos, pos)
	}
	s.fixedFor = nil
	s.rec.pos = make([]int32, len(s.rec.rows))
	for q := range s.rec.rows {
		s.rec.pos[q] = int32(asm.ScalarIndex(int(s.rec.rows[q]), int(s.rec.cols[q])))
	}
	s.writeBlocks(m, k)
	asm.Gather(&s.runner)
	s.addKron()
	for q, p := range s.rec.pos {
		asm.A.Val[p] += s.rec.vals[q]
	}
	return nil
}

// values assembles into the known pattern; false when a scalar source
// wrote an entry other than the recorded one (the pattern must be
// rebuilt).
func (s *blockSystem) values(m, k float64) bool {
	if !s.kronMatches() {
		return false
	}
	s.direct = s.runner.NumWorkers() <= 1 || s.asm.A.N < 8*sparse.GatherGrain
	if s.direct {
		s.addBlocks(m, k)
	} else {
		s.writeBlocks(m, k)
		s.asm.Gather(&s.runner)
	}
	s.addKron()
	if len(s.rec.rows) == 0 && !s.hasScalar() && len(s.mapped.vals) == 0 {
		return true
	}
	s.replay = replayAccumulator{rec: &s.rec, val: s.asm.A.Val}
	s.callScalar(&s.replay, m, k)
	if !s.replay.miss && s.replay.next == len(s.rec.rows) {
		return true
	}
	return s.relocate(m, k)
}

// relocate handles scalar sources that wrote other entries than the
// recorded ones (contacts came or went, so probed entries appeared or
// vanished): it records their entries afresh and, when every one falls in
// a block of the current pattern (a contact's blocks are diagonal, and
// the diagonal is always there), finds their positions and assembles the
// values again (gather, then the entries in order, as build does, so the
// matrix is bitwise the one a rebuild would give). The matrix keeps its
// pattern and storage, so a direct solver keeps its symbolic analysis
// (drop.toml: 229 analyses of a 1,575-DOF system in 1,000 steps before).
// It returns false when some entry falls outside the pattern (then the
// pattern must be rebuilt).
func (s *blockSystem) relocate(m, k float64) bool {
	rec := scalarRecord{n: s.n, rows: s.spare.rows[:0], cols: s.spare.cols[:0], vals: s.spare.vals[:0], pos: s.spare.pos[:0]}
	s.callScalar(&rec, m, k)
	if rec.err != nil {
		return false
	}
	for q := range rec.rows {
		p := s.asm.ScalarIndex(int(rec.rows[q]), int(rec.cols[q]))
		if p < 0 {
			return false
		}
		rec.pos = append(rec.pos, int32(p))
	}
	// Drop what the replay added before its miss: gather the sources'
	// buffers again, or, when some source added its blocks straight into
	// the matrix (addBlocks), let them add again.
	if s.direct {
		s.addBlocks(m, k)
	} else {
		s.asm.Gather(&s.runner)
	}
	s.addKron()
	for q, p := range rec.pos {
		s.asm.A.Val[p] += rec.vals[q]
	}
	s.spare, s.rec = s.rec, rec
	return true
}

// exactlyAssembled reports, before an assembly, whether it will be made
// of closed-form blocks only (closedForm), structurally: the sources are
// known (an assembly happened), none writes scalar entries, no reduced
// system (graph.ConstraintBasis) is in use, and every
// mechanical component of the subtree is a block source — every force
// field a graph.StiffnessBlockAssembler, every mass a
// graph.MassBlockAssembler, no interaction force field, no mechanical
// mapping. A component without a matrix (a contact model, a constant
// load) makes it false, whether it has a stiffness at the moment or not.
func (s *blockSystem) exactlyAssembled(ops *graph.Ops) bool {
	if s.sources == nil || s.hasScalar() || s.red.active() || len(s.states) != len(ops.Independent()) {
		return false
	}
	return allBlockSources(ops.Root)
}

// allBlockSources reports whether every mechanical component of the
// subtree of nd writes closed-form blocks (see exactlyAssembled).
func allBlockSources(nd *graph.Node) bool {
	if mp := nd.Mapping(); mp != nil {
		if mp.IsMechanical() {
			return false
		}
		return true // a visual subtree: no forces
	}
	for _, o := range nd.Objects {
		if _, ia := o.(graph.InteractionForceField); ia {
			return false
		}
		if _, isMass := o.(graph.Mass); isMass {
			if _, ok := o.(graph.MassBlockAssembler); !ok {
				return false
			}
			continue
		}
		if _, isFF := o.(graph.ForceField); isFF {
			if _, ok := o.(graph.StiffnessBlockAssembler); !ok {
				return false
			}
		}
	}
	for _, ch := range nd.Children {
		if !allBlockSources(ch) {
			return false
		}
	}
	return true
}

// closedForm reports whether the last assembly was made of block sources
// only (the closed-form element and mass blocks): no scalar entries (a
// scalar source may write none, as a contact model out of contact),
// nothing from the assembly through mappings, no constraint reduction.
func (s *blockSystem) closedForm() bool {
	return len(s.rec.rows) == 0 && len(s.mapped.vals) == 0 && len(s.kronPats) == 0 && !s.red.active()
}

// kronTerms returns the structured terms of the assembly through mappings
// (none when the system is not assembled through them).
func (s *blockSystem) kronTerms() []kronTerm {
	if !s.throughMappings {
		return nil
	}
	return s.mapped.kron
}

// kronMatches reports whether the structured terms are those the pattern
// was built with (else the pattern must be rebuilt).
func (s *blockSystem) kronMatches() bool {
	terms := s.kronTerms()
	if len(terms) != len(s.kronPats) {
		return false
	}
	for i := range terms {
		if terms[i].pat != s.kronPats[i] {
			return false
		}
	}
	return true
}

// addKron adds the structured terms into the matrix (after the blocks).
func (s *blockSystem) addKron() {
	if len(s.kronPats) > 0 {
		s.mapped.addKron(s.asm.A.Val, s.kronPos)
	}
}

func (s *blockSystem) hasScalar() bool {
	for _, src := range s.sources {
		if !src.block {
			return true
		}
	}
	return false
}

// applyFixed zeroes the fixed rows and columns of a and puts 1 on their
// diagonal (the index lists are recomputed when the fixed set or the
// matrix changes).
func (s *blockSystem) applyFixed(a *sparse.BSR3) {
	if a != s.fixedA || !slices.Equal(s.fixed, s.fixedFor) {
		s.fixedA = a
		s.zero, s.one = s.zero[:0], s.one[:0]
		for i := 0; i < a.N; i++ {
			fr := s.fixed[3*i] || s.fixed[3*i+1] || s.fixed[3*i+2]
			for p := a.RowPtr[i]; p < a.RowPtr[i+1]; p++ {
				j := int(a.Col[p])
				if !fr && !s.fixed[3*j] && !s.fixed[3*j+1] && !s.fixed[3*j+2] {
					continue
				}
				for r := 0; r < 3; r++ {
					for c := 0; c < 3; c++ {
						if s.fixed[3*i+r] || s.fixed[3*j+c] {
							s.zero = append(s.zero, 9*p+int32(3*r+c))
							if i == j && r == c {
								s.one = append(s.one, 9*p+int32(3*r+c))
							}
						}
					}
				}
			}
		}
		s.fixedFor = append(s.fixedFor[:0], s.fixed...)
	}
	for _, q := range s.zero {
		a.Val[q] = 0
	}
	for _, q := range s.one {
		a.Val[q] = 1
	}
}

// locate maps a scalar unknown to its state, DOF and component.
func (s *blockSystem) locate(row int) (graph.State, int, int) {
	si := len(s.states) - 1
	for si > 0 && s.offsets[si] > row {
		si--
	}
	st := s.states[si]
	d := st.Template().DerivSize()
	r := row - s.offsets[si]
	return st, r / d, r % d
}

// scalarRecord records the scalar entries of the first assembly (global
// indices) and, after the pattern is built, their value positions.
type scalarRecord struct {
	n          int
	off        int
	rows, cols []int32
	vals       []float64
	pos        []int32
	err        error
}

func (r *scalarRecord) setOffset(off int) { r.off = off }

func (r *scalarRecord) Add(row, col int, v float64) {
	row += r.off
	col += r.off
	if uint(row) >= uint(r.n) || uint(col) >= uint(r.n) {
		if r.err == nil {
			r.err = fmt.Errorf("assembly: entry (%d, %d) out of range of the %d×%d system", row, col, r.n, r.n)
		}
		return
	}
	r.rows = append(r.rows, int32(row))
	r.cols = append(r.cols, int32(col))
	r.vals = append(r.vals, v)
}

// replayAccumulator adds the k-th entry of an assembly at the position
// recorded for the k-th entry of the first one, after checking that it is
// the same (row, column): no search.
type replayAccumulator struct {
	rec  *scalarRecord
	val  []float64
	off  int
	next int
	miss bool
}

func (r *replayAccumulator) setOffset(off int) { r.off = off }

func (r *replayAccumulator) Add(row, col int, v float64) {
	q := r.next
	r.next++
	if q >= len(r.rec.rows) || int(r.rec.rows[q]) != row+r.off || int(r.rec.cols[q]) != col+r.off {
		r.miss = true
		return
	}
	r.val[r.rec.pos[q]] += v
}
