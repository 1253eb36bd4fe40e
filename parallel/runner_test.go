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
// without a task the next one is a quarter as long, down to none. A first
// round of 40 isolated passes lets every pool goroutine decay (each wastes
// at most spinWait·(1 + 1/4 + 1/16) ≈ 1.3·spinWait on the way; other tests
// of the package may have started several); in a second round of 40 the
// counter of poll lengths that ended without a task must stay at most
// spinWait (in practice 0), where a fixed poll would add 40·spinWait. The
// passes are long enough (64 chunks of 20 µs) to be handed to a pool
// goroutine.
func TestIdlePoolStopsPolling(t *testing.T) {
	r := Runner{Workers: 2}
	work := func(lo, hi int) {
		for i := lo; i < hi; i++ {
			end := time.Now().Add(20 * time.Microsecond)
			for time.Now().Before(end) {
			}
		}
	}
	round := func() time.Duration {
		before := wastedPoll.Load()
		for k := 0; k < 40; k++ {
			r.Run(64, 1, work)
			time.Sleep(2 * time.Millisecond) // an idle period ≫ spinWait
		}
		return time.Duration(wastedPoll.Load() - before)
	}
	first := round()
	second := round()
	t.Logf("polling wasted over 40 isolated passes: %v in the first round, %v in the second (a fixed poll of %v would waste %v per round)",
		first, second, spinWait, 40*spinWait)
	if second > spinWait {
		t.Errorf("pool goroutines polled %v in idle periods after decaying, want ≤ %v", second, spinWait)
	}
}
