package swap_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/sandbox"
)

// TestSwapConfirmShowsMovesChosenInAnotherWindow: the confirm page shows one choice (F3), then
// other seats are chosen in a second window of the same visit; the first page's button sends
// nothing and shows the moves that would be made, and those are made only when confirmed.
func TestSwapConfirmShowsMovesChosenInAnotherWindow(t *testing.T) {
	h := bfftest.SwapHarness(t, 100001)
	if resp, _ := h.ReviewSwap(100001, []string{"1"}, []string{bfftest.Seat(1, 5, 2)}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("review: %d", resp.StatusCode)
	}
	first := h.SwapConfirmForm(100001) // F11 → F3 on screen
	if resp, _ := h.ReviewSwap(100001, []string{"1"}, []string{bfftest.Seat(1, 2, 2)}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("second window's review: %d", resp.StatusCode)
	}
	resp, body := h.Do("POST", bfftest.SwapPath(100001, "/confirm"), first, nil)
	if resp.StatusCode != http.StatusConflict {
		t.Fatalf("the first window's button: status %d", resp.StatusCode)
	}
	doc := h.Doc(body)
	if got := doc.Find(`[data-testid="notice-warning"]`).Text(); !strings.Contains(got, "another window") || !strings.Contains(got, "Nothing has been changed") {
		t.Errorf("notice %q", got)
	}
	if got := bfftest.Moves(doc)["move-1"]; got != [2]string{"Row F, seat 11", "Row C, seat 3"} {
		t.Errorf("the page shows %v, want the second window's move", got)
	}
	if n := h.SB.Calls("SwapSeats"); n != 0 {
		t.Fatalf("%d SwapSeats calls before the moves shown were confirmed", n)
	}
	if resp, _ := h.ConfirmSwap(100001); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != bfftest.SwapPath(100001, "/done") {
		t.Fatalf("confirm: status %d, location %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	if got := bfftest.BookingSeats(t, h, 100001); got[1] != "C3" {
		t.Fatalf("upstream has %v", got)
	}
}

// slowSwap holds the seat swap's call a moment and says when it arrives.
type slowSwap struct {
	next    http.RoundTripper
	arrived chan struct{}
}

func (s *slowSwap) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/swap-seats") {
		select {
		case s.arrived <- struct{}{}:
		default:
		}
		time.Sleep(300 * time.Millisecond)
	}
	return s.next.RoundTrip(r)
}

// TestSwapPressedTwiceSwapsOnce: the button is pressed twice without JavaScript, so the
// browser gives up the first request while the swap is under way and sends the second. The
// moves are sent once, the second press shows them made, and the swap's e-mail is written
// although the request that made it was given up.
func TestSwapPressedTwiceSwapsOnce(t *testing.T) {
	tr := &slowSwap{arrived: make(chan struct{}, 1)}
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true,
		UpstreamTransport: func(next http.RoundTripper) http.RoundTripper { tr.next = next; return tr }})
	bfftest.AddBookingBinder(h)
	bfftest.BindBooking(h, 100001)
	if resp, _ := h.ReviewSwap(100001, []string{"1"}, []string{bfftest.Seat(1, 5, 2)}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("review: %d", resp.StatusCode)
	}
	form := h.SwapConfirmForm(100001)

	ctx, giveUp := context.WithCancel(context.Background())
	defer giveUp()
	firstDone := make(chan struct{})
	go func() {
		defer close(firstDone)
		h.PostGivenUp(ctx, bfftest.SwapPath(100001, "/confirm"), form)
	}()
	select {
	case <-tr.arrived:
	case <-time.After(5 * time.Second):
		t.Fatal("the first press never reached the ticketing system")
	}
	giveUp()
	resp, _ := h.Do("POST", bfftest.SwapPath(100001, "/confirm"), form, nil)
	<-firstDone
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != bfftest.SwapPath(100001, "/done") {
		t.Fatalf("second press: status %d, location %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	if n := h.SB.Calls("SwapSeats"); n != 1 {
		t.Errorf("%d SwapSeats calls for one swap", n)
	}
	if got := bfftest.BookingSeats(t, h, 100001); got[1] != "F3" {
		t.Errorf("upstream has %v", got)
	}
	if msgs := h.DeliveredMail("swap"); len(msgs) != 1 {
		t.Errorf("%d swap e-mails, want 1", len(msgs))
	}
}

// TestSwapWhoseAnswerIsLost: the connection to the ticketing system is lost while the swap is
// sent. When the booking, read again, has the new seats, the swap is shown made, with its
// e-mail; when it does not, the person is told that it cannot be known yet, never that nothing
// was changed.
func TestSwapWhoseAnswerIsLost(t *testing.T) {
	for _, made := range []bool{true, false} {
		t.Run(map[bool]string{true: "made", false: "not made"}[made], func(t *testing.T) {
			h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true,
				UpstreamTransport: func(next http.RoundTripper) http.RoundTripper {
					return bfftest.LoseAnswer{Next: next, Suffix: "/swap-seats", Sent: made}
				}})
			bfftest.AddBookingBinder(h)
			bfftest.BindBooking(h, 100001)
			if resp, _ := h.ReviewSwap(100001, []string{"1"}, []string{bfftest.Seat(1, 5, 2)}); resp.StatusCode != http.StatusSeeOther {
				t.Fatalf("review: %d", resp.StatusCode)
			}
			resp, body := h.ConfirmSwap(100001)
			if !made {
				msg := bfftest.Text(h.Doc(body), "error-message")
				if resp.StatusCode != http.StatusServiceUnavailable || strings.Contains(msg, "Nothing was changed") || !strings.Contains(msg, "cannot tell yet") {
					t.Fatalf("status %d, message %q", resp.StatusCode, msg)
				}
				return
			}
			if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != bfftest.SwapPath(100001, "/done") {
				t.Fatalf("status %d, location %q: %s", resp.StatusCode, resp.Header.Get("Location"), bfftest.Text(h.Doc(body), "error-message"))
			}
			_, done := h.Get(bfftest.SwapPath(100001, "/done"))
			if got := bfftest.Moves(h.Doc(done))["move-1"]; got != [2]string{"Row F, seat 11", "Row F, seat 3"} {
				t.Errorf("done page shows %v", got)
			}
			if msgs := h.DeliveredMail("swap"); len(msgs) != 1 {
				t.Errorf("%d swap e-mails, want 1", len(msgs))
			}
		})
	}
}

// TestSwapSlowerThanThePageIsNotOfferedAgain: the ticketing system takes longer over the swap
// than the page waits. The page says the outcome is not known yet; the moves are not offered
// for confirming again (a second go-ahead would send them twice), and once made the booking has
// the new seat.
func TestSwapSlowerThanThePageIsNotOfferedAgain(t *testing.T) {
	h := bfftest.SwapHarness(t, 100001)
	if resp, _ := h.ReviewSwap(100001, []string{"1"}, []string{bfftest.Seat(1, 5, 2)}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("review: %d", resp.StatusCode)
	}
	bfftest.MustFault(h, sandbox.Fault{Operation: "SwapSeats", Latency: sandbox.Duration(2500 * time.Millisecond), Times: 1})
	resp, body := h.ConfirmSwap(100001)
	if msg := bfftest.Text(h.Doc(body), "error-message"); resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(msg, "cannot tell yet") {
		t.Fatalf("status %d, message %q", resp.StatusCode, msg)
	}
	if resp, _ := h.Get(bfftest.SwapPath(100001, "/confirm")); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("the moves under way are offered for confirming again: status %d", resp.StatusCode)
	}
	deadline := time.Now().Add(5 * time.Second)
	for bfftest.BookingSeats(t, h, 100001)[1] != "F3" {
		if time.Now().After(deadline) {
			t.Fatalf("the swap was not made: %v", bfftest.BookingSeats(t, h, 100001))
		}
		time.Sleep(100 * time.Millisecond)
	}
	if n := h.SB.Calls("SwapSeats"); n != 1 {
		t.Errorf("%d SwapSeats calls", n)
	}
}
