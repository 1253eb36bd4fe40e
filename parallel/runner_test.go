package parallel

import (
	"sync"
	"testing"
	"time"
)

// TestRunVisitsEveryIndexOnce checks that every index of [0, n) is visited
// exactly once, for several worker counts, grains and sizes (including the
// sequential paths: n below 8 grains, one worker).
func TestRunVisitsEveryIndexOnce(t *testing.T) {
	for _, workers := range []int{1, 2, 3, 8} {
		for _, n := range []int{0, 1, 7, 100, 1000, 12345} {
			for _, grain := range []int{0, 1, 16, 500} {
				r := Runner{Workers: workers}
				hits := make([]int32, n)
				r.Run(n, grain, func(lo, hi int) {
					for i := lo; i < hi; i++ {
						hits[i]++ // each index is owned by one chunk
					}
				})
				for i, h := range hits {
					if h != 1 {
						t.Fatalf("workers %d, n %d, grain %d: index %d visited %d times", workers, n, grain, i, h)
					}
				}
			}
		}
	}
}

// TestRunIsDeterministic checks the property the force fields rely on:
// per-index results are bitwise identical whatever the number of workers.
func TestRunIsDeterministic(t *testing.T) {
	const n = 50000
	compute := func(workers int) []float64 {
		out := make([]float64, n)
		r := Runner{Workers: workers}
		r.Run(n, 64, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				x := float64(i)
				out[i] = x*x/3 + 1/(x+1)
			}
		})
		return out
	}
	ref := compute(1)
	for _, w := range []int{2, 4, 7} {
		for i, v := range compute(w) {
			if v != ref[i] {
				t.Fatalf("%d workers: index %d differs", w, i)
			}
		}
	}
}

// TestRunnersInParallel runs independent runners from several goroutines at
// once (two force fields of two solvers may share the pool).
func TestRunnersInParallel(t *testing.T) {
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var r Runner
			for rep := 0; rep < 50; rep++ {
				sum := make([]int, 2000)
				r.Run(len(sum), 8, func(lo, hi int) {
					for i := lo; i < hi; i++ {
						sum[i] = i
					}
				})
				for i, v := range sum {
					if v != i {
						t.Errorf("runner %d repetition %d: index %d = %d", g, rep, i, v)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
}

func BenchmarkRunner10kElements(b *testing.B) {
	var r Runner
	out := make([]float64, 10000)
	body := func(lo, hi int) {
		for i := lo; i < hi; i++ {
			out[i] += float64(i)
		}
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		r.Run(len(out), 64, body)
	}
}

// TestIdlePoolStopsPolling: parallel passes separated by idle periods
// longer than spinWait (a direct solver factorising between assemblies, a
// solver's serial work) must not cost a poll each: after a poll that ends
// without a task the next one is a quarter as long, down to none, so 40
// isolated passes waste at most spinWait·(1 + 1/4 + 1/16 + …) ≈ 1.33·
// spinWait of polling in all (plus the overshoot of each poll's last
// check, a few µs: bounded here by 2·spinWait), where a fixed poll would
// waste 40·spinWait. The worker is a pool goroutine; the pass is long
// enough (8 chunks of grain 1 doing 20 µs of work each) to be handed to it.
func TestIdlePoolStopsPolling(t *testing.T) {
	r := Runner{Workers: 2}
	work := func(lo, hi int) {
		for i := lo; i < hi; i++ {
			end := time.Now().Add(20 * time.Microsecond)
			for time.Now().Before(end) {
			}
		}
	}
	r.Run(64, 1, work) // start the pool goroutine
	time.Sleep(5 * time.Millisecond)
	before := wastedPoll.Load()
	for k := 0; k < 40; k++ {
		r.Run(64, 1, work)
		time.Sleep(2 * time.Millisecond) // an idle period ≫ spinWait
	}
	wasted := time.Duration(wastedPoll.Load() - before)
	t.Logf("polling wasted over 40 isolated passes: %v (a fixed poll of %v would waste %v)", wasted, spinWait, 40*spinWait)
	if wasted > 2*spinWait {
		t.Errorf("pool goroutines polled %v in idle periods, want ≤ %v", wasted, 2*spinWait)
	}
}
