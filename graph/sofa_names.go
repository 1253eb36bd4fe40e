package graph

import (
	"fmt"
	"strings"
)

// This file is the registry's one table of SOFA names: component types and
// MechanicalObject templates as a SOFA scene spells them, and what they are
// here. The loader consults it only for names that are not registered (a
// component of that name, even one of your own module, always wins): SOFA's
// template aliases are accepted as written, every other SOFA name turns an
// "unknown component type" error into a pointer to this project's
// equivalent, or an explanation of why nothing is needed or what is not
// implemented yet. Nothing else in the code spells SOFA-only names.

// SOFAStatus says how a SOFA name relates to this project.
type SOFAStatus int

const (
	// SOFAAlias is another spelling of the same thing, accepted as
	// written (templates only: Vec3d is Vec3).
	SOFAAlias SOFAStatus = iota
	// SOFAEquivalent: the registered type (or template) Use does the job;
	// the scene must be edited to say so, as its fields may differ
	// (runscene -doc Use) or, for single-precision templates, its
	// precision does.
	SOFAEquivalent
	// SOFANotNeeded: the job is done without any object; Note says how.
	SOFANotNeeded
	// SOFANotImplemented: nothing does the job yet; Note says what to use
	// meanwhile (Use, if set, is the nearest thing).
	SOFANotImplemented
)

// SOFAName is one row of the table.
type SOFAName struct {
	Name     string // SOFA's spelling
	Template bool   // a MechanicalObject template, not a component type
	Status   SOFAStatus
	Use      string // this project's type or template ("" when none)
	Note     string // what differs, why nothing is needed, or what to do instead
}

const (
	penaltyContacts    = "contacts here are penalty forces computed by CollisionPipeline inside the ODE solve (stiffness, damping, friction), with no Lagrange multipliers"
	meshLoaderNote     = "one MeshLoader reads every mesh format (.msh, .vtk, .node/.ele, .veg, .stl, .obj), chosen by the file's extension"
	topologyNote       = "the MeshLoader, RegularGridTopology or SparseGridTopology of a node is its topology itself: it serves the points, tetrahedra and boundary triangles; no container, modifier or algorithms object"
	stiffSpringNote    = "SOFA's SpringForceField has no stiffness matrix (explicit integration only) and its stiff variant adds one; here every force field has its exact tangent, so SpringForceField is both, with the same fields (object1, object2, indices1, indices2, stiffness, damping, lengths; SOFA's spring string is the springs table)"
	phasesNote         = "broad and narrow phases are inside CollisionPipeline (refitted bounding-volume hierarchies, point–triangle proximity)"
	proximityNote      = "the proximity test is inside CollisionPipeline: its contactDistance is SOFA's alarmDistance"
	responseNote       = "the response is a penalty force: CollisionPipeline's stiffness, damping and friction"
	viewerNote         = "there is no interactive viewer: runscene -picture, -frames and -gif draw the VisualModels"
	singlePrecision    = "single precision is not available: sofago computes in double precision"
	preconditionerNote = "preconditioners are not separate objects: PCGLinearSolver's preconditioner field chooses one"
	ldltNote           = "the solvers' systems are symmetric, so a sparse Cholesky factorisation does LDLᵀ's job (a matrix that is not positive definite is reported, not factorised)"
)

// sofaNames is the table. Keep it sorted by kind, then name.
// triangleMembraneNote explains SOFA's membrane triangles.
const triangleMembraneNote = "a membrane of triangles (Green–Lagrange strain, St Venant–Kirchhoff) is TriangularShellForceField with bending = false; give its thickness (membrane stiffness E·h), youngModulus and poissonRatio as in SOFA"

var sofaNames = []SOFAName{
	// MechanicalObject templates.
	{Name: "Vec1d", Template: true, Status: SOFAAlias, Use: "Vec1"},
	{Name: "Vec3d", Template: true, Status: SOFAAlias, Use: "Vec3"},
	{Name: "Rigid3d", Template: true, Status: SOFAAlias, Use: "Rigid3"},
	{Name: "Rigid", Template: true, Status: SOFAAlias, Use: "Rigid3"},
	{Name: "Affine", Template: true, Status: SOFAAlias, Use: "Affine3"},
	{Name: "Quadratic", Template: true, Status: SOFAAlias, Use: "Quadratic3"},
	{Name: "Vec1f", Template: true, Status: SOFAEquivalent, Use: "Vec1", Note: singlePrecision},
	{Name: "Vec3f", Template: true, Status: SOFAEquivalent, Use: "Vec3", Note: singlePrecision},
	{Name: "Rigid3f", Template: true, Status: SOFAEquivalent, Use: "Rigid3", Note: singlePrecision},
	{Name: "Vec2d", Template: true, Status: SOFANotImplemented, Note: "two-dimensional states are not implemented: model in 3-D"},
	{Name: "Vec6d", Template: true, Status: SOFANotImplemented, Note: "six-number point states are not implemented; Rigid3 holds a position and an orientation"},
	{Name: "Rigid2d", Template: true, Status: SOFANotImplemented, Use: "Rigid3", Note: "planar rigid bodies are not implemented: use Rigid3"},

	// Scene structure and plugins.
	{Name: "RequiredPlugin", Status: SOFANotNeeded, Note: "every component is compiled in (runscene -list); your own are linked by a blank import"},
	{Name: "DefaultAnimationLoop", Status: SOFANotNeeded, Note: "a step runs every ODE solver of the scene, top-most first, every dt (Scene.Step): there is no animation-loop object"},
	{Name: "FreeMotionAnimationLoop", Status: SOFANotNeeded, Note: "its free-motion/correction split serves Lagrange-multiplier constraints; " + penaltyContacts + ", so the plain step is enough"},
	{Name: "DefaultVisualManagerLoop", Status: SOFANotNeeded, Note: "visual mappings and VisualModels are updated after every step by the scene itself"},

	// Loaders and topologies.
	{Name: "MeshGmshLoader", Status: SOFAEquivalent, Use: "MeshLoader", Note: meshLoaderNote},
	{Name: "MeshVTKLoader", Status: SOFAEquivalent, Use: "MeshLoader", Note: meshLoaderNote},
	{Name: "MeshSTLLoader", Status: SOFAEquivalent, Use: "MeshLoader", Note: meshLoaderNote},
	{Name: "MeshOBJLoader", Status: SOFAEquivalent, Use: "MeshLoader", Note: meshLoaderNote},
	{Name: "MeshTetraLoader", Status: SOFAEquivalent, Use: "MeshLoader", Note: meshLoaderNote},
	{Name: "MeshTopology", Status: SOFANotNeeded, Note: topologyNote},
	{Name: "TetrahedronSetTopologyContainer", Status: SOFANotNeeded, Note: topologyNote},
	{Name: "TetrahedronSetTopologyModifier", Status: SOFANotNeeded, Note: topologyNote},
	{Name: "TetrahedronSetGeometryAlgorithms", Status: SOFANotNeeded, Note: topologyNote},
	{Name: "TriangleSetTopologyContainer", Status: SOFANotNeeded, Note: topologyNote},
	{Name: "TriangleSetTopologyModifier", Status: SOFANotNeeded, Note: topologyNote},
	{Name: "TriangleSetGeometryAlgorithms", Status: SOFANotNeeded, Note: topologyNote},
	{Name: "Hexa2TetraTopologicalMapping", Status: SOFANotNeeded, Note: "RegularGridTopology and SparseGridTopology already split each hexahedron into six tetrahedra"},
	{Name: "Tetra2TriangleTopologicalMapping", Status: SOFANotNeeded, Note: "a tetrahedral topology serves its outward boundary triangles itself (VisualModel and TriangleCollisionModel use them)"},
	{Name: "BoxROI", Status: SOFANotNeeded, Note: "components that select DOFs take box = [xmin, ymin, zmin, xmax, ymax, zmax] themselves (FixedConstraint, PartialFixedConstraint, ConstantForceField, PointCollisionModel, ...)"},

	// Solvers.
	{Name: "SparseLDLSolver", Status: SOFAEquivalent, Use: "SparseCholeskySolver", Note: ldltNote},
	{Name: "AsyncSparseLDLSolver", Status: SOFAEquivalent, Use: "SparseCholeskySolver", Note: ldltNote + "; factorised at every solve, not asynchronously"},
	{Name: "EigenSimplicialLDLT", Status: SOFAEquivalent, Use: "SparseCholeskySolver", Note: ldltNote},
	{Name: "SparseLUSolver", Status: SOFAEquivalent, Use: "SparseCholeskySolver", Note: ldltNote + "; DenseDirectSolver (Cholesky, LU if indefinite) for small systems"},
	{Name: "ShewchukPCGLinearSolver", Status: SOFAEquivalent, Use: "PCGLinearSolver", Note: preconditionerNote},
	{Name: "JacobiPreconditioner", Status: SOFAEquivalent, Use: "PCGLinearSolver", Note: preconditionerNote + ` (preconditioner = "jacobi")`},
	{Name: "BlockJacobiPreconditioner", Status: SOFAEquivalent, Use: "PCGLinearSolver", Note: preconditionerNote + ` (preconditioner = "blockJacobi")`},
	{Name: "WarpPreconditioner", Status: SOFAEquivalent, Use: "PCGLinearSolver", Note: preconditionerNote + ` (preconditioner = "warp", refactorised past warpThreshold)`},
	{Name: "PrecomputedWarpPreconditioner", Status: SOFAEquivalent, Use: "PCGLinearSolver", Note: preconditionerNote + ` (preconditioner = "warp" with a warpThreshold no rotation reaches)`},
	{Name: "SSORPreconditioner", Status: SOFAEquivalent, Use: "PCGLinearSolver", Note: preconditionerNote + `: SSOR is not implemented, preconditioner = "ic0" (incomplete Cholesky) plays its part`},
	{Name: "EulerSolver", Status: SOFAEquivalent, Use: "EulerExplicitSolver", Note: "SOFA's former name; symplectic by default"},
	{Name: "RungeKutta4Solver", Status: SOFANotImplemented, Use: "NewmarkImplicitSolver", Note: "use EulerExplicitSolver, EulerImplicitSolver or NewmarkImplicitSolver"},

	// Mechanics.
	{Name: "FixedProjectiveConstraint", Status: SOFAEquivalent, Use: "FixedConstraint", Note: "SOFA's newer name for the same projection"},
	{Name: "PartialFixedProjectiveConstraint", Status: SOFAEquivalent, Use: "PartialFixedConstraint", Note: "SOFA's newer name for the same projection"},
	{Name: "LinearMovementProjectiveConstraint", Status: SOFAEquivalent, Use: "LinearMovementConstraint", Note: "SOFA's newer name for the same prescribed motion"},
	{Name: "AttachProjectiveConstraint", Status: SOFAEquivalent, Use: "AttachConstraint", Note: "SOFA's newer name for the same projective attachment (always two-way here)"},
	{Name: "LinearForceField", Status: SOFAEquivalent, Use: "ConstantForceField", Note: "ConstantForceField takes keyTimes and keyFactors: its forces follow a piecewise-linear time profile"},
	{Name: "TrianglePressureForceField", Status: SOFAEquivalent, Use: "SurfaceTractionForceField", Note: "a traction vector on selected surface triangles, as consistent nodal loads (SurfacePressureForceField for a pressure along the normals)"},
	{Name: "QuadPressureForceField", Status: SOFAEquivalent, Use: "SurfaceTractionForceField", Note: "surfaces are triangles here: a traction vector on selected boundary triangles, as consistent nodal loads"},
	{Name: "TetrahedralCorotationalFEMForceField", Status: SOFAEquivalent, Use: "TetrahedronFEMForceField", Note: "corotational linear tetrahedra: method = large, polar or svd"},
	{Name: "FastTetrahedralCorotationalForceField", Status: SOFAEquivalent, Use: "TetrahedronFEMForceField", Note: "corotational linear tetrahedra: method = large, polar or svd"},
	{Name: "StandardTetrahedralFEMForceField", Status: SOFAEquivalent, Use: "TetrahedronHyperelasticityFEMForceField", Note: "hyperelastic tetrahedra: materialName = StVenantKirchhoff, NeoHookean or StableNeoHookean"},
	{Name: "LinearMapping", Status: SOFAEquivalent, Use: "LinearBlendSkinningMapping", Note: "the Flexible plugin's linear blend skinning"},
	{Name: "HookeForceField", Status: SOFAEquivalent, Use: "DeformationGradientForceField", Note: "Flexible's strain mapping + Hooke force field in one component: materialName = CorotationalLinear (corotational strain) or StVenantKirchhoff (Green–Lagrange strain), on F331 or F332 samples"},
	{Name: "CorotationalStrainMapping", Status: SOFAEquivalent, Use: "DeformationGradientForceField", Note: "the strain measure is the force field's law: materialName = CorotationalLinear"},
	{Name: "GreenStrainMapping", Status: SOFAEquivalent, Use: "DeformationGradientForceField", Note: "the strain measure is the force field's law: materialName = StVenantKirchhoff"},
	{Name: "StiffSpringForceField", Status: SOFAEquivalent, Use: "SpringForceField", Note: stiffSpringNote},
	{Name: "RegularGridSpringForceField", Status: SOFAEquivalent, Use: "MeshSpringForceField", Note: "MeshSpringForceField on a RegularGridTopology: with elements = \"hexahedra\" and cubesStiffness (or youngModulus), a spring between every pair of corners of each cell; on a flat grid (n = 1 along one axis), trianglesStiffness"},
	{Name: "TriangleBendingSprings", Status: SOFAEquivalent, Use: "TriangularBendingSprings", Note: "the same springs across the interior edges of a triangle surface"},
	{Name: "FastTriangularBendingSprings", Status: SOFANotImplemented, Use: "TriangularBendingSprings", Note: "the quadratic bending model is not implemented; TriangularBendingSprings resists bending with a spring across each interior edge, TriangularShellForceField with membrane = false is a thin plate's bending energy (E, ν, thickness)"},
	{Name: "TriangularFEMForceField", Status: SOFAEquivalent, Use: "TriangularShellForceField", Note: triangleMembraneNote},
	{Name: "TriangleFEMForceField", Status: SOFAEquivalent, Use: "TriangularShellForceField", Note: triangleMembraneNote},
	{Name: "TriangularBendingFEMForceField", Status: SOFAEquivalent, Use: "TriangularShellForceField", Note: "the Shells plugin's thin shell: here rotation-free (Vec3 points only; each triangle's curvature from it and its three neighbours), membrane and bending in one force field"},

	// Constraint-based contact and joints.
	{Name: "GenericConstraintSolver", Status: SOFANotImplemented, Note: penaltyContacts},
	{Name: "LCPConstraintSolver", Status: SOFANotImplemented, Note: penaltyContacts},
	{Name: "UncoupledConstraintCorrection", Status: SOFANotImplemented, Note: penaltyContacts},
	{Name: "LinearSolverConstraintCorrection", Status: SOFANotImplemented, Note: penaltyContacts},
	{Name: "PrecomputedConstraintCorrection", Status: SOFANotImplemented, Note: penaltyContacts},
	{Name: "BilateralInteractionConstraint", Status: SOFANotImplemented, Use: "JointSpringForceField", Note: "Lagrange-multiplier joints are not implemented: JointSpringForceField joins Rigid3 frames with stiff springs"},

	// Collision.
	{Name: "DefaultPipeline", Status: SOFAEquivalent, Use: "CollisionPipeline", Note: "one object does detection and response"},
	{Name: "BruteForceBroadPhase", Status: SOFAEquivalent, Use: "CollisionPipeline", Note: phasesNote},
	{Name: "BruteForceDetection", Status: SOFAEquivalent, Use: "CollisionPipeline", Note: phasesNote},
	{Name: "ParallelBruteForceBroadPhase", Status: SOFAEquivalent, Use: "CollisionPipeline", Note: phasesNote},
	{Name: "BVHNarrowPhase", Status: SOFAEquivalent, Use: "CollisionPipeline", Note: phasesNote},
	{Name: "ParallelBVHNarrowPhase", Status: SOFAEquivalent, Use: "CollisionPipeline", Note: phasesNote},
	{Name: "MinProximityIntersection", Status: SOFAEquivalent, Use: "CollisionPipeline", Note: proximityNote},
	{Name: "LocalMinDistance", Status: SOFAEquivalent, Use: "CollisionPipeline", Note: proximityNote},
	{Name: "NewProximityIntersection", Status: SOFAEquivalent, Use: "CollisionPipeline", Note: proximityNote},
	{Name: "DiscreteIntersection", Status: SOFAEquivalent, Use: "CollisionPipeline", Note: proximityNote},
	{Name: "DefaultContactManager", Status: SOFAEquivalent, Use: "CollisionPipeline", Note: responseNote},
	{Name: "CollisionResponse", Status: SOFAEquivalent, Use: "CollisionPipeline", Note: responseNote},
	{Name: "TriangleModel", Status: SOFAEquivalent, Use: "TriangleCollisionModel", Note: "SOFA's former name"},
	{Name: "PointModel", Status: SOFAEquivalent, Use: "PointCollisionModel", Note: "SOFA's former name"},
	{Name: "LineCollisionModel", Status: SOFANotImplemented, Note: "edges are not collision primitives: contacts are point–triangle (TriangleCollisionModel, PointCollisionModel)"},
	{Name: "LineModel", Status: SOFANotImplemented, Note: "edges are not collision primitives: contacts are point–triangle (TriangleCollisionModel, PointCollisionModel)"},
	{Name: "SphereCollisionModel", Status: SOFANotImplemented, Note: "spheres are not collision primitives: use PointCollisionModel against closed surfaces, or SphereForceField for a fixed ball obstacle"},

	// Visual.
	{Name: "OglModel", Status: SOFAEquivalent, Use: "VisualModel", Note: "drawn by runscene's software renderer and written by the exporters, without OpenGL"},
	{Name: "VisualModelImpl", Status: SOFAEquivalent, Use: "VisualModel", Note: "drawn by runscene's software renderer and written by the exporters, without OpenGL"},
	{Name: "InteractiveCamera", Status: SOFAEquivalent, Use: "Camera", Note: "the view of runscene's pictures"},
	{Name: "VisualStyle", Status: SOFANotNeeded, Note: viewerNote + " (-wireframe draws the edges)"},
	{Name: "OglSceneFrame", Status: SOFANotNeeded, Note: viewerNote},
	{Name: "LightManager", Status: SOFANotNeeded, Note: "pictures are lit by two lights fixed to the camera"},
	{Name: "DirectionalLight", Status: SOFANotNeeded, Note: "pictures are lit by two lights fixed to the camera"},
	{Name: "PositionalLight", Status: SOFANotNeeded, Note: "pictures are lit by two lights fixed to the camera"},
	{Name: "SpotLight", Status: SOFANotNeeded, Note: "pictures are lit by two lights fixed to the camera"},
	{Name: "BackgroundSetting", Status: SOFANotNeeded, Note: viewerNote},
}

// SOFANames returns a copy of the table of SOFA names, in table order.
func SOFANames() []SOFAName { return append([]SOFAName(nil), sofaNames...) }

// LookupSOFA returns the row for SOFA's spelling name: a template name when
// template is true, a component type otherwise.
func LookupSOFA(name string, template bool) (SOFAName, bool) {
	for _, n := range sofaNames {
		if n.Name == name && n.Template == template {
			return n, true
		}
	}
	return SOFAName{}, false
}

// UnknownType is the message for a component type name that is not
// registered: what SOFA's name is here (from the table), else the closest
// registered name and a pointer to runscene -list. The loader and
// runscene -doc both use it.
func UnknownType(name string) string {
	msg := fmt.Sprintf("unknown component type %q", name)
	if sn, ok := LookupSOFA(name, false); ok {
		return msg + ": " + sn.Explain()
	}
	if s := Suggest(name); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	return msg + "; runscene -list shows them all"
}

// sofaTemplateAliases lists the SOFA template names accepted as written.
func sofaTemplateAliases() []string {
	var names []string
	for _, n := range sofaNames {
		if n.Template && n.Status == SOFAAlias {
			names = append(names, n.Name)
		}
	}
	return names
}

// Explain is the sentence an error about this name gives, after the name
// itself: what to write here instead, or why nothing is needed.
func (n SOFAName) Explain() string {
	var b strings.Builder
	what := "type"
	if n.Template {
		what = "template"
	}
	switch n.Status {
	case SOFAAlias:
		fmt.Fprintf(&b, "SOFA's %s %s is %s here", what, n.Name, n.Use)
	case SOFAEquivalent:
		fmt.Fprintf(&b, "SOFA's %s %s is %s here (did you mean %q?)", what, n.Name, n.Use, n.Use)
		if n.Note != "" {
			fmt.Fprintf(&b, ": %s", n.Note)
		}
		if !n.Template {
			fmt.Fprintf(&b, "; runscene -doc %s shows its fields", n.Use)
		}
	case SOFANotNeeded:
		fmt.Fprintf(&b, "SOFA's %s %s is not needed here: %s; remove it", what, n.Name, n.Note)
	case SOFANotImplemented:
		fmt.Fprintf(&b, "SOFA's %s %s is not implemented yet: %s", what, n.Name, n.Note)
		if n.Use != "" && !strings.Contains(n.Note, n.Use) {
			fmt.Fprintf(&b, " (nearest: %q)", n.Use)
		}
	}
	return b.String()
}
