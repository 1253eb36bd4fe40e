package springnet

// ElementWork is the scratch space of element evaluations (reused across
// calls, so evaluating allocates nothing once it has grown).
type ElementWork struct {
	Links []Link // the element's gaps at the last evaluation
	e     []float64
	sig   []float64
	G     []float64 // ∂e/∂x, 6g × 6m
	QG    []float64
	T     [12][12]float64
}

func (w *ElementWork) grow(g int) {
	if cap(w.Links) < g {
		w.Links = make([]Link, g)
	}
	w.Links = w.Links[:g]
	w.e = resize(w.e, 6*g)
	w.sig = resize(w.sig, 6*g)
	m := g + 1
	w.G = resize(w.G, 36*g*m)
	w.QG = resize(w.QG, 36*g*m)
}

func resize(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}

// gaps updates the links at x (Rigid3 coordinates of every frame) and
// returns the stacked gaps and σ = Q e.
func (el *Element) gaps(x []float64, jacobian bool, w *ElementWork) float64 {
	g := el.Size()
	w.grow(g)
	base := BodyAt(x, el.Frames[0])
	for a := 0; a < g; a++ {
		l := &w.Links[a]
		l.Update(base, BodyAt(x, el.Frames[a+1]), el.Attach[a][0], el.Attach[a][1], jacobian)
		copy(w.e[6*a:6*a+6], l.G[:])
	}
	n := 6 * g
	W := 0.0
	for r := 0; r < n; r++ {
		s := 0.0
		row := el.Q[r*n : r*n+n]
		for c, q := range row {
			s += q * w.e[c]
		}
		w.sig[r] = s
		W += w.e[r] * s
	}
	return 0.5 * W
}

// Energy returns W = ½ eᵀ Q e at x (Rigid3 coordinates of every frame).
func (el *Element) Energy(x []float64, w *ElementWork) float64 { return el.gaps(x, false, w) }

// Evaluate adds the element's forces at x to f (derivative layout of the
// whole state, 6 per frame) and, when K is not nil, writes its exact
// tangent (6m×6m, row-major, frames in the order of Frames) into K. It
// returns the energy.
//
// Each gap e_a is a Link between the base and frame a, so with σ = Q e
// the force is −Σ_a J_aᵀ σ_a and the tangent −(Gᵀ Q G + Σ_a T_a(σ_a)),
// G = ∂e/∂x the stacked Jacobians.
func (el *Element) Evaluate(x, f, K []float64, w *ElementWork) float64 {
	W := el.gaps(x, K != nil, w)
	g := el.Size()
	m := g + 1
	M := 6 * m
	var grad [12]float64
	fb := f[6*el.Frames[0] : 6*el.Frames[0]+6]
	for a := 0; a < g; a++ {
		grad = [12]float64{}
		sig := (*[6]float64)(w.sig[6*a : 6*a+6])
		w.Links[a].AddGradient(sig, &grad)
		fa := f[6*el.Frames[a+1] : 6*el.Frames[a+1]+6]
		for i := 0; i < 6; i++ {
			fb[i] -= grad[i]
			fa[i] -= grad[6+i]
		}
	}
	if K == nil {
		return W
	}
	// G: rows of gap a; columns 0–5 the base, 6(a+1)… frame a.
	clear(w.G)
	for a := 0; a < g; a++ {
		J := &w.Links[a].J
		for r := 0; r < 6; r++ {
			row := w.G[(6*a+r)*M : (6*a+r)*M+M]
			copy(row[0:6], J[r][0:6])
			copy(row[6*(a+1):6*(a+1)+6], J[r][6:12])
		}
	}
	// K = −Gᵀ Q G, using that row k of G (gap a = k/6) is zero outside the
	// base's columns and frame a's.
	n := 6 * g
	for r := 0; r < n; r++ {
		out := w.QG[r*M : r*M+M]
		clear(out)
		for k := 0; k < n; k++ {
			q := el.Q[r*n+k]
			if q == 0 {
				continue
			}
			src := w.G[k*M : k*M+M]
			o := 6 * (k/6 + 1)
			for c := 0; c < 6; c++ {
				out[c] += q * src[c]
				out[o+c] += q * src[o+c]
			}
		}
	}
	clear(K[:M*M])
	for k := 0; k < n; k++ {
		gk := w.G[k*M : k*M+M]
		qg := w.QG[k*M : k*M+M]
		o := 6 * (k/6 + 1)
		for i := 0; i < 12; i++ {
			r := i
			if i >= 6 {
				r = o + i - 6
			}
			a := gk[r]
			if a == 0 {
				continue
			}
			row := K[r*M : r*M+M]
			for c, v := range qg {
				row[c] -= a * v
			}
		}
	}
	for a := 0; a < g; a++ {
		w.T = [12][12]float64{}
		sig := (*[6]float64)(w.sig[6*a : 6*a+6])
		w.Links[a].AddCurvature(sig, &w.T)
		idx := [12]int{0, 1, 2, 3, 4, 5}
		for i := 0; i < 6; i++ {
			idx[6+i] = 6*(a+1) + i
		}
		for r := 0; r < 12; r++ {
			for c := 0; c < 12; c++ {
				K[idx[r]*M+idx[c]] -= w.T[r][c]
			}
		}
	}
	return W
}
