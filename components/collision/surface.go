package collision

import (
	"fmt"
	"math"

	"github.com/sofago/sofago/geom"
)

// Features of a triangle where its closest point to a query point lies.
const (
	featFace  int8 = iota
	featVert0      // vertex 0 (vertices 1, 2 follow)
	featVert1
	featVert2
	featEdge01 // edge v0v1 (local edge 0); v1v2 and v2v0 follow
	featEdge12
	featEdge20
)

// closestOnTriangle returns the point of triangle (a, b, c) closest to p,
// its barycentric weights w (q = w0 a + w1 b + w2 c) and the feature it lies
// on (Ericson, "Real-Time Collision Detection", 2005, §5.1.5: Voronoi
// regions tested in turn). A degenerate (zero-area) triangle falls back to
// its nearest vertex or edge through the same tests.
func closestOnTriangle(p, a, b, c geom.Vec3) (q geom.Vec3, w [3]float64, feat int8) {
	ab, ac, ap := b.Sub(a), c.Sub(a), p.Sub(a)
	d1, d2 := ab.Dot(ap), ac.Dot(ap)
	if d1 <= 0 && d2 <= 0 {
		return a, [3]float64{1, 0, 0}, featVert0
	}
	bp := p.Sub(b)
	d3, d4 := ab.Dot(bp), ac.Dot(bp)
	if d3 >= 0 && d4 <= d3 {
		return b, [3]float64{0, 1, 0}, featVert1
	}
	vc := d1*d4 - d3*d2
	if vc <= 0 && d1 >= 0 && d3 <= 0 {
		v := d1 / (d1 - d3)
		return a.Add(ab.Scale(v)), [3]float64{1 - v, v, 0}, featEdge01
	}
	cp := p.Sub(c)
	d5, d6 := ab.Dot(cp), ac.Dot(cp)
	if d6 >= 0 && d5 <= d6 {
		return c, [3]float64{0, 0, 1}, featVert2
	}
	vb := d5*d2 - d1*d6
	if vb <= 0 && d2 >= 0 && d6 <= 0 {
		v := d2 / (d2 - d6)
		return a.Add(ac.Scale(v)), [3]float64{1 - v, 0, v}, featEdge20
	}
	va := d3*d6 - d5*d4
	if va <= 0 && d4-d3 >= 0 && d5-d6 >= 0 {
		v := (d4 - d3) / ((d4 - d3) + (d5 - d6))
		return b.Add(c.Sub(b).Scale(v)), [3]float64{0, 1 - v, v}, featEdge12
	}
	den := va + vb + vc
	if !(den > 0) {
		return a, [3]float64{1, 0, 0}, featVert0 // degenerate: nothing better defined
	}
	v, u := vb/den, vc/den
	return a.Add(ab.Scale(v)).Add(ac.Scale(u)), [3]float64{1 - v - u, v, u}, featFace
}

// surface is the connectivity of a closed, consistently oriented triangle
// surface over the DOFs of a Vec3 state: the triangles (DOF indices), the
// distinct vertices, and the adjacency the pseudo-normals need. It does not
// hold positions: every query takes the current coordinates x.
//
// Inside/outside comes from the angle-weighted pseudo-normals of
// Bærentzen & Aanæs ("Signed distance computation using the angle weighted
// pseudonormal", IEEE TVCG 11(3), 2005): for the closest surface point c of
// p on feature F (a face, an edge or a vertex), p is inside iff
// (p − c)·N_F < 0, N_F the face normal, the sum of the two face normals of
// an edge, or the angle-weighted sum of the face normals around a vertex.
// That is exact for a closed 2-manifold, and costs nothing beyond the
// closest-point query.
type surface struct {
	tris  [][3]int32
	verts []int32 // distinct DOFs used by the triangles, increasing
	// vertTris lists the triangles around each DOF (CSR by DOF index).
	vtStart []int32
	vtList  []int32
	// triEdge[t][e] is the edge index of local edge e (v_e v_{e+1}).
	triEdge  [][3]int32
	edgeTris [][2]int32
	// neighbours of each DOF (CSR), for self-contact exclusion.
	nbStart []int32
	nbList  []int32
	// Vertex pseudo-normals computed since the last newPositions (a vertex
	// of high valence, a pole, is the feature of many contacts).
	vnCache []geom.Vec3
	vnStamp []uint32
	stamp   uint32
}

// newSurface builds the connectivity of triangles over a state of n DOFs
// and checks that the surface is closed and consistently oriented (every
// edge shared by exactly two triangles that run it in opposite
// directions): penetration is measured against the volume it encloses.
func newSurface(tris [][3]int, n int) (*surface, error) {
	if len(tris) == 0 {
		return nil, fmt.Errorf("no triangles")
	}
	s := &surface{tris: make([][3]int32, len(tris))}
	count := make([]int32, n+1)
	used := make([]bool, n)
	for t, tr := range tris {
		for e, v := range tr {
			if v < 0 || v >= n {
				return nil, fmt.Errorf("triangle %d %v: vertex %d is out of range (the state has %d DOFs)", t, tr, v, n)
			}
			s.tris[t][e] = int32(v)
			count[v+1]++
			used[v] = true
		}
		if tr[0] == tr[1] || tr[1] == tr[2] || tr[0] == tr[2] {
			return nil, fmt.Errorf("triangle %d %v repeats a vertex", t, tr)
		}
	}
	for v := 0; v < n; v++ {
		if used[v] {
			s.verts = append(s.verts, int32(v))
		}
		count[v+1] += count[v]
	}
	s.vtStart = count
	s.vtList = make([]int32, count[n])
	fill := append([]int32(nil), count[:n]...)
	for t, tr := range s.tris {
		for _, v := range tr {
			s.vtList[fill[v]] = int32(t)
			fill[v]++
		}
	}
	// Edges: key (min, max); directed use recorded to check orientation.
	type edgeUse struct {
		id       int32
		fwd, bwd int32 // triangles running it min→max and max→min (−1: none yet)
	}
	edges := make(map[[2]int32]*edgeUse, 3*len(tris)/2)
	s.triEdge = make([][3]int32, len(tris))
	for t, tr := range s.tris {
		for e := 0; e < 3; e++ {
			a, b := tr[e], tr[(e+1)%3]
			key, fwd := [2]int32{a, b}, true
			if a > b {
				key, fwd = [2]int32{b, a}, false
			}
			u := edges[key]
			if u == nil {
				u = &edgeUse{id: int32(len(s.edgeTris)), fwd: -1, bwd: -1}
				edges[key] = u
				s.edgeTris = append(s.edgeTris, [2]int32{-1, -1})
			}
			slot := &u.bwd
			if fwd {
				slot = &u.fwd
			}
			if *slot >= 0 {
				return nil, fmt.Errorf("triangles %d and %d both run edge (%d, %d) in the same direction: the surface is not consistently oriented or not a manifold", *slot, t, a, b)
			}
			*slot = int32(t)
			s.edgeTris[u.id] = [2]int32{u.fwd, u.bwd}
			s.triEdge[t][e] = u.id
		}
	}
	for key, u := range edges {
		if u.fwd < 0 || u.bwd < 0 {
			return nil, fmt.Errorf("edge (%d, %d) belongs to one triangle only: the surface is not closed (contact needs the volume it encloses)", key[0], key[1])
		}
	}
	// Vertex neighbours.
	s.nbStart = make([]int32, n+1)
	var nb []int32
	for v := 0; v < n; v++ {
		s.nbStart[v] = int32(len(nb))
		start := len(nb)
		for _, t := range s.vtList[s.vtStart[v]:s.vtStart[v+1]] {
			for _, w := range s.tris[t] {
				if w == int32(v) {
					continue
				}
				dup := false
				for _, u := range nb[start:] {
					dup = dup || u == w
				}
				if !dup {
					nb = append(nb, w)
				}
			}
		}
	}
	s.nbStart[n] = int32(len(nb))
	s.nbList = nb
	return s, nil
}

// corners returns the coordinates of triangle t.
func (s *surface) corners(t int32, x []float64) (a, b, c geom.Vec3) {
	tr := s.tris[t]
	return geom.At(x, int(tr[0])), geom.At(x, int(tr[1])), geom.At(x, int(tr[2]))
}

// faceNormal returns the unit outward normal of triangle t.
func (s *surface) faceNormal(t int32, x []float64) geom.Vec3 {
	a, b, c := s.corners(t, x)
	return b.Sub(a).Cross(c.Sub(a)).Normalized()
}

// pseudoNormal returns the (unnormalised) pseudo-normal of the feature feat
// of triangle t: the face normal, the sum of the two face normals of an
// edge, or the angle-weighted sum of the face normals around a vertex.
func (s *surface) pseudoNormal(t int32, feat int8, x []float64) geom.Vec3 {
	switch {
	case feat == featFace:
		return s.faceNormal(t, x)
	case feat >= featEdge01:
		et := s.edgeTris[s.triEdge[t][feat-featEdge01]]
		return s.faceNormal(et[0], x).Add(s.faceNormal(et[1], x))
	}
	v := s.tris[t][feat-featVert0]
	if s.vnStamp == nil {
		return s.vertexNormal(v, x)
	}
	if s.vnStamp[v] != s.stamp {
		s.vnCache[v], s.vnStamp[v] = s.vertexNormal(v, x), s.stamp
	}
	return s.vnCache[v]
}

// newPositions tells the surface that its positions changed (cached
// vertex normals are stale); it starts caching them.
func (s *surface) newPositions() {
	if s.vnStamp == nil {
		s.vnStamp = make([]uint32, len(s.vtStart)-1)
		s.vnCache = make([]geom.Vec3, len(s.vtStart)-1)
	}
	s.stamp++
}

// vertexNormal returns the angle-weighted pseudo-normal of DOF v
// (unnormalised): Σ over its triangles of the angle at v times the unit
// face normal.
func (s *surface) vertexNormal(v int32, x []float64) geom.Vec3 {
	p := geom.At(x, int(v))
	var n geom.Vec3
	for _, u := range s.vtList[s.vtStart[v]:s.vtStart[v+1]] {
		tr := s.tris[u]
		// The two edges leaving v in triangle u.
		k := 0
		for tr[k] != v {
			k++
		}
		e1 := geom.At(x, int(tr[(k+1)%3])).Sub(p)
		e2 := geom.At(x, int(tr[(k+2)%3])).Sub(p)
		l1, l2 := e1.Norm(), e2.Norm()
		if l1 == 0 || l2 == 0 {
			continue
		}
		cosA := math.Max(-1, math.Min(1, e1.Dot(e2)/(l1*l2)))
		n = n.Add(e1.Cross(e2).Normalized().Scale(math.Acos(cosA)))
	}
	return n
}

// isNeighbourhood reports whether triangle t touches DOF v or one of its
// neighbours: triangles self-contact ignores around a vertex (they are
// within about one edge length of it by construction).
func (s *surface) isNeighbourhood(t int32, v int32) bool {
	nb := s.nbList[s.nbStart[v]:s.nbStart[v+1]]
	for _, w := range s.tris[t] {
		if w == v {
			return true
		}
		for _, u := range nb {
			if u == w {
				return true
			}
		}
	}
	return false
}

// signedContact turns the closest point c of p on feature feat of triangle t
// into a contact: the penetration δ (> 0 when p is inside the surface) and
// the outward unit normal n at c, with δ = (c − p)·n. On a face n is the
// face normal; on an edge or vertex it is the direction between p and c
// (its sign from the pseudo-normal), which keeps δ the true distance.
func (s *surface) signedContact(p, c geom.Vec3, t int32, feat int8, x []float64) (delta float64, n geom.Vec3) {
	if feat == featFace {
		n = s.faceNormal(t, x)
		return c.Sub(p).Dot(n), n
	}
	d := p.Sub(c)
	dist := d.Norm()
	if dist == 0 {
		return 0, s.pseudoNormal(t, feat, x).Normalized()
	}
	n = d.Scale(1 / dist)
	if s.behind(d, t, feat, x) {
		return dist, n.Scale(-1) // inside: push from p toward c
	}
	return -dist, n
}

// behind reports whether d = p − c points into the surface at feature feat
// of triangle t: d·N < 0 for the feature's pseudo-normal N. At a vertex,
// when d lies on the same side of every incident face's plane, that side
// decides without the angle weights (acos): only where the faces disagree
// (near an edge of a curved or folded surface) is the weighted normal
// needed.
func (s *surface) behind(d geom.Vec3, t int32, feat int8, x []float64) bool {
	if feat < featVert0 || feat > featVert2 {
		return d.Dot(s.pseudoNormal(t, feat, x)) < 0
	}
	v := s.tris[t][feat-featVert0]
	in, out := false, false
	for _, u := range s.vtList[s.vtStart[v]:s.vtStart[v+1]] {
		a, b, c := s.corners(u, x)
		if d.Dot(b.Sub(a).Cross(c.Sub(a))) < 0 {
			in = true
		} else {
			out = true
		}
		if in && out {
			return d.Dot(s.pseudoNormal(t, feat, x)) < 0
		}
	}
	return in
}
