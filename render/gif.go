package render

import (
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"io"
	"math"

	"github.com/sofago/sofago/components/visual"
)

// GIF collects the pictures of a run into an animated GIF. All frames share
// one 256-colour palette made for these pictures: the background, grid
// and edge colours, a ramp of shades of every surface colour over the
// shader's brightness range, and a grey ramp for the pixels in between
// (anti-aliased edges). Pixels are mapped to the nearest palette colour
// through a 32×32×32 lookup table. After the first frame, each frame
// stores only the rectangle that changed since the previous one (GIF
// frames may cover part of the picture), which keeps the file and the
// memory small when only part of the scene moves.
type GIF struct {
	// Delay is the time each frame shows, in hundredths of a second.
	Delay int

	palette color.Palette
	lut     []uint8 // palette index of each 5-bit-per-channel colour
	prev    *image.Paletted
	anim    gif.GIF
}

// NewGIF prepares a GIF for pictures of surfaces with the given colours.
func NewGIF(surfaceColors [][3]float64, delay int) *GIF {
	g := &GIF{Delay: max(delay, 2)}
	pal := color.Palette{Background.NRGBA(), GridColor.NRGBA(), WireColor.NRGBA()}
	const greys = 32
	for i := 0; i < greys; i++ {
		v := uint8(math.Round(255 * float64(i) / (greys - 1)))
		pal = append(pal, color.NRGBA{v, v, v, 255})
	}
	var colors [][3]float64
	seen := map[[3]float64]bool{}
	for _, c := range surfaceColors {
		if !seen[c] {
			seen[c] = true
			colors = append(colors, c)
		}
	}
	if len(colors) > 0 {
		per := min((256-len(pal))/len(colors), 64)
		lo, hi := Brightness()
		for _, c := range colors {
			for i := 0; i < per && len(pal) < 256; i++ {
				// A little below the darkest shade too: edge pixels blend
				// toward the wireframe.
				b := (lo-0.1)*(1-float64(i)/float64(max(per-1, 1))) + hi*float64(i)/float64(max(per-1, 1))
				pal = append(pal, color.NRGBA{shade(c[0], b), shade(c[1], b), shade(c[2], b), 255})
			}
		}
	}
	g.palette = pal
	g.lut = make([]uint8, 32*32*32)
	for r := 0; r < 32; r++ {
		for gg := 0; gg < 32; gg++ {
			for b := 0; b < 32; b++ {
				c := color.NRGBA{uint8(r<<3 | r>>2), uint8(gg<<3 | gg>>2), uint8(b<<3 | b>>2), 255}
				g.lut[r<<10|gg<<5|b] = uint8(pal.Index(c))
			}
		}
	}
	return g
}

// shade is the 8-bit value of colour component c at brightness b, as the
// shader and fauxgl's conversion compute it.
func shade(c, b float64) uint8 {
	return uint8(255 * math.Min(math.Max(c*b, 0), 1))
}

// Frames returns the number of frames added.
func (g *GIF) Frames() int { return len(g.anim.Image) }

// Add appends a picture (all pictures of a GIF have the same size).
func (g *GIF) Add(img *image.NRGBA) error {
	b := img.Bounds()
	if g.prev != nil && g.prev.Bounds() != b {
		return fmt.Errorf("gif: frame of %v, the first was %v", b.Size(), g.prev.Bounds().Size())
	}
	cur := image.NewPaletted(b, g.palette)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		src := img.Pix[(y-b.Min.Y)*img.Stride:]
		dst := cur.Pix[(y-b.Min.Y)*cur.Stride:]
		for x := 0; x < b.Dx(); x++ {
			p := src[4*x:]
			dst[x] = g.lut[int(p[0]>>3)<<10|int(p[1]>>3)<<5|int(p[2]>>3)]
		}
	}
	frame := cur
	if g.prev != nil {
		// The bounding box of the pixels that changed.
		r := image.Rectangle{}
		for y := 0; y < b.Dy(); y++ {
			a, c := cur.Pix[y*cur.Stride:y*cur.Stride+b.Dx()], g.prev.Pix[y*g.prev.Stride:y*g.prev.Stride+b.Dx()]
			for x := range a {
				if a[x] != c[x] {
					r = r.Union(image.Rect(x, y, x+1, y+1))
				}
			}
		}
		if r.Empty() {
			r = image.Rect(0, 0, 1, 1) // GIF frames cannot be empty
		}
		r = r.Add(b.Min)
		frame = image.NewPaletted(r, g.palette)
		for y := r.Min.Y; y < r.Max.Y; y++ {
			copy(frame.Pix[(y-r.Min.Y)*frame.Stride:(y-r.Min.Y)*frame.Stride+r.Dx()], cur.Pix[(y-b.Min.Y)*cur.Stride+(r.Min.X-b.Min.X):])
		}
	}
	g.anim.Image = append(g.anim.Image, frame)
	g.anim.Delay = append(g.anim.Delay, g.Delay)
	g.anim.Disposal = append(g.anim.Disposal, gif.DisposalNone)
	g.prev = cur
	return nil
}

// Encode writes the animation (looping forever).
func (g *GIF) Encode(w io.Writer) error {
	if g.prev == nil {
		return fmt.Errorf("gif: no frame")
	}
	a := g.anim
	a.LoopCount = 0
	a.Config = image.Config{ColorModel: g.palette, Width: g.prev.Bounds().Dx(), Height: g.prev.Bounds().Dy()}
	return gif.EncodeAll(w, &a)
}

// Write writes the animation to path atomically.
func (g *GIF) Write(path string) error {
	return visual.AtomicWrite(path, false, g.Encode)
}
