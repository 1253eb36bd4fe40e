package springnet

import (
	"errors"
	"fmt"
	"math"

	"github.com/sofago/sofago/geom"
)

// Element is one elastic element of a precomputed network (Gilles et al.
// 2011, Sec. 4.3, generalised): a set of m ≥ 2 frames, Frames[0] the base,
// and for each other frame a a hinge joining it to the base (Attach[a−1]:
// the hinge on the base and on frame a; at rest halfway between the two
// origins, with the world axes, fixed to each frame: m_k = q_k ∘ q̄_k⁻¹ ∘ m̄).
// Its gaps e_a (springnet.Link: the relative pose of the two hinge frames
// in the hinge frame between them) carry the energy
//
//	W = ½ Σ_{a,c} e_aᵀ Q_ac e_c,    Q symmetric, 6(m−1) × 6(m−1),
//
// frame invariant, with exact forces and tangent. An element of two frames
// is a generalized joint spring (Q = S, eq. 24–25).
//
// Joint is set by the pair decomposition only: the joint stiffness K̄_m of
// eq. 18, moved from the off-diagonal block K̄_IJ of the rest stiffness
// (force on I from a displacement of J, both expressed at the frames'
// origins) to the hinge:
//
//	K̄_m = D(−l̄_I)ᵀ K̄_IJ D(−l̄_J),   l̄_k = t̄_k − t̄_m,
//
// in the project's derivative order [v; ω] (the paper writes [ω; v]), with
// D(l) = [I [l]×; 0 I] the change of the point a 6-D displacement is
// expressed at (eq. 16: the displacement at t_m of a rigid motion [v; ω]
// given at t_j is v + l_j × ω). With K = ∂f/∂x negative semi-definite the
// off-diagonal block, and so K̄_m, is the spring's positive stiffness; the
// diagonal blocks carry the minus sign (eq. 21–22). Q is its symmetric
// part; WarpedTangent uses it whole.
type Element struct {
	Frames []int
	Attach [][2]Attachment
	Q      []float64
	Joint  *[6][6]float64
}

// Size returns the number of gaps, m − 1.
func (e *Element) Size() int { return len(e.Frames) - 1 }

// Asymmetry returns ‖K̄_m − K̄_mᵀ‖ / ‖K̄_m + K̄_mᵀ‖ (Frobenius) of a pair
// element's joint stiffness (0 for clusters): the part of the off-diagonal
// block no spring between the two frames can carry (see Network).
func (e *Element) Asymmetry() float64 {
	if e.Joint == nil {
		return 0
	}
	a, b := 0.0, 0.0
	for i := 0; i < 6; i++ {
		for j := 0; j < 6; j++ {
			d, p := e.Joint[i][j]-e.Joint[j][i], e.Joint[i][j]+e.Joint[j][i]
			a += d * d
			b += p * p
		}
	}
	if b == 0 {
		return 0
	}
	return math.Sqrt(a / b)
}

// Network is a precomputed generalized spring network between the Rigid3
// frames of a frame-based model (Gilles et al. 2011, Sec. 4.3), built
// once from the model's rest stiffness K̄ (Algorithm 1, eq. 12).
//
// Two decompositions of K̄ into elements:
//
//   - Pairs (BuildPairs, the paper's): one spring per pair of frames whose
//     weights overlap, from the off-diagonal block (eq. 16–18). A spring's
//     energy depends on the relative pose of its two frames only, so its
//     rest stiffness has off-diagonal block D(l_I)ᵀ S D(l_J) with S
//     symmetric. The sampled material's blocks D(l_I)ᵀ K̄_m D(l_J) have a
//     symmetric K̄_m only when every sample sees the two frames' weight
//     gradients parallel (at most two frames per sample, or ν = 1/4 where
//     λ = μ); otherwise the antisymmetric part, an interaction of three
//     frames sharing samples, cannot be carried by any pair spring (moving
//     the hinge does not help: D(a)ᵀ K̄_m D(a) keeps it). The paper's force
//     (eq. 24–25) indeed only sees K_m + K_mᵀ; the springs use
//     S = ½(K̄_m + K̄_mᵀ), and only the warped tangent (WarpedTangent,
//     eq. 19–23) reproduces K̄ at rest.
//   - Clusters (BuildClusters): one element per set of frames that
//     influence the same samples, from the stiffness of those samples
//     alone, K̄_C (each sample's energy is invariant under rigid motions of
//     its frames, so K̄_C is too). The base is the cluster's frame nearest
//     its centroid, so that every gap spans one frame spacing (measured on
//     scenes/frames_springs.toml: within 3% of the sampled model up to 3 g
//     with the central base, 2 g with the first frame as base). Q_C is K̄_C
//     restricted to the non-base frames and moved to the hinges:
//     Q = −D(−l)ᵀ K̄_C D(−l) blockwise, which
//     fixes K̄_C entirely (a symmetric matrix annihilating the rigid
//     motions is determined by that block). Σ_C K̄_C = K̄, so the network's
//     rest stiffness is K̄ exactly, for any number of frames per sample,
//     with conservative forces and an exact tangent.
type Network struct {
	NumFrames int
	Elements  []Element
}

// hingeAttachments returns the hinge halfway between the rest frames bi
// and bj, with the world axes, as seen from each.
func hingeAttachments(bi, bj Body) [2]Attachment {
	tm := bi.T.Add(bj.T).Scale(0.5)
	return [2]Attachment{
		{Offset: bi.Q.Conj().Rotate(tm.Sub(bi.T)), Rot: bi.Q.Conj()},
		{Offset: bj.Q.Conj().Rotate(tm.Sub(bj.T)), Rot: bj.Q.Conj()},
	}
}

// dMatrix returns D(l) = [I [l]×; 0 I].
func dMatrix(l geom.Vec3) [6][6]float64 {
	var D [6][6]float64
	for i := 0; i < 6; i++ {
		D[i][i] = 1
	}
	S := l.Skew()
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			D[i][3+j] = S[3*i+j]
		}
	}
	return D
}

func mul6(A, B *[6][6]float64) [6][6]float64 {
	var C [6][6]float64
	for i := 0; i < 6; i++ {
		for k := 0; k < 6; k++ {
			a := A[i][k]
			if a == 0 {
				continue
			}
			for j := 0; j < 6; j++ {
				C[i][j] += a * B[k][j]
			}
		}
	}
	return C
}

func transpose6(A *[6][6]float64) [6][6]float64 {
	var T [6][6]float64
	for i := 0; i < 6; i++ {
		for j := 0; j < 6; j++ {
			T[i][j] = A[j][i]
		}
	}
	return T
}

func checkRest(rest []float64) (int, error) {
	if len(rest)%7 != 0 || len(rest) == 0 {
		return 0, fmt.Errorf("springnet: %d rest coordinates is not a positive multiple of 7", len(rest))
	}
	return len(rest) / 7, nil
}

// BuildPairs makes the paper's network of the frames with Rigid3 rest
// coordinates rest (7 per frame) from their rest stiffness K (6n×6n,
// row-major, derivative layout [v ω] per frame; K = ∂f/∂x, the
// sample-integrated stiffness of Gilles eq. 12 at rest): one spring per
// listed pair (i < j), the pairs of frames whose weights overlap
// (eq. 16–18).
func BuildPairs(rest []float64, K []float64, pairs [][2]int) (*Network, error) {
	n, err := checkRest(rest)
	if err != nil {
		return nil, err
	}
	if len(K) != 36*n*n {
		return nil, fmt.Errorf("springnet: stiffness has %d entries, want (6·%d)² = %d", len(K), n, 36*n*n)
	}
	net := &Network{NumFrames: n}
	N := 6 * n
	for _, p := range pairs {
		i, j := p[0], p[1]
		if i < 0 || j >= n || i >= j {
			return nil, fmt.Errorf("springnet: pair (%d, %d) is not i < j < %d", i, j, n)
		}
		bi, bj := BodyAt(rest, i), BodyAt(rest, j)
		tm := bi.T.Add(bj.T).Scale(0.5)
		var B [6][6]float64
		for a := 0; a < 6; a++ {
			for b := 0; b < 6; b++ {
				B[a][b] = K[(6*i+a)*N+6*j+b]
			}
		}
		Di, Dj := dMatrix(tm.Sub(bi.T)), dMatrix(tm.Sub(bj.T)) // D(−l̄_i), D(−l̄_j)
		DiT := transpose6(&Di)
		tmp := mul6(&B, &Dj)
		joint := mul6(&DiT, &tmp)
		e := Element{Frames: []int{i, j}, Attach: [][2]Attachment{hingeAttachments(bi, bj)}, Q: make([]float64, 36), Joint: &joint}
		for a := 0; a < 6; a++ {
			for b := 0; b < 6; b++ {
				e.Q[6*a+b] = 0.5 * (joint[a][b] + joint[b][a])
			}
		}
		net.Elements = append(net.Elements, e)
	}
	return net, nil
}

// Cluster is the rest stiffness of the samples influenced by one set of
// frames: Frames (sorted, at least two) and K (6m×6m, row-major, in the
// order of Frames).
type Cluster struct {
	Frames []int
	K      []float64
}

// BuildClusters makes the network with one element per cluster (see
// Network) from the rest frames (Rigid3 coordinates, 7 per frame). An
// element lists its base first, so its frames are in another order than
// the cluster's.
func BuildClusters(rest []float64, clusters []Cluster) (*Network, error) {
	n, err := checkRest(rest)
	if err != nil {
		return nil, err
	}
	net := &Network{NumFrames: n}
	for ci, c := range clusters {
		m := len(c.Frames)
		if m < 2 {
			return nil, fmt.Errorf("springnet: cluster %d has %d frame(s)", ci, m)
		}
		if len(c.K) != 36*m*m {
			return nil, fmt.Errorf("springnet: cluster %d: stiffness has %d entries, want %d", ci, len(c.K), 36*m*m)
		}
		for k, f := range c.Frames {
			if f < 0 || f >= n || (k > 0 && f <= c.Frames[k-1]) {
				return nil, fmt.Errorf("springnet: cluster %d: frames %v are not sorted distinct indices below %d", ci, c.Frames, n)
			}
		}
		// Base: the frame nearest the cluster's centroid, so that every gap
		// spans as little of the solid as possible.
		order := make([]int, m) // positions in c.Frames, base first
		var cen geom.Vec3
		for _, f := range c.Frames {
			cen = cen.Add(BodyAt(rest, f).T)
		}
		cen = cen.Scale(1 / float64(m))
		b := 0
		for k, f := range c.Frames {
			if BodyAt(rest, f).T.Sub(cen).Norm() < BodyAt(rest, c.Frames[b]).T.Sub(cen).Norm() {
				b = k
			}
		}
		order[0] = b
		for k, o := 0, 1; k < m; k++ {
			if k != b {
				order[o] = k
				o++
			}
		}
		e := Element{}
		for _, k := range order {
			e.Frames = append(e.Frames, c.Frames[k])
		}
		base := BodyAt(rest, e.Frames[0])
		g := m - 1
		e.Q = make([]float64, 36*g*g)
		Dinv := make([][6][6]float64, g) // D(−l_a), l_a = t̄_a − t̄_m(a)
		for a := 1; a < m; a++ {
			ba := BodyAt(rest, e.Frames[a])
			e.Attach = append(e.Attach, hingeAttachments(base, ba))
			tm := base.T.Add(ba.T).Scale(0.5)
			Dinv[a-1] = dMatrix(tm.Sub(ba.T))
		}
		M := 6 * m
		for a := 0; a < g; a++ {
			DaT := transpose6(&Dinv[a])
			for b := 0; b < g; b++ {
				var blk [6][6]float64
				ra, rb := order[a+1], order[b+1]
				for r := 0; r < 6; r++ {
					for s := 0; s < 6; s++ {
						blk[r][s] = c.K[(6*ra+r)*M+6*rb+s]
					}
				}
				t := mul6(&blk, &Dinv[b])
				q := mul6(&DaT, &t)
				for r := 0; r < 6; r++ {
					for s := 0; s < 6; s++ {
						e.Q[(6*a+r)*6*g+6*b+s] = -q[r][s]
					}
				}
			}
		}
		net.Elements = append(net.Elements, e)
	}
	return net, nil
}

// OverlapPairs lists the pairs (i < j) of frames that both influence at
// least one point, from per-point frame lists (the frames of each sample),
// sorted.
func OverlapPairs(numFrames int, framesOfPoint func(p int) []int, numPoints int) ([][2]int, error) {
	seen := make([]bool, numFrames*numFrames)
	for p := 0; p < numPoints; p++ {
		fs := framesOfPoint(p)
		for a, i := range fs {
			if i < 0 || i >= numFrames {
				return nil, fmt.Errorf("springnet: point %d: frame %d is out of range (%d frames)", p, i, numFrames)
			}
			for _, j := range fs[a+1:] {
				lo, hi := min(i, j), max(i, j)
				if lo != hi {
					seen[lo*numFrames+hi] = true
				}
			}
		}
	}
	var pairs [][2]int
	for i := 0; i < numFrames; i++ {
		for j := i + 1; j < numFrames; j++ {
			if seen[i*numFrames+j] {
				pairs = append(pairs, [2]int{i, j})
			}
		}
	}
	return pairs, nil
}

// WarpedTangent writes the warped stiffness of one spring (Gilles et al.
// 2011, eq. 19–23) into K (12×12, row-major, frames I then J, [v ω] each):
// the joint stiffness rotated to the current hinge frame,
// K_m = ℛ_m K̄_m ℛ_mᵀ (eq. 19, ℛ_m = diag(R_m, R_m)), and the blocks
//
//	K_IJ = D(l_I)ᵀ K_m D(l_J),      K_JI = D(l_J)ᵀ K_mᵀ D(l_I),    (eq. 20, 23)
//	K_II = −D(l_I)ᵀ S_m D(l_I),     K_JJ = −D(l_J)ᵀ S_m D(l_J),    (eq. 21, 22)
//
// with l_k = t_k − t_m (current origins and hinge point) and S_m the
// symmetric part of K_m. The paper's diagonal blocks use K_mᵀ and K_m;
// their sums over the springs of a frame equal those of S_m at rest (the
// rest stiffness is symmetric), and S_m keeps every block symmetric when
// the hinges turn differently, so the matrix stays symmetric for
// conjugate gradients. It is not the derivative of the force (it ignores
// the turning of the hinge frame and of the arms); Evaluate's tangent is.
func WarpedTangent(joint *[6][6]float64, Rm geom.Mat3, li, lj geom.Vec3, K *[12][12]float64) {
	// K_m = ℛ K̄ ℛᵀ.
	var Km [6][6]float64
	var R6 [6][6]float64
	for a := 0; a < 3; a++ {
		for b := 0; b < 3; b++ {
			R6[a][b] = Rm[3*a+b]
			R6[3+a][3+b] = Rm[3*a+b]
		}
	}
	R6T := transpose6(&R6)
	tmp := mul6(joint, &R6T)
	Km = mul6(&R6, &tmp)
	KmT := transpose6(&Km)
	var Sm [6][6]float64
	for a := 0; a < 6; a++ {
		for b := 0; b < 6; b++ {
			Sm[a][b] = 0.5 * (Km[a][b] + KmT[a][b])
		}
	}
	Di, Dj := dMatrix(li), dMatrix(lj)
	DiT, DjT := transpose6(&Di), transpose6(&Dj)
	block := func(L, M, Rt *[6][6]float64, sign float64, r0, c0 int) {
		t := mul6(M, Rt)
		b := mul6(L, &t)
		for a := 0; a < 6; a++ {
			for c := 0; c < 6; c++ {
				K[r0+a][c0+c] = sign * b[a][c]
			}
		}
	}
	block(&DiT, &Km, &Dj, 1, 0, 6)
	block(&DjT, &KmT, &Di, 1, 6, 0)
	block(&DiT, &Sm, &Di, -1, 0, 0)
	block(&DjT, &Sm, &Dj, -1, 6, 6)
}

// Check verifies a network against the number of frames it is used with.
func (n *Network) Check(numFrames int) error {
	if n == nil {
		return errors.New("springnet: no network")
	}
	if n.NumFrames != numFrames {
		return fmt.Errorf("springnet: network of %d frames used with %d frames", n.NumFrames, numFrames)
	}
	for k := range n.Elements {
		e := &n.Elements[k]
		m := len(e.Frames)
		if m < 2 || len(e.Attach) != m-1 || len(e.Q) != 36*(m-1)*(m-1) {
			return fmt.Errorf("springnet: element %d is malformed (%d frames, %d hinges, %d stiffness entries)", k, m, len(e.Attach), len(e.Q))
		}
		for a, f := range e.Frames {
			if f < 0 || f >= numFrames {
				return fmt.Errorf("springnet: element %d: frame %d is out of range (%d frames)", k, f, numFrames)
			}
			for _, g := range e.Frames[:a] {
				if g == f {
					return fmt.Errorf("springnet: element %d lists frame %d twice", k, f)
				}
			}
		}
	}
	return nil
}
