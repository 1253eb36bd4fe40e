package shapematching

import (
	"fmt"
	"math"
	"slices"
	"sort"
)

// regionSet lists the overlapping regions of shape matching: region r is
// centred at particle r and holds the particles members[start[r]:start[r+1]]
// (sorted, r among them). Both constructions below give symmetric
// neighbourhoods (j ∈ N_r ⇔ r ∈ N_j), so the number of regions holding a
// particle equals the size of its own region, |Nᵢ| of Koyama et al.'s
// effective mass m̃ᵢ = mᵢ/|Nᵢ|; count is kept as the number of regions
// holding each particle, which is what makes the averaged goals conserve
// linear momentum exactly (see ShapeMatching).
type regionSet struct {
	start   []int
	members []int
	count   []int // regions holding each particle
}

func (rs *regionSet) numRegions() int { return len(rs.start) - 1 }

// ringRegions builds, for each of the n particles, the region of the
// particles within rings edges of it in the tetrahedral mesh (rings = 1: the
// particle and its 1-ring, the regions of Koyama et al. Sec. 3 and Ijiri et
// al. 2009). A particle in no tetrahedron is an error: its region would be a
// single point with no shape to match.
func ringRegions(n int, tets [][4]int, rings int) (*regionSet, error) {
	adj := make([][]int, n)
	for t, tet := range tets {
		for a := 0; a < 4; a++ {
			if tet[a] < 0 || tet[a] >= n {
				return nil, fmt.Errorf("tetrahedron %d has vertex %d, but the state has %d particles", t, tet[a], n)
			}
			for b := 0; b < 4; b++ {
				if a != b {
					adj[tet[a]] = append(adj[tet[a]], tet[b])
				}
			}
		}
	}
	for i := range adj {
		if len(adj[i]) == 0 {
			return nil, fmt.Errorf("particle %d belongs to no tetrahedron: its region would be a single point", i)
		}
		slices.Sort(adj[i])
		adj[i] = slices.Compact(adj[i])
	}
	rs := &regionSet{start: make([]int, 1, n+1), count: make([]int, n)}
	mark := make([]int, n) // generation stamps: mark[j] == r+1 when j is in region r
	var frontier, next []int
	for r := 0; r < n; r++ {
		first := len(rs.members)
		rs.members = append(rs.members, r)
		mark[r] = r + 1
		frontier = append(frontier[:0], r)
		for ring := 0; ring < rings; ring++ {
			next = next[:0]
			for _, i := range frontier {
				for _, j := range adj[i] {
					if mark[j] != r+1 {
						mark[j] = r + 1
						rs.members = append(rs.members, j)
						next = append(next, j)
					}
				}
			}
			frontier, next = next, frontier
		}
		slices.Sort(rs.members[first:])
		rs.start = append(rs.start, len(rs.members))
	}
	rs.countMembers(n)
	return rs, nil
}

// latticeRegions builds FastLSM-style regions (Rivers & James 2007) for
// particles on a regular lattice: region r holds the particles whose lattice
// coordinates differ from particle r's by at most halfWidth on every axis,
// (2w+1)³ particles clipped by the object's boundary.
//
// The lattice is read off the rest positions: along each axis the spacing is
// the smallest gap between distinct coordinates, and every particle must sit
// on a lattice node (within 1e-6 of a spacing) and no two on the same node,
// as for the vertices of a RegularGridTopology or a SparseGridTopology.
func latticeRegions(rest []float64, halfWidth int) (*regionSet, error) {
	n := len(rest) / 3
	if n == 0 {
		return nil, fmt.Errorf("lattice regions need particles")
	}
	var lo, h [3]float64
	for a := 0; a < 3; a++ {
		vals := make([]float64, n)
		for i := range vals {
			vals[i] = rest[3*i+a]
		}
		sort.Float64s(vals)
		lo[a] = vals[0]
		span := vals[n-1] - vals[0]
		h[a] = math.Inf(1)
		for i := 1; i < n; i++ {
			// Coordinates closer than 1e-9 of the span are the same lattice plane.
			if d := vals[i] - vals[i-1]; d > 1e-9*span && d < h[a] {
				h[a] = d
			}
		}
		if math.IsInf(h[a], 1) {
			h[a] = 1 // all particles in one plane across this axis
		}
	}
	type key [3]int
	node := make(map[key]int, n)
	coords := make([]key, n)
	for i := 0; i < n; i++ {
		var k key
		for a := 0; a < 3; a++ {
			u := (rest[3*i+a] - lo[a]) / h[a]
			k[a] = int(math.Round(u))
			if math.Abs(u-float64(k[a])) > 1e-6 {
				return nil, fmt.Errorf("particle %d at %v is not on a regular lattice (axis %d: %.9g spacings from the lowest plane, spacing %g); lattice regions need particles on a grid (RegularGridTopology, SparseGridTopology): use regions = \"ring\" otherwise",
					i, rest[3*i:3*i+3], a, u, h[a])
			}
		}
		if j, dup := node[k]; dup {
			return nil, fmt.Errorf("particles %d and %d sit on the same lattice node %v", j, i, k)
		}
		node[k] = i
		coords[i] = k
	}
	w := halfWidth
	rs := &regionSet{start: make([]int, 1, n+1), count: make([]int, n)}
	for r := 0; r < n; r++ {
		first := len(rs.members)
		c := coords[r]
		for dk := -w; dk <= w; dk++ {
			for dj := -w; dj <= w; dj++ {
				for di := -w; di <= w; di++ {
					if j, ok := node[key{c[0] + di, c[1] + dj, c[2] + dk}]; ok {
						rs.members = append(rs.members, j)
					}
				}
			}
		}
		slices.Sort(rs.members[first:])
		rs.start = append(rs.start, len(rs.members))
	}
	rs.countMembers(n)
	return rs, nil
}

func (rs *regionSet) countMembers(n int) {
	clear(rs.count)
	for _, j := range rs.members {
		rs.count[j]++
	}
}
