package sparse

import (
	"fmt"

	"github.com/sofago/sofago/parallel"
)

// BSR3Assembly assembles a BSR3 matrix from sources of 3×3 blocks at fixed
// positions (the element matrices of a force field, the diagonal of a
// lumped mass, ...) without searching: the position of every source block
// in the matrix is computed once, when the assembly is built from the
// sources' block lists, and each assembly is then
//
//  1. the sources write their blocks' values into their slice of Vals
//     (Source(s): 9 numbers per block in the order of their list; they may
//     do so in parallel, each block slot having one writer), and
//  2. Gather sums them into the matrix: each matrix block is the sum of
//     its source blocks in a fixed order (by source, then by position in
//     the source's list), so the result is bitwise the same whatever the
//     number of workers; block rows are summed in parallel.
//
// Entries that arrive one by one (a component writing scalar entries
// through graph.MatrixAccumulator) are added after Gather at positions
// found once by ScalarIndex.
type BSR3Assembly struct {
	A    *BSR3
	Vals []float64 // 9 per source block, source s at [9·off[s], 9·off[s+1])
	off  []int
	// Inverse map: matrix block p is the sum of the source blocks
	// src[first[p]:first[p+1]] (indices into Vals / 9, increasing).
	first []int32
	src   []int32
	// dst[q] is the matrix block of source block q.
	dst   []int32
	gbody func(lo, hi int)
}

// NewBSR3Assembly builds the pattern of the n×n-block matrix holding every
// block of the sources (sources[s] lists source s's block positions as
// (row, column) pairs, 2 numbers per block) and of extra (pairs that only
// scalar entries fill, or none), plus the diagonal, and the maps from
// source blocks to matrix blocks.
func NewBSR3Assembly(n int, sources [][]int32, extra []int32) (*BSR3Assembly, error) {
	total := len(extra)
	for _, s := range sources {
		total += len(s)
	}
	all := make([]int32, 0, total)
	for _, s := range sources {
		all = append(all, s...)
	}
	all = append(all, extra...)
	a, err := NewBSR3(n, all)
	if err != nil {
		return nil, err
	}
	as := &BSR3Assembly{A: a, off: make([]int, len(sources)+1)}
	for i, s := range sources {
		as.off[i+1] = as.off[i] + len(s)/2
	}
	nb := as.off[len(sources)]
	if nb > 1<<31-1 {
		return nil, fmt.Errorf("sparse: BSR3Assembly of %d source blocks", nb)
	}
	as.Vals = make([]float64, 9*nb)
	// Matrix block of every source block (a binary search each, once),
	// then the inverse lists by a stable counting sort.
	dst := make([]int32, nb)
	q := 0
	for _, s := range sources {
		for k := 0; k < len(s); k += 2 {
			dst[q] = int32(a.Find(int(s[k]), int(s[k+1])))
			q++
		}
	}
	as.first = make([]int32, len(a.Col)+1)
	for _, p := range dst {
		as.first[p+1]++
	}
	for p := range a.Col {
		as.first[p+1] += as.first[p]
	}
	as.src = make([]int32, nb)
	next := append([]int32(nil), as.first[:len(a.Col)]...)
	for s, p := range dst {
		as.src[next[p]] = int32(s)
		next[p]++
	}
	as.gbody = as.gatherRows
	as.dst = dst
	return as, nil
}

// Positions returns the matrix block (an index into A's blocks: values at
// A.Val[9p:9p+9]) of each block of source s, in the order of its list.
// The slice is the assembly's: callers do not modify it.
func (as *BSR3Assembly) Positions(s int) []int32 {
	return as.dst[as.off[s]:as.off[s+1]:as.off[s+1]]
}

// AddSource adds the values of source s (Source(s)) to A, block by block
// in the order of its list. Clearing A.Val, then adding every source in
// turn (AddSource, or the source adding its blocks itself at Positions)
// gives A bitwise as Gather does: each matrix block is 0 plus its source
// blocks in the order of the sources and of their lists.
func (as *BSR3Assembly) AddSource(s int) {
	v := as.Source(s)
	for q, p := range as.Positions(s) {
		d := as.A.Val[9*int(p) : 9*int(p)+9 : 9*int(p)+9]
		b := v[9*q : 9*q+9 : 9*q+9]
		d[0] += b[0]
		d[1] += b[1]
		d[2] += b[2]
		d[3] += b[3]
		d[4] += b[4]
		d[5] += b[5]
		d[6] += b[6]
		d[7] += b[7]
		d[8] += b[8]
	}
}

// Source returns the value slice of source s (9 numbers per block of its
// list), to be written before Gather.
func (as *BSR3Assembly) Source(s int) []float64 {
	return as.Vals[9*as.off[s] : 9*as.off[s+1] : 9*as.off[s+1]]
}

// GatherGrain is Gather's grain, in block rows: a matrix of fewer than
// 8·GatherGrain block rows is gathered on the calling goroutine.
const GatherGrain = 64

// Gather sets every block of A to the sum of its source blocks (zero for
// blocks no source writes), block rows split over the runner's workers
// (nil: serial).
func (as *BSR3Assembly) Gather(r *parallel.Runner) {
	if r == nil {
		as.gatherRows(0, as.A.N)
		return
	}
	r.Run(as.A.N, GatherGrain, as.gbody)
}

func (as *BSR3Assembly) gatherRows(lo, hi int) {
	a := as.A
	for p := int(a.RowPtr[lo]); p < int(a.RowPtr[hi]); p++ {
		var s [9]float64
		for _, b := range as.src[as.first[p]:as.first[p+1]] {
			v := as.Vals[9*int(b) : 9*int(b)+9 : 9*int(b)+9]
			s[0] += v[0]
			s[1] += v[1]
			s[2] += v[2]
			s[3] += v[3]
			s[4] += v[4]
			s[5] += v[5]
			s[6] += v[6]
			s[7] += v[7]
			s[8] += v[8]
		}
		copy(a.Val[9*p:9*p+9], s[:])
	}
}

// ScalarIndex returns the index in A.Val of scalar entry (r, c), or −1
// when its block is not in the pattern.
func (as *BSR3Assembly) ScalarIndex(r, c int) int {
	k := as.A.Find(r/3, c/3)
	if k < 0 {
		return -1
	}
	return 9*k + 3*(r%3) + c%3
}
