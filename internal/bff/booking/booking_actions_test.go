package booking_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
)

// TestBookingPageActionsBeforeTickets: the booking page lists what can be done
// before the tickets, its primary action is "Change this booking", and the QR ticket cards
// fold behind "Show tickets" (closed details, no JavaScript needed); the print view keeps
// every card whole, unfolded.
func TestBookingPageActionsBeforeTickets(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	doc := h.Find(bfftest.BkPaid2)
	html, err := doc.Find("main").Html()
	if err != nil {
		t.Fatal(err)
	}
	at := func(marker string) int {
		t.Helper()
		i := strings.Index(html, marker)
		if i < 0 {
			t.Fatalf("booking page lacks %s", marker)
		}
		return i
	}
	actions := at(`data-testid="actions"`)
	for _, later := range []struct{ marker, what string }{
		{`data-testid="tickets"`, "the list of tickets"},
		{`data-testid="tickets-fold"`, "the folded ticket cards"},
		{`data-testid="ticket-card"`, "the first ticket card"},
	} {
		if at(later.marker) < actions {
			t.Errorf("%s comes before the actions", later.what)
		}
	}
	if got := doc.Find(`[data-testid="action-edit"] button.button-primary`).Text(); !strings.Contains(got, "Change this booking") {
		t.Errorf("primary action %q, want Change this booking", got)
	}

	fold := doc.Find(`details[data-testid="tickets-fold"]`)
	for _, c := range []struct {
		what string
		ok   bool
	}{
		{"one fold", fold.Length() == 1},
		{"closed as the page opens", !fold.Is("[open]")},
		{`"Show tickets" as its summary`, strings.TrimSpace(fold.ChildrenFiltered("summary").Text()) == "Show tickets"},
		{"every card inside the fold", fold.Find(`[data-testid="ticket-card"]`).Length() == doc.Find(`[data-testid="ticket-card"]`).Length()},
		{"the cards inside (two tickets)", fold.Find(`[data-testid="ticket-card"]`).Length() == 2},
	} {
		if !c.ok {
			t.Errorf("ticket fold: want %s", c.what)
		}
	}

	print := h.Page("/booking/tickets", http.StatusOK)
	if print.Find("details").Length() != 0 || print.Find(`[data-testid="ticket-card"]`).Length() != 2 {
		t.Errorf("print view: %d details, %d cards; want the two cards unfolded",
			print.Find("details").Length(), print.Find(`[data-testid="ticket-card"]`).Length())
	}
}
