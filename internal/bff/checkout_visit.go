package bff

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/checkout"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/holds"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/upstream"
	co "github.com/cinemabff/cinemabff/views/pages/checkout"
)

// Tunables of the redirect payment; package variables so tests can shorten them.
var (
	// checkoutGiveUpAfter is how long after the return from the provider the landing page
	// waits for IsCompletedOrder before it shows the failed-order path.
	checkoutGiveUpAfter = 60 * time.Second
	// checkoutBackoff is the minimum time between two upstream order-details reads of one
	// order, by how long it has been watched.
	checkoutBackoff = checkout.Backoff
	// checkoutWatchEvery is the pause between two background checks of an unconfirmed order,
	// by the time since its payment started. How long the checks go on is
	// Config.OrderWatchFor (-order-watch-for, 24 h); see checkout_stuck.go.
	checkoutWatchEvery = checkout.WatchInterval
	// attentionStuckAfter: an order still unconfirmed this long after its payment started is
	// on staff's Needs attention list.
	attentionStuckAfter = 10 * time.Minute
	// attentionMinAttempts: an unfinished ledger entry is on the list once it failed this often.
	attentionMinAttempts = 3
)

// maxTicketsPerOrder bounds one purchase (the upstream takes at most 40 places per call).
const maxTicketsPerOrder = 10

// Server-session keys of the purchase flow.
const (
	sessBuy       = "buy"        // JSON of buyVisit
	sessBuyRefs   = "buy.refs"   // JSON list of payment record ids this visit may see without a token
	sessBuyNotice = "buy.notice" // one-shot warning for the summary (payment declined or cancelled)
)

// checkoutState is the purchase flow's share of the server: the payment records, the
// coalescing poller of order details and the watcher of unconfirmed orders.
type checkoutState struct {
	store  *checkout.Store
	poller *checkout.Poller
	// watcher's Every is checkoutWatchEvery when the server was built; per server so a test
	// can give a second server its own.
	watcher *checkout.Watcher
}

// newCheckoutState builds it once, in New.
func (s *Server) newCheckoutState() *checkoutState {
	st := &checkoutState{
		store: checkout.NewStore(s.sql, s.Now),
		poller: checkout.NewPoller(func(ctx context.Context, id string) (cinema.OrderDetails, error) {
			return s.Ticketing.GetOrderDetails(ctx, id)
		}, checkout.WithBackoff(func(age time.Duration) time.Duration { return checkoutBackoff(age) }), checkout.WithClock(s.Now)),
	}
	st.watcher = s.newOrderWatcher(st.store, st.poller)
	return st
}

func (s *Server) checkout() *checkoutState { return s.checkoutState }

// buyVisit is the purchase in progress, kept only in the server session: the upstream's
// userSessionId never reaches the browser.
type buyVisit struct {
	UserSessionID string    `json:"usid"`
	CinemaID      string    `json:"cinema"`
	SessionID     string    `json:"session"`
	FilmTitle     string    `json:"film"`
	Showtime      time.Time `json:"showtime"`
	Screen        string    `json:"screen"`
	Places        int       `json:"places"` // seats the tickets need
	Name          string    `json:"name,omitempty"`
	Email         string    `json:"email,omitempty"`
	Started       time.Time `json:"started"`
}

// The visit's purchase in progress, and the payment records it may see.
var (
	buyInSession     = web.SessionValue[buyVisit]{Key: sessBuy}
	buyRefsInSession = web.SessionValue[[]string]{Key: sessBuyRefs}
)

func (s *Server) currentBuy(c echo.Context) (buyVisit, bool) {
	v, ok := buyInSession.Get(c.Request().Context(), s.Sessions)
	if !ok || v.UserSessionID == "" {
		return buyVisit{}, false
	}
	return v, true
}

func (s *Server) saveBuy(c echo.Context, v buyVisit) {
	buyInSession.Put(c.Request().Context(), s.Sessions, v)
	s.Sessions.Remove(c.Request().Context(), sessBuyDone) // a new purchase: the last one is no longer "this step"
}

func (s *Server) clearBuy(c echo.Context) {
	buyInSession.Remove(c.Request().Context(), s.Sessions)
}

// buyRefs are the payment records this visit started or proved (by the token) it may see.
func (s *Server) buyRefs(c echo.Context) []string {
	refs, _ := buyRefsInSession.Get(c.Request().Context(), s.Sessions)
	return refs
}

func (s *Server) addBuyRef(c echo.Context, ref string) {
	refs := s.buyRefs(c)
	if slices.Contains(refs, ref) {
		return
	}
	refs = append(refs, ref)
	if len(refs) > 10 {
		refs = refs[len(refs)-10:]
	}
	buyRefsInSession.Put(c.Request().Context(), s.Sessions, refs)
}

// requireBuy returns the visit's purchase or a clear page saying there is none.
func (s *Server) requireBuy(c echo.Context) (buyVisit, error) {
	v, ok := s.currentBuy(c)
	if !ok {
		if err := s.boughtAlready(c); err != nil {
			return v, err
		}
		l := web.Loc(c)
		return v, &web.Error{Code: web.EGone, Heading: l.T("checkout.no_selection"), Message: l.T("checkout.no_selection_text"),
			BackURL: s.URL(web.RouteWhatsOn), BackLabel: l.T("checkout.see_whatson")}
	}
	return v, nil
}

// buyEnded explains an upstream error on the visit's order; an order that is gone (expired,
// cancelled) also ends the purchase in this visit.
func (s *Server) buyEnded(c echo.Context, v buyVisit, err error) error {
	back := s.URL(web.RouteBuySession, v.CinemaID, v.SessionID)
	l := web.Loc(c)
	switch {
	case errors.Is(err, upstream.ErrOrderExpired), errors.Is(err, upstream.ErrNotFound):
		if rec, lerr := s.checkout().store.Latest(c.Request().Context(), v.UserSessionID); lerr == nil && rec.State == checkout.StateGivenUp {
			// Not "nothing was charged": the order was given up after its payment; its page says
			// what is known and the operator's policy.
			s.endHoldFor(c.Request().Context(), v.UserSessionID, holds.ReasonGivenUp)
			s.clearBuy(c)
			return s.Redirect(c, s.URL(web.RouteBuyReturn, rec.ID))
		}
		s.endHoldFor(c.Request().Context(), v.UserSessionID, holds.ReasonExpired) // it holds nothing any more
		s.clearBuy(c)
		return &web.Error{Code: web.EGone, Heading: l.T("checkout.time_ran_out"), Message: l.T("checkout.time_ran_out_text"),
			BackURL: back, BackLabel: l.T("checkout.choose_tickets_again"), Err: err}
	case errors.Is(err, upstream.ErrOrderClosed):
		return &web.Error{Code: web.EConflict, Heading: l.T("checkout.payment_started"), Message: l.T("checkout.order_closed"),
			BackURL: s.URL(web.RouteBuySummary), BackLabel: l.T("checkout.see_order"), Err: err}
	}
	return s.FromUpstream(err, back, l.T("checkout.back_to_tickets"))
}

// sessionHeader names the showing, its time in the cinema's own time zone and in the
// request's language.
func (s *Server) sessionHeader(ctx context.Context, cinemaID, film string, at time.Time, screen string) co.SessionHeader {
	cin := s.CinemaByID(ctx, cinemaID)
	h := co.SessionHeader{FilmTitle: film, Screen: screen, Cinema: cin.Name}
	if !at.IsZero() {
		h.Showtime = i18n.FromContext(ctx).Time(at, cin.Location(), i18n.DateTimeLong)
	}
	return h
}

func (s *Server) buyHeader(ctx context.Context, v buyVisit) co.SessionHeader {
	return s.sessionHeader(ctx, v.CinemaID, v.FilmTitle, v.Showtime, v.Screen)
}

// buyCountdown is the hold countdown of the order.
func (s *Server) buyCountdown(c echo.Context, v buyVisit, o cinema.Order) co.CountdownView {
	cin := s.CinemaByID(c.Request().Context(), v.CinemaID)
	return co.CountdownView{
		ExpiresISO:   o.Expires.UTC().Format(time.RFC3339),
		ExpiresLocal: web.Loc(c).Time(o.Expires, cin.Location(), i18n.Clock),
		NowISO:       s.Now().UTC().Format(time.RFC3339),
		ExtendURL:    s.URL(web.RouteBuyExtend),
		ExpiredURL:   s.URL(web.RouteBuyExpired),
		CSRFToken:    web.CSRFToken(c),
	}
}
