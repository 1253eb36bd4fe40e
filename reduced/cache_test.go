package reduced

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestCacheRoundTrip writes a precomputation, reads it back bit for bit,
// and checks that another key is a miss and a damaged file an error.
func TestCacheRoundTrip(t *testing.T) {
	mesh := kuhnBar(1, 1, 3, 0.1, 0.1, 0.3)
	U := randomBasis(mesh, 3, 0.1, 2)
	poly, err := Precompute(mesh, U, PrecomputeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rho := make([]float64, len(mesh.Tets))
	for i := range rho {
		rho[i] = 1000
	}
	in, err := ReducedInertia(mesh, U, rho, true)
	if err != nil {
		t.Fatal(err)
	}
	pre := &Precomputed{Basis: U, Poly: poly, Inertia: in, Eigenvalues: []float64{1, 2}}
	kb := NewKeyBuilder()
	kb.Floats("points", mesh.Points)
	key := kb.Key()
	path := filepath.Join(t.TempDir(), "m.rstvk")
	if err := WriteCache(path, key, pre); err != nil {
		t.Fatal(err)
	}
	got, err := ReadCache(path, key)
	if err != nil {
		t.Fatal(err)
	}
	same := func(a, b []float64) bool {
		if len(a) != len(b) {
			return false
		}
		for i := range a {
			if a[i] != b[i] {
				return false
			}
		}
		return true
	}
	if !same(got.Basis.U, U.U) || !same(got.Poly.Mu[0], poly.Mu[0]) || !same(got.Poly.Lambda[0], poly.Lambda[0]) ||
		!same(got.Inertia.M, in.M) || !same(got.Inertia.Gravity, in.Gravity) || got.Inertia.TotalMass != in.TotalMass ||
		got.Inertia.FirstMoment != in.FirstMoment || !same(got.Eigenvalues, pre.Eigenvalues) {
		t.Fatal("cache does not round-trip")
	}
	other := NewKeyBuilder()
	other.Floats("points", mesh.Points[:3])
	if _, err := ReadCache(path, other.Key()); !errors.Is(err, ErrCacheMiss) {
		t.Errorf("another key: %v, want ErrCacheMiss", err)
	}
	if _, err := ReadCache(filepath.Join(t.TempDir(), "none"), key); !errors.Is(err, ErrCacheMiss) {
		t.Errorf("missing file: %v, want ErrCacheMiss", err)
	}
	data, _ := os.ReadFile(path)
	data[len(data)/2] ^= 1
	os.WriteFile(path, data, 0o644)
	if _, err := ReadCache(path, key); err == nil || errors.Is(err, ErrCacheMiss) {
		t.Errorf("damaged file: %v, want a damage error", err)
	}
	os.WriteFile(path, data[:100], 0o644)
	if _, err := ReadCache(path, key); err == nil || errors.Is(err, ErrCacheMiss) {
		t.Errorf("truncated file: %v, want a damage error", err)
	}
	// No temporary files left behind.
	if m, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".tmp-*")); len(m) != 0 {
		t.Errorf("temporary files left: %v", m)
	}
}
