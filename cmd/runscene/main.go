// Command runscene runs a scene headless:
//
//	runscene [flags] SCENE.toml
//
// It loads and initialises the scene, advances it -steps times (default:
// the scene's steps), shows progress on a terminal (never in a pipe), and
// prints a summary: steps, simulated time, wall time per step, energies.
// With -steps 0 it only initialises the scene, which with -dump gives the
// forces at the initial configuration.
//
// Errors are one line "file:line: message" on stderr; the exit code is 1 for
// scene and run-time errors, 2 for usage errors, 130 when interrupted.
//
// Flags may come before or after the scene file. -list and -doc document
// the registered component types and need no scene.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	_ "github.com/sofago/sofago/components/all"
	"github.com/sofago/sofago/components/visual"
	"github.com/sofago/sofago/graph"
)

const usageLine = "usage: runscene [flags] SCENE.toml   (runscene -h lists the flags)"

// Exit codes.
const (
	exitOK          = 0
	exitScene       = 1 // the scene or the run failed
	exitUsage       = 2
	exitInterrupted = 130 // SIGINT, as shells report it
)

type options struct {
	steps    int // < 0: the scene's
	dt       float64
	dump     string
	out      string
	list     bool
	doc      string
	quiet    bool
	every    int
	everySet bool
	scene    string
}

// usageError is a mistake in the command line (exit code 2).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func main() {
	// The first SIGINT/SIGTERM stops the run after the current step (frames
	// and index stay consistent); then the default handling is restored,
	// so a second one kills a long Init or step at once.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		stop()
	}()
	fi, err := os.Stderr.Stat()
	terminal := err == nil && fi.Mode()&os.ModeCharDevice != 0
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr, terminal)
	stop()
	os.Exit(code)
}

// run is the whole program; terminal says whether stderr is a terminal
// (progress is shown only then).
func run(ctx context.Context, args []string, stdout, stderr io.Writer, terminal bool) int {
	opt, err := parseFlags(args, stdout)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "runscene: %v\n%s\n", err, usageLine)
		return exitUsage
	}
	switch {
	case opt.list:
		listTypes(stdout)
		return exitOK
	case opt.doc != "":
		if err := docType(stdout, opt.doc); err != nil {
			fmt.Fprintf(stderr, "runscene: %v\n", err)
			return exitUsage
		}
		return exitOK
	}
	r := &runner{opt: opt, stdout: stdout, stderr: stderr, terminal: terminal}
	return r.run(ctx)
}

func parseFlags(args []string, help io.Writer) (*options, error) {
	opt := &options{steps: -1, every: 1}
	fs := flag.NewFlagSet("runscene", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.IntVar(&opt.steps, "steps", -1, "number of steps (default: the scene's `steps`)")
	fs.Float64Var(&opt.dt, "dt", 0, "time step in `seconds`, overriding the scene's dt")
	fs.StringVar(&opt.dump, "dump", "", "write the final state as JSON to `FILE` (positions, velocities, forces, energies)")
	fs.StringVar(&opt.out, "out", "", "write a VTU file per frame and a .pvd index per state into `DIR` (for ParaView)")
	fs.BoolVar(&opt.list, "list", false, "list the registered component types by kind")
	fs.StringVar(&opt.doc, "doc", "", "document the fields of component `TYPE` (defaults, units, ranges)")
	fs.BoolVar(&opt.quiet, "quiet", false, "print neither progress nor summary (errors still go to stderr)")
	fs.IntVar(&opt.every, "every", 1, "write an -out frame every `N` steps (frame 0 and the last step are always written); on a terminal, also update the progress line every N steps instead of ten times a second")
	fs.Usage = func() {
		fmt.Fprintln(help, "runscene runs a scene headless: runscene [flags] SCENE.toml")
		fmt.Fprintln(help, "\nFlags (before or after the scene file):")
		fs.SetOutput(help)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
		fmt.Fprintln(help, "\nExit status: 0 success, 1 scene or run-time error, 2 usage error, 130 interrupted.")
	}
	// Accept flags after the scene file too: parse, take one positional
	// argument, parse the rest.
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fs.Usage()
				return nil, err
			}
			return nil, &usageError{err.Error()}
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if opt.list || opt.doc != "" {
		if opt.list && opt.doc != "" {
			return nil, &usageError{"-list and -doc cannot be combined"}
		}
		return opt, nil
	}
	switch {
	case len(pos) == 0:
		return nil, &usageError{"no scene file given"}
	case len(pos) > 1:
		return nil, &usageError{fmt.Sprintf("one scene file expected, got %d: %s", len(pos), strings.Join(pos, " "))}
	case set["steps"] && opt.steps < 0:
		return nil, &usageError{fmt.Sprintf("-steps must be 0 or more, got %d", opt.steps)}
	case set["dt"] && !(opt.dt > 0 && !math.IsInf(opt.dt, 1)):
		return nil, &usageError{fmt.Sprintf("-dt must be a positive finite number of seconds, got %g", opt.dt)}
	case opt.every < 1:
		return nil, &usageError{fmt.Sprintf("-every must be 1 or more, got %d", opt.every)}
	case set["dump"] && opt.dump == "":
		return nil, &usageError{"-dump needs a file name"}
	case set["out"] && opt.out == "":
		return nil, &usageError{"-out needs a folder name"}
	}
	opt.everySet = set["every"]
	opt.scene = pos[0]
	return opt, nil
}

// listTypes prints every registered type grouped by kind, with the first
// sentence of its summary.
func listTypes(w io.Writer) {
	byKind := map[graph.Kind][]graph.TypeInfo{}
	width := 0
	for _, t := range graph.Types() {
		byKind[t.Kind] = append(byKind[t.Kind], t)
		width = max(width, len(t.Name))
	}
	for _, k := range graph.Kinds {
		if len(byKind[k]) == 0 {
			continue
		}
		fmt.Fprintln(w, k)
		for _, t := range byKind[k] {
			fmt.Fprintf(w, "  %-*s  %s\n", width, t.Name, firstSentence(t.Summary))
		}
	}
	fmt.Fprintln(w, "\nrunscene -doc TYPE documents a type's fields.")
}

// firstSentence returns s up to the end of its first sentence (a period
// followed by a space and a capital letter, or the end).
func firstSentence(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	for i := 0; i+2 < len(s); i++ {
		if s[i] == '.' && s[i+1] == ' ' && s[i+2] >= 'A' && s[i+2] <= 'Z' {
			return s[:i+1]
		}
	}
	return s
}

// docType prints a type's summary and a table of its fields.
func docType(w io.Writer, name string) error {
	t, ok := graph.Lookup(name)
	if !ok {
		msg := fmt.Sprintf("unknown component type %q", name)
		if s := graph.Suggest(name); s != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", s)
		}
		return errors.New(msg + "; runscene -list shows them all")
	}
	fmt.Fprintf(w, "%s (%s)\n\n", t.Name, t.Kind)
	fmt.Fprintln(w, wrap(t.Summary, 78, "  "))
	fields := graph.FieldDocs(t)
	fmt.Fprintln(w)
	if len(fields) == 0 {
		fmt.Fprintln(w, "Fields: none besides type and name.")
		return nil
	}
	fmt.Fprintln(w, "Fields (besides type and name):")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  NAME\tTYPE\tDEFAULT\tUNIT\tRANGE/ENUM\tREQUIRED\tDOC")
	for _, f := range fields {
		constraint := f.Range
		if len(f.Enum) > 0 {
			constraint = strings.Join(f.Enum, "|")
		}
		req := "no"
		if f.Required {
			req = "yes"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%s\n", f.Name, f.Type, dash(shorten(f.Default, 30)), dash(f.Unit), dash(constraint), req, f.Doc)
	}
	return tw.Flush()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-3] + "..."
}

func wrap(s string, width int, indent string) string {
	var lines []string
	line := indent
	for _, word := range strings.Fields(s) {
		if len(line) > len(indent) && len(line)+1+len(word) > width {
			lines = append(lines, line)
			line = indent
		}
		if len(line) > len(indent) {
			line += " "
		}
		line += word
	}
	return strings.Join(append(lines, line), "\n")
}

// runner runs one scene.
type runner struct {
	opt      *options
	stdout   io.Writer
	stderr   io.Writer
	terminal bool

	scene   *graph.Scene
	solvers []*solverStats
}

// fail prints err as one line located in the scene file and returns the
// scene-error exit code.
func (r *runner) fail(err error) int {
	fmt.Fprintln(r.stderr, oneLine(r.opt.scene, err))
	return exitScene
}

// oneLine formats err as "file:line: message" on one line: graph errors
// already start with the file; others get the scene file as prefix.
func oneLine(file string, err error) string {
	msg := strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), "\n", "; ")), " ")
	if !strings.HasPrefix(msg, file+":") {
		msg = file + ": " + msg
	}
	return msg
}

func (r *runner) run(ctx context.Context) int {
	opt := r.opt
	s, err := graph.LoadFile(opt.scene)
	if err != nil {
		return r.fail(err)
	}
	r.scene = s
	if opt.dt > 0 {
		s.Dt = opt.dt
	}
	steps := s.Steps
	if opt.steps >= 0 {
		steps = opt.steps
	}
	if err := s.Init(); err != nil {
		return r.fail(err)
	}
	var out *visual.SceneWriter
	if opt.out != "" {
		if out, err = visual.NewSceneWriter(opt.out, s.Root); err != nil {
			return r.fail(err)
		}
		if err := out.WriteFrame(s.Time); err != nil {
			return r.fail(err)
		}
	}

	r.solvers = collectSolvers(s)
	prog := newProgress(r.stderr, r.terminal && !opt.quiet, steps, opt.every, opt.everySet)
	start := time.Now()
	var stepErr error
	interrupted := false
	for i := 0; i < steps; i++ {
		if ctx.Err() != nil {
			interrupted = true
			break
		}
		if stepErr = s.Step(); stepErr != nil {
			break
		}
		for _, st := range r.solvers {
			st.record()
		}
		if out != nil && (s.StepCount%opt.every == 0 || i == steps-1) {
			if err := out.WriteFrame(s.Time); err != nil {
				stepErr = err
				break
			}
		}
		prog.update(i+1, s.Time, time.Since(start))
	}
	wall := time.Since(start)
	prog.clear()
	closeErr := s.Close()
	if stepErr != nil {
		return r.fail(stepErr)
	}
	if closeErr != nil {
		return r.fail(closeErr)
	}
	if interrupted {
		fmt.Fprintf(r.stderr, "%s: interrupted after step %d (t = %g s); no dump written\n", opt.scene, s.StepCount, s.Time)
		if !opt.quiet {
			r.summary(wall, out)
		}
		return exitInterrupted
	}
	if opt.dump != "" {
		if err := writeDump(opt.dump, s); err != nil {
			return r.fail(err)
		}
	}
	if !opt.quiet {
		r.summary(wall, out)
	}
	return exitOK
}

// summary prints the run's figures to stdout.
func (r *runner) summary(wall time.Duration, out *visual.SceneWriter) {
	s := r.scene
	ke, pe := s.Energies()
	tw := tabwriter.NewWriter(r.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "scene\t%s\n", r.opt.scene)
	fmt.Fprintf(tw, "steps\t%d (dt = %g s)\n", s.StepCount, s.Dt)
	fmt.Fprintf(tw, "simulated time\t%.10g s\n", s.Time)
	if s.StepCount > 0 {
		fmt.Fprintf(tw, "wall time\t%.3f s (%.3f ms/step)\n", wall.Seconds(), wall.Seconds()*1e3/float64(s.StepCount))
	}
	fmt.Fprintf(tw, "kinetic energy\t%.9g J\n", ke)
	fmt.Fprintf(tw, "potential energy\t%.9g J\n", pe)
	for _, st := range r.solvers {
		if st.steps > 0 {
			fmt.Fprintf(tw, "%s\t%s\n", st.solver.Base().Path(), st)
		}
	}
	if out != nil {
		fmt.Fprintf(tw, "output\t%d frame(s) of %d series in %s\n", out.Frames(), len(out.Series), out.Dir)
		if len(out.Skipped) > 0 {
			fmt.Fprintf(tw, "not written\t%s (no position in space)\n", strings.Join(out.Skipped, ", "))
		}
	}
	if r.opt.dump != "" {
		fmt.Fprintf(tw, "dump\t%s\n", r.opt.dump)
	}
	tw.Flush()
}

// linearStatser is implemented by ODE solvers that report how their
// linear solve went in the most recent step.
type linearStatser interface {
	graph.ODESolver
	LastStats() graph.LinearStats
}

// solverStats accumulates, per ODE solver, the linear-solver figures of
// every step: they cost nothing to collect and tell at once whether the
// linear solves converged.
type solverStats struct {
	solver      linearStatser
	steps       int
	iterations  int
	maxIter     int
	maxResidual float64
	unconverged int
}

func collectSolvers(s *graph.Scene) []*solverStats {
	var out []*solverStats
	s.Root.Walk(func(n *graph.Node) error {
		for _, o := range n.Objects {
			if ls, ok := o.(linearStatser); ok {
				out = append(out, &solverStats{solver: ls})
			}
		}
		return nil
	})
	return out
}

func (st *solverStats) record() {
	l := st.solver.LastStats()
	st.steps++
	st.iterations += l.Iterations
	st.maxIter = max(st.maxIter, l.Iterations)
	st.maxResidual = max(st.maxResidual, l.Residual)
	if !l.Converged {
		st.unconverged++
	}
}

func (st *solverStats) String() string {
	return fmt.Sprintf("linear solve: %.1f iterations/step (max %d), max relative residual %.3g, %d step(s) not converged",
		float64(st.iterations)/float64(st.steps), st.maxIter, st.maxResidual, st.unconverged)
}

// progress draws a one-line progress indicator on a terminal.
type progress struct {
	w        io.Writer
	on       bool
	total    int
	every    int
	everySet bool
	last     time.Time
	drawn    bool
}

func newProgress(w io.Writer, on bool, total, every int, everySet bool) *progress {
	return &progress{w: w, on: on && total > 0, total: total, every: every, everySet: everySet}
}

func (p *progress) update(step int, t float64, elapsed time.Duration) {
	if !p.on {
		return
	}
	if p.everySet {
		if step%p.every != 0 && step != p.total {
			return
		}
	} else if now := time.Now(); now.Sub(p.last) < 100*time.Millisecond && step != p.total {
		return
	} else {
		p.last = now
	}
	perStep := elapsed.Seconds() / float64(step)
	eta := time.Duration(perStep * float64(p.total-step) * float64(time.Second))
	fmt.Fprintf(p.w, "\r\033[Kstep %d/%d  t = %.6g s  %.3g ms/step  ETA %s", step, p.total, t, perStep*1e3, eta.Round(100*time.Millisecond))
	p.drawn = true
}

func (p *progress) clear() {
	if p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
