package cachekey

import "testing"

// TestKeysSeparateInputs: the tags and lengths keep inputs that would
// concatenate to the same bytes apart, and equal inputs give equal keys.
func TestKeysSeparateInputs(t *testing.T) {
	key := func(f func(b *Builder)) Key { b := New("test", 1); f(b); return b.Key() }
	a := key(func(b *Builder) { b.String("ab"); b.String("c") })
	c := key(func(b *Builder) { b.String("a"); b.String("bc") })
	if a == c {
		t.Error("split strings collide")
	}
	if key(func(b *Builder) { b.Floats("x", []float64{1, 2}) }) != key(func(b *Builder) { b.Floats("x", []float64{1, 2}) }) {
		t.Error("equal inputs give different keys")
	}
	if New("test", 1).Key() == New("test", 2).Key() {
		t.Error("version not part of the key")
	}
	if key(func(b *Builder) { b.Ints("i", []int{1}) }) == key(func(b *Builder) { b.Floats("i", []float64{1}) }) {
		t.Error("ints and floats of the same value collide")
	}
}
