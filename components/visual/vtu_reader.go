package visual

import (
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// ReadVTU parses an ASCII XML UnstructuredGrid with one piece, as WriteVTU
// writes it: points, cells and Float64 point and cell data arrays. It exists to
// check written files (tests, tools); it does not read binary or appended
// data.
func ReadVTU(r io.Reader) (*Grid, error) {
	var doc struct {
		XMLName xml.Name `xml:"VTKFile"`
		Type    string   `xml:"type,attr"`
		Grid    struct {
			FieldData struct {
				Arrays []xmlArray `xml:"DataArray"`
			} `xml:"FieldData"`
			Pieces []struct {
				NumberOfPoints int `xml:"NumberOfPoints,attr"`
				NumberOfCells  int `xml:"NumberOfCells,attr"`
				PointData      struct {
					Arrays []xmlArray `xml:"DataArray"`
				} `xml:"PointData"`
				CellData struct {
					Arrays []xmlArray `xml:"DataArray"`
				} `xml:"CellData"`
				Points struct {
					Arrays []xmlArray `xml:"DataArray"`
				} `xml:"Points"`
				Cells struct {
					Arrays []xmlArray `xml:"DataArray"`
				} `xml:"Cells"`
			} `xml:"Piece"`
		} `xml:"UnstructuredGrid"`
	}
	if err := xml.NewDecoder(r).Decode(&doc); err != nil {
		return nil, fmt.Errorf("vtu: %w", err)
	}
	if doc.Type != "UnstructuredGrid" {
		return nil, fmt.Errorf("vtu: file type %q, want UnstructuredGrid", doc.Type)
	}
	if len(doc.Grid.Pieces) != 1 {
		return nil, fmt.Errorf("vtu: %d pieces, want 1", len(doc.Grid.Pieces))
	}
	p := doc.Grid.Pieces[0]
	g := &Grid{}
	for _, a := range doc.Grid.FieldData.Arrays {
		if a.Name == "TimeValue" {
			v, err := a.floats()
			if err != nil || len(v) != 1 {
				return nil, fmt.Errorf("vtu: bad TimeValue %q", a.Text)
			}
			g.Time = v[0]
		}
	}
	if len(p.Points.Arrays) != 1 {
		return nil, fmt.Errorf("vtu: Points has %d arrays, want 1", len(p.Points.Arrays))
	}
	var err error
	if g.Points, err = p.Points.Arrays[0].floats(); err != nil {
		return nil, fmt.Errorf("vtu: Points: %w", err)
	}
	if len(g.Points) != 3*p.NumberOfPoints {
		return nil, fmt.Errorf("vtu: %d point coordinates for NumberOfPoints = %d", len(g.Points), p.NumberOfPoints)
	}
	for _, a := range p.Cells.Arrays {
		v, err := a.ints()
		if err != nil {
			return nil, fmt.Errorf("vtu: cells %q: %w", a.Name, err)
		}
		switch a.Name {
		case "connectivity":
			g.Connectivity = v
		case "offsets":
			g.Offsets = v
		case "types":
			g.Types = make([]uint8, len(v))
			for i, t := range v {
				if t < 0 || t > 255 {
					return nil, fmt.Errorf("vtu: cell type %d out of range", t)
				}
				g.Types[i] = uint8(t)
			}
		}
	}
	if len(g.Types) != p.NumberOfCells {
		return nil, fmt.Errorf("vtu: %d cell types for NumberOfCells = %d", len(g.Types), p.NumberOfCells)
	}
	for _, a := range p.PointData.Arrays {
		v, err := a.floats()
		if err != nil {
			return nil, fmt.Errorf("vtu: point data %q: %w", a.Name, err)
		}
		nc := a.Components
		if nc == 0 {
			nc = 1
		}
		g.PointData = append(g.PointData, DataArray{Name: a.Name, Components: nc, Values: v})
	}
	for _, a := range p.CellData.Arrays {
		v, err := a.floats()
		if err != nil {
			return nil, fmt.Errorf("vtu: cell data %q: %w", a.Name, err)
		}
		nc := a.Components
		if nc == 0 {
			nc = 1
		}
		g.CellData = append(g.CellData, DataArray{Name: a.Name, Components: nc, Values: v})
	}
	if err := g.check(); err != nil {
		return nil, err
	}
	return g, nil
}

// ReadPVD parses a ParaView collection file into its datasets, in order.
func ReadPVD(r io.Reader) ([]PVDEntry, error) {
	var doc struct {
		XMLName  xml.Name `xml:"VTKFile"`
		Type     string   `xml:"type,attr"`
		DataSets []struct {
			Timestep string `xml:"timestep,attr"`
			File     string `xml:"file,attr"`
		} `xml:"Collection>DataSet"`
	}
	if err := xml.NewDecoder(r).Decode(&doc); err != nil {
		return nil, fmt.Errorf("pvd: %w", err)
	}
	if doc.Type != "Collection" {
		return nil, fmt.Errorf("pvd: file type %q, want Collection", doc.Type)
	}
	out := make([]PVDEntry, len(doc.DataSets))
	for i, d := range doc.DataSets {
		t, err := strconv.ParseFloat(d.Timestep, 64)
		if err != nil {
			return nil, fmt.Errorf("pvd: dataset %d: timestep %q: %w", i, d.Timestep, err)
		}
		out[i] = PVDEntry{Time: t, File: d.File}
	}
	return out, nil
}

type xmlArray struct {
	Name       string `xml:"Name,attr"`
	Type       string `xml:"type,attr"`
	Components int    `xml:"NumberOfComponents,attr"`
	Format     string `xml:"format,attr"`
	Text       string `xml:",chardata"`
}

func (a *xmlArray) checkASCII() error {
	if a.Format != "" && a.Format != "ascii" {
		return fmt.Errorf("format %q not supported (ascii only)", a.Format)
	}
	return nil
}

func (a *xmlArray) floats() ([]float64, error) {
	if err := a.checkASCII(); err != nil {
		return nil, err
	}
	fields := strings.Fields(a.Text)
	out := make([]float64, len(fields))
	for i, f := range fields {
		x, err := strconv.ParseFloat(f, 64)
		if err != nil {
			return nil, err
		}
		out[i] = x
	}
	return out, nil
}

func (a *xmlArray) ints() ([]int, error) {
	if err := a.checkASCII(); err != nil {
		return nil, err
	}
	fields := strings.Fields(a.Text)
	out := make([]int, len(fields))
	for i, f := range fields {
		x, err := strconv.Atoi(f)
		if err != nil {
			return nil, err
		}
		out[i] = x
	}
	return out, nil
}
