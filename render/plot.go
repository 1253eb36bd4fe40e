package render

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"

	"github.com/sofago/sofago/components/visual"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Size of the energy plot: 8 × 4.5 in, 768 × 432 pixels at gonum's 96 dpi.
const (
	plotWidth  = 8 * vg.Inch
	plotHeight = 4.5 * vg.Inch
)

// legendPad is the space around the energy plot's legend, which stands
// in its own column right of the axes (so no curve runs under it, and
// nothing of it reaches the picture's edge).
const legendPad = vg.Length(8) // points

// EnergyPlot writes a PNG plot (gonum.org/v1/plot) of the kinetic,
// potential and total energy against time: time in s, energies in J. The
// slices have one entry per recorded step.
func EnergyPlot(w io.Writer, title string, time, kinetic, potential []float64) error {
	c := vgimg.New(plotWidth, plotHeight)
	if _, err := drawEnergyPlot(draw.New(c), title, time, kinetic, potential); err != nil {
		return err
	}
	_, err := vgimg.PngCanvas{Canvas: c}.WriteTo(w)
	return err
}

// energyLayout is where the parts of an energy plot went on its canvas.
type energyLayout struct {
	data, legend vg.Rectangle // the curves' area; the legend's extent
}

// drawEnergyPlot draws the energy plot on c: the axes and curves on the
// left, the legend in a column on the right, top-aligned with the curves'
// area. Both axes are marked by niceTicks.
func drawEnergyPlot(c draw.Canvas, title string, time, kinetic, potential []float64) (energyLayout, error) {
	if len(time) == 0 || len(kinetic) != len(time) || len(potential) != len(time) {
		return energyLayout{}, fmt.Errorf("energy plot: %d times, %d kinetic, %d potential values", len(time), len(kinetic), len(potential))
	}
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "time (s)"
	p.Y.Label.Text = "energy (J)"
	p.X.Tick.Marker = niceTicks{}
	p.Y.Tick.Marker = niceTicks{}
	p.Add(plotter.NewGrid())
	legend := plot.NewLegend()
	legend.Left, legend.Top = true, true
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
	var width vg.Length
	for _, s := range series {
		xy := make(plotter.XYs, len(time))
		for i := range time {
			xy[i].X, xy[i].Y = time[i], s.value(i)
			if math.IsNaN(xy[i].Y) || math.IsInf(xy[i].Y, 0) || math.IsNaN(time[i]) || math.IsInf(time[i], 0) {
				return energyLayout{}, fmt.Errorf("energy plot: %s energy at t = %g s is %g", s.name, time[i], xy[i].Y)
			}
		}
		l, err := plotter.NewLine(xy)
		if err != nil {
			return energyLayout{}, fmt.Errorf("energy plot: %s: %w", s.name, err)
		}
		l.LineStyle = draw.LineStyle{Color: s.color, Width: vg.Points(1.5), Dashes: s.dash}
		p.Add(l)
		legend.Add(s.name, l)
		width = max(width, legend.ThumbnailWidth+legend.TextStyle.Rectangle(" "+s.name).Max.X)
	}
	// The plot takes the canvas but a column of the legend's width with
	// its padding on each side, and a margin of half the padding on the
	// other sides (gonum draws the axis label and title at the very edge).
	plotArea := draw.Crop(c, legendPad/2, -(width + 2*legendPad), legendPad/2, -legendPad/2)
	p.Draw(plotArea)
	data := p.DataCanvas(plotArea)
	x0 := plotArea.Max.X + legendPad
	lc := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
		Min: vg.Point{X: x0, Y: data.Min.Y},
		Max: vg.Point{X: x0 + width, Y: data.Max.Y},
	}}
	legend.Draw(lc)
	// The legend's extent, as Legend.Draw lays it out from the top: one
	// entry height per entry, from its top edge.
	var h vg.Length
	for _, s := range series {
		h = max(h, legend.TextStyle.Rectangle(s.name).Max.Y)
	}
	fe := legend.TextStyle.FontExtents()
	lay := energyLayout{data: data.Rectangle, legend: vg.Rectangle{
		Min: vg.Point{X: x0, Y: lc.Max.Y - vg.Length(len(series))*(h+legend.Padding) - fe.Descent},
		Max: vg.Point{X: x0 + width, Y: lc.Max.Y},
	}}
	return lay, nil
}

// WriteEnergyPlot writes EnergyPlot to path atomically.
func WriteEnergyPlot(path, title string, time, kinetic, potential []float64) error {
	return visual.AtomicWrite(path, false, func(w io.Writer) error { return EnergyPlot(w, title, time, kinetic, potential) })
}

// niceTicks marks an axis with labelled ticks at the multiples of a
// round step (1, 2 or 5 × 10ⁿ) in the range: the largest step that gives
// at least minLabels of them (so at most about 2.5 × minLabels), and
// unlabelled minor ticks between them (5 per step of 1 or 5 × 10ⁿ, 4 per
// step of 2 × 10ⁿ). Labels are written with the step's decimals only —
// "0.3", not 0.30000000000000004 — or in exponent form for steps below
// 10⁻⁴ or from 10⁶ up.
type niceTicks struct{}

// minLabels is the fewest labelled ticks on an axis.
const minLabels = 5

func (niceTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return []plot.Tick{{Value: lo, Label: strconv.FormatFloat(lo, 'g', 6, 64)}}
	}
	// From a step that gives at least minLabels, up while it still does.
	step := math.Pow(10, math.Floor(math.Log10((hi-lo)/minLabels))-1)
	mant := 1.0
	for {
		next, nm := nextNice(step, mant)
		if count(lo, hi, next) < minLabels {
			break
		}
		step, mant = next, nm
	}
	k0, k1 := math.Ceil(lo/step-1e-9), math.Floor(hi/step+1e-9)
	var ticks []plot.Tick
	for k := k0; k <= k1; k++ {
		v := k * step
		ticks = append(ticks, plot.Tick{Value: v, Label: tickLabel(k, step)})
	}
	minor := step / 5
	if mant == 2 {
		minor = step / 4
	}
	m0, m1 := math.Ceil(lo/minor-1e-9), math.Floor(hi/minor+1e-9)
	per := math.Round(step / minor)
	for m := m0; m <= m1; m++ {
		if math.Mod(m, per) != 0 {
			ticks = append(ticks, plot.Tick{Value: m * minor})
		}
	}
	return ticks
}

// nextNice returns the round step after step (whose mantissa is mant):
// 1 → 2 → 5 → 10.
func nextNice(step, mant float64) (float64, float64) {
	switch mant {
	case 1:
		return step * 2, 2
	case 2:
		return step * 2.5, 5
	}
	return step * 2, 1
}

// count returns the number of multiples of step in [lo, hi].
func count(lo, hi, step float64) int {
	return int(math.Floor(hi/step+1e-9)-math.Ceil(lo/step-1e-9)) + 1
}

// tickLabel writes k·step with as many decimals as the step has.
func tickLabel(k, step float64) string {
	v := k * step
	if k == 0 {
		return "0"
	}
	e := int(math.Floor(math.Log10(step) + 1e-9))
	if step < 1e-4 || step >= 1e6 {
		// Significant digits: down to the step's digit.
		// Rounded there, then written shortest: 5e-06, 1e-05, 1.5e-05.
		digits := int(math.Floor(math.Log10(math.Abs(v))+1e-9)) - e + 1
		r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'e', max(digits-1, 0), 64), 64)
		return strconv.FormatFloat(r, 'g', -1, 64)
	}
	return strconv.FormatFloat(v, 'f', max(-e, 0), 64)
}
