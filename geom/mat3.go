package geom

// Mat3 is a 3×3 matrix stored row-major: M[3*i+j] is row i, column j.
type Mat3 [9]float64

// Identity3 returns the identity matrix.
func Identity3() Mat3 { return Mat3{1, 0, 0, 0, 1, 0, 0, 0, 1} }

// Diag returns the diagonal matrix with d on its diagonal.
func Diag(d Vec3) Mat3 { return Mat3{d[0], 0, 0, 0, d[1], 0, 0, 0, d[2]} }

// Cols builds the matrix whose columns are a, b, c.
func Cols(a, b, c Vec3) Mat3 {
	return Mat3{a[0], b[0], c[0], a[1], b[1], c[1], a[2], b[2], c[2]}
}

// Col returns column j.
func (m Mat3) Col(j int) Vec3 { return Vec3{m[j], m[3+j], m[6+j]} }

// Row returns row i.
func (m Mat3) Row(i int) Vec3 { return Vec3{m[3*i], m[3*i+1], m[3*i+2]} }

// Add returns m + n.
func (m Mat3) Add(n Mat3) Mat3 {
	for i := range m {
		m[i] += n[i]
	}
	return m
}

// Sub returns m − n.
func (m Mat3) Sub(n Mat3) Mat3 {
	for i := range m {
		m[i] -= n[i]
	}
	return m
}

// Scale returns s·m.
func (m Mat3) Scale(s float64) Mat3 {
	for i := range m {
		m[i] *= s
	}
	return m
}

// Mul returns the product m n.
func (m Mat3) Mul(n Mat3) Mat3 {
	return Mat3{
		m[0]*n[0] + m[1]*n[3] + m[2]*n[6], m[0]*n[1] + m[1]*n[4] + m[2]*n[7], m[0]*n[2] + m[1]*n[5] + m[2]*n[8],
		m[3]*n[0] + m[4]*n[3] + m[5]*n[6], m[3]*n[1] + m[4]*n[4] + m[5]*n[7], m[3]*n[2] + m[4]*n[5] + m[5]*n[8],
		m[6]*n[0] + m[7]*n[3] + m[8]*n[6], m[6]*n[1] + m[7]*n[4] + m[8]*n[7], m[6]*n[2] + m[7]*n[5] + m[8]*n[8],
	}
}

// TMul returns mᵀ n.
func (m Mat3) TMul(n Mat3) Mat3 {
	return Mat3{
		m[0]*n[0] + m[3]*n[3] + m[6]*n[6], m[0]*n[1] + m[3]*n[4] + m[6]*n[7], m[0]*n[2] + m[3]*n[5] + m[6]*n[8],
		m[1]*n[0] + m[4]*n[3] + m[7]*n[6], m[1]*n[1] + m[4]*n[4] + m[7]*n[7], m[1]*n[2] + m[4]*n[5] + m[7]*n[8],
		m[2]*n[0] + m[5]*n[3] + m[8]*n[6], m[2]*n[1] + m[5]*n[4] + m[8]*n[7], m[2]*n[2] + m[5]*n[5] + m[8]*n[8],
	}
}

// MulT returns m nᵀ.
func (m Mat3) MulT(n Mat3) Mat3 {
	return Mat3{
		m[0]*n[0] + m[1]*n[1] + m[2]*n[2], m[0]*n[3] + m[1]*n[4] + m[2]*n[5], m[0]*n[6] + m[1]*n[7] + m[2]*n[8],
		m[3]*n[0] + m[4]*n[1] + m[5]*n[2], m[3]*n[3] + m[4]*n[4] + m[5]*n[5], m[3]*n[6] + m[4]*n[7] + m[5]*n[8],
		m[6]*n[0] + m[7]*n[1] + m[8]*n[2], m[6]*n[3] + m[7]*n[4] + m[8]*n[5], m[6]*n[6] + m[7]*n[7] + m[8]*n[8],
	}
}

// MulVec returns m v.
func (m Mat3) MulVec(v Vec3) Vec3 {
	return Vec3{
		m[0]*v[0] + m[1]*v[1] + m[2]*v[2],
		m[3]*v[0] + m[4]*v[1] + m[5]*v[2],
		m[6]*v[0] + m[7]*v[1] + m[8]*v[2],
	}
}

// TMulVec returns mᵀ v.
func (m Mat3) TMulVec(v Vec3) Vec3 {
	return Vec3{
		m[0]*v[0] + m[3]*v[1] + m[6]*v[2],
		m[1]*v[0] + m[4]*v[1] + m[7]*v[2],
		m[2]*v[0] + m[5]*v[1] + m[8]*v[2],
	}
}

// T returns the transpose.
func (m Mat3) T() Mat3 {
	return Mat3{m[0], m[3], m[6], m[1], m[4], m[7], m[2], m[5], m[8]}
}

// Trace returns the sum of the diagonal.
func (m Mat3) Trace() float64 { return m[0] + m[4] + m[8] }

// Det returns the determinant.
func (m Mat3) Det() float64 {
	return m[0]*(m[4]*m[8]-m[5]*m[7]) - m[1]*(m[3]*m[8]-m[5]*m[6]) + m[2]*(m[3]*m[7]-m[4]*m[6])
}

// Cofactor returns the cofactor matrix, det(m)·m⁻ᵀ; it is ∂det/∂m.
func (m Mat3) Cofactor() Mat3 {
	return Mat3{
		m[4]*m[8] - m[5]*m[7], m[5]*m[6] - m[3]*m[8], m[3]*m[7] - m[4]*m[6],
		m[2]*m[7] - m[1]*m[8], m[0]*m[8] - m[2]*m[6], m[1]*m[6] - m[0]*m[7],
		m[1]*m[5] - m[2]*m[4], m[2]*m[3] - m[0]*m[5], m[0]*m[4] - m[1]*m[3],
	}
}

// Inverse returns m⁻¹ and false when m is singular (det = 0).
func (m Mat3) Inverse() (Mat3, bool) {
	d := m.Det()
	if d == 0 {
		return Mat3{}, false
	}
	return m.Cofactor().T().Scale(1 / d), true
}

// Sym returns (m + mᵀ)/2.
func (m Mat3) Sym() Mat3 { return m.Add(m.T()).Scale(0.5) }

// DDot returns the Frobenius inner product m:n = Σ mᵢⱼ nᵢⱼ.
func (m Mat3) DDot(n Mat3) float64 {
	s := 0.0
	for i := range m {
		s += m[i] * n[i]
	}
	return s
}
