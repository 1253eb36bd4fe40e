package render

import (
	"bytes"
	"image"
	"image/draw"
	"image/gif"
	"image/png"
	"math"
	"testing"

	"github.com/sofago/sofago/components/visual"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/meshio"
)

// An animated GIF of a moving sphere decodes (image/gif) to as many frames
// as were added; composited in order (each frame covers the part that
// changed), every frame is the picture it was made from, to within the
// palette's quantisation: shaded surface, background and grid pixels are
// on the palette's ramps (the lookup table's 5 bits per channel cost up
// to 4 levels of 255, the ramps' spacing a few more), so the mean error
// is below 1 level; only anti-aliased edge pixels, blends of two colours,
// fall between the ramps, and they are under 1% of the picture.
func TestGIFFrames(t *testing.T) {
	m, err := meshio.SphereSurface(0.5, 24, 16)
	if err != nil {
		t.Fatal(err)
	}
	s := newMeshSurface(m, [3]float64{0.85, 0.6, 0.35})
	rest := append([]float64(nil), s.points...)
	lo, hi := geom.Vec3{-1.5, -1, -1}, geom.Vec3{1.5, 1, 1}
	view, err := FitView(lo, hi, nil, geom.Vec3{0.45, 0.35, 1}, geom.Vec3{0, 1, 0}, 30, 240, 180, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	r := NewRenderer(view, Options{Width: 240, Height: 180, Supersample: 2}, lo, hi, geom.Vec3{0, 1, 0})
	g := NewGIF([][3]float64{s.color}, 4)
	var originals []*image.NRGBA
	for k := 0; k < 6; k++ {
		for i := 0; i < len(rest)/3; i++ {
			geom.Put(s.points, i, geom.At(rest, i).Add(geom.Vec3{-1 + 0.4*float64(k), 0, 0}))
		}
		img := r.Render([]visual.Surface{s})
		originals = append(originals, clone(img))
		if err := g.Add(img); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	if err := g.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	d, err := gif.DecodeAll(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Image) != 6 || d.Delay[0] != 4 || d.Config.Width != 240 || d.Config.Height != 180 {
		t.Fatalf("%d frames, delay %d, %d×%d", len(d.Image), d.Delay[0], d.Config.Width, d.Config.Height)
	}
	canvas := image.NewRGBA(image.Rect(0, 0, 240, 180))
	for k, fr := range d.Image {
		if k > 0 && fr.Bounds().Dx()*fr.Bounds().Dy() >= 240*180 {
			t.Errorf("frame %d stores the whole picture (%v), not the part that changed", k, fr.Bounds())
		}
		draw.Draw(canvas, fr.Bounds(), fr, fr.Bounds().Min, draw.Src)
		far, sum := 0, 0.0
		for y := 0; y < 180; y++ {
			for x := 0; x < 240; x++ {
				a, b := canvas.RGBAAt(x, y), originals[k].NRGBAAt(x, y)
				e := 0
				for _, d := range []int{int(a.R) - int(b.R), int(a.G) - int(b.G), int(a.B) - int(b.B)} {
					e = max(e, int(math.Abs(float64(d))))
					sum += math.Abs(float64(d))
				}
				if e > 8 {
					far++
				}
			}
		}
		mean := sum / (3 * 240 * 180)
		t.Logf("frame %d: mean error %.2f levels, %d pixels (%.2f%%) off by more than 8", k, mean, far, 100*float64(far)/(240*180))
		if mean > 1 || far > 240*180/100 {
			t.Errorf("frame %d: mean error %.2f levels, %d pixels off by more than 8 levels", k, mean, far)
		}
	}
}

// The energy plot is a PNG of the requested size (8 × 4.5 in at gonum's
// 96 dpi) with the three curves drawn in their colours.
func TestEnergyPlot(t *testing.T) {
	n := 200
	tm, k, p := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range tm {
		tm[i] = 0.01 * float64(i)
		k[i] = math.Sin(5*tm[i]) * math.Sin(5*tm[i])
		p[i] = 1 - k[i]
	}
	var buf bytes.Buffer
	if err := EnergyPlot(&buf, "test", tm, k, p); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 768 || b.Dy() != 432 {
		t.Errorf("plot is %v, want 768×432", b.Size())
	}
	found := map[string]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			switch {
			case r>>8 == 200 && g>>8 == 80 && bl>>8 == 30:
				found["kinetic"] = true
			case r>>8 == 40 && g>>8 == 90 && bl>>8 == 190:
				found["potential"] = true
			}
		}
	}
	if !found["kinetic"] || !found["potential"] {
		t.Errorf("curves drawn: %v", found)
	}
	if err := EnergyPlot(&buf, "bad", tm, k[:3], p); err == nil {
		t.Error("mismatched series accepted")
	}
}
