package shapefunction

import (
	"errors"
	"fmt"
	"math"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
)

// FramePlacer places the frames of a frame-based model in a MaterialGrid
// (Faure et al. 2011 Sec. 4.4): the user's frames (fixed) are kept, and the
// remaining ones, up to count, are distributed uniformly in compliance
// distance by farthest-point sampling followed by Lloyd relaxation:
//
//   - farthest-point sampling: each new frame goes to the voxel of largest
//     compliance distance (see compliance_distance.go) to the frames
//     placed so far (ties: lowest voxel number; the first frame, when the
//     user gives none, goes to the voxel farthest from the voxel nearest
//     the material's centroid);
//   - Lloyd relaxation: every free frame moves to the voxel of its
//     compliance-Voronoi cell nearest to the cell's centroid (the cells
//     follow the material: soft parts, far apart in compliance distance,
//     get more frames), until no frame moves or after lloydIterations.
//
// Free frames sit at voxel centres, fixed frames where the user put them.
// The placer writes the frames into the mechanical state of its node (or
// the state linked by frames) before that state initialises: rest and
// current coordinates, identity orientation (Rigid3) or identity linear
// part (Affine3). That state must not give position or restPosition
// itself. Fixed frames come first, in the order given.
type FramePlacer struct {
	graph.ObjectBase
	Grid            graph.Link   `toml:"grid" doc:"voxel grid (a MaterialGrid); default: the first MaterialGrid in this node or an ancestor"`
	Frames          graph.Link   `toml:"frames" doc:"state of the frames to place (Rigid3, Affine3, Quadratic3 or Vec3); default: the mechanical state of this node"`
	Count           int          `toml:"count" doc:"total number of frames (fixed ones included)" range:"[1,10000]" required:"true"`
	Fixed           [][3]float64 `toml:"fixed" doc:"frames given by the user, kept where they are (rest origins)" unit:"m"`
	LloydIterations int          `toml:"lloydIterations" doc:"maximum Lloyd relaxation iterations (0: farthest-point sampling only)" range:"[0,10000]"`

	positions []geom.Vec3
	done      bool
	err       error
	lloydRun  int
}

func init() {
	graph.Register(graph.TypeInfo{
		Name:    "FramePlacer",
		Kind:    graph.KindTopology,
		Summary: "Places count frames in a MaterialGrid (Faure et al. 2011 Sec. 4.4): user-fixed frames kept, the others by farthest-point sampling and Lloyd relaxation in compliance distance; writes them into the frames' MechanicalObject at init.",
		New:     func() graph.Object { return &FramePlacer{LloydIterations: 50} },
	})
}

// Validate checks that the fixed frames fit in count.
func (p *FramePlacer) Validate() error {
	if len(p.Fixed) > p.Count {
		return fmt.Errorf("count = %d is less than the %d fixed frames", p.Count, len(p.Fixed))
	}
	return nil
}

// Init places the frames and writes them into the frames' state, which
// initialises after the topology phase and keeps coordinates set before
// (graph.MechanicalObject: "sized by code before Init").
func (p *FramePlacer) Init() error {
	pos, err := p.Positions()
	if err != nil {
		return err
	}
	st, err := p.state()
	if err != nil {
		return p.Wrap(err)
	}
	if mo, ok := st.(*graph.MechanicalObject); ok && (len(mo.PositionIn) > 0 || len(mo.RestIn) > 0) {
		return p.Errorf("the frames' state %q gives position/restPosition itself; with a FramePlacer, give the frames through fixed instead", st.Base().Path())
	}
	return p.Wrap(writeFrames(st, pos))
}

func (p *FramePlacer) state() (graph.State, error) {
	if p.Frames.IsSet() {
		if st, ok := p.Frames.Object.(graph.State); ok {
			return st, nil
		}
		return nil, fmt.Errorf("frames %q is not a mechanical state", p.Frames.Path)
	}
	if p.Node == nil || p.Node.State() == nil {
		return nil, errors.New("no frames' state: put the FramePlacer in the frames' node or give frames")
	}
	return p.Node.State(), nil
}

// writeFrames sizes st to the frames and sets their rest and current
// coordinates at the origins pos (identity orientation / linear part).
func writeFrames(st graph.State, pos []geom.Vec3) error {
	t := st.Template()
	cs := t.CoordSize()
	switch t.Name() {
	case graph.Rigid3.Name(), graph.Affine3.Name(), graph.Quadratic3.Name(), graph.Vec3.Name():
	default:
		return fmt.Errorf("the frames' state %q has template %s; frames are Rigid3, Affine3, Quadratic3 or Vec3", st.Base().Path(), t.Name())
	}
	st.Resize(len(pos))
	for _, id := range []graph.VecID{graph.RestPosition, graph.Position} {
		x := st.Vec(id)
		for f, o := range pos {
			c := x[cs*f : cs*f+cs]
			clear(c)
			copy(c, o[:])
			switch t.Name() {
			case graph.Rigid3.Name():
				c[6] = 1
			case graph.Affine3.Name():
				c[3], c[7], c[11] = 1, 1, 1
			case graph.Quadratic3.Name():
				c[3], c[13], c[23] = 1, 1, 1 // identity linear part, no quadratic term
			}
		}
	}
	return nil
}

// Positions returns the frames' rest origins (fixed ones first), computing
// them on first use.
func (p *FramePlacer) Positions() ([]geom.Vec3, error) {
	if !p.done {
		p.done = true
		p.positions, p.err = p.place()
		if p.err != nil {
			p.err = p.Wrap(p.err)
		}
	}
	return p.positions, p.err
}

// LloydIterationsRun returns how many relaxation iterations were taken.
func (p *FramePlacer) LloydIterationsRun() int { return p.lloydRun }

func (p *FramePlacer) place() ([]geom.Vec3, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	grid, err := findMaterialGrid(p.Grid, p.Node)
	if err != nil {
		return nil, err
	}
	g, err := grid.Voxels()
	if err != nil {
		return nil, err
	}
	if p.Count-len(p.Fixed) > g.NumVoxels() {
		return nil, fmt.Errorf("count = %d frames but the grid has only %d voxels", p.Count, g.NumVoxels())
	}
	pos := make([]geom.Vec3, 0, p.Count)
	for i, f := range p.Fixed {
		x := geom.Vec3(f)
		if g.VoxelAt(x) < 0 {
			return nil, fmt.Errorf("fixed[%d] = %v is outside the material", i, x)
		}
		pos = append(pos, x)
	}
	ds := newDistanceSolver(g, compliance(g))
	used := make([]bool, g.NumVoxels())
	if len(pos) == 0 {
		// Start from the voxel farthest from the most central voxel.
		var c geom.Vec3
		for v := 0; v < g.NumVoxels(); v++ {
			c = c.Add(g.Centre(v))
		}
		c = c.Scale(1 / float64(g.NumVoxels()))
		start := g.NearestVoxel(c)
		f := ds.run([]distanceSeed{pointSeed(g.Centre(start), 0)}, nil)
		first := farthest(f.dist, used)
		if first < 0 {
			first = start
		}
		pos = append(pos, g.Centre(first))
		used[first] = true
	}
	for _, x := range pos {
		if v := g.VoxelAt(x); v >= 0 {
			used[v] = true
		}
	}
	for len(pos) < p.Count {
		f := ds.run(seedsAt(pos), nil)
		v := farthest(f.dist, used)
		if v < 0 {
			return nil, fmt.Errorf("cannot place %d frames: no free voxel is reachable from the frames placed", p.Count)
		}
		used[v] = true
		pos = append(pos, g.Centre(v))
	}
	nFixed := len(p.Fixed)
	for it := 0; it < p.LloydIterations && nFixed < len(pos); it++ {
		f := ds.run(seedsAt(pos), nil)
		sum := make([]geom.Vec3, len(pos))
		cnt := make([]int, len(pos))
		for v, l := range f.label {
			if l >= 0 {
				sum[l] = sum[l].Add(g.Centre(v))
				cnt[l]++
			}
		}
		best := make([]int, len(pos))
		bestD := make([]float64, len(pos))
		for i := range best {
			best[i], bestD[i] = -1, math.Inf(1)
		}
		for v, l := range f.label {
			if l < 0 || int(l) < nFixed || cnt[l] == 0 {
				continue
			}
			c := sum[l].Scale(1 / float64(cnt[l]))
			if d := g.Centre(v).Sub(c).Norm(); d < bestD[l] {
				best[l], bestD[l] = v, d
			}
		}
		moved := false
		for i := nFixed; i < len(pos); i++ {
			if best[i] < 0 {
				continue
			}
			if c := g.Centre(best[i]); c != pos[i] {
				pos[i] = c
				moved = true
			}
		}
		p.lloydRun = it + 1
		if !moved {
			break
		}
	}
	return pos, nil
}

func seedsAt(pos []geom.Vec3) []distanceSeed {
	s := make([]distanceSeed, len(pos))
	for i, x := range pos {
		s[i] = pointSeed(x, int32(i))
	}
	return s
}

// farthest returns the unused voxel of largest finite distance (ties: the
// lowest number), or −1.
func farthest(d []float64, used []bool) int {
	best, bestD := -1, -1.0
	for v, x := range d {
		if used[v] || math.IsInf(x, 1) {
			continue
		}
		if x > bestD {
			best, bestD = v, x
		}
	}
	return best
}
