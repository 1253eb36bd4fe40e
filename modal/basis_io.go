package modal

import "errors"

// ReadBasis reads a dense matrix (a basis U, or deformation snapshots as
// columns) from path, by extension:
//
//   - ".json": an object with "rows", "cols" and "data" (column-major,
//     rows·cols numbers), or VegaFEM reference layout {"r": cols, "U":
//     column-major} as in testdata/vega/reduced.json;
//   - ".U", ".bin": VegaFEM's binary matrix (ReadMatrixFromDisk): int32
//     rows, int32 cols, then rows·cols float64 column-major, little-endian;
//   - anything else: text, first line "rows cols", then the rows·cols
//     values row by row (whitespace-separated; any line breaks), '#'
//     starting a comment line.
//
// U is returned column-major: U[rows·j + i] = Uᵢⱼ.
func ReadBasis(path string) (U []float64, rows, cols int, err error) {
	return nil, 0, 0, errors.New("modal: ReadBasis not implemented yet") // TODO(6a)
}

// WriteBasis writes the column-major rows×cols matrix U to path in the
// format of its extension (see ReadBasis; text values with %.17g so they
// read back exactly). The file is written atomically (a temporary file in
// the same directory, renamed).
func WriteBasis(path string, U []float64, rows, cols int) error {
	return errors.New("modal: WriteBasis not implemented yet") // TODO(6a)
}
