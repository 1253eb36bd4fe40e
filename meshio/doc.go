// Package meshio reads and writes mesh files: Gmsh .msh (ASCII 2.2 and
// 4.1), legacy VTK unstructured grids, VTK XML unstructured grids (.vtu,
// ASCII; VTUGrid keeps their data arrays), TetGen .node/.ele(/.face), Vega
// .veg, and the STL and OBJ surface formats.
//
// It is not a component package: it registers nothing with the scene graph.
// Components (topology.MeshLoader) and commands (cmd/meshgen) use it to turn
// files into a Mesh — flat xyz points, tetrahedra and triangles with 0-based
// vertex indices — and back.
//
// Every reader returns *Error for malformed input, naming the file and the
// line ("bar.msh:17: ..."), and never panics, whatever the bytes. Readers
// return the cells in file order and do not reorient them; see
// Mesh.Orient. Writers write atomically (a temporary file in the target
// folder, renamed over the target), so a failed write never leaves a
// truncated mesh behind.
package meshio
