package visit

import (
	"context"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/views/layouts"
)

// SessBookingName is the name on the booking the visit is bound to (for the counter's strip).
const SessBookingName = "booking.name"

// RememberCustomer keeps the bound booking's name for the counter's customer strip.
func (v *Visits) RememberCustomer(c echo.Context, name string) {
	v.kernel.Sessions.Put(c.Request().Context(), SessBookingName, name)
}

// stripDueWait bounds the read of the amount due for the strip: the page itself matters more.
const stripDueWait = 2 * time.Second

// CustomerStrip is whom this counter serves, for the frame of every page of that customer: the
// walk-in's purchase under way (or just confirmed), or the booking found and its change. nil
// when the counter serves nobody.
func (v *Visits) CustomerStrip(c echo.Context) *layouts.CustomerStrip {
	ctx := c.Request().Context()
	l := web.Loc(c)
	if buy, ok := v.CurrentBuy(c); ok {
		st := &layouts.CustomerStrip{Who: buy.Name, What: l.N("staff.counter.sale_what", buy.Places, "Film", buy.FilmTitle)}
		if st.Who == "" {
			st.Who = l.T("layout.strip_walk_in")
		}
		v.stripDue(ctx, l, buy.UserSessionID, st, func(o cinema.Order) cinema.Money { return o.ToPay() })
		return st
	}
	if ref := v.kernel.Sessions.GetString(ctx, SessBuyDone); ref != "" && v.purchases != nil {
		if rec, err := v.purchases.Get(ctx, ref); err == nil && rec.BookingNumber != 0 {
			st := &layouts.CustomerStrip{Who: rec.CustomerName, What: l.T("layout.strip_booking", "Number", rec.BookingNumber), Due: l.T("layout.strip_paid")}
			if st.Who == "" {
				st.Who = l.T("layout.strip_walk_in")
			}
			return st
		}
	}
	b, ok := v.BoundBooking(c)
	if !ok {
		return nil
	}
	st := &layouts.CustomerStrip{Who: v.kernel.Sessions.GetString(ctx, SessBookingName), What: l.T("layout.strip_booking", "Number", b.Number)}
	if e, ok := v.CurrentEdit(c); ok && e.BookingNumber == b.Number {
		v.stripDue(ctx, l, e.UserSessionID, st, func(o cinema.Order) cinema.Money { return o.Total })
	}
	return st
}

// stripDue reads what the order costs now (due of o) into st; a slow or failed read leaves
// the strip without it.
func (v *Visits) stripDue(ctx context.Context, l *i18n.Localizer, orderSessionID string, st *layouts.CustomerStrip, due func(cinema.Order) cinema.Money) {
	if v.kernel.Ticketing == nil {
		return
	}
	rctx, cancel := context.WithTimeout(ctx, stripDueWait)
	defer cancel()
	o, err := v.kernel.Ticketing.GetOrder(rctx, orderSessionID)
	if err != nil {
		return
	}
	switch m := due(o); {
	case m.Cents > 0:
		st.Due, st.DueOK = l.T("layout.strip_to_pay", "Amount", l.Money(m)), true
	case m.Cents < 0:
		st.Due = l.T("layout.strip_to_refund", "Amount", l.Money(m.Neg()))
	default:
		st.Due = l.T("layout.strip_nothing_due")
	}
}
