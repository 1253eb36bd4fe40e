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

func emit(format string, args ...any) {
	if !dry {
		fmt.Fprintf(&out, "\t"+format+"\n", args...)
	}
}

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
	signSlot = slotSign // the sign mask of the kernel being written
)

func in(slot int) val { return val{slot: slot} }

func newSlot() int { nextSlot++; return nextSlot - 1 }

// The values of a kernel are written twice: a dry run (dry, nothing
// emitted) counts the uses of every slot, then the real run keeps
// computed values in the sixteen YMM registers, least recently used
// first out, and stores one to its slot only when it is evicted while
// still to be used (or flushed): no store and reload on a chain of
// dependent operations. Inputs are read as memory operands.
var (
	dry     bool
	uses    = map[int]int{} // dry run: uses per slot; real run: the uses left
	regSlot [16]int         // slot held by each register, −1 if none
	regUsed [16]int         // time of the register's last use (LRU)
	regDirt [16]bool        // the register's value is not in its slot yet
	clock   int
)

// startKernel resets the slots and registers of a kernel's run.
func startKernel(first, sign int) {
	nextSlot, signSlot = first, sign
	for r := range regSlot {
		regSlot[r], regDirt[r] = -1, false
	}
}

func regOf(slot int) int {
	for r, s := range regSlot {
		if s == slot {
			return r
		}
	}
	return -1
}

// use records a use of a (the dry run counts it, the real run frees a's
// register after its last use).
func use(a val) {
	if dry {
		uses[a.slot]++
		return
	}
	uses[a.slot]--
	if r := regOf(a.slot); r >= 0 {
		regUsed[r] = clock
	}
}

// release frees the registers whose values have no use left.
func release() {
	for r, s := range regSlot {
		if s >= 0 && uses[s] <= 0 {
			regSlot[r], regDirt[r] = -1, false
		}
	}
}

// alloc returns a register not in avoid, free if there is one, else the
// least recently used one, evicted (stored first when still to be used).
func alloc(avoid ...int) int {
	best := -1
	for r := range regSlot {
		avoided := false
		for _, k := range avoid {
			avoided = avoided || k == r
		}
		if avoided {
			continue
		}
		if regSlot[r] < 0 {
			return r
		}
		if best < 0 || regUsed[r] < regUsed[best] {
			best = r
		}
	}
	if regDirt[best] && uses[regSlot[best]] > 0 {
		emit("VMOVUPD %s, %s", y(best), mem(regSlot[best]))
	}
	regSlot[best], regDirt[best] = -1, false
	return best
}

// operand returns the assembly operand of a: its register or its slot.
func operand(a val) string {
	if r := regOf(a.slot); r >= 0 {
		return y(r)
	}
	return mem(a.slot)
}

// define records that register r holds the new value of slot d.
func define(r, d int) {
	clock++
	regSlot[r], regUsed[r], regDirt[r] = d, clock, true
}

// keep marks a as read after the kernel's register-cached part (flush
// stores it).
func keep(a val) {
	if dry && !a.zero {
		uses[a.slot]++ // never consumed: an eviction or flush stores a
	}
}

// flush stores every register still to be used and forgets them all.
func flush() {
	for r, s := range regSlot {
		if s >= 0 && regDirt[r] && uses[s] > 0 {
			emit("VMOVUPD %s, %s", y(r), mem(s))
		}
		regSlot[r], regDirt[r] = -1, false
	}
}

// op emits dst = a OP b lane by lane (one rounding, as Go's a OP b);
// commutative says a and b may be swapped (a product or a sum is the same
// either way).
func opc(name string, a, b val, commutative bool) val {
	d := newSlot()
	use(a)
	use(b)
	if dry {
		return in(d)
	}
	ra, rb := regOf(a.slot), regOf(b.slot)
	if ra < 0 && rb >= 0 && commutative {
		a, b, ra, rb = b, a, rb, ra
	}
	// Operands are read before the destination is written, so the
	// destination may be a register freed by their last use.
	var src string
	if ra >= 0 {
		src = y(ra)
	}
	bop := operand(b)
	release()
	var r int
	if ra >= 0 {
		r = alloc(rb) // may be a's register, read before written
	} else {
		r = alloc(rb) // a is loaded into r first: not b's register
	}
	if ra < 0 {
		emit("VMOVUPD %s, %s", mem(a.slot), y(r))
		src = y(r)
	}
	emit("%s %s, %s, %s", name, bop, src, y(r))
	define(r, d)
	return in(d)
}

func op(name string, a, b val) val { return opc(name, a, b, name == "VADDPD" || name == "VMULPD") }

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
	return opc("VXORPD", a, in(signSlot), true)
}

// unary emits dst = OP a (VSQRTPD: the correctly rounded root, as
// math.Sqrt).
func unary(name string, a val) val {
	d := newSlot()
	use(a)
	if dry {
		return in(d)
	}
	src := operand(a)
	ra := regOf(a.slot)
	release()
	r := alloc(ra)
	emit("%s %s, %s", name, src, y(r))
	define(r, d)
	return in(d)
}

// div emits a / b (neither may be a structural zero).
func div(a, b val) val { return op("VDIVPD", a, b) }

// store copies a to slot (zero: clears it).
func store(a val, slot int) {
	if a.zero {
		if !dry {
			release()
			r := alloc()
			emit("VXORPD %s, %s, %s", y(r), y(r), y(r))
			emit("VMOVUPD %s, %s", y(r), mem(slot))
		}
		return
	}
	use(a)
	if dry {
		return
	}
	if r := regOf(a.slot); r >= 0 {
		emit("VMOVUPD %s, %s", y(r), mem(slot))
		return
	}
	release()
	r := alloc()
	emit("VMOVUPD %s, %s", mem(a.slot), y(r))
	emit("VMOVUPD %s, %s", y(r), mem(slot))
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

// Slots of the force kernel's group (largeForceGroup in large_blocks.go).
const (
	fSlotX     = 0  // the four vertices' positions, 12 slots (3v + r)
	fSlotB     = 12 // Dm⁻¹, 9 slots
	fSlotS     = 21 // −wₑ
	fSlotSign  = 22 // −0.0
	fSlotMu    = 23 // μ
	fSlotLam   = 24 // λ
	fSlotOne   = 25 // 1
	fSlotThree = 26 // 3
	fSlotCC    = 27 // the element's cache out, 27 slots
	fSlotF     = 54 // the corner forces out, 12 slots
	fSlotTmp   = 66 // first scratch slot
	fNumSlots  = 336
)

// forces emits largeForces4: per lane, tetElements.gradientTo, then
// largeLaw.StressCached (largeElement.decompose on its main branch — both
// pivots above minPivot, which the caller checks — and stress) and
// tetElements.nodalForces, operation for operation.
func forces() {
	x := func(v, r int) val { return in(fSlotX + 3*v + r) }
	B := func(i int) val { return in(fSlotB + i) }
	one, three := in(fSlotOne), in(fSlotThree)
	mu, lam := in(fSlotMu), in(fSlotLam)
	// F = Ds Dm⁻¹ (gradientTo).
	var F [9]val
	for r := 0; r < 3; r++ {
		d1, d2, d3 := sub(x(1, r), x(0, r)), sub(x(2, r), x(0, r)), sub(x(3, r), x(0, r))
		for c := 0; c < 3; c++ {
			F[3*r+c] = add(add(mul(d1, B(c)), mul(d2, B(3+c))), mul(d3, B(6+c)))
		}
	}
	// decompose.
	a0, a1, a2 := F[0], F[3], F[6]
	b0, b1, b2 := F[1], F[4], F[7]
	c0, c1, c2 := F[2], F[5], F[8]
	dot := func(p0, p1, p2, q0, q1, q2 val) val { return add(add(mul(p0, q0), mul(p1, q1)), mul(p2, q2)) }
	u00 := unary("VSQRTPD", dot(a0, a1, a2, a0, a1, a2))
	s0 := div(one, u00)
	r00, r10, r20 := mul(a0, s0), mul(a1, s0), mul(a2, s0)
	u01 := dot(r00, r10, r20, b0, b1, b2)
	w0, w1, w2 := sub(b0, mul(u01, r00)), sub(b1, mul(u01, r10)), sub(b2, mul(u01, r20))
	u11 := unary("VSQRTPD", dot(w0, w1, w2, w0, w1, w2))
	s1 := div(one, u11)
	r01, r11, r21 := mul(w0, s1), mul(w1, s1), mul(w2, s1)
	r02 := sub(mul(r10, r21), mul(r20, r11))
	r12 := sub(mul(r20, r01), mul(r00, r21))
	r22 := sub(mul(r00, r11), mul(r10, r01))
	R := [9]val{r00, r01, r02, r10, r11, r12, r20, r21, r22}
	U := [6]val{u00, u01, dot(r00, r10, r20, c0, c1, c2), u11, dot(r01, r11, r21, c0, c1, c2), dot(r02, r12, r22, c0, c1, c2)}
	// stress.
	ui00, ui11 := div(one, U[0]), div(one, U[3])
	Ui := [3]val{ui00, mul(mul(neg(U[1]), ui00), ui11), ui11}
	t := mul(lam, sub(add(add(U[0], U[3]), U[5]), three))
	mu2 := add(mu, mu) // 2μ exactly
	G := [6]val{add(mul(mu2, sub(U[0], one)), t), mul(mu, U[1]), mul(mu, U[2]), add(mul(mu2, sub(U[3], one)), t), mul(mu, U[4]), add(mul(mu2, sub(U[5], one)), t)}
	h10 := add(add(mul(G[1], U[0]), mul(G[3], U[1])), mul(G[4], U[2]))
	h01 := add(mul(G[1], U[3]), mul(G[2], U[4]))
	h20 := add(add(mul(G[2], U[0]), mul(G[4], U[1])), mul(G[5], U[2]))
	h02 := mul(G[2], U[5])
	h21 := add(mul(G[4], U[3]), mul(G[5], U[4]))
	h12 := mul(G[4], U[5])
	a10, a20, a21 := sub(h10, h01), sub(h20, h02), sub(h21, h12)
	Bs := [3]val{mul(a10, ui00), add(mul(a20, ui00), mul(a21, Ui[1])), mul(a21, ui11)}
	Q := [9]val{G[0], G[1], G[2], sub(G[1], Bs[0]), G[3], G[4], sub(G[2], Bs[1]), sub(G[4], Bs[2]), G[5]}
	var P [9]val
	for r := 0; r < 3; r++ {
		for c := 0; c < 3; c++ {
			P[3*r+c] = add(add(mul(R[3*r], Q[c]), mul(R[3*r+1], Q[3+c])), mul(R[3*r+2], Q[6+c]))
		}
	}
	for i, v := range R {
		store(v, fSlotCC+i)
	}
	for i, v := range U {
		store(v, fSlotCC+9+i)
	}
	for i, v := range Ui {
		store(v, fSlotCC+15+i)
	}
	for i, v := range G {
		store(v, fSlotCC+18+i)
	}
	for i, v := range Bs {
		store(v, fSlotCC+24+i)
	}
	// nodalForces with s = −wₑ.
	sw := in(fSlotS)
	for r := 0; r < 3; r++ {
		p0, p1, p2 := mul(sw, P[3*r]), mul(sw, P[3*r+1]), mul(sw, P[3*r+2])
		f1 := dot(p0, p1, p2, B(0), B(1), B(2))
		f2 := dot(p0, p1, p2, B(3), B(4), B(5))
		f3 := dot(p0, p1, p2, B(6), B(7), B(8))
		store(f1, fSlotF+3+r)
		store(f2, fSlotF+6+r)
		store(f3, fSlotF+9+r)
		store(neg(add(add(f1, f2), f3)), fSlotF+r)
	}
}

// kernel returns the assembly of a kernel: body run dry (counting the
// uses of every slot), then for real; first is its first scratch slot,
// sign its sign-mask slot, limit its number of slots.
func kernel(name, group string, first, sign, limit int, body func()) string {
	saved := out.String()
	out.Reset()
	uses = map[int]int{}
	for _, d := range []bool{true, false} {
		dry = d
		startKernel(first, sign)
		emit("MOVQ grp+0(FP), DI")
		body()
		flush()
		emit("VZEROUPPER")
		emit("RET")
	}
	if nextSlot > limit {
		panic(fmt.Sprintf("%s: %d slots, more than the %d of %s", name, nextSlot, limit, group))
	}
	text := fmt.Sprintf("// func %s(grp *%s): %d slots of 32 bytes.\nTEXT ·%s(SB), NOSPLIT, $0-8\n", name, group, nextSlot, name) + out.String()
	out.Reset()
	out.WriteString(saved)
	return text
}

// blocks emits largeBlocks4.
func blocks() {
	Ah := tangent()
	for _, a := range Ah {
		keep(a)
	}
	flush()
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
}

// Slots of the force-differential kernel's group (largeDForceGroup in
// large_blocks.go).
const (
	dSlotX    = 0  // the four vertices' displacements dx, 12 slots (3v + r)
	dSlotB    = 12 // Dm⁻¹, 9 slots
	dSlotCC   = 21 // the element's cache of largeLaw, 27 slots
	dSlotS    = 48 // −wₑ·kFactor
	dSlotSign = 49 // −0.0
	dSlotMu   = 50 // μ
	dSlotLam  = 51 // λ
	dSlotF    = 52 // the corner force differentials out, 12 slots
	dSlotTmp  = 64 // first scratch slot
	dNumSlots = 408
)

// dforces emits largeDForces4: per lane, tetElements.gradientTo of dx,
// largeDStress (tmulTo, largeRotatedDStress, mulTo) and
// tetElements.nodalForces, operation for operation.
func dforces() {
	x := func(v, r int) val { return in(dSlotX + 3*v + r) }
	B := func(i int) val { return in(dSlotB + i) }
	cc := func(i int) val { return in(dSlotCC + i) }
	mu, lam := in(dSlotMu), in(dSlotLam)
	dot := func(p0, p1, p2, q0, q1, q2 val) val { return add(add(mul(p0, q0), mul(p1, q1)), mul(p2, q2)) }
	var dF [9]val
	for r := 0; r < 3; r++ {
		d1, d2, d3 := sub(x(1, r), x(0, r)), sub(x(2, r), x(0, r)), sub(x(3, r), x(0, r))
		for c := 0; c < 3; c++ {
			dF[3*r+c] = dot(d1, d2, d3, B(c), B(3+c), B(6+c))
		}
	}
	// X = Rᵀ dF (tmulTo).
	var X [9]val
	for i := 0; i < 3; i++ {
		for c := 0; c < 3; c++ {
			X[3*i+c] = dot(cc(i), cc(3+i), cc(6+i), dF[c], dF[3+c], dF[6+c])
		}
	}
	// largeRotatedDStress.
	u := func(i int) val { return cc(9 + i) }
	ui := func(i int) val { return cc(15 + i) }
	g := func(i int) val { return cc(18 + i) }
	b := func(i int) val { return cc(24 + i) }
	m10 := mul(X[3], ui(0))
	m20 := mul(X[6], ui(0))
	m21 := add(mul(X[6], ui(1)), mul(X[7], ui(2)))
	du00 := X[0]
	du01 := add(X[1], mul(m10, u(3)))
	du02 := add(add(X[2], mul(m10, u(4))), mul(m20, u(5)))
	du11 := sub(X[4], mul(m10, u(1)))
	du12 := add(sub(X[5], mul(m10, u(2))), mul(m21, u(5)))
	du22 := sub(sub(X[8], mul(m20, u(2))), mul(m21, u(4)))
	mu2 := add(mu, mu) // 2μ exactly
	t := mul(lam, add(add(du00, du11), du22))
	dg00, dg11, dg22 := add(mul(mu2, du00), t), add(mul(mu2, du11), t), add(mul(mu2, du22), t)
	dg01, dg02, dg12 := mul(mu, du01), mul(mu, du02), mul(mu, du12)
	sum := func(ts ...val) val {
		acc := ts[0]
		for _, v := range ts[1:] {
			acc = add(acc, v)
		}
		return acc
	}
	dh10 := sum(mul(dg01, u(0)), mul(dg11, u(1)), mul(dg12, u(2)), mul(g(1), du00), mul(g(3), du01), mul(g(4), du02))
	dh01 := sum(mul(dg01, u(3)), mul(dg02, u(4)), mul(g(1), du11), mul(g(2), du12))
	dh20 := sum(mul(dg02, u(0)), mul(dg12, u(1)), mul(dg22, u(2)), mul(g(2), du00), mul(g(4), du01), mul(g(5), du02))
	dh02 := add(mul(dg02, u(5)), mul(g(2), du22))
	dh21 := sum(mul(dg12, u(3)), mul(dg22, u(4)), mul(g(4), du11), mul(g(5), du12))
	dh12 := add(mul(dg12, u(5)), mul(g(4), du22))
	c10 := sub(sub(dh10, dh01), mul(b(0), du00))
	c20 := sub(sub(sub(dh20, dh02), mul(b(1), du00)), mul(b(2), du01))
	c21 := sub(sub(dh21, dh12), mul(b(2), du11))
	db10 := mul(c10, ui(0))
	db20 := add(mul(c20, ui(0)), mul(c21, ui(1)))
	db21 := mul(c21, ui(2))
	q00, q01, q02 := g(0), g(1), g(2)
	q10, q11, q12 := sub(g(1), b(0)), g(3), g(4)
	q20, q21, q22 := sub(g(2), b(1)), sub(g(4), b(2)), g(5)
	n10 := neg(m10) // Go's −m10*q10 is (−m10)·q10
	T := [9]val{
		add(sub(mul(n10, q10), mul(m20, q20)), dg00),
		add(sub(mul(n10, q11), mul(m20, q21)), dg01),
		add(sub(mul(n10, q12), mul(m20, q22)), dg02),
		sub(add(sub(mul(m10, q00), mul(m21, q20)), dg01), db10),
		add(sub(mul(m10, q01), mul(m21, q21)), dg11),
		add(sub(mul(m10, q02), mul(m21, q22)), dg12),
		sub(add(add(mul(m20, q00), mul(m21, q10)), dg02), db20),
		sub(add(add(mul(m20, q01), mul(m21, q11)), dg12), db21),
		add(add(mul(m20, q02), mul(m21, q12)), dg22),
	}
	// dP = R T (mulTo), then nodalForces with s = −wₑ·kFactor.
	var dP [9]val
	for r := 0; r < 3; r++ {
		for c := 0; c < 3; c++ {
			dP[3*r+c] = dot(cc(3*r), cc(3*r+1), cc(3*r+2), T[c], T[3+c], T[6+c])
		}
	}
	sw := in(dSlotS)
	for r := 0; r < 3; r++ {
		p0, p1, p2 := mul(sw, dP[3*r]), mul(sw, dP[3*r+1]), mul(sw, dP[3*r+2])
		f1 := dot(p0, p1, p2, B(0), B(1), B(2))
		f2 := dot(p0, p1, p2, B(3), B(4), B(5))
		f3 := dot(p0, p1, p2, B(6), B(7), B(8))
		store(f1, dSlotF+3+r)
		store(f2, dSlotF+6+r)
		store(f3, dSlotF+9+r)
		store(neg(add(add(f1, f2), f3)), dSlotF+r)
	}
}

// transpose4 emits the 4×4 transpose of Y0..Y3 (rows) into Y8..Y11.
func transpose4() {
	emit("VUNPCKLPD Y1, Y0, Y4") // A0 B0 A2 B2
	emit("VUNPCKHPD Y1, Y0, Y5") // A1 B1 A3 B3
	emit("VUNPCKLPD Y3, Y2, Y6") // C0 D0 C2 D2
	emit("VUNPCKHPD Y3, Y2, Y7") // C1 D1 C3 D3
	emit("VPERM2F128 $0x20, Y6, Y4, Y8")
	emit("VPERM2F128 $0x20, Y7, Y5, Y9")
	emit("VPERM2F128 $0x31, Y6, Y4, Y10")
	emit("VPERM2F128 $0x31, Y7, Y5, Y11")
}

// lanesText returns func name(dst, src *float64) moving n values per
// element between four elements' consecutive records of stride float64s
// and slots of four lanes: in (toLanes), slot i lane l at dst + 32i + 8l
// gets src[stride·l + i]; out, dst[stride·l + i] gets slot i lane l of
// src. Four values of the four elements at a time, by 4×4 transposes; no
// access outside the n values of each record.
func lanesText(name string, n, stride int, toLanes bool) string {
	saved := out.String()
	out.Reset()
	dry = false
	emit("MOVQ dst+0(FP), DI")
	emit("MOVQ src+8(FP), SI")
	for j := 0; j < n; j += 4 {
		k := min(4, n-j)
		for r := 0; r < 4; r++ {
			if toLanes {
				// Row r: element r's values j … j+k−1.
				off := 8 * (stride*r + j)
				switch k {
				case 4:
					emit("VMOVUPD %d(SI), Y%d", off, r)
				case 3:
					emit("VMOVUPD %d(SI), X%d", off, r)
					emit("VMOVSD %d(SI), X12", off+16)
					emit("VINSERTF128 $1, X12, Y%d, Y%d", r, r)
				case 2:
					emit("VMOVUPD %d(SI), X%d", off, r)
				case 1:
					emit("VMOVSD %d(SI), X%d", off, r)
				}
			} else if r < k {
				emit("VMOVUPD %d(SI), Y%d", 32*(j+r), r) // row r: slot j+r
			} else {
				emit("VXORPD Y%d, Y%d, Y%d", r, r, r)
			}
		}
		transpose4()
		for r := 0; r < 4; r++ {
			if toLanes {
				if r < k {
					emit("VMOVUPD Y%d, %d(DI)", 8+r, 32*(j+r))
				}
				continue
			}
			off := 8 * (stride*r + j) // element r's values j … j+k−1
			switch k {
			case 4:
				emit("VMOVUPD Y%d, %d(DI)", 8+r, off)
			case 3:
				emit("VMOVUPD X%d, %d(DI)", 8+r, off)
				emit("VEXTRACTF128 $1, Y%d, X12", 8+r)
				emit("VMOVSD X12, %d(DI)", off+16)
			case 2:
				emit("VMOVUPD X%d, %d(DI)", 8+r, off)
			case 1:
				emit("VMOVSD X%d, %d(DI)", 8+r, off)
			}
		}
	}
	emit("VZEROUPPER")
	emit("RET")
	text := fmt.Sprintf("// func %s(dst, src *float64)\nTEXT ·%s(SB), NOSPLIT, $0-16\n", name, name) + out.String()
	out.Reset()
	out.WriteString(saved)
	return text
}

func main() {
	blocksText := kernel("largeBlocks4", "largeGroup", slotTmp, slotSign, numSlots, blocks)
	forcesText := kernel("largeForces4", "largeForceGroup", fSlotTmp, fSlotSign, fNumSlots, forces)
	dforcesText := kernel("largeDForces4", "largeDForceGroup", dSlotTmp, dSlotSign, dNumSlots, dforces)
	fmt.Fprintln(&out, "// Code generated by large_blocks_gen.go; DO NOT EDIT.")
	fmt.Fprintln(&out)
	fmt.Fprintln(&out, "#include \"textflag.h\"")
	fmt.Fprintln(&out)
	out.WriteString(blocksText)
	fmt.Fprintln(&out)
	out.WriteString(forcesText)
	fmt.Fprintln(&out)
	out.WriteString(dforcesText)
	fmt.Fprintln(&out)
	for _, f := range []struct {
		name      string
		n, stride int
		toLanes   bool
	}{
		{"lanesIn27", 27, 27, true}, {"lanesIn9", 9, 9, true},
		{"lanesOut27", 27, 27, false}, {"lanesOut12", 12, 12, false},
	} {
		out.WriteString(lanesText(f.name, f.n, f.stride, f.toLanes))
		fmt.Fprintln(&out)
	}
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
