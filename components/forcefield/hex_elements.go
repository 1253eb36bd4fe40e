package forcefield

import (
	"fmt"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
)

// newHexElements builds the rest data of trilinear hexahedra (VTK corner
// order, graph.HexahedronTopology) for cellSolid: 2×2×2 Gauss–Legendre
// points ξ_q = ±1/√3 (unit weights) on the reference cube [−1, 1]³; at
// each, the rest Jacobian J = ∂X/∂ξ, the weight w_q = det J and the shape
// gradients ∇Nₐ = J⁻ᵀ ∂Nₐ/∂ξ. The rule integrates exactly the stiffness
// of a linear material on parallelepipeds (the integrand is then at most
// quadratic in each ξᵢ) and the volume of every hexahedron. A hexahedron
// whose rest Jacobian is not positive at every corner and Gauss point
// (inverted, flat, twisted, or corners out of VTK's order) is an error
// naming the first one and counting the others.
func newHexElements(rest []float64, hexes [][8]int) (*cellElements, error) {
	np := len(rest) / 3
	b := newCellBuilder(np)
	var firstBad error
	nBad := 0
	nodes := make([]int, 8)
	grads := make([][]geom.Vec3, 8)
	for q := range grads {
		grads[q] = make([]geom.Vec3, 8)
	}
	w := make([]float64, 8)
	for e, h := range hexes {
		for c, v := range h {
			if v < 0 || v >= np {
				return nil, fmt.Errorf("hexahedron %d %v: vertex index %d is out of range [0, %d) of the state's points", e, h, v, np)
			}
			nodes[c] = v
		}
		var err error
		for _, r := range geom.HexRef { // corners: positivity only
			if d := geom.HexJacobian(rest, h, r).Det(); !(d > 0) {
				err = fmt.Errorf("hexahedron %d %v is inverted, flat or twisted in the rest configuration: Jacobian determinant %.3g ≤ 0 at corner (%g, %g, %g) (corners must follow VTK's order: bottom face 0–3 counter-clockwise seen from above, top face 4–7)", e, h, d, r[0], r[1], r[2])
				break
			}
		}
		for q, r := range geom.HexRef {
			if err != nil {
				break
			}
			xi := r.Scale(geom.GaussPoint2)
			J := geom.HexJacobian(rest, h, xi)
			det := J.Det()
			inv, ok := J.Inverse()
			if !ok || !(det > 0) {
				err = fmt.Errorf("hexahedron %d %v: rest Jacobian determinant %.3g ≤ 0 at a Gauss point", e, h, det)
				break
			}
			w[q] = det
			d := geom.HexShapeDerivs(xi)
			for a := 0; a < 8; a++ {
				// ∇N = J⁻ᵀ ∂N/∂ξ: component j = Σ_k (J⁻¹)_kj ∂N/∂ξ_k.
				grads[q][a] = inv.TMulVec(d[a])
			}
		}
		if err != nil {
			if firstBad == nil {
				firstBad = err
			}
			nBad++
			continue
		}
		b.add(nodes, rest, w, grads)
	}
	if nBad > 1 {
		return nil, fmt.Errorf("%w (and %d more bad hexahedra)", firstBad, nBad-1)
	}
	if firstBad != nil {
		return nil, firstBad
	}
	return b.finish()
}

// hexMesh reads what a hexahedral force field acts on from its node: the
// Vec3 state, the topology's hexahedra and the rest positions, and builds
// the element data.
func hexMesh(obj *graph.ObjectBase) (*cellElements, graph.State, error) {
	if obj.Node == nil {
		return nil, nil, fmt.Errorf("not attached to a node")
	}
	st := obj.Node.State()
	if st == nil {
		return nil, nil, fmt.Errorf("no mechanical state in node %q: add a MechanicalObject (template Vec3)", obj.Node.Path())
	}
	if tn := st.Template().Name(); tn != "Vec3" {
		return nil, nil, fmt.Errorf("state %q has template %s; %s acts on Vec3 points", st.Base().Name, tn, obj.TypeName)
	}
	topo := obj.Node.Topology()
	if topo == nil {
		return nil, nil, fmt.Errorf("no topology in node %q or its ancestors: add one with hexahedra (e.g. RegularGridTopology with elements = \"hexahedra\")", obj.Node.Path())
	}
	hexes := graph.HexahedraOf(topo)
	if len(hexes) == 0 {
		hint := ""
		if len(topo.Tetrahedra()) > 0 {
			hint = fmt.Sprintf(" (it has %d tetrahedra: set elements = \"hexahedra\" on a grid topology, or use a tetrahedral force field)", len(topo.Tetrahedra()))
		}
		return nil, nil, fmt.Errorf("topology %q has no hexahedra%s", topo.Base().Name, hint)
	}
	mesh, err := newHexElements(st.Vec(graph.RestPosition), hexes)
	if err != nil {
		return nil, nil, fmt.Errorf("topology %q: %w", topo.Base().Name, err)
	}
	return mesh, st, nil
}
