// Package shapematching holds shape-matching dynamics on particle states
// (Müller et al. 2005, convolved over overlapping regions as in Rivers &
// James 2007's FastLSM) and its example-based extension (Koyama, Takayama,
// Umetani & Igarashi 2012, "Real-time example-based elastic deformation"):
//
//   - ShapeMatching (kind forcefield, though it applies no force): regions
//     (1-rings of a tetrahedral mesh or lattice neighbourhoods), the best-fit
//     rotation of every region, goal positions, and with example poses the
//     projection of the current deformation onto the example manifolds
//     (global, per group of regions, or per region) that shapes the goals;
//   - ShapeMatchingSolver (kind odesolver): the position-based update
//     v += α(g − x)/h + h·M⁻¹f, x += h·v on its subtree, with the forces
//     of every force field, mass and contact of the subtree, projective
//     constraints and mappings, as the framework's other solvers;
//   - GoalProvider: the interface between them, for other position-based
//     models.
//
// Example poses are authored with package pose and cmd/posegen.
package shapematching
