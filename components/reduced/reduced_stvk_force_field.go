// Package reduced holds the components of reduced (subspace) StVK models
// (Barbič & James 2005): ReducedStVKForceField (the cubic reduced internal
// force on a Vec1 state of reduced coordinates q, with its precomputation
// and cache), ReducedMass (UᵀMU and the reduced gravity), and
// SnapshotRecorder (deformation snapshots of a full simulation for a
// data-driven basis). The full mesh follows through SubspaceMapping
// (components/mapping); the dynamics is usually integrated by
// NewmarkImplicitSolver with DenseDirectSolver (components/solver).
package reduced

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/material"
	"github.com/sofago/sofago/modal"
	"github.com/sofago/sofago/reduced"
)

// ReducedStVKForceField is the reduced St. Venant–Kirchhoff internal force
// of a tetrahedral mesh in a displacement basis U (Barbič & James 2005):
// on a Vec1 state of r reduced coordinates q (u = U q on the full mesh) it
// adds the force −R(q) = −Uᵀ f_int(U q), a cubic polynomial in q whose
// coefficients are precomputed element by element (eq. 9–11, appendix B;
// package reduced), with the exact tangent −K(q) = −∂R/∂q and the energy
// W(q). Evaluation costs O(r⁴), independent of the mesh.
//
// The basis comes, in order of precedence, from basisFile (any format
// modal.ReadBasis reads: VegaFEM's binary .U, JSON, text; 3n rows), from
// snapshotFile (mass-PCA of recorded deformations, modal.BuildSnapshotBasis:
// Sec. 5.2's data-driven basis), or is computed at Init from the full mesh
// (modal.BuildModalDerivativeBasis): the numModes lowest linear modes of
// the body clamped at the fixed vertices, their modal derivatives
// (eq. 12–15), scaled (eq. 16) and reduced by mass-PCA to basisSize vectors
// (appendix A); linearModesOnly keeps the modes alone.
//
// Precomputation cache: the basis, the polynomial coefficients and the
// reduced mass are saved in the scene's cache folder, subfolder reduced/
// (graph.Scene.CacheFolder: runscene -cache, else the scene's root key
// cacheDir, else the user cache folder/sofago; never the source tree
// unless asked), or in this object's cacheDir when given (relative to the
// scene file), with a .gitignore, under a file named by a SHA-256 of everything
// they depend on (mesh, material, regions, fixed vertices, basis options,
// the basis or snapshot file's content), written atomically, and reused on
// the next run when nothing changed (a damaged file is recomputed). Set
// cache = false to always recompute. While computing, progress goes to the
// Progress hook (by default to standard error when it is a terminal).
//
// Material groups (Sec. 6.5): the elements outside every region form
// group 0 (youngModulus, poissonRatio); region i forms group i + 1 (its
// youngModulus, the same poissonRatio). Each group's λ and μ polynomials
// are kept apart, so SetMaterial changes a group's Young's modulus and
// Poisson's ratio at run time exactly, without recomputing.
// youngModulusPerElement scales the elements' stiffness within group 0.
//
// Mass: the force field computes the reduced mass UᵀMU (consistent mass,
// or lumped with lumpedMass) and the reduced gravity for massDensity; a
// ReducedMass in the same node applies them (a separate component, so that
// the node has exactly one mass and the force field stays a force field).
//
// Sign: VegaFEM's R is +∂W/∂q; this force field adds −R and its stiffness
// (AddDForce, AddKToMatrix) is −K, negative definite at rest.
type ReducedStVKForceField struct {
	graph.ObjectBase
	material.StiffnessMap
	Topology        graph.Link           `toml:"topology" doc:"the full tetrahedral mesh: a topology object, or a node holding one (default: the topology of this node or an ancestor, else the first child node with one)"`
	YoungModulus    float64              `toml:"youngModulus" doc:"Young's modulus E of the elements outside every region" unit:"Pa" range:"(0,inf)"`
	PoissonRatio    float64              `toml:"poissonRatio" doc:"Poisson's ratio ν" range:"(-1,0.5)"`
	MassDensity     float64              `toml:"massDensity" doc:"mass density ρ (for the modal analysis and the reduced mass)" unit:"kg/m³" range:"(0,inf)"`
	LumpedMass      bool                 `toml:"lumpedMass" doc:"use the lumped mass ρV/4 per vertex instead of the consistent mass (modes and UᵀMU)"`
	BasisFile       string               `toml:"basisFile" doc:"read the basis U (3n × r) from this file (modal.ReadBasis formats), relative to the scene file"`
	SnapshotFile    string               `toml:"snapshotFile" doc:"build the basis by mass-PCA of the deformation snapshots in this file (3n rows, one column per snapshot; SnapshotRecorder writes them)"`
	NumModes        int                  `toml:"numModes" doc:"number k of linear modes for a computed basis" range:"[1,200]"`
	BasisSize       int                  `toml:"basisSize" doc:"number r of basis vectors kept by mass-PCA (0: all, k + k(k+1)/2 with derivatives, k without; for snapshotFile it is required)" range:"[0,1000]"`
	LinearModesOnly bool                 `toml:"linearModesOnly" doc:"basis of linear modes only, without modal derivatives"`
	Fixed           []graph.DOFSelection `toml:"fixed" doc:"vertices of the full mesh clamped for the modal analysis, the union of selections: [{box = [xmin, ymin, zmin, xmax, ymax, zmax]}, {indices = [...]}, ...] (the basis is zero there)"`
	Cache           bool                 `toml:"cache" doc:"save the precomputation in the cache folder and reuse it when nothing changed"`
	CacheDir        string               `toml:"cacheDir" doc:"cache folder of this force field, relative to the scene file (default: reduced/ in the scene's cache folder: runscene -cache, else the root key cacheDir, else the user cache folder/sofago)"`

	preset      *reduced.Basis // basis set by code (SetBasis)
	prepared    bool
	prepErr     error
	mesh        reduced.Mesh
	groupE      []float64 // Young's modulus of each group
	pre         *reduced.Precomputed
	model       *reduced.Model
	state       graph.State
	r           int
	q, R, K     []float64 // linearisation: configuration, force, tangent of the last AddForce
	linearised  bool
	cachePath   string
	cacheHit    bool
	precompTime time.Duration
}

func init() {
	graph.Register(graph.TypeInfo{
		Name: "ReducedStVKForceField",
		Kind: graph.KindForceField,
		Summary: "Reduced StVK force on reduced coordinates q (Vec1): −R(q), the exact cubic polynomial Uᵀf(Uq) precomputed per element (Barbič & James 2005), tangent −K(q), energy; " +
			"basis from a file, snapshots, or modes + modal derivatives + mass-PCA computed at Init; cached in the user cache folder (or runscene -cache, the scene's cacheDir); run-time Young's modulus per material group.",
		New: func() graph.Object { return NewReducedStVKForceField() },
	})
}

// NewReducedStVKForceField returns a force field with the defaults: E =
// 1e6 Pa, ν = 0.45, ρ = 1000 kg/m³, 6 modes with derivatives, cache on in
// the scene's cache folder.
func NewReducedStVKForceField() *ReducedStVKForceField {
	return &ReducedStVKForceField{
		ObjectBase:   graph.ObjectBase{Name: "ReducedStVKForceField", TypeName: "ReducedStVKForceField"},
		YoungModulus: 1e6, PoissonRatio: 0.45, MassDensity: 1000, NumModes: 6,
		Cache: true,
	}
}

var _ reduced.BasisSource = (*ReducedStVKForceField)(nil)
var _ graph.StiffnessAssembler = (*ReducedStVKForceField)(nil)

// Validate checks the fields (for objects built in code; the loader checks
// the tags too).
func (c *ReducedStVKForceField) Validate() error {
	if !(c.YoungModulus > 0) || math.IsInf(c.YoungModulus, 0) {
		return fmt.Errorf("youngModulus = %g must be positive and finite", c.YoungModulus)
	}
	if !(c.PoissonRatio > -1 && c.PoissonRatio < 0.5) {
		return fmt.Errorf("poissonRatio = %g is out of range (-1, 0.5)", c.PoissonRatio)
	}
	if !(c.MassDensity > 0) || math.IsInf(c.MassDensity, 0) {
		return fmt.Errorf("massDensity = %g must be positive and finite", c.MassDensity)
	}
	if c.BasisFile != "" && c.SnapshotFile != "" {
		return fmt.Errorf("give basisFile or snapshotFile, not both")
	}
	if c.SnapshotFile != "" && c.BasisSize == 0 {
		return fmt.Errorf("snapshotFile needs basisSize (the number r of vectors mass-PCA keeps)")
	}
	if c.BasisFile == "" && c.SnapshotFile == "" {
		if c.NumModes < 1 {
			return fmt.Errorf("numModes = %d must be at least 1", c.NumModes)
		}
		full := c.NumModes + c.NumModes*(c.NumModes+1)/2
		if c.LinearModesOnly {
			full = c.NumModes
		}
		if c.BasisSize > full {
			return fmt.Errorf("basisSize = %d is more than the %d vectors of %d modes%s", c.BasisSize, full, c.NumModes,
				map[bool]string{true: "", false: " and their derivatives"}[c.LinearModesOnly])
		}
	}
	for i := range c.Fixed {
		if !c.Fixed[i].Given() {
			return fmt.Errorf("fixed[%d] selects nothing: give box or indices", i)
		}
		if err := c.Fixed[i].CheckSelection(); err != nil {
			return fmt.Errorf("fixed[%d]: %w", i, err)
		}
	}
	return c.CheckStiffnessMap()
}

// SetBasis gives the basis directly (code that builds scenes, tests): it
// takes precedence over basisFile and the modal computation. Call it
// before Init.
func (c *ReducedStVKForceField) SetBasis(b *reduced.Basis) { c.preset = b }

// Init prepares the model (if a mapping or mass has not already) and binds
// it to the node's Vec1 state.
func (c *ReducedStVKForceField) Init() error {
	if err := c.prepare(); err != nil {
		return err
	}
	return nil
}

// SubspaceBasis implements reduced.BasisSource: the basis and the rest
// positions of the full mesh, preparing the model on first use.
func (c *ReducedStVKForceField) SubspaceBasis() (*reduced.Basis, []float64, error) {
	if err := c.prepare(); err != nil {
		return nil, nil, err
	}
	return c.pre.Basis, c.mesh.Points, nil
}

// Inertia returns the reduced mass data, preparing the model on first use.
func (c *ReducedStVKForceField) Inertia() (*reduced.Inertia, error) {
	if err := c.prepare(); err != nil {
		return nil, err
	}
	return c.pre.Inertia, nil
}

// Model returns the evaluator (nil before Init).
func (c *ReducedStVKForceField) Model() *reduced.Model { return c.model }

// Precomputed returns the basis, polynomials and inertia (nil before Init).
func (c *ReducedStVKForceField) Precomputed() *reduced.Precomputed { return c.pre }

// CacheInfo reports the cache file used ("" when caching is off or the
// file could not be written), whether
// the precomputation came from it, and how long computing took otherwise.
func (c *ReducedStVKForceField) CacheInfo() (path string, hit bool, compute time.Duration) {
	return c.cachePath, c.cacheHit, c.precompTime
}

// NumGroups returns the number of material groups (1 + number of regions).
func (c *ReducedStVKForceField) NumGroups() int { return len(c.groupE) }

// SetMaterial changes the Young's modulus and Poisson's ratio of material
// group g at run time (Sec. 6.5): exact, since the polynomials are linear
// in each group's λ and μ; a millisecond at r = 30. The basis is not
// recomputed (it stays the one of the precomputation material).
func (c *ReducedStVKForceField) SetMaterial(g int, E, nu float64) error {
	if c.model == nil {
		return c.Errorf("SetMaterial before Init")
	}
	if !(E > 0) || math.IsInf(E, 0) || !(nu > -1 && nu < 0.5) {
		return c.Errorf("SetMaterial: E = %g must be positive and ν = %g in (-1, 0.5)", E, nu)
	}
	l, m := material.Lame(E, nu)
	if err := c.model.SetLame(g, l, m); err != nil {
		return c.Wrap(err)
	}
	c.linearised = false
	return nil
}

// prepare runs once: mesh, groups, precomputation (or cache), model.
func (c *ReducedStVKForceField) prepare() error {
	if c.prepared {
		return c.prepErr
	}
	c.prepared = true
	c.prepErr = c.prepareOnce()
	return c.prepErr
}

func (c *ReducedStVKForceField) prepareOnce() error {
	if err := c.Validate(); err != nil {
		return c.Wrap(err)
	}
	if c.Node == nil {
		return c.Errorf("not attached to a node")
	}
	st := c.Node.State()
	if st == nil {
		return c.Errorf("no mechanical state in node %q: add a MechanicalObject with template = \"Vec1\" (the reduced coordinates)", c.Node.Path())
	}
	if tn := st.Template().Name(); tn != "Vec1" {
		return c.Errorf("state %q has template %s; the reduced force field acts on reduced coordinates (template = \"Vec1\")", st.Base().Name, tn)
	}
	c.state = st
	topo, err := c.findTopology()
	if err != nil {
		return c.Wrap(err)
	}
	c.mesh = reduced.Mesh{Points: append([]float64(nil), topo.Points()...), Tets: topo.Tetrahedra()}
	if len(c.mesh.Tets) == 0 {
		return c.Errorf("topology %q has no tetrahedra", topo.Base().Path())
	}
	group, weight, err := c.groups()
	if err != nil {
		return c.Wrap(err)
	}
	fixed, err := c.fixedVertices()
	if err != nil {
		return c.Wrap(err)
	}
	key, err := c.cacheKey(group, weight, fixed)
	if err != nil {
		return c.Wrap(err)
	}
	if c.Cache {
		dir, err := c.cacheFolder()
		if err != nil {
			return c.Wrap(err)
		}
		c.cachePath = filepath.Join(dir, fmt.Sprintf("%s-%s.rstvk", sanitize(c.Name), key))
		pre, err := reduced.ReadCache(c.cachePath, key)
		switch {
		case err == nil && pre.Poly.NumGroups() == len(c.groupE) && pre.Basis.NumRows() == len(c.mesh.Points):
			c.pre, c.cacheHit = pre, true
		case err != nil && !errors.Is(err, reduced.ErrCacheMiss):
			c.progress("cache", 0, 0, err.Error()+"; recomputing")
		}
	}
	if c.pre == nil {
		start := time.Now()
		pre, err := c.precompute(group, weight, fixed)
		if err != nil {
			return c.Wrap(err)
		}
		c.pre = pre
		c.precompTime = time.Since(start)
		if c.Cache {
			// A cache that cannot be written (read-only checkout) only
			// costs the next run its precomputation: say so, go on.
			if err := c.writeCache(key, pre); err != nil {
				c.progress("cache", 0, 0, "not saved: "+err.Error())
				c.cachePath = ""
			}
		}
	}
	if err := c.pre.Basis.Check(c.mesh.NumPoints()); err != nil {
		return c.Wrap(err)
	}
	lam, mu := make([]float64, len(c.groupE)), make([]float64, len(c.groupE))
	for g, E := range c.groupE {
		lam[g], mu[g] = material.Lame(E, c.PoissonRatio)
	}
	if c.model, err = reduced.NewModel(c.pre.Poly, lam, mu); err != nil {
		return c.Wrap(err)
	}
	c.r = c.pre.Basis.R
	switch n := st.Size(); n {
	case 0:
		st.Resize(c.r)
	case c.r:
	default:
		return c.Errorf("state %q has %d reduced coordinates but the basis has %d vectors; leave its size unset (the basis sets it)", st.Base().Name, n, c.r)
	}
	c.q, c.R, c.K = make([]float64, c.r), make([]float64, c.r), make([]float64, c.r*c.r)
	c.linearised = false
	return nil
}

// writeCache saves the precomputation, creating the folder with a
// .gitignore that ignores everything in it.
func (c *ReducedStVKForceField) writeCache(key reduced.Key, pre *reduced.Precomputed) error {
	dir := filepath.Dir(c.cachePath)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	ignore := filepath.Join(dir, ".gitignore")
	if _, err := os.Stat(ignore); errors.Is(err, os.ErrNotExist) {
		if err := os.WriteFile(ignore, []byte("# precomputed reduced models (sofago), safe to delete\n*\n"), 0o644); err != nil {
			return err
		}
	}
	return reduced.WriteCache(c.cachePath, key, pre)
}

// cacheFolder is the folder of the cache file: cacheDir when given, else
// reduced/ in the scene's cache folder (its own subfolder, so the
// .gitignore written there never lands in a folder of the user's).
func (c *ReducedStVKForceField) cacheFolder() (string, error) {
	if c.CacheDir != "" {
		return c.resolve(c.CacheDir), nil
	}
	var s *graph.Scene
	if c.Node != nil {
		s = c.Node.Scene()
	}
	dir, err := s.CacheFolder()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "reduced"), nil
}

// resolve makes a scene-relative path absolute.
func (c *ReducedStVKForceField) resolve(name string) string {
	if c.Node != nil && c.Node.Scene() != nil {
		return c.Node.Scene().ResolvePath(name)
	}
	if !filepath.IsAbs(name) && c.File != "" {
		return filepath.Join(filepath.Dir(c.File), name)
	}
	return name
}

// findTopology resolves the full mesh (see the topology field).
func (c *ReducedStVKForceField) findTopology() (graph.Topology, error) {
	if c.Topology.IsSet() {
		if c.Topology.Object != nil {
			t, ok := c.Topology.Object.(graph.Topology)
			if !ok {
				return nil, fmt.Errorf("topology %q is a %s, not a topology", c.Topology.Path, c.Topology.Object.Base().TypeName)
			}
			return t, nil
		}
		if c.Topology.Node != nil {
			if t := c.Topology.Node.LocalTopology(); t != nil {
				return t, nil
			}
		}
		return nil, fmt.Errorf("topology %q: that node has no topology", c.Topology.Path)
	}
	if t := c.Node.Topology(); t != nil {
		return t, nil
	}
	for _, ch := range c.Node.Children {
		if t := ch.LocalTopology(); t != nil {
			return t, nil
		}
	}
	return nil, fmt.Errorf("no tetrahedral mesh: set topology = \"@child/topology\" (the full mesh, e.g. in the node of the SubspaceMapping)")
}

// groups assigns each tetrahedron its material group and stiffness weight
// and sets groupE.
func (c *ReducedStVKForceField) groups() ([]int, []float64, error) {
	ne := len(c.mesh.Tets)
	if len(c.YoungModulusPerElement) > 0 {
		Es, err := c.StiffnessMap.YoungModuli(c.mesh.Points, c.mesh.Tets, c.YoungModulus)
		if err != nil {
			return nil, nil, err
		}
		w := make([]float64, ne)
		for e, E := range Es {
			w[e] = E / c.YoungModulus
		}
		c.groupE = []float64{c.YoungModulus}
		return nil, w, nil
	}
	c.groupE = []float64{c.YoungModulus}
	if len(c.Regions) == 0 {
		return nil, nil, nil
	}
	// The region containing each centroid, by the StiffnessMap's own rule
	// (last region wins): region i is given the modulus i + 1, the rest 0.
	idx := material.StiffnessMap{Regions: append([]material.StiffnessRegion(nil), c.Regions...)}
	for i := range idx.Regions {
		idx.Regions[i].YoungModulus = float64(i + 1)
		c.groupE = append(c.groupE, c.Regions[i].YoungModulus)
	}
	g, err := idx.YoungModuli(c.mesh.Points, c.mesh.Tets, 0)
	if err != nil {
		return nil, nil, err
	}
	group := make([]int, ne)
	for e, v := range g {
		group[e] = int(v)
	}
	return group, nil, nil
}

// fixedVertices resolves the fixed selection on the mesh's rest points.
func (c *ReducedStVKForceField) fixedVertices() ([]int, error) {
	if len(c.Fixed) == 0 {
		return nil, nil
	}
	mo := graph.NewMechanicalObject("mesh", graph.Vec3, c.mesh.NumPoints())
	copy(mo.Vec(graph.RestPosition), c.mesh.Points)
	in := make([]bool, c.mesh.NumPoints())
	for i := range c.Fixed {
		sel, err := c.Fixed[i].Select(mo)
		if err != nil {
			return nil, fmt.Errorf("fixed[%d]: %w", i, err)
		}
		for _, v := range sel {
			in[v] = true
		}
	}
	var out []int
	for v, f := range in {
		if f {
			out = append(out, v)
		}
	}
	return out, nil
}

// cacheKey hashes every input of the precomputation.
func (c *ReducedStVKForceField) cacheKey(group []int, weight []float64, fixed []int) (reduced.Key, error) {
	kb := reduced.NewKeyBuilder()
	kb.Floats("points", c.mesh.Points)
	tets := make([]int, 0, 4*len(c.mesh.Tets))
	for _, t := range c.mesh.Tets {
		tets = append(tets, t[:]...)
	}
	kb.Ints("tets", tets)
	kb.Floats("material", []float64{c.YoungModulus, c.PoissonRatio, c.MassDensity})
	kb.Floats("groupE", c.groupE)
	kb.Ints("group", group)
	kb.Floats("weight", weight)
	kb.Ints("fixed", fixed)
	kb.Ints("options", []int{c.NumModes, c.BasisSize, b2i(c.LinearModesOnly), b2i(c.LumpedMass)})
	if c.preset != nil {
		kb.Floats("preset basis", c.preset.U)
		kb.Int(c.preset.R)
	}
	for _, f := range []struct{ tag, name string }{{"basisFile", c.BasisFile}, {"snapshotFile", c.SnapshotFile}} {
		if f.name == "" {
			continue
		}
		data, err := os.ReadFile(c.resolve(f.name))
		if err != nil {
			return reduced.Key{}, fmt.Errorf("%s: %w", f.tag, err)
		}
		kb.Bytes(f.tag, data)
	}
	return kb.Key(), nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// sanitize keeps a name usable in a file name.
func sanitize(s string) string {
	out := []rune{}
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			out = append(out, r)
		default:
			out = append(out, '_')
		}
	}
	if len(out) == 0 {
		return "model"
	}
	return string(out)
}

// precompute builds the basis, the polynomials and the inertia.
func (c *ReducedStVKForceField) precompute(group []int, weight []float64, fixed []int) (*reduced.Precomputed, error) {
	pre := &reduced.Precomputed{}
	var err error
	switch {
	case c.preset != nil:
		pre.Basis = c.preset
		err = checkFixed(pre.Basis, fixed, "the basis")
	case c.BasisFile != "":
		pre.Basis, err = readBasis(c.resolve(c.BasisFile), c.mesh.NumPoints())
		if err != nil {
			return nil, fmt.Errorf("basisFile: %w", err)
		}
		err = checkFixed(pre.Basis, fixed, "basisFile")
	default:
		pre.Basis, pre.Eigenvalues, err = c.computeBasis(fixed)
	}
	if err != nil {
		return nil, err
	}
	pre.Poly, err = reduced.Precompute(c.mesh, pre.Basis, reduced.PrecomputeOptions{
		Group: group, NumGroups: len(c.groupE), Weight: weight,
		Progress: func(done, total int) { c.progress("cubic polynomials", done, total, "") },
	})
	if err != nil {
		return nil, err
	}
	rho := make([]float64, len(c.mesh.Tets))
	for i := range rho {
		rho[i] = c.MassDensity
	}
	pre.Inertia, err = reduced.ReducedInertia(c.mesh, pre.Basis, rho, !c.LumpedMass)
	if err != nil {
		return nil, err
	}
	return pre, nil
}

// checkFixed verifies that the basis vanishes at the fixed vertices.
func checkFixed(b *reduced.Basis, fixed []int, what string) error {
	if err := b.Check(len(b.U) / b.R / 3); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	for _, v := range fixed {
		if 3*v+2 >= b.NumRows() {
			return fmt.Errorf("%s has %d rows; fixed vertex %d is beyond them", what, b.NumRows(), v)
		}
		for k := 0; k < 3; k++ {
			for j, x := range b.U[(3*v+k)*b.R : (3*v+k+1)*b.R] {
				if x != 0 {
					return fmt.Errorf("%s: basis vector %d is %g at fixed vertex %d (a basis for these constraints vanishes there)", what, j, x, v)
				}
			}
		}
	}
	return nil
}

// readBasis reads a basis file (modal.ReadBasis formats) with 3n rows.
func readBasis(path string, numPoints int) (*reduced.Basis, error) {
	U, rows, cols, err := modal.ReadBasis(path)
	if err != nil {
		return nil, err
	}
	if rows != 3*numPoints {
		return nil, fmt.Errorf("%s has %d rows; the mesh has %d vertices (%d rows)", path, rows, numPoints, 3*numPoints)
	}
	return reduced.NewBasisColumnMajor(rows, cols, U)
}

// AddForce implements graph.ForceField: f −= R(q), and caches q, R and
// K(q) for AddDForce.
func (c *ReducedStVKForceField) AddForce(f, x, v []float64) {
	if c.model == nil {
		return
	}
	copy(c.q, x)
	c.model.Evaluate(c.q, c.R, c.K)
	c.linearised = true
	for i, r := range c.R {
		f[i] -= r
	}
}

// linearise evaluates at the state's position when no AddForce has.
func (c *ReducedStVKForceField) linearise() {
	if !c.linearised {
		copy(c.q, c.state.Vec(graph.Position))
		c.model.Evaluate(c.q, c.R, c.K)
		c.linearised = true
	}
}

// AddDForce implements graph.ForceField: df −= kFactor·K(q)·dx, K at the
// q of the most recent AddForce (elastic forces have no damping term).
func (c *ReducedStVKForceField) AddDForce(df, dx []float64, kFactor, bFactor float64) {
	if c.model == nil || kFactor == 0 {
		return
	}
	c.linearise()
	r := c.r
	for i := 0; i < r; i++ {
		row := c.K[i*r : (i+1)*r : (i+1)*r]
		s := 0.0
		for j, k := range row {
			s += k * dx[j]
		}
		df[i] -= kFactor * s
	}
}

// AddKToMatrix implements graph.StiffnessAssembler: m += kFactor·(−K(q)).
func (c *ReducedStVKForceField) AddKToMatrix(m graph.MatrixAccumulator, kFactor float64) {
	if c.model == nil || kFactor == 0 {
		return
	}
	c.linearise()
	r := c.r
	for i := 0; i < r; i++ {
		for j := 0; j < r; j++ {
			m.Add(i, j, -kFactor*c.K[i*r+j])
		}
	}
}

// PotentialEnergy implements graph.ForceField: W(q) (zero at rest). It
// leaves the AddDForce linearisation untouched.
func (c *ReducedStVKForceField) PotentialEnergy(x []float64) float64 {
	if c.model == nil {
		return 0
	}
	return c.model.Energy(x)
}
