package sparse

import (
	"errors"
	"testing"
)

// TestFactorIntoReusesStorage: FactorInto gives the bitwise same factor
// and solution as Factor, allocates nothing when refactorising the same
// pattern (the point: a solver refactorising every step used to allocate
// the whole factor, 766 KB per step on the 480-tetrahedron cantilever, and
// the garbage collector it kept busy cost a third of the step on two
// cores), recovers after a failed (indefinite) factorisation, and is
// reusable across patterns.
func TestFactorIntoReusesStorage(t *testing.T) {
	a := grid3D(6, 5, 4)
	sym, err := Analyze(a, nil)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := sym.Factor(a)
	if err != nil {
		t.Fatal(err)
	}
	var c Cholesky
	if err := sym.FactorInto(&c, a); err != nil {
		t.Fatal(err)
	}
	for i, v := range ref.l {
		if c.l[i] != v {
			t.Fatalf("factor entry %d: FactorInto %v, Factor %v", i, c.l[i], v)
		}
	}
	b := make([]float64, a.Rows)
	for i := range b {
		b[i] = float64(i%7) - 3
	}
	x1, x2 := make([]float64, a.Rows), make([]float64, a.Rows)
	ref.Solve(x1, b)
	c.Solve(x2, b)
	for i := range x1 {
		if x1[i] != x2[i] {
			t.Fatalf("solution %d: %v vs %v", i, x2[i], x1[i])
		}
	}
	if n := testing.AllocsPerRun(10, func() {
		if err := sym.FactorInto(&c, a); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("FactorInto allocates %v times per refactorisation, want 0", n)
	}

	// An indefinite matrix of the same pattern fails, then the SPD one
	// factorises again into the same storage.
	neg := &CSR{Rows: a.Rows, Cols: a.Cols, RowPtr: a.RowPtr, Col: a.Col, Val: make([]float64, len(a.Val))}
	for i, v := range a.Val {
		neg.Val[i] = -v
	}
	var npd *NotPositiveDefiniteError
	if err := sym.FactorInto(&c, neg); !errors.As(err, &npd) {
		t.Fatalf("negated matrix: error %v, want NotPositiveDefiniteError", err)
	}
	if err := sym.FactorInto(&c, a); err != nil {
		t.Fatal(err)
	}
	c.Solve(x2, b)
	for i := range x1 {
		if x1[i] != x2[i] {
			t.Fatalf("after a failure, solution %d: %v vs %v", i, x2[i], x1[i])
		}
	}

	// Another pattern into the same storage.
	a2 := grid3D(3, 3, 3)
	sym2, err := Analyze(a2, nil)
	if err != nil {
		t.Fatal(err)
	}
	ref2, err := sym2.Factor(a2)
	if err != nil {
		t.Fatal(err)
	}
	if err := sym2.FactorInto(&c, a2); err != nil {
		t.Fatal(err)
	}
	y1, y2 := make([]float64, a2.Rows), make([]float64, a2.Rows)
	ref2.Solve(y1, b[:a2.Rows])
	c.Solve(y2, b[:a2.Rows])
	for i := range y1 {
		if y1[i] != y2[i] {
			t.Fatalf("other pattern, solution %d: %v vs %v", i, y2[i], y1[i])
		}
	}
	if err := sym2.FactorInto(&c, a); err == nil {
		t.Error("FactorInto accepted a matrix of another pattern")
	}
}

// TestFactorTriplesMatchesEntrywise: on a pattern of 3×3 node blocks
// (grid3D: three unknowns per vertex, ordered by minimum degree) the
// analysis finds the node triples (Symbolic.triples), and the updates
// subtracted three entries per index give bitwise the factor of the
// entry-by-entry loop (the same subtractions in the same order), which
// the other tests check against dense factorisations; a random
// permutation of the unknowns breaks the triples.
func TestFactorTriplesMatchesEntrywise(t *testing.T) {
	a := grid3D(12, 5, 4)
	sym, err := Analyze(a, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !sym.triples {
		t.Fatal("node triples not found on a 3×3-block pattern")
	}
	fast, err := sym.Factor(a)
	if err != nil {
		t.Fatal(err)
	}
	sym.triples = false
	slow, err := sym.Factor(a)
	if err != nil {
		t.Fatal(err)
	}
	for i := range slow.l[:sym.lptr[len(sym.super)-1]] {
		if fast.l[i] != slow.l[i] {
			t.Fatalf("factor entry %d: triples %v, entrywise %v", i, fast.l[i], slow.l[i])
		}
	}
	perm := make([]int, a.Rows)
	for i := range perm {
		perm[i] = (i*7919 + 13) % a.Rows // a.Rows = 720, coprime to 7919
	}
	scrambled, err := Analyze(a, perm)
	if err != nil {
		t.Fatal(err)
	}
	if scrambled.triples {
		t.Fatal("node triples found in a scrambled order")
	}
}
