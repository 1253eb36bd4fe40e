// Package cachekey hashes the inputs of a precomputation (reduced StVK
// polynomials, spring networks) into a key, so a cache file is reused
// exactly when nothing it depends on changed.
package cachekey

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash"
	"io"
	"math"
)

// Key is the SHA-256 of everything a precomputation depends on.
type Key [32]byte

// String returns the first 16 hex digits, enough for file names.
func (k Key) String() string { return fmt.Sprintf("%x", k[:8]) }

// Builder accumulates the inputs into a Key. Every value is written with a
// tag and its length, so different inputs cannot give the same byte stream.
type Builder struct{ h hash.Hash }

// New starts a key for the named format at the given version (part of every
// key, so a format change invalidates old files).
func New(format string, version int) *Builder {
	b := &Builder{h: sha256.New()}
	b.String(format)
	b.Int(version)
	return b
}

// String adds a tagged string.
func (b *Builder) String(s string) {
	b.Int(len(s))
	io.WriteString(b.h, s)
}

// Int adds an integer.
func (b *Builder) Int(v int) {
	var buf [8]byte
	binary.LittleEndian.PutUint64(buf[:], uint64(v))
	b.h.Write(buf[:])
}

// Floats adds a tagged list of numbers, bit for bit.
func (b *Builder) Floats(name string, v []float64) {
	b.String(name)
	b.Int(len(v))
	buf := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(buf[8*i:], math.Float64bits(x))
	}
	b.h.Write(buf)
}

// Ints adds a tagged list of integers.
func (b *Builder) Ints(name string, v []int) {
	b.String(name)
	b.Int(len(v))
	buf := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(buf[8*i:], uint64(x))
	}
	b.h.Write(buf)
}

// Bytes adds tagged raw bytes (e.g. an input file's content).
func (b *Builder) Bytes(name string, p []byte) {
	b.String(name)
	b.Int(len(p))
	b.h.Write(p)
}

// Key returns the key of everything added so far.
func (b *Builder) Key() Key {
	var k Key
	copy(k[:], b.h.Sum(nil))
	return k
}
