package forcefield

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/sofago/sofago/material"
)

// BenchmarkDeformationGradientForceField measures AddForce and AddDForce
// on 1,000 samples (random rotations and ±20 % strains) for each law, with
// the volume term, on all cores (run with -cpu 1 for one core).
func BenchmarkDeformationGradientForceField(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 3))
	const n = 1000
	F := randomGradients(rng, n, 0.2)
	d := randomGradients(rng, n, 0.5)
	vol := make([]float64, n)
	for i := range vol {
		vol[i] = 1e-6
	}
	for _, law := range []string{material.NameStVenantKirchhoff, material.NameNeoHookean, material.NameStableNeoHookean, material.NameCorotationalLinear} {
		for _, bulk := range []float64{0, 1e6} {
			ff := NewDeformationGradientForceField()
			ff.MaterialName, ff.YoungModulus, ff.PoissonRatio, ff.BulkModulus = law, 1e6, 0.3, bulk
			ff.SetVolumes(vol)
			if err := ff.Init(); err != nil {
				b.Fatal(err)
			}
			f, df := make([]float64, 9*n), make([]float64, 9*n)
			name := fmt.Sprintf("%s/bulk=%g/1000samples/", law, bulk)
			b.Run(name+"AddForce", func(b *testing.B) {
				for b.Loop() {
					ff.AddForce(f, F, nil)
				}
			})
			ff.AddForce(f, F, nil)
			b.Run(name+"AddDForce", func(b *testing.B) {
				for b.Loop() {
					ff.AddDForce(df, d, 1, 0)
				}
			})
		}
	}
}

// BenchmarkElastonForceField measures AddForce and AddDForce on 1,000 F332
// samples (random rotations, ±20 % strains, strain gradients of 1/m) of
// heterogeneous regions of 1 to 27 voxels (TestRegionSampler): the closed
// forms (corotational and Linear with order-2 moments, StVK with order 4)
// and the voxel quadrature (NeoHookean). Per sample: ns/op ÷ 1,000 (run
// with -cpu 1 for one core).
func BenchmarkElastonForceField(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 5))
	const n = 1000
	x := randomF332(rng, n, 0.2, 1, false)
	d := randomF332(rng, n, 0.5, 1, false)
	for _, c := range []struct {
		law   string
		order int
	}{{material.NameCorotationalLinear, 2}, {material.NameLinear, 2}, {material.NameStVenantKirchhoff, 4}, {material.NameStVenantKirchhoff, 2}, {material.NameNeoHookean, 2}} {
		ff, _ := loadF332(b, x, fmt.Sprintf("seed = 9\n  count = %d\n  order = %d", n, c.order), fmt.Sprintf("materialName = %q\n  youngModulus = 1e6\n  poissonRatio = 0.3", c.law))
		f, df := make([]float64, 36*n), make([]float64, 36*n)
		name := fmt.Sprintf("%s/%s/order=%d/1000samples/", c.law, ff.Mode(), c.order)
		b.Run(name+"AddForce", func(b *testing.B) {
			for b.Loop() {
				ff.AddForce(f, x, nil)
			}
		})
		ff.AddForce(f, x, nil)
		b.Run(name+"AddDForce", func(b *testing.B) {
			for b.Loop() {
				ff.AddDForce(df, d, 1, 0)
			}
		})
	}
}
