package shapefunction

import (
	"fmt"

	"github.com/sofago/sofago/components/mapping"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
)

// HarmonicShapeFunction computes harmonic frame weights on a MaterialGrid
// (Gilles et al. 2011 Sec. 4.1, after Joshi et al. 2007): the kernel of
// frame f solves the Laplace equation on the voxels,
//
//	L K_f = 0 on free voxels,   K_f = 1 on f's voxels,   K_f = 0 on the other frames' voxels,
//
// with no flux through the material's boundary (gridLaplacian: the 7-point
// finite-volume Laplacian, anisotropic cells allowed). A frame's voxels
// are the voxel containing its rest origin and every voxel whose centre
// lies within dirichletRadius of it. Each problem is solved by
// Jacobi-preconditioned conjugate gradients to a relative residual of
// tolerance — properly, not by a fixed number of smoothing passes as in
// the paper — so the weights are harmonic to that tolerance
// (TestHarmonicWeightsSolveLaplace). By the discrete maximum principle they
// lie in [0, 1] and sum to 1 (the sum solves the problem with 1 on every
// frame); the nbRef largest are kept and renormalised
// (ShapeFunctionBase). Weight gradients are central differences on the
// grid, and weights anywhere are trilinear interpolations over the voxel
// centres.
//
// Harmonic weights follow the shape: material far along the object from
// a frame is not influenced by it even if close in space (Gilles et al.
// Fig. 3). With materialAware, the Laplacian's conductances scale with
// the Young's modulus, so the weights stay flat across stiff parts and
// vary across soft ones.
//
// A frame constrained at a single voxel has a "capacity" that vanishes as
// the grid is refined (the Green's function of a point in 3-D): on fine
// grids the weight drops sharply around each frame. dirichletRadius (a
// fraction of the distance between frames, e.g. a third of the object's
// thickness) keeps the weights smooth.
type HarmonicShapeFunction struct {
	graph.ObjectBase
	ShapeFunctionBase
	Grid            graph.Link `toml:"grid" doc:"voxel grid (a MaterialGrid); default: the first MaterialGrid in this node or an ancestor"`
	Tolerance       float64    `toml:"tolerance" doc:"relative residual of the conjugate-gradient solve of each Laplace problem" range:"(0,1)"`
	Iterations      int        `toml:"iterations" doc:"maximum conjugate-gradient iterations per frame" range:"[1,inf)"`
	MaterialAware   bool       `toml:"materialAware" doc:"scale the Laplacian's conductances by the voxels' Young's moduli (weights flat across stiff material)"`
	DirichletRadius float64    `toml:"dirichletRadius" doc:"voxels whose centre lies within this distance of a frame's origin are fixed to that frame (the voxel containing the origin always is)" unit:"m" range:"[0,inf)"`

	stats HarmonicStats
}

// HarmonicStats reports the last weight computation.
type HarmonicStats struct {
	Iterations  []int     // CG iterations per frame
	Residuals   []float64 // final relative residual per frame
	FixedVoxels [][]int   // Dirichlet voxels of each frame
}

func init() {
	graph.Register(graph.TypeInfo{
		Name:    "HarmonicShapeFunction",
		Kind:    graph.KindTopology,
		Summary: "Harmonic frame weights (Gilles et al. 2011 Sec. 4.1): per frame, the Laplace equation on the voxels of a MaterialGrid with weight 1 at its own frame and 0 at the others, solved by preconditioned conjugate gradients to a tolerance; nbRef largest normalised; gradients by central differences.",
		New: func() graph.Object {
			return &HarmonicShapeFunction{Tolerance: 1e-10, Iterations: 100000, ShapeFunctionBase: ShapeFunctionBase{NbRef: DefaultNbRef}}
		},
	})
}

// Init builds the grid; the weights are computed when first asked for.
func (h *HarmonicShapeFunction) Init() error {
	h.setup(&h.ObjectBase, h)
	grid, err := findMaterialGrid(h.Grid, h.Node)
	if err != nil {
		return h.Wrap(err)
	}
	_, err = grid.Voxels()
	return err
}

// WeightsAt implements mapping.WeightProvider (see ShapeFunctionBase).
func (h *HarmonicShapeFunction) WeightsAt(restPoints []float64) (mapping.SkinningWeights, error) {
	h.setup(&h.ObjectBase, h)
	return h.ShapeFunctionBase.WeightsAt(restPoints)
}

// WeightHessiansAt implements mapping.WeightHessianProvider (central
// differences of the voxel gradients; see ShapeFunctionBase).
func (h *HarmonicShapeFunction) WeightHessiansAt(restPoints []float64) (mapping.SkinningWeights, error) {
	h.setup(&h.ObjectBase, h)
	return h.ShapeFunctionBase.WeightHessiansAt(restPoints)
}

// InsertFrame adds the last frame of the frames' state (see
// ShapeFunctionBase.InsertFrame): its share φ is its harmonic weight with
// every other frame at 0.
func (h *HarmonicShapeFunction) InsertFrame() (int, error) {
	h.setup(&h.ObjectBase, h)
	return h.ShapeFunctionBase.InsertFrame()
}

// Stats returns the solver statistics of the last computation.
func (h *HarmonicShapeFunction) Stats() HarmonicStats { return h.stats }

// VoxelWeights returns the harmonic kernel of every frame at every voxel
// (before the cut-off and normalisation), computing it if needed.
func (h *HarmonicShapeFunction) VoxelWeights() ([][]float64, error) {
	h.setup(&h.ObjectBase, h)
	if err := h.prepare(); err != nil {
		return nil, err
	}
	return h.kernels.(*voxelField).val, nil
}

func (h *HarmonicShapeFunction) buildKernels(o []geom.Vec3) (kernelEvaluator, error) {
	grid, err := findMaterialGrid(h.Grid, h.Node)
	if err != nil {
		return nil, err
	}
	g, err := grid.Voxels()
	if err != nil {
		return nil, err
	}
	fixedBy, err := frameVoxels(g, o, h.DirichletRadius)
	if err != nil {
		return nil, err
	}
	L := newGridLaplacian(g, h.MaterialAware)
	fixed := make([]bool, g.NumVoxels())
	for _, vs := range fixedBy {
		for _, v := range vs {
			fixed[v] = true
		}
	}
	if err := L.checkConnected(fixed); err != nil {
		return nil, err
	}
	h.stats = HarmonicStats{FixedVoxels: fixedBy}
	fields := make([][]float64, len(o))
	for f := range o {
		w := make([]float64, g.NumVoxels())
		for _, v := range fixedBy[f] {
			w[v] = 1
		}
		it, res, err := L.solve(w, fixed, h.Tolerance, h.Iterations)
		h.stats.Iterations = append(h.stats.Iterations, it)
		h.stats.Residuals = append(h.stats.Residuals, res)
		if err != nil {
			return nil, fmt.Errorf("harmonic weight of frame %d: %w (raise iterations or tolerance)", f, err)
		}
		fields[f] = w
	}
	return newVoxelField(g, fields), nil
}

// frameVoxels returns the voxels of each frame: the voxel containing its
// origin and those whose centre is within radius of it. A frame outside
// the material, or two frames sharing a voxel, is an error.
func frameVoxels(g *Voxels, o []geom.Vec3, radius float64) ([][]int, error) {
	owner := map[int]int{}
	out := make([][]int, len(o))
	for f, x := range o {
		v := g.VoxelAt(x)
		if v < 0 {
			msg := fmt.Sprintf("frame %d's rest origin %v is outside the material", f, x)
			if n := g.NearestVoxel(x); n >= 0 {
				msg += fmt.Sprintf(" (nearest voxel centre %v, %.3g m away)", g.Centre(n), g.Centre(n).Sub(x).Norm())
			}
			return nil, fmt.Errorf("%s", msg)
		}
		set := []int{v}
		if radius > 0 {
			ijk, _ := g.CellOf(x)
			var r [3]int
			for a := 0; a < 3; a++ {
				r[a] = int(radius/g.Spacing[a]) + 1
			}
			for k := ijk[2] - r[2]; k <= ijk[2]+r[2]; k++ {
				for j := ijk[1] - r[1]; j <= ijk[1]+r[1]; j++ {
					for i := ijk[0] - r[0]; i <= ijk[0]+r[0]; i++ {
						if i < 0 || j < 0 || k < 0 || i >= g.Dims[0] || j >= g.Dims[1] || k >= g.Dims[2] {
							continue
						}
						u := int(g.Index[g.CellIndex(i, j, k)])
						if u >= 0 && u != v && g.CellCentre(i, j, k).Sub(x).Norm() <= radius {
							set = append(set, u)
						}
					}
				}
			}
		}
		for _, u := range set {
			if prev, taken := owner[u]; taken {
				return nil, fmt.Errorf("frames %d and %d share the voxel at %v: move them apart, refine the grid or reduce dirichletRadius", prev, f, g.Centre(u))
			}
			owner[u] = f
		}
		out[f] = set
	}
	return out, nil
}
