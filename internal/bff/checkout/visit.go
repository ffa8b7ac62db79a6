package checkout

import (
	"context"
	"errors"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/bff/visit"
	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/bff/words"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/holds"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/purchases"
	"github.com/cinemabff/cinemabff/internal/upstream"
	"github.com/cinemabff/cinemabff/views/pages/checkoutview"
)

// requireBuy returns the visit's purchase or a clear page saying there is none.
func (h *Handler) requireBuy(c echo.Context) (visit.Buy, error) {
	v, ok := h.Visits.CurrentBuy(c)
	if !ok {
		if err := h.Visits.BoughtAlready(c); err != nil {
			return v, err
		}
		l := web.Loc(c)
		return v, &web.Error{Code: web.EGone, Heading: l.T("checkout.no_selection"), Message: l.T("checkout.no_selection_text"),
			BackURL: h.Site.URL("whatson"), BackLabel: l.T("checkout.see_whatson")}
	}
	return v, nil
}

// buyEnded explains an upstream error on the visit's order; an order that is gone (expired,
// cancelled) also ends the purchase in this visit.
func (h *Handler) buyEnded(c echo.Context, v visit.Buy, err error) error {
	back := h.Site.URL("buy.session", v.CinemaID, v.SessionID)
	l := web.Loc(c)
	switch {
	case errors.Is(err, upstream.ErrOrderExpired), errors.Is(err, upstream.ErrNotFound):
		if rec, lerr := h.checkout().store.Latest(c.Request().Context(), v.UserSessionID); lerr == nil && rec.State == purchases.StateGivenUp {
			// Not "nothing was charged": the order was given up after its payment; its page says
			// what is known and the operator's policy.
			h.Visits.EndHoldFor(c.Request().Context(), v.UserSessionID, holds.ReasonGivenUp)
			h.clearBuy(c, v)
			return web.Redirect(c, h.Site.URL("buy.return", rec.ID))
		}
		h.Visits.EndHoldFor(c.Request().Context(), v.UserSessionID, holds.ReasonExpired) // it holds nothing any more
		h.clearBuy(c, v)
		return &web.Error{Code: web.EGone, Heading: l.T("checkout.time_ran_out"), Message: l.T("checkout.time_ran_out_text"),
			BackURL: back, BackLabel: l.T("checkout.choose_tickets_again"), Err: err}
	case errors.Is(err, upstream.ErrOrderClosed):
		return &web.Error{Code: web.EConflict, Heading: l.T("checkout.payment_started"), Message: l.T("checkout.order_closed"),
			BackURL: h.Site.URL("buy.summary"), BackLabel: l.T("checkout.see_order"), Err: err}
	}
	return h.Visits.FromUpstream(err, back, l.T("checkout.back_to_tickets"))
}

// sessionHeader names the showing, its time in the cinema's own time zone and in the
// request's language.
func (h *Handler) sessionHeader(ctx context.Context, cinemaID, film string, at time.Time, screen string) checkoutview.SessionHeader {
	cin := h.Visits.CinemaByID(ctx, cinemaID)
	hd := checkoutview.SessionHeader{FilmTitle: film, Screen: screen, Cinema: cin.Name}
	hd.Showtime = words.Showtime(i18n.FromContext(ctx), at, cin) // "" when not known
	return hd
}

func (h *Handler) buyHeader(ctx context.Context, v visit.Buy) checkoutview.SessionHeader {
	return h.sessionHeader(ctx, v.CinemaID, v.FilmTitle, v.Showtime, v.Screen)
}

// buyCountdown is the hold countdown of the order.
func (h *Handler) buyCountdown(c echo.Context, v visit.Buy, o cinema.Order) checkoutview.CountdownView {
	cin := h.Visits.CinemaByID(c.Request().Context(), v.CinemaID)
	return checkoutview.CountdownView{
		ExpiresISO:   o.Expires.UTC().Format(time.RFC3339),
		ExpiresLocal: web.Loc(c).Time(o.Expires, cin.Location(), i18n.Clock),
		NowISO:       h.Now().UTC().Format(time.RFC3339),
		ExtendURL:    h.Site.URL("buy.extend"),
		ExpiredURL:   h.Site.URL("buy.expired"),
		CSRFToken:    web.CSRFToken(c),
	}
}

// Tunables of the redirect payment; package variables so tests can shorten them.
var (
	// GiveUpAfter is how long after the return from the provider the landing page
	// waits for IsCompletedOrder before it shows the failed-order path.
	GiveUpAfter = 60 * time.Second
	// Backoff is the minimum time between two upstream order-details reads of one
	// order, by how long it has been watched.
	Backoff = purchases.Backoff
	// WatchEvery is the pause between two background checks of an unconfirmed order,
	// by the time since its payment started. How long the checks go on is
	// Config.OrderWatchFor (-order-watch-for, 24 h); see watch.go.
	WatchEvery = purchases.WatchInterval
)

// checkoutState is the purchase flow's share of the server: the payment records, the
// coalescing poller of order details and the watcher of unconfirmed orders.
type checkoutState struct {
	store  *purchases.Store
	poller *purchases.Poller
	// watcher's Every is WatchEvery when the server was built; per server so a test
	// can give a second server its own.
	watcher *purchases.Watcher
}

// newCheckoutState builds it once, in New.
func (h *Handler) newCheckoutState() *checkoutState {
	opts := []purchases.PollerOption{purchases.WithBackoff(func(age time.Duration) time.Duration { return Backoff(age) }), purchases.WithClock(h.Now)}
	if h.Ticketing != nil {
		opts = append(opts, purchases.WithHealth(h.Ticketing))
	}
	st := &checkoutState{
		store: h.Purchases,
		poller: purchases.NewPoller(func(ctx context.Context, id string) (cinema.OrderDetails, error) {
			return h.Ticketing.GetOrderDetails(ctx, id)
		}, opts...),
	}
	st.watcher = h.newOrderWatcher(st.store, st.poller)
	return st
}

func (h *Handler) checkout() *checkoutState { return h.state }
