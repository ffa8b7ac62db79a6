package notify

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cinemabff/cinemabff/internal/calendar"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/mail"
)

// TestComposeAttachesTheCalendar: every confirmation carries the booking's .ics, made from the
// booking as it is read when the message is composed; a given-up order and a refund carry none.
func TestComposeAttachesTheCalendar(t *testing.T) {
	b := testBooking()
	read := func(context.Context, string, int64) (cinema.Booking, error) { return b, nil }
	c := composer(t, read)
	var got []cinema.Booking
	c.Calendar = func(_ context.Context, l *i18n.Localizer, bk cinema.Booking) ([]byte, error) {
		got = append(got, bk)
		return []byte(fmt.Sprintf("BEGIN:VCALENDAR\r\nX-LANG:%s\r\nEND:VCALENDAR\r\n", l.Lang())), nil
	}
	for _, tc := range []struct {
		kind Kind
		want bool
	}{{KindPurchase, true}, {KindPurchaseLate, true}, {KindEdit, true}, {KindSwap, true}, {KindRefund, false}} {
		t.Run(string(tc.kind), func(t *testing.T) {
			got = nil
			n := Notice{Kind: tc.kind, Key: "k", To: "paid4@example.com", Lang: "de", CinemaID: "0001", BookingNumber: 100004}
			r, err := c.Compose(context.Background(), message(t, n))
			if err != nil {
				t.Fatal(err)
			}
			if !tc.want {
				if len(r.Attachments) != 0 || len(got) != 0 {
					t.Errorf("a %s message has %d attachments", tc.kind, len(r.Attachments))
				}
				return
			}
			if len(r.Attachments) != 1 {
				t.Fatalf("%d attachments, want the .ics", len(r.Attachments))
			}
			a := r.Attachments[0]
			if a.Filename != "booking-100004.ics" || a.ContentType != calendar.ContentType || !strings.Contains(string(a.Data), "X-LANG:de") {
				t.Errorf("attachment %s %q: %q", a.Filename, a.ContentType, a.Data)
			}
			if len(got) != 1 || got[0].Session.Showtime != b.Session.Showtime {
				t.Errorf("the calendar was made from %v, want the booking read for the message", got)
			}
		})
	}
	t.Run("order given up", func(t *testing.T) {
		got = nil
		n := Notice{Kind: KindOrderGivenUp, Key: "k", To: "paid4@example.com", CinemaID: "0001", Reference: "R1"}
		r, err := c.Compose(context.Background(), message(t, n))
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Attachments) != 0 || len(got) != 0 {
			t.Errorf("a given-up order has %d attachments", len(r.Attachments))
		}
	})
	t.Run("calendar fails: retried", func(t *testing.T) {
		c.Calendar = func(context.Context, *i18n.Localizer, cinema.Booking) ([]byte, error) {
			return nil, errors.New("db down")
		}
		n := Notice{Kind: KindEdit, Key: "k", To: "paid4@example.com", CinemaID: "0001", BookingNumber: 100004}
		if _, err := c.Compose(context.Background(), message(t, n)); err == nil || errors.Is(err, mail.ErrPermanent) {
			t.Errorf("Compose = %v, want a retryable error", err)
		}
	})
}
