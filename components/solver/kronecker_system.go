package solver

import (
	"math"
	"slices"
	"sync"

	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/sparse"
)

// The structured path of mappedSystem: Jᵀ L J for a mapped node whose
// mapping has a graph.RowKroneckerJacobian (GMLS nodes, linear blend
// skinning of affine and quadratic frames) from an independent state, and
// whose local matrix L is block diagonal per child DOF (a per-sample
// material law, a lumped or per-point mass): the contribution of child DOF
// p to the parent DOF pair (k, l) is
//
//	(I₃ ⊗ B_kᵀ)ᵀ L_p (I₃ ⊗ B_lᵀ),   [U]_{(r,m),·} = Σ_col B_k[m][col] L_p[(r,col),·],
//	                                V_{(r,m),(r',m')} = Σ_col' U_{(r,m),(r',col')} B_l[m'][col'],
//
// a (3q)×(3q) dense block (12×12 for Affine3 nodes) added straight into
// the 3×3 blocks of the system matrix at positions found once per pattern
// (kronPattern.pairs: every coupled node pair's blocks). The node rows k
// are split over the worker pool; a row sums its samples in a fixed order
// (entries by increasing child DOF) and is the only writer of its blocks
// (with symmetric L_p, of its blocks (k, l ≥ k) and their mirrors (l, k)),
// so the matrix is bitwise the same for any number of workers. A local
// matrix that couples child DOFs takes the generic scalar path whole
// (blockDiagonal).

// kronPattern is the structure of one mapping's Jᵀ L J, computed once per
// (Jacobian, parent offset).
type kronPattern struct {
	kj      *graph.RowKroneckerJacobian
	c, q    int // child and parent DOF columns
	nn      int // parent DOFs
	nbk     int // 3×3 blocks per parent DOF side (q)
	cinv    []int32
	entCh   []int32 // child DOF of each entry
	rowPtr  []int32 // entries of parent DOF k: rowEnt[rowPtr[k]:rowPtr[k+1]] (increasing)
	rowEnt  []int32
	sbase   []int32 // slot of entries (e, e') of child p: slot[sbase[p] + i·n + j]
	slot    []int32
	nslot   int
	slotPtr []int32 // slots of row k: [slotPtr[k], slotPtr[k+1]) (partners increasing)
	slotCol []int32 // partner l of each slot
	mirror  []int32 // slot of (l, k) for the slot of (k, l)
	pairs   []int32 // global block pairs, nbk² per slot (row block, column block)
	// Per child DOF, its entries sorted by parent DOF: sorted[o + s] is
	// the local index of the s-th, rank[e] the sorted position of entry
	// e, and BT (c × n·q at q·c·o) the coefficients B_l of the sorted
	// entries side by side, transposed: BT[col][s·q + m] = B_l[m][col].
	sorted, rank []int32
	BT           []float64
	dups         bool // some child DOF lists a parent DOF twice (no symmetric shortcut)
	// Entry t of block b of a pair is V's (bI[9b + t], bJ[9b + t]) (V's
	// rows and columns in (r, m) order, the blocks in the parent's
	// storage order).
	bI, bJ []int32
}

// kronTerm is one node's structured contribution in an assembly.
type kronTerm struct {
	pat *kronPattern
	K   []float64 // per child DOF: (3c)×(3c), rows and columns in (r, col) order
	sym bool      // every block of K symmetric (then made exactly so)
}

// symTol is the asymmetry, relative to a block's largest entry, below
// which the block is taken as symmetric and replaced by its symmetric
// part: the rounding of probed columns (measured ≤ 3e-16 for the
// per-sample law blocks), far from a genuinely non-symmetric tangent.
const symTol = 1e-13

// symmetrizeBlocks reports whether each of the nc S×S blocks of K is
// symmetric to symTol and, if all are, replaces them by ½(K + Kᵀ).
func symmetrizeBlocks(K []float64, nc, S int) bool {
	for ch := 0; ch < nc; ch++ {
		B := K[ch*S*S : (ch+1)*S*S]
		mx, as := 0.0, 0.0
		for i := 0; i < S; i++ {
			for j := 0; j < i; j++ {
				mx = math.Max(mx, math.Max(math.Abs(B[i*S+j]), math.Abs(B[j*S+i])))
				as = math.Max(as, math.Abs(B[i*S+j]-B[j*S+i]))
			}
			mx = math.Max(mx, math.Abs(B[i*S+i]))
		}
		if as > symTol*mx {
			return false
		}
	}
	for ch := 0; ch < nc; ch++ {
		B := K[ch*S*S : (ch+1)*S*S]
		for i := 0; i < S; i++ {
			for j := 0; j < i; j++ {
				v := 0.5 * (B[i*S+j] + B[j*S+i])
				B[i*S+j], B[j*S+i] = v, v
			}
		}
	}
	return true
}

type kronKey struct {
	kj  *graph.RowKroneckerJacobian
	off int
}

// kronFor returns the pattern of node state st computed by mp when the
// structured path applies (nil otherwise).
func (ms *mappedSystem) kronFor(st graph.State, mp graph.Mapping) *kronPattern {
	km, ok := mp.(graph.RowKroneckerMapping)
	if !ok || mp.To() != st {
		return nil
	}
	kj := km.RowKroneckerJacobian()
	if kj == nil {
		return nil
	}
	from := mp.From()
	off, ok := ms.off[from]
	if !ok || off%3 != 0 {
		return nil
	}
	c, q := kj.ChildCols, kj.ParentCols
	if c <= 0 || q <= 0 || st.Template().DerivSize() != 3*c || from.Template().DerivSize() != 3*q ||
		len(kj.ChildIndex) != 3*c || len(kj.ParentIndex) != 3*q || len(kj.Offsets) != st.Size()+1 ||
		len(kj.Coef) != len(kj.Parents)*q*c || kj.Offsets[len(kj.Offsets)-1] != len(kj.Parents) {
		return nil
	}
	key := kronKey{kj, off}
	if p, ok := ms.kronCache[key]; ok {
		ms.kronUsed[key] = true
		return p
	}
	p := newKronPattern(kj, off, from.Size())
	if p == nil {
		return nil
	}
	if ms.kronCache == nil {
		ms.kronCache = map[kronKey]*kronPattern{}
		ms.kronUsed = map[kronKey]bool{}
	}
	ms.kronCache[key] = p
	ms.kronUsed[key] = true
	return p
}

// newKronPattern computes the structure (nil when some index is out of
// range: the generic path then reports it).
func newKronPattern(kj *graph.RowKroneckerJacobian, off, nn int) *kronPattern {
	c, q := kj.ChildCols, kj.ParentCols
	S, Q := 3*c, 3*q
	p := &kronPattern{kj: kj, c: c, q: q, nn: nn, nbk: q}
	p.cinv = make([]int32, S)
	seen := make([]bool, S)
	for t, s := range kj.ChildIndex {
		if s < 0 || s >= S || seen[s] {
			return nil
		}
		seen[s] = true
		p.cinv[s] = int32(t)
	}
	seenP := make([]bool, Q)
	for _, s := range kj.ParentIndex {
		if s < 0 || s >= Q || seenP[s] {
			return nil
		}
		seenP[s] = true
	}
	nc := len(kj.Offsets) - 1
	ne := len(kj.Parents)
	p.entCh = make([]int32, ne)
	p.rowPtr = make([]int32, nn+1)
	for ch := 0; ch < nc; ch++ {
		if kj.Offsets[ch+1] < kj.Offsets[ch] {
			return nil
		}
		for e := kj.Offsets[ch]; e < kj.Offsets[ch+1]; e++ {
			k := kj.Parents[e]
			if k < 0 || k >= nn {
				return nil
			}
			p.entCh[e] = int32(ch)
			p.rowPtr[k+1]++
		}
	}
	for k := 0; k < nn; k++ {
		p.rowPtr[k+1] += p.rowPtr[k]
	}
	p.rowEnt = make([]int32, ne)
	next := slices.Clone(p.rowPtr[:nn])
	for e, k := range kj.Parents {
		p.rowEnt[next[k]] = int32(e)
		next[k]++
	}
	p.sbase = make([]int32, nc+1)
	for ch := 0; ch < nc; ch++ {
		n := int32(kj.Offsets[ch+1] - kj.Offsets[ch])
		p.sbase[ch+1] = p.sbase[ch] + n*n
	}
	p.slot = make([]int32, p.sbase[nc])
	// Per row k: its distinct partners l in increasing order are its
	// slots; loc[l] is l's slot while row k is processed.
	loc := make([]int32, nn)
	var cols []int32
	nbk := q
	bk := func(k int) int32 { return int32((off + Q*k) / 3) }
	p.slotPtr = make([]int32, nn+1)
	for k := 0; k < nn; k++ {
		p.slotPtr[k] = int32(p.nslot)
		cols = cols[:0]
		for _, e := range p.rowEnt[p.rowPtr[k]:p.rowPtr[k+1]] {
			ch := p.entCh[e]
			for _, l := range kj.Parents[kj.Offsets[ch]:kj.Offsets[ch+1]] {
				cols = append(cols, int32(l))
			}
		}
		slices.Sort(cols)
		cols = slices.Compact(cols)
		for _, l := range cols {
			loc[l] = int32(p.nslot)
			p.slotCol = append(p.slotCol, l)
			p.nslot++
			for bi := 0; bi < nbk; bi++ {
				for bj := 0; bj < nbk; bj++ {
					p.pairs = append(p.pairs, bk(k)+int32(bi), bk(int(l))+int32(bj))
				}
			}
		}
		for _, e := range p.rowEnt[p.rowPtr[k]:p.rowPtr[k+1]] {
			ch := p.entCh[e]
			o := kj.Offsets[ch]
			n := kj.Offsets[ch+1] - o
			i := int(e) - o
			for j := 0; j < n; j++ {
				p.slot[int(p.sbase[ch])+i*n+j] = loc[kj.Parents[o+j]]
			}
		}
	}
	p.slotPtr[nn] = int32(p.nslot)
	p.mirror = make([]int32, p.nslot)
	for k := 0; k < nn; k++ {
		for st := p.slotPtr[k]; st < p.slotPtr[k+1]; st++ {
			l := p.slotCol[st]
			row := p.slotCol[p.slotPtr[l]:p.slotPtr[l+1]]
			j, ok := slices.BinarySearch(row, int32(k))
			if !ok {
				return nil // not symmetric: cannot happen (pairs come from shared samples)
			}
			p.mirror[st] = p.slotPtr[l] + int32(j)
		}
	}
	p.sorted = make([]int32, ne)
	p.rank = make([]int32, ne)
	p.BT = make([]float64, ne*q*c)
	for ch := 0; ch < nc; ch++ {
		o, e1 := kj.Offsets[ch], kj.Offsets[ch+1]
		n := e1 - o
		srt := p.sorted[o:e1]
		for j := range srt {
			srt[j] = int32(j)
		}
		slices.SortStableFunc(srt, func(a, b int32) int { return kj.Parents[o+int(a)] - kj.Parents[o+int(b)] })
		BT := p.BT[q*c*o : q*c*e1]
		for s, j := range srt {
			if s > 0 && kj.Parents[o+int(j)] == kj.Parents[o+int(srt[s-1])] {
				p.dups = true
			}
			p.rank[o+int(j)] = int32(s)
			B := kj.Coef[(o+int(j))*q*c : (o+int(j)+1)*q*c]
			for m := 0; m < q; m++ {
				for col := 0; col < c; col++ {
					BT[col*n*q+s*q+m] = B[m*c+col]
				}
			}
		}
	}
	p.bI = make([]int32, Q*Q)
	p.bJ = make([]int32, Q*Q)
	for I := 0; I < Q; I++ {
		a := kj.ParentIndex[I]
		for J := 0; J < Q; J++ {
			b := kj.ParentIndex[J]
			// V's entry (I, J) is in block (a/3, b/3) of the pair, at
			// (a%3, b%3) within it.
			d := 9*((a/3)*nbk+b/3) + (a%3)*3 + b%3
			p.bI[d], p.bJ[d] = int32(I), int32(J)
		}
	}
	return p
}

// blockDiagonal reports whether every entry of l lies in a diagonal S×S
// block (one per child DOF). A local matrix that couples child DOFs (a
// force field on mapped mesh vertices) takes the generic path whole:
// split into its diagonal blocks and the rest, Jᵀ L J would be the
// difference of two large sums (a stiffness's rows sum to zero), each
// rounded on its own — measured 100× the rounding of the whole product on
// the stiff quadratic-GMLS bar of TestGMLSBarUniformStretch.
func blockDiagonal(l *coo, S int) bool {
	for q := range l.r {
		if int(l.r[q])/S != int(l.c[q])/S {
			return false
		}
	}
	return true
}

// addKronTerm adds a term with the dense blocks of l (block diagonal: see
// blockDiagonal), in (r, col) order.
func (ms *mappedSystem) addKronTerm(p *kronPattern, l *coo) {
	S := 3 * p.c
	nc := len(p.kj.Offsets) - 1
	ti := len(ms.kron)
	if ti < cap(ms.kron) {
		ms.kron = ms.kron[:ti+1]
	} else {
		ms.kron = append(ms.kron, kronTerm{})
	}
	t := &ms.kron[ti]
	t.pat = p
	t.K = resize(t.K, nc*S*S)
	clear(t.K)
	for q := range l.r {
		r, c := int(l.r[q]), int(l.c[q])
		ch := r / S
		t.K[ch*S*S+int(p.cinv[r-ch*S])*S+int(p.cinv[c-ch*S])] += l.v[q]
	}
	t.sym = symmetrizeBlocks(t.K, nc, S)
}

// kronRowGrain is the grain of the node rows of addKron: a row costs
// about (samples of the node) × (nodes per sample) 12×12 block products.
const kronRowGrain = 8

// addKron adds the structured terms into the matrix values val, pos[t]
// giving the matrix block of every block of term t's pattern.
func (ms *mappedSystem) addKron(val []float64, pos [][]int32) {
	for ti := range ms.kron {
		t := &ms.kron[ti]
		p := t.pat
		P := pos[ti]
		ms.runner.Run(p.nn, kronRowGrain, func(lo, hi int) {
			p.addRows(val, P, t.K, t.sym && !p.dups, lo, hi)
		})
	}
}

// kronScratch is addRows' work storage (W, V and the row's pair buffer),
// pooled so that the chunks of every step reuse it instead of allocating
// and growing it again (on 2 workers, 1.7 MB in 173 allocations per
// addKron of 300 affine nodes and 500 F331 samples before, 2 kB in 1 now).
type kronScratch struct{ W, V, buf []float64 }

var kronScratchPool = sync.Pool{New: func() any { return new(kronScratch) }}

// addRows adds the blocks of parent rows [lo, hi). For each sample p of
// node k (entry e), W = −U = −(I₃ ⊗ B_k) L_p (three q×c by c×S products)
// and V = U (I₃ ⊗ B_lᵀ) for all the sample's nodes l at once (three Q×c by
// c×(n·q) products, sparse.DenseGemmSub), summed per pair (k, l) in a
// buffer of the row's pairs (cache resident), which is then added to the
// matrix once per pair. With sym (every L_p symmetric), row k takes only
// its pairs (k, l ≥ k) (a suffix of the sample's sorted nodes) and adds
// each block's transpose at (l, k) too: every block still has one writer
// (the row of its smaller node), so the rows run in parallel.
func (p *kronPattern) addRows(val []float64, pos []int32, K []float64, sym bool, lo, hi int) {
	kj := p.kj
	c, q := p.c, p.q
	S, Q := 3*c, 3*q
	QQ := Q * Q
	nb2 := p.nbk * p.nbk
	sc := kronScratchPool.Get().(*kronScratch)
	defer kronScratchPool.Put(sc)
	W := resize(sc.W, Q*S)
	V, buf := sc.V, sc.buf
	defer func() { sc.W, sc.V, sc.buf = W, V, buf }()
	for k := lo; k < hi; k++ {
		s0k := int(p.slotPtr[k])
		ns := int(p.slotPtr[k+1]) - s0k
		buf = resize(buf, ns*QQ)
		clear(buf)
		for _, e := range p.rowEnt[p.rowPtr[k]:p.rowPtr[k+1]] {
			ch := int(p.entCh[e])
			o := kj.Offsets[ch]
			n := kj.Offsets[ch+1] - o
			i := int(e) - o
			Kp := K[ch*S*S : (ch+1)*S*S]
			Bk := kj.Coef[int(e)*q*c : (int(e)+1)*q*c]
			clear(W)
			for r := 0; r < 3; r++ {
				sparse.DenseGemmSub(q, S, c, Bk, c, 1, Kp[r*c*S:], S, W[r*q*S:], S)
			}
			s0 := 0 // first sorted node taken
			if sym {
				s0 = int(p.rank[e])
			}
			nq := n * q
			ldv := 3 * nq
			V = resize(V, Q*ldv)
			clear(V)
			BT := p.BT[q*c*o : q*c*(o+n)]
			for r2 := 0; r2 < 3; r2++ {
				// V[:, r2·nq + s·q + m] = −W[:, r2·c : r2·c + c] · BT[:, s·q + m]
				sparse.DenseGemmSub(Q, nq-s0*q, c, W[r2*c:], S, 1, BT[s0*q:], nq, V[r2*nq+s0*q:], ldv)
			}
			sb := int(p.sbase[ch])
			for sj := s0; sj < n; sj++ {
				j := int(p.sorted[o+sj])
				st := int(p.slot[sb+i*n+j]) - s0k
				B := buf[st*QQ : (st+1)*QQ : (st+1)*QQ]
				for I := 0; I < Q; I++ {
					Vr := V[I*ldv:]
					Br := B[I*Q : (I+1)*Q : (I+1)*Q]
					for r2 := 0; r2 < 3; r2++ {
						src := Vr[r2*nq+sj*q : r2*nq+sj*q+q : r2*nq+sj*q+q]
						dst := Br[r2*q : r2*q+q : r2*q+q]
						for m, v := range src {
							dst[m] += v
						}
					}
				}
			}
		}
		// The row's pairs into the matrix (and their mirrors).
		for st := 0; st < ns; st++ {
			l := int(p.slotCol[s0k+st])
			if sym && l < k {
				continue
			}
			B := buf[st*QQ : (st+1)*QQ : (st+1)*QQ]
			for b, bp := range pos[(s0k+st)*nb2 : (s0k+st+1)*nb2] {
				d := val[9*int(bp) : 9*int(bp)+9 : 9*int(bp)+9]
				bi, bj := p.bI[9*b:9*b+9:9*b+9], p.bJ[9*b:9*b+9:9*b+9]
				for t := range d {
					d[t] += B[int(bi[t])*Q+int(bj[t])]
				}
			}
			if sym && l != k {
				mt := int(p.mirror[s0k+st])
				for b, bp := range pos[mt*nb2 : (mt+1)*nb2] {
					d := val[9*int(bp) : 9*int(bp)+9 : 9*int(bp)+9]
					bi, bj := p.bI[9*b:9*b+9:9*b+9], p.bJ[9*b:9*b+9:9*b+9]
					for t := range d {
						d[t] += B[int(bj[t])*Q+int(bi[t])]
					}
				}
			}
		}
	}
}

// pruneKron forgets the patterns no term of the last compute used (a
// mapping re-initialised, a node removed).
func (ms *mappedSystem) pruneKron() {
	for key := range ms.kronCache {
		if !ms.kronUsed[key] {
			delete(ms.kronCache, key)
		}
	}
	clear(ms.kronUsed)
}
