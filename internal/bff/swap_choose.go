package bff

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/upstream"
	"github.com/cinemabff/cinemabff/views/components"
	"github.com/cinemabff/cinemabff/views/pages/swap"
)

// swapChoice is what the person ticked: the tickets that move (sequence numbers) and the new
// seats. A form shown again keeps it.
type swapChoice struct {
	Seqs  map[int]bool
	Seats []cinema.SeatPosition
}

// showSwap is the swap page: the booking's tickets, the seat map with fresh availability, or
// the reason the seats cannot be changed. It reads the booking and the seat plan, nothing more.
func (s *Server) showSwap(c echo.Context) error {
	bb, err := s.swapAccess(c)
	if err != nil {
		return err
	}
	rb, err := s.bookings.Read(c.Request().Context(), bb.CinemaID, bb.Number)
	if err != nil {
		return s.fromUpstream(err, s.url(RouteBooking), "Back to your booking")
	}
	return s.renderSwap(c, http.StatusOK, rb.Booking, rb.Plan, swapChoice{}, nil)
}

// reviewSwap checks the choice against the booking and a fresh seat plan. Nothing is sent to
// the ticketing system: a choice it cannot accept is explained and the form shown again with
// the choices kept; a good one waits for the go-ahead on the confirm page.
func (s *Server) reviewSwap(c echo.Context) error {
	bb, err := s.swapAccess(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	rb, err := s.bookings.Read(ctx, bb.CinemaID, bb.Number)
	if err != nil {
		return s.fromUpstream(err, s.url(RouteBooking), "Back to your booking")
	}
	b := rb.Booking
	if err := s.refuseClosed(c, b.CinemaID, b.Session.Showtime, s.url(RouteBooking), "Back to your booking"); err != nil {
		return err
	}
	if swapUnavailableReason(b) != "" {
		return s.renderSwap(c, http.StatusConflict, b, nil, swapChoice{}, nil)
	}
	form, err := c.FormParams()
	if err != nil {
		return &Error{Code: EInvalid, Heading: "That did not work", Message: "We could not read your choice. Please choose again.",
			BackURL: s.url(RouteSwap, bb.CinemaID, bb.Number), BackLabel: "Choose seats"}
	}
	plan, err := s.freshPlan(ctx, b, rb.Plan)
	if err != nil {
		return s.fromUpstream(err, s.url(RouteBooking), "Back to your booking")
	}
	choice, moves, problem := planSwap(b, *plan, form["ticket"], form["seat"])
	if problem != nil {
		return s.renderSwapWithPlan(c, http.StatusUnprocessableEntity, b, plan, choice, problem)
	}
	s.saveSwap(c, sessSwapPending, swapVisit{CinemaID: b.CinemaID, Number: b.Number, BookingID: b.ID, Header: s.swapHeader(c, b), Moves: moves, Showtime: b.Session.Showtime, Email: b.CustomerEmail})
	return s.redirect(c, s.url(RouteSwapConfirm, b.CinemaID, b.Number))
}

func swapProblem(heading, body string) *components.Notice {
	return &components.Notice{Kind: components.NoticeError, Heading: heading, Body: body}
}

// planSwap turns the submitted tickets and seats into moves, or explains what it cannot
// accept: an unknown ticket, part of a package, the wrong number of seats, a seat that is not
// on the map, already in the booking, in another area category, or not free. Each ticket is
// paired with a new seat of its own area category, both in seat order.
func planSwap(b cinema.Booking, plan cinema.SeatPlan, ticketValues, seatValues []string) (swapChoice, []swapMove, *components.Notice) {
	choice := swapChoice{Seqs: map[int]bool{}}
	choice.Seats, _ = components.SeatValues(seatValues)
	var tickets []cinema.BookedTicket
	for _, v := range ticketValues {
		for _, part := range strings.Split(v, "+") {
			seq, err := strconv.Atoi(part)
			t, ok := b.Ticket(seq)
			if err != nil || !ok || !t.Placed() {
				return choice, nil, swapProblem("Please choose tickets from the list", "One of the tickets you chose is not in this booking, or has no numbered seat.")
			}
			if !choice.Seqs[seq] {
				choice.Seqs[seq] = true
				tickets = append(tickets, t)
			}
		}
	}
	if len(tickets) == 0 {
		return choice, nil, swapProblem("Choose which tickets move", "Tick at least one ticket under “Which tickets move?”, then choose a new seat for each.")
	}
	for _, t := range tickets {
		for _, m := range b.PackageMates(t.Seq) {
			if !choice.Seqs[m.Seq] {
				return choice, nil, swapProblem("Tickets of a package move together",
					swapRestrictionText(upstream.SwapPartialPackage)+" Tick the whole package and choose a new seat for each of its tickets.")
			}
		}
	}
	if _, err := components.SeatValues(seatValues); err != nil {
		return choice, nil, swapProblem("Please choose seats from the map", "One of the seats you sent is not a seat of this showing.")
	}
	if len(choice.Seats) != len(tickets) {
		return choice, nil, swapProblem(fmt.Sprintf("Choose %d new %s", len(tickets), plural(len(tickets), "seat", "seats")),
			fmt.Sprintf("You are moving %d %s and chose %d new %s. Each ticket that moves needs one new seat.",
				len(tickets), plural(len(tickets), "ticket", "tickets"), len(choice.Seats), plural(len(choice.Seats), "seat", "seats")))
	}
	owned := map[cinema.SeatPosition]bool{}
	for _, t := range b.Tickets {
		if t.Placed() {
			owned[t.Seat.Position] = true
		}
	}
	need := map[string]int{} // area category -> tickets moving
	var cats []string        // the category of each ticket moving, in order
	for _, t := range tickets {
		need[t.Seat.AreaCategoryCode]++
		cats = append(cats, t.Seat.AreaCategoryCode)
	}
	seatsByCat := map[string][]cinema.Seat{}
	for _, p := range choice.Seats {
		seat, ok := plan.Seat(p)
		switch {
		case !ok:
			return choice, nil, swapProblem("Please choose seats from the map", "One of the seats you sent is not a seat of this showing.")
		case owned[p]:
			return choice, nil, swapProblem("That seat is already yours",
				fmt.Sprintf("%s is already in your booking. %s Please choose a seat you do not have yet.", seatText(ptr(seat.Ref())), swapRestrictionText(upstream.SwapSeatInBooking)))
		case need[seat.AreaCategoryCode] == 0:
			return choice, nil, swapProblem("New seats must be in the same area",
				fmt.Sprintf("%s: %s is in the %s area.", areaRule(plan, cats), seatText(ptr(seat.Ref())), categoryName(plan, seat.AreaCategoryCode)))
		case !seat.Selectable():
			return choice, nil, swapProblem("That seat is taken",
				fmt.Sprintf("%s is not free. Please choose another seat; the map shows what is free now.", seatText(ptr(seat.Ref()))))
		}
		seatsByCat[seat.AreaCategoryCode] = append(seatsByCat[seat.AreaCategoryCode], seat)
	}
	for cat, n := range need {
		if len(seatsByCat[cat]) != n {
			return choice, nil, swapProblem("New seats must be in the same area",
				fmt.Sprintf("%s: you are moving %d %s %s and chose %d new %s seats.", areaRule(plan, cats), n, categoryName(plan, cat), plural(n, "ticket", "tickets"),
					len(seatsByCat[cat]), categoryName(plan, cat)))
		}
	}
	slices.SortStableFunc(tickets, func(a, b cinema.BookedTicket) int { return comparePos(a.Seat.Position, b.Seat.Position) })
	for _, ss := range seatsByCat {
		slices.SortFunc(ss, func(a, b cinema.Seat) int { return comparePos(a.Position, b.Position) })
	}
	moves := make([]swapMove, 0, len(tickets))
	for _, t := range tickets {
		cat := t.Seat.AreaCategoryCode
		to := seatsByCat[cat][0]
		seatsByCat[cat] = seatsByCat[cat][1:]
		moves = append(moves, swapMove{Seq: t.Seq, Ticket: t.Description, Package: t.InPackage(), From: seatText(t.Seat), To: to.Position, ToText: seatText(ptr(to.Ref()))})
	}
	return choice, moves, nil
}

func comparePos(a, b cinema.SeatPosition) int {
	return cmp.Or(cmp.Compare(a.AreaNumber, b.AreaNumber), cmp.Compare(a.RowIndex, b.RowIndex), cmp.Compare(a.ColumnIndex, b.ColumnIndex))
}

func ptr[T any](v T) *T { return &v }

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func categoryName(plan cinema.SeatPlan, code string) string {
	if c, ok := plan.AreaCategory(code); ok && c.Description != "" {
		return c.Description
	}
	return code
}

func (s *Server) swapHeader(c echo.Context, b cinema.Booking) swap.Header {
	ci := s.cinemaByID(c.Request().Context(), b.CinemaID)
	return swap.Header{BookingNumber: strconv.FormatInt(b.Number, 10), FilmTitle: b.Session.FilmTitle,
		Showtime: showtime(b.Session.Showtime, ci), Screen: b.Session.ScreenName}
}

// renderSwap shows the swap page for b: the reason when its seats cannot be swapped,
// otherwise the tickets and the map with a fresh seat plan (plan, when the booking's own read
// just fetched it to place the tickets).
func (s *Server) renderSwap(c echo.Context, status int, b cinema.Booking, plan *cinema.SeatPlan, choice swapChoice, notice *components.Notice) error {
	if swapUnavailableReason(b) != "" {
		return s.renderSwapWithPlan(c, status, b, nil, choice, notice)
	}
	plan, err := s.freshPlan(c.Request().Context(), b, plan)
	if err != nil {
		return s.fromUpstream(err, s.url(RouteBooking), "Back to your booking")
	}
	return s.renderSwapWithPlan(c, status, b, plan, choice, notice)
}

// freshPlan is plan when the booking's read fetched one, else the session's seat plan read now.
func (s *Server) freshPlan(ctx context.Context, b cinema.Booking, plan *cinema.SeatPlan) (*cinema.SeatPlan, error) {
	if plan != nil {
		return plan, nil
	}
	snap, err := s.seatPlans.Plan(ctx, b.CinemaID, b.Session.ID)
	if err != nil {
		return nil, err
	}
	return &snap.Plan, nil
}

func (s *Server) renderSwapWithPlan(c echo.Context, status int, b cinema.Booking, plan *cinema.SeatPlan, choice swapChoice, notice *components.Notice) error {
	return s.render(c, status, "Change seats", swap.Choose(s.swapChooseView(c, b, plan, choice, notice)))
}

// swapChooseView builds the swap page's view model (no upstream calls: the benchmark
// measures it).
func (s *Server) swapChooseView(c echo.Context, b cinema.Booking, plan *cinema.SeatPlan, choice swapChoice, notice *components.Notice) swap.ChooseView {
	v := swap.ChooseView{Header: s.swapHeader(c, b), Notice: notice, BackURL: s.url(RouteBooking), BackLabel: "Back to your booking",
		ActionURL: s.url(RouteSwap, b.CinemaID, b.Number), CSRFToken: csrfToken(c), Reason: swapUnavailableReason(b)}
	if v.Reason == "" {
		v.Reason = s.changesClosed(c, b.CinemaID, b.Session.Showtime)
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
			catNames = append(catNames, categoryName(*plan, t.Seat.AreaCategoryCode))
		}
	}
	v.Units = swapUnits(b, *plan, choice.Seqs)
	if len(cats) == 1 {
		v.AreaNote = fmt.Sprintf("New seats must be in the same seating area as your tickets: %s. Seats in other areas cannot be chosen.", catNames[0])
	} else {
		v.AreaNote = fmt.Sprintf("Each ticket moves within its own seating area (%s).", strings.Join(catNames, ", "))
	}
	// The count is against the seats the ticked tickets need (the script follows the ticks);
	// Max, all the booking's seats, sizes the list alternative.
	v.Map = components.BuildSeatMap(*plan, components.SeatMapOptions{
		Max: len(yours), Yours: yours, Chosen: choice.Seats, AreaCategories: cats,
		Kiosk: isKiosk(c), Label: "Seat map, screen at the top",
		CountTemplate: "{n} of {max} new seats chosen", CountTemplateOne: "{n} of {max} new seat chosen",
		MaxFrom: "#swap-tickets", CountNone: "{n} new seats chosen. Tick the tickets that move to see how many they need.",
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
		v.Map.CountText = strings.ReplaceAll(v.Map.CountNone, "{n}", strconv.Itoa(len(choice.Seats)))
	} else {
		v.Map.CountText = components.CountText(counted, len(choice.Seats))
	}
	return v
}

// swapUnits lists what can move: each ticket alone, the tickets of a package together.
func swapUnits(b cinema.Booking, plan cinema.SeatPlan, ticked map[int]bool) []swap.TicketUnit {
	var out []swap.TicketUnit
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
			checked = checked && ticked[m.Seq]
		}
		u := swap.TicketUnit{Value: strings.Join(seqs, "+"), Checked: checked, Seats: len(mates), TestID: "ticket-" + strings.Join(seqs, "-")}
		cat := categoryName(plan, t.Seat.AreaCategoryCode)
		if len(mates) > 1 {
			u.Package = true
			u.Label = fmt.Sprintf("%s · Row %s, seats %s", t.Description, t.Seat.RowLabel, joinWords(seats))
			u.Detail = fmt.Sprintf("%s · a package of %d tickets: they move together, so choose %d new seats for it.", cat, len(mates), len(mates))
		} else {
			u.Label = fmt.Sprintf("%s · %s", t.Description, seatText(t.Seat))
			u.Detail = cat
		}
		out = append(out, u)
	}
	return out
}

func joinWords(ws []string) string {
	if len(ws) < 2 {
		return strings.Join(ws, "")
	}
	return strings.Join(ws[:len(ws)-1], ", ") + " and " + ws[len(ws)-1]
}
