package forcefield

import (
	"fmt"
	"math"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/material"
)

// TetrahedronFEMForceField is the corotational linear-elastic tetrahedral
// FEM of SOFA, written per element in terms of the deformation gradient
// F = Ds Dm⁻¹ and the first Piola–Kirchhoff stress P (see tetElements):
// element energy V·Ψ(F), vertex forces fᵢ = −V P ∇Nᵢ. With Lamé constants
// μ = E/(2(1+ν)) and λ = Eν/((1+ν)(1−2ν)) the methods are:
//
//   - "small": linear FEM. ε = sym(F) − I, Ψ = μ ε:ε + λ/2 (tr ε)²,
//     P = 2με + λ tr(ε) I. Not rotation invariant: a rigid rotation
//     produces forces. Tangent: the constant K₀ (exact, whichever
//     tangent is asked for).
//   - "polar": F = R S (polar decomposition, S symmetric positive
//     semi-definite), Ψ = μ|S − I|² + λ/2 (tr S − 3)²,
//     P = 2μ(F − R) + λ(tr S − 3) R — the corotational energy of
//     VegaFEM's CorotationalLinearFEM, whose force R K₀ (Rᵀx − x₀) it
//     equals: with the polar R the dR term of the gradient vanishes, so
//     f = −∇W exactly. Inverted elements (det F < 0) get a reflection R
//     and are pushed towards the mirror image: use "svd" when elements
//     may invert.
//   - "svd": the same energy with R = U Vᵀ from the SVD F = U Σ̂ Vᵀ that
//     keeps U and V rotations by negating the smallest singular value
//     when det F < 0 (Irving, Teran & Fedkiw 2004, invertible FEM), and
//     S = V Σ̂ Vᵀ. Identical to "polar" for non-inverted elements; for
//     inverted ones it gives a force restoring the orientation.
//   - "large": R from the QR (Gram–Schmidt) decomposition F = R U of the
//     columns of F (U upper triangular with U₀₀, U₁₁ > 0), in the spirit
//     of SOFA's "large", which builds its frame by Gram–Schmidt on element
//     edges (here on the images of the rest axes, so the frame does not
//     depend on the vertex order); but unlike SOFA's force
//     R K₀(Rᵀx − x₀), which is not the gradient of any energy, the force
//     here derives from Ψ = μ|sym(U) − I|² + λ/2 (tr U − 3)², so it is
//     conservative. With G = 2μ(sym(U) − I) + λ(tr U − 3) I,
//     P = R(G − A U⁻ᵀ) where A is the strictly lower triangular matrix
//     with A_ij = (G Uᵀ)_ij − (G Uᵀ)_ji: the second term accounts for the
//     change of R with F (R does not make RᵀF symmetric, so its change
//     does not drop out as with the polar R). R depends on the first two
//     columns of F only, so it stays defined for flat and inverted
//     elements (U₂₂ ≤ 0), which the volumetric term pushes back.
//     Cheaper than polar: no iteration, two square roots.
//
// Tangents (AddDForce), chosen by `tangent`:
//   - "exact" (default): the derivative of the force, K = ∂f/∂x, for every
//     method. For polar and svd, dP = 2μ(dF − dR) + λ tr(RᵀdF) R +
//     λ(tr S − 3) dR with dR = R[ω]× and (tr(S) I − S) ω = axial(RᵀdF −
//     dFᵀR). For svd, tr(S) I − S has eigenvalues σ̂ᵢ + σ̂ⱼ, which vanish
//     where an inverted element's rotation is not differentiable (two
//     singular values of equal magnitude, one negated): each σ̂ᵢ + σ̂ⱼ is
//     kept at least 1e-6·Σ|σ̂| in magnitude (sign kept), so there the
//     tangent is bounded and approximate. For large, dP is the exact
//     derivative of the closed form above (see largeDStress).
//   - "warped": the stiffness-warping approximation K ≈ R K₀ Rᵀ per
//     element (Müller & Gross 2004; SOFA's and VegaFEM's warp = 1): cheap,
//     symmetric and negative semi-definite, but not the derivative of the
//     force, so Newton iterations converge only linearly with it. For
//     "small" R = I and it equals the exact tangent.
//
// The laws are those of package material ("small" is material.Linear,
// "polar" and "svd" are material.CorotationalLinear without and with
// Invertible), except "large", whose QR-based law lives here (largeLaw);
// the element machinery (F, forces, tangent products, parallel loops) is
// tetSolid's, shared with TetrahedronHyperelasticityFEMForceField.
//
// VTU output (runscene -out, VTKExporter) gets two cell data arrays from
// it (cellData.CellData): "vonMisesStress" (Pa) of the rotated linear
// stress R (2μ ε + λ tr(ε) I) Rᵀ, ε = sym(RᵀF) − I (rotatedLinearStress;
// SOFA's definition, the Cauchy stress to first order in the strain), and
// "strainEnergyDensity" (J/m³ of rest volume), the method's Ψ above.
//
// Plasticity (plasticYieldThreshold, plasticMaxThreshold, plasticCreep;
// off by default): SOFA's flow rule on a plastic strain per element,
// applied once per step after the solve; see Plasticity. The plastic
// strains are written to VTU cell data ("plasticStrain") and to the JSON
// dump.
//
// Heterogeneous bodies: youngModulusPerElement (one E per tetrahedron, in
// topology order) or regions (boxes or spheres with their own
// youngModulus, tested against each rest centroid) scale each element's
// energy, force and tangent by Eₑ/E at the common ν.
//
// The force field reads its tetrahedra from the node's topology and its
// rest shape from the state's rest positions (graph.RestPosition), and
// acts on the Vec3 state of its node. AddForce caches per element what
// AddDForce needs (the linearisation is at the x of the most recent
// AddForce). Element loops run in parallel on all cores; every vertex sums
// its elements' contributions in a fixed order, so results are bitwise
// identical whatever the number of workers.
type TetrahedronFEMForceField struct {
	graph.ObjectBase
	material.StiffnessMap
	Plasticity
	Method       string  `toml:"method" doc:"corotational formulation: small (linear FEM), large (rotation from the QR decomposition of F, conservative), polar (polar decomposition), svd (invertible: rotation from the sign-corrected SVD)" enum:"small,large,polar,svd"`
	YoungModulus float64 `toml:"youngModulus" doc:"Young's modulus E (of the elements no region or per-element list overrides)" unit:"Pa" range:"(0,inf)"`
	PoissonRatio float64 `toml:"poissonRatio" doc:"Poisson's ratio ν" range:"(-1,0.5)"`
	Tangent      string  `toml:"tangent" doc:"stiffness used by implicit solvers: exact (the derivative of the force) or warped (R K₀ Rᵀ per element, approximate)" enum:"exact,warped"`

	tetSolid
	mu, lambda float64
	method     femMethod
	warped     bool
}

type femMethod int

const (
	methodSmall femMethod = iota
	methodLarge
	methodPolar
	methodSVD
)

// strideLarge is the cache size of the large law: R, U (6), U⁻¹ (3), G
// (6), B (3).
const strideLarge = 27

func init() {
	graph.Register(graph.TypeInfo{
		Name:    "TetrahedronFEMForceField",
		Kind:    graph.KindForceField,
		Summary: "Corotational linear-elastic tetrahedral FEM (SOFA's TetrahedronFEMForceField): method small (linear), large (QR rotation, conservative), polar, or svd (invertible); exact or stiffness-warping tangent; per-element Young's modulus from regions or a list. SOFA's plasticity (plasticYieldThreshold, plasticMaxThreshold, plasticCreep; off by default). VTU cell data: vonMisesStress (Pa, of the rotated linear stress), strainEnergyDensity (J/m³ of rest volume), plasticStrain (with plasticity).",
		New:     func() graph.Object { return NewTetrahedronFEMForceField() },
	})
}

// NewTetrahedronFEMForceField returns a force field with SOFA's defaults:
// method "large", E = 5000 Pa, ν = 0.45, exact tangent.
func NewTetrahedronFEMForceField() *TetrahedronFEMForceField {
	return &TetrahedronFEMForceField{
		ObjectBase:   graph.ObjectBase{Name: "TetrahedronFEMForceField", TypeName: "TetrahedronFEMForceField"},
		Method:       "large",
		YoungModulus: 5000,
		PoissonRatio: 0.45,
		Tangent:      "exact",
		Plasticity:   defaultPlasticity(),
	}
}

// Validate checks the material, the enumerations and the heterogeneity
// (for objects built in code; the loader checks the tags too).
func (c *TetrahedronFEMForceField) Validate() error {
	switch c.Method {
	case "small":
		c.method = methodSmall
	case "large":
		c.method = methodLarge
	case "polar":
		c.method = methodPolar
	case "svd":
		c.method = methodSVD
	default:
		return fmt.Errorf("method = %q is not one of small, large, polar, svd", c.Method)
	}
	switch c.Tangent {
	case "exact":
		c.warped = false
	case "warped":
		c.warped = true
	default:
		return fmt.Errorf("tangent = %q is not one of exact, warped", c.Tangent)
	}
	if !(c.YoungModulus > 0) || math.IsInf(c.YoungModulus, 0) {
		return fmt.Errorf("youngModulus = %g must be positive and finite", c.YoungModulus)
	}
	if !(c.PoissonRatio > -1 && c.PoissonRatio < 0.5) {
		return fmt.Errorf("poissonRatio = %g is out of range (-1, 0.5)", c.PoissonRatio)
	}
	if err := c.Plasticity.check(); err != nil {
		return err
	}
	return c.CheckStiffnessMap()
}

// Init reads the tetrahedra of the node's topology and the rest positions
// of its Vec3 state, and precomputes the element data.
func (c *TetrahedronFEMForceField) Init() error {
	if err := c.Validate(); err != nil {
		return c.Wrap(err)
	}
	mesh, st, tets, err := tetMesh(&c.ObjectBase)
	if err != nil {
		return c.Wrap(err)
	}
	w, err := elementWeights(mesh, &c.StiffnessMap, st.Vec(graph.RestPosition), tets, c.YoungModulus)
	if err != nil {
		return c.Wrap(err)
	}
	c.setup(mesh, w, st)
	c.enablePlasticity(c.Plasticity, c.corotatedStrain())
	return nil
}

// corotatedStrain returns the elastic strain of the flow rule
// (Plasticity): sym(RᵀFₑ) − I with R the rotation of the method (I for
// "small"), the strain rotatedLinearStress reports the stress of. The
// returned function is not safe for concurrent use (one law cache).
func (c *TetrahedronFEMForceField) corotatedStrain() func(Fe *geom.Mat3) geom.Mat3 {
	return corotatedStrainOf(c.method, c.law)
}

// corotatedStrainOf returns sym(RᵀFₑ) − I with R the rotation of method
// as law (methodLaw) computes it (I for "small"); not safe for concurrent
// use (one law cache). The tetrahedra and hexahedra share it.
func corotatedStrainOf(method femMethod, law material.Law) func(Fe *geom.Mat3) geom.Mat3 {
	cache := make([]float64, law.CacheSize())
	P := make([]float64, 9)
	return func(Fe *geom.Mat3) geom.Mat3 {
		X := *Fe
		if method != methodSmall {
			law.StressCached(Fe[:], P, cache)
			R := material.CachedRotation(cache)
			tmulTo(&X, &R, Fe)
		}
		return X.Sym().Sub(geom.Identity3())
	}
}

// setup picks the law of the method and binds the element machinery.
func (c *TetrahedronFEMForceField) setup(mesh *tetElements, weight []float64, st graph.State) {
	c.lambda, c.mu = material.Lame(c.YoungModulus, c.PoissonRatio)
	law := methodLaw(c.method, c.lambda, c.mu)
	var diff func(dF, dP, cache []float64)
	var tangent func(cache, A []float64)
	if c.warped && c.method != methodSmall {
		diff = c.warpedDifferential
		tangent = c.warpedTangent
	}
	c.tetSolid.setup(mesh, law, weight, st, diff, tangent)
	c.reported = c.rotatedLinearStress
}

// rotatedLinearStress is the stress TetrahedronFEMForceField reports as
// cell data (vonMisesStress): the linear stress of the method's strain,
// turned to world axes, σ = R (2μ ε + λ tr(ε) I) Rᵀ with ε = sym(RᵀF) − I
// and R the element rotation of the method (I for "small", the polar, SVD
// or QR rotation otherwise, which the laws store first in their caches) —
// SOFA's TetrahedronFEMForceField computes its von Mises stress the same
// way, from the strain of the rotated displacements. It equals the Cauchy
// stress to first order in the strain, the order of accuracy of the
// corotational model. It returns the unrotated 2μ ε + λ tr(ε) I: only
// rotation invariants of σ are reported (tetSolid.reported).
func (c *TetrahedronFEMForceField) rotatedLinearStress(F, _ *geom.Mat3, cache []float64) geom.Mat3 {
	return rotatedLinearStress(c.method, c.mu, c.lambda, F, cache)
}

// rotatedLinearStress is 2μ ε + λ tr(ε) I with ε = sym(RᵀF) − I, R the
// rotation of method (I for small) first in the law's cache.
func rotatedLinearStress(method femMethod, mu, lambda float64, F *geom.Mat3, cache []float64) geom.Mat3 {
	X := *F
	if method != methodSmall {
		R := material.CachedRotation(cache)
		tmulTo(&X, &R, F)
	}
	e0, e1, e2 := X[0]-1, X[4]-1, X[8]-1
	e01, e02, e12 := 0.5*(X[1]+X[3]), 0.5*(X[2]+X[6]), 0.5*(X[5]+X[7])
	t := lambda * (e0 + e1 + e2)
	m2 := 2 * mu
	return geom.Mat3{
		m2*e0 + t, m2 * e01, m2 * e02,
		m2 * e01, m2*e1 + t, m2 * e12,
		m2 * e02, m2 * e12, m2*e2 + t,
	}
}

// methodLaw returns the law of a corotational method: small is
// material.Linear, large the QR law largeLaw, polar and svd
// material.CorotationalLinear without and with Invertible.
func methodLaw(method femMethod, lambda, mu float64) material.Law {
	switch method {
	case methodSmall:
		return &material.Linear{Lambda: lambda, Mu: mu}
	case methodLarge:
		return &largeLaw{mu: mu, lambda: lambda}
	case methodSVD:
		return &material.CorotationalLinear{Lambda: lambda, Mu: mu, Invertible: true}
	}
	return &material.CorotationalLinear{Lambda: lambda, Mu: mu}
}

// Lame returns the Lamé constants μ and λ in use.
func (c *TetrahedronFEMForceField) Lame() (mu, lambda float64) { return c.mu, c.lambda }

// warpedDifferential is the stiffness-warping tangent R K₀ Rᵀ:
// dP = R (2μ sym(X) + λ tr(X) I) with X = RᵀdF and R the element rotation,
// which both the corotational law (material.CachedRotation) and the large
// law store first in their caches.
func (c *TetrahedronFEMForceField) warpedDifferential(dFs, dPs, cache []float64) {
	R := (*geom.Mat3)(cache[:9])
	dF := (*geom.Mat3)(dFs[:9])
	mu2, lam := 2*c.mu, c.lambda
	mu := c.mu
	// Y = 2μ sym(X) + λ tr(X) I, X = RᵀdF, in scalars.
	x00 := R[0]*dF[0] + R[3]*dF[3] + R[6]*dF[6]
	x11 := R[1]*dF[1] + R[4]*dF[4] + R[7]*dF[7]
	x22 := R[2]*dF[2] + R[5]*dF[5] + R[8]*dF[8]
	x01 := R[0]*dF[1] + R[3]*dF[4] + R[6]*dF[7]
	x10 := R[1]*dF[0] + R[4]*dF[3] + R[7]*dF[6]
	x02 := R[0]*dF[2] + R[3]*dF[5] + R[6]*dF[8]
	x20 := R[2]*dF[0] + R[5]*dF[3] + R[8]*dF[6]
	x12 := R[1]*dF[2] + R[4]*dF[5] + R[7]*dF[8]
	x21 := R[2]*dF[1] + R[5]*dF[4] + R[8]*dF[7]
	t := lam * (x00 + x11 + x22)
	y00, y11, y22 := mu2*x00+t, mu2*x11+t, mu2*x22+t
	y01, y02, y12 := mu*(x01+x10), mu*(x02+x20), mu*(x12+x21)
	dP := (*geom.Mat3)(dPs[:9])
	for r := 0; r < 9; r += 3 {
		r0, r1, r2 := R[r], R[r+1], R[r+2]
		dP[r] = r0*y00 + r1*y01 + r2*y02
		dP[r+1] = r0*y01 + r1*y11 + r2*y12
		dP[r+2] = r0*y02 + r1*y12 + r2*y22
	}
}

// largeLaw is the energy of method "large" as a material.Law: Ψ =
// μ|sym(U) − I|² + λ/2 (tr U − 3)² with F = R U the QR (Gram–Schmidt)
// decomposition of F. Its cache holds R, U, U⁻¹, G and B (largeElement).
type largeLaw struct{ mu, lambda float64 }

func (l *largeLaw) Energy(F geom.Mat3) float64 {
	var r largeElement
	r.decompose(&F)
	u := &r.U
	d0, d1, d2 := u[0]-1, u[3]-1, u[5]-1
	tr := d0 + d1 + d2
	return l.mu*(d0*d0+d1*d1+d2*d2+0.5*(u[1]*u[1]+u[2]*u[2]+u[4]*u[4])) + 0.5*l.lambda*tr*tr
}

func (l *largeLaw) Stress(F geom.Mat3) geom.Mat3 {
	var P geom.Mat3
	var cache [strideLarge]float64
	l.StressCached(F[:], P[:], cache[:])
	return P
}

func (l *largeLaw) StressDifferential(F, dF geom.Mat3) geom.Mat3 {
	var P, dP geom.Mat3
	var cache [strideLarge]float64
	l.StressCached(F[:], P[:], cache[:])
	l.StressDifferentialCached(dF[:], dP[:], cache[:])
	return dP
}

func (l *largeLaw) CacheSize() int { return strideLarge }

func (l *largeLaw) StressCached(F, P, cache []float64) {
	var q largeElement
	q.decompose((*geom.Mat3)(F[:9]))
	q.stress((*geom.Mat3)(P[:9]), l.mu, l.lambda)
	cc := cache[:strideLarge:strideLarge]
	copy(cc[:9], q.R[:])
	copy(cc[9:15], q.U[:])
	copy(cc[15:18], q.Ui[:])
	copy(cc[18:24], q.G[:])
	copy(cc[24:27], q.B[:])
}

func (l *largeLaw) StressDifferentialCached(dF, dP, cache []float64) {
	largeDStress((*geom.Mat3)(dP[:9]), cache, (*geom.Mat3)(dF[:9]), l.mu, l.lambda)
}

// largeElement holds the QR decomposition F = R U of the "large" method
// and the stress terms its tangent reuses.
type largeElement struct {
	R geom.Mat3
	// U upper triangle: U00, U01, U02, U11, U12, U22.
	U [6]float64
	// Entries of U⁻¹ that the formulas use: (U⁻¹)00, (U⁻¹)01, (U⁻¹)11.
	Ui [3]float64
	// G = 2μ(sym U − I) + λ(tr U − 3) I, upper triangle as U.
	G [6]float64
	// B = A U⁻ᵀ, strictly lower: B10, B20, B21.
	B [3]float64
}

// minPivot bounds the first two diagonal entries of U away from zero: an
// element whose first two rest edges become parallel (or the first one
// collapses) has no QR rotation; it then gets an arbitrary completion and
// a large but finite tangent.
const minPivot = 1e-12

// decompose sets R and U from F = R U by Gram–Schmidt on the columns of F:
// r₀ = f₀/|f₀|, r₁ = the part of f₁ orthogonal to r₀, normalised,
// r₂ = r₀ × r₁ (so R is a rotation and U₂₂ < 0 for an inverted element).
func (q *largeElement) decompose(F *geom.Mat3) {
	// Scalars rather than Vec3 values: the compiler keeps them in
	// registers (small arrays go through memory).
	a0, a1, a2 := F[0], F[3], F[6]
	b0, b1, b2 := F[1], F[4], F[7]
	c0, c1, c2 := F[2], F[5], F[8]
	u00 := math.Sqrt(a0*a0 + a1*a1 + a2*a2)
	r00, r10, r20 := 1.0, 0.0, 0.0
	if u00 > minPivot {
		s := 1 / u00
		r00, r10, r20 = a0*s, a1*s, a2*s
	} else {
		u00 = minPivot
	}
	u01 := r00*b0 + r10*b1 + r20*b2
	w0, w1, w2 := b0-u01*r00, b1-u01*r10, b2-u01*r20
	u11 := math.Sqrt(w0*w0 + w1*w1 + w2*w2)
	var r01, r11, r21 float64
	if u11 > minPivot {
		s := 1 / u11
		r01, r11, r21 = w0*s, w1*s, w2*s
	} else {
		u11 = minPivot
		p := perpendicular(geom.Vec3{r00, r10, r20})
		r01, r11, r21 = p[0], p[1], p[2]
	}
	r02 := r10*r21 - r20*r11
	r12 := r20*r01 - r00*r21
	r22 := r00*r11 - r10*r01
	q.R = geom.Mat3{r00, r01, r02, r10, r11, r12, r20, r21, r22}
	q.U = [6]float64{u00, u01, r00*c0 + r10*c1 + r20*c2, u11, r01*c0 + r11*c1 + r21*c2, r02*c0 + r12*c1 + r22*c2}
}

// perpendicular returns a unit vector orthogonal to the unit vector u.
func perpendicular(u geom.Vec3) geom.Vec3 {
	a := geom.Vec3{1, 0, 0}
	if math.Abs(u[0]) > 0.5 {
		a = geom.Vec3{0, 1, 0}
	}
	return u.Cross(a).Normalized()
}

// stress completes the element after decompose: G, U⁻¹, B, and sets
// P = R (G − B).
//
// Derivation (U = RᵀF, Ω = RᵀdR skew): dU = RᵀdF − ΩU must stay upper
// triangular, so dU U⁻¹ = M − Ω is upper triangular with M = RᵀdF U⁻¹,
// which fixes Ω from the strictly lower part of M. Then
// dΨ = G:dU = (RG):dF − (GUᵀ):Ω, and (GUᵀ):Ω = A:M with A strictly lower,
// A_ij = H_ij − H_ji, H = GUᵀ; A:M = (R A U⁻ᵀ):dF. Hence
// P = R(G − A U⁻ᵀ) = R(G − B). Only the leading 2×2 block of U⁻¹ enters.
func (q *largeElement) stress(P *geom.Mat3, mu, lam float64) {
	u := &q.U
	ui00, ui11 := 1/u[0], 1/u[3]
	q.Ui = [3]float64{ui00, -u[1] * ui00 * ui11, ui11}
	t := lam * (u[0] + u[3] + u[5] - 3)
	mu2 := 2 * mu
	g := &q.G
	*g = [6]float64{mu2*(u[0]-1) + t, mu * u[1], mu * u[2], mu2*(u[3]-1) + t, mu * u[4], mu2*(u[5]-1) + t}
	// H = G Uᵀ, H_ij = Σ_k G_ik U_jk (k ≥ j); only its antisymmetric
	// lower part A is needed.
	h10 := g[1]*u[0] + g[3]*u[1] + g[4]*u[2]
	h01 := g[1]*u[3] + g[2]*u[4]
	h20 := g[2]*u[0] + g[4]*u[1] + g[5]*u[2]
	h02 := g[2] * u[5]
	h21 := g[4]*u[3] + g[5]*u[4]
	h12 := g[4] * u[5]
	a10, a20, a21 := h10-h01, h20-h02, h21-h12
	// B = A U⁻ᵀ (strictly lower).
	q.B = [3]float64{a10 * ui00, a20*ui00 + a21*q.Ui[1], a21 * ui11}
	Q := geom.Mat3{
		g[0], g[1], g[2],
		g[1] - q.B[0], g[3], g[4],
		g[2] - q.B[1], g[4] - q.B[2], g[5],
	}
	mulTo(P, &q.R, &Q)
}

// mulTo sets C = A B (through pointers: no copies of the operands; C
// must not alias A or B).
func mulTo(C, A, B *geom.Mat3) {
	for r := 0; r < 9; r += 3 {
		a0, a1, a2 := A[r], A[r+1], A[r+2]
		C[r] = a0*B[0] + a1*B[3] + a2*B[6]
		C[r+1] = a0*B[1] + a1*B[4] + a2*B[7]
		C[r+2] = a0*B[2] + a1*B[5] + a2*B[8]
	}
}

// tmulTo sets C = Aᵀ B (C must not alias A or B).
func tmulTo(C, A, B *geom.Mat3) {
	for i := 0; i < 3; i++ {
		a0, a1, a2 := A[i], A[3+i], A[6+i]
		C[3*i] = a0*B[0] + a1*B[3] + a2*B[6]
		C[3*i+1] = a0*B[1] + a1*B[4] + a2*B[7]
		C[3*i+2] = a0*B[2] + a1*B[5] + a2*B[8]
	}
}

// largeDStress sets dP to the exact differential of the "large" stress
// P = R(G − B) for a change dF, from the cached element data cc
// (R, U, U⁻¹, G, B as laid out by largeLaw.StressCached):
//
//	X  = RᵀdF;  Ω skew with Ω_ij = (X U⁻¹)_ij for i > j
//	dU = X − ΩU (upper triangular)
//	dG = 2μ sym(dU) + λ tr(dU) I
//	dA_ij = dH_ij − dH_ji (i > j), dH = dG Uᵀ + G dUᵀ
//	dB = (dA − B dUᵀ) U⁻ᵀ
//	dP = R (Ω (G − B) + dG − dB)
//
// Every triangular product is written out, skipping structural zeros.
func largeDStress(dP *geom.Mat3, cc []float64, dF *geom.Mat3, mu, lam float64) {
	cc = cc[:strideLarge:strideLarge]
	R := (*geom.Mat3)(cc[:9])
	var X, T geom.Mat3
	tmulTo(&X, R, dF)
	largeRotatedDStress(&T, cc, &X, mu, lam)
	mulTo(dP, R, &T)
}

// largeRotatedDStress sets T = RᵀdP for X = RᵀdF (the differential of
// largeDStress in the element's rotated frame).
func largeRotatedDStress(T *geom.Mat3, cc []float64, X *geom.Mat3, mu, lam float64) {
	cc = cc[:strideLarge:strideLarge]
	u := cc[9:15:15]
	ui := cc[15:18:18]
	g := cc[18:24:24]
	b := cc[24:27:27]
	// Strictly lower part of M = X U⁻¹.
	m10 := X[3] * ui[0]
	m20 := X[6] * ui[0]
	m21 := X[6]*ui[1] + X[7]*ui[2]
	// dU = X − ΩU, Ω = [[0, −m10, −m20], [m10, 0, −m21], [m20, m21, 0]].
	du00 := X[0]
	du01 := X[1] + m10*u[3]
	du02 := X[2] + m10*u[4] + m20*u[5]
	du11 := X[4] - m10*u[1]
	du12 := X[5] - m10*u[2] + m21*u[5]
	du22 := X[8] - m20*u[2] - m21*u[4]
	mu2 := 2 * mu
	t := lam * (du00 + du11 + du22)
	dg00, dg11, dg22 := mu2*du00+t, mu2*du11+t, mu2*du22+t
	dg01, dg02, dg12 := mu*du01, mu*du02, mu*du12
	// dH = dG Uᵀ + G dUᵀ, the six off-diagonal entries.
	dh10 := dg01*u[0] + dg11*u[1] + dg12*u[2] + g[1]*du00 + g[3]*du01 + g[4]*du02
	dh01 := dg01*u[3] + dg02*u[4] + g[1]*du11 + g[2]*du12
	dh20 := dg02*u[0] + dg12*u[1] + dg22*u[2] + g[2]*du00 + g[4]*du01 + g[5]*du02
	dh02 := dg02*u[5] + g[2]*du22
	dh21 := dg12*u[3] + dg22*u[4] + g[4]*du11 + g[5]*du12
	dh12 := dg12*u[5] + g[4]*du22
	// C = dA − B dUᵀ (strictly lower), dB = C U⁻ᵀ.
	c10 := dh10 - dh01 - b[0]*du00
	c20 := dh20 - dh02 - b[1]*du00 - b[2]*du01
	c21 := dh21 - dh12 - b[2]*du11
	db10 := c10 * ui[0]
	db20 := c20*ui[0] + c21*ui[1]
	db21 := c21 * ui[2]
	// Q = G − B and T = ΩQ + dG − dB.
	q00, q01, q02 := g[0], g[1], g[2]
	q10, q11, q12 := g[1]-b[0], g[3], g[4]
	q20, q21, q22 := g[2]-b[1], g[4]-b[2], g[5]
	*T = geom.Mat3{
		-m10*q10 - m20*q20 + dg00, -m10*q11 - m20*q21 + dg01, -m10*q12 - m20*q22 + dg02,
		m10*q00 - m21*q20 + dg01 - db10, m10*q01 - m21*q21 + dg11, m10*q02 - m21*q22 + dg12,
		m20*q00 + m21*q10 + dg02 - db20, m20*q01 + m21*q11 + dg12 - db21, m20*q02 + m21*q12 + dg22,
	}
}

// largeRotatedTangent sets Â, the 9×9 matrix of the linear map X ↦ T of
// largeRotatedDStress (row-major: Â[3p+i][3q+j] = ∂T_pi/∂X_qj), in closed
// form from the cached element data cc. T depends on X only through the
// rotation rates m = (m10, m20, m21) and dU (upper triangular), z = (m,
// dU) = Z·X:
//
//	m10 = U⁻¹₀₀ X₁₀,  m20 = U⁻¹₀₀ X₂₀,  m21 = U⁻¹₀₁ X₂₀ + U⁻¹₁₁ X₂₁
//	dU₀ⱼ = X₀ⱼ,  dU₁₁ = X₁₁ − m10 U₀₁,  dU₁₂ = X₁₂ − m10 U₀₂ + m21 U₂₂,
//	dU₀₁ += m10 U₁₁,  dU₀₂ += m10 U₁₂ + m20 U₂₂,  dU₂₂ = X₂₂ − m20 U₀₂ − m21 U₁₂
//
// and T = W·z, whose columns are T at a unit component of z: for m, ΩQ
// (Q = G − B); for dU, dG − dB with dG, dH, dA and dB of
// largeRotatedDStress written out for that component (most of their
// terms vanish). Â = W·Z. About 300 operations, against ~1,000 for nine
// evaluations of largeRotatedDStress on unit matrices (equal to them to
// rounding: TestLargeRotatedTangent).
func largeRotatedTangent(Ah *[81]float64, cc []float64, mu, lam float64) {
	cc = cc[:strideLarge:strideLarge]
	u0, u1, u2, u3, u4, u5 := cc[9], cc[10], cc[11], cc[12], cc[13], cc[14]
	ui0, ui1, ui2 := cc[15], cc[16], cc[17]
	g0, g1, g2, g3, g4, g5 := cc[18], cc[19], cc[20], cc[21], cc[22], cc[23]
	b0, b1, b2 := cc[24], cc[25], cc[26]
	l2 := 2*mu + lam
	// Columns of W for dU₀₀, dU₀₁, dU₀₂, dU₁₁, dU₁₂, dU₂₂, written in
	// the columns of X₀₀, X₀₁, X₀₂, X₁₁, X₁₂, X₂₂ (those X enter dU
	// alone): from the unit's dG and C = dA − B dUᵀ (largeTangentColumn).
	largeTangentColumn(Ah, 0, l2, lam, lam, 0, 0, 0, lam*u1+g1-b0, lam*u2+g2-b1, lam*u4, ui0, ui1, ui2)
	largeTangentColumn(Ah, 1, 0, 0, 0, mu, 0, 0, mu*(u0-u3)+g3, g4-b2, 0, ui0, ui1, ui2)
	largeTangentColumn(Ah, 2, 0, 0, 0, 0, mu, 0, g4-mu*u4, mu*(u0-u5)+g5, 0, ui0, ui1, ui2)
	largeTangentColumn(Ah, 4, lam, l2, lam, 0, 0, 0, l2*u1-g1, lam*u2, lam*u4+g4-b2, ui0, ui1, ui2)
	largeTangentColumn(Ah, 5, 0, 0, 0, 0, 0, mu, mu*u2-g2, mu*u1, mu*(u3-u5)+g5, ui0, ui1, ui2)
	largeTangentColumn(Ah, 8, lam, lam, l2, 0, 0, 0, lam*u1, l2*u2-g2, l2*u4-g4, ui0, ui1, ui2)
	// Q = G − B; the responses to a unit m: ΩQ plus the dU it carries (Z
	// above), into the columns of X₁₀, X₂₀, X₂₁.
	q10, q20, q21 := g1-b0, g2-b1, g4-b2
	wm10 := [9]float64{-q10, -g3, -g4, g0, g1, g2, 0, 0, 0}
	wm20 := [9]float64{-q20, -q21, -g5, 0, 0, 0, g0, g1, g2}
	wm21 := [9]float64{0, 0, 0, -q20, -q21, -g5, q10, g3, g4}
	for r := 0; r < 9; r++ {
		row := Ah[9*r : 9*r+9 : 9*r+9]
		w10 := wm10[r] + u3*row[1] + u4*row[2] - u1*row[4] - u2*row[5]
		w20 := wm20[r] + u5*row[2] - u2*row[8]
		w21 := wm21[r] + u5*row[5] - u4*row[8]
		row[3] = ui0 * w10
		row[6] = ui0*w20 + ui1*w21
		row[7] = ui2 * w21
	}
}

// largeTangentColumn writes column c of Â (largeRotatedTangent): T =
// dG − dB for a unit component of dU whose dG has the diagonal d0, d1,
// d2 and the off-diagonal o01, o02, o12, and C = dA − B dUᵀ the strictly
// lower c10, c20, c21 (dB = C U⁻ᵀ with U⁻¹'s entries ui0, ui1, ui2).
func largeTangentColumn(Ah *[81]float64, c int, d0, d1, d2, o01, o02, o12, c10, c20, c21, ui0, ui1, ui2 float64) {
	col := Ah[c : c+73 : c+73]
	col[0] = d0
	col[9] = o01
	col[18] = o02
	col[27] = o01 - c10*ui0
	col[36] = d1
	col[45] = o12
	col[54] = o02 - (c20*ui0 + c21*ui1)
	col[63] = o12 - c21*ui2
	col[72] = d2
}

// TangentCached implements material.TangentLaw: A = ∂P/∂F of the "large"
// stress at the cached decomposition. In the rotated frame the
// differential is the linear map X ↦ T(X) of largeRotatedDStress (dP =
// R T(RᵀdF)); its 9×9 matrix Â is read off its values on the nine unit
// matrices E_ql (each a one-entry X, for which the chain's products
// reduce to a few terms), and A[ij][kl] = Σ_pq R_ip Â[pj][ql] R_kq.
func (l *largeLaw) TangentCached(cache, A []float64) {
	var Ahat [81]float64
	var X, T geom.Mat3
	for c := 0; c < 9; c++ {
		X[c] = 1
		largeRotatedDStress(&T, cache, &X, l.mu, l.lambda)
		X[c] = 0
		for p := 0; p < 9; p++ {
			Ahat[9*p+c] = T[p]
		}
	}
	rotateTangent(A, &Ahat, (*geom.Mat3)(cache[:9]))
}

// rotateTangent sets A[ij][kl] = Σ_pq R_ip Â[pj][ql] R_kq: the tangent of
// P = R T(RᵀF) from the tangent Â of T (for every pair (j, l), the 3×3
// slice over (p, q) is turned into R·slice·Rᵀ).
func rotateTangent(A []float64, Ahat *[81]float64, R *geom.Mat3) {
	A = A[:81:81]
	var M, RM geom.Mat3
	for j := 0; j < 3; j++ {
		for l := 0; l < 3; l++ {
			for p := 0; p < 3; p++ {
				for q := 0; q < 3; q++ {
					M[3*p+q] = Ahat[9*(3*p+j)+3*q+l]
				}
			}
			mulTo(&RM, R, &M)
			for i := 0; i < 3; i++ {
				r0, r1, r2 := RM[3*i], RM[3*i+1], RM[3*i+2]
				for k := 0; k < 3; k++ {
					A[9*(3*i+j)+3*k+l] = r0*R[3*k] + r1*R[3*k+1] + r2*R[3*k+2]
				}
			}
		}
	}
}

// warpedTangent writes the 9×9 tangent of the stiffness-warping
// differential (warpedDifferential): R L Rᵀ on the (i, k) indices, L the
// linear-elastic tangent, R the element rotation first in the cache.
func (c *TetrahedronFEMForceField) warpedTangent(cache, A []float64) {
	var L [81]float64
	material.LinearTangent(L[:], c.lambda, c.mu)
	rotateTangent(A, &L, (*geom.Mat3)(cache[:9]))
}
