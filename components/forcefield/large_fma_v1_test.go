//go:build amd64 && !amd64.v3

package forcefield

// goFusesMultiplyAdd: below GOAMD64=v3 the compiler rounds every product
// and sum, as the AVX kernel does.
const goFusesMultiplyAdd = false
