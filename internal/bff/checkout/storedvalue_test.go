package checkout_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/sandbox"
)

// limitClock stops the clock of the server's limit store at now; the function returned moves
// it on.
func limitClock(t *testing.T, h *bfftest.Harness) func(time.Duration) {
	t.Helper()
	st, ok := h.Srv.Kernel.Limits.(interface{ SetClock(func() time.Time) })
	if !ok {
		t.Fatalf("the limit store %T has no clock to set", h.Srv.Kernel.Limits)
	}
	var now atomic.Int64
	now.Store(time.Now().UnixNano())
	st.SetClock(func() time.Time { return time.Unix(0, now.Load()) })
	return func(d time.Duration) { now.Add(int64(d)) }
}

// TestGiftCardPinGuessingLocksTheCard: 20 wrong PINs for one card from one visit. From the
// sixth on the card is refused whatever the PIN, the right one too, from this visit, a second
// visit and a second client, and every refusal reads the same; only five tries reach the
// ticketing system. A fresh card works the first time, and after 15 minutes the card works
// again with its PIN.
func TestGiftCardPinGuessingLocksTheCard(t *testing.T) {
	h := bfftest.HoldHarness(t, bfftest.HarnessOpts{})
	advance := limitClock(t, h)
	first := h.Visitor("198.51.100.1")
	first.BuyUpToSummary("1113", bfftest.TwoAdults())
	var refusal bfftest.CardAnswer
	for i := range 20 {
		pin := fmt.Sprint(2200 + i) // never 2222
		got := first.UseCard(bfftest.GiftCardPath, "6000000000000002", pin, nil)
		switch {
		case i < 5 && (got.Status != http.StatusUnprocessableEntity || got.Message != bfftest.GiftCardRefused):
			t.Fatalf("wrong PIN %d: %d %q, want 422 %q", i+1, got.Status, got.Message, bfftest.GiftCardRefused)
		case i == 5:
			refusal = got
			if got.Status != http.StatusTooManyRequests || got.Message != bfftest.CardTooMany || got.RetryAfter != "900" {
				t.Fatalf("wrong PIN %d: %+v, want 429 %q after 900 s", i+1, got, bfftest.CardTooMany)
			}
		case i > 5 && got != refusal:
			t.Fatalf("wrong PIN %d: %+v, unlike the sixth: %+v", i+1, got, refusal)
		}
	}
	if n := h.SB.Calls("ApplyGiftCard"); n != 5 {
		t.Fatalf("%d tries reached the ticketing system, want 5", n)
	}
	second := h.Visitor("198.51.100.1") // another visit of the same client
	second.BuyUpToSummary("1113", bfftest.TwoAdults())
	other := h.Visitor("203.0.113.7") // another client
	other.BuyUpToSummary("1113", bfftest.TwoAdults())
	for _, tc := range []struct {
		name string
		v    *bfftest.Harness
	}{{"this visit", first}, {"a second visit", second}, {"a second client", other}} {
		if got := tc.v.UseCard(bfftest.GiftCardPath, "6000 0000 0000 0002", "2222", nil); got != refusal {
			t.Errorf("the right PIN from %s: %+v, want the refusal %+v", tc.name, got, refusal)
		}
	}
	if n := first.AppliedPayments() + second.AppliedPayments() + other.AppliedPayments(); n != 0 || h.SB.Calls("ApplyGiftCard") != 5 {
		t.Fatalf("the locked card was used: %d payments applied, %d tries upstream", n, h.SB.Calls("ApplyGiftCard"))
	}

	resp, body := other.Post(bfftest.GiftCardPath, "/checkout", url.Values{"card": {"6000000000000001"}, "pin": {"1234"}})
	bfftest.ExpectRedirect(t, resp, body, "/checkout")

	advance(15 * time.Minute)
	resp, body = first.Post(bfftest.GiftCardPath, "/checkout", url.Values{"card": {"6000000000000002"}, "pin": {"2222"}})
	bfftest.ExpectRedirect(t, resp, body, "/checkout")
	if got := bfftest.Text(first.Page("/checkout", http.StatusOK), "to-pay"); got != "€16.50" {
		t.Fatalf("to pay after the gift card %q, want €16.50 (26.50 − 10.00)", got)
	}
}

// TestCardLockReadsTheSameForEveryNumber: a known and an unknown number get the same refusals
// (the same message, status and wait), before and after the lock, for gift cards and loyalty
// cards, in English and in German; the right PIN of a locked card takes nothing.
func TestCardLockReadsTheSameForEveryNumber(t *testing.T) {
	h := bfftest.HoldHarness(t, bfftest.HarnessOpts{})
	limitClock(t, h)
	germanTooMany := "Zu viele Fehlversuche. Bitte versuchen Sie es in 15 Minuten erneut."
	for i, tc := range []struct {
		path, known, unknown, pin, refused string
	}{
		{bfftest.GiftCardPath, "6000000000000002", "6000000000009999", "2222", bfftest.GiftCardRefused},
		{bfftest.LoyaltyPath, "7000000000000002", "7000000000000099", "1906", bfftest.LoyaltyRefused},
	} {
		answers := map[string][]bfftest.CardAnswer{}
		for j, card := range []string{tc.known, tc.unknown} {
			v := h.Visitor(fmt.Sprintf("198.51.100.%d", 10*i+j+1))
			v.BuyUpToSummary("1113", bfftest.TwoAdults())
			for k := range 5 {
				answers[card] = append(answers[card], v.UseCard(tc.path, card, fmt.Sprint(1000+k), nil))
			}
			answers[card] = append(answers[card], v.UseCard(tc.path, card, tc.pin, nil), v.UseCard(tc.path, card, tc.pin, acceptGerman))
			if n := v.AppliedPayments(); n != 0 {
				t.Fatalf("%s %s: %d payments applied while locked", tc.path, card, n)
			}
		}
		for k, got := range answers[tc.known] {
			want := bfftest.CardAnswer{Status: http.StatusUnprocessableEntity, Message: tc.refused}
			switch k {
			case 5:
				want = bfftest.CardAnswer{Status: http.StatusTooManyRequests, Message: bfftest.CardTooMany, RetryAfter: "900"}
			case 6:
				want = bfftest.CardAnswer{Status: http.StatusTooManyRequests, Message: germanTooMany, RetryAfter: "900"}
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
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	h.BuyUpToSummary("1113", bfftest.TwoAdults())
	if got := h.UseCard(bfftest.LoyaltyPath, "7000000000000002", "", nil); got.Status != http.StatusUnprocessableEntity || !strings.Contains(got.Message, "PIN") {
		t.Fatalf("no PIN: %+v", got)
	}
	wrong := h.UseCard(bfftest.LoyaltyPath, "7000000000000002", "1905", nil)
	unknown := h.UseCard(bfftest.LoyaltyPath, "7999999999999999", "1906", nil)
	if wrong.Status != http.StatusUnprocessableEntity || wrong.Message != bfftest.LoyaltyRefused || unknown != wrong {
		t.Fatalf("wrong PIN %+v, unknown card %+v, want both 422 %q", wrong, unknown, bfftest.LoyaltyRefused)
	}
	if n := h.AppliedPayments(); n != 0 {
		t.Fatalf("%d payments applied without the member's PIN", n)
	}
	if n := h.SB.Calls("ApplyLoyaltyPointsPayment"); n != 2 {
		t.Fatalf("%d loyalty calls, want 2 (none without a PIN)", n)
	}
	doc := h.Page("/checkout", http.StatusOK)
	pin := doc.Find(`[data-testid="loyalty-form"] input[name="pin"]`)
	if pin.AttrOr("inputmode", "") != "numeric" || pin.AttrOr("autocomplete", "") != "off" || doc.Find(`label[for="`+pin.AttrOr("id", "?")+`"]`).Length() != 1 {
		t.Fatalf("the loyalty form's PIN field: %s", doc.Find(`[data-testid="loyalty-form"]`).Text())
	}
	resp, body := h.Post(bfftest.LoyaltyPath, "/checkout", url.Values{"card": {"7000000000000002"}, "pin": {"1906"}})
	bfftest.ExpectRedirect(t, resp, body, "/checkout")
	doc = h.Page("/checkout", http.StatusOK)
	if doc.Find(`[data-testid="applied"]`).Length() != 1 || bfftest.Text(doc, "to-pay") != "€23.50" {
		t.Fatalf("after the member's PIN: to pay %q (26.50 − 3.00)", bfftest.Text(doc, "to-pay"))
	}
}

// TestCardAttemptsThatDoNotCount: an outage of the ticketing system and a success give their
// attempts back; only refusals count towards the lock.
func TestCardAttemptsThatDoNotCount(t *testing.T) {
	h := bfftest.HoldHarness(t, bfftest.HarnessOpts{})
	limitClock(t, h)
	v := h.Visitor("198.51.100.1")
	v.BuyUpToSummary("1113", bfftest.TwoAdults())
	if err := h.SB.Faults().Set(sandbox.Fault{Operation: "ApplyGiftCard", HTTPStatus: http.StatusServiceUnavailable}); err != nil {
		t.Fatal(err)
	}
	for i := range 8 {
		if got := v.UseCard(bfftest.GiftCardPath, "6000000000000002", "2222", nil); got.Status != http.StatusServiceUnavailable {
			t.Fatalf("outage %d: %+v, want 503", i+1, got)
		}
	}
	h.SB.Faults().Clear()
	for range 12 { // applying the card again replaces its amount
		resp, body := v.Post(bfftest.GiftCardPath, "/checkout", url.Values{"card": {"6000000000000002"}, "pin": {"2222"}})
		bfftest.ExpectRedirect(t, resp, body, "/checkout")
	}
	if n := v.AppliedPayments(); n != 1 {
		t.Fatalf("%d payments applied, want the gift card once", n)
	}
	for i := range 6 {
		want := bfftest.CardAnswer{Status: http.StatusUnprocessableEntity, Message: bfftest.GiftCardRefused}
		if i == 5 {
			want = bfftest.CardAnswer{Status: http.StatusTooManyRequests, Message: bfftest.CardTooMany, RetryAfter: "900"}
		}
		if got := v.UseCard(bfftest.GiftCardPath, "6000000000000002", fmt.Sprint(3000+i), nil); got != want {
			t.Fatalf("wrong PIN %d after outages and successes: %+v, want %+v", i+1, got, want)
		}
	}
}
