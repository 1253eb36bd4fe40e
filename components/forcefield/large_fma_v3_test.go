//go:build amd64.v3 || !amd64

package forcefield

// goFusesMultiplyAdd: the compiler may fuse x*y + z into one rounding
// (GOAMD64=v3 and the other architectures with FMA), so the scalar element
// matrices may differ from the AVX kernel's in the last bits.
const goFusesMultiplyAdd = true
