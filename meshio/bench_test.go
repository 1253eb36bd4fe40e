package meshio

import (
	"fmt"
	"path/filepath"
	"testing"
)

// benchGrid returns an n×n×n-cube grid mesh, six tetrahedra per cube
// (6n³ tetrahedra, orientation not fixed: only reading is timed), and the
// 4n² triangles of its faces z = 0 and z = n.
func benchGrid(n int) *Mesh {
	m := &Mesh{}
	idx := func(i, j, k int) int { return i + (n+1)*(j+(n+1)*k) }
	for k := 0; k <= n; k++ {
		for j := 0; j <= n; j++ {
			for i := 0; i <= n; i++ {
				m.Points = append(m.Points, float64(i)/3, float64(j)/7, float64(k)/11)
			}
		}
	}
	for k := 0; k < n; k++ {
		for j := 0; j < n; j++ {
			for i := 0; i < n; i++ {
				a, h := idx(i, j, k), idx(i+1, j+1, k+1)
				for _, p := range [6][2]int{{idx(i+1, j, k), idx(i+1, j+1, k)}, {idx(i+1, j, k), idx(i+1, j, k+1)},
					{idx(i, j+1, k), idx(i+1, j+1, k)}, {idx(i, j+1, k), idx(i, j+1, k+1)},
					{idx(i, j, k+1), idx(i+1, j, k+1)}, {idx(i, j, k+1), idx(i, j+1, k+1)}} {
					m.Tetrahedra = append(m.Tetrahedra, [4]int{a, p[0], p[1], h})
				}
			}
		}
	}
	for j := 0; j < n; j++ {
		for i := 0; i < n; i++ {
			for _, k := range []int{0, n} {
				m.Triangles = append(m.Triangles, [3]int{idx(i, j, k), idx(i+1, j, k), idx(i+1, j+1, k)}, [3]int{idx(i, j, k), idx(i+1, j+1, k), idx(i, j+1, k)})
			}
		}
	}
	return m
}

// BenchmarkReadMeshFile reads a 20³-cube grid (9,261 points, 48,000
// tetrahedra, 800 triangles) from each format, the way MeshLoader does.
func BenchmarkReadMeshFile(b *testing.B) {
	m := benchGrid(20)
	dir := b.TempDir()
	for _, c := range []struct{ name, file string }{
		{"msh4.1", "grid.msh"}, {"msh2.2", "grid22.msh"}, {"vtk", "grid.vtk"}, {"vtu", "grid.vtu"}, {"tetgen", "grid.node"}, {"veg", "grid.veg"},
	} {
		path := filepath.Join(dir, c.file)
		mm := *m
		var err error
		switch c.name {
		case "msh2.2":
			err = WriteMSH(path, &mm, "2.2")
		case "veg":
			mm.Triangles = nil
			err = Write(path, &mm)
		default:
			err = Write(path, &mm)
		}
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				got, err := Read(path)
				if err != nil {
					b.Fatal(err)
				}
				if len(got.Tetrahedra) != len(m.Tetrahedra) {
					b.Fatal(fmt.Sprint(len(got.Tetrahedra)))
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(m.Tetrahedra)), "ns/tet")
		})
	}
}
