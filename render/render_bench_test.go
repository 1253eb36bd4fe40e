package render

import (
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
// 20,000-triangle sphere filling most of the frame, shaded, with the
// ground grid (issue 9, item 5: at most 50 ms on one core; run with
// -cpu 1).
func BenchmarkRender20kTriangles(b *testing.B) {
	m, err := meshio.SphereSurface(1, 100, 101)
	if err != nil {
		b.Fatal(err)
	}
	if len(m.Triangles) != 20000 {
		b.Fatalf("%d triangles", len(m.Triangles))
	}
	s := newMeshSurface(m, [3]float64{0.85, 0.6, 0.35})
	lo, hi := geom.Vec3{-1, -1, -1}, geom.Vec3{1, 1, 1}
	view, err := FitView(lo, hi, nil, geom.Vec3{0.45, 0.35, 1}, geom.Vec3{0, 1, 0}, 30, 800, 600, 0.08)
	if err != nil {
		b.Fatal(err)
	}
	r := NewRenderer(view, Options{Width: 800, Height: 600}, lo, hi, geom.Vec3{0, 1, 0})
	surfaces := []visual.Surface{s}
	b.ReportAllocs()
	for b.Loop() {
		r.Render(surfaces)
	}
}
