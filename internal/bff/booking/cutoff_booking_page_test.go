package booking_test

import (
	"strings"
	"testing"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
)

// TestCutoffBookingPageSaysWhyOnceAndShowsTickets: booking 100019's show starts inside the
// change cut-off. Its booking page says once why it can no longer be changed (the actions it
// closes point to those words instead of repeating them) and shows the ticket codes open,
// not folded behind "Tickets anzeigen", since they are needed at the door now. A booking
// whose show is further off keeps the fold.
func TestCutoffBookingPageSaysWhyOnceAndShowsTickets(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	h.Speaking("de-DE,de;q=0.9")
	doc := h.FindCutoff(bfftest.BkSoon)
	bfftest.InGerman(t, doc, "booking page inside the cut-off")

	why := bfftest.Squash(doc.Find(`[data-testid="change-window"]`).Text())
	if !strings.HasPrefix(why, "Änderungen waren bis ") || !strings.HasSuffix(why, "Bitte wenden Sie sich an die Kinokasse.") {
		t.Fatalf("change window line %q, want why changes are closed", why)
	}
	if n := strings.Count(bfftest.Squash(doc.Find("main").Text()), why); n != 1 {
		t.Errorf("the reason is said %d times, want once: %q", n, why)
	}
	id := doc.Find(`[data-testid="change-window"]`).AttrOr("id", "")
	for _, a := range []string{"action-edit", "action-showtime", "action-swap"} {
		if got := disabledWith(t, doc, a); got != why {
			t.Errorf("%s: disabled because %q, want %q", a, got, why)
		}
		if by := doc.Find(`[data-testid="`+a+`"] button[disabled]`).AttrOr("aria-describedby", ""); id == "" || by != id {
			t.Errorf("%s: described by %q, want the change window line (id %q)", a, by, id)
		}
	}

	cards := doc.Find(`[data-testid="ticket-card"]`)
	if cards.Length() != 2 {
		t.Fatalf("%d ticket cards, want 2", cards.Length())
	}
	if folded := cards.ParentsFiltered("details:not([open])").Length(); folded != 0 {
		t.Error("the ticket cards are folded away inside the cut-off")
	}
	if strings.Contains(doc.Find("main").Text(), "Tickets anzeigen") {
		t.Error(`"Tickets anzeigen" offered while the tickets are shown`)
	}

	doc = h.FindCutoff(bfftest.BkPaid1)
	fold := doc.Find(`details[data-testid="tickets-fold"]`)
	if fold.Length() != 1 || fold.Is("[open]") || fold.Find(`[data-testid="ticket-card"]`).Length() != 2 {
		t.Errorf("a booking of a show further off: the cards are not folded (%d folds)", fold.Length())
	}
}
