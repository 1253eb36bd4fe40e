package graph

import (
	"fmt"
	"math"
	"sort"

	"github.com/sofago/sofago/geom"
)

// Template describes the layout of one kind of degree of freedom: how many
// numbers a coordinate and a derivative take, and how a coordinate moves
// along a derivative. Solvers are written once against this interface, so a
// new DOF type (Affine3, deformation-gradient samples, ...) drops in by
// registering a Template.
type Template interface {
	// Name is the scene name of the template ("Vec3", "Rigid3", ...).
	Name() string
	// CoordSize is the number of floats of one coordinate.
	CoordSize() int
	// DerivSize is the number of floats of one derivative (velocity, force).
	DerivSize() int
	// Integrate sets x ← x ⊕ h·v for every DOF (x coordinates, v
	// derivatives). For vector spaces it is an axpy; for Rigid3 it applies
	// the rotation exp(h ω) on the left of the orientation.
	Integrate(x, v []float64, h float64)
	// Difference sets d ← a ⊖ b, the derivative that Integrate(b, d, 1)
	// turns into a (exactly for vector spaces, via the rotation vector for
	// rotations).
	Difference(d, a, b []float64)
	// Normalize projects coordinates back onto their manifold (unit
	// quaternions, continuous sign); a no-op for vector spaces.
	Normalize(x []float64)
}

var templates = map[string]Template{}

// RegisterTemplate makes a DOF template available to MechanicalObject.
func RegisterTemplate(t Template) {
	if _, dup := templates[t.Name()]; dup {
		panic("graph: template registered twice: " + t.Name())
	}
	templates[t.Name()] = t
}

// LookupTemplate returns the template named name, or the one a SOFA alias
// names (Vec3d is Vec3: the table of SOFA names in sofa_names.go).
func LookupTemplate(name string) (Template, bool) {
	if t, ok := templates[name]; ok {
		return t, true
	}
	if sn, ok := LookupSOFA(name, true); ok && sn.Status == SOFAAlias {
		t, ok := templates[sn.Use]
		return t, ok
	}
	return nil, false
}

// TemplateNames lists the registered template names, sorted.
func TemplateNames() []string {
	var names []string
	for n := range templates {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// VecTemplate is the template of an n-dimensional vector space (Vec1, Vec3,
// and any other flat layout such as Affine3, whose derivative is the same 12
// numbers as its coordinate).
type VecTemplate struct {
	TemplateName string
	Dim          int
}

func (t VecTemplate) Name() string   { return t.TemplateName }
func (t VecTemplate) CoordSize() int { return t.Dim }
func (t VecTemplate) DerivSize() int { return t.Dim }

func (t VecTemplate) Integrate(x, v []float64, h float64) {
	for i := range x {
		x[i] += h * v[i]
	}
}

func (t VecTemplate) Difference(d, a, b []float64) {
	for i := range d {
		d[i] = a[i] - b[i]
	}
}

func (t VecTemplate) Normalize([]float64) {}

// Rigid3Template is the rigid-body template: coordinates [t(3) q(4)] with q
// a unit quaternion [x y z w], derivatives [v(3) ω(3)] with ω in world
// coordinates.
type Rigid3Template struct{}

func (Rigid3Template) Name() string   { return "Rigid3" }
func (Rigid3Template) CoordSize() int { return 7 }
func (Rigid3Template) DerivSize() int { return 6 }

// Integrate moves each body by h·v: t += h·v, q ← exp(h·ω) q (world ω).
func (Rigid3Template) Integrate(x, v []float64, h float64) {
	n := len(x) / 7
	for i := 0; i < n; i++ {
		c := x[7*i : 7*i+7]
		d := v[6*i : 6*i+6]
		c[0] += h * d[0]
		c[1] += h * d[1]
		c[2] += h * d[2]
		dq := geom.QuatFromRotVec(geom.Vec3{h * d[3], h * d[4], h * d[5]})
		q := dq.Mul(geom.Quat{c[3], c[4], c[5], c[6]}).Normalized()
		c[3], c[4], c[5], c[6] = q[0], q[1], q[2], q[3]
	}
}

// Difference gives d = a ⊖ b: translation a.t − b.t and the world rotation
// vector of a.q b.q⁻¹.
func (Rigid3Template) Difference(d, a, b []float64) {
	n := len(a) / 7
	for i := 0; i < n; i++ {
		ca, cb, di := a[7*i:7*i+7], b[7*i:7*i+7], d[6*i:6*i+6]
		di[0], di[1], di[2] = ca[0]-cb[0], ca[1]-cb[1], ca[2]-cb[2]
		qa := geom.Quat{ca[3], ca[4], ca[5], ca[6]}
		qb := geom.Quat{cb[3], cb[4], cb[5], cb[6]}
		r := qa.Mul(qb.Conj()).RotVec()
		di[3], di[4], di[5] = r[0], r[1], r[2]
	}
}

// Normalize makes every quaternion unit length.
func (Rigid3Template) Normalize(x []float64) {
	n := len(x) / 7
	for i := 0; i < n; i++ {
		c := x[7*i : 7*i+7]
		q := geom.Quat{c[3], c[4], c[5], c[6]}.Normalized()
		c[3], c[4], c[5], c[6] = q[0], q[1], q[2], q[3]
	}
}

// CheckCoord implements CoordChecker: the orientation [x y z w] of a
// frame given by a scene must be a finite, non-zero quaternion. One that is
// not of unit length (beyond 1e-9, what typing about ten significant digits
// leaves) is normalised, and the change is described for a note.
func (Rigid3Template) CheckCoord(c []float64) (string, error) {
	q := geom.Quat{c[3], c[4], c[5], c[6]}
	scale := 0.0
	for _, x := range q {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return "", fmt.Errorf("orientation quaternion %v is not finite", fmtQuat(q))
		}
		scale = math.Max(scale, math.Abs(x))
	}
	if scale == 0 {
		return "", fmt.Errorf("orientation quaternion [x, y, z, w] = %v is zero: it gives no orientation (the identity is [0, 0, 0, 1])", fmtQuat(q))
	}
	s := geom.Quat{q[0] / scale, q[1] / scale, q[2] / scale, q[3] / scale}
	norm := scale * s.Norm() // no overflow or underflow for any finite q
	if math.Abs(norm-1) <= 1e-9 {
		return "", nil
	}
	u := geom.Quat{s[0] / s.Norm(), s[1] / s.Norm(), s[2] / s.Norm(), s[3] / s.Norm()}
	return fmt.Sprintf("orientation quaternion %v has length %.9g, not 1; normalised to %v", fmtQuat(q), norm, fmtQuat(u)), nil
}

func fmtQuat(q geom.Quat) string {
	return fmt.Sprintf("[%g, %g, %g, %g]", q[0], q[1], q[2], q[3])
}

// CoordChecker is implemented by templates whose coordinates must satisfy
// a constraint that a scene can break (Rigid3: the orientation is a unit
// quaternion). CheckCoord looks at one coordinate as a scene gives it: an
// error when it cannot be made valid (a zero quaternion has no
// orientation), else a description of what Normalize will change ("" when
// nothing beyond rounding), which MechanicalObject records as a note.
type CoordChecker interface {
	CheckCoord(c []float64) (change string, err error)
}

// Built-in templates.
var (
	Vec1   Template = VecTemplate{"Vec1", 1}
	Vec3   Template = VecTemplate{"Vec3", 3}
	Rigid3 Template = Rigid3Template{}
)

func init() {
	RegisterTemplate(Vec1)
	RegisterTemplate(Vec3)
	RegisterTemplate(Rigid3)
}

func checkLen(what string, got, want int) error {
	if got != want {
		return fmt.Errorf("%s has %d numbers, want %d", what, got, want)
	}
	return nil
}
