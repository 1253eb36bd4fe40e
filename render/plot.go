package render

import (
	"fmt"
	"image/color"
	"io"

	"github.com/sofago/sofago/components/visual"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// EnergyPlot writes a PNG plot (gonum.org/v1/plot) of the kinetic,
// potential and total energy against time: time in s, energies in J. The
// slices have one entry per recorded step.
func EnergyPlot(w io.Writer, title string, time, kinetic, potential []float64) error {
	if len(time) == 0 || len(kinetic) != len(time) || len(potential) != len(time) {
		return fmt.Errorf("energy plot: %d times, %d kinetic, %d potential values", len(time), len(kinetic), len(potential))
	}
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "time (s)"
	p.Y.Label.Text = "energy (J)"
	p.Add(plotter.NewGrid())
	series := []struct {
		name  string
		color color.Color
		value func(i int) float64
		dash  []vg.Length
	}{
		{"kinetic", color.RGBA{R: 200, G: 80, B: 30, A: 255}, func(i int) float64 { return kinetic[i] }, nil},
		{"potential", color.RGBA{R: 40, G: 90, B: 190, A: 255}, func(i int) float64 { return potential[i] }, nil},
		{"total", color.RGBA{R: 40, G: 40, B: 40, A: 255}, func(i int) float64 { return kinetic[i] + potential[i] }, []vg.Length{vg.Points(4), vg.Points(3)}},
	}
	for _, s := range series {
		xy := make(plotter.XYs, len(time))
		for i := range time {
			xy[i].X, xy[i].Y = time[i], s.value(i)
		}
		l, err := plotter.NewLine(xy)
		if err != nil {
			return fmt.Errorf("energy plot: %s: %w", s.name, err)
		}
		l.LineStyle = draw.LineStyle{Color: s.color, Width: vg.Points(1.5), Dashes: s.dash}
		p.Add(l)
		p.Legend.Add(s.name, l)
	}
	p.Legend.Top = true
	wt, err := p.WriterTo(8*vg.Inch, 4.5*vg.Inch, "png")
	if err != nil {
		return fmt.Errorf("energy plot: %w", err)
	}
	_, err = wt.WriteTo(w)
	return err
}

// WriteEnergyPlot writes EnergyPlot to path atomically.
func WriteEnergyPlot(path, title string, time, kinetic, potential []float64) error {
	return visual.AtomicWrite(path, false, func(w io.Writer) error { return EnergyPlot(w, title, time, kinetic, potential) })
}
