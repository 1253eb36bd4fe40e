// Package constraint holds the projective constraints (graph.ProjectiveConstraint):
// fixed points or frames, prescribed motion.
package constraint
