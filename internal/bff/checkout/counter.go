package checkout

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/audit"
	"github.com/cinemabff/cinemabff/internal/bff/visit"
	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/boxoffice"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/purchases"
	"github.com/cinemabff/cinemabff/internal/settlement"
	"github.com/cinemabff/cinemabff/internal/upstream"
	"github.com/cinemabff/cinemabff/views/components"
)

func (h *Handler) buyCounterView(c echo.Context, v visit.Buy, due cinema.Money) components.CounterPayView {
	l := web.Loc(c)
	return h.Visits.CounterPay(c, components.CounterPayView{What: l.N("staff.counter.sale_what", v.Places, "Film", v.FilmTitle),
		ActionURL: h.Site.URL("buy.counterpay"), BackURL: h.Site.URL("buy.summary"), BackLabel: l.T("staff.counter.back_to_order")}, due)
}

func (h *Handler) showBuyCounterPay(c echo.Context) error {
	v, err := h.requireBuy(c)
	if err != nil {
		return err
	}
	switch left, readerURL := h.leaveReader(c, v); {
	case readerURL != "":
		return web.Redirect(c, readerURL)
	case left != "":
		h.Site.Flash(c, left)
	}
	o, err := h.Ticketing.GetOrder(c.Request().Context(), v.UserSessionID)
	if err != nil {
		return h.buyEnded(c, v, err)
	}
	return h.Site.Render(c, http.StatusOK, web.Loc(c).T("staff.counter.title"), components.CounterPay(h.buyCounterView(c, v, o.ToPay())))
}

// takeBuyCounterPay completes a counter sale: the order is completed with the payment taken
// at the counter (CompleteOrder's PaymentInfo with the counter's tender), recorded like any
// purchase, and the confirmation shows the tickets.
func (h *Handler) takeBuyCounterPay(c echo.Context) error {
	user := h.Site.StaffUser(c) // CountersOnly
	v, err := h.requireBuy(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	if rec, busy := h.Visits.BuyPaymentUnderWay(c, v); busy {
		return web.Redirect(c, h.Site.URL("buy.return", rec.ID))
	}
	o, err := h.Ticketing.GetOrder(ctx, v.UserSessionID)
	if err != nil {
		return h.buyEnded(c, v, err)
	}
	due := o.ToPay()
	p, ok, err := h.takeCounterPayment(c, v, o, due, user)
	if !ok {
		return err
	}
	st := h.checkout()
	rec, err := st.store.Create(ctx, purchases.Record{UserSessionID: v.UserSessionID, CinemaID: v.CinemaID, SessionID: v.SessionID,
		CustomerName: v.Name, CustomerEmail: v.Email, AmountCents: due.Cents, Currency: due.Currency, Summary: h.snapshotOf(ctx, v, o, counterPaid(p))})
	if errors.Is(err, purchases.ErrActiveExists) {
		return web.Redirect(c, h.Site.URL("buy.return", rec.ID))
	}
	if err != nil {
		return err
	}
	h.Visits.AddBuyRef(c, rec.ID)
	// The money is in the till: the sale is never cut off halfway by the clerk's browser
	// giving up (a second press, a closed tab), nor its record (visit/moneystep.go).
	dctx, cancel := h.Visits.Detached(ctx)
	defer cancel()
	c.SetRequest(c.Request().WithContext(dctx)) // its audit entry and failure record too
	d, err := h.Ticketing.CompleteOrder(dctx, counterSale(v, due, p))
	if errors.Is(err, upstream.ErrUnavailable) {
		// The answer was lost (a timeout, an outage): the order says whether the sale was
		// made before the clerk is told it failed, with the money taken.
		if od, derr := h.Ticketing.GetOrderDetails(dctx, v.UserSessionID); derr == nil && od.Completed && od.BookingNumber != 0 {
			d, err = od, nil
		}
	}
	if err != nil || !d.Completed {
		return h.counterSaleFailed(c, v, due, p, rec, err)
	}
	if _, err := st.store.MarkCompleted(dctx, rec.ID, d.BookingNumber); err != nil {
		return err
	}
	if h.BoxOffice != nil && due.Cents > 0 {
		// A refund of this booking gives this money back at the box office, never online.
		if err := h.BoxOffice.SetBooking(dctx, p.Reference, v.CinemaID, d.BookingNumber); err != nil {
			web.LoggerFrom(ctx, h.Logger).Error("counter sale's payment not tied to its booking", "booking", d.BookingNumber, "err", err)
		}
	}
	h.Visits.RecordAudit(c, audit.Entry{Action: audit.ActionSale, CinemaID: v.CinemaID, BookingNumber: d.BookingNumber, AmountCents: due.Cents,
		Currency: due.Currency, Detail: fmt.Sprintf("%d tickets, %s, reference %s, sold by %s", v.Places, p.CardType, p.Reference, user)})
	return web.Redirect(c, h.Site.URL("buy.return", rec.ID))
}

// takeCounterPayment reads the counter's payment of due for order o, checks its reference and
// records it at the box office. ok is false when the answer is made (err): the card reader
// takes the payment, or the form comes back with what is wrong.
func (h *Handler) takeCounterPayment(c echo.Context, v visit.Buy, o cinema.Order, due cinema.Money, user string) (p visit.CounterPayment, ok bool, err error) {
	p, problem, err := h.Visits.ReadCounterPayment(c, due)
	if err == nil && p.Method == "reader" && due.Cents > 0 {
		return p, false, h.payBuyOnReader(c, v, o, due, p.Tender, user)
	}
	if err == nil {
		p, problem, err = h.Visits.CheckCounterReference(c, h.Settler, p, settlement.ReferenceUse{Amount: due, CinemaID: v.CinemaID})
	}
	if err == nil && h.BoxOffice != nil && due.Cents > 0 {
		// The reference is the sale's alone; pressing again for this order finds it recorded.
		_, rerr := h.BoxOffice.Record(c.Request().Context(), boxoffice.Payment{Reference: p.Reference, Tender: boxoffice.Tender(p.Method), AmountCents: due.Cents,
			Currency: due.Currency, CinemaID: v.CinemaID, Owner: boxoffice.SaleOwner(v.UserSessionID), Actor: user})
		if refusal, ok := h.Visits.ReferenceRefusal(c, p, rerr); ok {
			p.Field, problem, err = "reference", refusal, visit.ErrBadCounterPayment
		} else if rerr != nil {
			return p, false, rerr
		}
	}
	if err != nil {
		cv, status := visit.CounterForm(h.buyCounterView(c, v, due), p, problem, err)
		return p, false, h.Site.Render(c, status, web.Loc(c).T("staff.counter.title"), components.CounterPay(cv))
	}
	return p, true, nil
}

// counterSale completes the order of v with the payment p of due taken at the counter
// (nothing to pay: no payment).
func counterSale(v visit.Buy, due cinema.Money, p visit.CounterPayment) upstream.CompleteOrderRequest {
	req := upstream.CompleteOrderRequest{UserSessionID: v.UserSessionID, CustomerName: v.Name, CustomerEmail: v.Email,
		BookingMode: upstream.BookingModeSale, PerformPayment: true, GeneratePrintStream: true, ReturnPrintStream: true}
	if due.Cents > 0 {
		req.Payment = &upstream.OrderPayment{AmountCents: due.Cents, TenderCategory: p.Tender, CardNumber: p.Reference, CardType: strings.ToUpper(p.Method)}
	}
	return req
}

// counterSaleFailed records that the ticketing system did not complete the counter sale rec
// (err, or no confirmation) and shows the clerk the form again with the payment as taken.
func (h *Handler) counterSaleFailed(c echo.Context, v visit.Buy, due cinema.Money, p visit.CounterPayment, rec purchases.Record, err error) error {
	ctx := c.Request().Context()
	_, _ = h.checkout().store.MarkStartFailed(ctx, rec.ID, fmt.Sprint("counter sale: ", err))
	if err == nil {
		err = errors.New("the ticketing system did not confirm the sale")
	}
	cv := h.buyCounterView(c, v, due)
	cv.Method, cv.Reference, cv.Given = p.Method, p.Reference, p.Given
	cv.Error, cv.Failed = web.Loc(c).T("staff.counter.sale_failed"), true
	web.LoggerFrom(ctx, h.Logger).Warn("counter sale not completed", "err", err)
	return h.Site.Render(c, http.StatusServiceUnavailable, web.Loc(c).T("staff.counter.title"), components.CounterPay(cv))
}

// counterPaid is what the confirmation says about a payment taken at the counter.
func counterPaid(p visit.CounterPayment) *purchases.SnapshotPaid {
	paid := &purchases.SnapshotPaid{Tender: p.Method, Reference: p.Reference}
	if cents, ok := visit.ParseCashAmount(p.Given); ok && p.Method == "cash" {
		paid.GivenCents = cents
	}
	return paid
}
