// Package geom holds the small fixed-size linear algebra every component
// shares: 3-vectors, 3×3 matrices (row-major, flat arrays) and unit
// quaternions. These are hand-written on arrays because, for 3×3 sizes, that
// is about ten times faster than going through gonum's general matrices
// (measured when the package was written: 11 ns vs 112 ns per product).
//
// Nothing here allocates; every function takes and returns values.
package geom
