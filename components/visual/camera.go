package visual

import (
	"fmt"
	"math"

	"github.com/sofago/sofago/graph"
)

// Camera sets the view of the scene's pictures (runscene -frames, -picture,
// -gif): a perspective camera at `position` looking at `lookAt`, with `up`
// pointing up in the picture. What is not given is fitted to a box when
// the first picture is taken — `box`, or else the bounds of the visual
// surfaces at that time: lookAt defaults to the box's centre, position to
// a point along `direction` from lookAt far enough that the whole box is
// in view. The view then stays fixed for the whole run, so an animation
// whose object moves far from where it starts needs `box` (the region the
// motion covers). The ground grid is drawn under the box, or on the
// scene's PlaneForceField around the box's footprint. runscene's -eye
// and -center flags override position and lookAt. At most one Camera per
// scene.
type Camera struct {
	graph.ObjectBase
	Position    []float64  `toml:"position" doc:"eye position (default: fitted along direction so that every visual surface is in view)" unit:"m"`
	LookAt      []float64  `toml:"lookAt" doc:"point at the centre of the picture (default: the centre of the visual surfaces' bounds)" unit:"m"`
	Direction   [3]float64 `toml:"direction" doc:"direction from lookAt toward the eye, when position is fitted"`
	Up          []float64  `toml:"up" doc:"direction that points up in the picture (default: against gravity, or +y without gravity)"`
	FieldOfView float64    `toml:"fieldOfView" doc:"vertical field of view" unit:"deg" range:"(0,170]"`
	Margin      float64    `toml:"margin" doc:"fraction of the picture left free around the fitted bounds, on each side" range:"[0,0.45]"`
	Box         []float64  `toml:"box" doc:"region to keep in view and draw the ground grid under (or, with a PlaneForceField, around), [xmin, ymin, zmin, xmax, ymax, zmax] (default: the visual surfaces' bounds at the first picture, with the nearby obstacles and their shadow on the ground)" unit:"m"`
}

func init() {
	graph.Register(graph.TypeInfo{
		Name:    "Camera",
		Kind:    graph.KindVisual,
		Summary: "The view of the scene's pictures (runscene -frames, -picture, -gif): eye position, target, up direction and field of view; what is not given is fitted to the visual surfaces' bounds.",
		New: func() graph.Object {
			return &Camera{Direction: [3]float64{0.45, 0.35, 1}, FieldOfView: 30, Margin: 0.08}
		},
	})
}

// Validate checks the vectors.
func (c *Camera) Validate() error {
	for _, f := range []struct {
		name string
		v    []float64
	}{{"position", c.Position}, {"lookAt", c.LookAt}, {"up", c.Up}} {
		if f.v != nil && len(f.v) != 3 {
			return fmt.Errorf("%s has %d numbers, want 3 (x, y, z)", f.name, len(f.v))
		}
	}
	if c.Box != nil {
		if len(c.Box) != 6 {
			return fmt.Errorf("box has %d numbers, want 6: [xmin, ymin, zmin, xmax, ymax, zmax]", len(c.Box))
		}
		for a := 0; a < 3; a++ {
			if !(c.Box[a] <= c.Box[a+3]) {
				return fmt.Errorf("box: min %g > max %g on axis %d", c.Box[a], c.Box[a+3], a)
			}
		}
	}
	norm := func(v []float64) float64 { return math.Sqrt(v[0]*v[0] + v[1]*v[1] + v[2]*v[2]) }
	if norm(c.Direction[:]) == 0 && c.Position == nil {
		return fmt.Errorf("direction is zero; give the direction from lookAt toward the eye")
	}
	if c.Up != nil && norm(c.Up) == 0 {
		return fmt.Errorf("up is zero")
	}
	if c.Position != nil && c.LookAt != nil && c.Position[0] == c.LookAt[0] && c.Position[1] == c.LookAt[1] && c.Position[2] == c.LookAt[2] {
		return fmt.Errorf("position and lookAt are the same point")
	}
	return nil
}

// Init checks that the scene has one camera.
func (c *Camera) Init() error {
	if err := c.Validate(); err != nil {
		return err
	}
	var first *Camera
	c.Node.Scene().Root.Walk(func(n *graph.Node) error {
		for _, o := range n.Objects {
			if cam, ok := o.(*Camera); ok && first == nil {
				first = cam
			}
		}
		return nil
	})
	if first != c {
		return fmt.Errorf("the scene already has camera %q; pictures have one view", first.Path())
	}
	return nil
}

// FindCamera returns the scene's camera, or nil.
func FindCamera(s *graph.Scene) *Camera {
	var cam *Camera
	s.Root.Walk(func(n *graph.Node) error {
		for _, o := range n.Objects {
			if c, ok := o.(*Camera); ok && cam == nil {
				cam = c
			}
		}
		return nil
	})
	return cam
}
