package collision

import (
	"github.com/sofago/sofago/graph"
)

// contactInteraction carries the contacts between collision models
// integrated by one ODE solver: an interaction force field over their
// states, evaluated at the current positions during the solve, with the
// contact stiffness (and the dashpot's and friction's velocity
// derivatives) in AddDForce, and as a matrix for the assembled solvers
// (AddKBToMatrix). The solver's implicit system therefore holds
// both sides of every contact: objects pushing on each other are coupled
// implicitly, as one system (SOFA's PenalityContactForceField between two
// mechanical states of one solver).
//
// CollisionPipeline creates one per solver at Init and adds it to the
// solver's node, where the solver's mechanical operations find it (the
// framework collects interaction force fields when it binds solvers, after
// every Init). It is not a scene type.
type contactInteraction struct {
	graph.ObjectBase
	states []graph.State
	set    contactSet
	offs   []int // AddKBToMatrix's state offsets (scratch)
}

// slotOf returns the index of st among the interaction's states, adding it.
func (ci *contactInteraction) slotOf(st graph.State) int32 {
	for i, s := range ci.states {
		if s == st {
			return int32(i)
		}
	}
	ci.states = append(ci.states, st)
	return int32(len(ci.states) - 1)
}

// States implements graph.InteractionForceField.
func (ci *contactInteraction) States() []graph.State { return ci.states }

// AddForce implements graph.InteractionForceField.
func (ci *contactInteraction) AddForce(f, x, v [][]float64) { ci.set.addForce(f, x, v) }

// AddDForce implements graph.InteractionForceField.
func (ci *contactInteraction) AddDForce(df, dx [][]float64, kFactor, bFactor float64) {
	ci.set.addDForce(df, dx, kFactor, bFactor)
}

// PotentialEnergy implements graph.InteractionForceField: Σ γ/2 δ² over the
// penetrating contacts.
func (ci *contactInteraction) PotentialEnergy(x [][]float64) float64 { return ci.set.energy(x) }

// AddKBToMatrix implements graph.InteractionMatrixAssembler: kFactor·K +
// bFactor·B of the contacts in action at the last AddForce, 3×3 blocks
// between their participants over the states concatenated (see
// contactSet.addToMatrix).
func (ci *contactInteraction) AddKBToMatrix(m graph.MatrixAccumulator, kFactor, bFactor float64) {
	ci.offs = ci.offs[:0]
	o := 0
	for _, s := range ci.states {
		ci.offs = append(ci.offs, o)
		o += 3 * s.Size()
	}
	ci.set.addToMatrix(m, ci.offs, kFactor, bFactor, bFactor)
}

var _ graph.InteractionMatrixAssembler = (*contactInteraction)(nil)
