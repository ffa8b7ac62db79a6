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
	"github.com/cinemabff/cinemabff/internal/listings"
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
	cin, fixed, known := whatsOnCinema(cinemas, web.DeviceOf(c).CinemaID, web.IsKiosk(c), c.QueryParam("cinema"))
	if !known {
		notice = &components.Notice{Kind: components.NoticeWarning, Heading: l.T("checkout.whatson_unknown_cinema"), Body: l.T("checkout.whatson_here_is", "Cinema", cin.Name)}
	}
	tz := cin.Location()
	// Until the night ends, today is the evening whose late shows are still to come.
	today, _ := cinema.Evening(h.Now(), tz)
	day, ok := whatsOnDay(c.QueryParam("day"), today, tz)
	if !ok {
		notice = &components.Notice{Kind: components.NoticeWarning, Heading: l.T("checkout.whatson_choose_day"), Body: l.T("checkout.whatson_days_sold")}
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
	v := h.whatsOnView(c, cinemas, cin, fixed, listing, today, day)
	v.Notice = notice
	return h.Site.Render(c, http.StatusOK, l.T("checkout.whatson_title"), checkoutview.WhatsOn(v))
}

// whatsOnCinema is the cinema What's on shows: the device's own (here, a counter's or kiosk's)
// or the first, unless another was asked for. A kiosk shows its own cinema only (fixed). known
// is false when the cinema asked for is none of them.
func whatsOnCinema(cinemas []cinema.Cinema, here string, kiosk bool, asked string) (cin cinema.Cinema, fixed, known bool) {
	cin = cinemas[0]
	for _, x := range cinemas {
		if here != "" && x.ID == here {
			cin, fixed = x, kiosk // a kiosk shows its own cinema only
		}
	}
	if asked == "" || fixed {
		return cin, fixed, true
	}
	for _, x := range cinemas {
		if x.ID == asked {
			cin, known = x, true
		}
	}
	return cin, fixed, known
}

// whatsOnDay is the day asked for ("YYYY-MM-DD" in tz; today when none): one of the days the
// listing offers, from today. ok is false when it is not, and the day is today.
func whatsOnDay(asked string, today time.Time, tz *time.Location) (day time.Time, ok bool) {
	if asked == "" {
		return today, true
	}
	parsed, err := time.ParseInLocation("2006-01-02", asked, tz)
	if err != nil || parsed.Before(today) || !parsed.Before(today.AddDate(0, 0, whatsOnDays)) {
		return today, false
	}
	return parsed, true
}

// whatsOnView is the What's on page of cinema cin on day: the cinemas to choose from (none
// where the cinema is fixed), the days the listing offers, and the films with their shows.
func (h *Handler) whatsOnView(c echo.Context, cinemas []cinema.Cinema, cin cinema.Cinema, fixed bool, listing listings.Listing, today, day time.Time) checkoutview.WhatsOnView {
	l := web.Loc(c)
	tz := cin.Location()
	v := checkoutview.WhatsOnView{ActionURL: h.Site.URL("whatson"), CinemaName: cin.Name, DayLabel: l.Day(day, today, tz, i18n.DayShort)}
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
	v.Films = h.filmsOn(c, cin, listing, day)
	if v.Counter {
		numberKeys(v.Films)
	}
	return v
}

// filmsOn are the films with a show still to come on sale at cin on day, each with its shows,
// in the order of their first show.
func (h *Handler) filmsOn(c echo.Context, cin cinema.Cinema, listing listings.Listing, day time.Time) []checkoutview.FilmSessions {
	ctx := c.Request().Context()
	l := web.Loc(c)
	tz := cin.Location()
	byFilm := map[string]*checkoutview.FilmSessions{}
	var order []string
	// sessions are in show-time order (the listing keeps them so) and shared: not sorted here
	for _, se := range listing.Day(day.Format("2006-01-02")) {
		if se.Showtime.Before(h.Now()) || !se.OnSale {
			continue // started already, or the cinema does not sell it online
		}
		f := byFilm[se.FilmID]
		if f == nil {
			f = filmHeading(l, h.Visits.Named(ctx), se, listing.Films)
			byFilm[se.FilmID] = f
			order = append(order, se.FilmID)
		}
		f.Sessions = append(f.Sessions, checkoutview.SessionLink{
			Time: words.ShowClock(l, se.Showtime, tz, day), DateTime: se.Showtime.UTC().Format(time.RFC3339),
			Screen: se.ScreenName, Available: l.N("checkout.seats_free", se.SeatsAvailable),
			URL: h.Site.URL("buy.session", cin.ID, se.SessionID), SoldOut: se.SeatsAvailable <= 0,
		})
	}
	out := make([]checkoutview.FilmSessions, 0, len(order))
	for _, id := range order {
		out = append(out, *byFilm[id])
	}
	return out
}

// filmHeading is the heading of session se's film: its title, rating, synopsis and run time
// from the listing's films (the session's own title when the film is not among them).
func filmHeading(l *i18n.Localizer, named names.Namer, se cinema.Session, films []cinema.Film) *checkoutview.FilmSessions {
	f := &checkoutview.FilmSessions{Title: se.FilmTitle}
	for _, fl := range films {
		if fl.ID == se.FilmID {
			f.Title, f.Rating, f.Synopsis = fl.Title, ratingWords(l, named, se.CinemaID, fl.Rating), fl.Synopsis
			if fl.RunTime > 0 {
				f.RunTime = l.T("checkout.run_time", "Minutes", int(fl.RunTime.Minutes()))
			}
		}
	}
	return f
}

// numberKeys gives the first nine showtimes not sold out the counter's number keys, in the
// order the page lists them.
func numberKeys(films []checkoutview.FilmSessions) {
	key := 0
	for _, f := range films {
		for i := range f.Sessions {
			if key < 9 && !f.Sessions[i].SoldOut {
				key++ // the counter's number keys open the first nine showtimes
				f.Sessions[i].Key = strconv.Itoa(key)
			}
		}
	}
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
	se, err := h.findSession(c, c.Param("cinema"), c.Param("session"))
	if err != nil {
		return err
	}
	if done, err := h.waitInLine(c, se); done {
		return err
	}
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
			// How many seats it takes, not "package of 2": the operator's name of a package
			// says it is one ("Paket für zwei"), and the two read as a repeat.
			row.Detail = l.N("checkout.package_seats", places(t))
		case t.LongDescription != "":
			row.Detail = t.LongDescription
		}
		if q, ok := typed[t.Code]; ok {
			row.Qty = q
		}
		v.Types = append(v.Types, row)
	}
	v.TotalNone = l.T("checkout.tickets_total_none")
	fee, feeKnown := h.FeeQuotes.At(c.Request().Context(), se.CinemaID)
	v.TotalOne, v.TotalOther = totalTemplates(l, feeKnown)
	if feeKnown {
		v.FeeCents = fee.Cents
	}
	v.TotalText = ticketsTotal(l, v)
	title := l.T("checkout.tickets_title")
	if v.Counter {
		title = l.T("checkout.counter.tickets_title")
	}
	return h.Site.Render(c, status, title, checkoutview.Tickets(v))
}

// totalTemplates are the ticket step's running total for one ticket and for more ({n},
// {total} and {fees} for the script): with the booking fee per ticket known, the total includes
// the fees and names them, so it is the total the seat step and the review show; else it
// says that booking fees come on top.
func totalTemplates(l *i18n.Localizer, feeKnown bool) (one, other string) {
	if feeKnown {
		return l.N("checkout.tickets_total_fees", 1, "N", "{n}", "Total", "{total}", "Fees", "{fees}"),
			l.N("checkout.tickets_total_fees", 2, "N", "{n}", "Total", "{total}", "Fees", "{fees}")
	}
	return l.N("checkout.tickets_total_plus_fees", 1, "N", "{n}", "Total", "{total}"),
		l.N("checkout.tickets_total_plus_fees", 2, "N", "{n}", "Total", "{total}")
}

// ticketsTotal is the running total of the counts typed so far, in words, with the fees of
// those tickets (v.FeeCents each) when the templates name them.
func ticketsTotal(l *i18n.Localizer, v checkoutview.TicketsView) string {
	n, sum := 0, cinema.Money{}
	for _, t := range v.Types {
		q, err := strconv.Atoi(strings.TrimSpace(t.Qty))
		if err != nil || q <= 0 {
			continue
		}
		n += q
		sum = cinema.NewMoney(sum.Cents+int64(q)*(t.PriceCents+v.FeeCents), t.Currency)
	}
	if n == 0 {
		return v.TotalNone
	}
	template := v.TotalOther
	if n == 1 {
		template = v.TotalOne
	}
	fees := cinema.NewMoney(int64(n)*v.FeeCents, sum.Currency)
	return strings.NewReplacer("{n}", strconv.Itoa(n), "{total}", l.Money(sum), "{fees}", l.Money(fees)).Replace(template)
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
	if done, err := h.waitInLine(c, se); done {
		return err
	}
	types, err := h.Visits.SessionTicketTypes(ctx, se.CinemaID, se.SessionID)
	if err != nil {
		return h.Visits.FromUpstream(err, h.Site.URL("whatson"), l.T("checkout.see_whatson"))
	}
	q := ticketQuantities(buyableTypes(types, se), func(code string) string { return c.FormValue("qty-" + code) })
	if notice := h.quantityProblem(c, q); notice != nil {
		return h.renderTickets(c, http.StatusUnprocessableEntity, notice, q.typed, q.invalid)
	}
	back := h.Site.URL("buy.session", se.CinemaID, se.SessionID)
	usid, prev, done, err := h.makeRoomForOrder(c, q.places, back)
	if done {
		return err
	}
	o, err := h.Ticketing.AddTickets(ctx, upstream.AddTicketsRequest{UserSessionID: usid, CinemaID: se.CinemaID, SessionID: se.SessionID, Tickets: q.req})
	if err != nil {
		h.Visits.DropHold(ctx, usid) // nothing is held
	}
	switch {
	case errors.Is(err, upstream.ErrSeatsUnavailable):
		return h.renderTickets(c, http.StatusConflict, &components.Notice{Kind: components.NoticeError, Heading: l.T("checkout.not_enough_seats"),
			Body: l.T("checkout.not_enough_seats_text")}, q.typed, q.invalid)
	case err != nil:
		return h.Visits.FromUpstream(err, back, l.T("checkout.back_to_tickets"))
	}
	return h.startBuy(c, se, usid, o, q.places, prev)
}

// quantities are the counts typed into the tickets form.
type quantities struct {
	typed   map[string]string // what was typed, by ticket type (the form shown again keeps it)
	invalid map[string]bool   // the types whose count is no whole number up to MaxTicketsPerOrder
	req     []upstream.TicketRequest
	places  int // the seats the tickets take: a package takes several
}

// ticketQuantities reads the counts typed for the ticket types (value gives the form's field of
// a type code); an empty field counts nothing.
func ticketQuantities(types []cinema.TicketType, value func(code string) string) quantities {
	q := quantities{typed: map[string]string{}, invalid: map[string]bool{}}
	for _, t := range types {
		raw := strings.TrimSpace(value(t.Code))
		q.typed[t.Code] = raw
		if raw == "" {
			continue
		}
		n, err := strconv.Atoi(raw)
		if err != nil || n < 0 || n > visit.MaxTicketsPerOrder {
			q.invalid[t.Code] = true
			continue
		}
		if n > 0 {
			q.req = append(q.req, upstream.TicketRequest{TypeCode: t.Code, Qty: n})
			q.places += n * places(t)
		}
	}
	return q
}

// quantityProblem says what is wrong with the counts typed (nil when nothing is): a count that
// is no whole number, no ticket at all, or more seats than one order may hold.
func (h *Handler) quantityProblem(c echo.Context, q quantities) *components.Notice {
	l := web.Loc(c)
	switch {
	case len(q.invalid) > 0:
		return &components.Notice{Kind: components.NoticeError, Heading: l.T("checkout.tickets_check_numbers"),
			Body: l.T("checkout.tickets_whole_number", "Max", visit.MaxTicketsPerOrder)}
	case q.places == 0:
		return &components.Notice{Kind: components.NoticeError, Heading: l.T("checkout.tickets_at_least_one")}
	case q.places > h.Visits.SeatsPerOrder(c):
		return h.Visits.TooManySeatsNotice(c, q.places)
	}
	return nil
}

// makeRoomForOrder checks that the visit may hold seats more and makes room for its new order
// (usid): the seats the visit and its client address hold stay within their limits, and the
// visit's earlier order (prev) is released, unless its payment is under way. done is true when
// the answer is made (err).
func (h *Handler) makeRoomForOrder(c echo.Context, seats int, back string) (usid string, prev visit.Buy, done bool, err error) {
	// Seat hoarding (holds.go): with what else the visit holds, before the upstream is asked.
	if done, err := h.Visits.RefuseVisitSeats(c, visit.SeatStepTickets, seats, nil, back); done {
		return "", prev, true, err
	}
	prev, hadPrev := h.Visits.CurrentBuy(c)
	if hadPrev {
		if done, err := h.refuseChangeWhilePaying(c, prev); done {
			return "", prev, true, err
		}
	}
	usid = upstream.NewUserSessionID()
	// The open orders of this client address (holds.go), the visit's earlier one not counted.
	if done, err := h.Visits.OpenPurchaseHold(c, usid, seats, prev.UserSessionID, back); done {
		return "", prev, true, err
	}
	if hadPrev {
		// One open order per visit: the earlier choice is released before the new one is made.
		if err := h.Visits.ReleaseReplacedOrder(c, prev); err != nil {
			h.Visits.DropHold(c.Request().Context(), usid)
			return "", prev, true, err
		}
	}
	return usid, prev, false, nil
}

// startBuy binds the new order o (usid) of session se, holding places seats, to the visit,
// keeping the buyer's details of the visit's earlier order prev, and goes on to the seats.
func (h *Handler) startBuy(c echo.Context, se cinema.Session, usid string, o cinema.Order, places int, prev visit.Buy) error {
	ctx := c.Request().Context()
	h.learnFee(ctx, se.CinemaID, &o)
	h.Visits.HoldStarted(ctx, usid, o)
	h.seatByTheRules(ctx, se.CinemaID, se.SessionID, usid, o)
	v := visit.Buy{UserSessionID: usid, CinemaID: se.CinemaID, SessionID: se.SessionID, FilmTitle: se.FilmTitle, Showtime: se.Showtime,
		Screen: se.ScreenName, Places: places, Name: prev.Name, Email: prev.Email, Started: h.Now()}
	h.Visits.SaveBuy(c, v)
	if prev.SessionID != "" && lineShow(prev.CinemaID, prev.SessionID) != lineShow(se.CinemaID, se.SessionID) {
		h.endAdmission(c, prev) // the replaced purchase's room in its showtime's line
	}
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
