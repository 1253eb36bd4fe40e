// Package solver holds the ODE solvers (graph.ODESolver) and linear solvers
// (graph.LinearSolver). They see the physics only through graph.Ops, so one
// implementation serves tetrahedral meshes, rigid bodies, frames and
// reduced models alike.
package solver
