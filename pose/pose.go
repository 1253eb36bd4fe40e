// Package pose authors example poses from a rest mesh by twisting, bending or
// scaling a region of it, so that example-based shape matching (Koyama et
// al. 2012; components/shapematching) can be tried without a modeller. Each
// deformation acts on a slab of the mesh along an axis — the points whose
// axial coordinate s = p·axis lies in [From, To] — and moves the part beyond
// the slab rigidly, so the result is continuous and, for moderate angles and
// factors, keeps every tetrahedron positive (Check reports those that are
// not). cmd/posegen is the command-line front end.
package pose

import (
	"fmt"
	"math"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/meshio"
)

// Deformation maps a rest position to a deformed one.
type Deformation interface {
	Apply(p geom.Vec3) geom.Vec3
	// Validate reports a malformed deformation (zero axis, empty slab, ...).
	Validate() error
}

// Twist rotates the slab From ≤ p·Axis ≤ To about the line through Center
// along Axis by an angle growing linearly from 0 at From to Angle (radians,
// right-handed about Axis) at To; points beyond To rotate rigidly by Angle,
// points before From stay.
type Twist struct {
	Center   geom.Vec3 // a point of the twist axis
	Axis     geom.Vec3 // direction of the axis (normalised here)
	From, To float64   // slab, in axial coordinates p·Axis/|Axis|
	Angle    float64   // total twist over the slab, radians
}

// Bend bends the slab From ≤ p·Axis ≤ To into a circular arc of total angle
// Angle (radians) turning toward Toward: the neutral line through Center
// along Axis keeps its length (radius (To − From)/Angle), material on the
// Toward side is compressed and the opposite side stretched, as a beam bends
// (Barr 1984's bend). Points beyond To follow the end of the arc rigidly,
// points before From stay.
type Bend struct {
	Center   geom.Vec3 // a point of the neutral line
	Axis     geom.Vec3 // direction of the neutral line (normalised here)
	Toward   geom.Vec3 // direction the slab bends to (its part along Axis is removed)
	From, To float64   // slab, in axial coordinates
	Angle    float64   // total bend angle, radians (negative: away from Toward)
}

// Scale scales the slab From ≤ p·Axis ≤ To: distances to the line through
// Center along Axis by Lateral, lengths along the axis by Axial; the part
// beyond To is shifted along the axis to stay attached. With Blend = 0 the
// closed slab is scaled and the layers of cells next to it take the jump;
// with Blend > 0 both factors ramp linearly from 1 over a width Blend at
// each end of the slab, so the transition is smooth instead of a kink.
type Scale struct {
	Center   geom.Vec3
	Axis     geom.Vec3
	From, To float64
	Lateral  float64 // factor on the distance to the axis
	Axial    float64 // factor on lengths along the axis
	Blend    float64 // ramp width at each end of the slab (0: sharp)
}

// Bulge bows the walls of a block outward, as a block compressed along
// Axis buckles: in the slab From ≤ p·Axis ≤ To (the block's height),
// offsets along Out (a direction across the axis, made perpendicular to
// it) from the plane through Center grow by the factor
// 1 + Amount·sin(π t), t = (p·Axis − From)/(To − From) the relative height
// (no growth at the slab's ends, Amount at mid-height), and heights within
// the slab shrink by the factor Axial (the part beyond To moves down with
// the slab's end). A non-zero Across confines the bulge to the band
// AcrossFrom ≤ p·Across ≤ AcrossTo, both effects ramping in smoothly
// (smoothstep) over Blend inside its edges, so that a local example
// changes the mesh only there; a zero Across bulges the whole slab.
type Bulge struct {
	Center               geom.Vec3
	Axis, Out, Across    geom.Vec3
	From, To             float64 // slab along Axis
	AcrossFrom, AcrossTo float64 // band along Across (when Across ≠ 0)
	Blend                float64 // ramp width at the band's edges
	Amount               float64 // growth of the offsets along Out at mid-height
	Axial                float64 // height factor within the slab (1: none)
}

func unit(a geom.Vec3, what string) (geom.Vec3, error) {
	n := a.Norm()
	if !(n > 0) || math.IsInf(n, 0) {
		return geom.Vec3{}, fmt.Errorf("%s %v must be a non-zero finite vector", what, a)
	}
	return a.Scale(1 / n), nil
}

func checkSlab(from, to float64) error {
	if !(to > from) || math.IsInf(from, 0) || math.IsInf(to, 0) {
		return fmt.Errorf("slab from %g to %g: need from < to, both finite", from, to)
	}
	return nil
}

func finite(name string, x float64) error {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return fmt.Errorf("%s = %g must be finite", name, x)
	}
	return nil
}

// Validate implements Deformation.
func (t Twist) Validate() error {
	if _, err := unit(t.Axis, "axis"); err != nil {
		return err
	}
	if err := finite("angle", t.Angle); err != nil {
		return err
	}
	return checkSlab(t.From, t.To)
}

// Apply implements Deformation.
func (t Twist) Apply(p geom.Vec3) geom.Vec3 {
	a, _ := unit(t.Axis, "axis")
	s := p.Dot(a)
	f := math.Min(1, math.Max(0, (s-t.From)/(t.To-t.From)))
	if f == 0 {
		return p
	}
	q := geom.QuatFromRotVec(a.Scale(f * t.Angle))
	return t.Center.Add(q.Rotate(p.Sub(t.Center)))
}

// Validate implements Deformation.
func (b Bend) Validate() error {
	a, err := unit(b.Axis, "axis")
	if err != nil {
		return err
	}
	if _, err := unit(b.Toward.Sub(a.Scale(b.Toward.Dot(a))), "toward (perpendicular to the axis)"); err != nil {
		return err
	}
	if err := finite("angle", b.Angle); err != nil {
		return err
	}
	return checkSlab(b.From, b.To)
}

// Apply implements Deformation.
func (b Bend) Apply(p geom.Vec3) geom.Vec3 {
	a, _ := unit(b.Axis, "axis")
	n, _ := unit(b.Toward.Sub(a.Scale(b.Toward.Dot(a))), "toward")
	s := p.Dot(a)
	if s <= b.From || b.Angle == 0 {
		return p
	}
	// Coordinates: s along a (absolute), u along n from the neutral line,
	// w the rest (unchanged).
	rel := p.Sub(b.Center)
	u := rel.Dot(n)
	w := rel.Sub(a.Scale(rel.Dot(a))).Sub(n.Scale(u))
	start := b.Center.Add(a.Scale(b.From - b.Center.Dot(a))) // neutral line at s = From
	l := b.To - b.From
	rho := l / b.Angle
	centre := start.Add(n.Scale(rho))
	// radial(φ) points from the arc's centre to the neutral line at angle φ.
	radial := func(phi float64) geom.Vec3 {
		return a.Scale(math.Sin(phi)).Sub(n.Scale(math.Cos(phi)))
	}
	if s <= b.To {
		phi := b.Angle * (s - b.From) / l
		return centre.Add(radial(phi).Scale(rho - u)).Add(w)
	}
	th := b.Angle
	end := centre.Add(radial(th).Scale(rho))
	tangent := a.Scale(math.Cos(th)).Add(n.Scale(math.Sin(th)))
	normal := n.Scale(math.Cos(th)).Sub(a.Scale(math.Sin(th)))
	return end.Add(tangent.Scale(s - b.To)).Add(normal.Scale(u)).Add(w)
}

// Validate implements Deformation.
func (sc Scale) Validate() error {
	if _, err := unit(sc.Axis, "axis"); err != nil {
		return err
	}
	if err := checkSlab(sc.From, sc.To); err != nil {
		return err
	}
	if !(sc.Lateral > 0) || !(sc.Axial > 0) || math.IsInf(sc.Lateral, 0) || math.IsInf(sc.Axial, 0) {
		return fmt.Errorf("scale factors lateral = %g, axial = %g must be positive and finite", sc.Lateral, sc.Axial)
	}
	if !(sc.Blend >= 0) || sc.Blend > (sc.To-sc.From)/2 {
		return fmt.Errorf("blend = %g must be in [0, (to − from)/2 = %g]", sc.Blend, (sc.To-sc.From)/2)
	}
	return nil
}

// profile returns the ramp φ(s) ∈ [0, 1] of the slab and its integral
// Φ(s) = ∫_From^s φ: a trapezoid rising over [From, From+Blend], 1 in the
// middle, falling over [To−Blend, To].
func (sc Scale) profile(s float64) (phi, integral float64) {
	a1, a4, bl := sc.From, sc.To, sc.Blend
	a2, a3 := a1+bl, a4-bl
	if bl == 0 { // sharp: the closed slab is scaled, nothing else
		switch {
		case s < a1:
			return 0, 0
		case s <= a4:
			return 1, s - a1
		}
		return 0, a4 - a1
	}
	switch {
	case s <= a1:
		return 0, 0
	case s <= a2:
		return (s - a1) / bl, (s - a1) * (s - a1) / (2 * bl)
	case s <= a3:
		return 1, bl/2 + (s - a2)
	case s <= a4:
		d := s - a3
		return 1 - d/bl, bl/2 + (a3 - a2) + d - d*d/(2*bl)
	}
	return 0, (a4 - a1) - bl
}

// Apply implements Deformation.
func (sc Scale) Apply(p geom.Vec3) geom.Vec3 {
	a, _ := unit(sc.Axis, "axis")
	s := p.Dot(a)
	phi, integral := sc.profile(s)
	rel := p.Sub(sc.Center)
	lat := rel.Sub(a.Scale(rel.Dot(a)))
	shift := (sc.Axial - 1) * integral
	return p.Add(a.Scale(shift)).Add(lat.Scale((sc.Lateral - 1) * phi))
}

// Validate implements Deformation.
func (b Bulge) Validate() error {
	a, err := unit(b.Axis, "axis")
	if err != nil {
		return err
	}
	if _, err := unit(b.Out.Sub(a.Scale(b.Out.Dot(a))), "out (perpendicular to the axis)"); err != nil {
		return err
	}
	if err := checkSlab(b.From, b.To); err != nil {
		return err
	}
	if b.Across != (geom.Vec3{}) {
		if _, err := unit(b.Across, "across"); err != nil {
			return err
		}
		if err := checkSlab(b.AcrossFrom, b.AcrossTo); err != nil {
			return fmt.Errorf("across band: %w", err)
		}
		if !(b.Blend >= 0) || b.Blend > (b.AcrossTo-b.AcrossFrom)/2 {
			return fmt.Errorf("blend = %g must be in [0, (ato − afrom)/2 = %g]", b.Blend, (b.AcrossTo-b.AcrossFrom)/2)
		}
	}
	if err := finite("amount", b.Amount); err != nil {
		return err
	}
	if !(b.Amount > -1) {
		return fmt.Errorf("amount = %g must exceed −1 (the walls would cross)", b.Amount)
	}
	if !(b.Axial > 0) || math.IsInf(b.Axial, 0) {
		return fmt.Errorf("axial = %g must be positive and finite", b.Axial)
	}
	return nil
}

// window returns the band's weight at p: 1 inside, 0 outside, smoothstep
// over Blend inside the edges (1 everywhere when Across is zero).
func (b Bulge) window(p geom.Vec3) float64 {
	if b.Across == (geom.Vec3{}) {
		return 1
	}
	c, _ := unit(b.Across, "across")
	s := p.Dot(c)
	if s < b.AcrossFrom || s > b.AcrossTo {
		return 0
	}
	if b.Blend == 0 {
		return 1
	}
	r := math.Min(1, math.Min(s-b.AcrossFrom, b.AcrossTo-s)/b.Blend)
	return r * r * (3 - 2*r)
}

// Apply implements Deformation.
func (b Bulge) Apply(p geom.Vec3) geom.Vec3 {
	a, _ := unit(b.Axis, "axis")
	n, _ := unit(b.Out.Sub(a.Scale(b.Out.Dot(a))), "out")
	wgt := b.window(p)
	if wgt == 0 {
		return p
	}
	s := p.Dot(a)
	t := math.Min(1, math.Max(0, (s-b.From)/(b.To-b.From)))
	// Height: s ↦ From + (s − From)·f within the slab, shifted by
	// (To − From)(f − 1) beyond it, with f = 1 + (Axial − 1)·w.
	f := 1 + (b.Axial-1)*wgt
	ds := (math.Min(math.Max(s, b.From), b.To) - b.From) * (f - 1)
	o := p.Sub(b.Center).Dot(n)
	do := o * b.Amount * math.Sin(math.Pi*t) * wgt
	return p.Add(a.Scale(ds)).Add(n.Scale(do))
}

// Apply returns the points (flat x y z) moved by the deformations in
// order.
func Apply(points []float64, ds ...Deformation) ([]float64, error) {
	for k, d := range ds {
		if err := d.Validate(); err != nil {
			return nil, fmt.Errorf("deformation %d (%T): %w", k, d, err)
		}
	}
	out := make([]float64, len(points))
	for i := 0; i+2 < len(points); i += 3 {
		p := geom.Vec3{points[i], points[i+1], points[i+2]}
		for _, d := range ds {
			p = d.Apply(p)
		}
		out[i], out[i+1], out[i+2] = p[0], p[1], p[2]
	}
	return out, nil
}

// Mesh returns a copy of the rest mesh with its points moved by the
// deformations, and the indices of the tetrahedra the deformation inverted
// or flattened (volume ≤ 0), which an example pose should not have.
func Mesh(rest *meshio.Mesh, ds ...Deformation) (*meshio.Mesh, []int, error) {
	pts, err := Apply(rest.Points, ds...)
	if err != nil {
		return nil, nil, err
	}
	out := &meshio.Mesh{Name: rest.Name, Points: pts,
		Tetrahedra: append([][4]int(nil), rest.Tetrahedra...),
		Triangles:  append([][3]int(nil), rest.Triangles...)}
	var bad []int
	for e := range out.Tetrahedra {
		if !(out.TetVolume(e) > 0) {
			bad = append(bad, e)
		}
	}
	return out, bad, nil
}

// Bounds returns the low and high corners of the points' bounding box.
func Bounds(points []float64) (lo, hi geom.Vec3) {
	for a := 0; a < 3; a++ {
		lo[a], hi[a] = math.Inf(1), math.Inf(-1)
	}
	for i := 0; i+2 < len(points); i += 3 {
		for a := 0; a < 3; a++ {
			lo[a] = math.Min(lo[a], points[i+a])
			hi[a] = math.Max(hi[a], points[i+a])
		}
	}
	return lo, hi
}
