package browser_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/browsertest"
	"github.com/cinemabff/cinemabff/internal/device"
)

// tourSize is a screen the site is used on (a phone, a desktop, the lobby kiosk in portrait)
// and the journeys of the people who use it there: customers on phones and desktops, staff at
// the counter's desktop, guests at the kiosk. A page is walked on the devices it is used on
// only: a staff page on a phone or a customer page at the kiosk's size is nobody's view.
type tourSize struct {
	Name          string
	Width, Height int64
	Touch         bool
	Walks         []func(*tour)
}

var tourSizes = []tourSize{
	{"phone", 390, 844, true, []func(*tour){(*tour).buy, (*tour).booking, (*tour).swap}},
	{"desktop", 1280, 800, false, []func(*tour){(*tour).buy, (*tour).booking, (*tour).swap, (*tour).staff}},
	{"kiosk", 1080, 1920, true, []func(*tour){(*tour).kiosk}},
}

// maxEditHeightOnPhone is how tall the edit page of a two-ticket booking may be on a 390×844
// phone: about 1.5 screens, plus the 72 px that six ticket types' steppers take since their
// buttons are 44×44 px (a thumb's target) rather than 40×32.
const maxEditHeightOnPhone = 1342

// tour walks the pages in one browser at one size. At every page it asserts that nothing
// scrolls sideways and that axe-core finds no serious or critical issue, and it saves a
// screenshot into docs/screenshots/ (the index there is written from the pages visited).
type tour struct {
	t    *testing.T
	h    *bfftest.Harness
	b    *browsertest.Browser
	p    *browsertest.Page
	size tourSize
	axe  string
	out  *tourIndex
}

// tourIndex collects the screenshots of every size for docs/screenshots/README.md.
type tourIndex struct {
	mu    sync.Mutex
	dir   string
	shots map[string][]string // page name → files
	about map[string]string   // page name → what it shows
}

func (tr *tour) page(o browsertest.Options) {
	o.Width, o.Height, o.Mobile = tr.size.Width, tr.size.Height, tr.size.Touch
	o.Timeout = 5 * time.Minute
	tr.p = tr.b.NewPage(tr.t, o)
}

// check runs the assertions of every page and saves its screenshot as <name>-<size>.jpg.
func (tr *tour) check(name, about string) {
	tr.t.Helper()
	where := name + " at " + tr.size.Name
	res, err := chromedp.Run(tr.p.Ctx, chromedp.Evaluate[[2]float64](`[document.documentElement.scrollWidth, window.innerWidth]`))
	if err != nil {
		tr.t.Fatalf("%s: measure: %v", where, err)
	}
	if res[0] > res[1] {
		tr.t.Errorf("%s: the page scrolls sideways (scrollWidth %v > innerWidth %v)", where, res[0], res[1])
	}
	for _, v := range runAxe(tr.t, tr.p, tr.axe) {
		if v.Impact == "serious" || v.Impact == "critical" {
			tr.t.Errorf("%s: %s (%s): %s at %s", where, v.ID, v.Impact, v.Help, strings.Join(v.Nodes, "; "))
		}
	}
	shot, err := chromedp.Run(tr.p.Ctx, chromedp.FullScreenshot(60)) // JPEG: the folder is committed
	if err != nil {
		tr.t.Fatalf("%s: screenshot: %v", where, err)
	}
	file := name + "-" + tr.size.Name + ".jpg"
	if err := os.WriteFile(filepath.Join(tr.out.dir, file), shot, 0o644); err != nil {
		tr.t.Fatalf("%s: %v", where, err)
	}
	tr.out.mu.Lock()
	defer tr.out.mu.Unlock()
	tr.out.shots[name] = append(tr.out.shots[name], file)
	tr.out.about[name] = about
}

// inViewport asserts that the element sel is wholly inside the viewport as the page opens.
func (tr *tour) inViewport(sel, what string) {
	tr.t.Helper()
	ok, err := chromedp.Run(tr.p.Ctx, chromedp.Evaluate[bool](fmt.Sprintf(`(() => {
		const el = document.querySelector(%q); if (!el) return false;
		const r = el.getBoundingClientRect();
		return r.width > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= window.innerHeight && r.right <= window.innerWidth;
	})()`, sel)))
	if err != nil || !ok {
		tr.t.Errorf("%s at %s: %s is not inside the viewport (%v)", what, tr.size.Name, sel, err)
	}
}

// TestBrowserPageTour visits every page of the three jobs at a phone's and a desktop's size, the
// staff pages at the counter's desktop and the kiosk's pages at its portrait screen.
func TestBrowserPageTour(t *testing.T) {
	t.Parallel()
	src := axeSource(t)
	dir := filepath.Join(filepath.Dir(browsertest.ArtifactsDir(t)), "docs", "screenshots")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	idx := &tourIndex{dir: dir, shots: map[string][]string{}, about: map[string]string{}}
	// The index is written once every size has walked (parallel subtests run after this
	// function returns; the cleanup runs after them).
	t.Cleanup(func() {
		if !t.Failed() {
			writeTourIndex(t, idx)
		}
	})
	for _, size := range tourSizes {
		t.Run(size.Name, func(t *testing.T) {
			t.Parallel() // three browsers, each with its own server: the walks share nothing
			// completionDelay -1: the sandbox's connector completes a paid order only when told
			// (buy). With its usual 20 ms it raced the browser back from the provider: a return
			// page served after the completion is the confirmation, which has no poller to wait
			// for and nothing of the waiting page to check.
			h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true, CompletionDelay: -1})
			tr := &tour{t: t, size: size, axe: src, out: idx, h: h, b: browsertest.NewBrowser(t)}
			for _, walk := range size.Walks {
				walk(tr)
			}
		})
	}
}

// buy: What's on, tickets, seats, details, summary, the return page and the confirmation.
func (tr *tour) buy() {
	base := tr.h.TS.URL
	tr.page(browsertest.Options{})
	tr.p.Do(browsertest.Navigate(base+"/"), browsertest.Shown("#home-title"))
	tr.check("home", "Start page")
	tr.p.Do(browsertest.Navigate(base+"/whats-on"), browsertest.Shown("#whatson-title"))
	tr.check("whats-on", "What's on: films and show times")
	tr.p.Do(browsertest.Navigate(base+"/whats-on/0001/1113"), browsertest.Shown(`[data-testid="tickets-form"]`),
		chromedp.SetValue(`#qty-0001`, "2"))
	tr.check("buy-tickets", "Buying: choose tickets")
	tr.p.Do(chromedp.Click(`[data-testid="tickets-form"] button[type=submit]`), browsertest.Shown(`[data-testid="seatmap"]`))
	tr.check("buy-seats", "Buying: the seat map")
	tr.inViewport(`[data-testid="seat-form"] button.button-primary`, "buy seat map's primary action")
	tr.p.Do(chromedp.Click(`[data-testid="seat-form"] button.button-primary`), browsertest.Shown(`#name`),
		chromedp.SendKeys(`#name`, "Ada Lovelace"), chromedp.SendKeys(`#email`, "ada@example.com"))
	tr.check("buy-details", "Buying: name and e-mail")
	tr.p.Do(chromedp.Click(`[data-testid="details-form"] button.button-primary`), browsertest.Shown(`[data-testid="pay"]`))
	tr.check("buy-summary", "Buying: summary before paying")
	tr.p.Do(chromedp.Click(`[data-testid="pay"]`), browsertest.Shown(`button[value="pay"]`),
		chromedp.Click(`button[value="pay"]`), browsertest.Shown(`[data-testid="poller"]`))
	tr.check("buy-return", "Back from the payment provider: waiting for the cinema")
	// Only now does the connector complete the order (the harness holds completions back): the
	// page learns of it at its next poll and shows the confirmation.
	ret, err := chromedp.Run(tr.p.Ctx, chromedp.Evaluate[string](`location.href`))
	if err != nil {
		tr.t.Fatalf("return page address: %v", err)
	}
	if !tr.h.SB.CompleteAwaiting(tr.h.RecordOf(ret).UserSessionID) {
		tr.t.Fatalf("the sandbox did not complete the paid order of %s", ret)
	}
	tr.p.Do(browsertest.Shown(`[data-testid="booking-number"]`))
	tr.check("buy-confirmation", "Buying: the confirmation with the tickets")
}

// booking: find, the booking, printable tickets, the edit page, its seats, cancelling.
func (tr *tour) booking() {
	base := tr.h.TS.URL
	tr.page(browsertest.Options{})
	tr.p.Do(browsertest.Navigate(base+"/booking"), browsertest.Shown("#number"))
	tr.check("find-booking", "Find a booking: number and e-mail")
	browserFind(tr.p, base, "100002", "paid2@example.com")
	tr.check("booking", "A booking: tickets, payments, what can be done")
	tr.p.Do(browsertest.Navigate(base+"/booking/tickets"), browsertest.Shown(`[data-testid="ticket-card"]`))
	tr.check("booking-tickets", "Tickets laid out for printing")
	tr.p.Do(browsertest.Navigate(base+"/booking/current"), browsertest.Shown("#booking-title"),
		chromedp.Click(`[data-testid="action-edit"] button`), browsertest.Shown("#edit-title"))
	tr.check("edit", "Changing a booking: tickets, the cost, the actions")
	if tr.size.Name == "phone" {
		h, err := chromedp.Run(tr.p.Ctx, chromedp.Evaluate[float64](`document.documentElement.scrollHeight`))
		if err != nil || h > maxEditHeightOnPhone {
			tr.t.Errorf("the two-ticket edit page is %v px tall on a phone, want at most %d (%v)", h, maxEditHeightOnPhone, err)
		}
	}
	tr.p.Do(browsertest.Navigate(base+"/booking/edit/seats"), browsertest.Shown(`[data-testid="seatmap"]`))
	tr.check("edit-seats", "Changing a booking: the seat map")
	tr.inViewport(`[data-testid="seat-form"] button.button-primary`, "edit seat map's primary action")
	tr.p.Do(browsertest.Navigate(base+"/booking/edit/cancel"), browsertest.Shown(`[data-testid="cancel-confirm"]`))
	tr.check("edit-cancel", "Changing a booking: cancel the changes?")
	tr.p.Do(chromedp.Click(`[data-testid="cancel-confirm"]`), browsertest.Shown("#booking-title"))
	// Another showtime: the list, the new show's seats, the change from the old show to the new.
	tr.p.Do(chromedp.Click(`[data-testid="action-showtime"] a`), browsertest.Shown(`[data-testid="showtime"]`))
	tr.check("showtimes", "Changing the showtime: the film's other shows and what each costs")
	tr.inViewport(`[data-testid="showtime"] [data-testid="choose"]`, "first show's Choose")
	tr.p.Do(chromedp.Click(`[data-testid="showtime"][data-session="1312"] [data-testid="choose"]`), browsertest.Shown(`[data-testid="seats-show"]`))
	tr.check("showtime-seats", "Changing the showtime: seats at the new show")
	tr.inViewport(`[data-testid="seat-form"] button.button-primary`, "new show's seat map primary action")
	tr.p.Do(chromedp.Click(`[data-testid="seat-form"] button.button-primary`), browsertest.Shown(`[data-testid="move-shows"]`))
	tr.check("showtime-change", "Changing the showtime: the old show, the new show and the difference")
	tr.inViewport(`[data-testid="complete"]`, "showtime change's confirmation")
	tr.p.Do(browsertest.Navigate(base+"/booking/edit/cancel"), browsertest.Shown(`[data-testid="cancel-confirm"]`),
		chromedp.Click(`[data-testid="cancel-confirm"]`), browsertest.Shown("#booking-title"))
	tr.p.Do(browsertest.Navigate(base+"/no/such/page"), browsertest.Shown("#error-title"))
	tr.check("not-found", "A page that does not exist")
}

// swap: the swap seat map of a paid booking.
func (tr *tour) swap() {
	addBrowserBookingBinderOnce(tr.h)
	tr.page(browsertest.Options{})
	tr.p.Do(browsertest.Navigate(tr.h.TS.URL+"/test/bind-booking?cinema=0001&number=100001"), browsertest.Shown(`[data-testid="seatmap"]`))
	tr.check("swap-seats", "Swapping seats: the seat map")
	tr.inViewport(`[data-testid="swap-form"] button[type="submit"]`, "swap seat map's primary action")
}

// staff: signing in, the device page, and the supervisors' pages.
func (tr *tour) staff() {
	base := tr.h.TS.URL
	tr.page(browsertest.Options{})
	tr.h.AddSupervisor(bfftest.TestSupervisor, bfftest.TestSupervisorName, bfftest.TestSupervisorPassword) // creates or replaces
	tr.p.Do(browsertest.Navigate(base+"/staff/sign-in"), browsertest.Shown(`#username`))
	tr.check("staff-sign-in", "Staff sign-in")
	tr.p.Do(chromedp.SendKeys(`#username`, bfftest.TestSupervisor), chromedp.SendKeys(`#password`, bfftest.TestSupervisorPassword),
		chromedp.Submit(`#password`), browsertest.Shown(`[data-testid="staff-badge"]`))
	for _, pg := range []struct{ path, name, about string }{
		{"/device", "device", "This device: customer, counter or kiosk (supervisors)"},
		{"/staff/attention", "staff-attention", "Needs attention"},
		{"/staff/audit", "staff-audit", "Audit trail"},
		{"/staff/devices", "staff-devices", "Enrolled terminals"},
		{"/staff/accounts", "staff-accounts", "Staff accounts"},
	} {
		tr.p.Do(browsertest.Navigate(base+pg.path), browsertest.Shown("h1"))
		tr.check(pg.name, pg.about)
	}
}

// kiosk: the start screen, collecting tickets and the idle warning of an enrolled kiosk.
func (tr *tour) kiosk() {
	base := tr.h.TS.URL
	tr.page(browsertest.Options{})
	browserEnrol(tr.t, tr.p, tr.h, device.Kiosk)
	tr.p.Do(browsertest.Navigate(base+"/"), browsertest.Shown(`[data-testid="kiosk-attract"]`))
	tr.check("kiosk-attract", "Kiosk: the attract screen while no visit runs")
	tr.p.Do(chromedp.Click(`[data-testid="kiosk-touch-to-start"]`), browsertest.Shown(`[data-testid="kiosk-start"]`))
	tr.check("kiosk-start", "Kiosk: start screen")
	tr.p.Do(browsertest.Navigate(base+"/kiosk/collect"), browsertest.Shown("#collect-title"))
	tr.check("kiosk-collect", "Kiosk: collect tickets")
	// The idle warning page of a visit (a booking found), as a kiosk without JavaScript is
	// sent there; its refresh is inside <noscript>.
	browserFind(tr.p, base, "100001", "paid1@example.com")
	tr.p.Do(browsertest.Navigate(base+"/kiosk/idle?back=%2F"), browsertest.Shown(`[data-testid="kiosk-idle"]`))
	tr.check("kiosk-idle", "Kiosk: are you still there? (the idle warning without JavaScript)")
}

var bookingBinders sync.Map // harness → added

func addBrowserBookingBinderOnce(h *bfftest.Harness) {
	if _, loaded := bookingBinders.LoadOrStore(h, true); !loaded {
		addBrowserBookingBinder(h)
	}
}

// writeTourIndex writes docs/screenshots/README.md: every page and its screenshots.
func writeTourIndex(t *testing.T, idx *tourIndex) {
	var b strings.Builder
	b.WriteString("# Screenshots\n\nWritten by `TestBrowserPageTour` (internal/bff/browser/tour_browser_test.go) whenever it passes: in\n" +
		"`make test`, or on its own with `go test -race -count=1 -run TestBrowserPageTour ./internal/bff/browser/`.\n" +
		"Each page on the devices it is used on: the customer's pages at a phone's size (390 × 844) and a\n" +
		"desktop's (1280 × 800), the staff pages at the counter's desktop, the kiosk's at its screen\n" +
		"(1080 × 1920, portrait). On each the test asserts that nothing scrolls sideways and that axe-core finds\n" +
		"no serious or critical issue; on the seat maps, that the primary action is on screen; on the phone,\n" +
		"that the edit page of a two-ticket booking is at most 1,270 px tall.\n\n" +
		"| page | what it shows | phone | desktop | kiosk |\n|---|---|---|---|---|\n")
	names := make([]string, 0, len(idx.shots))
	for n := range idx.shots {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		files := idx.shots[n]
		slices.Sort(files)
		cells := map[string]string{}
		for _, f := range files {
			for _, s := range tourSizes {
				if strings.HasSuffix(f, "-"+s.Name+".jpg") {
					cells[s.Name] = "[" + s.Name + "](" + f + ")"
				}
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", n, idx.about[n], cells["phone"], cells["desktop"], cells["kiosk"])
	}
	if err := os.WriteFile(filepath.Join(idx.dir, "README.md"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
