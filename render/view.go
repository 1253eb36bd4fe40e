// Package render draws a scene's visual surfaces into pictures with a
// software rasteriser (github.com/fogleman/fauxgl): no GPU, no display.
// It gives PNG frames, an animated GIF of a run, and an energy-versus-time
// plot (gonum.org/v1/plot); runscene's -frames, -picture, -gif and -plot
// flags use it.
//
// A picture shows every visual.Surface of the scene (VisualModel and any
// other component that implements it) shaded by two directional lights,
// optionally with its triangle edges, the axes of rigid and affine frames
// under which nothing else is drawn, and the static obstacles (Obstacle,
// GroundPlane: a plane as a flat patch carrying the ground grid, else the
// grid under the surfaces), seen by a perspective camera that the scene's
// Camera component sets or that is fitted to the surfaces' bounds.
package render

import (
	"fmt"
	"math"

	"github.com/fogleman/fauxgl"
	"github.com/sofago/sofago/geom"
)

// View is a perspective camera and a picture size: the projection every
// picture of a run uses, and that tests use to predict where a point
// appears.
type View struct {
	Eye, Center, Up geom.Vec3
	FovY            float64 // vertical field of view, degrees
	Width, Height   int     // picture size, pixels
	Near, Far       float64 // clipping distances along the view axis

	matrix fauxgl.Matrix // clip-space transform: perspective · look-at
}

// NewView builds a view; near and far are the clipping distances (0 <
// near < far).
func NewView(eye, center, up geom.Vec3, fovY float64, width, height int, near, far float64) (*View, error) {
	v := &View{Eye: eye, Center: center, Up: up, FovY: fovY, Width: width, Height: height, Near: near, Far: far}
	if err := v.update(); err != nil {
		return nil, err
	}
	return v, nil
}

func (v *View) update() error {
	fwd := v.Center.Sub(v.Eye)
	switch {
	case v.Width < 1 || v.Height < 1:
		return fmt.Errorf("picture size %d×%d", v.Width, v.Height)
	case fwd.Norm() == 0:
		return fmt.Errorf("camera eye and target are the same point %v", v.Eye)
	case fwd.Cross(v.Up).Norm() <= 1e-9*fwd.Norm()*v.Up.Norm():
		return fmt.Errorf("camera up direction %v is parallel to the view direction %v", v.Up, fwd)
	case !(v.FovY > 0 && v.FovY < 180):
		return fmt.Errorf("field of view %g° is not in (0°, 180°)", v.FovY)
	case !(v.Near > 0 && v.Far > v.Near):
		return fmt.Errorf("clipping distances near %g, far %g", v.Near, v.Far)
	}
	aspect := float64(v.Width) / float64(v.Height)
	v.matrix = fauxgl.Perspective(v.FovY, aspect, v.Near, v.Far).Mul(fauxgl.LookAt(vec(v.Eye), vec(v.Center), vec(v.Up)))
	return nil
}

// Project returns where world point p appears in the picture: pixel
// coordinates x to the right and y down from the top-left corner of the
// picture (pixel (i, j) covers [i, i+1)×[j, j+1), its centre at i+½, j+½,
// which is where the rasteriser samples), and the depth in [0, 1] (0 at
// the near plane). ok is false for a point behind the eye.
func (v *View) Project(p geom.Vec3) (x, y, depth float64, ok bool) {
	c := v.matrix.MulPositionW(vec(p))
	if c.W <= 0 {
		return 0, 0, 0, false
	}
	nx, ny, nz := c.X/c.W, c.Y/c.W, c.Z/c.W
	// fauxgl.Screen: x = (nx+1)·w/2, y = (1−ny)·h/2, z = (nz+1)/2.
	return (nx + 1) * float64(v.Width) / 2, (1 - ny) * float64(v.Height) / 2, (nz + 1) / 2, true
}

// FitView returns a view of the box [lo, hi] from direction dir (from the
// target toward the eye), with the given up direction, field of view and
// picture size: the eye looks at center (the box centre when nil) from
// the nearest distance at which all eight corners project inside the
// picture with a margin (a fraction of the picture on each side). Near and
// far enclose the box and the ground grid drawn below it.
func FitView(lo, hi geom.Vec3, center *geom.Vec3, dir, up geom.Vec3, fovY float64, width, height int, margin float64) (*View, error) {
	c := lo.Add(hi).Scale(0.5)
	if center != nil {
		c = *center
	}
	if dir.Norm() == 0 {
		return nil, fmt.Errorf("camera direction is zero")
	}
	d := dir.Normalized()
	if d.Cross(up).Norm() < 1e-6 {
		// Looking straight down or up: any up across the view will do.
		up = d.Cross(geom.Vec3{1, 0, 0})
		if up.Norm() < 1e-6 {
			up = d.Cross(geom.Vec3{0, 0, 1})
		}
	}
	size := hi.Sub(lo).Norm()
	if size == 0 {
		size = 1
	}
	corners := make([]geom.Vec3, 0, 8)
	for i := 0; i < 8; i++ {
		corners = append(corners, geom.Vec3{pick(i&1, lo[0], hi[0]), pick(i&2, lo[1], hi[1]), pick(i&4, lo[2], hi[2])})
	}
	fits := func(dist float64) bool {
		v := &View{Eye: c.Add(d.Scale(dist)), Center: c, Up: up, FovY: fovY, Width: width, Height: height,
			Near: dist * 1e-3, Far: dist + 10*size}
		if v.update() != nil {
			return false
		}
		mx, my := margin*float64(width), margin*float64(height)
		for _, p := range corners {
			x, y, _, ok := v.Project(p)
			if !ok || x < mx || x > float64(width)-mx || y < my || y > float64(height)-my {
				return false
			}
			// In front of the eye by a clear distance.
			if p.Sub(v.Eye).Dot(d.Scale(-1)) < 1e-3*size {
				return false
			}
		}
		return true
	}
	// Bisection on the distance: fits is monotone (farther shrinks the
	// picture of the box toward its centre's image).
	a, b := 0.0, size
	for !fits(b) {
		a, b = b, 2*b
		if b > 1e6*size {
			return nil, fmt.Errorf("cannot fit the scene's bounds in the picture (margin %g too large?)", margin)
		}
	}
	for i := 0; i < 50; i++ {
		m := 0.5 * (a + b)
		if fits(m) {
			b = m
		} else {
			a = m
		}
	}
	near := math.Max(b-2*size, b*1e-3)
	return NewView(c.Add(d.Scale(b)), c, up, fovY, width, height, near, b+10*size)
}

func pick(bit int, a, b float64) float64 {
	if bit != 0 {
		return b
	}
	return a
}

func vec(v geom.Vec3) fauxgl.Vector { return fauxgl.Vector{X: v[0], Y: v[1], Z: v[2]} }
