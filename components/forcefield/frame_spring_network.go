package forcefield

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/sofago/sofago/components/mapping"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/material"
	"github.com/sofago/sofago/springnet"
)

// FrameSpringNetworkForceField is the precomputed elastic model of a
// frame-based solid (Gilles et al. 2011, Sec. 4.3, Algorithm 2): a network
// of generalized 6-D springs between the Rigid3 frames, built once from
// the sample-integrated model, so that a time step no longer visits the
// integration samples. It takes the place of the samples node (F331
// state, skinning mapping, DeformationGradientForceField): a scene uses
// one or the other. The frames keep their FrameMass, whose lumped blocks
// rotate with the frames (eq. 15).
//
// Precomputation (at Init). The model is what the samples node would be:
// the frames' rest positions, the samples of a sampler (DenseSampler or
// SparseSampler: rest points, volumes, moduli), the shape function's
// weights and gradients there, and the material (materialName,
// youngModulus, poissonRatio, bulkModulus, as DeformationGradientForceField).
// The force field builds that model privately (an F331 state, a
// LinearBlendSkinningMapping, a DeformationGradientForceField) and takes
// its rest stiffness K̄ = Σ_s J_sᵀ (V_s ∂²Ψ/∂F²) J_s (Algorithm 1, eq. 12)
// column by column from the whole-tree operator graph.Ops.ComputeDf, so
// K̄ is exactly the stiffness the sample model has at rest (linear blend
// and dual-quaternion skinning have the same Jacobian at rest, so the
// network serves both). Then (springnet.Network):
//
//   - elements = "clusters" (default): one element per set of frames that
//     influence the same samples, from the rest stiffness of those samples
//     alone; its energy is a quadratic form in the gaps between its base
//     frame and each other frame, measured at hinges halfway between them.
//     The network's rest stiffness is K̄ exactly, whatever the number of
//     frames per sample. With at most two frames per sample (nbRef = 2)
//     every element is a pair spring and this is the paper's network.
//   - elements = "pairs": the paper's network, one spring per pair of
//     frames whose weights overlap, from the off-diagonal block K̄_ij moved
//     to the hinge (eq. 16–18). Where samples see three or more frames, a
//     pair spring cannot carry the antisymmetric part of the joint
//     stiffness (springnet.Network explains why; the paper's force,
//     eq. 24–25, only sees K_m + K_mᵀ), so the static solution differs
//     from the sampled model's even at small loads (3.7% of the
//     displacement on scenes/frames_springs.toml's bar, nbRef = 3).
//
// Run time. Each gap is the relative pose of the two hinge frames fixed to
// its frames, in the hinge frame between them (springnet.Link); each
// element's energy is ½ eᵀ Q e: the paper's spring force (eq. 24–25) made
// exact at finite rotations and conservative, with its energy. It is frame
// invariant: a rigid motion of the whole model gives no force and rotates
// the stiffness (eq. 19), and every element's forces and torques balance.
// tangent = "exact" (default) is the derivative of the force (Newton
// converges quadratically); tangent = "warped" (pairs only) is the paper's
// warped blocks (eq. 19–23, springnet.WarpedTangent), equal to K̄ at rest
// (including the antisymmetric parts the pair forces leave out) but not
// the derivative of the force. The tangent blocks are computed at
// AddForce; AddDForce is a few small block products.
//
// Cache. The network is saved in the scene's cache folder, subfolder
// springnet/ (graph.Scene.CacheFolder: runscene -cache, else the scene's
// root key cacheDir, else the user cache folder/sofago; never the source
// tree unless asked), or in this object's cacheDir when given (relative to
// the scene file), with a .gitignore, under a name carrying a SHA-256 of everything
// it depends on (rest frames, sample points, volumes and moduli, weights
// and gradients, material, decomposition), written atomically, and read
// back on the next run when nothing changed, so the precomputation runs
// once per model (a damaged file is recomputed and overwritten; a file
// that cannot be written only costs the next run its precomputation:
// CacheInfo reports it).
type FrameSpringNetworkForceField struct {
	graph.ObjectBase
	ShapeFunction graph.Link `toml:"shapeFunction" doc:"shape function giving the weights of the frames (a WeightProvider); default: the first one in this node or an ancestor"`
	Samples       graph.Link `toml:"samples" doc:"integration sampler of the model (DenseSampler, SparseSampler: rest points, volumes, moduli); default: the first one in this node or an ancestor"`
	MaterialName  string     `toml:"materialName" doc:"material law of the sampled model (see DeformationGradientForceField); only its stiffness at rest enters the network" enum:"StVenantKirchhoff,NeoHookean,StableNeoHookean,CorotationalLinear,Linear"`
	YoungModulus  float64    `toml:"youngModulus" doc:"Young's modulus E (of samples without their own)" unit:"Pa" range:"(0,inf)"`
	PoissonRatio  float64    `toml:"poissonRatio" doc:"Poisson's ratio ν" range:"(-1,0.5)"`
	BulkModulus   float64    `toml:"bulkModulus" doc:"k of the volume-preservation energy k/2 (det F − 1)² per unit volume (Gilles et al. 2011, appendix B); 0 disables it" unit:"Pa" range:"[0,inf)"`
	Elements      string     `toml:"elements" doc:"clusters: one element per set of frames sharing samples (exact rest stiffness); pairs: one spring per overlapping pair of frames (Gilles et al. 2011, eq. 16–18)" enum:"clusters,pairs"`
	Tangent       string     `toml:"tangent" doc:"exact: the derivative of the forces; warped (with elements = pairs): the paper's warped blocks (eq. 19–23), equal to the sampled model's stiffness at rest" enum:"exact,warped"`
	Cache         bool       `toml:"cache" doc:"save the network in the cache folder and reuse it when the model did not change"`
	CacheDir      string     `toml:"cacheDir" doc:"cache folder of this force field, relative to the scene file (default: springnet/ in the scene's cache folder: runscene -cache, else the root key cacheDir, else the user cache folder/sofago)"`

	state  graph.State
	net    *springnet.Network
	warped bool
	tan    [][]float64 // per element, 6m×6m tangent at the last AddForce
	work   springnet.ElementWork
	dbuf   []float64 // AddDForce scratch

	cachePath   string
	cacheHit    bool
	cacheErr    error
	precompTime time.Duration
	restK       []float64 // K̄ when computed in this run (nil when read from the cache)
}

func init() {
	graph.Register(graph.TypeInfo{
		Name: "FrameSpringNetworkForceField",
		Kind: graph.KindForceField,
		Summary: "Precomputed generalized joint-spring network between Rigid3 frames (Gilles et al. 2011 Sec. 4.3, Algorithm 2), built at Init from the sample-integrated model's rest stiffness (shape function, sampler, material) in place of the samples node; " +
			"conservative springs with exact or warped (eq. 19–23) tangent; cached in the user cache folder (or runscene -cache, the scene's cacheDir).",
		New: func() graph.Object { return NewFrameSpringNetworkForceField() },
	})
}

// NewFrameSpringNetworkForceField returns a force field with the defaults
// of DeformationGradientForceField (StVenantKirchhoff, E = 5000 Pa,
// ν = 0.45), the exact tangent and the cache on in the scene's cache folder.
func NewFrameSpringNetworkForceField() *FrameSpringNetworkForceField {
	return &FrameSpringNetworkForceField{
		ObjectBase:   graph.ObjectBase{Name: "FrameSpringNetworkForceField", TypeName: "FrameSpringNetworkForceField"},
		MaterialName: material.NameStVenantKirchhoff,
		YoungModulus: 5000,
		PoissonRatio: 0.45,
		Elements:     "clusters",
		Tangent:      "exact",
		Cache:        true,
	}
}

var _ graph.StiffnessAssembler = (*FrameSpringNetworkForceField)(nil)

// Validate checks the fields that do not need the scene.
func (c *FrameSpringNetworkForceField) Validate() error {
	if _, err := material.New(c.MaterialName, c.YoungModulus, c.PoissonRatio); err != nil {
		return err
	}
	if !(c.BulkModulus >= 0) || math.IsInf(c.BulkModulus, 0) {
		return fmt.Errorf("bulkModulus = %g must be non-negative and finite", c.BulkModulus)
	}
	if c.Elements != "clusters" && c.Elements != "pairs" {
		return fmt.Errorf("elements = %q is not clusters or pairs", c.Elements)
	}
	if c.Tangent != "exact" && c.Tangent != "warped" {
		return fmt.Errorf("tangent = %q is not exact or warped", c.Tangent)
	}
	if c.Tangent == "warped" && c.Elements != "pairs" {
		return errors.New("tangent = \"warped\" is the paper's stiffness of pair springs: set elements = \"pairs\" (or tangent = \"exact\")")
	}
	return nil
}

// Network returns the elements in use (after Init).
func (c *FrameSpringNetworkForceField) Network() *springnet.Network { return c.net }

// CacheInfo reports the cache file ("" when caching is off), whether the
// network was read from it, the precomputation time when it was not, and
// the error that kept it from being saved, if any.
func (c *FrameSpringNetworkForceField) CacheInfo() (path string, hit bool, precompute time.Duration, writeErr error) {
	return c.cachePath, c.cacheHit, c.precompTime, c.cacheErr
}

// RestStiffness returns the sample-integrated rest stiffness K̄ (6n×6n,
// row-major) the network was built from in this run, or nil when the
// network came from the cache.
func (c *FrameSpringNetworkForceField) RestStiffness() []float64 { return c.restK }

// Init builds (or reads) the network.
func (c *FrameSpringNetworkForceField) Init() error { return c.Wrap(c.initialise()) }

// Reinit builds (or reads) the network again, for code that changed the
// frames (inserted some: Gilles Sec. 4.4, "update the mass-spring network
// accordingly"), the weights or the samples; the cache key follows them.
func (c *FrameSpringNetworkForceField) Reinit() error { return c.Wrap(c.initialise()) }

func (c *FrameSpringNetworkForceField) initialise() error {
	if err := c.Validate(); err != nil {
		return err
	}
	if c.Node == nil {
		return errors.New("not attached to a node")
	}
	st := c.Node.State()
	if st == nil {
		return errors.New("no mechanical state in this node: put the force field next to the frames' Rigid3 MechanicalObject")
	}
	if name := st.Template().Name(); name != graph.Rigid3.Name() {
		return fmt.Errorf("state %q has template %s; the spring network joins Rigid3 frames (use DeformationGradientForceField on samples for %s frames)", st.Base().Path(), name, name)
	}
	for _, o := range c.Node.Objects {
		if o.Base().TypeName == "FrameInserter" {
			return fmt.Errorf("FrameInserter %q inserts frames at run time, but it does not re-initialise the spring network yet: use the sampled model (DeformationGradientForceField on samples) with frame insertion", o.Base().Name)
		}
	}
	if err := checkNoSampledModel(c.Node, st); err != nil {
		return err
	}
	c.state = st
	n := st.Size()
	if n < 2 {
		return fmt.Errorf("state %q has %d frame(s); a spring network needs at least two", st.Base().Path(), n)
	}
	wp, err := c.weightProvider()
	if err != nil {
		return err
	}
	sp, err := c.sampler()
	if err != nil {
		return err
	}
	points, err := sp.(mapping.SamplePointProvider).SamplePoints()
	if err != nil {
		return fmt.Errorf("sample points from %q: %w", sp.Base().Path(), err)
	}
	volumes, err := sp.(SampleVolumeProvider).SampleVolumes()
	if err != nil {
		return fmt.Errorf("sample volumes from %q: %w", sp.Base().Path(), err)
	}
	var young []float64
	if yp, ok := sp.(SampleYoungModulusProvider); ok {
		if young, err = yp.SampleYoungModuli(); err != nil {
			return fmt.Errorf("sample Young's moduli from %q: %w", sp.Base().Path(), err)
		}
	}
	if len(volumes) != len(points)/3 || (young != nil && len(young) != len(volumes)) {
		return fmt.Errorf("sampler %q gives %d points, %d volumes and %d moduli", sp.Base().Path(), len(points)/3, len(volumes), len(young))
	}
	weights, err := wp.WeightsAt(points)
	if err != nil {
		return fmt.Errorf("weights from %q: %w", wp.Base().Path(), err)
	}
	if err := weights.Check(n, len(points)/3, true, false, true); err != nil {
		return fmt.Errorf("weights from %q: %w", wp.Base().Path(), err)
	}
	rest := st.Vec(graph.RestPosition)
	key := c.cacheKey(rest, points, volumes, young, &weights)
	c.net, c.cacheHit, c.cacheErr, c.restK, c.cachePath = nil, false, nil, nil, ""
	if c.Cache {
		dir, err := c.cacheFolder()
		if err != nil {
			return err
		}
		c.cachePath = filepath.Join(dir, fmt.Sprintf("%s-%s.springnet", fileSafe(c.Name), key))
		net, err := springnet.ReadFile(c.cachePath, key)
		switch {
		case err == nil && net.Check(n) == nil:
			c.net, c.cacheHit = net, true
		case err != nil && !errors.Is(err, springnet.ErrMiss):
			c.cacheErr = err // damaged: recompute and overwrite
		}
	}
	if c.net == nil {
		start := time.Now()
		if c.net, c.restK, err = c.precompute(rest, points, volumes, young, weights); err != nil {
			return err
		}
		c.precompTime = time.Since(start)
		if c.Cache {
			if err := c.writeCache(key); err != nil {
				c.cacheErr, c.cachePath = err, ""
			}
		}
	}
	c.warped = c.Tangent == "warped"
	c.tan = make([][]float64, len(c.net.Elements))
	maxM := 0
	for k := range c.net.Elements {
		m := len(c.net.Elements[k].Frames)
		c.tan[k] = make([]float64, 36*m*m)
		maxM = max(maxM, m)
		if c.warped && (m != 2 || c.net.Elements[k].Joint == nil) {
			return errors.New("the cached network has no pair joint stiffness for the warped tangent; delete the cache file")
		}
	}
	c.dbuf = make([]float64, 12*maxM)
	c.linearise(st.Vec(graph.Position), nil)
	return nil
}

// checkNoSampledModel reports a DeformationGradientForceField on samples
// mapped from the frames: the network replaces it, and both together would
// count the material twice.
func checkNoSampledModel(node *graph.Node, frames graph.State) error {
	root := node
	for root.Parent != nil {
		root = root.Parent
	}
	return root.Walk(func(n *graph.Node) error {
		mp := n.Mapping()
		if mp == nil || mp.From() != frames {
			return nil
		}
		for _, o := range n.Objects {
			if _, ok := o.(*DeformationGradientForceField); ok {
				return fmt.Errorf("the frames already carry the sampled model (%q in node %q): the spring network takes its place, so use one or the other", o.Base().Name, n.Path())
			}
		}
		return nil
	})
}

// weightProvider resolves the shape function.
func (c *FrameSpringNetworkForceField) weightProvider() (mapping.WeightProvider, error) {
	if c.ShapeFunction.IsSet() {
		wp, ok := c.ShapeFunction.Object.(mapping.WeightProvider)
		if !ok {
			return nil, fmt.Errorf("shapeFunction %q is not a shape function (it does not implement WeightProvider)", c.ShapeFunction.Path)
		}
		return wp, nil
	}
	for n := c.Node; n != nil; n = n.Parent {
		for _, o := range n.Objects {
			if wp, ok := o.(mapping.WeightProvider); ok {
				return wp, nil
			}
		}
	}
	return nil, errors.New("no shape function: give shapeFunction or put one (e.g. HarmonicShapeFunction) in this node or an ancestor")
}

// isSampler reports whether o gives sample points and volumes.
func isSampler(o graph.Object) bool {
	_, p := o.(mapping.SamplePointProvider)
	_, v := o.(SampleVolumeProvider)
	return p && v
}

// sampler resolves the integration sampler.
func (c *FrameSpringNetworkForceField) sampler() (graph.Object, error) {
	if c.Samples.IsSet() {
		if c.Samples.Object == nil || !isSampler(c.Samples.Object) {
			return nil, fmt.Errorf("samples %q is not a sampler (it must give sample points and volumes, as DenseSampler and SparseSampler do)", c.Samples.Path)
		}
		return c.Samples.Object, nil
	}
	for n := c.Node; n != nil; n = n.Parent {
		for _, o := range n.Objects {
			if isSampler(o) {
				return o, nil
			}
		}
	}
	return nil, errors.New("no integration sampler: give samples or put one (e.g. DenseSampler) in this node or an ancestor")
}

// precompute builds the network (see the type's documentation) and
// returns it with the sample-integrated rest stiffness K̄ (6n×6n).
func (c *FrameSpringNetworkForceField) precompute(rest, points, volumes, young []float64, weights mapping.SkinningWeights) (*springnet.Network, []float64, error) {
	n := len(rest) / 7
	ns := len(volumes)
	N := 6 * n
	if c.Elements == "pairs" {
		all := make([]int, n)
		for i := range all {
			all[i] = i
		}
		samples := make([]int, ns)
		for i := range samples {
			samples[i] = i
		}
		K, err := c.sampleStiffness(rest, points, volumes, young, weights, samples, all)
		if err != nil {
			return nil, nil, err
		}
		pairs, err := springnet.OverlapPairs(n, func(p int) []int { f, _, _ := weights.Influences(p); return f }, ns)
		if err != nil {
			return nil, nil, err
		}
		net, err := springnet.BuildPairs(rest, K, pairs)
		return net, K, err
	}
	// Clusters: the samples grouped by the set of frames influencing them.
	var clusters []springnet.Cluster
	var members [][]int
	index := map[string]int{}
	for p := 0; p < ns; p++ {
		fs, _, _ := weights.Influences(p)
		if len(fs) < 2 {
			continue // moves rigidly with its one frame: no stiffness
		}
		set := append([]int(nil), fs...)
		slices.Sort(set)
		key := fmt.Sprint(set)
		k, ok := index[key]
		if !ok {
			k = len(clusters)
			index[key] = k
			clusters = append(clusters, springnet.Cluster{Frames: set})
			members = append(members, nil)
		}
		members[k] = append(members[k], p)
	}
	K := make([]float64, N*N)
	for k := range clusters {
		cl := &clusters[k]
		Kc, err := c.sampleStiffness(rest, points, volumes, young, weights, members[k], cl.Frames)
		if err != nil {
			return nil, nil, err
		}
		m := len(cl.Frames)
		M := 6 * m
		cl.K = make([]float64, M*M)
		for a, fa := range cl.Frames {
			for b, fb := range cl.Frames {
				for r := 0; r < 6; r++ {
					for s := 0; s < 6; s++ {
						v := Kc[(6*fa+r)*N+6*fb+s]
						cl.K[(6*a+r)*M+6*b+s] = v
						K[(6*fa+r)*N+6*fb+s] += v
					}
				}
			}
		}
	}
	net, err := springnet.BuildClusters(rest, clusters)
	return net, K, err
}

// sampleStiffness builds the sample-integrated model of the listed
// samples privately (frames → LinearBlendSkinningMapping → F331 samples →
// DeformationGradientForceField) and returns its rest stiffness (6n×6n,
// row-major), computed column by column by Ops.ComputeDf for the columns
// of the listed frames (the others are left zero).
func (c *FrameSpringNetworkForceField) sampleStiffness(rest, points, volumes, young []float64, weights mapping.SkinningWeights, samples, frameCols []int) ([]float64, error) {
	n := len(rest) / 7
	pts := make([]float64, 0, 3*len(samples))
	vol := make([]float64, 0, len(samples))
	var E []float64
	var fr [][]int
	var wt [][]float64
	var gr [][]geom.Vec3
	for _, p := range samples {
		pts = append(pts, points[3*p:3*p+3]...)
		vol = append(vol, volumes[p])
		if young != nil {
			E = append(E, young[p])
		}
		f, w, g := weights.Influences(p)
		fr, wt, gr = append(fr, f), append(wt, w), append(gr, g)
	}
	sw, err := mapping.NewSkinningWeights(fr, wt, gr)
	if err != nil {
		return nil, err
	}
	root := &graph.Node{Name: "springnet precomputation"}
	frames := graph.NewMechanicalObject("frames", graph.Rigid3, n)
	copy(frames.Vec(graph.RestPosition), rest)
	copy(frames.Vec(graph.Position), rest)
	root.Add(frames)
	child := root.AddChild("samples")
	F := graph.NewMechanicalObject("F", graph.F331, 0)
	child.Add(F)
	mp := mapping.NewLinearBlendSkinningMapping()
	mp.SetStates(frames, F)
	mp.SetRestPoints(pts)
	mp.SetWeights(sw)
	child.Add(mp)
	if err := mp.Init(); err != nil {
		return nil, fmt.Errorf("sample model: %w", err)
	}
	ff := NewDeformationGradientForceField()
	ff.MaterialName, ff.YoungModulus, ff.PoissonRatio, ff.BulkModulus = c.MaterialName, c.YoungModulus, c.PoissonRatio, c.BulkModulus
	ff.SetVolumes(vol)
	if E != nil {
		ff.SetYoungModuli(E)
	}
	child.Add(ff)
	if err := ff.Init(); err != nil {
		return nil, fmt.Errorf("sample model: %w", err)
	}
	ops, err := graph.NewOps(root)
	if err != nil {
		return nil, fmt.Errorf("sample model: %w", err)
	}
	f, dx, df := ops.AllocDeriv(), ops.AllocDeriv(), ops.AllocDeriv()
	defer ops.Free(f, dx, df)
	ops.ComputeForce(f) // linearise at rest
	N := 6 * n
	K := make([]float64, N*N)
	for _, fc := range frameCols {
		for a := 0; a < 6; a++ {
			col := 6*fc + a
			d := frames.Vec(dx)
			clear(d)
			d[col] = 1
			ops.ComputeDf(df, dx, 0, 0, 1)
			out := frames.Vec(df)
			for r := 0; r < N; r++ {
				K[r*N+col] = out[r]
			}
		}
	}
	for _, x := range K {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, errors.New("sample model: the rest stiffness is not finite")
		}
	}
	return K, nil
}

// cacheKey hashes every input of the precomputation.
func (c *FrameSpringNetworkForceField) cacheKey(rest, points, volumes, young []float64, w *mapping.SkinningWeights) springnet.Key {
	kb := springnet.NewKeyBuilder()
	kb.Floats("rest frames", rest)
	kb.Floats("sample points", points)
	kb.Floats("sample volumes", volumes)
	kb.Floats("sample moduli", young)
	kb.Ints("weight offsets", w.Offsets)
	kb.Ints("weight frames", w.Frames)
	kb.Floats("weights", w.Weights)
	grads := make([]float64, 0, 3*len(w.Gradients))
	for _, g := range w.Gradients {
		grads = append(grads, g[:]...)
	}
	kb.Floats("weight gradients", grads)
	kb.String(c.MaterialName)
	kb.String(c.Elements)
	kb.Floats("material", []float64{c.YoungModulus, c.PoissonRatio, c.BulkModulus})
	return kb.Key()
}

// writeCache saves the network, creating the folder with a .gitignore
// that ignores everything in it.
func (c *FrameSpringNetworkForceField) writeCache(key springnet.Key) error {
	dir := filepath.Dir(c.cachePath)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	ignore := filepath.Join(dir, ".gitignore")
	if _, err := os.Stat(ignore); errors.Is(err, os.ErrNotExist) {
		if err := os.WriteFile(ignore, []byte("# precomputed spring networks (sofago), safe to delete\n*\n"), 0o644); err != nil {
			return err
		}
	}
	return springnet.WriteFile(c.cachePath, key, c.net)
}

// cacheFolder is the folder of the cache file: cacheDir when given, else
// springnet/ in the scene's cache folder (its own subfolder, so the
// .gitignore written there never lands in a folder of the user's).
func (c *FrameSpringNetworkForceField) cacheFolder() (string, error) {
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
	return filepath.Join(dir, "springnet"), nil
}

// resolve makes a scene-relative path absolute.
func (c *FrameSpringNetworkForceField) resolve(name string) string {
	if c.Node != nil && c.Node.Scene() != nil {
		return c.Node.Scene().ResolvePath(name)
	}
	if !filepath.IsAbs(name) && c.File != "" {
		return filepath.Join(filepath.Dir(c.File), name)
	}
	return name
}

// fileSafe keeps a name usable in a file name.
func fileSafe(s string) string {
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
		return "network"
	}
	return string(out)
}

// linearise evaluates every element at x, adding the forces to f when f
// is not nil, and caches the tangent blocks.
func (c *FrameSpringNetworkForceField) linearise(x, f []float64) {
	if f == nil {
		f = make([]float64, len(x)/7*6)
	}
	for k := range c.net.Elements {
		el := &c.net.Elements[k]
		if !c.warped {
			el.Evaluate(x, f, c.tan[k], &c.work)
			continue
		}
		el.Evaluate(x, f, nil, &c.work)
		l := &c.work.Links[0]
		pm := l.P1.Add(l.P2).Scale(0.5)
		var K [12][12]float64
		springnet.WarpedTangent(el.Joint, l.Rm, springnet.BodyAt(x, el.Frames[0]).T.Sub(pm), springnet.BodyAt(x, el.Frames[1]).T.Sub(pm), &K)
		for r := 0; r < 12; r++ {
			copy(c.tan[k][12*r:12*r+12], K[r][:])
		}
	}
}

// AddForce implements graph.ForceField: the forces of every element, and
// their tangent blocks for AddDForce.
func (c *FrameSpringNetworkForceField) AddForce(f, x, v []float64) {
	if n := len(x) / 7; n != c.net.NumFrames {
		panic(fmt.Sprintf("FrameSpringNetworkForceField %q: the frames' state has %d frames but the network %d; call Reinit after changing the frames", c.Name, n, c.net.NumFrames))
	}
	c.linearise(x, f)
}

// AddDForce implements graph.ForceField: df += kFactor·K·dx with the
// tangent blocks of the last AddForce (no damping: use the solver's
// Rayleigh damping).
func (c *FrameSpringNetworkForceField) AddDForce(df, dx []float64, kFactor, bFactor float64) {
	if kFactor == 0 {
		return
	}
	for k := range c.net.Elements {
		el := &c.net.Elements[k]
		M := 6 * len(el.Frames)
		d := c.dbuf[:M]
		for a, fr := range el.Frames {
			copy(d[6*a:6*a+6], dx[6*fr:6*fr+6])
		}
		K := c.tan[k]
		for r := 0; r < M; r++ {
			row := K[r*M : r*M+M]
			y := 0.0
			for b, kv := range row {
				y += kv * d[b]
			}
			df[6*el.Frames[r/6]+r%6] += kFactor * y
		}
	}
}

// AddKToMatrix implements graph.StiffnessAssembler: m += kFactor·K, the
// tangent blocks of the last AddForce.
func (c *FrameSpringNetworkForceField) AddKToMatrix(m graph.MatrixAccumulator, kFactor float64) {
	for k := range c.net.Elements {
		el := &c.net.Elements[k]
		M := 6 * len(el.Frames)
		for r := 0; r < M; r++ {
			for b := 0; b < M; b++ {
				if v := c.tan[k][r*M+b]; v != 0 {
					m.Add(6*el.Frames[r/6]+r%6, 6*el.Frames[b/6]+b%6, kFactor*v)
				}
			}
		}
	}
}

// PotentialEnergy implements graph.ForceField: Σ ½ eᵀ Q e over the elements.
func (c *FrameSpringNetworkForceField) PotentialEnergy(x []float64) float64 {
	w := 0.0
	for k := range c.net.Elements {
		w += c.net.Elements[k].Energy(x, &c.work)
	}
	return w
}
