package shapematching

import "github.com/sofago/sofago/graph"

// GoalProvider is a position-based deformable model that ShapeMatchingSolver
// drives: from the current positions of its state it computes goal
// positions, and the solver pulls each particle toward its goal with
// stiffness α (Müller et al. 2005, eq. 4 of Koyama et al. 2012):
//
//	v ← v + α (g − x)/h + h f/m,   x ← x + h v.
//
// ShapeMatching implements it; other position-based models (oriented
// particles, chain shape matching) can too, and share the solver.
type GoalProvider interface {
	graph.Object
	// GoalState is the independent Vec3 state the goals are for.
	GoalState() graph.State
	// Stiffness is α ∈ [0, 1]: the fraction of the way to the goals
	// covered in one step.
	Stiffness() float64
	// ComputeGoals returns the goal positions for the positions x (one
	// [x y z] per particle, as x). The slice belongs to the provider and is
	// valid until the next call.
	ComputeGoals(x []float64) []float64
	// DampVelocities damps the velocities v at positions x in place (a
	// model without damping leaves v unchanged). The solver calls it once
	// per step on the velocities of the previous step, before adding the
	// goal and force terms.
	DampVelocities(v, x []float64)
}
