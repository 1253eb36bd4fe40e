// Package mapping holds the mappings (graph.Mapping) from a parent state to
// a child state: identity, subset, rigid, barycentric (points in a
// tetrahedral mesh), linear-blend and dual-quaternion skinning (frames to
// points or to deformation-gradient samples), and subspace (reduced
// coordinates to mesh points). Each gives Apply, ApplyJ, ApplyJT and the
// geometric stiffness ApplyDJT.
package mapping
