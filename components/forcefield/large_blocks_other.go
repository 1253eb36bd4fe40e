//go:build !amd64

package forcefield

// Without the AVX kernel (large_blocks_amd64.s) the element matrices of
// method "large" are computed one by one (largeElementMatrix).
var useLargeAVX = false

func largeBlocks4(*largeGroup) { panic("forcefield: largeBlocks4 without AVX") }

func largeForces4(*largeForceGroup) { panic("forcefield: largeForces4 without AVX") }

func largeDForces4(*largeDForceGroup) { panic("forcefield: largeDForces4 without AVX") }

func lanesIn27(dst, src *float64)  { panic("forcefield: lanesIn27 without AVX") }
func lanesIn9(dst, src *float64)   { panic("forcefield: lanesIn9 without AVX") }
func lanesOut27(dst, src *float64) { panic("forcefield: lanesOut27 without AVX") }
func lanesOut12(dst, src *float64) { panic("forcefield: lanesOut12 without AVX") }
