package tickets_test

import (
	"bytes"
	"encoding/xml"
	"image/color"
	"image/png"
	"strconv"
	"strings"
	"testing"

	"github.com/cinemabff/cinemabff/internal/tickets"
	"github.com/cinemabff/cinemabff/internal/tickets/qrread"
)

// renderPayloads returns payloads the renderers must handle: real ones and
// one of exactly 100 characters.
func renderPayloads(t testing.TB) map[string]string {
	t.Helper()
	s := newSigner(t, testKey)
	p, err := s.Payload(typical)
	if err != nil {
		t.Fatal(err)
	}
	unallocated := typical
	unallocated.Seat = ""
	u, err := s.Payload(unallocated)
	if err != nil {
		t.Fatal(err)
	}
	// A real code whose payload is exactly 100 characters: pad the cinema id.
	long := tickets.Code{CinemaID: "cinema-", BookingID: "WBK1000040001", BookingNumber: 1000040001, Line: 12, Seat: "AA-12"}
	l, err := s.Payload(long)
	if err != nil {
		t.Fatal(err)
	}
	long.CinemaID += strings.Repeat("0", 100-len(l))
	l100, err := s.Payload(long)
	if err != nil {
		t.Fatal(err)
	}
	if len(l100) != 100 {
		t.Fatalf("100-character payload is %d characters: %q", len(l100), l100)
	}
	return map[string]string{"typical": p, "unallocated": u, "100 characters": l100}
}

func TestRenderedCodesDecode(t *testing.T) {
	for name, payload := range renderPayloads(t) {
		t.Run(name, func(t *testing.T) {
			svg, err := tickets.SVG(payload, "Ticket", 160)
			if err != nil {
				t.Fatalf("SVG: %v", err)
			}
			if got, err := qrread.DecodeSVG(svg); err != nil || got != payload {
				t.Errorf("DecodeSVG = %q, %v; want %q", got, err, payload)
			}
			for _, px := range []int{1, 120, 300} {
				b, err := tickets.PNG(payload, px)
				if err != nil {
					t.Fatalf("PNG(%d): %v", px, err)
				}
				if got, err := qrread.DecodePNG(b); err != nil || got != payload {
					t.Errorf("DecodePNG(PNG(%d)) = %q, %v; want %q", px, got, err, payload)
				}
			}
		})
	}
}

func TestSVGMarkup(t *testing.T) {
	payload := renderPayloads(t)["typical"]
	const label = `Ticket 2 <script>alert("x")</script> & 'F-7'`
	svg, err := tickets.SVG(payload, label, 180)
	if err != nil {
		t.Fatal(err)
	}
	m, err := tickets.Matrix(payload)
	if err != nil {
		t.Fatal(err)
	}
	n := strconv.Itoa(len(m) + 8)

	tests := []struct {
		name string
		want string
		in   bool
	}{
		{"no script", "<script", false},
		{"no raw label", label, false},
		{"role", ` role="img"`, true},
		{"escaped label", ` aria-label="Ticket 2 &lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; &#39;F-7&#39;"`, true},
		{"width", ` width="180"`, true},
		{"height", ` height="180"`, true},
		{"viewBox with quiet zone", ` viewBox="0 0 ` + n + " " + n + `"`, true},
		{"crisp edges", ` shape-rendering="crispEdges"`, true},
		{"starts as svg", "<svg ", true},
	}
	for _, tt := range tests {
		if got := strings.Contains(svg, tt.want); got != tt.in {
			t.Errorf("%s: strings.Contains(svg, %q) = %v, want %v", tt.name, tt.want, got, tt.in)
		}
	}
	if c := strings.Count(svg, "<path"); c != 1 {
		t.Errorf("svg has %d <path> elements, want 1", c)
	}
	if !strings.HasPrefix(svg, "<svg ") || !strings.HasSuffix(svg, "</svg>") {
		t.Errorf("svg is not a single element: %.40q...", svg)
	}
	// Well-formed XML, and the label reads back as given.
	var doc struct {
		Label string `xml:"aria-label,attr"`
	}
	if err := xml.Unmarshal([]byte(svg), &doc); err != nil {
		t.Fatalf("svg is not well-formed: %v", err)
	}
	if doc.Label != label {
		t.Errorf("aria-label reads back as %q, want %q", doc.Label, label)
	}
	for i, r := range svg {
		if r > 0x7e || r < 0x20 {
			t.Fatalf("svg has %q at %d, want printable ASCII only", r, i)
		}
	}
}

func TestSVGDefaultLabel(t *testing.T) {
	svg, err := tickets.SVG("x", "", 100)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(svg, `aria-label="QR code"`) {
		t.Errorf("svg with no label has no default aria-label: %.200s", svg)
	}
}

func TestPNGPixels(t *testing.T) {
	payload := renderPayloads(t)["typical"]
	m, err := tickets.Matrix(payload)
	if err != nil {
		t.Fatal(err)
	}
	modules := len(m) + 8
	for _, px := range []int{1, modules, modules + 1, 200, 333} {
		t.Run(strconv.Itoa(px), func(t *testing.T) {
			b, err := tickets.PNG(payload, px)
			if err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			w, h := img.Bounds().Dx(), img.Bounds().Dy()
			scale := (px + modules - 1) / modules
			if w != h || w != scale*modules || w < px {
				t.Fatalf("PNG(%d) is %dx%d, want square of %d×%d modules", px, w, h, scale, modules)
			}
			// Every pixel is pure black or white and matches its module.
			for y := 0; y < h; y++ {
				for x := 0; x < w; x++ {
					mx, my := x/scale-4, y/scale-4
					dark := mx >= 0 && my >= 0 && mx < len(m) && my < len(m) && m[my][mx]
					g := color.GrayModel.Convert(img.At(x, y)).(color.Gray).Y
					if want := map[bool]uint8{true: 0, false: 0xff}[dark]; g != want {
						t.Fatalf("pixel (%d,%d) is %#x, want %#x", x, y, g, want)
					}
				}
			}
		})
	}
}

func TestMatrix(t *testing.T) {
	m, err := tickets.Matrix(renderPayloads(t)["typical"])
	if err != nil {
		t.Fatal(err)
	}
	if len(m) < 21 || (len(m)-17)%4 != 0 {
		t.Fatalf("matrix is %d modules, not a QR code size", len(m))
	}
	// The top-left finder pattern: a dark 7×7 ring, a light ring, a dark 3×3 core.
	for y := 0; y < 7; y++ {
		for x := 0; x < 7; x++ {
			ring := x == 0 || y == 0 || x == 6 || y == 6
			core := x >= 2 && x <= 4 && y >= 2 && y <= 4
			if m[y][x] != (ring || core) {
				t.Fatalf("module (%d,%d) = %v, not a finder pattern", x, y, m[y][x])
			}
		}
	}
	for y, row := range m {
		if len(row) != len(m) {
			t.Fatalf("row %d has %d modules, want %d", y, len(row), len(m))
		}
	}
}

func TestRenderErrors(t *testing.T) {
	tooLong := strings.Repeat("x", 5000)
	tests := []struct {
		name string
		run  func() error
	}{
		{"Matrix empty", func() error { _, err := tickets.Matrix(""); return err }},
		{"Matrix too long", func() error { _, err := tickets.Matrix(tooLong); return err }},
		{"SVG empty", func() error { _, err := tickets.SVG("", "l", 100); return err }},
		{"SVG zero size", func() error { _, err := tickets.SVG("x", "l", 0); return err }},
		{"SVG too long", func() error { _, err := tickets.SVG(tooLong, "l", 100); return err }},
		{"PNG zero width", func() error { _, err := tickets.PNG("x", 0); return err }},
		{"PNG huge", func() error { _, err := tickets.PNG("x", 5000); return err }},
		{"PNG too long", func() error { _, err := tickets.PNG(tooLong, 100); return err }},
	}
	for _, tt := range tests {
		if err := tt.run(); err == nil {
			t.Errorf("%s: no error", tt.name)
		}
	}
}

func BenchmarkSVG(b *testing.B) {
	payload := renderPayloads(b)["typical"]
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tickets.SVG(payload, "Ticket 2, seat F-7", 160); err != nil {
			b.Fatal(err)
		}
	}
}
