//go:build ignore

// large_blocks_gen.go writes large_blocks_amd64.s, the AVX kernel of the
// element matrices of method "large" (largeBlocks4), four tetrahedra at a
// time, one per 64-bit lane of the YMM registers:
//
//	go run large_blocks_gen.go > large_blocks_amd64.s
//
// The kernel performs, lane by lane, the same floating-point operations in
// the same order as the scalar largeElementMatrix (no FMA: a product and
// a sum are rounded separately, as Go rounds them on amd64), leaving out
// only the products with Â's structural zeros (largeTangentPattern), which
// add exact zeros there. So its blocks equal the scalar ones exactly
// (TestLargeBlocks4MatchesScalar).
package main

import (
	"fmt"
	"os"
	"strings"
)

// Slots of the group (32 bytes each, lane l of slot s at byte 32s + 8l),
// mirrored by the largeGroup constants in large_blocks.go: the inputs
// (the element's cache of largeLaw — R, U, U⁻¹, G, B —, ∇N₁..∇N₃, the
// scale, a sign mask, μ and λ), the 144 outputs, then the scratch of the
// intermediate values (Â's entries and the sums leading to them, Y).
const (
	slotCC   = 0   // the element cache, 27 slots (R first, row-major)
	slotR    = 0   // R
	slotG    = 27  // ∇N₁..∇N₃ (the rows of Dm⁻¹), 9 slots
	slotSC   = 36  // −wₑ·kFactor
	slotSign = 37  // −0.0 in every lane (negation by XOR)
	slotMu   = 38  // μ
	slotLam  = 39  // λ
	slotOut  = 40  // the 16 blocks, 144 slots
	slotTmp  = 184 // first scratch slot
	numSlots = 464 // the size of largeGroup
)

// pattern is Â's structural non-zeros (row-major, 9 rows of 9), as
// largeRotatedTangent writes them (TestLargeTangentPattern).
var pattern = [9]string{
	"1..11.111",
	".1.1..1..",
	"..11..1..",
	"111111111",
	"1..11.111",
	"...1.111.",
	"111111111",
	"1..111111",
	"1..11.111",
}

var out strings.Builder

func emit(format string, args ...any) { fmt.Fprintf(&out, "\t"+format+"\n", args...) }

func mem(slot int) string { return fmt.Sprintf("%d(DI)", 32*slot) }

func y(r int) string { return fmt.Sprintf("Y%d", r) }

// sum emits dst = t₀ + t₁ + … (left to right), each term a product
// mem(slot)·reg, tmp a scratch register; no terms gives dst = 0.
func sum(dst, tmp int, slots, regs []int) {
	if len(slots) == 0 {
		emit("VXORPD %s, %s, %s", y(dst), y(dst), y(dst))
		return
	}
	emit("VMULPD %s, %s, %s", mem(slots[0]), y(regs[0]), y(dst))
	for i := 1; i < len(slots); i++ {
		emit("VMULPD %s, %s, %s", mem(slots[i]), y(regs[i]), y(tmp))
		emit("VADDPD %s, %s, %s", y(tmp), y(dst), y(dst))
	}
}

// A value of the Â computation: the slot that holds it in every lane,
// or zero (a structural zero, folded away as the scalar code's additions
// of exact zeros leave the other operand unchanged).
type val struct {
	slot int
	zero bool
}

var (
	zeroVal  = val{zero: true}
	nextSlot = slotTmp
)

func in(slot int) val { return val{slot: slot} }

func newSlot() int { nextSlot++; return nextSlot - 1 }

// op emits dst = a OP b lane by lane (one rounding, as Go's a OP b).
func op(name string, a, b val) val {
	d := newSlot()
	emit("VMOVUPD %s, Y0", mem(a.slot))
	emit("%s %s, Y0, Y0", name, mem(b.slot))
	emit("VMOVUPD Y0, %s", mem(d))
	return in(d)
}

func mul(a, b val) val {
	if a.zero || b.zero {
		return zeroVal
	}
	return op("VMULPD", a, b)
}

func add(a, b val) val {
	switch {
	case a.zero:
		return b
	case b.zero:
		return a
	}
	return op("VADDPD", a, b)
}

func neg(a val) val {
	if a.zero {
		return a
	}
	d := newSlot()
	emit("VMOVUPD %s, Y0", mem(a.slot))
	emit("VXORPD %s, Y0, Y0", mem(slotSign))
	emit("VMOVUPD Y0, %s", mem(d))
	return in(d)
}

func sub(a, b val) val {
	switch {
	case b.zero:
		return a
	case a.zero:
		return neg(b) // 0 − b = −b
	}
	return op("VSUBPD", a, b)
}

// tangent emits largeRotatedTangent's Â, operation for operation, and
// returns its 81 entries (row-major).
func tangent() [81]val {
	cc := func(i int) val { return in(slotCC + i) }
	u0, u1, u2, u3, u4, u5 := cc(9), cc(10), cc(11), cc(12), cc(13), cc(14)
	ui0, ui1, ui2 := cc(15), cc(16), cc(17)
	g0, g1, g2, g3, g4, g5 := cc(18), cc(19), cc(20), cc(21), cc(22), cc(23)
	b0, b1, b2 := cc(24), cc(25), cc(26)
	mu, lam := in(slotMu), in(slotLam)
	l2 := add(add(mu, mu), lam) // 2μ + λ (μ + μ = 2μ exactly)
	z := zeroVal
	var Ah [81]val
	column := func(c int, d0, d1, d2, o01, o02, o12, c10, c20, c21 val) {
		Ah[c] = d0
		Ah[c+9] = o01
		Ah[c+18] = o02
		Ah[c+27] = sub(o01, mul(c10, ui0))
		Ah[c+36] = d1
		Ah[c+45] = o12
		Ah[c+54] = sub(o02, add(mul(c20, ui0), mul(c21, ui1)))
		Ah[c+63] = sub(o12, mul(c21, ui2))
		Ah[c+72] = d2
	}
	column(0, l2, lam, lam, z, z, z, sub(add(mul(lam, u1), g1), b0), sub(add(mul(lam, u2), g2), b1), mul(lam, u4))
	column(1, z, z, z, mu, z, z, add(mul(mu, sub(u0, u3)), g3), sub(g4, b2), z)
	column(2, z, z, z, z, mu, z, sub(g4, mul(mu, u4)), add(mul(mu, sub(u0, u5)), g5), z)
	column(4, lam, l2, lam, z, z, z, sub(mul(l2, u1), g1), mul(lam, u2), sub(add(mul(lam, u4), g4), b2))
	column(5, z, z, z, z, z, mu, sub(mul(mu, u2), g2), mul(mu, u1), add(mul(mu, sub(u3, u5)), g5))
	column(8, lam, lam, l2, z, z, z, mul(lam, u1), sub(mul(l2, u2), g2), sub(mul(l2, u4), g4))
	q10, q20, q21 := sub(g1, b0), sub(g2, b1), sub(g4, b2)
	wm10 := [9]val{neg(q10), neg(g3), neg(g4), g0, g1, g2, z, z, z}
	wm20 := [9]val{neg(q20), neg(q21), neg(g5), z, z, z, g0, g1, g2}
	wm21 := [9]val{z, z, z, neg(q20), neg(q21), neg(g5), q10, g3, g4}
	for r := 0; r < 9; r++ {
		row := Ah[9*r : 9*r+9]
		w10 := sub(sub(add(add(wm10[r], mul(u3, row[1])), mul(u4, row[2])), mul(u1, row[4])), mul(u2, row[5]))
		w20 := sub(add(wm20[r], mul(u5, row[2])), mul(u2, row[8]))
		w21 := sub(add(wm21[r], mul(u5, row[5])), mul(u4, row[8]))
		row[3] = mul(ui0, w10)
		row[6] = add(mul(ui0, w20), mul(ui1, w21))
		row[7] = mul(ui2, w21)
	}
	return Ah
}

func main() {
	emit("MOVQ grp+0(FP), DI")
	Ah := tangent()
	nz := func(r, c int) bool { return pattern[r][c] == '1' }
	for i, a := range Ah {
		if a.zero == nz(i/9, i%9) {
			panic(fmt.Sprintf("Â[%d][%d]: the pattern disagrees with the computation", i/9, i%9))
		}
	}
	// yZero[r][3b+q]: Y's entry is a sum of no term.
	var yZero [9][9]bool
	for r := 0; r < 9; r++ {
		for q := 0; q < 3; q++ {
			z := !nz(r, 3*q) && !nz(r, 3*q+1) && !nz(r, 3*q+2)
			for b := 0; b < 3; b++ {
				yZero[r][3*b+q] = z
			}
		}
	}
	var slotY [81]int
	for i := range slotY {
		slotY[i] = newSlot()
	}
	// Y[r][3b+q] = Σ_j Â[r][3q+j] ∇N_{b+1}[j], ∇N_{b+1} in Y13..Y15.
	for b := 0; b < 3; b++ {
		for j := 0; j < 3; j++ {
			emit("VMOVUPD %s, %s", mem(slotG+3*b+j), y(13+j))
		}
		for r := 0; r < 9; r++ {
			for q := 0; q < 3; q++ {
				var slots, regs []int
				for j := 0; j < 3; j++ {
					if nz(r, 3*q+j) {
						slots = append(slots, Ah[9*r+3*q+j].slot)
						regs = append(regs, 13+j)
					}
				}
				if len(slots) == 0 {
					continue // never read
				}
				sum(0, 1, slots, regs)
				emit("VMOVUPD Y0, %s", mem(slotY[9*r+3*b+q]))
			}
		}
	}
	o := func(a, b, j int) int { return slotOut + 9*(4*a+b) + j }
	for a := 0; a < 3; a++ {
		// h = sc·∇N_{a+1} in Y13..Y15.
		emit("VMOVUPD %s, Y12", mem(slotSC))
		for j := 0; j < 3; j++ {
			emit("VMULPD %s, Y12, %s", mem(slotG+3*a+j), y(13+j))
		}
		for b := a; b < 3; b++ {
			// K̂[p][q] = h₀Y[3p][3b+q] + h₁Y[3p+1][3b+q] + h₂Y[3p+2][3b+q]
			// into Y(3p+q).
			var khZero [9]bool
			for p := 0; p < 3; p++ {
				for q := 0; q < 3; q++ {
					var slots, regs []int
					for i := 0; i < 3; i++ {
						if !yZero[3*p+i][3*b+q] {
							slots = append(slots, slotY[9*(3*p+i)+3*b+q])
							regs = append(regs, 13+i)
						}
					}
					khZero[3*p+q] = len(slots) == 0
					sum(3*p+q, 9, slots, regs)
				}
			}
			// M = R K̂ column by column: M[i][c] = R[i][0]K̂[0][c] +
			// R[i][1]K̂[1][c] + R[i][2]K̂[2][c] into Y9..Y11, then moved
			// into K̂'s column c.
			for c := 0; c < 3; c++ {
				for i := 0; i < 3; i++ {
					var slots, regs []int
					for k := 0; k < 3; k++ {
						if !khZero[3*k+c] {
							slots = append(slots, slotR+3*i+k)
							regs = append(regs, 3*k+c)
						}
					}
					sum(9+i, 12, slots, regs)
				}
				for i := 0; i < 3; i++ {
					emit("VMOVAPD %s, %s", y(9+i), y(3*i+c))
				}
			}
			// K[i][k] = M[i][0]R[k][0] + M[i][1]R[k][1] + M[i][2]R[k][2]
			// to blocks (a+1, b+1) and, transposed, (b+1, a+1).
			for i := 0; i < 3; i++ {
				for k := 0; k < 3; k++ {
					sum(9, 12, []int{slotR + 3*k, slotR + 3*k + 1, slotR + 3*k + 2}, []int{3 * i, 3*i + 1, 3*i + 2})
					// Both stores also on a diagonal block, in the
					// scalar code's order (its later value wins).
					emit("VMOVUPD Y9, %s", mem(o(a+1, b+1, 3*i+k)))
					emit("VMOVUPD Y9, %s", mem(o(b+1, a+1, 3*k+i)))
				}
			}
		}
	}
	// Corner 0: block (0, b) = −((b₁ + b₂) + b₃) with b_a block (a, b),
	// (b, 0) its transpose; (0, 0) = −(((0,1) + (0,2)) + (0,3)).
	emit("VMOVUPD %s, Y15", mem(slotSign))
	for b := 1; b < 4; b++ {
		for i := 0; i < 3; i++ {
			for c := 0; c < 3; c++ {
				j := 3*i + c
				emit("VMOVUPD %s, Y0", mem(o(1, b, j)))
				emit("VADDPD %s, Y0, Y0", mem(o(2, b, j)))
				emit("VADDPD %s, Y0, Y0", mem(o(3, b, j)))
				emit("VXORPD Y15, Y0, Y0")
				emit("VMOVUPD Y0, %s", mem(o(0, b, j)))
				emit("VMOVUPD Y0, %s", mem(o(b, 0, 3*c+i)))
			}
		}
	}
	for q := 0; q < 9; q++ {
		emit("VMOVUPD %s, Y0", mem(o(0, 1, q)))
		emit("VADDPD %s, Y0, Y0", mem(o(0, 2, q)))
		emit("VADDPD %s, Y0, Y0", mem(o(0, 3, q)))
		emit("VXORPD Y15, Y0, Y0")
		emit("VMOVUPD Y0, %s", mem(o(0, 0, q)))
	}
	emit("VZEROUPPER")
	emit("RET")
	if nextSlot > numSlots {
		panic(fmt.Sprintf("%d slots, more than the %d of largeGroup", nextSlot, numSlots))
	}
	body := out.String()
	out.Reset()
	fmt.Fprintln(&out, "// Code generated by large_blocks_gen.go; DO NOT EDIT.")
	fmt.Fprintln(&out)
	fmt.Fprintln(&out, "#include \"textflag.h\"")
	fmt.Fprintln(&out)
	fmt.Fprintf(&out, "// func largeBlocks4(grp *largeGroup): %d slots of 32 bytes.\n", nextSlot)
	fmt.Fprintln(&out, "TEXT ·largeBlocks4(SB), NOSPLIT, $0-8")
	out.WriteString(body)
	fmt.Fprintln(&out)
	fmt.Fprintln(&out, "// func cpuidLarge(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)")
	fmt.Fprintln(&out, "TEXT ·cpuidLarge(SB), NOSPLIT, $0-24")
	emit("MOVL eaxArg+0(FP), AX")
	emit("MOVL ecxArg+4(FP), CX")
	emit("CPUID")
	emit("MOVL AX, eax+8(FP)")
	emit("MOVL BX, ebx+12(FP)")
	emit("MOVL CX, ecx+16(FP)")
	emit("MOVL DX, edx+20(FP)")
	emit("RET")
	fmt.Fprintln(&out)
	fmt.Fprintln(&out, "// func xgetbvLarge() (eax, edx uint32)")
	fmt.Fprintln(&out, "TEXT ·xgetbvLarge(SB), NOSPLIT, $0-8")
	emit("MOVL $0, CX")
	emit("XGETBV")
	emit("MOVL AX, eax+0(FP)")
	emit("MOVL DX, edx+4(FP)")
	emit("RET")
	os.Stdout.WriteString(out.String())
}
