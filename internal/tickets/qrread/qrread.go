// Package qrread reads QR codes back from what the tickets package renders,
// so that tests (of this or any other package) can check what a page or an
// image actually shows. It is meant for tests only: it pulls in a decoder.
package qrread

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/makiuchi-d/gozxing"
	"github.com/makiuchi-d/gozxing/qrcode"
	qrdecoder "github.com/makiuchi-d/gozxing/qrcode/decoder"
)

const (
	// pxPerModule and marginModules shape the raster handed to the decoder.
	pxPerModule   = 8
	marginModules = 4
	// maxModules bounds the viewBox: the largest QR code is 177 modules.
	maxModules = 400
)

// DecodeSVG rasterises one SVG element as produced by tickets.SVG and decodes
// the QR code in it, returning the text.
//
// It reads only the markup: the viewBox (in modules) and, in document order,
// each <rect> and <path> with its fill, painting the centre of every module.
// The page is taken to be white behind the SVG, and a white margin is added
// around the viewBox. Anything it cannot interpret faithfully (transforms,
// styles, classes, curves, other elements) is an error rather than ignored,
// so a decoded text proves what the markup shows.
func DecodeSVG(svg string) (string, error) {
	c, err := rasterise(svg)
	if err != nil {
		return "", fmt.Errorf("qrread: %w", err)
	}
	// gozxing's detector misses some codes at one scale and finds them at another: try a
	// few scales before saying the markup shows no code.
	var err1 error
	for _, px := range []int{pxPerModule, 5, 3, 11} {
		text, err := decode(c.imageAt(px))
		if err == nil || errors.Is(err, errMirrored) {
			return text, err
		}
		if err1 == nil {
			err1 = err
		}
	}
	// The detector still misses a few codes; the markup gives the modules exactly, so decode
	// those (format, error correction and all) without the detector.
	if text, err := decodeModules(c.modules()); err == nil || errors.Is(err, errMirrored) {
		return text, err
	}
	return "", err1
}

// modules is the canvas's dark modules without the quiet zone (the bounding box of dark).
func (c *canvas) modules() [][]bool {
	x0, y0, x1, y1 := c.w, c.h, -1, -1
	for y := 0; y < c.h; y++ {
		for x := 0; x < c.w; x++ {
			if c.dark[y*c.w+x] {
				x0, y0, x1, y1 = min(x0, x), min(y0, y), max(x1, x), max(y1, y)
			}
		}
	}
	if x1 < 0 {
		return nil
	}
	out := make([][]bool, y1-y0+1)
	for y := range out {
		out[y] = make([]bool, x1-x0+1)
		for x := range out[y] {
			out[y][x] = c.dark[(y+y0)*c.w+x+x0]
		}
	}
	return out
}

// decodeModules decodes a module matrix (no quiet zone) with the QR decoder alone, and refuses
// a mirrored reading as decode does.
func decodeModules(m [][]bool) (string, error) {
	if len(m) == 0 || len(m) != len(m[0]) {
		return "", errors.New("qrread: no square module matrix")
	}
	res, err := qrdecoder.NewDecoder().DecodeBoolMap(m, map[gozxing.DecodeHintType]any{gozxing.DecodeHintType_CHARACTER_SET: "UTF-8"})
	if err != nil {
		return "", fmt.Errorf("qrread: decode modules: %w", err)
	}
	if meta, ok := res.GetOther().(*qrdecoder.QRCodeDecoderMetaData); ok && meta.IsMirrored() {
		return "", errMirrored
	}
	return res.GetText(), nil
}

// DecodePNG decodes the QR code in a PNG image.
func DecodePNG(b []byte) (string, error) {
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		return "", fmt.Errorf("qrread: %w", err)
	}
	text, err := decode(img)
	if err == nil || errors.Is(err, errMirrored) {
		return text, err
	}
	// As for SVG: another scale, with a wider white margin, before giving up.
	for _, k := range []int{2, 3} {
		if t, err2 := decode(scaled(img, k)); err2 == nil || errors.Is(err2, errMirrored) {
			return t, err2
		}
	}
	// A code drawn with whole-pixel modules (as tickets.PNG draws it): sample the modules.
	if m := sampleModules(img); m != nil {
		if t, err2 := decodeModules(m); err2 == nil || errors.Is(err2, errMirrored) {
			return t, err2
		}
	}
	return "", err
}

// sampleModules reads the module matrix of a code drawn with square, whole-pixel modules: the
// bounding box of dark pixels is a QR size (21, 25, … 177 modules) times a whole module size.
func sampleModules(img image.Image) [][]bool {
	b := img.Bounds()
	dark := func(x, y int) bool {
		r, g, bl, _ := img.At(x, y).RGBA()
		return r+g+bl < 3*0x8000
	}
	x0, y0, x1, y1 := b.Max.X, b.Max.Y, b.Min.X-1, b.Min.Y-1
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if dark(x, y) {
				x0, y0, x1, y1 = min(x0, x), min(y0, y), max(x1, x), max(y1, y)
			}
		}
	}
	w, h := x1-x0+1, y1-y0+1
	if w <= 0 || w != h {
		return nil
	}
	for dim := 21; dim <= 177; dim += 4 {
		if w%dim != 0 {
			continue
		}
		px := w / dim
		m := make([][]bool, dim)
		for y := range m {
			m[y] = make([]bool, dim)
			for x := range m[y] {
				m[y][x] = dark(x0+x*px+px/2, y0+y*px+px/2)
			}
		}
		return m
	}
	return nil
}

// scaled is img k times larger (nearest neighbour) on a white border of 8k pixels.
func scaled(img image.Image, k int) image.Image {
	b := img.Bounds()
	pad := 8 * k
	out := image.NewGray(image.Rect(0, 0, b.Dx()*k+2*pad, b.Dy()*k+2*pad))
	for i := range out.Pix {
		out.Pix[i] = 0xff
	}
	for y := 0; y < b.Dy()*k; y++ {
		for x := 0; x < b.Dx()*k; x++ {
			out.Set(x+pad, y+pad, img.At(b.Min.X+x/k, b.Min.Y+y/k))
		}
	}
	return out
}

// errMirrored: the image shows a mirrored code.
var errMirrored = errors.New("qrread: QR code is mirrored")

func decode(img image.Image) (string, error) {
	text, err := decodeWith(img, false)
	if err != nil && !errors.Is(err, errMirrored) {
		if t, err2 := decodeWith(img, true); err2 == nil || errors.Is(err2, errMirrored) {
			return t, err2
		}
	}
	return text, err
}

// decodeWith decodes img with the hybrid binarizer, or the global histogram one.
func decodeWith(img image.Image, global bool) (string, error) {
	bmp, err := gozxing.NewBinaryBitmapFromImage(img)
	if global {
		src := gozxing.NewLuminanceSourceFromImage(img)
		bmp, err = gozxing.NewBinaryBitmap(gozxing.NewGlobalHistgramBinarizer(src))
	}
	if err != nil {
		return "", fmt.Errorf("qrread: %w", err)
	}
	hints := map[gozxing.DecodeHintType]any{
		gozxing.DecodeHintType_TRY_HARDER:    true,
		gozxing.DecodeHintType_CHARACTER_SET: "UTF-8",
	}
	res, err := qrcode.NewQRCodeReader().Decode(bmp, hints)
	if err != nil {
		return "", fmt.Errorf("qrread: decode QR: %w", err)
	}
	// The decoder quietly accepts a mirror image (a transposed matrix), which
	// some scanners do not: refuse it. Its points are bottom-left, top-left,
	// top-right finder centres, corrected for mirroring, so a mirrored code
	// turns the wrong way round (the cross product is negative, y pointing down).
	pts := res.GetResultPoints()
	if len(pts) < 3 {
		return "", errors.New("qrread: decoder returned no finder positions")
	}
	bl, tl, tr := pts[0], pts[1], pts[2]
	ax, ay := tr.GetX()-tl.GetX(), tr.GetY()-tl.GetY()
	bx, by := bl.GetX()-tl.GetX(), bl.GetY()-tl.GetY()
	if ax*by-ay*bx <= 0 {
		return "", errMirrored
	}
	return res.GetText(), nil
}

// canvas holds one boolean per module of the viewBox (true = dark).
type canvas struct {
	minX, minY int
	w, h       int
	dark       []bool
}

// imageAt returns the canvas scaled up to pxPerModule pixels per module, with a white margin.
func (c *canvas) imageAt(pxPerModule int) image.Image {
	w := (c.w + 2*marginModules) * pxPerModule
	h := (c.h + 2*marginModules) * pxPerModule
	img := image.NewGray(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = 0xff
	}
	for y := 0; y < c.h; y++ {
		for x := 0; x < c.w; x++ {
			if !c.dark[y*c.w+x] {
				continue
			}
			x0, y0 := (x+marginModules)*pxPerModule, (y+marginModules)*pxPerModule
			for py := y0; py < y0+pxPerModule; py++ {
				for px := x0; px < x0+pxPerModule; px++ {
					img.SetGray(px, py, color.Gray{})
				}
			}
		}
	}
	return img
}

// paint sets every module whose centre inside(cx, cy) reports to dark.
func (c *canvas) paint(dark bool, inside func(cx, cy float64) bool) {
	for y := 0; y < c.h; y++ {
		for x := 0; x < c.w; x++ {
			if inside(float64(c.minX+x)+0.5, float64(c.minY+y)+0.5) {
				c.dark[y*c.w+x] = dark
			}
		}
	}
}

// Attributes each element may carry; any other is refused because it could
// change what is drawn.
var allowedAttrs = map[string]map[string]bool{
	"svg": {
		"xmlns": true, "viewbox": true, "width": true, "height": true,
		"shape-rendering": true, "role": true, "aria-label": true,
	},
	"rect": {"x": true, "y": true, "width": true, "height": true, "fill": true},
	"path": {"d": true, "fill": true, "fill-rule": true},
}

// rasterise parses svg and paints its modules.
func rasterise(svg string) (*canvas, error) {
	d := xml.NewDecoder(strings.NewReader(svg))
	d.Strict = false
	d.Entity = xml.HTMLEntity
	var c *canvas
	depth := 0
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("parse SVG: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			name := strings.ToLower(t.Name.Local)
			if c == nil {
				if name != "svg" {
					return nil, fmt.Errorf("root element is <%s>, want <svg>", t.Name.Local)
				}
				if c, err = newCanvas(t); err != nil {
					return nil, err
				}
				depth = 1
				continue
			}
			if depth == 0 {
				return nil, fmt.Errorf("<%s> after the <svg> element: want exactly one", t.Name.Local)
			}
			depth++
			switch name {
			case "title", "desc":
				// Text for people; it paints nothing.
				if err := d.Skip(); err != nil {
					return nil, fmt.Errorf("parse SVG: %w", err)
				}
				depth--
			case "rect", "path":
				if depth != 2 {
					return nil, fmt.Errorf("<%s> nested inside another element", name)
				}
				if err := c.draw(name, t.Attr); err != nil {
					return nil, err
				}
			default:
				return nil, fmt.Errorf("unsupported element <%s>", t.Name.Local)
			}
		case xml.EndElement:
			depth--
		case xml.CharData:
			if strings.TrimSpace(string(t)) != "" {
				return nil, fmt.Errorf("unexpected text %q", string(t))
			}
		}
	}
	if c == nil {
		return nil, errors.New("no <svg> element")
	}
	return c, nil
}

// newCanvas reads the <svg> element's attributes.
func newCanvas(t xml.StartElement) (*canvas, error) {
	attrs, err := checkAttrs("svg", t.Attr)
	if err != nil {
		return nil, err
	}
	vb, ok := attrs["viewbox"]
	if !ok {
		return nil, errors.New("<svg> has no viewBox")
	}
	nums, err := numbers(vb)
	if err != nil || len(nums) != 4 {
		return nil, fmt.Errorf("viewBox %q: want four numbers", vb)
	}
	var ints [4]int
	for i, f := range nums {
		if f != math.Trunc(f) || math.Abs(f) > maxModules {
			return nil, fmt.Errorf("viewBox %q: want whole numbers of modules up to %d", vb, maxModules)
		}
		ints[i] = int(f)
	}
	if ints[2] <= 0 || ints[3] <= 0 {
		return nil, fmt.Errorf("viewBox %q: empty", vb)
	}
	return &canvas{minX: ints[0], minY: ints[1], w: ints[2], h: ints[3], dark: make([]bool, ints[2]*ints[3])}, nil
}

// draw paints one <rect> or <path>.
func (c *canvas) draw(name string, attr []xml.Attr) error {
	attrs, err := checkAttrs(name, attr)
	if err != nil {
		return err
	}
	dark, visible, err := fill(attrs)
	if err != nil {
		return fmt.Errorf("<%s>: %w", name, err)
	}
	if name == "rect" {
		var v [4]float64 // x, y, width, height
		for i, k := range []string{"x", "y", "width", "height"} {
			s, ok := attrs[k]
			if !ok {
				if i >= 2 {
					return fmt.Errorf("<rect> has no %s", k)
				}
				continue
			}
			if v[i], err = strconv.ParseFloat(strings.TrimSpace(s), 64); err != nil {
				return fmt.Errorf("<rect> %s=%q: want a plain number", k, s)
			}
		}
		if visible {
			c.paint(dark, func(cx, cy float64) bool {
				return v[0] <= cx && cx < v[0]+v[2] && v[1] <= cy && cy < v[1]+v[3]
			})
		}
		return nil
	}
	edges, err := parsePath(attrs["d"])
	if err != nil {
		return fmt.Errorf("<path> d: %w", err)
	}
	evenOdd := false
	switch r := attrs["fill-rule"]; r {
	case "", "nonzero":
	case "evenodd":
		evenOdd = true
	default:
		return fmt.Errorf("<path> fill-rule %q unsupported", r)
	}
	if visible {
		c.fillPath(dark, edges, evenOdd)
	}
	return nil
}

// checkAttrs returns el's attributes by lower-case name, refusing any that
// could change the drawing in ways this package does not model.
func checkAttrs(el string, attr []xml.Attr) (map[string]string, error) {
	out := make(map[string]string, len(attr))
	for _, a := range attr {
		name := strings.ToLower(a.Name.Local)
		if a.Name.Space == "xmlns" || (a.Name.Space == "" && name == "xmlns") {
			continue
		}
		if !allowedAttrs[el][name] {
			return nil, fmt.Errorf("<%s> attribute %q unsupported", el, a.Name.Local)
		}
		out[name] = a.Value
	}
	return out, nil
}

// fill reads the fill attribute: SVG paints black when it is absent.
func fill(attrs map[string]string) (dark, visible bool, err error) {
	f, ok := attrs["fill"]
	if !ok {
		return true, true, nil
	}
	switch strings.ToLower(strings.TrimSpace(f)) {
	case "#000", "#000000", "black":
		return true, true, nil
	case "#fff", "#ffffff", "white":
		return false, true, nil
	case "none":
		return false, false, nil
	}
	return false, false, fmt.Errorf("fill %q unsupported: want black, white or none", f)
}

// edge is one straight segment of a path outline.
type edge struct{ x0, y0, x1, y1 float64 }

// fillPath paints the modules whose centres lie inside the outline, by the
// nonzero or even-odd rule, scanning one row of centres at a time.
func (c *canvas) fillPath(dark bool, edges []edge, evenOdd bool) {
	type crossing struct {
		x   float64
		dir int
	}
	var cs []crossing
	for y := 0; y < c.h; y++ {
		cy := float64(c.minY+y) + 0.5
		cs = cs[:0]
		for _, e := range edges {
			switch {
			case e.y0 <= cy && cy < e.y1:
				cs = append(cs, crossing{e.x0 + (cy-e.y0)*(e.x1-e.x0)/(e.y1-e.y0), 1})
			case e.y1 <= cy && cy < e.y0:
				cs = append(cs, crossing{e.x0 + (cy-e.y0)*(e.x1-e.x0)/(e.y1-e.y0), -1})
			}
		}
		sort.Slice(cs, func(i, j int) bool { return cs[i].x < cs[j].x })
		winding, next := 0, 0
		for x := 0; x < c.w; x++ {
			cx := float64(c.minX+x) + 0.5
			for next < len(cs) && cs[next].x <= cx {
				winding += cs[next].dir
				next++
			}
			in := winding != 0
			if evenOdd {
				in = winding%2 != 0
			}
			if in {
				c.dark[y*c.w+x] = dark
			}
		}
	}
}

// parsePath turns path data made of straight lines (M, L, H, V, Z, absolute
// or relative) into edges, closing every subpath as filling does.
func parsePath(d string) ([]edge, error) {
	var pen pathPen
	var cmd byte
	for i := skipSeparators(d, 0); i < len(d); i = skipSeparators(d, i) {
		if ch := d[i]; isLetter(ch) {
			cmd = ch
			i++
			if cmd == 'Z' || cmd == 'z' {
				pen.closePath()
			}
			continue
		}
		if cmd == 0 {
			return nil, errors.New("number before the first command")
		}
		n, next, err := pen.draw(d, i, cmd)
		if err != nil {
			return nil, err
		}
		i, cmd = n, next
		if !pen.started {
			return nil, errors.New("drawing before the first move")
		}
	}
	pen.closePath()
	return pen.edges, nil
}

// pathPen draws the edges of path data: where it is (x, y), where its subpath started
// (sx, sy), whether that subpath is open, and whether it has moved at all.
type pathPen struct {
	edges   []edge
	x, y    float64
	sx, sy  float64
	open    bool
	started bool
}

func (p *pathPen) lineTo(nx, ny float64) {
	p.edges = append(p.edges, edge{p.x, p.y, nx, ny})
	p.x, p.y = nx, ny
}

// closePath ends the subpath with a line back to its start (when not there already).
func (p *pathPen) closePath() {
	if p.open && (p.x != p.sx || p.y != p.sy) {
		p.lineTo(p.sx, p.sy)
	}
	p.x, p.y = p.sx, p.sy
	p.open = false
}

// moveTo closes the subpath and starts another at (nx, ny).
func (p *pathPen) moveTo(nx, ny float64) {
	p.closePath()
	p.x, p.y = nx, ny
	p.sx, p.sy = nx, ny
	p.open, p.started = true, true
}

// draw reads the arguments of one use of command cmd at d[i] and draws them; it returns
// where reading goes on and the command further arguments belong to.
func (p *pathPen) draw(d string, i int, cmd byte) (int, byte, error) {
	var ox, oy float64 // relative commands count from the current point
	if cmd >= 'a' {
		ox, oy = p.x, p.y
	}
	switch cmd {
	case 'M', 'm':
		nx, ny, n, err := pair(d, i)
		if err != nil {
			return n, cmd, err
		}
		p.moveTo(ox+nx, oy+ny)
		// Further pairs after a move are lines (SVG 1.1, 8.3.2).
		return n, 'L' + (cmd - 'M'), nil
	case 'L', 'l':
		nx, ny, n, err := pair(d, i)
		if err != nil {
			return n, cmd, err
		}
		p.lineTo(ox+nx, oy+ny)
		return n, cmd, nil
	case 'H', 'h':
		v, n, err := number(d, i)
		if err != nil {
			return n, cmd, err
		}
		p.lineTo(ox+v, p.y)
		return n, cmd, nil
	case 'V', 'v':
		v, n, err := number(d, i)
		if err != nil {
			return n, cmd, err
		}
		p.lineTo(p.x, oy+v)
		return n, cmd, nil
	}
	return i, cmd, fmt.Errorf("command %q unsupported", cmd)
}

func isLetter(b byte) bool { return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' }

func skipSeparators(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == ',' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// number reads one number starting at s[i] (after separators): a sign, digits with a point,
// and an exponent when digits follow its e.
func number(s string, i int) (float64, int, error) {
	i = skipSeparators(s, i)
	start := i
	i, digits := scanMantissa(s, skipSign(s, i))
	if !digits {
		return 0, i, fmt.Errorf("want a number at offset %d", start)
	}
	i = scanExponent(s, i)
	f, err := strconv.ParseFloat(s[start:i], 64)
	if err != nil {
		return 0, i, fmt.Errorf("number %q at offset %d: %w", s[start:i], start, err)
	}
	return f, i, nil
}

func skipSign(s string, i int) int {
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	return i
}

func isDigit(b byte) bool { return '0' <= b && b <= '9' }

// scanMantissa reads digits and points; digits reports whether there was a digit.
func scanMantissa(s string, i int) (end int, digits bool) {
	for i < len(s) && (isDigit(s[i]) || s[i] == '.') {
		digits = digits || s[i] != '.'
		i++
	}
	return i, digits
}

// scanExponent reads an exponent (e or E, a sign, digits) at s[i]; without digits it is not
// one and reading stays at i.
func scanExponent(s string, i int) int {
	if i >= len(s) || (s[i] != 'e' && s[i] != 'E') {
		return i
	}
	j := skipSign(s, i+1)
	if j >= len(s) || !isDigit(s[j]) {
		return i
	}
	for j < len(s) && isDigit(s[j]) {
		j++
	}
	return j
}

func pair(s string, i int) (float64, float64, int, error) {
	a, i, err := number(s, i)
	if err != nil {
		return 0, 0, i, err
	}
	b, i, err := number(s, i)
	return a, b, i, err
}

// numbers reads a whitespace- or comma-separated list of numbers.
func numbers(s string) ([]float64, error) {
	var out []float64
	for i := skipSeparators(s, 0); i < len(s); i = skipSeparators(s, i) {
		f, n, err := number(s, i)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
		i = n
	}
	return out, nil
}
