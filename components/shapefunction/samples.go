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
//
// With order n > 0 a sample also carries the polynomial moments of its
// region (Faure Sec. 5.3), weighted by the stiffness relative to the
// sample's mean:
//
//	M_α = ∫_region (E(X)/E_s) (X − X_s)^α dV,   |α| ≤ n,
//
// each voxel integrated exactly as a box (geom.AddBoxMoments), so that
// E_s Σ_α c_α M_α = ∫ E(X) v(X) dV exactly for any polynomial
// v = Σ_α c_α (X − X_s)^α of degree ≤ n — the energy of a region whose
// Young's modulus varies is then integrated exactly too. M_0 = V_s; the
// moments above the order are zero (truncated).
type sampleSet struct {
	points  []float64 // flat xyz
	volumes []float64
	young   []float64
	uniform bool // every voxel has the same modulus: SampleYoungModuli returns nil
	voxels  [][]int
	order   int
	moments []float64 // geom.NumMoments per sample
	g       *Voxels
}

// samplesFromGroups aggregates groups of voxels into samples: centroid,
// total volume, mean modulus, and the moments up to order.
func samplesFromGroups(g *Voxels, groups [][]int, order int) sampleSet {
	s := sampleSet{uniform: true, voxels: groups, order: order, g: g}
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
	half := g.Spacing.Scale(0.5)
	nm := geom.NumMonomials(order)
	s.moments = make([]float64, geom.NumMoments*len(groups))
	for i, grp := range groups {
		var c geom.Vec3
		E := 0.0
		for _, v := range grp {
			c = c.Add(g.Centre(v))
			E += g.Young[v]
		}
		n := float64(len(grp))
		c = c.Scale(1 / n)
		E /= n
		s.points = append(s.points, c[0], c[1], c[2])
		s.volumes = append(s.volumes, n*dv)
		s.young = append(s.young, E)
		m := s.moments[geom.NumMoments*i : geom.NumMoments*i+nm]
		for _, v := range grp {
			geom.AddBoxMoments(m, g.Centre(v), half, c, g.Young[v]/E)
		}
	}
	return s
}

// quadrature returns the voxel quadrature of every sample: the offsets
// d_v = X_v − X_s of the centres of its voxels (flat xyz), their volumes
// ΔV and their relative stiffness E_v/E_s, sample s owning the entries
// [first[s], first[s+1]).
func (s *sampleSet) quadrature() (offsets, volumes, stiffness []float64, first []int) {
	g := s.g
	first = make([]int, 1, len(s.voxels)+1)
	dv := g.VoxelVolume()
	for i, grp := range s.voxels {
		c := geom.At(s.points, i)
		for _, v := range grp {
			d := g.Centre(v).Sub(c)
			offsets = append(offsets, d[0], d[1], d[2])
			volumes = append(volumes, dv)
			stiffness = append(stiffness, g.Young[v]/s.young[i])
		}
		first = append(first, len(volumes))
	}
	return offsets, volumes, stiffness, first
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
