package main

import (
	"context"
	"fmt"
)

// booking is a ready-made booking of the sandbox's default world (docs/sandbox.md).
type booking struct{ number, email string }

// paidBookings are the simple paid bookings: each can be looked up and changed.
var paidBookings = []booking{
	{"100001", "paid1@example.com"}, {"100002", "paid2@example.com"}, {"100003", "paid3@example.com"},
	{"100004", "paid4@example.com"}, {"100005", "paid5@example.com"}, {"100006", "paid6@example.com"},
}

// bigSession is on Saal 1 of cinema 0001, the 412-seat auditorium.
const bigSession = 1111

// page walks visitor i to a page and returns its GET of the page (URL and headers).
type page struct {
	// needs is the upstream round trips a view cannot do without: the length of the chain of
	// calls that depend on each other (independent reads run concurrently, so they
	// count once). The ratios are taken against needs × latency.
	needs   int
	maxPool int // at most this many visitors (0: no limit)
	// pollsOrders: each view is a poll of an order the payment poller watches (the report
	// gives the poller's calls per order).
	pollsOrders bool
	// cinemas is how many cinemas' listings the page's views read (the report gives the
	// listing's upstream calls per cinema per 30 s); 0: not a listing page.
	cinemas int
	setup   func(ctx context.Context, v *visitor, i int) (target, error)
}

// pageNames are the pages in the order they are attacked: the return page last, as its
// orders keep the payment poller busy afterwards.
var pageNames = []string{"whats-on", "film", "booking", "edit", "seatmap", "return-poll"}

// listingOps are the upstream operations of a cinema's listing: What's on and the film page
// read them through the shared listing (internal/listings), at most once per -listing-ttl per
// cinema, whatever the number of views.
var listingOps = []string{"Sessions", "Films"} // the sandbox's names of ListSessions and ListFilms

var pages = map[string]page{
	// What's on of cinema 0001, the visitors spread over the days it offers. The listing is
	// shared (one read per cinema per -listing-ttl), so a view waits for no upstream call; the
	// ratios are against one call all the same, what a view may cost at most.
	"whats-on": {needs: 1, cinemas: 1, setup: func(ctx context.Context, v *visitor, i int) (target, error) {
		days, err := v.whatsOnDays(ctx)
		if err != nil {
			return target{}, err
		}
		return v.target(days[i%len(days)], nil), nil
	}},
	// The film's session page (choose tickets) of a session of cinema 0001: the session from
	// the shared listing, then its TicketTypes.
	"film": {needs: 1, cinemas: 1, setup: func(ctx context.Context, v *visitor, i int) (target, error) {
		return v.target(fmt.Sprintf("/whats-on/0001/%d", purchaseSession(i)), nil), nil
	}},
	// GetSingleBooking, then its session's SeatPlan and TicketTypes (both need the booking).
	"booking": {needs: 2, setup: func(ctx context.Context, v *visitor, i int) (target, error) {
		err := v.findBooking(ctx, paidBookings[i%len(paidBookings)])
		return v.target("/booking/current", nil), err
	}},
	// One change per booking: a second visit changing the same booking is not what people do.
	// GetOrder and TicketTypes: the visit knows the cinema and session, so they are independent.
	"edit": {needs: 1, maxPool: len(paidBookings), setup: func(ctx context.Context, v *visitor, i int) (target, error) {
		if err := v.findBooking(ctx, paidBookings[i]); err != nil {
			return target{}, err
		}
		err := v.startEdit(ctx)
		return v.target("/booking/edit", nil), err
	}},
	// GetOrder and SeatPlan: independent (the visit knows the session).
	"seatmap": {needs: 1, setup: func(ctx context.Context, v *visitor, i int) (target, error) {
		err := v.chooseTicket(ctx, bigSession)
		return v.target("/checkout/seats", nil), err
	}},
	// At most one GetOrderDetails (the poller answers from its last read within an interval).
	"return-poll": {needs: 1, pollsOrders: true, setup: func(ctx context.Context, v *visitor, i int) (target, error) {
		hosted, err := v.toProvider(ctx, purchaseSession(i))
		if err != nil {
			return target{}, err
		}
		return v.returnPoll(ctx, hosted)
	}},
}

// purchaseSession spreads purchases over the sessions of cinema 0001 (ids base + day*100 +
// screen*10 + slot; internal/sandbox/world_default.go) so that no auditorium fills up.
func purchaseSession(i int) int {
	day, screen, slot := (i/6)%4, 1+(i/3)%2, 1+i%3
	return 1000 + day*100 + screen*10 + slot
}
