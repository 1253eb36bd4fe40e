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

// Shape is a box or a sphere, tested against each tetrahedron's rest
// centroid.
type Shape struct {
	Box    []float64 `toml:"box" doc:"[xmin, ymin, zmin, xmax, ymax, zmax]" unit:"m"`
	Sphere []float64 `toml:"sphere" doc:"[cx, cy, cz, radius]" unit:"m"`
}

func (s *Shape) check() error {
	switch {
	case len(s.Box) > 0 && len(s.Sphere) > 0:
		return fmt.Errorf("give box or sphere, not both")
	case len(s.Box) == 0 && len(s.Sphere) == 0:
		return fmt.Errorf("give a box or a sphere")
	case len(s.Box) > 0 && len(s.Box) != 6:
		return fmt.Errorf("box has %d numbers, want 6: [xmin, ymin, zmin, xmax, ymax, zmax]", len(s.Box))
	case len(s.Sphere) > 0 && (len(s.Sphere) != 4 || s.Sphere[3] <= 0):
		return fmt.Errorf("sphere must be [cx, cy, cz, radius] with radius > 0")
	}
	for a := 0; len(s.Box) == 6 && a < 3; a++ {
		if s.Box[a] > s.Box[a+3] {
			return fmt.Errorf("box min[%d] = %g is greater than max[%d] = %g", a, s.Box[a], a, s.Box[a+3])
		}
	}
	return nil
}

func (s *Shape) contains(p geom.Vec3) bool {
	if len(s.Box) == 6 {
		b := s.Box
		return p[0] >= b[0] && p[0] <= b[3] && p[1] >= b[1] && p[1] <= b[4] && p[2] >= b[2] && p[2] <= b[5]
	}
	c := geom.Vec3{s.Sphere[0], s.Sphere[1], s.Sphere[2]}
	return p.Sub(c).Norm2() <= s.Sphere[3]*s.Sphere[3]
}

// StiffnessRegion is a part of an object with another Young's modulus.
type StiffnessRegion struct {
	Shape
	YoungModulus float64 `toml:"youngModulus" doc:"Young's modulus inside the region" unit:"Pa" range:"(0,inf)" required:"true"`
}

// DensityRegion is a part of an object with another mass density.
type DensityRegion struct {
	Shape
	MassDensity float64 `toml:"massDensity" doc:"mass density inside the region" unit:"kg/m³" range:"(0,inf)" required:"true"`
}

// StiffnessMap is embedded by force fields whose Young's modulus may vary
// per tetrahedron; its fields become the component's scene fields. A
// per-element list takes precedence over regions; among regions, the last
// one containing an element's rest centroid wins.
type StiffnessMap struct {
	Regions                []StiffnessRegion `toml:"regions" doc:"regions of another stiffness: [{box = [...], youngModulus = ...}, {sphere = [cx, cy, cz, r], youngModulus = ...}]; the last region containing an element's rest centre (the mean of its vertices) wins"`
	YoungModulusPerElement []float64         `toml:"youngModulusPerElement" doc:"Young's modulus of each element the force field acts on (tetrahedron, hexahedron or polyhedron), in topology order (overrides youngModulus and regions)" unit:"Pa" range:"(0,inf)"`
}

// DensityMap is embedded by masses whose density may vary per tetrahedron,
// as StiffnessMap is by force fields.
type DensityMap struct {
	Regions               []DensityRegion `toml:"regions" doc:"regions of another density: [{box = [...], massDensity = ...}, {sphere = [cx, cy, cz, r], massDensity = ...}]; the last region containing an element's rest centre (the mean of its vertices) wins"`
	MassDensityPerElement []float64       `toml:"massDensityPerElement" doc:"mass density of each element, in topology order: tetrahedra, then hexahedra, then polyhedra; on a triangle surface, its triangles (overrides the uniform density and regions)" unit:"kg/m³" range:"(0,inf)"`
}

// CheckStiffnessMap validates the region shapes.
func (h *StiffnessMap) CheckStiffnessMap() error {
	for i := range h.Regions {
		if err := h.Regions[i].check(); err != nil {
			return fmt.Errorf("regions[%d]: %w", i, err)
		}
	}
	return nil
}

// CheckDensityMap validates the region shapes.
func (h *DensityMap) CheckDensityMap() error {
	for i := range h.Regions {
		if err := h.Regions[i].check(); err != nil {
			return fmt.Errorf("regions[%d]: %w", i, err)
		}
	}
	return nil
}

// Uniform reports whether the map leaves the Young's modulus uniform.
func (h *StiffnessMap) Uniform() bool {
	return len(h.Regions) == 0 && len(h.YoungModulusPerElement) == 0
}

// Uniform reports whether the map leaves the density uniform.
func (h *DensityMap) Uniform() bool {
	return len(h.Regions) == 0 && len(h.MassDensityPerElement) == 0
}

// YoungModuli returns the Young's modulus of every tetrahedron: the
// per-element list if given (its length must match), else E overridden by
// the regions containing the rest centroid. points are flat xyz.
func (h *StiffnessMap) YoungModuli(points []float64, tets [][4]int, E float64) ([]float64, error) {
	shapes := make([]*Shape, len(h.Regions))
	values := make([]float64, len(h.Regions))
	for i := range h.Regions {
		shapes[i], values[i] = &h.Regions[i].Shape, h.Regions[i].YoungModulus
	}
	return perElement("youngModulusPerElement", h.YoungModulusPerElement, shapes, values, points, tets, E)
}

// MassDensities returns the mass density of every tetrahedron, as
// YoungModuli does for the stiffness.
func (h *DensityMap) MassDensities(points []float64, tets [][4]int, rho float64) ([]float64, error) {
	shapes := make([]*Shape, len(h.Regions))
	values := make([]float64, len(h.Regions))
	for i := range h.Regions {
		shapes[i], values[i] = &h.Regions[i].Shape, h.Regions[i].MassDensity
	}
	return perElement("massDensityPerElement", h.MassDensityPerElement, shapes, values, points, tets, rho)
}

func perElement(name string, list []float64, shapes []*Shape, values []float64, points []float64, tets [][4]int, def float64) ([]float64, error) {
	centres := make([]float64, 3*len(tets))
	if len(list) == 0 && len(shapes) > 0 {
		for e, t := range tets {
			var c geom.Vec3
			for _, v := range t {
				c = c.Add(geom.At(points, v))
			}
			geom.Put(centres, e, c.Scale(0.25))
		}
	}
	return perCentre(name, "tetrahedra", list, shapes, values, centres, def)
}

// perCentre gives each element, of rest centre centres[3e:3e+3], the
// value of the per-element list, else of the last shape containing its
// centre, else def. kind names the elements in messages.
func perCentre(name, kind string, list []float64, shapes []*Shape, values []float64, centres []float64, def float64) ([]float64, error) {
	ne := len(centres) / 3
	out := make([]float64, ne)
	if len(list) > 0 {
		if len(list) != ne {
			return nil, fmt.Errorf("%s has %d values, the mesh has %d %s", name, len(list), ne, kind)
		}
		copy(out, list)
		return out, nil
	}
	for e := range out {
		out[e] = def
		c := geom.At(centres, e)
		for i, s := range shapes {
			if s.contains(c) {
				out[e] = values[i]
			}
		}
	}
	return out, nil
}

// YoungModuliAt returns the Young's modulus of every element of a mesh
// of any cells, given their rest centres (flat xyz, one per element, e.g.
// the mean of a hexahedron's corners): the per-element list if given (its
// length must match), else E overridden by the regions containing the
// centre. kind names the elements in messages ("hexahedra").
func (h *StiffnessMap) YoungModuliAt(centres []float64, kind string, E float64) ([]float64, error) {
	shapes := make([]*Shape, len(h.Regions))
	values := make([]float64, len(h.Regions))
	for i := range h.Regions {
		shapes[i], values[i] = &h.Regions[i].Shape, h.Regions[i].YoungModulus
	}
	return perCentre("youngModulusPerElement", kind, h.YoungModulusPerElement, shapes, values, centres, E)
}

// MassDensitiesAt returns the mass density of every element of a mesh of
// any cells, given their rest centres, as YoungModuliAt does for the
// stiffness.
func (h *DensityMap) MassDensitiesAt(centres []float64, kind string, rho float64) ([]float64, error) {
	shapes := make([]*Shape, len(h.Regions))
	values := make([]float64, len(h.Regions))
	for i := range h.Regions {
		shapes[i], values[i] = &h.Regions[i].Shape, h.Regions[i].MassDensity
	}
	return perCentre("massDensityPerElement", kind, h.MassDensityPerElement, shapes, values, centres, rho)
}
