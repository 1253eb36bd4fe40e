package visual

import (
	"encoding/xml"
	"fmt"
	"io"
	"strconv"

	"github.com/sofago/sofago/meshio"
)

// ReadVTU parses an ASCII .vtu file as WriteVTU writes it (and as
// ParaView saves it with ASCII data): points, cells, point and cell data
// and the time, through meshio.ParseVTUGrid, so errors name the line. The
// file is named in errors if r has a Name method (an *os.File). It exists
// to check written files (tests, tools); MeshLoader reads .vtu meshes.
func ReadVTU(r io.Reader) (*Grid, error) {
	name := "vtu"
	if n, ok := r.(interface{ Name() string }); ok {
		name = n.Name()
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return meshio.ParseVTUGrid(name, data)
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
