package bff

import (
	"context"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/audit"
	"github.com/cinemabff/cinemabff/internal/bff/swap"
	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/notify"
	"github.com/cinemabff/cinemabff/views/components"
)

// site is the Server as the flow packages see it: what they need from the root that is not in
// the kernel yet (swap.Site, kiosk.Site; kiosk_site.go has the kiosk's own). A type of its own,
// so that these adapters do not add to the Server's exported API; each goes when its helper
// moves to web or visit.
type site struct{ s *Server }

var _ swap.Site = site{}

func (a site) Render(c echo.Context, status int, title string, body templ.Component) error {
	return a.s.Render(c, status, title, body)
}

func (a site) FromUpstream(err error, backURL, backLabel string) error {
	return a.s.FromUpstream(err, backURL, backLabel)
}

func (a site) BoundBooking(c echo.Context) (cinemaID string, number int64, ok bool) {
	bb, ok := a.s.boundBooking(c)
	return bb.CinemaID, bb.Number, ok
}

func (a site) ChangesClosed(c echo.Context, cinemaID string, showtime time.Time) string {
	return a.s.ChangesClosed(c, cinemaID, showtime)
}

func (a site) RefuseClosed(c echo.Context, cinemaID string, showtime time.Time, backURL, backLabel string) error {
	return a.s.RefuseClosed(c, cinemaID, showtime, backURL, backLabel)
}

func (a site) Detached(ctx context.Context) (context.Context, context.CancelFunc) {
	return a.s.Detached(ctx)
}

func (a site) CinemaByID(ctx context.Context, id string) cinema.Cinema {
	return a.s.CinemaByID(ctx, id)
}

func (a site) RecordAudit(c echo.Context, e audit.Entry) { a.s.RecordAudit(c, e) }

func (a site) WriteNotice(ctx context.Context, n notify.Notice) { a.s.writeNotice(ctx, n) }

func (a site) RememberMail(ctx context.Context, key string) { a.s.Sessions.Put(ctx, sessMailKey, key) }

func (a site) MailLine(ctx context.Context, key string) string { return a.s.mailLine(ctx, key) }

func (a site) TicketsView(ctx context.Context, b cinema.Booking, printURL string) components.TicketsView {
	return a.s.ticketsView(ctx, b, printURL)
}

// newSwapFlow builds the swap flow's handler on s's clients and stores.
func (s *Server) newSwapFlow() *swap.Handler {
	return &swap.Handler{
		Site:      site{s},
		Sessions:  s.Sessions,
		Logger:    s.Logger,
		Ticketing: s.Ticketing,
		SeatPlans: s.SeatPlans,
		Bookings:  s.Bookings,
		Placed:    s.PlacedBookings,
		Links: swap.Links{
			FindBooking:    s.URL(web.RouteFindBooking),
			Booking:        s.URL(web.RouteBooking),
			BookingTickets: s.URL(web.RouteBookingTickets),
		},
	}
}
