package browser_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/browsertest"
	"github.com/cinemabff/cinemabff/internal/device"
)

// addBrowserBookingBinder is addBookingBinder for a browser (a GET it can simply open, which
// then leads to the booking's swap page).
// Test-only: the real binding happens in the booking flow after number + e-mail.
func addBrowserBookingBinder(h *bfftest.Harness) {
	h.Srv.Echo.GET("/test/bind-booking", func(c echo.Context) error {
		n, err := strconv.ParseInt(c.QueryParam("number"), 10, 64)
		if err != nil {
			return err
		}
		ctx := c.Request().Context()
		h.Srv.Kernel.Sessions.Put(ctx, "booking.cinema", c.QueryParam("cinema"))
		h.Srv.Kernel.Sessions.Put(ctx, "booking.number", n)
		return c.Redirect(http.StatusSeeOther, h.Srv.Kernel.URL("swap.show", c.QueryParam("cinema"), n))
	})
}

// tabTo presses Tab until the focused element matches sel.
func tabTo(t *testing.T, p *browsertest.Page, sel string, limit int) {
	t.Helper()
	check := `document.activeElement !== null && document.activeElement.matches(` + strconv.Quote(sel) + `)`
	for range limit {
		p.Do(chromedp.KeyEvent(kb.Tab))
		ok, err := chromedp.Run(p.Ctx, chromedp.Evaluate[bool](check))
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			return
		}
	}
	p.Screenshot("failure-tab-" + sanitizeName(t.Name()))
	t.Fatalf("%s not reached with %d presses of Tab", sel, limit)
}

// arrowTo moves the focus on a seat map to the seat sel with the arrow keys alone: up or down
// while the seat is on another row, then left or right.
func arrowTo(t *testing.T, p *browsertest.Page, sel string, limit int) {
	t.Helper()
	where := `(function () {
		var a = document.activeElement, s = document.querySelector(` + strconv.Quote(sel) + `);
		if (!a || !s) return 'lost';
		if (a === s) return 'here';
		var ra = a.closest('.seat').getBoundingClientRect(), rs = s.closest('.seat').getBoundingClientRect();
		if (Math.abs(ra.top - rs.top) > ra.height / 2) return rs.top < ra.top ? 'ArrowUp' : 'ArrowDown';
		return rs.left < ra.left ? 'ArrowLeft' : 'ArrowRight';
	})()`
	for range limit {
		key, err := chromedp.Run(p.Ctx, chromedp.Evaluate[string](where))
		if err != nil {
			t.Fatal(err)
		}
		switch key {
		case "here":
			return
		case "lost":
			t.Fatalf("the focus left the seat map on the way to %s", sel)
		}
		p.Do(chromedp.KeyEvent(map[string]string{"ArrowUp": kb.ArrowUp, "ArrowDown": kb.ArrowDown, "ArrowLeft": kb.ArrowLeft, "ArrowRight": kb.ArrowRight}[key]))
	}
	t.Fatalf("%s not reached with %d arrow keys", sel, limit)
}

// waitFor polls a script condition in the current document. (chromedp's selector waits can
// lose the page after a navigation started by a key press.)
func waitFor(t *testing.T, p *browsertest.Page, cond string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(p.Ctx, 15*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, browsertest.Until(cond)); err != nil {
		p.Screenshot("failure-wait-" + sanitizeName(t.Name()))
		t.Fatalf("timed out waiting for %s: %v", cond, err)
	}
}

func sanitizeName(s string) string { return strings.NewReplacer("/", "-", " ", "-").Replace(s) }

// TestBrowserSwapSeatWithKeyboard: find the swap page, tick a ticket and a new seat, review
// and confirm, using only Tab, the arrow keys, Space and Enter.
func TestBrowserSwapSeatWithKeyboard(t *testing.T) {
	t.Parallel()
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	addBrowserBookingBinder(h)
	p := browsertest.NewPage(t, browsertest.Options{})
	p.Do(
		chromedp.Navigate(h.TS.URL+"/test/bind-booking?cinema=0001&number=100001"),
		chromedp.WaitVisible(`[data-testid="seatmap"]`),
	)
	p.Screenshot("swap-1-map")
	// Every ticket moves when the page opens: Space on the second keeps its seat.
	tabTo(t, p, `input[name="ticket"][value="2"]`, 20)
	p.Do(chromedp.KeyEvent(" "))
	tabTo(t, p, `.seat-row input[name="seat"]`, 20) // the map is one Tab stop
	arrowTo(t, p, `input[name="seat"][value="1-5-2"]`, 100)
	p.Do(chromedp.KeyEvent(" "))
	if got := p.Text(`[data-seat-count]`); got != "1 of 1 new seat chosen" { // one ticket moves: one seat
		t.Errorf("live count %q", got)
	}
	p.Screenshot("swap-2-chosen")
	tabTo(t, p, `[data-testid="swap-form"] button[type="submit"]`, 400)
	p.Do(chromedp.KeyEvent(kb.Enter))
	waitFor(t, p, `document.querySelector('[data-testid="confirm-form"]') !== null`)
	p.Screenshot("swap-3-confirm")
	tabTo(t, p, `[data-testid="confirm-form"] button`, 20)
	p.Do(chromedp.KeyEvent(kb.Enter))
	waitFor(t, p, `document.querySelector('[data-testid="moves"]') !== null && document.querySelector("h1").textContent.includes("changed")`)
	p.Screenshot("swap-4-done")
	got, err := chromedp.Run(p.Ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('[data-testid="move-1"] td')].map(e => e.textContent.trim())`))
	if err != nil || len(got) != 3 || got[1] != "Row F, seat 11" || got[2] != "Row F, seat 3" {
		t.Fatalf("result row %q (%v)", got, err)
	}
	u, _ := url.Parse(h.TS.URL)
	p.AssertOnlyHost(u.Host)
	p.AssertNoConsoleErrors()
}

// axeSource reads axe-core as .ci/run installs it. Without it the test is skipped loudly on a
// developer machine and fails in CI.
func axeSource(t *testing.T) string {
	t.Helper()
	path := filepath.Join(browsertest.ArtifactsDir(t), "..", ".cache", "axe", "node_modules", "axe-core", "axe.min.js")
	b, err := os.ReadFile(path)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("axe-core missing (%v): .ci/run installs it with npm", err)
		}
		t.Skipf("SKIPPED: axe-core not installed at %s; run: npm install --no-save --prefix .cache/axe axe-core@4.14.1", path)
	}
	return string(b)
}

type axeViolation struct {
	ID     string   `json:"id"`
	Impact string   `json:"impact"`
	Help   string   `json:"help"`
	Nodes  []string `json:"nodes"`
}

// runAxe evaluates axe-core in the page (CDP evaluation is not subject to the page's CSP) and
// returns the WCAG 2.2 A/AA violations.
func runAxe(t *testing.T, p *browsertest.Page, src string) []axeViolation {
	t.Helper()
	// A selector shown is not a page parsed: Chrome shows a long page (the seat map) while it
	// still parses the rest, and axe on the half would miss what comes later (a label's for).
	if _, err := chromedp.Run(p.Ctx, browsertest.Until(`document.readyState === "complete"`)); err != nil {
		t.Fatalf("wait for the page to load: %v", err)
	}
	if _, err := chromedp.Run(p.Ctx, chromedp.Evaluate[[]byte](src+";true")); err != nil {
		t.Fatalf("load axe-core: %v", err)
	}
	raw, err := chromedp.Run(p.Ctx, chromedp.Evaluate[[]byte](`axe.run(document, {runOnly: {type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22a", "wcag22aa"]}})
		.then(r => ({passes: r.passes.length, violations: r.violations.map(v => ({id: v.id, impact: v.impact || "", help: v.help, nodes: v.nodes.slice(0, 5).map(n => n.target.join(" "))}))}))`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("run axe-core: %v", err)
	}
	var res struct {
		Passes     int            `json:"passes"`
		Violations []axeViolation `json:"violations"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatalf("axe result: %v", err)
	}
	if res.Passes == 0 {
		t.Fatal("axe-core checked nothing")
	}
	t.Logf("axe-core: %d rules passed, %d violated", res.Passes, len(res.Violations))
	return res.Violations
}

// TestBrowserSwapMapAccessibility runs axe-core on the seat map page in customer and kiosk
// mode (and on a phone) and saves screenshots of each.
func TestBrowserSwapMapAccessibility(t *testing.T) {
	t.Parallel()
	src := axeSource(t)
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	addBrowserBookingBinder(h)
	for _, tc := range []struct {
		name  string
		opts  browsertest.Options
		kiosk bool
	}{
		{"customer", browsertest.Options{}, false},
		{"phone", browsertest.Options{Width: 390, Height: 844, Mobile: true}, false},
		{"kiosk", browsertest.Options{Width: 1080, Height: 1920}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := browsertest.NewPage(t, tc.opts)
			if tc.kiosk {
				browserEnrol(t, p, h, device.Kiosk)
			}
			p.Do(
				chromedp.Navigate(h.TS.URL+"/test/bind-booking?cinema=0001&number=100012"),
				chromedp.WaitVisible(`[data-testid="seatmap"]`),
			)
			if tc.kiosk {
				if ok, _ := chromedp.Run(p.Ctx, chromedp.Evaluate[bool](`document.body.classList.contains("mode-kiosk")`)); !ok {
					t.Fatal("kiosk mode not set")
				}
			}
			// Touch targets: the map first fits the screen; one press of "+" makes every seat
			// at least 24 px (44 px on the kiosk), and the map pans. On the kiosk the seats
			// take taps only from there (at fit a tap picks the part of the auditorium).
			// Tick a sofa so the screenshot shows the chosen state too.
			if tc.kiosk {
				p.Do(chromedp.Click(`[data-testid=seatmap] [data-zoom="in"]`))
				p.Do(chromedp.Click(seatLabel("2-3-3")), chromedp.Click(seatLabel("2-3-4")))
			} else {
				p.Do(chromedp.Click(seatLabel("2-3-3")), chromedp.Click(seatLabel("2-3-4")))
				p.Do(chromedp.Click(`[data-testid=seatmap] [data-zoom="in"]`))
			}
			if n, err := chromedp.Run(p.Ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid=seatmap] input[name="seat"]:checked').length`)); err != nil || n < 2 {
				t.Errorf("the sofa's two places are not both chosen: %d checked (%v)", n, err)
			}
			minSize := 24.0
			if tc.kiosk {
				minSize = 44
			}
			small, err := chromedp.Run(p.Ctx, chromedp.Evaluate[int](`[...document.querySelectorAll("[data-testid=seatmap] label.seat")].filter(e => { const r = e.getBoundingClientRect(); return r.width < `+strconv.FormatFloat(minSize, 'f', 0, 64)+` || r.height < `+strconv.FormatFloat(minSize, 'f', 0, 64)+`; }).length`))
			if err != nil || small != 0 {
				t.Errorf("%d seats smaller than %.0f px (%v)", small, minSize, err)
			}
			p.Screenshot("swap-map-" + tc.name)
			for _, v := range runAxe(t, p, src) {
				msg := v.ID + " (" + v.Impact + "): " + v.Help + " at " + strings.Join(v.Nodes, ", ")
				if v.Impact == "serious" || v.Impact == "critical" {
					t.Errorf("axe: %s", msg)
				} else {
					t.Logf("axe (not failing): %s", msg)
				}
			}
			p.AssertNoConsoleErrors()
		})
	}
}

// TestBrowserSwapInGerman: the live count and the limit hint the script writes come from the
// page, in its language: a person who chose German reads them in German as they tick.
func TestBrowserSwapInGerman(t *testing.T) {
	t.Parallel()
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	addBrowserBookingBinder(h)
	p := browsertest.NewPage(t, browsertest.Options{Width: 390, Height: 844, Mobile: true})
	p.Do(
		chromedp.Navigate(h.TS.URL+"/?lang=de"), // the language switch's link: remembered in a cookie
		chromedp.Navigate(h.TS.URL+"/test/bind-booking?cinema=0001&number=100001"),
		chromedp.WaitVisible(`[data-testid="seatmap"]`),
	)
	count := func() string { return p.Text(`[data-seat-count]`) }
	if got := count(); got != "0 von 2 neuen Plätzen gewählt" {
		t.Errorf("every ticket moves when the page opens: count %q", got)
	}
	p.Do(chromedp.Click(`#ticket-2-box`))
	if got := count(); got != "0 von 1 neuen Platz gewählt" {
		t.Errorf("one ticket ticked: count %q", got)
	}
	p.Do(chromedp.Click(seatLabel("1-5-2")))
	if got := count(); got != "1 von 1 neuen Platz gewählt" {
		t.Errorf("one ticket, one seat: count %q", got)
	}
	// One seat for one ticket: nothing is wrong, so no warning; the tap answers
	// in German with the seat and that it is chosen (written just after the click's own
	// handlers have run).
	waitFor(t, p, `document.querySelector('[data-testid="seat-tapped"]').textContent !== ''`)
	if evalBool(t, p, `!document.querySelector('[data-seat-limit]').hidden`) {
		t.Errorf("a warning with as many seats as tickets: %q", p.Text(`[data-seat-limit]`))
	}
	if got := p.Text(`[data-testid="seat-tapped"]`); !strings.HasPrefix(got, "Reihe ") || !strings.HasSuffix(got, " · gewählt") {
		t.Errorf("tap answer %q", got)
	}
	if got := p.Text(`[data-seat-count-for]`); got != "1 von 1 neuen Platz gewählt" {
		t.Errorf("action bar count %q", got)
	}
	p.Do(chromedp.Click(`#ticket-2-box`))
	if got := count(); got != "1 von 2 neuen Plätzen gewählt" {
		t.Errorf("two tickets, one seat: count %q", got)
	}
	if got := p.Text(`.seatmap-zoom-fit`); got != "Einpassen" {
		t.Errorf("zoom button %q", got)
	}
	p.Screenshot("swap-german-phone")
	p.AssertNoConsoleErrors()
}
