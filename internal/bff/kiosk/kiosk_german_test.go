package kiosk_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/cinemabff/cinemabff/internal/audit"
	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/device"
	"github.com/cinemabff/cinemabff/internal/testclock"
)

// germanKiosk is a server with the sandbox and a client enrolled as a lobby kiosk whose
// default language is German; nobody is signed in afterwards.
func germanKiosk(t *testing.T, o bfftest.HarnessOpts) *bfftest.Harness {
	t.Helper()
	o.Sandbox = true
	h := bfftest.NewHarness(t, o)
	h.EnrolIn(device.Kiosk, "de")
	return h
}

// checkStartScreenIn checks that the start screen is in lang, with its heading in it, and
// that its language switch marks lang as the current one.
func checkStartScreenIn(t *testing.T, doc *goquery.Document, lang, heading string) {
	t.Helper()
	if got := doc.Find("html").AttrOr("lang", ""); got != lang {
		t.Fatalf(`start screen in <html lang=%q>, want %q`, got, lang)
	}
	if got := doc.Find("#home-title").Text(); got != heading {
		t.Errorf("start screen heading %q, want %q", got, heading)
	}
	if cur := doc.Find(`[data-testid="kiosk-languages"] a[aria-current="true"]`); cur.Length() != 1 || cur.AttrOr("hreflang", "") != lang {
		t.Errorf("the start screen marks %d languages as current (%q), want %s", cur.Length(), cur.AttrOr("hreflang", ""), lang)
	}
}

// TestKioskGermanDefaultLanguage: a kiosk enrolled with German as its default greets every
// guest in German, whatever the browser asks for; the start screen's English button (a plain
// link, no JavaScript) switches this visit to English; Start over, and the idle reset without
// JavaScript, end the visit and with it the choice: the next guest is greeted in German.
func TestKioskGermanDefaultLanguage(t *testing.T) {
	clock := testclock.New(time.Date(2026, 11, 23, 9, 14, 0, 0, time.UTC))
	h := germanKiosk(t, bfftest.HarnessOpts{Clock: clock, Now: clock.Now})

	doc := h.StartScreen()
	checkStartScreenIn(t, doc, "de", "Willkommen! Was möchten Sie tun?")
	if got := strings.TrimSpace(doc.Find(`[data-testid="kiosk-collect"] .kiosk-choice-title`).Text()); got != "Tickets abholen" {
		t.Errorf("collect choice %q", got)
	}
	nav := doc.Find(`.site-header nav:not([data-testid="lang-switch"]) a`).Map(func(_ int, a *goquery.Selection) string { return strings.TrimSpace(a.Text()) })
	if strings.Join(nav, "|") != "Tickets kaufen|Tickets abholen|Meine Buchung ändern" {
		t.Errorf("kiosk nav %v", nav)
	}

	// One large button per language, each named in its own language.
	links := doc.Find(`[data-testid="kiosk-languages"] a[data-testid="kiosk-language"]`)
	if links.Length() != 2 {
		t.Fatalf("%d language buttons on the start screen, want 2", links.Length())
	}
	english := links.Filter(`[hreflang="en"]`)
	for lang, name := range map[string]string{"en": "English", "de": "Deutsch"} {
		a := links.Filter(`[hreflang="` + lang + `"]`)
		if a.AttrOr("lang", "") != lang || strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(a.Text()), "✓")) != name || !a.HasClass("button") {
			t.Errorf("language button %s: lang %q, text %q, class %q", lang, a.AttrOr("lang", ""), a.Text(), a.AttrOr("class", ""))
		}
	}
	href := english.AttrOr("href", "")
	if href != "/?lang=en" {
		t.Fatalf("the English button goes to %q", href)
	}

	// The guest chooses English: a plain GET, remembered for this visit.
	resp, body := h.Do("GET", href, nil, bfftest.AcceptEnglish)
	bfftest.ExpectRedirect(t, resp, body, "/")
	if resp.Header.Get("Location") != "/" {
		t.Fatalf("?lang=en goes on to %q, want /", resp.Header.Get("Location"))
	}
	if c := h.Cookie(web.LangCookieName); c != nil {
		t.Errorf("a kiosk guest's choice went into a cookie that outlives the visit: %v", c)
	}
	doc = h.StartScreen()
	checkStartScreenIn(t, doc, "en", "Welcome! What would you like to do?")
	if doc.Find(`[data-testid="start-over"] button`).Length() != 1 {
		t.Fatal("no Start over once the guest chose a language")
	}
	if got := h.Page("/kiosk/collect", http.StatusOK).Find("h1").Text(); got != "Collect your tickets" {
		t.Errorf("the next page of the visit is not in English: %q", got)
	}

	// Start over: the next guest is greeted in the kiosk's German again.
	resp, body = h.Post("/visit/reset", "/", nil)
	bfftest.ExpectRedirect(t, resp, body, "/")
	checkStartScreenIn(t, h.StartScreen(), "de", "Willkommen! Was möchten Sie tun?")

	// The same with the idle reset of a kiosk without JavaScript (the warning page's refresh).
	h.Do("GET", href, nil, bfftest.AcceptEnglish)
	checkStartScreenIn(t, h.StartScreen(), "en", "Welcome! What would you like to do?")
	resp, body = h.Do("GET", "/kiosk/idle?back=%2F", nil, bfftest.AcceptEnglish)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("idle page %d", resp.StatusCode)
	}
	idle := h.Doc(body)
	if got := strings.Join(strings.Fields(idle.Find(".kiosk-idle .lead").Text()), " "); !strings.HasPrefix(got, "This screen starts over in 20 seconds") {
		t.Errorf("idle page in English says %q", got)
	}
	m := regexp.MustCompile(`url=(/kiosk/idle/expired\?token=[0-9a-f]+)$`).FindStringSubmatch(idlePageRefresh(idle))
	if m == nil {
		t.Fatal("the idle page has no refresh to its expired URL")
	}
	clock.Advance(21 * time.Second)
	resp, body = h.Do("GET", m[1], nil, bfftest.AcceptEnglish)
	bfftest.ExpectRedirect(t, resp, body, "/")
	checkStartScreenIn(t, h.StartScreen(), "de", "Willkommen! Was möchten Sie tun?")
}

// TestKioskGermanCollect: at a German kiosk collecting tickets is in German, the question before
// printing again included, with the date and time in German in the cinema's time zone; the idle
// page counts down in German.
func TestKioskGermanCollect(t *testing.T) {
	clock := testclock.New(time.Date(2026, 11, 23, 9, 14, 0, 0, time.UTC)) // 10:14 in Berlin
	h := germanKiosk(t, bfftest.HarnessOpts{Clock: clock, Now: clock.Now})

	doc := h.Page("/kiosk/collect", http.StatusOK)
	if got := doc.Find("h1").Text(); got != "Holen Sie Ihre Tickets ab" {
		t.Errorf("collect heading %q", got)
	}
	if got := doc.Find(`label[for="collect-number"]`).Text(); got != "Buchungsnummer" {
		t.Errorf("booking number label %q", got)
	}
	if got := doc.Find("title").Text(); !strings.HasPrefix(got, "Holen Sie Ihre Tickets ab") {
		t.Errorf("page title %q", got)
	}
	resp, body := h.Collect("100002", "someone@example.com")
	if got := h.Doc(body).Find(`[data-testid="collect-error"]`).Text(); resp.StatusCode != http.StatusUnprocessableEntity ||
		!strings.Contains(got, "Wir konnten keine Buchung mit diesen Angaben finden") {
		t.Fatalf("wrong e-mail: %d %q", resp.StatusCode, got)
	}
	resp, body = h.Post("/kiosk/collect", "/kiosk/collect", url.Values{"code": {"hello scanner"}})
	if got := h.Doc(body).Find(`[data-testid="collect-scan-error"]`).Text(); resp.StatusCode != http.StatusUnprocessableEntity ||
		!strings.HasPrefix(got, "Dieser Code konnte nicht als eines unserer Tickets gelesen werden") {
		t.Fatalf("unreadable code: %d %q", resp.StatusCode, got)
	}

	resp, body = h.Collect("100002", "paid2@example.com")
	bfftest.ExpectRedirect(t, resp, body, "/kiosk/collect/tickets")
	doc = h.Page("/kiosk/collect/tickets", http.StatusOK)
	if got := strings.Join(strings.Fields(doc.Find("#collected-title").Text()), " "); got != "Ihre Tickets für Buchung 100002" {
		t.Errorf("print view heading %q", got)
	}
	if got := doc.Find(`[data-testid="collect-done"]`).Text(); got != "Fertig" {
		t.Errorf("Done button %q", got)
	}
	resp, body = h.Post("/visit/reset", "/kiosk/collect/tickets", nil)
	bfftest.ExpectRedirect(t, resp, body, "/")

	clock.Advance(5 * time.Minute)
	resp, body = h.Collect("100002", "paid2@example.com")
	bfftest.ExpectRedirect(t, resp, body, "/kiosk/collect/again")
	doc = h.Page("/kiosk/collect/again", http.StatusOK)
	if got, want := strings.Join(strings.Fields(doc.Find(`[data-testid="printed-before"]`).Text()), " "),
		"Diese Tickets wurden am 23. November um 10:14 Uhr an diesem Kiosk gedruckt. Möchten Sie sie noch einmal drucken?"; got != want {
		t.Errorf("second collection says %q, want %q", got, want)
	}
	if got := doc.Find(`[data-testid="print-again"]`).Text(); got != "Ja, noch einmal drucken" {
		t.Errorf("print again button %q", got)
	}

	_, body = h.Get("/kiosk/idle?back=%2Fkiosk%2Fcollect%2Fagain")
	idle := h.Doc(body)
	if got := strings.Join(strings.Fields(idle.Find(".kiosk-idle .lead").Text()), " "); !strings.HasPrefix(got, "Dieser Bildschirm beginnt in 20 Sekunden von vorn") {
		t.Errorf("idle page says %q", got)
	}
	if got := idle.Find(`[data-testid="idle-continue"]`).Text(); got != "Weiter" {
		t.Errorf("Continue %q", got)
	}
}

// TestDevicesLanguageInGerman: a supervisor whose browser asks for German enrols a kiosk with a
// default language on /device and sees it in German in the list of terminals (mode, language,
// date in German); changing a live kiosk's language there takes effect at its next page and is
// audited.
func TestDevicesLanguageInGerman(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	kiosk := h.Browser()
	kiosk.EnrolIn(device.Kiosk, "de")
	checkStartScreenIn(t, kiosk.StartScreen(), "de", "Willkommen! Was möchten Sie tun?")

	de := http.Header{"Accept-Language": {"de-DE,de;q=0.9"}}
	h.SignInSupervisor()
	_, body := h.Do("GET", "/device", nil, de)
	d := h.Doc(body)
	if got := d.Find("h1").Text(); got != "Dieses Terminal" {
		t.Errorf("/device heading %q", got)
	}
	if got := d.Find(`label[for="device-language"]`).Text(); got != "Standardsprache" {
		t.Errorf("language label %q", got)
	}
	opts := d.Find(`#device-language option`).Map(func(_ int, o *goquery.Selection) string { return o.AttrOr("value", "") + "=" + o.Text() })
	if strings.Join(opts, "|") != "=Standard der Website (Englisch)|en=English|de=Deutsch" {
		t.Errorf("language choices %v", opts)
	}

	_, body = h.Do("GET", "/staff/devices", nil, de)
	d = h.Doc(body)
	row := d.Find(`[data-testid="enrolment"][data-live="true"]`)
	if row.Length() != 1 {
		t.Fatalf("%d live enrolments listed", row.Length())
	}
	if got := row.Find(`[data-testid="enrolment-mode"]`).Text(); got != "Foyer-Kiosk" {
		t.Errorf("mode %q", got)
	}
	if got := row.Find(`[data-testid="language-form"] option[selected]`).AttrOr("value", ""); got != "de" {
		t.Errorf("the list shows the language %q, want de", got)
	}
	if got := strings.TrimSpace(row.Find(`[data-testid="enrolment-state"]`).Text()); got != "Aktiv" {
		t.Errorf("state %q", got)
	}
	germanDate := regexp.MustCompile(`^(Montag|Dienstag|Mittwoch|Donnerstag|Freitag|Samstag|Sonntag), \d{1,2}\. (Januar|Februar|März|April|Mai|Juni|Juli|August|September|Oktober|November|Dezember) \d{4}, \d\d:\d\d Uhr$`)
	if got := row.Find("time").Text(); !germanDate.MatchString(got) {
		t.Errorf("enrolled at %q, not a German date", got)
	}
	if got := d.Find("th").Map(func(_ int, th *goquery.Selection) string { return th.Text() }); strings.Join(got, "|") != "Name|Modus|Standardsprache|Kartenleser|Registriert|Status" {
		t.Errorf("columns %v", got)
	}

	// The supervisor changes the kiosk's language to English.
	action := row.Find(`[data-testid="language-form"]`).AttrOr("action", "")
	form := url.Values{"language": {"en"}, "_csrf": {h.CSRFToken("/staff/devices")}}
	resp, body := h.Do("POST", action, form, de)
	bfftest.ExpectRedirect(t, resp, body, "/staff/devices")
	_, body = h.Do("GET", "/staff/devices", nil, de)
	d = h.Doc(body)
	if got := d.Find(`[data-testid="notice-success"]`).Text(); !strings.Contains(got, "Standardsprache von „Test kiosk“ gespeichert: English.") {
		t.Errorf("notice %q", got)
	}
	if got := d.Find(`[data-testid="enrolment"][data-live="true"] option[selected]`).AttrOr("value", ""); got != "en" {
		t.Errorf("after the change the list shows %q", got)
	}
	if rows := h.AuditOf(audit.ActionDeviceEnrol); len(rows) != 2 || !strings.Contains(rows[0].Detail, "in en") {
		t.Errorf("audit rows %+v", rows)
	}
	checkStartScreenIn(t, kiosk.StartScreen(), "en", "Welcome! What would you like to do?")

	// A language the site does not speak is refused; nothing changes.
	form = url.Values{"language": {"fr"}, "_csrf": {h.CSRFToken("/staff/devices")}}
	if resp, body := h.Do("POST", action, form, de); resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, "Wählen Sie eine Sprache") {
		t.Errorf("language fr: %d %s", resp.StatusCode, body)
	}
	if e := h.EnrolmentsOf()[0]; e.Language != "en" {
		t.Errorf("a refused language changed the enrolment to %q", e.Language)
	}
}
