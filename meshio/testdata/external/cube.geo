// Unit cube, coarse: the sample mesh of meshio's reader tests.
SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 1, 1, 1};
Mesh.MeshSizeMax = 0.5;
Mesh.MeshSizeMin = 0.5;
