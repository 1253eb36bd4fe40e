package shapefunction

import (
	"errors"
	"fmt"
	"math"

	"github.com/sofago/sofago/components/mapping"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
)

// FrameMass is the mass of the frames of a frame-based model (Rigid3,
// Affine3 or Quadratic3), integrated over the voxels of a MaterialGrid with the weights
// of a shape function (Gilles et al. 2011 eq. 6 and Sec. 4.3; Faure et
// al. 2011 eq. 8).
//
// Mass. The generalized mass M_ij = ∫ ρ J_iᵀ J_j dV (J_i = ∂x/∂q_i, the
// skinning Jacobian) is lumped to one block per frame, 6×6 for Rigid3 and
// 12×12 for Affine3, computed once at the rest configuration, where linear
// blend and dual-quaternion skinning have the same Jacobian
// J_i = w_i J̃_i (J̃_i = [I, −[X − t̄_i]×] for a rigid frame, the derivative
// of A X̂_i + t for an affine one). Two lumpings:
//
//   - blockDiagonal: M̄_i = ∫ ρ w_i² J̃_iᵀ J̃_i, the diagonal blocks of M
//     (Gilles Sec. 4.3, "neglecting the cross terms"). Σ_i w_i² < 1 where
//     frames overlap, so the frames carry less than the object's mass: a
//     free-falling object accelerates faster than g under the exact
//     gravity below (by Σ ρ w / Σ ρ w², TestFrameMassFreeFall).
//   - partition (default): M̄_i = ∫ ρ w_i J̃_iᵀ J̃_i, the row sums of M
//     under rigid motions. With partition-of-unity weights the frames
//     carry exactly the object's mass, first and second moments: the
//     kinetic energy of every rigid motion of the whole object (all frames
//     moving together) is exact, and free fall accelerates at g.
//
// Quadratic3 frames get 30×30 blocks [[m I, I ⊗ sᵀ], [I ⊗ s, I ⊗ Q]]
// with s = ∫ρω b and Q = ∫ρω b bᵀ over their basis b(X̂) (each voxel's box
// integrated exactly by 3×3×3 Gauss points), and the gravity moments
// ĉ = ∫ρ w b: partition lumping then makes the kinetic energy of any
// quadratic velocity field exact.
//
// Each voxel counts as a box of uniform weight (its centre's), so its own
// second moment h²/12 enters the rotational (and affine) blocks exactly
// and no block is singular. For rigid frames the block rotates with the
// frame (Gilles eq. 15): M_i = ℛ M̄_i ℛᵀ, ℛ = diag(R, R), R = R_i R̄_iᵀ the
// rotation since rest, at the orientation of the last AddForce (as
// RigidMass); affine blocks are constant. M is block diagonal, so
// explicit solvers get M⁻¹ (InverseMass).
//
// Gravity is the exact weight of the material mapped to the frames,
// f = Σ_voxels J(X)ᵀ ρ V g, not a point mass at each frame's origin. For
// linear blend skinning it reduces to moments computed once: frame i gets
// the force m_i g and, if rigid, the torque (R_i ĉ_i) × g (affine: the
// force g ĉ_iᵀ on A_i), with m_i = ∫ ρ w_i and ĉ_i = ∫ ρ w_i X̂_i
// (X̂_i = Ā_i⁻¹ (X − t̄_i)), whose stiffness δτ = (δθ × R_i ĉ_i) × g is
// added exactly. For dual-quaternion skinning the weight of every voxel
// goes through a private DualQuaternionSkinningMapping on the voxel
// centres (Apply, ApplyJT, ApplyDJT), exact too. The potential is
// −Σ ρ V g·x(X). skinning = auto uses the kind of the skinning mappings
// fed by the frames' state.
type FrameMass struct {
	graph.ObjectBase
	ShapeFunction graph.Link `toml:"shapeFunction" doc:"shape function giving the weights (default: the first shape function in this node or an ancestor)"`
	Grid          graph.Link `toml:"grid" doc:"voxel grid with the density (default: the first MaterialGrid in this node or an ancestor)"`
	Lumping       string     `toml:"lumping" doc:"partition: M̄_i = ∫ρ w_i J̃ᵀJ̃ (exact mass and rigid-motion kinetic energy); blockDiagonal: M̄_i = ∫ρ w_i² J̃ᵀJ̃ (Gilles Sec. 4.3)" enum:"partition,blockDiagonal"`
	Skinning      string     `toml:"skinning" doc:"skinning the gravity is mapped through: auto (that of the mappings fed by the frames), linearBlend or dualQuaternion" enum:"auto,linearBlend,dualQuaternion"`

	state  graph.State
	affine bool // linear frames: Affine3 or Quadratic3 (A and t enter the map linearly)
	nb     int  // linear frames: basis size, 3 (affine) or 9 (quadratic)
	nf     int
	bs     int // block size: 6, 12 or 30

	restM    [][]float64 // M̄_i, bs×bs row-major
	restMinv [][]float64 // M̄_i⁻¹
	restQ    []geom.Quat // rest orientation of rigid frames
	mass     []float64   // m_i = ∫ ρ w_i (gravity)
	moment   []geom.Vec3 // affine: ĉ_i = ∫ ρ w_i X̂_i; rigid: ∫ ρ w_i (X − t̄_i), rest world axes (gravity)
	momentN  [][]float64 // linear frames: ĉ_i = ∫ ρ w_i b(X̂_i) (nb numbers; gravity)
	total    float64

	rot []geom.Mat3 // R_i R̄_iᵀ at the last AddForce (rigid)
	// Dual-quaternion gravity: private mappings on the voxel centres, one
	// linearised at the last AddForce, one for energies.
	dqs, dqsEnergy *mapping.DualQuaternionSkinningMapping
	voxForce       []float64 // ρ V g per voxel
	scratch        []float64

	ready bool
}

func init() {
	graph.Register(graph.TypeInfo{
		Name:    "FrameMass",
		Kind:    graph.KindMass,
		Summary: "Mass of Rigid3/Affine3/Quadratic3 frames integrated over the voxels with the shape function's weights (Gilles et al. 2011 eq. 6, lumped per frame, rotated per eq. 15), with the exact mapped weight of the material as gravity (linear blend or dual-quaternion skinning).",
		New:     func() graph.Object { return &FrameMass{Lumping: "partition", Skinning: "auto"} },
	})
}

// Init integrates the mass blocks and gravity moments.
func (m *FrameMass) Init() error { return m.Wrap(m.compute()) }

// Reinit integrates again, after frames were inserted or the weights
// changed.
func (m *FrameMass) Reinit() error { return m.Wrap(m.compute()) }

// TotalMass returns Σ ρ V over the voxels.
func (m *FrameMass) TotalMass() float64 { return m.total }

// RestBlock returns M̄_i (bs×bs row-major, bs = 6 or 12).
func (m *FrameMass) RestBlock(i int) []float64 { return m.restM[i] }

// GravityMoments returns m_i = ∫ ρ w_i and the first moment ĉ_i: ∫ ρ w_i X̂_i
// for affine frames, ∫ ρ w_i (X − t̄_i) (rest world axes) for rigid ones.
func (m *FrameMass) GravityMoments(i int) (float64, geom.Vec3) { return m.mass[i], m.moment[i] }

func (m *FrameMass) compute() error {
	m.ready = false
	if m.Node == nil {
		return errors.New("FrameMass needs a node")
	}
	st := m.Node.State()
	if st == nil {
		return errors.New("needs the frames' MechanicalObject (Rigid3, Affine3 or Quadratic3) in the same node")
	}
	switch st.Template().Name() {
	case graph.Rigid3.Name():
		m.affine, m.bs, m.nb = false, 6, 0
	case graph.Affine3.Name():
		m.affine, m.bs, m.nb = true, 12, 3
	case graph.Quadratic3.Name():
		m.affine, m.bs, m.nb = true, 30, 9
	default:
		return fmt.Errorf("state %q has template %s; FrameMass needs Rigid3, Affine3 or Quadratic3 frames", st.Base().Path(), st.Template().Name())
	}
	m.state = st
	m.nf = st.Size()
	grid, err := findMaterialGrid(m.Grid, m.Node)
	if err != nil {
		return err
	}
	g, err := grid.Voxels()
	if err != nil {
		return err
	}
	wp, err := m.provider()
	if err != nil {
		return err
	}
	centres := g.Centres()
	sw, err := wp.WeightsAt(centres)
	if err != nil {
		return err
	}
	if sw.NumPoints() != g.NumVoxels() {
		return fmt.Errorf("shape function gave weights for %d points, want %d voxels", sw.NumPoints(), g.NumVoxels())
	}
	skin, err := m.skinningKind()
	if err != nil {
		return err
	}
	if skin == "dualQuaternion" && m.affine {
		return errors.New("dual-quaternion skinning needs Rigid3 frames")
	}
	if m.nb == 9 {
		if err := m.computeQuadratic(g, sw, st); err != nil {
			return err
		}
		m.rot = make([]geom.Mat3, m.nf)
		m.dqs, m.dqsEnergy = nil, nil
		m.ready = true
		return nil
	}
	rest := st.Vec(graph.RestPosition)
	cs := st.Template().CoordSize()
	restInv := make([]geom.Mat3, m.nf)
	restT := make([]geom.Vec3, m.nf)
	m.restQ = make([]geom.Quat, m.nf)
	for f := 0; f < m.nf; f++ {
		c := rest[cs*f : cs*f+cs]
		restT[f] = geom.Vec3{c[0], c[1], c[2]}
		if m.affine {
			inv, ok := geom.Mat3(c[3:12]).Inverse()
			if !ok {
				return fmt.Errorf("frame %d: the rest linear part is singular", f)
			}
			restInv[f] = inv
		} else {
			q := geom.Quat{c[3], c[4], c[5], c[6]}
			m.restQ[f] = q
			restInv[f] = q.Mat().T()
		}
	}
	// Accumulate, per frame: lumped moments (weight factor ω = w or w²)
	// m, s = ∫ω X̂ (affine) or ∫ω r (rigid, r = X − t̄ in world rest axes),
	// Q = ∫ω (X̂X̂ᵀ + cell second moment); gravity moments with w.
	lm := make([]float64, m.nf)
	ls := make([]geom.Vec3, m.nf)
	lQ := make([]geom.Mat3, m.nf)
	m.mass = make([]float64, m.nf)
	m.moment = make([]geom.Vec3, m.nf)
	dv := g.VoxelVolume()
	h := g.Spacing
	cellD := geom.Diag(geom.Vec3{h[0] * h[0] / 12, h[1] * h[1] / 12, h[2] * h[2] / 12})
	m.total = 0
	for v := 0; v < g.NumVoxels(); v++ {
		X := g.Centre(v)
		rhoV := g.Density[v] * dv
		m.total += rhoV
		frames, weights, _ := sw.Influences(v)
		for e, f := range frames {
			w := weights[e]
			om := w
			if m.Lumping == "blockDiagonal" {
				om = w * w
			}
			var arm geom.Vec3
			var D geom.Mat3
			if m.affine {
				arm = restInv[f].MulVec(X.Sub(restT[f]))
				D = restInv[f].Mul(cellD).MulT(restInv[f])
			} else {
				arm = X.Sub(restT[f])
				D = cellD
			}
			lm[f] += rhoV * om
			ls[f] = ls[f].Add(arm.Scale(rhoV * om))
			lQ[f] = lQ[f].Add(arm.Outer(arm).Add(D).Scale(rhoV * om))
			m.mass[f] += rhoV * w
			m.moment[f] = m.moment[f].Add(arm.Scale(rhoV * w))
		}
	}
	m.momentN = nil
	if m.affine {
		m.momentN = make([][]float64, m.nf)
		for f := range m.momentN {
			m.momentN[f] = append([]float64(nil), m.moment[f][:]...)
		}
	}
	m.restM = make([][]float64, m.nf)
	m.restMinv = make([][]float64, m.nf)
	for f := 0; f < m.nf; f++ {
		if !(lm[f] > 0) {
			return fmt.Errorf("frame %d has no weight on any voxel: it carries no mass (move it into the material, or raise nbRef)", f)
		}
		B := make([]float64, m.bs*m.bs)
		set := func(i, j int, x float64) { B[i*m.bs+j] = x }
		for a := 0; a < 3; a++ {
			set(a, a, lm[f])
		}
		if m.affine {
			for a := 0; a < 3; a++ {
				for b := 0; b < 3; b++ {
					set(a, 3+3*a+b, ls[f][b])
					set(3+3*a+b, a, ls[f][b])
					for d := 0; d < 3; d++ {
						set(3+3*a+b, 3+3*a+d, lQ[f][3*b+d])
					}
				}
			}
		} else {
			S := ls[f].Skew()
			tr := lQ[f].Trace()
			for a := 0; a < 3; a++ {
				for b := 0; b < 3; b++ {
					set(a, 3+b, -S[3*a+b])
					set(3+a, b, S[3*a+b])
					r := -lQ[f][3*a+b]
					if a == b {
						r += tr
					}
					set(3+a, 3+b, r)
				}
			}
		}
		inv, err := invertSPD(B, m.bs)
		if err != nil {
			return fmt.Errorf("frame %d: mass block: %w", f, err)
		}
		m.restM[f], m.restMinv[f] = B, inv
	}
	m.rot = make([]geom.Mat3, m.nf)
	m.linearise(st.Vec(graph.Position))
	m.dqs, m.dqsEnergy = nil, nil
	if skin == "dualQuaternion" {
		grav := m.gravity()
		m.voxForce = make([]float64, 3*g.NumVoxels())
		for v := 0; v < g.NumVoxels(); v++ {
			geom.Put(m.voxForce, v, grav.Scale(g.Density[v]*dv))
		}
		m.scratch = make([]float64, 3*g.NumVoxels())
		for _, dst := range []**mapping.DualQuaternionSkinningMapping{&m.dqs, &m.dqsEnergy} {
			child := graph.NewMechanicalObject("voxels", graph.Vec3, g.NumVoxels())
			mp := mapping.NewDualQuaternionSkinningMapping()
			mp.SetStates(st, child)
			mp.SetRestPoints(centres)
			mp.SetWeights(sw)
			if err := mp.Init(); err != nil {
				return fmt.Errorf("dual-quaternion gravity mapping: %w", err)
			}
			*dst = mp
		}
	}
	m.ready = true
	return nil
}

// gaussLegendre3 are the nodes and weights of 3-point Gauss–Legendre
// quadrature on [−1, 1] (exact for degree ≤ 5).
var gaussLegendre3 = [3][2]float64{{-0.7745966692414834, 5.0 / 9}, {0, 8.0 / 9}, {0.7745966692414834, 5.0 / 9}}

// quadBasis writes the quadratic frame basis b(ℓ) = [ℓ, ℓ₀², ℓ₁², ℓ₂²,
// ℓ₀ℓ₁, ℓ₁ℓ₂, ℓ₂ℓ₀] (graph.Quadratic3's layout).
func quadBasis(b *[9]float64, l geom.Vec3) {
	*b = [9]float64{l[0], l[1], l[2], l[0] * l[0], l[1] * l[1], l[2] * l[2], l[0] * l[1], l[1] * l[2], l[2] * l[0]}
}

// computeQuadratic integrates the 30×30 blocks and gravity moments of
// quadratic frames. A frame's Jacobian is dx = dt + dA b(X̂), so the block
// is [[m I, I ⊗ sᵀ], [I ⊗ s, I ⊗ Q]] with m = ∫ρω, s = ∫ρω b, Q = ∫ρω b bᵀ
// (ω = w or w², the lumping), and gravity gets ĉ = ∫ρ w b. Each voxel
// counts with its centre's weight and the exact integral of its box (b bᵀ
// is of degree 4: 3×3×3 Gauss–Legendre points per voxel are exact).
func (m *FrameMass) computeQuadratic(g *Voxels, sw mapping.SkinningWeights, st graph.State) error {
	rest := st.Vec(graph.RestPosition)
	restInv := make([]geom.Mat3, m.nf)
	restT := make([]geom.Vec3, m.nf)
	for f := 0; f < m.nf; f++ {
		c := rest[30*f : 30*f+30]
		restT[f] = geom.Vec3{c[0], c[1], c[2]}
		A := geom.Mat3{c[3], c[4], c[5], c[12], c[13], c[14], c[21], c[22], c[23]}
		inv, ok := A.Inverse()
		if !ok {
			return fmt.Errorf("frame %d: the rest linear part is singular", f)
		}
		restInv[f] = inv
	}
	const nb = 9
	lm := make([]float64, m.nf)
	ls := make([][nb]float64, m.nf)
	lQ := make([][nb * nb]float64, m.nf)
	m.mass = make([]float64, m.nf)
	m.moment = make([]geom.Vec3, m.nf)
	m.momentN = make([][]float64, m.nf)
	for f := range m.momentN {
		m.momentN[f] = make([]float64, nb)
	}
	dv := g.VoxelVolume()
	h := g.Spacing.Scale(0.5)
	m.total = 0
	var b [nb]float64
	for v := 0; v < g.NumVoxels(); v++ {
		X := g.Centre(v)
		rhoV := g.Density[v] * dv
		m.total += rhoV
		frames, weights, _ := sw.Influences(v)
		for e, f := range frames {
			w := weights[e]
			om := w
			if m.Lumping == "blockDiagonal" {
				om = w * w
			}
			// Box averages of b and b bᵀ.
			var mb [nb]float64
			var mbb [nb * nb]float64
			for _, gx := range gaussLegendre3 {
				for _, gy := range gaussLegendre3 {
					for _, gz := range gaussLegendre3 {
						p := geom.Vec3{X[0] + gx[0]*h[0], X[1] + gy[0]*h[1], X[2] + gz[0]*h[2]}
						q := gx[1] * gy[1] * gz[1] / 8
						quadBasis(&b, restInv[f].MulVec(p.Sub(restT[f])))
						for i := 0; i < nb; i++ {
							mb[i] += q * b[i]
							for j := 0; j < nb; j++ {
								mbb[nb*i+j] += q * b[i] * b[j]
							}
						}
					}
				}
			}
			lm[f] += rhoV * om
			for i := 0; i < nb; i++ {
				ls[f][i] += rhoV * om * mb[i]
				m.momentN[f][i] += rhoV * w * mb[i]
			}
			for i := range mbb {
				lQ[f][i] += rhoV * om * mbb[i]
			}
			m.mass[f] += rhoV * w
		}
	}
	m.restM = make([][]float64, m.nf)
	m.restMinv = make([][]float64, m.nf)
	for f := 0; f < m.nf; f++ {
		if !(lm[f] > 0) {
			return fmt.Errorf("frame %d has no weight on any voxel: it carries no mass (move it into the material, or raise nbRef)", f)
		}
		copy(m.moment[f][:], m.momentN[f][:3])
		B := make([]float64, m.bs*m.bs)
		set := func(i, j int, x float64) { B[i*m.bs+j] = x }
		for a := 0; a < 3; a++ {
			set(a, a, lm[f])
			for i := 0; i < nb; i++ {
				set(a, 3+nb*a+i, ls[f][i])
				set(3+nb*a+i, a, ls[f][i])
				for j := 0; j < nb; j++ {
					set(3+nb*a+i, 3+nb*a+j, lQ[f][nb*i+j])
				}
			}
		}
		inv, err := invertSPD(B, m.bs)
		if err != nil {
			return fmt.Errorf("frame %d: mass block: %w", f, err)
		}
		m.restM[f], m.restMinv[f] = B, inv
	}
	return nil
}

func (m *FrameMass) provider() (mapping.WeightProvider, error) {
	if m.ShapeFunction.IsSet() {
		wp, ok := m.ShapeFunction.Object.(mapping.WeightProvider)
		if !ok {
			return nil, fmt.Errorf("shapeFunction %q is not a shape function", m.ShapeFunction.Path)
		}
		return wp, nil
	}
	for n := m.Node; n != nil; n = n.Parent {
		for _, o := range n.Objects {
			if wp, ok := o.(mapping.WeightProvider); ok {
				return wp, nil
			}
		}
	}
	return nil, errors.New("no shape function: give shapeFunction or put one in this node or an ancestor")
}

// skinningKind resolves auto from the mappings whose input is the frames'
// state (linearBlend when there is none).
func (m *FrameMass) skinningKind() (string, error) {
	if m.Skinning != "" && m.Skinning != "auto" {
		return m.Skinning, nil
	}
	lbs, dqs := false, false
	root := m.Node
	for root.Parent != nil {
		root = root.Parent
	}
	root.Walk(func(n *graph.Node) error {
		if mp := n.Mapping(); mp != nil && mp.From() == m.state {
			switch mp.(type) {
			case *mapping.DualQuaternionSkinningMapping:
				dqs = true
			case *mapping.LinearBlendSkinningMapping:
				lbs = true
			}
		}
		return nil
	})
	if lbs && dqs {
		return "", errors.New("the frames feed both linear-blend and dual-quaternion skinning mappings: set skinning to the one the material follows")
	}
	if dqs {
		return "dualQuaternion", nil
	}
	return "linearBlend", nil
}

func (m *FrameMass) gravity() geom.Vec3 {
	if m.Node == nil {
		return geom.Vec3{}
	}
	return m.Node.Gravity()
}

// linearise caches the rotation since rest of every rigid frame at x.
func (m *FrameMass) linearise(x []float64) {
	if m.affine {
		return
	}
	for f := 0; f < m.nf && 7*f+7 <= len(x); f++ {
		q := geom.Quat{x[7*f+3], x[7*f+4], x[7*f+5], x[7*f+6]}
		m.rot[f] = q.Mul(m.restQ[f].Conj()).Mat()
	}
}

// check panics with a clear message when the mass is used uninitialised
// or after the state was resized without Reinit (a programming error).
func (m *FrameMass) check(n int) {
	if !m.ready {
		panic("FrameMass used before Init")
	}
	if n != m.nf {
		panic(fmt.Sprintf("FrameMass: the frames' state has %d frames but the mass %d; call Reinit after inserting frames", n, m.nf))
	}
}

// AddForce implements graph.ForceField: the mapped weight of the material.
func (m *FrameMass) AddForce(f, x, v []float64) {
	ds := m.bs
	m.check(len(f) / ds)
	m.linearise(x)
	if m.dqs != nil {
		m.dqs.Apply(m.scratch, x)
		m.dqs.ApplyJT(f, m.voxForce)
		return
	}
	g := m.gravity()
	for k := 0; k < m.nf; k++ {
		d := f[ds*k : ds*k+ds]
		fg := g.Scale(m.mass[k])
		d[0] += fg[0]
		d[1] += fg[1]
		d[2] += fg[2]
		if m.affine {
			c := m.momentN[k]
			nb := m.nb
			for a := 0; a < 3; a++ {
				for b, cb := range c {
					d[3+nb*a+b] += g[a] * cb
				}
			}
		} else {
			t := m.rot[k].MulVec(m.moment[k]).Cross(g)
			d[3] += t[0]
			d[4] += t[1]
			d[5] += t[2]
		}
	}
}

// AddDForce implements graph.ForceField: the change of the gravity torque
// when rigid frames turn (the arms rotate); zero for affine frames.
func (m *FrameMass) AddDForce(df, dx []float64, kFactor, bFactor float64) {
	if kFactor == 0 || m.affine {
		return
	}
	m.check(len(df) / m.bs)
	if m.dqs != nil {
		m.dqs.ApplyDJT(df, dx, m.voxForce, kFactor)
		return
	}
	g := m.gravity()
	for k := 0; k < m.nf; k++ {
		r := m.rot[k].MulVec(m.moment[k])
		d := dx[6*k : 6*k+6]
		th := geom.Vec3{d[3], d[4], d[5]}
		// (δθ × r) × g = r (δθ·g) − δθ (r·g)
		t := r.Scale(th.Dot(g)).Sub(th.Scale(r.Dot(g))).Scale(kFactor)
		o := df[6*k : 6*k+6]
		o[3] += t[0]
		o[4] += t[1]
		o[5] += t[2]
	}
}

// PotentialEnergy implements graph.ForceField: −Σ ρ V g·x over the voxels.
func (m *FrameMass) PotentialEnergy(x []float64) float64 {
	if !m.ready {
		return 0
	}
	g := m.gravity()
	if m.dqsEnergy != nil {
		m.dqsEnergy.Apply(m.scratch, x)
		e := 0.0
		for i := 0; i < len(m.scratch); i += 3 {
			e -= m.voxForce[i]*m.scratch[i] + m.voxForce[i+1]*m.scratch[i+1] + m.voxForce[i+2]*m.scratch[i+2]
		}
		return e
	}
	cs := 7
	if m.affine {
		cs = m.bs
	}
	e := 0.0
	for k := 0; k < m.nf && cs*k+cs <= len(x); k++ {
		c := x[cs*k : cs*k+cs]
		t := geom.Vec3{c[0], c[1], c[2]}
		var arm geom.Vec3
		if m.affine {
			nb := m.nb
			for r := 0; r < 3; r++ {
				for j, cj := range m.momentN[k] {
					arm[r] += c[3+nb*r+j] * cj
				}
			}
		} else {
			q := geom.Quat{c[3], c[4], c[5], c[6]}
			arm = q.Mul(m.restQ[k].Conj()).Mat().MulVec(m.moment[k])
		}
		e -= g.Dot(t.Scale(m.mass[k]).Add(arm))
	}
	return e
}

// block returns the current mass block of frame k into out (bs×bs): the
// rest block rotated by diag(R, R) for rigid frames.
func (m *FrameMass) mulBlock(k int, inv bool, out, in []float64, factor float64) {
	B := m.restM[k]
	if inv {
		B = m.restMinv[k]
	}
	bs := m.bs
	if m.affine {
		for i := 0; i < bs; i++ {
			s := 0.0
			row := B[i*bs : i*bs+bs]
			for j, x := range in[:bs] {
				s += row[j] * x
			}
			out[i] += factor * s
		}
		return
	}
	// y = ℛ M̄ ℛᵀ x with ℛ = diag(R, R).
	R := m.rot[k]
	a := R.TMulVec(geom.Vec3{in[0], in[1], in[2]})
	b := R.TMulVec(geom.Vec3{in[3], in[4], in[5]})
	loc := [6]float64{a[0], a[1], a[2], b[0], b[1], b[2]}
	var y [6]float64
	for i := 0; i < 6; i++ {
		s := 0.0
		for j := 0; j < 6; j++ {
			s += B[6*i+j] * loc[j]
		}
		y[i] = s
	}
	u := R.MulVec(geom.Vec3{y[0], y[1], y[2]})
	w := R.MulVec(geom.Vec3{y[3], y[4], y[5]})
	out[0] += factor * u[0]
	out[1] += factor * u[1]
	out[2] += factor * u[2]
	out[3] += factor * w[0]
	out[4] += factor * w[1]
	out[5] += factor * w[2]
}

// AddMDx implements graph.Mass: df += factor·M·dx.
func (m *FrameMass) AddMDx(df, dx []float64, factor float64) {
	m.check(len(df) / m.bs)
	bs := m.bs
	for k := 0; k < m.nf; k++ {
		m.mulBlock(k, false, df[bs*k:bs*k+bs], dx[bs*k:bs*k+bs], factor)
	}
}

// AddMToMatrix implements graph.MassAssembler: per frame the bs×bs block
// mFactor·M̄ (linear frames) or mFactor·ℛ M̄ ℛᵀ with ℛ = diag(R, R)
// (rigid frames, at the orientation of the last AddForce), as AddMDx.
func (m *FrameMass) AddMToMatrix(acc graph.MatrixAccumulator, mFactor float64) {
	m.check(m.state.Size())
	bs := m.bs
	for k := 0; k < m.nf; k++ {
		B := m.restM[k]
		o := bs * k
		if m.affine {
			for i := 0; i < bs; i++ {
				for j := 0; j < bs; j++ {
					acc.Add(o+i, o+j, mFactor*B[i*bs+j])
				}
			}
			continue
		}
		// (ℛ M̄ ℛᵀ)_{ij} over the 3×3 sub-blocks (p, q) of M̄:
		// R M̄_pq Rᵀ.
		R := m.rot[k]
		for p := 0; p < 2; p++ {
			for q := 0; q < 2; q++ {
				var sub geom.Mat3
				for a := 0; a < 3; a++ {
					for b := 0; b < 3; b++ {
						sub[3*a+b] = B[6*(3*p+a)+3*q+b]
					}
				}
				C := R.Mul(sub).MulT(R)
				for a := 0; a < 3; a++ {
					for b := 0; b < 3; b++ {
						acc.Add(o+3*p+a, o+3*q+b, mFactor*C[3*a+b])
					}
				}
			}
		}
	}
}

var _ graph.MassAssembler = (*FrameMass)(nil)

// AccFromF implements graph.InverseMass: a = M⁻¹ f, block by block.
func (m *FrameMass) AccFromF(a, f []float64) {
	m.check(len(f) / m.bs)
	bs := m.bs
	clear(a)
	for k := 0; k < m.nf; k++ {
		m.mulBlock(k, true, a[bs*k:bs*k+bs], f[bs*k:bs*k+bs], 1)
	}
}

// KineticEnergy implements graph.Mass: ½ Σ v_kᵀ M_k v_k, with the rigid
// blocks at the state's current orientation.
func (m *FrameMass) KineticEnergy(v []float64) float64 {
	if !m.ready {
		return 0
	}
	if !m.affine && m.state != nil {
		m.linearise(m.state.Vec(graph.Position))
	}
	bs := m.bs
	buf := make([]float64, bs)
	e := 0.0
	for k := 0; k < m.nf && bs*k+bs <= len(v); k++ {
		clear(buf)
		vk := v[bs*k : bs*k+bs]
		m.mulBlock(k, false, buf, vk, 1)
		for i := range buf {
			e += 0.5 * vk[i] * buf[i]
		}
	}
	return e
}

// invertSPD returns the inverse of the symmetric positive definite n×n
// matrix A (row-major) by Cholesky factorisation, or an error when A is
// not positive definite.
func invertSPD(A []float64, n int) ([]float64, error) {
	L := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			s := A[i*n+j]
			for k := 0; k < j; k++ {
				s -= L[i*n+k] * L[j*n+k]
			}
			if i == j {
				if !(s > 0) {
					return nil, fmt.Errorf("not positive definite (pivot %d = %g)", i, s)
				}
				L[i*n+i] = math.Sqrt(s)
			} else {
				L[i*n+j] = s / L[j*n+j]
			}
		}
	}
	inv := make([]float64, n*n)
	col := make([]float64, n)
	for c := 0; c < n; c++ {
		clear(col)
		col[c] = 1
		for i := 0; i < n; i++ { // L y = e_c
			s := col[i]
			for k := 0; k < i; k++ {
				s -= L[i*n+k] * col[k]
			}
			col[i] = s / L[i*n+i]
		}
		for i := n - 1; i >= 0; i-- { // Lᵀ x = y
			s := col[i]
			for k := i + 1; k < n; k++ {
				s -= L[k*n+i] * col[k]
			}
			col[i] = s / L[i*n+i]
		}
		for i := 0; i < n; i++ {
			inv[i*n+c] = col[i]
		}
	}
	return inv, nil
}
