// Package mapping holds the mappings (graph.Mapping) from a parent state to
// a child state: identity, subset, rigid. Each gives Apply, ApplyJ,
// ApplyJT and the geometric stiffness ApplyDJT.
package mapping
