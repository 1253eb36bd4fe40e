package sweep

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// LocalOptions configure RunLocal.
type LocalOptions struct {
	// Workers is the number of tasks run at once (default: the number of
	// CPUs). Each task process gets GOMAXPROCS = CPUs / Workers (at least
	// 1) unless the environment sets GOMAXPROCS.
	Workers int
	// Executable runs one task as `Executable task DIR INDEX` (default:
	// this program).
	Executable string
	// Out receives one line per failed task and the summary.
	Out io.Writer
}

// LocalReport measures a local run.
type LocalReport struct {
	Ran     int           // tasks run
	Failed  int           // of which without an ok result
	Wall    time.Duration // whole run
	Workers int
	// TaskWall is the mean wall time of a task process (start to exit,
	// as its worker sees it); Steps, Init and Load the means of the
	// tasks' own figures (ok tasks).
	TaskWall, Steps, Init, Load time.Duration
	Interrupted                 bool
}

// TasksPerSecond is the throughput.
func (r *LocalReport) TasksPerSecond() float64 { return float64(r.Ran) / r.Wall.Seconds() }

// Overhead is what a task costs beyond its simulation steps: process
// start, loading, Init (mesh building, precomputation or cache reads),
// recording and writing the result.
func (r *LocalReport) Overhead() time.Duration { return r.TaskWall - r.Steps }

func (r *LocalReport) String() string {
	s := fmt.Sprintf("ran %d tasks in %.2f s on %d workers: %.1f tasks/s; per task %.1f ms (steps %.2f ms, Init %.1f ms, load %.1f ms), overhead beyond the steps %.1f ms",
		r.Ran, r.Wall.Seconds(), r.Workers, r.TasksPerSecond(), ms(r.TaskWall), ms(r.Steps), ms(r.Init), ms(r.Load), ms(r.Overhead()))
	if r.Failed > 0 {
		s += fmt.Sprintf("; %d failed", r.Failed)
	}
	if r.Interrupted {
		s += "; interrupted"
	}
	return s
}

func ms(d time.Duration) float64 { return d.Seconds() * 1e3 }

// RunLocal runs the pending tasks of the results folder dir (every task
// without an ok result, see Pending) on this machine, Workers at a time,
// each in its own process: a task that crashes or is killed takes nothing
// else with it. The first task runs alone, so that what it precomputes and
// caches the others read. Cancelling ctx sends SIGTERM to the running tasks (they
// stop after their current step and write no result) and starts no more.
// Only one local run may use a folder at a time.
func RunLocal(ctx context.Context, dir string, opt LocalOptions) (*LocalReport, error) {
	plan, err := ReadPlan(dir)
	if err != nil {
		return nil, err
	}
	lock, err := lockFolder(dir)
	if err != nil {
		return nil, err
	}
	defer lock.Close()
	states, err := States(dir, plan, nil)
	if err != nil {
		return nil, err
	}
	todo := Pending(states)
	if opt.Workers <= 0 {
		opt.Workers = runtime.NumCPU()
	}
	if opt.Out == nil {
		opt.Out = io.Discard
	}
	exe := opt.Executable
	if exe == "" {
		if exe, err = os.Executable(); err != nil {
			return nil, err
		}
	}
	env := os.Environ()
	if os.Getenv("GOMAXPROCS") == "" {
		env = append(env, "GOMAXPROCS="+strconv.Itoa(max(1, runtime.NumCPU()/opt.Workers)))
	}
	rep := &LocalReport{Workers: opt.Workers}
	start := time.Now()
	jobs := make(chan int)
	var mu sync.Mutex
	var wallSum time.Duration
	var wg sync.WaitGroup
	runOne := func(i int) {
		t0 := time.Now()
		code, err := runTaskProcess(ctx, exe, env, dir, i)
		d := time.Since(t0)
		mu.Lock()
		defer mu.Unlock()
		rep.Ran++
		wallSum += d
		if err != nil {
			fmt.Fprintf(opt.Out, "task %d: %v\n", i, err)
		} else if code != 0 && ctx.Err() == nil {
			rep.Failed++
			fmt.Fprintf(opt.Out, "task %d: exit status %d (%s)\n", i, code, filepath.Join(dir, logsDir, taskName(i)+".log"))
		}
	}
	// The first task runs alone: whatever it precomputes and caches
	// (reduced models, spring networks; with the sweep's shared cache
	// folder) the others then read instead of all computing it at once.
	queue := todo
	if len(queue) > 1 && opt.Workers > 1 {
		runOne(queue[0])
		queue = queue[1:]
	}
	for w := 0; w < opt.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				runOne(i)
			}
		}()
	}
feed:
	for _, i := range queue {
		select {
		case jobs <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	rep.Wall = time.Since(start)
	rep.Interrupted = ctx.Err() != nil
	if rep.Ran > 0 {
		rep.TaskWall = wallSum / time.Duration(rep.Ran)
	}
	// The tasks' own timings, from their results.
	n := 0
	var steps, init, load float64
	for _, i := range todo {
		data, err := os.ReadFile(filepath.Join(dir, resultsDir, taskName(i)+".json"))
		if err != nil {
			continue
		}
		var r Result
		if json.Unmarshal(data, &r) == nil && r.Exit == 0 {
			n++
			steps += r.Timing.Steps
			init += r.Timing.Init
			load += r.Timing.Load
		}
	}
	if n > 0 {
		sec := func(x float64) time.Duration { return time.Duration(x / float64(n) * 1e9) }
		rep.Steps, rep.Init, rep.Load = sec(steps), sec(init), sec(load)
	}
	return rep, nil
}

// runTaskProcess runs `exe task dir i`, its output into the task's log.
// Cancelling ctx sends the process SIGTERM.
func runTaskProcess(ctx context.Context, exe string, env []string, dir string, i int) (int, error) {
	log, err := os.Create(filepath.Join(dir, logsDir, taskName(i)+".log"))
	if err != nil {
		return 0, err
	}
	defer log.Close()
	cmd := exec.Command(exe, "task", dir, strconv.Itoa(i))
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			cmd.Process.Signal(syscall.SIGTERM)
		case <-done:
		}
	}()
	err = cmd.Wait()
	close(done)
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				return 128 + int(ws.Signal()), nil
			}
			return ee.ExitCode(), nil
		}
		return 0, err
	}
	return 0, nil
}

// lockFolder takes an exclusive lock on dir/.lock for this process.
func lockFolder(dir string) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s is in use by another sweep run on this machine", dir)
	}
	return f, nil
}
