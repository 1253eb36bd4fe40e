package meshio

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// The fuzz targets feed arbitrary bytes to each parser. A parser must never
// panic; what it accepts must be a valid mesh (Validate) that its writer
// writes and its parser reads back identically. The seed corpus is every
// sample of the format in testdata/ and testdata/bad/ (plus anything the
// fuzzer saved under testdata/fuzz/), so `go test` runs them all.
//
//	go test -run '^$' -fuzz FuzzMSH -fuzztime 1m ./meshio/

// seeds adds every testdata file matching the patterns to the corpus.
func seeds(f *testing.F, patterns ...string) {
	for _, p := range patterns {
		files, err := filepath.Glob(filepath.Join("testdata", p))
		if err != nil {
			f.Fatal(err)
		}
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
}

// checkAccepted checks what a parser accepted: a valid mesh that encode
// writes and parse reads back unchanged.
func checkAccepted(t *testing.T, m *Mesh, encode func(*bytes.Buffer, *Mesh) error, parse func([]byte) (*Mesh, error)) {
	t.Helper()
	if err := m.Validate(); err != nil {
		t.Fatalf("accepted an invalid mesh: %v", err)
	}
	var buf bytes.Buffer
	if err := encode(&buf, m); err != nil {
		t.Fatalf("cannot write what was read: %v", err)
	}
	back, err := parse(buf.Bytes())
	if err != nil {
		t.Fatalf("cannot read back what was written: %v\n%s", err, buf.Bytes())
	}
	if err := sameMesh(back, m); err != nil {
		t.Fatalf("round trip: %v", err)
	}
}

func FuzzMSH(f *testing.F) {
	seeds(f, "*.msh", "bad/*.msh")
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseMSH("fuzz.msh", data)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error %T is not *Error: %v", err, err)
			}
			return
		}
		parse := func(b []byte) (*Mesh, error) { return ParseMSH("back.msh", b) }
		checkAccepted(t, m, func(b *bytes.Buffer, m *Mesh) error { return EncodeMSH(b, m, "2.2") }, parse)
		checkAccepted(t, m, func(b *bytes.Buffer, m *Mesh) error { return EncodeMSH(b, m, "4.1") }, parse)
	})
}

func FuzzVTK(f *testing.F) {
	seeds(f, "*.vtk", "bad/*.vtk")
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseVTK("fuzz.vtk", data)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error %T is not *Error: %v", err, err)
			}
			return
		}
		checkAccepted(t, m, func(b *bytes.Buffer, m *Mesh) error { return EncodeVTK(b, m) },
			func(b []byte) (*Mesh, error) { return ParseVTK("back.vtk", b) })
	})
}

// FuzzVTU checks both readers of .vtu text: the grid (everything the file
// holds) must be written by EncodeVTUGrid and read back with the same
// numbers (bit for bit, NaN for NaN) and names; the mesh as for the other
// formats.
func FuzzVTU(f *testing.F) {
	seeds(f, "*.vtu", "bad/*.vtu")
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := ParseVTUGrid("fuzz.vtu", data)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error %T is not *Error: %v", err, err)
			}
		} else {
			var buf bytes.Buffer
			if err := EncodeVTUGrid(&buf, g); err != nil {
				t.Fatalf("cannot write the grid read: %v", err)
			}
			back, err := ParseVTUGrid("back.vtu", buf.Bytes())
			if err != nil {
				t.Fatalf("cannot read back the grid written: %v\n%s", err, buf.Bytes())
			}
			if err := sameGrid(back, g); err != nil {
				t.Fatalf("grid round trip: %v", err)
			}
		}
		m, err := ParseVTU("fuzz.vtu", data)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error %T is not *Error: %v", err, err)
			}
			return
		}
		checkAccepted(t, m, func(b *bytes.Buffer, m *Mesh) error { return EncodeVTU(b, m) },
			func(b []byte) (*Mesh, error) { return ParseVTU("back.vtu", b) })
	})
}

func FuzzVEG(f *testing.F) {
	seeds(f, "*.veg", "bad/*.veg")
	f.Fuzz(func(t *testing.T, data []byte) {
		m, _, err := ParseVEG("fuzz.veg", data)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error %T is not *Error: %v", err, err)
			}
			return
		}
		checkAccepted(t, m, func(b *bytes.Buffer, m *Mesh) error { return EncodeVEG(b, m) },
			func(b []byte) (*Mesh, error) { m, _, err := ParseVEG("back.veg", b); return m, err })
	})
}

func FuzzTetGen(f *testing.F) {
	for _, base := range []string{"tetgen0", "tetgen1", "bad/tetgen_numbering", "bad/tetgen_face_range", "bad/tetgen_wrong_count"} {
		node, _ := os.ReadFile(filepath.Join("testdata", base+".node"))
		ele, _ := os.ReadFile(filepath.Join("testdata", base+".ele"))
		face, err := os.ReadFile(filepath.Join("testdata", base+".face"))
		f.Add(node, ele, face, err == nil)
	}
	f.Fuzz(func(t *testing.T, node, ele, face []byte, hasFace bool) {
		if !hasFace {
			face = nil
		} else if face == nil {
			face = []byte{}
		}
		m, err := ParseTetGen("f.node", node, "f.ele", ele, "f.face", face)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error %T is not *Error: %v", err, err)
			}
			return
		}
		if err := m.Validate(); err != nil {
			t.Fatalf("accepted an invalid mesh: %v", err)
		}
		var nb, eb, fb bytes.Buffer
		if err := EncodeTetGenNode(&nb, m); err != nil {
			t.Fatal(err)
		}
		if err := EncodeTetGenEle(&eb, m); err != nil {
			t.Fatal(err)
		}
		if err := EncodeTetGenFace(&fb, m); err != nil {
			t.Fatal(err)
		}
		back, err := ParseTetGen("b.node", nb.Bytes(), "b.ele", eb.Bytes(), "b.face", fb.Bytes())
		if err != nil {
			t.Fatalf("cannot read back what was written: %v", err)
		}
		if err := sameMesh(back, m); err != nil {
			t.Fatalf("round trip: %v", err)
		}
	})
}
