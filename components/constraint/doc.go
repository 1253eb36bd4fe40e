// Package constraint holds the projective constraints
// (graph.ProjectiveConstraint): fixed DOFs (FixedConstraint), fixed
// components (PartialFixedConstraint), prescribed motion along keyframes
// (LinearMovementConstraint) and attachments between the DOFs of two
// states (AttachConstraint).
package constraint
