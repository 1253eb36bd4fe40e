package mass

import (
	"fmt"

	"github.com/sofago/sofago/components/topology"
	"github.com/sofago/sofago/graph"
)

// polyMassDegree is the quadrature degree of the polyhedral masses: the
// integrand Nₐ N_b of harmonic shape functions is smooth; degree 2 (four
// points per tetrahedron of the subdivision) keeps every element's total
// exact (Σ_b Nₐ N_b sums to Nₐ, whose integral the rule's weights give)
// and its matrix positive.
const polyMassDegree = 2

// polyUnitMasses returns the cells (vertex lists in the basis's node
// order) and unit-density consistent mass matrices M_ab = Σ_q w_q Nₐ N_b
// of the polyhedra of topo (a topology.BasisProvider), from the harmonic
// shape functions at the quadrature points of polyfem.Mesh.Integrate.
// The partition of unity is exact there, so each matrix sums to the
// cell's volume.
func polyUnitMasses(topo graph.Topology, rest []float64) ([][]int, [][]float64, error) {
	bp, ok := topo.(topology.BasisProvider)
	if !ok {
		return nil, nil, fmt.Errorf("topology %q serves polyhedra without shape functions", topo.Base().Name)
	}
	m := bp.Mesh()
	if len(m.Points) != len(rest) {
		return nil, nil, fmt.Errorf("topology %q has %d points, the state %d", topo.Base().Name, m.NumPoints(), len(rest)/3)
	}
	basis, err := bp.HarmonicBasis()
	if err != nil {
		return nil, nil, err
	}
	cells := make([][]int, len(basis))
	mats := make([][]float64, len(basis))
	for e, b := range basis {
		in, err := m.Integrate(e, b, polyMassDegree)
		if err != nil {
			return nil, nil, err
		}
		n := len(b.Nodes)
		M := make([]float64, n*n)
		for q, w := range in.W {
			N := in.N[q]
			for a := 0; a < n; a++ {
				for c := 0; c < n; c++ {
					M[n*a+c] += w * N[a] * N[c]
				}
			}
		}
		cells[e], mats[e] = b.Nodes, M
	}
	return cells, mats, nil
}
