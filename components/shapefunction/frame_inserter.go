package shapefunction

import (
	"errors"
	"fmt"
	"math"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
)

// FrameInserter adds a frame to a running frame-based model (Gilles et al.
// 2011 Sec. 4.4): at the first step starting at or after time, at the
// material point currently at point (world, deformed configuration).
//
// Steps (Insert does them, also callable from Go at any time):
//
//  1. Find the rest position X* of the material point at p* by Newton's
//     method on the skinning map, X ← X + F(X)⁻¹ (p* − x(X)), starting
//     from the sample (of the skinning mappings fed by the frames) whose
//     current position is nearest p*, until |p* − x(X)| < tolerance
//     (1e-5 m, the paper's criterion; it "typically converges in 3
//     iterations"). x and F come from the scene's own skinning mapping
//     (Deform), so the inversion follows linear blend or dual-quaternion
//     skinning, whichever the scene uses.
//  2. Append a frame to the frames' state (State.Resize): rest origin X*,
//     identity rest orientation (linear part). The shape function splits
//     the weight of the frame dominating X* (ShapeFunctionBase.
//     InsertFrame), and the new frame starts with that parent's motion
//     (T_new T̄_new⁻¹ = T_parent T̄_parent⁻¹, and the velocity of a point
//     rigidly attached to it), so every material point keeps its position
//     and velocity to rounding: nothing jumps (TestFrameInsertionNoJump).
//     Its current origin is where the parent frame carries X*, which is
//     p* itself up to the blend's deviation from the parent's motion.
//  3. Re-initialise what depends on the frames: the sparse samplers are
//     reset, every mapping fed by the frames is re-initialised (Reinit:
//     new weights, sample positions, resized child states), then every
//     object in the mapped nodes that has a Reinit (the sample force
//     field: volumes, moduli), and the frames' mass (FrameMass.Reinit).
//
// After the insertion the new frame moves freely and adds local
// flexibility where its share of the weight is positive.
type FrameInserter struct {
	graph.ObjectBase
	Time          float64    `toml:"time" doc:"simulated time of the insertion (the first step starting at or after it)" unit:"s" range:"[0,inf)"`
	Point         [3]float64 `toml:"point" doc:"current (deformed) position of the material point that gets the new frame" unit:"m" required:"true"`
	Frames        graph.Link `toml:"frames" doc:"state of the frames (default: the mechanical state of this node)"`
	ShapeFunction graph.Link `toml:"shapeFunction" doc:"shape function of the frames (default: the first in this node or an ancestor)"`
	Tolerance     float64    `toml:"tolerance" doc:"Newton stops when the point is reached within this distance" unit:"m" range:"(0,inf)"`

	done   bool
	report InsertionReport
}

// InsertionReport describes an insertion.
type InsertionReport struct {
	Target       geom.Vec3 // p*
	RestPoint    geom.Vec3 // X*
	Frame        int       // index of the new frame
	Parent       int       // frame whose weight it split
	Iterations   int       // Newton iterations
	Residual     float64   // |p* − x(X*)|
	FrameOrigin  geom.Vec3 // current origin of the new frame
	StartSample  int       // the sample Newton started from
	StartDist    float64   // its distance to p*
	MappingsInit int       // mappings re-initialised
}

func init() {
	graph.Register(graph.TypeInfo{
		Name:    "FrameInserter",
		Kind:    graph.KindBehavior,
		Summary: "Inserts a frame at run time (Gilles et al. 2011 Sec. 4.4) at the material point currently at point: Newton inversion of the skinning map from the nearest sample, weight split from the dominant frame (no material point jumps), mappings, samples, force fields and masses re-initialised.",
		New:     func() graph.Object { return &FrameInserter{Tolerance: 1e-5} },
	})
}

// Report returns the last insertion's report.
func (f *FrameInserter) Report() InsertionReport { return f.report }

// Done reports whether the scripted insertion happened.
func (f *FrameInserter) Done() bool { return f.done }

// BeginStep implements graph.Behavior.
func (f *FrameInserter) BeginStep(t, dt float64) error {
	if f.done || t < f.Time-0.5*dt {
		return nil
	}
	f.done = true
	_, err := f.Insert(geom.Vec3(f.Point))
	return err
}

// skinning is what the inserter needs of a skinning mapping.
type skinning interface {
	graph.Mapping
	Deform(X geom.Vec3, frames []int, weights []float64, grads []geom.Vec3) (geom.Vec3, geom.Mat3)
	RestPoints() []float64
	Reinit() error
}

func (f *FrameInserter) state() (graph.State, error) {
	if f.Frames.IsSet() {
		if st, ok := f.Frames.Object.(graph.State); ok {
			return st, nil
		}
		return nil, fmt.Errorf("frames %q is not a mechanical state", f.Frames.Path)
	}
	if f.Node == nil || f.Node.State() == nil {
		return nil, errors.New("no frames' state: put the FrameInserter in the frames' node or give frames")
	}
	return f.Node.State(), nil
}

func (f *FrameInserter) shapeFunction() (frameInsertable, error) {
	if f.ShapeFunction.IsSet() {
		sf, ok := f.ShapeFunction.Object.(frameInsertable)
		if !ok {
			return nil, fmt.Errorf("shapeFunction %q is not a shape function of this package (Shepard, Harmonic or Voronoi)", f.ShapeFunction.Path)
		}
		return sf, nil
	}
	for n := f.Node; n != nil; n = n.Parent {
		for _, o := range n.Objects {
			if sf, ok := o.(frameInsertable); ok {
				return sf, nil
			}
		}
	}
	return nil, errors.New("no shape function: give shapeFunction or put one in this node or an ancestor")
}

// Insert adds a frame at the material point currently at p (see the type's
// documentation) and returns the report.
func (f *FrameInserter) Insert(p geom.Vec3) (InsertionReport, error) {
	rep, err := f.insert(p)
	f.report = rep
	if err != nil {
		return rep, f.Wrap(fmt.Errorf("inserting a frame at %v: %w", p, err))
	}
	return rep, nil
}

func (f *FrameInserter) insert(p geom.Vec3) (InsertionReport, error) {
	rep := InsertionReport{Target: p, Frame: -1, Parent: -1}
	st, err := f.state()
	if err != nil {
		return rep, err
	}
	sf, err := f.shapeFunction()
	if err != nil {
		return rep, err
	}
	tmpl := st.Template().Name()
	if tmpl != graph.Rigid3.Name() && tmpl != graph.Affine3.Name() {
		return rep, fmt.Errorf("frames' state %q has template %s; frames are Rigid3 or Affine3 (frames cannot be inserted among quadratic frames)", st.Base().Path(), tmpl)
	}
	// The mappings fed by the frames, anywhere in the scene.
	var maps []skinning
	root := f.Node
	for root.Parent != nil {
		root = root.Parent
	}
	root.Walk(func(n *graph.Node) error {
		if m, ok := n.Mapping().(skinning); ok && m.From() == st {
			maps = append(maps, m)
		}
		return nil
	})
	if len(maps) == 0 {
		return rep, errors.New("no skinning mapping reads the frames' state")
	}
	// 1. Newton inversion from the nearest sample.
	x := st.Vec(graph.Position)
	for _, m := range maps {
		m.Apply(m.To().Vec(graph.Position), x) // linearise at the current frames
	}
	m := maps[0]
	deform := func(X geom.Vec3) (geom.Vec3, geom.Mat3, error) {
		sw, err := sf.WeightsAt(X[:])
		if err != nil {
			return geom.Vec3{}, geom.Mat3{}, err
		}
		fr, w, g := sw.Influences(0)
		xp, F := m.Deform(X, fr, w, g)
		return xp, F, nil
	}
	best, bestD := -1, math.Inf(1)
	var X geom.Vec3
	for _, mm := range maps {
		rest := mm.RestPoints()
		sw, err := sf.WeightsAt(rest)
		if err != nil {
			return rep, err
		}
		for s := 0; s < len(rest)/3; s++ {
			fr, w, g := sw.Influences(s)
			xs, _ := m.Deform(geom.At(rest, s), fr, w, g)
			if d := xs.Sub(p).Norm(); d < bestD {
				best, bestD, X = s, d, geom.At(rest, s)
			}
		}
	}
	rep.StartSample, rep.StartDist = best, bestD
	var xp geom.Vec3
	var F geom.Mat3
	for it := 0; ; it++ {
		xp, F, err = deform(X)
		if err != nil {
			return rep, err
		}
		rep.Residual = p.Sub(xp).Norm()
		rep.Iterations = it
		if rep.Residual < f.Tolerance {
			break
		}
		if it == 50 {
			return rep, fmt.Errorf("Newton's method did not find the material point: |p* − x(X)| = %.3g after 50 iterations (is the point inside the object?)", rep.Residual)
		}
		Finv, ok := F.Inverse()
		if !ok {
			return rep, fmt.Errorf("the deformation gradient is singular at X = %v", X)
		}
		X = X.Add(Finv.MulVec(p.Sub(xp)))
	}
	rep.RestPoint = X
	// 2. The new frame, then the weight split and the parent's motion.
	n := st.Size()
	st.Resize(n + 1)
	cs, ds := st.Template().CoordSize(), st.Template().DerivSize()
	rest := st.Vec(graph.RestPosition)
	nr := rest[cs*n : cs*n+cs]
	clear(nr)
	copy(nr, X[:])
	if tmpl == graph.Rigid3.Name() {
		nr[6] = 1
	} else {
		nr[3], nr[7], nr[11] = 1, 1, 1
	}
	parent, err := sf.InsertFrame()
	if err != nil {
		st.Resize(n)
		return rep, err
	}
	rep.Frame, rep.Parent = n, parent
	pr := rest[cs*parent : cs*parent+cs]
	pos, vel := st.Vec(graph.Position), st.Vec(graph.Velocity)
	pc, pv := pos[cs*parent:cs*parent+cs], vel[ds*parent:ds*parent+ds]
	nc, nv := pos[cs*n:cs*n+cs], vel[ds*n:ds*n+ds]
	tBar := geom.Vec3{pr[0], pr[1], pr[2]}
	tP := geom.Vec3{pc[0], pc[1], pc[2]}
	if tmpl == graph.Rigid3.Name() {
		qRel := geom.Quat{pc[3], pc[4], pc[5], pc[6]}.Mul(geom.Quat{pr[3], pr[4], pr[5], pr[6]}.Conj())
		origin := qRel.Rotate(X.Sub(tBar)).Add(tP)
		copy(nc, origin[:])
		nc[3], nc[4], nc[5], nc[6] = qRel[0], qRel[1], qRel[2], qRel[3]
		w := geom.Vec3{pv[3], pv[4], pv[5]}
		v := geom.Vec3{pv[0], pv[1], pv[2]}.Add(w.Cross(origin.Sub(tP)))
		copy(nv, v[:])
		copy(nv[3:6], w[:])
		rep.FrameOrigin = origin
	} else {
		Abar, ok := geom.Mat3(pr[3:12]).Inverse()
		if !ok {
			return rep, fmt.Errorf("frame %d has a singular rest linear part", parent)
		}
		Arel := geom.Mat3(pc[3:12]).Mul(Abar)
		origin := Arel.MulVec(X.Sub(tBar)).Add(tP)
		copy(nc, origin[:])
		copy(nc[3:12], Arel[:])
		dA := geom.Mat3(pv[3:12]).Mul(Abar)
		v := dA.MulVec(X.Sub(tBar)).Add(geom.Vec3{pv[0], pv[1], pv[2]})
		copy(nv, v[:])
		copy(nv[3:12], dA[:])
		rep.FrameOrigin = origin
	}
	// 3. Re-initialise what depends on the frames.
	root.Walk(func(nd *graph.Node) error {
		for _, o := range nd.Objects {
			if s, ok := o.(*SparseSampler); ok {
				s.Reset()
			}
		}
		return nil
	})
	for _, mm := range maps {
		if err := mm.Reinit(); err != nil {
			return rep, fmt.Errorf("re-initialising %q: %w", mm.Base().Path(), err)
		}
		rep.MappingsInit++
		child := mm.To().Base().Node
		err := child.Walk(func(nd *graph.Node) error {
			for _, o := range nd.Objects {
				if o == graph.Object(mm) {
					continue
				}
				if r, ok := o.(interface{ Reinit() error }); ok {
					if _, isMap := o.(graph.Mapping); isMap && nd != child {
						continue // deeper mappings read their own parents, unchanged in size
					}
					if err := r.Reinit(); err != nil {
						return fmt.Errorf("re-initialising %q: %w", o.Base().Path(), err)
					}
				}
			}
			return nil
		})
		if err != nil {
			return rep, err
		}
	}
	if fn := st.Base().Node; fn != nil {
		for _, o := range fn.Objects {
			if r, ok := o.(*FrameMass); ok {
				if err := r.Reinit(); err != nil {
					return rep, err
				}
			}
		}
	}
	return rep, nil
}
