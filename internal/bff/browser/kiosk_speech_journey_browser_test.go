package browser_test

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/browsertest"
	"github.com/cinemabff/cinemabff/internal/device"
	"github.com/cinemabff/cinemabff/internal/sandbox/payprovider"
)

// readerAsking waits up to 10 s for the sandbox's reader to ask for a card.
func readerAsking(t *testing.T, h *bfftest.Harness) payprovider.TerminalReader {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		for _, r := range h.Prov.Readers() {
			if r.Action != nil && r.Action.Status == payprovider.ActionInProgress {
				return r
			}
		}
	}
	t.Fatal("the reader never asked for a card")
	return payprovider.TerminalReader{}
}

// ear is a blind guest at the kiosk: it presses keys and listens, and reads nothing from the
// screen. Every utterance it hears is kept (across pages) for the test's log.
type ear struct {
	t     *testing.T
	p     *browsertest.Page
	heard []string
}

// key presses k and returns the first new utterance: on the same page, or the announcement
// of the page the key led to (a new document starts its own record).
func (e *ear) key(k string) string {
	e.t.Helper()
	var before int
	browserEval(e.t, e.p, `(window.__mark = 1, window.__speech.said.length)`, &before)
	e.p.Do(chromedp.KeyEvent(k))
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(30 * time.Millisecond) {
		var got struct {
			Same bool     `json:"same"`
			Said []string `json:"said"`
		}
		browserEval(e.t, e.p, `({same: window.__mark === 1, said: (window.__speech ? window.__speech.said : []).map(function (u) { return u.text; })})`, &got)
		from := 0
		if got.Same {
			from = before
		}
		if len(got.Said) > from {
			e.heard = append(e.heard, got.Said[from:]...)
			return got.Said[len(got.Said)-1]
		}
	}
	e.t.Fatalf("nothing said after %q; heard so far %q", k, e.heard)
	return ""
}

// downTo presses ArrowDown until what is said matches re.
func (e *ear) downTo(re string) string {
	e.t.Helper()
	m := regexp.MustCompile(re)
	var said []string
	for range 40 {
		u := e.key(kb.ArrowDown)
		if m.MatchString(u) {
			return u
		}
		said = append(said, u)
	}
	e.t.Fatalf("ArrowDown never reached %q; said %q", re, said)
	return ""
}

// TestBrowserKioskBuysByEar: a blind guest at an enrolled kiosk (1080×1920) buys two adult
// tickets for a named film and showtime with the navigator's keys alone, deciding from what
// the kiosk says (nothing is read from the screen, nothing clicked): F9 on the attract screen,
// the day, the showing (its film named), two Adults, the suggested seats, Pay on the reader
// (the sandbox's tap), and the confirmation says the film, the time, the screen, both seats and
// the amount paid.
func TestBrowserKioskBuysByEar(t *testing.T) {
	t.Parallel()
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	p := browsertest.NewPage(t, browsertest.Options{Width: 1080, Height: 1920})
	browserEnrol(t, p, h, device.Kiosk)
	p.Do(chromedp.EmulateViewport(1080, 1920, chromedp.EmulateTouch))
	p.Do(recordSpeech(true))
	p.Do(chromedp.Navigate(h.TS.URL+"/"), chromedp.WaitVisible(`[data-testid="kiosk-attract"]`))
	g := &ear{t: t, p: p}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("heard: %q", g.heard)
		}
	})
	g.key(kb.F9)
	g.downTo(`(?i)buy`)
	g.key(kb.Enter)
	g.downTo(`^Buy tickets`)
	g.key(kb.Enter)
	g.downTo(`^Tue 8 Dec`)
	g.key(kb.Enter)
	g.downTo(`^Otters of the Elbe, 20:30`)
	g.key(kb.Enter)
	g.downTo(`^Adult,`)
	g.key(kb.ArrowRight)
	if u := g.key(kb.ArrowRight); u != "Adult, 2 chosen" {
		t.Fatalf("the second ArrowRight on Adult said %q", u)
	}
	g.downTo(`(?i)continue`)
	g.key(kb.Enter)
	g.downTo(`^Continue`)
	g.key(kb.Enter)
	g.downTo(`^Pay €26\.50`)
	if u := g.key(kb.Enter); !strings.HasPrefix(u, "You are on: Pay by card") {
		t.Fatalf("Pay led to a page that says %q", u)
	}
	reader := readerAsking(t, h)
	if err := h.Prov.PresentPaymentMethod(reader.ID, "4242424242424242"); err != nil {
		t.Fatal(err)
	}
	p.Do(chromedp.WaitVisible(`[data-testid="kiosk-done"]`))
	var summary string
	for deadline := time.Now().Add(5 * time.Second); summary == "" && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if said := spoken(t, p); len(said) > 0 {
			summary = said[0].Text
		}
	}
	want := regexp.MustCompile(`^You are on: .*You're booked\. Otters of the Elbe, Tuesday 8 December 2026, 20:30, Saal 1\. Your seats: Row [A-Z], seat \d+; Row [A-Z], seat \d+\. Paid: €26\.50\.`)
	if !want.MatchString(summary) {
		t.Errorf("the confirmation said %q, want the film, the time, the screen, both seats and the amount paid", summary)
	}
}
