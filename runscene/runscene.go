// Package runscene is the runscene command line as a library: Main(args)
// is the whole program, so a user's own module can build a runscene that
// also registers their own components:
//
//	package main
//
//	import (
//		"os"
//
//		_ "example.com/mycomponents"
//		"github.com/sofago/sofago/runscene"
//	)
//
//	func main() { os.Exit(runscene.Main(os.Args[1:])) }
//
// The command runs a scene headless:
//
//	runscene [flags] SCENE.toml
//
// It loads and initialises the scene, advances it -steps times (default:
// the scene's steps), shows a progress bar on a terminal (never in a
// pipe), and prints a summary table: steps, simulated time, wall time per
// step, energies, each solver's linear solves, every output written. With
// -steps 0 it only initialises the scene, which with -dump gives the forces
// at the initial configuration.
//
// Pictures need no GPU and no display (package render, a software
// rasteriser): -frames DIR writes a PNG every -every steps, -picture FILE
// the final state, -gif FILE an animation of the run, -plot FILE the
// energies against time.
//
// Errors are one line "file:line: message" on stderr. A run that blows up
// stops at the step where it happens, with NaN or without: a point beyond
// the region the scene can reach or a non-finite energy (see
// graph.DivergenceFactor) is an error naming the step, the state and the
// likely cause. A run in which a linear or Newton solve did not converge
// finishes, then prints one warning line per such solver on stderr (its
// path and the count of unconverged steps) and exits with status 3 unless
// -allow-unconverged is given. Output paths (-dump, -picture, -plot, -gif,
// -out, -frames) are created, and checked writable, before the run. An
// interrupt (SIGINT, SIGTERM) stops the run after the current step and
// still writes the outputs of that last completed step (dump, final frame
// of -out, -frames and -gif, picture, plot).
//
// Exit status:
//
//	0    success
//	1    scene or run-time error (including a diverged run, an output path
//	     that cannot be created)
//	2    usage error (including a -set the scene rejects)
//	3    a linear or Newton solve did not converge (not with -allow-unconverged)
//	130  interrupted
//
// -set PATH=VALUE (repeatable) overrides one value of the scene before it
// is built: a field of an object by its node path and name
// (-set beam/fem.youngModulus=2e6), a root key (-set dt=0.005), a node's
// gravity (-set beam.gravity=[0,0,-9.81]); see graph.Override. The value
// is typed and checked exactly like the file's; a bad one is a usage error
// naming the flag and the field, with a did-you-mean.
//
// Flags may come before or after the scene file; -h prints them once, and
// a mistake in them is one line with a hint to -h. -list and -doc document
// the registered component types (-doc scene: the scene file's root keys)
// and need no scene. -cache DIR says where precomputations are cached
// (over the scene's cacheDir and the user cache folder). Times are printed
// without floating-point noise (graph.FormatTime).
package runscene

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	_ "github.com/sofago/sofago/components/all"
	"github.com/sofago/sofago/components/collision"
	"github.com/sofago/sofago/components/visual"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/render"
)

// Exit codes.
const (
	exitOK          = 0
	exitScene       = 1 // the scene or the run failed (or diverged)
	exitUsage       = 2
	exitUnconverged = 3   // a linear or Newton solve did not converge
	exitInterrupted = 130 // SIGINT, as shells report it
)

// exitStatusHelp is the exit-status paragraph of -h.
const exitStatusHelp = `Exit status: 0 success; 1 scene or run-time error (a diverged run, an output
path that cannot be created); 2 usage error (a -set the scene rejects too); 3 a linear or Newton solve did not
converge (one warning line per solver on stderr; -allow-unconverged makes it 0);
130 interrupted (the outputs of the last completed step are still written).`

type options struct {
	steps int // < 0: the scene's
	cache string
	dt    float64
	dump  string
	out   string
	list  bool
	doc   string
	quiet bool
	// allowUnconverged: unconverged solves are warned about, exit 0.
	allowUnconverged bool
	every            int
	everySet         bool
	scene            string
	// overrides from -set, in order
	overrides []graph.Override

	// pictures
	frames      string // folder of PNG frames
	picture     string // PNG of the final state
	gif         string // animated GIF
	plot        string // energy plot PNG
	width       int
	height      int
	wireframe   bool
	noGrid      bool
	supersample int
	eye, center *geom.Vec3
}

// wantPictures reports whether the run draws its surfaces.
func (o *options) wantPictures() bool { return o.frames != "" || o.picture != "" || o.gif != "" }

// usageError is a mistake in the command line (exit code 2).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// Main runs the command line with args (without the program name) and
// returns the exit status; cmd/runscene's main is os.Exit(Main(os.Args[1:])).
func Main(args []string) int {
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
	code := run(ctx, args, os.Stdout, os.Stderr, terminal)
	stop()
	return code
}

// run is the whole program; terminal says whether stderr is a terminal
// (progress is shown only then).
func run(ctx context.Context, args []string, stdout, stderr io.Writer, terminal bool) int {
	code, _ := runObserved(ctx, args, stdout, stderr, terminal, nil)
	return code
}

// runObserved is run with an observer; it also returns the runner of a
// scene run (nil for -h, -list, -doc and usage errors).
func runObserved(ctx context.Context, args []string, stdout, stderr io.Writer, terminal bool, obs *Observer) (int, *runner) {
	opt, err := parseFlags(args, stdout)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK, nil
	}
	if err != nil {
		fmt.Fprintf(stderr, "runscene: %v (runscene -h lists the flags)\n", err)
		return exitUsage, nil
	}
	switch {
	case opt.list:
		listTypes(stdout)
		return exitOK, nil
	case opt.doc != "":
		if err := docType(stdout, opt.doc); err != nil {
			fmt.Fprintf(stderr, "runscene: %v\n", err)
			return exitUsage, nil
		}
		return exitOK, nil
	}
	r := &runner{opt: opt, stdout: stdout, stderr: stderr, terminal: terminal, obs: obs}
	return r.run(ctx), r
}

// stepsFlag is -steps: unset (the scene's steps key) until given. Its zero
// value prints as "", so -h shows no "(default -1)" beside its help.
type stepsFlag struct {
	n   int
	set bool
}

func (f *stepsFlag) String() string {
	if f == nil || !f.set {
		return ""
	}
	return strconv.Itoa(f.n)
}

func (f *stepsFlag) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil {
		return errors.New("not an integer")
	}
	if n < 0 {
		return fmt.Errorf("must be 0 or more, got %d", n)
	}
	f.n, f.set = n, true
	return nil
}

// parseFlags parses the command line. -h prints the help to help once and
// returns flag.ErrHelp; a mistake is a *usageError of one line (main adds
// the hint to -h), never the whole help.
func parseFlags(args []string, help io.Writer) (*options, error) {
	opt := &options{steps: -1, every: 1}
	fs := flag.NewFlagSet("runscene", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var steps stepsFlag
	fs.Var(&steps, "steps", "take `N` steps, 0 or more; 0 only initialises the scene (default: the scene's steps key)")
	fs.StringVar(&opt.cache, "cache", "", "keep precomputation caches (reduced models, spring networks) in `DIR` (default: the scene's cacheDir key, else the user cache folder/sofago)")
	fs.Float64Var(&opt.dt, "dt", 0, "time step in `seconds`, overriding the scene's dt")
	fs.StringVar(&opt.dump, "dump", "", "write the final state as JSON to `FILE` (positions, velocities, forces, energies)")
	fs.StringVar(&opt.out, "out", "", "write a VTU file per frame and a .pvd index per state into `DIR` (for ParaView)")
	fs.BoolVar(&opt.list, "list", false, "list the registered component types by kind")
	fs.StringVar(&opt.doc, "doc", "", "document the fields of component `TYPE` (defaults, units, ranges); -doc scene: the scene file's root keys")
	fs.BoolVar(&opt.quiet, "quiet", false, "print neither progress nor summary (errors, warnings and the scene's notes still go to stderr)")
	fs.BoolVar(&opt.allowUnconverged, "allow-unconverged", false, "exit 0, not 3, when a linear or Newton solve did not converge (the warning is still printed)")
	fs.IntVar(&opt.every, "every", 1, "write an -out, -frames and -gif frame every `N` steps (frame 0 and the last step are always written); on a terminal, also update the progress line every N steps instead of ten times a second")
	fs.StringVar(&opt.frames, "frames", "", "write a PNG picture of the visual surfaces every -every steps into `DIR` (frame_000000.png, ...)")
	fs.StringVar(&opt.picture, "picture", "", "write a PNG picture of the final state to `FILE`")
	fs.StringVar(&opt.gif, "gif", "", "write an animated GIF of the run (a frame every -every steps, played in real time where GIF delays allow) to `FILE`")
	fs.StringVar(&opt.plot, "plot", "", "write a PNG plot of kinetic, potential and total energy against time to `FILE`")
	size := fs.String("size", "800x600", "picture size `WxH` in pixels")
	fs.BoolVar(&opt.wireframe, "wireframe", false, "draw the triangle edges over the shaded surfaces")
	fs.BoolVar(&opt.noGrid, "nogrid", false, "leave out the ground grid")
	fs.IntVar(&opt.supersample, "supersample", 1, "anti-alias pictures by rendering `K`×K samples per pixel (1: none; costs K² times as much)")
	eye := fs.String("eye", "", "camera position `X,Y,Z` (default: the scene's Camera, or fitted to the surfaces)")
	center := fs.String("center", "", "point `X,Y,Z` the camera looks at (default: the scene's Camera, or the surfaces' centre)")
	var sets stringList
	fs.Var(&sets, "set", "override a scene value, typed and checked like the file's (repeatable): `PATH=VALUE` with PATH node/path/object.field (beam/fem.youngModulus=2e6), a root key (dt=0.005) or node.gravity")
	// The flag package calls Usage on every parse error as well as on -h:
	// it prints nothing, so a mistake gives one line and -h the help once.
	fs.Usage = func() {}
	printHelp := func() {
		fmt.Fprintln(help, "runscene runs a scene headless: runscene [flags] SCENE.toml")
		fmt.Fprintln(help, "\nFlags (before or after the scene file):")
		fs.SetOutput(help)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
		fmt.Fprintln(help, "\nrunscene -doc scene documents the scene file's root keys (dt, gravity, steps, cacheDir).")
		fmt.Fprintln(help, exitStatusHelp)
	}
	// Accept flags after the scene file too: parse, take one positional
	// argument, parse the rest.
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				printHelp()
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
		return nil, &usageError{"no scene file given; usage: runscene [flags] SCENE.toml"}
	case len(pos) > 1:
		return nil, &usageError{fmt.Sprintf("one scene file expected, got %d: %s", len(pos), strings.Join(pos, " "))}
	case set["cache"] && strings.TrimSpace(opt.cache) == "":
		return nil, &usageError{"-cache needs a folder name"}
	case set["dt"] && !(opt.dt > 0 && !math.IsInf(opt.dt, 1)):
		return nil, &usageError{fmt.Sprintf("-dt must be a positive finite number of seconds, got %g", opt.dt)}
	case opt.every < 1:
		return nil, &usageError{fmt.Sprintf("-every must be 1 or more, got %d", opt.every)}
	case set["dump"] && opt.dump == "":
		return nil, &usageError{"-dump needs a file name"}
	case set["out"] && opt.out == "":
		return nil, &usageError{"-out needs a folder name"}
	case set["frames"] && opt.frames == "":
		return nil, &usageError{"-frames needs a folder name"}
	case opt.supersample < 1 || opt.supersample > 8:
		return nil, &usageError{fmt.Sprintf("-supersample must be 1 to 8, got %d", opt.supersample)}
	}
	for _, f := range []struct {
		flag, value, ext string
	}{{"picture", opt.picture, ".png"}, {"plot", opt.plot, ".png"}, {"gif", opt.gif, ".gif"}} {
		if set[f.flag] && !strings.EqualFold(filepath.Ext(f.value), f.ext) {
			return nil, &usageError{fmt.Sprintf("-%s needs a %s file name, got %q", f.flag, f.ext, f.value)}
		}
	}
	var err error
	if opt.width, opt.height, err = parseSize(*size); err != nil {
		return nil, &usageError{"-size: " + err.Error()}
	}
	if opt.eye, err = parseVec(*eye); err != nil {
		return nil, &usageError{"-eye: " + err.Error()}
	}
	if opt.center, err = parseVec(*center); err != nil {
		return nil, &usageError{"-center: " + err.Error()}
	}
	for _, a := range sets {
		o, err := graph.ParseOverride(a)
		if err != nil {
			return nil, &usageError{err.Error()}
		}
		opt.overrides = append(opt.overrides, o)
	}
	opt.everySet = set["every"]
	if steps.set {
		opt.steps = steps.n
	}
	opt.scene = pos[0]
	return opt, nil
}

// stringList collects the values of a repeatable flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, " ") }
func (l *stringList) Set(s string) error { *l = append(*l, s); return nil }

// parseSize parses "WxH".
func parseSize(s string) (w, h int, err error) {
	a, b, ok := strings.Cut(strings.ToLower(s), "x")
	if ok {
		w, err = strconv.Atoi(a)
		if err == nil {
			h, err = strconv.Atoi(b)
		}
	}
	if !ok || err != nil || w < 16 || h < 16 || w > 16384 || h > 16384 {
		return 0, 0, fmt.Errorf("want WxH with 16 ≤ W, H ≤ 16384 pixels, e.g. 800x600; got %q", s)
	}
	return w, h, nil
}

// parseVec parses "x,y,z" ("" is nil).
func parseVec(s string) (*geom.Vec3, error) {
	if s == "" {
		return nil, nil
	}
	parts := strings.Split(s, ",")
	if len(parts) != 3 {
		return nil, fmt.Errorf("want three numbers X,Y,Z, got %q", s)
	}
	var v geom.Vec3
	for i, p := range parts {
		x, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("want three finite numbers X,Y,Z, got %q", s)
		}
		v[i] = x
	}
	return &v, nil
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

// docType prints a type's summary and a table of its fields; "scene"
// documents the scene file's root keys.
func docType(w io.Writer, name string) error {
	if name == "scene" {
		return docScene(w)
	}
	t, ok := graph.Lookup(name)
	if !ok {
		return errors.New(graph.UnknownType(name))
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

// docScene prints the root keys of a scene file from graph.SceneKeys, the
// table the loader validates them with.
func docScene(w io.Writer) error {
	fmt.Fprintln(w, "scene (the root of a scene file)")
	fmt.Fprintln(w)
	fmt.Fprintln(w, wrap("A scene file is TOML: these root keys, then the tree of [[node]] tables. A key left out takes its default. Units are SI.", 78, "  "))
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Root keys:")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  NAME\tTYPE\tDEFAULT\tUNIT\tDOC")
	for _, k := range graph.SceneKeys() {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", k.Name, k.Type, dash(k.Default), dash(k.Unit), k.Doc)
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
	obs      *Observer // nil: none (see Run)
	report   Report

	scene    *graph.Scene
	solvers  []*solverStats
	contacts []*collision.ContactFigures

	pics      *render.Pictures
	anim      *render.GIF
	pngFrames int
	renders   int
	drawTime  time.Duration
	// energies per step for -plot (index 0: the initial state)
	times, kinetic, potential []float64
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
	t0 := time.Now()
	s, err := graph.LoadFileWith(opt.scene, opt.overrides)
	if err != nil {
		// A -set the scene rejects is a mistake in the command line.
		var oe *graph.OverrideError
		if errors.As(err, &oe) {
			fmt.Fprintln(r.stderr, oneLine(opt.scene, err))
			return exitUsage
		}
		return r.fail(err)
	}
	r.report.Load = time.Since(t0)
	r.scene = s
	if opt.dt > 0 {
		s.Dt = opt.dt
	}
	if opt.cache != "" {
		s.CacheDir = opt.cache // the flag wins over the scene's cacheDir
	}
	steps := s.Steps
	if opt.steps >= 0 {
		steps = opt.steps
	}
	// Before Init (which may precompute for minutes): an output that
	// cannot be written fails now, not after the run.
	if err := prepareOutputs(opt); err != nil {
		fmt.Fprintf(r.stderr, "runscene: %v\n", err)
		return exitScene
	}
	t0 = time.Now()
	if err := s.Init(); err != nil {
		if hint := graph.OverridesHint(err, opt.overrides); hint != "" {
			err = fmt.Errorf("%w%s", err, hint)
		}
		return r.fail(err)
	}
	r.report.Init = time.Since(t0)
	r.report.Scene = s
	if err := s.CheckRunnable(); err != nil {
		return r.fail(err)
	}
	if opt.quiet {
		// -quiet has no summary, but what the scene changed from what its
		// file says is never silent: the notes go to stderr.
		for _, n := range s.Notes() {
			fmt.Fprintln(r.stderr, "note: "+n)
		}
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
	if err := r.startPictures(); err != nil {
		return r.fail(err)
	}
	if err := r.frame(); err != nil {
		return r.fail(err)
	}
	r.recordEnergy()
	if err := r.observe(); err != nil {
		return r.fail(err)
	}

	r.solvers = collectSolvers(s)
	r.contacts = collision.CollectContactReporters(s)
	prog := newProgress(r.stderr, r.terminal && !opt.quiet, steps, opt.every, opt.everySet)
	start := time.Now()
	var stepErr error
	interrupted := false
	framed := 0 // the step of the last -out, -frames and -gif frame
	writeFrames := func() error {
		if out != nil {
			if err := out.WriteFrame(s.Time); err != nil {
				return err
			}
		}
		if err := r.frame(); err != nil {
			return err
		}
		framed = s.StepCount
		return nil
	}
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
		for _, c := range r.contacts {
			c.Record()
		}
		r.recordEnergy()
		if stepErr = r.observe(); stepErr != nil {
			break
		}
		if s.StepCount%opt.every == 0 || i == steps-1 {
			if stepErr = writeFrames(); stepErr != nil {
				break
			}
		}
		prog.update(i+1, s.Time, time.Since(start))
	}
	wall := time.Since(start)
	r.report.Steps = wall
	prog.clear()
	if interrupted && framed != s.StepCount {
		// The series and the animation end with the last completed step,
		// as they do at the end of a run.
		stepErr = writeFrames()
	}
	closeErr := s.Close()
	if stepErr != nil {
		return r.fail(stepErr)
	}
	if closeErr != nil {
		return r.fail(closeErr)
	}
	// Step checks the kinetic energy; the potential energy, as costly as a
	// force evaluation, is checked once here.
	if err := s.CheckEnergy(); err != nil {
		return r.fail(&graph.StepError{Step: s.StepCount, Time: s.Time, Err: err})
	}
	// Pictures and the dump of what ran are written even after an
	// interrupt: they show the last completed step.
	if err := r.finishPictures(); err != nil {
		return r.fail(err)
	}
	if opt.dump != "" {
		if err := writeDump(opt.dump, s); err != nil {
			return r.fail(err)
		}
	}
	code := exitOK
	if interrupted {
		code = exitInterrupted
		msg := fmt.Sprintf("%s: interrupted after step %d (t = %s s)", opt.scene, s.StepCount, graph.FormatTime(s.Time))
		if opt.dump != "" {
			msg += fmt.Sprintf("; the dump of that step is in %s", opt.dump)
		}
		fmt.Fprintln(r.stderr, msg)
	}
	for _, st := range r.solvers {
		if st.unconverged == 0 {
			continue
		}
		fmt.Fprintln(r.stderr, st.warning(opt.scene, opt.allowUnconverged))
		if code == exitOK && !opt.allowUnconverged {
			code = exitUnconverged
		}
	}
	if !opt.quiet {
		r.summary(wall, out, interrupted)
	}
	return code
}

// prepareOutputs creates the folders of the output files (-dump, -picture,
// -plot, -gif) and the output folders (-out, -frames), and checks that
// each folder takes a new file, so that a mistyped or read-only path fails
// before the run rather than after it.
func prepareOutputs(opt *options) error {
	for _, o := range []struct {
		flag, path string
		folder     bool // the path is the folder itself
	}{
		{"-dump", opt.dump, false}, {"-picture", opt.picture, false}, {"-plot", opt.plot, false},
		{"-gif", opt.gif, false}, {"-out", opt.out, true}, {"-frames", opt.frames, true},
	} {
		if o.path == "" {
			continue
		}
		dir := o.path
		if !o.folder {
			dir = filepath.Dir(o.path)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("%s %s: cannot create the folder: %w", o.flag, o.path, err)
		}
		probe, err := os.CreateTemp(dir, ".runscene-probe-*")
		if err != nil {
			return fmt.Errorf("%s %s: cannot write into %s: %w", o.flag, o.path, dir, err)
		}
		probe.Close()
		os.Remove(probe.Name())
		if fi, err := os.Stat(o.path); !o.folder && err == nil && fi.IsDir() {
			return fmt.Errorf("%s %s: is a folder, not a file", o.flag, o.path)
		}
	}
	return nil
}

// startPictures prepares the renderer (and the frames folder, the GIF)
// when the run draws pictures.
func (r *runner) startPictures() error {
	opt := r.opt
	if !opt.wantPictures() {
		return nil
	}
	p, err := render.NewPictures(r.scene, render.Options{Width: opt.width, Height: opt.height,
		Wireframe: opt.wireframe, NoGrid: opt.noGrid, Supersample: opt.supersample})
	if err != nil {
		return fmt.Errorf("pictures: %w", err)
	}
	p.Eye, p.Center = opt.eye, opt.center
	r.pics = p
	if opt.frames != "" {
		if err := os.MkdirAll(opt.frames, 0o755); err != nil {
			return fmt.Errorf("-frames: %w", err)
		}
	}
	if opt.gif != "" {
		colors := p.Colors()
		// Real time: each frame lasts every·dt, in hundredths of a second
		// (GIF viewers treat delays under 2 as 10, so 2 is the floor).
		r.anim = render.NewGIF(colors, int(math.Round(100*float64(opt.every)*r.scene.Dt)))
	}
	return nil
}

// frame draws the current state as the next PNG frame and GIF frame, when
// asked for.
func (r *runner) frame() error {
	if r.pics == nil || (r.opt.frames == "" && r.anim == nil) {
		return nil
	}
	t0 := time.Now()
	img, err := r.pics.Render()
	if err != nil {
		return err
	}
	r.renders++
	if r.opt.frames != "" {
		path := filepath.Join(r.opt.frames, fmt.Sprintf("frame_%06d.png", r.pngFrames))
		if err := render.WritePNG(path, img); err != nil {
			return err
		}
		r.pngFrames++
	}
	if r.anim != nil {
		if err := r.anim.Add(img); err != nil {
			return err
		}
	}
	r.drawTime += time.Since(t0)
	return nil
}

// recordEnergy keeps the energies for -plot.
func (r *runner) recordEnergy() {
	if r.opt.plot == "" {
		return
	}
	k, p := r.scene.Energies()
	r.times = append(r.times, r.scene.Time)
	r.kinetic = append(r.kinetic, k)
	r.potential = append(r.potential, p)
}

// finishPictures writes the final picture, the GIF and the energy plot.
func (r *runner) finishPictures() error {
	opt := r.opt
	if opt.picture != "" {
		t0 := time.Now()
		img, err := r.pics.Render()
		if err != nil {
			return err
		}
		r.renders++
		if err := render.WritePNG(opt.picture, img); err != nil {
			return err
		}
		r.drawTime += time.Since(t0)
	}
	if r.anim != nil {
		if err := r.anim.Write(opt.gif); err != nil {
			return err
		}
	}
	if opt.plot != "" {
		if err := render.WriteEnergyPlot(opt.plot, filepath.Base(opt.scene), r.times, r.kinetic, r.potential); err != nil {
			return err
		}
	}
	return nil
}

// outputReporter is implemented by the scene's exporters (VTKExporter,
// OBJExporter, STLExporter, EnergyLogger): what they wrote, for the
// summary.
type outputReporter interface {
	Output() (what string, frames, files int, where string)
}

// summary prints the run's figures to stdout: the run, then a table of
// the solvers' Newton iterations and linear solves and a table of the
// outputs.
func (r *runner) summary(wall time.Duration, out *visual.SceneWriter, interrupted bool) {
	s := r.scene
	ke, pe := s.Energies()
	tw := tabwriter.NewWriter(r.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "scene\t%s\n", r.opt.scene)
	fmt.Fprintf(tw, "steps\t%d (dt = %s s)\n", s.StepCount, graph.FormatTime(s.Dt))
	if interrupted {
		fmt.Fprintf(tw, "interrupted\tafter step %d; the outputs below show that step\n", s.StepCount)
	}
	fmt.Fprintf(tw, "simulated time\t%s s\n", graph.FormatTime(s.Time))
	if s.StepCount > 0 {
		fmt.Fprintf(tw, "wall time\t%.3f s (%.3f ms/step)\n", wall.Seconds(), wall.Seconds()*1e3/float64(s.StepCount))
	}
	fmt.Fprintf(tw, "kinetic energy\t%.9g J\n", ke)
	fmt.Fprintf(tw, "potential energy\t%.9g J\n", pe)
	tw.Flush()

	if notes := s.Notes(); len(notes) > 0 {
		fmt.Fprintln(r.stdout)
		fmt.Fprintln(r.stdout, "notes")
		for _, n := range notes {
			fmt.Fprintln(r.stdout, "  "+n)
		}
	}

	var solvers []*solverStats
	newton := false
	for _, st := range r.solvers {
		if st.steps > 0 {
			solvers = append(solvers, st)
			newton = newton || st.newton != nil
		}
	}
	if len(solvers) > 0 {
		fmt.Fprintln(r.stdout)
		tw = tabwriter.NewWriter(r.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprint(tw, "solver\tsteps\t")
		if newton {
			fmt.Fprint(tw, "Newton iterations/step\tmax Newton residual\t")
		}
		fmt.Fprintln(tw, "linear iterations/step\tmax iterations\tmax relative residual\tsteps not converged")
		for _, st := range solvers {
			fmt.Fprintf(tw, "%s\t%d\t", st.solver.Base().Path(), st.steps)
			if newton {
				nIter, nRes := "-", "-"
				if st.newton != nil {
					nIter = fmt.Sprintf("%.1f", float64(st.newtonIterations)/float64(st.steps))
				}
				if st.newtonTested > 0 {
					nRes = fmt.Sprintf("%.3g", st.maxNewtonResidual)
				}
				fmt.Fprintf(tw, "%s\t%s\t", nIter, nRes)
			}
			fmt.Fprintf(tw, "%.1f\t%d\t%.3g\t%d\n", float64(st.iterations)/float64(st.steps), st.maxIter, st.maxResidual, st.unconverged)
		}
		tw.Flush()
	}

	if len(r.contacts) > 0 {
		fmt.Fprintln(r.stdout)
		tw = tabwriter.NewWriter(r.stdout, 0, 4, 2, ' ', 0)
		for _, c := range r.contacts {
			fmt.Fprintf(tw, "%s\t%s\n", c.Reporter.Base().Path(), c)
		}
		tw.Flush()
	}

	type row struct {
		what          string
		frames, files int
		where, note   string
	}
	var rows []row
	if out != nil {
		note := fmt.Sprintf("%d series", len(out.Series))
		if len(out.Skipped) > 0 {
			note += fmt.Sprintf("; not written (no position in space): %s", strings.Join(out.Skipped, ", "))
		}
		rows = append(rows, row{"-out VTU/PVD", out.Frames(), out.Frames()*len(out.Series) + len(out.Series), out.Dir, note})
	}
	s.Root.Walk(func(n *graph.Node) error {
		for _, o := range n.Objects {
			if rep, ok := o.(outputReporter); ok {
				what, frames, files, where := rep.Output()
				rows = append(rows, row{fmt.Sprintf("%s (%s)", o.Base().Path(), what), frames, files, where, ""})
			}
		}
		return nil
	})
	perPicture := ""
	if r.renders > 0 {
		perPicture = fmt.Sprintf("%.1f ms/picture (%d×%d), drawing and writing", r.drawTime.Seconds()*1e3/float64(r.renders), r.opt.width, r.opt.height)
	}
	if r.opt.frames != "" {
		rows = append(rows, row{"-frames PNG", r.pngFrames, r.pngFrames, r.opt.frames, perPicture})
	}
	if r.anim != nil {
		rows = append(rows, row{"-gif", r.anim.Frames(), 1, r.opt.gif, fmt.Sprintf("%d ms/frame", 10*r.anim.Delay)})
	}
	if r.opt.picture != "" {
		note := ""
		if r.opt.frames == "" {
			note = perPicture
		}
		rows = append(rows, row{"-picture", 1, 1, r.opt.picture, note})
	}
	if r.opt.plot != "" {
		rows = append(rows, row{"-plot", len(r.times), 1, r.opt.plot, "energy against time"})
	}
	if r.opt.dump != "" {
		note := "final state"
		if interrupted {
			note = fmt.Sprintf("state at step %d (interrupted)", s.StepCount)
		}
		rows = append(rows, row{"-dump", 1, 1, r.opt.dump, note})
	}
	if len(rows) > 0 {
		fmt.Fprintln(r.stdout)
		tw = tabwriter.NewWriter(r.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "output\tframes\tfiles\twhere\t")
		for _, o := range rows {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\n", o.what, o.frames, o.files, o.where, o.note)
		}
		tw.Flush()
	}
}

// solverStats accumulates, per ODE solver, the Newton and linear-solver
// figures of every step: they cost nothing to collect and tell at once
// whether the solves converged.
type solverStats struct {
	solver      visual.LinearStatser
	newton      visual.NewtonStatser // nil for a solver without Newton iterations
	steps       int
	iterations  int
	maxIter     int
	maxResidual float64
	// steps in which a linear solve did not converge, in which Newton did
	// not, and in which either did not
	linearUnconverged, newtonUnconverged, unconverged int

	newtonIterations  int
	newtonTested      int // steps with a Newton convergence test
	maxNewtonResidual float64
}

func collectSolvers(s *graph.Scene) []*solverStats {
	var out []*solverStats
	s.Root.Walk(func(n *graph.Node) error {
		for _, o := range n.Objects {
			if ls, ok := o.(visual.LinearStatser); ok {
				st := &solverStats{solver: ls}
				st.newton, _ = o.(visual.NewtonStatser)
				out = append(out, st)
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
	bad := !l.Converged
	if bad {
		st.linearUnconverged++
	}
	if st.newton != nil {
		n := st.newton.LastNewton()
		st.newtonIterations += n.Iterations
		if n.Tested {
			st.newtonTested++
			st.maxNewtonResidual = max(st.maxNewtonResidual, n.Residual)
			if !n.Converged {
				st.newtonUnconverged++
				bad = true
			}
		}
	}
	if bad {
		st.unconverged++
	}
}

// warning is the one stderr line about a solver with unconverged steps:
// located at the solver in the scene file, naming its path and the counts.
func (st *solverStats) warning(scene string, allowed bool) string {
	b := st.solver.Base()
	loc := scene
	if b.File != "" {
		loc = b.File
		if b.Line > 0 {
			loc = fmt.Sprintf("%s:%d", b.File, b.Line)
		}
	}
	what := fmt.Sprintf("linear solve: %d", st.linearUnconverged)
	hint := "raise the iterations or the tolerance of its linear solver, or lower dt"
	if st.newton != nil {
		what = fmt.Sprintf("Newton: %d, linear solves: %d", st.newtonUnconverged, st.linearUnconverged)
		hint = "raise its Newton iterations or those of its linear solver, or lower dt"
	}
	status := "exit status 3; -allow-unconverged accepts them"
	if allowed {
		status = "accepted by -allow-unconverged"
	}
	return fmt.Sprintf("%s: warning: solver %q: %d of %d steps did not converge (%s); the results may be wrong: %s (%s)",
		loc, b.Path(), st.unconverged, st.steps, what, hint, status)
}

// progress draws a one-line progress bar on a terminal:
//
//	[#########...............]  38%  step 76/200  t = 0.76 s  13.6 ms/step  ETA 1.7s
type progress struct {
	w        io.Writer
	on       bool
	total    int
	every    int
	everySet bool
	last     time.Time
	drawn    bool
}

// barWidth is the number of cells of the progress bar.
const barWidth = 24

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
	done := step * barWidth / p.total
	bar := strings.Repeat("#", done) + strings.Repeat(".", barWidth-done)
	fmt.Fprintf(p.w, "\r\033[K[%s] %3d%%  step %d/%d  t = %.6g s  %.3g ms/step  ETA %s", bar, step*100/p.total, step, p.total, t, perStep*1e3, eta.Round(100*time.Millisecond))
	p.drawn = true
}

func (p *progress) clear() {
	if p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
