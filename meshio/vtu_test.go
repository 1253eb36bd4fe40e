package meshio

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// sameGrid reports the first difference between two grids: numbers bit
// for bit (any NaN equals any NaN: its payload is not kept by text),
// cells and names exactly.
func sameGrid(got, want *VTUGrid) error {
	same := func(what string, a, b []float64) error {
		if len(a) != len(b) {
			return fmt.Errorf("%s: %d values, want %d", what, len(a), len(b))
		}
		for i := range a {
			if math.Float64bits(a[i]) != math.Float64bits(b[i]) && !(math.IsNaN(a[i]) && math.IsNaN(b[i])) {
				return fmt.Errorf("%s[%d] = %v, want %v", what, i, a[i], b[i])
			}
		}
		return nil
	}
	if err := same("points", got.Points, want.Points); err != nil {
		return err
	}
	if err := same("time", []float64{got.Time}, []float64{want.Time}); err != nil {
		return err
	}
	if fmt.Sprint(got.Connectivity, got.Offsets, got.Types) != fmt.Sprint(want.Connectivity, want.Offsets, want.Types) {
		return fmt.Errorf("cells %v %v %v, want %v %v %v", got.Connectivity, got.Offsets, got.Types, want.Connectivity, want.Offsets, want.Types)
	}
	for _, kind := range []struct {
		what      string
		got, want []VTUArray
	}{{"point data", got.PointData, want.PointData}, {"cell data", got.CellData, want.CellData}} {
		if len(kind.got) != len(kind.want) {
			return fmt.Errorf("%d %s arrays, want %d", len(kind.got), kind.what, len(kind.want))
		}
		for i, a := range kind.got {
			b := kind.want[i]
			if a.Name != b.Name || a.Components != b.Components {
				return fmt.Errorf("%s %d: %q with %d components, want %q with %d", kind.what, i, a.Name, a.Components, b.Name, b.Components)
			}
			if err := same(kind.what+" "+a.Name, a.Values, b.Values); err != nil {
				return err
			}
		}
	}
	return nil
}

// The hand-written sample as a grid: the time, the point and cell data
// (Float32, Int64, two components, an InformationKey inside the array)
// and all six cells, vertex and line included.
func TestVTUGridSample(t *testing.T) {
	data, err := readFile("testdata/vtu_sample.vtu")
	if err != nil {
		t.Fatal(err)
	}
	g, err := ParseVTUGrid("vtu_sample.vtu", data)
	if err != nil {
		t.Fatal(err)
	}
	want := &VTUGrid{
		Points:       fivePoints.Points,
		Connectivity: []int{0, 0, 1, 2, 3, 3, 4, 0, 2, 1, 1, 2, 3, 4, 1, 2, 4},
		Offsets:      []int{1, 5, 7, 10, 14, 17},
		Types:        []uint8{1, 10, 3, 5, 10, 5},
		PointData:    []VTUArray{{"temperature", 1, []float64{0, 1, 2, 3, 4}}},
		CellData:     []VTUArray{{"region", 2, []float64{1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6}}},
		Time:         2.5,
	}
	if err := sameGrid(g, want); err != nil {
		t.Fatal(err)
	}
	// Written and read back: the same grid.
	var buf bytes.Buffer
	if err := EncodeVTUGrid(&buf, g); err != nil {
		t.Fatal(err)
	}
	back, err := ParseVTUGrid("back.vtu", buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if err := sameGrid(back, want); err != nil {
		t.Fatal(err)
	}
}

// Names with XML's special characters and white space survive a round
// trip (white space in attributes is written as character references,
// which attribute-value normalisation keeps).
func TestVTUNamesRoundTrip(t *testing.T) {
	g := &VTUGrid{Points: []float64{0, 0, 0}, PointData: []VTUArray{{"a&b\"<c>\t d\ne\r", 1, []float64{math.Inf(-1)}}}}
	var buf bytes.Buffer
	if err := EncodeVTUGrid(&buf, g); err != nil {
		t.Fatal(err)
	}
	back, err := ParseVTUGrid("names.vtu", buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if err := sameGrid(back, g); err != nil {
		t.Fatalf("%v\n%s", err, buf.Bytes())
	}
}

// Polyhedral cells: a grid with a tetrahedron and a polyhedron (a
// pyramid) round-trips through EncodeVTUGrid/ParseVTUGrid with its face
// streams; inconsistent streams are refused.
func TestVTUPolyhedra(t *testing.T) {
	g := &VTUGrid{
		Points:       []float64{0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0.5, 0.5, 1},
		Connectivity: []int{0, 1, 3, 4, 0, 3, 2, 1, 4},
		Offsets:      []int{4, 9},
		Types:        []uint8{VTKTetrahedron, VTKPolyhedron},
		Faces:        []int{5, 4, 0, 3, 2, 1, 3, 1, 0, 4, 3, 2, 1, 4, 3, 3, 2, 4, 3, 0, 3, 4},
		FaceOffsets:  []int{-1, 22},
	}
	var buf bytes.Buffer
	if err := EncodeVTUGrid(&buf, g); err != nil {
		t.Fatal(err)
	}
	back, err := ParseVTUGrid("p.vtu", buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(back.Faces, g.Faces) || !slices.Equal(back.FaceOffsets, g.FaceOffsets) {
		t.Errorf("faces %v / %v, wrote %v / %v", back.Faces, back.FaceOffsets, g.Faces, g.FaceOffsets)
	}
	for _, c := range []struct {
		mod  func(*VTUGrid)
		want string
	}{
		{func(g *VTUGrid) { g.FaceOffsets = nil }, "0 face offsets for 2 cells"},
		{func(g *VTUGrid) { g.FaceOffsets = []int{0, 22} }, "cell 0 (type 10) has face offset 0, want -1"},
		{func(g *VTUGrid) { g.Faces = append(g.Faces[:21:21], 7) }, "face 4 point 7 outside the 5 points"},
		{func(g *VTUGrid) { g.Faces = append([]int{6}, g.Faces[1:]...) }, "face 5 is truncated"},
	} {
		b := *g
		b.Faces = slices.Clone(g.Faces)
		c.mod(&b)
		if err := b.Check(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
}
