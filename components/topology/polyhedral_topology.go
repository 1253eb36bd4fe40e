package topology

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/parallel"
	"github.com/sofago/sofago/polyfem"
)

// PolyhedralTopology serves a mesh of convex polyhedra
// (graph.PolyhedronTopology) for PolyhedronFEMForceField and the masses:
// read from a .polyhedra file (the text format of package polyfem:
// points, then cells as lists of faces) or generated:
//
//   - generator = "hexDominant": the box [min, max] cut into n cells per
//     axis, every cell a hexahedron except (split = "checkerboard", the
//     default) the cells with i + j + k even, each cut into six square
//     pyramids with their apex at the cell's centre — the split cells
//     keep their faces, so the mesh conforms;
//   - generator = "voronoi": the Voronoi cells of a point set clipped to
//     the box: the given seeds, or (without seeds) a body-centred cubic
//     lattice of n cells per axis jittered by jitter times its spacing
//     (random numbers from seed); lloyd steps of Lloyd's relaxation
//     (seeds moved to their cells' centroids) make the cells rounder.
//
// The harmonic shape functions of every cell (polyfem.Mesh.FitElement:
// fundamental solutions fitted to the barycentric boundary data) are
// computed once, on first use, in parallel, and shared by the force
// field and the mass; kernelScale and maxCentres tune the fit. It serves
// no tetrahedra; its triangles are the boundary faces, fan-triangulated
// (for VisualModel, contacts and exports).
type PolyhedralTopology struct {
	graph.ObjectBase
	Filename    string      `toml:"filename" doc:"a .polyhedra mesh file (format in package polyfem), relative to the scene file; exclusive with generator"`
	Generator   string      `toml:"generator" doc:"generated mesh instead of a file: hexDominant (hexahedra with a checkerboard of cells split into 6 pyramids) or voronoi (Voronoi cells of seeds clipped to the box)" enum:",hexDominant,voronoi"`
	Min         [3]float64  `toml:"min" doc:"low corner of the generated box" unit:"m"`
	Max         [3]float64  `toml:"max" doc:"high corner of the generated box" unit:"m"`
	N           [3]int      `toml:"n" doc:"cells per axis: of the hex-dominant grid, or of the jittered body-centred cubic lattice of Voronoi seeds"`
	Split       string      `toml:"split" doc:"cells of the hex-dominant grid cut into six pyramids: checkerboard (i + j + k even) or none (all hexahedra)" enum:"checkerboard,none"`
	Seeds       [][]float64 `toml:"seeds" doc:"Voronoi seeds [[x, y, z], ...] inside the box (instead of the jittered lattice)" unit:"m"`
	Jitter      float64     `toml:"jitter" doc:"random offset of the lattice seeds, as a fraction of the lattice spacing" range:"[0,0.5)"`
	Seed        int         `toml:"seed" doc:"random seed of the jitter" range:"[0,inf)"`
	Lloyd       int         `toml:"lloyd" doc:"steps of Lloyd's relaxation of the Voronoi seeds" range:"[0,inf)"`
	KernelScale float64     `toml:"kernelScale" doc:"kernel centres of the fundamental solutions on the cell boundary scaled by this factor about the cell's centre" range:"(1,inf)"`
	MaxCentres  int         `toml:"maxCentres" doc:"kernel centres per cell, about" range:"[20,inf)"`

	mesh   *polyfem.Mesh
	polys  []graph.Polyhedron
	tris   [][3]int
	once   sync.Once
	basis  []*polyfem.ElementBasis
	errFit error
}

func init() {
	graph.Register(graph.TypeInfo{
		Name:    "PolyhedralTopology",
		Kind:    graph.KindTopology,
		Summary: "Convex polyhedra from a .polyhedra file or generated (hex-dominant grid with pyramid-split cells, or Voronoi cells clipped to a box), with their harmonic shape functions by the method of fundamental solutions (for PolyhedronFEMForceField and the masses).",
		New: func() graph.Object {
			return &PolyhedralTopology{Max: [3]float64{1, 1, 1}, N: [3]int{2, 2, 2}, Split: "checkerboard", Jitter: 0.1, Seed: 1, KernelScale: 3, MaxCentres: 200}
		},
	})
}

// Validate checks that exactly one source is given and its parameters.
func (p *PolyhedralTopology) Validate() error {
	switch {
	case p.Filename != "" && p.Generator != "":
		return fmt.Errorf("give filename or generator, not both")
	case p.Filename == "" && p.Generator == "":
		return fmt.Errorf("give a .polyhedra filename or a generator (hexDominant, voronoi)")
	case p.Filename != "" && !strings.EqualFold(filepath.Ext(p.Filename), ".polyhedra"):
		return fmt.Errorf("filename %q: want a .polyhedra file", p.Filename)
	}
	if p.Generator != "" {
		for a := 0; a < 3; a++ {
			if !(p.Max[a] > p.Min[a]) {
				return fmt.Errorf("max[%d] = %g must be greater than min[%d] = %g", a, p.Max[a], a, p.Min[a])
			}
			if p.N[a] < 1 && len(p.Seeds) == 0 {
				return fmt.Errorf("n[%d] = %d: need at least one cell per axis", a, p.N[a])
			}
		}
	}
	for i, s := range p.Seeds {
		if len(s) != 3 {
			return fmt.Errorf("seeds[%d] has %d numbers, want 3", i, len(s))
		}
	}
	return nil
}

// Init reads or generates the mesh and validates it.
func (p *PolyhedralTopology) Init() error {
	if err := p.Validate(); err != nil {
		return err
	}
	var m *polyfem.Mesh
	var err error
	lo, hi := geom.Vec3(p.Min), geom.Vec3(p.Max)
	switch {
	case p.Filename != "":
		path := p.Filename
		if p.Node != nil && p.Node.Scene() != nil {
			path = p.Node.Scene().ResolvePath(p.Filename)
		}
		m, err = polyfem.ReadPolyhedra(path)
	case p.Generator == "hexDominant":
		split := polyfem.Checkerboard
		if p.Split == "none" {
			split = nil
		}
		m, err = polyfem.HexDominantGrid(lo, hi, p.N, split)
	default:
		var seeds []float64
		if len(p.Seeds) > 0 {
			for _, s := range p.Seeds {
				seeds = append(seeds, s...)
			}
		} else {
			seeds = polyfem.JitteredBCC(lo, hi, p.N, p.Jitter, uint64(p.Seed))
		}
		m, err = polyfem.LloydVoronoi(seeds, lo, hi, p.Lloyd)
	}
	if err != nil {
		return err
	}
	if err := m.Validate(); err != nil {
		return err
	}
	p.SetMesh(m)
	return nil
}

// SetMesh serves m (for code and tests; Init calls it).
func (p *PolyhedralTopology) SetMesh(m *polyfem.Mesh) {
	p.mesh = m
	p.polys = make([]graph.Polyhedron, len(m.Cells))
	for e, c := range m.Cells {
		p.polys[e] = graph.Polyhedron(c)
	}
	p.tris = m.BoundaryTriangles()
	p.once = sync.Once{}
	p.basis, p.errFit = nil, nil
}

// Mesh returns the polyhedral mesh.
func (p *PolyhedralTopology) Mesh() *polyfem.Mesh { return p.mesh }

// Points implements graph.Topology.
func (p *PolyhedralTopology) Points() []float64 {
	if p.mesh == nil {
		return nil
	}
	return p.mesh.Points
}

// Tetrahedra implements graph.Topology: none.
func (p *PolyhedralTopology) Tetrahedra() [][4]int { return nil }

// Triangles implements graph.Topology: the boundary faces,
// fan-triangulated, outwards.
func (p *PolyhedralTopology) Triangles() [][3]int { return p.tris }

// Polyhedra implements graph.PolyhedronTopology.
func (p *PolyhedralTopology) Polyhedra() []graph.Polyhedron { return p.polys }

// HarmonicBasis returns the shape functions of every cell, computing them
// on first call (in parallel over the cells, deterministic) and sharing
// them afterwards.
func (p *PolyhedralTopology) HarmonicBasis() ([]*polyfem.ElementBasis, error) {
	if p.mesh == nil {
		return nil, fmt.Errorf("topology %q not initialised", p.Name)
	}
	p.once.Do(func() {
		opt := polyfem.Options{KernelScale: p.KernelScale, MaxCentres: p.MaxCentres}
		basis := make([]*polyfem.ElementBasis, len(p.mesh.Cells))
		errs := make([]error, len(basis))
		var r parallel.Runner
		r.Run(len(basis), 1, func(lo, hi int) {
			for e := lo; e < hi; e++ {
				basis[e], errs[e] = p.mesh.FitElement(e, opt)
			}
		})
		for _, err := range errs {
			if err != nil {
				p.errFit = err
				return
			}
		}
		p.basis = basis
	})
	return p.basis, p.errFit
}

// BasisProvider is implemented by topologies that serve polyhedra with
// their harmonic shape functions (PolyhedralTopology).
type BasisProvider interface {
	graph.PolyhedronTopology
	Mesh() *polyfem.Mesh
	HarmonicBasis() ([]*polyfem.ElementBasis, error)
}

var _ BasisProvider = (*PolyhedralTopology)(nil)
