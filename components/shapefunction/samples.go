package shapefunction

import (
	"math"

	"github.com/sofago/sofago/geom"
)

// sampleSet is what an integration sampler produces: for each sample its
// rest position, its volume (the voxels it integrates) and the
// volume-averaged Young's modulus of those voxels. With the midpoint rule
// (Gilles et al. 2011 eq. 14; Faure et al. 2011 Sec. 5.3 with n = 0) a
// sample's energy is V_s Ψ(F(X_s); E_s); Ψ is proportional to E at fixed ν,
// so the mean modulus makes a sample of constant F carry exactly the
// energy of its voxels.
type sampleSet struct {
	points  []float64 // flat xyz
	volumes []float64
	young   []float64
	uniform bool // every voxel has the same modulus: SampleYoungModuli returns nil
	voxels  [][]int
}

// samplesFromGroups aggregates groups of voxels into samples: centroid,
// total volume, mean modulus.
func samplesFromGroups(g *Voxels, groups [][]int) sampleSet {
	s := sampleSet{uniform: true, voxels: groups}
	if len(g.Young) > 0 {
		e0 := g.Young[0]
		for _, e := range g.Young {
			if e != e0 {
				s.uniform = false
				break
			}
		}
	}
	dv := g.VoxelVolume()
	for _, grp := range groups {
		var c geom.Vec3
		E := 0.0
		for _, v := range grp {
			c = c.Add(g.Centre(v))
			E += g.Young[v]
		}
		n := float64(len(grp))
		c = c.Scale(1 / n)
		s.points = append(s.points, c[0], c[1], c[2])
		s.volumes = append(s.volumes, n*dv)
		s.young = append(s.young, E/n)
	}
	return s
}

// regionFitError returns the volume-weighted squared residual of the
// least-squares fit of every weight field (w[f][i] over the voxels vs of a
// region) by an affine function of position: Σ_i Σ_f (w_f,i − a_f −
// b_f·(x_i − x̄))² V (Faure et al. 2011 Sec. 5.3's subdivision criterion).
// It also returns the centroid and the principal axis of the region (the
// direction of largest spread), along which it is split.
func regionFitError(g *Voxels, vs []int, w [][]float64) (err float64, centroid, axis geom.Vec3) {
	n := float64(len(vs))
	for _, v := range vs {
		centroid = centroid.Add(g.Centre(v))
	}
	centroid = centroid.Scale(1 / n)
	var C geom.Mat3
	for _, v := range vs {
		d := g.Centre(v).Sub(centroid)
		C = C.Add(d.Outer(d))
	}
	lambda, V := geom.SymEigen(C)
	// Principal axis: eigenvector of the largest eigenvalue.
	k := 0
	for a := 1; a < 3; a++ {
		if lambda[a] > lambda[k] {
			k = a
		}
	}
	axis = V.Col(k)
	// Pseudo-inverse of C (flat or thin regions have null directions).
	var Cinv geom.Mat3
	lmax := math.Max(lambda[0], math.Max(lambda[1], lambda[2]))
	for a := 0; a < 3; a++ {
		if lambda[a] > 1e-12*lmax && lambda[a] > 0 {
			u := V.Col(a)
			Cinv = Cinv.Add(u.Outer(u).Scale(1 / lambda[a]))
		}
	}
	for _, wf := range w {
		mean := 0.0
		for i := range vs {
			mean += wf[i]
		}
		mean /= n
		var cov geom.Vec3
		for i, v := range vs {
			cov = cov.Add(g.Centre(v).Sub(centroid).Scale(wf[i] - mean))
		}
		b := Cinv.MulVec(cov)
		for i, v := range vs {
			r := wf[i] - mean - b.Dot(g.Centre(v).Sub(centroid))
			err += r * r
		}
	}
	return err * g.VoxelVolume(), centroid, axis
}
