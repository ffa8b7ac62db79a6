package main

// `web check-upstream` reads from the ticketing API what the site reads, with the service's own
// configuration, and says plainly what it understood (docs/going-live.md). It only reads:
// cinemas, sessions, one seat plan with its ticket types and, when asked, one booking. It opens
// no database and writes nothing.

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/names"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

// checkOptions are the flags check-upstream adds to the service's own.
type checkOptions struct {
	booking int64
	email   string
	cinema  string
}

// Limits of what check-upstream prints and tries.
const (
	checkSessionsShown = 5 // sessions listed per cinema and day
	checkPlanAttempts  = 5 // sessions tried until one has a seat plan
)

// runCheckUpstream is `web check-upstream [service flags] [-booking N -email E] [-cinema ID]`.
// It returns nil when everything it read was understood, else an error whose message is one
// plain sentence. The token and header values are never printed.
func runCheckUpstream(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	var opt checkOptions
	cfg, err := parseConfigWith(args, getenv, stdout, func(fs *flag.FlagSet) {
		fs.Int64Var(&opt.booking, "booking", 0, "check-upstream: also read this booking number (GetSingleBooking)")
		fs.StringVar(&opt.email, "email", "", "check-upstream: e-mail address of the booking, compared as the site does (never sent)")
		fs.StringVar(&opt.cinema, "cinema", "", "check-upstream: check only this cinema ID (the booking is read there; default the first cinema)")
	})
	if err != nil {
		return err
	}
	switch {
	case opt.booking < 0:
		return errors.New("check-upstream: -booking must be a positive booking number")
	case opt.email != "" && opt.booking == 0:
		return errors.New("check-upstream: -email needs -booking")
	}

	out := &redactWriter{w: stdout, secrets: secretValues(cfg)}
	embedded := cfg.UpstreamURL == ""
	if embedded {
		// The same embedded sandbox `run` starts; it listens on a loopback port of this process
		// only while the check runs, and writes nothing (no database, no staff accounts).
		fmt.Fprintln(out, "No -upstream-url given: checking the embedded sandbox (give -upstream-url to check a real deployment).")
		sb, err := startEmbeddedSandbox(ctx, &cfg, slog.New(slog.DiscardHandler), out)
		if err != nil {
			return err
		}
		defer sb.Close()
	}

	notes := &noteLog{}
	client, err := newTicketingClient(cfg, slog.New(notes), prometheus.NewRegistry())
	if err != nil {
		return err
	}
	catalog, err := cfg.names(embedded)
	if err != nil {
		return err
	}
	k := &checker{cfg: cfg, opt: opt, out: out, client: client, notes: notes, now: time.Now(), embedded: embedded, names: catalog}
	if err := k.run(ctx); err != nil {
		return errors.New(out.redact(err.Error()))
	}
	return nil
}

// checker holds one run of check-upstream.
type checker struct {
	cfg      Config
	opt      checkOptions
	out      io.Writer
	client   *upstream.Client
	notes    *noteLog
	now      time.Time
	embedded bool
	names    *names.Catalog // the operator's names catalog (nil: none)

	problems []string
	found    []names.Found // the names read upstream, for missingNames
}

func (k *checker) printf(format string, args ...any) { fmt.Fprintf(k.out, format, args...) }

// problem records something the site would not get right; the run ends non-zero.
func (k *checker) problem(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	k.problems = append(k.problems, msg)
	k.printf("  PROBLEM: %s\n", msg)
}

// note prints something worth knowing that the site copes with.
func (k *checker) note(format string, args ...any) {
	k.printf("  note: "+format+"\n", args...)
}

func (k *checker) run(ctx context.Context) error {
	k.header()
	cinemas, err := k.cinemas(ctx)
	if err != nil {
		return err
	}
	if len(cinemas) > 0 {
		sessions, err := k.sessions(ctx, cinemas)
		if err != nil {
			return err
		}
		if err := k.seatPlan(ctx, sessions); err != nil {
			return err
		}
		if k.opt.booking > 0 {
			if err := k.booking(ctx, cinemas[0]); err != nil {
				return err
			}
		}
		k.ratings(ctx, cinemas)
	}
	k.missingNames()
	k.clientNotes()

	k.printf("\n")
	if len(k.problems) == 0 {
		k.printf("OK: everything check-upstream read was understood.\n")
		return nil
	}
	k.printf("%d problem(s):\n", len(k.problems))
	for _, p := range k.problems {
		k.printf("  - %s\n", p)
	}
	if len(k.problems) == 1 {
		return errors.New(k.problems[0])
	}
	return fmt.Errorf("%s (and %d more problem(s), listed above)", k.problems[0], len(k.problems)-1)
}

// header says what is being checked, without any secret.
func (k *checker) header() {
	where := redactedURL(k.cfg.UpstreamURL)
	if k.embedded {
		where += " (embedded sandbox)"
	}
	k.printf("\nTicketing API: %s\n", where)
	if k.cfg.UpstreamToken == "" {
		k.printf("Token: none configured (-upstream-token); the API will most likely answer 401\n")
	} else {
		k.printf("Token: sent in the lower-case connectapitoken header (value not shown)\n")
	}
	if hs, _ := upstream.ParseHeaders(k.cfg.UpstreamHeaders); len(hs) > 0 {
		names := make([]string, len(hs))
		for i, h := range hs {
			names[i] = h.Name
		}
		k.printf("Extra headers: %s (values not shown)\n", strings.Join(names, ", "))
	} else {
		k.printf("Extra headers: none\n")
	}
	if k.cfg.UpstreamPaths == "" {
		k.printf("Paths: the defaults (docs/wire-profile.md, \"Paths\")\n")
	} else if p, err := upstream.LoadPaths(k.cfg.UpstreamPaths); err == nil {
		k.printf("Paths: %d overridden by %s:\n", len(p), k.cfg.UpstreamPaths)
		for _, op := range slices.Sorted(maps.Keys(p)) {
			k.printf("  %-26s %s\n", op, p[op])
		}
	}
	switch {
	case k.cfg.CollectionPath != "":
		k.printf("Collections: recorded by the site and sent to %s (-collection-path; not checked, it writes)\n", k.cfg.CollectionPath)
	case k.cfg.marksCollectedUpstream():
		k.printf("Collections: recorded by the site and sent to MarkBookingCollected as -upstream-paths routes it (not checked, it writes)\n")
	default:
		k.printf("Collections: recorded by the site only (no -collection-path: nothing is sent upstream)\n")
	}
	k.printf("Fallbacks: time zone %s, currency %s\n", k.cfg.TimeZone, k.cfg.Currency)
}

// cinemas lists the cinemas and says for each whether its zone and currency were sent.
func (k *checker) cinemas(ctx context.Context) ([]cinema.Cinema, error) {
	list, err := k.client.ListCinemas(ctx)
	if err != nil {
		return nil, k.fail(err)
	}
	k.printf("\nCinemas: %d\n", len(list))
	if len(list) == 0 {
		k.problem("the ticketing API listed no cinemas (ListCinemas answered an empty list)")
		return nil, nil
	}

	fallbackZone := k.cfg.TimeZone
	if loc, err := time.LoadLocation(k.cfg.TimeZone); err == nil {
		fallbackZone = loc.String()
	}
	// A cinema whose zone or currency equals the fallback may have sent it or not: ask once more
	// with other fallbacks to tell.
	var probe map[string]cinema.Cinema
	probeZone, probeCurrency := "Etc/GMT+12", "XXX"
	if fallbackZone == probeZone {
		probeZone = "Etc/GMT-14"
	}
	if k.cfg.Currency == probeCurrency {
		probeCurrency = "XTS"
	}
	for _, c := range list {
		if c.TimeZone == fallbackZone || c.Currency == k.cfg.Currency {
			probe = k.probeCinemas(ctx, probeZone, probeCurrency)
			break
		}
	}

	for _, c := range list {
		name := c.Name
		if name == "" {
			name = "(name not sent)"
		}
		p, probed := probe[c.ID]
		zone := k.zoneWords(c, fallbackZone, p, probed, probeZone)
		currency := k.currencyWords(c, p, probed, probeCurrency)
		k.printf("  %s  %s: %s; %s\n", c.ID, name, zone, currency)
	}

	if k.opt.cinema == "" {
		return list, nil
	}
	for _, c := range list {
		if c.ID == k.opt.cinema {
			return []cinema.Cinema{c}, nil
		}
	}
	ids := make([]string, len(list))
	for i, c := range list {
		ids[i] = c.ID
	}
	k.problem("cinema %s (-cinema) is not among the cinemas the ticketing API listed (%s)", k.opt.cinema, strings.Join(ids, ", "))
	return nil, nil
}

// zoneWords says where the cinema's time zone came from: sent, not understood, or the
// fallback (p is the cinema as listed with other fallbacks, when probed).
func (k *checker) zoneWords(c cinema.Cinema, fallbackZone string, p cinema.Cinema, probed bool, probeZone string) string {
	switch sent, warned := k.notes.zoneNotUnderstood(c.ID); {
	case warned:
		return fmt.Sprintf("time zone %q not understood, using %s", sent, c.TimeZone)
	case c.TimeZone != fallbackZone:
		return "time zone " + c.TimeZone
	case probed && p.TimeZone == probeZone:
		return "time zone not sent, using " + c.TimeZone
	case probed:
		return "time zone " + c.TimeZone
	}
	return "time zone " + c.TimeZone + " (sent, or the -time-zone fallback)"
}

// currencyWords says where the cinema's currency came from: sent or the fallback.
func (k *checker) currencyWords(c cinema.Cinema, p cinema.Cinema, probed bool, probeCurrency string) string {
	switch {
	case c.Currency != k.cfg.Currency:
		return "currency " + c.Currency
	case probed && p.Currency == probeCurrency:
		return "currency not sent, using " + c.Currency
	case probed:
		return "currency " + c.Currency
	}
	return "currency " + c.Currency + " (sent, or the -currency fallback)"
}

// probeCinemas lists the cinemas with a client whose fallbacks are zone and currency, so a
// cinema showing them did not send its own. nil when that fails (the first listing worked, so
// this is only less precise).
func (k *checker) probeCinemas(ctx context.Context, zone, currency string) map[string]cinema.Cinema {
	pc := k.cfg
	pc.TimeZone, pc.Currency = zone, currency
	c, err := newTicketingClient(pc, slog.New(slog.DiscardHandler), prometheus.NewRegistry())
	if err != nil {
		return nil
	}
	list, err := c.ListCinemas(ctx)
	if err != nil {
		return nil
	}
	out := make(map[string]cinema.Cinema, len(list))
	for _, ci := range list {
		out[ci.ID] = ci
	}
	return out
}

// checkedSession is a session with the cinema it was listed at.
type checkedSession struct {
	cinema  cinema.Cinema
	session cinema.Session
}

// sessions lists today's and tomorrow's sessions (business days in each cinema's zone).
func (k *checker) sessions(ctx context.Context, cinemas []cinema.Cinema) ([]checkedSession, error) {
	var all []checkedSession
	for _, c := range cinemas {
		loc := c.Location()
		today := k.now.In(loc)
		k.printf("\nSessions at %s %s (times in %s):\n", c.ID, c.Name, loc)
		var listed, untitled, offSale int
		for i, label := range []string{"today", "tomorrow"} {
			day := today.AddDate(0, 0, i)
			list, err := k.client.ListSessions(ctx, c.ID, day.Format("2006-01-02"))
			if err != nil {
				return nil, k.fail(err)
			}
			k.printf("  %s, %s: %s\n", label, day.Format("Mon 2 Jan 2006"), count(len(list), "session", "sessions"))
			for j, s := range list {
				all = append(all, checkedSession{cinema: c, session: s})
				if s.FilmTitle == "" {
					untitled++
				}
				if !s.OnSale {
					offSale++
				}
				if j < checkSessionsShown {
					k.printf("    %s\n", describeSession(s, loc))
				}
			}
			if len(list) > checkSessionsShown {
				k.printf("    … and %d more\n", len(list)-checkSessionsShown)
			}
			listed += len(list)
		}
		switch {
		case untitled > 0 && untitled == listed:
			k.problem("no session at %s has a film title: the films listing (ListFilms) gave none of their ScheduledFilmId", c.ID)
		case untitled > 0:
			k.note("%s without film title (their ScheduledFilmId is not in the films listing)", count(untitled, "session", "sessions"))
		}
		if offSale > 0 {
			k.note("%s not on sale (AllowTicketSales false): the site does not sell them", count(offSale, "session", "sessions"))
		}
	}
	if len(all) == 0 {
		k.problem("no sessions today or tomorrow: the seat plan and ticket types could not be checked")
	}
	return all, nil
}

// describeSession is one line of a listing: "20:30 CET  Film · Screen 1 · session 1001 · 412 seats free".
func describeSession(s cinema.Session, loc *time.Location) string {
	title := s.FilmTitle
	if title == "" {
		title = "(film title not sent; film " + s.FilmID + ")"
	}
	parts := []string{title}
	if s.ScreenName != "" {
		parts = append(parts, s.ScreenName)
	}
	parts = append(parts, "session "+s.SessionID, count(s.SeatsAvailable, "seat", "seats")+" free")
	if len(s.Attributes) > 0 {
		parts = append(parts, strings.Join(s.Attributes, " "))
	}
	if !s.OnSale {
		parts = append(parts, "not on sale")
	}
	when := "(no time)"
	if !s.Showtime.IsZero() {
		when = s.Showtime.In(loc).Format("15:04 MST")
	}
	return when + "  " + strings.Join(parts, " · ")
}

// seatPlan reads the seat plan and ticket types of the first session that has a seat plan.
func (k *checker) seatPlan(ctx context.Context, sessions []checkedSession) error {
	tried := 0
	for _, cs := range sessions {
		s := cs.session
		if !s.AllocatedSeating || !s.OnSale {
			continue
		}
		if tried == checkPlanAttempts {
			break
		}
		tried++
		plan, err := k.client.GetSeatPlan(ctx, cs.cinema.ID, s.SessionID)
		if errors.Is(err, upstream.ErrNotFound) || errors.Is(err, upstream.ErrInvalidRequest) {
			k.printf("\nSeat plan of session %s at %s: not available (%s)\n", s.SessionID, cs.cinema.ID, plainKind(err))
			continue
		}
		if err != nil {
			return k.fail(err)
		}
		if seatCount(plan) == 0 {
			k.printf("\nSeat plan of session %s at %s: no seats in it\n", s.SessionID, cs.cinema.ID)
			continue
		}
		k.printPlan(cs, plan)
		return k.ticketTypes(ctx, cs, plan)
	}
	switch {
	case len(sessions) > 0 && tried == 0:
		k.problem("no session on sale with allocated seating today or tomorrow: the seat plan and ticket types could not be checked")
	case len(sessions) > 0:
		k.problem("none of the %s tried had a seat plan with seats (GetSeatPlan)", count(tried, "session", "sessions"))
	}
	return nil
}

func (k *checker) printPlan(cs checkedSession, plan cinema.SeatPlan) {
	s := cs.session
	loc := cs.cinema.Location()
	k.printf("\nSeat plan of session %s at %s (%s):\n", s.SessionID, cs.cinema.ID, describeSession(s, loc))
	cats := make([]string, 0, len(plan.AreaCategories))
	for _, c := range plan.AreaCategories {
		k.saw(names.AreaCategory, cs.cinema.ID, c.Code, c.Description)
		d := c.Code + " " + c.Description
		if c.Description == "" {
			d = c.Code + " (no name sent)"
		}
		if c.InSeatDelivery {
			d += " (in-seat delivery)"
		}
		cats = append(cats, d)
	}
	if len(cats) == 0 {
		cats = []string{"none sent"}
	}
	k.printf("  area categories: %s\n", strings.Join(cats, "; "))
	var wheelchair, companion, sofa int
	for _, a := range plan.Areas {
		k.saw(names.Area, cs.cinema.ID, a.AreaCategoryCode, a.Description)
		rows, seats := 0, 0
		for _, r := range a.Rows {
			if len(r.Seats) > 0 {
				rows++
			}
			seats += len(r.Seats)
			for _, st := range r.Seats {
				switch st.Kind {
				case cinema.SeatKindWheelchair:
					wheelchair++
				case cinema.SeatKindCompanion:
					companion++
				}
				if len(st.SofaGroup) > 0 {
					sofa++
				}
			}
		}
		cat := a.AreaCategoryCode
		if c, ok := plan.AreaCategory(a.AreaCategoryCode); ok && c.Description != "" {
			cat = c.Description
		}
		desc := a.Description
		if desc == "" {
			desc = "(no description)"
		}
		k.printf("  area %d %s (%s): %s, %s\n", a.Number, desc, cat, count(rows, "row", "rows"), count(seats, "seat", "seats"))
	}
	total := seatCount(plan)
	k.printf("  seats: %d in all: %d free, %d taken, %d held, %d unavailable (house, broken or placeholder)\n",
		total, plan.Count(cinema.SeatFree), plan.Count(cinema.SeatTaken), plan.Count(cinema.SeatHeld), plan.Count(cinema.SeatUnavailable))
	if wheelchair+companion+sofa > 0 {
		k.printf("  of them: %d wheelchair spaces, %d companion seats, %d sofa places\n", wheelchair, companion, sofa)
	}
	if n := plan.Count(cinema.SeatUnknown); n > 0 {
		k.note("%s with a Status number we do not know: shown, never offered as free", count(n, "seat", "seats"))
	}
}

// ticketTypes lists the ticket types of the session whose plan was read.
func (k *checker) ticketTypes(ctx context.Context, cs checkedSession, plan cinema.SeatPlan) error {
	types, err := k.client.GetTicketTypes(ctx, cs.cinema.ID, cs.session.SessionID, "")
	if err != nil {
		return k.fail(err)
	}
	k.printf("\nTicket types of session %s: %d\n", cs.session.SessionID, len(types))
	if len(types) == 0 {
		k.problem("the ticketing API listed no ticket types for session %s at %s (GetTicketTypes)", cs.session.SessionID, cs.cinema.ID)
		return nil
	}
	var strays []string
	for _, t := range types {
		k.saw(names.TicketType, cs.cinema.ID, t.Code, t.Description)
		desc := t.Description
		if desc == "" {
			desc = "(no description)"
		}
		var flags []string
		cat := t.AreaCategoryCode
		if c, ok := plan.AreaCategory(t.AreaCategoryCode); ok && c.Description != "" {
			cat = c.Description
		} else if t.AreaCategoryCode != "" && len(plan.AreaCategories) > 0 && !ok {
			strays = append(strays, t.Code)
		}
		if cat != "" {
			flags = append(flags, cat)
		}
		if t.IsPackage {
			flags = append(flags, fmt.Sprintf("package of %d", t.PackageSize))
		}
		if t.IsChild {
			flags = append(flags, "child")
		}
		if t.IsLoyalty {
			flags = append(flags, "loyalty")
		}
		if t.IsVoucher {
			flags = append(flags, "voucher")
		}
		if t.IsThirdParty {
			flags = append(flags, "third-party member")
		}
		k.printf("  %-6s %-28s %10s  %s\n", t.Code, desc, t.Price.String(), strings.Join(flags, ", "))
	}
	if len(strays) > 0 {
		k.note("ticket types %s name an area category the seat plan does not have", strings.Join(strays, ", "))
	}
	return nil
}

// saw keeps a name read upstream for missingNames.
func (k *checker) saw(kind names.Kind, cinemaID, code, text string) {
	if code != "" {
		k.found = append(k.found, names.Found{Kind: kind, CinemaID: cinemaID, Code: code, Text: text})
	}
}

// ratings reads the films of each cinema for the rating codes the catalog should word.
func (k *checker) ratings(ctx context.Context, cinemas []cinema.Cinema) {
	for _, c := range cinemas {
		films, err := k.client.ListFilms(ctx, c.ID)
		if err != nil {
			k.note("films of %s not read for their ratings (%s)", c.ID, plainKind(err))
			continue
		}
		for _, f := range films {
			k.saw(names.Rating, c.ID, f.Rating, f.Rating)
		}
	}
}

// missingNames lists, per language, the names read upstream that the operator's catalog
// (-names-file) lacks: the site shows them as the ticketing API sent them. Offers come only
// with an order, which check-upstream does not make, so they are not listed.
func (k *checker) missingNames() {
	k.printf("\nThe cinema's names (-names-file):\n")
	if k.names == nil {
		k.printf("  no catalog: every name is shown as the ticketing API sends it, in every language\n")
	}
	missing := k.names.Missing(k.found, names.Languages())
	for _, lang := range names.Languages() {
		list := missing[lang]
		if len(list) == 0 {
			k.printf("  %s: every name read has an entry\n", lang)
			continue
		}
		k.printf("  %s: %s without an entry (shown as sent):\n", lang, count(len(list), "name", "names"))
		for _, f := range list {
			k.printf("    %s %s at %s: %q\n", kindWords[f.Kind], f.Code, f.CinemaID, f.Text)
		}
	}
	k.printf("  (offers come with an order, which check-upstream does not make: they are not checked)\n")
}

// kindWords are the kinds of names as check-upstream prints them.
var kindWords = map[names.Kind]string{names.TicketType: "ticket type", names.AreaCategory: "area category",
	names.Area: "area of category", names.Offer: "offer", names.Rating: "rating"}

// booking reads one booking as "My booking" does and says what the site would make of it.
func (k *checker) booking(ctx context.Context, c cinema.Cinema) error {
	n := k.opt.booking
	k.printf("\nBooking %d at %s %s:\n", n, c.ID, c.Name)
	b, err := k.client.GetSingleBooking(ctx, c.ID, n)
	if errors.Is(err, upstream.ErrNotFound) || errors.Is(err, upstream.ErrInvalidRequest) {
		k.problem("the ticketing API knows no booking %d at cinema %s (GetSingleBooking: %s)", n, c.ID, plainKind(err))
		return nil
	}
	if err != nil {
		return k.fail(err)
	}
	k.bookingHeader(b)
	k.bookingEmail(b)
	if err := k.bookingSession(ctx, c, b); err != nil {
		return err
	}
	k.bookingTickets(b)
	k.bookingPayments(b)
	return k.bookingSeats(ctx, c, b)
}

// bookingHeader prints the booking's id, total and whether it is paid.
func (k *checker) bookingHeader(b cinema.Booking) {
	id := b.ID
	if id == "" {
		id = "not sent (BookingId): edits and seat changes need it"
	}
	k.printf("  booking id: %s\n", id)
	k.printf("  total: %s\n", b.Total.String())
	switch {
	case !b.PaidKnown:
		k.printf("  paid: not said; the BFF will offer actions and let the ticketing API decide\n")
	case b.Paid:
		k.printf("  paid: yes\n")
	default:
		k.printf("  paid: no (a reservation)\n")
	}
}

// bookingEmail says whether the booking's e-mail is the one given with -email.
func (k *checker) bookingEmail(b cinema.Booking) {
	n := k.opt.booking
	switch {
	case k.opt.email == "":
		k.printf("  e-mail: not checked (no -email)\n")
	case strings.TrimSpace(b.CustomerEmail) == "":
		k.printf("  e-mail: not sent\n")
		k.problem("booking %d carries no e-mail (CustomerEmail): customers cannot find it with their e-mail, only box-office staff can", n)
	case strings.EqualFold(strings.TrimSpace(b.CustomerEmail), strings.TrimSpace(k.opt.email)):
		k.printf("  e-mail: matches\n")
	default:
		k.printf("  e-mail: does not match\n")
		k.problem("the e-mail of booking %d does not match -email: the site would answer \"booking not found\"", n)
	}
}

// bookingSession prints the booking's session as the session listing has it.
func (k *checker) bookingSession(ctx context.Context, c cinema.Cinema, b cinema.Booking) error {
	sessionID := b.SessionID()
	if sessionID == "" {
		k.printf("  session: not sent\n")
		return nil
	}
	s, err := k.client.FindSession(ctx, c.ID, sessionID)
	switch {
	case errors.Is(err, upstream.ErrNotFound):
		k.printf("  session %s: not in the session listing (a past session?): film, time and screen unknown\n", sessionID)
	case err != nil:
		return k.fail(err)
	default:
		k.printf("  session: %s\n", describeSession(s, c.Location()))
	}
	return nil
}

// bookingTickets prints the tickets and the concessions.
func (k *checker) bookingTickets(b cinema.Booking) {
	k.printf("  tickets: %d\n", len(b.Tickets))
	for _, t := range b.Tickets {
		k.saw(names.TicketType, b.CinemaID, t.TypeCode, t.Description)
		seat := "no seat (unallocated seating)"
		if t.Seat != nil {
			seat = "row " + orNotSent(t.Seat.RowLabel) + " seat " + orNotSent(t.Seat.Label)
		}
		line := fmt.Sprintf("    #%d %s %s, %s", t.Seq, orNotSent(t.Description), t.Price.String(), seat)
		if t.InPackage() {
			line += fmt.Sprintf(", package %d", t.PackageGroup)
		}
		k.printf("%s\n", line)
	}
	if len(b.Concessions) > 0 {
		k.printf("  concessions: %d\n", len(b.Concessions))
	}
}

// bookingPayments prints the payments with their tender, card and reference.
func (k *checker) bookingPayments(b cinema.Booking) {
	k.printf("  payments: %d\n", len(b.Payments))
	for _, p := range b.Payments {
		parts := []string{p.Amount.String()}
		for _, s := range []string{p.TenderCategory, p.CardType, p.CardNumberMasked} {
			if s != "" {
				parts = append(parts, s)
			}
		}
		if p.ProviderReference != "" {
			parts = append(parts, "reference "+p.ProviderReference)
		}
		k.printf("    %s\n", strings.Join(parts, ", "))
	}
}

// bookingSeats places the tickets on the seat plan by their labels, as the site does, and says
// which it cannot place.
func (k *checker) bookingSeats(ctx context.Context, c cinema.Cinema, b cinema.Booking) error {
	n, sessionID := k.opt.booking, b.SessionID()
	unplaced := 0
	for _, t := range b.Tickets {
		if t.Seat != nil && !t.Seat.Placed {
			unplaced++
		}
	}
	if unplaced == 0 || sessionID == "" {
		if unplaced > 0 {
			k.problem("booking %d names no session, so its tickets cannot be placed on a seat plan", n)
		}
		return nil
	}
	plan, err := k.client.GetSeatPlan(ctx, c.ID, sessionID)
	if errors.Is(err, upstream.ErrNotFound) || errors.Is(err, upstream.ErrInvalidRequest) {
		k.printf("  seats on the plan: not checked; the seat plan of session %s is not available (%s)\n", sessionID, plainKind(err))
		return nil
	}
	if err != nil {
		return k.fail(err)
	}
	missing := b.PlaceOnPlan(plan)
	if len(missing) == 0 {
		k.printf("  seats on the plan: all %s placed by their labels\n", count(unplaced, "ticket", "tickets"))
		return nil
	}
	seats := make([]string, len(missing))
	for i, t := range missing {
		seats[i] = "row " + t.Seat.RowLabel + " seat " + t.Seat.Label
	}
	k.printf("  seats on the plan: %d of %d not found: %s\n", len(missing), unplaced, strings.Join(seats, "; "))
	k.problem("%d ticket(s) of booking %d could not be placed on the seat plan by their labels (%s): seat changes will not work for them", len(missing), n, seats[0])
	return nil
}

// clientNotes prints what the client logged as warnings that was not already said.
func (k *checker) clientNotes() {
	lines := k.notes.rest()
	if len(lines) == 0 {
		return
	}
	k.printf("\nThe client also warned:\n")
	for _, l := range lines {
		k.printf("  %s\n", l)
	}
}

// fail turns an upstream error into the one-line sentence check-upstream ends with.
func (k *checker) fail(err error) error {
	return errors.New(upstreamSentence(err, k.cfg.UpstreamURL))
}

// upstreamSentence says in one plain sentence why a call to the ticketing API failed.
func upstreamSentence(err error, baseURL string) string {
	var e *upstream.Error
	if !errors.As(err, &e) {
		return err.Error()
	}
	switch {
	case errors.Is(e.Kind, upstream.ErrUnauthorized):
		return fmt.Sprintf("the ticketing API refused the token (HTTP %d)", e.HTTPStatus)
	case errors.Is(e.Kind, upstream.ErrBadReply):
		what := "field " + e.Field
		if e.Field == "" {
			what = e.Description
			if what == "" && e.Err != nil {
				what = e.Err.Error()
			}
		}
		return fmt.Sprintf("the ticketing API answered %s with a reply we could not read (%s)", e.Op, what)
	case errors.Is(e.Kind, upstream.ErrUnavailable):
		return fmt.Sprintf("the ticketing API could not be reached at %s: %s", redactedURL(baseURL), unavailableCause(e))
	case errors.Is(e.Kind, upstream.ErrNotFound) && e.HTTPStatus == 404:
		return fmt.Sprintf("the ticketing API has no %s at the configured path (HTTP 404): check -upstream-url and -upstream-paths", e.Op)
	}
	s := fmt.Sprintf("the ticketing API refused %s (%s", e.Op, plainKind(e))
	if e.HTTPStatus != 0 {
		s += fmt.Sprintf(", HTTP %d", e.HTTPStatus)
	}
	if e.Result != 0 || e.ExtendedResultCode != 0 {
		s += fmt.Sprintf(", result %d/%d", e.Result, e.ExtendedResultCode)
	}
	s += ")"
	if e.Description != "" {
		s += ": " + e.Description
	}
	return s
}

// unavailableCause is the cause of an ErrUnavailable without repeating the URL.
func unavailableCause(e *upstream.Error) string {
	if e.Err != nil {
		switch cause := e.Err; {
		case errors.Is(cause, context.DeadlineExceeded):
			return "no answer in time"
		case errors.Is(cause, upstream.ErrCircuitOpen):
			return "too many failures in a row"
		default:
			var ue *url.Error
			if errors.As(cause, &ue) {
				return ue.Err.Error()
			}
			return cause.Error()
		}
	}
	s := e.Op + " answered"
	if e.HTTPStatus != 0 {
		s += fmt.Sprintf(" HTTP %d", e.HTTPStatus)
	}
	if e.Result != 0 || e.ExtendedResultCode != 0 {
		s += fmt.Sprintf(" with result %d/%d", e.Result, e.ExtendedResultCode)
	}
	if e.Description != "" {
		s += ": " + e.Description
	}
	return s
}

// plainKind is the kind of an upstream error in words ("not found").
func plainKind(err error) string {
	var e *upstream.Error
	if errors.As(err, &e) && e.Kind != nil {
		return strings.TrimPrefix(e.Kind.Error(), "upstream: ")
	}
	return err.Error()
}

// redactedURL hides a password in the URL, should one be there.
func redactedURL(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		return u.Redacted()
	}
	return raw
}

func seatCount(p cinema.SeatPlan) int {
	n := 0
	for _, a := range p.Areas {
		for _, r := range a.Rows {
			n += len(r.Seats)
		}
	}
	return n
}

func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func orNotSent(s string) string {
	if s == "" {
		return "(not sent)"
	}
	return s
}

// noteLog is a slog handler that keeps the client's warnings, to be said in plain words.
type noteLog struct {
	mu    sync.Mutex
	recs  []noteRecord
	attrs []slog.Attr
	root  *noteLog
}

type noteRecord struct {
	msg   string
	attrs map[string]string
	used  bool
}

func (h *noteLog) base() *noteLog {
	if h.root != nil {
		return h.root
	}
	return h
}

func (h *noteLog) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }

func (h *noteLog) Handle(_ context.Context, r slog.Record) error {
	rec := noteRecord{msg: r.Message, attrs: map[string]string{}}
	for _, a := range h.attrs {
		rec.attrs[a.Key] = a.Value.String()
	}
	r.Attrs(func(a slog.Attr) bool {
		rec.attrs[a.Key] = a.Value.String()
		return true
	})
	b := h.base()
	b.mu.Lock()
	b.recs = append(b.recs, rec)
	b.mu.Unlock()
	return nil
}

func (h *noteLog) WithAttrs(as []slog.Attr) slog.Handler {
	return &noteLog{root: h.base(), attrs: append(slices.Clip(h.attrs), as...)}
}

func (h *noteLog) WithGroup(string) slog.Handler { return h }

// zoneNotUnderstood reports the TimeZoneId of cinemaID that the client warned it did not
// understand, and marks the warning as said.
func (h *noteLog) zoneNotUnderstood(cinemaID string) (string, bool) {
	b := h.base()
	b.mu.Lock()
	defer b.mu.Unlock()
	zone, found := "", false
	for i := range b.recs {
		r := &b.recs[i]
		if z, ok := r.attrs["TimeZoneId"]; ok && r.attrs["cinema"] == cinemaID {
			r.used = true
			if !found {
				zone, found = z, true
			}
		}
	}
	return zone, found
}

// rest returns the warnings not said yet, one line each, without repeats.
func (h *noteLog) rest() []string {
	b := h.base()
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []string
	seen := map[string]bool{}
	for _, r := range b.recs {
		if r.used {
			continue
		}
		line := r.msg
		for _, k := range slices.Sorted(maps.Keys(r.attrs)) {
			if k == "component" {
				continue
			}
			line += " " + k + "=" + r.attrs[k]
		}
		if !seen[line] {
			seen[line] = true
			out = append(out, line)
		}
	}
	return out
}

// redactWriter replaces secrets (the token, header values) by "[hidden]" in everything
// written. check-upstream never prints them; this guards against an upstream echoing one.
type redactWriter struct {
	w       io.Writer
	secrets []string
}

func (r *redactWriter) Write(p []byte) (int, error) {
	s := r.redact(string(p))
	if _, err := io.WriteString(r.w, s); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (r *redactWriter) redact(s string) string {
	for _, v := range r.secrets {
		s = strings.ReplaceAll(s, v, "[hidden]")
	}
	return s
}

// minSecretLen: shorter header values ("EU") are region codes rather than secrets, and
// hiding them would mangle ordinary words ("EUR").
const minSecretLen = 6

// secretValues are the configured values that must never be printed.
func secretValues(cfg Config) []string {
	var out []string
	if len(cfg.UpstreamToken) >= minSecretLen {
		out = append(out, cfg.UpstreamToken)
	}
	hs, _ := upstream.ParseHeaders(cfg.UpstreamHeaders)
	for _, h := range hs {
		if len(h.Value) >= minSecretLen {
			out = append(out, h.Value)
		}
	}
	// Longest first, so a secret containing another is hidden whole.
	slices.SortFunc(out, func(a, b string) int { return len(b) - len(a) })
	return out
}
