// Package shapefunction holds the frame-based discretisation of a solid
// (Gilles et al. 2011, Faure et al. 2011; SOFA Flexible's split: shape
// function → sampler → deformation mapping → material): the voxel grid
// carrying the material, the shape functions (weights of the frames),
// frame placement, the integration samplers, the frames' mass, and frames
// inserted at run time. The skinning mappings and the force field on the
// samples live in packages mapping and forcefield.
//
// Components and who reads what:
//
//	MaterialGrid            voxels of the solid (box, closed surface, tetrahedral mesh, voxel file),
//	                        density and Young's modulus per voxel
//	FramePlacer             frames' rest positions (farthest-point + Lloyd in compliance distance)
//	ShepardShapeFunction,   weights and weight gradients of the frames at any rest point
//	HarmonicShapeFunction,  (mapping.WeightProvider), read by the skinning mappings, the
//	VoronoiShapeFunction    samplers and FrameMass
//	DenseSampler,           sample rest positions (mapping.SamplePointProvider), volumes and
//	SparseSampler           moduli (forcefield.SampleVolumeProvider), read by the mapping onto
//	                        the F331 samples and by DeformationGradientForceField
//	FrameMass               lumped 6×6 / 12×12 frame masses and the exact mapped weight
//	FrameInserter           a frame added at run time, with no jump of the material
//	MeshfreeSampler         meshfree models (lecture notes 004, Sampling): GMLS nodes and
//	                        elastons by Lloyd iterations on a dense material point set (voxels
//	                        or a point cloud whose rods and shells carry their thickness),
//	                        elastons' volumes, moments and extents, the nodes' GMLS radii
//	                        (mapping.NodeRadiusProvider, read by GMLSMapping)
//	KernelShapeFunction     MLS-kernel weights of scattered nodes for linear blend skinning
//
// A scene (see scenes/frames_beam.toml):
//
//	[[node]]                          the frames
//	  MaterialGrid, MechanicalObject (Rigid3 or Affine3), a shape function,
//	  FrameMass, constraints, solvers (, FramePlacer, FrameInserter)
//	  [[node.node]]                   the integration samples
//	    a sampler, MechanicalObject (F331),
//	    LinearBlendSkinningMapping or DualQuaternionSkinningMapping,
//	    DeformationGradientForceField
//	  [[node.node]]                   points (visual, contact, loads)
//	    MechanicalObject (Vec3), a skinning mapping
//
// Everything is computed on first use (the mappings ask for weights and
// samples in their Init), so declaration order does not matter; all
// computations are deterministic.
package shapefunction
