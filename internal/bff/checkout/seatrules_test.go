package checkout_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/seatrules"
)

// The cinema's seating rules (internal/seatrules) in the three places seats are chosen, on the
// sandbox's tomorrow 20:30 show (1113, Saal 1), whose rows are in docs/sandbox.md: F11–F12
// and F14–F15 booked, B11–B12 booked, wheelchair spaces A1, A3 with companion seats A2, A4.

const seatRuleHeading = "Please don’t leave a single seat empty"

// startBuy chooses qty adult tickets for session and lands on the seat step.
func startBuy(t *testing.T, h *bfftest.Harness, session, qty string) {
	t.Helper()
	page := "/whats-on/0001/" + session
	resp, body := h.Post(page, page, url.Values{"qty-0001": {qty}})
	bfftest.ExpectRedirect(t, resp, body, "/checkout/seats")
}

// tickedSeats are the seats ticked on a seat map.
func tickedSeats(doc *goquery.Document) []string {
	var out []string
	doc.Find(`[data-testid="seatmap"] input[name="seat"]:checked`).Each(func(_ int, s *goquery.Selection) {
		out = append(out, s.AttrOr("value", ""))
	})
	slices.Sort(out)
	return out
}

func TestSeatRulesBuyLoneSeatRefusedInWords(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	startBuy(t, h, "1113", "2")
	asked := h.SB.Calls("SetSelectedSeats")
	// B14–B15 leave B13 alone beside the booked B12.
	chosen := []string{bfftest.Seat(1, 1, 15), bfftest.Seat(1, 1, 16)}
	resp, body := h.Post("/checkout/seats", "/checkout/seats", url.Values{"seat": chosen})
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("B14–B15: status %d, want 422", resp.StatusCode)
	}
	doc := h.Doc(body)
	bfftest.WantContains(t, doc, `[data-testid="notice-error"]`, seatRuleHeading,
		"Seats B14–B15 would leave seat B13 empty on its own. A single seat between others usually stays empty. Choose B13–B14 instead, or B15–B16.")
	if got := tickedSeats(doc); !slices.Equal(got, chosen) {
		t.Errorf("the map shown again ticks %v, want the choice %v", got, chosen)
	}
	if n := h.SB.Calls("SetSelectedSeats") - asked; n != 0 {
		t.Errorf("the ticketing system was asked %d times for seats the rules refuse", n)
	}
	// The suggestion is taken.
	better := []string{bfftest.Seat(1, 1, 14), bfftest.Seat(1, 1, 15)}
	resp, body = h.Post("/checkout/seats", "/checkout/seats", url.Values{"seat": better})
	bfftest.ExpectRedirect(t, resp, body, "/checkout/details")
	if got := tickedSeats(h.Page("/checkout/seats", http.StatusOK)); !slices.Equal(got, better) {
		t.Errorf("the order has %v, want B13–B14 %v", got, better)
	}
}

// TestSeatRulesBuyLoneSeatAllowedWhenNothingAvoidsIt: in row D of tomorrow's 21:00 show in
// Saal 2 (1123) the free seats are blocks of three (D7–D8 are booked), so any two side by side
// leave one alone, and the choice stands.
func TestSeatRulesBuyLoneSeatAllowedWhenNothingAvoidsIt(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	startBuy(t, h, "1123", "2")
	resp, body := h.Post("/checkout/seats", "/checkout/seats", url.Values{"seat": {bfftest.Seat(1, 3, 5), bfftest.Seat(1, 3, 6)}})
	bfftest.ExpectRedirect(t, resp, body, "/checkout/details")
}

func TestSeatRulesBuyCompanionSeat(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	startBuy(t, h, "1113", "2")
	// A2 is a companion seat; A5 an ordinary one.
	resp, body := h.Post("/checkout/seats", "/checkout/seats", url.Values{"seat": {bfftest.Seat(1, 0, 1), bfftest.Seat(1, 0, 4)}})
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("A2 and A5: status %d, want 422", resp.StatusCode)
	}
	bfftest.WantContains(t, h.Doc(body), `[data-testid="notice-error"]`, "A companion seat goes with a wheelchair space",
		"Seat A2 is a companion seat, for someone accompanying a wheelchair user. Book it together with a wheelchair space, or choose another seat.")
	// With the wheelchair space A1 beside it.
	withWheelchair := []string{bfftest.Seat(1, 0, 0), bfftest.Seat(1, 0, 1)}
	resp, body = h.Post("/checkout/seats", "/checkout/seats", url.Values{"seat": withWheelchair})
	bfftest.ExpectRedirect(t, resp, body, "/checkout/details")
	if got := tickedSeats(h.Page("/checkout/seats", http.StatusOK)); !slices.Equal(got, withWheelchair) {
		t.Errorf("the order has %v, want A1–A2 %v", got, withWheelchair)
	}
}

// TestSeatRulesBuyBestSeatsTogether: for six tickets the ticketing system picks G13–G18 of
// tomorrow's 20:30 show, which leaves G19 alone by the aisle; no six seats of rows F to J do
// better, so the order moves to K14–K19 (K11–K13 booked, K20 across the aisle) before the
// seat step shows it.
func TestSeatRulesBuyBestSeatsTogether(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	startBuy(t, h, "1113", "6")
	var want []string
	for col := 15; col <= 20; col++ {
		want = append(want, bfftest.Seat(1, 10, col))
	}
	slices.Sort(want)
	if got := tickedSeats(h.Page("/checkout/seats", http.StatusOK)); !slices.Equal(got, want) {
		t.Fatalf("the order has %v, want K14–K19 %v", got, want)
	}
	// A pick that keeps the rules stays as the ticketing system made it: two tickets, G13–G14.
	h2 := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	asked := h2.SB.Calls("SetSelectedSeats")
	startBuy(t, h2, "1113", "2")
	if got, want := tickedSeats(h2.Page("/checkout/seats", http.StatusOK)), []string{bfftest.Seat(1, 6, 14), bfftest.Seat(1, 6, 15)}; !slices.Equal(got, want) {
		t.Fatalf("the order has %v, want G13–G14 %v", got, want)
	}
	if h2.SB.Calls("SetSelectedSeats") != asked {
		t.Error("seats set again for a pick that keeps the rules")
	}
}

func TestSeatRulesEditLoneSeat(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	h.Find(bfftest.BkPaid1) // F11, F12
	h.StartEdit(t)
	// F7–F8 leave F6 alone by the aisle.
	chosen := []string{bfftest.Seat(1, 5, 8), bfftest.Seat(1, 5, 9)}
	resp, body := h.Post("/booking/edit/seats", "/booking/edit/seats", url.Values{"seat": chosen})
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("F7–F8: status %d, want 422", resp.StatusCode)
	}
	doc := h.Doc(body)
	bfftest.WantContains(t, doc, `[data-testid="notice-error"]`, seatRuleHeading,
		"Seats F7–F8 would leave seat F6 empty on its own.", "Choose F6–F7 instead, or F8–F9.")
	if got := tickedSeats(doc); !slices.Equal(got, chosen) {
		t.Errorf("the map shown again ticks %v, want the choice %v", got, chosen)
	}
	_, doc = h.Submit("/booking/edit/seats", "/booking/edit/seats", url.Values{"seat": {bfftest.Seat(1, 5, 9), bfftest.Seat(1, 5, 10)}})
	bfftest.WantContains(t, doc, "main", "Your seats were changed.")
}

func TestSeatRulesSwap(t *testing.T) {
	h := bfftest.SwapHarness(t, bfftest.BkPaid1) // F11 (ticket 1), F12 (ticket 2)
	// F11 to F10 leaves F11 alone between F10 and F12, which stays; F11 is no seat to move to.
	resp, doc := h.ReviewSwap(bfftest.BkPaid1, []string{"1"}, []string{bfftest.Seat(1, 5, 11)})
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("F11 to F10: status %d, want 422", resp.StatusCode)
	}
	bfftest.WantContains(t, doc, `[data-testid="notice-error"]`, seatRuleHeading,
		"Seat F10 would leave seat F11 empty on its own.", "Choose F9 instead, or F8.")
	// F13, alone between the booking and F14, is a good place to move to.
	done := bfftest.SwapThrough(t, h, bfftest.BkPaid1, []string{"1"}, []string{bfftest.Seat(1, 5, 14)})
	if got := bfftest.BookingSeats(t, h, bfftest.BkPaid1); got[1] != "F13" || got[2] != "F12" {
		t.Fatalf("after the swap %v, want F13 and F12 (%s)", got, done.Text())
	}
	// A companion seat alone is refused here too.
	h = bfftest.SwapHarness(t, bfftest.BkPaid3) // G11, G12
	resp, doc = h.ReviewSwap(bfftest.BkPaid3, []string{"1"}, []string{bfftest.Seat(1, 0, 1)})
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("G11 to A2: status %d, want 422", resp.StatusCode)
	}
	bfftest.WantContains(t, doc, `[data-testid="notice-error"]`, "A companion seat goes with a wheelchair space")
}

// TestSeatRulesSandboxExamples holds docs/sandbox.md ("Seats that show the seating rules") to
// the sandbox's seat plans: each example there answers as it says.
func TestSeatRulesSandboxExamples(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	plans := map[string]cinema.SeatPlan{}
	for _, session := range []string{"1113", "1123"} {
		snap, err := h.Srv.SeatPlans.Plan(context.Background(), "0001", session)
		if err != nil {
			t.Fatal(err)
		}
		plans[session] = snap.Plan
	}
	at := func(plan cinema.SeatPlan, names string) []cinema.SeatPosition {
		var out []cinema.SeatPosition
		for name := range strings.FieldsSeq(names) {
			found := false
			for _, a := range plan.Areas {
				for _, r := range a.Rows {
					for _, s := range r.Seats {
						if s.RowLabel+s.Label == name {
							out, found = append(out, s.Position), true
						}
					}
				}
			}
			if !found {
				t.Fatalf("no seat %s on the plan", name)
			}
		}
		return out
	}
	for _, tc := range []struct {
		session, party, keep, chosen string
		swap                         bool
		want                         string // "" allowed; "companion"; else the lone seats and the suggestions
	}{
		{"1113", "", "", "B14 B15", false, "B13: B13–B14, B15–B16"},
		{"1113", "", "", "B2 B3", false, "B1: B1–B2, B4–B5"},
		{"1113", "", "", "B2 B3 B4 B5", false, "B1: B13–B16, B16–B19"},
		{"1113", "", "", "F7 F8", false, "F6: F6–F7, F9–F10"},
		{"1113", "", "", "F13", false, ""},
		{"1123", "", "", "D4 D5", false, ""},
		{"1113", "F11 F12", "", "F7 F8", false, "F6: F6–F7, F8–F9"},
		{"1113", "F11 F12", "F12", "F10", true, "F11: F9, F8"},
		{"1113", "F11 F12", "F12", "F13", true, ""},
		{"1113", "", "", "A2 A5", false, "companion"},
		{"1113", "", "", "A2", false, "companion"},
		{"1113", "", "", "A1 A2", false, ""},
	} {
		plan := plans[tc.session]
		err := seatrules.Check(plan, seatrules.Choice{Party: at(plan, tc.party), Keep: at(plan, tc.keep), Chosen: at(plan, tc.chosen), Swap: tc.swap})
		got := ""
		var lone *seatrules.LoneSeatError
		var companion *seatrules.CompanionError
		switch {
		case errors.As(err, &lone):
			var alts []string
			for _, s := range lone.Suggestions {
				alts = append(alts, seatrules.Names(s))
			}
			got = seatrules.Names(lone.Lone) + ": " + strings.Join(alts, ", ")
		case errors.As(err, &companion):
			got = "companion"
		}
		if got != tc.want {
			t.Errorf("%s, party %q keeps %q, chooses %s: %q, want %q", tc.session, tc.party, tc.keep, tc.chosen, got, tc.want)
		}
	}
}
