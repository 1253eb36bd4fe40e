//go:build unix

package validation

import "syscall"

// cpuNanos returns the process's user + system CPU time in nanoseconds
// (the benchmark reports it next to wall time: on a loaded machine the
// wall time includes waiting for a core, the CPU time does not).
func cpuNanos() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
