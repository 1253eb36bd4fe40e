package reduced

import (
	"math/rand/v2"
)

// kuhnBar is VegaFEM's reference bar generator (testdata/vega/README.md):
// nx×ny×nz cubes over lx×ly×lz, 6 Kuhn tetrahedra per cube, positively
// oriented; vertex (i, j, k) has index i + (nx+1)(j + (ny+1)k).
func kuhnBar(nx, ny, nz int, lx, ly, lz float64) Mesh {
	var m Mesh
	for k := 0; k <= nz; k++ {
		for j := 0; j <= ny; j++ {
			for i := 0; i <= nx; i++ {
				m.Points = append(m.Points, float64(i)*lx/float64(nx), float64(j)*ly/float64(ny), float64(k)*lz/float64(nz))
			}
		}
	}
	vid := func(c [3]int) int { return c[0] + (nx+1)*(c[1]+(ny+1)*c[2]) }
	perms := [6][3]int{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}
	for ck := 0; ck < nz; ck++ {
		for cj := 0; cj < ny; cj++ {
			for ci := 0; ci < nx; ci++ {
				for _, p := range perms {
					c := [3]int{ci, cj, ck}
					var t [4]int
					t[0] = vid(c)
					for s := 0; s < 3; s++ {
						c[p[s]]++
						t[s+1] = vid(c)
					}
					if orient(m.Points, t) < 0 {
						t[2], t[3] = t[3], t[2]
					}
					m.Tets = append(m.Tets, t)
				}
			}
		}
	}
	return m
}

func orient(p []float64, t [4]int) float64 {
	var d [3][3]float64
	for s := 1; s < 4; s++ {
		for c := 0; c < 3; c++ {
			d[s-1][c] = p[3*t[s]+c] - p[3*t[0]+c]
		}
	}
	// (t3−t0)·((t1−t0)×(t2−t0))
	cx := d[0][1]*d[1][2] - d[0][2]*d[1][1]
	cy := d[0][2]*d[1][0] - d[0][0]*d[1][2]
	cz := d[0][0]*d[1][1] - d[0][1]*d[1][0]
	return d[2][0]*cx + d[2][1]*cy + d[2][2]*cz
}

// randomBasis returns a basis of r random vectors with entries in
// [−scale, scale], zero at the vertices with z = 0 (clamped end).
func randomBasis(m Mesh, r int, scale float64, seed uint64) *Basis {
	rng := rand.New(rand.NewPCG(seed, 7))
	n3 := len(m.Points)
	b := &Basis{R: r, U: make([]float64, n3*r)}
	for row := 0; row < n3; row++ {
		if m.Points[3*(row/3)+2] == 0 {
			continue
		}
		for j := 0; j < r; j++ {
			b.U[row*r+j] = scale * (2*rng.Float64() - 1)
		}
	}
	return b
}
