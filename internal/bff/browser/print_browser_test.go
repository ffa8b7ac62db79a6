package browser_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/browsertest"
)

// pdfPage matches a page object of a PDF (not the /Pages tree).
var pdfPage = regexp.MustCompile(`/Type\s*/Page[^s]`)

// TestBrowserPrintTickets prints the print view of booking 100004 (three tickets) to PDF with
// headless Chromium on A4 and on an 80 mm roll: one ticket per block, each block on its own
// page, nothing cut off at the sides.
func TestBrowserPrintTickets(t *testing.T) {
	t.Parallel()
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	addBrowserBookingBinder(h)
	p := browsertest.NewPage(t, browsertest.Options{})
	p.Do(chromedp.Navigate(h.TS.URL+"/test/bind-booking?cinema=0001&number=100004"),
		chromedp.Navigate(h.TS.URL+"/booking/tickets"), chromedp.WaitVisible(`[data-testid="ticket-card"]`))
	cards, err := chromedp.Run(p.Ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="ticket-card"] [data-testid="ticket-qr"] svg').length`))
	if err != nil || cards != 3 {
		t.Fatalf("%d tickets with QR codes on the print view, want 3", cards)
	}
	const mm = 1 / 25.4 // inches
	for _, paper := range []struct {
		name          string
		width, height float64 // mm
		margin        float64 // mm
	}{
		{"a4", 210, 297, 12},
		{"roll-80mm", 80, 200, 3},
	} {
		t.Run(paper.name, func(t *testing.T) {
			m := paper.margin * mm
			res, err := chromedp.Run(p.Ctx, func(ctx context.Context, tg *chromedp.Target) (page.PrintToPDFResult, error) {
				return cdp.Call(ctx, tg, page.PrintToPDF, page.PrintToPDFParams{PaperWidth: paper.width * mm, PaperHeight: paper.height * mm,
					MarginTop: &m, MarginBottom: &m, MarginLeft: &m, MarginRight: &m})
			})
			if err != nil {
				t.Fatal(err)
			}
			pdf := res.Data
			if !bytes.HasPrefix(pdf, []byte("%PDF-")) {
				t.Fatalf("not a PDF: %q", pdf[:min(len(pdf), 16)])
			}
			_ = os.WriteFile(filepath.Join(browsertest.ArtifactsDir(t), "print-"+paper.name+".pdf"), pdf, 0o644)
			if n := len(pdfPage.FindAll(pdf, -1)); n != 3 {
				t.Fatalf("%d pages for 3 tickets on %s: a ticket is split, or tickets share a page", n, paper.name)
			}
			// Laid out as for the paper (print media, the printable width): no ticket wider than
			// the page or taller than it.
			widthPx := int64((paper.width - 2*paper.margin) * 96 / 25.4)
			heightPx := (paper.height - 2*paper.margin) * 96 / 25.4
			type fit struct {
				Wide  bool    `json:"wide"`
				Tall  float64 `json:"tall"`
				Cards int     `json:"cards"`
			}
			media := func(m string, w, h int64) chromedp.Action[chromedp.Void] {
				return func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
					if _, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Media: m}); err != nil {
						return chromedp.Void{}, err
					}
					if w == 0 {
						_, err := cdp.Call(ctx, tg, emulation.ClearDeviceMetricsOverride, cdp.Empty{})
						return chromedp.Void{}, err
					}
					_, err := cdp.Call(ctx, tg, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{Width: w, Height: h, DeviceScaleFactor: 1})
					return chromedp.Void{}, err
				}
			}
			p.Do(media("print", widthPx, int64(heightPx)))
			fits, err := chromedp.Run(p.Ctx, chromedp.Evaluate[fit](`(() => {
				const cards = [...document.querySelectorAll('[data-testid="ticket-card"]')];
				return {
					wide: document.documentElement.scrollWidth > window.innerWidth || cards.some(c => c.scrollWidth > c.clientWidth || c.getBoundingClientRect().right > window.innerWidth + 1),
					tall: Math.max(...cards.map(c => c.getBoundingClientRect().height)),
					cards: cards.filter(c => getComputedStyle(c).display !== 'none').length,
				};
			})()`))
			p.Do(media("", 0, 0))
			if err != nil {
				t.Fatal(err)
			}
			if fits.Wide || fits.Tall > heightPx || fits.Cards != 3 {
				t.Fatalf("on %s (%d px wide, %.0f px tall) the tickets do not fit: %+v", paper.name, widthPx, heightPx, fits)
			}
		})
	}
}
