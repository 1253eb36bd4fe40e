package sparse

import "fmt"

// Builder collects matrix entries (row, col, value) in any order and
// builds the CSR matrix in which entries at the same position add up. It
// implements graph.MatrixAccumulator, so force fields and masses assemble
// into it element by element (their AddKToMatrix and AddMToMatrix).
//
// The result is deterministic: duplicates are summed in the order they
// were added (in blocks: the entries are compacted into a partial CSR
// every time the pending list grows past a threshold, and a block's sum
// is added to the earlier blocks'). Memory stays at a few times the final
// number of nonzeros rather than the number of Add calls (a 10⁴-vertex
// tetrahedral mesh makes ~7·10⁶ calls for ~2·10⁶ nonzeros).
type Builder struct {
	rows, cols int
	ri, ci     []int32
	v          []float64
	acc        *CSR // compacted blocks so far
	err        error
	// scratch of flush
	perm, cnt []int
}

// NewBuilder returns an empty rows×cols builder.
func NewBuilder(rows, cols int) *Builder {
	return &Builder{rows: rows, cols: cols,
		acc: &CSR{Rows: rows, Cols: cols, RowPtr: make([]int, rows+1)}}
}

// minFlush is the smallest pending-entry count that triggers a compaction.
const minFlush = 1 << 20

// Add adds v at (row, col). An index out of range is recorded and
// reported by Build (Add itself has no error return: it implements
// graph.MatrixAccumulator).
func (b *Builder) Add(row, col int, v float64) {
	if uint(row) >= uint(b.rows) || uint(col) >= uint(b.cols) {
		if b.err == nil {
			b.err = fmt.Errorf("sparse: entry (%d, %d) out of range of a %d×%d matrix", row, col, b.rows, b.cols)
		}
		return
	}
	b.ri = append(b.ri, int32(row))
	b.ci = append(b.ci, int32(col))
	b.v = append(b.v, v)
	if len(b.v) >= max(minFlush, 2*b.acc.Nnz()) {
		b.flush()
	}
}

// Build returns the assembled matrix. The builder stays usable: more
// entries may be added and Build called again.
func (b *Builder) Build() (*CSR, error) {
	if b.err != nil {
		return nil, b.err
	}
	b.flush()
	a := b.acc
	out := &CSR{Rows: a.Rows, Cols: a.Cols, RowPtr: append([]int(nil), a.RowPtr...),
		Col: append([]int(nil), a.Col...), Val: append([]float64(nil), a.Val...)}
	return out, nil
}

// flush sorts the pending entries by (row, column), keeping the order of
// addition among equal positions (two stable counting sorts: by column,
// then by row), sums duplicates and merges the block into acc.
func (b *Builder) flush() {
	m := len(b.v)
	if m == 0 {
		return
	}
	if cap(b.perm) < m {
		b.perm = make([]int, m)
	}
	tmp := make([]int, m)
	perm := b.perm[:m]
	// Counting sort by column (stable).
	n := max(b.rows, b.cols)
	if cap(b.cnt) < n+1 {
		b.cnt = make([]int, n+1)
	}
	cnt := b.cnt[:n+1]
	clear(cnt)
	for _, c := range b.ci {
		cnt[c+1]++
	}
	for i := 0; i < b.cols; i++ {
		cnt[i+1] += cnt[i]
	}
	for k, c := range b.ci {
		tmp[cnt[c]] = k
		cnt[c]++
	}
	// Stable counting sort by row of that order.
	clear(cnt)
	for _, r := range b.ri {
		cnt[r+1]++
	}
	for i := 0; i < b.rows; i++ {
		cnt[i+1] += cnt[i]
	}
	rowStart := make([]int, b.rows+1)
	copy(rowStart, cnt[:b.rows+1])
	for _, k := range tmp {
		r := b.ri[k]
		perm[cnt[r]] = k
		cnt[r]++
	}
	// Merge row by row: acc's entries first, then the block's (summed in
	// order of addition).
	acc := b.acc
	out := &CSR{Rows: b.rows, Cols: b.cols, RowPtr: make([]int, b.rows+1)}
	out.Col = make([]int, 0, acc.Nnz()+m/2)
	out.Val = make([]float64, 0, acc.Nnz()+m/2)
	for i := 0; i < b.rows; i++ {
		p, pe := acc.RowPtr[i], acc.RowPtr[i+1]
		q, qe := rowStart[i], rowStart[i+1]
		for p < pe || q < qe {
			var c int
			var v float64
			if q < qe {
				c = int(b.ci[perm[q]])
			}
			switch {
			case q == qe || (p < pe && acc.Col[p] < c):
				out.Col = append(out.Col, acc.Col[p])
				out.Val = append(out.Val, acc.Val[p])
				p++
				continue
			case p < pe && acc.Col[p] == c:
				v = acc.Val[p]
				p++
			}
			for q < qe && int(b.ci[perm[q]]) == c {
				v += b.v[perm[q]]
				q++
			}
			out.Col = append(out.Col, c)
			out.Val = append(out.Val, v)
		}
		out.RowPtr[i+1] = len(out.Col)
	}
	b.acc = out
	b.ri, b.ci, b.v = b.ri[:0], b.ci[:0], b.v[:0]
}
