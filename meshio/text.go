package meshio

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
)

// lineReader walks the lines of a text file held in memory, counting them
// (1-based) so that every reader can name the line at fault.
type lineReader struct {
	file string
	data []byte
	pos  int
	line int // number of the line returned last
}

func newLineReader(file string, data []byte) *lineReader {
	return &lineReader{file: file, data: data}
}

// next returns the next line without its end-of-line characters (\n, \r\n
// or a lone \r at the end), and false at the end of the data.
func (r *lineReader) next() (string, bool) {
	if r.pos >= len(r.data) {
		return "", false
	}
	rest := r.data[r.pos:]
	end := bytes.IndexByte(rest, '\n')
	var s []byte
	if end < 0 {
		s, r.pos = rest, len(r.data)
	} else {
		s, r.pos = rest[:end], r.pos+end+1
	}
	r.line++
	return string(bytes.TrimSuffix(s, []byte{'\r'})), true
}

// errorf returns an *Error at the line returned last.
func (r *lineReader) errorf(format string, args ...any) error {
	return errorAt(r.file, r.line, format, args...)
}

// unsupportedf returns an *Error at the line returned last that matches
// ErrUnsupported.
func (r *lineReader) unsupportedf(format string, args ...any) error {
	return &Error{File: r.file, Line: r.line, Err: unsupportedf(format, args...)}
}

// eofError is the error for data that ends inside a section.
func (r *lineReader) eofError(what string) error {
	return errorAt(r.file, r.line, "unexpected end of file: %s", what)
}

// remaining returns the number of bytes not read yet; readers use it to
// bound preallocations by what the file can actually hold, so a header
// claiming a billion entries cannot exhaust memory.
func (r *lineReader) remaining() int { return len(r.data) - r.pos }

// capHint bounds a count read from a file by what the rest of the file can
// hold, each entry taking at least minBytes bytes.
func capHint(count, remaining, minBytes int) int {
	if maxN := remaining/minBytes + 1; count > maxN {
		return maxN
	}
	if count < 0 {
		return 0
	}
	return count
}

// parseInt parses a decimal integer field; what names the field in errors.
func parseInt(s, what string) (int, error) {
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %q is not an integer", what, s)
	}
	if v > 1<<53 || v < -(1<<53) {
		return 0, fmt.Errorf("%s: %s is out of range", what, s)
	}
	return int(v), nil
}

// parseCount parses a non-negative integer count.
func parseCount(s, what string) (int, error) {
	v, err := parseInt(s, what)
	if err != nil {
		return 0, err
	}
	if v < 0 {
		return 0, fmt.Errorf("%s: %d is negative", what, v)
	}
	return v, nil
}

// parseCoord parses a finite floating-point coordinate.
func parseCoord(s, what string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %q is not a number", what, s)
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%s: %s is not finite", what, s)
	}
	return v, nil
}

// formatFloat writes the shortest decimal that reads back as exactly v.
func formatFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// readFile reads a whole mesh file, wrapping errors in *Error.
func readFile(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &Error{File: path, Err: err}
	}
	return data, nil
}

// isBlankOrComment reports whether a line is empty or starts (after
// spaces) with the comment character c.
func isBlankOrComment(line string, c byte) bool {
	t := strings.TrimSpace(line)
	return t == "" || t[0] == c
}
