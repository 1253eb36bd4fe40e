package meshio

import (
	"bufio"
	"fmt"
	"github.com/sofago/sofago/atomicfile"
	"io"
	"path/filepath"
	"strings"
)

// Read reads a mesh file, choosing the format by extension (case-insensitive):
//
//	.msh          Gmsh ASCII 2.x or 4.1 (ReadMSH)
//	.vtk          legacy VTK unstructured grid, ASCII (ReadVTK)
//	.vtu          VTK XML unstructured grid, ASCII (ReadVTU): what runscene -out writes
//	.node, .ele, .face  TetGen (ReadTetGen: the .node, .ele and optional .face of the same base name)
//	.veg          Vega volumetric mesh (ReadVEG)
//	.stl          STL surface, ASCII or binary (ReadSTL)
//	.obj          Wavefront OBJ surface (ReadOBJ)
//
// Errors are *Error values naming the file and line.
func Read(path string) (*Mesh, error) {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".msh":
		return ReadMSH(path)
	case ".vtk":
		return ReadVTK(path)
	case ".vtu":
		return ReadVTU(path)
	case ".node", ".ele", ".face":
		return ReadTetGen(path)
	case ".veg":
		return ReadVEG(path)
	case ".stl":
		return ReadSTL(path)
	case ".obj":
		return ReadOBJ(path)
	default:
		return nil, &Error{File: path, Err: unsupportedf("unknown mesh format %q (known: .msh .vtk .vtu .node .ele .face .veg .stl .obj)", ext)}
	}
}

// Write writes a mesh file, choosing the format by extension: .msh (Gmsh
// ASCII 4.1; WriteMSH writes 2.2), .vtk, .vtu, .node or .ele (TetGen: writes the
// .node, .ele and .face files of the same base name), .veg (tetrahedra
// only), .stl (binary; WriteSTL writes ASCII) and .obj (triangles only).
// Every file is written atomically.
func Write(path string, m *Mesh) error {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".msh":
		return WriteMSH(path, m, "4.1")
	case ".vtk":
		return WriteVTK(path, m)
	case ".vtu":
		return WriteVTU(path, m)
	case ".node", ".ele", ".face":
		return WriteTetGen(path, m)
	case ".veg":
		return WriteVEG(path, m)
	case ".stl":
		return WriteSTL(path, m, true)
	case ".obj":
		return WriteOBJ(path, m)
	default:
		return unsupportedf("writing %s: no writer for %q (known: .msh .vtk .vtu .node .ele .veg .stl .obj)", path, ext)
	}
}

// writeAtomic writes path through encode into a temporary file in the same
// folder, then renames it over path, so readers never see a partial file and
// a failed write leaves any previous file intact.
func writeAtomic(path string, encode func(io.Writer) error) error {
	if err := atomicfile.Write(path, true, encode); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// textWriter is a buffered writer that keeps the first error, so encoders
// print freely and check once at the end.
type textWriter struct {
	w   *bufio.Writer
	err error
}

func newWriter(w io.Writer) *textWriter { return &textWriter{w: bufio.NewWriterSize(w, 1<<16)} }

func (t *textWriter) printf(format string, args ...any) {
	if t.err == nil {
		_, t.err = fmt.Fprintf(t.w, format, args...)
	}
}

// flush writes out the buffer and returns the first error.
func (t *textWriter) flush() error {
	if t.err == nil {
		t.err = t.w.Flush()
	}
	return t.err
}
