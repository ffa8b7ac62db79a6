package browser_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/browsertest"
	"github.com/cinemabff/cinemabff/internal/device"
)

// TestBrowserBoxOfficeSaleBookingPage: a booking sold at the counter for cash, shown to a clerk
// at 1280×800 and to the customer on a phone: the words of what it cannot have are in view
// above the actions, the change is a disabled button described by them, other seats are a
// working link; screenshots for a person to look at.
func TestBrowserBoxOfficeSaleBookingPage(t *testing.T) {
	t.Parallel()
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	seller := h.FreshBrowser()
	seller.Enrol(device.Counter)
	seller.SignInSupervisor()
	seller.BuyUpToDetails("1113", bfftest.TwoAdults())
	resp, body := seller.Post("/checkout/details", "/checkout/details", url.Values{"name": {"Walk In"}, "email": {"walkin@example.com"}})
	bfftest.ExpectRedirect(t, resp, body, "/checkout")
	resp, body = seller.Post("/checkout/pay", "/checkout", nil)
	bfftest.ExpectRedirect(t, resp, body, "/checkout/counter-payment")
	resp, body = seller.Post("/checkout/counter-payment", "/checkout/counter-payment", url.Values{"method": {"cash"}})
	doc := seller.Page(bfftest.ExpectRedirect(t, resp, body, "/checkout/payments/"), http.StatusOK)
	number := strings.TrimSpace(doc.Find(`[data-testid="booking-number"]`).Text())

	check := func(t *testing.T, p *browsertest.Page, want string) {
		t.Helper()
		inView, err := chromedp.Run(p.Ctx, chromedp.Evaluate[bool](`(function () {
			const line = document.querySelector('[data-testid="box-office-sale"]').getBoundingClientRect();
			const edit = document.querySelector('[data-testid="action-edit"] button[disabled]');
			return line.top >= 0 && line.bottom <= window.innerHeight && edit !== null &&
				edit.getAttribute('aria-describedby') === 'box-office-sale';
		})()`))
		if err != nil || !inView {
			t.Errorf("the words are not in view above a disabled change: %v", err)
		}
		if got := p.Text(`[data-testid="box-office-sale"]`); !strings.Contains(got, want) {
			t.Errorf("the page says %q, want %q", got, want)
		}
	}

	t.Run("clerk", func(t *testing.T) {
		h.AddClerk("carl", "Carl Clerk", "clerk horse battery")
		p := browsertest.NewPage(t, browsertest.Options{Width: 1280, Height: 800, Timeout: 90 * time.Second})
		browserEnrol(t, p, h, device.Counter)
		p.Do(chromedp.Navigate(h.TS.URL+"/staff/sign-in"), chromedp.WaitVisible(`#username`),
			chromedp.SendKeys(`#username`, "carl"), chromedp.SendKeys(`#password`, "clerk horse battery"),
			chromedp.Submit(`#password`), chromedp.WaitVisible(`[data-testid="staff-badge"]`),
			chromedp.Navigate(h.TS.URL+"/booking"), chromedp.WaitVisible(`#number`),
			chromedp.SendKeys(`#number`, number+kb.Enter), chromedp.WaitVisible(`[data-testid="counter-booking"]`))
		check(t, p, "Seats can still be swapped.")
		p.Screenshot("box-office-sale-counter")
		p.AssertNoConsoleErrors()
	})
	t.Run("customer", func(t *testing.T) {
		p := browsertest.NewPage(t, browsertest.Options{Width: 390, Height: 844, Mobile: true})
		p.Do(chromedp.Navigate(h.TS.URL+"/booking"), chromedp.WaitVisible(`#number`),
			chromedp.SendKeys(`#number`, number), chromedp.SendKeys(`#email`, "walkin@example.com"+kb.Enter),
			chromedp.WaitVisible(`[data-testid="booking-summary"]`),
			chromedp.ScrollIntoView(`[data-testid="box-office-sale"]`))
		check(t, p, "You can still change your seats.")
		p.Screenshot("box-office-sale-customer")
		p.AssertNoConsoleErrors()
	})
}
