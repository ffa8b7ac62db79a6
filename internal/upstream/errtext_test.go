package upstream

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
)

// TestTransportErrorsDoNotNameTheOrder: a call that fails in transport (the connection closed
// before an answer) is told without its address, whose path names the order's userSessionId:
// the error's text goes to logs, to the ledger's last error and to staff's Needs attention.
func TestTransportErrorsDoNotNameTheOrder(t *testing.T) {
	hangUp := func(w http.ResponseWriter, r *http.Request) {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		conn.Close()
	}
	usid := NewUserSessionID()
	calls := []struct {
		pattern string
		call    func(*Client) error
	}{
		{"POST /orders/{id}/complete-edit", func(c *Client) error {
			_, err := c.CompleteEditBooking(context.Background(), usid, CompleteEditUnpaid())
			return err
		}},
		{"POST /RESTTicketing.svc/order/cancel", func(c *Client) error { return c.CancelOrder(context.Background(), usid) }},
		{"GET /RESTTicketing.svc/order/details", func(c *Client) error {
			_, err := c.GetOrderDetails(context.Background(), usid)
			return err
		}},
	}
	for _, tc := range calls {
		t.Run(tc.pattern, func(t *testing.T) {
			f := newFake(t)
			f.handle(tc.pattern, hangUp)
			err := tc.call(f.client())
			if !errors.Is(err, ErrUnavailable) {
				t.Fatalf("err = %v, want unavailable", err)
			}
			if f.count(tc.pattern) == 0 {
				t.Fatalf("the call did not reach %s: %v", tc.pattern, err)
			}
			if text := err.Error(); strings.Contains(text, usid) || !strings.Contains(text, f.srv.URL+"/…") {
				t.Errorf("error text %q names the order or not the upstream", text)
			}
		})
	}
}

// TestMayHaveChanged: which failed calls may have changed something upstream, so that a
// person is never told "nothing was changed" about a write that may have been made.
func TestMayHaveChanged(t *testing.T) {
	refused := func(w http.ResponseWriter, r *http.Request) {}
	cases := []struct {
		name    string
		handler http.HandlerFunc // nil: no server listens
		call    func(*Client) error
		want    bool
	}{
		{"a write whose connection closed after it was sent", func(w http.ResponseWriter, r *http.Request) {
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
		}, func(c *Client) error { return c.CancelOrder(context.Background(), NewUserSessionID()) }, true},
		{"a write answered by a 502", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusBadGateway) },
			func(c *Client) error { return c.CancelOrder(context.Background(), NewUserSessionID()) }, true},
		{"a write answered with a code in its body", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"Result":2,"ExtendedResultCode":0,"ErrorDescription":"database"}`))
		}, func(c *Client) error { return c.CancelOrder(context.Background(), NewUserSessionID()) }, false},
		{"a read whose connection closed", func(w http.ResponseWriter, r *http.Request) {
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
		}, func(c *Client) error {
			_, err := c.GetOrderDetails(context.Background(), NewUserSessionID())
			return err
		}, false},
		{"a write to an upstream nobody listens on", nil,
			func(c *Client) error { return c.CancelOrder(context.Background(), NewUserSessionID()) }, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			h := tc.handler
			if h == nil {
				h = refused
				f.srv.Close() // a connection is never made
			}
			f.handle("POST /RESTTicketing.svc/order/cancel", h)
			f.handle("GET /RESTTicketing.svc/order/details", h)
			err := tc.call(f.client())
			if err == nil {
				t.Fatal("the call did not fail")
			}
			if got := MayHaveChanged(err); got != tc.want {
				t.Errorf("MayHaveChanged(%v) = %v, want %v", err, got, tc.want)
			}
		})
	}
	if MayHaveChanged(nil) {
		t.Error("MayHaveChanged(nil)")
	}
}

// TestSwapAnswersOfTheRealService: the real service's generic answers to a seat swap are read
// as what they mean for the person: Result 1 (its answer to a seat someone else took) as seats
// unavailable, Result 15 (UnpaidBookingsDisallowed) as the swap's unpaid-booking restriction;
// the same codes on other operations keep their meaning.
func TestSwapAnswersOfTheRealService(t *testing.T) {
	cases := []struct {
		op     string
		result int
		kind   error
		reason SwapRestriction
	}{
		{OpSwapSeats, ResultUnexpectedError, ErrSeatsUnavailable, ""},
		{OpSwapSeats, ResultUnpaidBookingsDisallowed, ErrSwapRefused, SwapUnpaidBooking},
		{OpSwapSeats, ResultDBError, ErrUnavailable, ""},
		{OpCompleteOrder, ResultUnexpectedError, ErrUnavailable, ""},
		{OpAddTickets, ResultUnpaidBookingsDisallowed, ErrInvalidRequest, ""},
	}
	for _, tc := range cases {
		err := newError(tc.op, http.StatusOK, codes{Result: tc.result})
		r, _ := SwapRefusal(err)
		if !errors.Is(err, tc.kind) || r != tc.reason {
			t.Errorf("%s, Result %d: %v (reason %q), want %v (reason %q)", tc.op, tc.result, err, r, tc.kind, tc.reason)
		}
	}
}
