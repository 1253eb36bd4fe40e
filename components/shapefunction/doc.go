// Package shapefunction holds the frame-based discretisation of a solid
// (Gilles et al. 2011, Faure et al. 2011; SOFA Flexible's split): the voxel
// grid carrying the material, the shape functions (weights of the frames),
// frame placement and the integration samplers.
package shapefunction
