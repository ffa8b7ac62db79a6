package bff

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/sandbox"
)

// Stored value: gift card PINs and loyalty cards cannot be guessed. Refusals read the
// same whatever was wrong, and are limited per card number, client and visit.

const (
	giftCardPath = "/checkout/gift-card"
	loyaltyPath  = "/checkout/loyalty"

	giftCardRefused = "This gift card cannot be used: check the number and PIN."
	loyaltyRefused  = "These loyalty details cannot be used: check the card number and PIN."
	cardTooMany     = "Too many failed attempts. Please try again in 15 minutes."
)

// limitClock stops the clock of the server's limit store at now; the function returned moves
// it on.
func limitClock(t *testing.T, h *harness) func(time.Duration) {
	t.Helper()
	st, ok := h.srv.Kernel.Limits.(interface{ SetClock(func() time.Time) })
	if !ok {
		t.Fatalf("the limit store %T has no clock to set", h.srv.Kernel.Limits)
	}
	var now atomic.Int64
	now.Store(time.Now().UnixNano())
	st.SetClock(func() time.Time { return time.Unix(0, now.Load()) })
	return func(d time.Duration) { now.Add(int64(d)) }
}

// cardAnswer is the summary page's answer to a card typed into one of its forms.
type cardAnswer struct {
	status     int
	message    string // the form's error
	retryAfter string
}

// useCard submits the gift card (giftCardPath) or loyalty (loyaltyPath) form; header is added
// to the request (a language).
func (h *harness) useCard(path, card, pin string, header http.Header) cardAnswer {
	h.t.Helper()
	form := url.Values{"card": {card}, "pin": {pin}, "_csrf": {h.csrfToken("/checkout")}}
	resp, body := h.do("POST", path, form, header)
	testid := map[string]string{giftCardPath: "giftcard-error", loyaltyPath: "loyalty-error"}[path]
	return cardAnswer{status: resp.StatusCode, message: text(h.doc(body), testid), retryAfter: resp.Header.Get("Retry-After")}
}

// appliedPayments counts the gift card and loyalty payments on the order's summary.
func (h *harness) appliedPayments() int {
	h.t.Helper()
	return h.page("/checkout", http.StatusOK).Find(`[data-testid="applied"]`).Length()
}

// TestGiftCardPinGuessingLocksTheCard: 20 wrong PINs for one card from one visit. From the
// sixth on the card is refused whatever the PIN, the right one too, from this visit, a second
// visit and a second client, and every refusal reads the same; only five tries reach the
// ticketing system. A fresh card works the first time, and after 15 minutes the card works
// again with its PIN.
func TestGiftCardPinGuessingLocksTheCard(t *testing.T) {
	h := holdHarness(t, harnessOpts{})
	advance := limitClock(t, h)
	first := h.visitor("198.51.100.1")
	first.buyUpToSummary("1113", twoAdults())
	var refusal cardAnswer
	for i := range 20 {
		pin := fmt.Sprint(2200 + i) // never 2222
		got := first.useCard(giftCardPath, "6000000000000002", pin, nil)
		switch {
		case i < 5 && (got.status != http.StatusUnprocessableEntity || got.message != giftCardRefused):
			t.Fatalf("wrong PIN %d: %d %q, want 422 %q", i+1, got.status, got.message, giftCardRefused)
		case i == 5:
			refusal = got
			if got.status != http.StatusTooManyRequests || got.message != cardTooMany || got.retryAfter != "900" {
				t.Fatalf("wrong PIN %d: %+v, want 429 %q after 900 s", i+1, got, cardTooMany)
			}
		case i > 5 && got != refusal:
			t.Fatalf("wrong PIN %d: %+v, unlike the sixth: %+v", i+1, got, refusal)
		}
	}
	if n := h.sb.Calls("ApplyGiftCard"); n != 5 {
		t.Fatalf("%d tries reached the ticketing system, want 5", n)
	}
	second := h.visitor("198.51.100.1") // another visit of the same client
	second.buyUpToSummary("1113", twoAdults())
	other := h.visitor("203.0.113.7") // another client
	other.buyUpToSummary("1113", twoAdults())
	for _, tc := range []struct {
		name string
		v    *harness
	}{{"this visit", first}, {"a second visit", second}, {"a second client", other}} {
		if got := tc.v.useCard(giftCardPath, "6000 0000 0000 0002", "2222", nil); got != refusal {
			t.Errorf("the right PIN from %s: %+v, want the refusal %+v", tc.name, got, refusal)
		}
	}
	if n := first.appliedPayments() + second.appliedPayments() + other.appliedPayments(); n != 0 || h.sb.Calls("ApplyGiftCard") != 5 {
		t.Fatalf("the locked card was used: %d payments applied, %d tries upstream", n, h.sb.Calls("ApplyGiftCard"))
	}

	resp, body := other.post(giftCardPath, "/checkout", url.Values{"card": {"6000000000000001"}, "pin": {"1234"}})
	expectRedirect(t, resp, body, "/checkout")

	advance(15 * time.Minute)
	resp, body = first.post(giftCardPath, "/checkout", url.Values{"card": {"6000000000000002"}, "pin": {"2222"}})
	expectRedirect(t, resp, body, "/checkout")
	if got := text(first.page("/checkout", http.StatusOK), "to-pay"); got != "€16.50" {
		t.Fatalf("to pay after the gift card %q, want €16.50 (26.50 − 10.00)", got)
	}
}

// TestCardLockReadsTheSameForEveryNumber: a known and an unknown number get the same refusals
// (the same message, status and wait), before and after the lock, for gift cards and loyalty
// cards, in English and in German; the right PIN of a locked card takes nothing.
func TestCardLockReadsTheSameForEveryNumber(t *testing.T) {
	h := holdHarness(t, harnessOpts{})
	limitClock(t, h)
	germanTooMany := "Zu viele Fehlversuche. Bitte versuchen Sie es in 15 Minuten erneut."
	for i, tc := range []struct {
		path, known, unknown, pin, refused string
	}{
		{giftCardPath, "6000000000000002", "6000000000009999", "2222", giftCardRefused},
		{loyaltyPath, "7000000000000002", "7000000000000099", "1906", loyaltyRefused},
	} {
		answers := map[string][]cardAnswer{}
		for j, card := range []string{tc.known, tc.unknown} {
			v := h.visitor(fmt.Sprintf("198.51.100.%d", 10*i+j+1))
			v.buyUpToSummary("1113", twoAdults())
			for k := range 5 {
				answers[card] = append(answers[card], v.useCard(tc.path, card, fmt.Sprint(1000+k), nil))
			}
			answers[card] = append(answers[card], v.useCard(tc.path, card, tc.pin, nil), v.useCard(tc.path, card, tc.pin, acceptGerman))
			if n := v.appliedPayments(); n != 0 {
				t.Fatalf("%s %s: %d payments applied while locked", tc.path, card, n)
			}
		}
		for k, got := range answers[tc.known] {
			want := cardAnswer{status: http.StatusUnprocessableEntity, message: tc.refused}
			switch k {
			case 5:
				want = cardAnswer{status: http.StatusTooManyRequests, message: cardTooMany, retryAfter: "900"}
			case 6:
				want = cardAnswer{status: http.StatusTooManyRequests, message: germanTooMany, retryAfter: "900"}
			}
			if got != want || answers[tc.unknown][k] != got {
				t.Errorf("%s answer %d: known card %+v, unknown card %+v, want %+v", tc.path, k+1, got, answers[tc.unknown][k], want)
			}
		}
	}
}

// TestLoyaltyPointsNeedTheMembersPin: a member's card number alone, or with a wrong PIN, spends
// nothing, and a wrong PIN reads like an unknown card; the member's PIN spends the points.
func TestLoyaltyPointsNeedTheMembersPin(t *testing.T) {
	h := newHarness(t, harnessOpts{sandbox: true})
	h.buyUpToSummary("1113", twoAdults())
	if got := h.useCard(loyaltyPath, "7000000000000002", "", nil); got.status != http.StatusUnprocessableEntity || !strings.Contains(got.message, "PIN") {
		t.Fatalf("no PIN: %+v", got)
	}
	wrong := h.useCard(loyaltyPath, "7000000000000002", "1905", nil)
	unknown := h.useCard(loyaltyPath, "7999999999999999", "1906", nil)
	if wrong.status != http.StatusUnprocessableEntity || wrong.message != loyaltyRefused || unknown != wrong {
		t.Fatalf("wrong PIN %+v, unknown card %+v, want both 422 %q", wrong, unknown, loyaltyRefused)
	}
	if n := h.appliedPayments(); n != 0 {
		t.Fatalf("%d payments applied without the member's PIN", n)
	}
	if n := h.sb.Calls("ApplyLoyaltyPointsPayment"); n != 2 {
		t.Fatalf("%d loyalty calls, want 2 (none without a PIN)", n)
	}
	doc := h.page("/checkout", http.StatusOK)
	pin := doc.Find(`[data-testid="loyalty-form"] input[name="pin"]`)
	if pin.AttrOr("inputmode", "") != "numeric" || pin.AttrOr("autocomplete", "") != "off" || doc.Find(`label[for="`+pin.AttrOr("id", "?")+`"]`).Length() != 1 {
		t.Fatalf("the loyalty form's PIN field: %s", doc.Find(`[data-testid="loyalty-form"]`).Text())
	}
	resp, body := h.post(loyaltyPath, "/checkout", url.Values{"card": {"7000000000000002"}, "pin": {"1906"}})
	expectRedirect(t, resp, body, "/checkout")
	doc = h.page("/checkout", http.StatusOK)
	if doc.Find(`[data-testid="applied"]`).Length() != 1 || text(doc, "to-pay") != "€23.50" {
		t.Fatalf("after the member's PIN: to pay %q (26.50 − 3.00)", text(doc, "to-pay"))
	}
}

// TestCardAttemptsThatDoNotCount: an outage of the ticketing system and a success give their
// attempts back; only refusals count towards the lock.
func TestCardAttemptsThatDoNotCount(t *testing.T) {
	h := holdHarness(t, harnessOpts{})
	limitClock(t, h)
	v := h.visitor("198.51.100.1")
	v.buyUpToSummary("1113", twoAdults())
	if err := h.sb.Faults().Set(sandbox.Fault{Operation: "ApplyGiftCard", HTTPStatus: http.StatusServiceUnavailable}); err != nil {
		t.Fatal(err)
	}
	for i := range 8 {
		if got := v.useCard(giftCardPath, "6000000000000002", "2222", nil); got.status != http.StatusServiceUnavailable {
			t.Fatalf("outage %d: %+v, want 503", i+1, got)
		}
	}
	h.sb.Faults().Clear()
	for range 12 { // applying the card again replaces its amount
		resp, body := v.post(giftCardPath, "/checkout", url.Values{"card": {"6000000000000002"}, "pin": {"2222"}})
		expectRedirect(t, resp, body, "/checkout")
	}
	if n := v.appliedPayments(); n != 1 {
		t.Fatalf("%d payments applied, want the gift card once", n)
	}
	for i := range 6 {
		want := cardAnswer{status: http.StatusUnprocessableEntity, message: giftCardRefused}
		if i == 5 {
			want = cardAnswer{status: http.StatusTooManyRequests, message: cardTooMany, retryAfter: "900"}
		}
		if got := v.useCard(giftCardPath, "6000000000000002", fmt.Sprint(3000+i), nil); got != want {
			t.Fatalf("wrong PIN %d after outages and successes: %+v, want %+v", i+1, got, want)
		}
	}
}
