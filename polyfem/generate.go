package polyfem

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/sofago/sofago/geom"
)

// HexDominantGrid returns the box [lo, hi] cut into n[0]·n[1]·n[2] cells
// (n cells per axis), each a hexahedron, except the cells whose indices
// (i, j, k) satisfy split(i, j, k), which are cut into six square
// pyramids with their apex at the cell's centre (a new vertex), one on
// each face. The pyramids keep the cell's faces as their bases, so the
// mesh conforms: a neighbour hexahedron sees the same quadrilateral. Grid
// vertex (i, j, k) has index i + (n0+1)(j + (n1+1)k); the centres follow,
// in cell order.
func HexDominantGrid(lo, hi geom.Vec3, n [3]int, split func(i, j, k int) bool) (*Mesh, error) {
	for a := 0; a < 3; a++ {
		if n[a] < 1 || !(hi[a] > lo[a]) {
			return nil, fmt.Errorf("axis %d: %d cells over [%g, %g]", a, n[a], lo[a], hi[a])
		}
	}
	m := &Mesh{}
	nv := [3]int{n[0] + 1, n[1] + 1, n[2] + 1}
	for k := 0; k < nv[2]; k++ {
		for j := 0; j < nv[1]; j++ {
			for i := 0; i < nv[0]; i++ {
				m.Points = append(m.Points,
					lo[0]+(hi[0]-lo[0])*float64(i)/float64(n[0]),
					lo[1]+(hi[1]-lo[1])*float64(j)/float64(n[1]),
					lo[2]+(hi[2]-lo[2])*float64(k)/float64(n[2]))
			}
		}
	}
	idx := func(i, j, k int) int { return i + nv[0]*(j+nv[1]*k) }
	for k := 0; k < n[2]; k++ {
		for j := 0; j < n[1]; j++ {
			for i := 0; i < n[0]; i++ {
				h := [8]int{idx(i, j, k), idx(i+1, j, k), idx(i+1, j+1, k), idx(i, j+1, k),
					idx(i, j, k+1), idx(i+1, j, k+1), idx(i+1, j+1, k+1), idx(i, j+1, k+1)}
				hc := HexCell(h)
				if split == nil || !split(i, j, k) {
					m.Cells = append(m.Cells, hc)
					continue
				}
				var c geom.Vec3
				for _, v := range h {
					c = c.Add(geom.At(m.Points, v))
				}
				c = c.Scale(1.0 / 8)
				apex := m.NumPoints()
				m.Points = append(m.Points, c[0], c[1], c[2])
				for _, base := range hc.Faces {
					faces := [][]int{base}
					for q := range base {
						faces = append(faces, []int{base[(q+1)%4], base[q], apex})
					}
					m.Cells = append(m.Cells, Cell{Faces: faces})
				}
			}
		}
	}
	return m, nil
}

// Checkerboard is a split rule for HexDominantGrid: the cells with i + j
// + k even.
func Checkerboard(i, j, k int) bool { return (i+j+k)%2 == 0 }

// clipFace is a face of a polyhedron being clipped: its polygon and the
// label of the plane it lies on (a seed index ≥ 0, or −1 − side for the
// box sides).
type clipFace struct {
	pts   []geom.Vec3
	label int
}

// clipPolyhedron cuts the convex polyhedron faces by the half-space
// (x − p)·d ≤ 0, adding the cap face labelled label. It returns the new
// faces (nil when nothing is left).
func clipPolyhedron(faces []clipFace, p, d geom.Vec3, label int, eps float64) []clipFace {
	side := func(x geom.Vec3) float64 { return x.Sub(p).Dot(d) }
	var out []clipFace
	var cut []geom.Vec3
	changed := false
	for _, f := range faces {
		var poly []geom.Vec3
		k := len(f.pts)
		for i := 0; i < k; i++ {
			a, b := f.pts[i], f.pts[(i+1)%k]
			sa, sb := side(a), side(b)
			if sa <= eps {
				poly = append(poly, a)
			} else {
				changed = true
			}
			if (sa < -eps && sb > eps) || (sa > eps && sb < -eps) {
				t := sa / (sa - sb)
				x := a.Add(b.Sub(a).Scale(t))
				poly = append(poly, x)
				cut = append(cut, x)
			} else if math.Abs(sa) <= eps {
				cut = append(cut, a)
			}
		}
		if len(poly) >= 3 {
			out = append(out, clipFace{pts: poly, label: f.label})
		}
	}
	if !changed {
		return faces
	}
	// The cap: the cut points, ordered around their centre in the plane,
	// counter-clockwise seen along d (outward).
	if len(cut) >= 3 {
		var c geom.Vec3
		for _, x := range cut {
			c = c.Add(x)
		}
		c = c.Scale(1 / float64(len(cut)))
		u := cut[0].Sub(c)
		for _, x := range cut {
			if x.Sub(c).Norm() > u.Norm() {
				u = x.Sub(c)
			}
		}
		u = u.Normalized()
		dn := d.Normalized()
		v := dn.Cross(u)
		sort.Slice(cut, func(i, j int) bool {
			ai := math.Atan2(cut[i].Sub(c).Dot(v), cut[i].Sub(c).Dot(u))
			aj := math.Atan2(cut[j].Sub(c).Dot(v), cut[j].Sub(c).Dot(u))
			return ai < aj
		})
		// Drop duplicates (a vertex on the plane is cut by two faces).
		var cap []geom.Vec3
		for _, x := range cut {
			if len(cap) == 0 || x.Sub(cap[len(cap)-1]).Norm() > eps {
				cap = append(cap, x)
			}
		}
		if len(cap) > 1 && cap[0].Sub(cap[len(cap)-1]).Norm() <= eps {
			cap = cap[:len(cap)-1]
		}
		if len(cap) >= 3 {
			out = append(out, clipFace{pts: cap, label: label})
		}
	}
	return out
}

// Voronoi returns the Voronoi cells of the seeds (flat xyz) clipped to
// the box [lo, hi]: cell i holds the points of the box closer to seed i
// than to any other. Each cell is the box cut by the bisector half-spaces
// of the other seeds, nearest first, until the next seed is farther than
// twice the cell's radius (no farther bisector can cut it). Vertices
// computed by neighbouring cells are welded within 1e-9 of the box's
// diagonal, so common faces share their vertices; a weld that leaves a
// face of the mesh unmatched (seeds in degenerate position, e.g. on a
// grid) is an error. Seeds must lie inside the box and be distinct.
func Voronoi(seeds []float64, lo, hi geom.Vec3) (*Mesh, error) {
	ns := len(seeds) / 3
	if ns < 1 {
		return nil, fmt.Errorf("no seeds")
	}
	diag := hi.Sub(lo).Norm()
	eps := 1e-12 * diag
	for i := 0; i < ns; i++ {
		s := geom.At(seeds, i)
		for a := 0; a < 3; a++ {
			if !(s[a] > lo[a] && s[a] < hi[a]) {
				return nil, fmt.Errorf("seed %d at %v is not inside the box", i, s)
			}
		}
	}
	box := func() []clipFace {
		c := [8]geom.Vec3{}
		for b := 0; b < 8; b++ {
			r := geom.HexRef[b]
			for a := 0; a < 3; a++ {
				if r[a] < 0 {
					c[b][a] = lo[a]
				} else {
					c[b][a] = hi[a]
				}
			}
		}
		hc := HexCell([8]int{0, 1, 2, 3, 4, 5, 6, 7})
		// HexCell's faces: −z, +z, −y, +x, +y, −x → labels −1 − side.
		var fs []clipFace
		for k, f := range hc.Faces {
			fs = append(fs, clipFace{pts: []geom.Vec3{c[f[0]], c[f[1]], c[f[2]], c[f[3]]}, label: -1 - k})
		}
		return fs
	}
	order := make([]int, ns)
	dist := make([]float64, ns)
	cells := make([][]clipFace, ns)
	for i := 0; i < ns; i++ {
		si := geom.At(seeds, i)
		for j := range order {
			order[j] = j
			dist[j] = geom.At(seeds, j).Sub(si).Norm()
		}
		sort.Slice(order, func(a, b int) bool { return dist[order[a]] < dist[order[b]] })
		faces := box()
		for _, j := range order {
			if j == i {
				continue
			}
			if dist[j] == 0 {
				return nil, fmt.Errorf("seeds %d and %d coincide", i, j)
			}
			r := 0.0
			for _, f := range faces {
				for _, x := range f.pts {
					r = math.Max(r, x.Sub(si).Norm())
				}
			}
			if dist[j] > 2*r {
				break
			}
			sj := geom.At(seeds, j)
			faces = clipPolyhedron(faces, si.Add(sj).Scale(0.5), sj.Sub(si), j, eps)
		}
		cells[i] = faces
	}
	// Weld vertices on a hash grid of cells of the weld tolerance.
	tol := 1e-9 * diag
	m := &Mesh{}
	grid := map[[3]int64][]int{}
	key := func(x geom.Vec3) [3]int64 {
		return [3]int64{int64(math.Floor(x[0] / tol)), int64(math.Floor(x[1] / tol)), int64(math.Floor(x[2] / tol))}
	}
	vertex := func(x geom.Vec3) int {
		k := key(x)
		for dx := int64(-1); dx <= 1; dx++ {
			for dy := int64(-1); dy <= 1; dy++ {
				for dz := int64(-1); dz <= 1; dz++ {
					for _, v := range grid[[3]int64{k[0] + dx, k[1] + dy, k[2] + dz}] {
						if geom.At(m.Points, v).Sub(x).Norm() <= tol {
							return v
						}
					}
				}
			}
		}
		v := m.NumPoints()
		m.Points = append(m.Points, x[0], x[1], x[2])
		grid[k] = append(grid[k], v)
		return v
	}
	labels := make([][]int, ns)
	for i, faces := range cells {
		var c Cell
		for _, f := range faces {
			var idx []int
			for _, x := range f.pts {
				v := vertex(x)
				if len(idx) == 0 || idx[len(idx)-1] != v {
					idx = append(idx, v)
				}
			}
			if len(idx) > 1 && idx[0] == idx[len(idx)-1] {
				idx = idx[:len(idx)-1]
			}
			if len(idx) >= 3 {
				c.Faces = append(c.Faces, idx)
				labels[i] = append(labels[i], f.label)
			}
		}
		m.Cells = append(m.Cells, c)
	}
	// Conformity: cell i's face towards j holds the vertices of j's face
	// towards i.
	for i, c := range m.Cells {
		for k, f := range c.Faces {
			j := labels[i][k]
			if j < 0 {
				continue
			}
			kk := slices.Index(labels[j], i)
			if kk < 0 {
				return nil, fmt.Errorf("cells %d and %d: a face of %d towards %d has no counterpart (degenerate seeds?)", i, j, i, j)
			}
			a, b := slices.Clone(f), slices.Clone(m.Cells[j].Faces[kk])
			slices.Sort(a)
			slices.Sort(b)
			if !slices.Equal(a, b) {
				return nil, fmt.Errorf("cells %d and %d: their common face has vertices %v and %v after welding (degenerate seeds?)", i, j, a, b)
			}
		}
	}
	return m, nil
}

// CellCentroid returns the centroid (centre of volume) of cell e.
func (m *Mesh) CellCentroid(e int) geom.Vec3 {
	var c geom.Vec3
	vol := 0.0
	for _, t := range m.subTets(e) {
		v := t[1].Sub(t[0]).Dot(t[2].Sub(t[0]).Cross(t[3].Sub(t[0]))) / 6
		c = c.Add(t[0].Add(t[1]).Add(t[2]).Add(t[3]).Scale(v / 4))
		vol += v
	}
	return c.Scale(1 / vol)
}

// LloydVoronoi returns the Voronoi cells (Voronoi) of the seeds after
// iterations steps of Lloyd's relaxation (each seed moved to the centroid
// of its cell): a centroidal Voronoi tessellation in the limit, whose
// cells are rounder and have far fewer very short edges than those of
// random seeds, which the harmonic shape functions need (a shape
// function falls from 1 to 0 along an edge, so an edge much shorter than
// its cell gives it a gradient that the fundamental solutions, centred
// away from the cell, cannot follow).
func LloydVoronoi(seeds []float64, lo, hi geom.Vec3, iterations int) (*Mesh, error) {
	s := slices.Clone(seeds)
	for it := 0; ; it++ {
		m, err := Voronoi(s, lo, hi)
		if err != nil || it == iterations {
			return m, err
		}
		for e := range m.Cells {
			c := m.CellCentroid(e)
			s[3*e], s[3*e+1], s[3*e+2] = c[0], c[1], c[2]
		}
	}
}

// JitteredBCC returns seeds on a body-centred cubic lattice of spacing
// (hi − lo)/n over the box [lo, hi] (cube corners at lo + (i + ⅛)·h and
// centres at lo + (i + ⅝)·h, the points inside the box), each moved by a
// uniform random offset of up to jitter·h along each axis (random
// numbers from seed). The Voronoi cells of the lattice are truncated
// octahedra with all edges of one length; the ⅛ shift keeps their
// vertices off the box's faces (on an unshifted lattice the box would cut
// exactly through vertices, leaving slivers after the jitter), and a
// small jitter keeps every edge comparable to the cell size, unlike
// uniformly random seeds, whose cells have edges down to a thousandth of
// their size, along which a harmonic shape function must fall from 1 to
// 0 (the fundamental solutions, centred away from the cell, cannot
// follow such a gradient: see FitElement's FitError).
func JitteredBCC(lo, hi geom.Vec3, n [3]int, jitter float64, seed uint64) []float64 {
	rng := newRand(seed)
	h := geom.Vec3{(hi[0] - lo[0]) / float64(n[0]), (hi[1] - lo[1]) / float64(n[1]), (hi[2] - lo[2]) / float64(n[2])}
	var s []float64
	for k := -1; k <= n[2]; k++ {
		for j := -1; j <= n[1]; j++ {
			for i := -1; i <= n[0]; i++ {
				for _, off := range []float64{0.125, 0.625} {
					p := geom.Vec3{lo[0] + (float64(i)+off)*h[0], lo[1] + (float64(j)+off)*h[1], lo[2] + (float64(k)+off)*h[2]}
					in := true
					for a := 0; a < 3; a++ {
						in = in && p[a] > lo[a] && p[a] < hi[a]
					}
					if !in {
						continue
					}
					for a := 0; a < 3; a++ {
						p[a] += jitter * h[a] * (2*rng.Float64() - 1)
						p[a] = math.Min(math.Max(p[a], lo[a]+1e-3*h[a]), hi[a]-1e-3*h[a])
					}
					s = append(s, p[0], p[1], p[2])
				}
			}
		}
	}
	return s
}
