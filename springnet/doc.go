// Package springnet holds 6-D joint springs between rigid frames and the
// precomputed generalized spring networks of frame-based models (Gilles
// et al. 2011, Sec. 4.3, eq. 15–25, Algorithm 2).
//
//   - Link, Evaluate: one joint between two Rigid3 bodies, from the gap
//     between a joint frame fixed to each body, measured in the hinge frame
//     halfway between them; the energy of any GapLaw, the forces (exactly
//     balanced) and the exact tangent. QuadraticLaw is a network spring,
//     AxisLaw an articulation (per-axis stiffness, angle limits with a
//     blocking stiffness).
//   - Network, Element: the network of a frame-based model from its rest
//     stiffness, as the paper's pair springs (BuildPairs, eq. 16–18) or as
//     elements over the frames sharing samples (BuildClusters, exact at
//     rest); WarpedTangent: the paper's warped stiffness blocks
//     (eq. 19–23).
//   - WriteFile / ReadFile: the precomputation saved next to the scene,
//     keyed by a hash of the model, written atomically.
//
// The components are forcefield.FrameSpringNetworkForceField (the network
// in place of the sample force field) and forcefield.JointSpringForceField
// (articulations between rigid bodies).
package springnet
