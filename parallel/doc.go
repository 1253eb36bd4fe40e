// Package parallel is the deterministic worker pool that element, sample and
// point loops share (force fields, skinning mappings). A Runner cuts a range
// into contiguous chunks that the calling goroutine and pooled goroutines
// claim one at a time; bodies that write only to slots owned by their indices
// give bitwise identical results for any number of workers. Nothing is
// allocated per call.
//
// It is its own package because loops of several component packages use it;
// one pool serves them all.
package parallel
