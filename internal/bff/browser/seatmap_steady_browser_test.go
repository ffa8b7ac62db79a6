package browser_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/browsertest"
)

// The measurements of a seat page under the finger: layout shifts from the moment it is
// installed (every entry, with or without recent input: the page's load is Lighthouse's to
// judge), the Event Timing of each interaction and the largest contentful paint, gathered from
// the page's own performance observers.
const steadyObserveJS = `(() => {
  window.__shift = 0; window.__events = []; window.__lcp = 0;
  new PerformanceObserver(l => { for (const e of l.getEntries()) window.__shift += e.value; }).observe({type: 'layout-shift'});
  new PerformanceObserver(l => { for (const e of l.getEntries()) if (e.interactionId) window.__events.push({name: e.name, id: e.interactionId, duration: e.duration}); }).observe({type: 'event', durationThreshold: 16, buffered: true});
  new PerformanceObserver(l => { for (const e of l.getEntries()) window.__lcp = Math.max(window.__lcp, e.startTime); }).observe({type: 'largest-contentful-paint', buffered: true});
  return true;
})()`

// browserEval runs js on the page (waiting for a promise it returns) and decodes its JSON
// result into v (nil: ignore it).
func browserEval(t *testing.T, p *browsertest.Page, js string, v any) {
	t.Helper()
	raw, err := chromedp.Run(p.Ctx, chromedp.Evaluate[[]byte](js, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("evaluate: %v", err)
	}
	if v != nil {
		if err := json.Unmarshal(raw, v); err != nil {
			t.Fatalf("decode %s: %v", raw, err)
		}
	}
}

// touchAt taps the screen at (x, y) with one finger, as a phone does: touchstart, touchend,
// and the mouse events and click the browser makes of them.
func touchAt(x, y float64) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		start := input.DispatchTouchEventParams{Type: input.DispatchTouchEventTypeTouchStart, TouchPoints: []*input.TouchPoint{{X: x, Y: y}}}
		if _, err := cdp.Call(ctx, tg, input.DispatchTouchEvent, start); err != nil {
			return chromedp.Void{}, fmt.Errorf("touch start: %w", err)
		}
		end := input.DispatchTouchEventParams{Type: input.DispatchTouchEventTypeTouchEnd, TouchPoints: []*input.TouchPoint{}}
		if _, err := cdp.Call(ctx, tg, input.DispatchTouchEvent, end); err != nil {
			return chromedp.Void{}, fmt.Errorf("touch end: %w", err)
		}
		return chromedp.Void{}, nil
	}
}

// slowCPU slows the page's CPU by rate (DevTools throttling: 4 is a mid-range phone).
func slowCPU(rate float64) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		_, err := cdp.Call(ctx, tg, emulation.SetCPUThrottlingRate, emulation.SetCPUThrottlingRateParams{Rate: rate})
		return chromedp.Void{}, err
	}
}

// seatSpot brings the seat with the box value into the map's view by scrolling the map only
// (never the page: a page scroll is not the page moving by itself) and says where it is.
type seatSpot struct {
	X, Y    float64
	MapTop  float64 `json:"mapTop"`
	Checked bool
}

func seatSpotJS(value string) string {
	return fmt.Sprintf(`new Promise(done => {
  const box = document.querySelector('.seatmap-scroll input[value=%q]');
  const seat = box.closest('.seat');
  const sc = document.querySelector('.seatmap-scroll');
  const r = sc.getBoundingClientRect(), q = seat.getBoundingClientRect();
  sc.scrollLeft += (q.left + q.width / 2) - (r.left + r.width / 2);
  sc.scrollTop += (q.top + q.height / 2) - (r.top + r.height / 2);
  requestAnimationFrame(() => requestAnimationFrame(() => {
    const q = seat.getBoundingClientRect();
    done({X: q.left + q.width / 2, Y: q.top + q.height / 2, mapTop: sc.getBoundingClientRect().top, Checked: box.checked});
  }));
})`, value)
}

// openSeatStep opens the purchase's seat step for tomorrow's 20:30 show (1113, the 412-seat
// auditorium) with two Adults, where the service has already chosen two seats together.
func openSeatStep(p *browsertest.Page, base string) {
	p.Do(chromedp.Navigate(base+"/whats-on/0001/1113"), chromedp.WaitVisible(`[data-testid="tickets-form"]`),
		chromedp.SetValue(`#qty-0001`, "2"),
		chromedp.Click(`[data-testid="tickets-form"] button[type=submit]`), chromedp.WaitVisible(`[data-testid="seatmap"]`))
}

// freeSeatsBeside names free seats of the row of the first chosen seat, nearest it first.
const freeSeatsBesideJS = `(() => {
  const chosen = document.querySelector('.seatmap-scroll .seat input:checked');
  const row = chosen.closest('.seat-row');
  const at = chosen.closest('.seat').getBoundingClientRect().left;
  return [...row.querySelectorAll('label.seat:not(.seat-taken):not(.seat-unavailable) input:not(:checked)')]
    .sort((a, b) => Math.abs(a.closest('.seat').getBoundingClientRect().left - at) - Math.abs(b.closest('.seat').getBoundingClientRect().left - at))
    .map(b => b.value);
})()`

// TestBrowserSeatMapStaysStill: on a phone (390×844, touch), choosing, deselecting and choosing
// seats on the purchase's seat map moves nothing above or in the map (its top by at most 2 px,
// layout shifts summing to at most 0.01), every chosen seat is the topmost element at its
// centre (nothing sticky covers it), and with the party complete a tap on a free seat moves
// the seat chosen last there, saying so, instead of refusing.
func TestBrowserSeatMapStaysStill(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	p := browsertest.NewPage(t, browsertest.Options{Width: 390, Height: 844, Mobile: true})
	openSeatStep(p, h.TS.URL)
	browserEval(t, p, steadyObserveJS, nil)
	var chosen []string
	browserEval(t, p, `[...document.querySelectorAll('.seatmap-scroll .seat input:checked')].map(b => b.value)`, &chosen)
	if len(chosen) != 2 {
		t.Fatalf("the seat step opened with %d seats chosen, want the 2 the service picked: %v", len(chosen), chosen)
	}
	var free []string
	browserEval(t, p, freeSeatsBesideJS, &free)
	if len(free) < 2 {
		t.Fatalf("no free seats beside the party: %v", free)
	}
	var firstTop float64
	tap := func(value string) seatSpot {
		t.Helper()
		var s seatSpot
		browserEval(t, p, seatSpotJS(value), &s)
		if firstTop == 0 {
			firstTop = s.MapTop
		}
		p.Do(touchAt(s.X, s.Y), chromedp.Sleep(300e6))
		return s
	}
	checked := func() []string {
		var v []string
		browserEval(t, p, `[...document.querySelectorAll('.seatmap-scroll .seat input:checked')].map(b => b.value).sort()`, &v)
		return v
	}
	answer := func() string { return strings.TrimSpace(p.Text(`[data-testid="seat-tapped"]`)) }

	// 1. The party is complete: a tap on a free seat moves the seat chosen last (the second).
	tap(free[0])
	if got, want := checked(), slices.Sorted(slices.Values([]string{chosen[0], free[0]})); !slices.Equal(got, want) {
		t.Errorf("after a tap at capacity the seats are %v, want %v (the last chosen moved)", got, want)
	}
	if a := answer(); !strings.Contains(a, "chosen instead of") {
		t.Errorf("the answer to a tap at capacity %q does not say a seat moved", a)
	}
	// 2. Deselect it, 3. choose another, 4. and at capacity again move one.
	tap(free[0])
	if got := checked(); len(got) != 1 {
		t.Errorf("after deselecting, %d seats are chosen: %v", len(got), got)
	}
	tap(free[1])
	tap(free[0])
	if got, want := checked(), slices.Sorted(slices.Values([]string{chosen[0], free[0]})); !slices.Equal(got, want) {
		t.Errorf("after the fourth tap the seats are %v, want %v", got, want)
	}

	var look struct {
		MapTop  float64 `json:"mapTop"`
		Shift   float64 `json:"shift"`
		Covered []string
	}
	browserEval(t, p, `(() => {
  const sc = document.querySelector('.seatmap-scroll');
  const covered = [];
  for (const box of sc.querySelectorAll('.seat input:checked')) {
    const seat = box.closest('.seat');
    const sr = sc.getBoundingClientRect();
    sc.scrollLeft += (seat.getBoundingClientRect().left - sr.left) - sr.width / 2;
    const q = seat.getBoundingClientRect();
    const top = document.elementFromPoint(q.left + q.width / 2, q.top + q.height / 2);
    if (!top || !seat.contains(top)) covered.push(box.value + ' under ' + (top ? top.className || top.tagName : 'nothing'));
  }
  return {mapTop: sc.getBoundingClientRect().top, shift: window.__shift, Covered: covered};
})()`, &look)
	saveShot(t, p, browsertest.ArtifactsDir(t), "seatmap-steady")
	if d := math.Abs(look.MapTop - firstTop); d > 2 {
		t.Errorf("the map's top moved %.1f px while choosing (from %.1f to %.1f)", d, firstTop, look.MapTop)
	}
	if look.Shift > 0.01 {
		t.Errorf("layout shifts while choosing sum to %.3f, want at most 0.01", look.Shift)
	}
	if len(look.Covered) != 0 {
		t.Errorf("chosen seats are covered at their centres: %v", look.Covered)
	}
}

// TestBrowserSeatMapAnswersFastOnASlowPhone: the seat step's largest contentful paint is
// within 1 s on loopback, and with the CPU slowed 4× (a mid-range phone) taps on seats of the
// 412-seat map are on screen within 200 ms (from the tap's time stamp to the frame that shows
// it; the 75th percentile of eight taps, as INP is judged). The figures are logged;
// BENCHMARKS.md keeps them with the command.
func TestBrowserSeatMapAnswersFastOnASlowPhone(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	p := browsertest.NewPage(t, browsertest.Options{Width: 390, Height: 844, Mobile: true})
	p.Do(chromedp.Navigate(h.TS.URL+"/whats-on/0001/1113"), chromedp.WaitVisible(`[data-testid="tickets-form"]`),
		chromedp.SetValue(`#qty-0001`, "2"),
		chromedp.Click(`[data-testid="tickets-form"] button[type=submit]`), chromedp.WaitVisible(`[data-testid="seatmap"]`))
	browserEval(t, p, steadyObserveJS, nil)
	// The frame that shows a tap's answer: the second animation frame after the click (the
	// first runs before that frame is drawn), from the tap's own time stamp.
	browserEval(t, p, `window.__frames = []; document.addEventListener('click', e => { const t0 = e.timeStamp; requestAnimationFrame(() => requestAnimationFrame(() => window.__frames.push(performance.now() - t0))); }, true); true`, nil)
	if os.Getenv("NOCD") != "" {
		browserEval(t, p, `document.querySelector('[data-countdown-expires]').remove(), true`, nil)
	}
	p.Do(chromedp.Sleep(1e9)) // the paints of the page's load are in
	var lcp float64
	browserEval(t, p, `window.__lcp`, &lcp)
	p.Do(slowCPU(4))
	// Free seats wholly in view (in the map's view, above the action bar), nearest the party
	// first: the seats a person taps without panning.
	var free []struct{ X, Y float64 }
	browserEval(t, p, `(() => {
  const sc = document.querySelector('.seatmap-scroll').getBoundingClientRect();
  const bar = document.querySelector('.seat-actions').getBoundingClientRect();
  const chosen = document.querySelector('.seatmap-scroll .seat input:checked').closest('.seat').getBoundingClientRect();
  return [...document.querySelectorAll('.seatmap-scroll label.seat:not(.seat-taken):not(.seat-unavailable)')]
    .filter(s => !s.querySelector('input').checked)
    .map(s => s.getBoundingClientRect())
    .filter(q => q.left >= sc.left + 40 && q.right <= sc.right - 40 && q.top >= sc.top + 40 && q.bottom <= Math.min(sc.bottom, bar.top) - 4)
    .sort((a, b) => Math.hypot(a.x - chosen.x, a.y - chosen.y) - Math.hypot(b.x - chosen.x, b.y - chosen.y))
    .slice(0, 3).map(q => ({X: q.left + q.width / 2, Y: q.top + q.height / 2}));
})()`, &free)
	if len(free) < 3 {
		t.Fatalf("free seats in view: %v", free)
	}
	taps := []int{0, 0, 1, 2, 1, 0, 2, 1}
	for _, i := range taps {
		p.Do(touchAt(free[i].X, free[i].Y), chromedp.Sleep(600e6))
		if os.Getenv("SEATMAP_DEBUG") != "" {
			var dbg any
			browserEval(t, p, `[document.querySelector('[data-seat-tapped]').textContent, [...document.querySelectorAll('.seatmap-scroll .seat input:checked')].map(b => b.value).join(' '), JSON.stringify(window.__events.slice(-3)), JSON.stringify(window.__frames)]`, &dbg)
			t.Log(free[i], dbg)
		}
	}
	var events []struct {
		Name     string
		ID       int
		Duration float64
	}
	browserEval(t, p, `window.__events`, &events)
	perTap := map[int]float64{}
	for _, e := range events {
		perTap[e.ID] = math.Max(perTap[e.ID], e.Duration)
	}
	var timing []float64
	for _, d := range perTap {
		timing = append(timing, d)
	}
	sort.Float64s(timing)
	var frames []float64
	browserEval(t, p, `window.__frames`, &frames)
	sort.Float64s(frames)
	t.Logf("seat step LCP %.0f ms; CPU 4× slower: tap to the frame showing it %.0f ms; Event Timing per interaction %v ms", lcp, frames, timing)
	if len(frames) < len(taps) {
		t.Fatalf("%d frames seen for %d taps", len(frames), len(taps))
	}
	// Headless Chromium reports a frame's presentation to Event Timing only when its software
	// compositor next draws (the next input, or the hold's clock ticking), so Event Timing's
	// durations there run to the next tap; the frame with the answer is measured instead.
	if p75 := frames[(len(frames)*3+3)/4-1]; p75 > 200 {
		t.Errorf("taps on seats took %.0f ms to the frame showing them at the 75th percentile with the CPU slowed 4×, want at most 200 (all: %.0f)", p75, frames)
	}
	if lcp <= 0 || lcp > 1000 {
		t.Errorf("the seat step's largest contentful paint was at %.0f ms, want at most 1000", lcp)
	}
	if os.Getenv("SEATMAP_SHOTS") != "" {
		saveShot(t, p, browsertest.ArtifactsDir(t), "seatmap-slow-cpu")
	}
}
