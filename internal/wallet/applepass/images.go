package applepass

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
)

// placeholder is the size of an image Wallet needs and Sign draws when the caller has none.
type placeholder struct{ w, h int }

// defaultImages are the images a pass cannot go without (Wallet refuses a pass with no icon),
// at Apple's recommended point sizes.
var defaultImages = map[string]placeholder{
	"icon.png":    {29, 29},
	"icon@2x.png": {58, 58},
	"logo.png":    {160, 50},
}

// drawImage makes a plain PNG in the pass's background colour with a band in its foreground
// colour, so a pass without artwork still looks like the operator's.
func drawImage(size placeholder, c Colors) ([]byte, error) {
	img := image.NewNRGBA(image.Rect(0, 0, size.w, size.h))
	bg := color.NRGBA{c.Background.R, c.Background.G, c.Background.B, 0xFF}
	fg := color.NRGBA{c.Foreground.R, c.Foreground.G, c.Foreground.B, 0xFF}
	band := size.h / 3
	for y := 0; y < size.h; y++ {
		for x := 0; x < size.w; x++ {
			if y >= band && y < size.h-band {
				img.SetNRGBA(x, y, fg)
			} else {
				img.SetNRGBA(x, y, bg)
			}
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
