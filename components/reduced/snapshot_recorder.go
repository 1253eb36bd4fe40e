package reduced

import (
	"fmt"

	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/modal"
)

// SnapshotRecorder records deformation snapshots of its node's state during
// a full simulation, the data from which modal.SnapshotBasis builds a
// data-driven reduced basis by mass-PCA ("empirical eigenvectors",
// Barbič & James 2005 Sec. 5.2 and appendix A): at the end of every step
// s ≥ start with s − start a multiple of `every` (steps count from 1; the
// initial state, a zero displacement, is never recorded), the
// displacement u = x − x_rest (the state's Position minus its
// RestPosition, one full derivative vector) becomes one column.
// The snapshots are written when the scene closes, atomically, as a
// rows×cols matrix (rows = the state's vector length, cols = the number of
// snapshots) in the format of the file name's extension (modal.WriteBasis:
// ".txt" text "rows cols" then the values, ".U"/".bin" VegaFEM binary,
// ".json"); modal.ReadBasis reads them back.
//
// It needs a vector-space state (Vec3, Vec1: coordinates and derivatives
// of the same size); on a Rigid3 state it is an error.
type SnapshotRecorder struct {
	graph.ObjectBase
	Filename     string `toml:"filename" doc:"snapshot file, relative to the scene file's folder; format by extension (.txt text, .U/.bin VegaFEM binary, .json)" required:"true"`
	Every        int    `toml:"every" doc:"record a snapshot every N steps" range:"[1,inf)"`
	Start        int    `toml:"start" doc:"first step that may be recorded (steps count from 1; with start = 0 the steps every, 2·every, ...)" range:"[0,inf)"`
	MaxSnapshots int    `toml:"maxSnapshots" doc:"stop recording after this many snapshots (0: no limit)" range:"[0,inf)"`

	state graph.State
	path  string
	snaps []float64 // column-major, rows per snapshot
	rows  int
	cols  int
}

func init() {
	graph.Register(graph.TypeInfo{
		Name:    "SnapshotRecorder",
		Kind:    graph.KindExporter,
		Summary: "Records the displacements x − x_rest of its node's state every N steps and writes them as a matrix (one column per snapshot) when the scene closes, for a data-driven mass-PCA basis (modal.SnapshotBasis).",
		New:     func() graph.Object { return &SnapshotRecorder{Every: 1} },
	})
}

// Validate checks the fields (for objects built in code).
func (r *SnapshotRecorder) Validate() error {
	if r.Filename == "" {
		return fmt.Errorf("filename is required")
	}
	if r.Every < 1 {
		return fmt.Errorf("every = %d must be at least 1", r.Every)
	}
	if r.Start < 0 || r.MaxSnapshots < 0 {
		return fmt.Errorf("start = %d and maxSnapshots = %d must not be negative", r.Start, r.MaxSnapshots)
	}
	return nil
}

// Init binds the recorder to its node's state.
func (r *SnapshotRecorder) Init() error {
	if err := r.Validate(); err != nil {
		return r.Wrap(err)
	}
	st := r.Node.State()
	if st == nil {
		return r.Errorf("needs a mechanical state in the same node")
	}
	if t := st.Template(); t.CoordSize() != t.DerivSize() {
		return r.Errorf("state %q has template %s, whose coordinates are not a vector space: snapshots need Vec3 or Vec1", st.Base().Name, t.Name())
	}
	r.state = st
	r.rows = st.Size() * st.Template().DerivSize()
	r.path = r.Filename
	if s := r.Node.Scene(); s != nil {
		r.path = s.ResolvePath(r.Filename)
	}
	r.snaps, r.cols = r.snaps[:0], 0
	return nil
}

// Export implements graph.Exporter: records a snapshot on the chosen steps.
func (r *SnapshotRecorder) Export(t float64, step int) error {
	if r.state == nil || step < r.Start || (step-r.Start)%r.Every != 0 {
		return nil
	}
	if r.MaxSnapshots > 0 && r.cols >= r.MaxSnapshots {
		return nil
	}
	x, x0 := r.state.Vec(graph.Position), r.state.Vec(graph.RestPosition)
	for i := 0; i < r.rows; i++ {
		r.snaps = append(r.snaps, x[i]-x0[i])
	}
	r.cols++
	return nil
}

// Snapshots returns the snapshots recorded so far, column-major rows×cols
// (not a copy).
func (r *SnapshotRecorder) Snapshots() (U []float64, rows, cols int) {
	return r.snaps, r.rows, r.cols
}

// Path returns the resolved output file.
func (r *SnapshotRecorder) Path() string { return r.path }

// Close implements graph.Exporter: writes the file (nothing if no snapshot
// was recorded).
func (r *SnapshotRecorder) Close() error {
	if r.cols == 0 {
		return nil
	}
	if err := modal.WriteBasis(r.path, r.snaps, r.rows, r.cols); err != nil {
		return r.Errorf("writing %d snapshots: %v", r.cols, err)
	}
	return nil
}
