package collision

import (
	"fmt"
	"math"

	"github.com/sofago/sofago/geom"
)

// Penalty holds the contact law every obstacle and the object–object
// contacts share; components embed it, so its fields are theirs in a scene.
//
// A contact has a penetration depth δ (> 0 when penetrating) along a unit
// normal n pointing out of the obstacle (the direction the contact pushes).
// The elastic part is the quadratic penalty of the lecture notes
// (Bender, Koschier et al., "Physically-based simulation", I.c):
//
//	W = γ/2 ((x − b)·n)² = γ/2 δ²   while δ > 0,
//
// with b a point of the obstacle's surface. The normal force is
//
//	λ = γ δ − c v_n,  f = max(λ, 0) n,   v_n = v_rel·n,
//
// a linear dashpot c on the normal relative velocity, clamped so the
// contact never pulls (no adhesion when separating fast). The tangent of
// that force, exact where the contact does not switch (δ = 0 or λ = 0), is
//
//	∂f/∂x = −γ n nᵀ − c n (H v)ᵀ + λ H,   ∂f/∂v = −c n nᵀ,
//
// H = ∂n/∂x the curvature of the obstacle at the contact (zero for planes,
// boxes and triangle faces; (I − nnᵀ)/r for a sphere of radius r).
//
// Friction is Coulomb's, regularised: with the tangential relative velocity
// u = P v_rel (P = I − n nᵀ),
//
//	f_t = −μ λ_e tanh(|u|/v_s) u/|u|,
//
// μ the friction coefficient, v_s the slip velocity below which friction
// turns viscous (slope μλ_e/v_s), λ_e = γδ the elastic normal force. λ_e,
// n and the set of contacts with friction are lagged: taken at the start
// of the step (at contact detection) and held for the step, as IPC does
// (Li et al. 2020, "Incremental Potential Contact", §5): f_t is then a
// function of the velocity only during the step, its velocity derivative
//
//	∂f_t/∂v = −μ λ_e P (a (I − t tᵀ) + b t tᵀ) P,  t = u/|u|,
//	a = tanh(|u|/v_s)/|u|,  b = (1 − tanh²(|u|/v_s))/v_s,
//
// is symmetric negative semi-definite and goes into AddDForce as the
// b-term, and the tangent stays exact and symmetric (a friction force
// depending on the current δ would add a non-symmetric μγ t nᵀ block that
// conjugate gradients cannot take). A block at rest on a slope of angle θ
// with tan θ < μ creeps at v_s·atanh(tan θ/μ): choose v_s below the
// drift a scene can accept. Explicit solvers need h < 2 m v_s/(μ λ_e)
// per contact (the viscous regime is stiff); implicit solvers take the
// b-term into the system and have no such limit.
type Penalty struct {
	Stiffness    float64 `toml:"stiffness" doc:"penalty stiffness γ per contact point: normal force γ·δ at penetration δ" unit:"N/m" range:"(0,inf)" required:"true"`
	Damping      float64 `toml:"damping" doc:"normal dashpot c: normal force γδ − c·v_n while in contact, never pulling" unit:"N·s/m" range:"[0,inf)"`
	Friction     float64 `toml:"friction" doc:"Coulomb friction coefficient μ (0: frictionless)" range:"[0,inf)"`
	SlipVelocity float64 `toml:"slipVelocity" doc:"regularisation of friction: below this tangential speed friction is viscous, μ·λ·tanh(|u|/slipVelocity); a resting contact creeps at about slipVelocity" unit:"m/s" range:"(0,inf)"`
}

// defaultPenalty is the Penalty every component starts from.
func defaultPenalty() Penalty { return Penalty{SlipVelocity: 1e-3} }

// check validates the fields once decoded (ranges are checked by the
// loader; this catches code that builds components directly).
func (p *Penalty) check() error {
	if !(p.Stiffness > 0) || math.IsInf(p.Stiffness, 0) {
		return fmt.Errorf("stiffness = %g must be positive and finite", p.Stiffness)
	}
	if !(p.Damping >= 0) || !(p.Friction >= 0) {
		return fmt.Errorf("damping = %g and friction = %g must be non-negative", p.Damping, p.Friction)
	}
	if !(p.SlipVelocity > 0) {
		return fmt.Errorf("slipVelocity = %g must be positive", p.SlipVelocity)
	}
	return nil
}

// frictionCoefficients returns a = tanh(r/s)/r and b = sech²(r/s)/s for the
// tangential speed r = |u| and slip velocity s: the friction direction
// function g(u) = tanh(|u|/s) u/|u| = a·u has the derivative
// a (I − t tᵀ) + b t tᵀ. Near r = 0 the series tanh(y)/y = 1 − y²/3 + …
// keeps a finite (both tend to 1/s).
func frictionCoefficients(r, s float64) (a, b float64) {
	y := r / s
	if y < 1e-4 {
		y2 := y * y
		return (1 - y2/3) / s, (1 - y2) / s
	}
	th := math.Tanh(y)
	return th / r, (1 - th*th) / s
}

// frictionForce returns the regularised Coulomb force −μλ·g(u) on the
// tangential velocity u = P v (P = I − n nᵀ) and the cache AddDForce needs.
func frictionForce(mu, lambda, slip float64, n, v geom.Vec3) (f geom.Vec3, c frictionCache) {
	u := v.Sub(n.Scale(n.Dot(v)))
	r := u.Norm()
	a, b := frictionCoefficients(r, slip)
	c = frictionCache{scale: mu * lambda, a: a, b: b}
	if r > 0 {
		c.t = u.Scale(1 / r)
	}
	return u.Scale(-c.scale * a), c
}

// frictionCache is what the velocity derivative of one friction force
// needs: −scale·P (a (I − t tᵀ) + b t tᵀ) P.
type frictionCache struct {
	t     geom.Vec3
	scale float64 // μ λ_e
	a, b  float64
}

// dForce returns ∂f_t/∂v · dv for the lagged normal n.
func (c *frictionCache) dForce(n, dv geom.Vec3) geom.Vec3 {
	du := dv.Sub(n.Scale(n.Dot(dv)))
	td := c.t.Dot(du)
	// a (du − t(t·du)) + b t (t·du); the result is tangential already
	// (du and t are), so the outer P changes nothing.
	g := du.Scale(c.a).Add(c.t.Scale((c.b - c.a) * td))
	return g.Scale(-c.scale)
}

// matrix returns factor·∂f_t/∂v for the lagged normal n, the matrix dForce
// applies: −factor·scale (a P + (b − a) t (P t)ᵀ), P = I − n nᵀ. t is
// tangential, so P t = t up to rounding and the matrix is symmetric; P t
// is kept so that the entries are dForce's to rounding even where the
// tangential speed is tiny next to the normal one (t·n is then rounding
// divided by |u|).
func (c *frictionCache) matrix(n geom.Vec3, factor float64) geom.Mat3 {
	var g geom.Mat3
	s := -factor * c.scale
	pt := c.t.Sub(n.Scale(n.Dot(c.t)))
	for r := 0; r < 3; r++ {
		for q := 0; q < 3; q++ {
			p := -n[r] * n[q]
			if r == q {
				p++
			}
			g[3*r+q] = s * (c.a*p + (c.b-c.a)*c.t[r]*pt[q])
		}
	}
	return g
}
