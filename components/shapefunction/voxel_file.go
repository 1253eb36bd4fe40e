package shapefunction

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"github.com/sofago/sofago/atomicfile"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/sofago/sofago/geom"
)

// Voxel files hold a material map on a regular grid: a short text header,
// then raw little-endian float32 values. The format (".vox" by
// convention, any extension accepted):
//
//	sofago-voxels 1
//	dims NX NY NZ            cells per axis (integers ≥ 1)
//	origin X0 Y0 Z0          low corner of the grid (m)
//	spacing HX HY HZ         cell size per axis (m, > 0)
//	fields density youngModulus
//	data
//	<NX·NY·NZ float32 values per field, field after field, x fastest>
//
// Each header line is a keyword and its values separated by spaces; lines
// starting with '#' are comments; the header ends with the line "data"
// (newline "\n"). fields lists the arrays that follow, in order: density
// (kg/m³) and youngModulus (Pa), each optional (a missing one takes the
// MaterialGrid's massDensity/youngModulus wherever there is material).
// A cell is material where its density (if given) and Young's modulus (if
// given) are both > 0, and empty where they are 0; negative, NaN or
// infinite values are errors. A file with no field is an error.
//
// float32 keeps the files small (medical images, CT scans) and is exact
// for the values scenes type (integers, a few significant digits).

const voxelMagic = "sofago-voxels 1"

// WriteVoxelFile writes g to path in the voxel format (density and
// youngModulus fields; empty cells as zeros), atomically (a temporary file
// renamed over path).
func WriteVoxelFile(path string, g *Voxels) error {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "%s\n", voxelMagic)
	fmt.Fprintf(&buf, "dims %d %d %d\n", g.Dims[0], g.Dims[1], g.Dims[2])
	fmt.Fprintf(&buf, "origin %s %s %s\n", ftoa(g.Origin[0]), ftoa(g.Origin[1]), ftoa(g.Origin[2]))
	fmt.Fprintf(&buf, "spacing %s %s %s\n", ftoa(g.Spacing[0]), ftoa(g.Spacing[1]), ftoa(g.Spacing[2]))
	fmt.Fprintf(&buf, "fields density youngModulus\ndata\n")
	vals := make([]float32, g.NumCells())
	for _, field := range [][]float64{g.Density, g.Young} {
		clear(vals)
		for v, c := range g.Cells {
			vals[c] = float32(field[v])
		}
		if err := binary.Write(&buf, binary.LittleEndian, vals); err != nil {
			return err
		}
	}
	return atomicfile.WriteBytes(path, buf.Bytes())
}

func ftoa(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// ReadVoxelFile reads a voxel file. defaultRho and defaultE fill the
// fields the file does not give. Errors name the file and the header line.
func ReadVoxelFile(path string, defaultRho, defaultE float64) (*Voxels, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	g, err := readVoxels(bufio.NewReader(f), defaultRho, defaultE)
	if err != nil {
		return nil, fmt.Errorf("%s:%w", path, err)
	}
	return g, nil
}

// lineError is a header error at a line; it prints as "N: message" after
// the file name's colon.
type lineError struct {
	line int
	msg  string
}

func (e *lineError) Error() string { return fmt.Sprintf("%d: %s", e.line, e.msg) }

func readVoxels(r *bufio.Reader, defaultRho, defaultE float64) (*Voxels, error) {
	var dims [3]int
	var origin, spacing geom.Vec3
	var fields []string
	seen := map[string]int{}
	line := 0
	errAt := func(format string, args ...any) error {
		return &lineError{line: line, msg: fmt.Sprintf(format, args...)}
	}
	for {
		s, err := r.ReadString('\n')
		line++
		if err == io.EOF && s == "" {
			return nil, errAt("unexpected end of file in the header (no \"data\" line)")
		}
		if err != nil && err != io.EOF {
			return nil, err
		}
		s = strings.TrimSpace(s)
		if line == 1 {
			if s != voxelMagic {
				return nil, errAt("not a voxel file: first line is %q, want %q", truncate(s, 40), voxelMagic)
			}
			continue
		}
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		if s == "data" {
			break
		}
		words := strings.Fields(s)
		key := words[0]
		if prev, dup := seen[key]; dup {
			return nil, errAt("%s given twice (first on line %d)", key, prev)
		}
		seen[key] = line
		switch key {
		case "dims":
			if len(words) != 4 {
				return nil, errAt("dims needs 3 integers")
			}
			for a := 0; a < 3; a++ {
				n, err := strconv.Atoi(words[a+1])
				if err != nil || n < 1 || n > 1<<20 {
					return nil, errAt("dims[%d] = %q is not an integer in [1, 1048576]", a, words[a+1])
				}
				dims[a] = n
			}
		case "origin", "spacing":
			if len(words) != 4 {
				return nil, errAt("%s needs 3 numbers", key)
			}
			var v geom.Vec3
			for a := 0; a < 3; a++ {
				x, err := strconv.ParseFloat(words[a+1], 64)
				if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
					return nil, errAt("%s[%d] = %q is not a finite number", key, a, words[a+1])
				}
				if key == "spacing" && !(x > 0) {
					return nil, errAt("spacing[%d] = %g must be positive", a, x)
				}
				v[a] = x
			}
			if key == "origin" {
				origin = v
			} else {
				spacing = v
			}
		case "fields":
			if len(words) < 2 {
				return nil, errAt("fields lists no field (want density and/or youngModulus)")
			}
			for _, w := range words[1:] {
				if w != "density" && w != "youngModulus" {
					return nil, errAt("unknown field %q (want density or youngModulus)", w)
				}
				for _, f := range fields {
					if f == w {
						return nil, errAt("field %s listed twice", w)
					}
				}
				fields = append(fields, w)
			}
		default:
			return nil, errAt("unknown header keyword %q (want dims, origin, spacing, fields, data)", key)
		}
	}
	for _, k := range []string{"dims", "spacing", "fields"} {
		if _, ok := seen[k]; !ok {
			return nil, errAt("the header has no %s line", k)
		}
	}
	g, err := newVoxels(origin, spacing, dims)
	if err != nil {
		return nil, errAt("%v", err)
	}
	n := g.NumCells()
	raw := make([]float32, n)
	rho := make([]float64, n)
	E := make([]float64, n)
	haveRho, haveE := false, false
	for _, field := range fields {
		if err := binary.Read(r, binary.LittleEndian, raw); err != nil {
			return nil, errAt("field %s: want %d float32 values after the header: %v", field, n, err)
		}
		dst := rho
		if field == "youngModulus" {
			dst, haveE = E, true
		} else {
			haveRho = true
		}
		for c, x := range raw {
			v := float64(x)
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				i, j, k := g.CellCoords(c)
				return nil, errAt("field %s: cell (%d, %d, %d) has value %g (want ≥ 0 and finite)", field, i, j, k, v)
			}
			dst[c] = v
		}
	}
	if extra, _ := r.Peek(1); len(extra) > 0 {
		return nil, errAt("data: more bytes than %d fields of %d float32 values", len(fields), n)
	}
	inside := make([]bool, n)
	for c := range inside {
		switch {
		case haveRho && haveE:
			if (rho[c] > 0) != (E[c] > 0) {
				i, j, k := g.CellCoords(c)
				return nil, errAt("cell (%d, %d, %d): density %g and youngModulus %g: a material cell needs both positive, an empty one both zero", i, j, k, rho[c], E[c])
			}
			inside[c] = rho[c] > 0
		case haveRho:
			inside[c] = rho[c] > 0
		default:
			inside[c] = E[c] > 0
		}
	}
	g.setMaterial(inside, defaultRho, defaultE)
	for v, c := range g.Cells {
		if haveRho {
			g.Density[v] = rho[c]
		}
		if haveE {
			g.Young[v] = E[c]
		}
	}
	if g.NumVoxels() == 0 {
		return nil, errAt("the file holds no material cell")
	}
	return g, nil
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
