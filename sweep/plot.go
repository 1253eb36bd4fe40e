package sweep

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/sofago/sofago/atomicfile"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// PlotOptions configure Plot.
type PlotOptions struct {
	X, Y       string // a parameter path and a figure name
	Abs        bool   // plot |y|
	LogX, LogY bool
	// Fit adds the least-squares power law y = a·x^b through the points
	// (in log-log scale; needs positive x and y).
	Fit bool
	// Ref adds a reference power law: "LABEL=A*x^B" (a closed form to
	// compare with).
	Ref    string
	Title  string
	XLabel string
	YLabel string
}

// Plot draws a figure of the ok tasks against a parameter as a PNG
// (gonum.org/v1/plot), points joined in order of x.
func (t *Table) Plot(w io.Writer, opt PlotOptions) error {
	xi := -1
	for i, p := range t.Parameters {
		if p == opt.X {
			xi = i
		}
	}
	if xi < 0 {
		return fmt.Errorf("plot: %q is not a parameter of the sweep (parameters: %v)", opt.X, t.Parameters)
	}
	var xy plotter.XYs
	for _, r := range t.Rows {
		if r.State.Status != StatusOK {
			continue
		}
		x, err := strconv.ParseFloat(cell(r.Values[xi]), 64)
		if err != nil {
			return fmt.Errorf("plot: parameter %q of task %d is not a number", opt.X, r.Task)
		}
		yv, ok := r.figure(opt.Y).(float64)
		if !ok {
			return fmt.Errorf("plot: figure %q of task %d is not a number (figures: %v)", opt.Y, r.Task, t.Figures)
		}
		if opt.Abs {
			yv = math.Abs(yv)
		}
		xy = append(xy, plotter.XY{X: x, Y: yv})
	}
	if len(xy) == 0 {
		return fmt.Errorf("plot: no task finished ok")
	}
	sort.Slice(xy, func(i, j int) bool { return xy[i].X < xy[j].X })
	p := plot.New()
	p.Title.Text = opt.Title
	p.X.Label.Text = orDefault(opt.XLabel, opt.X)
	p.Y.Label.Text = orDefault(opt.YLabel, opt.Y)
	if opt.LogX {
		p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	}
	if opt.LogY {
		p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	}
	p.Add(plotter.NewGrid())
	line, points, err := plotter.NewLinePoints(xy)
	if err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	blue := color.RGBA{R: 40, G: 90, B: 190, A: 255}
	line.LineStyle = draw.LineStyle{Color: blue, Width: vg.Points(1.5)}
	points.Shape, points.Color, points.Radius = draw.CircleGlyph{}, blue, vg.Points(3)
	p.Add(line, points)
	p.Legend.Add(fmt.Sprintf("%s (%d runs)", opt.Y, len(xy)), line, points)
	if opt.Fit {
		a, b, err := powerFit(xy)
		if err != nil {
			return err
		}
		fit := plotter.NewFunction(func(x float64) float64 { return a * math.Pow(x, b) })
		fit.XMin, fit.XMax = xy[0].X, xy[len(xy)-1].X
		fit.Samples = 200
		fit.LineStyle = draw.LineStyle{Color: color.RGBA{R: 200, G: 80, B: 30, A: 255}, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}
		p.Add(fit)
		p.Legend.Add(fmt.Sprintf("least-squares fit %.4g·x^%.4f", a, b), fit)
	}
	if opt.Ref != "" {
		label, a, b, err := parseRef(opt.Ref)
		if err != nil {
			return err
		}
		ref := plotter.NewFunction(func(x float64) float64 { return a * math.Pow(x, b) })
		ref.XMin, ref.XMax = xy[0].X, xy[len(xy)-1].X
		ref.Samples = 200
		ref.LineStyle = draw.LineStyle{Color: color.RGBA{R: 60, G: 60, B: 60, A: 255}, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(1.5), vg.Points(2.5)}}
		p.Add(ref)
		p.Legend.Add(label, ref)
		// Functions do not widen the axes: take the reference's ends in.
		for _, x := range []float64{xy[0].X, xy[len(xy)-1].X} {
			y := a * math.Pow(x, b)
			p.Y.Min, p.Y.Max = math.Min(p.Y.Min, y), math.Max(p.Y.Max, y)
		}
	}
	// Decreasing data: the legend in the empty lower left corner.
	p.Legend.Top = xy[0].Y <= xy[len(xy)-1].Y
	p.Legend.Left = !p.Legend.Top
	wt, err := p.WriterTo(7*vg.Inch, 4.5*vg.Inch, "png")
	if err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	_, err = wt.WriteTo(w)
	return err
}

// WritePlot writes Plot to path atomically.
func (t *Table) WritePlot(path string, opt PlotOptions) error {
	return atomicfile.Write(path, false, func(w io.Writer) error { return t.Plot(w, opt) })
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// parseRef parses "LABEL=A*x^B".
func parseRef(s string) (label string, a, b float64, err error) {
	i := strings.LastIndex(s, "=")
	if i < 0 {
		return "", 0, 0, fmt.Errorf("plot: -ref %q: want LABEL=A*x^B", s)
	}
	label = s[:i]
	as, bs, ok := strings.Cut(strings.ReplaceAll(s[i+1:], " ", ""), "*x^")
	if ok {
		a, err = strconv.ParseFloat(as, 64)
		if err == nil {
			b, err = strconv.ParseFloat(bs, 64)
		}
	}
	if !ok || err != nil || !finite(a) || !finite(b) {
		return "", 0, 0, fmt.Errorf("plot: -ref %q: want LABEL=A*x^B with numbers A and B", s)
	}
	return label, a, b, nil
}

// powerFit fits y = a·x^b by least squares on (ln x, ln y).
func powerFit(xy plotter.XYs) (a, b float64, err error) {
	var sx, sy, sxx, sxy float64
	n := float64(len(xy))
	for _, p := range xy {
		if p.X <= 0 || p.Y <= 0 {
			return 0, 0, fmt.Errorf("plot: a power-law fit needs positive x and y (use -abs for deflections)")
		}
		lx, ly := math.Log(p.X), math.Log(p.Y)
		sx, sy, sxx, sxy = sx+lx, sy+ly, sxx+lx*lx, sxy+lx*ly
	}
	den := n*sxx - sx*sx
	if len(xy) < 2 || den == 0 {
		return 0, 0, fmt.Errorf("plot: a fit needs two distinct x")
	}
	b = (n*sxy - sx*sy) / den
	a = math.Exp((sy - b*sx) / n)
	return a, b, nil
}
