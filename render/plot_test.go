package render

import (
	"bytes"
	"image/png"
	"math"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// The energy plot's legend stands inside the picture, clear of its edges
// by the legend padding, and beside the curves' area, not over it; in the
// PNG, the legend's line samples are in their colours inside its extent
// and nothing is drawn in the outermost columns (nothing clipped at the
// sides).
func TestEnergyPlotLayout(t *testing.T) {
	n := 201
	tm, k, p := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range tm {
		tm[i] = 0.01 * float64(i) // 0 to 2 s, as the cantilever
		k[i] = math.Exp(-tm[i]) * math.Sin(5*tm[i]) * math.Sin(5*tm[i])
		p[i] = 4 - k[i]
	}
	c := vgimg.New(plotWidth, plotHeight)
	lay, err := drawEnergyPlot(draw.New(c), "cantilever.toml", tm, k, p)
	if err != nil {
		t.Fatal(err)
	}
	lg, data := lay.legend, lay.data
	pad := legendPad - 1e-9
	if lg.Min.X < pad || lg.Max.X > plotWidth-pad || lg.Min.Y < pad || lg.Max.Y > plotHeight-pad {
		t.Errorf("legend %v is not inside the %v × %v picture with %v to spare", lg, plotWidth, plotHeight, legendPad)
	}
	if lg.Min.X < data.Max.X+pad {
		t.Errorf("legend %v overlaps the curves' area %v", lg, data)
	}
	var buf bytes.Buffer
	if err := EnergyPlot(&buf, "cantilever.toml", tm, k, p); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	b := img.Bounds()
	// vg lengths are points; the PNG has 96 dpi: px = pt·96/72, y down.
	px := func(l vg.Length) int { return int(math.Round(float64(l) * 96 / 72)) }
	x0, x1 := px(lg.Min.X), px(lg.Max.X)
	y0, y1 := b.Dy()-px(lg.Max.Y), b.Dy()-px(lg.Min.Y)
	swatches := map[[3]uint32]string{{200, 80, 30}: "kinetic", {40, 90, 190}: "potential", {40, 40, 40}: "total"}
	found := map[string]bool{}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if (x < 3 || x >= b.Dx()-3) && (r>>8 != 255 || g>>8 != 255 || bl>>8 != 255) {
				t.Fatalf("pixel (%d, %d) at the picture's side is drawn: something is clipped", x, y)
			}
			if name, ok := swatches[[3]uint32{r >> 8, g >> 8, bl >> 8}]; ok && x >= x0 && x <= x1 && y >= y0 && y <= y1 {
				found[name] = true
			}
		}
	}
	if len(found) != 3 {
		t.Errorf("legend swatches found in its extent: %v", found)
	}
}

// Axis ticks: at least 5 labelled ones, at multiples of one round step
// (1, 2 or 5 × 10ⁿ) inside the range, labelled with the step's decimals
// only (the label reads back as the value to 1e-9 of the step, and is no
// longer than the step needs), minor ticks between them.
func TestNiceTicks(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		step   float64
		first  string
	}{
		{0, 2, 0.5, "0"},       // the cantilever: 0, 0.5, …, 2.0
		{0, 1, 0.2, "0"},       // the drop
		{0, 0.4, 0.1, "0"},     // wall_crash
		{0, 10, 2, "0"},        // rigid_pendulum
		{0, 0.07, 0.01, "0"},   // a few steps
		{-3, 4.9, 1, "-3"},     // energies of both signs (step 2 gives 4 labels)
		{3.4, 4.9, 0.2, "3.4"}, // a narrow range away from 0
		{0, 3e-5, 5e-6, "0"},   // tiny energies: exponent form
		{0, 1.2e7, 2e6, "0"},   // huge ones
	} {
		ticks := niceTicks{}.Ticks(c.lo, c.hi)
		var labels []string
		prev := math.Inf(-1)
		minor := 0
		for _, tk := range ticks {
			if tk.Value < c.lo-1e-9*c.step || tk.Value > c.hi+1e-9*c.step {
				t.Errorf("[%g, %g]: tick %g outside the range", c.lo, c.hi, tk.Value)
			}
			if tk.Label == "" {
				minor++
				continue
			}
			if tk.Value <= prev {
				t.Errorf("[%g, %g]: labelled ticks not increasing at %g", c.lo, c.hi, tk.Value)
			}
			prev = tk.Value
			if r := tk.Value / c.step; math.Abs(r-math.Round(r)) > 1e-9 {
				t.Errorf("[%g, %g]: tick %g is not a multiple of the step %g", c.lo, c.hi, tk.Value, c.step)
			}
			v, err := strconv.ParseFloat(tk.Label, 64)
			if err != nil || math.Abs(v-tk.Value) > 1e-9*c.step {
				t.Errorf("[%g, %g]: label %q for %g", c.lo, c.hi, tk.Label, tk.Value)
			}
			if len(tk.Label) > 7 || strings.Contains(tk.Label, "0000") && !strings.Contains(tk.Label, "e") {
				t.Errorf("[%g, %g]: label %q is not short", c.lo, c.hi, tk.Label)
			}
			labels = append(labels, tk.Label)
		}
		if len(labels) < minLabels || len(labels) > 13 {
			t.Errorf("[%g, %g]: %d labels %v, want %d to 13", c.lo, c.hi, len(labels), labels, minLabels)
		}
		if len(labels) > 0 && labels[0] != c.first {
			t.Errorf("[%g, %g]: labels %v, want the first %q (step %g)", c.lo, c.hi, labels, c.first, c.step)
		}
		if minor == 0 {
			t.Errorf("[%g, %g]: no minor ticks", c.lo, c.hi)
		}
		t.Logf("[%g, %g]: %v", c.lo, c.hi, labels)
	}
}
