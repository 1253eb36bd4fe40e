package visual

import (
	"path/filepath"
	"strings"

	"github.com/sofago/sofago/graph"
)

// VTKExporter writes the mechanical states of its node and the nodes below
// it as ParaView series (one .vtu per frame and a .pvd index per state,
// see Series), so a scene can ask for output without `runscene -out`.
//
// Frame 0 is the initial state, written once the scene is initialised and
// its mappings applied (through UpdateVisual, which the scene calls after
// Init and before every step's exporters); then a frame every `every`
// steps, and the last step on Close if it fell between two frames.
type VTKExporter struct {
	graph.ObjectBase
	Directory string `toml:"directory" doc:"output folder, relative to the scene file's folder (default: <scene file name>_vtk next to the scene)"`
	Every     int    `toml:"every" doc:"write a frame every N steps" range:"[1,inf)"`

	w           *SceneWriter
	lastStep    int  // last step Export saw
	writtenStep int  // step of the last frame written (-1: none)
	inStep      bool // a step began (BeginStep) and has not reached Export: it failed
}

func init() {
	graph.Register(graph.TypeInfo{
		Name:    "VTKExporter",
		Kind:    graph.KindExporter,
		Summary: "Writes the states of its node's subtree as ParaView series: a .vtu per frame (tetrahedra, triangles or points, with displacement and velocity) and a .pvd index per state, each written atomically.",
		New:     func() graph.Object { return &VTKExporter{Every: 1, writtenStep: -1} },
	})
}

// OutputDir returns the folder the exporter writes to.
func (e *VTKExporter) OutputDir() string {
	s := e.Node.Scene()
	dir := e.Directory
	if dir == "" {
		stem := strings.TrimSuffix(filepath.Base(s.File), filepath.Ext(s.File))
		dir = stem + "_vtk"
	}
	return s.ResolvePath(dir)
}

// Init prepares the series (and creates the folder).
func (e *VTKExporter) Init() error {
	w, err := NewSceneWriter(e.OutputDir(), e.Node)
	if err != nil {
		return err
	}
	e.w = w
	return nil
}

// UpdateVisual writes frame 0 the first time it is called, i.e. at the end
// of Scene.Init, once every mapping has been applied.
func (e *VTKExporter) UpdateVisual() error {
	if e.w == nil || e.writtenStep >= 0 {
		return nil
	}
	s := e.Node.Scene()
	if err := e.w.WriteFrame(s.Time); err != nil {
		return err
	}
	e.writtenStep = s.StepCount
	e.lastStep = s.StepCount
	return nil
}

// BeginStep implements graph.Behavior: it notes that a step is under way,
// so that Close can tell a failed last step (no Export followed) from a
// completed one.
func (e *VTKExporter) BeginStep(t, dt float64) error {
	e.inStep = true
	return nil
}

// Export implements graph.Exporter: a frame every `every` steps.
func (e *VTKExporter) Export(t float64, step int) error {
	e.inStep = false
	e.lastStep = step
	if e.w == nil || step%e.Every != 0 {
		return nil
	}
	if err := e.w.WriteFrame(t); err != nil {
		return err
	}
	e.writtenStep = step
	return nil
}

// Close writes the last step if it was exported but fell between two
// frames. A step that failed began but never reached Export: its
// half-updated state is not written.
func (e *VTKExporter) Close() error {
	s := e.Node.Scene()
	if e.w == nil || e.inStep || s.StepCount != e.lastStep || e.writtenStep == e.lastStep {
		return nil
	}
	if err := e.w.WriteFrame(s.Time); err != nil {
		return err
	}
	e.writtenStep = e.lastStep
	return nil
}
