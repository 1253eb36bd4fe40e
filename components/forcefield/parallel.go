package forcefield

import (
	"runtime"
	"sync"
)

// parallelRunner runs a loop body over contiguous index ranges on several
// goroutines, deterministically: [0, n) is cut into `workers` contiguous
// chunks of near-equal size, the calling goroutine runs the first and a
// shared pool of long-lived goroutines the others. Whether a result depends
// on the number of workers is up to the body: bodies that write only to
// slots owned by their indices (per-element results, per-vertex gathers in
// a fixed order) give bitwise identical results for any worker count.
//
// A runner holds its own WaitGroup, so one runner must not be used by two
// goroutines at once (a force field is never called concurrently with
// itself). Nothing is allocated per call: the bodies are method values or
// closures built once, and tasks travel by value over a channel.
type parallelRunner struct {
	// workers is the number of chunks; 0 means runtime.GOMAXPROCS(0).
	workers int
	wg      sync.WaitGroup
}

// rangeTask is one chunk handed to the pool.
type rangeTask struct {
	body   func(lo, hi int)
	lo, hi int
	done   *sync.WaitGroup
}

// workerPool is shared by every runner of the package. Its goroutines are
// started on first need and live as long as the process (like the
// runtime's own workers); they sleep on the channel when idle.
var workerPool struct {
	mu      sync.Mutex
	started int
	tasks   chan rangeTask
}

// ensurePoolWorkers makes sure at least n pool goroutines exist.
func ensurePoolWorkers(n int) {
	workerPool.mu.Lock()
	defer workerPool.mu.Unlock()
	if workerPool.tasks == nil {
		workerPool.tasks = make(chan rangeTask, 64)
	}
	for workerPool.started < n {
		workerPool.started++
		go func(tasks <-chan rangeTask) {
			for t := range tasks {
				t.body(t.lo, t.hi)
				t.done.Done()
			}
		}(workerPool.tasks)
	}
}

// numWorkers returns the worker count a run uses.
func (r *parallelRunner) numWorkers() int {
	if r.workers > 0 {
		return r.workers
	}
	return runtime.GOMAXPROCS(0)
}

// run calls body over [0, n) in chunks of at least minChunk indices (fewer
// workers are used when n is small: a hand-off to another goroutine costs
// a few microseconds).
func (r *parallelRunner) run(n, minChunk int, body func(lo, hi int)) {
	w := r.numWorkers()
	if minChunk < 1 {
		minChunk = 1
	}
	if m := n / minChunk; w > m {
		w = m
	}
	if w <= 1 {
		if n > 0 {
			body(0, n)
		}
		return
	}
	ensurePoolWorkers(w - 1)
	r.wg.Add(w - 1)
	for i := 1; i < w; i++ {
		workerPool.tasks <- rangeTask{body: body, lo: i * n / w, hi: (i + 1) * n / w, done: &r.wg}
	}
	body(0, n/w)
	r.wg.Wait()
}
