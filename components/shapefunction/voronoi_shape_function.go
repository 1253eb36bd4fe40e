package shapefunction

import (
	"fmt"
	"math"

	"github.com/sofago/sofago/components/mapping"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
)

// VoronoiShapeFunction computes material-aware frame weights from
// compliance distances (Faure et al. 2011 Sec. 4.1–4.3): kernels that are
// linear in the compliance distance, 1 at their frame, 1/2 on the Voronoi
// frontier with the neighbouring frames, 0 at the neighbours, with compact
// support. In one dimension they are exactly the ideal shape functions of
// Faure's eq. 5 (the static displacement of a heterogeneous bar,
// w₀(x) = ∫ₓ^x₁ c / ∫ₓ₀^x₁ c), and in a uniform bar with frames on its
// axis they are linear along it.
//
// Distances are compliance distances on the MaterialGrid (c = E_max/E per
// voxel; any-angle Dijkstra, see compliance_distance.go), so soft material
// separates frames more than stiff material: across a stiff bone the
// weights stay flat (it moves rigidly), and a soft layer decouples the
// parts on either side.
//
// For frame i, with s = subdivisions and kernel levels v_k = 2^−k:
//
//   - R₀ is i's Voronoi cell (the voxels nearer to i than to any other
//     frame); its frontier S₁ with the other cells is the 1/2 isosurface.
//   - For k < s, R_k is split off what remains by the competition between
//     S_k and the other frames (a Voronoi cell of the surface S_k), and
//     its frontier S_{k+1} is the v_{k+1} isosurface ("we generate the
//     isosurface of kernel value 1/4 by computing a new Voronoi surface
//     between the 1/2 isosurface and the other nodes").
//   - In R_k the kernel goes linearly from v_k to v_{k+1} with the
//     distances a to S_k and b to S_{k+1}: K = v_k − (v_k − v_{k+1})·a/(a + b).
//   - Beyond S_s, the last interval's slope is extrapolated linearly to
//     zero: K = max(0, v_s − (v_{s−1} − v_s)·a/W), a the distance to S_s and
//     W the width of the last interval (the distance from S_{s−1} to the
//     point of S_s the distance came from), so K reaches 0 at the
//     neighbouring frames and stays 0 beyond (compact support).
//
// Frontier points are located on the edges between voxels of the two
// sides, where the two distances meet, and seed the next distance passes
// (with the sub-voxel offset). The kernels are then cut off at nbRef and
// normalised (ShapeFunctionBase), "since points can be in the range of
// more than two kernels". Weight gradients are central differences on the
// grid.
type VoronoiShapeFunction struct {
	graph.ObjectBase
	ShapeFunctionBase
	Grid         graph.Link `toml:"grid" doc:"voxel grid (a MaterialGrid) with the Young's modulus map; default: the first MaterialGrid in this node or an ancestor"`
	Subdivisions int        `toml:"subdivisions" doc:"number of Voronoi isosurfaces per kernel (1: the 1/2 frontier only; 2 adds the 1/4 isosurface; ...)" range:"[1,8]"`
}

func init() {
	graph.Register(graph.TypeInfo{
		Name:    "VoronoiShapeFunction",
		Kind:    graph.KindTopology,
		Summary: "Material-aware frame weights (Faure et al. 2011 Sec. 4.1–4.3): kernels linear in the compliance distance (Dijkstra on the voxels of a MaterialGrid, lengths scaled by 1/E), 1/2 on the Voronoi frontiers, compact support; nbRef largest normalised; gradients by central differences.",
		New: func() graph.Object {
			return &VoronoiShapeFunction{Subdivisions: 1, ShapeFunctionBase: ShapeFunctionBase{NbRef: DefaultNbRef}}
		},
	})
}

// Init builds the grid; the weights are computed when first asked for.
func (s *VoronoiShapeFunction) Init() error {
	s.setup(&s.ObjectBase, s)
	grid, err := findMaterialGrid(s.Grid, s.Node)
	if err != nil {
		return s.Wrap(err)
	}
	_, err = grid.Voxels()
	return err
}

// WeightsAt implements mapping.WeightProvider (see ShapeFunctionBase).
func (s *VoronoiShapeFunction) WeightsAt(restPoints []float64) (mapping.SkinningWeights, error) {
	s.setup(&s.ObjectBase, s)
	return s.ShapeFunctionBase.WeightsAt(restPoints)
}

// WeightHessiansAt implements mapping.WeightHessianProvider (central
// differences of the voxel gradients; see ShapeFunctionBase).
func (s *VoronoiShapeFunction) WeightHessiansAt(restPoints []float64) (mapping.SkinningWeights, error) {
	s.setup(&s.ObjectBase, s)
	return s.ShapeFunctionBase.WeightHessiansAt(restPoints)
}

// InsertFrame adds the last frame of the frames' state (see
// ShapeFunctionBase.InsertFrame): its share φ is its normalised Voronoi
// kernel among all frames.
func (s *VoronoiShapeFunction) InsertFrame() (int, error) {
	s.setup(&s.ObjectBase, s)
	return s.ShapeFunctionBase.InsertFrame()
}

// VoxelKernels returns the kernel of every frame at every voxel (before
// the cut-off and normalisation), computing it if needed.
func (s *VoronoiShapeFunction) VoxelKernels() ([][]float64, error) {
	s.setup(&s.ObjectBase, s)
	if err := s.prepare(); err != nil {
		return nil, err
	}
	return s.kernels.(*voxelField).val, nil
}

func (s *VoronoiShapeFunction) buildKernels(o []geom.Vec3) (kernelEvaluator, error) {
	grid, err := findMaterialGrid(s.Grid, s.Node)
	if err != nil {
		return nil, err
	}
	g, err := grid.Voxels()
	if err != nil {
		return nil, err
	}
	if _, err := frameVoxels(g, o, 0); err != nil {
		return nil, err
	}
	kernels, err := voronoiKernels(g, o, max(1, s.Subdivisions))
	if err != nil {
		return nil, err
	}
	return newVoxelField(g, kernels), nil
}

// frontierCrossing is a point where two distance fronts meet on the edge
// between voxel a (inside the region) and voxel b (outside): at parameter
// tau along centre(a)→centre(b), where d_a + τ·e = d_b + (1 − τ)·e (e the
// edge's compliance length).
type frontierCrossing struct {
	a, b  int
	tau   float64
	e     float64
	point geom.Vec3
	width float64 // distance from the region's own surface to the crossing
}

// voronoiKernels returns the Voronoi kernels of frames at origins o on
// every voxel.
func voronoiKernels(g *Voxels, o []geom.Vec3, levels int) ([][]float64, error) {
	comp := compliance(g)
	ds := newDistanceSolver(g, comp)
	nv := g.NumVoxels()
	seeds := make([]distanceSeed, len(o))
	for f, x := range o {
		seeds[f] = pointSeed(x, int32(f))
	}
	vor := ds.run(seeds, nil)
	cellDist := append([]float64(nil), vor.dist...)
	cellOf := append([]int32(nil), vor.label...)
	for v, l := range cellOf {
		if l < 0 {
			return nil, fmt.Errorf("the voxel at %v is not connected to any frame through the material; add a frame to that piece or remove it", g.Centre(v))
		}
	}
	kernels := make([][]float64, len(o))
	for i := range o {
		K := make([]float64, nv)
		kernels[i] = K
		if len(o) == 1 {
			for v := range K {
				K[v] = 1
			}
			continue
		}
		remaining := make([]bool, nv) // the domain D_k not yet assigned
		for v := range remaining {
			remaining[v] = true
		}
		// Level-k competition result: mine[v] for voxels of R_k, a[v] their
		// distance to S_k, other[v] the other frames' distance.
		mine := make([]bool, nv)
		a := make([]float64, nv)
		other := make([]float64, nv)
		for v := 0; v < nv; v++ {
			mine[v] = cellOf[v] == int32(i)
			if mine[v] {
				a[v], other[v] = cellDist[v], math.Inf(1)
			} else {
				a[v], other[v] = math.Inf(1), cellDist[v]
			}
		}
		vk := 1.0
		var prevWidthSeeds []frontierCrossing
		for k := 0; k < levels; k++ {
			vNext := vk / 2
			cross := frontierCrossings(g, ds, mine, remaining, a, other)
			// Distance to S_{k+1} inside R_k (backward pass).
			back := make([]distanceSeed, len(cross))
			for c, x := range cross {
				back[c] = distanceSeed{point: x.point, voxel: x.a, voxelDist: x.tau * x.e, label: 0}
			}
			region := append([]bool(nil), mine...)
			var b []float64
			if len(cross) > 0 {
				b = append([]float64(nil), ds.run(back, region).dist...)
			}
			for v := 0; v < nv; v++ {
				if !mine[v] {
					continue
				}
				switch {
				case b == nil || math.IsInf(b[v], 1):
					K[v] = vk // no frontier reachable: this part moves with S_k
				case a[v]+b[v] == 0:
					K[v] = vk
				default:
					K[v] = vk - (vk-vNext)*a[v]/(a[v]+b[v])
				}
				remaining[v] = false
			}
			if len(cross) == 0 {
				break
			}
			prevWidthSeeds = cross
			if k+1 == levels {
				// Last isosurface: extrapolate linearly to zero beyond it.
				fwd := make([]distanceSeed, len(cross))
				for c, x := range cross {
					fwd[c] = distanceSeed{point: x.point, voxel: x.b, voxelDist: (1 - x.tau) * x.e, label: int32(c)}
				}
				last := ds.run(fwd, remaining)
				slope := vk - vNext // v_{s−1} − v_s with v_s = vNext
				for v := 0; v < nv; v++ {
					if !remaining[v] || last.label[v] < 0 {
						continue
					}
					W := prevWidthSeeds[last.label[v]].width
					if W > 0 {
						K[v] = math.Max(0, vNext-slope*last.dist[v]/W)
					}
				}
				break
			}
			// Competition between S_{k+1} (label 0) and the other frames
			// (label 1) over what remains.
			comp := make([]distanceSeed, 0, len(cross)+len(o)-1)
			for _, x := range cross {
				comp = append(comp, distanceSeed{point: x.point, voxel: x.b, voxelDist: (1 - x.tau) * x.e, label: 0})
			}
			for f, x := range o {
				if f != i {
					comp = append(comp, pointSeed(x, 1))
				}
			}
			res := ds.run(comp, remaining)
			for v := 0; v < nv; v++ {
				mine[v] = remaining[v] && res.label[v] == 0
				a[v], other[v] = math.Inf(1), math.Inf(1)
				if mine[v] {
					a[v] = res.dist[v]
				} else if remaining[v] && res.label[v] == 1 {
					other[v] = res.dist[v]
				}
			}
			vk = vNext
		}
	}
	return kernels, nil
}

// frontierCrossings returns the crossings between the voxels of the
// region (mine) and their face neighbours in the rest of the domain
// (remaining, not mine) reached by the other side (finite other[b]).
func frontierCrossings(g *Voxels, ds *distanceSolver, mine, remaining []bool, a, other []float64) []frontierCrossing {
	var out []frontierCrossing
	for v := range mine {
		if !mine[v] {
			continue
		}
		cv := g.Centre(v)
		g.faceNeighbours(v, func(u, axis int) {
			if mine[u] || !remaining[u] || math.IsInf(other[u], 1) {
				return
			}
			e := 0.5 * (ds.comp[v] + ds.comp[u]) * g.Spacing[axis]
			tau := (other[u] - a[v] + e) / (2 * e)
			tau = math.Min(1, math.Max(0, tau))
			cu := g.Centre(u)
			out = append(out, frontierCrossing{a: v, b: u, tau: tau, e: e,
				point: cv.Add(cu.Sub(cv).Scale(tau)), width: a[v] + tau*e})
		})
	}
	return out
}
