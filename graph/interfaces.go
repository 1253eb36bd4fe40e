package graph

import (
	"errors"

	"github.com/sofago/sofago/geom"
)

// VecID names one vector of every mechanical state. The standard ids exist in
// every state; solvers allocate temporaries with Ops.AllocDeriv and
// Ops.AllocCoord. Each id is either a coordinate vector (CoordSize numbers
// per DOF) or a derivative vector (DerivSize numbers per DOF).
type VecID int

// Standard vectors held by every state.
const (
	Position     VecID = iota // coordinates, current
	RestPosition              // coordinates, reference configuration
	Velocity                  // derivative
	Force                     // derivative: accumulated force
	Dx                        // derivative: a position change, propagated by ComputeDf
	DForce                    // derivative: accumulated df
	firstTempVec
)

// IsStandardCoord reports whether id is one of the standard coordinate vectors.
func (id VecID) IsStandardCoord() bool { return id == Position || id == RestPosition }

// Object is anything a scene node holds. Components embed ObjectBase, which
// implements it.
type Object interface {
	Base() *ObjectBase
}

// Initializer is implemented by objects that need set-up after the scene is
// loaded and links are resolved. Init runs in phases by kind (topology,
// state, mapping, mass, force field, constraint, ..., solver), top-down
// within a phase, so declaration order inside a node never matters.
type Initializer interface {
	Init() error
}

// Validator is implemented by objects with checks across fields; it runs at
// load time, right after the fields are decoded, and its error is reported
// with the object's file and line.
type Validator interface {
	Validate() error
}

// State is a mechanical state: DOF vectors of one template.
type State interface {
	Object
	Template() Template
	// Size is the number of DOFs.
	Size() int
	// Resize changes the number of DOFs, keeping the leading values of
	// every vector (new entries are zero; new coordinates of Rigid3 are the
	// identity orientation).
	Resize(n int)
	// Vec returns the vector id, or nil when it is not allocated.
	Vec(id VecID) []float64
	// Alloc allocates (zeroed) the temporary vector id.
	Alloc(id VecID, coord bool)
	// Free releases the temporary vector id.
	Free(id VecID)
}

// Mapping maps the state of the parent node (From) to the state of its own
// node (To): positions and velocities down, forces up.
//
// J, Jᵀ and dJᵀ are those at the parent coordinates of the most recent
// Apply call; the framework calls Apply on Position whenever positions
// change, before any of the others.
type Mapping interface {
	Object
	From() State
	To() State
	// Apply sets the child coordinates from the parent coordinates.
	Apply(childX, parentX []float64)
	// ApplyJ sets childV = J parentV.
	ApplyJ(childV, parentV []float64)
	// ApplyJT accumulates parentF += Jᵀ childF.
	ApplyJT(parentF, childF []float64)
	// ApplyDJT accumulates parentDf += kFactor · (∂(Jᵀ childF)/∂parentX) parentDx,
	// the geometric stiffness of the mapping under the child force childF.
	ApplyDJT(parentDf, parentDx, childF []float64, kFactor float64)
	// IsMechanical is false for visual mappings, which only run Apply once at
	// the end of a step and never carry forces.
	IsMechanical() bool
}

// ForceField applies forces to the state of its node.
//
// AddDForce linearises at the x of the most recent AddForce call (force
// fields may cache rotations or stresses there, as SOFA's do).
type ForceField interface {
	Object
	// AddForce accumulates f += f(x, v).
	AddForce(f, x, v []float64)
	// AddDForce accumulates df += kFactor·K·dx + bFactor·B·dx with
	// K = ∂f/∂x and B = ∂f/∂v.
	AddDForce(df, dx []float64, kFactor, bFactor float64)
	// PotentialEnergy returns W(x), with f = −∂W/∂x.
	PotentialEnergy(x []float64) float64
}

// InteractionForceField applies forces between several states (e.g. two
// rigid bodies joined by a spring, two objects in contact). It may sit in
// any node; its states must all belong to the same solver.
type InteractionForceField interface {
	Object
	States() []State
	AddForce(f, x, v [][]float64)
	AddDForce(df, dx [][]float64, kFactor, bFactor float64)
	PotentialEnergy(x [][]float64) float64
}

// Mass is the mass of the state of its node. As a force field it applies
// gravity (f = M g, W = −Σ m g·x); AddDForce of gravity is zero.
type Mass interface {
	ForceField
	// AddMDx accumulates df += factor·M·dx.
	AddMDx(df, dx []float64, factor float64)
	// KineticEnergy returns ½ vᵀ M v.
	KineticEnergy(v []float64) float64
}

// InverseMass is implemented by masses that can apply M⁻¹ cheaply (diagonal
// or block-diagonal); explicit solvers need it.
type InverseMass interface {
	// AccFromF sets a = M⁻¹ f.
	AccFromF(a, f []float64)
}

// ProjectiveConstraint restricts the DOFs of the state of its node by
// projection (SOFA's projective constraints).
type ProjectiveConstraint interface {
	Object
	// ProjectResponse zeroes the constrained components of a derivative
	// vector (a velocity change, a force, a search direction).
	ProjectResponse(dx []float64)
	// ProjectPosition sets the constrained coordinates at time t.
	ProjectPosition(x []float64, t float64)
	// ProjectVelocity sets the constrained velocities at time t.
	ProjectVelocity(v []float64, t float64)
}

// InteractionConstraint is a projective constraint between DOFs of several
// independent states under one solver (AttachConstraint: points of two
// objects moving together). Its ProjectResponse must be an orthogonal
// projector on the vectors of its states taken together (symmetric and
// idempotent), so that conjugate gradients on the projected system stay
// valid. Ops applies it after the per-state projective constraints of its
// states, with which it must commute (acting only on DOFs they leave
// free, or treat alike).
type InteractionConstraint interface {
	Object
	States() []State
	// ProjectResponse projects derivative vectors, one per state.
	ProjectResponse(dx [][]float64)
	// ProjectPosition puts the constrained coordinates back on the
	// constraint at time t (Ops.Integrate also calls it after every move
	// of the positions, with the scene's current time).
	ProjectPosition(x [][]float64, t float64)
	// ProjectVelocity projects the velocities at time t.
	ProjectVelocity(v [][]float64, t float64)
}

// ODESolver advances the subtree below its node by dt using only the
// mechanical operations of Ops.
type ODESolver interface {
	Object
	Solve(ops *Ops, dt float64) error
}

// LinearSolver solves the system an ODE solver poses:
// (m·M + b·B + k·K) x = rhs over the independent states of ops, with the
// projective constraints applied to the result.
type LinearSolver interface {
	Object
	Solve(ops *Ops, x, rhs VecID, m, b, k float64) (LinearStats, error)
}

// ShiftedLinearSolver is implemented by linear solvers that can solve the
// system with a diagonal shift, (A + σ·D) x = rhs, where
// A = m·M + b·B + k·K and D is the absolute diagonal of A (1 where it is
// zero), so σ is relative to the diagonal whatever the units of each DOF.
// For σ large enough A + σ·D is positive definite even where A is not; a
// StaticSolver uses it to keep going when the tangent of a Newton iterate
// is indefinite (Nocedal & Wright, "Numerical Optimization", 2nd ed.,
// 3.4: modified Newton with an added multiple of the identity, here
// scaled by the diagonal).
type ShiftedLinearSolver interface {
	LinearSolver
	SolveShifted(ops *Ops, x, rhs VecID, m, b, k, sigma float64) (LinearStats, error)
}

// FactorReuser is implemented by direct linear solvers that keep the
// factorisation of their most recent Solve: SolveAgain solves with that
// matrix again (as it was assembled then, whatever the configuration now),
// for the price of the triangular solves. Newton's method uses it for
// chord steps (a correction with the previous tangent) where the tangent
// changes little between iterates.
type FactorReuser interface {
	SolveAgain(ops *Ops, x, rhs VecID) (LinearStats, error)
}

// ErrNotPositiveDefinite is wrapped by the errors of linear solvers that
// find the system matrix not positive definite (a Cholesky factorisation
// met a non-positive pivot), so that ODE solvers can recover.
var ErrNotPositiveDefinite = errors.New("the system matrix is not positive definite")

// LinearStats reports how a linear solve went.
type LinearStats struct {
	Iterations int
	Residual   float64 // final residual norm, relative to |rhs|
	Converged  bool
}

// NewtonStats reports the Newton iterations of one step of a nonlinear ODE
// solver (StaticSolver, NewmarkImplicitSolver).
type NewtonStats struct {
	Iterations int // Newton iterations taken (one linear solve each)
	// Residual is the residual at the step's last convergence test,
	// relative to the solver's reference residual (the solver's doc says
	// which); meaningful only when Tested.
	Residual float64
	// Tested: a convergence test ran. A solver asked for a single
	// linearised solve per step (NewmarkImplicitSolver maxIterations = 1)
	// has no tolerance to meet and reports Tested = false.
	Tested    bool
	Converged bool // the test passed
}

// Topology is a mesh: rest points and cells. Tetrahedra are positively
// oriented (det[p1−p0, p2−p0, p3−p0] > 0); Triangles are the boundary (or
// the surface of a surface mesh), oriented outwards.
type Topology interface {
	Object
	Points() []float64
	Tetrahedra() [][4]int
	Triangles() [][3]int
}

// HexahedronTopology is a topology that also serves hexahedra: trilinear
// 8-node bricks. Corners follow VTK's and Gmsh's order: 0–3 the bottom face
// and 4–7 the top face, each counter-clockwise seen from the top (corner
// 4+i above corner i); on a unit cube 0..7 are (0,0,0), (1,0,0), (1,1,0),
// (0,1,0), (0,0,1), (1,0,1), (1,1,1), (0,1,1). Hexahedra are positively
// oriented: the trilinear map from that reference cube has a positive
// Jacobian. A topology serving hexahedra need not serve tetrahedra
// (RegularGridTopology with elements = "hexahedra" serves none, so a
// tetrahedral force field cannot silently run on another discretisation);
// its Triangles are then the boundary quadrilaterals split in two,
// oriented outwards.
type HexahedronTopology interface {
	Topology
	Hexahedra() [][8]int
}

// Polyhedron is a convex polyhedral cell: its faces, each a list of
// vertex indices in counter-clockwise order seen from outside (so the
// right-hand normal points out), every vertex of a face on one plane.
type Polyhedron struct {
	Faces [][]int
}

// PolyhedronTopology is a topology that serves convex polyhedra (every
// cell given by its faces). As for hexahedra, it need not serve
// tetrahedra; its Triangles are the boundary faces, fan-triangulated.
type PolyhedronTopology interface {
	Topology
	Polyhedra() []Polyhedron
}

// HexahedraOf returns the hexahedra of t, or nil when t serves none.
func HexahedraOf(t Topology) [][8]int {
	if h, ok := t.(HexahedronTopology); ok {
		return h.Hexahedra()
	}
	return nil
}

// PolyhedraOf returns the polyhedra of t, or nil when t serves none.
func PolyhedraOf(t Topology) []Polyhedron {
	if p, ok := t.(PolyhedronTopology); ok {
		return p.Polyhedra()
	}
	return nil
}

// Behavior runs at the beginning of every step, before the solvers
// (scripted loads, prescribed motion, run-time topology changes).
type Behavior interface {
	Object
	BeginStep(t, dt float64) error
}

// CollisionPipeline detects contacts at the beginning of every step, after
// the behaviours and before the solvers, and updates the contact force
// fields it drives.
type CollisionPipeline interface {
	Object
	DetectContacts(t float64) error
}

// VisualModel is updated once at the end of every step, after the visual
// mappings (normals, bounds).
type VisualModel interface {
	Object
	UpdateVisual() error
}

// Exporter writes output at the end of every step it chooses.
type Exporter interface {
	Object
	Export(t float64, step int) error
	Close() error
}

// Context is what a node inherits from its ancestors.
type Context struct {
	Dt      float64
	Time    float64
	Gravity geom.Vec3 // as set in the scene (not scaled by LoadFactor; Node.Gravity is)
	// LoadFactor scales the external loads (Node.LoadFactor): 1 except
	// while a solver applies its loads in increments.
	LoadFactor float64
}

// MatrixAccumulator receives matrix entries by scalar DOF index (row-major
// over the state's derivative layout: DOF i, component c is i·DerivSize + c).
// Sparse and dense matrix builders implement it; entries at the same
// position add up.
type MatrixAccumulator interface {
	Add(row, col int, v float64)
}

// StiffnessAssembler is implemented by force fields that can write their
// tangent K = ∂f/∂x (at the configuration of the last AddForce) into a
// matrix, for direct solvers and modal analysis: m += kFactor·K.
type StiffnessAssembler interface {
	AddKToMatrix(m MatrixAccumulator, kFactor float64)
}

// MassAssembler is implemented by masses that can write M into a matrix:
// m += mFactor·M.
type MassAssembler interface {
	AddMToMatrix(m MatrixAccumulator, mFactor float64)
}

// DampingAssembler is implemented by force fields that can write their
// damping matrix B = ∂f/∂v (at the linearisation of the last AddForce)
// into a matrix: m += bFactor·B, in the state's derivative layout, the
// same entries whatever bFactor (zeros included), so that assembled
// solvers need no AddDForce probes for it.
type DampingAssembler interface {
	AddBToMatrix(m MatrixAccumulator, bFactor float64)
}

// InteractionMatrixAssembler is implemented by interaction force fields
// that can write kFactor·K + bFactor·B (K = ∂f/∂x, B = ∂f/∂v at the
// linearisation of the last AddForce) over the derivative entries of
// their States() concatenated (state k after the sizes of the states
// before it; a state listed twice is one block of entries). The entries
// written depend on the structure only (zeros included), as for
// StiffnessAssembler.
type InteractionMatrixAssembler interface {
	AddKBToMatrix(m MatrixAccumulator, kFactor, bFactor float64)
}

// StiffnessBlockAssembler is implemented by force fields on Vec3 states
// whose tangent K = ∂f/∂x is a sum of 3×3 blocks at fixed (row point,
// column point) positions, such as the 4×4 blocks of each tetrahedron:
// a solver finds once where each block goes in its block matrix (for as
// long as the list is unchanged) and then assembles by plain additions,
// where MatrixAccumulator needs a search per scalar entry.
type StiffnessBlockAssembler interface {
	// StiffnessBlocks returns the block positions as point pairs (row,
	// column), two numbers per block, in the order KBlocks writes them;
	// nil when the component cannot write blocks (then it must be
	// assembled through StiffnessAssembler). The slice is the
	// component's: callers do not modify it; it stays the same while the
	// topology does.
	StiffnessBlocks() []int32
	// KBlocks overwrites vals (9 numbers per block, row-major, in the
	// order of StiffnessBlocks) with the blocks of kFactor·K at the
	// configuration of the last AddForce, as StiffnessAssembler does.
	KBlocks(vals []float64, kFactor float64)
}

// StiffnessBlockAdder is an optional addition to StiffnessBlockAssembler
// for small meshes: the blocks go straight into the solver's matrix
// instead of through a buffer of element blocks summed afterwards (for
// 480 tetrahedra that buffer is 550 KB, more than a core's L2 cache).
type StiffnessBlockAdder interface {
	// AddKBlocks adds block q of kFactor·K (in the order of
	// StiffnessBlocks) to dst[9·pos[q] : 9·pos[q]+9], on the calling
	// goroutine, q in increasing order, so each matrix block receives its
	// blocks in the order KBlocks would have written them (the same sums,
	// bitwise, as KBlocks followed by a sum in list order). It returns
	// false, adding nothing, when the component would rather compute its
	// blocks in parallel (KBlocks), a mesh large enough to be worth it.
	AddKBlocks(dst []float64, pos []int32, kFactor float64) bool
}

// MassBlockAssembler is StiffnessBlockAssembler's counterpart for masses:
// M as 3×3 blocks at fixed point pairs.
type MassBlockAssembler interface {
	// MassBlocks returns the block positions (row, column), two numbers
	// per block, or nil when the mass cannot write blocks (a state that
	// is not Vec3).
	MassBlocks() []int32
	// MBlocks overwrites vals with the blocks of mFactor·M, 9 per block
	// in the order of MassBlocks.
	MBlocks(vals []float64, mFactor float64)
}

// PointRotations is implemented by force fields that can give a rotation
// per point of their Vec3 state (the local frames of a corotational
// material), for warping preconditioners: out receives 9 numbers
// (row-major) per point; it reports false when the force field has none
// to give (not initialised).
type PointRotations interface {
	PointRotations(out []float64) bool
}

// InertialSolver is implemented by ODE solvers that integrate M·a = f
// (explicit and implicit Euler, Newmark, shape matching's force term):
// every independent state they integrate needs a mass, on its own node or
// on a node mapped from it, or the scene is refused before it runs
// (Scene.CheckRunnable). Static solvers, which find equilibria, do not
// implement it.
type InertialSolver interface {
	ODESolver
	NeedsMass() bool
}

// StateDriver is implemented by behaviours that move states themselves,
// without an ODE solver (prescribed motion: they set positions in
// BeginStep). Scene.CheckRunnable counts the states they drive as moving.
type StateDriver interface {
	Behavior
	DrivenStates() []State
}

// ConstraintBasis is implemented by interaction constraints whose
// projector P is the orthogonal projection onto motions in which some
// derivative components (the dependent ones) follow others linearly:
// x_d = Σ_j T_dj x_j (AttachConstraint: attached points follow the first
// point of their group, or their rigid frame). Range(P) is then the range
// of the basis T (the identity on the other components), and solving the
// projected system P A P x = P b with x in range(P) — what conjugate
// gradients do matrix free — is solving the reduced system
// Tᵀ A T y = Tᵀ b with x = T y: an assembled solver can factorise it.
type ConstraintBasis interface {
	InteractionConstraint
	// BasisEntries writes T_dj for every dependent component d (row) and
	// the component j it follows (column), both in the derivative layout
	// of States() concatenated (state k starting after the sizes of the
	// states before it), at the current positions. The entries written
	// depend on the constraint's structure only (zeros included); a
	// column is never a dependent component.
	BasisEntries(m MatrixAccumulator)
}

// SparseJacobianMapping is implemented by mappings that can write their
// Jacobian J = ∂childX/∂parentX (at the parent coordinates of the last
// Apply, in the derivative layouts: row i·DerivSize(child) + c, column
// j·DerivSize(parent) + d) as sparse entries, so that solvers assembling
// the system of a subtree form Jᵀ K J without probing J column by column
// with ApplyJ. The entries written depend on the mapping's structure only
// (entries that happen to be zero at this configuration are still
// written), so the pattern stays the same while the structure does.
type SparseJacobianMapping interface {
	Mapping
	JacobianEntries(m MatrixAccumulator)
}

// RowKroneckerJacobian describes the constant Jacobian of a linear
// mapping that acts on the three rows of its DOFs alike: a child DOF is a
// 3×c matrix Y, a parent DOF a 3×q matrix X, and
//
//	Y_p[r][col] = Σ_{e ∈ p} Σ_m X_{Parents[e]}[r][m] · Coef[e·q·c + m·c + col]
//
// for every row r, with p's entries e in [Offsets[p], Offsets[p+1]): the
// block of J at (child DOF p, parent DOF k) is I₃ ⊗ Bₑᵀ, Bₑ the q×c
// matrix of entry e (m-major). Linear blend skinning of affine and
// quadratic frames and GMLS nodes (X = [t | A], one column per basis
// function) have this form. ChildIndex[r·c + col] is the storage index of
// Y[r][col] in the child's derivative layout (3c numbers), ParentIndex[r·q
// + m] that of X[r][m] in the parent's (3q numbers).
type RowKroneckerJacobian struct {
	ChildCols, ParentCols int
	ChildIndex            []int
	ParentIndex           []int
	Offsets               []int
	Parents               []int
	Coef                  []float64
}

// RowKroneckerMapping is implemented by linear mappings whose Jacobian is
// a RowKroneckerJacobian: a solver assembling the system of a subtree then
// forms Jᵀ K J of a block-diagonal K (one block per child DOF) by dense
// products per (child DOF, parent DOF pair) straight into 3×3 blocks,
// instead of through scalar entries. RowKroneckerJacobian returns nil when
// the mapping is not of this form (rigid frames); the result is constant
// and the same pointer until the mapping is re-initialised (solvers key
// their pattern on it). Read only.
type RowKroneckerMapping interface {
	Mapping
	RowKroneckerJacobian() *RowKroneckerJacobian
}

// BlockDiagonalStiffness is implemented by force fields whose K = ∂f/∂x
// and B = ∂f/∂v couple only the components of each DOF with one another
// (one DerivSize × DerivSize block per DOF: penalty contacts against
// static obstacles, per-sample material laws): a solver that has no
// matrix from them finds their blocks with DerivSize AddDForce products
// (every DOF's component c at once) instead of one per column.
type BlockDiagonalStiffness interface {
	BlockDiagonalStiffness() bool
}

// FrameTopology is implemented by topologies that also give a rigid frame
// per point (a rod's centre line: RodTopology): a Rigid3 state in the same
// node takes its rest shape from Frames, 7 numbers [t q] per point, as a
// Vec3 state takes Points.
type FrameTopology interface {
	Topology
	Frames() []float64
}

// PointFrameTopology is implemented by topologies whose points each ride
// on one frame of a Rigid3 state above (a tube around a rod:
// TubeTopology): RigidMapping uses PointFrames as its default
// rigidIndexPerPoint.
type PointFrameTopology interface {
	Topology
	PointFrames() []int
}

// StepEnder is implemented by objects whose internal state evolves once
// per step, after the solvers (plastic strains of the tetrahedral FEM):
// Scene.Step calls EndStep(t, dt) after every solver has finished the
// step and the mapped states are up to date, with t the time at the end
// of the step, before the visuals and exporters. Keeping such updates out
// of AddForce keeps the forces and tangents a solver sees within one step
// those of a fixed potential, so Newton iterations converge and the
// fixtures hold.
type StepEnder interface {
	Object
	EndStep(t, dt float64) error
}

// DumpArray is one array of an object's internal state: Width numbers
// per item (per element, per sample), len(Data)/Width items.
type DumpArray struct {
	Name  string
	Width int
	Data  []float64
}

// DumpDataProvider is implemented by objects with state beyond the DOF
// vectors (the plastic strains of the tetrahedral FEM): the JSON dump
// writes their arrays in its optional "objects" section. DumpData
// returns nil when there is nothing to write (plasticity off), so the
// dumps of scenes without such state are unchanged.
type DumpDataProvider interface {
	DumpData() []DumpArray
}
