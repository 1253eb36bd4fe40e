package geom

import "math"

// Vec3 is a 3-vector.
type Vec3 [3]float64

// Add returns a + b.
func (a Vec3) Add(b Vec3) Vec3 { return Vec3{a[0] + b[0], a[1] + b[1], a[2] + b[2]} }

// Sub returns a − b.
func (a Vec3) Sub(b Vec3) Vec3 { return Vec3{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }

// Scale returns s·a.
func (a Vec3) Scale(s float64) Vec3 { return Vec3{s * a[0], s * a[1], s * a[2]} }

// Dot returns a·b.
func (a Vec3) Dot(b Vec3) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }

// Cross returns a × b.
func (a Vec3) Cross(b Vec3) Vec3 {
	return Vec3{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}

// Norm returns |a|.
func (a Vec3) Norm() float64 { return math.Sqrt(a.Dot(a)) }

// Norm2 returns |a|².
func (a Vec3) Norm2() float64 { return a.Dot(a) }

// Normalized returns a/|a|, or the zero vector when a is zero.
func (a Vec3) Normalized() Vec3 {
	n := a.Norm()
	if n == 0 {
		return Vec3{}
	}
	return a.Scale(1 / n)
}

// Outer returns the outer product a bᵀ.
func (a Vec3) Outer(b Vec3) Mat3 {
	return Mat3{
		a[0] * b[0], a[0] * b[1], a[0] * b[2],
		a[1] * b[0], a[1] * b[1], a[1] * b[2],
		a[2] * b[0], a[2] * b[1], a[2] * b[2],
	}
}

// Skew returns the cross-product matrix [a]× such that [a]× b = a × b.
func (a Vec3) Skew() Mat3 {
	return Mat3{
		0, -a[2], a[1],
		a[2], 0, -a[0],
		-a[1], a[0], 0,
	}
}

// At reads the 3-vector stored at index i of a flat xyz slice.
func At(s []float64, i int) Vec3 { return Vec3{s[3*i], s[3*i+1], s[3*i+2]} }

// Put writes v at index i of a flat xyz slice.
func Put(s []float64, i int, v Vec3) { s[3*i], s[3*i+1], s[3*i+2] = v[0], v[1], v[2] }

// AddAt adds v to index i of a flat xyz slice.
func AddAt(s []float64, i int, v Vec3) {
	s[3*i] += v[0]
	s[3*i+1] += v[1]
	s[3*i+2] += v[2]
}
