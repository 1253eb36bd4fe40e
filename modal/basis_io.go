package modal

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"github.com/sofago/sofago/atomicfile"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ReadBasis reads a dense matrix (a basis U, or deformation snapshots as
// columns) from path, by extension:
//
//   - ".json": an object with "rows", "cols" and "data" (column-major,
//     rows·cols numbers), or VegaFEM's reference layout {"r": cols, "U":
//     column-major} as in testdata/vega/reduced.json;
//   - ".U", ".bin": VegaFEM's binary matrix (WriteMatrixToDisk /
//     ReadMatrixFromDisk): int32 rows, int32 cols, then rows·cols float64
//     column-major, little-endian;
//   - anything else: text, first "rows cols", then the rows·cols values
//     row by row (whitespace-separated, any line breaks); '#' starts a
//     comment running to the end of the line.
//
// U is returned column-major: U[rows·j + i] = Uᵢⱼ. Values must be finite.
func ReadBasis(path string) (U []float64, rows, cols int, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("modal: %w", err)
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".json":
		U, rows, cols, err = parseJSONMatrix(data)
	case ".u", ".bin":
		U, rows, cols, err = parseBinaryMatrix(data)
	default:
		U, rows, cols, err = parseTextMatrix(data)
	}
	if err != nil {
		return nil, 0, 0, fmt.Errorf("modal: %s: %w", path, err)
	}
	for k, v := range U {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, 0, 0, fmt.Errorf("modal: %s: entry (%d, %d) is %g", path, k%rows, k/rows, v)
		}
	}
	return U, rows, cols, nil
}

func checkDims(rows, cols, have int) error {
	if rows < 1 || cols < 1 || rows > math.MaxInt32 || cols > math.MaxInt32 {
		return fmt.Errorf("bad matrix size %d×%d", rows, cols)
	}
	if int64(rows)*int64(cols) != int64(have) {
		return fmt.Errorf("%d×%d matrix with %d values", rows, cols, have)
	}
	return nil
}

func parseJSONMatrix(data []byte) ([]float64, int, int, error) {
	var m struct {
		Rows *int      `json:"rows"`
		Cols *int      `json:"cols"`
		Data []float64 `json:"data"`
		R    *int      `json:"r"`
		U    []float64 `json:"U"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, 0, 0, err
	}
	switch {
	case m.Rows != nil && m.Cols != nil:
		if err := checkDims(*m.Rows, *m.Cols, len(m.Data)); err != nil {
			return nil, 0, 0, err
		}
		return m.Data, *m.Rows, *m.Cols, nil
	case m.R != nil && m.U != nil:
		if *m.R < 1 || len(m.U)%*m.R != 0 {
			return nil, 0, 0, fmt.Errorf(`"U" has %d values, not a multiple of "r" = %d`, len(m.U), *m.R)
		}
		return m.U, len(m.U) / *m.R, *m.R, nil
	}
	return nil, 0, 0, fmt.Errorf(`want {"rows", "cols", "data"} or {"r", "U"}`)
}

func parseBinaryMatrix(data []byte) ([]float64, int, int, error) {
	if len(data) < 8 {
		return nil, 0, 0, fmt.Errorf("binary matrix: %d bytes, want at least the 8-byte header", len(data))
	}
	rows := int(int32(binary.LittleEndian.Uint32(data[0:4])))
	cols := int(int32(binary.LittleEndian.Uint32(data[4:8])))
	if rows < 1 || cols < 1 {
		return nil, 0, 0, fmt.Errorf("binary matrix: bad size %d×%d", rows, cols)
	}
	if want := 8 + 8*int64(rows)*int64(cols); int64(len(data)) != want {
		return nil, 0, 0, fmt.Errorf("binary matrix: %d×%d needs %d bytes, the file has %d", rows, cols, want, len(data))
	}
	U := make([]float64, rows*cols)
	for k := range U {
		U[k] = math.Float64frombits(binary.LittleEndian.Uint64(data[8+8*k:]))
	}
	return U, rows, cols, nil
}

func parseTextMatrix(data []byte) ([]float64, int, int, error) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	var rows, cols int
	var U []float64
	header := 0
	line := 0
	k := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if c := strings.IndexByte(text, '#'); c >= 0 {
			text = text[:c]
		}
		for _, f := range strings.Fields(text) {
			if header < 2 {
				v, err := strconv.Atoi(f)
				if err != nil || v < 1 {
					return nil, 0, 0, fmt.Errorf("line %d: matrix size %q: want a positive integer", line, f)
				}
				if header == 0 {
					rows = v
				} else {
					cols = v
					if int64(rows)*int64(cols) > 1<<31 {
						return nil, 0, 0, fmt.Errorf("line %d: matrix size %d×%d too large", line, rows, cols)
					}
					U = make([]float64, rows*cols)
				}
				header++
				continue
			}
			if k >= rows*cols {
				return nil, 0, 0, fmt.Errorf("line %d: more than %d×%d values", line, rows, cols)
			}
			v, err := strconv.ParseFloat(f, 64)
			if err != nil {
				return nil, 0, 0, fmt.Errorf("line %d: value %q is not a number", line, f)
			}
			i, j := k/cols, k%cols // row by row in the file
			U[rows*j+i] = v
			k++
		}
	}
	if err := sc.Err(); err != nil {
		return nil, 0, 0, err
	}
	if header < 2 {
		return nil, 0, 0, fmt.Errorf("missing the \"rows cols\" header")
	}
	if k != rows*cols {
		return nil, 0, 0, fmt.Errorf("%d values for a %d×%d matrix", k, rows, cols)
	}
	return U, rows, cols, nil
}

// WriteBasis writes the column-major rows×cols matrix U to path in the
// format of its extension (see ReadBasis; text and JSON values with
// %.17g, so they read back exactly). The file is written atomically (a
// temporary file in the same folder, renamed).
func WriteBasis(path string, U []float64, rows, cols int) error {
	if err := checkDims(rows, cols, len(U)); err != nil {
		return fmt.Errorf("modal: WriteBasis %s: %w", path, err)
	}
	var buf bytes.Buffer
	switch strings.ToLower(filepath.Ext(path)) {
	case ".json":
		buf.WriteString(fmt.Sprintf("{\"rows\": %d, \"cols\": %d, \"layout\": \"column-major: data[rows*j + i] = U_ij\", \"data\": [", rows, cols))
		for k, v := range U {
			if k > 0 {
				buf.WriteString(", ")
			}
			buf.WriteString(strconv.FormatFloat(v, 'g', 17, 64))
		}
		buf.WriteString("]}\n")
	case ".u", ".bin":
		var b8 [8]byte
		binary.LittleEndian.PutUint32(b8[0:4], uint32(rows))
		binary.LittleEndian.PutUint32(b8[4:8], uint32(cols))
		buf.Write(b8[:])
		for _, v := range U {
			binary.LittleEndian.PutUint64(b8[:], math.Float64bits(v))
			buf.Write(b8[:])
		}
	default:
		fmt.Fprintf(&buf, "%d %d\n", rows, cols)
		for i := 0; i < rows; i++ {
			for j := 0; j < cols; j++ {
				if j > 0 {
					buf.WriteByte(' ')
				}
				buf.WriteString(strconv.FormatFloat(U[rows*j+i], 'g', 17, 64))
			}
			buf.WriteByte('\n')
		}
	}
	return writeAtomic(path, buf.Bytes())
}

// writeAtomic writes data to path atomically (package atomicfile).
func writeAtomic(path string, data []byte) error {
	if err := atomicfile.WriteBytes(path, data); err != nil {
		return fmt.Errorf("modal: writing %s: %w", path, err)
	}
	return nil
}
