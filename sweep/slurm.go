package sweep

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/sofago/sofago/atomicfile"
)

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// JobScript returns the Slurm batch script that runs one task of the
// results folder dir per array task: `exe task DIR $SLURM_ARRAY_TASK_ID`.
// The array (the tasks to run) is given to sbatch, so one script serves
// the first submission and every rerun.
func JobScript(dir string, plan *Plan, exe string) string {
	var b strings.Builder
	cpus := max(1, plan.Slurm.CPUs)
	fmt.Fprintf(&b, "#!/bin/bash\n")
	fmt.Fprintf(&b, "# Sweep %q: %d tasks of %s, one array task each.\n", plan.Name, len(plan.Tasks), plan.Scene)
	fmt.Fprintf(&b, "# Written by sweep submit; submitted as sbatch --array=LIST %s\n", filepath.Join(dir, jobScript))
	fmt.Fprintf(&b, "# (LIST: the tasks to run). Each task writes %s/task-NNNNNN.json\n", resultsDir)
	fmt.Fprintf(&b, "# atomically when it ends: a cancelled or killed task leaves no result.\n")
	fmt.Fprintf(&b, "#SBATCH --job-name=%s\n", slurmName(plan.Name))
	fmt.Fprintf(&b, "#SBATCH --output=%s\n", filepath.Join(dir, logsDir, "slurm-%A_%a.log"))
	fmt.Fprintf(&b, "#SBATCH --ntasks=1\n")
	fmt.Fprintf(&b, "#SBATCH --cpus-per-task=%d\n", cpus)
	for _, o := range plan.Slurm.Options {
		fmt.Fprintf(&b, "#SBATCH %s\n", o)
	}
	fmt.Fprintf(&b, "export GOMAXPROCS=\"${SLURM_CPUS_PER_TASK:-%d}\"\n", cpus)
	fmt.Fprintf(&b, "exec %s task %s \"$SLURM_ARRAY_TASK_ID\"\n", shellQuote(exe), shellQuote(dir))
	return b.String()
}

// slurmName makes a job name of letters, digits, - and _.
func slurmName(name string) string {
	var b strings.Builder
	for _, r := range "sweep-" + name {
		if r == '-' || r == '_' || r == '.' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// ArraySpec is the --array value for tasks (with %parallel when > 0).
func ArraySpec(tasks []int, parallel int) string {
	s := arrayRanges(tasks)
	if parallel > 0 {
		s += "%" + strconv.Itoa(parallel)
	}
	return s
}

// SubmitOptions configure Submit.
type SubmitOptions struct {
	// DryRun prints the job script and the sbatch command, submitting
	// nothing.
	DryRun bool
	// Binary is the program the tasks run, as the compute nodes see it
	// (default: a copy of this program in the results folder's bin/, so
	// rebuilding it does not change a running sweep).
	Binary string
	Out    io.Writer
}

// Submit submits the pending tasks of the results folder dir (those
// without an ok result, less those pending or running in a job of the
// folder) as one Slurm job array, writes job.sh and records the job in
// jobs.txt. It returns the job id and the tasks ("" and none when nothing
// is left to run).
func Submit(ctx context.Context, dir string, opt SubmitOptions) (string, []int, error) {
	if opt.Out == nil {
		opt.Out = io.Discard
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", nil, err
	}
	plan, err := ReadPlan(dir)
	if err != nil {
		return "", nil, err
	}
	active, err := SlurmActive(ctx, dir)
	if err != nil {
		return "", nil, err
	}
	states, err := States(dir, plan, active)
	if err != nil {
		return "", nil, err
	}
	todo := Pending(states)
	exe := opt.Binary
	if exe == "" {
		exe = filepath.Join(dir, binDir, "sweep")
	}
	script := JobScript(dir, plan, exe)
	args := []string{"--parsable", "--array=" + ArraySpec(todo, plan.Slurm.Parallel), filepath.Join(dir, jobScript)}
	if opt.DryRun {
		fmt.Fprint(opt.Out, script)
		if len(todo) == 0 {
			fmt.Fprintf(opt.Out, "# %s: nothing to submit\n", Counts(states))
		} else {
			fmt.Fprintf(opt.Out, "# %s\n# sbatch %s\n", Counts(states), strings.Join(args, " "))
		}
		return "", todo, nil
	}
	if len(todo) == 0 {
		fmt.Fprintf(opt.Out, "nothing to submit: %s\n", Counts(states))
		return "", nil, nil
	}
	if opt.Binary == "" {
		if err := copySelf(exe); err != nil {
			return "", nil, fmt.Errorf("copying this program to %s: %w", exe, err)
		}
	}
	if err := atomicfile.WriteBytes(filepath.Join(dir, jobScript), []byte(script)); err != nil {
		return "", nil, err
	}
	cmd := exec.CommandContext(ctx, "sbatch", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", nil, fmt.Errorf("sbatch %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	id, _, _ := strings.Cut(strings.TrimSpace(string(out)), ";") // --parsable: "ID" or "ID;cluster"
	if _, err := strconv.Atoi(id); err != nil {
		return "", nil, fmt.Errorf("sbatch printed %q, not a job id", out)
	}
	f, err := os.OpenFile(filepath.Join(dir, jobsFile), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return id, todo, err
	}
	fmt.Fprintf(f, "%s\t%s\t%s\n", id, ArraySpec(todo, plan.Slurm.Parallel), time.Now().UTC().Format(time.RFC3339))
	if err := f.Close(); err != nil {
		return id, todo, err
	}
	fmt.Fprintf(opt.Out, "submitted job %s: array %s (%d tasks)\n", id, ArraySpec(todo, plan.Slurm.Parallel), len(todo))
	return id, todo, nil
}

// copySelf copies this program to path atomically, executable.
func copySelf(path string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	src, err := os.Open(self)
	if err != nil {
		return err
	}
	defer src.Close()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	// Written under a temporary name, then made executable and renamed:
	// a task starting meanwhile runs the old copy or the new one.
	tmp := path + ".new"
	if err := atomicfile.Write(tmp, true, func(w io.Writer) error {
		_, err := io.Copy(w, src)
		return err
	}); err != nil {
		return err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// Jobs lists the job ids recorded in the folder's jobs.txt.
func Jobs(dir string) ([]string, error) {
	f, err := os.Open(filepath.Join(dir, jobsFile))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var ids []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if id, _, _ := strings.Cut(sc.Text(), "\t"); id != "" {
			ids = append(ids, id)
		}
	}
	return ids, sc.Err()
}

// SlurmActive maps the tasks of the folder's jobs that Slurm still holds
// (pending, running, completing) to their state. Without jobs or without
// squeue it returns nothing.
func SlurmActive(ctx context.Context, dir string) (map[int]string, error) {
	ids, err := Jobs(dir)
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	if _, err := exec.LookPath("squeue"); err != nil {
		return nil, nil
	}
	active := map[int]string{}
	for _, id := range ids {
		out, err := exec.CommandContext(ctx, "squeue", "-h", "-r", "-j", id, "-o", "%i %T").Output()
		if err != nil {
			continue // a job Slurm no longer knows: nothing active
		}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			f := strings.Fields(line)
			if len(f) != 2 {
				continue
			}
			job, task, ok := strings.Cut(f[0], "_")
			if !ok || job != id {
				continue
			}
			if i, err := strconv.Atoi(task); err == nil {
				active[i] = f[1]
			}
		}
	}
	return active, nil
}

// WaitSlurm polls squeue every interval until no task of the folder's
// jobs is pending or running.
func WaitSlurm(ctx context.Context, dir string, interval time.Duration) error {
	for {
		active, err := SlurmActive(ctx, dir)
		if err != nil {
			return err
		}
		if len(active) == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(interval):
		}
	}
}
