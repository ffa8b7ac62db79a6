package checkout

import (
	"net/http"
	"net/url"
	"time"

	"github.com/cinemabff/cinemabff/internal/admission"
	"github.com/cinemabff/cinemabff/internal/bff/visit"
	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/bff/words"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/upstream"
	"github.com/cinemabff/cinemabff/views/pages/checkoutview"
	"github.com/labstack/echo/v4"
)

// sessVisitID is the visit's own id in its server session: its place in line is kept by it,
// since the session's token changes when an order is bound to the visit and this id does not.
const sessVisitID = "admission.visit"

// linePoll marks the queue page's own poll of the ticket step (pollParam=linePoll): when it is
// the visitor's turn, the whole page is sent on.
const (
	pollParam = "line"
	linePoll  = "poll"
)

// lineShow is a showtime's line in the admission line.
func lineShow(cinemaID, sessionID string) string { return cinemaID + "-" + sessionID }

// lineVisitor is who the visit is in line: its own id (made now when it has none and create is
// set) and the client key of the rate limits, so many visits of one client share one place.
func (h *Handler) lineVisitor(c echo.Context, create bool) admission.Visitor {
	ctx := c.Request().Context()
	id := h.Sessions.GetString(ctx, sessVisitID)
	if id == "" && create {
		id = admission.NewVisitID()
		h.Sessions.Put(ctx, sessVisitID, id)
	}
	return admission.Visitor{Visit: id, Client: web.ClientKey(c)}
}

// waitInLine puts a web customer starting a purchase of se into its line: when it is not
// their turn (or sales have not opened) the answer is the queue page and done is true. Staff at
// the counter and kiosks go straight in.
func (h *Handler) waitInLine(c echo.Context, se cinema.Session) (done bool, err error) {
	if h.Admission == nil || h.Site.StaffUser(c) != "" || web.IsKiosk(c) {
		return false, nil
	}
	ctx := c.Request().Context()
	st, err := h.Admission.Enter(ctx, lineShow(se.CinemaID, se.SessionID), h.SalesOpen.Of(se.CinemaID, se.SessionID), h.lineVisitor(c, true))
	if err != nil {
		// The ticketing system's own limits still hold; a line that cannot be read must not
		// stop every sale.
		web.LoggerFrom(ctx, h.Logger).Warn("admission line unavailable: visitor let in", "session", se.SessionID, "err", err)
		return false, nil
	}
	polled := web.IsHTMX(c) && c.QueryParam(pollParam) == linePoll
	if st.State == admission.Admitted {
		if polled {
			c.Response().Header().Set("HX-Refresh", "true")
			return true, c.NoContent(http.StatusNoContent)
		}
		return false, nil
	}
	v := h.queueView(c, se, st)
	if polled {
		return true, h.Site.Fragment(c, http.StatusOK, checkoutview.QueueStatus(v))
	}
	title := web.Loc(c).T("checkout.line_title")
	if v.BeforeOpening {
		title = web.Loc(c).T("checkout.opening_title")
	}
	return true, h.Site.Render(c, http.StatusOK, title, checkoutview.Queue(v))
}

// queueView is the queue page of se for a visitor at st.
func (h *Handler) queueView(c echo.Context, se cinema.Session, st admission.Status) checkoutview.QueueView {
	ctx := c.Request().Context()
	l := web.Loc(c)
	v := checkoutview.QueueView{Session: h.sessionHeader(ctx, se.CinemaID, se.FilmTitle, se.Showtime, se.ScreenName),
		BeforeOpening: st.State == admission.BeforeOpening, Place: st.Place,
		PollURL:  h.Site.URL("buy.session", se.CinemaID, se.SessionID) + "?" + url.Values{pollParam: {linePoll}}.Encode(),
		LeaveURL: h.Site.URL("buy.leave", se.CinemaID, se.SessionID), CSRFToken: web.CSRFToken(c)}
	if st.Wait > 0 {
		v.Wait = words.Cutoff(l, (st.Wait+time.Minute-1)/time.Minute*time.Minute) // "about 3 minutes", never "0"
	}
	if v.BeforeOpening {
		v.Opens = words.Showtime(l, st.Opens, h.Visits.CinemaByID(ctx, se.CinemaID))
		v.OpensIn = words.Cutoff(l, max(st.Opens.Sub(h.Now()).Round(time.Second), time.Second))
	}
	v.Refresh = refreshSeconds(st, h.Now())
	return v
}

// refreshSeconds is how soon a visitor's page asks again: about half the time until its
// turn (or the opening), between 1 and 10 s. A turn is taken only when its visitor asks, and
// one nobody asks for is not kept for later (that would let more purchases through at once
// than the rate allows); so the visitor whose turn comes asks just then, and those far back
// in line do not ask every second. A wait that depends on purchases ending is asked every 5 s.
func refreshSeconds(st admission.Status, now time.Time) int {
	until := st.Wait
	switch {
	case st.State == admission.BeforeOpening:
		until = st.Opens.Sub(now)
	case until <= 0:
		return 5
	}
	return int(min(max(until/2/time.Second, 1), 10))
}

// leaveLine gives the visitor's place in a showtime's line up.
func (h *Handler) leaveLine(c echo.Context) error {
	cinemaID, sessionID := c.Param("cinema"), c.Param("session")
	if h.Admission != nil && cinemaID != "" && len(cinemaID) <= 20 && len(sessionID) <= 41 {
		show := lineShow(cinemaID, upstream.SplitSessionID(cinemaID, sessionID))
		if err := h.Admission.Leave(c.Request().Context(), show, h.lineVisitor(c, false)); err != nil {
			// The line does not answer: the place is given up all the same once nobody asks
			// about it (Options.Abandoned), so the visitor's leaving still holds.
			web.LoggerFrom(c.Request().Context(), h.Logger).Warn("admission place not given up: it lapses", "session", sessionID, "err", err)
		}
	}
	h.Site.Flash(c, web.Loc(c).T("checkout.line_left"))
	return web.Redirect(c, h.Site.URL("whatson")+"?"+url.Values{"cinema": {cinemaID}}.Encode())
}

// clearBuy ends the visit's purchase v (bought, cancelled, expired, given up) and with it its
// admission: the next purchase waits its turn again.
func (h *Handler) clearBuy(c echo.Context, v visit.Buy) {
	h.Visits.ClearBuy(c)
	h.endAdmission(c, v)
}

// endAdmission ends the admission of the visit's purchase v (it ended, or another showtime's
// replaced it), so its room goes to the next in line.
func (h *Handler) endAdmission(c echo.Context, v visit.Buy) {
	if h.Admission == nil {
		return
	}
	ctx := c.Request().Context()
	if err := h.Admission.Leave(ctx, lineShow(v.CinemaID, v.SessionID), h.lineVisitor(c, false)); err != nil {
		web.LoggerFrom(ctx, h.Logger).Warn("admission not ended: it ends with its lifetime", "session", v.SessionID, "err", err)
	}
}
