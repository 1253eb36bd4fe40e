// Package visual holds what a headless run shows and writes:
//
//   - VisualModel, a surface (an STL/OBJ file, or a topology's boundary) on
//     a Vec3 state that a mapping moves with the simulated object, with
//     vertex normals recomputed for every output frame; Surface is what
//     pictures and surface exporters draw, and other components may
//     implement it;
//   - Camera, the view of the pictures (drawn by package render);
//   - exporters, each with a period and atomic file writes: VTKExporter
//     (VTU per frame and a PVD index per state: tetrahedra with
//     displacement, velocity and the cell data of CellDataProvider force
//     fields; surfaces; rigid and affine frames as oriented points),
//     OBJExporter and STLExporter (surface sequences), EnergyLogger
//     (energies and linear-solver statistics per step, CSV or JSON);
//   - the VTU/PVD series, over meshio's VTU writer and parser (Grid is
//     meshio.VTUGrid), and the atomic file writer they share.
package visual
