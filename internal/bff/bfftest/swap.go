package bfftest

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/labstack/echo/v4"
)

// AddBookingBinder adds a test-only route that binds the visit to a booking under the server
// session keys the booking flow sets after a successful look-up ("booking.cinema" string,
// "booking.number" int64), so the swap flow is tested without depending on that flow.
func AddBookingBinder(h *Harness) {
	h.Srv.Echo.POST("/test/bind-booking", func(c echo.Context) error {
		n, err := strconv.ParseInt(c.FormValue("number"), 10, 64)
		if err != nil {
			return err
		}
		ctx := c.Request().Context()
		h.Srv.Kernel.Sessions.Put(ctx, "booking.cinema", c.FormValue("cinema"))
		h.Srv.Kernel.Sessions.Put(ctx, "booking.number", n)
		return c.String(http.StatusOK, "bound")
	})
}

// SwapHarness starts the server with the sandbox and binds the visit to booking number of
// cinema 0001.
func SwapHarness(t *testing.T, number int64) *Harness {
	t.Helper()
	h := NewHarness(t, HarnessOpts{Sandbox: true})
	AddBookingBinder(h)
	BindBooking(h, number)
	return h
}

func BindBooking(h *Harness, number int64) {
	h.T.Helper()
	resp, _ := h.Post("/test/bind-booking", "/device", url.Values{"cinema": {"0001"}, "number": {strconv.FormatInt(number, 10)}})
	if resp.StatusCode != http.StatusOK {
		h.T.Fatalf("bind: status %d", resp.StatusCode)
	}
}

func SwapPath(number int64, tail string) string {
	return "/bookings/0001/" + strconv.FormatInt(number, 10) + "/seats" + tail
}

// Seat is the form value of a seat: area, row index, column index.
func Seat(area, row, col int) string {
	return strconv.Itoa(area) + "-" + strconv.Itoa(row) + "-" + strconv.Itoa(col)
}

// ReviewSwap posts a choice from the swap page.
func (h *Harness) ReviewSwap(number int64, tickets []string, seats []string) (*http.Response, *goquery.Document) {
	h.T.Helper()
	resp, body := h.Post(SwapPath(number, ""), SwapPath(number, ""), url.Values{"ticket": tickets, "seat": seats})
	return resp, h.Doc(body)
}

// SwapThrough reviews a choice, confirms it and returns the result page.
func SwapThrough(t *testing.T, h *Harness, number int64, tickets, seats []string) *goquery.Document {
	t.Helper()
	resp, doc := h.ReviewSwap(number, tickets, seats)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != SwapPath(number, "/confirm") {
		t.Fatalf("review: status %d, location %q, notice %q", resp.StatusCode, resp.Header.Get("Location"), doc.Find(".notice").Text())
	}
	resp, _ = h.ConfirmSwap(number)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != SwapPath(number, "/done") {
		t.Fatalf("confirm: status %d, location %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	resp, body := h.Get(SwapPath(number, "/done"))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("done page: status %d", resp.StatusCode)
	}
	return h.Doc(body)
}

// ConfirmSwap opens booking number's confirm page and presses its button, as a browser sends
// the form: its CSRF token and the moves it shows.
func (h *Harness) ConfirmSwap(number int64) (*http.Response, string) {
	h.T.Helper()
	return h.Do("POST", SwapPath(number, "/confirm"), h.SwapConfirmForm(number), nil)
}

// SwapConfirmForm is what the confirm page of booking number's pending swap sends when its
// button is pressed.
func (h *Harness) SwapConfirmForm(number int64) url.Values {
	h.T.Helper()
	resp, body := h.Get(SwapPath(number, "/confirm"))
	form := h.Doc(body).Find(`[data-testid="confirm-form"]`)
	if resp.StatusCode != http.StatusOK || form.Length() != 1 {
		h.T.Fatalf("confirm page: status %d", resp.StatusCode)
	}
	return url.Values{"_csrf": {form.Find(`input[name="_csrf"]`).AttrOr("value", "")},
		"moves": {form.Find(`input[name="moves"]`).AttrOr("value", "")}}
}

// Moves reads the old and new seat of each ticket on a moves table, keyed by data-testid.
func Moves(doc *goquery.Document) map[string][2]string {
	out := map[string][2]string{}
	doc.Find(`[data-testid="moves"] tbody tr`).Each(func(_ int, tr *goquery.Selection) {
		out[tr.AttrOr("data-testid", "")] = [2]string{strings.TrimSpace(tr.Find(`[data-testid="move-from"]`).Text()), strings.TrimSpace(tr.Find(`[data-testid="move-to"]`).Text())}
	})
	return out
}

func BookingSeats(t *testing.T, h *Harness, number int64) map[int]string {
	t.Helper()
	b, err := h.Srv.Kernel.Ticketing.GetSingleBooking(context.Background(), "0001", number)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int]string{}
	for _, tk := range b.Tickets {
		out[tk.Seq] = tk.Seat.Name()
	}
	return out
}
