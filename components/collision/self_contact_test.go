package collision

import (
	"testing"

	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/meshio"
)

// oneSurfaceScene puts one triangle surface, as one collision model, under
// a solver with a pipeline.
func oneSurfaceScene(t *testing.T, points []float64, tris [][3]int, self bool, alarm float64) *CollisionPipeline {
	s := graph.NewScene("self")
	world := s.Root.AddChild("world")
	world.Add(&idleSolver{graph.ObjectBase{Name: "solver"}})
	pl := &CollisionPipeline{Penalty: Penalty{Stiffness: 1e4, SlipVelocity: 1e-3}, ContactDistance: alarm}
	pl.Name = "pipeline"
	world.Add(pl)
	n := world.AddChild("object")
	n.Add(&surfaceTopology{ObjectBase: graph.ObjectBase{Name: "surface"}, points: points, tris: tris})
	n.Add(graph.NewMechanicalObject("dofs", graph.Vec3, 0))
	n.Add(&TriangleCollisionModel{ObjectBase: graph.ObjectBase{Name: "collision"}, SelfCollision: self})
	if err := s.Init(); err != nil {
		t.Fatal(err)
	}
	return pl
}

// TestSelfContact checks the optional self-contact: a surface never
// touches itself through its own neighbourhoods (one sphere with
// selfCollision on has no contact, even with contactDistance as large as
// its edges), and two overlapping parts of one surface (two spheres in one
// mesh) find exactly the contacts two separate models find. Off by
// default: the same two-sphere surface without selfCollision has none.
func TestSelfContact(t *testing.T) {
	const r, depth, alarm = 0.1, 0.01, 0.01
	one, err := meshio.SphereSurface(r, 40, 21)
	if err != nil {
		t.Fatal(err)
	}
	pl := oneSurfaceScene(t, one.Points, one.Triangles, true, 0.03)
	if n := len(pl.interactions[0].set.list); n != 0 {
		t.Errorf("one sphere with self-contact: %d contacts, want 0", n)
	}
	// Two spheres in one surface, centred as in twoSpheresScene.
	var pts []float64
	var tris [][3]int
	for _, cx := range []float64{-(r - depth/2), r - depth/2} {
		base := len(pts) / 3
		for i := 0; i < one.NumPoints(); i++ {
			pts = append(pts, one.Points[3*i]+cx, one.Points[3*i+1], one.Points[3*i+2])
		}
		for _, tr := range one.Triangles {
			tris = append(tris, [3]int{tr[0] + base, tr[1] + base, tr[2] + base})
		}
	}
	self := oneSurfaceScene(t, pts, tris, true, alarm)
	_, two := twoSpheresScene(t, r, 40, 21, depth, alarm)
	ns, ds := self.ContactStats()
	nt, dt := two.ContactStats()
	t.Logf("self-contact: %d contacts (largest %.4g mm); two models: %d (largest %.4g mm)", ns, ds*1e3, nt, dt*1e3)
	if ns != nt || ds != dt || len(self.interactions[0].set.list) != len(two.interactions[0].set.list) {
		t.Errorf("self-contact found %d contacts (%d candidates), two models %d (%d)", ns, len(self.interactions[0].set.list), nt, len(two.interactions[0].set.list))
	}
	off := oneSurfaceScene(t, pts, tris, false, alarm)
	if len(off.interactions) != 0 || len(off.pairs) != 0 {
		t.Errorf("self-contact off: %d interactions, %d pairs", len(off.interactions), len(off.pairs))
	}
}
