package checkout

import (
	"errors"
	"slices"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/purchases"
)

// showBuyCalendar is the calendar event (.ics) of a purchase this visit made: the reference
// must be among the visit's purchases (BuyRefs, set when it started the payment or came back
// with the payment's token) and the purchase completed, so nobody reads another person's
// booking by guessing a reference or a booking number.
func (h *Handler) showBuyCalendar(c echo.Context) error {
	ctx := c.Request().Context()
	l := web.Loc(c)
	ref := c.Param("ref")
	notFound := &web.Error{Code: web.ENotFound, Heading: l.T("checkout.payment_link_invalid"), Message: l.T("checkout.payment_link_invalid_text"),
		BackURL: h.Site.URL("home"), BackLabel: l.T("checkout.back_to_start")}
	if len(ref) != 32 || !slices.Contains(h.Visits.BuyRefs(c), ref) {
		return notFound
	}
	rec, err := h.checkout().store.Get(ctx, ref)
	if errors.Is(err, purchases.ErrNotFound) {
		return notFound
	}
	if err != nil {
		return err
	}
	if rec.State != purchases.StateCompleted || rec.BookingNumber == 0 {
		return notFound
	}
	b, err := h.Visits.ReadBooking(ctx, rec.CinemaID, rec.BookingNumber)
	if err != nil {
		return h.Visits.FromUpstream(err, h.Site.URL("buy.return", rec.ID), l.T("checkout.back_to_start"))
	}
	return h.Visits.ServeCalendar(c, b)
}
