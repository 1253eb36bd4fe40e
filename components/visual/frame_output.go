package visual

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/sofago/sofago/graph"
)

// FrameOutput holds what every exporter of this package shares: its output
// folder, its period, and when it writes. Frame 0 is the initial state,
// written at the end of Scene.Init (through UpdateVisual, which the scene
// calls once every mapping has been applied); then a frame every `every`
// steps; and on Close the last step, if it was completed and fell between
// two frames. A step that failed began (BeginStep) but never reached
// Export: its half-updated state is not written.
//
// Every file is written atomically (a temporary file in the same folder,
// renamed over the target), so an interrupted run never leaves a
// truncated file: each file is either complete or absent (or, for an index
// or a log rewritten in place, its previous complete version).
type FrameOutput struct {
	Directory string `toml:"directory" doc:"output folder, relative to the scene file's folder (default: <scene file name>_<format>, next to the scene file)"`
	Every     int    `toml:"every" doc:"write a frame every N steps (frame 0 and the last step are always written)" range:"[1,inf)"`
	// Sync makes every file synced to disk before its rename, so frames
	// survive a power loss too, not only a killed process (about a
	// millisecond per file; off by default).
	Sync bool `toml:"sync" doc:"fsync every file before renaming it into place (survives a power loss, not only a killed process; slower)"`

	node        *graph.Node
	lastStep    int  // last step Export saw
	writtenStep int  // step of the last frame written (-1: none)
	inStep      bool // a step began (BeginStep) and has not reached Export: it failed
	frames      int  // frames written
	files       int  // files written (a frame may be several files)
}

func newFrameOutput() FrameOutput { return FrameOutput{Every: 1, writtenStep: -1} }

// outputDir returns the folder of an exporter whose default folder is
// <scene stem>_<suffix>, creating it.
func (f *FrameOutput) outputDir(n *graph.Node, suffix string) (string, error) {
	f.node = n
	s := n.Scene()
	dir := f.Directory
	if dir == "" {
		stem := strings.TrimSuffix(filepath.Base(s.File), filepath.Ext(s.File))
		dir = stem + "_" + suffix
	}
	dir = s.ResolvePath(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	return dir, nil
}

// initialFrame reports whether frame 0 is due (UpdateVisual at the end of
// Scene.Init: nothing written yet and no step taken).
func (f *FrameOutput) initialFrame() bool {
	return f.writtenStep < 0 && f.node != nil && f.node.Scene().StepCount == 0
}

// BeginStep implements graph.Behavior: it notes that a step is under way,
// so that Close can tell a failed last step (no Export followed) from a
// completed one.
func (f *FrameOutput) BeginStep(t, dt float64) error {
	f.inStep = true
	return nil
}

// exportDue records a completed step and reports whether it is a frame.
func (f *FrameOutput) exportDue(step int) bool {
	f.inStep = false
	f.lastStep = step
	return step%f.Every == 0
}

// finalDue reports whether Close must write the last step.
func (f *FrameOutput) finalDue() bool {
	return f.node != nil && !f.inStep && f.node.Scene().StepCount == f.lastStep && f.writtenStep != f.lastStep
}

// wrote records a frame written at step with n files.
func (f *FrameOutput) wrote(step, files int) {
	f.writtenStep = step
	f.frames++
	f.files += files
}

// Written reports the frames and files written so far.
func (f *FrameOutput) Written() (frames, files int) { return f.frames, f.files }
