package render

import (
	"syscall"
	"testing"

	"github.com/sofago/sofago/components/visual"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/meshio"
)

// meshSurface is a fixed triangle surface for tests and benchmarks.
type meshSurface struct {
	graph.ObjectBase
	points  []float64
	tris    [][3]int
	normals []float64
	color   [3]float64
}

func newMeshSurface(m *meshio.Mesh, color [3]float64) *meshSurface {
	s := &meshSurface{ObjectBase: graph.ObjectBase{Name: "surface"}, points: m.Points, tris: m.Triangles, color: color}
	s.normals = make([]float64, len(m.Points))
	visual.VertexNormals(s.normals, s.points, s.tris)
	return s
}

func (s *meshSurface) SurfaceMesh() ([]float64, [][3]int, []float64) {
	return s.points, s.tris, s.normals
}
func (s *meshSurface) SurfaceColor() [3]float64 { return s.color }

// BenchmarkRender20kTriangles measures one 800×600 picture of a
// 20,000-triangle sphere whose outline fills 90% of the picture's height
// (about 220,000 shaded pixels), with the ground grid (issue 9, item 5: at
// most 50 ms on one core; run with -cpu 1). The renderer is
// single-threaded whatever GOMAXPROCS is. The Wireframe variant also draws
// the 30,000 edges.
func BenchmarkRender20kTriangles(b *testing.B) {
	for _, wire := range []bool{false, true} {
		name := "Shaded"
		if wire {
			name = "Wireframe"
		}
		b.Run(name, func(b *testing.B) {
			m, err := meshio.SphereSurface(1, 100, 101)
			if err != nil {
				b.Fatal(err)
			}
			if len(m.Triangles) != 20000 {
				b.Fatalf("%d triangles", len(m.Triangles))
			}
			s := newMeshSurface(m, [3]float64{0.85, 0.6, 0.35})
			// Radius 1 seen from distance d under a 30° field of view spans
			// 2·asin(1/d) of it: 90% at d = 1/sin(0.9·15°) = 4.28.
			view, err := NewView(geom.Vec3{0, 0, 4.28}, geom.Vec3{}, geom.Vec3{0, 1, 0}, 30, 800, 600, 1, 20)
			if err != nil {
				b.Fatal(err)
			}
			r := NewRenderer(view, Options{Width: 800, Height: 600, Wireframe: wire}, geom.Vec3{-1, -1, -1}, geom.Vec3{1, 1, 1}, geom.Vec3{0, 1, 0})
			surfaces := []visual.Surface{s}
			img := r.Render(surfaces)
			shaded := 0
			for i := 0; i < len(img.Pix); i += 4 {
				if img.Pix[i] != img.Pix[i+1] {
					shaded++ // surface pixels are orange, the rest grey
				}
			}
			if !wire && shaded < 200000 {
				b.Fatalf("only %d shaded pixels", shaded)
			}
			b.ReportAllocs()
			cpu0 := processCPU()
			n := 0
			for b.Loop() {
				r.Render(surfaces)
				n++
			}
			// CPU time of the process per picture: on a shared machine the
			// wall time per op counts the time other processes held the
			// core; this does not (with -cpu 1 the process runs one thread
			// of Go code, plus a little garbage collection).
			b.ReportMetric(float64(processCPU()-cpu0)/1e6/float64(n), "cpu-ms/op")
		})
	}
}

// processCPU returns the user + system CPU time of the process, in ns.
func processCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
