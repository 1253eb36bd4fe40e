package meshio

import (
	"fmt"
	"math"
)

// Closed test surfaces (sphere, capsule, torus), triangulated with outward
// orientation and shared vertices: cmd/surfacegen writes them as STL/OBJ
// files for the scenes, and the voxelizer tests tetrahedralise them. Their
// enclosed volume (EnclosedVolume) is that of the polyhedron, a little
// less than the smooth shape's, which the test comments quantify.

// SphereSurface returns a sphere of the given radius centred at the origin,
// as a latitude–longitude triangulation about the x axis: around segments
// per ring and rings+1 latitudes from pole to pole (poles at x = ±radius).
func SphereSurface(radius float64, around, rings int) (*Mesh, error) {
	if !(radius > 0) || around < 3 || rings < 2 {
		return nil, fmt.Errorf("sphere: need radius > 0, around ≥ 3, rings ≥ 2 (got %g, %d, %d)", radius, around, rings)
	}
	profile := make([][2]float64, rings+1)
	for k := range profile {
		th := math.Pi * float64(k) / float64(rings)
		profile[k] = [2]float64{-radius * math.Cos(th), radius * math.Sin(th)}
	}
	profile[0][1], profile[rings][1] = 0, 0
	return revolutionSurface(profile, around), nil
}

// CapsuleSurface returns a capsule: a cylinder of the given radius whose
// axis runs along x from 0 to length, closed by two hemispheres (so it
// spans x ∈ [−radius, length + radius]). around is the number of segments
// per ring, capRings the number of latitude steps per hemisphere,
// bodyRings the number of steps along the cylinder.
func CapsuleSurface(radius, length float64, around, capRings, bodyRings int) (*Mesh, error) {
	if !(radius > 0) || !(length >= 0) || around < 3 || capRings < 1 || bodyRings < 1 {
		return nil, fmt.Errorf("capsule: need radius > 0, length ≥ 0, around ≥ 3, capRings ≥ 1, bodyRings ≥ 1 (got %g, %g, %d, %d, %d)",
			radius, length, around, capRings, bodyRings)
	}
	var profile [][2]float64
	for k := 0; k <= capRings; k++ { // left hemisphere, pole to equator
		th := 0.5 * math.Pi * float64(k) / float64(capRings)
		profile = append(profile, [2]float64{-radius * math.Cos(th), radius * math.Sin(th)})
	}
	profile[0][1] = 0
	profile[capRings] = [2]float64{0, radius}
	for s := 1; s <= bodyRings; s++ { // cylinder
		profile = append(profile, [2]float64{length * float64(s) / float64(bodyRings), radius})
	}
	for k := 1; k <= capRings; k++ { // right hemisphere, equator to pole
		th := 0.5 * math.Pi * float64(k) / float64(capRings)
		profile = append(profile, [2]float64{length + radius*math.Sin(th), radius * math.Cos(th)})
	}
	profile[len(profile)-1][1] = 0
	return revolutionSurface(profile, around), nil
}

// revolutionSurface turns a profile (x, ρ) about the x axis, from a pole
// (ρ = 0) to a pole, into a closed triangulated surface with around
// segments per ring: (x, ρ cos φ, ρ sin φ). Vertices: the first pole, the
// rings in profile order, the last pole. Triangles are ordered so that
// ∂φ × ∂profile, the outward normal, is their normal.
func revolutionSurface(profile [][2]float64, around int) *Mesh {
	K := len(profile) - 1
	m := &Mesh{}
	m.Points = append(m.Points, profile[0][0], 0, 0)
	for k := 1; k < K; k++ {
		for j := 0; j < around; j++ {
			phi := 2 * math.Pi * float64(j) / float64(around)
			m.Points = append(m.Points, profile[k][0], profile[k][1]*math.Cos(phi), profile[k][1]*math.Sin(phi))
		}
	}
	m.Points = append(m.Points, profile[K][0], 0, 0)
	last := K*around - around + 1 // index of the last pole
	ring := func(k, j int) int {  // vertex j of ring k, poles for k = 0, K
		switch k {
		case 0:
			return 0
		case K:
			return last
		}
		return 1 + (k-1)*around + j%around
	}
	for k := 0; k < K; k++ {
		for j := 0; j < around; j++ {
			a, b := ring(k, j), ring(k, j+1)
			c, d := ring(k+1, j+1), ring(k+1, j)
			if k > 0 {
				m.Triangles = append(m.Triangles, [3]int{a, b, c})
			}
			if k < K-1 {
				m.Triangles = append(m.Triangles, [3]int{a, c, d})
			}
		}
	}
	return m
}

// TorusSurface returns a torus about the z axis centred at the origin:
// the circle of radius minor, centred at distance major from the axis in
// the xz plane, swept about z; majorSegments around the z axis and
// minorSegments around the tube.
func TorusSurface(major, minor float64, majorSegments, minorSegments int) (*Mesh, error) {
	if !(minor > 0) || !(major > minor) || majorSegments < 3 || minorSegments < 3 {
		return nil, fmt.Errorf("torus: need major > minor > 0, segments ≥ 3 (got %g, %g, %d, %d)", major, minor, majorSegments, minorSegments)
	}
	m := &Mesh{}
	for i := 0; i < majorSegments; i++ {
		u := 2 * math.Pi * float64(i) / float64(majorSegments)
		for j := 0; j < minorSegments; j++ {
			v := 2 * math.Pi * float64(j) / float64(minorSegments)
			rho := major + minor*math.Cos(v)
			m.Points = append(m.Points, rho*math.Cos(u), rho*math.Sin(u), minor*math.Sin(v))
		}
	}
	q := func(i, j int) int { return (i%majorSegments)*minorSegments + j%minorSegments }
	for i := 0; i < majorSegments; i++ {
		for j := 0; j < minorSegments; j++ {
			// ∂u × ∂v points outwards.
			m.Triangles = append(m.Triangles,
				[3]int{q(i, j), q(i+1, j), q(i+1, j+1)},
				[3]int{q(i, j), q(i+1, j+1), q(i, j+1)})
		}
	}
	return m, nil
}
