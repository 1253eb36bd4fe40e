package meshio

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// Every malformed file in testdata/bad is rejected with an *Error naming
// the file and the line at fault ("file:line: message"), the message saying
// what is wrong. The line numbers were counted by hand in each file.
func TestMalformed(t *testing.T) {
	for _, c := range []struct {
		file        string // in testdata/bad
		line        int    // 0: no single line (a missing section)
		msg         string
		unsupported bool // errors.Is(err, ErrUnsupported)
	}{
		// Gmsh
		{"msh22_truncated_nodes.msh", 7, "unexpected end of file: expected node 3 of 4", false},
		{"msh22_bad_number.msh", 7, `coordinate y: "0.5x" is not a number`, false},
		{"msh22_node_out_of_range.msh", 13, "node tag 9, which $Nodes does not define", false},
		{"msh22_wrong_count.msh", 9, "expected $EndNodes after 3 nodes", false},
		{"msh22_unknown_type.msh", 14, "unknown Gmsh element type 99", false},
		{"msh22_prism.msh", 17, "element type 6 (6-node prism) not supported", true},
		{"msh22_tet_too_few_nodes.msh", 13, "expected 9 fields, found 8", false},
		{"msh22_binary.msh", 2, "binary .msh not supported, save as ASCII", true},
		{"msh22_unclosed_section.msh", 4, "section $PhysicalNames has no $EndPhysicalNames", false},
		{"msh40_version.msh", 2, "Gmsh format version 4 not supported", true},
		{"msh41_block_count.msh", 12, "$Nodes header announces 4 nodes, the blocks hold 3", false},
		{"msh41_block_too_short.msh", 20, "expected a tag and 4 node tags, found 4 fields", false},
		{"msh41_truncated.msh", 19, "unexpected end of file: expected $EndElements", false},
		{"msh41_undefined_tag.msh", 19, "node tag 4, which $Nodes does not define", false},
		{"msh41_duplicate_tag.msh", 12, "node tag 2 defined twice", false},
		// VTK
		{"vtk_truncated_points.vtk", 8, "unexpected end of file: expected coordinate 2 of point 2", false},
		{"vtk_bad_number.vtk", 9, `"one" is not a number`, false},
		{"vtk_index_out_of_range.vtk", 11, "point index 4 out of range [0, 4)", false},
		{"vtk_types_count.vtk", 12, "CELL_TYPES has 2 entries, CELLS has 1 cells", false},
		{"vtk_cells_size.vtk", 10, "CELLS 1 6: the cells hold 5 numbers, not 6", false},
		{"vtk_wedge.vtk", 13, "cell type 13 not supported", true},
		{"vtk_hex_four_points.vtk", 11, "cell 0 of type 12 has 4 points, expected 8", false},
		{"vtk_tet_three_points.vtk", 11, "cell 0 of type 10 has 3 points, expected 4", false},
		{"vtk51_offsets.vtk", 10, "offset 2 = 3 is smaller than the previous one", false},
		{"vtk_binary.vtk", 3, "binary VTK not supported", true},
		{"vtk_polydata.vtk", 4, "DATASET POLYDATA not supported", true},
		// VTK XML (.vtu)
		{"vtu_not_xml.vtu", 12, "not well-formed XML: element <Points> closed by </Point>", false},
		{"vtu_truncated.vtu", 10, "not well-formed XML: unexpected EOF", false},
		{"vtu_bad_number.vtu", 9, `DataArray "Points": value 7: "1,5" is not a number`, false},
		{"vtu_nan_point.vtu", 8, `DataArray "Points": value 4 is nan, not finite`, false},
		{"vtu_points_count.vtu", 6, "Points has 11 coordinates, want 3 × NumberOfPoints = 12", false},
		{"vtu_index_out_of_range.vtu", 15, "point index 4 out of range [0, 4)", false},
		{"vtu_types_count.vtu", 20, "2 cell types for NumberOfCells = 1", false},
		{"vtu_offsets_order.vtu", 20, "offset 1 = 3 is smaller than the previous one (4)", false},
		{"vtu_tet_three_points.vtu", 18, "cell 0 of type 10 has 3 points, expected 4", false},
		{"vtu_repeated_vertex.vtu", 15, "cell 0: vertex 2 repeated", false},
		{"vtu_no_connectivity.vtu", 13, `no Cells array "connectivity"`, false},
		{"vtu_no_piece.vtu", 3, "UnstructuredGrid has no Piece", false},
		{"vtu_wedge.vtu", 21, "cell 0: cell type 13 not supported", true},
		{"vtu_hex_four_points.vtu", 18, "cell 0 of type 12 has 4 points, expected 8", false},
		{"vtu_binary.vtu", 17, `DataArray "offsets": format "binary" not supported: save the file with ASCII data`, true},
		{"vtu_polydata.vtu", 2, `VTKFile type "PolyData" not supported: only UnstructuredGrid`, true},
		{"vtu_two_pieces.vtu", 25, "a second Piece (the first is at line 4)", true},
		// TetGen (the file at fault may be the .node, .ele or .face)
		{"tetgen_numbering.node", 4, "point numbered 4, expected 3", false},
		{"tetgen_bad_number.ele", 5, `coordinate z: "1e" is not a number`, false},
		{"tetgen_index_out_of_range.ele", 2, "point number 0 out of range [1, 4]", false},
		{"tetgen_wrong_count.ele", 3, `unexpected "2 1 2 4 3" after the 1 tetrahedra`, false},
		{"tetgen_truncated.node", 3, "unexpected end of file: expected point 3 of 4", false},
		{"tetgen_second_order.ele", 1, "second-order (10-node) tetrahedra not supported", true},
		{"tetgen_attributes.node", 4, "expected 5 fields (number, x, y, z, 1 attributes, 0 markers), found 4", false},
		{"tetgen_face_range.node", 2, "point number 7 out of range [1, 4]", false},
		// Vega
		{"veg_truncated.veg", 4, "unexpected end of file: expected vertex 3 of 4", false},
		{"veg_bad_number.veg", 6, `coordinate z: "z" is not a number`, false},
		{"veg_zero_index.veg", 10, "vertex number 0 out of range [1, 4]", false},
		{"veg_wrong_count.veg", 12, "*MATERIAL after 1 elements: the header announces 2", false},
		{"veg_cubic.veg", 5, "cubic (hexahedral) .veg meshes not supported", true},
		{"veg_unknown_section.veg", 7, "unknown section *ELEMENT", false},
		{"veg_vertex_numbering.veg", 4, "vertex numbered 3, expected 2", false},
		{"veg_no_elements.veg", 0, "no *ELEMENTS section", false},
	} {
		path := filepath.Join("testdata", "bad", c.file)
		m, err := Read(path)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%s: got mesh %v, error %v; want an *Error", c.file, m != nil, err)
			continue
		}
		// TetGen errors name whichever of the files is at fault.
		if !strings.HasPrefix(e.File, strings.TrimSuffix(path, filepath.Ext(path))) {
			t.Errorf("%s: error names file %q", c.file, e.File)
		}
		prefix := e.File + ": "
		if c.line > 0 {
			prefix = fmt.Sprintf("%s:%d: ", e.File, c.line)
		}
		if s := err.Error(); !strings.HasPrefix(s, prefix) || !strings.Contains(s, c.msg) {
			t.Errorf("%s: error\n\t%s\nwant prefix %q and %q", c.file, s, prefix, c.msg)
		}
		if errors.Is(err, ErrUnsupported) != c.unsupported {
			t.Errorf("%s: errors.Is(err, ErrUnsupported) = %v", c.file, !c.unsupported)
		}
	}
}
