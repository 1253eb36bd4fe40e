package runscene

import (
	"context"
	"io"
	"time"

	"github.com/sofago/sofago/graph"
)

// Observer lets a program that embeds runscene watch a run: cmd/sweep
// records chosen states and points at chosen steps through it.
type Observer struct {
	// Step is called after Init (StepCount 0) and after every completed
	// step, before that step's output frames. An error stops the run as a
	// step error (exit status 1).
	Step func(s *graph.Scene) error
}

// Report is what one run measured, for a program embedding runscene. The
// figures are those of the summary table.
type Report struct {
	// Scene is the scene after the run (nil when it did not load or
	// initialise). Its energies and states are those of the last
	// completed step.
	Scene *graph.Scene
	// Solvers holds the Newton and linear-solver figures of every ODE
	// solver that reports them, in scene order.
	Solvers []SolverFigures
	// Outputs lists what the scene's exporters wrote.
	Outputs []Output
	// Wall times of loading (with -set), Init and the steps.
	Load, Init, Steps time.Duration
}

// SolverFigures are one solver's figures over the run.
type SolverFigures struct {
	Path  string // node path and name of the ODE solver
	Steps int    // steps it took
	// LinearIterations is the total over the run; MaxLinearIterations
	// and MaxResidual (relative) the largest of one step.
	LinearIterations, MaxLinearIterations int
	MaxResidual                           float64
	// Unconverged counts the steps in which a linear or Newton solve did
	// not converge.
	Unconverged int
	// Newton is set for solvers with Newton iterations (StaticSolver,
	// NewmarkImplicitSolver); NewtonIterations is their total and
	// MaxNewtonResidual the largest residual of a converged-or-not test.
	Newton            bool
	NewtonIterations  int
	MaxNewtonResidual float64
}

// Output is one exporter's output (VTKExporter, OBJExporter, STLExporter,
// EnergyLogger): what, how many frames and files, and where.
type Output struct {
	Object        string // node path and name
	What          string
	Frames, Files int
	Where         string
}

// Run is Main for a program that embeds runscene: the caller's context
// interrupts the run as SIGINT does (exit status 130, the outputs of the
// last completed step written), output goes to stdout and stderr (never a
// progress bar), no signal is handled, and obs (nil: none) watches the
// steps. It returns the exit status and the run's report (nil for -h,
// -list, -doc and usage errors found before loading).
func Run(ctx context.Context, args []string, stdout, stderr io.Writer, obs *Observer) (int, *Report) {
	code, r := runObserved(ctx, args, stdout, stderr, false, obs)
	if r == nil {
		return code, nil
	}
	rep := r.report
	for _, st := range r.solvers {
		rep.Solvers = append(rep.Solvers, SolverFigures{
			Path: st.solver.Base().Path(), Steps: st.steps,
			LinearIterations: st.iterations, MaxLinearIterations: st.maxIter, MaxResidual: st.maxResidual,
			Unconverged: st.unconverged,
			Newton:      st.newton != nil, NewtonIterations: st.newtonIterations, MaxNewtonResidual: st.maxNewtonResidual,
		})
	}
	if rep.Scene != nil {
		rep.Scene.Root.Walk(func(n *graph.Node) error {
			for _, o := range n.Objects {
				if or, ok := o.(outputReporter); ok {
					what, frames, files, where := or.Output()
					rep.Outputs = append(rep.Outputs, Output{Object: o.Base().Path(), What: what, Frames: frames, Files: files, Where: where})
				}
			}
			return nil
		})
	}
	return code, &rep
}

// observe calls the observer, if any, on the current state.
func (r *runner) observe() error {
	if r.obs == nil || r.obs.Step == nil {
		return nil
	}
	return r.obs.Step(r.scene)
}
