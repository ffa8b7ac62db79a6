package qrread_test

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/cinemabff/cinemabff/internal/tickets"
	"github.com/cinemabff/cinemabff/internal/tickets/qrread"
)

const payload = "TKT1 booking=WBK100004 line=2 seat=F-7 n=100004 c=1 sig=ABCDEFGHIJKLMNOP"

func render(t *testing.T) string {
	t.Helper()
	svg, err := tickets.SVG(payload, "Ticket 2", 160)
	if err != nil {
		t.Fatal(err)
	}
	return svg
}

// The use the package exists for: find the code in a rendered page and read it.
func TestDecodeSVGFromPage(t *testing.T) {
	page := `<!doctype html><html><body><main><h1>Your tickets</h1>
<figure data-testid="ticket-qr">` + render(t) + `<figcaption>Line 2</figcaption></figure></main></body></html>`
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	svg, err := goquery.OuterHtml(doc.Find(`[data-testid="ticket-qr"] svg`))
	if err != nil {
		t.Fatal(err)
	}
	got, err := qrread.DecodeSVG(svg)
	if err != nil {
		t.Fatalf("DecodeSVG(%.120q...): %v", svg, err)
	}
	if got != payload {
		t.Errorf("DecodeSVG = %q, want %q", got, payload)
	}
}

// Equivalent markup written differently must read the same: the decoder
// follows the path data rather than the shape tickets.SVG happens to write.
func TestDecodeSVGEquivalentMarkup(t *testing.T) {
	svg := render(t)
	tests := map[string]func(string) string{
		"lines and commas": func(s string) string {
			return replaceRuns(s, func(x, y, n string) string {
				return "M" + x + "," + y + "l" + n + ",0 l0,1 L" + x + " " + addOne(y) + "Z"
			})
		},
		"no closing command": func(s string) string {
			return replaceRuns(s, func(x, y, n string) string { return "M" + x + " " + y + "h" + n + "v1h-" + n })
		},
		"title element": func(s string) string {
			return strings.Replace(s, "<rect", "<title>Ticket</title><rect", 1)
		},
	}
	for name, edit := range tests {
		t.Run(name, func(t *testing.T) {
			changed := edit(svg)
			if changed == svg {
				t.Fatal("edit changed nothing")
			}
			if got, err := qrread.DecodeSVG(changed); err != nil || got != payload {
				t.Errorf("DecodeSVG = %q, %v; want %q", got, err, payload)
			}
		})
	}
}

// Markup that shows something else, or that the decoder cannot read
// faithfully, must not decode to the payload.
func TestDecodeSVGRefuses(t *testing.T) {
	svg := render(t)
	tests := map[string]string{
		"empty":                 "",
		"not svg":               "<div>" + svg + "</div>",
		"two svgs":              svg + svg,
		"no viewBox":            regexp.MustCompile(` viewBox="[^"]*"`).ReplaceAllString(svg, ""),
		"transform":             strings.Replace(svg, "<path ", `<path transform="scale(2)" `, 1),
		"style":                 strings.Replace(svg, "<path ", `<path style="fill:white" `, 1),
		"class":                 strings.Replace(svg, "<svg ", `<svg class="hidden" `, 1),
		"script":                strings.Replace(svg, "<rect", "<script>1</script><rect", 1),
		"group":                 strings.Replace(strings.Replace(svg, "<path", "<g><path", 1), "</svg>", "</g></svg>", 1),
		"curve":                 strings.Replace(svg, `d="M`, `d="M0 0C1 1 2 2 3 3M`, 1),
		"path not painted":      strings.Replace(svg, `fill="#000"`, `fill="none"`, 1),
		"path white":            strings.Replace(svg, `fill="#000"`, `fill="#fff"`, 1),
		"path grey":             strings.Replace(svg, `fill="#000"`, `fill="#777"`, 1),
		"background black":      strings.Replace(svg, `fill="#fff"`, `fill="#000"`, 1),
		"covered by a rect":     strings.Replace(svg, "</svg>", `<rect x="0" y="0" width="100" height="100" fill="#fff"/></svg>`, 1),
		"mirrored":              replaceRuns(svg, func(x, y, n string) string { return "M" + y + " " + x + "v" + n + "h1v-" + n + "z" }),
		"path data emptied":     regexp.MustCompile(` d="[^"]*"`).ReplaceAllString(svg, ` d=""`),
		"half the path missing": svg[:strings.Index(svg, ` d="`)+len(svg[strings.Index(svg, ` d="`):])/2] + `"/></svg>`,
	}
	for name, in := range tests {
		t.Run(name, func(t *testing.T) {
			if in == svg {
				t.Fatal("test case did not change the SVG")
			}
			if got, err := qrread.DecodeSVG(in); err == nil {
				t.Errorf("DecodeSVG succeeded with %q, want an error", got)
			}
		})
	}
}

func TestDecodePNGRefusesNonPNG(t *testing.T) {
	for _, b := range [][]byte{nil, []byte("not a png"), []byte(render(t))} {
		if got, err := qrread.DecodePNG(b); err == nil {
			t.Errorf("DecodePNG(%.20q) = %q, want an error", b, got)
		}
	}
}

var runRE = regexp.MustCompile(`M(\d+) (\d+)h(\d+)v1h-(\d+)z`)

// replaceRuns rewrites each rectangle tickets.SVG writes for a run of modules.
func replaceRuns(svg string, f func(x, y, n string) string) string {
	return runRE.ReplaceAllStringFunc(svg, func(m string) string {
		p := runRE.FindStringSubmatch(m)
		return f(p[1], p[2], p[3])
	})
}

func addOne(s string) string {
	n, err := strconv.Atoi(s)
	if err != nil {
		panic(err)
	}
	return strconv.Itoa(n + 1)
}
