package sparse

import (
	"fmt"
	"sync"
)

// Symbolic is the analysis of a symmetric sparsity pattern for the
// Cholesky factorisation P·A·Pᵀ = L·Lᵀ: the fill-reducing ordering (made a
// postorder of the elimination tree), the supernodes (runs of consecutive
// columns of L with the same structure below the diagonal, relaxed so that
// small ones merge at the cost of a few explicit zeros) and their row
// structures. It depends on the pattern only: K − σM for several σ, or K
// at several configurations, reuse one analysis.
//
// The numeric factorisation (Factor) is supernodal, right-looking and in
// place (the fan-out form of Ng & Peyton, "Block sparse Cholesky
// algorithms on advanced uniprocessor computers", SIAM J. Sci. Comput.
// 1993, with the relative indices computed once here instead of per
// update): L holds the lower triangle of P·A·Pᵀ in one dense column-major
// panel per supernode; in postorder each supernode factors its panel
// (dense_kernels.go: AVX2 kernels for the block updates, the rows below
// each 4×4 diagonal block and the Schur complement), forms its update
// matrix L₂₁L₂₁ᵀ in one scratch block and subtracts it from its
// ancestors' panels through maps of the analysis. It replaced a
// multifrontal factorisation (Liu, SIAM Review 1992) whose fronts had to
// be cleared, assembled, copied out and stacked: on the small fronts of
// 3-D meshes those copies cost as much as the arithmetic (README, "Linear
// solvers", fifth round).
type Symbolic struct {
	n    int
	perm []int // perm[k] = original index of pivot k
	pinv []int // inverse of perm
	// Pattern of A the analysis is for (to check Factor's argument).
	rowPtr, col []int
	// Lower triangle of P·A·Pᵀ by columns: for column j, entries
	// lo[j]..lo[j+1] with rows lrow[] (≥ j, the diagonal first) taken
	// from A.Val[lsrc[]].
	lo   []int
	lrow []int32
	lsrc []int
	// Supernodes: columns super[s] .. super[s+1]-1; rows of L in the
	// supernode: srow[sptr[s]:sptr[s+1]] (the supernode's own columns
	// first, then the rows below, increasing). L values of supernode s
	// (its panel) start at lptr[s], nr×ns column-major: L(srow[sptr[s]+i],
	// super[s]+t) at lptr[s] + t·nr + i, the entries above the diagonal
	// block's diagonal (i < t < ns) unused.
	super []int
	sptr  []int
	srow  []int32
	lptr  []int64
	// Maps of the numeric factorisation, computed once: the position in
	// L of every entry of lrow (apos); for every row below a supernode's
	// columns (aligned with srow; unused for its own columns), the
	// position in L of the column of the ancestor supernode that row's
	// update goes to (tcol), and where in tmap the positions in that
	// ancestor's row list of the rows from it down start (tmapAt; the
	// map runs to the end of the supernode's rows).
	apos   []int
	tcol   []int
	tmapAt []int32
	tmap   []int32
	// triples: every supernode has a multiple of 3 columns and rows, and
	// the rows below its columns map to its ancestors in runs of three
	// consecutive positions starting at rows 0, 3, 6, … (the unknowns of a
	// mesh node stay together and in order): the updates are then
	// subtracted three entries per index.
	triples bool
	sparen  []int // parent supernode, -1 for roots
	flops   float64
	maxNr   int
	maxNu   int // most rows below a supernode's columns
}

// N returns the matrix dimension.
func (s *Symbolic) N() int { return s.n }

// NnzL returns the number of entries stored in L (its lower triangle by
// supernodes, including the explicit zeros of relaxed supernodes).
func (s *Symbolic) NnzL() int64 {
	var t int64
	for k := 0; k+1 < len(s.super); k++ {
		ns := int64(s.super[k+1] - s.super[k])
		nr := int64(s.sptr[k+1] - s.sptr[k])
		t += ns*nr - ns*(ns-1)/2
	}
	return t
}

// Flops returns the floating-point operations (multiplies and adds) of one
// numeric factorisation.
func (s *Symbolic) Flops() float64 { return s.flops }

// Supernodes returns the number of supernodes.
func (s *Symbolic) Supernodes() int { return len(s.super) - 1 }

// Perm returns the ordering: Perm()[k] is the original index of the k-th
// pivot (not a copy).
func (s *Symbolic) Perm() []int { return s.perm }

// Analyze computes the symbolic factorisation of the symmetric matrix A
// (both triangles stored, the pattern symmetric; only the pattern is read)
// with the ordering perm (perm[k] = original index of the k-th pivot), or
// MinimumDegree(A) when perm is nil. The ordering is refined to a
// postorder of the elimination tree (same fill, contiguous supernodes).
func Analyze(a *CSR, perm []int) (*Symbolic, error) {
	if a.Rows != a.Cols {
		return nil, fmt.Errorf("sparse: Cholesky of a %d×%d matrix: want a square one", a.Rows, a.Cols)
	}
	if err := a.Check(); err != nil {
		return nil, err
	}
	n := a.Rows
	if err := checkPatternSymmetric(a); err != nil {
		return nil, err
	}
	if perm == nil {
		perm = MinimumDegree(a)
	}
	if len(perm) != n {
		return nil, fmt.Errorf("sparse: ordering of length %d for a %d×%d matrix", len(perm), n, n)
	}
	pinv := make([]int, n)
	for i := range pinv {
		pinv[i] = -1
	}
	for k, i := range perm {
		if i < 0 || i >= n || pinv[i] >= 0 {
			return nil, fmt.Errorf("sparse: ordering is not a permutation (entry %d = %d)", k, i)
		}
		pinv[i] = k
	}
	// Elimination tree of P·A·Pᵀ, then a postorder of it.
	parent := etree(a, perm, pinv)
	post := postorder(parent)
	perm2 := make([]int, n)
	for k, p := range post {
		perm2[k] = perm[p]
	}
	perm = perm2
	for k, i := range perm {
		pinv[i] = k
	}
	parent = etree(a, perm, pinv)
	s := &Symbolic{n: n, perm: perm, pinv: pinv,
		rowPtr: append([]int(nil), a.RowPtr...), col: append([]int(nil), a.Col...)}
	s.lowerPattern(a)
	counts := columnCounts(a, perm, pinv, parent)
	s.supernodes(parent, counts)
	s.rowStructures()
	return s, nil
}

// checkPatternSymmetric fails unless (i, j) is stored whenever (j, i) is.
func checkPatternSymmetric(a *CSR) error {
	n := a.Rows
	// Transpose pattern by counting; rows of Aᵀ come out sorted.
	cnt := make([]int, n+1)
	for _, c := range a.Col {
		cnt[c+1]++
	}
	for i := 0; i < n; i++ {
		cnt[i+1] += cnt[i]
	}
	if cnt[n] != len(a.Col) {
		return fmt.Errorf("sparse: bad pattern")
	}
	tcol := make([]int, len(a.Col))
	next := append([]int(nil), cnt[:n]...)
	for i := 0; i < n; i++ {
		for k := a.RowPtr[i]; k < a.RowPtr[i+1]; k++ {
			c := a.Col[k]
			tcol[next[c]] = i
			next[c]++
		}
	}
	for i := 0; i < n; i++ {
		if a.RowPtr[i+1]-a.RowPtr[i] != cnt[i+1]-cnt[i] {
			return fmt.Errorf("sparse: Cholesky needs a symmetric pattern with both triangles stored: row %d has %d entries, column %d has %d", i, a.RowPtr[i+1]-a.RowPtr[i], i, cnt[i+1]-cnt[i])
		}
		for k := a.RowPtr[i]; k < a.RowPtr[i+1]; k++ {
			if a.Col[k] != tcol[cnt[i]+k-a.RowPtr[i]] {
				return fmt.Errorf("sparse: Cholesky needs a symmetric pattern with both triangles stored: (%d, %d) is stored, its mirror is not", i, a.Col[k])
			}
		}
	}
	return nil
}

// etree returns the elimination tree of P·A·Pᵀ (parent[j] = −1 for roots),
// by Liu's algorithm with path compression over the rows of the lower
// triangle.
func etree(a *CSR, perm, pinv []int) []int {
	n := a.Rows
	parent := make([]int, n)
	ancestor := make([]int, n)
	for i := 0; i < n; i++ {
		parent[i], ancestor[i] = -1, -1
		r := perm[i]
		for k := a.RowPtr[r]; k < a.RowPtr[r+1]; k++ {
			j := pinv[a.Col[k]]
			for j != -1 && j < i {
				next := ancestor[j]
				ancestor[j] = i
				if next == -1 {
					parent[j] = i
					break
				}
				j = next
			}
		}
	}
	return parent
}

// postorder returns a postorder of the forest parent (children in
// increasing order; post[k] is the k-th node).
func postorder(parent []int) []int {
	n := len(parent)
	head := make([]int, n)
	next := make([]int, n)
	for i := range head {
		head[i] = -1
	}
	// Children lists in increasing order: insert in decreasing order.
	for j := n - 1; j >= 0; j-- {
		if p := parent[j]; p >= 0 {
			next[j] = head[p]
			head[p] = j
		}
	}
	post := make([]int, 0, n)
	stack := make([]int, 0, 64)
	for root := 0; root < n; root++ {
		if parent[root] != -1 {
			continue
		}
		stack = append(stack, root)
		for len(stack) > 0 {
			p := stack[len(stack)-1]
			if c := head[p]; c >= 0 {
				head[p] = next[c]
				stack = append(stack, c)
				continue
			}
			stack = stack[:len(stack)-1]
			post = append(post, p)
		}
	}
	return post
}

// lowerPattern stores the lower triangle of P·A·Pᵀ by columns (diagonal
// first, then increasing rows) with the positions of the values in A.
func (s *Symbolic) lowerPattern(a *CSR) {
	n := s.n
	s.lo = make([]int, n+1)
	for i := 0; i < n; i++ {
		for k := a.RowPtr[i]; k < a.RowPtr[i+1]; k++ {
			r, c := s.pinv[i], s.pinv[a.Col[k]]
			if r >= c {
				s.lo[c+1]++
			}
		}
	}
	for j := 0; j < n; j++ {
		s.lo[j+1] += s.lo[j]
	}
	nz := s.lo[n]
	s.lrow = make([]int32, nz)
	s.lsrc = make([]int, nz)
	next := append([]int(nil), s.lo[:n]...)
	// Visiting the new rows in increasing order leaves each column's rows
	// sorted, the diagonal (row = column) first.
	for r := 0; r < n; r++ {
		i := s.perm[r]
		for k := a.RowPtr[i]; k < a.RowPtr[i+1]; k++ {
			c := s.pinv[a.Col[k]]
			if r >= c {
				s.lrow[next[c]] = int32(r)
				s.lsrc[next[c]] = k
				next[c]++
			}
		}
	}
	// Rows were visited in increasing r, so within column c the first is
	// the smallest r ≥ c: the diagonal when stored.
}

// columnCounts returns the number of nonzeros of each column of L
// (diagonal included) by walking each row's subtree of the elimination
// tree: L(i, j) ≠ 0 exactly for the j on the paths from the nonzeros of
// row i of the lower triangle up to i. O(nnz(L)).
func columnCounts(a *CSR, perm, pinv, parent []int) []int {
	n := a.Rows
	count := make([]int, n)
	mark := make([]int, n)
	for i := range mark {
		mark[i] = -1
	}
	for i := 0; i < n; i++ {
		mark[i] = i
		count[i]++
		r := perm[i]
		for k := a.RowPtr[r]; k < a.RowPtr[r+1]; k++ {
			j := pinv[a.Col[k]]
			for j < i && mark[j] != i {
				mark[j] = i
				count[j]++
				j = parent[j]
			}
		}
	}
	return count
}

// Relaxed supernode amalgamation (the thresholds of CHOLMOD's defaults):
// a child supernode merges into its parent when the merged supernode has
// at most relaxCols[t] columns and a fraction of explicit zeros below
// relaxZeros[t], for some t, or a fraction below relaxZerosAny whatever its
// size. Bigger dense blocks make the BLAS kernels efficient for a few
// percent more stored entries.
var (
	relaxCols     = [3]int{4, 16, 48}
	relaxZeros    = [3]float64{0.8, 0.1, 0.05}
	relaxZerosAny = 0.05
)

// supernodes finds the fundamental supernodes (j and j+1 together when
// j+1 is j's only child's parent... i.e. parent[j] = j+1, j is the only
// child of j+1, and L(:, j) has one more entry than L(:, j+1)), then
// merges children into parents as relaxed above.
func (s *Symbolic) supernodes(parent, count []int) {
	n := s.n
	nchild := make([]int, n)
	for _, p := range parent {
		if p >= 0 {
			nchild[p]++
		}
	}
	// Fundamental supernodes: first columns.
	var first []int
	for j := 0; j < n; j++ {
		if j == 0 || !(parent[j-1] == j && nchild[j] == 1 && count[j-1] == count[j]+1) {
			first = append(first, j)
		}
	}
	first = append(first, n)
	ns := len(first) - 1
	// Per supernode: columns, rows of its first column, explicit zeros.
	cols := make([]int, ns)
	rows := make([]int, ns)
	zeros := make([]int64, ns)
	superOf := make([]int, n)
	for k := 0; k < ns; k++ {
		cols[k] = first[k+1] - first[k]
		rows[k] = count[first[k]]
		for j := first[k]; j < first[k+1]; j++ {
			superOf[j] = k
		}
	}
	sparent := make([]int, ns)
	for k := 0; k < ns; k++ {
		sparent[k] = -1
		if p := parent[first[k+1]-1]; p >= 0 {
			sparent[k] = superOf[p]
		}
	}
	// Amalgamation, children before parents. A supernode k adjacent to
	// its parent (k+1, as the postorder puts the last child just before
	// its parent) may merge: the merged supernode keeps p's row
	// structure plus k's columns.
	alive := make([]bool, ns)
	for k := range alive {
		alive[k] = true
	}
	trapezoid := func(c, r int) int64 { return int64(c)*int64(r) - int64(c)*int64(c-1)/2 }
	for k := 0; k < ns; k++ {
		p := sparent[k]
		if p != k+1 {
			continue
		}
		c := cols[k] + cols[p]
		r := cols[k] + rows[p]
		total := trapezoid(c, r)
		actual := trapezoid(cols[k], rows[k]) - zeros[k] + trapezoid(cols[p], rows[p]) - zeros[p]
		z := total - actual
		frac := float64(z) / float64(total)
		merge := frac < relaxZerosAny
		for t := range relaxCols {
			merge = merge || (c <= relaxCols[t] && frac < relaxZeros[t])
		}
		if !merge {
			continue
		}
		// p absorbs k: p's first column becomes k's.
		alive[k] = false
		cols[p], rows[p], zeros[p] = c, r, z
		first[p] = first[k]
	}
	// Compact.
	newID := make([]int, ns)
	s.super = s.super[:0]
	var keptRows []int
	for k := 0; k < ns; k++ {
		if alive[k] {
			newID[k] = len(s.super)
			s.super = append(s.super, first[k])
			keptRows = append(keptRows, rows[k])
		}
	}
	s.super = append(s.super, n)
	m := len(s.super) - 1
	s.sparen = make([]int, m)
	for k := 0; k < ns; k++ {
		if !alive[k] {
			continue
		}
		p := sparent[k]
		for p >= 0 && !alive[p] { // a dead supernode was merged into its parent
			p = sparent[p]
		}
		if p >= 0 {
			s.sparen[newID[k]] = newID[p]
		} else {
			s.sparen[newID[k]] = -1
		}
	}
	s.sptr = make([]int, m+1)
	for k := 0; k < m; k++ {
		s.sptr[k+1] = s.sptr[k] + keptRows[k]
	}
}

// rowStructures computes the row list of every supernode: its own
// columns, the rows below them of its columns of A, and its children's
// rows below its first column (the structure of L, Liu 1992). Also the
// value offsets and the flop count.
func (s *Symbolic) rowStructures() {
	m := len(s.super) - 1
	n := s.n
	mark := make([]int, n)
	for i := range mark {
		mark[i] = -1
	}
	// Children lists.
	head := make([]int, m)
	next := make([]int, m)
	for k := range head {
		head[k] = -1
	}
	for k := m - 1; k >= 0; k-- {
		if p := s.sparen[k]; p >= 0 {
			next[k] = head[p]
			head[p] = k
		}
	}
	srow := make([]int32, 0, s.sptr[m])
	ptr := make([]int, m+1)
	var buf []int32
	for k := 0; k < m; k++ {
		f, l := s.super[k], s.super[k+1]
		buf = buf[:0]
		for j := f; j < l; j++ {
			mark[j] = k
			for q := s.lo[j]; q < s.lo[j+1]; q++ {
				if r := int(s.lrow[q]); r >= l && mark[r] != k {
					mark[r] = k
					buf = append(buf, int32(r))
				}
			}
		}
		for c := head[k]; c >= 0; c = next[c] {
			for _, r := range srow[ptr[c]:ptr[c+1]] {
				if int(r) >= l && mark[r] != k {
					mark[r] = k
					buf = append(buf, r)
				}
			}
		}
		sortInt32(buf)
		for j := f; j < l; j++ {
			srow = append(srow, int32(j))
		}
		srow = append(srow, buf...)
		ptr[k+1] = len(srow)
	}
	s.srow = srow
	s.sptr = ptr
	s.lptr = make([]int64, m+1)
	s.flops = 0
	for k := 0; k < m; k++ {
		ns := s.super[k+1] - s.super[k]
		nr := ptr[k+1] - ptr[k]
		s.lptr[k+1] = s.lptr[k] + int64(nr)*int64(ns)
		s.maxNr = max(s.maxNr, nr)
		s.maxNu = max(s.maxNu, nr-ns)
		// Per column j of the supernode with c = nr − j entries at and
		// below the diagonal: c² flops for its updates (c(c+1)/2 multiply-adds).
		for j := 0; j < ns; j++ {
			c := float64(nr - j)
			s.flops += c * c
		}
	}
	superOf := make([]int, n)
	for k := 0; k < m; k++ {
		for j := s.super[k]; j < s.super[k+1]; j++ {
			superOf[j] = k
		}
	}
	pos := mark // reused: the index of a row in a supernode's row list
	// Entries of A: their place in their supernode's panel.
	s.apos = make([]int, len(s.lrow))
	for k := 0; k < m; k++ {
		f, l := s.super[k], s.super[k+1]
		rows := srow[ptr[k]:ptr[k+1]]
		nr := len(rows)
		for q, r := range rows {
			pos[r] = q
		}
		for j := f; j < l; j++ {
			for q := s.lo[j]; q < s.lo[j+1]; q++ {
				s.apos[q] = int(s.lptr[k]) + (j-f)*nr + pos[s.lrow[q]]
			}
		}
	}
	// Updates: the rows of supernode k below its columns, grouped by the
	// ancestor owning them as columns; the group's rows and all rows after
	// them are rows of that ancestor (the structure of L), at the
	// positions tmap gives.
	s.tcol = make([]int, len(srow))
	s.tmapAt = make([]int32, len(srow))
	s.tmap = s.tmap[:0]
	s.triples = true
	for k := 0; k < m; k++ {
		ns := s.super[k+1] - s.super[k]
		below := srow[ptr[k]+ns : ptr[k+1]]
		s.triples = s.triples && ns%3 == 0 && len(below)%3 == 0
		cur, start := -1, 0
		for c, r := range below {
			j := superOf[r]
			if j != cur { // a new ancestor: map the rows from here on
				cur, start = j, len(s.tmap)
				for q, rr := range srow[ptr[j]:ptr[j+1]] {
					pos[rr] = q
				}
				for i, rr := range below[c:] {
					p := int32(pos[rr])
					if i > 0 && (c+i)%3 != 0 && p != s.tmap[len(s.tmap)-1]+1 {
						s.triples = false
					}
					s.tmap = append(s.tmap, p)
				}
				start -= c // so that column c's map starts at start + c
			}
			nrj := ptr[j+1] - ptr[j]
			s.tcol[ptr[k]+ns+c] = int(s.lptr[j]) + (int(r)-s.super[j])*nrj
			s.tmapAt[ptr[k]+ns+c] = int32(start + c)
		}
	}
}

func sortInt32(a []int32) {
	// Insertion sort for short lists, else the library sort.
	if len(a) < 32 {
		for i := 1; i < len(a); i++ {
			v := a[i]
			j := i - 1
			for j >= 0 && a[j] > v {
				a[j+1] = a[j]
				j--
			}
			a[j+1] = v
		}
		return
	}
	sortInt32Slow(a)
}

// Cholesky is the numeric factorisation P·A·Pᵀ = L·Lᵀ of a symmetric
// positive definite matrix, stored by supernodes (dense row-major blocks).
// Solve, MulLT and SolveLT are safe for concurrent use.
type Cholesky struct {
	sym  *Symbolic
	l    []float64
	dinv []float64 // 1 / L_kk per pivot k, for the triangular solves
	pool sync.Pool // *[]float64 scratch of length n

	// Scratch of the numeric factorisation (a supernode's update
	// matrix), kept for FactorInto.
	upd []float64

	// FactorIntoMapped's composed sources, for msrcSym and the index
	// slice starting at msrcAt.
	msrc    []int
	msrcSym *Symbolic
	msrcAt  *int32
}

// NotPositiveDefiniteError reports a pivot that is not positive: the
// matrix is singular or indefinite (e.g. K of an unconstrained body, or
// K − σM with σ above the lowest eigenvalue).
type NotPositiveDefiniteError struct {
	Column int     // original index of the column whose pivot failed
	Pivot  float64 // the pivot value d (d ≤ 0 or not finite)
}

func (e *NotPositiveDefiniteError) Error() string {
	return fmt.Sprintf("sparse: matrix is not positive definite: pivot %g at column %d", e.Pivot, e.Column)
}

// Factor computes the numeric Cholesky factorisation of A, which must
// have the pattern s was analysed for. It fails with
// *NotPositiveDefiniteError when A is not (numerically) positive definite.
func (s *Symbolic) Factor(a *CSR) (*Cholesky, error) {
	if err := s.checkPattern(a); err != nil {
		return nil, err
	}
	c := &Cholesky{}
	if err := s.factorInto(c, a.Val, s.lsrc); err != nil {
		return nil, err
	}
	return c, nil
}

// checkPattern reports whether a has the analysed pattern.
func (s *Symbolic) checkPattern(a *CSR) error {
	if a.Rows != s.n || len(a.RowPtr) != len(s.rowPtr) || len(a.Col) != len(s.col) {
		return fmt.Errorf("sparse: Factor: matrix pattern differs from the analysed one (%d×%d, %d entries; analysed %d×%d, %d entries)", a.Rows, a.Cols, len(a.Col), s.n, s.n, len(s.col))
	}
	for i, p := range s.rowPtr {
		if a.RowPtr[i] != p {
			return fmt.Errorf("sparse: Factor: matrix pattern differs from the analysed one (row %d)", i)
		}
	}
	for k, c := range s.col {
		if a.Col[k] != c {
			return fmt.Errorf("sparse: Factor: matrix pattern differs from the analysed one (entry %d)", k)
		}
	}
	return nil
}

// growFloats returns a slice of length n, reusing b's storage when it is
// large enough.
func growFloats(b []float64, n int) []float64 {
	if cap(b) >= n {
		return b[:n]
	}
	return make([]float64, n)
}

// FactorInto is Factor into the storage of c (a Cholesky from an earlier
// Factor or FactorInto, or a new zero one), so that repeated numeric
// factorisations of one pattern allocate nothing once c has grown: the
// factor and the scratch of the factorisation are reused. On error c
// holds no valid factor. c must not be in use by another goroutine.
func (s *Symbolic) FactorInto(c *Cholesky, a *CSR) error {
	if err := s.checkPattern(a); err != nil {
		return err
	}
	return s.factorInto(c, a.Val, s.lsrc)
}

// FactorIntoMapped is FactorInto for a matrix held elsewhere: entry k of
// the analysed pattern (in the order of the CSR matrix given to Analyze)
// is val[at[k]]; at must have one index per entry, and val the analysed
// pattern's values (not checked: at is typically computed once with the
// pattern, e.g. BSR3.CSRIndex for the CSR of BSR3.ToCSR). It spares a
// copy of the values into a CSR matrix before every factorisation. The
// composed source positions are kept in c while s and at are unchanged.
func (s *Symbolic) FactorIntoMapped(c *Cholesky, val []float64, at []int32) error {
	if len(at) != len(s.col) {
		return fmt.Errorf("sparse: FactorIntoMapped: %d indices for %d entries", len(at), len(s.col))
	}
	if c.msrcSym != s || len(at) == 0 || c.msrcAt != &at[0] {
		c.msrc = c.msrc[:0]
		for _, k := range s.lsrc {
			c.msrc = append(c.msrc, int(at[k]))
		}
		c.msrcSym = s
		if len(at) > 0 {
			c.msrcAt = &at[0]
		}
	}
	return s.factorInto(c, val, c.msrc)
}

// factorInto runs the supernodal factorisation into c's storage; the
// entries of the lower triangle come from val[src[]] (src parallel to
// s.lsrc).
//
// Right-looking, in place: L starts as the lower triangle of P·A·Pᵀ in
// the supernodes' panels (apos), and each supernode in turn (postorder)
// factors its panel, which by then holds all its descendants' updates
// (panelFactor), forms its update matrix L₂₁L₂₁ᵀ in one scratch block
// (syrkUpperT) and subtracts it from the panels of the ancestors its rows
// belong to, through the maps of the analysis (tcol, tmap). Unlike a
// multifrontal factorisation there are no frontal matrices to clear,
// assemble and copy out, and no stack of update matrices: the entries
// added are the same (each update entry once), straight into L.
func (s *Symbolic) factorInto(c *Cholesky, val []float64, src []int) error {
	m := len(s.super) - 1
	if c.sym != s {
		c.pool = sync.Pool{} // its scratch has the size of another system
	}
	c.sym = s
	// syrkPad entries past the last panel: syrkUpperT reads past its
	// panel's end (into the next one, or here).
	c.l = growFloats(c.l, int(s.lptr[m])+syrkPad)
	c.dinv = growFloats(c.dinv, s.n)
	l := c.l
	clear(l)
	for q, p := range s.apos {
		l[p] = val[src[q]]
	}
	ldc := s.maxNu + syrkPad
	c.upd = growFloats(c.upd, (s.maxNu+3)*ldc)
	C := c.upd
	for k := 0; k < m; k++ {
		f, e := s.super[k], s.super[k+1]
		ns := e - f
		nr := s.sptr[k+1] - s.sptr[k]
		off := int(s.lptr[k])
		if col, d := panelFactor(l[off:off+nr*ns], nr, ns, c.dinv[f:e]); col >= 0 {
			c.sym = nil
			return &NotPositiveDefiniteError{Column: s.perm[f+col], Pivot: d}
		}
		nu := nr - ns
		if nu == 0 {
			continue
		}
		syrkUpperT(C, ldc, l[off+ns:], nr, nu, ns)
		at := s.sptr[k] + ns
		tcol := s.tcol[at : at+nu]
		tmapAt := s.tmapAt[at : at+nu]
		if s.triples {
			subtractTriples(l, C, ldc, nu, tcol, tmapAt, s.tmap)
			continue
		}
		for j, base := range tcol {
			mp := s.tmap[tmapAt[j] : int(tmapAt[j])+nu-j]
			u := C[j*ldc+j : j*ldc+nu]
			u = u[:len(mp)]
			dst := l[base:]
			for i, r := range mp {
				dst[r] -= u[i]
			}
		}
	}
	return nil
}

// subtractTriples subtracts a supernode's update matrix C (nu×nu, its
// upper triangle, row-major with stride ldc) from its ancestors' panels
// in l when rows and columns come in node triples (Symbolic.triples): the
// three columns of a node go to three consecutive columns of one
// ancestor (tcol), each triple of rows to three consecutive rows, so a
// 3×3 block of C is subtracted per index read. The same subtractions as
// the entry-by-entry loop, in the same order per entry.
func subtractTriples(l, C []float64, ldc, nu int, tcol []int, tmapAt, tmap []int32) {
	for j := 0; j+3 <= nu; j += 3 {
		b0, b1, b2 := tcol[j], tcol[j+1], tcol[j+2]
		mp := tmap[tmapAt[j] : int(tmapAt[j])+nu-j]
		u0 := C[j*ldc+j : j*ldc+nu]
		u1 := C[(j+1)*ldc+j : (j+1)*ldc+nu]
		u2 := C[(j+2)*ldc+j : (j+2)*ldc+nu]
		u0 = u0[:len(mp)]
		u1 = u1[:len(mp)]
		u2 = u2[:len(mp)]
		// The node's own 3×3 block: its lower triangle (u1[0], u2[0],
		// u2[1] are below C's diagonal, not computed).
		r := int(mp[0])
		d0 := l[b0+r : b0+r+3 : b0+r+3]
		d1 := l[b1+r : b1+r+3 : b1+r+3]
		d2 := l[b2+r : b2+r+3 : b2+r+3]
		d0[0] -= u0[0]
		d0[1] -= u0[1]
		d0[2] -= u0[2]
		d1[1] -= u1[1]
		d1[2] -= u1[2]
		d2[2] -= u2[2]
		if n := len(mp)/3 - 1; useAVX2 && n > 0 {
			// The kernel writes l[bc+mp[i] .. +2] for the columns c:
			// inside the ancestors' panels (mp indexes their rows), as
			// the bounds checks of the loop below would verify.
			subTriplesAVX(n, &l[0], b0, b1, b2, &mp[3], &u0[3], &u1[3], &u2[3])
			continue
		}
		for i := 3; i+3 <= len(mp); i += 3 {
			r := int(mp[i])
			d0 := l[b0+r : b0+r+3 : b0+r+3]
			d1 := l[b1+r : b1+r+3 : b1+r+3]
			d2 := l[b2+r : b2+r+3 : b2+r+3]
			v0 := u0[i : i+3 : i+3]
			v1 := u1[i : i+3 : i+3]
			v2 := u2[i : i+3 : i+3]
			d0[0] -= v0[0]
			d0[1] -= v0[1]
			d0[2] -= v0[2]
			d1[0] -= v1[0]
			d1[1] -= v1[1]
			d1[2] -= v1[2]
			d2[0] -= v2[0]
			d2[1] -= v2[1]
			d2[2] -= v2[2]
		}
	}
}

// Factorize is Analyze(a, nil) followed by Factor(a).
func Factorize(a *CSR) (*Cholesky, error) {
	s, err := Analyze(a, nil)
	if err != nil {
		return nil, err
	}
	return s.Factor(a)
}

// Symbolic returns the analysis the factor was computed with.
func (c *Cholesky) Symbolic() *Symbolic { return c.sym }

// scratch returns a buffer of n + maxNr numbers: the permuted vector of
// a solve, then the work vector of one supernode.
func (c *Cholesky) scratch() *[]float64 {
	if p, ok := c.pool.Get().(*[]float64); ok {
		return p
	}
	v := make([]float64, c.sym.n+c.sym.maxNr)
	return &v
}

// Solve sets x = A⁻¹·b (x and b may be the same slice).
func (c *Cholesky) Solve(x, b []float64) {
	s := c.sym
	p := c.scratch()
	y, w := (*p)[:s.n], (*p)[s.n:]
	for k, i := range s.perm {
		y[k] = b[i]
	}
	c.forward(y, w)
	c.backward(y, w)
	for k, i := range s.perm {
		x[i] = y[k]
	}
	c.pool.Put(p)
}

// forward solves L·y = y in place (permuted order); w is scratch of at
// least maxNr numbers.
func (c *Cholesky) forward(y, w []float64) {
	for k := 0; k < len(c.sym.super)-1; k++ {
		c.forwardSuper(k, y, w)
	}
}

// backward solves Lᵀ·y = y in place (permuted order); w is scratch of at
// least maxNr numbers.
func (c *Cholesky) backward(y, w []float64) {
	for k := len(c.sym.super) - 2; k >= 0; k-- {
		c.backwardSuper(k, y, w)
	}
}

// forwardSuper is supernode k's part of the forward substitution: its
// unknowns solved with the panel's diagonal block, then their
// contributions to the rows below (L₂₁·y, gemvNSub) gathered in w and
// subtracted from y.
func (c *Cholesky) forwardSuper(k int, y, w []float64) {
	s := c.sym
	f, e := s.super[k], s.super[k+1]
	ns := e - f
	rows := s.srow[s.sptr[k]:s.sptr[k+1]]
	nr := len(rows)
	P := c.l[s.lptr[k]:s.lptr[k+1]]
	dinv := c.dinv[f:e]
	ys := y[f:e]
	for t := 0; t < ns; t++ {
		v := ys[t] * dinv[t]
		ys[t] = v
		col := P[t*nr+t+1 : t*nr+ns]
		yt := ys[t+1:]
		yt = yt[:len(col)]
		for i, x := range col {
			yt[i] -= v * x
		}
	}
	nu := nr - ns
	if nu == 0 {
		return
	}
	w = w[:nu]
	clear(w)
	gemvNSub(nu, ns, P[ns:], nr, ys, w)
	for q, r := range rows[ns:] {
		y[r] += w[q]
	}
}

// backwardSuper is supernode k's part of the backward substitution: the
// rows below gathered into w, their contributions subtracted from the
// supernode's unknowns (L₂₁ᵀ·w, gemvTSub), then the diagonal block
// solved last column first.
func (c *Cholesky) backwardSuper(k int, y, w []float64) {
	s := c.sym
	f, e := s.super[k], s.super[k+1]
	ns := e - f
	rows := s.srow[s.sptr[k]:s.sptr[k+1]]
	nr := len(rows)
	P := c.l[s.lptr[k]:s.lptr[k+1]]
	dinv := c.dinv[f:e]
	ys := y[f:e]
	if nu := nr - ns; nu > 0 {
		w = w[:nu]
		for q, r := range rows[ns:] {
			w[q] = y[r]
		}
		gemvTSub(nu, ns, P[ns:], nr, w, ys)
	}
	for t := ns - 1; t >= 0; t-- {
		ys[t] = (ys[t] - dot4(P[t*nr+t+1:t*nr+ns], ys[t+1:])) * dinv[t]
	}
}

// dot4 returns a·b (len(b) ≥ len(a)) with four partial sums, so that the
// additions do not wait for one another.
func dot4(a, b []float64) float64 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(a); i += 4 {
		x, z := a[i:i+4:i+4], b[i:i+4:i+4]
		s0 += x[0] * z[0]
		s1 += x[1] * z[1]
		s2 += x[2] * z[2]
		s3 += x[3] * z[3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// SolveMany sets X[c] = A⁻¹·B[c] for every right-hand side c (X[c] and
// B[c] may be the same slice). Each supernode's panel is read from
// memory once for all the right-hand sides (a single solve is bound by
// memory traffic on large systems): the substitutions run supernode by
// supernode, each for every right-hand side while its panel is in cache.
func (c *Cholesky) SolveMany(X, B [][]float64) {
	nb := len(B)
	if nb == 0 {
		return
	}
	if nb == 1 {
		c.Solve(X[0], B[0])
		return
	}
	s := c.sym
	n := s.n
	Y := make([]float64, n*nb+s.maxNr) // right-hand side j at Y[j·n:], permuted rows; then the work vector
	w := Y[n*nb:]
	for j := 0; j < nb; j++ {
		y, b := Y[j*n:(j+1)*n], B[j]
		for k, i := range s.perm {
			y[k] = b[i]
		}
	}
	m := len(s.super) - 1
	for k := 0; k < m; k++ {
		for j := 0; j < nb; j++ {
			c.forwardSuper(k, Y[j*n:(j+1)*n], w)
		}
	}
	for k := m - 1; k >= 0; k-- {
		for j := 0; j < nb; j++ {
			c.backwardSuper(k, Y[j*n:(j+1)*n], w)
		}
	}
	for j := 0; j < nb; j++ {
		y, x := Y[j*n:(j+1)*n], X[j]
		for k, i := range s.perm {
			x[i] = y[k]
		}
	}
}

// Apply implements Preconditioner with the exact inverse: z = A⁻¹·r.
func (c *Cholesky) Apply(z, r []float64) { c.Solve(z, r) }

// MulLT sets z = Lᵀ·P·x (z[k] for pivot k), so that xᵀAx = |z|² (the
// change of variables of mass-scaled PCA, Barbič & James 2005 appendix A,
// with A = M).
func (c *Cholesky) MulLT(z, x []float64) {
	s := c.sym
	p := c.scratch()
	y, w := (*p)[:s.n], (*p)[s.n:]
	for k, i := range s.perm {
		y[k] = x[i]
	}
	m := len(s.super) - 1
	for k := 0; k < m; k++ {
		f, l := s.super[k], s.super[k+1]
		rows := s.srow[s.sptr[k]:s.sptr[k+1]]
		nr := len(rows)
		P := c.l[s.lptr[k]:s.lptr[k+1]]
		for q, r := range rows {
			w[q] = y[r]
		}
		for t := range l - f {
			z[f+t] = dot4(P[t*nr+t:t*nr+nr], w[t:nr])
		}
	}
	c.pool.Put(p)
}

// SolveLT sets x = Pᵀ·L⁻ᵀ·z, the inverse of MulLT.
func (c *Cholesky) SolveLT(x, z []float64) {
	s := c.sym
	p := c.scratch()
	y := (*p)[:s.n]
	copy(y, z)
	c.backward(y, (*p)[s.n:])
	for k, i := range s.perm {
		x[i] = y[k]
	}
	c.pool.Put(p)
}
