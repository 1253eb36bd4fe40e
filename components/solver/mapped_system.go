package solver

import (
	"fmt"
	"math/rand/v2"

	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/parallel"
)

// mappedSystem computes the part of A = m·M + b·B + k·K that the
// independent states' component matrices (blockSystem's sources) do not
// give, as scalar entries in the global unknowns:
//
//   - masses and force fields on mapped states: Jᵀ L J with L the local
//     matrix m·M + k·K + b·B of the node and J the Jacobian of the chain
//     of mappings from the independent states to it (J of each mapping
//     from graph.SparseJacobianMapping, else probed with ApplyJ column by
//     column, with a note; chains multiplied out);
//   - the geometric stiffness of non-linear mappings, k·∂(Jᵀ f_child)/∂x
//     (probed with ApplyDJT on the parent's columns, at the child forces
//     of the last ComputeForce, as Ops.ComputeDf applies it), carried to
//     the independent states by the parent's J;
//   - interaction force fields (springs between states, joint springs,
//     contacts): their matrix over the concatenated states
//     (graph.InteractionMatrixAssembler: springs, joint springs; else
//     probed with AddDForce), carried by each state's J;
//   - on independent states, what has no matrix interface: force fields
//     with a stiffness and no assembler (probed), damping matrices B
//     (graph.DampingAssembler, else probed where AddDForce with
//     kFactor = 0 is not zero), masses' stiffness without
//     StiffnessAssembler.
//
// Probing a local matrix costs one AddDForce per column, or DerivSize
// products for force fields that declare graph.BlockDiagonalStiffness.
// What contributes nothing (constant loads, contacts not touching) is
// found by one product with a random vector and skipped. Entries of a
// probed local matrix that are exactly zero are left out, so the pattern
// may change from one assembly to the next (blockSystem then rebuilds it).
type mappedSystem struct {
	n       int
	off     map[graph.State]int // independent states' scalar offsets
	jac     map[graph.State]*spRows
	rng     *rand.Rand
	randVec map[int][]float64

	// Output: global scalar entries (duplicates add up), in a
	// deterministic order.
	rows, cols []int32
	vals       []float64

	// Scratch.
	l     coo
	tcnt  []int32
	buf   []float64 // zero tests (scratch)
	blk   []float64 // 3×3 block values of one component
	pdx   []float64 // probes
	pdf   []float64
	lrows spRows // local matrix of addTriple's caller
	lj    spRows // L·J in addTriple
	trow  []int32
	tval  []float64
	next  []int32
	il    coo     // an interaction's local matrix
	stack spRows  // an interaction's stacked J
	glob  []int32 // an interaction's global unknowns (independent states)

	// The structured path (kronecker_system.go): this assembly's terms
	// and the patterns by Jacobian (kept while used).
	kron      []kronTerm
	kronCache map[kronKey]*kronPattern
	kronUsed  map[kronKey]bool

	// The sparse products run over fixed contiguous row ranges, each with
	// its own accumulator and output (rowWork), concatenated in range
	// order: a row's entries come out in the same order whatever the
	// number of workers, so the result is bitwise deterministic.
	runner parallel.Runner
	work   []rowWork
}

// rowWork is one row range's sparse accumulator and output.
type rowWork struct {
	acc        []float64
	mark       []int32
	stamp      int32
	touched    []int32
	rows, cols []int32
	vals       []float64
	cnt        []int32 // entries per row (mulInto)
}

// begin starts a new accumulation row (n: the number of columns).
func (w *rowWork) begin(n int) {
	if len(w.acc) != n {
		w.acc = make([]float64, n)
		w.mark = make([]int32, n)
		w.stamp = 0
	}
	w.stamp++
	if w.stamp == 0 { // wrapped: reset the marks
		clear(w.mark)
		w.stamp = 1
	}
	w.touched = w.touched[:0]
}

func (w *rowWork) add(g int32, v float64) {
	if w.mark[g] != w.stamp {
		w.mark[g] = w.stamp
		w.acc[g] = 0
		w.touched = append(w.touched, g)
	}
	w.acc[g] += v
}

// rowRanges is the number of row ranges the sparse products cut their
// rows into: fixed (not the worker count), several per worker so that
// uneven rows balance.
const rowRanges = 32

// eachRowRange runs body(w, lo, hi) over rowRanges contiguous ranges of
// [0, nrows) on the shared worker pool, each with its own rowWork (reset
// outputs).
func (ms *mappedSystem) eachRowRange(nrows int, body func(w *rowWork, lo, hi int)) {
	if len(ms.work) != rowRanges {
		ms.work = make([]rowWork, rowRanges)
	}
	ms.runner.Run(rowRanges, 1, func(c0, c1 int) {
		for c := c0; c < c1; c++ {
			w := &ms.work[c]
			w.rows, w.cols, w.vals, w.cnt = w.rows[:0], w.cols[:0], w.vals[:0], w.cnt[:0]
			body(w, c*nrows/rowRanges, (c+1)*nrows/rowRanges)
		}
	})
}

// spRows is a sparse matrix by rows: row r holds (col[p], val[p]) for p
// in [ptr[r], ptr[r+1]).
type spRows struct {
	ptr  []int32
	col  []int32
	val  []float64
	cols int
}

func (a *spRows) nrows() int { return len(a.ptr) - 1 }

// coo collects local entries (a graph.MatrixAccumulator).
type coo struct {
	r, c []int32
	v    []float64
}

func (l *coo) Add(row, col int, v float64) {
	l.r = append(l.r, int32(row))
	l.c = append(l.c, int32(col))
	l.v = append(l.v, v)
}

func (l *coo) reset() { l.r, l.c, l.v = l.r[:0], l.c[:0], l.v[:0] }

// toRows converts to rows (nr rows, duplicates kept, in input order).
func (l *coo) toRows(nr, nc int) *spRows {
	return l.toRowsInto(&spRows{}, nr, nc)
}

// toRowsInto is toRows reusing a's storage.
func (l *coo) toRowsInto(a *spRows, nr, nc int) *spRows {
	a.ptr = resize(a.ptr, nr+1)
	clear(a.ptr)
	a.col = resize(a.col, len(l.r))
	a.val = resize(a.val, len(l.r))
	a.cols = nc
	for _, r := range l.r {
		a.ptr[r+1]++
	}
	for i := 0; i < nr; i++ {
		a.ptr[i+1] += a.ptr[i]
	}
	next := make([]int32, nr)
	copy(next, a.ptr[:nr])
	for q, r := range l.r {
		p := next[r]
		next[r]++
		a.col[p], a.val[p] = l.c[q], l.v[q]
	}
	return a
}

// skip empties the output: the subtree has nothing for mappedSystem.
func (ms *mappedSystem) skip() {
	ms.rows, ms.cols, ms.vals = ms.rows[:0], ms.cols[:0], ms.vals[:0]
	ms.kron = ms.kron[:0]
}

// anyGeometricOrMassB reports whether the subtree of nd has what
// assemblyChecker does not look for and compute would add: the geometric
// stiffness of a mechanical mapping (k ≠ 0; a constant load on a mapped
// state makes it non-zero), or the damping matrix of a mass that writes
// its stiffness through graph.StiffnessAssembler (b ≠ 0). Together with
// assemblyChecker.check passing, false means compute adds nothing.
// Recursive rather than Node.Walk so that no closure is allocated.
func (ms *mappedSystem) anyGeometricOrMassB(nd *graph.Node, b, k float64) bool {
	st, mp := nd.State(), nd.Mapping()
	if st != nil && (mp == nil || mp.IsMechanical()) {
		if mp != nil && k != 0 && !ms.zeroDJT(mp) {
			return true
		}
		if mass := nd.Mass(); mass != nil && b != 0 {
			if _, ka := mass.(graph.StiffnessAssembler); ka && !ms.zeroDForce(mass, st.Size()*st.Template().DerivSize(), 0, 1) {
				return true
			}
		}
	}
	for _, ch := range nd.Children {
		if ms.anyGeometricOrMassB(ch, b, k) {
			return true
		}
	}
	return false
}

// zeroDJT reports whether mp.ApplyDJT of a random vector, at the child
// forces of the last ComputeForce, is exactly zero (linear mappings, or
// no force on the child).
func (ms *mappedSystem) zeroDJT(mp graph.Mapping) bool {
	from := mp.From()
	np := from.Size() * from.Template().DerivSize()
	df := ms.scratch(np)
	mp.ApplyDJT(df, ms.random(np), mp.To().Vec(graph.Force), 1)
	for _, v := range df {
		if v != 0 {
			return false
		}
	}
	return true
}

// scratch returns the zeroed buffer of length n reused between calls (the
// result of a zero test; not kept by callers).
func (ms *mappedSystem) scratch(n int) []float64 {
	if cap(ms.buf) < n {
		ms.buf = make([]float64, n)
	}
	ms.buf = ms.buf[:n]
	clear(ms.buf)
	return ms.buf
}

// resize returns s with length n, reusing its storage when large enough
// (contents unspecified).
func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// probeBufs returns the probe vectors dx, df of length n, zeroed (reused).
func (ms *mappedSystem) probeBufs(n int) (dx, df []float64) {
	ms.pdx, ms.pdf = resize(ms.pdx, n), resize(ms.pdf, n)
	clear(ms.pdx)
	clear(ms.pdf)
	return ms.pdx, ms.pdf
}

// compute fills rows, cols, vals for the subtree of ops with the given
// independent states' layout.
func (ms *mappedSystem) compute(ops *graph.Ops, states []graph.State, offsets []int, n int, m, b, k float64) error {
	ms.rows, ms.cols, ms.vals = ms.rows[:0], ms.cols[:0], ms.vals[:0]
	ms.kron = ms.kron[:0]
	if ms.n != n || ms.off == nil {
		ms.n = n
		ms.tcnt = make([]int32, n+1)
	}
	if ms.off == nil {
		ms.off = map[graph.State]int{}
		ms.jac = map[graph.State]*spRows{}
	}
	clear(ms.off)
	for i, s := range states {
		ms.off[s] = offsets[i]
	}
	clear(ms.jac)
	var nodeErr error
	ops.Root.Walk(func(nd *graph.Node) error {
		if nodeErr != nil {
			return nil
		}
		for _, o := range nd.Objects {
			if ia, ok := o.(graph.InteractionForceField); ok && (k != 0 || b != 0) {
				if err := ms.interaction(ia, k, b); err != nil {
					nodeErr = err
					return nil
				}
			}
		}
		st := nd.State()
		mp := nd.Mapping()
		if st == nil || (mp != nil && !mp.IsMechanical()) {
			return nil
		}
		if err := ms.node(nd, st, mp, m, b, k); err != nil {
			nodeErr = err
		}
		return nil
	})
	ms.pruneKron()
	return nodeErr
}

// node adds the contributions of one node's components (and of its
// mapping's geometric stiffness).
func (ms *mappedSystem) node(nd *graph.Node, st graph.State, mp graph.Mapping, m, b, k float64) error {
	mapped := mp != nil
	ds := st.Template().DerivSize()
	nl := st.Size() * ds
	ms.l.reset()
	l := &ms.l
	for _, ff := range nd.ForceFields() {
		if k == 0 && b == 0 {
			break
		}
		covered := false
		if ba, ok := ff.(graph.StiffnessBlockAssembler); ok && ds == 3 {
			if p := ba.StiffnessBlocks(); p != nil {
				covered = true
				if mapped {
					vals := ms.blocks(9 * len(p) / 2)
					ba.KBlocks(vals, k)
					addBlocks(l, p, vals)
				}
			}
		}
		if sa, ok := ff.(graph.StiffnessAssembler); ok && !covered {
			covered = true
			if mapped {
				sa.AddKToMatrix(l, k)
			}
		}
		switch {
		case covered && b != 0 && !ms.zeroDForce(ff, nl, 0, 1):
			if da, ok := ff.(graph.DampingAssembler); ok {
				da.AddBToMatrix(l, b)
			} else {
				ms.probe(l, ff, ds, nl, 0, b)
			}
		case !covered && !ms.zeroDForce(ff, nl, 1, 1):
			ms.probe(l, ff, ds, nl, k, b)
		}
	}
	if ms2 := nd.Mass(); ms2 != nil {
		mCovered := false
		if ba, ok := ms2.(graph.MassBlockAssembler); ok && ds == 3 {
			if p := ba.MassBlocks(); p != nil {
				mCovered = true
				if mapped && m != 0 {
					vals := ms.blocks(9 * len(p) / 2)
					ba.MBlocks(vals, m)
					addBlocks(l, p, vals)
				}
			}
		}
		if ma, ok := ms2.(graph.MassAssembler); ok && !mCovered {
			mCovered = true
			if mapped && m != 0 {
				ma.AddMToMatrix(l, m)
			}
		}
		if !mCovered && m != 0 {
			ms2.Base().Notef("no mass matrix (graph.MassAssembler): the assembled system probes M with AddMDx (products per assembly: %d)", nl)
			ms.probeWith(l, nl, func(df, dx []float64) { ms2.AddMDx(df, dx, m) })
		}
		if k != 0 || b != 0 {
			sa, kCovered := ms2.(graph.StiffnessAssembler)
			if kCovered && mapped {
				sa.AddKToMatrix(l, k)
			}
			switch {
			case kCovered && b != 0 && !ms.zeroDForce(ms2, nl, 0, 1):
				if da, ok := ms2.(graph.DampingAssembler); ok {
					da.AddBToMatrix(l, b)
				} else {
					ms.probe(l, ms2, ds, nl, 0, b)
				}
			case !kCovered && !ms.zeroDForce(ms2, nl, 1, 1):
				ms.probe(l, ms2, ds, nl, k, b)
			}
		}
	}
	if len(l.r) > 0 {
		if off, ok := ms.off[st]; ok {
			// Independent state: J is the identity at its offset.
			ms.addShifted(l, func(i int32) int32 { return int32(off) + i })
		} else {
			if p := ms.kronFor(st, mp); p != nil && blockDiagonal(l, 3*p.c) {
				// One block per child DOF: the structured path.
				ms.addKronTerm(p, l)
				l = nil
			}
			if l != nil {
				J, err := ms.jacobian(st)
				if err != nil {
					return err
				}
				ms.addTriple(J, l.toRowsInto(&ms.lrows, nl, nl))
			}
		}
	}
	if mapped && k != 0 {
		if err := ms.geometric(mp, k); err != nil {
			return err
		}
	}
	return nil
}

// blocks returns the block-value buffer of length n (reused; its values
// are copied into l by addBlocks before the next call).
func (ms *mappedSystem) blocks(n int) []float64 {
	if cap(ms.blk) < n {
		ms.blk = make([]float64, n)
	}
	ms.blk = ms.blk[:n]
	clear(ms.blk)
	return ms.blk
}

// addBlocks adds 3×3 blocks at point pairs to l.
func addBlocks(l *coo, pairs []int32, vals []float64) {
	for q := 0; q < len(pairs)/2; q++ {
		i, j := 3*int(pairs[2*q]), 3*int(pairs[2*q+1])
		v := vals[9*q : 9*q+9]
		for r := 0; r < 3; r++ {
			for c := 0; c < 3; c++ {
				l.Add(i+r, j+c, v[3*r+c])
			}
		}
	}
}

// random returns a fixed random vector of length n.
func (ms *mappedSystem) random(n int) []float64 {
	if ms.rng == nil {
		ms.rng = rand.New(rand.NewPCG(3, 4))
		ms.randVec = map[int][]float64{}
	}
	v, ok := ms.randVec[n]
	if !ok {
		v = make([]float64, n)
		for i := range v {
			v[i] = 2*ms.rng.Float64() - 1
		}
		ms.randVec[n] = v
	}
	return v
}

// zeroDForce reports whether ff.AddDForce of a random vector is exactly zero.
func (ms *mappedSystem) zeroDForce(ff graph.ForceField, nl int, k, b float64) bool {
	df := ms.scratch(nl)
	ff.AddDForce(df, ms.random(nl), k, b)
	for _, v := range df {
		if v != 0 {
			return false
		}
	}
	return true
}

// probe adds the columns of kFactor·K + bFactor·B of ff to l: DerivSize
// products when ff declares a block-diagonal stiffness, else one per
// column (with a note).
func (ms *mappedSystem) probe(l *coo, ff graph.ForceField, ds, nl int, k, b float64) {
	if bd, ok := ff.(graph.BlockDiagonalStiffness); ok && bd.BlockDiagonalStiffness() {
		dx, df := ms.probeBufs(nl)
		for c := 0; c < ds; c++ {
			clear(dx)
			clear(df)
			for p := c; p < nl; p += ds {
				dx[p] = 1
			}
			ff.AddDForce(df, dx, k, b)
			for p := 0; p < nl; p += ds {
				for r := 0; r < ds; r++ {
					if v := df[p+r]; v != 0 {
						l.Add(p+r, p+c, v)
					}
				}
			}
		}
		return
	}
	ff.Base().Notef("no stiffness matrix (graph.StiffnessAssembler) for the terms it contributes: the assembled system probes them with AddDForce (products per assembly: %d)", nl)
	ms.probeWith(l, nl, func(df, dx []float64) { ff.AddDForce(df, dx, k, b) })
}

// probeWith adds the columns of the linear map f (f(df, dx) accumulates
// into df) to l.
func (ms *mappedSystem) probeWith(l *coo, nl int, f func(df, dx []float64)) {
	dx, df := ms.probeBufs(nl)
	for j := 0; j < nl; j++ {
		dx[j] = 1
		clear(df)
		f(df, dx)
		dx[j] = 0
		for i, v := range df {
			if v != 0 {
				l.Add(i, j, v)
			}
		}
	}
}

// jacobian returns J of state st: rows its derivative entries, columns the
// global unknowns (the identity at its offset for an independent state).
func (ms *mappedSystem) jacobian(st graph.State) (*spRows, error) {
	if J, ok := ms.jac[st]; ok {
		return J, nil
	}
	nl := st.Size() * st.Template().DerivSize()
	if off, ok := ms.off[st]; ok {
		J := &spRows{ptr: make([]int32, nl+1), col: make([]int32, nl), val: make([]float64, nl), cols: ms.n}
		for i := 0; i < nl; i++ {
			J.ptr[i+1] = int32(i + 1)
			J.col[i] = int32(off + i)
			J.val[i] = 1
		}
		ms.jac[st] = J
		return J, nil
	}
	nd := st.Base().Node
	var mp graph.Mapping
	if nd != nil {
		mp = nd.Mapping()
	}
	if mp == nil || !mp.IsMechanical() || mp.To() != st {
		return nil, fmt.Errorf("state %q is neither independent nor computed by a mechanical mapping in the solver's subtree", st.Base().Path())
	}
	from := mp.From()
	Jp, err := ms.jacobian(from)
	if err != nil {
		return nil, err
	}
	np := from.Size() * from.Template().DerivSize()
	var jm coo
	if sj, ok := mp.(graph.SparseJacobianMapping); ok {
		sj.JacobianEntries(&jm)
	} else {
		mp.Base().Notef("no sparse Jacobian (graph.SparseJacobianMapping): the assembled system probes J with ApplyJ (products per assembly: %d)", np)
		pv, cv := make([]float64, np), make([]float64, nl)
		for j := 0; j < np; j++ {
			pv[j] = 1
			mp.ApplyJ(cv, pv)
			pv[j] = 0
			for i, v := range cv {
				if v != 0 {
					jm.Add(i, j, v)
				}
			}
		}
	}
	for q := range jm.r {
		if int(jm.r[q]) >= nl || int(jm.c[q]) >= np || jm.r[q] < 0 || jm.c[q] < 0 {
			return nil, mp.Base().Errorf("Jacobian entry (%d, %d) outside the %d×%d of the mapping", jm.r[q], jm.c[q], nl, np)
		}
	}
	J := ms.mul(jm.toRows(nl, np), Jp)
	ms.jac[st] = J
	return J, nil
}

// mul returns A·B (B's columns are global unknowns).
func (ms *mappedSystem) mul(A, B *spRows) *spRows {
	return ms.mulInto(&spRows{}, A, B)
}

// mulInto is mul reusing C's storage. Rows are computed in parallel
// (eachRowRange), each in the order of A's and B's entries.
func (ms *mappedSystem) mulInto(C, A, B *spRows) *spRows {
	nr := A.nrows()
	ms.eachRowRange(nr, func(w *rowWork, lo, hi int) {
		for r := lo; r < hi; r++ {
			w.begin(B.cols)
			for p := A.ptr[r]; p < A.ptr[r+1]; p++ {
				a, c := A.val[p], A.col[p]
				for q := B.ptr[c]; q < B.ptr[c+1]; q++ {
					w.add(B.col[q], a*B.val[q])
				}
			}
			for _, g := range w.touched {
				w.cols = append(w.cols, g)
				w.vals = append(w.vals, w.acc[g])
			}
			w.cnt = append(w.cnt, int32(len(w.touched)))
		}
	})
	C.ptr = resize(C.ptr, nr+1)
	C.ptr[0] = 0
	C.col, C.val, C.cols = C.col[:0], C.val[:0], B.cols
	r := 0
	for c := range ms.work {
		w := &ms.work[c]
		C.col = append(C.col, w.cols...)
		C.val = append(C.val, w.vals...)
		for _, k := range w.cnt {
			C.ptr[r+1] = C.ptr[r] + k
			r++
		}
	}
	return C
}

// addTriple appends the entries of Jᵀ L J (L local, J local → global).
func (ms *mappedSystem) addTriple(J, L *spRows) {
	LJ := ms.mulInto(&ms.lj, L, J)
	// Jᵀ by global rows: cnt over the global unknowns.
	cnt := ms.tcnt
	clear(cnt)
	for _, g := range J.col {
		cnt[g+1]++
	}
	for i := 0; i < ms.n; i++ {
		cnt[i+1] += cnt[i]
	}
	ms.trow, ms.tval = resize(ms.trow, len(J.col)), resize(ms.tval, len(J.col))
	ms.next = resize(ms.next, ms.n)
	trow, tval, next := ms.trow, ms.tval, ms.next
	copy(next, cnt[:ms.n])
	for r := 0; r < J.nrows(); r++ {
		for p := J.ptr[r]; p < J.ptr[r+1]; p++ {
			g := J.col[p]
			q := next[g]
			next[g]++
			trow[q], tval[q] = int32(r), J.val[p]
		}
	}
	n := ms.n
	ms.eachRowRange(n, func(w *rowWork, lo, hi int) {
		for g := lo; g < hi; g++ {
			if cnt[g] == cnt[g+1] {
				continue
			}
			w.begin(n)
			for q := cnt[g]; q < cnt[g+1]; q++ {
				r, a := trow[q], tval[q]
				for p := LJ.ptr[r]; p < LJ.ptr[r+1]; p++ {
					w.add(LJ.col[p], a*LJ.val[p])
				}
			}
			for _, h := range w.touched {
				w.rows = append(w.rows, int32(g))
				w.cols = append(w.cols, h)
				w.vals = append(w.vals, w.acc[h])
			}
		}
	})
	for c := range ms.work {
		w := &ms.work[c]
		ms.rows = append(ms.rows, w.rows...)
		ms.cols = append(ms.cols, w.cols...)
		ms.vals = append(ms.vals, w.vals...)
	}
}

// addShifted appends the entries of l at global rows and columns g(i).
func (ms *mappedSystem) addShifted(l *coo, g func(int32) int32) {
	for q := range l.r {
		ms.rows = append(ms.rows, g(l.r[q]))
		ms.cols = append(ms.cols, g(l.c[q]))
		ms.vals = append(ms.vals, l.v[q])
	}
}

// geometric adds J_parentᵀ (k·∂(Jᵀ f_child)/∂x_parent) J_parent, probed
// with ApplyDJT (skipped when a random product is zero: linear mappings).
func (ms *mappedSystem) geometric(mp graph.Mapping, k float64) error {
	from := mp.From()
	np := from.Size() * from.Template().DerivSize()
	f := mp.To().Vec(graph.Force)
	if ms.zeroDJT(mp) {
		return nil
	}
	df := make([]float64, np)
	var g coo
	dx := make([]float64, np)
	for j := 0; j < np; j++ {
		dx[j] = 1
		clear(df)
		mp.ApplyDJT(df, dx, f, k)
		dx[j] = 0
		for i, v := range df {
			if v != 0 {
				g.Add(i, j, v)
			}
		}
	}
	J, err := ms.jacobian(from)
	if err != nil {
		return err
	}
	ms.addTriple(J, g.toRows(np, np))
	return nil
}

// interaction adds the matrix of an interaction force field, probed over
// its states' concatenated derivative entries.
func (ms *mappedSystem) interaction(ia graph.InteractionForceField, k, b float64) error {
	sts := ia.States()
	offs := make([]int, len(sts)+1)
	for i, s := range sts {
		offs[i+1] = offs[i] + s.Size()*s.Template().DerivSize()
	}
	nl := offs[len(sts)]
	split := func(v []float64) [][]float64 {
		out := make([][]float64, len(sts))
		for i := range sts {
			out[i] = v[offs[i]:offs[i+1]:offs[i+1]]
		}
		return out
	}
	dxv, dfv := ms.probeBufs(nl)
	dx, df := split(dxv), split(dfv)
	// A state listed twice gets two blocks of rows in the stacked J, both
	// onto its columns: Jᵀ L J then sums what Ops does by passing the
	// same slices twice.
	copy(dxv, ms.random(nl))
	ia.AddDForce(df, dx, 1, 1)
	zero := true
	for _, v := range dfv {
		zero = zero && v == 0
	}
	if zero {
		return nil
	}
	l := &ms.il
	l.reset()
	if ma, ok := ia.(graph.InteractionMatrixAssembler); ok {
		ma.AddKBToMatrix(l, k, b)
		for q := range l.r {
			if l.r[q] < 0 || int(l.r[q]) >= nl || l.c[q] < 0 || int(l.c[q]) >= nl {
				return ia.Base().Errorf("matrix entry (%d, %d) outside the %d derivative entries of its states", l.r[q], l.c[q], nl)
			}
		}
	} else {
		ia.Base().Notef("interaction force field: the assembled system probes its matrix with AddDForce (products per assembly: %d)", nl)
		clear(dxv)
		for j := 0; j < nl; j++ {
			dxv[j] = 1
			clear(dfv)
			ia.AddDForce(df, dx, k, b)
			dxv[j] = 0
			for i, v := range dfv {
				if v != 0 {
					l.Add(i, j, v)
				}
			}
		}
	}
	// States all independent: the stacked J is the identity at their
	// offsets.
	direct := true
	for _, st := range sts {
		_, ok := ms.off[st]
		direct = direct && ok
	}
	if direct {
		ms.glob = resize(ms.glob, nl)
		for i, st := range sts {
			off := ms.off[st]
			for q := offs[i]; q < offs[i+1]; q++ {
				ms.glob[q] = int32(off + q - offs[i])
			}
		}
		ms.addShifted(l, func(i int32) int32 { return ms.glob[i] })
		return nil
	}
	// Stacked J of the states.
	J := &ms.stack
	J.ptr, J.col, J.val, J.cols = append(J.ptr[:0], 0), J.col[:0], J.val[:0], ms.n
	for _, s := range sts {
		Js, err := ms.jacobian(s)
		if err != nil {
			return err
		}
		base := int32(len(J.col))
		for r := 0; r < Js.nrows(); r++ {
			J.ptr = append(J.ptr, base+Js.ptr[r+1])
		}
		J.col = append(J.col, Js.col...)
		J.val = append(J.val, Js.val...)
	}
	ms.addTriple(J, l.toRowsInto(&ms.lrows, nl, nl))
	return nil
}
