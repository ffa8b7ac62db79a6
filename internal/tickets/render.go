package tickets

import (
	"bytes"
	"errors"
	"fmt"
	"html"
	"image"
	"image/color"
	"image/png"
	"strconv"

	"github.com/boombuler/barcode/qr"
)

const (
	// quietZone is the white border, in modules, that scanners need around
	// a QR code (ISO/IEC 18004 asks for 4).
	quietZone = 4
	// maxPNGPx bounds PNG's allocation: far more than any ticket needs.
	maxPNGPx = 4096
	// defaultLabel is used when SVG is given no label: an unlabelled img
	// role is an accessibility error.
	defaultLabel = "QR code"
)

// Matrix returns the QR code for payload, at error correction level M, as
// rows of modules (m[y][x], true = dark) without a quiet zone. Both renderers
// draw from it.
func Matrix(payload string) ([][]bool, error) {
	if payload == "" {
		return nil, errors.New("tickets: empty QR payload")
	}
	bc, err := qr.Encode(payload, qr.M, qr.Auto)
	if err != nil {
		return nil, fmt.Errorf("tickets: encode QR (%d bytes): %w", len(payload), err)
	}
	b := bc.Bounds()
	m := make([][]bool, b.Dy())
	cells := make([]bool, b.Dx()*b.Dy())
	for y := range m {
		m[y] = cells[y*b.Dx() : (y+1)*b.Dx() : (y+1)*b.Dx()]
		for x := range m[y] {
			m[y][x] = isDark(bc.At(b.Min.X+x, b.Min.Y+y))
		}
	}
	return m, nil
}

// isDark reports whether c is nearer black than white.
func isDark(c color.Color) bool {
	return color.GrayModel.Convert(c).(color.Gray).Y < 0x80
}

// SVG renders payload as an inline SVG element: a white square and a single
// <path> of the dark modules, with a quiet zone of 4 modules. The viewBox is
// in modules; width and height are sizePx; shape-rendering="crispEdges",
// role="img" and aria-label=label (HTML-escaped; "QR code" if empty) are set.
//
// The result is safe to embed in HTML as it is: apart from the escaped label
// it contains only characters SVG wrote itself.
//
// A ticket's page is seen many times (the booking page, the print view, each poll), and
// encoding a QR code takes milliseconds: the SVG of a recent (payload, label, size) is
// remembered (svgMemo) and given again.
func SVG(payload, label string, sizePx int) (string, error) {
	k := svgKey{payload, label, sizePx}
	if s, ok := svgMemo.get(k); ok {
		return s, nil
	}
	s, err := renderSVG(payload, label, sizePx)
	if err == nil {
		svgMemo.put(k, s)
	}
	return s, err
}

func renderSVG(payload, label string, sizePx int) (string, error) {
	if sizePx <= 0 {
		return "", fmt.Errorf("tickets: SVG size %dpx, want a positive size", sizePx)
	}
	m, err := Matrix(payload)
	if err != nil {
		return "", err
	}
	if label == "" {
		label = defaultLabel
	}
	n := len(m) + 2*quietZone
	// Each run of dark modules is about 20 bytes of path; half the modules
	// are dark and runs average about two modules.
	buf := make([]byte, 0, 300+len(label)+5*len(m)*len(m))
	buf = append(buf, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 `...)
	buf = strconv.AppendInt(buf, int64(n), 10)
	buf = append(buf, ' ')
	buf = strconv.AppendInt(buf, int64(n), 10)
	buf = append(buf, `" width="`...)
	buf = strconv.AppendInt(buf, int64(sizePx), 10)
	buf = append(buf, `" height="`...)
	buf = strconv.AppendInt(buf, int64(sizePx), 10)
	buf = append(buf, `" shape-rendering="crispEdges" role="img" aria-label="`...)
	buf = append(buf, html.EscapeString(label)...)
	// The white square keeps the code scannable on a dark page.
	buf = append(buf, `"><rect width="`...)
	buf = strconv.AppendInt(buf, int64(n), 10)
	buf = append(buf, `" height="`...)
	buf = strconv.AppendInt(buf, int64(n), 10)
	buf = append(buf, `" fill="#fff"/><path fill="#000" d="`...)
	for y, row := range m {
		for x := 0; x < len(row); {
			if !row[x] {
				x++
				continue
			}
			start := x
			for x < len(row) && row[x] {
				x++
			}
			// One rectangle per horizontal run: move, right, down, back, close.
			run := int64(x - start)
			buf = append(buf, 'M')
			buf = strconv.AppendInt(buf, int64(start+quietZone), 10)
			buf = append(buf, ' ')
			buf = strconv.AppendInt(buf, int64(y+quietZone), 10)
			buf = append(buf, 'h')
			buf = strconv.AppendInt(buf, run, 10)
			buf = append(buf, "v1h-"...)
			buf = strconv.AppendInt(buf, run, 10)
			buf = append(buf, 'z')
		}
	}
	buf = append(buf, `"/></svg>`...)
	return string(buf), nil
}

// PNG renders payload as a black-on-white PNG with a quiet zone of 4
// modules. Each module is a square of whole pixels, the smallest such that
// the image is at least px pixels wide (so it may be a little wider); px may
// be at most 4096.
func PNG(payload string, px int) ([]byte, error) {
	if px <= 0 || px > maxPNGPx {
		return nil, fmt.Errorf("tickets: PNG width %dpx, want 1 to %d", px, maxPNGPx)
	}
	m, err := Matrix(payload)
	if err != nil {
		return nil, err
	}
	n := len(m) + 2*quietZone
	scale := (px + n - 1) / n
	side := n * scale
	// Two colours, so the encoder writes one bit per pixel.
	img := image.NewPaletted(image.Rect(0, 0, side, side), color.Palette{color.White, color.Black})
	for y, row := range m {
		for x, dark := range row {
			if !dark {
				continue
			}
			x0, y0 := (x+quietZone)*scale, (y+quietZone)*scale
			for py := y0; py < y0+scale; py++ {
				line := img.Pix[py*img.Stride+x0 : py*img.Stride+x0+scale]
				for i := range line {
					line[i] = 1
				}
			}
		}
	}
	var out bytes.Buffer
	if err := png.Encode(&out, img); err != nil {
		return nil, fmt.Errorf("tickets: encode PNG: %w", err)
	}
	return out.Bytes(), nil
}
