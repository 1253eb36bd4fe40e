package visual

import (
	"github.com/sofago/sofago/graph"
)

// VTKExporter writes the mechanical states of its node and the nodes below
// it as ParaView series (one .vtu per frame and a .pvd index per state,
// see Series), so a scene can ask for output without `runscene -out`:
// tetrahedral meshes with displacement, velocity and the cell data of
// their force fields (CellDataProvider: the tetrahedral FEM force fields'
// vonMisesStress, Pa, and strainEnergyDensity, J/m³ of rest volume),
// visual surfaces as triangles,
// Rigid3 and Affine3 frames as oriented points.
//
// Frames follow FrameOutput: the initial state, a frame every `every`
// steps, and the last step.
type VTKExporter struct {
	graph.ObjectBase
	FrameOutput

	w *SceneWriter
}

func init() {
	graph.Register(graph.TypeInfo{
		Name:    "VTKExporter",
		Kind:    graph.KindExporter,
		Summary: "Writes the states of its node's subtree as ParaView series: a .vtu per frame (tetrahedra with displacement, velocity and the per-element data of their force fields: vonMisesStress in Pa and strainEnergyDensity in J/m³ of rest volume from TetrahedronFEMForceField and TetrahedronHyperelasticityFEMForceField; surfaces as triangles; frames as oriented points) and a .pvd index per state, each written atomically.",
		New:     func() graph.Object { return &VTKExporter{FrameOutput: newFrameOutput()} },
	})
}

// OutputDir returns the folder the exporter writes to (after Init).
func (e *VTKExporter) OutputDir() string {
	if e.w == nil {
		return ""
	}
	return e.w.Dir
}

// Init prepares the series (and creates the folder).
func (e *VTKExporter) Init() error {
	dir, err := e.outputDir(e.Node, "vtk")
	if err != nil {
		return err
	}
	w, err := NewSceneWriter(dir, e.Node)
	if err != nil {
		return err
	}
	for _, s := range w.Series {
		s.Sync = e.Sync
	}
	e.w = w
	return nil
}

// UpdateVisual writes frame 0 the first time it is called, i.e. at the end
// of Scene.Init, once every mapping has been applied.
func (e *VTKExporter) UpdateVisual() error {
	if e.w == nil || !e.initialFrame() {
		return nil
	}
	return e.write()
}

func (e *VTKExporter) write() error {
	s := e.Node.Scene()
	if err := e.w.WriteFrame(s.Time); err != nil {
		return err
	}
	e.wrote(s.StepCount, 2*len(e.w.Series))
	return nil
}

// Export implements graph.Exporter: a frame every `every` steps.
func (e *VTKExporter) Export(t float64, step int) error {
	if !e.exportDue(step) || e.w == nil {
		return nil
	}
	return e.write()
}

// Close writes the last step if it was completed but fell between two
// frames.
func (e *VTKExporter) Close() error {
	if e.w == nil || !e.finalDue() {
		return nil
	}
	return e.write()
}

// Output describes what was written, for summaries.
func (e *VTKExporter) Output() (what string, frames, files int, where string) {
	frames, files = e.Written()
	return "VTU/PVD series", frames, files, e.OutputDir()
}
