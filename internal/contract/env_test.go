// Package contract runs the upstream client against the sandbox over real
// HTTP: every operation, its success and each refusal the sandbox produces.
// The two sides read the contract independently; a misread field fails here.
package contract

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/bookings"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/sandbox"
	"github.com/cinemabff/cinemabff/internal/sandbox/payprovider"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

const (
	token  = "contract-token"
	payKey = "contract-pay-key"
	berlin = "0001"
	// Session 1113: cinema 0001, tomorrow, screen 1 (the 412-seat
	// auditorium), evening slot; the ready-made bookings live there.
	bigSession = "1113"
)

type env struct {
	t      *testing.T
	srv    *httptest.Server
	sb     *sandbox.Server
	prov   *payprovider.Provider
	client *upstream.Client
	pay    *upstream.StripePayments
	ctx    context.Context
}

type envOptions struct {
	clock           sandbox.Clock
	completionDelay time.Duration
	clientOpts      []upstream.Option
}

func newEnv(t *testing.T, o envOptions) *env {
	t.Helper()
	mux := http.NewServeMux()
	// Served as the sandbox serves itself: its listener sees the raw header names, so a
	// token header in any casing but connectapitoken is refused.
	srv := httptest.NewUnstartedServer(mux)
	srv.Listener = sandbox.WrapListener(srv.Listener)
	srv.Config.ConnContext = sandbox.ConnContext
	srv.Start()
	t.Cleanup(srv.Close)
	prov := payprovider.New(payprovider.Options{PublicURL: srv.URL + "/pay", APIKey: payKey})
	if o.completionDelay == 0 {
		o.completionDelay = 10 * time.Millisecond
	}
	sb, err := sandbox.New(sandbox.Options{Token: token, Clock: o.clock, CompletionDelay: o.completionDelay, Payments: prov})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sb.Close)
	mux.Handle("/pay/", http.StripPrefix("/pay", prov.Handler()))
	mux.Handle("/", sb.Handler())

	opts := append([]upstream.Option{
		upstream.WithHTTPClient(&http.Client{Transport: recorded}),
		upstream.WithTimeout(5 * time.Second),
		upstream.WithRetry(upstream.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: 10 * time.Millisecond}),
	}, o.clientOpts...)
	c, err := upstream.New(srv.URL, token, opts...)
	if err != nil {
		t.Fatal(err)
	}
	// The cinema's payment provider: the Stripe adapter against the sandbox's Stripe subset.
	p, err := upstream.NewStripePayments(upstream.StripeOptions{BaseURL: srv.URL + "/pay", SecretKey: payKey, Retries: ptr(int64(0))})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, srv: srv, sb: sb, prov: prov, client: c, pay: p, ctx: upstream.WithRequestID(context.Background(), "contract")}
	// Learn the cinemas' currencies, as the BFF does at start.
	if _, err := c.ListCinemas(e.ctx); err != nil {
		t.Fatal(err)
	}
	return e
}

// noErr fails the test on err.
func noErr(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// wantErr checks err against sentinel.
func wantErr(t *testing.T, err error, sentinel error) *upstream.Error {
	t.Helper()
	if !errors.Is(err, sentinel) {
		t.Fatalf("err = %v, want %v", err, sentinel)
	}
	var e *upstream.Error
	if !errors.As(err, &e) {
		t.Fatalf("err %v is not an *upstream.Error", err)
	}
	return e
}

func (e *env) plan(session string) cinema.SeatPlan {
	e.t.Helper()
	sp, err := e.client.GetSeatPlan(e.ctx, berlin, session)
	noErr(e.t, err)
	return sp
}

// seat finds the seat with a row and seat label.
func seat(t *testing.T, sp cinema.SeatPlan, row, label string) cinema.Seat {
	t.Helper()
	for _, a := range sp.Areas {
		for _, r := range a.Rows {
			if r.Label != row {
				continue
			}
			for _, s := range r.Seats {
				if s.Label == label {
					return s
				}
			}
		}
	}
	t.Fatalf("no seat %s%s", row, label)
	return cinema.Seat{}
}

// freeSeats returns n free normal seats of an area category, in plan order.
func freeSeats(t *testing.T, sp cinema.SeatPlan, cat string, n int) []cinema.Seat {
	t.Helper()
	var out []cinema.Seat
	for _, a := range sp.Areas {
		for _, r := range a.Rows {
			for _, s := range r.Seats {
				if s.AreaCategoryCode == cat && s.Availability == cinema.SeatFree && s.Kind == cinema.SeatKindNormal && s.SofaGroup == nil {
					out = append(out, s)
					if len(out) == n {
						return out
					}
				}
			}
		}
	}
	t.Fatalf("only %d free seats in %s", len(out), cat)
	return nil
}

func selected(ss ...cinema.Seat) []upstream.SelectedSeat {
	out := make([]upstream.SelectedSeat, len(ss))
	for i, s := range ss {
		out[i] = upstream.SelectedSeat{AreaCategoryCode: s.AreaCategoryCode, Position: s.Position}
	}
	return out
}

// newOrder starts a regular order with n adult tickets on free standard seats.
func (e *env) newOrder(n int) (cinema.Order, []cinema.Seat) {
	e.t.Helper()
	seats := freeSeats(e.t, e.plan(bigSession), "0000000001", n)
	o, err := e.client.AddTickets(e.ctx, upstream.AddTicketsRequest{
		UserSessionID: upstream.NewUserSessionID(), CinemaID: berlin, SessionID: bigSession,
		Tickets: []upstream.TicketRequest{{TypeCode: "0001", Qty: n}}, Seats: selected(seats...),
	})
	noErr(e.t, err)
	return o, seats
}

// decide presses a button (pay, decline, cancel) on the provider's hosted
// page, as the customer's browser does, and returns the redirect address.
func (e *env) decide(hostedURL, action string) *url.URL {
	e.t.Helper()
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := hc.PostForm(hostedURL, url.Values{"action": {action}})
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusSeeOther {
		if action == "decline" && resp.StatusCode == http.StatusOK {
			return nil // a checkout session stays open on its page after a declined card
		}
		e.t.Fatalf("hosted page answered %d: %s", resp.StatusCode, body)
	}
	u, err := url.Parse(resp.Header.Get("Location"))
	if err != nil {
		e.t.Fatal(err)
	}
	return u
}

// pollDetails polls order details until done says stop or the time is up.
func (e *env) pollDetails(id string, done func(cinema.OrderDetails) bool) cinema.OrderDetails {
	e.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		d, err := e.client.GetOrderDetails(e.ctx, id)
		noErr(e.t, err)
		if done(d) || time.Now().After(deadline) {
			return d
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func errorsIs(err, target error) bool { return errors.Is(err, target) }

// booking reads a booking as the BFF does: GetSingleBooking completed from the session
// listing and the seat plan (the real wire's tickets carry seat labels only).
func (e *env) booking(cinemaID string, number int64) (cinema.Booking, error) {
	b, err := bookings.Reader{Source: e.client}.Read(e.ctx, cinemaID, number)
	if err == nil && len(b.Unplaced) > 0 {
		e.t.Errorf("booking %d: tickets not found on the seat plan by their labels: %+v", number, b.Unplaced)
	}
	return b.Booking, err
}
