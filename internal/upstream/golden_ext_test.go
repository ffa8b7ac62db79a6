package upstream_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/goldenapi"
	"github.com/cinemabff/cinemabff/internal/upstream"
	"github.com/cinemabff/cinemabff/internal/wireshape"
)

// These tests run the client against internal/goldenapi: a ticketing API written from
// upstream-notes, not from our sandbox, answering every operation with its golden body.

const goldenToken = "test-token"

// golden is the golden API and where it listens.
type golden struct {
	*goldenapi.Server
	url string
}

func newGolden(t *testing.T) *golden {
	t.Helper()
	g := goldenapi.New(os.DirFS(filepath.Join("testdata", "golden")), goldenToken)
	srv := httptest.NewServer(g)
	t.Cleanup(srv.Close)
	return &golden{Server: g, url: srv.URL}
}

func goldenClient(t *testing.T, g *golden, opts ...upstream.Option) *upstream.Client {
	t.Helper()
	base := []upstream.Option{
		upstream.WithRetry(upstream.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond}),
		upstream.WithTimeout(2 * time.Second),
	}
	c, err := upstream.New(g.url, goldenToken, append(base, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// headerRecorder records the header map keys exactly as the client set them:
// the server side of net/http would canonicalise them.
type headerRecorder struct {
	mu   sync.Mutex
	keys map[string]string // raw key → value
}

func (h *headerRecorder) RoundTrip(r *http.Request) (*http.Response, error) {
	h.mu.Lock()
	h.keys = map[string]string{}
	for k, v := range r.Header {
		h.keys[k] = strings.Join(v, ",")
	}
	h.mu.Unlock()
	return http.DefaultTransport.RoundTrip(r)
}

func TestGoldenBookingIsReadFromLabelsAndRealNames(t *testing.T) {
	g := newGolden(t)
	c := goldenClient(t, g)
	ctx := context.Background()

	b, err := c.GetSingleBooking(ctx, "0001", 100002)
	if err != nil {
		t.Fatal(err)
	}
	if b.Number != 100002 || b.ID != "WB3F2A9C" || b.TransactionID != 700123 || !b.Paid || !b.PaidKnown || b.CustomerEmail != "ada@example.com" {
		t.Errorf("booking = %+v", b)
	}
	if b.Total != (cinema.Money{Cents: 2700, Currency: "EUR"}) || len(b.Tickets) != 2 || b.SessionID() != "1001" {
		t.Fatalf("booking total %v tickets %+v session %q", b.Total, b.Tickets, b.SessionID())
	}
	if s := b.Tickets[0].Seat; s == nil || s.Placed || s.Name() != "F12" {
		t.Fatalf("ticket 0 seat = %+v: want labels only, not yet placed", s)
	}
	if len(b.Payments) != 1 || b.Payments[0].ProviderReference != "pay_1c2d3e4f5a6b7c8d" || b.Payments[0].Amount.Cents != 2700 ||
		b.Payments[0].CardType != "VISA" || b.Payments[0].CardNumberMasked != "************4242" || b.Payments[0].ExternalKnown {
		t.Errorf("payments = %+v", b.Payments)
	}
	if r := b.EditRestrictions(); len(r) != 0 {
		t.Errorf("a real booking without IsExternal must not be refused before asking: %v", r)
	}
	if r := b.SwapRestrictions(); len(r) != 0 {
		t.Errorf("swap restrictions = %v", r)
	}
	if got := string(g.Body(upstream.OpGetSingleBooking)); got != `{"CinemaId":"0001","BookingNumber":"100002"}` {
		t.Errorf("request = %s", got)
	}

	plan, err := c.GetSeatPlan(ctx, "0001", "1001")
	if err != nil {
		t.Fatal(err)
	}
	if missing := b.PlaceOnPlan(plan); len(missing) != 0 {
		t.Fatalf("not placed: %+v", missing)
	}
	want := cinema.SeatPosition{AreaNumber: 1, RowIndex: 5, ColumnIndex: 11}
	if s := b.Tickets[0].Seat; !s.Placed || s.Position != want || s.AreaCategoryCode != "0000000001" {
		t.Errorf("placed seat = %+v, want %+v", s, want)
	}

	g.Use(upstream.OpGetSingleBooking, "twopayments", 0)
	b2, err := c.GetSingleBooking(ctx, "0001", 100002)
	if err != nil || len(b2.Payments) != 2 || b2.Payments[1].Amount.Cents != 1250 || b2.Tickets[2].PaymentID != "2" || b2.Tickets[2].RefundGroup != 2 {
		t.Errorf("two payments: %+v %v", b2.Payments, err)
	}

	g.Use(upstream.OpGetSingleBooking, "notfound", 0)
	if _, err := c.GetSingleBooking(ctx, "0001", 1); !errors.Is(err, upstream.ErrNotFound) {
		t.Errorf("not found: %v", err)
	}
}

func TestGoldenCompleteOrderIsFlat(t *testing.T) {
	g := newGolden(t)
	c := goldenClient(t, g)
	d, err := c.CompleteOrder(context.Background(), upstream.CompleteOrderRequest{UserSessionID: "3f2a9c0d5b7e41a8b6c2d9e0f1a2b3c4",
		CustomerName: "Ada Lovelace", CustomerEmail: "ada@example.com", PerformPayment: true, GeneratePrintStream: true, ReturnPrintStream: true,
		Payment: &upstream.OrderPayment{AmountCents: 2700, CardNumber: "************4242", CardType: "VISA"}})
	if err != nil {
		t.Fatal(err)
	}
	if !d.Completed || d.BookingNumber != 100002 || d.BookingID != "WB3F2A9C" || d.TransactionNumber != 700123 || len(d.PrintStreams) != 3 {
		t.Errorf("completion = %+v", d)
	}
	var sent map[string]any
	if err := json.Unmarshal(g.Body(upstream.OpCompleteOrder), &sent); err != nil {
		t.Fatal(err)
	}
	if pi, _ := sent["PaymentInfo"].(map[string]any); pi["PaymentTenderCategory"] != upstream.DefaultTenders.Card {
		t.Errorf("tender = %v, want the deployment's card tender", pi["PaymentTenderCategory"])
	}

	g.Use(upstream.OpCompleteOrder, "reservation", 0)
	d, err = c.CompleteOrder(context.Background(), upstream.CompleteOrderRequest{UserSessionID: "c4d5e6f7a8b94c0d9e1f2a3b4c5d6e7f", BookingMode: upstream.BookingModeReservation})
	if err != nil || !d.Completed || d.BookingNumber != 100004 || d.TransactionNumber != 0 {
		t.Errorf("reservation = %+v %v", d, err)
	}
}

func TestGoldenOrderDetailsAndOrders(t *testing.T) {
	g := newGolden(t)
	c := goldenClient(t, g)
	ctx := context.Background()

	g.Use(upstream.OpGetOrderDetails, "completed", 0)
	d, err := c.GetOrderDetails(ctx, "8c1d2e3f4a5b46c7d8e9f0a1b2c3d4e5")
	if err != nil {
		t.Fatal(err)
	}
	if !d.Completed || d.BookingNumber == 0 || d.BookingID == "" || d.WebPayment == nil || d.WebPayment.Status != cinema.PaymentPaid || len(d.AdditionalPayments) == 0 {
		t.Errorf("details = %+v", d)
	}
	if q := g.Query(upstream.OpGetOrderDetails); q != "userSessionId=8c1d2e3f4a5b46c7d8e9f0a1b2c3d4e5" {
		t.Errorf("query = %s", q)
	}
	g.Use(upstream.OpGetOrderDetails, "pending", 0)
	if d, err := c.GetOrderDetails(ctx, "x1"); err != nil || d.Completed {
		t.Errorf("pending = %+v %v", d, err)
	}

	o, err := c.GetOrder(ctx, "3f2a9c0d5b7e41a8b6c2d9e0f1a2b3c4")
	if err != nil || o.UserSessionID == "" || len(o.Tickets()) == 0 || o.Expires.IsZero() {
		t.Errorf("order = %+v %v", o, err)
	}
	if _, err := c.ResetOrderExpiry(ctx, "3f2a9c0d5b7e41a8b6c2d9e0f1a2b3c4"); err != nil {
		t.Error(err)
	}
	if err := c.CancelOrder(ctx, "3f2a9c0d5b7e41a8b6c2d9e0f1a2b3c4"); err != nil {
		t.Error(err)
	}
	u, err := c.ExternalPaymentStarting(ctx, upstream.ExternalPaymentRequest{UserSessionID: "8c1d2e3f4a5b46c7d8e9f0a1b2c3d4e5", ReturnURL: "https://tickets.example/return", PaymentMethod: "REDIRECT"})
	if err != nil || !strings.HasPrefix(u, "http") {
		t.Errorf("redirect = %q %v", u, err)
	}
	e, err := c.EditBooking(ctx, "0001", "WB3F2A9C")
	if err != nil || e.UserSessionID == "" || len(e.Lines) == 0 {
		t.Errorf("edit = %+v %v", e, err)
	}
	g.Use(upstream.OpEditBooking, "refused", http.StatusBadRequest)
	if _, err := c.EditBooking(ctx, "0001", "WB3F2A9C"); !errors.Is(err, upstream.ErrEditRefused) {
		t.Errorf("refused edit: %v", err)
	}
}

func TestGoldenSeatTakenIsSeatsUnavailable(t *testing.T) {
	g := newGolden(t)
	c := goldenClient(t, g, upstream.WithBreaker(upstream.BreakerSettings{ConsecutiveFailures: 2, OpenTimeout: time.Minute}))
	g.Use(upstream.OpSetSelectedSeats, "seattaken", 0)
	for range 5 {
		_, err := c.SetSelectedSeats(context.Background(), upstream.SetSelectedSeatsRequest{UserSessionID: "u", CinemaID: "0001", SessionID: "1001",
			Seats: []upstream.SelectedSeat{{AreaCategoryCode: "0000000001", Position: cinema.SeatPosition{AreaNumber: 1, RowIndex: 5, ColumnIndex: 11}}}})
		if !errors.Is(err, upstream.ErrSeatsUnavailable) || errors.Is(err, upstream.ErrUnavailable) {
			t.Fatalf("seat taken answered %v, want seats unavailable (and not an outage)", err)
		}
	}
	if err := c.Ready(); err != nil {
		t.Errorf("business answers tripped the breaker: %v", err)
	}
}

func TestGoldenListingsAreFilteredOnTheServerAndLocal(t *testing.T) {
	g := newGolden(t)
	c := goldenClient(t, g, upstream.WithTimeZone(time.UTC))
	ctx := context.Background()

	cs, err := c.ListCinemas(ctx)
	if err != nil || len(cs) != 2 || cs[0].TimeZone != "Europe/Berlin" || cs[0].Currency != "EUR" {
		t.Fatalf("cinemas %+v %v", cs, err)
	}
	ss, err := c.ListSessions(ctx, "0001", "2026-11-22")
	if err != nil || len(ss) != 2 {
		t.Fatalf("sessions %+v %v", ss, err)
	}
	if q := g.Query(upstream.OpListSessions); q != "$filter=CinemaId%20eq%20'0001'" {
		t.Errorf("sessions query %q: want the OData filter and nothing else", q)
	}
	if q := g.Query(upstream.OpListFilms); q != "$filter=CinemaId%20eq%20'0001'" {
		t.Errorf("films query %q", q)
	}
	// 20:30 in Berlin in November is 19:30 UTC.
	if want := time.Date(2026, 11, 22, 19, 30, 0, 0, time.UTC); !ss[0].Showtime.Equal(want) || ss[0].FilmTitle != "Long Night, The" || ss[0].SessionID != "1001" {
		t.Errorf("session 0 = %+v", ss[0])
	}
	// 00:30 on the 23rd belongs to the business day of the 22nd.
	if ss[1].Day() != "2026-11-22" || ss[1].Showtime.In(time.UTC).Day() != 22 || ss[1].FilmTitle != "Schule auf dem Zauberberg, Die" {
		t.Errorf("session 1 = %+v (day %s)", ss[1], ss[1].Day())
	}
	if next, err := c.ListSessions(ctx, "0001", "2026-11-23"); err != nil || len(next) != 0 {
		t.Errorf("no session belongs to the 23rd: %+v %v", next, err)
	}
	for _, id := range []string{"1001", "0001-1001"} {
		if s, err := c.FindSession(ctx, "0001", id); err != nil || s.SessionID != "1001" {
			t.Errorf("FindSession(%q) = %+v %v", id, s, err)
		}
	}
	fs, err := c.ListFilms(ctx, "0001")
	if err != nil || len(fs) != 2 || fs[0].RunTime != 118*time.Minute || fs[0].ID != "HO00000001" {
		t.Errorf("films %+v %v", fs, err)
	}

	g.Use(upstream.OpListCinemas, "windowszone", 0)
	c2 := goldenClient(t, g, upstream.WithTimeZone(time.UTC), upstream.WithCurrency("CHF"))
	cs, err = c2.ListCinemas(ctx)
	if err != nil || cs[0].TimeZone != "Europe/Berlin" || cs[0].Currency != "CHF" {
		t.Errorf("windows zone / absent currency: %+v %v", cs, err)
	}
}

func TestGoldenTicketTypesReadRealFlags(t *testing.T) {
	g := newGolden(t)
	tt, err := goldenClient(t, g).GetTicketTypes(context.Background(), "0001", "0001-1001", "")
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]cinema.TicketType{}
	for _, x := range tt {
		by[x.Code] = x
	}
	if a := by["0001"]; a.Price.Cents != 1250 || !a.Simple() || a.IsChild {
		t.Errorf("adult = %+v", a)
	}
	if ch := by["0002"]; !ch.IsChild || !ch.Simple() {
		t.Errorf("child = %+v", ch)
	}
	if p := by["0010"]; !p.IsPackage || p.PackageSize != 4 || p.Simple() {
		t.Errorf("package = %+v", p)
	}
	if v := by["0020"]; !v.IsVoucher || v.Simple() {
		t.Errorf("voucher = %+v", v)
	}
	if q := g.Query(upstream.OpGetTicketTypes); q != "" {
		t.Errorf("query %q", q)
	}
}

// TestGoldenRequestShapes sends every operation and compares the body with
// the golden request's shape: our requests must be what the real service
// reads.
func TestGoldenRequestShapes(t *testing.T) {
	g := newGolden(t)
	c := goldenClient(t, g)
	ctx := context.Background()
	seat := []upstream.SelectedSeat{{AreaCategoryCode: "0000000001", Position: cinema.SeatPosition{AreaNumber: 1, RowIndex: 5, ColumnIndex: 11}}}
	amount := int64(500)
	calls := []struct {
		op, golden string
		optional   []string
		call       func() error
	}{
		{upstream.OpAddTickets, "AddTickets.request.json", []string{"BookingFeeOverride", "TicketTypes[].PriceInCents", "SelectedSeats"}, func() error {
			_, err := c.AddTickets(ctx, upstream.AddTicketsRequest{UserSessionID: "u", CinemaID: "0001", SessionID: "1001", Tickets: []upstream.TicketRequest{{TypeCode: "0001", Qty: 2}}, Seats: seat})
			return err
		}},
		{upstream.OpRemoveTickets, "RemoveTickets.request.json", nil, func() error {
			_, err := c.RemoveTickets(ctx, upstream.RemoveTicketsRequest{UserSessionID: "u", SessionID: "1001", TicketIDs: []string{"1"}})
			return err
		}},
		{upstream.OpSetSelectedSeats, "SetSelectedSeats.request.json", nil, func() error {
			_, err := c.SetSelectedSeats(ctx, upstream.SetSelectedSeatsRequest{UserSessionID: "u", CinemaID: "0001", SessionID: "1001", Seats: seat})
			return err
		}},
		{upstream.OpGetOrder, "GetOrder.request.json", nil, func() error { _, err := c.GetOrder(ctx, "u"); return err }},
		{upstream.OpResetOrderExpiry, "ResetOrderExpiry.request.json", nil, func() error { _, err := c.ResetOrderExpiry(ctx, "u"); return err }},
		{upstream.OpCancelOrder, "CancelOrder.request.json", nil, func() error { return c.CancelOrder(ctx, "u") }},
		{upstream.OpCompleteOrder, "CompleteOrder.request.json", nil, func() error {
			_, err := c.CompleteOrder(ctx, upstream.CompleteOrderRequest{UserSessionID: "u", CustomerName: "A", CustomerEmail: "a@example.com", Payment: &upstream.OrderPayment{AmountCents: 1, CardNumber: "x", CardType: "VISA"}})
			return err
		}},
		{upstream.OpApplyGiftCard, "ApplyGiftCard.request.json", []string{"AmountInCents"}, func() error {
			_, err := c.ApplyGiftCard(ctx, "u", "6001", "1234", &amount)
			return err
		}},
		{upstream.OpApplyLoyaltyPointsPayment, "ApplyLoyaltyPointsPayment.request.json", []string{"AmountInCents"}, func() error {
			_, err := c.ApplyLoyaltyPointsPayment(ctx, "u", "L1", "1815", &amount)
			return err
		}},
		{upstream.OpExternalPaymentStarting, "ExternalPaymentStarting.request.json", nil, func() error {
			_, err := c.ExternalPaymentStarting(ctx, upstream.ExternalPaymentRequest{UserSessionID: "u", ReturnURL: "https://x/r", PaymentMethod: "M", CustomerName: "A", CustomerEmail: "a@example.com"})
			return err
		}},
		{upstream.OpGetSingleBooking, "GetSingleBooking.request.json", nil, func() error { _, err := c.GetSingleBooking(ctx, "0001", 100002); return err }},
		{upstream.OpCompleteEditBooking, "CompleteEditBooking.request.json", nil, func() error {
			_, err := c.CompleteEditBooking(ctx, "u", upstream.CompleteEditWithPayments(upstream.ExternalPayment{AmountCents: 1250, ProviderReference: "pi_1", CardNumberMasked: "4242", CardType: "visa"}))
			return err
		}},
		{upstream.OpCompleteEditBooking, "CompleteEditBooking.request.refund.json", nil, func() error {
			_, err := c.CompleteEditBooking(ctx, "u", upstream.CompleteEditWithRefunds(upstream.ExternalPayment{AmountCents: 1250, ProviderReference: "pi_1"}))
			return err
		}},
		{upstream.OpCompleteEditBooking, "CompleteEditBooking.request.unpaid.json", nil, func() error {
			_, err := c.CompleteEditBooking(ctx, "u", upstream.CompleteEditUnpaid())
			return err
		}},
		{upstream.OpSwapSeats, "SwapSeats.request.json", nil, func() error {
			return c.SwapSeats(ctx, "0001", "WB3F2A9C", []upstream.SeatSwap{{TicketSequenceNumber: 1, NewSeat: cinema.SeatPosition{AreaNumber: 1, RowIndex: 4, ColumnIndex: 6}}})
		}},
	}
	for _, tc := range calls {
		t.Run(tc.golden, func(t *testing.T) {
			if err := tc.call(); err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(filepath.Join("testdata", "golden", tc.golden))
			if err != nil {
				t.Fatal(err)
			}
			drifts, err := wireshape.Compare(want, g.Body(tc.op), wireshape.Options{Optional: tc.optional})
			if err != nil {
				t.Fatalf("%v: body %s", err, g.Body(tc.op))
			}
			for _, d := range drifts {
				t.Errorf("request drifts from %s: %s", tc.golden, d)
			}
		})
	}
}

func TestTokenHeaderIsRawLowerCaseWithConfiguredHeaders(t *testing.T) {
	g := newGolden(t)
	rec := &headerRecorder{}
	hs, err := upstream.ParseHeaders([]string{"Connect-Region-Code: EU", "X-Tenant:  lumiere "})
	if err != nil {
		t.Fatal(err)
	}
	c := goldenClient(t, g, upstream.WithHTTPClient(&http.Client{Transport: rec}), upstream.WithHeaders(hs))
	if _, err := c.ListCinemas(context.Background()); err != nil {
		t.Fatal(err)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if rec.keys["connectapitoken"] != goldenToken {
		t.Errorf("token header keys = %v: want the raw lower-case connectapitoken", rec.keys)
	}
	if _, canon := rec.keys["Connectapitoken"]; canon {
		t.Error("the token also went out as Connectapitoken")
	}
	if rec.keys["Connect-Region-Code"] != "EU" || rec.keys["X-Tenant"] != "lumiere" {
		t.Errorf("extra headers = %v", rec.keys)
	}
}
