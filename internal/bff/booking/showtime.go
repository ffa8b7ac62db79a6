package booking

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"golang.org/x/sync/errgroup"

	"github.com/cinemabff/cinemabff/internal/bff/visit"
	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/bff/words"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/upstream"
	"github.com/cinemabff/cinemabff/views/components"
	"github.com/cinemabff/cinemabff/views/pages/bookingview"
)

// Changing the showtime moves a booking to another show of the same cinema inside one edit
// (the contract's edit order holds tickets of several sessions): the same ticket types are
// added for the new show, the old tickets are removed, seats are chosen on the new show's map,
// and completing the edit settles the difference like every other change. Nothing is
// refunded in full and booked again: the booking number and the money paid stay.

// showtimeDays is how many days (today included) the other showtimes are listed for.
const showtimeDays = 7

// typeChoicePrefix names the form fields that pick a new ticket type for a type the new show
// does not sell: "type.0001" = "0003".
const typeChoicePrefix = "type."

// showShowtimes lists the other showtimes of the booking's film (or, with all=1, every show
// of its cinema), with what the change costs this party and how many seats are free.
func (h *Handler) showShowtimes(c echo.Context) error {
	b, _, err := h.requireShowtimeChange(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	l := web.Loc(c)
	allFilms := c.QueryParam("all") == "1"
	shows, err := h.otherShows(c, b, allFilms)
	if err != nil {
		return h.Visits.FromUpstream(err, h.Site.URL("booking.show"), l.T("booking.back_to_booking"))
	}
	prices := h.showPrices(ctx, b, shows)
	ci := h.Visits.CinemaByID(ctx, b.CinemaID)
	v := bookingview.ShowtimesView{
		BookingNumber: fmt.Sprint(b.Number),
		FilmTitle:     b.Session.FilmTitle,
		CurrentShow:   joinShow(b.Session.FilmTitle, words.Showtime(l, b.Session.Showtime, ci), b.Session.ScreenName),
		Party:         partyWords(b),
		AllFilms:      allFilms,
		ActionURL:     h.Site.URL("edit.showtimes"),
		SameFilmURL:   h.Site.URL("edit.showtimes"),
		OtherFilmsURL: h.Site.URL("edit.showtimes") + "?all=1",
		BackURL:       h.Site.URL("booking.show"),
		CSRFToken:     web.CSRFToken(c),
		Counter:       h.Site.AtCounter(c),
	}
	if msg := h.Site.PopFlash(c); msg != "" {
		v.Notice = &components.Notice{Kind: components.NoticeInfo, Heading: msg}
	}
	// Shows are grouped by the evening they belong to, a show after midnight with the evening
	// before, as What's on lists them.
	today, _ := cinema.Evening(h.Now(), ci.Location())
	var day *bookingview.ShowtimeDay
	shortcut := 0
	for _, sh := range shows {
		evening, _ := cinema.Evening(sh.Showtime, ci.Location())
		label := l.Day(evening, today, ci.Location(), i18n.DayLong)
		if day == nil || day.Label != label {
			v.Days = append(v.Days, bookingview.ShowtimeDay{Label: label})
			day = &v.Days[len(v.Days)-1]
		}
		row := h.showtimeRow(l, b, sh, prices[sh.SessionID], ci)
		if row.Enabled && v.Counter && shortcut < 9 {
			shortcut++
			row.Shortcut = fmt.Sprint(shortcut)
		}
		day.Rows = append(day.Rows, row)
	}
	return h.Site.Render(c, http.StatusOK, l.T("showtime.page_title", "Number", v.BookingNumber), bookingview.Showtimes(v))
}

// requireShowtimeChange is the bound booking when its showtime may be changed now: before its
// change cut-off, with no change of it open in this visit, and within the edit's restrictions.
// Otherwise the error says why in words (a replayed form included).
func (h *Handler) requireShowtimeChange(c echo.Context) (cinema.Booking, visit.Bound, error) {
	b, bb, err := h.requireBooking(c)
	if err != nil {
		return b, bb, err
	}
	l := web.Loc(c)
	back, backLabel := h.Site.URL("booking.show"), l.T("booking.back_to_booking")
	if e, ok := h.Visits.CurrentEdit(c); ok && e.BookingNumber == b.Number {
		return b, bb, &web.Error{Code: web.EConflict, Heading: l.T("showtime.change_open_heading"), Message: l.T("showtime.change_open_text"),
			BackURL: h.Site.URL("edit.show"), BackLabel: l.T("booking.action_edit_continue")}
	}
	if err := h.Visits.RefuseClosed(c, b.CinemaID, b.Session.Showtime, back, backLabel); err != nil {
		return b, bb, err
	}
	if reason := h.editUnavailableReason(c, b, nil); reason != "" {
		return b, bb, &web.Error{Code: web.EConflict, Heading: l.T("showtime.not_online_heading"), Message: reason, BackURL: back, BackLabel: backLabel}
	}
	return b, bb, nil
}

// otherShows are the shows a booking may move to: of its cinema, on sale, starting within
// showtimeDays, before their own change cut-off, and of the booking's film unless allFilms.
// The booking's own show is among them (marked on the page, not offered).
func (h *Handler) otherShows(c echo.Context, b cinema.Booking, allFilms bool) ([]cinema.Session, error) {
	listing, err := h.Listings.Listing(c.Request().Context(), b.CinemaID) // shared by every visitor
	if err != nil {
		return nil, err
	}
	list := listing.Sessions
	film := ""
	for _, sh := range list {
		if sh.SessionID == b.Session.ID {
			film = sh.FilmID
		}
	}
	now := h.Now()
	until := now.Add(showtimeDays * 24 * time.Hour)
	var out []cinema.Session
	for _, sh := range list {
		switch {
		case sh.SessionID == b.Session.ID:
		case !sh.OnSale || sh.Showtime.After(until) || !sh.Showtime.After(now):
			continue
		case !allFilms && film != "" && sh.FilmID != film:
			continue
		case !allFilms && film == "" && sh.FilmTitle != b.Session.FilmTitle:
			continue
		case h.Visits.ChangesClosed(c, b.CinemaID, sh.Showtime) != "":
			continue // too close to its start to move to
		case h.salesNotOpen(c, b.CinemaID, sh.SessionID):
			continue
		}
		out = append(out, sh)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Showtime.Before(out[j].Showtime) })
	return out, nil
}

// showPrice is what moving the party to a show changes in the price of its tickets.
type showPrice struct {
	known   bool
	diff    cinema.Money
	missing []string // the party's ticket types the show does not sell (their names)
}

// showPrices reads the ticket types of every show (a few at a time) and prices the party's
// tickets there. A show whose types cannot be read has no known price: its difference is
// shown on the next step.
func (h *Handler) showPrices(ctx context.Context, b cinema.Booking, shows []cinema.Session) map[string]showPrice {
	out := make(map[string]showPrice, len(shows))
	results := make([]showPrice, len(shows))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(4)
	for i, sh := range shows {
		if sh.SessionID == b.Session.ID {
			continue
		}
		g.Go(func() error {
			types, err := h.Visits.SessionTicketTypes(gctx, b.CinemaID, sh.SessionID)
			if err == nil {
				results[i] = priceParty(b, h.Visits.Named(gctx).TicketTypes(b.CinemaID, types))
			}
			return nil
		})
	}
	_ = g.Wait() // every read reports on its own; none fails the page
	for i, sh := range shows {
		out[sh.SessionID] = results[i]
	}
	return out
}

// priceParty prices the booking's tickets with a show's ticket types: the same type where the
// show sells it as a simple ticket (what an edit may add).
func priceParty(b cinema.Booking, types []cinema.TicketType) showPrice {
	byCode := make(map[string]cinema.TicketType, len(types))
	for _, t := range types {
		byCode[t.Code] = t
	}
	p := showPrice{known: true, diff: cinema.Money{Currency: b.Total.Currency}}
	seen := map[string]bool{}
	for _, t := range b.Tickets {
		tt, ok := byCode[t.TypeCode]
		if !ok || !tt.Simple() {
			if !seen[t.TypeCode] {
				seen[t.TypeCode] = true
				p.missing = append(p.missing, t.Description)
			}
			continue
		}
		if p.diff.Currency == "" {
			p.diff.Currency = tt.Price.Currency
		}
		p.diff.Cents += tt.Price.Cents - t.Price.Cents
	}
	return p
}

// showtimeRow is one show on the page.
func (h *Handler) showtimeRow(l *i18n.Localizer, b cinema.Booking, sh cinema.Session, p showPrice, ci cinema.Cinema) bookingview.ShowtimeRow {
	zone := ci.Location()
	evening, _ := cinema.Evening(sh.Showtime, zone)
	row := bookingview.ShowtimeRow{
		SessionID: sh.SessionID,
		Time:      words.ShowClock(l, sh.Showtime, zone, evening),
		DateTime:  sh.Showtime.In(zone).Format(time.RFC3339),
		Film:      sh.FilmTitle,
		Screen:    sh.ScreenName,
		Tags:      strings.Join(sh.Attributes, " · "),
		Free:      l.N("showtime.seats_free", sh.SeatsAvailable),
	}
	if sh.SessionID == b.Session.ID {
		row.Current, row.Difference = true, l.T("showtime.your_show")
		return row
	}
	switch {
	case !p.known:
		row.DiffKind, row.Difference = "unknown", l.T("showtime.price_next_step")
	case p.diff.Cents > 0:
		row.DiffKind, row.Difference = "more", l.T("showtime.costs_more", "Amount", l.Money(p.diff))
	case p.diff.Cents < 0:
		row.DiffKind, row.Difference = "less", l.T("showtime.costs_less", "Amount", l.Money(p.diff.Neg()))
	default:
		row.DiffKind, row.Difference = "same", l.T("showtime.same_price")
	}
	if len(p.missing) > 0 {
		row.Missing = l.T("showtime.type_not_sold", "Types", strings.Join(p.missing, ", "))
	}
	row.Enabled = true
	if sh.AllocatedSeating && sh.SeatsAvailable < len(b.Tickets) {
		row.Enabled, row.Reason = false, l.N("showtime.too_few_seats", len(b.Tickets))
	}
	return row
}

// chooseShowtime moves the booking to the chosen show: it starts an edit, adds the party's
// ticket types for the new show (or the types the person picked for those it does not sell),
// removes the old tickets, and sends the person to the new show's seat map with the seats the
// ticketing system chose. If the ticketing system refuses, the edit is cancelled and the
// booking is as it was.
func (h *Handler) chooseShowtime(c echo.Context) error {
	if e, ok := h.Visits.CurrentEdit(c); ok && e.MovedFrom != nil && e.SessionID == upstream.SplitSessionID(e.CinemaID, strings.TrimSpace(c.FormValue("session"))) {
		return web.Redirect(c, h.Site.URL("edit.show")) // a double click or a second tab: the same move
	}
	b, _, err := h.requireShowtimeChange(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	l := web.Loc(c)
	back := h.Site.URL("edit.showtimes")
	backLabel := l.T("showtime.back_to_list")
	target, err := h.findShow(c, b, strings.TrimSpace(c.FormValue("session")))
	if err != nil {
		return err
	}
	if err := h.Visits.RefuseClosed(c, b.CinemaID, target.Showtime, back, backLabel); err != nil {
		return err
	}
	types, err := h.Visits.SessionTicketTypes(ctx, b.CinemaID, target.SessionID)
	if err != nil {
		return h.Visits.FromUpstream(err, back, backLabel)
	}
	types = h.Visits.Named(ctx).TicketTypes(b.CinemaID, types)
	form, _ := c.FormParams()
	picked, complete := partyTypes(b, types, form)
	if !complete {
		return h.renderTypeChoice(c, b, target, types, form)
	}
	if done, err := h.Visits.RefuseVisitSeats(c, visit.SeatStepEditAdd, len(b.Tickets), nil, back); done {
		return err
	}
	e, err := h.moveShow(c, b, target, picked)
	if err != nil {
		return err
	}
	h.Visits.SaveEdit(c, e)
	h.Site.Flash(c, l.T("showtime.seats_chosen"))
	return web.Redirect(c, h.Site.URL("edit.seats"))
}

// findShow is the show the form names, among the booking's cinema's shows on sale (another
// cinema's session is not found there).
func (h *Handler) findShow(c echo.Context, b cinema.Booking, id string) (cinema.Session, error) {
	l := web.Loc(c)
	notFound := &web.Error{Code: web.ENotFound, Heading: l.T("showtime.show_not_found"), Message: l.T("showtime.show_not_found_text"),
		BackURL: h.Site.URL("edit.showtimes"), BackLabel: l.T("showtime.back_to_list")}
	if id == "" || len(id) > 41 || id == b.Session.ID {
		return cinema.Session{}, notFound
	}
	id = upstream.SplitSessionID(b.CinemaID, id)
	listing, err := h.Listings.Listing(c.Request().Context(), b.CinemaID) // shared by every visitor
	if err != nil {
		return cinema.Session{}, h.Visits.FromUpstream(err, h.Site.URL("booking.show"), l.T("booking.back_to_booking"))
	}
	list := listing.Sessions
	for _, sh := range list {
		if sh.SessionID == id && sh.OnSale && sh.Showtime.After(h.Now()) {
			if h.salesNotOpen(c, b.CinemaID, sh.SessionID) {
				return cinema.Session{}, &web.Error{Code: web.EConflict, Heading: l.T("showtime.not_open_yet"), Message: l.T("showtime.not_open_yet_text"),
					BackURL: h.Site.URL("edit.showtimes"), BackLabel: l.T("showtime.back_to_list")}
			}
			return sh, nil
		}
	}
	return cinema.Session{}, notFound
}

// salesNotOpen reports a showtime whose ticket sales open later (-sales-open) for a web
// customer: they cannot move a booking to it before then, as they cannot buy for it (staff at
// the counter and kiosks are not held back, as with a purchase).
func (h *Handler) salesNotOpen(c echo.Context, cinemaID, sessionID string) bool {
	if len(h.SalesOpen) == 0 || h.Site.StaffUser(c) != "" || web.IsKiosk(c) {
		return false
	}
	opens := h.SalesOpen.Of(cinemaID, sessionID)
	return !opens.IsZero() && h.Now().Before(opens)
}

// partyTypes maps each of the party's ticket types to the type added for the new show: the
// same code where the show sells it as a simple ticket, else the one picked in the form
// ("type.<old code>"). complete is false while a type has no valid pick.
func partyTypes(b cinema.Booking, types []cinema.TicketType, form map[string][]string) (picked map[string]string, complete bool) {
	sold := map[string]bool{}
	for _, t := range types {
		if t.Simple() {
			sold[t.Code] = true
		}
	}
	picked = map[string]string{}
	complete = true
	for _, t := range b.Tickets {
		if _, done := picked[t.TypeCode]; done {
			continue
		}
		if sold[t.TypeCode] {
			picked[t.TypeCode] = t.TypeCode
			continue
		}
		choice := ""
		if vs := form[typeChoicePrefix+t.TypeCode]; len(vs) > 0 {
			choice = strings.TrimSpace(vs[0])
		}
		if !sold[choice] {
			complete = false
			continue
		}
		picked[t.TypeCode] = choice
	}
	return picked, complete
}

// renderTypeChoice asks for another ticket type for each of the party's types the new show
// does not sell.
func (h *Handler) renderTypeChoice(c echo.Context, b cinema.Booking, target cinema.Session, types []cinema.TicketType, form map[string][]string) error {
	ctx := c.Request().Context()
	l := web.Loc(c)
	ci := h.Visits.CinemaByID(ctx, b.CinemaID)
	sold := map[string]bool{}
	var options []bookingview.TypeOption
	for _, t := range types {
		if t.Simple() {
			sold[t.Code] = true
			options = append(options, bookingview.TypeOption{Code: t.Code, Label: t.Description + " · " + l.Money(t.Price)})
		}
	}
	v := bookingview.TypeChoiceView{
		BookingNumber: fmt.Sprint(b.Number),
		NewShow:       joinShow(target.FilmTitle, words.Showtime(l, target.Showtime, ci), target.ScreenName),
		SessionID:     target.SessionID,
		ActionURL:     h.Site.URL("edit.showtimes"),
		BackURL:       h.Site.URL("edit.showtimes"),
		CSRFToken:     web.CSRFToken(c),
		Counter:       h.Site.AtCounter(c),
	}
	seen := map[string]bool{}
	for _, t := range b.Tickets {
		if sold[t.TypeCode] || seen[t.TypeCode] {
			continue
		}
		seen[t.TypeCode] = true
		q := bookingview.TypeQuestion{Field: typeChoicePrefix + t.TypeCode, Name: t.Description, Options: options}
		if vs := form[q.Field]; len(vs) > 0 && vs[0] != "" {
			q.Error = l.T("showtime.type_pick_again")
		}
		v.Questions = append(v.Questions, q)
	}
	status := http.StatusOK
	if len(options) == 0 {
		status = http.StatusConflict
		v.NoOptions = true
	}
	return h.Site.Render(c, status, l.T("showtime.types_title"), bookingview.TypeChoice(v))
}

// moveShow starts the edit that moves booking b to show target with the picked types. On a
// refusal the edit is cancelled again, so the booking stays as it was, and the error says so.
func (h *Handler) moveShow(c echo.Context, b cinema.Booking, target cinema.Session, picked map[string]string) (visit.Edit, error) {
	ctx := c.Request().Context()
	l := web.Loc(c)
	log := web.LoggerFrom(ctx, h.Logger)
	back, backLabel := h.Site.URL("edit.showtimes"), l.T("showtime.back_to_list")
	eo, err := h.Ticketing.EditBooking(ctx, b.CinemaID, b.ID)
	if err != nil {
		return visit.Edit{}, h.Visits.FromUpstreamFor(h.Site.StaffUser(c) != "", err, h.Site.URL("booking.show"), l.T("booking.back_to_booking"))
	}
	eo = h.Visits.Named(ctx).EditOrder(eo)
	undo := func(step string, cause error) error {
		// The edit must not stay open: cancelling restores the booking. It runs even when
		// the person's request has gone.
		if cerr := h.Ticketing.CancelOrder(upstream.Detach(ctx), eo.UserSessionID); cerr != nil &&
			!errors.Is(cerr, upstream.ErrOrderExpired) && !errors.Is(cerr, upstream.ErrNotFound) {
			log.Error("showtime change: edit not cancelled after a refusal", "step", step, "err", cerr)
		}
		log.Info("showtime change refused", "step", step, "session", target.SessionID, "err", cause)
		switch {
		case errors.Is(cause, upstream.ErrSeatsUnavailable):
			return &web.Error{Code: web.EConflict, Heading: l.T("showtime.no_seats_heading"), Message: l.N("showtime.no_seats_text", len(b.Tickets)),
				BackURL: back, BackLabel: backLabel}
		case errors.Is(cause, upstream.ErrUnavailable) || upstream.TimedOut(cause) || errors.Is(cause, upstream.ErrCircuitOpen):
			return h.Visits.FromUpstream(cause, h.Site.URL("booking.show"), l.T("booking.back_to_booking"))
		}
		// Any other answer is the ticketing system's "no": it decides whether a booking may
		// move between shows.
		return &web.Error{Code: web.EConflict, Heading: l.T("showtime.refused_heading"), Message: l.T("showtime.refused_text"),
			BackURL: h.Site.URL("booking.show"), BackLabel: l.T("booking.back_to_booking")}
	}
	count := map[string]int{}
	var order []string
	for _, t := range b.Tickets {
		code := picked[t.TypeCode]
		if count[code] == 0 {
			order = append(order, code)
		}
		count[code]++
	}
	var reqs []upstream.TicketRequest
	for _, code := range order {
		reqs = append(reqs, upstream.TicketRequest{TypeCode: code, Qty: count[code]})
	}
	mode := upstream.BookingModeSale
	if !b.LikelyPaid() {
		mode = upstream.BookingModeReservation
	}
	if _, err := h.Ticketing.AddTickets(ctx, upstream.AddTicketsRequest{UserSessionID: eo.UserSessionID, CinemaID: b.CinemaID,
		SessionID: target.SessionID, Tickets: reqs, BookingMode: mode}); err != nil {
		return visit.Edit{}, undo("add", err)
	}
	// The booking as it was is what the edit began with; from now on its show is the new one.
	e := h.newEdit(b, eo)
	e.SessionID, e.FilmTitle, e.Showtime, e.Screen = target.SessionID, target.FilmTitle, target.Showtime, target.ScreenName
	e.MovedFrom = &visit.Show{SessionID: b.Session.ID, FilmTitle: b.Session.FilmTitle, Showtime: b.Session.Showtime, Screen: b.Session.ScreenName}
	old := make([]string, 0, len(e.Original))
	for _, ol := range e.Original {
		old = append(old, ol.ID)
	}
	if len(old) > 0 {
		if _, err := h.Ticketing.RemoveTickets(ctx, upstream.RemoveTicketsRequest{UserSessionID: eo.UserSessionID, SessionID: b.Session.ID, TicketIDs: old}); err != nil {
			return visit.Edit{}, undo("remove", err)
		}
	}
	h.SeatPlans.Invalidate(b.CinemaID, target.SessionID) // the new show's map shows the seats just held
	return e, nil
}

// partyWords is the party in words: "2 × Adult, 1 × Child".
func partyWords(b cinema.Booking) string {
	count := map[string]int{}
	var order []string
	for _, t := range b.Tickets {
		if count[t.Description] == 0 {
			order = append(order, t.Description)
		}
		count[t.Description]++
	}
	parts := make([]string, 0, len(order))
	for _, d := range order {
		parts = append(parts, fmt.Sprintf("%d × %s", count[d], d))
	}
	return strings.Join(parts, ", ")
}

// joinShow writes a show as "Film · Friday 27 November 2026, 20:30 · Screen 1".
func joinShow(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, " · ")
}

// moveWords says where an edit moved the booking: "Moved from Saturday 28 November 2026, 20:30
// · Saal 1 to Monday 30 November 2026, 17:30 · Saal 1." (with the films when they differ).
func moveWords(l *i18n.Localizer, e visit.Edit, ci cinema.Cinema) string {
	fromFilm, toFilm := e.MovedFrom.FilmTitle, e.FilmTitle
	if fromFilm == toFilm {
		fromFilm, toFilm = "", "" // the same film: the times say it
	}
	from := joinShow(fromFilm, words.Showtime(l, e.MovedFrom.Showtime, ci), e.MovedFrom.Screen)
	to := joinShow(toFilm, words.Showtime(l, e.Showtime, ci), e.Screen)
	return l.T("showtime.moved", "From", from, "To", to)
}
