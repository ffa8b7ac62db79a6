package bff

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/upstream"
	"github.com/cinemabff/cinemabff/views/components"
	co "github.com/cinemabff/cinemabff/views/pages/checkout"
)

// whatsOnDays is how many days (today included) the listing offers.
const whatsOnDays = 4

// showWhatsOn lists the films and sessions of a cinema on one day.
func (s *Server) showWhatsOn(c echo.Context) error {
	ctx := c.Request().Context()
	cinemas, err := s.cinemas(ctx)
	if err != nil {
		return s.fromUpstream(err, s.url(RouteHome), "Back to the start")
	}
	if len(cinemas) == 0 {
		return &Error{Code: EUnavailable, Heading: "Nothing to show", Message: "No cinema is open for online sales just now."}
	}
	var notice *components.Notice
	cin := cinemas[0]
	if id := c.QueryParam("cinema"); id != "" {
		found := false
		for _, x := range cinemas {
			if x.ID == id {
				cin, found = x, true
			}
		}
		if !found {
			notice = &components.Notice{Kind: components.NoticeWarning, Heading: "We do not know that cinema", Body: "Here is what's on at " + cin.Name + "."}
		}
	}
	loc := cin.Location()
	today := s.now().In(loc)
	today = time.Date(today.Year(), today.Month(), today.Day(), 0, 0, 0, 0, loc)
	day := today
	if d := c.QueryParam("day"); d != "" {
		parsed, err := time.ParseInLocation("2006-01-02", d, loc)
		if err != nil || parsed.Before(today) || !parsed.Before(today.AddDate(0, 0, whatsOnDays)) {
			notice = &components.Notice{Kind: components.NoticeWarning, Heading: "Please choose one of the days below", Body: "We sell tickets for today and the next few days. Here is today's programme."}
		} else {
			day = parsed
		}
	}
	if msg := s.popFlash(c); msg != "" && notice == nil {
		notice = &components.Notice{Kind: components.NoticeSuccess, Heading: msg} // e.g. a cancelled purchase
	}
	sessions, films, err := s.ticketing.ListSessionsWithFilms(ctx, cin.ID, day.Format("2006-01-02"))
	if err != nil {
		return s.fromUpstream(err, s.url(RouteHome), "Back to the start")
	}
	v := co.WhatsOnView{ActionURL: s.url(RouteWhatsOn), CinemaName: cin.Name, DayLabel: dayLabel(day, today), Notice: notice}
	for _, x := range cinemas {
		v.Cinemas = append(v.Cinemas, co.Option{Value: x.ID, Label: x.Name, Selected: x.ID == cin.ID})
	}
	for i := 0; i < whatsOnDays; i++ {
		d := today.AddDate(0, 0, i)
		q := url.Values{"cinema": {cin.ID}, "day": {d.Format("2006-01-02")}}
		v.Days = append(v.Days, co.Option{Label: dayLabel(d, today), URL: s.url(RouteWhatsOn) + "?" + q.Encode(), Selected: d.Equal(day)})
	}
	byFilm := map[string]*co.FilmSessions{}
	var order []string
	sort.Slice(sessions, func(i, j int) bool { return sessions[i].Showtime.Before(sessions[j].Showtime) })
	for _, se := range sessions {
		if se.Showtime.Before(s.now()) || !se.OnSale {
			continue // started already, or the cinema does not sell it online
		}
		f := byFilm[se.FilmID]
		if f == nil {
			f = &co.FilmSessions{Title: se.FilmTitle}
			for _, fl := range films {
				if fl.ID == se.FilmID {
					f.Title, f.Rating, f.Synopsis = fl.Title, fl.Rating, fl.Synopsis
					if fl.RunTime > 0 {
						f.RunTime = fmt.Sprintf("%d min", int(fl.RunTime.Minutes()))
					}
				}
			}
			byFilm[se.FilmID] = f
			order = append(order, se.FilmID)
		}
		f.Sessions = append(f.Sessions, co.SessionLink{
			Time: se.Showtime.In(loc).Format("15:04"), DateTime: se.Showtime.UTC().Format(time.RFC3339),
			Screen: se.ScreenName, Available: fmt.Sprintf("%d seats free", se.SeatsAvailable),
			URL: s.url(RouteBuySession, cin.ID, se.SessionID), SoldOut: se.SeatsAvailable <= 0,
		})
	}
	for _, id := range order {
		v.Films = append(v.Films, *byFilm[id])
	}
	return s.render(c, http.StatusOK, "What's on", co.WhatsOn(v))
}

func dayLabel(d, today time.Time) string {
	switch {
	case d.Equal(today):
		return "Today"
	case d.Equal(today.AddDate(0, 0, 1)):
		return "Tomorrow"
	}
	return d.Format("Mon 2 Jan")
}

// findSession looks a session of a cinema up by its id.
func (s *Server) findSession(c echo.Context, cinemaID, sessionID string) (cinema.Session, error) {
	notFound := &Error{Code: ENotFound, Heading: "Showing not found", Message: "We could not find this showing. It may have started or been taken off the programme.",
		BackURL: s.url(RouteWhatsOn), BackLabel: "See what's on"}
	if cinemaID == "" || sessionID == "" || len(cinemaID) > 20 || len(sessionID) > 41 {
		return cinema.Session{}, notFound
	}
	sessionID = upstream.SplitSessionID(cinemaID, sessionID) // "1001" or the listing's "0001-1001"
	list, err := s.ticketing.ListSessions(c.Request().Context(), cinemaID, "")
	if errors.Is(err, upstream.ErrNotFound) || errors.Is(err, upstream.ErrInvalidRequest) {
		return cinema.Session{}, notFound
	}
	if err != nil {
		return cinema.Session{}, s.fromUpstream(err, s.url(RouteWhatsOn), "See what's on")
	}
	for _, se := range list {
		if se.SessionID == sessionID {
			if se.Showtime.Before(s.now()) {
				return se, &Error{Code: EGone, Heading: "This showing has started", Message: "Tickets for this showing can no longer be bought online.", BackURL: s.url(RouteWhatsOn), BackLabel: "See what's on"}
			}
			return se, nil
		}
	}
	return cinema.Session{}, notFound
}

// buyableTypes are the ticket types sold online for the session: no loyalty, voucher or
// partner tickets (those need a check at the counter), only the session's seating areas.
func buyableTypes(types []cinema.TicketType, se cinema.Session) []cinema.TicketType {
	var out []cinema.TicketType
	for _, t := range types {
		if t.IsLoyalty || t.IsVoucher || t.IsThirdParty {
			continue
		}
		if len(se.AreaCategoryCodes) > 0 && t.AreaCategoryCode != "" && !containsString(se.AreaCategoryCodes, t.AreaCategoryCode) {
			continue
		}
		out = append(out, t)
	}
	return out
}

func containsString(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

func places(t cinema.TicketType) int {
	if t.PackageSize > 1 {
		return t.PackageSize
	}
	return 1
}

// showTickets is the first step: ticket types with prices and quantities.
func (s *Server) showTickets(c echo.Context) error {
	return s.renderTickets(c, http.StatusOK, nil, nil, nil)
}

func (s *Server) renderTickets(c echo.Context, status int, notice *components.Notice, typed map[string]string, invalid map[string]bool) error {
	ctx := c.Request().Context()
	se, err := s.findSession(c, c.Param("cinema"), c.Param("session"))
	if err != nil {
		return err
	}
	types, err := s.ticketing.GetTicketTypes(ctx, se.CinemaID, se.SessionID, "")
	if err != nil {
		return s.fromUpstream(err, s.url(RouteWhatsOn), "See what's on")
	}
	cin := s.cinemaByID(ctx, se.CinemaID)
	v := co.TicketsView{Session: s.sessionHeader(ctx, se.CinemaID, se.FilmTitle, se.Showtime, se.ScreenName),
		ActionURL: s.url(RouteBuySession, se.CinemaID, se.SessionID), BackURL: s.url(RouteWhatsOn) + "?" + url.Values{"cinema": {se.CinemaID}}.Encode(),
		CSRFToken: csrfToken(c), Notice: notice, MaxTotal: s.seatsPerOrder(c)}
	for _, t := range buyableTypes(types, se) {
		row := co.TicketTypeRow{Code: t.Code, Description: t.Description, Price: t.Price.Format(cin.Locale), Qty: "0", Invalid: invalid[t.Code]}
		switch {
		case t.IsPackage || t.PackageSize > 1:
			row.Detail = fmt.Sprintf("package of %d", places(t))
		case t.LongDescription != "":
			row.Detail = t.LongDescription
		}
		if q, ok := typed[t.Code]; ok {
			row.Qty = q
		}
		v.Types = append(v.Types, row)
	}
	return s.render(c, status, "Choose tickets", co.Tickets(v))
}

// chooseTickets starts the order with the chosen tickets; the upstream picks the best seats
// together, which the next step shows and lets the person change.
func (s *Server) chooseTickets(c echo.Context) error {
	ctx := c.Request().Context()
	se, err := s.findSession(c, c.Param("cinema"), c.Param("session"))
	if err != nil {
		return err
	}
	types, err := s.ticketing.GetTicketTypes(ctx, se.CinemaID, se.SessionID, "")
	if err != nil {
		return s.fromUpstream(err, s.url(RouteWhatsOn), "See what's on")
	}
	typed, invalid := map[string]string{}, map[string]bool{}
	var req []upstream.TicketRequest
	total, bad := 0, false
	for _, t := range buyableTypes(types, se) {
		raw := strings.TrimSpace(c.FormValue("qty-" + t.Code))
		typed[t.Code] = raw
		if raw == "" {
			continue
		}
		n, err := strconv.Atoi(raw)
		if err != nil || n < 0 || n > maxTicketsPerOrder {
			invalid[t.Code], bad = true, true
			continue
		}
		if n > 0 {
			req = append(req, upstream.TicketRequest{TypeCode: t.Code, Qty: n})
			total += n * places(t)
		}
	}
	switch {
	case bad:
		return s.renderTickets(c, http.StatusUnprocessableEntity, &components.Notice{Kind: components.NoticeError, Heading: "Please check the numbers",
			Body: fmt.Sprintf("Each quantity must be a whole number from 0 to %d.", maxTicketsPerOrder)}, typed, invalid)
	case total == 0:
		return s.renderTickets(c, http.StatusUnprocessableEntity, &components.Notice{Kind: components.NoticeError, Heading: "Please choose at least one ticket"}, typed, invalid)
	case total > s.seatsPerOrder(c):
		return s.renderTickets(c, http.StatusUnprocessableEntity, s.tooManySeatsNotice(c, total), typed, invalid)
	}
	// Seat hoarding (holds.go): with what else the visit holds, before the upstream is asked.
	if done, err := s.refuseVisitSeats(c, seatStepTickets, total, nil, s.url(RouteBuySession, se.CinemaID, se.SessionID)); done {
		return err
	}
	prev, hadPrev := s.currentBuy(c)
	if hadPrev {
		if rec, err := s.checkout().store.Active(ctx, prev.UserSessionID); err == nil {
			return &Error{Code: EConflict, Heading: "Your payment has already started",
				Message: "A payment for your earlier choice is under way. Finish or cancel it on the payment page before choosing new tickets.",
				BackURL: s.url(RouteBuyReturn, rec.ID), BackLabel: "See that payment"}
		}
	}
	usid := upstream.NewUserSessionID()
	// The open orders of this client address (holds.go), the visit's earlier one not counted.
	if done, err := s.openPurchaseHold(c, usid, total, prev.UserSessionID, s.url(RouteBuySession, se.CinemaID, se.SessionID)); done {
		return err
	}
	if hadPrev {
		// One open order per visit: the earlier choice is released before the new one is made.
		if err := s.releaseReplacedOrder(c, prev); err != nil {
			s.dropHold(ctx, usid)
			return err
		}
	}
	o, err := s.ticketing.AddTickets(ctx, upstream.AddTicketsRequest{UserSessionID: usid, CinemaID: se.CinemaID, SessionID: se.SessionID, Tickets: req})
	if err != nil {
		s.dropHold(ctx, usid) // nothing is held
	}
	switch {
	case errors.Is(err, upstream.ErrSeatsUnavailable):
		return s.renderTickets(c, http.StatusConflict, &components.Notice{Kind: components.NoticeError, Heading: "Not enough seats free",
			Body: "There are not enough free seats for these tickets in this showing. Please choose fewer tickets or another showing."}, typed, invalid)
	case err != nil:
		return s.fromUpstream(err, s.url(RouteBuySession, se.CinemaID, se.SessionID), "Back to the tickets")
	}
	s.holdStarted(ctx, usid, o)
	v := buyVisit{UserSessionID: usid, CinemaID: se.CinemaID, SessionID: se.SessionID, FilmTitle: se.FilmTitle, Showtime: se.Showtime,
		Screen: se.ScreenName, Places: total, Name: prev.Name, Email: prev.Email, Started: s.now()}
	s.saveBuy(c, v)
	// An order is now bound to this visit: a privilege change, so a new session token.
	if err := s.renewSession(c); err != nil {
		return err
	}
	return s.redirect(c, s.url(RouteBuySeats))
}
