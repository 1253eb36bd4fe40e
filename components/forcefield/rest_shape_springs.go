package forcefield

import (
	"fmt"

	"github.com/sofago/sofago/graph"
)

// RestShapeSpringsForceField (SOFA's name) ties points of a Vec3 state to
// fixed targets with zero-length springs: point i is pulled toward its
// target y_i (its rest position, or a given world point) with
//
//	W = Σ ½ k_i |x_i − y_i|²,   f_i = −k_i (x_i − y_i),   K_i = −k_i I.
//
// The targets are taken once, at Init. It is a soft alternative to
// FixedConstraint that works on mapped states too (e.g. holding the pivot
// point of a rigid body mapped by RigidMapping).
type RestShapeSpringsForceField struct {
	graph.ObjectBase
	Points            []int        `toml:"points" doc:"indices of the points held by springs (default: every point of the state)" range:"[0,inf)"`
	Stiffness         float64      `toml:"stiffness" doc:"stiffness of every spring (give this or stiffnessPerPoint)" unit:"N/m" range:"(0,inf)"`
	StiffnessPerPoint []float64    `toml:"stiffnessPerPoint" doc:"stiffness of each spring, one per point (give this or stiffness)" unit:"N/m" range:"(0,inf)"`
	External          [][3]float64 `toml:"external" doc:"fixed world target of each spring, one per point (default: the rest positions of the points)" unit:"m"`

	indices []int     // state DOF of each spring
	k       []float64 // stiffness of each spring
	targets []float64 // y, 3 per spring
}

func init() {
	graph.Register(graph.TypeInfo{
		Name:    "RestShapeSpringsForceField",
		Kind:    graph.KindForceField,
		Summary: "Zero-length springs pulling points of a Vec3 state toward their rest positions (or given world points): W = Σ ½ k |x − y|², exact tangent −k·I.",
		New:     func() graph.Object { return &RestShapeSpringsForceField{} },
	})
}

// Validate checks the fields that do not need the state.
func (r *RestShapeSpringsForceField) Validate() error {
	switch {
	case r.Stiffness == 0 && len(r.StiffnessPerPoint) == 0:
		return fmt.Errorf("no stiffness: give stiffness (one value for every spring) or stiffnessPerPoint")
	case r.Stiffness != 0 && len(r.StiffnessPerPoint) > 0:
		return fmt.Errorf("give stiffness or stiffnessPerPoint, not both")
	}
	seen := make(map[int]int, len(r.Points))
	for i, p := range r.Points {
		if j, dup := seen[p]; dup {
			return fmt.Errorf("points[%d] = %d repeats points[%d]; list each point once (use a larger stiffness instead)", i, p, j)
		}
		seen[p] = i
	}
	if len(r.Points) > 0 {
		if len(r.StiffnessPerPoint) > 0 && len(r.StiffnessPerPoint) != len(r.Points) {
			return fmt.Errorf("stiffnessPerPoint has %d values for %d points; give one per point", len(r.StiffnessPerPoint), len(r.Points))
		}
		if len(r.External) > 0 && len(r.External) != len(r.Points) {
			return fmt.Errorf("external has %d targets for %d points; give one per point", len(r.External), len(r.Points))
		}
	}
	return nil
}

// Init checks the state, resolves the default point list and takes the
// targets.
func (r *RestShapeSpringsForceField) Init() error {
	if err := r.Validate(); err != nil {
		return r.Wrap(err)
	}
	st := r.Node.State()
	if st == nil {
		return r.Errorf("needs a Vec3 MechanicalObject in the same node")
	}
	if name := st.Template().Name(); name != graph.Vec3.Name() {
		return r.Errorf("state %q has template %s; RestShapeSpringsForceField needs Vec3", st.Base().Path(), name)
	}
	n := st.Size()
	if len(r.Points) > 0 {
		r.indices = append([]int(nil), r.Points...)
		for i, p := range r.indices {
			if p >= n {
				return r.Errorf("points[%d] = %d is out of range: the state %q has %d points", i, p, st.Base().Path(), n)
			}
		}
	} else {
		r.indices = make([]int, n)
		for i := range r.indices {
			r.indices[i] = i
		}
	}
	ns := len(r.indices)
	switch len(r.StiffnessPerPoint) {
	case 0:
		r.k = make([]float64, ns)
		for i := range r.k {
			r.k[i] = r.Stiffness
		}
	case ns:
		r.k = append([]float64(nil), r.StiffnessPerPoint...)
	default:
		return r.Errorf("stiffnessPerPoint has %d values for %d springs; give one per point", len(r.StiffnessPerPoint), ns)
	}
	r.targets = make([]float64, 3*ns)
	switch {
	case len(r.External) == ns:
		for i, y := range r.External {
			copy(r.targets[3*i:3*i+3], y[:])
		}
	case len(r.External) > 0:
		return r.Errorf("external has %d targets for %d springs; give one per point", len(r.External), ns)
	default:
		rest := st.Vec(graph.RestPosition)
		for i, p := range r.indices {
			copy(r.targets[3*i:3*i+3], rest[3*p:3*p+3])
		}
	}
	return nil
}

// Targets returns the target of each spring (3 numbers per spring) and the
// point it holds.
func (r *RestShapeSpringsForceField) Targets() (targets []float64, indices []int) {
	return r.targets, r.indices
}

// AddForce implements graph.ForceField: f_i += −k_i (x_i − y_i).
func (r *RestShapeSpringsForceField) AddForce(f, x, v []float64) {
	for s, p := range r.indices {
		k := r.k[s]
		f[3*p] -= k * (x[3*p] - r.targets[3*s])
		f[3*p+1] -= k * (x[3*p+1] - r.targets[3*s+1])
		f[3*p+2] -= k * (x[3*p+2] - r.targets[3*s+2])
	}
}

// AddDForce implements graph.ForceField: df_i += −kFactor·k_i dx_i (no
// damping term).
func (r *RestShapeSpringsForceField) AddDForce(df, dx []float64, kFactor, bFactor float64) {
	for s, p := range r.indices {
		k := kFactor * r.k[s]
		df[3*p] -= k * dx[3*p]
		df[3*p+1] -= k * dx[3*p+1]
		df[3*p+2] -= k * dx[3*p+2]
	}
}

// PotentialEnergy implements graph.ForceField: Σ ½ k_i |x_i − y_i|².
func (r *RestShapeSpringsForceField) PotentialEnergy(x []float64) float64 {
	e := 0.0
	for s, p := range r.indices {
		dx := x[3*p] - r.targets[3*s]
		dy := x[3*p+1] - r.targets[3*s+1]
		dz := x[3*p+2] - r.targets[3*s+2]
		e += 0.5 * r.k[s] * (dx*dx + dy*dy + dz*dz)
	}
	return e
}

// BlockDiagonalStiffness implements graph.BlockDiagonalStiffness: each
// spring holds one DOF.
func (r *RestShapeSpringsForceField) BlockDiagonalStiffness() bool { return true }
