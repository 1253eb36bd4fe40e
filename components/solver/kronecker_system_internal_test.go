package solver

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/sparse"
)

// TestKroneckerTripleProduct checks the structured Jᵀ L J (kronPattern,
// addRows) against the dense product of J written out from the
// definition of graph.RowKroneckerJacobian, for random coefficients,
// permuted child and parent layouts and random per-child blocks L_p:
// non-symmetric blocks (every pair computed) and symmetric ones (pairs
// l ≥ k computed, mirrored), for the shapes of F331 samples and points on
// affine nodes and F332 samples on quadratic ones. Both sides sum the
// same products in other orders: 1e-13 of the largest entry.
func TestKroneckerTripleProduct(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for _, sh := range []struct{ c, q int }{{3, 4}, {1, 4}, {12, 4}, {12, 10}} {
		for _, sym := range []bool{false, true} {
			c, q := sh.c, sh.q
			S, Q := 3*c, 3*q
			nn, nc := 7, 6
			kj := &graph.RowKroneckerJacobian{ChildCols: c, ParentCols: q, Offsets: []int{0}}
			kj.ChildIndex = rng.Perm(S)
			kj.ParentIndex = rng.Perm(Q)
			for p := 0; p < nc; p++ {
				n := 1 + rng.IntN(4)
				kj.Parents = append(kj.Parents, rng.Perm(nn)[:n]...) // distinct, unsorted
				kj.Offsets = append(kj.Offsets, len(kj.Parents))
			}
			kj.Coef = make([]float64, len(kj.Parents)*q*c)
			for i := range kj.Coef {
				kj.Coef[i] = 2*rng.Float64() - 1
			}
			// L_p in the child's storage order, and in (r, col) order.
			Ls := make([]float64, nc*S*S)
			for i := range Ls {
				Ls[i] = 2*rng.Float64() - 1
			}
			if sym {
				for p := 0; p < nc; p++ {
					B := Ls[p*S*S:]
					for i := 0; i < S; i++ {
						for j := 0; j < i; j++ {
							B[j*S+i] = B[i*S+j]
						}
					}
				}
			}
			K := make([]float64, nc*S*S)
			for p := 0; p < nc; p++ {
				for a := 0; a < S; a++ {
					for b := 0; b < S; b++ {
						K[p*S*S+a*S+b] = Ls[p*S*S+kj.ChildIndex[a]*S+kj.ChildIndex[b]]
					}
				}
			}
			// Dense J and Jᵀ L J.
			J := make([][]float64, nc*S)
			for i := range J {
				J[i] = make([]float64, nn*Q)
			}
			for p := 0; p < nc; p++ {
				for e := kj.Offsets[p]; e < kj.Offsets[p+1]; e++ {
					k := kj.Parents[e]
					for r := 0; r < 3; r++ {
						for col := 0; col < c; col++ {
							for m := 0; m < q; m++ {
								J[p*S+kj.ChildIndex[r*c+col]][k*Q+kj.ParentIndex[r*q+m]] += kj.Coef[e*q*c+m*c+col]
							}
						}
					}
				}
			}
			want := make([][]float64, nn*Q)
			for i := range want {
				want[i] = make([]float64, nn*Q)
			}
			for p := 0; p < nc; p++ {
				for a := 0; a < S; a++ {
					for b := 0; b < S; b++ {
						l := Ls[p*S*S+a*S+b]
						for i, ja := range J[p*S+a] {
							if ja == 0 {
								continue
							}
							for j, jb := range J[p*S+b] {
								want[i][j] += ja * l * jb
							}
						}
					}
				}
			}
			pat := newKronPattern(kj, 0, nn)
			if pat == nil {
				t.Fatal("no pattern")
			}
			asm, err := sparse.NewBSR3Assembly(nn*Q/3, nil, pat.pairs)
			if err != nil {
				t.Fatal(err)
			}
			pos := make([]int32, len(pat.pairs)/2)
			for i := range pos {
				pos[i] = int32(asm.A.Find(int(pat.pairs[2*i]), int(pat.pairs[2*i+1])))
			}
			pat.addRows(asm.A.Val, pos, K, sym, 0, nn)
			got := make([][]float64, nn*Q)
			for i := range got {
				got[i] = make([]float64, nn*Q)
			}
			A := asm.A
			for i := 0; i < A.N; i++ {
				for p := A.RowPtr[i]; p < A.RowPtr[i+1]; p++ {
					j := int(A.Col[p])
					for r := 0; r < 3; r++ {
						for cc := 0; cc < 3; cc++ {
							got[3*i+r][3*j+cc] = A.Val[9*int(p)+3*r+cc]
						}
					}
				}
			}
			scale, worst := 0.0, 0.0
			for i := range want {
				for j := range want[i] {
					scale = math.Max(scale, math.Abs(want[i][j]))
					worst = math.Max(worst, math.Abs(got[i][j]-want[i][j]))
				}
			}
			t.Logf("c = %d, q = %d, symmetric %v: largest difference %.3g of %.3g", c, q, sym, worst, scale)
			if scale == 0 || worst > 1e-13*scale {
				t.Errorf("c = %d, q = %d, symmetric %v: Jᵀ L J differs from the dense product by %.3g (largest entry %.3g)", c, q, sym, worst, scale)
			}
		}
	}
}

// TestKroneckerTripleProductWorkers checks that the structured Jᵀ L J is
// bitwise the same on one worker and on several (rows split over the
// pool, each block written by one row).
func TestKroneckerTripleProductWorkers(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	const c, q, nn, nc = 12, 4, 300, 500
	S := 3 * c
	kj := &graph.RowKroneckerJacobian{ChildCols: c, ParentCols: q, Offsets: []int{0}}
	kj.ChildIndex = rng.Perm(S)
	kj.ParentIndex = rng.Perm(3 * q)
	for p := 0; p < nc; p++ {
		k0 := rng.IntN(nn - 8)
		for _, d := range rng.Perm(8)[:1+rng.IntN(7)] {
			kj.Parents = append(kj.Parents, k0+d)
		}
		kj.Offsets = append(kj.Offsets, len(kj.Parents))
	}
	kj.Coef = make([]float64, len(kj.Parents)*q*c)
	for i := range kj.Coef {
		kj.Coef[i] = 2*rng.Float64() - 1
	}
	K := make([]float64, nc*S*S)
	for i := range K {
		K[i] = 2*rng.Float64() - 1
	}
	pat := newKronPattern(kj, 0, nn)
	asm, err := sparse.NewBSR3Assembly(nn*q, nil, pat.pairs)
	if err != nil {
		t.Fatal(err)
	}
	pos := make([]int32, len(pat.pairs)/2)
	for i := range pos {
		pos[i] = int32(asm.A.Find(int(pat.pairs[2*i]), int(pat.pairs[2*i+1])))
	}
	for _, sym := range []bool{false, true} {
		if sym && !symmetrizeBlocks(K, nc, S) {
			for p := 0; p < nc; p++ {
				B := K[p*S*S:]
				for i := 0; i < S; i++ {
					for j := 0; j < i; j++ {
						B[j*S+i] = B[i*S+j]
					}
				}
			}
		}
		var vals [2][]float64
		for w, workers := range []int{1, 4} {
			ms := &mappedSystem{kron: []kronTerm{{pat: pat, K: K, sym: sym}}}
			ms.runner.Workers = workers
			vals[w] = make([]float64, len(asm.A.Val))
			ms.addKron(vals[w], [][]int32{pos})
		}
		for i := range vals[0] {
			if math.Float64bits(vals[0][i]) != math.Float64bits(vals[1][i]) {
				t.Fatalf("symmetric %v: value %d is %v on 1 worker, %v on 4", sym, i, vals[0][i], vals[1][i])
			}
		}
	}
}
