package browser_test

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/browsertest"
	"github.com/cinemabff/cinemabff/internal/device"
)

// recordSpeech replaces window.speechSynthesis in every document of the page, before the
// page's scripts run, with a recorder: window.__speech.said holds each utterance (text, lang,
// rate, volume, when), window.__speech.log the order of speak and cancel calls. It has an
// English and a German voice, as a kiosk with espeak-ng would (withVoices), or none; console
// warnings are kept in window.__speech.warnings.
func recordSpeech(withVoices bool) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		_, err := cdp.Call(ctx, tg, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: `(function (withVoices) {
  var rec = window.__speech = { said: [], log: [], cancels: 0, warnings: [], keys: [] };
  // When each key went down, before any of the page's own listeners (window, capture phase).
  window.addEventListener('keydown', function (e) { rec.keys.push({ key: e.key, at: performance.now() }); }, true);
  var warn = console.warn;
  console.warn = function () { rec.warnings.push(Array.prototype.join.call(arguments, ' ')); return warn.apply(console, arguments); };
  var voices = !withVoices ? [] : [{ name: 'Test English', lang: 'en-GB', localService: true, default: true, voiceURI: 'test-en' },
                { name: 'Test Deutsch', lang: 'de-DE', localService: true, default: false, voiceURI: 'test-de' }];
  var synth = {
    speaking: false, pending: false, paused: false, onvoiceschanged: null,
    getVoices: function () { return voices; },
    cancel: function () { rec.cancels++; rec.log.push('cancel'); },
    speak: function (u) {
      rec.log.push('speak');
      rec.said.push({ text: u.text, lang: u.lang, rate: u.rate, volume: u.volume, at: performance.now(), voice: u.voice && u.voice.lang });
    },
    pause: function () {}, resume: function () {},
    addEventListener: function () {}, removeEventListener: function () {}
  };
  Object.defineProperty(window, 'speechSynthesis', { value: synth, configurable: true });
  window.SpeechSynthesisUtterance = function (text) { this.text = text; this.lang = ''; this.rate = 1; this.volume = 1; this.voice = null; };
})(` + strconv.FormatBool(withVoices) + `);`})
		return chromedp.Void{}, err
	}
}

// utterance is one recorded speak call.
type utterance struct {
	Text   string  `json:"text"`
	Lang   string  `json:"lang"`
	Rate   float64 `json:"rate"`
	Volume float64 `json:"volume"`
	At     float64 `json:"at"`
}

func spoken(t *testing.T, p *browsertest.Page) []utterance {
	t.Helper()
	var u []utterance
	browserEval(t, p, `window.__speech.said`, &u)
	return u
}

// arrivalSaid is the first thing the page said since it loaded, waiting up to 5 s for it
// ("" when nothing was said): a page's announcement on arrival.
func arrivalSaid(t *testing.T, p *browsertest.Page) string {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if said := spoken(t, p); len(said) > 0 {
			return said[0].Text
		}
	}
	return ""
}

func lastSaid(t *testing.T, p *browsertest.Page) utterance {
	t.Helper()
	u := spoken(t, p)
	if len(u) == 0 {
		t.Fatal("nothing said")
	}
	return u[len(u)-1]
}

// press presses key and returns what was said after it.
func press(t *testing.T, p *browsertest.Page, key string) utterance {
	t.Helper()
	before := len(spoken(t, p))
	p.Do(chromedp.KeyEvent(key))
	u := spoken(t, p)
	if len(u) <= before {
		t.Fatalf("nothing said after key %q", key)
	}
	return u[len(u)-1]
}

// speakUntil presses ArrowDown until what is said starts with prefix.
func speakUntil(t *testing.T, p *browsertest.Page, prefix string) utterance {
	t.Helper()
	var said []string
	for range 25 {
		u := press(t, p, kb.ArrowDown)
		if strings.HasPrefix(u.Text, prefix) {
			return u
		}
		said = append(said, u.Text)
	}
	t.Fatalf("ArrowDown never reached %q; said %q", prefix, said)
	return utterance{}
}

// TestBrowserKioskSpeech: at an enrolled 1080×1920 kiosk, with speechSynthesis replaced by a
// recorder, speech is off until F9; then the page says where the guest is (its heading) on
// F9 and on every page load, ArrowDown speaks the Adult stepper's name, count, price and place,
// ArrowRight adds a ticket and says the new count, F2 repeats, F4 speaks faster from then on,
// every speak is preceded by a cancel (nothing queued), the German page speaks German with
// lang de, and Start over ends speech, rate included, for the next guest.
func TestBrowserKioskSpeech(t *testing.T) {
	t.Parallel()
	h, p := speakingKiosk(t)
	kioskTouchToStart(p, h.TS.URL)
	p.Do(chromedp.Click(`[data-testid="kiosk-buy"]`), chromedp.WaitVisible(`[data-testid="session-link"]`),
		chromedp.Click(`[data-testid="session-link"]`), chromedp.WaitVisible(`[data-testid="tickets-form"]`))

	// Off by default: keys say nothing and change nothing.
	p.Do(chromedp.KeyEvent(kb.ArrowDown), chromedp.KeyEvent(kb.ArrowRight))
	if u := spoken(t, p); len(u) != 0 {
		t.Fatalf("speech off, yet said %+v", u)
	}
	if v := p.Text(`[data-testid="ticket-total"]`); !strings.Contains(v, "No tickets") {
		t.Errorf("with speech off ArrowRight changed the total to %q", v)
	}

	title := strings.TrimSpace(p.Text(`main h1`))
	if u := press(t, p, kb.F9); !strings.HasPrefix(u.Text, "Speech on.") || !strings.Contains(u.Text, title) || !strings.HasPrefix(u.Lang, "en") {
		t.Errorf("F9 said %+v, want speech on and the heading %q in English", u, title)
	}
	// Every page load, while speech is on, says where the guest is and what they can do.
	p.Do(chromedp.Reload(), chromedp.WaitVisible(`[data-testid="tickets-form"]`))
	if u := lastSaid(t, p); u.Text != "You are on: "+title+". Arrow down to a ticket type; arrow right adds one, arrow left takes one away; then arrow down to Continue to seats and press Enter." {
		t.Errorf("page load said %q, want the heading and the page's own hint", u.Text)
	}
	if u := press(t, p, kb.F1); !strings.HasPrefix(u.Text, "You are on: "+title+". ") || !strings.Contains(u.Text, "Keys: F9, speech on or off.") || !strings.Contains(u.Text, "F10, hide or show the screen.") {
		t.Errorf("F1 said %q, want where, what and the keys", u.Text)
	}

	// The Adult stepper: name, state, price each, place.
	adult := speakUntil(t, p, "Adult")
	if !regexp.MustCompile(`^Adult, 0 chosen, €\d+\.\d\d each, \d+ of \d+$`).MatchString(adult.Text) {
		t.Errorf("the stepper said %q, want name, count, price each and place", adult.Text)
	}
	if u := press(t, p, kb.ArrowRight); u.Text != "Adult, 1 chosen" {
		t.Errorf("ArrowRight said %q, want Adult, 1 chosen", u.Text)
	}
	var qty string
	browserEval(t, p, `document.querySelector('[data-testid="qty-0001"]').value`, &qty)
	if qty != "1" {
		t.Errorf("ArrowRight left the Adult count at %q, want 1", qty)
	}
	if u := press(t, p, kb.F2); u.Text != "Adult, 1 chosen" {
		t.Errorf("F2 said %q, want the last thing again", u.Text)
	}
	slow := lastSaid(t, p).Rate
	if u := press(t, p, kb.F4); u.Text != "Faster." || u.Rate <= slow {
		t.Errorf("F4 said %q at rate %v, want Faster. above %v", u.Text, u.Rate, slow)
	}
	if u := press(t, p, kb.F2); u.Rate <= slow {
		t.Errorf("after F4 the next utterance has rate %v, want above %v", u.Rate, slow)
	}
	// F3 slower, F5 quieter, F6 louder: each said at its new setting, and the next utterance
	// keeps it.
	fast, loud := lastSaid(t, p).Rate, lastSaid(t, p).Volume
	if u := press(t, p, kb.F3); u.Text != "Slower." || u.Rate >= fast {
		t.Errorf("F3 said %q at rate %v, want Slower. below %v", u.Text, u.Rate, fast)
	}
	if u := press(t, p, kb.F5); u.Text != "Quieter." || u.Volume >= loud {
		t.Errorf("F5 said %q at volume %v, want Quieter. below %v", u.Text, u.Volume, loud)
	}
	quiet := lastSaid(t, p).Volume
	if u := press(t, p, kb.F2); u.Volume != quiet {
		t.Errorf("after F5 the next utterance has volume %v, want %v", u.Volume, quiet)
	}
	if u := press(t, p, kb.F6); u.Text != "Louder." || u.Volume <= quiet {
		t.Errorf("F6 said %q at volume %v, want Louder. above %v", u.Text, u.Volume, quiet)
	}
	press(t, p, kb.F4) // back to the faster rate the German page is checked at
	// A new key stops the old speech first: every speak right after a cancel.
	var log []string
	browserEval(t, p, `window.__speech.log`, &log)
	for i, e := range log {
		if e == "speak" && (i == 0 || log[i-1] != "cancel") {
			t.Errorf("speak %d not preceded by cancel: %v", i, log)
			break
		}
	}

	// German: the same page speaks German, with lang de, at the guest's rate.
	p.Do(chromedp.Click(`[data-testid="lang-switch"] a[hreflang="de"]`), chromedp.WaitVisible(`html[lang="de"] [data-testid="tickets-form"]`))
	de := lastSaid(t, p)
	if !strings.HasPrefix(de.Text, "Sie sind hier: ") || de.Lang != "de" || de.Rate <= slow {
		t.Errorf("German page said %+v, want German words, lang de and the faster rate", de)
	}
	if u := speakUntil(t, p, "Erwachsen"); !strings.Contains(u.Text, " gewählt, je ") || u.Lang != "de" {
		t.Errorf("German stepper said %+v", u)
	}

	// Start over ends the visit: the next guest starts with speech off and the default rate.
	// It is the screen's last item, after the page's own.
	if u := speakUntil(t, p, "Neu beginnen"); !regexp.MustCompile(`^Neu beginnen, (\d+) von (\d+)$`).MatchString(u.Text) {
		t.Errorf("Start over as an item said %q", u.Text)
	}
	p.Do(chromedp.KeyEvent(kb.Enter), chromedp.WaitVisible(`[data-testid="kiosk-attract"]`))
	var stored []any
	browserEval(t, p, `['speech.on', 'speech.rate', 'speech.volume'].map(k => sessionStorage.getItem(k))`, &stored)
	for i, v := range stored {
		if v != nil {
			t.Errorf("after Start over sessionStorage item %d is %v, want none", i, v)
		}
	}
	kioskTouchToStart(p, h.TS.URL)
	p.Do(chromedp.KeyEvent(kb.ArrowDown), chromedp.KeyEvent(kb.F1))
	if u := spoken(t, p); len(u) != 0 {
		t.Errorf("the next guest hears %+v without pressing F9", u)
	}
	if u := press(t, p, kb.F9); u.Rate != 1 || u.Volume != 0.8 {
		t.Errorf("the next guest's speech has rate %v and volume %v, want the defaults 1 and 0.8", u.Rate, u.Volume)
	}
	p.AssertNoConsoleErrors()
}

// TestBrowserKioskSpeechSeatMap: on the kiosk's seat step with speech on, the seat map is one
// item; Enter enters it and says the screen, the row count, the rows with free seats and the
// seat it starts on; ArrowRight (app.js's seat keys) moves to the next seat and says its row,
// number and state; Enter takes it and says so; Escape leaves the map.
func TestBrowserKioskSpeechSeatMap(t *testing.T) {
	t.Parallel()
	h, p := speakingKiosk(t)
	kioskTouchToStart(p, h.TS.URL)
	p.Do(chromedp.Click(`[data-testid="kiosk-buy"]`), chromedp.WaitVisible(`[data-testid="session-link"]`),
		chromedp.Click(`[data-testid="session-link"]`), chromedp.WaitVisible(`[data-testid="tickets-form"]`),
		chromedp.Click(`[data-testid="qty-plus-0001"]`),
		chromedp.Click(`[data-testid="tickets-form"] .button-primary`), chromedp.WaitVisible(`[data-testid="seatmap"]`))
	press(t, p, kb.F9) // the plan at its overview: keys take seats at any zoom
	item := speakUntil(t, p, "Seat map of Saal 2, ")
	if !strings.Contains(item.Text, "press Enter to explore it") {
		t.Errorf("the map as an item said %q", item.Text)
	}
	intro := press(t, p, kb.Enter)
	if !regexp.MustCompile(`^Seat map of Saal 2, \d+ rows; free seats in rows [A-Z].*; the screen is ahead\. .* Row [A-Z]+, seat \d+`).MatchString(intro.Text) {
		t.Errorf("entering the map said %q", intro.Text)
	}
	var first string
	browserEval(t, p, `document.activeElement.getAttribute('aria-label')`, &first)
	next := press(t, p, kb.ArrowRight)
	var now string
	browserEval(t, p, `document.activeElement.getAttribute('aria-label')`, &now)
	// The seat it lands on, then any it went past ("Passed: seat 7, standard, taken.").
	if now == first || !strings.HasPrefix(next.Text, now) || !regexp.MustCompile(`^Row [A-Z]+, seat \d+, [^.]*free(\. Passed: .*)?$`).MatchString(next.Text) {
		t.Errorf("ArrowRight from %q said %q, focus on %q", first, next.Text, now)
	}
	before := len(spoken(t, p))
	p.Do(chromedp.KeyEvent(kb.Enter))
	var confirmed bool
	for _, u := range spoken(t, p)[before:] { // the seat's state, then maybe the map's own message
		confirmed = confirmed || u.Text == now+", chosen"
	}
	if !confirmed {
		t.Errorf("Enter on a free seat said %+v, want %q", spoken(t, p)[before:], now+", chosen")
	}
	// The map's own message about the tap comes a moment later and is spoken too; wait for it
	// so that it does not arrive after the next key.
	// (Up to 10 s: on a busy machine the page's own answer is late, never wrong.)
	var tapped string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		tapped = strings.TrimSpace(p.Text(`[data-testid="seat-tapped"]`))
		if tapped != "" && lastSaid(t, p).Text == tapped+"." {
			break
		}
	}
	if u := lastSaid(t, p); tapped == "" || u.Text != tapped+"." { // said as a sentence
		t.Errorf("the map's message %q was not spoken (last said %q)", tapped, u.Text)
	}
	var ticked bool
	browserEval(t, p, `document.activeElement.checked`, &ticked)
	if !ticked {
		t.Error("Enter did not take the seat")
	}
	if u := press(t, p, kb.Escape); u.Text != "Left the seat map." {
		t.Errorf("Escape in the map said %q", u.Text)
	}
	var inMap bool
	browserEval(t, p, `!!document.activeElement.closest('.seat-row')`, &inMap)
	if inMap {
		t.Error("Escape left the focus on a seat")
	}
	p.AssertNoConsoleErrors()
}

// TestBrowserKioskSpeechIdleWarning: with speech on and no key pressed, the kiosk's idle
// warning is spoken when it appears (its seconds ticking are not: that would be one utterance
// a second).
func TestBrowserKioskSpeechIdleWarning(t *testing.T) {
	t.Parallel()
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true, KioskIdle: 3 * time.Second})
	p := browsertest.NewPage(t, browsertest.Options{Width: 1080, Height: 1920})
	browserEnrol(t, p, h, device.Kiosk)
	p.Do(recordSpeech(true))
	p.Do(chromedp.Navigate(h.TS.URL+"/device"), chromedp.WaitVisible(`[data-testid="speech-voices"]`))
	if v := strings.TrimSpace(p.Text(`[data-testid="speech-voices"] [data-lang="de"]`)); !strings.HasPrefix(v, "Deutsch: the kiosk has a voice") {
		t.Errorf("the device page says %q about German", v)
	}
	kioskTouchToStart(p, h.TS.URL)
	press(t, p, kb.F9)
	p.Do(chromedp.WaitVisible("#idle-warning"))
	want := strings.TrimSpace(p.Text("#idle-title"))
	first := p.Text("#idle-seconds")
	for i := 0; i < 50 && p.Text("#idle-seconds") == first; i++ { // until the countdown has ticked
		time.Sleep(100 * time.Millisecond)
	}
	if p.Text("#idle-seconds") == first {
		t.Fatal("the idle warning's countdown never ticked")
	}
	var warned int
	for _, u := range spoken(t, p) {
		if strings.HasPrefix(u.Text, want) {
			warned++
		}
	}
	if warned != 1 {
		t.Errorf("the idle warning %q spoken %d times, want once; said %+v", want, warned, spoken(t, p))
	}
	if n, _ := strconv.Atoi(strings.TrimSpace(first)); n < 19 {
		t.Errorf("the idle warning came %q seconds before the reset, want at least 20", first)
	}
	// Any key extends the visit: the warning goes, and the visit is still there after its
	// countdown would have ended it.
	p.Do(chromedp.KeyEvent(kb.ArrowDown), chromedp.WaitNotVisible("#idle-warning"))
	if !visibleFor(t, p, `[data-testid="kiosk-start"]`, 2*time.Second) {
		t.Error("a key did not extend the visit")
	}
}

// visibleFor reports whether sel stays visible for d.
func visibleFor(t *testing.T, p *browsertest.Page, sel string, d time.Duration) bool {
	t.Helper()
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		var ok bool
		browserEval(t, p, `(() => { const el = document.querySelector('`+sel+`'); return !!el && el.getClientRects().length > 0; })()`, &ok)
		if !ok {
			return false
		}
	}
	return true
}

// TestBrowserKioskSpeechWithoutVoice: a kiosk without a voice for the page's language says
// nothing (no other language's voice instead), shows nothing new, and warns in the console.
func TestBrowserKioskSpeechWithoutVoice(t *testing.T) {
	t.Parallel()
	logs := &bfftest.Log{}
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true, Logger: logs.Logger()})
	p := browsertest.NewPage(t, browsertest.Options{Width: 1080, Height: 1920})
	browserEnrol(t, p, h, device.Kiosk)
	p.Do(recordSpeech(false))
	// At rest, the kiosk tells the service which languages it cannot speak: the operator reads
	// it in the service's log.
	p.Do(chromedp.Navigate(h.TS.URL+"/"), chromedp.WaitVisible(`[data-testid="kiosk-attract"]`))
	const warning = "kiosk: no voice for these languages"
	for deadline := time.Now().Add(10 * time.Second); len(logs.Lines(warning)) == 0 && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
	}
	if lines := logs.Lines(warning); len(lines) != 1 || !strings.Contains(lines[0], `missing="[de en]"`) || !strings.Contains(lines[0], `name="Browser kiosk"`) {
		t.Errorf("the service's log has %q, want one warning naming the kiosk, English and German", lines)
	}
	kioskTouchToStart(p, h.TS.URL)
	var before string
	browserEval(t, p, `document.body.innerText`, &before)
	p.Do(chromedp.KeyEvent(kb.F9), chromedp.KeyEvent(kb.ArrowDown), chromedp.KeyEvent(kb.F2))
	var got struct {
		Said     []utterance `json:"said"`
		Warnings []string    `json:"warnings"`
		Text     string      `json:"text"`
	}
	browserEval(t, p, `({said: window.__speech.said, warnings: window.__speech.warnings, text: document.body.innerText})`, &got)
	if len(got.Said) != 0 {
		t.Errorf("without a voice the kiosk spoke %+v", got.Said)
	}
	if len(got.Warnings) != 1 || !strings.Contains(got.Warnings[0], "no voice for language en") {
		t.Errorf("console warnings %q, want one about the missing English voice", got.Warnings)
	}
	if got.Text != before {
		t.Errorf("the page changed for the guest: %q, was %q", got.Text, before)
	}
	// Staff see it on the kiosk's device page.
	p.Do(chromedp.Navigate(h.TS.URL+"/device"), chromedp.WaitVisible(`[data-testid="speech-voices"]`))
	if v := strings.TrimSpace(p.Text(`[data-testid="speech-voices"] [data-lang="en"]`)); !strings.HasPrefix(v, "English: no voice for speech") {
		t.Errorf("the device page says %q about English", v)
	}
}

// TestBrowserKioskEscapeStopsAtTheStart: with speech on, Escape on the attract screen says
// there is no step back and stays there: behind it is the visit before (here the device
// page), or a browser's error page that no key leads out of.
func TestBrowserKioskEscapeStopsAtTheStart(t *testing.T) {
	t.Parallel()
	h, p := speakingKiosk(t)
	p.Do(chromedp.Navigate(h.TS.URL+"/device"), chromedp.WaitVisible(`main`),
		chromedp.Navigate(h.TS.URL+"/"), chromedp.WaitVisible(`[data-testid="kiosk-attract"]`))
	press(t, p, kb.F9)
	stays := func(screen, want string) {
		t.Helper()
		var before, after string
		browserEval(t, p, `location.href`, &before)
		if u := press(t, p, kb.Escape); !strings.HasPrefix(u.Text, want) {
			t.Errorf("Escape on the %s said %q, want %q", screen, u.Text, want)
		}
		time.Sleep(300 * time.Millisecond) // a step back would have begun by now
		browserEval(t, p, `location.href`, &after)
		if after != before {
			t.Errorf("Escape on the %s went from %s to %s", screen, before, after)
		}
	}
	stays("attract screen", "This is the start of the visit: there is no step back. Arrow down, then press Enter to start.")
	// The choice of what to do is the visit's first page: behind it is the attract screen.
	speakUntil(t, p, "Test Cinemas. Touch to start.")
	p.Do(chromedp.KeyEvent(kb.Enter), chromedp.WaitVisible(`[data-testid="kiosk-start"]`))
	stays("start screen", "This is the start of the visit: there is no step back. Arrow down and arrow up")
}

// TestBrowserKioskSpeaksThePrintAgainQuestion: tickets collected before bring the question
// whether to print them again; by ear it is what the screen says on arrival and with F1, not
// only its heading.
func TestBrowserKioskSpeaksThePrintAgainQuestion(t *testing.T) {
	t.Parallel()
	h, p := speakingKiosk(t)
	collect := func() {
		p.Do(chromedp.Navigate(h.TS.URL+"/kiosk/collect"), chromedp.WaitVisible("#collect-number"),
			chromedp.SetValue("#collect-number", "100003"), chromedp.SetValue("#collect-email", "paid3@example.com"),
			chromedp.Click(`[data-testid="collect-submit"]`))
	}
	collect()
	p.Do(chromedp.WaitVisible(`[data-testid="collected"]`))
	collect()
	p.Do(chromedp.WaitVisible(`[data-testid="collect-again"]`))
	press(t, p, kb.F9)
	const question = "These tickets were printed"
	if u := press(t, p, kb.F1); !strings.Contains(u.Text, question) || !strings.Contains(u.Text, "Print them again?") {
		t.Errorf("F1 on the print-again screen said %q, want its question", u.Text)
	}
	// Arriving with speech on says it too.
	p.Do(chromedp.Reload(), chromedp.WaitVisible(`[data-testid="collect-again"]`))
	first := arrivalSaid(t, p)
	if !strings.Contains(first, question) || !strings.Contains(first, "Booking 100003. Tickets printed again are the same tickets") {
		t.Errorf("arriving at the print-again screen said %q, want its question and what a reprint is", first)
	}
}
