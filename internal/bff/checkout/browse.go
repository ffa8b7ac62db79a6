package checkout

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/bff/visit"
	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/bff/words"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/names"
	"github.com/cinemabff/cinemabff/internal/upstream"
	"github.com/cinemabff/cinemabff/views/components"
	"github.com/cinemabff/cinemabff/views/pages/checkoutview"
)

// whatsOnDays is how many days (today included) the listing offers.
const whatsOnDays = 4

// firstDayWithShows is the day What's on opens at: today, or, once today's last show has
// begun (in the small hours the evening before is still "today"), the first of the days it
// offers with a show still to come on sale.
func firstDayWithShows(sessionsOn func(day string) []cinema.Session, today, now time.Time) time.Time {
	for i := range whatsOnDays {
		d := today.AddDate(0, 0, i)
		for _, se := range sessionsOn(d.Format("2006-01-02")) {
			if !se.Showtime.Before(now) && se.OnSale {
				return d
			}
		}
	}
	return today
}

// showWhatsOn lists the films and sessions of a cinema on one day.
func (h *Handler) showWhatsOn(c echo.Context) error {
	ctx := c.Request().Context()
	l := web.Loc(c)
	cinemas, err := h.Visits.Cinemas(ctx)
	if err != nil {
		return h.Visits.FromUpstream(err, h.Site.URL("home"), l.T("checkout.back_to_start"))
	}
	if len(cinemas) == 0 {
		return &web.Error{Code: web.EUnavailable, Heading: l.T("checkout.whatson_no_cinema_heading"), Message: l.T("checkout.whatson_no_cinema")}
	}
	var notice *components.Notice
	cin := cinemas[0]
	here := web.DeviceOf(c).CinemaID // an enrolled counter's or kiosk's own cinema
	fixed := false
	for _, x := range cinemas {
		if here != "" && x.ID == here {
			cin, fixed = x, web.IsKiosk(c) // a kiosk shows its own cinema only
		}
	}
	if id := c.QueryParam("cinema"); id != "" && !fixed {
		found := false
		for _, x := range cinemas {
			if x.ID == id {
				cin, found = x, true
			}
		}
		if !found {
			notice = &components.Notice{Kind: components.NoticeWarning, Heading: l.T("checkout.whatson_unknown_cinema"), Body: l.T("checkout.whatson_here_is", "Cinema", cin.Name)}
		}
	}
	tz := cin.Location()
	// Until the night ends, today is the evening whose late shows are still to come.
	today, _ := cinema.Evening(h.Now(), tz)
	day := today
	if d := c.QueryParam("day"); d != "" {
		parsed, err := time.ParseInLocation("2006-01-02", d, tz)
		if err != nil || parsed.Before(today) || !parsed.Before(today.AddDate(0, 0, whatsOnDays)) {
			notice = &components.Notice{Kind: components.NoticeWarning, Heading: l.T("checkout.whatson_choose_day"), Body: l.T("checkout.whatson_days_sold")}
		} else {
			day = parsed
		}
	}
	if msg := h.Site.PopFlash(c); msg != "" && notice == nil {
		notice = &components.Notice{Kind: components.NoticeSuccess, Heading: msg} // e.g. a cancelled purchase
	}
	// The cinema's listing is shared by every visitor and every day (internal/listings): no
	// read of the ticketing system per view.
	listing, err := h.Listings.Listing(ctx, cin.ID)
	if err != nil {
		return h.Visits.FromUpstream(err, h.Site.URL("home"), l.T("checkout.back_to_start"))
	}
	if c.QueryParam("day") == "" {
		day = firstDayWithShows(listing.Day, today, h.Now())
	}
	sessions, films := listing.Day(day.Format("2006-01-02")), listing.Films
	v := checkoutview.WhatsOnView{ActionURL: h.Site.URL("whatson"), CinemaName: cin.Name, DayLabel: l.Day(day, today, tz, i18n.DayShort), Notice: notice}
	if listing.Outdated() {
		v.AsOf = &components.Notice{Kind: components.NoticeWarning, Heading: l.T("checkout.whatson_as_of", "Time", l.Time(listing.AsOf, tz, i18n.Clock)),
			Body: l.T("checkout.whatson_as_of_text")}
	}
	for _, x := range cinemas {
		if !fixed {
			v.Cinemas = append(v.Cinemas, checkoutview.Option{Value: x.ID, Label: x.Name, Selected: x.ID == cin.ID})
		}
	}
	v.Counter = h.Site.AtCounter(c)
	for i := 0; i < whatsOnDays; i++ {
		d := today.AddDate(0, 0, i)
		q := url.Values{"cinema": {cin.ID}, "day": {d.Format("2006-01-02")}}
		v.Days = append(v.Days, checkoutview.Option{Label: l.Day(d, today, tz, i18n.DayShort), URL: h.Site.URL("whatson") + "?" + q.Encode(), Selected: d.Equal(day)})
	}
	byFilm := map[string]*checkoutview.FilmSessions{}
	var order []string
	// sessions are in show-time order (the listing keeps them so) and shared: not sorted here
	for _, se := range sessions {
		if se.Showtime.Before(h.Now()) || !se.OnSale {
			continue // started already, or the cinema does not sell it online
		}
		f := byFilm[se.FilmID]
		if f == nil {
			f = &checkoutview.FilmSessions{Title: se.FilmTitle}
			for _, fl := range films {
				if fl.ID == se.FilmID {
					f.Title, f.Rating, f.Synopsis = fl.Title, ratingWords(l, h.Visits.Named(ctx), se.CinemaID, fl.Rating), fl.Synopsis
					if fl.RunTime > 0 {
						f.RunTime = l.T("checkout.run_time", "Minutes", int(fl.RunTime.Minutes()))
					}
				}
			}
			byFilm[se.FilmID] = f
			order = append(order, se.FilmID)
		}
		f.Sessions = append(f.Sessions, checkoutview.SessionLink{
			Time: words.ShowClock(l, se.Showtime, tz, day), DateTime: se.Showtime.UTC().Format(time.RFC3339),
			Screen: se.ScreenName, Available: l.N("checkout.seats_free", se.SeatsAvailable),
			URL: h.Site.URL("buy.session", cin.ID, se.SessionID), SoldOut: se.SeatsAvailable <= 0,
		})
	}
	key := 0
	for _, id := range order {
		f := *byFilm[id]
		for i := range f.Sessions {
			if key < 9 && !f.Sessions[i].SoldOut && v.Counter {
				key++ // the counter's number keys open the first nine showtimes
				f.Sessions[i].Key = strconv.Itoa(key)
			}
		}
		v.Films = append(v.Films, f)
	}
	return h.Site.Render(c, http.StatusOK, l.T("checkout.whatson_title"), checkoutview.WhatsOn(v))
}

// findSession looks a session of a cinema up by its id.
func (h *Handler) findSession(c echo.Context, cinemaID, sessionID string) (cinema.Session, error) {
	l := web.Loc(c)
	notFound := &web.Error{Code: web.ENotFound, Heading: l.T("checkout.showing_not_found"), Message: l.T("checkout.showing_not_found_text"),
		BackURL: h.Site.URL("whatson"), BackLabel: l.T("checkout.see_whatson")}
	if cinemaID == "" || sessionID == "" || len(cinemaID) > 20 || len(sessionID) > 41 {
		return cinema.Session{}, notFound
	}
	sessionID = upstream.SplitSessionID(cinemaID, sessionID) // "1001" or the listing's "0001-1001"
	// From the shared listing (internal/listings): no read of the ticketing system per view.
	se, err := h.Listings.FindSession(c.Request().Context(), cinemaID, sessionID)
	if errors.Is(err, upstream.ErrNotFound) || errors.Is(err, upstream.ErrInvalidRequest) {
		return cinema.Session{}, notFound
	}
	if err != nil {
		return cinema.Session{}, h.Visits.FromUpstream(err, h.Site.URL("whatson"), l.T("checkout.see_whatson"))
	}
	if se.SessionID != sessionID {
		return cinema.Session{}, notFound
	}
	if se.Showtime.Before(h.Now()) {
		return se, &web.Error{Code: web.EGone, Heading: l.T("checkout.showing_started"), Message: l.T("checkout.showing_started_text"), BackURL: h.Site.URL("whatson"), BackLabel: l.T("checkout.see_whatson")}
	}
	return se, nil
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
func (h *Handler) showTickets(c echo.Context) error {
	return h.renderTickets(c, http.StatusOK, nil, nil, nil)
}

func (h *Handler) renderTickets(c echo.Context, status int, notice *components.Notice, typed map[string]string, invalid map[string]bool) error {
	ctx := c.Request().Context()
	l := web.Loc(c)
	se, err := h.findSession(c, c.Param("cinema"), c.Param("session"))
	if err != nil {
		return err
	}
	types, err := h.Visits.SessionTicketTypes(ctx, se.CinemaID, se.SessionID)
	if err != nil {
		return h.Visits.FromUpstream(err, h.Site.URL("whatson"), l.T("checkout.see_whatson"))
	}
	types = h.Visits.Named(ctx).TicketTypes(se.CinemaID, types)
	v := checkoutview.TicketsView{Session: h.sessionHeader(ctx, se.CinemaID, se.FilmTitle, se.Showtime, se.ScreenName),
		ActionURL: h.Site.URL("buy.session", se.CinemaID, se.SessionID), BackURL: h.Site.URL("whatson") + "?" + url.Values{"cinema": {se.CinemaID}}.Encode(),
		CSRFToken: web.CSRFToken(c), Notice: notice, MaxTotal: h.Visits.SeatsPerOrder(c), Counter: h.Site.AtCounter(c)}
	for _, t := range buyableTypes(types, se) {
		row := checkoutview.TicketTypeRow{Code: t.Code, Description: t.Description, Price: l.Money(t.Price), PriceCents: t.Price.Cents,
			Currency: t.Price.Currency, Qty: "0", Invalid: invalid[t.Code]}
		switch {
		case t.IsPackage || t.PackageSize > 1:
			row.Detail = l.T("checkout.package_of", "Count", places(t))
		case t.LongDescription != "":
			row.Detail = t.LongDescription
		}
		if q, ok := typed[t.Code]; ok {
			row.Qty = q
		}
		v.Types = append(v.Types, row)
	}
	v.TotalNone = l.T("checkout.tickets_total_none")
	v.TotalOne = l.N("checkout.tickets_total", 1, "N", "{n}", "Total", "{total}")
	v.TotalOther = l.N("checkout.tickets_total", 2, "N", "{n}", "Total", "{total}")
	v.TotalText = ticketsTotal(l, v)
	title := l.T("checkout.tickets_title")
	if v.Counter {
		title = l.T("checkout.counter.tickets_title")
	}
	return h.Site.Render(c, status, title, checkoutview.Tickets(v))
}

// ticketsTotal is the running total of the counts typed so far, in words.
func ticketsTotal(l *i18n.Localizer, v checkoutview.TicketsView) string {
	n, sum := 0, cinema.Money{}
	for _, t := range v.Types {
		q, err := strconv.Atoi(strings.TrimSpace(t.Qty))
		if err != nil || q <= 0 {
			continue
		}
		n += q
		sum = cinema.NewMoney(sum.Cents+int64(q)*t.PriceCents, t.Currency)
	}
	if n == 0 {
		return v.TotalNone
	}
	return l.N("checkout.tickets_total", n, "N", n, "Total", l.Money(sum))
}

// chooseTickets starts the order with the chosen tickets; the upstream picks the best seats
// together, moved when they break the cinema's seating rules (seatByTheRules), which the next
// step shows and lets the person change.
func (h *Handler) chooseTickets(c echo.Context) error {
	ctx := c.Request().Context()
	l := web.Loc(c)
	se, err := h.findSession(c, c.Param("cinema"), c.Param("session"))
	if err != nil {
		return err
	}
	types, err := h.Visits.SessionTicketTypes(ctx, se.CinemaID, se.SessionID)
	if err != nil {
		return h.Visits.FromUpstream(err, h.Site.URL("whatson"), l.T("checkout.see_whatson"))
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
		if err != nil || n < 0 || n > visit.MaxTicketsPerOrder {
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
		return h.renderTickets(c, http.StatusUnprocessableEntity, &components.Notice{Kind: components.NoticeError, Heading: l.T("checkout.tickets_check_numbers"),
			Body: l.T("checkout.tickets_whole_number", "Max", visit.MaxTicketsPerOrder)}, typed, invalid)
	case total == 0:
		return h.renderTickets(c, http.StatusUnprocessableEntity, &components.Notice{Kind: components.NoticeError, Heading: l.T("checkout.tickets_at_least_one")}, typed, invalid)
	case total > h.Visits.SeatsPerOrder(c):
		return h.renderTickets(c, http.StatusUnprocessableEntity, h.Visits.TooManySeatsNotice(c, total), typed, invalid)
	}
	// Seat hoarding (holds.go): with what else the visit holds, before the upstream is asked.
	if done, err := h.Visits.RefuseVisitSeats(c, visit.SeatStepTickets, total, nil, h.Site.URL("buy.session", se.CinemaID, se.SessionID)); done {
		return err
	}
	prev, hadPrev := h.Visits.CurrentBuy(c)
	if hadPrev {
		if done, err := h.refuseChangeWhilePaying(c, prev); done {
			return err
		}
	}
	usid := upstream.NewUserSessionID()
	// The open orders of this client address (holds.go), the visit's earlier one not counted.
	if done, err := h.Visits.OpenPurchaseHold(c, usid, total, prev.UserSessionID, h.Site.URL("buy.session", se.CinemaID, se.SessionID)); done {
		return err
	}
	if hadPrev {
		// One open order per visit: the earlier choice is released before the new one is made.
		if err := h.Visits.ReleaseReplacedOrder(c, prev); err != nil {
			h.Visits.DropHold(ctx, usid)
			return err
		}
	}
	o, err := h.Ticketing.AddTickets(ctx, upstream.AddTicketsRequest{UserSessionID: usid, CinemaID: se.CinemaID, SessionID: se.SessionID, Tickets: req})
	if err != nil {
		h.Visits.DropHold(ctx, usid) // nothing is held
	}
	switch {
	case errors.Is(err, upstream.ErrSeatsUnavailable):
		return h.renderTickets(c, http.StatusConflict, &components.Notice{Kind: components.NoticeError, Heading: l.T("checkout.not_enough_seats"),
			Body: l.T("checkout.not_enough_seats_text")}, typed, invalid)
	case err != nil:
		return h.Visits.FromUpstream(err, h.Site.URL("buy.session", se.CinemaID, se.SessionID), l.T("checkout.back_to_tickets"))
	}
	h.Visits.HoldStarted(ctx, usid, o)
	h.seatByTheRules(ctx, se.CinemaID, se.SessionID, usid, o)
	v := visit.Buy{UserSessionID: usid, CinemaID: se.CinemaID, SessionID: se.SessionID, FilmTitle: se.FilmTitle, Showtime: se.Showtime,
		Screen: se.ScreenName, Places: total, Name: prev.Name, Email: prev.Email, Started: h.Now()}
	h.Visits.SaveBuy(c, v)
	// An order is now bound to this visit: a privilege change, so a new session token.
	if err := h.Site.RenewSession(c); err != nil {
		return err
	}
	return web.Redirect(c, h.Site.URL("buy.seats"))
}

// ratingWords is a film's rating in words: as the operator's catalog words it ("FSK 12: ab
// 12 Jahren"); else "All ages" for 0, "Age 12+" for a bare age, the scheme's own text
// otherwise ("Rated PG-13"); and nothing when the film has none.
func ratingWords(l *i18n.Localizer, named names.Namer, cinemaID, rating string) string {
	rating = strings.TrimSpace(rating)
	if rating == "" {
		return ""
	}
	if words, ok := named.Rating(cinemaID, rating); ok {
		return words
	}
	switch age, err := strconv.Atoi(rating); {
	case err != nil:
		return l.T("checkout.whatson_rated", "Rating", rating)
	case age <= 0:
		return l.T("checkout.whatson_rating_all")
	default:
		return l.T("checkout.whatson_rating_age", "Age", age)
	}
}
