package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Runner runs a loop body over [0, n) on several goroutines,
// deterministically: the range is cut into fixed contiguous chunks, and
// the calling goroutine and up to workers−1 goroutines of a shared pool
// claim chunks one at a time until none is left (dynamic scheduling: a
// pool goroutine that wakes late simply takes fewer chunks, so the
// caller never idles while work remains). Whether a result depends on the
// number of workers is up to the body: bodies that write only to slots
// owned by their indices (per-element results, per-vertex gathers in a
// fixed order) give bitwise identical results for any worker count and any
// assignment of chunks to goroutines.
//
// A runner must not be used by two goroutines at once (a force field is
// never called concurrently with itself). Nothing is allocated per call:
// the bodies are method values or closures built once, and tasks travel
// by value over a channel.
type Runner struct {
	// Workers is the number of goroutines; 0 means runtime.GOMAXPROCS(0).
	Workers int

	// claim holds the generation of the current run in its high 32 bits
	// and the next unclaimed chunk in its low 32 bits: a pool goroutine
	// that arrives after its run has ended sees another generation and
	// leaves without touching the next run's chunks.
	claim     atomic.Uint64
	completed atomic.Int64 // chunks of the current run finished
	numChunks atomic.Int64 // chunks of the current run
	// Read only after claiming a chunk of the current run.
	body     func(lo, hi int)
	n, chunk int
}

// rangeTask invites a pool goroutine to join run gen of r.
type rangeTask struct {
	r      *Runner
	gen    uint64
	posted int64 // monotonic nanoseconds (sinceStart) when the run was posted
}

// start is the origin of the pool's monotonic clock.
var start = time.Now()

// sinceStart returns the monotonic time since start in nanoseconds.
func sinceStart() int64 { return int64(time.Since(start)) }

// workerPool is shared by every runner of the process. Its goroutines are
// started on first need and live as long as the process (like the
// runtime's own workers); they sleep on the channel when idle (after a
// short spin, see spinWait).
var workerPool struct {
	mu      sync.Mutex
	started atomic.Int64
	tasks   chan rangeTask
}

// ensurePoolWorkers makes sure at least n pool goroutines exist.
func ensurePoolWorkers(n int) {
	if workerPool.started.Load() >= int64(n) {
		return
	}
	workerPool.mu.Lock()
	defer workerPool.mu.Unlock()
	if workerPool.tasks == nil {
		workerPool.tasks = make(chan rangeTask, 64)
	}
	for workerPool.started.Load() < int64(n) {
		workerPool.started.Add(1)
		go poolWorker(workerPool.tasks)
	}
}

// spinWait is the longest a pool goroutine keeps polling for the next
// task after finishing one before it sleeps. Waking a sleeping goroutine
// costs 40–80 µs on the 2-core KVM machines here (measured: a 300 µs loop
// ran only 1.56× faster on two goroutines), comparable to one pass over
// 10k elements; force fields run their passes back to back (AddForce has
// two, a CG solve calls AddDForce every few tens of µs), so polling a
// little keeps the helpers awake through a solve, as OpenMP runtimes do.
//
// The polling adapts so that it never becomes a fixed overhead: a worker
// whose poll ends without a task (the next pass came later than spinWait,
// or never: a small scene whose loops all run serially, a solver doing
// serial work between passes) quarters its next poll, down to none; one
// whose next task is posted within spinWait of the end of the previous
// one (a burst of passes) polls for the full spinWait again. Idle CPU is thus bounded by
// about 1.3·spinWait per burst of parallel passes, and nothing at all in a
// process whose loops are all below the parallel threshold (no pool
// goroutine is ever started).
const spinWait = 100 * time.Microsecond

// minSpin is the shortest poll worth doing; shorter budgets mean none.
const minSpin = 5 * time.Microsecond

// poolWorker runs tasks, polling for the next one (see spinWait) before
// blocking.
func poolWorker(tasks <-chan rangeTask) {
	budget := spinWait
	for {
		var t rangeTask
		select {
		case t = <-tasks:
		default:
			idle := sinceStart()
			var polled bool
			t, polled = spinReceive(tasks, budget)
			switch {
			case polled:
				budget = spinWait
			case time.Duration(t.posted-idle) < spinWait:
				// A burst again: a poll would have caught the task (the
				// gap is measured to when it was posted, not to when this
				// goroutine woke up, which adds the wake-up latency).
				budget = spinWait
			default:
				if budget /= 4; budget < minSpin {
					budget = 0
				}
			}
		}
		t.r.work(t.gen)
	}
}

// wastedPoll accumulates the lengths of the polls that ended without a
// task (nanoseconds), for tests.
var wastedPoll atomic.Int64

// spinReceive polls tasks for up to budget, then blocks; polled reports
// whether the task came during the poll.
func spinReceive(tasks <-chan rangeTask, budget time.Duration) (t rangeTask, polled bool) {
	if budget <= 0 {
		return <-tasks, false
	}
	deadline := time.Now().Add(budget)
	for i := 1; ; i++ {
		select {
		case t := <-tasks:
			return t, true
		default:
		}
		if i%64 == 0 {
			if time.Now().After(deadline) {
				// The poll's length, not the wall time since it began
				// (which counts time the OS ran other processes).
				wastedPoll.Add(int64(budget))
				return <-tasks, false
			}
			// Let other goroutines of this thread run.
			runtime.Gosched()
		}
	}
}

// NumWorkers returns the worker count a run uses.
func (r *Runner) NumWorkers() int {
	if r.Workers > 0 {
		return r.Workers
	}
	return runtime.GOMAXPROCS(0)
}

// chunksPerWorker sets how finely a range is cut: enough chunks that the
// goroutines finish together (the last chunk is the idle tail of the
// others) and balance a late start, few enough that claiming them (one
// atomic operation each) costs nothing.
const chunksPerWorker = 32

// Run calls body over [0, n) in chunks of at least grain indices. Ranges
// under 8 grains run on the calling goroutine alone: handing work to
// another goroutine costs from one to tens of microseconds.
func (r *Runner) Run(n, grain int, body func(lo, hi int)) {
	w := r.NumWorkers()
	if grain < 1 {
		grain = 1
	}
	if w <= 1 || n < 8*grain {
		if n > 0 {
			body(0, n)
		}
		return
	}
	nc := min(w*chunksPerWorker, n/grain)
	r.body, r.n, r.chunk = body, n, (n+nc-1)/nc
	nc = (n + r.chunk - 1) / r.chunk
	r.numChunks.Store(int64(nc))
	r.completed.Store(0)
	gen := (r.claim.Load()>>32 + 1) & 0xffffffff
	r.claim.Store(gen << 32)
	ensurePoolWorkers(w - 1)
	posted := sinceStart()
	for i := 1; i < w; i++ {
		workerPool.tasks <- rangeTask{r: r, gen: gen, posted: posted}
	}
	r.work(gen)
	// Wait for the chunks other goroutines are still running.
	for r.completed.Load() < int64(nc) {
		runtime.Gosched()
	}
	r.body = nil
}

// work claims and runs chunks of run gen until none is left.
func (r *Runner) work(gen uint64) {
	for {
		c := r.claim.Load()
		if c>>32 != gen {
			return // that run is over
		}
		i := int(c & 0xffffffff)
		if int64(i) >= r.numChunks.Load() {
			return
		}
		if !r.claim.CompareAndSwap(c, c+1) {
			continue
		}
		lo := i * r.chunk
		r.body(lo, min(lo+r.chunk, r.n))
		r.completed.Add(1)
	}
}
