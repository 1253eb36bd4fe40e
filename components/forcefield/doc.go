// Package forcefield holds the force fields (graph.ForceField): tetrahedral
// FEM, constant forces, springs. Each adds the force it applies (f = −∂W/∂x)
// and its exact tangent K = ∂f/∂x through AddDForce.
package forcefield
