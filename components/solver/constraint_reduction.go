package solver

import (
	"fmt"
	"slices"

	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/sparse"
)

// reduction handles, for the assembled solvers, the interaction
// constraints that make some components follow others
// (graph.ConstraintBasis: AttachConstraint). Matrix free, conjugate
// gradients solve P A P x = P b with x in range(P), P the orthogonal
// projector of the constraints; with T the basis of range(P) (x = T y:
// the dependent components d are x_d = Σ_j T_dj y_j, the others are
// unknowns of their own) this is the reduced system
//
//	Tᵀ A T y = Tᵀ b,   x = T y,
//
// since P r = 0 exactly when Tᵀ r = 0. The reduced system keeps the
// layout of the full one: the dependent rows and columns are zero in
// Tᵀ A T and become identity rows, as the fixed DOFs do, with a zero
// right-hand side. Tᵀ A T stays sparse (a group's members' couplings
// move onto its first member; an attached point's onto its frame, as a
// rigid mapping would put them), so SparseCholeskySolver factorises it
// and PCGLinearSolver's preconditioners are built from it.
//
// T is read from the constraints at every assembly (a frame's lever arms
// follow the positions); the map from A's values to the reduced matrix's
// is computed once per pattern of A and of T.
type reduction struct {
	cons []graph.ConstraintBasis
	offs [][2][]int // per constraint: its states' global offsets and sizes

	n    int
	dep  []bool  // per scalar unknown: dependent
	row  []int32 // dependent components, increasing
	ptr  []int32 // T's entries of row[i]: ptr[i]..ptr[i+1]
	col  []int32
	val  []float64
	at   []int32 // per scalar unknown: index in row, or −1
	tmpR []int32
	tmpC []int32
	tmpV []float64
	err  error
	// Scratch of basis: entries per row, owning constraint per unknown,
	// next free entry per dependent row.
	cnt, owner, next []int32

	// The reduced matrix and the map from A's values to it.
	out              *sparse.BSR3
	outFor           *sparse.BSR3 // the A it was built from
	outRow, outPtr   []int32      // T's structure it was built with
	outCol           []int32
	direct           []int32 // per value of A: its position in out (−1: through terms)
	terms            []reduceTerm
	tgtI, tgtJ       []target
	pairs            []int32
	built            int     // reductions of the pattern (for tests)
	constraintOfRows []int32 // per collected entry: its constraint
}

// reduceTerm adds A.Val[src]·T_i·T_j to out.Val[dst] (ti, tj index T's
// values; −1 stands for 1).
type reduceTerm struct{ dst, src, ti, tj int32 }

// target is where a row (or column) of A goes: unknown g with T's value
// t (−1: 1).
type target struct{ g, t int32 }

// active reports whether some component is dependent.
func (r *reduction) active() bool { return len(r.row) > 0 }

// setConstraints records the interaction constraints of the subtree that
// give a basis, with their states' places in the system; ok is false
// when some interaction constraint gives none (the solvers then need the
// general projector).
func (r *reduction) setConstraints(root *graph.Node, states []graph.State, offsets, sizes []int) (ok bool) {
	r.cons, r.offs = r.cons[:0], r.offs[:0]
	idx := map[graph.State]int{}
	for i, s := range states {
		idx[s] = i
	}
	ok = true
	root.Walk(func(nd *graph.Node) error {
		for _, o := range nd.Objects {
			ic, isIC := o.(graph.InteractionConstraint)
			if !isIC {
				continue
			}
			cb, hasBasis := ic.(graph.ConstraintBasis)
			if !hasBasis {
				ok = false
				continue
			}
			var off, sz []int
			for _, s := range cb.States() {
				i, in := idx[s]
				if !in {
					ok = false // Ops refuses this already
					return nil
				}
				off, sz = append(off, offsets[i]), append(sz, sizes[i])
			}
			r.cons = append(r.cons, cb)
			r.offs = append(r.offs, [2][]int{off, sz})
		}
		return nil
	})
	return ok
}

// basisAcc translates a constraint's entries to global unknowns.
type basisAcc struct {
	r   *reduction
	c   int32 // constraint index
	off []int
	sz  []int
}

func (a *basisAcc) global(i int) int {
	for k, s := range a.sz {
		if i < s {
			return a.off[k] + i
		}
		i -= s
	}
	return -1
}

func (a *basisAcc) Add(row, col int, v float64) {
	gr, gc := a.global(row), a.global(col)
	if row < 0 || col < 0 || gr < 0 || gc < 0 {
		if a.r.err == nil {
			a.r.err = a.r.cons[a.c].Base().Errorf("basis entry (%d, %d) outside its states", row, col)
		}
		return
	}
	a.r.tmpR = append(a.r.tmpR, int32(gr))
	a.r.tmpC = append(a.r.tmpC, int32(gc))
	a.r.tmpV = append(a.r.tmpV, v)
	a.r.constraintOfRows = append(a.r.constraintOfRows, a.c)
}

// basis reads T from the constraints (n unknowns). It fails when a
// component depends on two constraints or follows a dependent one
// (chained attachments: not supported by the assembled solvers).
func (r *reduction) basis(n int) error {
	r.n = n
	if len(r.cons) == 0 {
		r.row = r.row[:0]
		return nil
	}
	r.tmpR, r.tmpC, r.tmpV, r.constraintOfRows = r.tmpR[:0], r.tmpC[:0], r.tmpV[:0], r.constraintOfRows[:0]
	r.err = nil
	for c, cb := range r.cons {
		cb.BasisEntries(&basisAcc{r: r, c: int32(c), off: r.offs[c][0], sz: r.offs[c][1]})
	}
	if r.err != nil {
		return r.err
	}
	r.dep = resize(r.dep, n)
	clear(r.dep)
	r.at = resize(r.at, n)
	for i := range r.at {
		r.at[i] = -1
	}
	// Count per row (stable order of the entries within a row).
	r.cnt, r.owner = resize(r.cnt, n+1), resize(r.owner, n)
	cnt, owner := r.cnt, r.owner
	clear(cnt)
	for i := range owner {
		owner[i] = -1
	}
	for q, g := range r.tmpR {
		c := r.constraintOfRows[q]
		if owner[g] >= 0 && owner[g] != c {
			return fmt.Errorf("%q and %q both make unknown %d follow others: the assembled solvers take a component attached by one constraint only (use CGLinearSolver)", r.cons[owner[g]].Base().Path(), r.cons[c].Base().Path(), g)
		}
		owner[g] = c
		r.dep[g] = true
		cnt[g+1]++
	}
	for q, g := range r.tmpC {
		if r.dep[g] {
			return fmt.Errorf("%q makes unknown %d follow unknown %d, which itself follows others (chained attachments): the assembled solvers do not take them (use CGLinearSolver)", r.cons[r.constraintOfRows[q]].Base().Path(), r.tmpR[q], g)
		}
	}
	r.row = r.row[:0]
	for g := 0; g < n; g++ {
		if r.dep[g] {
			r.at[g] = int32(len(r.row))
			r.row = append(r.row, int32(g))
		}
	}
	r.ptr = resize(r.ptr, len(r.row)+1)
	r.ptr[0] = 0
	for i, g := range r.row {
		r.ptr[i+1] = r.ptr[i] + cnt[g+1]
	}
	r.col, r.val = resize(r.col, len(r.tmpR)), resize(r.val, len(r.tmpR))
	r.next = append(r.next[:0], r.ptr[:len(r.row)]...)
	next := r.next
	for q, g := range r.tmpR {
		i := r.at[g]
		p := next[i]
		next[i]++
		r.col[p], r.val[p] = r.tmpC[q], r.tmpV[q]
	}
	return nil
}

// reduceVec sets v ← Tᵀ v in place (the dependent entries added to the
// ones they follow, then zeroed).
func (r *reduction) reduceVec(v []float64) {
	for i, g := range r.row {
		d := v[g]
		for p := r.ptr[i]; p < r.ptr[i+1]; p++ {
			v[r.col[p]] += r.val[p] * d
		}
		v[g] = 0
	}
}

// expand sets v ← T v in place (the dependent entries from the ones they
// follow; those are not dependent, so the order does not matter).
func (r *reduction) expand(v []float64) {
	for i, g := range r.row {
		s := 0.0
		for p := r.ptr[i]; p < r.ptr[i+1]; p++ {
			s += r.val[p] * v[r.col[p]]
		}
		v[g] = s
	}
}

// targets lists where unknown g of A goes.
func (r *reduction) targets(dst []target, g int) []target {
	dst = dst[:0]
	i := r.at[g]
	if i < 0 {
		return append(dst, target{int32(g), -1})
	}
	for p := r.ptr[i]; p < r.ptr[i+1]; p++ {
		dst = append(dst, target{r.col[p], p})
	}
	return dst
}

// matrix returns Tᵀ A T (dependent rows and columns zero; the caller
// makes them identity rows with the fixed ones). The result is the
// reduction's storage, valid until the next call.
func (r *reduction) matrix(A *sparse.BSR3) (*sparse.BSR3, error) {
	if r.out == nil || r.outFor != A || !slices.Equal(r.outRow, r.row) || !slices.Equal(r.outPtr, r.ptr) || !slices.Equal(r.outCol, r.col) || len(r.direct) != len(A.Val) {
		if err := r.pattern(A); err != nil {
			return nil, err
		}
	}
	out := r.out
	clear(out.Val)
	for src, d := range r.direct {
		if d >= 0 {
			out.Val[d] += A.Val[src]
		}
	}
	for _, t := range r.terms {
		v := A.Val[t.src]
		if t.ti >= 0 {
			v *= r.val[t.ti]
		}
		if t.tj >= 0 {
			v *= r.val[t.tj]
		}
		out.Val[t.dst] += v
	}
	return out, nil
}

// pattern builds the reduced matrix's pattern and the value map.
func (r *reduction) pattern(A *sparse.BSR3) error {
	r.pairs = r.pairs[:0]
	for i := 0; i < A.N; i++ {
		for p := A.RowPtr[i]; p < A.RowPtr[i+1]; p++ {
			j := A.Col[p]
			r.pairs = append(r.pairs, int32(i), j)
			for rr := 0; rr < 3; rr++ {
				gi := 3*i + rr
				if r.at[gi] < 0 {
					// A row that is no dependent keeps its place; only
					// dependent columns move.
					for cc := 0; cc < 3; cc++ {
						gj := 3*int(j) + cc
						if r.at[gj] >= 0 {
							r.tgtJ = r.targets(r.tgtJ, gj)
							for _, tj := range r.tgtJ {
								r.pairs = append(r.pairs, int32(i), tj.g/3)
							}
						}
					}
					continue
				}
				r.tgtI = r.targets(r.tgtI, gi)
				for cc := 0; cc < 3; cc++ {
					r.tgtJ = r.targets(r.tgtJ, 3*int(j)+cc)
					for _, ti := range r.tgtI {
						for _, tj := range r.tgtJ {
							r.pairs = append(r.pairs, ti.g/3, tj.g/3)
						}
					}
				}
			}
		}
	}
	out, err := sparse.NewBSR3(A.N, r.pairs)
	if err != nil {
		return fmt.Errorf("reduced system: %w", err)
	}
	pos := func(gi, gj int32) int32 {
		k := out.Find(int(gi/3), int(gj/3))
		return int32(9*k) + 3*(gi%3) + gj%3
	}
	r.direct = resize(r.direct, len(A.Val))
	r.terms = r.terms[:0]
	for i := 0; i < A.N; i++ {
		for p := A.RowPtr[i]; p < A.RowPtr[i+1]; p++ {
			j := int(A.Col[p])
			for rr := 0; rr < 3; rr++ {
				gi := 3*i + rr
				for cc := 0; cc < 3; cc++ {
					gj := 3*j + cc
					src := int32(9*int(p) + 3*rr + cc)
					if r.at[gi] < 0 && r.at[gj] < 0 {
						r.direct[src] = pos(int32(gi), int32(gj))
						continue
					}
					r.direct[src] = -1
					r.tgtI = r.targets(r.tgtI, gi)
					r.tgtJ = r.targets(r.tgtJ, gj)
					for _, ti := range r.tgtI {
						for _, tj := range r.tgtJ {
							r.terms = append(r.terms, reduceTerm{dst: pos(ti.g, tj.g), src: src, ti: ti.t, tj: tj.t})
						}
					}
				}
			}
		}
	}
	r.out, r.outFor = out, A
	r.outRow = append(r.outRow[:0], r.row...)
	r.outPtr = append(r.outPtr[:0], r.ptr...)
	r.outCol = append(r.outCol[:0], r.col...)
	r.built++
	return nil
}
