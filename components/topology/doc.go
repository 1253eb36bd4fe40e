// Package topology holds the mesh containers that states, masses and force
// fields read their rest points and cells from (graph.Topology).
//
// It is a package of its own because meshes are shared by every other kind
// of component: a MechanicalObject takes its positions from the topology in
// its node, DiagonalMass and the FEM force fields their tetrahedra.
package topology
