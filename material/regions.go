package material

import (
	"fmt"

	"github.com/sofago/sofago/geom"
)

// Lame returns the Lamé parameters (λ, μ) of Young's modulus E and Poisson's
// ratio ν: λ = Eν/((1+ν)(1−2ν)), μ = E/(2(1+ν)).
func Lame(E, nu float64) (lambda, mu float64) {
	return E * nu / ((1 + nu) * (1 - 2*nu)), E / (2 * (1 + nu))
}

// Region is a part of an object with another Young's modulus and/or mass
// density: a box or a sphere, tested against each tetrahedron's rest
// centroid. A value left at 0 keeps the object's own.
type Region struct {
	Box          []float64 `toml:"box" doc:"[xmin, ymin, zmin, xmax, ymax, zmax]" unit:"m"`
	Sphere       []float64 `toml:"sphere" doc:"[cx, cy, cz, radius]" unit:"m"`
	YoungModulus float64   `toml:"youngModulus" doc:"Young's modulus inside the region (0: unchanged)" unit:"Pa" range:"[0,inf)"`
	MassDensity  float64   `toml:"massDensity" doc:"mass density inside the region (0: unchanged)" unit:"kg/m³" range:"[0,inf)"`
}

// Heterogeneity is embedded by components whose material may vary per
// tetrahedron (FEM force fields read the Young's moduli, masses the
// densities). Its fields become the component's scene fields. A
// per-element list takes precedence over regions; among regions, the last
// one containing an element's centroid wins.
type Heterogeneity struct {
	Regions                []Region  `toml:"regions" doc:"regions of another material: [{box = [...], youngModulus = ...}, {sphere = [cx, cy, cz, r], massDensity = ...}]; the last region containing a tetrahedron's rest centroid wins"`
	YoungModulusPerElement []float64 `toml:"youngModulusPerElement" doc:"Young's modulus of each tetrahedron, in topology order (overrides youngModulus and regions)" unit:"Pa" range:"(0,inf)"`
	MassDensityPerElement  []float64 `toml:"massDensityPerElement" doc:"mass density of each tetrahedron, in topology order (overrides the uniform density and regions)" unit:"kg/m³" range:"(0,inf)"`
}

// CheckHeterogeneity validates the region shapes.
func (h *Heterogeneity) CheckHeterogeneity() error {
	for i, r := range h.Regions {
		switch {
		case len(r.Box) > 0 && len(r.Sphere) > 0:
			return fmt.Errorf("regions[%d]: give box or sphere, not both", i)
		case len(r.Box) == 0 && len(r.Sphere) == 0:
			return fmt.Errorf("regions[%d]: give a box or a sphere", i)
		case len(r.Box) > 0 && len(r.Box) != 6:
			return fmt.Errorf("regions[%d]: box has %d numbers, want 6: [xmin, ymin, zmin, xmax, ymax, zmax]", i, len(r.Box))
		case len(r.Sphere) > 0 && (len(r.Sphere) != 4 || r.Sphere[3] <= 0):
			return fmt.Errorf("regions[%d]: sphere must be [cx, cy, cz, radius] with radius > 0", i)
		case r.YoungModulus == 0 && r.MassDensity == 0:
			return fmt.Errorf("regions[%d]: sets neither youngModulus nor massDensity", i)
		}
		if len(r.Box) == 6 {
			for a := 0; a < 3; a++ {
				if r.Box[a] > r.Box[a+3] {
					return fmt.Errorf("regions[%d]: box min[%d] = %g is greater than max[%d] = %g", i, a, r.Box[a], a, r.Box[a+3])
				}
			}
		}
	}
	return nil
}

func (r *Region) contains(p geom.Vec3) bool {
	if len(r.Box) == 6 {
		b := r.Box
		return p[0] >= b[0] && p[0] <= b[3] && p[1] >= b[1] && p[1] <= b[4] && p[2] >= b[2] && p[2] <= b[5]
	}
	c := geom.Vec3{r.Sphere[0], r.Sphere[1], r.Sphere[2]}
	return p.Sub(c).Norm2() <= r.Sphere[3]*r.Sphere[3]
}

// YoungModuli returns the Young's modulus of every tetrahedron: the
// per-element list if given (its length must match), else E overridden by
// the regions containing the rest centroid. points are flat xyz.
func (h *Heterogeneity) YoungModuli(points []float64, tets [][4]int, E float64) ([]float64, error) {
	return h.perElement("youngModulusPerElement", h.YoungModulusPerElement, points, tets, E,
		func(r *Region) float64 { return r.YoungModulus })
}

// MassDensities returns the mass density of every tetrahedron, as
// YoungModuli does for the stiffness.
func (h *Heterogeneity) MassDensities(points []float64, tets [][4]int, rho float64) ([]float64, error) {
	return h.perElement("massDensityPerElement", h.MassDensityPerElement, points, tets, rho,
		func(r *Region) float64 { return r.MassDensity })
}

// Uniform reports whether no heterogeneity is given.
func (h *Heterogeneity) Uniform() bool {
	return len(h.Regions) == 0 && len(h.YoungModulusPerElement) == 0 && len(h.MassDensityPerElement) == 0
}

func (h *Heterogeneity) perElement(name string, list, points []float64, tets [][4]int, def float64, value func(*Region) float64) ([]float64, error) {
	out := make([]float64, len(tets))
	if len(list) > 0 {
		if len(list) != len(tets) {
			return nil, fmt.Errorf("%s has %d values, the mesh has %d tetrahedra", name, len(list), len(tets))
		}
		copy(out, list)
		return out, nil
	}
	for e, t := range tets {
		out[e] = def
		if len(h.Regions) == 0 {
			continue
		}
		var c geom.Vec3
		for _, v := range t {
			c = c.Add(geom.At(points, v))
		}
		c = c.Scale(0.25)
		for i := range h.Regions {
			r := &h.Regions[i]
			if v := value(r); v > 0 && r.contains(c) {
				out[e] = v
			}
		}
	}
	return out, nil
}
