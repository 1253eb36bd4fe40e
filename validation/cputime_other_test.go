//go:build !unix

package validation

// cpuNanos is not measured on this platform.
func cpuNanos() int64 { return 0 }
