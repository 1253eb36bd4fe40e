// Package mass holds the mass components (graph.Mass): UniformMass,
// DiagonalMass (lumped from a tetrahedral mesh) and RigidMass. A mass also
// applies gravity, so gravity is exactly the weight of the mass model.
package mass
