package shapefunction

import (
	"fmt"
	"math"
	"sort"

	"github.com/sofago/sofago/graph"
)

// DenseSampler places the integration samples of a frame-based model on
// the voxels of a MaterialGrid (Gilles et al. 2011 Sec. 4.2, eq. 14:
// ∫ f dV ≈ Σ_k f(X_k) Δv): one sample per voxel at its centre with the
// voxel's volume, or, with resolution, one sample per block of a coarser
// regular grid over the same box, at the centroid of the block's voxels,
// with their total volume and mean Young's modulus (so the integration
// grid can be coarser than the grid that resolves the weights and the
// geometry).
//
// It gives the samples' rest positions to the skinning mapping onto the
// F331 state (mapping.SamplePointProvider) and their volumes and moduli to
// DeformationGradientForceField (SampleVolumeProvider,
// SampleYoungModulusProvider; moduli are nil on uniform material). With
// order > 0 every sample also carries the polynomial moments of its
// voxels up to that degree (sampleSet; Faure et al. 2011 Sec. 5.3), which
// the force field on F332 samples integrates the energy with, and the
// voxel quadrature of laws without a closed form
// (forcefield.SampleMomentProvider, SampleQuadratureProvider).
type DenseSampler struct {
	graph.ObjectBase
	Grid       graph.Link `toml:"grid" doc:"voxel grid (a MaterialGrid); default: the first MaterialGrid in this node or an ancestor"`
	Resolution [3]int     `toml:"resolution" doc:"blocks per axis over the grid's box, one sample per block holding material (default: one sample per voxel)" range:"[0,inf)"`
	Order      int        `toml:"order" doc:"polynomial degree of the region moments ∫ (E/E_s) (X − X_s)^α dV each sample carries (Faure et al. 2011 Sec. 5.3): 0 = midpoint rule (volume only; F331 samples); F332 samples need 2 (exact for CorotationalLinear and Linear) or 4 (exact for StVenantKirchhoff)" range:"[0,4]"`

	set   sampleSet
	built bool
	err   error
}

func init() {
	graph.Register(graph.TypeInfo{
		Name:    "DenseSampler",
		Kind:    graph.KindTopology,
		Summary: "Integration samples on the voxels of a MaterialGrid (Gilles et al. 2011 eq. 14): one per voxel, or one per block of a coarser grid (centroid, volume, mean modulus); gives sample positions to the skinning mapping and volumes to DeformationGradientForceField.",
		New:     func() graph.Object { return &DenseSampler{} },
	})
}

// Validate checks the resolution.
func (d *DenseSampler) Validate() error {
	if d.Resolution != [3]int{} {
		for a, n := range d.Resolution {
			if n < 1 {
				return fmt.Errorf("resolution[%d] = %d: need at least one block per axis (or leave resolution out for one sample per voxel)", a, n)
			}
		}
	}
	return nil
}

// Init builds the samples.
func (d *DenseSampler) Init() error {
	_, err := d.samples()
	return err
}

func (d *DenseSampler) samples() (*sampleSet, error) {
	if !d.built {
		d.built = true
		d.err = d.build()
		if d.err != nil {
			d.err = d.Wrap(d.err)
		}
	}
	return &d.set, d.err
}

func (d *DenseSampler) build() error {
	if err := d.Validate(); err != nil {
		return err
	}
	grid, err := findMaterialGrid(d.Grid, d.Node)
	if err != nil {
		return err
	}
	g, err := grid.Voxels()
	if err != nil {
		return err
	}
	var groups [][]int
	if d.Resolution == [3]int{} {
		groups = make([][]int, g.NumVoxels())
		for v := range groups {
			groups[v] = []int{v}
		}
	} else {
		r := d.Resolution
		block := make(map[int]int) // block index → group (blocks in order of first voxel)
		var order []int
		byBlock := map[int][]int{}
		for v := 0; v < g.NumVoxels(); v++ {
			c := g.Centre(v)
			var b [3]int
			for a := 0; a < 3; a++ {
				u := (c[a] - g.Origin[a]) / (float64(g.Dims[a]) * g.Spacing[a]) * float64(r[a])
				b[a] = min(r[a]-1, max(0, int(math.Floor(u))))
			}
			key := b[0] + r[0]*(b[1]+r[1]*b[2])
			if _, ok := block[key]; !ok {
				block[key] = len(order)
				order = append(order, key)
			}
			byBlock[key] = append(byBlock[key], v)
		}
		// Samples in block order (x fastest), whatever the voxel order.
		sort.Ints(order)
		for _, key := range order {
			groups = append(groups, byBlock[key])
		}
	}
	d.set = samplesFromGroups(g, groups, d.Order)
	return nil
}

// SamplePoints implements mapping.SamplePointProvider.
func (d *DenseSampler) SamplePoints() ([]float64, error) {
	s, err := d.samples()
	if err != nil {
		return nil, err
	}
	return s.points, nil
}

// SampleVolumes implements forcefield.SampleVolumeProvider.
func (d *DenseSampler) SampleVolumes() ([]float64, error) {
	s, err := d.samples()
	if err != nil {
		return nil, err
	}
	return s.volumes, nil
}

// SampleYoungModuli implements forcefield.SampleYoungModulusProvider: the
// mean modulus of each sample's voxels, nil on uniform material.
func (d *DenseSampler) SampleYoungModuli() ([]float64, error) {
	s, err := d.samples()
	if err != nil || s.uniform {
		return nil, err
	}
	return s.young, nil
}

// SampleVoxels returns the voxels each sample integrates.
func (d *DenseSampler) SampleVoxels() ([][]int, error) {
	s, err := d.samples()
	if err != nil {
		return nil, err
	}
	return s.voxels, nil
}

// SampleMoments implements forcefield.SampleMomentProvider: the order and
// the moments of every sample's region, geom.NumMoments per sample (zero
// above the order).
func (d *DenseSampler) SampleMoments() (int, []float64, error) {
	s, err := d.samples()
	if err != nil {
		return 0, nil, err
	}
	return s.order, s.moments, nil
}

// SampleQuadrature implements forcefield.SampleQuadratureProvider: the
// centres of each sample's voxels relative to the sample (flat xyz), their
// volumes and their Young's moduli relative to the sample's mean E_s;
// sample s owns the entries [first[s], first[s+1]).
func (d *DenseSampler) SampleQuadrature() (offsets, volumes, stiffness []float64, first []int, err error) {
	s, err := d.samples()
	if err != nil {
		return nil, nil, nil, nil, err
	}
	offsets, volumes, stiffness, first = s.quadrature()
	return offsets, volumes, stiffness, first, nil
}
