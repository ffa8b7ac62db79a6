package checkout

import (
	"errors"
	"net/http"
	"net/url"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/holds"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/purchases"
	"github.com/cinemabff/cinemabff/internal/upstream"
	"github.com/cinemabff/cinemabff/views/pages/checkoutview"
)

// extendBuyHold gives the order a fresh lifetime and returns to the page it came from.
func (h *Handler) extendBuyHold(c echo.Context) error {
	v, err := h.requireBuy(c)
	if err != nil {
		return err
	}
	reset, err := h.Ticketing.ResetOrderExpiry(c.Request().Context(), v.UserSessionID)
	if err != nil {
		return h.buyEnded(c, v, err)
	}
	h.Visits.HoldExtended(c.Request().Context(), v.UserSessionID, reset) // it counts as long as it holds (holds.go)
	h.Site.Flash(c, web.Loc(c).T("checkout.held_longer"))
	back := h.Site.URL("buy.summary")
	if ref, err := url.Parse(c.Request().Referer()); err == nil {
		for _, r := range []string{"buy.seats", "buy.details"} {
			if ref.Path == h.Site.URL(r) {
				back = ref.Path
			}
		}
	}
	return web.Redirect(c, back)
}

// confirmCancelBuy asks before the purchase is cancelled and says what cancelling does.
func (h *Handler) confirmCancelBuy(c echo.Context) error {
	v, err := h.requireBuy(c)
	if err != nil {
		return err
	}
	l := web.Loc(c)
	if rec, busy := h.Visits.BuyPaymentUnderWay(c, v); busy {
		return h.cancelRefusedWhilePaying(l, rec)
	}
	ctx := c.Request().Context()
	view := checkoutview.CancelView{Session: h.buyHeader(ctx, v), ActionURL: h.Site.URL("buy.cancel"), BackURL: h.Site.URL("buy.summary"), CSRFToken: web.CSRFToken(c)}
	if o, err := h.Ticketing.GetOrder(ctx, v.UserSessionID); err == nil {
		o = h.Visits.Named(ctx).Order(o)
		for _, t := range o.Tickets() {
			view.Tickets = append(view.Tickets, checkoutview.Line{Description: t.Description, Seat: seatWords(l, t.Seat), Amount: l.Money(t.FinalPrice)})
		}
	}
	return h.Site.Render(c, http.StatusOK, l.T("checkout.cancel_title"), checkoutview.CancelConfirm(view))
}

func (h *Handler) cancelRefusedWhilePaying(l *i18n.Localizer, rec purchases.Record) error {
	return &web.Error{Code: web.EConflict, Heading: l.T("checkout.payment_started"),
		Message: l.T("checkout.cancel_refused_paying"),
		BackURL: h.Site.URL("buy.return", rec.ID), BackLabel: l.T("checkout.see_payment")}
}

// cancelBuy releases the seats and ends the purchase, once confirmed (confirm=yes; a form
// without it, say an old page, gets the question first). The next page says it was done.
func (h *Handler) cancelBuy(c echo.Context) error {
	v, err := h.requireBuy(c)
	if err != nil {
		return err
	}
	if c.FormValue("confirm") != "yes" {
		return h.confirmCancelBuy(c)
	}
	if rec, busy := h.Visits.BuyPaymentUnderWay(c, v); busy {
		return h.cancelRefusedWhilePaying(web.Loc(c), rec)
	}
	err = h.Ticketing.CancelOrder(c.Request().Context(), v.UserSessionID)
	if err != nil && !errors.Is(err, upstream.ErrNotFound) && !errors.Is(err, upstream.ErrOrderExpired) {
		return h.buyEnded(c, v, err)
	}
	h.Visits.EndHoldFor(c.Request().Context(), v.UserSessionID, holds.ReasonCancelled)
	h.clearBuy(c, v)
	h.Site.Flash(c, web.Loc(c).T("checkout.cancelled"))
	return web.Redirect(c, h.Site.URL("whatson")+"?"+url.Values{"cinema": {v.CinemaID}}.Encode())
}

// buyExpired is where the countdown sends the browser when the hold ends.
func (h *Handler) buyExpired(c echo.Context) error {
	v, err := h.requireBuy(c)
	if err != nil {
		return err
	}
	o, err := h.Ticketing.GetOrder(c.Request().Context(), v.UserSessionID)
	if err == nil && o.Expires.After(h.Now()) {
		return web.Redirect(c, h.Site.URL("buy.summary")) // more time was given meanwhile
	}
	if err == nil {
		err = upstream.ErrOrderExpired
	}
	return h.buyEnded(c, v, err)
}
