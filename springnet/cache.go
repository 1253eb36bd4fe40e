package springnet

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

// Key identifies a precomputation (package cachekey): the SHA-256 of
// everything it depends on.
type Key = cachekey.Key

// KeyBuilder accumulates the inputs of a precomputation into a Key.
type KeyBuilder = cachekey.Builder

// NewKeyBuilder starts a key with this file format and its version.
func NewKeyBuilder() *KeyBuilder { return cachekey.New("sofago spring network", fileVersion) }

// fileVersion changes whenever the file layout or the meaning of its
// numbers changes; it is part of every key and of the header.
const fileVersion = 1

var fileMagic = []byte("SOFAGO-SPRINGNET\n")

// File layout (little-endian):
//
//	magic (17 bytes), version uint64, key (32 bytes),
//	frames, elements uint64,
//	per element: m uint64, frames (m uint64), hasJoint uint64,
//	             per hinge (m − 1): on the base offset (3), rotation (4),
//	                                 on the frame offset (3), rotation (4) float64,
//	             Q (36 (m−1)², row-major) float64, Joint (36, when hasJoint) float64,
//	SHA-256 of everything above (32 bytes).

// WriteFile writes the network to path atomically (a temporary file in
// the same folder, synced, then renamed), so a reader never sees a
// partial file.
func WriteFile(path string, key Key, n *Network) error {
	var buf bytes.Buffer
	buf.Write(fileMagic)
	w := func(v uint64) { binary.Write(&buf, binary.LittleEndian, v) }
	w(fileVersion)
	buf.Write(key[:])
	w(uint64(n.NumFrames))
	w(uint64(len(n.Elements)))
	for _, e := range n.Elements {
		w(uint64(len(e.Frames)))
		for _, f := range e.Frames {
			w(uint64(f))
		}
		if e.Joint != nil {
			w(1)
		} else {
			w(0)
		}
		var fl []float64
		for _, h := range e.Attach {
			for _, a := range h {
				fl = append(fl, a.Offset[:]...)
				fl = append(fl, a.Rot[:]...)
			}
		}
		fl = append(fl, e.Q...)
		if e.Joint != nil {
			for i := range e.Joint {
				fl = append(fl, e.Joint[i][:]...)
			}
		}
		binary.Write(&buf, binary.LittleEndian, fl)
	}
	sum := sha256.Sum256(buf.Bytes())
	buf.Write(sum[:])

	if err := atomicfile.WriteBytes(path, buf.Bytes()); err != nil {
		return fmt.Errorf("spring network: writing %s: %w", path, err)
	}
	return nil
}

// ErrMiss reports a file that does not exist or belongs to other inputs
// (another key or format version).
var ErrMiss = errors.New("no precomputed spring network for these inputs")

// ReadFile reads the network stored at path for key. A missing file or
// one with another key is ErrMiss; a damaged file (bad magic, sizes or
// checksum) is another error, and the caller should recompute it.
func ReadFile(path string, key Key) (*Network, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, ErrMiss
	}
	if err != nil {
		return nil, err
	}
	bad := func(what string) error { return fmt.Errorf("spring network file %s is damaged (%s)", path, what) }
	if len(data) < len(fileMagic)+8+32+16+32 || !bytes.Equal(data[:len(fileMagic)], fileMagic) {
		return nil, bad("not a spring network file")
	}
	body, sum := data[:len(data)-32], data[len(data)-32:]
	if s := sha256.Sum256(body); !bytes.Equal(s[:], sum) {
		return nil, bad("checksum")
	}
	rd := bytes.NewReader(body[len(fileMagic):])
	var version uint64
	binary.Read(rd, binary.LittleEndian, &version)
	if version != fileVersion {
		return nil, ErrMiss
	}
	var k Key
	io.ReadFull(rd, k[:])
	if k != key {
		return nil, ErrMiss
	}
	u := func() (uint64, bool) {
		var v uint64
		return v, binary.Read(rd, binary.LittleEndian, &v) == nil
	}
	frames, ok1 := u()
	count, ok2 := u()
	if !ok1 || !ok2 || frames == 0 || frames > 1<<20 || count > uint64(rd.Len()) {
		return nil, bad("header")
	}
	n := &Network{NumFrames: int(frames), Elements: make([]Element, count)}
	for i := range n.Elements {
		m, ok := u()
		if !ok || m < 2 || m > frames {
			return nil, bad("element size")
		}
		e := &n.Elements[i]
		for a := uint64(0); a < m; a++ {
			f, ok := u()
			if !ok || f >= frames {
				return nil, bad("element frames")
			}
			e.Frames = append(e.Frames, int(f))
		}
		hasJoint, ok := u()
		if !ok || hasJoint > 1 {
			return nil, bad("element flags")
		}
		g := int(m) - 1
		nf := 14*g + 36*g*g + 36*int(hasJoint)
		if rd.Len() < 8*nf {
			return nil, bad("sizes")
		}
		fl := make([]float64, nf)
		binary.Read(rd, binary.LittleEndian, fl)
		for a := 0; a < g; a++ {
			var h [2]Attachment
			for s := 0; s < 2; s++ {
				o := fl[14*a+7*s:]
				copy(h[s].Offset[:], o[0:3])
				copy(h[s].Rot[:], o[3:7])
			}
			e.Attach = append(e.Attach, h)
		}
		e.Q = append([]float64(nil), fl[14*g:14*g+36*g*g]...)
		if hasJoint == 1 {
			var J [6][6]float64
			for r := 0; r < 6; r++ {
				copy(J[r][:], fl[14*g+36*g*g+6*r:])
			}
			e.Joint = &J
		}
	}
	if rd.Len() != 0 {
		return nil, bad("trailing data")
	}
	if err := n.Check(n.NumFrames); err != nil {
		return nil, bad(err.Error())
	}
	return n, nil
}
