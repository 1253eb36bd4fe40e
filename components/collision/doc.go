// Package collision holds obstacles and contact handling: penalty contact
// force fields and the detection that feeds them.
//
// Obstacles are force fields on any Vec3 state (a FEM mesh's vertices, the
// surface points of a rigid body or of a reduced model mapped onto it):
// PlaneForceField, SphereForceField, BoxForceField and
// MeshObstacleForceField (a closed STL/OBJ surface). Each is static or
// translated along keyframes (ObstacleMotion: keyTimes, translations), its
// dashpot and friction acting on the velocity relative to it. Objects collide with
// each other through collision models on their (mapped or unmapped)
// surfaces — TriangleCollisionModel (a closed triangle surface: its
// vertices penetrate others, its triangles are penetrated) and
// PointCollisionModel (points only) — and one CollisionPipeline that finds
// their contacts every step (bounding-volume hierarchies refitted each
// step, point–triangle proximity, pseudo-normal inside test) and turns
// them into forces.
//
// Every contact follows one law (Penalty): the quadratic penalty
// W = γ/2 ((x − b)·n)² of a penetration δ along the obstacle's outward
// normal n, a normal dashpot that never pulls, and regularised Coulomb
// friction whose normal force and direction are lagged to the start of the
// step. Each force field's AddDForce holds the exact derivative of its
// force (the contact stiffness, and the dashpot's and friction's velocity
// derivatives as the b-term), so implicit solvers stay stable with stiff
// contacts; graphtest's fixtures check it.
//
// Contact forces act on the Vec3 states that collide; mappings carry them
// up to the objects' DOFs through ApplyJT like any other force. Objects of
// one solver are coupled implicitly (an interaction force field the
// pipeline adds to the solver's node); objects of different solvers
// explicitly (normal forces computed at detection and held for the step,
// friction in each object's own solver); see CollisionPipeline.
//
// The components that find contacts implement ContactReporter (contacts
// and largest penetration of the step), for runscene's summary. The
// obstacles give pictures their geometry (obstacle_surface.go):
// ObstaclePlane for PlaneForceField, ObstacleSurface (closed, outward
// triangles on the contact boundary) for the others.
package collision
