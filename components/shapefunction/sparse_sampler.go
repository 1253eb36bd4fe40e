package shapefunction

import (
	"errors"
	"fmt"
	"sort"

	"github.com/sofago/sofago/components/mapping"
	"github.com/sofago/sofago/graph"
)

// SparseSampler places few integration samples where the weights call for
// them (Faure et al. 2011 Sec. 5.3): the voxels of a MaterialGrid are
// partitioned into the face-connected regions influenced by the same set
// of frames (where the weight gradients are continuous), and the region
// whose weights are worst fitted by affine functions of position (volume
// × squared residual of the least-squares fit, summed over the frames) is
// split, by the plane through its centroid across its longest principal
// axis, until there are count regions. One sample per region, at the
// centroid of its voxels, with their total volume and mean Young's
// modulus: the midpoint rule, exact for quantities affine over the region.
// A region of constant weights (one frame, or rigidly bound voxels) is
// never split: a single sample integrates it exactly. With order > 0 a
// sample also carries the polynomial moments of its region up to that
// degree (sampleSet), so that a force field on F332 samples integrates
// the energy of the region exactly (Faure's "elastons"): with linear
// weights, one sample per region sees bending and twisting, which the
// midpoint rule misses.
//
// count must be at least the number of influence regions. The weights are
// those of the shape function linked (default: the first
// mapping.WeightProvider in this node or an ancestor), evaluated at the
// voxel centres when the samples are first asked for (by the skinning
// mapping's Init). Reset discards the samples (after frames are inserted)
// so they are computed again with the new weights.
type SparseSampler struct {
	graph.ObjectBase
	Grid          graph.Link `toml:"grid" doc:"voxel grid (a MaterialGrid); default: the first MaterialGrid in this node or an ancestor"`
	ShapeFunction graph.Link `toml:"shapeFunction" doc:"shape function whose weights define the regions; default: the first shape function in this node or an ancestor"`
	Count         int        `toml:"count" doc:"number of samples (at least the number of regions influenced by the same frames)" range:"[1,inf)" required:"true"`
	Order         int        `toml:"order" doc:"polynomial degree of the region moments ∫ (E/E_s) (X − X_s)^α dV each sample carries (Faure et al. 2011 Sec. 5.3): 0 = midpoint rule (volume only; F331 samples); F332 samples need 2 (exact for CorotationalLinear and Linear) or 4 (exact for StVenantKirchhoff)" range:"[0,4]"`

	set     sampleSet
	regions int // influence regions before subdivision
	built   bool
	err     error
}

func init() {
	graph.Register(graph.TypeInfo{
		Name:    "SparseSampler",
		Kind:    graph.KindTopology,
		Summary: "Few integration samples (Faure et al. 2011 Sec. 5.3): one per region of voxels influenced by the same frames, regions split where the weights are least affine until count samples; centroid, volume and mean modulus of each region.",
		New:     func() graph.Object { return &SparseSampler{} },
	})
}

// Init checks the links; the samples are computed when first asked for.
func (s *SparseSampler) Init() error {
	if _, err := findMaterialGrid(s.Grid, s.Node); err != nil {
		return s.Wrap(err)
	}
	if _, err := s.provider(); err != nil {
		return s.Wrap(err)
	}
	return nil
}

// Reset discards the samples; the next request recomputes them.
func (s *SparseSampler) Reset() { s.built, s.err, s.set = false, nil, sampleSet{} }

// Regions returns the number of influence regions (before subdivision),
// after the samples were computed.
func (s *SparseSampler) Regions() int { return s.regions }

func (s *SparseSampler) provider() (mapping.WeightProvider, error) {
	if s.ShapeFunction.IsSet() {
		wp, ok := s.ShapeFunction.Object.(mapping.WeightProvider)
		if !ok {
			return nil, fmt.Errorf("shapeFunction %q is not a shape function", s.ShapeFunction.Path)
		}
		return wp, nil
	}
	for n := s.Node; n != nil; n = n.Parent {
		for _, o := range n.Objects {
			if wp, ok := o.(mapping.WeightProvider); ok {
				return wp, nil
			}
		}
	}
	return nil, errors.New("no shape function: give shapeFunction or put one in this node or an ancestor")
}

func (s *SparseSampler) samples() (*sampleSet, error) {
	if !s.built {
		s.built = true
		s.err = s.build()
		if s.err != nil {
			s.err = s.Wrap(s.err)
		}
	}
	return &s.set, s.err
}

func (s *SparseSampler) build() error {
	grid, err := findMaterialGrid(s.Grid, s.Node)
	if err != nil {
		return err
	}
	g, err := grid.Voxels()
	if err != nil {
		return err
	}
	wp, err := s.provider()
	if err != nil {
		return err
	}
	sw, err := wp.WeightsAt(g.Centres())
	if err != nil {
		return err
	}
	nv := g.NumVoxels()
	if s.Count > nv {
		return fmt.Errorf("count = %d samples but the grid has only %d voxels", s.Count, nv)
	}
	// Influence set of each voxel: the frames of positive weight, in the
	// provider's order (sorted by frame index).
	key := make([]string, nv)
	for v := 0; v < nv; v++ {
		frames, weights, _ := sw.Influences(v)
		b := make([]byte, 0, 4*len(frames))
		for e, f := range frames {
			if weights[e] > 0 {
				b = fmt.Appendf(b, "%d,", f)
			}
		}
		key[v] = string(b)
	}
	// Face-connected components of equal keys.
	region := make([]int, nv)
	for v := range region {
		region[v] = -1
	}
	var groups [][]int
	for v0 := 0; v0 < nv; v0++ {
		if region[v0] >= 0 {
			continue
		}
		r := len(groups)
		grp := []int{v0}
		region[v0] = r
		for q := 0; q < len(grp); q++ {
			g.faceNeighbours(grp[q], func(u, _ int) {
				if region[u] < 0 && key[u] == key[v0] {
					region[u] = r
					grp = append(grp, u)
				}
			})
		}
		sort.Ints(grp)
		groups = append(groups, grp)
	}
	s.regions = len(groups)
	if s.Count < len(groups) {
		return fmt.Errorf("count = %d samples is less than the %d regions influenced by the same frames; raise count to at least %d (or lower nbRef)", s.Count, len(groups), len(groups))
	}
	// Split the worst-fitted region until count.
	errs := make([]float64, len(groups))
	for r := range groups {
		errs[r] = s.fitError(g, groups[r], &sw)
	}
	for len(groups) < s.Count {
		worst := -1
		for r, grp := range groups {
			if len(grp) > 1 && (worst < 0 || errs[r] > errs[worst]) {
				worst = r
			}
		}
		if worst < 0 {
			break // every region is a single voxel
		}
		_, c, axis := regionFitError(g, groups[worst], nil)
		var lo, hi []int
		for _, v := range groups[worst] {
			if g.Centre(v).Sub(c).Dot(axis) > 0 {
				hi = append(hi, v)
			} else {
				lo = append(lo, v)
			}
		}
		if len(lo) == 0 || len(hi) == 0 {
			// Symmetric spread (e.g. two voxels on a tie): split in index order.
			grp := groups[worst]
			lo, hi = grp[:len(grp)/2], grp[len(grp)/2:]
		}
		groups[worst] = lo
		errs[worst] = s.fitError(g, lo, &sw)
		groups = append(groups, hi)
		errs = append(errs, s.fitError(g, hi, &sw))
	}
	s.set = samplesFromGroups(g, groups, s.Order)
	return nil
}

// fitError evaluates regionFitError with the weights of the region's
// frames at its voxels.
func (s *SparseSampler) fitError(g *Voxels, vs []int, sw *mapping.SkinningWeights) float64 {
	// Dense per-frame weights over the region (frames are those of the
	// region's influence set, the same at every voxel up to zeros).
	index := map[int]int{}
	var w [][]float64
	for i, v := range vs {
		frames, weights, _ := sw.Influences(v)
		for e, f := range frames {
			k, ok := index[f]
			if !ok {
				k = len(w)
				index[f] = k
				w = append(w, make([]float64, len(vs)))
			}
			w[k][i] = weights[e]
		}
	}
	e, _, _ := regionFitError(g, vs, w)
	return e
}

// SamplePoints implements mapping.SamplePointProvider.
func (s *SparseSampler) SamplePoints() ([]float64, error) {
	set, err := s.samples()
	if err != nil {
		return nil, err
	}
	return set.points, nil
}

// SampleVolumes implements forcefield.SampleVolumeProvider.
func (s *SparseSampler) SampleVolumes() ([]float64, error) {
	set, err := s.samples()
	if err != nil {
		return nil, err
	}
	return set.volumes, nil
}

// SampleYoungModuli implements forcefield.SampleYoungModulusProvider.
func (s *SparseSampler) SampleYoungModuli() ([]float64, error) {
	set, err := s.samples()
	if err != nil || set.uniform {
		return nil, err
	}
	return set.young, nil
}

// SampleVoxels returns the voxels each sample integrates.
func (s *SparseSampler) SampleVoxels() ([][]int, error) {
	set, err := s.samples()
	if err != nil {
		return nil, err
	}
	return set.voxels, nil
}

// SampleMoments implements forcefield.SampleMomentProvider: the order and
// the moments of every sample's region, geom.NumMoments per sample (zero
// above the order).
func (p *SparseSampler) SampleMoments() (int, []float64, error) {
	s, err := p.samples()
	if err != nil {
		return 0, nil, err
	}
	return s.order, s.moments, nil
}

// SampleQuadrature implements forcefield.SampleQuadratureProvider: the
// centres of each sample's voxels relative to the sample (flat xyz), their
// volumes and their Young's moduli relative to the sample's mean E_s;
// sample s owns the entries [first[s], first[s+1]).
func (p *SparseSampler) SampleQuadrature() (offsets, volumes, stiffness []float64, first []int, err error) {
	s, err := p.samples()
	if err != nil {
		return nil, nil, nil, nil, err
	}
	offsets, volumes, stiffness, first = s.quadrature()
	return offsets, volumes, stiffness, first, nil
}
