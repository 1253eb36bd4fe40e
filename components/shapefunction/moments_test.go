package shapefunction

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph/graphtest"
)

// momentsScene: a heterogeneous block (a stiff slab and a stiff ball in a
// soft matrix) with three Shepard frames, sampled sparsely and densely at
// the given order.
const momentsScene = `
[[node]]
name = "obj"
  [[node.object]]
  type = "MaterialGrid"
  box = [0, -0.1, 0, 1.2, 0.2, 0.3]
  resolution = [24, 6, 5]
  youngModulus = 1e5
  stiffnessRegions = [{box = [0.5, -1, -1, 0.7, 1, 1], youngModulus = 3e6}, {sphere = [0.2, 0.05, 0.15, 0.12], youngModulus = 7e5}]
  [[node.object]]
  type = "MechanicalObject"
  name = "frames"
  template = "Affine3"
  position = [[0.1, 0, 0.1, 1, 0, 0, 0, 1, 0, 0, 0, 1], [0.6, 0.1, 0.2, 1, 0, 0, 0, 1, 0, 0, 0, 1], [1.1, 0.05, 0.1, 1, 0, 0, 0, 1, 0, 0, 0, 1]]
  [[node.object]]
  type = "ShepardShapeFunction"
  nbRef = 2
  [[node.node]]
  name = "sparse"
    [[node.node.object]]
    type = "SparseSampler"
    count = 7
    order = %ORDER%
  [[node.node]]
  name = "dense"
    [[node.node.object]]
    type = "DenseSampler"
    resolution = [3, 2, 2]
    order = %ORDER%
`

// gauss3 are the nodes and weights of 3-point Gauss–Legendre quadrature
// on [−1, 1] (exact for degree ≤ 5 per axis).
var gauss3 = [3][2]float64{{-0.7745966692414834, 5.0 / 9}, {0, 8.0 / 9}, {0.7745966692414834, 5.0 / 9}}

// TestSampleMomentsIntegratePolynomials (Faure Sec. 5.3): for every sample
// of a sparse and a dense sampler over a heterogeneous grid, and orders 0
// to 4, E_s Σ_α c_α M_α equals the direct voxel sum Σ_v E_v ∫_voxel p of a
// random polynomial p = Σ_α c_α (X − X_s)^α of degree ≤ order (each voxel
// integrated by 3×3×3 Gauss–Legendre, exact for it), to 1e-12 relative to
// Σ_v E_v ∫_voxel |p|-like scale (the same sum with |c_α| |d^α|); the
// moments above the order are zero and M_0 is the sample's volume.
func TestSampleMomentsIntegratePolynomials(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 2))
	for order := 0; order <= geom.MaxMomentOrder; order++ {
		s := graphtest.MustLoad(t, "moments.toml", strings.ReplaceAll(momentsScene, "%ORDER%", fmt.Sprint(order)))
		grid := graphtest.Find[*MaterialGrid](t, s, "obj/MaterialGrid")
		g, _ := grid.Voxels()
		type sampler interface {
			SamplePoints() ([]float64, error)
			SampleVolumes() ([]float64, error)
			SampleYoungModuli() ([]float64, error)
			SampleVoxels() ([][]int, error)
			SampleMoments() (int, []float64, error)
		}
		for _, sm := range []sampler{
			graphtest.Find[*SparseSampler](t, s, "obj/sparse/SparseSampler"),
			graphtest.Find[*DenseSampler](t, s, "obj/dense/DenseSampler"),
		} {
			pts, _ := sm.SamplePoints()
			vols, _ := sm.SampleVolumes()
			young, _ := sm.SampleYoungModuli()
			vox, _ := sm.SampleVoxels()
			ord, mom, err := sm.SampleMoments()
			if err != nil {
				t.Fatal(err)
			}
			if ord != order || len(mom) != geom.NumMoments*len(vols) || young == nil {
				t.Fatalf("order %d: sampler says order %d, %d moments for %d samples, young %v", order, ord, len(mom), len(vols), young != nil)
			}
			nm := geom.NumMonomials(order)
			worst := 0.0
			mono := make([]float64, geom.NumMoments)
			for i := range vols {
				M := mom[geom.NumMoments*i : geom.NumMoments*(i+1)]
				if math.Abs(M[0]-vols[i]) > 1e-14*vols[i] {
					t.Errorf("sample %d: M_0 = %.17g, volume %.17g", i, M[0], vols[i])
				}
				for m := nm; m < geom.NumMoments; m++ {
					if M[m] != 0 {
						t.Errorf("order %d sample %d: moment %v above the order is %g", order, i, geom.MonomialExponents(m), M[m])
					}
				}
				c := make([]float64, nm)
				for m := range c {
					c[m] = rng.NormFloat64()
				}
				Xs := geom.At(pts, i)
				got := 0.0
				for m := range c {
					got += c[m] * M[m]
				}
				got *= young[i]
				want, scale := 0.0, 0.0
				h := g.Spacing.Scale(0.5)
				for _, v := range vox[i] {
					b := g.Centre(v)
					for _, gx := range gauss3 {
						for _, gy := range gauss3 {
							for _, gz := range gauss3 {
								X := geom.Vec3{b[0] + gx[0]*h[0], b[1] + gy[0]*h[1], b[2] + gz[0]*h[2]}
								w := gx[1] * gy[1] * gz[1] * h[0] * h[1] * h[2] * g.Young[v]
								geom.EvalMonomials(mono[:nm], X.Sub(Xs))
								for m := range c {
									want += w * c[m] * mono[m]
									scale += w * math.Abs(c[m]*mono[m])
								}
							}
						}
					}
				}
				worst = math.Max(worst, math.Abs(got-want)/scale)
			}
			t.Logf("order %d, %T (%d samples): largest relative error %.2g", order, sm, len(vols), worst)
			if worst > 1e-12 {
				t.Errorf("order %d, %T: moments integrate a polynomial with relative error %.3g > 1e-12", order, sm, worst)
			}
		}
	}
}
