// Package graph is the core of the framework: the scene graph, the component
// interfaces, the component registry, TOML scene loading, the visitors that
// traverse the tree and the state vectors they act on.
//
// It imports no component. Components import graph, implement one or more of
// the interfaces in interfaces.go and register themselves from init() with
// Register, the way database/sql drivers do. A scene is loaded with LoadFile,
// initialised with Scene.Init and advanced with Scene.Step; before the first
// step Scene.CheckRunnable refuses a scene that would do nothing (no ODE
// solver, an unintegrated state something acts on, a massless state under
// an inertial solver). What a scene changed from its file without an error
// (a quaternion normalised) is in Scene.Notes.
//
// # Data flow
//
// Positions and velocities go down the mappings (parent → child, Apply and
// ApplyJ); forces go up (child → parent, ApplyJT). An ODE solver owns the
// subtree below its node and sees only the independent (unmapped) states
// through Ops, the mechanical operations bound to that subtree.
//
// # Conventions
//
// Vectors are flat []float64 in the state's own layout (Template): Vec3 3
// numbers per DOF; Rigid3 coordinates [tx ty tz qx qy qz qw] and derivatives
// [vx vy vz ωx ωy ωz] with ω in world coordinates. A force field adds the
// force it applies (f = −∂W/∂x), so K = ∂f/∂x is negative semi-definite for a
// stable material.
package graph
