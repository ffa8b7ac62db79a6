package swap

import (
	"cmp"
	"context"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/cinemabff/cinemabff/internal/bff/visit"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/bff/words"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/seatrules"
	"github.com/cinemabff/cinemabff/internal/tickets"
	"github.com/cinemabff/cinemabff/internal/upstream"
	"github.com/cinemabff/cinemabff/views/components"
	"github.com/cinemabff/cinemabff/views/pages/swapview"
)

// picked is what the person ticked: the tickets that move (sequence numbers) and the new
// seats. A form shown again keeps it.
type picked struct {
	Seqs  map[int]bool
	Seats []cinema.SeatPosition
}

// showSwap is the swap page: the booking's tickets, the seat map with fresh availability, or
// the reason the seats cannot be changed. It reads the booking and the seat plan, nothing more.
func (h *Handler) showSwap(c echo.Context) error {
	bb, err := h.access(c)
	if err != nil {
		return err
	}
	rb, err := h.Bookings.Read(c.Request().Context(), bb.CinemaID, bb.Number)
	if err != nil {
		return h.fromUpstream(err, h.url("booking.show"), h.backLabel(c))
	}
	return h.render(c, http.StatusOK, rb.Booking, rb.Plan, picked{}, nil)
}

// reviewSwap checks the choice against the booking and a fresh seat plan. Nothing is sent to
// the ticketing system: a choice it cannot accept is explained and the form shown again with
// the choices kept; a good one waits for the go-ahead on the confirm page.
func (h *Handler) reviewSwap(c echo.Context) error {
	bb, err := h.access(c)
	if err != nil {
		return err
	}
	l := web.Loc(c)
	ctx := c.Request().Context()
	rb, err := h.Bookings.Read(ctx, bb.CinemaID, bb.Number)
	if err != nil {
		return h.fromUpstream(err, h.url("booking.show"), h.backLabel(c))
	}
	b := rb.Booking
	if err := h.Visits.RefuseClosed(c, b.CinemaID, b.Session.Showtime, h.url("booking.show"), h.backLabel(c)); err != nil {
		return err
	}
	if visit.SwapUnavailableReason(l, b) != "" {
		return h.render(c, http.StatusConflict, b, nil, picked{}, nil)
	}
	form, err := c.FormParams()
	if err != nil {
		return &web.Error{Code: web.EInvalid, Heading: l.T("ui.error.invalid.heading"), Message: l.T("swap.problem.unreadable"),
			BackURL: h.url("swap.show", bb.CinemaID, bb.Number), BackLabel: l.T("swap.choose_seats_link")}
	}
	plan, err := h.freshPlan(ctx, b, rb.Plan)
	if err != nil {
		return h.fromUpstream(err, h.url("booking.show"), h.backLabel(c))
	}
	named := h.Visits.Named(ctx) // the moves keep the tickets' and areas' names in the visitor's words
	namedPlan := named.SeatPlan(*plan)
	choice, moves, problem := planMoves(l, named.Booking(b), namedPlan, form["ticket"], form["seat"])
	if problem != nil {
		return h.renderWithPlan(c, http.StatusUnprocessableEntity, b, plan, choice, problem)
	}
	ci := h.Visits.CinemaByID(ctx, b.CinemaID)
	h.save(c, visit.SessSwapPending, swapState{CinemaID: b.CinemaID, Number: b.Number, BookingID: b.ID, Header: h.header(c, b), Moves: moves,
		Showtime: b.Session.Showtime, TimeZone: ci.TimeZone, Email: b.CustomerEmail, Lang: l.Lang()})
	return web.Redirect(c, h.url("swap.confirm", b.CinemaID, b.Number))
}

func problemNotice(heading, body string) *components.Notice {
	return &components.Notice{Kind: components.NoticeError, Heading: heading, Body: body}
}

// planMoves turns the submitted tickets and seats into moves, or explains in l's language what
// it cannot accept: an unknown ticket, part of a package, the wrong number of seats, a seat
// that is not on the map, already in the booking, in another area category, or not free, and a
// choice against the cinema's seating rules (seatrules). Each ticket is paired with a new seat
// of its own area category, both in seat order.
func planMoves(l *i18n.Localizer, b cinema.Booking, plan cinema.SeatPlan, ticketValues, seatValues []string) (picked, []move, *components.Notice) {
	choice := picked{Seqs: map[int]bool{}}
	choice.Seats, _ = components.SeatValues(seatValues)
	moving, problem := movingTickets(l, b, ticketValues, choice.Seqs)
	if problem != nil {
		return choice, nil, problem
	}
	if _, err := components.SeatValues(seatValues); err != nil {
		return choice, nil, notASeat(l)
	}
	if len(choice.Seats) != len(moving) {
		return choice, nil, problemNotice(l.T("swap.problem.count.heading", "Seats", l.N("swap.new_seats", len(moving))),
			l.T("swap.problem.count.body", "Tickets", l.N("common.tickets", len(moving)), "Seats", l.N("swap.new_seats", len(choice.Seats))))
	}
	owned := map[cinema.SeatPosition]bool{}
	for _, t := range b.Tickets {
		if t.Placed() {
			owned[t.Seat.Position] = true
		}
	}
	seatsByCat, problem := newSeatsByArea(l, plan, choice.Seats, owned, moving)
	if problem != nil {
		return choice, nil, problem
	}
	// The cinema's own seating rules, which the ticketing system does not know: the tickets
	// that stay keep their seats, the seats of those that move are free once they have moved.
	var keep []cinema.SeatPosition
	for _, t := range b.Tickets {
		if t.Placed() && !choice.Seqs[t.Seq] {
			keep = append(keep, t.Seat.Position)
		}
	}
	if notice := words.SeatRuleNotice(l, seatrules.Check(plan, seatrules.Choice{Party: slices.Collect(maps.Keys(owned)), Keep: keep, Chosen: choice.Seats, Swap: true})); notice != nil {
		return choice, nil, notice
	}
	return choice, pairMoves(moving, seatsByCat), nil
}

// notASeat says that a seat sent is not a seat of the map.
func notASeat(l *i18n.Localizer) *components.Notice {
	return problemNotice(l.T("swap.problem.not_a_seat.heading"), l.T("swap.problem.not_a_seat.body"))
}

// movingTickets are the booking's tickets the person ticked (a package's value names every
// ticket of it, "3+4"), each once, marked in seqs. Every ticket must be a placed ticket of b,
// at least one must be ticked, and a package moves whole.
func movingTickets(l *i18n.Localizer, b cinema.Booking, ticketValues []string, seqs map[int]bool) ([]cinema.BookedTicket, *components.Notice) {
	var moving []cinema.BookedTicket
	for _, v := range ticketValues {
		for _, part := range strings.Split(v, "+") {
			seq, err := strconv.Atoi(part)
			t, ok := b.Ticket(seq)
			if err != nil || !ok || !t.Placed() {
				return nil, problemNotice(l.T("swap.problem.unknown_ticket.heading"), l.T("swap.problem.unknown_ticket.body"))
			}
			if !seqs[seq] {
				seqs[seq] = true
				moving = append(moving, t)
			}
		}
	}
	if len(moving) == 0 {
		return nil, problemNotice(l.T("swap.problem.no_ticket.heading"), l.T("swap.problem.no_ticket.body"))
	}
	for _, t := range moving {
		for _, m := range b.PackageMates(t.Seq) {
			if !seqs[m.Seq] {
				return nil, problemNotice(l.T("swap.problem.partial_package.heading"),
					words.SwapRestriction(l, upstream.SwapPartialPackage)+" "+l.T("swap.problem.partial_package.body"))
			}
		}
	}
	return moving, nil
}

// newSeatsByArea finds the new seats on the plan, by area category: each must be a seat of the
// map, not one the booking holds (owned), of an area category a moving ticket has, and free;
// and each category gets as many new seats as tickets of it move.
func newSeatsByArea(l *i18n.Localizer, plan cinema.SeatPlan, seats []cinema.SeatPosition, owned map[cinema.SeatPosition]bool, moving []cinema.BookedTicket) (map[string][]cinema.Seat, *components.Notice) {
	need := map[string]int{} // area category -> moving tickets
	var cats []string        // the categories of the moving tickets, each once, in order
	for _, t := range moving {
		if need[t.Seat.AreaCategoryCode] == 0 {
			cats = append(cats, t.Seat.AreaCategoryCode)
		}
		need[t.Seat.AreaCategoryCode]++
	}
	seatsByCat := map[string][]cinema.Seat{}
	for _, p := range seats {
		seat, ok := plan.Seat(p)
		switch {
		case !ok:
			return nil, notASeat(l)
		case owned[p]:
			return nil, problemNotice(l.T("swap.problem.yours.heading"),
				l.T("swap.problem.yours.body", "Seat", tickets.SeatWords(l, seat.RowLabel, seat.Label)))
		case need[seat.AreaCategoryCode] == 0:
			return nil, problemNotice(l.T("swap.problem.area.heading"),
				l.T("swap.problem.area.other_area", "Rule", areaRule(l, plan, cats), "Seat", tickets.SeatWords(l, seat.RowLabel, seat.Label),
					"Area", plan.AreaCategoryName(seat.AreaCategoryCode)))
		case !seat.Selectable():
			return nil, problemNotice(l.T("swap.problem.taken.heading"),
				l.T("swap.problem.taken.body", "Seat", tickets.SeatWords(l, seat.RowLabel, seat.Label)))
		}
		seatsByCat[seat.AreaCategoryCode] = append(seatsByCat[seat.AreaCategoryCode], seat)
	}
	for _, cat := range cats {
		if n := need[cat]; len(seatsByCat[cat]) != n {
			return nil, problemNotice(l.T("swap.problem.area.heading"),
				l.T("swap.problem.area.count", "Rule", areaRule(l, plan, cats), "Tickets", l.N("common.tickets", n),
					"Area", plan.AreaCategoryName(cat), "Seats", l.N("swap.new_seats", len(seatsByCat[cat]))))
		}
	}
	return seatsByCat, nil
}

// pairMoves pairs each moving ticket with a new seat of its area category, both in seat order.
func pairMoves(moving []cinema.BookedTicket, seatsByCat map[string][]cinema.Seat) []move {
	slices.SortStableFunc(moving, func(a, b cinema.BookedTicket) int { return comparePos(a.Seat.Position, b.Seat.Position) })
	for _, ss := range seatsByCat {
		slices.SortFunc(ss, func(a, b cinema.Seat) int { return comparePos(a.Position, b.Position) })
	}
	moves := make([]move, 0, len(moving))
	for _, t := range moving {
		cat := t.Seat.AreaCategoryCode
		to := seatsByCat[cat][0]
		seatsByCat[cat] = seatsByCat[cat][1:]
		moves = append(moves, move{Seq: t.Seq, Ticket: t.Description, Package: t.InPackage(),
			From: tickets.SeatKey(t.Seat.RowLabel, t.Seat.Label), To: to.Position, ToText: tickets.SeatKey(to.RowLabel, to.Label),
			FromRow: t.Seat.RowLabel, FromSeat: t.Seat.Label, ToRow: to.RowLabel, ToSeat: to.Label})
	}
	return moves
}

// areaRule states the seating-area rule of a swap in l's language, naming the areas
// (categories) of the tickets that move.
func areaRule(l *i18n.Localizer, plan cinema.SeatPlan, cats []string) string {
	names := make([]string, len(cats))
	for i, c := range cats {
		names[i] = plan.AreaCategoryName(c)
	}
	if len(names) == 1 {
		return l.T("swap.area_rule.one", "Area", names[0])
	}
	return l.T("swap.area_rule.several", "Areas", strings.Join(names, ", "))
}

func comparePos(a, b cinema.SeatPosition) int {
	return cmp.Or(cmp.Compare(a.AreaNumber, b.AreaNumber), cmp.Compare(a.RowIndex, b.RowIndex), cmp.Compare(a.ColumnIndex, b.ColumnIndex))
}

// header is the booking's header for the swap pages, in the request's language.
func (h *Handler) header(c echo.Context, b cinema.Booking) swapview.Header {
	ci := h.Visits.CinemaByID(c.Request().Context(), b.CinemaID)
	hd := swapview.Header{BookingNumber: strconv.FormatInt(b.Number, 10), FilmTitle: b.Session.FilmTitle, Screen: b.Session.ScreenName}
	hd.Showtime = words.Showtime(web.Loc(c), b.Session.Showtime, ci)
	return hd
}

// render shows the swap page for b: the reason when its seats cannot be swapped,
// otherwise the tickets and the map with a fresh seat plan (plan, when the booking's own read
// just fetched it to place the tickets).
func (h *Handler) render(c echo.Context, status int, b cinema.Booking, plan *cinema.SeatPlan, choice picked, notice *components.Notice) error {
	if visit.SwapUnavailableReason(web.Loc(c), b) != "" {
		return h.renderWithPlan(c, status, b, nil, choice, notice)
	}
	plan, err := h.freshPlan(c.Request().Context(), b, plan)
	if err != nil {
		return h.fromUpstream(err, h.url("booking.show"), h.backLabel(c))
	}
	return h.renderWithPlan(c, status, b, plan, choice, notice)
}

// freshPlan is plan when the booking's read fetched one, else the session's seat plan read now.
func (h *Handler) freshPlan(ctx context.Context, b cinema.Booking, plan *cinema.SeatPlan) (*cinema.SeatPlan, error) {
	if plan != nil {
		return plan, nil
	}
	snap, err := h.SeatPlans.Plan(ctx, b.CinemaID, b.Session.ID)
	if err != nil {
		return nil, err
	}
	return &snap.Plan, nil
}

// RenderPage renders the swap page of b with plan as it is and nothing chosen: no upstream
// call. The root's page budget test (swap_budget_test.go) measures it.
func (h *Handler) RenderPage(c echo.Context, status int, b cinema.Booking, plan *cinema.SeatPlan) error {
	return h.renderWithPlan(c, status, b, plan, picked{}, nil)
}

// renderWithPlan renders the swap page with plan as it is.
func (h *Handler) renderWithPlan(c echo.Context, status int, b cinema.Booking, plan *cinema.SeatPlan, choice picked, notice *components.Notice) error {
	named := h.Visits.Named(c.Request().Context()) // tickets and areas in the visitor's words
	b = named.Booking(b)
	if plan != nil {
		p := named.SeatPlan(*plan)
		plan = &p
	}
	v := h.chooseView(c, b, plan, choice, notice)
	defer v.Map.Release() // the page is written before this returns
	return h.Site.Render(c, status, web.Loc(c).T("swap.title"), swapview.Choose(v))
}

// chooseView builds the swap page's view model (no upstream calls: the benchmark
// measures it).
func (h *Handler) chooseView(c echo.Context, b cinema.Booking, plan *cinema.SeatPlan, choice picked, notice *components.Notice) swapview.ChooseView {
	l := web.Loc(c)
	v := swapview.ChooseView{Header: h.header(c, b), Counter: h.Site.AtCounter(c), Notice: notice, BackURL: h.url("booking.show"), BackLabel: h.backLabel(c),
		ActionURL: h.url("swap.show", b.CinemaID, b.Number), CSRFToken: web.CSRFToken(c), Reason: visit.SwapUnavailableReason(l, b)}
	if v.Reason == "" {
		v.Reason = h.Visits.ChangesClosed(c, b.CinemaID, b.Session.Showtime)
	}
	if v.Reason != "" || plan == nil {
		return v
	}
	var yours []cinema.SeatPosition
	var cats []string
	var catNames []string
	for _, t := range b.Tickets {
		if !t.Placed() {
			continue
		}
		yours = append(yours, t.Seat.Position)
		if !slices.Contains(cats, t.Seat.AreaCategoryCode) {
			cats = append(cats, t.Seat.AreaCategoryCode)
			catNames = append(catNames, plan.AreaCategoryName(t.Seat.AreaCategoryCode))
		}
	}
	v.Units = units(l, b, *plan, choice.Seqs)
	if len(cats) == 1 {
		v.AreaNote = l.T("swap.area_note.one", "Area", catNames[0])
		if h.Site.AtCounter(c) {
			v.AreaNote = l.T("swap.counter.area_note_one", "Area", catNames[0])
		}
	} else {
		v.AreaNote = l.T("swap.area_note.several", "Areas", strings.Join(catNames, ", "))
	}
	// The count is against the seats the ticked tickets need (the script follows the ticks);
	// Max, all the booking's seats, sizes the list alternative.
	count := []any{"N", "{n}", "Max", "{max}"}
	v.Map = components.BuildSeatMap(*plan, components.SeatMapOptions{
		Max: len(yours), Yours: yours, YoursCurrent: true, Chosen: choice.Seats, AreaCategories: cats,
		Kiosk: web.IsKiosk(c), Label: l.T("swap.map_label"),
		CountTemplate: l.N("swap.count", 2, count...), CountTemplateOne: l.N("swap.count", 1, count...),
		MaxFrom: "#swap-tickets", CountNone: l.N("swap.count_none", 2, count[:2]...), CountNoneOne: l.N("swap.count_none", 1, count[:2]...),
	})
	need := 0
	for _, u := range v.Units {
		if u.Checked {
			need += u.Seats
		}
	}
	counted := v.Map
	counted.Max = need
	if need == 0 {
		v.Map.CountText = l.N("swap.count_none", len(choice.Seats), "N", len(choice.Seats))
	} else {
		v.Map.CountText = components.CountText(l, counted, len(choice.Seats))
	}
	return v
}

// units lists what can move: each ticket alone, the tickets of a package together. Before
// the person has said (ticked is nil: the page's first showing) every ticket moves, the
// usual wish; the form shown again keeps what was ticked.
func units(l *i18n.Localizer, b cinema.Booking, plan cinema.SeatPlan, ticked map[int]bool) []swapview.TicketUnit {
	var out []swapview.TicketUnit
	done := map[int]bool{}
	for _, t := range b.Tickets {
		if !t.Placed() || done[t.Seq] {
			continue
		}
		mates := b.PackageMates(t.Seq)
		var seqs, seats []string
		checked := true
		for _, m := range mates {
			done[m.Seq] = true
			seqs = append(seqs, strconv.Itoa(m.Seq))
			if m.Placed() {
				seats = append(seats, m.Seat.Label)
			}
			checked = checked && (ticked == nil || ticked[m.Seq])
		}
		u := swapview.TicketUnit{Value: strings.Join(seqs, "+"), Checked: checked, Seats: len(mates), TestID: "ticket-" + strings.Join(seqs, "-")}
		cat := plan.AreaCategoryName(t.Seat.AreaCategoryCode)
		if len(mates) > 1 {
			u.Package = true
			u.Label = l.T("swap.unit.package_label", "Ticket", t.Description, "Row", t.Seat.RowLabel, "Seats", joinWords(l, seats))
			u.Detail = l.N("swap.unit.package_detail", len(mates), "Area", cat)
		} else {
			u.Label = t.Description + " · " + tickets.SeatWords(l, t.Seat.RowLabel, t.Seat.Label)
			u.Detail = cat
		}
		out = append(out, u)
	}
	return out
}

// joinWords lists words in l's language: "5, 6 and 7".
func joinWords(l *i18n.Localizer, ws []string) string {
	if len(ws) < 2 {
		return strings.Join(ws, "")
	}
	return l.T("swap.list_and", "List", strings.Join(ws[:len(ws)-1], ", "), "Last", ws[len(ws)-1])
}

// backLabel is the link back to the booking page: the customer's booking, or at the counter
// the booking.
func (h *Handler) backLabel(c echo.Context) string {
	if h.Site.AtCounter(c) {
		return web.Loc(c).T("swap.counter.back_to_booking")
	}
	return web.Loc(c).T("swap.back_to_booking")
}
