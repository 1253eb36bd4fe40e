package springnet

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
)

// restFrames returns n Rigid3 rest frames along a bent line with random
// orientations.
func restFrames(rng *rand.Rand, n int) []float64 {
	var x []float64
	for i := 0; i < n; i++ {
		q := randomQuat(rng, math.Pi)
		x = append(x, 0.3*float64(i), 0.05*float64(i*i), 0.02*float64(i), q[0], q[1], q[2], q[3])
	}
	return x
}

// knownElement builds an element over frames (base first) with gap
// stiffness Q and returns it with its rest stiffness −Gᵀ Q G (in the order
// of the sorted frames), G the gaps' Jacobian at rest from Link.Update.
func knownElement(rng *rand.Rand, rest []float64, frames []int) (Element, []float64) {
	m := len(frames)
	g := m - 1
	el := Element{Frames: frames, Q: make([]float64, 36*g*g)}
	base := BodyAt(rest, frames[0])
	for a := 1; a < m; a++ {
		el.Attach = append(el.Attach, hingeAttachments(base, BodyAt(rest, frames[a])))
	}
	// Random SPD Q.
	A := make([]float64, 36*g*g)
	for i := range A {
		A[i] = 2*rng.Float64() - 1
	}
	n := 6 * g
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			for k := 0; k < n; k++ {
				el.Q[i*n+j] += A[k*n+i] * A[k*n+j]
			}
		}
		el.Q[i*n+i] += 1
	}
	M := 6 * m
	K := make([]float64, M*M)
	var w ElementWork
	x := rest
	el.Evaluate(x, make([]float64, len(rest)/7*6), K, &w)
	return el, K
}

// TestBuildClustersRecoversGapStiffness: the rest stiffness of an element
// with a known gap stiffness Q, given to BuildClusters (frames sorted, as
// the sampler's clusters are), gives back an element whose rest stiffness
// is the same (1e-12), whatever base BuildClusters picks.
func TestBuildClustersRecoversGapStiffness(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	rest := restFrames(rng, 5)
	for _, frames := range [][]int{{1, 3}, {0, 1, 2}, {1, 2, 3, 4}, {2, 0, 4}} {
		el, K := knownElement(rng, rest, frames)
		// Reorder K to the sorted frame order.
		sorted := append([]int(nil), frames...)
		for i := range sorted {
			for j := i + 1; j < len(sorted); j++ {
				if sorted[j] < sorted[i] {
					sorted[i], sorted[j] = sorted[j], sorted[i]
				}
			}
		}
		pos := map[int]int{}
		for k, f := range el.Frames {
			pos[f] = k
		}
		M := 6 * len(frames)
		Ks := make([]float64, M*M)
		for a, fa := range sorted {
			for b, fb := range sorted {
				for r := 0; r < 6; r++ {
					for s := 0; s < 6; s++ {
						Ks[(6*a+r)*M+6*b+s] = K[(6*pos[fa]+r)*M+6*pos[fb]+s]
					}
				}
			}
		}
		net, err := BuildClusters(rest, []Cluster{{Frames: sorted, K: Ks}})
		if err != nil {
			t.Fatal(err)
		}
		got := net.Elements[0]
		K2 := make([]float64, M*M)
		var w ElementWork
		got.Evaluate(rest, make([]float64, len(rest)/7*6), K2, &w)
		pos2 := map[int]int{}
		for k, f := range got.Frames {
			pos2[f] = k
		}
		scale, diff := 0.0, 0.0
		for _, fa := range sorted {
			for _, fb := range sorted {
				for r := 0; r < 6; r++ {
					for s := 0; s < 6; s++ {
						u := K[(6*pos[fa]+r)*M+6*pos[fb]+s]
						v := K2[(6*pos2[fa]+r)*M+6*pos2[fb]+s]
						scale = math.Max(scale, math.Abs(u))
						diff = math.Max(diff, math.Abs(u-v))
					}
				}
			}
		}
		if diff > 1e-12*scale {
			t.Errorf("frames %v (base chosen: %d): rest stiffness differs by %.3g of %.3g", frames, got.Frames[0], diff, scale)
		}
	}
}

// TestBuildPairsJoint: for the rest stiffness of one pair spring with a
// symmetric S, BuildPairs recovers S as the joint stiffness (eq. 18), and
// both the spring's exact tangent and the warped tangent (eq. 19–23)
// reproduce the rest stiffness.
func TestBuildPairsJoint(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	rest := restFrames(rng, 2)
	el, K := knownElement(rng, rest, []int{0, 1})
	net, err := BuildPairs(rest, K, [][2]int{{0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	got := net.Elements[0]
	for i := 0; i < 6; i++ {
		for j := 0; j < 6; j++ {
			if d := math.Abs(got.Joint[i][j] - el.Q[6*i+j]); d > 1e-12*maxAbs(el.Q) {
				t.Fatalf("joint stiffness [%d][%d] = %.15g, want %.15g", i, j, got.Joint[i][j], el.Q[6*i+j])
			}
		}
	}
	var W [12][12]float64
	bi, bj := BodyAt(rest, 0), BodyAt(rest, 1)
	tm := bi.T.Add(bj.T).Scale(0.5)
	WarpedTangent(got.Joint, geom.Identity3(), bi.T.Sub(tm), bj.T.Sub(tm), &W)
	for r := 0; r < 12; r++ {
		for c := 0; c < 12; c++ {
			if d := math.Abs(W[r][c] - K[12*r+c]); d > 1e-12*maxAbs(K) {
				t.Fatalf("warped tangent (%d, %d) = %.15g, rest stiffness %.15g", r, c, W[r][c], K[12*r+c])
			}
		}
	}
}

func maxAbs(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = math.Max(m, math.Abs(x))
	}
	return m
}

// TestElementFixture: an element's force is −∇W and its tangent ∂F/∂x,
// by central differences, at random configurations with rotations up to
// 1 rad per frame.
func TestElementFixture(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	rest := restFrames(rng, 4)
	el, _ := knownElement(rng, rest, []int{2, 0, 1, 3})
	n := len(rest) / 7
	var w ElementWork
	for trial := 0; trial < 4; trial++ {
		x := append([]float64(nil), rest...)
		d0 := make([]float64, 6*n)
		for i := range d0 {
			d0[i] = 2*rng.Float64() - 1
		}
		graph.Rigid3.Integrate(x, d0, 0.5)
		f := make([]float64, 6*n)
		M := 6 * len(el.Frames)
		K := make([]float64, M*M)
		el.Evaluate(x, f, K, &w)
		d := make([]float64, 6*n)
		for i := range d {
			d[i] = 2*rng.Float64() - 1
		}
		h := 1e-6
		xp, xm := append([]float64(nil), x...), append([]float64(nil), x...)
		graph.Rigid3.Integrate(xp, d, h)
		graph.Rigid3.Integrate(xm, d, -h)
		fdW := -(el.Energy(xp, &w) - el.Energy(xm, &w)) / (2 * h)
		an := 0.0
		for i := range d {
			an += f[i] * d[i]
		}
		if math.Abs(fdW-an) > 1e-7*math.Abs(an) {
			t.Errorf("trial %d: F·d = %.12g, −dW/dε = %.12g", trial, an, fdW)
		}
		fp, fm := make([]float64, 6*n), make([]float64, 6*n)
		el.Evaluate(xp, fp, nil, &w)
		el.Evaluate(xm, fm, nil, &w)
		scale := 0.0
		for i := range fp {
			scale = math.Max(scale, math.Abs(fp[i]-fm[i])/(2*h))
		}
		for a, fa := range el.Frames {
			for r := 0; r < 6; r++ {
				kd := 0.0
				for b, fb := range el.Frames {
					for s := 0; s < 6; s++ {
						kd += K[(6*a+r)*M+6*b+s] * d[6*fb+s]
					}
				}
				fd := (fp[6*fa+r] - fm[6*fa+r]) / (2 * h)
				if math.Abs(kd-fd) > 1e-7*scale {
					t.Errorf("trial %d: (K d) of frame %d [%d] = %.12g, finite difference %.12g", trial, fa, r, kd, fd)
				}
			}
		}
	}
}

// TestNetworkFileRoundTrip: a network written and read back is identical;
// another key is a miss; a damaged file is an error other than a miss.
func TestNetworkFileRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	rest := restFrames(rng, 4)
	_, K := knownElement(rng, rest, []int{0, 1})
	Kfull := make([]float64, 24*24)
	for r := 0; r < 12; r++ {
		for c := 0; c < 12; c++ {
			Kfull[r*24+c] = K[r*12+c]
		}
	}
	pairs, _ := BuildPairs(rest, Kfull, [][2]int{{0, 1}})
	_, Kc := knownElement(rng, rest, []int{1, 2, 3})
	clusters, _ := BuildClusters(rest, []Cluster{{Frames: []int{1, 2, 3}, K: Kc}})
	net := &Network{NumFrames: 4, Elements: append(pairs.Elements, clusters.Elements...)}
	dir := t.TempDir()
	path := filepath.Join(dir, "net.springnet")
	kb := NewKeyBuilder()
	kb.Floats("rest", rest)
	key := kb.Key()
	if err := WriteFile(path, key, net); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFile(path, key)
	if err != nil {
		t.Fatal(err)
	}
	if got.NumFrames != net.NumFrames || len(got.Elements) != len(net.Elements) {
		t.Fatalf("read %d frames, %d elements; wrote %d, %d", got.NumFrames, len(got.Elements), net.NumFrames, len(net.Elements))
	}
	for k := range net.Elements {
		a, b := net.Elements[k], got.Elements[k]
		same := len(a.Frames) == len(b.Frames) && len(a.Q) == len(b.Q) && (a.Joint == nil) == (b.Joint == nil)
		for i := 0; same && i < len(a.Frames); i++ {
			same = a.Frames[i] == b.Frames[i]
		}
		for i := 0; same && i < len(a.Q); i++ {
			same = a.Q[i] == b.Q[i]
		}
		for i := 0; same && i < len(a.Attach); i++ {
			same = a.Attach[i] == b.Attach[i]
		}
		if same && a.Joint != nil {
			same = *a.Joint == *b.Joint
		}
		if !same {
			t.Errorf("element %d differs after the round trip", k)
		}
	}
	other := NewKeyBuilder()
	other.Floats("rest", rest[:7])
	if _, err := ReadFile(path, other.Key()); !errors.Is(err, ErrMiss) {
		t.Errorf("another key: %v, want ErrMiss", err)
	}
	if _, err := ReadFile(filepath.Join(dir, "none"), key); !errors.Is(err, ErrMiss) {
		t.Errorf("missing file: %v, want ErrMiss", err)
	}
	data, _ := os.ReadFile(path)
	data[100] ^= 1
	os.WriteFile(path, data, 0o644)
	if _, err := ReadFile(path, key); err == nil || errors.Is(err, ErrMiss) {
		t.Errorf("damaged file: %v, want a damage error", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the atomic write left %d files in the folder", len(entries))
	}
}
