package reduced

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/sofago/sofago/atomicfile"
	"github.com/sofago/sofago/cachekey"
	"io"
	"os"
)

// Precomputed is everything a reduced StVK model needs at run time, what
// the precomputation cache stores: the basis, the polynomials of each
// material group, the reduced inertia, and (for information) the
// eigenvalues of the linear modes the basis came from.
type Precomputed struct {
	Basis       *Basis
	Poly        *Polynomials
	Inertia     *Inertia
	Eigenvalues []float64
}

// Key identifies a precomputation (package cachekey): the SHA-256 of
// everything it depends on.
type Key = cachekey.Key

// KeyBuilder accumulates the inputs of a precomputation into a Key.
type KeyBuilder = cachekey.Builder

// NewKeyBuilder starts a key with this file format and its version.
func NewKeyBuilder() *KeyBuilder { return cachekey.New("sofago reduced StVK cache", cacheVersion) }

// cacheVersion changes whenever the file layout or the meaning of its
// numbers changes; it is part of every key and of the header.
const cacheVersion = 1

var cacheMagic = []byte("SOFAGO-REDUCED-STVK\n")

// Cache file layout (little-endian):
//
//	magic (20 bytes), version uint64, key (32 bytes),
//	r, rows, groups, len(eigenvalues) uint64,
//	U (rows·r float64, row-major),
//	for each group: Lambda then Mu (M(M+1)/2 float64 each, upper-packed),
//	inertia: M (r²), Gravity (3r), TotalMass, FirstMoment (3),
//	eigenvalues,
//	SHA-256 of everything above (32 bytes).

// WriteCache writes p to path atomically (a temporary file in the same
// directory, synced, then renamed), so a reader never sees a partial file.
func WriteCache(path string, key Key, p *Precomputed) error {
	var buf bytes.Buffer
	buf.Write(cacheMagic)
	w := func(v uint64) { binary.Write(&buf, binary.LittleEndian, v) }
	fl := func(v []float64) { binary.Write(&buf, binary.LittleEndian, v) }
	w(cacheVersion)
	buf.Write(key[:])
	r, rows := p.Basis.R, p.Basis.NumRows()
	w(uint64(r))
	w(uint64(rows))
	w(uint64(p.Poly.NumGroups()))
	w(uint64(len(p.Eigenvalues)))
	fl(p.Basis.U)
	for g := 0; g < p.Poly.NumGroups(); g++ {
		fl(p.Poly.Lambda[g])
		fl(p.Poly.Mu[g])
	}
	fl(p.Inertia.M)
	fl(p.Inertia.Gravity)
	fl([]float64{p.Inertia.TotalMass})
	fl(p.Inertia.FirstMoment[:])
	fl(p.Eigenvalues)
	sum := sha256.Sum256(buf.Bytes())
	buf.Write(sum[:])

	if err := atomicfile.WriteBytes(path, buf.Bytes()); err != nil {
		return fmt.Errorf("reduced cache: writing %s: %w", path, err)
	}
	return nil
}

// ErrCacheMiss reports a cache file that does not exist or belongs to
// other inputs (another key).
var ErrCacheMiss = errors.New("no cached precomputation for these inputs")

// ReadCache reads the precomputation stored at path for key. A missing
// file or one with another key is ErrCacheMiss; a damaged file (bad magic,
// version, sizes or checksum) is another error, and the caller should
// recompute and overwrite it.
func ReadCache(path string, key Key) (*Precomputed, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, ErrCacheMiss
	}
	if err != nil {
		return nil, err
	}
	bad := func(what string) error { return fmt.Errorf("reduced cache %s is damaged (%s)", path, what) }
	if len(data) < len(cacheMagic)+8+32+32+32 || !bytes.Equal(data[:len(cacheMagic)], cacheMagic) {
		return nil, bad("not a cache file")
	}
	body, sum := data[:len(data)-32], data[len(data)-32:]
	if s := sha256.Sum256(body); !bytes.Equal(s[:], sum) {
		return nil, bad("checksum")
	}
	rd := bytes.NewReader(body[len(cacheMagic):])
	var version uint64
	binary.Read(rd, binary.LittleEndian, &version)
	if version != cacheVersion {
		return nil, ErrCacheMiss
	}
	var k Key
	io.ReadFull(rd, k[:])
	if k != key {
		return nil, ErrCacheMiss
	}
	var hdr [4]uint64
	if err := binary.Read(rd, binary.LittleEndian, &hdr); err != nil {
		return nil, bad("header")
	}
	r, rows, groups, neig := int(hdr[0]), int(hdr[1]), int(hdr[2]), int(hdr[3])
	m := r + NumPairs(r)
	want := rows*r + groups*m*(m+1) + r*r + 3*r + 4 + neig
	if r <= 0 || rows <= 0 || groups <= 0 || neig < 0 || rd.Len() != 8*want {
		return nil, bad("sizes")
	}
	read := func(n int) []float64 {
		v := make([]float64, n)
		binary.Read(rd, binary.LittleEndian, v)
		return v
	}
	p := &Precomputed{Basis: &Basis{R: r, U: read(rows * r)}, Poly: &Polynomials{R: r}}
	for g := 0; g < groups; g++ {
		p.Poly.Lambda = append(p.Poly.Lambda, read(m*(m+1)/2))
		p.Poly.Mu = append(p.Poly.Mu, read(m*(m+1)/2))
	}
	p.Inertia = &Inertia{R: r, M: read(r * r), Gravity: read(3 * r)}
	p.Inertia.TotalMass = read(1)[0]
	copy(p.Inertia.FirstMoment[:], read(3))
	p.Eigenvalues = read(neig)
	return p, nil
}
