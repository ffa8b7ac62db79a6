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
