package sweep

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

const usage = `sweep runs batch studies of a scene: a sweep file (TOML) names a base scene,
the parameters to vary and the figures to record; every task is one runscene
run with -set overrides and writes its own result file.

  sweep run [-results DIR] [-workers N] SWEEP.toml     run the pending tasks here, N at a time
  sweep submit [-results DIR] [-dry-run] [-wait] SWEEP.toml
                                                       submit them to Slurm as one job array
  sweep k8s [-results DIR] [-root DIR] SWEEP.toml      write a Kubernetes Indexed Job (job.json)
  sweep collect [-timing] [-print] DIR                 gather the results into table.csv, table.jsonl
  sweep plot -x PARAM -y FIGURE [-abs] [-logx] [-logy] [-fit] [-ref L=A*x^B] -o FILE.png DIR
  sweep tasks SWEEP.toml                               list the tasks the sweep expands into
  sweep task [-zero] DIR [INDEX]                       run one task (what the workers and clusters run)

Pending tasks are those without an ok result: run, submit and k8s rerun
exactly the failed, interrupted, killed and missing ones. DIR defaults to
<sweep file without .toml>_results beside the sweep file. Exit status: 0 every
task ok; 1 a task failed or an error; 2 usage; 130 interrupted.`

// Main is the sweep command line; cmd/sweep's main is os.Exit(Main(os.Args[1:])).
func Main(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return run(ctx, args, os.Stdout, os.Stderr)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprintln(stdout, usage)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	cmd, rest := args[0], args[1:]
	var err error
	code := 0
	switch cmd {
	case "run":
		code, err = cmdRun(ctx, rest, stdout)
	case "submit":
		code, err = cmdSubmit(ctx, rest, stdout)
	case "k8s":
		code, err = cmdK8s(rest, stdout)
	case "collect":
		code, err = cmdCollect(ctx, rest, stdout)
	case "plot":
		code, err = cmdPlot(rest, stdout)
	case "tasks":
		code, err = cmdTasks(rest, stdout)
	case "task":
		code, err = cmdTask(ctx, rest, stdout, stderr)
	default:
		err = usageErr("unknown command %q (run, submit, k8s, collect, plot, tasks, task)", cmd)
	}
	var ue *usageError
	switch {
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "sweep %s: %v (sweep -h for help)\n", cmd, err)
		return 2
	case err != nil:
		fmt.Fprintf(stderr, "sweep %s: %v\n", cmd, err)
		return 1
	}
	return code
}

type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usageErr(format string, a ...any) error { return &usageError{fmt.Sprintf(format, a...)} }

// parse parses fs's flags in args (before or after the positional
// arguments) and returns the positional ones.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, usageErr("%v", err)
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// prepare reads the sweep file, expands it and saves the plan into the
// results folder (default: beside the sweep file).
func prepare(file, results string, save bool) (*Plan, string, error) {
	sp, err := ReadSpec(file)
	if err != nil {
		return nil, "", err
	}
	if results == "" {
		results = strings.TrimSuffix(file, filepath.Ext(file)) + "_results"
	}
	plan, err := NewPlan(sp, results)
	if err != nil {
		return nil, "", err
	}
	if save {
		if err := plan.Save(results); err != nil {
			return nil, "", err
		}
	}
	return plan, results, nil
}

func oneFile(pos []string, what string) (string, error) {
	if len(pos) != 1 {
		return "", usageErr("want one %s, got %d arguments", what, len(pos))
	}
	return pos[0], nil
}

// finish collects the folder's table, writes it and reports the counts;
// the exit status is 0 when every task is ok.
func finish(ctx context.Context, dir string, out io.Writer) (int, error) {
	plan, err := ReadPlan(dir)
	if err != nil {
		return 1, err
	}
	active, _ := SlurmActive(ctx, dir)
	states, err := States(dir, plan, active)
	if err != nil {
		return 1, err
	}
	t := Collect(dir, plan, states)
	if err := t.WriteFiles(dir); err != nil {
		return 1, err
	}
	fmt.Fprintf(out, "%s\ntable: %s, %s\n", Counts(states), filepath.Join(dir, tableCSV), filepath.Join(dir, tableJSONL))
	if len(Pending(states)) > 0 || len(active) > 0 {
		return 1, nil
	}
	return 0, nil
}

func cmdRun(ctx context.Context, args []string, out io.Writer) (int, error) {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	results := fs.String("results", "", "results folder")
	workers := fs.Int("workers", 0, "tasks at once (default: the number of CPUs)")
	pos, err := parse(fs, args)
	if err != nil {
		return 2, err
	}
	file, err := oneFile(pos, "sweep file")
	if err != nil {
		return 2, err
	}
	_, dir, err := prepare(file, *results, true)
	if err != nil {
		return 1, err
	}
	rep, err := RunLocal(ctx, dir, LocalOptions{Workers: *workers, Out: out})
	if err != nil {
		return 1, err
	}
	if rep.Ran > 0 {
		fmt.Fprintln(out, rep)
	}
	code, err := finish(context.Background(), dir, out)
	if rep.Interrupted {
		return 130, err
	}
	return code, err
}

func cmdSubmit(ctx context.Context, args []string, out io.Writer) (int, error) {
	fs := flag.NewFlagSet("submit", flag.ContinueOnError)
	results := fs.String("results", "", "results folder")
	dry := fs.Bool("dry-run", false, "print the job script and the sbatch command; submit nothing")
	wait := fs.Bool("wait", false, "wait until the job's tasks are done, then collect")
	binary := fs.String("binary", "", "the sweep program as the compute nodes see it (default: a copy in DIR/bin)")
	pos, err := parse(fs, args)
	if err != nil {
		return 2, err
	}
	file, err := oneFile(pos, "sweep file")
	if err != nil {
		return 2, err
	}
	plan, dir, err := prepare(file, *results, !*dry)
	if err != nil {
		return 1, err
	}
	if *dry {
		// Nothing is written: the script as it would be, for the plan's
		// tasks not yet ok (all of them in a new folder).
		abs, _ := filepath.Abs(dir)
		exe := *binary
		if exe == "" {
			exe = filepath.Join(abs, binDir, "sweep")
		}
		todo := make([]int, len(plan.Tasks))
		for i := range todo {
			todo[i] = i
		}
		if _, err := os.Stat(filepath.Join(dir, planFile)); err == nil {
			if states, err := States(dir, plan, nil); err == nil {
				todo = Pending(states)
			}
		}
		fmt.Fprint(out, JobScript(abs, plan, exe))
		if len(todo) == 0 {
			fmt.Fprintf(out, "# nothing to submit: every task is ok (sweep collect %s)\n", dir)
		} else {
			fmt.Fprintf(out, "# sbatch --parsable --array=%s %s\n", ArraySpec(todo, plan.Slurm.Parallel), filepath.Join(abs, jobScript))
		}
		return 0, nil
	}
	if _, err := exec.LookPath("sbatch"); err != nil {
		return 1, fmt.Errorf("sbatch is not on PATH: no Slurm here (scripts/slurm-local.sh starts a single-node one)")
	}
	if _, _, err := Submit(ctx, dir, SubmitOptions{Binary: *binary, Out: out}); err != nil {
		return 1, err
	}
	if !*wait {
		fmt.Fprintf(out, "sweep collect %s gathers the results (squeue shows the job)\n", dir)
		return 0, nil
	}
	if err := WaitSlurm(ctx, dir, 2*time.Second); err != nil {
		return 130, err
	}
	return finish(ctx, dir, out)
}

func cmdK8s(args []string, out io.Writer) (int, error) {
	fs := flag.NewFlagSet("k8s", flag.ContinueOnError)
	results := fs.String("results", "", "results folder")
	root := fs.String("root", ".", "the local folder the volume holds (the results folder and the scene are under it)")
	pos, err := parse(fs, args)
	if err != nil {
		return 2, err
	}
	file, err := oneFile(pos, "sweep file")
	if err != nil {
		return 2, err
	}
	plan, dir, err := prepare(file, *results, true)
	if err != nil {
		return 1, err
	}
	states, err := States(dir, plan, nil)
	if err != nil {
		return 1, err
	}
	todo := Pending(states)
	if len(todo) == 0 {
		fmt.Fprintf(out, "nothing to run: %s\n", Counts(states))
		return 0, nil
	}
	m, err := Manifest(dir, plan, K8sOptions{Root: *root, Tasks: todo})
	if err != nil {
		return 1, err
	}
	path, err := WriteManifest(dir, m)
	if err != nil {
		return 1, err
	}
	fmt.Fprintf(out, "%s: Indexed Job of %d tasks (%s)\napply it with: kubectl apply -f %s\nthen: sweep collect %s\n", path, len(todo), ArraySpec(todo, 0), path, dir)
	return 0, nil
}

func cmdCollect(ctx context.Context, args []string, out io.Writer) (int, error) {
	fs := flag.NewFlagSet("collect", flag.ContinueOnError)
	timing := fs.Bool("timing", false, "add host, job and wall-time columns")
	print := fs.Bool("print", false, "print the CSV table on standard output too")
	pos, err := parse(fs, args)
	if err != nil {
		return 2, err
	}
	dir, err := oneFile(pos, "results folder")
	if err != nil {
		return 2, err
	}
	plan, err := ReadPlan(dir)
	if err != nil {
		return 1, err
	}
	active, _ := SlurmActive(ctx, dir)
	states, err := States(dir, plan, active)
	if err != nil {
		return 1, err
	}
	t := Collect(dir, plan, states)
	t.Timing = *timing
	if err := t.WriteFiles(dir); err != nil {
		return 1, err
	}
	if *print {
		if err := t.WriteCSV(out); err != nil {
			return 1, err
		}
	}
	fmt.Fprintf(out, "%s\ntable: %s, %s\n", Counts(states), filepath.Join(dir, tableCSV), filepath.Join(dir, tableJSONL))
	if len(Pending(states)) > 0 || len(active) > 0 {
		return 1, nil
	}
	return 0, nil
}

func cmdPlot(args []string, out io.Writer) (int, error) {
	fs := flag.NewFlagSet("plot", flag.ContinueOnError)
	var o PlotOptions
	fs.StringVar(&o.X, "x", "", "parameter on the x axis (its -set path)")
	fs.StringVar(&o.Y, "y", "", "figure on the y axis")
	fs.BoolVar(&o.Abs, "abs", false, "plot |y|")
	fs.BoolVar(&o.LogX, "logx", false, "logarithmic x axis")
	fs.BoolVar(&o.LogY, "logy", false, "logarithmic y axis")
	fs.BoolVar(&o.Fit, "fit", false, "add the least-squares power law a·x^b")
	fs.StringVar(&o.Ref, "ref", "", "a reference power law `LABEL=A*x^B` (a closed form)")
	fs.StringVar(&o.Title, "title", "", "title")
	fs.StringVar(&o.XLabel, "xlabel", "", "x axis label (default: the parameter)")
	fs.StringVar(&o.YLabel, "ylabel", "", "y axis label (default: the figure)")
	file := fs.String("o", "", "output PNG file")
	pos, err := parse(fs, args)
	if err != nil {
		return 2, err
	}
	dir, err := oneFile(pos, "results folder")
	if err != nil {
		return 2, err
	}
	if o.X == "" || o.Y == "" || !strings.EqualFold(filepath.Ext(*file), ".png") {
		return 2, usageErr("plot needs -x PARAM, -y FIGURE and -o FILE.png")
	}
	plan, err := ReadPlan(dir)
	if err != nil {
		return 1, err
	}
	states, err := States(dir, plan, nil)
	if err != nil {
		return 1, err
	}
	if err := Collect(dir, plan, states).WritePlot(*file, o); err != nil {
		return 1, err
	}
	fmt.Fprintf(out, "%s\n", *file)
	return 0, nil
}

func cmdTasks(args []string, out io.Writer) (int, error) {
	fs := flag.NewFlagSet("tasks", flag.ContinueOnError)
	pos, err := parse(fs, args)
	if err != nil {
		return 2, err
	}
	file, err := oneFile(pos, "sweep file")
	if err != nil {
		return 2, err
	}
	plan, _, err := prepare(file, "", false)
	if err != nil {
		return 1, err
	}
	for _, t := range plan.Tasks {
		fmt.Fprintf(out, "%d\t%s\n", t.Index, strings.Join(t.Sets, " "))
	}
	return 0, nil
}

// taskIndex is the task a cluster process runs: INDEX if given, else the
// scheduler's index (SWEEP_TASK_INDEX, SLURM_ARRAY_TASK_ID or Kubernetes'
// JOB_COMPLETION_INDEX), mapped through SWEEP_TASKS (a comma-separated
// list: index k runs its k-th task) when set.
func taskIndex(pos []string) (int, error) {
	raw := ""
	switch len(pos) {
	case 1:
		for _, v := range []string{"SWEEP_TASK_INDEX", "SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX"} {
			if raw = os.Getenv(v); raw != "" {
				break
			}
		}
		if raw == "" {
			return 0, usageErr("no task index: give INDEX, or set SWEEP_TASK_INDEX, SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX")
		}
	case 2:
		raw = pos[1]
	default:
		return 0, usageErr("want DIR [INDEX]")
	}
	k, err := strconv.Atoi(raw)
	if err != nil || k < 0 {
		return 0, usageErr("task index %q is not a non-negative integer", raw)
	}
	if list := os.Getenv("SWEEP_TASKS"); list != "" {
		ids := strings.Split(list, ",")
		if k >= len(ids) {
			return 0, usageErr("index %d: SWEEP_TASKS lists %d tasks", k, len(ids))
		}
		if k, err = strconv.Atoi(strings.TrimSpace(ids[k])); err != nil {
			return 0, usageErr("SWEEP_TASKS entry %q is not a task index", ids[k])
		}
	}
	return k, nil
}

func cmdTask(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := flag.NewFlagSet("task", flag.ContinueOnError)
	zero := fs.Bool("zero", false, "exit 0 once the result is written, whatever the run's status (for schedulers that retry failed pods)")
	pos, err := parse(fs, args)
	if err != nil {
		return 2, err
	}
	if len(pos) == 0 {
		return 2, usageErr("want DIR [INDEX]")
	}
	i, err := taskIndex(pos)
	if err != nil {
		return 2, err
	}
	code, wrote := runTask(ctx, pos[0], i, stdout, stderr)
	if *zero && wrote {
		return 0, nil
	}
	return code, nil
}
